"""The TUI never loses the user's work: pastes, Esc on an edited form, Alt keys, readline
editing, the arguments and results kept per tool, the history screen, and cancelling a
running call. Driven at 80x24 in a pseudo-terminal against tests/testserver.py."""
import json

import pytest

from conftest import wait_for
from tui_helpers import (ERAS, needs_pty, one_tool_server, open_tool, server_command, tui,
                         wait_for_progress)  # noqa: F401 (tui: a fixture)

import mcp_tui

SMALL = {"columns": 80, "rows": 24}


def result_text(screen):
    text = screen.text()
    return text.split("Tool response:")[1] if "Tool response:" in text else ""


@needs_pty
def test_a_multi_line_paste_runs_nothing_and_lands_in_the_field_as_one_line(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.paste("first line\nsecond line\r\nthird\n")
    screen.wait_for("first line second line third")
    assert "Tool response" not in screen.text() and "Calling" not in screen.status_line()
    screen.send("tab", "tab")  # onto a button: a paste there presses nothing either
    screen.paste("\n\n")
    screen.wait_for("Move to a text field to paste.")
    assert "Tool response" not in screen.text()
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "first line second line third" in result_text(screen), what="the pasted text echoed")


def asks_then_keeps_the_form(screen, key, question):
    """``key`` on the edited echo form asks ``question``; n keeps the form; ``key`` asks again."""
    screen.send(key)
    screen.wait_for(lambda t: question in screen.status_line(), what="the question")
    screen.send("n")
    screen.wait_for(lambda t: "Kept." in screen.status_line(), what="the form kept")
    assert "Tool: echo" in screen.title_line() and "draft" in screen.text()
    screen.send(key)
    screen.wait_for(lambda t: question in screen.status_line(), what="the question again")


@needs_pty
def test_esc_on_an_edited_form_asks_before_discarding(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("draft")
    asks_then_keeps_the_form(screen, "esc", "Discard your input? y/n")
    screen.send("y")
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line() and "Tools (" in t, what="the main screen")
    screen.send("enter")  # reopened: the discarded draft is gone
    screen.wait_for("Tool: echo")
    assert "draft" not in screen.text()
    screen.send("esc")  # nothing typed: no question
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line(), what="back without a question")


@needs_pty
@pytest.mark.parametrize("answer", ["y", "ctrl-c"])
def test_ctrl_c_on_an_edited_form_asks_before_quitting_and_y_or_ctrl_c_again_quits(tui, answer):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.paste("draft")  # a paste before any key is an edit too
    screen.wait_for("draft")
    asks_then_keeps_the_form(screen, "ctrl-c", "Discard your input and quit? y/n")
    screen.send(answer)
    assert screen.wait_exit() == 130


@needs_pty
def test_ctrl_c_on_an_untouched_form_quits_at_once(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.send("ctrl-c")
    assert screen.wait_exit() == 130


@needs_pty
def test_alt_keys_are_not_esc_and_fields_edit_as_in_readline(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("hello big world")
    screen.send("\x1bx")  # Alt+x: the terminal sends Esc and x together
    screen.send("alt-backspace")
    screen.wait_for(lambda t: "hello big" in t and "world" not in t, what="Alt+Backspace deleting a word")
    assert "Tool: echo" in screen.title_line() and "Discard" not in screen.status_line()
    screen.send("ctrl-w")
    screen.wait_for(lambda t: "hello" in t and "big" not in t, what="Ctrl+W deleting a word")
    screen.send("ctrl-a")
    screen.type(">")
    screen.send("ctrl-e")
    screen.type("<")
    screen.wait_for(">hello <")
    screen.send("left", "ctrl-u")  # Ctrl+U: everything before the cursor
    screen.type("x")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "x<" in result_text(screen), what="the edited text echoed")


def test_multi_line_fields_keep_pasted_newlines_others_turn_them_into_spaces():
    json_field = mcp_tui.TextField("o", "o", {"type": "object"})
    json_field.insert('{\n  "a": [1,\n 2]\n}')
    assert json_field.value() == (True, {"a": [1, 2]}) and json_field.text.count("\n") == 3
    untyped = mcp_tui.TextField("any", "any", {})
    untyped.insert("[1,\n2]")
    assert "\n" in untyped.text
    line = mcp_tui.TextField("s", "s", {"type": "string"})
    line.insert("a\nb\x1b[2Jc")
    assert line.text == "a b[2Jc"  # no control character survives a paste either


@needs_pty
def test_leaving_a_running_call_keeps_it_and_reopening_shows_arguments_and_result_then_history(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "long_operation")
    screen.send("backspace", "4", "tab", "backspace", "backspace", "300")  # 4 steps of 300 ms
    screen.send("ctrl-x")
    screen.wait_for("running")
    screen.send("esc")  # back to the list while it runs
    screen.wait_for(lambda t: "Tool: long_operation" not in screen.title_line(), what="the main screen")
    screen.wait_for(lambda t: "long_operation: Tool executed successfully." in screen.status_line(),
                    what="the result announced on the main screen")
    screen.send("enter")  # the filter still selects long_operation
    screen.wait_all("Tool: long_operation", "Done after 4 steps", "step_ms   300")
    screen.send("esc")
    screen.wait_for(lambda t: "Tool: long_operation" not in screen.title_line(), what="the main screen")
    screen.send("H")
    screen.wait_all("History", "long_operation", "ok", '{"steps": 4, "step_ms": 300}')
    screen.send("enter")
    screen.wait_all("Call: long_operation", "Status:    ok", "Done after 4 steps")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_ctrl_c_cancels_a_running_call_and_the_server_is_told(tui, tmp_path, era):
    record = tmp_path / "record.jsonl"
    screen = tui(server_command("--record", record), *ERAS[era], **SMALL)
    open_tool(screen, "long_operation")
    screen.send("backspace", "1000", "tab", "backspace", "backspace", "500")  # far too long to wait
    screen.send("ctrl-x")
    wait_for_progress(screen, 1000)
    screen.send("ctrl-c")
    screen.wait_for(lambda t: "cancelled" in t.split("-- Result")[1], what="the call cancelled")
    assert "Tool: long_operation" in screen.title_line()  # Ctrl+C stopped the call, not the app

    def cancelled_ids():
        lines = record.read_text().splitlines() if record.exists() else []
        messages = [json.loads(line).get("message") or {} for line in lines]
        calls = [m["id"] for m in messages if m.get("method") == "tools/call"]
        return calls, [m["params"]["requestId"] for m in messages if m.get("method") == "notifications/cancelled"]

    wait_for(lambda: cancelled_ids()[1], what="notifications/cancelled")
    calls, cancelled = cancelled_ids()
    assert cancelled == calls[-1:], (calls, cancelled)
    screen.send("ctrl-c")  # nothing runs now: Ctrl+C quits
    assert screen.wait_exit() == 130


@needs_pty
def test_a_resource_link_in_a_result_opens_with_ctrl_o(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "get_resource_link")
    screen.send("ctrl-o")
    screen.wait_for("The result links to no resource.")  # nothing run yet
    screen.send("ctrl-x")
    screen.wait_for("[resource link: test://static/hello.txt")
    screen.send("ctrl-o")
    screen.wait_all("Resource: test://static/hello.txt", "Hello, resource!")


def test_form_fields_check_formats_and_say_them_in_the_hint():
    schema = {"type": "object", "properties": {
        "mail": {"type": "string", "format": "email"}, "site": {"type": "string", "format": "uri"},
        "day": {"type": "string", "format": "date"}, "at": {"type": "string", "format": "date-time"},
        "ids": {"type": "array", "items": {"type": "integer"}}}}
    fields = mcp_tui.schema_fields(schema, titles=True)
    assert [f.hint() for f in fields] == ["(string: email address)", "(string: URI, e.g. https://...)",
                                          "(string: date YYYY-MM-DD)",
                                          "(string: date-time, e.g. 2026-07-28T09:30:00Z)",
                                          "(JSON array, or a,b,c of integer)"]
    form = mcp_tui.FieldList(fields)
    for field, bad, good in zip(fields, ["ada", "not a uri", "28.07.2026", "tomorrow", "1,x"],
                                ["ada@example.com", "https://example.com", "2026-07-28", "2026-07-28T09:30:00Z", "1,2"]):
        field.set_text(bad)
        with pytest.raises(mcp_tui.UsageError):
            form.collect()
        field.set_text(good)
    assert form.collect()["ids"] == [1, 2]


class FakeWindow:
    """get_wch() from a script: characters, then curses.error (nothing within the wait)."""

    def __init__(self, keys):
        self.keys = list(keys)

    def get_wch(self):
        if not self.keys:
            raise FakeCurses.error()
        return self.keys.pop(0)

    def timeout(self, ms):
        pass


class FakeCurses:
    class error(Exception):
        pass

    def unget_wch(self, key):
        pass


def read_all(keys):
    window = FakeWindow(keys)
    reader = mcp_tui.KeyReader(window, FakeCurses())
    found = []
    while window.keys:
        key = reader.read()
        found.append(key.text if isinstance(key, mcp_tui.Paste) else key)
    return found


def test_keys_after_esc_read_as_alt_sequences_or_a_paste():
    assert read_all(["\x1b"]) == ["ESC"]
    assert read_all(["\x1b", "b", "\x1b", "\x7f", "\x1b", "\t"]) == ["M-b", "M-BACKSPACE", "BTAB"]
    assert read_all(["\x1b", "[", "C", "\x1b", "O", "A", "\x1b", "[", "6", "~"]) == ["RIGHT", "UP", "PGDN"]
    paste = ["\x1b"] + list("[200~a\r\nb\x1b[201~") + ["x"]
    assert read_all(paste) == ["a\nb", "x"]


# The one tool asks for an email address (an elicitation field with a format).
EMAIL_HANDLERS = r"""
    elif method == "tools/call":
        call["id"] = message["id"]
        send({"jsonrpc": "2.0", "id": "e-1", "method": "elicitation/create", "params": {
              "mode": "form", "message": "Where should we write?", "requestedSchema": {"type": "object",
              "properties": {"email": {"type": "string", "title": "Email", "format": "email"}},
              "required": ["email"]}}})
    elif message.get("id") == "e-1":
        content = (message.get("result") or {}).get("content") or {}
        send({"jsonrpc": "2.0", "id": call["id"], "result": {"content": [{"type": "text",
              "text": "Subscribed " + str(content.get("email"))}]}})
"""


@needs_pty
def test_an_elicitation_field_checks_its_format_and_says_it_in_the_hint(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "subscribe", "description": "Asks for your email.",
                                        "inputSchema": {"type": "object"}}, EMAIL_HANDLERS)
    screen = tui(server, **SMALL)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for("Tool: subscribe")
    screen.send("ctrl-x")
    screen.wait_all("Where should we write?", "(string: email address)")
    screen.type("ada")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Email: not an email address" in screen.status_line(), what="the format refused")
    screen.type("@example.com")
    screen.send("ctrl-x")
    screen.wait_for("Subscribed ada@example.com")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_ctrl_c_cancels_a_call_over_http(tui, start_server, era):
    server = start_server()
    screen = tui(server.url, *ERAS[era], **SMALL)
    open_tool(screen, "long_operation")
    screen.send("backspace", "1000", "tab", "backspace", "backspace", "500")
    screen.send("ctrl-x")
    wait_for_progress(screen, 1000)
    screen.send("ctrl-c")
    screen.wait_for(lambda t: "cancelled" in t.split("-- Result")[1], what="the call cancelled")
    assert "broke" not in screen.text().split("-- Result")[1]  # the closed stream is the cancel, not a failure
    cancelled = [r for r in server.records() if (r.get("message") or {}).get("method") == "notifications/cancelled"]
    # 2025-11-25 says so with notifications/cancelled; 2026-07-28 closes the call's stream instead.
    assert bool(cancelled) == (era == "2025-11-25")
    screen.send("esc", "p")  # the session goes on
    screen.wait_for(lambda t: "ms round trip" in screen.status_line(), what="a ping after the cancel")
    screen.send("H")
    screen.wait_all("History", "long_operation", "cancelled")
    assert "failed" not in screen.text()


ECHO_ARGUMENTS_HANDLERS = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text",
              "text": "Got " + json.dumps(message["params"].get("arguments"))}]}})
"""
PAINTS = ["alabaster", "burnt-sienna", "cadmium-yellow", "cerulean", "indigo", "lamp-black", "prussian-blue",
          "raw-umber", "viridian", "zinc-white"]


@needs_pty
def test_a_multi_select_wider_than_the_screen_scrolls_to_the_option_under_the_cursor(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "mix", "description": "Mixes paints.", "inputSchema": {
        "type": "object", "properties": {"paints": {"type": "array", "items": {"enum": PAINTS}}}}},
        ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, **SMALL)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_all("Tool: mix", "[ ] alabaster")
    assert "zinc-white" not in screen.text()  # ten options do not fit in 80 columns
    screen.send(*["right"] * (len(PAINTS) - 1))
    screen.send(" ")  # ticks the last one: the user must see what the cursor is on
    screen.wait_for("[x] zinc-white", what="the last option, ticked, on screen")
    screen.send("ctrl-x")
    screen.wait_for('Got {"paints": ["zinc-white"]}')


class FakePdcurses(FakeCurses):
    """windows-curses' own key codes, as its module names them (PDCurses' curses.h values)."""
    ALT_A, ALT_B, ALT_F, ALT_0, ALT_BKSP, ALT_DEL, ALT_LEFT = 0x1A1, 0x1A2, 0x1A6, 0x197, 0x1F8, 0x1DE, 0x1E1
    KEY_A1, KEY_A2, KEY_A3, KEY_B1, KEY_B3, KEY_C1, KEY_C2, KEY_C3 = range(0x1C1, 0x1C9)
    PADENTER, PADSLASH, PADSTOP = 0x1CB, 0x1CA, 0x1D2


def test_pdcurses_alt_and_keypad_codes_read_as_the_keys_terminals_send():
    """Windows: Alt+b is ALT_B, not Esc b; the keypad with NumLock off sends KEY_A2... codes."""
    curses = FakePdcurses()
    keys = [curses.ALT_B, curses.ALT_F, curses.ALT_0, curses.ALT_BKSP, curses.ALT_DEL, curses.ALT_LEFT,
            curses.KEY_A1, curses.KEY_A2, curses.KEY_A3, curses.KEY_B1, curses.KEY_B3, curses.KEY_C1,
            curses.KEY_C2, curses.KEY_C3, curses.PADENTER, curses.PADSLASH, curses.PADSTOP]
    reader = mcp_tui.KeyReader(FakeWindow(keys), curses)
    assert [reader.read() for _ in keys] == [
        "M-b", "M-f", "M-0", "M-BACKSPACE", "M-DELETE", "M-LEFT",
        "HOME", "UP", "PGUP", "LEFT", "RIGHT", "END", "DOWN", "PGDN", "ENTER", "/", "DELETE"]
    # ncurses has no ALT_ names: its codes in that range stay whatever they were (here: nothing)
    assert mcp_tui.KeyReader(FakeWindow([0x1A2]), FakeCurses()).read() is None


class ResizeRecorder:
    """The app as the RESIZE key sees it: what it did to curses and the window."""

    def __init__(self, curses):
        self.curses, self.calls = curses, []
        self.window = self
        curses.resize_term = lambda rows, columns: self.calls.append(("resize_term", rows, columns))

    def clear(self):
        self.calls.append(("clear",))

    def resized(self):
        mcp_tui.Tui.resized(self)


def press_resize(curses):
    curses.KEY_RESIZE = 0x222
    name = mcp_tui.KeyReader(FakeWindow([curses.KEY_RESIZE]), curses).read()
    app = ResizeRecorder(curses)
    binding = next(binding for binding in mcp_tui.GLOBAL_KEYS if name in binding.codes)
    assert binding.action(app, name)
    return app.calls


def test_a_resize_on_pdcurses_resizes_curses_to_the_console_before_the_repaint():
    """PDCurses changes LINES/COLS only in resize_term(0, 0); ncurses did it already."""
    assert press_resize(FakePdcurses()) == [("resize_term", 0, 0), ("clear",)]
    assert press_resize(FakeCurses()) == [("clear",)]


class TerminalWriter:
    """The app's terminal writes, as a console with or without VT processing takes them."""

    def __init__(self, windows, enable_vt):
        self.terminal_sequences = mcp_tui.terminal_takes_sequences(windows=windows, enable_vt=enable_vt)

    def write_terminal(self, sequence):
        return mcp_tui.Tui.write_terminal(self, sequence)


def console_refusing_vt():
    raise OSError(87, "The parameter is incorrect")


def test_a_windows_console_without_vt_processing_gets_no_osc52_and_the_copy_says_so(capsys):
    for windows, enable_vt in ((True, console_refusing_vt), (True, lambda: False)):
        app = TerminalWriter(windows, enable_vt)
        assert mcp_tui.Tui.copy_to_clipboard(app, "mcp-tui x") is False
        assert capsys.readouterr().out == ""  # nothing painted over the screen
    assert mcp_tui.Tui.copy_to_clipboard(TerminalWriter(True, lambda: True), "hi") is True
    assert capsys.readouterr().out == "\x1b]52;c;aGk=\x07"
    posix = TerminalWriter(False, console_refusing_vt)  # never asked outside Windows
    assert mcp_tui.Tui.copy_to_clipboard(posix, "hi") is True
    assert capsys.readouterr().out == "\x1b]52;c;aGk=\x07"
