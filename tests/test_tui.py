"""The curses TUI, driven as a user would: the real mcp_tui.py in a pseudo-terminal against
tests/testserver.py, its screen read back with pyte. Every step waits for what the screen
shows (with a timeout), in both protocol eras where the flow differs between them.

The pure helpers behind the screens (quoting, forms, templates, text clipping) are tested
directly at the end, without a terminal."""
import json
import re
import shlex
import subprocess
import sys

import pytest

from tui_helpers import (ERAS, MCP_TUI, TESTSERVER, needs_pty, one_tool_server, open_tool,  # noqa: F401
                         quit_from_main, server_command, tui, wait_for_form, wait_for_progress)  # tui: a fixture

import mcp_tui
import testserver

TOOLS_TAB = "Tools (%d)" % len(testserver.TOOLS)  # the test server grows; count what it has
RESOURCES_TAB = "Resources (%d+%d)" % (len(testserver.RESOURCES), len(testserver.TEMPLATES))
PROMPTS_TAB = "Prompts (%d)" % len(testserver.PROMPTS)


# -- main screen -------------------------------------------------------------------------------


@needs_pty
def test_main_screen_lists_everything_with_counts_filters_and_quits_with_0(tui):
    screen = tui(server_command())
    screen.wait_all(TOOLS_TAB, RESOURCES_TAB, PROMPTS_TAB, "echo", "render_report",
                    "Returns the message it is given.")  # the last one: the detail pane of the first tool
    screen.send("/")
    screen.type("report")
    screen.wait_for(lambda t: " echo" not in t and "render_report" in t and "fail_report" in t,
                    what="only the report tools")
    screen.wait_all("Tools (3 of %d)" % len(testserver.TOOLS), PROMPTS_TAB)  # the tab's count follows its filter
    # (weather: "report") and says what it hides; not the others
    screen.send("esc")
    screen.wait_for(" echo")
    screen.send("4")
    screen.wait_all("Capabilities:", "Title:        mcp-tui test server")
    quit_from_main(screen)


@needs_pty
def test_list_changed_refreshes_the_tool_list(tui):
    screen = tui(server_command())
    open_tool(screen, "toggle_extra_tool")
    screen.send("ctrl-x")
    screen.wait_for("Added tool 'extra'")
    screen.send("esc", "esc")  # back to the list, and clear the filter
    screen.wait_for("Tools (%d)" % (len(testserver.TOOLS) + 1))
    screen.send("end")
    screen.wait_for("Tool: extra")


@needs_pty
def test_resources_templates_and_prompts_render(tui):
    screen = tui(server_command())
    screen.wait_for(RESOURCES_TAB)
    screen.send("2")
    screen.wait_for("Hello text")
    screen.send("enter")
    screen.wait_for("Hello, resource!")
    screen.send("q", "end", "enter")
    screen.wait_for("Template: Item")
    screen.type("7")
    screen.send("ctrl-x")
    screen.wait_for("Item 7")
    screen.send("esc", "3", "enter")
    screen.wait_for("Prompt: ")
    screen.type("Luca")
    screen.send("ctrl-x")
    screen.wait_for("Hello, Luca!")


# -- tool screen ---------------------------------------------------------------------------------


@needs_pty
def test_tool_form_types_q_executes_and_shows_the_result(tui):
    screen = tui(server_command())
    open_tool(screen, "echo")
    screen.type("quick quiet q")  # q in a text field is text, not "quit"
    screen.send("ctrl-x")
    text = screen.wait_for("Tool response:")
    assert "quick quiet q" in text.split("Tool response:")[1]
    screen.wait_for(lambda t: "Tool executed successfully." in t.splitlines()[-1], what="success on the status line")


@needs_pty
def test_required_fields_are_checked_before_sending(tui):
    screen = tui(server_command())
    open_tool(screen, "echo")
    screen.send("ctrl-x")
    screen.wait_for("message is required")
    assert "Tool response" not in screen.text()


@needs_pty
def test_execute_shows_progress_then_the_result(tui):
    screen = tui(server_command())
    open_tool(screen, "long_operation")
    screen.send("tab", "backspace", "backspace", "2", "0", "0")  # step_ms = 200
    screen.send("ctrl-x")
    wait_for_progress(screen, 3)
    screen.wait_for("Done after 3 steps")


@needs_pty
def test_copy_as_command_is_shell_safe_and_runs_as_copied(tui, tmp_path):
    screen = tui(server_command())
    open_tool(screen, "echo")
    message = """it's a "q" test; $(touch pwned) `x` \\ & | *"""
    screen.type(message)
    screen.send("ctrl-y")
    screen.wait_for("Copied: mcp-tui")
    screen.wait_for(lambda _: screen.clipboard() is not None, what="the OSC 52 clipboard sequence")
    command = screen.clipboard()
    assert command and command.startswith("mcp-tui ")
    words = shlex.split(command)
    assert words[-4:] == ["tool", "call", "echo", "message=" + message]
    result = subprocess.run([sys.executable, str(MCP_TUI)] + words[1:], capture_output=True, text=True,
                            timeout=30, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert message in result.stdout
    assert not (tmp_path / "pwned").exists()


# -- tasks ------------------------------------------------------------------------------------


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_task_mode_follows_render_report_and_the_tasks_screen_cancels(tui, era):
    screen = tui(server_command("--page-ms", "120"), *ERAS[era])
    open_tool(screen, "render_report")
    if era == "2026-07-28":
        screen.send("ctrl-t")  # a 2025-11-25 listing says taskSupport "required": the form opens in task mode
    screen.wait_for(lambda t: "[task mode]" in t.splitlines()[0], what="[task mode] in the title")
    screen.send("right", "right", "right")  # quarter: Q3
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "working" in t.splitlines()[-1], what="a working task on the status line")
    screen.wait_for(lambda t: "Q3 revenue: $4.9M across 1,433 orders" in t and "completed" in t.splitlines()[-1],
                    what="the result, and completed on the status line")
    screen.wait_for(lambda t: era in t.splitlines()[0], what="the era in the title")

    screen.send("down", "backspace", "backspace", "5", "0", "0")  # pages = 500: long enough to cancel
    screen.send("ctrl-x")
    screen.wait_for("Rendering page")
    screen.send("esc", "T")
    screen.wait_for("TTL LEFT")
    screen.wait_for(lambda t: "working" in t and "completed" in t, what="both tasks listed")
    screen.send("home", "c")  # the newest task is first
    screen.wait_for(lambda t: "Cancel task" in screen.status_line() and "y/n" in screen.status_line(),
                    what="the question before cancelling")
    screen.send("y")
    screen.wait_for(lambda t: "cancelled" in t.splitlines()[3], what="the task cancelled")
    screen.send("down", "enter")
    screen.wait_all("Q3 revenue", "TTL:", "Status:   completed")  # the detail fetches the finished task's result


@needs_pty
def test_a_cancel_question_stays_on_the_status_line_while_the_task_reports_progress(tui):
    """The task keeps saying "Rendering page N" on the status line while the y/n question
    waits; the question must stay readable until it is answered."""
    screen = tui(server_command("--page-ms", "60"))
    open_tool(screen, "render_report")
    screen.send("ctrl-t", "right", "down", "backspace", "backspace", "5", "0", "0")  # Q1, 500 pages: a long task
    screen.send("ctrl-x")
    screen.wait_for("Rendering page")
    screen.send("esc", "T")
    screen.wait_for(lambda t: len(t.splitlines()) > 3 and "working" in t.splitlines()[3], what="the task listed")
    screen.send("c")
    screen.wait_for(lambda t: "Cancel task" in screen.status_line(), what="the question")

    def page(text):  # the task row's progress; None while a frame is half drawn
        found = re.search(r"Rendering page (\d+)", text.splitlines()[3])
        return found and found.group(1)

    asked_at = page(screen.wait_for(page, what="the task's page"))
    screen.wait_for(lambda t: page(t) not in (None, asked_at), what="progress after the question")
    assert "Cancel task" in screen.status_line() and "y/n" in screen.status_line()
    screen.send("y")
    screen.wait_for(lambda t: "cancelled" in t.splitlines()[3], what="the task cancelled")


@needs_pty
@pytest.mark.parametrize("era,support", [("2026-07-28", "the server decides per call"), ("2025-11-25", "required")])
def test_the_tool_detail_says_what_task_support_means_in_the_sessions_form(tui, era, support):
    """Under the extension a listing carries no taskSupport and the server decides per call:
    "forbidden" there sent users away from the task mode that render_report needs."""
    screen = tui(server_command(), *ERAS[era])
    screen.wait_for("Tools (")
    screen.send("/")
    screen.type("render_report")
    screen.send("enter")
    screen.wait_all("Tool: render_report", "Task support: %s" % support)
    assert "Task support: forbidden" not in screen.text()


@needs_pty
def test_copy_as_command_quotes_a_dash_leading_name_and_its_controls_as_the_cli_does(tui, tmp_path):
    name = "-rf\x1b]0;TITLE\x07x\u202eevil"
    server = one_tool_server(tmp_path, {"name": name, "description": "Odd name.", "inputSchema": {
        "type": "object", "properties": {"m": {"type": "string"}}}}, """
    elif method == "tools/call":
        params = message["params"]
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [
            {"type": "text", "text": "called " + json.dumps([params["name"], params["arguments"]])}]}})
""")
    screen = tui(server)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for("Tool: -rfxevil")  # the title shows the name cleaned
    screen.type("-v")
    screen.send("ctrl-y")
    screen.wait_for(lambda _: screen.clipboard() is not None, what="the OSC 52 clipboard sequence")
    command = screen.clipboard()
    assert command == mcp_tui.command_line([server], ["tool", "call"], [name, "m=-v"])  # what the CLI writes
    assert command.endswith(" tool call -- $'-rf\\x1b]0;TITLE\\x07x\\u202eevil' m=-v"), command
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e]", command), command
    runnable = " ".join(shlex.quote(p) for p in (sys.executable, str(MCP_TUI))) + command[len("mcp-tui"):]
    result = subprocess.run(["bash", "-c", runnable], capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.split("called ", 1)[1]) == [name, {"m": "-v"}]


@needs_pty
def test_a_task_only_tool_on_a_server_without_tasks_says_it_cannot_be_called(tui, tmp_path):
    """FastMCP under 2025-11-25 lists taskSupport "required" but declares no tasks capability.
    Task mode is refused and a plain call is too: neither message may send the user to
    the other ("Ctrl+T turns task mode off" / "press Ctrl+T for task mode")."""
    server = one_tool_server(tmp_path, {"name": "render", "description": "Only as a task.", "inputSchema": {
        "type": "object"}, "execution": {"taskSupport": "required"}}, "")
    screen = tui(server, columns=120, rows=40)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "[task mode]" in screen.title_line(), what="the form, in task mode")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "cannot be called here" in screen.status_line(), what="task mode refused")
    assert "Ctrl+T" not in screen.status_line()
    screen.send("ctrl-t", "ctrl-x")
    screen.wait_for(lambda t: "Task mode: off" in t and "cannot be called here" in screen.status_line(),
                    what="the plain call refused")
    assert "Ctrl+T" not in screen.text()


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_elicitation_form_answers_ask_name(tui, era):
    screen = tui(server_command(), *ERAS[era])
    open_tool(screen, "ask_name")
    screen.send("ctrl-x")
    wait_for_form(screen, "Input requested", "Please enter your name.")
    screen.type("Ada q")
    screen.send("ctrl-x")
    screen.wait_for("Hello, Ada q!")
    screen.send("ctrl-x")
    wait_for_form(screen, "Input requested", "Please enter your name.")
    screen.send("tab", "right", "enter")  # the Decline button
    screen.wait_for("No name given (decline)")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_elicitation_inside_a_task(tui, era):
    screen = tui(server_command(), *ERAS[era])
    open_tool(screen, "ask_name")
    screen.send("ctrl-t", "ctrl-x")
    wait_for_form(screen, "Input requested", "Please enter your name.")
    screen.type("Grace")
    screen.send("enter", "enter")  # Enter moves to Accept, then presses it
    screen.wait_for("Hello, Grace!")


@needs_pty
def test_sampling_request_is_reviewed_and_answered(tui):
    screen = tui(server_command())
    open_tool(screen, "ask_model")
    screen.send("ctrl-x")
    wait_for_form(screen, "Sampling request", "Max tokens: 100")
    screen.wait_all("[user]", "What is the capital of France?")
    screen.type("Paris")
    screen.send("ctrl-x")
    screen.wait_for("The model said: Paris")


# The one tool asks, by URL-mode elicitation, to open a sign-in page.
URL_HANDLERS = r"""
    elif method == "tools/call":
        call["id"] = message["id"]
        send({"jsonrpc": "2.0", "id": "url-1", "method": "elicitation/create", "params": {
              "mode": "url", "elicitationId": "url-1", "message": "Sign in to continue.",
              "url": "https://auth.example.com/login?state=xyz"}})
    elif message.get("id") == "url-1":
        action = (message.get("result") or {}).get("action", "error")
        send({"jsonrpc": "2.0", "id": call["id"], "result": {"content": [{"type": "text",
              "text": "URL answer: " + action}]}})
"""


def url_request_shown(tui, tmp_path):
    """A TUI whose one tool's call asks to open a URL (URL_HANDLERS), at the URL request."""
    server = one_tool_server(tmp_path, {"name": "connect_account", "description": "Asks you to sign in.",
                                        "inputSchema": {"type": "object"}}, URL_HANDLERS)
    screen = tui(server, "--protocol-version", "2025-11-25")
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for("Tool: connect_account")
    screen.send("ctrl-x")
    wait_for_form(screen, "Open a URL?", "Sign in to continue.")
    return screen


@needs_pty
def test_url_elicitation_shows_the_url_and_opens_nothing_unless_asked(tui, tmp_path):
    screen = url_request_shown(tui, tmp_path)
    screen.wait_all("URL:  https://auth.example.com/login?state=xyz", "Host: auth.example.com")
    screen.send("ctrl-y")
    screen.wait_for("URL copied")
    assert screen.clipboard() == "https://auth.example.com/login?state=xyz"
    screen.send("right", "enter")  # Decline
    screen.wait_for("URL answer: decline")


@needs_pty
def test_hostile_server_strings_never_reach_the_terminal_raw(tui):
    badserver = TESTSERVER.parent / "badserver.py"
    if not badserver.exists():
        pytest.skip("tests/badserver.py is not in this tree")
    screen = tui(" ".join(shlex.quote(p) for p in [sys.executable, str(badserver), "--mode", "hostile"]))
    open_tool(screen, "evil")
    screen.type("hi")
    screen.send("ctrl-x")
    screen.wait_all("RESULT ARED B C", "TOOL-DESC ARED B C")  # the text survives, its escapes do not
    screen.send("esc", "4")
    screen.wait_all("Instructions:", "INSTRUCTIONS ARED B C")
    raw = bytes(screen.raw)
    for sequence in (b"\x1b]0;", b"\x1b]8;", b"\x1b]52;c;ZXZpbA==", b"\x1bP", b"\x9b", b"\x9d", b"\xe2\x80\xae"):
        assert sequence not in raw, sequence
    assert screen.screen.title == ""  # no server set the window title
    quit_from_main(screen)


# -- debug screen -----------------------------------------------------------------------------


@needs_pty
def test_debug_screen_shows_messages_and_key_8_keeps_task_status_notifications(tui):
    screen = tui(server_command("--page-ms", "20"))
    open_tool(screen, "render_report")
    screen.send("ctrl-t", "right", "tab", "backspace", "backspace", "2", "ctrl-x")
    screen.wait_for("Q1 revenue")
    screen.send("f12")
    screen.wait_all("Debug: Protocol", "tools/call")
    screen.send("2")
    screen.wait_for("subscriptions/acknowledged")
    screen.send("8")
    screen.wait_for(lambda t: "task status only" in t and "notifications/tasks" in t and "acknowledged" not in t,
                    what="only task status notifications")
    screen.send("enter")
    screen.wait_all("Debug entry", '"method": "notifications/tasks"', '"taskId": "task:')  # masked, as in the CLI


# -- connecting, resizing, quitting ---------------------------------------------------------


@needs_pty
def test_connection_screen_lists_config_servers_shows_failures_and_retries(tui, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('boom: missing API key\\n'); sys.exit(3)"]
    servers = {"broken": {"command": broken[0], "args": broken[1:]},
               "test": {"command": sys.executable, "args": [str(TESTSERVER)]}}
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    home = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    screen = tui(cwd=project, env=home)
    screen.wait_for("Servers from config files")
    screen.send(*["tab"] * 11 + ["enter"])  # past the fields and Connect, onto "broken"
    screen.wait_all("Could not connect", "boom: missing API key", "exited with code 3")
    screen.send("tab", "enter")  # the "test" server
    screen.wait_for(TOOLS_TAB)
    quit_from_main(screen)


@needs_pty
def test_a_config_entry_of_the_wrong_shape_is_listed_as_written_and_refused_in_one_line(tui, tmp_path):
    """"args" written as a string was listed split into characters (p y t h o n ...)."""
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"odd": {"command": "python3",
                                                                          "args": "server.py"}}}))
    screen = tui(cwd=project, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
                 columns=250)  # the status line holds the whole path
    screen.wait_for("  odd: python3  [")
    assert "s e r v e r" not in screen.text()
    screen.send(*["tab"] * 11 + ["enter"])  # past the fields and Connect, onto "odd"
    screen.wait_for(lambda t: t.splitlines()[-1].rstrip().endswith(".mcp.json: args is a string, not an array"),
                    what="the one-line refusal on the status line")


@needs_pty
def test_typed_connection_and_version_choice(tui):
    screen = tui()
    screen.wait_for("Connect")
    screen.type(server_command())
    screen.send("tab", "tab", "right", "right")  # protocol: the third choice
    screen.send("ctrl-x")
    screen.wait_for(lambda t: TOOLS_TAB in t and "2025-11-25" in t.splitlines()[0], what="a 2025-11-25 session")


@needs_pty
def test_works_at_80x24_and_follows_resizes(tui):
    screen = tui(server_command(), columns=80, rows=24)
    screen.wait_for(lambda t: TOOLS_TAB in t and "q quit" in t.splitlines()[22], what="the main screen in 80x24")
    screen.send("J", "J", "J")  # the detail pane scrolls; the list stays
    screen.wait_for(lambda t: "Tool: echo" not in t and " echo" in t, what="the detail pane scrolled")
    screen.send("K", "K", "K")
    screen.wait_for("Tool: echo")
    open_tool(screen, "add")
    screen.type("2")
    screen.send("tab")
    screen.type("40")
    screen.send("ctrl-x")
    screen.wait_all("Structured content:", '"sum": 42')
    screen.resize(120, 40)
    screen.wait_for(lambda t: "Esc back" in screen.lines()[38], what="the hints on row 39 of 40")
    screen.resize(30, 8)
    screen.wait_for("too small")
    screen.resize(80, 24)
    screen.wait_for(lambda t: "Esc back" in screen.lines()[22], what="the hints back on row 23")
    screen.send("esc")
    quit_from_main(screen)


@needs_pty
def test_ctrl_c_quits_with_130(tui):
    screen = tui(server_command())
    screen.wait_for(TOOLS_TAB)
    screen.send("ctrl-c")
    assert screen.wait_exit() == 130


def test_help_and_cli_calls_never_import_curses():
    code = ("import sys; sys.path.insert(0, %r); import mcp_tui\n"
            "try:\n    mcp_tui.main(['--help'])\nexcept SystemExit:\n    pass\n"
            "mcp_tui.main([%r, 'tool', 'list'])\n"
            "print('curses' in sys.modules)") % (str(MCP_TUI.parent), server_command())
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert result.stdout.strip().splitlines()[-1] == "False"


def test_without_curses_says_how_to_get_it_and_exits_1():
    code = ("import sys; sys.modules['curses'] = None; sys.path.insert(0, %r); import mcp_tui\n"
            "sys.exit(mcp_tui.main([%r]))") % (str(MCP_TUI.parent), server_command())
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "pip install windows-curses" in result.stderr


# -- the helpers behind the screens ----------------------------------------------------------


def test_copied_command_uses_key_value_only_where_the_cli_reads_it_back():
    spec = mcp_tui.ConnectionSpec("http", url="http://127.0.0.1:1/mcp",
                                  headers={"Authorization": "Bearer s3cret", "X-Team": "a b"}, protocol="2025-11-25")
    tool = {"name": "t", "inputSchema": {"properties": {"s": {"type": "string"}, "n": {"type": "integer"},
                                                        "at": {"type": "string"}, "o": {"type": "object"}}}}
    command = mcp_tui.tool_call_command(spec, tool, {"s": "x y", "n": 3, "at": "@etc/passwd", "o": {"k": [1]}}, True)
    words = shlex.split(command)
    assert "s3cret" not in command
    assert words[:9] == ["mcp-tui", "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: ${AUTHORIZATION}",
                         "--header", "X-Team: ${X_TEAM}", "--protocol-version", "2025-11-25"]
    assert words[9:] == ["--task", "--wait", "tool", "call", "t", "s=x y", "n:=3", 'at:="@etc/passwd"', 'o:={"k": [1]}']
    assert mcp_tui.parse_arguments(words[14:18], tool["inputSchema"]) == {
        "s": "x y", "n": 3, "at": "@etc/passwd", "o": {"k": [1]}}


def test_forms_cover_every_elicitation_field_type():
    schema = {"type": "object", "required": ["name", "colour"], "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "ok": {"type": "boolean", "default": True},
        "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["b"]},
        "picks": {"type": "array", "items": {"anyOf": [{"const": 1, "title": "One"}, {"const": 2, "title": "Two"}]}},
    }}
    fields = mcp_tui.schema_fields(schema, titles=True)
    kinds = [type(f).__name__ for f in fields]
    assert kinds == ["TextField", "TextField", "ChoiceField", "ChoiceField", "ChoiceField", "MultiChoiceField",
                     "MultiChoiceField"]
    form = mcp_tui.FieldList(fields)
    with pytest.raises(mcp_tui.UsageError, match="Name is required"):
        form.collect()
    fields[0].set_text("A")
    with pytest.raises(mcp_tui.UsageError, match="at least 2 characters"):
        form.collect()
    fields[0].set_text("Ada")
    with pytest.raises(mcp_tui.UsageError, match="colour is required"):
        form.collect()
    fields[3].on_key("G")  # a letter jumps to the option it starts
    fields[6].on_key("RIGHT")
    fields[6].on_key(" ")
    assert form.collect() == {"name": "Ada", "age": 30, "ok": True, "colour": "g", "tags": ["b"], "picks": [2]}


def test_uri_templates_expand():
    assert mcp_tui.template_variables("test://items/{id}{?q,page}") == ["id", "q", "page"]
    assert mcp_tui.expand_template("test://items/{id}{?q}", {"id": "a b", "q": "x&y"}) == "test://items/a%20b?q=x%26y"
    assert mcp_tui.expand_template("file://{+path}", {"path": "/tmp/a b"}) == "file:///tmp/a%20b"


def test_server_strings_cannot_escape_their_row():
    hostile = "ok\x1b[2J\x1b]52;c;cHduZWQ=\x07\u202e\r\nnext\u200d\ud800"
    row = mcp_tui.clean_line(hostile)
    assert "\x1b" not in row and "\n" not in row and "\r" not in row and "\u202e" not in row
    row.encode("utf-8")  # no lone surrogate left
    assert mcp_tui.clip("世界abc", 3) == "世" and mcp_tui.cells("世界") == 4
    assert mcp_tui.wrap_text("abcdef\nxy", 4) == ["abcd", "ef", "xy"]
