#!/usr/bin/env python3
"""Interop peer: a server written with the official MCP Python SDK (mcp==2.3.0).

Run it with the interpreter of the `sdk` peer venv (env var MCP_TUI_PEER_SDK):

    python sdk_server.py --transport stdio
    python sdk_server.py --transport streamable-http --port 0
    python sdk_server.py --transport sse --port 0

For the HTTP transports it binds 127.0.0.1 only and prints one line
`listening on <url>` to stdout (flushed) once uvicorn accepts connections:
`http://127.0.0.1:PORT/mcp` for streamable HTTP, `http://127.0.0.1:PORT/sse` for
the legacy HTTP+SSE transport. Nothing else is written to stdout.

Eras, as served by the SDK itself (MCPServer's defaults, nothing configured here):
- stdio and legacy SSE: `Server.run` -> `serve_dual_era_loop`; the first request on the
  connection decides the era (a request carrying the 2026-07-28 `_meta` envelope opens a
  modern connection, anything else, e.g. `initialize`, a legacy one), for the life of the
  process/connection.
- streamable HTTP: routed per POST by the `MCP-Protocol-Version` header: a value that is
  not a handshake version (e.g. 2026-07-28) goes to the stateless 2026-07-28 handler, a
  missing or legacy value to the stateful legacy (Mcp-Session-Id) transport.

Tools: echo, add (structured output), ask_name (form elicitation: MRTR on 2026-07-28, a
server->client `elicitation/create` request on legacy), fail (isError result), progress
(notifications/progress when the request carries a progressToken). Resource
`info://server`, resource template `greeting://{name}`, prompt `greet(name)`.

With --tools-only it serves a low-level `Server` with the tool handlers alone, as servers
built on it (mcp-server-time, mcp-server-fetch) are: no resources, prompts or logging
capability, and -32601 to their methods. With --event-store the streamable HTTP app keeps
its SSE events in memory (the SDK's EventStore): they carry ids, and a client resumes a cut
stream with GET Last-Event-ID.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from peer_http import serve_http  # beside this script

SERVER_NAME = "mcp-tui-sdk-peer"
SERVER_VERSION = "1.0.0"

mcp = MCPServer(
    SERVER_NAME,
    version=SERVER_VERSION,
    instructions="Interop peer for mcp-tui built on the official Python SDK.",
    log_level="WARNING",
)


@mcp.tool(description="Echo the message back.")
def echo(message: str) -> str:
    return message


@mcp.tool(description="Add two integers.")
def add(a: int, b: int) -> int:
    # An `int` return annotation makes the SDK emit an outputSchema and
    # structuredContent {"result": a + b} next to the text content.
    return a + b


class NameForm(BaseModel):
    name: str = Field(description="Your name")


def ask_for_name() -> Elicit[NameForm]:
    return Elicit("Please enter your name.", NameForm)


@mcp.tool(description="Ask the user for a name (form elicitation) and greet them.")
async def ask_name(answer: Annotated[ElicitationResult[NameForm], Resolve(ask_for_name)]) -> str:
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return f"No name given ({answer.action})."


@mcp.tool(description="Always fails with a tool error (isError: true).")
def fail(reason: str = "something went wrong") -> str:
    raise ToolError(f"Deliberate failure: {reason}")


@mcp.tool(description="Report progress `steps` times, then finish.")
async def progress(ctx: Context, steps: int = 3) -> str:
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await asyncio.sleep(0.01)
    return f"done after {steps} steps"


@mcp.resource("info://server", name="server-info", description="Static text about this server.", mime_type="text/plain")
def server_info() -> str:
    return f"{SERVER_NAME} {SERVER_VERSION}: official SDK interop peer"


@mcp.resource("greeting://{name}", name="greeting", description="A greeting for NAME.", mime_type="text/plain")
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@mcp.prompt(description="Ask the model to greet someone by name.")
def greet(name: str) -> str:
    return f"Please write a warm greeting for {name}."


class MemoryEventStore:
    """The SDK's EventStore kept in a list: each event's id is its index (made a subclass of
    mcp.server.streamable_http.EventStore at import time, below)."""

    def __init__(self):
        self.events = []  # (stream id, message)

    async def store_event(self, stream_id, message):
        self.events.append((stream_id, message))
        return str(len(self.events) - 1)

    async def replay_events_after(self, last_event_id, send_callback):
        from mcp.server.streamable_http import EventMessage

        try:
            after = int(last_event_id)
            stream_id = self.events[after][0]
        except (ValueError, IndexError):
            return None
        for index in range(after + 1, len(self.events)):
            stream, message = self.events[index]
            if stream == stream_id and message is not None:
                await send_callback(EventMessage(message, str(index)))
        return stream_id


def memory_event_store():
    from mcp.server.streamable_http import EventStore

    return type("MemoryEventStoreABC", (MemoryEventStore, EventStore), {})()


def tools_only_server():
    """A low-level Server with only tools/list and tools/call, serving the echo tool."""
    import mcp_types
    from mcp.server.lowlevel.server import Server

    async def list_tools(ctx, params):
        return mcp_types.ListToolsResult(tools=[tool.model_copy(update={"output_schema": None})
                                                for tool in await mcp.list_tools() if tool.name == "echo"])

    async def call_tool(ctx, params):
        message = (params.arguments or {}).get("message", "")
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=str(message))])

    return Server(SERVER_NAME + "-tools-only", version=SERVER_VERSION, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http", "sse"], default="stdio")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--json-response", action="store_true", help="streamable HTTP: answer with JSON, not SSE")
    parser.add_argument("--stateless", action="store_true", help="streamable HTTP: legacy path without sessions")
    parser.add_argument("--event-store", action="store_true", help="streamable HTTP: SSE events with ids, resumable")
    parser.add_argument("--tools-only", action="store_true", help="streamable HTTP: a low-level Server with tools alone")
    args = parser.parse_args(argv)

    if args.tools_only:
        serve_http(tools_only_server().streamable_http_app(), args.port, "/mcp", lifespan="on")
        return 0

    if args.transport == "stdio":
        mcp.run("stdio")
    elif args.transport == "streamable-http":
        app = mcp.streamable_http_app(json_response=args.json_response, stateless_http=args.stateless,
                                      event_store=memory_event_store() if args.event_store else None)
        serve_http(app, args.port, "/mcp")
    else:
        serve_http(mcp.sse_app(), args.port, "/sse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
