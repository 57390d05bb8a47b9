"""The TUI's Taps screen (W): the taps `tap list` shows, and one tap's conversation live, each
request with its answer, searched with / and opened whole with Enter. At 80x24, in a
pseudo-terminal; the host is this test, speaking to a real tap of the test server."""
import json
import subprocess

from conftest import MCP_TUI_PROCESS, ROOT, TESTSERVER, wait_for
from tui_helpers import needs_pty, server_command, tui  # noqa: F401 (tui: a fixture)
import cached_script

SMALL = {"columns": 80, "rows": 24}


class Host(object):
    """A host in a few lines: the tap started as a host's config starts it, one request at a time."""

    def __init__(self, state_dir, name):
        self.process = subprocess.Popen(MCP_TUI_PROCESS + ["tap", "--name", name, "--"]
                                        + cached_script.command(TESTSERVER), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=str(ROOT),
                                        env=dict(__import__("os").environ, MCP_TUI_STATE_DIR=str(state_dir)))

    def ask(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        self.process.stdin.flush()
        if "id" in message:
            return json.loads(self.process.stdout.readline())
        return None

    def close(self):
        self.process.stdin.close()
        self.process.wait(30)


@needs_pty
def test_the_taps_screen_shows_a_conversation_live_pairs_answers_searches_and_opens_one(tui, state_dir):
    host = Host(state_dir, "desktop")
    try:
        opening = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
        assert host.ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opening})["id"] == 1
        host.ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        wait_for(lambda: (state_dir / "taps" / "desktop.json").exists(), what="the tap's description")

        screen = tui(server_command(), **SMALL)
        screen.wait_for("Tools (")
        assert "W taps" in screen.lines()[-2], screen.text()  # the main screen's footer
        screen.send("W")
        screen.wait_all("Taps", "desktop", "running")
        screen.send("enter")
        screen.wait_for(lambda t: "→ initialize #1" in t and ", answer " in t and " ms " in t,
                        what="initialize with its answer on one row")

        # Live: what the host says now shows up, each answer on its request's row
        host.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "echo", "arguments": {"message": "needle in the host's call"}}})
        host.ask({"jsonrpc": "2.0", "id": 3, "method": "no/such"})
        screen.wait_for(lambda t: "→ tools/call echo #2" in t and "→ no/such #3 ✗ -32601" in t,
                        what="the call and the error answer")
        assert "→ notifications/initialized" in screen.text()

        screen.send("/")
        screen.type("needle")
        screen.send("enter")
        screen.wait_for(lambda t: "/ needle" in t and "→ tools/call echo #2" in t and "initialize #1" not in t,
                        what="only the call that has the text")
        screen.send("enter")
        screen.wait_all("Request  ", "Answer  ", "needle in the host's call", '"method": "tools/call"')
        screen.send("q")
        screen.wait_for("/ needle")
        screen.send("q", "q")
        screen.wait_for("Tools (")
        screen.send("?")
        screen.wait_for("scroll  (1-")  # the help is longer than the screen: its line about taps is further down
        screen.send("pgdn")
        screen.wait_for("T / D (or F12) / W / q  tasks screen / debug screen / taps")
    finally:
        host.close()


@needs_pty
def test_f7_opens_the_taps_screen_from_the_connection_screen_without_a_server(tui, state_dir):
    screen = tui(**SMALL)
    screen.wait_for("Connect")
    screen.send("f7")
    screen.wait_all("Taps", "No taps yet.", "mcp-tui tap install --config FILE --server NAME")
    host = Host(state_dir, "later")
    try:
        host.ask({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        screen.wait_all("later", "running")  # a tap that starts while the screen shows comes up
        screen.send("enter")
        screen.wait_for(lambda t: "→ ping #1" in t and ", answer " in t, what="the ping with its answer")
    finally:
        host.close()
    screen.send("q", "q")
    screen.wait_for("Connect")


def test_a_long_conversation_keeps_the_newest_rows_within_bounds(monkeypatch):
    """The screen's model alone (no terminal): past its bounds the oldest rows go, and answers still pair."""
    import mcp_tui

    monkeypatch.setattr(mcp_tui, "TAP_SCREEN_ROWS", 50)
    monkeypatch.setattr(mcp_tui, "TAP_SCREEN_BYTES", 4000)
    screen = mcp_tui.TapConversationScreen.__new__(mcp_tui.TapConversationScreen)
    screen.rows, screen.asked, screen.version, screen.kept = [], {}, 0, 0
    screen.exchanges = mcp_tui.TapExchanges()
    for number in range(200):
        screen.take({"direction": "out", "time": number, "message": {"jsonrpc": "2.0", "id": number, "method": "ping"}})
        answer = {"jsonrpc": "2.0", "id": number, "result": {}}
        screen.take({"direction": "in", "time": number + 0.5, "message": answer})
    assert len(screen.rows) <= 50 and screen.kept <= 4000
    assert [row["first"]["id"] for row in screen.rows][-1] == 199
    assert all("answer" in row and row["answer"]["latencyMs"] == 500.0 for row in screen.rows)
    assert screen.kept == sum(row[key]["bytes"] for row in screen.rows for key in ("first", "answer"))
