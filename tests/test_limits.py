"""Limits and deadlines against a hostile server (tests/badserver.py): an endless message
stops at --max-message-size with bounded memory, a server that drips one byte at a time
cannot stretch an exchange past its deadline, --max-time bounds a whole command and
--max-pages an endless list, and floods (log notifications, server requests, stderr
lines) stay bounded. Memory is the mcp-tui process's peak RSS, read from the rusage
that os.wait4 returns for it in a small launcher (see LAUNCHER).
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import MCP_TUI, ROOT, process_alive, wait_for
from test_reliability import LEGACY, MODERN, SLACK, bad, error_line  # noqa: F401 (bad is a fixture)

needs_wait4 = pytest.mark.skipif(not hasattr(os, "wait4"), reason="peak RSS comes from os.wait4 (POSIX)")
MiB = 1024 * 1024


class Measured(object):
    def __init__(self, code, out, err, elapsed, peak_rss, guard):
        self.code, self.out, self.err, self.elapsed, self.peak_rss = code, out, err, elapsed, peak_rss
        assert code != -signal.SIGKILL, "mcp-tui still ran after the %gs guard (a hang): %r" % (guard, self)

    def __repr__(self):
        return "<exit %s in %.2fs, peak RSS %.0f MiB\n--- stdout\n%s\n--- stderr\n%s>" % (
            self.code, self.elapsed, self.peak_rss / MiB, self.out[-3000:], self.err[-3000:])


# Linux records the peak RSS of the memory a process leaves at exec() in the new program's
# ru_maxrss: a child forked (or vforked) straight from this pytest worker would report the
# worker's own peak, hundreds of MiB after a few large tests. So a small launcher starts
# mcp-tui and reports the peak that wait4 gives for it: at most the launcher's ~10 MiB.
LAUNCHER = ("import os, subprocess, sys\n"
            "child = subprocess.Popen(sys.argv[2:])\n"
            "_, status, usage = os.wait4(child.pid, 0)\n"
            "with open(sys.argv[1], 'w') as out:\n"
            "    out.write(str(usage.ru_maxrss))\n"
            "sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 255)\n")


@pytest.fixture
def measured(state_dir, tmp_path):
    """measured(*args, guard=60) -> Measured: run mcp-tui and read its peak RSS; a run that
    outlasts ``guard`` is killed and fails the test as a hang."""

    def run(*args, guard=60):
        environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
        environ.pop("MCP_TUI_BEARER", None)
        peak_file = tmp_path / "peak-rss"
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(peak_file), sys.executable, str(MCP_TUI)]
                                + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=environ, cwd=str(ROOT), start_new_session=True)
        watchdog = threading.Timer(guard, os.killpg, (proc.pid, signal.SIGKILL))  # only a guard against a hang
        watchdog.start()
        out, err = proc.communicate()
        elapsed = time.monotonic() - started
        watchdog.cancel()
        scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
        peak_rss = int(peak_file.read_text()) * scale if peak_file.exists() else -1
        return Measured(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), elapsed,
                        peak_rss, guard)

    return run


TIMEOUT = 5.0


# -- one maximum message size, enforced while reading ------------------------------------------


ENDLESS = [("stdio", "endless-line"), ("http", "endless-line"), ("http", "endless-event"),
           ("http", "endless-body"), ("http", "endless-chunked"), ("http", "huge-length")]


@needs_wait4
@pytest.mark.parametrize("transport,mode", ENDLESS, ids=["-".join(item) for item in ENDLESS])
def test_an_endless_message_stops_at_the_limit_with_bounded_memory(measured, bad, transport, mode):
    target = bad(transport, MODERN, mode)
    result = measured(*target.args, "--timeout", TIMEOUT, "--max-message-size", "8M", "tool", "list",
                      guard=TIMEOUT + SLACK)
    assert result.code == 1, result
    line = error_line(result)
    assert "larger than 8 MiB" in line and "--max-message-size" in line, result
    assert result.peak_rss < 150 * MiB, result  # unbounded, it grows by ~450 MB/s until --timeout


@needs_wait4
def test_the_default_limit_is_64_mib_and_memory_a_small_multiple(measured, bad):
    result = measured(*bad("stdio", MODERN, "endless-line").args, "--timeout", 20, "tool", "list")
    assert result.code == 1 and "larger than 64 MiB" in error_line(result), result
    assert result.peak_rss < 4 * 64 * MiB, result


def test_a_message_under_the_limit_arrives_whole(cli, bad):
    target = bad("http", MODERN, "oversized", "--size", 3 * MiB)
    result = cli(*target.args, "-q", "--max-message-size", "4M", "tool", "call", "echo", "message=x")
    assert result.code == 0 and result.out.count("B") == 3 * MiB, result.err


def test_a_bad_size_is_a_usage_error(cli):
    result = cli("--max-message-size", "lots", "--url", "http://127.0.0.1:9/mcp", "tool", "list")
    assert result.code == 2 and "not a size" in result.err, result


# -- absolute deadlines -----------------------------------------------------------------------


DRIPS = [("notifications/initialized", []), ("GET", ["--transport", "sse"])]


@pytest.mark.parametrize("on,flags", DRIPS, ids=["initialized-notification", "legacy-sse-get"])
def test_a_dripping_server_cannot_stretch_an_exchange(measured, bad, on, flags):
    target = bad("http", LEGACY, "drip", "--on", on, "--delay-ms", 200)
    result = measured(*target.args, *flags, "--timeout", 2, "tool", "list", guard=2 + SLACK)
    assert result.code == 1, result
    line = error_line(result)
    assert "no complete answer within 2s" in line and "HTTP" in line, result


def test_the_closing_delete_has_a_short_deadline_of_its_own(measured, bad):
    target = bad("http", LEGACY, "drip", "--on", "DELETE", "--delay-ms", 200)
    result = measured(*target.args, "--timeout", 30, "tool", "list", guard=2 + SLACK)  # 2 s for the DELETE
    assert result.code == 0 and result.out.startswith("echo"), result
    assert target.http("DELETE"), target.records()


def test_max_time_bounds_the_whole_command_pagination_included(measured, bad):
    result = measured(*bad("http", MODERN, "endless-pages").args, "--timeout", 10, "--max-time", 3,
                      "--max-pages", 10 ** 6, "tool", "list", guard=3 + SLACK)
    assert result.code == 1, result
    assert "--max-time" in error_line(result), result


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_max_pages_names_itself(cli, bad, transport):
    result = cli(*bad(transport, MODERN, "endless-pages").args, "--max-pages", 40, "tool", "list")
    assert result.code == 1, result
    line = error_line(result)
    assert "more than 40 pages" in line and "--max-pages" in line, result
    assert result.out.count("echo") == 40, result  # what arrived is still shown


# -- floods -----------------------------------------------------------------------------------


@needs_wait4
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_json_output_keeps_the_last_notifications_and_counts_them_all(measured, bad, transport):
    target = bad(transport, MODERN, "log-flood", "--count", 3000)
    result = measured(*target.args, "--format", "json", "tool", "call", "echo", "message=hi")
    assert result.code == 0, result
    document = json.loads(result.out)
    kept = document["notifications"]
    assert len(kept) == 1000, len(kept)
    floods = [n["params"]["data"] for n in kept if str(n["params"].get("data")).startswith("FLOOD ")]
    assert floods[-1].startswith("FLOOD 2999 "), floods[-1][:20]  # the last ones are kept
    counts = document["notificationCounts"]
    assert counts["notifications/message"] >= 3000 and sum(counts.values()) > 1000, counts
    assert result.peak_rss < 200 * MiB, result


def test_json_output_keeps_notifications_within_a_byte_budget_and_few_method_counts():
    import io

    import mcp_tui

    out = io.StringIO()
    output = mcp_tui.Output("json", stdout=out, stderr=io.StringIO())
    for n in range(60):  # 400 KB each in memory: the budget holds a few dozen
        output.on_notification({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "data": "%d %s" % (n, "\U0001F600" * 100000)}})
    for n in range(3000):  # as many different methods, long ones
        output.on_notification({"jsonrpc": "2.0", "method": "notifications/%d/%s" % (n, "m" * 5000)})
    output.document({"ok": True})
    document = json.loads(out.getvalue())
    kept, counts = document["notifications"], document["notificationCounts"]
    assert len(kept) == 1000 and kept[-1]["method"].startswith("notifications/2999/mmm"), len(kept)
    assert len(counts) == 1000 + 1 and sum(counts.values()) == 3060, len(counts)
    assert counts["(other methods)"] == 3000 - 999 and counts["notifications/message"] == 60
    assert all(re.search(r"^notifications/\d+/m{4070,4080}… \(cut at 4096 of 50\d\d characters\)$", method)
               for method in counts if method.startswith("notifications/1"))
    output = mcp_tui.Output("json", stdout=io.StringIO(), stderr=io.StringIO())
    for n in range(60):
        output.on_notification({"jsonrpc": "2.0", "method": "notifications/message",
                                "params": {"level": "info", "data": "%d %s" % (n, "\U0001F600" * 100000)}})
    assert 30 <= len(output.notifications) < 60 and output.notifications.bytes <= mcp_tui.KEPT_NOTIFICATION_BYTES


def test_pages_that_add_up_past_the_message_limit_stop_with_one_line(cli, bad):
    result = cli(*bad("stdio", MODERN, "big-pages", "--size", 3000).args, "--max-message-size", "10K", "tool", "list")
    assert result.code == 1, result
    line = error_line(result)
    assert "tools/list: the server's 4 pages add up to more than 10 KiB, the --max-message-size limit on a whole " \
           "list (raise --max-message-size if the list really is that long)" in line, line
    assert result.out.count("big_") == 3, result  # what arrived within the limit is still shown


@pytest.mark.parametrize("quiet", [False, True])
def test_declined_server_requests_are_said_once_with_a_count(cli, bad, quiet):
    target = bad("stdio", LEGACY, "sampling-flood", "--count", 300)
    result = cli(*target.args, *(["--quiet"] if quiet else []), "tool", "call", "echo", "message=hi", timeout=120)
    assert result.code == 0 and "echo: hi" in result.out, result
    declines = [line for line in result.err.splitlines() if "Declined" in line or "repeated" in line]
    if quiet:
        assert declines == [], result
    else:
        repeats = re.match(r"… repeated (\d+) times$", declines[-1])
        assert len(declines) == 2 and 100 < int(repeats.group(1)) <= 299, result  # the rest were "busy"
        assert declines[0] == "Declined badserver's sampling request (no terminal; pass --sampling-stub JSON to answer)"
    answers = [m for m in target.messages() if str(m.get("id", "")).startswith("flood-") and "method" not in m]
    assert len(answers) == 300  # each one declined all the same


def test_a_request_flood_is_answered_by_a_bounded_pool(cli, bad):
    target = bad("stdio", LEGACY, "request-flood", "--count", 1500)
    result = cli(*target.args, "--timeout", 30, "tool", "call", "echo", "message=hi", timeout=120)
    assert result.code == 0 and "echo: hi" in result.out, result
    answers = [m for m in target.messages() if str(m.get("id", "")).startswith("flood-") and "method" not in m]
    assert len(answers) == 1500, len(answers)  # every request answered: a result, or "busy"
    for answer in answers:
        assert "result" in answer or answer["error"]["code"] == -32000, answer


def test_repeated_stderr_lines_are_collapsed(cli, bad):
    result = cli(*bad("stdio", MODERN, "stderr-flood", "--count", 20000).args, "tool", "list")
    line = error_line(result)
    assert "badserver: retrying the database connection | … repeated 19999 times | badserver: giving up" in line, line


def test_an_overlong_stderr_line_is_cut(tmp_path, cli):
    script = tmp_path / "noisy.py"
    script.write_text("import sys\nsys.stderr.write('E' * 300000 + '\\nlast words\\n')\nsys.exit(4)\n")
    result = cli('%s %s' % (sys.executable, script), "tool", "list")
    line = error_line(result)
    assert "… (cut at 4096 of 300000 bytes)" in line and "last words" in line and line.count("E") == 4096, line[:200]


# -- Retry-After ------------------------------------------------------------------------------


def test_retry_after_is_honoured_once_within_the_deadline(cli, bad):
    target = bad("http", MODERN, "retry-after")
    result = cli(*target.args, "--timeout", 10, "tool", "list")
    assert result.code == 0 and result.out.startswith("echo"), result
    lists = [m for m in target.messages("tools/list")]
    assert len(lists) == 2, target.records()


def test_retry_after_is_shown_when_it_does_not_help(cli, bad):
    target = bad("http", MODERN, "http-5xx")
    result = cli(*target.args, "--timeout", 10, "tool", "list")
    line = error_line(result)
    assert "HTTP 503" in line and "Retry-After: 1s" in line, line
    assert len(target.messages("tools/list")) == 2, target.records()  # one retry, then the error


def test_retry_after_longer_than_the_timeout_is_not_waited_for(cli, bad):
    target = bad("http", MODERN, "http-5xx")
    result = cli(*target.args, "--timeout", 0.8, "tool", "list")
    assert "Retry-After: 1s" in error_line(result), result
    assert len(target.messages("tools/list")) == 1, target.records()


# -- process groups ---------------------------------------------------------------------------


@pytest.mark.skipif(os.name == "nt", reason="POSIX process groups")
def test_stopping_a_stdio_server_stops_its_children(cli, bad, tmp_path):
    pid_file = tmp_path / "child.pid"
    result = cli(*bad("stdio", MODERN, "spawn-child", "--pid-file", pid_file).args, "tool", "list")
    assert result.code == 0, result
    child = int(pid_file.read_text())
    wait_for(lambda: not process_alive(child), what="the end of the server's child %d" % child)


def test_closing_a_stdio_server_survives_windows_failing_ctrl_break(monkeypatch):
    """On Windows a server that outlives the end of its input gets CTRL_BREAK_EVENT. With no
    console shared with it (a detached keeper; the TUI under Wine, where the Windows leg's `q`
    ended in "internal error: SystemError"), CPython's os.kill falls back to TerminateProcess and
    then raises SystemError. Closing must carry on: the server is ended either way."""
    import mcp_tui

    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdin=subprocess.PIPE)

    def send_signal_as_windows_cpython(sig):
        os.kill(server.pid, signal.SIGTERM)  # os.kill's fallback: TerminateProcess
        raise SystemError("<built-in function kill> returned a result with an exception set")

    transport = mcp_tui.StdioTransport(["server"])
    transport.process = server
    monkeypatch.setattr(server, "send_signal", send_signal_as_windows_cpython)
    monkeypatch.setattr(signal, "CTRL_BREAK_EVENT", 1, raising=False)
    monkeypatch.setattr(os, "name", "nt")
    try:
        transport.close(grace=0.2)
    finally:
        monkeypatch.undo()
    assert server.wait(10) == -signal.SIGTERM


class Interrupted(BaseException):
    """What a SIGTERM or Ctrl+C handler raises on the main thread (mcp_tui.Terminated's part)."""


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="a POSIX signal plays the interrupt")
def test_an_interrupt_that_lands_while_the_server_starts_still_stops_it(monkeypatch):
    """A SIGTERM that arrived after Popen's fork but before Popen returned raised inside it on
    the main thread: the child was lost, so closing the session left it running (CI saw the
    server's group alive after `mcp-tui: terminated by SIGTERM`). Here the signal is sent from
    inside Popen, as soon as the child exists, and Popen returns only once the main thread has
    been interrupted: closing must still wait for it (on CPython 3.11 a Thread.join that a
    signal interrupted marks the thread ended, and close() stopped nothing; CI, SIGHUP)."""
    import threading

    import mcp_tui

    started, interrupted = [], threading.Event()
    real_popen = subprocess.Popen

    def popen_then_signalled(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        os.kill(os.getpid(), signal.SIGUSR1)  # handled on the main thread at its next instruction
        interrupted.wait(10)
        return started[-1]

    def interrupt(signum, frame):
        interrupted.set()
        raise Interrupted()

    previous = signal.signal(signal.SIGUSR1, interrupt)
    monkeypatch.setattr(subprocess, "Popen", popen_then_signalled)
    transport = mcp_tui.StdioTransport([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(Interrupted):
            transport.start(channel=None)
    finally:
        signal.signal(signal.SIGUSR1, previous)
        monkeypatch.undo()
    try:
        transport.close(grace=0.2)
        assert started[0].wait(10) in (-signal.SIGTERM, -signal.SIGKILL)  # stopped by close(), not left
    finally:
        if started[0].poll() is None:
            started[0].kill()
            started[0].wait()


def test_why_a_server_ended_waits_for_what_it_printed_before_exiting(monkeypatch):
    """A write that fails (the server has exited) says why the server ended; the line it
    printed on stdout just before may not have been read yet by then. CI saw "exited with
    code 3" without the "before that it wrote ..." the reader was about to record. Here the
    reader is held until the failing side asks."""
    import mcp_tui

    class Channel(object):
        def __getattr__(self, name):
            return lambda *args, **kwargs: None

    gate = threading.Event()
    read_stdout = mcp_tui.StdioTransport._read_stdout
    monkeypatch.setattr(mcp_tui.StdioTransport, "_read_stdout",
                        lambda self: gate.wait(30) and read_stdout(self))
    transport = mcp_tui.StdioTransport([sys.executable, "-c", "print('Starting... early', flush=True); exit(3)"])
    transport.start(Channel())
    transport.process.wait(30)
    gate.set()
    described = transport.ended_description()
    transport.close()
    assert described.startswith("the server process exited with code 3; before that it wrote"), described
    assert "Starting... early" in described, described
