"""Reliability: mcp-tui against tests/badserver.py, a server that misbehaves in one way per
mode, over stdio and Streamable HTTP, in both eras.

For each fault the user must see what a calm tool shows: the documented exit code (1 for a
server fault), ONE readable ``mcp-tui: ...`` line on stderr that says what the server did
wrong (never a traceback, never "internal error"), a return within --timeout, every valid
message that arrived before the fault, and a recovery where the spec allows one
(re-initialize after a 404, resume an SSE stream with Last-Event-ID, re-issue an idempotent
request on a cut 2026-07-28 stream). Nothing here sleeps to synchronise: the bad server
holds or releases its answers itself.
"""
import json
import re
import shlex
import sys

import pytest

import mcp_tui

from conftest import ROOT, TESTSERVER, RunningServer, wait_for

BADSERVER = ROOT / "tests" / "badserver.py"
MODERN, LEGACY = "2026-07-28", "2025-11-25"
TIMEOUT = 3.0
SLACK = 10.0  # start-up, spawning the server, output, a loaded machine; a hang still overruns it by far
COMBOS = [("stdio", MODERN), ("stdio", LEGACY), ("http", MODERN), ("http", LEGACY)]
COMBO_IDS = ["stdio-2026", "stdio-2025", "http-2026", "http-2025"]


# -- running the bad server -----------------------------------------------------------------


class Target(object):
    """Where the CLI connects (its connection arguments) and what the server recorded."""

    def __init__(self, args, record, url=None):
        self.args = args
        self.record = record
        self.url = url

    def records(self):
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text(encoding="utf-8").splitlines() if line.strip()]

    def messages(self, method=None):
        found = [r["message"] for r in self.records() if isinstance(r.get("message"), dict)]
        return [m for m in found if method is None or m.get("method") == method]

    def http(self, verb=None):
        return [r for r in self.records() if r.get("http") and (verb is None or r["http"]["method"] == verb)]


def serving(tmp_path, script, prefix):
    """make(transport, *flags) -> Target: ``script`` with --record, as a stdio command or a
    running HTTP server; and the list of what it started, to stop."""
    servers = []

    def make(transport, *flags):
        record = tmp_path / ("%s-%d.jsonl" % (prefix, len(servers)))
        argv = ["--record", str(record)] + [str(f) for f in flags]
        if transport == "stdio":
            servers.append(None)
            command = " ".join(shlex.quote(str(p)) for p in [sys.executable, script] + argv)
            return Target([command], record)
        server = RunningServer(["--http", "127.0.0.1:0"] + argv, record, script=script)
        servers.append(server)
        return Target(["--url", server.url], record, server.url)

    return make, servers


def stop(servers):
    for server in servers:
        if server is not None:
            server.stop()


@pytest.fixture
def bad(tmp_path):
    """bad(transport, era, mode, *flags) -> Target: a stdio command or a running HTTP server."""
    make, servers = serving(tmp_path, BADSERVER, "bad")
    yield lambda transport, era, mode, *flags: make(transport, "--mode", mode, "--era", era, *flags)
    stop(servers)


def run(cli, target, *words, timeout=TIMEOUT):
    """Run the CLI against ``target`` with --timeout. A run that outlasts it by SLACK is a hang:
    the guard ends it (subprocess.TimeoutExpired fails the test)."""
    result = cli(*target.args, "--timeout", "%g" % timeout, *words, timeout=timeout + SLACK)
    return result


def error_line(result):
    """The one ``mcp-tui:`` line; never a traceback or a thread's exception."""
    assert "Traceback" not in result.err and "Exception in thread" not in result.err, result
    lines = [line for line in result.err.splitlines() if line.startswith("mcp-tui:")]
    assert len(lines) == 1, result
    assert "internal error" not in lines[0], result
    return lines[0]


def assert_fault(result, pattern):
    """Exit 1, one line matching ``pattern`` (what the server did wrong); run()'s guard saw it
    end within the timeout."""
    assert result.code == 1, result
    line = error_line(result)
    assert re.search(pattern, line, re.I), "%r does not match %r\n%r" % (line, pattern, result)
    return line


def assert_listed(result):
    assert result.code == 0, result
    assert "Traceback" not in result.err and "Exception in thread" not in result.err, result
    names = [line.split()[0] for line in result.out.splitlines() if line and not line.startswith(" ")]
    assert names == ["echo", "slow_task"], result


combos = pytest.mark.parametrize("transport,era", COMBOS, ids=COMBO_IDS)
stdio_eras = pytest.mark.parametrize("transport,era", COMBOS[:2], ids=COMBO_IDS[:2])
http_eras = pytest.mark.parametrize("transport,era", COMBOS[2:], ids=COMBO_IDS[2:])
transports = pytest.mark.parametrize("transport", ["stdio", "http"])


# -- the --max-time cap ---------------------------------------------------------------------


@pytest.mark.parametrize("transport,era", [c for c in COMBOS if c != ("http", MODERN)],
                         ids=[i for i in COMBO_IDS if i != "http-2026"])  # its server ends the stream itself
def test_max_time_still_cancels_the_call_and_ends_the_session(cli, bad, transport, era):
    """--max-time left the call running at the server and (2025-11-25 HTTP) the session open:
    past the cap every exchange failed at once, so neither notifications/cancelled nor the
    DELETE went out, where --timeout and Ctrl+C send both. Each now has a short bound of its own."""
    target = bad(transport, era, "never-answer", "--on", "tools/call")
    result = cli(*target.args, "--max-time", "1", "tool", "call", "echo", "message=hi", timeout=1 + SLACK)
    assert result.code == 1, result
    assert "--max-time" in error_line(result), result
    calls = target.messages("tools/call")
    assert len(calls) == 1, target.messages()  # at most once: the call is never sent again
    cancelled = wait_for(lambda: target.messages("notifications/cancelled"), timeout=10, what="the cancel")
    assert [m["params"]["requestId"] for m in cancelled] == [calls[0]["id"]], cancelled
    if (transport, era) == ("http", LEGACY):
        assert wait_for(lambda: target.http("DELETE"), timeout=10, what="the DELETE")


# -- crashes --------------------------------------------------------------------------------


@combos
def test_crash_on_initialize(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "crash-initialize"), "tool", "list")
    if transport == "stdio":
        line = assert_fault(result, r"exited with code 3")
        assert "cannot read /etc/badserver.conf" in line, line
    else:
        assert_fault(result, r"closed|reset|refused|connection")


@stdio_eras
def test_the_server_stderr_is_quoted_once(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "crash-initialize"), "tool", "list")
    line = assert_fault(result, r"exited with code 3")
    assert line.count("cannot read /etc/badserver.conf") == 1, line


@combos
def test_crash_mid_response_keeps_the_notifications_that_came_first(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "crash-mid-response"), "tool", "call", "echo", "message=hi")
    assert_fault(result, r"exit|closed|cut|broke|connection|reset")
    assert "⏳ progress 1/2: halfway" in result.err, result
    assert "ECHO-LOG before the answer" in result.err, result
    assert result.out == "", result


@combos
def test_a_server_crashing_mid_call_says_the_call_was_sent_once(cli, bad, transport, era):
    """Only 2026-07-28 HTTP cuts said the tool may have run: a stdio server dying mid-call said
    only that it exited, and 2025-11-25 HTTP (its stream cut, its resume refused) 'cannot reach'."""
    target = bad(transport, era, "crash-mid-response")
    line = assert_fault(run(cli, target, "tool", "call", "echo", "message=hi"), r"exit|closed|cut|broke|reset")
    assert "(not sent again: the tool may have run; run it again yourself if that is safe" in line, line
    assert not line.startswith("mcp-tui: cannot reach"), line  # it was reached: the call went out
    assert len(target.messages("tools/call")) == 1


@combos
def test_crash_mid_list_keeps_the_first_page(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "crash-mid-list"), "tool", "list")
    assert_fault(result, r"exit|closed|cut|broke|connection|reset|refused")
    assert result.out.splitlines()[:1] == ["echo"], result


@combos
def test_crash_mid_task(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "crash-mid-task"), "tool", "call", "slow_task", "--task", "--wait")
    assert_fault(result, r"exit|closed|connection|reset|refused")
    assert re.search(r"Task task-\d+-\w+ created", result.err), result


# -- framing --------------------------------------------------------------------------------


@combos
def test_invalid_json_is_named(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "invalid-json"), "tool", "list")
    assert_fault(result, r"JSON")


@stdio_eras
def test_logs_and_junk_on_stdout_are_skipped(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "stdout-logs"), "tool", "list")
    assert_listed(result)


# -- protocol breaks ------------------------------------------------------------------------

BREAKS = [
    ("wrong-jsonrpc", r"jsonrpc"),
    ("no-id", r"\bid\b"),
    ("result-and-error", r"result.*error|error.*result"),
    ("wrong-id", r"\bid\b|987654"),
    ("wrong-shape", r"tools"),
    ("wrong-shape-result", r"not an object"),
]


@combos
@pytest.mark.parametrize("mode,pattern", BREAKS, ids=[mode for mode, _ in BREAKS])
def test_protocol_breaks_are_named(cli, bad, transport, era, mode, pattern):
    result = run(cli, bad(transport, era, mode), "tool", "list")
    assert_fault(result, pattern)


@combos
def test_a_result_of_the_wrong_shape_is_not_an_internal_error(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "wrong-shape-call"), "tool", "call", "echo", "message=x")
    assert_fault(result, r"content|text|block")
    assert "⏳ progress 1/2: halfway" in result.err, result


@combos
@pytest.mark.parametrize("mode", ["duplicate-response", "unknown-id", "float-id", "null-id-error"])
def test_stray_responses_do_not_disturb_the_real_one(cli, bad, transport, era, mode):
    """float-id: 3.0 is not the id 3 mcp-tui sent (JSON types match exactly, as in the SDK);
    null-id-error: an error the server could not place is not the answer to the request in flight."""
    assert_listed(run(cli, bad(transport, era, mode), "tool", "list"))


@combos
def test_an_answer_with_id_true_is_not_the_answer_to_request_1(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "true-id"), "server")
    assert result.code == 0 and "badserver" in result.out, result
    assert "IMPOSTOR" not in result.out, result


@combos
def test_an_error_with_id_null_is_a_debug_note(cli, bad, transport, era, tmp_path):
    log = tmp_path / "log.jsonl"
    assert_listed(run(cli, bad(transport, era, "null-id-error"), "--log-file", log, "tool", "list"))
    assert "an error with id null" in log.read_text(encoding="utf-8")


@combos
@pytest.mark.parametrize("mode,pattern", [("capabilities-not-object", r"capabilities are not an object"),
                                          ("server-info-not-object", r"serverInfo is not an object")])
def test_handshake_fields_of_the_wrong_shape_are_a_protocol_error(cli, bad, transport, era, mode, pattern):
    assert_fault(run(cli, bad(transport, era, mode), "server"), pattern)


@combos
def test_nan_and_infinity_from_a_server_are_read_and_written_as_null_in_json(cli, bad, transport, era):
    """Issue 32: Python servers write NaN and Infinity (json.dumps' default); the answer was
    dropped as invalid JSON (and, where it was, its request waited out --timeout). Read as
    Python reads them; --format json stays strict JSON, null for each, with a warning."""
    result = run(cli, bad(transport, era, "nan"), "--format", "json", "tool", "call", "echo", "message=x")
    assert result.code == 0, result
    document = json.loads(result.out)  # strict JSON, as all --format json output
    assert document["result"]["structuredContent"] == {"x": None, "y": None, "z": None}, document
    assert any("3 non-finite numbers (NaN or Infinity)" in w and "written as null" in w
               for w in document["warnings"]), document
    text = run(cli, bad(transport, era, "nan"), "tool", "call", "echo", "message=x")
    assert text.code == 0 and '"x": NaN' in text.out and '"y": Infinity' in text.out, text


def test_a_session_id_with_control_bytes_is_refused(cli, bad):
    target = bad("http", LEGACY, "session-id-controls")
    line = assert_fault(run(cli, target, "tool", "list"), r"session id")
    assert "\x01" not in line
    assert not target.messages("tools/list")  # it was never sent back


# -- ordering -------------------------------------------------------------------------------


@transports
def test_answers_out_of_order(cli, bad, transport):
    target = bad(transport, MODERN, "out-of-order")
    result = run(cli, target, "tool", "call", "slow_task", "--task", "--wait")
    assert result.code == 0, result
    assert result.out == "Tool response:\nTASK-RESULT done\n", result
    assert [r for r in target.records() if "before the request that came first" in r.get("event", "")], \
        "the server never had two requests to answer out of order"


@combos
def test_messages_before_the_handshake_response(cli, bad, transport, era):
    target = bad(transport, era, "early-notification")
    result = run(cli, target, "tool", "list")
    assert_listed(result)
    assert "📣 [info] boot: EARLY-LOG warming up" in result.err, result
    if era == LEGACY:  # the server's ping before the initialize response was answered
        answers = [m for m in target.messages() if m.get("id") == "early-ping"]
        assert answers and answers[0].get("result") == {}, target.records()


# -- size -----------------------------------------------------------------------------------


@transports
def test_an_oversized_result_arrives_whole_and_in_time(cli, bad, transport):
    size = 30 * 1000 * 1000
    result = run(cli, bad(transport, MODERN, "oversized", "--size", size), "-q", "tool", "call", "echo",
                 "message=x", timeout=15)
    assert result.code == 0, result.err
    assert result.out.startswith("Tool response:\nBBBB") and len(result.out) >= size, len(result.out)


@combos
def test_deeply_nested_json(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "deep-nesting", "--depth", 100000), "tool", "list")
    assert_fault(result, r"nest|deep")


@pytest.mark.parametrize("era", [MODERN, LEGACY])
def test_json_nested_too_deep_to_read_ends_its_stdio_request_at_once(cli, bad, era):
    """An answer json.loads cannot read at all (100000 levels: a RecursionError) still names its
    request at the top level: the request fails at once with the README's line, as over HTTP,
    not after --timeout (30 s here; the run's own bound is far shorter)."""
    result = cli(*bad("stdio", era, "deep-nesting", "--depth", 100000).args, "--timeout", "30", "tool", "list",
                 timeout=15)
    line = assert_fault(result, r"^mcp-tui: the server sent JSON nested more than 128 levels deep")
    assert "no answer" not in line, result


@transports
def test_a_server_discover_answer_nested_too_deep_is_named_not_hidden_behind_initialize(cli, bad, transport):
    """A too-deep server/discover answer was taken for a legacy server's junk: initialize went
    out and the user read 'initialize failed ... Method not found'. The server answered the
    probe: its line is the README's."""
    target = bad(transport, MODERN, "deep-nesting", "--on", "server/discover")
    line = assert_fault(run(cli, target, "tool", "list"),
                        r"^mcp-tui: the server sent JSON nested more than 128 levels deep")
    assert "initialize" not in line, line
    assert not target.messages("initialize"), target.messages()


@combos
def test_a_schema_nested_past_the_limit_is_refused_and_one_at_it_works(cli, bad, transport, era):
    """A tool whose inputSchema nests 300 levels read as JSON (under the interpreter's limit),
    then `snapshot` ran out of stack in its walk: `internal error: RecursionError`. JSON past
    128 levels is refused where it is read (a stdio answer at once, not at --timeout); a
    schema 60 levels deep (127 levels of JSON in the answer) is listed, described and snapshot."""
    for words in (["snapshot"], ["tool", "describe", "deep"]):
        line = assert_fault(run(cli, bad(transport, era, "deep-schema", "--depth", 300), *words),
                            r"the server sent JSON nested more than 128 levels deep")
        assert "timed out" not in line
    at_limit = bad(transport, era, "deep-schema", "--depth", 60)
    for words in (["snapshot"], ["tool", "describe", "deep"]):
        result = run(cli, at_limit, *words)
        assert result.code == 0 and "Traceback" not in result.err and '"x"' in result.out, result
    checked = run(cli, at_limit, "check")  # the bad server's own faults may fail a rule or two, never the walk
    assert "internal error" not in checked.out + checked.err and "nested more than" not in checked.out, checked


# -- slow servers ---------------------------------------------------------------------------


@transports
def test_a_trickle_that_ends_in_time_is_fine(cli, bad, transport):
    assert_listed(run(cli, bad(transport, MODERN, "trickle", "--delay-ms", 2), "tool", "list"))


@transports
def test_a_trickle_past_the_timeout(cli, bad, transport):
    result = run(cli, bad(transport, LEGACY, "trickle", "--delay-ms", 200), "tool", "list")
    assert_fault(result, r"no answer to tools/list within")


@combos
def test_never_answering(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "never-answer"), "tool", "list")
    assert_fault(result, r"no answer to tools/list within")


@combos
def test_a_hung_server(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "hang"), "tool", "list")
    assert_fault(result, r"no answer to tools/list within")


@pytest.mark.parametrize("transport,era", [("stdio", LEGACY), ("http", LEGACY)], ids=["stdio-2025", "http-2025"])
def test_a_timed_out_initialize_is_not_cancelled(cli, bad, transport, era):
    """The spec forbids cancelling initialize: the connection just ends."""
    target = bad(transport, era, "never-answer", "--on", "initialize")
    result = run(cli, target, "tool", "list", timeout=1)
    assert_fault(result, r"no answer to initialize within 1s")
    assert target.messages("initialize"), target.records()
    assert not target.messages("notifications/cancelled"), target.messages()


# -- at most once -------------------------------------------------------------------------------


@pytest.fixture
def recording_server(tmp_path):
    """recording_server(transport, *flags) -> Target: the test server (stdio or HTTP) with --record."""
    make, servers = serving(tmp_path, TESTSERVER, "testserver")
    yield make
    stop(servers)


@combos
def test_a_call_past_the_timeout_reaches_the_server_once(cli, recording_server, transport, era):
    """Timed out, the call is cancelled (or its connection closed), never posted again: the
    2025-11-25 session's end (DELETE) used to break the connection awaiting the answer, and
    the broken connection sent the tools/call once more."""
    target = recording_server(transport)
    runs = 3
    for _ in range(runs):
        result = run(cli, target, "--protocol-version", era, "tool", "call", "long_operation", "steps=2",
                     "step_ms=4000", timeout=1)
        assert_fault(result, r"no answer to tools/call within 1s")
    assert run(cli, target, "--protocol-version", era, "tool", "list").code == 0  # after what the runs sent
    calls = target.messages("tools/call")
    assert len(calls) == runs, calls


@http_eras
def test_a_call_whose_connection_breaks_before_the_answer_is_not_sent_again(cli, recording_server, transport, era):
    """A kept-alive connection (tools/list went first on it) closed while the call awaits its
    headers: the server may be running the tool, so the call is not posted again."""
    target = recording_server(transport, "--hang-up-calls")
    result = run(cli, target, "--protocol-version", era, "--no-cache", "tool", "call", "echo", "message=once")
    line = assert_fault(result, r"the connection to .* broke before the server answered")
    assert "does not send it twice" in line, line
    assert target.messages("tools/list"), target.records()
    assert len(target.messages("tools/call")) == 1, target.messages()


@transports
def test_the_timeout_message_names_the_timeout_given(cli, bad, transport):
    line = assert_fault(run(cli, bad(transport, MODERN, "never-answer"), "tool", "list"), r"no answer")
    assert re.search(r"within 3(\.0)?s\b", line), line  # not "within 2.99995s" or "3.00013s"


# -- HTTP -----------------------------------------------------------------------------------


@http_eras
def test_401_shows_the_challenge_and_not_the_token(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "http-401"), "--bearer", "sekrit-token-1234", "tool", "list")
    line = assert_fault(result, r"\b401\b")
    assert "resource_metadata=" in line and "--bearer" in line, line
    assert "sekrit-token-1234" not in result.err + result.out


@http_eras
def test_403_shows_the_scope_challenge(cli, bad, transport, era):
    line = assert_fault(run(cli, bad(transport, era, "http-403"), "tool", "list"), r"\b403\b")
    assert "insufficient_scope" in line, line


@pytest.mark.parametrize("mode", ["http-404-session", "http-404-session-empty"])
def test_404_session_expiry_initializes_again(cli, bad, mode):
    target = bad("http", LEGACY, mode)
    result = run(cli, target, "tool", "call", "echo", "message=hi")
    assert result.code == 0, result
    assert result.out == "Tool response:\necho: hi\n", result
    posts = [(r["http"]["headers"].get("mcp-session-id"), r["message"]) for r in target.http("POST")
             if isinstance(r.get("message"), dict)]
    initializes = [session for session, message in posts if message.get("method") == "initialize"]
    assert len(initializes) == 2 and initializes[1] is None, posts  # the second one without the dead session
    calls = [(session, message["id"]) for session, message in posts if message.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0][0] != calls[1][0] and calls[0][1] != calls[1][1], calls


@http_eras
def test_5xx(cli, bad, transport, era):
    assert_fault(run(cli, bad(transport, era, "http-5xx"), "tool", "list"), r"\b503\b")


@http_eras
def test_wrong_content_type(cli, bad, transport, era):
    assert_fault(run(cli, bad(transport, era, "wrong-content-type"), "tool", "list"), r"text/html")


def test_a_cut_sse_stream_is_resumed_with_last_event_id_after_retry(cli, bad):
    target = bad("http", LEGACY, "sse-cut", "--retry-ms", 300)
    result = run(cli, target, "tool", "list")
    assert_listed(result)
    assert "SSE-LOG before the cut" in result.err, result
    post = [r for r in target.http("POST") if (r.get("message") or {}).get("method") == "tools/list"]
    gets = [r for r in target.http("GET") if "last-event-id" in r["http"]["headers"]]  # not the standalone stream
    assert len(post) == 1 and len(gets) == 1, target.records()
    headers = gets[0]["http"]["headers"]
    assert re.match(r"^s\d+-1$", headers.get("last-event-id", "")), headers  # the last id the stream sent
    assert headers.get("mcp-session-id") == post[0]["http"]["headers"]["mcp-session-id"]
    waited = gets[0]["t"] - post[0]["t"]
    assert waited >= 0.25, "resumed after %.3fs, before the server's retry: 300" % waited  # order, not speed


@pytest.mark.parametrize("prefix", ["\u00e9", "\u20ac"])
def test_a_resume_sends_a_unicode_event_id_as_utf8(cli, bad, prefix):
    """Last-Event-ID went out Latin-1 (http.client's default): 'é' as the byte E9, and an id
    with '€' failed the call with a misleading 'cannot reach' line. The SSE spec sends UTF-8."""
    target = bad("http", LEGACY, "sse-cut", "--retry-ms", 0, "--event-id-prefix", prefix)
    result = run(cli, target, "tool", "list")
    assert_listed(result)
    assert len(target.messages("tools/list")) == 1


def test_a_refused_resume_says_a_cut_stream_was_being_resumed_and_the_call_went_once(cli, bad):
    """A resume the server refuses (GET -> 405) ended with a bare 'HTTP 405 Method Not Allowed':
    neither that a cut response stream was being resumed nor that the call was sent once."""
    target = bad("http", LEGACY, "never-answer", "--on", "tools/call")
    line = assert_fault(run(cli, target, "tool", "call", "echo", "message=hi"),
                        r"^mcp-tui: the server cut the response stream, and resuming it failed: HTTP 405")
    assert "(not sent again: the tool may have run" in line, line
    assert len(target.messages("tools/call")) == 1


def test_a_retry_longer_than_the_timeout_is_named_when_the_call_times_out(cli, bad):
    """A cut stream's `retry: 600000` was obeyed in silence: the call ended at --timeout with
    'raise --timeout', no word that the server had asked for a ten-minute wait."""
    target = bad("http", LEGACY, "sse-cut", "--retry-ms", 600000)
    line = assert_fault(run(cli, target, "tool", "list"), r"^mcp-tui: no answer to tools/list within 3s")
    assert "SSE retry of 600s before it may be resumed" in line, line
    assert len(target.messages("tools/list")) == 1 and not [g for g in target.http("GET")
                                                              if "last-event-id" in g["http"]["headers"]]


def test_a_stream_cut_forever_is_resumed_a_bounded_number_of_times(cli, bad):
    """Resuming is bounded by count (mcp_tui.STREAM_RESUMES in a row that bring nothing), not
    only by --timeout; the request itself is never sent again."""
    target = bad("http", LEGACY, "sse-cut-always", "--retry-ms", 100)
    result = run(cli, target, "tool", "list")
    assert_fault(result, r"cut the response stream again each of the %d times" % mcp_tui.STREAM_RESUMES)
    gets = [g for g in target.http("GET") if "last-event-id" in g["http"]["headers"]]
    assert len(gets) == mcp_tui.STREAM_RESUMES, target.records()
    ids = [g["http"]["headers"].get("last-event-id") for g in gets]
    assert len(set(ids)) == len(ids), ids  # every resume names the newest id
    assert len(target.messages("tools/list")) == 1


def test_a_cut_2026_stream_reissues_an_idempotent_request(cli, bad):
    target = bad("http", MODERN, "sse-cut", "--times", 1)
    result = run(cli, target, "tool", "list")
    assert_listed(result)
    lists = target.messages("tools/list")
    assert len(lists) == 2 and lists[0]["id"] != lists[1]["id"], lists
    assert not target.http("GET"), "2026-07-28 has no GET stream and no resumption"
    assert not [r for r in target.http() if "last-event-id" in r["http"]["headers"]]


def test_a_cut_2026_stream_does_not_run_a_tool_twice(cli, bad):
    target = bad("http", MODERN, "sse-cut", "--on", "tools/call", "--times", 1)
    result = run(cli, target, "tool", "call", "echo", "message=hi")
    assert_fault(result, r"stream|closed|cut")
    assert len(target.messages("tools/call")) == 1
    assert not [r for r in target.http() if "last-event-id" in r["http"]["headers"]]


@http_eras
def test_a_redirect_on_the_same_origin_is_followed_or_named(cli, bad, transport, era):
    target = bad(transport, era, "redirect")
    result = run(cli, target, "tool", "list")
    if result.code == 0:
        assert_listed(result)
        assert [r for r in target.http("POST") if r["http"]["path"] == "/mcp2"]
    else:
        line = assert_fault(result, r"redirect")
        assert target.url.replace("/mcp", "/mcp2") in line, line


@http_eras
def test_a_redirect_to_another_origin_is_not_followed(cli, bad, transport, era):
    target = bad(transport, era, "redirect-cross-origin")
    result = run(cli, target, "--bearer", "sekrit-token-1234", "tool", "list")
    line = assert_fault(result, r"redirect")
    assert "localhost" in line, line
    assert not [r for r in target.http() if r["http"]["headers"].get("host", "").startswith("localhost")], \
        "mcp-tui followed a redirect to another origin"


# -- tasks ----------------------------------------------------------------------------------

TASK_CALL = ("tool", "call", "slow_task", "--task", "--wait")


@combos
def test_a_task_status_nobody_knows(cli, bad, transport, era):
    assert_fault(run(cli, bad(transport, era, "task-unknown-status"), *TASK_CALL), r"'paused'")


@combos
def test_a_task_that_leaves_a_terminal_status(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "task-regress"), *TASK_CALL)
    line = assert_fault(result, r"completed")
    assert "working" in line, line


@combos
def test_a_fresh_task_the_server_does_not_know(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "task-32602"), *TASK_CALL)
    assert_fault(result, r"Task not found")


@combos
def test_a_task_that_expires_while_waited_for(cli, bad, transport, era):
    result = run(cli, bad(transport, era, "task-ttl", "--ttl-ms", 1000), *TASK_CALL, timeout=60)
    assert_fault(result, r"TTL|expired")  # the TTL (1s) ended the wait, not --timeout (60s): that says 'no answer'
