"""What Inspector users look for in the TUI: ping, the log level with a log pane and a
toast, completion, subscriptions and saving, roots, -32042, the tasks screen's details, the
debug screen's search, and the scale bench. At 80x24, in a pseudo-terminal, in both eras."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import mcp_tui
from tui_helpers import ERAS, needs_pty, one_tool_server, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_ping_shows_the_round_trip_time(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    screen.send("p")
    screen.wait_for(lambda t: "Ping: " in screen.status_line() and "ms round trip" in screen.status_line(),
                    what="the ping's round trip time")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_log_level_brings_server_logs_as_a_toast_and_to_the_logs_tab(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    screen.send("L")
    screen.wait_all("Log level", "Server log messages from this level up:", "emergency")
    screen.send("home", "enter")  # debug: everything
    screen.wait_for(lambda t: "Log level: debug" in screen.status_line(), what="the level set")
    open_tool(screen, "log_message")
    screen.send("right", "right", "tab")  # level: warning (from the default, info)
    screen.type("disk almost full")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "[warning] log_message: disk almost full" in screen.lines()[-2],
                    what="the toast over the key hints")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the result's status kept")
    screen.send("f12", "3")
    screen.wait_all("Debug: Logs", "[warning] log_message: disk almost full")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_logs_sent_before_a_level_is_set_keep_the_key_hints_and_reach_the_logs_tab(tui, era):
    """The everything server logs every few seconds unasked: as toasts, they would cover the key hints for good."""
    screen = tui(server_command("--fidelity"), *ERAS[era], **SMALL)  # --fidelity: log_message logs unasked
    open_tool(screen, "log_message")
    hints = screen.lines()[-2]
    assert "^X execute" in hints, screen.text()
    screen.send("right", "right", "tab")  # level: warning
    screen.type("disk almost full")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call's result")
    # the log came first, on the same stream; the hints are the form's, with ^S save now that a result is in
    assert screen.lines()[-2].split() == hints.replace("Tab move", "^S save").split(), screen.text()
    screen.send("f12", "3")
    screen.wait_all("Debug: Logs", "[warning] log_message: disk almost full")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_tasks_screen_at_80_columns_shows_the_task_explains_the_star_and_opens_a_task_by_id(tui, tmp_path, era):
    record = tmp_path / "record.jsonl"
    screen = tui(server_command("--page-ms", "20", "--record", record), *ERAS[era], **SMALL)
    open_tool(screen, "render_report")
    if "[task mode]" not in screen.title_line():
        screen.send("ctrl-t")
    screen.send("right", "tab", "backspace", "backspace", "2", "ctrl-x")  # Q1, 2 pages
    screen.wait_for("Q1 revenue")
    screen.send("esc", "T")
    screen.wait_all("* followed here", "TOOL / TASK", "render_report", "Tasks refreshed")
    row = [line for line in screen.lines() if "render_report" in line][0]
    assert row.split()[0] == "completed" and row.split()[1].startswith("report-")  # the task, at 80 columns
    screen.send("c")  # an ended task: nothing to cancel, nothing asked
    screen.wait_for(lambda t: "nothing to cancel" in screen.status_line(), what="no cancel on an ended task")
    assert "c cancel" not in screen.lines()[-2]
    task_ids = [task_id for line in record.read_text().splitlines() for task_id in task_ids_sent(json.loads(line))]
    screen.send("o")
    screen.wait_for("Open a task")
    screen.paste(task_ids[-1])
    screen.send("ctrl-x")
    screen.wait_all("Status:   completed", "Q1 revenue")


@needs_pty
@pytest.mark.parametrize("submit", ["ctrl-x", "enter"])  # Enter in the line opens too, as the footer says (issue 35)
def test_opening_an_unknown_task_id_says_so_on_the_open_form(tui, submit):
    """The error stays readable and the ID editable: the tasks screen underneath refreshes
    when it is shown again, and its "Tasks refreshed" used to write over the error."""
    screen = tui(server_command(), **SMALL)
    screen.wait_for("Tools (")
    screen.send("T")
    screen.wait_for("TOOL / TASK")
    screen.send("o")
    screen.wait_for("Open a task")
    screen.type("no-such-task")
    screen.send(submit)
    screen.wait_for(lambda t: "Task not found" in screen.status_line() and "Open a task" in screen.title_line(),
                    what="the error, on the form that is still open")
    screen.send("ctrl-u")
    screen.type("still-editable")
    screen.wait_for("still-editable")


def task_ids_sent(record):
    """The task IDs a recorded client message names: a task followed by polls (tasks/get,
    tasks/result) or, when its status came by notification, by subscriptions/listen."""
    message = record.get("message") or {}
    params = message.get("params") or {}
    if message.get("method") in ("tasks/get", "tasks/result"):
        return [params["taskId"]]
    if message.get("method") == "subscriptions/listen":
        return list((params.get("notifications") or {}).get("taskIds") or [])
    return []


@needs_pty
def test_debug_screen_searches_and_opens_a_long_entry_whole(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("needle-" + "x" * 150 + " end-of-it")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call")
    screen.send("f12")
    screen.wait_for("Debug: Protocol")
    screen.send("/")
    screen.type("needle")
    screen.send("enter")
    screen.wait_for(lambda t: "/ needle" in t and "tools/list" not in t and "tools/call" in t, what="only the call")
    screen.send("enter")
    screen.wait_all("Debug entry", "end-of-it")  # the whole entry, wrapped, not cut at the row's end


def test_text_wraps_at_word_boundaries():
    assert mcp_tui.wrap_text("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
    assert mcp_tui.wrap_text("a verylongwordhere ok", 8) == ["a", "verylong", "wordhere", "ok"]


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_tab_completes_prompt_arguments_and_template_variables(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    screen.wait_for("Prompts (")
    screen.send("3")
    screen.wait_for("code_review")  # the tab is filled: End can reach its last prompt
    screen.send("end", "enter")  # code_review(language, code)
    screen.wait_for("Prompt: code_review")
    screen.type("r")
    screen.send("tab")
    screen.wait_all("Completions for language", "  rust", "  ruby")
    screen.send("tab")
    screen.wait_for("language*  rust")
    screen.send("tab")
    screen.wait_for("language*  ruby")
    screen.send("ctrl-u")
    screen.type("g")
    screen.send("tab")
    screen.wait_for(lambda t: "Completed language." in screen.status_line() and "language*  go" in t,
                    what="the one value filled in")
    screen.send("ctrl-x")
    screen.wait_for("Please review my go code.")
    screen.wait_for(lambda t: screen.status_line().startswith("Got prompt code_review."), what="the prompt's status")
    screen.send("esc", "2")
    screen.wait_for(" Item")
    screen.send("end", "enter")  # the item template
    screen.wait_for("Template: Item")
    screen.type("2")
    screen.send("tab")
    screen.wait_all("Completions for id", "  20")
    screen.send("tab", "tab")
    screen.wait_for("id*  20")
    screen.send("ctrl-x")
    screen.wait_for("Item 20")
    screen.wait_for(lambda t: screen.status_line().startswith("Read test://items/20."), what="the read's status")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_roots_editor_changes_what_the_server_gets_and_announces_it(tui, tmp_path, era):
    record = tmp_path / "record.jsonl"
    project = tmp_path / "project"
    project.mkdir()
    screen = tui(server_command("--record", record), *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    screen.send("R")
    screen.wait_all("Roots offered", "None. Press a")
    screen.send("a")
    screen.wait_for("Add a root")
    screen.paste(str(project))
    screen.send("ctrl-x")
    screen.wait_all("Roots changed (1)", "project  file:///")
    announced = [line for line in record.read_text().splitlines() if "notifications/roots/list_changed" in line]
    assert bool(announced) == (era == "2025-11-25")  # 2026-07-28 has no such notification
    screen.send("q")
    open_tool(screen, "list_roots")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: project.as_uri() in "".join(line.rstrip() for line in t.split("Tool response:")[-1]
                                                           .splitlines()), what="the new root listed (wrapped)")
    screen.send("esc", "R", "d")
    screen.wait_for(lambda t: "Remove root" in screen.status_line(), what="the question")
    screen.send("y")
    screen.wait_for("Roots changed (0)")


# The one tool fails with -32042: a URL must be opened first.
URL_REQUIRED_HANDLERS = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32042,
              "message": "This request requires more information.", "data": {"elicitations": [{
              "mode": "url", "elicitationId": "e1", "url": "https://mail.example.com/authorize?x=1",
              "message": "Authorize access to your mailbox."}]}}})
"""


@needs_pty
def test_a_32042_error_shows_the_url_and_its_host_and_opens_nothing_without_consent(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "fetch_mail", "description": "Needs an authorised mailbox.",
                                        "inputSchema": {"type": "object"}}, URL_REQUIRED_HANDLERS)
    screen = tui(server, "--protocol-version", "2025-11-25", **SMALL)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for("Tool: fetch_mail")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: screen.title_line().startswith(" Open a URL?"), what="the URL screen")
    screen.wait_all("Authorize access to your mailbox.", "URL:  https://mail.example.com/authorize?x=1",
                    "Host: mail.example.com")
    screen.send("right", "enter")  # Decline
    screen.wait_for(lambda t: "URL request: decline. When you are done there, ^X sends the request again."
                    in screen.status_line(), what="the retry hint")
    screen.wait_all("Tool: fetch_mail", "needs 1 URL(s) opened first")


def subscribe_to_hello(screen):
    """From the main screen: open test://static/hello.txt and subscribe (s) to it."""
    screen.wait_for("Resources (")
    screen.send("2")
    screen.wait_for("Hello text")
    screen.send("enter")
    screen.wait_for("Hello, resource!")
    screen.send("s")
    screen.wait_for(lambda t: "Subscribed to test://static/hello.txt." in screen.status_line(), what="subscribed")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_a_subscribed_resource_is_marked_when_it_changes_and_its_contents_save(tui, tmp_path, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    subscribe_to_hello(screen)
    assert "[subscribed]" in screen.title_line()
    screen.send("w")
    screen.wait_for("Save contents")
    screen.send("ctrl-u")
    screen.paste(str(tmp_path))
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Saved " in screen.status_line(), what="saved")
    assert (tmp_path / "hello.txt").read_text() == "Hello, resource!"
    screen.send("q", "1")
    open_tool(screen, "touch_resource")
    screen.type("test://static/hello.txt")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the tool's result")
    screen.send("esc", "esc", "2")
    screen.wait_for(lambda t: "*Hello text" in t, what="the * marker on the changed resource")
    screen.send("enter")  # reading it again clears the mark
    screen.wait_for("[subscribed]")
    screen.send("s")
    screen.wait_for(lambda t: "Unsubscribed from test://static/hello.txt." in screen.status_line(), what="ended")


@needs_pty
def test_a_resource_that_keeps_changing_is_announced_once_until_it_is_read_again(tui):
    """The everything server updates a subscribed resource every 5 s: a toast for each, each
    shown for 5 s, hid the key hints for as long as the subscription lasted."""
    screen = tui(server_command(), "--protocol-version", "2025-11-25", **SMALL)  # stdio: the update comes first
    subscribe_to_hello(screen)
    screen.send("q", "1")
    open_tool(screen, "touch_resource")
    screen.type("test://static/hello.txt")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Resource updated: test://static/hello.txt" in screen.lines()[-2], what="the toast")
    screen.wait_for(lambda t: "Esc back" in screen.lines()[-2], what="the key hints back", timeout=60)
    screen.send("ctrl-y")  # a status of its own, so that the next "Tool executed" is the second call's
    screen.wait_for(lambda t: "Tool executed" not in screen.status_line(), what="another status")
    screen.send("ctrl-x")  # the same resource changes again before anyone read it
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the second call's result")
    assert "Esc back" in screen.lines()[-2]


@needs_pty
def test_a_tool_results_image_saves_decoded(tui, tmp_path):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "get_image")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the image")
    screen.send("ctrl-s")
    screen.wait_all("Save contents", "image/png")
    screen.send("ctrl-u")
    screen.paste(str(tmp_path / "out"))  # made when missing
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Saved " in screen.status_line(), what="saved")
    saved = list((tmp_path / "out").iterdir())
    assert len(saved) == 1 and saved[0].read_bytes().startswith(b"\x89PNG")


@needs_pty
def test_a_text_result_saves_as_a_txt_file(tui, tmp_path):
    """Text blocks seldom carry a mimeType; they are text all the same, not a .bin of unknown type."""
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("saved words")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the result")
    screen.send("ctrl-s")
    screen.wait_all("Save contents", "text  text/plain")
    screen.send("ctrl-u")
    screen.paste(str(tmp_path / "out"))
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Saved " in screen.status_line(), what="saved")
    assert [(p.name, p.read_text()) for p in (tmp_path / "out").iterdir()] == [("text-1.txt", "saved words")]


@needs_pty
def test_the_tasks_screen_lists_this_servers_tasks_from_earlier_runs(tui, start_server):
    # 2026-07-28: no tasks/list, so only the ledger knows the first run's task (a 2025-11-25
    # server may list it again, and then it shows as one of the session's own).
    server = start_server("--page-ms", "20")
    first = tui(server.url, **SMALL)
    open_tool(first, "render_report")
    first.send("ctrl-t", "right", "tab", "backspace", "backspace", "2", "ctrl-x")
    first.wait_for("Q1 revenue")
    first.send("esc", "q")
    assert first.wait_exit() == 0
    second = tui(server.url, **SMALL)  # the same state directory
    second.wait_for("Tools (")
    second.send("T")
    second.wait_all("From earlier runs", "fp ", "render_report")


def test_the_scale_bench_runs_and_prints_its_figures():
    bench = Path(__file__).resolve().parent / "bench" / "tui_scale.py"
    result = subprocess.run([sys.executable, str(bench), "--tools", "300", "--rate", "300", "--seconds", "0.5"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "300 tools, 80x24:" in result.stdout and "target: at most 16 ms per key" in result.stdout
    assert " sent, 0 still queued at the end" in result.stdout  # the loop keeps up with the flood
