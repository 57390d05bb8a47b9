#!/usr/bin/env python3
"""badserver: a deliberately misbehaving MCP server, for mcp-tui's reliability tests.

One file, standard library only, Python 3.8+.

    python3 tests/badserver.py --mode MODE [options]
      (default)              serve stdio (newline-delimited JSON-RPC)
      --http [HOST:]PORT     serve Streamable HTTP at /mcp (port 0 picks a free port) and print
                             exactly one line: "listening on http://HOST:PORT/mcp"
      --era 2026-07-28|2025-11-25
                             the one era it speaks (default 2026-07-28). 2026-07-28 answers
                             server/discover and has the io.modelcontextprotocol/tasks extension;
                             2025-11-25 answers initialize, keeps HTTP sessions and has
                             experimental tasks.
      --on METHOD            the request method the fault hits (each mode has a default)
      --times N              how many times the fault fires (0: every time; default per mode)
      --record FILE          append one JSON line per message received, and per HTTP request
                             (with its headers and the time), so that tests can check the client
      --size BYTES           oversized: the size of the text (default 30 MB); method-flood,
                             emoji-flood, big-pages, stderr-lines: the size of each
      --depth N              deep-nesting, deep-schema: the nesting depth (default 100000)
      --delay-ms N           trickle: milliseconds between bytes (default 5)
      --retry-ms N           sse-cut: the SSE retry field (default 300)
      --event-id-prefix TEXT SSE event ids begin with TEXT (any Unicode); a resume's Last-Event-ID is
                             read as UTF-8, as the SSE spec sends it
      --ttl-ms N             task-ttl: the task's TTL (default 1000)
      --count N              the floods (log-, request-, sampling-, method-, emoji-, stderr-flood,
                             stderr-lines): how many (default 20000)
      --status N             echo-secrets over HTTP: 0 (a JSON-RPC error, the default), 401 or 500
      --task-id ID           odd-task-id: the task ID slow_task creates
      --name NAME            odd-names: a tool, prompt, resource and template of this name (repeatable)
      --elicit-url URL       url-elicit, url-required: the URL the elicitation asks the client to open
      --pid-file FILE        spawn-child: where the child's pid goes

Apart from the one fault its mode selects it is a small, correct server with the tools
echo(message) (with a progress and a log notification when the request asks for progress)
and slow_task (always a task: the extension under 2026-07-28, experimental tasks under
2025-11-25; it completes on the second tasks/get).
"""

import argparse
import json
import os
import sys
import threading
import time
from urllib.parse import urlsplit

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
META = "io.modelcontextprotocol/"

# Every kind of string a terminal should never receive raw: CSI (colours, clear screen,
# alternate screen, cursor moves), OSC (window title, an OSC 8 hyperlink, clipboard), DCS,
# single-character escapes (RIS reset, save cursor), C1 controls (CSI, OSC, NEL, ST), other
# C0 controls (BEL, BS, CR, NUL, DEL) and bidi overrides and isolates (U+202E "Trojan
# Source"). Visible markers sit between them so that a test can tell text that survived.
HOSTILE = ("A\x1b[31mRED\x1b[0m B\x1b[2J\x1b[H\x1b[?1049h C\x1b]0;PWNED-TITLE\x07 "
           "D\x1b]8;;http://evil.example/\x1b\\LINK\x1b]8;;\x1b\\ E\x1b]52;c;ZXZpbA==\x07 "
           "F\x1bP1$r\x1b\\ G\x1bc\x1b7 H\x9b31m\x9d0;c1title\x9c I\x07\x08\x7f\x00\x85\x1c "
           "J\u202egnp.exe\u202c K\u2066iso\u2069\u200f\u061c L\x1b[1;31H\x1b[K\r M\x1b")

HOSTILE_LATIN1 = "".join(c for c in HOSTILE if ord(c) < 256 and c not in "\r\n\x00")

HOSTILE_CHARS = set("\x1b\x9b\x9d\x9c\x90\x9e\x9f\x07\x08\x7f\x00\x85\r\u202e\u202c\u2066\u2069\u200f\u061c")

MODES = {
    "ok": "no fault at all",
    "crash-initialize": "exit 3 (after a line on stderr) on the first handshake request; HTTP: the process dies",
    "crash-mid-response": "send progress and a log notification, half of the response, then exit 1",
    "crash-mid-list": "answer tools/list page 1 (with a cursor), crash on page 2",
    "crash-mid-task": "create the task, then exit 3 on the first tasks/get or tasks/result",
    "invalid-json": "answer with a truncated JSON text",
    "stdout-logs": "stdio: plain-text log lines, JSON that is not JSON-RPC, blank lines and CRLF on stdout",
    "wrong-jsonrpc": 'answer with "jsonrpc": "1.0"',
    "no-id": "answer with a response that has no id",
    "result-and-error": "answer with a response that has both result and error",
    "duplicate-response": "send the response twice",
    "unknown-id": "send a response to an id the client never used, then the real response",
    "wrong-id": "answer only with a response to an id the client never used",
    "wrong-shape": 'tools/list answers {"tools": "echo"}',
    "wrong-shape-result": "the result is a JSON array, not an object",
    "wrong-shape-call": "tools/call answers content blocks of the wrong types",
    "out-of-order": "2026-07-28: of the first two concurrent requests (subscriptions/listen and tasks/get), "
                    "answer the later first",
    "early-notification": "a log notification (and, under 2025-11-25, a ping) before the handshake response",
    "oversized": "tools/call echo answers --size bytes of text",
    "deep-nesting": "the response holds an array nested --depth deep",
    "deep-schema": "tools/list: a tool 'deep' whose inputSchema nests --depth levels (a property of objects "
                   "of objects ...)",
    "trickle": "write the response one byte every --delay-ms",
    "never-answer": "never answer (and otherwise behave)",
    "hang": "stop reading and writing altogether (stdio: also ignore the end of stdin)",
    "http-401": "every POST: 401 with a WWW-Authenticate challenge",
    "http-403": "every POST: 403 with an insufficient_scope challenge",
    "http-404-session": "2025-11-25: forget the session and answer 404 (-32001 body); a new initialize works",
    "http-404-session-empty": "as http-404-session with an empty body",
    "http-5xx": "503 with an HTML body",
    "wrong-content-type": "200 with text/html",
    "sse-cut": "an SSE stream with ids and retry, cut before the response; 2025-11-25 replays it on a GET "
               "with Last-Event-ID, 2026-07-28 does not",
    "sse-cut-always": "as sse-cut, and every resumed stream is cut again",
    "get-stream-ends": "2025-11-25 HTTP: every GET opens a stream without event ids that carries one log "
                       "notification, 'GET stream N', and ends",
    "redirect": "POST /mcp: 307 to /mcp2 on the same origin, which serves normally",
    "redirect-cross-origin": "POST /mcp: 307 to http://localhost:PORT/mcp2 (another origin)",
    "task-unknown-status": 'tasks/get reports status "paused"',
    "task-regress": 'the task is created "completed", then tasks/get says "working" (then completed)',
    "task-32602": "tasks/get and tasks/result answer -32602 for the task just created",
    "task-ttl": "the task stays working; past its TTL tasks/get and tasks/result answer -32602 'Task has expired'",
    "hostile": "every string the client may show holds escape sequences, controls and bidi overrides",
    "endless-line": "the answer is one line that never ends (stdio), an SSE data line that never ends (HTTP)",
    "endless-event": "HTTP: an SSE event of data lines that never ends",
    "endless-body": "HTTP: a JSON body without Content-Length that never ends (the connection is the frame)",
    "endless-chunked": "HTTP: a chunked JSON body that never ends",
    "huge-length": "HTTP: a JSON body announced with Content-Length: 1 TB",
    "drip": "HTTP: the response to --on (a method, notifications included, or GET or DELETE) drips its status "
            "line one byte every --delay-ms, forever",
    "endless-pages": "tools/list: every page has a fresh nextCursor",
    "log-flood": "tools/call echo: --count log notifications before the answer",
    "request-flood": "2025-11-25 stdio: --count ping requests before answering tools/call",
    "stderr-flood": "stdio: the same stderr line --count times on the first handshake request, then exit 3",
    "sampling-flood": "2025-11-25 stdio: --count sampling/createMessage requests before answering tools/call",
    "method-flood": "tools/call echo: --count notifications whose method is --size characters, before the answer",
    "emoji-flood": "tools/call echo: --count log notifications of --size emoji each, before the answer",
    "big-pages": "tools/list: every page has a fresh nextCursor and a tool whose description is --size bytes",
    "stderr-lines": "stdio: --count different stderr lines of --size bytes each before answering tools/call echo",
    "echo-secrets": "tools/list answers with every request header, the URL, argv and environment echoed "
                    "(HTTP: --status says how)",
    "retry-after": "HTTP: the first --times tools/list answer 429 with Retry-After: 1",
    "odd-task-id": "slow_task creates the task --task-id",
    "odd-names": "2026-07-28: tools/list (with ttlMs, so that it is cached), prompts/list, resources/list and "
                 "resources/templates/list also name one item for each --name",
    "url-elicit": "2025-11-25: tools/call echo first asks the client to open --elicit-url",
    "url-required": "2025-11-25: tools/call echo fails with -32042, whose data asks to open --elicit-url",
    "spawn-child": "stdio: start a child process that sleeps (its pid in --pid-file)",
    "float-id": "first an impostor answer (a tool IMPOSTOR) with the id as a float (3 -> 3.0), then the real one",
    "true-id": "on the handshake (request 1): first an impostor answer (server IMPOSTOR) with id true, then the "
               "real one",
    "null-id-error": "first an error with id null (a parse error the server could not place), then the answer",
    "nan": "tools/call echo answers NaN and Infinity in structuredContent",
    "capabilities-not-object": "the handshake answers capabilities that are a list",
    "server-info-not-object": "the handshake answers a serverInfo that is a string",
    "session-id-controls": "2025-11-25 HTTP: the session id holds a control byte (0x01)",
}

DEFAULT_ON = {"crash-mid-response": "tools/call", "wrong-shape-call": "tools/call", "oversized": "tools/call",
              "http-404-session": "tools/call", "http-404-session-empty": "tools/call", "log-flood": "tools/call",
              "request-flood": "tools/call", "url-elicit": "tools/call", "nan": "tools/call",
              "sampling-flood": "tools/call", "method-flood": "tools/call", "emoji-flood": "tools/call",
              "stderr-lines": "tools/call", "url-required": "tools/call"}
FLOODS = ("log-flood", "request-flood", "sampling-flood", "method-flood", "emoji-flood", "stderr-lines")
DEFAULT_TIMES = {"http-404-session": 1, "http-404-session-empty": 1, "retry-after": 1}
ENDLESS = ("endless-line", "endless-event", "endless-body", "endless-chunked", "huge-length")
HANDSHAKE = ("server/discover", "initialize")


def dumps(message):
    return json.dumps(message, separators=(",", ":")).encode("utf-8")


def now_iso(epoch=None):
    epoch = time.time() if epoch is None else epoch
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + ".%03dZ" % int(epoch % 1 * 1000)


def notification(method, params):
    return {"jsonrpc": "2.0", "method": method, "params": params}


class Crash(Exception):
    pass


# ==============================================================================================
# Wires: where a request's notifications and response go
# ==============================================================================================


class StdioWire(object):
    lock = threading.Lock()

    def __init__(self, app):
        self.app = app

    def send(self, message):
        self.raw(dumps(message) + (b"\r\n" if self.app.mode == "stdout-logs" else b"\n"))

    def raw(self, data):
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def crash(self, code, why, partial=b""):
        with self.lock:
            sys.stdout.buffer.write(partial)
            sys.stdout.buffer.flush()
            sys.stderr.write(why + "\n")
            sys.stderr.flush()
            os._exit(code)

    def trickle(self, data, delay):
        with self.lock:
            for index in range(len(data)):
                sys.stdout.buffer.write(data[index:index + 1])
                sys.stdout.buffer.flush()
                time.sleep(delay)

    def hang(self):
        while True:
            time.sleep(3600)

    def endless(self, mode, request_id):
        with self.lock:
            pour(sys.stdout.buffer, b'{"jsonrpc":"2.0","id":%s,"result":{"x":"' % json.dumps(request_id).encode())
        os._exit(0)


def pour(stream, head, piece=b"a" * 65536, between=b""):
    """Write ``head``, then ``piece`` (and ``between``) until the reader goes away."""
    try:
        stream.write(head)
        while True:
            stream.write(piece + between)
            stream.flush()
    except (OSError, ValueError):
        return


class HttpWire(object):
    """One POST: buffered messages become one JSON body or an SSE stream."""

    def __init__(self, app, handler):
        self.app = app
        self.h = handler
        self.items = []
        self.body = None
        self.headers = {}
        self.streaming = False
        self.done = False
        self._event_id = 0
        self.stream_name = "%ss%d" % (app.opts.event_id_prefix, app.next_number())

    def send(self, message):
        if self.streaming:
            self.event(dumps(message).decode("utf-8"))
        else:
            self.items.append(message)

    def raw(self, data):
        self.body = (self.body or b"") + data

    def start_stream(self, retry_ms=None, prime=False):
        h = self.h
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        if self.app.mode == "hostile":
            h.send_header("X-Hostile", HOSTILE_LATIN1)
        for name, value in self.headers.items():
            h.send_header(name, value)
        h.end_headers()
        h.close_connection = True
        self.streaming = True
        self.done = True
        if prime or retry_ms is not None:
            head = "id: %s\n" % self.next_event_id()
            if retry_ms is not None:
                head += "retry: %d\n" % retry_ms
            self.write((head + "data: \n\n").encode("utf-8"))
        items, self.items = self.items, []
        for item in items:
            self.send(item)

    def next_event_id(self):
        event_id = "%s-%d" % (self.stream_name, self._event_id)
        self._event_id += 1
        return event_id

    def event(self, data, event_id=True):
        text = ""
        if event_id:
            text += "id: %s\n" % self.next_event_id()
        text += "".join("data: %s\n" % line for line in data.split("\n")) + "\n"
        self.write(text.encode("utf-8"))

    def write(self, data):
        self.h.wfile.write(data)
        self.h.wfile.flush()

    def crash(self, code, why, partial=b""):
        try:
            if partial:
                if not self.streaming:
                    self.start_stream()
                self.write(b"data: " + partial)
        except OSError:
            pass
        sys.stderr.write(why + "\n")
        sys.stderr.flush()
        os._exit(code)

    def trickle(self, data, delay):
        h = self.h
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        self.done = True
        for index in range(len(data)):
            self.write(data[index:index + 1])
            time.sleep(delay)

    def hang(self):
        while True:
            time.sleep(3600)

    def endless(self, mode, request_id):
        h = self.h
        self.done = True
        h.close_connection = True
        start = b'{"jsonrpc":"2.0","id":%s,"result":{"x":"' % json.dumps(request_id).encode()
        if mode == "huge-length":
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(10 ** 12))
            h.end_headers()
            return pour(h.wfile, start)
        if mode in ("endless-line", "endless-event"):
            h.send_response(200)
            h.send_header("Content-Type", "text/event-stream")
            h.end_headers()
            if mode == "endless-line":
                return pour(h.wfile, b"data: " + start)
            return pour(h.wfile, b"data: " + start, b"a" * 1000, b"\ndata: ")
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if mode == "endless-chunked":
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            piece = b"a" * 65536
            return pour(h.wfile, b"%x\r\n%s\r\n" % (len(start), start), b"%x\r\n%s\r\n" % (len(piece), piece))
        h.send_header("Connection", "close")
        h.end_headers()
        return pour(h.wfile, start)

    def finish(self):
        if self.done:
            return
        self.done = True
        if self.body is not None:
            self.app.reply(self.h, 200, self.body, "application/json", self.headers)
        elif not self.items:
            self.app.reply(self.h, 202, b"", None, self.headers)
        elif len(self.items) == 1:
            self.app.reply(self.h, 200, dumps(self.items[0]), "application/json", self.headers)
        else:
            self.start_stream()


class CaptureWire(object):
    def __init__(self):
        self.items = []

    def send(self, message):
        self.items.append(message)


# ==============================================================================================
# The server
# ==============================================================================================


class App(object):
    def __init__(self, opts):
        self.opts = opts
        self.mode = opts.mode
        self.era = opts.era
        self.modern = opts.era == MODERN
        self.fault_method = opts.on or DEFAULT_ON.get(self.mode, "tools/list")
        self.times = opts.times if opts.times is not None else DEFAULT_TIMES.get(self.mode, 0)
        self.fired = 0
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.counter = 0
        self.tasks = {}
        self.sessions = set()
        self.replay = {}  # last event id -> (wire stream name, response) for sse-cut
        self.get_streams = 0  # get-stream-ends: how many GET streams were opened
        self.arrivals = 0
        self.second_answered = False
        self.client_responses = {}
        self.port = None
        self.record_lock = threading.Lock()

    # -- bookkeeping ------------------------------------------------------------------------

    def next_number(self):
        with self.lock:
            self.counter += 1
            return self.counter

    def record(self, message, **extra):
        if not self.opts.record:
            return
        entry = {"t": time.time(), "message": message}
        entry.update(extra)
        with self.record_lock:
            with open(self.opts.record, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry) + "\n")

    def fire(self, message):
        """Does the fault hit this request?"""
        if self.mode == "ok" or not isinstance(message, dict) or message.get("method") != self.fault_method:
            return False
        with self.lock:
            if self.times and self.fired >= self.times:
                return False
            self.fired += 1
            return True

    def result(self, request_id, result):
        result = dict(result)
        if self.modern:
            result.setdefault("resultType", "complete")
            result.setdefault("_meta", {META + "serverInfo": {"name": "badserver", "version": "1.0"}})
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    @staticmethod
    def error(request_id, code, message, data=None):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        return {"jsonrpc": "2.0", "id": request_id, "error": error}

    def hostile(self, prefix):
        return prefix + " " + HOSTILE if self.mode == "hostile" else prefix

    # -- dispatch ---------------------------------------------------------------------------

    def handle(self, message, wire, faulty=None):
        """Answer one message on ``wire`` (its notifications, then its response)."""
        if not isinstance(message, dict):
            return
        method, request_id = message.get("method"), message.get("id")
        if self.mode == "true-id" and method in HANDSHAKE and request_id == 1:
            impostor = self.handle_quietly(message)
            wire.send(dict(json.loads(dumps(impostor).replace(b'"badserver"', b'"IMPOSTOR"')), id=True))
        if method is None:
            with self.cond:
                self.client_responses[json.dumps(request_id)] = message
                self.cond.notify_all()
            return
        if "id" not in message:
            return  # notifications: initialized, cancelled, ...
        if faulty is None:
            faulty = self.fire(message)
        if self.mode == "crash-initialize" and method in HANDSHAKE:
            wire.crash(3, "badserver: fatal: cannot read /etc/badserver.conf: permission denied")
        if self.mode == "stderr-flood" and method in HANDSHAKE:
            sys.stderr.write("badserver: retrying the database connection\n" * self.opts.count)
            wire.crash(3, "badserver: giving up")
        if self.mode == "hang" and faulty:
            wire.hang()
        handler = getattr(self, "m_" + method.replace("/", "_"), None)
        if handler is None:
            response = self.error(request_id, -32601, "Method not found: %s" % method)
        else:
            response = handler(message, wire, faulty)
        if response is not None:
            self.deliver(message, wire, response, faulty)

    def handle_quietly(self, message):
        """The response ``handle`` would send, without sending it."""
        handler = getattr(self, "m_" + message["method"].replace("/", "_"))
        return handler(message, CaptureWire(), False)

    def deliver(self, message, wire, response, faulty):
        """Send ``response``, broken the way the mode says when the fault hits."""
        if self.mode == "stdout-logs" and isinstance(wire, StdioWire):
            wire.raw(b"INFO  badserver: answering %s\n\n" % message["method"].encode())
            wire.raw(b'{"level":"debug","msg":"structured log line, not JSON-RPC"}\n[1,2,3]\n"a string"\n')
        if not faulty:
            wire.send(response)
            return
        mode = self.mode
        if mode == "invalid-json":
            text = dumps(response)
            wire.raw(text[:len(text) // 2] + b"\n")
        elif mode == "wrong-jsonrpc":
            wire.send(dict(response, jsonrpc="1.0"))
        elif mode == "no-id":
            wire.send({key: value for key, value in response.items() if key != "id"})
        elif mode == "result-and-error":
            wire.send(dict(response, error={"code": -32603, "message": "boom"}))
        elif mode == "duplicate-response":
            wire.send(response)
            wire.send(response)
        elif mode == "unknown-id":
            wire.send({"jsonrpc": "2.0", "id": 987654, "result": {}})
            wire.send(response)
        elif mode == "wrong-id":
            wire.send(dict(response, id=987654))
        elif mode == "float-id" and isinstance(response.get("id"), int):
            wire.send(dict(json.loads(dumps(response).replace(b'"echo"', b'"IMPOSTOR"')), id=float(response["id"])))
            wire.send(response)
        elif mode == "null-id-error":
            wire.send(self.error(None, -32700, "Parse error"))
            wire.send(response)
        elif mode == "nan" and "result" in response:
            wire.raw(dumps(dict(response, result=dict(response["result"], structuredContent={"x": "NAN"})))
                     .replace(b'{"x":"NAN"}', b'{"x":NaN,"y":Infinity,"z":-Infinity}') + b"\n")
        elif mode == "wrong-shape" and "result" in response:
            wire.send(dict(response, result=dict(response["result"], tools="echo")))
        elif mode == "wrong-shape-result":
            wire.send(dict(response, result=[1, 2, 3]))
        elif mode == "deep-nesting":
            depth = self.opts.depth
            text = dumps(response)
            wire.raw(text[:-2] + b',"deep":' + b"[" * depth + b"]" * depth + b"}}\n")
        elif mode == "trickle":
            wire.trickle(dumps(response) + b"\n", self.opts.delay_ms / 1000.0)
        elif mode == "never-answer":
            return
        elif mode in ENDLESS:
            wire.endless(mode, response.get("id"))
        elif mode == "crash-mid-response":
            text = dumps(response)
            wire.crash(1, "badserver: segmentation fault (core dumped)", text[:len(text) // 2])
        else:
            wire.send(response)

    # -- the handshake ----------------------------------------------------------------------

    def early(self, wire):
        wire.send(notification("notifications/message", {"level": "info", "logger": "boot",
                                                          "data": "EARLY-LOG warming up"}))
        if not self.modern:
            if isinstance(wire, HttpWire):
                wire.start_stream()  # the ping must reach the client before the response
            wire.send({"jsonrpc": "2.0", "id": "early-ping", "method": "ping"})
            with self.cond:  # hold the handshake response until the client has answered
                self.cond.wait_for(lambda: '"early-ping"' in self.client_responses, 5.0)

    def m_server_discover(self, message, wire, faulty):
        if not self.modern:
            return self.error(message["id"], -32601, "Method not found: server/discover")
        if self.mode == "early-notification":
            self.early(wire)
        capabilities = {"tools": {}, "resources": {}, "prompts": {}, "completions": {},
                        "extensions": {TASKS_EXTENSION: {}}}
        if self.mode == "capabilities-not-object":
            capabilities = sorted(capabilities)
        result = {"supportedVersions": [MODERN], "capabilities": capabilities, "ttlMs": 0, "cacheScope": "private",
                  "_meta": {META + "serverInfo": self.server_info()}}
        if self.mode == "hostile":
            result["instructions"] = self.hostile("INSTRUCTIONS")
        return self.result(message["id"], result)

    def server_info(self):
        if self.mode == "server-info-not-object":
            return "badserver 1.0"
        if self.mode == "hostile":
            return {"name": self.hostile("NAME"), "title": self.hostile("TITLE"),
                    "version": self.hostile("1.0\nFORGED-VERSION")}  # a line break: no line of its own
        return {"name": "badserver", "version": "1.0"}

    def m_initialize(self, message, wire, faulty):
        if self.modern:
            return self.error(message["id"], -32601, "Method not found: initialize (this server speaks %s only; "
                                                     "send server/discover)" % MODERN)
        if isinstance(wire, HttpWire):
            session = "sess-%d-%s" % (self.next_number(), os.urandom(4).hex())
            if self.mode == "session-id-controls":
                session += "\x01"
            with self.lock:
                self.sessions.add(session)
            wire.headers["Mcp-Session-Id"] = session
        if self.mode == "early-notification":
            self.early(wire)
        capabilities = {"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "logging": {},
                        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}
        if self.mode == "capabilities-not-object":
            capabilities = sorted(capabilities)
        result = {"protocolVersion": LEGACY, "capabilities": capabilities, "serverInfo": self.server_info()}
        if self.mode == "hostile":
            result["instructions"] = self.hostile("INSTRUCTIONS")
        return self.result(message["id"], result)

    def m_ping(self, message, wire, faulty):
        return self.result(message["id"], {})

    # -- tools ------------------------------------------------------------------------------

    def tools(self):
        echo = {"name": "echo", "description": "Echo a message back.",
                "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                                "required": ["message"]}}
        task = {"name": "slow_task", "description": "Runs as a task.", "inputSchema": {"type": "object"}}
        if not self.modern:
            task["execution"] = {"taskSupport": "required"}
        tools = [echo, task]
        if self.mode == "hostile":
            hostile_tools = [
                {"name": "evil", "title": self.hostile("TOOL-TITLE"), "description": self.hostile("TOOL-DESC"),
                 "annotations": {"title": self.hostile("ANNOTATION")},
                 "inputSchema": {"type": "object", "properties": {
                     "x": {"type": "string", "title": self.hostile("PROP"), "description": self.hostile("PROP-DESC")}}}},
                {"name": self.hostile("EVIL-NAME"), "description": "a hostile name"},
                {"name": "fail", "description": "answers a JSON-RPC error", "inputSchema": {"type": "object"}},
                {"name": "iserror", "description": "answers isError", "inputSchema": {"type": "object"}},
                {"name": "crash", "description": "writes to stderr and exits", "inputSchema": {"type": "object"}},
                {"name": "ask", "description": "asks for input", "inputSchema": {"type": "object"}},
                {"name": "surrogate", "description": "lone \ud800 surrogate", "inputSchema": {"type": "object"}},
            ]
            tools += hostile_tools
        if self.mode == "odd-names":
            tools += [{"name": name, "description": "an odd name", "inputSchema": {"type": "object"}}
                      for name in self.opts.name]
        if self.mode == "deep-schema":
            nested = {"type": "string"}
            for _ in range(self.opts.depth):
                nested = {"type": "object", "properties": {"x": nested}}
            tools.append({"name": "deep", "description": "a schema nested --depth deep",
                          "inputSchema": {"type": "object", "properties": {"x": nested}}})
        return tools

    def m_tools_list(self, message, wire, faulty):
        tools = self.tools()
        cursor = (message.get("params") or {}).get("cursor")
        if self.mode == "big-pages":
            tools = [dict(tools[0], name="big_%d" % self.next_number(), description="d" * self.opts.size)]
        if self.mode in ("endless-pages", "big-pages"):
            return self.result(message["id"], {"tools": tools, "nextCursor": "page-%d" % self.next_number()})
        if self.mode == "echo-secrets":
            return self.error(message["id"], -32603, "I saw: " + self.echo(wire))
        if self.mode == "crash-mid-list":
            if cursor is None:
                return self.result(message["id"], {"tools": tools[:1], "nextCursor": "page-2"})
            wire.crash(1, "badserver: out of memory while listing page 2")
        if self.mode == "odd-names":  # cached, as `completion tool-names` reads them
            return self.result(message["id"], {"tools": tools, "ttlMs": 60000, "cacheScope": "public"})
        return self.result(message["id"], {"tools": tools})

    def echo(self, wire):
        """Everything a client may have put a secret in, as one string."""
        seen = {}
        if isinstance(wire, HttpWire):  # first: a client may show only the start of an error body
            headers = wire.h.headers
            seen.update(path=wire.h.path, authorization=headers.get("Authorization"), key=headers.get("X-Api-Key"))
        seen.update(env={k: v for k, v in os.environ.items() if k.startswith("MCP_TEST")}, argv=sys.argv)
        return json.dumps(seen)

    def floods(self, message, wire):
        count = self.opts.count
        if isinstance(wire, HttpWire):
            wire.start_stream()
        if self.mode == "log-flood":
            for index in range(count):
                wire.send(notification("notifications/message", {"level": "info", "logger": "flood",
                                                                  "data": "FLOOD %d %s" % (index, "x" * 1000)}))
        elif self.mode == "method-flood":
            for index in range(count):
                wire.send(notification("notifications/%d/%s" % (index, "m" * self.opts.size), {}))
        elif self.mode == "emoji-flood":
            emoji = "\U0001F600" * self.opts.size
            for index in range(count):
                wire.send(notification("notifications/message", {"level": "info", "logger": "flood",
                                                                  "data": "%d %s" % (index, emoji)}))
        elif self.mode == "stderr-lines":
            filler = "e" * self.opts.size
            for index in range(count):
                sys.stderr.write("%d %s\n" % (index, filler))
            sys.stderr.flush()
        else:
            sampling = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
            for index in range(count):
                wire.send({"jsonrpc": "2.0", "id": "flood-%d" % index, "method": "ping"} if self.mode == "request-flood"
                          else {"jsonrpc": "2.0", "id": "flood-%d" % index, "method": "sampling/createMessage",
                                "params": sampling})
            with self.cond:  # the answer waits for every ping's answer (or refusal)
                self.cond.wait_for(lambda: sum(key.startswith('"flood-') for key in self.client_responses) >= count,
                                   60.0)

    def ask_url(self, message, wire):
        """Legacy: an elicitation/create in URL mode, then the answer it got as the result."""
        wire.send({"jsonrpc": "2.0", "id": "url-1", "method": "elicitation/create", "params": {
            "mode": "url", "message": "Sign in", "url": self.opts.elicit_url, "elicitationId": "e-1"}})
        with self.cond:
            self.cond.wait_for(lambda: '"url-1"' in self.client_responses, 30.0)
            answer = (self.client_responses.get('"url-1"') or {}).get("result") or {}
        return self.result(message["id"], {"content": [{"type": "text", "text": "url answer: %s" % json.dumps(answer)}]})

    def m_tools_call(self, message, wire, faulty):
        params = message.get("params") or {}
        name, arguments = params.get("name"), params.get("arguments") or {}
        request_id = message["id"]
        token = (params.get("_meta") or {}).get("progressToken")
        if name == "echo" and faulty and self.mode in FLOODS:
            self.floods(message, wire)
        if name == "echo" and faulty and self.mode == "url-elicit":
            return self.ask_url(message, wire)
        if name == "echo" and faulty and self.mode == "url-required":
            return self.error(request_id, -32042, "This request requires browser-based authorization.", {
                "elicitations": [{"mode": "url", "elicitationId": "e-1", "url": self.opts.elicit_url,
                                  "message": "Sign in to Example \x1b[31mMail\x1b[0m"}]})
        if name == "echo":
            if token is not None:
                wire.send(notification("notifications/progress", {"progressToken": token, "progress": 1, "total": 2,
                                                                   "message": "halfway"}))
                wire.send(notification("notifications/message", {"level": "info", "logger": "echo",
                                                                  "data": "ECHO-LOG before the answer"}))
            text = "echo: %s" % arguments.get("message", "")
            if self.mode == "oversized" and faulty:
                text = "B" * self.opts.size
            result = {"content": [{"type": "text", "text": text}]}
            if self.mode == "wrong-shape-call" and faulty:
                result = {"content": [{"type": "text", "text": 42}, "stray", {"type": "image"}, None]}
            return self.result(request_id, result)
        if name == "slow_task":
            return self.create_task(message, self.hostile("working on it"))
        if self.mode == "hostile":
            return self.hostile_call(message, wire, name, token)
        return self.error(request_id, -32602, "Unknown tool: %s" % name)

    def hostile_call(self, message, wire, name, token):
        request_id = message["id"]
        if name == "evil":
            if token is not None:
                wire.send(notification("notifications/progress", {"progressToken": token, "progress": 1, "total": 1,
                                                                   "message": self.hostile("PROGRESS")}))
            wire.send(notification("notifications/message", {"level": "warning", "logger": self.hostile("LOGGER"),
                                                              "data": self.hostile("LOG")}))
            # line breaks, which clean() keeps: none may start a line of the client's own
            wire.send(notification("notifications/x\nFORGED-METHOD", {}))
            wire.send(notification("notifications/message", {"level": "info\nFORGED-LEVEL",
                                                              "logger": "x\nFORGED-LOGGER", "data": "x\nFORGED-LOG"}))
            return self.result(request_id, {"content": [
                {"type": "text", "text": self.hostile("RESULT")},
                {"type": "resource_link", "uri": "file:///" + HOSTILE, "name": self.hostile("LINK-NAME"),
                 "description": self.hostile("LINK-DESC")},
                {"type": "image", "data": "", "mimeType": self.hostile("MIME")}],
                "structuredContent": {"k": self.hostile("STRUCTURED")}})
        if name == "fail":
            return self.error(request_id, -32603, self.hostile("ERROR"), {"detail": self.hostile("DATA")})
        if name == "iserror":
            return self.result(request_id, {"content": [{"type": "text", "text": self.hostile("ISERROR")}],
                                            "isError": True})
        if name == "crash":
            sys.stderr.write(self.hostile("STDERR") + "\n")
            sys.stderr.flush()
            wire.crash(3, self.hostile("STDERR-LAST"))
        if name == "ask":
            return self.hostile_ask(message, wire)
        if name == "surrogate":
            return self.result(request_id, {"content": [{"type": "text", "text": "lone \ud800 surrogate"}]})
        return self.error(request_id, -32602, "Unknown tool: %s" % self.hostile(str(name)))

    def elicitation(self):
        return {"mode": "form", "message": self.hostile("ASK-MESSAGE"),
                "requestedSchema": {"type": "object", "properties": {
                    "color": {"type": "string", "title": self.hostile("ASK-TITLE"),
                              "enum": [self.hostile("red"), "blue"]}}, "required": ["color"]}}

    def hostile_ask(self, message, wire):
        """Legacy: a server request (stdio only); modern: an MRTR input request."""
        params = message.get("params") or {}
        if self.modern:
            answers = params.get("inputResponses") or {}
            if "color" not in answers:
                return self.result(message["id"], {"resultType": "input_required", "inputRequests": {
                    "color": {"method": "elicitation/create", "params": self.elicitation()}}})
            answer = answers["color"]
        else:
            wire.send({"jsonrpc": "2.0", "id": "ask-1", "method": "elicitation/create", "params": self.elicitation()})
            with self.cond:
                self.cond.wait_for(lambda: '"ask-1"' in self.client_responses, 30.0)
                answer = (self.client_responses.get('"ask-1"') or {}).get("result") or {}
        return self.result(message["id"], {"content": [{"type": "text", "text": "answer: %s" % json.dumps(answer)}]})

    # -- tasks ------------------------------------------------------------------------------

    def create_task(self, message, status_message):
        params = message.get("params") or {}
        request_id = message["id"]
        if self.modern:
            capabilities = (params.get("_meta") or {}).get(META + "clientCapabilities") or {}
            if TASKS_EXTENSION not in (capabilities.get("extensions") or {}):
                return self.error(request_id, -32021, "Missing required client capability",
                                  {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}})
        elif not isinstance(params.get("task"), dict):
            return self.error(request_id, -32601, "slow_task must be called as a task")
        task_id = "task-%d-%s" % (self.next_number(), os.urandom(6).hex())
        if self.mode == "odd-task-id":
            task_id = self.opts.task_id
        ttl = self.opts.ttl_ms if self.mode == "task-ttl" else 60000
        task = {"taskId": task_id, "created": time.time(), "ttl": ttl, "gets": 0, "message": status_message}
        with self.lock:
            self.tasks[task_id] = task
        seed = self.view(task, "completed" if self.mode == "task-regress" else "working")
        if self.modern:
            return self.result(request_id, dict(seed, resultType="task"))
        return self.result(request_id, {"task": seed})

    def view(self, task, status, result=None):
        view = {"taskId": task["taskId"], "status": status, "statusMessage": task["message"],
                "createdAt": now_iso(task["created"]), "lastUpdatedAt": now_iso()}
        if self.modern:
            view.update(ttlMs=task["ttl"], pollIntervalMs=50)
            if status == "completed" and result is not None:
                view["result"] = result
        else:
            view.update(ttl=task["ttl"], pollInterval=50)
        return view

    def task_result(self, task):
        return {"content": [{"type": "text", "text": self.hostile("TASK-RESULT done")}]}

    def find_task(self, message, wire, crash_why):
        params = message.get("params") or {}
        with self.lock:
            task = self.tasks.get(params.get("taskId"))
        if self.mode == "crash-mid-task":
            wire.crash(3, crash_why)
        if task is None or self.mode == "task-32602":
            return None, self.error(message["id"], -32602, "Failed to retrieve task: Task not found")
        if self.mode == "task-ttl" and time.time() > task["created"] + task["ttl"] / 1000.0:
            return None, self.error(message["id"], -32602, "Failed to retrieve task: Task has expired")
        return task, None

    def m_tasks_get(self, message, wire, faulty):
        if self.mode == "out-of-order":
            return self.out_of_order(message, wire)
        task, error = self.find_task(message, wire, "badserver: killed by the OOM killer while polling a task")
        if error:
            return error
        with self.lock:
            task["gets"] += 1
            gets = task["gets"]
        if self.mode == "task-unknown-status":
            status = "paused"
        elif self.mode == "task-ttl":
            status = "working"
        else:
            status = "working" if gets == 1 else "completed"
        view = self.view(task, status, self.task_result(task))
        if self.mode == "task-unknown-status":
            view["status"] = "paused"
        return self.result(message["id"], view)

    def m_tasks_result(self, message, wire, faulty):
        task, error = self.find_task(message, wire, "badserver: killed while a tasks/result was open")
        if error:
            return error
        if self.mode == "task-ttl":
            deadline = task["created"] + task["ttl"] / 1000.0 + 0.3
            time.sleep(max(0.0, deadline - time.time()))
            return self.error(message["id"], -32602, "Failed to retrieve task: Task has expired")
        with self.lock:
            task["gets"] = max(task["gets"], 1)
        result = dict(self.task_result(task), _meta={META + "related-task": {"taskId": task["taskId"]}})
        return self.result(message["id"], result)

    def m_tasks_cancel(self, message, wire, faulty):
        task, error = self.find_task(message, wire, "badserver: crashed cancelling a task")
        if error:
            return error
        return self.result(message["id"], {} if self.modern else self.view(task, "cancelled"))

    def m_subscriptions_listen(self, message, wire, faulty):
        if self.mode == "out-of-order":
            return self.out_of_order(message, wire)
        if isinstance(wire, HttpWire):
            return self.result(message["id"], {})  # the subscription ends at once; polling goes on
        filters = (message.get("params") or {}).get("notifications") or {}
        wire.send(notification("notifications/subscriptions/acknowledged", {
            "notifications": filters, "_meta": {META + "subscriptionId": message["id"]}}))
        return None  # stays open until the client goes away

    def out_of_order(self, message, wire):
        """Hold the first of the two concurrent requests until the second is answered."""
        with self.cond:
            self.arrivals += 1
            order = self.arrivals
        if message["method"] == "tasks/get":
            task, error = self.find_task(message, wire, "")
            response = error or self.result(message["id"], self.view(task, "completed", self.task_result(task)))
        else:
            response = self.result(message["id"], {})
        if order == 1 and self.modern:
            with self.cond:
                self.cond.wait_for(lambda: self.second_answered, 5.0)
            return response
        if order == 2:  # recorded first: the client may exit (and end this process) once answered
            self.record(None, event="answered %s before the request that came first" % message["method"])
        wire.send(response)
        with self.cond:
            self.second_answered = True
            self.cond.notify_all()
        return None

    # -- resources, prompts, completion ------------------------------------------------------

    def m_resources_list(self, message, wire, faulty):
        resources = [{"uri": "test://plain", "name": "plain"}]
        if self.mode == "hostile":
            resources.append({"uri": "test://" + HOSTILE, "name": self.hostile("RES-NAME"),
                              "title": self.hostile("RES-TITLE"), "description": self.hostile("RES-DESC"),
                              "mimeType": self.hostile("text/plain")})
        if self.mode == "odd-names":
            resources += [{"uri": "test://odd/" + name, "name": name} for name in self.opts.name]
        return self.result(message["id"], {"resources": resources})

    def m_resources_templates_list(self, message, wire, faulty):
        templates = [{"uriTemplate": self.hostile("test://{id}"), "name": self.hostile("TEMPLATE")}]
        if self.mode == "odd-names":
            templates += [{"uriTemplate": "test://odd/" + name + "/{id}", "name": name} for name in self.opts.name]
        return self.result(message["id"], {"resourceTemplates": templates})

    def m_resources_read(self, message, wire, faulty):
        uri = (message.get("params") or {}).get("uri")
        return self.result(message["id"], {"contents": [{"uri": self.hostile(str(uri)),
                                                         "mimeType": self.hostile("text/plain"),
                                                         "text": self.hostile("CONTENTS")}]})

    def m_prompts_list(self, message, wire, faulty):
        return self.result(message["id"], {"prompts": [
            {"name": "p", "description": self.hostile("PROMPT-DESC"),
             # optional: mcp-tui refuses a prompt get that lacks a required argument before sending;
             # "a" is one a command line can name (`complete prompt p a=x`: names are checked first)
             "arguments": [{"name": self.hostile("ARG"), "required": False}, {"name": "a", "required": False}]}] +
            ([{"name": name, "arguments": [{"name": name}]} for name in self.opts.name] if self.mode == "odd-names"
             else [])})

    def m_prompts_get(self, message, wire, faulty):
        return self.result(message["id"], {"description": self.hostile("PROMPT-GET-DESC"), "messages": [
            {"role": self.hostile("user"), "content": {"type": "text", "text": self.hostile("PROMPT-TEXT")}}]})

    def m_completion_complete(self, message, wire, faulty):
        return self.result(message["id"], {"completion": {"values": [self.hostile("VALUE"), "plain"],
                                                          "total": 3, "hasMore": True}})

    # -- HTTP -------------------------------------------------------------------------------

    def reply(self, h, status, body, content_type="application/json", headers=None, reason=None):
        h.send_response(status, reason)
        if self.mode == "hostile":
            h.send_header("X-Hostile", HOSTILE_LATIN1)
        if content_type:
            h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.end_headers()
        if body:
            h.wfile.write(body)
        h.wfile.flush()

    def http_headers(self, h):
        return {name.lower(): value for name, value in h.headers.items()}

    def http_post(self, h):
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        try:
            message = json.loads(body.decode("utf-8"))
        except ValueError:
            message = None
        path = urlsplit(h.path).path
        self.record(message, http={"method": "POST", "path": path, "headers": self.http_headers(h)})
        mode = self.mode
        if mode in ("redirect", "redirect-cross-origin") and path == "/mcp":
            host = ("127.0.0.1:%d" if mode == "redirect" else "localhost:%d") % self.port
            return self.reply(h, 307, b"", None, {"Location": "http://%s/mcp2" % host})
        if path not in ("/mcp", "/mcp2"):
            return self.reply(h, 404, b"not found", "text/plain")
        if mode == "http-401":
            challenge = ('Bearer resource_metadata="http://127.0.0.1:%d/.well-known/oauth-protected-resource", '
                         'scope="files:read"' % self.port)
            return self.reply(h, 401, b'{"error":"invalid_token"}', "application/json",
                              {"WWW-Authenticate": challenge})
        if mode == "http-403":
            return self.reply(h, 403, b"Forbidden", "text/plain", {
                "WWW-Authenticate": 'Bearer error="insufficient_scope", scope="mcp:admin"'})
        if mode == "hostile" and h.headers.get("Authorization") == "Bearer hostile":
            return self.reply(h, 401, b"", None, {"WWW-Authenticate": 'Bearer realm="%s"' % HOSTILE_LATIN1}, reason="Unauthorized \x1b[31mRED\x1b[0m")
        if not isinstance(message, dict):
            return self.reply(h, 400, dumps(self.error(None, -32700, "Parse error")))
        method = message.get("method")
        if mode == "drip" and method == self.fault_method:
            return self.drip(h)
        if mode == "echo-secrets" and self.opts.status and method == "tools/list":
            return self.reply(h, self.opts.status, ("I saw: " + self.echo(HttpWire(self, h))).encode(), "text/plain")
        if not self.modern and method != "initialize":
            session = h.headers.get("Mcp-Session-Id")
            if session is None:
                return self.reply(h, 400, dumps(self.error(None, -32000, "Bad Request: No valid session ID provided")))
            if session not in self.sessions:
                return self.reply(h, 404, dumps(self.error(None, -32001, "Session not found")))
        if method is None or "id" not in message:
            self.handle(message, CaptureWire())
            return self.reply(h, 202, b"", None)
        faulty = self.fire(message)
        if faulty and mode == "retry-after":
            return self.reply(h, 429, b"slow down", "text/plain", {"Retry-After": "1"})
        if faulty and mode == "http-5xx":
            return self.reply(h, 503, b"<html><body><h1>503 Service Unavailable</h1>\n<p>upstream overloaded</p>"
                                      b"</body></html>", "text/html", {"Retry-After": "1"})
        if faulty and mode == "wrong-content-type":
            return self.reply(h, 200, b"<html><body>Welcome to nginx!</body></html>", "text/html")
        if faulty and mode in ("http-404-session", "http-404-session-empty"):
            with self.lock:
                self.sessions.discard(h.headers.get("Mcp-Session-Id"))
            body = dumps(self.error(None, -32001, "Session not found")) if mode == "http-404-session" else b""
            return self.reply(h, 404, body, "application/json" if body else None)
        wire = HttpWire(self, h)
        if faulty and mode in ("sse-cut", "sse-cut-always"):
            return self.sse_cut(message, wire)
        self.handle(message, wire, faulty)
        wire.finish()

    def sse_cut(self, message, wire):
        capture = CaptureWire()
        self.handle(message, capture, False)
        response = capture.items[-1] if capture.items else None
        wire.start_stream(retry_ms=self.opts.retry_ms)
        wire.send(notification("notifications/message", {"level": "info", "logger": "sse",
                                                         "data": "SSE-LOG before the cut"}))
        last = "%s-%d" % (wire.stream_name, wire._event_id - 1)
        if not self.modern:
            with self.lock:
                self.replay[last] = (wire.stream_name, response)
        # the connection closes here, before the response: the stream is cut

    def drip(self, h):
        """A status line and headers that never end, one byte at a time."""
        h.close_connection = True
        data = b"HTTP/1.1 200 OK\r\nX-Drip: "
        index = 0
        while True:
            h.wfile.write(data[index:index + 1] if index < len(data) else b"a")
            h.wfile.flush()
            index += 1
            time.sleep(self.opts.delay_ms / 1000.0)

    def http_get(self, h):
        path = urlsplit(h.path).path
        self.record(None, http={"method": "GET", "path": path, "headers": self.http_headers(h)})
        if self.mode == "drip" and self.fault_method == "GET":
            return self.drip(h)
        last = h.headers.get("Last-Event-ID")
        try:  # http.server reads header bytes as Latin-1; the SSE spec sends the id as UTF-8
            last = last.encode("latin-1").decode("utf-8") if last else last
        except UnicodeError:
            last = "(not UTF-8: %r)" % last
        if self.mode == "get-stream-ends" and not self.modern and not last:
            return self.short_get_stream(h)
        with self.lock:
            replay = self.replay.pop(last, None) if last else None
        if self.modern or replay is None:
            return self.reply(h, 405, b"", None, {"Allow": "POST"})
        stream, response = replay
        wire = HttpWire(self, h)
        wire.stream_name = stream
        wire._event_id = int(last.rsplit("-", 1)[1]) + 1
        if self.mode == "sse-cut-always":
            wire.start_stream(retry_ms=self.opts.retry_ms, prime=True)
            with self.lock:
                self.replay["%s-%d" % (stream, wire._event_id - 1)] = replay
            return
        wire.start_stream()
        wire.send(response)

    def short_get_stream(self, h):
        with self.lock:
            self.get_streams += 1
            number = self.get_streams
        wire = HttpWire(self, h)
        wire.start_stream()
        message = notification("notifications/message", {"level": "info", "logger": "badserver",
                                                          "data": "GET stream %d" % number})
        wire.event(dumps(message).decode("utf-8"), event_id=False)

    def http_delete(self, h):
        self.record(None, http={"method": "DELETE", "path": urlsplit(h.path).path, "headers": self.http_headers(h)})
        if self.mode == "drip" and self.fault_method == "DELETE":
            return self.drip(h)
        if self.modern:
            return self.reply(h, 405, b"", None, {"Allow": "POST"})
        with self.lock:
            self.sessions.discard(h.headers.get("Mcp-Session-Id"))
        return self.reply(h, 200, b"", None)


# ==============================================================================================
# Serving
# ==============================================================================================


def serve_stdio(app):
    if app.mode == "spawn-child":
        import subprocess

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(app.opts.pid_file, "w") as handle:
            handle.write(str(child.pid))
    if app.mode == "stdout-logs":
        sys.stdout.buffer.write(b"badserver 1.0 starting (this line should have gone to stderr)\n\n")
        sys.stdout.buffer.flush()
    if app.mode == "hostile":
        sys.stderr.write(app.hostile("STDERR-BANNER") + "\n")
        sys.stderr.flush()
    wire = StdioWire(app)
    threaded = ("tasks/result", "tasks/get", "subscriptions/listen", "tools/call")
    for raw in iter(sys.stdin.buffer.readline, b""):
        line = raw.strip()
        if not line:
            continue
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            app.record(None, junk=line.decode("utf-8", "replace"))
            continue
        app.record(message)
        method = message.get("method") if isinstance(message, dict) else None
        if app.mode == "early-notification" or (method in threaded and (
                app.mode in ("out-of-order", "task-ttl") or method in ("tasks/result", "tools/call"))):
            threading.Thread(target=app.handle, args=(message, wire), daemon=True).start()
        else:
            app.handle(message, wire)
    if app.mode == "hang":
        wire.hang()


def serve_http(app, address):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "badserver/1.0"

        def log_message(self, *args):
            pass

        def _guard(self, action):
            try:
                action(self)
            except (OSError, ValueError):
                self.close_connection = True

        def do_POST(self):
            self._guard(app.http_post)

        def do_GET(self):
            self._guard(app.http_get)

        def do_DELETE(self):
            self._guard(app.http_delete)

    host, _, port = address.rpartition(":")
    host = host or "127.0.0.1"
    httpd = ThreadingHTTPServer((host, int(port)), Handler)
    httpd.daemon_threads = True
    app.port = httpd.server_address[1]
    print("listening on http://%s:%d/mcp" % (host, app.port), flush=True)
    try:
        httpd.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


def main(argv=None):
    parser = argparse.ArgumentParser(prog="badserver", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=sorted(MODES), default="ok")
    parser.add_argument("--http", metavar="[HOST:]PORT")
    parser.add_argument("--era", choices=(MODERN, LEGACY), default=MODERN)
    parser.add_argument("--on", metavar="METHOD")
    parser.add_argument("--times", type=int)
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--size", type=int, default=30 * 1000 * 1000)
    parser.add_argument("--depth", type=int, default=100000)
    parser.add_argument("--delay-ms", type=float, default=5.0)
    parser.add_argument("--retry-ms", type=int, default=300)
    parser.add_argument("--event-id-prefix", default="")
    parser.add_argument("--ttl-ms", type=int, default=1000)
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--status", type=int, default=0)
    parser.add_argument("--task-id", default="-rf")
    parser.add_argument("--name", action="append", default=[])
    parser.add_argument("--elicit-url", default="https://example.com/")
    parser.add_argument("--pid-file")
    opts = parser.parse_args(argv)
    app = App(opts)
    if opts.http:
        serve_http(app, opts.http)
    else:
        serve_stdio(app)
    return 0


if __name__ == "__main__":
    sys.exit(main())
