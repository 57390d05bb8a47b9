"""The same three calls made with the official MCP Python SDK (`mcp` on PyPI, 2.x).

    python sdk_client.py --url URL COMMAND
    python sdk_client.py --stdio PROGRAM [ARG ...] -- COMMAND

COMMAND is `list`, `echo`, `task` or `big`, as in floor_client.py. Run it with an interpreter
that has `mcp` installed (the `sdk` interop peer venv, $MCP_TUI_PEER_SDK).

`mcp.Client` negotiates the era itself (server/discover, falling back to initialize),
so against the test server it speaks 2026-07-28, like mcp-tui. The SDK has no built-in
client for the io.modelcontextprotocol/tasks extension; `task` adds the smallest one
its extension API allows: a ResultClaim for resultType "task" that polls tasks/get at
the task's pollIntervalMs until the task ends (what an SDK user would write).
"""
import sys
from typing import Any, Dict, Literal, Optional

import anyio
from mcp import Client, StdioServerParameters
from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp_types import CallToolResult, Request, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


class TaskResult(Result):
    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    poll_interval_ms: Optional[int] = None


class TaskState(Result):
    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    poll_interval_ms: Optional[int] = None
    result: Optional[Dict[str, Any]] = None


class GetTaskRequest(Request[Dict[str, Any], Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


async def follow_task(task: TaskResult, ctx: ClaimContext) -> CallToolResult:
    state = task
    while state.status in ("working", "input_required"):
        await anyio.sleep((state.poll_interval_ms or 100) / 1000.0)
        state = await ctx.session.send_request(GetTaskRequest(params={"taskId": task.task_id}), TaskState)
    if state.status != "completed":
        raise RuntimeError("task %s" % state.status)
    return CallToolResult.model_validate(state.result)


class Tasks(ClientExtension):
    identifier = TASKS

    def claims(self):
        return [ResultClaim(result_type="task", model=TaskResult, resolve=follow_task)]


async def run(server, command):
    extensions = [Tasks()] if command == "task" else None
    async with Client(server, extensions=extensions) as client:
        tools = await client.list_tools()
        if command == "list":
            sys.stdout.write("".join("%s\n" % tool.name for tool in tools.tools))
            return
        if command == "echo":
            result = await client.call_tool("echo", {"message": "hi"})
        elif command == "task":
            result = await client.call_tool("render_report", {"quarter": "Q4"})
        elif command == "big":
            result = await client.call_tool("big_text", {})
        else:
            raise SystemExit("unknown command %r" % command)
        for block in result.content:
            sys.stdout.write(getattr(block, "text", ""))
            sys.stdout.write("\n")


def main(argv):
    if argv[:1] == ["--url"]:
        server, command = argv[1], argv[2]
    elif argv[:1] == ["--stdio"] and "--" in argv:
        split = argv.index("--")
        server = StdioServerParameters(command=argv[1], args=argv[2:split])
        command = argv[split + 1]
    else:
        raise SystemExit(__doc__)
    anyio.run(run, server, command)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
