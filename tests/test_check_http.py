"""`mcp-tui check` over HTTP: the authorization rules against tests/testserver.py --auth (a
correct OAuth setup passes; one planted metadata fault each fails the rule that names it)."""
import json
import sys

import pytest

from conftest import ROOT

FETCH_URL = ROOT / "tests" / "interop" / "fetch_url.py"
BROWSER = {"BROWSER": "%s %s %%s" % (sys.executable, FETCH_URL)}

# --auth-fault -> the rule check names
AUTH_FAULTS = {
    "wrong-resource": "auth.resource-metadata",
    "no-as-metadata": "auth.server-metadata",
    "no-s256": "auth.pkce-s256",
    "plain-http": "auth.https",
}


def findings(result):
    return [(f["rule"], f["severity"]) for f in result.json()["findings"]]


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_correct_oauth_setup_passes_the_authorization_rules(cli, start_server, era):
    server = start_server("--auth")
    result = cli("--url", server.url, "--protocol-version", era, "check", env=BROWSER)
    assert result.code == 0, result
    for rule in AUTH_FAULTS.values():
        assert "✓ %s" % rule in result.out, result


def test_a_server_without_authorization_runs_no_authorization_rule(cli, start_server):
    result = cli("--url", start_server().url, "check")
    assert result.code == 0, result
    assert "auth." not in result.out, result


@pytest.mark.parametrize("fault", sorted(AUTH_FAULTS))
def test_a_planted_authorization_fault_fails_its_rule(cli, start_server, fault):
    server = start_server("--auth", "--auth-fault", fault)
    result = cli("--url", server.url, "check", "--format", "json", env=BROWSER)
    assert result.code == 1, result
    assert (AUTH_FAULTS[fault], "error") in findings(result), result
    assert "internal error" not in result.out + result.err and "Traceback" not in result.err, result


# --http-fault -> (the rule check names, the era to check in)
HTTP_FAULTS = {
    "content-type": ("http.content-type", "2025-11-25"),
    "get-json": ("http.get-stream", "2025-11-25"),
    "delete-500": ("http.delete", "2025-11-25"),
    "method-header": ("http.method-header", "2026-07-28"),
    "cache-scope": ("http.cache-fields", "2026-07-28"),
    "any-session": ("http.unknown-session", "2025-11-25"),
}


@pytest.mark.parametrize("fault", sorted(HTTP_FAULTS))
def test_a_planted_http_fault_fails_its_rule(cli, start_server, fault):
    rule, era = HTTP_FAULTS[fault]
    server = start_server("--http-fault", fault)
    result = cli("--url", server.url, "--protocol-version", era, "check", "--format", "json")
    assert result.code == 1, result
    assert (rule, "error") in findings(result), result
    assert "internal error" not in result.out + result.err and "Traceback" not in result.err, result


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_the_test_server_passes_the_http_rules(cli, start_server, era):
    result = cli("--url", start_server().url, "--protocol-version", era, "check")
    assert result.code == 0, result
    ran = {"2025-11-25": ["http.content-type", "http.get-stream", "http.delete"],
           "2026-07-28": ["http.content-type", "http.get-stream", "http.method-header", "http.cache-fields"]}[era]
    for rule in ran:
        assert "✓ %s" % rule in result.out, result


def test_a_2025_check_sends_one_delete_and_no_2026_header(cli, start_server):
    """Issue 32: check on 2025-11-25 sent DELETE twice (its probe, then the session's close) and put
    the 2026-only Mcp-Method header on its 2025 probes."""
    server = start_server("--verbose")
    result = cli("--url", server.url, "--protocol-version", "2025-11-25", "check")
    assert result.code == 0, result
    records = raw_records(server)  # (the authorization probe before the session has no version header)
    deletes = [line for line in server.stderr_lines if "HTTP DELETE received" in line]
    assert len(deletes) == 1, server.stderr_lines
    with_header = [r for r in records if "mcp-method" in r["http"]["headers"]]
    assert with_header == [], with_header[:2]
    modern = start_server()
    assert cli("--url", modern.url, "--protocol-version", "2026-07-28", "check").code == 0
    assert [r for r in raw_records(modern) if "mcp-method" in r["http"]["headers"]]  # there it belongs


def raw_records(server):
    """What the server saw, as recorded, without the schema check of server.records()."""
    lines = server.record.read_text(encoding="utf-8").splitlines()
    return [record for record in map(json.loads, filter(str.strip, lines)) if "http" in record]
