"""Which browser OAuth's browser step starts (issue 44 item 4, issue 46 item 4): never one
that needs the terminal. $BROWSER is tried once, without a shell and without falling back;
else the system's opener only where a graphical browser can show (here: a DISPLAY); else
none, and the URL is printed (CLI) or shown on the Authorize screen (TUI). Whatever starts
is detached from mcp-tui's terminal: its output never reaches mcp-tui's stdout.

conftest's console_browsers puts fake www-browser, lynx, w3m, ... first on PATH for every
test and fails any test in which one ran; these tests look at its marker themselves too."""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import MCP_TUI_PROCESS, ROOT, wait_for
from tui_helpers import needs_pty, tui  # noqa: F401 (tui: a fixture)

FETCH_URL_DIR = ROOT / "tests" / "interop"
pytestmark = pytest.mark.skipif(os.name != "posix", reason="fake browsers are POSIX shell scripts and a DISPLAY")

# A graphical browser's stand-in: notes whether it could reach a terminal, writes screen codes to
# its stdout and stderr (as lynx does), then follows the URL as a signed-in user's browser would.
NOISY_BROWSER = r"""
import json, os, sys
sys.path.insert(0, %(interop)r)
import fetch_url
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    terminal = "has a terminal"
except OSError:
    terminal = "no terminal"
with open(%(record)r, "a") as record:
    record.write(json.dumps({"argv": sys.argv[1:], "terminal": terminal, "stdinTty": os.isatty(0)}) + "\n")
sys.stdout.write("\x1b[?1049h\x1b[2Jnoisy browser drew here\n")
sys.stdout.flush()
sys.stderr.write("\x1b[31mnoisy browser complains\n")
sys.stderr.flush()
sys.exit(fetch_url.main(sys.argv[-1]))
"""


def noisy_browser(tmp_path, name="noisy_browser.py"):
    """(the script's path, its record file)."""
    record = tmp_path / "browser-record.jsonl"
    script = tmp_path / name
    script.write_text(NOISY_BROWSER % {"interop": str(FETCH_URL_DIR), "record": str(record)})
    return script, record


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def timed(cli, *args, **options):
    started = time.monotonic()
    result = cli(*args, **options)
    return result, time.monotonic() - started


def test_without_a_display_the_cli_starts_no_browser_and_ends_at_once_with_the_url(cli, start_server,
                                                                                no_console_browser):
    """A server box: no DISPLAY, no $BROWSER, www-browser and lynx on PATH. Nobody could open
    the URL, so the run ends with it (exit 1) instead of waiting out --timeout 60."""
    server = start_server("--auth")
    out, seconds = timed(cli, "--url", server.url, "--timeout", "60", "tool", "list", process=True, timeout=50)
    assert out.code == 1, out
    assert seconds < 30, seconds  # well inside --timeout 60: at once, not at the end of the wait
    assert out.out == "" and "\x1b" not in out.err, out
    last = out.err.strip().splitlines()[-1]
    assert last.startswith("mcp-tui: the browser did not start; to authorize at 127.0.0.1:"), out
    assert "open this URL in a browser: http://127.0.0.1:" in last and "/authorize?" in last
    assert "no display for a graphical browser" in last and "--no-browser" in last, last
    assert "in your browser" not in out.err, out  # it did not claim to open one
    assert not no_console_browser.exists(), no_console_browser.read_text()


def test_without_a_display_a_json_run_gives_the_url_in_its_error_and_a_clean_stdout(cli, start_server,
                                                                                  no_console_browser):
    server = start_server("--auth")
    out = cli("--url", server.url, "--format", "json", "--timeout", "60", "tool", "list", process=True, timeout=50)
    assert out.code == 1, out
    assert out.out == "", out
    error = json.loads(out.err)["error"]
    assert "the browser did not start" in error["message"] and "/authorize?" in error["message"], error
    assert not no_console_browser.exists()


def test_a_browsers_own_output_never_reaches_the_json_output(cli, start_server, tmp_path, no_console_browser):
    """$BROWSER's program writes screen codes to its stdout and stderr: they go to the null
    device, so the --format json document on mcp-tui's stdout is the document alone."""
    server = start_server("--auth")
    script, record = noisy_browser(tmp_path)
    out = cli("--url", server.url, "--format", "json", "tool", "list", process=True, timeout=60,
              env={"BROWSER": "%s %s %%s" % (sys.executable, script)})
    assert out.code == 0, out
    assert "\x1b" not in out.out and "noisy browser" not in out.out, out
    assert "\x1b" not in out.err and "noisy browser" not in out.err, out
    assert [tool["name"] for tool in out.json()["result"]["tools"]][:1] == ["echo"], out.out[:300]
    (seen,) = records(record)
    assert seen["terminal"] == "no terminal" and seen["stdinTty"] is False, seen  # detached from any terminal
    assert not no_console_browser.exists()


@pytest.mark.parametrize("browser", ["/bin/false", "false %s"])
def test_a_failing_browser_is_noticed_within_a_second_and_nothing_else_is_tried(start_server, state_dir, browser,
                                                                                no_console_browser):
    """BROWSER=/bin/false: tried once; Python's webbrowser went on to www-browser, lynx, ...
    The time from the "authorizing" line to the end is the browser's second, not --timeout."""
    server = start_server("--auth")
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), BROWSER=browser)
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["--url", server.url, "--timeout", "60", "tool", "list"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "authorizing at" in line:
                asked = time.monotonic()
                break
        rest = proc.stderr.read()
        code = proc.wait(30)
        seconds = time.monotonic() - asked
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 1, (lines, rest)
    assert seconds < 5, seconds  # a second's wait, and the machine's load
    last = rest.strip().splitlines()[-1]
    assert last.startswith("mcp-tui: the browser did not start; to authorize at 127.0.0.1:"), rest
    assert "false exited with status 1" in last and "/authorize?" in last, last
    assert not no_console_browser.exists(), no_console_browser.read_text()


@pytest.mark.parametrize("browser", ["lynx", "w3m %s", "www-browser"])
def test_browser_naming_a_console_browser_starts_nothing(cli, start_server, browser, no_console_browser):
    server = start_server("--auth")
    out = cli("--url", server.url, "--timeout", "60", "tool", "list", env={"BROWSER": browser}, timeout=50)
    assert out.code == 1, out
    name = browser.split()[0]
    assert "$BROWSER names %s, a browser that would take the terminal" % name in out.err, out
    assert "/authorize?" in out.err.strip().splitlines()[-1], out
    assert not no_console_browser.exists(), no_console_browser.read_text()


def test_with_a_display_the_desktops_opener_opens_the_url(cli, start_server, tmp_path, no_console_browser):
    """A desktop: DISPLAY set, no $BROWSER: xdg-open (here a stand-in that follows the URL)
    is run, detached, and the authorization completes."""
    server = start_server("--auth")
    desktop = tmp_path / "desktop"
    desktop.mkdir()
    script, record = noisy_browser(tmp_path)
    opener = desktop / "xdg-open"
    opener.write_text("#!/bin/sh\nexec %s %s \"$@\"\n" % (sys.executable, script))
    opener.chmod(0o755)
    out = cli("--url", server.url, "--format", "json", "tool", "list", process=True, timeout=60,
              env={"DISPLAY": ":99", "PATH": str(desktop) + os.pathsep + os.environ["PATH"]})
    assert out.code == 0, out
    assert "\x1b" not in out.out and out.json()["result"]["tools"], out
    (seen,) = records(record)
    assert "/authorize?" in seen["argv"][-1] and seen["terminal"] == "no terminal", seen
    assert not no_console_browser.exists()


@needs_pty
def test_the_tui_without_a_display_shows_the_url_and_why_and_keeps_its_keys(tui, start_server, no_console_browser):
    server = start_server("--auth")
    screen = tui("--url", server.url)
    screen.wait_all("Authorize", "The server needs authorization at 127.0.0.1:", "/authorize?", "Waiting ")
    screen.wait_for("No browser started (no display for a graphical browser")
    assert "console browser drew here" not in screen.text()
    screen.send("esc")  # the keys are the TUI's: Esc cancels
    screen.wait_for("authorization cancelled")
    assert not no_console_browser.exists(), no_console_browser.read_text()


@needs_pty
def test_the_tui_starts_the_browser_off_its_terminal_and_keeps_its_keys(tui, start_server, tmp_path,
                                                                      no_console_browser):
    """The browser gets neither the terminal nor its keys, and its output never lands on the
    screen; the authorization completes and the TUI answers keys after it."""
    server = start_server("--auth")
    script, record = noisy_browser(tmp_path)
    screen = tui("--url", server.url, env={"BROWSER": "%s %s %%s" % (sys.executable, script)})
    screen.wait_for("Tools (")
    (seen,) = wait_for(lambda: records(record))
    assert seen["terminal"] == "no terminal" and seen["stdinTty"] is False, seen
    screen.send("4")
    screen.wait_for("Authorized:   at http://127.0.0.1:")
    assert "noisy browser" not in screen.text() and b"noisy browser" not in bytes(screen.raw)
    assert not no_console_browser.exists()


@needs_pty
def test_a_url_elicitations_open_without_a_display_starts_no_console_browser(tui, tmp_path, no_console_browser):
    """The Open button took the same road: webbrowser, then www-browser (lynx) without a display.
    Now nothing starts: the screen stays and says why (^Y copies the URL); Open again accepts."""
    from test_tui import url_request_shown

    screen = url_request_shown(tui, tmp_path)
    screen.wait_for("Enter presses [ Open in browser ]")
    screen.send("enter")  # the first button: Open in browser
    screen.wait_for(lambda text: "No browser can start here (no display" in screen.status_line(), what="the reason")
    assert "Open a URL?" in screen.title_line()  # the screen stays: ^Y copies the URL to open elsewhere
    screen.send("enter")  # Open again: opened elsewhere
    screen.wait_for("URL answer: accept")
    assert not no_console_browser.exists(), no_console_browser.read_text()
