"""Streams and sessions as real servers have them, not only as the test server's defaults:
chunked SSE on kept-alive connections (Express, uvicorn) cut mid-response and resumed with
Last-Event-ID, and servers that forget their session at once or issue none."""
import http.client
import json
from urllib.parse import urlsplit

import pytest
from conftest import shows_status

LEGACY = "2025-11-25"
STREAMS = {"close": [], "chunked": ["--chunked-streams"]}  # Connection: close, or as Express and uvicorn send it


def legacy_server(start_server, *flags):
    return start_server("--era", LEGACY, "--record-http", *flags)


def calls(server, method):
    return [r for r in server.records() if r["message"].get("method") == method]


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_a_stream_cut_mid_response_is_resumed_and_the_call_sent_once(cli, start_server, stream):
    """The connection closes after a progress event (chunked: without the terminating chunk,
    which mcp-tui reported as "the connection broke"); the result comes on GET with
    Last-Event-ID, the last id the stream carried, and the call was sent once."""
    server = legacy_server(start_server, *STREAMS[stream] + ["--cut-streams", "2", "--cut-method", "tools/call",
                                                             "--retry-ms", "100"])
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "long_operation", "steps=3", "step_ms=1")
    assert (result.code, result.out) == (0, "Tool response:\nDone after 3 steps\n"), result
    assert "3/3" in result.err, result  # the progress after the cut arrived too
    assert len(calls(server, "tools/call")) == 1
    resumed = [r["headers"] for r in server.http_requests("GET") if "last-event-id" in r["headers"]]
    assert len(resumed) == 1, server.http_requests()
    post = calls(server, "tools/call")[0]["http"]["headers"]
    assert resumed[0]["mcp-session-id"] == post["mcp-session-id"]
    assert resumed[0]["last-event-id"].endswith("-2"), resumed  # priming event -0, then two progress events
    assert resumed[0]["accept"] == "text/event-stream"


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_a_stream_cut_right_after_its_priming_event_is_resumed(cli, start_server, stream):
    """Every answer is SSE and each is cut once, after the priming event alone (its id is all
    there is to resume from): each request still gets its answer, none is sent twice."""
    server = legacy_server(start_server, *STREAMS[stream] + ["--sse-responses", "--cut-streams", "0",
                                                             "--retry-ms", "50"])
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result
    assert len(calls(server, "tools/call")) == 1 and len(calls(server, "tools/list")) <= 1
    resumed = [r["headers"]["last-event-id"] for r in server.http_requests("GET") if "last-event-id" in r["headers"]]
    assert resumed and all(value.endswith("-0") for value in resumed), resumed


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_a_chunked_stream_that_ends_cleanly_needs_no_resume(cli, start_server, stream):
    server = legacy_server(start_server, *STREAMS[stream] + ["--sse-responses"])
    result = cli("--url", server.url, "tool", "call", "long_operation", "steps=2", "step_ms=1")
    assert (result.code, result.out) == (0, "Tool response:\nDone after 2 steps\n"), result
    assert not [r for r in server.http_requests("GET") if "last-event-id" in r["headers"]]


# --cut-how, with each framing it applies to: where a cut stream stops (tests/testserver.py's CUT_HOWS)
CUTS = [(how, stream) for how in ("mid-event", "mid-event-id", "end") for stream in sorted(STREAMS)] + [
    ("mid-chunk", "chunked")]
CUT_IDS = ["%s-%s" % cut for cut in CUTS]


@pytest.mark.parametrize("how, stream", CUTS, ids=CUT_IDS)
def test_a_stream_cut_inside_an_event_is_resumed_from_the_last_whole_one(cli, start_server, how, stream):
    """Cut inside the third progress event (with or without its id line, inside a chunk), or
    ended cleanly without the answer: the half event is dropped with its connection (it was
    read into the resumed stream: "the server sent invalid JSON"), and the resume names the
    last event that was whole (the cut one's id was taken from its id line)."""
    server = legacy_server(start_server, *STREAMS[stream] + ["--cut-streams", "2", "--cut-method", "tools/call",
                                                             "--cut-how", how, "--retry-ms", "50"])
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "long_operation", "steps=3", "step_ms=1")
    assert (result.code, result.out) == (0, "Tool response:\nDone after 3 steps\n"), result
    assert "3/3" in result.err, result  # the event that was cut arrived whole on the resumed stream
    assert len(calls(server, "tools/call")) == 1
    resumed = [r["headers"]["last-event-id"] for r in server.http_requests("GET") if "last-event-id" in r["headers"]]
    assert len(resumed) == 1 and resumed[0].endswith("-2"), resumed  # priming -0, then two whole progress events


@pytest.mark.parametrize("how, stream", [cut for cut in CUTS if cut[0] != "end"],
                         ids=[name for name in CUT_IDS if not name.startswith("end")])
def test_a_stream_cut_inside_its_answer_gets_the_answer_on_resume(cli, start_server, how, stream):
    """The event cut is the answer itself (its id line sent, or not): resuming from that id
    (taken before the event was whole) skipped the answer, which then never came."""
    server = legacy_server(start_server, *STREAMS[stream] + ["--sse-responses", "--cut-streams", "0",
                                                             "--cut-method", "tools/call", "--cut-how", how,
                                                             "--retry-ms", "50"])
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result
    assert len(calls(server, "tools/call")) == 1
    resumed = [r["headers"]["last-event-id"] for r in server.http_requests("GET") if "last-event-id" in r["headers"]]
    assert len(resumed) == 1 and resumed[0].endswith("-0"), resumed  # the priming event: the last whole one


@pytest.mark.parametrize("how, stream", [cut for cut in CUTS if cut[0] != "end"],
                         ids=[name for name in CUT_IDS if not name.startswith("end")])
def test_a_get_stream_cut_inside_a_server_request_is_resumed_and_the_request_answered(cli, start_server, how, stream):
    """The GET stream is cut inside the event that carries the server's ping: the resumed GET
    names the priming event (the last whole one), the ping is replayed whole and answered."""
    server = legacy_server(start_server, *STREAMS[stream] + ["--fidelity", "--cut-streams", "0", "--cut-method", "GET",
                                                             "--cut-how", how, "--retry-ms", "50"])
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "ask_on_stream", "method=ping")
    assert (result.code, result.out) == (0, "Tool response:\nping answered: {}\n"), result
    resumed = [r["headers"]["last-event-id"] for r in server.http_requests("GET") if "last-event-id" in r["headers"]]
    assert resumed == ["0-0"], resumed


@pytest.mark.parametrize("how", ["mid-event", "mid-event-id", "between"])
def test_a_2024_sse_stream_cut_ends_the_command_with_one_line(cli, start_server, how):
    """The 2024-11-05 HTTP+SSE transport has no resumption: its stream cut inside the answer to
    initialize (after the endpoint event) ends the command with one line, exit 1, and no
    half event read as JSON."""
    server = start_server("--legacy-sse", "--cut-streams", "1", "--cut-method", "GET", "--cut-how", how)
    result = cli("--url", server.url, "--timeout", 20, "tool", "call", "echo", "message=hi")
    assert result.code == 1 and result.out == "", result
    lines = [line for line in result.err.splitlines() if line.startswith("mcp-tui:")]
    assert len(lines) == 1 and "closed the SSE stream" in lines[0], result
    assert "Traceback" not in result.err and "invalid JSON" not in result.err, result
    assert not calls(server, "tools/call")


SESSION_REFUSALS = {  # test server flag -> what its refusal after a good initialize says, and mcp-tui's hint
    "--lose-sessions": ("HTTP 404", "Session not found", "no longer knows the session"),
    "--no-session-ids": ("HTTP 400", "No valid session ID provided", "issued no session id"),
}


@pytest.mark.parametrize("command", [["tool", "list"], ["check"]])
@pytest.mark.parametrize("flag", sorted(SESSION_REFUSALS))
def test_a_session_refused_after_initialize_is_reported_as_the_server_said_it(cli, start_server, flag, command):
    """404 after a good initialize (a server that forgot its session at once), or 400 from one
    that issued none, is no sign of the legacy HTTP+SSE transport: its fallback's answer (a
    405 from most servers) hid the real one, in check too."""
    status, body, hint = SESSION_REFUSALS[flag]
    server = legacy_server(start_server, flag)
    result = cli("--url", server.url, *command)
    assert result.code == 1, result
    shown = result.out + result.err
    assert status in shown and body in shown, result
    if command == ["tool", "list"]:
        assert hint in result.err, result
    assert not shows_status(shown, 405) and "HTTP+SSE" not in shown, result
    assert not [r for r in server.http_requests("GET") if "mcp-session-id" not in r["headers"]]  # no SSE probe


def test_initialize_refused_with_a_4xx_still_tries_the_legacy_transport(cli, start_server):
    """The fallback stays where the spec puts it: the initialize POST itself refused."""
    server = start_server("--legacy-sse")
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result


@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_a_cut_2026_stream_loses_the_request_and_a_read_is_sent_again(cli, start_server, stream):
    """2026-07-28 has no resumption: the cut request is lost, and an idempotent read is sent
    again with a new id (a chunked cut was "the connection broke", exit 1), never resumed."""
    server = start_server("--era", "2026-07-28", "--record-http", "--sse-responses", "--cut-streams", "0",
                          "--cut-method", "tools/list", *STREAMS[stream])
    result = cli("--url", server.url, "tool", "list")
    assert result.code == 0 and "echo" in result.out, result
    lists = calls(server, "tools/list")
    assert len(lists) == 2 and lists[0]["message"]["id"] != lists[1]["message"]["id"], lists
    assert not server.http_requests("GET")


@pytest.mark.parametrize("how, stream", CUTS, ids=CUT_IDS)
def test_a_2026_stream_cut_every_way_is_sent_again_if_a_read_and_never_if_a_call(cli, start_server, how, stream):
    """2026-07-28 has no resumption: a read cut anywhere (inside an event, inside a chunk, or a
    clean end without its answer) is sent again with a new id and its answer shown; a tools/call
    is not sent again (the tool may have run). No GET, no Last-Event-ID."""
    def cutting(method):
        return start_server("--era", "2026-07-28", "--record-http", "--sse-responses", "--cut-streams", "0",
                            "--cut-method", method, "--cut-how", how, *STREAMS[stream])

    server = cutting("tools/list")
    listed = cli("--url", server.url, "tool", "list")
    assert listed.code == 0 and "echo" in listed.out, listed
    lists = calls(server, "tools/list")
    assert len(lists) == 2 and lists[0]["message"]["id"] != lists[1]["message"]["id"], lists
    assert not server.http_requests("GET")
    server = cutting("tools/call")
    called = cli("--url", server.url, "tool", "call", "echo", "message=hi")
    assert called.code == 1 and "not sent again" in called.err, called
    assert len(calls(server, "tools/call")) == 1
    assert not server.http_requests("GET")


def test_the_test_server_s_chunked_streams_end_with_their_last_chunk_unless_cut(start_server):
    """The modes the tests above rely on, seen raw: a chunked, kept-alive stream ends with its
    terminating chunk, and a cut one without it (http.client's IncompleteRead)."""
    server = start_server("--era", "2026-07-28", "--sse-responses", "--chunked-streams", "--cut-streams", "0",
                          "--cut-method", "tools/list")
    url = urlsplit(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)

    def post(method, request_id):
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}}}}
        conn.request("POST", url.path, json.dumps(body), {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method})
        return conn.getresponse()

    whole = post("server/discover", 1)
    assert (whole.getheader("Transfer-Encoding"), whole.getheader("Connection")) == ("chunked", "keep-alive")
    assert b"\ndata: {" in whole.read() and whole.isclosed()  # read to its terminating chunk
    cut = post("tools/list", 2)  # on the same connection: it was kept alive
    assert cut.getheader("Transfer-Encoding") == "chunked"
    with pytest.raises(http.client.IncompleteRead):
        cut.read()
    conn.close()


@pytest.mark.parametrize("flags", [["--era", "2025-11-25", "--sse-responses", "--no-event-ids", "--cut-streams", "0",
                                    "--cut-method", "tools/call"],
                                   ["--legacy-sse", "--cut-streams", "3", "--cut-method", "GET", "--cut-how", "mid-event"]],
                         ids=["2025-no-event-ids", "legacy-http-sse"])
def test_a_cut_call_says_it_was_sent_once_in_every_era(cli, start_server, flags):
    """Only 2026-07-28 cuts said the tool may have run: a 2025-11-25 stream cut with no ids to
    resume from, and a legacy HTTP+SSE stream cut mid-call, said only that the stream closed."""
    server = start_server(*flags)
    called = cli("--url", server.url, "tool", "call", "long_operation", "steps=3", "step_ms=300", timeout=60)
    assert called.code == 1, called
    assert "(not sent again: the tool may have run; run it again yourself if that is safe" in called.err, called
    assert len(calls(server, "tools/call")) == 1
