"""Several servers in one TUI (issue 35, item 3): the side pane of servers, switching with
Alt+1-9, each server keeping its tabs, filters and running work, closing one.

Server 1 is the test server over stdio, server 2 the test server over HTTP; the pyte screen
is read as a user reads it. No sleeps: every wait is on what the screen shows."""
import re

import pytest

from test_tui_connection import children  # live processes whose parent is the TUI (/proc)
from tui_helpers import (needs_pty, open_tool, server_command, tui, wait_for_tool_list,  # noqa: F401 (fixture)
                         wait_for_tool_form)

ALT = {number: "\x1b%d" % number for number in range(1, 10)}  # a terminal sends Alt+N as Esc then N


def add_server(screen, target):
    """C on the main screen, the target typed over the current one, Enter: one more server."""
    screen.send("C")
    screen.wait_for("Connect to an MCP server")
    screen.send("ctrl-u")
    screen.paste(target)
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"^ mcp-tui  \|  2/2 ", screen.title_line()), what="the second server shown")
    wait_for_tool_list(screen)


@needs_pty
def test_two_servers_keep_their_tabs_filters_and_running_call(tui, start_server):
    http = start_server()
    screen = tui(server_command(), columns=120, rows=40)
    open_tool(screen, "long_operation")  # server 1's tools tab now filters on long_operation
    screen.send("tab", "backspace", "backspace", "1", "0", "0")  # step_ms = 100
    screen.send("shift-tab", "ctrl-u")
    screen.type("40")  # 40 steps: about 4 s
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"progress \d+/40\b", t), what="the call under way")
    screen.send("esc")  # back to the list while it runs
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui "), what="the main screen")
    add_server(screen, http.url)
    # server 2: its own tabs and filter, untouched by server 1's
    assert "Tools (" in screen.text() and "long_operation" in screen.text()  # no filter here: every tool
    screen.send("2", "/")
    screen.type("hello")
    screen.send("enter")
    screen.wait_all("Resources (1+0 of ", "Hello text")
    screen.wait_for(lambda t: re.search(r"1 (\[1 running\]|\*) mcp-tui test", t),
                    what="server 1 marked running (or done) in the side pane")
    assert "Done after 40 steps" not in screen.text() and "long_operation" not in screen.status_line()
    screen.wait_for(lambda t: re.search(r"1 \* mcp-tui test", t), what="server 1's call done, marked *")
    screen.send(ALT[1])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  1/2 "), what="server 1 shown again")
    screen.wait_all("Tools (1 of ", "long_operation")  # its filter kept
    screen.send("enter")
    wait_for_tool_form(screen, "long_operation")
    screen.wait_for("Done after 40 steps")  # the result that came while server 2 was shown
    screen.send("esc", ALT[2])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 "), what="server 2 shown again")
    screen.wait_all("Resources (1+0 of ", "Hello text")  # its tab and filter kept


@needs_pty
def test_closing_one_server_leaves_the_other_working(tui, start_server):
    http = start_server()
    screen = tui(server_command(), columns=120, rows=40)
    wait_for_tool_list(screen)
    stdio_children = children(screen.pid)
    add_server(screen, http.url)
    screen.send("S")  # into the side pane: server 2 selected (the one shown)
    screen.wait_for("Enter show/connect")
    screen.send("k", "x")  # close server 1: its process ends
    screen.wait_for(lambda t: "Closed mcp-tui test server." in screen.status_line(), what="closed")
    screen.wait_for(lambda t: not set(stdio_children) & set(children(screen.pid)), what="the stdio server gone")
    assert "1/2" not in screen.title_line() and "2/2" not in screen.title_line()  # one server left
    screen.send("esc", "p")
    screen.wait_for(lambda t: "Ping:" in screen.status_line(), what="the HTTP server still answers")
    screen.send("q")
    assert screen.wait_exit() == 0


@needs_pty
def test_enter_on_a_config_server_in_the_pane_adds_it(tui, tmp_path):
    import json

    config = tmp_path / ".mcp.json"  # the project's file, found as the connection screen finds it
    config.write_text(json.dumps({"mcpServers": {"second": {"command": server_command().split()[0],
                                                            "args": server_command().split()[1:]}}}))
    screen = tui(server_command(), columns=120, rows=40, cwd=tmp_path)
    wait_for_tool_list(screen)
    screen.send("S")
    screen.wait_all("1 mcp-tui test server", "+ second (.mcp.json)")  # listed in the side pane, not open
    screen.send("j", "enter")
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 "), what="the config's server added")
    wait_for_tool_list(screen)
    assert len(children(screen.pid)) == 2  # both stdio servers run
    screen.send("q")
    assert screen.wait_exit() == 0


@needs_pty
def test_quit_asks_while_a_background_server_has_a_call_running(tui, start_server):
    http = start_server()
    screen = tui(server_command(), columns=120, rows=40)
    open_tool(screen, "long_operation")
    screen.send("tab", "backspace", "backspace", "5", "0", "0", "shift-tab", "ctrl-u")
    screen.type("1000")  # long enough to be running still
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"progress \d+/1000\b", t), what="the call under way")
    screen.send("esc")
    add_server(screen, http.url)
    screen.send("S", "k", "x")  # closing the busy server asks too
    screen.wait_for(lambda t: "has 1 call or task running; close it anyway? y/n" in screen.status_line(),
                    what="the question before closing")
    screen.send("n")
    screen.wait_for(lambda t: "Kept." in screen.status_line(), what="kept")
    screen.send("S", "q")
    screen.wait_for(lambda t: "1 call still running; quit anyway? y/n" in screen.status_line(), what="the question")
    screen.send("y")
    assert screen.wait_exit() == 0


@needs_pty
@pytest.mark.parametrize("size", [(80, 24), (40, 12)])
def test_a_narrow_terminal_collapses_the_pane_and_s_shows_it(tui, start_server, size):
    http = start_server()
    columns, rows = size
    screen = tui(server_command(), columns=columns, rows=rows)
    wait_for_tool_list(screen)
    assert "Servers" not in screen.text()  # collapsed: the list and detail as before
    add_server(screen, http.url)
    screen.send("S")
    screen.wait_all("Servers", "1 mcp-tui", "2 mcp-tui")
    assert "Tools (" not in screen.text()  # the pane in place of the lists
    screen.send("k", "enter")
    screen.wait_for(lambda t: "1/2" in screen.title_line(), what="server 1 shown")
    wait_for_tool_list(screen)
    assert "Servers" not in screen.text()


@needs_pty
def test_a_recent_connection_is_listed_without_its_secrets_and_enter_adds_it(tui, start_server, state_dir):
    http = start_server()
    secret = "recent-secret-0123"
    screen = tui(http.url, "-H", "X-Key: %s" % secret, columns=120, rows=40)
    wait_for_tool_list(screen)
    screen.send("q")
    assert screen.wait_exit() == 0
    kept = (state_dir / "recent.json").read_text()
    assert http.url in kept and secret not in kept
    screen = tui(server_command(), columns=80, rows=24)  # narrow: S shows the pane in place of the lists
    wait_for_tool_list(screen)
    screen.send("S")
    label = "+ recent: %s" % http.url
    screen.wait_all("1 mcp-tui test server", label)
    rows = screen.lines()[2:-2]  # below the title bar and the pane's heading, above the footer
    screen.send(*["j"] * [row.strip() for row in rows].index(label))
    screen.send("enter")
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 ") and "http" in screen.title_line(),
                    what="the recent HTTP server added")
    wait_for_tool_list(screen)


@needs_pty
def test_an_input_request_waits_on_its_own_server_while_another_is_shown(tui, start_server):
    http = start_server()
    screen = tui(server_command(), columns=120, rows=40)
    wait_for_tool_list(screen)
    add_server(screen, http.url)
    screen.send(ALT[1])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  1/2 "), what="server 1 shown")
    screen.send("B")  # the pane hidden: the list where open_tool looks for it
    screen.wait_gone("Servers  (S)")
    open_tool(screen, "ask_name")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: screen.title_line().startswith(" Input requested"), what="the elicitation form")
    screen.send(ALT[2])  # the form stays with server 1; server 2's main screen is as it was
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 "), what="server 2 shown")
    assert "Please enter your name." not in screen.text()
    screen.send("S")  # the pane lists server 1 with its call waiting
    screen.wait_for(lambda t: re.search(r"1 \[1 running\] mcp-tui test", t), what="server 1's call waiting")
    screen.send("S")
    screen.send(ALT[1])
    screen.wait_for(lambda t: screen.title_line().startswith(" Input requested"), what="the form again")
    screen.type("Ada")
    screen.send("ctrl-x")
    screen.wait_for("Hello, Ada!")


@needs_pty
def test_closing_the_last_server_leaves_the_connection_screen(tui):
    screen = tui(server_command(), columns=80, rows=24)
    wait_for_tool_list(screen)
    server = children(screen.pid)
    screen.send("S", "x")
    screen.wait_all("Connect to an MCP server", "Closed mcp-tui test server.")
    screen.wait_for(lambda t: not set(server) & set(children(screen.pid)), what="its process gone")
    screen.send("ctrl-x")  # the same server again, from the fields: closed again, then Esc quits
    wait_for_tool_list(screen)
    screen.send("S", "x")
    screen.wait_for("Connect to an MCP server")
    screen.send("esc")  # nothing left to go back to: Esc quits, as at start
    assert screen.wait_exit() == 0
