"""Section 7: reading the command line. A common command line is read from CLI_OPTIONS
without argparse (parse_common_command_line); argparse reads the rest. The two readers
must agree wherever the quick one answers, and the quick one must answer for the command
lines people type most."""
import contextlib
import io
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import mcp_tui

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FLAGS = sorted(flag for _, options in mcp_tui.CLI_OPTIONS for flags, _ in options for flag in flags)
VALUES = ["", "-", "-1", "--", "x", "a=b", "json", "text", "3", "0", "1.5", "-2.5", "64M", "0K", "abc", "auto",
          "2025-11-25", "2026-07-28", "debug", "client_credentials", "é", " -x", "-x y", "--url", "-H",
          "Authorization: Bearer t0k3n", "http://127.0.0.1:1/mcp", "=x", "1e3", "nan"]
WORDS = ["tool", "list", "call", "echo", "message=hi", "n:=3", "task", "get", "-", "--", "-h", "--help",
         "--version", "-q", "-qH", "-Hx", "--ur", "--url=", "--format=json", "--format=yaml", "--no-cache=1",
         "--timeout=-1", "--args=-y", "-H=A: b", "", "@work", "-5"]

token = st.one_of(st.sampled_from(FLAGS), st.sampled_from(VALUES), st.sampled_from(WORDS),
                  st.builds(lambda flag, value: flag + "=" + value, st.sampled_from(FLAGS), st.sampled_from(VALUES)))


def argparse_reading(argv):
    """What argparse makes of argv: its values, or None when it refuses or exits (--help)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return vars(mcp_tui.build_parser().parse_intermixed_args(argv))
    except (mcp_tui.UsageError, SystemExit):
        return None


def same(values, others):
    """Equal, where NaN equals NaN (--timeout nan reads as NaN both ways)."""
    return others is not None and repr(sorted(values.items())) == repr(sorted(others.items()))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(token, max_size=8))
@example(["--args=-y", "tool", "list"])
@example(["--url=", "tool", "list"])
@example(["--timeout", "nan", "tool", "list"])
def test_the_quick_reader_agrees_with_argparse_wherever_it_answers(argv):
    quick = mcp_tui.parse_common_command_line(argv)
    if quick is not None:
        assert same(vars(quick), argparse_reading(argv)), argv


@pytest.mark.parametrize("argv", [
    ["--url", "http://127.0.0.1:8000/mcp", "tool", "list"],
    ["--url", "http://127.0.0.1:8000/mcp", "tool", "call", "echo", "message=hi"],
    ["--cmd", "python3", "--args", "tests/testserver.py", "tool", "call", "render_report", "quarter=Q4", "--task"],
    ["task", "get", "4f1d7c2e", "--format", "json"],
    ["--url", "http://127.0.0.1:8000/mcp", "-H", "X-Team: blue", "--bearer", "t0k3n", "--timeout", "5",
     "tool", "call", "render_report", "quarter=Q4", "--task", "--wait", "-q"],
    ["--config", "servers.json", "--server", "docs", "resource", "read", "file:///a.txt", "--max-message-size", "1M"],
    ["task", "update", "4f1d7c2e", "--input-responses", '{"confirm": {"action": "accept"}}'],
    ["@work", "tool", "list"],
    ["--url=http://127.0.0.1:8000/mcp", "--format=json", "tool", "list"],
])
def test_common_command_lines_skip_argparse_and_read_as_argparse_reads_them(argv):
    quick = mcp_tui.parse_common_command_line(argv)
    assert quick is not None, argv
    assert same(vars(quick), argparse_reading(argv))


@pytest.mark.parametrize("argv, message", [
    (["--timeout", "soon", "tool", "list"], "mcp-tui: argument --timeout: invalid float value: 'soon'"),
    (["--format", "yaml", "tool", "list"], "mcp-tui: argument --format: invalid choice: 'yaml'"),
    (["--args", "-y", "tool", "list"], "mcp-tui: argument --args: expected one argument"),
    (["--no-cache=1", "tool", "list"], "mcp-tui: argument --no-cache: ignored explicit argument '1'"),
    (["--zzzz", "x", "tool", "list"], "mcp-tui: unrecognized arguments: --zzzz"),  # --urll: did you mean
])
def test_a_mistake_is_still_worded_by_argparse(argv, message):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "mcp_tui.py")] + argv, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(message), proc.stderr
    assert proc.stderr.rstrip().endswith("(see mcp-tui --help)")
    assert len(proc.stderr.splitlines()) == 1


def test_help_comes_from_argparse():
    help_text = subprocess.run([sys.executable, os.path.join(ROOT, "mcp_tui.py"), "--help"], capture_output=True,
                               text=True, timeout=30).stdout
    for _, options in mcp_tui.CLI_OPTIONS:
        for flags, settings in options:
            assert flags[-1] in help_text
    assert "authorization (OAuth, when an HTTP server asks for it; --bearer wins)" in help_text


def test_version_alone_is_printed_without_argparse_and_as_argparse_prints_it_among_other_flags():
    code = ("import sys, runpy; sys.argv = ['mcp-tui'] + sys.argv[1:]\n"
            "try:\n runpy.run_path(%r, run_name='__main__')\nexcept SystemExit: pass\n"
            "print('argparse' in sys.modules)" % os.path.join(ROOT, "mcp_tui.py"))
    alone = subprocess.run([sys.executable, "-I", "-c", code, "--version"], capture_output=True, text=True,
                           timeout=30)
    among = subprocess.run([sys.executable, "-I", "-c", code, "-q", "--version"], capture_output=True, text=True,
                           timeout=30)
    assert re.match(r"^mcp-tui \d+\.\d+\.\d+\nFalse\n$", alone.stdout), alone
    assert among.stdout == alone.stdout.replace("False", "True"), among


def test_a_server_command_line_with_flags_left_unquoted_gets_the_quoted_one():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "mcp_tui.py"), "npx", "-y", "@scope/server", "tool",
                           "list"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.rstrip().endswith("(quote the server's whole command line as one argument: "
                                         "mcp-tui 'npx -y @scope/server' tool list)"), proc.stderr


@pytest.mark.parametrize("args, hint", [
    (["tool", "list", "--fromat", "json"], "(did you mean '--format'?)"),
    (["tool", "list", "--fromat=json"], "(did you mean '--format'?)"),
    (["--timeout", "5", "tool", "call", "echo", "message=hi", "--wiat"], "(did you mean '--wait'?)"),
    (["tool", "list", "--zzzzz"], "(see mcp-tui --help)"),
])
def test_a_mistyped_flag_after_a_quoted_server_gets_the_closest_flag_not_a_quoting_hint(args, hint):
    """The server's command line is one argument already; the hint names the flag meant."""
    server = "%s %s" % (sys.executable, os.path.join(ROOT, "tests", "testserver.py"))
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "mcp_tui.py"), server] + args, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("mcp-tui: unrecognized arguments: "), proc.stderr
    assert proc.stderr.rstrip().endswith(hint), proc.stderr
    assert "quote the server" not in proc.stderr
