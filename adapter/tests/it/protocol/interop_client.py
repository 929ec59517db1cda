"""Interop probe: the Python MCP SDK (`mcp==2.3.0`) as a real client of the adapter over stdio.

Usage: python interop_client.py ADAPTER [ARGS...]

Connects with the SDK's high-level `Client` in its default `auto` mode (it probes
`server/discover` first and falls back to `initialize`, as real hosts do), lists tools and
resources, reads the work resource, calls `claude.run.result` for an unknown run, and prints one
JSON object with what it saw. Any SDK error ends the script non-zero with the traceback on stderr.
"""

import asyncio
import json
import sys

import mcp
from mcp import Client, StdioServerParameters


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main() -> None:
    server = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(server, read_timeout_seconds=30) as client:
        tools = await client.list_tools()
        resources = await client.list_resources()
        read = await client.read_resource("computer-mcp://runtime/work/v1")
        call = await client.call_tool("claude.run.result", {"run_id": "abc"})
        print(
            json.dumps(
                {
                    "sdk": mcp.__name__,
                    "protocol_version": client.protocol_version,
                    "server_info": dump(client.server_info) if client.server_info else None,
                    "tools": [dump(t) for t in tools.tools],
                    "resources": [dump(r) for r in resources.resources],
                    "read": dump(read),
                    "call": dump(call),
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main())
