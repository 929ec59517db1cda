"""A trivial stdio MCP server for the start-up benchmark (adapter/benches/startup.rs).

It answers `initialize`, `tools/list` (with the result JSON read once from the file named by its
first argument, so it sends exactly the bytes the adapter lists) and any other request with `{}`,
one line per answer, and does nothing else: the floor a real server is compared with.
"""

import json
import sys

INIT = (
    '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},'
    '"serverInfo":{"name":"trivial","version":"0"}}'
)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        listing = f.read().strip()
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    while True:
        line = read()
        if not line:
            return
        msg = json.loads(line)
        if "id" not in msg or "method" not in msg:
            continue
        method = msg["method"]
        if method == "initialize":
            result = INIT
        elif method == "tools/list":
            result = listing
        else:
            result = "{}"
        out.write(
            ('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(msg["id"]), result)).encode()
        )
        out.flush()


main()
