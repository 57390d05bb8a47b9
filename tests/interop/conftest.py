"""Fixtures for the interop tests: real MCP servers (peers) on loopback, and mcp-tui's CLI.

Peers run under their own virtualenvs, built by tests/run_tests.py from
tests/interop/peers/<name>.txt; the interpreter of each arrives as the environment
variable MCP_TUI_PEER_<NAME>. Without it a peer test is skipped, or fails when CI is set.

HTTP peers are started once per test session (per xdist worker) and announce their
endpoint with one stdout line, `listening on <url>`, which the fixture waits for with
a timeout; nothing here sleeps to synchronise. Teardown terminates, then kills.
"""
import os
import queue
import shlex
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .interop_helpers import (
    FASTMCP_AUTH_SERVER, FASTMCP_PROXY_SERVER, FASTMCP_SERVER, INTEROP_DIR, MCP_TUI, REPO_ROOT, SDK_AUTH_SERVER, SDK_SERVER, text_of,
)

from inprocess import ALWAYS_A_PROCESS, decode, run_main  # noqa: E402 (tests/ is on sys.path: tests/conftest.py)

STARTUP_TIMEOUT = float(os.environ.get("MCP_TUI_PEER_STARTUP_TIMEOUT", "90"))
LISTENING_PREFIX = "listening on "


# --------------------------------------------------------------------------- peers

# tests/run_tests.py builds the peers while the other tests run, and names this file; once
# built, it holds the peers' MCP_TUI_PEER_* variables (or {"error": why the build failed}).
PEERS_PENDING = "MCP_TUI_PEERS_PENDING"
PEERS_BUILD_WAIT = 1800.0  # seconds: downloads on a slow network; the build ends by itself
PEERS_FAILED = []  # why the announced build failed, once known (one worker's own reading)


def pytest_collection_modifyitems(session, config, items):
    """The interop tests run last, so that the peers' build has the rest of the run to finish."""
    items.sort(key=is_interop)


def is_interop(item):
    return INTEROP_DIR in Path(str(item.fspath)).resolve().parents


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_protocol(item):
    """Before this worker's first interop test (and before its time limit starts), wait for
    the peers run_tests.py is building and take their variables."""
    announced = os.environ.get(PEERS_PENDING)
    if announced and is_interop(item):
        del os.environ[PEERS_PENDING]
        take_announced_peers(Path(announced))
    yield


def take_announced_peers(path):
    deadline = time.monotonic() + PEERS_BUILD_WAIT
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    if not path.exists():
        PEERS_FAILED.append("the interop peers were not built within %gs" % PEERS_BUILD_WAIT)
        return
    import json

    found = json.loads(path.read_text())
    if "error" in found:
        PEERS_FAILED.append(found.pop("error"))
    os.environ.update(found)


@pytest.fixture(scope="session", autouse=True)
def peers_were_built():
    """A failed build is said before any peer fixture reports a missing variable."""
    if PEERS_FAILED:
        pytest.fail(PEERS_FAILED[0], pytrace=False)



def peer_env_var(name):
    return "MCP_TUI_PEER_" + name.upper().replace("-", "_")


def peer_python(name):
    """The interpreter of peer venv `name`; skip (or fail under CI) when it is missing."""
    var = peer_env_var(name)
    value = os.environ.get(var)
    problem = None
    if not value:
        problem = "%s is not set" % var
    elif not Path(value).exists():
        problem = "%s points at %s, which does not exist" % (var, value)
    if problem:
        message = (
            "%s: run the tests through `python3 tests/run_tests.py`, which builds "
            ".venv-peers/%s from tests/interop/peers/%s.txt and exports it" % (problem, name, name)
        )
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return value


ZYGOTE = INTEROP_DIR / "peer_zygote.py"
ZYGOTE_VOLATILE = ["PYTEST_CURRENT_TEST"]  # differs from test to test; no peer library reads it on import


def direct_argv(python, script, *args):
    """A peer's stdio command line as its own interpreter runs it, without a zygote."""
    return [str(python), str(script)] + [str(arg) for arg in args]


def zygotes_possible():
    """Whether peer_zygote.py can serve here: POSIX fork and AF_UNIX fd passing, not turned off."""
    return (os.environ.get("MCP_TUI_PEER_ZYGOTE", "1") != "0" and os.name == "posix"
            and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds"))


class PeerZygotes:
    """Stdio commands of the Python peers that start through a zygote (peer_zygote.py: it imports
    a peer's libraries once and forks a child per start, saving the seconds of CPU each import
    costs). One zygote per peer script, started the first time its command is asked for and
    stopped by stop(). It serves starts made with `env` and `cwd` (what run_cli gives mcp-tui,
    which passes them on to the server); any other start, or any start when the zygote could not
    be started, runs the peer directly, as `<python> SCRIPT ARGS`."""

    def __init__(self, env, cwd, log_dir):
        self.env, self.cwd, self.log_dir = env, str(cwd), Path(log_dir)
        self.enabled = zygotes_possible()
        self._running = {}  # (python, script) -> (process, directory, log), or None if it could not start

    def argv(self, python, script, *args):
        direct = direct_argv(python, script, *args)
        directory = self._directory(str(python), str(script)) if self.enabled else None
        if directory is None:
            return direct
        return [str(python), "-S", "-I", str(ZYGOTE), "run", directory, "--"] + direct

    def command(self, python, script, *args):
        """The command line (one string) mcp-tui takes as its first positional."""
        return shlex.join(self.argv(python, script, *args))

    def _directory(self, python, script):
        key = (python, script)
        if key not in self._running:
            self._running[key] = self._start(python, script)
        started = self._running[key]
        return started[1] if started else None

    def _start(self, python, script):
        import select
        import tempfile

        directory = tempfile.mkdtemp(prefix="mcp-tui-zygote-")  # 0700: who reaches the socket runs code
        log = open(self.log_dir / ("zygote-%s-%d.stderr.log" % (Path(script).stem, len(self._running))), "w")
        process = subprocess.Popen([python, str(ZYGOTE), "serve", directory, script] + ZYGOTE_VOLATILE,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, cwd=self.cwd,
                                   env=self.env)
        # It says so once its socket listens (before its imports: the first start waits for those).
        ready, _, _ = select.select([process.stdout], [], [], STARTUP_TIMEOUT)
        if ready and process.stdout.readline().strip() == b"listening":
            return process, directory, log
        self._stop(process, directory, log)
        return None

    def stop(self):
        """Stop the zygotes; warn of the starts they refused (each one a direct start: seconds of CPU
        the zygote was to save, and a hint that a test starts its peer in another environment)."""
        import warnings

        refusals = []
        for started in self._running.values():
            if started:
                self._stop(*started)
                with open(started[2].name, errors="replace") as log:
                    refusals += [line.split(": ", 1)[1].strip() for line in log
                                 if "refused:" in line or "not forking" in line]
        self._running.clear()
        if refusals:
            warnings.warn("peer_zygote refused %d start(s), started directly instead: %s"
                          % (len(refusals), "; ".join(sorted(set(refusals)))), stacklevel=2)

    @staticmethod
    def _stop(process, directory, log):
        import shutil

        process.stdin.close()  # it ends, and kills the children it still has, when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        process.stdout.close()
        log.close()
        shutil.rmtree(directory, ignore_errors=True)


class PeerProcess:
    """A peer server subprocess that announces `listening on <url>` on stdout."""

    def __init__(self, argv, label, log_dir):
        self.argv = [str(a) for a in argv]
        self.label = label
        self.log_path = Path(log_dir) / ("%s.stderr.log" % label)
        self.proc = None
        self.url = None
        self._lines = queue.Queue()
        self._stdout_tail = []

    def _pump(self):
        # Reads stdout to EOF: hands lines over until the URL is known, and keeps
        # draining afterwards so the peer can never block on a full pipe.
        for line in self.proc.stdout:
            self._stdout_tail = (self._stdout_tail + [line.rstrip("\n")])[-20:]
            self._lines.put(line)
        self._lines.put(None)

    def log_tail(self, limit=4000):
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-limit:]

    def start(self, timeout=STARTUP_TIMEOUT):
        self._log = open(self.log_path, "w")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            cwd=str(INTEROP_DIR),
            env=env,
        )
        threading.Thread(target=self._pump, name="peer-%s-stdout" % self.label, daemon=True).start()
        deadline = time.monotonic() + timeout
        try:
            while True:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
                if line is None:
                    self.proc.wait(timeout=10)
                    raise RuntimeError("exited with %s before listening" % self.proc.returncode)
                if line.startswith(LISTENING_PREFIX):
                    self.url = line[len(LISTENING_PREFIX):].strip()
                    return self
        except queue.Empty:
            error = "did not print %r within %ss" % (LISTENING_PREFIX.strip(), timeout)
        except RuntimeError as exc:
            error = str(exc)
        self.stop()
        pytest.fail(
            "peer %s (%s) %s\n--- stdout ---\n%s\n--- stderr ---\n%s"
            % (self.label, " ".join(self.argv), error, "\n".join(self._stdout_tail), self.log_tail()),
            pytrace=False,
        )

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=8)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=8)
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None


@pytest.fixture(scope="session")
def peer_log_dir(tmp_path_factory):
    """Where the HTTP peers' stderr goes (shown when a peer fails to start), and the zygotes' logs."""
    return tmp_path_factory.mktemp("peers")


def _start_peer(python, script, transport, label, log_dir, *extra):
    peer = PeerProcess([python, script, "--transport", transport, "--port", "0"] + list(extra), label, log_dir)
    peer.start()
    return peer


@pytest.fixture(scope="session")
def sdk_python():
    return peer_python("sdk")


@pytest.fixture(scope="session")
def fastmcp_python():
    return peer_python("fastmcp")


@pytest.fixture(scope="session")
def peer_zygotes(cli_home, peer_log_dir):
    """PeerZygotes for the stdio peers that run_cli starts (its environment, the repository as cwd)."""
    zygotes = PeerZygotes(_cli_env(cli_home), REPO_ROOT, peer_log_dir)
    yield zygotes
    zygotes.stop()


@pytest.fixture(scope="session")
def sdk_stdio_cmd(sdk_python, peer_zygotes):
    """Command line (one string) that runs the SDK peer over stdio."""
    return peer_zygotes.command(sdk_python, SDK_SERVER, "--transport", "stdio")


@pytest.fixture(scope="session")
def fastmcp_stdio_cmd(fastmcp_python, peer_zygotes):
    """Command line (one string) that runs the FastMCP tasks peer over stdio."""
    return peer_zygotes.command(fastmcp_python, FASTMCP_SERVER, "--transport", "stdio")


@pytest.fixture(scope="session")
def sdk_http(sdk_python, peer_log_dir):
    """The SDK peer on streamable HTTP; `.url` is http://127.0.0.1:PORT/mcp."""
    peer = _start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-http", peer_log_dir)
    yield peer
    peer.stop()


@pytest.fixture(scope="session")
def sdk_sse(sdk_python, peer_log_dir):
    """The SDK peer on the legacy HTTP+SSE transport; `.url` is http://127.0.0.1:PORT/sse."""
    peer = _start_peer(sdk_python, SDK_SERVER, "sse", "sdk-sse", peer_log_dir)
    yield peer
    peer.stop()


@pytest.fixture(scope="session")
def fastmcp_http(fastmcp_python, peer_log_dir):
    """The FastMCP tasks peer on streamable HTTP; `.url` is http://127.0.0.1:PORT/mcp."""
    peer = _start_peer(fastmcp_python, FASTMCP_SERVER, "streamable-http", "fastmcp-http", peer_log_dir)
    yield peer
    peer.stop()


def _auth_peer(name, python_fixture, script, *extra, transport="streamable-http"):
    """A session fixture `name`: an MCP server that is its own authorization server on one
    origin (`.url` is http://127.0.0.1:PORT/mcp, or /sse), run with `extra` arguments."""

    @pytest.fixture(scope="session", name=name)
    def fixture(request, peer_log_dir):
        python = request.getfixturevalue(python_fixture)
        peer = _start_peer(python, script, transport, name.replace("_", "-"), peer_log_dir, *extra)
        yield peer
        peer.stop()

    return fixture


SCOPED = ("--scope", "mcp:read", "--scope", "mcp:write")  # every token needs both
# FastMCP behind its InMemoryOAuthProvider (fastmcp_auth_server.py)
fastmcp_auth_http = _auth_peer("fastmcp_auth_http", "fastmcp_python", FASTMCP_AUTH_SERVER)
fastmcp_auth_scoped_http = _auth_peer("fastmcp_auth_scoped_http", "fastmcp_python", FASTMCP_AUTH_SERVER, *SCOPED)
# FastMCP with a static bearer token (an API key) and no OAuth at all
fastmcp_static_token_http = _auth_peer("fastmcp_static_token_http", "fastmcp_python", FASTMCP_AUTH_SERVER,
                                       "--static-token", "dev-key-4f1c")
# FastMCP's OAuthProxy in front of an upstream identity provider (fastmcp_proxy_server.py)
fastmcp_proxy_http = _auth_peer("fastmcp_proxy_http", "fastmcp_python", FASTMCP_PROXY_SERVER)
# an SDK MCPServer with mcp.server.auth over a small provider (sdk_auth_server.py)
sdk_auth_http = _auth_peer("sdk_auth_http", "sdk_python", SDK_AUTH_SERVER)
sdk_auth_scoped_http = _auth_peer("sdk_auth_scoped_http", "sdk_python", SDK_AUTH_SERVER, *SCOPED)
sdk_auth_sse = _auth_peer("sdk_auth_sse", "sdk_python", SDK_AUTH_SERVER, transport="sse")  # legacy HTTP+SSE


# --------------------------------------------------------------------------- the CLI


@pytest.fixture(scope="session")
def cli_home(tmp_path_factory):
    """A private HOME/XDG tree and state dir for mcp-tui, so task ledgers and configs
    never leak in or out (shared by the session: a task created by one invocation is
    looked up by the next)."""
    return make_cli_home(tmp_path_factory.mktemp("cli-home"))


def _cli_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_TUI_") or k.startswith("MCP_TUI_PEER_")}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        MCP_TUI_STATE_DIR=str(home / "state" / "mcp-tui"),
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
        LC_ALL="C.UTF-8",
        LANG="C.UTF-8",
    )
    return env


def make_cli_home(path):
    """A private HOME/XDG tree under `path` for mcp-tui (see cli_home)."""
    for sub in ("config", "state", "data", "cache"):
        (path / sub).mkdir(parents=True, exist_ok=True)
    return path


def cli_runner(home, **extra_env):
    """run(*args, input=None, timeout=60, env=None) -> CompletedProcess of `python mcp_tui.py ARGS`
    with HOME and the state dir under `home`, plus `extra_env` and the call's own `env`.

    Text mode, stdout and stderr captured; never raises on a non-zero exit.
    """

    def run(*args, input=None, timeout=60, env=None):
        if not MCP_TUI.exists():
            pytest.fail("%s does not exist (yet)" % MCP_TUI, pytrace=False)
        argv = [sys.executable, str(MCP_TUI)] + [str(a) for a in args]
        full_env = _cli_env(home)
        full_env.update(extra_env)
        full_env.update(env or {})
        try:
            if not ALWAYS_A_PROCESS:  # in this process, as tests/conftest.py's cli fixture runs it
                code, out, err = run_main(argv[2:], input=input, timeout=timeout, environ=full_env, cwd=REPO_ROOT,
                                          text=False)
                return subprocess.CompletedProcess(argv, code, decode(out, "replace"), decode(err, "replace"))
            return subprocess.run(
                argv,
                input=input,
                stdin=None if input is not None else subprocess.DEVNULL,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                cwd=str(REPO_ROOT),
                env=full_env,
            )
        except subprocess.TimeoutExpired as exc:
            pytest.fail(
                "mcp-tui timed out after %ss: %s\n--- stdout ---\n%s\n--- stderr ---\n%s"
                % (timeout, shlex.join(argv[1:]), text_of(exc.stdout), text_of(exc.stderr)),
                pytrace=False,
            )

    return run


@pytest.fixture(scope="session")
def run_cli(cli_home):
    """run_cli(*args, input=None, timeout=60) -> CompletedProcess of `python mcp_tui.py ARGS`.

    Text mode, stdout and stderr captured; never raises on a non-zero exit.
    """
    return cli_runner(cli_home)
