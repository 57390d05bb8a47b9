"""Interop: the reference "everything" server (TypeScript SDK, from npm), which speaks the
2025-11-25 era with experimental tasks. Nobody here wrote it."""
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
    assert result.code == 1, result
    assert "runs only as a task" in result.err and "add --task" in result.err


def test_task_created_then_listed_and_fetched_over_http(cli, http_url):
    created = cli("--url", http_url, "tool", "call", "simulate-research-query", "topic=ml", "--task")
    assert created.code == 0, created
    task_id = re.match(r"^Task (\S+) created: ", created.out).group(1)
    # A fresh process: the legacy session is new, and the server keeps tasks per session,
    # so the honest answer may be "unknown task"; either way it is one clear line.
    shown = cli("task", "get", "--", task_id)
    assert shown.code in (0, 1), shown
    if shown.code == 1:
        assert shown.err.startswith("mcp-tui: unknown or expired task task:")
        assert task_id not in shown.err
    else:
        assert shown.out.startswith("Task:     %s\nStatus:   " % task_id)


def test_a_kept_session_walk_against_everything(cli, stdio_server, state_dir):
    """Issue 12's done-when walk: open, list tools, list sessions, a task, its status and
    result without flags, close; the server process is gone afterwards."""
    import json
    import time

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
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and os.path.exists("/proc/%d" % keeper):
        time.sleep(0.05)  # waiting for a condition: the keeper's exit
    assert not os.path.exists("/proc/%d" % keeper) or sys.platform != "linux"
