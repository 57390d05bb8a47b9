"""`mcp-tui check --config [FILE]` without --server (issue 47 item 3): every server of a host's
config file checked at once, in one report (text, JSON, JUnit) with a section per server, and
the file's own findings: a secret written out, plain HTTP off this machine, a command not on
PATH, names given twice or nearly, a server already tapped, a ${VAR} not set."""
import json
import sys
import xml.etree.ElementTree as ElementTree

import cached_script
from conftest import FAULTYSERVER, ROOT, TESTSERVER


def entry(script, *flags, **fields):
    argv = cached_script.command(script) + [str(flag) for flag in flags]
    return dict({"command": argv[0], "args": argv[1:]}, **fields)


def write_config(tmp_path, servers, text=None):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(text if text is not None else json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def test_every_server_of_a_config_file_is_checked_in_one_report_and_a_faulty_one_fails_it(cli, tmp_path,
                                                                                          start_server):
    """Several test servers (stdio in each era, HTTP) and one faulty server: each named, with its
    era, name, version and time to its first answer; the faulty one's finding; exit 1. It stopped
    at "has several servers; pick one"."""
    http = start_server()
    config = write_config(tmp_path, {
        "tests": entry(TESTSERVER), "legacy": entry(FAULTYSERVER), "modern": entry(FAULTYSERVER, "--era", "2026-07-28"),
        "remote": {"url": http.url}, "broken": entry(FAULTYSERVER, "--fault", "blob-not-base64")})
    result = cli("check", "--config", config, "--timeout", "20")
    assert result.code == 1, result
    out = result.out
    assert out.startswith("Checked 5 servers of %s\n" % config), result
    for name in ("tests", "legacy", "modern", "remote", "broken"):
        assert '\n== server "%s" (' % name in out, result
    assert '== server "modern" (%s): connects, 2026-07-28, faultyserver 1.0, first answer in ' % " ".join(
        cached_script.command(FAULTYSERVER) + ["--era", "2026-07-28"]) in out, result
    assert '== server "remote" (%s): connects, 2026-07-28, mcp-tui-testserver ' % http.url in out, result
    broken = out[out.index('== server "broken"'):]
    assert "✗ resources.blob-base64" in broken.split("\n== ")[0], result
    assert out.rstrip().splitlines()[-1].startswith("5 servers: 5 connected, 1 failed (broken); the file: 0 errors, "
                                                    "0 warnings; "), result

    junit = tmp_path / "check.xml"
    document = cli("check", "--config", config, "--timeout", "20", "--format", "json", "--junit", junit).json()
    assert [s["name"] for s in document["servers"]] == ["tests", "legacy", "modern", "remote", "broken"]
    assert all(s["connects"] and s["firstAnswerMs"] > 0 and s["serverInfo"]["version"] for s in document["servers"])
    assert [s["protocolVersion"] for s in document["servers"]][1:3] == ["2025-11-25", "2026-07-28"]
    assert document["summary"]["failed"] and document["summary"]["failedServers"] == ["broken"], document["summary"]
    (broken,) = [s for s in document["servers"] if s["name"] == "broken"]
    assert [f["rule"] for f in broken["findings"]] == ["resources.blob-base64"]
    suites = list(ElementTree.parse(str(junit)).getroot())
    assert [s.get("name") for s in suites] == ["mcp-tui check --config"] + [
        "mcp-tui check %s (%s)" % (name, config) for name in ("tests", "legacy", "modern", "remote", "broken")]


def test_the_file_s_own_findings_with_secrets_masked(cli, tmp_path):
    token, key = "ghp_abcdefghijklmnop123456", "sk-live-0123456789abcdef"
    tapped = entry(FAULTYSERVER)
    tapped = {"command": sys.executable, "args": [str(ROOT / "mcp_tui.py"), "tap", "--name", "faulty", "--",
                                                  tapped["command"]] + tapped["args"]}
    text = json.dumps({"mcpServers": {
        "github": entry(FAULTYSERVER, "--token=" + token, env={"GITHUB_API_KEY": key, "LOG_LEVEL": "debug-verbose"}),
        "remote": {"url": "http://mcp.example.invalid/mcp", "headers": {"Authorization": "Bearer ${MCP_TUI_T1}"}},
        "local": {"url": "http://127.0.0.1:9/mcp"},
        "gone": {"command": "mcp-tui-no-such-program"},
        "GitHub": entry(FAULTYSERVER),
        "watched": tapped,
        "twice": entry(FAULTYSERVER)}}, indent=1)
    text = text.replace('\n  "twice"', '\n  "twice": {"command": "x"},\n  "twice"')  # the name given twice
    config = write_config(tmp_path, None, text)
    result = cli("check", "--config", config, "--timeout", "10", "--format", "json", env={"MCP_TUI_T1": ""})
    assert result.code == 1, result
    assert token not in result.out + result.err and key not in result.out + result.err, result
    document = result.json()
    found = [(f["rule"], f["severity"], f["where"], f["message"]) for f in document["configFindings"]]
    rules = [rule for rule, _, _, _ in found]
    assert rules.count("config.literal-secret") == 2, found
    assert ("config.literal-secret", "error", 'server "github"', "env GITHUB_API_KEY is written in the file "
            "(secret:%s)" % __import__("mcp_tui").fingerprint(key)) in found
    assert any(r == "config.literal-secret" and m.startswith("args[") for r, _, _, m in found), found
    assert ("config.plain-http", "error", 'server "remote"',
            "http://mcp.example.invalid/mcp is plain HTTP to mcp.example.invalid, off this machine") in found
    assert ("config.command", "error", 'server "gone"', '"mcp-tui-no-such-program" is not found on PATH') in found
    assert ("config.duplicate-name", "error", 'server "twice"',
            'the file names "twice" 2 times; the host keeps only the last') in found
    assert any(r == "config.similar-names" and '"github" and "GitHub"' in m for r, _, _, m in found), found
    assert any(r == "config.tapped" and w == 'server "watched"' and "(faulty)" in m for r, _, w, m in found), found
    (fix,) = [f["fix"] for f in document["configFindings"] if f["rule"] == "config.tapped"]  # probe Q3: no FILE/NAME
    assert fix == "run mcp-tui tap uninstall --config %s --server watched when you are done watching it" % config, fix
    assert "LOG_LEVEL" not in json.dumps(found) and "local" not in json.dumps(found), found  # nothing to say of them
    text_report = cli("check", "--config", config, "--timeout", "10", env={"MCP_TUI_T1": ""})
    assert token not in text_report.out and "--token=secret:" in text_report.out, text_report


def test_credentials_in_headers_urls_and_database_urls_are_found_and_never_shown(cli, tmp_path):
    """Probe D2: mcp-remote's --header "Authorization: Bearer ...", a URL's ?api_key= and
    user:password@, a postgres URL in args and a DATABASE_URL with a password were not found,
    and were printed in clear (text, JSON, JUnit, the headings, the 'not checked' lines)."""
    bearer, key, password, database, dsn = ("abcdef0123456789abcdef", "qwerty0123456789qwerty", "hunter2hunter2",
                                            "S3cretPassw0rd", "Dsn0Passw0rd77")
    config = write_config(tmp_path, {
        "remote": entry(FAULTYSERVER, "mcp-remote", "https://mcp.example.invalid/mcp", "--header",
                        "Authorization: Bearer " + bearer),
        "query": {"url": "https://mcp.example.invalid/mcp?api_key=%s&x=${MCP_TUI_UNSET_Q}" % key},
        "userinfo": {"url": "https://user:%s@mcp.example.invalid/mcp?v=${MCP_TUI_UNSET_Q}" % password},
        "postgres": entry(FAULTYSERVER, "postgresql://admin:%s@localhost/mydb" % database),
        "dburl": entry(FAULTYSERVER, env={"DATABASE_URL": "postgres://app:%s@db.internal/app" % dsn})})
    junit = tmp_path / "check.xml"
    text = cli("check", "--config", config, "--timeout", "10", "--junit", junit)
    document = cli("check", "--config", config, "--timeout", "10", "--format", "json")
    for result in (text, document):
        assert result.code == 1, result
        for secret in (bearer, key, password, database, dsn):
            assert secret not in result.out + result.err, (secret, result)
    for secret in (bearer, key, password, database, dsn):
        assert secret not in junit.read_text(encoding="utf-8"), secret
    found = [(f["where"], f["message"]) for f in document.json()["configFindings"]
             if f["rule"] == "config.literal-secret"]
    fingerprint, base = __import__("mcp_tui").fingerprint, len(entry(FAULTYSERVER)["args"])
    assert sorted(found) == sorted([
        ('server "remote"', "args[%d] is written in the file (secret:%s)" % (base + 3, fingerprint(bearer))),
        ('server "query"', "url is written in the file (secret:%s)" % fingerprint(key)),
        ('server "userinfo"', "url is written in the file (secret:%s)" % fingerprint(password)),
        ('server "postgres"', "args[%d] is written in the file (secret:%s)" % (base, fingerprint(database))),
        ('server "dburl"', "env DATABASE_URL is written in the file (secret:%s)" % fingerprint(dsn))]), found
    assert '== server "userinfo" (https://mcp.example.invalid/mcp?v=' in text.out, text


def test_names_that_only_look_like_credentials_are_not_secrets(cli, tmp_path):
    """Probe D3: a credential word anywhere in a name (MAX_TOKENS, AUTHOR_NAME, KEYBOARD, ...)
    was an error; a number or a key file's path is not a secret. Real ones still are."""
    quiet = {"MAX_TOKENS": "100000000", "AUTH_MODE": "oauth-device", "AUTHOR_NAME": "Jane Doe-Smith",
             "SESSION_TIMEOUT_MS": "30000000", "TOKENIZER": "cl100k_base", "KEYBOARD": "us-intl-alt",
             "GOOGLE_APPLICATION_CREDENTIALS": "secrets/sa.json", "SSH_KEY_FILE": "keys/id_ed25519"}
    real = {"API_KEY": "plainkey0123", "GITHUB_TOKEN": "0123456789abcdef", "CLIENT_SECRET": "notsosecret1",
            "PASSWORD": "correct-horse", "BASIC_AUTH": "user:password1"}
    config = write_config(tmp_path, {"fp-env": entry(FAULTYSERVER, env=dict(quiet, **real))})
    document = cli("check", "--config", config, "--timeout", "10", "--format", "json").json()
    flagged = sorted(f["message"].split()[1] for f in document["configFindings"] if f["rule"] == "config.literal-secret")
    assert flagged == sorted(real), document["configFindings"]


def test_plain_http_is_judged_on_the_url_the_server_is_reached_at(cli, tmp_path, start_server):
    """Probe D4: the URL was judged before its ${VAR}s were expanded: http://${PH}/mcp with PH
    a loopback address was an error, and ${MCP_URL} set to a remote http:// URL passed."""
    http = start_server()
    config = write_config(tmp_path, {"varhost": {"url": http.url.replace("127.0.0.1", "${MCP_TUI_PH}")},
                                     "varurl": {"url": "${MCP_TUI_URL}"}})
    result = cli("check", "--config", config, "--timeout", "5", "--format", "json",
                 env={"MCP_TUI_PH": "127.0.0.1", "MCP_TUI_URL": "http://remote.example.invalid/mcp"})
    plain = [(f["where"], f["message"]) for f in result.json()["configFindings"] if f["rule"] == "config.plain-http"]
    assert plain == [('server "varurl"', "${MCP_TUI_URL} is plain HTTP to remote.example.invalid, off this machine")
                     ], result


SERVER_BLAMED = "answer initialize (2025-11-25) or server/discover (2026-07-28)"


def auth_hits(server, endpoint):
    lines = [json.loads(line) for line in open(server.record, encoding="utf-8").read().splitlines() if line.strip()]
    return [line for line in lines if line.get("transport") == "auth" and line["auth"].get("endpoint") == endpoint]


def test_what_is_wrong_on_this_side_is_a_config_finding_not_the_server_s_handshake(cli, tmp_path, start_server):
    """Probe D5: a VS Code ${input:...}, an entry of the wrong shape and an OAuth server with no
    token were lifecycle.handshake errors whose fix blamed the server. Now: config.variables,
    config.entry and config.authorization, the server not checked, and no browser opened nor
    client registered (two entries of one OAuth server registered two clients)."""
    auth = start_server("--auth")
    vscode = tmp_path / "mcp.json"
    vscode.write_text(json.dumps({"servers": {
        "vs-http": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${input:api-key}"}},
        "as-string": "python3 x.py", "as-null": None, "empty": {},
        "oauth-1": {"type": "http", "url": auth.url}, "oauth-2": {"type": "http", "url": auth.url},
        "keyed": {"type": "http", "url": "http://127.0.0.1:9/mcp?v=${MCP_TUI_UNSET_Q}",
                  "headers": {"X-Api-Key": "plainkey0123"}}}}),
        encoding="utf-8")
    result = cli("check", "--config", vscode, "--timeout", "20", "--format", "json", env={"BROWSER": "/bin/false"})
    assert result.code == 1, result
    document = result.json()
    found = dict((f["where"], (f["rule"], f["severity"], f["message"])) for f in document["configFindings"])
    assert found['server "vs-http"'] == ("config.variables", "warning", "it uses ${input:api-key}, a VS Code input, "
                                         "which mcp-tui does not prompt for (${env:NAME} reads a variable): not "
                                         "checked"), found
    for name, said in (("as-string", "is a string, not an object"), ("as-null", "is null, not an object"),
                       ("empty", "has neither command nor url")):
        rule, severity, message = found['server "%s"' % name]
        assert (rule, severity) == ("config.entry", "error") and said in message, found
    (fix,) = [f["fix"] for f in document["configFindings"] if f["rule"] == "config.literal-secret"]  # probe Q1
    assert fix.endswith("write ${env:NAME} in its place (VS Code reads ${env:NAME})"), fix
    for name in ("oauth-1", "oauth-2"):
        rule, severity, message = found['server "%s"' % name]
        assert (rule, severity) == ("config.authorization", "warning") and "auth login" in message, found
    assert not [s for s in document["servers"] if s["checked"]], document["servers"]
    assert SERVER_BLAMED not in result.out and "lifecycle.handshake" not in result.out, result
    assert not auth_hits(auth, "register") and not auth_hits(auth, "authorize"), auth_hits(auth, "register")
    text = cli("check", "--config", vscode, "--timeout", "20", env={"BROWSER": "/bin/false"})
    assert '== server "vs-http" (http://127.0.0.1:9/mcp): not checked (see config.variables)' in text.out, text
    assert text.out.count(": not checked (see config.entry)\n") == 3, text
    assert SERVER_BLAMED not in text.out, text


def test_check_of_an_oauth_server_with_no_browser_says_so_and_blames_no_handshake(cli, start_server):
    """Probe D5, plain `check --url`: a browser that cannot start was a lifecycle.handshake
    finding whose fix told the server to answer initialize."""
    server = start_server("--auth")
    result = cli("--url", server.url, "--timeout", "60", "check", env={"BROWSER": "/bin/false"}, timeout=30)
    assert result.code == 1, result
    assert result.out == "" and SERVER_BLAMED not in result.err, result
    assert result.err.strip().splitlines()[-1].startswith("mcp-tui: the browser did not start; to authorize at "), result


def test_a_relative_command_is_looked_for_in_the_entry_s_cwd(cli, tmp_path):
    """Probe D8: "./ts.sh" with "cwd" was "not found", and then connected, started there."""
    sub = tmp_path / "sub"
    sub.mkdir()
    script = sub / "ts.sh"
    script.write_text("#!/bin/sh\nexec %s\n" % " ".join('"%s"' % word for word in cached_script.command(FAULTYSERVER)))
    script.chmod(0o755)
    config = write_config(tmp_path, {"relcwd": {"command": "./ts.sh", "cwd": str(sub)},
                                     "gone": {"command": "./nope.sh", "cwd": str(sub)}})
    document = cli("check", "--config", config, "--timeout", "10", "--format", "json").json()
    found = [(f["where"], f["message"]) for f in document["configFindings"] if f["rule"] == "config.command"]
    assert found == [('server "gone"', '"./nope.sh" is not found in %s' % sub)], found
    assert [s["connects"] for s in document["servers"]] == [True, False], document["servers"]


def test_an_unset_variable_is_a_warning_and_that_server_is_not_checked(cli, tmp_path):
    config = write_config(tmp_path, {"one": entry(FAULTYSERVER, env={"TOKEN": "${MCP_TUI_UNSET_X}"})})
    result = cli("check", "--config", config)
    assert result.code == 0, result
    assert "⚠ config.variables" in result.out and "${MCP_TUI_UNSET_X}, which is not set here" in result.out, result
    assert '== server "one" (' in result.out and "not checked (see config.variables)" in result.out, result
    assert cli("check", "--config", config, "--strict").code == 1


def test_check_config_without_a_file_reads_every_host_config(cli, tmp_path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"project": entry(FAULTYSERVER)}}))
    user = tmp_path / "user"
    (user / "Claude").mkdir(parents=True)
    (user / "Claude" / "claude_desktop_config.json").write_text(json.dumps({"mcpServers": {
        "desktop": entry(FAULTYSERVER, "--era", "2026-07-28")}}))
    result = cli("check", "--config", "--format", "json", cwd=tmp_path, env={"XDG_CONFIG_HOME": str(user)},
                 process=True)
    assert result.code == 0, result
    document = result.json()
    assert [(s["name"], s["config"]) for s in document["servers"]] == [
        ("project", str(tmp_path / ".mcp.json")), ("desktop", str(user / "Claude" / "claude_desktop_config.json"))]


def test_with_several_files_each_section_and_the_totals_name_the_file(cli, tmp_path):
    """Probe D9: two files naming "cd" gave two sections `== server "cd"` and "1 failed (cd)"."""
    project = tmp_path / ".mcp.json"
    project.write_text(json.dumps({"mcpServers": {"cd": entry(FAULTYSERVER)}}))
    user = tmp_path / "user"
    (user / "Claude").mkdir(parents=True)
    desktop = user / "Claude" / "claude_desktop_config.json"
    desktop.write_text(json.dumps({"mcpServers": {"cd": entry(FAULTYSERVER, "--fault", "no-jsonrpc")}}))
    result = cli("check", "--config", "--timeout", "10", cwd=tmp_path, env={"XDG_CONFIG_HOME": str(user)},
                 process=True)
    assert result.code == 1, result
    assert '\n== server "cd" in %s (' % project in result.out, result
    assert '\n== server "cd" in %s (' % desktop in result.out, result
    assert "2 servers: 2 connected, 1 failed (cd in %s); the files: " % desktop in result.out, result


def test_check_config_without_a_file_reads_cursor_s_and_says_what_to_do_when_none_lists_a_server(cli, tmp_path):
    """Probe Q2: Cursor's .cursor/mcp.json was not read, and finding no file gave no next step."""
    home = tmp_path / "home"
    home.mkdir()
    empty = cli("check", "--config", cwd=tmp_path, env={"XDG_CONFIG_HOME": str(home), "HOME": str(home)},
                process=True)
    assert empty.code == 2 and "(give the file: mcp-tui check --config FILE, or run it in the project's folder)" \
        in empty.err, empty
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text(json.dumps({"mcpServers": {"cursor": entry(FAULTYSERVER)}}))
    result = cli("check", "--config", "--format", "json", cwd=tmp_path,
                 env={"XDG_CONFIG_HOME": str(home), "HOME": str(home)}, process=True)
    assert result.code == 0, result
    assert [(s["name"], s["config"]) for s in result.json()["servers"]] == [
        ("cursor", str(tmp_path / ".cursor" / "mcp.json"))], result


def test_usage_errors_of_check_config(cli, tmp_path):
    config = write_config(tmp_path, {"one": entry(FAULTYSERVER), "two": entry(FAULTYSERVER)})
    called = cli("check", "--config", config, "--call", "echo message=hi")
    assert called.code == 2 and "--call and --call-readonly name one server's tools: add --server NAME" in called.err
    bare = cli("tool", "list", "--config")
    assert bare.code == 2 and "--config needs a FILE here" in bare.err, bare
    missing = cli("check", "--config", tmp_path / "nope.json")
    assert missing.code == 2 and "cannot read --config" in missing.err, missing
    one = cli("check", "--config", config, "--server", "two")  # --server: that one server, as before
    assert one.code == 0 and one.out.startswith("Checked faultyserver (2025-11-25, stdio)"), one


def test_a_misspelt_command_before_config_is_an_unknown_command(cli, tmp_path):
    """Probe D12: `chek --config FILE` said "has several servers; pick one with --server"."""
    config = write_config(tmp_path, {"one": entry(FAULTYSERVER), "two": entry(FAULTYSERVER)})
    result = cli("chek", "--config", config)
    assert result.code == 2, result
    assert result.err.strip() == "mcp-tui: unknown command 'chek' (did you mean 'check'?)", result


def test_a_name_with_an_invisible_character_is_a_similar_name_and_shown_escaped(cli, tmp_path):
    """Probe D10: "github" and "github" + U+200B were two sections both reading `== server
    "github"`, and no config.similar-names; the JUnit suite name held the raw U+200B."""
    config = write_config(tmp_path, {"github": entry(FAULTYSERVER), "github\u200b": entry(FAULTYSERVER)})
    junit = tmp_path / "check.xml"
    result = cli("check", "--config", config, "--timeout", "10", "--junit", junit)
    assert result.code == 0, result
    assert "\u200b" not in result.out and "\u200b" not in junit.read_text(encoding="utf-8"), result
    assert '⚠ config.similar-names' in result.out and '"github" and "github\\u200b" differ' in result.out, result
    assert '\n== server "github\\u200b" (' in result.out, result
    suites = [s.get("name") for s in ElementTree.parse(str(junit)).getroot()]
    assert "mcp-tui check github\\u200b (%s)" % config in suites, suites


def test_the_servers_are_checked_at_once(cli, tmp_path):
    """Each server answers only once all three have started (faultyserver --rendezvous): checked
    one after another, the first would wait for the others and fail; at once, all connect."""
    meeting = tmp_path / "meeting"
    meeting.mkdir()
    config = write_config(tmp_path, dict(("server-%d" % index, entry(FAULTYSERVER, "--rendezvous", meeting, "3"))
                                         for index in range(3)))
    result = cli("check", "--config", config, "--timeout", "5", "--probe-timeout", "5", "--format", "json")
    assert result.code == 0, result
    assert [s["connects"] for s in result.json()["servers"]] == [True, True, True], result
