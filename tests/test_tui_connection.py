"""The TUI survives the server: a stdio server's exit shows at once, Ctrl+R reconnects,
C opens the connection screen, Esc gives up a connection attempt, and quitting at any
moment leaves no server process behind. At 80x24, in a pseudo-terminal."""
import os
import shlex
import signal
import sys
from pathlib import Path

import pytest

from conftest import ROOT, RunningServer, process_alive, wait_for
from tui_helpers import ERAS, needs_pty, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}
SILENT_SERVER = [sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(60)"]  # never answers

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds child processes in /proc")


def children(pid):
    """Live (not zombie) processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def wait_until(condition, what, timeout=30.0):
    wait_for(condition, timeout, what=what)


def connecting_to_a_silent_server(tui):
    """A TUI stuck connecting to a server that never answers, and that server's pid."""
    screen = tui(" ".join(shlex.quote(p) for p in SILENT_SERVER), **SMALL)
    screen.wait_for("Connecting to")
    return screen, server_pid(screen)


def server_pid(screen):
    wait_until(lambda: children(screen.pid), "the server process")
    return children(screen.pid)[0]


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_a_killed_stdio_server_shows_as_disconnected_at_once_and_ctrl_r_reconnects(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    open_tool(screen, "echo")
    screen.type("before")
    pid = server_pid(screen)
    os.kill(pid, signal.SIGKILL)
    # No key is pressed: the TUI notices by itself.
    # the whole line, not its start: a row can reach the terminal in two reads
    screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: the server process exited on signal 9 "
                                                              "(SIGKILL)"),  # not "with code -9"
                    what="Disconnected on the status line", timeout=10)
    assert "[disconnected]" in screen.title_line()
    screen.send("ctrl-r")
    screen.wait_for(lambda t: "Reconnected to mcp-tui test server" in screen.status_line(), what="reconnected")
    assert "Tool: echo" in screen.title_line() and "before" in screen.text()  # the form is still there
    assert not process_alive(pid) and server_pid(screen) != pid
    screen.send("ctrl-x")
    screen.wait_for("before", what="a call on the new connection")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call answered")


@needs_pty
def test_quitting_while_connecting_leaves_no_server_process(tui):
    screen, pid = connecting_to_a_silent_server(tui)
    screen.send("ctrl-c")
    assert screen.wait_exit() == 130
    wait_until(lambda: not process_alive(pid), "the server process to be gone")


@needs_pty
def test_esc_gives_up_a_connection_attempt_and_the_form_stays(tui):
    screen, pid = connecting_to_a_silent_server(tui)
    screen.send("esc")
    screen.wait_for(lambda t: "Connection attempt cancelled." in screen.status_line(), what="the attempt cancelled")
    wait_until(lambda: not process_alive(pid), "the server process to be gone")
    assert screen.title_line().startswith(" Connect")
    screen.send("ctrl-u")
    screen.type(server_command())
    screen.send("ctrl-x")
    screen.wait_for("Tools (")


@needs_pty
def test_c_opens_the_connection_screen_and_esc_goes_back(tui):
    screen = tui(server_command(), **SMALL)
    screen.wait_for("Tools (")
    screen.send("C")
    screen.wait_all("Connect to an MCP server", "testserver.py", "Esc back")  # the current server filled in
    screen.send("esc")
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui"), what="the main screen again")
    screen.send("C")
    screen.wait_for("Connect to an MCP server")
    screen.send("ctrl-x")  # the same server again: added as a second server, the first one stays
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected anew")
    screen.wait_for(lambda t: "2/2 mcp-tui test server" in screen.title_line(), what="the second server shown")
    screen.wait_for(lambda t: len(children(screen.pid)) == 2, what="both server processes")


@needs_pty
def test_quitting_from_a_2025_11_25_http_server_is_quick(tui, start_server):
    server = start_server()
    screen = tui(server.url, "--protocol-version", "2025-11-25", **SMALL)
    screen.wait_for(lambda t: "Tools (" in t and "2025-11-25" in screen.title_line(), what="a 2025-11-25 session")
    screen.send("q")
    assert screen.wait_exit(timeout=5.0) == 0  # a guard: 12 s before the exit was bounded; about 0.1 s idle


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_a_stopped_http_server_shows_as_disconnected_on_the_next_request_and_ctrl_r_comes_back(
        tui, start_server, era):
    server = start_server()
    screen = tui(server.url, "--no-cache", *ERAS[era], **SMALL)  # a kept server/discover would answer Ctrl+R
    screen.wait_for("Tools (")
    server.stop()
    screen.send("p")
    screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: "), what="Disconnected after a ping")
    assert "[disconnected]" in screen.title_line()
    screen.send("ctrl-r")
    screen.wait_for(lambda t: "reconnecting failed" in screen.status_line(), what="the failed reconnect said")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_a_stopped_http_server_shows_as_disconnected_when_its_stream_ends_without_a_key(tui, start_server, era):
    server = start_server()
    screen = tui(server.url, *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    server.stop()
    screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: "), what="Disconnected, no key pressed")


@needs_pty
def test_a_get_stream_the_server_ends_without_event_ids_is_opened_again_and_its_loss_shows_at_once(tui, tmp_path):
    record = tmp_path / "bad.jsonl"
    server = RunningServer(["--http", "127.0.0.1:0", "--mode", "get-stream-ends", "--era", "2025-11-25",
                            "--record", str(record)], record, script=ROOT / "tests" / "badserver.py")
    try:
        screen = tui(server.url, "--protocol-version", "2025-11-25", **SMALL)
        screen.wait_for("Tools (")
        screen.send("D", "3")  # the Logs tab: the server's log messages (no level was asked for: no toast)
        screen.wait_for("GET stream 2", what="a message on a GET stream opened after the first one ended")
        screen.send("1")
        screen.wait_for("the server ended the GET stream; opening a new one", what="the stream's end in the debug log")
        server.stop()
        screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: "), what="Disconnected, no key pressed")
    finally:
        server.stop()


@needs_pty
def test_a_terminal_that_hangs_up_ends_the_tui_and_its_server_even_when_sighup_is_ignored(tui):
    """Under nohup (SIGHUP ignored) a closed terminal window leaves the TUI reading a dead
    terminal: get_wch fails at once, forever. It must end, and take its server with it."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited through fork and exec, as nohup does
    try:
        screen = tui(server_command(), **SMALL)
    finally:
        signal.signal(signal.SIGHUP, previous)
    screen.wait_for("Tools (")
    pid = server_pid(screen)
    os.close(screen.fd)  # the terminal window closes
    assert screen.wait_exit() == 130
    wait_until(lambda: not process_alive(pid), "the server to end")


@needs_pty
def test_an_address_typed_without_http_is_answered_with_the_url_that_was_meant(tui, start_server):
    """"127.0.0.1:PORT/mcp" is a command line to the stdio transport: "no such program" alone
    leaves a newcomer guessing."""
    server = start_server()
    address = server.url.split("://", 1)[1]
    screen = tui(**SMALL)
    screen.wait_for("Connect to")
    screen.type(address)
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "did you mean %s?" % server.url in screen.status_line(), what="the URL suggested")
    screen.wait_for("A URL needs its scheme")
    screen.send("ctrl-a")
    screen.type("http://")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected")


@needs_pty
def test_tasks_of_the_previous_server_are_not_sent_to_the_next_one(tui, start_server):
    """C to another server used to keep the old tasks on the tasks screen, whose refresh sent
    tasks/get with their IDs (possibly bearer tokens) to the new server."""
    other = start_server()
    screen = tui(server_command("--page-ms", "200"), **SMALL)
    open_tool(screen, "render_report")
    screen.send("ctrl-t", "right", "down", "backspace", "backspace", "5", "0", "0")  # Q1, 500 pages
    screen.send("ctrl-x")
    screen.wait_for("Rendering page")
    screen.send("esc", "esc", "C")
    screen.wait_for("Connect to an MCP server")
    screen.send("ctrl-u")
    screen.paste(other.url)
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="the other server")
    screen.send("T")
    screen.wait_all("No tasks yet", "Tasks refreshed (0)")
    sent = [record["message"].get("method") for record in other.records()]  # what the client sent
    assert not [method for method in sent if str(method).startswith("tasks/")], sent


@needs_pty
@pytest.mark.parametrize("how", ["terminal closed", "SIGTERM"])
def test_a_closed_terminal_or_a_kill_stops_a_server_that_ignores_the_end_of_its_input(tui, how):
    """The everything server (node) keeps running when its stdin closes; the TUI used to die
    at once on SIGHUP or SIGTERM and leave it behind. Here: a shell that outlives the test
    server by a minute, in the server's process group."""
    screen = tui("sh -c %s" % shlex.quote(server_command() + "; sleep 60"), **SMALL)
    screen.wait_for("Tools (")
    pid = server_pid(screen)
    if how == "SIGTERM":
        os.kill(screen.pid, signal.SIGTERM)
    else:
        os.close(screen.fd)  # the kernel sends SIGHUP to the TUI
    assert screen.wait_exit() == 130
    wait_until(lambda: not process_alive(pid), "the server's shell to end")


@needs_pty
def test_values_from_a_config_are_never_shown_or_copied(tui, start_server, tmp_path):
    """A URL query ${VAR}, a header ${VAR} and a header value written in the config: the
    connection screen, the status line and Ctrl+Y show the placeholders, never the values,
    and Connect there still sends the values."""
    import json
    import subprocess

    from tui_helpers import MCP_TUI

    secret, literal = "tui-config-secret-0123", "written-in-the-file-4567"
    server = start_server()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"plain": {
        "url": server.url + "?key=${MCP_TEST_SECRET}", "headers": {"X-Key": "${MCP_TEST_SECRET}", "X-Team": literal}}}}))
    screen = tui("--config", config, "--server", "plain", env={"MCP_TEST_SECRET": secret}, columns=160)
    seen = []  # every screen the test waited on

    def shows(text):
        seen.append(screen.text())
        return text in seen[-1]

    screen.wait_for(lambda t: shows("Tools ("), what="the main screen")
    open_tool(screen, "echo")
    screen.type("hi")
    screen.send("ctrl-y")
    screen.wait_for(lambda _: screen.clipboard() is not None, what="the OSC 52 clipboard sequence")
    command = screen.clipboard()
    assert secret not in command and literal not in command, command
    assert "--url '%s?key='\"${MCP_TEST_SECRET}\"" % server.url in command, command
    assert "--header 'X-Key: '\"${MCP_TEST_SECRET}\"" in command and "X-Team" not in command, command
    screen.wait_for(lambda t: shows("Copied: mcp-tui"), what="the status line")
    screen.send("esc")
    screen.wait_for(lambda t: "y/n" in screen.status_line(), what="leave the form?")
    screen.send("y")
    screen.wait_for(lambda t: shows("Tools ("), what="the main screen")
    screen.send("C")
    screen.wait_for(lambda t: shows("Connect to an MCP server") and shows("?key=${MCP_TEST_SECRET}")
                    and shows("X-Key: ${MCP_TEST_SECRET}"), what="the placeholders on the connection screen")
    screen.send("ctrl-x")  # the same server again, from the fields
    screen.wait_for(lambda t: shows("Connected to") and shows("?key=${MCP_TEST_SECRET}") or shows("Tools ("),
                    what="connected anew")
    assert not any(secret in text or literal in text for text in seen + [screen.text()])
    raw = bytes(screen.raw).decode("utf-8", "replace")
    assert secret not in raw and literal not in raw  # nor in anything drawn and overdrawn
    requests = [r["http"] for r in server.records() if r.get("http")]
    assert len(requests) > 2 and all(r["headers"].get("x-key") == secret and r["headers"].get("x-team") == literal
                                     and r["path"].endswith("?key=" + secret) for r in requests), requests[-1]
    runnable = " ".join(shlex.quote(p) for p in (sys.executable, str(MCP_TUI))) + command[len("mcp-tui"):]
    result = subprocess.run(["bash", "-c", runnable], capture_output=True, text=True, timeout=30,
                            env=dict(os.environ, MCP_TEST_SECRET=secret))
    assert result.returncode == 0 and "hi" in result.stdout, result.stderr


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_a_list_change_shows_on_an_idle_tui_with_no_key_pressed(tui, start_server, cli, era):
    """What arrives wakes the loop (Inbox): an idle TUI shows another client's list change at
    once. No key is sent while waiting, not even the Ctrl+L of TuiSession.wait_for."""
    import re

    server = start_server()
    screen = tui(server.url, *ERAS[era], **SMALL)
    text = screen.wait_for(lambda t: re.search(r"Tools \((\d+)\)", t), what="the tools listed")
    before = int(re.search(r"Tools \((\d+)\)", text).group(1))
    result = cli("--url", server.url, *ERAS[era], "tool", "call", "toggle_extra_tool")
    assert result.code == 0, result
    wait_for(lambda: "Tools (%d)" % (before + 1) in screen.text(), what="the new tool listed, no key pressed")


def test_a_post_from_another_thread_ends_the_inbox_wait_and_a_drain_empties_it():
    import socket
    import threading

    import mcp_tui

    inbox = mcp_tui.Inbox()
    terminal, typist = socket.socketpair()  # a terminal nobody types on
    try:
        threading.Thread(target=inbox.put, args=("a result",)).start()
        assert inbox.wait(terminal.fileno(), None)  # no limit: only the wake ends it
        inbox.drain()
        assert inbox.get_nowait() == "a result"
        assert not inbox.wait(terminal.fileno(), 0)
        inbox.wake()
        inbox.wake()  # one byte for both
        assert inbox.wait(terminal.fileno(), None)
        inbox.drain()
        assert not inbox.wait(terminal.fileno(), 0)
        typist.send(b"q")
        assert not inbox.wait(terminal.fileno(), None)  # a key ends it too, and is no wake
    finally:
        terminal.close()
        typist.close()
