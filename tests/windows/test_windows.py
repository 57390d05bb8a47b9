"""The Windows leg: mcp_tui.py run by the official Windows CPython 3.11 (python.org's embeddable
build, `sys.platform == "win32"`) under Wine, as a Windows user runs it; the stdio servers it starts
are Windows processes too. See README.md here for the harness and what is a Wine artefact.

Not collected by the main run (tests/conftest.py leaves this folder out). `python3
tests/run_tests.py --windows` installs the harness (install.sh) and runs this file; without Wine or
its Windows Python every test is skipped, saying so. Output is read as a Windows program writes it
to a pipe: CRLF line ends, and UTF-8 (mcp-tui's choice for redirected output on Windows)."""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import warnings
from pathlib import Path

import pytest

from conftest import ROOT, wait_for

HARNESS = Path(__file__).resolve().parent
RUN = HARNESS / "run.sh"
WINE_HOME = Path(os.environ.get("MCP_WINE_HOME") or Path.home() / ".cache" / "mcp-tui-wine")
WINDOWS_PYTHON = WINE_HOME / "prefix" / "drive_c" / "python311" / "python.exe"
SERVER = "python tests/testserver.py"  # a bare name: python.exe found through PATH and PATHEXT
WINE_SPAWN_FAILURE = re.compile(r"\Amcp-tui: cannot start the server '[^\n]*': \[WinError 1359\] Internal error\n?\Z")


def wine_failed_to_start(ran):
    """Whether a failed run never got as far as a server: python.exe exited without a byte of
    output, or mcp-tui's one line is Wine's ERROR_INTERNAL_ERROR from starting the server."""
    silent = not ran.out and not ran.err
    return ran.code not in (0, None) and (silent or WINE_SPAWN_FAILURE.search(ran.err) is not None)


def why_not_here():
    if shutil.which("wine") is None:
        return "Wine is not installed"
    if not WINDOWS_PYTHON.exists():
        return "no Windows Python at %s" % WINDOWS_PYTHON
    if shutil.which("bash") is None:
        return "the harness needs bash"
    return None


pytestmark = pytest.mark.skipif(why_not_here() is not None, reason="%s: run tests/windows/install.sh, or python3 "
                                                                   "tests/run_tests.py --windows" % why_not_here())


def windows_path(path):
    """A Linux path as Windows programs under Wine name it (Wine maps / to Z:)."""
    return "Z:" + str(path).replace("/", "\\")


class Ran(object):
    def __init__(self, code, out, err):
        self.code, self.raw_out = code, out
        self.out = out.decode("utf-8", "replace").replace("\r\n", "\n")
        self.err = err.decode("utf-8", "replace").replace("\r\n", "\n")

    def json(self):
        return json.loads(self.raw_out.decode("utf-8"))

    def __repr__(self):
        return "<exit %s\n--- stdout\n%s\n--- stderr\n%s>" % (self.code, self.out, self.err)


class Windows(object):
    """mcp-tui under Wine, with a private state directory."""

    def __init__(self, state):
        self.state = state

    def environment(self, env=None):
        environ = dict(os.environ, MCP_TUI_STATE_DIR=windows_path(self.state))
        for name in ("PYTHONIOENCODING", "PYTHONUTF8", "MCP_TUI_BEARER",  # the default Windows streams
                     "SHELL", "MSYSTEM"):  # Wine passes this machine's on: they would say Git Bash
            environ.pop(name, None)
        environ.update(env or {})
        return environ

    def run(self, *args, input=None, env=None, timeout=90, pipe_into=None):
        """run.sh ARGS from the project's root; `pipe_into` is a shell command its stdout goes to.
        A run that failed without a byte on stdout or stderr never reached mcp-tui, which always
        says why it fails: Wine failed to start python.exe (seen once in ~20 runs of the leg, on a
        loaded machine). Wine's CreateProcess may also fail the server's start with ERROR_INTERNAL_ERROR
        (1359; seen once in ~25 runs), which mcp-tui reports as it must. Those two cases are run again,
        once, with a warning in the test report; nothing reached a server in either."""
        ran = self._run_once(args, input, env, timeout, pipe_into)
        if wine_failed_to_start(ran):
            warnings.warn("Wine gave exit %s and %r for %r; ran it again" % (ran.code, ran.err[:200], args))
            ran = self._run_once(args, input, env, timeout, pipe_into)
        return ran

    def _run_once(self, args, input, env, timeout, pipe_into):
        command = [str(RUN)] + [str(a) for a in args]
        if pipe_into:
            command = ["bash", "-c", '"$@" | %s >/dev/null; exit "${PIPESTATUS[0]}"' % pipe_into, "run"] + command
        proc = subprocess.Popen(command, cwd=str(ROOT), env=self.environment(env), start_new_session=True,
                                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = proc.communicate(input.encode("utf-8") if isinstance(input, str) else input, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            raise AssertionError("mcp-tui under Wine still ran after %ss: %r" % (timeout, Ran(None, out, err)))
        return Ran(proc.returncode, out, err)


@pytest.fixture
def windows(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    runner = Windows(state)
    yield runner
    if (state / "sessions.json").exists():  # keepers a test left (a task not waited for keeps its server)
        runner.run("session", "close", "--all")


def test_it_is_the_windows_cpython(windows):
    ran = windows.run("--python", "-c", "import sys, os, curses, msvcrt; print(sys.platform, os.name)")
    assert (ran.code, ran.out.strip()) == (0, "win32 nt"), ran


# -- the CLI verbs, a stdio server by bare name --------------------------------------------------


def test_server_info_over_stdio(windows):
    ran = windows.run(SERVER, "server")
    assert ran.code == 0, ran
    assert "Title:        mcp-tui test server" in ran.out and "Transport:    stdio" in ran.out, ran


def test_tool_list_and_call(windows):
    listed = windows.run(SERVER, "tool", "list")
    assert listed.code == 0 and re.search(r"^echo \(Echo\)$", listed.out, re.M), listed
    assert re.search(r"^\d+ tools$", listed.err, re.M), listed  # the count goes to stderr, as on Linux
    called = windows.run(SERVER, "tool", "call", "echo", "message=hi from Windows")
    assert called.code == 0 and "hi from Windows" in called.out, called


# -- tap: a host's server relayed unchanged (no CRLF translation), its conversation logged ----------


ECHO = "import os\nwhile True:\n    d = os.read(0, 65536)\n    if not d:\n        break\n    os.write(1, d)\n"


def test_a_tap_relays_every_byte_unchanged_and_logs_the_lines(windows):
    traffic = (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n' + b"not json\n" + b"\xff\xfe\n" + b"\n"
               + b'{"jsonrpc":"2.0","method":"notifications/last"}')  # no newline at the end
    ran = windows.run("tap", "--name", "win", "--", "python", "-c", ECHO, input=traffic)
    assert (ran.code, ran.raw_out, ran.err) == (0, traffic, ""), ran
    records = [json.loads(line) for line in (windows.state / "taps" / "win.jsonl").read_text().splitlines()]
    mine = [r for r in records if r.get("direction") == "out"]
    assert [r.get("message", {}).get("method") or r.get("raw") for r in mine] == [
        "ping", "not json", "\ufffd\ufffd", "notifications/last"]


KILLED_BY_ITS_HOST = """
import json, os, subprocess, sys, time
state, script = sys.argv[1:3]
tap = subprocess.Popen([sys.executable, script, "tap", "--name", "hostk", "--", sys.executable, "-c",
                        "import sys; sys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
deadline = time.monotonic() + 60
while True:  # until the tap has described itself
    try:
        with open(os.path.join(state, "taps", "hostk.json")) as handle:
            if json.load(handle).get("pid") == tap.pid:
                break
    except (OSError, ValueError):
        pass
    if time.monotonic() > deadline:
        sys.exit("the tap never wrote hostk.json")
    time.sleep(0.05)
tap.kill()  # TerminateProcess, as a host ends its servers
tap.wait()
"""


def test_a_tap_its_host_killed_is_not_running_and_its_name_is_taken_again(windows):
    """Windows: process_running said True for every number, so a killed tap stayed `running` for
    ever and the host's next start of it logged to hostk-2."""
    killed = windows.run("--python", "-c", KILLED_BY_ITS_HOST, windows_path(windows.state),
                         windows_path(ROOT / "mcp_tui.py"))
    assert killed.code == 0, killed
    listed = windows.run("tap", "list", "--format", "json")
    row, = listed.json()["taps"]
    assert (row["name"], row["running"]) == ("hostk", False), listed
    again = windows.run("tap", "--name", "hostk", "--", "python", "-c", ECHO, input=b"")
    assert again.code == 0 and "hostk-2" not in again.err, again
    assert sorted(os.listdir(str(windows.state / "taps"))) == ["hostk.json", "hostk.jsonl", "names.lock"], again


def test_process_running_asks_windows(windows):
    """A process that runs, one that has exited, and one created after the time it is said to
    have been running at (its number reused by a later process)."""
    check = ("import os, subprocess, sys, time; sys.path.insert(0, sys.argv[1]); import mcp_tui; "
             "child = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], stdin=subprocess.PIPE); "
             "print(mcp_tui.process_running(child.pid), mcp_tui.process_running(os.getpid(), time.time()), "
             "mcp_tui.process_running(os.getpid(), time.time() - 3600)); child.kill(); child.wait(); "
             "print(mcp_tui.process_running(child.pid))")
    ran = windows.run("--python", "-c", check, windows_path(ROOT))
    assert (ran.code, ran.out) == (0, "True True False\nFalse\n"), ran


def test_mcp_tui_through_a_tap_gets_its_answer(windows):
    ran = windows.run("python mcp_tui.py tap --name through -- " + SERVER, "tool", "call", "echo", "message=tapped")
    assert ran.code == 0 and "tapped" in ran.out, ran
    listed = windows.run("tap", "list", "--format", "json")
    row, = listed.json()["taps"]
    assert row["name"] == "through" and row["messages"] >= 4 and row["running"] is False, listed


def test_resource_read_and_prompt_get(windows):
    resource = windows.run(SERVER, "resource", "read", "test://static/hello.txt")
    assert resource.code == 0 and "Hello, resource!" in resource.out, resource
    prompt = windows.run(SERVER, "prompt", "get", "greeting", "name=Luca")
    assert prompt.code == 0 and "Hello, Luca! How are you today?" in prompt.out, prompt


def test_format_json_lists_tools(windows):
    ran = windows.run(SERVER, "tool", "list", "--format", "json")
    assert ran.code == 0, ran
    assert "echo" in [tool["name"] for tool in ran.json()["result"]["tools"]], ran


def test_a_cmd_file_by_bare_name_is_found_through_pathext(windows, tmp_path):
    """A server command written as `npx` is: a .cmd on PATH, named without its extension."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    server = windows_path(ROOT / "tests" / "testserver.py")
    (bin_dir / "srv.cmd").write_bytes(b'@python.exe "%s" %%*\r\n' % server.encode())
    ran = windows.run("srv", "ping", env={"WINEPATH": windows_path(bin_dir)})
    assert ran.code == 0 and ran.out.startswith("pong from mcp-tui test server"), ran


ARGS_SERVER = r"""import json, os, runpy, sys
with open(os.environ["MCP_TEST_ARGS_FILE"], "w", encoding="utf-8") as out:
    json.dump(sys.argv[1:], out)
sys.argv = [sys.argv[0]]
runpy.run_path(os.environ["MCP_TEST_SERVER"], run_name="__main__")
"""


def test_a_cmd_server_gets_every_argument_intact(windows, tmp_path):
    """BatBadBut: `npx mcp-remote https://h/mcp?a=1&b=2` runs npx.cmd, under cmd.exe. Every
    argument reaches the program the .cmd starts as it was given, and cmd runs none of it. (No
    `%` here: Wine's cmd expands %NAME% again inside what %* substitutes, which cmd.exe does not;
    test_views checks the %%cd:~,% escape, and Wine's cmd reads it right on the /c line.)"""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "args.py").write_text(ARGS_SERVER, encoding="utf-8")
    (bin_dir / "srv.cmd").write_bytes(b'@python.exe "%s" %%*\r\n' % windows_path(bin_dir / "args.py").encode())
    mark = tmp_path / "mark.txt"
    args = ["mcp-remote", "https://h/mcp?a=1&b=2", "x&echo>%s" % windows_path(mark), 'say "hi" & exit',
            "!PATH!", "(c) ^d <e> a|b", "C:\\dir\\", ""]
    ran = windows.run("--cmd", "srv", *[word for arg in args for word in ("--args", arg)], "ping",
                      env={"WINEPATH": windows_path(bin_dir), "MCP_TEST_ARGS_FILE": windows_path(tmp_path / "args.json"),
                           "MCP_TEST_SERVER": windows_path(ROOT / "tests" / "testserver.py")})
    assert ran.code == 0 and ran.out.startswith("pong from mcp-tui test server"), ran
    assert json.loads((tmp_path / "args.json").read_text(encoding="utf-8")) == args
    assert not mark.exists()


def test_a_cmd_server_argument_with_a_line_break_is_refused(windows, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "srv.cmd").write_bytes(b"@echo should not run\r\n")
    ran = windows.run("--cmd", "srv", "--args", "a\nb", "ping", env={"WINEPATH": windows_path(bin_dir)})
    assert ran.code == 2, ran
    assert ran.err.startswith('mcp-tui: cannot pass the argument "a\\nb" to srv.cmd intact'), ran


def test_bad_input_is_one_line_and_a_usage_exit_code(windows):
    unknown = windows.run(SERVER, "tool", "call", "no_such_tool")
    assert unknown.code == 2, unknown
    assert "mcp-tui: the server has no tool named 'no_such_tool'; nothing was sent" in unknown.err, unknown
    assert "Traceback" not in unknown.err and "internal error" not in unknown.err, unknown
    usage = windows.run(SERVER, "tool", "list", "--format", "yaml")
    assert usage.code == 2 and usage.err.count("\n") == 1 and "invalid choice: 'yaml'" in usage.err, usage


# -- redirected output: UTF-8, and a reader that goes away --------------------------------------


def test_redirected_output_keeps_emoji_and_cjk(windows):
    """A redirected stdout on Windows is in the ANSI code page (cp1252) unless mcp-tui says
    otherwise; `🙂 中文` must reach a JSON consumer and a text reader intact, not as `? ??`."""
    message = "emoji \U0001f642 \u4e2d\u6587 \u00e9"
    as_json = windows.run(SERVER, "tool", "call", "echo", "message=" + message, "--format", "json")
    assert as_json.code == 0, as_json
    assert as_json.json()["result"]["content"][0]["text"] == message, as_json
    as_text = windows.run(SERVER, "tool", "call", "echo", "message=" + message)
    assert as_text.code == 0 and message in as_text.raw_out.decode("utf-8"), as_text
    assert "\u2705 Tool executed successfully" in as_text.err and "\\u" not in as_text.err, as_text


def test_a_closed_pipe_is_a_quiet_exit(windows):
    """`| head -1` closes the pipe while 1 MiB is still to come: Windows says EINVAL, not
    EPIPE; mcp-tui stops writing and exits 0, with no internal error."""
    ran = windows.run(SERVER + " --big-text 1", "tool", "call", "big_text", pipe_into="head -1")
    assert ran.code == 0, ran
    assert "internal error" not in ran.err and "Traceback" not in ran.err, ran


# -- what a Windows shell and console get: scripts with LF, a server's code page, help --------------


def test_a_completion_script_has_lf_line_ends(windows):
    """Git Bash's `source <(mcp-tui completion bash)` reads a CR as part of each line's last word."""
    for shell in ("bash", "zsh", "fish"):
        ran = windows.run("completion", shell)
        assert ran.code == 0 and ran.raw_out.count(b"\n") > 5, ran
        assert b"\r" not in ran.raw_out, (shell, ran.raw_out[:200])


def test_the_tool_names_completion_reads_at_tab_have_lf_line_ends(windows):
    """The scripts read `completion tool-names` at TAB after `tool call`: a CR there ends up in
    the word bash, zsh and fish insert (`echo\\r`)."""
    listed = windows.run(SERVER, "tool", "list")
    assert listed.code == 0, listed
    ran = windows.run("completion", "tool-names")
    assert ran.code == 0 and b"echo\n" in ran.raw_out, ran
    assert b"\r" not in ran.raw_out, ran.raw_out[:200]


def test_server_stderr_in_the_windows_code_page_is_read_as_such(windows, tmp_path):
    """A Windows Python server writes its stderr in the ANSI code page (cp1252): `café über` is
    63 61 66 E9 20 FC 62 65 72. mcp-tui shows it as that text, in the error line and in
    --format json's hint, not as U+FFFD."""
    server = tmp_path / "cp1252.py"
    server.write_text("import sys\nsys.stderr.buffer.write(b'caf\\xe9 \\xfcber\\n')\nsys.stderr.flush()\n"
                      "sys.exit(3)\n")
    command = "python " + windows_path(server)
    as_text = windows.run(command, "tool", "list")
    assert as_text.code == 1, as_text
    assert as_text.err == "mcp-tui: the server process exited with code 3 (server stderr: caf\u00e9 \u00fcber)\n", \
        as_text
    as_json = windows.run(command, "tool", "list", "--format", "json")
    assert as_json.code == 1, as_json
    assert json.loads(as_json.err)["error"]["hint"] == "server stderr: caf\u00e9 \u00fcber", as_json


def test_server_stdout_junk_in_the_windows_code_page_is_read_as_such(windows, tmp_path):
    """Non-JSON on stdout is quoted in the error as stderr is: cp1252 read as such, not U+FFFD."""
    server = tmp_path / "junk1252.py"
    server.write_text("import sys\nsys.stdout.buffer.write(b'D\\xe9marrage du serveur \\xfcber\\r\\n')\n"
                      "sys.stdout.flush()\nsys.exit(4)\n")
    ran = windows.run("python " + windows_path(server), "tool", "list")
    assert ran.code == 1 and 'wrote "D\u00e9marrage du serveur \u00fcber" on stdout' in ran.err, ran


def test_help_says_what_install_does_on_windows(windows):
    listed = windows.run("--help")
    assert listed.code == 0, listed
    line = next(line for line in listed.out.splitlines() if line.strip().startswith("install "))
    assert "not on Windows: pipx install ." in line, listed
    asked = windows.run("help", "install")
    words = " ".join(asked.out.split())  # as wrapped at 79 columns
    assert asked.code == 0 and "on Windows it writes nothing and exits 2" in words, asked
    assert "There, pipx install . (from a clone), or python -m mcp_tui" in words, asked
    tried = windows.run("install")
    assert tried.code == 2 and "on Windows: pipx install ." in tried.err, tried


NO_HOME = ("import os, subprocess, sys; env = {k: v for k, v in os.environ.items() if k.upper() not in "
           "('LOCALAPPDATA', 'USERPROFILE', 'HOMEDRIVE', 'HOMEPATH', 'HOME', 'MCP_TUI_STATE_DIR')}; "
           "ran = subprocess.run([sys.executable] + sys.argv[2:], env=env, cwd=sys.argv[1], capture_output=True); "
           "sys.stdout.buffer.write(ran.stdout); sys.stderr.buffer.write(ran.stderr); sys.exit(ran.returncode)")


def test_with_no_home_state_is_refused_not_written_into_the_current_folder(windows, tmp_path):
    """No LOCALAPPDATA, USERPROFILE or HOMEDRIVE/HOMEPATH: expanduser leaves `~\\AppData\\Local`
    as it is, and the ledger (tokens, sessions) went into `~\\AppData\\Local\\mcp-tui` under the
    folder the command ran in."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    server = "python " + windows_path(ROOT / "tests" / "testserver.py")
    script = windows_path(ROOT / "mcp_tui.py")
    ran = windows.run("--python", "-c", NO_HOME, windows_path(cwd), script, server, "tool", "call", "render_report",
                      "quarter=Q1", "--task")
    assert ran.code == 1 and "(set MCP_TUI_STATE_DIR to a full path you can write)" in ran.err, ran
    listed = windows.run("--python", "-c", NO_HOME, windows_path(cwd), script, "session", "list")
    assert listed.code == 0 and listed.err.startswith("No sessions."), listed
    assert os.listdir(str(cwd)) == [], ran


# -- tasks ---------------------------------------------------------------------------------------


def test_a_task_waited_for(windows):
    ran = windows.run(SERVER, "tool", "call", "render_report", "quarter=Q1", "--task", "--wait")
    assert ran.code == 0 and "Q1 revenue: $4.2M across 1,204 orders" in ran.out, ran


def test_a_task_from_the_ledger(windows):
    """Not waited for: a detached keeper holds the stdio server; `task get` and `task result`
    find the task in the ledger, and the keeper ends after the result."""
    created = windows.run(SERVER, "tool", "call", "render_report", "quarter=Q2", "--task")
    assert created.code == 0, created
    task = re.search(r"^Task (\S+) created", created.out, re.M)
    assert task and "Result: mcp-tui task result %s" % task.group(1) in created.out, created
    status = windows.run("task", "get", task.group(1))
    assert status.code == 0 and "Task:     %s" % task.group(1) in status.out, status
    assert re.search(r"^Status:   (working|completed)", status.out, re.M), status
    result = windows.run("task", "result", task.group(1))
    assert result.code == 0 and "Q2 revenue: $4.6M across 1,310 orders" in result.out, result


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_http_in_both_eras_with_a_task(windows, start_server, era):
    """A (Linux) test server on loopback HTTP: the Windows client's sockets, http.client and ledger."""
    server = start_server("--era", era)
    created = windows.run("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "--task")
    assert created.code == 0, created
    task = re.search(r"^Task (\S+) created", created.out, re.M)
    assert task, created
    result = windows.run("task", "result", task.group(1))
    assert result.code == 0 and "Q3 revenue" in result.out, result


CLOSING_PATH = r"""
import socket, sys, threading
sys.path.insert(0, sys.argv[1])
import mcp_tui
listener = socket.create_server(("127.0.0.1", 0))
def serve():
    conn, _ = listener.accept()
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(4096)
    event = b"data: {}\n\n"
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                 + b"%x\r\n%s\r\n" % (len(event), event))
    threading.Event().wait()  # silence: the stream stays open
threading.Thread(target=serve, daemon=True).start()
client = mcp_tui.HttpClient("http://127.0.0.1:%d/mcp" % listener.getsockname()[1], timeout=60)
conn, response = client.open("POST", body=b"{}", seconds=10, stream=True)
seen, ended, discarded = threading.Event(), threading.Event(), threading.Event()
def read():
    try:
        for event in mcp_tui.iter_sse(response, mcp_tui.SseDecoder()):
            seen.set()
    except Exception:
        pass
    ended.set()
threading.Thread(target=read, daemon=True).start()
seen.wait(10)
mcp_tui.shut_down(conn)
threading.Thread(target=lambda: (client.discard(conn), discarded.set()), daemon=True).start()
print("reader woke:", ended.wait(10), "connection closed:", discarded.wait(10))
"""


def test_shut_down_wakes_a_blocked_stream_reader(windows):
    """The closing path itself, on the Windows socket: a reader blocked on a silent stream
    wakes once shut_down ran, and closing its connection returns (shutdown(2) alone left the
    reader blocked and the close waiting on its buffer for ever)."""
    ran = windows.run("--python", "-c", CLOSING_PATH, windows_path(ROOT), timeout=60)
    assert (ran.code, ran.out.strip()) == (0, "reader woke: True connection closed: True"), ran


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_task_waited_for_through_an_http_tap_finishes(windows, start_server, era, tmp_path):
    """`--task --wait` through `tap --listen` (a Linux tap in front of a Linux test server): the
    tap relays streams chunked on a kept-alive connection, and closing the stream the reader
    thread was blocked on hung for ever after `completed` (shutdown(2) does not wake a blocked
    recv on Windows; closing the socket does). The tap's URL is the one it prints on start."""
    from test_tap_http import HttpTap

    server = start_server("--era", era)
    (tmp_path / "tap-state").mkdir()
    tap = HttpTap(tmp_path / "tap-state", server.url)
    try:
        ran = windows.run("--url", tap.url, "--timeout", "60", "tool", "call", "render_report", "quarter=Q3", "--task",
                          "--wait", timeout=60)
    finally:
        tap.stop()
    assert ran.code == 0, ran
    assert "Q3 revenue: $4.9M across 1,433 orders" in ran.out, ran


CMD_SHELL = {"PSModulePath": "C:\\Program Files\\WindowsPowerShell\\Modules;"
                             "C:\\Windows\\system32\\WindowsPowerShell\\v1.0\\Modules"}  # what cmd.exe passes on
RUN_IN_CMD = ("import subprocess, sys; line = open(sys.argv[1], encoding='utf-8').read(); "
              "sys.exit(subprocess.call('cmd.exe /d /c ' + line, executable=r'C:\\windows\\system32\\cmd.exe'))")


@pytest.fixture
def odd_task_server(tmp_path):
    from conftest import RunningServer

    servers = []

    def start(task_id):
        servers.append(RunningServer(["--http", "127.0.0.1:0", "--mode", "odd-task-id", "--task-id", task_id],
                                     tmp_path / "unused-record", script=ROOT / "tests" / "badserver.py"))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def test_the_poll_line_for_cmd_runs_in_cmd_as_printed(windows, odd_task_server, tmp_path):
    """A server-chosen task ID `x" & echo INJECTED>MARK & rem "`: the `Poll:` line, written for
    cmd.exe, run by cmd.exe, asks for that very task and runs nothing else."""
    mark = tmp_path / "mark.txt"
    task_id = 'x" & echo INJECTED>%s & rem "(^|<)' % windows_path(mark)
    server = odd_task_server(task_id)
    created = windows.run("--url", server.url, "tool", "call", "slow_task", "--task", env=CMD_SHELL)
    assert created.code == 0, created
    poll = re.search(r"^Poll:\s+(mcp-tui .*)$", created.out, re.M)
    assert poll and '""' in poll.group(1), created
    line = tmp_path / "poll.txt"
    line.write_text(poll.group(1).replace("mcp-tui", "C:\\python311\\python.exe %s --format json"
                                         % windows_path(ROOT / "mcp_tui.py"), 1), encoding="utf-8")
    ran = windows.run("--python", "-c", RUN_IN_CMD, windows_path(line), env=CMD_SHELL)
    assert ran.code == 0, ran
    assert ran.json()["task"]["taskId"] == task_id, ran
    assert not mark.exists()


def test_the_poll_line_in_git_bash_is_posix_quoted_and_runs_nothing_else(windows, odd_task_server, tmp_path):
    """Git Bash (MSYSTEM set) runs `$(...)` and backticks inside cmd.exe's "...": the lines are
    written for bash there, and bash gives the task ID to mcp-tui as one word."""
    mark = tmp_path / "mark"
    task_id = "x$(touch %s)`touch %s2`" % (mark, mark)
    server = odd_task_server(task_id)
    created = windows.run("--url", server.url, "tool", "call", "slow_task", "--task",
                          env=dict(CMD_SHELL, MSYSTEM="MINGW64"))
    assert created.code == 0, created
    for verb in ("Poll", "Result"):
        line = re.search(r"^%s:\s+(mcp-tui .*)$" % verb, created.out, re.M)
        assert line, created
        ran = subprocess.run(["bash", "-c", 'mcp-tui() { printf "[%s]\\n" "$@"; }; ' + line.group(1)],
                             capture_output=True, text=True, timeout=30)
        assert ran.stdout.splitlines()[-1] == "[%s]" % task_id, (line.group(1), ran)
    assert not list(tmp_path.glob("mark*")), created


def test_a_task_id_cmd_would_expand_is_not_printed_as_a_cmd_command(windows, odd_task_server):
    server = odd_task_server("50%PATH%!x!")
    created = windows.run("--url", server.url, "tool", "call", "slow_task", "--task", env=CMD_SHELL)
    assert created.code == 0, created
    assert re.search(r'^Poll:\s+\(none for cmd\.exe: "50%PATH%!x!" holds % and !, which cmd\.exe expands even '
                     r"inside quotes; PowerShell can run it\)$", created.out, re.M), created


def test_the_login_hint_for_cmd_prints_no_url_cmd_would_expand(windows, start_server):
    """A URL with `&` and `%`: the fallback printed it unquoted, so cmd.exe would run what follows `&`."""
    server = start_server("--auth")
    ran = windows.run("--url", server.url + "?a=1&b=%PATH%", "--stored-auth-only", "tool", "list", env=CMD_SHELL)
    assert ran.code == 1, ran
    assert ran.err == ("mcp-tui: authorization required: log in first: mcp-tui auth login with this --url (no command "
                       "is printed: cmd.exe would expand a % or ! in the URL; PowerShell can run it) (--stored-auth-"
                       "only uses only a stored or refreshable token)\n"), ran


# -- files written --------------------------------------------------------------------------------


@pytest.mark.parametrize("names", [["NUL.txt"], ["sub/COM1.md"], ["notes.md", "NOTES.md"], ["a", "a/b"]])
def test_a_skill_windows_cannot_write_as_named_is_refused_and_nothing_written(windows, tmp_path, names):
    """NUL.txt reported success and went to the NUL device; the others were `internal error`
    with part of the skill written (issue 31)."""
    target = tmp_path / "fetched" / "out"
    target.parent.mkdir()
    server = "%s --hostile-skill %s" % (SERVER, ",".join(names))
    fetched = windows.run(server, "skill", "fetch", "hostile", "-o", windows_path(target))
    assert fetched.code == 1 and "skill hostile: nothing was written: " in fetched.err, fetched
    assert "internal error" not in fetched.err and os.listdir(str(target.parent)) == [], fetched


def test_a_skill_fetch_writes_a_new_directory(windows, tmp_path):
    target = tmp_path / "fetched" / "out"
    fetched = windows.run(SERVER + " --skills", "skill", "fetch", "greeting", "-o", windows_path(target))
    assert fetched.code == 0, fetched
    assert (target / "templates" / "hello.md").read_bytes() == b"Hello, {name}!\n"
    assert os.listdir(str(target.parent)) == ["out"]  # the temporary directory was renamed, not left


# -- kept sessions --------------------------------------------------------------------------------


def test_a_session_opened_used_listed_and_closed(windows):
    opened = windows.run("session", "open", "dev", SERVER)
    assert opened.code == 0, opened
    used = windows.run("@dev", "tool", "call", "echo", "message=via-session")
    assert used.code == 0 and "via-session" in used.out, used
    listed = windows.run("session", "list")
    assert listed.code == 0 and re.search(r"^\s*dev\b", listed.out, re.M), listed
    closed = windows.run("session", "close", "dev")
    assert closed.code == 0, closed
    after = windows.run("session", "list")
    assert after.code == 0 and after.err.startswith("No sessions."), after


# -- the TUI ---------------------------------------------------------------------------------------


@pytest.fixture
def tmux(tmp_path):
    """A tmux server of this test's own (its socket in tmp_path), killed afterwards."""
    if shutil.which("tmux") is None:
        pytest.skip("the TUI smoke needs tmux")
    socket = str(tmp_path / "tmux.sock")

    def tmux_command(*args):
        return subprocess.run(["tmux", "-S", socket] + list(args), capture_output=True, text=True, timeout=30)

    yield tmux_command
    tmux_command("kill-server")


def test_tui_starts_shows_the_tools_and_q_exits_0(windows, tmux):
    shell = "cd %s && MCP_TUI_STATE_DIR=%s %s %s; echo EXIT=$?; exec sleep 120" % tuple(
        shlex.quote(str(part)) for part in (ROOT, windows.environment()["MCP_TUI_STATE_DIR"], RUN, SERVER))
    started = tmux("new-session", "-d", "-s", "tui", "-x", "120", "-y", "40", shell)
    assert started.returncode == 0, started.stderr

    def screen():
        return tmux("capture-pane", "-p", "-t", "tui").stdout

    wait_for(lambda: re.search(r"1 Tools \(\d+\)", screen()), timeout=60, what="the Tools tab with its count")
    assert "echo" in screen(), screen()
    tmux("send-keys", "-t", "tui", "q")
    ended = wait_for(lambda: re.search(r"EXIT=\d+", screen()), timeout=30, what="the TUI's exit after q")
    assert ended.group() == "EXIT=0", screen()


def slow_starting_server(folder):
    """A server that writes `server.pid`, runs the test server once `go` exists, and writes `done`
    when that has ended (its stdin closed): paths of the files, and the script."""
    started, go, done, slow = (folder / name for name in ("server.pid", "go", "done", "slow.py"))
    slow.write_text("import os, subprocess, sys, time\nopen(%r, 'w').write(str(os.getpid()))\n"
                    "while not os.path.exists(%r):\n    time.sleep(0.05)\n"
                    "subprocess.call([sys.executable, %r])\nopen(%r, 'w').close()\n"
                    % (windows_path(started), windows_path(go), windows_path(ROOT / "tests" / "testserver.py"),
                       windows_path(done)))
    return started, go, done, slow


OPENER_KILLED = """
import subprocess, sys
opener = subprocess.Popen([sys.executable, sys.argv[1], "--timeout", "5", "session", "open", "slowp",
                           "python " + sys.argv[2]])
while not __import__("os").path.exists(sys.argv[3]):  # the keeper has started the server
    __import__("time").sleep(0.05)
opener.kill()  # TerminateProcess: no clean-up
opener.wait()
"""


def test_a_killed_session_open_does_not_hold_its_name(windows, tmp_path):
    """Its {"opening": true} record named a process that was gone; process_running said True."""
    started, go, done, slow = slow_starting_server(tmp_path)
    killed = windows.run("--python", "-c", OPENER_KILLED, windows_path(ROOT / "mcp_tui.py"), windows_path(slow),
                         windows_path(started))
    assert killed.code == 0, killed
    opened = windows.run("session", "open", "slowp", SERVER)
    assert opened.code == 0 and opened.out.startswith("Session slowp open: "), opened
    go.write_text("")  # the killed opener's keeper: its server starts, and it finds the name taken
    closed = windows.run("session", "close", "slowp")
    assert closed.code == 0, closed


def test_ctrl_c_during_session_open_ends_it_at_once_and_opens_nothing(windows, tmux, tmp_path):
    """A lock's wait with a timeout is deaf to Ctrl+C on Windows: the opener waited for the keeper
    (2 x --timeout + 10 s), said `interrupted`, and left the keeper to keep the session."""
    started, go, done, slow = slow_starting_server(tmp_path)
    shell = "cd %s && MCP_TUI_STATE_DIR=%s %s --timeout 5 session open slow %s; echo EXIT=$?; exec sleep 120" % tuple(
        shlex.quote(str(part)) for part in (ROOT, windows.environment()["MCP_TUI_STATE_DIR"], RUN,
                                            "python " + windows_path(slow)))
    opened = tmux("new-session", "-d", "-s", "open", "-x", "120", "-y", "20", shell)
    assert opened.returncode == 0, opened.stderr

    def screen():
        return tmux("capture-pane", "-p", "-t", "open").stdout

    wait_for(started.exists, timeout=60, what="the keeper's server started")
    tmux("send-keys", "-t", "open", "C-c")
    ended = wait_for(lambda: re.search(r"EXIT=\d+", screen()), timeout=4, what="the exit soon after Ctrl+C")
    assert ended.group() == "EXIT=130" and "mcp-tui: interrupted" in screen(), screen()
    go.write_text("")  # the server starts now: a keeper still there would keep it, and the session
    wait_for(done.exists, timeout=30, what="the server's end (its keeper stopped: stdin closed)")
    listed = windows.run("session", "list")
    assert listed.code == 0 and listed.err.startswith("No sessions."), listed


def test_check_config_checks_every_server_and_finds_a_cmd_through_pathext(windows, tmp_path):
    """Issue 47 item 3 on Windows: `check --config` of a .cmd server named without its extension
    (found through PATHEXT, no config.command finding), a faulty server and a missing program."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    server = windows_path(ROOT / "tests" / "testserver.py")
    (bin_dir / "srv.cmd").write_bytes(b'@python.exe "%s" %%*\r\n' % server.encode())
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {
        "srv": {"command": "srv"},
        "faulty": {"command": "python.exe", "args": [windows_path(ROOT / "tests" / "faultyserver.py"), "--fault",
                                                     "blob-not-base64"]},
        "gone": {"command": "mcp-tui-no-such-program"}}}))
    ran = windows.run("check", "--config", windows_path(config), "--format", "json", "--timeout", "60",
                      env={"WINEPATH": windows_path(bin_dir)}, timeout=240)
    assert ran.code == 1, ran
    document = ran.json()
    assert [(s["name"], s["connects"]) for s in document["servers"]] == [("srv", True), ("faulty", True),
                                                                         ("gone", False)], ran
    assert [(f["rule"], f["where"]) for f in document["configFindings"]] == [("config.command", 'server "gone"')], ran
    assert document["summary"]["failedServers"] == ["faulty", "gone"], ran
