"""A real host stand-in: the official Python SDK's client over stdio, run by the SDK peer's
interpreter. It starts the server command given on its command line (a tap, or the server
itself), or speaks Streamable HTTP to a URL, lists the tools, calls echo and add, and prints
what it got as one JSON document.

    $MCP_TUI_PEER_SDK sdk_tap_client.py COMMAND [ARGS...]
    $MCP_TUI_PEER_SDK sdk_tap_client.py http://127.0.0.1:PORT/mcp
"""
import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


async def main(argv):
    # The SDK gives a server only a few variables of its own environment: the tap's state directory is passed on.
    passed = {name: os.environ[name] for name in ("MCP_TUI_STATE_DIR",) if name in os.environ}
    server = argv[0] if argv[0].startswith("http://") else StdioServerParameters(command=argv[0], args=argv[1:],
                                                                                 env=passed or None)
    async with Client(server, cache=None) as client:
        tools = await client.list_tools()
        echo = await client.call_tool("echo", {"message": "through the tap"})
        add = await client.call_tool("add", {"a": 2, "b": 40})
        version = client.protocol_version
    print(json.dumps({"protocolVersion": version, "tools": sorted(tool.name for tool in tools.tools),
                      "echo": echo.model_dump(mode="json", exclude_none=True),
                      "add": add.model_dump(mode="json", exclude_none=True)}, sort_keys=True))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
