"""The TUI's forms send what the user meant: a null default is left out (JSON null only on
^N), formats and limits are checked at every depth as the CLI checks them, and a text area
holds newlines and tabs. Driven in a pseudo-terminal against small stdio servers."""
import pytest

from tui_helpers import needs_pty, one_tool_server, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}
CTRL_N = "\x0e"
ECHO_ARGUMENTS_HANDLERS = r"""
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text",
              "text": "Got " + json.dumps(message["params"].get("arguments"), sort_keys=True)}]}})
"""


def open_only_tool(screen, name):
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for("Tool: %s" % name)


@needs_pty
def test_a_null_default_is_left_out_and_ctrl_n_sends_json_null(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "jot", "inputSchema": {"type": "object", "properties": {
        "text": {"type": "string"},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}}}}, ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, **SMALL)
    open_only_tool(screen, "jot")
    note_row = screen.text().split("note", 1)[1].splitlines()[0]
    assert note_row.strip() == "(string or null)"  # the placeholder: empty, not the text "null"
    screen.type("hi")
    screen.send("ctrl-x")
    screen.wait_for('Got {"text": "hi"}')
    screen.send("tab", CTRL_N)  # on note: an explicit JSON null
    screen.wait_for("null (JSON null)")
    screen.send("ctrl-x")
    screen.wait_for('Got {"note": null, "text": "hi"}')
    screen.send(CTRL_N)  # cleared again; typing "null" is the text
    screen.wait_gone("null (JSON null)")
    screen.type("null")
    screen.send("ctrl-x")
    screen.wait_for('Got {"note": "null", "text": "hi"}')
