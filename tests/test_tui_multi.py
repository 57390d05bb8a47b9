"""Every screen that acts on a server, with two servers open, acts on the right one (issue 46,
items 1-3 and 6): the debug screen's send again (r), edit and send (e), save (s), its server
column, key o and closed servers; Ctrl+C asking while another server works.

The fixture (tui_helpers.two_servers) opens the test server over stdio (2026-07-28, echo answers
"first:...") and over HTTP (2025-11-25, "second:..."); each records what it received, and the
tests read those records and the pyte screen. No sleeps: every wait is on what the screen shows."""
import json
import re

import pytest

import mcp_tui
from tui_helpers import (call_echo, needs_pty, open_tool, show_server, tui, two_servers,  # noqa: F401 (fixtures)
                         wait_for_tool_list)

ALT = {number: "\x1b%d" % number for number in range(1, 10)}
SERVER_1 = "1 mcp-tui test"  # the debug screen's server column: Alt+N's number and the server's name
SERVER_2 = "2 mcp-tui test"


def echoed_on_both(servers):
    """Server 1 echoes from-first, then server 2 (shown, as the fixture leaves it) from-second."""
    screen = servers.screen
    call_echo(screen, "from-second", "second:from-second")
    show_server(screen, 1)
    call_echo(screen, "from-first", "first:from-first")
    show_server(screen, 2)


def selected_row(screen):
    """The text of the list row drawn in reverse video (the selection), below the title bar."""
    with screen.lock:
        buffer, lines = screen.screen.buffer, list(screen.screen.display)
        for y in range(2, screen.screen.lines - 2):
            if buffer[y][2].reverse and buffer[y][40].reverse:
                return lines[y]
    return ""


def select_row(screen, *texts):
    """Move the selection up (k) from the newest row (End) until its row holds every one of
    ``texts``. Rows that come in meanwhile (a reconnect's lists, a late acknowledgement) can
    leave the row below the selection (a full run reached the top that way): then again from
    the newest, at most three times."""
    for _ in range(3):
        screen.send("end")
        for _ in range(60):
            row = selected_row(screen)
            if all(text in row for text in texts):
                return row
            screen.send("k")
            try:
                screen.wait_for(lambda t: selected_row(screen) != row, timeout=5, what="the selection moved")
            except AssertionError:
                break  # at the top
    raise AssertionError("no row with %r; the screen:\n%s" % (texts, screen.text()))


def protocol_count(screen):
    return int(re.search(r"1 Protocol \((\d+)\)", screen.text()).group(1))


def open_requests(screen):
    screen.send("D")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: "), what="the debug screen")
    screen.send("6")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Requests"), what="the Requests tab")


@needs_pty
@pytest.mark.parametrize("key", ["r", "e"])
def test_sent_again_goes_to_the_rows_server_not_the_one_on_show(two_servers, key):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    open_requests(screen)
    screen.wait_all(SERVER_1, SERVER_2)  # a server column: both servers have rows
    select_row(screen, SERVER_1, "tools/call echo")
    screen.send("enter")
    screen.wait_for('"message": "from-first"')  # the first server's row indeed
    screen.send("q")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Requests"), what="the Requests tab again")
    if key == "e":
        screen.send("e")
        screen.wait_for('"from-first"')  # its params to edit
        screen.send("ctrl-x")
    else:
        screen.send("r")
    screen.wait_for(lambda t: screen.title_line().startswith(" Sent again to mcp-tui test server (server 1): tools/call"),
                    what="the new answer over the old")
    screen.wait_for("The same answer as the first")
    assert "Differences" not in screen.text() and "second:from-first" not in screen.text()
    assert servers.echoes(1) == ["from-first", "from-first"]  # the first server got it again
    assert servers.echoes(2) == ["from-second"]  # the one on show did not


@needs_pty
def test_save_writes_one_file_per_server(two_servers, tmp_path):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    open_requests(screen)
    screen.wait_all(SERVER_1, SERVER_2)
    screen.send("s")
    screen.wait_for(lambda t: "Saved 2 files, one per server (listed here)." in screen.status_line(), what="saved")
    assert screen.title_line().startswith(" Saved 2 files, one per server  |  ")
    files = sorted((tmp_path / "work").glob("mcp-tui-*.jsonl"))
    assert len(files) == 2, screen.status_line()
    kinds = set()
    for path in files:
        records = [json.loads(line) for line in path.read_text().splitlines()][1:]  # after the line that starts it
        transports = {record["transport"] for record in records}
        # each file on its own line with its server (the status line would cut all but the first)
        assert re.search(r"(?m)^%s  %d mcp-tui test server, \d+ rows " % (
            re.escape(path.name), 1 if transports == {"stdio"} else 2), screen.text()), screen.text()
        calls = [record for record in records if record["message"].get("method") == "tools/call"]
        assert len(transports) == 1, (path, transports)  # one server's rows each
        kinds.add((transports.pop(), tuple((record["era"], record["message"]["params"]["arguments"]["message"])
                                           for record in calls)))
    assert kinds == {("stdio", (("modern", "from-first"),)), ("streamable-http", (("legacy", "from-second"),))}


@needs_pty
def test_a_closed_servers_rows_are_marked_and_not_sent_anywhere(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    screen.send("S")  # the side pane: server 2 selected; k then x closes server 1
    screen.wait_for("Enter show/connect")
    screen.send("k", "x")
    screen.wait_for(lambda t: "Closed mcp-tui test server." in screen.status_line(), what="server 1 closed")
    screen.send("esc")
    open_requests(screen)
    screen.wait_all("closed mcp-tui", SERVER_1)  # the one left is server 1 now
    select_row(screen, "closed mcp-tui", "tools/call echo")
    screen.send("r")
    screen.wait_for(lambda t: "which is closed: nothing was sent" in screen.status_line(), what="the refusal")
    assert servers.echoes(2) == ["from-second"]  # not sent to the server on show either


@needs_pty
def test_o_shows_only_the_server_on_show_and_back(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    screen.send("D")
    screen.wait_all(SERVER_1, SERVER_2, "o this server")  # the Protocol tab, both servers' rows
    both = protocol_count(screen)
    screen.send("o")
    screen.wait_for(lambda t: "[server 2 mcp-tui test server only]" in screen.title_line(), what="only server 2")
    screen.wait_gone(SERVER_1)
    assert "o all servers" in screen.lines()[-2] and "initialize" in screen.text()  # server 2's era opens so
    assert protocol_count(screen) < both
    screen.send("6")
    screen.wait_for("tools/call echo")
    assert "first:" not in screen.text() and SERVER_1 not in screen.text()
    screen.send("o")
    screen.wait_all(SERVER_1, SERVER_2)


def test_requests_rows_keep_their_status_column_whatever_the_methods_length():
    rows = [mcp_tui.Exchange("out", {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"name": name}},
                             "stdio", None, False) for method, name in (
        ("tools/call", "echo"), ("tools/call", "a_tool_with_a_very_long_name_indeed"),
        ("x-vendor/an-extension-method-with-a-long-name", "x"))]
    width = mcp_tui.exchange_label_width(rows, 80)  # an 80-column screen: no room for the longest label
    lines = [mcp_tui.exchange_line(row, width) for row in rows]
    assert len({line.index(" pending") for line in lines}) == 1, lines
    assert "tools/call a_tool" in lines[1] and "…" in lines[1] and "indeed" in lines[1]  # cut, and says so


@needs_pty
def test_ctrl_c_asks_while_another_server_has_a_call_running(two_servers):
    servers = two_servers()
    screen = servers.screen
    show_server(screen, 1)
    open_tool(screen, "long_operation")
    screen.send("tab", "backspace", "backspace", "5", "0", "0", "shift-tab", "ctrl-u")
    screen.type("1000")  # long enough to be running still
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"progress \d+/1000\b", t), what="the call under way")
    screen.send("esc", ALT[2])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 "), what="server 2 shown")
    screen.send("ctrl-c")
    screen.wait_for(lambda t: "1 call still running; quit anyway? y/n" in screen.status_line(), what="the question")
    screen.send("n")
    screen.wait_for(lambda t: "Kept." in screen.status_line(), what="kept")
    screen.send("D", "ctrl-c")  # on any screen, the same question
    screen.wait_for(lambda t: "1 call still running; quit anyway? y/n" in screen.status_line(), what="asked again")
    screen.send("ctrl-c")  # twice: at once
    assert screen.wait_exit() == 130


@needs_pty
def test_an_f9_recording_says_each_lines_server_and_its_era(two_servers, tmp_path):
    servers = two_servers()
    screen = servers.screen
    screen.send("f9")
    started = screen.wait_for(lambda t: re.search(r"Recording to mcp-tui-\S+\.jsonl", screen.status_line()),
                              what="recording")
    path = tmp_path / "work" / re.search(r"(mcp-tui-\S+\.jsonl)", started).group(1)
    echoed_on_both(servers)
    screen.send("f9")
    screen.wait_for(lambda t: "Recording stopped" in screen.status_line(), what="recording stopped")
    lines = [json.loads(line) for line in path.read_text().splitlines()][1:]
    calls = [(line["server"], line["era"], line["message"]["params"]["arguments"]["message"]) for line in lines
             if line["message"].get("method") == "tools/call"]
    assert calls == [(servers.http.url, "legacy", "from-second"),
                     (calls[1][0], "modern", "from-first")] and "testserver" in calls[1][0], calls
    assert all("server" in line for line in lines)  # every line of a session says whose


@needs_pty
def test_history_runs_a_call_again_on_its_own_server(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)  # server 2 shown
    screen.send("H")
    screen.wait_for("from-second")
    assert "from-first" not in screen.text()  # each server its own history
    screen.send("r")
    screen.wait_for(lambda t: servers.echoes(2) == ["from-second", "from-second"], what="server 2 asked again")
    assert servers.echoes(1) == ["from-first"]


def start_report_task(screen, modern):
    """From the main screen: render_report as a task of 500 pages (long enough to cancel), then back."""
    open_tool(screen, "render_report")
    if modern:
        screen.send("ctrl-t")  # a 2025-11-25 listing says taskSupport "required": the form opens in task mode
    screen.wait_for(lambda t: "[task mode]" in t.splitlines()[0], what="[task mode] in the title")
    screen.send("right", "down", "backspace", "backspace", "5", "0", "0", "ctrl-x")
    screen.wait_for("Rendering page")
    screen.send("esc")
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui "), what="the main screen")


@needs_pty
def test_the_tasks_screen_cancels_on_its_own_server(two_servers):
    servers = two_servers()
    screen = servers.screen
    start_report_task(screen, modern=False)  # server 2: 2025-11-25
    show_server(screen, 1)
    start_report_task(screen, modern=True)
    screen.send("T")
    screen.wait_for(lambda t: len(t.splitlines()) > 3 and "working" in t.splitlines()[3], what="the task listed")
    screen.send("c")
    screen.wait_for(lambda t: "Cancel task" in screen.status_line(), what="the question")
    screen.send("y")
    screen.wait_for(lambda t: "cancelled" in t.splitlines()[3], what="the task cancelled")
    assert len(servers.received(1, "tasks/cancel")) == 1 and servers.received(2, "tasks/cancel") == []
    screen.send("q", ALT[2], "T")
    screen.wait_for(lambda t: screen.title_line().startswith(" Tasks") and "2/2" in screen.title_line()
                    and "working" in t.splitlines()[3], what="server 2's task still working")


def test_two_sessions_requests_pair_with_their_own_answers_in_the_message_list():
    """Both servers number their requests from 1: an answer pairs with its own session's request."""
    log = mcp_tui.DebugLog()
    book = log.record_to(mcp_tui.ExchangeBook())
    first, second = (mcp_tui.SourcedLog(log, mcp_tui.LogSource(number, "server %d" % number)) for number in (1, 2))
    for session in (first, second):
        session.message("out", {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo"}}, "stdio")
    second.message("in", {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "second"}]}},
                   "stdio")
    first.message("in", {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "first"}]}},
                  "stdio")
    rows = book.snapshot()
    assert [(row.source, row.answer["result"]["content"][0]["text"]) for row in rows] == [(1, "first"), (2, "second")]
    assert [entry["source"] for entry in log.select(kinds=("message",))] == [1, 2, 2, 1]


@needs_pty
def test_one_server_has_no_server_column(tui):
    from tui_helpers import server_command

    screen = tui(server_command(), columns=120, rows=40)
    wait_for_tool_list(screen)
    screen.send("D")
    screen.wait_all("server/discover", "tools/list")
    screen.send("6")
    screen.wait_for("→ tools/list")
    assert "1 mcp-tui test" not in screen.text() and "this server" not in screen.lines()[-2]


@needs_pty
def test_a_failed_send_again_ends_the_rows_servers_connection_not_the_shown_ones(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    show_server(screen, 1)
    servers.http.stop()  # server 2 (HTTP) gone
    open_requests(screen)
    select_row(screen, SERVER_2, "tools/call echo")
    screen.send("r")
    screen.wait_for(lambda t: "Sending tools/call again to" not in screen.status_line()
                    and screen.status_line().strip(), what="the failure said")
    assert "[disconnected]" not in screen.title_line() and servers.echoes(1) == ["from-first"]
    screen.send("q", ALT[2])
    screen.wait_for(lambda t: "2/2" in screen.title_line() and "[disconnected]" in screen.title_line(),
                    what="server 2 known gone")


@needs_pty
def test_a_narrow_debug_screen_keeps_the_server_number_alone(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    open_requests(screen)
    screen.resize(40, 12)
    screen.wait_for(lambda t: re.search(r"^ 2 \d\d:\d\d:\d\d → tools/call echo", t, re.M), what="the number alone")
    assert "mcp-tui test" not in "\n".join(screen.lines()[2:-2])


@needs_pty
def test_a_row_of_a_server_since_reconnected_goes_to_its_new_session(two_servers):
    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    show_server(screen, 1)
    screen.send("ctrl-r")  # a new process of the stdio server, a new session
    screen.wait_for(lambda t: "Reconnected to" in screen.status_line(), what="reconnected")
    show_server(screen, 2)
    open_requests(screen)
    select_row(screen, SERVER_1, "tools/call echo")
    screen.send("r")
    screen.wait_for("The same answer as the first")
    assert servers.echoes(1) == ["from-first", "from-first"] and servers.echoes(2) == ["from-second"]
