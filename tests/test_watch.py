"""Section 5 (CLI): `watch` and `resource subscribe` print notifications as they arrive, one
line each (one JSON object per line with --format json), in both eras; `resource
unsubscribe` and the refusals say what they did."""
import json
import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

from conftest import MCP_TUI_PROCESS, stdio_command, wait_for

HELLO = "test://static/hello.txt"


class Watcher(object):
    """mcp-tui watching in the background; its stdout lines arrive on a queue."""

    def __init__(self, state_dir, *args):
        env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
        self.proc = subprocess.Popen(MCP_TUI_PROCESS + [str(a) for a in args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                     env=env)
        self.lines = queue.Queue()
        self.err = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(l) for l in self.proc.stdout], daemon=True).start()
        threading.Thread(target=lambda: [self.err.put(l) for l in self.proc.stderr], daemon=True).start()

    def wait_err(self, text, timeout=30):
        seen = []
        while True:
            line = self.err.get(timeout=timeout)
            seen.append(line)
            if text in line:
                return seen

    def next_line(self, timeout=30):
        return self.lines.get(timeout=timeout).rstrip("\n")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def watchers(state_dir):
    started = []

    def start(*args):
        watcher = Watcher(state_dir, *args)
        started.append(watcher)
        return watcher

    yield start
    for watcher in started:
        watcher.stop()


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("command", [["watch", "--resource", HELLO], ["resource", "subscribe", HELLO]])
def test_watch_prints_resource_updates_and_list_changes(cli, start_server, watchers, era, command):
    server = start_server()
    watcher = watchers("--url", server.url, "--protocol-version", era, *command)
    watcher.wait_err("Ctrl+C stops")
    assert cli("--url", server.url, "tool", "call", "touch_resource", "uri=" + HELLO).code == 0
    assert watcher.next_line().endswith(" resource updated: %s" % HELLO)
    assert cli("--url", server.url, "tool", "call", "toggle_extra_tool").code == 0
    assert watcher.next_line().endswith(" tools list changed")
    if os.name != "nt":
        watcher.proc.send_signal(signal.SIGINT)
        assert watcher.proc.wait(30) == 130
        assert "Traceback" not in "".join(list(watcher.err.queue))
    subscribes = [r for r in server.records() if r["message"].get("method") in (
        "resources/subscribe", "subscriptions/listen")]
    assert subscribes, server.records()


def test_watch_json_is_one_object_per_line_and_for_ends_it(cli, start_server, watchers):
    server = start_server()
    watcher = watchers("--url", server.url, "--protocol-version", "2025-11-25", "--format", "json", "watch",
                       "--resource", HELLO, "--for", "5")
    for _ in range(200):
        assert cli("--url", server.url, "tool", "call", "touch_resource", "uri=" + HELLO).code == 0
        try:
            line = watcher.next_line(timeout=0.5)
            break
        except queue.Empty:
            continue  # the watch may not have subscribed yet
    event = json.loads(line)
    assert event["method"] == "notifications/resources/updated" and event["params"]["uri"] == HELLO
    assert watcher.proc.wait(60) == 0  # --for ends it, with exit 0


def test_resource_unsubscribe_in_each_era(cli, start_server):
    server = start_server()
    legacy = cli("--url", server.url, "--protocol-version", "2025-11-25", "resource", "unsubscribe", HELLO)
    assert legacy.code == 0, legacy
    assert "Unsubscribed from %s" % HELLO in legacy.err
    assert [r for r in server.records() if r["message"].get("method") == "resources/unsubscribe"]
    document = cli("--url", server.url, "--protocol-version", "2025-11-25", "--format", "json", "resource",
                   "unsubscribe", HELLO)
    assert document.code == 0 and document.json() == {"unsubscribed": HELLO}, document  # it printed nothing
    modern = cli("--url", server.url, "resource", "unsubscribe", HELLO)
    assert modern.code == 2, modern
    assert "nothing to unsubscribe" in modern.err


def test_watch_for_must_be_positive(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "watch", "--for", "0")
    assert result.code == 2, result
    assert "--for must be more than 0 seconds" in result.err


def children_of(pid):
    """The processes ``pid`` started (Linux /proc), e.g. mcp-tui's stdio server."""
    found = []
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task)) as handle:
            found += [int(child) for child in handle.read().split()]
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server through /proc")
@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_a_watch_whose_server_dies_says_so_and_exits_1(watchers, era):
    """Nothing can arrive once the server is gone: watch went on watching nothing (until
    --for, or forever); now it ends with the reason, exit 1."""
    watcher = watchers(stdio_command(), "--protocol-version", era, "watch")
    watcher.wait_err("Ctrl+C stops")
    wait_for(lambda: children_of(watcher.proc.pid))
    for server in children_of(watcher.proc.pid):
        os.kill(server, signal.SIGKILL)
    assert watcher.proc.wait(30) == 1
    assert watcher.wait_err("mcp-tui: ")[-1] == "mcp-tui: the server process exited on signal 9 (SIGKILL)\n"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_max_time_ends_a_watch_in_either_era(cli, era):
    """Under 2025-11-25 --max-time was never looked at (the watch went on for ever); under
    2026-07-28 it ended with "no answer to subscriptions/listen within 31536000s"."""
    result = cli(stdio_command(), "--protocol-version", era, "watch", "--max-time", "1.5", timeout=60)
    assert (result.code, result.out) == (1, ""), result
    assert result.err.splitlines()[-1] == ("mcp-tui: the --max-time limit (1.5s) ended the watch (--for SECONDS ends "
                                           "a watch with exit 0)"), result


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_watch_that_ends_cancels_its_listen_as_any_request_is_cancelled(cli, start_server, tmp_path, transport):
    """2026-07-28: the listen is a request in flight, so ending the watch cancels it by the
    one rule every request follows: notifications/cancelled naming it on stdio, and on HTTP
    the closed response stream alone (no notification the server could not place)."""
    if transport == "stdio":
        record = tmp_path / "record.jsonl"
        result = cli(stdio_command("--record", record), "watch", "--for", "1", timeout=60)
        messages = [json.loads(line)["message"] for line in record.read_text().splitlines()]
    else:
        server = start_server()
        result = cli("--url", server.url, "watch", "--for", "1", timeout=60)
        messages = [r["message"] for r in server.records()]
    assert result.code == 0, result
    listens = [m["id"] for m in messages if m.get("method") == "subscriptions/listen"]
    cancels = [m["params"] for m in messages if m.get("method") == "notifications/cancelled"]
    assert len(listens) == 1, messages
    if transport == "stdio":
        assert cancels == [{"requestId": listens[0], "reason": "the watch ended"}], messages
    else:
        assert cancels == [], messages


def test_one_reading_of_list_changed_names_and_claims():
    import mcp_tui

    assert mcp_tui.changed_list("notifications/tools/list_changed") == "tools"
    assert mcp_tui.changed_list("notifications/roots/list_changed") == "roots"
    assert mcp_tui.changed_list("notifications//list_changed") is None
    assert mcp_tui.changed_list("tools/list_changed") is None
    assert mcp_tui.changed_list(None) is None
    assert mcp_tui.capability_flag({"tools": {"listChanged": True}}, "tools", "listChanged")
    for claim in ({"tools": {"listChanged": "true"}}, {"tools": {"listChanged": 1}}, {"tools": True}, {}, None):
        assert not mcp_tui.capability_flag(claim, "tools", "listChanged"), claim
    assert mcp_tui.list_change_filters({"tools": {"listChanged": 1}, "prompts": {"listChanged": True}}) == {
        "promptsListChanged": True}


@pytest.mark.parametrize("command", [["watch"], ["resource", "subscribe", HELLO]])
def test_a_silent_2026_http_listen_runs_to_for_past_timeout(cli, start_server, command):
    """--timeout bounds requests and the silence before an answer, not a listen working as
    meant: over 2026-07-28 HTTP a silent listen ended at --timeout with "the connection
    broke: timed out", exit 1. --for ends it (exit 0), --max-time too (exit 1, saying so)."""
    server = start_server("--era", "2026-07-28")
    result = cli("--url", server.url, "--timeout", "1", *command, "--for", "3", timeout=60)
    assert (result.code, result.out) == (0, ""), result
    assert "mcp-tui:" not in result.err, result
    capped = cli("--url", server.url, "--timeout", "1", "--max-time", "2.5", *command, timeout=60)
    assert capped.code == 1 and "--max-time" in capped.err.splitlines()[-1], capped
