"""The Python MCP SDK (`mcp==2.3.0`) as a generic host of ANY stdio MCP server: the core
sequence only, so the same script can run against a server and against a recording of it
(`mcp-replay serve`). testkit::prereq::python_core_client() builds the command.

Usage: python core_client.py [--call NAME=JSON_ARGS]... -- COMMAND [ARGS...]

Connects with the SDK's high-level `Client` in its default mode (it may probe `server/discover`
before `initialize`, as real hosts do), lists tools, lists resources when the server declares
them, makes each --call in order, closes. Prints one JSON object with what it saw; a step the SDK
raises on is recorded as {"raised": ...}.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def step(coro):
    try:
        return dump(await coro)
    except Exception as error:  # the test asserts on what was raised
        return {"raised": f"{type(error).__name__}: {error}"}


async def main() -> None:
    args = sys.argv[1:]
    calls = []
    while args and args[0] != "--":
        if args[0] != "--call":
            print(f"core_client.py: unknown option {args[0]}", file=sys.stderr)
            sys.exit(2)
        name, _, arguments = args[1].partition("=")
        calls.append((name, json.loads(arguments)))
        args = args[2:]
    args = args[1:]
    server = StdioServerParameters(command=args[0], args=args[1:])
    async with Client(server, read_timeout_seconds=30) as client:
        seen = {"server_info": dump(client.server_info) if client.server_info else None}
        seen["tools"] = await step(client.list_tools())
        caps = client.server_capabilities
        if caps is not None and caps.resources is not None:
            seen["resources"] = await step(client.list_resources())
        for i, (name, arguments) in enumerate(calls):
            seen[f"call {i + 1} {name}"] = await step(client.call_tool(name, arguments))
        print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main())
