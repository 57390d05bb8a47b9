"""Issue 32 against the real servers it was seen on: each test here failed before its fix.

Peers: FastMCP + fastmcp-tasks (2026-07-28, streamable HTTP) and the reference "everything" server (2025-11-25, stdio and streamable HTTP, with
an event store, so its SSE events carry ids). Each peer is started once and shared.
"""
import json
import os
import re
import signal
import subprocess

import pytest
from conftest import MCP_TUI_PROCESS, shows_status, wait_for  # tests/conftest.py (tests/ is on sys.path)

from .conftest import _start_peer
from .interop_helpers import SDK_SERVER, CuttingRelay, RoundRobinBalancer
from .test_interop_everything import created_research_task, http_url, stdio_server  # noqa: F401 (fixtures)


@pytest.fixture
def fastmcp(fastmcp_http):
    """Connection arguments for the shared FastMCP tasks peer over streamable HTTP (2026-07-28)."""
    return ["--url", fastmcp_http.url, "--timeout", "30"]


# -- 1. a 2026-07-28 tool that runs only as a task: the server decides per call ---------------


def test_a_2026_task_only_tool_is_not_described_as_forbidden_and_runs_as_a_task(cli, fastmcp):
    described = cli(*fastmcp, "tool", "describe", "render_report")
    assert described.code == 0, described
    assert "forbidden" not in described.out, described
    assert "Task support: the server decides per call" in described.out, described
    called = cli(*fastmcp, "tool", "call", "render_report", "quarter=Q2", "--task", "--wait", timeout=90)
    assert called.code == 0, called
    assert "Q2 revenue: $5.1M" in called.out, called


# -- 2. a POST stream cut mid-response is resumed with GET Last-Event-ID -----------------------


def test_a_post_stream_cut_after_an_event_with_an_id_is_resumed_against_everything(cli, http_url):  # noqa: F811
    """Express ends streams with chunked encoding; the relay drops the connection after the
    first event with a message (a progress notification with an id) of the tool call's response
    stream. The server replays what it stored after that id on the resuming GET (and sends
    nothing live there), so the call is short enough to be over before mcp-tui resumes."""
    relay = CuttingRelay(http_url)
    try:
        result = cli("--url", relay.url, "--timeout", "30", "tool", "call", "trigger-long-running-operation",
                     "duration=0.4", "steps=2", timeout=90)
    finally:
        relay.close()
    assert relay.cuts == 1, "the relay never cut a stream: %r" % (result,)
    assert result.code == 0, result
    assert "Long running operation completed" in result.out, result
    assert "the connection broke" not in result.err, result


@pytest.fixture(scope="module")
def sdk_events_url(sdk_python, peer_log_dir):
    """The SDK server on streamable HTTP with an event store (without one its events carry no
    ids, and a cut stream cannot be resumed by anyone)."""
    peer = _start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-event-store", peer_log_dir, "--event-store")
    yield peer.url
    peer.stop()


def test_a_post_stream_cut_after_an_event_with_an_id_is_resumed_against_the_sdk(cli, sdk_events_url):
    """uvicorn ends streams with chunked encoding too; the relay cuts the 2025-11-25 call's
    stream after its first progress event."""
    relay = CuttingRelay(sdk_events_url)
    try:
        result = cli("--url", relay.url, "--protocol-version", "2025-11-25", "--timeout", "30", "tool", "call",
                     "progress", "steps=3", timeout=90)
    finally:
        relay.close()
    assert relay.cuts == 1, "the relay never cut a stream: %r" % (result,)
    assert result.code == 0, result
    assert result.out == "Tool response:\ndone after 3 steps\n", result
    assert "the connection broke" not in result.err, result


# -- 3. a listen over 2026-07-28 HTTP runs to --for, whatever --timeout --------------------------


def test_watch_over_2026_http_runs_to_for_past_timeout(cli, sdk_http):
    """The SDK server serves subscriptions/listen on 2026-07-28 (FastMCP announces nothing to
    listen for); a quiet listen died at --timeout with `the connection broke: timed out`."""
    result = cli("--url", sdk_http.url, "--protocol-version", "2026-07-28", "--timeout", "2", "watch", "--for", "6",
                 timeout=60)
    assert result.code == 0, result
    assert "announces nothing to listen for" not in result.err, result
    assert "the connection broke" not in result.err and "timed out" not in result.err, result


# -- 4. a server with only tools: resource list / prompt list say it offers none ----------------


@pytest.fixture(scope="module")
def tools_only_url(sdk_python, peer_log_dir):
    """A low-level SDK Server with tools alone, as mcp-server-time is (FastMCP and MCPServer
    declare resources and prompts even when they serve none)."""
    peer = _start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-tools-only", peer_log_dir, "--tools-only")
    yield peer.url
    peer.stop()


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
@pytest.mark.parametrize("words, capability", [(("resource", "list"), "resources"), (("prompt", "list"), "prompts")])
def test_lists_a_tools_only_server_lacks_say_none_and_exit_0(cli, tools_only_url, era, words, capability):
    result = cli("--url", tools_only_url, "--protocol-version", era, *words, timeout=60)
    assert result.code == 0, result
    assert "offers no %s" % capability in result.err, result
    assert "-32601" not in result.err, result


# -- 5. a finished 2025-11-25 HTTP task leaves no trail in task list ----------------------------


def test_task_list_after_a_fetched_2025_http_task_is_quiet_against_everything(cli, http_url):  # noqa: F811
    task_id = created_research_task(cli, "--url", http_url)
    fetched = cli("task", "result", task_id, timeout=90)
    assert fetched.code == 0, fetched
    for _ in range(2):
        listed = cli("task", "list")
        assert listed.code == 0, listed
        assert "no longer knows the session" not in listed.err, listed


# -- 6. --root given to an @NAME command reaches the server ------------------------------------


def test_a_root_given_through_a_session_reaches_everything(cli, stdio_server, tmp_path):  # noqa: F811
    opened = cli("session", "open", "fid", stdio_server, timeout=90)
    assert opened.code == 0, opened
    try:
        first = cli("@fid", "--root", str(tmp_path / "one"), "tool", "call", "get-roots-list", timeout=60)
        assert first.code == 0 and (tmp_path / "one").as_uri() in first.out, first
        second = cli("@fid", "--root", str(tmp_path / "two"), "tool", "call", "get-roots-list", timeout=60)
        assert second.code == 0, second
        assert (tmp_path / "two").as_uri() in second.out, second
    finally:
        cli("session", "close", "fid")


# -- 7. smaller items ---------------------------------------------------------------------------


def test_quiet_keeps_the_log_lines_log_level_asked_for_against_everything(cli, stdio_server):  # noqa: F811
    result = cli(stdio_server, "-q", "--log-level", "debug", "tool", "call", "toggle-simulated-logging", timeout=60)
    assert result.code == 0, result
    # the server sends one log message at once, at a random level (all at or above debug)
    assert re.search(r"^\U0001f4e3 \[\w+\] \w+[- ]level[- ]message", result.err, re.M), result


def test_record_keeps_an_error_the_server_sent_with_id_null_against_everything(cli, http_url, tmp_path):  # noqa: F811
    """The everything server answers the 2026-07-28 probe with HTTP 400 and an error whose id
    is null; --record wrote it under the probe's id (1)."""
    recording = tmp_path / "probe.jsonl"
    result = cli("--url", http_url, "--record", recording, "tool", "list", timeout=60)
    assert result.code == 0, result
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    errors = [line["message"] for line in lines if line.get("direction") == "in" and "error" in line.get("message", {})]
    assert errors, lines
    assert all("id" in error and error["id"] is None for error in errors), errors


def test_a_replayed_input_required_task_completes_against_fastmcp(cli, fastmcp, tmp_path):
    """FastMCP's input key is <taskId>:<hash>, and the hash differs per task: a replay that
    mapped the task id but kept the recorded hash left the replayed task input_required."""
    recording = tmp_path / "asked.jsonl"
    asked = cli(*fastmcp, "--record", recording, "--elicit-stub", '{"name": "Ada"}', "tool", "call", "ask_name",
                "--task", "--wait", timeout=90)
    assert asked.code == 0 and "Hello, Ada!" in asked.out, asked
    replayed = cli(*fastmcp, "replay", recording, timeout=90)
    assert "input_required" not in replayed.out, replayed
    assert replayed.code == 0, replayed


def test_an_elicit_stub_that_cannot_fill_the_form_declines_a_2026_task_against_fastmcp(cli, fastmcp):
    """Under 2026-07-28 it exited 2 and left the created task at input_required."""
    result = cli(*fastmcp, "--elicit-stub", '{"nickname": "Ada"}', "tool", "call", "ask_name", "--task", "--wait",
                 timeout=90)
    assert result.code == 0, result
    assert "declined" in result.err, result
    assert "No name given (decline)." in result.out, result


def test_a_progress_token_in_meta_is_refused_against_fastmcp(cli, fastmcp):
    """progressToken is the spec's key, which mcp-tui sets to follow progress: it was accepted and replaced."""
    result = cli(*fastmcp, "tool", "call", "echo", "message=hi", "--meta", "progressToken=7")
    assert result.code == 2, result
    assert "progressToken" in result.err, result


def test_check_on_2025_http_sends_one_delete_and_no_2026_header_against_everything(cli, http_url, tmp_path):  # noqa: F811
    """check sent DELETE twice (its probe's, then the session's close) and put the 2026-only
    Mcp-Method header on its 2025-11-25 probes. The --log-file's HTTP lines show the wire."""
    log = tmp_path / "wire.jsonl"
    result = cli("--url", http_url, "--log-file", log, "check", timeout=120)
    assert result.code in (0, 1), result  # findings may be reported; the wire is what is asked here
    exchanges = [entry for entry in map(json.loads, log.read_text().splitlines()) if entry.get("type") == "http"]
    assert [entry["method"] for entry in exchanges].count("DELETE") == 1, [
        (entry["method"], entry.get("carries"), entry.get("status")) for entry in exchanges]
    with_session = [entry for entry in exchanges if "Mcp-Session-Id" in (entry.get("requestHeaders") or {})]
    assert with_session, exchanges
    assert not [entry for entry in with_session if "Mcp-Method" in entry["requestHeaders"]], with_session


def test_a_task_the_ledger_could_not_record_gets_a_poll_line_that_runs_against_fastmcp(cli, fastmcp_http, state_dir):
    """The Poll:/Result: lines left the connection to a ledger that had failed to record the
    task, and could not run."""
    import shlex

    (state_dir / "tasks.json").mkdir()  # the ledger cannot write its file
    created = cli("--url", fastmcp_http.url, "tool", "call", "render_report", "quarter=Q2", "--task", timeout=60)
    assert created.code == 0, created
    assert "cannot record the task" in created.err, created
    poll = [line for line in created.out.splitlines() if line.startswith("Poll:")]
    assert poll and "--url %s" % fastmcp_http.url in poll[0], created
    (state_dir / "tasks.json").rmdir()
    shown = cli(*shlex.split(poll[0][len("Poll:"):])[1:], timeout=60)  # what a user pastes, less the program
    assert shown.code == 0 and "Status:" in shown.out, shown


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_during_a_load_cancels_the_calls_in_flight_against_everything(stdio_server, state_dir, tmp_path):  # noqa: F811
    """Ctrl+C stopped a --load without a word to the server: the calls in flight ran on.
    The --record file holds what mcp-tui sent."""
    record = tmp_path / "record.jsonl"
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + [stdio_server, "--record", record, "tool", "call",
                                               "trigger-long-running-operation", "duration=60", "steps=2", "--load",
                                               "--load-concurrency", "3"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    def sent(method):
        lines = record.read_text().splitlines() if record.exists() else []
        return [line["message"] for line in map(json.loads, lines)
                if line.get("direction") == "out" and (line.get("message") or {}).get("method") == method]

    try:
        calls = wait_for(lambda: len(sent("tools/call")) == 3 and sent("tools/call"), what="three calls in flight")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, (out, err)
    cancelled = sent("notifications/cancelled")
    assert sorted(m["params"]["requestId"] for m in cancelled) == sorted(m["id"] for m in calls), (cancelled, err)


# -- a session the server behind the balancer does not know: shown as the server said it ------


@pytest.fixture(scope="module")
def balanced_sdk_url(sdk_python, peer_log_dir):
    """Two SDK servers (uvicorn) behind a balancer without sticky sessions."""
    peers = [_start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-balanced-%d" % number, peer_log_dir)
             for number in (1, 2)]
    balancer = RoundRobinBalancer([peer.url for peer in peers])
    yield balancer.url
    balancer.close()
    for peer in peers:
        peer.stop()


@pytest.mark.parametrize("command", [["tool", "list"], ["check"]])
def test_a_session_the_next_server_does_not_know_is_reported_as_404_not_405_behind_a_balancer(
        cli, balanced_sdk_url, command):
    """After a good initialize the next request reached a server that never issued the session
    (404 "Session not found"): that fell through to the legacy HTTP+SSE fallback, whose 405
    hid the real answer, in check too."""
    result = cli("--url", balanced_sdk_url, "--protocol-version", "2025-11-25", *command, timeout=60)
    shown = result.out + result.err
    assert result.code == 1, result
    assert shows_status(shown, 404) and not shows_status(shown, 405) and "HTTP+SSE" not in shown, result
    if command == ["tool", "list"]:
        assert "no longer knows the session" in result.err, result
