"""Interop: the reference "everything" server (TypeScript SDK, from npm), which speaks the
2025-11-25 era with experimental tasks. Nobody here wrote it."""
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import MCP_TUI_PROCESS, wait_for  # noqa: E402
from taskhelpers import SEED_SUPPORT_2025  # noqa: E402


def everything_bin():
    prefix = os.environ.get("MCP_TUI_PEER_EVERYTHING")
    if not prefix:
        if os.environ.get("CI"):
            pytest.fail("MCP_TUI_PEER_EVERYTHING is not set: run the tests with tests/run_tests.py")
        pytest.skip("the everything peer is not installed (run tests/run_tests.py)")
    path = Path(prefix) / "node_modules" / ".bin" / "mcp-server-everything"
    assert path.exists(), path
    return str(path)


@pytest.fixture(scope="module")
def stdio_server():
    return "%s stdio" % everything_bin()


@pytest.fixture(scope="module")
def http_url():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([everything_bin(), "streamableHttp"], env=dict(os.environ, PORT=str(port)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    try:
        while True:
            if "listening on port" in lines.get(timeout=30):
                break
        yield "http://127.0.0.1:%d/mcp" % port
    finally:
        proc.terminate()
        proc.wait(10)


def clean_err(text):
    return "\n".join(line for line in text.splitlines() if "list_changed" not in line)


def test_task_support_against_everything(cli, stdio_server):
    result = cli(stdio_server, "task", "support")
    assert result.code == 0, result
    assert result.out == SEED_SUPPORT_2025


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_task_wait_against_everything(cli, transport, request):
    server = request.getfixturevalue("stdio_server") if transport == "stdio" else None
    args = [server] if server else ["--url", request.getfixturevalue("http_url")]
    result = cli(*args, "tool", "call", "simulate-research-query", "topic=ai", "--task", "--wait", timeout=90)
    assert result.code == 0, result
    assert result.out.startswith("Tool response:\n# Research Report: ai")
    assert re.search(r"⏳ task \w+: completed", result.err), result.err


def test_elicitation_inside_a_task_against_everything(cli, stdio_server):
    result = cli(stdio_server, "--elicit-stub", '{"interpretation":"technical"}', "tool", "call",
                 "simulate-research-query", "topic=ai", "ambiguous=true", "--task", "--wait", timeout=90)
    assert result.code == 0, result
    assert "input_required" in clean_err(result.err)
    assert "**Clarification**: technical" in result.out


def test_required_task_tool_without_task_is_refused_before_sending(cli, stdio_server):
    result = cli(stdio_server, "tool", "call", "simulate-research-query", "topic=ai")
    assert result.code == 2, result  # nothing was sent
    assert "runs only as a task" in result.err and "add --task" in result.err


def test_task_created_then_listed_and_fetched_over_http(cli, http_url):
    """The everything server keeps tasks per session: the printed Poll and Result commands
    work in a later run because mcp-tui keeps that session and resumes it."""
    created = cli("--url", http_url, "tool", "call", "simulate-research-query", "topic=ml", "--task")
    assert created.code == 0, created
    match = re.match(r"^Task (\S+) created: .*\nPoll:   mcp-tui task get \1\nResult: mcp-tui task result \1\n$",
                     created.out)
    assert match, created
    task_id = match.group(1)
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    assert shown.out.startswith("Task:     %s\nStatus:   " % task_id)
    listed = cli("task", "list")
    assert listed.code == 0 and task_id in listed.out, listed
    result = cli("task", "result", task_id, timeout=90)
    assert result.code == 0, result
    assert result.out.startswith("Tool response:\n# Research Report: ml")
    cancel = cli("task", "cancel", task_id)
    assert cancel.code == 1 and "already completed" in cancel.err, cancel


def test_a_stdio_task_prints_follow_ups_that_work(cli, stdio_server, state_dir):
    """Without --wait a stdio task gets a background session (issue 12), so its Poll and
    Result lines work from a later command."""
    created = cli(stdio_server, "tool", "call", "simulate-research-query", "topic=ml", "--task", timeout=90)
    assert created.code == 0, created
    assert "A background session keeps the server running" in created.err
    task_id = re.match(r"^Task (\S+) created: .*\nPoll:   mcp-tui task get \1\n", created.out).group(1)
    result = cli("task", "result", task_id, timeout=90)
    assert result.code == 0 and result.out.startswith("Tool response:\n# Research Report: ml"), result


def test_a_kept_session_walk_against_everything(cli, stdio_server, state_dir):
    """Issue 12's done-when walk: open, list tools, list sessions, a task, its status and
    result without flags, close; the server process is gone afterwards."""
    import json

    opened = cli("session", "open", "ev", stdio_server, timeout=90)
    assert opened.code == 0, opened
    assert re.match(r"^Session ev open: \S+ \S+ \(2025-11-25, stdio\)\n$", opened.out), opened.out
    keeper = json.loads((state_dir / "sessions.json").read_text())["ev"]["pid"]
    try:
        listed = cli("@ev", "tool", "list")
        assert listed.code == 0 and "simulate-research-query" in listed.out, listed
        sessions = cli("session", "list")
        assert sessions.code == 0 and sessions.out.splitlines()[1].split()[0] == "ev", sessions
        created = cli("@ev", "tool", "call", "simulate-research-query", "topic=x", "--task")
        assert created.code == 0, created
        task_id = re.match(r"^Task (\S+) created: ", created.out).group(1)
        shown = cli("task", "get", task_id)
        assert shown.code == 0 and shown.out.startswith("Task:     %s\nStatus:   " % task_id), shown
        result = cli("task", "result", task_id, timeout=90)
        assert result.code == 0 and result.out.startswith("Tool response:\n# Research Report: x"), result
    finally:
        closed = cli("session", "close", "ev")
    assert closed.code == 0 and closed.out == "Session ev closed\n", closed
    if sys.platform == "linux":
        wait_for(lambda: not os.path.exists("/proc/%d" % keeper), what="the keeper's exit")


# -- the 2025-11-25 Streamable HTTP session (issue 11's "Done when", as generous bounds) -----


def test_roots_asked_on_the_get_stream_are_answered_over_http(cli, http_url, tmp_path):
    """get-roots-list asks roots/list on the standalone GET stream: without one, the call
    ran into --timeout."""
    result = cli("--url", http_url, "--root", str(tmp_path), "--timeout", "30", "tool", "call", "get-roots-list",
                 timeout=60)
    assert result.code == 0, result
    assert "Current MCP Roots (1 total)" in result.out and tmp_path.as_uri() in result.out


def test_an_elicitation_the_stub_cannot_satisfy_ends_with_a_clear_message(cli, http_url):
    result = cli("--url", http_url, "--elicit-stub", "{}", "--timeout", "30", "tool", "call",
                 "trigger-elicitation-request", timeout=60)
    assert result.code == 0, result
    assert "missing required field 'name'" in result.err and "declined" in result.err, result.err
    assert "declined" in result.out.lower()


def test_task_wait_exits_soon_after_the_result_over_http(http_url, state_dir):
    """The old client waited ~11 s at exit on the GET stream's buffer after the result."""
    from conftest import MCP_TUI_PROCESS

    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["--url", http_url, "tool", "call",
                             "simulate-research-query", "topic=ai", "--task", "--wait"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    try:
        for line in proc.stderr:
            if line.startswith("✅ Tool executed successfully"):
                break
        try:  # a guard, not a measurement: the old client took ~11 s here
            proc.communicate(timeout=6)
        except subprocess.TimeoutExpired:
            raise AssertionError("mcp-tui still ran 6 s after the result")
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_annotations_and_text_blobs_against_everything(cli, http_url):
    annotated = cli("--url", http_url, "tool", "call", "get-annotated-message", "messageType=error")
    assert annotated.code == 0, annotated
    assert "Error: Operation failed\n(for user, assistant; priority 1)" in annotated.out
    blob = cli("--url", http_url, "resource", "read", "demo://resource/dynamic/blob/1")
    assert blob.code == 0, blob
    assert "Resource 1: This is a base64 blob" in blob.out


def test_events_the_server_replays_on_a_resumed_stream_show_once(cli, http_url):
    """--timeout 3 ends the idle GET stream during an 8 s call, and mcp-tui resumes it with
    Last-Event-ID; the everything server then replays the call's progress events (sent on
    the POST stream) on the GET stream too. Event ids are unique in a session, so each
    progress line shows once, in order."""
    result = cli("--url", http_url, "--timeout", "3", "tool", "call", "trigger-long-running-operation",
                 "duration=8", "steps=8", timeout=90)
    assert result.code == 0, result
    assert "Long running operation completed" in result.out
    progress = [line for line in result.err.splitlines() if line.startswith("⏳ progress")]
    assert progress == ["⏳ progress %d/8" % step for step in range(1, 9)], result.err


def test_task_on_a_tool_that_never_runs_as_one_says_it_calls_directly(cli, stdio_server):
    result = cli(stdio_server, "tool", "call", "echo", "message=hi", "--task")
    assert result.code == 0 and result.out == "Tool response:\nEcho: hi\n", result
    assert ("Tool 'echo' does not run as a task (execution.taskSupport: forbidden); calling it directly.\n"
            "🚀 Executing tool...\n") in result.err, result.err
    assert "as a task..." not in result.err, result.err


def test_tool_describe_lists_enum_values_against_everything(cli, stdio_server):
    result = cli(stdio_server, "tool", "describe", "get-structured-content")
    assert result.code == 0, result
    assert "  location*: string, one of New York, Chicago, Los Angeles - Choose city\n" in result.out, result


def test_structured_content_that_matches_its_output_schema_against_everything(cli, stdio_server):
    result = cli(stdio_server, "tool", "call", "get-structured-content", "location=Chicago")
    assert result.code == 0, result
    assert "outputSchema" not in result.err, result
    assert "Tool response (structured content):" in result.out and '"conditions"' in result.out, result


ENVELOPE_KEYS = {"result", "notifications", "notificationCounts", "warnings"}


@pytest.mark.parametrize("words,key", [
    (["tool", "call", "echo", "message=hi"], "content"),
    (["prompt", "get", "simple-prompt"], "messages"),
    (["resource", "read", "demo://resource/static/document/architecture.md"], "contents"),
    (["complete", "prompt", "completable-prompt", "department=Eng"], "completion"),
    (["tool", "list"], "tools"),
    (["prompt", "list"], "prompts"),
    (["rpc", "tools/list"], "tools"),
])
def test_one_json_envelope_for_every_verb_against_everything(cli, stdio_server, words, key):
    """The everything server announces list changes as a session starts: they come beside the
    result, never inside the server's own (issue 22, item 10)."""
    result = cli(stdio_server, "--format", "json", *words)
    assert result.code == 0, result
    document = result.json()
    assert set(document) <= ENVELOPE_KEYS and key in document["result"], document
    assert "notifications" not in document["result"], document
    assert any(n["method"].endswith("/list_changed") for n in document["notifications"]), document


def test_watch_with_log_level_loses_no_list_change_against_everything(cli, stdio_server):
    """The everything server announces its list changes as the session starts, while
    logging/setLevel is under way: the watch prints them (issue 22, item 11)."""
    result = cli(stdio_server, "--log-level", "debug", "watch", "--for", "2")
    assert result.code == 0, result
    assert "list changed" in result.out, result


def test_forcing_2026_on_everything_over_http_hints_at_the_versions(cli, http_url):
    """The everything server answers a server/discover without a session "Server not
    initialized" (HTTP 400): the hint names the versions to try (issue 22, item 12)."""
    result = cli("--url", http_url, "--protocol-version", "2026-07-28", "tool", "list")
    assert result.code == 1, result
    assert "seems to speak only 2025-11-25 or older; --protocol-version auto" in result.err, result


# -- task follow-ups in the task's own session (issue 22) ---------------------------------------


def created_research_task(cli, *connection, ambiguous=False):
    """A research task; an ambiguous one waits for input (until a tasks/result answers it)."""
    created = cli(*connection, "tool", "call", "simulate-research-query", "topic=ml", "ambiguous=%s" % (
        "true" if ambiguous else "false"), "--task", timeout=90)
    assert created.code == 0, created
    return re.match(r"^Task (\S+) created: ", created.out).group(1)


def test_a_cancelled_task_reads_cancelled_in_a_later_command_over_http(cli, http_url):
    """The everything server keeps tasks per session: `task cancel` must not end that
    session, or `task get` says the server no longer knows it."""
    task_id = created_research_task(cli, "--url", http_url, ambiguous=True)
    cancelled = cli("task", "cancel", task_id)
    assert cancelled.code == 0, cancelled
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    assert shown.out.startswith("Task:     %s\nStatus:   cancelled" % task_id), shown


def test_task_list_with_the_url_shows_a_task_created_there(cli, http_url):
    task_id = created_research_task(cli, "--url", http_url, ambiguous=True)
    listed = cli("--url", http_url, "task", "list")
    assert listed.code == 0, listed
    assert [line for line in listed.out.splitlines() if task_id in line], listed
    assert "No tasks." not in listed.err, listed


def test_task_list_says_nothing_of_a_stdio_task_session_that_ended_with_its_task(cli, stdio_server, state_dir):
    import time

    task_id = created_research_task(cli, stdio_server)
    fetched = cli("task", "result", task_id, timeout=90)
    assert fetched.code == 0, fetched
    sessions = state_dir / "sessions.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and sessions.exists() and "task-" in sessions.read_text():
        time.sleep(0.05)  # waiting for a condition: the automatic session's keeper stops
    listed = cli("task", "list")
    assert "warning" not in listed.err and "no session named" not in listed.err, listed


def host_through_a_tap(state_dir, name, env, requests):
    """A host stand-in (clientInfo claude-ai, capabilities {} as Claude Desktop declares them,
    2025-11-25) that runs the everything server behind `mcp-tui tap` and sends ``requests``
    (method, params), each after the answer to the one before. Returns their answers."""
    tap = subprocess.Popen(MCP_TUI_PROCESS + ["tap", "--name", name, "--", everything_bin(), "stdio"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), **env))
    answers = []
    try:
        opening = ("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                  "clientInfo": {"name": "claude-ai", "version": "0.1.0"}})
        for number, (method, params) in enumerate([opening] + requests, 1):
            tap.stdin.write(json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params}) + "\n")
            tap.stdin.flush()
            while True:  # notifications (and any request, which a host declaring nothing is not sent) pass by
                message = json.loads(tap.stdout.readline())
                if message.get("id") == number and "method" not in message:
                    answers.append(message)
                    break
            if method == "initialize":
                tap.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        return answers
    finally:
        tap.stdin.close()
        tap.wait(30)


def test_a_hosts_tap_recording_replays_as_the_host_against_everything(cli, stdio_server, state_dir, tmp_path):
    """Replayed as mcp-tui (elicitation, sampling, roots declared), the host's tool list got 4
    more tools (additive differences) and the server asked roots/list, which the host never
    saw; the tap masks the host's API_KEY, which get-env prints: a masked value, not a breaking
    change."""
    answers = host_through_a_tap(state_dir, "claude-everything", {"API_KEY": "everything-api-key-0123456789"},
                                 [("tools/list", {}), ("tools/call", {"name": "echo", "arguments": {"message": "hi"}}),
                                  ("tools/call", {"name": "get-env", "arguments": {}})])
    assert all("result" in answer for answer in answers), answers
    saved = tmp_path / "host.jsonl"
    assert cli("tap", "save", "claude-everything", "-o", saved).code == 0
    assert "everything-api-key" not in saved.read_text() and "env:" in saved.read_text()
    seen = tmp_path / "replayed.jsonl"
    replayed = cli(stdio_server, "--record", seen, "replay", saved, "--format", "json", timeout=120)
    assert replayed.code == 0, replayed
    document = replayed.json()
    assert document["summary"]["different"] == 0, document
    assert document["requests"][2]["masked"] == ["/result/content/0/text"], document
    assert [(s["protocolVersion"], s["clientInfo"]) for s in document["sessions"]] == [
        ("2025-11-25", {"name": "claude-ai", "version": "0.1.0"})], document
    methods = [json.loads(line)["message"].get("method") for line in seen.read_text().splitlines()
               if "message" in json.loads(line)]
    assert "roots/list" not in methods and "server/discover" not in methods, methods
