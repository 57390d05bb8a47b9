"""`snapshot` and `diff`: a server's surface as stable JSON, and each change between two
surfaces classified as breaking, additive or cosmetic (exit 1 on breaking). The servers
are tests/surfaceserver.py, serving a surface from a JSON file, and the test server."""
import copy
import json
import shlex
import sys

import pytest

from conftest import ROOT, stdio_command

SURFACE_SERVER = ROOT / "tests" / "surfaceserver.py"

BASE = {
    "serverInfo": {"name": "surface", "version": "1.0.0"},
    "capabilities": {"tools": {"listChanged": True}, "prompts": {}, "resources": {}},
    "tools": [
        {"name": "search", "description": "Search the catalogue",
         "inputSchema": {"type": "object", "properties": {
             "query": {"type": "string"},
             "order": {"type": "string", "enum": ["asc", "desc"]},
             "limit": {"type": "number"}}, "required": ["query"]},
         "outputSchema": {"type": "object", "properties": {"hits": {"type": "array"}, "total": {"type": "integer"}},
                          "required": ["hits", "total"]},
         "annotations": {"readOnlyHint": True},
         "execution": {"taskSupport": "optional"}},
        {"name": "delete_item", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}},
    ],
    "prompts": [{"name": "summary", "arguments": [{"name": "topic", "required": True}]}],
    "resources": [{"uri": "file:///readme", "name": "readme", "mimeType": "text/plain"}],
    "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "file"}],
}


def surface_server(tmp_path, surface, name="surface.json"):
    path = tmp_path / name
    path.write_text(json.dumps(surface))
    return " ".join(shlex.quote(str(p)) for p in (sys.executable, SURFACE_SERVER, path))


def snapshot_of(cli, tmp_path, surface, name):
    out = tmp_path / (name + ".snapshot.json")
    result = cli(surface_server(tmp_path, surface, name + ".json"), "snapshot", "-o", out)
    assert result.code == 0, result
    return out


def changed(mutate):
    surface = copy.deepcopy(BASE)
    mutate(surface)
    return surface


def tool(surface, name):
    return next(t for t in surface["tools"] if t["name"] == name)


def test_a_snapshot_is_the_same_bytes_twice_and_diffs_clean_against_its_server(cli, tmp_path):
    first = cli(stdio_command(), "snapshot")
    second = cli(stdio_command(), "snapshot")
    assert first.code == 0 and second.code == 0, (first, second)
    assert first.out == second.out
    snapshot = json.loads(first.out)
    assert snapshot["snapshotFormat"] == 1 and snapshot["era"] == "modern"
    assert snapshot["server"]["name"] and "tools" in snapshot["capabilities"]
    assert [t["name"] for t in snapshot["tools"]] == sorted(t["name"] for t in snapshot["tools"])
    assert {"echo", "add"} <= {t["name"] for t in snapshot["tools"]}
    assert snapshot["prompts"] and snapshot["resources"] and snapshot["resourceTemplates"]
    assert "_meta" not in first.out
    saved = tmp_path / "snapshot.json"
    saved.write_text(first.out)
    result = cli(stdio_command(), "diff", saved)
    assert result.code == 0, result
    assert result.out.strip() == "no changes"


def test_a_paginated_server_gives_the_same_snapshot(cli):
    whole = cli(stdio_command(), "snapshot")
    paged = cli(stdio_command("--page-size", "2"), "snapshot")
    assert whole.code == 0 and paged.code == 0, (whole, paged)
    assert json.loads(paged.out)["tools"] == json.loads(whole.out)["tools"]


def test_a_removed_tool_and_a_new_required_argument_are_breaking(cli, tmp_path):
    old = snapshot_of(cli, tmp_path, BASE, "old")

    def mutate(surface):
        surface["tools"] = [t for t in surface["tools"] if t["name"] != "delete_item"]
        search = tool(surface, "search")
        search["inputSchema"]["properties"]["region"] = {"type": "string"}
        search["inputSchema"]["required"].append("region")

    new = snapshot_of(cli, tmp_path, changed(mutate), "new")
    result = cli("diff", old, new)
    assert result.code == 1, result
    assert "tool delete_item\n  breaking  tool removed\n    - delete_item" in result.out
    assert "tool search\n  breaking  new required argument region" in result.out
    assert "2 changes: 2 breaking, 0 additive, 0 cosmetic" in result.out
    as_json = cli("diff", old, new, "--format", "json")
    assert as_json.code == 1, as_json
    changes = as_json.json()["changes"]
    assert {(c["class"], c["path"]) for c in changes} == {
        ("breaking", "/tools/delete_item"), ("breaking", "/tools/search/inputSchema/properties/region")}
    assert as_json.json()["summary"] == {"breaking": 2, "additive": 0, "cosmetic": 0}


def test_a_new_optional_argument_and_a_new_tool_pass_and_are_listed(cli, tmp_path):
    old = snapshot_of(cli, tmp_path, BASE, "old")

    def mutate(surface):
        tool(surface, "search")["inputSchema"]["properties"]["fuzzy"] = {"type": "boolean"}
        surface["tools"].append({"name": "export", "inputSchema": {"type": "object"}})

    server = surface_server(tmp_path, changed(mutate), "new.json")
    result = cli(server, "diff", old)  # against the live server
    assert result.code == 0, result
    assert "tool export\n  additive  new tool\n    + export" in result.out
    assert ("tool search\n  additive  new optional argument fuzzy at /tools/search/inputSchema/properties/fuzzy\n"
            "    + {\"type\": \"boolean\"}") in result.out
    stricter = cli(server, "diff", old, "--fail-on", "additive")
    assert stricter.code == 1, stricter


def test_each_kind_of_change_is_classified(cli, tmp_path):
    old = snapshot_of(cli, tmp_path, BASE, "old")

    def mutate(surface):
        search = tool(surface, "search")
        search["description"] = "Search everything"
        search["annotations"] = {"readOnlyHint": False}
        properties = search["inputSchema"]["properties"]
        properties["limit"] = {"type": "integer"}  # number -> integer: narrowed
        properties["order"]["enum"] = ["asc"]  # "desc" removed
        del search["outputSchema"]["properties"]["total"]
        search["execution"] = {"taskSupport": "required"}
        del tool(surface, "delete_item")["inputSchema"]["properties"]["id"]
        surface["prompts"] = []
        surface["resources"] = []
        surface["resourceTemplates"] = []
        del surface["capabilities"]["tools"]["listChanged"]
        surface["capabilities"]["logging"] = {}

    new = snapshot_of(cli, tmp_path, changed(mutate), "new")
    result = cli("diff", old, new, "--format", "json")
    assert result.code == 1, result
    found = {(c["class"], c["path"]) for c in result.json()["changes"]}
    assert found == {
        ("cosmetic", "/tools/search/description"),
        ("cosmetic", "/tools/search/annotations/readOnlyHint"),
        ("breaking", "/tools/search/inputSchema/properties/limit/type"),
        ("breaking", "/tools/search/inputSchema/properties/order/enum"),
        ("breaking", "/tools/search/outputSchema/properties/total"),
        ("breaking", "/tools/search/execution/taskSupport"),
        ("breaking", "/tools/delete_item/inputSchema/properties/id"),
        ("breaking", "/prompts/summary"),
        ("breaking", "/resources/file:~1~1~1readme"),
        ("breaking", "/resourceTemplates/file:~1~1~1{path}"),
        ("breaking", "/capabilities/tools/listChanged"),
        ("additive", "/capabilities/logging"),
    }, result.out
    text = cli("diff", old, new).out
    assert "  breaking  type narrowed at /tools/search/inputSchema/properties/limit/type\n" in text, text


def test_widening_is_additive_and_words_are_cosmetic(cli, tmp_path):
    old = snapshot_of(cli, tmp_path, BASE, "old")

    def mutate(surface):
        search = tool(surface, "search")
        search["inputSchema"]["properties"]["order"]["enum"].append("random")
        search["inputSchema"]["required"] = []  # query is now optional
        search["inputSchema"]["properties"]["query"]["description"] = "What to look for"
        surface["prompts"][0]["arguments"].append({"name": "tone"})
        surface["serverInfo"]["version"] = "1.1.0"

    new = snapshot_of(cli, tmp_path, changed(mutate), "new")
    result = cli("diff", old, new, "--format", "json")
    assert result.code == 0, result
    found = {(c["class"], c["path"]) for c in result.json()["changes"]}
    assert found == {
        ("additive", "/tools/search/inputSchema/properties/order/enum"),
        ("additive", "/tools/search/inputSchema/properties/query"),
        ("cosmetic", "/tools/search/inputSchema/properties/query/description"),
        ("additive", "/prompts/summary/arguments/tone"),
        ("cosmetic", "/server/version"),
    }, result.out


def test_fail_on_any_fails_on_words_too(cli, tmp_path):
    old = snapshot_of(cli, tmp_path, BASE, "old")

    def mutate(surface):
        tool(surface, "search")["description"] = "Finds items by words"

    new = snapshot_of(cli, tmp_path, changed(mutate), "new")
    codes = [cli("diff", old, new, *flags).code for flags in ((), ("--fail-on", "additive"), ("--fail-on", "any"))]
    assert codes == [0, 0, 1], codes


def test_a_file_that_is_not_a_snapshot_is_a_usage_error(cli, tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"tools": []}')
    result = cli("diff", other, other)
    assert result.code == 2, result
    assert result.err.startswith("mcp-tui: %s is not an mcp-tui snapshot" % other), result
    missing = cli("diff", tmp_path / "missing.json", other)
    assert missing.code == 2 and "cannot read snapshot" in missing.err, missing
    assert "Traceback" not in missing.err


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_tool_describe_states_the_one_task_support_rule(cli, era):
    """Issue 32: a 2026-07-28 tool carries no taskSupport, which means the server decides per
    call (it said "forbidden" for a tool that runs only as a task); 2025-11-25 listings say it."""
    from conftest import stdio_command

    expected = {"2026-07-28": ("the server decides per call", "per-call"), "2025-11-25": ("required", "required")}
    text = cli(stdio_command(), "--protocol-version", era, "tool", "describe", "render_report")
    assert text.code == 0 and "\nTask support: %s\n" % expected[era][0] in text.out, text
    document = cli(stdio_command(), "--protocol-version", era, "tool", "describe", "render_report",
                   "--format", "json").json()
    assert document["taskSupport"] == expected[era][1]
    plain = cli(stdio_command(), "--protocol-version", era, "tool", "describe", "add", "--format", "json").json()
    assert plain["taskSupport"] == {"2026-07-28": "per-call", "2025-11-25": "forbidden"}[era]


def test_a_diff_across_eras_of_one_server_is_additive(cli, tmp_path):
    """Issue 32: what one era cannot express (taskSupport on a tool, tasks declared as a
    capability or as an extension) is not a change between a 2025-11-25 and a 2026-07-28 snapshot."""
    from conftest import stdio_command

    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert cli(stdio_command(), "--protocol-version", "2025-11-25", "snapshot", "-o", str(old)).code == 0
    assert cli(stdio_command(), "--protocol-version", "2026-07-28", "snapshot", "-o", str(new)).code == 0
    for first, second in ((old, new), (new, old)):
        result = cli("diff", str(first), str(second), "--format", "json")
        assert result.code == 0, result
        assert {c["class"] for c in result.json()["changes"]} == {"additive"}, result
        assert {c["path"] for c in result.json()["changes"]} == {"/era", "/protocolVersion"}, result
