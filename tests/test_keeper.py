"""Sessions kept by a background keeper (section 9): `session open/list/close`, commands
through @NAME, the keeper's lifecycle (idle, the server dying, the keeper killed, a stale
record), its token, relayed elicitation, and two commands at once through one session."""
import hmac
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import MCP_TUI_PROCESS, ROOT, TESTSERVER, process_alive, stdio_command, wait_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="finds processes through os.kill(pid, 0)")


def pids_with(marker):
    """The processes whose command line mentions ``marker`` (the server's --record file)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/cmdline" % entry, "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                continue
    return [pid for pid in found if process_alive(pid)]


def keeper_socket(state_dir, record):
    """A socket connected to a keeper's address: its Unix socket in the state directory, or its port."""
    if "socket" in record:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(str(state_dir / record["socket"]))
        return sock
    return socket.create_connection(("127.0.0.1", record["port"]), timeout=30)


def proof(token, role, *parts):
    """What each end of a keeper connection proves it knows the token with (mcp_tui.keeper_proof)."""
    return hmac.new(token.encode(), json.dumps([role] + list(parts)).encode(), "sha256").hexdigest()


def sessions_file(state_dir):
    path = state_dir / "sessions.json"
    return json.loads(path.read_text()) if path.exists() else {}


@pytest.fixture
def kept(cli, state_dir, tmp_path):
    """open(name, *connection_and_flags) -> the keeper's record; every session is closed after the test."""
    opened = []

    def open_session(name, *args):
        result = cli("session", "open", name, *args)
        assert result.code == 0, result
        opened.append(name)
        record = sessions_file(state_dir)[name]
        record["line"] = result.out
        return record

    yield open_session
    for name in opened:
        record = sessions_file(state_dir).get(name)
        if record:
            try:
                os.kill(record["pid"], signal.SIGKILL)
            except OSError:
                pass


@pytest.fixture
def server_record(tmp_path):
    return tmp_path / "server-record.jsonl"


def test_open_list_use_close_and_the_server_is_gone(cli, kept, state_dir, server_record):
    record = kept("dev", stdio_command("--record", server_record))
    assert record["line"] == "Session dev open: mcp-tui-testserver 0.1.0 (2026-07-28, stdio)\n"
    assert stat.S_IMODE(os.stat(str(state_dir / "sessions.json")).st_mode) == 0o600
    servers = pids_with(str(server_record))
    assert len(servers) == 1

    listed = cli("@dev", "tool", "list")
    assert listed.code == 0, listed
    assert listed.out == cli(stdio_command(), "tool", "list").out

    text = cli("session", "list")
    assert text.code == 0, text
    header, row = text.out.splitlines()
    assert header.split() == ["NAME", "SERVER", "ERA", "TRANSPORT", "AGE", "IDLE", "TASKS"]
    assert row.split()[:5] == ["dev", "mcp-tui-testserver", "0.1.0", "2026-07-28", "stdio"]
    document = cli("session", "list", "--format", "json").json()
    (item,) = document["sessions"]
    assert (item["name"], item["server"], item["era"], item["transport"], item["openTasks"]) == (
        "dev", "mcp-tui-testserver", "2026-07-28", "stdio", 0)
    assert item["age"] >= item["idle"] >= 0

    closed = cli("session", "close", "dev")
    assert closed.code == 0, closed
    assert closed.out == "Session dev closed\n"
    wait_for(lambda: not process_alive(record["pid"]))
    wait_for(lambda: not pids_with(str(server_record)))
    assert "dev" not in sessions_file(state_dir)
    assert cli("session", "list").out == ""


def test_a_stdio_command_line_given_first_opens_a_session_as_any_command_takes_it(cli, state_dir, server_record):
    """`mcp-tui "python3 server.py" session open dev`: the connection first, as every other command
    writes it. The keeper used to get no connection at all ("internal error ... 'NoneType'")."""
    opened = cli(stdio_command("--record", server_record), "session", "open", "first")
    try:
        assert opened.code == 0, opened
        assert opened.out == "Session first open: mcp-tui-testserver 0.1.0 (2026-07-28, stdio)\n", opened
        called = cli("@first", "tool", "call", "echo", "message=kept")
        assert called.code == 0 and "kept" in called.out, called
    finally:
        cli("session", "close", "first")


def test_trace_through_a_session_says_where_the_trace_is(cli, kept, start_server):
    """The keeper makes the HTTP requests, so --trace on @NAME printed nothing, silently."""
    server = start_server()
    kept("traced", "--url", server.url)
    result = cli("@traced", "--trace", "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result
    assert ("--trace: session traced's keeper makes the HTTP requests; its trace goes to the --log-file given to "
            "`session open`") in result.err.splitlines(), result


def test_auth_through_a_session_asks_for_the_url(cli, kept, start_server):
    """It said "auth login needs an HTTP server (--url URL)" of a session on an HTTP server."""
    server = start_server()
    kept("authed", "--url", server.url)
    result = cli("@authed", "auth", "login")
    assert (result.code, result.out, result.err) == (
        2, "", "mcp-tui: auth login takes the server's URL, not a session (@authed) (mcp-tui --url URL auth login)\n"), \
        result


def test_connection_options_given_with_a_session_are_refused_not_dropped(cli, kept):
    """`@dev --protocol-version 2025-11-25 server` answered from the 2026-07-28 session, and -H,
    --env or --bearer went nowhere, without a word."""
    kept("fixed", stdio_command())
    for flags, named in ((["--protocol-version", "2025-11-25"], "--protocol-version"),
                         (["-H", "X-Team: blue", "--env", "A=1"], "--header, --env"), (["--bearer", "tok"], "--bearer")):
        result = cli("@fixed", *flags, "server")
        assert (result.code, result.out, result.err) == (2, "", "mcp-tui: session fixed is connected already; %s "
                                                                "would change nothing here (give the connection's "
                                                                "options to `session open`)\n" % named), result


def test_a_fresh_state_directory_is_private(cli, tmp_path):
    fresh = tmp_path / "fresh" / "state"
    opened = cli("session", "open", "private", stdio_command(), env={"MCP_TUI_STATE_DIR": str(fresh)})
    assert opened.code == 0, opened
    try:
        assert stat.S_IMODE(os.stat(str(fresh)).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(str(fresh / "sessions.json")).st_mode) == 0o600
    finally:
        assert cli("session", "close", "private", env={"MCP_TUI_STATE_DIR": str(fresh)}).code == 0


def test_a_config_servers_expanded_variables_stay_out_of_the_sessions_file(cli, kept, state_dir, tmp_path,
                                                                          monkeypatch):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"local": {
        "command": sys.executable, "args": [str(TESTSERVER), "--page-ms", "${KEEPER_PAGE_SECRET}"]}}}))
    monkeypatch.setenv("KEEPER_PAGE_SECRET", "987654321")
    kept("cfg", "--config", str(config))
    listed = cli("session", "list", "--format", "json")
    assert listed.code == 0 and "local in %s" % config in listed.out, listed
    assert "987654321" not in listed.out
    assert "987654321" not in (state_dir / "sessions.json").read_text()


def test_output_and_exit_codes_match_a_direct_connection(cli, kept):
    kept("same", stdio_command(), "--protocol-version", "2025-11-25")
    direct = [stdio_command(), "--protocol-version", "2025-11-25"]
    for words in (["server"], ["tool", "list", "--format", "json"], ["tool", "call", "add", "a=2", "b=3"],
                  ["tool", "call", "fail_tool", "--strict-errors"], ["tool", "call", "nosuch"],
                  ["resource", "read", "test://static/hello.txt"], ["prompt", "get", "greeting", "name=Ann"],
                  ["rpc", "tools/list", "{\"cursor\": 7}"], ["tool", "call", "render_report", "quarter=Q1"]):
        through = cli("@same", *words)
        expected = cli(*(direct + words))
        assert (through.code, through.out, through.err) == (expected.code, expected.out, expected.err), words
    assert cli("--session", "same", "tool", "call", "echo", "message=hi").out == "Tool response:\nhi\n"


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_elicitation_is_answered_by_the_command_that_asked(cli, kept, protocol):
    kept("ask", stdio_command(), "--protocol-version", protocol)
    answered = cli("@ask", "tool", "call", "ask_name", "--elicit-stub", '{"name": "Ann"}')
    assert answered.code == 0, answered
    assert answered.out == "Tool response:\nHello, Ann!\n"
    declined = cli("@ask", "tool", "call", "ask_name", input="")
    assert declined.out == "Tool response:\nNo name given (decline)\n"
    assert "no terminal; pass --elicit-stub JSON to answer" in declined.err
    sampled = cli("@ask", "tool", "call", "ask_model", "question=why", "--sampling-stub", '{"text": "because"}')
    assert sampled.out == "Tool response:\nThe model said: because\n", sampled


def test_two_commands_at_once_each_get_their_own_answers_and_progress(cli, kept, state_dir):
    kept("busy", stdio_command(), "--protocol-version", "2025-11-25")
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    slow = subprocess.Popen(MCP_TUI_PROCESS + ["@busy", "tool", "call", "long_operation", "steps=4",
                             "step_ms=400", "--elicit-stub", "{}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=environ, cwd=str(ROOT))
    try:
        wait_for(lambda: cli("session", "list", "--format", "json").json()["sessions"][0]["attached"] == 1)
        quick = cli("@busy", "tool", "call", "ask_name", "--elicit-stub", '{"name": "Bo"}')
        assert quick.out == "Tool response:\nHello, Bo!\n", quick
        assert "progress" not in quick.err
        out, err = slow.communicate(timeout=60)
    finally:
        if slow.poll() is None:
            slow.kill()
    assert slow.returncode == 0, err
    assert out == "Tool response:\nDone after 4 steps\n"
    assert "⏳ progress 4/4: Step 4 of 4" in err


def test_ctrl_c_during_open_stops_the_keeper_and_its_server_and_opens_nothing(cli, state_dir, tmp_path):
    """Ctrl+C while the keeper is still starting: the opener said `interrupted` (130) while the
    keeper went on and, once its server answered, kept a session the user thought cancelled."""
    started, go = tmp_path / "server.pid", tmp_path / "go"
    slow = tmp_path / "slow.py"
    slow.write_text("import os, runpy, sys, time\nopen(%r, 'w').write(str(os.getpid()))\n"
                    "while not os.path.exists(%r):\n    time.sleep(0.05)\n"
                    "sys.argv = [%r]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
                    % (str(started), str(go), str(TESTSERVER)))
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    opener = subprocess.Popen(MCP_TUI_PROCESS + ["session", "open", "slow", "%s %s" % (sys.executable, slow)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ, cwd=str(ROOT))
    try:
        server = int(wait_for(lambda: started.exists() and started.read_text(), what="the server started"))
        opener.send_signal(signal.SIGINT)
        out, err = opener.communicate(timeout=10)
    finally:
        if opener.poll() is None:
            opener.kill()
    assert (opener.returncode, out, err) == (130, "", "mcp-tui: interrupted\n")
    wait_for(lambda: not process_alive(server), timeout=10, what="the server stopped with its keeper")
    go.write_text("")  # were it still there, it would answer now
    listed = cli("session", "list")
    assert (listed.code, listed.err) == (0, "No sessions. Open one: mcp-tui session open NAME CONNECTION\n"), listed


def test_open_fails_with_one_line_and_leaves_nothing(cli, state_dir):
    result = cli("session", "open", "broken", "no-such-program-for-mcp-tui")
    assert result.code == 1
    assert result.out == ""
    assert result.err == "mcp-tui: cannot start the server: no such program 'no-such-program-for-mcp-tui'\n"
    assert "broken" not in sessions_file(state_dir)
    unknown = cli("@nobody", "tool", "list")
    assert unknown.code == 1 and unknown.err.startswith("mcp-tui: no session named 'nobody'")
    again = cli("session", "open", "bad name", stdio_command())
    assert again.code == 2


def test_a_second_open_with_the_same_name_is_refused(cli, kept):
    kept("twice", stdio_command())
    result = cli("session", "open", "twice", stdio_command())
    assert result.code == 1
    assert "session 'twice' is already open" in result.err


def test_a_connection_that_cannot_prove_the_token_is_refused(cli, kept, state_dir):
    """The keeper answers a request only after the command proved it knows the token (an
    HMAC over both ends' nonces); the token itself, as older commands sent it, is no proof."""
    record = kept("guarded", stdio_command())
    assert "socket" in record and "port" not in record
    with keeper_socket(state_dir, record) as sock:
        sock.sendall(record["token"].encode() + b'\n{"op": "status"}\n')
        assert sock.recv(100) == b""  # closed without a word
    wrong = {"proof": proof("0" * 64, "command", "x", "y")}
    for request in (dict(wrong, op="status"), {"op": "status"}, {"op": "status", "proof": None}):
        with keeper_socket(state_dir, record) as sock:
            reader = sock.makefile("rb")
            sock.sendall(json.dumps({"nonce": os.urandom(32).hex()}).encode() + b"\n")
            assert set(json.loads(reader.readline())) == {"nonce", "pid", "proof"}
            sock.sendall(json.dumps(request).encode() + b"\n")
            assert reader.read() == b""  # closed without a word
            reader.close()
    assert cli("@guarded", "ping").code == 0


def test_the_keeper_stops_when_unused_for_idle_minutes(cli, kept, state_dir, server_record):
    record = kept("sleepy", stdio_command("--record", server_record), "--idle", "0.02")
    wait_for(lambda: not process_alive(record["pid"]))
    wait_for(lambda: not pids_with(str(server_record)))
    assert sessions_file(state_dir)["sleepy"]["ended"].startswith("unused for ")  # kept to say why, once
    listed = cli("session", "list")
    assert listed.code == 0 and listed.out == "", listed
    assert re.search(r"^Session sleepy had ended: unused for \S+; removed its record$", listed.err, re.M), listed
    assert "sleepy" not in sessions_file(state_dir)


def test_the_keeper_stops_when_its_server_dies(cli, kept, state_dir, server_record):
    record = kept("fragile", stdio_command("--record", server_record))
    (server,) = pids_with(str(server_record))
    os.kill(server, signal.SIGKILL)
    wait_for(lambda: not process_alive(record["pid"]))
    # The next command says why (it said only "no session named 'fragile'"), once
    result = cli("@fragile", "tool", "list")
    assert (result.code, result.err) == (1, "mcp-tui: session 'fragile' has ended: the server went away: the server "
                                            "process exited on signal 9 (SIGKILL) (open it again with: mcp-tui "
                                            "session open fragile CONNECTION)\n"), result
    assert "fragile" not in sessions_file(state_dir)
    again = cli("@fragile", "tool", "list")
    assert again.code == 1 and "no session named 'fragile'" in again.err
    record = kept("fragile", stdio_command("--record", server_record))
    (server,) = pids_with(str(server_record))
    os.kill(server, signal.SIGKILL)
    wait_for(lambda: not process_alive(record["pid"]))
    closed = cli("session", "close", "fragile", "--format", "json")
    assert closed.code == 0 and closed.json() == {"closed": [{
        "name": "fragile", "state": "stale",
        "ended": "the server went away: the server process exited on signal 9 (SIGKILL)"}]}, closed


def test_a_killed_keeper_leaves_a_stale_record_that_is_reported_and_cleaned(cli, kept, state_dir):
    record = kept("stale", stdio_command())
    os.kill(record["pid"], signal.SIGKILL)
    wait_for(lambda: not process_alive(record["pid"]))
    used = cli("@stale", "tool", "list")
    assert used.code == 1
    assert used.err.startswith("mcp-tui: session 'stale' has ended: its keeper is no longer running")
    assert "stale" not in sessions_file(state_dir)

    record = kept("stale2", stdio_command())
    os.kill(record["pid"], signal.SIGKILL)
    wait_for(lambda: not process_alive(record["pid"]))
    listed = cli("session", "list")
    assert listed.code == 0 and listed.out == ""
    assert "Session stale2 had ended (its keeper was gone); removed its stale record" in listed.err
    assert "stale2" not in sessions_file(state_dir)


def test_a_keeper_that_dies_as_a_command_reaches_it_is_reported_as_ended(cli, state_dir, monkeypatch):
    """A keeper killed a moment ago can still take a connection into its listener's backlog and
    then reset it, before the command has written a byte: that too is a session that has ended
    (CI saw 'the keeper of session ... went away' here, with the stale record kept)."""
    import mcp_tui

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(state_dir / "keeper-dying.sock"))
    listener.listen(1)
    state_dir.chmod(0o700)
    sessions = state_dir / "sessions.json"
    sessions.write_text(json.dumps({"dying": {"socket": "keeper-dying.sock", "token": "0" * 64, "pid": os.getpid()}}))
    sessions.chmod(0o600)

    class DiesOnceReached(socket.socket):
        def connect(self, address):
            super().connect(address)
            listener.close()  # the queued connection is reset: the command's first write fails

    monkeypatch.setattr(mcp_tui, "keeper_socket", lambda record: DiesOnceReached(socket.AF_UNIX, socket.SOCK_STREAM))
    used = cli("@dying", "tool", "list")
    assert used.code == 1
    assert used.err.startswith("mcp-tui: session 'dying' has ended: its keeper is no longer running"), used.err
    assert "dying" not in sessions_file(state_dir)


def test_close_all_over_http(cli, kept, start_server, state_dir):
    server = start_server()
    first = kept("web", "--url", server.url)
    assert first["line"] == "Session web open: mcp-tui-testserver 0.1.0 (2026-07-28, streamable-http)\n"
    second = kept("web-legacy", "--url", server.url, "--protocol-version", "2025-11-25")
    assert cli("@web-legacy", "tool", "call", "echo", "message=hi").out == "Tool response:\nhi\n"
    assert cli("@web", "tool", "call", "echo", "message=hi").out == "Tool response:\nhi\n"
    closed = cli("session", "close", "--all")
    assert closed.code == 0, closed
    assert sorted(closed.out.splitlines()) == ["Session web closed", "Session web-legacy closed"]
    for record in (first, second):
        wait_for(lambda: not process_alive(record["pid"]))
    assert sessions_file(state_dir) == {}
    none = cli("session", "close", "--all")  # it said nothing at all
    assert (none.code, none.out, none.err) == (0, "", "No sessions to close.\n"), none


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_a_stdio_task_without_wait_keeps_its_server_until_its_result_is_fetched(cli, state_dir, tmp_path,
                                                                                  server_record, protocol):
    started = cli(stdio_command("--record", server_record, "--page-ms", "200"), "--protocol-version", protocol,
                  "tool", "call", "render_report", "quarter=Q2", "--task")
    assert started.code == 0, started
    assert started.err.count("A background session keeps the server running until its tasks end or --idle "
                             "passes (mcp-tui session list)\n") == 1
    created, poll, result_line = started.out.splitlines()
    task_id = created.split()[1]
    assert poll == "Poll:   mcp-tui task get %s" % task_id
    assert result_line == "Result: mcp-tui task result %s" % task_id
    (name,) = sessions_file(state_dir)
    assert name.startswith("task-")
    keeper = sessions_file(state_dir)[name]["pid"]
    assert pids_with(str(server_record)), "the server outlives the command"
    ledger = json.loads((state_dir / "tasks.json").read_text())
    assert [entry["connection"] for entry in ledger.values()] == [{"kind": "session", "name": name,
                                                                   "protocol": "auto"}]

    elsewhere = tmp_path / "another-terminal"
    elsewhere.mkdir()
    got = cli(*poll.split()[2:], cwd=elsewhere)
    assert got.code == 0, got
    assert got.out.startswith("Task:     %s\nStatus:   " % task_id)
    listed = cli("session", "list", "--format", "json").json()["sessions"]
    assert [(s["name"], s["openTasks"]) for s in listed] == [(name, 1)]

    fetched = cli(*result_line.split()[2:], cwd=elsewhere)
    assert fetched.code == 0, fetched
    assert fetched.out == "Tool response:\nQ2 revenue: $4.6M across 1,310 orders\n"
    wait_for(lambda: not process_alive(keeper))
    wait_for(lambda: not pids_with(str(server_record)))
    assert sessions_file(state_dir) == {}
    again = cli(*poll.split()[2:])
    assert again.code == 1
    assert "the session that kept this task's server has ended" in again.err
    assert task_id not in again.err


def test_a_cancelled_stdio_task_lets_its_keeper_go(cli, state_dir, server_record):
    """A cancelled task has no outcome to fetch: once a command sees it cancelled, the
    keeper started for it stops, as it does after a result (not at the TTL or --idle)."""
    started = cli(stdio_command("--record", server_record, "--page-ms", "200"), "tool", "call", "render_report",
                  "quarter=Q2", "pages=1000", "--task")
    assert started.code == 0, started
    task_id = started.out.split()[1]
    (name,) = sessions_file(state_dir)
    keeper = sessions_file(state_dir)[name]["pid"]
    assert cli("task", "cancel", task_id).code == 0
    shown = wait_for(lambda: (lambda r: r if "Status:   cancelled" in r.out else None)(cli("task", "get", task_id)))
    assert shown.code == 0, shown
    wait_for(lambda: not process_alive(keeper))
    wait_for(lambda: not pids_with(str(server_record)))
    assert sessions_file(state_dir) == {}
    again = cli("task", "get", task_id)
    assert again.code == 1 and "after its result was fetched or it was cancelled" in again.err, again


def test_a_task_through_a_named_session_is_followed_through_it(cli, kept, state_dir):
    record = kept("work", stdio_command("--page-ms", "100"))
    started = cli("@work", "tool", "call", "fail_report", "mode=error", "--task")
    assert started.code == 0, started
    assert "background session" not in started.err
    task_id = started.out.split()[1]
    assert cli("session", "list", "--format", "json").json()["sessions"][0]["openTasks"] == 1
    failed = cli("task", "result", task_id)
    assert failed.code == 1
    assert "Renderer crashed on page 7" in failed.err
    assert cli("session", "list", "--format", "json").json()["sessions"][0]["openTasks"] == 0
    assert process_alive(record["pid"]), "a named session stays open until it is closed or idle"


def test_the_tui_attaches_to_a_session(cli, kept, state_dir):
    pytest.importorskip("pyte")
    from tui_helpers import TuiSession

    record = kept("screen", stdio_command())
    screen = TuiSession(["@screen"], env={"MCP_TUI_STATE_DIR": str(state_dir)})
    try:
        screen.wait_all("echo", "render_report", "Returns the message it is given.")
        screen.send("4")
        screen.wait_all("Connection:   @screen", "Title:        mcp-tui test server")
        screen.send("q")
        assert screen.wait_exit() == 0
    finally:
        screen.close()
    assert process_alive(record["pid"]), "leaving the TUI leaves the session open"
    assert cli("@screen", "ping").code == 0


def test_hostile_strings_pass_through_a_session_as_they_do_directly(cli, kept):
    """Lone surrogates and escape sequences: the keeper's lines are ASCII JSON, and the
    command cleans the text exactly as it does on a direct connection."""
    hostile = " ".join([sys.executable, str(ROOT / "tests" / "badserver.py"), "--mode", "hostile"])
    kept("hostile", hostile)
    for words in (["tool", "list"], ["tool", "list", "--format", "json"], ["server"]):
        through, direct = cli("@hostile", *words), cli(hostile, *words)
        assert (through.code, through.out) == (direct.code, direct.out), words


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_watch_through_a_session_sees_what_another_command_changes(cli, kept, state_dir, protocol):
    kept("watched", stdio_command(), "--protocol-version", protocol)
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    watch = subprocess.Popen(MCP_TUI_PROCESS + ["@watched", "watch", "--resource", "test://static/hello.txt",
                              "--for", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             encoding="utf-8", env=environ, cwd=str(ROOT))
    try:
        for line in watch.stderr:
            if line.startswith("👀 Watching"):
                break
        assert cli("@watched", "tool", "call", "toggle_extra_tool").code == 0
        assert cli("@watched", "tool", "call", "touch_resource", "uri=test://static/hello.txt").code == 0
        seen = []
        for line in watch.stdout:
            seen.append(line)
            if "test://static/hello.txt" in line:
                break
        assert any("tools list changed" in line for line in seen), seen
    finally:
        watch.kill()
        watch.wait()


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_a_command_attached_when_the_session_ends_is_told_why(cli, kept, state_dir, server_record, protocol):
    """The keeper tells its attached commands why it stops, so a watch through a session
    ends with that reason (it said nothing and watched on, and a request said only that
    "the keeper went away")."""
    kept("brief", stdio_command("--record", server_record), "--protocol-version", protocol)
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    watch = subprocess.Popen(MCP_TUI_PROCESS + ["@brief", "watch"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, encoding="utf-8", env=environ, cwd=str(ROOT))
    try:
        for line in watch.stderr:
            if line.startswith("👀 Watching"):
                break
        assert cli("session", "close", "brief").code == 0
        assert watch.wait(30) == 1
        assert watch.stderr.read() == "mcp-tui: session 'brief' ended: closed by `session close`\n"
        assert watch.stdout.read() == ""
    finally:
        if watch.poll() is None:
            watch.kill()
        watch.wait()


def test_the_keepers_log_masks_secrets_and_holds_no_token(cli, kept, start_server, tmp_path):
    server = start_server()
    log = tmp_path / "keeper.jsonl"
    record = kept("logged", "--url", server.url, "--bearer", "sekrit-bearer-value", "--log-file", log)
    assert cli("@logged", "tool", "call", "echo", "message=hi").code == 0
    assert cli("session", "close", "logged").code == 0
    text = log.read_text()
    assert '"tools/call"' in text and "session kept" in text
    assert "sekrit-bearer-value" not in text
    assert record["token"] not in text


def test_session_open_authorizes_with_oauth_and_the_session_uses_the_token(cli, start_server, state_dir):
    """The keeper runs the OAuth flow (browser step announced on session open's stderr);
    commands through the session never see a token and need no second login."""
    fetch_url = ROOT / "tests" / "interop" / "fetch_url.py"
    server = start_server("--auth")
    opened = cli("session", "open", "authed", "--url", server.url,
                 env={"BROWSER": "%s %s %%s" % (sys.executable, fetch_url)})
    try:
        assert opened.code == 0, opened
        assert opened.out.startswith("Session authed open: mcp-tui-testserver 0.1.0 (")
        assert re.search(r"authoriz\w* .*http://127\.0\.0\.1:\d+/authorize\?", opened.err), opened.err
        listed = cli("@authed", "tool", "list", env={"BROWSER": "false"})
        assert listed.code == 0 and "echo (Echo)" in listed.out, listed
        assert "authoriz" not in listed.err
    finally:
        cli("session", "close", "authed")
    stored = json.loads((state_dir / "auth.json").read_text())
    (token,) = stored["tokens"].values()
    assert token["accessToken"] not in (state_dir / "sessions.json").read_text()


def test_a_keeper_starts_a_new_session_once_when_the_server_has_forgotten_its_own(cli, kept, start_server):
    """A 2025-11-25 server that restarts forgets its sessions and answers 404 for their ids;
    the keeper initializes again, says so once, and the command's request still gets through."""
    server = start_server("--fidelity", "--forget-endpoint")
    kept("amnesia", "--url", server.url, "--protocol-version", "2025-11-25")
    assert cli("@amnesia", "tool", "call", "echo", "message=before").out == "Tool response:\nbefore\n"
    forget = urllib.request.Request(server.url.rsplit("/", 1)[0] + "/forget", data=b"", method="POST")
    with urllib.request.urlopen(forget, timeout=10) as answer:
        assert json.loads(answer.read())["forgotten"] == 1

    after = cli("@amnesia", "tool", "call", "echo", "message=after")
    assert after.code == 0, after
    assert after.out == "Tool response:\nafter\n"
    told = [line for line in after.err.splitlines() if "forgotten" in line]
    assert told == ["The server had forgotten session amnesia; the keeper initialized a new one and sent tools/list "
                    "again (what the old one held, such as its tasks, is gone)"], after
    again = cli("@amnesia", "--timeout", "20", "tool", "call", "ask_on_stream", "method=ping", timeout=60)
    assert (again.code, again.out) == (0, "Tool response:\nping answered: {}\n"), again  # on the new GET stream
    assert "forgotten" not in again.err
    initializes = [r for r in server.records() if r["message"].get("method") == "initialize"]
    assert len(initializes) == 2


def test_a_2025_11_25_http_server_that_died_under_a_session_is_reported_at_once(cli, kept, start_server):
    """The keeper's request fails to connect; that is no forgotten session, and the command
    says the server cannot be reached instead of waiting for --timeout."""
    server = start_server()
    kept("dead", "--url", server.url, "--protocol-version", "2025-11-25")
    server.stop()
    result = cli("@dead", "--timeout", "30", "tool", "list")
    assert result.code == 1, result
    assert result.out == ""
    assert result.err.startswith("mcp-tui: cannot reach %s" % server.url), result.err


def test_a_watch_keeps_its_subscription_when_the_keeper_starts_a_new_session(cli, kept, start_server, state_dir):
    """The new session the keeper starts for a forgotten one gets the subscriptions of the
    attached `watch` commands again, before the request that found the loss is sent again."""
    server = start_server("--fidelity", "--forget-endpoint")
    kept("restarted", "--url", server.url, "--protocol-version", "2025-11-25")
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    watch = subprocess.Popen(MCP_TUI_PROCESS + ["@restarted", "watch", "--resource",
                              "test://static/hello.txt", "--for", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, encoding="utf-8", env=environ, cwd=str(ROOT))
    try:
        for line in watch.stderr:
            if line.startswith("👀 Watching"):
                break
        forget = urllib.request.Request(server.url.rsplit("/", 1)[0] + "/forget", data=b"", method="POST")
        with urllib.request.urlopen(forget, timeout=10) as answer:
            assert json.loads(answer.read())["forgotten"] == 1
        touched = cli("@restarted", "tool", "call", "touch_resource", "uri=test://static/hello.txt")
        assert touched.code == 0 and "had forgotten session restarted" in touched.err, touched
        seen = next((line for line in watch.stdout if "test://static/hello.txt" in line), None)  # --for bounds it
        assert seen is not None and "resource updated: test://static/hello.txt" in seen, seen
    finally:
        watch.kill()
        watch.wait()
    subscribes = [r for r in server.records() if r["message"].get("method") == "resources/subscribe"]
    assert len(subscribes) == 2, subscribes


def keeper_line(record, request, state_dir):
    """Talk to a keeper the way a command does: prove the token both ways, then one request."""
    sock = keeper_socket(state_dir, record)
    reader = sock.makefile("rb")
    ours = os.urandom(32).hex()
    sock.sendall(json.dumps({"nonce": ours}).encode() + b"\n")
    hello = json.loads(reader.readline())
    assert hello["pid"] == record["pid"]
    assert hmac.compare_digest(hello["proof"], proof(record["token"], "keeper", ours, hello["nonce"], record["pid"]))
    request = dict(request, proof=proof(record["token"], "command", hello["nonce"], ours))
    sock.sendall(json.dumps(request).encode() + b"\n")
    return sock, reader


def keeper_status(record):
    sock, reader = keeper_line(record, {"op": "status"}, record["state_dir"])
    with sock, reader:
        return json.loads(reader.readline())["status"]


def test_progress_routes_go_with_each_answer_and_a_tasks_route_stays_until_it_ends(cli, kept, state_dir):
    """One command that stays attached (the TUI) makes many calls with progress tokens: the
    keeper's table of them must not grow with every call, but a task's progress continues
    after the tools/call that created it, so its token stays routable."""
    record = kept("routes", stdio_command(), "--protocol-version", "2025-11-25")
    record["state_dir"] = state_dir
    sock, reader = keeper_line(record, {"op": "attach"}, state_dir)

    def call(request_id, name, arguments, **extra):
        params = dict(name=name, arguments=arguments, _meta={"progressToken": "p-%d" % request_id}, **extra)
        sock.sendall(json.dumps({"message": {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                                             "params": params}}).encode() + b"\n")
        while True:
            item = json.loads(reader.readline())["message"]
            if item.get("id") == request_id:
                return item["result"]

    with sock, reader:
        assert "state" in json.loads(reader.readline())
        for request_id in range(1, 41):
            result = call(request_id, "long_operation", {"steps": 1, "step_ms": 0})
            assert result["content"][0]["text"] == "Done after 1 steps"
        assert keeper_status(record)["progressRoutes"] == 0
        for request_id in (41, 42):
            created = call(request_id, "render_report", {"quarter": "Q3", "pages": 1000}, task={})
            assert created["task"]["status"] == "working"
        assert keeper_status(record)["progressRoutes"] == 2
        sock.sendall(json.dumps({"message": {"jsonrpc": "2.0", "id": 43, "method": "tasks/cancel", "params": {
            "taskId": created["task"]["taskId"]}}}).encode() + b"\n")
        wait_for(lambda: keeper_status(record)["progressRoutes"] == 1)  # its cancelled status ended its route
    wait_for(lambda: keeper_status(record)["attached"] == 0)
    assert keeper_status(record)["progressRoutes"] == 0
