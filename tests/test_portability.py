"""Portability: Python 3.8 syntax and stdlib only, and a cheap start-up."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MCP_TUI, ROOT


def vermin(path):
    script = Path(sys.executable).parent / ("vermin.exe" if os.name == "nt" else "vermin")
    return subprocess.run([str(script), "--no-tips", "--violations", "--target=3.8-", "--eval-annotations",
                           str(path)], capture_output=True, text=True)


def test_vermin_says_python_3_8_is_enough():
    proc = vermin(MCP_TUI)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_vermin_check_does_catch_newer_syntax(tmp_path):
    newer = tmp_path / "newer.py"
    newer.write_text("def f(x: int | None):\n    match x:\n        case _:\n            return x\n")
    assert vermin(newer).returncode != 0


def test_the_file_parses_as_python_3_6_so_the_version_check_can_speak():
    """Python 3.6 and 3.7 compile the whole file before its first line runs: 3.8-only syntax
    (walrus, positional-only parameters, f"{x=}") would be a SyntaxError there instead of the
    one line below. Library names newer than 3.6 are fine: they are reached after the check."""
    import ast

    ast.parse(MCP_TUI.read_text(encoding="utf-8"), feature_version=(3, 6))
    script = Path(sys.executable).parent / ("vermin.exe" if os.name == "nt" else "vermin")
    proc = subprocess.run([str(script), "--no-tips", "--violations", "--target=3.6-", str(MCP_TUI)],
                          capture_output=True, text=True)
    findings = [line.strip() for line in proc.stdout.splitlines() if line.startswith("  ")]
    syntax = [line for line in findings if not re.match(r"'[\w.]+' (member|module|function) requires", line)]
    assert syntax == [], proc.stdout


@pytest.mark.parametrize("version", [(3, 6, 15), (3, 7, 17)])
def test_python_3_6_and_3_7_get_one_line_not_a_traceback(version):
    """As an old Python runs the file (its version faked: none is installed here)."""
    code = ("import sys, runpy; sys.version_info = %r; sys.argv = ['mcp-tui', '--help']\n"
            "runpy.run_path(%r, run_name='__main__')" % (version + ("final", 0), str(MCP_TUI)))
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert (proc.returncode, proc.stdout) == (1, ""), proc
    assert proc.stderr == "mcp-tui needs Python 3.8 or newer; this is Python %s (%s)\n" % (
        ".".join(map(str, version)), sys.executable), proc.stderr


def test_runs_with_the_standard_library_alone():
    proc = subprocess.run([sys.executable, "-I", "-S", str(MCP_TUI), "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "usage: mcp-tui" in proc.stdout


def test_help_does_not_import_the_tui_tls_or_network():
    code = ("import sys, runpy; sys.argv=['mcp-tui','--help']\n"
            "try:\n runpy.run_path(%r, run_name='__main__')\nexcept SystemExit: pass\n"
            "bad=[m for m in ('curses','_curses','ssl','asyncio','http.client','subprocess') if m in sys.modules]\n"
            "print('IMPORTED:' + ','.join(bad))" % str(MCP_TUI))
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=str(ROOT))
    assert "IMPORTED:\n" in proc.stdout, proc.stdout[-300:]


# What `tool list` over HTTP may import beyond what the floor client (tests/bench/floor_client.py:
# http.client, json, the same two POSTs) imports. A new module here is start-up time on the CLI's
# common path: import it where it is used instead, or add it here on purpose.
TOOL_LIST_EXTRA_MODULES = {"threading", "_weakrefset",
                           "_sha256", "_sha2", "fcntl", "msvcrt",  # fingerprints and cache keys; the cache's lock
                           "signal"}  # SIGTERM and SIGHUP end a run as Ctrl+C does (a wrapper of the builtin _signal)


def imported_modules(argv, env):
    """Every module a run imports, worker threads included (from -X importtime)."""
    proc = subprocess.run([sys.executable, "-I", "-X", "importtime"] + argv, capture_output=True, text=True,
                          cwd=str(ROOT), env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", proc.stderr, re.M))


def test_tool_list_over_http_imports_little_beyond_the_floor_client(start_server, state_dir):
    server = start_server()
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    mcp_tui = imported_modules([str(MCP_TUI), "--url", server.url, "tool", "list"], env)
    floor = imported_modules([str(ROOT / "tests" / "bench" / "floor_client.py"), "--url", server.url, "list"], env)
    extra = mcp_tui - floor
    assert "fcntl" in extra or "msvcrt" in extra  # the measurement sees mcp-tui's own imports
    assert "argparse" not in mcp_tui  # a common command line is read without it (section 7)
    assert extra <= TOOL_LIST_EXTRA_MODULES, "new modules on the tool list path: %s" % sorted(
        extra - TOOL_LIST_EXTRA_MODULES)


@pytest.mark.skipif(os.name != "nt", reason="Windows finds a bare program name's .cmd only through PATHEXT")
def test_a_stdio_server_started_by_a_cmd_file_is_found_on_windows(cli, tmp_path):
    """`npx` is npx.cmd on Windows; without a shell, CreateProcess finds only .exe files."""
    launcher = tmp_path / "fakeserver.cmd"
    launcher.write_text('@echo off\r\n"%s" "%s" %%*\r\n' % (sys.executable, ROOT / "tests" / "testserver.py"))
    env = {"PATH": str(tmp_path) + os.pathsep + os.environ.get("PATH", "")}
    result = cli("fakeserver", "tool", "list", env=env)
    assert result.code == 0 and "echo (Echo)" in result.out, result


def test_every_measured_duration_uses_perf_counter():
    """Issue 34 item 6: time.monotonic ticks in 16 ms on Windows (--load showed p50 5.00 ms where
    Linux showed 0.60); perf_counter is the high-resolution clock everywhere. One clock for
    durations and deadlines alike, so that no two are ever compared across clocks."""
    source = (ROOT / "mcp_tui.py").read_text(encoding="utf-8")
    assert "time.monotonic" not in source
