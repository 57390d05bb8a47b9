"""Section 2 (session): the 2025-11-25 Streamable HTTP session as real servers need it. The
standalone GET stream is open for every command and what arrives on it is answered; every
server request gets an answer; the exit never waits on an idle stream; Ctrl+C cancels what
is in flight."""
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from conftest import MCP_TUI_PROCESS, stdio_command, wait_for

import mcp_tui

LEGACY = ["--protocol-version", "2025-11-25"]


@pytest.fixture
def server(start_server):
    return start_server("--fidelity", "--verbose")


def legacy(server):
    return ["--url", server.url] + LEGACY


@pytest.mark.parametrize("method,flags,answer", [
    ("roots/list", ["--root", "/"], 'roots/list answered: {"roots":[{"uri":"file:///"'),
    ("ping", [], "ping answered: {}"),
    ("elicitation/create", ["--elicit-stub", '{"name":"Luca"}'],
     'elicitation/create answered: {"action":"accept","content":{"name":"Luca"}}'),
    ("sampling/createMessage", ["--sampling-stub", '{"text":"Hello"}'], "sampling/createMessage answered: "),
])
def test_requests_on_the_get_stream_are_answered(cli, server, method, flags, answer):
    """The old client opened no GET stream for a tool call: the request was lost and the
    call ran into --timeout."""
    result = cli(*legacy(server), "--timeout", "20", *flags, "tool", "call", "ask_on_stream", "method=" + method,
                 timeout=60)
    assert result.code == 0, result
    if os.name == "nt" and method == "roots/list":
        answer = 'roots/list answered: {"roots":[{"uri":"file:///'
    assert result.out.startswith("Tool response:\n" + answer), result


def test_requests_on_the_get_stream_are_answered_over_stdio(cli):
    result = cli(stdio_command("--fidelity"), *LEGACY, "tool", "call", "ask_on_stream", "method=ping")
    assert result.code == 0, result
    assert result.out == "Tool response:\nping answered: {}\n"


def test_an_elicitation_the_stub_cannot_satisfy_is_declined_at_once_naming_the_field(cli, server):
    result = cli(*legacy(server), "--timeout", "30", "--elicit-stub", "{}", "tool", "call", "ask_name", timeout=60)
    assert result.code == 0, result
    assert result.out == "Tool response:\nNo name given (decline)\n"
    assert "--elicit-stub cannot answer mcp-tui test server's request 'Please enter your name.': missing " \
           "required field 'name' (Your name); declined" in result.err, result.err


def test_an_elicitation_value_outside_the_schema_is_declined(cli, server):
    result = cli(*legacy(server), "--timeout", "30", "--elicit-stub", '{"name": 42}', "tool", "call",
                 "ask_on_stream", "method=elicitation/create", timeout=60)
    assert result.code == 0, result
    assert 'answered: {"action":"decline"}' in result.out
    assert "field 'name' must be a string, not 42; declined" in result.err, result.err


def test_a_server_request_mcp_tui_cannot_answer_gets_an_error_not_silence(cli, server):
    result = cli(*legacy(server), "--timeout", "30", "tool", "call", "ask_on_stream",
                 "method=sampling/createMessage", timeout=60)
    assert result.code == 0, result
    assert "sampling/createMessage answered with error -1: Sampling request declined: no user to ask" in result.out


def test_a_command_waits_for_its_get_stream_before_a_request_can_make_the_server_ask(cli, start_server):
    """A server drops a request it sends while no GET stream is open. The stream was opened
    in the background, so a tools/call could overtake it: the ping below was lost, and the
    call waited for its answer until --timeout."""
    slow = start_server("--fidelity", "--get-delay-ms", "300")
    result = cli(*legacy(slow), "--timeout", "10", "tool", "call", "ask_on_stream", "method=ping", timeout=60)
    assert result.code == 0, result
    assert "ping answered: {}" in result.out


def session_lines(server, word):
    return [line for line in server.stderr_lines if "HTTP session" in line and word in line]


def test_the_session_ends_with_a_delete_that_names_the_version(cli, server):
    """The test server refuses a DELETE (or GET) without MCP-Protocol-Version with 400."""
    result = cli(*legacy(server), "tool", "call", "echo", "message=hi")
    assert result.code == 0, result
    wait_for(lambda: session_lines(server, "deleted"), 10, what="the server's 'deleted' line")
    assert len(session_lines(server, "deleted")) == 1, server.stderr_lines
    notifications = [r for r in server.records() if r["message"].get("method") == "notifications/initialized"]
    assert notifications[0]["http"]["headers"].get("mcp-protocol-version") == "2025-11-25"


def test_exit_does_not_wait_for_an_idle_get_stream(cli, server):
    """The old client waited on the GET stream's buffer at exit until the server spoke or the
    connection timed out (--timeout 40); a guard at half of it still catches that."""
    result = cli(*legacy(server), "--timeout", "40", "tool", "call", "render_report", "quarter=Q4", "pages=2",
                 "--task", "--wait", timeout=20)
    assert result.code == 0, result


def test_a_get_stream_answered_after_the_command_ended_is_not_held(cli, start_server):
    """The server answers the GET stream only after the command has stopped waiting for it
    (GET_STREAM_WAIT) and ended: the stream was then held by a reader nobody would close, as
    long as the server kept it open (here: its session lives on, its DELETE refused)."""
    slow = start_server("--fidelity", "--record-http", "--http-fault", "delete-500",  # the session, and its GET stream, live on
                        "--get-delay-ms", "%d" % (mcp_tui.GET_STREAM_WAIT * 1000 + 1000))
    result = cli(*legacy(slow), "--timeout", "20", "tool", "call", "echo", "message=hi", timeout=30)
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result

    def get_stream_readers():
        return [t for t in threading.enumerate() if getattr(getattr(t, "_target", None), "__name__", "") == "_get_stream"]

    wait_for(lambda: slow.http_requests("GET") and not get_stream_readers(), timeout=15)  # while the server lives on


def records_of(path):
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def interrupt(args, state_dir, record_of):
    """Run mcp-tui on a long tool call, press Ctrl+C once the server has the call; return
    (exit code, stderr, the tools/call message, the server's records)."""
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + args + [
        "tool", "call", "long_operation", "steps=1000", "step_ms=50"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    try:
        call = wait_for(lambda: [r["message"] for r in record_of() if r["message"].get("method") == "tools/call"])[0]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err, call, record_of


def cancellations(record_of, call):
    return [r["message"] for r in record_of() if r["message"].get("method") == "notifications/cancelled"
            and r["message"]["params"].get("requestId") == call["id"]]


posix_only = pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")


@posix_only
def test_ctrl_c_cancels_the_call_in_flight_over_legacy_http(server, state_dir):
    code, err, call, record_of = interrupt(legacy(server), state_dir, server.records)
    assert code == 130, err
    assert wait_for(lambda: cancellations(record_of, call))[0]["params"]["reason"] == "interrupted"


@posix_only
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_ctrl_c_cancels_the_call_in_flight_over_stdio(state_dir, record_file, era):
    code, err, call, record_of = interrupt(
        [stdio_command("--record", record_file), "--protocol-version", era], state_dir,
        lambda: records_of(record_file))
    assert code == 130, err
    assert wait_for(lambda: cancellations(record_of, call))


@posix_only
def test_ctrl_c_closes_the_stream_under_2026_07_28_http(server, state_dir):
    code, err, call, record_of = interrupt(["--url", server.url, "--protocol-version", "2026-07-28"], state_dir,
                                           server.records)
    assert code == 130, err
    assert not cancellations(record_of, call)  # no notifications on 2026-07-28 HTTP: closing is the cancel


def test_stub_accept_includes_untouched_defaults_as_the_conformance_scenario_checks():
    """elicitation-sep1034-client-defaults: an accepted form carries every default, typed."""
    from mcp_tui import InputResponder

    schema = {"type": "object", "required": [], "properties": {
        "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True}}}
    answer = InputResponder(elicit_stub={}).elicit({"message": "m", "requestedSchema": schema}, "server")
    assert answer == {"action": "accept", "content": {"name": "John Doe", "age": 30, "score": 95.5,
                                                       "status": "active", "verified": True}}


def test_the_session_id_comes_from_initialize_never_from_the_probe(cli, start_server):
    """A legacy-only server that puts a session id on its refusal of server/discover: sending
    that id with initialize gets 404 from the test server, as it would from a real one."""
    server = start_server("--fidelity", "--era", "2025-11-25")
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi")
    assert result.code == 0, result
    assert result.out == "Tool response:\nhi\n"
    initialize = [r for r in server.records() if r["message"].get("method") == "initialize"]
    assert len(initialize) == 1 and "mcp-session-id" not in initialize[0]["http"]["headers"]


MODERN_ASKER = r'''
import json, sys, select
request = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": "s1", "method": "ping"}), flush=True)
ready, _, _ = select.select([sys.stdin], [], [], 10)
answer = json.loads(sys.stdin.readline()) if ready else {}
name = "answered %s" % answer.get("error", {}).get("code") if answer.get("id") == "s1" else "silence"
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
    "supportedVersions": ["2026-07-28"], "capabilities": {},
    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "1"}}}}), flush=True)
sys.stdin.read()
'''


@pytest.mark.skipif(os.name == "nt", reason="select() on a pipe is POSIX")
def test_a_server_request_under_2026_07_28_gets_an_error_not_silence(cli, tmp_path):
    script = tmp_path / "asker.py"
    script.write_text(MODERN_ASKER)
    result = cli("%s %s" % (sys.executable, script), "--protocol-version", "2026-07-28", "server")
    assert result.code == 0, result
    assert result.out.startswith("Name:         answered -32601\n"), result


@pytest.mark.parametrize("task", [False, True])
def test_under_2026_an_elicitation_the_stub_cannot_satisfy_is_declined_too(cli, task):
    """Issue 32: under 2026-07-28 the mismatch exited 2 without declining, leaving a created task
    at input_required; it declines and goes on, as 2025-11-25 does."""
    words = ["tool", "call", "ask_name"] + (["--task", "--wait"] if task else [])
    result = cli(stdio_command(), "--protocol-version", "2026-07-28", "--elicit-stub", "{}", *words)
    assert result.code == 0, result
    assert result.out.endswith("Tool response:\nNo name given (decline)\n"), result
    assert "missing required field 'name' (Your name); declined" in result.err, result
