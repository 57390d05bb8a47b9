"""Section 1 (wire): JSON-RPC framing and the SSE decoder."""
import json

import pytest

from conftest import wait_for

import mcp_tui
from mcp_tui import ProtocolViolation, SseDecoder, decode_messages, encode_message


def events(decoder, *chunks):
    out = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return [(e.event, e.data, e.id) for e in out]


def test_sse_joins_multiline_data_and_ignores_comments():
    got = events(SseDecoder(), ": keep-alive\n", "event: message\ndata: {\"a\":\ndata: 1}\nid: 7\n\n")
    assert got == [("message", '{"a":\n1}', "7")]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_sse_accepts_every_line_ending(newline):
    text = newline.join(["id: e1", "retry: 2000", "data: x", "", "data: y", "", ""])
    decoder = SseDecoder()
    assert [d for _, d, _ in events(decoder, text)] == ["x", "y"]
    assert decoder.retry_ms == 2000 and decoder.last_event_id == "e1"


def test_sse_crlf_split_across_chunks_is_one_line_end():
    decoder = SseDecoder()
    assert events(decoder, "data: a\r", "\n\r", "\n") == [("message", "a", None)]


def test_sse_priming_event_has_empty_data_and_keeps_its_id():
    decoder = SseDecoder()
    got = events(decoder, "id: prime\ndata: \n\n")
    assert got == [("message", "", "prime")]
    assert decoder.last_event_id == "prime"


def test_framing_is_one_line_without_embedded_newlines():
    line = encode_message({"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"text": "a\nb 世界"}})
    assert b"\n" not in line and "世界".encode() in line


def test_batches_from_2025_03_26_peers_are_unpacked():
    assert len(decode_messages(b'[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}]')) == 2


def test_invalid_json_is_a_protocol_violation():
    with pytest.raises(ProtocolViolation):
        decode_messages(b"{not json")
    with pytest.raises(ProtocolViolation):
        decode_messages(b"[1, 2]")


def test_http_error_names_the_status_and_the_fix_for_401():
    error = mcp_tui.HttpStatusError(401, "Unauthorized", b"", {"www-authenticate": 'Bearer realm="x"'})
    assert error.message == "HTTP 401 Unauthorized"
    assert "--bearer" in error.hint and 'Bearer realm="x"' in error.hint


@pytest.mark.parametrize("chunks", [["data: " + "x" * 2000], ["data: " + "x" * 600] * 4,
                                    ["data: " + "x" * 300 + "\n"] * 8], ids=["one-line", "pieces", "many-lines"])
def test_sse_refuses_a_line_or_an_event_over_the_limit_as_it_grows(chunks):
    decoder = SseDecoder(limit=1000)
    with pytest.raises(mcp_tui.MessageTooLarge, match="1000 bytes, the --max-message-size limit"):
        for chunk in chunks:
            decoder.feed(chunk)


def test_sse_under_the_limit_is_one_event():
    assert events(SseDecoder(limit=1000), "data: " + "x" * 900 + "\n\n") == [("message", "x" * 900, None)]


class SilentTransport(object):
    name = "stdio"

    def __init__(self):
        self.sent = []

    def send(self, message, headers=None):
        self.sent.append(message)


def test_server_requests_go_through_a_bounded_pool_and_the_excess_is_refused():
    import threading

    release, running, peak, lock = threading.Event(), [0], [0], threading.Lock()

    def handler(message):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(30)
        with lock:
            running[0] -= 1

    threads_before = threading.active_count()
    transport = SilentTransport()
    channel = mcp_tui.RpcChannel(transport, on_request=handler)
    total = 200
    for index in range(total):
        channel.deliver({"jsonrpc": "2.0", "id": index, "method": "ping"})
    refused = [m for m in transport.sent if m.get("error", {}).get("code") == -32000]
    accepted = mcp_tui.SERVER_REQUEST_WORKERS + mcp_tui.SERVER_REQUEST_BACKLOG
    assert total - len(refused) <= accepted and len(refused) >= total - accepted - mcp_tui.SERVER_REQUEST_WORKERS
    assert threading.active_count() <= threads_before + mcp_tui.SERVER_REQUEST_WORKERS
    release.set()
    assert peak[0] <= mcp_tui.SERVER_REQUEST_WORKERS


class StreamClosingTransport(mcp_tui.Transport):
    """2026-07-28 over HTTP: a cancel closes the request's stream, and the reader thread
    reports the broken stream at once (here, before abort returns: the worst order)."""
    carries_mcp_headers = True

    def start(self, channel):
        self.channel = channel

    def send(self, message, headers=None):
        pass

    def abort(self, request_id):
        self.channel.fail(request_id, mcp_tui.ConnectionFailed("the connection broke: 'NoneType' object has no "
                                                               "attribute 'close'"))


def test_a_cancel_that_closes_the_stream_reads_cancelled_not_the_broken_stream():
    import threading

    channel = mcp_tui.RpcChannel(StreamClosingTransport())
    channel.start()
    outcome = []

    def call():
        try:
            channel.call("tools/call", {"name": "long"}, timeout=30)
        except mcp_tui.McpTuiError as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    wait_for(lambda: channel.waiting_for(1), what="the call in flight")
    assert channel.cancel(1, "cancelled by the user")
    caller.join(30)
    assert isinstance(outcome[0], mcp_tui.RequestCancelled), outcome
    assert "cancelled by the user" in str(outcome[0])


def test_the_secret_registry_masks_every_form_of_a_secret():
    registry = mcp_tui.SecretRegistry()
    label = registry.add('tok"/é 1')
    text = 'raw tok"/é 1, json %s, url %s' % (json.dumps('tok"/é 1'), "tok%22%2F%C3%A9%201")
    assert registry.redact(text).count(label) == 3 and "tok" not in registry.redact(text)
    assert registry.add("abc") and registry.redact("abc") == "abc"  # too short to mask safely


@pytest.mark.parametrize("body", ["json", "sse"])
def test_a_large_tool_result_arrives_whole(cli, start_server, body):
    import testserver

    server = start_server("--big-text", "3", *(["--sse-responses"] if body == "sse" else []))
    result = cli("--url", server.url, "tool", "call", "big_text")
    assert result.code == 0, result.err[-2000:]
    assert result.out == "Tool response:\n" + testserver.big_text(3 * 1024 * 1024).rstrip("\n") + "\n"


def test_a_kept_alive_connection_the_server_closed_while_idle_is_replaced_before_sending():
    """The one resend that is safe: the server closed a pooled connection while it was idle,
    which shows before the request is written; a fresh connection carries the request, once."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))
    requests, closed = [], threading.Event()

    def serve():
        for _ in range(2):  # one request per connection, though the answer says keep-alive
            conn, _ = listener.accept()
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            requests.append(data.split(b"\r\n")[0])
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
            conn.close()
            closed.set()

    threading.Thread(target=serve, daemon=True).start()
    client = mcp_tui.HttpClient("http://127.0.0.1:%d/mcp" % listener.getsockname()[1], timeout=10)
    try:
        assert client.exchange("POST", body=b"{}", carries="first")[1] == b"{}"
        assert closed.wait(10)  # the pooled connection's server end is closed now
        response, payload = client.exchange("POST", body=b"{}", carries="tools/call", resendable=False)
        assert (response.status, payload) == (200, b"{}")
        assert requests == [b"POST /mcp HTTP/1.1"] * 2
    finally:
        client.close()
        listener.close()


@pytest.mark.parametrize("raw, cut, text", [
    (b"caf\xc3\xa9 \xc3\xbcber", False, "caf\u00e9 \u00fcber"),  # UTF-8, as it is
    (b"caf\xe9 \xfcber", False, "caf\u00e9 \u00fcber"),  # the code page (cp1252 here)
    (b"caf\xe9", False, "caf\u00e9"),  # a code-page line that ends where a UTF-8 character would start
    (b"caf\xc3", True, "caf\ufffd"),  # UTF-8 cut inside a character at the kept length
    (b"\x81\x8d", False, "\ufffd\ufffd"),  # bytes cp1252 has no character for: replaced, never a failure
], ids=["utf-8", "cp1252", "cp1252-at-the-end", "utf-8-cut", "undefined-in-cp1252"])
def test_server_stderr_is_utf_8_else_the_systems_code_page(monkeypatch, raw, cut, text):
    import locale

    monkeypatch.setattr(locale, "getencoding", lambda: "cp1252", raising=False)
    monkeypatch.setattr(locale, "getpreferredencoding", lambda do_setlocale=True: "cp1252")
    assert mcp_tui.server_text(raw, cut) == text


@pytest.mark.parametrize("wakes", [True, False], ids=["posix", "windows"])
@pytest.mark.parametrize("framing", ["chunked", "close"])
def test_shut_down_wakes_a_stream_s_reader(framing, wakes, monkeypatch):
    """The closing path of a stream a thread reads (a cancel, a timeout, the end of a command).
    shutdown(2) wakes the reader on Linux; on Windows (and Wine) only closing the socket does,
    and until it wakes it holds the response's buffer, so closing the connection waited for
    ever (``windows``: that branch, run here: the socket's handle itself is closed, also once
    a response that ends with its connection, ``close``, has taken it from the connection)."""
    import socket
    import threading

    monkeypatch.setattr(mcp_tui, "SHUTDOWN_WAKES_READERS", wakes, raising=False)
    listener = socket.create_server(("127.0.0.1", 0))
    served = []

    def serve():
        conn, _ = listener.accept()
        served.append(conn)
        data = b""
        while b"\r\n\r\n" not in data:
            data += conn.recv(4096)
        event = b'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n'
        if framing == "chunked":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + b"%x\r\n%s\r\n" % (len(event), event))
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + event)
        # then silence: the stream stays open, its reader blocked

    threading.Thread(target=serve, daemon=True).start()
    client = mcp_tui.HttpClient("http://127.0.0.1:%d/mcp" % listener.getsockname()[1], timeout=60)
    try:
        conn, response = client.open("POST", body=b"{}", seconds=10, stream=True, carries="subscriptions/listen")
        sock = response.fp.raw._sock  # the socket the reader reads, whoever holds it
        seen, ended = [], threading.Event()

        def read():
            try:
                for event in mcp_tui.iter_sse(response, SseDecoder()):
                    seen.append(event.data)
            except Exception:  # the end of the stream, however the close shows
                pass
            ended.set()

        threading.Thread(target=read, daemon=True).start()
        wait_for(lambda: seen, timeout=10)
        mcp_tui.shut_down(conn)
        if not wakes:
            assert sock.fileno() == -1, "shut_down left the socket open: on Windows its reader would not wake"
        assert ended.wait(10), "the reader still blocks after shut_down"
        client.discard(conn)  # returns: nobody holds the response's buffer any more
    finally:
        client.close()
        listener.close()
        for conn in served:
            conn.close()


def test_an_answer_too_deep_to_read_still_names_its_request():
    """json.loads cannot read 100000 levels (RecursionError); the top-level id is found by a scan
    that skips strings (brackets, quotes and an "id": inside them) and everything nested."""
    deep = "[" * 100000 + "]" * 100000
    text = '{"jsonrpc":"2.0","x":"[{\\"id\\":9}","result":{"id":8,"deep":%s}, "id" : 7}' % deep
    with pytest.raises(ProtocolViolation) as raised:
        decode_messages(text.encode())
    assert raised.value.answered_id == 7
    with pytest.raises(ProtocolViolation) as raised:  # a request from the server answers nothing
        decode_messages(('{"jsonrpc":"2.0","id":3,"method":"x","params":%s}' % deep).encode())
    assert raised.value.answered_id is None


def test_sse_an_event_s_id_is_the_last_event_id_only_once_the_event_is_dispatched():
    decoder = SseDecoder()
    events(decoder, "id: a\ndata: x\n\n", "id: b\ndata: {\"jsonrpc\":")  # b's event is cut before its end
    assert decoder.last_event_id == "a"
    assert events(decoder, "1}\n\n") == [("message", '{"jsonrpc":1}', "b")]
    assert decoder.last_event_id == "b"


def test_sse_an_id_with_nul_is_ignored_an_empty_one_clears_it_and_one_without_keeps_it():
    decoder = SseDecoder()
    events(decoder, "id: a\ndata: x\n\n", "id: b\0c\ndata: y\n\n")
    assert decoder.last_event_id == "a"
    assert events(decoder, "data: z\n\n") == [("message", "z", None)]  # its own id: none, so not a replay
    assert decoder.last_event_id == "a"  # the last event ID buffer is kept from event to event
    events(decoder, "id:\ndata: w\n\n")
    assert decoder.last_event_id is None  # an empty id: nothing to resume from


def test_sse_a_resumed_connection_is_parsed_afresh_with_the_last_id_and_retry():
    """The cut connection's half line and half event are dropped: they were read into the
    resumed stream's first line ("the server sent invalid JSON")."""
    cut = SseDecoder()
    events(cut, "retry: 250\nid: s1-1\ndata: {}\n\n", "id: x\ndata: {\"jsonrpc\":\"2.0\",")
    resumed = cut.next_connection()
    assert (resumed.last_event_id, resumed.retry_ms) == ("s1-1", 250)
    assert events(resumed, "id: s1-2\ndata: {\"a\":1}\n\n") == [("message", '{"a":1}', "s1-2")]
    assert resumed.last_event_id == "s1-2"


def test_sse_retry_applies_when_its_line_is_read_and_only_as_ascii_digits():
    """The spec sets the reconnection time as the retry line is read (not at dispatch, unlike
    the id), and ignores a value that is not only ASCII digits."""
    decoder = SseDecoder()
    events(decoder, "retry: 1.5\nretry: -1\nretry:\nretry: \u0662\ndata: x\n\n")
    assert decoder.retry_ms is None
    events(decoder, "id: y\nretry: 300\ndata: {\"cut")  # an event cut before its end
    assert (decoder.retry_ms, decoder.last_event_id) == (300, None)
