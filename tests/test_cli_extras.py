"""What users of curl and of the Inspector CLI expect of the CLI: -o FILE, --meta, CI-safe
auth (--stored-auth-only, a browser that cannot start), shell completion, and output that
keeps its data when the pipe closes or the encoding is not UTF-8. mcp_tui.py runs as a
subprocess against tests/testserver.py."""
import base64
import json
import re
import sys
from pathlib import Path

import pytest

from conftest import MCP_TUI_PROCESS, ROOT, stdio_command

BADSERVER = ROOT / "tests" / "badserver.py"

FETCH_URL = ROOT / "tests" / "interop" / "fetch_url.py"
BROWSER = "%s %s %%s" % (sys.executable, FETCH_URL)  # a "browser" that follows the authorization URL

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# -- -o FILE / --output FILE ---------------------------------------------------------------

def test_output_file_gets_the_text_of_a_text_result_and_stdout_stays_empty(cli, tmp_path):
    target = tmp_path / "out.txt"
    result = cli(stdio_command(), "tool", "call", "echo", "message=hello 🙂", "-o", target)
    assert result.code == 0, result
    assert result.out == ""
    assert target.read_bytes() == "hello 🙂".encode("utf-8")
    assert "Wrote %d bytes (text) to %s" % (len("hello 🙂".encode("utf-8")), target) in result.err


def test_output_file_gets_the_decoded_bytes_of_a_single_image(cli, tmp_path):
    target = tmp_path / "x.png"
    result = cli(stdio_command(), "tool", "call", "get_image", "--output", target)
    assert result.code == 0, result
    assert result.out == ""
    data = target.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert "Wrote %d bytes (image/png) to %s" % (len(data), target) in result.err.splitlines()


def test_output_file_replaces_an_existing_file_as_curl_does(cli, tmp_path):
    target = tmp_path / "x.png"
    target.write_bytes(b"old contents, longer than the new ones would be if they were appended" * 10)
    result = cli(stdio_command(), "tool", "call", "get_image", "-o", target)
    assert result.code == 0, result
    assert target.read_bytes().startswith(PNG_MAGIC)


def test_output_file_with_format_json_gets_the_json_document(cli, tmp_path):
    target = tmp_path / "result.json"
    result = cli(stdio_command(), "tool", "call", "echo", "message=中文", "--format", "json", "-o", target)
    assert result.code == 0, result
    assert result.out == ""
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["result"]["content"][0]["text"] == "中文"


def test_resource_read_writes_a_blob_decoded_and_rpc_writes_json(cli, tmp_path):
    listed = cli(stdio_command(), "resource", "list", "--format", "json").json()["result"]["resources"]
    png = next(r for r in listed if r.get("mimeType") == "image/png")
    target = tmp_path / "logo.png"
    result = cli(stdio_command(), "resource", "read", png["uri"], "-o", target)
    assert result.code == 0, result
    assert result.out == ""
    served = cli(stdio_command(), "resource", "read", png["uri"], "--format", "json").json()["result"]["contents"][0]
    assert target.read_bytes() == base64.b64decode(served["blob"])

    rpc_target = tmp_path / "tools.json"
    result = cli(stdio_command(), "rpc", "tools/list", "-o", rpc_target)
    assert result.code == 0, result
    assert result.out == ""
    assert "echo" in [tool["name"] for tool in json.loads(rpc_target.read_text(encoding="utf-8"))["tools"]]


def test_prompt_get_writes_the_text_stdout_would_show(cli, tmp_path):
    shown = cli(stdio_command(), "prompt", "get", "greeting", "name=Ada")
    assert "Ada" in shown.out, shown
    target = tmp_path / "prompt.txt"
    result = cli(stdio_command(), "prompt", "get", "greeting", "name=Ada", "-o", target)
    assert result.code == 0, result
    assert result.out == ""
    assert target.read_text(encoding="utf-8").strip() == shown.out.strip()


def test_output_file_refuses_a_directory_and_commands_without_a_result(cli, tmp_path):
    result = cli(stdio_command(), "tool", "call", "echo", "message=x", "-o", tmp_path)
    assert result.code == 2, result
    assert result.err.strip() == "mcp-tui: -o %s is a directory: give a file name" % tmp_path
    result = cli(stdio_command(), "tool", "list", "-o", tmp_path / "tools.txt")
    assert result.code == 2, result
    assert "-o FILE writes the result of tool call, prompt get, resource read, rpc, snapshot, tap save or skill " \
           "fetch, not of 'tool list'" in result.err
    assert not (tmp_path / "tools.txt").exists()


def test_a_failed_call_leaves_an_existing_output_file_alone(cli, tmp_path):
    target = tmp_path / "keep.txt"
    target.write_text("kept")
    result = cli(stdio_command(), "rpc", "no/such/method", "-o", target)
    assert result.code == 1, result
    assert target.read_text() == "kept"


# -- --meta and --tool-meta ------------------------------------------------------------------

def recorded_requests(record):
    return [json.loads(line)["message"] for line in record.read_text().splitlines()
            if "id" in json.loads(line)["message"] and "method" in json.loads(line)["message"]]


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_meta_reaches_the_server_in_every_request_beside_mcp_tuis_own_keys(cli, record_file, era):
    result = cli(stdio_command("--record", record_file), "--protocol-version", era, "tool", "call", "echo",
                 "message=hi", "--meta", "trace_id=abc123", "--meta", "sample:=0.5",
                 "--tool-meta", "com.example/tool:={\"n\": 1}")
    assert result.code == 0, result
    requests = recorded_requests(record_file)
    assert {r["method"] for r in requests} >= {"tools/list", "tools/call"}
    for request in requests:
        meta = request["params"]["_meta"]
        assert meta["trace_id"] == "abc123" and meta["sample"] == 0.5, request
        assert ("com.example/tool" in meta) == (request["method"] == "tools/call"), request
        if era == "2026-07-28":  # the era's own keys are all still there
            assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
            assert "io.modelcontextprotocol/clientInfo" in meta
    call = next(r for r in requests if r["method"] == "tools/call")
    assert call["params"]["_meta"]["com.example/tool"] == {"n": 1}
    assert call["params"]["_meta"]["progressToken"].startswith("mcp-tui-")  # mcp-tui's own token


@pytest.mark.parametrize("flag", ["--meta", "--tool-meta"])
def test_progress_token_is_reserved_for_mcp_tui(cli, record_file, flag):
    """Issue 32: --meta progressToken=... was accepted and silently replaced by mcp-tui's own."""
    result = cli(stdio_command("--record", record_file), "tool", "call", "echo", "message=hi", flag, "progressToken=x")
    assert result.code == 2, result
    assert "progressToken: the key is reserved" in result.err, result
    assert not record_file.exists()


@pytest.mark.parametrize("flag, key", [("--meta", "io.modelcontextprotocol/protocolVersion"),
                                       ("--tool-meta", "dev.mcp/x"), ("--meta", "io.modelcontextprotocol/related")])
def test_reserved_meta_names_are_refused_before_anything_is_sent(cli, record_file, flag, key):
    result = cli(stdio_command("--record", record_file), "tool", "call", "echo", "message=hi", flag, key + "=x")
    assert result.code == 2, result
    assert "reserved for MCP itself" in result.err and key in result.err
    assert not record_file.exists()


def test_a_malformed_meta_is_a_usage_error_naming_the_flag(cli):
    result = cli(stdio_command(), "ping", "--meta", "trace_id")
    assert result.code == 2, result
    assert result.err.startswith("mcp-tui: --meta: expected key=value")


# -- --stored-auth-only ------------------------------------------------------------------------

def auth_endpoint_hits(server, name):
    lines = [json.loads(line) for line in Path(server.record).read_text().splitlines() if line.strip()]
    return [line["auth"] for line in lines if line.get("transport") == "auth" and line["auth"].get("endpoint") == name]


def test_the_login_hint_quotes_a_url_a_shell_would_split(cli, start_server):
    """`&` unquoted sends the command to the background and cuts the URL; `?` globs."""
    server = start_server("--auth")
    out = cli("--url", server.url + "?team=alpha&region=eu", "--stored-auth-only", "tool", "list",
              env={"BROWSER": BROWSER}, timeout=30)
    assert out.code == 1, out
    assert re.search(r"authorization required: run `mcp-tui --url '%s\?team=[^'& ]+&region=[^'& ]+' auth login`"
                     % re.escape(server.url), out.err), out  # the query's values masked, inside the quotes


def test_stored_auth_only_without_a_token_fails_at_once_with_the_login_hint(cli, start_server):
    server = start_server("--auth")
    out = cli("--url", server.url, "--stored-auth-only", "--timeout", "60", "tool", "list",
              env={"BROWSER": BROWSER}, timeout=30)
    assert out.code == 1, out
    assert out.err.strip() == ("mcp-tui: authorization required: run `mcp-tui --url %s auth login` "
                               "(--stored-auth-only uses only a stored or refreshable token)" % server.url), out
    assert "authorizing" not in out.err
    assert not auth_endpoint_hits(server, "authorize")
    json_out = cli("--url", server.url, "--stored-auth-only", "--format", "json", "tool", "list",
                   env={"BROWSER": BROWSER}, timeout=30)
    assert json_out.code == 1 and json.loads(json_out.err)["error"]["message"].startswith("authorization required")


def test_stored_auth_only_uses_a_stored_token(cli, start_server):
    server = start_server("--auth")
    assert cli("--url", server.url, "auth", "login", env={"BROWSER": BROWSER}).code == 0
    out = cli("--url", server.url, "--stored-auth-only", "tool", "list", env={"BROWSER": "false"})
    assert out.code == 0, out
    assert "echo (Echo)" in out.out
    assert len(auth_endpoint_hits(server, "authorize")) == 1  # the login's only


def test_auth_login_with_stored_auth_only_is_a_usage_error(cli):
    out = cli("--url", "http://127.0.0.1:9/mcp", "--stored-auth-only", "auth", "login")
    assert out.code == 2, out
    assert out.err.strip() == "mcp-tui: auth login authorizes anew, which --stored-auth-only forbids", out


# -- a browser that cannot start ------------------------------------------------------------------

@pytest.mark.parametrize("browser", ["/bin/false", "false %s"])
def test_a_browser_that_fails_to_start_ends_the_run_with_the_url_and_advice(cli, start_server, browser):
    """No terminal (stdin and stderr are pipes here): nobody could open the URL, so the run
    ends with it at once rather than after --timeout 60 (the subprocess timeout guards that)."""
    server = start_server("--auth")
    out = cli("--url", server.url, "--timeout", "60", "tool", "list", env={"BROWSER": browser}, timeout=30)
    assert out.code == 1, out
    last = out.err.strip().splitlines()[-1]
    assert last.startswith("mcp-tui: the browser did not start; to authorize at 127.0.0.1:"), out
    assert "open this URL in a browser: http://127.0.0.1:" in last and "/authorize?" in last
    assert "--no-browser" in last and "--callback-port" in last
    assert len(auth_endpoint_hits(server, "authorize")) == 0  # nobody opened it


# -- completion bash|zsh|fish -----------------------------------------------------------------------

def bash_completions(state_dir, *words):
    """What `source <(mcp-tui completion bash)` offers for the last of ``words`` (COMP_WORDS
    and COMP_CWORD set as bash sets them on TAB)."""
    import os
    import shlex
    import subprocess

    script = "\n".join([
        "mcp-tui() { %s \"$@\"; }" % " ".join(shlex.quote(word) for word in MCP_TUI_PROCESS),
        "source <(mcp-tui completion bash) || exit 3",
        "COMP_WORDS=(mcp-tui %s); COMP_CWORD=%d" % (" ".join(shlex.quote(w) for w in words), len(words)),
        "_mcp_tui",
        "printf '%s\\n' \"${COMPREPLY[@]}\"",
    ])
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir)))
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_bash_completion_completes_commands_subcommands_flags_and_values(state_dir):
    assert bash_completions(state_dir, "to") == ["tool"]
    assert bash_completions(state_dir, "python3 server.py", "tool", "") == ["list", "describe", "call"]
    assert bash_completions(state_dir, "resources", "t") == ["templates"]
    assert bash_completions(state_dir, "--fo") == ["--format", "--for"]
    assert bash_completions(state_dir, "--stored") == ["--stored-auth-only"]  # every flag of CLI_OPTIONS
    assert bash_completions(state_dir, "--format", "") == ["text", "json"]
    assert bash_completions(state_dir, "completion", "") == ["bash", "zsh", "fish"]


def test_bash_completion_offers_the_tool_names_of_the_last_connection(cli, state_dir):
    assert bash_completions(state_dir, "tool", "call", "") == []  # nothing kept yet
    assert cli(stdio_command(), "--protocol-version", "2026-07-28", "tool", "list").code == 0
    names = bash_completions(state_dir, "tool", "call", "")
    assert "echo" in names and "get_image" in names
    assert bash_completions(state_dir, "--url", "http://127.0.0.1:9/mcp", "tool", "call", "get_i") == ["get_image"]
    assert bash_completions(state_dir, "tool", "call", "echo", "") == []  # the arguments are the tool's


def poisoned_tool_names(tmp_path):
    """Tool names a server may choose that run a command where a shell evaluates them (each
    touches its own mark file), and names that are only odd."""
    marks = [tmp_path / ("mark%d" % n) for n in range(4)]
    names = ["${IFS}x$(touch${IFS}%s)" % marks[0], "$(touch${IFS}%s)" % marks[1], "`touch${IFS}%s`" % marks[2],
             "x;touch${IFS}%s" % marks[3], "*", "a'b", 'a"b', "-rf", "~root", "two\nlines"]
    return marks, names


def test_bash_completion_runs_nothing_a_server_named(cli, state_dir, tmp_path):
    """A 2026-07-28 server's cached tool names reach `tool call <TAB>`: the words are data. Names
    outside A-Za-z0-9_.-/ are not offered at all; safe ones still complete."""
    marks, names = poisoned_tool_names(tmp_path)
    server = stdio_command("--mode", "odd-names", *["--name=" + name for name in names + ["safe.name/x-1"]],
                           script=BADSERVER)
    assert cli(server, "tool", "list").code == 0
    tool_names = cli("completion", "tool-names")
    assert tool_names.code == 0, tool_names
    assert tool_names.out.split() == ["echo", "safe.name/x-1", "slow_task"], tool_names
    for typed in ("", "$", "`", "x", "s"):
        offered = bash_completions(state_dir, "tool", "call", typed)
        assert offered == [name for name in ["echo", "safe.name/x-1", "slow_task"] if name.startswith(typed)], typed
    assert [mark for mark in marks if mark.exists()] == []


def test_every_completion_script_treats_the_words_it_offers_as_data(cli):
    """No script hands the words `completion tool-names` prints to something that evaluates
    them: bash filters with [[ ]] (never compgen -W over them), zsh gives them to compadd as
    they are, fish reads them from a command substitution."""
    bash = cli("completion", "bash").out
    assert "$(compgen -W" not in bash and '[[ $w == "$cur"* ]]' in bash
    assert 'reply=($("$_mcp_tui_program"' not in bash  # no word splitting or globbing of what it printed


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_are_printed_and_parse(cli, shell, tmp_path):
    import shutil
    import subprocess

    out = cli("completion", shell)
    assert out.code == 0, out
    assert "mcp-tui" in out.out and "--stored-auth-only" in out.out.replace("-l stored-auth-only", "--stored-auth-only")
    if shutil.which(shell) is None:
        pytest.skip("%s is not installed here" % shell)
    script = tmp_path / ("completion." + shell)
    script.write_text(out.out, encoding="utf-8")
    checked = subprocess.run([shell, "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    if shell == "fish":  # fish completes a command line itself
        driven = 'source %s; complete -C"mcp-tui to"; echo SEP; complete -C"mcp-tui tool "' % script
    else:  # zsh: the completion function with compadd standing in (it filters by the prefix itself)
        driven = ('compdef() { :; }; compadd() { shift; print -l -- "$@"; }; source %s; '
                  'words=(mcp-tui to); CURRENT=2; _mcp_tui; echo SEP; words=(mcp-tui tool ""); CURRENT=3; _mcp_tui'
                  % script)
    done = subprocess.run([shell, "-c", driven], capture_output=True, text=True, timeout=60)
    commands, subcommands = done.stdout.split("SEP\n")
    assert "tool" in commands.split(), done
    assert sorted(subcommands.split()) == ["call", "describe", "list"], done


def test_completion_needs_a_known_shell(cli):
    out = cli("completion", "tcsh")
    assert out.code == 2, out
    assert "unknown completion command 'tcsh'" in out.err


# -- output that keeps its data: a closed pipe as Windows reports it, and non-UTF-8 streams -------------

IN_PROCESS = r"""
import io, os, sys
root, testserver, case = sys.argv[1:4]
sys.path.insert(0, root)
import mcp_tui

server = ["--cmd", sys.executable, "--args", testserver]
if case == "einval":
    class ClosedPipeOnWindows(io.TextIOBase):
        # how Windows reports a reader that went away (`| head -1`): OSError EINVAL, not EPIPE
        encoding = "utf-8"
        lines = 0

        def write(self, text):
            if self.lines:
                raise OSError(22, "Invalid argument")
            self.lines += 1
            sys.__stdout__.write(text)
            return len(text)

        def fileno(self):
            raise io.UnsupportedOperation("fileno")

    sys.stdout = ClosedPipeOnWindows()
    code = mcp_tui.main(server + ["resource", "list", "-q"])
else:  # a redirected stdout as Windows makes it: the ANSI code page, with "replace"
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="cp1252", errors="replace")
    os.environ.pop("PYTHONIOENCODING", None)
    os.name = "nt"
    code = mcp_tui.main(server + ["-q", "tool", "call", "echo", "message=\U0001f642 \u4e2d\u6587"])
    os.name = "posix"
    sys.stdout.flush()
sys.stderr.write("exit=%d\n" % code)
"""


def run_in_process(case):
    import subprocess

    from conftest import TESTSERVER

    return subprocess.run([sys.executable, "-c", IN_PROCESS, str(ROOT), str(TESTSERVER), case], capture_output=True,
                          timeout=60)


def test_einval_on_stdout_is_a_reader_that_went_away_not_an_internal_error():
    done = run_in_process("einval")
    err = done.stderr.decode("utf-8", "replace")
    assert "internal error" not in err and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "exit=0", err
    assert done.stdout.decode("utf-8").startswith("test://static/hello.txt")  # the line before the pipe closed


def test_a_redirected_stdout_on_windows_is_written_in_utf8():
    done = run_in_process("windows")
    assert done.stderr.decode("utf-8", "replace").strip().splitlines()[-1] == "exit=0", done.stderr
    assert "🙂 中文".encode("utf-8") in done.stdout, done.stdout


def test_json_keeps_every_character_on_a_stream_that_is_not_utf8(cli):
    """PYTHONIOENCODING=cp1252 (as on a Windows console): JSON escapes what the encoding
    cannot carry, on stdout and in the error line on stderr, instead of writing "?"."""
    cp1252 = {"PYTHONIOENCODING": "cp1252"}
    out = cli(stdio_command(), "tool", "call", "echo", "message=🙂 中文 é", "--format", "json", env=cp1252)
    assert out.code == 0, out
    assert out.json()["result"]["content"][0]["text"] == "🙂 中文 é"
    error = cli(stdio_command(), "tool", "call", "no_such_🙂", "--format", "json", env=cp1252)
    assert error.code == 2, error
    assert "no_such_🙂" in json.loads(error.err)["error"]["message"]
