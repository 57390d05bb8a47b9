"""peer_zygote.py (the stdio peers' zygote, see its docstring) starts a script as a direct start
would: same stdout, stderr and exit status, signals reach it, and it never outlives its shim.

These run a small script under this interpreter, so they need no peer venv."""
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading

import pytest
from conftest import process_alive, wait_for  # tests/conftest.py

from .conftest import PeerZygotes, zygotes_possible

HELPER = r'''
"""Imported by the peer (so by the zygote's preload): it says so in imports.log, and while a file
"hold" exists next to it, it holds the import (a zygote busy with its imports)."""
import os
import time

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "imports.log"), "a") as log:
    log.write("imported in %d\n" % os.getpid())
deadline = time.monotonic() + 60
while os.path.exists(os.path.join(here, "hold")) and time.monotonic() < deadline:
    time.sleep(0.01)
'''

SCRIPT = r'''
import json
import os
import random
import signal
import sys

import zygote_helper  # noqa: F401 (in the script's directory: the zygote must find it there too)

if sys.argv[1] in ("random", "report", "raise"):
    print("pid", os.getpid(), flush=True)  # which process ran the script: the shim's own exec, or a child

if sys.argv[1] == "random":
    print(random.getrandbits(64))
if sys.argv[1] == "report":
    line = sys.stdin.readline()
    print(json.dumps({"argv": sys.argv, "cwd": os.getcwd(), "probe": os.environ.get("ZYGOTE_PROBE"),
                      "stdin": line, "name": __name__, "own_group": os.getpgid(0) == os.getpid()}))
    print("a line on stderr", file=sys.stderr)
    sys.exit(3)
if sys.argv[1] == "raise":
    raise RuntimeError("deliberate")
if sys.argv[1] == "wait":
    signal.signal(signal.SIGHUP, lambda signum, frame: sys.exit(7))
    print(os.getpid(), flush=True)
    sys.stdin.read()
'''

pytestmark = pytest.mark.skipif(not zygotes_possible(), reason="no zygote here (not POSIX, or turned off)")


@pytest.fixture
def zygotes(tmp_path):
    (tmp_path / "peer.py").write_text(SCRIPT)
    (tmp_path / "zygote_helper.py").write_text(HELPER)
    zygotes = PeerZygotes(dict(os.environ, ZYGOTE_PROBE="kept"), tmp_path, tmp_path)
    yield zygotes
    zygotes.stop()


def start(argv, zygotes, env=None):
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env or zygotes.env, cwd=zygotes.cwd, start_new_session=True)


def run(argv, zygotes, stdin=b""):
    """Start argv: its exit code, its stdout after the script's "pid" line, its stderr; whether the
    script ran in the process started (a direct start) or in another (the zygote's child)."""
    process = start(argv, zygotes)
    out, err = process.communicate(stdin, timeout=30)
    first, _, rest = out.decode().partition("\n")
    assert first.startswith("pid "), out
    return (process.returncode, rest, err.decode()), int(first.split()[1]) == process.pid


def both(zygotes, *args, stdin=b""):
    """(direct start, start through the zygote): each one's exit code, stdout and stderr."""
    script = os.path.join(zygotes.cwd, "peer.py")
    direct = [sys.executable, script] + list(args)
    through = zygotes.argv(sys.executable, script, *args)
    assert through != direct and "peer_zygote.py" in through[3]
    direct_outcome, in_itself = run(direct, zygotes, stdin)
    through_outcome, through_itself = run(through, zygotes, stdin)
    assert in_itself and not through_itself, "the start through the zygote was a direct one"
    return direct_outcome, through_outcome


def test_a_start_through_the_zygote_is_a_direct_start(zygotes):
    direct, through = both(zygotes, "report", "--flag", stdin=b"hello\n")
    assert through == direct
    code, out, err = through
    assert code == 3 and err == "a line on stderr\n"
    seen = json.loads(out)
    assert seen["argv"][1:] == ["report", "--flag"] and seen["stdin"] == "hello\n" and seen["probe"] == "kept"
    assert seen["name"] == "__main__" and seen["own_group"] and seen["cwd"] == zygotes.cwd


def test_an_uncaught_exception_prints_the_scripts_own_traceback(zygotes):
    direct, through = both(zygotes, "raise")
    assert through == direct
    assert through[0] == 1 and through[2].endswith("RuntimeError: deliberate\n") and "runpy" not in through[2]


def test_each_start_draws_other_random_numbers(zygotes):
    argv = zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "random")
    draws = []
    for _ in range(2):
        (code, out, _), in_itself = run(argv, zygotes)
        assert code == 0 and not in_itself, "the start through the zygote was a direct one"
        draws.append(out)
    assert draws[0].strip() and draws[0] != draws[1]


def test_the_imports_are_made_once_by_the_zygote(zygotes, tmp_path):
    argv = zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "random")
    for _ in range(2):
        (code, _, _), in_itself = run(argv, zygotes)
        assert code == 0 and not in_itself
    assert (tmp_path / "imports.log").read_text().count("\n") == 1  # the zygote's preload; no child's


def read_line(stream, timeout=30):
    """A line from a pipe, failing (not hanging) when none comes."""
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, "no line within %d s" % timeout
    return stream.readline()


def waiting_child(zygotes):
    """A start through the zygote that waits on its stdin, and the pid of the peer it runs."""
    shim = start(zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait"), zygotes)
    child = int(read_line(shim.stdout))
    assert child != shim.pid  # a forked child, not the shim's own exec
    return shim, child


@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGHUP, 7)])
def test_a_signal_to_the_shims_group_reaches_the_peer_and_the_shim_ends_as_it_did(zygotes, signum, code):
    shim, child = waiting_child(zygotes)
    os.killpg(shim.pid, signum)  # what mcp-tui sends a server it stops (the peer exits 7 on SIGHUP)
    assert shim.wait(timeout=30) == code
    wait_for(lambda: not process_alive(child), what="the peer ended")


def test_a_peer_killed_by_a_signal_ends_its_shim_by_that_signal(zygotes):
    shim, child = waiting_child(zygotes)
    os.kill(child, signal.SIGTERM)
    assert shim.wait(timeout=30) == -signal.SIGTERM


def test_a_peer_killed_by_sigkill_ends_its_shim_by_sigkill(zygotes):
    """SIGKILL cannot be given a handler; the shim still ends by it (not "exited with code 1")."""
    shim, child = waiting_child(zygotes)
    os.kill(child, signal.SIGKILL)
    assert shim.wait(timeout=30) == -signal.SIGKILL


def test_the_fds_of_a_request_that_fails_are_closed(zygotes):
    """A request cut short: the zygote keeps no copy of the pipes it came with (or their reader
    never sees their end)."""
    argv = zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait")
    read_end, write_end = os.pipe()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(os.path.join(argv[5], "sock"))
            socket.send_fds(sock, [(100).to_bytes(4, "big") + b'{"argv": '], [write_end] * 3)
        os.close(write_end)
        write_end = None
        ready, _, _ = select.select([read_end], [], [], 30)
        assert ready and os.read(read_end, 1) == b"", "the pipe's writer is still open"
    finally:
        os.close(read_end)
        if write_end is not None:
            os.close(write_end)


def fake_zygote(reply):
    """A directory with a socket where a "zygote" takes the request and its fds, sends `reply` (a line,
    or nothing) and closes: the shim's view of a zygote that refuses, or that died after its fork."""
    directory = tempfile.mkdtemp(prefix="fake-zygote-")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(directory, "sock"))
    listener.listen(1)

    def serve():
        conn, _ = listener.accept()
        with conn:
            _, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            for fd in fds:
                os.close(fd)
            conn.sendall(reply)
        listener.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return directory, thread


@pytest.mark.parametrize("reply,code,err", [
    (b"", 1, "peer_zygote: the zygote ended before it said whether the peer started\n"),
    (b'{"refused": "another environment (X)"}\n', 3, "a line on stderr\n"),
])
def test_only_a_refusal_lets_the_shim_start_the_peer_itself(zygotes, reply, code, err):
    """A zygote that ends before it sends the pid may have forked a child onto the shim's fds
    already: a second peer on the same pipes would garble both."""
    directory, thread = fake_zygote(reply)
    script = os.path.join(zygotes.cwd, "peer.py")
    shim = start([sys.executable, "-S", "-I", zygotes.argv(sys.executable, script)[3], "run", directory, "--",
                  sys.executable, script, "report"], zygotes)
    out, stderr = shim.communicate(b"hello\n", timeout=30)
    thread.join(timeout=30)
    assert (shim.returncode, stderr.decode()) == (code, err)
    assert bool(out) == (code == 3)


def test_a_request_that_is_not_an_object_is_refused_and_the_zygote_serves_on(zygotes):
    argv = zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(os.path.join(argv[5], "sock"))
        socket.send_fds(sock, [(3).to_bytes(4, "big") + b"[1]"], [0, 1, 2])
        assert "refused" in json.loads(sock.makefile("rb").readline())
    shim, child = waiting_child(zygotes)  # asserts the child is no direct start
    shim.stdin.close()
    assert shim.wait(timeout=30) == 0


def blocked_signals(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("SigBlk:"):
                return int(line.split()[1], 16)
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc to see a process's signal mask")
def test_a_signal_during_the_handshake_reaches_the_peer(zygotes, tmp_path):
    """A fresh zygote is busy with its imports while a shim waits for the pid: a SIGTERM then is
    held and forwarded, not the shim's death (and later the peer's SIGKILL)."""
    (tmp_path / "hold").write_text("")
    shim = start(zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait"), zygotes)
    try:
        wait_for(lambda: blocked_signals(shim.pid) & (1 << (signal.SIGTERM - 1)), what="the shim holds SIGTERM")
        shim.send_signal(signal.SIGTERM)
    finally:
        (tmp_path / "hold").unlink()
    assert shim.wait(timeout=30) == -signal.SIGTERM
    assert (tmp_path / "imports.log").read_text().count("imported") == 1  # the zygote's: no direct start


def test_a_killed_shim_takes_its_peer_with_it(zygotes):
    shim, child = waiting_child(zygotes)
    shim.kill()
    assert shim.wait(timeout=30) == -signal.SIGKILL
    wait_for(lambda: not process_alive(child), what="the peer ended")


def test_a_closed_stdin_ends_the_peer_and_the_shim_with_its_code(zygotes):
    shim, child = waiting_child(zygotes)
    shim.stdin.close()
    assert shim.wait(timeout=30) == 0
    assert read_line(shim.stdout) == b""  # its stdout ends with the peer: the shim kept no copy
    wait_for(lambda: not process_alive(child), what="the peer ended")


def test_a_start_in_another_environment_is_a_direct_one(zygotes):
    shim = start(zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait"), zygotes,
                 env=dict(zygotes.env, ZYGOTE_PROBE="changed"))
    assert int(read_line(shim.stdout)) == shim.pid  # the shim exec'd the peer itself
    shim.stdin.close()
    assert shim.wait(timeout=30) == 0
    with pytest.warns(UserWarning, match=r"refused 1 start.*another environment \(ZYGOTE_PROBE\)"):
        zygotes.stop()  # says why, so a test that always misses the zygote is noticed


def test_a_socket_in_a_directory_others_can_enter_is_not_used(zygotes):
    argv = zygotes.argv(sys.executable, os.path.join(zygotes.cwd, "peer.py"), "wait")
    os.chmod(argv[5], 0o755)
    shim = start(argv, zygotes)
    assert int(read_line(shim.stdout)) == shim.pid  # the shim exec'd the peer itself
    shim.stdin.close()
    assert shim.wait(timeout=30) == 0


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED") or os.getuid() != 0, reason="needs SO_PEERCRED and root")
def test_a_connection_from_another_user_is_told_apart():
    import shutil

    from . import peer_zygote

    directory = tempfile.mkdtemp(prefix="zygote-peercred-")  # in /tmp: pytest's tmp_path is closed to others
    os.chmod(directory, 0o777)
    path = os.path.join(directory, "open.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        os.chmod(path, 0o777)
        listener.listen(1)
        other = os.fork()
        if other == 0:  # a process of another user that connects (no exec: nobody may not reach our python)
            try:
                os.setuid(65534)
                client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                client.connect(path)
                client.recv(1)
            finally:
                os._exit(0)
        try:
            listener.settimeout(30)
            conn, _ = listener.accept()
            with conn:
                assert not peer_zygote.same_user(conn)
        finally:
            os.waitpid(other, 0)
            shutil.rmtree(directory)
    left, right = socket.socketpair()
    with left, right:
        assert peer_zygote.same_user(left)


def test_turned_off_the_command_is_the_direct_one(tmp_path, monkeypatch):
    monkeypatch.setenv("MCP_TUI_PEER_ZYGOTE", "0")
    zygotes = PeerZygotes(dict(os.environ), tmp_path, tmp_path)
    assert zygotes.argv(sys.executable, "peer.py", "stdio") == [sys.executable, "peer.py", "stdio"]
