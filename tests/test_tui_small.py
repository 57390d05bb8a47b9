"""The TUI's small things: a long form says there is more below, and scrolls back after a
resize; / starts a new filter that stays on its tab; a status goes with its screen; the
history re-runs a call or loads it back into the form; q asks while calls run."""
import re

from tui_helpers import (needs_pty, one_tool_server, open_tool, server_command, tui,  # noqa: F401 (tui: a fixture)
                         wait_for_progress)

SMALL = {"columns": 80, "rows": 24}
MANY = {"name": "many", "inputSchema": {"type": "object", "properties": {
    "field%02d" % index: {"type": "string"} for index in range(1, 19)}}}
ECHO_HANDLERS = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "ok"}]}})
"""


@needs_pty
def test_a_long_form_marks_the_fields_off_screen_and_scrolls_back_after_a_resize(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, MANY, ECHO_HANDLERS), **SMALL)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "Tool: many" in screen.title_line(), what="the form")
    screen.wait_for("\u2193 more below")
    assert "\u2191 more above" not in screen.text()
    screen.send(*["tab"] * 17)  # onto field18, the last
    screen.wait_for(lambda t: "field18" in t and "\u2191 more above" in t, what="scrolled down, more above")
    assert "field01" not in screen.text()
    screen.resize(120, 50)  # room for every field: the form shows from the top again
    screen.wait_for(lambda t: "field01" in t and "field18" in t and "more above" not in t, what="re-scrolled")


@needs_pty
def test_slash_starts_a_new_filter_and_a_filter_stays_on_its_tab(tui):
    screen = tui(server_command(), **SMALL)
    screen.wait_for("Tools (")
    listed = screen.wait_for(lambda t: re.search(r"Resources \(\d+\+\d+\)", t), what="the resources listed")
    resources = re.search(r"Resources \(\d+\+\d+\)", listed).group(0)
    screen.send("/")
    screen.type("report")
    screen.send("enter")
    screen.wait_for("Tools (3 of ")
    screen.send("/")  # a new filter: "echo", not "reportecho"
    screen.type("echo")
    screen.send("enter")
    screen.wait_for(lambda t: "Tools (1 of " in t and " echo" in t and "No match" not in t, what="echo alone")
    assert resources in screen.text()  # the Tools filter does not narrow the other tabs
    screen.send("2")
    screen.wait_for(lambda t: "No match" not in t and "/ echo" not in t, what="the resources unfiltered")


@needs_pty
def test_a_status_goes_with_its_screen(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("hi")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call's status")
    screen.send("esc")
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line(), what="the main screen")
    screen.wait_for(lambda t: "Tool executed successfully." not in screen.status_line(), what="the status gone")


@needs_pty
def test_history_loads_a_call_back_into_the_form_and_runs_it_again(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "echo")
    screen.type("first words")
    screen.send("ctrl-x")
    screen.wait_for("Tool response:")
    screen.send("ctrl-u")  # the form no longer holds them
    screen.send("esc")
    screen.send("y")  # discard the edit
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line(), what="the main screen")
    screen.send("H")
    screen.wait_all("History", '{"message": "first words"}')
    screen.send("e")
    screen.wait_for(lambda t: "Tool: echo" in screen.title_line() and "first words" in t and "^X runs it" in t,
                    what="the arguments back in the form")
    screen.send("esc")
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line(), what="back")
    screen.send("H")
    screen.wait_for("History")
    screen.send("r")  # run again, as it was
    screen.wait_for(lambda t: "Tool: echo" in screen.title_line() and "Tool executed successfully." in t,
                    what="run again")
    screen.send("esc", "H")
    screen.wait_for(lambda t: t.count('{"message": "first words"}') == 2, what="two calls in the history")


@needs_pty
def test_q_asks_before_quitting_while_a_call_runs(tui):
    screen = tui(server_command(), **SMALL)
    open_tool(screen, "long_operation")
    screen.send("backspace", "1000", "tab", "backspace", "backspace", "500")
    screen.send("ctrl-x")
    wait_for_progress(screen, 1000)
    screen.send("esc")  # the call goes on
    screen.wait_for(lambda t: "Tool: long_operation" not in screen.title_line(), what="the main screen")
    screen.send("q")
    screen.wait_for(lambda t: "1 call still running; quit anyway? y/n" in screen.status_line(), what="the question")
    screen.send("n")
    screen.wait_for(lambda t: "Kept." in screen.status_line(), what="still here")
    screen.send("q")
    screen.wait_for(lambda t: "quit anyway?" in screen.status_line(), what="asked again")
    screen.send("y")
    assert screen.wait_exit() == 0


@needs_pty
def test_f9_records_the_messages_of_a_call_to_a_file_that_replays_clean(tui, tmp_path):
    """F9 starts and stops a recording in the working directory, as --record writes one;
    `replay` sends its tools/call again and finds the same answer (issue 26)."""
    import json
    import os
    import stat
    import subprocess
    import sys

    from tui_helpers import MCP_TUI

    screen = tui(server_command(), cwd=tmp_path, **SMALL)
    screen.wait_for("Tools (")
    screen.send("f9")
    started = screen.wait_for(lambda t: "Recording to mcp-tui-" in screen.status_line(), what="recording")
    path = tmp_path / re.search(r"(mcp-tui-\d{8}-\d{6}\.jsonl)", started).group(1)
    open_tool(screen, "echo")
    screen.type("hi")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call")
    screen.send("f9")
    screen.wait_for(lambda t: "Recording stopped" in screen.status_line(), what="recording stopped")
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o600
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    calls = [line for line in lines if line.get("message", {}).get("method") == "tools/call"]
    assert [call["direction"] for call in calls] == ["out"] and calls[0]["message"]["params"]["name"] == "echo"
    replayed = subprocess.run([sys.executable, str(MCP_TUI), server_command(), "replay", str(path)], timeout=60,
                              capture_output=True, text=True, env=dict(os.environ, MCP_TUI_STATE_DIR=str(tmp_path)))
    assert replayed.returncode == 0, replayed
    assert re.search(r"\d+ requests?: \d+ same, 0 different", replayed.stdout + replayed.stderr), replayed


@needs_pty
def test_f9_takes_a_new_file_and_never_one_planted_under_its_name(tui, tmp_path):
    """The name F9 records to is predictable: another user who made it first (a link to a
    file of the user's, here for every second of the next minute) gets a name passed by,
    never written through (issue 31); the stop says where the recording is."""
    import os
    import stat
    import time

    victim = tmp_path / "victim.txt"
    victim.write_text("the victim's own\n")
    now = time.time()
    planted = [time.strftime("mcp-tui-%Y%m%d-%H%M%S.jsonl", time.localtime(now + delta)) for delta in range(-2, 60)]
    for name in planted:
        os.symlink(str(victim), str(tmp_path / name))
    screen = tui(server_command(), cwd=tmp_path, columns=220, rows=24)  # room for the whole path
    screen.wait_for("Tools (")
    screen.send("f9")
    # The whole name, not its start: the screen may be read while curses is still drawing the line.
    recording = re.compile(r"Recording to \S*(mcp-tui-\d{8}-\d{6}-1\.jsonl)")
    name = recording.search(screen.wait_for(recording.search, what="recording to the next free name")).group(1)
    screen.send("f9")
    screen.wait_for(lambda t: "Recording stopped: %s." % (tmp_path / name) in screen.text(), what="where it is")
    assert victim.read_text() == "the victim's own\n"
    info = os.lstat(str(tmp_path / name))
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert (tmp_path / name).read_text().startswith('{"recording"')
