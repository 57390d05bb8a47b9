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


def test_check_of_a_2025_session_sends_one_delete_and_no_2026_header(cli, start_server):
    """The http.delete probe ended the session, and the session's own close sent a second
    DELETE; the probes carried Mcp-Method, a header of 2026-07-28 only."""
    server = start_server("--era", "2025-11-25", "--record-http")
    result = cli("--url", server.url, "check")
    assert result.code == 0, result
    assert "✓ http.delete" in result.out, result
    deletes = server.http_requests("DELETE")
    assert len(deletes) == 1, deletes
    from schemas import read_records  # (the authorization probe, sent before any session, has no schema era)

    posts = [r["http"]["headers"] for r in read_records(server.record) if r.get("era") == "2025-11-25" and "http" in r]
    assert posts and not [h for h in posts if "mcp-method" in h], posts
    assert not [r["headers"] for r in server.http_requests("GET") if "mcp-method" in r["headers"]]


def test_check_of_a_2026_server_still_sends_mcp_method(cli, start_server):
    from schemas import read_records

    server = start_server("--era", "2026-07-28")
    result = cli("--url", server.url, "check")
    assert result.code == 0, result
    posts = [r["http"]["headers"] for r in read_records(server.record) if "http" in r]  # check's ping probe too
    versioned = [h for h in posts if "mcp-protocol-version" in h]  # not the bare authorization probe
    assert versioned and all(h.get("mcp-method") for h in versioned), posts
