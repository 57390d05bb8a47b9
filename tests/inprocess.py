"""Run ``mcp_tui.main(argv)`` inside the test process, as the ``cli`` fixture's default.

A subprocess costs an interpreter start and the import of mcp_tui for every call; most CLI
tests only need what a user sees of one run: the exit code and the stdout/stderr text. This
module gives exactly that, and makes the run look to main() as a child process does:

- stdin, stdout and stderr are byte buffers behind text wrappers with the encoding and error
  handlers PYTHONIOENCODING gives a child (utf-8: stdout strict, stderr backslashreplace), no
  terminal (isatty() is false, fileno() fails as a pipe's terminal size does); the captured
  bytes are decoded as ``subprocess.run(text=True)`` decodes them (universal newlines);
- os.environ, the working directory, sys.argv and every signal handler are the run's own and
  are put back afterwards;
- the exit code is what ``sys.exit(main(argv))`` gives a process: main()'s return value or
  a SystemExit's code (None is 0, a string is printed and is 1), and an exception that
  escapes main() prints its traceback and is 1, as the interpreter does (main() itself
  turns every Exception and KeyboardInterrupt into one line and a code);
- ``timeout`` ends the run with subprocess.TimeoutExpired, as subprocess.run does.

What a process would clean up by exiting must be gone by the end of the test (its servers
stopped): a thread a run started that is still running after a grace period, or a child
process still alive, fails the test loudly (conftest checks ``Leftovers`` at teardown; such a
test needs ``cli(..., process=True)`` or ``@pytest.mark.process``).
Tests that need a real process: signals, exit hangs, the keeper (``session open`` and a
stdio task without --wait start one), import-set and start-up checks.
"""
import io
import os
import signal
import subprocess
import sys
import threading
import time
import traceback

ALWAYS_A_PROCESS = os.environ.get("MCP_TUI_TEST_SUBPROCESS") == "1"  # compare: every run a process
LINGER = 10.0  # seconds a thread or child may take to finish after main() returned


class RunTimedOut(BaseException):
    """Raised into main() at the timeout; a BaseException so main's ``except Exception`` does not
    turn it into an 'internal error' line."""


def child_pids(zombies=True):
    """Children of this process, from /proc (zombies too unless told: they were not reaped),
    sorted; None where there is no /proc."""
    me, found = os.getpid(), []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, ...
        if int(fields[1]) == me and (zombies or fields[0] != "Z"):
            found.append(int(entry))
    return sorted(found)


def stream_settings(environ):
    """(encoding, stdout errors, stderr errors) a child started with ``environ`` gets."""
    given = environ.get("PYTHONIOENCODING", "")
    encoding, _, errors = given.partition(":")
    import locale

    encoding = encoding or locale.getpreferredencoding(False)
    return encoding, errors or "strict", errors or "backslashreplace"


def decode(data, errors="strict"):
    """Bytes a child wrote, as subprocess.run(text=True, encoding="utf-8", errors=...) returns them."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors).read()


def exit_code(code, stderr):
    """The process status ``sys.exit(code)`` ends with (Python's handle_system_exit)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    stderr.write("%s\n" % (code,))
    return 1


class Saved(object):
    """The process-wide state a run may change, to be put back."""

    SIGNALS = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", "SIGALRM", "SIGCHLD",
                                                   "SIGWINCH", "SIGUSR1", "SIGUSR2", "SIGQUIT", "SIGTSTP", "SIGCONT")
               if hasattr(signal, name)]
    STREAMS = ("stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__")

    def __init__(self):
        self.environ = dict(os.environ)
        self.cwd = os.getcwd()
        self.argv = list(sys.argv)
        self.streams = {name: getattr(sys, name) for name in self.STREAMS}
        self.handlers = {number: signal.getsignal(number) for number in self.SIGNALS}
        self.umask = os.umask(0o022)
        os.umask(self.umask)

    def restore(self):
        changed = [number for number in self.SIGNALS if signal.getsignal(number) != self.handlers[number]]
        for number in changed:
            signal.signal(number, self.handlers[number])
        for name, stream in self.streams.items():
            setattr(sys, name, stream)
        sys.argv[:] = self.argv
        os.chdir(self.cwd)
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        os.umask(self.umask)
        forget_cached_environment()


def forget_cached_environment():
    """The standard library's caches of the environment, which a process reads afresh: the
    browsers webbrowser found from $BROWSER on its first use, and tempfile's $TMPDIR."""
    webbrowser = sys.modules.get("webbrowser")
    if webbrowser is not None and hasattr(webbrowser, "_tryorder"):
        with getattr(webbrowser, "_lock", threading.Lock()):
            webbrowser._browsers, webbrowser._tryorder = {}, None
    import tempfile

    tempfile.tempdir = None


current_test = None  # the pytest item running now (conftest sets it): its Leftovers are checked at teardown


def run_main(args, input=None, timeout=60, environ=None, cwd=None, text=True):
    """Run mcp_tui.main(args) in this process; returns (exit code, stdout, stderr), as text
    (or the bytes written, with ``text=False``)."""
    import mcp_tui

    if current_test is not None and not hasattr(current_test, "mcp_tui_leftovers"):
        current_test.mcp_tui_leftovers = Leftovers()

    environ = dict(os.environ if environ is None else environ)
    encoding, out_errors, err_errors = stream_settings(environ)
    out, err = io.BytesIO(), io.BytesIO()
    stdin = io.TextIOWrapper(io.BytesIO((input or "").encode("utf-8")), encoding=encoding, errors=out_errors)
    stdout = io.TextIOWrapper(out, encoding=encoding, errors=out_errors, write_through=True)
    stderr = io.TextIOWrapper(err, encoding=encoding, errors=err_errors, write_through=True)
    saved = Saved()
    alarm = timer(timeout)
    try:
        os.environ.clear()
        os.environ.update(environ)
        forget_cached_environment()
        os.chdir(str(cwd) if cwd else saved.cwd)
        sys.argv[:] = [mcp_tui.__file__] + list(args)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = stdin, stdout, stderr
        alarm.start()
        try:
            code = exit_code(mcp_tui.main(list(args)), stderr)
        except SystemExit as exc:
            code = exit_code(exc.code, stderr)
        except RunTimedOut:
            raise subprocess.TimeoutExpired([sys.executable, mcp_tui.__file__] + list(args), timeout)
        except Exception:  # what the interpreter does with an exception that escapes main()
            traceback.print_exc(file=stderr)
            code = 1
        # Any other BaseException goes on: pytest's own (a test's time limit), or a Ctrl+C
        # that main() did not see.
        finally:
            alarm.stop()
        try:
            stdout.flush()
        except Exception:
            pass
    finally:
        saved.restore()
    if not text:
        return code, out.getvalue(), err.getvalue()
    return code, decode(out.getvalue()), decode(err.getvalue())


class timer(object):
    """Raise RunTimedOut in the main thread after ``seconds``, sharing SIGALRM with
    pytest-timeout (whose own, later, alarm is put back)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.usable = (seconds is not None and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread())

    def start(self):
        if not self.usable:
            return
        self.previous_handler = signal.getsignal(signal.SIGALRM)
        self.previous_left = signal.getitimer(signal.ITIMER_REAL)[0]
        self.started = time.monotonic()
        if self.previous_left and self.previous_left <= self.seconds:
            self.usable = False  # pytest-timeout fires first: let it
            return

        def expire(signum, frame):
            raise RunTimedOut()

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def stop(self):
        if not self.usable:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous_handler)
        if self.previous_left:
            spent = time.monotonic() - self.started
            signal.setitimer(signal.ITIMER_REAL, max(self.previous_left - spent, 0.001))


def idle_watchdog(thread):
    """An HTTP client's Watchdog thread with nothing to watch: it ends by itself after 5 s
    idle, holds no socket, and a process would not wait for it (a daemon)."""
    watchdog = getattr(getattr(thread, "_target", None), "__self__", None)
    return type(watchdog).__name__ == "Watchdog" and not getattr(watchdog, "_due", True)


class Leftovers(object):
    """The threads and children a test's in-process runs may leave: none. Made before the
    first run; ``check()`` after the test's fixtures are torn down."""

    def __init__(self):
        self.threads = set(threading.enumerate())
        self.children = set(child_pids(zombies=False) or ())

    def check(self, what):
        deadline = time.monotonic() + LINGER
        while True:
            threads = [t for t in threading.enumerate()
                       if t not in self.threads and t.is_alive() and not idle_watchdog(t)]
            children = set(child_pids(zombies=False) or ()) - self.children
            if not threads and not children:
                return
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        raise AssertionError(
            "%s left %s running %gs after its in-process mcp-tui runs; a process would have ended them. Fix the "
            "leak, or run the call in a process: cli(..., process=True) or @pytest.mark.process" % (
                what, ", ".join(["thread %s (%s)" % (t.name, getattr(t, "_target", None)) for t in threads]
                                + ["child pid %d" % pid for pid in children]), LINGER))
