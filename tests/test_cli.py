"""End to end: mcp_tui.py as a subprocess against tests/testserver.py, over stdio, Streamable
HTTP and legacy HTTP+SSE, in each era. Every message mcp-tui sends is schema-checked."""
import json
import os
import sys

import pytest

from conftest import stdio_command
from schemas import check_recorded

CONNECTIONS = ["stdio-auto", "stdio-2025-11-25", "stdio-2026-07-28", "http-auto", "http-2025-11-25",
               "http-modern-only", "http-legacy-only", "legacy-sse"]


class Connection(object):
    def __init__(self, args, era, check):
        self.args = args
        self.era = era
        self.check = check  # validates what the server recorded


@pytest.fixture(params=CONNECTIONS)
def connection(request, start_server, tmp_path):
    name = request.param
    if name.startswith("stdio"):
        record = tmp_path / "stdio.jsonl"
        args = [stdio_command("--record", record, "--page-ms", "5")]
        if name != "stdio-auto":
            args += ["--protocol-version", name[len("stdio-"):]]
        era = "legacy" if name.endswith("2025-11-25") else "modern"
        return Connection(args, era, lambda: check_recorded(record) if record.exists() else [])
    flags = {"http-modern-only": ["--era", "2026-07-28"], "http-legacy-only": ["--era", "2025-11-25"],
             "legacy-sse": ["--legacy-sse"]}.get(name, [])
    server = start_server("--page-ms", "5", *flags)
    args = ["--url", server.url]
    if name == "http-2025-11-25":
        args += ["--protocol-version", "2025-11-25"]
    era = "modern" if name in ("http-auto", "http-modern-only") else "legacy"
    return Connection(args, era, server.records)


def test_tool_list(cli, connection):
    result = cli(*connection.args, "tool", "list")
    assert result.code == 0, result
    names = [line.split()[0] for line in result.out.splitlines() if line and not line.startswith(" ")]
    for name in ("echo", "add", "get_image", "ask_name", "render_report"):
        assert name in names
    connection.check()


def test_echo_prints_the_seed_progress_lines_and_the_result(cli, connection):
    result = cli(*connection.args, "tool", "call", "echo", "message=hello world")
    assert result.code == 0, result
    assert result.out == "Tool response:\nhello world\n"
    assert "🛠️  Preparing to call tool 'echo'...\n📝 Parsing arguments...\n" in result.err
    assert "✅ Tool executed successfully" in result.err
    records = connection.check()
    calls = [r["message"] for r in records if r["message"].get("method") == "tools/call"]
    assert calls and calls[-1]["params"]["arguments"] == {"message": "hello world"}


def test_structured_content_in_json(cli, connection):
    result = cli(*connection.args, "--format", "json", "tool", "call", "add", "a=2", "b=3")
    assert result.code == 0, result
    document = result.json()
    assert document["result"]["structuredContent"] == {"sum": 5}
    assert document["result"].get("isError", False) is False
    assert result.err == ""
    connection.check()


def test_every_content_type_renders(cli, connection):
    outputs = {name: cli(*connection.args, "-q", "tool", "call", name) for name in
               ("get_image", "get_audio", "get_resource_link", "get_embedded_resource")}
    assert all(r.code == 0 for r in outputs.values()), outputs
    assert "[image: image/png, " in outputs["get_image"].out
    assert "[audio: audio/wav, " in outputs["get_audio"].out
    assert "[resource link: test://static/hello.txt" in outputs["get_resource_link"].out
    assert "Hello, resource!" in outputs["get_embedded_resource"].out


def test_elicitation_answered_from_the_stub(cli, connection):
    result = cli(*connection.args, "--elicit-stub", '{"name":"Luca"}', "tool", "call", "ask_name")
    assert result.code == 0, result
    assert "Hello, Luca!" in result.out
    connection.check()


def test_elicitation_without_a_terminal_is_declined_and_said(cli, connection):
    result = cli(*connection.args, "tool", "call", "ask_name")
    assert result.code == 0, result
    assert "Declined" in result.err and "--elicit-stub" in result.err
    assert "No name given" in result.out


def test_sampling_and_roots(cli, connection, tmp_path):
    sampled = cli(*connection.args, "-q", "--sampling-stub", '{"text":"Paris"}', "tool", "call", "ask_model")
    assert sampled.code == 0, sampled
    assert "The model said: Paris" in sampled.out
    rooted = cli(*connection.args, "-q", "--root", str(tmp_path), "tool", "call", "list_roots")
    assert rooted.code == 0, rooted
    assert tmp_path.resolve().as_uri() in rooted.out
    connection.check()


def test_tool_error_is_a_result_unless_strict(cli, connection):
    result = cli(*connection.args, "tool", "call", "fail_tool")
    assert result.code == 0, result
    assert result.out.startswith("Error response from tool:\nSomething went wrong")
    strict = cli(*connection.args, "tool", "call", "fail_tool", "--strict-errors")
    assert strict.code == 1


def test_progress_lines(cli, connection):
    result = cli(*connection.args, "tool", "call", "long_operation", "steps=3", "step_ms=5")
    assert result.code == 0, result
    assert "⏳ progress 3/3: Step 3 of 3" in result.err
    assert "Done after 3 steps" in result.out


def test_resources_prompts_completion(cli, connection):
    listed = cli(*connection.args, "resource", "list")
    assert listed.code == 0 and "test://static/hello.txt" in listed.out, listed
    read = cli(*connection.args, "resource", "read", "test://static/hello.txt")
    assert read.code == 0 and "Hello, resource!" in read.out, read
    templates = cli(*connection.args, "resource", "templates")
    assert "test://items/{id}" in templates.out, templates
    prompt = cli(*connection.args, "prompt", "get", "greeting", "name=Luca")
    assert prompt.code == 0 and "Hello, Luca! How are you today?" in prompt.out, prompt
    completed = cli(*connection.args, "complete", "prompt", "code_review", "language=py")
    assert completed.code == 0 and completed.out.split() == ["python"], completed
    nothing = cli(*connection.args, "complete", "prompt", "code_review", "language=zz")
    assert nothing.code == 0 and nothing.out == "" and "(no completions)" in nothing.err, nothing
    connection.check()


def test_server_reports_what_the_server_said(cli, connection):
    result = cli(*connection.args, "--format", "json", "server")
    assert result.code == 0, result
    document = result.json()
    assert document["serverInfo"]["name"] == "mcp-tui-testserver"
    assert document["era"] == connection.era
    if connection.era == "modern":
        assert document["protocolVersion"] == "2026-07-28"
    text = cli(*connection.args, "server")
    assert "Name:         mcp-tui-testserver" in text.out


def test_missing_argument_is_caught_before_sending(cli, connection):
    result = cli(*connection.args, "tool", "call", "add", "a=2")
    assert result.code == 2, result
    assert "missing required argument for tool 'add': b" in result.err
    assert not [r for r in connection.check() if r["message"].get("method") == "tools/call"]


def test_unknown_tool_is_caught_before_sending(cli, connection):
    result = cli(*connection.args, "tool", "call", "nope")
    assert result.code == 2, result  # as README says: a usage error, no call sent
    assert "has no tool named 'nope'; nothing was sent" in result.err
    assert len([line for line in result.err.splitlines() if line.startswith("mcp-tui:")]) == 1


def test_pagination_is_followed(cli, start_server):
    server = start_server("--page-size", "2")
    result = cli("--url", server.url, "--format", "json", "tool", "list")
    assert result.code == 0, result
    assert len(result.json()["result"]["tools"]) >= 12
    cursors = [r["message"]["params"].get("cursor") for r in server.records()
               if r["message"].get("method") == "tools/list"]
    assert len(cursors) >= 6 and cursors[0] is None and all(cursors[1:])


@pytest.mark.parametrize("args,code,text", [
    (["--bogus-flag", "tool", "list"], 2, "unrecognized arguments"),
    (["--url", "http://127.0.0.1:9/mcp", "tool", "list"], 1, "cannot reach http://127.0.0.1:9/mcp"),
    (["no-such-program-xyz", "tool", "list"], 1, "no such program 'no-such-program-xyz'"),
    (["tool", "list"], 2, "no server given"),
])
def test_bad_input_is_one_line_and_an_exit_code(cli, args, code, text):
    result = cli(*args)
    assert result.code == code, result
    assert text in result.err
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err


@pytest.mark.parametrize("flags, error", [
    (["--max-time", "0"], "--max-time must be more than 0 seconds"),
    (["--max-time", "-1"], "--max-time must be more than 0 seconds"),
    (["--max-time", "nan"], "--max-time must be more than 0 seconds"),
    (["--probe-timeout", "0"], "--probe-timeout must be more than 0 seconds"),
    (["--max-pages", "0"], "--max-pages must be at least 1"),
    (["--save", __file__], "--save %s is a file: give a directory (it is made if missing)" % __file__),  # crashed
])
def test_an_option_value_that_cannot_work_is_bad_usage_and_nothing_is_sent(cli, tmp_path, flags, error):
    """--max-time 0 was taken as no cap at all, -1 as an instant timeout, --probe-timeout 0
    as a failed probe, --max-pages 0 as a list too long, and --save FILE crashed after the
    call: each is a mistake in the command."""
    record = tmp_path / "record.jsonl"
    result = cli(stdio_command("--record", record), "tool", "call", "get_image", *flags)
    assert (result.code, result.out, result.err) == (2, "", "mcp-tui: %s\n" % error), result
    assert not record.exists()


def test_errors_are_json_with_format_json(cli):
    result = cli("--format", "json", "--url", "http://127.0.0.1:9/mcp", "tool", "list")
    assert result.code == 1
    error = json.loads(result.err)["error"]
    assert error["kind"] == "connection" and error["exitCode"] == 1


def test_a_server_error_message_with_line_breaks_is_still_one_line(cli):
    """The everything server's errors are pretty-printed JSON (zod issues); text mode joins
    the lines, --format json keeps the message as the server sent it."""
    params = json.dumps({"uri": "test://nope\n  [\n    {\"path\": \"uri\"}\n  ]"})
    result = cli(stdio_command(), "rpc", "resources/read", params)
    assert result.code == 1, result
    assert result.err == 'mcp-tui: resources/read failed: -32602 Resource not found: test://nope [ {"path": "uri"} ]\n'
    document = cli(stdio_command(), "--format", "json", "rpc", "resources/read", params)
    assert json.loads(document.err)["error"]["message"].endswith('test://nope\n  [\n    {"path": "uri"}\n  ]')


def test_a_silent_server_times_out_within_the_timeout(cli):
    silent = "%s -c \"import time; time.sleep(60)\"" % sys.executable
    result = cli(silent, "--timeout", "1", "tool", "list", timeout=20)
    assert result.code == 1, result
    assert "neither server/discover nor initialize within 2s" in result.err, result  # 1 s, and 1 s for initialize


def test_server_stderr_is_shown_when_it_crashes(cli):
    crash = "%s -c \"import sys; sys.stderr.write('boom: missing API_KEY\\n'); sys.exit(3)\"" % sys.executable
    result = cli(crash, "tool", "list")
    assert result.code == 1, result
    assert "exited with code 3" in result.err and "boom: missing API_KEY" in result.err


def test_a_server_that_closes_its_stdin_and_exits_is_explained_with_its_exit_and_stderr(cli, tmp_path):
    """The next request's write fails (a broken pipe) while the server is still on its way out:
    the error waits for its exit code and its last stderr line, as at the end of its output."""
    script = tmp_path / "leaving.py"
    script.write_text(
        "import json, os, sys, time\n"
        "first = json.loads(sys.stdin.readline())\n"
        "os.close(0)\n"  # from here on, every write to this server fails
        "sys.stderr.write('boom: missing API_KEY\\n'); sys.stderr.flush()\n"
        "print(json.dumps({'jsonrpc': '2.0', 'id': first['id'], 'error': {'code': -32601, 'message': 'no'}}), "
        "flush=True)\n"
        "time.sleep(0.5)\n"
        "sys.exit(3)\n")
    result = cli("%s %s" % (sys.executable, script), "tool", "list")
    assert result.code == 1, result
    assert "exited with code 3" in result.err and "boom: missing API_KEY" in result.err, result


def test_x_mcp_header_arguments_travel_as_mcp_param_headers(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "tool", "call", "weather", "region=Zürich", "days=3")
    assert result.code == 0, result
    assert result.out == "Tool response:\nSunny in Zürich for 3 days\n"
    call = [r for r in server.records() if r["message"].get("method") == "tools/call"][-1]
    assert call["http"]["headers"]["mcp-param-region"] == "=?base64?WsO8cmljaA==?="
    assert call["http"]["headers"]["mcp-param-days"] == "3"
    assert call["http"]["headers"]["mcp-name"] == "weather"


def test_a_reader_that_goes_away_is_not_an_error(tmp_path):
    """`mcp-tui ... tool list | true`: the reader is gone before mcp-tui writes (it needs
    a connection first); no traceback, no error exit."""
    import subprocess

    from conftest import MCP_TUI

    script = "%s %s %s tool list | true; echo \"status=${PIPESTATUS[0]}\"" % (
        sys.executable, MCP_TUI, "'%s'" % stdio_command())
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)
    assert "status=0" in proc.stdout, proc
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args,expected", [
    (["tool", "list"], "mcp-tui: cannot write to stdout: No space left on device\n"),
    (["--format", "json", "tool", "list"], '{"error": {"kind": "error", "message": "cannot write to stdout: No space '
                                           'left on device", "exitCode": 1}}\n'),
    (["--version"], "mcp-tui: cannot write to stdout: No space left on device\n"),
    (["--help"], "mcp-tui: cannot write to stdout: No space left on device\n"),
])
def test_a_stdout_that_cannot_be_written_is_one_line_and_exit_1(args, expected):
    """A full disk (/dev/full) is not a reader that went away: it was `internal error:
    OSError`, and --help said nothing and exited 0 (issue 31)."""
    import subprocess

    from conftest import MCP_TUI_PROCESS

    words = args if args[0].startswith("--") and len(args) == 1 else [stdio_command()] + args
    with open("/dev/full", "w") as full:
        proc = subprocess.run(MCP_TUI_PROCESS + words + ["-q"] * (len(words) > 1), stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (1, expected), proc
