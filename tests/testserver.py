#!/usr/bin/env python3
"""mcp-tui's test server: a real, strict MCP server for both protocol eras.

One file, standard library only, Python 3.8+, Linux/macOS/Windows. It serves stdio
(newline-delimited JSON-RPC; logs go to stderr only) or Streamable HTTP on loopback, and
it is strict on purpose: it rejects what a careless client gets wrong instead of hiding it.

    python3 tests/testserver.py [options]
      (default)            serve stdio
      --http [HOST:]PORT   serve Streamable HTTP at /mcp (host 127.0.0.1 by default; port 0 picks a
                           free port). Prints exactly one line to stdout: "listening on http://HOST:PORT/mcp"
      --era both|2026-07-28|2025-11-25
                           both (default): answers server/discover AND initialize
      --legacy-sse         with --http: serve the 2024-11-05 HTTP+SSE transport instead
                           (GET /mcp or /sse opens the stream, POST /messages?sessionId=...)
      --page-size N        paginate tools, resources, templates, prompts and tasks/list
      --echo-prefix TEXT   echo answers TEXT + the message (two servers of one test told apart)
      --no-tasks           no tasks capability and no tasks extension at all
      --page-ms N          time render_report spends per page (default 250)
      --poll-ms N          pollInterval / pollIntervalMs hint on every task (default 5)
      --record FILE        append every JSON-RPC message received from the client as one JSON line
      --sse-responses      on HTTP, answer every request as an SSE stream
      --verbose            log one line per message to stderr
      --cache-ttl-ms N     ttlMs of discover, list and read results (default 60000; 0 = do not cache)
      --cache-scope public|private   their cacheScope (default public)
      --server-card        serve a Server Card (/mcp/server-card) and an AI Catalog listing it;
                           --card-fault invalid|version|versions plants a lie (huge|deep|not-json|redirect:
                           a card that cannot be read; catalog-version: the catalog's card, inline, says
                           9.9.9, and the endpoint serves none; catalog-redirect: the catalog is a 302
                           to another host), --catalog-extra N lists N more servers
      --http-fault NAME    one planted fault for `mcp-tui check`: content-type, get-json, delete-500,
                           method-header, cache-scope or any-session (see --help)
      --tampered-skill     2026-07-28: declare io.modelcontextprotocol/skills and serve one skill,
                           skill://tampered/SKILL.md, whose manifest disagrees with two of its files
                           (notes.md: the size; seal.bin: the digest, at the right size)
      --skills             2026-07-28: declare io.modelcontextprotocol/skills and serve one sound skill,
                           skill://docs/greeting/SKILL.md (a text template and a binary stamp); with
                           --tampered-skill both are served
      --hostile-skill JSON|NAMES  2026-07-28: also serve skill://hostile/SKILL.md, a sound manifest
                           with a file at each path of the JSON list or comma-separated NAMES
                           (["a", "a/b"], NUL.txt: names to refuse)
      --big-text MB        list one more tool, big_text, whose result is one text block of MB MiB
                           (80-character lines; for tests/bench/payload.py)
      --fidelity           behave like real servers do: legacy tasks are kept per session (as the
                           everything server does), the tool ask_on_stream sends its request on the
                           GET stream, a refused request without a session still gets a session id,
                           and log_message logs even when the client set no log level
      --tls CERT[:KEY]     with --http: serve https with this PEM certificate (and key file)
      --forget-endpoint    with --http: POST /forget drops every 2025-11-25 session and ends its streams,
                           as a restarted server would; their ids then get 404 (for clients that start over)
      --schema-tools       list two more tools: paint (an enum, an array of integers, _meta) and measure
                           (an outputSchema its structured content breaks with broken=true)
      --changes-on-set-level   2025-11-25 stdio: tool, prompt and resource list changes while answering
                           logging/setLevel (as the everything server's start sends them)
      --ignore-cancel      stdio: notifications/cancelled is ignored and the call goes on
      --no-listen          2026-07-28: announce nothing to listen for (no listChanged, no subscribe) and
                           answer subscriptions/listen -32601 (mcp-server-time, FastMCP)
      --hang-up-calls      with --http: a tools/call is recorded, then its connection is closed with no
                           answer, as a server that crashes mid-call does (a client that sends it again shows)
      --task-scoped-keys   a task's inputRequests keys are <taskId>:<key>, as FastMCP names them
      --claim-legacy       with --era 2026-07-28: server/discover lists the 2025-11-25-era versions too,
                           which the server does not speak (initialize is refused): a false claim
      --chunked-streams    with --http: SSE responses go out as Express and uvicorn send them: chunked
                           (Transfer-Encoding: chunked, one chunk per event) on a kept-alive connection,
                           ended by the terminating chunk (by default a stream is Connection: close)
      --retry-ms N         with --http: 2025-11-25 streams send retry: N with their priming event
      --cut-streams N      with --http: the first SSE response stream of each method is cut after its priming
                           event (2025-11-25) and N more events: the connection is closed with no response and
                           (chunked) no terminating chunk, as when a proxy or a crash drops it; under 2025-11-25
                           GET with Last-Event-ID replays the rest, under 2026-07-28 the request is lost
      --cut-method METHOD  with --cut-streams: cut only the streams of this method (GET: the first GET stream,
                           or the 2024-11-05 SSE stream, which are cut only when named)
      --cut-how HOW        with --cut-streams: where the stream stops (see CUT_HOWS): between events (the
                           default), mid-event (half the next event, its id line left out), mid-event-id (half
                           the next event, with its id line), mid-chunk (chunked: the next event's chunk
                           announced whole, half of it sent), end (a clean end, without the answer)
      --lose-sessions      with --http: a 2025-11-25 session is forgotten once its initialize is answered,
                           so the next request naming it gets 404 Session not found (a server behind a load
                           balancer that does not pin sessions)
      --record-http        with --record and --http: also record each GET and DELETE of /mcp, as a line
                           {"transport": "http", "era": null, "http": {method, path, headers}} (no message)
      --no-event-ids       with --http: 2025-11-25 response streams carry no event ids (a cut one
                           cannot be resumed)
      --no-session-ids     with --http: a 2025-11-25 initialize issues no Mcp-Session-Id, and every later
                           request, having none, gets 400 Bad Request: No valid session ID provided

Eras
  2026-07-28 (modern): stateless. Every request carries params._meta with the protocol version
    and the client capabilities; results carry resultType and serverInfo. Elicitation, sampling
    and roots go through input_required results (MRTR); change notifications through
    subscriptions/listen; tasks through the io.modelcontextprotocol/tasks extension.
  2025-11-25 and older (legacy): initialize, sessions (MCP-Session-Id), server-to-client
    requests, the GET stream with resumable SSE event ids, experimental tasks (2025-11-25 only).
  On stdio a process is locked to the era of its first request; the other era then gets -32600.

Tools (always in this order): echo, add, get_image, get_audio, get_resource_link,
  get_embedded_resource, long_operation, ask_name, ask_model, list_roots, fail_tool, log_message,
  toggle_extra_tool, render_report, fail_report, touch_resource, then extra while toggled on.
  touch_resource sends notifications/resources/updated to subscribers of a URI (legacy
  resources/subscribe, or a listen with resourceSubscriptions), so that updates can be tested.

Tasks
  render_report and fail_report always run as tasks; ask_name and ask_model may. Task ids are
  report-NNNN-<creation time in ns> (as in mcp-tui's documentation), visible from every session
  of the process. A task past createdAt + TTL that is not yet terminal becomes failed ("Task has
  expired"); EXPIRED_GRACE_MS later it is purged, and tasks/* answer -32602 "Task has expired".
  render_report's ttl_ms argument sets the TTL; 0 means unlimited (ttlMs / ttl null).
  Under the extension, a tasks/get of an input_required task must declare the capabilities its
  inputRequests need (else -32021), and notifications/tasks for that state are sent only to
  listen streams that declared them. Under 2025-11-25 a task's input requests are sent only
  while a tasks/result for it is open, and a tool result with isError makes the task failed (as
  2025-11-25 says); under the extension it is completed with that result.

Authorization (--auth, with --http)
      --auth               /mcp needs a bearer token, and the same origin is its authorization server
      --token-ttl SECONDS  access token lifetime (default 3600; fractions allowed, e.g. 0.5)
      --auth-scopes "A B"  scopes every MCP request needs and a client gets when it asks for none
                           (default "mcp:basic"; "" for none)
      --auth-client ID[:SECRET]   pre-registered client (repeatable): confidential with a secret
                           (client_secret_basic or client_secret_post; may use client_credentials),
                           public without
      --auth-client-key ID:PEMFILE  pre-registered private_key_jwt client (repeatable), ES256; PEMFILE
                           holds its P-256 public key or private key (PKCS#8 or SEC1)
      --auth-no-dcr        no registration_endpoint
      --auth-no-cimd       no URL client ids (client_id_metadata_document_supported false)
      --auth-fault NAME    one planted metadata fault for `mcp-tui check`: wrong-resource, no-s256,
                           no-as-metadata or plain-http (see --help)
  /mcp is a protected resource: every request (POST, GET, DELETE) without a valid bearer token gets
  401 with WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp",
  scope="<--auth-scopes>" (plus error="invalid_token" when a token was sent). A token lacking a
  scope the request needs gets 403 Bearer error="insufficient_scope", scope="<all it needs>": each
  request needs --auth-scopes, and tools/call of admin_echo (listed only with --auth) also needs
  admin. A token in the URL (access_token=) gets 400. The same origin is the authorization server
  (its issuer; the origin follows the Host header, so localhost, 127.0.0.1 and [::1] all work):
    GET  /.well-known/oauth-protected-resource/mcp  RFC 9728 (only the path-inserted URL; root is 404)
    GET  /.well-known/oauth-authorization-server     RFC 8414: S256 only, none/client_secret_basic/
                                                     client_secret_post/private_key_jwt (ES256), CIMD
    POST /register   RFC 7591 DCR (JSON); none or client_secret_* clients with loopback/https redirect_uris
    GET  /authorize  approves at once: 302 to redirect_uri with code, state (echoed) and iss (RFC 9207),
                     or with error=...; needs response_type=code, an S256 code_challenge, resource and a
                     known client_id: registered, or an https URL with a path (a CIMD client id, trusted
                     and never fetched). A bad client_id or redirect_uri gets 400, not a redirect.
    POST /token      authorization_code (PKCE S256 checked; single-use codes), refresh_token (rotated:
                     a used refresh token is dead), client_credentials (confidential clients); client
                     authentication by exactly one method; resource (RFC 8707) must be <origin>/mcp on
                     every grant. A refresh token comes with code grants for clients whose grant_types
                     list refresh_token (pre-registered and CIMD clients do).
    POST /revoke     RFC 7009; revoking a refresh token also ends its access tokens.
  private_key_jwt assertions: ES256 (raw r||s), iss = sub = client_id, aud = the issuer (a trailing
  slash allowed), exp within 10 minutes (30 s leeway), a jti never seen before.
  --record also gets one line per request to any of these paths or to /mcp:
    {"transport": "auth", "http": {method, path, headers}, "auth": {"endpoint": name or null
     (or "mcp"), "status": HTTP status (null when /mcp let it through), "error", "params" (query,
     form or JSON), "client_id", "auth_method", "scopes", ...}}

Task and session ids are secrets: they never appear raw in the log (only an 8-character
sha256 prefix does).
"""

import argparse
import base64
import copy
import hashlib
import hmac
import io
import json
import os
import queue
import secrets
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import wave
import zlib
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit


# =============================================================================================
# Protocol constants
# =============================================================================================

MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
TASKS_VERSION = "2025-11-25"          # the only legacy version with (experimental) tasks
ERA_CHOICES = ("both", MODERN_VERSION, "2025-11-25")

TASKS_EXT = "io.modelcontextprotocol/tasks"
SKILLS_EXT = "io.modelcontextprotocol/skills"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"
META_RELATED_TASK = "io.modelcontextprotocol/related-task"

SERVER_INFO = {"name": "mcp-tui-testserver", "title": "mcp-tui test server", "version": "0.1.0"}
INSTRUCTIONS = ("mcp-tui's test server. Its tools exercise every content type, progress, logging, "
                "elicitation, sampling, roots and tasks; render_report always runs as a task.")
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
LEGACY_BAD_REQUEST = -32000          # what SDK servers put in HTTP 400 bodies
LEGACY_SESSION_NOT_FOUND = -32001
LEGACY_RESOURCE_NOT_FOUND = -32002
HEADER_MISMATCH = -32020
MISSING_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022

DEFAULT_TASK_TTL_MS = 3600000
EXPIRED_GRACE_MS = 1000              # how long an expired task stays readable before it is purged
CACHE_TTL_MS = 60000                 # CacheableResult.ttlMs of lists, reads and discover
CACHE_SCOPE = "public"
NO_TASKS_TEXT = "This server runs without tasks"
TERMINAL = ("completed", "failed", "cancelled")


# =============================================================================================
# Small helpers
# =============================================================================================

def iso_ns(ns):
    """ISO 8601 UTC with nanoseconds, e.g. 2026-09-24T18:33:17.048804894Z."""
    seconds, fraction = divmod(ns, 1000000000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + ".%09dZ" % fraction


def fingerprint(secret):
    """What the log shows instead of a task or session id."""
    return hashlib.sha256(str(secret).encode("utf-8")).hexdigest()[:8]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def id_key(request_id):
    """A dict key for a JSON-RPC id that keeps its JSON type (1 and "1" are different ids)."""
    return json.dumps(request_id)


def b64url(data):
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def text_result(text, is_error=False):
    result = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def first_text(result):
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            return block.get("text", "")
    return ""


def notification(method, params=None):
    message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return message


def error_response(request_id, error, null_id=False):
    """A JSON-RPC error response; without an id when the request's id is unknown."""
    message = {"jsonrpc": "2.0"}
    if request_id is not None or null_id:
        message["id"] = request_id
    message["error"] = error.error_object()
    return message


def is_request_id(value):
    return (isinstance(value, str) or isinstance(value, int)) and not isinstance(value, bool)


def is_ext_declared(caps):
    extensions = caps.get("extensions") if isinstance(caps, dict) else None
    return isinstance(extensions, dict) and TASKS_EXT in extensions


class MCPError(Exception):
    """A JSON-RPC error to send back; http_status overrides the transport's default mapping."""

    def __init__(self, code, message, data=None, http_status=None):
        Exception.__init__(self, message)
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status

    def error_object(self):
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def missing_capability(message, required):
    return MCPError(MISSING_CAPABILITY, "Missing required client capability: " + message,
                    {"requiredCapabilities": required}, 400)


class NeedInput(Exception):
    """A modern synchronous tool call needs input it was not given: answer input_required."""

    def __init__(self, requests):
        Exception.__init__(self, "input required")
        self.requests = requests


class ClientRequestFailed(Exception):
    """The client answered a server request with a JSON-RPC error."""

    def __init__(self, method, error):
        Exception.__init__(self, method)
        self.method = method
        self.error = error if isinstance(error, dict) else {}


class TaskEnded(Exception):
    """The task reached a terminal state (cancelled, expired) while its tool was still running."""


class Abandoned(Exception):
    """The client cancelled the request or went away: nothing more is sent for it."""


class Log(object):
    """stderr logging. Never pass a task or session id here, only fingerprint(id)."""

    def __init__(self, verbose):
        self.verbose = verbose
        self.lock = threading.Lock()

    def _write(self, text):
        with self.lock:
            try:
                sys.stderr.write("testserver: %s\n" % text)
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    def info(self, fmt, *args):
        if self.verbose:
            self._write(fmt % args if args else fmt)

    def warn(self, fmt, *args):
        self._write(fmt % args if args else fmt)


class Recorder(object):
    """--record: one JSON line per JSON-RPC message received from the client (thread-safe)."""

    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8") if path else None
        self.lock = threading.Lock()

    def record(self, transport, era, message, http=None):
        if self.file is None:
            return
        entry = {"transport": transport, "era": era}
        if http is not None:
            entry["http"] = http
        entry["message"] = message
        self._write(entry)

    def record_request(self, http):
        """--record-http: a GET or DELETE, which carries no message."""
        if self.file is not None:
            self._write({"transport": "http", "era": None, "http": http})

    def record_auth(self, entry, http):
        """--auth: what one request to the authorization server or to /mcp carried, and its outcome."""
        if self.file is not None:
            self._write({"transport": "auth", "http": http, "auth": entry})

    def _write(self, entry):
        line = json.dumps(entry, ensure_ascii=False)
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()


def negotiate_legacy(requested):
    """The version a legacy initialize gets: the client's if we speak it, else our newest."""
    return requested if requested in LEGACY_VERSIONS else LEGACY_VERSIONS[0]


# =============================================================================================
# Content: media, tools, resources, prompts, completions
# =============================================================================================

def _tiny_png():
    """A valid 1x1 RGBA PNG, built here so that nobody has to trust a base64 blob."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x66\x00\xff")        # filter byte + one orange pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _tiny_wav():
    """10 ms of silence: mono, 16-bit, 8 kHz."""
    buffer = io.BytesIO()
    writer = wave.open(buffer, "wb")
    writer.setnchannels(1)
    writer.setsampwidth(2)
    writer.setframerate(8000)
    writer.writeframes(b"\x00\x00" * 80)
    writer.close()
    return buffer.getvalue()


PNG_B64 = base64.b64encode(_tiny_png()).decode("ascii")
WAV_B64 = base64.b64encode(_tiny_wav()).decode("ascii")


def _tool(name, title, description, properties=None, required=(), output_schema=None,
          annotations=None, task=None, needs=None):
    """A tool definition. `task` (optional/required) and `needs` (a client capability) are ours."""
    schema = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = list(required)
    tool = {"name": name, "title": title, "description": description, "inputSchema": schema}
    if output_schema is not None:
        tool["outputSchema"] = output_schema
    if annotations is not None:
        tool["annotations"] = annotations
    tool["task"] = task
    tool["needs"] = needs
    return tool


READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}

# Listed in this order, always. `extra` joins at the end while toggle_extra_tool has it on.
TOOLS = (
    _tool("echo", "Echo", "Returns the message it is given.",
          {"message": {"type": "string", "description": "Text to echo back"}}, ["message"],
          annotations=READ_ONLY),
    _tool("add", "Add", "Adds two integers; the sum also comes as structuredContent.",
          {"a": {"type": "integer", "description": "First addend"},
           "b": {"type": "integer", "description": "Second addend"}}, ["a", "b"],
          output_schema={"type": "object", "properties": {"sum": {"type": "integer"}},
                         "required": ["sum"]},
          annotations=READ_ONLY),
    _tool("get_image", "Get image", "Returns a tiny PNG image.", annotations=READ_ONLY),
    _tool("get_audio", "Get audio", "Returns a tiny WAV sound.", annotations=READ_ONLY),
    _tool("get_resource_link", "Get resource link", "Returns a link to test://static/hello.txt.",
          annotations=READ_ONLY),
    _tool("get_embedded_resource", "Get embedded resource",
          "Returns test://static/hello.txt embedded in the result.", annotations=READ_ONLY),
    _tool("long_operation", "Long operation",
          "Works in steps, sending progress (with a progress token) and an info log (when logging is on).",
          {"steps": {"type": "integer", "default": 3, "minimum": 1, "maximum": 1000,
                     "description": "Number of steps"},
           "step_ms": {"type": "integer", "default": 50, "minimum": 0, "maximum": 60000,
                       "description": "Milliseconds per step"}}),
    _tool("ask_name", "Ask name", "Asks the user for their name (elicitation) and greets them.",
          task="optional", needs="elicitation"),
    _tool("ask_model", "Ask model", "Asks the client's model a question (sampling).",
          {"question": {"type": "string", "default": "What is the capital of France?",
                        "description": "The question for the model"}},
          task="optional", needs="sampling"),
    _tool("list_roots", "List roots", "Lists the client's roots.", needs="roots"),
    _tool("fail_tool", "Fail tool", "Always fails with a tool error (isError).", annotations=READ_ONLY),
    _tool("log_message", "Log message", "Sends a log notification at the given level.",
          {"level": {"type": "string", "enum": list(LOG_LEVELS), "default": "info",
                     "description": "Log level"},
           "message": {"type": "string", "description": "Text to log"}}, ["message"]),
    _tool("toggle_extra_tool", "Toggle extra tool",
          "Adds or removes the tool 'extra' and announces that the tool list changed."),
    _tool("render_report", "Render report",
          "Renders a quarterly report page by page. Always runs as a task.",
          {"quarter": {"type": "string", "enum": ["Q1", "Q2", "Q3", "Q4"], "description": "Quarter"},
           "pages": {"type": "integer", "default": 12, "minimum": 1, "maximum": 1000,
                     "description": "Pages to render"},
           "ttl_ms": {"type": "integer", "minimum": 0,
                      "description": "Task lifetime in ms (0 = unlimited)"}}, ["quarter"],
          task="required"),
    _tool("fail_report", "Fail report",
          "A report task that fails: 'error' fails the task, 'tool_error' ends with a tool error.",
          {"mode": {"type": "string", "enum": ["error", "tool_error"], "description": "How it fails"}},
          ["mode"], task="required"),
    _tool("weather", "Weather", "Reports the weather of a region; its region travels as the Mcp-Param-Region "
          "header too (x-mcp-header).",
          {"region": {"type": "string", "x-mcp-header": "Region", "description": "Region name"},
           "days": {"type": "integer", "x-mcp-header": "Days", "description": "How many days"}},
          ["region"], annotations=READ_ONLY),
    _tool("touch_resource", "Touch resource",
          "Marks a resource as updated: subscribers get notifications/resources/updated.",
          {"uri": {"type": "string", "description": "URI of a resource of this server"}}, ["uri"]),
)

# With --fidelity: what real servers do that the default tool list does not show.
FIDELITY_TOOLS = (
    _tool("ask_on_stream", "Ask on the GET stream",
          "Sends a server request unrelated to this call, on the session's standalone GET stream (stdout on "
          "stdio), as the everything server's get-roots-list does; waits for the answer, which it returns.",
          {"method": {"type": "string", "enum": ["roots/list", "ping", "elicitation/create",
                                                 "sampling/createMessage"], "default": "roots/list",
                      "description": "The request to send"}}),
)
# With --schema-tools: tools whose schemas hold what real servers list (enum values, array
# items, _meta) and one whose structured content can break its outputSchema.
SCHEMA_TOOLS = (
    dict(_tool("paint", "Paint", "Paints boxes of the given sizes in one colour.",
               {"color": {"type": "string", "enum": ["red", "green", "blue"], "description": "Colour"},
                "sizes": {"type": "array", "items": {"type": "integer"}, "description": "Box sizes"}},
               ["color", "sizes"]),
         _meta={"example.com/owner": "paint-team"}),
    _tool("measure", "Measure", "The length of a text, as structuredContent; broken=true breaks its outputSchema.",
          {"text": {"type": "string"}, "broken": {"type": "boolean", "default": False}}, ["text"],
          output_schema={"type": "object", "properties": {"length": {"type": "integer"}}, "required": ["length"]}),
)
STREAM_ASK_PARAMS = {
    "roots/list": None,
    "ping": None,
    "elicitation/create": {"message": "Your name, please", "requestedSchema": {
        "type": "object", "properties": {"name": {"type": "string", "description": "Your name"}},
        "required": ["name"]}},
    "sampling/createMessage": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi?"}}],
                               "maxTokens": 10},
}

# --surface-change: one change to the tool list, as a pull request might make it (what
# `diff` and `replay` call it in brackets).
SURFACE_CHANGES = {
    "description": "echo's description is reworded (cosmetic)",
    "optional-argument": "echo takes an optional argument, repeat (additive)",
    "required-argument": "echo needs a second argument, channel (breaking)",
    "removed-tool": "add is gone (breaking)",
}


def changed_surface(tools, change):
    """``tools`` with the --surface-change ``change`` made (none when None)."""
    if change == "removed-tool":
        return [tool for tool in tools if tool["name"] != "add"]
    changed = []
    for tool in tools:
        if tool["name"] == "echo" and change is not None:
            tool = copy.deepcopy(tool)
            schema = tool["inputSchema"]
            if change == "description":
                tool["description"] = "Echoes the message back, unchanged."
            elif change == "optional-argument":
                schema["properties"]["repeat"] = {"type": "integer", "minimum": 1, "maximum": 1,
                                                  "description": "How many times (only 1 for now)"}
            elif change == "required-argument":
                schema["properties"]["channel"] = {"type": "string", "description": "Where to echo"}
                schema["required"].append("channel")
        changed.append(tool)
    return changed


EXTRA_TOOL = _tool("extra", "Extra tool", "Exists only while toggle_extra_tool has added it.",
                   annotations=READ_ONLY)
# With --auth only, listed after the others (before extra): a tool that needs scope admin, for step-up.
AUTH_TOOLS = (
    _tool("admin_echo", "Admin echo", "Returns the message it is given; needs the admin scope (--auth).",
          {"message": {"type": "string", "description": "Text to echo back"}}, ["message"], annotations=READ_ONLY),
)

# With --big-text MB only, listed after the others (before extra): one large text block (benchmarks).
BIG_TEXT_TOOL = _tool("big_text", "Big text", "Returns one text block of --big-text MB (80-character lines).",
                      annotations=READ_ONLY)


def big_text(size):
    """`size` characters of plain text in 80-character lines (a log, a file dump)."""
    count = size // 80 + 1
    return "".join(("payload line %08d " % i).ljust(79, "x") + "\n" for i in range(count))[:size]


REPORTS = {
    "Q1": "Q1 revenue: $4.2M across 1,204 orders",
    "Q2": "Q2 revenue: $4.6M across 1,310 orders",
    "Q3": "Q3 revenue: $4.9M across 1,433 orders",
    "Q4": "Q4 revenue: $5.1M across 1,502 orders",
}

RESOURCES = (
    {"uri": "test://static/hello.txt", "name": "hello.txt", "title": "Hello text",
     "description": "A short text resource", "mimeType": "text/plain", "text": "Hello, resource!"},
    {"uri": "test://static/logo.png", "name": "logo.png", "title": "Logo",
     "description": "A 1x1 PNG image", "mimeType": "image/png", "blob": PNG_B64},
    {"uri": "test://static/data.json", "name": "data.json", "title": "Data",
     "description": "A small JSON document", "mimeType": "application/json",
     "text": '{"items": [1, 2, 3], "ok": true}'},
    {"uri": "test://static/readme.md", "name": "readme.md", "title": "Readme",
     "description": "Markdown text", "mimeType": "text/markdown",
     "text": "# Test server\n\nThis server exists to test mcp-tui.\n"},
    {"uri": "test://static/sound.wav", "name": "sound.wav", "title": "Sound",
     "description": "10 ms of silence", "mimeType": "audio/wav", "blob": WAV_B64},
    {"uri": "test://static/gr\u00fc\u00dfe.txt", "name": "gr\u00fc\u00dfe.txt", "title": "Gr\u00fc\u00dfe",
     "description": "A resource whose URI is not ASCII (Mcp-Name needs Base64 on HTTP)",
     "mimeType": "text/plain", "text": "Gr\u00fc\u00dfe aus dem Testserver! \u4e16\u754c"},
)

ITEM_TEMPLATE = "test://items/{id}"
ITEM_PREFIX = "test://items/"
TEMPLATES = ({"uriTemplate": ITEM_TEMPLATE, "name": "item", "title": "Item",
              "description": "Item <id>, for any id", "mimeType": "text/plain"},)

PROMPTS = (
    {"name": "greeting", "title": "Greeting", "description": "Greets someone by name",
     "arguments": [{"name": "name", "description": "Who to greet", "required": True}]},
    {"name": "code_review", "title": "Code review", "description": "Asks for a code review",
     "arguments": [{"name": "language", "description": "Programming language", "required": True},
                   {"name": "code", "description": "The code to review", "required": False}]},
)

LANGUAGES = ("python", "javascript", "go", "rust", "ruby")
ITEM_IDS = tuple(str(n) for n in range(1, 21))


def check_arguments(tool, args):
    """The problem with these arguments for this tool, or None. Only what our schemas use."""
    schema = tool["inputSchema"]
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args:
            return "missing required argument '%s'" % name
    for name, value in args.items():
        spec = properties.get(name)
        if spec is None:
            continue
        kind = spec.get("type")
        if kind == "string" and not isinstance(value, str):
            return "'%s' must be a string" % name
        if kind == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
            return "'%s' must be an integer" % name
        if "enum" in spec and value not in spec["enum"]:
            return "'%s' must be one of %s" % (name, ", ".join(spec["enum"]))
        if "minimum" in spec and value < spec["minimum"]:
            return "'%s' must be at least %d" % (name, spec["minimum"])
        if "maximum" in spec and value > spec["maximum"]:
            return "'%s' must be at most %d" % (name, spec["maximum"])
    return None


def with_defaults(tool, args):
    full = dict(args)
    for name, spec in tool["inputSchema"].get("properties", {}).items():
        if name not in full and "default" in spec:
            full[name] = spec["default"]
    return full


def skill_served(uri, frontmatter, files, listed=None):
    """A skill as the test server serves it: (entry, {uri: contents item}). Its SKILL.md holds
    ``frontmatter``; ``listed`` replaces some files' bytes in the manifest only (a tampered one)."""
    skill_md = "---\n%s---\n\n# %s\n" % ("".join("%s: %s\n" % item for item in frontmatter.items()),
                                           frontmatter["name"].capitalize())
    files = dict([(uri, skill_md.encode("utf-8"))] + list(files.items()))
    entry = {"uri": uri, "frontmatter": frontmatter,
             "resources": [{"uri": name, "size": len(raw), "digest": "sha256:" + hashlib.sha256(raw).hexdigest()}
                           for name, raw in dict(files, **(listed or {})).items()]}
    contents = {name: ({"uri": name, "mimeType": "application/octet-stream",
                        "blob": base64.b64encode(raw).decode("ascii")} if name.endswith(".bin")
                       else {"uri": name, "mimeType": "text/markdown", "text": raw.decode("utf-8")})
                for name, raw in files.items()}
    return entry, contents


def read_resource(uri):
    """The contents of a resource, or None when there is no such resource."""
    for resource in RESOURCES:
        if resource["uri"] == uri:
            contents = {"uri": uri, "mimeType": resource["mimeType"]}
            if "text" in resource:
                contents["text"] = resource["text"]
            else:
                contents["blob"] = resource["blob"]
            return [contents]
    if uri.startswith(ITEM_PREFIX):
        item = uri[len(ITEM_PREFIX):]
        if item and "/" not in item:
            return [{"uri": uri, "mimeType": "text/plain", "text": "Item " + item}]
    return None


def resource_listing(resource):
    listed = {key: resource[key] for key in ("uri", "name", "title", "description", "mimeType")}
    data = resource.get("text")
    listed["size"] = len(data.encode("utf-8")) if data is not None else len(base64.b64decode(resource["blob"]))
    return listed


def prompt_messages(name, arguments):
    """prompts/get: the prompt's result, or an MCPError for an unknown prompt or argument."""
    prompt = None
    for candidate in PROMPTS:
        if candidate["name"] == name:
            prompt = candidate
    if prompt is None:
        raise MCPError(INVALID_PARAMS, "Unknown prompt: %s" % name)
    for argument in prompt["arguments"]:
        if argument["required"] and not isinstance(arguments.get(argument["name"]), str):
            raise MCPError(INVALID_PARAMS, "Missing required argument '%s' for prompt %s"
                           % (argument["name"], name))
    for key, value in arguments.items():
        if not isinstance(value, str):
            raise MCPError(INVALID_PARAMS, "Prompt argument '%s' must be a string" % key)
    if name == "greeting":
        text = "Hello, %s! How are you today?" % arguments["name"]
    elif arguments.get("code"):
        text = "Please review this %s code:\n\n%s" % (arguments["language"], arguments["code"])
    else:
        text = "Please review my %s code." % arguments["language"]
    return {"description": prompt["description"],
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}


def completion_values(params):
    ref = params.get("ref")
    argument = params.get("argument")
    if not isinstance(ref, dict) or not isinstance(argument, dict):
        raise MCPError(INVALID_PARAMS, "completion/complete needs params.ref and params.argument")
    name = argument.get("name")
    value = argument.get("value", "")
    if not isinstance(name, str) or not isinstance(value, str):
        raise MCPError(INVALID_PARAMS, "argument.name and argument.value must be strings")
    if ref.get("type") == "ref/prompt":
        if ref.get("name") not in [p["name"] for p in PROMPTS]:
            raise MCPError(INVALID_PARAMS, "Unknown prompt: %s" % ref.get("name"))
        pool = LANGUAGES if (ref.get("name"), name) == ("code_review", "language") else ()
    elif ref.get("type") == "ref/resource":
        uri = ref.get("uri")
        if uri != ITEM_TEMPLATE and read_resource(uri if isinstance(uri, str) else "") is None:
            raise MCPError(INVALID_PARAMS, "Unknown resource or template: %s" % uri)
        pool = ITEM_IDS if (uri, name) == (ITEM_TEMPLATE, "id") else ()
    else:
        raise MCPError(INVALID_PARAMS, "ref.type must be ref/prompt or ref/resource")
    values = [v for v in pool if v.startswith(value)]
    return {"completion": {"values": values[:100], "total": len(values), "hasMore": False}}


def capabilities_for_inputs(input_requests):
    """The client capabilities that answering these inputRequests needs."""
    needed = {}
    for request in input_requests.values():
        method = request.get("method")
        if method == "elicitation/create":
            needed["elicitation"] = {}
        elif method == "sampling/createMessage":
            needed["sampling"] = {}
        elif method == "roots/list":
            needed["roots"] = {}
    return needed


def undeclared(needed, caps):
    return {name: value for name, value in needed.items() if not isinstance(caps.get(name), dict)}


# =============================================================================================
# Tasks
# =============================================================================================

class Task(object):
    """One task. Every field is guarded by TaskStore.cond."""

    def __init__(self, task_id, tool, form, created_ns, ttl_ms, poll_ms, owner):
        self.task_id = task_id
        self.tool = tool
        self.form = form                      # "extension" (2026-07-28) or "experimental" (2025-11-25)
        self.owner = owner                    # the legacy Peer that created it, for status notifications
        self.created_ns = created_ns
        self.updated_ns = created_ns
        self.ttl_ms = ttl_ms                  # None: unlimited
        self.poll_ms = poll_ms
        self.status = "working"
        self.status_message = "Rendering %s" % tool
        self.result = None                    # CallToolResult, when completed (or failed by isError)
        self.error = None                     # JSON-RPC error object, when failed
        self.input_requests = OrderedDict()   # outstanding key -> {"method", "params"}
        self.answers = {}                     # key -> ("result", value) | ("error", error)
        self.used_keys = set()                # keys are unique for the task's whole life
        self.asking = set()                   # keys a legacy tasks/result is asking right now
        self.expired_ns = None

    def terminal(self):
        return self.status in TERMINAL

    def view(self, form):
        """The task as tasks/get shows it: a DetailedTask (extension) or a flat Task (2025-11-25)."""
        view = {"taskId": self.task_id, "status": self.status}
        if self.status_message:
            view["statusMessage"] = self.status_message
        view["createdAt"] = iso_ns(self.created_ns)
        view["lastUpdatedAt"] = iso_ns(self.updated_ns)
        if form == "experimental":
            view["ttl"] = self.ttl_ms
            view["pollInterval"] = self.poll_ms
            return view
        view["ttlMs"] = self.ttl_ms
        view["pollIntervalMs"] = self.poll_ms
        if self.status == "input_required":
            view["inputRequests"] = copy.deepcopy(dict(self.input_requests))
        elif self.status == "completed":
            view["result"] = dict(copy.deepcopy(self.result), resultType="complete")
        elif self.status == "failed":
            view["error"] = copy.deepcopy(self.error) or {"code": INTERNAL_ERROR,
                                                          "message": self.status_message}
        return view


class TaskStore(object):
    """All tasks of the process, their state machine, TTL expiry, and change notifications.

    Status changes are handed, in order, to on_change(task, extension_view, experimental_view)
    on a dispatcher thread, so that nobody sends to a client while holding the store's lock.
    """

    def __init__(self, poll_ms, on_change, log):
        self.cond = threading.Condition()
        self.tasks = OrderedDict()
        self.purged = set()
        self.counter = 0
        self.poll_ms = poll_ms
        self.on_change = on_change
        self.log = log
        self.changes = queue.Queue()
        for target in (self._reap, self._dispatch):
            threading.Thread(target=target, daemon=True).start()

    # --- creation and lookup -----------------------------------------------------------------

    def create(self, tool, form, ttl_ms, owner):
        """Store a new working task; returns it and its first view (taken before any work)."""
        with self.cond:
            self.counter += 1
            created = time.time_ns()
            task = Task("report-%04d-%d" % (self.counter, created), tool, form, created, ttl_ms,
                        self.poll_ms, owner)
            self.tasks[task.task_id] = task
            self.cond.notify_all()
            return task, task.view(form)

    def lookup(self, task_id):
        with self.cond:
            task = self.tasks.get(task_id) if isinstance(task_id, str) else None
            if task is None:
                reason = "Task has expired" if task_id in self.purged else "Task not found"
                raise MCPError(INVALID_PARAMS, "Failed to retrieve task: " + reason)
            return task

    def exists(self, task_id):
        with self.cond:
            return task_id in self.tasks

    def view(self, task, form):
        with self.cond:
            return task.view(form)

    def all_views(self, form):
        with self.cond:
            return [task.view(form) for task in self.tasks.values()]

    # --- transitions (all under the lock) ------------------------------------------------------

    def _touch(self, task, old_status):
        task.updated_ns = max(time.time_ns(), task.updated_ns + 1)
        if task.status != old_status:
            self.changes.put((task, task.view("extension"), task.view("experimental")))
        self.cond.notify_all()

    def set_message(self, task, message):
        """Update statusMessage; False when the task has already ended."""
        with self.cond:
            if task.terminal():
                return False
            task.status_message = message
            self._touch(task, task.status)
            return True

    def wait(self, task, seconds):
        """Sleep up to `seconds`; True as soon as the task ends (cancelled or expired)."""
        deadline = time.monotonic() + seconds
        with self.cond:
            while not task.terminal():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def request_input(self, task, requests, message):
        """Move to input_required with these requests; block until all are answered."""
        with self.cond:
            if task.terminal():
                raise TaskEnded()
            old = task.status
            for key, request in requests.items():
                if key in task.used_keys:
                    raise RuntimeError("input key reused within one task: %s" % key)
                task.used_keys.add(key)
                task.input_requests[key] = request
            task.status = "input_required"
            task.status_message = message
            self._touch(task, old)
            while not task.terminal() and any(key not in task.answers for key in requests):
                self.cond.wait()
            if task.terminal():
                raise TaskEnded()
            answers = {key: task.answers.pop(key) for key in requests}
            if not task.input_requests:
                task.status = "working"
                task.status_message = "Processing input"
                self._touch(task, "input_required")
            return answers

    def provide_input(self, task, responses):
        """Deliver answers; keys that are not outstanding (unknown, answered) are ignored."""
        accepted = []
        with self.cond:
            if task.status != "input_required":
                return accepted
            for key, answer in responses.items():
                if key in task.input_requests:
                    del task.input_requests[key]
                    task.answers[key] = answer
                    accepted.append(key)
            if accepted:
                self._touch(task, task.status)
        return accepted

    def finish(self, task, status, result=None, error=None, message=None):
        with self.cond:
            if task.terminal():
                return False
            old = task.status
            task.status = status
            task.result = result
            task.error = error
            task.status_message = message
            task.input_requests.clear()
            self._touch(task, old)
            return True

    def cancel(self, task):
        """Cancel a task that has not ended; False (and no change) for a terminal one."""
        return self.finish(task, "cancelled", message="The task was cancelled by request.")

    # --- legacy tasks/result helpers -----------------------------------------------------------

    def claim_inputs(self, task):
        """Outstanding requests nobody is asking yet; the caller asks them, then releases."""
        with self.cond:
            claimed = [(key, request) for key, request in task.input_requests.items()
                       if key not in task.asking]
            for key, _ in claimed:
                task.asking.add(key)
            return claimed

    def release_inputs(self, task, keys):
        with self.cond:
            task.asking.difference_update(keys)
            self.cond.notify_all()

    def wait_change(self, task, seconds):
        with self.cond:
            if not task.terminal() and not any(k not in task.asking for k in task.input_requests):
                self.cond.wait(seconds)
            return task.terminal()

    # --- threads -------------------------------------------------------------------------------

    def _dispatch(self):
        while True:
            task, extension_view, experimental_view = self.changes.get()
            try:
                self.on_change(task, extension_view, experimental_view)
            except Exception:                                    # never let one client stop the rest
                self.log.warn("task notification failed:\n%s", traceback.format_exc())

    def _reap(self):
        """TTL expiry: a non-terminal task past its TTL fails, and is purged a little later."""
        grace_ns = EXPIRED_GRACE_MS * 1000000
        with self.cond:
            while True:
                now = time.time_ns()
                wake = None
                for task in list(self.tasks.values()):
                    if task.ttl_ms is None:
                        continue
                    if task.expired_ns is None:
                        deadline = task.created_ns + task.ttl_ms * 1000000
                        if now < deadline:
                            wake = deadline if wake is None else min(wake, deadline)
                            continue
                        task.expired_ns = now
                        if not task.terminal():
                            old = task.status
                            task.status = "failed"
                            task.status_message = "Task has expired"
                            task.error = {"code": INTERNAL_ERROR, "message": "Task has expired"}
                            task.input_requests.clear()
                            self._touch(task, old)
                        self.log.info("task %s expired", fingerprint(task.task_id))
                    purge_at = task.expired_ns + grace_ns
                    if now >= purge_at:
                        del self.tasks[task.task_id]
                        self.purged.add(task.task_id)
                        self.log.info("task %s purged", fingerprint(task.task_id))
                    else:
                        wake = purge_at if wake is None else min(wake, purge_at)
                timeout = None if wake is None else max(0.0, (wake - now) / 1e9) + 0.001
                self.cond.wait(timeout)


# =============================================================================================
# Connections and requests: Peer (legacy connection state), Exchange (one request)
# =============================================================================================

class _Slot(object):
    def __init__(self):
        self.event = threading.Event()
        self.response = None


class Peer(object):
    """One legacy connection: the stdio process, an HTTP session or an HTTP+SSE session."""

    def __init__(self, transport, session_id=None, unsolicited=None):
        self.transport = transport
        self.session_id = session_id
        self.version = None
        self.caps = {}
        self.initialized = False
        self.ready = False                    # notifications/initialized seen
        self.log_level = None                 # logging/setLevel; None: no logs
        self.resource_subs = set()
        self.lock = threading.Lock()
        self.pending = {}                     # our request id -> _Slot
        self.inflight = {}                    # id_key(client request id) -> Exchange
        self.counter = 0
        self.closed = threading.Event()
        self._unsolicited = unsolicited

    def send_unsolicited(self, message):
        """A message not tied to a request: stdout, or the session's GET stream."""
        if self._unsolicited is not None and not self.closed.is_set():
            self._unsolicited(message)

    def expect_response(self):
        with self.lock:
            self.counter += 1
            request_id = "srv-%d" % self.counter
            slot = _Slot()
            self.pending[id_key(request_id)] = slot
            return request_id, slot

    def forget(self, request_id):
        with self.lock:
            self.pending.pop(id_key(request_id), None)

    def resolve(self, message):
        with self.lock:
            slot = self.pending.pop(id_key(message.get("id")), None)
        if slot is None:
            return False
        slot.response = message
        slot.event.set()
        return True

    def track(self, exchange):
        with self.lock:
            self.inflight[id_key(exchange.request_id)] = exchange

    def untrack(self, exchange):
        with self.lock:
            if self.inflight.get(id_key(exchange.request_id)) is exchange:
                del self.inflight[id_key(exchange.request_id)]

    def cancel_request(self, request_id):
        with self.lock:
            exchange = self.inflight.get(id_key(request_id))
        if exchange is not None:
            exchange.cancelled.set()
        return exchange is not None

    def close(self):
        self.closed.set()
        with self.lock:
            exchanges = list(self.inflight.values())
        for exchange in exchanges:
            exchange.cancelled.set()


class Exchange(object):
    """One client request: what it declared, and where messages about it go."""

    def __init__(self, msg, era, version, caps, emit, peer=None, transport="stdio"):
        self.msg = msg
        self.request_id = msg.get("id")
        self.method = msg.get("method")
        params = msg.get("params")
        self.params = params if isinstance(params, dict) else {}
        meta = self.params.get("_meta")
        self.meta = meta if isinstance(meta, dict) else {}
        self.era = era                        # "modern" or "legacy"
        self.version = version
        self.caps = caps if isinstance(caps, dict) else {}
        self.peer = peer
        self.transport = transport
        self._emit = emit
        self.cancelled = threading.Event()
        self.done = False
        self.after = []                       # messages to send after the response (stdio listen end)

    def send(self, message):
        if not self.done and not self.cancelled.is_set():
            self._emit(message)

    def has_ext(self):
        return is_ext_declared(self.caps)

    def log_enabled(self, level):
        if self.era == "modern":
            threshold = self.meta.get(META_LOG_LEVEL)
        else:
            threshold = self.peer.log_level if self.peer is not None else None
        return threshold in LOG_LEVELS and LOG_LEVELS.index(level) >= LOG_LEVELS.index(threshold)

    def log(self, level, data, logger="testserver", unsolicited=False):
        if unsolicited or self.log_enabled(level):
            self.send(notification("notifications/message", {"level": level, "logger": logger,
                                                             "data": data}))

    def progress(self, progress, total, message):
        token = self.meta.get("progressToken")
        if is_request_id(token):
            self.send(notification("notifications/progress", {
                "progressToken": token, "progress": progress, "total": total, "message": message}))

    def ask(self, method, params, moot=None):
        """Legacy: send a server request on this request's stream and wait for the answer.

        Returns the client's response message; None when moot() turned true first (the
        request is then withdrawn with notifications/cancelled).
        """
        request_id, slot = self.peer.expect_response()
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            request["params"] = params
        self.send(request)
        while not slot.event.wait(0.05):
            if self.cancelled.is_set() or self.peer.closed.is_set():
                self.peer.forget(request_id)
                raise Abandoned()
            if moot is not None and moot():
                self.peer.forget(request_id)
                self.send(notification("notifications/cancelled", {
                    "requestId": request_id, "reason": "The task no longer needs this input"}))
                return None
        return slot.response


class Subscription(object):
    """A modern subscriptions/listen stream and the filter the server agreed to."""

    def __init__(self, exchange, accepted):
        self.exchange = exchange
        self.accepted = accepted

    def emit(self, method, params=None):
        params = dict(params or {})
        params["_meta"] = {META_SUBSCRIPTION: self.exchange.request_id}
        self.exchange.send(notification(method, params))

    def send_task(self, view):
        if view["taskId"] not in self.accepted.get("taskIds", ()):
            return
        if view["status"] == "input_required":
            if undeclared(capabilities_for_inputs(view["inputRequests"]), self.exchange.caps):
                return                        # never show input requests the listener did not declare
        self.emit("notifications/tasks", view)


# =============================================================================================
# Tool calls: one interface for direct calls (legacy or MRTR) and task calls
# =============================================================================================

class ToolCall(object):
    """What a tool implementation sees: its arguments, and ways to talk to the client."""

    def __init__(self, server, tool, args, version):
        self.server = server
        self.tool = tool
        self.args = args
        self.version = version

    def elicit_params(self, message, schema):
        params = {"message": message, "requestedSchema": schema}
        if self.version is None or self.version >= "2025-11-25":
            params = dict({"mode": "form"}, **params)
        return params

    def ask(self, key, method, params):
        raise NotImplementedError

    def status(self, message):
        pass

    def sleep(self, ms):
        raise NotImplementedError

    def progress(self, progress, total, message):
        pass

    def log(self, level, data, logger, unsolicited=False):
        pass


class DirectCall(ToolCall):
    """A synchronous tools/call. Legacy asks with server requests; modern answers input_required."""

    def __init__(self, server, tool, args, exchange, input_responses):
        ToolCall.__init__(self, server, tool, args, exchange.version)
        self.exchange = exchange
        self.input_responses = input_responses

    def ask(self, key, method, params):
        if self.exchange.era == "legacy":
            response = self.exchange.ask(method, params)
            if "error" in response:
                raise ClientRequestFailed(method, response["error"])
            result = response.get("result")
            return result if isinstance(result, dict) else {}
        if key in self.input_responses:
            return self.input_responses[key]
        request = {"method": method}
        if params is not None:
            request["params"] = params
        raise NeedInput({key: request})

    def sleep(self, ms):
        if self.exchange.cancelled.wait(ms / 1000.0):
            raise Abandoned()

    def progress(self, progress, total, message):
        self.exchange.progress(progress, total, message)

    def log(self, level, data, logger, unsolicited=False):
        self.exchange.log(level, data, logger, unsolicited)


class TaskCall(ToolCall):
    """A tool running as a task: status goes to statusMessage, input through the task."""

    def __init__(self, server, tool, args, version, task):
        ToolCall.__init__(self, server, tool, args, version)
        self.task = task

    def ask(self, key, method, params):
        request = {"method": method}
        if params is not None:
            request["params"] = params
        if method == "elicitation/create":
            message = params["message"]
        elif method == "sampling/createMessage":
            message = "Waiting for the client's model to answer"
        else:
            message = "Waiting for the client's roots"
        if self.server.options.task_scoped_keys:
            key = "%s:%s" % (self.task.task_id, key)
        kind, value = self.server.store.request_input(self.task, {key: request}, message)[key]
        if kind == "error":
            raise ClientRequestFailed(method, value)
        return value

    def status(self, message):
        if not self.server.store.set_message(self.task, message):
            raise TaskEnded()

    def sleep(self, ms):
        if self.server.store.wait(self.task, ms / 1000.0):
            raise TaskEnded()


# =============================================================================================
# The server: everything that does not depend on the transport
# =============================================================================================

class Server(object):
    def __init__(self, options, log, recorder):
        self.options = options
        self.log = log
        self.recorder = recorder
        self.tasks_enabled = not options.no_tasks
        self.lock = threading.RLock()
        self.extra_tool = False
        self.big_text = None                  # --big-text: built at the first call
        self.legacy_peers = set()
        self.subscriptions = []
        self.listens = threading.Condition(self.lock)
        self.open_listens = 0
        self.shutting_down = threading.Event()
        self.secret = secrets.token_bytes(32)
        self.store = TaskStore(options.poll_ms, self._task_changed, log)

    # --- versions and envelopes ----------------------------------------------------------------

    def supported_versions(self):
        if self.options.era == MODERN_VERSION:
            return [MODERN_VERSION] + (list(LEGACY_VERSIONS) if self.options.claim_legacy else [])
        if self.options.era == "2025-11-25":
            return list(LEGACY_VERSIONS)
        return [MODERN_VERSION] + list(LEGACY_VERSIONS)

    def legacy_tasks(self, version):
        return self.tasks_enabled and version == TASKS_VERSION

    def bad_envelope(self, what):
        return MCPError(INVALID_PARAMS, "Invalid params: %s. Every 2026-07-28 request needs params._meta "
                        "with %s and %s (or send initialize first for a 2025-11-25 session)"
                        % (what, META_VERSION, META_CAPS), None, 400)

    def modern_meta(self, msg):
        """The request's (protocolVersion, clientCapabilities); -32602 (HTTP 400) when malformed."""
        bad = self.bad_envelope
        params = msg.get("params")
        if not isinstance(params, dict):
            raise bad("params is missing")
        meta = params.get("_meta")
        if not isinstance(meta, dict):
            raise bad("params._meta is missing")
        version = meta.get(META_VERSION)
        if not isinstance(version, str):
            raise bad("_meta[%s] is missing" % META_VERSION)
        caps = meta.get(META_CAPS)
        if not isinstance(caps, dict):
            raise bad("_meta[%s] is missing" % META_CAPS)
        info = meta.get(META_CLIENT)
        if info is not None and not (isinstance(info, dict) and isinstance(info.get("name"), str)
                                     and isinstance(info.get("version"), str)):
            raise bad("_meta[%s] needs string name and version" % META_CLIENT)
        level = meta.get(META_LOG_LEVEL)
        if level is not None and level not in LOG_LEVELS:
            raise bad("_meta[%s] must be one of %s" % (META_LOG_LEVEL, ", ".join(LOG_LEVELS)))
        return version, caps

    def check_modern_version(self, version):
        if version == MODERN_VERSION:
            return
        message = "Unsupported protocol version"
        if version in LEGACY_VERSIONS:
            message += " in a 2026-07-28 envelope: %s needs the initialize handshake" % version
        raise MCPError(UNSUPPORTED_VERSION, message,
                       {"supported": self.supported_versions(), "requested": version}, 400)

    def initialize_refusal(self, msg):
        """What a modern-only server answers to initialize, naming the versions it speaks."""
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        requested = params.get("protocolVersion")
        data = {"supported": [MODERN_VERSION]}
        if isinstance(requested, str):
            data["requested"] = requested
        return MCPError(INVALID_PARAMS, "Unsupported protocol version: this server speaks only %s, which "
                        "has no initialize (send server/discover or any request with params._meta)"
                        % MODERN_VERSION, data, 400)

    # --- serving one request -------------------------------------------------------------------

    def serve(self, exchange):
        """Run one request. Returns (response or None, MCPError or None); None: send nothing."""
        error = None
        try:
            if exchange.era == "modern":
                result = self._modern_result(exchange, self.handle_modern(exchange))
            else:
                result = self.handle_legacy(exchange)
            response = {"jsonrpc": "2.0", "id": exchange.request_id, "result": result}
        except Abandoned:
            response = None
        except MCPError as err:
            error = err
            response = error_response(exchange.request_id, err)
        except Exception as exc:
            self.log.warn("internal error in %s:\n%s", exchange.method, traceback.format_exc())
            error = MCPError(INTERNAL_ERROR, "Internal error: %s" % exc)
            response = error_response(exchange.request_id, error)
        exchange.done = True
        if exchange.cancelled.is_set():
            return None, None
        return response, error

    def _modern_result(self, exchange, result):
        result = dict(result)
        result.setdefault("resultType", "complete")
        meta = dict(result.get("_meta") or {})
        meta[META_SERVER] = dict(SERVER_INFO)
        result["_meta"] = meta
        return result

    def _cacheable(self, result):
        result["ttlMs"] = getattr(self.options, "cache_ttl_ms", CACHE_TTL_MS)
        result["cacheScope"] = getattr(self.options, "cache_scope", CACHE_SCOPE)
        if getattr(self.options, "http_fault", None) == "cache-scope":
            result["cacheScope"] = "shared"
        return result

    # --- pagination ----------------------------------------------------------------------------

    def _sign(self, text):
        return hmac.new(self.secret, text.encode("utf-8"), hashlib.sha256).hexdigest()[:24]

    def _paginate(self, kind, items, params, key):
        """One page of `items` as {key: [...], nextCursor?}; cursors are opaque and signed."""
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            start = -1
            if isinstance(cursor, str):
                try:
                    raw = b64url_decode(cursor).decode("utf-8")
                    cursor_kind, offset, signature = raw.split(":")
                    if cursor_kind == kind and hmac.compare_digest(signature, self._sign(cursor_kind + ":" + offset)):
                        start = int(offset)
                except (ValueError, UnicodeDecodeError):
                    start = -1
            if start < 0 or not self.options.page_size:
                raise MCPError(INVALID_PARAMS, "Invalid cursor")
        size = self.options.page_size or len(items) or 1
        page = {key: items[start:start + size]}
        if start + size < len(items):
            raw = "%s:%d" % (kind, start + size)
            page["nextCursor"] = b64url((raw + ":" + self._sign(raw)).encode("utf-8"))
        return page

    # --- requestState (MRTR) -------------------------------------------------------------------

    def _args_digest(self, tool, args):
        return hashlib.sha256(dumps([tool, args]).encode("utf-8")).hexdigest()[:16]

    def _make_request_state(self, tool, args):
        body = b64url(dumps({"tool": tool, "args": self._args_digest(tool, args),
                             "nonce": secrets.token_hex(8)}).encode("utf-8"))
        return body + "." + self._sign(body)

    def _check_request_state(self, state, tool, args):
        problem = MCPError(INVALID_PARAMS, "Invalid requestState: echo the requestState of the input_required "
                           "result unchanged, with the same tool name and arguments")
        if not isinstance(state, str) or "." not in state:
            raise problem
        body, _, signature = state.rpartition(".")
        if not hmac.compare_digest(signature, self._sign(body)):
            raise problem
        try:
            decoded = json.loads(b64url_decode(body).decode("utf-8"))
        except ValueError:
            raise problem
        if decoded.get("tool") != tool or decoded.get("args") != self._args_digest(tool, args):
            raise problem

    # --- tools ---------------------------------------------------------------------------------

    def tools(self):
        with self.lock:
            return changed_surface(
                list(TOOLS) + (list(AUTH_TOOLS) if getattr(self.options, "auth", False) else [])
                + ([BIG_TEXT_TOOL] if getattr(self.options, "big_text", 0) else [])
                + list(FIDELITY_TOOLS if getattr(self.options, "fidelity", False) else ())
                + list(SCHEMA_TOOLS if getattr(self.options, "schema_tools", False) else ())
                + ([EXTRA_TOOL] if self.extra_tool else []), getattr(self.options, "surface_change", None))

    def find_tool(self, name):
        for tool in self.tools():
            if tool["name"] == name:
                return tool
        return None

    def tool_listing(self, era, version):
        listing = []
        for tool in self.tools():
            entry = copy.deepcopy({key: value for key, value in tool.items() if key not in ("task", "needs")})
            if era == "legacy" and self.legacy_tasks(version) and tool["task"]:
                entry["execution"] = {"taskSupport": tool["task"]}
            listing.append(entry)
        return listing

    def run_tool(self, tool, call):
        try:
            return getattr(self, "tool_" + tool["name"])(call)
        except ClientRequestFailed as failure:
            return text_result("The client answered %s with an error: %s"
                               % (failure.method, failure.error.get("message", "(no message)")), True)

    def _task_ttl(self, args, requested=None):
        if isinstance(requested, int) and not isinstance(requested, bool) and requested > 0:
            return requested
        ttl = args.get("ttl_ms")
        if ttl is None:
            return DEFAULT_TASK_TTL_MS
        return None if ttl == 0 else ttl

    def _start_task(self, tool, args, form, ttl_ms, owner, version):
        task, view = self.store.create(tool["name"], form, ttl_ms, owner)
        call = TaskCall(self, tool, args, version, task)
        threading.Thread(target=self._run_task, args=(task, tool, call), daemon=True).start()
        self.log.info("task %s created (%s, %s)", fingerprint(task.task_id), tool["name"], form)
        return view

    def _run_task(self, task, tool, call):
        try:
            result = self.run_tool(tool, call)
        except TaskEnded:
            return
        except MCPError as err:
            self.store.finish(task, "failed", error=err.error_object(),
                              message="Tool execution failed: " + err.message)
            return
        except Exception as exc:
            self.log.warn("task tool %s crashed:\n%s", tool["name"], traceback.format_exc())
            self.store.finish(task, "failed", error={"code": INTERNAL_ERROR, "message": str(exc)},
                              message="Tool execution failed: %s" % exc)
            return
        if result.get("isError") and task.form == "experimental":
            # 2025-11-25: "when the tool result has isError set to true, the task should reach failed"
            self.store.finish(task, "failed", result=result,
                              message="Tool execution failed: " + first_text(result))
        elif result.get("isError"):
            self.store.finish(task, "completed", result=result, message="Completed with a tool error")
        else:
            self.store.finish(task, "completed", result=result, message="Completed")

    # The tools themselves. Each takes a ToolCall and returns a CallToolResult.

    def tool_echo(self, call):
        return text_result(self.options.echo_prefix + call.args["message"])

    tool_admin_echo = tool_echo               # the same tool behind a scope (AUTH_TOOL_SCOPES)

    def tool_big_text(self, call):
        with self.lock:
            if self.big_text is None:         # built once: the benchmark measures the client, not this
                self.big_text = big_text(self.options.big_text * 1024 * 1024)
        return text_result(self.big_text)

    def tool_weather(self, call):
        days = call.args.get("days", 1)
        return text_result("Sunny in %s for %s day%s" % (call.args["region"], days, "" if days == 1 else "s"))

    def tool_paint(self, call):
        return text_result("Painted %s box(es) %s" % (len(call.args["sizes"]), call.args["color"]))

    def tool_measure(self, call):
        length = len(call.args["text"])
        result = text_result("%d characters" % length)
        result["structuredContent"] = {"length": str(length) if call.args.get("broken") else length}
        return result

    def tool_add(self, call):
        total = call.args["a"] + call.args["b"]
        result = text_result("%d + %d = %d" % (call.args["a"], call.args["b"], total))
        result["structuredContent"] = {"sum": total}
        return result

    def tool_get_image(self, call):
        return {"content": [{"type": "image", "data": PNG_B64, "mimeType": "image/png"}]}

    def tool_get_audio(self, call):
        return {"content": [{"type": "audio", "data": WAV_B64, "mimeType": "audio/wav"}]}

    def tool_get_resource_link(self, call):
        return {"content": [{"type": "resource_link", "uri": "test://static/hello.txt", "name": "hello.txt",
                             "title": "Hello text", "description": "A short text resource",
                             "mimeType": "text/plain"}]}

    def tool_get_embedded_resource(self, call):
        return {"content": [{"type": "resource", "resource": {
            "uri": "test://static/hello.txt", "mimeType": "text/plain", "text": "Hello, resource!"}}]}

    def tool_long_operation(self, call):
        steps = call.args["steps"]
        call.log("info", "long_operation: %d steps of %d ms" % (steps, call.args["step_ms"]), "long_operation")
        for step in range(1, steps + 1):
            call.sleep(call.args["step_ms"])
            call.progress(step, steps, "Step %d of %d" % (step, steps))
        return text_result("Done after %d steps" % steps)

    def tool_ask_name(self, call):
        schema = {"type": "object", "properties": {"name": {"type": "string", "title": "Name",
                                                            "description": "Your name"}},
                  "required": ["name"]}
        answer = call.ask("name", "elicitation/create", call.elicit_params("Please enter your name.", schema))
        action = answer.get("action") if isinstance(answer, dict) else None
        if action == "accept":
            content = answer.get("content")
            name = content.get("name") if isinstance(content, dict) else None
            if not isinstance(name, str) or not name:
                raise MCPError(INVALID_PARAMS, "Invalid elicitation result: an accepted form needs content.name")
            return text_result("Hello, %s!" % name)
        if action in ("decline", "cancel"):
            return text_result("No name given (%s)" % action)
        raise MCPError(INVALID_PARAMS, "Invalid elicitation result: action must be accept, decline or cancel")

    def tool_ask_model(self, call):
        question = call.args["question"]
        answer = call.ask("model", "sampling/createMessage", {
            "messages": [{"role": "user", "content": {"type": "text", "text": question}}], "maxTokens": 100})
        content = answer.get("content") if isinstance(answer, dict) else None
        blocks = content if isinstance(content, list) else [content]
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                return text_result("The model said: %s" % block["text"])
        raise MCPError(INVALID_PARAMS, "Invalid sampling result: no text content")

    def tool_list_roots(self, call):
        answer = call.ask("roots", "roots/list", None)
        roots = answer.get("roots") if isinstance(answer, dict) else None
        if not isinstance(roots, list) or not all(isinstance(r, dict) and isinstance(r.get("uri"), str)
                                                  for r in roots):
            raise MCPError(INVALID_PARAMS, "Invalid roots/list result: roots must be a list of {uri}")
        return text_result("\n".join(root["uri"] for root in roots) or "No roots")

    def tool_fail_tool(self, call):
        return text_result("Something went wrong", True)

    def tool_log_message(self, call):
        # --fidelity: logged whether or not a level was set, as the everything server's simulated logs are
        call.log(call.args["level"], call.args["message"], "log_message", getattr(self.options, "fidelity", False))
        return text_result("Logged")

    def tool_toggle_extra_tool(self, call):
        with self.lock:
            self.extra_tool = not self.extra_tool
            added = self.extra_tool
        self.broadcast_list_changed("tools", "toolsListChanged")
        return text_result("Added tool 'extra'" if added else "Removed tool 'extra'")

    def tool_ask_on_stream(self, call):
        peer = getattr(call, "exchange", None) and call.exchange.peer
        if peer is None:
            return text_result("ask_on_stream needs a legacy session (server requests do not exist in %s)"
                               % MODERN_VERSION, True)
        method = call.args["method"]
        request_id, slot = peer.expect_response()
        request = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if STREAM_ASK_PARAMS[method] is not None:
            request["params"] = STREAM_ASK_PARAMS[method]
        peer.send_unsolicited(request)       # lost when no GET stream is open, as with the SDK servers
        while not slot.event.wait(0.05):
            if call.exchange.cancelled.is_set() or peer.closed.is_set():
                peer.forget(request_id)
                raise Abandoned()
        answer = slot.response
        if "error" in answer:
            return text_result("%s answered with error %s: %s" % (method, answer["error"].get("code"),
                                                                   answer["error"].get("message")), True)
        return text_result("%s answered: %s" % (method, dumps(answer.get("result"))))

    def tool_extra(self, call):
        return text_result("The extra tool was called")

    def tool_render_report(self, call):
        pages = call.args["pages"]
        for page in range(1, pages + 1):
            call.status("Rendering page %d of %d" % (page, pages))
            call.sleep(self.options.page_ms)
        return text_result(REPORTS[call.args["quarter"]])

    def tool_fail_report(self, call):
        if call.args["mode"] == "tool_error":
            call.status("Rendering page 1 of 12")
            call.sleep(self.options.page_ms)
            return text_result("Report has no data for that quarter", True)
        for page in range(1, 8):
            call.status("Rendering page %d of 12" % page)
            call.sleep(self.options.page_ms)
        raise MCPError(INTERNAL_ERROR, "Renderer crashed on page 7")

    def tool_touch_resource(self, call):
        uri = call.args["uri"]
        if read_resource(uri) is None:
            return text_result("Unknown resource: %s" % uri, True)
        self.broadcast_resource_updated(uri)
        return text_result("Updated %s" % uri)

    # --- broadcasts ----------------------------------------------------------------------------

    def add_legacy_peer(self, peer):
        with self.lock:
            self.legacy_peers.add(peer)

    def forget_peer(self, peer):
        with self.lock:
            self.legacy_peers.discard(peer)

    def _audience(self):
        with self.lock:
            return list(self.legacy_peers), list(self.subscriptions)

    def broadcast_list_changed(self, kind, flag):
        peers, subscriptions = self._audience()
        for peer in peers:
            if peer.initialized:
                peer.send_unsolicited(notification("notifications/%s/list_changed" % kind))
        for subscription in subscriptions:
            if subscription.accepted.get(flag):
                subscription.emit("notifications/%s/list_changed" % kind)

    def broadcast_resource_updated(self, uri):
        peers, subscriptions = self._audience()
        for peer in peers:
            if uri in peer.resource_subs:
                peer.send_unsolicited(notification("notifications/resources/updated", {"uri": uri}))
        for subscription in subscriptions:
            if uri in subscription.accepted.get("resourceSubscriptions", ()):
                subscription.emit("notifications/resources/updated", {"uri": uri})

    def _task_changed(self, task, extension_view, experimental_view):
        owner = task.owner
        if task.form == "experimental" and owner is not None:
            owner.send_unsolicited(notification("notifications/tasks/status", experimental_view))
        _, subscriptions = self._audience()
        for subscription in subscriptions:
            subscription.send_task(extension_view)

    def begin_shutdown(self, seconds=1.0):
        """End every listen stream gracefully and wait (briefly) until they have."""
        self.shutting_down.set()
        deadline = time.monotonic() + seconds
        with self.listens:
            had_listens = self.open_listens > 0
            while self.open_listens and time.monotonic() < deadline:
                self.listens.wait(deadline - time.monotonic())
        if had_listens:
            time.sleep(0.2)                   # let the transports write the listen results

    # =========================================================================================
    # 2026-07-28 methods
    # =========================================================================================

    MODERN_METHODS = {
        "server/discover": "m_discover",
        "tools/list": "m_tools_list",
        "tools/call": "m_tools_call",
        "resources/list": "m_resources_list",
        "resources/templates/list": "m_templates_list",
        "resources/read": "m_resources_read",
        "prompts/list": "m_prompts_list",
        "prompts/get": "m_prompts_get",
        "completion/complete": "m_complete",
        "subscriptions/listen": "m_listen",
        "tasks/get": "m_tasks_get",
        "tasks/update": "m_tasks_update",
        "tasks/cancel": "m_tasks_cancel",
    }

    MODERN_HINTS = {
        "initialize": " (2026-07-28 has no initialize; send server/discover)",
        "tasks/result": " (not part of the io.modelcontextprotocol/tasks extension; poll tasks/get)",
        "tasks/list": " (the io.modelcontextprotocol/tasks extension has no tasks/list)",
        "logging/setLevel": " (2026-07-28 sets the level per request in _meta)",
        "ping": " (2026-07-28 has no ping)",
        "resources/subscribe": " (2026-07-28 subscribes through subscriptions/listen)",
    }

    def handle_modern(self, exchange):
        name = self.MODERN_METHODS.get(exchange.method)
        if self.serves_skills() and exchange.method in ("skills/list", "skills/get"):
            name = "m_" + exchange.method.replace("/", "_")
        if self.options.no_listen and exchange.method == "subscriptions/listen":
            name = None
        if name is None or (exchange.method.startswith("tasks/") and not self.tasks_enabled):
            raise MCPError(METHOD_NOT_FOUND, "Method not found: %s%s"
                           % (exchange.method, self.MODERN_HINTS.get(exchange.method, "")))
        return getattr(self, name)(exchange)

    def serves_skills(self):
        return self.options.tampered_skill or self.options.skills or self.options.hostile_skill is not None

    def served_skills(self):
        """--skills and --tampered-skill: [(entry, {uri: contents item})], the skills served."""
        served = []
        if self.options.skills:
            served.append(skill_served("skill://docs/greeting/SKILL.md", {"name": "greeting", "description":
                                       "Greets a reader by name (€)."}, {
                "skill://docs/greeting/templates/hello.md": "Hello, {name}!\n".encode("utf-8"),
                "skill://docs/greeting/stamp.bin": bytes(range(250, 256)) + bytes(6)}))
        if self.options.tampered_skill:  # two files disagree with the manifest
            served.append(skill_served("skill://tampered/SKILL.md", {
                "name": "tampered", "description": "A manifest that two files break (€)."}, {
                "skill://tampered/notes.md": "twelve bytes".encode("utf-8"),
                "skill://tampered/seal.bin": bytes(range(16))}, {
                "skill://tampered/notes.md": b"ten bytes!",  # the size differs
                "skill://tampered/seal.bin": bytes(16)}))  # the same size, other bytes
        if self.options.hostile_skill is not None:  # a sound manifest whose file names are hostile
            served.append(skill_served("skill://hostile/SKILL.md", {
                "name": "hostile", "description": "Files named to break a fetch."}, {
                "skill://hostile/" + name: ("file %d\n" % index).encode("utf-8")
                for index, name in enumerate(self.options.hostile_skill)}))
        return served

    def skill_contents(self, uri):
        for _, contents in self.served_skills():
            if uri in contents:
                return [contents[uri]]
        return None

    def m_skills_list(self, exchange):
        return {"resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                "skills": [entry for entry, _ in self.served_skills()]}

    def m_skills_get(self, exchange):
        for entry, _ in self.served_skills():
            if exchange.params.get("uri") == entry["uri"]:
                return {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "skill": entry}
        raise MCPError(INVALID_PARAMS, "Unknown skill URI: %s" % exchange.params.get("uri"))

    def m_discover(self, exchange):
        capabilities = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True},
                        "prompts": {"listChanged": True}, "completions": {}, "logging": {}}
        if self.options.no_listen:
            capabilities = {"tools": {}, "resources": {}, "prompts": {}, "completions": {}, "logging": {}}
        if self.tasks_enabled:
            capabilities["extensions"] = {TASKS_EXT: {}}
        if self.serves_skills():
            capabilities.setdefault("extensions", {})[SKILLS_EXT] = {}
        return self._cacheable({"supportedVersions": self.supported_versions(), "capabilities": capabilities,
                                "instructions": INSTRUCTIONS})

    def m_tools_list(self, exchange):
        return self._cacheable(self._paginate("tools", self.tool_listing("modern", MODERN_VERSION),
                                              exchange.params, "tools"))

    def m_tools_call(self, exchange):
        params = exchange.params
        tool, args = self._tool_and_args(params)
        name = tool["name"]
        ext = self.tasks_enabled and exchange.has_ext()
        if tool["task"] == "required":
            if not self.tasks_enabled:
                return text_result(NO_TASKS_TEXT, True)
            if not ext:
                raise missing_capability("%s runs only as a task; declare the %s extension on this request"
                                         % (name, TASKS_EXT), {"extensions": {TASKS_EXT: {}}})
        need = tool["needs"]
        if need and not isinstance(exchange.caps.get(need), dict):
            raise missing_capability("%s needs the %s capability declared on this request" % (name, need),
                                     {need: {}})
        problem = check_arguments(tool, args)
        if problem:
            return text_result("Invalid arguments for %s: %s" % (name, problem), True)
        args = with_defaults(tool, args)
        if ext and tool["task"]:
            view = self._start_task(tool, args, "extension", self._task_ttl(args), None, MODERN_VERSION)
            view["resultType"] = "task"
            return view
        responses = params.get("inputResponses")
        state = params.get("requestState")
        if responses is not None and not isinstance(responses, dict):
            raise MCPError(INVALID_PARAMS, "inputResponses must be an object")
        if state is not None:
            self._check_request_state(state, name, args)
        elif responses is not None:
            raise MCPError(INVALID_PARAMS, "inputResponses without requestState: a retry must echo the "
                           "requestState of the input_required result")
        try:
            return self.run_tool(tool, DirectCall(self, tool, args, exchange, responses or {}))
        except NeedInput as need_input:
            return {"resultType": "input_required", "inputRequests": need_input.requests,
                    "requestState": self._make_request_state(name, args)}

    def _tool_and_args(self, params):
        name = params.get("name")
        if not isinstance(name, str):
            raise MCPError(INVALID_PARAMS, "tools/call needs params.name")
        tool = self.find_tool(name)
        if tool is None:
            raise MCPError(INVALID_PARAMS, "Unknown tool: %s" % name)
        args = params.get("arguments")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise MCPError(INVALID_PARAMS, "params.arguments must be an object")
        return tool, args

    def m_resources_list(self, exchange):
        return self._cacheable(self._paginate("resources", [resource_listing(r) for r in RESOURCES],
                                              exchange.params, "resources"))

    def m_templates_list(self, exchange):
        return self._cacheable(self._paginate("templates", [dict(t) for t in TEMPLATES], exchange.params,
                                              "resourceTemplates"))

    def m_resources_read(self, exchange):
        uri = exchange.params.get("uri")
        if not isinstance(uri, str):
            raise MCPError(INVALID_PARAMS, "resources/read needs params.uri")
        contents = read_resource(uri)
        contents = self.skill_contents(uri) or contents
        if contents is None:
            raise MCPError(INVALID_PARAMS, "Resource not found: %s" % uri, {"uri": uri})
        return self._cacheable({"contents": contents})

    def m_prompts_list(self, exchange):
        return self._cacheable(self._paginate("prompts", copy.deepcopy(list(PROMPTS)), exchange.params,
                                              "prompts"))

    def m_prompts_get(self, exchange):
        return self._prompts_get(exchange.params)

    def _prompts_get(self, params):
        name = params.get("name")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise MCPError(INVALID_PARAMS, "prompts/get needs params.name and object params.arguments")
        return prompt_messages(name, arguments)

    def m_complete(self, exchange):
        return completion_values(exchange.params)

    def m_listen(self, exchange):
        wanted = exchange.params.get("notifications")
        if not isinstance(wanted, dict):
            raise MCPError(INVALID_PARAMS, "subscriptions/listen needs params.notifications")
        accepted = {}
        for flag in ("toolsListChanged", "promptsListChanged", "resourcesListChanged"):
            if wanted.get(flag) is True:
                accepted[flag] = True
        if "resourceSubscriptions" in wanted:
            uris = wanted["resourceSubscriptions"]
            if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
                raise MCPError(INVALID_PARAMS, "resourceSubscriptions must be a list of URIs")
            accepted["resourceSubscriptions"] = list(uris)
        if "taskIds" in wanted:
            task_ids = wanted["taskIds"]
            if not isinstance(task_ids, list) or not all(isinstance(t, str) for t in task_ids):
                raise MCPError(INVALID_PARAMS, "taskIds must be a list of task ids")
            if self.tasks_enabled:
                if not exchange.has_ext():
                    raise missing_capability("taskIds needs the %s extension declared on this listen request"
                                             % TASKS_EXT, {"extensions": {TASKS_EXT: {}}})
                accepted["taskIds"] = [t for t in task_ids if self.store.exists(t)]
        subscription = Subscription(exchange, accepted)
        with self.lock:                       # broadcasts snapshot under this lock: none can slip between
            exchange.send(notification("notifications/subscriptions/acknowledged", {
                "_meta": {META_SUBSCRIPTION: exchange.request_id}, "notifications": accepted}))
            self.subscriptions.append(subscription)
            self.open_listens += 1
        try:
            for task_id in accepted.get("taskIds", ()):
                try:
                    subscription.send_task(self.store.view(self.store.lookup(task_id), "extension"))
                except MCPError:
                    pass
            while not exchange.cancelled.wait(0.1):
                if self.shutting_down.is_set():
                    if exchange.transport == "stdio":
                        exchange.after.append(notification("notifications/cancelled", {
                            "requestId": exchange.request_id, "reason": "The server is shutting down"}))
                    return {"_meta": {META_SUBSCRIPTION: exchange.request_id}}
            raise Abandoned()
        finally:
            with self.lock:
                self.subscriptions.remove(subscription)
                self.open_listens -= 1
                self.listens.notify_all()

    def _task_for(self, exchange):
        if not exchange.has_ext():
            raise missing_capability("%s needs the %s extension declared on this request"
                                     % (exchange.method, TASKS_EXT), {"extensions": {TASKS_EXT: {}}})
        task_id = exchange.params.get("taskId")
        if not isinstance(task_id, str):
            raise MCPError(INVALID_PARAMS, "%s needs params.taskId" % exchange.method)
        return self.store.lookup(task_id)

    def m_tasks_get(self, exchange):
        view = self.store.view(self._task_for(exchange), "extension")
        if view["status"] == "input_required":
            missing = undeclared(capabilities_for_inputs(view["inputRequests"]), exchange.caps)
            if missing:
                raise missing_capability("the task waits on input this request did not declare (%s)"
                                         % ", ".join(sorted(missing)), missing)
        return view

    def m_tasks_update(self, exchange):
        task = self._task_for(exchange)
        responses = exchange.params.get("inputResponses")
        if not isinstance(responses, dict) or not all(isinstance(v, dict) for v in responses.values()):
            raise MCPError(INVALID_PARAMS, "tasks/update needs params.inputResponses: an object of results")
        view = self.store.view(task, "extension")
        outstanding = {key: request for key, request in view.get("inputRequests", {}).items()
                       if key in responses}
        missing = undeclared(capabilities_for_inputs(outstanding), exchange.caps)
        if missing:
            raise missing_capability("answering these inputRequests needs %s declared on this request"
                                     % ", ".join(sorted(missing)), missing)
        self.store.provide_input(task, {key: ("result", value) for key, value in responses.items()})
        return {}

    def m_tasks_cancel(self, exchange):
        task = self._task_for(exchange)
        if self.store.cancel(task):
            self.log.info("task %s cancelled", fingerprint(task.task_id))
        return {}

    # =========================================================================================
    # 2025-11-25 (and older) methods
    # =========================================================================================

    LEGACY_METHODS = {
        "ping": "l_ping",
        "tools/list": "l_tools_list",
        "tools/call": "l_tools_call",
        "resources/list": "l_resources_list",
        "resources/templates/list": "l_templates_list",
        "resources/read": "l_resources_read",
        "resources/subscribe": "l_subscribe",
        "resources/unsubscribe": "l_unsubscribe",
        "prompts/list": "l_prompts_list",
        "prompts/get": "l_prompts_get",
        "completion/complete": "l_complete",
        "logging/setLevel": "l_set_level",
        "tasks/get": "l_tasks_get",
        "tasks/result": "l_tasks_result",
        "tasks/list": "l_tasks_list",
        "tasks/cancel": "l_tasks_cancel",
    }

    def handle_legacy(self, exchange):
        peer = exchange.peer
        if exchange.method == "initialize":
            return self.l_initialize(exchange)
        name = self.LEGACY_METHODS.get(exchange.method)
        if name is None:
            raise MCPError(METHOD_NOT_FOUND, "Method not found: %s" % exchange.method)
        if not peer.initialized and exchange.method != "ping":
            raise MCPError(LEGACY_BAD_REQUEST, "Bad Request: Server not initialized")
        if exchange.method.startswith("tasks/") and not self.legacy_tasks(peer.version):
            raise MCPError(METHOD_NOT_FOUND, "Method not found: %s (no tasks in this session)" % exchange.method)
        return getattr(self, name)(exchange)

    def l_initialize(self, exchange):
        peer = exchange.peer
        if peer.initialized:
            raise MCPError(INVALID_REQUEST, "Invalid request: this connection is already initialized")
        params = exchange.params
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            raise MCPError(INVALID_PARAMS, "initialize needs params.protocolVersion")
        if not isinstance(params.get("capabilities"), dict):
            raise MCPError(INVALID_PARAMS, "initialize needs params.capabilities (an object)")
        info = params.get("clientInfo")
        if not (isinstance(info, dict) and isinstance(info.get("name"), str)
                and isinstance(info.get("version"), str)):
            raise MCPError(INVALID_PARAMS, "initialize needs params.clientInfo with name and version")
        version = negotiate_legacy(requested)
        capabilities = {"tools": {"listChanged": True}, "resources": {"subscribe": True, "listChanged": True},
                        "prompts": {"listChanged": True}, "completions": {}, "logging": {}}
        if self.legacy_tasks(version):
            capabilities["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        peer.version = version
        peer.caps = params["capabilities"]
        peer.initialized = True
        self.add_legacy_peer(peer)
        self.log.info("initialized %s peer with %s", peer.transport, version)
        return {"protocolVersion": version, "capabilities": capabilities, "serverInfo": dict(SERVER_INFO),
                "instructions": INSTRUCTIONS}

    def l_ping(self, exchange):
        return {}

    def l_tools_list(self, exchange):
        return self._paginate("tools", self.tool_listing("legacy", exchange.version), exchange.params, "tools")

    def l_tools_call(self, exchange):
        params = exchange.params
        tool, args = self._tool_and_args(params)
        name = tool["name"]
        task_params = params.get("task")
        tasks_here = self.legacy_tasks(exchange.version)
        if tasks_here and task_params is not None:
            if not isinstance(task_params, dict):
                raise MCPError(INVALID_PARAMS, "params.task must be an object")
            if not tool["task"]:
                raise MCPError(METHOD_NOT_FOUND, "Task augmentation is not supported for tool %s" % name)
        elif tool["task"] == "required":
            if not self.tasks_enabled:
                return text_result(NO_TASKS_TEXT, True)
            if not tasks_here:
                return text_result("%s runs only as a task, and tasks need protocol version %s (this session "
                                   "uses %s)" % (name, TASKS_VERSION, exchange.version), True)
            raise MCPError(METHOD_NOT_FOUND, "Task augmentation required for tools/call")
        need = tool["needs"]
        if need and not isinstance(exchange.caps.get(need), dict):
            return text_result("%s needs the client's %s capability, which the client did not declare in "
                               "initialize" % (name, need), True)
        problem = check_arguments(tool, args)
        if problem:
            return text_result("Invalid arguments for %s: %s" % (name, problem), True)
        args = with_defaults(tool, args)
        if tasks_here and task_params is not None:
            ttl = self._task_ttl(args, task_params.get("ttl"))
            return {"task": self._start_task(tool, args, "experimental", ttl, exchange.peer, exchange.version)}
        return self.run_tool(tool, DirectCall(self, tool, args, exchange, {}))

    def l_resources_list(self, exchange):
        return self._paginate("resources", [resource_listing(r) for r in RESOURCES], exchange.params, "resources")

    def l_templates_list(self, exchange):
        return self._paginate("templates", [dict(t) for t in TEMPLATES], exchange.params, "resourceTemplates")

    def l_resources_read(self, exchange):
        uri = exchange.params.get("uri")
        if not isinstance(uri, str):
            raise MCPError(INVALID_PARAMS, "resources/read needs params.uri")
        contents = read_resource(uri)
        if contents is None:
            raise MCPError(LEGACY_RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})
        return {"contents": contents}

    def l_subscribe(self, exchange):
        uri = exchange.params.get("uri")
        if not isinstance(uri, str):
            raise MCPError(INVALID_PARAMS, "resources/subscribe needs params.uri")
        exchange.peer.resource_subs.add(uri)
        return {}

    def l_unsubscribe(self, exchange):
        exchange.peer.resource_subs.discard(exchange.params.get("uri"))
        return {}

    def l_prompts_list(self, exchange):
        return self._paginate("prompts", copy.deepcopy(list(PROMPTS)), exchange.params, "prompts")

    def l_prompts_get(self, exchange):
        return self._prompts_get(exchange.params)

    def l_complete(self, exchange):
        return completion_values(exchange.params)

    def l_set_level(self, exchange):
        level = exchange.params.get("level")
        if level not in LOG_LEVELS:
            raise MCPError(INVALID_PARAMS, "Invalid log level: %s" % level)
        exchange.peer.log_level = level
        if self.options.changes_on_set_level:  # as the everything server's start does, before the answer
            for kind in ("tools", "prompts", "resources"):
                exchange.peer.send_unsolicited(notification("notifications/%s/list_changed" % kind))
        return {}

    def _legacy_task(self, exchange):
        task = self.store.lookup(exchange.params.get("taskId"))
        if not self._visible(task, exchange):
            raise MCPError(INVALID_PARAMS, "Failed to retrieve task: Task not found")
        return task

    def _visible(self, task, exchange):
        """--fidelity keeps tasks per session, as the everything server does."""
        return not self.options.fidelity or task.owner is None or task.owner is exchange.peer

    def l_tasks_get(self, exchange):
        return self.store.view(self._legacy_task(exchange), "experimental")

    def l_tasks_list(self, exchange):
        views = [view for view in self.store.all_views("experimental")
                 if self._visible(self.store.lookup(view["taskId"]), exchange)]
        return self._paginate("tasks", views, exchange.params, "tasks")

    def l_tasks_cancel(self, exchange):
        task = self._legacy_task(exchange)
        if not self.store.cancel(task):
            raise MCPError(INVALID_PARAMS, "Cannot cancel task: already in terminal status '%s'"
                           % self.store.view(task, "experimental")["status"])
        self.log.info("task %s cancelled", fingerprint(task.task_id))
        return self.store.view(task, "experimental")

    def l_tasks_result(self, exchange):
        """Block until the task ends; meanwhile send its input requests on this request's stream."""
        task = self._legacy_task(exchange)
        related = {META_RELATED_TASK: {"taskId": task.task_id}}
        while not self.store.wait_change(task, 0.1):
            if exchange.cancelled.is_set() or exchange.peer.closed.is_set():
                raise Abandoned()
            claimed = self.store.claim_inputs(task)
            asked = False
            try:
                for key, request in claimed:
                    if undeclared(capabilities_for_inputs({key: request}), exchange.caps):
                        continue              # this client cannot answer it; another tasks/result may
                    asked = True
                    params = copy.deepcopy(request.get("params") or {})
                    params["_meta"] = dict(params.get("_meta") or {}, **related)
                    response = exchange.ask(request["method"], params, task.terminal)
                    if response is None:
                        break
                    if "error" in response:
                        self.store.provide_input(task, {key: ("error", response["error"])})
                    else:
                        result = response.get("result")
                        self.store.provide_input(task, {key: ("result", result if isinstance(result, dict) else {})})
            finally:
                self.store.release_inputs(task, [key for key, _ in claimed])
            if claimed and not asked:
                exchange.cancelled.wait(0.1)
        with self.store.cond:
            status, result, error = task.status, copy.deepcopy(task.result), copy.deepcopy(task.error)
        if result is not None:
            result["_meta"] = dict(result.get("_meta") or {}, **related)
            return result
        if status == "cancelled":
            raise MCPError(INTERNAL_ERROR, "Task was cancelled; it has no result")
        raise MCPError(error["code"], error["message"], error.get("data"))


# =============================================================================================
# stdio transport
# =============================================================================================

class StdioTransport(object):
    """Newline-delimited JSON-RPC on stdin/stdout. The process locks to one era (--era both)."""

    # Requests that may block, and so run on their own thread; the rest run in arrival order.
    BLOCKING = ("tools/call", "tasks/result", "subscriptions/listen")

    def __init__(self, server):
        self.server = server
        self.log = server.log
        self.out = sys.stdout.buffer
        self.write_lock = threading.Lock()
        self.peer = Peer("stdio", unsolicited=self.write)
        self.era = None                       # "modern" | "legacy" once locked
        self.threads = []

    def write(self, message):
        data = (dumps(message) + "\n").encode("utf-8")
        with self.write_lock:
            try:
                self.out.write(data)
                self.out.flush()
            except (OSError, ValueError):
                self.peer.closed.set()

    def run(self):
        stdin = sys.stdin.buffer
        while True:
            line = stdin.readline()
            if not line:
                break
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line.decode("utf-8"))
            except ValueError:
                self.write(error_response(None, MCPError(PARSE_ERROR, "Parse error"), null_id=True))
                continue
            self.dispatch(message)

    def shutdown(self, seconds=2.0):
        """End listens gracefully and give in-flight requests a moment to answer."""
        self.server.begin_shutdown()
        deadline = time.monotonic() + seconds
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.peer.close()

    # --- routing -------------------------------------------------------------------------------

    @staticmethod
    def _looks_like(message):
        method = message.get("method")
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if method == "initialize":
            return "legacy"
        if isinstance(meta, dict) and META_VERSION in meta:
            return "modern"
        if method in ("server/discover", "subscriptions/listen", "tasks/update"):
            return "modern"
        return None

    def _era_of(self, message):
        """modern | legacy | unlocked (dual mode, nothing decided yet) | wrong (other era)."""
        mode = self.server.options.era
        if mode == MODERN_VERSION:
            return "modern"
        if mode == "2025-11-25":
            return "legacy"
        looks = self._looks_like(message)
        if self.era is None:
            if looks is None:
                return "unlocked"
            self.era = looks
            self.log.info("stdio process locked to the %s era", looks)
            return looks
        if looks is not None and looks != self.era:
            return "wrong"
        return self.era

    def _record_era(self, era, message):
        if era == "modern":
            return MODERN_VERSION
        if era == "legacy":
            if self.peer.version:
                return self.peer.version
            if message.get("method") == "initialize" and isinstance(message.get("params"), dict):
                requested = message["params"].get("protocolVersion")
                return negotiate_legacy(requested) if isinstance(requested, str) else None
        return None

    def dispatch(self, message):
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.server.recorder.record("stdio", None, message)
            self.write(error_response(None, MCPError(INVALID_REQUEST, "Invalid Request: one JSON-RPC 2.0 "
                                                     "object per line (no batches)"), null_id=True))
            return
        if "method" not in message:
            self.server.recorder.record("stdio", self._record_era(self.era, message), message)
            if not self.peer.resolve(message):
                self.log.warn("ignored a response to no request of ours")
            return
        if "id" not in message:
            self.server.recorder.record("stdio", self._record_era(self.era, message), message)
            self._notification(message)
            return
        era = self._era_of(message)
        self.server.recorder.record("stdio", self._record_era(era, message), message)
        self.log.info("stdio %s (%s)", message.get("method"), era)
        request_id = message.get("id")
        if not is_request_id(request_id):
            self.write(error_response(None, MCPError(INVALID_REQUEST, "Invalid Request: id must be a string "
                                                     "or an integer"), null_id=True))
            return
        if era == "wrong":
            other = "2026-07-28" if self.era == "legacy" else "2025-11-25"
            self.write(error_response(request_id, MCPError(
                INVALID_REQUEST, "Invalid Request: this server process is locked to the %s era by its first "
                "request; start a new process to speak %s" % (
                    "2025-11-25" if self.era == "legacy" else "2026-07-28", other))))
            return
        if era == "unlocked":
            if message.get("method") == "ping":
                self.write({"jsonrpc": "2.0", "id": request_id, "result": {}})
            else:
                self.write(error_response(request_id, self.server.bad_envelope("params._meta is missing")))
            return
        if era == "modern":
            try:
                if message.get("method") == "initialize":
                    raise self.server.initialize_refusal(message)
                version, caps = self.server.modern_meta(message)
                self.server.check_modern_version(version)
            except MCPError as err:
                self.write(error_response(request_id, err))
                return
            exchange = Exchange(message, "modern", version, caps, self.write, self.peer, "stdio")
        else:
            exchange = Exchange(message, "legacy", self.peer.version, self.peer.caps, self.write, self.peer,
                                "stdio")
        if message.get("method") in self.BLOCKING:
            thread = threading.Thread(target=self._serve, args=(exchange,), daemon=True)
            self.threads = [t for t in self.threads if t.is_alive()] + [thread]
            thread.start()
        else:
            self._serve(exchange)

    def _serve(self, exchange):
        self.peer.track(exchange)
        try:
            response, _ = self.server.serve(exchange)
        finally:
            self.peer.untrack(exchange)
        if response is not None:
            self.write(response)
            for message in exchange.after:
                self.write(message)

    def _notification(self, message):
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "notifications/cancelled" and self.server.options.ignore_cancel:
            self.log.info("notifications/cancelled ignored (--ignore-cancel)")
        elif method == "notifications/cancelled":
            if not self.peer.cancel_request(params.get("requestId")):
                self.log.info("notifications/cancelled for a request that is not in flight")
        elif method == "notifications/initialized":
            self.peer.ready = True
        elif method == "notifications/roots/list_changed" and self.server.options.reread_roots:
            self.peer.send_unsolicited({"jsonrpc": "2.0", "id": self.peer.expect_response()[0],
                                        "method": "roots/list"})  # its answer is in the --record file
        else:
            self.log.info("stdio notification %s ignored", method)


# =============================================================================================
# Streamable HTTP transport (both eras) and the 2024-11-05 HTTP+SSE transport
# =============================================================================================

class StreamEvent(object):
    def __init__(self, msg, final, status, event_id, event="message"):
        self.msg = msg                        # a JSON-RPC message, or a string (the endpoint event)
        self.final = final                    # the response that ends a request's stream
        self.status = status                  # HTTP status, if this response goes out as plain JSON
        self.event_id = event_id
        self.event = event


CUT_HOWS = {  # --cut-how: where a cut stream stops
    "between": "after a whole event (chunked: after its chunk, with no terminating chunk)",
    "mid-event": "inside the next event's data line, its id line left out",
    "mid-event-id": "inside the next event's data line, after its id line",
    "mid-chunk": "chunked: the next event's chunk announced whole, cut inside its data line",
    "end": "a clean end (the terminating chunk, or the close) without the answer",
}


def event_bytes(data, event=None, event_id=None, retry_ms=None):
    """One SSE event as written on a stream."""
    lines = []
    if event_id is not None:
        lines.append("id: " + event_id)
    if retry_ms is not None:
        lines.append("retry: %d" % retry_ms)
    if event is not None:
        lines.append("event: " + event)
    lines.extend("data: " + part for part in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


class OutStream(object):
    """Messages for one response stream, written out by exactly one handler thread at a time.

    Legacy streams number their events (prefix + sequence) and keep them, for Last-Event-ID.
    """

    def __init__(self, prefix=None):
        self.prefix = prefix
        self.cond = threading.Condition()
        self.events = []
        self.ended = False
        self.attached = False

    def put(self, msg, final=False, status=200, event="message"):
        with self.cond:
            if self.ended:
                return
            event_id = None if self.prefix is None else "%s%d" % (self.prefix, len(self.events) + 1)
            self.events.append(StreamEvent(msg, final, status, event_id, event))
            if final:
                self.ended = True
            self.cond.notify_all()

    def end(self):
        with self.cond:
            self.ended = True
            self.cond.notify_all()


class HttpSession(Peer):
    """A legacy Streamable HTTP session: its POST streams, its GET stream, their event history."""

    def __init__(self, session_id):
        Peer.__init__(self, "http", session_id)
        self.streams = {}
        self.stream_counter = 0
        self.get_stream = None

    def new_stream(self):
        with self.lock:
            self.stream_counter += 1
            prefix = "%d-" % self.stream_counter
            stream = OutStream(prefix)
            self.streams[prefix] = stream
            return stream

    def open_get_stream(self):
        with self.lock:
            if self.get_stream is None:
                self.get_stream = OutStream("0-")
                self.streams["0-"] = self.get_stream
            return self.get_stream

    def send_unsolicited(self, message):
        stream = self.get_stream
        if stream is not None and not self.closed.is_set():
            stream.put(message)

    def find_event(self, event_id):
        """(stream, index after that event) for a Last-Event-ID, or (None, 0)."""
        prefix, _, sequence = event_id.rpartition("-")
        stream = self.streams.get(prefix + "-")
        if stream is None or not sequence.isdigit() or int(sequence) > len(stream.events):
            return None, 0
        return stream, int(sequence)

    def close(self):
        Peer.close(self)
        for stream in list(self.streams.values()):
            stream.end()


class SseSession(Peer):
    """A 2024-11-05 HTTP+SSE session: one GET stream carries everything the server sends."""

    def __init__(self, session_id):
        self.stream = OutStream()
        Peer.__init__(self, "sse", session_id, unsolicited=self.stream.put)

    def close(self):
        Peer.close(self)
        self.stream.end()


def decode_header_value(raw):
    """A header value after Base64-sentinel decoding; None when it holds invalid characters."""
    if any(not (0x20 <= ord(ch) <= 0x7E or ch == "\t") for ch in raw):
        return None
    if raw.startswith("=?base64?") and raw.endswith("?=") and len(raw) >= 11:
        try:
            return base64.b64decode(raw[9:-2], validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
    return raw


MCP_NAME_SOURCES = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                    "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


class Handler(BaseHTTPRequestHandler):
    """Hands every request to the HttpFrontEnd; knows how to write JSON, status and SSE."""

    protocol_version = "HTTP/1.1"
    server_version = "mcp-tui-testserver/0.1.0"
    disable_nagle_algorithm = True  # headers and body go in two writes; Nagle would delay the second 40 ms

    def log_message(self, format, *args):
        pass                                  # request lines can carry session ids

    def do_POST(self):
        self.server.frontend.handle(self, "POST")

    def do_GET(self):
        self.server.frontend.handle(self, "GET")

    def do_DELETE(self):
        self.server.frontend.handle(self, "DELETE")

    def do_PUT(self):
        self.server.frontend.handle(self, "PUT")

    def do_PATCH(self):
        self.server.frontend.handle(self, "PATCH")

    def do_OPTIONS(self):
        self.server.frontend.handle(self, "OPTIONS")

    # --- writing -------------------------------------------------------------------------------

    def send_body(self, status, body, content_type, headers=None):
        self.send_response(status)
        if body or content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def send_json(self, status, message, headers=None):
        self.send_body(status, dumps(message).encode("utf-8"), "application/json", headers)

    def send_status(self, status, headers=None):
        self.send_body(status, b"", None, headers)

    chunked = False                           # this response's SSE stream is chunked (--chunked-streams)

    def start_sse(self, headers=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")
        self.chunked = self.server.frontend.options.chunked_streams
        if self.chunked:                      # Express and uvicorn: chunked, and the connection kept alive
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "keep-alive")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def _write_stream(self, data):
        if self.chunked:
            data = b"%x\r\n%s\r\n" % (len(data), data)
        try:
            self.wfile.write(data)
            self.wfile.flush()
            return True
        except (OSError, ValueError):
            return False

    def write_event(self, data, event=None, event_id=None, retry_ms=None):
        return self._write_stream(event_bytes(data, event, event_id, retry_ms))

    def end_sse(self):
        """The end of a stream that was not cut: the terminating chunk when chunked (the
        connection then takes the next request); without chunks, the close ends it."""
        if self.chunked:
            self.chunked = False              # the terminator is no chunk of its own
            if not self._write_stream(b"0\r\n\r\n"):
                self.close_connection = True

    def cut_stream(self, how="between", following=None):
        """Close the connection in the middle of the stream: no response, no terminating chunk.
        ``how`` (--cut-how) other than between: first a part of ``following``, the next event
        (its bytes), cut inside its data line: as a chunk of its own, or (mid-chunk) inside a
        chunk that announced the whole event."""
        if how != "between" and following is not None:
            part = following[:following.index(b"data: ") + 20]
            if how == "mid-chunk" and self.chunked:
                self.chunked = False
                self._write_stream(b"%x\r\n%s" % (len(following), part))
            else:
                self._write_stream(part)
        self.chunked = False
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def client_gone(self):
        """True once the client has closed its end of the connection."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if readable:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True
        return False

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            return None
        return self.rfile.read(int(length))


class HttpFrontEnd(object):
    """Routes HTTP requests to the right era, checks transport rules, streams responses."""

    def __init__(self, server):
        self.server = server
        self.options = server.options
        self.log = server.log
        self.recorder = server.recorder
        self.lock = threading.Lock()
        self.sessions = {}                    # legacy Streamable HTTP sessions
        self.sse_sessions = {}                # 2024-11-05 HTTP+SSE sessions
        self.cut_methods = set()              # --cut-streams: the methods whose first stream was cut
        self.auth = None                      # an AuthServer with --auth (set once the port is known)

    # --- entry ---------------------------------------------------------------------------------

    def handle(self, h, verb):
        try:
            try:
                body = h.read_body() if verb == "POST" else b""
            except ValueError:                # a broken chunked body
                body = None
                h.close_connection = True
            if not self._origin_ok(h):
                h.close_connection = True
                h.send_json(403, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST,
                                                              "message": "Forbidden: Origin not allowed"}})
                return
            path = urlsplit(h.path).path
            if self.auth is not None and not self.auth.admit(h, verb, path, body):
                return
            if self.options.legacy_sse:
                self.legacy_sse(h, verb, path, body)
            elif self.options.forget_endpoint and path == "/forget" and verb == "POST":
                self.forget_sessions(h)
            elif path == "/mcp" and self.options.http_fault and self.planted_fault(h, verb, body):
                pass
            elif self.options.server_card and verb == "GET" and path in ("/mcp/server-card",
                                                                          "/.well-known/ai-catalog.json"):
                self.serve_card(h, path)
            elif path != "/mcp":
                h.send_json(404, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST,
                                                              "message": "Not Found: the MCP endpoint is /mcp"}})
            elif verb == "POST":
                self.post(h, body)
            elif verb in ("GET", "DELETE"):
                self.get_or_delete(h, verb)
            else:
                h.send_status(405, {"Allow": "POST, GET, DELETE"})
        except OSError as exc:
            self.log.info("HTTP connection ended: %s", type(exc).__name__)
            h.close_connection = True

    def server_card(self, h):
        """--server-card: this server's card, as SEP-2127 describes it (--card-fault plants one lie)."""
        fault = self.options.card_fault
        card = {"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
                "name": "io.github.mcp-tui/testserver", "version": SERVER_INFO["version"],
                "title": SERVER_INFO["title"], "description": "mcp-tui's own test server.",
                "remotes": [{"type": "streamable-http", "url": "http://%s/mcp" % h.headers.get("Host"),
                             "supportedProtocolVersions": self.server.supported_versions()}]}
        if fault == "invalid":
            card["name"], card["remotes"][0]["type"] = "no-slash", "websocket"
        elif fault == "version":
            card["version"] = "9.9.9"
        elif fault == "versions":
            card["remotes"][0]["supportedProtocolVersions"] = ["2099-01-01"]
        return card

    def serve_card(self, h, path):
        fault = self.options.card_fault
        if (path == "/mcp/server-card" and fault == "redirect") or (
                path != "/mcp/server-card" and fault == "catalog-redirect"):
            h.send_body(302, b"", None, {"Location": "http://elsewhere.invalid%s" % path})
            return
        if path == "/mcp/server-card" and fault in UNREADABLE_CARDS:
            body = {"huge": lambda: dumps(dict(self.server_card(h), description="x" * (2 << 20))).encode("utf-8"),
                    "deep": lambda: b"[" * 50000 + b"]" * 50000,
                    "not-json": lambda: b"<html>a card</html>"}[fault]()
            h.send_body(200, body, "application/mcp-server-card+json")
            return
        if path == "/mcp/server-card" and fault == "catalog-version":
            h.send_json(404, {"error": "no card here: the catalog has it"})
            return
        if fault == "catalog-version":
            card = dict(self.server_card(h), version="9.9.9")
            entries = [{"identifier": "urn:air:localhost:mcp:testserver", "type": "application/mcp-server-card+json",
                        "data": card}]
            h.send_body(200, dumps({"specVersion": "1.0", "entries": entries}).encode("utf-8"),
                        "application/ai-catalog+json")
            return
        if path == "/mcp/server-card":
            h.send_body(200, dumps(self.server_card(h)).encode("utf-8"), "application/mcp-server-card+json",
                        {"Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=3600"})
            return
        entries = [{"identifier": "urn:air:localhost:mcp:testserver", "type": "application/mcp-server-card+json",
                    "url": "http://%s/mcp/server-card" % h.headers.get("Host")}]
        for index in range(self.options.catalog_extra):  # more servers on the host: a choice to make
            entries.append({"identifier": "urn:air:localhost:mcp:other-%d" % (index + 1),
                            "type": "application/mcp-server-card+json",
                            "data": dict(self.server_card(h), name="io.github.mcp-tui/other-%d" % (index + 1))})
        h.send_body(200, dumps({"specVersion": "1.0", "entries": entries}).encode("utf-8"),
                    "application/ai-catalog+json")

    def planted_fault(self, h, verb, body):
        """--http-fault: True when this request got the planted wrong answer."""
        fault = self.options.http_fault
        if fault == "get-json" and verb == "GET":
            h.send_json(200, {})
        elif fault == "delete-500" and verb == "DELETE":
            h.send_json(500, {"jsonrpc": "2.0", "error": {"code": INTERNAL_ERROR, "message": "cannot delete"}})
        elif fault == "content-type" and verb == "POST" and b'"ping"' in (body or b""):
            message = json.loads(body.decode("utf-8"))
            h.send_body(200, dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": {}}).encode("utf-8"),
                        "text/plain")
        else:
            return False
        return True

    def _origin_ok(self, h):
        origin = h.headers.get("Origin")
        if origin is None:
            return True
        try:
            host = urlsplit(origin).hostname
        except ValueError:
            return False
        return host in ("localhost", "127.0.0.1", "::1")

    def _http_info(self, h):
        return {"method": h.command, "path": h.path,
                "headers": {name.lower(): value for name, value in h.headers.items()}}

    # --- POST ----------------------------------------------------------------------------------

    def post(self, h, body):
        content_type = h.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            h.send_json(415, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Unsupported Media Type: Content-Type must be application/json"}})
            return
        accepted = [part.split(";")[0].strip().lower() for part in h.headers.get("Accept", "").split(",")]
        if "application/json" not in accepted or "text/event-stream" not in accepted:
            h.send_json(406, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Not Acceptable: Accept must list application/json and text/event-stream"}})
            return
        if body is None:
            h.send_json(400, {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST,
                                                                      "message": "Bad Request: no body"}})
            return
        try:
            message = json.loads(body.decode("utf-8"))
        except ValueError:
            h.send_json(400, {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}})
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self.recorder.record("http", None, message, self._http_info(h))
            h.send_json(400, {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message":
                              "Invalid Request: one JSON-RPC 2.0 object per POST (no batches)"}})
            return
        modern = self._is_modern(h, message)
        if self.options.hang_up_calls and message.get("method") == "tools/call":
            self.recorder.record("http", MODERN_VERSION if modern else h.headers.get("MCP-Protocol-Version"), message,
                                 self._http_info(h))
            h.close_connection = True  # no status line: the client waits for headers and sees the end
            return
        if modern:
            self.modern_post(h, message)
        else:
            self.legacy_post(h, message)

    def _is_modern(self, h, message):
        mode = self.options.era
        if mode != "both":
            return mode == MODERN_VERSION
        header_version = h.headers.get("MCP-Protocol-Version")
        if header_version == MODERN_VERSION:
            return True
        if h.headers.get("Mcp-Session-Id") is not None:
            return False
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("_meta"), dict) and META_VERSION in params["_meta"]:
            return True                       # a 2026 envelope: its header problems are -32020, not "no session"
        if message.get("method") == "initialize" and header_version is None:
            return False
        return header_version not in LEGACY_VERSIONS

    @staticmethod
    def modern_status(error):
        if error.http_status:
            return error.http_status
        if error.code == METHOD_NOT_FOUND:
            return 404
        if error.code in (HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION, PARSE_ERROR, INVALID_REQUEST):
            return 400
        return 200

    @staticmethod
    def legacy_status(error):
        if error.http_status:
            return error.http_status
        return 400 if error.code in (PARSE_ERROR, INVALID_REQUEST) else 200

    def _check_headers(self, h, message):
        """The 2026-07-28 header rules that do not need the body's _meta (-32020)."""
        def mismatch(text):
            return MCPError(HEADER_MISMATCH, "Header mismatch: " + text, None, 400)
        version = h.headers.get("MCP-Protocol-Version")
        if version is None:
            raise mismatch("missing MCP-Protocol-Version header")
        method = h.headers.get("Mcp-Method")
        if method is None:
            raise mismatch("missing Mcp-Method header")
        if decode_header_value(version) is None or decode_header_value(method) is None:
            raise mismatch("invalid characters in a header value")
        if method != message.get("method") and self.options.http_fault != "method-header":
            raise mismatch("Mcp-Method header value '%s' does not match body value '%s'"
                           % (method, message.get("method")))

    def _check_name_header(self, h, message):
        field = MCP_NAME_SOURCES.get(message.get("method"))
        params = message.get("params")
        if field is None or not isinstance(params, dict) or not isinstance(params.get(field), str):
            return
        secret = field == "taskId"            # never echo task ids in messages
        raw = h.headers.get("Mcp-Name")
        if raw is None:
            raise MCPError(HEADER_MISMATCH, "Header mismatch: missing Mcp-Name header (%s needs params.%s)"
                           % (message["method"], field), None, 400)
        value = decode_header_value(raw)
        if value is None:
            raise MCPError(HEADER_MISMATCH, "Header mismatch: invalid Mcp-Name header value (use the "
                           "=?base64?...?= form for non-ASCII values)", None, 400)
        if value != params[field]:
            if secret:
                text = "Mcp-Name header value does not match params.taskId"
            else:
                text = "Mcp-Name header value '%s' does not match body value '%s'" % (value, params[field])
            raise MCPError(HEADER_MISMATCH, "Header mismatch: " + text, None, 400)

    def _check_param_headers(self, h, message):
        """x-mcp-header: each annotated top-level argument must travel as Mcp-Param-{Name}."""
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        tool = self.server.find_tool(params.get("name")) if message.get("method") == "tools/call" else None
        if tool is None:
            return
        arguments = params.get("arguments") or {}
        for key, prop in tool["inputSchema"]["properties"].items():
            name = prop.get("x-mcp-header")
            if not name:
                continue
            raw = h.headers.get("Mcp-Param-" + name)
            value = arguments.get(key)
            expected = None if value is None else (("true" if value else "false") if isinstance(value, bool)
                                                   else str(value))
            got = decode_header_value(raw) if raw is not None else None
            if got != expected:
                raise MCPError(HEADER_MISMATCH, "Header mismatch: Mcp-Param-%s header value %r does not match "
                               "body value %r" % (name, got, expected), None, 400)

    def modern_post(self, h, message):
        self.recorder.record("http", MODERN_VERSION, message, self._http_info(h))
        if "method" not in message:
            h.send_json(400, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message": "Invalid Request: "
                              "a 2026-07-28 server sends no requests, so there is nothing to respond to"}})
            return
        if "id" not in message:
            self.log.info("HTTP notification %s accepted and ignored", message.get("method"))
            h.send_status(202)
            return
        request_id = message.get("id")
        if not is_request_id(request_id):
            h.send_json(400, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Invalid Request: id must be a string or an integer"}})
            return
        self.log.info("HTTP %s (modern)", message.get("method"))
        try:
            if self.options.era == MODERN_VERSION and message.get("method") == "initialize":
                raise self.server.initialize_refusal(message)
            self._check_headers(h, message)
            version, caps = self.server.modern_meta(message)
            if h.headers.get("MCP-Protocol-Version") != version:
                raise MCPError(HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version header value '%s' does "
                               "not match body value '%s'" % (h.headers.get("MCP-Protocol-Version"), version),
                               None, 400)
            self.server.check_modern_version(version)
            self._check_name_header(h, message)
            self._check_param_headers(h, message)
        except MCPError as err:
            h.send_json(self.modern_status(err), error_response(request_id, err))
            return
        stream = OutStream()
        exchange = Exchange(message, "modern", version, caps, stream.put, None, "http")
        self._run(exchange, stream, self.modern_status)

        def gone():  # how a 2026-07-28 client cancels: --verbose says so
            self.log.info("HTTP %s id %s: the client closed its stream; cancelled", message.get("method"),
                          json.dumps(message.get("id")))
            exchange.cancelled.set()
        self.drain(h, stream, prefer_json=not self.options.sse_responses, on_gone=gone, cut=message.get("method"))

    def _cut_after(self, method):
        """--cut-streams: the events after which this request's stream is cut, or None (only the
        first stream of each method is cut: a request sent again gets its answer)."""
        if method is None or self.options.cut_streams is None or self.options.cut_method not in (None, method):
            return None
        with self.lock:
            if method in self.cut_methods:
                return None
            self.cut_methods.add(method)
        return self.options.cut_streams

    def _run(self, exchange, stream, status_of, peer=None):
        def work():
            if peer is not None:
                peer.track(exchange)
            try:
                response, error = self.server.serve(exchange)
            finally:
                if peer is not None:
                    peer.untrack(exchange)
            if response is None:
                stream.end()
            else:
                stream.put(response, final=True, status=status_of(error) if error is not None else 200)
        threading.Thread(target=work, daemon=True).start()

    def _legacy_refusal(self, h, status, code, text):
        h.send_json(status, {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": text}},
                    self._probe_session_header(h, status))

    def _probe_session_header(self, h, status):
        """--fidelity: mint a session id even on a refused request without one, as some servers do;
        a client must adopt a session id only from the initialize response."""
        if self.options.fidelity and status == 400 and h.headers.get("Mcp-Session-Id") is None:
            return {"Mcp-Session-Id": "probe-" + secrets.token_hex(8)}
        return None

    def _session_for(self, h):
        """The request's legacy session, or None after answering 400/404 (and 400 on version)."""
        session_id = h.headers.get("Mcp-Session-Id")
        if session_id is None:
            with self.lock:
                anyone = bool(self.sessions)
            text = "Bad Request: No valid session ID provided" if anyone else "Bad Request: Server not initialized"
            self._legacy_refusal(h, 400, LEGACY_BAD_REQUEST, text)
            return None
        with self.lock:
            session = self.sessions.get(session_id)
            if session is None and self.options.http_fault == "any-session" and self.sessions:
                session = list(self.sessions.values())[-1]  # the planted fault: an unknown id is served
        if session is None:
            self._legacy_refusal(h, 404, LEGACY_SESSION_NOT_FOUND, "Session not found")
            return None
        header_version = h.headers.get("MCP-Protocol-Version")
        if header_version is None and session.version >= "2025-06-18":
            self._legacy_refusal(h, 400, LEGACY_BAD_REQUEST, "Bad Request: missing MCP-Protocol-Version header "
                                 "(this session negotiated %s)" % session.version)
            return None
        if header_version is not None and header_version != session.version:
            self._legacy_refusal(h, 400, LEGACY_BAD_REQUEST, "Bad Request: Unsupported protocol version %s (this "
                                 "session negotiated %s)" % (header_version, session.version))
            return None
        return session

    def legacy_post(self, h, message):
        method = message.get("method")
        if method == "initialize" and "id" in message and h.headers.get("Mcp-Session-Id") is None:
            self.legacy_initialize(h, message)
            return
        session_id = h.headers.get("Mcp-Session-Id")
        with self.lock:
            known = self.sessions.get(session_id) if session_id is not None else None
        self.recorder.record("http", known.version if known else None, message, self._http_info(h))
        session = self._session_for(h)
        if session is None:
            return
        if "method" not in message:
            # 202 first: the client's POST of its answer ends before the tool it unblocks goes on, as
            # a real server's may, so a client that ends at the result has its answer's exchange whole
            # (a loaded run saw the trace of that POST cut by the command's end)
            h.send_status(202)
            if not session.resolve(message):
                self.log.warn("ignored a response to no pending request of the session")
            return
        if "id" not in message:
            self._legacy_notification(session, message)
            h.send_status(202)
            return
        request_id = message.get("id")
        if not is_request_id(request_id):
            h.send_json(400, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Invalid Request: id must be a string or an integer"}})
            return
        self.log.info("HTTP %s (session %s)", method, fingerprint(session.session_id))
        if method == "initialize":
            h.send_json(400, error_response(request_id, MCPError(INVALID_REQUEST, "Invalid request: this "
                                                                 "session is already initialized")))
            return
        stream = OutStream() if self.options.no_event_ids else session.new_stream()
        exchange = Exchange(message, "legacy", session.version, session.caps, stream.put, session, "http")
        self._run(exchange, stream, self.legacy_status, session)

        def gone():
            # A disconnect is no cancellation in 2025-11-25 (the stream stays resumable), except that
            # an abandoned tasks/result must hand its task's input requests to the next one.
            if method == "tasks/result":
                exchange.cancelled.set()
        self.drain(h, stream, prefer_json=not self.options.sse_responses,
                   priming=session.version >= "2025-11-25", on_gone=gone, cut=method)

    def legacy_initialize(self, h, message):
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        requested = params.get("protocolVersion")
        era = negotiate_legacy(requested) if isinstance(requested, str) else None
        self.recorder.record("http", era, message, self._http_info(h))
        session = HttpSession(secrets.token_urlsafe(24))
        exchange = Exchange(message, "legacy", None, {}, lambda msg: None, session, "http")
        response, error = self.server.serve(exchange)
        if error is not None:
            h.send_json(400, response)
            return
        if self.options.lose_sessions:
            self.log.info("HTTP session %s started and forgotten at once (--lose-sessions)",
                          fingerprint(session.session_id))
        else:
            with self.lock:
                self.sessions[session.session_id] = session
            self.log.info("HTTP session %s started (%s)", fingerprint(session.session_id), session.version)
        headers = {} if self.options.no_session_ids else {"Mcp-Session-Id": session.session_id}
        if self.options.sse_responses:
            h.start_sse(headers)
            h.write_event(dumps(response), "message")
            h.end_sse()
        else:
            h.send_json(200, response, headers)

    def _legacy_notification(self, peer, message):
        method = message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if method == "notifications/initialized":
            peer.ready = True
        elif method == "notifications/cancelled":
            if not peer.cancel_request(params.get("requestId")):
                self.log.info("notifications/cancelled for a request that is not in flight")
        else:
            self.log.info("notification %s ignored", method)

    def forget_sessions(self, h):
        """--forget-endpoint: end every legacy session the way a restart would (no DELETE seen)."""
        with self.lock:
            sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            session.close()
            self.server.forget_peer(session)
        self.log.info("forgot %d HTTP session(s)", len(sessions))
        h.send_json(200, {"forgotten": len(sessions)})

    # --- GET and DELETE ------------------------------------------------------------------------

    def get_or_delete(self, h, verb):
        if self.options.record_http:
            self.recorder.record_request(self._http_info(h))
        session_id = h.headers.get("Mcp-Session-Id")
        if verb == "DELETE":
            self.log.info("HTTP DELETE received (session %s)", fingerprint(session_id) if session_id else "none")
        if self.options.era == MODERN_VERSION or (self.options.era == "both" and session_id is None):
            h.send_json(405, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Method Not Allowed: 2026-07-28 is POST only (no GET stream, no sessions)"}},
                        {"Allow": "POST"})
            return
        session = self._session_for(h)
        if session is None:
            return
        if verb == "DELETE":
            with self.lock:
                self.sessions.pop(session.session_id, None)
            session.close()
            self.server.forget_peer(session)
            self.log.info("HTTP session %s deleted", fingerprint(session.session_id))
            h.send_status(200)
            return
        if "text/event-stream" not in h.headers.get("Accept", ""):
            h.send_json(406, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Not Acceptable: Accept must list text/event-stream"}})
            return
        stream, start = None, 0
        last_event_id = h.headers.get("Last-Event-ID")
        if last_event_id:
            stream, start = session.find_event(last_event_id)
        if stream is None:
            time.sleep(getattr(self.options, "get_delay_ms", 0) / 1000.0)  # a slow server: no stream meanwhile
            stream = session.open_get_stream()
            start = len(stream.events)
        with stream.cond:
            busy = stream.attached
            stream.attached = True
        if busy:
            h.send_json(409, {"jsonrpc": "2.0", "error": {"code": INVALID_REQUEST, "message":
                              "Conflict: Only one SSE stream is allowed per session"}})
            return
        try:
            self.drain(h, stream, start, prefer_json=False, sse_now=True,
                       priming=session.version >= "2025-11-25",
                       cut="GET" if self.options.cut_method == "GET" else None)  # only when asked by name
        finally:
            with stream.cond:
                stream.attached = False

    # --- writing a stream ----------------------------------------------------------------------

    def drain(self, h, stream, start=0, prefer_json=True, sse_now=False, priming=False, on_gone=None, cut=None):
        """Write `stream` to this connection until its response (or its end, or the client's).

        A stream whose first message is its response goes out as plain JSON when prefer_json
        (or when that response carries a non-200 status); anything else becomes SSE. ``cut``:
        the request's method, whose SSE stream --cut-streams may cut (_cut_after).
        """
        if not self._drain(h, stream, start, prefer_json, sse_now, priming, on_gone, cut):
            h.end_sse()

    def _drain(self, h, stream, start, prefer_json, sse_now, priming, on_gone, cut):
        """drain's stream; True when it was cut."""
        index = start
        sse = False
        cut_after = None
        retry_ms = self.options.retry_ms
        if sse_now:
            h.start_sse()
            sse = True
            cut_after = self._cut_after(cut)
            if priming and stream.prefix and not h.write_event("", None, "%s%d" % (stream.prefix, start), retry_ms):
                return False
        written = 0
        while True:
            with stream.cond:
                while index >= len(stream.events) and not stream.ended:
                    stream.cond.wait(0.25)
                    if index >= len(stream.events) and not stream.ended and h.client_gone():
                        break
                batch = stream.events[index:]
                ended = stream.ended
            if not batch:
                if not ended:
                    if on_gone is not None:
                        on_gone()
                elif not sse:
                    h.start_sse()             # cancelled before it answered: an empty stream
                return False
            if not sse:
                first = batch[0]
                if first.final and (prefer_json or first.status != 200):
                    h.send_json(first.status, first.msg)
                    return False
                h.start_sse()
                sse = True
                cut_after = self._cut_after(cut)
                if priming and stream.prefix and not h.write_event("", None, "%s%d" % (stream.prefix, index),
                                                                   retry_ms):
                    if on_gone is not None:
                        on_gone()
                    return False
            for event in batch:
                data = event.msg if isinstance(event.msg, str) else dumps(event.msg)
                if written == cut_after:
                    how = self.options.cut_how
                    self.log.info("cutting a response stream after %d event(s) (%s)", written, how)
                    if how == "end":
                        return False          # drain ends it cleanly
                    h.cut_stream(how, event_bytes(data, event.event,
                                                  None if how == "mid-event" else event.event_id))
                    return True
                if not h.write_event(data, event.event, event.event_id):
                    if on_gone is not None:
                        on_gone()
                    return False
                index += 1
                written += 1
                if event.final:
                    return False

    # --- 2024-11-05 HTTP+SSE -------------------------------------------------------------------

    def legacy_sse(self, h, verb, path, body):
        if verb == "GET" and path in ("/mcp", "/sse"):
            self.sse_open(h)
        elif verb == "POST" and path == "/messages":
            self.sse_post(h, body)
        elif path in ("/mcp", "/sse"):
            h.send_status(405, {"Allow": "GET"})
        elif path == "/messages":
            h.send_status(405, {"Allow": "POST"})
        else:
            h.send_body(404, b"Not Found", "text/plain")

    def sse_open(self, h):
        accept = h.headers.get("Accept")
        if accept and "text/event-stream" not in accept and "*/*" not in accept:
            h.send_body(406, b"Not Acceptable: Accept must list text/event-stream", "text/plain")
            return
        session = SseSession(secrets.token_urlsafe(24))
        with self.lock:
            self.sse_sessions[session.session_id] = session
        self.log.info("HTTP+SSE session %s opened", fingerprint(session.session_id))
        session.stream.put("/messages?sessionId=" + session.session_id, event="endpoint")
        try:
            self.drain(h, session.stream, prefer_json=False, sse_now=True,
                       cut="GET" if self.options.cut_method == "GET" else None)  # only when asked by name
        finally:
            with self.lock:
                self.sse_sessions.pop(session.session_id, None)
            session.close()
            self.server.forget_peer(session)
            self.log.info("HTTP+SSE session %s closed", fingerprint(session.session_id))

    def sse_post(self, h, body):
        session_id = (parse_qs(urlsplit(h.path).query).get("sessionId") or [None])[0]
        with self.lock:
            session = self.sse_sessions.get(session_id)
        if session is None:
            h.send_body(404, b"Session not found", "text/plain")
            return
        if h.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            h.send_body(415, b"Unsupported Media Type: Content-Type must be application/json", "text/plain")
            return
        try:
            message = json.loads((body or b"").decode("utf-8"))
        except ValueError:
            h.send_body(400, b"Parse error", "text/plain")
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            h.send_body(400, b"Invalid Request: one JSON-RPC 2.0 object per POST", "text/plain")
            return
        era = session.version
        if era is None and message.get("method") == "initialize" and isinstance(message.get("params"), dict):
            requested = message["params"].get("protocolVersion")
            era = negotiate_legacy(requested) if isinstance(requested, str) else None
        self.recorder.record("sse", era, message, self._http_info(h))
        if "method" not in message:
            session.resolve(message)
        elif "id" not in message:
            self._legacy_notification(session, message)
        elif not is_request_id(message.get("id")):
            h.send_body(400, b"Invalid Request: id must be a string or an integer", "text/plain")
            return
        else:
            self.log.info("HTTP+SSE %s", message.get("method"))
            exchange = Exchange(message, "legacy", session.version, session.caps, session.stream.put, session,
                                "sse")
            if message.get("method") == "initialize":
                self._sse_serve(session, exchange)       # in order, before anything that follows it
            else:
                threading.Thread(target=self._sse_serve, args=(session, exchange), daemon=True).start()
        h.send_body(202, b"Accepted", "text/plain")

    def _sse_serve(self, session, exchange):
        session.track(exchange)
        try:
            response, _ = self.server.serve(exchange)
        finally:
            session.untrack(exchange)
        if response is not None:
            session.stream.put(response)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (ConnectionError, BrokenPipeError)):
            return
        sys.stderr.write("testserver: error while handling an HTTP request:\n%s" % traceback.format_exc())


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


def parse_listen_address(text):
    """[HOST:]PORT, with HOST possibly [v6]; the host defaults to 127.0.0.1."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        return host, int(rest.lstrip(":"))
    if ":" in text:
        host, _, port = text.rpartition(":")
        return host or "127.0.0.1", int(port)
    return "127.0.0.1", int(text)


def serve_http(server, address):
    host, port = parse_listen_address(address)
    server_class = _HTTPServer6 if ":" in host else _HTTPServer
    httpd = server_class((host, port), Handler)
    httpd.frontend = HttpFrontEnd(server)
    if server.options.auth:
        httpd.frontend.auth = AuthServer(httpd.frontend, httpd.server_address[1])
    scheme = "http"
    if getattr(server.options, "tls", None):
        import ssl

        cert, _, key = server.options.tls.partition(":")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key or None)
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
        scheme = "https"
    shown_host = "[%s]" % host if ":" in host else host
    print("listening on %s://%s:%d/mcp" % (scheme, shown_host, httpd.server_address[1]), flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.begin_shutdown()
        httpd.server_close()


# =============================================================================================
# ES256 (ECDSA on P-256 with SHA-256) for private_key_jwt client assertions
# =============================================================================================
# The standard library has no ECDSA, and the test server stays stdlib-only. This is affine
# double-and-add: slow (milliseconds) and not constant-time, which is fine for checking test
# clients on loopback. The tests sign with es256_sign too; both are checked against RFC 6979's
# P-256/SHA-256 vectors.

P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
P256_A = P256_P - 3
P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
P256_G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
          0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)
OID_EC_PUBLIC_KEY = bytes.fromhex("2a8648ce3d0201")      # 1.2.840.10045.2.1
OID_P256 = bytes.fromhex("2a8648ce3d030107")             # 1.2.840.10045.3.1.7
# The fixed DER around a P-256 key: PKCS#8 (what `openssl genpkey` and jose write) and SubjectPublicKeyInfo.
PKCS8_P256_HEAD = bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420")
PKCS8_P256_MIDDLE = bytes.fromhex("a144034200")
SPKI_P256_HEAD = bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d030107034200")


def _p256_add(one, two):
    """The sum of two affine points (None is the point at infinity)."""
    if one is None:
        return two
    if two is None:
        return one
    (x1, y1), (x2, y2) = one, two
    if x1 == x2:
        if (y1 + y2) % P256_P == 0:
            return None
        slope = (3 * x1 * x1 + P256_A) * pow(2 * y1, -1, P256_P) % P256_P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P256_P) % P256_P
    x3 = (slope * slope - x1 - x2) % P256_P
    return x3, (slope * (x1 - x3) - y1) % P256_P


def _p256_mul(k, point):
    result = None
    while k:
        if k & 1:
            result = _p256_add(result, point)
        point = _p256_add(point, point)
        k >>= 1
    return result


def p256_on_curve(point):
    x, y = point
    return 0 <= x < P256_P and 0 <= y < P256_P and (y * y - x * x * x - P256_A * x - P256_B) % P256_P == 0


def p256_public_key(d):
    return _p256_mul(d, P256_G)


def _digest_int(message):
    return int.from_bytes(hashlib.sha256(message).digest(), "big")


def es256_sign(d, message, k=None):
    """The JWS signature (r || s, 64 bytes) of `message` under private key d; k only for test vectors."""
    z = _digest_int(message)
    while True:
        nonce = k or secrets.randbelow(P256_N - 1) + 1
        r = _p256_mul(nonce, P256_G)[0] % P256_N
        s = pow(nonce, -1, P256_N) * (z + r * d) % P256_N
        if r and s:
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def es256_verify(public, message, signature):
    """True when `signature` (raw r || s, as JWS has it; DER is refused) signs `message`."""
    if len(signature) != 64:
        return False
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    if not (0 < r < P256_N and 0 < s < P256_N):
        return False
    w = pow(s, -1, P256_N)
    point = _p256_add(_p256_mul(_digest_int(message) * w % P256_N, P256_G), _p256_mul(r * w % P256_N, public))
    return point is not None and point[0] % P256_N == r


def _der_items(data):
    """The (tag, value) pairs at one level of DER; ValueError when they do not add up."""
    items, pos = [], 0
    while pos < len(data):
        if pos + 2 > len(data):
            raise ValueError("truncated DER")
        tag, length = data[pos], data[pos + 1]
        pos += 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[pos:pos + count], "big")
            pos += count
        if pos + length > len(data):
            raise ValueError("truncated DER")
        items.append((tag, data[pos:pos + length]))
        pos += length
    return items


def _der_point(bits):
    """An uncompressed point from a BIT STRING's contents (00 04 X Y)."""
    if len(bits) != 66 or bits[:2] != b"\x00\x04":
        raise ValueError("not an uncompressed P-256 point")
    point = (int.from_bytes(bits[2:34], "big"), int.from_bytes(bits[34:], "big"))
    if not p256_on_curve(point):
        raise ValueError("the point is not on P-256")
    return point


def _check_p256_algorithm(algorithm):
    oids = [value for tag, value in _der_items(algorithm) if tag == 0x06]
    if oids != [OID_EC_PUBLIC_KEY, OID_P256]:
        raise ValueError("not an EC P-256 key")


def _sec1_private(der):
    """(d, public point) from a SEC1 ECPrivateKey."""
    fields = _der_items(_der_items(der)[0][1])
    d = int.from_bytes(fields[1][1], "big")
    for tag, value in fields[2:]:
        if tag == 0xA0 and _der_items(value)[0][1] != OID_P256:
            raise ValueError("not a P-256 key")
    if not 0 < d < P256_N:
        raise ValueError("bad private key")
    return d, p256_public_key(d)


def load_p256_key(pem):
    """(d or None, public point) from a PEM public key (SPKI), PKCS#8 or SEC1 private key."""
    lines = [line.strip() for line in pem.strip().splitlines() if line.strip()]
    if len(lines) < 3 or not lines[0].startswith("-----BEGIN ") or not lines[-1].startswith("-----END "):
        raise ValueError("not a PEM file")
    label = lines[0][len("-----BEGIN "):].rstrip("-")
    der = base64.b64decode("".join(lines[1:-1]), validate=True)
    try:
        if label == "EC PRIVATE KEY":
            return _sec1_private(der)
        fields = _der_items(_der_items(der)[0][1])
        if label == "PUBLIC KEY":
            _check_p256_algorithm(fields[0][1])
            return None, _der_point(fields[1][1])
        if label == "PRIVATE KEY":
            _check_p256_algorithm(fields[1][1])
            return _sec1_private(fields[2][1])
    except IndexError:
        raise ValueError("malformed %s" % label)
    raise ValueError("unsupported PEM type %s" % label)


def _pem(label, der):
    body = base64.b64encode(der).decode("ascii")
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return "-----BEGIN %s-----\n%s\n-----END %s-----\n" % (label, "\n".join(lines), label)


def _point_bytes(point):
    return b"\x04" + point[0].to_bytes(32, "big") + point[1].to_bytes(32, "big")


def p256_private_pem(d):
    """PKCS#8 PEM of private key d (for tests that hand a key file to a client)."""
    return _pem("PRIVATE KEY", PKCS8_P256_HEAD + d.to_bytes(32, "big") + PKCS8_P256_MIDDLE
                + _point_bytes(p256_public_key(d)))


def p256_public_pem(point):
    return _pem("PUBLIC KEY", SPKI_P256_HEAD + _point_bytes(point))


# =============================================================================================
# Authorization (--auth): /mcp as an OAuth 2.1 protected resource, and the same origin as its
# own authorization server (metadata, DCR, CIMD client ids, /authorize, /token, /revoke)
# =============================================================================================
# Strict like the rest of the server: what a careless OAuth client gets wrong is refused, and
# every request is recorded (--record, "transport": "auth") so that tests can see what the
# client sent where. Tokens are opaque random strings held in memory.

HTTP_FAULTS = ("content-type", "get-json", "delete-500", "method-header", "cache-scope", "any-session")
UNREADABLE_CARDS = ("huge", "deep", "not-json", "redirect")  # --card-fault: a card check cannot read
AUTH_FAULTS = ("wrong-resource", "no-s256", "no-as-metadata", "plain-http")
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"      # RFC 9728 path insertion for /mcp
AS_METADATA_PATH = "/.well-known/oauth-authorization-server"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
AUTH_TOOL_SCOPES = {"admin_echo": ("admin",)}                # scopes a tool needs beyond --auth-scopes
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SECRET_METHODS = ("client_secret_basic", "client_secret_post")
TOKEN_AUTH_METHODS = ("none",) + SECRET_METHODS + ("private_key_jwt",)
ALL_GRANTS = ("authorization_code", "refresh_token", "client_credentials")
CODE_TTL_S = 60
ASSERTION_LEEWAY_S = 30
ASSERTION_MAX_LIFETIME_S = 600
PKCE_VERIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


class OAuthError(Exception):
    """An OAuth error response: {"error", "error_description"} with its HTTP status."""

    def __init__(self, error, description, status=400, headers=None):
        Exception.__init__(self, description)
        self.error = error
        self.description = description
        self.status = status
        self.headers = headers or {}


class RedirectError(Exception):
    """An /authorize error that goes back to the (already validated) redirect_uri."""

    def __init__(self, error, description):
        Exception.__init__(self, description)
        self.error = error
        self.description = description


class AuthClient(object):
    """A client the authorization server knows, and how it may authenticate and what it may ask."""

    def __init__(self, client_id, kind, methods, grants, secret=None, key=None, redirect_uris=None):
        self.client_id = client_id
        self.kind = kind                      # pre-registered, dcr or cimd
        self.methods = methods                # token endpoint auth methods it may use
        self.grants = grants
        self.secret = secret
        self.key = key                        # P-256 public point, for private_key_jwt
        self.redirect_uris = redirect_uris    # None: any loopback http or https URI


def parse_auth_client(text):
    """--auth-client ID[:SECRET]: a pre-registered client (public without a secret)."""
    client_id, colon, secret = text.partition(":")
    if not client_id or (colon and not secret):
        raise ValueError("--auth-client takes ID or ID:SECRET")
    methods = SECRET_METHODS if secret else ("none",)
    grants = ALL_GRANTS if secret else ALL_GRANTS[:2]
    return AuthClient(client_id, "pre-registered", methods, grants, secret=secret or None)


def parse_auth_client_key(text):
    """--auth-client-key ID:PEMFILE: a pre-registered private_key_jwt client (ES256)."""
    client_id, _, path = text.partition(":")
    if not client_id or not path:
        raise ValueError("--auth-client-key takes ID:PEMFILE")
    with open(path, encoding="ascii") as pem:
        _, public = load_p256_key(pem.read())
    return AuthClient(client_id, "pre-registered", ("private_key_jwt",), ALL_GRANTS, key=public)


def redirect_uri_allowed(uri):
    """Loopback http (any port, RFC 8252) or https, absolute, without a fragment."""
    try:
        parts = urlsplit(uri)
        parts.port
    except ValueError:
        return False
    if not parts.hostname or parts.fragment or "#" in uri:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)


def redirect_uri_matches(uri, registered):
    """RFC 8252 §7.3: a loopback redirect URI matches whatever its port; others match exactly."""
    if uri == registered:
        return True
    one, two = urlsplit(uri), urlsplit(registered)
    return (one.scheme == two.scheme == "http" and one.hostname == two.hostname and one.hostname in LOOPBACK_HOSTS
            and one.path == two.path and one.query == two.query)


def quoted(value):
    """An RFC 7230 quoted-string."""
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


def bearer_challenge(**params):
    """A WWW-Authenticate Bearer challenge; parameters with a None value are left out."""
    return "Bearer " + ", ".join("%s=%s" % (name, quoted(value)) for name, value in params.items()
                                 if value is not None)


def pkce_s256(verifier):
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


class AuthServer(object):
    """The --auth side of the HTTP front end: admit() answers the authorization server's own
    paths and refuses MCP requests that lack a token good for what they ask."""

    def __init__(self, frontend, port):
        options = frontend.options
        self.frontend = frontend
        self.recorder = frontend.recorder
        self.port = port
        self.ttl = options.token_ttl
        self.default_scopes = options.auth_scopes.split()
        self.all_scopes = list(self.default_scopes)
        for scopes in AUTH_TOOL_SCOPES.values():
            self.all_scopes.extend(scope for scope in scopes if scope not in self.all_scopes)
        self.dcr = not options.auth_no_dcr
        self.cimd = not options.auth_no_cimd
        self.fault = options.auth_fault
        self.clients = {client.client_id: client for client in options.auth_client + options.auth_client_key}
        self.lock = threading.Lock()
        self.codes = {}                       # code -> what /authorize granted, until /token takes it
        self.tokens = {}                      # access and refresh tokens -> their grant
        self.assertion_ids = set()            # jti of every client assertion seen (no replays)
        self.clock = time.time
        self.routes = {PRM_PATH: ("protected_resource_metadata", "GET"),
                       AS_METADATA_PATH: ("authorization_server_metadata", "GET"),
                       "/authorize": ("authorize", "GET"), "/token": ("token", "POST"),
                       "/revoke": ("revoke", "POST")}
        if self.dcr:
            self.routes["/register"] = ("register", "POST")

    # --- entry ---------------------------------------------------------------------------------

    def admit(self, h, verb, path, body):
        """True when the request may go on to the MCP endpoint (or to its 404)."""
        if path == "/mcp":
            return self.check_bearer(h, verb, body)
        entry = {"endpoint": None, "http": self.frontend._http_info(h)}
        route = self.routes.get(path)
        if route is None:
            entry["status"] = 404
            self.record(entry)
            return True
        name, allowed = route
        entry["endpoint"] = name
        status, payload, headers = 200, None, {}
        try:
            if verb != allowed:
                raise OAuthError("invalid_request", "%s takes %s" % (path, allowed), 405, {"Allow": allowed})
            status, payload, headers = getattr(self, "e_" + name)(h, body, entry)
        except OAuthError as err:
            status, payload, headers = err.status, {"error": err.error, "error_description": err.description}, \
                err.headers
        entry["status"] = status
        if isinstance(payload, dict) and "error" in payload:
            entry["error"] = payload["error"]
        self.record(entry)
        if name in ("token", "register"):
            headers = dict(headers, **{"Cache-Control": "no-store", "Pragma": "no-cache"})
        if payload is None:
            h.send_status(status, headers)
        else:
            h.send_json(status, payload, headers)
        return False

    def record(self, entry):
        self.recorder.record_auth(entry, entry.pop("http"))

    def origin(self, h):
        """This server as the client named it (localhost, 127.0.0.1 or [::1]); issuer and resource follow."""
        host = h.headers.get("Host", "")
        try:
            parts = urlsplit("//" + host)
            if parts.hostname in LOOPBACK_HOSTS and parts.port == self.port:
                return "http://" + host.lower()
        except ValueError:
            pass
        return "http://127.0.0.1:%d" % self.port

    def resource(self, h):
        return self.origin(h) + "/mcp"

    # --- the protected resource ----------------------------------------------------------------

    def check_bearer(self, h, verb, body):
        """Lets an MCP request through with a token good for it; else 400, 401 or 403 with a challenge."""
        origin = self.origin(h)
        tool = self._called_tool(verb, body)
        required = list(self.default_scopes)
        required.extend(scope for scope in AUTH_TOOL_SCOPES.get(tool, ()) if scope not in required)
        status, error, description, grant = self._judge_token(h, origin, required)
        entry = {"endpoint": "mcp", "http": self.frontend._http_info(h), "status": status, "error": error,
                 "description": description, "tool": tool}
        if grant is not None:
            entry.update(client_id=grant["client_id"], scopes=grant["scopes"])
        self.record(entry)
        if status is None:
            return True
        challenge = bearer_challenge(error=error, error_description=description if error else None,
                                     scope=" ".join(required) or None, resource_metadata=origin + PRM_PATH)
        h.send_json(status, {"error": error or "invalid_token", "error_description": description},
                    {"WWW-Authenticate": challenge})
        return False

    def _judge_token(self, h, origin, required):
        """(status, error, description, grant); status None when the request may go through."""
        if "access_token" in parse_qs(urlsplit(h.path).query):
            return 400, "invalid_request", "Access tokens go in the Authorization header, never in the URL", None
        scheme, _, token = h.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return 401, None, "No access token", None         # RFC 6750 §3.1: then no error code
        with self.lock:
            grant = self.tokens.get(token.strip())
        if grant is None or grant["type"] != "access":
            return 401, "invalid_token", "Unknown access token", None
        if not grant["active"]:
            return 401, "invalid_token", "The access token was revoked", grant
        if self.clock() >= grant["expires"]:
            return 401, "invalid_token", "The access token expired", grant
        if grant["resource"] != origin + "/mcp":
            return 401, "invalid_token", "The access token was issued for another resource", grant
        if any(scope not in grant["scopes"] for scope in required):
            return 403, "insufficient_scope", "This request needs scope %s" % " ".join(required), grant
        return None, None, None, grant

    @staticmethod
    def _called_tool(verb, body):
        if verb != "POST" or not body:
            return None
        try:
            message = json.loads(body.decode("utf-8"))
        except ValueError:
            return None
        params = message.get("params") if isinstance(message, dict) else None
        if message.get("method") == "tools/call" and isinstance(params, dict) and isinstance(params.get("name"), str):
            return params["name"]
        return None

    def e_protected_resource_metadata(self, h, body, entry):
        origin = self.origin(h)
        resource = origin + ("/other" if self.fault == "wrong-resource" else "/mcp")
        metadata = {"resource": resource, "authorization_servers": [origin],
                    "bearer_methods_supported": ["header"], "resource_name": SERVER_INFO["title"]}
        if self.default_scopes:
            metadata["scopes_supported"] = list(self.default_scopes)
        return 200, metadata, {}

    # --- the authorization server: metadata and registration -----------------------------------

    def e_authorization_server_metadata(self, h, body, entry):
        if self.fault == "no-as-metadata":
            return 404, {"error": "not_found"}, {}
        issuer = self.origin(h)
        metadata = {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "revocation_endpoint": issuer + "/revoke",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": list(ALL_GRANTS),
            "code_challenge_methods_supported": ["plain"] if self.fault == "no-s256" else ["S256"],
            "token_endpoint_auth_methods_supported": list(TOKEN_AUTH_METHODS),
            "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            "revocation_endpoint_auth_methods_supported": list(TOKEN_AUTH_METHODS),
            "scopes_supported": list(self.all_scopes),
            "client_id_metadata_document_supported": self.cimd,
            "authorization_response_iss_parameter_supported": True,
        }
        if self.dcr:
            metadata["registration_endpoint"] = issuer + "/register"
        if self.fault == "plain-http":
            metadata["token_endpoint"] = "http://auth.example/token"
        return 200, metadata, {}

    def e_register(self, h, body, entry):
        """RFC 7591 dynamic client registration (public or client_secret_* clients)."""
        if h.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
            raise OAuthError("invalid_client_metadata", "Content-Type must be application/json")
        try:
            metadata = json.loads((body or b"").decode("utf-8"))
        except ValueError:
            raise OAuthError("invalid_client_metadata", "the body is not JSON")
        if not isinstance(metadata, dict):
            raise OAuthError("invalid_client_metadata", "the body must be a JSON object")
        entry["params"] = metadata
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")     # RFC 7591's default
        grants = metadata.get("grant_types", ["authorization_code"])
        uris = metadata.get("redirect_uris")
        if method not in ("none",) + SECRET_METHODS:
            raise OAuthError("invalid_client_metadata", "token_endpoint_auth_method must be none, "
                             "client_secret_basic or client_secret_post")
        if (not isinstance(grants, list) or not grants or "authorization_code" not in grants
                or any(grant not in ALL_GRANTS[:2] for grant in grants)):
            raise OAuthError("invalid_client_metadata", "grant_types must list authorization_code "
                             "(and may list refresh_token)")
        if metadata.get("response_types", ["code"]) != ["code"]:
            raise OAuthError("invalid_client_metadata", "response_types must be [\"code\"]")
        if not isinstance(uris, list) or not uris or not all(isinstance(u, str) and redirect_uri_allowed(u)
                                                             for u in uris):
            raise OAuthError("invalid_redirect_uri", "redirect_uris must list loopback http or https URIs")
        client = AuthClient("dcr-" + secrets.token_urlsafe(12), "dcr", (method,), tuple(grants),
                            secret=None if method == "none" else secrets.token_urlsafe(24), redirect_uris=uris)
        with self.lock:
            self.clients[client.client_id] = client
        answer = dict(metadata, client_id=client.client_id, client_id_issued_at=int(self.clock()),
                      token_endpoint_auth_method=method, grant_types=grants, response_types=["code"])
        if client.secret:
            answer.update(client_secret=client.secret, client_secret_expires_at=0)
        entry["client_id"] = client.client_id
        return 201, answer, {}

    def lookup_client(self, client_id):
        """A registered client, or a Client ID Metadata Document URL taken on trust (never fetched)."""
        if not isinstance(client_id, str) or not client_id:
            return None
        with self.lock:
            client = self.clients.get(client_id)
        if client is None and self.cimd and client_id.startswith("https://"):
            parts = urlsplit(client_id)
            if parts.hostname and parts.path not in ("", "/") and not parts.fragment and "#" not in client_id:
                client = AuthClient(client_id, "cimd", ("none",), ALL_GRANTS[:2])
        return client

    # --- /authorize ----------------------------------------------------------------------------

    def e_authorize(self, h, body, entry):
        """Approves at once: a 302 to redirect_uri with a code (or an error), state and iss."""
        params = self.single_params(urlsplit(h.path).query)
        entry["params"] = params
        client = self.lookup_client(params.get("client_id"))
        if client is None:
            raise OAuthError("invalid_client", "unknown client_id")
        redirect_uri = params.get("redirect_uri")
        if not redirect_uri or not redirect_uri_allowed(redirect_uri):
            raise OAuthError("invalid_request", "redirect_uri must be a loopback http or an https URI")
        if client.redirect_uris is not None and not any(redirect_uri_matches(redirect_uri, uri)
                                                        for uri in client.redirect_uris):
            raise OAuthError("invalid_request", "redirect_uri is not registered for this client")
        answer = {"iss": self.origin(h)}
        if "state" in params:
            answer["state"] = params["state"]
        try:
            answer["code"] = self._grant_code(h, params, client, redirect_uri)
            entry["client_id"] = client.client_id
        except RedirectError as err:
            answer.update(error=err.error, error_description=err.description)
            entry["error"] = err.error
        location = redirect_uri + ("&" if urlsplit(redirect_uri).query else "?") + urlencode(answer)
        return 302, None, {"Location": location}

    def _grant_code(self, h, params, client, redirect_uri):
        if params.get("response_type") != "code":
            raise RedirectError("unsupported_response_type", "response_type must be code")
        if "authorization_code" not in client.grants:
            raise RedirectError("unauthorized_client", "this client may not use the authorization code grant")
        challenge = params.get("code_challenge", "")
        if params.get("code_challenge_method") != "S256" or not 43 <= len(challenge) <= 128:
            raise RedirectError("invalid_request", "PKCE is required: code_challenge with code_challenge_method S256")
        scopes = self._scopes(params)
        self._check_resource(h, params, RedirectError)
        code = secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = {"client_id": client.client_id, "redirect_uri": redirect_uri, "challenge": challenge,
                                "resource": params["resource"], "scopes": scopes,
                                "expires": self.clock() + CODE_TTL_S, "used": False, "family": None}
        return code

    def _scopes(self, params, allowed=None):
        """The scopes a request asks for (--auth-scopes when it names none), all of them known."""
        if "scope" not in params:
            return list(self.default_scopes if allowed is None else allowed)
        scopes = params["scope"].split()
        unknown = [scope for scope in scopes if scope not in (self.all_scopes if allowed is None else allowed)]
        if not scopes or unknown:
            raise RedirectError("invalid_scope", "unknown scope %s" % " ".join(unknown) if unknown
                                else "an empty scope parameter (leave it out instead)")
        return scopes

    def _check_resource(self, h, params, error_class):
        """RFC 8707: every request names this MCP endpoint as its resource, exactly."""
        resource = params.get("resource")
        if resource != self.resource(h):
            raise error_class("invalid_target", "resource must be %s, not %s" % (self.resource(h), resource)
                              if resource else "resource is required (RFC 8707)")

    # --- /token and /revoke --------------------------------------------------------------------

    def e_token(self, h, body, entry):
        params = self.form(h, body)
        entry["params"] = params
        client, method = self.authenticate(h, params)
        entry.update(client_id=client.client_id, auth_method=method)
        grant_type = params.get("grant_type")
        if grant_type not in ALL_GRANTS:
            raise OAuthError("unsupported_grant_type", "grant_type must be one of %s" % ", ".join(ALL_GRANTS))
        if grant_type not in client.grants or (grant_type == "client_credentials" and method == "none"):
            raise OAuthError("unauthorized_client", "this client may not use %s" % grant_type)
        try:
            self._check_resource(h, params, OAuthError)
            with self.lock:
                answer = getattr(self, "g_" + grant_type)(params, client)
        except RedirectError as err:                   # from _scopes
            raise OAuthError(err.error, err.description)
        entry["scopes"] = answer.get("scope", "").split()
        return 200, answer, {}

    def g_authorization_code(self, params, client):
        code = self.codes.get(params.get("code"))
        if code is None or self.clock() >= code["expires"] or code["client_id"] != client.client_id:
            raise OAuthError("invalid_grant", "unknown or expired code")
        if code["used"]:
            self._revoke_family(code["family"])        # OAuth 2.1 §4.1.3: a replayed code revokes its tokens
            raise OAuthError("invalid_grant", "the code was already used")
        if params.get("redirect_uri") != code["redirect_uri"]:
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request's")
        verifier = params.get("code_verifier", "")
        if not 43 <= len(verifier) <= 128 or not set(verifier) <= PKCE_VERIFIER_CHARS:
            raise OAuthError("invalid_grant", "code_verifier is missing or malformed")
        if not hmac.compare_digest(pkce_s256(verifier), code["challenge"]):
            raise OAuthError("invalid_grant", "PKCE verification failed")
        if params["resource"] != code["resource"]:
            raise OAuthError("invalid_target", "resource differs from the authorization request's")
        code["used"] = True
        code["family"] = secrets.token_hex(8)
        return self._issue(client, code["scopes"], code["resource"], code["family"])

    def g_refresh_token(self, params, client):
        grant = self.tokens.get(params.get("refresh_token"))
        if grant is None or grant["type"] != "refresh" or grant["client_id"] != client.client_id:
            raise OAuthError("invalid_grant", "unknown refresh token")
        if not grant["active"]:
            raise OAuthError("invalid_grant", "the refresh token was already used or revoked")
        if params["resource"] != grant["resource"]:
            raise OAuthError("invalid_target", "resource differs from the original grant's")
        scopes = self._scopes(params, allowed=grant["scopes"])
        grant["active"] = False                        # rotation: each refresh token works once
        return self._issue(client, scopes, grant["resource"], grant["family"])

    def g_client_credentials(self, params, client):
        return self._issue(client, self._scopes(params), params["resource"], None)

    def _issue(self, client, scopes, resource, family):
        """A token response; a refresh token for code and refresh grants of clients that registered for it."""
        now = self.clock()
        access = "at-" + secrets.token_urlsafe(24)
        self.tokens[access] = {"type": "access", "client_id": client.client_id, "scopes": scopes,
                               "resource": resource, "family": family, "active": True, "expires": now + self.ttl}
        answer = {"access_token": access, "token_type": "Bearer", "expires_in": max(1, int(-(-self.ttl // 1)))}
        if scopes:
            answer["scope"] = " ".join(scopes)
        if family is not None and "refresh_token" in client.grants:
            refresh = "rt-" + secrets.token_urlsafe(24)
            self.tokens[refresh] = {"type": "refresh", "client_id": client.client_id, "scopes": scopes,
                                    "resource": resource, "family": family, "active": True, "expires": None}
            answer["refresh_token"] = refresh
        return answer

    def _revoke_family(self, family):
        for grant in self.tokens.values():
            if family is not None and grant["family"] == family:
                grant["active"] = False

    def e_revoke(self, h, body, entry):
        """RFC 7009: 200 for any token the client may revoke (unknown ones too)."""
        params = self.form(h, body)
        entry["params"] = params
        client, method = self.authenticate(h, params)
        entry.update(client_id=client.client_id, auth_method=method)
        if not params.get("token"):
            raise OAuthError("invalid_request", "token is required")
        with self.lock:
            grant = self.tokens.get(params["token"])
            if grant is not None:
                if grant["client_id"] != client.client_id:
                    raise OAuthError("unauthorized_client", "the token belongs to another client")
                grant["active"] = False
                if grant["type"] == "refresh":
                    self._revoke_family(grant["family"])
        entry["revoked"] = grant["type"] if grant is not None else None
        return 200, None, {}

    # --- requests: parameters and client authentication ----------------------------------------

    @staticmethod
    def single_params(query):
        """Form or query parameters; a repeated one is an error (RFC 6749 §3.1)."""
        params = {}
        for name, values in parse_qs(query, keep_blank_values=True).items():
            if len(values) > 1:
                raise OAuthError("invalid_request", "parameter %s is repeated" % name)
            params[name] = values[0]
        return params

    def form(self, h, body):
        if h.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
            raise OAuthError("invalid_request", "Content-Type must be application/x-www-form-urlencoded")
        try:
            return self.single_params((body or b"").decode("ascii"))
        except UnicodeDecodeError:
            raise OAuthError("invalid_request", "the form body must be ASCII (percent-encoded)")

    def authenticate(self, h, params):
        """(client, method) at /token and /revoke: exactly one method, the one the client may use."""
        header = h.headers.get("Authorization")
        methods = [name for name, used in (("client_secret_basic", header is not None),
                                           ("client_secret_post", "client_secret" in params),
                                           ("private_key_jwt", "client_assertion" in params
                                            or "client_assertion_type" in params)) if used]
        if len(methods) > 1:
            raise OAuthError("invalid_request", "one client authentication method, not %s" % " and ".join(methods))
        method = methods[0] if methods else "none"
        secret = None
        if method == "client_secret_basic":
            client_id, secret = self._basic_credentials(header)
            if params.get("client_id", client_id) != client_id:
                raise OAuthError("invalid_request", "client_id differs from the Basic credentials'")
        elif method == "private_key_jwt":
            client_id = self._assertion_subject(params)
        else:
            client_id = params.get("client_id")
            secret = params.get("client_secret")
            if not client_id:
                raise OAuthError("invalid_client", "no client authentication and no client_id", 401)
        client = self.lookup_client(client_id)
        if client is None:
            raise OAuthError("invalid_client", "unknown client", 401)
        if method not in client.methods:
            raise OAuthError("invalid_client", "this client authenticates with %s, not %s"
                             % (" or ".join(client.methods), method), 401)
        if method in SECRET_METHODS and not hmac.compare_digest(secret.encode("utf-8"), client.secret.encode("utf-8")):
            raise OAuthError("invalid_client", "wrong client secret", 401)
        if method == "private_key_jwt":
            self._verify_assertion(h, params["client_assertion"], client)
        return client, method

    @staticmethod
    def _basic_credentials(header):
        """RFC 6749 §2.3.1: Basic base64(urlencoded id ":" urlencoded secret)."""
        scheme, _, value = header.partition(" ")
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except ValueError:
            decoded = ""
        client_id, colon, secret = decoded.partition(":")
        if scheme.lower() != "basic" or not colon:
            raise OAuthError("invalid_client", "Authorization must be Basic client credentials", 401,
                             {"WWW-Authenticate": 'Basic realm="token"'})
        return unquote_plus(client_id), unquote_plus(secret)

    @staticmethod
    def _jwt_parts(assertion):
        try:
            header, claims, signature = assertion.split(".")
            decoded = json.loads(b64url_decode(header)), json.loads(b64url_decode(claims)), b64url_decode(signature)
        except ValueError:
            raise OAuthError("invalid_client", "client_assertion is not a JWS compact JWT", 401)
        if not isinstance(decoded[0], dict) or not isinstance(decoded[1], dict):
            raise OAuthError("invalid_client", "client_assertion is not a JWT", 401)
        return decoded

    def _assertion_subject(self, params):
        if params.get("client_assertion_type") != ASSERTION_TYPE or not params.get("client_assertion"):
            raise OAuthError("invalid_client", "client_assertion_type must be %s, with a client_assertion"
                             % ASSERTION_TYPE, 401)
        subject = self._jwt_parts(params["client_assertion"])[1].get("sub")
        if params.get("client_id", subject) != subject:
            raise OAuthError("invalid_client", "client_id differs from the assertion's sub", 401)
        return subject

    def _verify_assertion(self, h, assertion, client):
        """RFC 7523 §3: an ES256 JWT by the client, for this issuer, current, and never seen before."""
        header, claims, signature = self._jwt_parts(assertion)
        signed = assertion.rsplit(".", 1)[0].encode("ascii")
        issuer = self.origin(h)
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        now = self.clock()
        problem = None
        if header.get("alg") != "ES256":
            problem = "alg must be ES256"
        elif not es256_verify(client.key, signed, signature):
            problem = "the signature does not verify (ES256 wants raw r||s, not DER)"
        elif claims.get("iss") != client.client_id or claims.get("sub") != client.client_id:
            problem = "iss and sub must be the client_id"
        elif not any(aud in (issuer, issuer + "/") for aud in audiences):
            problem = "aud must be the issuer %s" % issuer
        elif not isinstance(claims.get("exp"), (int, float)) or claims["exp"] < now - ASSERTION_LEEWAY_S:
            problem = "exp is missing or past"
        elif claims["exp"] > now + ASSERTION_MAX_LIFETIME_S:
            problem = "exp is too far ahead"
        elif not isinstance(claims.get("jti"), str) or not claims["jti"]:
            problem = "jti is required"
        else:
            with self.lock:
                if claims["jti"] in self.assertion_ids:
                    problem = "the assertion was already used (jti replay)"
                self.assertion_ids.add(claims["jti"])
        if problem:
            raise OAuthError("invalid_client", "client_assertion: " + problem, 401)


# =============================================================================================
# Command line
# =============================================================================================

def _count(minimum):
    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError("must be at least %d" % minimum)
        return value
    return parse


def _seconds(text):
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _auth_option(parse):
    def parsed(text):
        try:
            return parse(text)
        except (OSError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc))
    return parsed


def _add_auth_arguments(parser):
    auth = parser.add_argument_group("authorization (OAuth 2.1; see the module docstring)")
    auth.add_argument("--auth", action="store_true", help="with --http: /mcp needs a bearer token, and the same "
                      "origin is its authorization server")
    auth.add_argument("--token-ttl", type=_seconds, default=3600.0, metavar="SECONDS",
                      help="access token lifetime (default 3600; fractions allowed)")
    auth.add_argument("--auth-scopes", default="mcp:basic", metavar='"A B"',
                      help="scopes every MCP request needs, granted when a client asks for none "
                           "(default mcp:basic; \"\" for none)")
    auth.add_argument("--auth-client", type=_auth_option(parse_auth_client), action="append", default=[],
                      metavar="ID[:SECRET]", help="a pre-registered client: with a secret, confidential "
                      "(client_secret_basic or _post, also client_credentials); without, public")
    auth.add_argument("--auth-client-key", type=_auth_option(parse_auth_client_key), action="append", default=[],
                      metavar="ID:PEMFILE", help="a pre-registered private_key_jwt client (ES256); PEMFILE is "
                      "its P-256 public key, or its private key (the public half is used)")
    auth.add_argument("--auth-no-dcr", action="store_true", help="no registration_endpoint")
    auth.add_argument("--auth-no-cimd", action="store_true", help="refuse URL client ids (no CIMD)")
    auth.add_argument("--auth-fault", choices=AUTH_FAULTS, help="one planted metadata fault, for check's tests: "
                      "wrong-resource (the PRM names another resource), no-s256 (plain only), no-as-metadata "
                      "(its URL is 404), plain-http (a token_endpoint on http://auth.example)")


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="testserver.py", description="mcp-tui's MCP test server "
                                     "(2026-07-28 and 2025-11-25; stdio by default).")
    _add_auth_arguments(parser)
    parser.add_argument("--http", metavar="[HOST:]PORT", help="serve Streamable HTTP at /mcp instead of stdio")
    parser.add_argument("--era", choices=ERA_CHOICES, default="both", help="protocol era(s) to speak")
    parser.add_argument("--legacy-sse", action="store_true", help="serve the 2024-11-05 HTTP+SSE transport")
    parser.add_argument("--echo-prefix", default="", metavar="TEXT", help="echo answers TEXT + the message "
                        "(two servers of one test told apart by their answers)")
    parser.add_argument("--page-size", type=_count(1), default=0, metavar="N", help="paginate lists")
    parser.add_argument("--no-tasks", action="store_true", help="no tasks capability or extension")
    parser.add_argument("--tampered-skill", action="store_true", help="2026-07-28: serve a skill whose manifest "
                        "two of its files break (notes.md's size, seal.bin's digest)")
    parser.add_argument("--skills", action="store_true", help="2026-07-28: serve a sound skill, "
                        "skill://docs/greeting/SKILL.md")
    parser.add_argument("--hostile-skill", metavar="JSON|NAMES", help="2026-07-28: also serve "
                        "skill://hostile/SKILL.md with a file at each path of the JSON list, or of the comma-separated "
                        "names (a sound manifest)", type=lambda text: json.loads(text) if text.startswith("[")
                        else text.split(","))
    parser.add_argument("--schema-tools", action="store_true", help="also list paint (enum, array items, _meta) "
                        "and measure (outputSchema; broken=true breaks it)")
    parser.add_argument("--changes-on-set-level", action="store_true", help="2025-11-25 stdio: announce tool, "
                        "prompt and resource list changes while answering logging/setLevel")
    parser.add_argument("--reread-roots", action="store_true", help="stdio, 2025-11-25: on "
                        "notifications/roots/list_changed ask roots/list at once, as servers that read roots once "
                        "(and again when told) do")
    parser.add_argument("--ignore-cancel", action="store_true", help="stdio: ignore notifications/cancelled, as the "
                        "everything server's long-running operation does (its progress goes on)")
    parser.add_argument("--no-listen", action="store_true", help="2026-07-28: announce nothing to listen for (no "
                        "listChanged, no subscribe) and answer subscriptions/listen -32601, as mcp-server-time does")
    parser.add_argument("--task-scoped-keys", action="store_true", help="a task's inputRequests keys are "
                        "<taskId>:<key>, as FastMCP names them (a client must answer under the task's own id)")
    parser.add_argument("--claim-legacy", action="store_true", help="with --era 2026-07-28: list the 2025-11-25-era "
                        "versions in supportedVersions all the same (a false claim, for mcp-tui check)")
    parser.add_argument("--page-ms", type=_count(0), default=250, metavar="N", help="ms per report page")
    parser.add_argument("--poll-ms", type=_count(0), default=5, metavar="N", help="poll interval hint")
    parser.add_argument("--record", metavar="FILE", help="append every client message to FILE (JSON lines)")
    parser.add_argument("--sse-responses", action="store_true", help="answer every HTTP request with SSE")
    parser.add_argument("--verbose", action="store_true", help="log every message to stderr")
    parser.add_argument("--cache-ttl-ms", type=_count(0), default=CACHE_TTL_MS, metavar="N",
                        help="ttlMs of discover, list and read results (0: do not cache)")
    parser.add_argument("--cache-scope", choices=("public", "private"), default=CACHE_SCOPE,
                        help="cacheScope of discover, list and read results")
    parser.add_argument("--server-card", action="store_true", help="serve a Server Card at /mcp/server-card and "
                        "an AI Catalog listing it at /.well-known/ai-catalog.json (SEP-2127)")
    parser.add_argument("--card-fault", choices=("invalid", "version", "versions") + UNREADABLE_CARDS + (
                        "catalog-version", "catalog-redirect"),
                        help="with --server-card: a card that breaks the schema (invalid), names another version "
                        "(version) or protocol versions the server does not speak (versions); one that cannot be "
                        "read (huge: over 1 MiB, deep: nested 50,000 deep, not-json, redirect: a 302 to another "
                        "host); catalog-version: the catalog's inline card says 9.9.9 and the endpoint serves "
                        "none; catalog-redirect: the catalog is a 302 to another host")
    parser.add_argument("--catalog-extra", type=int, default=0, metavar="N",
                        help="with --server-card: the catalog lists N more servers (cards inline)")
    parser.add_argument("--http-fault", choices=HTTP_FAULTS, help="one planted HTTP fault, for check's tests: "
                        "content-type (ping answered as text/plain), get-json (GET answered 200 with JSON), "
                        "delete-500 (DELETE gets 500), method-header (an Mcp-Method that contradicts the body "
                        "is accepted), cache-scope (cacheScope \"shared\"), any-session (a session id it never "
                        "issued is served as its latest session's)")
    parser.add_argument("--big-text", type=_count(1), default=0, metavar="MB",
                        help="list big_text, a tool whose result is one text block of MB MiB")
    parser.add_argument("--fidelity", action="store_true", help="behave like the everything server: tasks per "
                        "session, and the ask_on_stream tool")
    parser.add_argument("--forget-endpoint", action="store_true", help="with --http: POST /forget drops every "
                        "2025-11-25 session, as a restarted server would")
    parser.add_argument("--hang-up-calls", action="store_true", help="with --http: close a tools/call's "
                        "connection with no answer")
    parser.add_argument("--tls", metavar="CERT[:KEY]", help="with --http: serve https with this PEM certificate "
                        "(and key)")
    parser.add_argument("--get-delay-ms", type=_count(0), default=0, metavar="N",
                        help="with --http: answer a new 2025-11-25 GET stream after N ms (what the session sends "
                             "meanwhile is lost, as with the SDK servers)")
    parser.add_argument("--surface-change", choices=tuple(SURFACE_CHANGES),
                        help="one change to the tool list, for the tests of diff and replay: "
                             + "; ".join("%s: %s" % item for item in SURFACE_CHANGES.items()))
    parser.add_argument("--chunked-streams", action="store_true", help="with --http: SSE responses chunked on a "
                        "kept-alive connection (Express, uvicorn)")
    parser.add_argument("--retry-ms", type=_count(0), default=None, metavar="N",
                        help="with --http: the retry field of 2025-11-25 priming events")
    parser.add_argument("--cut-streams", type=_count(0), default=None, metavar="N",
                        help="with --http: cut the first SSE response stream of each method, after its priming event "
                             "(2025-11-25) and N more events")
    parser.add_argument("--cut-method", metavar="METHOD", help="with --cut-streams: cut only this method's streams "
                        "(GET: the first GET stream, cut only when named)")
    parser.add_argument("--cut-how", choices=CUT_HOWS, default="between",
                        help="with --cut-streams: where the stream stops: " + "; ".join(
                            "%s: %s" % item for item in CUT_HOWS.items()))
    parser.add_argument("--no-event-ids", action="store_true", help="with --http: 2025-11-25 response streams "
                        "carry no event ids (a cut one cannot be resumed)")
    parser.add_argument("--record-http", action="store_true", help="with --record: also record GET and DELETE "
                        "requests of /mcp (lines without a message)")
    parser.add_argument("--lose-sessions", action="store_true", help="with --http: forget a 2025-11-25 session once "
                        "its initialize is answered (404 to the next request)")
    parser.add_argument("--no-session-ids", action="store_true", help="with --http: issue no 2025-11-25 session id, "
                        "and answer 400 to requests without one")
    options = parser.parse_args(argv)
    if options.legacy_sse and not options.http:
        parser.error("--legacy-sse needs --http")
    if options.auth and (not options.http or options.legacy_sse):
        parser.error("--auth needs --http (Streamable HTTP)")
    if options.http:
        try:
            parse_listen_address(options.http)
        except ValueError:
            parser.error("--http takes [HOST:]PORT")
    return options


def _terminate(signum, frame):
    raise KeyboardInterrupt()


def main(argv=None):
    """Serve until stdin ends (stdio) or SIGTERM / Ctrl+C; returns the exit status."""
    options = parse_args(sys.argv[1:] if argv is None else argv)
    log = Log(options.verbose)
    server = Server(options, log, Recorder(options.record))
    if hasattr(signal, "SIGTERM"):
        try:
            signal.signal(signal.SIGTERM, _terminate)
        except (ValueError, OSError):
            pass
    if options.http:
        serve_http(server, options.http)
        return 0
    transport = StdioTransport(server)
    try:
        transport.run()
    except KeyboardInterrupt:
        pass
    finally:
        transport.shutdown()
    return 0


if __name__ == "__main__":
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)                          # daemon threads may still hold stdout: skip finalization
