"""Host matrix: the Python MCP SDK (`mcp==2.3.0`) as a real host of the adapter over stdio.

Usage: python python_client.py --names dotted|underscore -- ADAPTER [ARGS...]

Connects with the SDK's high-level `Client` in its default `auto` mode (it probes
`server/discover` first and falls back to `initialize`, as real hosts do), then runs the core
sequence: tools/list; resources/list, resources/templates/list and the work resource read (before
any run: META-WORK-5 refuses the read while unbound runs are retained); claude.run (fake-claude
`success`, with a progress callback); claude.run.start + claude.run.result until completed +
claude.run.events; claude.run.start of a hanging run + claude.run.cancel + claude.run.result
until completed; invalid arguments; claude.run.result of an unknown run; the work resource read
again (refused). Prints one JSON object with what it saw; a step the SDK raises on is recorded
as `{"raised": ...}`. The adapter is expected to run fake-claude as its `claude`.
"""

import asyncio
import json
import sys

import mcp
from mcp import Client, StdioServerParameters


WORK_URI = "computer-mcp://runtime/work/v1"


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def prompt(scenario):
    return f"fake-claude:scenario={scenario}\nhello"


async def step(coro):
    try:
        return dump(await coro)
    except Exception as error:  # the test asserts on what was raised
        return {"raised": f"{type(error).__name__}: {error}"}


async def main() -> None:
    args = sys.argv[1:]
    names = "dotted"
    if args[:1] == ["--names"]:
        names, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]

    def tool(dotted):
        return dotted.replace(".", "_") if names == "underscore" else dotted

    server = StdioServerParameters(command=args[0], args=args[1:])
    async with Client(server, read_timeout_seconds=30) as client:
        seen = {
            "sdk": mcp.__name__,
            "protocol_version": client.protocol_version,
            "server_info": dump(client.server_info) if client.server_info else None,
        }
        tools = await client.list_tools()
        seen["tools"] = [dump(t) for t in tools.tools]
        # Resources first: the work snapshot can be read only while no unbound run is retained.
        seen["resources"] = [dump(r) for r in (await client.list_resources()).resources]
        seen["resource_templates"] = await step(client.list_resource_templates())
        seen["read"] = dump(await client.read_resource(WORK_URI))

        progress = []

        async def on_progress(value, total, message):
            progress.append({"progress": value, "total": total, "message": message})

        seen["run"] = await step(
            client.call_tool(tool("claude.run"), {"prompt": prompt("success")}, progress_callback=on_progress)
        )
        seen["run_progress"] = progress

        async def until_completed(run_id):
            last = None
            for _ in range(200):
                last = await step(client.call_tool(tool("claude.run.result"), {"run_id": run_id}))
                if last.get("structuredContent", {}).get("result", {}).get("completed"):
                    break
                await asyncio.sleep(0.1)
            return last

        seen["start"] = await step(client.call_tool(tool("claude.run.start"), {"prompt": prompt("success")}))
        run_id = seen["start"].get("structuredContent", {}).get("result", {}).get("run_id")
        if run_id:
            seen["start_result"] = await until_completed(run_id)
            seen["start_events"] = await step(client.call_tool(tool("claude.run.events"), {"run_id": run_id}))

        seen["cancel_start"] = await step(
            client.call_tool(tool("claude.run.start"), {"prompt": prompt("hang-before-final")})
        )
        hang_id = seen["cancel_start"].get("structuredContent", {}).get("result", {}).get("run_id")
        if hang_id:
            seen["cancel"] = await step(client.call_tool(tool("claude.run.cancel"), {"run_id": hang_id}))
            seen["cancel_result"] = await until_completed(hang_id)

        seen["invalid"] = await step(client.call_tool(tool("claude.run"), {"timeout_s": "soon"}))
        seen["call"] = await step(client.call_tool(tool("claude.run.result"), {"run_id": "abc"}))
        # META-WORK-5: with runs created without a work invocation retained, the read is refused.
        seen["read_after_runs"] = await step(client.read_resource(WORK_URI))
        print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main())
