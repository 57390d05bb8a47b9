"""The round 5 TUI probe's defects (issue 46), each as a user meets it: a background server's
authorization stays on its own screens, and a task-mode call can be cancelled at once."""
import json
import re
import subprocess
import sys

import mcp_tui
from tui_helpers import needs_pty, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)
from tui_helpers import show_server, wait_for_form, wait_for_tool_list
from tui_helpers import two_servers  # noqa: F401 (a fixture)

from conftest import wait_for
from test_auth import FETCH_URL
from test_tui_servers import add_server

ALT = {number: "\x1b%d" % number for number in range(1, 10)}
WIDE = {"columns": 120, "rows": 40}

# A browser that completes the first authorization (as test_auth's BROWSER) and only writes
# down the URL of any later one: the test completes that one when it wants.
ONCE_BROWSER = r"""
import os, subprocess, sys
urls, marker = sys.argv[1], sys.argv[2]
with open(urls, "a") as out:
    out.write(sys.argv[3] + "\n")
if not os.path.exists(marker):
    open(marker, "w").close()
    sys.exit(subprocess.call([sys.executable, %r, sys.argv[3]]))
""" % str(FETCH_URL)


@needs_pty
def test_a_background_servers_authorization_opens_on_its_own_screens(tui, start_server, tmp_path):
    from conftest import RunningServer

    browser = tmp_path / "once_browser.py"
    browser.write_text(ONCE_BROWSER)
    urls = tmp_path / "urls.txt"
    env = {"BROWSER": "%s %s %s %s %%s" % (sys.executable, browser, urls, tmp_path / "marker")}
    protected = start_server("--auth")  # 2026-07-28 over HTTP: its listen stream is tried again when lost
    port = int(protected.url.split(":")[2].split("/")[0])
    screen = tui(server_command(), env=env, **WIDE)
    wait_for_tool_list(screen)
    add_server(screen, protected.url)  # authorized by the browser's first run
    show_server(screen, 1)
    protected.stop()  # a new server on the same port knows no token: the retry meets 401
    again = RunningServer(["--http", "127.0.0.1:%d" % port, "--record", str(tmp_path / "again.jsonl"), "--auth"],
                          tmp_path / "again.jsonl")
    try:
        note = "mcp-tui test server asks for your input: Alt+2 shows it"
        screen.wait_for(note, timeout=sum(mcp_tui.STREAM_RETRY_SECONDS) + 20)
        assert screen.title_line().startswith(" mcp-tui  |  1/2 "), screen.text()  # server 1 keeps its screen
        screen.send(ALT[2])
        screen.wait_for(lambda t: screen.title_line().startswith(" Authorize  |  2/2 ")
                        and "Waiting for the authorization at 127.0.0.1:" in screen.status_line(),
                        what="server 2's Authorize screen, its status waiting")
        # The listen tried again waits out its answer (10 s): the authorization still waits, no try failed
        screen.wait_for(lambda t: "Waiting for the authorization at 127.0.0.1:%d (its Authorize screen; Esc there "
                                  "cancels)" % port in screen.status_line(), what="the retry waiting for it")
        assert "Trying the server again" not in screen.status_line() and "did not answer" not in screen.text()
        screen.send(ALT[1])
        screen.wait_for(note)
        screen.send("p")  # server 1's own status line, which the authorization leaves alone
        screen.wait_for(lambda t: screen.status_line().startswith("Ping: "), what="server 1's ping")
        pinged = screen.status_line()
        (url,) = urls.read_text().splitlines()[1:]
        assert subprocess.call([sys.executable, str(FETCH_URL), url]) == 0
        screen.wait_gone(note)  # the wait is over: the note goes, server 1 says nothing of it
        assert screen.status_line() == pinged and screen.title_line().startswith(" mcp-tui  |  1/2 ")
        screen.send(ALT[2])
        screen.wait_for(lambda t: "answers again" in screen.status_line(), what="server 2 back")
        assert "[disconnected]" not in screen.title_line()
    finally:
        again.stop()


@needs_pty
def test_ctrl_c_cancels_a_task_mode_call_before_any_task_exists(tui, tmp_path):
    record = tmp_path / "record.jsonl"
    screen = tui(server_command("--record", record), **WIDE)  # 2026-07-28: it runs long_operation without a task

    def sent():
        lines = record.read_text().splitlines() if record.exists() else []
        messages = [json.loads(line).get("message") or {} for line in lines]
        calls = [m["id"] for m in messages if m.get("method") == "tools/call"]
        return calls, [m["params"]["requestId"] for m in messages if m.get("method") == "notifications/cancelled"]

    open_tool(screen, "long_operation")
    screen.send("ctrl-t")
    screen.wait_for(lambda t: "[task mode]" in screen.title_line(), what="task mode")
    screen.send("backspace", "1000", "tab", "backspace", "backspace", "500")  # far too long to wait
    screen.send("ctrl-x")
    wait_for(lambda: sent()[0], what="the tools/call sent")
    screen.send("ctrl-c")
    screen.wait_for(lambda t: "cancelled" in t.split("-- Result")[1], what="the call cancelled")
    assert "Tool: long_operation" in screen.title_line()  # Ctrl+C stopped the call, not the app
    wait_for(lambda: sent()[1], what="notifications/cancelled")
    calls, cancelled = sent()
    assert cancelled == calls[-1:], (calls, cancelled)


@needs_pty
def test_an_env_value_with_unquoted_spaces_is_refused_without_showing_it(tui, tmp_path):
    from test_tui_round5_small import env_refused

    screen = env_refused(tui, tmp_path, "MODE=fast PASSWORD=correct horse-battery", "Env: word 3 (after "
                         "PASSWORD's value) is not NAME=value; quote a value with spaces whole, as PASSWORD='a b'")
    assert "horse" not in screen.status_line() and "correct" not in screen.status_line()  # only the field shows it


@needs_pty
def test_a_form_left_for_another_server_leaves_the_note_there(two_servers):
    screen = two_servers().screen  # server 2 shown
    open_tool(screen, "ask_name")
    screen.send("ctrl-x")
    wait_for_form(screen, "Input requested", "Please enter your name.")  # opened while its server is shown
    show_server(screen, 1)
    note = "mcp-tui test server asks for your input: Alt+2 shows it"
    screen.wait_for(note)
    screen.send(ALT[2])
    wait_for_form(screen, "Input requested", "Please enter your name.")
    assert note not in screen.text()
    screen.type("Ada")
    screen.send("ctrl-x")
    screen.wait_for("Hello, Ada!")
    screen.send("esc", ALT[1])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  1/2 "), what="server 1 shown again")
    screen.wait_gone(note)  # answered: the note goes


@needs_pty
def test_an_opened_debug_row_names_its_server_when_several_have_rows(two_servers):
    from test_tui_multi import SERVER_1, SERVER_2, echoed_on_both, open_requests, select_row

    servers = two_servers()
    screen = servers.screen
    echoed_on_both(servers)
    open_requests(screen)
    screen.wait_all(SERVER_1, SERVER_2)
    for number, message in ((1, "from-first"), (2, "from-second")):
        select_row(screen, "%d mcp-tui test" % number, "tools/call echo")
        screen.send("enter")
        screen.wait_for('"message": "%s"' % message)
        title = " Request and answer (%d mcp-tui test server)  |  " % number  # read once curses has drawn it whole
        screen.wait_for(lambda t: screen.title_line().startswith(title), what="the title naming server %d" % number)
        screen.send("q")
        screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Requests"), what="the Requests tab again")


@needs_pty
def test_the_side_pane_keeps_an_open_servers_transport_whole(two_servers):
    screen = two_servers().screen  # 120 columns: a pane of 36 cells, short of "2 mcp-tui test server  streamable-http"
    screen.send("B")
    screen.wait_for("Servers  (S)")
    screen.wait_for(lambda t: re.search(r"2 mcp-tui test ser?v?e?r?…  streamable-http ", t), what="the name cut")
    assert "1 mcp-tui test server  stdio " in screen.text()  # one that fits stays whole
