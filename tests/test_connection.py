"""Connection options: --config files, headers and bearer tokens on every request, the
stdio server's environment and working directory, raw rpc, and the timeout clock."""
import json
import os
import re
import shlex
import signal
import sys

import pytest

from conftest import MCP_TUI_PROCESS, TESTSERVER, signalled, stdio_command, wait_for


def test_config_file_with_env_substitution_and_headers(cli, start_server, tmp_path):
    server = start_server()
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "remote": {"url": server.url, "headers": {"X-Team": "${TEAM}", "Authorization": "Bearer ${env:TOKEN}"}},
        "local": {"command": sys.executable, "args": [str(TESTSERVER)], "env": {"GREETING": "${TEAM}"}}}}))
    env = {"TEAM": "blue", "TOKEN": "tok-from-env"}
    remote = cli("--config", config, "--server", "remote", "tool", "call", "echo", "message=hi", env=env)
    assert remote.code == 0 and remote.out == "Tool response:\nhi\n", remote
    headers = [r["http"]["headers"] for r in server.records()]
    assert headers and all(h.get("x-team") == "blue" and h.get("authorization") == "Bearer tok-from-env"
                           for h in headers)
    local = cli("--config", config, "--server", "local", "tool", "list", env=env)
    assert local.code == 0 and "echo" in local.out, local
    several = cli("--config", config, "tool", "list", env=env)
    assert several.code == 2 and "pick one with --server (local, remote)" in several.err
    missing = cli("--config", config, "--server", "remote", "tool", "list")
    assert missing.code == 2 and "${TEAM}, which is not set" in missing.err


def test_config_defaults_as_claude_code_writes_them(cli, start_server, tmp_path):
    """${VAR:-default} (Claude Code's .mcp.json) was left as it stands: the URL's port was
    '${PORT:-8080}'. The default applies when the variable is unset; a set one wins."""
    server = start_server()
    port = server.url.split(":")[2].split("/")[0]
    config = tmp_path / ".mcp.json"
    config.write_text(json.dumps({"mcpServers": {"web": {
        "url": "http://127.0.0.1:${MCP_TUI_TEST_PORT:-%s}/mcp" % port, "headers": {"X-Team": "${TEAM:-red}"}}}}))
    result = cli("--config", config, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result
    assert all(r["http"]["headers"].get("x-team") == "red" for r in server.records())
    blue = cli("--config", config, "tool", "call", "echo", "message=hi", env={"TEAM": "blue"})
    assert blue.code == 0, blue
    assert server.records()[-1]["http"]["headers"].get("x-team") == "blue"


@pytest.mark.parametrize("key", ["httpUrl", "serverUrl"])
def test_config_urls_as_gemini_cli_and_windsurf_write_them(cli, start_server, tmp_path, key):
    """Gemini CLI's settings.json names a streamable HTTP server's URL httpUrl, Windsurf's
    mcp_config.json serverUrl: both were "the server ... has neither command nor url"."""
    server = start_server()
    config = tmp_path / "settings.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {key: server.url}}}))
    result = cli("--config", config, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result


def test_vs_code_servers_file(cli, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"t": {"type": "stdio", "command": sys.executable,
                                                    "args": [str(TESTSERVER)]}}}))
    result = cli("--config", config, "tool", "call", "echo", "message=vscode")
    assert result.code == 0 and "vscode" in result.out, result


@pytest.mark.parametrize("body, error", [
    ([{"command": "x"}], "--config {path} lists no servers (mcpServers or servers)"),
    ({"mcp": 5}, "--config {path} lists no servers (mcpServers or servers)"),
    ({"mcpServers": {"s": "python3 server.py"}},
     "the server 's' in {path} is a string, not an object (command and args, or url)"),
    ({"mcpServers": {"s": {"command": 5}}}, "the server 's' in {path}: command is an integer, not a string"),
    ({"mcpServers": {"s": {"command": "python3", "args": "server.py"}}},
     "the server 's' in {path}: args is a string, not an array"),
    ({"mcpServers": {"s": {"command": "python3", "env": ["A=1"]}}},
     "the server 's' in {path}: env is an array, not an object"),
    ({"mcpServers": {"s": {"command": "python3", "env": {"N": 5}}}},
     "the server 's' in {path}: env 'N' is an integer, not a string"),
    ({"mcpServers": {"s": {"url": "http://127.0.0.1:9/mcp", "headers": {"X-N": 5}}}},
     "the server 's' in {path}: headers 'X-N' is an integer, not a string"),
    ({"mcpServers": {"s": {"url": 5}}}, "the server 's' in {path}: url is an integer, not a string"),
    ({"mcpServers": {"s": {"command": "python3", "cwd": 5}}}, "the server 's' in {path}: cwd is an integer, not a string"),
    ({"mcpServers": {"s": {}}}, "the server 's' in {path} has neither command nor url"),
])
def test_a_config_entry_of_the_wrong_shape_is_one_usage_line(cli, tmp_path, body, error):
    """A hand-edited file with a string where an array goes: exit 2 and the field named,
    never an internal error (nor args split into characters)."""
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps(body))
    result = cli("--config", config, "--server", "s", "tool", "list")
    assert (result.code, result.out) == (2, ""), result
    assert result.err == "mcp-tui: %s\n" % error.format(path=config)


def test_header_and_bearer_go_on_every_request(cli, start_server):
    server = start_server("--page-ms", "5")
    flags = ["--url", server.url, "-H", "X-Trace: 42", "--bearer", "tok-123"]
    result = cli(*flags, "tool", "call", "render_report", "quarter=Q4", "--task", "--wait")
    assert result.code == 0, result
    # --wait polls with tasks/get unless the listen stream brought the end first (a loaded
    # machine): a follow-up command makes the tasks/get certain, under the same flags.
    task_id = re.search(r"Task (\S+) created", result.err).group(1)
    assert cli(*flags, "task", "get", "--", task_id).code == 0
    records = server.records()
    assert {r["message"].get("method") for r in records} >= {"server/discover", "tools/call", "tasks/get",
                                                             "subscriptions/listen"}
    for record in records:
        assert record["http"]["headers"].get("x-trace") == "42"
        assert record["http"]["headers"].get("authorization") == "Bearer tok-123"


def test_bearer_from_the_environment(cli, start_server):
    server = start_server()
    assert cli("--url", server.url, "ping", env={"MCP_TUI_BEARER": "env-token"}).code == 0
    assert all(r["http"]["headers"].get("authorization") == "Bearer env-token" for r in server.records())


def test_cmd_args_env_and_cwd(cli, tmp_path):
    script = tmp_path / "envserver.py"
    script.write_text("import os, runpy, sys\n"
                      "sys.stderr.write('cwd=%%s env=%%s\\n' %% (os.getcwd(), os.environ.get('PROBE')))\n"
                      "sys.argv = [%r] + sys.argv[1:]\nrunpy.run_path(%r, run_name='__main__')\n"
                      % (str(TESTSERVER), str(TESTSERVER)))
    result = cli("--cmd", sys.executable, "--args", str(script), "--env", "PROBE=yes", "--cwd", tmp_path,
                 "--debug", "ping")
    assert result.code == 0, result
    assert "cwd=%s env=yes" % tmp_path in result.err


def test_rpc_sends_any_request(cli):
    result = cli(stdio_command(), "--format", "json", "rpc", "tools/call",
                 '{"name": "echo", "arguments": {"message": "raw"}}')
    assert result.code == 0, result
    assert result.json()["result"]["content"][0]["text"] == "raw"
    bad = cli(stdio_command(), "rpc", "tools/call", "{nope")
    assert bad.code == 2 and "not valid JSON" in bad.err
    # it went out with an id, and the server answered "-32601 Method not found"
    note = cli(stdio_command(), "rpc", "notifications/initialized")
    assert (note.code, note.out, note.err) == (2, "", "mcp-tui: rpc sends requests, and notifications/initialized is "
                                                      "a notification; nothing was sent\n"), note


def test_progress_restarts_the_clock_but_the_hard_cap_holds(cli):
    server = stdio_command()
    slow = ["tool", "call", "long_operation", "steps=4", "step_ms=600"]
    kept_alive = cli(server, "--timeout", "1", *slow)
    assert kept_alive.code == 0, kept_alive
    capped = cli(server, "--timeout", "1", "--max-time", "1.5", *slow)
    assert capped.code == 1, capped
    assert "no answer to tools/call" in capped.err


def test_header_values_with_line_breaks_are_refused(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "-H", "X-Evil: a\r\nInjected: yes", "tool", "list")
    assert result.code == 2, result
    assert "line break" in result.err and len(result.err.strip().splitlines()) == 1
    assert server.records() == []  # nothing was sent


@pytest.mark.parametrize("value,env", [("secret:71b1af6a\r\nX-Injected: yes", None), ("secret:71b1af6a\nX: y", None),
                                       ("${KEY_WITH_A_BREAK}", {"KEY_WITH_A_BREAK": "secret:71b1af6a\r\nX: y"})])
def test_a_config_header_with_a_line_break_is_a_usage_error_naming_the_header(cli, start_server, tmp_path, value, env):
    """It went as far as http.client: "Invalid header value b'secret:71b1af6a...'", the secret shown."""
    server = start_server()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"url": server.url, "headers": {"X-Key": value}}}}))
    result = cli("--config", config, "--server", "s", "tool", "list", env=env)
    assert (result.code, result.out) == (2, ""), result
    assert result.err == ("mcp-tui: the server 's' in %s: header 'X-Key' has a line break or NUL, which would "
                          "inject another header\n" % config), result
    assert server.records() == []  # nothing was sent


def test_an_http_client_refuses_a_header_value_with_a_line_break_without_showing_it():
    import mcp_tui

    with pytest.raises(mcp_tui.UsageError) as refused:
        mcp_tui.HttpClient("http://127.0.0.1:9/mcp", headers={"X-Key": "secret:71b1af6a\r\nX: y"})
    assert refused.value.message == ("the value of header 'X-Key' has a line break or NUL, which would inject "
                                     "another header")


@pytest.mark.parametrize("source", ["--bearer", "$MCP_TUI_BEARER"])
def test_a_bearer_token_with_a_line_break_is_refused(cli, start_server, source):
    server = start_server()
    token = "tok-SECRET\r\nX-Injected: yes"
    flags, env = (["--bearer", token], None) if source == "--bearer" else ([], {"MCP_TUI_BEARER": token})
    result = cli("--url", server.url, *flags, "tool", "list", env=env)
    assert (result.code, result.out) == (2, ""), result
    assert result.err == "mcp-tui: %s has a line break or NUL, which would inject another header\n" % source
    assert server.records() == []  # nothing was sent


@pytest.mark.skipif(os.name == "nt", reason="a command line of bytes: POSIX")
@pytest.mark.parametrize("source", ["--bearer", "$MCP_TUI_BEARER", "--header 'X-A'"])
def test_a_header_or_bearer_with_a_byte_that_is_no_character_is_a_usage_error(cli, start_server, source):
    """Probe D10: a \\x85 byte (a lone surrogate once decoded) was an internal error,
    UnicodeEncodeError from hashing the secret."""
    server = start_server()
    value = "ab" + os.fsdecode(b"\x85") + "c"
    flags, env = {"--bearer": (["--bearer", value], None), "$MCP_TUI_BEARER": ([], {"MCP_TUI_BEARER": value}),
                  "--header 'X-A'": (["--header", "X-A: " + value], None)}[source]
    result = cli("--url", server.url, *flags, "tool", "list", env=env)
    assert (result.code, result.out) == (2, ""), result
    assert result.err == ("mcp-tui: %s has a byte that is no character in your locale's encoding, which a header "
                          "cannot carry\n" % source), result
    assert server.records() == []  # nothing was sent


def test_a_probe_ended_by_max_time_names_max_time(cli):
    """A silent stdio server: --max-time 2 ended the run while server/discover waited; the
    message used to blame '5s of server/discover (--probe-timeout)'."""
    silent = "%s -c %s" % (shlex.quote(sys.executable), shlex.quote("import time; time.sleep(60)"))
    capped = cli(silent, "--max-time", "2", "tool", "list")
    assert capped.code == 1, capped
    assert capped.err.startswith("mcp-tui: no answer to server/discover within 2s (the --max-time cap)"), capped
    assert "5s" not in capped.err and "--probe-timeout" not in capped.err
    probed = cli(silent, "--timeout", "1", "tool", "list")  # the probe waits min(--probe-timeout, --timeout)
    assert "neither server/discover nor initialize within 2s (raise --timeout" in probed.err, probed  # and init 1 s


def test_bearer_token_is_in_no_error_and_not_in_help(cli):
    result = cli("--url", "http://127.0.0.1:9/mcp", "--bearer", "tok-SECRET-42", "tool", "list")
    assert result.code == 1 and "tok-SECRET-42" not in result.err
    shown = cli("--help", env={"MCP_TUI_BEARER": "tok-SECRET-42"})
    assert shown.code == 0 and "tok-SECRET-42" not in shown.out


def test_a_stdio_command_is_never_run_by_a_shell(cli, tmp_path):
    marker = tmp_path / "pwned"
    result = cli("%s %s ; touch %s" % (sys.executable, TESTSERVER, marker), "tool", "list")
    assert not marker.exists()
    assert result.code == 1, result
    assert "unrecognized arguments: ; touch" in result.err  # they reached the server as its own arguments


def test_a_vs_code_file_with_comments_and_trailing_commas(cli, tmp_path):
    """VS Code's mcp.json is JSONC: its documented examples have comments."""
    config = tmp_path / "mcp.json"
    config.write_text('{\n  // my servers\n  "servers": {\n    "t": {"type": "stdio", "command": %s,\n'
                      '          "args": [%s], /* the test server */},\n  },\n}\n'
                      % (json.dumps(sys.executable), json.dumps(str(TESTSERVER))))
    result = cli("--config", config, "tool", "call", "echo", "message=jsonc // not a comment")
    assert result.code == 0 and "jsonc // not a comment" in result.out, result
    broken = tmp_path / "broken.json"
    broken.write_text('{"servers": {"t": ')
    refused = cli("--config", broken, "tool", "list")
    assert refused.code == 2 and "is not valid JSON" in refused.err, refused


@pytest.mark.parametrize("body", ["/* " * 200000, '{"servers": "' + '\\"' * 200000])
def test_a_config_of_unclosed_comments_or_strings_is_one_line_at_once(cli, tmp_path, body):
    """The comment stripper retried an unclosed /* (or string) at every later one: 120 KB took
    15 s of CPU; these 600 KB would take half an hour and overrun the run's guard."""
    config = tmp_path / "mcp.json"
    config.write_text(body)
    result = cli("--config", config, "tool", "list", timeout=60)
    assert (result.code, result.out) == (2, ""), result
    assert result.err.startswith("mcp-tui: --config %s is not valid JSON: " % config), result
    assert len(result.err.splitlines()) == 1, result


def test_a_vs_code_input_variable_is_named_as_such(cli, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"t": {"command": sys.executable, "args": [str(TESTSERVER)],
                                                    "env": {"KEY": "${input:api-key}"}}},
                                  "inputs": [{"type": "promptString", "id": "api-key", "password": True}]}))
    result = cli("--config", config, "tool", "list")
    assert result.code == 2, result
    assert result.err == ("mcp-tui: server 't' in %s uses ${input:api-key}, a VS Code input, which mcp-tui does not "
                          "prompt for (put the value in an environment variable and write ${env:NAME} there)\n"
                          % config), result


def test_a_url_without_its_scheme_is_not_run_as_a_program(cli, start_server):
    server = start_server()
    bare = server.url.split("://", 1)[1]
    result = cli("--url", bare, "tool", "list")
    assert result.code == 2, result
    assert result.err == ("mcp-tui: --url takes an http:// or https:// URL (did you mean --url %s?)\n"
                          % server.url), result
    assert server.records() == []
    other = cli("--url", "ftp://127.0.0.1/mcp", "tool", "list")
    assert other.code == 2 and other.err == "mcp-tui: --url takes an http:// or https:// URL, not ftp://\n", other


def test_an_unquoted_server_command_gets_the_quoted_one(cli):
    result = cli(sys.executable, str(TESTSERVER), "tool", "call", "echo", "message=hi")
    as_typed = " ".join(shlex.quote(word) for word in (sys.executable, str(TESTSERVER)))
    assert result.code == 2, result
    assert result.err == ("mcp-tui: unknown command %r (quote the server's whole command line as one argument: "
                          "mcp-tui %s tool call echo message=hi)\n" % (str(TESTSERVER), shlex.quote(as_typed))), result
    typo = cli(stdio_command(), "tol", "list")
    assert typo.code == 2 and typo.err == "mcp-tui: unknown command 'tol' (did you mean 'tool'?)\n", typo
    other = cli(stdio_command(), "xyzzy")
    assert other.code == 2 and other.err == "mcp-tui: unknown command 'xyzzy' (see mcp-tui --help)\n", other


@pytest.mark.parametrize("flags, error", [
    (["--url", "http://[::1/mcp"], "cannot use the URL: Invalid IPv6 URL"),
    (["--url", "http://127.0.0.1:99999/mcp"], "cannot use the URL: Port out of range 0-65535"),
    # http.client cannot encode these: "cannot reach ...: 'ascii' codec can't encode", exit 1
    (["--url", "http://127.0.0.1:9/mcp", "-H", "X-Équipe: bleu"],
     "the header name 'X-Équipe' is not an HTTP token (ASCII letters, digits and !#$%&'*+-.^_`|~)"),
    (["--url", "http://127.0.0.1:9/mcp", "--bearer", "tøken-世界"],
     "the value of header 'Authorization' has a character HTTP headers cannot carry (they are Latin-1) "
     "(percent-encode or Base64 it, as the server expects)"),
    # the OAuth options are checked before connecting: each was an internal error (no stderr_lines)
    (["--url", "http://127.0.0.1:9/mcp", "--grant", "client_credentials"],
     "--grant client_credentials needs --client-id and --client-secret or --private-key"),
    (["--url", "http://127.0.0.1:9/mcp", "--client-metadata-url", "http://x"],
     "--client-metadata-url must be an https URL"),
])
def test_a_url_or_oauth_option_that_cannot_work_is_bad_usage(cli, flags, error):
    result = cli(*flags, "tool", "list")
    assert (result.code, result.out) == (2, ""), result
    assert result.err.startswith("mcp-tui: %s" % error), result


def test_a_header_without_its_colon_is_not_echoed(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "-H", "Authorization Bearer tok-SECRET-42", "tool", "list")
    assert result.code == 2, result
    assert result.err == ("mcp-tui: --header needs 'Name: value' (a name without spaces, a colon, then the "
                          "value)\n"), result
    assert server.records() == []


def test_a_silent_server_s_stdout_junk_is_quoted_in_the_timeout(cli):
    chatty = "%s -c %s" % (shlex.quote(sys.executable),
                           shlex.quote("import time; print('hello', flush=True); time.sleep(120)"))
    result = cli(chatty, "--protocol-version", "2025-11-25", "--timeout", "5", "tool", "list")
    assert result.code == 1, result
    assert result.err.endswith('(meanwhile the server sent "hello" on stdout (invalid JSON: Expecting value: line 1 '
                               "column 1 (char 0)))\n"), result


def test_a_host_that_does_not_resolve_is_said_in_words(cli):
    result = cli("--url", "http://mcp-tui-test.invalid/mcp", "--timeout", "10", "tool", "list")  # RFC 6761
    assert result.code == 1, result
    assert result.err.startswith("mcp-tui: cannot reach http://mcp-tui-test.invalid/mcp: the host name does not "
                                 "resolve ("), result
    assert "Errno" not in result.err, result


def test_two_connections_are_refused_not_one_silently_dropped(cli, start_server, tmp_path):
    server = start_server()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {"t": {"command": sys.executable, "args": [str(TESTSERVER)]}}}))
    cases = [(["--config", config, "--url", server.url], "--url and --config"),
             (["--cmd", sys.executable, "--args", str(TESTSERVER), "--url", server.url], "--url and --cmd"),
             ([stdio_command(), "--url", server.url], "--url and a stdio command line")]
    for connection, named in cases:
        result = cli(*connection, "server")
        assert result.code == 2, result
        assert result.err == "mcp-tui: two connections given (%s); give one\n" % named, result
    assert server.records() == []
    typo = cli("--url", server.url, "tol", "list")
    assert typo.code == 2 and typo.err == "mcp-tui: unknown command 'tol' (did you mean 'tool'?)\n", typo


def test_a_cmd_argument_that_starts_with_a_dash_gets_the_equals_form(cli):
    refused = cli("--cmd", sys.executable, "--args", "-u", "--args", str(TESTSERVER), "tool", "list")
    assert refused.code == 2, refused
    assert refused.err == ("mcp-tui: argument --args: expected one argument; a value that starts with '-' is "
                           "written --args=VALUE (see mcp-tui --help)\n"), refused
    written = cli("--cmd", sys.executable, "--args=-u", "--args", str(TESTSERVER), "tool", "list")
    assert written.code == 0 and "echo" in written.out, written


def group_alive(pgid):
    """Whether any process of the group lives (zombies waiting for a reaper do not count)."""
    from pathlib import Path

    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


posix_signals = pytest.mark.skipif(not os.path.isdir("/proc") or not hasattr(signal, "SIGHUP"),
                                   reason="SIGHUP and /proc are POSIX (Linux)")


@posix_signals
@pytest.mark.parametrize("name,code", [("SIGTERM", 143), ("SIGHUP", 129)])
@pytest.mark.parametrize("phase", ["connect", "call"])
def test_sigterm_and_sighup_stop_the_stdio_server_as_ctrl_c_does(state_dir, tmp_path, name, code, phase):
    """`timeout`, a closed SSH session or a service manager: mcp-tui used to die at once and
    leave its stdio server under PID 1. Here the server is a shell that outlives its end of
    input (as the everything server does), in its own process group: the group must go."""
    pid_file, record = tmp_path / "server.pid", tmp_path / "record.jsonl"
    server = "%s; sleep 60" % stdio_command("--record", record) if phase == "call" else "sleep 60"  # never answers
    command = "sh -c %s" % shlex.quote("echo $$ > %s; %s" % (shlex.quote(str(pid_file)), server))
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")

    def started():
        return pid_file.exists() and pid_file.read_text().strip()

    def ready():
        return started() and (phase != "call" or record.exists() and '"tools/call"' in record.read_text())

    returncode, out, err = signalled(MCP_TUI_PROCESS + [command, "--timeout", "60", "tool", "call",
                                      "long_operation", "steps=1", "step_ms=60000"], env, ready, name)
    group = int(started())
    assert returncode == code, (out, err)
    assert err.splitlines()[-1] == "mcp-tui: terminated by %s" % name, err
    assert "Traceback" not in err
    wait_for(lambda: not group_alive(group), timeout=15)


@posix_signals
@pytest.mark.parametrize("name,code", [("SIGTERM", 143), ("SIGHUP", 129), ("SIGINT", 130)])
def test_json_error_of_a_signalled_run_says_the_exit_code_it_exits_with(state_dir, tmp_path, name, code):
    """`--format json` said "exitCode": 1 while the process exited 143 (129, 130): a script
    that reads the JSON saw a different end from the shell's."""
    record = tmp_path / "record.jsonl"
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    returncode, out, err = signalled(MCP_TUI_PROCESS + [stdio_command("--record", record), "--format",
                                      "json", "tool", "call", "long_operation", "steps=1", "step_ms=60000"], env,
                                     lambda: record.exists() and '"tools/call"' in record.read_text(), name)
    assert returncode == code, (out, err)
    error = json.loads(err.splitlines()[-1])["error"]
    assert error["exitCode"] == code, err


@posix_signals
def test_a_signal_whose_exception_lands_in_a_lock_still_ends_the_run_as_terminated(monkeypatch, capsys, state_dir):
    """A SIGTERM's exception raised inside a lock's own bookkeeping came out of the run as
    `internal error: RuntimeError: release unlocked lock` (seen once in a full test run, in
    the test above): the signal ended the run, and the run says so with its exit code."""
    import mcp_tui

    def run(cli):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10 ** 7):  # the handler runs between two of these bytecodes
                pass
        except mcp_tui.Terminated:
            raise RuntimeError("release unlocked lock")  # what threading's Condition.wait raised
        raise AssertionError("SIGTERM was not delivered")

    monkeypatch.setenv("MCP_TUI_STATE_DIR", str(state_dir))
    monkeypatch.setattr(mcp_tui.Cli, "run", run)
    previous = signal.getsignal(signal.SIGTERM)
    code = mcp_tui.main(["%s %s" % (sys.executable, TESTSERVER), "tool", "list"])
    assert signal.getsignal(signal.SIGTERM) == previous
    err = capsys.readouterr().err
    assert code == 143 and err.splitlines()[-1] == "mcp-tui: terminated by SIGTERM", err
    assert "internal error" not in err
