"""A kept session on a shared machine (issues 21 and 22): the keeper runs only its own code,
the command and the keeper prove to each other that they know the session's token before
anything of value is sent (an impostor on a dead keeper's address learns nothing), two
`session open`s of one name cannot both win, the keeper finishes what a command that went
away started (its questions declined, its calls cancelled), and --root reaches a session."""
import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import threading

import pytest

from conftest import MCP_TUI, MCP_TUI_PROCESS, ROOT, plant_bytecode, process_alive, stdio_command, wait_for
from test_keeper import kept, pids_with, server_record, sessions_file  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="finds processes through os.kill(pid, 0)")

PLANTED = ("secrets", "json", "socket", "hmac", "hashlib", "subprocess", "selectors", "queue", "signal", "ssl",
           "threading", "importlib_metadata", "sitecustomize", "usercustomize", "mcp_tui", "re", "base64", "struct")


def environ(state_dir):
    return dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")


def recorded(path):
    """The messages a stdio test server's --record file holds so far."""
    if not path.exists():
        return []
    return [json.loads(line)["message"] for line in path.read_text().splitlines() if line.strip()]


# -- 1. the keeper runs only its own code ------------------------------------------------------------------------


def test_modules_planted_in_the_working_directory_are_never_imported(cli, state_dir, tmp_path):
    """`session open` started the keeper with `python -c`, which puts the working directory first
    on sys.path: a secrets.py there ran inside the keeper with the user's rights."""
    work, markers = tmp_path / "shared-dir", tmp_path / "markers"
    work.mkdir()
    markers.mkdir()
    for name in PLANTED:
        (work / (name + ".py")).write_text("open(%r, 'w').close()\n" % str(markers / name))
    opened = cli("session", "open", "clean", stdio_command(), cwd=work)
    assert opened.code == 0, opened
    record = sessions_file(state_dir)["clean"]
    listed = cli("@clean", "tool", "list", cwd=work)
    assert listed.code == 0 and "echo (Echo)" in listed.out, listed
    called = cli("@clean", "tool", "call", "echo", "message=hi", cwd=work)
    assert (called.code, called.out) == (0, "Tool response:\nhi\n"), called
    with open("/proc/%d/cmdline" % record["pid"], "rb") as handle:
        argv = handle.read().split(b"\0")
    assert argv[1:3] == [b"-I", b"-c"], argv  # isolated: no PYTHONPATH, no user site either
    assert cli("session", "close", "clean", cwd=work).code == 0
    wait_for(lambda: not process_alive(record["pid"]))
    assert sorted(os.listdir(str(markers))) == []


def test_a_package_or_bytecode_planted_beside_a_copied_script_is_never_imported(state_dir, tmp_path):
    """mcp_tui.py copied into a sticky shared folder: the keeper looked mcp_tui up by name in
    that folder, and a package mcp_tui/ another user made there won (issue 31). Bytecode
    in a __pycache__ of theirs, with a header that matches the copied source, is not run
    either (as root, the folder is made theirs; otherwise the package alone is tried)."""
    import shutil

    shared, marks = tmp_path / "shared", tmp_path / "marks"
    shared.mkdir()
    marks.mkdir()
    script = shared / "mcp_tui.py"
    shutil.copy(str(MCP_TUI), str(script))
    (shared / "mcp_tui").mkdir()
    (shared / "mcp_tui" / "__init__.py").write_text("open(%r, 'w').close()\n" % str(marks / "package"))
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if as_root:
        plant_bytecode(script, marks / "bytecode")
    run = lambda *args: subprocess.run([sys.executable, str(script)] + list(args), capture_output=True, text=True,
                                       timeout=60, cwd=str(shared), env=environ(state_dir))
    opened = run("session", "open", "copied", stdio_command())
    assert opened.returncode == 0, opened
    record = sessions_file(state_dir)["copied"]
    called = run("@copied", "tool", "call", "echo", "message=hi")
    assert (called.returncode, called.stdout) == (0, "Tool response:\nhi\n"), called
    assert run("session", "close", "copied").returncode == 0
    wait_for(lambda: not process_alive(record["pid"]))
    assert sorted(os.listdir(str(marks))) == []


# -- 2. the command and the keeper authenticate each other -------------------------------------------------------


def test_the_keeper_listens_on_a_socket_in_the_private_state_directory(cli, kept, state_dir):
    record = kept("local", stdio_command())
    assert "port" not in record and "/" not in record["socket"]
    path = state_dir / record["socket"]
    assert stat.S_ISSOCK(os.stat(str(path)).st_mode)
    assert stat.S_IMODE(os.stat(str(state_dir)).st_mode) == 0o700
    assert cli("@local", "ping").code == 0
    assert cli("session", "close", "local").code == 0
    wait_for(lambda: not path.exists())


class Impostor:
    """What another local user puts on a keeper's old address: it keeps every byte it is
    sent, answers a hello as a keeper would (without the token, with a made-up proof), and
    answers anything else with a made-up result."""

    def __init__(self, family, address, pid):
        self.received = bytearray()
        self.connections = 0
        self.pid = pid
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            if family == socket.AF_INET:
                self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind(address)
            self.listener.listen(8)
        except OSError:
            self.listener.close()
            raise
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            with sock:
                reader = sock.makefile("rb")
                for line in iter(reader.readline, b""):
                    self.received.extend(line)
                    sock.sendall(json.dumps({"nonce": "0" * 64, "pid": self.pid, "proof": "0" * 64, "state": {},
                                             "result": {"content": [{"type": "text", "text": "IMPOSTOR"}]}}
                                            ).encode() + b"\n")

    def close(self):
        self.listener.close()


def squat(address):
    """An Impostor on ``address``, or None while another socket still holds that port."""
    try:
        return Impostor(socket.AF_INET, address, os.getpid())
    except OSError:
        return None


def test_a_killed_keepers_port_taken_by_another_process_gets_nothing(cli, state_dir):
    """After kill -9 of a keeper on a loopback port, a listener on that port got the 64-hex token,
    tools/list and the arguments, and its made-up answer was printed with exit 0."""
    opened = cli("session", "open", "web", stdio_command(), env={"MCP_TUI_KEEPER_TCP": "1"})
    assert opened.code == 0, opened
    record = sessions_file(state_dir)["web"]
    assert isinstance(record["port"], int) and "socket" not in record
    os.kill(record["pid"], signal.SIGKILL)
    wait_for(lambda: not process_alive(record["pid"]))
    impostor = wait_for(lambda: squat(("127.0.0.1", record["port"])))  # another process may have it a moment
    try:
        result = cli("@web", "tool", "call", "echo", "message=secret-argument")
    finally:
        impostor.close()
    assert (result.code, result.out) == (1, ""), result
    assert result.err.splitlines()[-1] == (
        "mcp-tui: session 'web' has ended: its keeper is no longer running (removed its stale record) (open it again "
        "with: mcp-tui session open web CONNECTION)"), result
    assert record["token"].encode() not in impostor.received
    assert b"secret-argument" not in impostor.received and b"tools/" not in impostor.received
    assert "web" not in sessions_file(state_dir)


@pytest.mark.parametrize("where", ["port", "socket"])
def test_what_answers_for_a_live_process_without_the_token_gets_no_request(cli, state_dir, tmp_path, where):
    """The keeper's process number may be reused by another process, which may listen where the
    keeper did: it gets a nonce and nothing else, and its answer is never printed."""
    token = os.urandom(32).hex()
    if where == "port":
        impostor = Impostor(socket.AF_INET, ("127.0.0.1", 0), os.getpid())
        address = {"port": impostor.listener.getsockname()[1]}
    else:
        impostor = Impostor(socket.AF_UNIX, str(state_dir / "keeper-0123456789abcdef.sock"), os.getpid())
        address = {"socket": "keeper-0123456789abcdef.sock"}
    (state_dir / "sessions.json").write_text(json.dumps({"reused": dict(
        address, token=token, pid=os.getpid(), server="s", version="1", era="2025-11-25", transport="stdio",
        connection="c", created=0, auto=False)}))
    os.chmod(str(state_dir / "sessions.json"), 0o600)
    try:
        result = cli("@reused", "tool", "call", "echo", "message=secret-argument")
    finally:
        impostor.close()
    assert (result.code, result.out) == (1, ""), result
    assert result.err.splitlines()[-1].startswith("mcp-tui: session 'reused' has ended: its keeper is no longer "
                                                  "running"), result
    assert "IMPOSTOR" not in result.err
    assert impostor.connections == 1
    (line,) = bytes(impostor.received).splitlines()
    assert list(json.loads(line)) == ["nonce"]  # a fresh nonce: no token, no proof of it, no request
    assert token.encode() not in impostor.received
    assert "reused" not in sessions_file(state_dir)


# -- 3. an atomic `session open` --------------------------------------------------------------------------------


def test_two_opens_of_one_name_at_once_one_wins_and_the_other_starts_nothing(cli, state_dir, server_record):
    command = MCP_TUI_PROCESS + ["session", "open", "race", stdio_command("--record", server_record)]
    racers = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environ(state_dir), cwd=str(ROOT)) for _ in range(2)]
    outcomes = sorted((proc.wait(60), proc.stdout.read(), proc.stderr.read()) for proc in racers)
    for proc in racers:
        proc.stdout.close()
        proc.stderr.close()
    (won_code, won_out, _), (lost_code, lost_out, lost_err) = outcomes
    assert (won_code, won_out) == (0, "Session race open: mcp-tui-testserver 0.1.0 (2026-07-28, stdio)\n"), outcomes
    assert (lost_code, lost_out) == (1, ""), outcomes
    assert lost_err == ("mcp-tui: session 'race' is already open (use it as @race, or close it first: mcp-tui "
                        "session close race)\n"), outcomes
    record = sessions_file(state_dir)["race"]
    assert len(pids_with(str(server_record))) == 1, "the loser started no keeper and no server"
    listed = cli("session", "list", "--format", "json").json()["sessions"]
    assert [(item["name"], item["pid"]) for item in listed] == [("race", record["pid"])]
    assert cli("session", "close", "race").code == 0
    wait_for(lambda: not process_alive(record["pid"]))
    wait_for(lambda: not pids_with(str(server_record)))


# -- 4. the keeper finishes what a command that went away started ------------------------------------------------


@pytest.mark.parametrize("transport,protocol", [("stdio", "2026-07-28"), ("stdio", "2025-11-25"),
                                                ("http", "2025-11-25")])
def test_a_call_whose_command_is_killed_is_cancelled_at_the_server(cli, kept, state_dir, server_record, start_server,
                                                                   transport, protocol):
    """kill -9 of `@NAME tool call` mid-call: the keeper tells the server (the call ran to its end,
    and the keeper logged "a response to id 4, which mcp-tui never sent")."""
    if transport == "stdio":
        kept("slow", stdio_command("--record", server_record), "--protocol-version", protocol)

        def messages():
            return recorded(server_record)
    else:
        server = start_server()
        kept("slow", "--url", server.url, "--protocol-version", protocol)

        def messages():
            return [record["message"] for record in server.records()]
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["@slow", "tool", "call", "long_operation", "steps=600",
                             "step_ms=100"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=environ(state_dir), cwd=str(ROOT))
    try:
        call = wait_for(lambda: next((m for m in messages() if m.get("method") == "tools/call"), None))
    finally:
        proc.kill()
        proc.wait()
    cancelled = wait_for(lambda: [m for m in messages() if m.get("method") == "notifications/cancelled"])
    assert [m["params"] for m in cancelled] == [{"requestId": call["id"],
                                                 "reason": "the mcp-tui command it was for went away"}]
    pinged = cli("@slow", "ping")
    assert pinged.code == 0 and pinged.out.startswith("pong from mcp-tui test server"), pinged
    assert "progress" not in pinged.err, pinged  # the killed call's progress is nobody's
    called = cli("@slow", "tool", "call", "echo", "message=next")
    assert (called.code, called.out) == (0, "Tool response:\nnext\n"), called


def test_a_call_whose_command_is_killed_is_cancelled_at_a_2026_07_28_http_server(cli, kept, state_dir, start_server):
    """Under 2026-07-28 HTTP a call is cancelled by closing its response stream: the keeper's
    did not close (http.client had handed the socket to the response), and the server ran on."""
    server = start_server("--verbose")
    kept("slow", "--url", server.url, "--protocol-version", "2026-07-28")
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["@slow", "tool", "call", "long_operation", "steps=600",
                             "step_ms=100"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=environ(state_dir), cwd=str(ROOT))
    try:
        assert any("progress 1/600" in line for line in proc.stderr), "the call never ran"  # it runs: kill it
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    call = next(r["message"] for r in server.records() if r["message"].get("method") == "tools/call")
    wait_for(lambda: "testserver: HTTP tools/call id %s: the client closed its stream; cancelled\n" % call["id"]
             in server.stderr_lines)
    pinged = cli("@slow", "ping")
    assert pinged.code == 0 and "progress" not in pinged.err, pinged
    called = cli("@slow", "tool", "call", "echo", "message=next")
    assert (called.code, called.out) == (0, "Tool response:\nnext\n"), called


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_an_elicitation_whose_command_went_away_is_declined(cli, kept, state_dir, server_record, how):
    """The command dies (or is interrupted) at the terminal prompt of an elicitation: the keeper
    declines it for the command (it stayed unanswered), and the call is cancelled once."""
    kept("asking", stdio_command("--record", server_record), "--protocol-version", "2025-11-25")
    master, slave = os.openpty()
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["@asking", "tool", "call", "ask_name"], stdin=slave,
                            stderr=slave, stdout=subprocess.PIPE, env=environ(state_dir), cwd=str(ROOT))
    os.close(slave)
    seen = bytearray()
    try:
        while b"Name*: " not in seen:
            ready, _, _ = select.select([master], [], [], 30)
            assert ready, bytes(seen)
            seen.extend(os.read(master, 65536))
        proc.send_signal(getattr(signal, how))
        code = proc.wait(30)
    finally:
        proc.kill()  # nothing once it has exited and been waited for
        proc.wait()
        proc.stdout.close()
        os.close(master)
    assert code == (-signal.SIGKILL if how == "SIGKILL" else 130)
    messages = recorded(server_record)
    (call,) = [m for m in messages if m.get("method") == "tools/call"]
    answer = wait_for(lambda: [m for m in recorded(server_record) if "result" in m and str(m["id"]).startswith("srv")])
    assert [m["result"] for m in answer] == [{"action": "decline"}]
    # the call is cancelled before the question is declined: once declined, the server may answer
    # the call at once, and an answered call is not cancelled (CI saw no cancellation at all)
    messages = recorded(server_record)
    cancelled = [m for m in messages if m.get("method") == "notifications/cancelled"]
    assert [m["params"]["requestId"] for m in cancelled] == [call["id"]], messages
    assert messages.index(cancelled[0]) < messages.index(answer[0]), messages
    again = cli("@asking", "tool", "call", "ask_name", "--elicit-stub", '{"name": "Ann"}')
    assert (again.code, again.out) == (0, "Tool response:\nHello, Ann!\n"), again


# -- 5. --root through a session -----------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_roots_given_to_session_open_answer_for_commands_without_their_own(cli, kept, state_dir, tmp_path,
                                                                           server_record, protocol):
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    opened = cli("session", "open", "rooted", stdio_command("--record", server_record), "--protocol-version",
                 protocol, "--root", "project", cwd=tmp_path)  # relative to where `session open` ran
    assert opened.code == 0, opened
    try:
        listed = cli("@rooted", "tool", "call", "list_roots")
        assert (listed.code, listed.out) == (0, "Tool response:\n%s\n" % project.as_uri()), listed
        own = cli("@rooted", "tool", "call", "list_roots", "--root", str(other))
        assert (own.code, own.out) == (0, "Tool response:\n%s\n" % other.as_uri()), own
    finally:
        cli("session", "close", "rooted")
    if protocol == "2025-11-25":  # what the server was sent: the answers to its roots/list
        answers = [m["result"]["roots"] for m in recorded(server_record) if "roots" in (m.get("result") or {})]
    else:  # the retried tools/call carries them (input_required)
        answers = [m["params"]["inputResponses"]["roots"]["roots"] for m in recorded(server_record)
                   if m.get("method") == "tools/call" and "inputResponses" in m["params"]]
    assert [[root["uri"] for root in roots] for roots in answers] == [[project.as_uri()], [other.as_uri()]]


def test_a_command_s_own_roots_reach_a_server_that_reads_roots_once(cli, kept, state_dir, tmp_path, server_record):
    """Issue 32: the keeper serves each command's --root and tells a 2025-11-25 server that the
    roots changed (servers such as everything and filesystem read roots once, and again when told);
    a later command without --root gets the session's own back, and the server is told again."""
    project, other = tmp_path / "project", tmp_path / "other"
    project.mkdir()
    other.mkdir()
    opened = cli("session", "open", "once", stdio_command("--record", server_record, "--reread-roots"),
                 "--protocol-version", "2025-11-25", "--root", str(project))
    assert opened.code == 0, opened
    def answers():
        return [[root["uri"] for root in m["result"]["roots"]] for m in recorded(server_record)
                if "roots" in (m.get("result") or {})]

    try:
        assert cli("@once", "ping", "--root", str(other)).code == 0
        # the server asks again when told, on its own time: the command's request waits for that answer
        # (sent first, it would meet the old roots), so the answer is in before the command ends
        assert answers() == [[other.as_uri()]]
        assert cli("@once", "ping").code == 0
        assert len(answers()) == 2, answers()
        assert cli("@once", "ping").code == 0  # the same roots again: nothing to tell
    finally:
        cli("session", "close", "once")
    told = [m for m in recorded(server_record) if m.get("method") == "notifications/roots/list_changed"]
    assert len(told) == 2, told
    assert answers() == [[other.as_uri()], [project.as_uri()]], answers()


def test_a_server_that_does_not_read_roots_when_told_is_waited_for_once(cli, kept, tmp_path, server_record):
    """The keeper waits for a told server's roots/list before a command's request goes out (above);
    a server that did not ask the first time is not waited for at each later change."""
    log = tmp_path / "keeper.jsonl"
    opened = cli("session", "open", "deaf", stdio_command("--record", server_record), "--protocol-version",
                 "2025-11-25", "--log-file", log)
    assert opened.code == 0, opened
    try:
        for root in ("one", "two", "three"):
            assert cli("@deaf", "ping", "--root", str(tmp_path / root)).code == 0
    finally:
        cli("session", "close", "deaf")
    notes = [line for line in log.read_text().splitlines() if "roots now" in line]
    assert len(notes) == 3, notes
    assert "did not ask for them within 1s" in notes[0], notes
    assert all("not waited for" in note for note in notes[1:]), notes
