"""Helpers shared by the interop tests: reading mcp-tui's output, and raw JSON-RPC
clients (stdio pipes, streamable HTTP, legacy HTTP+SSE) written on the standard
library only, used by test_peers_smoke.py to prove the peers work without mcp-tui.
"""
import http.client
import itertools
import json
import queue
import shlex
import subprocess
import threading
import urllib.parse
from pathlib import Path

INTEROP_DIR = Path(__file__).resolve().parent
REPO_ROOT = INTEROP_DIR.parent.parent
MCP_TUI = REPO_ROOT / "mcp_tui.py"
SDK_SERVER = INTEROP_DIR / "sdk_server.py"
FASTMCP_SERVER = INTEROP_DIR / "fastmcp_tasks_server.py"
FASTMCP_AUTH_SERVER = INTEROP_DIR / "fastmcp_auth_server.py"
SDK_AUTH_SERVER = INTEROP_DIR / "sdk_auth_server.py"
FASTMCP_PROXY_SERVER = INTEROP_DIR / "fastmcp_proxy_server.py"

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
TASKS_EXT = "io.modelcontextprotocol/tasks"
CLIENT_INFO = {"name": "interop-smoke", "version": "0.0.1"}


def text_of(data):
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data


# --------------------------------------------------------------------------- mcp-tui output


def describe(result):
    """A failure message that shows what the user would have seen."""
    args = result.args[2:] if isinstance(result.args, list) else result.args
    return "exit %s for: mcp-tui %s\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
        result.returncode,
        shlex.join(args) if isinstance(args, list) else args,
        result.stdout,
        result.stderr,
    )


def tool_response(stdout, header="Tool response:"):
    """The lines printed after the `Tool response:` (or other `header`) line, or None.

    mcp-tui may follow the text content with a `Structured content:` block; that
    block and everything after it is left out.
    """
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == header:
            body = []
            for rest in lines[index + 1:]:
                if rest.strip() == "Structured content:":
                    break
                body.append(rest)
            return body
    return None


def json_output(result):
    """stdout parsed as one JSON document (what --format json promises)."""
    try:
        return json.loads(result.stdout)
    except ValueError as exc:
        raise AssertionError("stdout is not one JSON document (%s)\n%s" % (exc, describe(result)))


# --------------------------------------------------------------------------- raw JSON-RPC


class RpcError(Exception):
    def __init__(self, error, status=None):
        super().__init__("%s (HTTP %s)" % (error, status))
        self.error = error
        self.status = status

    @property
    def code(self):
        return self.error.get("code")


def modern_meta(capabilities=None, **extra):
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
        "io.modelcontextprotocol/clientCapabilities": capabilities or {},
    }
    meta.update(extra)
    return meta


def modern_params(params=None, capabilities=None, **meta_extra):
    out = dict(params or {})
    out["_meta"] = modern_meta(capabilities, **meta_extra)
    return out


def initialize_params(capabilities=None, version=LEGACY):
    return {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": CLIENT_INFO}


class StdioPeer:
    """A server over stdio: newline-delimited JSON-RPC on pipes; stderr goes to a file."""

    def __init__(self, argv, stderr_path, timeout=30, env=None, cwd=None):
        self._ids = itertools.count(1)
        self.timeout = timeout
        self.notifications = []
        self._stderr = open(stderr_path, "w")
        self.proc = subprocess.Popen(
            [str(a) for a in argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            encoding="utf-8",
            env=env,
            cwd=cwd,
        )
        self._inbox = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            if line.strip():
                self._inbox.put(json.loads(line))
        self._inbox.put(None)

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def request(self, method, params=None, on_request=None):
        """Send a request and return its result; raise RpcError on an error response.

        Server-to-client requests met on the way are answered with on_request(msg)
        (a result dict), or refused when no handler is given.
        """
        rid = next(self._ids)
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            msg = self._inbox.get(timeout=self.timeout)
            if msg is None:
                raise RpcError({"code": None, "message": "server closed stdout (exit %s)" % self.proc.poll()})
            if "method" in msg and "id" in msg:
                if on_request is None:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "unsupported"}})
                else:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": on_request(msg)})
            elif "method" in msg:
                self.notifications.append(msg)
            elif msg.get("id") == rid:
                if "error" in msg:
                    raise RpcError(msg["error"])
                return msg["result"]

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()


def iter_sse(response):
    """Yield (event, data) for each event of an SSE response read line by line."""
    event, data = "message", []
    while True:
        raw = response.readline()
        if not raw:
            if data:
                yield event, "\n".join(data)
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])


class HttpPeer:
    """Streamable HTTP client: modern (per-request headers) or legacy (initialize + session)."""

    def __init__(self, url, timeout=30):
        self.url = url
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.path = parts.hostname, parts.port, parts.path or "/"
        self.timeout = timeout
        self._ids = itertools.count(1)
        self.session_id = None
        self.legacy_version = None
        self.notifications = []
        self.last_status = None
        self.last_headers = {}

    def _post(self, body, headers):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        all_headers.update(headers)
        conn.request("POST", self.path, body=json.dumps(body).encode("utf-8"), headers=all_headers)
        return conn, conn.getresponse()

    def _headers(self, method, params, modern):
        if not modern:
            headers = {}
            if self.session_id:
                headers["Mcp-Session-Id"] = self.session_id
            if self.legacy_version:
                headers["MCP-Protocol-Version"] = self.legacy_version
            return headers
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        params = params or {}
        if method in ("tools/call", "prompts/get"):
            headers["Mcp-Name"] = params["name"]
        elif method == "resources/read":
            headers["Mcp-Name"] = params["uri"]
        elif method in ("tasks/get", "tasks/update", "tasks/cancel"):
            headers["Mcp-Name"] = params["taskId"]
        return headers

    def request(self, method, params=None, modern=True, on_request=None):
        rid = next(self._ids)
        body = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        conn, response = self._post(body, self._headers(method, params, modern))
        try:
            self.last_status = response.status
            self.last_headers = {k.lower(): v for k, v in response.getheaders()}
            if method == "initialize" and "mcp-session-id" in self.last_headers:
                self.session_id = self.last_headers["mcp-session-id"]
            ctype = self.last_headers.get("content-type", "")
            if ctype.startswith("text/event-stream"):
                for _event, data in iter_sse(response):
                    msg = json.loads(data)
                    if "method" in msg and "id" in msg:
                        self._answer(msg, on_request)
                    elif "method" in msg:
                        self.notifications.append(msg)
                    elif msg.get("id") == rid:
                        return self._unwrap(msg, response.status)
                raise RpcError({"code": None, "message": "SSE stream ended without a response"}, response.status)
            payload = response.read()
            if not payload:
                raise RpcError({"code": None, "message": "empty body"}, response.status)
            return self._unwrap(json.loads(payload), response.status)
        finally:
            conn.close()

    def _answer(self, msg, on_request):
        if on_request is None:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "unsupported"}}
        else:
            reply = {"jsonrpc": "2.0", "id": msg["id"], "result": on_request(msg)}
        conn, response = self._post(reply, self._headers(None, None, modern=False))
        response.read()
        conn.close()

    @staticmethod
    def _unwrap(msg, status):
        if "error" in msg:
            raise RpcError(msg["error"], status)
        return msg["result"]

    def notify(self, method, params=None):
        body = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            body["params"] = params
        conn, response = self._post(body, self._headers(method, params, modern=False))
        response.read()
        conn.close()
        return response.status

    def initialize(self, capabilities=None, version=LEGACY):
        result = self.request("initialize", initialize_params(capabilities, version), modern=False)
        self.legacy_version = result["protocolVersion"]
        self.notify("notifications/initialized")
        return result


class LegacySsePeer:
    """The deprecated 2024-11-05 HTTP+SSE transport: GET the stream, POST to its endpoint."""

    def __init__(self, url, timeout=30):
        parts = urllib.parse.urlsplit(url)
        self.url, self.host, self.port = url, parts.hostname, parts.port
        self.timeout = timeout
        self._ids = itertools.count(1)
        self._inbox = queue.Queue()
        self._conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        self._conn.request("GET", parts.path, headers={"Accept": "text/event-stream"})
        self._response = self._conn.getresponse()
        if self._response.status != 200:
            raise RpcError({"code": None, "message": "GET %s answered %s" % (url, self._response.status)})
        self._events = iter_sse(self._response)
        event, data = next(self._events)
        if event != "endpoint":
            raise RpcError({"code": None, "message": "first SSE event was %r, not endpoint" % event})
        self.endpoint = urllib.parse.urljoin(url, data)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        try:
            for event, data in self._events:
                if event == "message":
                    self._inbox.put(json.loads(data))
        except Exception:  # the stream is torn down under us by close()
            pass
        self._inbox.put(None)

    def _post(self, message):
        parts = urllib.parse.urlsplit(self.endpoint)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=self.timeout)
        target = parts.path + ("?" + parts.query if parts.query else "")
        conn.request("POST", target, body=json.dumps(message).encode("utf-8"),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self._post(message)

    def request(self, method, params=None, on_request=None):
        rid = next(self._ids)
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        status = self._post(message)
        if status not in (200, 202):
            raise RpcError({"code": None, "message": "POST answered %s" % status}, status)
        while True:
            msg = self._inbox.get(timeout=self.timeout)
            if msg is None:
                raise RpcError({"code": None, "message": "SSE stream closed"})
            if "method" in msg and "id" in msg:
                result = on_request(msg) if on_request else None
                if result is None:
                    self._post({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "unsupported"}})
                else:
                    self._post({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            elif msg.get("id") == rid and "method" not in msg:
                if "error" in msg:
                    raise RpcError(msg["error"])
                return msg["result"]

    def close(self):
        try:
            self._conn.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        self._conn.close()


# --------------------------------------------------------------------------- a relay that cuts a stream


class CuttingRelay:
    """A loopback TCP relay between mcp-tui and an HTTP peer that cuts, once, the first response
    stream that carries an SSE event with an `id:` and a message after the client asked for `trigger` (a method
    name, seen in the request bytes of that connection): the event is passed on whole, then both
    sockets close, as a real server's connection drops mid-stream (chunked, no clean end). Every
    later connection is relayed untouched. `.url` is the peer's URL with the relay's port."""

    def __init__(self, url, trigger=b'"tools/call"'):
        import socket

        parts = urllib.parse.urlsplit(url)
        self.upstream = (parts.hostname, parts.port)
        self.trigger = trigger
        self.cuts = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = urllib.parse.urlunsplit(parts._replace(netloc="127.0.0.1:%d" % self._listener.getsockname()[1]))
        threading.Thread(target=self._accept, name="cutting-relay", daemon=True).start()

    def _accept(self):
        import socket

        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            asked = []  # whether this connection's client sent the trigger
            threading.Thread(target=self._pump, args=(client, server, asked, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, asked, True), daemon=True).start()

    def _pump(self, source, sink, asked, answers):
        import socket

        seen = b""
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if not answers:
                    if self.trigger in data:
                        asked.append(True)
                    sink.sendall(data)
                    continue
                seen = (seen + data) if asked else b""
                with self._lock:
                    cut = not self.cuts and any(self.carries_an_id(event)
                                              for event in seen.replace(b"\r\n", b"\n").split(b"\n\n")[:-1])
                    if cut:
                        self.cuts += 1
                sink.sendall(data)
                if cut:
                    break
        except OSError:
            pass
        for sock in (source, sink):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    @staticmethod
    def carries_an_id(event):
        """An SSE event (its lines) with an id and a message (not a priming event's empty data)."""
        lines = event.split(b"\n")
        return (any(line.startswith(b"id:") for line in lines)
                and any(line.startswith(b"data:") and line[5:].strip().startswith(b"{") for line in lines))

    def close(self):
        self._listener.close()


class RoundRobinBalancer:
    """A loopback HTTP balancer in front of several peers, without sticky sessions: each request
    goes to the next peer in turn, as a load balancer does that knows nothing of Mcp-Session-Id
    (a common deployment of several server processes). A session a peer issued is then unknown
    to the peer the next request reaches. Answers are passed back whole, or line by line for an
    event stream. `.url` is the first peer's URL with the balancer's port."""

    HOP_BY_HOP = ("connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
                  "content-length")

    def __init__(self, urls):
        import http.server

        self.upstreams = [urllib.parse.urlsplit(url) for url in urls]
        self.turn = 0
        self._lock = threading.Lock()
        balancer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request a connection: the stream's end is the connection's

            def log_message(self, *args):
                pass

            def do_POST(self):
                balancer.forward(self)

            do_GET = do_DELETE = do_POST

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        first = self.upstreams[0]
        self.url = urllib.parse.urlunsplit(first._replace(netloc="127.0.0.1:%d" % self._server.server_address[1]))
        threading.Thread(target=self._server.serve_forever, name="round-robin", daemon=True).start()

    def forward(self, handler):
        import http.client

        with self._lock:
            upstream, self.turn = self.upstreams[self.turn % len(self.upstreams)], self.turn + 1
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length) if length else None
        headers = {name: value for name, value in handler.headers.items() if name.lower() not in self.HOP_BY_HOP}
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        try:
            connection.request(handler.command, handler.path, body=body, headers=headers)
            answer = connection.getresponse()
            handler.send_response(answer.status, answer.reason)
            for name, value in answer.getheaders():
                if name.lower() not in self.HOP_BY_HOP:
                    handler.send_header(name, value)
            handler.end_headers()
            while True:
                line = answer.readline()
                if not line:
                    break
                handler.wfile.write(line)
                handler.wfile.flush()
        except OSError:
            pass
        finally:
            connection.close()

    def close(self):
        self._server.shutdown()
        self._server.server_close()
