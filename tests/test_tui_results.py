"""Results as the Inspector shows them: structuredContent checked against the tool's
outputSchema, with the failing path; PNG images drawn inline with half-block characters."""
from tui_helpers import needs_pty, one_tool_server, tui  # noqa: F401 (tui: a fixture)

WEATHER = {"name": "weather", "inputSchema": {"type": "object", "properties": {"good": {"type": "boolean"}}},
           "outputSchema": {
    "type": "object", "required": ["temp", "unit"], "properties": {
        "temp": {"type": "number", "maximum": 60},
        "where": {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}}}}
STRUCTURED_HANDLERS = r"""
    elif method == "tools/call":
        structured = {"temp": 150, "where": {"zip": "abc"}}
        structured = {"temp": 21, "unit": "C"} if message["params"].get("arguments", {}).get("good") else structured
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text",
              "text": json.dumps(structured)}], "structuredContent": structured}})
"""


@needs_pty
def test_structured_content_is_checked_against_the_output_schema_with_the_failing_path(tui, tmp_path):
    screen = tui(one_tool_server(tmp_path, WEATHER, STRUCTURED_HANDLERS), columns=120, rows=40)
    screen.wait_for("Tools (1)")
    screen.send("enter")
    screen.wait_for(lambda t: "Tool: weather" in screen.title_line(), what="the form")
    screen.send("ctrl-x")
    screen.wait_all("Structured content does not match the tool's outputSchema:",
                    "(the whole value): missing required property 'unit'", "temp: at most 60",
                    "where.zip: does not match the pattern ^[0-9]{5}$")
    assert "The result does not match the outputSchema: (the whole value): missing required property 'unit'" in \
        screen.status_line()
    screen.send("right")  # good: true
    screen.wait_for("< true >")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="a result that matches")
    assert "does not match" not in screen.text()
