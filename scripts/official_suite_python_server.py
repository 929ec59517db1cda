"""A small MCP server on the Python SDK (mcp==2.3.0) over Streamable HTTP, for
scripts/official-suite.sh: the tool and resource of conformance/tests/it/python_server.py plus a
prompt, served at http://127.0.0.1:PORT/mcp with the SDK's defaults for a loopback host.

Usage: python official_suite_python_server.py PORT
"""

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("official-suite-python-probe")


@app.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@app.resource("probe://greeting")
def greeting() -> str:
    """A fixed greeting."""
    return "hello"


@app.prompt()
def greet(name: str) -> str:
    """Ask for a greeting."""
    return f"Say hello to {name}."


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
