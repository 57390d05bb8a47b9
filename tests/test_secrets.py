"""Secrets stay secret: the bearer, every -H value, ${VAR} expansions from --config, URL
userinfo and query values never appear in what mcp-tui prints or writes (error lines in
text and JSON, --debug, --trace, --log-file, the task ledger), even when a hostile server
(tests/badserver.py --mode echo-secrets) echoes them back in a JSON-RPC error, a 401 body
or a 500 body.
"""
import json
import os
import stat
import sys

import pytest

from conftest import ROOT
from test_reliability import BADSERVER, MODERN, bad, error_line  # noqa: F401 (bad is a fixture)

TOKEN = "tok-SECRET-bearer-4711"
API_KEY = "key-SECRET-header-0815"
PASSWORD = "pw-SECRET-userinfo-1234"
QUERY = "q-SECRET-query-9876"
ENV_SECRET = "env-SECRET-expanded-5555"
ALL = (TOKEN, API_KEY, PASSWORD, QUERY, ENV_SECRET)


def leaks(*texts):
    return [secret for secret in ALL for text in texts if secret in text]


@pytest.mark.parametrize("status", [0, 401, 500], ids=["jsonrpc-error", "401-body", "500-body"])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_an_echoed_secret_is_masked_everywhere(cli, bad, tmp_path, status, fmt):
    target = bad("http", MODERN, "echo-secrets", "--status", status)
    url = target.url.replace("http://", "http://alice:%s@" % PASSWORD) + "?key=" + QUERY
    log = tmp_path / "debug.jsonl"
    result = cli("--url", url, "--bearer", TOKEN, "-H", "X-Api-Key: " + API_KEY, "--debug", "--trace",
                 "--log-file", log, "--format", fmt, "tool", "list")
    assert result.code == 1, result
    echoed = [r for r in target.http("POST") if (r.get("message") or {}).get("method") == "tools/list"]
    assert echoed and echoed[0]["http"]["headers"]["x-api-key"] == API_KEY  # the server did see them
    line = error_line(result) if fmt == "text" else result.err.strip().splitlines()[-1]
    assert "I saw" in line, line
    if fmt == "json":
        assert json.loads(line)["error"]["kind"]
    assert not leaks(result.out, result.err, log.read_text(encoding="utf-8")), result
    assert "secret:" in line or "q:" in line, line  # masked, not dropped


def test_config_expansions_are_masked_and_never_stored(cli, bad, tmp_path, state_dir):
    config = tmp_path / "mcp.json"
    echoer = {"command": sys.executable, "env": {"MCP_TEST_ECHO": "${MCP_TEST_SECRET}"},
              "args": [str(BADSERVER), "--mode", "echo-secrets", "--elicit-url", "https://x.example/${env:MCP_TEST_SECRET}"]}
    plain = {"url": bad("http", MODERN, "ok").url + "?key=${MCP_TEST_SECRET}", "headers": {"X-Key": "${MCP_TEST_SECRET}"}}
    config.write_text(json.dumps({"mcpServers": {"echoer": echoer, "plain": plain}}))
    env = {"MCP_TEST_SECRET": ENV_SECRET}
    failed = cli("--config", config, "--server", "echoer", "--debug", "tool", "list", env=env)
    assert failed.code == 1 and "I saw" in error_line(failed), failed
    assert not leaks(failed.out, failed.err), failed
    assert "env:" in error_line(failed), failed
    created = cli("--config", config, "--server", "plain", "tool", "call", "slow_task", "--task", env=env)
    assert created.code == 0, created
    ledger = (state_dir / "tasks.json").read_text(encoding="utf-8")
    assert ENV_SECRET not in ledger and "${MCP_TEST_SECRET}" not in ledger, ledger
    record = list(json.loads(ledger).values())[0]["connection"]
    assert record["config"] == str(config) and record["server"] == "plain", record
    task_id = created.out.split()[1]
    again = cli("task", "get", task_id, env=env)  # the ledger reads the config file again
    assert again.code == 0 and "Status:   working" in again.out, again


def test_query_values_stay_out_of_the_ledger(cli, bad, state_dir):
    target = bad("http", MODERN, "ok")
    created = cli("--url", target.url + "?key=" + QUERY, "tool", "call", "slow_task", "--task")
    assert created.code == 0, created
    ledger = (state_dir / "tasks.json").read_text(encoding="utf-8")
    assert QUERY not in ledger, ledger
    result = cli("task", "get", created.out.split()[1])
    assert result.code == 2 and "pass --url again" in result.err, result


@pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")
def test_the_log_file_is_private(cli, bad, tmp_path):
    log = tmp_path / "debug.jsonl"
    log.write_text("")
    log.chmod(0o644)
    assert cli(*bad("stdio", MODERN, "ok").args, "--log-file", log, "ping").code == 0
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    fresh = tmp_path / "fresh.jsonl"
    assert cli(*bad("stdio", MODERN, "ok").args, "--log-file", fresh, "ping").code == 0
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


def test_the_labels_are_the_ones_the_readme_names(cli):
    """README "Secrets": secret:, q: and env: labels, each with an 8-character fingerprint; a URL
    or header value mcp-tui shows itself is labelled whatever its length."""
    import mcp_tui

    result = cli("--url", "http://127.0.0.1:9/mcp?key=abcdefgh&short=ab", "ping")
    assert result.code == 1, result
    assert "key=q:%s" % mcp_tui.fingerprint("abcdefgh") in result.err, result
    assert "short=q:%s" % mcp_tui.fingerprint("ab") in result.err, result
    assert "abcdefgh" not in result.err, result
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for label in ("`secret:1a2b3c4d`", "`q:1a2b3c4d`", "`env:1a2b3c4d`"):
        assert label in readme
