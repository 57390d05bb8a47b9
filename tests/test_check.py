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
    "endless-cursor": ("pagination.cursor-progress", []),
    "unknown-tool-success": ("tools.unknown-tool", []),
    "no-ping": ("lifecycle.ping", ["--timeout", "2"]),
    "missing-method": ("capabilities.declared-answer", []),
    "uri-without-scheme": ("resources.uri-scheme", []),
    "stdout-logs": ("lifecycle.stdout-clean", []),
    "notification-with-id": ("lifecycle.notification-id", []),
    "blob-not-base64": ("resources.blob-base64", []),
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
        assert set(finding) == {"rule", "severity", "message", "fix", "where"}
        assert finding["message"] and finding["fix"]
    assert document["summary"]["errors"] == len(errors)


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
    suite = ElementTree.parse(str(junit)).getroot()
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
