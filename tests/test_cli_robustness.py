"""Any command line a user can put together, in any order, ends the documented way: exit 0,
1 or 2, one readable line on stderr when it fails (one JSON line with --format json), never a
traceback, an 'internal error' or a hang. Hypothesis combines connections, commands, flags and
their values against the real test server (HTTP and stdio, both eras)."""
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import stdio_command

COMMANDS = [
    ["server"], ["ping"], ["tool", "list"], ["tool", "describe", "add"], ["tool", "describe"], ["tool"],
    ["tool", "call", "add", "a=1", "b=2"], ["tool", "call", "add", "a=x"], ["tool", "call", "nosuch"], ["tool", "call"],
    ["tool", "call", "render_report", "quarter=Q1", "--task"], ["tool", "call", "fail_tool"], ["tool", "call", "ask_name"],
    ["resource", "list"], ["resource", "templates"], ["resource", "read", "test://static/hello.txt"], ["resource", "read"],
    ["resource", "read", "nosuch://x"], ["resource", "unsubscribe", "test://static/hello.txt"],
    ["prompt", "list"], ["prompt", "get", "greeting", "name=A"], ["prompt", "get", "greeting"], ["prompt", "get"],
    ["complete", "prompt", "code_review", "language=py"], ["complete"], ["complete", "prompt"],
    ["rpc", "ping"], ["rpc", "tools/list", "{}"], ["rpc", "nosuch/method"], ["rpc", "tools/list", "[1]"], ["rpc"],
    ["task", "list"], ["task", "get", "nosuch"], ["task", "get"], ["task", "result", "nosuch"], ["task", "cancel", "x"],
    ["task", "support"], ["task", "update", "x"], ["task"], ["session", "list"], ["session", "close", "nosuch"],
    ["session", "open"], ["session"], ["auth", "status"], ["auth"], ["nosuchcommand"], [], ["tools", "list"],
]
FLAGS = [
    [], ["--format", "json"], ["-q"], ["--timeout", "5"], ["--max-time", "8"], ["--no-cache"], ["--debug"], ["--dry-run"],
    ["--strict-errors"], ["--elicit-stub", '{"name": "Z"}'], ["--elicit-stub", "notjson"], ["--log-level", "debug"],
    ["--args-json", '{"a": 1}'], ["--no-ledger"], ["--all"], ["--ttl", "1000"], ["--wait"], ["--task"], ["-H", "X: y"],
    ["--bearer", "tok-0123456789"], ["--proxy", ""], ["--max-pages", "1"], ["--trace"], ["--input-responses", "{}"],
    ["--timeout", "-1"], ["--protocol-version", "2024-11-05"], ["--format", "yaml"], ["--idle", "0"],
]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory):
    from conftest import RunningServer

    record = tmp_path_factory.mktemp("robust") / "record.jsonl"
    server = RunningServer(["--http", "127.0.0.1:0", "--record", str(record)], record)
    yield server
    server.stop()


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(connection=st.integers(0, 4), command=st.sampled_from(COMMANDS), flags=st.lists(st.sampled_from(FLAGS), max_size=2),
       flag_first=st.booleans())
@example(connection=0, command=["tool", "call", "fail_tool"], flags=[["--strict-errors"]], flag_first=False)
@example(connection=2, command=["tool", "call", "fail_tool"], flags=[["--strict-errors"], ["--format", "json"]],
         flag_first=True)  # a tool's error made exit 1: found by the generated lines
def test_every_command_line_ends_the_documented_way(http_server, cli, connection, command, flags, flag_first):
    connections = [["--url", http_server.url], ["--url", http_server.url, "--protocol-version", "2025-11-25"],
                   [stdio_command()], ["@nosuch"], ["--url", "http://127.0.0.1:9/mcp"]]
    extra = [word for flag in flags for word in flag]
    argv = connections[connection] + (extra + command if flag_first else command + extra)
    # In this process (an escaping exception is a traceback and exit 1 there too, and a thread
    # or child left running fails the test), but a stdio task without --wait in a process:
    # it leaves its server to a background keeper, as `session open` does (cli runs that one
    # in a process itself). The state directory's sessions are closed after the test.
    keeps_a_session = connection == 2 and "--task" in argv and "--wait" not in argv
    proc = cli(*argv, timeout=30, process=keeps_a_session)
    shown = "mcp-tui %s -> exit %d\n%s" % (" ".join(argv), proc.code, proc.err[-2000:])
    assert proc.code in (0, 1, 2), shown
    assert "Traceback" not in proc.err and "internal error" not in proc.err, shown
    # --strict-errors makes a tool's own error (isError: true) exit 1: that error is the result, on stdout
    tool_error = "--strict-errors" in argv and ("Error response from tool:" in proc.out
                                                 or '"isError": true' in proc.out)
    if proc.code and not tool_error and "--debug" not in argv and "--trace" not in argv:
        lines = [line for line in proc.err.splitlines() if line.strip()]
        assert lines, shown
        formats = [value for flag, value in zip(argv, argv[1:]) if flag == "--format"]
        if formats and formats[-1] == "json" and "--help" not in argv:  # the last --format wins, as in mcp-tui
            assert "error" in json.loads(lines[-1]), shown  # the last line is the error document
        else:
            assert lines[-1].startswith(("mcp-tui: ", "usage: ", "  ")), shown
