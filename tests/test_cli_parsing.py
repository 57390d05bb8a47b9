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
from conftest import MCP_TUI_PROCESS

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
    proc = subprocess.run(MCP_TUI_PROCESS + argv, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith(message), proc.stderr
    assert proc.stderr.rstrip().endswith("(see mcp-tui --help)")
    assert len(proc.stderr.splitlines()) == 1


def test_help_options_comes_from_argparse_and_names_every_option():
    help_text = subprocess.run(MCP_TUI_PROCESS + ["help", "options"],
                               capture_output=True, text=True, timeout=30).stdout
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
    proc = subprocess.run(MCP_TUI_PROCESS + ["npx", "-y", "@scope/server", "tool",
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
    proc = subprocess.run(MCP_TUI_PROCESS + [server] + args, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("mcp-tui: unrecognized arguments: "), proc.stderr
    assert proc.stderr.rstrip().endswith(hint), proc.stderr
    assert "quote the server" not in proc.stderr


# -- the command table: dispatch, help, did-you-mean and flag checks read COMMANDS -----------------

LEAVES = [leaf for top in mcp_tui.COMMANDS for leaf in top.leaves()]


def run_help(*argv, env=None):
    environ = dict(os.environ, **(env or {}))
    environ.pop("COLUMNS", None)
    return subprocess.run(MCP_TUI_PROCESS + list(argv), capture_output=True,
                          text=True, timeout=30, env=environ)


def test_help_fits_one_screen_and_names_every_command():
    shown = run_help("--help")
    assert (shown.returncode, shown.stderr) == (0, ""), shown
    lines = shown.stdout.splitlines()
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 80, shown.stdout
    assert lines[0] == "usage: mcp-tui [connection] [command ...] [options]"
    for top in mcp_tui.COMMANDS:
        assert any(line.startswith("  %s " % top.name) for line in lines), top.name
    for flag in mcp_tui.MOST_USED_OPTIONS:
        assert any(line.startswith("  " + flag) or (", " + flag) in line for line in lines), flag
    assert "help options" in shown.stdout and "help COMMAND" in shown.stdout
    assert run_help("-h").stdout == shown.stdout
    assert run_help("help").stdout == shown.stdout  # not a server named "help"
    assert run_help("--url", "http://127.0.0.1:9/mcp", "--help").stdout == shown.stdout


@pytest.mark.parametrize("top", [top.name for top in mcp_tui.COMMANDS])
def test_each_command_has_a_help_of_its_own_under_80_columns(top):
    asked = run_help("help", top)
    assert (asked.returncode, asked.stderr) == (0, ""), asked
    assert max(len(line) for line in asked.stdout.splitlines()) <= 80, asked.stdout
    command = next(c for c in mcp_tui.COMMANDS if c.name == top)
    for leaf in command.leaves():
        assert leaf.usage.split()[0] in asked.stdout and leaf.summary in " ".join(asked.stdout.split()), leaf.usage
        for flag in leaf.flags:
            assert flag in asked.stdout, (leaf.usage, flag)
    assert run_help(top, "--help").stdout == asked.stdout


def test_a_subcommand_s_help_shows_that_subcommand_and_a_server_before_it_is_not_started():
    shown = run_help("python3 -c 'import sys; sys.exit(9)'", "tool", "call", "--help")
    assert shown.returncode == 0, shown
    assert shown.stdout.startswith("tool call: ") and "--load-requests N" in shown.stdout
    assert "tool describe" not in shown.stdout
    check = run_help("check", "-h")
    assert "--call-readonly" in check.stdout and "--load" not in check.stdout


def test_help_of_an_unknown_word_says_the_closest_one():
    wrong = run_help("help", "opts")
    assert (wrong.returncode, wrong.stdout) == (2, ""), wrong
    assert wrong.stderr == "mcp-tui: no help on 'opts': help takes a command or options (did you mean 'options'?)\n"


@pytest.mark.parametrize("argv", [["-V"], ["--version"], ["version"], ["-q", "-V"]])
def test_the_version_has_three_spellings(argv):
    shown = run_help(*argv)
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, mcp_tui.VERSION_LINE + "\n", ""), shown


def mistyped(word):
    return word[:-1] if len(word) > 3 else word + "x"


@pytest.mark.parametrize("words", [[leaf.path[0], mistyped(leaf.path[1])] for leaf in LEAVES if len(leaf.path) > 1]
                         + [["session", "opn", "x"], ["auth", "statuss"]])
def test_every_mistyped_subcommand_gets_did_you_mean(cli, words):
    result = cli(*words)
    top = next(c for c in mcp_tui.COMMANDS if c.name == words[0])
    meant = mcp_tui.did_you_mean(words[1], [sub.name for sub in top.leaves()], None)
    assert (result.code, result.out) == (2, ""), result
    assert result.err == "mcp-tui: unknown %s command %r: expected one of: %s (%s)\n" % (
        words[0], words[1], ", ".join(sub.name for sub in top.leaves()), meant), result
    assert meant is not None


@pytest.mark.parametrize("top", [top.name for top in mcp_tui.COMMANDS if len(top.name) > 3])
def test_every_mistyped_command_gets_did_you_mean(cli, top):
    result = cli("--url", "http://127.0.0.1:9/mcp", mistyped(top))  # alone, a word is a stdio server
    assert (result.code, result.out) == (2, ""), result
    assert result.err.endswith("(did you mean %r?)\n" % top), result


@pytest.mark.parametrize("words, takers", [
    (["check", "--load"], "--load goes with tool call, not with 'check'"),
    (["resource", "list", "--load-requests", "5"], "--load-requests goes with tool call, not with 'resource list'"),
    (["tools", "list", "--task"], "--task goes with tool call, not with 'tools list'"),
    (["session", "list", "--idle", "5"], "--idle goes with session open, not with 'session list'"),
    (["auth", "status", "--all"], "--all goes with session close or auth logout, not with 'auth status'"),
    (["watch", "--strict"], "--strict goes with mock or check, not with 'watch'"),
    (["ping", "--require-digests"], "--require-digests goes with skill verify or skill fetch, not with 'ping'"),
    (["server", "--dry-run"], "--dry-run previews the request of tool call, prompt get, resource read, complete, "
                              "rpc, tap install or tap uninstall, not of 'server'"),
])
def test_a_flag_another_command_takes_is_a_usage_error_naming_the_commands_that_take_it(cli, words, takers):
    """They were accepted and ignored: `check --load` ran a plain check, exit 0. Nothing is
    sent: the URL below answers nothing, and an attempt would be exit 1."""
    result = cli("--url", "http://127.0.0.1:9/mcp", *words)
    assert (result.code, result.out, result.err) == (2, "", "mcp-tui: %s\n" % takers), result


def test_the_table_is_whole():
    """Each command's flags are options of CLI_OPTIONS, each one that runs has a handler, and
    each flag a command calls its own is taken by some command."""
    flags = {flags[0] for _, options in mcp_tui.CLI_OPTIONS for flags, _ in options}
    for leaf in LEAVES:
        assert callable(leaf.handler), leaf.path
        assert set(leaf.flags) <= flags, leaf.path
        assert leaf.usage.startswith(" ".join(leaf.path)) or leaf.usage.startswith("--url URL " + " ".join(leaf.path))
        assert max(len(line) for line in [leaf.summary]) <= 66, leaf.summary
    words = mcp_tui.command_words()
    assert len(words) == len(set(words))
    assert mcp_tui.find_command(["tools", "list"])[0] is mcp_tui.find_command(["tool", "list"])[0]
    assert mcp_tui.find_command(["rpc", "ping", "{}"])[1] == ["ping", "{}"]


def readme_command_list():
    """The README's list of commands, as the table makes it."""
    lines = []
    for leaf in LEAVES:
        lines += ["mcp-tui " + leaf.usage, "    " + leaf.summary]
    return "\n".join(lines) + "\n"


def test_the_readme_lists_the_table_s_commands():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    assert "```text\n" + readme_command_list() + "```" in readme, readme_command_list()
