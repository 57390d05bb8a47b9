"""`mcp-tui check`: a server with one planted fault fails the rule that names it (exit 1);
the test server, in each era and over stdio and HTTP, passes (exit 0); the report's text,
JSON and JUnit forms, --strict and usage errors."""
import json
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from conftest import ROOT, faulty_command, stdio_command


# fault -> (the rule check names, extra words for check)
PLANTED = {
    "no-jsonrpc": ("lifecycle.jsonrpc", []),
    "unoffered-version": ("lifecycle.offered-version", []),
    "input-schema-not-object": ("tools.input-schema", []),
    "duplicate-tools": ("tools.unique-names", []),
    "structured-content": ("tools.structured-content", ["--call", "weather city=Oslo"]),
    "structured-content-ref": ("tools.structured-content", ["--call", "weather city=Oslo"]),
    "endless-cursor": ("pagination.cursor-progress", []),
    "unknown-tool-success": ("tools.unknown-tool", []),
    "no-ping": ("lifecycle.ping", ["--timeout", "2"]),
    "missing-method": ("capabilities.declared-answer", []),
    "uri-without-scheme": ("resources.uri-scheme", []),
    "stdout-logs": ("lifecycle.stdout-clean", []),
    "notification-with-id": ("lifecycle.notification-id", []),
    "blob-not-base64": ("resources.blob-base64", []),
    "handshake-refused": ("lifecycle.handshake", []),
    "stray-response": ("lifecycle.ids-echoed", []),
    "set-level-refused": ("logging.set-level", []),
    "schema-invalid": ("tools.schema-valid", []),
    "duplicate-prompt-args": ("prompts.well-formed", []),
}
# fault -> the rule a warning names (exit 0; 1 under --strict)
WARNED = {
    "undeclared-served": "capabilities.undeclared-refused",
    "annotations-not-boolean": "tools.annotations",
    "template-without-scheme": "resources.template-scheme",
    "task-support-incoherent": "tasks.coherent",
    "unportable-schema": "tools.portable-schema",
    "nested-type-list": "tools.portable-schema",
    "request-before-initialized": "lifecycle.initialized-first",
}


def faulty(fault="none"):
    return faulty_command("--fault", fault)


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_a_planted_fault_fails_its_rule(cli, fault):
    rule, extra = PLANTED[fault]
    result = cli(faulty(fault), "check", *extra)
    assert result.code == 1, result
    failed = [line for line in result.out.splitlines() if line.strip().startswith("✗")]
    assert any(line.split()[1] == rule for line in failed), result
    assert "internal error" not in result.out + result.err, result
    assert "Traceback" not in result.err, result


@pytest.mark.parametrize("fault", sorted(PLANTED))
def test_a_planted_fault_in_json(cli, fault):
    rule, extra = PLANTED[fault]
    result = cli(faulty(fault), "check", "--format", "json", *extra)
    assert result.code == 1, result
    document = result.json()
    errors = [f for f in document["findings"] if f["severity"] == "error"]
    assert rule in [f["rule"] for f in errors], document
    for finding in document["findings"]:
        assert set(finding) == {"rule", "severity", "message", "fix", "where", "spec"}
        assert finding["message"] and finding["fix"]
        assert finding["spec"].startswith("https://modelcontextprotocol.io/specification/2025-11-25/")
    assert document["summary"]["errors"] == len(errors)


@pytest.mark.parametrize("fault", sorted(WARNED))
def test_a_planted_fault_warns_under_its_rule(cli, fault):
    result = cli(faulty(fault), "check")
    assert result.code == 0, result
    assert WARNED[fault] in [line.split()[1] for line in result.out.splitlines() if line.strip().startswith("⚠")], \
        result
    assert cli(faulty(fault), "check", "--strict").code == 1


def test_each_rule_is_tripped_by_some_test():
    """Every rule check knows has a test that makes it fail: named in a planted fault here or in
    a test file, so a rule whose probe stopped working shows up as a failing test."""
    import glob

    import mcp_tui

    tests = "".join(open(path, encoding="utf-8").read() for path in glob.glob(str(ROOT / "tests" / "**" / "*.py"),
                                                                                recursive=True))
    untested = [rule[0] for rule in mcp_tui.CHECK_RULES if '"%s"' % rule[0] not in tests]
    assert untested == []


def test_the_faulty_server_without_a_fault_passes(cli):
    result = cli(faulty(), "check", "--call", "weather city=Oslo", "--call", "echo message=hi")
    assert result.code == 0, result
    assert "✗" not in result.out and "⚠" not in result.out
    assert "✓ tools.structured-content" in result.out
    assert "0 errors" in result.out.splitlines()[-1]


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_the_test_server_passes_over_stdio(cli, protocol):
    result = cli(stdio_command(), "check", "--protocol-version", protocol, "--format", "json")
    assert result.code == 0, result
    document = result.json()
    assert [f for f in document["findings"] if f["severity"] == "error"] == []
    assert document["server"]["protocolVersion"] == ("2026-07-28" if protocol == "auto" else protocol)
    assert document["summary"]["rules"] >= 20 and not document["summary"]["failed"]


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_the_test_server_passes_over_http(cli, start_server, protocol):
    server = start_server()
    result = cli("--url", server.url, "check", "--protocol-version", protocol, "--call", "echo message=hi")
    assert result.code == 0, result
    assert "✗" not in result.out
    assert "✓ lifecycle.ping" in result.out and "✓ tools.unknown-tool" in result.out
    assert "streamable-http" in result.out.splitlines()[0]
    if protocol == "2025-11-25":  # a session id to probe with, and a control request the server takes
        assert "✓ http.unknown-session" in result.out and "✓ http.origin" in result.out, result


def test_a_server_that_takes_any_origin_gets_a_warning(cli):
    from servers import LoopbackServer

    server = LoopbackServer([sys.executable, ROOT / "tests" / "badserver.py", "--mode", "ok", "--era", "2025-11-25",
                             "--http", "127.0.0.1:0"])
    try:
        result = cli("--url", server.url, "check", "--format", "json")
    finally:
        server.stop()
    origin = [f for f in result.json()["findings"] if f["rule"] == "http.origin"]
    assert len(origin) == 1 and origin[0]["severity"] == "warning", result
    assert "mcp-tui-check.invalid" in origin[0]["message"]


def test_strict_fails_on_a_warning_and_junit_records_it(cli, tmp_path):
    junit = tmp_path / "check.xml"
    # fail_tool answers isError: a warning under tools.call, not an error
    plain = cli(stdio_command(), "check", "--call", "fail_tool")
    assert plain.code == 0, plain
    assert "⚠ tools.call" in plain.out
    strict = cli(stdio_command(), "check", "--call", "fail_tool", "--strict", "--junit", junit)
    assert strict.code == 1, strict
    suite = xml_suites(junit)[0]  # the test server speaks both eras: a suite each, --call's in the first
    assert suite.tag == "testsuite" and int(suite.get("failures")) == 1
    failed = [case.get("name") for case in suite.iter("testcase") if case.find("failure") is not None]
    assert failed == ["tools.call"]
    assert int(suite.get("tests")) == len(list(suite.iter("testcase")))


def test_max_time_leaves_probes_not_run_and_blames_the_server_for_none(cli, tmp_path):
    """`check --max-time 5` reported what the cap cut as the server's faults (78 findings on a
    real server): a call still running, lists never answered, the other era's handshake, and
    the late answers as responses to ids never sent. What the cap cuts is not run: no finding,
    a line for each, JUnit's skipped, and the cap's own line (exit 1, as every --max-time)."""
    junit = tmp_path / "check.xml"
    result = cli(stdio_command(), "check", "--call", "long_operation steps=1 step_ms=60000", "--max-time", "2",
                 "--format", "json", "--junit", junit, timeout=60)
    assert result.code == 1, result
    report = json.loads(result.out)
    assert report["findings"] == [], report["findings"]
    assert {"rule": "tools.call", "where": 'tool "long_operation"'} in report["notRun"], report["notRun"]
    assert report["summary"]["notRun"] == len(report["notRun"]) and report["summary"]["errors"] == 0
    error = json.loads(result.err.splitlines()[-1])["error"]
    assert error["kind"] == "timeout" and error["message"] == (
        "the --max-time limit (2s) ended the check: %d probes not run" % len(report["notRun"])), error
    suite = ElementTree.parse(str(junit)).getroot()
    skipped = [case.get("name") for case in suite.iter("testcase") if case.find("skipped") is not None]
    assert "tools.call" in skipped and int(suite.get("skipped")) == len(skipped) and suite.get("failures") == "0"
    text = cli(stdio_command(), "check", "--call", "long_operation steps=1 step_ms=60000", "--max-time", "2",
               timeout=60)
    assert text.code == 1 and "✗" not in text.out and "⚠" not in text.out, text
    assert '– tools.call' in text.out and "not run: --max-time came first" in text.out, text


def test_usage_errors_exit_2(cli):
    extra = cli(stdio_command(), "check", "now")
    assert extra.code == 2 and "usage: mcp-tui check" in extra.err, extra
    unknown = cli(faulty(), "check", "--call", "no_such_tool")
    assert unknown.code == 2 and "no_such_tool" in unknown.err, unknown
    empty = cli(faulty(), "check", "--call", "  ")
    assert empty.code == 2 and "--call needs a tool name" in empty.err, empty
    json_usage = cli(stdio_command(), "check", "now", "--format", "json")
    assert json_usage.code == 2 and json.loads(json_usage.err)["error"], json_usage


def test_check_with_no_server_is_the_usage_line_every_command_gives(cli, tmp_path):
    """Probe D1: it crashed (AttributeError on the spec's url, exit 1)."""
    for flags in ((), ("--strict",)):
        result = cli("check", *flags, cwd=tmp_path)
        assert result.code == 2, result
        assert result.err.startswith("mcp-tui: no server given: pass a stdio command, --url URL, or --config FILE"), result
        assert "internal error" not in result.err and result.out == "", result
    same = cli("tool", "list", cwd=tmp_path)
    assert same.code == 2 and same.err.splitlines()[0] == result.err.splitlines()[0], same
    as_json = cli("check", "--format", "json", cwd=tmp_path)
    assert as_json.code == 2 and json.loads(as_json.err)["error"]["message"].startswith("no server given"), as_json


def test_structured_content_is_held_to_a_ref_in_the_output_schema(cli):
    """Probe D6: a property's {"$ref": "#/$defs/..."} was not followed, so 21.5 passed a
    string type written under $defs; it fails as the same type written inline does."""
    result = cli(faulty("structured-content-ref"), "check", "--call", "weather city=Oslo")
    assert result.code == 1, result
    assert 'tool "weather": the result breaks the outputSchema: $.temperature: must be a string, not a number' \
        in result.out, result


def test_a_false_claim_of_the_other_era_fails(cli):
    result = cli(stdio_command("--era", "2026-07-28", "--claim-legacy"), "check")
    assert result.code == 1, result
    assert "✗ lifecycle.each-era" in result.out and "2025-11-25" in result.out, result
    honest = cli(stdio_command("--era", "2026-07-28"), "check")
    assert honest.code == 0 and "lifecycle.each-era" not in honest.out, honest


def test_an_unportable_schema_is_a_warning_that_strict_fails(cli):
    result = cli(faulty("unportable-schema"), "check")
    assert result.code == 0, result
    assert "⚠ tools.portable-schema" in result.out and "anyOf" in result.out, result
    assert "1 warning, 0 errors" in result.out.splitlines()[-1]
    strict = cli(faulty("unportable-schema"), "check", "--strict")
    assert strict.code == 1, strict


def test_schemas_are_held_to_the_meta_schema_keyword_by_keyword():
    from mcp_tui import schema_meta_problems

    assert schema_meta_problems({"type": "object", "properties": {"a": {"type": ["string", "null"]}},
                                 "required": ["a"], "additionalProperties": False}) == []
    assert schema_meta_problems({"type": "object", "properties": {"a": {"type": "strng", "minLength": -1}},
                                 "required": "a"}) == [
        "$.required: must be a list of different property names",
        "$.properties.a.type: \"strng\" is not a JSON Schema type "
        "(array, boolean, integer, null, number, object, string)",
        "$.properties.a.minLength: must be an integer of 0 or more"]
    assert schema_meta_problems({"items": [{"type": "string"}]}) == [
        "$.items: must be a schema (an object or a boolean)"]  # 2020-12: prefixItems holds lists
    assert schema_meta_problems({"$schema": "http://json-schema.org/draft-07/schema#",
                                 "items": [{"type": "string"}, {"type": "nope"}]}) == [
        "$.items[1].type: \"nope\" is not a JSON Schema type (array, boolean, integer, null, number, object, string)"]
    assert schema_meta_problems({"anyOf": []}) == ["$.anyOf: must be a non-empty list of schemas"]
    assert schema_meta_problems({"not": True, "x-vendor": object()}) == []  # unknown keywords are the vendor's


def test_the_2026_ping_rule_names_what_it_timed(cli):
    """Issue 47 item 4: 2026-07-28 has no ping; check times server/discover, and says so."""
    result = cli(faulty_command("--fault", "no-ping", "--era", "2026-07-28"), "check", "--timeout", "2")
    assert result.code == 1, result
    (line,) = [line for line in result.out.splitlines() if "✗" in line]
    assert line.split()[1:3] == ["lifecycle.ping", "server/discover:"], result
    assert "no answer to server/discover" in line, result
    assert "fix: answer it at once (ping with an empty result, server/discover with its result)" in result.out
    assert "ping (2025-11-25), server/discover (2026-07-28, which has no ping)" in cli(
        faulty_command("--era", "2026-07-28"), "check").out


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("fault, said", [
    ("ref-nowhere", '$.properties.message.$ref: "#/$defs/nowhere" points to nothing in the schema'),
    ("ref-cycle", '"#/$defs/a" is a cycle of references (#/$defs/a -> #/$defs/b -> #/$defs/a)'),
])
def test_a_ref_to_nowhere_or_a_cycle_is_an_error_naming_the_pointer(cli, fault, era, said):
    """Issue 47 item 1: a $ref is resolved within its schema (it got only the portability warning)."""
    result = cli(faulty_command("--fault", fault, "--era", era), "check", "--format", "json")
    assert result.code == 1, result
    errors = [f for f in result.json()["findings"] if f["severity"] == "error"]
    assert [f["rule"] for f in errors] == ["tools.schema-valid"], errors
    assert errors[0]["where"] == 'tool "echo"' and said in errors[0]["message"], errors


def test_refs_that_resolve_are_not_findings():
    from mcp_tui import schema_ref_problems

    assert schema_ref_problems({"type": "object", "properties": {
        "a": {"$ref": "#/$defs/x"}, "b": {"$ref": "#/properties/a"}, "c": {"$ref": "#here"}, "d": {"$ref": "#"},
        "e": {"$ref": "#/$defs/a~1b"}, "f": {"$ref": "https://example.com/other.json"}},
        "$defs": {"x": {"type": "string", "$anchor": "here"}, "a/b": {"type": "number"},
                  "tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {
                      "$ref": "#/$defs/tree"}}}}}}) == []
    assert schema_ref_problems({"properties": {"a": {"$ref": "#/properties/a"}}}) == [
        '$.properties.a.$ref: "#/properties/a" is a cycle of references (#/properties/a -> #/properties/a)']
    assert schema_ref_problems({"properties": {"a": {"$ref": "#/type/0"}}}) == [
        '$.properties.a.$ref: "#/type/0" points to nothing in the schema']
    # probe D11: a cycle through an in-place applicator; an array index with a leading zero (RFC 6901)
    assert schema_ref_problems({"properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"allOf": [
        {"$ref": "#/$defs/x"}]}}}) == ['$.$defs.x.allOf[0].$ref: "#/$defs/x" leads back to itself through allOf, '
                                      'anyOf, oneOf, not or if/then/else alone, never into the value: a validator '
                                      'would loop for ever']
    assert schema_ref_problems({"anyOf": [{"$ref": "#"}, {"type": "null"}]})[0].startswith(
        '$.anyOf[0].$ref: "#" leads back to itself')
    assert schema_ref_problems({"properties": {"a": {"$ref": "#/$defs/list/anyOf/01"}, "b": {
        "$ref": "#/$defs/list/anyOf/1"}}, "$defs": {"list": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}) == [
        '$.properties.a.$ref: "#/$defs/list/anyOf/01" points to nothing in the schema']


def test_a_schema_nested_past_any_stack_is_reported_not_crashed_on():
    from mcp_tui import SCHEMA_DEPTH_LIMIT, schema_meta_problems, schema_portability_problems

    deep = {"type": "string"}
    for _ in range(5000):
        deep = {"type": "object", "properties": {"a": deep}}
    assert schema_meta_problems(deep) == ["$%s: nested deeper than %d levels" % (
        ".properties.a" * (SCHEMA_DEPTH_LIMIT + 1), SCHEMA_DEPTH_LIMIT)]
    assert schema_portability_problems(deep) == []


# Pages of the spec's own repository (docs/specification/<version>/..., and /extensions/...), as of
# 2026-12: a
# finding's "see:" URL must name one of them, in the era the server was checked in.
SPEC_PAGES_PUBLISHED = {
    "2025-11-25": {"basic/lifecycle", "basic/transports", "basic/authorization", "basic/utilities/ping",
                   "basic/utilities/tasks", "server/tools", "server/resources", "server/prompts",
                   "server/utilities/completion", "server/utilities/logging", "server/utilities/pagination"},
    "2026-07-28": {"server/discover", "basic/versioning", "basic/patterns/subscriptions", "server/tools",
                   "basic/transports/streamable-http", "server/utilities/caching", "server/utilities/pagination",
                   "server/resources", "server/prompts", "server/utilities/completion", "server/utilities/logging",
                   "/extensions/tasks/overview", "basic/authorization"},
}


@pytest.mark.parametrize("version", sorted(SPEC_PAGES_PUBLISHED))
def test_every_rule_cites_a_page_of_its_era_s_spec(version):
    import mcp_tui

    for rule in mcp_tui.CHECK_RULES:
        url = mcp_tui.spec_url(rule[0], version)
        prefix = "https://modelcontextprotocol.io/specification/%s/" % version
        if url.startswith("https://github.com/modelcontextprotocol/experimental-ext-server-card/"):
            continue  # Server Cards: an extension's document, not a page of the spec
        page = url[len(prefix):] if url.startswith(prefix) else url[len("https://modelcontextprotocol.io"):]
        assert page.split("#")[0] in SPEC_PAGES_PUBLISHED[version], (rule[0], url)


def test_a_finding_cites_the_spec_of_the_era_checked_in(cli):
    result = cli(faulty_command("--fault", "blob-not-base64", "--era", "2026-07-28"), "check")
    assert result.code == 1, result
    assert "see: https://modelcontextprotocol.io/specification/2026-07-28/server/resources\n" in result.out, result


@pytest.mark.parametrize("server,fix", [
    (["--url", "http://127.0.0.1:9/mcp"], "fix: start the server, and check --url"),
    (["no-such-program-mcp-tui-check"], "fix: check the server's command line: the program must exist"),
])
def test_a_server_that_cannot_be_reached_gets_a_fix_about_the_connection(cli, server, fix):
    result = cli(*server, "check")
    assert result.code == 1, result
    assert fix in result.out, result
    assert "answer initialize" not in result.out, result
    assert result.out.rstrip().splitlines()[-1].startswith("1 rule: 0 passed, 0 warnings, 1 error; "), result


def test_a_server_of_both_eras_is_checked_in_each_and_a_fault_of_one_era_is_found(cli, tmp_path):
    """Issue 34 item 3: a mismatch only the 2025-11-25 era can show (a taskSupport value) is found
    without --protocol-version, in a report section of its own."""
    import mcp_tui

    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "echo", "inputSchema": {"type": "object"},
                                  "execution": {"taskSupport": "sometimes"}}]))
    server = faulty_command("--era", "both", "--tools-file", str(tools))
    result = cli(server, "check")
    assert result.code == 1, result
    modern, _, legacy = result.out.partition("\n\nChecked faultyserver (2025-11-25, stdio)\n")
    assert modern.startswith("Checked faultyserver (2026-07-28, stdio)\n"), result
    assert "tools.task-support" not in modern and "✗ tools.task-support" in legacy, result
    document = cli(server, "check", "--format", "json").json()
    assert [f["rule"] for f in document["findings"] if f["severity"] == "error"] == []
    (other,) = document["otherEras"]
    assert other["server"]["protocolVersion"] == "2025-11-25"
    assert [f["rule"] for f in other["findings"] if f["severity"] == "error"] == ["tools.task-support"]
    junit = tmp_path / "check.xml"
    assert cli(server, "check", "--junit", str(junit)).code == 1
    suites = xml_suites(junit)
    assert [s.get("name") for s in suites] == ["mcp-tui check faultyserver (2026-07-28, stdio)",
                                               "mcp-tui check faultyserver (2025-11-25, stdio)"]
    one = cli(server, "--protocol-version", mcp_tui.MODERN_VERSION, "check")
    assert one.code == 0 and "Checked faultyserver (2025-11-25" not in one.out, one


def xml_suites(path):
    root = ElementTree.parse(str(path)).getroot()
    return [root] if root.tag == "testsuite" else list(root)


def test_a_task_only_tool_is_called_as_a_task_and_its_statuses_held_to_the_spec(cli):
    """Issue 34 item 2: `--call` on a task-only tool runs it as a task (it was refused with
    'nothing was sent'); a terminal status that moves on is tasks.status-final."""
    good = cli(stdio_command(), "--protocol-version", "2026-07-28", "check", "--call", "render_report quarter=Q1 pages=1")
    assert good.code == 0, good
    assert "✓ tools.call" in good.out and "✓ tasks.status-final" in good.out, good
    regress = cli(stdio_command(script=ROOT / "tests" / "badserver.py") + " --mode task-regress", "check",
                  "--call", "slow_task")
    assert regress.code == 1, regress
    assert ("✗ %-36s tool \"slow_task\": the server moved its task from completed back to working (statuses seen: "
            "completed -> working); a terminal status is final" % "tasks.status-final") in regress.out, regress


@pytest.mark.parametrize("fault, era, seen", [
    ("task-reopened", "2025-11-25", "moved its task from completed back to working (statuses seen: working -> "
                                    "completed -> tasks/result -> working)"),
    ("task-result-working", "2025-11-25", "reported its task working after tasks/result gave its result (statuses "
                                          "seen: working -> tasks/result -> working)"),
    ("task-reopened", "2026-07-28", "moved its task from completed back to working (statuses seen: working -> "
                                    "completed -> working)"),
])
def test_a_task_that_reports_working_after_its_end_is_an_error_naming_the_statuses_seen(cli, fault, era, seen):
    """Issue 47 item 1: the statuses check polls itself, after the task's end (a completed
    tasks/get, or tasks/result), are judged too: the issue's `completed`, `tasks/result`,
    `working` passed with exit 0."""
    result = cli(faulty_command("--fault", fault, "--era", era), "check", "--call", "job")
    assert result.code == 1, result
    assert '✗ %-36s tool "job": the server %s; a terminal status is final' % ("tasks.status-final", seen) \
        in result.out, result
    document = cli(faulty_command("--fault", fault, "--era", era), "check", "--call", "job", "--format", "json").json()
    assert [f["rule"] for f in document["findings"] if f["severity"] == "error"] == ["tasks.status-final"], document


def test_the_readme_s_check_example_is_what_check_prints(cli):
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = '$ mcp-tui "python3 tests/faultyserver.py --fault blob-not-base64" check --call "weather city=Oslo"\n'
    shown = readme[readme.index(command) + len(command):]
    shown = shown[:shown.index("```")]
    result = cli(faulty("blob-not-base64"), "check", "--call", "weather city=Oslo")
    assert re.sub(r"; \d+\.\d s\n$", "", result.out) == re.sub(r"; \d+\.\d s\n$", "", shown)


def test_a_tasks_get_answered_before_the_end_was_known_is_not_a_regression():
    """The server answered a tasks/get while the task was finishing, and its notification of
    the end overtook the answer: that `working` is older than the end, not a status that moved
    on. A tasks/get sent after the end was known is held to it. (A full run met this race in
    a plain `--task --wait`, which then failed with "from completed back to working".)"""
    import mcp_tui

    reporter = mcp_tui.StatusReporter(None, last_status="working")
    asked_before = reporter.ticket()  # the poll goes out while the task still works
    reporter.see(mcp_tui.Task({"taskId": "t1", "status": "completed"}))  # the notification comes first
    reporter.see(mcp_tui.Task({"taskId": "t1", "status": "working"}), asked_before)  # then the poll's answer
    assert reporter.last_status == "completed" and reporter.regressed is None
    asked_after = reporter.ticket()
    with pytest.raises(mcp_tui.TaskStatusRegressed, match="from completed back to working"):
        reporter.see(mcp_tui.Task({"taskId": "t1", "status": "working"}), asked_after)
