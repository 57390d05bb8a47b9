"""`check`'s result-shape rules against the official schemas (tests/schema/): no error-level
finding on the test server in either era, and on hypothesis-mutated tools/list results
(served by tests/faultyserver.py --tools-file) every error `check` finds on a tool's shape is
one the official 2025-11-25 schema rejects too (no false positives).

Then every other result check judges, in both eras (2025-11-25 and 2026-07-28): tools,
resources, resource templates, resources/read, prompts, prompts/get, completion, ping and
tasks/list (2025-11-25; a 2026-07-28 check reads no task, and its "ping" is server/discover,
which carries the capabilities and is not mutated), and in 2026-07-28 the cache fields of each
result. tests/faultyserver.py --results-file serves one schema-valid result per method, a few
of them mutated by hypothesis; every error-level finding of a rule that judges a result must
come with a result of its method that the official schema of the era rejects. The schemas'
formats are asserted as their RFCs define them ("uri": RFC 3986, which needs a scheme; "byte":
RFC 4648 base64; "uri-template": RFC 6570), since jsonschema checks none of them by itself.
Not mutated: nextCursor (a fixed page that names a next one repeats its cursor, a finding across
pages that no single result shows) and resultType (an unknown one is refused by design)."""
import base64
import binascii
import json
import re
import tempfile
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import faulty_command, stdio_command
from schemas import check_server_result

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
        command = faulty_command("--tools-file", listed)
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


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
# method -> (its result's definition in the schema, a result the schema accepts)
RESULTS = {
    "tools/list": ("ListToolsResult", {"tools": [TOOL]}),
    "resources/list": ("ListResourcesResult", {"resources": [
        {"uri": "file:///notes.txt", "name": "notes", "mimeType": "text/plain"},
        {"uri": "file:///logo.png", "name": "logo", "mimeType": "image/png"}]}),
    "resources/templates/list": ("ListResourceTemplatesResult", {"resourceTemplates": [
        {"uriTemplate": "file:///notes/{name}", "name": "a note"}]}),
    "resources/read": ("ReadResourceResult", {"contents": [
        {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "a note"},
        {"uri": "file:///logo.png", "mimeType": "image/png", "blob": PNG}]}),
    "prompts/list": ("ListPromptsResult", {"prompts": [
        {"name": "greet", "arguments": [{"name": "who", "required": False}]}]}),
    "prompts/get": ("GetPromptResult", {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]}),
    "completion/complete": ("CompleteResult", {"completion": {"values": ["Ada"], "total": 1, "hasMore": False}}),
    "ping": ("EmptyResult", {}),
    "tasks/list": ("ListTasksResult", {"tasks": [{
        "taskId": "task-1", "status": "working", "createdAt": "2026-01-01T00:00:00Z",
        "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttl": None}]}),
}
LEGACY_ONLY = {"ping", "tasks/list"}  # 2026-07-28 has no ping, and no task list
CACHEABLE = {"tools/list", "resources/list", "resources/templates/list", "resources/read", "prompts/list"}
LISTS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")
# the rules that judge a result -> the methods whose result they judge
JUDGES = {
    "tools.input-schema": ("tools/list",), "tools.output-schema": ("tools/list",),
    "tools.task-support": ("tools/list",),
    "resources.uri-scheme": ("resources/list",),
    "resources.template-syntax": ("resources/templates/list",),
    "resources.read-back": ("resources/read",), "resources.blob-base64": ("resources/read",),
    "prompts.well-formed": ("prompts/list",), "prompts.get": ("prompts/get",),
    "completion.answers": ("completion/complete",), "lifecycle.ping": ("ping",), "tasks.list": ("tasks/list",),
    "capabilities.declared-answer": LISTS, "http.cache-fields": tuple(CACHEABLE),
}
# (method, path into its result): where hypothesis puts a value; () is the whole result
WHERE = [
    ("tools/list", ("tools", 0, "inputSchema")), ("tools/list", ("tools", 0, "inputSchema", "type")),
    ("tools/list", ("tools", 0, "outputSchema")), ("tools/list", ("tools", 0, "execution", "taskSupport")),
    ("tools/list", ("tools", 0, "name")),
    ("resources/list", ("resources",)), ("resources/list", ("resources", 0)),
    ("resources/list", ("resources", 0, "uri")), ("resources/list", ("resources", 1, "name")),
    ("resources/list", ("resources", 0, "size")),
    ("resources/templates/list", ("resourceTemplates",)), ("resources/templates/list", ("resourceTemplates", 0)),
    ("resources/templates/list", ("resourceTemplates", 0, "uriTemplate")),
    ("resources/read", ()), ("resources/read", ("contents",)), ("resources/read", ("contents", 0)),
    ("resources/read", ("contents", 0, "uri")), ("resources/read", ("contents", 0, "text")),
    ("resources/read", ("contents", 1, "blob")), ("resources/read", ("contents", 1, "text")),
    ("prompts/list", ("prompts",)), ("prompts/list", ("prompts", 0, "name")),
    ("prompts/list", ("prompts", 0, "arguments")), ("prompts/list", ("prompts", 0, "arguments", 0)),
    ("prompts/list", ("prompts", 0, "arguments", 0, "required")),
    ("prompts/get", ()), ("prompts/get", ("messages",)), ("prompts/get", ("messages", 0)),
    ("prompts/get", ("messages", 0, "role")), ("prompts/get", ("messages", 0, "content")),
    ("completion/complete", ("completion",)), ("completion/complete", ("completion", "values")),
    ("completion/complete", ("completion", "values", 0)), ("completion/complete", ("completion", "total")),
    ("ping", ()), ("ping", ("_meta",)),
    ("tasks/list", ("tasks",)), ("tasks/list", ("tasks", 0)), ("tasks/list", ("tasks", 0, "taskId")),
    ("tasks/list", ("tasks", 0, "status")),
    ("resources/list", ("ttlMs",)), ("resources/read", ("cacheScope",)), ("tools/list", ("ttlMs",)),
]
A_VALUE = st.one_of(ANY_VALUE, st.sampled_from(
    ["file:///x", "notes.txt", "urn:x", "{name}", "x{", "file:///{+path}{?q}", "not base64!", "aGk=", "",
     "user", "assistant", "text", "working", "done", "public", "shared", "task-2"]),
    st.just([{}]), st.just(["a"]), st.just({"type": "text", "text": "hi"}), st.just({"name": "x"}),
    st.integers(-1, 2).map(lambda n: n * 1000))


def format_checker():
    """The schemas' formats as their RFCs define them (jsonschema asserts none of these itself)."""
    checker = jsonschema.FormatChecker()

    @checker.checks("uri")
    def is_uri(text):  # RFC 3986 section 3: a URI starts with its scheme
        return not isinstance(text, str) or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$", text) is not None

    @checker.checks("byte", raises=(binascii.Error, ValueError))
    def is_base64(text):  # RFC 4648 section 4
        return not isinstance(text, str) or base64.b64decode(text, validate=True) is not None

    @checker.checks("uri-template")
    def is_uri_template(text):  # RFC 6570 section 2: literals and {operator? varspec, ...}
        if not isinstance(text, str):
            return True
        varchar = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
        varspec = r"%s(?:\.?%s)*(?::[1-9][0-9]{0,3}|\*)?" % (varchar, varchar)
        expression = r"\{[+#./;?&]?%s(?:,%s)*\}" % (varspec, varspec)
        literal = r"[^\x00-\x20\"'%%<>\\^`{|}]|%[0-9A-Fa-f]{2}"
        return re.match(r"^(?:%s|%s)*$" % (expression, literal), text) is not None

    return checker


def schema_rejects(result, era, method):
    from schemas import FILES, load
    from referencing import Registry, Resource

    name = RESULTS[method][0]
    registry = Registry().with_resource("urn:mcp:" + era, Resource.from_contents(load(era)))
    validator = jsonschema.Draft202012Validator({"$ref": "urn:mcp:%s#/$defs/%s" % (era, name)}, registry=registry,
                                                format_checker=format_checker())
    assert era in FILES
    return next(iter(validator.iter_errors(result)), None) is not None


def served_results(era):
    """Every result the faulty server is to answer with, valid in ``era``'s schema."""
    results = {}
    for method, (_, result) in RESULTS.items():
        if era == "2026-07-28" and method in LEGACY_ONLY:
            continue
        result = json.loads(json.dumps(result))
        if era == "2026-07-28":
            result["resultType"] = "complete"
            if method in CACHEABLE:
                result.update(ttlMs=0, cacheScope="private")
        results[method] = result
    return results


def put(result, path, value):
    """``result`` with ``value`` at ``path`` (a path that leads nowhere leaves it as it is)."""
    if not path:
        return value
    result = json.loads(json.dumps(result))
    place = result
    for key in path[:-1]:
        if isinstance(key, int) and isinstance(place, list) and key < len(place):
            place = place[key]
        elif isinstance(key, str) and isinstance(place, dict):
            place = place.setdefault(key, {}) if not isinstance(place.get(key), (dict, list)) else place[key]
        else:
            return result
    if isinstance(path[-1], int):
        if isinstance(place, list) and path[-1] < len(place):
            place[path[-1]] = value
    elif isinstance(place, dict):
        place[path[-1]] = value
    return result


def judged_errors(cli, era, results, every_finding=False):
    """check's error-level findings on the rules that judge a result, on a server serving ``results``
    (``every_finding``: all of them, warnings and other rules too)."""
    capabilities = {"completions": {}}
    if era == "2025-11-25":
        capabilities["tasks"] = {"list": {}}
    with tempfile.TemporaryDirectory() as folder:
        served = Path(folder) / "results.json"
        served.write_text(json.dumps(dict(results, capabilities=capabilities)), encoding="utf-8")
        command = faulty_command("--era", era, "--results-file", served)
        result = cli(command, "check", "--format", "json", "--timeout", "5")
    assert result.code in (0, 1), result
    assert "internal error" not in result.out + result.err and "Traceback" not in result.err, result
    document = result.json()
    assert document["server"].get("protocolVersion") == era, document
    return [f for f in document["findings"] if every_finding or (f["severity"] == "error" and f["rule"] in JUDGES)]


def assert_no_false_positive(cli, era, results):
    for finding in judged_errors(cli, era, results):
        methods = [m for m in JUDGES[finding["rule"]] if m in results]
        rejected = [m for m in methods if schema_rejects(results[m], era, m)]
        assert rejected, "check reports %s, and the %s schema accepts every result it judges: %s\n%s" % (
            finding, era, methods, json.dumps({m: results[m] for m in methods})[:3000])


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_every_result_the_schema_accepts_check_accepts(cli, era):
    results = served_results(era)
    for method, result in results.items():
        assert not schema_rejects(result, era, method), (method, result)
    assert judged_errors(cli, era, results) == []
    ran = cli(faulty_command("--era", era), "check").out
    assert "✓ resources.read-back" in ran, ran


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutations=st.lists(st.tuples(st.sampled_from(WHERE), A_VALUE), min_size=1, max_size=3))
def test_what_check_calls_a_broken_result_the_schema_rejects(cli, era, mutations):
    results = served_results(era)
    for (method, path), value in mutations:
        if method in results:
            results[method] = put(results[method], path, value)
    assert_no_false_positive(cli, era, results)


BOTH_ERAS = ("2025-11-25", "2026-07-28")
EDGES = [
    (BOTH_ERAS, "resources/read", ("contents", 1, "blob"), ""),  # empty base64 is base64
    (BOTH_ERAS, "resources/list", ("resources", 0, "uri"), "urn:isbn:0451450523"),
    (BOTH_ERAS, "resources/templates/list", ("resourceTemplates", 0, "uriTemplate"), "{+path}"),
    (BOTH_ERAS, "resources/templates/list", ("resourceTemplates", 0, "uriTemplate"), "notes/{name}"),
    (BOTH_ERAS, "prompts/list", ("prompts", 0, "arguments"), []),
    (BOTH_ERAS, "completion/complete", ("completion", "values"), []),
    (BOTH_ERAS, "prompts/get", ("messages",), []),
    (BOTH_ERAS, "tools/list", ("tools", 0, "outputSchema"), {"type": "object"}),
    (("2026-07-28",), "tools/list", ("tools", 0, "outputSchema"), {"type": "array", "items": {"type": "string"}}),
    (("2026-07-28",), "tools/list", ("tools", 0, "execution"), {"taskSupport": "sometimes"}),  # not a tool field
    (("2025-11-25",), "tasks/list", ("tasks", 0, "taskId"), ""),  # 2026: tasks/list is gone
    (("2025-11-25",), "ping", ("_meta",), {"x": 1}),
]


@pytest.mark.parametrize("era,method,path,value", [
    (era, method, path, value) for eras, method, path, value in EDGES for era in eras])
def test_edges_the_schema_accepts_pass(cli, era, method, path, value):
    """Each found by the test above at some point, or on the way to it: each a result of its
    era that the era's schema accepts (a case that no longer is fails, rather than skips)."""
    results = served_results(era)
    assert method in results, "the test server no longer serves %s under %s" % (method, era)
    results[method] = put(results[method], path, value)
    assert not schema_rejects(results[method], era, method)
    assert judged_errors(cli, era, results) == []


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("method,path,value,rule", [
    ("resources/read", ("contents", 1, "blob"), "not base64!", "resources.blob-base64"),
    ("resources/list", ("resources", 0, "uri"), "notes.txt", "resources.uri-scheme"),
    ("resources/templates/list", ("resourceTemplates", 0, "uriTemplate"), "file:///{na me}",
     "resources.template-syntax"),
    ("completion/complete", ("completion",), {}, "completion.answers"),
])
def test_broken_results_fail_in_both_eras_and_the_schema_agrees(cli, era, method, path, value, rule):
    results = served_results(era)
    results[method] = put(results[method], path, value)
    assert schema_rejects(results[method], era, method)
    assert rule in [f["rule"] for f in judged_errors(cli, era, results)]


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("method,path,value,rule", [
    ("tools/list", ("tools", 0, "name"), {}, "tools.valid-names"),  # once "unhashable type: 'dict'"
    ("prompts/list", ("prompts", 0, "arguments"), True, "prompts.well-formed"),  # once "'bool' object is not iterable"
])
def test_a_malformed_result_is_a_finding_not_a_crash(cli, era, method, path, value, rule):
    results = served_results(era)
    results[method] = put(results[method], path, value)
    assert schema_rejects(results[method], era, method)
    found = judged_errors(cli, era, results, every_finding=True)  # exit 0 or 1, no internal error, no traceback
    assert rule in [f["rule"] for f in found], found
