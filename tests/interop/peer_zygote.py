"""A pre-forking "zygote" for the Python interop peers over stdio (test infrastructure only).

Why: a stdio interop test starts its peer (sdk_server.py, fastmcp_tasks_server.py, ...) once per
mcp-tui invocation, and nearly all of that CPU is the peer importing its libraries (`import mcp`
builds pydantic models: ~0.6 s; FastMCP ~1.5 s). On a 2-CPU machine that was ~100 s of the suite.
The zygote imports a peer script's imports once, then forks a fresh child per stdio start.

Two roles, one file (stdlib only at the top: the shim must start in milliseconds):

    <peer python> peer_zygote.py serve DIR SCRIPT [VARIABLE...]
        The zygote. Listens on DIR/sock (DIR: a private 0700 directory its starter made), says
        `listening` on stdout, imports SCRIPT's top-level imports (never SCRIPT's own code), and
        then, single-threaded, forks one child per request. The child takes the requester's
        stdin/stdout/stderr, environment, cwd and argv and runs SCRIPT as `__main__`, exactly as
        `python SCRIPT ARGS` would (runpy; the interpreter's exit handling is mirrored). The zygote
        reaps it and reports its wait status. It serves only requests for its own interpreter and
        script made with the environment and cwd it was started with (so whatever the libraries
        read from the environment at import time is what a direct start reads), except for the
        VARIABLEs named, which may differ (PYTEST_CURRENT_TEST: it changes with every test and
        no library reads it); anything else is refused, and the shim then starts the peer directly.
        The child always gets the requester's environment, whole. It ends when its stdin closes (its
        starter ended) or on SIGTERM, killing the children it still has.

    <python> -S -I peer_zygote.py run DIR -- <peer python> SCRIPT ARGS...
        The shim: what mcp-tui actually starts as the stdio command, so the server is still a real
        process on real pipes that mcp-tui spawns, signals and waits for. It hands its argv,
        environment, cwd and its fds 0/1/2 (SCM_RIGHTS) to the zygote, forwards SIGTERM, SIGINT,
        SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 to the child's process group, and exits as the child
        did (its exit code, or killed by the same signal). When the shim dies (even by SIGKILL) the
        zygote sees its connection close and kills the child. If the zygote cannot be reached (or
        its socket is another user's) or refuses, the shim execs the command itself: a direct
        start, same pid. If it ends without a word after taking the request, the shim exits 1: a
        child may already run on those fds. Signals that come before the pid are held, then sent.

What a fork shares that separate starts would not: the hash seed (str hashes, so set order, are the
zygote's in every child); `random` reseeds itself in a forked child (os.register_at_fork).

tests/interop/conftest.py (PeerZygotes) starts one zygote per peer per pytest worker, lazily, and
stops it at the end of the session. Turn it off with MCP_TUI_PEER_ZYGOTE=0: the stdio commands are
then `<peer python> SCRIPT ...` as before (and always on platforms without AF_UNIX fd passing).
"""
import json
import os
import signal
import socket
import struct
import sys

SOCKET_NAME = "sock"
LISTENING = "listening"
FORWARDED_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
REQUEST_TIMEOUT = 2.0  # seconds for a shim to send its whole request once connected (it is made before)
HEADER = struct.Struct("!I")
SIGNAL = struct.Struct("B")  # a signal the shim forwards to its child
PEER_CREDENTIALS = struct.Struct("3i")  # Linux's struct ucred: pid, uid, gid
# Held from before a fork: in the zygote until the shim has the pid (SIGTERM and SIGINT end it); in
# the child until it is set up (a signal forwarded before its setsid reaches it by pid, and waits).
HELD_SIGNALS = {signal.SIGTERM, signal.SIGINT} | {getattr(signal, name) for name in FORWARDED_SIGNALS}


# --------------------------------------------------------------------------- wire


def send_line(sock, message):
    sock.sendall(json.dumps(message).encode() + b"\n")


class LineReader(object):
    """Newline-delimited JSON messages from a socket; None at its end."""

    def __init__(self, sock):
        self.sock, self.pending = sock, b""

    def read(self):
        while b"\n" not in self.pending:
            try:
                data = self.sock.recv(4096)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                return None
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)


def private_socket_path(directory):
    """DIR/sock, if DIR is ours and nobody else's (0700): who can reach the socket can run code."""
    info = os.stat(directory)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise PermissionError("%s is not a private directory" % directory)
    return os.path.join(directory, SOCKET_NAME)


def same_user(sock):
    """Whether the process at the other end of the connected AF_UNIX `sock` runs as this user (where
    the system cannot say, the private directory is what keeps the others out)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return True
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, PEER_CREDENTIALS.size)
    _, uid, _ = PEER_CREDENTIALS.unpack(credentials)
    return uid == os.getuid()


# --------------------------------------------------------------------------- the shim


def shim(directory, command):
    """Start `command` through the zygote at `directory`, or directly; never returns."""
    forwarded = [getattr(signal, name) for name in FORWARDED_SIGNALS]
    # Held from here until the child's pid is known (then they go to the child), or until a direct
    # start: a signal during the handshake (on a fresh zygote it includes the imports) is not lost.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, forwarded)
    # Made before connecting: the zygote gives a connection little time to deliver its request.
    body = json.dumps({"argv": command, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    sock = None
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(private_socket_path(directory))
        if not same_user(sock):
            raise PermissionError("the zygote's socket is another user's")
        socket.send_fds(sock, [HEADER.pack(len(body)) + body], [0, 1, 2])
    except OSError:  # no zygote: nothing reached it, so the peer starts here, as before
        direct_start(sock, command, forwarded, mask)
    reader = LineReader(sock)
    try:
        started = reader.read()
    except ValueError:
        started = None
    if isinstance(started, dict) and "refused" in started:  # it started nothing: the peer starts here
        direct_start(sock, command, forwarded, mask)
    if not isinstance(started, dict) or not isinstance(started.get("pid"), int):
        # It may have forked a child onto our fds before it went: a second peer must not join it.
        os.write(2, b"peer_zygote: the zygote ended before it said whether the peer started\n")
        os._exit(1)
    # The child owns the pipes now: the shim keeps no copy, so mcp-tui sees EOF when the child closes them.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)

    def forward(signum, frame):
        try:
            sock.send(SIGNAL.pack(signum))
        except OSError:
            pass

    for signum in forwarded:
        signal.signal(signum, forward)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # what came during the handshake is forwarded now
    while True:
        message = reader.read()
        if message is None:  # the zygote is gone without a word: do not leave its child behind
            try:
                os.killpg(started["pid"], signal.SIGKILL)
            except OSError:
                pass
            os._exit(1)
        if "status" in message:
            exit_as(message["status"])


def direct_start(sock, command, forwarded, mask):
    """Exec `command` in this process (a direct start, same pid); never returns. A signal held
    during the handshake acts now as it would have on the peer before it set its handlers."""
    if sock is not None:
        sock.close()
    for signum in forwarded:
        if callable(signal.getsignal(signum)):  # Python's SIGINT handler: exec would reset it to default
            signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # exec keeps the mask: the peer gets ours as it was
    try:
        os.execv(command[0], command)
    except OSError as exc:
        os.write(2, ("peer_zygote: cannot run %s: %s\n" % (command[0], exc)).encode())
        os._exit(127)


def exit_as(status):
    """End this process as a process with wait status `status` ended."""
    if os.WIFSIGNALED(status):
        import resource

        signum = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the child's core (if any) was the child's
        if signum not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot be caught: always default
            signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


# --------------------------------------------------------------------------- the zygote


def preload(script):
    """Import what `script` imports at its top level (not the script itself: its own code runs in
    each child, as __main__)."""
    import ast

    with open(script, "rb") as source:
        tree = ast.parse(source.read(), script)
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                __import__(alias.name)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module != "__future__":
            __import__(node.module, fromlist=[alias.name for alias in node.names])


class Zygote(object):
    def __init__(self, directory, script, volatile=()):
        self.script = os.path.abspath(script)
        self.python = os.path.abspath(sys.executable)
        self.volatile = frozenset(volatile)
        self.env, self.cwd = self.lasting(os.environ), os.getcwd()
        self.directory = directory
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(private_socket_path(directory))
        self.listener.listen(64)
        self.children = {}  # pid -> the shim's connection
        self.connections = {}  # the shim's connection -> pid (None once reaped)
        self.problem = None  # why every request is refused, if something is

    def log(self, text):
        sys.stderr.write("peer_zygote[%d]: %s\n" % (os.getpid(), text))
        sys.stderr.flush()

    def prepare(self):
        import gc
        import threading

        sys.path[0] = script_directory(self.script)  # as `python SCRIPT` has it, not ours
        try:
            preload(self.script)
        except BaseException as exc:  # noqa: B902 (an import may raise SystemExit): said, and refused
            self.problem = "importing %s's modules failed: %r" % (os.path.basename(self.script), exc)
        else:
            if threading.active_count() != 1:  # fork copies only this thread: such a peer is started directly
                self.problem = "threads run after the imports (%s): not forking" % ", ".join(
                    thread.name for thread in threading.enumerate())
        if self.problem:
            self.log(self.problem)
        gc.freeze()  # what the imports made is never collected; the children do not scan it again

    def serve(self):
        import selectors

        wake_read, wake_write = socket.socketpair()
        wake_read.setblocking(False)
        wake_write.setblocking(False)
        self.wake = (wake_read, wake_write)
        signal.set_wakeup_fd(wake_write.fileno())
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(wake_read, selectors.EVENT_READ, "reap")
        self.selector.register(sys.stdin, selectors.EVENT_READ, "starter")
        try:
            while True:
                for key, _ in self.selector.select():
                    if key.data == "starter":
                        if not os.read(0, 512):
                            return  # the pytest worker that started us is gone
                        continue
                    try:
                        if key.data == "accept":
                            self.accept()
                        elif key.data == "reap":
                            drain(wake_read)
                        else:
                            self.from_shim(key.fileobj)
                    except Exception as exc:  # noqa: B902 (a fault with one start ends that start only)
                        self.log("%s failed: %r" % (key.data, exc))
                        if key.data == "shim":
                            self.drop(key.fileobj)
                self.reap()
        finally:
            for pid in list(self.children):
                self.kill(pid)
            for pid in list(self.children):  # reaped, so no new process takes a pid a shim may still killpg
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
            try:  # its starter removes it too; this is for a starter that was killed
                os.unlink(os.path.join(self.directory, SOCKET_NAME))
                os.rmdir(self.directory)
            except OSError:
                pass

    def accept(self):
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        if not same_user(conn):  # who can start a child here can run code as us
            self.log("refused a connection from another user")
            conn.close()
            return
        fds = []  # what the shim passed: closed here whatever happens (the child has its own copies)
        try:
            conn.settimeout(REQUEST_TIMEOUT)
            request = self.read_request(conn, fds)
            refusal = self.problem or self.refusal(request, fds)
            if refusal:
                self.log("refused: " + refusal)
                send_line(conn, {"refused": refusal})
                conn.close()
                return
            self.fork(conn, request, fds)
        except Exception as exc:  # noqa: B902 (whatever a request holds, it fails alone)
            self.log("a request failed: %r" % (exc,))
            if conn not in self.connections:  # nothing was started for it: the shim may start the peer
                try:
                    send_line(conn, {"refused": "the request failed: %r" % (exc,)})
                except OSError:
                    pass
                conn.close()
        finally:
            for fd in fds:
                os.close(fd)

    def fork(self, conn, request, fds):
        """Fork the child for `request`, and tell its shim the pid. A SIGTERM or SIGINT waits until
        the shim knows it: a zygote that ended in between would leave the shim not knowing whether a
        child already runs on its fds."""
        import selectors

        mask = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            pid = os.fork()
            if pid == 0:
                self.child(conn, request, fds, mask)  # never returns
            self.children[pid] = conn
            self.connections[conn] = pid
            conn.setblocking(False)
            self.selector.register(conn, selectors.EVENT_READ, "shim")
            send_line(conn, {"pid": pid})
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def read_request(self, conn, fds):
        """The request's JSON object; the fds that came with it are added to `fds`."""
        data, received, _, _ = socket.recv_fds(conn, 1 << 16, 3)
        fds.extend(received)
        data = receive_at_least(conn, data, HEADER.size)
        (length,) = HEADER.unpack_from(data)
        request = json.loads(receive_at_least(conn, data[HEADER.size:], length))
        if not isinstance(request, dict):
            raise ValueError("the request is not a JSON object")
        return request

    def refusal(self, request, fds):
        """Why this zygote cannot start `request` as a direct start would, or None."""
        argv = request.get("argv") or []
        if len(fds) != 3:
            return "%d file descriptors, not 3" % len(fds)
        if len(argv) < 2 or os.path.abspath(argv[0]) != self.python:
            return "another interpreter: %r" % (argv[:1],)
        if os.path.abspath(argv[1]) != self.script:
            return "another script: %r" % (argv[1],)
        if request.get("cwd") != self.cwd:
            return "another working directory: %r" % (request.get("cwd"),)
        env = self.lasting(request.get("env") or {})
        if env != self.env:
            changed = set(env) ^ set(self.env)
            changed |= {key for key in self.env if env.get(key, self.env[key]) != self.env[key]}
            return "another environment (%s)" % ", ".join(sorted(changed))
        return None

    def lasting(self, env):
        """`env` without the variables that may differ between the zygote's and a start's."""
        return {key: value for key, value in env.items() if key not in self.volatile}

    def from_shim(self, conn):
        """Signals forwarded by a shim (a byte each), or the end of its connection."""
        pid = self.connections.get(conn)
        try:
            data = conn.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the shim is gone (killed, or it had the status): its child goes too
            self.drop(conn)
            return
        if pid is None:  # its child has been reaped: nothing left to signal
            return
        for signum in data:
            try:
                os.killpg(pid, signum)  # as mcp-tui's killpg reaches the server's whole group
            except ProcessLookupError:  # not its own group yet (before its setsid): it holds the signal
                try:
                    os.kill(pid, signum)
                except OSError:
                    pass
            except OSError:
                pass

    def drop(self, conn):
        """Forget a shim's connection, and kill the child it had."""
        pid = self.connections.pop(conn, None)
        try:
            self.selector.unregister(conn)
        except (KeyError, ValueError):
            pass
        conn.close()
        if pid is not None:
            self.kill(pid)

    def kill(self, pid):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if not pid:
                return
            conn = self.children.pop(pid, None)
            if conn is not None and conn in self.connections:
                self.connections[conn] = None
                try:
                    conn.setblocking(True)
                    send_line(conn, {"status": status})
                    conn.setblocking(False)
                except OSError:
                    pass

    def child(self, conn, request, fds, mask):
        """In the forked child: become the peer as `python SCRIPT ARGS` would be; never returns."""
        code = 1
        try:
            os.setsid()  # its own group, as mcp-tui's start_new_session gave the direct start
            signal.set_wakeup_fd(-1)
            for signum in (signal.SIGCHLD, signal.SIGTERM):
                signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # the signals fork() blocked reach the peer
            self.selector.close()
            for sock in [self.listener, conn] + list(self.wake) + list(self.connections):
                sock.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            for fd in fds:
                os.close(fd)
            del fds[:]
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            reopen_stdio()
            code = run_as_main(request["argv"])
        except BaseException:  # noqa: B902 (a fault of the zygote's own: said on the peer's stderr)
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(code)


def receive_at_least(conn, data, size):
    """`data` and what more `conn` sends, until there are `size` bytes."""
    while len(data) < size:
        more = conn.recv(1 << 16)
        if not more:
            raise ValueError("the request ended early")
        data += more
    return data


def script_directory(script):
    """The directory `python SCRIPT` puts first on sys.path (the interpreter resolves symlinks)."""
    return os.path.dirname(os.path.realpath(script))


def drain(sock):
    try:
        while sock.recv(512):
            pass
    except BlockingIOError:
        pass


def reopen_stdio():
    """sys.stdin/stdout/stderr on the new fds 0/1/2, made as the interpreter makes them at start-up
    (line buffering depends on whether they are terminals)."""
    import io

    for fd, name, mode in ((0, "stdin", "rb"), (1, "stdout", "wb"), (2, "stderr", "wb")):
        old = getattr(sys, name)
        unbuffered = mode == "wb" and old.write_through  # -u or PYTHONUNBUFFERED, as at start-up
        raw = io.open(fd, mode, buffering=0 if unbuffered else -1, closefd=False)
        stream = io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, newline="\n",
                                  line_buffering=name == "stderr" or (mode == "wb" and os.isatty(fd)),
                                  write_through=bool(unbuffered))
        stream.mode = mode[0]
        setattr(sys, name, stream)
        setattr(sys, "__%s__" % name, stream)


def run_as_main(argv):
    """Run argv[1] with arguments argv[2:] as the interpreter runs a script: the exit code it gives."""
    import atexit
    import runpy
    import threading

    sys.argv = list(argv[1:])
    sys.orig_argv = list(argv)
    sys.path[0] = script_directory(argv[1])
    interrupted = False
    try:
        runpy.run_path(argv[1], run_name="__main__")
        code = 0
    except SystemExit as exc:
        code = exit_code_of(exc)
    except KeyboardInterrupt as exc:
        print_uncaught(exc, argv[1])
        code, interrupted = 1, True
    except BaseException as exc:  # noqa: B902 (the interpreter prints any uncaught exception and exits 1)
        print_uncaught(exc, argv[1])
        code = 1
    # what the interpreter does on the way out: wait for non-daemon threads, atexit, flush
    try:
        threading._shutdown()
    except SystemExit as exc:
        code = exit_code_of(exc)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    if interrupted:  # an uncaught KeyboardInterrupt ends the interpreter by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return code


def print_uncaught(exc, script):
    """The traceback the interpreter prints, from the script's frame on (not runpy's or ours)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script:
        tb = tb.tb_next
    if tb is not None:
        exc.__traceback__ = tb  # the hook prints the exception's own traceback
    sys.excepthook(type(exc), exc, exc.__traceback__)


def exit_code_of(exc):
    """The exit code the interpreter gives an uncaught SystemExit (printing a non-int code)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    try:
        sys.stderr.write("%s\n" % (exc.code,))
    except (OSError, ValueError):
        pass
    return 1


def main(argv):
    if argv[:1] == ["run"] and len(argv) >= 4 and argv[2] == "--":
        shim(argv[1], argv[3:])
    if argv[:1] == ["serve"] and len(argv) >= 3:
        zygote = Zygote(argv[1], argv[2], argv[3:])
        sys.stdout.write(LISTENING + "\n")
        sys.stdout.flush()
        zygote.prepare()
        zygote.serve()
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
