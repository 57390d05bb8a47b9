"""Issue 35's smaller TUI items, each through the app's keys (Enter in "Open a task" is in
test_tui_inspector): a status stays with its screen; Ctrl+Y copies --env as a ${VAR} and C keeps the Env;
Home/End reach a long result's ends; the footer shows ^S; at 40x12 the "more" markers cover no
field; a description cut short says so."""
import os
import re
import subprocess
import sys

from tui_helpers import (MCP_TUI, needs_pty, one_tool_server, open_tool, server_command,  # noqa: F401
                         tui, wait_for_tool_form)

SMALL = {"columns": 80, "rows": 24}
LONG_RESULT = r"""
    elif method == "tools/call":
        text = "\n".join("line %d" % number for number in range(1, 501))
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}})
"""


@needs_pty
def test_a_status_stays_with_the_screen_that_said_it(tui):
    screen = tui(server_command(), **SMALL)
    screen.wait_for("Tools (")
    screen.send("p")
    screen.wait_for(lambda t: "Ping:" in screen.status_line(), what="the ping's answer")
    screen.send("H")
    screen.wait_for(lambda t: "History" in screen.title_line(), what="the history screen")
    assert "Ping:" not in screen.status_line()
    screen.send("q")
    screen.wait_for(lambda t: "Ping:" in screen.status_line(), what="the main screen's news again")


@needs_pty
def test_ctrl_y_copies_env_as_a_variable_that_reproduces_the_call_and_c_keeps_the_env(tui, tmp_path):
    secret = "s3cret-value-42"
    screen = tui(server_command(), "--env", "MCP_DEMO_KEY=" + secret, columns=160, rows=30)
    open_tool(screen, "echo")
    screen.type("hi")
    screen.send("ctrl-y")
    status = screen.wait_for(lambda t: "Copied" in screen.status_line(), what="copied")
    assert "set $MCP_DEMO_KEY first" in screen.status_line(), status
    command = screen.clipboard()
    assert '--env MCP_DEMO_KEY="${MCP_DEMO_KEY}"' in command, command
    assert secret.encode() not in bytes(screen.raw)
    assert command.startswith("mcp-tui ")
    ran = subprocess.run(["sh", "-c", "%s %s" % (" ".join([sys.executable, str(MCP_TUI)]), command[len("mcp-tui "):])],
                         env=dict(os.environ, MCP_DEMO_KEY=secret, MCP_TUI_STATE_DIR=str(tmp_path)),
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "hi" in ran.stdout, ran
    screen.send("esc")
    screen.wait_for(lambda t: "y/n" in screen.status_line(), what="leave the form?")
    screen.send("y")
    screen.wait_for(lambda t: "Tool: echo" not in screen.title_line(), what="the main screen")
    screen.send("C")
    screen.wait_for("MCP_DEMO_KEY=${MCP_DEMO_KEY}")  # the value it stands for stays unseen
    assert secret.encode() not in bytes(screen.raw)
    screen.send("enter")  # connects again, with the kept value: the server still runs with it
    screen.wait_for(lambda t: "Reconnected" in screen.status_line() or "Connected" in screen.status_line(),
                    what="connected again")


@needs_pty
def test_home_and_end_reach_a_long_results_ends_and_the_footer_offers_save(tui, tmp_path):
    tool = {"name": "lines", "inputSchema": {"type": "object", "properties": {}}}
    screen = tui(one_tool_server(tmp_path, tool, LONG_RESULT), **SMALL)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    wait_for_tool_form(screen, "lines")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"^line 1 *$", t, re.M) and "^S save" in t, what="the result")
    assert "line 500" not in screen.text()
    screen.send("end")  # the focus is on a button: End is the result's
    screen.wait_for("line 500")
    screen.send("home")
    screen.wait_for(lambda t: re.search(r"^line 1 *$", t, re.M) and "line 500" not in t, what="the result's top")


MANY = {"name": "many", "description": "Takes many fields. " * 120, "inputSchema": {
    "type": "object", "properties": {"field%02d" % index: {"type": "string"} for index in range(1, 19)}}}
OK = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "ok"}]}})
"""


@needs_pty
def test_at_40x12_the_more_markers_cover_no_field_and_a_cut_description_says_so(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, MANY, OK), columns=40, rows=12)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "Tool: many" in screen.title_line(), what="the form")
    screen.wait_for("\u2193 more below")
    lines = screen.lines()
    marker = [line for line in lines if "more below" in line][0]
    assert "field" not in marker and marker.strip() == "\u2193 more below", lines
    assert lines[1].startswith("Takes many fields.") and lines[1].rstrip().endswith("\u2026") or any(
        line.rstrip().endswith("\u2026") for line in lines[1:4]), lines
    screen.send(*["tab"] * 8)
    screen.wait_for("\u2191 more above")
    lines = screen.lines()
    for line in lines:
        if "more above" in line or "more below" in line:
            assert "field" not in line, lines
