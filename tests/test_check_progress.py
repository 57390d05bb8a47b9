"""The progress line of `check` and `tool call --load`: on a terminal, one line on stderr
rewritten in place while the rules (or the calls) run, and erased before the report; on a
pipe, none of it. stderr is a real pseudo-terminal here; what reached it is replayed on a
pyte screen to see what a user is left with."""
import os
import select
import subprocess
import sys
import time

import pyte
import pytest

from conftest import MCP_TUI_PROCESS, ROOT, stdio_command

pytestmark = [pytest.mark.process,
              pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")]
CLEAR = b"\r\x1b[K"


def on_a_terminal(state_dir, *args):
    """(exit code, stdout, the bytes stderr wrote) with stderr on a pty of 100 columns."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    with subprocess.Popen(MCP_TUI_PROCESS + [str(a) for a in args], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=slave, env=environ, cwd=str(ROOT)) as proc:
        os.close(slave)
        try:
            seen = read_to_the_end(master)
            out = proc.stdout.read()
            code = proc.wait(30)
        except BaseException:
            proc.kill()
            raise
        finally:
            os.close(master)
    return code, out.decode("utf-8"), seen


def read_to_the_end(master, seconds=60):
    """Everything written to the pty until its last writer closes it (or ``seconds`` pass)."""
    seen = bytearray()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the last writer closed: EIO on Linux
            break
        if not chunk:
            break
        seen.extend(chunk)
    return bytes(seen)


def screen_of(data):
    screen = pyte.Screen(100, 24)
    stream = pyte.ByteStream(screen)
    stream.feed(data.replace(b"\n", b"\r\n"))  # what the pty's onlcr does for a real terminal
    return "\n".join(line.rstrip() for line in screen.display).strip()


def test_check_shows_a_progress_line_on_a_terminal_and_erases_it(state_dir):
    code, out, err = on_a_terminal(state_dir, stdio_command(), "check")
    assert code == 0, (out, err)
    assert CLEAR + "⏳ checking tools...".encode("utf-8") in err, err
    assert b"rules run" in err and b"findings" in err, err
    assert err.endswith(CLEAR), err  # the last word: the line erased
    assert b"\n" not in err, err  # rewritten in place, never a line of its own
    assert screen_of(err) == "", screen_of(err)
    assert out.startswith("Checked mcp-tui test server") and "0 errors" in out.splitlines()[-1], out


def test_check_on_a_pipe_shows_no_progress(cli):
    result = cli(stdio_command(), "check", process=True)
    assert result.code == 0, result
    assert result.err == "", result.err  # nor "checking tools..." lines


def test_load_shows_a_progress_line_on_a_terminal_and_erases_it(state_dir):
    # 40 calls at most 20 a second: about two seconds, so the line is rewritten on the way
    code, out, err = on_a_terminal(state_dir, stdio_command(), "tool", "call", "echo", "message=hi", "--load",
                                   "--load-requests", "40", "--load-rate", "20")
    assert code == 0, (out, err)
    assert CLEAR + "⏳ calling echo...".encode("utf-8") in err, err
    assert err.count(CLEAR + "⏳ ".encode("utf-8")) >= 2 and b"calls/s" in err, err
    assert err.endswith(CLEAR), err
    assert "⏳" not in screen_of(err), screen_of(err)
    assert "requests     40" in out, out


def test_load_on_a_pipe_shows_no_progress_line(cli):
    result = cli(stdio_command(), "tool", "call", "echo", "message=hi", "--load", "--load-requests", "40",
                 "--load-rate", "20", process=True)
    assert result.code == 0, result
    assert "⏳" not in result.err and "\r" not in result.err and "\x1b" not in result.err, result.err


def test_a_server_silent_at_start_gets_one_line_saying_what_mcp_tui_waits_for(state_dir):
    """A silent stdio server took the whole --timeout (65 s by default) with nothing shown."""
    silent = "%s -c 'import time; time.sleep(60)'" % sys.executable
    code, out, err = on_a_terminal(state_dir, silent, "--protocol-version", "2025-11-25", "--timeout", "7", "tool",
                                   "list")
    assert code == 1 and out == "", (out, err)
    waiting = "waiting for the server to answer (Ctrl+C to stop): %s" % silent
    assert CLEAR + waiting[:90].encode("utf-8") in err, err  # cut to the terminal's 100 columns
    assert screen_of(err).startswith("mcp-tui: no answer"), screen_of(err)  # erased: the error alone is left


def test_no_waiting_line_on_a_pipe(cli):
    silent = "%s -c 'import time; time.sleep(60)'" % sys.executable
    result = cli(silent, "--protocol-version", "2025-11-25", "--timeout", "6", "tool", "list", process=True)
    assert result.code == 1 and "waiting for" not in result.err, result
