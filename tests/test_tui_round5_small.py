"""Issue 46's smaller TUI items ("Also seen"), each through the app's keys on a pyte screen:
a request answered by an HTTP error says so on the Requests tab; the side pane keeps entries
apart; an empty-array default starts empty; / starts a new search and the Requests columns
line up; the Taps list heads every column; a filtered list counts what it hides; r and p say
what they did; a background server's call for input stays noted while it waits; the Env
field's errors speak the project's words; e sends a fresh progressToken; a lost listen stream
is retried on its own. No sleeps: every wait is on what the screen shows."""
import json
import mcp_tui
import re
import time

from tui_helpers import needs_pty, one_tool_server, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)
from tui_helpers import show_server, wait_for_tool_form, wait_for_tool_list

WIDE = {"columns": 120, "rows": 40}


def debug_tab(screen, number, name):
    screen.send("D")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug:"), what="the debug screen")
    screen.send(str(number))
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: " + name), what="the %s tab" % name)


@needs_pty
def test_a_request_answered_by_an_http_error_shows_its_status_not_pending(tui, start_server):
    server = start_server("--era", "2025-11-25")  # it answers the 2026-07-28 probe (server/discover) 400
    screen = tui(server.url, **WIDE)
    wait_for_tool_list(screen)
    debug_tab(screen, 4, "HTTP")
    screen.wait_for(lambda t: re.search(r"POST \S+ server/discover -> 400", t), what="the probe's 400")
    screen.send("6")
    row = screen.wait_for(lambda t: re.search(r"→ server/discover +HTTP 400 ", t), what="the row's status")
    assert not re.search(r"server/discover +pending", row)
    screen.send("home", "enter")  # the row whole: the reason, where an answer would be
    screen.wait_all("Answer:", "Bad Request: Server not initialized")


def test_a_request_that_ends_with_no_answer_says_how_on_its_row():
    """The rows of requests an HTTP error without a JSON-RPC body, a broken connection or a
    cancel ended: what happened, in the status column and in the row whole."""
    log = mcp_tui.DebugLog()
    book = log.record_to(mcp_tui.ExchangeBook())
    endings = {1: mcp_tui.HttpStatusError(503, "Service Unavailable", b"down for maintenance"),
               2: mcp_tui.ConnectionFailed("the connection broke: reset by peer"),
               3: mcp_tui.RequestCancelled("tools/call cancelled: by the user"), 4: None, 5: "answered"}
    for request_id in endings:
        log.message("out", {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}, "streamable-http")
    log.message("in", {"jsonrpc": "2.0", "id": 5, "result": {"tools": []}}, "streamable-http")
    for request_id, error in endings.items():
        if error != "answered":
            log.request_outcome(request_id, error=error)
    rows = {row.message["id"]: row for row in book.snapshot()}
    assert [rows[n].status() for n in sorted(rows)] == ["HTTP 503", "failed", "cancelled", "no answer", "ok"]
    whole = mcp_tui.exchange_text(rows[1], mcp_tui.SecretRegistry())
    assert "(HTTP 503 Service Unavailable: down for maintenance)" in whole
    assert "(the connection broke: reset by peer)" in mcp_tui.exchange_text(rows[2], mcp_tui.SecretRegistry())


@needs_pty
def test_the_side_pane_keeps_two_recent_urls_apart_by_their_ports(tui, state_dir, monkeypatch):
    monkeypatch.setenv("MCP_TUI_STATE_DIR", str(state_dir))
    urls = ["http://127.0.0.1:42001/mcp", "http://127.0.0.1:42002/mcp"]
    for url in urls:
        mcp_tui.remember_connection(mcp_tui.build_spec(url))
    screen = tui(server_command(), **WIDE)  # 120 columns: the pane is wide enough for them whole
    wait_for_tool_list(screen)
    screen.send("S")
    screen.wait_all(*["+ recent: " + url for url in urls])
    screen.resize(100, 30)  # narrower: the middle goes, the ports stay
    screen.wait_all("+ recent: http://1…1:42001/mcp", "+ recent: http://1…1:42002/mcp")


ARRAY_TOOL = {"name": "numbers", "inputSchema": {"type": "object", "properties": {
    "values": {"type": "array", "items": {"type": "integer"}, "default": []}}}}
ECHO_ARGUMENTS = r"""
    elif method == "tools/call":
        text = "got " + json.dumps(message["params"].get("arguments"), sort_keys=True)
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}})
"""


@needs_pty
def test_an_empty_array_default_starts_the_field_empty(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, ARRAY_TOOL, ECHO_ARGUMENTS), **WIDE)
    open_tool(screen, "numbers")
    field = [line for line in screen.lines() if line.startswith("values ")]
    assert field and field[0].strip() == "values", screen.text()  # empty, not the text []
    screen.type("1,2,x")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "item 3 must be an integer, got 'x'" in screen.status_line(), what="x refused")
    assert "[]1" not in screen.text()
    screen.send("backspace")
    screen.type("3")
    screen.send("ctrl-x")
    screen.wait_for('got {"values": [1, 2, 3]}')


LONG_NAME = "summarise_every_document_in_the_shared_folder_tree"
LONG_TOOL = {"name": LONG_NAME, "inputSchema": {"type": "object", "properties": {}}}


def search_line(screen):
    return next((line.rstrip() for line in screen.lines() if line.startswith("/ ")), None)


@needs_pty
def test_slash_starts_a_new_search_and_the_requests_status_column_stays_in_line(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, LONG_TOOL, ECHO_ARGUMENTS), **WIDE)
    wait_for_tool_list(screen)
    screen.send("enter")  # its one tool (the list cuts the name)
    wait_for_tool_form(screen, LONG_NAME)
    screen.send("ctrl-x")
    screen.wait_for("got {}")
    screen.send("esc")
    screen.wait_for(lambda t: not screen.title_line().startswith(" Tool:"), what="the main screen")
    debug_tab(screen, 1, "Protocol")
    screen.send("/")
    screen.type("initialize")
    screen.send("enter")
    screen.wait_for(lambda t: search_line(screen) == "/ initialize", what="the kept search")
    screen.send("/")  # a new search, not more text behind the kept one
    screen.type("tools/")
    screen.wait_for(lambda t: search_line(screen) == "/ tools/", what="the new search alone")
    screen.send("enter")
    screen.send("6")
    screen.wait_for(lambda t: "tools/call " + LONG_NAME in t, what="the call's row")
    rows = [line for line in screen.lines() if re.match(r" \d\d:\d\d:\d\d → tools/", line)]
    assert len(rows) == 2, rows  # tools/list and the call
    assert len({row.index(" ok ") for row in rows}) == 1, rows  # one status column


@needs_pty
def test_the_taps_list_heads_its_state_column_and_shows_the_server(tui, state_dir):
    from conftest import wait_for
    from test_tui_taps import Host

    host = Host(state_dir, "desktop")
    try:
        opening = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
        assert host.ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": opening})["id"] == 1
        wait_for(lambda: (state_dir / "taps" / "desktop.json").exists(), what="the tap's description")
        server = json.loads((state_dir / "taps" / "desktop.json").read_text())["server"]
        screen = tui(server_command(), **WIDE)
        wait_for_tool_list(screen)
        screen.send("W")
        heading = screen.wait_for(lambda t: screen.title_line().startswith(" Taps") and "desktop" in t,
                                  what="the taps listed").splitlines()[1]
        assert re.match(r"NAME +HOST PID +MESSAGES +SINCE +STATE +SERVER$", heading.rstrip()), heading
        row = next(line for line in screen.lines() if line.startswith("desktop "))
        shown = row[heading.index("SERVER"):].rstrip()  # the command line, its middle left out where it is long
        assert row.index("running") == heading.index("STATE") and shown.endswith("testserver.py"), row
        assert shown == server or shown.startswith(server[:10]) and "…" in shown, row
    finally:
        host.close()


@needs_pty
def test_a_filtered_list_counts_what_it_shows_of_the_whole(tui):
    import testserver

    screen = tui(server_command(), **WIDE)
    wait_for_tool_list(screen)
    tools, prompts = len(testserver.TOOLS), len(testserver.PROMPTS)
    resources = "%d+%d" % (len(testserver.RESOURCES), len(testserver.TEMPLATES))
    screen.wait_all("Tools (%d)" % tools, "Resources (%s)" % resources, "Prompts (%d)" % prompts)  # no filter
    for tab, needle, shown in ((1, "get_image", "Tools (1 of %d)" % tools), (2, "hello", "Resources (1+0 of %s)" % resources),
                               (3, "greeting", "Prompts (1 of %d)" % prompts)):
        screen.send(str(tab), "/")
        screen.type(needle)
        screen.send("enter")
        screen.wait_for(shown)


def env_refused(tui, tmp_path, env, refusal):
    """The connection screen, a stdio server and ``env`` typed into Env, Enter: the ``refusal``
    on the status line (the screen)."""
    screen = tui(columns=200, rows=24, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    screen.wait_for("Connect to an MCP server")
    screen.paste(server_command())
    screen.send(*["tab"] * 6)  # past Transport, Protocol and the three Headers: Env
    screen.paste(env)
    screen.send("enter")
    screen.wait_for(lambda t: refusal in screen.status_line(), what="the refusal")
    return screen


@needs_pty
def test_an_env_value_with_an_unmatched_quote_is_refused_in_the_projects_words(tui, tmp_path):
    screen = env_refused(tui, tmp_path, "API_KEY='sk-secret-value MODE=fast", "Env: unmatched quote (a ' or \" "
                         "with no closing one); quote a value with spaces whole, as NAME='a b'")
    assert "No closing quotation" not in screen.text()
    assert "sk-secret-value" not in screen.status_line()


@needs_pty
def test_e_on_a_requests_row_sends_a_fresh_progress_token(tui, tmp_path):
    record = tmp_path / "server-record.jsonl"
    screen = tui(server_command("--record", str(record)), **WIDE)
    open_tool(screen, "echo")
    screen.type("hi")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call")
    screen.send("esc")
    screen.wait_for(lambda t: not screen.title_line().startswith(" Tool:"), what="the main screen")
    debug_tab(screen, 6, "Requests")
    screen.send("/")
    screen.type("tools/call echo")
    screen.send("enter")
    screen.wait_for(lambda t: re.search(r"tools/call echo +ok", t), what="the call's row")
    screen.send("e")
    screen.wait_for(lambda t: "Edit: params of tools/call" in screen.title_line(), what="the params editor")
    screen.wait_for('"progressToken": "mcp-tui-')
    screen.send("ctrl-x")  # sent as they are: all but the token
    screen.wait_for("tools/call echo sent again")
    calls = [json.loads(line)["message"] for line in record.read_text().splitlines()]
    tokens = [call["params"]["_meta"]["progressToken"] for call in calls if call.get("method") == "tools/call"]
    assert len(tokens) == 2 and tokens[0] != tokens[1], tokens


ASKER_TOOL = {"name": "asker", "inputSchema": {"type": "object", "properties": {}}}
ASKER_HANDLERS = r"""
    elif method == "tools/call":
        call["id"] = message["id"]
        import os, threading, time
        def ask():
            while not os.path.exists(%r):  # the test says when: once another server is shown
                time.sleep(0.05)
            send({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": {
                "message": "Your name, please", "requestedSchema": {
                    "type": "object", "properties": {"name": {"type": "string"}}}}})
        threading.Thread(target=ask, daemon=True).start()
    elif message.get("id") == "ask-1":
        name = ((message.get("result") or {}).get("content") or {}).get("name")
        send({"jsonrpc": "2.0", "id": call["id"], "result": {"content": [{"type": "text", "text": "Hi %%s" %% name}]}})
"""


@needs_pty
def test_a_background_servers_call_for_input_stays_noted_while_it_waits(tui, tmp_path):
    from test_tui_servers import ALT, add_server

    trigger = tmp_path / "ask-now"
    screen = tui(one_tool_server(tmp_path, ASKER_TOOL, ASKER_HANDLERS % str(trigger)), **WIDE)
    wait_for_tool_list(screen)
    add_server(screen, server_command())
    show_server(screen, 1)
    screen.send("B")  # the pane hidden: Enter opens the list's one tool
    screen.wait_gone("Servers  (S)")
    screen.send("enter")
    wait_for_tool_form(screen, "asker")
    screen.send("ctrl-x")
    show_server(screen, 2)
    trigger.write_text("")
    note = "asker-server asks for your input: Alt+1 shows it"
    screen.wait_for(note)
    # Held, not awaited: the note is on every look until past the time a server's news shows (the
    # request still waits). Not screen.wait_for: its Ctrl+L repaint would blank the screen for a look.
    until = time.monotonic() + mcp_tui.TOAST_SECONDS + 2
    while time.monotonic() < until:
        assert note in screen.text(), screen.text()
        time.sleep(0.05)  # the pace of the looks; nothing waits on it
    screen.send(ALT[1])
    screen.wait_for(lambda t: screen.title_line().startswith(" Input requested"), what="the form")
    screen.type("Ada")
    screen.send("ctrl-x")
    screen.wait_for("Hi Ada")
    screen.send("esc", ALT[2])
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui  |  2/2 "), what="server 2 shown again")
    screen.wait_gone(note)  # answered: the note goes


@needs_pty
def test_r_and_p_say_what_they_did_after_a_legacy_sse_server_restarts(tui, start_server, tmp_path):
    from conftest import RunningServer

    server = start_server("--legacy-sse")
    port = int(server.url.split(":")[2].split("/")[0])
    screen = tui(server.url, **WIDE)
    wait_for_tool_list(screen)
    assert " sse " in screen.title_line() + " "
    server.stop()
    screen.wait_for(lambda t: "[disconnected]" in screen.title_line(), what="the loss noticed")
    gone = screen.status_line()
    again = RunningServer(["--http", "127.0.0.1:%d" % port, "--record", str(tmp_path / "again.jsonl"),
                           "--legacy-sse"], tmp_path / "again.jsonl")
    try:
        screen.send("r")
        refused = screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: Refresh failed for "),
                                  what="r's outcome").splitlines()[-1]
        assert refused != gone and "(^R reconnects" in refused, refused
        screen.send("p")
        screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: Ping failed: "), what="p's outcome")
        screen.send("ctrl-r")  # what the line offers: connected again
        screen.wait_for(lambda t: "[disconnected]" not in screen.title_line(), what="connected again")
    finally:
        again.stop()


@needs_pty
def test_a_lost_listen_stream_is_tried_again_without_a_key_and_says_so(tui, start_server, tmp_path):
    from conftest import RunningServer

    server = start_server()  # 2026-07-28 over HTTP: list changes come on a subscriptions/listen stream
    port = int(server.url.split(":")[2].split("/")[0])
    screen = tui(server.url, **WIDE)
    before = int(re.search(r"Tools \((\d+)\)", screen.wait_for(lambda t: re.search(r"Tools \(\d+\)", t))).group(1))
    assert "2026-07-28" in screen.title_line()
    server.stop()
    screen.wait_for(lambda t: "[disconnected]" in screen.title_line(), what="the loss noticed")
    screen.wait_for(lambda t: re.search(r"Disconnected: Trying the server again in \d+s \(\d of %d\)" % len(
        mcp_tui.STREAM_RETRY_SECONDS), screen.status_line()), what="the tries said")
    again = RunningServer(["--http", "127.0.0.1:%d" % port, "--record", str(tmp_path / "again.jsonl"),
                           "--big-text", "1"], tmp_path / "again.jsonl")  # one more tool: big_text
    try:  # no key pressed from here on
        screen.wait_for(lambda t: "[disconnected]" not in screen.title_line() and "Tools (%d)" % (before + 1) in t,
                        what="connected again, with the lists refreshed", timeout=sum(mcp_tui.STREAM_RETRY_SECONDS) + 20)
        assert "answers again" in screen.status_line()
    finally:
        again.stop()
