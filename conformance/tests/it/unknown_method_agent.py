#!/usr/bin/env python3
"""A one-defect ACP agent for tests/it/levels.rs (standard library only): it answers
`initialize` and, for any other request, an error with the code given as `--code N`
(default -32601), or nothing at all with `--silent`. Notifications are ignored."""

import json
import sys

SILENT = "--silent" in sys.argv
CODE = int(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv else -32601

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict) or "id" not in msg or "method" not in msg:
        continue
    if msg["method"] == "initialize":
        out = {
            "jsonrpc": "2.0",
            "id": msg["id"],
            "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []},
        }
    elif SILENT:
        continue
    else:
        out = {
            "jsonrpc": "2.0",
            "id": msg["id"],
            "error": {"code": CODE, "message": "no such method"},
        }
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
