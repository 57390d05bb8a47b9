"""`mcp-tui tap`: a stdio server relayed for a real host, byte for byte, its conversation logged
(masked, private, in the --record format), listed, watched and saved for `replay`.

Every tap here is a real process (the relay copies file descriptors): the host is this test,
or mcp-tui itself running `tap` as its stdio server. Nothing sleeps: each wait is on a
condition, with a timeout."""
import json
import os
import shlex
import signal
import subprocess
import sys
import threading

import pytest

from conftest import MCP_TUI_PROCESS, ROOT, TESTSERVER, process_alive, stdio_command, wait_for
import cached_script

pytestmark = pytest.mark.process

SERVER = cached_script.command(TESTSERVER)
# A server that says back every byte it reads, as it reads it (the tap must relay it unchanged).
ECHO = [sys.executable, "-c", "import os\nwhile True:\n    d = os.read(0, 65536)\n    if not d:\n        break\n"
        "    while d:\n        d = d[os.write(1, d):]\n"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}}


def line(message):
    return (json.dumps(message) + "\n").encode()


def tap_argv(*words, server=SERVER):
    return MCP_TUI_PROCESS + ["tap"] + list(words) + ["--"] + list(server)


def environment(state_dir, **more):
    return dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), **more)


def log_records(state_dir, name):
    """The records of tap ``name``'s log, the rotated part (NAME.1.jsonl) first, without the
    copies of the initialize exchange a rotation starts the later part with; a message logged as
    its text (past 1 MiB: ``messageText``) parsed, as the log's readers do."""
    records = []
    for path in (state_dir / "taps" / (name + ".1.jsonl"), state_dir / "taps" / (name + ".jsonl")):
        found = [json.loads(text) for text in path.read_text().splitlines()] if path.exists() else []
        for record in found:
            if "messageText" in record:
                record["message"] = json.loads(record.pop("messageText"))
        records += [record for record in found if not (records and record.get("copied"))]
    return records


def logged_messages(state_dir, name):
    return [(r["direction"], r["message"]) for r in log_records(state_dir, name) if "message" in r]


def tap_info(state_dir, name):
    path = state_dir / "taps" / (name + ".json")
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


class Host:
    """A host stand-in: the tap as its child, its stdin written and its stdout read line by line."""

    def __init__(self, argv, env):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, cwd=str(ROOT))
        self.stderr = []
        self.reader = threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True)
        self.reader.start()

    def ask(self, message):
        self.process.stdin.write(line(message))
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self, timeout=30):
        self.process.stdin.close()
        code = self.process.wait(timeout)
        self.reader.join(timeout)
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


@pytest.fixture
def host(state_dir):
    started = []

    def start(*words, server=SERVER, env=None):
        started.append(Host(tap_argv(*words, server=server), environment(state_dir, **(env or {}))))
        return started[-1]

    yield start
    for running in started:
        running.kill()


# -- mcp-tui as the host: the same answers through the tap, and every message in its log -------

def test_mcp_tui_through_the_tap_gets_the_answers_it_gets_direct_and_the_log_holds_every_message(cli, state_dir,
                                                                                                   tmp_path):
    through = " ".join(shlex.quote(word) for word in tap_argv("--name", "through"))
    record = tmp_path / "client.jsonl"
    tapped = cli(through, "--no-cache", "--record", str(record), "tool", "call", "echo", "message=hi", "--format",
                 "json")
    direct = cli(stdio_command(), "--no-cache", "tool", "call", "echo", "message=hi", "--format", "json")
    assert tapped.code == direct.code == 0, (tapped, direct)
    assert tapped.json() == direct.json()
    # the client's own --record and the tap's log hold the same messages, both ways, in order
    client = [json.loads(text) for text in record.read_text().splitlines()]
    seen = [(r["direction"], r["message"]) for r in client if "message" in r]
    logged = logged_messages(state_dir, "through")
    assert [m for m in logged if m[0] == "out"] == [m for m in seen if m[0] == "out"]
    assert [m for m in logged if m[0] == "in"] == [m for m in seen if m[0] == "in"]
    assert any(m.get("method") == "tools/call" for _, m in logged)
    assert all(r["transport"] == "stdio" and isinstance(r["time"], float) for r in log_records(state_dir, "through")
               if "message" in r)


# -- transparent: bytes unchanged, in order, whatever they are -----------------------------------

def test_hostile_traffic_is_relayed_byte_for_byte_and_logged_as_it_is(state_dir):
    big = line({"jsonrpc": "2.0", "id": 2, "method": "big", "params": {"text": "a" * (5 * 1024 * 1024)}})
    traffic = (b"not json at all\n" + b"\xff\xfe invalid \xc3\x28 utf-8\n" + line(INITIALIZE).replace(b"\n", b"\r\n")
               + big + b"\n\n" + b'{"jsonrpc":"2.0","method":"notifications/last"}')  # no newline at the end
    run = subprocess.run(tap_argv("--name", "echo", server=ECHO), input=traffic, capture_output=True, timeout=60,
                         env=environment(state_dir), cwd=str(ROOT))
    assert run.returncode == 0, run.stderr
    assert run.stdout == traffic  # every byte, in order: CR, invalid UTF-8, the empty line, no final newline
    assert run.stderr == b""
    records = log_records(state_dir, "echo")
    for direction in ("out", "in"):
        mine = [r for r in records if r.get("direction") == direction]
        assert [r.get("raw") for r in mine[:2]] == ["not json at all", "\ufffd\ufffd invalid \ufffd( utf-8"]
        assert [r["message"].get("method") for r in mine[2:]] == ["initialize", "big", "notifications/last"]
        assert len(mine[3]["message"]["params"]["text"]) == 5 * 1024 * 1024  # a message is logged whole
    assert (state_dir / "taps" / "echo.1.jsonl").exists()  # 10 MB logged: the log was rotated once


FLOOD = [sys.executable, "-c", "import os, sys, threading\n"
         "def flood():\n    data = memoryview(b'x' * (4 << 20))\n    while data:\n        data = data[os.write(1, data):]\n"
         "writer = threading.Thread(target=flood)\nwriter.start()\n"
         "sys.stderr.write('got ' + sys.stdin.readline())\nsys.stderr.flush()\nwriter.join()\n"]


def test_a_host_that_does_not_read_still_gets_its_writes_through(host, state_dir):
    """The server writes 4 MB the host does not read yet (every pipe on the way fills up), and
    the host writes a line: one thread a direction, so the line reaches the server."""
    running = host("--name", "flooded", server=FLOOD)
    running.process.stdin.write(b"hello\n")
    running.process.stdin.flush()
    wait_for(lambda: b"got hello\n" in b"".join(running.stderr), what="the server's word that the line came")
    assert running.process.stdout.read() == b"x" * (4 << 20)
    assert running.close() == 0


def test_a_host_that_writes_in_pieces_gets_every_answer_and_the_log_its_lines(host, state_dir):
    running = host("--name", "pieces")
    request = line(INITIALIZE)
    for start in range(0, len(request), 7):  # the relay does not wait for whole lines
        running.process.stdin.write(request[start:start + 7])
        running.process.stdin.flush()
    answer = json.loads(running.process.stdout.readline())
    assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "mcp-tui-testserver"
    assert running.close() == 0
    assert [m.get("method") for d, m in logged_messages(state_dir, "pieces") if d == "out"] == ["initialize"]


# -- no process left behind; signals and exit status passed on ----------------------------------

def server_pid(state_dir, name):
    return wait_for(lambda: (tap_info(state_dir, name) or {}).get("serverPid"), what="the tap's NAME.json")


def test_closing_the_host_s_stdin_ends_the_tap_and_its_server(host, state_dir):
    running = host("--name", "closing")
    assert running.ask(INITIALIZE)["id"] == 1
    server = server_pid(state_dir, "closing")
    assert running.close() == 0  # the server exits on the end of its input, and the tap as it did
    wait_for(lambda: not process_alive(server), what="the server's end")
    assert tap_info(state_dir, "closing")["ended"]


def test_a_host_killed_with_sigkill_leaves_no_process(state_dir, tmp_path):
    """The host holds the only other end of the tap's stdin: when it dies, the tap sees the end
    of its input, closes the server's, and both are gone."""
    script = tmp_path / "host.py"
    script.write_text(
        "import subprocess, sys\n"
        "tap = subprocess.Popen(%r, stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        "tap.stdin.write(%r)\n"
        "tap.stdin.flush()\n"
        "tap.stdout.readline()\n"
        "print(tap.pid, flush=True)\n"
        "sys.stdin.read()\n" % (tap_argv("--name", "killed"), line(INITIALIZE)))
    parent = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env=environment(state_dir), cwd=str(ROOT))
    try:
        tap = int(parent.stdout.readline())
        server = server_pid(state_dir, "killed")
        parent.kill()
        parent.wait()
        wait_for(lambda: not process_alive(tap) and not process_alive(server), what="the tap and its server gone")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_server_that_ignores_the_end_of_its_input_is_ended_after_the_grace(host, state_dir):
    stubborn = [sys.executable, "-c", "import signal, sys\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "sys.stdin.read()\nprint('still here', file=sys.stderr, flush=True)\nsignal.pause()\n"]
    running = host("--name", "stubborn", server=stubborn)
    server = server_pid(state_dir, "stubborn")
    code = running.close(timeout=60)
    assert code == 128 + signal.SIGKILL  # it ignored the end of its input and SIGTERM: killed
    assert not process_alive(server)
    assert b"still here\n" in b"".join(running.stderr)  # the server's stderr passes through


def test_sigterm_is_passed_on_and_the_tap_exits_as_the_server_did(host, state_dir):
    running = host("--name", "signalled", server=ECHO)  # a server that SIGTERM kills
    assert running.ask(INITIALIZE)["id"] == 1
    server = server_pid(state_dir, "signalled")
    running.process.send_signal(signal.SIGTERM)
    assert running.process.wait(30) == 128 + signal.SIGTERM
    wait_for(lambda: not process_alive(server), what="the server's end")


def test_a_server_that_closes_its_output_closes_the_host_s_input_at_once(host, state_dir):
    """As with the server itself: the host reads the end of the server's output while it runs."""
    quiet = [sys.executable, "-c", "import os, sys\nos.write(1, b'bye\\n')\nos.close(1)\nsys.stdin.read()\n"]
    running = host("--name", "quiet", server=quiet)
    assert running.process.stdout.read() == b"bye\n"  # the end, while the server (and the tap) still run
    assert running.process.poll() is None
    assert running.close() == 0


def test_the_server_s_exit_code_is_the_tap_s(state_dir):
    run = subprocess.run(tap_argv("--name", "exits", server=[sys.executable, "-c", "import sys; sys.exit(7)"]),
                         capture_output=True, timeout=60, env=environment(state_dir), cwd=str(ROOT))
    assert (run.returncode, run.stdout) == (7, b"")


def test_a_server_that_cannot_start_is_one_line(state_dir):
    run = subprocess.run(tap_argv(server=["no-such-program-here"]), capture_output=True, text=True, timeout=60,
                         env=environment(state_dir), cwd=str(ROOT))
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr == "mcp-tui: cannot start the server: no such program 'no-such-program-here'\n"


# -- the server's side: its stderr, its exit, a start that failed ----------------------------------

TALKATIVE = [sys.executable, "-c", "import os, sys\n"
             "sys.stderr.write('warming up\\nkey=sk-live-1234567890abcdef\\n\\x1b[31mred\\r\\n'); sys.stderr.flush()\n"
             "sys.stdout.write(sys.stdin.readline()); sys.stdout.flush()\n"
             "sys.stderr.write('bye, no newline'); sys.stderr.flush()\n"
             "sys.exit(3)\n"]


def test_the_server_s_stderr_and_exit_are_logged_and_its_stderr_still_reaches_the_host(cli, state_dir):
    run = subprocess.run(tap_argv("--name", "talkative", server=TALKATIVE), input=line(INITIALIZE),
                         capture_output=True, timeout=60, cwd=str(ROOT),
                         env=environment(state_dir, SERVER_API_KEY="sk-live-1234567890abcdef"))
    assert (run.returncode, run.stdout) == (3, line(INITIALIZE))
    assert run.stderr == b"warming up\nkey=sk-live-1234567890abcdef\n\x1b[31mred\r\nbye, no newline"  # unchanged
    shown = cli("tap", "watch", "talkative", "--for", "0.1")
    lines = shown.out.splitlines()
    assert shown.code == 0 and "sk-live" not in shown.out and "\x1b" not in shown.out, shown
    said = [text[13:] for text in lines if "server" in text]
    assert said[1].startswith("! server stderr: key=env:"), lines  # masked as the log masks the environment's
    assert said[:1] + said[2:] == ["! server stderr: warming up", "! server stderr: \\x1b[31mred",
                                   "! server stderr: bye, no newline", "■ server exited with 3"], lines
    document = [json.loads(text) for text in cli("tap", "watch", "talkative", "--for", "0.1", "--format",
                                                  "json").out.splitlines()]
    assert document[-1]["direction"] == "server" and (document[-1]["kind"], document[-1]["text"]) == ("exit", "3")
    assert "server" not in json.dumps([r for r in log_records(state_dir, "talkative") if "message" in r])


@pytest.mark.skipif(os.name == "nt", reason="POSIX signals")
def test_a_server_ended_by_a_signal_and_one_that_cannot_start_are_logged(cli, state_dir):
    killed = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
    run = subprocess.run(tap_argv("--name", "killed", server=killed), capture_output=True, timeout=60,
                         env=environment(state_dir), cwd=str(ROOT))
    assert run.returncode == 128 + 9
    assert cli("tap", "watch", "killed", "--for", "0.1").out.splitlines()[-1].endswith("■ server ended by SIGKILL")
    run = subprocess.run(tap_argv("--name", "missing", server=["no-such-program-here"]), capture_output=True,
                         timeout=60, env=environment(state_dir), cwd=str(ROOT))
    assert run.returncode == 1
    shown = cli("tap", "watch", "missing", "--for", "0.1")
    assert shown.code == 0 and shown.out.splitlines()[-1].endswith(
        "■ server could not start: cannot start the server: no such program 'no-such-program-here'"), shown
    assert [row["name"] for row in cli("tap", "list", "--format", "json").json()["taps"]] == ["killed", "missing"]


def test_the_tui_s_conversation_rows_show_the_server_s_stderr_and_exit():
    import mcp_tui

    exchanges = mcp_tui.TapExchanges()
    rows = [{"first": exchanges.entry({"server": event, "time": 1.5})}
            for event in ({"stderr": "oops\nforged"}, {"exit": 0})]
    assert [mcp_tui.tap_row_text(row)[13:] for row in rows] == ["! server stderr: oops\\nforged",
                                                                 "■ server exited with 0"]
    assert "oops\\nforged" in mcp_tui.tap_row_detail(rows[0])


# -- the log: masked, private, never followed through a link; its failure never stops the relay ---

def test_credentials_in_the_server_s_environment_are_masked_in_the_log(host, state_dir):
    secret = "sk-live-1234567890abcdef"
    running = host("--name", "masked", env={"WEATHER_API_KEY": secret})
    running.ask(INITIALIZE)
    answer = running.ask({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"message": "key " + secret}}})
    assert secret in json.dumps(answer)  # the relay changes nothing
    assert running.close() == 0
    text = (state_dir / "taps" / "masked.jsonl").read_text()
    assert secret not in text and "env:" in text


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_the_log_is_private_and_a_link_planted_at_its_place_is_not_followed(state_dir, tmp_path):
    run = subprocess.run(tap_argv("--name", "private", server=ECHO), input=line(INITIALIZE), capture_output=True,
                         timeout=60, env=environment(state_dir), cwd=str(ROOT))
    assert run.returncode == 0
    taps = state_dir / "taps"
    assert oct(taps.stat().st_mode & 0o777) == "0o700"
    for name in ("private.jsonl", "private.json"):
        assert oct((taps / name).stat().st_mode & 0o777) == "0o600"
    target = tmp_path / "elsewhere"
    target.write_text("mine\n")
    os.symlink(str(target), str(taps / "planted.jsonl"))
    run = subprocess.run(tap_argv("--name", "planted", server=ECHO), input=line(INITIALIZE), capture_output=True,
                         timeout=60, env=environment(state_dir), cwd=str(ROOT))
    assert (run.returncode, run.stdout) == (0, line(INITIALIZE))
    assert target.read_text() == "mine\n"
    assert run.stderr.decode().count("\n") == 1 and "symbolic link" in run.stderr.decode(), run.stderr


def test_a_log_that_cannot_be_written_is_said_once_and_the_relay_goes_on(host, state_dir):
    (state_dir / "taps" / "unwritable.jsonl").mkdir(parents=True)  # a directory where the log goes
    running = host("--name", "unwritable")
    assert running.ask(INITIALIZE)["id"] == 1
    assert running.ask({"jsonrpc": "2.0", "id": 2, "method": "ping"})["id"] == 2
    assert running.close() == 0
    said = b"".join(running.stderr).decode()
    assert said.count("\n") == 1 and "cannot write the tap's log" in said and "relay goes on" in said, said


def test_a_log_whose_directory_is_removed_is_said_once_and_the_relay_goes_on(host, state_dir):
    import shutil

    running = host("--name", "removed")
    assert running.ask(INITIALIZE)["id"] == 1
    wait_for(lambda: len(logged_messages(state_dir, "removed")) == 2, what="the first exchange logged")
    shutil.rmtree(str(state_dir / "taps"))
    for number in range(2, 5):
        assert running.ask({"jsonrpc": "2.0", "id": number, "method": "ping"})["id"] == number
    assert running.close() == 0
    said = b"".join(running.stderr).decode()
    assert said.count("\n") == 1 and "was removed" in said and "relay goes on" in said, said


@pytest.mark.parametrize("name", ["../escape", "a/b", "..", "a\\b", "x\x1b[31m", "tab\tname", "", "a.b", "é"])
def test_a_hostile_tap_name_is_a_usage_error_and_writes_nothing(cli, state_dir, name):
    result = cli("tap", "--name", name, "--", *ECHO)
    assert (result.code, result.out) == (2, ""), result
    assert "\x1b" not in result.err and "not a tap name" in result.err or "may not be empty" in result.err
    assert not (state_dir / "taps").exists() and not (state_dir.parent / "escape.jsonl").exists()
    for verb in (["watch", name], ["save", name, "-o", str(state_dir / "out.jsonl")]):
        refused = cli("tap", *verb)
        assert refused.code == 2 and "\x1b" not in refused.err, refused


def test_tap_run_needs_a_server_after_two_dashes(cli):
    result = cli("tap", "run")
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith("mcp-tui: usage: mcp-tui tap [--name NAME] -- COMMAND [ARGS...]")


# -- list, watch, save ---------------------------------------------------------------------------

def talk(state_dir, name, *messages, server=SERVER):
    """A short host session through tap ``name``: each message sent (an answer read for a request)."""
    running = Host(tap_argv("--name", name, server=server), environment(state_dir))
    try:
        answers = [running.ask(m) if "id" in m else running.process.stdin.write(line(m)) for m in messages]
        assert running.close() == 0
        return answers
    finally:
        running.kill()


OPENING = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}]
ECHO_CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo",
                                                                         "arguments": {"message": "hello"}}}


def test_tap_list_shows_each_tap_with_its_server_host_and_messages(cli, state_dir):
    talk(state_dir, "listed", *OPENING + [ECHO_CALL])
    shown = cli("tap", "list", "--format", "json")
    assert shown.code == 0, shown
    row, = shown.json()["taps"]
    assert row["name"] == "listed" and row["messages"] == 5 and row["running"] is False
    assert "testserver.py" in row["server"] and isinstance(row["hostPid"], int) and row["since"]
    text = cli("tap", "list")
    assert text.out.splitlines()[0].split() == ["NAME", "SERVER", "HOST", "PID", "MESSAGES", "SINCE"]
    assert text.out.splitlines()[1].startswith("listed ") and text.out.rstrip().endswith("ended")


def test_tap_list_masks_a_query_secret_in_listen_and_keeps_the_tap_s_token(cli, state_dir):
    """An HTTP tap's URL as an older mcp-tui wrote it (with --url's query): masked as the server is."""
    taps = state_dir / "taps"
    taps.mkdir(mode=0o700)
    (taps / "older.json").write_text(json.dumps({
        "name": "older", "server": "http://127.0.0.1:9/mcp?key=q:1a2b3c4d", "transport": "streamable-http",
        "pid": None, "started": "2026-01-31T09:00:00Z", "listen": "http://127.0.0.1:9/T0ken/mcp?key=q-Secret-5d1e"}))
    shown = cli("tap", "list", "--format", "json")
    row, = shown.json()["taps"]
    assert row["listen"].startswith("http://127.0.0.1:9/T0ken/mcp?key=q:") and "q-Secret-5d1e" not in shown.out
    text = cli("tap", "list").out
    assert text.splitlines()[0].split()[-1] == "LISTEN" and "/T0ken/mcp?key=q:" in text and "Secret" not in text


def test_tap_watch_prints_each_message_with_its_latency_and_errors_marked(cli, state_dir):
    talk(state_dir, "watched", *OPENING + [ECHO_CALL, {"jsonrpc": "2.0", "id": 3, "method": "no/such"}])
    shown = cli("tap", "watch", "watched", "--for", "0.2", "--format", "json")
    assert shown.code == 0, shown
    lines = [json.loads(text) for text in shown.out.splitlines()]
    assert lines.pop()["kind"] == "exit"  # the server's exit, last
    assert [(x["direction"], x["method"], x["id"]) for x in lines] == [
        ("out", "initialize", 1), ("in", "initialize", 1), ("out", "notifications/initialized", None),
        ("out", "tools/call", 2), ("in", "tools/call", 2), ("out", "no/such", 3), ("in", "no/such", 3)]
    answer = lines[4]
    assert answer["latencyMs"] >= 0 and answer["bytes"] > 0 and answer["kind"] == "response"
    assert lines[6]["kind"] == "error" and lines[6]["error"]["code"] == -32601
    text = cli("tap", "watch", "watched", "--for", "0.2").out.splitlines()
    assert " → tools/call echo #2 " in text[3] and " ← tools/call echo #2 " in text[4] and " ms " in text[4]
    assert "✗ -32601" in text[6]


FAIL_CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "fail_tool", "arguments": {}}}
READ_CALL = {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "test://nowhere"}}


def test_tap_watch_lines_name_the_tool_or_resource_and_mark_an_is_error_result(cli, state_dir):
    """Before: `→ tools/call #2 103 bytes`, no tool, no arguments, and an isError result unmarked."""
    talk(state_dir, "named", *OPENING + [ECHO_CALL, FAIL_CALL, READ_CALL])
    text = cli("tap", "watch", "named", "--for", "0.2").out.splitlines()
    assert ' → tools/call echo #2 {"message":"hello"} ' in text[3], text
    assert " ← tools/call echo #2 " in text[4] and "✗" not in text[4] and " ms " in text[4], text
    assert " ← tools/call fail_tool #3 ✗ isError " in text[6], text
    assert " → resources/read test://nowhere #4 " in text[7] and " ← resources/read test://nowhere #4 ✗ " in text[8]
    assert not [line for line in text if "waiting" in line], text  # every request here was answered
    shown = [json.loads(line) for line in cli("tap", "watch", "named", "--for", "0.2", "--format", "json").out.split(
        "\n") if line]
    assert shown[3]["name"] == "echo" and shown[3]["arguments"] == '{"message":"hello"}', shown[3]
    assert shown[6]["isError"] is True and shown[6]["name"] == "fail_tool" and "pending" not in shown[5]


def test_tap_watch_arguments_are_cut_masked_and_escaped(cli, state_dir):
    running = Host(tap_argv("--name", "summed"), environment(state_dir, API_KEY="sk-Watch-Secret-77"))
    try:
        running.ask(INITIALIZE)
        running.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {
            "message": "sk-Watch-Secret-77 \x1b[2J\nline " + "x" * 300}}})
        assert running.close() == 0
    finally:
        running.kill()
    shown = cli("tap", "watch", "summed", "--for", "0.2")
    call = [line for line in shown.out.splitlines() if "→ tools/call echo #2" in line][0]
    assert "sk-Watch-Secret-77" not in shown.out and "\x1b" not in shown.out, shown
    assert '{"message":"' in call and "\\n" in call and "…" in call and "x" * 100 not in call, call


# A server that answers no request: it says a notification for the first line, then reads to the end.
UNANSWERING = [sys.executable, "-c", "import sys\nsys.stdin.readline()\n"
               "print('{\"jsonrpc\": \"2.0\", \"method\": \"notifications/message\"}', flush=True)\n"
               "sys.stdin.read()\n"]


def test_tap_watch_marks_a_request_not_answered_yet(cli, state_dir):
    talk(state_dir, "waiting", {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "slow"}},
         server=UNANSWERING)
    shown = cli("tap", "watch", "waiting", "--for", "0.2")
    assert " → tools/call slow #7 " in shown.out and shown.out.splitlines()[0].endswith("… waiting"), shown
    entry = json.loads(cli("tap", "watch", "waiting", "--for", "0.2", "--format", "json").out.splitlines()[0])
    assert entry["pending"] is True and entry["name"] == "slow"


def test_tap_watch_filters_by_method_tool_errors_and_direction(cli, state_dir):
    talk(state_dir, "filtered", *OPENING + [ECHO_CALL, FAIL_CALL, READ_CALL])

    def lines(*words):
        shown = cli("tap", "watch", "filtered", "--for", "0.2", *words)
        assert shown.code == 0, shown
        return [line.split(" ", 1)[1] for line in shown.out.splitlines()]

    assert [line.split(" #")[0] for line in lines("--method", "tools/call")] == [
        "→ tools/call echo", "← tools/call echo", "→ tools/call fail_tool", "← tools/call fail_tool"]
    assert [line.split(" #")[0] for line in lines("--tool", "fail_tool")] == [
        "→ tools/call fail_tool", "← tools/call fail_tool"]
    assert [line.split(" #")[0] for line in lines("--tool", "test://nowhere")] == [
        "→ resources/read test://nowhere", "← resources/read test://nowhere"]
    assert [line.split(" #")[0] for line in lines("--errors")] == [
        "← tools/call fail_tool", "← resources/read test://nowhere"]
    assert {line[0] for line in lines("--dir", "in")} == {"←"} and {line[0] for line in lines("--dir", "out")} == {"→"}
    wrong = cli("tap", "watch", "filtered", "--dir", "sideways")
    assert wrong.code == 2 and wrong.err.count("\n") == 1 and "--dir" in wrong.err and "sideways" in wrong.err, wrong


def test_tap_sessions_lists_each_host_session_and_watch_session_shows_an_earlier_one(cli, state_dir):
    """Two host runs through one tap name: the log holds both; before, only the last could be watched."""
    talk(state_dir, "twice", *OPENING + [ECHO_CALL])
    second = dict(INITIALIZE, params=dict(INITIALIZE["params"], clientInfo={"name": "other-host", "version": "2"}))
    talk(state_dir, "twice", second, FAIL_CALL)
    listed = cli("tap", "sessions", "twice", "--format", "json")
    assert listed.code == 0, listed
    assert [(row["session"], row["client"], row["messages"], row["errors"]) for row in listed.json()["sessions"]] == [
        (1, "host 1", 5, 0), (2, "other-host 2", 4, 1)]
    text = cli("tap", "sessions", "twice").out.splitlines()
    assert text[0].split()[:3] == ["SESSION", "STARTED", "CLIENT"] and "other-host 2" in text[2]
    earlier = cli("tap", "watch", "twice", "--session", "1")  # an earlier session: printed once, no --for needed
    assert earlier.code == 0 and " → tools/call echo #2 " in earlier.out and "fail_tool" not in earlier.out, earlier
    latest = cli("tap", "watch", "twice", "--for", "0.2")
    assert "fail_tool" in latest.out and "echo #2" not in latest.out, latest
    missing = cli("tap", "watch", "twice", "--session", "3")
    assert missing.code == 2 and "--session 3: tap twice's log holds sessions 1 to 2" in missing.err, missing


def test_tap_sessions_reads_a_2026_host_s_client_and_version_from_its_discover_s_meta(cli, state_dir):
    """Before: CLIENT and PROTOCOL "-" for every 2026-07-28 session (no initialize to read them from)."""
    talk(state_dir, "modern", {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"}}}})
    listed = cli("tap", "sessions", "modern", "--format", "json")
    assert listed.code == 0, listed
    assert [(row["client"], row["protocolVersion"]) for row in listed.json()["sessions"]] == [("mcp 0.1.0",
                                                                                               "2026-07-28")]


def test_tap_stats_counts_each_method_with_its_errors_and_latency_percentiles(cli, state_dir):
    talk(state_dir, "counted", *OPENING + [ECHO_CALL, FAIL_CALL, READ_CALL])
    shown = cli("tap", "stats", "counted", "--format", "json")
    assert shown.code == 0, shown
    rows = dict((row["method"], row) for row in shown.json()["methods"])
    assert (rows["tools/call"]["count"], rows["tools/call"]["errors"], rows["tools/call"]["answered"]) == (2, 1, 2)
    assert 0 <= rows["tools/call"]["p50Ms"] <= rows["tools/call"]["p95Ms"], rows
    assert (rows["notifications/initialized"]["count"], rows["notifications/initialized"]["p50Ms"]) == (1, None)
    assert rows["resources/read"]["errors"] == 1 and rows["initialize"]["errors"] == 0
    text = cli("tap", "stats", "counted").out.splitlines()
    assert text[0].split() == ["METHOD", "COUNT", "ERRORS", "P50", "P95"] and text[1].split()[:3] == [
        "tools/call", "2", "1"] and " ms" in text[1], text


def test_tap_watch_follows_the_log_as_it_grows(state_dir):
    running = Host(tap_argv("--name", "live"), environment(state_dir))
    wait_for(lambda: tap_info(state_dir, "live"), what="the tap's NAME.json")
    watch = subprocess.Popen(MCP_TUI_PROCESS + ["tap", "watch", "live", "--for", "60"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=environment(state_dir), cwd=str(ROOT))
    try:
        assert running.ask(INITIALIZE)["id"] == 1
        assert "→ initialize #1" in watch.stdout.readline()
        assert "← initialize #1" in watch.stdout.readline()
        running.ask({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert "→ ping #2" in watch.stdout.readline() and "← ping #2" in watch.stdout.readline()
        watch.send_signal(signal.SIGINT)
        assert watch.wait(30) == 130
    finally:
        running.kill()
        if watch.poll() is None:
            watch.kill()
            watch.wait()


def test_tap_watch_strips_terminal_controls_from_what_the_server_sent(cli, state_dir):
    talk(state_dir, "hostile", {"jsonrpc": "2.0", "method": "evil\x1b]0;pwned\x07\x1b[2J/x"}, server=ECHO)
    shown = cli("tap", "watch", "hostile", "--for", "0.2")
    assert shown.code == 0 and "evil" in shown.out and "\x1b" not in shown.out and "\x07" not in shown.out, shown


FORGED = "\n15:12:08.790 \u2192 tools/call #7 delete_all_files 2.1 KiB"  # a line of tap watch's own, faked


def test_a_forged_line_in_what_the_host_or_server_sent_stays_on_its_own_line(cli, state_dir):
    import mcp_tui

    error = {"jsonrpc": "2.0", "id": "9" + FORGED, "error": {"code": -1, "message": "boom\r" + FORGED}}
    talk(state_dir, "forged", {"jsonrpc": "2.0", "method": "ping" + FORGED}, error, server=ECHO)
    shown = cli("tap", "watch", "forged", "--for", "0.2")
    lines = shown.out.splitlines()
    assert shown.code == 0 and len(lines) == 5, shown  # the notification, the error, each said back, the exit
    assert not [text for text in lines if text.startswith("15:12:08.790")] and "\r" not in shown.out
    assert " \u2192 ping\\n15:12:08.790 \u2192 tools/call #7 delete_all_files 2.1 KiB " in lines[0], lines
    assert "#9\\n15:12:08.790" in lines[1] and "boom\\r\\n15:12:08.790" in lines[1], lines
    exchanges = mcp_tui.TapExchanges()  # the TUI's conversation rows are these lines too
    rows = [{"first": exchanges.entry(record)} for record in log_records(state_dir, "forged") if "message" in record]
    assert all("\n" not in mcp_tui.tap_row_text(row) and "\r" not in mcp_tui.tap_row_text(row) for row in rows)


def test_tap_watch_of_an_unknown_tap_says_the_closest_one(cli, state_dir):
    talk(state_dir, "weather", INITIALIZE)
    wrong = cli("tap", "watch", "wether", "--for", "0.1")  # it waits for a tap that has not started yet
    assert (wrong.code, wrong.out) == (1, "")
    assert "no tap wether yet; waiting for it to start" in wrong.err and "(did you mean 'weather'?)" in wrong.err


def test_tap_save_writes_a_recording_that_replay_runs_clean(cli, state_dir, tmp_path):
    talk(state_dir, "saved", *OPENING + [ECHO_CALL, {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}])
    saved = tmp_path / "saved.jsonl"
    result = cli("tap", "save", "saved", "-o", str(saved))
    assert result.code == 0 and "4 messages" not in result.err, result
    if os.name != "nt":
        assert oct(saved.stat().st_mode & 0o777) == "0o600"
    replayed = cli(stdio_command(), "--protocol-version", "2025-06-18", "replay", str(saved))
    assert replayed.code == 0 and "2 requests: 2 same" in replayed.out, replayed
    only = tmp_path / "only.jsonl"
    assert cli("tap", "save", "saved", "-o", str(only), "--method", "tools/call").code == 0
    methods = [json.loads(text).get("message", {}).get("method") for text in only.read_text().splitlines()]
    assert methods.count("tools/call") == 1 and "tools/list" not in methods and "initialize" in methods
    replayed = cli(stdio_command(), "--protocol-version", "2025-06-18", "replay", str(only))
    assert replayed.code == 0 and "1 request: 1 same" in replayed.out, replayed
    later = tmp_path / "later.jsonl"
    nothing = cli("tap", "save", "saved", "-o", str(later), "--since", "2999-01-01T00:00")
    assert (nothing.code, nothing.out) == (1, "") and not later.exists(), nothing  # before: exit 0, an empty file
    assert "no message of tap saved is from --since 2999-01-01T00:00 on" in nothing.err, nothing
    assert cli("tap", "save", "saved", "-o", str(later), "--since", "yesterday").code == 2
    again = cli("tap", "save", "saved", "-o", str(only))  # -o replaces a file, as every -o does: it says so
    assert again.code == 0 and "(it replaced the file there)" in again.err, again


def test_tap_saves_replay_hint_quotes_the_path_for_the_shell(cli, state_dir, tmp_path):
    """`host & co.jsonl` unquoted: the shell ran `co.jsonl` and replayed a file named `host`."""
    talk(state_dir, "saved", *OPENING + [ECHO_CALL])
    saved = tmp_path / "Luca Rossi" / "host & co $(x).jsonl"
    saved.parent.mkdir()
    result = cli("tap", "save", "saved", "-o", str(saved))
    assert result.code == 0, result
    hint = result.err.strip().split("; replay them: ", 1)[1]
    assert shlex.split(hint) == ["mcp-tui", "SERVER", "replay", str(saved)], result


def test_the_log_is_rotated_and_tap_save_reads_both_parts(cli, state_dir, tmp_path, monkeypatch):
    """A small TAP_LOG_BYTES (the environment cannot change it: the test patches the module in a
    tap run in-process would not relay real descriptors), so the rotation is checked on TapLog."""
    import mcp_tui

    monkeypatch.setenv("MCP_TUI_STATE_DIR", str(state_dir))
    monkeypatch.setattr(mcp_tui, "TAP_LOG_BYTES", 2000)
    said = []
    log = mcp_tui.TapLog("rotated", mcp_tui.SecretRegistry(), "stdio", said.append)
    for number in range(1, 41):
        log.message("out", {"jsonrpc": "2.0", "id": number, "method": "ping"})
        log.message("in", {"jsonrpc": "2.0", "id": number, "result": {}})
    log.close()
    taps = state_dir / "taps"
    assert said == [] and (taps / "rotated.1.jsonl").exists()
    assert (taps / "rotated.jsonl").stat().st_size < 2000 and (taps / "rotated.1.jsonl").stat().st_size >= 2000
    records = mcp_tui.tap_log_records("rotated")
    assert [r["message"]["id"] for r in records if "message" in r][-1] == 40


def test_an_answer_past_the_rotation_size_leaves_the_session_whole_for_watch_save_and_replay(cli, state_dir, tmp_path):
    """Two answers of 11 MiB each (the log rotates at 10 MiB, twice): before, the current file
    began after the rotation point, without the initialize, and watch and save lost the session."""
    server = SERVER + ["--big-text", "11"]
    big = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "big_text", "arguments": {}}}
    answers = talk(state_dir, "rotating", *OPENING + [dict(big, id=2), dict(big, id=3),
                                                       {"jsonrpc": "2.0", "id": 4, "method": "ping"}, ECHO_CALL],
                   server=server)
    assert len(answers[3]["result"]["content"][0]["text"]) == 11 * 1024 * 1024
    taps = state_dir / "taps"
    assert (taps / "rotating.1.jsonl").exists(), "the log did not rotate"
    current = [json.loads(text) for text in (taps / "rotating.jsonl").read_text().splitlines()]
    assert current[0]["copied"] is True and current[0]["message"]["method"] == "initialize"
    shown = cli("tap", "watch", "rotating", "--for", "0.2")
    lines = shown.out.splitlines()
    assert shown.code == 0 and "→ initialize #1" in lines[0] and "← initialize #1" in lines[1], shown
    assert " ← tools/call big_text #3 " in shown.out and "← ping #4" in shown.out and " ← tools/call echo #2 " in lines[
        -2], lines
    assert shown.out.count("initialize #1") == 2  # the copies are not shown twice
    saved = tmp_path / "saved.jsonl"
    assert cli("tap", "save", "rotating", "-o", saved).code == 0
    methods = [json.loads(text).get("message", {}).get("method") for text in saved.read_text().splitlines()]
    assert methods.count("initialize") == 1 and methods.count("tools/call") == 2, methods
    replayed = cli(stdio_command("--big-text", "11"), "--protocol-version", "2025-06-18", "replay", saved)
    assert replayed.code == 0 and "3 requests: 3 same" in replayed.out, replayed


def test_a_message_past_the_size_bound_is_logged_as_cut_json_with_its_size_and_digest(cli, state_dir, monkeypatch):
    """70 MiB of JSON (past the 64 MiB --max-message-size): before, `! not JSON`; and its watch line
    names the tool of its request (before: `← tools/call #7`, the tool name lost)."""
    import hashlib

    import mcp_tui

    monkeypatch.setenv("MCP_TUI_STATE_DIR", str(state_dir))
    log = mcp_tui.TapLog("huge", mcp_tui.SecretRegistry(), "stdio", lambda text: None)
    transcriber = mcp_tui.TapTranscriber(log)
    transcriber.feed("out", line({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "dump"}}))
    head = b'{"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "'
    huge = head + b"x" * (70 * 1024 * 1024 - len(head) - 5) + b'"}]}}'
    for start in range(0, len(huge), 1 << 20):  # in the relay's pieces, then its newline
        transcriber.feed("in", huge[start:start + (1 << 20)])
    transcriber.feed("in", b"\n")
    transcriber.finish(60)
    log.close()
    mcp_tui.write_tap_info("huge", {"name": "huge", "server": "dump", "pid": None, "ended": "2026-12-07T00:00:00Z"})
    shown = cli("tap", "watch", "huge", "--for", "0.1")
    lines = shown.out.splitlines()
    assert shown.code == 0 and len(lines) == 2, shown
    assert "not JSON" not in shown.out and " ← tools/call dump #7 " in lines[1] and "70 MiB" in lines[1], lines
    assert "cut JSON" in lines[1] and hashlib.sha256(huge).hexdigest() in lines[1], lines
    record = [r for r in log_records(state_dir, "huge") if "cut" in r][0]
    assert record["bytes"] == len(huge) and record["cut"].startswith(head.decode())


@pytest.mark.parametrize("argv, name", [
    (["npx", "-y", "@modelcontextprotocol/server-everything@1.2.0"], "server-everything"),
    (["python3", "weather.py", "--units", "metric"], "weather"),
    (["uv", "run", "server.py"], "server"),
    (["C:\\Python\\python.exe", "-m", "mcp_x"], "mcp_x"),
    (["docker", "run", "-i", "--rm", "mcp/github"], "github"),
    ([".."], "tap"),
    (["python3", "-c", "import server; server.main()"], "python3"),
])
def test_a_tap_is_named_after_its_server_unless_told(argv, name):
    import mcp_tui

    assert mcp_tui.tap_name_for(argv) == name and mcp_tui.tap_name_problem(name) is None


def test_a_second_tap_of_a_running_name_gets_a_name_of_its_own(host, state_dir):
    first = host("--name", "twice")
    wait_for(lambda: tap_info(state_dir, "twice"), what="the first tap's NAME.json")
    second = host("--name", "twice")
    wait_for(lambda: tap_info(state_dir, "twice-2"), what="the second tap's NAME.json")
    assert first.close() == 0 and second.close() == 0
    said = b"".join(second.stderr).decode()
    assert said == "mcp-tui tap: twice is running (pid %d); this tap is twice-2\n" % first.process.pid, said


def test_six_taps_started_at_once_under_one_name_get_six_names_and_six_logs(state_dir):
    """The name is taken under a lock: before, taps started together all found it free and shared logs."""
    hosts = [Host(tap_argv("--name", "six", server=ECHO), environment(state_dir)) for _ in range(6)]
    try:
        for number, running in enumerate(hosts):
            assert running.ask({"jsonrpc": "2.0", "id": number, "method": "ping"})["id"] == number
        assert [running.close() for running in hosts] == [0] * 6
    finally:
        for running in hosts:
            running.kill()
    names = ["six"] + ["six-%d" % number for number in range(2, 7)]
    assert sorted(path.name for path in (state_dir / "taps").glob("*.jsonl")) == sorted(n + ".jsonl" for n in names)
    asked = [[message["id"] for direction, message in logged_messages(state_dir, name) if direction == "out"]
             for name in names]
    assert sorted(asked) == [[number] for number in range(6)], asked  # one conversation a log
    assert all(tap_info(state_dir, name)["ended"] for name in names)


@pytest.mark.parametrize("words", [["--name", "nodash"], ["run", "--name", "nodash"]])
def test_tap_run_without_two_dashes_takes_the_server_s_command_line(state_dir, words):
    """The Inspector CLI takes the first -- of a command line for its own: before, exit 2."""
    run = subprocess.run(MCP_TUI_PROCESS + ["tap"] + words + ECHO, input=line(INITIALIZE), capture_output=True,
                         timeout=60, env=environment(state_dir), cwd=str(ROOT))
    assert (run.returncode, run.stdout, run.stderr) == (0, line(INITIALIZE), b"")
    assert logged_messages(state_dir, "nodash") == [("out", INITIALIZE), ("in", INITIALIZE)]


def test_tap_list_elides_a_long_server_without_a_cut_note(cli, state_dir):
    talk(state_dir, "long", INITIALIZE, server=[sys.executable, "-c", "import sys; print(sys.stdin.readline())",
                                                "x" * 80])
    shown = cli("tap", "list")
    assert shown.code == 0 and "cut at" not in shown.out and "…" in shown.out.splitlines()[1], shown


# -- a large message: logged as its text, not parsed, and read back whole -------------------------

def test_a_large_message_is_logged_as_its_text_masked_and_watch_save_replay_and_mock_read_it(cli, state_dir, tmp_path):
    """A message past the parse bound (1 MiB; MCP_TUI_TAP_PARSE_BYTES lowers it here, so a 5 MiB
    answer and a 200 KB echo do) is logged as its text in `messageText`: before, it was parsed
    into objects, masked and written again, at 7-10 times its size in the tap's memory."""
    from conftest import MCP_TUI

    secret = "sk-live-1234567890abcdef"
    running = Host(tap_argv("--name", "large", server=SERVER + ["--big-text", "5"]),
                   environment(state_dir, MCP_TUI_TAP_PARSE_BYTES="65536", WEATHER_API_KEY=secret))
    try:
        running.ask(INITIALIZE)
        running.process.stdin.write(line(OPENING[1]))
        running.ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        big = running.ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "big_text",
                                                                                         "arguments": {}}})
        echoed = running.ask({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"message": "é" * 100000 + " key " + secret}}})
        assert running.close() == 0
    finally:
        running.kill()
    assert len(big["result"]["content"][0]["text"]) == 5 * 1024 * 1024 and secret in json.dumps(echoed)
    text = (state_dir / "taps" / "large.jsonl").read_text()
    assert secret not in text and "env:" in text  # masked in the text, the request's and the answer's
    kept = [json.loads(record) for record in text.splitlines() if '"messageText"' in record]
    assert [record["direction"] for record in kept] == ["in", "out", "in"], kept  # before: none
    shown = cli("tap", "watch", "large", "--for", "0.2")
    assert shown.code == 0 and " ← tools/call big_text #3 " in shown.out and "! " not in shown.out, shown
    assert " → tools/call echo #4 " in shown.out and " ← tools/call echo #4 " in shown.out, shown
    saved = tmp_path / "saved.jsonl"
    assert cli("tap", "save", "large", "-o", saved).code == 0
    messages = [json.loads(record).get("message") for record in saved.read_text().splitlines()]
    assert messages[-3]["result"] == big["result"] and "env:" in messages[-1]["result"]["content"][0]["text"]
    replayed = cli(stdio_command("--big-text", "5"), "--protocol-version", "2025-06-18", "replay", saved)
    assert replayed.code == 0 and "3 requests: 3 same" in replayed.out, replayed  # a masked value: unknown
    mocked = cli(stdio_command("mock", str(saved), "--allow-masked", script=MCP_TUI), "--no-cache", "--format",
                 "json", "tool", "call", "big_text")
    assert mocked.code == 0 and mocked.json()["result"] == big["result"], mocked.err


def test_a_secret_split_between_two_parts_of_a_large_message_s_text_is_masked_whole():
    import mcp_tui

    registry = mcp_tui.SecretRegistry()
    registry.add("sk-live-1234567890abcdef")
    data = ("x" * (3 * 1024 * 1024 - 5) + "sk-live-1234567890abcdef" + "é" * 1000).encode()  # across 3 MiB
    for pieces in ([data], [data[i:i + 65536] for i in range(0, len(data), 65536)]):
        text = "".join(mcp_tui.tap_masked_text(pieces, registry))
        assert "sk-live" not in text and text.count("secret:") == 1 and text.endswith("é" * 1000)


def tap_peak_memory(state_dir, name, megabytes):
    """A host's call of big_text (``megabytes`` MiB) through a tap: the answer's bytes, and the
    tap's VmHWM (bytes, from /proc) after its initialize and after the answer."""
    running = Host(tap_argv("--name", name, server=SERVER + ["--big-text", str(megabytes)]),
                   environment(state_dir))
    try:
        running.ask(INITIALIZE)
        base = proc_status(running.process.pid, "VmHWM") * 1024
        running.process.stdin.write(line({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                          "params": {"name": "big_text", "arguments": {}}}))
        running.process.stdin.flush()
        size = len(running.process.stdout.readline())
        wait_for(lambda: any(answer_logged(state_dir / "taps" / (name + part)) for part in (".jsonl", ".1.jsonl")),
                 what="the answer logged")  # in the rotated part, for an answer past the rotation size
        peak = proc_status(running.process.pid, "VmHWM") * 1024
        assert running.close() == 0
        return size, base, peak
    finally:
        running.kill()


def answer_logged(path):
    """Whether the log's last line, whole, is the answer (after its header, the initialize and the call)."""
    text = path.read_text() if path.exists() else ""
    lines = text.splitlines()
    return text.endswith("\n") and len(lines) == 5 and '"direction": "in"' in lines[-1]


def proc_status(pid, field):
    """A number from /proc/PID/status (VmHWM in kB, Threads)."""
    with open("/proc/%d/status" % pid) as status:
        for text in status:
            if text.startswith(field + ":"):
                return int(text.split()[1])
    raise AssertionError("no %s in /proc/%d/status" % (field, pid))


ON_PROC = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="a process's memory and threads "
                                                                              "as Linux's /proc tells them")


@ON_PROC
def test_a_50_mb_answer_costs_the_tap_less_than_twice_its_size(state_dir):
    """Before: 350 MB VmHWM for a 50 MB answer (parsed into objects for the log, masked, written again)."""
    size, base, peak = tap_peak_memory(state_dir, "fifty", 50)
    assert size > 50 << 20 and peak - base < 2 * size, "the tap's peak: %d MB over %d" % (peak >> 20, base >> 20)


@ON_PROC
def test_a_100_mb_answer_past_the_cut_costs_the_tap_less_than_twice_its_size(state_dir):
    """Before: 1.6 times its size over the tap's start (the 64 MiB kept of the line, joined whole
    for its digest and again at its end, before it was cut): 176 MB VmHWM, 2.3 times the answer
    where mcp_tui.py is compiled at the start, as the host-user probe ran it; now once its size."""
    size, base, peak = tap_peak_memory(state_dir, "hundred", 100)
    assert size > 100 << 20 and peak - base < 1.25 * size, "the tap's peak: %d MB over %d" % (
        peak >> 20, base >> 20)
