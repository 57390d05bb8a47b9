"""`mcp-tui tap install` / `tap uninstall`: a server of a host's config file (Claude Desktop,
.mcp.json, Cursor, VS Code's JSONC) put behind a tap and taken out again, the file edited only
where the entry is and given back byte for byte; then the whole way a user goes: a Claude
Desktop config, the entry run as the host runs it, the conversation saved and replayed
against the same server and a changed one."""
import json
import os
import subprocess
import sys

import pytest

import mcp_tui
from conftest import MCP_TUI, TESTSERVER
from inprocess import ALWAYS_A_PROCESS

CLAUDE_DESKTOP = """{
  // servers Claude Desktop starts
  "mcpServers": {
    "weather": {
      "command": "python3",
      "args": ["weather.py", "--units", "metric"], /* the units the host shows */
      "env": {"WEATHER_API_KEY": "sk-weather-0123456789"},
      "cwd": "/srv/weather"
    },
    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
  },
  "globalShortcut": "Ctrl+Space"
}
"""

# VS Code's mcp.json: JSONC, "servers", comments and trailing commas; args before command, none at all
VS_CODE = """// VS Code: .vscode/mcp.json
{
\t"inputs": [],
\t"servers": {
\t\t"linter": {
\t\t\t"type": "stdio",
\t\t\t"args": ["--stdio", "${workspaceFolder}",],  // the host expands it
\t\t\t"command": "${env:HOME}/bin/lint-server",
\t\t},
\t\t"bare": { "command": "bare-server" /* no args */ },
\t},
}"""


def config_file(tmp_path, text, name="claude_desktop_config.json"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def server_entry(path, server):
    return mcp_tui.config_entries(mcp_tui.load_jsonc(path.read_text(encoding="utf-8")))[server]


def launcher_and_rest(entry):
    """The entry's command line split where the tap starts: (the mcp-tui launcher, the rest
    without the state directory it pins, ``--state-dir DIR``)."""
    argv = [entry["command"]] + entry["args"]
    at = argv.index("tap")
    rest = argv[at:]
    if rest[1:2] == ["--state-dir"]:
        del rest[1:3]
    return argv[:at], rest


# The variables the official SDK's stdio client passes a server it starts (its
# get_default_environment(), DEFAULT_INHERITED_ENV_VARS on POSIX): a host's environment, not the
# user's shell's. tests/conftest.py may get a host_environment fixture for the same purpose.
SDK_DEFAULT_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")


def sdk_default_environment(home):
    """The environment the SDK starts a server with: only SDK_DEFAULT_INHERITED, from this
    process's, HOME made ``home`` (a host's user's home, so that nothing lands in the real one);
    no MCP_TUI_STATE_DIR, no XDG_STATE_HOME."""
    environ = dict((name, os.environ[name]) for name in SDK_DEFAULT_INHERITED if name in os.environ)
    environ["HOME"] = str(home)
    if os.name == "nt":  # the SDK's Windows list: what a process needs to start at all
        environ.update((name, os.environ[name]) for name in ("APPDATA", "LOCALAPPDATA", "PATHEXT", "SYSTEMDRIVE",
                                                             "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE")
                       if name in os.environ)
        environ["LOCALAPPDATA"] = environ["USERPROFILE"] = str(home)
    return environ


def run_as_the_host(entry, home, *messages):
    """The entry's command and args started as an SDK-based host starts them (its default
    environment, no shell), each message sent; the answers to its requests."""
    import cached_script

    host = subprocess.Popen([entry["command"]] + entry["args"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=sdk_default_environment(home))
    answers = []
    try:
        for message in messages:
            host.stdin.write((json.dumps(message) + "\n").encode())
            host.stdin.flush()
            if "id" in message:
                answers.append(json.loads(host.stdout.readline()))
        host.stdin.close()
        assert host.wait(60) == 0, host.stderr.read()
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    return answers


def test_install_shows_the_change_backs_up_and_uninstall_gives_the_very_bytes_back(cli, state_dir, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    before = path.read_bytes()
    backup = tmp_path / "claude_desktop_config.json.mcp-tui-tap.bak"

    shown = cli("tap", "install", "--config", path, "--server", "weather", "--dry-run")
    assert shown.code == 0, shown
    assert path.read_bytes() == before and not backup.exists(), "--dry-run changed something"
    assert '-      "command": "python3",\n' in shown.out and "+      \"args\": [" in shown.out, shown
    assert "sk-weather-0123456789" not in shown.out, "the entry's credential is shown in the diff"
    assert "--dry-run" in shown.err

    done = cli("tap", "install", "--config", path, "--server", "weather")
    assert done.code == 0, done
    assert done.out == shown.out  # the change shown is the change made
    assert backup.read_bytes() == before and backup.stat().st_mode & 0o777 == 0o600
    assert "tap watch weather" in done.err and "tap uninstall" in done.err, done
    entry = server_entry(path, "weather")
    assert entry["args"][entry["args"].index("tap") + 1:][:2] == ["--state-dir", str(state_dir)]  # pinned
    launcher, rest = launcher_and_rest(entry)
    assert launcher == [os.path.abspath(sys.executable), str(MCP_TUI)]
    assert rest == ["tap", "--name", "weather", "--", "python3", "weather.py", "--units", "metric"]
    assert entry["env"] == {"WEATHER_API_KEY": "sk-weather-0123456789"} and entry["cwd"] == "/srv/weather"
    text = path.read_text()
    assert text.startswith(CLAUDE_DESKTOP[:CLAUDE_DESKTOP.index('"command": "python3"')])  # byte for byte elsewhere
    assert text.endswith(CLAUDE_DESKTOP[CLAUDE_DESKTOP.index("], /* the units"):][1:])

    again = cli("tap", "install", "--config", path, "--server", "weather")
    assert (again.code, again.out) == (0, "") and "already" in again.err, again
    assert backup.read_bytes() == before  # and no second backup
    assert sorted(p.name for p in tmp_path.iterdir()) == ["claude_desktop_config.json", backup.name]

    undone = cli("tap", "uninstall", "--config", path, "--server", "weather")
    assert undone.code == 0, undone
    assert path.read_bytes() == before
    assert "as it was before tap install" in undone.err
    assert not backup.exists()  # it held what the file holds again
    again = cli("tap", "uninstall", "--config", path, "--server", "weather")
    assert (again.code, again.out) == (0, "") and "does not run through a tap" in again.err, again
    assert path.read_bytes() == before


def test_vs_code_jsonc_keeps_its_comments_trailing_commas_and_the_hosts_variables(cli, tmp_path):
    path = config_file(tmp_path, VS_CODE, "mcp.json")
    before = path.read_bytes()
    for server in ("linter", "bare"):
        result = cli("tap", "install", "--config", path, "--server", server, "--format", "json")
        assert result.code == 0, result
        document = result.json()
        assert (document["server"], document["tap"], document["changed"]) == (server, server, True), document
        assert document["backup"].endswith(".mcp-tui-tap.bak")  # one backup: the file before any tap
    text = path.read_text()
    for kept in ("// VS Code: .vscode/mcp.json\n", '\t\t\t"type": "stdio",\n', "  // the host expands it\n",
                 "/* no args */ },\n\t},\n}"):
        assert kept in text, text
    assert launcher_and_rest(server_entry(path, "linter"))[1] == [
        "tap", "--name", "linter", "--", "${env:HOME}/bin/lint-server", "--stdio", "${workspaceFolder}"]
    assert launcher_and_rest(server_entry(path, "bare"))[1] == ["tap", "--name", "bare", "--", "bare-server"]
    for server in ("bare", "linter"):  # taken out in the other order: each restores its own entry
        assert cli("tap", "uninstall", "--config", path, "--server", server).code == 0
    assert path.read_bytes() == before


def test_vs_code_settings_with_crlf_line_ends_round_trip(cli, tmp_path):
    """VS Code's settings.json keeps its servers under mcp.servers; Windows files end lines in CR LF."""
    text = '{\r\n  "editor.fontSize": 14, // mine\r\n  "mcp": {\r\n    "servers": {\r\n      "py": {\r\n' \
           '        "command": "py",\r\n        "args": ["-m", "srv"]\r\n      }\r\n    }\r\n  }\r\n}\r\n'
    path = config_file(tmp_path, text, "settings.json")
    assert cli("tap", "install", "--config", path, "--server", "py").code == 0
    changed = path.read_bytes()
    assert changed.count(b"\r\n") == text.count("\r\n") and b"\n" not in changed.replace(b"\r\n", b"")
    assert launcher_and_rest(server_entry(path, "py"))[1] == ["tap", "--name", "py", "--", "py", "-m", "srv"]
    assert cli("tap", "uninstall", "--config", path, "--server", "py").code == 0
    assert path.read_bytes() == text.encode()


def test_hostile_names_and_commands_survive_the_round_trip(cli, tmp_path):
    server = 'we"ird\\ nämé ${HOME} ☃'
    command = 'C:\\Program Files\\"srv"\\${VAR}.exe'
    text = json.dumps({"mcpServers": {server: {"command": command, "args": ["a\"b", "\\\\", "ü", "${VAR}", 8]}}},
                      indent=2, ensure_ascii=False) + "\n"
    path = config_file(tmp_path, text, ".mcp.json")
    result = cli("tap", "install", "--config", path, "--server", server)
    assert result.code == 0, result
    entry = server_entry(path, server)
    assert launcher_and_rest(entry)[1] == ["tap", "--name", "we-ird-n-m-HOME", "--", command, "a\"b", "\\\\", "ü",
                                           "${VAR}", 8]
    assert cli("tap", "uninstall", "--config", path, "--server", server).code == 0
    assert path.read_text(encoding="utf-8") == text


def test_what_install_refuses_leaves_every_file_as_it_was(cli, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    before = sorted(os.listdir(tmp_path))

    missing = cli("tap", "install", "--config", path, "--server", "wether")
    assert missing.code == 2 and "has no server \"wether\"" in missing.err and "did you mean 'weather'?" in missing.err

    broken = config_file(tmp_path, CLAUDE_DESKTOP.replace('"files"', "files"), "broken.json")
    bad = cli("tap", "install", "--config", broken, "--server", "weather")
    assert bad.code == 2 and "is not valid JSON" in bad.err and "nothing was changed" in bad.err, bad

    remote = config_file(tmp_path, '{"mcpServers": {"api": {"url": "https://api.example/mcp"}}}', "remote.json")
    http = cli("tap", "install", "--config", remote, "--server", "api")
    assert http.code == 2 and "over HTTP" in http.err and "--listen 127.0.0.1:PORT --url" in http.err, http

    assert cli("tap", "install", "--config", path).code == 2  # no --server
    assert cli("tap", "install", "--config", path, "--server", "weather", "--name", "../x").code == 2
    assert sorted(os.listdir(tmp_path)) == sorted(before + ["broken.json", "remote.json"])
    assert path.read_text() == CLAUDE_DESKTOP


def test_two_servers_are_never_put_behind_taps_of_one_name(cli, tmp_path):
    text = '{"mcpServers": {"my server": {"command": "a"}, "my-server": {"command": "b"}}}'
    path = config_file(tmp_path, text)
    assert cli("tap", "install", "--config", path, "--server", "my server").code == 0
    installed = path.read_text()
    same = cli("tap", "install", "--config", path, "--server", "my-server")
    assert same.code == 2 and 'server "my server"' in same.err and "--name NAME" in same.err, same
    assert path.read_text() == installed
    assert cli("tap", "install", "--config", path, "--server", "my-server", "--name", "b").code == 0
    assert mcp_tui.tap_entry_name(server_entry(path, "my-server")) == "b"
    for server in ("my server", "my-server"):
        assert cli("tap", "uninstall", "--config", path, "--server", server).code == 0
    assert path.read_text() == text


def test_a_config_that_is_a_link_or_another_users_file_is_not_changed(cli, tmp_path):
    theirs = config_file(tmp_path, CLAUDE_DESKTOP, "theirs.json")
    try:
        os.chown(str(theirs), 65534, 65534)
    except PermissionError:
        pytest.skip("this test changes a file's owner (it runs as root in CI)")
    link = tmp_path / "claude_desktop_config.json"
    link.symlink_to(theirs)
    for target, said in ((link, "is a symbolic link"), (theirs, "belongs to another user")):
        result = cli("tap", "install", "--config", target, "--server", "weather")
        assert result.code == 2 and said in result.err, result
    assert theirs.read_text() == CLAUDE_DESKTOP and os.path.islink(str(link))
    assert sorted(os.listdir(tmp_path)) == ["claude_desktop_config.json", "theirs.json"]


def test_an_unusable_state_directory_changes_nothing(cli, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").symlink_to(elsewhere)  # refused as a state directory: no record could be kept
    result = cli("tap", "install", "--config", path, "--server", "weather", env={"MCP_TUI_STATE_DIR": str(
        tmp_path / "state")})
    assert result.code == 1 and "record of the install" in result.err and "nothing was changed" in result.err, result
    assert path.read_text() == CLAUDE_DESKTOP
    assert sorted(os.listdir(tmp_path)) == ["claude_desktop_config.json", "elsewhere", "state"]


def test_uninstall_after_the_file_changed_elsewhere_restores_only_the_entry(cli, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    assert cli("tap", "install", "--config", path, "--server", "weather").code == 0
    path.write_text(path.read_text().replace('"Ctrl+Space"', '"Alt+Space"'))  # the user, or the host, meanwhile
    result = cli("tap", "uninstall", "--config", path, "--server", "weather")
    assert result.code == 0 and "only the entry was restored" in result.err, result
    assert path.read_text() == CLAUDE_DESKTOP.replace('"Ctrl+Space"', '"Alt+Space"')
    assert (tmp_path / "claude_desktop_config.json.mcp-tui-tap.bak").read_text() == CLAUDE_DESKTOP  # kept


def test_uninstall_leaves_an_entry_edited_since_alone(cli, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    assert cli("tap", "install", "--config", path, "--server", "weather").code == 0
    edited = path.read_text().replace('"--units", "metric"', '"--units", "imperial"')
    path.write_text(edited)
    result = cli("tap", "uninstall", "--config", path, "--server", "weather")
    assert result.code == 1 and "not as tap install left it" in result.err and ".mcp-tui-tap.bak" in result.err
    assert path.read_text() == edited


@pytest.mark.skipif(ALWAYS_A_PROCESS, reason="the host's write is made inside the run (in this process)")
@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_a_config_written_by_another_program_between_read_and_replace_is_left_as_it_wrote_it(cli, tmp_path,
                                                                                            monkeypatch, verb):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    if verb == "uninstall":
        assert cli("tap", "install", "--config", path, "--server", "weather").code == 0
    edited = path.read_text().replace('"Ctrl+Space"', '"Ctrl+Shift+Space"')
    shown = mcp_tui.TapInstall.diff

    def the_host_writes_meanwhile(self, *args):  # after the read, before the replace
        diff = shown(self, *args)
        path.write_text(edited)
        return diff

    monkeypatch.setattr(mcp_tui.TapInstall, "diff", the_host_writes_meanwhile)
    result = cli("tap", verb, "--config", path, "--server", "weather")
    assert result.code == 1 and "changed since tap %s read it" % verb in result.err, result
    assert "Traceback" not in result.err and path.read_text() == edited  # the host's write kept, not ours
    monkeypatch.undo()
    backups = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".bak"))
    assert backups == ([] if verb == "install" else ["claude_desktop_config.json.mcp-tui-tap.bak"])
    again = cli("tap", verb, "--config", path, "--server", "weather")  # the record is as it was: again works
    assert again.code == 0, again
    assert ("Ctrl+Shift+Space" in path.read_text()) and (("tap" in server_entry(path, "weather")["args"])
                                                         == (verb == "install"))


def test_claude_desktop_end_to_end_install_run_save_replay_uninstall(cli, state_dir, tmp_path):
    """The README's "Watching a real host", as a user goes: the test server in a Claude
    Desktop config; tap install; the rewritten entry run as the host runs it (mcp-tui itself
    reads the entry and starts its command and args, no shell); tap save; replay clean
    against the same server (exit 0) and against one whose echo needs a new argument (exit
    1); tap uninstall gives the file back byte for byte."""
    import cached_script

    server = cached_script.command(TESTSERVER)
    text = json.dumps({"mcpServers": {"demo": {"command": server[0], "args": server[1:],
                                               "env": {"DEMO_TOKEN": "tok-demo-0123456789"}}},
                       "globalShortcut": ""}, indent=2) + "\n"
    path = config_file(tmp_path, text)
    assert cli("tap", "install", "--config", path, "--server", "demo").code == 0
    entry = server_entry(path, "demo")
    assert launcher_and_rest(entry)[1][:3] == ["tap", "--name", "demo"]

    # The host: Claude Desktop starts [command] + args with the entry's env, no shell
    for words in (["tools", "list"], ["tool", "call", "echo", "message=hello from the host"]):
        used = cli("--config", path, "--server", "demo", "--protocol-version", "2025-06-18", *words)
        assert used.code == 0, used
    assert "hello from the host" in used.out
    listed = cli("tap", "list", "--format", "json").json()["taps"]
    assert [(tap["name"], tap["running"]) for tap in listed] == [("demo", False)], listed
    assert listed[0]["messages"] >= 8  # two sessions: initialize, initialized, a request, their answers

    saved = tmp_path / "host.jsonl"
    result = cli("tap", "save", "demo", "-o", saved)
    assert result.code == 0, result
    assert "tok-demo-0123456789" not in saved.read_text()
    direct = subprocess.list2cmdline(server) if os.name == "nt" else " ".join(server)
    same = cli(direct, "--protocol-version", "2025-06-18", "replay", saved)
    assert same.code == 0 and " same, 0 different" in same.out, same
    changed = cli(direct + " --surface-change required-argument", "--protocol-version", "2025-06-18", "replay", saved)
    assert changed.code == 1 and "breaking" in changed.out and "channel" in changed.out, changed

    assert cli("tap", "uninstall", "--config", path, "--server", "demo").code == 0
    assert path.read_text() == text


def test_the_launcher_is_the_mcp_tui_that_runs(tmp_path, monkeypatch):
    script = tmp_path / "bin" / "mcp-tui"  # a console script, or `mcp-tui install`'s launcher
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script), "tap", "install"])
    assert mcp_tui.tap_launcher() == [str(script)]
    monkeypatch.setattr(sys, "argv", [str(MCP_TUI), "tap", "install"])  # python3 mcp_tui.py
    assert mcp_tui.tap_launcher() == [os.path.abspath(sys.executable), str(MCP_TUI)]
    for entry in ({"command": str(script), "args": ["tap", "--name", "x", "--", "srv", "-v"]},
                  {"command": "python3", "args": ["/opt/mcp_tui.py", "tap", "--", "srv", "-v"]}):
        assert mcp_tui.tap_entry_server(entry) == ["srv", "-v"]
    for entry in ({"command": "srv", "args": ["tap", "--", "x"]}, {"command": "mcp-tui", "args": ["tap", "list"]},
                  {"command": "npx", "args": "not a list"}):
        assert mcp_tui.tap_entry_server(entry) is None


# -- the log where the user looks: a host passes its own environment, not the user's shell's ----

def test_a_tap_a_host_starts_with_the_sdk_s_environment_logs_where_the_user_s_shell_looks(cli, state_dir, tmp_path):
    """Before, the entry ran `tap --name demo -- ...` and the tap, without MCP_TUI_STATE_DIR,
    wrote under the host's ~/.local/state: `tap list` in the user's shell said "No taps."."""
    import cached_script

    server = cached_script.command(TESTSERVER)
    path = config_file(tmp_path, json.dumps({"mcpServers": {"demo": {"command": server[0], "args": server[1:]}}}))
    assert cli("tap", "install", "--config", path, "--server", "demo").code == 0
    home = tmp_path / "home"
    home.mkdir()
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}}
    answers = run_as_the_host(server_entry(path, "demo"), home, initialize,
                              {"jsonrpc": "2.0", "method": "notifications/initialized"},
                              {"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert [answer["id"] for answer in answers] == [1, 2]
    listed = cli("tap", "list", "--format", "json")
    assert [(tap["name"], tap["messages"]) for tap in listed.json()["taps"]] == [("demo", 5)], listed
    watched = cli("tap", "watch", "demo", "--for", "0.2")
    assert watched.code == 0 and "→ initialize #1" in watched.out and "← ping #2" in watched.out, watched
    assert cli("tap", "save", "demo", "-o", tmp_path / "saved.jsonl").code == 0
    assert not list(home.rglob("*.jsonl")), "the tap wrote its log under the host's home"


def test_tap_watch_run_before_the_host_started_the_tap_waits_for_it(cli, state_dir, tmp_path):
    import cached_script
    from conftest import MCP_TUI_PROCESS, ROOT, wait_for

    server = cached_script.command(TESTSERVER)
    path = config_file(tmp_path, json.dumps({"mcpServers": {"later": {"command": server[0], "args": server[1:]}}}))
    assert cli("tap", "install", "--config", path, "--server", "later").code == 0
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    watch = subprocess.Popen(MCP_TUI_PROCESS + ["tap", "watch", "later", "--for", "60"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=environ, cwd=str(ROOT))
    try:
        waiting = watch.stderr.readline()
        assert waiting.startswith("mcp-tui tap watch: no tap later yet; waiting for it to start"), waiting
        home = tmp_path / "home"
        home.mkdir()
        run_as_the_host(server_entry(path, "later"), home, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert "→ ping #1" in watch.stdout.readline() and "← ping #1" in watch.stdout.readline()
    finally:
        watch.kill()
        watch.wait()
    never = cli("tap", "watch", "never", "--for", "0.2")
    assert (never.code, never.out) == (1, ""), never
    assert never.err.splitlines()[-1] == "mcp-tui: tap never did not start within --for 0.2 seconds", never


# -- what a host user saw besides (issue 48, "Also seen") -----------------------------------------

@pytest.mark.parametrize("order", [("weather", "files"), ("files", "weather")])
def test_two_servers_of_one_file_each_uninstall_cleanly_and_leave_no_backup_behind(cli, tmp_path, order):
    """Before: each uninstall said "the file changed elsewhere", and .bak and .2.bak stayed."""
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    before = path.read_bytes()
    for server in ("weather", "files"):
        assert cli("tap", "install", "--config", path, "--server", server).code == 0
    for number, server in enumerate(order):
        undone = cli("tap", "uninstall", "--config", path, "--server", server)
        assert undone.code == 0 and "changed elsewhere" not in undone.err, undone
        assert "as it was before tap install" in undone.err, undone
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name], "a backup stayed behind"


@pytest.mark.parametrize("where, host", [
    ("claude_desktop_config.json", "quit Claude Desktop"), (".cursor/mcp.json", "Cursor"),
    (".mcp.json", "Claude Code"), (".vscode/mcp.json", "VS Code")])
def test_the_restart_hint_names_the_host_whose_file_it_is(cli, tmp_path, where, host):
    path = tmp_path / where
    path.parent.mkdir(exist_ok=True)
    key = "servers" if "vscode" in where else "mcpServers"
    path.write_text(json.dumps({key: {"demo": {"command": "demo-server"}}}))
    for verb in ("install", "uninstall"):
        result = cli("tap", verb, "--config", path, "--server", "demo")
        assert result.code == 0 and host in result.err, result
        assert host == "quit Claude Desktop" or "Claude Desktop" not in result.err, result


def test_a_host_s_placeholder_is_not_masked_as_a_secret_in_the_diff(cli, tmp_path):
    path = config_file(tmp_path, json.dumps({"inputs": [{"id": "api-key", "type": "promptString", "password": True}],
                                             "servers": {"demo": {"command": "demo-server", "env": {
                                                 "API_KEY": "${input:api-key}", "GH_TOKEN": "ghp_0123456789abcdef"}}}},
                                            indent=1), "mcp.json")
    shown = cli("tap", "install", "--config", path, "--server", "demo", "--dry-run")
    assert shown.code == 0 and "ghp_0123456789abcdef" not in shown.out, shown
    assert '"API_KEY": "${input:api-key}"' in shown.out, shown


def test_a_config_with_a_utf8_bom_is_read_and_its_bom_kept(cli, tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    before = b"\xef\xbb\xbf" + CLAUDE_DESKTOP.encode("utf-8")
    path.write_bytes(before)
    assert cli("tap", "install", "--config", path, "--server", "weather").code == 0
    assert path.read_bytes().startswith(b"\xef\xbb\xbf{") and b"mcp-tui-tap" not in path.read_bytes()
    assert launcher_and_rest(mcp_tui.load_jsonc(path.read_bytes()[3:].decode())["mcpServers"]["weather"])[1][:3] == [
        "tap", "--name", "weather"]
    assert cli("tap", "uninstall", "--config", path, "--server", "weather").code == 0
    assert path.read_bytes() == before


def test_the_install_record_keeps_no_credential_of_the_entry(cli, state_dir, tmp_path):
    path = config_file(tmp_path, CLAUDE_DESKTOP)
    before = path.read_bytes()
    assert cli("tap", "install", "--config", path, "--server", "weather").code == 0
    assert "sk-weather-0123456789" not in (state_dir / "tap-installs.json").read_text()
    assert cli("tap", "uninstall", "--config", path, "--server", "weather").code == 0
    assert path.read_bytes() == before
