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


@needs_pty
def test_a_session_bound_task_from_an_earlier_cli_run_opens_with_its_tool(cli, start_server, state_dir):
    """--fidelity keeps 2025-11-25 tasks per HTTP session, as the everything server does: the
    TUI resumes the session the ledger recorded, as `task get` does."""
    from taskhelpers import created_task
    from tui_helpers import TuiSession

    pytest.importorskip("pyte")
    server = start_server("--fidelity")
    legacy = ["--url", server.url, "--protocol-version", "2025-11-25"]
    task_id = created_task(cli(*legacy, "tool", "call", "render_report", "quarter=Q2", "pages=1", "--task"))
    screen = TuiSession(legacy, env={"MCP_TUI_STATE_DIR": str(state_dir)}, **SMALL)
    try:
        screen.wait_for("Tools (")
        screen.send("T")
        screen.wait_all("TOOL / TASK", "From earlier runs")
        screen.send("o")
        screen.wait_for("Open a task")
        screen.paste(task_id)
        screen.send("ctrl-x")
        screen.wait_all("Status:   ", "Tool:     render_report")
        assert "Task not found" not in screen.text()
        screen.wait_for("Q2 revenue: $4.6M")  # its result, fetched in that session
    finally:
        screen.close()
