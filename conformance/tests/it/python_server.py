"""A small MCP server on the Python SDK (mcp==2.3.0): one tool, one resource, over stdio, or
over Streamable HTTP at http://127.0.0.1:PORT/mcp with `--http PORT` (the SDK's defaults for a
loopback host).

The conformance tests run mcp-conformance against it to pin how a real third-party server is
graded (it drops malformed lines silently, declares no computer-mcp metadata).
"""

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("conformance-python-probe")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.resource("probe://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "hello"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
