"""Portability: Python 3.8 syntax and stdlib only, and a cheap start-up."""
import os
import subprocess
import sys
from pathlib import Path

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
