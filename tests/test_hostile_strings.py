"""Hostile strings: a server's tool names, descriptions, results, status messages, error
messages, log lines, HTTP headers and stderr lines full of ANSI CSI/OSC sequences, C0/C1
controls and bidi overrides (tests/badserver.py --mode hostile).

In text mode none of it may reach the terminal raw: the captured BYTES of stdout and stderr
hold no ESC, no other C0 control but newline and tab, no DEL, no C1 control and no bidi
control, while the visible text around them survives. With --format json the output stays
exact: the JSON decodes to the very strings the server sent.
"""
import json
import os
import re
import select
import shlex
import subprocess
import sys
import time

import pytest

import mcp_tui
from badserver import HOSTILE
from conftest import MCP_TUI_PROCESS, ROOT, RunningServer

BADSERVER = ROOT / "tests" / "badserver.py"
MODERN, LEGACY = "2026-07-28", "2025-11-25"
ERAS = pytest.mark.parametrize("era", [MODERN, LEGACY])

# What must never reach a terminal: C0 but \t and \n, DEL, C1, and the bidi controls.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
TERMINAL_UNSAFE_IN_JSON = re.compile("[\x1b\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def server_command(era, *flags):
    return " ".join(shlex.quote(str(p)) for p in [sys.executable, str(BADSERVER), "--mode", "hostile", "--era", era]
                    + list(flags))


class Run(object):
    def __init__(self, result):
        self.code = result.code
        self.out_bytes = result.out
        self.err_bytes = result.err
        self.out = result.out.decode("utf-8", "strict")
        self.err = result.err.decode("utf-8", "strict")

    def json(self):
        return json.loads(self.out)

    def __repr__(self):
        return "<exit %s\n--- stdout\n%r\n--- stderr\n%r>" % (self.code, self.out_bytes[:3000], self.err_bytes[-3000:])


@pytest.fixture
def run(cli):
    """conftest's ``cli``, keeping stdout and stderr as bytes: a text-mode capture would turn
    the CR we look for into a newline. A stdio task without --wait leaves its server to a
    background keeper: that run is a process."""

    def go(*args, timeout=60):
        words = [str(a) for a in args]
        keeps_a_session = "--task" in words and "--wait" not in words and "--url" not in words
        return Run(cli(*words, timeout=timeout, text=False, process=keeps_a_session))

    return go


@pytest.fixture
def http_server(tmp_path):
    servers = []

    def start(era, *flags):
        server = RunningServer(["--http", "127.0.0.1:0", "--mode", "hostile", "--era", era] + list(flags),
                               tmp_path / "unused-record", script=BADSERVER)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def assert_terminal_safe(result):
    for name, text in (("stdout", result.out), ("stderr", result.err)):
        bad = sorted({"U+%04X" % ord(c) for c in FORBIDDEN.findall(text)})
        assert not bad, "%s carries %s raw: %r" % (name, ", ".join(bad), result)
    assert "Traceback" not in result.err, result


# -- text mode: nothing raw reaches the terminal ------------------------------------------------

TEXT_COMMANDS = [
    # (command words, exit code, a visible marker that must survive, on stdout or stderr)
    (["server"], 0, "INSTRUCTIONS", "out"),
    (["tool", "list"], 0, "TOOL-DESC", "out"),
    (["tool", "describe", "evil"], 0, "PROP-DESC", "out"),
    (["tool", "call", "evil"], 0, "RESULT", "out"),
    (["tool", "call", "evil"], 0, "PROGRESS", "err"),
    (["tool", "call", "evil"], 0, "LOGGER", "err"),
    (["tool", "call", "fail"], 1, "ERROR", "err"),
    (["tool", "call", "iserror"], 0, "ISERROR", "out"),
    (["tool", "call", "crash"], 1, "STDERR", "err"),
    (["tool", "call", "nope"], 2, "EVIL-NAME", "err"),  # a usage error: no call sent
    (["tool", "call", "slow_task", "--task"], 0, "working on it", "out"),
    (["tool", "call", "slow_task", "--task", "--wait"], 0, "TASK-RESULT", "out"),
    (["resource", "list"], 0, "RES-DESC", "out"),
    (["resource", "templates"], 0, "TEMPLATE", "out"),
    (["resource", "read", "test://x"], 0, "CONTENTS", "out"),
    (["prompt", "list"], 0, "PROMPT-DESC", "out"),
    (["prompt", "get", "p"], 0, "PROMPT-TEXT", "out"),
    (["complete", "prompt", "p", "a=x"], 0, "VALUE", "out"),
    (["--debug", "tool", "call", "evil"], 0, "RESULT", "err"),
]


@ERAS
@pytest.mark.parametrize("words,code,marker,where", TEXT_COMMANDS,
                         ids=["-".join(w for w in c[0] if not w.startswith("-")) + "-" + c[3] for c in TEXT_COMMANDS])
def test_text_output_holds_no_control_sequence(run, era, words, code, marker, where):
    result = run(server_command(era), "--timeout", "10", *words)
    assert result.code == code, result
    assert_terminal_safe(result)
    assert marker in (result.out if where == "out" else result.err), result


@ERAS
def test_http_headers_and_reason_phrases_are_cleaned(run, http_server, era):
    server = http_server(era)
    traced = run("--url", server.url, "--trace", "tool", "list")
    assert traced.code == 0, traced
    assert_terminal_safe(traced)
    assert "x-hostile" in traced.err.lower(), traced
    refused = run("--url", server.url, "--bearer", "hostile", "tool", "list")
    assert refused.code == 1, refused
    assert_terminal_safe(refused)
    assert "401" in refused.err, refused


@ERAS
def test_a_lone_surrogate_does_not_break_text_output(run, era):
    result = run(server_command(era), "tool", "call", "surrogate")
    assert result.code == 0, result
    assert_terminal_safe(result)
    assert "lone" in result.out and "surrogate" in result.out


# -- JSON mode: exact ---------------------------------------------------------------------------


def by_name(items, name):
    return next(item for item in items if item.get("name") == name)


@ERAS
def test_json_keeps_tool_strings_exact(run, era):
    result = run(server_command(era), "--format", "json", "tool", "list")
    assert result.code == 0, result
    tools = result.json()["result"]["tools"]
    evil = by_name(tools, "evil")
    assert evil["description"] == "TOOL-DESC " + HOSTILE
    assert evil["title"] == "TOOL-TITLE " + HOSTILE
    assert evil["inputSchema"]["properties"]["x"]["description"] == "PROP-DESC " + HOSTILE
    assert any(tool["name"] == "EVIL-NAME " + HOSTILE for tool in tools)


@ERAS
def test_json_keeps_results_and_notifications_exact(run, era):
    result = run(server_command(era), "--format", "json", "tool", "call", "evil")
    assert result.code == 0, result
    document = result.json()
    content = document["result"]["content"]
    assert content[0]["text"] == "RESULT " + HOSTILE
    assert content[1]["uri"] == "file:///" + HOSTILE and content[1]["description"] == "LINK-DESC " + HOSTILE
    assert document["result"]["structuredContent"] == {"k": "STRUCTURED " + HOSTILE}
    params = [n["params"] for n in document["notifications"]]
    assert {"progressToken": params[0]["progressToken"], "progress": 1, "total": 1,
            "message": "PROGRESS " + HOSTILE} in params
    log = next(p for p in params if "level" in p)
    assert log["data"] == "LOG " + HOSTILE and log["logger"] == "LOGGER " + HOSTILE


@ERAS
def test_json_keeps_error_messages_exact(run, era):
    result = run(server_command(era), "--format", "json", "tool", "call", "fail")
    assert result.code == 1, result
    error = json.loads(result.err)["error"]
    assert error["message"] == "tools/call failed: -32603 ERROR " + HOSTILE
    assert error["data"] == {"detail": "DATA " + HOSTILE}


@ERAS
def test_json_keeps_server_info_and_prompts_exact(run, era):
    server = run(server_command(era), "--format", "json", "server").json()
    assert server["serverInfo"]["name"] == "NAME " + HOSTILE and server["instructions"] == "INSTRUCTIONS " + HOSTILE
    prompt = run(server_command(era), "--format", "json", "prompt", "get", "p").json()
    assert prompt["result"]["messages"][0]["content"]["text"] == "PROMPT-TEXT " + HOSTILE


@ERAS
def test_json_output_escapes_what_a_terminal_would_obey(run, era):
    """The JSON is exact, and it may land on a terminal too: ESC is always escaped by
    json.dumps, and C1 controls, bidi controls and lone surrogates must be as well
    (\\u009b, \\u202e, \\ud800), which changes nothing for a JSON reader."""
    for words in (["tool", "call", "evil"], ["tool", "list"]):
        result = run(server_command(era), "--format", "json", *words)
        assert result.code == 0, result
        raw = sorted({"U+%04X" % ord(c) for c in TERMINAL_UNSAFE_IN_JSON.findall(result.out)})
        assert not raw, "raw in the JSON output: %s" % ", ".join(raw)
    failed = run(server_command(era), "--format", "json", "tool", "call", "fail")
    raw = sorted({"U+%04X" % ord(c) for c in TERMINAL_UNSAFE_IN_JSON.findall(failed.err)})
    assert not raw, "raw in the JSON error: %s" % ", ".join(raw)


@ERAS
def test_json_keeps_a_lone_surrogate_exact(run, era):
    result = run(server_command(era), "--format", "json", "tool", "call", "surrogate")
    assert result.code == 0, result
    text = result.json()["result"]["content"][0]["text"]
    # compared as escaped ASCII: a raw lone surrogate in a failure report breaks pytest-xdist
    assert ascii(text) == ascii("lone \ud800 surrogate"), ascii(text)


# -- the terminal prompts of an elicitation ------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@ERAS
def test_elicitation_prompts_on_a_terminal_are_clean(state_dir, era):
    """With a terminal on stdin and stderr, mcp-tui asks the user itself; the field titles and
    enum choices in its prompts come from the server."""
    master, slave = os.openpty()
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + [server_command(era), "--timeout", "20", "tool", "call",
                             "ask"], stdin=slave, stderr=slave, stdout=subprocess.PIPE, env=environ, cwd=str(ROOT))
    os.close(slave)
    seen = bytearray()

    def read_until(marker, seconds=20):
        deadline = time.monotonic() + seconds
        while marker not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen.extend(chunk)
        return marker in seen

    try:
        assert read_until(b"]: "), bytes(seen)
        os.write(master, b"blue\n")
        assert read_until(b"[c]ancel: "), bytes(seen)
        os.write(master, b"y\n")
        out = proc.stdout.read()
        assert proc.wait(20) == 0, (out, bytes(seen))
        read_until(b"\n\n", 2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        os.close(master)
    assert b'"color": "blue"' in out, out
    text = bytes(seen).replace(b"\r\n", b"\n").decode("utf-8")  # the terminal's own CRLF is no leak
    bad = sorted({"U+%04X" % ord(c) for c in FORBIDDEN.findall(text)})
    assert not bad, "the prompts carry %s raw: %r" % (", ".join(bad), text)
    assert "ASK-TITLE" in text and "ASK-MESSAGE" in text


# -- URL elicitations: opened only when plain, and exactly as shown ------------------------------


REFUSED_URLS = [
    ("https://evil.example\\@accounts.google.com/", "backslash"),
    ("https://evil.example@accounts.google.com/", "user name"),
    ("javascript:alert(1)", "only https"),
    ("file:///etc/passwd", "only https"),
    ("http://example.com/login", "only https"),
    ("https://example.com/\x1b]0;title\x07", "control"),
    ("https://exa mple.com/", "spaces"),
    ("https://examp\u0142e.com/", "non-ASCII"),
]


@pytest.mark.parametrize("url,why", REFUSED_URLS, ids=[why + "-%d" % i for i, (_, why) in enumerate(REFUSED_URLS)])
def test_a_misleading_elicitation_url_is_refused(url, why):
    with pytest.raises(ValueError, match=why):
        mcp_tui.elicitation_url_host(url)


@pytest.mark.parametrize("url,host", [("https://accounts.example.com/login?x=1", "accounts.example.com"),
                                      ("https://EXAMPLE.com:8443/a", "example.com:8443"),
                                      ("http://127.0.0.1:9000/cb", "127.0.0.1:9000"),
                                      ("http://localhost/cb", "localhost")])
def test_a_plain_elicitation_url_shows_the_host_it_opens(url, host):
    assert mcp_tui.elicitation_url_host(url) == host


def test_the_cli_refuses_a_misleading_url_and_says_why(run):
    command = server_command(LEGACY, "--mode", "url-elicit", "--elicit-url", "https://evil.example\\@accounts.google.com/")
    result = run(command, "tool", "call", "echo", "message=x")
    assert result.code == 0, result
    assert "refused: the URL holds a backslash" in result.err, result
    assert "accounts.google.com" not in result.err.replace("\\@accounts.google.com", ""), result
    assert '"action": "decline"' in result.out, result


# -- names are data: one line each, what a terminal would not show escaped ----------------------------

ODD_NAMES = {"two\nFORGED": "two\\nFORGED", "cr\rOVER": "cr\\rOVER", "esc\x1b[2Jx": "esc\\x1b[2Jx",
             "tab\tx": "tab\\tx", "bidi\u202eevil": "bidi\\u202eevil", "back\\slash\x07": "back\\\\slash\\x07",
             "plain\\path": "plain\\path"}


@pytest.mark.parametrize("command", [("tool", "list"), ("prompt", "list"), ("resource", "list"),
                                     ("resource", "templates")])
def test_a_name_with_a_line_break_or_control_is_listed_escaped_on_its_own_line(run, command):
    """A server cannot forge a line of a list (`two\nFORGED` would print FORGED as a line of its
    own) or hide part of a name: the name is shown escaped, as Python and $'...' write it."""
    result = run(server_command(MODERN, *["--mode=odd-names"] + ["--name=" + name for name in ODD_NAMES]), *command)
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert not any(line.startswith("FORGED") for line in lines), result
    assert not FORBIDDEN.search(result.out), result
    for shown in ODD_NAMES.values():
        assert any(shown in line for line in lines), (shown, result)


@ERAS
@pytest.mark.parametrize("words", [("tool", "call", "evil"), ("server",)])
def test_a_server_s_line_breaks_start_no_line_of_the_client_s_own(run, era, words):
    """Probe D7: an unknown notification's method, a log message's level, logger and data,
    and serverInfo's version were printed with their line breaks: `x\nFORGED` made a line."""
    result = run(server_command(era), *words)
    assert result.code == 0, result
    lines = (result.out + result.err).splitlines()
    assert not [line for line in lines if line.startswith("FORGED")], result
    expected = ["x\\nFORGED-METHOD", "[info\\nFORGED-LEVEL] x\\nFORGED-LOGGER: x\\nFORGED-LOG"] if "evil" in words \
        else ["1.0\\nFORGED-VERSION"]
    for shown in expected:
        assert any(shown in line for line in lines), (shown, result)


# -- printed commands name the task exactly -------------------------------------------------------


def created_commands(result):
    return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in result.out.splitlines()[1:]
            if line.startswith(("Poll:", "Result:"))}


@pytest.mark.skipif(os.name == "nt" or not os.path.exists("/bin/bash"), reason="runs the printed command in bash")
@pytest.mark.parametrize("task_id", ["-rf", "--help", "a\x1b[31mb\x07c", "it's \u202eevil", 'x" & echo INJECTED & rem "',
                                     "$(echo INJECTED) `echo INJECTED` ${IFS}", "%PATH% !x! ^& \\\" ;|", "a\nb"])
def test_a_printed_task_command_runs_as_printed(run, http_server, state_dir, task_id):
    server = http_server(MODERN, "--mode", "odd-task-id", "--task-id=" + task_id)  # the last --mode wins
    result = run("--url", server.url, "tool", "call", "slow_task", "--task")
    assert result.code == 0, result
    poll = created_commands(result)["Poll"]
    if task_id.startswith("-"):
        assert " -- " in poll, poll
    if any(ord(c) < 32 or c == "\u202e" for c in task_id):
        assert "$'" in poll and "control characters" in result.err, result
    assert not FORBIDDEN.search(poll), poll
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    environ.pop("MCP_TUI_BEARER", None)
    program = shlex.join(MCP_TUI_PROCESS + ["--format", "json"])
    again = subprocess.run(["/bin/bash", "-c", poll.replace("mcp-tui", program, 1)], capture_output=True, env=environ,
                           cwd=str(ROOT), timeout=60)
    assert again.returncode == 0, again
    assert json.loads(again.stdout.decode("utf-8"))["task"]["taskId"] == task_id


def test_a_large_text_is_cleaned_chunk_by_chunk_and_ends_in_one_newline():
    import io

    line = "ok \x1b[31mred\x1b[0m \x07bell \u202etext\n"
    text = line * (3 * mcp_tui.OUTPUT_CHUNK // len(line)) + "x" * (mcp_tui.OUTPUT_CHUNK + 5) + "\n\n\n"
    stdout = io.StringIO()
    mcp_tui.Output(stdout=stdout, stderr=io.StringIO()).text(text)
    written = stdout.getvalue()
    assert not FORBIDDEN.search(written)
    assert written == mcp_tui.clean(text).rstrip("\n") + "\n"  # the same text as one clean() would give


@ERAS
def test_the_log_file_escapes_controls_and_keeps_them(run, era, tmp_path):
    """--log-file: ESC, DEL, C1 and bidi controls written as \\u escapes (a `cat` or `tail -f` of
    the file is safe), and the JSON lines decode to the very strings the server sent."""
    log = tmp_path / "run.jsonl"
    result = run(server_command(era), "--log-file", log, "tool", "call", "evil")
    assert result.code == 0, result
    raw = log.read_bytes().decode("utf-8")
    bad = sorted({"U+%04X" % ord(c) for c in TERMINAL_UNSAFE_IN_JSON.findall(raw) + FORBIDDEN.findall(raw)
                  if c != "\n"})
    assert not bad, "the log file carries %s raw" % ", ".join(bad)
    entries = [json.loads(line) for line in raw.splitlines()]
    bodies = "".join(entry.get("body", "") for entry in entries)
    stderr_lines = [entry["text"] for entry in entries if entry["type"] == "stderr"]
    assert json.dumps(HOSTILE, ensure_ascii=False)[1:-1] in bodies  # the message as the server sent it
    assert any(HOSTILE in line for line in stderr_lines), stderr_lines
