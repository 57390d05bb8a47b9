"""`mcp-tui check`'s "honest capabilities" rules on listChanged and resources.subscribe, in
both eras: tests/faultyserver.py with one planted fault fails the rule that names it (an
error exits 1; a warning exits 0, and 1 under --strict). Under 2025-11-25 check subscribes
and unsubscribes again; under 2026-07-28 it opens one subscriptions/listen and closes it."""

import pytest

from conftest import faulty_command, stdio_command

LEGACY, MODERN = "2025-11-25", "2026-07-28"

# (fault, era) -> (the rule check names, its severity)
PLANTED = {
    ("subscribe-missing", LEGACY): ("capabilities.subscribe", "error"),
    ("subscribe-missing", MODERN): ("capabilities.subscribe", "error"),
    ("subscribe-unclaimed", LEGACY): ("capabilities.subscribe-unclaimed", "warning"),
    ("subscribe-unclaimed", MODERN): ("capabilities.subscribe-unclaimed", "warning"),
    ("list-changed-undeclared", LEGACY): ("capabilities.list-changed", "error"),
    ("list-changed-undeclared", MODERN): ("capabilities.list-changed", "error"),
    ("list-changed-unclaimed", LEGACY): ("capabilities.list-changed-unclaimed", "warning"),
    ("list-changed-unclaimed", MODERN): ("capabilities.list-changed-unclaimed", "warning"),
    ("list-changed-not-boolean", LEGACY): ("capabilities.list-changed", "error"),
    ("list-changed-not-boolean", MODERN): ("capabilities.list-changed", "error"),
    ("listen-missing", MODERN): ("capabilities.list-changed", "error"),
}
MARKS = {"error": "✗", "warning": "⚠"}


def faulty(fault, era):
    return faulty_command("--fault", fault, "--era", era)


@pytest.mark.parametrize("fault,era", sorted(PLANTED))
def test_a_planted_claim_fault_fails_its_rule(cli, fault, era):
    rule, severity = PLANTED[fault, era]
    extra = ["--strict"] if severity == "warning" else []
    result = cli(faulty(fault, era), "check", *extra)
    assert result.code == 1, result
    marked = [line.split()[1] for line in result.out.splitlines() if line.strip().startswith(MARKS[severity])]
    assert rule in marked, result
    assert "internal error" not in result.out + result.err and "Traceback" not in result.err, result
    document = cli(faulty(fault, era), "check", "--format", "json").json()
    assert (rule, severity) in [(f["rule"], f["severity"]) for f in document["findings"]], document


@pytest.mark.parametrize("fault", ["subscribe-unclaimed", "list-changed-unclaimed"])
def test_a_warning_alone_passes_without_strict(cli, fault):
    for era in (LEGACY, MODERN):
        result = cli(faulty(fault, era), "check")
        assert result.code == 0, result
        assert "⚠ " + PLANTED[fault, era][0] in result.out, result


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_honest_claims_pass(cli, era):
    result = cli(faulty("none", era), "check", "--format", "json")
    assert result.code == 0, result
    document = result.json()
    assert document["server"]["protocolVersion"] == era
    assert [f for f in document["findings"] if f["rule"].startswith("capabilities.")] == [], document
    ran = cli(faulty("none", era), "check").out
    assert "✓ capabilities.subscribe " in ran and "✓ capabilities.list-changed " in ran, ran


@pytest.mark.parametrize("protocol", ["auto", LEGACY])
def test_the_test_server_keeps_its_claims_over_http(cli, start_server, protocol):
    server = start_server()
    result = cli("--url", server.url, "check", "--protocol-version", protocol, "--format", "json")
    assert result.code == 0, result
    assert [f for f in result.json()["findings"] if f["rule"].startswith("capabilities.")] == [], result
    ran = cli("--url", server.url, "check", "--protocol-version", protocol).out  # the rules ran, and passed
    assert "✓ capabilities.subscribe " in ran and "✓ capabilities.list-changed " in ran, ran


def test_a_server_that_claims_nothing_may_refuse_to_listen(cli):
    """--no-listen: no listChanged, no subscribe, and subscriptions/listen says -32601 (FastMCP)."""
    result = cli(stdio_command("--no-listen"), "check", "--format", "json")
    assert result.code == 0, result
    assert [f for f in result.json()["findings"] if f["rule"].startswith("capabilities.")] == [], result
    ran = cli(stdio_command("--no-listen"), "check").out  # the rules ran, and passed
    assert "✓ capabilities.list-changed " in ran and "✓ capabilities.subscribe-unclaimed" in ran, ran
