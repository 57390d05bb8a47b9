#!/usr/bin/env python3
"""Interop peer: FastMCP 4.1.4 + fastmcp-tasks 4.1.4, serving the 2026-07-28
`io.modelcontextprotocol/tasks` extension (SEP-2663).

Run it with the interpreter of the `fastmcp` peer venv (env var MCP_TUI_PEER_FASTMCP):

    python fastmcp_tasks_server.py --transport stdio
    python fastmcp_tasks_server.py --transport streamable-http --port 0
    python fastmcp_tasks_server.py --transport sse --port 0

For the HTTP transports it binds 127.0.0.1 only and prints one line
`listening on <url>` to stdout (flushed) once uvicorn accepts connections
(`http://127.0.0.1:PORT/mcp`, or `.../sse` for the legacy SSE transport).

Tools (task mode in brackets; the poll interval is 50 ms so tests stay fast):
- render_report(quarter)  [required]  always a task; a short piece of work
- summarize(text)         [optional]  a task only when the request declares the extension
- echo(message)           [forbidden] never a task
- ask_name()              [required]  stops at input_required with a form elicitation
                                       under the key "name"; answer it with tasks/update
- slow_job(seconds)       [required]  runs for `seconds` (default 30) in small steps;
                                       cancel it with tasks/cancel
- fail_task()             [required]  completes with an isError result (a tool error)
- broken_task()           [required]  fails with a JSON-RPC error (status "failed")

Tasks exist only on 2026-07-28: fastmcp-tasks gates tasks/* to that era and ignores
the extension on legacy connections. The server itself is dual-era (mcp 2.3.0 SDK
underneath): on stdio the first request fixes the era of the process.
"""
from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import timedelta

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension
from mcp.shared.exceptions import MCPError
from peer_http import serve_http  # beside this script

POLL = timedelta(milliseconds=50)
REQUIRED = TaskConfig(mode="required", poll_interval=POLL)
OPTIONAL = TaskConfig(mode="optional", poll_interval=POLL)

mcp = FastMCP("mcp-tui-fastmcp-tasks-peer", version="1.0.0", instructions="Interop peer with background tasks.")
mcp.add_extension(TasksExtension(url="memory://"))


@mcp.tool(task=REQUIRED, description="Render a quarterly report. Always runs as a task.")
async def render_report(ctx: Context, quarter: str = "Q3") -> str:
    await ctx.report_progress(1, 2, "Rendering page 1 of 2")
    await asyncio.sleep(0.2)
    await ctx.report_progress(2, 2, "Rendering page 2 of 2")
    await asyncio.sleep(0.1)
    return f"{quarter} revenue: $5.1M across 1,502 orders"


@mcp.tool(task=OPTIONAL, description="Summarize text. A task only if the client declares the extension.")
async def summarize(text: str = "hello world") -> str:
    await asyncio.sleep(0.1)
    return f"Summary: {len(text.split())} words"


@mcp.tool(description="Echo the message back. Never a task.")
def echo(message: str) -> str:
    return message


def _answer_field(answer, field):
    """Read an ElicitResult that may arrive as a model or a plain dict."""
    if answer is None:
        return None
    if isinstance(answer, dict):
        return answer.get(field)
    return getattr(answer, field, None)


@mcp.tool(task=REQUIRED, description="Ask for your name (input_required inside the task), then greet you.")
async def ask_name(ctx: Context) -> str | mcp_types.InputRequiredResult:
    answer = (ctx.input_responses or {}).get("name")
    if answer is None:
        return mcp_types.InputRequiredResult(
            input_requests={
                "name": mcp_types.ElicitRequest(
                    params=mcp_types.ElicitRequestFormParams(
                        message="Please enter your name.",
                        requested_schema={
                            "type": "object",
                            "properties": {"name": {"type": "string", "title": "Name", "description": "Your name"}},
                            "required": ["name"],
                        },
                    )
                )
            }
        )
    action = _answer_field(answer, "action")
    if action != "accept":
        return f"No name given ({action})."
    content = _answer_field(answer, "content") or {}
    return f"Hello, {content.get('name')}!"


@mcp.tool(task=REQUIRED, description="A slow job that can be cancelled with tasks/cancel.")
async def slow_job(ctx: Context, seconds: float = 30.0) -> str:
    steps = max(1, int(seconds / 0.1))
    for i in range(steps):
        if i % 10 == 0:
            await ctx.report_progress(i, steps, f"Working: step {i + 1} of {steps}")
        await asyncio.sleep(0.1)
    return f"slow_job finished after {seconds}s"


@mcp.tool(task=REQUIRED, description="A task that completes with a tool error (isError: true).")
async def fail_task() -> str:
    raise ToolError("Deliberate tool failure inside a task")


@mcp.tool(task=REQUIRED, description="A task that fails with a JSON-RPC error (status failed).")
async def broken_task() -> str:
    raise MCPError(code=-32603, message="Deliberate protocol failure inside a task")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http", "http", "sse"], default="stdio")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--json-response", action="store_true", help="streamable HTTP: answer with JSON, not SSE")
    args = parser.parse_args(argv)

    if args.transport == "stdio":
        mcp.run("stdio", show_banner=False, log_level="WARNING")
    elif args.transport in ("streamable-http", "http"):
        app = mcp.http_app(transport="http", path="/mcp", json_response=args.json_response or None)
        serve_http(app, args.port, "/mcp", lifespan="on")
    else:
        serve_http(mcp.http_app(transport="sse", path="/sse"), args.port, "/sse", lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
