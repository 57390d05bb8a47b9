"""The TUI's forms send what the user meant: a null default is left out (JSON null only on
^N), formats and limits are checked at every depth as the CLI checks them, and a text area
holds newlines and tabs. Driven in a pseudo-terminal against small stdio servers."""
import pytest

import mcp_tui

from tui_helpers import needs_pty, one_tool_server, tui, wait_for_tool_form  # noqa: F401 (tui: a fixture)

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
    wait_for_tool_form(screen, name)


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


@needs_pty
def test_formats_and_limits_are_checked_at_every_depth_before_sending(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "ship", "inputSchema": {"type": "object", "properties": {
        "when": {"type": "string", "format": "date"},
        "address": {"type": "object", "properties": {"zip": {"type": "integer", "maximum": 99999},
                                                     "code": {"type": "string", "pattern": "^[A-Z]{2}$"}}}}}},
        ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, **SMALL)
    open_only_tool(screen, "ship")
    screen.type("2024-02-30")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "when: not a date (YYYY-MM-DD)" in screen.status_line(), what="February 30 refused")
    screen.send("ctrl-u")
    screen.type("2024-02-29")
    screen.send("tab")  # address.zip: the object's fields are fields of the form
    screen.type("100000")
    screen.send("tab")
    screen.type("DE")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "address.zip: at most 99999" in screen.status_line(), what="the nested limit")
    screen.send("ctrl-u")
    screen.type("12345")
    screen.send("tab", "ctrl-u")
    refused_then_sent(screen, "de", "address.code: does not match the pattern ^[A-Z]{2}$", "DE",
                      'Got {"address": {"code": "DE", "zip": 12345}, "when": "2024-02-29"}')


def refused_then_sent(screen, wrong, refusal, right, sent):
    """``wrong`` typed into the focused field, Ctrl+X: the status line says ``refusal``; then
    ``right`` in its place, and Ctrl+X sends what the server echoes as ``sent``."""
    screen.type(wrong)
    screen.send("ctrl-x")
    screen.wait_for(lambda t: refusal in screen.status_line(), what=refusal)
    screen.send("ctrl-u")
    screen.type(right)
    screen.send("ctrl-x")
    screen.wait_for(sent)


@needs_pty
def test_a_nested_object_is_a_field_for_each_of_its_properties(tui, tmp_path):
    """address.street and address.zip are fields; address is left out while none is set,
    and a required one of them is required once one is; an object without properties is
    JSON typed in, as before."""
    server = one_tool_server(tmp_path, {"name": "mail", "inputSchema": {"type": "object", "properties": {
        "to": {"type": "string"},
        "address": {"type": "object", "required": ["street"], "properties": {
            "street": {"type": "string"}, "zip": {"type": "integer"}}},
        "extra": {"type": "object"}}, "required": ["to"]}}, ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, columns=120, rows=24)  # the whole result on one line
    open_only_tool(screen, "mail")
    screen.wait_all("address.street", "address.zip", "JSON object")
    screen.type("ada")
    screen.send("ctrl-x")
    screen.wait_for('Got {"to": "ada"}')  # no empty address
    screen.send("tab", "tab")  # address.zip
    screen.type("12345")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "address.street is required" in screen.status_line(), what="the required sub-field")
    screen.type("Main St 1")  # the focus went to address.street
    screen.send("tab", "tab")  # extra: JSON
    screen.paste('{"note": "x"}')
    screen.send("ctrl-x")
    screen.wait_for('Got {"address": {"street": "Main St 1", "zip": 12345}, "extra": {"note": "x"}, "to": "ada"}')


OPTIONAL_ADDRESS = {"anyOf": [{"type": "object", "required": ["street"], "properties": {
    "street": {"type": "string"}, "zip": {"type": "integer", "maximum": 99999}}}, {"type": "null"}], "default": None}


@needs_pty
def test_an_optional_nested_object_gets_a_field_for_each_property_and_its_checks(tui, tmp_path):
    """anyOf [object, null] (pydantic's Optional[Model]) is a form like a plain nested object:
    left out while none of its fields is set, or JSON null when it is required; its fields'
    limits are checked before sending."""
    server = one_tool_server(tmp_path, {"name": "mail", "inputSchema": {"type": "object", "properties": {
        "to": {"type": "string"}, "address": OPTIONAL_ADDRESS,
        "billing": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {
            "iban": {"type": "string", "pattern": "^[A-Z]{2}[0-9]+$"}}}]}},
        "required": ["to", "billing"]}}, ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, columns=120, rows=24)  # the whole result on one line
    open_only_tool(screen, "mail")
    screen.wait_all("address.street", "address.zip", "billing.iban")
    screen.type("ada")
    screen.send("ctrl-x")
    screen.wait_for('Got {"billing": null, "to": "ada"}')  # no address; the required billing as null
    screen.send("tab", "tab")  # address.zip
    screen.type("100000")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "address.street is required" in screen.status_line(), what="the required sub-field")
    screen.type("Main St 1")  # the focus went to address.street
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "address.zip: at most 99999" in screen.status_line(), what="the nested limit")
    screen.send("ctrl-u")
    screen.type("12345")
    screen.send("tab")  # billing.iban
    refused_then_sent(screen, "de1", "billing.iban: does not match the pattern", "DE1",
                      'Got {"address": {"street": "Main St 1", "zip": 12345}, "billing": {"iban": "DE1"}, "to": "ada"}')


@pytest.mark.parametrize("value, schema, problem", [
    ("2024-13-45", {"format": "date"}, "not a date (YYYY-MM-DD)"),
    ("2024-02-30", {"format": "date"}, "not a date (YYYY-MM-DD)"),
    ("2024-02-29", {"format": "date"}, None),
    ("2024-02-29T24:00:00Z", {"format": "date-time"}, "not a date-time (e.g. 2026-07-28T09:30:00Z)"),
    ("2024-02-29T09:30:00+02:00", {"format": "date-time"}, None),
    ("9:30", {"format": "time"}, "not a time (HH:MM:SS with Z or an offset)"),
    ("09:30:00.5Z", {"format": "time"}, None),
    ("ada at example.com", {"format": "email"}, "not an email address"),
    ("no scheme", {"format": "uri"}, "not a URI"),
    ("abc", {"pattern": "^[a-z]{2}$"}, "does not match the pattern ^[a-z]{2}$"),
    (5, {"exclusiveMaximum": 5}, "less than 5"),
    ({"a": {"b": [1, 2, 30]}}, {"properties": {"a": {"properties": {"b": {"items": {"maximum": 9}}}}}},
     ".a.b[2]: at most 9"),
    ({"a": {"zip": "x"}}, {"properties": {"a": {"properties": {"zip": {"type": "integer"}}}}},
     ".a.zip: must be an integer, not a string"),
    ({"a": {}}, {"properties": {"a": {"required": ["zip"]}}}, ".a: missing zip"),
    ({"a": {"zip": 1, "plus4": 2}}, {"properties": {"a": {"properties": {"zip": {}}, "additionalProperties": False}}},
     ".a.plus4: is not declared (additionalProperties: false)"),
    ({"a": {"street": "x", "zip": 100000}}, {"properties": {"a": OPTIONAL_ADDRESS}}, ".a.zip: at most 99999"),
    ({"a": {"zip": 1}}, {"properties": {"a": OPTIONAL_ADDRESS}}, ".a: missing street"),
    ({"a": None}, {"properties": {"a": OPTIONAL_ADDRESS}}, None),
    ({"a": "Main St"}, {"properties": {"a": OPTIONAL_ADDRESS}}, ".a: must be an object or null, not a string"),
    (7, {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 10}]}, "at least 10"),
    ("abcd", {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "string", "pattern": "d$"}]}, None),
])
def test_the_shared_checker_knows_formats_and_limits_at_every_depth(value, schema, problem):
    assert mcp_tui.constraint_problem(value, schema) == problem


def jot_form(tui, tmp_path):
    """The form of a tool with one string argument, ``text``, that echoes its arguments."""
    server = one_tool_server(tmp_path, {"name": "jot", "inputSchema": {"type": "object", "properties": {
        "text": {"type": "string"}}}}, ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, **SMALL)
    open_only_tool(screen, "jot")
    return screen


@needs_pty
def test_ctrl_e_opens_a_text_area_that_keeps_newlines_and_tabs(tui, tmp_path):
    screen = jot_form(tui, tmp_path)
    screen.type("first")
    screen.send("ctrl-e")  # at the end of the line: the text area
    screen.wait_all("Edit: text", "^X done  Enter new line")
    screen.send("enter")
    screen.type("second")
    screen.send("tab")
    screen.type("third")
    screen.paste("\nfourth\tfifth")
    screen.wait_all("first", "second\u2192   third", "fourth\u2192   fifth")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool: jot" in screen.title_line(), what="back on the form")
    screen.send("ctrl-x")
    screen.wait_for('Got {"text": "first\\nsecond\\tthird\\nfourth\\tfifth"}')


@needs_pty
def test_a_tab_pasted_into_a_string_field_is_kept(tui, tmp_path):
    screen = jot_form(tui, tmp_path)
    screen.paste("a\tb")
    screen.send("ctrl-x")
    screen.wait_for('Got {"text": "a\\tb"}')


@needs_pty
def test_an_array_of_objects_is_a_list_to_add_to_edit_and_remove_from(tui, tmp_path):
    server = one_tool_server(tmp_path, {"name": "route", "inputSchema": {"type": "object", "properties": {
        "stops": {"type": "array", "items": {"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"}, "zip": {"type": "integer", "maximum": 99999}}}}}}}, ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, columns=120, rows=24)
    open_only_tool(screen, "route")
    screen.send("ctrl-e")
    screen.wait_all("List: stops (0)", "No elements yet")
    screen.send("a")
    screen.wait_for(lambda t: screen.title_line().startswith(" stops[0]"), what="the element's form")
    screen.type("Oslo")
    screen.send("tab")
    screen.type("100000")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "zip: at most 99999" in screen.status_line(), what="the element's limit")
    screen.send("ctrl-u")
    screen.type("150")
    screen.send("ctrl-x")
    screen.wait_all("List: stops (1)", '[0] {"city": "Oslo", "zip": 150}')
    screen.send("a")
    screen.wait_for(lambda t: screen.title_line().startswith(" stops[1]"), what="the second element's form")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "city is required" in screen.status_line(), what="the required field")
    screen.type("Bergen")
    screen.send("ctrl-x")
    screen.wait_all("List: stops (2)", '[1] {"city": "Bergen"}')
    screen.send("k", "enter")  # edit Oslo
    screen.wait_for(lambda t: screen.title_line().startswith(" stops[0]") and "Oslo" in t, what="Oslo's form")
    screen.send("tab", "ctrl-u")
    screen.type("151")
    screen.send("ctrl-x")
    screen.wait_for('[0] {"city": "Oslo", "zip": 151}')
    screen.send("j", "d")  # Bergen goes
    screen.wait_for("List: stops (1)")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: screen.title_line().startswith(" Tool: route"), what="back in the tool's form")
    screen.send("ctrl-x")
    screen.wait_for('Got {"stops": [{"city": "Oslo", "zip": 151}]}')


@needs_pty
def test_a_field_the_form_refuses_is_named_once_and_a_bad_list_item_is_pointed_at(tui, tmp_path):
    """Issue 35: "count: argument 'count' must be..." named the field twice, and "nums: must be
    an array" did not say that only one item was wrong."""
    server = one_tool_server(tmp_path, {"name": "tally", "inputSchema": {"type": "object", "properties": {
        "count": {"type": "integer"}, "nums": {"type": "array", "items": {"type": "integer"}}}}},
        ECHO_ARGUMENTS_HANDLERS)
    screen = tui(server, **SMALL)
    open_only_tool(screen, "tally")
    refused_then_sent(screen, "x", "count: must be an integer, got 'x'", "3", 'Got {"count": 3}')
    screen.send("tab")
    refused_then_sent(screen, "1,x,3", "nums: item 2 must be an integer, got 'x'", "1,2,3",
                      'Got {"count": 3, "nums": [1, 2, 3]}')
    assert "argument 'count'" not in screen.text()


def test_a_list_argument_names_the_item_that_is_not_of_its_type():
    schema = {"type": "array", "items": {"type": "integer"}}
    with pytest.raises(mcp_tui.UsageError, match=r"^argument 'nums': item 2 must be an integer, got 'x'$"):
        mcp_tui.coerce_value("1,x,3", schema, "nums")
    assert mcp_tui.coerce_value("1,2", schema, "nums") == [1, 2]
