"""Shared fixtures: run mcp-tui as a user would (in this process by default, see
tests/inprocess.py, or as a subprocess), and start the real test server on loopback over
stdio or HTTP.

``cli(...)`` runs ``mcp_tui.main`` in-process with its own streams, environment, working
directory and state directory (``session open`` always runs as a process). A test that
needs a real process (signals, exit hangs, start-up, imports) says so: ``cli(...,
process=True)`` for one call, ``@pytest.mark.process`` for a test (``pytestmark =
pytest.mark.process`` for a file). MCP_TUI_TEST_SUBPROCESS=1 runs every call as a
subprocess, to compare the two modes."""
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MCP_TUI = ROOT / "mcp_tui.py"
TESTSERVER = ROOT / "tests" / "testserver.py"
FAULTYSERVER = ROOT / "tests" / "faultyserver.py"
sys.path.insert(0, str(ROOT / "tests"))
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # mcp_tui, for the in-process runs

import cached_script  # noqa: E402
import inprocess  # noqa: E402
from inprocess import ALWAYS_A_PROCESS, run_main  # noqa: E402
from servers import LoopbackServer  # noqa: E402

# `python mcp_tui.py ARGS` for the processes the tests start, from the bytecode cache: a
# script is compiled at every start, most of what a start costs (tests/cached_script.py)
MCP_TUI_PROCESS = cached_script.command(MCP_TUI)

# tests/windows/ is the Windows leg (mcp-tui under Wine): `python3 tests/run_tests.py --windows`
# runs it on its own, after the main suite; a plain `pytest` or `pytest tests` leaves it out.
collect_ignore = ["windows"]


# The servers under test are on loopback: a proxy of the machine's (which mcp-tui honours, as
# curl does) must not stand in between. tests/test_proxy.py sets these where it means to.
for _name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
              "NO_PROXY"):
    os.environ.pop(_name, None)

# No test opens a real browser, whatever the machine has: without a display mcp-tui starts none
# (a desktop's DISPLAY would send the suite's authorization URLs to its browser). A test that
# means to try the graphical path sets DISPLAY itself.
for _name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
    os.environ.pop(_name, None)

# Many tests send SIGINT, SIGTERM or SIGHUP to an mcp-tui they started and read what it did. A
# signal ignored here would be ignored there too (an ignored signal stays ignored across exec):
# `nohup`, or `cmd &` in a script without job control, ignores SIGHUP or SIGINT. Processes
# started from the suite get the defaults, as from a terminal.
for _signal, _default in (("SIGINT", signal.default_int_handler), ("SIGHUP", signal.SIG_DFL),
                          ("SIGTERM", signal.SIG_DFL)):
    if hasattr(signal, _signal) and signal.getsignal(getattr(signal, _signal)) == signal.SIG_IGN:
        signal.signal(getattr(signal, _signal), _default)


def process_alive(pid):
    """Whether process ``pid`` still runs: a zombie (ended, not yet reaped by its parent) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's: it exists
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:  # no /proc (macOS): os.kill said it exists
        return True


def shows_status(text, status):
    """Whether ``text`` holds the number ``status`` (an HTTP status) on its own, not as digits of a
    longer number: a port such as 127.0.0.1:40575 holds "405"."""
    import re

    return re.search(r"(?<!\d)%d(?!\d)" % status, text) is not None


def plant_bytecode(script, marker, owner=65534):
    """What another local user (uid ``owner``) plants beside ``script`` in a shared folder: a
    __pycache__ of theirs holding bytecode, with a header stamped with the script's mtime and
    size, so a loader runs it in place of the script; it creates ``marker``. Needs root (chown)."""
    import importlib.util
    import marshal

    pyc = importlib.util.cache_from_source(str(script))
    os.makedirs(os.path.dirname(pyc), exist_ok=True)
    source = os.stat(str(script))
    planted = compile("open(%r, 'w').close()\n" % str(marker), str(script), "exec")
    header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + (
        int(source.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (source.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    with open(pyc, "wb") as handle:
        handle.write(header + marshal.dumps(planted))
    for path in (pyc, os.path.dirname(pyc)):
        os.chown(path, owner, owner)
    return pyc


def wait_for(predicate, timeout=30.0, what="condition", interval=0.05):
    """Poll ``predicate`` until it returns something truthy (returned), or fail after ``timeout``."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("%s not met within %ss" % (what, timeout))


def signalled(argv, env, ready, name):
    """Run ``argv`` (stdout and stderr as text), send it the signal ``name`` once ``ready()``
    is true, and return (exit code, stdout, stderr); the process is killed if it outlives that."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        wait_for(ready)
        proc.send_signal(getattr(signal, name))
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


# Browsers that need the terminal, and the openers that fall back to them without a display:
# on a server box Python's webbrowser ends at www-browser (lynx), which took mcp-tui's terminal
# and wrote its screen codes into mcp-tui's stdout (issue 44). Stand-ins for them are first on
# PATH for the whole suite (console_browsers below), so the suite means the same on a machine
# where www-browser is lynx as on one without.
CONSOLE_BROWSER_NAMES = ("www-browser", "lynx", "w3m", "links", "elinks", "x-www-browser", "sensible-browser",
                         "xdg-open")
CONSOLE_BROWSER_SCRIPT = """#!/bin/sh
echo "$0 $*" >> '%s'
printf '\\033[?1049h\\033[2J\\033[HA console browser drew here\\n'
exit 0
"""


@pytest.fixture(scope="session")
def console_browsers(tmp_path_factory):
    """A folder first on PATH holding fake console browsers; each that runs appends its
    command line to the marker file (returned) and prints a screen's escape codes."""
    if os.name != "posix":
        yield None
        return
    folder = tmp_path_factory.mktemp("console-browsers")
    marker = folder / "ran.txt"
    for name in CONSOLE_BROWSER_NAMES:
        script = folder / name
        script.write_text(CONSOLE_BROWSER_SCRIPT % marker)
        script.chmod(0o755)
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = str(folder) + os.pathsep + saved
    try:
        yield marker
    finally:
        os.environ["PATH"] = saved


@pytest.fixture(autouse=True)
def no_console_browser(console_browsers):
    """Every test: no console browser ran (mcp-tui starts none, even where it has no other)."""
    yield console_browsers
    if console_browsers is not None and console_browsers.exists():
        ran = console_browsers.read_text()
        console_browsers.unlink()
        pytest.fail("a console browser ran, which would take the terminal: %s" % ran.strip())


class CliResult(object):
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)

    def __repr__(self):
        return "<exit %s\n--- stdout\n%s\n--- stderr\n%s>" % (self.code, self.out, self.err)


@pytest.fixture
def state_dir():
    """A private task-ledger directory for one test. Sessions a test left open (a stdio
    task started without --wait keeps its server in a background keeper) are closed.
    Its path is short, in the system's temporary directory rather than under tmp_path: a
    keeper's Unix socket lives in it, and a socket's path may not pass ~104 bytes, which
    pytest's tmp_path does once its run number reaches 1000 (the keeper then falls back to
    a loopback port, and the tests that check the socket fail)."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="mcp-tui-state-"))
    yield path
    if (path / "sessions.json").exists():
        subprocess.run(MCP_TUI_PROCESS + ["session", "close", "--all"], capture_output=True, timeout=60,
                       env=dict(os.environ, MCP_TUI_STATE_DIR=str(path)))
    shutil.rmtree(str(path), ignore_errors=True)


def pytest_addoption(parser, pluginmanager):
    """pyproject's ``timeout = 120`` is pytest-timeout's (tests/requirements.txt). A pytest
    without that plugin still reads it: the limit below keeps a hang from lasting forever."""
    if not pluginmanager.hasplugin("timeout"):
        parser.addini("timeout", "seconds a test may take (pytest-timeout's option; kept by conftest without it)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):
    """The per-test limit without pytest-timeout: SIGALRM over setup, call and teardown, as
    the plugin's signal method does. Where there is no SIGALRM there is no limit."""
    limit = 0.0
    if not item.config.pluginmanager.hasplugin("timeout") and hasattr(signal, "setitimer"):
        limit = float(item.config.getini("timeout") or 0)

    def expire(signum, frame):
        pytest.fail("Timeout (>%gs) from conftest: pytest-timeout is not installed" % limit, pytrace=True)

    if limit > 0:
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        if limit > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def pytest_configure(config):
    config.addinivalue_line("markers", "process: the cli fixture runs mcp-tui as a subprocess in this test "
                                       "(signals, exit hangs, the keeper, start-up), not in-process")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    inprocess.current_test = item  # run_main notes what threads and children there were before its first run


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    """After the fixtures (servers stopped, sessions closed): nothing an in-process run started
    may still be running."""
    inprocess.current_test = None
    leftovers = getattr(item, "mcp_tui_leftovers", None)
    if leftovers is not None:
        leftovers.check(item.nodeid)


def opens_a_session(args):
    """`session open` starts the background keeper the way a user's shell does: from a real
    command process (the keeper itself is always one)."""
    return any(a in ("session", "sessions") and b == "open" for a, b in zip(args, args[1:]))


@pytest.fixture
def cli(state_dir, request):
    """Run mcp-tui with arguments; returns a CliResult (exit code, stdout, stderr: the bytes
    written with ``text=False``). In this process unless ``process=True``, the test is marked
    ``process`` or MCP_TUI_TEST_SUBPROCESS=1."""
    marked = request.node.get_closest_marker("process") is not None

    def run(*args, input=None, timeout=60, env=None, cwd=None, process=False, text=True):
        environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
        environ.pop("MCP_TUI_BEARER", None)
        environ.update(env or {})
        args = [str(a) for a in args]
        if not (process or marked or ALWAYS_A_PROCESS or opens_a_session(args)):
            code, out, err = run_main(args, input=input, timeout=timeout, environ=environ, cwd=cwd or ROOT,
                                      text=text)
            return CliResult(subprocess.CompletedProcess(args, code, out, err))
        if not text and input is not None:
            input = input.encode("utf-8")
        proc = subprocess.run(MCP_TUI_PROCESS + args, input=input, capture_output=True, text=text,
                              encoding="utf-8" if text else None, timeout=timeout, env=environ, cwd=str(cwd or ROOT))
        return CliResult(proc)

    return run


# -- other worlds: another local user, and a host's filtered environment --------------------------

OTHER_UID = 65534  # `nobody` (uid and gid): another local user, for owner checks and runs as that user

# What the official MCP Python SDK's stdio_client passes a server by default (its
# get_default_environment(), DEFAULT_INHERITED_ENV_VARS in mcp/client/stdio.py): the only
# variables a host built on it gives what it starts, mcp-tui included (`tap` behind a host).
HOST_INHERITED_ENV_VARS = (
    ("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE",
     "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE") if sys.platform == "win32"
    else ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"))


class OtherUser(object):
    """Runs commands as uid/gid OTHER_UID with no supplementary groups (the ``other_user`` fixture);
    ``python`` is a Python 3 that user can start (the test venv's may live under /root)."""

    uid = gid = OTHER_UID

    def __init__(self):
        import shutil

        candidates = [sys.executable] + [shutil.which(name, path="/usr/local/bin:/usr/bin:/bin") or name
                                         for name in ("python3",)]
        self.python = next((python for python in candidates if self.can_start(python)), None)

    def can_start(self, python):
        try:
            return self.run([python, "-c", "pass"], env={}, cwd="/", timeout=30).code == 0
        except OSError:  # not executable for that user (a venv whose Python is under /root)
            return False

    def mcp_tui(self, *args, env=None, timeout=60):
        """mcp-tui ARGS as the other user, with ``env`` as its whole environment."""
        return self.run([self.python] + cached_script.command(MCP_TUI)[1:] + list(args), env=env or {},
                        timeout=timeout)

    def run(self, argv, env=None, cwd=None, timeout=60):
        """``argv`` as the other user: a CliResult (text, UTF-8). Its files must be readable by
        others: the project and the test venv are; pytest's tmp_path (0700) is not."""
        proc = subprocess.run([str(a) for a in argv], user=self.uid, group=self.gid, extra_groups=[], env=env,
                              cwd=str(cwd or ROOT), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              encoding="utf-8", errors="replace", timeout=timeout)
        return CliResult(proc)


@pytest.fixture
def other_user():
    """Another local user to run a command as (uid/gid 65534, `nobody`, whose home
    /nonexistent is not there): where the tests run as root on POSIX; skipped elsewhere."""
    if os.name == "nt" or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("running as another local user needs root on POSIX")
    user = OtherUser()
    if user.python is None:
        pytest.skip("no Python that uid %d can start" % OTHER_UID)
    return user


@pytest.fixture
def host_environment(tmp_path):
    """The environment a host on the official SDK gives a stdio server it starts: only
    HOST_INHERITED_ENV_VARS, values that start with "()" (shell functions) left out, as
    get_default_environment() does. HOME is a fresh folder of the test's (a host's user's
    home, not the real one: what mcp-tui keeps there stays in the test)."""
    environ = {name: os.environ[name] for name in HOST_INHERITED_ENV_VARS
               if name in os.environ and not os.environ[name].startswith("()")}
    home = tmp_path / "host-home"
    home.mkdir()
    for name in ("HOME", "LOCALAPPDATA"):
        if name in HOST_INHERITED_ENV_VARS:
            environ[name] = str(home)
    return environ


def stdio_command(*flags, script=TESTSERVER):
    """The one-string stdio connection for the test server, or another test ``script`` (run
    from its bytecode cache: one starts at nearly every stdio call, tests/cached_script.py)."""
    return " ".join(shlex.quote(str(p)) for p in cached_script.command(script) + list(flags))


def faulty_command(*flags):
    """The stdio connection for tests/faultyserver.py (check's planted faults) with ``flags``."""
    return stdio_command(*flags, script=FAULTYSERVER)


class RunningServer(LoopbackServer):
    """A server script (the test server unless told) on loopback HTTP, with its record."""

    def __init__(self, flags, record, script=TESTSERVER):
        self.record = record
        LoopbackServer.__init__(self, cached_script.command(script) + list(flags))

    def records(self):
        from schemas import check_recorded

        return check_recorded(self.record)

    def http_requests(self, verb=None):
        """With --record-http: the GET and DELETE requests of /mcp ({method, path, headers})."""
        from schemas import http_requests

        return http_requests(self.record, verb)

    def auth_records(self, endpoint=None):
        """With --auth: what the authorization server and /mcp's token check saw (schemas.auth_records)."""
        from schemas import auth_records

        return auth_records(self.record, endpoint)


@pytest.fixture
def start_server(tmp_path):
    """start_server(*flags) -> RunningServer with .url and .records() (schema-checked)."""
    started = []

    def start(*flags):
        record = tmp_path / ("record-%d.jsonl" % len(started))
        server = RunningServer(["--http", "127.0.0.1:0", "--record", str(record)] + list(flags), record)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def record_file(tmp_path):
    return tmp_path / "stdio-record.jsonl"
