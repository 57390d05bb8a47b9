"""Drive the real TUI in a pseudo-terminal and read its screen with pyte.

A TuiSession starts ``mcp_tui.py`` on a pty of a fixed size, feeds everything it prints to
a pyte screen on a reader thread, and lets a test type keys and wait (with a timeout) until
text shows up. Nothing here sleeps to synchronise: every wait polls the screen for a
condition. POSIX only (pty, termios); the tests skip on Windows.
"""
import base64
import os
import re
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import cached_script

ROOT = Path(__file__).resolve().parent.parent
MCP_TUI = ROOT / "mcp_tui.py"
TESTSERVER = ROOT / "tests" / "testserver.py"

# TERM=linux: pyte implements every sequence its terminfo entry uses (xterm's and screen's
# entries scroll with CSI S / CSI T and repeat with CSI b, which pyte ignores). Its keys:
TERM = "linux"
REPAINT_AFTER = 4.0  # seconds without the awaited text before asking for a full repaint
KEYS = {"enter": "\r", "tab": "\t", "shift-tab": "\x1b\t", "esc": "\x1b", "up": "\x1b[A", "down": "\x1b[B",
        "right": "\x1b[C", "left": "\x1b[D", "pgup": "\x1b[5~", "pgdn": "\x1b[6~", "home": "\x1b[1~",
        "end": "\x1b[4~", "backspace": "\x7f", "f7": "\x1b[18~", "f9": "\x1b[20~", "f12": "\x1b[24~",
        "ctrl-t": "\x14", "ctrl-x": "\x18",
        "ctrl-y": "\x19", "ctrl-c": "\x03", "ctrl-l": "\x0c", "ctrl-r": "\x12", "ctrl-w": "\x17", "ctrl-u": "\x15",
        "ctrl-a": "\x01", "ctrl-g": "\x07", "ctrl-e": "\x05", "ctrl-o": "\x0f", "ctrl-s": "\x13", "alt-backspace": "\x1b\x7f"}
LONE_ESC_PAUSE = 0.3  # seconds after Esc before the next key: sooner, a terminal's Esc+key is Alt+key

ERAS = {"2026-07-28": [], "2025-11-25": ["--protocol-version", "2025-11-25"]}
needs_pty = pytest.mark.skipif(sys.platform == "win32", reason="the TUI tests drive a POSIX pseudo-terminal")
OSC52 = re.compile(rb"\x1b\]52;c;([A-Za-z0-9+/=]*)\x07")


ONE_TOOL_SERVER = r"""
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
TOOL = %(tool)r
call = {}
for line in iter(sys.stdin.readline, ""):
    message = json.loads(line)
    method = message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}}, "serverInfo": {"name": TOOL["name"] + "-server", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": [TOOL]}})
%(handlers)s
    elif method is not None and "id" in message:  # as JSON-RPC asks: server/discover, ping, ...
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
"""


def one_tool_server(directory, tool, handlers):
    """A 2025-11-25 stdio server with one tool, written to ``directory``; ``handlers`` are its
    own ``elif`` branches (indented by 4): tools/call, and the answers it waits for (``call``
    keeps what it needs). Any other request is answered -32601, as a real legacy server answers
    the 2026-07-28 probe (a silent one makes mcp-tui wait out --probe-timeout, 5 s, at start).
    Returns the command line that starts it."""
    script = Path(str(directory)) / ("%s_server.py" % tool["name"])
    script.write_text(ONE_TOOL_SERVER % {"tool": tool, "handlers": handlers.strip("\n")})
    return " ".join(shlex.quote(p) for p in [sys.executable, str(script)])


def server_command(*flags):
    """The test server as one stdio command line, run from its bytecode cache (as a user's
    `python testserver.py`, without compiling its 4,000 lines at every start)."""
    return " ".join(shlex.quote(str(part)) for part in cached_script.command(TESTSERVER) + list(flags))


class TuiSession(object):
    def __init__(self, args, columns=120, rows=40, env=None, cwd=None):
        import pty

        import pyte

        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.lock = threading.Lock()
        self.exit_status = None
        # PYTHONFAULTHANDLER: a wait that times out has the TUI print its threads (see threads_dump)
        environ = dict(os.environ, TERM=TERM, LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8",
                       PYTHONFAULTHANDLER="1")
        for name in ("MCP_TUI_BEARER", "LINES", "COLUMNS"):  # pytest-xdist workers export LINES/COLUMNS
            environ.pop(name, None)
        environ.update(env or {})
        argv = cached_script.command(MCP_TUI) + [str(a) for a in args]  # `python mcp_tui.py ARGS`, precompiled
        pid, fd = pty.fork()
        if pid == 0:  # the child: size the terminal before curses reads it, then become mcp-tui
            try:
                set_size(0, columns, rows)
                if cwd:
                    os.chdir(str(cwd))
                os.execve(sys.executable, argv, environ)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        import select

        while True:
            try:
                # Never blocked in read: a read in progress holds the terminal open, so a test's
                # os.close(fd) (the window closing) would hang nothing up while the TUI, idle,
                # writes nothing. A look every 0.1 s is only for that; data wakes it at once.
                if not select.select([self.fd], [], [], 0.1)[0]:
                    continue
                data = os.read(self.fd, 65536)
            except (OSError, ValueError):
                return  # EIO: the child closed the terminal; EBADF: the test did
            if not data:
                return
            with self.lock:
                self.raw.extend(data)
                self.stream.feed(data)

    # -- reading the screen -----------------------------------------------------------------

    def text(self):
        with self.lock:
            return "\n".join(self.screen.display)

    def lines(self):
        with self.lock:
            return list(self.screen.display)

    def status_line(self):
        return self.lines()[-1]

    def title_line(self):
        return self.lines()[0]

    def wait_for(self, condition, timeout=30.0, what=None):
        """Poll until ``condition`` (text to find, or a callable on the screen text) holds."""
        check = condition if callable(condition) else (lambda text: condition in text)
        started = time.monotonic()
        deadline, repaint_at = started + timeout, started + REPAINT_AFTER
        while True:
            text = self.text()
            if check(text):
                return text
            now = time.monotonic()
            if now > deadline or not self.reader.is_alive():
                raise AssertionError("timed out waiting for %s; the screen:\n%s%s" % (
                    what or repr(condition), text, self.threads_dump()))
            if now > repaint_at:
                # pyte is not every terminal: on a loaded machine curses sometimes picks cursor
                # moves that leave pyte's copy of a row stale. Ctrl+L (the user's own remedy)
                # repaints the whole screen; what the test then reads is what the TUI holds.
                self.send("ctrl-l")
                repaint_at = now + REPAINT_AFTER
            time.sleep(0.02)

    def wait_all(self, *texts, **options):
        """Wait until every one of ``texts`` is on screen at once. A frame reaches the pty in
        several reads, so what one wait found says nothing yet about the rest of its frame."""
        return self.wait_for(lambda screen: all(text in screen for text in texts), options.get("timeout", 30.0),
                             " and ".join(repr(text) for text in texts))

    def wait_gone(self, text, timeout=30.0):
        return self.wait_for(lambda screen: text not in screen, timeout, "%r to disappear" % text)

    def clipboard(self):
        """What the TUI last put on the clipboard with OSC 52, decoded; None if nothing."""
        with self.lock:
            found = OSC52.findall(bytes(self.raw))
        return base64.b64decode(found[-1]).decode("utf-8") if found else None

    # -- typing -----------------------------------------------------------------------------

    def send(self, *keys):
        """Named keys (see KEYS) or literal text, in order."""
        for key in keys:
            self._after_esc()
            os.write(self.fd, KEYS.get(key, key).encode("utf-8"))
            self.esc_sent_at = time.monotonic() if key == "esc" else None
            time.sleep(0.01)  # let curses read one key sequence at a time, not to synchronise

    def _after_esc(self):
        """A person lifts a finger between Esc and the next key; a terminal sends Alt+key as Esc
        and the key together, so a key right behind a lone Esc would read as Alt+key."""
        sent_at = getattr(self, "esc_sent_at", None)
        if sent_at is not None:
            time.sleep(max(0.0, sent_at + LONE_ESC_PAUSE - time.monotonic()))

    def paste(self, text):
        """``text`` as a terminal sends a paste with bracketed paste mode on: one write."""
        self._after_esc()
        os.write(self.fd, ("\x1b[200~" + text + "\x1b[201~").encode("utf-8"))

    def type(self, text):
        self._after_esc()
        self.esc_sent_at = None
        for char in text:
            os.write(self.fd, char.encode("utf-8"))

    def resize(self, columns, rows):
        with self.lock:
            self.screen.resize(rows, columns)
        set_size(self.fd, columns, rows)  # the kernel sends SIGWINCH to the TUI

    def threads_dump(self):
        """Where each thread of a TUI that stopped answering is: SIGABRT makes its fault
        handler write every thread's stack to the terminal, then it ends. Empty when the TUI
        has already ended or writes nothing within 5 s."""
        if self.exit_status is not None or not self.reader.is_alive():
            return ""
        with self.lock:
            start = len(self.raw)
        try:
            os.kill(self.pid, signal.SIGABRT)
        except OSError:
            return ""
        self.reader.join(5.0)  # the terminal closes as the process ends
        with self.lock:
            written = bytes(self.raw[start:])
        at = written.find(b"Fatal Python error")
        if at < 0:
            return ""
        return "\n\nthe TUI's threads when the wait timed out:\n" + written[at:].decode("utf-8", "replace").replace(
            "\r", "")

    # -- ending -----------------------------------------------------------------------------

    def wait_exit(self, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.exit_status = status
                return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
            time.sleep(0.02)
        raise AssertionError("the TUI did not exit; the screen:\n%s" % self.text())

    def close(self):
        if self.exit_status is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
                self.wait_exit(10)
            except (OSError, AssertionError):
                try:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                except OSError:
                    pass
        try:
            os.close(self.fd)
        except OSError:
            pass


@pytest.fixture
def tui(state_dir):
    """tui(*args, columns=, rows=, cwd=, env=) -> a running TuiSession; all are closed after the
    test. Their state directory is the test's ``state_dir`` (conftest: short enough for a
    keeper's socket)."""
    pytest.importorskip("pyte")
    started = []

    def start(*args, **options):
        env = dict(options.pop("env", None) or {}, MCP_TUI_STATE_DIR=str(state_dir))
        session = TuiSession(list(args), env=env, **options)
        started.append(session)
        return session

    yield start
    for session in started:
        session.close()


def wait_for_tool_list(screen):
    """The tools are listed: the tab counts them ("Tools (1 of 17)" under a filter). "Tools ("
    alone shows as soon as the main screen does, as "Tools (...)" while the list loads, and an
    Enter then opens nothing."""
    screen.wait_for(lambda text: re.search(r"Tools \(\d+( of \d+)?\)", text), what="the tools listed")


def open_tool(screen, name):
    """From the main screen: filter the tools down to ``name`` and open its form."""
    wait_for_tool_list(screen)
    screen.send("/")
    screen.type(name)
    screen.send("enter")
    screen.wait_for(lambda text: text.count("\n " + name) >= 1)
    screen.send("enter")
    wait_for_tool_form(screen, name)


def wait_for_progress(screen, total):
    """A call's progress on screen, at any step: frames show the latest step only, and on a
    loaded machine the first may have passed before a frame showed it."""
    screen.wait_for(lambda text: re.search(r"progress \d+/%d\b" % total, text), what="progress of %d steps" % total)


def wait_for_tool_form(screen, name):
    """The form of tool ``name`` is drawn whole. The title comes first in a frame and the key
    hints last: waiting on both sees the rows between drawn too (CI once read the hints line
    still blank, just after the title had come)."""
    screen.wait_for(lambda text: screen.title_line().startswith(" Tool: %s " % name)  # not the detail pane's line
                    and "^X execute" in screen.lines()[-2], what="the form of %s with its key hints" % name)


def wait_for_form(screen, title, text):
    """An input form is up: its title bar and its text (the status line may say the same
    text earlier, e.g. a task's statusMessage, while no form is open yet)."""
    screen.wait_for(lambda t: t.splitlines()[0].startswith(" " + title) and text in t, what="the %s form" % title)


def quit_from_main(screen):
    screen.send("q")
    assert screen.wait_exit() == 0


def set_size(fd, columns, rows):
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


class TwoServers(object):
    """A TUI with two test servers open whose echo answers differ: server 1 the test server over
    stdio in the 2026-07-28 era (echo answers "first:" + the message), server 2 over HTTP in the
    2025-11-25 era ("second:" + the message). Each records what it received."""

    def __init__(self, screen, stdio_record, http):
        self.screen, self.stdio_record, self.http = screen, stdio_record, http

    def received(self, number, method):
        """The params of each ``method`` request server ``number`` (1 or 2) received, in order."""
        from schemas import check_recorded

        records = check_recorded(self.stdio_record) if number == 1 else self.http.records()
        return [record["message"].get("params") for record in records if record["message"].get("method") == method]

    def echoes(self, number):
        return [params["arguments"]["message"] for params in self.received(number, "tools/call")
                if params.get("name") == "echo"]


@pytest.fixture
def two_servers(tui, start_server, tmp_path):
    """two_servers(columns=120, rows=40) -> TwoServers, server 2 shown, the side pane hidden
    (B). The TUI runs in tmp_path/"work" (where the debug screen's s saves)."""
    from test_tui_servers import add_server  # there with the tests of several servers

    def start(columns=120, rows=40):
        http = start_server("--era", "2025-11-25", "--echo-prefix", "second:")
        record = tmp_path / "stdio-server-record.jsonl"
        work = tmp_path / "work"
        work.mkdir()
        screen = tui(server_command("--era", "2026-07-28", "--echo-prefix", "first:", "--record", str(record)),
                     columns=columns, rows=rows, cwd=work)
        wait_for_tool_list(screen)
        add_server(screen, http.url)
        screen.send("B")  # the lists where open_tool looks for a tool, on both servers
        screen.wait_gone("Servers  (S)")
        return TwoServers(screen, record, http)

    return start


def call_echo(screen, message, answer):
    """From the main screen: echo ``message``, until ``answer`` shows; back to the main screen."""
    open_tool(screen, "echo")
    screen.type(message)
    screen.send("ctrl-x")
    screen.wait_for(answer)
    screen.send("esc")
    screen.wait_for(lambda t: screen.title_line().startswith(" mcp-tui "), what="the main screen")


def show_server(screen, number, what=None):
    """Alt+``number``: that server shown (of two), once its title says so."""
    screen.send("\x1b%d" % number)
    title = " mcp-tui  |  %d/2 " % number
    screen.wait_for(lambda t: screen.title_line().startswith(title), what=what or "server %d shown" % number)
