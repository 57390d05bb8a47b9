"""Streams and sessions as real servers have them, not only as the test server's defaults:
chunked SSE on kept-alive connections (Express, uvicorn) cut mid-response and resumed with
Last-Event-ID, and servers that forget their session at once or issue none."""
import pytest

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


@pytest.mark.parametrize("command", [["tool", "list"], ["check"]])
def test_a_session_forgotten_after_initialize_is_reported_as_such(cli, start_server, command):
    """404 after a good initialize is the session's end, not a sign of the legacy HTTP+SSE
    transport: its fallback's answer (a 405 from most servers) hid the real one."""
    server = legacy_server(start_server, "--lose-sessions")
    result = cli("--url", server.url, *command)
    assert result.code == 1, result
    shown = result.out + result.err
    assert "HTTP 404" in shown and "Session not found" in shown, result
    if command == ["tool", "list"]:
        assert "no longer knows the session" in result.err, result
    assert "405" not in shown and "HTTP+SSE" not in shown, result
    assert not [r for r in server.http_requests("GET") if "mcp-session-id" not in r["headers"]]  # no SSE probe


@pytest.mark.parametrize("command", [["tool", "list"], ["check"]])
def test_a_server_that_issues_no_session_id_is_reported_with_its_400(cli, start_server, command):
    server = legacy_server(start_server, "--no-session-ids")
    result = cli("--url", server.url, *command)
    assert result.code == 1, result
    shown = result.out + result.err
    assert "HTTP 400" in shown and "No valid session ID provided" in shown, result
    if command == ["tool", "list"]:
        assert "issued no session id" in result.err, result
    assert not server.http_requests("GET"), server.http_requests()  # the SSE fallback's GET was never sent


def test_initialize_refused_with_a_4xx_still_tries_the_legacy_transport(cli, start_server):
    """The fallback stays where the spec puts it: the initialize POST itself refused."""
    server = start_server("--legacy-sse")
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi")
    assert (result.code, result.out) == (0, "Tool response:\nhi\n"), result
