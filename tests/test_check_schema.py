"""`check`'s result-shape rules against the official schemas (tests/schema/): no error-level
finding on the test server in either era, and on hypothesis-mutated tools/list results
(served by tests/faultyserver.py --tools-file) every error `check` finds on a tool's shape is
one the official 2025-11-25 schema rejects too (no false positives)."""
import json
import shlex
import sys
import tempfile
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, stdio_command
from schemas import check_server_result

FAULTY = ROOT / "tests" / "faultyserver.py"
SHAPE_RULES = {"tools.input-schema", "tools.output-schema", "tools.task-support"}  # a tool's own shape
TOOL = {"name": "echo", "description": "Echo a message.",
        "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}},
        "outputSchema": {"type": "object", "properties": {"echo": {"type": "string"}}},
        "annotations": {"readOnlyHint": True}, "execution": {"taskSupport": "forbidden"}}
ANY_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(
    ["object", "string", "array", "optional", "required", "forbidden", ""]), st.just({}), st.just([]),
    st.just({"type": "object"}), st.just({"type": "string"}))
# (path into the tool, a value put there): a key replaced or added anywhere the rules look
PATHS = [("inputSchema",), ("inputSchema", "type"), ("inputSchema", "properties"), ("outputSchema",),
         ("outputSchema", "type"), ("execution", "taskSupport"), ("execution",), ("annotations", "readOnlyHint")]


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_the_test_server_has_no_error_level_finding(cli, protocol):
    result = cli(stdio_command(), "check", "--protocol-version", protocol, "--format", "json")
    assert result.code == 0, result
    assert [f for f in result.json()["findings"] if f["severity"] == "error"] == []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(PATHS), ANY_VALUE), min_size=1, max_size=2))
def test_what_check_calls_a_broken_tool_the_schema_rejects(cli, mutations):
    tool = TOOL
    for path, value in mutations:
        tool = mutated(tool, path, value)
    errors = shape_errors(cli, tool)
    if errors:
        with pytest.raises(jsonschema.ValidationError):
            check_server_result({"tools": [tool]}, "2025-11-25", "ListToolsResult")


def test_a_string_input_schema_is_an_error_the_schema_shares(cli):
    tool = mutated(TOOL, ("inputSchema", "type"), "string")
    assert [f["rule"] for f in shape_errors(cli, tool)] == ["tools.input-schema"]
    with pytest.raises(jsonschema.ValidationError):
        check_server_result({"tools": [tool]}, "2025-11-25", "ListToolsResult")


def shape_errors(cli, tool):
    """The error-level findings of `check` on a server that lists ``tool``, in SHAPE_RULES."""
    with tempfile.TemporaryDirectory() as folder:
        listed = Path(folder) / "tools.json"
        listed.write_text(json.dumps([tool]), encoding="utf-8")
        command = " ".join(shlex.quote(str(w)) for w in (sys.executable, FAULTY, "--tools-file", listed))
        result = cli(command, "check", "--format", "json")
    assert result.code in (0, 1), result
    assert "internal error" not in result.out + result.err and "Traceback" not in result.err, result
    return [f for f in result.json()["findings"] if f["severity"] == "error" and f["rule"] in SHAPE_RULES]


def mutated(tool, path, value):
    """``tool`` with ``value`` put at ``path`` (made of objects where it is missing)."""
    tool = json.loads(json.dumps(tool))
    place = tool
    for key in path[:-1]:
        if not isinstance(place.get(key), dict):
            place[key] = {}
        place = place[key]
    place[path[-1]] = value
    return tool
