#!/usr/bin/env python3
"""mcp-tui: inspect and drive any Model Context Protocol server.

A curl-like command line for quick checks and scripts, and a curses TUI for exploring
a server. It speaks both protocol eras (2026-07-28 with per-request metadata, and the
initialize handshake of 2025-11-25 and older) over stdio, Streamable HTTP and the
legacy HTTP+SSE transport, and it follows tasks in both forms: the 2025-11-25
experimental tasks and the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension.

One file, standard library only, Python 3.8+. The file reads in the order data flows;
each section may use only the sections above it (main uses them all), and the TUI never
uses the CLI. Each section below is listed with its classes, in the file's order;
tests/test_layering.py checks this map against the banners and the code.

   1. wire          errors, secrets, limits and the private, locked state files
                    (``state_directory``); how requests reach a server (TLS, proxies);
                    JSON-RPC framing, SSE, the transports (stdio, Streamable HTTP, HTTP+SSE,
                    and a kept session's socket) and the RpcChannel that matches responses
                    to requests
                    classes: McpTuiError UsageError ConnectionFailed RequestTimeout
                    RequestCancelled ProtocolViolation Withheld StreamCut HttpStatusError
                    RpcError SecretRegistry KeptTail MessageTooLarge FileLock JsonStateFile
                    SseEvent SseDecoder Transport StdioTransport Watchdog NetworkOptions HttpClient
                    StreamableHttpTransport LegacySseTransport KeeperTransport KeeperGone
                    PendingRequest RpcChannel
   2. session       which era the server speaks, the handshake or per-request _meta, the
                    headers of each era, MRTR, the result cache, the ConnectionSpec, and
                    watching for list changes; the only place besides 3c that knows the era
                    classes: ResultCache ConnectionSpec StubMismatch InputDeclined TaskRequired
                    UrlElicitationRequired Era LegacyEra ModernEra SessionOpener Session Subscription
                    ChangeWatch HeldNotifications
   3. features      what a client asks of a server, in four parts:
     3a. catalog and arguments  paginated lists, tools, k=v arguments coerced by schema; a
                    server's surface as a snapshot, and the changes between two; skills
                    (SEP-2640) checked against their manifests, and MCP Apps views
                    classes: SurfaceDiff FrontmatterUnsupported
     3b. input requests  the client's answers to elicitation, sampling and roots
                    classes: InputResponder
     3c. tasks      one Task model, one TaskForm interface, two adapters (``tasks_for``
                    picks one by era), the task ledger
                    classes: Task TaskFailed TaskSupport CallOutcome StatusReporter TaskForm
                    ExtensionTasks ExperimentalTasks TaskLedger
     3d. check and load  the rules a server is held to, the probes that apply them, --load
                    classes: ServerCheck ClaimChecks HttpChecks LatencyHistogram ToolLoad
   4. debug log     the bounded log of everything on the wire, secrets fingerprinted
                    (and whole, credentials masked, in a --record file, which ``replay`` reads)
                    classes: LogSelection MessageRecorder Recording RecordedResponder DebugLog
   5. auth          OAuth for HTTP servers: discovery, PKCE, registration, client
                    credentials, cross-app access, the token store (``authorizer_for``)
                    classes: AuthError TokenEndpointError SigningKey AuthSettings AuthStore
                    CallbackListener BrowserStep Discovery OAuthRequests Discoverer
                    ClientRegistration Grants TokenKeeper Authorizer
   6. views         the text the CLI and the TUI share; then the connections part of
                    the session layer, which needs the debug log and auth above it:
                    classes: BlobSaver ConfigWord
     6a. connections  a ConnectionSpec built from options and config files
                    (``spec_from_options``), kept sessions' records, and ``connect``:
                    the one way to open a session
                    classes: ConfigChoiceNeeded ConfigServer KeptSessions
   7. CLI           words in, one Session call, text or JSON out; the `auth` verbs
                    (``auth_command``) and the `session` verbs (``run_session_command``),
                    which start, list and close keepers
                    classes: Terminated TerminationSignals Output Cli CliCommands TaskCommands CheckCommands
                    SurfaceCommands SkillCommands
   8. TUI           the curses front end, in four parts:
     8a. the app    the loop, the inbox, the session and the tasks it follows
                    classes: Inbox Binding Tui TuiConnection PendingAnswer AnswerThen ConnectAttempt TuiResponder
                    TaskRow TaskBook TaskFollower
     8b. screens    connection, main (with its Skills tab), tool form, tasks, input requests, debug
                    classes: Screen TextScreen FieldScreen ConnectScreen SkillsTab MainScreen Catalog
                    Entry ToolScreen TextAreaScreen ObjectListScreen ElementScreen PickScreen
                    CallRecord CallHistory HistoryScreen
                    ResourceScreen LineScreen TemplateScreen Completer PromptScreen
                    RootsScreen TasksScreen TaskDetailScreen ElicitationScreen
                    UrlElicitationScreen AuthorizeScreen SamplingScreen DebugScreen
     8c. widgets    text, lists, fields
                    classes: Paste KeyReader Style Canvas TextView Selection TextField
                    ChoiceField MultiChoiceField SearchBar Button FieldList
     8d. text on a terminal  one row, cells, clipping
   9. sessions keeper  sessions that outlive one command, held by a background process
                    classes: KeeperClient Keeper KeeperRelay
  10. main          options to a CLI run or the TUI; every error to one line and an exit code

Heavy modules (http.client, ssl, subprocess, curses, and auth's hashlib, secrets,
http.server and webbrowser) are imported where they are used,
so ``mcp-tui --help`` and a CLI call pay only for what they touch.
"""

import json
import os
import re
import sys
import threading
import time

__version__ = "0.1.0"

MODERN_VERSION = "2026-07-28"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
PROTOCOL_CHOICES = ("auto", MODERN_VERSION) + LEGACY_VERSIONS
CLIENT_INFO = {"name": "mcp-tui", "title": "MCP TUI", "version": __version__}
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"  # SEP-2640: skills/list, skills/get, skill:// files
APPS_EXTENSION = "io.modelcontextprotocol/ui"  # SEP-1865 (MCP Apps): a tool's ui:// HTML view
APP_MIME_TYPE = "text/html;profile=mcp-app"
META_PREFIX = "io.modelcontextprotocol/"

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")  # RFC 5424

# JSON-RPC error codes mcp-tui sends or reads (the era-specific ones are MODERN_ERROR_CODES)
METHOD_NOT_FOUND, INVALID_PARAMS = -32601, -32602
SERVER_ERRORS = (-32000, -32001)  # implementation-defined; a lost session shows up as one


# ======================================================================================
# 1. Wire: errors, JSON-RPC framing, the SSE decoder and the three transports
#
# First what every later section relies on: the errors, the registry of secrets that all
# output is masked with, the limits on what a server may send, and the private, locked
# JSON state files (the task ledger, OAuth tokens, sessions).
#
# A transport moves JSON-RPC messages and nothing else. It hands every message it
# receives to ``deliver`` and reports a failure that belongs to one request (an HTTP
# status without a JSON-RPC body) to ``fail``. Matching responses to requests, timeouts
# and answering server requests belong to the RpcChannel at the end of this section.
# ======================================================================================


def seconds_text(seconds):
    """A duration as people read it: whole seconds, or tenths below ten ("8s", "2.5s")."""
    if seconds >= 10 or abs(seconds - round(seconds)) < 0.05:
        return "%ds" % round(seconds)
    return "%.1fs" % seconds


class McpTuiError(Exception):
    """A failure the user sees as one line on stderr and a documented exit code."""

    exit_code = EXIT_FAILURE
    kind = "error"

    def __init__(self, message, hint=None, data=None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.data = data

    def to_json(self):
        error = {"kind": self.kind, "message": self.message, "exitCode": self.exit_code}
        if self.hint:
            error["hint"] = self.hint
        return error


class UsageError(McpTuiError):
    exit_code = EXIT_USAGE
    kind = "usage"


class ConnectionFailed(McpTuiError):
    kind = "connection"


class RequestTimeout(McpTuiError):
    kind = "timeout"


class RequestCancelled(McpTuiError):
    """The user cancelled a request while it ran; the server was told."""

    exit_code = EXIT_INTERRUPTED


class ProtocolViolation(McpTuiError):
    """The server broke the protocol (bad JSON, wrong shapes, impossible answers)."""

    kind = "protocol"


class Withheld(Exception):
    """--dry-run: the command's request, built and not sent. ``preview`` is the transport's
    view of it (HttpClient.preview or the stdio framing): where it would go, and how."""

    def __init__(self, preview):
        super().__init__("withheld")
        self.preview = preview


class StreamCut(ConnectionFailed):
    """A response stream that ended before the response."""


class HttpStatusError(ConnectionFailed):
    """An HTTP status with no JSON-RPC error in its body."""

    def __init__(self, status, reason, body=b"", headers=None, session=None):
        """``session``: the 2025-11-25 session id the request named (a 404 then says the
        session is gone, not that the URL is wrong)."""
        self.status = status
        self.body = body
        self.headers = headers or {}
        self.retry_after = retry_after_seconds(self.headers.get("retry-after")) if status in (429, 503) else None
        message = "HTTP %d %s" % (status, reason)
        if self.retry_after is not None:
            message += " (Retry-After: %gs)" % self.retry_after
        snippet = body_summary(body)
        snippet = "" if snippet.lower().rstrip(".") == str(reason).lower() else snippet  # "404 Not Found: Not Found"
        if snippet:
            message += ": " + snippet
        elif status == 404 and not session:  # a web server's page, or nothing: no MCP server at this path
            message += ": not an MCP endpoint"
        hint = None
        challenge = self.headers.get("www-authenticate")
        if status == 404 and not snippet and not session:
            hint = "check the URL's path; MCP servers often serve /mcp"
        elif status == 401:  # with no credentials given, mcp-tui would have authorized (section 5) instead
            hint = ("the server refused the credentials given with --bearer or --header 'Authorization: ...'; "
                    "without them, mcp-tui authorizes by itself where the server offers OAuth")
        elif status == 403:
            hint = "the server refused access (403)"
        if challenge and status in (401, 403):
            # Its parameters tell where to authorize, but not its error_description: the body says it already
            scheme, _, parameters = challenge.partition(" ")
            parameters = re.sub(r'(?i)(^|,)\s*error_description=("(?:[^"\\]|\\.)*"|[^,]*)', "", parameters)
            hint += " (WWW-Authenticate: %s)" % " ".join(part for part in (scheme, parameters.strip(" ,")) if part)
        super().__init__(message, hint)


def is_number(value):
    """A JSON number (json gives int or float; True is an int to Python, not a number here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_timestamp(text):
    """ISO 8601 (any number of fractional digits, Z or an offset) -> epoch seconds."""
    import calendar

    if not isinstance(text, str):
        return None
    match = re.match(r"^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:?\d\d)?$", text)
    if not match or not (1 <= int(match.group(2)) <= 12 and 1 <= int(match.group(3)) <= 31):
        return None
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    epoch = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) + float(match.group(7) or 0)
    zone = match.group(8)
    if zone and zone not in "Zz":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        epoch -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return epoch


def retry_after_seconds(value):
    """Retry-After as seconds from now: delta-seconds or an HTTP date; None if absent or odd."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def body_summary(body):
    """A short readable account of an HTTP error body: its JSON-RPC error message if it has
    one, an OAuth error (RFC 6750: error and error_description), else its text cut after a
    sentence or a word; nothing for an HTML page (a web server's 404)."""
    try:
        document = json.loads(body.decode("utf-8"))
        error = document.get("error")
        if isinstance(error, dict) and error.get("message"):
            return "%s%s" % ("%s " % error["code"] if isinstance(error.get("code"), int) else "", error["message"])
        if isinstance(error, str):
            description = document.get("error_description")
            return error + (": " + first_sentences(str(description)) if description else "")
    except (ValueError, AttributeError, UnicodeDecodeError):
        pass
    text = " ".join(body[:1000].decode("utf-8", "replace").split())
    if re.match(r"(?i)<(!doctype|html|head|body|\?xml)", text):
        return ""
    return first_sentences(text)


def first_sentences(text, limit=200):
    """``text`` up to ``limit`` characters, cut after its last whole sentence (or word) there."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end >= limit // 3:
        return cut[:end + 1] + " …"
    return cut.rsplit(" ", 1)[0] + " …"


class RpcError(McpTuiError):
    """A JSON-RPC error object from the server."""

    kind = "rpc"

    def __init__(self, error, method=None):
        error = error if isinstance(error, dict) else {"code": None, "message": str(error)}
        self.code = error.get("code")
        self.rpc_message = str(error.get("message", ""))
        self.error = error
        text = "%s %s" % (self.code, self.rpc_message) if self.code is not None else self.rpc_message
        super().__init__("%s failed: %s" % (method, text) if method else text, data=error.get("data"))

    def to_json(self):
        out = super().to_json()
        out["code"] = self.code
        if "data" in self.error:
            out["data"] = self.error["data"]
        return out


# -- secrets, sizes and deadlines: what every later section relies on -------------------


def sha256_hex(text):
    """SHA-256 of a string, in hex. Fingerprints and cache keys are taken on every call:
    hashlib loads OpenSSL (3-6 ms of a ~70 ms command), the built-in module ~0.3 ms."""
    try:
        if sys.version_info >= (3, 12):
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:  # a build without the private modules
        from hashlib import sha256
    return sha256(text.encode("utf-8")).hexdigest()


def fingerprint(secret):
    return sha256_hex(secret)[:8]


class SecretRegistry:
    """Values that must never be printed or written in clear. One registry per run holds the
    run's credentials: the bearer, every header value the user gave, ${VAR} expansions, URL
    userinfo and query values and, registered by their owners, OAuth tokens. Error lines,
    --debug, --trace and --log-file pass through ``redact``, so a server that echoes a secret
    back does not get it printed either. A child registry (the debug log's task IDs)
    redacts its own values, then its parent's."""

    def __init__(self, parent=None, min_length=4):
        self.parent = parent
        self.min_length = min_length  # shorter values would mask ordinary words
        self._labels = {}  # a secret, or its JSON or URL-escaped form -> its label
        self._longest_first = []
        self._lock = threading.Lock()

    def add(self, secret, kind="secret"):
        """Register a secret and return the label that stands for it (kind:fingerprint)."""
        if not isinstance(secret, str) or not secret:
            return secret
        label = "%s:%s" % (kind, fingerprint(secret))
        if len(secret) < self.min_length:
            return label
        from urllib.parse import quote

        forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], quote(secret, safe="")}
        with self._lock:
            for form in forms:
                self._labels.setdefault(form, label)
            self._longest_first = sorted(self._labels, key=len, reverse=True)
        return label

    def label(self, secret):
        with self._lock:
            return self._labels.get(secret)

    def longest(self):
        """The length of the longest registered form, here or in the parent: a text cut that
        far past a point still holds, whole, every secret that starts before the point."""
        with self._lock:
            own = len(self._longest_first[0]) if self._longest_first else 0
        return max(own, self.parent.longest() if self.parent is not None else 0)

    def redact(self, text):
        if not isinstance(text, str):
            return text
        with self._lock:
            forms, labels = self._longest_first, self._labels
        for form in forms:
            if form in text:
                text = text.replace(form, labels[form])
        return self.parent.redact(text) if self.parent is not None else text


def register_header_secrets(headers, registry):
    """Every header value the user gave is a credential as far as output goes; for an
    Authorization value, the credentials after the scheme word too."""
    for name, value in (headers or {}).items():
        registry.add(value)
        scheme, _, credentials = value.partition(" ")
        if credentials and name.lower() in ("authorization", "proxy-authorization"):
            registry.add(credentials.strip())


def register_url_secrets(url, registry):
    from urllib.parse import parse_qsl, urlsplit

    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    if userinfo:
        registry.add(userinfo)
        for piece in userinfo.split(":"):
            registry.add(piece)
    for _, value in parse_qsl(parts.query, keep_blank_values=True):
        registry.add(value, "q")


def masked_url(url):
    """A URL fit to print: no userinfo, and each query value as its fingerprint."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(url)
    if not parts.query and "@" not in parts.netloc:
        return url
    query = urlencode([(k, "q:" + fingerprint(v)) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
                      safe=":")
    netloc = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


DEFAULT_MAX_MESSAGE = 64 * 1024 * 1024
STDERR_LINE_LIMIT = 64 * 1024  # read at a time; a longer line is read to its end and dropped
# One budget for what a server can make a run keep, whatever it sends: strings are cut where
# they are kept (saying how much went), and each collection is bounded in bytes as well as
# in count: the debug log's ring (section 4), the notifications a --format json document
# carries (section 7) and the server's stderr tail (here). A paginated list as a whole is
# bounded by --max-message-size, as one message is (list_all, section 3).
KEPT_FIELD_LIMIT = 4 * 1024  # characters of one kept string: a method name, a stderr line, a log field
KEPT_LOG_BYTES = 32 * 1024 * 1024
KEPT_NOTIFICATION_BYTES = 16 * 1024 * 1024
KEPT_STDERR_BYTES = 256 * 1024
KEPT_CHANGED_RESOURCES = 1000  # the TUI's marks of resources updated since they were read
SSE_READ_CHUNK = 64 * 1024
BODY_READ_CHUNK = 1024 * 1024
DELETE_TIMEOUT = 2.0  # closing a session at exit must not hold the user up


def size_text(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return "%d %s" % (size // scale, unit)
    return "%d bytes" % size


def cut_note(limit, total, unit="characters"):
    return "… (cut at %d of %d %s)" % (limit, total, unit)


def cut_text(text, limit, total=None):
    """``text`` cut to its first ``limit`` characters, saying how many there were (``total``,
    when some went before ``text`` was made); ``text`` itself when it fits."""
    total = len(text) if total is None else total
    return text if total <= limit else text[:limit] + cut_note(limit, total)


def kept_size(value):
    """About what ``value`` (strings, numbers, lists and dicts of them) holds in memory, in
    bytes: what the bounded collections above count."""
    if isinstance(value, str):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return 64 + sum(kept_size(key) + kept_size(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return 64 + sum(kept_size(item) for item in value)
    return 32


class KeptTail:
    """The newest items of a stream: at most ``count`` of them, and the oldest dropped while
    they hold more than ``size`` bytes (kept_size; the newest item stays). Its owner locks."""

    def __init__(self, count, size):
        import collections

        self.items = collections.deque(maxlen=count)
        self.sizes = collections.deque()
        self.size, self.bytes = size, 0

    @property
    def maxlen(self):
        return self.items.maxlen

    def append(self, item):
        if len(self.items) == self.items.maxlen:
            self.popleft()
        try:
            size = kept_size(item)
        except RecursionError:
            size = self.size  # nested that deep: as much as the whole budget
        self.items.append(item)
        self.sizes.append(size)
        self.bytes += size
        while len(self.items) > 1 and self.bytes > self.size:
            self.popleft()

    def popleft(self):
        self.bytes -= self.sizes.popleft()
        return self.items.popleft()

    def pop(self):
        self.bytes -= self.sizes.pop()
        return self.items.pop()

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __reversed__(self):
        return reversed(self.items)

    def __getitem__(self, index):
        return self.items[index]


class MessageTooLarge(ProtocolViolation):
    def __init__(self, limit):
        super().__init__("the server sent a message larger than %s, the --max-message-size limit" % size_text(limit),
                         hint="raise --max-message-size if the server is right to send that much")


def state_directory():
    override = os.environ.get("MCP_TUI_STATE_DIR")
    if override:
        return override
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
        return os.path.join(base, "mcp-tui")
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "mcp-tui")


def private_directory(path):
    """Create ``path`` 0700, or check the one there: state is refused a directory that
    another user owns or that group or others may write to (they could swap its files)."""
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise McpTuiError("cannot create the state directory %s: %s" % (path, exc.strerror or exc))
    if os.name != "nt":  # Windows: %LOCALAPPDATA% is private by its ACL
        info = os.stat(path)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise McpTuiError("the state directory %s is %s; mcp-tui keeps its state only where no one else can "
                              "change it" % (path, "not yours" if info.st_uid != os.getuid() else "writable by others"),
                              hint="chmod 700 %s, or point MCP_TUI_STATE_DIR elsewhere" % path)
        if info.st_mode & 0o077:
            try:
                os.chmod(path, 0o700)  # ours but readable by others (made for MCP_TUI_STATE_DIR, say): close it
            except OSError:
                pass
    return path


def open_private(path):
    """Open ``path`` to append text, readable by its owner alone (0600, even if it existed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    if hasattr(os, "fchmod"):
        try:
            os.fchmod(fd, 0o600)
        except OSError:
            pass  # not ours to change: it was the user's choice of path
    return os.fdopen(fd, "a", encoding="utf-8")


class FileLock:
    """An exclusive lock held through a ``.lock`` file beside the state file (the state file
    itself is replaced on every write): fcntl.flock on POSIX, msvcrt.locking on Windows."""

    def __init__(self, path):
        self.path = path
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
        self.msvcrt = None
        try:
            if os.name == "nt":
                try:
                    import msvcrt
                except ImportError:  # not a real Windows Python: nothing to lock with
                    return self
                self.msvcrt = msvcrt
                while True:
                    try:
                        msvcrt.locking(self.fd, msvcrt.LK_LOCK, 1)  # it retries for 10 s, then raises
                        break
                    except OSError:
                        continue
            else:
                import fcntl

                fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(self.fd)
            raise
        return self

    def __exit__(self, *exc_info):
        if self.msvcrt is not None:
            os.lseek(self.fd, 0, 0)
            self.msvcrt.locking(self.fd, self.msvcrt.LK_UNLCK, 1)
        os.close(self.fd)  # closing releases an flock


class JsonStateFile:
    """A JSON object in a private file of the state directory (the task ledger, OAuth
    tokens, sessions) that survives concurrent mcp-tui processes and hostile surroundings:
    every read and read-modify-write holds an exclusive lock; a write goes to a fresh
    temporary file (O_EXCL|O_NOFOLLOW, 0600) in the same directory and then replaces the
    file atomically; a file that is not a JSON object is moved aside (NAME.corrupt-TIME)
    with a warning; an entry that ``valid(key, value)`` refuses is skipped with a warning."""

    def __init__(self, path, valid=None, warn=None, durable=True):
        self.path = path
        self.valid = valid
        self.warn = warn or (lambda text: None)
        # A cache may lose its last write in a crash; the ledger, tokens and sessions may not.
        self.durable = durable

    def read(self):
        try:
            with self._locked():
                return self._load()
        except OSError as exc:
            raise self._unusable(exc)

    def update(self, change):
        """Run ``change(entries)`` on the entries under the lock, write them back, and return
        what ``change`` returned."""
        try:
            with self._locked():
                data = self._load()
                outcome = change(data)
                self._save(data)
                return outcome
        except OSError as exc:
            raise self._unusable(exc)

    def _unusable(self, exc):
        """A lock that is a dangling symlink, a state file that is a directory: one line that
        names the file, not a traceback (from whichever thread met it)."""
        return McpTuiError("cannot use the state file %s: %s" % (exc.filename or self.path, exc.strerror or exc),
                           hint="move it away, or point MCP_TUI_STATE_DIR elsewhere")

    def _locked(self):
        private_directory(os.path.dirname(os.path.abspath(self.path)))
        return FileLock(self.path + ".lock")

    def _load(self):
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read()
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            data = None
        if not isinstance(data, dict):
            aside = "%s.corrupt-%s" % (self.path, time.strftime("%Y%m%dT%H%M%S"))
            os.replace(self.path, aside)
            self.warn("warning: %s was not a JSON object; moved it aside to %s" % (self.path, aside))
            return {}
        bad = [key for key, value in data.items() if self.valid and not self.valid(key, value)]
        for key in bad:
            del data[key]
        if bad:
            self.warn("warning: skipped %d malformed entr%s in %s" % (len(bad), "y" if len(bad) == 1 else "ies",
                                                                       self.path))
        return data

    def _save(self, data):
        directory, name = os.path.split(os.path.abspath(self.path))
        temporary = os.path.join(directory, ".%s.%d.%s.tmp" % (name, os.getpid(), os.urandom(6).hex()))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(temporary, flags, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                if self.durable:
                    json.dump(data, handle, indent=1, sort_keys=True)  # small files people may read
                    handle.flush()
                    os.fsync(handle.fileno())
                else:
                    handle.write(json.dumps(data, separators=(",", ":")))  # one pass of the C encoder
            os.replace(temporary, self.path)
        except BaseException:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            raise
def rpc_label(message):
    """What a POST carried, for the trace: the method, or which id a response answers."""
    if "method" in message:
        return message["method"]
    return "%s #%s" % ("error" if "error" in message else "result", message.get("id"))


def encode_message(message):
    """One JSON-RPC message as compact UTF-8 with no embedded newline (stdio framing)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def strict_json(text):
    """json.loads without NaN and Infinity, which are not JSON: from a server they would be
    printed into --format json output that is then not JSON, or stored in a state file."""
    def refuse(name):
        raise ValueError("%s is not JSON" % name)

    def finite(literal):
        value = float(literal)
        if value in (float("inf"), float("-inf")):
            raise ValueError("%s is too large for a number" % literal)
        return value

    return json.loads(text, parse_constant=refuse, parse_float=finite)


def decode_messages(payload):
    """Parse a body or a stdio line into messages; a 2025-03-26 peer may send a batch.
    Bytes go to json.loads as they are: it decodes UTF-8 itself, without a str copy of a
    large body first. Only a body that is not valid UTF-8 is decoded with replacements."""
    try:
        try:
            value = strict_json(payload)
        except UnicodeDecodeError:
            value = strict_json(bytes(payload).decode("utf-8", "replace"))
    except ValueError as exc:
        raise ProtocolViolation("the server sent invalid JSON: %s" % exc)
    except RecursionError:
        raise ProtocolViolation("the server sent JSON nested too deeply to read")
    messages = value if isinstance(value, list) else [value]
    for message in messages:
        if not isinstance(message, dict):
            raise ProtocolViolation("the server sent a JSON value that is not a JSON-RPC message")
    return messages


class SseEvent:
    __slots__ = ("event", "data", "id")

    def __init__(self, event, data, event_id):
        self.event, self.data, self.id = event, data, event_id


class SseDecoder:
    """Incremental text/event-stream decoder: any chunking, CR, LF or CRLF line ends,
    comments, ``retry`` and ``id``. Feed it text; it returns the completed events. A line
    or an event longer than ``limit`` characters raises MessageTooLarge as it grows."""

    def __init__(self, limit=DEFAULT_MAX_MESSAGE):
        self.limit = limit
        self._pending = []  # pieces of a line that has no end yet
        self._pending_size = 0
        self._skip_lf = False
        self._data = []
        self._data_size = 0
        self._event = ""
        self._id = None
        self.last_event_id = None
        self.retry_ms = None

    def feed(self, text):
        events = []
        if not text:
            return events
        if self._skip_lf and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across two chunks
        self._skip_lf = False
        if "\n" not in text and "\r" not in text:
            self._pending.append(text)  # no line end yet: keep the pieces, join them once
            self._pending_size += len(text)
            if self._pending_size > self.limit:
                raise MessageTooLarge(self.limit)
            return events
        self._pending.append(text)
        text, self._pending = "".join(self._pending), []  # one copy, and the pieces freed at once
        start, length = 0, len(text)
        while start < length:
            cr, lf = text.find("\r", start), text.find("\n", start)
            if cr == -1 and lf == -1:
                break
            if cr != -1 and (lf == -1 or cr < lf):
                end = cr
                if cr == length - 1:
                    nxt, self._skip_lf = cr + 1, True
                else:
                    nxt = cr + 2 if text[cr + 1] == "\n" else cr + 1
            else:
                end, nxt = lf, lf + 1
            event = self._line(text, start, end)
            if event is not None:
                events.append(event)
            start = nxt
        self._pending = [text[start:]] if start < length else []
        self._pending_size = length - start
        if self._pending_size > self.limit:
            raise MessageTooLarge(self.limit)
        return events

    def _line(self, text, start, end):
        """One line, text[start:end]: its value is sliced out once (a data line may be a
        whole 20 MB message)."""
        if start == end:
            return self._dispatch()
        if text.startswith(":", start):
            return None
        colon = text.find(":", start, end)
        if colon == -1:
            field, value = text[start:end], ""
        else:
            field = text[start:colon]
            value = text[colon + (2 if text.startswith(" ", colon + 1, end) else 1):end]
        if field == "data":
            self._data_size += len(value) + 1
            if self._data_size > self.limit:
                raise MessageTooLarge(self.limit)
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "id":
            if "\0" not in value:
                self._id = value
                self.last_event_id = value
        elif field == "retry" and value.isdigit() and value.isascii():
            self.retry_ms = int(value)
        return None

    def _dispatch(self):
        if not self._data and self._id is None:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data), self._id)
        self._data, self._data_size, self._event, self._id = [], 0, "", None
        return event


def iter_sse(response, decoder):
    """Yield SSE events from an http.client response as the bytes arrive. The body is read
    in bounded pieces of whatever has arrived (read1: one socket read of up to 64 KiB, not
    the 8 KiB a line-by-line read takes), so an endless line ends at the decoder's limit,
    not in memory, and an event is handed on as soon as its end arrives."""
    import codecs

    utf8 = codecs.getincrementaldecoder("utf-8")("replace")
    while True:
        chunk = response.read1(SSE_READ_CHUNK)
        if not chunk:
            break
        for event in decoder.feed(utf8.decode(chunk)):
            yield event
    for event in decoder.feed(utf8.decode(b"", final=True)):
        yield event


def read_body(response, limit):
    """An HTTP body, with or without Content-Length, read in pieces up to ``limit`` bytes."""
    if response.length is not None:
        if response.length > limit:
            raise MessageTooLarge(limit)
        return response.read()  # exactly the announced length, in one piece
    body = bytearray()  # grows in place: no list of pieces joined at the end
    while True:
        piece = response.read(BODY_READ_CHUNK)
        if not piece:
            return body
        body += piece
        if len(body) > limit:
            raise MessageTooLarge(limit)


def join_command(argv):
    """A command line a POSIX shell reads back as ``argv``."""
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def windows_program(argv, environ):
    """``argv`` with its program found on PATH as Windows finds it (PATHEXT): Windows starts
    only .exe files by a bare name, so `npx` (npx.cmd), the way most MCP servers start, would
    be "no such program". Elsewhere, and for a path, ``argv`` as it is."""
    if os.name != "nt" or os.path.dirname(argv[0]):
        return argv
    import shutil

    found = shutil.which(argv[0], path=environ.get("PATH"))
    return [found] + list(argv[1:]) if found else argv


class Transport:
    """What every transport offers the channel and the session, with the defaults of one that
    lacks it: callers ask for a capability by its meaning, never probe or test a name."""

    name = None  # "stdio", "streamable-http" or "sse": shown and logged, never branched on
    carries_mcp_headers = False  # Streamable HTTP: MCP-Protocol-Version, Mcp-Method, Mcp-Param-*
    legacy_stream = False  # legacy Streamable HTTP: resume streams, hold a GET stream
    session_id = None  # the 2025-11-25 HTTP session id requests go out under
    keep_session = False  # a later run resumes this session: no DELETE at close
    stream_lost = None  # why a stream the session depends on could not be opened again
    stderr_tail = ()  # a child server's last lines on stderr
    junk = ()  # lines a child server wrote on stdout that were not JSON-RPC
    writes_on_stdout = False  # a child server's stdout carries the messages (junk there is a finding)
    http = None  # the HttpClient of a direct HTTP connection (check makes its own probes with it)

    @property
    def cancels_by_closing_stream(self):
        """2026-07-28 over HTTP cancels a request by closing its response stream; everywhere
        else a notifications/cancelled says so."""
        return self.carries_mcp_headers and not self.legacy_stream

    def abort(self, request_id):
        """Stop reading a request's answer (close its stream); nothing where there is none."""

    def legacy_session(self, version, session_id=None):
        """The handshake era was negotiated (Streamable HTTP names the version from now on)."""

    def open_get_stream(self):
        """Legacy Streamable HTTP: hold the GET stream for what the server sends unasked."""

    def control(self, op, timeout=10.0, **fields):
        """An operation of a session keeper: only a kept session's transport has one."""
        raise UsageError("%s is not a kept session: it takes no keeper operation (%s)" % (self.name, op))

    def close(self):
        """End the connection."""


class StdioTransport(Transport):
    """A server run as a child process, without a shell: newline-delimited JSON-RPC on
    its stdin and stdout, and its stderr kept (and logged) for when something fails. The
    server runs in its own process group, so that stopping it stops its children too."""

    name = "stdio"
    writes_on_stdout = True

    def __init__(self, argv, env=None, cwd=None, log=None, stderr_lines=200, max_message=DEFAULT_MAX_MESSAGE):
        import collections

        self.max_message = max_message
        self.argv = list(argv)
        self.env = env
        self.cwd = cwd
        self.log = log
        self.stderr_tail = KeptTail(stderr_lines, KEPT_STDERR_BYTES)
        self.junk = collections.deque(maxlen=3)  # lines on stdout that were not JSON-RPC
        self.process = None
        self._spawned = None  # set once Popen has returned or failed (see start)
        self._write_lock = threading.Lock()
        self._channel = None

    def start(self, channel):
        import subprocess

        self._channel = channel
        environ = dict(os.environ)
        environ.update(self.env or {})
        new_group = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", None)  # Windows only
        if new_group is not None:
            group = {"creationflags": new_group}
        else:
            group = {"start_new_session": True} if os.name != "nt" else {}
        spawned, self._spawned = {}, threading.Event()

        def spawn():
            try:
                self.process = subprocess.Popen(
                    windows_program(self.argv, environ), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, env=environ, cwd=self.cwd, bufsize=-1, **group)
            except BaseException as exc:  # the caller's to raise
                spawned["error"] = exc
            finally:
                self._spawned.set()
        # Popen runs on a thread of its own: Ctrl+C, SIGTERM and SIGHUP raise on the main thread, and
        # one raised inside Popen after its fork lost the child, which close() could then not stop.
        # An Event, not Thread.join: a join a signal interrupts marks the thread ended (CPython 3.11),
        # and close() would then not wait for the server it must stop.
        threading.Thread(target=spawn, daemon=True).start()
        self._spawned.wait()
        error = spawned.get("error")
        if isinstance(error, FileNotFoundError):
            raise ConnectionFailed("cannot start the server: no such program %r" % self.argv[0])
        if isinstance(error, (OSError, ValueError)):
            raise ConnectionFailed("cannot start the server %r: %s" % (self.argv[0], error))
        if error is not None:
            raise error
        if self.log:
            self.log.event("transport", "spawned stdio server", pid=self.process.pid, command=self.argv[0])
        self._stderr_thread = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_thread.start()
        self._stdout_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._stdout_thread.start()

    def preview(self, message, headers=None):
        """--dry-run: one line on the server's stdin."""
        return {"transport": self.name, "request": "stdin of %s" % join_command(self.argv), "headers": {},
                "message": message}

    def send(self, message, headers=None):
        data = encode_message(message) + b"\n"
        with self._write_lock:
            try:
                self.process.stdin.write(data)
                self.process.stdin.flush()
                return
            except (OSError, ValueError):  # the server is gone (a broken pipe): say why, as at EOF
                pass
        # outside the lock: the stdout reader that ended_description waits for may answer the server
        raise ConnectionFailed(self.ended_description())

    def _read_stdout(self):
        stream = self.process.stdout
        for raw in iter(lambda: stream.readline(self.max_message + 1), b""):
            if len(raw) > self.max_message:
                # No way to find the next message in the stream: the session ends here.
                self._channel.closed(MessageTooLarge(self.max_message))
                self.close()
                return
            line = raw.strip()
            if not line:
                continue
            try:
                messages = decode_messages(line)
            except ProtocolViolation as exc:
                # Said after "meanwhile the server sent" in a timeout's hint, so not twice.
                self.junk.append('"%s" on stdout (%s)' % (line[:60].decode("utf-8", "replace"),  # not repr: you\'re
                                                           re.sub(r"^the server sent ", "", exc.message)))
                if self.log:
                    self.log.event("transport", "junk on the server's stdout: %s" % exc.message,
                                   line=line[:200].decode("utf-8", "replace"))
                continue
            for message in messages:
                try:
                    self._channel.deliver(message)
                except Exception as exc:  # a message we cannot handle must not end the session
                    self._channel.anomaly("a message mcp-tui could not handle (%s: %s)" % (
                        exc.__class__.__name__, exc))
        description = self.ended_description()
        for pipe in (self.process.stdout, self.process.stderr):
            try:
                pipe.close()  # two descriptors per closed session otherwise linger until GC
            except OSError:
                pass
        self._channel.closed(ConnectionFailed(description))

    def ended_description(self):
        """Why the server is gone, once its exit status and its last stderr lines (which
        explain the exit) are in: each wait is bounded, for a server that closed its
        output but lives on, or a child that keeps its stderr open."""
        import subprocess

        try:
            self.process.wait(2.0)
        except subprocess.TimeoutExpired:
            pass
        self._stderr_thread.join(2.0)
        if threading.current_thread() is not self._stdout_thread:  # a write that failed: what it printed
            self._stdout_thread.join(2.0)  # before it exited may not have been read yet
        return self.exit_description()

    def _read_stderr(self):
        """Keep the tail of the server's stderr (KEPT_STDERR_BYTES): lines cut at
        KEPT_FIELD_LIMIT bytes, and a run of identical lines kept as one line and a count."""
        stream = self.process.stderr
        previous, repeats = None, 0
        for raw in iter(lambda: stream.readline(STDERR_LINE_LIMIT), b""):
            first, size = raw, len(raw.rstrip(b"\r\n"))
            if len(raw) >= STDERR_LINE_LIMIT:
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(STDERR_LINE_LIMIT)  # the rest of the line is only counted
                    size += len(raw.rstrip(b"\r\n"))
            line = first[:KEPT_FIELD_LIMIT].decode("utf-8", "replace").rstrip("\r\n")
            if size > KEPT_FIELD_LIMIT:
                line += " " + cut_note(KEPT_FIELD_LIMIT, size, "bytes")
            if line == previous:
                repeats += 1
                if repeats > 1:
                    self.stderr_tail.pop()
                self.stderr_tail.append("… repeated %d times" % repeats)
                continue
            self._log_repeats(repeats)
            previous, repeats = line, 0
            self.stderr_tail.append(line)
            if self.log:
                self.log.stderr(line)
        self._log_repeats(repeats)

    def _log_repeats(self, repeats):
        if repeats and self.log:
            self.log.stderr("… repeated %d times" % repeats)

    def exit_description(self):
        code = self.process.poll() if self.process else None
        text = "the server process exited" if code is not None else "the server closed its output"
        if code is not None and code < 0 and os.name != "nt":  # POSIX: -N is "killed by signal N"
            import signal

            try:
                text += " on signal %d (%s)" % (-code, signal.Signals(-code).name)
            except ValueError:
                text += " on signal %d" % -code
        elif code is not None:
            text += " with code %d" % code
        if self.junk:  # a server that logs to stdout, where only JSON-RPC may go, often says why there
            text += "; before that it wrote %s" % "; ".join(self.junk)
        return text

    def close(self, grace=0.5):
        """End of input first (a polite server exits on it), then the whole process group is
        terminated, then killed: the server's own children go with it."""
        if self.process is None and self._spawned is not None:  # start() was interrupted: its server is ours
            self._spawned.wait(10.0)
        process = self.process
        if not process or process.poll() is not None:
            return
        try:
            process.stdin.close()
        except OSError:
            pass
        for final in (None, False, True):
            if final is not None:
                self._signal_group(final)
            try:
                process.wait(grace)
            except Exception:  # subprocess.TimeoutExpired, without importing subprocess here
                continue
            if final is None:
                self._signal_group(False)  # the server is gone; children it left behind are not
            return

    def _signal_group(self, kill):
        import signal

        try:
            if os.name == "nt":
                ctrl_break = getattr(signal, "CTRL_BREAK_EVENT", None)
                if kill or ctrl_break is None:
                    self.process.kill() if kill else self.process.terminate()
                else:
                    self.process.send_signal(ctrl_break)  # reaches the whole new process group
            else:
                os.killpg(self.process.pid, signal.SIGKILL if kill else signal.SIGTERM)
        except (OSError, ValueError):
            pass
        except SystemError:
            # Windows: when GenerateConsoleCtrlEvent fails (no console shared with the server: a
            # detached keeper; curses under Wine), CPython's os.kill falls back to TerminateProcess
            # and then raises SystemError with the first error set. The server is ended.
            pass


class Watchdog:
    """Absolute deadlines for HTTP exchanges. A socket timeout restarts with every byte, so
    a server that drips one byte a second could hold an exchange forever; when a deadline
    here passes, the connection's socket is shut down and the reader sees the end."""

    def __init__(self):
        self._due = {}  # connection -> monotonic deadline
        self._wake = threading.Condition()
        self._thread = None

    def arm(self, conn, deadline, seconds):
        conn.mcp_expired, conn.mcp_budget = False, seconds
        with self._wake:
            self._due[conn] = deadline
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True)
                self._thread.start()
            self._wake.notify()

    def disarm(self, conn):
        """Stop watching ``conn``; True when its deadline had already passed."""
        with self._wake:
            self._due.pop(conn, None)
        return getattr(conn, "mcp_expired", False)

    def _run(self):
        with self._wake:
            while self._due or self._wake.wait(5.0) and self._due:  # idle for 5 s: the thread ends
                now = time.monotonic()
                for conn, deadline in list(self._due.items()):
                    if deadline <= now:
                        del self._due[conn]
                        conn.mcp_expired = True
                        shut_down(conn)
                if self._due:
                    self._wake.wait(max(0.01, min(self._due.values()) - now))
            self._thread = None


def shut_down(conn):
    """Unblock whoever reads this connection, from another thread: shutdown() wakes that
    reader at once, where close() alone would wait until the server spoke or timed out.
    A response that ends with its connection (a stream without keep-alive) has taken the
    socket: http.client set conn.sock to None, so it is reached through the response."""
    sock = getattr(conn, "sock", None)
    if sock is not None:
        try:
            sock.shutdown(2)
        except OSError:
            pass
        return
    response = getattr(conn, "mcp_response", None)
    if response is None:
        return
    import _socket

    try:
        sock = _socket.socket(fileno=_socket.dup(response.fileno()))  # a second handle on the same connection
    except (OSError, ValueError, AttributeError):  # the response is closed (its fp None): nobody reads it
        return
    try:
        sock.shutdown(2)
    except OSError:
        pass
    finally:
        sock.close()


def dropped(conn):
    """Whether the server closed a kept-alive connection while it sat idle: its socket reads
    (the end, or bytes nobody asked for). Found before a request is written, a fresh
    connection takes the request and nothing went out twice."""
    import select

    sock = getattr(conn, "sock", None)
    if sock is None:
        return True
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


# Requests that change what the server holds: sent at most once, even when the connection
# failed while they were being written (HttpClient._send).
NEVER_RESENT = ("tools/call", "tasks/cancel", "tasks/update")


class NetworkOptions:
    """How HTTP requests reach a server: TLS verification (--insecure, --ca-file) and the
    proxy. One per run, shared by the MCP connection and the OAuth requests, so the TLS
    context is made once. The proxy is --proxy URL ("" for none), else the environment as
    curl reads it: http_proxy (lower case only, as curl: a CGI request can set HTTP_PROXY),
    https_proxy, all_proxy (either case), and no_proxy's hosts, domains and addresses."""

    def __init__(self, insecure=False, ca_file=None, proxy=None, environ=None):
        self.insecure = insecure
        self.ca_file = ca_file
        self.proxy = proxy
        self.environ = os.environ if environ is None else environ
        self._tls_context = None
        self._lock = threading.Lock()

    @classmethod
    def from_options(cls, opts):
        return cls(opts.insecure, opts.ca_file, getattr(opts, "proxy", None))

    def tls_context(self):
        with self._lock:
            if self._tls_context is None:
                self._tls_context = make_tls_context(self.insecure, self.ca_file)
            return self._tls_context

    def proxy_for(self, parts):
        """The proxy URL for a request to ``parts`` (a urlsplit result), or None: straight there."""
        if self.proxy is not None:
            return self.proxy or None
        names = ["http_proxy"] if parts.scheme == "http" else ["https_proxy", "HTTPS_PROXY"]
        for name in names + ["all_proxy", "ALL_PROXY"]:
            value = self.environ.get(name, "").strip()
            if value:
                break
        else:
            return None
        no_proxy = self.environ.get("no_proxy") or self.environ.get("NO_PROXY") or ""
        return None if bypasses_proxy(parts.hostname, no_proxy) else value


def bypasses_proxy(host, no_proxy):
    """Whether ``host`` is in a no_proxy list: ``*``, a host or its domain (``.example.com``
    or ``example.com`` covers ``api.example.com``), or an address or network (10.0.0.0/8)."""
    host = host.lower().rstrip(".")
    for entry in re.split(r"[\s,]+", no_proxy.lower()):
        if entry.startswith("["):  # [::1] or [::1]:8080
            entry = entry[1:].partition("]")[0]
        elif entry.count(":") == 1:  # host:8080; curl ignores the port
            entry = entry.partition(":")[0]
        entry = entry.rstrip(".")
        if not entry:
            continue
        if entry == "*" or host == entry.lstrip(".") or host.endswith("." + entry.lstrip(".")):
            return True
        if "/" in entry:
            import ipaddress

            try:
                if ipaddress.ip_address(host) in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                pass
    return False


def is_loopback_host(host):
    """Whether a URL's host (urlsplit's hostname) is this machine: an address in 127.0.0.0/8,
    ::1 (IPv4-mapped ::ffff:127.x too) or the name localhost. Decided from the parsed
    address, never a prefix: 127.0.0.1.evil.example is a name anyone can point anywhere,
    and plain HTTP to it would carry OAuth codes and secrets off this machine. The one
    place that decides what may go over plain HTTP."""
    import ipaddress

    host = (host or "").lower().strip("[]")
    if (host[:-1] if host.endswith(".") else host) == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.partition("%")[0])  # fe80::1%eth0: Python 3.8 reads no zone
    except ValueError:
        return False
    return (getattr(address, "ipv4_mapped", None) or address).is_loopback


def proxy_url(proxy):
    """A proxy as given (``host:port`` means http://) as a URL."""
    return proxy if "://" in proxy else "http://" + proxy


def proxy_endpoint(proxy, credentials=None):
    """(host, port, Proxy-Authorization headers) of an http:// proxy; its user and password
    are run secrets, in the URL's percent-encoded form and as sent."""
    from urllib.parse import unquote, urlsplit

    url = proxy_url(proxy)
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise UsageError("cannot use the proxy %s: mcp-tui speaks to http:// proxies only" % masked_url(url),
                         hint="give it as http://HOST:PORT (the proxy tunnels https:// requests with CONNECT)")
    try:
        port = parts.port or 1080  # curl's default
    except ValueError:
        raise UsageError("cannot use the proxy %s: its port is not a number" % masked_url(url))
    headers = {}
    if parts.username is not None:
        import base64

        user, password = unquote(parts.username), unquote(parts.password or "")
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(
            ("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")
        if credentials is not None:
            register_url_secrets(url, credentials)
            for secret in (password, headers["Proxy-Authorization"]):
                credentials.add(secret)
    return parts.hostname, port, headers


def split_http_url(url):
    """urlsplit, with a URL it cannot read ("Invalid IPv6 URL") or a port that is out of range
    or not a number as a usage error (the URL not shown: it may hold secrets), not a crash."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # raises for a bad port here, not at the first request
    except ValueError as exc:
        raise UsageError("cannot use the URL: %s" % exc)
    return parts


HTTP_TOKEN = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"  # a header name (RFC 9110 token)


def check_header(name, value):
    """A header http.client can send: a token for a name, a Latin-1 value (the value is
    never shown: it may be a credential). Else a usage error, before anything is sent."""
    if not re.match(HTTP_TOKEN, name):
        raise UsageError("the header name %r is not an HTTP token (ASCII letters, digits and !#$%%&'*+-.^_`|~)"
                         % name)  # %r: a control character shows as an escape
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise UsageError("the value of header %r has a character HTTP headers cannot carry (they are Latin-1)"
                         % name, hint="percent-encode or Base64 it, as the server expects")


class HttpClient:
    """HTTP/1.1 requests over http.client with a small pool of kept-alive connections.
    Headers from --header and --bearer go on every request, streams included, and are
    registered as secrets. Bodies are bounded by ``max_message``; an exchange given a
    deadline ends there however slowly the server sends (``deadline`` bounds them all)."""

    def __init__(self, url, headers=None, timeout=60.0, network=None, log=None, max_message=DEFAULT_MAX_MESSAGE,
                 deadline=None):
        self.url = url
        parts = split_http_url(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError("not an http(s) URL: %r" % masked_url(url))
        self.parts = parts
        self.base_headers = dict(headers or {})
        for name, value in self.base_headers.items():
            check_header(name, value)
        if log is not None:
            register_header_secrets(self.base_headers, log.credentials)
            register_url_secrets(url, log.credentials)
        self.display_url = masked_url(url)
        self.timeout = timeout
        self.max_message = max_message
        self.deadline = deadline
        self.network = network or NetworkOptions()
        self.log = log
        self.watchdog = Watchdog()
        self.auth = None  # an Authorizer (section 5) when the server may ask for OAuth
        self._idle = []
        self._lock = threading.Lock()

    def _connect(self, parts):
        """A connection for ``parts``: to the server, or to the proxy, which tunnels an https://
        one (CONNECT) and takes a plain one's requests with absolute URLs (``mcp_via``)."""
        http_client = import_http_client(tls=parts.scheme == "https")
        proxy = self.network.proxy_for(parts)
        host, port, proxy_headers = parts.hostname, parts.port, {}
        if proxy is not None:
            host, port, proxy_headers = proxy_endpoint(proxy, self.log.credentials if self.log else None)
            if self.log:
                self.log.event("http", "to %s://%s through the proxy %s" % (
                    parts.scheme, parts.netloc.rpartition("@")[2], masked_url(proxy_url(proxy))))
        if parts.scheme == "https":
            conn = https_connection(http_client)(host, port, timeout=self.timeout, context=self.network.tls_context())
            if proxy is not None:
                conn.set_tunnel(parts.hostname, parts.port or 443, headers=proxy_headers)
        else:
            conn = http_client.HTTPConnection(host, port, timeout=self.timeout)
            if proxy is not None:
                conn.mcp_via = ("http://" + parts.netloc.rpartition("@")[2], proxy_headers)
        conn.mcp_proxy = proxy
        return conn

    def preview(self, message, headers, url=None):
        """--dry-run: the POST that ``open`` would send, with the headers it adds (-H, --bearer,
        a stored OAuth token); http.client's own (Host, Content-Length) are left out."""
        all_headers = dict(self.base_headers)
        all_headers.update(headers)
        credential = self.auth.authorization() if self.auth is not None else None
        if credential:
            all_headers["Authorization"] = credential
        return {"transport": None, "request": "POST %s" % masked_url(url or self.url), "headers": all_headers,
                "message": message}

    def deadline_in(self, seconds):
        """An absolute deadline ``seconds`` from now, never past the whole command's."""
        deadline = time.monotonic() + seconds
        return min(deadline, self.deadline) if self.deadline is not None else deadline

    def timed_out(self, method, conn):
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return RequestTimeout("HTTP %s %s: the --max-time limit was reached" % (method, self.display_url))
        return RequestTimeout("HTTP %s %s: no complete answer within %gs" % (
            method, self.display_url, getattr(conn, "mcp_budget", self.timeout)),
            hint="the server is sending too slowly; raise --timeout if it needs longer")

    def open(self, method, url=None, body=None, headers=None, seconds=None, stream=False, carries=None,
             resendable=True, on_connection=None):
        """Send one request; return (connection, response). With ``seconds``, the exchange has
        that long (all of it, or with ``stream`` until the headers); without, whoever waits for
        it (the RpcChannel) ends it: ``on_connection`` gets the connection before the request is
        written, so that a timeout or a cancel can close it while the headers are awaited. The
        caller reads the response with ``read``, or reads a stream and then calls ``release``
        (keep-alive) or closes the connection. ``carries`` names the JSON-RPC message(s) in it,
        for the trace; ``resendable`` False (a tools/call, a task's change) is never sent twice."""
        from urllib.parse import urlsplit

        parts = urlsplit(url) if url else self.parts
        same_origin = (parts.scheme, parts.netloc) == (self.parts.scheme, self.parts.netloc)
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        all_headers = dict(self.base_headers)
        all_headers.update(headers or {})
        auth = self.auth if same_origin else None  # a token goes to its own origin only
        attempt = {"started": time.monotonic()}  # what the authorizer has tried for this request, and since when
        while True:
            credential = auth.authorization() if auth is not None else None
            if credential:
                all_headers["Authorization"] = credential
            conn, response = self._send(method, url, parts, path, body, all_headers, same_origin, seconds, stream,
                                        carries, resendable, on_connection)
            conn.mcp_response = response  # shut_down reaches the socket through it once the response owns it
            if auth is None or response.status not in (401, 403):
                return conn, response
            try:
                retry = auth.challenged(response.status, response.msg.get_all("WWW-Authenticate") or [],
                                        credential, attempt)
            except BaseException:
                self.discard(conn)
                raise
            if not retry:
                return conn, response
            self.read(method, conn, response)  # drained, so the connection can be reused

    def _send(self, method, url, parts, path, body, all_headers, same_origin, seconds, stream, carries, resendable,
              on_connection):
        """One attempt on the wire, bounded by ``seconds`` or the command's deadline. At most
        once: a request goes again on a fresh connection only when it provably never left (a
        kept-alive connection failed while it was being written: the server had closed it),
        never once it was written (the server may be running it; a timeout or a cancel closes
        the connection while the answer is awaited), and never when it is not ``resendable``."""
        deadline = self.deadline_in(seconds) if seconds is not None else self.deadline
        waited_for = seconds is None and on_connection is not None  # a timeout or cancel of its waiter closes it
        conn = None
        if same_origin:
            with self._lock:
                conn = self._idle.pop() if self._idle else None
        if conn is not None and dropped(conn):
            conn.close()  # the server closed it while it was idle: nothing was sent on it
            conn = None
        for attempt in (0, 1):
            fresh = conn is None
            started = time.monotonic()
            written = False
            try:
                if fresh:
                    conn = self._connect(parts)
                if on_connection is not None:
                    on_connection(conn)
                if deadline is not None:
                    if deadline <= started:
                        raise self.timed_out(method, conn)
                    self.watchdog.arm(conn, deadline, seconds if seconds is not None else deadline - started)
                if fresh:
                    conn.connect()  # the TLS handshake included: the watchdog bounds it too
                connected = time.monotonic()
                via = getattr(conn, "mcp_via", None)  # a plain http:// request through a proxy
                if via is None:
                    conn.request(method, path, body=body, headers=all_headers)
                else:
                    conn.request(method, via[0] + path, body=body, headers=dict(all_headers, **via[1]))
                written = True
                sock = conn.sock
                if waited_for:  # no socket timeout: mid-wait it would end a request its waiter still waits for
                    sock.settimeout(None)
                response = conn.getresponse()
                if waited_for:
                    sock.settimeout(self.timeout)
            except (ConnectionError, OSError, ValueError) + http_errors() as exc:
                proxy = getattr(conn, "mcp_proxy", None)
                if conn is not None:
                    expired = self.watchdog.disarm(conn)
                    closed_here = getattr(conn, "mcp_aborted", False)
                    conn.close()
                    if expired:
                        raise self.timed_out(method, conn)
                    if closed_here:
                        raise RequestCancelled("HTTP %s %s: ended before the server answered" % (
                            method, self.display_url))
                conn = None
                if written:
                    raise ConnectionFailed("the connection to %s broke before the server answered: %s" % (
                        self.display_url, describe_os_error(exc)),
                        hint="the server may have received the request; mcp-tui does not send it twice")
                if fresh or attempt or not resendable:
                    raise unreachable(self.display_url, proxy, exc)
                continue
            if response.status == 407 and getattr(conn, "mcp_via", None):
                self.discard(conn)
                raise unreachable(self.display_url, conn.mcp_proxy, OSError("407 Proxy Authentication Required"))
            if stream and self.watchdog.disarm(conn):
                conn.close()
                raise self.timed_out(method, conn)
            if self.log:
                self.log.http_exchange(method, url or self.url, all_headers, len(body or b""), response,
                                       (connected - started) * 1000 if fresh else None,
                                       (time.monotonic() - started) * 1000, carries)
            return conn, response

    def read(self, method, conn, response):
        """The response body, bounded in size (and in time when the exchange has a deadline);
        the connection goes back to the pool."""
        try:
            payload = read_body(response, self.max_message)
        except MessageTooLarge:
            self.discard(conn)
            raise
        except (McpTuiError, OSError, ValueError) + http_errors() as exc:
            expired = self.watchdog.disarm(conn)
            conn.close()
            if expired:
                raise self.timed_out(method, conn)
            if isinstance(exc, McpTuiError):
                raise
            raise ConnectionFailed("the connection broke: %s" % describe_os_error(exc))
        if self.watchdog.disarm(conn):
            conn.close()
            raise self.timed_out(method, conn)
        self.release(conn, response)
        return payload

    def exchange(self, method, url=None, body=None, headers=None, seconds=None, carries=None, resendable=True):
        """One whole request and its body within ``seconds`` (--timeout unless told):
        (response, payload)."""
        seconds = self.timeout if seconds is None else seconds
        conn, response = self.open(method, url, body, headers, seconds, carries=carries, resendable=resendable)
        return response, self.read(method, conn, response)

    def discard(self, conn):
        self.watchdog.disarm(conn)
        conn.close()

    def release(self, conn, response):
        self.watchdog.disarm(conn)
        if response.will_close or (response.fp is not None and not response.isclosed()):
            conn.close()
            return
        with self._lock:
            if len(self._idle) < 4:
                self._idle.append(conn)
                return
        conn.close()

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


def unreachable(url, proxy, exc):
    """The ConnectionFailed for a request that got no answer, naming the proxy it went through."""
    if proxy is None:
        return ConnectionFailed("cannot reach %s: %s" % (url, describe_os_error(exc)))
    shown = masked_url(proxy_url(proxy))
    reason = describe_os_error(exc)
    if reason.startswith("Tunnel connection failed: "):  # http.client's words for a refused CONNECT
        reason = "the proxy refused: " + reason[len("Tunnel connection failed: "):]
    hint = None
    if "407" in reason:
        hint = "the proxy wants credentials: give them in its URL, http://USER:PASSWORD@HOST:PORT"
    elif isinstance(exc, ConnectionRefusedError) or "socket" in sys.modules and isinstance(
            exc, sys.modules["socket"].gaierror):
        hint = ("the proxy comes from --proxy or from https_proxy, http_proxy or all_proxy; --proxy '' goes "
                "without one, no_proxy lists the hosts that do")
    return ConnectionFailed("cannot reach %s through the proxy %s: %s" % (url, shown, reason), hint=hint)


def http_errors():
    """http.client's own exceptions (a malformed status line, a cut chunk) as a tuple."""
    http_client = sys.modules.get("http.client")
    return (http_client.HTTPException,) if http_client else ()


def import_http_client(tls):
    """For http://, http.client without ssl: http.client imports ssl only to define
    HTTPSConnection, and ssl costs 3-6 ms that a plain http:// call never uses."""
    blocked = not tls and "http.client" not in sys.modules and "ssl" not in sys.modules
    if tls:
        __import__("ssl")  # first, so that http.client defines HTTPSConnection
    if blocked:
        sys.modules["ssl"] = None  # http.client's `import ssl` fails at once
    try:
        import http.client
    finally:
        if blocked:
            del sys.modules["ssl"]
    return http.client


def https_connection(http_client):
    """http.client.HTTPSConnection; or, when http.client was imported without ssl (an http://
    connection came first in this process), the same thing built here."""
    if hasattr(http_client, "HTTPSConnection"):
        return http_client.HTTPSConnection

    class HTTPSConnection(http_client.HTTPConnection):
        default_port = 443

        def __init__(self, host, port=None, context=None, **kwargs):
            super().__init__(host, port, **kwargs)
            self._context = context

        def connect(self):
            super().connect()
            self.sock = self._context.wrap_socket(self.sock, server_hostname=self._tunnel_host or self.host)

    return HTTPSConnection


def make_tls_context(insecure=False, ca_file=None):
    """Verified TLS by default; certifi only where the system has no CA bundle."""
    import ssl

    if insecure:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    context = ssl.create_default_context(cafile=ca_file)
    if not ca_file and not context.get_ca_certs():
        paths = ssl.get_default_verify_paths()
        if not (paths.cafile and os.path.exists(paths.cafile)) and not (paths.capath and os.path.isdir(paths.capath)):
            try:
                import certifi  # optional platform shim

                context.load_verify_locations(certifi.where())
            except ImportError:
                pass
    return context


def describe_os_error(exc):
    if "ssl" in sys.modules and isinstance(exc, sys.modules["ssl"].SSLCertVerificationError):
        return "TLS certificate verification failed (%s); use --ca-file FILE, or --insecure to skip the check" % (
            exc.verify_message or exc)
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if "ssl" in sys.modules and isinstance(exc, sys.modules["ssl"].SSLError) and getattr(exc, "reason", None) in (
            "WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG"):  # not "[SSL: ...]"
        return "the server answered in plain HTTP, not TLS: try the URL with http://"
    if "socket" in sys.modules and isinstance(exc, sys.modules["socket"].gaierror):  # not "[Errno -2] ..."
        return "the host name does not resolve (%s)" % (exc.strerror or exc)
    http_client = sys.modules.get("http.client")
    if http_client and isinstance(exc, http_client.IncompleteRead):  # its str is "IncompleteRead(0 bytes read)"
        return "the server closed the connection in the middle of a response"
    return str(exc) or exc.__class__.__name__


def response_headers(response):
    return {name.lower(): value for name, value in response.getheaders()}


GET_STREAM_WAIT = 2.0  # seconds a command waits for a 2025-11-25 server to answer its GET stream
EVENT_IDS_KEPT = 1024  # SSE event ids remembered per transport, to drop events a server replays twice


class StreamableHttpTransport(Transport):
    """Streamable HTTP (2025-03-26 and later, and 2026-07-28): every message is its own
    POST; the answer is JSON or an SSE stream. In the legacy era it also keeps the
    session id, holds the GET stream for server messages, resumes broken streams with
    Last-Event-ID, and ends the session with DELETE."""

    name = "streamable-http"
    carries_mcp_headers = True

    def __init__(self, http, log=None):
        self.http = http
        self.log = log
        self.session_id = None
        self.version_header = None  # legacy era: the negotiated version, named on every later request
        self.legacy_stream = False  # legacy era: resume streams, hold a GET stream
        self.keep_session = False  # a later run resumes this session: no DELETE at close
        self._channel = None
        self._open = {}  # request id -> live connection, so a timeout can abort it
        self._lock = threading.Lock()
        self._get_running = False
        self._get_sessions = set()  # the session ids a GET stream was opened for
        self._get_moved = threading.Event()  # a new session wants the GET stream: no retry wait
        self._get_answered = threading.Event()  # the server has answered this session's GET (or refused it)
        self._closing = False
        self.stream_lost = None  # why the GET stream could not be opened again after a cut
        import collections

        self._delivered_ids = collections.OrderedDict()  # (session id, event id) of the latest events

    def start(self, channel):
        self._channel = channel

    def _headers(self, extra, accept="application/json, text/event-stream"):
        headers = {"Accept": accept}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.version_header:
            headers["MCP-Protocol-Version"] = self.version_header
        headers.update(extra or {})
        return headers

    def legacy_session(self, version, session_id=None):
        """After initialize (or when resuming a recorded session): resume cut streams and
        send the session id and the negotiated version on every request."""
        self.legacy_stream = True
        self.version_header = version
        if session_id is not None:
            self.session_id = session_id

    def preview(self, message, headers=None):
        headers = self._headers(headers)
        headers["Content-Type"] = "application/json"
        return dict(self.http.preview(message, headers), transport=self.name)

    def send(self, message, headers=None):
        headers = self._headers(headers)
        headers["Content-Type"] = "application/json"
        body = encode_message(message)
        if "method" in message and "id" in message:
            adopt_session = message["method"] == "initialize"  # a discover probe's session id is no session
            threading.Thread(target=self._exchange, args=(message["id"], body, headers, adopt_session,
                                                          message["method"]), daemon=True).start()
            return
        response, payload = self.http.exchange("POST", body=body, headers=headers, carries=rpc_label(message))
        if response.status >= 400:
            raise HttpStatusError(response.status, response.reason, payload, response_headers(response),
                                  self.session_id)

    def abort(self, request_id):
        """Closing the response stream is how HTTP cancels (2026-07-28)."""
        with self._lock:
            conn = self._open.pop(request_id, None)
        if conn is not None:
            conn.mcp_aborted = True  # whatever the close breaks is not sent again
            shut_down(conn)
            self.http.discard(conn)

    def _exchange(self, request_id, body, headers, adopt_session, method, retried=False):
        started = time.monotonic()

        def in_flight(conn):  # from before the request is written: a timeout or cancel can close it
            with self._lock:
                self._open[request_id] = conn

        if not self._channel.waiting_for(request_id):
            return  # timed out or cancelled already (while a Retry-After was waited out)
        try:
            conn, response = self.http.open("POST", body=body, headers=headers, carries=method,
                                            resendable=method not in NEVER_RESENT, on_connection=in_flight)
        except McpTuiError as exc:
            self._channel.fail(request_id, exc)
            return
        except Exception as exc:  # a bug of ours: the waiting command says so at once, not after --timeout
            self._channel.fail(request_id, McpTuiError("internal error: %s: %s" % (exc.__class__.__name__, exc)))
            return
        try:
            self._read_response(request_id, conn, response, adopt_session)
        except HttpStatusError as exc:
            delay = exc.retry_after
            if retried or delay is None or time.monotonic() + delay >= self.http.deadline_in(
                    self.http.timeout - (time.monotonic() - started)):
                self._channel.fail(request_id, exc)
                return
            if self.log:
                self.log.event("transport", "HTTP %d with Retry-After: trying once more in %gs" % (exc.status, delay))
            time.sleep(delay)
            if self._channel.waiting_for(request_id):
                self._exchange(request_id, body, headers, adopt_session, method, retried=True)
        except McpTuiError as exc:
            self._channel.fail(request_id, exc)
        except Exception as exc:  # http.client raises odd types when a stream is cut mid-read
            if not self._closing:
                self._channel.fail(request_id, ConnectionFailed("the connection broke: %s" % describe_os_error(exc)))
        finally:
            with self._lock:
                self._open.pop(request_id, None)

    def _read_response(self, request_id, conn, response, adopt_session=False):
        headers = response_headers(response)
        session_id = headers.get("mcp-session-id")
        if adopt_session and session_id and session_id != self.session_id:
            if not all("\x21" <= c <= "\x7e" for c in session_id):  # the spec's visible ASCII, sent back in a header
                raise ProtocolViolation("the server sent a session id (Mcp-Session-Id) with characters outside "
                                        "visible ASCII (0x21-0x7E); mcp-tui will not send it back")
            self.session_id = session_id
            if self.log:
                self.log.event("transport", "session id minted", session=self.log.mask(session_id, "session"))
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type == "text/event-stream" and response.status < 300:
            try:
                self._read_stream(request_id, response)
            except Exception:
                if self.http.watchdog.disarm(conn):
                    return  # the command's deadline shut the stream: its waiter's cap (never later) says so
                raise
            finally:
                self.http.discard(conn)
            return
        payload = self.http.read("POST", conn, response)
        if response.status == 202:
            return  # the answer comes on another stream
        if 300 <= response.status < 400:
            raise ConnectionFailed("the server redirected %s to %s (HTTP %d); mcp-tui does not follow redirects" % (
                self.http.url, headers.get("location", "(no Location)"), response.status),
                hint="if you trust it, pass that URL with --url")
        if response.status in (401, 403) or (response.status == 404 and self.legacy_stream and self.session_id):
            # 404 to a session id: the session is gone (2025-11-25), whatever error the body holds (the Python
            # SDK's is -32600 "Session not found"); the status is what says to start a new one
            raise HttpStatusError(response.status, response.reason, payload, headers, self.session_id)
        messages = None
        if payload.strip() and content_type in ("application/json", ""):
            try:
                messages = decode_messages(payload)
            except ProtocolViolation:
                if response.status < 300:
                    raise
        if response.status >= 400 and not any(isinstance(m.get("error"), dict) for m in messages or ()):
            raise HttpStatusError(response.status, response.reason, payload, headers, self.session_id)
        if messages is None:
            raise ProtocolViolation("HTTP %d with content type %r and no JSON-RPC message" % (
                response.status, content_type or "(none)"))
        del payload  # parsed: the raw body is not kept while the result is used
        for message in messages:
            if "error" in message and message.get("id") is None:
                message = dict(message, id=request_id)  # an error for the request that got it
            message.setdefault("_http_status", response.status)
            self._channel.deliver(message)

    def _replayed(self, event):
        """Whether this event was delivered already. Event ids are unique across a session's
        streams, and a server may replay other streams' events on a resumed GET stream (the
        reference TypeScript server does): progress, requests and answers would come twice."""
        if not event.id:
            return False
        key = (self.session_id, event.id)
        with self._lock:
            if key in self._delivered_ids:
                return True
            self._delivered_ids[key] = True
            if len(self._delivered_ids) > EVENT_IDS_KEPT:
                self._delivered_ids.popitem(last=False)
        return False

    def _read_stream(self, request_id, response, decoder=None):
        """Read an SSE stream; in the legacy era, resume it after a server-side close."""
        decoder = decoder or SseDecoder(self.http.max_message)
        answered = False
        for event in iter_sse(response, decoder):
            if self.log:
                self.log.sse_event(event)
            if not event.data or event.data.isspace() or self._replayed(event):
                continue  # the priming event, a keep-alive, or one the server sent before
            messages, event = decode_messages(event.data), None  # the event's text is not kept
            for message in messages:
                if same_id(message.get("id"), request_id) and ("result" in message or "error" in message):
                    answered = True
                self._channel.deliver(message)
            if answered:
                break  # a resumed stream may stay open after the answer; nothing more is ours
        if answered or request_id is None or self._closing:
            return
        if self.legacy_stream and decoder.last_event_id is not None:
            self._resume(request_id, decoder)
            return
        raise StreamCut("the server closed the response stream before answering")

    def _resume(self, request_id, decoder):
        time.sleep((decoder.retry_ms if decoder.retry_ms is not None else 1000) / 1000.0)
        if self.log:
            self.log.event("transport", "resuming SSE stream", last_event_id=decoder.last_event_id)
        headers = self._headers({"Last-Event-ID": decoder.last_event_id}, accept="text/event-stream")
        conn, response = self.http.open("GET", headers=headers, seconds=self.http.timeout, stream=True,
                                        carries="(resuming the stream)")
        with self._lock:
            self._open[request_id] = conn
        if response.status != 200:
            payload = self.http.read("GET", conn, response)
            raise HttpStatusError(response.status, response.reason, payload, response_headers(response),
                                  self.session_id)
        try:
            self._read_stream(request_id, response, decoder)
        finally:
            self.http.discard(conn)

    def open_get_stream(self):
        """The legacy GET stream for server requests and notifications, once per session
        (405 is normal). Returns once the server has answered the GET (at most
        GET_STREAM_WAIT): a server drops a request it sends while no GET stream is open,
        so the command's next request must not overtake the stream."""
        with self._lock:
            if self.session_id in self._get_sessions:
                return
            self.stream_lost = None  # a new session: the old one's lost stream is no loss of this one
            self._get_answered.clear()
            if self._get_running:  # still on a session the server forgot: move to this one now
                self._get_moved.set()
                stale = self._open.pop("__get__", None)
            else:
                self._get_running, stale = True, None
                threading.Thread(target=self._get_stream, daemon=True).start()
        if stale is not None:
            shut_down(stale)
        if not self._get_answered.wait(min(GET_STREAM_WAIT, self.http.timeout)) and self.log:
            self.log.event("transport", "no answer to the GET stream within %g s; going on without waiting"
                           % GET_STREAM_WAIT)

    def _get_stream(self):
        while True:
            with self._lock:
                session_id = self.session_id
                self._get_sessions.add(session_id)
                self._get_moved.clear()
            self._hold_get_stream(session_id)
            with self._lock:  # one step with open_get_stream's check: one GET stream, and none missed
                if self._closing or self.session_id in self._get_sessions:
                    self._get_running = False
                    return
            # A new session began meanwhile (the server had forgotten ours): hold its stream too.

    def _hold_get_stream(self, session_id):
        """Hold the GET stream of ``session_id``. The server may end it at any time: it is
        resumed from its last event id, or opened afresh when it had none. A stream that
        cannot be opened again (no answer, or 404: the session is gone) goes to
        ``stream_lost``. Returns when a new session begins (_get_stream opens its stream)."""
        decoder = SseDecoder(self.http.max_message)
        opened = False
        idle_ends = 0  # streams in a row that ended with no message in them
        while not self._closing:
            headers = self._headers({}, accept="text/event-stream")
            if decoder.last_event_id is not None:
                headers["Last-Event-ID"] = decoder.last_event_id
            try:
                conn, response = self.http.open("GET", headers=headers, seconds=self.http.timeout, stream=True,
                                                carries="(server stream)")
            except McpTuiError as exc:
                self._get_answered.set()
                if not self._closing and opened:
                    self.stream_lost = exc  # the stream ended and the server is gone
                return
            self._get_answered.set()
            if response.status != 200:
                try:
                    payload = self.http.read("GET", conn, response)
                except McpTuiError:
                    payload = b""
                if self.log:
                    self.log.event("transport", "no GET stream (HTTP %d)" % response.status)
                if opened and response.status == 404 and not self._closing:
                    self.stream_lost = HttpStatusError(response.status, response.reason, payload,
                                                       response_headers(response), self.session_id)
                return
            opened = True
            with self._lock:
                self._open["__get__"] = conn
            if self.log:
                self.log.event("transport", "GET stream opened")
            delivered = False
            try:
                for event in iter_sse(response, decoder):
                    if event.data.strip() and not self._replayed(event):
                        for message in decode_messages(event.data):
                            delivered = True
                            self._channel.deliver(message)
            except Exception:  # a cut stream is resumed below, or the session is closing
                pass
            conn.close()
            if self._closing:
                return
            idle_ends = 0 if delivered else idle_ends + 1
            # The server's retry is obeyed to the letter; without one, back off from 1 s to 32 s
            # while its streams keep ending empty.
            pause = decoder.retry_ms / 1000.0 if decoder.retry_ms is not None else 2.0 ** min(idle_ends, 5)
            if self.log:
                self.log.event("transport", "the server ended the GET stream; %s in %.1f s" % (
                    "resuming it" if decoder.last_event_id is not None else "opening a new one", pause))
            self._get_moved.wait(pause)
            if self.session_id != session_id:
                return

    def close(self):
        self._closing = True
        with self._lock:
            conns, self._open = list(self._open.values()), {}
        for conn in conns:
            shut_down(conn)
            self.http.discard(conn)
        self.http.close()
        if self.session_id and not self.keep_session:
            try:
                self.http.exchange("DELETE", headers=self._headers({}), seconds=DELETE_TIMEOUT,
                                   carries="(end of session)")
            except (McpTuiError, OSError):
                pass
            self.http.close()


class LegacySseTransport(Transport):
    """The 2024-11-05 HTTP+SSE transport: a GET stream whose first event names the POST
    endpoint; every answer arrives on that stream."""

    name = "sse"

    def __init__(self, http, log=None, connect_timeout=10.0):
        self.http = http
        self.log = log
        self.connect_timeout = connect_timeout
        self.endpoint = None
        self._ready = threading.Event()
        self._error = None
        self._conn = None
        self._channel = None

    def start(self, channel):
        self._channel = channel
        conn, response = self.http.open("GET", headers={"Accept": "text/event-stream"}, seconds=self.connect_timeout,
                                        stream=True, carries="(server stream)")
        content_type = response.getheader("content-type", "").split(";")[0].strip().lower()
        if response.status != 200 or content_type != "text/event-stream":
            payload = self.http.read("GET", conn, response)
            if response.status == 200:
                raise ConnectionFailed("GET %s answered %s, not an event stream: not an HTTP+SSE server" % (
                    self.http.url, content_type or "no content type"))
            raise HttpStatusError(response.status, response.reason, payload, response_headers(response))
        self._conn = conn
        threading.Thread(target=self._read, args=(response,), daemon=True).start()
        if not self._ready.wait(self.connect_timeout):
            raise RequestTimeout("the SSE stream sent no endpoint event within %s" % seconds_text(
                self.connect_timeout))
        if self._error:
            raise self._error

    def _read(self, response):
        from urllib.parse import urljoin, urlsplit

        error = ConnectionFailed("the server closed the SSE stream")
        try:
            for event in iter_sse(response, SseDecoder(self.http.max_message)):
                if event.event == "endpoint" and self.endpoint is None:
                    endpoint = urljoin(self.http.url, event.data.strip())
                    a, b = urlsplit(endpoint), self.http.parts
                    if (a.scheme, a.netloc) != (b.scheme, b.netloc):
                        self._error = ProtocolViolation("the server named a cross-origin endpoint: %s" % endpoint)
                    self.endpoint = endpoint
                    self._ready.set()
                elif event.data.strip():
                    for message in decode_messages(event.data):
                        self._channel.deliver(message)
        except McpTuiError as exc:  # an oversized or invalid message: say so
            error = exc
        except Exception:  # a cut stream ends the session either way
            pass
        if self.endpoint is None:
            self._error = self._error or error
        self._ready.set()
        self._channel.closed(error)

    def preview(self, message, headers=None):
        headers = dict(headers or {}, **{"Content-Type": "application/json"})
        return dict(self.http.preview(message, headers, self.endpoint), transport=self.name)

    def send(self, message, headers=None):
        if self._error or not self.endpoint:
            raise self._error or ConnectionFailed("the SSE stream is closed")
        headers = dict(headers or {}, **{"Content-Type": "application/json"})
        response, payload = self.http.exchange("POST", url=self.endpoint, body=encode_message(message), headers=headers,
                                            carries=rpc_label(message),
                                            resendable=message.get("method") not in NEVER_RESENT)
        if response.status >= 400:
            raise HttpStatusError(response.status, response.reason, payload, response_headers(response))

    def abort(self, request_id):
        pass

    def close(self):
        if self._conn is not None:
            shut_down(self._conn)
            self.http.discard(self._conn)
        self.http.close()


KEEPER_HELLO_LIMIT = 4096  # bytes of one line before both ends have proved they know the token


class KeeperTransport(Transport):
    """The command's end of a session that a background keeper holds (section 9): JSON
    lines over a Unix socket in the state directory, or a loopback port. Before anything of
    value is sent, both ends prove they know the session's token (keeper_proof); the keeper
    then answers with what the server said at the handshake and relays messages both ways.
    Its ``name`` is the server's transport, so a request is framed exactly as it is directly."""

    def __init__(self, session_name, record):
        self.session_name = session_name
        self.record = record  # what the keeper wrote: its address, token and process id
        self.token = record["token"]
        self.notice = lambda text: None  # what the keeper tells the user (Session.adopt: the session's notice)
        self.name = None  # the kept session's transport, from the keeper's hello
        self.legacy_stream = False
        self._socket = None
        self._buffer = bytearray()
        self._write_lock = threading.Lock()
        self._replies = None
        self._channel = None

    def preview(self, message, headers=None):
        """--dry-run: the keeper would send it as the session's transport does."""
        return {"transport": self.name, "request": "through session %s" % self.session_name,
                "headers": dict(headers or {}), "message": message}

    def hello(self, op="attach", timeout=10.0, **fields):
        """Connect, prove the token both ways, ask ``op``; return the keeper's first answer.
        KeeperGone when its process has exited or what answers cannot prove it is the keeper:
        nothing of the session's (the token, a request) has gone to it then."""
        import hmac
        import queue

        pid = self.record.get("pid")
        if not process_running(pid):
            raise KeeperGone("session %r is not running: its keeper (process %s) has exited" % (self.session_name,
                                                                                                 pid))
        self._socket = keeper_socket(self.record)
        self._socket.settimeout(timeout)
        try:
            self._socket.connect(keeper_address(self.record))
        except OSError as exc:
            self._socket.close()
            raise KeeperGone("session %r is not running: %s" % (self.session_name, describe_os_error(exc)))
        self._replies = queue.Queue()
        ours = os.urandom(32).hex()
        try:  # a keeper killed a moment ago may still have taken the connection, then reset it
            self._write({"nonce": ours})
        except ConnectionFailed:
            raise KeeperGone("session %r is not running: its keeper closed the connection" % self.session_name)
        reply = self._read_line(KEEPER_HELLO_LIMIT) or {}
        theirs = reply.get("nonce")
        if not (isinstance(theirs, str) and isinstance(reply.get("proof"), str) and reply.get("pid") == pid
                and hmac.compare_digest(reply["proof"], keeper_proof(self.token, "keeper", ours, theirs, pid))):
            raise KeeperGone("session %r is not running: what answers at its keeper's address cannot prove it is "
                             "the keeper" % self.session_name)
        self._write(dict(fields, op=op, proof=keeper_proof(self.token, "command", theirs, ours)))
        reply = self._read_line()
        if reply is None:
            raise KeeperGone("session %r refused the connection (a stale session file?)" % self.session_name)
        self._socket.settimeout(None)
        if "error" in reply:
            raise keeper_error(reply["error"])
        self.name = reply.get("transport", self.name)
        self.legacy_stream = bool(reply.get("legacyStream"))
        kept = {kind.name: kind for kind in (StdioTransport, StreamableHttpTransport, LegacySseTransport)}
        self.carries_mcp_headers = kept.get(self.name, Transport).carries_mcp_headers  # framed as it is directly
        return reply

    def _write(self, value):
        line = keeper_line(value)
        with self._write_lock:
            try:
                self._socket.sendall(line)
            except OSError:
                raise ConnectionFailed("the keeper of session %r went away" % self.session_name)

    def _read_line(self, limit=None):
        try:
            while b"\n" not in self._buffer:
                if limit is not None and len(self._buffer) > limit:
                    return None  # no keeper's line: what answers may not make the command keep it all
                chunk = self._socket.recv(65536)
                if not chunk:
                    return None
                self._buffer += chunk
        except OSError:
            return None
        end = self._buffer.index(b"\n")
        raw, self._buffer = bytes(self._buffer[:end]), self._buffer[end + 1:]
        try:
            value = strict_json(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None
        return value if isinstance(value, dict) else None

    def start(self, channel):
        self._channel = channel
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        ended = "the keeper of session %r went away" % self.session_name  # unless it says why it stops
        while True:
            item = self._read_line()
            if item is None:
                break
            if "message" in item:
                try:
                    self._channel.deliver(item["message"])
                except Exception as exc:  # a message we cannot handle must not end the session
                    self._channel.anomaly("a message mcp-tui could not handle (%s: %s)" % (
                        exc.__class__.__name__, exc))
            elif "fail" in item:
                self._channel.fail(item["fail"], keeper_error(item.get("error") or {}))
            elif "notice" in item:
                self.notice(str(item["notice"]))
            elif "ended" in item:
                ended = "session %r ended: %s" % (self.session_name, item["ended"])
            else:
                self._replies.put(item)
        self._replies.put({"error": {"message": ended}})
        self._channel.closed(ConnectionFailed(ended))

    def send(self, message, headers=None):
        self._write({"message": message, "headers": headers} if headers else {"message": message})

    def abort(self, request_id):
        try:
            self._write({"abort": request_id})
        except ConnectionFailed:
            pass

    def control(self, op, timeout=10.0, **fields):
        """Ask the keeper something about the session itself (held tasks, its name)."""
        import queue

        self._write(dict(fields, op=op))
        try:
            reply = self._replies.get(timeout=timeout)
        except queue.Empty:
            raise RequestTimeout("the keeper of session %r did not answer %s" % (self.session_name, op))
        if "error" in reply:
            raise keeper_error(reply["error"])
        return reply

    def close(self):
        if self._socket is not None:
            try:
                self._socket.shutdown(2)
            except OSError:
                pass
            self._socket.close()


def keeper_line(value):
    """One line between a command and its keeper: ASCII JSON, because a server's string may
    hold a lone surrogate, which UTF-8 cannot carry and a \\u escape can."""
    return json.dumps(value, separators=(",", ":")).encode("ascii") + b"\n"


class KeeperGone(ConnectionFailed):
    """A session whose keeper no longer answers."""


def process_running(pid):
    """Whether ``pid`` is a running process of this user. Another user's process is not
    (a recorded keeper's number may have been reused); Windows cannot ask without killing
    (os.kill), so there the keeper's proof alone decides."""
    if isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0:  # 0 and -1 would name process groups
        return False
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except (OSError, OverflowError):  # gone, or not ours (EPERM)
        return False
    return True


def keeper_address(record):
    """Where a keeper listens: its Unix socket, always in the private state directory (no
    other user can put one there), or a loopback port."""
    if "socket" in record:
        return os.path.join(state_directory(), os.path.basename(str(record["socket"])))
    return ("127.0.0.1", int(record["port"]))


def keeper_socket(record):
    """An unconnected socket of the kind ``keeper_address(record)`` needs."""
    import _socket  # what socket.py wraps: a command skips its imports (selectors, enum, idna)

    family = getattr(_socket, "AF_UNIX", None) if "socket" in record else _socket.AF_INET
    if family is None:
        raise KeeperGone("this system has no Unix sockets, which the session's keeper listens on")
    return _socket.socket(family, _socket.SOCK_STREAM)


def keeper_proof(token, role, *parts):
    """HMAC-SHA256 under the session's token over a role and both ends' nonces: each end
    shows that it knows the token without sending it, so a process that took over a dead
    keeper's address learns nothing, and cannot pass one end's proof off as the other's."""
    import hmac

    message = json.dumps([role] + list(parts))  # unambiguous, whatever a nonce holds
    return hmac.new(token.encode("utf-8"), message.encode("utf-8"), "sha256").hexdigest()


KEEPER_ERRORS = {"StreamCut": StreamCut, "RequestTimeout": RequestTimeout, "ProtocolViolation": ProtocolViolation,
                 "UsageError": UsageError, "KeeperGone": KeeperGone}


def keeper_error(data):
    """An error the keeper met on the command's behalf, as the same class and words."""
    cls = KEEPER_ERRORS.get(data.get("class"), ConnectionFailed)
    return cls(str(data.get("message", "the session keeper failed")), hint=data.get("hint"))


def keeper_error_data(exc):
    return {"class": exc.__class__.__name__, "message": exc.message, "hint": exc.hint}


def response_fault(message):
    """What is wrong with a JSON-RPC response, or None."""
    if message.get("jsonrpc") != "2.0":
        return "its response has jsonrpc %s, not \"2.0\"" % json.dumps(message.get("jsonrpc"))
    if "result" in message and "error" in message:
        return "its response has both result and error"
    if message.get("id") is None and "result" in message:
        return "its result has no id"
    error = message.get("error")
    if "error" in message and not (isinstance(error, dict) and isinstance(error.get("code"), int)
                                   and not isinstance(error.get("code"), bool)):
        return "its error is not an object with an integer code"
    return None


def same_id(received, sent):
    """JSON-RPC ids compared by exact JSON type: 3.0 and true are not 3 and 1, though Python
    says they are (the SDK tells them apart too)."""
    return type(received) is type(sent) and received == sent


class PendingRequest:
    __slots__ = ("method", "event", "response", "error", "progress_token", "last_activity", "on_progress")

    def __init__(self, method, progress_token=None, on_progress=None):
        self.method = method
        self.event = threading.Event()
        self.response = None
        self.error = None
        self.progress_token = progress_token
        self.last_activity = time.monotonic()
        self.on_progress = on_progress


SERVER_REQUEST_WORKERS = 4
SERVER_REQUEST_BACKLOG = 64


class RpcChannel:
    """JSON-RPC over one transport: request ids, waiting with timeouts that progress
    restarts (under a hard cap, and under ``deadline``, the whole command's), routing
    notifications, and handing server requests to a few worker threads so a slow answer
    never blocks the reader; a flood beyond the backlog is refused with an error."""

    def __init__(self, transport, log=None, on_notification=None, on_request=None, deadline=None, withheld=()):
        self.transport = transport
        self.deadline = deadline
        self.withheld = withheld  # methods built and not sent (--dry-run): call raises Withheld
        self.added_meta = ({}, {})  # the user's _meta keys (--meta) for every request, and (--tool-meta) tools/call's
        self._requests = None  # the backlog of server requests, made on the first one
        self._workers = 0
        self.log = log
        self.on_notification = on_notification
        self.on_request = on_request
        self._pending = {}
        self._lock = threading.Lock()
        self._next_id = 0
        self._id_limit = None  # the last id of the block share_ids handed this channel
        self._reserve_ids = None
        self._closed_error = None
        self.on_closed = None  # called once the transport has ended (a keeper stops with its server)
        self.listeners = {}  # subscription id -> callback, for subscriptions/listen
        import collections

        self.anomalies = collections.deque(maxlen=3)  # what the server got wrong, for a timeout's hint
        self.watchers = ()  # callables that see every message as it arrived (`check` reads the framing)

    def anomaly(self, text):
        self.anomalies.append(text)
        if self.log:
            self.log.event("protocol", text)

    def start(self):
        self.transport.start(self)

    def next_id(self):
        with self._lock:
            if self._id_limit is not None and self._next_id >= self._id_limit:
                first, self._id_limit = self._reserve_ids()
                self._next_id = max(self._next_id, first - 1)
            self._next_id += 1
            return self._next_id

    def share_ids(self, reserve):
        """This session goes on in other commands too (a recorded 2025-11-25 HTTP session
        that follow-ups resume), and an id must never come twice in a session: from now on
        ids come from blocks that ``reserve()`` -> (first, last) hands out, above every id
        this channel has used. Once is enough: a second call changes nothing."""
        with self._lock:
            if self._reserve_ids is not None:
                return
            first, last = reserve()
            self._next_id, self._id_limit, self._reserve_ids = max(self._next_id, first - 1), last, reserve

    def call(self, method, params, headers=None, timeout=60.0, max_time=None, request_id=None,
             on_progress=None, cancel_notification=True):
        """Send a request and wait for its response; return the result object."""
        request_id = self.next_id() if request_id is None else request_id
        added = dict(self.added_meta[0], **(self.added_meta[1] if method == "tools/call" else {}))
        if added:  # merged under what the request has (the era's keys, a progress token): never over them
            meta = (params or {}).get("_meta")
            params = dict(params or {}, _meta=dict(added, **meta) if isinstance(meta, dict) else added)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        if method in self.withheld:
            raise Withheld(self.transport.preview(message, headers))
        try:
            pending = self.forward(message, headers, request_id, on_progress)
            response = self._wait(pending, method, timeout, max_time)
        except RequestTimeout:  # initialize is never cancelled (the spec forbids it): its connection just ends
            self._cancel(request_id, method, cancel_notification and method != "initialize", "timed out")
            raise
        except KeyboardInterrupt:  # Ctrl+C: the server should stop working for a client that left
            self._cancel(request_id, method, cancel_notification and method != "initialize", "interrupted")
            raise
        finally:
            self.settle(request_id)
        if "error" in response:
            raise RpcError(response["error"], method)
        result = response.get("result")
        if not isinstance(result, dict):
            raise ProtocolViolation("%s: the server's result is not an object" % method)
        return result

    def forward(self, message, headers=None, request_id=None, on_progress=None):
        """Send a request (``call``'s, or one another program wrote: a command a keeper
        relays) under a fresh id of this channel (``next_id``). Returns the PendingRequest,
        whose event fires with the raw response or an error; ``settle`` or ``abandon`` the id
        afterwards."""
        request_id = self.next_id() if request_id is None else request_id
        params = message.get("params")
        token = ((params if isinstance(params, dict) else {}).get("_meta") or {}).get("progressToken")
        pending = PendingRequest(message.get("method"), token, on_progress)
        with self._lock:
            if self._closed_error:
                raise self._closed_error
            self._pending[request_id] = pending
        message = dict(message, id=request_id)
        if self.log:
            self.log.message("out", message, self.transport.name)
        try:
            self.transport.send(message, headers)
        except McpTuiError as exc:
            self.fail(request_id, exc)
        return pending

    def settle(self, request_id):
        with self._lock:
            self._pending.pop(request_id, None)

    def abandon(self, request_id, reason):
        """A forwarded request nobody waits for any more: cancel it the transport's way
        (never initialize). False if it had already ended or been abandoned."""
        with self._lock:
            pending = self._pending.pop(request_id, None)
        if pending is None or pending.event.is_set():
            return False
        self._cancel(request_id, pending.method, pending.method != "initialize", reason)
        return True

    def _wait(self, pending, method, timeout, max_time):
        started = time.monotonic()
        cap = started + (max_time if max_time else timeout * 10)
        if self.deadline is not None:
            cap = min(cap, self.deadline)
        while True:
            deadline = min(pending.last_activity + timeout, cap)
            if pending.event.wait(max(0.0, min(deadline - time.monotonic(), 0.5))):
                break
            if time.monotonic() >= min(pending.last_activity + timeout, cap):  # progress may have moved it
                hint = "raise --timeout if the server needs longer"
                seen = list(self.anomalies) + list(self.transport.junk)
                if seen:
                    hint = "meanwhile the server sent " + "; ".join(seen)
                if time.monotonic() < cap:
                    limit = seconds_text(timeout)
                elif max_time or self.deadline is not None:
                    limit = "%s (the --max-time cap)" % seconds_text(max_time or cap - started)  # as the user gave it
                    if not seen:
                        hint = "raise --max-time if the server needs longer"
                else:  # progress kept it going until the cap no flag named
                    limit = "%s (ten times --timeout, however much progress came)" % seconds_text(cap - started)
                    if not seen:
                        hint = "raise --timeout, or give --max-time for the whole command, if the server needs longer"
                raise RequestTimeout("no answer to %s within %s" % (method, limit), hint=hint)
        if pending.error is not None:
            raise pending.error
        return pending.response

    def _cancel(self, request_id, method, notify, reason):
        """Stdio and the legacy HTTP era cancel with notifications/cancelled; 2026-07-28
        HTTP cancels by closing the response stream."""
        self.transport.abort(request_id)
        if notify and not self.transport.cancels_by_closing_stream:
            try:
                self.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})
            except McpTuiError:
                pass

    def cancel(self, request_id, reason):
        """Cancel a request in flight from another thread: the server is told as the transport
        allows, and the waiting caller gets RequestCancelled. False if it had already ended."""
        with self._lock:
            pending = self._pending.get(request_id)
        if pending is None or pending.event.is_set():
            return False
        # Recorded before the transport is told: closing an HTTP stream makes its reader report the break,
        # and whichever fails the request first is what the caller reads.
        self.fail(request_id, RequestCancelled("%s cancelled: %s" % (pending.method, reason)))
        self._cancel(request_id, pending.method, pending.method != "initialize", reason)
        return True

    def notify(self, method, params=None, headers=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if self.log:
            self.log.message("out", message, self.transport.name)
        self.transport.send(message, headers)

    def respond(self, request_id, result=None, error=None, headers=None):
        message = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            message["error"] = error
        else:
            message["result"] = result
        if self.log:
            self.log.message("out", message, self.transport.name)
        self.transport.send(message, headers)

    # -- called by the transport ------------------------------------------------------

    def deliver(self, message):
        message.pop("_http_status", None)
        if self.log:
            self.log.message("in", message, self.transport.name)
        for watch in self.watchers:
            watch(message)
        if "method" in message:
            if "id" in message:
                if self.on_request:
                    self._queue_request(message)
                return
            self._notification(message)
            return
        if "result" in message or "error" in message:
            self._response(message)
        elif self.log:
            self.log.event("protocol", "a message that is neither request, notification nor response")

    def _queue_request(self, message):
        """Up to SERVER_REQUEST_WORKERS threads answer; they end when the backlog is empty."""
        import queue

        with self._lock:
            if self._requests is None:
                self._requests = queue.Queue(SERVER_REQUEST_BACKLOG)
            try:
                self._requests.put_nowait(message)
                queued = True
            except queue.Full:
                queued = False
            if queued and self._workers < SERVER_REQUEST_WORKERS:
                self._workers += 1
                threading.Thread(target=self._serve_requests, daemon=True).start()
        if queued:
            return
        self.anomaly("more requests at once than mcp-tui answers (%s refused)" % message.get("method"))
        try:
            self.respond(message.get("id"), error={"code": -32000, "message": "mcp-tui is busy: too many requests "
                                                                               "from the server at once"})
        except McpTuiError:
            pass

    def _serve_requests(self):
        import queue

        while True:
            with self._lock:
                try:
                    message = self._requests.get_nowait()
                except queue.Empty:
                    self._workers -= 1
                    return
            try:
                self.on_request(message)
            except Exception as exc:  # one bad request must not end the worker
                self.anomaly("a request mcp-tui could not answer (%s: %s)" % (exc.__class__.__name__, exc))

    def _response(self, message):
        """Match a response to its request; a malformed one fails that request with a
        message that says what the server did wrong, instead of a silent timeout."""
        request_id = message.get("id")
        if request_id is None and "error" in message:  # a parse error the server could not place: the SDK ignores it
            if self.log:
                self.log.event("protocol", "an error with id null, ignored: %s" % json.dumps(message["error"])[:200])
            return
        # Exactly the JSON type sent: 3.0 and true are not 3 and 1, though Python's dict says they are.
        exact = type(request_id) in (str, int) or request_id is None  # a list would not hash
        with self._lock:
            pending = self._pending.get(request_id) if exact else None
            if pending is None and request_id is None and len(self._pending) == 1:
                pending = next(iter(self._pending.values()))  # a result without an id: the only request in flight
        if pending is None:
            self.anomaly("a response without an id" if request_id is None else
                         "a response to id %s, which mcp-tui never sent" % json.dumps(request_id))
            return
        if pending.event.is_set():
            return
        fault = response_fault(message)
        if fault:
            pending.error = ProtocolViolation("the server broke the protocol answering %s: %s" % (pending.method, fault))
        else:
            pending.response = message
        pending.event.set()

    def _notification(self, message):
        params = message.get("params") or {}
        if message["method"] == "notifications/progress" and isinstance(params, dict):
            with self._lock:
                waiting = [p for p in self._pending.values()
                           if p.progress_token is not None and p.progress_token == params.get("progressToken")]
            for pending in waiting:
                pending.last_activity = time.monotonic()
                if pending.on_progress:
                    pending.on_progress(params)
        meta = params.get("_meta") if isinstance(params, dict) else None
        subscription = meta.get(META_PREFIX + "subscriptionId") if isinstance(meta, dict) else None
        listener = self.listeners.get(json.dumps(subscription)) if subscription is not None else None
        if listener:
            listener(message)
        if self.on_notification:
            self.on_notification(message)

    def closed_error(self):
        """Why the transport ended (a stdio server exited), or None while it is open."""
        return self._closed_error

    def waiting_for(self, request_id):
        with self._lock:
            pending = self._pending.get(request_id)
        return pending is not None and not pending.event.is_set()

    def fail(self, request_id, error):
        with self._lock:
            pending = self._pending.get(request_id)
        if pending is not None and not pending.event.is_set():
            pending.error = error
            pending.event.set()

    def closed(self, error):
        with self._lock:
            self._closed_error = error
            pending = list(self._pending.values())
        for item in pending:
            if not item.event.is_set():
                item.error = error
                item.event.set()
        if self.on_closed:
            self.on_closed(error)

    def close(self):
        self.transport.close()


# ======================================================================================
# 2. Session: which era the server speaks, the handshake or the per-request _meta,
#    the HTTP headers of each era, and Multi Round-Trip Requests (MRTR)
#
# Everything above this line moves messages; everything below it asks for things. A
# Session hides the era: callers say ``session.request("tools/list")`` and get the
# result, whichever era and transport carried it.
# ======================================================================================

MODERN_ERROR_CODES = (-32020, -32021, -32022)
DEFAULT_MAX_PAGES = 1000
MRTR_MAX_ROUNDS = 16
INPUT_REQUIRED_METHODS = ("tools/call", "resources/read", "prompts/get")
IDEMPOTENT_METHODS = ("server/discover", "tools/list", "resources/list", "resources/templates/list",
                      "resources/read", "prompts/list", "prompts/get", "completion/complete", "tasks/get")
SKILLS_METHODS = ("skills/list", "skills/get", "resources/directory/read")
NAME_HEADER_PARAM = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                     "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


# CacheableResult (2026-07-28 §6.2): what mcp-tui keeps across commands, and the
# notifications that make a kept list stale at once.
CACHED_METHODS = ("server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list")
LIST_CHANGED_METHODS = {"notifications/tools/list_changed": ("tools/list",),
                        "notifications/prompts/list_changed": ("prompts/list",),
                        "notifications/resources/list_changed": ("resources/list", "resources/templates/list")}


def cache_digest(text):
    """The cache's key for a server or a credential: URLs, commands and headers may hold
    secrets, so none is stored in clear."""
    return sha256_hex(text)[:24]


def valid_cache_entry(key, value):
    return (isinstance(value, dict) and is_number(value.get("expires"))
            and isinstance(value.get("result"), dict))


class ResultCache:
    """server/discover and list results kept across commands in cache.json of the state
    directory, each page until its ttlMs runs out (2026-07-28 only: the Session decides).
    The key is the server (its URL or command), the method and the cursor; a page the
    server marked cacheScope "private" is also keyed by the credential (``credential()``
    says what it is, when first needed), so that it is never shared between authorization
    contexts. The file is a JsonStateFile (0600, locked)."""

    def __init__(self, server, credential, path=None, clock=time.time):
        self.server = cache_digest(server)
        self._credential = credential
        self._credential_digest = None
        self.path = path or os.path.join(state_directory(), "cache.json")
        self.clock = clock
        self._entries = None  # this server's entries, read once per session

    def _store(self):
        return JsonStateFile(self.path, valid_cache_entry, durable=False)

    def _public_key(self, method, params):
        return "%s %s %s" % (self.server, method, (params or {}).get("cursor") or "")

    def _private_key(self, method, params):
        if self._credential_digest is None:
            self._credential_digest = cache_digest(self._credential())
        return self._public_key(method, params) + " " + self._credential_digest

    def entries(self):
        if self._entries is None:
            try:
                entries = self._store().read()
            except (OSError, McpTuiError):  # an unusable state directory: work without the cache
                entries = {}
            self._entries = {key: value for key, value in entries.items() if key.startswith(self.server + " ")}
        return self._entries

    def get(self, method, params=None):
        """The kept result of this page while it is fresh, else None."""
        now = self.clock()
        public = self._public_key(method, params)
        entries = self.entries()
        if public not in entries and not any(key.startswith(public + " ") for key in entries):
            return None  # nothing kept for the page: no need to know the credential
        for key in (public, self._private_key(method, params)):
            entry = entries.get(key)
            if entry is not None and now < entry["expires"]:
                return entry["result"]
        return None

    def put(self, method, params, result):
        """Keep a result for its ttlMs. A missing, zero or negative ttlMs means stale at once
        (older servers send none), so the page's old entry goes instead."""
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        public = self._public_key(method, params)
        fresh = isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0 and scope in ("public", "private")
        entry = {"expires": self.clock() + ttl / 1000.0, "result": result} if fresh else None
        key = self._private_key(method, params) if scope == "private" else public
        private = public + " " + self._credential_digest if self._credential_digest else None

        def change(entries):
            now = self.clock()
            for old in [k for k, v in entries.items() if v["expires"] <= now or k in (key, public, private)]:
                del entries[old]
            if entry is not None:
                entries[key] = entry
            return entries

        self._write(change)

    def drop(self, *methods):
        """Forget every page of these methods for this server, whatever the credential."""
        prefixes = tuple("%s %s " % (self.server, method) for method in methods)

        def change(entries):
            for old in [k for k in entries if k.startswith(prefixes)]:
                del entries[old]
            return entries

        self._write(change)

    def _write(self, change):
        try:
            entries = self._store().update(change)
        except (OSError, McpTuiError):  # the cache is an optimisation: never a reason to fail
            return
        self._entries = {key: value for key, value in entries.items() if key.startswith(self.server + " ")}


class ConnectionSpec:
    """Where the server is and how to reach it, as the user gave it."""

    def __init__(self, kind, url=None, argv=None, env=None, cwd=None, headers=None, protocol="auto", source=None,
                 sse_fallback=True, name=None):
        self.kind = kind  # "stdio" | "http" | "sse" | "session" (one a keeper holds, by ``name``)
        self.name = name
        self.sse_fallback = sse_fallback  # False for --transport http: Streamable HTTP or nothing
        self.url = url
        self.argv = list(argv or [])
        self.env = dict(env or {})
        self.cwd = cwd
        self.headers = dict(headers or {})
        self.protocol = protocol
        self.source = source  # (config file, server name) when it came from --config
        self.shown = None  # from --config: the same spec with the file's ${VAR}s unexpanded, what is shown
        self.oauth = None  # a --config entry's oauth object
        self.auth = None  # the Authorizer (section 5) its HTTP requests go through

    def describe(self):
        if self.shown is not None:
            return self.shown.describe()  # ${VAR}s as the config file has them, never their values
        if self.kind == "stdio":
            return join_command(self.argv)
        if self.kind == "session":
            return "@" + self.name
        return self.url

    def ledger_record(self):
        """What the task ledger keeps: never a header value, a token, an environment value,
        URL userinfo or query values. A server from --config is kept as the file and the
        server's name, so that its ${VAR}s are expanded afresh and never stored."""
        from urllib.parse import urlsplit

        record = {"kind": self.kind, "protocol": self.protocol}
        if self.kind == "session":
            record["name"] = self.name
        elif self.source:
            record["config"], record["server"] = self.source
        elif self.kind == "stdio":
            record["argv"] = self.argv
            record["cwd"] = os.path.abspath(self.cwd or os.curdir)  # relative paths in argv stay valid
        else:
            record["url"] = masked_url(self.url)
            if urlsplit(self.url).query:
                record["queryMasked"] = True
        return record

    @staticmethod
    def valid_record(record):
        strings = lambda *names: all(isinstance(record.get(name), str) for name in names)
        if record.get("kind") not in ("stdio", "http", "sse", "session") or not strings("protocol"):
            return False
        if record["kind"] == "session":
            return strings("name")
        if "config" in record:
            return strings("config", "server")
        if record["kind"] == "stdio":
            argv = record.get("argv")
            return isinstance(argv, list) and bool(argv) and all(isinstance(a, str) for a in argv) and (
                record.get("cwd") is None or strings("cwd"))
        return strings("url")

    @classmethod
    def from_ledger(cls, record):
        if record.get("queryMasked"):
            raise UsageError("the task ledger does not keep the URL's query values", hint="pass --url again")
        return cls(record["kind"], url=record.get("url"), argv=record.get("argv"), cwd=record.get("cwd"),
                   protocol=record.get("protocol", "auto"), name=record.get("name"))


def encode_header_value(value):
    """Send a header value as-is only when it is visible ASCII with no edge whitespace
    and does not look like the sentinel itself; otherwise use =?base64?...?=."""
    text = value if isinstance(value, str) else json.dumps(value)
    plain = (all(0x20 <= ord(c) <= 0x7E or c == "\t" for c in text) and text == text.strip()
             and not (text.startswith("=?base64?") and text.endswith("?=")))
    if plain:
        return text
    import base64

    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def decode_header_value(value):
    if value.startswith("=?base64?") and value.endswith("?="):
        import base64

        return base64.b64decode(value[9:-2]).decode("utf-8")
    return value


HEADER_TOKEN_CHARS = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def tool_param_headers(tool):
    """The (header name, argument path) pairs a tool's x-mcp-header annotations ask for.
    Raises ValueError naming the reason when an annotation is invalid."""
    found = []

    def walk(schema, path):
        if not isinstance(schema, dict):
            return
        for key, sub in (schema.get("properties") or {}).items():
            if not isinstance(sub, dict):
                continue
            if "x-mcp-header" in sub:
                name = sub["x-mcp-header"]
                if not isinstance(name, str) or not name or not set(name) <= HEADER_TOKEN_CHARS:
                    raise ValueError("x-mcp-header %r on %r is not a valid header name" % (name, key))
                if sub.get("type") not in ("string", "integer", "boolean"):
                    raise ValueError("x-mcp-header on %r needs type string, integer or boolean" % key)
                if any(n.lower() == name.lower() for n, _ in found):
                    raise ValueError("x-mcp-header %r is used twice" % name)
                found.append((name, path + [key]))
            walk(sub, path + [key])
        for keyword in ("items", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions"):
            if contains_key(schema.get(keyword), "x-mcp-header"):
                raise ValueError("x-mcp-header under %r is not allowed" % keyword)

    walk(tool.get("inputSchema") or {}, [])
    return found


def contains_key(value, key):
    if isinstance(value, dict):
        return key in value or any(contains_key(v, key) for v in value.values())
    if isinstance(value, list):
        return any(contains_key(v, key) for v in value)
    return False


def param_header_values(tool, arguments):
    headers = {}
    for name, path in tool_param_headers(tool):
        value = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is None:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        headers["Mcp-Param-" + name] = encode_header_value(text)
    return headers


class StubMismatch(UsageError):
    """--elicit-stub cannot answer what the server asked for."""


class InputDeclined(McpTuiError):
    """The user (or the lack of one) refused an input request."""

    def __init__(self, message, code=-1, hint=None):
        super().__init__(message, hint)
        self.code = code


def listed_task_support(tool):
    """A tool listing's execution.taskSupport ("forbidden", "optional" or "required"), or None
    where the listing says nothing (or says it in a shape that is not the spec's)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return support if isinstance(support, str) else None


class TaskRequired(RpcError):
    """The tool runs only as a task: the server said so (-32021 under 2026-07-28), or its
    2025-11-25 listing did and nothing was sent. The hint is the CLI's; the TUI says its own."""

    def __init__(self, tool_name, error=None):
        if error is None:
            McpTuiError.__init__(self, "tool %r runs only as a task (execution.taskSupport: required); "
                                       "nothing was sent" % tool_name, hint="add --task")
            self.code, self.rpc_message, self.error = None, "", {}
            self.exit_code = EXIT_USAGE  # refused before sending, like any usage error
        else:
            RpcError.__init__(self, error, "tools/call")
            self.hint = "the server runs %r only as a task; add --task" % tool_name
        self.tool_name = tool_name

    def to_json(self):
        return RpcError.to_json(self) if self.code is not None else McpTuiError.to_json(self)


class UrlElicitationRequired(RpcError):
    """-32042 (2025-11-25): the request needs the user to open URLs first (the URL-mode
    elicitations in error.data), and then to send it again."""

    def __init__(self, error, method):
        RpcError.__init__(self, error, method)
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        self.elicitations = [item for item in data.get("elicitations") or () if isinstance(item, dict)]


def handshake_shapes(method, capabilities, server_info):
    """A handshake's capabilities and serverInfo as objects (a missing serverInfo is None):
    any other JSON there would fail far from the cause, as an "internal error"."""
    if capabilities is not None and not isinstance(capabilities, dict):
        raise ProtocolViolation("the server broke the protocol answering %s: its capabilities are not an object"
                                % method)
    if server_info is not None and not isinstance(server_info, dict):
        raise ProtocolViolation("the server broke the protocol answering %s: its serverInfo is not an object"
                                % method)
    return capabilities or {}, server_info


class Era:
    """What differs between the protocol eras, decided once: when the session learns what
    the server speaks it picks ModernEra (2026-07-28: per-request _meta) or LegacyEra (the
    initialize handshake) and asks it, instead of testing a version string. This base is a
    session before the choice (or after a failed probe): it sends as the handshake era does
    and declares nothing of either."""

    name = None  # "modern" | "legacy": the "era" the JSON documents print
    label = "legacy (initialize handshake)"
    task_form = "2025-11-25"  # the TaskForm.form of the tasks it speaks (tasks_for)
    listens_for_changes = False  # 2026-07-28: change notifications come only on subscriptions/listen
    # what `check` holds a server to (section 3d), as each era's schema states it
    lists_other_versions = False  # server/discover's supportedVersions may name a handshake-era version
    tools_declare_task_support = True  # a tool's execution.taskSupport (2026-07-28 tools have none)
    any_output_schema = False  # 2026-07-28: an outputSchema is any JSON Schema, not only type object
    method_in_headers = False  # 2026-07-28 HTTP: Mcp-Method repeats the body's method

    def __init__(self, session):
        self.session = session

    def opened(self):
        self.session.cache = None  # 2025-11-25 gives no hints: nothing is kept across commands

    def session_record(self):
        """What a later run needs to resume this session: nothing binds follow-ups to it."""
        return None

    def client_capabilities(self, capabilities, declare_tasks=False, method=None):
        return capabilities

    def stamp(self, params, declare_tasks=False, method=None):
        """``params`` as this era sends them: the handshake era adds no per-request _meta."""
        return dict(params)

    def stale_tool_error(self, exc):
        """Whether a tools/call error says the tool list it was built from is out of date:
        -32020 (the x-mcp-header annotations changed) or an unknown tool."""
        return isinstance(exc, RpcError) and (exc.code == -32020 or (
            exc.code == INVALID_PARAMS and re.search(r"unknown tool|tool .*not found|no such tool",
                                                     exc.rpc_message or "", re.I) is not None))

    def handshake_headers(self):
        """Streamable HTTP names the negotiated version on every request after initialize."""
        session = self.session
        if session.transport.carries_mcp_headers and session.protocol_version:
            return {"MCP-Protocol-Version": session.protocol_version}
        return {}

    def notification_headers(self):
        return None

    def request(self, method, params, declare_tasks, tool, timeout, max_time, on_progress, request_id, cached):
        try:
            return self._send(method, params, timeout, max_time, on_progress, request_id)
        except RpcError as exc:
            if exc.code == -32042:
                raise UrlElicitationRequired(exc.error, method)
            raise

    def _send(self, method, params, timeout, max_time, on_progress, request_id, retried=False):
        session = self.session
        sent_under = session.http_session_id()
        try:
            return session.channel.call(method, params, self.handshake_headers(), timeout or session.timeout,
                                        max_time or session.max_time, request_id, on_progress)
        except (HttpStatusError, RpcError) as exc:
            if retried or not session.start_over_if_lost(exc, sent_under):
                raise
        return self._send(method, params, timeout, max_time, on_progress, None, True)

    def answer_server_request(self, message):
        """Answer a server request (roots, elicitation, sampling, ping): always an answer,
        never silence."""
        session, responder = self.session, self.session.responder
        method, request_id = message.get("method"), message.get("id")
        headers = self.handshake_headers()
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        result = error = None
        try:
            if method == "ping":
                result = {}
            elif method in ("elicitation/create", "sampling/createMessage", "roots/list"):
                result = responder.answer(method, params, session.display_name())
            else:
                error = {"code": -32601, "message": "Method not found: %s" % method}
        except StubMismatch as exc:  # the server waits for an answer: decline at once, and say why
            responder.declined("%s; declined" % exc.message)
            result = {"action": "decline"}
        except InputDeclined as exc:
            responder.declined(exc.message)  # without a terminal, the user learns it only here
            error = {"code": exc.code, "message": exc.message}
        except McpTuiError as exc:  # every server request gets an answer, never silence
            responder.declined("Could not answer %s's %s: %s" % (session.display_name(), method, exc.message))
            error = {"code": -32603, "message": "mcp-tui could not answer %s: %s" % (method, exc.message)}
        related = (params.get("_meta") or {}).get(META_PREFIX + "related-task")
        if related and result is not None:
            result = dict(result, _meta={META_PREFIX + "related-task": related})
        try:
            session.channel.respond(request_id, result, error, headers)
        except McpTuiError as exc:
            if session.log:
                session.log.event("protocol", "could not send the answer to %s: %s" % (method, exc.message))

    def roots_changed(self):
        """Tell the server the client's roots changed; whether a notification went out."""
        return False

    def ping(self, timeout=None):
        self.session.request("server/discover", {}, timeout=timeout)
        return "server/discover"

    def set_log_level(self, level):
        """Nothing to send: the level goes out with the requests that carry it."""

    def sends_param_headers(self):
        return False

    def call_refused_before_sending(self, tool):
        """Whether a plain call of ``tool`` is refused here, before it is sent."""
        return False

    def listen_for_list_changes(self):
        self.open_server_stream()

    def open_server_stream(self):
        """The stream the server sends unasked on, where the era has one."""

    def unsubscribe_resource(self, uri):
        self.session.request("resources/unsubscribe", {"uri": uri})
        return True


class LegacyEra(Era):
    """2025-11-25 and older: the initialize handshake, a session id over HTTP, the GET stream,
    server requests answered as they come, tasks in the experimental form."""

    name = "legacy"

    def handshake(self, version):
        """initialize, asking for ``version``; it makes this the session's era (until it fails)."""
        session = self.session
        session.era, session.protocol_version = self, None
        params = {"protocolVersion": version, "capabilities": session.client_capabilities(),
                  "clientInfo": CLIENT_INFO}
        if version in ("2025-06-18", "2025-03-26", "2024-11-05"):
            params["capabilities"]["elicitation"] = {}  # form only before 2025-11-25
        try:
            result = session.channel.call("initialize", params, timeout=session.timeout, max_time=session.max_time)
        except McpTuiError:
            session.era = Era(session)
            raise
        negotiated = result.get("protocolVersion")
        if negotiated == "2024-10-07":
            negotiated = "2024-11-05"
        if negotiated not in LEGACY_VERSIONS:
            session.era = Era(session)
            raise ProtocolViolation("the server chose protocol version %r, which mcp-tui does not speak" % negotiated,
                                    hint="mcp-tui speaks %s" % ", ".join((MODERN_VERSION,) + LEGACY_VERSIONS))
        session.protocol_version = negotiated
        session.capabilities, session.server_info = handshake_shapes("initialize", result.get("capabilities"),
                                                                     result.get("serverInfo"))
        session.instructions = result.get("instructions")
        session.transport.legacy_session(negotiated)
        session.channel.notify("notifications/initialized", None, self.handshake_headers())
        self.open_server_stream()  # roots, elicitation, sampling and pings may come on it at any time

    def opened(self):
        session = self.session
        if session.log_level and "logging" in session.capabilities:
            session.request("logging/setLevel", {"level": session.log_level})  # 2026-07-28 sends it in _meta
        Era.opened(self)

    def session_record(self):
        """What a later run needs to resume this session, or None when nothing binds follow-ups
        to it (stdio, a server without session ids)."""
        session = self.session
        session_id = session.http_session_id()
        if not session_id:
            return None
        return {"id": session_id, "protocolVersion": session.protocol_version,
                "capabilities": session.capabilities, "serverInfo": session.server_info}

    def client_capabilities(self, capabilities, declare_tasks=False, method=None):
        capabilities["roots"] = {"listChanged": True}  # roots_changed() sends the notification
        return capabilities

    def notification_headers(self):
        return self.handshake_headers()

    def roots_changed(self):
        self.session.notify("notifications/roots/list_changed")
        return True

    def ping(self, timeout=None):
        self.session.request("ping", timeout=timeout)
        return "ping"

    def set_log_level(self, level):
        self.session.request("logging/setLevel", {"level": level})

    def call_refused_before_sending(self, tool):
        """A 2025-11-25 tool says in its listing that it runs only as a task."""
        return self.session.call_needs_task(tool)

    def open_server_stream(self):
        self.session.transport.open_get_stream()


class ModernEra(Era):
    """2026-07-28: every request stamped with _meta (and, over HTTP, its headers), MRTR for
    input, results cached by their hints, subscriptions/listen for changes, no server
    requests, tasks in the io.modelcontextprotocol/tasks extension."""

    name = "modern"
    label = "2026-07-28 (per-request metadata)"
    task_form = "extension"
    listens_for_changes = True
    lists_other_versions = True
    tools_declare_task_support = False
    any_output_schema = True
    method_in_headers = True

    @staticmethod
    def may_cache(spec):
        """Whether results of a server opened from ``spec`` may be kept across commands: only
        2026-07-28 ones are; a kept session (@NAME) is a name, not where a server is."""
        return spec.kind not in ("sse", "session") and spec.protocol in ("auto", MODERN_VERSION)

    def discover(self, timeout):
        """server/discover: the probe in auto mode, and the source of capabilities; it makes
        this the session's era (until it fails)."""
        session = self.session
        session.era, session.protocol_version = self, MODERN_VERSION
        params = self.stamp({})
        try:
            # No notifications/cancelled if it times out: a silent legacy server must see
            # initialize next, and nothing else before it.
            result = session.channel.call("server/discover", params, self.headers("server/discover", params),
                                          timeout, session.max_time, cancel_notification=False)
            versions = result.get("supportedVersions")
            if not isinstance(versions, list) or "capabilities" not in result:
                raise ProtocolViolation("server/discover answered without supportedVersions and capabilities")
            if MODERN_VERSION not in versions:
                raise RpcError({"code": -32022, "message": "server/discover lists no version mcp-tui speaks",
                                "data": {"supported": versions, "requested": MODERN_VERSION}}, "server/discover")
        except RpcError as exc:
            session.era = Era(session)
            if exc.code == -32022:
                supported = (exc.data or {}).get("supported") if isinstance(exc.data, dict) else None
                exc.hint = "the server supports %s; mcp-tui speaks %s" % (
                    ", ".join(supported or ["(not said)"]), ", ".join((MODERN_VERSION,) + LEGACY_VERSIONS))
            raise
        except McpTuiError:
            session.era = Era(session)
            raise
        self.adopt_discover(result)
        if session.cache is not None:
            session.cache.put("server/discover", {}, result)

    def adopt_discover(self, result):
        """What a server/discover result says about the server."""
        session, meta = self.session, result.get("_meta")
        session.supported_versions = result.get("supportedVersions")
        session.capabilities, session.server_info = handshake_shapes(
            "server/discover", result.get("capabilities"), meta.get(META_PREFIX + "serverInfo")
            if isinstance(meta, dict) else None)
        session.instructions = result.get("instructions")

    def opened(self):
        """No handshake to finish, and the cache stays."""

    def client_capabilities(self, capabilities, declare_tasks=False, method=None):
        extensions = dict(capabilities.get("extensions") or {})
        if declare_tasks:
            extensions[TASKS_EXTENSION] = {}
        if method in SKILLS_METHODS:  # a server may refuse them to a client that did not declare it
            extensions[SKILLS_EXTENSION] = {}
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    def stamp(self, params, declare_tasks=False, method=None):
        """``params`` with the _meta every 2026-07-28 request carries."""
        session = self.session
        params = dict(params)
        meta = dict(params.get("_meta") or {})
        meta[META_PREFIX + "protocolVersion"] = session.protocol_version
        meta[META_PREFIX + "clientCapabilities"] = session.client_capabilities(declare_tasks, method)
        meta[META_PREFIX + "clientInfo"] = CLIENT_INFO
        if session.log_level:
            meta[META_PREFIX + "logLevel"] = session.log_level
        params["_meta"] = meta
        return params

    def headers(self, method, params, tool=None):
        """The HTTP headers of a 2026-07-28 request (None over stdio)."""
        session = self.session
        if not session.transport.carries_mcp_headers:
            return None
        headers = {"MCP-Protocol-Version": session.protocol_version, "Mcp-Method": method}
        key = NAME_HEADER_PARAM.get(method)
        if key and isinstance(params.get(key), str):
            headers["Mcp-Name"] = encode_header_value(params[key])
        if method == "tools/call" and tool:
            headers.update(param_header_values(tool, params.get("arguments") or {}))
        return headers

    def request(self, method, params, declare_tasks, tool, timeout, max_time, on_progress, request_id, cached):
        session = self.session
        keep = session.cache is not None and method in CACHED_METHODS
        if keep and cached:
            result = session.cache.get(method, params)
            if result is not None:
                session.cached.add(method)
                return result
        try:
            result = self._rounds(method, params or {}, declare_tasks, tool, timeout, max_time, on_progress,
                                  request_id)
            if keep:
                session.cache.put(method, params, result)
                session.cached.discard(method)
            return result
        except (RpcError, HttpStatusError) as exc:
            if "server/discover" in session.cached and session.refused_as_unknown_era(exc):
                return session.probe_again(method, params, declare_tasks, tool, timeout, max_time, on_progress)
            if not isinstance(exc, RpcError):
                raise
            required = ((exc.data or {}).get("requiredCapabilities") or {}) if isinstance(exc.data, dict) else {}
            if method == "tools/call" and exc.code == -32021 and TASKS_EXTENSION in (required.get("extensions") or {}):
                raise TaskRequired((params or {}).get("name"), exc.error)
            raise

    def _rounds(self, method, params, declare_tasks, tool, timeout, max_time, on_progress, request_id):
        """One request and its MRTR rounds: input_required is answered and the request sent again."""
        session = self.session
        original = dict(params)
        current = dict(params)
        reissued = False
        for _ in range(MRTR_MAX_ROUNDS):
            wire = self.stamp(current, declare_tasks, method)
            try:
                result = session.channel.call(method, wire, self.headers(method, wire, tool),
                                              timeout or session.timeout, max_time or session.max_time, request_id,
                                              on_progress)
            except StreamCut as exc:
                if method not in IDEMPOTENT_METHODS or reissued:
                    if method == "tools/call":
                        exc.hint = "not sent again: the tool may have run; run it again yourself if that is safe"
                    raise
                reissued, request_id = True, None  # lost with the stream: a new request, with a new id
                if session.log:
                    session.log.event("session", "stream cut; re-issuing %s with a new id" % method)
                result = session.channel.call(method, wire, self.headers(method, wire, tool),
                                              timeout or session.timeout, max_time or session.max_time, None,
                                              on_progress)
            request_id = None  # every retry is a new request with a new id
            kind = result.get("resultType", "complete")
            if kind == "input_required" and method in INPUT_REQUIRED_METHODS:
                current = dict(original)
                requests = result.get("inputRequests") or {}
                if requests:
                    current["inputResponses"] = session.answer_input_requests(requests)
                if "requestState" in result:
                    current["requestState"] = result["requestState"]
                continue
            if kind == "complete" or (kind == "task" and method == "tools/call" and declare_tasks):
                return result
            raise ProtocolViolation("%s: the server answered with resultType %r, which this request does not allow"
                                    % (method, kind))
        raise ProtocolViolation("%s: still input_required after %d rounds; giving up" % (method, MRTR_MAX_ROUNDS))

    def answer_server_request(self, message):
        """2026-07-28 has no server requests (input goes through MRTR): a server that sends one
        anyway gets an error rather than silence."""
        session, method, request_id = self.session, message.get("method"), message.get("id")
        if session.log:
            session.log.event("protocol", "server request in the 2026-07-28 era refused", method=method)
        try:
            session.channel.respond(request_id, error={"code": -32601, "message": "%s: 2026-07-28 has no server "
                                                       "requests; input goes through input_required" % method})
        except McpTuiError:
            pass

    def sends_param_headers(self):
        """x-mcp-header annotations become Mcp-Param-* headers (over HTTP)."""
        return self.session.transport.carries_mcp_headers

    def listen_for_list_changes(self):
        """list_changed comes only on a subscriptions/listen stream."""
        session = self.session
        flags = list_change_filters(session.capabilities)
        if flags:
            session.change_listener = session.listen(flags, lambda message: None)

    def unsubscribe_resource(self, uri):
        """A subscription is the listen stream that made it and ends with it."""
        return False


class SessionOpener:
    """How a Session opens: its transport started, and its era chosen by --protocol-version, by a
    server/discover result an earlier command kept, or by the probe and its fallbacks (the
    era-detection tables); or a kept session adopted, or a recorded 2025-11-25 session resumed,
    with no handshake of its own."""

    def __init__(self, session):
        self.session = session

    def open(self):
        session = self.session
        choice = session.spec.protocol
        if session.cache is not None and self.from_cache():
            pass
        elif session.spec.kind == "sse":
            try:
                self.start_transport("sse")
                LegacyEra(session).handshake(choice if choice in LEGACY_VERSIONS else LEGACY_VERSIONS[0])
            except HttpStatusError as exc:  # the mirror of --transport http's hint
                if exc.status in (400, 404, 405) and not exc.hint:
                    exc.hint = "the server may speak Streamable HTTP: leave out --transport sse"
                raise
        elif choice == MODERN_VERSION:
            self.start_transport()
            try:
                ModernEra(session).discover(session.timeout)
            except (RpcError, HttpStatusError) as exc:
                # "Method not found", "Server not initialized", HTTP 400: a server of the handshake era
                refused = session.refused_as_unknown_era(exc) or getattr(exc, "code", None) == METHOD_NOT_FOUND
                if refused and not exc.hint:
                    exc.hint = ("the server refused server/discover, so it seems to speak only %s or older; "
                                "--protocol-version auto uses what it speaks" % LEGACY_VERSIONS[0])
                raise
        elif choice in LEGACY_VERSIONS:
            self.start_transport()
            LegacyEra(session).handshake(choice)
        else:
            self.auto()
        if session.log:
            session.log.event("session", "era chosen", era=session.era.name, protocol=session.protocol_version,
                              transport=session.transport.name)
        return self.opened()

    def opened(self):
        session = self.session
        session.era.opened()
        return session

    def adopt(self, transport, state):
        """Carry on a session another process opened (``handshake_state``) over ``transport``
        (a KeeperTransport): same era, version and server facts, no second handshake."""
        session = self.session
        era = {kind.name: kind for kind in (ModernEra, LegacyEra)}.get(state["era"], Era)
        session.era, session.protocol_version = era(session), state["protocolVersion"]
        session.server_info, session.capabilities = state["serverInfo"], state["capabilities"] or {}
        session.instructions, session.supported_versions = state["instructions"], state["supportedVersions"]
        session.kept_grant = state.get("grant")  # the keeper's authorization, as masked_token_view shows it
        roots = state.get("roots")
        if isinstance(roots, list) and not session.responder.roots:  # `session open --root`, unless it has its own
            session.responder.roots.extend(str(path) for path in roots)
        transport.notice = lambda text: session.notice(text)
        session.use_transport(transport)
        if session.log:
            session.log.event("session", "adopted a kept session", era=session.era.name,
                              protocol=session.protocol_version, transport=transport.name)
        return self.opened()

    def from_cache(self):
        """Adopt a fresh server/discover result kept by an earlier command: no probe is sent."""
        session = self.session
        result = session.cache.get("server/discover")
        if result is None:
            return False
        self.start_transport()
        session.era, session.protocol_version = ModernEra(session), MODERN_VERSION
        session.era.adopt_discover(result)
        session.cached.add("server/discover")
        if session.log:
            session.log.event("session", "server/discover answered from the cache (its ttlMs has not run out)")
        return True

    def auto(self):
        """Probe with server/discover and fall back as the era-detection tables say."""
        session = self.session
        self.start_transport()
        stdio = session.spec.kind == "stdio"
        timed_out = False
        try:
            ModernEra(session).discover(min(session.probe_timeout, session.timeout) if stdio else session.timeout)
            return
        except RequestTimeout:
            if not stdio or (session.deadline is not None and time.monotonic() >= session.deadline):
                raise  # --max-time ended the probe: nothing is left for initialize, and the probe is what waited
            timed_out, fresh = True, False  # a silent legacy stdio server: initialize on the same process
        except RpcError as exc:
            if exc.code in (-32020, -32021) or (exc.code == -32022 and not self.legacy_overlap(exc)):
                raise
            fresh = exc.code == -32022
        except HttpStatusError as exc:
            if exc.status not in (400, 404, 405):
                raise
            fresh = False
        except ProtocolViolation:
            if isinstance(session.era, ModernEra):  # it answered server/discover as a modern server,
                raise  # wrongly: no fallback
            fresh = True
        if session.log:
            session.log.event("session", "the probe says legacy; sending initialize")
        if fresh and stdio:
            self.restart_transport()  # never mix eras on one stdio process
        try:
            LegacyEra(session).handshake(LEGACY_VERSIONS[0])
        except RequestTimeout as exc:
            if timed_out:  # the wait was longer than --timeout says: name the probe's share and its bound
                exc.message += ", after %s of server/discover (%s)" % (
                    seconds_text(min(session.probe_timeout, session.timeout)),
                    "--probe-timeout" if session.probe_timeout < session.timeout else "--timeout")
            raise
        except RpcError as exc:
            if not (timed_out and exc.code in MODERN_ERROR_CODES):
                raise
            # A slow modern server answered initialize with a modern error: the process
            # is locked to 2026-07-28. Start it afresh and speak that era.
            if session.log:
                session.log.event("session", "initialize refused with %s; restarting in 2026-07-28" % exc.code)
            self.restart_transport()
            ModernEra(session).discover(session.timeout)
        except HttpStatusError as exc:
            if session.spec.kind != "http" or exc.status not in (400, 404, 405):
                raise
            if not session.spec.sse_fallback:
                exc.hint = "--transport http does not fall back; the server may speak HTTP+SSE: try --transport sse"
                raise
            if session.log:
                session.log.event("session", "initialize refused (HTTP %s); trying HTTP+SSE" % exc.status)
            self.restart_transport("sse")
            LegacyEra(session).handshake(LEGACY_VERSIONS[0])

    def resume(self, recorded):
        """Continue a recorded 2025-11-25 HTTP session without initialize: servers such as
        the everything server keep tasks per session, so a later command must come back to
        it. If the server has forgotten it, the first request starts over (and says so)."""
        session = self.session
        self.start_transport()
        session.transport.legacy_session(recorded["protocolVersion"], recorded["id"])
        session.era, session.protocol_version = LegacyEra(session), recorded["protocolVersion"]
        session.cache = None  # a 2025-11-25 session keeps what it learned itself
        session.capabilities = recorded.get("capabilities") or {}
        session.server_info = recorded.get("serverInfo")
        session.resumed = True
        session.open_server_stream()
        if session.log:
            session.log.event("session", "resumed a recorded session", protocol=session.protocol_version)
        return session

    def restart_transport(self, kind=None):
        session = self.session
        session.channel.close()
        self.start_transport(kind)

    def legacy_overlap(self, exc):
        supported = (exc.data or {}).get("supported") if isinstance(exc.data, dict) else None
        return not supported or any(v in LEGACY_VERSIONS for v in supported)

    def start_transport(self, kind=None):
        session = self.session
        kind = kind or session.spec.kind
        if kind == "stdio":
            transport = StdioTransport(session.spec.argv, session.spec.env, session.spec.cwd, session.log,
                                       max_message=session.max_message_size)
        else:
            http = HttpClient(session.spec.url, session.spec.headers, session.timeout, session.network,
                              session.log, session.max_message_size, session.deadline)
            http.auth = session.spec.auth
            transport = (LegacySseTransport(http, session.log, session.timeout) if kind == "sse"
                         else StreamableHttpTransport(http, session.log))
        session.use_transport(transport)


class Session:
    """One connection to one server, in whichever era it speaks."""

    def __init__(self, spec, responder=None, log=None, timeout=60.0, max_time=None, probe_timeout=5.0,
                 network=None, log_level=None, max_message_size=DEFAULT_MAX_MESSAGE,
                 max_pages=DEFAULT_MAX_PAGES, deadline=None, cache=False):
        self.spec = spec
        self.max_message_size = max_message_size
        self.max_pages = max_pages
        self.deadline = deadline  # monotonic: the end of the whole command (--max-time), if any
        self.withheld = frozenset()  # --dry-run: methods built and not sent (RpcChannel.call)
        self.added_meta = ({}, {})  # --meta and --tool-meta (RpcChannel.added_meta)
        self.responder = responder
        self.log = log
        self.timeout = timeout
        self.max_time = max_time
        self.probe_timeout = probe_timeout
        self.network = network or NetworkOptions()
        self.log_level = log_level
        self.era = Era(self)  # ModernEra or LegacyEra once chosen; its name is what documents print
        self.protocol_version = None
        self.server_info = None
        self.capabilities = {}
        self.instructions = None
        self.supported_versions = None
        self.channel = None
        self.transport = None
        self.closed = False  # close() was called: a transport starting after it is closed at once
        self.change_listener = None  # the listen stream of listen_for_list_changes (2026-07-28)
        self.observers = []  # callables that see every notification
        self.wire_observers = []  # callables that see every message from the server (RpcChannel.watchers)
        self.tools = None  # name -> tool, once listed (see tools_by_name)
        # 2026-07-28 results kept across commands (ResultCache); None when off or not that era
        self.cache = self._open_cache() if cache else None
        self.cached = set()  # the methods this session answered from the cache
        self.notice = lambda text: None  # what the user should know about the session itself
        self.resumed = False
        self.kept_grant = None  # adopt: the keeper's grant, masked
        self._start_over_lock = threading.Lock()  # one new session for the requests a forgotten one failed
        self._tools_by_name = {}
        # extensions declared on every request (2026-07-28) or in initialize: --advertise-apps
        self.extensions = {}

    # -- opening (SessionOpener) ------------------------------------------------------

    def open(self):
        return SessionOpener(self).open()

    def adopt(self, transport, state):
        return SessionOpener(self).adopt(transport, state)

    def resume(self, recorded):
        return SessionOpener(self).resume(recorded)

    def handshake_state(self):
        """What another process needs to carry on this session without a handshake of its
        own (a keeper hands it to each command it serves; see ``adopt``)."""
        return {"era": self.era.name, "protocolVersion": self.protocol_version, "serverInfo": self.server_info,
                "capabilities": self.capabilities, "instructions": self.instructions,
                "supportedVersions": self.supported_versions, "transport": self.transport.name,
                "legacyStream": bool(self.transport.legacy_stream)}

    # -- the cache of CacheableResults (2026-07-28) -------------------------------------

    def _open_cache(self):
        """A ResultCache for this server, or None where no 2026-07-28 result can be asked for."""
        if not ModernEra.may_cache(self.spec):
            return None  # a kept session (@NAME) is a name, not where a server is; its keeper asks
        if self.spec.kind == "stdio":
            server = json.dumps(["stdio", self.spec.argv, os.path.abspath(self.spec.cwd or os.curdir)])
        else:
            server = json.dumps(["http", self.spec.url])
        return ResultCache(server, self._credential)

    def _credential(self):
        """Who is asking, for results the server marked private: the headers, a stdio
        server's environment, and the OAuth token the requests carry (asked only when a
        private result is looked up or kept)."""
        auth = getattr(self.spec, "auth", None)
        token = auth.authorization() if auth is not None else None
        return json.dumps([sorted((k.lower(), v) for k, v in self.spec.headers.items()),
                           sorted(self.spec.env.items()), token])

    def answered_from_cache(self, method):
        """Whether this session's answer to ``method`` came from an earlier command."""
        return method in self.cached

    def stale_tool_error(self, exc):
        """Whether a tools/call error says the tool list it was built from is out of date:
        -32020 (the x-mcp-header annotations changed) or an unknown tool. The kept list is
        dropped then, and the caller lists again and retries once."""
        stale = self.era.stale_tool_error(exc)
        if stale and self.cache is not None:
            self.cache.drop("tools/list")
            self.cached.discard("tools/list")
        return bool(stale)

    def session_record(self):
        """What a later run needs to resume this session, or None when nothing binds
        follow-ups to it (stdio, 2026-07-28, a legacy server without session ids)."""
        return self.era.session_record()

    def outlives_process(self):
        """Whether the server (and so a task) lives on after this process exits."""
        return self.spec.kind != "stdio"

    def keep_alive(self, keep):
        """Keep the session for a later run (no DELETE at close), or end it as usual."""
        self.transport.keep_session = keep

    def withhold(self, methods):
        """--dry-run: requests of these methods raise Withheld instead of going out; what the
        command needs to build them (discover, initialize, lists) is still sent."""
        self.withheld = frozenset(methods)
        self.channel.withheld = self.withheld

    def use_transport(self, transport):
        """Start the RpcChannel over ``transport`` (a fresh one, or a kept session's)."""
        self.transport = transport
        self.channel = RpcChannel(transport, self.log, self._notification, self._server_request, self.deadline,
                                  self.withheld)
        self.channel.added_meta = self.added_meta
        self.channel.watchers = self.wire_observers
        self.channel.start()
        if self.closed:  # closed from another thread while it started: no server may outlive that
            self.channel.close()
            raise ConnectionFailed("the connection attempt was cancelled")

    def client_capabilities(self, declare_tasks=False, method=None):
        capabilities = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
        if self.extensions:  # --advertise-apps: declared in either era
            capabilities["extensions"] = dict(self.extensions)
        return self.era.client_capabilities(capabilities, declare_tasks, method)

    # -- requests ---------------------------------------------------------------------

    def request(self, method, params=None, declare_tasks=False, tool=None, timeout=None, max_time=None,
                on_progress=None, request_id=None, cached=False):
        """Send one request in the session's era and return its final result: MRTR rounds
        are answered here, and resultType is checked against what the request allows.
        With ``cached``, a fresh result an earlier command kept (2026-07-28) is the answer;
        either way a cacheable result that arrives is kept."""
        return self.era.request(method, params, declare_tasks, tool, timeout, max_time, on_progress, request_id,
                                cached)

    @staticmethod
    def refused_as_unknown_era(exc):
        """A refusal (nothing ran) that may mean the server no longer speaks what the
        server/discover result an earlier command kept said."""
        if isinstance(exc, HttpStatusError):
            return exc.status in (400, 404, 405)
        return exc.code in (-32022, -32600) or (exc.code in SERVER_ERRORS and re.search(
            r"session|initiali[sz]", exc.rpc_message or "", re.I) is not None)  # a legacy server's "initialize first"

    def probe_again(self, method, params, declare_tasks, tool, timeout, max_time, on_progress):
        """Forget what was kept about this server, open it afresh and send the request once more."""
        if self.log:
            self.log.event("session", "the server refused a request made from a kept discover; probing again")
        self.cache.drop(*CACHED_METHODS)
        self.cached.clear()
        self.channel.close()
        self.open()
        return self.request(method, params, declare_tasks, tool, timeout, max_time, on_progress)

    def http_session_id(self):
        """The 2025-11-25 HTTP session id requests go out under now, or None."""
        return self.transport.session_id

    def next_request_id(self):
        """A JSON-RPC id of this session's own, for a request the caller may cancel later."""
        return self.channel.next_id()

    def keeper_control(self, op, **fields):
        """An operation of the keeper that holds this kept session (@NAME); its answer."""
        return self.transport.control(op, **fields)

    def stderr_lines(self):
        """A stdio server's last lines on stderr (none for other servers, or before one started)."""
        return list(self.transport.stderr_tail) if self.transport is not None else []

    def start_over_if_lost(self, exc, sent_under):
        """When ``exc`` says the server has forgotten the HTTP session a request was sent
        under (``sent_under``, from http_session_id), initialize a new session, once however
        many requests in flight ran into it. True when the request may be sent again."""
        with self._start_over_lock:
            if not self._session_lost(exc):
                return False
            if self.http_session_id() != sent_under:
                return True  # a request that failed alongside it has already started the new one
            if self.log:
                self.log.event("session", "session lost; initializing again")
            if self.resumed:
                self.notice("The server no longer knows the session this task was created in; starting a new one "
                            "and trying once more (a server that keeps tasks per session will not know the task).")
                self.resumed = False
            self.transport.session_id = None
            LegacyEra(self).handshake(self.protocol_version)
            return True

    def _session_lost(self, exc):
        if not self.http_session_id():
            return False
        if isinstance(exc, HttpStatusError):
            return exc.status == 404 or (exc.status == 400 and b"session" in exc.body.lower())
        if not isinstance(exc, RpcError):  # unreachable, cut, timed out: not a forgotten session
            return False
        return "session" in exc.rpc_message.lower() and exc.code in SERVER_ERRORS

    def answer_input_requests(self, requests):
        """Answer MRTR or task inputRequests (a map of key -> {method, params})."""
        if not isinstance(requests, dict):
            raise ProtocolViolation("inputRequests is not an object")
        answers = {}
        for key, item in requests.items():
            if not isinstance(item, dict) or "method" not in item:
                raise ProtocolViolation("input request %r has no method" % key)
            answers[key] = self.responder.answer(item["method"], item.get("params") or {}, self.display_name())
        return answers

    def roots_changed(self):
        """The client's roots changed. A handshake-era server is told (notifications/roots/
        list_changed); a 2026-07-28 server asks for roots with each request that needs them.
        Returns whether a notification went out."""
        return self.era.roots_changed()

    def cancel_request(self, request_id, reason="cancelled by the user"):
        """Stop a request in flight (notifications/cancelled, or its stream closed under
        2026-07-28 HTTP); its caller gets RequestCancelled. False if it had already ended."""
        return self.channel.cancel(request_id, reason)

    def notify(self, method, params=None):
        self.channel.notify(method, params, self.era.notification_headers())

    # -- what the server sends --------------------------------------------------------

    def _notification(self, message):
        stale = LIST_CHANGED_METHODS.get(message.get("method"))
        if stale and self.cache is not None:
            self.cache.drop(*stale)
        for observer in list(self.observers):
            observer(message)

    def _server_request(self, message):
        self.era.answer_server_request(message)

    # -- facts about the server ---------------------------------------------------------

    @property
    def era_label(self):
        return self.era.label

    def era_states(self, fact):
        """What the negotiated era states of ``fact``: one of the Era attributes `check` holds
        a server to (lists_other_versions, tools_declare_task_support, any_output_schema, ...)."""
        return getattr(self.era, fact)

    def summary(self):
        """What `server` prints and the TUI's server tab shows, in one shape for both eras."""
        return {"serverInfo": self.server_info, "era": self.era.name, "protocolVersion": self.protocol_version,
                "transport": self.transport.name, "supportedVersions": self.supported_versions,
                "capabilities": self.capabilities, "instructions": self.instructions}

    def ping(self, timeout=None):
        """Ask the server for a sign of life; returns the method that asked (2026-07-28 has no ping).
        ``timeout`` bounds the wait, progress or not."""
        return self.era.ping(timeout)

    def set_log_level(self, level):
        """Server log messages from ``level`` up: logging/setLevel in the handshake era; in
        2026-07-28 every request from now on carries the level in its _meta."""
        self.era.set_log_level(level)
        self.log_level = level

    def sends_param_headers(self):
        """Whether x-mcp-header annotations become Mcp-Param-* headers (2026-07-28 over HTTP)."""
        return self.era.sends_param_headers()

    def check_direct_call(self, tool):
        """Refuse, before sending, a plain call of a tool that runs only as a task: a 2025-11-25
        tool says so in its listing, while a 2026-07-28 server decides per call (-32021)."""
        if self.era.call_refused_before_sending(tool):
            raise TaskRequired(tool["name"])

    def stamped(self, params, method=None):
        """``params`` as this session's era sends them (for a probe that makes its own request)."""
        return self.era.stamp(params, method=method)

    def call_needs_task(self, tool):
        """Whether ``tool``'s listing says it runs only as a task (a call then starts as one)."""
        return listed_task_support(tool) == "required"

    def listen_for_list_changes(self):
        """2026-07-28 servers send list_changed only on a subscriptions/listen stream; under
        2025-11-25 they come on the GET stream. Either way they reach the observers."""
        self.era.listen_for_list_changes()

    def display_name(self):
        info = self.server_info or {}
        return info.get("title") or info.get("name") or (
            masked_url(self.spec.url) if self.spec.url else self.spec.describe())

    def open_server_stream(self):
        """Legacy Streamable HTTP: hold the GET stream for notifications and requests."""
        self.era.open_server_stream()

    def watch(self, uris, on_message, held=None):
        """Change notifications (list changes, updates of ``uris``, and whatever else the
        server sends unasked) go to ``on_message`` until the returned watch is closed;
        ``held``: a HeldNotifications observer, whose notifications come first."""
        return ChangeWatch(self, uris, on_message, held)

    def unsubscribe_resource(self, uri):
        """resources/unsubscribe (2025-11-25). False under 2026-07-28, where a subscription
        is the listen stream that made it and ends with it."""
        return self.era.unsubscribe_resource(uri)

    def listen(self, filters, on_message, declare_tasks=False):
        """2026-07-28 subscriptions/listen: notifications for ``filters`` go to
        ``on_message`` until the returned subscription is closed."""
        return Subscription(self, filters, on_message, declare_tasks)

    def connection_lost(self):
        """The error that ended the connection, or None while it is up: a stdio server's exit,
        the end of the listen stream (2026-07-28) or of the GET stream (2025-11-25 HTTP) that
        could not be opened again."""
        if self.closed or self.channel is None:
            return None
        listener = self.change_listener
        return (self.channel.closed_error() or (listener.lost if listener is not None else None)
                or self.transport.stream_lost)

    def close(self):
        """Safe from any thread, also while open() runs on another one (that attempt fails)."""
        self.closed = True
        if self.channel is not None:
            self.channel.close()


class Subscription:
    def __init__(self, session, filters, on_message, declare_tasks):
        self.session = session
        self.request_id = session.channel.next_id()
        self.acknowledged = threading.Event()
        self.accepted = None
        self.error = None  # why the listen ended before its acknowledgement
        self.lost = None  # why the listen ended, when close() did not end it
        self._closed = False
        self._on_message = on_message
        session.channel.listeners[json.dumps(self.request_id)] = self._deliver
        params = {"notifications": filters}
        threading.Thread(target=self._run, args=(params, declare_tasks), daemon=True).start()

    def _deliver(self, message):
        if message.get("method") == "notifications/subscriptions/acknowledged":
            self.accepted = (message.get("params") or {}).get("notifications")
            self.acknowledged.set()
            return
        self._on_message(message)

    def _run(self, params, declare_tasks):
        ended = ConnectionFailed("the server ended the subscriptions/listen stream")
        try:
            self.session.request("subscriptions/listen", params, declare_tasks=declare_tasks,
                                 timeout=365 * 86400.0, max_time=365 * 86400.0, request_id=self.request_id)
        except McpTuiError as exc:
            if not self.acknowledged.is_set():
                self.error = exc
            ended = exc
        if not self._closed:
            self.lost = ended
        self.acknowledged.set()

    def close(self):
        """End the listen the way any request is cancelled (RpcChannel.cancel); one the
        server already ended is not cancelled again."""
        self._closed = True
        channel = self.session.channel
        channel.listeners.pop(json.dumps(self.request_id), None)
        channel.cancel(self.request_id, "the watch ended")


LIST_CHANGE_FILTERS = {"tools": "toolsListChanged", "prompts": "promptsListChanged",
                       "resources": "resourcesListChanged"}


def list_change_filters(capabilities):
    """The subscriptions/listen filters for the lists a server says change (listChanged), in
    name order: the watch reports the ones a server's acknowledgement leaves out in it."""
    return {name: True for kind, name in sorted(LIST_CHANGE_FILTERS.items())
            if (capabilities.get(kind) or {}).get("listChanged")}


class HeldNotifications:
    """A session observer that keeps what arrives until ``release(sink)``, then hands the kept
    notifications and every later one to ``sink``, in order: `watch` misses none of those
    that come while the session opens (a 2025-11-25 server's list changes during
    logging/setLevel)."""

    def __init__(self):
        self._held = []
        self._sink = None
        self._lock = threading.Lock()

    def __call__(self, message):
        with self._lock:  # a release() under way finishes first: the order stays
            if self._sink is None:
                self._held.append(message)
                return
        self._sink(message)

    def release(self, sink):
        with self._lock:
            held, self._held = self._held, []
            for message in held:
                sink(message)
            self._sink = sink


class ChangeWatch:
    """Notifications until close(), in whichever era: 2025-11-25 holds the GET stream and
    subscribes with resources/subscribe; 2026-07-28 keeps one subscriptions/listen open
    and reports what its acknowledgement left out in ``refused``. ``held``: the session's
    HeldNotifications since it opened, whose notifications come first (2025-11-25; under
    2026-07-28 change notifications come only on the listen stream)."""

    def __init__(self, session, uris, on_message, held=None):
        self.session = session
        self.uris = list(uris)
        self.refused = []
        self.nothing_to_listen_for = False  # 2026-07-28: the server announced no list changes (and no URIs)
        self._on_message = on_message
        self._observer = None  # what the session's observers hold for this watch (2025-11-25)
        self._subscription = None
        self._subscribed = []
        if self.uris and not (session.capabilities.get("resources") or {}).get("subscribe"):
            raise UsageError("the server does not offer resource subscriptions (no resources.subscribe "
                             "capability); nothing was sent")
        if session.era.listens_for_changes:
            if held in session.observers:
                session.observers.remove(held)
            self._listen()
            return
        self._observer = held or self._deliver
        if held is None:
            session.observers.append(self._deliver)
        else:
            held.release(self._deliver)
        session.open_server_stream()
        for uri in self.uris:
            session.request("resources/subscribe", {"uri": uri})
            self._subscribed.append(uri)

    def _listen(self):
        filters = list_change_filters(self.session.capabilities)
        if self.uris:
            filters["resourceSubscriptions"] = self.uris
        if not filters:  # a listen for nothing: servers that announce nothing answer it -32601
            self.nothing_to_listen_for = True
            return
        subscription = self._subscription = self.session.listen(filters, self._deliver)
        if not subscription.acknowledged.wait(self.session.timeout):
            subscription.close()
            raise RequestTimeout("no acknowledgement of subscriptions/listen within %s" % seconds_text(
                self.session.timeout))
        if subscription.error is not None:
            raise subscription.error
        accepted = subscription.accepted if isinstance(subscription.accepted, dict) else {}
        kept = accepted.get("resourceSubscriptions") or ()
        self.refused = [name for name in filters if name != "resourceSubscriptions" and not accepted.get(name)] + [
            uri for uri in self.uris if uri not in kept]

    def _deliver(self, message):
        if message.get("method") != "notifications/subscriptions/acknowledged":
            self._on_message(message)

    def lost(self):
        """Why nothing more can arrive (the server, its session or its stream went away), or None."""
        subscription = self._subscription
        return self.session.connection_lost() or (subscription.lost if subscription is not None else None)

    def close(self):
        if self._subscription is not None:
            self._subscription.close()
            return
        if self._observer in self.session.observers:
            self.session.observers.remove(self._observer)
        for uri in self._subscribed:
            try:
                self.session.request("resources/unsubscribe", {"uri": uri}, timeout=DELETE_TIMEOUT)
            except McpTuiError:
                pass  # the session ends next; its subscriptions with it


# ======================================================================================
# 3. Features: tools, resources, prompts, completion, the client's side of input
#    requests (elicitation, sampling, roots), and then tasks
#
# Tasks have one model (Task, in the extension's field names) and one interface
# (TaskForm). ExtensionTasks speaks io.modelcontextprotocol/tasks (2026-07-28);
# ExperimentalTasks speaks the 2025-11-25 form. ``tasks_for(session)`` picks the
# adapter by the session's era; the CLI and the TUI talk to the interface.
# ======================================================================================


# -- 3a. Catalog and arguments: paginated lists, tools, k=v arguments coerced by schema ---


def list_all(session, method, key, params=None, cached=False):
    """Every page of a paginated list, with guards against cursor loops and endless lists;
    with ``cached``, pages an earlier command kept while they are fresh (Session.request).
    The pages together may hold no more than one message may (--max-message-size), counted
    as their items' JSON: many pages just under the limit would otherwise pile up."""
    items, cursor, seen, size = [], None, set(), 0
    while True:
        if len(seen) >= session.max_pages:
            error = McpTuiError("%s: the server has more than %d pages; stopping at the --max-pages limit" % (
                method, session.max_pages), hint="raise --max-pages if the list really is that long")
            error.partial = items
            raise error
        page_params = dict(params or {})
        if cursor is not None:
            page_params["cursor"] = cursor
        try:
            result = session.request(method, page_params, cached=cached)
        except McpTuiError as exc:
            exc.partial = items
            raise
        page = result.get(key)
        if not isinstance(page, list):
            raise ProtocolViolation("%s: the result has no %r list" % (method, key))
        try:
            size += len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
        except RecursionError:  # items nested that deep were read, and are counted as one message
            size += session.max_message_size // 2
        if size > session.max_message_size:
            error = McpTuiError("%s: the server's %d pages add up to more than %s, the --max-message-size "
                                "limit on a whole list" % (method, len(seen) + 1, size_text(session.max_message_size)),
                                hint="raise --max-message-size if the list really is that long")
            error.partial = items
            raise error
        items.extend(page)
        cursor = result.get("nextCursor")
        if not cursor:
            return items
        if cursor in seen:
            raise ProtocolViolation("%s: the server repeated a cursor; stopping pagination" % method)
        seen.add(cursor)


def list_tools(session, cached=False):
    """The server's tools, and warnings for tools dropped because their x-mcp-header
    annotations are invalid (2026-07-28 over HTTP, where the headers are sent)."""
    tools, warnings = [], []
    check_headers = session.sends_param_headers()
    for tool in list_all(session, "tools/list", "tools", cached=cached):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise ProtocolViolation("tools/list: a tool without a name")
        if check_headers:
            try:
                tool_param_headers(tool)
            except ValueError as exc:
                warnings.append("tool %r left out: %s" % (tool["name"], exc))
                continue
        tools.append(tool)
    return tools, warnings


def tools_by_name(session, refresh=False):
    """The session's tools by name, listed once and kept for the session (a fresh list an
    earlier command kept will do, unless ``refresh``)."""
    if refresh or session.tools is None:
        session.tools = {tool["name"]: tool for tool in list_tools(session, cached=not refresh)[0]}
    return session.tools


def find_tool(session, name, after_call=False):
    """The tool called ``name``. An unknown name is a usage error (exit 2: no call was
    sent), unless ``after_call``: the server refused a call, and its new list agrees."""
    tool = tools_by_name(session).get(name)
    if tool is None and session.answered_from_cache("tools/list"):
        tool = tools_by_name(session, refresh=True).get(name)  # the kept list may predate the tool
    if tool is None:
        known = sorted(tools_by_name(session))
        hint = did_you_mean(name, known, "its tools: %s" % (", ".join(known) or "none"))
        if after_call:
            raise McpTuiError("the server has no tool named %r" % name, hint=hint)
        raise UsageError("the server has no tool named %r; nothing was sent" % name, hint=hint)
    return tool


def did_you_mean(name, known, otherwise):
    """"did you mean 'X'?" for the known name closest to a misspelt one, else ``otherwise``."""
    import difflib  # only for a name that is not known (~1 ms)

    close = difflib.get_close_matches(name, list(known), 1)
    return "did you mean %r?" % close[0] if close else otherwise


def schema_types(schema):
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    types = []
    for keyword in ("anyOf", "oneOf"):
        subs = schema.get(keyword)
        for sub in subs if isinstance(subs, list) else ():
            types.extend(t for t in schema_types(sub) if t not in types)
    if not types and isinstance(schema.get("enum"), list):
        types = sorted({json_type(v) for v in schema["enum"]})
    return types


def json_type(value):
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "string")


def a_json_type(value):
    """"an integer", "a string": the JSON type of ``value`` in a sentence."""
    return a_type(json_type(value))


def a_type(kind):
    """A JSON Schema type in a sentence: "an integer", "a string", "null"."""
    if kind == "null":
        return kind
    return ("an " if kind[:1] in ("a", "e", "i", "o", "u") else "a ") + kind


def coerce_value(text, schema, key):
    """k=v: a string, unless the schema says the property is something else."""

    types = schema_types(schema)
    if not types or "string" in types:
        return text
    for kind in types:
        if kind in ("integer", "number") and re.match(r"^-?\d+$", text.strip()):
            try:
                return int(text)
            except ValueError:  # more digits than int() takes (Python 3.11+)
                continue
        if kind == "number":
            try:
                number = float(text)
            except ValueError:
                continue
            if number == number and number not in (float("inf"), float("-inf")):
                return number
        if kind == "boolean" and text.lower() in ("true", "false", "1", "0", "yes", "no", "on", "off"):
            return text.lower() in ("true", "1", "yes", "on")
        if kind == "null" and text in ("null", ""):
            return None
        if kind in ("array", "object"):
            try:
                value = strict_json(text)
            except (ValueError, RecursionError):
                value = None
            if json_type(value) == kind:
                return value
            if kind == "array":  # a,b,c: each item as items.type says; one value is a one-item array
                items = schema.get("items") if isinstance(schema.get("items"), dict) else None
                try:
                    return [coerce_value(part.strip(), items, key) for part in text.split(",")] if text else []
                except UsageError:
                    continue
    raise UsageError("argument %r must be %s, got %r" % (key, " or ".join(a_type(kind) for kind in types), text),
                     hint="when in doubt, pass the JSON value itself: %s:=JSON" % key)


def read_argument_file(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except OSError as exc:
        raise UsageError("cannot read %s: %s" % (path, exc.strerror or exc))
    except UnicodeDecodeError:
        raise UsageError("%s is not UTF-8 text" % path)


def load_json_argument(text, what):
    try:
        return strict_json(text)
    except ValueError as exc:
        raise UsageError("%s is not valid JSON: %s" % (what, exc))
    except RecursionError:
        raise UsageError("%s is nested too deeply" % what)


def parse_arguments(words, schema=None, args_json=None, stdin=None, strings_only=False):
    """Build an arguments object from k=v, k:=JSON, k=@file, k:=@file, a lone ``-``
    (a JSON object on stdin) and --args-json (JSON text, - for stdin, or @file as curl's -d
    takes it: JSON text never starts with @)."""
    arguments = {}

    def merge_object(text, what):
        value = load_json_argument(text, what)
        if not isinstance(value, dict):
            raise UsageError("%s must be a JSON object" % what)
        arguments.update(value)

    if args_json is not None:
        if args_json == "-":
            args_json = (stdin or sys.stdin).read()
        elif args_json.startswith("@") and len(args_json) > 1:
            args_json = read_argument_file(args_json[1:])
        merge_object(args_json, "--args-json")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    properties = properties if isinstance(properties, dict) else {}
    for word in words:
        if word == "-":
            merge_object((stdin or sys.stdin).read(), "standard input")
            continue
        key, op, value = split_key_value(word)
        if value.startswith("@") and len(value) > 1:
            value = read_argument_file(value[1:])
        if op == ":=":
            arguments[key] = load_json_argument(value, "the value of %r" % key)
        elif strings_only:
            arguments[key] = value
        else:
            arguments[key] = coerce_value(value, properties.get(key), key)
    for key, value in arguments.items() if strings_only else ():  # prompt and completion arguments
        if not isinstance(value, str):
            raise UsageError("argument %r must be a string, not %s (prompt and completion arguments are strings: "
                             "write %s=VALUE)" % (key, a_json_type(value), key))
    return arguments


def split_key_value(word):
    for index, char in enumerate(word):
        if char == "=" and index:
            if word[index - 1] == ":" and index > 1:
                return word[:index - 1], ":=", word[index + 1:]
            return word[:index], "=", word[index + 1:]
    raise UsageError("expected key=value, key:=JSON or key=@file, got %r" % word)


def check_names(arguments, known, what, strict=True):
    """An argument name that is not declared: an error with "did you mean" (or, when not
    ``strict``, only when a declared name is that close: the schema may allow others).
    Returns the undeclared names it let through."""
    undeclared = []
    for key in arguments:
        if key in known:
            continue
        listing = "its arguments: %s" % (", ".join(known) or "none")
        hint = did_you_mean(key, known, listing)
        if strict or hint != listing:
            raise UsageError("unknown argument %r for %s" % (key, what), hint=hint)
        undeclared.append(key)
    return undeclared


def check_tool_arguments(arguments, schema, name):
    """Before sending: required arguments present, and no misspelt name. Returns a warning
    for the undeclared names the schema lets through (it does not forbid other properties),
    or None."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    undeclared = check_names(arguments, sorted(properties), "tool %r" % name,
                             strict=schema.get("additionalProperties") is False)
    check_required(arguments, schema, "tool %r" % name)
    if not undeclared:
        return None
    return "warning: tool %r does not declare %s (its arguments: %s); sent anyway, as its schema allows others" % (
        name, ", ".join(repr(key) for key in undeclared), ", ".join(sorted(properties)) or "none")


def find_prompt(session, name):
    prompts = {prompt.get("name"): prompt for prompt in list_all(session, "prompts/list", "prompts")
               if isinstance(prompt, dict)}
    if name not in prompts:
        known = sorted(p for p in prompts if isinstance(p, str))
        raise UsageError("the server has no prompt named %r; nothing was sent" % name,
                         hint=did_you_mean(name, known, "its prompts: %s" % (", ".join(known) or "none")))
    return prompts[name]


def prompt_arguments(prompt):
    """The arguments a prompt's listing declares (the ones with a name)."""
    return [a for a in prompt.get("arguments") or () if isinstance(a, dict) and isinstance(a.get("name"), str)]


def check_prompt_arguments(prompt, arguments, complete=False):
    """Before sending: no misspelt name, and (unless ``complete``: the values given so far to
    complete one) the required ones present."""
    declared = prompt_arguments(prompt)
    what = "prompt %r" % prompt["name"]
    check_names(arguments, [a["name"] for a in declared], what)
    if not complete:
        check_required(arguments, {"required": [a["name"] for a in declared if a.get("required")]}, what)


def check_required(arguments, schema, what):
    required = schema.get("required") if isinstance(schema, dict) else None
    missing = [str(key) for key in (required if isinstance(required, list) else ()) if key not in arguments]
    if missing:
        raise UsageError("missing required argument%s for %s: %s" % (
            "s" if len(missing) > 1 else "", what, ", ".join(missing)))


TEMPLATE_EXPRESSION = r"\{([+#./;?&]?)([^}]*)\}"


def expression_variables(body):
    """The variable names of one template expression's body ("a,b*,c:3" -> a, b, c)."""
    return [spec.split(":")[0].rstrip("*").strip() for spec in body.split(",")]


def template_variables(template):
    """The variables of an RFC 6570 URI template, in order ({id}, {+path}, {?a,b*})."""
    names = []
    for _, body in re.findall(TEMPLATE_EXPRESSION, template):
        for name in expression_variables(body):
            if name and name not in names:
                names.append(name)
    return names


def complete_argument(session, ref, name, value, context=None):
    """completion/complete for one argument of a prompt (ref/prompt) or a resource template
    (ref/resource); ``context``: the other arguments already given. Returns the result; its
    ``completion`` holds values, total and hasMore."""
    params = {"ref": ref, "argument": {"name": name, "value": value}}
    if context:
        params["context"] = {"arguments": context}
    return session.request("completion/complete", params)


def call_tool(session, name, arguments, on_progress=None, request_id=None):
    """A plain tools/call (never a task). Returns the CallToolResult; raises TaskRequired
    for a tool that runs only as a task. When the tool came from a list an earlier command
    kept and the server says that list is out of date, it lists again and calls once more.
    ``request_id``: to cancel the call with session.cancel_request (the second call, a new
    request, gets a new id)."""
    called = False
    while True:
        tool = find_tool(session, name, after_call=called)
        session.check_direct_call(tool)
        params = {"name": name, "arguments": arguments,
                  "_meta": {"progressToken": "mcp-tui-%d" % session.channel.next_id()}}
        from_cache = session.answered_from_cache("tools/list")
        try:
            return session.request("tools/call", params, tool=tool, on_progress=on_progress, request_id=request_id)
        except RpcError as exc:
            if not (from_cache and session.stale_tool_error(exc)):
                raise
        called, request_id = True, None
        tools_by_name(session, refresh=True)


# -- surface: a server's tools, prompts and resources as a snapshot, and what changed ---


SNAPSHOT_FORMAT = 1
SURFACE_KINDS = (("tools", "name", "tool"), ("prompts", "name", "prompt"), ("resources", "uri", "resource"),
                 ("resourceTemplates", "uriTemplate", "resource template"))
SURFACE_LISTS = {"tools": ("tools", "tools/list"), "prompts": ("prompts", "prompts/list"),
                 "resources": ("resources", "resources/list"),
                 "resourceTemplates": ("resources", "resources/templates/list")}
# Fields that differ between two listings of the same server: left out of a snapshot.
VOLATILE_FIELDS = ("_meta", "lastModified", "size")
CHANGE_CLASSES = ("breaking", "additive", "cosmetic")


def without_volatile(value):
    """``value`` with VOLATILE_FIELDS left out at every depth."""
    if isinstance(value, dict):
        return {key: without_volatile(item) for key, item in value.items() if key not in VOLATILE_FIELDS}
    if isinstance(value, list):
        return [without_volatile(item) for item in value]
    return value


def surface_snapshot(session):
    """The server's surface as `snapshot` writes it: every page of every list the server
    declares, each item keyed and sorted, volatile fields left out."""
    summary = session.summary()
    capabilities = summary["capabilities"] or {}
    info = summary["serverInfo"] if isinstance(summary["serverInfo"], dict) else {}
    snapshot = {"snapshotFormat": SNAPSHOT_FORMAT, "era": summary["era"], "protocolVersion": summary["protocolVersion"],
                "server": without_volatile({key: info[key] for key in ("name", "title", "version") if key in info}),
                "capabilities": without_volatile(capabilities)}
    for kind, key, _ in SURFACE_KINDS:
        capability, method = SURFACE_LISTS[kind]
        if capability not in capabilities:
            snapshot[kind] = []
            continue
        items = list_tools(session)[0] if kind == "tools" else list_all(session, method, kind)
        items = [without_volatile(item) for item in items if isinstance(item, dict) and isinstance(item.get(key), str)]
        snapshot[kind] = sorted(items, key=lambda item: item[key])
    return snapshot


def check_snapshot(value, where):
    """A snapshot read from a file, or a UsageError naming the file."""
    if not isinstance(value, dict) or not isinstance(value.get("snapshotFormat"), int):
        raise UsageError("%s is not an mcp-tui snapshot (no snapshotFormat)" % where,
                         hint="make one with: mcp-tui CONNECTION snapshot -o FILE")
    if value["snapshotFormat"] > SNAPSHOT_FORMAT:
        raise UsageError("%s is a snapshot of format %d; this mcp-tui reads format %d" % (
            where, value["snapshotFormat"], SNAPSHOT_FORMAT))
    for key in ("server", "capabilities"):
        if not isinstance(value.get(key, {}), dict):
            raise UsageError("%s: %r must be an object" % (where, key))
    for kind, key, _ in SURFACE_KINDS:
        items = value.get(kind, [])
        if not isinstance(items, list) or not all(isinstance(i, dict) and isinstance(i.get(key), str) for i in items):
            raise UsageError("%s: %r must be a list of objects with a %r" % (where, kind, key))
    return value


def pointer(*parts):
    """A JSON pointer to a place in a snapshot (RFC 6901 escapes)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


class SurfaceDiff:
    """The changes between two snapshots, each classified: breaking (a client that worked
    may now fail), additive (something new) or cosmetic (words only)."""

    # Input schema keywords that say nothing about what is accepted.
    WORDS = ("title", "description", "default", "examples", "$comment")

    def __init__(self, old, new):
        self.changes = []
        self.item = None
        self.compare_server(old, new)
        for kind, key, label in SURFACE_KINDS:
            self.compare_items(kind, key, label, old.get(kind) or [], new.get(kind) or [])

    def add(self, kind, path, text, old=None, new=None, **values):
        change = {"class": kind, "item": self.item, "path": pointer(*path), "change": text}
        if old is not None:
            change["old"] = old
        if new is not None:
            change["new"] = new
        change.update(values)
        self.changes.append(change)

    def compare_server(self, old, new):
        self.item = "server"
        for key in ("era", "protocolVersion"):
            if old.get(key) != new.get(key):
                self.add("additive", (key,), "%s changed" % key, old.get(key), new.get(key))
        old_info, new_info = old.get("server") or {}, new.get("server") or {}
        for key in sorted(set(old_info) | set(new_info)):
            if old_info.get(key) != new_info.get(key):
                self.add("cosmetic", ("server", key), "server %s changed" % key, old_info.get(key), new_info.get(key))
        self.item = "capabilities"
        self.compare_capabilities(old.get("capabilities") or {}, new.get("capabilities") or {}, ("capabilities",))

    def compare_capabilities(self, old, new, path):
        for key in sorted(set(old) | set(new)):
            here = path + (key,)
            name = "/".join(here[1:])
            if key not in new:
                self.add("breaking", here, "capability %s dropped" % name, old[key])
            elif key not in old:
                self.add("additive", here, "capability %s added" % name, None, new[key])
            elif isinstance(old[key], dict) and isinstance(new[key], dict):
                self.compare_capabilities(old[key], new[key], here)
            elif old[key] != new[key]:
                kind = "breaking" if old[key] and not new[key] else "additive"
                self.add(kind, here, "capability %s changed" % name, old[key], new[key])

    def compare_items(self, kind, key, label, old_items, new_items):
        old_by_key = {item[key]: item for item in old_items}
        new_by_key = {item[key]: item for item in new_items}
        for name in sorted(set(old_by_key) | set(new_by_key)):
            self.item = "%s %s" % (label, name)
            path = (kind, name)
            if name not in new_by_key:
                self.add("breaking", path, "%s removed" % label, name)
            elif name not in old_by_key:
                self.add("additive", path, "new %s" % label, None, name)
            else:
                getattr(self, "compare_" + kind)(old_by_key[name], new_by_key[name], path)

    def compare_words(self, old, new, path, keys):
        for key in keys:
            if old.get(key) != new.get(key):
                self.add("cosmetic", path + (key,), "%s changed" % key, old.get(key), new.get(key))

    def compare_rest(self, old, new, path, known, kind="cosmetic"):
        """Fields no rule above names: a change to them is ``kind``."""
        for key in sorted((set(old) | set(new)) - set(known)):
            if old.get(key) != new.get(key):
                self.add(kind, path + (key,), "%s changed" % key, old.get(key), new.get(key))

    def compare_tools(self, old, new, path):
        self.compare_words(old, new, path, ("title", "description"))
        old_hints, new_hints = old.get("annotations") or {}, new.get("annotations") or {}
        if isinstance(old_hints, dict) and isinstance(new_hints, dict):
            self.compare_words(old_hints, new_hints, path + ("annotations",), sorted(set(old_hints) | set(new_hints)))
        self.compare_input(old.get("inputSchema"), new.get("inputSchema"), path + ("inputSchema",), "argument")
        self.compare_output(old.get("outputSchema"), new.get("outputSchema"), path + ("outputSchema",))
        old_support, new_support = listed_task_support(old) or "forbidden", listed_task_support(new) or "forbidden"
        if old_support != new_support:
            kind = "additive" if new_support == "optional" else "breaking"
            self.add(kind, path + ("execution", "taskSupport"), "task support changed", old_support, new_support)
        self.compare_rest(old, new, path, ("name", "title", "description", "annotations", "inputSchema",
                                           "outputSchema", "execution"))

    def compare_input(self, old, new, path, what):
        """An input schema: what a client sends. Narrowing what is accepted breaks clients."""
        old, new = old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}
        old_types, new_types = schema_types(old), schema_types(new)
        if old_types and new_types:
            lost = [t for t in old_types if not types_accept(new_types, t)]
            gained = [t for t in new_types if not types_accept(old_types, t)]
            if lost:
                self.add("breaking", path + ("type",), "type narrowed", old.get("type"), new.get("type"))
            elif gained:
                self.add("additive", path + ("type",), "type widened", old.get("type"), new.get("type"))
        self.compare_enum(old, new, path, lost_kind="breaking", new_kind="additive")
        old_props, new_props = properties_of(old), properties_of(new)
        old_required, new_required = required_of(old), required_of(new)
        for name in sorted(set(old_props) | set(new_props)):
            here = path + ("properties", name)
            if name not in new_props:
                self.add("breaking", here, "%s %s removed" % (what, name), old_props[name])
            elif name not in old_props:
                required = name in new_required
                self.add("breaking" if required else "additive", here,
                         "new %s %s %s" % ("required" if required else "optional", what, name), None, new_props[name])
            else:
                if name in new_required and name not in old_required:
                    self.add("breaking", here, "%s %s is now required" % (what, name))
                elif name in old_required and name not in new_required:
                    self.add("additive", here, "%s %s is now optional" % (what, name))
                self.compare_input(old_props[name], new_props[name], here, "property")
        if isinstance(old.get("items"), dict) or isinstance(new.get("items"), dict):
            self.compare_input(old.get("items"), new.get("items"), path + ("items",), "property")
        self.compare_words(old, new, path, [key for key in self.WORDS if key in old or key in new])
        known = self.WORDS + ("type", "enum", "properties", "required", "items")
        for key in sorted((set(old) | set(new)) - set(known)):
            if old.get(key) != new.get(key):  # a constraint added or changed narrows; one dropped widens
                kind = "additive" if key not in new else "breaking"
                self.add(kind, path + (key,), "%s changed" % key, old.get(key), new.get(key))

    def compare_output(self, old, new, path):
        """An output schema: what a client reads. A field no longer promised breaks clients."""
        if not isinstance(old, dict) and not isinstance(new, dict):
            return
        if not isinstance(new, dict):
            self.add("breaking", path, "output schema removed", old)
            return
        if not isinstance(old, dict):
            self.add("additive", path, "output schema added", None, new)
            return
        old_types, new_types = schema_types(old), schema_types(new)
        if old_types and new_types and any(not types_accept(old_types, t) for t in new_types):
            self.add("breaking", path + ("type",), "type changed", old.get("type"), new.get("type"))
        self.compare_enum(old, new, path, lost_kind="additive", new_kind="breaking")
        old_props, new_props = properties_of(old), properties_of(new)
        old_required, new_required = required_of(old), required_of(new)
        for name in sorted(set(old_props) | set(new_props)):
            here = path + ("properties", name)
            if name not in new_props:
                self.add("breaking", here, "field %s no longer provided" % name, old_props[name])
            elif name not in old_props:
                self.add("additive", here, "new field %s" % name, None, new_props[name])
            else:
                if name in old_required and name not in new_required:
                    self.add("breaking", here, "field %s is no longer always provided" % name)
                self.compare_output(old_props[name], new_props[name], here)
        if isinstance(old.get("items"), dict) or isinstance(new.get("items"), dict):
            self.compare_output(old.get("items"), new.get("items"), path + ("items",))
        self.compare_words(old, new, path, [key for key in self.WORDS if key in old or key in new])

    def compare_enum(self, old, new, path, lost_kind, new_kind):
        old_values, new_values = old.get("enum"), new.get("enum")
        if not isinstance(old_values, list) or not isinstance(new_values, list):
            if isinstance(new_values, list) != isinstance(old_values, list):  # one side accepts anything
                kind = lost_kind if isinstance(old_values, list) else new_kind
                self.add(kind, path + ("enum",), "enum %s" % ("dropped" if kind == lost_kind else "added"),
                         old_values, new_values)
            return
        for value in old_values:
            if value not in new_values:
                self.add(lost_kind, path + ("enum",), "enum value %s removed" % json.dumps(value), value)
        for value in new_values:
            if value not in old_values:
                self.add(new_kind, path + ("enum",), "new enum value %s" % json.dumps(value), None, value)

    def compare_prompts(self, old, new, path):
        self.compare_words(old, new, path, ("title", "description"))
        old_args, new_args = [prompt_arguments(p) if isinstance(p.get("arguments"), list) else [] for p in (old, new)]
        old_by_name = {a.get("name"): a for a in old_args if isinstance(a, dict)}
        new_by_name = {a.get("name"): a for a in new_args if isinstance(a, dict)}
        for name in sorted(set(old_by_name) | set(new_by_name), key=str):
            here = path + ("arguments", name)
            old_arg, new_arg = old_by_name.get(name), new_by_name.get(name)
            if new_arg is None:
                self.add("breaking", here, "argument %s removed" % name, old_arg)
            elif old_arg is None:
                required = bool(new_arg.get("required"))
                self.add("breaking" if required else "additive", here,
                         "new %s argument %s" % ("required" if required else "optional", name), None, new_arg)
            else:
                if new_arg.get("required") and not old_arg.get("required"):
                    self.add("breaking", here, "argument %s is now required" % name)
                elif old_arg.get("required") and not new_arg.get("required"):
                    self.add("additive", here, "argument %s is now optional" % name)
                self.compare_rest(old_arg, new_arg, here, ("name", "required"))
        self.compare_rest(old, new, path, ("name", "title", "description", "arguments"))

    def compare_resources(self, old, new, path):
        self.compare_words(old, new, path, ("name", "title", "description"))
        if old.get("mimeType") != new.get("mimeType"):
            self.add("breaking", path + ("mimeType",), "mimeType changed", old.get("mimeType"), new.get("mimeType"))
        self.compare_rest(old, new, path, ("uri", "uriTemplate", "name", "title", "description", "mimeType"))

    compare_resourceTemplates = compare_resources

    def counts(self):
        return {kind: sum(1 for change in self.changes if change["class"] == kind) for kind in CHANGE_CLASSES}


def types_accept(types, kind):
    """Whether a schema of ``types`` accepts a value of JSON type ``kind`` (a number
    schema accepts integers)."""
    return kind in types or (kind == "integer" and "number" in types)


def properties_of(schema):
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def required_of(schema):
    required = schema.get("required") if isinstance(schema, dict) else None
    return {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()


# -- skills (SEP-2640) and the views of MCP Apps (SEP-1865) ---------------------------

SKILL_DIGEST = r"sha256:[0-9a-f]{64}\Z"  # lowercase only, as the Inspector checks it
SKILL_MAX_FILES, SKILL_MAX_BYTES = 512, 16 * 1024 * 1024  # what a host must accept (a larger skill is declined)


def app_view(tool):
    """A tool's MCP Apps view, {"resourceUri", "visibility"}, or None: the nested
    ``_meta.ui.resourceUri`` wins over the deprecated flat ``_meta["ui/resourceUri"]``."""
    meta = tool.get("_meta") if isinstance(tool.get("_meta"), dict) else {}
    ui = meta.get("ui") if isinstance(meta.get("ui"), dict) else {}
    uri = ui.get("resourceUri") if isinstance(ui.get("resourceUri"), str) else meta.get("ui/resourceUri")
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        return None
    visibility = ui.get("visibility")
    visibility = [v for v in visibility if isinstance(v, str)] if isinstance(visibility, list) else ["model", "app"]
    return {"resourceUri": uri, "visibility": visibility}


def read_app_view(session, uri):
    """What a host would render for a view: its MIME type, HTML size and SHA-256, and its
    ``_meta.ui`` (CSP, permissions) from the content item, else from the resources/list entry."""
    import hashlib

    result = session.request("resources/read", {"uri": uri})
    items = [c for c in result.get("contents") or () if isinstance(c, dict) and c.get("uri") == uri]
    if not items:
        raise ProtocolViolation("resources/read %s: no contents item for that URI" % uri)
    item, source = items[0], "content"
    ui = (item.get("_meta") or {}).get("ui") if isinstance(item.get("_meta"), dict) else None
    if not isinstance(ui, dict):
        listed = [r for r in list_all(session, "resources/list", "resources") if isinstance(r, dict)
                  and r.get("uri") == uri and isinstance(r.get("_meta"), dict)]
        ui, source = (listed[0]["_meta"].get("ui"), "listing") if listed else (None, None)
    raw = skill_file_bytes(item)
    return {"uri": uri, "mimeType": item.get("mimeType"), "size": len(raw),
            "digest": "sha256:" + hashlib.sha256(raw).hexdigest(), "ui": ui if isinstance(ui, dict) else {},
            "uiSource": source}


def skills_settings(session):
    """The server's Skills settings ({} or {"directoryRead": true}); None where it declares no skills."""
    settings = (session.capabilities.get("extensions") or {}).get(SKILLS_EXTENSION)
    return settings if isinstance(settings, dict) else None


def skills_declared(session):
    """The server's Skills settings, or a UsageError: skills/* is used only where the server
    declared the extension, never probed."""
    settings = skills_settings(session)
    if settings is not None:
        return settings
    raise UsageError("%s does not serve skills (it declares no %s extension in %s); nothing was sent"
                     % (session.display_name(), SKILLS_EXTENSION, session.era_label),
                     hint="skill:// files can still be read with resource read; some servers (FastMCP) serve "
                          "skills only on %s" % MODERN_VERSION)


def skill_path(entry):
    """"acme/refunds" for skill://acme/refunds/SKILL.md: the skill-path, prefix and name."""
    uri = entry.get("uri") if isinstance(entry.get("uri"), str) else ""
    return uri.split("://", 1)[-1].rsplit("/", 1)[0]


def list_skills(session):
    skills_declared(session)
    return [entry for entry in list_all(session, "skills/list", "skills") if isinstance(entry, dict)]


def find_skill(session, word):
    """The entry of skill ``word``: a URI (confirmed with skills/get), else the skill-path
    or the frontmatter name of a listed skill."""
    if "://" in word:
        skills_declared(session)
        entry = session.request("skills/get", {"uri": word}).get("skill")
        if not isinstance(entry, dict):
            raise ProtocolViolation("skills/get: the result has no skill object")
        return entry
    skills = list_skills(session)
    matches = [e for e in skills if skill_path(e) == word] or [
        e for e in skills if isinstance(e.get("frontmatter"), dict) and e["frontmatter"].get("name") == word]
    if len(matches) != 1:
        known = sorted(skill_path(e) for e in skills)
        raise UsageError("%s skill named %r" % ("more than one" if matches else "the server has no", word),
                         hint="give its URI; its skills: %s" % (", ".join(known) or "none"))
    return matches[0]


def skill_entry_problems(entry):
    """Why an entry must not be loaded (§2 step 1 of the Skills brief), in the Inspector's
    words: an empty list when it is sound. A "dynamic" manifest is reported apart."""
    problems, uri = [], entry.get("uri")
    frontmatter = entry.get("frontmatter") if isinstance(entry.get("frontmatter"), dict) else {}
    if not isinstance(uri, str) or not uri.endswith("/SKILL.md"):
        return ["malformed-uri"]
    if not isinstance(frontmatter.get("name"), str):
        problems.append("missing-name")
    elif skill_path(entry).rsplit("/", 1)[-1] != frontmatter["name"]:
        problems.append("name-path-mismatch")
    files = entry.get("resources")
    if files == "dynamic":
        return problems
    if not isinstance(files, list):
        return problems + ["missing-resources"]
    uris = [f.get("uri") if isinstance(f, dict) else None for f in files]
    root = uri[:-len("SKILL.md")]
    problems += ["manifest-missing-self"] * (uri not in uris) + ["duplicate-resource"] * (len(set(uris)) != len(uris))
    problems += ["resource-outside-skill-root"] * any(not isinstance(u, str) or not u.startswith(root) or "/../" in u
                                                      for u in uris)
    problems += ["malformed-digest"] * any(not re.match(SKILL_DIGEST, str(f.get("digest"))) for f in files
                                           if isinstance(f, dict))
    problems += ["missing-size"] * any(not isinstance(f, dict) or type(f.get("size")) is not int or f["size"] < 0
                                       for f in files)
    problems += ["resource-limit-exceeded"] * (len(files) > SKILL_MAX_FILES)
    problems += ["size-limit-exceeded"] * (skill_total_size(entry) > SKILL_MAX_BYTES)
    return problems


def skill_total_size(entry):
    files = entry.get("resources") if isinstance(entry.get("resources"), list) else ()
    return sum(f["size"] for f in files if isinstance(f, dict) and type(f.get("size")) is int)


def skill_file_bytes(content):
    """The exact bytes a digest covers: the UTF-8 of text, the strictly decoded base64 of a blob."""
    import base64
    import binascii

    if isinstance(content.get("text"), str):
        return content["text"].encode("utf-8", "surrogatepass")
    if isinstance(content.get("blob"), str):
        try:
            return base64.b64decode(content["blob"], validate=True)
        except (binascii.Error, ValueError):
            raise ProtocolViolation("%s: the blob is not valid base64" % content.get("uri"))
    raise ProtocolViolation("%s: a contents item with neither text nor blob" % content.get("uri"))


def verify_skill(session, entry):
    """Read every file of the entry's manifest and check it: size, then SHA-256, then (for
    SKILL.md) the frontmatter. Returns rows {uri, status, expected, actual, ...}, with the
    bytes under "raw" for the verified ones; status is verified, size-mismatch,
    digest-mismatch, unreadable, frontmatter-mismatch or frontmatter-unverifiable."""
    import hashlib

    rows = []
    for item in entry["resources"]:
        row = {"uri": item["uri"], "expected": {"size": item["size"], "digest": item["digest"]}}
        rows.append(row)
        try:
            result = session.request("resources/read", {"uri": item["uri"]})
            contents = [c for c in result.get("contents") or () if isinstance(c, dict) and c.get("uri") == item["uri"]]
            if not contents:
                raise ProtocolViolation("no contents item for %s" % item["uri"])
            raw = skill_file_bytes(contents[0])
        except McpTuiError as exc:
            row.update(status="unreadable", error=str(exc))
            continue
        row["actual"] = {"size": len(raw), "digest": "sha256:" + hashlib.sha256(raw).hexdigest()}
        if len(raw) != item["size"]:
            row["status"] = "size-mismatch"
        elif row["actual"]["digest"] != item["digest"]:
            row["status"] = "digest-mismatch"
        else:
            row.update(status="verified", raw=raw)
            if item["uri"] == entry["uri"]:
                row.update(frontmatter_check(raw, entry.get("frontmatter")))
    return rows


def check_skill(session, entry, require_digests=False):
    """A skill's verification, as `skill verify` and the TUI's Skills tab report it: the entry's
    problems, then (for a sound array manifest) every file read and checked (verify_skill).
    ``require_digests``: a "dynamic" manifest fails too."""
    problems = skill_entry_problems(entry)
    dynamic = entry.get("resources") == "dynamic"
    rows = [] if problems or dynamic else verify_skill(session, entry)
    if dynamic:
        problems.append("dynamic-resources")
    failed = any(p != "dynamic-resources" or require_digests for p in problems) or any(
        row["status"] != "verified" for row in rows)
    return {"skill": entry.get("uri"), "path": skill_path(entry), "ok": not failed, "problems": problems,
            "files": rows}


def frontmatter_check(raw, listed):
    """{} when SKILL.md's own frontmatter equals the entry's, else the status and why."""
    try:
        parsed = skill_frontmatter(raw.decode("utf-8"))
    except (UnicodeDecodeError, FrontmatterUnsupported) as exc:
        return {"status": "frontmatter-unverifiable", "error": "cannot verify the frontmatter: %s" % exc}
    if json.dumps(parsed, sort_keys=True) != json.dumps(listed, sort_keys=True):
        return {"status": "frontmatter-mismatch", "error": "the file's frontmatter is %s" % json.dumps(
            parsed, sort_keys=True, ensure_ascii=False)}
    return {}


class FrontmatterUnsupported(ValueError):
    """YAML outside the strict subset skill_frontmatter reads: reported, never guessed."""


YAML_KEY = r"""([A-Za-z0-9_][A-Za-z0-9_.-]*|"[^"\\]*"|'[^']*'):(?:[ ]+(.*)|)\Z"""
YAML_AMBIGUOUS = (r"(?i)(yes|no|on|off|y|n|[-+]?\.(inf|nan)|0[0-7]+|0[xob][0-9a-f_]+|[-+]?[0-9][0-9_]*"
                  r"(\.[0-9_]*)?(e[-+]?[0-9]+)?|[0-9]{4}-[0-9]{2}-[0-9]{2}.*)\Z")  # compiled on first use


def skill_frontmatter(text):
    """The YAML frontmatter of a SKILL.md (between a first line ``---`` and the next) as JSON
    values, read in the strict subset Agent Skills use: block maps and lists, plain and
    quoted scalars. Anything else (flow and block scalars, anchors, tags, a scalar YAML 1.1
    and 1.2 read differently) raises FrontmatterUnsupported."""
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        raise FrontmatterUnsupported("SKILL.md does not start with a --- frontmatter block")
    rows = []
    for number, line in enumerate(lines[1:lines.index("---", 1)], 2):
        content = line.lstrip(" ")
        if content.startswith("\t"):
            raise FrontmatterUnsupported("line %d: a tab in the indentation" % number)
        if content and not content.startswith("#"):
            rows.append((len(line) - len(content), content.rstrip(" "), number))
    if not rows:
        raise FrontmatterUnsupported("the frontmatter is empty")
    value, end = yaml_block(rows, 0, rows[0][0])
    if end != len(rows):
        raise FrontmatterUnsupported("line %d: unexpected indentation" % rows[end][2])
    if not isinstance(value, dict):
        raise FrontmatterUnsupported("the frontmatter is not a mapping")
    return value


def yaml_block(rows, at, indent):
    """The map or list whose rows start at ``at`` with ``indent``; returns it and the next row."""
    is_item = rows[at][1] == "-" or rows[at][1].startswith("- ")
    result = [] if is_item else {}
    while at < len(rows) and rows[at][0] == indent:
        _, content, number = rows[at]
        if is_item != (content == "-" or content.startswith("- ")):
            if is_item:  # the list of a `key:` at its own indent ends where the map's next key starts
                break
            raise FrontmatterUnsupported("line %d: a list and a map mixed" % number)
        if is_item:
            rest, key = content[1:].strip(), None
            if re.match(YAML_KEY, rest):
                raise FrontmatterUnsupported("line %d: a map inside a list item" % number)
        else:
            match = re.match(YAML_KEY, content)
            if not match:
                raise FrontmatterUnsupported("line %d: not a `key: value` line" % number)
            key, rest = match.group(1).strip("\"'"), (match.group(2) or "").strip()
            if key in result:
                raise FrontmatterUnsupported("line %d: the key %r twice" % (number, key))
        at += 1
        if rest:
            value = yaml_scalar(rest, number)
        elif at < len(rows) and (rows[at][0] > indent or (key is not None and rows[at][0] == indent
                                                            and rows[at][1].startswith("- "))):
            value, at = yaml_block(rows, at, rows[at][0])
        else:
            value = None
        if is_item:
            result.append(value)
        else:
            result[key] = value
    return result, at


def yaml_scalar(text, number):
    if text[0] == '"':
        match = re.match(r'"((?:[^"\\]|\\.)*)"(?:\s+#.*)?\Z', text)
        try:
            if match:
                return json.loads('"%s"' % match.group(1))
        except ValueError:  # a YAML escape JSON lacks (\x41, \e, ...)
            pass
        raise FrontmatterUnsupported("line %d: a double-quoted string it cannot read" % number)
    if text[0] == "'":
        match = re.match(r"'((?:[^']|'')*)'(?:\s+#.*)?\Z", text)
        if not match:
            raise FrontmatterUnsupported("line %d: a single-quoted string it cannot read" % number)
        return match.group(1).replace("''", "'")
    text = re.split(r"\s+#", text, 1)[0]
    if text[0] in "[]{}&*!|>%@`,?:" or ": " in text or text.endswith(":"):
        raise FrontmatterUnsupported("line %d: YAML beyond the subset it reads (%s)" % (number, text[:20]))
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return text.lower() == "true"
    if text in ("null", "Null", "NULL", "~"):
        return None
    if re.match(r"[-+]?(0|[1-9][0-9]*)\Z", text):
        return int(text)
    if re.match(r"[-+]?(0|[1-9][0-9]*)\.[0-9]+\Z", text):
        return float(text)
    if re.match(YAML_AMBIGUOUS, text):
        raise FrontmatterUnsupported("line %d: %r reads differently in YAML 1.1 and 1.2" % (number, text))
    return text


# -- 3b. Input requests: the client's answers to elicitation, sampling and roots -------


def form_schema(schema):
    """A server's requestedSchema reduced to what a form can use: object properties and
    string required names (anything else in it is ignored, not a crash)."""
    schema = schema if isinstance(schema, dict) else {}
    properties = schema.get("properties")
    properties = {key: prop for key, prop in properties.items() if isinstance(prop, dict)} if isinstance(
        properties, dict) else {}
    required = schema.get("required")
    required = [key for key in required if isinstance(key, str)] if isinstance(required, list) else []
    return dict(schema, properties=properties, required=required)


def schema_defaults(schema):
    return {key: prop["default"] for key, prop in ((schema or {}).get("properties") or {}).items()
            if isinstance(prop, dict) and "default" in prop}


def normalise_elicited(content, schema):
    """Whole numbers go out as JSON integers (servers may reject 30.0)."""
    properties = (schema or {}).get("properties") or {}
    out = {}
    for key, value in content.items():
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        prop = properties.get(key) or {}
        if isinstance(value, str) and prop.get("type") in ("integer", "number", "boolean"):
            value = coerce_value(value, prop, key)
        out[key] = value
    return out


def constraint_problem(value, schema, depth=0):
    """What a value breaks among JSON Schema's limits: lengths, patterns, formats (date,
    date-time, time, email, uri), ranges and item counts, at every depth of an object or
    array (a nested problem starts with its path: ".zip: at most 99999", "[2].name: ...")."""
    schema = schema if isinstance(schema, dict) else {}
    if depth:  # at the top the form's field (or elicited_problems) has checked type and choice
        types = schema_types(schema)
        if not fits_types(value, types):
            return "must be %s, not %s" % (" or ".join(a_type(t) for t in types), a_json_type(value))
        if isinstance(schema.get("enum"), list) and value not in schema["enum"]:
            return "must be one of %s" % ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    variants = [v for keyword in ("anyOf", "oneOf") for v in (schema.get(keyword) if isinstance(
        schema.get(keyword), list) else ()) if isinstance(v, dict) and fits_types(value, schema_types(v))]
    if variants:  # an object or null, a string or a number: the value must keep the limits of a variant of its type
        problems = [constraint_problem(value, variant, depth + 1) for variant in variants]
        if None not in problems:
            return problems[0]
    if isinstance(value, str):
        if isinstance(schema.get("minLength"), int) and len(value) < schema["minLength"]:
            return "at least %d characters" % schema["minLength"]
        if isinstance(schema.get("maxLength"), int) and len(value) > schema["maxLength"]:
            return "at most %d characters" % schema["maxLength"]
        if isinstance(schema.get("pattern"), str):
            try:
                if not re.search(schema["pattern"], value):
                    return "does not match the pattern %s" % schema["pattern"]
            except re.error:
                pass  # a pattern Python cannot read (ECMA-only syntax): the server checks it
        return format_problem(value, schema.get("format"))
    if is_number(value):
        if is_number(schema.get("minimum")) and value < schema["minimum"]:
            return "at least %s" % schema["minimum"]
        if is_number(schema.get("maximum")) and value > schema["maximum"]:
            return "at most %s" % schema["maximum"]
        if is_number(schema.get("exclusiveMinimum")) and value <= schema["exclusiveMinimum"]:
            return "more than %s" % schema["exclusiveMinimum"]
        if is_number(schema.get("exclusiveMaximum")) and value >= schema["exclusiveMaximum"]:
            return "less than %s" % schema["exclusiveMaximum"]
    elif isinstance(value, list):
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            return "choose at least %d" % schema["minItems"]
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            return "choose at most %d" % schema["maxItems"]
        items = schema.get("items")
        for index, item in enumerate(value if isinstance(items, dict) else ()):
            problem = constraint_problem(item, items, depth + 1)
            if problem:
                return at_path("[%d]" % index, problem)
    elif isinstance(value, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        missing = [str(key) for key in required if key not in value]
        if missing:
            return "missing %s" % ", ".join(missing)
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                problem = constraint_problem(item, properties[key], depth + 1)
            elif extra is False:
                problem = "is not declared (additionalProperties: false)"
            else:
                problem = constraint_problem(item, extra, depth + 1) if isinstance(extra, dict) else None
            if problem:
                return at_path(".%s" % key, problem)
    return None


def fits_types(value, types):
    """Whether ``value`` is of one of a schema's JSON ``types`` (an integer is a number; no
    types: anything is)."""
    kind = json_type(value)
    return not types or kind in types or (kind == "integer" and "number" in types)


def schema_violation(value, schema, path="$"):
    """The first place ``value`` breaks ``schema`` as (JSON path, what is wrong), or None:
    constraint_problem's checks from the top, types and enums included (a tool's outputSchema)."""
    if not isinstance(schema, dict):
        return None
    try:
        problem = constraint_problem(value, schema, 1)
    except RecursionError:
        return path, "nested too deeply to check"
    if problem is None:
        return None
    where, _, message = at_path(path, problem).partition(": ")
    return where, message


def at_path(where, problem):
    """A nested problem under ``where`` (a field, ".key" or "[index]"): "address.zip: at most 5"."""
    return where + (problem if problem.startswith(("[", ".")) else ": " + problem)


def output_schema_problems(tool, structured):
    """What a result's structuredContent breaks in the tool's outputSchema, as (path,
    message) pairs ("" is the whole value): missing required properties, and for each
    property its first wrong type, value, format or limit (constraint_problem's checks)."""
    schema = tool.get("outputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict):
        return []
    if not isinstance(structured, dict):
        return [("", "missing structuredContent, which the tool's outputSchema promises" if structured is None
                 else "must be an object, not %s" % a_json_type(structured))]
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    problems = [("", "missing required property %r" % key) for key in required if key not in structured]
    for key, value in structured.items():
        try:
            problem = constraint_problem(value, properties[key], 1) if key in properties else None
        except RecursionError:
            problem = "nested too deeply to check"
        if problem:
            path, _, message = at_path(str(key), problem).partition(": ") if problem[:1] in "[." else (
                str(key), "", problem)
            problems.append((path, message))
    return problems


def format_problem(text, kind):
    """What a string breaks in a JSON Schema format the forms check (RFC 3339 dates and times,
    email, URI); None for other formats, which are the server's to check."""
    import calendar

    if kind == "email" and not re.match(r"^[^@\s]+@[^@\s]+$", text):
        return "not an email address"
    if kind == "uri" and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", text):
        return "not a URI"
    if kind not in ("date", "date-time", "time"):
        return None
    date = r"(\d{4})-(\d\d)-(\d\d)"
    clock = r"([01]\d|2[0-3]):([0-5]\d):([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"
    pattern = {"date": date, "time": clock, "date-time": date + "[Tt]" + clock}[kind]
    match = re.match("^%s$" % pattern, text)
    if match and kind != "time":
        year, month, day = (int(part) for part in match.groups()[:3])
        match = match if 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1] else None
    if match:
        return None
    return {"date": "not a date (YYYY-MM-DD)", "time": "not a time (HH:MM:SS with Z or an offset)",
            "date-time": "not a date-time (e.g. 2026-07-28T09:30:00Z)"}[kind]


def elicited_problems(content, schema):
    """What an answer breaks in a requestedSchema: missing required fields, values
    outside an enum, and the simple limits (lengths, ranges, formats)."""
    properties = schema.get("properties") or {}
    problems = []
    for key in schema.get("required") or ():
        if key not in content:
            prop = properties.get(key) or {}
            label = prop.get("description") or prop.get("title")
            problems.append("missing required field %r%s" % (key, " (%s)" % label if label else ""))
    for key, value in content.items():
        prop = properties.get(key)
        if not prop:
            continue
        types = schema_types(prop)
        kind = json_type(value)
        if types and kind not in types and not (kind == "integer" and "number" in types):
            problems.append("field %r must be %s, not %s" % (key, " or ".join(a_type(kind) for kind in types),
                                                              json.dumps(value)))
            continue
        choices = enum_choices(prop)
        if choices and not isinstance(value, list) and str(value) not in choices:
            problems.append("field %r must be one of %s, not %s" % (key, ", ".join(choices), json.dumps(value)))
            continue
        problem = constraint_problem(value, prop)
        if problem:
            problems.append("field %r: %s" % (key, problem))
    return problems


SAMPLING_STUB_FIELDS = ("text", "content", "model", "stopReason")


def check_sampling_stub(value):
    """--sampling-stub: a JSON object with text (or content), and optionally model and stopReason."""
    usage = UsageError('--sampling-stub must be a JSON object with "text" (or "content"), and optionally "model" '
                       'and "stopReason"', hint='e.g. --sampling-stub \'{"text":"Paris","model":"stub"}\'')
    if not isinstance(value, dict) or ("text" in value) == ("content" in value):
        raise usage
    unknown = [key for key in value if key not in SAMPLING_STUB_FIELDS]
    if unknown:
        usage.message += "; %s is not one of them" % ", ".join(repr(key) for key in unknown)
        raise usage
    content = value.get("content")
    blocks = content if isinstance(content, list) else [content] if "content" in value else []
    if not all(isinstance(block, dict) and isinstance(block.get("type"), str) for block in blocks):
        raise UsageError('--sampling-stub "content" must be a content block (or a list of them), e.g. '
                         '{"type":"text","text":"Paris"}')
    for key in ("text", "model", "stopReason"):
        if key in value and not isinstance(value[key], str):
            raise UsageError("--sampling-stub %r must be a string" % key)
    return value


class InputResponder:
    """Answers elicitation/create, sampling/createMessage and roots/list, for direct
    server requests (legacy), MRTR rounds and task inputRequests alike: from the
    --elicit-stub / --sampling-stub / --root flags, else on a terminal, else declined.
    ``declined`` hears each request declined (a server may send thousands: the CLI's
    Output.decline collapses repeats); ``notice`` everything else the user should see."""

    def __init__(self, elicit_stub=None, sampling_stub=None, roots=(), ask=None, notice=None, declined=None):
        self.elicit_stub = elicit_stub
        self.sampling_stub = sampling_stub
        self.roots = list(roots)
        self.ask = ask  # callable(prompt) -> str, or None when there is no terminal
        self.notice = notice or (lambda text: None)
        self.declined = declined or self.notice
        self._lock = threading.Lock()  # one question on the terminal at a time

    def answer(self, method, params, server_name):
        with self._lock:
            if method == "elicitation/create":
                return self.elicit(params, server_name)
            if method == "sampling/createMessage":
                return self.sample(params, server_name)
            if method == "roots/list":
                return {"roots": [root_entry(path) for path in self.roots]}
        raise InputDeclined("mcp-tui does not answer %s" % method, METHOD_NOT_FOUND)

    def elicit(self, params, server_name):
        message = params.get("message", "")
        if params.get("mode") == "url":
            return self._elicit_url(params, server_name)
        schema = form_schema(params.get("requestedSchema"))
        if self.elicit_stub is not None:
            if self.elicit_stub in ("decline", "cancel"):
                return {"action": self.elicit_stub}
            content = schema_defaults(schema)
            content.update(self.elicit_stub)
            try:
                content = normalise_elicited(content, schema)
            except UsageError as exc:
                problems = [exc.message]
            else:
                problems = elicited_problems(content, schema)
            if problems:
                raise StubMismatch("--elicit-stub cannot answer %s's request %r: %s" % (
                    server_name, message, "; ".join(problems)), hint="pass the fields it asks for in --elicit-stub")
            return {"action": "accept", "content": content}
        if self.ask is None:
            self.declined("Declined %s's request for input: %s (no terminal; pass --elicit-stub JSON to answer)"
                          % (server_name, message))
            return {"action": "decline"}
        return self._elicit_on_terminal(message, schema, server_name)

    def _elicit_on_terminal(self, message, schema, server_name):
        self.notice("%s asks: %s" % (server_name, message))
        required = set(schema.get("required") or ())
        content = {}
        try:
            for key, prop in (schema.get("properties") or {}).items():
                prop = prop if isinstance(prop, dict) else {}
                label = prop.get("title") or key
                choices = enum_choices(prop)
                hint = " [%s]" % "/".join(choices) if choices else ""
                if "default" in prop:
                    hint += " (default %s)" % json.dumps(prop["default"])
                while True:
                    text = self.ask("  %s%s%s: " % (label, "*" if key in required else "", hint))
                    if not text and "default" in prop:
                        content[key] = prop["default"]
                        break
                    if not text and key not in required:
                        break
                    try:
                        content[key] = coerce_value(text, prop, key) if prop.get("type") != "array" else [
                            part.strip() for part in text.split(",") if part.strip()]
                        break
                    except UsageError as exc:
                        self.notice("  " + exc.message)
            answer = self.ask("Send this answer? [Y]es / [d]ecline / [c]ancel: ").strip().lower()
        except EOFError:
            return {"action": "cancel"}
        if answer.startswith("d"):
            return {"action": "decline"}
        if answer.startswith("c"):
            return {"action": "cancel"}
        return {"action": "accept", "content": normalise_elicited(content, schema)}

    def _elicit_url(self, params, server_name):
        url = params.get("url", "")
        try:
            host = elicitation_url_host(url)
        except ValueError as exc:
            self.notice("%s asked you to open a URL; refused: %s." % (server_name, exc))
            return {"action": "decline"}
        self.notice("%s asks you to open %s (host: %s): %s" % (server_name, url, host, params.get("message", "")))
        if self.ask is None:
            self.declined("Declined: opening a URL needs your consent on a terminal.")
            return {"action": "decline"}
        try:
            answer = self.ask("Open it in your browser? [y/N]: ").strip().lower()
        except EOFError:
            return {"action": "cancel"}
        if not answer.startswith("y"):
            return {"action": "decline"}
        import webbrowser

        webbrowser.open(url)
        return {"action": "accept"}

    def sample(self, params, server_name):
        result = {"role": "assistant", "content": {"type": "text", "text": ""}, "model": "mcp-tui",
                  "stopReason": "endTurn"}
        stub = self.sampling_stub
        if stub is not None:
            if isinstance(stub, str):
                stub = {"text": stub}
            stub = dict(stub)
            if "text" in stub and "content" not in stub:
                stub["content"] = {"type": "text", "text": stub.pop("text")}
            result.update(stub)
            return result
        if self.ask is None:
            raise InputDeclined("Declined %s's sampling request (no terminal; pass --sampling-stub JSON to answer)"
                                % server_name, -1)
        for message in params.get("messages") or ():
            for block in as_list(message.get("content")):
                if isinstance(block, dict) and block.get("type") == "text":
                    self.notice("%s (%s): %s" % (server_name, message.get("role", "?"), block.get("text", "")))
        try:
            text = self.ask("Reply as the model (empty line rejects): ")
        except EOFError:
            text = ""
        if not text:
            raise InputDeclined("User rejected sampling request", -1)
        result["content"]["text"] = text
        result["model"] = "human"
        return result


def elicitation_url_host(url):
    """The host a URL elicitation's URL opens (with its port), or ValueError saying why the
    URL is refused. Browsers and urllib disagree on odd URLs (a backslash ends the host for
    one and not the other), so only a plain https URL (http on loopback) without userinfo,
    whitespace, controls or non-ASCII characters is accepted, and it is opened exactly."""
    from urllib.parse import urlsplit

    if not isinstance(url, str) or not url:
        raise ValueError("there is no URL")
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F for c in url):
        raise ValueError("the URL holds spaces, control or non-ASCII characters")
    if "\\" in url:
        raise ValueError("the URL holds a backslash, which browsers read differently")
    parts = urlsplit(url)
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in ("https", "http"):
        raise ValueError("only https URLs are opened (http only on this machine), not %s:" % (scheme or "(none)"))
    if "@" in parts.netloc:
        raise ValueError("the URL holds a user name (user@host), which disguises the host")
    if not host:
        raise ValueError("the URL names no host")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("the URL's port is not a number")
    if scheme == "http" and not is_loopback_host(host):
        raise ValueError("only https URLs are opened (http only on this machine), not http: to %s" % host)
    return host + (":%d" % port if port else "")


def as_list(value):
    return value if isinstance(value, list) else [] if value is None else [value]


def enum_choices(prop):
    if isinstance(prop.get("enum"), list):
        return [str(v) for v in prop["enum"]]
    if isinstance(prop.get("oneOf"), list):
        return [str(v.get("const")) for v in prop["oneOf"] if isinstance(v, dict)]
    return []


def root_entry(path):
    from pathlib import Path

    resolved = Path(path).expanduser().resolve()
    return {"uri": resolved.as_uri(), "name": resolved.name or str(resolved)}


# -- 3c. Tasks: one model (Task), one interface (TaskForm), two adapters, the ledger ---

TASK_STATUSES = ("working", "input_required", "completed", "failed", "cancelled")
TERMINAL_STATUSES = ("completed", "failed", "cancelled")


def short_timestamp(text):
    epoch = parse_timestamp(text)
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(epoch))) if epoch is not None else (text or "?")


class Task:
    """A task as either form reports it, kept in the extension's field names
    (ttlMs, pollIntervalMs) so that everything above this layer sees one shape."""

    def __init__(self, data):
        self.data = data

    @classmethod
    def from_wire(cls, raw, legacy=False):
        if not isinstance(raw, dict) or not isinstance(raw.get("taskId"), str) or not raw["taskId"]:
            raise ProtocolViolation("the server's task has no taskId")
        data = {key: value for key, value in raw.items() if key not in ("resultType", "_meta")}
        if legacy:
            if "ttl" in data:
                data["ttlMs"] = data.pop("ttl")
            if "pollInterval" in data:
                data["pollIntervalMs"] = data.pop("pollInterval")
        if data.get("status") not in TASK_STATUSES:
            raise ProtocolViolation("the server reported task status %r, which is not one of %s" % (
                data.get("status"), ", ".join(TASK_STATUSES)))
        ordered = {}
        for key in ("taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"):
            if key in data:
                ordered[key] = data.pop(key)
        ordered.update(data)
        return cls(ordered)

    task_id = property(lambda self: self.data["taskId"])
    status = property(lambda self: self.data["status"])
    message = property(lambda self: self.data.get("statusMessage"))
    terminal = property(lambda self: self.status in TERMINAL_STATUSES)

    def poll_seconds(self, default=1.0):
        interval = self.data.get("pollIntervalMs")
        return interval / 1000.0 if is_number(interval) and interval >= 0 else default

    def expires_at(self):
        """createdAt + ttlMs as epoch seconds; None when unlimited or unknown."""
        created, ttl = parse_timestamp(self.data.get("createdAt")), self.data.get("ttlMs")
        if created is None or not is_number(ttl):
            return None
        return created + ttl / 1000.0

    def status_line(self):
        return "%s — %s" % (self.status, self.message) if self.message else self.status


class TaskFailed(RpcError):
    def __init__(self, task, error):
        self.task = task
        RpcError.__init__(self, error or {"code": None, "message": task.message or "the task failed"})
        self.message = "task %s failed: %s" % (task.task_id, self.message)


class TaskSupport:
    def __init__(self, form, label, tools_call, methods):
        self.form = form
        self.label = label
        self.tools_call = tools_call
        self.methods = methods  # "tasks/get" -> bool, ...

    def to_json(self):
        return {"form": self.form, "label": self.label, "toolsCall": self.tools_call, "methods": self.methods}


class CallOutcome:
    """What a call as a task gave: a task to follow, or a result the server sent at once,
    plus notes for the user ("the server answered directly")."""

    def __init__(self, task=None, result=None, notes=()):
        self.task = task
        self.result = result
        self.notes = list(notes)


class StatusReporter:
    """Tells ``on_status`` when a followed task's status changes (whichever way the news
    came: a poll, a notification, the first or the last tasks/get), tells ``on_view`` of
    every view, and refuses a terminal status that moves on."""

    def __init__(self, on_status, last_status=None, on_view=None):
        self.on_status = on_status
        self.on_view = on_view
        self.last_status = last_status
        # A notification (on the reader thread) and a poll may bring the same news at once:
        # the first reports it, and the other waits until that report is out.
        self._lock = threading.Lock()

    def see(self, task):
        with self._lock:
            if self.last_status in TERMINAL_STATUSES and task.status != self.last_status:
                raise ProtocolViolation("the server moved task %s from %s back to %s; a terminal status is final"
                                        % (task.task_id, self.last_status, task.status))
            if self.on_view:
                self.on_view(task)
            if task.status != self.last_status:
                self.last_status = task.status
                if self.on_status:
                    self.on_status(task)
        return task


def ttl_passed(task_id, status):
    return McpTuiError("task %s is still %s after its TTL (createdAt + ttl); giving up" % (task_id, status))


def stopped_waiting(task_id, status, bound):
    """The wait ran out: ``bound`` names the flag that set its end (--timeout, or --max-time
    when the whole command's cap came first)."""
    return RequestTimeout("task %s is still %s; stopped waiting at %s" % (task_id, status or "working", bound),
                          hint="raise %s for long tasks, or follow it later with `task result`" % bound)


# -- tasks: one interface, two adapters ------------------------------------------------


class TaskForm:
    """The one interface the CLI and the TUI use for tasks. Only the adapters below know
    which form (and so which era) they speak.

    form, label                 "extension" | "2025-11-25" (the JSON documents' "form"), and words for people
    support() -> TaskSupport    what the server declared, or None
    require(method) -> TaskSupport    refuses locally, before sending, what was not declared
    call_notes(tool, ttl_ms) -> [str]  what to tell the user before calling ``tool`` as a task
    call(tool, arguments, ttl_ms) -> CallOutcome
    created_task(result) -> Task or None   the task a tools/call result created (None: a direct answer)
    get(task_id) -> Task
    wait(task_id, deadline, reporter) -> CallToolResult   follows the task to its end, answering
                                input requests; raises TaskFailed, RequestTimeout, McpTuiError
    cancel(task_id) -> Task or None   the cancelled task where the form returns one (2025-11-25);
                                None where the server only acknowledges (the extension)
    update(task_id, responses) -> None   input answers (the extension only)
    list() -> [Task]            (2025-11-25 only)
    task_from_notification(message) -> Task or None   this form's status notification, parsed
    document(**fields) -> dict  a JSON document that names the form
    unlisted_tool_support() -> str   what a tool listed without execution.taskSupport may do
    tools_call_refusal() -> McpTuiError or None   why a tools/call cannot be made as a task here
    """

    form = None
    legacy_shapes = True  # tasks come in the 2025-11-25 shapes (Task.from_wire)
    lists_tasks = False  # the form has tasks/list (TaskLedger.listable_connections)
    label = None
    status_method = None  # the notification that carries a task's status in this form

    def __init__(self, session):
        self.session = session

    def support(self):
        raise NotImplementedError

    def require(self, method):
        support = self.support()
        if support is None:
            raise McpTuiError("the server declared no task support; nothing was sent")
        if not support.methods.get(method):
            reason = {"tasks/list": "the tasks extension has no tasks/list; keep the IDs mcp-tui printed",
                      "tasks/update": "2025-11-25 tasks take input on tasks/result; use `task result`"}
            raise McpTuiError("%s is not available: the server speaks %s" % (method, support.label),
                              hint=reason.get(method, "the server did not declare it"))
        return support

    def unlisted_tool_support(self):
        return "forbidden"  # 2025-11-25: a listing without execution.taskSupport rules tasks out

    def tools_call_refusal(self):
        """Why tools/call cannot be made as a task here (an McpTuiError), or None when it can."""
        support = self.support()
        if support is None or not support.tools_call:
            return McpTuiError("the server declared no task support for tools/call; nothing was sent",
                               hint=self.absent_hint())
        return None

    def require_tools_call(self):
        refusal = self.tools_call_refusal()
        if refusal is not None:
            raise refusal
        return self.support()

    def absent_hint(self):
        """What to try when the server declared no task support in this form."""
        return None

    def calls_as_task(self, tool):
        """Whether `tool call --task` asks for a task (the server may still answer directly)."""
        return True

    def get(self, task_id):
        self.require("tasks/get")
        result = self.session.request("tasks/get", {"taskId": task_id}, declare_tasks=True)
        return Task.from_wire(result, legacy=self.legacy_shapes)

    def task_from_notification(self, message):
        if message.get("method") != self.status_method:
            return None
        try:
            return Task.from_wire(message.get("params") or {}, legacy=self.legacy_shapes)
        except ProtocolViolation:
            return None

    def document(self, **fields):
        return dict(form=self.form, **fields)


class ExtensionTasks(TaskForm):
    """io.modelcontextprotocol/tasks (2026-07-28): declared per request, results inline
    in tasks/get, input through tasks/update, notifications through subscriptions/listen."""

    form = "extension"
    legacy_shapes = False
    label = "io.modelcontextprotocol/tasks extension"
    status_method = "notifications/tasks"

    def support(self):
        extensions = self.session.capabilities.get("extensions") or {}
        if TASKS_EXTENSION not in extensions:
            return None
        methods = {"tasks/get": True, "tasks/result": False, "tasks/list": False, "tasks/cancel": True,
                   "tasks/update": True}
        return TaskSupport(self.form, self.label, True, methods)

    def unlisted_tool_support(self):
        # Listings carry no taskSupport here: a call made as a task lets the server choose.
        return "the server decides per call" if self.support() is not None else "forbidden"

    def call_notes(self, tool, ttl_ms):
        # The extension has no TTL parameter on the call: the server sets it.
        if ttl_ms is not None:
            return ["--ttl applies only under 2025-11-25; under the extension the server sets the TTL."]
        return []

    def call(self, tool, arguments, ttl_ms=None):
        self.require_tools_call()
        params = {"name": tool["name"], "arguments": arguments}
        result = self.session.request("tools/call", params, declare_tasks=True, tool=tool)
        task = self.created_task(result)
        if task is not None:
            return CallOutcome(task=task)
        return CallOutcome(result=result, notes=["The server answered directly; no task was created."])

    def created_task(self, result):
        return Task.from_wire(result) if result.get("resultType") == "task" else None

    def cancel(self, task_id):
        self.require("tasks/cancel")
        self.session.request("tasks/cancel", {"taskId": task_id}, declare_tasks=True)
        return None

    def update(self, task_id, responses):
        self.require("tasks/update")
        self.session.request("tasks/update", {"taskId": task_id, "inputResponses": responses}, declare_tasks=True)

    def list(self):
        self.require("tasks/list")

    def wait(self, task_id, deadline, reporter, bound="--timeout"):
        """Poll tasks/get at the server's interval, wake early on notifications/tasks, and
        answer each input request once with tasks/update. ``bound`` names the flag that set
        ``deadline``."""
        self.require("tasks/get")
        woken = threading.Event()
        pushed = []

        def on_notification(message):
            task = self.task_from_notification(message)
            if task is not None and task.task_id == task_id:
                pushed.append(task)
                woken.set()

        subscription = self.session.listen({"taskIds": [task_id]}, on_notification, declare_tasks=True)
        answered = set()
        try:
            while True:
                if pushed:
                    task = pushed.pop()
                    del pushed[:]
                else:
                    task = self.get(task_id)
                woken.clear()
                reporter.see(task)
                if task.status == "completed":
                    return task.data.get("result") or {}
                if task.status == "failed":
                    raise TaskFailed(task, task.data.get("error"))
                if task.status == "cancelled":
                    raise McpTuiError("task %s was cancelled" % task_id)
                if task.status == "input_required":
                    fresh = {key: value for key, value in (task.data.get("inputRequests") or {}).items()
                             if key not in answered}
                    if fresh:
                        responses = self.session.answer_input_requests(fresh)
                        self.update(task_id, responses)
                        answered.update(fresh)
                        continue
                interval = task.poll_seconds()
                if subscription.accepted and task_id in (subscription.accepted.get("taskIds") or ()):
                    interval = max(interval, 2.0)  # notifications flow; polling is only a safety net
                sleep_until(task, deadline, interval, woken, bound)
        finally:
            subscription.close()


class ExperimentalTasks(TaskForm):
    """2025-11-25 experimental tasks: params.task on the call, a blocking tasks/result
    that carries input requests as ordinary server requests, tasks/list, tasks/cancel."""

    form = "2025-11-25"
    lists_tasks = True
    label = "2025-11-25 experimental tasks"
    status_method = "notifications/tasks/status"

    def support(self):
        tasks = self.session.capabilities.get("tasks")
        if not isinstance(tasks, dict) or self.session.protocol_version != "2025-11-25":
            return None
        tools_call = "call" in (((tasks.get("requests") or {}).get("tools")) or {})
        methods = {"tasks/get": True, "tasks/result": True, "tasks/list": "list" in tasks,
                   "tasks/cancel": "cancel" in tasks, "tasks/update": False}
        return TaskSupport(self.form, self.label, tools_call, methods)

    def absent_hint(self):
        if self.session.spec.protocol in LEGACY_VERSIONS:
            return ("servers that offer tasks only as the 2026-07-28 io.modelcontextprotocol/tasks extension "
                    "declare none under %s: drop --protocol-version (or pass 2026-07-28)" % self.session.spec.protocol)
        return None

    def calls_as_task(self, tool):
        return listed_task_support(tool) in ("optional", "required")

    def call_notes(self, tool, ttl_ms):
        if not self.calls_as_task(tool):
            return ["Tool '%s' does not run as a task (execution.taskSupport: %s); calling it directly."
                    % (tool["name"], listed_task_support(tool) or "forbidden")]
        return []

    def call(self, tool, arguments, ttl_ms=None):
        self.require_tools_call()
        as_task = self.calls_as_task(tool)
        params = {"name": tool["name"], "arguments": arguments}
        if as_task:
            params["task"] = {"ttl": ttl_ms} if ttl_ms is not None else {}
        result = self.session.request("tools/call", params)
        task = self.created_task(result)
        if task is not None:
            return CallOutcome(task=task)
        # A tool that does not run as a task was called directly, as call_notes said.
        return CallOutcome(result=result, notes=["The server answered directly; no task was created."]
                           if as_task else [])

    def created_task(self, result):
        if isinstance(result.get("task"), dict) and "content" not in result:
            return Task.from_wire(result["task"], legacy=True)
        return None

    def cancel(self, task_id):
        self.require("tasks/cancel")
        return Task.from_wire(self.session.request("tasks/cancel", {"taskId": task_id}), legacy=True)

    def update(self, task_id, responses):
        self.require("tasks/update")

    def list(self):
        self.require("tasks/list")
        return [Task.from_wire(raw, legacy=True) for raw in list_all(self.session, "tasks/list", "tasks")]

    def wait(self, task_id, deadline, reporter, bound="--timeout"):
        """Hold tasks/result open until the task ends; elicitation and sampling arrive
        meanwhile as server requests, which the session answers. ``bound`` names the flag
        that set ``deadline``."""
        self.require("tasks/result")

        def on_notification(message):
            task = self.task_from_notification(message)
            if task is not None and task.task_id == task_id:
                reporter.see(task)

        self.session.observers.append(on_notification)
        self.session.open_server_stream()
        try:
            first = reporter.see(self.get(task_id))
            limit = deadline
            expiry = first.expires_at()
            if expiry is not None:
                limit = min(limit, time.monotonic() + max(0.0, expiry - time.time()))
            remaining = max(0.001, limit - time.monotonic())
            try:
                result = self.session.request("tasks/result", {"taskId": task_id}, timeout=remaining,
                                              max_time=remaining)
            except RequestTimeout:
                if limit < deadline:
                    raise ttl_passed(task_id, reporter.last_status)
                raise stopped_waiting(task_id, reporter.last_status, bound)
            except RpcError as exc:
                final = self._final(task_id, reporter)
                if final is not None and final.status == "cancelled":
                    raise McpTuiError("task %s was cancelled" % task_id)
                raise TaskFailed(final or Task({"taskId": task_id, "status": "failed"}), exc.error)
            self._final(task_id, reporter)
            return result
        finally:
            self.session.observers.remove(on_notification)

    def _final(self, task_id, reporter):
        try:
            return reporter.see(self.get(task_id))
        except McpTuiError:
            return None


TASK_FORMS = (ExtensionTasks, ExperimentalTasks)


def is_task_status_notification(method):
    return any(form.status_method == method for form in TASK_FORMS)


def sleep_until(task, deadline, interval, woken, bound):
    """Wait one poll interval, or less when woken; give up past --timeout or the TTL."""
    now = time.monotonic()
    expiry = task.expires_at()
    if expiry is not None and time.time() > expiry:
        raise ttl_passed(task.task_id, task.status)
    if now >= deadline:
        raise stopped_waiting(task.task_id, task.status, bound)
    woken.wait(min(interval, deadline - now))


TASK_FORM_NAMED = {form.form: form for form in TASK_FORMS}  # the ledger's "form" -> its adapter


def tasks_for(session):
    """The task form the session's era speaks."""
    return TASK_FORM_NAMED[session.era.task_form](session)


class TaskLedger:
    """Which connection created which task, so that the printed `mcp-tui task get <id>`
    runs as printed. Keyed by the task's fingerprint, never by its ID; it holds no
    header value, token, environment value or expanded ${VAR} (a task from --config is
    recorded as the file and the server's name); the file is private to the user."""

    def __init__(self, path=None, warn=None):
        self.store = JsonStateFile(path or os.path.join(state_directory(), "tasks.json"), valid_ledger_entry, warn)
        self.path = self.store.path

    def remember(self, task, tasks, tool_name):
        """Record a new task, with the legacy HTTP session it lives in when a later run must
        resume that session (Session.session_record)."""
        spec, form, session = tasks.session.spec, tasks.form, tasks.session.session_record()
        now = time.time()
        entry = {"connection": spec.ledger_record(), "tool": tool_name, "form": form, "status": task.status,
                 "createdAt": task.data.get("createdAt"), "expiresAt": task.expires_at()}
        if session is not None:
            entry["session"] = session

        def change(data):
            for key, old in list(data.items()):
                expired = is_number(old.get("expiresAt")) and old["expiresAt"] <= now
                if expired or now - old.get("unknownSince", now) >= UNKNOWN_KEPT_SECONDS:
                    del data[key]
            data[fingerprint(task.task_id)] = entry

        self.store.update(change)
        if session is not None:
            self.share_ids(tasks.session)

    # A recorded session's ids are reserved in blocks, the highest id given out kept beside
    # the session id ("lastId") under the ledger's lock. Chosen over ids that merely cannot
    # collide (a random per-process prefix): a block is certain, not likely, to be unused, two
    # follow-ups that run at once get different blocks, and ids stay small integers, which every
    # server takes. Resuming needs the ledger anyway, so the mark is wherever a resume is.
    ID_BLOCK = 1 << 20

    def share_ids(self, session):
        """Make ``session`` (created here or resumed from the ledger) take its ids from the
        blocks of its recorded session, when it has one."""
        recorded = session.session_record()
        if recorded is not None:
            session.channel.share_ids(lambda: self.reserve_ids(recorded["id"]))

    def reserve_ids(self, session_id):
        """The next block of JSON-RPC ids in a recorded session: (first, last), above every
        id any command has been given in it."""
        def change(data):
            entries = [entry for entry in data.values() if (entry.get("session") or {}).get("id") == session_id]
            top = max([entry["session"].get("lastId", 0) for entry in entries] + [0])
            for entry in entries:
                entry["session"]["lastId"] = top + self.ID_BLOCK
            return top + 1, top + self.ID_BLOCK

        try:
            return self.store.update(change)
        except OSError as exc:  # no block, no request: an id must not come twice
            raise McpTuiError("cannot reserve request ids in the task ledger %s: %s" % (
                self.path, describe_os_error(exc)))

    def lookup(self, task_id):
        return self.store.read().get(fingerprint(task_id))

    def _change(self, task_id, **fields):
        def change(data):
            entry = data.get(fingerprint(task_id))
            if entry is not None:
                entry.update(fields)

        entry = self.lookup(task_id)
        if entry is not None and any(entry.get(key) != value for key, value in fields.items()):
            self.store.update(change)

    def note_status(self, task_id, status):
        """Best effort: the status lets the end of a run know whether a recorded session
        still holds running tasks; failing to note it must not fail the command."""
        try:
            self._change(task_id, status=status)
        except (OSError, McpTuiError):
            pass

    def mark_unknown(self, task_id):
        """The server said it does not know the task: keep the entry (the next try still
        knows where to ask), marked, until UNKNOWN_KEPT_SECONDS have passed."""
        data = self.lookup(task_id) or {}
        self._change(task_id, unknownSince=data.get("unknownSince") or time.time())

    def note_fetched(self, task_id):
        """The task's outcome (result or failure) reached the user: its session need not be
        kept for it any more. Best effort, like note_status."""
        try:
            self._change(task_id, fetched=True)
        except (OSError, McpTuiError):
            pass

    def live_tasks_in(self, session_id):
        """How many recorded tasks of a session still need it: running, or ended with an
        outcome nobody has fetched yet. A cancelled task's outcome is its status: the session
        stays until a later command has shown it, or `task get` after `task cancel` would
        find the task gone with its session."""
        return sum(1 for entry in self.store.read().values()
                   if (entry.get("session") or {}).get("id") == session_id and "unknownSince" not in entry
                   and not entry.get("fetched"))

    def forget_done(self, connection):
        """Drop the entries of ``connection`` when all of them are done (outcome fetched, or
        cancelled): True when dropped. For a kept session that has ended: an automatic stdio
        task session stops once its tasks are done so, and no later `task list` should warn
        about it; one that ended with a task still to fetch stays, and the warning says so."""
        def change(data):
            mine = [key for key, entry in data.items() if entry.get("connection") == connection]
            if not all(data[key].get("fetched") or data[key].get("status") == "cancelled" for key in mine):
                return False
            for key in mine:
                del data[key]
            return True

        return self.store.update(change)

    def session_to_resume(self, task_id, spec):
        """The recorded HTTP session a task lives in, for a connection to ``spec`` to resume
        (same server only), or None: none recorded, another server, or mcp-tui ended that
        session once the outcomes it was kept for were fetched."""
        record = self.lookup(task_id)
        recorded = (record or {}).get("session")
        if not recorded or spec.kind != "http" or spec.ledger_record().get("url") != record["connection"].get("url"):
            return None
        if record.get("fetched") and self.live_tasks_in(recorded.get("id")) == 0:
            return None
        return recorded

    def recorded_for(self, spec):
        """(fingerprint, entry) of the recorded tasks of one connection, newest first."""
        record = spec.ledger_record()
        found = [(key, entry) for key, entry in self.store.read().items() if entry.get("connection") == record]
        return sorted(found, key=lambda item: item[1].get("createdAt") or "", reverse=True)

    def listable_connections(self):
        """The distinct (connection, session) pairs of recorded tasks in a form that has
        tasks/list (2025-11-25), newest first."""
        seen, found = set(), []
        entries = sorted(self.store.read().values(), key=lambda entry: entry.get("createdAt") or "", reverse=True)
        for entry in entries:
            if not TASK_FORM_NAMED.get(entry.get("form"), TaskForm).lists_tasks:
                continue
            key = json.dumps([entry.get("connection"), (entry.get("session") or {}).get("id")], sort_keys=True)
            if key not in seen:
                seen.add(key)
                found.append((entry["connection"], entry.get("session")))
        return found


UNKNOWN_KEPT_SECONDS = 86400.0


def valid_ledger_entry(key, entry):
    """An entry this version can use: anything else (another version's, a hand edit, an
    attack) is skipped rather than trusted."""
    if not isinstance(entry, dict) or not isinstance(entry.get("connection"), dict):
        return False
    if any(entry.get(name) is not None and not is_number(entry[name]) for name in ("expiresAt", "unknownSince")):
        return False
    session = entry.get("session")
    if session is not None and not (isinstance(session, dict) and isinstance(session.get("id"), str)):
        return False
    if session is not None and not isinstance(session.get("lastId", 0), int):
        return False
    if not isinstance(entry.get("fetched", False), bool):
        return False
    return all(entry.get(name) is None or isinstance(entry[name], str)
               for name in ("tool", "form", "createdAt", "status")) and ConnectionSpec.valid_record(entry["connection"])


# -- 3d. Check and load: the rules a server is held to, the probes that apply them, --load --
#
# `mcp-tui check` runs every rule that applies to what the server declares, without side
# effects: it lists, reads, gets, pings, completes and probes, and calls a tool only when
# told. A rule is data (its id, group, severity, what it asks and why, and the fix); the
# ServerCheck below records which rules it ran and what it found (views print the report).

CHECK_RULES = (
    # (id, severity, what is asked and why, how to fix it); the group is the id's first word
    ("lifecycle.handshake", "error", "the server opens a session in the era it claims",
     "answer initialize (2025-11-25) or server/discover (2026-07-28) with a well-formed result"),
    ("lifecycle.offered-version", "error", "the negotiated protocol version is one the client offered",
     "answer with the version the client asked for, or with another version it listed"),
    ("lifecycle.each-era", "error", "each era the server lists in supportedVersions opens a session",
     "answer initialize for every 2025-11-25-era version server/discover lists, or stop listing them"),
    ("lifecycle.jsonrpc", "error", 'every message carries "jsonrpc": "2.0" (JSON-RPC 2.0 says so)',
     'write "jsonrpc": "2.0" into every request, response and notification'),
    ("lifecycle.ids-echoed", "error", "every response carries the id of the request it answers, exactly",
     "copy the request's id (same JSON type) into its response"),
    ("lifecycle.notification-id", "error", "a notification carries no id (with one it is a request)",
     "send notifications without an id"),
    ("lifecycle.stdout-clean", "error", "a stdio server writes only JSON-RPC messages on stdout",
     "send logs to stderr (or as notifications/message), never to stdout"),
    ("lifecycle.ping", "error", "ping is answered promptly (clients use it to tell a live server from a hung one)",
     "answer ping with an empty result at once, even while other requests are running"),
    ("capabilities.declared-answer", "error", "every declared capability's methods answer",
     "implement the methods of each capability you declare, or stop declaring it"),
    ("capabilities.undeclared-refused", "warning", "a method of an undeclared capability is refused (-32601)",
     "declare the capability you serve, or answer its methods with -32601 Method not found"),
    ("capabilities.list-changed", "error", "listChanged claims hold: booleans, on declared capabilities, "
     "kept by subscriptions/listen (2026-07-28)",
     "announce list changes only of the capabilities you declare, and acknowledge toolsListChanged (and the rest) "
     "on subscriptions/listen where you claim listChanged: true"),
    ("capabilities.list-changed-unclaimed", "warning", "list changes are announced only where listChanged: true "
     "is claimed (the spec: only then)",
     "declare listChanged: true in the capability whose list changes you announce, or stop announcing them"),
    ("capabilities.subscribe", "error", "a declared resources.subscribe holds: resources/subscribe and "
     "unsubscribe answer, or the listen keeps resourceSubscriptions",
     "implement resources/subscribe and resources/unsubscribe (or resourceSubscriptions on subscriptions/listen), "
     "or stop declaring subscribe: true"),
    ("capabilities.subscribe-unclaimed", "warning", "without resources.subscribe declared, subscriptions are refused "
     "(-32601, or left out of the listen)",
     "declare resources.subscribe: true when you take subscriptions, or refuse them"),
    ("tools.unique-names", "error", "tool names are unique (a client calls a tool by its name)",
     "give every tool its own name"),
    ("tools.valid-names", "warning", "tool names are 1-128 characters of A-Z a-z 0-9 _ - . (the spec's naming rule)",
     "rename the tool with letters, digits, '_', '-' and '.' only"),
    ("tools.input-schema", "error", 'inputSchema is a JSON Schema object of type "object"',
     'give every tool an inputSchema like {"type": "object", "properties": {...}}'),
    ("tools.portable-schema", "warning", "inputSchema avoids top-level features common hosts reject",
     "flatten the top level to one object schema with properties (no $ref, anyOf, oneOf, allOf, not, if)"),
    ("tools.output-schema", "error", 'an outputSchema is a JSON Schema object (of type "object" before 2026-07-28, '
     "where it may be any schema)", 'declare outputSchema as {"type": "object", ...}, or leave it out'),
    ("tools.annotations", "warning", "annotations are well-formed: the hints are booleans, the title a string",
     "write readOnlyHint, destructiveHint, idempotentHint and openWorldHint as true or false"),
    ("tools.task-support", "error", 'execution.taskSupport is "forbidden", "optional" or "required" (2025-11-25; '
     "2026-07-28 tools have none)",
     "use one of the three values, or leave execution out"),
    ("tools.unknown-tool", "error", "a call of a tool that does not exist is an error, not a success",
     "answer an unknown tool name with an error (-32602, or a result with isError: true)"),
    ("tools.call", "warning", "a tool called with --call (or --call-readonly) answers with a result",
     "see the server's error; check the arguments given with --call"),
    ("tools.structured-content", "error", "a called tool's structuredContent matches its outputSchema",
     "return structuredContent that validates against the outputSchema the tool declares"),
    ("http.unknown-session", "error", "a request under a session id the server never issued gets HTTP 404",
     "answer an unknown or ended Mcp-Session-Id with 404 Not Found (the client then starts a new session)"),
    ("http.origin", "warning", "a request from a foreign Origin is refused (DNS-rebinding protection)",
     "check the Origin header and answer 403 to origins you do not serve, at least on a local server"),
    ("http.content-type", "error", "a POST is answered with application/json or text/event-stream",
     "send a JSON-RPC response as Content-Type: application/json, or a stream as text/event-stream"),
    ("http.get-stream", "error", "a GET of the endpoint opens an SSE stream (text/event-stream) or gets 405",
     "answer GET with a text/event-stream, or 405 Method Not Allowed when you offer no stream"),
    ("http.delete", "error", "a DELETE that ends the session gets 200, 202, 204 or 405",
     "end the session on DELETE with 200 or 204, or answer 405 when clients may not end sessions"),
    ("http.method-header", "error", "a request whose Mcp-Method header contradicts its body is refused "
     "(2026-07-28: HTTP 400, -32020 HeaderMismatch)",
     "compare Mcp-Method with the body's method and answer a mismatch with 400 and error -32020"),
    ("http.cache-fields", "error", 'ttlMs is an integer >= 0 and cacheScope "public" or "private" where a '
     "2026-07-28 result carries them", 'write ttlMs as a whole number of milliseconds and cacheScope as '
     '"public" or "private"'),
    ("pagination.cursor-progress", "error", "cursors make progress: a list ends, and no cursor comes twice",
     "return a new nextCursor for each page and none on the last page"),
    ("resources.uri-scheme", "error", "resource URIs are absolute: they start with a scheme (file:, https:, ...)",
     "give every resource a URI with a scheme, e.g. file:///path or myapp://item/1"),
    ("resources.template-syntax", "error", "resource templates are valid RFC 6570 URI templates",
     "write expressions as {name}, {+name}, {?a,b} and so on, with balanced braces"),
    ("resources.template-scheme", "warning", "a resource template starts with a scheme (or an expression): "
     "it expands to resource URIs, which are absolute",
     "begin the template with its scheme, e.g. file:///notes/{name}, or with an expression such as {+uri}"),
    ("resources.read-back", "error", "every listed resource reads back with contents of text or blob",
     "answer resources/read for each listed URI with contents [{uri, text}] or [{uri, blob}]"),
    ("resources.blob-base64", "error", "a blob is base64 (clients decode it)",
     "encode binary contents with standard base64"),
    ("prompts.well-formed", "error", "prompts have a name, and their arguments are objects with a name",
     'list prompts as {"name": ..., "arguments": [{"name": ..., "required": true}]}'),
    ("prompts.get", "error", "a prompt without required arguments answers prompts/get with messages",
     "answer prompts/get with {messages: [{role, content}]}"),
    ("completion.answers", "error", "completion/complete answers when completions are declared",
     "answer completion/complete with {completion: {values: [...]}} (empty when there is nothing)"),
    ("logging.set-level", "error", "logging/setLevel is accepted when logging is declared",
     "answer logging/setLevel with an empty result"),
    ("tasks.coherent", "warning", "a tool's task support agrees with the tasks capability the server declares",
     "declare task support for tools/call, or list the tools with taskSupport forbidden"),
    ("tasks.list", "error", "tasks/list answers when the tasks capability declares it",
     "implement tasks/list, or leave tasks.list out of the capability"),
    ("auth.resource-metadata", "error", "a server that answers 401 serves protected-resource metadata (RFC 9728) "
     "naming itself as the resource and listing its authorization servers",
     'serve {"resource": "<the MCP URL>", "authorization_servers": ["https://..."]} at the URL in '
     "WWW-Authenticate's resource_metadata, or at /.well-known/oauth-protected-resource<path>"),
    ("auth.server-metadata", "error", "the authorization server's metadata (RFC 8414) is reachable and well-formed",
     "serve {issuer, authorization_endpoint, token_endpoint, ...} at /.well-known/oauth-authorization-server"
     "<issuer path> (or /.well-known/openid-configuration)"),
    ("auth.pkce-s256", "error", 'the authorization server supports PKCE with "S256" (MCP clients must use it)',
     'list "S256" in code_challenge_methods_supported, and accept it'),
    ("auth.https", "error", "authorization URLs use HTTPS off this machine (codes and tokens travel over them)",
     "serve the metadata and every OAuth endpoint over https:// (plain http only on loopback)"),
)
CHECK_RULE_INDEX = {rule[0]: rule for rule in CHECK_RULES}
TOOL_NAME = r"^[A-Za-z0-9_.-]{1,128}$"
URI_SCHEME = r"^[A-Za-z][A-Za-z0-9+.-]*:"
TEMPLATE_VARSPEC = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\*)?"
VALID_TEMPLATE_EXPRESSION = r"\{[+#./;?&]?%s(?:,%s)*\}" % (TEMPLATE_VARSPEC, TEMPLATE_VARSPEC)
UNPORTABLE_SCHEMA_KEYWORDS = ("$ref", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "dependentSchemas")
TOOL_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
TASK_SUPPORT_VALUES = ("forbidden", "optional", "required")
CHECK_PING_SECONDS = 5.0  # "promptly": a ping that waits longer than this is a finding, not a wait
CHECK_HTTP_SECONDS = 10.0  # one of check's own HTTP requests (authorization metadata) waits no longer
CHECK_FETCH_LIMIT = 1 << 20  # metadata is small: a megabyte read at most
CHECK_READ_LIMIT = 100  # resources read back (and prompts got) at most: a server may list thousands


def template_problem(template):
    """What makes ``template`` an invalid RFC 6570 URI template, or None."""
    rest = re.sub(VALID_TEMPLATE_EXPRESSION, "", template)
    if "{" in rest or "}" in rest:
        bad = re.search(r"\{[^}]*\}?|\}", rest).group()
        return "%r is not a valid expression" % bad
    return None


def check_fetch(method, url, body=None):
    """One request of `check`'s own, outside any session (no credentials): (status, headers,
    body). TLS is verified; an error to connect or to read is an OSError."""
    import http.client
    import ssl
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme.lower() == "https":
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=CHECK_HTTP_SECONDS,
                                           context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=CHECK_HTTP_SECONDS)
    headers = {"Accept": "application/json, text/event-stream"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    try:
        conn.request(method, urlunsplit(("", "", parts.path or "/", parts.query, "")), body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.headers, response.read(CHECK_FETCH_LIMIT)
    except (http.client.HTTPException, ValueError) as exc:
        raise OSError(str(exc))
    finally:
        conn.close()


def check_fetch_json(places):
    """(url, object) of the first of ``places`` that answers 200 with a JSON object, or (None, None)."""
    for place in places:
        try:
            status, _, body = check_fetch("GET", place)
            document = strict_json(body.decode("utf-8")) if status == 200 else None
        except (OSError, ValueError):
            continue
        if isinstance(document, dict):
            return place, document
    return None, None


def _effective_port(parts):
    return parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())


def resource_covers(resource, url):
    """RFC 9728 resource check: same scheme, host and port, and the resource path a
    segment-boundary prefix of the endpoint path (an origin covers every endpoint)."""
    from urllib.parse import urlsplit

    try:
        a, b = urlsplit(resource), urlsplit(url)
        if (a.scheme.lower(), (a.hostname or "").lower(), _effective_port(a)) != (
                b.scheme.lower(), (b.hostname or "").lower(), _effective_port(b)):
            return False
    except ValueError:  # a port that is not a number
        return False
    prefix, path = a.path.rstrip("/"), b.path.rstrip("/")
    return not prefix or path == prefix or path.startswith(prefix + "/")


class ServerCheck:
    """The findings of one `check` run: ``ran`` holds the ids of the rules applied, and
    ``findings`` what broke them ({"rule", "severity", "message", "fix", "where"}).
    ``watch`` sees every message from the server (Session.wire_observers)."""

    def __init__(self, calls=(), call_readonly=False, progress=None):
        self.calls = list(calls)  # (tool name, argument words) to call
        self.call_readonly = call_readonly
        self.progress = progress or (lambda text: None)
        self.ran = []
        self.findings = []
        self.session = None
        self.tools, self.prompts, self.templates, self.resources = [], [], [], []  # as listed, for the rules after
        self.announced = set()  # the capabilities whose notifications/<name>/list_changed came
        self._lock = threading.Lock()

    # -- recording ---------------------------------------------------------------------

    def apply(self, *rule_ids):
        for rule_id in rule_ids:
            if rule_id not in self.ran:
                self.ran.append(rule_id)

    def found(self, rule_id, message, where=""):
        _, severity, _, fix = CHECK_RULE_INDEX[rule_id]
        finding = {"rule": rule_id, "severity": severity, "message": message, "fix": fix, "where": where}
        with self._lock:
            self.apply(rule_id)
            if finding not in self.findings and len(self.findings) < 1000:
                self.findings.append(finding)

    def watch(self, message):
        """Framing, as the message arrived: jsonrpc on each, no id on a notification."""
        method = message.get("method")
        where = method if isinstance(method, str) else "the response to id %s" % json.dumps(message.get("id"))
        if message.get("jsonrpc") != "2.0":
            self.found("lifecycle.jsonrpc", "a message has jsonrpc %s, not \"2.0\"" % json.dumps(
                message.get("jsonrpc")), where)
        if isinstance(method, str) and method.startswith("notifications/") and "id" in message:
            self.found("lifecycle.notification-id", "the notification %s carries the id %s" % (
                method, json.dumps(message.get("id"))), where)
        if isinstance(method, str) and method in LIST_CHANGED_METHODS:
            with self._lock:
                self.announced.add(method.split("/")[1])  # the capability: tools, prompts or resources
        result = message.get("result")
        if isinstance(result, dict) and result.get("resultType") == "complete":
            self.check_cache_fields(result, where)

    def check_cache_fields(self, result, where):
        """A 2026-07-28 CacheableResult's ttlMs and cacheScope, where they are present (a
        missing one means "stale at once", which is allowed)."""
        self.apply("http.cache-fields")
        ttl, scope = result.get("ttlMs"), result.get("cacheScope")
        if "ttlMs" in result and (not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0):
            self.found("http.cache-fields", "ttlMs is %s, not an integer >= 0" % json.dumps(ttl), where)
        if "cacheScope" in result and scope not in ("public", "private"):
            self.found("http.cache-fields", 'cacheScope is %s, not "public" or "private"' % json.dumps(scope), where)

    # -- running -----------------------------------------------------------------------

    def connect_failed(self, exc):
        """The session did not open: what the handshake got wrong is the finding."""
        # Only the rule that failed is reported: the framing rules count if a message came (watch).
        if "protocol version" in exc.message or getattr(exc, "code", None) == -32022:
            self.found("lifecycle.offered-version", exc.message, "handshake")
        else:
            self.found("lifecycle.handshake", "the session did not open: %s" % exc.message, "handshake")

    def run(self, session):
        self.session = session
        self.apply("lifecycle.handshake", "lifecycle.offered-version", "lifecycle.jsonrpc",
                   "lifecycle.notification-id")
        steps = [("ping", self.check_ping), ("capabilities", self.check_capabilities)]
        declared = session.capabilities
        if "tools" in declared:
            steps.append(("tools", self.check_tools))
        if "resources" in declared:
            steps.append(("resources", self.check_resources))
        if "prompts" in declared:
            steps.append(("prompts", self.check_prompts))
        if "completions" in declared:
            steps.append(("completion", self.check_completion))
        claims = ClaimChecks(self)
        steps.append(("subscriptions", claims.check_claims))
        steps.append(("tasks", self.check_tasks))
        streamable_http = session.transport.http is not None and session.transport.carries_mcp_headers
        http = HttpChecks(self)
        if streamable_http:  # a direct Streamable HTTP connection
            steps.append(("HTTP", http.check_http))
        if "logging" in declared:  # last: under 2026-07-28 the level rides on every request after it
            steps.append(("logging", self.check_logging))
        if streamable_http:
            steps.append(("HTTP DELETE", http.check_http_delete))  # last: it ends the session
        for name, step in steps:
            if session.channel.closed_error() is not None:
                break
            self.progress("checking %s..." % name)
            step()
        claims.check_announced()
        self.check_wire()

    def other_era(self, summary):
        """The 2025-11-25-era version to open a second session in, when a 2026-07-28 server
        lists one in supportedVersions (its claim is checked too), or None."""
        versions = summary.get("supportedVersions") if self.session.era_states("lists_other_versions") else None
        listed = [v for v in LEGACY_VERSIONS if isinstance(versions, list) and v in versions]
        return listed[0] if listed else None

    def other_era_opened(self, version, exc=None):
        self.apply("lifecycle.each-era")
        if exc is not None:
            self.found("lifecycle.each-era", "server/discover lists %s, and a session in it did not open: %s" % (
                version, exc.message), "initialize")

    def check_wire(self):
        """What the channel and the transport noticed along the way."""
        session = self.session
        self.apply("lifecycle.ids-echoed")
        for anomaly in session.channel.anomalies:
            if "id" in anomaly:
                self.found("lifecycle.ids-echoed", "the server sent %s" % anomaly, "responses")
        if session.transport is not None and session.transport.writes_on_stdout:
            self.apply("lifecycle.stdout-clean")
            for junk in session.transport.junk:
                self.found("lifecycle.stdout-clean", "the server wrote %s" % junk, "stdout")
        closed = session.channel.closed_error()
        if closed is not None:
            self.found("lifecycle.handshake", "the connection ended during the check: %s" % closed.message,
                       "connection")

    def request(self, rule_id, method, params=None, where=None, **options):
        """``method``'s result, or None with the failure recorded under ``rule_id``."""
        self.apply(rule_id)
        try:
            return self.session.request(method, params, **options)
        except McpTuiError as exc:
            self.failed(rule_id, exc, where or method)
            return None

    def failed(self, rule_id, exc, where):
        if isinstance(exc, RpcError) and exc.code == METHOD_NOT_FOUND and rule_id.endswith(".list"):
            rule_id = "capabilities.declared-answer"
        if isinstance(exc, ProtocolViolation) and "repeated a cursor" in exc.message:
            rule_id = "pagination.cursor-progress"
        elif "--max-pages" in exc.message:
            rule_id = "pagination.cursor-progress"
        self.found(rule_id, exc.message, where)

    def list_of(self, method, key):
        """Every item of a declared list, or None with why it failed recorded."""
        self.apply("capabilities.declared-answer", "pagination.cursor-progress")
        try:
            items = list_all(self.session, method, key)
        except McpTuiError as exc:
            if isinstance(exc, RpcError) and exc.code == METHOD_NOT_FOUND:
                self.found("capabilities.declared-answer", "%s says -32601 Method not found, though the server "
                           "declares the %s capability" % (method, method.split("/")[0]), method)
            else:
                self.failed("capabilities.declared-answer", exc, method)
            return None
        return [item for item in items if isinstance(item, dict)]

    def check_ping(self):
        self.apply("lifecycle.ping")
        try:
            self.session.ping(min(CHECK_PING_SECONDS, self.session.timeout))
        except McpTuiError as exc:
            self.failed("lifecycle.ping", exc, "ping")

    def check_capabilities(self):
        """A capability the server does not declare should be refused (-32601), not served."""
        self.apply("capabilities.undeclared-refused")
        for capability, method in (("tools", "tools/list"), ("resources", "resources/list"),
                                   ("prompts", "prompts/list")):
            if capability in self.session.capabilities:
                continue
            try:
                self.session.request(method, {})
            except RpcError:
                continue
            except McpTuiError as exc:
                self.found("capabilities.undeclared-refused", "%s failed: %s" % (method, exc.message), method)
                continue
            self.found("capabilities.undeclared-refused", "%s answered, though the server does not declare the %s "
                       "capability" % (method, capability), method)

    def check_tools(self):
        tools = self.list_of("tools/list", "tools")
        if tools is None:
            return
        self.tools = tools
        task_support, any_output_schema = (self.session.era_states("tools_declare_task_support"),
                                           self.session.era_states("any_output_schema"))
        self.apply("tools.unique-names", "tools.valid-names", "tools.input-schema", "tools.portable-schema",
                   "tools.output-schema", "tools.annotations",
                   *(("tools.task-support",) if task_support else ()))
        seen = set()
        for tool in tools:
            name = tool.get("name")
            where = "tool %s" % json.dumps(name, ensure_ascii=False)
            if isinstance(name, str) and name in seen:
                self.found("tools.unique-names", "two tools are named %s" % json.dumps(name, ensure_ascii=False),
                           where)
            if isinstance(name, str):
                seen.add(name)
            if not isinstance(name, str) or not re.match(TOOL_NAME, name):
                self.found("tools.valid-names", "the name %s breaks the naming rule" % json.dumps(
                    name, ensure_ascii=False), where)
            schema = tool.get("inputSchema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                self.found("tools.input-schema", "its inputSchema is %s, not an object schema of type \"object\""
                           % cut_text(json.dumps(schema, ensure_ascii=False), 80), where)
            unportable = [key for key in UNPORTABLE_SCHEMA_KEYWORDS if isinstance(schema, dict) and key in schema]
            if unportable:
                self.found("tools.portable-schema", "its inputSchema uses %s at the top level" % ", ".join(unportable),
                           where)
            if "outputSchema" in tool and not (isinstance(tool["outputSchema"], dict)
                                               and (any_output_schema or tool["outputSchema"].get("type") == "object")):
                self.found("tools.output-schema", "its outputSchema is %s" % cut_text(
                    json.dumps(tool["outputSchema"], ensure_ascii=False), 80), where)
            annotations = tool.get("annotations")
            if annotations is not None and not isinstance(annotations, dict):
                self.found("tools.annotations", "its annotations are not an object", where)
            elif annotations:
                for hint in TOOL_HINTS:
                    if hint in annotations and not isinstance(annotations[hint], bool):
                        self.found("tools.annotations", "%s is %s, not true or false" % (
                            hint, json.dumps(annotations[hint])), where)
                if "title" in annotations and not isinstance(annotations["title"], str):
                    self.found("tools.annotations", "its annotations' title is not a string", where)
            execution = tool.get("execution")
            support = execution.get("taskSupport") if isinstance(execution, dict) else None
            if support is not None and support not in TASK_SUPPORT_VALUES and task_support:
                self.found("tools.task-support", "taskSupport is %s" % json.dumps(support), where)
        self.probe_unknown_tool(seen)
        self.call_tools(tools)

    def probe_unknown_tool(self, names):
        name = "mcp-tui-check-no-such-tool-%s" % os.urandom(4).hex()
        while name in names:
            name += "-x"
        self.apply("tools.unknown-tool")
        try:
            result = self.session.request("tools/call", {"name": name, "arguments": {}})
        except RpcError:
            return  # the error expected
        except McpTuiError as exc:
            self.failed("tools.unknown-tool", exc, "tools/call")
            return
        if not result.get("isError"):
            self.found("tools.unknown-tool", "a call of the unknown tool %r was answered as a success" % name,
                       "tools/call")

    def call_tools(self, tools):
        """--call NAME k=v ..., and with --call-readonly every tool annotated readOnlyHint: true
        that needs no arguments; each result is checked against the tool's outputSchema."""
        by_name = dict((tool.get("name"), tool) for tool in tools if isinstance(tool.get("name"), str))
        wanted = list(self.calls)
        if self.call_readonly:
            named = set(name for name, _ in wanted)
            for tool in tools:
                annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
                schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
                if (annotations.get("readOnlyHint") is True and tool.get("name") not in named
                        and not schema.get("required") and listed_task_support(tool) != "required"):
                    wanted.append((tool.get("name"), []))
        for name, words in wanted:
            tool = by_name.get(name)
            if tool is None:
                raise UsageError("--call: the server has no tool named %r; nothing was called" % name,
                                 hint=did_you_mean(name, [n for n in by_name if isinstance(n, str)], "see tool list"))
            arguments = parse_arguments(words, tool.get("inputSchema") or {})
            self.call_one(tool, arguments)

    def call_one(self, tool, arguments):
        where = "tool %s" % json.dumps(tool.get("name"), ensure_ascii=False)
        self.apply("tools.call", "tools.structured-content")
        self.progress("calling %s..." % where)
        try:
            result = call_tool(self.session, tool["name"], arguments)
        except McpTuiError as exc:
            self.found("tools.call", "the call failed: %s" % exc.message, where)
            return
        if result.get("isError"):
            self.found("tools.call", "the tool answered with isError: true", where)
            return
        schema = tool.get("outputSchema")
        if not isinstance(schema, dict):
            return
        if "structuredContent" not in result:
            self.found("tools.structured-content", "the tool declares an outputSchema and its result has no "
                       "structuredContent", where)
            return
        violation = schema_violation(result["structuredContent"], schema)
        if violation:
            self.found("tools.structured-content", "structuredContent breaks the outputSchema: %s %s" % violation,
                       where)

    def check_resources(self):
        resources = self.list_of("resources/list", "resources")
        self.resources = resources or []
        self.apply("resources.uri-scheme", "resources.template-syntax", "resources.template-scheme")
        for resource in resources or ():
            uri = resource.get("uri")
            if not isinstance(uri, str) or not re.match(URI_SCHEME, uri):
                self.found("resources.uri-scheme", "the URI %s has no scheme" % json.dumps(uri, ensure_ascii=False),
                           "resource %s" % json.dumps(resource.get("name"), ensure_ascii=False))
        try:
            templates = list_all(self.session, "resources/templates/list", "resourceTemplates")
        except RpcError as exc:
            templates = []
            if exc.code != METHOD_NOT_FOUND:  # a server without templates may not have the method
                self.failed("capabilities.declared-answer", exc, "resources/templates/list")
        except McpTuiError as exc:
            templates = []
            self.failed("capabilities.declared-answer", exc, "resources/templates/list")
        self.templates = [template for template in templates if isinstance(template, dict)]
        for template in templates:
            text = template.get("uriTemplate") if isinstance(template, dict) else None
            where = "template %s" % json.dumps(text, ensure_ascii=False)
            problem = template_problem(text) if isinstance(text, str) else "it has no uriTemplate"
            if problem:
                self.found("resources.template-syntax", problem, where)
            elif not text.startswith("{") and not re.match(URI_SCHEME, text):
                self.found("resources.template-scheme", "the template %s has no scheme" % json.dumps(text), where)
        self.apply("resources.read-back", "resources.blob-base64")
        for resource in (resources or ())[:CHECK_READ_LIMIT]:
            uri = resource.get("uri")
            if isinstance(uri, str):
                result = self.request("resources.read-back", "resources/read", {"uri": uri}, "resource %s" % uri)
                if result is not None:
                    self.check_contents(uri, result)

    def check_contents(self, uri, result):
        import base64
        import binascii

        where = "resource %s" % uri
        contents = result.get("contents")
        if not isinstance(contents, list):
            self.found("resources.read-back", "resources/read answered without a contents list", where)
            return
        for item in contents:
            if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                self.found("resources.read-back", "a content item has no uri", where)
            elif isinstance(item.get("text"), str):
                continue
            elif not isinstance(item.get("blob"), str):
                self.found("resources.read-back", "a content item has neither text nor blob", where)
            else:
                try:
                    base64.b64decode(item["blob"], validate=True)
                except (binascii.Error, ValueError):
                    self.found("resources.blob-base64", "its blob is not base64 (%s)" % cut_text(item["blob"], 40),
                               where)

    def check_prompts(self):
        prompts = self.list_of("prompts/list", "prompts")
        self.apply("prompts.well-formed", "prompts.get")
        self.prompts = prompts or []
        got = 0
        for prompt in prompts or ():
            name = prompt.get("name")
            where = "prompt %s" % json.dumps(name, ensure_ascii=False)
            arguments = prompt.get("arguments", [])
            if not isinstance(name, str):
                self.found("prompts.well-formed", "a prompt has no name", where)
                continue
            if not isinstance(arguments, list) or not all(
                    isinstance(a, dict) and isinstance(a.get("name"), str)
                    and isinstance(a.get("required", False), bool) for a in arguments):
                self.found("prompts.well-formed", "its arguments are not a list of {name, required}", where)
                continue
            if any(a.get("required") for a in arguments) or got >= CHECK_READ_LIMIT:
                continue
            got += 1
            result = self.request("prompts.get", "prompts/get", {"name": name, "arguments": {}}, where)
            messages = result.get("messages") if result is not None else []
            if not isinstance(messages, list) or not all(
                    isinstance(m, dict) and m.get("role") in ("user", "assistant") and isinstance(m.get("content"), dict)
                    for m in messages):
                self.found("prompts.get", "its messages are not a list of {role, content}", where)

    def check_completion(self):
        """One completion, of the first prompt argument or template variable there is."""
        self.apply("completion.answers")
        ref = argument = None
        for prompt in self.prompts:
            arguments = prompt.get("arguments") if isinstance(prompt.get("arguments"), list) else ()
            names = [a.get("name") for a in arguments if isinstance(a, dict)]
            if isinstance(prompt.get("name"), str) and names and isinstance(names[0], str):
                ref, argument = {"type": "ref/prompt", "name": prompt["name"]}, names[0]
                break
        if ref is None:
            for template in self.templates:
                text = template.get("uriTemplate")
                variables = template_variables(text) if isinstance(text, str) and not template_problem(text) else ()
                if variables:
                    ref, argument = {"type": "ref/resource", "uri": text}, variables[0]
                    break
        if ref is None:
            return
        where = "completion of %s" % argument
        try:
            result = complete_argument(self.session, ref, argument, "")
        except RpcError as exc:
            if exc.code == METHOD_NOT_FOUND:
                self.found("completion.answers", "completion/complete says -32601 Method not found, though the "
                           "server declares completions", where)
            return  # another refusal may be this argument's: not the method's
        except McpTuiError as exc:
            self.failed("completion.answers", exc, where)
            return
        completion = result.get("completion")
        if not isinstance(completion, dict) or not isinstance(completion.get("values"), list):
            self.found("completion.answers", "the result has no completion.values list", where)

    def check_logging(self):
        self.apply("logging.set-level")
        try:
            self.session.set_log_level(self.session.log_level or "info")
        except McpTuiError as exc:
            self.failed("logging.set-level", exc, "logging/setLevel")

    def check_tasks(self):
        """A tool's taskSupport against the task support the session's form declares, and
        tasks/list when the form has it and the server declares it (2025-11-25)."""
        form = tasks_for(self.session)
        self.apply("tasks.coherent")
        for tool in self.tools:
            if listed_task_support(tool) in ("optional", "required") and form.tools_call_refusal() is not None:
                self.found("tasks.coherent", "taskSupport is %s, and the server declares no task support for "
                           "tools/call" % listed_task_support(tool), "tool %s" % json.dumps(tool.get("name")))
        support = form.support()
        if support is not None and support.methods.get("tasks/list"):
            self.apply("tasks.list")
            try:  # read as the schema states it (form.list() would also refuse an empty taskId)
                tasks = list_all(self.session, "tasks/list", "tasks")
            except McpTuiError as exc:
                self.failed("tasks.list", exc, "tasks/list")
                return
            if not all(isinstance(task, dict) and isinstance(task.get("taskId"), str)
                       and task.get("status") in TASK_STATUSES for task in tasks):
                self.found("tasks.list", "its tasks are not all {taskId, status} with a known status", "tasks/list")


class ClaimChecks:
    """`check`'s probes of what a server claims about changes: listChanged and
    resources.subscribe. Under 2025-11-25 it subscribes to a listed resource and unsubscribes
    again (nothing is left behind); under 2026-07-28 it opens one subscriptions/listen asking
    for every kind of change, compares the acknowledgement with the claims, and closes it.
    In both, the list_changed notifications seen on the way are held to the claims."""

    NO_RESOURCE = "mcp-tui-check://no-such-resource"  # what a server with none listed is asked to subscribe to

    def __init__(self, check):
        self.check = check
        self.apply, self.found = check.apply, check.found

    @property
    def session(self):
        return self.check.session

    def claims(self, capability, flag):
        """Whether the server declares ``capability`` with ``flag``: true."""
        declared = self.session.capabilities.get(capability)
        return isinstance(declared, dict) and declared.get(flag) is True

    def check_claims(self):
        self.apply("capabilities.list-changed", "capabilities.list-changed-unclaimed")
        for capability in sorted(LIST_CHANGE_FILTERS):
            declared = self.session.capabilities.get(capability)
            for flag in ("listChanged", "subscribe") if capability == "resources" else ("listChanged",):
                value = declared.get(flag) if isinstance(declared, dict) else None
                if value is not None and not isinstance(value, bool):
                    self.found("capabilities.list-changed" if flag == "listChanged" else "capabilities.subscribe",
                               "%s.%s is %s, not true or false" % (capability, flag, json.dumps(value)),
                               "capabilities")
        listed = [r.get("uri") for r in self.check.resources if isinstance(r.get("uri"), str)]
        if self.session.era_states("listens_for_changes"):
            self.check_listen(listed[0] if listed else None)
        else:
            self.check_subscribe(listed[0] if listed else None)

    def check_subscribe(self, uri):
        """resources/subscribe, then resources/unsubscribe of the same URI: both answer when
        subscribe is claimed (on a URI the server did not list, only -32601 counts), and a
        subscription taken without the claim is a warning (and is undone)."""
        claimed = self.claims("resources", "subscribe")
        rule = "capabilities.subscribe" if claimed else "capabilities.subscribe-unclaimed"
        self.apply(rule)
        for method in ("resources/subscribe", "resources/unsubscribe"):
            try:
                # unclaimed, the answer expected is a quick refusal: a server that ignores it is not waited for
                self.session.request(method, {"uri": uri or self.NO_RESOURCE}, timeout=None if claimed else min(
                    CHECK_PING_SECONDS, self.session.timeout))
            except RpcError as exc:
                if claimed and (uri is not None or exc.code == METHOD_NOT_FOUND):
                    self.found(rule, "refused with %s %s, though the server declares resources.subscribe" % (
                        exc.code, cut_text(exc.rpc_message, 80)), method)
                if not claimed:
                    return  # refused, as it should be: nothing to undo
                continue
            except McpTuiError as exc:
                if not claimed:
                    return  # no answer (or a broken one): no subscription was taken
                self.found(rule, "failed: %s" % exc.message, method)
                continue
            if not claimed and method == "resources/subscribe":
                self.found(rule, "answered, though the server does not declare resources.subscribe", method)

    def check_listen(self, uri):
        """One subscriptions/listen for every list change (and ``uri``'s updates), closed as
        soon as it is acknowledged: the acknowledgement must keep each claim and only those."""
        claims = dict((flag, self.claims(capability, "listChanged"))
                      for capability, flag in LIST_CHANGE_FILTERS.items())
        subscribe = self.claims("resources", "subscribe")
        self.apply("capabilities.subscribe" if subscribe else "capabilities.subscribe-unclaimed")
        filters = dict((flag, True) for flag in claims)
        if uri is not None:
            filters["resourceSubscriptions"] = [uri]
        subscription = self.session.listen(filters, lambda message: None)
        try:
            acknowledged = subscription.acknowledged.wait(min(CHECK_PING_SECONDS, self.session.timeout))
        finally:
            subscription.close()
        accepted = subscription.accepted if acknowledged and subscription.error is None else None
        if not isinstance(accepted, dict):
            error = subscription.error
            why = ("refused with %s %s" % (error.code, cut_text(error.rpc_message, 80)) if isinstance(error, RpcError)
                   else "failed: %s" % error.message if error is not None
                   else "no acknowledgement within %s" % seconds_text(min(CHECK_PING_SECONDS, self.session.timeout))
                   if not acknowledged else "an acknowledgement without notifications")
            for capability, flag in sorted(LIST_CHANGE_FILTERS.items()):
                if claims[flag]:
                    self.found("capabilities.list-changed", "%s: %s, though %s.listChanged is true" % (
                        flag, why, capability), "subscriptions/listen")
            if subscribe and uri is not None:
                self.found("capabilities.subscribe", "resourceSubscriptions: %s, though the server declares "
                           "resources.subscribe" % why, "subscriptions/listen")
            return
        for capability, flag in sorted(LIST_CHANGE_FILTERS.items()):
            kept = accepted.get(flag) is True
            if claims[flag] and not kept:
                self.found("capabilities.list-changed", "the listen acknowledgement leaves out %s, though %s."
                           "listChanged is true" % (flag, capability), "subscriptions/listen")
            elif kept and capability not in self.session.capabilities:
                self.found("capabilities.list-changed", "the listen acknowledgement keeps %s, though the server "
                           "declares no %s capability" % (flag, capability), "subscriptions/listen")
            elif kept and not claims[flag]:
                self.found("capabilities.list-changed-unclaimed", "the listen acknowledgement keeps %s, though "
                           "%s.listChanged is not true" % (flag, capability), "subscriptions/listen")
        kept = accepted.get("resourceSubscriptions")
        kept = uri is not None and isinstance(kept, list) and uri in kept
        if subscribe and uri is not None and not kept:
            self.found("capabilities.subscribe", "the listen acknowledgement leaves out the subscription to %s, "
                       "though the server declares resources.subscribe" % uri, "subscriptions/listen")
        elif kept and not subscribe:
            self.found("capabilities.subscribe-unclaimed", "the listen acknowledgement keeps the subscription to %s, "
                       "though the server does not declare resources.subscribe" % uri, "subscriptions/listen")

    def check_announced(self):
        """The list_changed notifications that came, each against its capability's claim."""
        for capability in sorted(self.check.announced):
            method = "notifications/%s/list_changed" % capability
            if capability not in self.session.capabilities:
                self.found("capabilities.list-changed", "the server sent %s, though it declares no %s capability"
                           % (method, capability), method)
            elif not self.claims(capability, "listChanged"):
                self.found("capabilities.list-changed-unclaimed", "the server sent %s, though %s.listChanged is "
                           "not true" % (method, capability), method)


class HttpChecks:
    """`check`'s probes of what only HTTP has: the Streamable HTTP transport's statuses, media
    types and headers, and the authorization metadata of a server that answers 401. They make
    their own requests (with the session's HTTP client, or plainly before a session opens)
    and report into the ServerCheck they are given."""

    def __init__(self, check):
        self.check = check
        self.apply, self.found, self.progress = check.apply, check.found, check.progress

    @property
    def session(self):
        return self.check.session

    def http_probe(self, headers, method, verb="POST"):
        """One JSON-RPC request sent straight over the session's HTTP client, outside the
        channel (under a fresh id of it): its HTTP status, or None if it got no answer. A
        2xx answer to a POST has its content type judged (http.content-type)."""
        status, content_type = self.http_exchange(verb, headers, method)
        if verb == "POST" and status is not None and 200 <= status < 300 and status != 202:
            self.apply("http.content-type")
            if content_type not in ("application/json", "text/event-stream"):
                self.found("http.content-type", "a POST of %s was answered with Content-Type %s" % (
                    method, json.dumps(content_type)), method)
        return status

    def http_exchange(self, verb, headers, method=None):
        """(HTTP status, media type) of one request (a POST carries ``method``), or (None, None)."""
        http = self.session.transport.http
        body = None
        headers = dict(headers, Accept="application/json, text/event-stream")
        if verb == "POST":
            params = self.session.stamped({}, method)
            body = encode_message({"jsonrpc": "2.0", "id": self.session.channel.next_id(), "method": method,
                                   "params": params})
            headers["Content-Type"] = "application/json"
        try:
            conn, response = http.open(verb, body=body, headers=headers, stream=True,
                                       seconds=min(CHECK_PING_SECONDS, self.session.timeout), carries=method or verb)
        except McpTuiError:
            return None, None
        http.discard(conn)  # only the status and type matter; an SSE answer is not read to its end
        return response.status, (response.getheader("Content-Type") or "").split(";")[0].strip().lower() or None

    def check_http(self):
        """The Streamable HTTP transport's own rules, each judged against a control request
        the server accepts: a session id it never issued, and a foreign Origin."""
        summary = self.session.summary()
        headers = {"MCP-Protocol-Version": summary["protocolVersion"]}
        session_id = self.session.http_session_id()
        if session_id:
            headers["Mcp-Session-Id"] = session_id
        for method in ("ping", "server/discover"):  # whichever the server takes without a session's _meta
            control = self.http_probe(dict(headers, **{"Mcp-Method": method}), method)
            if control is not None and 200 <= control < 300:
                headers["Mcp-Method"] = method
                break
        else:
            return  # a plain request is not accepted this way: nothing to compare with
        if session_id:
            self.apply("http.unknown-session")
            unknown = self.http_probe(dict(headers, **{"Mcp-Session-Id": "mcp-tui-check-%s" % os.urandom(8).hex()}),
                                      method)
            if unknown is not None and unknown not in (400, 404):
                self.found("http.unknown-session", "a request under a session id it never issued got HTTP %d"
                           % unknown, "Mcp-Session-Id")
        self.apply("http.origin")
        foreign = self.http_probe(dict(headers, Origin="http://mcp-tui-check.invalid"), method)
        if foreign is not None and 200 <= foreign < 300:
            self.found("http.origin", "a request with Origin: http://mcp-tui-check.invalid was accepted (HTTP %d)"
                       % foreign, "Origin")
        if self.session.era_states("method_in_headers"):
            self.apply("http.method-header")
            other = "tools/list" if method != "tools/list" else "ping"
            contradicted = self.http_probe(dict(headers, **{"Mcp-Method": other}), method)
            if contradicted is not None and 200 <= contradicted < 300:
                self.found("http.method-header", "a request for %s with Mcp-Method: %s was accepted (HTTP %d)" % (
                    method, other, contradicted), "Mcp-Method")
        self.apply("http.get-stream")
        status, content_type = self.http_exchange("GET", dict(headers, Accept="text/event-stream"))
        # 409: this session has its stream open already (mcp-tui's own), which a server may keep to one
        if status not in (None, 405, 409) and not (200 <= status < 300 and content_type == "text/event-stream"):
            self.found("http.get-stream", "GET was answered with HTTP %d %s" % (status, content_type or ""), "GET")

    def check_http_delete(self):
        """Last of all, as it ends the session: a DELETE under the session's id (2025-11-25)."""
        session_id = self.session.http_session_id()
        if not session_id:
            return
        self.apply("http.delete")
        status, _ = self.http_exchange("DELETE", {"Mcp-Session-Id": session_id,
                                                  "MCP-Protocol-Version": self.session.summary()["protocolVersion"]})
        if status is not None and status not in (200, 202, 204, 405):
            self.found("http.delete", "DELETE of the session got HTTP %d" % status, "DELETE")

    def check_authorization(self, url):
        """The authorization rules, when ``url`` answers a request without credentials with
        401: run before the session opens (and whether or not it does), with requests of their
        own, since a broken authorization setup is often why a session does not open."""
        try:
            status, headers, _ = check_fetch("POST", url, encode_message(
                {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {}}))
        except OSError:
            return  # the connection itself is judged by the session's rules
        from urllib.parse import urljoin, urlsplit

        if status != 401:
            return
        self.progress("checking authorization...")
        self.apply("auth.resource-metadata", "auth.https")
        challenge = re.search(r'resource_metadata\s*=\s*"([^"]*)"', headers.get("WWW-Authenticate") or "")
        parts = urlsplit(url)
        origin, path = "%s://%s" % (parts.scheme, parts.netloc), parts.path.rstrip("/")
        places = [urljoin(url, challenge.group(1))] if challenge else [
            origin + "/.well-known/oauth-protected-resource" + path, origin + "/.well-known/oauth-protected-resource"]
        where, metadata = check_fetch_json(places)
        if metadata is None:
            self.found("auth.resource-metadata", "the server answers 401, and there is no protected-resource "
                       "metadata at %s" % " or ".join(places), "WWW-Authenticate")
            return
        self.check_https(where, "protected-resource metadata")
        resource, servers = metadata.get("resource"), metadata.get("authorization_servers")
        if not isinstance(resource, str) or not resource_covers(resource, url):
            self.found("auth.resource-metadata", "its resource is %s, not this server's URL %s" % (
                json.dumps(resource), masked_url(url)), where)
        if not isinstance(servers, list) or not servers or not all(isinstance(s, str) for s in servers):
            self.found("auth.resource-metadata", "it lists no authorization_servers", where)
            return
        self.check_authorization_server(servers[0])

    def check_authorization_server(self, issuer):
        from urllib.parse import urlsplit

        self.apply("auth.server-metadata", "auth.pkce-s256")
        self.check_https(issuer, "the authorization server")
        parts = urlsplit(issuer)
        origin, path = "%s://%s" % (parts.scheme, parts.netloc), parts.path.rstrip("/")
        places = [origin + "/.well-known/oauth-authorization-server" + path,
                  origin + "/.well-known/openid-configuration" + path, origin + path + "/.well-known/openid-configuration"]
        where, metadata = check_fetch_json(places)
        if metadata is None:
            self.found("auth.server-metadata", "no authorization server metadata at %s" % " or ".join(places), issuer)
            return
        endpoints = [metadata.get(name) for name in ("authorization_endpoint", "token_endpoint")]
        if not all(isinstance(endpoint, str) and endpoint for endpoint in endpoints):
            self.found("auth.server-metadata", "it names no authorization_endpoint and token_endpoint", where)
        methods = metadata.get("code_challenge_methods_supported")
        if not isinstance(methods, list) or "S256" not in methods:
            self.found("auth.pkce-s256", "code_challenge_methods_supported is %s, without \"S256\"" % json.dumps(
                methods), where)
        for name in ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"):
            if isinstance(metadata.get(name), str):
                self.check_https(metadata[name], name)

    def check_https(self, url, what):
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme.lower() != "https" and not is_loopback_host(parts.hostname):
            self.found("auth.https", "%s is %s, plain HTTP off this machine" % (what, masked_url(url)), what)


class LatencyHistogram:
    """Latencies in buckets 1% apart (from a microsecond up), so that a long --load run keeps
    a fixed amount of memory however many calls it makes; a percentile is read to within 1%
    (the bucket's upper bound, never above the largest latency seen). Min, max and mean are exact."""

    RATIO = 1.01
    FLOOR = 1e-6

    def __init__(self):
        import collections
        import math

        self._log_ratio = math.log(self.RATIO)
        self.counts = collections.Counter()  # bucket -> calls; at most a few thousand buckets
        self.count, self.total, self.low, self.high = 0, 0.0, None, None

    def add(self, seconds):
        import math

        bucket = max(0, int(math.ceil(math.log(max(seconds, self.FLOOR) / self.FLOOR) / self._log_ratio)))
        self.counts[bucket] += 1
        self.count += 1
        self.total += seconds
        self.low = seconds if self.low is None else min(self.low, seconds)
        self.high = seconds if self.high is None else max(self.high, seconds)

    def percentile(self, fraction):
        import math

        if not self.count:
            return None
        rank, seen = max(1, int(math.ceil(fraction * self.count))), 0
        for bucket in sorted(self.counts):
            seen += self.counts[bucket]
            if seen >= rank:
                return min(self.high, max(self.low, self.FLOOR * self.RATIO ** bucket))
        return self.high

    def summary_ms(self):
        """{min, mean, p50, p90, p99, max} in milliseconds (None each before any call)."""
        def ms(value):
            return None if value is None else round(value * 1000, 3)

        return {"min": ms(self.low), "mean": ms(self.total / self.count if self.count else None),
                "p50": ms(self.percentile(0.5)), "p90": ms(self.percentile(0.9)), "p99": ms(self.percentile(0.99)),
                "max": ms(self.high)}


class ToolLoad:
    """`tool call NAME --load`: one tool called again and again by ``concurrency`` threads over
    the one session (HTTP: each call on a pooled connection; stdio: calls pipelined on the
    pipe), until ``requests`` calls were made or ``duration`` seconds passed, started no faster
    than ``rate`` a second. What it keeps does not grow with the calls: counts, a latency
    histogram and the first KEPT_ERRORS distinct error messages."""

    KEPT_ERRORS = 20

    def __init__(self, session, name, arguments, requests=None, duration=None, concurrency=10, rate=None):
        import collections

        self.session, self.name, self.arguments = session, name, arguments
        self.requests, self.duration, self.concurrency, self.rate = requests, duration, concurrency, rate
        self.latency = LatencyHistogram()
        self.issued = self.ok = self.tool_errors = self.errors = 0
        self.error_messages = collections.OrderedDict()  # message -> count
        self.started = self.ended = None
        self.stopped = threading.Event()
        self._lock = threading.Lock()

    def run(self, on_tick=None):
        """Make the calls; ``on_tick`` (the running totals) is called about once a second."""
        self.started = time.monotonic()
        workers = [threading.Thread(target=self._work, daemon=True) for _ in range(self.concurrency)]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                while worker.is_alive():
                    worker.join(1.0)
                    if on_tick and worker.is_alive():
                        on_tick(self)
        except KeyboardInterrupt:
            self.stopped.set()  # no new calls; the ones in flight end with the session
            raise
        finally:
            self.ended = time.monotonic()

    def _ticket(self):
        """When the next call may start (monotonic), or None when the run is over."""
        with self._lock:
            now = time.monotonic()
            if self.stopped.is_set() or (self.requests is not None and self.issued >= self.requests) or (
                    self.duration is not None and now - self.started >= self.duration):
                return None
            if self.session.channel.closed_error() is not None:
                return None  # the server is gone: every further call would fail at once
            start_at = self.started + self.issued / self.rate if self.rate else now
            if self.duration is not None and start_at - self.started >= self.duration:
                return None  # its turn would come after the end
            self.issued += 1
            return start_at

    def _work(self):
        while True:
            start_at = self._ticket()
            if start_at is None:
                return
            if start_at > time.monotonic() and self.stopped.wait(start_at - time.monotonic()):
                return
            began = time.monotonic()
            message = None
            try:
                result = call_tool(self.session, self.name, self.arguments)
                outcome = "toolError" if result.get("isError") else "ok"
            except McpTuiError as exc:
                outcome, message = "error", exc.message
            self._record(time.monotonic() - began, outcome, message)

    def _record(self, seconds, outcome, message):
        with self._lock:
            self.latency.add(seconds)
            if outcome == "ok":
                self.ok += 1
            elif outcome == "toolError":
                self.tool_errors += 1
            else:
                self.errors += 1
                if message in self.error_messages or len(self.error_messages) < self.KEPT_ERRORS:
                    self.error_messages[message] = self.error_messages.get(message, 0) + 1

    def summary(self):
        """The Inspector's --load keys, so that a user can switch: requests, ok, toolErrors,
        errors, errorRate (tool errors and errors over requests, as the Inspector 2.12 counts
        it), elapsedMs, throughput (calls a second), latencyMs; and the distinct error
        messages with their counts."""
        with self._lock:
            done = self.ok + self.tool_errors + self.errors
            elapsed = (self.ended or time.monotonic()) - self.started
            return {"requests": done, "ok": self.ok, "toolErrors": self.tool_errors, "errors": self.errors,
                    "errorRate": round((self.tool_errors + self.errors) / done, 4) if done else 0.0,
                    "elapsedMs": round(elapsed * 1000, 1),
                    "throughput": round(done / elapsed, 1) if elapsed > 0 else 0.0,
                    "latencyMs": self.latency.summary_ms(),
                    "errorMessages": [{"message": text, "count": count}
                                      for text, count in self.error_messages.items()]}


# ======================================================================================
# 4. Debug log: every message and transport event in a bounded ring, with secrets masked
#
# Task IDs may be bearer tokens, so the log names a task by an 8-character fingerprint;
# session ids and bearer tokens are masked the same way. Sinks (--debug on stderr,
# --log-file as JSON lines, later the TUI's debug screen) see only masked entries.
# ======================================================================================


LOG_BODY_LIMIT = 64 * 1024


def find_task_ids(value, found):
    """Collect the task IDs a message carries (taskId keys and taskIds lists)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "taskId" and isinstance(item, str):
                found.add(item)
            elif key == "taskIds" and isinstance(item, list):
                found.update(i for i in item if isinstance(i, str))
            else:
                find_task_ids(item, found)
    elif isinstance(value, list):
        for item in value:
            find_task_ids(item, found)
    return found


def message_kind(message):
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "response"


def cut_long_strings(value, limit, cut=None):
    """``value`` with every string longer than ``limit`` cut to its first ``limit``
    characters; the value itself when nothing is that long. ``cut`` (a one-item list)
    adds up the characters that went."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        if cut is not None:
            cut[0] += len(value) - limit
        return value[:limit]
    if isinstance(value, dict):
        items = [(key, cut_long_strings(item, limit, cut)) for key, item in value.items()]
        return value if all(new is value[key] for key, new in items) else dict(items)
    if isinstance(value, list):
        items = [cut_long_strings(item, limit, cut) for item in value]
        return value if all(new is old for new, old in zip(items, value)) else items
    return value


def log_entry_selected(entry, kinds=None, method_prefix=None, task=None):
    """Whether DebugLog.select keeps ``entry``: by type or message kind, by method prefix,
    by task fingerprint."""
    return ((kinds is None or entry["type"] in kinds or entry.get("kind") in kinds)
            and (method_prefix is None or (entry.get("method") or "").startswith(method_prefix))
            and (task is None or entry.get("task") == task))


def is_task_status_entry(entry):
    return entry.get("kind") == "notification" and is_task_status_notification(entry.get("method"))


class LogSelection:
    """The entries of a DebugLog that ``keep`` accepts, kept up to date: refresh() looks only
    at the entries added since the last refresh and forgets those the ring has dropped, so
    following a full log costs nothing while it does not change."""

    def __init__(self, log, keep):
        import collections

        self.log, self.keep = log, keep
        self.seen = 0  # the log's count of added entries at the last refresh
        self.numbers = collections.deque()  # each kept entry's place in the order of adding
        self.entries = collections.deque()

    def refresh(self):
        added, held, fresh = self.log.since(self.seen)
        number = added - len(fresh)
        for entry in fresh:
            if self.keep(entry):
                self.numbers.append(number)
                self.entries.append(entry)
            number += 1
        while self.numbers and self.numbers[0] < added - held:
            self.numbers.popleft()
            self.entries.popleft()
        self.seen = added
        return self

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, index):
        return self.entries[index]


RECORDING_FORMAT = 1
# The request that opens a session says its era before the session has chosen one.
ERA_OPENERS = {"initialize": "legacy", "server/discover": "modern"}


def masked_strings(value, registry):
    """``value`` with every string in it (keys too) passed through ``registry.redact``."""
    if isinstance(value, str):
        return registry.redact(value)
    if isinstance(value, dict):
        return {registry.redact(key): masked_strings(item, registry) for key, item in value.items()}
    if isinstance(value, list):
        return [masked_strings(item, registry) for item in value]
    return value


class MessageRecorder:
    """--record: every JSON-RPC message of the run, both ways and whole, one JSON line each
    with its direction, seconds since the recording began, era and transport. The run's
    credentials are masked as in the debug log; task IDs are kept (a replay follows them),
    which is why the file is private. Each run appends a line that starts its part."""

    def __init__(self, handle, credentials):
        self.handle, self.credentials = handle, credentials
        self.started = time.monotonic()
        self.labelled_era = None  # a label on each line, never a decision: the session decides
        self._lock = threading.Lock()
        self._write({"recording": RECORDING_FORMAT, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})

    def see(self, entry):
        """A sink of the debug log: its session events say which era was chosen."""
        if entry.get("type") == "event" and entry.get("era"):
            self.labelled_era = entry["era"]

    def message(self, direction, message, transport):
        if direction == "out" and message.get("method") in ERA_OPENERS:
            self.labelled_era = ERA_OPENERS[message["method"]]
        try:
            kept = masked_strings(message, self.credentials)
        except RecursionError:
            kept = {"unrecorded": "nested too deeply to record"}
        self._write({"t": round(time.monotonic() - self.started, 6), "direction": direction, "era": self.labelled_era,
                     "transport": transport, "message": kept})

    def _write(self, record):
        line = json.dumps(record, sort_keys=True)  # ASCII: a `cat` of the file is safe on a terminal
        with self._lock:
            self.handle.write(line + "\n")
            self.handle.flush()


# Requests a replay leaves to the session: it opens its own, with its own handshake.
OPENING_METHODS = ("initialize", "server/discover")
# Fields that differ between two answers of one server by nature: left out of a comparison.
VARYING_KEYS = ("_meta", "createdAt", "lastUpdatedAt", "sessionId")
TIMESTAMP = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$"


class Recording:
    """A --record file read back: the client's requests in order, each with the answer it got
    (the last round's, when the server asked for input on the way), and the client's answers
    to the server's requests by method."""

    def __init__(self, lines, where):
        self.exchanges, self.answers, self.client_methods = [], {}, set()
        pending, server_requests, last = {}, {}, None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = strict_json(line)
            except (ValueError, RecursionError):
                raise UsageError("%s: line %d is not JSON" % (where, number))
            if not isinstance(record, dict):
                raise UsageError("%s: line %d is not a recorded message" % (where, number))
            if "recording" in record:  # a run starts: its ids are its own
                pending, server_requests, last = {}, {}, None
                continue
            message, direction = record.get("message"), record.get("direction")
            if not isinstance(message, dict) or direction not in ("in", "out"):
                raise UsageError("%s: line %d is not a recorded message" % (where, number))
            method, message_id = message.get("method"), message.get("id")
            if not isinstance(message_id, (str, int, type(None))):  # not a JSON-RPC id: not an exchange
                continue
            params = message.get("params") if isinstance(message.get("params"), dict) else {}
            if direction == "out" and isinstance(method, str) and message_id is not None:
                self.client_methods.add(method)
                if last is not None and last["method"] == method and (
                        "inputResponses" in params or "requestState" in params):
                    self.note_input_answers(last, params)  # a round of the request before, not a request
                    pending[message_id] = last
                    continue
                last = {"method": method, "params": params, "response": None}
                pending[message_id] = last
                if method not in OPENING_METHODS:
                    self.exchanges.append(last)
            elif direction == "in" and method is None and message_id in pending:
                pending.pop(message_id)["response"] = response_outcome(message)
            elif direction == "in" and isinstance(method, str) and message_id is not None:
                server_requests[message_id] = method
            elif direction == "out" and method is None and message_id in server_requests:
                self.answers.setdefault(server_requests.pop(message_id), []).append(response_outcome(message))
        self.exchanges = [exchange for exchange in self.exchanges if exchange["response"] is not None]
        self.tools = {}  # the tools the recording listed, by name: a replayed call sends their x-mcp-header headers
        for exchange in self.exchanges:
            result = exchange["response"].get("result") if exchange["method"] == "tools/list" else None
            listed = result.get("tools") if isinstance(result, dict) else None
            for tool in listed if isinstance(listed, list) else ():
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    self.tools[tool["name"]] = tool

    def note_input_answers(self, exchange, params):
        """2026-07-28: the answers to an input_required round travel in the next round's params."""
        result = (exchange["response"] or {}).get("result") or {}
        requests = result.get("inputRequests") if isinstance(result.get("inputRequests"), dict) else {}
        responses = params.get("inputResponses") if isinstance(params.get("inputResponses"), dict) else {}
        for key, answer in responses.items():
            request = requests.get(key)
            if isinstance(request, dict) and isinstance(request.get("method"), str):
                self.answers.setdefault(request["method"], []).append({"result": answer})


def response_outcome(message):
    return {"error": message["error"]} if "error" in message else {"result": message.get("result")}


class RecordedResponder:
    """Answers the server's requests during a replay as the recording answered them, in
    order by method (the last answer again once they run out); declines what it never saw."""

    def __init__(self, answers, notice):
        self.answers = {method: list(outcomes) for method, outcomes in answers.items()}
        self.declined = notice
        self.roots = []  # as InputResponder has (a session adds a keeper's to it); roots/list is answered as recorded
        self._lock = threading.Lock()

    def answer(self, method, params, server_name):
        with self._lock:
            outcomes = self.answers.get(method) or []
            outcome = (outcomes.pop(0) if len(outcomes) > 1 else outcomes[0]) if outcomes else None
        if outcome is None:
            raise InputDeclined("the recording never answered %s" % method, METHOD_NOT_FOUND)
        if "error" in outcome:
            error = outcome["error"] if isinstance(outcome["error"], dict) else {}
            raise InputDeclined(str(error.get("message", "declined")), error.get("code", -1))
        return outcome["result"]


def with_task_ids(value, task_ids):
    """``value`` with each recorded task ID in it replaced by the one the replay got."""
    if isinstance(value, str):
        return task_ids.get(value, value)
    if isinstance(value, dict):
        return {key: with_task_ids(item, task_ids) for key, item in value.items()}
    if isinstance(value, list):
        return [with_task_ids(item, task_ids) for item in value]
    return value


def comparable(value, ignored, path=()):
    """An answer as a replay compares it: fields that vary by nature (VARYING_KEYS, task
    IDs, timestamps) and the ``ignored`` paths (tuples of keys, "*" for any) left out."""
    if any(len(pattern) == len(path) and all(p in ("*", str(k)) for p, k in zip(pattern, path))
           for pattern in ignored):
        return None
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if key in VARYING_KEYS:
                continue
            if key == "taskId" and isinstance(item, str):
                item = "(task ID)"
            kept[key] = comparable(item, ignored, path + (key,))
        return {key: item for key, item in kept.items() if item is not None or value[key] is None}
    if isinstance(value, list):
        return [comparable(item, ignored, path + (index,)) for index, item in enumerate(value)]
    if isinstance(value, str) and re.match(TIMESTAMP, value):
        return "(time)"
    return value


ABSENT = "(absent)"


def differences(old, new, path=()):
    """(JSON pointer, recorded, replayed) for each place two comparable answers differ."""
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in sorted(set(old) | set(new), key=str):
            found += differences(old.get(key, ABSENT), new.get(key, ABSENT), path + (key,))
        return found
    if isinstance(old, list) and isinstance(new, list):
        found = []
        for index in range(max(len(old), len(new))):
            found += differences(old[index] if index < len(old) else ABSENT,
                                 new[index] if index < len(new) else ABSENT, path + (index,))
        return found
    if old == new and type(old) is type(new):
        return []
    return [("".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path), old, new)]


REPLAY_POLL_SECONDS = 0.1


def task_working(outcome):
    result = outcome.get("result")
    return isinstance(result, dict) and result.get("status") == "working"


def ignore_pattern(text):
    """--ignore /result/content/0/text: a JSON pointer into the answer; "*" stands for any key."""
    if not text.startswith("/"):
        raise UsageError("--ignore %s: a path starts with / (like /result/content/0/text)" % text)
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in text[1:].split("/"))


def replay(session, recording, ignored, on_compared):
    """Send the recording's requests to ``session`` in order, and call ``on_compared(index,
    exchange, differences)`` for each once its answer has come. Returns the count that differ."""
    task_ids, different = {}, 0
    for index, exchange in enumerate(recording.exchanges, 1):
        params = with_task_ids(exchange["params"], task_ids)
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        capabilities = meta.get(META_PREFIX + "clientCapabilities") or {}
        declare_tasks = TASKS_EXTENSION in ((capabilities.get("extensions") or {}) if isinstance(
            capabilities, dict) else {})
        recorded = comparable(exchange["response"], ignored)
        tool = recording.tools.get(params.get("name")) if exchange["method"] == "tools/call" else None
        deadline = time.monotonic() + session.timeout
        while True:
            try:
                result = session.request(exchange["method"], params, declare_tasks=declare_tasks, tool=tool)
                outcome = {"result": result}
            except RpcError as exc:
                outcome = {"error": exc.error}
            found = differences(recorded, comparable(outcome, ignored))
            # A task polled sooner than in the recording: poll again (as the recorded client
            # did) while it is still working, until its answer matches or time is up.
            if not (found and exchange["method"] == "tasks/get" and task_working(outcome)
                    and time.monotonic() < deadline):
                break
            time.sleep(REPLAY_POLL_SECONDS)
        old_ids, new_ids = find_task_ids(exchange["response"], set()), find_task_ids(outcome, set())
        if len(old_ids) == 1 and len(new_ids) == 1:
            task_ids[old_ids.pop()] = new_ids.pop()
        different += bool(found)
        on_compared(index, exchange, found)
    return different


class DebugLog:
    """The ring of the run's debug entries: at most ``capacity`` of them and about ``size``
    bytes, every field cut (a message's body at LOG_BODY_LIMIT, the rest at KEPT_FIELD_LIMIT)."""

    def __init__(self, capacity=5000, credentials=None, size=KEPT_LOG_BYTES):
        self.entries = KeptTail(capacity, size)
        self.added = 0  # entries ever added, the ring's dropped ones included
        self.sinks = []
        self.recorders = []  # MessageRecorders: each message whole, before it is masked and cut for the ring
        self.credentials = credentials if credentials is not None else SecretRegistry()  # the run's
        # Task IDs and session ids of this log, however short, then the run's credentials.
        self.secrets = SecretRegistry(parent=self.credentials, min_length=1)
        self._lock = threading.Lock()

    def mask(self, secret, kind="task"):
        """Register a secret and return the label that stands for it."""
        return self.secrets.add(secret, kind)

    def redact(self, text):
        return self.secrets.redact(text)

    def record_to(self, recorder):
        """--record (or the TUI's F9): ``recorder`` sees every message whole, and the events
        that say which era was chosen."""
        self.recorders.append(recorder)
        self.sinks.append(recorder.see)

    def stop_recording(self, recorder):
        self.recorders.remove(recorder)
        self.sinks.remove(recorder.see)
        recorder.handle.close()

    def message(self, direction, message, transport):
        for recorder in self.recorders:
            try:
                recorder.message(direction, message, transport)
            except Exception:  # as with a sink: a full disk must never break the session
                pass
        task_ids = find_task_ids(message, set())
        for task_id in task_ids:
            self.mask(task_id, "task")
        # A large message keeps only its start. Strings are cut before encoding (a 20 MB
        # result is not encoded again), far enough past the limit that a secret is redacted
        # whole before the body is cut; the note counts what went.
        cut = [0]
        try:
            kept = cut_long_strings(message, LOG_BODY_LIMIT + self.secrets.longest(), cut)
        except RecursionError:
            kept = message
        body = self.redact(json.dumps(kept, ensure_ascii=False, separators=(",", ":")))
        body = cut_text(body, LOG_BODY_LIMIT, len(body) + cut[0])
        entry = {"type": "message", "direction": direction, "transport": transport, "kind": message_kind(message),
                 "method": message.get("method"), "id": message.get("id"), "body": body}
        if len(task_ids) == 1:
            entry["task"] = fingerprint(next(iter(task_ids)))
        self._add(entry)

    def mask_headers(self, headers):
        """Authorization, cookies, the session id and Mcp-Name never appear in clear."""
        masked = {}
        for name, value in headers.items():
            lower = name.lower()
            if lower in ("authorization", "proxy-authorization"):
                scheme, _, credentials = value.partition(" ")
                masked[name] = "%s %s" % (scheme, self.mask(credentials, "secret")) if credentials else (
                    self.mask(value, "secret"))
            elif lower in ("cookie", "set-cookie"):
                masked[name] = self.mask(value, "cookie")
            elif lower == "mcp-session-id":
                masked[name] = self.mask(value, "session")
            elif lower == "mcp-name":
                masked[name] = self.secrets.label(decode_header_value(value)) or "name:" + fingerprint(value)
            else:
                masked[name] = self.redact(value)
        return masked

    def http_exchange(self, method, url, request_headers, sent_bytes, response, connect_ms, first_byte_ms,
                      carries=None):
        headers = response_headers(response)
        self._add({"type": "http", "method": method, "url": masked_url(url), "carries": carries,
                   "status": response.status,
                   "requestHeaders": self.mask_headers(request_headers), "responseHeaders": self.mask_headers(headers),
                   "contentType": headers.get("content-type", ""), "sentBytes": sent_bytes,
                   "connectMs": round(connect_ms, 2) if connect_ms is not None else None,
                   "firstByteMs": round(first_byte_ms, 2)})

    def sse_event(self, event):
        self._add({"type": "sse", "event": event.event, "eventId": event.id, "bytes": len(event.data)})

    def event(self, category, text, **fields):
        entry = {"type": "event", "category": category, "text": text}
        entry.update(fields)
        self._add(entry)

    def stderr(self, line):
        self._add({"type": "stderr", "text": line})

    def select(self, kinds=None, method_prefix=None, task=None):
        """Entries by type or message kind, by method prefix, and by task fingerprint
        (what the TUI's debug tabs and its key 8 show)."""
        with self._lock:
            entries = list(self.entries)
        return [e for e in entries if log_entry_selected(e, kinds, method_prefix, task)]

    def task_notifications(self):
        """Task status notifications in either form (what key 8 of the TUI's debug screen keeps)."""
        return [e for e in self.select(kinds=("notification",)) if is_task_status_entry(e)]

    def since(self, count):
        """For views that follow the log without reading it all again: how many entries were
        ever added, how many of them the ring still holds, and those added after the first
        ``count`` that it still holds, oldest first."""
        import itertools

        with self._lock:
            held = len(self.entries)
            fresh = max(0, min(self.added - count, held))
            return self.added, held, list(itertools.islice(reversed(self.entries), fresh))[::-1]

    def kept(self, value, longest):
        """A field as the ring keeps it: masked, a string (a header's value too) cut at
        KEPT_FIELD_LIMIT, anything but a number, a bool or None as its cut JSON text. As
        with a body, a string is cut ``longest`` characters (the longest secret) past the
        limit first, so that a secret is masked whole."""
        spare, cut = KEPT_FIELD_LIMIT + longest, [0]
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, dict) and all(isinstance(item, str) for item in value.values()):
            return {self.kept(str(key), longest): self.kept(item, longest) for key, item in value.items()}
        if not isinstance(value, str):
            try:
                value = json.dumps(cut_long_strings(value, spare, cut), ensure_ascii=False)
            except (TypeError, ValueError, RecursionError):
                value = repr(type(value))
        text = self.redact(value[:spare])
        return cut_text(text, KEPT_FIELD_LIMIT, len(text) + max(0, len(value) - spare) + cut[0])

    def _add(self, entry):
        entry, spare = dict(entry, time=time.time()), self.secrets.longest()
        for key, value in entry.items():
            entry[key] = self.redact(value) if key == "body" else self.kept(value, spare)  # a body is cut already
        with self._lock:
            self.entries.append(entry)
            self.added += 1
            sinks = list(self.sinks)
        for sink in sinks:
            try:
                sink(entry)
            except Exception:  # a broken sink must never break the session
                pass


def format_log_entry(entry):
    stamp = time.strftime("%H:%M:%S", time.localtime(entry["time"])) + ".%03d" % (entry["time"] % 1 * 1000)
    kind = entry["type"]
    if kind == "message":
        arrow = "→" if entry["direction"] == "out" else "←"
        label = entry["method"] or "#%s" % entry["id"]
        return "%s %s %-12s %s %s" % (stamp, arrow, entry["kind"], label, entry["body"][:300])
    if kind == "stderr":
        return "%s ! stderr       %s" % (stamp, entry["text"])
    if kind == "http":
        timing = "first byte %.1f ms" % entry["firstByteMs"]
        if entry["connectMs"] is not None:
            timing = "connect %.1f ms, %s" % (entry["connectMs"], timing)
        lines = ["%s ⇄ HTTP %s %s%s -> %s %s (%s; sent %d bytes)" % (
            stamp, entry["method"], entry["url"], " " + entry["carries"] if entry.get("carries") else "",
            entry["status"], entry["contentType"] or "-", timing, entry["sentBytes"])]
        lines += ["      > %s: %s" % item for item in entry["requestHeaders"].items()]
        lines += ["      < %s: %s" % item for item in entry["responseHeaders"].items()]
        return "\n".join(lines)
    if kind == "sse":
        return "%s ⇠ SSE event %s%s (%d bytes)" % (stamp, entry["event"], " id=%s" % entry["eventId"]
                                                  if entry["eventId"] is not None else "", entry["bytes"])
    extra = " ".join("%s=%s" % (k, v) for k, v in entry.items() if k not in ("type", "category", "text", "time"))
    return "%s · %-12s %s %s" % (stamp, entry["category"], entry["text"], extra)


# ======================================================================================
# 5. Auth: OAuth 2.1 for HTTP servers (authorization code + PKCE, client credentials,
#    enterprise cross-app access) and the token store; the `auth` verbs are the CLI's (7)
#
# Contract: an Authorizer hangs on the HttpClient (section 1) of one MCP endpoint. The
# client asks it for the Authorization value before every request to that endpoint's
# origin and reports every 401 / 403 to it; the Authorizer answers "retry" once it has
# found, refreshed, obtained or stepped up a token, within per-request limits, or
# raises AuthError. Its own requests (metadata, registration, token, revocation) go
# through a fresh HttpClient each: no MCP token on them, no redirect followed. Every
# secret it sees is registered with the debug log's masking (section 4), and tokens
# live in auth.json next to the task ledger (state_directory(), section 1). Nothing
# here runs until a server asks for authorization: hashlib, hmac, secrets, http.server
# and webbrowser are imported inside the functions that use them.
# ======================================================================================


OAUTH_GRANTS = ("authorization_code", "client_credentials")
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MAX_AUTHORIZATIONS = 3  # authorization requests for one operation (more is a loop)
MAX_STEP_UPS = 2
REFRESH_MARGIN = 60  # seconds before expiry when a token counts as expired
CALLBACK_IDLE_SECONDS = 10  # a connection to the redirect listener that sends no request in time is dropped
MAX_AUTH_BODY = 1 << 20


class AuthError(McpTuiError):
    kind = "auth"


class TokenEndpointError(AuthError):
    """An OAuth error answer (``error`` / ``error_description``) from a token endpoint."""

    def __init__(self, message, error=None):
        super().__init__(message)
        self.error = error


# -- WWW-Authenticate (RFC 7235 / 6750) -----------------------------------------------


def parse_www_authenticate(values):
    """Every challenge in one or more WWW-Authenticate values, as [(scheme, params)]:
    schemes lower-cased, several challenges per value, parameters in any order with
    spaces around "=" and ",", quoted strings with backslash escapes, and token68."""
    challenges = []
    for text in values:
        i, n = 0, len(text)
        current = None
        while i < n:
            while i < n and text[i] in " \t,":
                i += 1
            start = i
            while i < n and text[i] not in " \t,=":
                i += 1
            word = text[start:i]
            if not word:
                i += 1  # a stray "=": skip it
                continue
            j = i
            while j < n and text[j] in " \t":
                j += 1
            if current is not None and j < n and text[j] == "=":
                k = j
                while k < n and text[k] == "=":
                    k += 1
                rest = k
                while rest < n and text[rest] in " \t":
                    rest += 1
                if k - j > 1 or rest >= n or text[rest] == ",":
                    current[1].setdefault("token68", word + text[j:k])  # base64 padding, not a parameter
                    i = rest
                    continue
                value, i = _challenge_value(text, rest)
                current[1].setdefault(word.lower(), value)
                continue
            current = (word.lower(), {})
            challenges.append(current)
            i = j
    return challenges


def _challenge_value(text, i):
    """A parameter value at ``text[i]``: a quoted string (with \\ escapes) or a token."""
    n = len(text)
    if i < n and text[i] == '"':
        out, i = [], i + 1
        while i < n and text[i] != '"':
            if text[i] == "\\" and i + 1 < n:
                i += 1
            out.append(text[i])
            i += 1
        return "".join(out), i + 1
    start = i
    while i < n and text[i] not in " \t,":
        i += 1
    return text[start:i], i


def bearer_challenge(values):
    """The Bearer challenge's parameters ({} when the server sent none)."""
    for scheme, params in parse_www_authenticate(values):
        if scheme == "bearer":
            return params
    return {}


# -- URLs ------------------------------------------------------------------------------


def canonical_resource(url):
    """RFC 8707 resource for an MCP URL: scheme and host lower-case, no fragment, no
    trailing slash."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2].lower()
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query, ""))


def url_origin(url):
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return "%s://%s" % (parts.scheme.lower(), parts.netloc.rpartition("@")[2].lower())


def require_secure_url(url, what):
    """HTTPS for anything an authorization talks to, but plain HTTP on loopback."""
    from urllib.parse import urlsplit

    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise AuthError("the %s is not an absolute http(s) URL: %r" % (what, url))
    if parts.scheme.lower() != "https" and not is_loopback_host(parts.hostname):
        raise AuthError("the %s %s is not HTTPS; mcp-tui sends credentials only over HTTPS (or to loopback)" % (
            what, url_origin(url)))
    return url


def append_query(url, params):
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode(params)


def b64url(data):
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


# -- JWT signing (ES256, RS256) for private_key_jwt --------------------------------------
#
# Pure Python, so that mcp-tui stays stdlib-only. ES256 uses a deterministic nonce
# (RFC 6979) and RS256 is PKCS#1 v1.5. Neither is constant-time: fine for a CLI signing
# a short-lived assertion on the user's own machine, not for a server.

P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b
P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
P256_G = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
          0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)
OID_EC_PUBLIC_KEY = bytes.fromhex("2a8648ce3d0201")
OID_P256 = bytes.fromhex("2a8648ce3d030107")
OID_RSA = bytes.fromhex("2a864886f70d010101")
SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


def p256_add(a, b):
    """Affine point addition on P-256; None is the point at infinity."""
    if a is None:
        return b
    if b is None:
        return a
    p = P256_P
    if a[0] == b[0]:
        if (a[1] + b[1]) % p == 0:
            return None
        slope = (3 * a[0] * a[0] - 3) * pow(2 * a[1], p - 2, p) % p
    else:
        slope = (b[1] - a[1]) * pow(b[0] - a[0], p - 2, p) % p
    x = (slope * slope - a[0] - b[0]) % p
    return x, (slope * (a[0] - x) - a[1]) % p


def p256_multiply(k, point=P256_G):
    result = None
    while k:
        if k & 1:
            result = p256_add(result, point)
        point = p256_add(point, point)
        k >>= 1
    return result


def rfc6979_nonce(secret, digest, order=P256_N):
    """The deterministic ECDSA nonce of RFC 6979 §3.2 (HMAC-SHA256, 256-bit order)."""
    import hashlib
    import hmac

    size = 32
    x = secret.to_bytes(size, "big")
    h = (int.from_bytes(digest, "big") % order).to_bytes(size, "big")
    v, key = b"\x01" * 32, b"\x00" * 32
    key = hmac.new(key, v + b"\x00" + x + h, hashlib.sha256).digest()
    v = hmac.new(key, v, hashlib.sha256).digest()
    key = hmac.new(key, v + b"\x01" + x + h, hashlib.sha256).digest()
    v = hmac.new(key, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(key, v, hashlib.sha256).digest()
        k = int.from_bytes(v, "big")
        if 1 <= k < order:
            return k
        key = hmac.new(key, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(key, v, hashlib.sha256).digest()


def es256_sign(secret, message):
    """ECDSA P-256 / SHA-256 over ``message``: r and s, 32 bytes each (JWS form, not DER)."""
    import hashlib

    digest = hashlib.sha256(message).digest()
    z = int.from_bytes(digest, "big")
    k = rfc6979_nonce(secret, digest)
    r = p256_multiply(k)[0] % P256_N
    s = pow(k, P256_N - 2, P256_N) * (z + r * secret) % P256_N
    if not r or not s:
        raise AuthError("cannot sign with this EC key")  # probability 2^-256: a broken key
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def rs256_sign(modulus, exponent, message):
    """RSASSA-PKCS1-v1_5 with SHA-256."""
    import hashlib

    size = (modulus.bit_length() + 7) // 8
    encoded = SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    if size < len(encoded) + 11:
        raise AuthError("the RSA key is too short to sign with")
    padded = b"\x00\x01" + b"\xff" * (size - len(encoded) - 3) + b"\x00" + encoded
    return pow(int.from_bytes(padded, "big"), exponent, modulus).to_bytes(size, "big")


def der_items(data):
    """The TLVs of a DER string, as [(tag, value)] (definite lengths only)."""
    items, i = [], 0
    while i < len(data):
        if i + 2 > len(data):
            raise ValueError("truncated DER")
        tag, length = data[i], data[i + 1]
        i += 2
        if length & 0x80:
            count = length & 0x7f
            if not count or count > 4 or i + count > len(data):
                raise ValueError("bad DER length")
            length = int.from_bytes(data[i:i + count], "big")
            i += count
        if i + length > len(data):
            raise ValueError("truncated DER")
        items.append((tag, data[i:i + length]))
        i += length
    return items


class SigningKey:
    """A private key from a PEM file, and the JWS algorithm it signs with."""

    def __init__(self, alg, sign):
        self.alg = alg
        self._sign = sign

    def sign(self, message):
        return self._sign(message)


def load_signing_key(pem):
    """PEM PKCS#8 (EC P-256 or RSA), SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA PRIVATE KEY"."""
    import base64
    import binascii

    blocks = re.findall(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", pem, re.S)
    for label, body in blocks:
        if label == "EC PARAMETERS":
            continue
        if "ENCRYPTED" in label:
            raise UsageError("the private key is encrypted; decrypt it first (openssl pkcs8 -nocrypt)")
        try:
            der = base64.b64decode("".join(line for line in body.splitlines() if ":" not in line))
            if label == "PRIVATE KEY":
                return _pkcs8_key(der)
            if label == "EC PRIVATE KEY":
                return _sec1_key(der, None)
            if label == "RSA PRIVATE KEY":
                return _pkcs1_key(der)
        except (ValueError, IndexError, binascii.Error) as exc:
            raise UsageError("the private key is not valid DER (%s)" % exc)
        raise UsageError("unsupported PEM block %r; give a PKCS#8, SEC1 or PKCS#1 private key" % label)
    raise UsageError("no PEM private key found (expected -----BEGIN PRIVATE KEY-----)")


def _pkcs8_key(der):
    version, algorithm, key = der_items(der_items(der)[0][1])[:3]
    oids = [value for tag, value in der_items(algorithm[1])]
    if oids[0] == OID_EC_PUBLIC_KEY:
        return _sec1_key(key[1], oids[1] if len(oids) > 1 else None)
    if oids[0] == OID_RSA:
        return _pkcs1_key(key[1])
    raise UsageError("the private key is neither EC P-256 nor RSA")


def _sec1_key(der, curve):
    fields = der_items(der_items(der)[0][1])
    for tag, value in fields[2:]:
        if tag == 0xa0:
            curve = der_items(value)[0][1]
    if curve is not None and curve != OID_P256:
        raise UsageError("the EC key is not on P-256; ES256 needs a P-256 key")
    secret = int.from_bytes(fields[1][1], "big")
    if not 0 < secret < P256_N:
        raise UsageError("the EC private key is out of range")
    return SigningKey("ES256", lambda message: es256_sign(secret, message))


def _pkcs1_key(der):
    fields = der_items(der_items(der)[0][1])
    modulus, exponent = int.from_bytes(fields[1][1], "big"), int.from_bytes(fields[3][1], "big")
    if modulus.bit_length() < 2048:
        raise UsageError("the RSA key has %d bits; RS256 wants at least 2048" % modulus.bit_length())
    return SigningKey("RS256", lambda message: rs256_sign(modulus, exponent, message))


def sign_jwt(key, claims, header=None):
    head = dict({"alg": key.alg, "typ": "JWT"}, **(header or {}))
    compact = {"separators": (",", ":")}
    signing_input = "%s.%s" % (b64url(json.dumps(head, **compact).encode("utf-8")),
                               b64url(json.dumps(claims, **compact).encode("utf-8")))
    return signing_input + "." + b64url(key.sign(signing_input.encode("ascii")))


# -- settings ---------------------------------------------------------------------------


class AuthSettings:
    """What the user told mcp-tui about its OAuth identity: options over the --config
    entry's ``oauth`` object (camelCase or snake_case keys)."""

    FIELDS = ("client_id", "client_secret", "client_metadata_url", "scope", "grant", "private_key", "id_token",
              "idp_client_id", "idp_token_endpoint", "no_browser", "token_endpoint_auth_method", "callback_port",
              "stored_auth_only")

    def __init__(self, **values):
        for field in self.FIELDS:
            setattr(self, field, values.get(field))
        self.grant = self.grant or "authorization_code"

    @classmethod
    def from_options(cls, opts, config=None):
        values = {}
        if isinstance(config, dict):
            for key, value in config.items():
                values[re.sub(r"(?<=[a-z])([A-Z])", r"_\1", key).lower().replace("-", "_")] = value
        for field in cls.FIELDS:
            option = getattr(opts, field, None)
            if option not in (None, False):
                values[field] = option
        if not values.get("client_secret") and os.environ.get("MCP_TUI_CLIENT_SECRET"):
            values["client_secret"] = os.environ["MCP_TUI_CLIENT_SECRET"]
        settings = cls(**values)
        settings.check()
        return settings

    def check(self):
        if self.grant not in OAUTH_GRANTS:
            raise UsageError("--grant must be one of %s" % ", ".join(OAUTH_GRANTS))
        if self.grant == "client_credentials" and not (self.client_id and (self.client_secret or self.private_key)):
            raise UsageError("--grant client_credentials needs --client-id and --client-secret or --private-key")
        if self.id_token and not (self.idp_token_endpoint and self.client_id):
            raise UsageError("--id-token needs --idp-token-endpoint and --client-id (the authorization server's)")
        if self.client_metadata_url and not str(self.client_metadata_url).startswith("https://"):
            raise UsageError("--client-metadata-url must be an https URL")
        if self.callback_port is not None:
            port = self.callback_port
            if isinstance(port, str) and port.isdigit():
                port = int(port)
            if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
                raise UsageError("--callback-port must be a port number (1-65535)")
            self.callback_port = port

    def secrets(self):
        return [value for value in (self.client_secret, self.id_token) if isinstance(value, str) and value]

    def signing_key(self):
        try:
            with open(self.private_key, "r", encoding="ascii", errors="replace") as handle:
                return load_signing_key(handle.read())
        except OSError as exc:
            raise UsageError("cannot read --private-key %s: %s" % (self.private_key, exc.strerror or exc))

    def read_id_token(self):
        token = self.id_token
        if token.startswith("@"):
            try:
                with open(token[1:], "r", encoding="utf-8") as handle:
                    return handle.read().strip()
            except OSError as exc:
                raise UsageError("cannot read --id-token %s: %s" % (token, exc.strerror or exc))
        return token


AUTH_OPTIONS = ("authorization (OAuth, when an HTTP server asks for it; --bearer wins)", (
    (("--client-id",), dict(metavar="ID", help="a client id registered with the authorization server")),
    (("--client-secret",), dict(metavar="SECRET", help="its secret (or $MCP_TUI_CLIENT_SECRET)")),
    (("--client-metadata-url",), dict(metavar="URL", help="a Client ID Metadata Document URL to use as the client "
                                                          "id")),
    (("--scope",), dict(metavar="'A B'", help="the scopes to ask for (default: what the server says)")),
    (("--grant",), dict(choices=OAUTH_GRANTS, help="authorization_code (default, a browser) or client_credentials "
                                                   "(a machine identity)")),
    (("--private-key",), dict(metavar="FILE", help="PEM key for private_key_jwt (EC P-256: ES256, RSA: RS256)")),
    (("--id-token",), dict(metavar="TOKEN|@FILE", help="enterprise IdP ID token for cross-app access")),
    (("--idp-client-id",), dict(metavar="ID", help="mcp-tui's client id at the IdP")),
    (("--idp-token-endpoint",), dict(metavar="URL", help="the IdP's token endpoint (token exchange)")),
    (("--no-browser",), dict(action="store_true", help="print the authorization URL instead of opening a "
                                                       "browser")),
    (("--callback-port",), dict(type=int, metavar="PORT", help="the port of the redirect URI "
                                                               "http://127.0.0.1:PORT/callback (default: any free one)")),
    (("--stored-auth-only",), dict(action="store_true", help="use a stored (or refreshable) token, and fail at once "
                                                             "rather than open a browser (for CI)")),
    (("--all",), dict(action="store_true", help="auth logout: every stored token; session close: every session")),
))  # the command line's option group (section 7 reads it)


# -- the token store ---------------------------------------------------------------------


class AuthStore:
    """auth.json in the state directory: client registrations by issuer, tokens by
    (issuer, resource). Never a code, verifier, state, ID token or ID-JAG. A JsonStateFile
    (section 1): private, locked, and moved aside when it is not a JSON object."""

    SECTIONS = ("registrations", "tokens")

    def __init__(self, path=None, warn=None):
        self.store = JsonStateFile(path or os.path.join(state_directory(), "auth.json"),
                                   lambda key, value: key in self.SECTIONS and isinstance(value, dict), warn)
        self.path = self.store.path

    @classmethod
    def _complete(cls, data):
        for key in cls.SECTIONS:
            data.setdefault(key, {})
        return data

    def load(self):
        return self._complete(self.store.read())

    def update(self, change):
        """Read, change and write back under the lock: parallel runs lose no entry."""
        return self.store.update(lambda data: change(self._complete(data)))

    def tokens_for(self, server):
        return [t for t in self.load()["tokens"].values() if isinstance(t, dict) and t.get("server") == server]

    @staticmethod
    def token_key(issuer, resource):
        return "%s %s" % (issuer, resource)

    def refresh_lock(self):
        """The lock one refresh holds from reading a token to storing its successor
        (TokenKeeper.refresh): a file beside auth.json's own lock, which it leaves free."""
        import contextlib

        @contextlib.contextmanager
        def held():
            self.load()  # the private directory exists, or one line says why the store is unusable
            lock = FileLock(self.path + ".refresh.lock")
            try:
                lock.__enter__()
            except OSError as exc:
                raise self.store._unusable(exc)
            try:
                yield lock
            finally:
                lock.__exit__(None, None, None)

        return held()


# -- the browser step ------------------------------------------------------------------


class CallbackListener:
    """The loopback redirect target: 127.0.0.1 only, one path, one accepted callback
    whose ``state`` matches (compared in constant time). Connections are served side by
    side and an idle one is dropped after CALLBACK_IDLE_SECONDS: served one at a time, a
    connection that sends nothing (a browser's preconnect, a local prank) held back the real
    redirect until the whole wait ran out."""

    def __init__(self, port=0, fixed=False):
        """Listen on ``port`` (0: any); a port that is taken gives way to any free one,
        unless it is ``fixed`` (the user's --callback-port): then AuthError."""
        import http.server

        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            timeout = CALLBACK_IDLE_SECONDS  # on the socket: a request that does not come in time ends it

            def do_GET(self):
                listener._handle(self)

            def log_message(self, *args):
                pass  # the query holds the code: never on stderr

        try:
            self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        except OSError as exc:
            if fixed:
                raise AuthError("cannot listen on 127.0.0.1:%d for the authorization response: %s" % (
                    port, exc.strerror or exc), hint="free that port, or choose another with --callback-port")
            if not port:
                raise
            self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # the old port is taken
        self.redirect_uri = "http://127.0.0.1:%d/callback" % self.server.server_address[1]
        self.state = None
        self.params = None
        self.cancelled = False
        self.done = threading.Event()
        self._lock = threading.Lock()
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()

    def offer(self, query):
        """Take an authorization response (a query string); False if it is not ours."""
        import hmac
        from urllib.parse import parse_qsl

        params = dict(parse_qsl(query, keep_blank_values=True))
        state = params.get("state", "")
        if not self.state or not hmac.compare_digest(state.encode("utf-8"), self.state.encode("utf-8")):
            return False
        with self._lock:
            if self.done.is_set():
                return False
            self.params = params
            self.done.set()
        return True

    def _handle(self, request):
        from urllib.parse import urlsplit

        parts = urlsplit(request.path)
        if parts.path != "/callback":
            status, text = 404, "Not found."
        elif self.offer(parts.query):
            status, text = 200, "mcp-tui has the authorization response. You can close this tab."
        else:
            status, text = 400, "This is not the authorization response mcp-tui is waiting for."
        body = ("<!doctype html><title>mcp-tui</title><p>%s</p>" % text).encode("utf-8")
        request.send_response(status)
        request.send_header("Content-Type", "text/html; charset=utf-8")
        request.send_header("Content-Length", str(len(body)))
        request.send_header("Cache-Control", "no-store")
        request.end_headers()
        request.wfile.write(body)

    def cancel(self):
        """The user gave up (Esc on the TUI's authorization screen): the wait ends now."""
        with self._lock:
            if not self.done.is_set():
                self.cancelled = True
                self.done.set()

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while not self.done.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.done.wait(min(remaining, 0.5))  # short waits keep Ctrl+C responsive
        return self.params

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class BrowserStep:
    """What a front end shows while the user authorizes in a browser (the TUI's screen):
    the authorization server's host, the URL, when the wait ends, and a way to give up."""

    def __init__(self, host, url, deadline, listener):
        self.host, self.url, self.deadline = host, url, deadline
        self._listener = listener

    def seconds_left(self):
        return max(0.0, self.deadline - time.monotonic())

    @property
    def finished(self):
        return self._listener.done.is_set()

    def cancel(self):
        self._listener.cancel()


BROWSER_START_SECONDS = 1.0  # a browser command that cannot start ($BROWSER=/bin/false, no display) fails sooner


def launch_browser(url):
    """webbrowser.open (which honours $BROWSER) on its own thread: a console browser
    command blocks until it exits. Returns failed_within(seconds): True when within that
    time webbrowser.open said no browser started (a $BROWSER command that exits non-zero,
    none at all) or failed; False once it started one, or while it is still running."""
    ended = threading.Event()
    opened = []

    def run():
        import webbrowser

        try:
            opened.append(webbrowser.open(url))
        except Exception:  # no usable browser: the printed URL is the way
            opened.append(False)
        ended.set()

    threading.Thread(target=run, daemon=True).start()
    return lambda seconds: ended.wait(seconds) and not opened[0]


def read_pasted_redirects(listener):
    """On a terminal, a user without a loopback route pastes the final redirected URL."""
    from urllib.parse import urlsplit

    def run():
        try:
            for line in sys.stdin:
                if listener.offer(urlsplit(line.strip()).query) or listener.done.is_set():
                    return
        except (OSError, ValueError):
            pass

    threading.Thread(target=run, daemon=True).start()


# -- the authorizer ----------------------------------------------------------------------


class Discovery:
    """Where to authorize for one MCP endpoint: the resource, the issuer and its metadata."""

    def __init__(self, resource, issuer, metadata, prm_url=None, prm_scopes=None, legacy=False, guessed=False):
        self.resource = resource
        self.issuer = issuer
        self.metadata = metadata
        self.prm_url = prm_url
        self.prm_scopes = prm_scopes
        self.legacy = legacy  # 2025-03-26: no resource metadata, endpoints at the server's origin
        self.guessed = guessed  # no metadata at all: 2025-03-26's default endpoints


def choose_token_auth_method(metadata, preferred, has_secret, has_key):
    """How the client authenticates at the token endpoint (brief §1.8)."""
    supported = metadata.get("token_endpoint_auth_methods_supported")
    supported = supported if isinstance(supported, list) else None
    if has_key:
        return "private_key_jwt"
    if preferred and (supported is None or preferred in supported):
        return preferred
    if supported is None:
        return "client_secret_basic" if has_secret else "none"
    if has_secret:
        for method in ("client_secret_basic", "client_secret_post"):
            if method in supported:
                return method
    if "none" in supported or not has_secret:
        return "none"
    return "client_secret_basic"


def scope_union(*lists):
    seen = []
    for items in lists:
        for item in items or ():
            if item not in seen:
                seen.append(item)
    return seen


class OAuthRequests:
    """How mcp-tui talks to authorization servers: each call is one request through a fresh
    HttpClient (no MCP token, no redirect followed, a bounded answer, and plain HTTP never
    through a proxy off this machine), a token endpoint call carries the client's
    authentication and its answer is checked before use, and every secret these requests
    carry or get back is registered with the debug log's masking."""

    def __init__(self, settings, log, timeout, network):
        self.settings, self.log, self.timeout, self.network = settings, log, timeout, network

    def mask(self, secret):
        """A token, secret or code: masked in every output (stderr, --debug, the log file),
        even when a server echoes it back."""
        if isinstance(secret, str) and secret and self.log:
            self.log.credentials.add(secret)

    def redact(self, text):
        text = text if isinstance(text, str) else str(text)
        return self.log.redact(text) if self.log else text

    def oauth_error_text(self, answer):
        if not answer or not isinstance(answer.get("error"), str):
            return ""
        description = answer.get("error_description")
        text = answer["error"][:100] + (": %s" % description[:200] if isinstance(description, str) else "")
        return ": " + self.redact(text)

    def request(self, method, url, fields=None, json_body=None, headers=None):
        """One request to an OAuth endpoint, with no MCP token and no redirect followed:
        (status, JSON object or None). Plain HTTP (loopback only) never goes through a proxy
        that is not on loopback too: that would carry codes and secrets off this machine."""
        from urllib.parse import urlencode, urlsplit

        parts = urlsplit(url)
        proxy = self.network.proxy_for(parts) if parts.scheme.lower() == "http" else None
        if proxy and not is_loopback_host(urlsplit(proxy_url(proxy)).hostname):
            raise AuthError("%s is plain HTTP on loopback, but the proxy %s would carry it off this machine; "
                            "mcp-tui sends credentials only over HTTPS (or straight to loopback)" % (
                                url_origin(url), url_origin(proxy_url(proxy))),
                            hint="add the host to no_proxy, or pass --proxy ''")
        client = HttpClient(url, timeout=self.timeout, network=self.network, log=self.log,
                            max_message=MAX_AUTH_BODY)
        request_headers = {"Accept": "application/json"}
        body = None
        if fields is not None:
            body = urlencode(fields).encode("ascii")
            request_headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif json_body is not None:
            body = json.dumps(json_body).encode("utf-8")
            request_headers["Content-Type"] = "application/json"
        request_headers.update(headers or {})
        try:
            response, payload = client.exchange(method, body=body, headers=request_headers)  # bounded in size and time
        except MessageTooLarge:  # not --max-message-size's: that one governs MCP messages
            raise AuthError("the answer from %s is larger than %s, mcp-tui's fixed limit on OAuth responses" % (
                url_origin(url), size_text(MAX_AUTH_BODY)))
        finally:
            client.close()
        try:
            document = strict_json(payload.decode("utf-8")) if payload.strip() else None
        except (ValueError, UnicodeDecodeError, RecursionError):
            document = None
        return response.status, document if isinstance(document, dict) else None

    def client_post(self, endpoint, issuer, client, method, fields):
        """POST a form to the AS with the client's authentication (brief §1.8, §2)."""
        from urllib.parse import quote

        endpoint = require_secure_url(endpoint, "token endpoint")
        fields, headers = dict(fields), {}
        if method == "private_key_jwt":
            import uuid

            now = int(time.time())
            assertion = sign_jwt(self.settings.signing_key(), {
                "iss": client["client_id"], "sub": client["client_id"], "aud": issuer, "iat": now, "exp": now + 300,
                "jti": str(uuid.uuid4())})
            self.mask(assertion)
            fields.update(client_assertion_type=CLIENT_ASSERTION_TYPE, client_assertion=assertion)
        elif method == "client_secret_basic" and client.get("client_secret"):
            import base64

            pair = "%s:%s" % (quote(client["client_id"], safe=""), quote(client["client_secret"], safe=""))
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
            # client_id in the body too (RFC 6749 3.2.1 allows it; the official Python SDK's and
            # FastMCP's token and revocation endpoints refuse a Basic request without it)
            fields["client_id"] = client["client_id"]
        elif method == "client_secret_post" and client.get("client_secret"):
            fields.update(client_id=client["client_id"], client_secret=client["client_secret"])
        else:
            fields["client_id"] = client["client_id"]
        return self.request("POST", endpoint, fields=fields, headers=headers)

    def token_request(self, endpoint, issuer, client, method, fields):
        """POST to a token endpoint with the client's authentication; the token response."""
        status, answer = self.client_post(endpoint, issuer, client, method, fields)
        token = (answer or {}).get("access_token")
        if status != 200 or not isinstance(token, str) or not token:
            error = (answer or {}).get("error")
            raise TokenEndpointError("the token request to %s failed (HTTP %d)%s" % (
                url_origin(endpoint), status, self.oauth_error_text(answer) if answer is not None
                else ": the answer is not a JSON object"),
                error if isinstance(error, str) else None)
        if re.search(r"[\x00-\x20\x7f]", token):  # sent as is in a header: a line break would fold or inject one
            raise AuthError("the token endpoint %s issued an access token with a space, line break or control "
                            "character; mcp-tui will not send it in a header" % url_origin(endpoint))
        token_type = answer.get("token_type")
        if isinstance(token_type, str) and token_type.lower() != "bearer":
            raise AuthError("the token endpoint issued a %r token; mcp-tui sends only Bearer tokens" % token_type[:40])
        self.mask(token)
        self.mask(answer.get("refresh_token") if isinstance(answer.get("refresh_token"), str) else None)
        return answer


class Discoverer:
    """Finds where to authorize for one MCP endpoint: its protected resource metadata (the
    URL a challenge names, else the well-known ones), then the authorization server's
    metadata (RFC 8414, then OpenID discovery), or 2025-03-26's documents and defaults at the
    server's origin. It refuses documents that name another resource or issuer, or insecure
    endpoints, and keeps the Discovery until a challenge names other resource metadata."""

    def __init__(self, url, requests):
        self.url = url
        self.server = canonical_resource(url) if url else None
        self.requests = requests
        self.found = None

    def discover(self, challenge):
        prm_url = challenge.get("resource_metadata")
        if self.found is not None and (not prm_url or prm_url == self.found.prm_url):
            return self.found
        if prm_url:
            prm = self._get_metadata(prm_url, "resource metadata")
            if prm is None:
                raise AuthError("cannot read the resource metadata the server named (%s)" % url_origin(prm_url))
        else:
            prm_url, prm = self._first_document(self._prm_candidates(), "resource metadata")
        self.found = self._from_prm(prm, prm_url) if prm is not None else self._legacy_discovery()
        return self.found

    def _prm_candidates(self):
        from urllib.parse import urlsplit

        path = urlsplit(self.url).path.rstrip("/")
        root = url_origin(self.url) + "/.well-known/oauth-protected-resource"
        return [root + path, root] if path else [root]

    def _from_prm(self, prm, prm_url):
        resource = prm.get("resource")
        servers = prm.get("authorization_servers")
        if not isinstance(resource, str) or not resource_covers(resource, self.url):
            raise AuthError("the server's resource metadata names %s, which is not this server (%s); mcp-tui will "
                            "not authorize for it" % (self.requests.redact(str(resource))[:200], self.server))
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
            raise AuthError("the server's resource metadata lists no authorization server")
        issuer = servers[0]
        require_secure_url(issuer, "authorization server")
        metadata = self._first_document(self._as_metadata_candidates(issuer), "authorization server metadata")[1]
        if metadata is None:
            raise AuthError("the authorization server %s publishes no metadata" % issuer)
        if str(metadata.get("issuer", "")).rstrip("/") != issuer.rstrip("/"):
            raise AuthError("the authorization server metadata of %s names another issuer; mcp-tui will not use it"
                            % issuer)
        self._check_endpoints(metadata)
        scopes = prm.get("scopes_supported")
        scopes = [s for s in scopes if isinstance(s, str)] if isinstance(scopes, list) else None
        return Discovery(resource, issuer, metadata, prm_url, scopes)

    @staticmethod
    def _as_metadata_candidates(issuer):
        """RFC 8414 then OpenID discovery; a path issuer never gets the root URL."""
        from urllib.parse import urlsplit

        parts = urlsplit(issuer)
        origin, path = url_origin(issuer), parts.path[:-1] if parts.path.endswith("/") else parts.path
        if path:
            return [origin + "/.well-known/oauth-authorization-server" + path,
                    origin + "/.well-known/openid-configuration" + path,
                    origin + path + "/.well-known/openid-configuration"]
        return [origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"]

    def _legacy_discovery(self):
        """2025-03-26: metadata at the server's origin, else its default endpoints."""
        base = url_origin(self.url)
        metadata = self._first_document(self._as_metadata_candidates(base), "authorization server metadata")[1]
        guessed = metadata is None
        if guessed:
            metadata = {"authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                        "registration_endpoint": base + "/register", "code_challenge_methods_supported": ["S256"]}
        self._check_endpoints(metadata)
        issuer = metadata.get("issuer") if isinstance(metadata.get("issuer"), str) else base
        return Discovery(self.server, issuer, metadata, legacy=True, guessed=guessed)

    @staticmethod
    def _check_endpoints(metadata):
        for name in ("authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"):
            if metadata.get(name) is not None:
                require_secure_url(metadata[name], name.replace("_", " "))

    def _first_document(self, candidates, what):
        """The first candidate that serves the document, in order: (url, document) or (None, None)."""
        for candidate in candidates:
            document = self._get_metadata(candidate, what)
            if document is not None:
                return candidate, document
        return None, None

    def _get_metadata(self, url, what):
        """A metadata document: the object on 2xx, None on 3xx/4xx (try the next one)."""
        status, document = self.requests.request("GET", url)
        if 200 <= status < 300:
            if document is None:
                raise AuthError("the %s at %s is not a JSON object" % (what, url_origin(url)))
            return document
        if status >= 500:
            raise AuthError("the %s at %s answered HTTP %d" % (what, url_origin(url), status))
        return None


class ClientRegistration:
    """Which client mcp-tui is at an authorization server: the pre-registered --client-id,
    else the client ID metadata document URL where the server takes one, else a dynamic
    registration (RFC 7591) kept in auth.json by issuer and reused while its redirect URI and
    secret hold. It also names the client (with its secret) that owns a stored token, and
    forgets a registration the server no longer knows."""

    def __init__(self, server, settings, store, requests):
        self.server = server
        self.settings = settings
        self.store = store
        self.requests = requests

    def stored_redirect_uri(self, issuer):
        """The redirect URI of the registration stored for ``issuer``, or None."""
        return (self.store.load()["registrations"].get(issuer) or {}).get("redirectUri")

    def forget(self, issuer):
        self.store.update(lambda data: data["registrations"].pop(issuer, None))

    def client(self, discovery, redirect_uri, scopes):
        """Pre-registered id, else the metadata document URL, else a stored or new DCR."""
        settings, metadata, issuer = self.settings, discovery.metadata, discovery.issuer
        if settings.client_id:
            return {"client_id": settings.client_id, "client_secret": settings.client_secret,
                    "method": settings.token_endpoint_auth_method}
        if settings.client_metadata_url and metadata.get("client_id_metadata_document_supported") is True:
            return {"client_id": settings.client_metadata_url, "method": "none"}
        stored = self.store.load()["registrations"].get(issuer)
        if isinstance(stored, dict) and stored.get("redirectUri") == redirect_uri and stored.get("clientId") and (
                not stored.get("clientSecretExpiresAt") or stored["clientSecretExpiresAt"] > time.time() + 60):
            self.requests.mask(stored.get("clientSecret"))
            return {"client_id": stored["clientId"], "client_secret": stored.get("clientSecret"),
                    "method": stored.get("method"), "registered": True}
        endpoint = metadata.get("registration_endpoint")
        if not endpoint:
            raise AuthError("the authorization server %s has no client registration; pass --client-id (and "
                            "--client-secret) of a client registered there" % issuer)
        return self._register(require_secure_url(endpoint, "registration endpoint"), discovery, redirect_uri, scopes)

    def _register(self, endpoint, discovery, redirect_uri, scopes):
        supported = discovery.metadata.get("token_endpoint_auth_methods_supported")
        method = "none"
        if isinstance(supported, list) and supported and "none" not in supported:
            # the server's own order: the official Python SDK lists client_secret_post first, and its
            # revocation endpoint refuses a client_secret_basic client (it wants client_secret in the form)
            method = next((m for m in supported if m in ("client_secret_basic", "client_secret_post")), "none")
        body = {"client_name": "mcp-tui", "redirect_uris": [redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": method, "application_type": "native"}
        if scopes:
            body["scope"] = " ".join(scopes)
        status, answer = self.requests.request("POST", endpoint, json_body=body)
        if discovery.guessed and status == 404:  # no metadata, and not 2025-03-26's /register either
            raise AuthError("%s asks for a token but publishes no authorization metadata: there is no OAuth to "
                            "follow" % self.server, hint="pass a token it takes with --bearer TOKEN or "
                                                         "--header 'Authorization: ...'")
        if status not in (200, 201) or not answer or not isinstance(answer.get("client_id"), str):
            raise AuthError("client registration at %s failed (HTTP %d)%s" % (
                url_origin(endpoint), status, self.requests.oauth_error_text(answer)))
        secret = answer.get("client_secret") if isinstance(answer.get("client_secret"), str) else None
        self.requests.mask(secret)
        registration = {"clientId": answer["client_id"], "redirectUri": redirect_uri, "registeredAt": time.time(),
                        "method": answer.get("token_endpoint_auth_method") if isinstance(
                            answer.get("token_endpoint_auth_method"), str) else method}
        if secret:
            registration["clientSecret"] = secret
        if is_number(answer.get("client_secret_expires_at")) and answer["client_secret_expires_at"]:
            registration["clientSecretExpiresAt"] = answer["client_secret_expires_at"]

        def save(data):
            data["registrations"][discovery.issuer] = registration

        self.store.update(save)
        return {"client_id": registration["clientId"], "client_secret": secret, "method": registration["method"],
                "registered": True}

    def client_of(self, token):
        """The client that owns a stored token, with its secret (from the options or the
        stored registration of that issuer only)."""
        secret = None
        if self.settings.client_id and self.settings.client_id == token.get("clientId"):
            secret = self.settings.client_secret
        else:
            registration = self.store.load()["registrations"].get(token["issuer"]) or {}
            if registration.get("clientId") == token.get("clientId"):
                secret = registration.get("clientSecret")
        self.requests.mask(secret)
        return {"client_id": token.get("clientId"), "client_secret": secret, "method": token.get("authMethod")}


class Grants:
    """The three ways to a token response for a discovered authorization server: the
    authorization code with PKCE through the user's browser (a loopback listener, the RFC 9207
    issuer check, and one new registration when the server forgot mcp-tui's or holds it to a
    narrower scope), client credentials, and enterprise cross-app access. Each token request
    carries the client authentication that the metadata and the client call for."""

    def __init__(self, settings, registration, requests, announce, timeout, interactive):
        self.settings, self.registration, self.requests = settings, registration, requests
        self.announce, self.timeout, self.interactive = announce, timeout, interactive
        self.browser_step = None  # a front end's own view of the browser step: called with a BrowserStep

    def authorization_code(self, discovery, scopes, registered_again=False, started=None):
        import hashlib
        import secrets

        metadata, issuer = discovery.metadata, discovery.issuer
        methods = metadata.get("code_challenge_methods_supported")
        if not isinstance(methods, list) or "S256" not in methods:
            raise AuthError("the authorization server %s does not offer PKCE with S256; mcp-tui will not authorize "
                            "without it" % issuer)
        types = metadata.get("response_types_supported")
        if isinstance(types, list) and "code" not in types:
            raise AuthError("the authorization server %s does not offer the authorization code flow" % issuer)
        endpoint = require_secure_url(metadata.get("authorization_endpoint"), "authorization endpoint")
        stored_redirect_uri = self.registration.stored_redirect_uri(issuer)
        if self.settings.callback_port:
            listener = CallbackListener(self.settings.callback_port, fixed=True)
        else:
            listener = CallbackListener(self._port_of(stored_redirect_uri))
        try:
            client = self.registration.client(discovery, listener.redirect_uri, scopes)
            verifier = secrets.token_urlsafe(32)
            self.requests.mask(verifier)
            listener.state = secrets.token_urlsafe(32)
            params = [("response_type", "code"), ("client_id", client["client_id"]),
                      ("redirect_uri", listener.redirect_uri),
                      ("code_challenge", b64url(hashlib.sha256(verifier.encode("ascii")).digest())),
                      ("code_challenge_method", "S256"), ("state", listener.state), ("resource", discovery.resource)]
            if scopes:
                params.append(("scope", " ".join(scopes)))
            url = append_query(endpoint, params)
            seconds = self.timeout * 0.9  # fail before the request's own timeout, which began at ``started``
            waits_until = (time.monotonic() if started is None else started) + seconds
            self._open_browser(url, listener, issuer, seconds)
            response = listener.wait(max(0.0, waits_until - time.monotonic()))
        finally:
            listener.close()
        if listener.cancelled:
            raise AuthError("authorization cancelled")
        if response is None:
            raise AuthError("no authorization response from the browser within %gs" % (self.timeout * 0.9),
                            hint="raise --timeout to allow longer; with --no-browser, open the printed URL yourself")
        self.check_callback(response, discovery)
        if response.get("error") == "invalid_scope" and client.get("registered") and not registered_again:
            # A server may hold a client to the scope it registered with (RFC 7591; the official
            # Python SDK's does), and a step-up asks for more: register again, once, for it.
            return self._register_again(discovery, scopes, started)
        self._check_refusal(response)
        code = response.get("code")
        if not code:
            raise AuthError("the authorization response has no code")
        self.requests.mask(code)
        fields = {"grant_type": "authorization_code", "code": code, "redirect_uri": listener.redirect_uri,
                  "code_verifier": verifier, "resource": discovery.resource}
        try:
            return self._grant(discovery, client, fields)
        except TokenEndpointError as exc:
            if exc.error != "invalid_client" or not client.get("registered") or registered_again:
                raise
        return self._register_again(discovery, scopes, started)  # the server forgot mcp-tui's registration

    def _register_again(self, discovery, scopes, started):
        """Drop the stored registration at this issuer and authorize once more with a new one."""
        self.registration.forget(discovery.issuer)
        return self.authorization_code(discovery, scopes, registered_again=True, started=started)

    @staticmethod
    def _port_of(redirect_uri):
        from urllib.parse import urlsplit

        try:
            return urlsplit(redirect_uri).port or 0 if redirect_uri else 0
        except ValueError:
            return 0

    def _open_browser(self, url, listener, issuer, seconds):
        from urllib.parse import urlsplit

        host = urlsplit(issuer).netloc or issuer
        if self.browser_step is not None:  # the front end shows the step (and offers to cancel it)
            self.browser_step(BrowserStep(host, url, time.monotonic() + seconds, listener))
            if not self.settings.no_browser:
                launch_browser(url)
            return
        if self.settings.no_browser:
            paste = self.interactive if self.interactive is not None else sys.stdin.isatty()
            self.announce("mcp-tui: to authorize at %s, open this URL in a browser%s: %s" % (
                host, " (or paste the address it ends on here)" if paste else "", url))
            if paste:
                read_pasted_redirects(listener)
            return
        self.announce("mcp-tui: authorizing at %s in your browser: %s" % (host, url))
        if not launch_browser(url)(BROWSER_START_SECONDS):
            return  # started, or still starting (a console browser runs until it exits)
        line = "the browser did not start; to authorize at %s, open this URL in a browser: %s" % (host, url)
        advice = "without a browser, use --no-browser, and --callback-port PORT to forward the callback over SSH"
        if not (self.interactive if self.interactive is not None else sys.stdin.isatty() and sys.stderr.isatty()):
            raise AuthError(line, hint=advice)  # nobody to open it: waiting out --timeout helps no one
        self.announce("mcp-tui: %s (or paste the address it ends on here; %s)" % (line, advice))
        read_pasted_redirects(listener)

    @staticmethod
    def check_callback(response, discovery):
        iss = response.get("iss")
        # RFC 9207: the issuer of the metadata (the resource metadata may name it with or without
        # a trailing slash, as FastMCP's pydantic URLs add one; discovery accepted either)
        issuer = discovery.metadata.get("issuer")
        issuer = issuer if isinstance(issuer, str) else discovery.issuer
        if not discovery.legacy:
            if iss is not None and iss != issuer:
                raise AuthError("the authorization response names another issuer; mcp-tui ignored it (mix-up)")
            if iss is None and discovery.metadata.get("authorization_response_iss_parameter_supported") is True:
                raise AuthError("the authorization response lacks the iss its server promised; mcp-tui ignored it")

    def _check_refusal(self, response):
        if response.get("error"):
            detail = response.get("error_description")
            raise AuthError("the authorization server refused: %s%s" % (
                self.requests.redact(response["error"])[:100],
                " (%s)" % self.requests.redact(detail)[:200] if detail else ""))

    def client_credentials(self, discovery, scopes):
        client = {"client_id": self.settings.client_id, "client_secret": self.settings.client_secret,
                  "method": self.settings.token_endpoint_auth_method}
        fields = {"grant_type": "client_credentials", "resource": discovery.resource}
        if scopes:
            fields["scope"] = " ".join(scopes)
        return self._grant(discovery, client, fields)

    def cross_app(self, discovery, scopes):
        """Enterprise-managed authorization: trade the IdP's ID token for an ID-JAG at the
        IdP (RFC 8693), then the ID-JAG for an access token at the AS (RFC 7523)."""
        settings = self.settings
        idp_endpoint = require_secure_url(settings.idp_token_endpoint, "IdP token endpoint")
        id_token = settings.read_id_token()
        self.requests.mask(id_token)
        fields = {"grant_type": TOKEN_EXCHANGE_GRANT, "requested_token_type": ID_JAG_TOKEN_TYPE,
                  "audience": discovery.issuer, "resource": discovery.resource, "subject_token": id_token,
                  "subject_token_type": ID_TOKEN_TYPE}
        if settings.idp_client_id:
            fields["client_id"] = settings.idp_client_id
        if scopes:
            fields["scope"] = " ".join(scopes)
        status, answer = self.requests.request("POST", idp_endpoint, fields=fields)
        jag = (answer or {}).get("access_token")
        if status != 200 or not isinstance(jag, str) or (answer.get("issued_token_type") not in (None, ID_JAG_TOKEN_TYPE)):
            raise AuthError("the IdP's token exchange at %s failed (HTTP %d)%s" % (
                url_origin(idp_endpoint), status, self.requests.oauth_error_text(answer)))
        self.requests.mask(jag)
        client = {"client_id": settings.client_id, "client_secret": settings.client_secret,
                  "method": settings.token_endpoint_auth_method}
        fields = {"grant_type": JWT_BEARER_GRANT, "assertion": jag}
        if scopes:
            fields["scope"] = " ".join(scopes)
        return self._grant(discovery, client, fields)

    def _grant(self, discovery, client, fields):
        """The token request of a grant, with the client authentication the metadata and the
        client call for: (token response, client, method). A client registered elsewhere, with
        a secret and no known method, that the server refuses as invalid_client, is tried once
        more with the other secret method the server lists: servers hold a client to the one it
        registered with (the official Python SDK's does), which mcp-tui cannot know."""
        metadata, endpoint = discovery.metadata, discovery.metadata.get("token_endpoint")
        method = self._method_for(metadata, client)
        try:
            return self.requests.token_request(endpoint, discovery.issuer, client, method, fields), client, method
        except TokenEndpointError as exc:
            other = {"client_secret_basic": "client_secret_post", "client_secret_post": "client_secret_basic"}.get(
                method)
            supported = metadata.get("token_endpoint_auth_methods_supported")
            if (exc.error != "invalid_client" or other is None or client.get("registered") or client.get("method")
                    or (isinstance(supported, list) and other not in supported)):
                raise
        return self.requests.token_request(endpoint, discovery.issuer, client, other, fields), client, other

    def _method_for(self, metadata, client):
        return choose_token_auth_method(metadata, client.get("method"), bool(client.get("client_secret")),
                                        bool(self.settings.private_key))


class TokenKeeper:
    """The tokens of one MCP endpoint in auth.json: the newest one stored, a new one recorded
    with where it came from (issuer, resource, endpoints, client), whether one is near its
    expiry, its refresh (a request built from the stored token, then the reply handled: the
    successor stored, or a refused token forgotten), and logout with revocation (RFC 7009)."""

    def __init__(self, server, store, registration, requests, log):
        self.server = server  # None: every server (logout only)
        self.store = store
        self.registration = registration
        self.requests = requests
        self.log = log

    def newest(self):
        """The newest stored token of this server, or None."""
        stored = self.store.tokens_for(self.server) if os.path.exists(self.store.path) else []
        if not stored:
            return None
        token = max(stored, key=lambda t: t.get("obtainedAt") or 0)
        self._mask(token)
        return token

    def record_for(self, discovery, answer, scopes, client, method, grant):
        """The record of the token a grant answered with, for save()."""
        now = time.time()
        expires_in = answer.get("expires_in")
        scope = answer.get("scope") if isinstance(answer.get("scope"), str) else " ".join(scopes)
        record = {"server": self.server, "issuer": discovery.issuer, "resource": discovery.resource,
                  "accessToken": answer["access_token"], "scope": scope, "obtainedAt": now,
                  "expiresAt": now + expires_in if is_number(expires_in) and expires_in > 0 else None,
                  "tokenEndpoint": discovery.metadata.get("token_endpoint"), "clientId": client["client_id"],
                  "authMethod": method, "grant": grant}
        if isinstance(discovery.metadata.get("revocation_endpoint"), str):
            record["revocationEndpoint"] = discovery.metadata["revocation_endpoint"]
        if isinstance(answer.get("refresh_token"), str):
            record["refreshToken"] = answer["refresh_token"]
        return record

    def save(self, record, key=None):
        key = key or AuthStore.token_key(record["issuer"], record["resource"])

        def save(data):
            data["tokens"][key] = record

        self.store.update(save)

    def _mask(self, token):
        self.requests.mask(token.get("accessToken"))
        self.requests.mask(token.get("refreshToken"))

    @staticmethod
    def expiring(token):
        """Near its expiry: a minute before, or a quarter of the lifetime of a short-lived one."""
        expires, obtained = token.get("expiresAt"), token.get("obtainedAt")
        if not is_number(expires):
            return False
        lifetime = expires - obtained if is_number(obtained) else REFRESH_MARGIN * 4
        return expires - min(REFRESH_MARGIN, max(lifetime, 0) / 4) <= time.time()

    # -- refresh --------------------------------------------------------------------------------

    def refresh(self, token):
        """grant_type=refresh_token at the issuer that granted ``token``: the token to use from
        now on (the successor, or one another run renewed meanwhile), or None when refused."""
        key = AuthStore.token_key(token["issuer"], token["resource"])
        client = self.registration.client_of(token)
        # Two runs that find one token expiring must refresh it once: a rotated refresh token
        # works only once, so the second request would be refused (and may cost the whole grant).
        # The refresh lock, a file beside auth.json's own lock, is held from reading the stored
        # token to storing its successor: the second run waits there, then reads the first run's
        # successor and takes it without a request (logout takes the refresh lock too, so no
        # successor is stored after it). auth.json's own lock is held only to read and to write,
        # so a slow token endpoint holds up no other use of the store meanwhile.
        with self.store.refresh_lock():
            current = self.store.load()["tokens"].get(key)
            if not isinstance(current, dict) or current.get("accessToken") == token["accessToken"]:
                current = token  # nobody else renewed it (or it was forgotten meanwhile)
            elif not self.expiring(current) or current.get("clientId") != token.get("clientId"):
                self._mask(current)
                return current  # another run renewed it: take theirs (or let a 401 decide)
            request = self.refresh_request(current, client)
            if request is None:
                return None
            try:
                answer = self.requests.token_request(*request)
            except TokenEndpointError as exc:
                self.refused(key, token, current, exc)
                return None
            return self.refreshed(key, current, answer)

    @staticmethod
    def refresh_request(token, client):
        """The token request that refreshes ``token``, as token_request's arguments (None: it
        has no refresh token)."""
        if not isinstance(token.get("refreshToken"), str):
            return None
        fields = {"grant_type": "refresh_token", "refresh_token": token["refreshToken"],
                  "resource": token["resource"]}
        return token.get("tokenEndpoint"), token["issuer"], client, token.get("authMethod") or "none", fields

    def refreshed(self, key, token, answer):
        """The reply to a refresh of ``token``: its successor, stored under ``key``."""
        record = dict(token, accessToken=answer["access_token"], obtainedAt=time.time())
        if isinstance(answer.get("refresh_token"), str):
            record["refreshToken"] = answer["refresh_token"]  # rotation: the old one is spent
        expires_in = answer.get("expires_in")
        record["expiresAt"] = time.time() + expires_in if is_number(expires_in) and expires_in > 0 else None
        if isinstance(answer.get("scope"), str):
            record["scope"] = answer["scope"]
        self.save(record, key)
        self._mask(record)
        return record

    def refused(self, key, token, current, refusal):
        """The token endpoint refused to refresh ``current`` (stored under ``key``, or ``token``
        this run held): forget it where it is still stored, and a registration the server no
        longer knows."""
        def forget(data):
            if data["tokens"].get(key) is not None and data["tokens"][key].get("accessToken") in (
                    token["accessToken"], current["accessToken"]):
                del data["tokens"][key]  # spent or revoked, and still ours: forget it
            registration = data["registrations"].get(current["issuer"])
            if refusal.error in ("invalid_client", "unauthorized_client") and isinstance(registration, dict) and (
                    registration.get("clientId") == current.get("clientId")):
                # The server no longer knows mcp-tui's registration (a restarted in-memory one; the SDK
                # says unauthorized_client): without it, the next authorization registers anew instead
                # of sending the browser to an error page.
                del data["registrations"][current["issuer"]]

        self.store.update(forget)
        if self.log:
            self.log.event("auth", "refresh refused: %s" % refusal.message)

    # -- logout -----------------------------------------------------------------------------------

    def logout(self):
        """Revoke and forget the stored tokens of this server (of every server when it has
        none), and the registrations made for them: a server that forgot mcp-tui's
        registration would otherwise refuse every new authorization. Returns one
        {server, issuer, revoked} per token."""
        def mine(token):
            return isinstance(token, dict) and (self.server is None or token.get("server") == self.server)

        def forget(data):
            gone = [data["tokens"].pop(key) for key, token in list(data["tokens"].items()) if mine(token)]
            for issuer in set(t.get("issuer") for t in gone) if self.server else list(data["registrations"]):
                data["registrations"].pop(issuer, None)

        results = []
        with self.store.refresh_lock():  # a refresh in flight stores its successor before this, not after
            # revoked before forget() drops the registration that holds the client's secret
            for token in [t for t in self.store.load()["tokens"].values() if mine(t)]:
                self._mask(token)
                results.append({"server": token.get("server"), "issuer": token.get("issuer"),
                                "revoked": self.revoke(token)})
            self.store.update(forget)
        return results

    def revoke(self, token):
        """RFC 7009, best effort: True when the server confirmed."""
        endpoint = token.get("revocationEndpoint")
        if not endpoint:
            return False
        value = token.get("refreshToken") or token.get("accessToken")
        fields = {"token": value, "token_type_hint": "refresh_token" if token.get("refreshToken") else "access_token"}
        try:
            status, _ = self.requests.client_post(endpoint, token["issuer"], self.registration.client_of(token),
                                                  token.get("authMethod") or "none", fields)
        except McpTuiError:
            return False
        return status == 200


class Authorizer:
    """OAuth for one MCP endpoint: the HttpClient's hook (``authorization`` before a
    request, ``challenged`` after a 401 / 403) and the engine behind `auth login`. It holds
    the token in use and decides when to refresh, obtain or step up; the work is done by its
    parts: Discoverer, ClientRegistration, Grants and TokenKeeper, over OAuthRequests."""

    def __init__(self, url, settings, log=None, announce=None, timeout=60.0, network=None, store=None,
                 interactive=None):
        self.url = url
        self.server = canonical_resource(url) if url else None  # None: every server (logout only)
        self.settings = settings
        self.log = log
        self.announce = announce or (lambda text: sys.stderr.write(text + "\n"))
        self.timeout = timeout
        self.network = network or NetworkOptions()
        self.store = store or AuthStore()
        self.interactive = interactive
        self.requests = OAuthRequests(settings, log, timeout, self.network)
        self.discoverer = Discoverer(url, self.requests)
        self.registration = ClientRegistration(self.server, settings, self.store, self.requests)
        self.grants = Grants(settings, self.registration, self.requests, self.announce, timeout, interactive)
        self.keeper = TokenKeeper(self.server, self.store, self.registration, self.requests, log)
        self._lock = threading.RLock()
        self._token = None
        self._loaded = False
        self._requested = []
        self._failure = None
        for secret in settings.secrets():
            self._mask(secret)

    @property
    def browser_step(self):
        """A front end's own view of the browser step: called with a BrowserStep (None: mcp-tui
        prints the URL and opens the browser itself)."""
        return self.grants.browser_step

    @browser_step.setter
    def browser_step(self, show):
        self.grants.browser_step = show

    def try_again(self):
        """The user asks to connect again (the TUI's Ctrl+R): a failure of an earlier attempt,
        such as a cancelled authorization, no longer stands for the next request."""
        with self._lock:
            self._failure = None

    def granted(self):
        """The token in use (a copy, for the views to mask), or None before authorization."""
        with self._lock:
            return dict(self._token) if self._token else None

    # -- the HttpClient hook ----------------------------------------------------------------

    def authorization(self):
        """The Authorization value for the next request, or None (no token yet)."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                stored = self.keeper.newest()
                if stored:
                    self._token = stored
                    self._requested = (self._token.get("scope") or "").split()
            token = self._token
            if token and self.keeper.expiring(token):
                if not (token.get("refreshToken") and self._refresh()):
                    return None  # the server's 401 starts a new authorization
                token = self._token
            return "Bearer " + token["accessToken"] if token else None

    def challenged(self, status, challenge_values, sent, attempt):
        """A 401 / 403 on a request that carried ``sent``: True to send it again (with a
        new token), False to let the status stand. ``attempt`` counts for that request."""
        with self._lock:
            if self._failure is not None:
                raise self._failure
            challenge = bearer_challenge(challenge_values)
            current = "Bearer " + self._token["accessToken"] if self._token else None
            if current and current != sent and attempt.get("renewed", 0) < 2:
                attempt["renewed"] = attempt.get("renewed", 0) + 1
                return True  # another request renewed the token meanwhile
            if status == 403:
                return sent is not None and self._step_up(challenge, attempt)  # no token: nothing to step up
            if status != 401:
                return False
            if self._token and self._token.get("refreshToken") and not attempt.get("refreshed"):
                attempt["refreshed"] = True
                if self._refresh():
                    return True
            if attempt.get("authorizations", 0) >= 1:
                raise AuthError("%s still answers 401 after a new authorization" % self.server,
                                hint=self._describe_challenge(challenge))
            self._obtain(challenge, None, attempt)
            return True

    def _step_up(self, challenge, attempt):
        if challenge.get("error") != "insufficient_scope":
            return False  # a plain permission refusal: the 403 stands
        needed = (challenge.get("scope") or "").split()
        if not needed:
            # No scope in the challenge (the official Python SDK's server sends none): the next
            # source of the scope selection strategy, the resource metadata's scopes_supported.
            needed = list(self._discover(challenge).prm_scopes or [])
        granted = set(((self._token or {}).get("scope") or "").split())
        if not needed or set(needed) <= granted:
            return False  # a new grant with the same scopes cannot help
        if attempt.get("step_ups", 0) >= MAX_STEP_UPS or attempt.get("authorizations", 0) >= MAX_AUTHORIZATIONS:
            return False
        if self.settings.grant == "client_credentials" or self.settings.id_token:
            return False  # a machine identity has the scopes it has (a MAY in the extension)
        attempt["step_ups"] = attempt.get("step_ups", 0) + 1
        self._obtain(challenge, scope_union(self._requested, needed), attempt)
        return True

    def _describe_challenge(self, challenge):
        text = challenge.get("error_description") or challenge.get("error")
        return "the server says: %s" % self._redact(text)[:200] if text else None

    # -- login / logout ----------------------------------------------------------------------

    def login(self):
        """Authorize now, without waiting for a 401 (`auth login`)."""
        with self._lock:
            if self._discover({}).guessed:  # the defaults are for a server that asked (a 401), not a guess
                raise AuthError("%s publishes no authorization metadata; it does not seem to use OAuth" % self.server,
                                hint="mcp-tui authorizes by itself when a server answers 401")
            self._obtain({}, None, {})
            return dict(self._token)

    # -- obtaining a token -------------------------------------------------------------------

    def _obtain(self, challenge, scopes, attempt):
        try:
            if self.settings.stored_auth_only and self.settings.grant == "authorization_code" and not (
                    self.settings.id_token):  # the grant that needs a browser and a person: CI has neither
                raise AuthError("authorization required: run `mcp-tui auth login --url %s`" % self.url,
                                hint="--stored-auth-only uses only a stored or refreshable token")
            discovery = self._discover(challenge)
            if scopes is None:
                scopes = self._choose_scopes(challenge, discovery)
            attempt["authorizations"] = attempt.get("authorizations", 0) + 1
            if self.settings.id_token:
                response, client, method = self._cross_app(discovery, scopes)
            elif self.settings.grant == "client_credentials":
                response, client, method = self._client_credentials(discovery, scopes)
            else:
                response, client, method = self._authorization_code(discovery, scopes, attempt.get("started"))
            self._requested = scopes
            grant = "cross_app" if self.settings.id_token else self.settings.grant
            self._token = self.keeper.record_for(discovery, response, scopes, client, method, grant)
            self.keeper.save(self._token)
        except AuthError as exc:
            self._failure = exc  # later requests of this run fail the same way, without a new browser
            raise

    def _choose_scopes(self, challenge, discovery):
        if self.settings.scope:
            scopes = self.settings.scope.split()
        elif challenge.get("scope"):
            scopes = challenge["scope"].split()
        elif discovery.prm_scopes:
            scopes = list(discovery.prm_scopes)
        else:
            return []  # no source: leave the scope parameter out rather than guess
        offered = discovery.metadata.get("scopes_supported")
        if (self.settings.grant == "authorization_code" and isinstance(offered, list)
                and "offline_access" in offered and "offline_access" not in scopes):
            scopes.append("offline_access")  # a refresh token, where the AS says it grants one
        return scope_union(scopes)

    # The grants and discovery by the names the rest of the class calls them: a test stands
    # in for an authorization server by replacing one of these on an Authorizer.

    def _discover(self, challenge):
        return self.discoverer.discover(challenge)

    def _authorization_code(self, discovery, scopes, started=None):
        return self.grants.authorization_code(discovery, scopes, started=started)

    def _client_credentials(self, discovery, scopes):
        return self.grants.client_credentials(discovery, scopes)

    def _cross_app(self, discovery, scopes):
        return self.grants.cross_app(discovery, scopes)

    def _check_callback(self, response, discovery):
        self.grants.check_callback(response, discovery)

    # -- refresh, logout ------------------------------------------------------------------------

    def _refresh(self):
        """Refresh the token in use (TokenKeeper.refresh): False when refused, and then no
        token is in use."""
        self._token = self.keeper.refresh(self._token)
        return self._token is not None

    def logout(self):
        """Revoke and forget the stored tokens of this server (of every server when the
        Authorizer has no URL), and the registrations made for them: a server that forgot
        mcp-tui's registration would otherwise refuse every new authorization. Returns one
        {server, issuer, revoked} per token."""
        return self.keeper.logout()

    def revoke(self, token):
        """RFC 7009, best effort: True when the server confirmed."""
        return self.keeper.revoke(token)

    # -- secrets ------------------------------------------------------------------------------

    def _mask(self, secret):
        self.requests.mask(secret)

    def _redact(self, text):
        return self.requests.redact(text)


def authorizer_for(spec, opts, log, announce, network=None):
    """The Authorizer for an HTTP connection, or None (stdio, or --bearer / -H
    Authorization given: the user's own credentials win)."""
    if spec is None or spec.kind == "stdio" or not spec.url:
        return None
    if any(name.lower() == "authorization" for name in spec.headers):
        return None
    settings = AuthSettings.from_options(opts, getattr(spec, "oauth", None))
    return Authorizer(spec.url, settings, log, announce, opts.timeout, network or NetworkOptions.from_options(opts))


# ======================================================================================
# 6. Views: the text the CLI and the TUI share; then (6a) connections: connection specs,
#    config files, and the one way to open a session
#
# Uses sections 1-5. Every function here turns protocol data into words the same way
# for both front ends: a tool, a task, a server, a result, progress and log lines.
# Strings from a server pass through ``clean`` before they reach a terminal; JSON output
# stays exact (``terminal_json`` only escapes what a terminal would act on).
# ======================================================================================

# The patterns below are compiled on first use (re keeps them): most commands print plain
# text, and compiling them at import cost ~1 ms of every start.
TERMINAL_CONTROLS = (
    "\x1b\\[[0-?]*[ -/]*[@-~]?|\x1b\\][^\x07\x1b\n]*(?:\x07|\x1b\\\\)?|\x1b[P^_X][^\x1b\n]*(?:\x1b\\\\)?"
    "|\x9b[0-?]*[ -/]*[@-~]?|\x9d[^\x07\x1b\x9c\n]*[\x07\x9c]?|\x1b[ -~]?"
    "|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


JSON_TERMINAL_UNSAFE = ("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                                  "\ud800-\udfff]")


# ASCII that reaches a terminal as is: what clean() deletes from a byte copy to find controls
VISIBLE_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"
OUTPUT_CHUNK = 1024 * 1024  # characters of a large text cleaned and written at a time


def terminal_json(value, **options):
    """json.dumps for a terminal: the same JSON, with C1, bidi controls and lone surrogates
    written as \\u escapes (they can only occur inside strings). Strict: NaN and Infinity
    are refused (ValueError), never printed as the non-JSON words Python writes for them."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, **options)
    if text.isascii() and "\x7f" not in text:  # all it rewrites is DEL and non-ASCII: skip a pass
        return text
    return re.sub(JSON_TERMINAL_UNSAFE, lambda match: "\\u%04x" % ord(match.group()), text)


def clean(text):
    """Strip ANSI/OSC escape sequences, C0/C1 controls (but newline and tab) and bidi
    overrides from a server's string before it reaches the terminal."""
    text = text if isinstance(text, str) else str(text)
    if text.isascii() and not text.encode("ascii").translate(None, VISIBLE_ASCII):
        return text  # every sequence it strips starts with a control character: nothing to do
    return re.sub(TERMINAL_CONTROLS, "", text)


def base64_bytes(data):
    import base64

    try:
        return base64.b64decode(data or "", validate=False)
    except ValueError:
        return None


def render_content_block(block, saver=None):
    kind = block.get("type")
    if kind == "text":
        text = block.get("text", "")
    elif kind in ("image", "audio"):
        text = render_binary(kind, block.get("data", ""), block.get("mimeType"), None, saver)
    elif kind == "resource_link":
        label = block.get("title") or block.get("name") or ""
        text = "[resource link: %s%s%s]" % (block.get("uri", "?"), " (%s)" % block["mimeType"] if block.get(
            "mimeType") else "", " — " + label if label else "")
        text += "\n" + block["description"] if block.get("description") else ""
    elif kind == "resource":
        text = render_resource_contents(block.get("resource") or {}, saver)
    else:
        text = json.dumps(block, indent=2, ensure_ascii=False)
    return text + annotation_line(block.get("annotations"))


def annotation_line(annotations):
    """Who a block is for and how much it matters, when the server says so."""
    if not isinstance(annotations, dict):
        return ""
    parts = []
    audience = annotations.get("audience")
    if isinstance(audience, list) and audience:
        parts.append("for %s" % ", ".join(str(a) for a in audience))
    if is_number(annotations.get("priority")):
        parts.append("priority %s" % annotations["priority"])
    if annotations.get("lastModified"):
        parts.append("modified %s" % annotations["lastModified"])
    return "\n(%s)" % "; ".join(parts) if parts else ""


def render_binary(kind, data, mime, uri, saver):
    """A base64 payload: its size, and with --save the file it went to."""
    raw = base64_bytes(data)
    size = len(raw) if raw is not None else len(data or "")
    text = "[%s: %s, %d bytes" % (kind, mime or "?", size)
    if saver is not None and raw is not None:
        text += ", saved to %s" % saver.save(raw, uri, kind, mime)
    return text + "]"


def render_resource_contents(item, saver=None):
    header = "[resource %s%s]" % (item.get("uri", "?"), " (%s)" % item["mimeType"] if item.get("mimeType") else "")
    if "text" in item:
        return header + "\n" + item["text"]
    mime = item.get("mimeType") or ""
    if mime.startswith("text/"):  # text sent as a blob is still text
        raw = base64_bytes(item.get("blob"))
        if raw is not None:
            try:
                return header + "\n" + raw.decode("utf-8")
            except UnicodeDecodeError:
                pass
    return header + "\n" + render_binary("binary", item.get("blob", ""), mime or None, item.get("uri"), saver)


class BlobSaver:
    """--save DIR: binary contents go to files named after their URI (or their kind),
    never over an existing file, never outside DIR."""

    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    def save(self, data, uri, kind, mime):
        import mimetypes

        os.makedirs(self.directory, exist_ok=True)
        self.count += 1
        name = re.sub(r"[^A-Za-z0-9._-]", "_", (uri or "").rstrip("/").rsplit("/", 1)[-1]).lstrip(".")
        if not name:
            name = "%s-%d%s" % (kind, self.count, mimetypes.guess_extension(mime or "") or ".bin")
        stem, dot, extension = name.rpartition(".") if "." in name else (name, "", "")
        path, index = os.path.join(self.directory, name), 1
        while os.path.exists(path):
            path = os.path.join(self.directory, "%s-%d%s%s" % (stem, index, dot, extension))
            index += 1
        with open(path, "xb") as handle:
            handle.write(data)
        return path


def check_tool_result(result):
    content = result.get("content", [])
    if not isinstance(content, list):
        raise ProtocolViolation("tools/call: the result's content is not a list")
    for index, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise ProtocolViolation("tools/call: content block %d is not an object with a type" % index)
        if block["type"] == "text" and not isinstance(block.get("text"), str):
            raise ProtocolViolation("tools/call: content block %d is a text block without string text" % index)


MODERN_INPUT_UNAVAILABLE = "unavailable on 2026-07-28 connections"


# A tool that runs only as a task, on a server that declared no task support for tools/call
TASK_ONLY_UNCALLABLE = ("cannot be called here: it runs only as a task, and the server declared no task support "
                        "for tools/call")


def tool_outcome_text(result):
    """How a tool call ended, as the CLI and the TUI say it: a result with isError is the tool's error."""
    return "The tool reported an error (isError: true)" if result.get("isError") else "Tool executed successfully"


def result_hint(result):
    """A tool error some servers give under 2026-07-28 only (FastMCP's ctx.elicit): the way out."""
    texts = [block.get("text") for block in result.get("content") or () if isinstance(block, dict)]
    if result.get("isError") and any(isinstance(t, str) and MODERN_INPUT_UNAVAILABLE in t.lower() for t in texts):
        return "the server asks for input in a way 2026-07-28 does not carry: try --protocol-version 2025-11-25"
    return None


def repeats_structured(block, result):
    """A text block that is the structured content again, as JSON (the spec asks servers to
    send both): shown once."""
    if "structuredContent" not in result or block.get("type") != "text":
        return False
    try:
        return json.loads(block.get("text", "")) == result["structuredContent"]
    except ValueError:
        return False


def structured_wraps_text(result):
    """Structured content that only wraps the one text block in one key: FastMCP's
    {"result": 3} beside "3", the filesystem server's {"content": TEXT} beside TEXT. It adds
    nothing to the text, which is shown alone."""
    structured = result.get("structuredContent")
    texts = [b.get("text") for b in result.get("content") or () if isinstance(b, dict) and b.get("type") == "text"]
    if not (isinstance(structured, dict) and len(structured) == 1 and len(texts) == 1):
        return False
    value = next(iter(structured.values()))
    if value == texts[0]:
        return True
    try:
        return strict_json(texts[0]) == value
    except (ValueError, RecursionError):
        return False


def structured_content_problem(result, tool):
    """A warning when the structured content breaks the tool's outputSchema (naming where),
    or None."""
    schema = tool.get("outputSchema") if isinstance(tool, dict) else None
    if not isinstance(schema, dict) or "structuredContent" not in result or result.get("isError"):
        return None
    found = schema_violation(result["structuredContent"], schema)
    if found is None:
        return None
    return "warning: the structured content does not match the outputSchema of tool %r: %s %s" % (
        tool.get("name"), found[0], found[1])


def render_tool_result(result, saver=None):
    blocks = [render_content_block(b, saver) for b in result.get("content") or ()
              if isinstance(b, dict) and not repeats_structured(b, result)]
    lines = ["Error response from tool:" if result.get("isError") else "Tool response:"]
    if blocks or "structuredContent" not in result:
        lines.append("\n".join(blocks) if blocks else "(no content)")
    if "structuredContent" in result and not structured_wraps_text(result):
        lines.append("Structured content:")
        lines.append(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False))
    return "\n".join(lines)


def user_shell(environ=None, windows=None):
    """The shell a printed command is written for: "posix" outside Windows; on Windows
    "powershell" or "cmd". Nothing says which shell started a program there; PowerShell
    (5.1 and 7) adds the user's own module folder to PSModulePath for what it starts, while
    cmd.exe passes on the system's value, two folders, so three or more means PowerShell.
    (PSModulePath being set at all says nothing: Windows sets it for every process.)"""
    if windows is None:
        windows = os.name == "nt"
    if not windows:
        return "posix"
    folders = (os.environ if environ is None else environ).get("PSModulePath", "").split(";")
    return "powershell" if len([folder for folder in folders if folder]) >= 3 else "cmd"


def powershell_word(word):
    """``word`` for PowerShell, exactly: bare where argument mode keeps it as it is (not a
    number such as 1e3, no -x.y, which Windows PowerShell splits), '...' with ' doubled
    (PowerShell's curly single quotes too), or "..." with $([char]0x..) for characters a
    terminal would not show."""
    if re.match(r"(?:[A-Za-z_/\\][\w./:=\\+-]*|--?[A-Za-z][A-Za-z0-9-]*)\Z", word):
        return word
    if word.isprintable() and clean(word) == word:
        return "'" + re.sub("['\u2018\u2019\u201a\u201b]", lambda match: match.group(0) * 2, word) + "'"
    return '"' + powershell_double_quoted(word) + '"'


def powershell_double_quoted(text):
    """``text`` inside PowerShell's "...": ` " $ escaped, unseen characters as $([char]0x..)."""
    pieces = []
    for char in text:
        if char in '`"$\u201c\u201d\u201e':
            pieces.append("`" + char)
        elif not char.isprintable() or clean(char) != char:
            pieces.append("$([char]0x%04x)" % ord(char) if ord(char) <= 0xFFFF
                          else "$([char]::ConvertFromUtf32(0x%x))" % ord(char))
        else:
            pieces.append(char)
    return "".join(pieces)


def cmd_word(word):
    """``word`` for cmd.exe: bare where neither cmd nor a .cmd shim would split or expand
    it, else "..." as the C runtime reads argv (\\" for a quote, backslashes before one
    doubled). cmd cannot type control characters at all: such a word is left to
    shell_word's $'...' escapes, which at least show it exactly. (A %NAME% inside quotes is
    still expanded by an interactive cmd; there is no escape for it there.)"""
    if re.match(r"[\w./:\\+@-]+\Z", word):
        return word
    quoted = re.sub(r'(\\*)"', lambda match: match.group(1) * 2 + '\\"', word)
    return '"' + re.sub(r"(\\+)\Z", lambda match: match.group(1) * 2, quoted) + '"'


def shell_word(word, shell=None):
    """``word`` for the user's shell (user_shell, or ``shell``): PowerShell and cmd.exe as
    powershell_word and cmd_word write it; a POSIX shell exactly: shlex.quote, or $'...'
    with escapes when it holds characters a terminal would not show (controls, bidi
    overrides), since cleaning them out of a printed command would make it name something
    else."""
    import shlex

    shell = shell or user_shell()
    printable = word.isprintable() and clean(word) == word
    if shell == "powershell":
        return powershell_word(word)
    if shell == "cmd" and printable:
        return cmd_word(word)
    if printable:
        return shlex.quote(word)
    escaped = []
    for char in word:
        if char in "\\'":
            escaped.append("\\" + char)
        elif ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            escaped.append("\\x%02x" % ord(char))
        elif not char.isprintable() or clean(char) != char:
            escaped.append("\\u%04x" % ord(char))
        else:
            escaped.append(char)
    return "$'" + "".join(escaped) + "'"


class ConfigWord(str):
    """A word from a config file: its ${VAR}s are for the shell to expand (shell_config_word)."""


CONFIG_VARIABLE = r'\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(:-[^}$`\\"]*)?\}'  # one a shell reads the same


def shell_config_word(word, shell=None):
    """``word`` for the user's shell with its ${VAR} and ${VAR:-default} (and ${env:VAR}, as ${VAR})
    left for the shell to expand, in double quotes, and the rest as shell_word writes it: a
    copied command shows the config's placeholders, never their values, and still runs.
    PowerShell ("...${env:VAR}...") and cmd.exe ("...%VAR%...") have no default: it is dropped,
    and the word is one quoted string (both split a word that begins with a quoted part)."""
    shell = shell or user_shell()
    if shell == "powershell":
        parts = re.split(CONFIG_VARIABLE, word)  # text, name, default, text, ...
        texts = [powershell_double_quoted(text) for text in parts[0::3]]
        return '"%s%s"' % ("".join(text + "${env:%s}" % name for text, name in zip(texts, parts[1::3])), texts[-1])
    if shell == "cmd":
        return cmd_word(re.sub(CONFIG_VARIABLE, r"%\1%", word))
    pieces, start = [], 0
    for match in re.finditer(CONFIG_VARIABLE, word):
        if match.start() > start:
            pieces.append(shell_word(word[start:match.start()], shell))
        pieces.append('"${%s%s}"' % (match.group(1), match.group(2) or ""))
        start = match.end()
    if start < len(word) or not pieces:
        pieces.append(shell_word(word[start:], shell))
    return "".join(pieces)


def command_line(options, command, operands, shell=None):
    """``mcp-tui OPTIONS COMMAND OPERANDS`` for the user's shell (user_shell, or ``shell``),
    every word as shell_word writes it (a ConfigWord as shell_config_word does), and ``--``
    before the operands when one starts with a dash (it would read as an option)."""
    shell = shell or user_shell()
    words = ["mcp-tui"] + list(options) + list(command)
    if any(word.startswith("-") for word in operands):
        words.append("--")
    return " ".join(shell_config_word(word, shell) if isinstance(word, ConfigWord) else shell_word(word, shell)
                    for word in words + list(operands))


def tool_call_command(spec, tool, arguments, task_mode):
    """The mcp-tui command line that makes the same call, as the CLI writes its own (command_line)."""
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    options, operands = connection_words(spec), argument_words(arguments, properties)
    if operands[:1] == ["--args-json"]:
        options, operands = options + operands, []
    if task_mode:
        options = options + ["--task", "--wait"]
    return command_line(options, ["tool", "call"], [tool["name"]] + operands)


def connection_words(spec):
    """The connection as flags. Secrets stay out: no Authorization or cookie header and no
    environment values (they would land on the clipboard and in shell history); from a config
    file, the ${VAR}s as it has them (ConfigWord), and none of its header values but those."""
    shown, word = (spec.shown, ConfigWord) if spec.shown is not None else (spec, str)
    config_headers = shown.headers if spec.shown is not None else {}
    if spec.kind == "stdio":
        words = [word(join_command(shown.argv))]
        if spec.cwd:
            words += ["--cwd", spec.cwd]
    else:
        words = ["--url", word(shown.url)] + (["--transport", "sse"] if spec.kind == "sse" else [])
        for name, value in spec.headers.items():
            if name in config_headers and re.search(CONFIG_VARIABLE, config_headers[name]):
                words += ["--header", ConfigWord("%s: %s" % (name, config_headers[name]))]
            elif not secret_header(name) and name not in config_headers:
                words += ["--header", "%s: %s" % (name, value)]
    if spec.protocol != "auto":
        words += ["--protocol-version", spec.protocol]
    return words


def argument_words(arguments, properties):
    """k=v where the CLI would read v back as the same string, k:=JSON otherwise."""
    if not all(key and "=" not in key and not key.endswith(":") for key in arguments):
        return ["--args-json", json.dumps(arguments, ensure_ascii=False)]
    words = []
    for key, value in arguments.items():
        types = schema_types(properties.get(key))
        if isinstance(value, str) and (not types or "string" in types) and not value.startswith("@"):
            words.append("%s=%s" % (key, value))
        else:
            words.append("%s:=%s" % (key, json.dumps(value, ensure_ascii=False)))
    return words


def secret_header(name):
    return name.lower() in ("authorization", "proxy-authorization", "cookie")


def first_line(text):
    return text.strip().splitlines()[0] if text.strip() else ""


def describe_failure(exc):
    if isinstance(exc, McpTuiError):
        return exc.message + (" (%s)" % exc.hint if exc.hint else "")
    return "internal error: %s: %s" % (exc.__class__.__name__, exc)


def describe_capabilities(capabilities):
    parts = []
    for name in sorted(capabilities):
        value = capabilities[name]
        if name == "extensions":
            continue
        flags = [key for key, flag in sorted(value.items()) if flag not in (False, None)] if isinstance(
            value, dict) else []
        parts.append("%s (%s)" % (name, ", ".join(flags)) if flags else name)
    return ", ".join(parts) or "none"


CHECK_MARKS = {"pass": "✓", "warning": "⚠", "error": "✗"}


def check_failures(check, strict=False):
    """The findings that fail a check: the errors, and with --strict the warnings too."""
    return [f for f in check.findings if f["severity"] == "error" or strict]


def check_summary(check, elapsed, strict=False):
    failed_rules = set(f["rule"] for f in check.findings)
    return {"rules": len(check.ran), "passed": len([r for r in check.ran if r not in failed_rules]),
            "errors": len([f for f in check.findings if f["severity"] == "error"]),
            "warnings": len([f for f in check.findings if f["severity"] == "warning"]),
            "failed": bool(check_failures(check, strict)), "strict": strict, "elapsedMs": round(elapsed * 1000, 1)}


def check_report_text(check, server, elapsed, strict=False):
    """`check`'s report: the rules it ran grouped by area, a ✓ for each that held and a line
    (and its fix) for each finding; then the totals and the time it took."""
    lines = ["Checked %s" % server]
    width = max([len(rule) for rule in check.ran] or [0])
    for group in sorted(set(rule.split(".")[0] for rule in check.ran), key=lambda g: [
            r[0].split(".")[0] for r in CHECK_RULES].index(g)):
        lines.append("")
        lines.append(group)
        for rule in [r[0] for r in CHECK_RULES if r[0] in check.ran and r[0].split(".")[0] == group]:
            findings = [f for f in check.findings if f["rule"] == rule]
            if not findings:
                lines.append("  %s %-*s  %s" % (CHECK_MARKS["pass"], width, rule, CHECK_RULE_INDEX[rule][2]))
            for finding in findings:
                where = "%s: " % finding["where"] if finding["where"] else ""
                where = "" if finding["message"].startswith(where) else where
                lines.append("  %s %-*s  %s%s" % (CHECK_MARKS[finding["severity"]], width, rule, where,
                                                   finding["message"]))
                lines.append("  %s  fix: %s" % (" " * (width + 2), finding["fix"]))
    summary = check_summary(check, elapsed, strict)
    lines.append("")
    lines.append("%d rules: %d passed, %d warning%s, %d error%s%s; %.1f s" % (
        summary["rules"], summary["passed"], summary["warnings"], "" if summary["warnings"] == 1 else "s",
        summary["errors"], "" if summary["errors"] == 1 else "s", " (--strict: warnings fail)" if strict else "",
        elapsed))
    return "\n".join(lines)


def check_junit(check, server, elapsed, strict=False):
    """JUnit XML for CI: one test case per rule run, a failure for each finding that fails
    the check, and a skipped-free ``system-out`` line for a warning that does not."""
    from xml.sax.saxutils import quoteattr, escape

    failures = check_failures(check, strict)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<testsuite name=%s tests="%d" failures="%d" errors="0" time="%.3f">' % (
                 quoteattr("mcp-tui check " + clean(server)), len(check.ran), len(set(f["rule"] for f in failures)),
                 elapsed)]
    for rule in check.ran:
        findings = [f for f in check.findings if f["rule"] == rule]
        lines.append('  <testcase classname=%s name=%s>' % (quoteattr(rule.split(".")[0]), quoteattr(rule)))
        for finding in findings:
            text = clean("%s%s (fix: %s)" % ("%s: " % finding["where"] if finding["where"] else "",
                                            finding["message"], finding["fix"]))
            if finding in failures:
                lines.append('    <failure type=%s message=%s>%s</failure>' % (
                    quoteattr(finding["severity"]), quoteattr(text), escape(text)))
            else:
                lines.append('    <system-out>%s</system-out>' % escape("warning: " + text))
        lines.append('  </testcase>')
    lines.append('</testsuite>')
    return "\n".join(lines) + "\n"


def load_report_text(summary):
    """`tool call --load`'s report: counts, rates, elapsed time and latencies, then the
    distinct error messages."""
    latency = summary["latencyMs"]

    def ms(value):
        return "-" if value is None else "%.2f" % value

    lines = ["requests     %d" % summary["requests"], "ok           %d" % summary["ok"],
             "tool errors  %d" % summary["toolErrors"], "errors       %d" % summary["errors"],
             "error rate   %.2f%%" % (summary["errorRate"] * 100),
             "elapsed      %.2f s" % (summary["elapsedMs"] / 1000), "throughput   %.1f calls/s" % summary["throughput"],
             "latency ms   " + "  ".join("%s %s" % (key, ms(latency[key]))
                                         for key in ("min", "mean", "p50", "p90", "p99", "max"))]
    if summary["errorMessages"]:
        lines.append("errors seen:")
        lines.extend("  %d× %s" % (item["count"], item["message"]) for item in summary["errorMessages"])
    return "\n".join(lines)


def describe_server(session, tasks=None):
    """The server as `mcp-tui server` prints it. With ``tasks`` (the TUI's server tab) it
    adds the connection, the task form and the capabilities in full."""
    summary = session.summary()
    info = summary["serverInfo"] or {}
    lines = ["Name:         %s" % info.get("name", "(not reported by the server)"),
             "Title:        %s" % info["title"] if info.get("title") else None,
             "Version:      %s" % info.get("version", "(not reported by the server)"),
             "Era:          %s" % session.era_label,
             "Protocol:     %s" % summary["protocolVersion"],
             "Transport:    %s" % summary["transport"]]
    grant = session.spec.auth.granted() if session.spec.auth is not None else None
    view = masked_token_view(grant) if grant is not None else session.kept_grant
    if isinstance(view, dict):
        lines.append("Authorized:   at %s, scope %s, %s" % (view["issuer"], view["scope"] or "-", describe_expiry(view)))
    if tasks is not None:
        support = tasks.support()
        lines += ["Connection:   %s" % session.spec.describe(),
                  "Tasks:        %s" % (support.label if support else "none declared")]
    capabilities = summary["capabilities"]
    lines.append("Capabilities: %s" % describe_capabilities(capabilities))
    extensions = capabilities.get("extensions") or {}
    if extensions:
        lines.append("Extensions:   %s" % ", ".join(sorted(extensions)))
    if summary["instructions"]:
        lines.append("Instructions: %s" % summary["instructions"])
    if tasks is not None:
        lines += ["", "Capabilities as declared:", json.dumps(capabilities, indent=2, ensure_ascii=False)]
    return "\n".join(line for line in lines if line is not None)


def argument_type_text(prop):
    """An argument's type as `tool describe` lists it: "string, one of red, green",
    "array of integer"."""
    types = schema_types(prop)
    text = "/".join(types) or "any"
    items = prop.get("items")
    if "array" in types and isinstance(items, dict) and items:
        text += " of " + argument_type_text(items)
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        text += ", one of " + ", ".join(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                                        for value in prop["enum"])
    return text


def describe_tool(tool, tasks=None, app=None):
    """``tasks``: the session's TaskForm, which knows what a listing without taskSupport means;
    ``app``: read_app_view's answer for a tool with an MCP Apps view (or the error it raised;
    None while it is being read)."""
    lines = ["Tool: %s" % tool.get("name")]
    if tool.get("title"):
        lines.append("Title: %s" % tool["title"])
    if tool.get("description"):
        lines += ["", str(tool["description"])]
    unlisted = tasks.unlisted_tool_support() if tasks is not None else "forbidden"
    lines += ["", "Task support: %s" % (listed_task_support(tool) or unlisted)]
    schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
    required = set(schema.get("required") or ())
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    if properties:
        lines += ["", "Arguments (* required):"]
        for key, prop in properties.items():
            prop = prop if isinstance(prop, dict) else {}
            extra = " (default %s)" % json.dumps(prop["default"], ensure_ascii=False) if "default" in prop else ""
            lines.append("  %s%s: %s%s%s" % (key, "*" if key in required else "", argument_type_text(prop), extra,
                                             " - " + str(prop["description"]) if prop.get("description") else ""))
    if app_view(tool):
        lines += describe_app_view(app_view(tool), app)
    for label, key in (("Annotations", "annotations"), ("Meta", "_meta")):
        if isinstance(tool.get(key), dict) and tool[key]:
            lines += ["", label + ":"] + ["  %s: %s" % (k, json.dumps(v, ensure_ascii=False))
                                          for k, v in tool[key].items()]
    lines += ["", "Input schema:", json.dumps(schema, indent=2, ensure_ascii=False)]
    if tool.get("outputSchema"):
        lines += ["", "Output schema:", json.dumps(tool["outputSchema"], indent=2, ensure_ascii=False)]
    return "\n".join(lines)


def describe_resource(item):
    lines = []
    for label, key in (("URI", "uri"), ("URI template", "uriTemplate"), ("Name", "name"), ("Title", "title"),
                       ("MIME type", "mimeType"), ("Size", "size")):
        if item.get(key) is not None:
            lines.append("%s: %s" % (label, item[key]))
    if item.get("description"):
        lines += ["", str(item["description"])]
    if item.get("annotations"):
        lines += ["", "Annotations: %s" % json.dumps(item["annotations"], ensure_ascii=False)]
    return "\n".join(lines)


def describe_prompt(prompt):
    lines = ["Prompt: %s" % prompt.get("name")]
    if prompt.get("title"):
        lines.append("Title: %s" % prompt["title"])
    if prompt.get("description"):
        lines += ["", str(prompt["description"])]
    arguments = [a for a in prompt.get("arguments") or () if isinstance(a, dict)]
    if arguments:
        lines += ["", "Arguments (* required):"] + ["  %s%s%s" % (
            a.get("name"), "*" if a.get("required") else "", " - " + str(a["description"]) if a.get("description")
            else "") for a in arguments]
    return "\n".join(lines)


def describe_app_view(view, app):
    """A tool's MCP Apps view: ``view`` is app_view's, ``app`` read_app_view's (or an error;
    None while it is being read)."""
    lines = ["", "App view: %s" % view["resourceUri"], "  Visibility: %s%s" % (
        ", ".join(view["visibility"]) or "(none)", "" if "model" in view["visibility"] else " (app only: never "
                                                                                               "offered to a model)")]
    if app is None:
        return lines + ["  (reading the view ...)"]
    if isinstance(app, McpTuiError):
        return lines + ["  (could not read the view: %s)" % app]
    lines.append("  MIME type: %s%s" % (app.get("mimeType"), "" if app.get("mimeType") == APP_MIME_TYPE
                                        else " (an App view must be %s)" % APP_MIME_TYPE))
    lines.append("  HTML: %d bytes, %s" % (app["size"], app["digest"]))
    ui = app["ui"]
    csp = ui.get("csp") if isinstance(ui.get("csp"), dict) else None
    lines.append("  CSP: %s" % (", ".join("%s %s" % (key, " ".join(map(str, value)) or "(none)")
                                          for key, value in csp.items() if isinstance(value, list))
                                if csp is not None else "(none declared: a host uses its restrictive default)"))
    permissions = ui.get("permissions") if isinstance(ui.get("permissions"), dict) else {}
    lines.append("  Permissions: %s" % (", ".join(sorted(permissions)) or "(none)"))
    for key in ("domain", "prefersBorder"):
        if key in ui:
            lines.append("  %s: %s" % (key, json.dumps(ui[key], ensure_ascii=False)))
    if app.get("uiSource"):
        lines.append("  (from the %s's _meta.ui)" % ("resources/read content" if app["uiSource"] == "content"
                                                     else "resources/list entry"))
    return lines


def skill_size(entry):
    """"3 files, 254 bytes", or why a skill's files cannot be counted."""
    files = entry.get("resources")
    return ("dynamic (unverifiable)" if files == "dynamic" else "%d file%s, %d bytes" % (
        len(files), "" if len(files) == 1 else "s", skill_total_size(entry)) if isinstance(files, list)
        else "no manifest (invalid)")


def skill_description(entry):
    frontmatter = entry.get("frontmatter") if isinstance(entry.get("frontmatter"), dict) else {}
    return first_line(str(frontmatter.get("description") or ""))


def skill_summary(entry):
    """One skill in `skill list`: its path, name and description, then its URI and size."""
    frontmatter = entry.get("frontmatter") if isinstance(entry.get("frontmatter"), dict) else {}
    name = frontmatter.get("name")
    return "%s%s\n    %s\n    %s · %s" % (skill_path(entry), " (name: %s)" % name if name and not skill_path(
        entry).endswith(str(name)) else "", skill_description(entry), entry.get("uri"), skill_size(entry))


def skill_row(entry):
    """One skill in the TUI's Skills list: path, size, description."""
    return "%s · %s · %s" % (skill_path(entry), skill_size(entry), skill_description(entry))


def skill_manifest_line(item):
    """One file of a manifest: its size, the start of its digest, its URI."""
    return "%8s  %s  %s" % (item.get("size"), str(item.get("digest"))[:19], item.get("uri"))


def describe_skill(entry, problems):
    frontmatter = entry.get("frontmatter") if isinstance(entry.get("frontmatter"), dict) else {}
    lines = ["Skill: %s" % skill_path(entry), "URI: %s" % entry.get("uri"), "", "Frontmatter:"]
    lines += ["  %s: %s" % (key, json.dumps(value, ensure_ascii=False)) for key, value in frontmatter.items()]
    files = entry.get("resources")
    if isinstance(files, list):
        lines += ["", "Manifest (%d files, %d bytes):" % (len(files), skill_total_size(entry))]
        lines += ["  " + skill_manifest_line(f) for f in files if isinstance(f, dict)]
    else:
        lines += ["", "Manifest: %s" % ("dynamic (the files cannot be verified)" if files == "dynamic" else "none")]
    if problems:
        lines += ["", "Problems: %s" % ", ".join(problems)]
    return "\n".join(lines)


def skill_check_detail(row):
    """Why a file of a skill failed its check ("" when it passed)."""
    expected, actual = row["expected"], row.get("actual") or {}
    return {"size-mismatch": lambda: "the manifest says %s bytes, the server sent %s" % (
                expected["size"], actual["size"]),
            "digest-mismatch": lambda: "the manifest says %s, the bytes hash to %s" % (
                expected["digest"], actual["digest"])}.get(row["status"], lambda: row.get("error", ""))()


def skill_check_line(row):
    """One file of `skill verify` or `skill fetch`: ✓ or ✗, its status and, when it failed, why."""
    detail = skill_check_detail(row)
    return "  %s %-24s %s%s" % (check_mark(row["status"] == "verified"), row["status"], row["uri"],
                                "\n        " + detail if detail else "")


def check_mark(ok):
    return CHECK_MARKS["pass" if ok else "error"]


def skill_report(outcome):
    """A skill's verification (check_skill): ✓ or ✗ and a count, then a line per file."""
    verified = sum(row["status"] == "verified" for row in outcome["files"])
    lines = ["%s %s: %s" % (check_mark(outcome["ok"]), outcome["path"], ", ".join(
        outcome["problems"]) or "%d of %d files verified" % (verified, len(outcome["files"])))]
    return "\n".join(lines + [skill_check_line(row) for row in outcome["files"]])


def describe_task(task, tool=None, now=None):
    """A task's fields, one per line. ``tool`` and ``now`` (for the TTL left) are the TUI's."""
    data = task.data
    ttl = data.get("ttlMs")
    ttl_text = "%sms" % ttl if ttl is not None else "unlimited"
    if ttl is not None and now is not None:
        ttl_text += " (%s left)" % ttl_left(task, now)
    lines = ["Task:     %s" % task.task_id] + (["Tool:     %s" % tool] if tool else []) + [
        "Status:   %s" % task.status_line(),
        "Created:  %s" % short_timestamp(data.get("createdAt")),
        "Updated:  %s" % short_timestamp(data.get("lastUpdatedAt")),
        "TTL:      %s" % ttl_text]
    if data.get("pollIntervalMs") is not None:
        lines.append("Poll:     every %sms" % data["pollIntervalMs"])
    if task.status == "input_required":
        requests = data.get("inputRequests") if isinstance(data.get("inputRequests"), dict) else {}
        for index, (key, item) in enumerate(sorted(requests.items())):
            method = item.get("method", "?") if isinstance(item, dict) else "?"
            lines.append("%s%s (%s)" % ("Input:    " if not index else "          ", key, method))
    if task.status == "failed" and isinstance(data.get("error"), dict):
        lines.append("Error:    %s %s" % (data["error"].get("code"), data["error"].get("message", "")))
    return "\n".join(lines)


def ttl_left(task, now):
    expiry = task.expires_at()
    if expiry is None:
        return "unlimited" if task.data.get("ttlMs") is None else "?"
    left = expiry - now
    return duration_text(left) if left > 0 else "expired"


def duration_text(seconds):
    seconds = int(seconds)
    if seconds >= 3600:
        return "%dh%02dm" % (seconds // 3600, seconds % 3600 // 60)
    if seconds >= 60:
        return "%dm%02ds" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


def render_messages(messages):
    """Prompt and sampling messages: the role, then each content block."""
    lines = []
    for message in messages or ():
        if not isinstance(message, dict):
            continue
        blocks = [b for b in as_list(message.get("content")) if isinstance(b, dict)]
        lines += ["[%s]" % message.get("role", "?")] + [render_content_block(b) for b in blocks] + [""]
    return "\n".join(lines).rstrip("\n")


def render_contents(result, saver=None):
    """A resources/read result's contents (binary ones saved by ``saver``, when given)."""
    contents = [c for c in result.get("contents") or () if isinstance(c, dict)]
    return "\n\n".join(render_resource_contents(c, saver) for c in contents) or "(no contents)"


def progress_text(params):
    total = params.get("total")
    amount = "%s/%s" % (params.get("progress"), total) if total is not None else str(params.get("progress"))
    return "progress %s%s" % (amount, ": %s" % params["message"] if params.get("message") else "")


def log_text(params):
    data = params.get("data")
    data = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    logger = params.get("logger")
    return "[%s]%s %s" % (params.get("level", "info"), " %s:" % logger if logger else "", data)


def notification_text(message):
    """One notification as one line of text, for `watch`."""
    method, params = message.get("method"), message.get("params")
    params = params if isinstance(params, dict) else {}
    if method == "notifications/resources/updated":
        return "resource updated: %s" % params.get("uri", "?")
    if isinstance(method, str) and method.endswith("/list_changed"):
        return "%s list changed" % method.split("/")[1]
    if method == "notifications/message":
        return log_text(params)
    if method == "notifications/progress":
        return progress_text(params)
    if is_task_status_notification(method):
        return "task %s: %s%s" % (params.get("taskId", "?"), params.get("status", "?"),
                                  " — %s" % params["statusMessage"] if params.get("statusMessage") else "")
    shown = {key: value for key, value in params.items() if key != "_meta"}
    return "%s %s" % (method, json.dumps(shown, ensure_ascii=False)) if shown else str(method)


def stderr_hint(exc, lines):
    """Add the server's last stderr lines to a connection failure's hint, once."""
    if getattr(exc, "stderr_quoted", False):
        return
    exc.stderr_quoted = True
    if lines and isinstance(exc, (ConnectionFailed, RequestTimeout, ProtocolViolation)):
        exc.hint = ((exc.hint + "; ") if exc.hint else "") + "server stderr: " + " | ".join(lines[-5:])


# -- snapshots and their differences, as text ------------------------------------------


def snapshot_text(snapshot):
    """A snapshot as `snapshot` writes it: keys sorted and indented, so that two snapshots of
    one server are the same bytes and a change is a few lines of `git diff`."""
    return terminal_json(snapshot, indent=2, sort_keys=True) + "\n"


def read_snapshot(path):
    """The snapshot in the file at ``path`` (a UsageError naming it otherwise)."""
    try:
        with open(path, encoding="utf-8") as handle:
            value = strict_json(handle.read())
    except OSError as exc:
        raise UsageError("cannot read snapshot %s: %s" % (path, exc.strerror or exc))
    except (ValueError, RecursionError) as exc:
        raise UsageError("snapshot %s is not JSON: %s" % (path, exc))
    return check_snapshot(value, path)


def change_value_text(value):
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def surface_diff_text(changes, counts):
    """`diff`'s text: the changes grouped by item, each with its class, the old value on a
    ``-`` line and the new one on a ``+`` line; then the counts."""
    if not changes:
        return "no changes"
    lines, item = [], None
    for change in changes:
        if change["item"] != item:
            item = change["item"]
            lines.append(item)
        lines.append("  %-9s %s" % (change["class"], change["change"]))
        if "old" in change:
            lines.append("    - %s" % change_value_text(change["old"]))
        if "new" in change:
            lines.append("    + %s" % change_value_text(change["new"]))
    lines += ["", "%d change%s: %s" % (len(changes), "" if len(changes) == 1 else "s",
                                       ", ".join("%d %s" % (counts[kind], kind) for kind in CHANGE_CLASSES))]
    return "\n".join(lines)


def replay_text(index, exchange, found):
    """One replayed request whose answer differs: each place, recorded (-) and replayed (+)."""
    params = exchange["params"]
    name = params.get("name", params.get("uri"))
    lines = ["request %d: %s%s: different" % (index, exchange["method"], " %s" % name if isinstance(name, str) else "")]
    for path, old, new in found:
        lines += ["  %s" % (path or "/"), "    - %s" % change_value_text(old), "    + %s" % change_value_text(new)]
    return "\n".join(lines)


def replay_summary(count, different):
    return "%d request%s: %d same, %d different" % (count, "" if count == 1 else "s", count - different, different)


def masked_token_view(token, now=None):
    """What `auth status` shows of a stored token: never the token itself."""
    now = time.time() if now is None else now
    expires = token.get("expiresAt")
    return {"server": token.get("server"), "issuer": token.get("issuer"), "resource": token.get("resource"),
            "scope": token.get("scope") or "", "grant": token.get("grant"),
            "token": "token:" + fingerprint(token.get("accessToken") or ""),
            "refreshable": bool(token.get("refreshToken")),
            "expiresAt": expires, "expired": is_number(expires) and expires <= now}


def describe_expiry(view, now=None):
    expires = view["expiresAt"]
    if not is_number(expires):
        return "no expiry given"
    left = int(expires - (time.time() if now is None else now))
    if left <= 0:
        return "expired" + (" (refreshable)" if view["refreshable"] else "")
    return "expires in %dm%02ds%s" % (left // 60, left % 60, " (refreshable)" if view["refreshable"] else "")


# -- 6a. Connections: specs from options and config files, kept sessions, connect ----------
#
# The session layer's way in: a ConnectionSpec from the command line or a config file, the
# run's debug log, a kept session's record, and ``connect``, the one way the CLI, the TUI and
# the keeper open a Session. It belongs with the session (section 2), but it opens the debug
# log (4) and the authorizer (5), and the log's file is written with the views' terminal_json,
# so it comes after them; the views above never use it.


def parse_header_option(text):
    name, sep, value = text.partition(":")
    if not sep or not name.strip() or any(c in name.strip() for c in " \t"):
        # Not echoed: a header without its colon is still likely to hold a token.
        raise UsageError("--header needs 'Name: value' (a name without spaces, a colon, then the value)")
    if any(c in text for c in "\r\n\0"):
        raise UsageError("--header %r has a line break or NUL, which would inject another header" % name.strip())
    return name.strip(), value.strip()


def parse_env_option(text):
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise UsageError("--env needs K=V, got %r" % text)
    return name, value


def expand_config_value(value, where, registry):
    """${VAR} and ${env:VAR} from the environment, in strings, lists and objects."""
    if isinstance(value, dict):
        return {k: expand_config_value(v, where, registry) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_config_value(v, where, registry) for v in value]
    if not isinstance(value, str):
        return value

    def substitute(match):
        name, default = match.group(1), match.group(2)
        if name.startswith("env:"):
            name = name[4:]
        elif name.startswith("input:"):
            raise UsageError("%s uses ${%s}, a VS Code input, which mcp-tui does not prompt for" % (where, name),
                             hint="put the value in an environment variable and write ${env:NAME} there")
        if name not in os.environ:
            if default is not None:  # ${VAR:-default}, as Claude Code's .mcp.json has it: the default when unset
                return default
            raise UsageError("%s uses ${%s}, which is not set in the environment" % (where, match.group(1)))
        registry.add(os.environ[name], "env")  # config files put their keys in variables
        return os.environ[name]

    # ${input:ID} (ids have dashes), or ${VAR} / ${env:VAR}, either with an optional :-default
    return re.sub(r"\$\{(input:[^}]*|[A-Za-z_][A-Za-z0-9_:]*?)(?::-([^}]*))?\}", substitute, value)


# A string (kept), or a comment. An unclosed string or comment runs to the end of its line or
# of the text, matched once: retried at every later quote or "/*", it made a 120 KB file quadratic.
JSONC_COMMENT = r'("(?:[^"\\\n]|\\.)*"?)|//[^\n]*|/\*(?:.*?\*/|.*)'
JSONC_TRAILING_COMMA = r'("(?:[^"\\\n]|\\.)*"?)|,(\s*[}\]])'


def load_jsonc(text):
    """JSON, or JSON with comments and trailing commas: VS Code's mcp.json is JSONC, and
    its own documented examples have comments. Strict JSON's error when neither reads."""
    try:
        return json.loads(text)
    except ValueError as exc:
        strict_error = exc
    lenient = re.sub(JSONC_COMMENT, lambda m: m.group(1) or " ", text, flags=re.S)
    lenient = re.sub(JSONC_TRAILING_COMMA, lambda m: m.group(1) or m.group(2), lenient)
    try:
        return json.loads(lenient)
    except ValueError:
        raise strict_error


def config_server_spec(path, name, protocol, registry):
    """A server of a Claude Desktop / .mcp.json (mcpServers) or VS Code (servers) file (the
    only one when ``name`` is None) as a ConnectionSpec, its ${VAR}s expanded. Each expanded
    value and each header value is registered in ``registry`` here, once; the spec's ``shown``
    twin keeps the ${VAR}s as the file has them, for what the TUI shows and copies."""
    name, entry = read_config_server(path, name)
    where = "server %r in %s" % (name, path)
    spec = spec_from_config_entry(expand_config_value(entry, where, registry), protocol, where,
                                  (os.path.abspath(path), name))
    register_header_secrets(spec.headers, registry)
    spec.shown = spec_from_config_entry(entry, protocol, where)
    return spec


def read_config_server(path, name):
    """The server's name and its entry as the file has it."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            data = load_jsonc(handle.read())
    except OSError as exc:
        raise UsageError("cannot read --config %s: %s" % (path, exc.strerror or exc))
    except ValueError as exc:
        raise UsageError("--config %s is not valid JSON: %s" % (path, exc))
    servers = config_entries(data)
    if not isinstance(servers, dict) or not servers:
        raise UsageError("--config %s lists no servers (mcpServers or servers)" % path)
    if name is None:
        if len(servers) != 1:
            raise ConfigChoiceNeeded("--config %s has several servers; pick one with --server (%s)" % (
                path, ", ".join(sorted(servers))))
        name = next(iter(servers))
    if name not in servers:
        raise UsageError("--config %s has no server %r (it has: %s)" % (path, name, ", ".join(sorted(servers))))
    return name, servers[name]


def config_entries(data):
    """The servers a config file's JSON lists (Claude Desktop's mcpServers, VS Code's servers
    or its settings' mcp.servers), by name; anything else is no list of servers."""
    if not isinstance(data, dict):
        return None
    mcp = data.get("mcp") if isinstance(data.get("mcp"), dict) else {}
    return data.get("mcpServers") or data.get("servers") or mcp.get("servers")


class ConfigChoiceNeeded(UsageError):
    """A config file lists several servers and --server did not pick one."""


CONFIG_URL_KEYS = ("url", "httpUrl", "serverUrl")  # Claude and VS Code; Gemini CLI's streamable HTTP; Windsurf
CONFIG_ENTRY_FIELDS = tuple((key, str) for key in CONFIG_URL_KEYS) + (
    ("command", str), ("cwd", str), ("type", str), ("transport", str), ("args", list), ("env", dict), ("headers", dict))


def config_url(entry):
    """An entry's server URL, under whichever key its client's file format uses."""
    return next((entry[key] for key in CONFIG_URL_KEYS if entry.get(key)), None)


def check_config_entry(entry, where):
    """A hand-written entry of the wrong shape is a usage error naming the field, not a crash."""
    if not isinstance(entry, dict):
        raise UsageError("the %s is %s, not an object (command and args, or url)" % (where, a_json_type(entry)))
    for key, kind in CONFIG_ENTRY_FIELDS:
        if entry.get(key) is not None and not isinstance(entry[key], kind):
            raise UsageError("the %s: %s is %s, not %s" % (where, key, a_json_type(entry[key]), a_json_type(kind())))
    for key in ("env", "headers"):
        for name, value in (entry.get(key) or {}).items():
            if not isinstance(value, str):
                raise UsageError("the %s: %s %r is %s, not a string" % (where, key, name, a_json_type(value)))


def spec_from_config_entry(entry, protocol, where, source=None):
    """One mcpServers / servers entry as a ConnectionSpec (its env and headers applied);
    ``source`` is (config file, server name), what the task ledger records."""
    check_config_entry(entry, where)
    if config_url(entry):
        kind = "sse" if "sse" in (entry.get("type"), entry.get("transport")) else "http"
        spec = ConnectionSpec(kind, url=config_url(entry), headers=entry.get("headers") or {}, protocol=protocol,
                              source=source)
        spec.oauth = entry.get("oauth") if isinstance(entry.get("oauth"), dict) else None
        return spec
    if entry.get("command"):
        return ConnectionSpec("stdio", argv=[entry["command"]] + [str(a) for a in entry.get("args") or ()],
                              env=entry.get("env") or {}, cwd=entry.get("cwd"), protocol=protocol, source=source)
    raise UsageError("the %s has neither command nor url" % where)


COMMAND_WORDS = ("server", "ping", "tool", "tools", "resource", "resources", "prompt", "prompts", "complete",
                 "rpc", "task", "tasks", "watch", "auth", "session", "sessions", "snapshot", "diff",
                 "replay", "check", "completion", "skill", "skills")
SESSION_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"  # compiled on first use


def check_session_name(name):
    if not re.match(SESSION_NAME, name):
        raise UsageError("%r is not a session name: letters, digits, '.', '_' and '-', up to 64" % name)
    return name


def spec_from_options(opts, words, registry):
    """The connection the user gave on the command line, and the words left for the command;
    the credentials in it go to ``registry`` (the run's SecretRegistry)."""
    session = getattr(opts, "session", None)
    if words and words[0].startswith("@") and len(words[0]) > 1:
        session, words = words[0][1:], words[1:]
    if session is not None:
        if opts.url or opts.cmd or opts.config:
            raise UsageError("a session (@%s) is already connected; leave out the connection flags" % session)
        ignored = [flag for flag, given in (
            ("--protocol-version", opts.protocol != "auto"), ("--transport", opts.transport != "auto"),
            ("--header", opts.header), ("--bearer", opts.bearer), ("--env", opts.env), ("--cwd", opts.cwd),
            ("--args", opts.args), ("--server", opts.server), ("--insecure", opts.insecure),
            ("--ca-file", opts.ca_file), ("--proxy", getattr(opts, "proxy", None) is not None)) if given]
        if ignored:  # the keeper connected once, with its own: these would be dropped without a word
            raise UsageError("session %s is connected already; %s would change nothing here" % (
                session, ", ".join(ignored)), hint="give the connection's options to `session open`")
        return ConnectionSpec("session", name=check_session_name(session)), words
    given = [flag for flag, value in (("--url", opts.url), ("--cmd", opts.cmd), ("--config", opts.config)) if value]
    if given and words and words[0] not in COMMAND_WORDS and len(words[0].split()) > 1:
        given.append("a stdio command line")  # or it would be "unknown command 'python3 server.py'"
    if len(given) > 1:
        raise UsageError("two connections given (%s); give one" % " and ".join(given[:2]))
    headers = option_headers(opts, registry)
    env = dict(parse_env_option(e) for e in opts.env)
    if opts.config:
        try:
            spec = config_server_spec(opts.config, opts.server, opts.protocol, registry)
        except ConfigChoiceNeeded:
            if not words:
                return None, words  # the TUI's connection screen lists the file's servers
            raise
        spec.headers.update(headers)
        spec.env.update(env)
        spec.cwd = opts.cwd or spec.cwd
        if opts.transport == "sse" and spec.kind == "http":
            spec.kind = "sse"
        return spec, words
    if opts.server:
        raise UsageError("--server needs --config FILE")
    if opts.args and not opts.cmd:
        raise UsageError("--args goes with --cmd")
    if opts.cmd:
        if opts.transport in ("http", "sse"):
            raise UsageError("--transport %s needs --url" % opts.transport)
        argv = [opts.cmd] + list(opts.args)
        return ConnectionSpec("stdio", argv=argv, env=env, cwd=opts.cwd, protocol=opts.protocol), words
    target = opts.url
    if target is not None:
        check_url_option(target)
    if not target and words and words[0] not in COMMAND_WORDS:
        target, words = words[0], words[1:]
    if not target:
        return None, words
    return build_spec(target, opts.transport, opts.protocol, headers, env, opts.cwd), words


def check_url_option(url):
    """--url takes an http(s) URL: anything else would be run as a stdio program, and
    fail as "no such program"."""
    if url.startswith(("http://", "https://")):
        return
    if "://" in url:
        raise UsageError("--url takes an http:// or https:// URL, not %s://" % url.partition("://")[0])
    if not url.strip() or " " in url.strip():
        hint = "a stdio server is given without --url, as one quoted command line"
    else:
        hint = "did you mean --url %s?" % masked_url("http://" + url)
    raise UsageError("--url takes an http:// or https:// URL", hint=hint)


def build_spec(target, transport="auto", protocol="auto", headers=None, env=None, cwd=None):
    """A ConnectionSpec from what the user typed, on the command line or in the TUI's
    connection screen: a URL, or a stdio command line split as its platform's shell would."""
    if target.startswith(("http://", "https://")):
        if transport == "stdio":
            raise UsageError("--transport stdio needs a command, not a URL")
        return ConnectionSpec("sse" if transport == "sse" else "http", url=target, headers=headers,
                              protocol=protocol, sse_fallback=transport != "http")
    if transport in ("http", "sse"):
        raise UsageError("--transport %s needs --url" % transport)
    try:
        argv = split_command_line(target)
    except ValueError as exc:
        raise UsageError("cannot split the server command %r: %s" % (target, exc))
    if not argv:
        raise UsageError("the server command is empty")
    return ConnectionSpec("stdio", argv=argv, env=env, cwd=cwd, protocol=protocol)


def split_command_line(text, windows=None):
    """Split a stdio server's command line as its platform's shell would, without one.
    Windows keeps backslashes (paths) and drops the quotes around an argument."""
    import shlex

    if windows is None:
        windows = os.name == "nt"
    if not windows:
        return shlex.split(text)
    return [word[1:-1] if len(word) > 1 and word[0] == word[-1] == '"' else word
            for word in shlex.split(text, posix=False)]


class ConfigServer:
    """One server entry from a config file, turned into a ConnectionSpec on demand (the
    ${VAR} expansion may fail, and should fail only for the server the user picks)."""

    def __init__(self, name, path, entry):
        self.name, self.path, self.entry = name, path, entry
        self.source = os.path.basename(path)

    def describe(self):
        entry = self.entry
        if config_url(entry):
            return str(config_url(entry))
        args = entry.get("args") if isinstance(entry.get("args"), list) else []  # a wrong one says so on connect
        return join_command([str(entry.get("command", "?"))] + [str(a) for a in args])

    def spec(self, protocol, registry):
        return config_server_spec(self.path, self.name, protocol, registry)


def config_paths(opts):
    """--config, then the project's .mcp.json and .vscode/mcp.json, then Claude Desktop's and
    VS Code's user files where each platform keeps them."""
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        user = os.path.join(home, "Library", "Application Support")
    elif sys.platform == "win32":
        user = os.environ.get("APPDATA") or os.path.join(home, "AppData", "Roaming")
    else:
        user = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    paths = [opts.config] if opts.config else []
    paths += [os.path.join(os.getcwd(), ".mcp.json"), os.path.join(os.getcwd(), ".vscode", "mcp.json"),
              os.path.join(user, "Claude", "claude_desktop_config.json"),
              os.path.join(user, "Code", "User", "mcp.json")]
    unique = []
    for path in paths:
        if os.path.abspath(path) not in [os.path.abspath(p) for p in unique]:
            unique.append(path)
    return unique


def known_servers(opts):
    servers = []
    for path in config_paths(opts):
        servers += config_file_servers(path) or []
    return servers


def config_file_servers(path):
    """The servers a config file lists, or None when it is not one (missing, not JSON, no
    server entries)."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            data = load_jsonc(handle.read())
    except (OSError, ValueError):
        return None
    entries = config_entries(data)
    if not isinstance(entries, dict):
        return None
    return [ConfigServer(name, path, entry) for name, entry in entries.items() if isinstance(entry, dict)]


def auth_headers(options):
    """The Authorization header the user gave: --bearer, or $MCP_TUI_BEARER."""
    bearer = options.bearer or os.environ.get("MCP_TUI_BEARER")
    if bearer and any(c in bearer for c in "\r\n\0"):  # not echoed: it is a credential
        raise UsageError("%s has a line break or NUL, which would inject another header" % (
            "--bearer" if options.bearer else "$MCP_TUI_BEARER"))
    return {"Authorization": "Bearer " + bearer} if bearer else {}


def option_headers(options, registry):
    """Every header the user gave (-H, --bearer), each value registered in ``registry``
    (the HttpClient registers them again for a spec built elsewhere: the TUI, the keeper)."""
    headers = dict(parse_header_option(h) for h in options.header)
    headers.update(auth_headers(options))
    register_header_secrets(headers, registry)
    return headers


def load_stub(flag, text):
    """--elicit-stub / --sampling-stub text as the responder wants it."""
    if text is None:
        return None
    if flag == "--sampling-stub":
        try:
            value = strict_json(text)
        except (ValueError, RecursionError):
            value = None  # the check says what is expected
        return check_sampling_stub(value)
    if text in ("decline", "cancel"):
        return text
    value = load_json_argument(text, flag)
    if not isinstance(value, dict):
        raise UsageError("--elicit-stub must be a JSON object (or decline / cancel)")
    return value


def make_log(options, credentials):
    """The debug log of one run, masking the run's ``credentials`` (a SecretRegistry, the
    OAuth secrets the user gave added), with --log-file attached."""
    log = DebugLog(credentials=credentials)
    for secret in (options.client_secret, os.environ.get("MCP_TUI_CLIENT_SECRET"), options.id_token):
        credentials.add(secret)
    if options.log_file:
        try:
            handle = open_private(options.log_file)
        except OSError as exc:
            raise UsageError("cannot open --log-file %s: %s" % (options.log_file, exc.strerror or exc))
        lock = threading.Lock()

        def write(entry):
            line = terminal_json(entry)  # controls escaped: a `cat` or `tail -f` of the file stays safe
            with lock:
                handle.write(line + "\n")
                handle.flush()

        log.sinks.append(write)
    if getattr(options, "record", None):
        try:
            recorder = MessageRecorder(open_private(options.record), credentials)
        except OSError as exc:
            raise UsageError("cannot open --record %s: %s" % (options.record, exc.strerror or exc))
        log.record_to(recorder)
    return log


class KeptSessions:
    """The sessions keepers hold (section 9), by name: the keeper's address (a Unix socket
    beside this file, or a loopback port), its token, its process and what `session list`
    shows; while `session open` starts a keeper, a record {"opening": true} with the same
    token holds the name. One private file in the state directory."""

    def __init__(self, path=None, warn=None):
        self.store = JsonStateFile(path or os.path.join(state_directory(), "sessions.json"), valid_session_record,
                                   warn)

    def read(self):
        return self.store.read()

    def update(self, change):
        """Run ``change(entries)`` under the file's lock, write them back; return what it returned."""
        return self.store.update(change)

    def get(self, name):
        return self.read().get(name)

    def remove(self, name, token=None):
        """Drop ``name`` (only the keeper with ``token``, if given: a new one may own it now),
        and the socket a killed keeper left behind."""
        def change(data):
            if name in data and (token is None or data[name].get("token") == token):
                return data.pop(name)
            return None
        removed = self.update(change)
        if removed is not None and "socket" in removed:
            try:
                os.unlink(keeper_address(removed))
            except OSError:
                pass  # its keeper removed it when it stopped


def valid_session_record(name, record):
    """A record a keeper of this version wrote (anything else is skipped, not trusted)."""
    return (isinstance(record, dict) and bool(re.match(SESSION_NAME, name)) and isinstance(record.get("token"), str)
            and is_number(record.get("pid")) and (is_number(record.get("port")) or isinstance(record.get("socket"), str)
                                                  or record.get("opening") is True))


def still_opening(record):
    """A name held by a `session open` that is still starting its keeper (not one that was killed)."""
    return bool(record.get("opening")) and process_running(record["pid"])


def attach_kept_session(name, timeout):
    """(KeeperTransport, handshake state) for the session ``name``; a dead keeper's stale
    record is removed, and the error says so."""
    sessions = KeptSessions()
    record = sessions.get(name)
    if record is not None and record.get("opening"):  # a `session open` holds the name
        if still_opening(record):
            raise ConnectionFailed("session %r is still opening" % name,
                                   hint="use it once `mcp-tui session open %s` has finished" % name)
        sessions.remove(name, record["token"])  # that `session open` was killed
        record = None
    if record is None:
        raise ConnectionFailed("no session named %r" % name,
                               hint="a session ends with `session close`, after --idle minutes unused, or when its "
                                    "server exits; open it with: mcp-tui session open %s CONNECTION" % name)
    if "ended" in record:  # said once, then forgotten
        sessions.remove(name, record["token"])
        raise ConnectionFailed("session %r has ended: %s" % (name, record["ended"]),
                               hint="open it again with: mcp-tui session open %s CONNECTION" % name)
    transport = KeeperTransport(name, record)
    try:
        reply = transport.hello("attach", timeout=min(timeout, 10.0))
    except KeeperGone:
        transport.close()
        sessions.remove(name, record["token"])
        raise ConnectionFailed("session %r has ended: its keeper is no longer running (removed its stale record)"
                               % name, hint="open it again with: mcp-tui session open %s CONNECTION" % name)
    return transport, reply["state"]


def added_request_meta(options):
    """--meta and --tool-meta, read as tool arguments are (KEY=VALUE, KEY:=JSON, KEY=@FILE):
    the _meta keys for every request and for tools/call. The names MCP reserves for itself
    (a prefix whose second label is modelcontextprotocol or mcp) are refused."""
    added = []
    for flag, words in (("--meta", getattr(options, "meta", ())), ("--tool-meta", getattr(options, "tool_meta", ()))):
        try:
            meta = parse_arguments(words or ())
        except UsageError as exc:
            raise UsageError("%s: %s" % (flag, exc.message), hint=exc.hint)
        for key in meta:
            labels = key.rpartition("/")[0].split(".") if "/" in key else ()
            if len(labels) > 1 and labels[1] in ("modelcontextprotocol", "mcp"):
                raise UsageError("%s %s: names under %s/ are reserved for MCP itself" % (flag, key, key.split("/")[0]),
                                 hint="choose a name of your own, such as trace_id or com.example/trace_id")
        added.append(meta)
    return tuple(added)


def connect(spec, options, responder, log, observers=(), deadline=None, resume=None, notice=None, tell=None,
            browser_step=None, started=None):
    """Open a session to ``spec`` as the options say: the one way the CLI, the TUI and the
    keeper connect. ``deadline`` (time.monotonic) bounds everything the session does;
    ``resume`` is a recorded legacy HTTP session to continue instead of a handshake
    (Session.session_record); ``notice`` hears what the user should know about the session,
    and ``tell`` what they must act on now (an authorization URL to open), unless
    ``browser_step`` shows that step itself (Authorizer.browser_step); ``started(session)``
    sees the session before it opens, so another thread can close it to abandon the attempt.
    On failure the session is closed, and the error carries the server's last stderr lines
    (``stderr_lines``)."""
    network = NetworkOptions.from_options(options)
    if spec.url:
        split_http_url(spec.url)  # before anything reads it (the authorizer first)
    spec.auth = spec.auth or authorizer_for(spec, options, log, tell or notice or (lambda text: None), network)
    if spec.auth is not None and browser_step is not None:
        spec.auth.browser_step = browser_step
    session = Session(spec, responder, log, timeout=options.timeout, max_time=options.max_time,
                      probe_timeout=options.probe_timeout, network=network,
                      log_level=options.log_level, max_message_size=options.max_message_size,
                      max_pages=options.max_pages, deadline=deadline, cache=not options.no_cache)
    session.added_meta = added_request_meta(options)
    session.observers.extend(observers)
    if getattr(options, "advertise_apps", False):  # the TUI and the keeper have no such option
        session.extensions[APPS_EXTENSION] = {"mimeTypes": [APP_MIME_TYPE]}
    if notice is not None:
        session.notice = notice
    if started is not None:
        started(session)
    try:
        if spec.kind == "session":
            session.adopt(*attach_kept_session(spec.name, options.timeout))
        elif resume:
            session.resume(resume)
        else:
            session.open()
    except BaseException as exc:
        exc.stderr_lines = session.stderr_lines()
        session.close()
        raise
    return session


# ======================================================================================
# 7. CLI: words in, one Session call, text or JSON out
#
# Uses sections 1-6. Results go to stdout; progress, notices and errors to stderr; exit
# codes 0/1/2/130. The CLI never looks at the era: the session and the task adapters
# answer every question that depends on it. Its verbs include `auth` (the token store) and
# `session`, which starts a keeper process (section 9) and lists and closes kept sessions.
# ======================================================================================

HELP_EPILOG = """\
commands:
  server                         name, version, era, protocol, capabilities, instructions
  ping
  tool list | tool describe NAME | tool call NAME [k=v | k:=JSON | k=@file | -] ...
  resource list | resource templates | resource read URI
  resource subscribe URI [--for SECONDS]    resource unsubscribe URI
  watch [--resource URI ...] [--for SECONDS]     print notifications as they arrive, until Ctrl+C
  prompt list | prompt get NAME [k=v ...]
  complete prompt NAME ARG=PARTIAL [k=v ...]    complete resource TEMPLATE VAR=PARTIAL
  rpc METHOD [JSON]              any request, as raw JSON
  task support | task get ID | task result ID | task cancel ID | task list
  task update ID --input-responses JSON
  session open NAME [connection] | session list | session close NAME | --all
                                 keep a server connected; then: mcp-tui @NAME COMMAND ...
  auth login | auth status | auth logout [--all]   OAuth tokens (stored in auth.json)
  snapshot [-o FILE]             the server's tools, prompts and resources as JSON, to keep in git
  diff SNAPSHOT | diff OLD.json NEW.json   breaking, additive and cosmetic changes (exit 1 on breaking)
  replay FILE [--ignore PATH]    send a --record FILE's requests again and compare the answers (exit 1 on any)
  check [--call 'NAME k=v ...'] [--call-readonly] [--junit FILE] [--strict]
                                 check the server against the spec's rules, without side effects
  completion bash|zsh|fish       a shell completion script (source <(mcp-tui completion bash))
  skill list | skill get NAME|URI   skills (io.modelcontextprotocol/skills): files, sizes, digests
  skill verify [NAME|URI] [--require-digests]    read every file, check size and SHA-256 (exit 1 on a mismatch)
  skill fetch NAME|URI -o DIR    the same checks, then the skill's files written under DIR

examples:
  mcp-tui "python3 tests/testserver.py" tool list
  mcp-tui --url http://127.0.0.1:8080/mcp tool call echo message=hello
  mcp-tui --url http://127.0.0.1:8080/mcp tool call render_report quarter=Q3 --task --wait
  mcp-tui session open dev "python3 tests/testserver.py" && mcp-tui @dev tool list

exit codes: 0 success (a tool result with isError is a result), 1 failure (server error,
connection, timeout, failed task), 2 bad usage, 130 interrupted (Ctrl+C), 143 SIGTERM,
129 SIGHUP.
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where Ctrl+C raises KeyboardInterrupt, so that the same
    clean-up runs: the request in flight is cancelled, a task's follow-up line is printed
    and the stdio server's process group is stopped."""

    def __init__(self, signum, name):
        super().__init__(name)
        self.signum = signum
        self.name = name


class TerminationSignals:
    """SIGTERM (a kill, `timeout`, a service manager) and SIGHUP (a closed terminal or SSH
    session) end a CLI run the way Ctrl+C does; dying at once left a stdio server running
    under PID 1. Only the first one interrupts, and none once the run is closing: a second
    must not cut the clean-up short. An ignored signal (nohup) stays ignored; Windows has
    no SIGHUP. A run that got one exits 128 + N, as the shell reports a death by signal N."""

    def __init__(self):
        self.received = None
        self.interrupting = True
        self._previous = {}

    def install(self):
        import signal

        for name in ("SIGTERM",) if os.name == "nt" else ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            try:
                if number is not None and signal.getsignal(number) == signal.SIG_DFL:
                    self._previous[number] = signal.signal(number, self._interrupt)
            except ValueError:  # not the main thread: whoever runs main() there owns the signals
                return

    def _interrupt(self, signum, frame):
        if self.received is None:
            self.received = signum
            if self.interrupting:
                import signal

                raise Terminated(signum, signal.Signals(signum).name)

    def closing(self):
        self.interrupting = False

    def restore(self):
        if not self._previous:  # nothing installed (--help, --version, the TUI): signal stays unloaded
            return
        import signal

        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def exit_code(self, code):
        return code if self.received is None else 128 + self.received


LIVE_LINE_CLEAR = "\r\x1b[K"  # back to the line's start, and erase it


class Output:
    """Results on stdout; progress, notices and errors on stderr; text or JSON."""

    KEPT_NOTIFICATIONS = 1000  # --format json: the last ones (KEPT_NOTIFICATION_BYTES), and a count of all by method
    OTHER_METHODS = "(other methods)"  # where the counts go past KEPT_NOTIFICATIONS different methods

    def __init__(self, fmt="text", quiet=False, stdout=None, stderr=None, credentials=None):
        import collections

        self.json = fmt == "json"
        self.quiet = quiet
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.credentials = credentials if credentials is not None else SecretRegistry()  # the run's
        self.notifications = KeptTail(self.KEPT_NOTIFICATIONS, KEPT_NOTIFICATION_BYTES)
        self.notification_counts = collections.Counter()
        self.warnings = []
        self._declined = [None, 0]  # the last decline said, and how many times it came again since
        self._declines_lock = threading.Lock()
        self._announced = set()
        self._hidden = {}
        self._gone = set()  # streams whose reader has gone away
        self._lock = threading.Lock()
        self._progress_ended = False  # the command's last word is said: no "⏳ progress" after "interrupted"
        self._live = False  # a live() line is on the terminal, not ended by a newline

    def _write(self, stream, text, live=None):
        """``live``: whether ``text`` leaves a live() line open (set under the lock that the
        next writer reads it with, so no line lands on the end of the status line)."""
        if stream is self.stderr:
            text = self.credentials.redact(text)  # errors, progress, --debug, --trace: a server may echo one
        with self._lock:
            if stream in self._gone:
                return
            if stream is self.stderr and self._live and not text.startswith(LIVE_LINE_CLEAR):
                text, self._live = LIVE_LINE_CLEAR + text, False  # other stderr text starts on a clean line
            if live is not None:
                self._live = live
            try:
                stream.write(text)
                stream.flush()
            except UnicodeEncodeError:
                stream.write(text.encode(stream.encoding or "ascii", "replace").decode(stream.encoding or "ascii"))
                stream.flush()
            except OSError as exc:
                import errno

                if not isinstance(exc, BrokenPipeError) and exc.errno != errno.EINVAL:
                    raise
                # The reader went away (`mcp-tui ... | head`; Windows says EINVAL for a closed
                # pipe): stop writing there, quietly, and point the descriptor at devnull so
                # that the flush at exit does not fail either.
                self._gone.add(stream)
                try:
                    os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
                except (OSError, ValueError):
                    pass

    def _write_json(self, stream, text):
        """JSON text as the stream can carry it: on a stream that is not UTF-8 (a Windows code
        page, PYTHONIOENCODING=cp1252) every non-ASCII character goes as a \\u escape, so
        the JSON says the same and nothing becomes "?"."""
        import codecs

        try:
            utf = codecs.lookup(getattr(stream, "encoding", None) or "ascii").name.startswith("utf")
        except LookupError:
            utf = False
        if not utf and not text.isascii():
            text = re.sub(r"[^\x00-\x7f]", lambda match: json.dumps(match.group()).strip('"'), text)
        self._write(stream, text)

    def stderr_line(self, text):
        """A line on stderr whatever the format (the --debug and --trace streams)."""
        self._write(self.stderr, clean(text) + "\n")

    def progress(self, text):
        if not (self.quiet or self.json or self._progress_ended):
            self._write(self.stderr, clean(text) + "\n")

    def shows_live(self):
        """Whether live() lines show: on a terminal, without --quiet or JSON output."""
        return not (self.quiet or self.json) and self.stderr.isatty()

    def live(self, text=None):
        """One status line on a terminal, rewritten in place while work runs (``None`` clears
        it); nothing on a pipe or a file, with --quiet or with JSON output."""
        if not self.shows_live():
            return
        try:
            columns = os.get_terminal_size(self.stderr.fileno()).columns
        except (OSError, ValueError):
            columns = 80
        line = clean(text)[:max(10, columns - 4)] if text and not self._progress_ended else ""
        self._write(self.stderr, LIVE_LINE_CLEAR + line, live=bool(line))  # wide characters get room: no wrap

    def decline(self, text):
        """A server request declined: said once, its repeats counted and said in one line when
        another decline comes or the output ends (end_declines); nothing with --quiet."""
        if self.quiet:
            return
        with self._declines_lock:
            if text == self._declined[0]:
                self._declined[1] += 1
                return
            repeats, self._declined = self._declined[1], [text, 0]
        if repeats:
            self.notice("… repeated %d times" % repeats)
        self.notice(text)

    def end_declines(self):
        with self._declines_lock:
            repeats, self._declined[1] = self._declined[1], 0
        if repeats:
            self.notice("… repeated %d times" % repeats)

    def end_progress(self):
        """The command has ended (or failed): what still arrives while it closes is not shown."""
        self._progress_ended = True

    def notice(self, text):
        """A note the user should see even with --quiet (kept in JSON documents)."""
        if self.json:
            self.warnings.append(text)
        else:
            self._write(self.stderr, clean(text) + "\n")

    def text(self, text):
        """``text`` cleaned, ending in one newline. A large one (a 20 MB tool result) is
        cleaned and written a chunk at a time, cut after a newline where there is one, so
        no cleaned, trimmed or encoded copy of the whole is made."""
        self.end_declines()
        length = len(text)
        if length <= OUTPUT_CHUNK:
            self._write(self.stdout, clean(text).rstrip("\n") + "\n")
            return
        start = 0
        while start < length:
            stop = min(start + OUTPUT_CHUNK, length)
            if stop < length:
                newline = text.rfind("\n", start, stop)
                stop = newline + 1 if newline > start else stop
            chunk = clean(text[start:stop])
            start = stop
            self._write(self.stdout, chunk if start < length else chunk.rstrip("\n") + "\n")

    def document(self, value):
        self._write_json(self.stdout, self.document_text(value))

    def document_text(self, value):
        """The JSON document of a result, with the run's notifications and warnings in it."""
        self.end_declines()
        if isinstance(value, dict):
            value = dict(value)
            if self.notifications:
                value["notifications"] = list(self.notifications)
            if sum(self.notification_counts.values()) > len(self.notifications):
                value["notificationCounts"] = dict(self.notification_counts)  # the ones not kept are counted
            if self.warnings:
                value["warnings"] = self.warnings
        return terminal_json(value, indent=2) + "\n"

    def hide_in_errors(self, task_id):
        """Task IDs may be bearer tokens: an error names the task by its fingerprint."""
        self._hidden[task_id] = "task:" + fingerprint(task_id)

    def _without_task_ids(self, text):
        for task_id, label in self._hidden.items():
            text = text.replace(task_id, label)
        return text

    def error(self, exc):
        self.end_declines()
        if self.json:
            # The notices come along unmasked, as text output shows them: one may be the
            # `task get` command of a --wait that stopped, the only place a script finds the ID.
            notices = ', "warnings": ' + terminal_json(self.warnings) if self.warnings else ""
            self._write_json(self.stderr, '{"error": %s%s}\n' % (
                self._without_task_ids(terminal_json(exc.to_json())), notices))
            return
        line = "mcp-tui: " + describe_failure(exc)
        line = " ".join(part.strip() for part in line.splitlines() if part.strip())  # a server's pretty JSON too
        self._write(self.stderr, clean(self._without_task_ids(line)) + "\n")

    def notification_line(self, message):
        """`watch`: one line per notification on stdout (one JSON object per line with --format json)."""
        if self.json:
            params = message.get("params")
            line = terminal_json({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                  "method": message.get("method"),
                                  "params": params if isinstance(params, dict) else {}})
            self._write_json(self.stdout, line + "\n")
            return
        self.text("%s %s" % (time.strftime("%H:%M:%S"), notification_text(message)))

    def on_notification(self, message):
        method, params = message.get("method", ""), message.get("params")
        params = params if isinstance(params, dict) else {}
        if not isinstance(method, str) or method == "notifications/subscriptions/acknowledged":
            return
        method = cut_text(method, KEPT_FIELD_LIMIT)
        if self.json:
            self.notifications.append(message)
            counts = self.notification_counts
            counts[method if method in counts or len(counts) < self.KEPT_NOTIFICATIONS else self.OTHER_METHODS] += 1
            return
        if method == "notifications/progress":
            self.progress("⏳ " + progress_text(params))
        elif method == "notifications/message":
            self.progress("📣 " + log_text(params))
        elif method.startswith("notifications/tasks"):
            return  # the task waiter reports status changes itself
        elif method.endswith("/list_changed"):
            if method not in self._announced and len(self._announced) < self.KEPT_NOTIFICATIONS:
                self._announced.add(method)  # servers often send bursts; one line says it
                self.progress("🔔 %s" % method[len("notifications/"):])
        else:
            self.progress("🔔 %s" % method)
def size_option(text):
    """--max-message-size: bytes, or a number with K, M or G (powers of 1024)."""
    import argparse

    match = re.match(r"^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$", text, re.I)
    if not match or int(match.group(1)) <= 0:
        raise argparse.ArgumentTypeError("%r is not a size (try 64M)" % text)
    return int(match.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[match.group(2).lower()]


# The options, as data. argparse reads them to build the parser, which is only needed for
# --help, --version and a command line with a mistake in it: importing and building it costs
# ~9 ms of a ~70 ms command, so a common command line is read by parse_common_command_line
# from the same table instead (tests/test_cli_parsing.py checks that both readers agree).
CLI_OPTIONS = (
    ("connection", (
        (("--url",), dict(help="Streamable HTTP endpoint (or HTTP+SSE with --transport sse)")),
        (("--transport",), dict(choices=("auto", "stdio", "http", "sse"), default="auto")),
        (("--cmd",), dict(metavar="PROG", help="stdio server program (run without a shell)")),
        (("--args",), dict(action="append", default=[], metavar="ARG", help="argument for --cmd")),
        (("--env",), dict(action="append", default=[], metavar="K=V", help="environment for a stdio server")),
        (("--cwd",), dict(metavar="DIR", help="working directory for a stdio server")),
        (("-H", "--header"), dict(action="append", default=[], metavar="'NAME: VALUE'",
                                  help="HTTP header on every request (repeatable)")),
        (("--bearer",), dict(metavar="TOKEN", help="Authorization: Bearer TOKEN (or $MCP_TUI_BEARER)")),
        (("--config",), dict(metavar="FILE", help="mcpServers / servers JSON file")),
        (("--server",), dict(metavar="NAME", help="the server to use from --config")),
        (("--protocol-version",), dict(dest="protocol", choices=PROTOCOL_CHOICES, default="auto", metavar="VERSION",
                                       help="auto (default), %s" % ", ".join(PROTOCOL_CHOICES[1:]))),
        (("--timeout",), dict(type=float, default=60.0, metavar="SECONDS",
                              help="bound on every request and on --wait (default 60); progress restarts it")),
        (("--max-time",), dict(type=float, metavar="SECONDS",
                               help="hard cap on the whole command, pagination and progress included (without it, "
                                    "each request stops at 10x --timeout)")),
        (("--max-message-size",), dict(type=size_option, default=DEFAULT_MAX_MESSAGE, metavar="BYTES",
                                       help="largest message accepted from the server (default 64M; K, M, G "
                                            "suffixes)")),
        (("--max-pages",), dict(type=int, default=DEFAULT_MAX_PAGES, metavar="N",
                                help="most pages read from one paginated list (default %d)" % DEFAULT_MAX_PAGES)),
        (("--probe-timeout",), dict(type=float, default=5.0, metavar="SECONDS",
                                    help="how long a stdio server may stay silent to server/discover (default 5)")),
        (("--insecure",), dict(action="store_true", help="do not verify TLS certificates")),
        (("--no-cache",), dict(action="store_true",
                               help="ask the server every time: no server/discover or list result kept between "
                                    "commands (2026-07-28 servers say how long one stays fresh)")),
        (("--ca-file",), dict(metavar="FILE", help="CA bundle for TLS")),
        (("--proxy",), dict(metavar="URL", help="HTTP proxy for every request, http://[USER:PASSWORD@]HOST:PORT "
                                                "('' for none; default: https_proxy, http_proxy, all_proxy and "
                                                "no_proxy, as curl reads them)")),
    )),
    ("sessions kept open between commands", (
        (("--session",), dict(metavar="NAME", help="run the command through session NAME (same as @NAME)")),
        (("--idle",), dict(type=float, default=30.0, metavar="MINUTES",
                           help="session open: close the session after MINUTES unused (default 30)")),
    )),
    ("output", (
        (("--format",), dict(choices=("text", "json"), default="text")),
        (("-q", "--quiet"), dict(action="store_true", help="no progress lines on stderr")),
        (("--debug",), dict(action="store_true", help="print the debug log live on stderr")),
        (("--trace",), dict(action="store_true", help="print the HTTP trace on stderr (secrets masked)")),
        (("--log-file",), dict(metavar="PATH", help="write the debug log as JSON lines")),
        (("--save",), dict(metavar="DIR", help="save binary contents (images, audio, blobs) into DIR")),
        (("-o", "--output"), dict(metavar="FILE",
                                  help="tool call, resource read, prompt get, rpc: write the result to FILE (the "
                                       "text, the bytes of a single image/audio/blob, or the JSON with --format "
                                       "json) instead of stdout; snapshot: write the snapshot to FILE; skill fetch: the "
                                       "directory the skill's files go under")),
        (("--log-level",), dict(metavar="LEVEL", choices=LOG_LEVELS,
                                help="ask the server for log messages at LEVEL: %s" % ", ".join(LOG_LEVELS))),
        (("--meta",), dict(action="append", default=[], metavar="KEY=VALUE",
                           help="add KEY to the _meta of every request (repeatable; KEY:=JSON for a JSON value)")),
        (("--tool-meta",), dict(action="append", default=[], metavar="KEY=VALUE",
                                help="the same, for tools/call requests only")),
        (("--dry-run",), dict(action="store_true",
                              help="print the request that tool call, prompt get, resource read, complete or rpc "
                                   "would send, with its HTTP headers, and do not send it")),
    )),
    ("answers to the server's input requests", (
        (("--elicit-stub",), dict(metavar="JSON", help="accept elicitations with this content")),
        (("--sampling-stub",), dict(metavar="JSON", help="answer sampling/createMessage with this")),
        (("--root",), dict(action="append", default=[], metavar="PATH", help="answer roots/list (repeatable)")),
    )),
    ("tool calls and tasks", (
        (("--args-json",), dict(metavar="JSON", help="the whole arguments object (- reads stdin, @FILE a file)")),
        (("--task",), dict(action="store_true", help="call the tool as a task")),
        (("--ttl",), dict(type=int, metavar="MS", help="task lifetime to ask for (2025-11-25)")),
        (("--wait",), dict(action="store_true", help="with --task: follow the task and print its result")),
        (("--strict-errors",), dict(action="store_true", help="exit 1 when a tool result has isError")),
        (("--input-responses",), dict(metavar="JSON", help="task update: the inputResponses object")),
        (("--no-ledger",), dict(action="store_true", help="do not remember or look up task connections")),
    )),
    ("snapshot, diff, record and replay", (
        (("--record",), dict(metavar="FILE", help="append every JSON-RPC message, both ways, to FILE as JSON lines "
                                                  "(credentials masked; the file is private)")),
        (("--ignore",), dict(action="append", default=[], metavar="PATH",
                             help="replay: leave this field out of the comparison, a JSON pointer into the answer "
                                  "(/result/content/0/text; * for any key; repeatable)")),
        (("--fail-on",), dict(choices=("breaking", "additive"), default="breaking",
                              help="diff: exit 1 on breaking changes (default), or on additive ones too")),
    )),
    ("skills and apps", (
        (("--require-digests",), dict(action="store_true",
                                      help="skill verify: a skill whose manifest is \"dynamic\" fails too")),
        (("--advertise-apps",), dict(action="store_true",
                                     help="declare MCP Apps support (io.modelcontextprotocol/ui), for servers that "
                                          "show App tools only to such clients; mcp-tui renders no App")),
    )),
    ("watch and resource subscribe", (
        (("--resource",), dict(action="append", default=[], metavar="URI",
                               help="watch: also subscribe to updates of URI (repeatable)")),
        (("--for",), dict(dest="watch_for", type=float, metavar="SECONDS",
                          help="stop watching after SECONDS (default: until Ctrl+C)")),
    )),
    ("check", (
        (("--call",), dict(action="append", default=[], metavar="'NAME k=v ...'",
                           help="check: also call this tool with these arguments (repeatable)")),
        (("--call-readonly",), dict(action="store_true",
                                    help="check: also call every tool annotated readOnlyHint: true that needs no "
                                         "arguments")),
        (("--junit",), dict(metavar="FILE", help="check: write the findings as JUnit XML into FILE")),
        (("--strict",), dict(action="store_true", help="check: warnings fail the check too (exit 1)")),
    )),
    ("tool call --load: the same call, concurrently, with latency percentiles", (
        (("--load",), dict(action="store_true", help="call the tool again and again over one connection and "
                                                     "report throughput and latencies")),
        (("--load-requests",), dict(type=int, metavar="N", help="--load: stop after N calls (default 100 when "
                                                                "--load-duration is not given)")),
        (("--load-duration",), dict(type=float, metavar="SECONDS", help="--load: stop after SECONDS")),
        (("--load-concurrency",), dict(type=int, default=10, metavar="C", help="--load: calls in flight at once "
                                                                               "(default 10)")),
        (("--load-rate",), dict(type=float, metavar="R", help="--load: start at most R calls a second")),
    )),
    AUTH_OPTIONS,
)


def option_destination(flags, settings):
    """The attribute an option sets, named as argparse names it: its first long flag."""
    if "dest" in settings:
        return settings["dest"]
    long_flags = [flag for flag in flags if flag.startswith("--")]
    return (long_flags or flags)[0].lstrip("-").replace("-", "_")


VERSION_LINE = "mcp-tui " + __version__


def build_parser():
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            missing = re.match(r"argument (?:-\w/)?(--[a-z-]+): expected one argument$", message)
            if missing:  # often a value that starts with "-", which argparse takes for an option
                message += "; a value that starts with '-' is written %s=VALUE" % missing.group(1)
            raise UsageError(message, hint="see mcp-tui --help")

    def formatter(prog):
        # argparse makes a formatter for every add_argument(), and each asks shutil for the
        # terminal width: shutil (with fnmatch, zlib, bz2, lzma) costs 2-6 ms on every start.
        try:
            columns = int(os.environ.get("COLUMNS", "0")) or os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
        return argparse.RawDescriptionHelpFormatter(prog, width=max(columns - 2, 20))

    parser = Parser(prog="mcp-tui", allow_abbrev=False, formatter_class=formatter,
                    usage="mcp-tui [connection] [command ...] [options]",
                    description="Inspect and drive any MCP server: a curl-like CLI, and a TUI when no command "
                                "is given.", epilog=HELP_EPILOG)
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    for title, options in CLI_OPTIONS:
        group = parser.add_argument_group(title)
        for flags, settings in options:
            group.add_argument(*flags, **settings)
    parser.add_argument("words", nargs="*", help=argparse.SUPPRESS)
    return parser


def parse_command_line(argv):
    """Options and words, as argparse reads them (UsageError for a mistake)."""
    options = parse_common_command_line(argv)
    if options is not None:
        return options
    try:
        return build_parser().parse_intermixed_args(argv)
    except UsageError as exc:
        # `mcp-tui npx -y server tool list`: the server's own flags reached argparse
        command_at = next((i for i, word in enumerate(argv) if word in COMMAND_WORDS), None)
        prefix = "unrecognized arguments: "
        unknown = exc.message[len(prefix):].split() if exc.message.startswith(prefix) else ()
        # Only when a word it did not know stands between the server's first word and the
        # command: a mistyped flag after a quoted server is just that (argparse's line says it).
        if command_at and not argv[0].startswith(("-", "@")) and any(w in unknown for w in argv[1:command_at]):
            exc.hint = quote_server_hint(argv[:command_at], argv[command_at:])
        elif unknown and unknown[0].startswith("--"):  # --fromat: did you mean --format?
            known = [flag for _, options in CLI_OPTIONS for flags, _ in options for flag in flags]
            exc.hint = did_you_mean(unknown[0].partition("=")[0], known, exc.hint)
        raise


def quote_server_hint(server_words, command_words):
    """A stdio server's command line split into words: how to give it as one."""
    server = " ".join(shell_word(word) for word in server_words)
    return "quote the server's whole command line as one argument: mcp-tui %s %s" % (
        shell_word(server), " ".join(shell_word(word) for word in command_words))


def parse_common_command_line(argv):
    """The options (a namespace, as argparse gives) of a command line made only of exact
    flags, their values and words, or None: for anything else (-h, --version, --, a flag
    that is not in CLI_OPTIONS, a value that starts with "-" or fails its type or choices)
    argparse decides, with its messages. What this accepts, argparse reads the same way."""
    from types import SimpleNamespace  # loaded already (by re)

    flags = {}
    values = {"words": []}
    for _, options in CLI_OPTIONS:
        for option_flags, settings in options:
            destination = option_destination(option_flags, settings)
            flags.update((flag, (destination, settings)) for flag in option_flags)
            default = settings.get("default", False if settings.get("action") == "store_true" else None)
            values[destination] = list(default) if isinstance(default, list) else default
    position = 0
    while position < len(argv):
        word = argv[position]
        position += 1
        if not word.startswith("-"):
            values["words"].append(word)
            continue
        flag, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if flag not in flags:
            return None
        destination, settings = flags[flag]
        action = settings.get("action")
        if action == "store_true":
            if equals:
                return None
            values[destination] = True
            continue
        if not equals:
            if position == len(argv):
                return None
            value = argv[position]
            position += 1
        if value.startswith("-"):  # argparse has rules of its own for these ("--" is dropped)
            return None
        try:
            value = settings.get("type", str)(value)
        except Exception:  # argparse words the error
            return None
        if value not in settings.get("choices", (value,)):
            return None
        if action == "append":
            values[destination].append(value)
        else:
            values[destination] = value
    return SimpleNamespace(**values)


def write_output_file(path, data):
    """-o FILE: ``data`` (bytes) into FILE, an existing file replaced, as curl -o does."""
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise McpTuiError("cannot write %s: %s" % (path, exc.strerror or exc))


def output_file_payload(method, result, render):
    """-o FILE: the bytes that go in the file, and what they are. The text of a text result
    as the server sent it (it is not going to a terminal, so nothing is cleaned); the decoded
    bytes of a result that is one image, audio or blob; otherwise ``render()``, the text
    stdout would have shown."""
    items = []
    if method == "tools/call":
        blocks = [block for block in result.get("content") or () if isinstance(block, dict)]
        if blocks and all(block.get("type") == "text" for block in blocks):
            return "\n".join(block["text"] for block in blocks).encode("utf-8"), "text"
        if len(blocks) == 1 and blocks[0].get("type") in ("image", "audio"):
            items = [dict(blocks[0], blob=blocks[0].get("data"))]
        elif len(blocks) == 1 and blocks[0].get("type") == "resource" and isinstance(blocks[0].get("resource"), dict):
            items = [blocks[0]["resource"]]
    elif method == "resources/read":
        items = [item for item in result.get("contents") or () if isinstance(item, dict)]
    if len(items) == 1:
        mime = items[0].get("mimeType") if isinstance(items[0].get("mimeType"), str) else None
        if isinstance(items[0].get("text"), str):
            return items[0]["text"].encode("utf-8"), mime or "text"
        raw = base64_bytes(items[0].get("blob")) if isinstance(items[0].get("blob"), str) else None
        if raw is not None:
            return raw, mime or "binary"
    return render().encode("utf-8"), "JSON" if method not in ("tools/call", "resources/read", "prompts/get") else "text"


SUBCOMMANDS = {  # what follows a command word (the handlers and the shell completion read this)
    "tool": ("list", "describe", "call"),
    "resource": ("list", "templates", "read", "subscribe", "unsubscribe"),
    "prompt": ("list", "get"),
    "complete": ("prompt", "resource"),
    "task": ("support", "get", "result", "cancel", "list", "update"),
    "session": ("open", "list", "close"),
    "auth": ("login", "status", "logout"),
    "completion": ("bash", "zsh", "fish"),
}
FILE_METAVARS = ("FILE", "DIR", "PATH")  # an option whose value the shell completes as a file name


def completion_words():
    """What a completion script offers: the commands, the subcommands of each, the flags,
    the values of a flag with choices, and the flags whose value is a file."""
    commands = [word for word in COMMAND_WORDS if not (word.endswith("s") and word[:-1] in COMMAND_WORDS)]
    flags, choices, files, valued = [], {}, [], []
    for _, options in CLI_OPTIONS:
        for option_flags, settings in options:
            flags.extend(option_flags)
            if settings.get("action") == "store_true":
                continue
            valued.extend(option_flags)
            if settings.get("choices"):
                choices.update((flag, [str(c) for c in settings["choices"]]) for flag in option_flags)
            elif settings.get("metavar") in FILE_METAVARS:
                files.extend(option_flags)
    return commands, flags, choices, files, valued


def completion_script(shell):
    """`completion bash|zsh|fish`: the script, made from CLI_OPTIONS, COMMAND_WORDS and
    SUBCOMMANDS; tool names after `tool call` come from `completion tool-names` at TAB time."""
    commands, flags, choices, files, valued = completion_words()
    if shell == "fish":
        lines = ["# mcp-tui completion for fish: mcp-tui completion fish > ~/.config/fish/completions/mcp-tui.fish",
                 "complete -c mcp-tui -f",
                 "complete -c mcp-tui -n __fish_use_subcommand -a '%s'" % " ".join(commands)]
        for command, words in sorted(SUBCOMMANDS.items()):
            lines.append("complete -c mcp-tui -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from"
                         " %s' -a '%s'" % (command, " ".join(words), " ".join(words)))
        lines.append("complete -c mcp-tui -n '__fish_seen_subcommand_from call' -a '(mcp-tui completion tool-names "
                     "2>/dev/null)'")
        for _, options in CLI_OPTIONS:
            for option_flags, settings in options:
                spec = " ".join("-l %s" % f[2:] if f.startswith("--") else "-s %s" % f[1:] for f in option_flags)
                if settings.get("choices"):
                    spec += " -x -a '%s'" % " ".join(choices[option_flags[0]])
                elif option_flags[0] in files:
                    spec += " -r -F"
                elif settings.get("action") != "store_true":
                    spec += " -x"
                lines.append("complete -c mcp-tui %s" % spec)
        return "\n".join(lines) + "\n"
    cases = "".join("        %s) reply=(%s);;\n" % ("|".join(flag for flag in choices if choices[flag] == values),
                                                    " ".join(values))
                    for values in {tuple(v): list(v) for v in choices.values()}.values())
    body = COMPLETION_FUNCTION % dict(
        commands=" ".join(commands), flags=" ".join(flags), valued=" ".join(valued),
        files="|".join(files), choice_cases=cases,
        command_cases="".join("                %s) command=%s;;\n" % (
            "|".join(word for word in COMMAND_WORDS if word in (command, command + "s")), command)
            for command in commands),
        subcommand_cases="".join("        %s) reply=(%s);;\n" % (command, " ".join(words))
                                 for command, words in sorted(SUBCOMMANDS.items())))
    if shell == "zsh":
        return ("#compdef mcp-tui\n# mcp-tui completion for zsh: source <(mcp-tui completion zsh)\n" + body +
                ZSH_COMPLETION_TAIL)
    return "# mcp-tui completion for bash: source <(mcp-tui completion bash)\n" + body + BASH_COMPLETION_TAIL


# One function for bash and zsh: it reads the words before the cursor into `reply`, which
# each shell's tail turns into its own completions (compgen -W / compadd).
COMPLETION_FUNCTION = r"""
_mcp_tui_reply() {
    # $1: the word being completed; the words before it are in _mcp_tui_words
    local cur="$1" prev="" command="" sub="" named="" skip="" w
    reply=()
    for w in "${_mcp_tui_words[@]}"; do
        if [ -n "$skip" ]; then skip=""; prev="$w"; continue; fi
        case " %(valued)s " in *" $w "*) skip=1; prev="$w"; continue;; esac
        case "$w" in -*) prev="$w"; continue;; esac
        if [ -z "$command" ]; then
            case "$w" in
%(command_cases)s            esac
        elif [ -z "$sub" ]; then sub="$w"
        elif [ -z "$named" ]; then named="$w"
        fi
        prev="$w"
    done
    if [ -n "$skip" ]; then
        case "$prev" in
%(choice_cases)s        %(files)s) _mcp_tui_files=1;;
        esac
        return
    fi
    case "$cur" in -*) reply=(%(flags)s); return;; esac
    if [ -z "$command" ]; then reply=(%(commands)s); return; fi
    if [ -z "$sub" ]; then
        case "$command" in
%(subcommand_cases)s        esac
        return
    fi
    if [ "$command $sub" = "tool call" ] && [ -z "$named" ]; then
        reply=($("$_mcp_tui_program" completion tool-names 2>/dev/null))
    fi
}
"""
BASH_COMPLETION_TAIL = r"""
_mcp_tui() {
    local reply _mcp_tui_files="" _mcp_tui_program="${COMP_WORDS[0]}"
    local _mcp_tui_words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
    _mcp_tui_reply "${COMP_WORDS[COMP_CWORD]}"
    if [ -n "$_mcp_tui_files" ]; then
        COMPREPLY=($(compgen -f -- "${COMP_WORDS[COMP_CWORD]}"))
    else
        COMPREPLY=($(compgen -W "${reply[*]}" -- "${COMP_WORDS[COMP_CWORD]}"))
    fi
}
complete -F _mcp_tui mcp-tui
"""
ZSH_COMPLETION_TAIL = r"""
_mcp_tui() {
    local -a reply _mcp_tui_words
    local _mcp_tui_files="" _mcp_tui_program="${words[1]}"
    _mcp_tui_words=("${(@)words[2,CURRENT-1]}")
    _mcp_tui_reply "${words[CURRENT]}"
    if [ -n "$_mcp_tui_files" ]; then
        _files
    else
        compadd -- "${reply[@]}"
    fi
}
compdef _mcp_tui mcp-tui
"""


def cached_tool_names():
    """The tool names of the server whose tools/list a command kept last in cache.json
    (2026-07-28 servers that say how long a list stays fresh; stale ones still name tools)."""
    try:
        entries = JsonStateFile(os.path.join(state_directory(), "cache.json"), valid_cache_entry,
                                durable=False).read()
    except (OSError, McpTuiError):
        return []
    lists = [(key.split(" ")[0], entry) for key, entry in entries.items() if key.split(" ")[1:2] == ["tools/list"]]
    if not lists:
        return []
    server = max(lists, key=lambda item: item[1]["expires"])[0]
    return sorted({tool["name"] for key, entry in lists if key == server for tool in entry["result"].get("tools") or ()
                   if isinstance(tool, dict) and isinstance(tool.get("name"), str) and tool["name"].strip()
                   and not any(c.isspace() for c in tool["name"])})


COMMAND_ALIASES = {"tools": "tool", "resources": "resource", "prompts": "prompt", "tasks": "task", "skills": "skill"}


def command_name(word):
    """The command a word names: a plural is the same command."""
    return COMMAND_ALIASES.get(word, word)


class Cli:
    """One command-line invocation: its options, its output, and its session."""

    def __init__(self, opts, spec, words, output):
        self.opts = opts
        self.spec = spec
        self.words = words
        self.out = output
        self.session = None
        self.background_session = False  # an automatic keeper holds a stdio task's server (main)
        self.responder = None
        self.log = None
        self.ledger = None if opts.no_ledger else TaskLedger(warn=output.notice)
        self.withheld = ()  # --dry-run: the command's own request
        # --max-time bounds the whole command, from here
        self.deadline = time.monotonic() + opts.max_time if opts.max_time else None

    # -- plumbing ---------------------------------------------------------------------

    def connect(self, spec=None, resume=None, observer=None, responder=None, started=None):
        """Open a session (or, with ``resume``, continue a recorded one). ``observer`` sees
        its notifications instead of the progress lines on stderr; ``responder`` answers the
        server's requests instead of the flags and the terminal; ``started`` sees the session
        before it opens."""
        spec = spec or self.spec
        if spec is None:
            raise UsageError("no server given: pass a stdio command, --url URL, or --config FILE",
                             hint="see mcp-tui --help")
        if spec.kind == "session" and self.opts.trace:  # or --trace would print nothing, and say nothing
            self.out.notice("--trace: session %s's keeper makes the HTTP requests; its trace goes to the "
                            "--log-file given to `session open`" % spec.name)
        elif spec.kind == "stdio" and self.opts.trace and not self.opts.debug and self.log is None:
            self.out.notice("--trace shows HTTP requests and SSE events, and a stdio server has none; "
                            "--debug shows every message")
        self.log = self.log or self.make_log()
        ask = terminal_prompt if (sys.stdin.isatty() and sys.stderr.isatty()) else None
        responder = self.responder = responder or InputResponder(
            load_stub("--elicit-stub", self.opts.elicit_stub), load_stub("--sampling-stub", self.opts.sampling_stub),
            self.opts.root, ask, self.out.notice, self.out.decline)
        try:
            self.session = connect(spec, self.opts, responder, self.log, [observer or self.out.on_notification],
                                   self.deadline, resume=resume, notice=self.out.notice, tell=self.out.stderr_line,
                                   started=started)
        except McpTuiError as exc:
            stderr_hint(exc, getattr(exc, "stderr_lines", []))  # none: refused before the session (bad --grant)
            raise
        if resume and self.ledger is not None:  # follow-ups of one session never repeat each other's ids
            self.ledger.share_ids(self.session)
        if self.opts.log_level and "logging" not in self.session.capabilities:  # else it asks for nothing, silently
            self.out.notice("warning: %s does not offer logging (no logging capability); --log-level has no effect"
                            % self.session.display_name())
        if self.withheld:
            self.session.withhold(self.withheld)
        return self.session

    def make_log(self):
        """The debug log, with the --debug / --trace lines echoed on stderr."""
        log = make_log(self.opts, self.out.credentials)
        if self.opts.debug or self.opts.trace:
            wanted = None if self.opts.debug else ("http", "sse")

            def show(entry):
                if wanted is None or entry["type"] in wanted:
                    self.out.stderr_line(format_log_entry(entry))

            log.sinks.append(show)
        return log

    def close(self):
        self.out.end_declines()
        if self.session is not None:
            self.release_session()
            self.session.close()

    def release_session(self):
        """Keep the session for a later run while the ledger holds a running task of it (a
        task created, resumed or left behind by Ctrl+C); end it as usual otherwise."""
        recorded = self.session.session_record()
        if recorded is None or self.ledger is None:
            return
        try:
            live = self.ledger.live_tasks_in(recorded["id"])
        except (OSError, McpTuiError):
            live = 1
        self.session.keep_alive(live > 0)

    def run(self):
        words = self.words
        handler = getattr(self, "cmd_" + command_name(words[0]), None)
        if handler is None:
            raise UsageError("unknown command %r" % words[0], hint=self.unquoted_command_hint(words))
        if self.opts.dry_run:
            self.withheld = (self.dry_run_method(words),)
        if self.opts.output not in (None, "-") and (command_name(words[0]),) + tuple(words[1:2]) not in (
                ("tool", "call"), ("resource", "read"), ("prompt", "get"), ("skill", "fetch")) and words[0] not in (
                "rpc", "snapshot"):
            raise UsageError("-o FILE writes the result of tool call, resource read, prompt get, rpc or snapshot "
                             "(-o DIR: skill fetch), not of %r" % " ".join(words[:2]))
        try:
            return handler(words[1:]) or EXIT_OK
        except Withheld as held:
            self.print_withheld(held.preview)
            return EXIT_OK
        except McpTuiError as exc:
            stderr_hint(exc, self.session.stderr_lines() if self.session else [])
            if isinstance(exc, UrlElicitationRequired) and not self.out.json:  # JSON has them in error.data
                self.offer_urls(exc)
            raise

    def offer_urls(self, exc):
        """-32042: each URL the server needs opened is shown, and opened, as a URL elicitation
        is (its host named; only with consent on a terminal); then the command can run again."""
        answers = [self.responder.elicit(dict(params, mode="url"), self.session.display_name())["action"]
                   for params in exc.elicitations]
        if "accept" in answers:
            exc.hint = "when you are done in the browser, run the command again"
        elif answers:
            exc.hint = "the server needs the URL%s above opened first" % ("s" if len(answers) > 1 else "")

    DRY_RUN_METHODS = {("tool", "call"): "tools/call", ("prompt", "get"): "prompts/get",
                       ("resource", "read"): "resources/read", ("complete",): "completion/complete"}

    def dry_run_method(self, words):
        """The method --dry-run withholds for this command, or a usage error."""
        command = command_name(words[0])
        if command == "rpc" and len(words) > 1:
            return words[1]
        method = self.DRY_RUN_METHODS.get((command,)) or self.DRY_RUN_METHODS.get((command,) + tuple(words[1:2]))
        if method is None:
            raise UsageError("--dry-run previews the request of tool call, prompt get, resource read, complete or "
                             "rpc, not of %r" % " ".join(words[:2]))
        return method

    def print_withheld(self, preview):
        """--dry-run's answer: where the request would go, its headers (credentials masked) and
        the JSON-RPC message itself."""
        headers = {name: self.out.credentials.redact(str(value)) for name, value in preview["headers"].items()}
        if self.out.json:
            self.out.document({"dryRun": True, "transport": preview["transport"],
                               "request": self.out.credentials.redact(preview["request"]),
                               "headers": headers, "message": preview["message"]})
            return
        lines = [self.out.credentials.redact(preview["request"])] + ["%s: %s" % item for item in headers.items()]
        self.out.text("\n".join(lines) + "\n\n" + json.dumps(preview["message"], indent=2, ensure_ascii=False))
        self.out.progress("(--dry-run: %s was not sent)" % preview["message"]["method"])

    def unquoted_command_hint(self, words):
        """`mcp-tui python3 server.py tool list`: the stdio server's command line was split
        into words, so the first of them became the server and the second "the command"."""
        spec = self.spec
        command_at = next((i for i, word in enumerate(words) if word in COMMAND_WORDS), None)
        if command_at is None:  # `tol list`: a command mistyped
            return did_you_mean(words[0], COMMAND_WORDS, "see mcp-tui --help")
        if spec is None or spec.kind != "stdio" or self.opts.cmd or self.opts.config:
            return "see mcp-tui --help"
        return quote_server_hint(spec.argv + words[:command_at], words[command_at:])

    def sub(self, args, choices):
        if not args or args[0] not in choices:
            command = command_name(self.words[0])
            if not args:
                raise UsageError("%s needs one of: %s" % (command, ", ".join(choices)))
            raise UsageError("unknown %s command %r: expected one of: %s" % (command, args[0], ", ".join(choices)),
                             hint=did_you_mean(args[0], choices, "see mcp-tui --help"))
        return args[0], args[1:]

    def expect(self, args, count, usage):
        if len(args) != count:
            raise UsageError("usage: mcp-tui %s" % usage)
        return args

    # -- server, ping, rpc --------------------------------------------------------------

    def cmd_server(self, args):
        self.expect(args, 0, "server")
        session = self.connect()
        if self.out.json:
            self.out.document(session.summary())
            return
        self.out.text(describe_server(session))

    def cmd_completion(self, args):
        shell, rest = self.sub(args, SUBCOMMANDS["completion"] + ("tool-names",))
        self.expect(rest, 0, "completion bash|zsh|fish")
        if shell == "tool-names":  # what the scripts call at TAB after `tool call`
            for name in cached_tool_names():
                self.out.text(name)
            return EXIT_OK
        self.out.text(completion_script(shell))
        return EXIT_OK

    def cmd_auth(self, args):
        self.log = self.log or self.make_log()
        return auth_command(args, self.opts, self.spec, self.out, self.log)

    def cmd_ping(self, args):
        self.expect(args, 0, "ping")
        session = self.connect()
        started = time.monotonic()
        method = session.ping()
        elapsed = (time.monotonic() - started) * 1000
        if self.out.json:
            self.out.document({"ok": True, "method": method, "ms": round(elapsed, 3)})
        else:
            self.out.text("pong from %s in %.1f ms (%s)" % (session.display_name(), elapsed, method))

    def cmd_rpc(self, args):
        if len(args) not in (1, 2):
            raise UsageError("usage: mcp-tui rpc METHOD [JSON]")
        if args[0].startswith("notifications/"):  # sent with an id, the server calls it an unknown method
            raise UsageError("rpc sends requests, and %s is a notification; nothing was sent" % args[0])
        params = None
        if len(args) == 2:
            text = sys.stdin.read() if args[1] == "-" else args[1]
            params = load_json_argument(text, "the rpc params")
            if not isinstance(params, dict):
                raise UsageError("the rpc params must be a JSON object")
        session = self.connect()
        result = session.request(args[0], params)
        self.show_result(args[0], result, {"result": result}, lambda: json.dumps(result, indent=2, ensure_ascii=False))

    def cmd_check(self, args):
        return CheckCommands(self).check(args)

    # -- tools ----------------------------------------------------------------------------

    def cmd_tool(self, args):
        action, rest = self.sub(args, SUBCOMMANDS["tool"])
        return getattr(self, "tool_" + action)(rest)

    def tool_list(self, args):
        self.expect(args, 0, "tool list")
        session = self.connect()
        try:
            tools, warnings = list_tools(session)
        except McpTuiError as exc:
            if getattr(exc, "partial", None) and not self.out.json:
                self.print_tools([t for t in exc.partial if isinstance(t, dict) and isinstance(t.get("name"), str)])
            raise
        for warning in warnings:
            self.out.notice("warning: " + warning)
        if self.out.json:
            self.out.document({"result": {"tools": tools}})
            return
        self.print_tools(tools)
        self.count(tools, "tool")

    def blob_saver(self):
        return BlobSaver(self.opts.save) if self.opts.save else None

    def show_result(self, method, result, document, render):
        """A command's result on stdout (``document`` with --format json, else ``render()``), or
        with -o FILE in that file, and one line on stderr that says what went there."""
        if self.opts.output in (None, "-"):
            self.out.document(document) if self.out.json else self.out.text(render())
            return
        if self.out.json:
            data, what = self.out.document_text(document).encode("utf-8"), "JSON"
        else:
            data, what = output_file_payload(method, result, render)
        write_output_file(self.opts.output, data)
        if not self.opts.quiet:
            self.out.stderr_line("Wrote %d bytes (%s) to %s" % (len(data), what, self.opts.output))

    def count(self, items, noun):
        """"3 resources" on stderr after a list, as `tool list` does: 0 says it was empty."""
        self.out.progress("%d %s%s" % (len(items), noun, "" if len(items) == 1 else "s"))

    def print_tools(self, tools):
        for tool in tools:
            task = listed_task_support(tool)
            tag = " [task: %s]" % task if task and task != "forbidden" else ""
            view = app_view(tool)
            tag += (" [app%s: %s]" % ("" if "model" in view["visibility"] else "-only", view["resourceUri"])
                    if view else "")
            title = tool.get("title") or (tool.get("annotations") or {}).get("title")
            description = first_line(tool.get("description") or "")
            self.out.text("%s%s%s%s" % (tool["name"], " (%s)" % title if title and title != tool["name"] else "", tag,
                                        "\n    " + description if description else ""))

    def tool_describe(self, args):
        name, = self.expect(args, 1, "tool describe NAME")
        session = self.connect()
        tool = find_tool(session, name)
        app = SkillCommands(self).app_of(session, tool)
        if self.out.json:
            self.out.document(dict({"result": tool}, **({"app": app} if isinstance(app, dict) else {})))
            return
        self.out.text(describe_tool(tool, app=app))

    def tool_call(self, args):
        if not args:
            raise UsageError("usage: mcp-tui tool call NAME [k=v ...]")
        name, words = args[0], args[1:]
        CheckCommands(self).load_options()  # a bad --load bound is a usage error before anything is sent
        self.out.progress("🛠️  Preparing to call tool '%s'..." % name)
        session = self.connect()
        tool = find_tool(session, name)
        if words or self.opts.args_json is not None:
            self.out.progress("📝 Parsing arguments...")
        schema = tool.get("inputSchema") or {}
        arguments = parse_arguments(words, schema, self.opts.args_json)
        undeclared = check_tool_arguments(arguments, schema, name)
        if undeclared:
            self.out.notice(undeclared)
        if self.opts.task:
            return TaskCommands(self).call_as_task(tool, arguments)
        if self.opts.load:
            return CheckCommands(self).load(session, tool, arguments)
        self.out.progress("🚀 Executing tool...")
        try:
            result = call_tool(session, name, arguments)
        except TaskRequired as exc:
            refusal = tasks_for(session).tools_call_refusal() if exc.code is None else None
            if refusal is not None:  # refused before sending, and --task would be refused too: not "add --task"
                raise UsageError("tool %r %s; nothing was sent" % (name, TASK_ONLY_UNCALLABLE), hint=refusal.hint)
            raise
        return self.print_tool_result(result, tool=tool)

    def print_tool_result(self, result, task=None, tool=None):
        """``tool``: its listing, whose outputSchema the structured content is checked against."""
        check_tool_result(result)
        problem = structured_content_problem(result, tool)
        if problem:
            self.out.notice(problem)
        self.out.progress(("⚠️  " if result.get("isError") else "✅ ") + tool_outcome_text(result))
        if result_hint(result):  # only for an error
            self.out.notice("hint: " + result_hint(result))
        document = {"result": result}
        if task is not None:
            document["task"] = task.data
        if not self.out.json and self.opts.output in (None, "-"):
            self.out.progress("")
        self.show_result("tools/call", result, document, lambda: render_tool_result(result, self.blob_saver()))
        return EXIT_FAILURE if result.get("isError") and self.opts.strict_errors else EXIT_OK

    def cmd_task(self, args):
        return TaskCommands(self).run(args)

    # -- resources, prompts, completion -------------------------------------------------

    def cmd_watch(self, args):
        self.expect(args, 0, "watch [--resource URI ...] [--for SECONDS]")
        return self.watch(self.opts.resource)

    def watch(self, uris):
        """Print notifications as they arrive, one line each, until Ctrl+C or --for."""
        if self.opts.watch_for is not None and self.opts.watch_for <= 0:
            raise UsageError("--for must be more than 0 seconds")
        held = HeldNotifications()  # they go to stdout here, not to stderr; none lost while the session opens
        session = self.connect(observer=held)
        watch = session.watch(uris, self.out.notification_line, held)
        try:
            for item in watch.refused:
                self.out.notice("warning: the server refused to send %s" % item)
            if watch.nothing_to_listen_for:
                self.out.notice("%s announces nothing to listen for (no listChanged capability), so nothing "
                                "will arrive; the watch waits for Ctrl+C, --for or the server's end"
                                % session.display_name())
            self.out.progress("👀 Watching %s%s; Ctrl+C stops." % (session.display_name(), "".join(
                "\n   and updates of %s" % uri for uri in uris)))
            ends = time.monotonic() + self.opts.watch_for if self.opts.watch_for else None
            stopped = threading.Event()
            while ends is None or time.monotonic() < ends:
                stopped.wait(0.5 if ends is None else max(0.0, min(0.5, ends - time.monotonic())))
                if self.deadline is not None and time.monotonic() >= self.deadline:  # in either era
                    raise RequestTimeout("the --max-time limit (%s) ended the watch" % seconds_text(self.opts.max_time),
                                         hint="--for SECONDS ends a watch with exit 0")
                lost = watch.lost()
                if lost is not None:  # nothing more can arrive: say so, rather than watch nothing
                    raise lost
        except KeyboardInterrupt:
            return EXIT_INTERRUPTED  # the way to stop a watch: no error line
        finally:
            watch.close()
        return EXIT_OK

    def cmd_resource(self, args):
        action, rest = self.sub(args, SUBCOMMANDS["resource"])
        if action == "subscribe":
            uri, = self.expect(rest, 1, "resource subscribe URI [--for SECONDS]")
            return self.watch([uri] + [u for u in self.opts.resource if u != uri])
        if action == "unsubscribe":
            uri, = self.expect(rest, 1, "resource unsubscribe URI")
            session = self.connect()
            if not (session.capabilities.get("resources") or {}).get("subscribe"):
                raise UsageError("the server does not offer resource subscriptions (no resources.subscribe "
                                 "capability); nothing was sent")
            if not session.unsubscribe_resource(uri):
                raise UsageError("nothing to unsubscribe: under %s a subscription lasts as long as the "
                                 "`resource subscribe` or `watch` that made it; stop that one" % MODERN_VERSION)
            if self.out.json:
                self.out.document({"unsubscribed": uri})
            else:
                self.out.progress("Unsubscribed from %s (a subscription also ends with the session that made it)."
                                  % uri)
            return EXIT_OK
        if action == "read":
            uri, = self.expect(rest, 1, "resource read URI")
            result = self.connect().request("resources/read", {"uri": uri})
            self.show_result("resources/read", result, {"result": result},
                             lambda: render_contents(result, self.blob_saver()))
            return
        self.expect(rest, 0, "resource %s" % action)
        method, key = (("resources/list", "resources") if action == "list"
                       else ("resources/templates/list", "resourceTemplates"))
        items = list_all(self.connect(), method, key)
        if self.out.json:
            self.out.document({"result": {key: items}})
            return
        for item in items:
            label = item.get("uri") or item.get("uriTemplate")
            name = item.get("title") or item.get("name") or ""
            mime = " (%s)" % item["mimeType"] if item.get("mimeType") else ""
            description = first_line(item.get("description") or "")
            self.out.text("%s  %s%s%s" % (label, name, mime, "\n    " + description if description else ""))
        self.count(items, "resource" if action == "list" else "resource template")

    def cmd_prompt(self, args):
        action, rest = self.sub(args, SUBCOMMANDS["prompt"])
        session = self.connect()
        if action == "list":
            self.expect(rest, 0, "prompt list")
            prompts = list_all(session, "prompts/list", "prompts")
            if self.out.json:
                self.out.document({"result": {"prompts": prompts}})
                return
            for prompt in prompts:
                arguments = ", ".join(a.get("name", "?") + ("*" if a.get("required") else "")
                                      for a in prompt.get("arguments") or ())
                description = first_line(prompt.get("description") or "")
                self.out.text("%s(%s)%s" % (prompt["name"], arguments, "\n    " + description if description else ""))
            self.count(prompts, "prompt")
            return
        if not rest:
            raise UsageError("usage: mcp-tui prompt get NAME [k=v ...]")
        arguments = parse_arguments(rest[1:], args_json=self.opts.args_json, strings_only=True)
        check_prompt_arguments(find_prompt(session, rest[0]), arguments)
        result = session.request("prompts/get", {"name": rest[0], "arguments": arguments})
        lines = [str(result["description"]), ""] if result.get("description") else []
        self.show_result("prompts/get", result, {"result": result},
                         lambda: "\n".join(lines) + render_messages(result.get("messages")))

    def cmd_complete(self, args):
        if len(args) < 3 or args[0] not in ("prompt", "resource"):
            raise UsageError("usage: mcp-tui complete prompt NAME ARG=VALUE [k=v ...] | "
                             "complete resource TEMPLATE VAR=VALUE [k=v ...]")
        kind, target = args[0], args[1]
        argument_name, _, value = split_key_value(args[2]) if "=" in args[2] else (args[2], "=", "")
        context = parse_arguments(args[3:], strings_only=True)
        ref = {"type": "ref/prompt", "name": target} if kind == "prompt" else {"type": "ref/resource", "uri": target}
        session = self.connect()
        if "completions" not in session.capabilities:
            raise UsageError("%s does not offer completions (no completions capability); nothing was sent"
                             % session.display_name())
        given = dict(context, **{argument_name: value})
        variables = template_variables(target) if kind != "prompt" else ()
        if kind == "prompt":  # a misspelt prompt or argument would only get "(no completions)"
            check_prompt_arguments(find_prompt(session, target), given, complete=True)
        elif variables:  # a template names its own variables
            check_names(given, variables, "resource template %r" % target)
        result = complete_argument(session, ref, argument_name, value, context)
        completion = result.get("completion") or {}
        if self.out.json:
            self.out.document({"result": result})
            return
        for item in completion.get("values") or ():
            self.out.text(str(item))
        if not completion.get("values"):
            self.out.progress("(no completions)")  # on stderr: stdout stays empty for a script
        if completion.get("hasMore"):
            self.out.progress("(more values exist%s)" % (
                ": %s in all" % completion["total"] if completion.get("total") is not None else ""))


    # -- snapshot, diff and replay ---------------------------------------------------------

    def cmd_snapshot(self, args):
        return SurfaceCommands(self).snapshot(args)

    def cmd_diff(self, args):
        return SurfaceCommands(self).diff(args)

    def cmd_replay(self, args):
        return SurfaceCommands(self).replay(args)

    def cmd_skill(self, args):
        return SkillCommands(self).run(args)


class CliCommands:
    """A family of the CLI's verbs, kept out of Cli: it works through the Cli it is given
    (its session, its output and its options)."""

    def __init__(self, cli):
        self.cli = cli
        self.out = cli.out
        self.opts = cli.opts


class TaskCommands(CliCommands):
    """`task ...` and `tool call --task`: the CLI's side of the Task interface. It prints
    what the adapters return and never asks which form they speak."""

    def __init__(self, cli):
        CliCommands.__init__(self, cli)
        self.ledger = cli.ledger

    def call_as_task(self, tool, arguments):
        tasks = tasks_for(self.cli.session)
        tasks.require_tools_call()
        for note in tasks.call_notes(tool, self.opts.ttl):
            self.out.notice(note)
        self.out.progress("🚀 Calling tool as a task..." if tasks.calls_as_task(tool) else "🚀 Executing tool...")
        outcome = tasks.call(tool, arguments, self.opts.ttl)
        for note in outcome.notes:
            self.out.notice(note)
        if outcome.task is None:
            return self.cli.print_tool_result(outcome.result, tool=tool)
        task = outcome.task
        if self.cli.background_session:  # only now: a refused or direct call kept nothing
            self.out.notice("A background session keeps the server running until its tasks end or --idle passes "
                            "(mcp-tui session list)")
        self.out.hide_in_errors(task.task_id)
        self.kept_session("hold", task.task_id, expiresAt=task.expires_at())
        session = self.cli.session
        remembered = False
        if self.ledger is not None and session.outlives_process():  # a stdio task ends with this command
            try:
                self.ledger.remember(task, tasks, tool["name"])
                remembered = True
            except Exception as exc:  # the task exists: nothing may keep its ID from being printed
                why = describe_failure(exc) if isinstance(exc, McpTuiError) else describe_os_error(exc)
                self.out.notice("warning: cannot record the task in the ledger: %s" % why)
        if not self.opts.wait:
            follow_up = self.follow_up_problem(session, remembered)
            if self.out.json:
                self.out.document(tasks.document(task=task.data))
            elif follow_up is None:
                self.out.text("Task %s created: %s\nPoll:   %s\nResult: %s" % (
                    task.task_id, task.status_line(), self.task_command("get", task.task_id),
                    self.task_command("result", task.task_id)))
                if shell_word(task.task_id).startswith("$'"):
                    self.out.notice("note: the task ID holds control characters; the commands above write them "
                                    "as $'...' escapes, exactly")
            else:
                self.out.text("Task %s created: %s" % (task.task_id, task.status_line()))
            if follow_up is not None:
                self.out.notice(follow_up)
            return EXIT_OK
        self.out.progress("⏳ Task %s created; waiting for it to finish..." % task.task_id)
        return self.follow(tasks, task.task_id, task.status)

    def kept_session(self, op, task_id, **fields):
        """Tell a kept session which tasks it holds its server for (a session started for
        a task ends once they are done, and takes its name from the first one)."""
        session = self.cli.session
        if session is None or session.spec.kind != "session":
            return
        try:
            reply = session.keeper_control(op, task=fingerprint(task_id), **fields)
        except McpTuiError as exc:
            self.out.notice("warning: the session keeper did not answer: %s" % exc.message)
            return
        session.spec.name = reply.get("name", session.spec.name)

    def follow_up_problem(self, session, remembered):
        """Why no later command can follow this task, or None when `task get` will work."""
        if not session.outlives_process():
            return ("The task cannot outlive this command: a stdio server stops when mcp-tui exits. "
                    "Use --wait to follow it to its result.")
        if session.session_record() and not remembered:
            return ("The task lives in this HTTP session, which only the task ledger can resume "
                    "(it is off or failed). Use --wait to follow it to its result.")
        return None

    def task_command(self, action, task_id):
        """A runnable command line: the ledger supplies the connection when it is on."""
        words = []
        if self.ledger is None:
            spec = self.cli.session.spec
            if spec.source:  # from --config: the file and the server, so that no ${VAR}'s value is printed
                words += ["--config", spec.source[0], "--server", spec.source[1]]
            else:
                words += ([spec.describe()] if spec.kind in ("stdio", "session") else ["--url", spec.url])
            if spec.kind == "sse" and not spec.source:
                words += ["--transport", "sse"]
            if spec.protocol != "auto":
                words += ["--protocol-version", spec.protocol]
        return command_line(words, ["task", action], [task_id])

    def follow(self, tasks, task_id, last_status=None):
        deadline = min(time.monotonic() + self.opts.timeout, self.cli.deadline or float("inf"))
        bound = "--max-time" if self.cli.deadline is not None and deadline == self.cli.deadline else "--timeout"

        def on_status(task):
            self.note_task_status(task)
            self.cancellation_shown(task)
            self.out.progress("⏳ task %s: %s" % (task.task_id, task.status_line()
                                                   if task.status != "completed" else task.status))

        try:
            result = tasks.wait(task_id, deadline, StatusReporter(on_status, last_status), bound)
        except (KeyboardInterrupt, RequestTimeout) as exc:  # with --quiet, this is where the user sees the task's ID
            problem = self.follow_up_problem(self.cli.session, self.ledger is not None
                                             and self.ledger.lookup(task_id) is not None)
            if problem is None:
                self.out.notice("Stopped waiting; the task keeps running: %s" % self.task_command("get", task_id))
            elif isinstance(exc, RequestTimeout):  # not "follow it later": nothing can
                exc.hint = "raise %s for long tasks; no later command can follow this task" % bound
            else:
                self.out.notice("Stopped waiting. " + problem)
            raise
        except RpcError as exc:
            if exc.code == INVALID_PARAMS and not isinstance(exc, TaskFailed):
                raise self.unknown_task(task_id, exc)
            if isinstance(exc, TaskFailed):
                self.outcome_fetched(task_id)  # the failure is its outcome
            raise
        self.outcome_fetched(task_id)
        return self.cli.print_tool_result(result)

    def outcome_fetched(self, task_id):
        """The task's outcome has been shown: the ledger notes it, and a session kept for
        the task may let its server go."""
        if self.ledger is not None:
            self.ledger.note_fetched(task_id)
        self.kept_session("release", task_id)

    def cancellation_shown(self, task):
        """The task is shown cancelled: that is its outcome, fetched, and the session kept for
        it may end. `task cancel` keeps the session: a `task get` after it must find the task."""
        if task.status == "cancelled" and self.ledger is not None:
            self.ledger.note_fetched(task.task_id)

    def note_task_status(self, task):
        if self.ledger is not None:
            self.ledger.note_status(task.task_id, task.status)
        if task.status == "cancelled":  # no outcome will be fetched: a keeper held for it may let its server go
            self.kept_session("release", task.task_id)

    def unknown_task(self, task_id, exc):
        """The server does not know the task: mark it in the ledger (not erased: the next
        try still knows where to ask) and say what happened."""
        hint = None
        record = self.ledger.lookup(task_id) if self.ledger is not None else None
        if record is not None:
            try:
                self.ledger.mark_unknown(task_id)
                hint = "marked in the task ledger as unknown to the server; its connection stays recorded"
            except (OSError, McpTuiError):
                pass
            if record.get("fetched") and record.get("session"):
                hint = "the server kept it in an HTTP session, which ended once %s" % (
                    "it was shown cancelled" if record.get("status") == "cancelled" else "its result was fetched")
        return McpTuiError("unknown or expired task %s: %s" % (task_id, exc.rpc_message), hint=hint)

    def task_session(self, task_id):
        """Connect for a task command: explicit flags win, else the ledger's record. A task
        recorded with its HTTP session resumes that session (same server only)."""
        spec = self.cli.spec
        record = self.ledger.lookup(task_id) if task_id is not None and self.ledger is not None else None
        if spec is None and record is not None:
            spec = self.spec_from_ledger(record["connection"])
        if spec is None:
            raise UsageError("no server given, and the task ledger does not know this task",
                             hint="pass the connection (a stdio command, --url or --config)")
        recorded = self.ledger.session_to_resume(task_id, spec) if record is not None else None
        try:
            session = self.cli.connect(spec, recorded)
        except ConnectionFailed as exc:
            if spec.kind == "session" and self.cli.spec is None:  # the ledger sent us there
                exc.hint = ("the session that kept this task's server has ended (after its result was fetched or "
                            "it was cancelled, --idle or the task's TTL), and the task with it")
            raise
        return session, tasks_for(session)

    def spec_from_ledger(self, record):
        """The ledger's connection, with this command's -H, --bearer and --env; a server
        from --config is read from its file again (its ${VAR}s were never stored)."""
        if "config" in record:
            spec = config_server_spec(record["config"], record["server"], record["protocol"], self.out.credentials)
        else:
            spec = ConnectionSpec.from_ledger(record)
        if self.opts.protocol != "auto":
            spec.protocol = self.opts.protocol
        spec.headers.update(option_headers(self.opts, self.out.credentials))
        spec.env.update(parse_env_option(e) for e in self.opts.env)
        return spec

    def run(self, args):
        action, rest = self.cli.sub(args, SUBCOMMANDS["task"])
        if action in ("support", "list"):
            self.cli.expect(rest, 0, "task %s" % action)
            task_id = None
        else:
            task_id, = self.cli.expect(rest, 1, "task %s ID" % action)  # errors name it as typed: the user's own
        if action == "list" and (self.cli.spec is None or self.recorded_sessions_on(self.cli.spec)):
            return self.task_list_from_ledger(self.cli.spec)
        session, tasks = self.task_session(task_id)
        try:
            return getattr(self, "task_" + action)(tasks, task_id)
        except RpcError as exc:
            if exc.code == INVALID_PARAMS and task_id and not isinstance(exc, TaskFailed):
                raise self.unknown_task(task_id, exc)
            raise

    def task_support(self, tasks, _):
        support = tasks.support()
        if self.out.json:
            self.out.document(support.to_json() if support else {"form": None, "toolsCall": False, "methods": {}})
            return
        if support is None:
            self.out.text("Tasks: none (the server declared no task support)")
            return
        yes = lambda flag: "yes" if flag else "no"
        lines = ["Tasks: %s" % support.label, "tools/call as a task: %s" % yes(support.tools_call)]
        for method in ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update"):
            lines.append("%-22s%s" % (method + ":", yes(support.methods[method])))
        self.out.text("\n".join(lines))

    def task_get(self, tasks, task_id):
        task = tasks.get(task_id)
        self.note_task_status(task)
        self.cancellation_shown(task)
        if self.out.json:
            self.out.document(tasks.document(task=task.data))
            return
        self.out.text(self.describe_task(task))

    def describe_task(self, task):
        text = describe_task(task)
        if task.status == "input_required":
            text += "\nAnswer:   %s (answers with the --elicit-stub/--sampling-stub handlers)" % self.task_command(
                "result", task.task_id)
        return text

    def task_result(self, tasks, task_id):
        self.out.progress("⏳ Waiting for task %s..." % task_id)
        return self.follow(tasks, task_id)

    def task_cancel(self, tasks, task_id):
        try:
            task = tasks.cancel(task_id)
        except RpcError as exc:
            if exc.code != INVALID_PARAMS:
                raise
            recorded = self.ledger.lookup(task_id) if self.ledger is not None else None
            status = (recorded or {}).get("status")
            try:
                current = tasks.get(task_id)  # a terminal task cannot be cancelled; an unknown one is unknown
                self.note_task_status(current)
                status = current.status
            except McpTuiError:
                if status not in TERMINAL_STATUSES:
                    raise exc
            if status not in TERMINAL_STATUSES:
                raise
            raise McpTuiError("task %s is already %s; nothing to cancel" % (task_id, status))
        if task is not None:
            self.note_task_status(task)
        if task is None:
            if self.out.json:
                self.out.document(tasks.document(taskId=task_id, cancellationRequested=True))
                return
            self.out.text("Cancellation requested for task %s. The server acknowledges it; the task may still finish."
                          "\nCheck: %s" % (task_id, self.task_command("get", task_id)))
            return
        if self.out.json:
            self.out.document(tasks.document(task=task.data))
            return
        self.out.text(self.describe_task(task))

    def recorded_sessions_on(self, spec):
        """The HTTP sessions the ledger recorded tasks in on the server ``spec`` names."""
        if self.ledger is None or spec.kind != "http":
            return []
        url = spec.ledger_record().get("url")
        return [recorded for connection, recorded in self.ledger.listable_connections()
                if recorded is not None and connection.get("url") == url]

    def ended_with_its_tasks(self, connection):
        """A kept session the ledger names that is gone, its tasks all done: its entries are
        dropped, and it is not asked (nor warned about)."""
        if connection.get("kind") != "session":
            return False
        try:
            return KeptSessions().get(connection.get("name")) is None and self.ledger.forget_done(connection)
        except (OSError, McpTuiError):
            return False  # then it is asked, and the warning says what became of it

    def task_list_from_ledger(self, given=None):
        """`task list` without a connection: ask every connection the ledger recorded tasks
        for in a form that has tasks/list. With ``given`` (`task list --url URL`): that server's
        own list, and the sessions the ledger recorded tasks in there, resumed (a server such
        as the everything server lists a session's tasks in that session only)."""
        if given is not None:
            asked = [(given, None)] + [(given, recorded) for recorded in self.recorded_sessions_on(given)]
        else:
            connections = self.ledger.listable_connections() if self.ledger is not None else []
            if not connections:
                raise UsageError("task list needs a connection: the task ledger records no tasks that can be "
                                 "listed", hint="pass the server: a stdio command, --url or --config")
            asked = [(self.spec_from_ledger(connection), recorded) for connection, recorded in connections
                     if not self.ended_with_its_tasks(connection)]
        listed, seen, document = [], set(), dict
        for spec, recorded in asked:
            try:
                session = self.cli.connect(spec, recorded if spec.kind == "http" else None)
                tasks = tasks_for(session)
                document = tasks.document
                for task in tasks.list():
                    if task.task_id not in seen:
                        seen.add(task.task_id)
                        listed.append(task)
            except McpTuiError as exc:
                if recorded is None and spec is given:
                    raise  # the server the user named
                self.out.notice("warning: %s: %s" % (spec.describe(), exc.message))
            finally:
                self.cli.close()
                self.cli.session = None
        return self.print_task_list(document, listed)

    def task_list(self, tasks, _):
        return self.print_task_list(tasks.document, tasks.list())

    def print_task_list(self, document, listed):
        if self.out.json:
            self.out.document(document(tasks=[task.data for task in listed]))
            return
        for task in listed:
            line = "%-16s%s  updated %s  %s" % (task.status, task.task_id,
                                                short_timestamp(task.data.get("lastUpdatedAt")), task.message or "")
            self.out.text(line.rstrip())
        if not listed:
            self.out.progress("No tasks.")

    def task_update(self, tasks, task_id):
        if self.opts.input_responses is None:
            raise UsageError("task update needs --input-responses JSON")
        responses = load_json_argument(self.opts.input_responses, "--input-responses")
        if not isinstance(responses, dict):
            raise UsageError("--input-responses must be a JSON object of key -> answer")
        tasks.update(task_id, responses)
        if self.out.json:
            self.out.document(tasks.document(taskId=task_id, updated=sorted(responses)))
            return
        self.out.text("Sent %d answer%s to task %s: %s\nCheck: %s" % (
            len(responses), "" if len(responses) == 1 else "s", task_id, ", ".join(sorted(responses)),
            self.task_command("get", task_id)))


class CheckCommands(CliCommands):
    """`check` (every rule that applies to what the server declares) and `tool call --load`
    (one tool called many times at once): the server held to the spec, and under load."""

    def check(self, args):
        """Every rule that applies to what the server declares; exit 1 on a finding that fails."""
        self.cli.expect(args, 0, "check [--call 'NAME k=v ...'] [--call-readonly] [--junit FILE] [--strict]")
        import shlex

        calls = []
        for text in self.opts.call:
            try:
                words = shlex.split(text)
            except ValueError as exc:
                raise UsageError("--call %r: %s" % (text, exc))
            if not words:
                raise UsageError("--call needs a tool name: --call 'NAME k=v ...'")
            calls.append((words[0], words[1:]))
        self.opts.no_cache = True  # a check asks the server, never an answer an earlier command kept
        started = time.monotonic()

        def progress(text):  # on a terminal only: one line, rewritten as the rules run
            self.out.live("⏳ %s %d rules run, %d findings, %.1f s" % (
                text, len(check.ran), len(check.findings), time.monotonic() - started))

        check = ServerCheck(calls, self.opts.call_readonly, progress)
        progress("connecting...")
        try:
            if self.cli.spec.url:
                HttpChecks(check).check_authorization(self.cli.spec.url)
            try:
                session = self.cli.connect(started=lambda opening: opening.wire_observers.append(check.watch))
            except UsageError:
                raise
            except McpTuiError as exc:
                check.connect_failed(exc)
                server = masked_url(self.cli.spec.url) if self.cli.spec.url else self.cli.spec.describe()
                document = None
            else:
                document = session.summary()
                server = "%s (%s, %s)" % (session.display_name(), document["protocolVersion"], document["transport"])
                check.run(session)
                self.other_era(check, document)
        finally:
            self.out.live(None)
        elapsed = time.monotonic() - started
        strict = self.opts.strict
        if self.out.json:
            self.out.document({"server": document or {"connection": server}, "findings": check.findings,
                               "summary": check_summary(check, elapsed, strict)})
        else:
            self.out.text(check_report_text(check, server, elapsed, strict))
        if self.opts.junit:  # after the report, which a file that cannot be written must not cost
            try:
                with open(self.opts.junit, "w", encoding="utf-8") as junit:
                    junit.write(check_junit(check, server, elapsed, strict))
            except OSError as exc:
                raise McpTuiError("cannot write --junit %s: %s" % (self.opts.junit, exc.strerror or exc))
        return EXIT_FAILURE if check_failures(check, strict) else EXIT_OK

    def other_era(self, check, summary):
        """A server that lists 2025-11-25-era versions beside 2026-07-28 is opened a second
        time in the newest of them, as a client of that era would: the claim must hold."""
        version = check.other_era(summary)
        if version is None or self.cli.spec.kind == "session" or self.opts.protocol != "auto":
            return
        import copy

        check.progress("checking the %s handshake..." % version)
        spec = copy.copy(self.cli.spec)
        spec.protocol = version
        first, self.cli.session = self.cli.session, None
        first.close()  # one server process at a time, as a user would run them
        try:
            self.cli.connect(spec)
        except UsageError:
            raise
        except McpTuiError as exc:
            check.other_era_opened(version, exc)
            return
        check.other_era_opened(version)

    def load_options(self):
        """--load's bounds, checked: (requests, duration, concurrency, rate)."""
        opts = self.opts
        given = [flag for flag, value in (("--load-requests", opts.load_requests), ("--load-duration",
                 opts.load_duration), ("--load-rate", opts.load_rate)) if value is not None]
        if not opts.load:
            if given or opts.load_concurrency != 10:
                raise UsageError("%s works with --load" % (given or ["--load-concurrency"])[0])
            return None
        if opts.task or opts.dry_run:
            raise UsageError("--load makes the calls: leave out %s" % ("--task" if opts.task else "--dry-run"))
        for flag, value in (("--load-requests", opts.load_requests), ("--load-duration", opts.load_duration),
                            ("--load-concurrency", opts.load_concurrency), ("--load-rate", opts.load_rate)):
            if value is not None and value <= 0:
                raise UsageError("%s must be more than 0" % flag)
        requests = opts.load_requests if opts.load_requests or opts.load_duration else 100
        return requests, opts.load_duration, opts.load_concurrency, opts.load_rate

    def load(self, session, tool, arguments):
        """--load: the report of many concurrent calls; exit 1 when a call failed (a tool
        result with isError counts as a tool error, and fails only with --strict-errors)."""
        requests, duration, concurrency, rate = self.load_options()
        load = ToolLoad(session, tool["name"], arguments, requests, duration, concurrency, rate)
        self.out.progress("🚀 Calling %s with %d at a time%s..." % (tool["name"], concurrency, "".join(
            part for part in (" for %d calls" % requests if requests else "",
                              " for %s" % seconds_text(duration) if duration else "",
                              " at most %g a second" % rate if rate else ""))))
        def on_tick(running):  # on a terminal only: one line, rewritten about once a second
            now = running.summary()
            self.out.live("⏳ %d calls, %d errors, %.1f calls/s, %.1f s" % (
                now["requests"], now["errors"], now["throughput"], now["elapsedMs"] / 1000))

        self.out.live("⏳ calling %s..." % tool["name"])
        try:
            load.run(on_tick if self.out.shows_live() else None)  # no totals built for a line nobody sees
        finally:
            self.out.live(None)
        summary = load.summary()
        if self.out.json:
            self.out.document(summary)
        else:
            self.out.text(load_report_text(summary))
        failed = summary["errors"] or (summary["toolErrors"] and self.opts.strict_errors)
        return EXIT_FAILURE if failed else EXIT_OK


class SurfaceCommands(CliCommands):
    """`snapshot`, `diff` and `replay`: a server's surface kept and compared, and a --record
    file sent again and its answers compared."""

    def snapshot(self, args):
        self.cli.expect(args, 0, "CONNECTION snapshot [-o FILE]")
        text = snapshot_text(surface_snapshot(self.cli.connect()))
        if self.opts.output:
            write_output_file(self.opts.output, text.encode("utf-8"))
            self.out.progress("snapshot written to %s" % self.opts.output)
            return
        self.out.text(text)

    def diff(self, args):
        if len(args) == 2:
            if self.cli.spec is not None:
                raise UsageError("diff OLD.json NEW.json compares two files; leave out the connection")
            old, new = read_snapshot(args[0]), read_snapshot(args[1])
        elif len(args) == 1:
            old = read_snapshot(args[0])
            new = surface_snapshot(self.cli.connect())
        else:
            raise UsageError("usage: mcp-tui CONNECTION diff SNAPSHOT | mcp-tui diff OLD.json NEW.json")
        diff = SurfaceDiff(old, new)
        counts = diff.counts()
        failing = ("breaking", "additive") if self.opts.fail_on == "additive" else ("breaking",)
        if self.out.json:
            self.out.document({"changes": diff.changes, "summary": counts})
        else:
            self.out.text(surface_diff_text(diff.changes, counts))
        return EXIT_FAILURE if any(counts[kind] for kind in failing) else EXIT_OK

    def replay(self, args):
        path, = self.cli.expect(args, 1, "CONNECTION replay FILE [--ignore PATH ...]")
        ignored = [ignore_pattern(text) for text in self.opts.ignore]
        try:
            with open(path, encoding="utf-8") as handle:
                recording = Recording(handle.read().splitlines(), path)
        except OSError as exc:
            raise UsageError("cannot read recording %s: %s" % (path, exc.strerror or exc))
        except UnicodeDecodeError:
            raise UsageError("%s is not a recording (not UTF-8 text)" % path)
        if not recording.exchanges:
            raise UsageError("%s holds no request with its answer to replay" % path,
                             hint="record one with: mcp-tui CONNECTION --record FILE COMMAND")
        session = self.cli.connect(responder=RecordedResponder(recording.answers, self.out.notice))
        compared = []

        def report(index, exchange, found):
            compared.append({"request": index, "method": exchange["method"], "same": not found,
                             "differences": [{"path": where, "recorded": old, "replayed": new}
                                             for where, old, new in found]})
            if found and not self.out.json:
                self.out.text(replay_text(index, exchange, found))

        different = replay(session, recording, ignored, report)
        if self.out.json:
            self.out.document({"requests": compared, "summary": {
                "requests": len(compared), "same": len(compared) - different, "different": different}})
        else:
            self.out.text(replay_summary(len(compared), different))
        return EXIT_FAILURE if different else EXIT_OK


def auth_command(args, opts, spec, output, log):
    """`auth login | status | logout [--all]`; returns the exit code."""
    action = args[0] if args else None
    if action not in ("login", "status", "logout") or len(args) > 1:
        raise UsageError("auth needs one of: login, status, logout", hint="e.g. mcp-tui --url URL auth login")
    store = AuthStore()
    if action == "status":
        tokens = [t for t in store.load()["tokens"].values() if isinstance(t, dict)]
        if spec is not None and spec.url:
            tokens = [t for t in tokens if t.get("server") == canonical_resource(spec.url)]
        views = [masked_token_view(t) for t in sorted(tokens, key=lambda t: (t.get("server") or "", t.get("issuer") or ""))]
        if output.json:
            output.document({"tokens": views})
        elif not views:
            output.text("no stored tokens")
        for view in views if not output.json else ():
            output.text("%s\n  issuer %s  scope %s  %s  %s" % (view["server"], view["issuer"], view["scope"] or "-",
                                                            describe_expiry(view), view["token"]))
        return EXIT_OK
    if action == "logout" and opts.all:
        server = None
    else:
        if spec is not None and spec.kind == "session":  # the keeper holds the connection, and its token
            raise UsageError("auth %s takes the server's URL, not a session (@%s)" % (action, spec.name),
                             hint="mcp-tui --url URL auth %s" % action)
        if spec is None or spec.kind == "stdio" or not spec.url:
            raise UsageError("auth %s needs an HTTP server (--url URL)%s" % (
                action, "; or auth logout --all" if action == "logout" else ""))
        server = canonical_resource(spec.url)
    if action == "login":
        if opts.stored_auth_only:
            raise UsageError("auth login authorizes anew, which --stored-auth-only forbids")
        authorizer = authorizer_for(spec, opts, log, output.stderr_line)
        if authorizer is None:
            raise UsageError("an Authorization header is given (--bearer or -H); there is nothing to log in to")
        view = masked_token_view(authorizer.login())
        if output.json:
            output.document(view)
        else:
            output.text("authorized at %s for %s (scope %s; %s)" % (view["issuer"], view["server"],
                                                                 view["scope"] or "-", describe_expiry(view)))
        return EXIT_OK
    results = Authorizer(spec.url if server else None, AuthSettings.from_options(opts), log, output.stderr_line,
                         opts.timeout, NetworkOptions.from_options(opts), store).logout()
    if output.json:
        output.document({"loggedOut": results})
    elif not results:
        output.text("no stored tokens for %s" % (server or "any server"))
    for result in results if not output.json else ():
        output.text("logged out of %s (%s)" % (result["server"], "token revoked at %s" % result["issuer"]
                                              if result["revoked"] else "token forgotten"))
    return EXIT_OK


# -- the `session` verbs: a keeper started, listed, closed (it runs in section 9) ----------

KEEPER_FLAG = "--run-session-keeper"
# Run with -I: sys.path holds neither the working directory nor PYTHONPATH. mcp_tui itself is
# loaded from its own directory (or zipapp) alone, which is not put on sys.path either.
KEEPER_BOOT = """if True:
    import sys
    from importlib.machinery import PathFinder
    spec = PathFinder.find_spec("mcp_tui", [sys.argv[1]])
    if spec is None:
        sys.exit("mcp_tui is not in %s" % sys.argv[1])
    if hasattr(spec.loader, "exec_module"):
        from importlib.util import module_from_spec
        module = sys.modules["mcp_tui"] = module_from_spec(spec)
        spec.loader.exec_module(module)
    else:  # zipimport before Python 3.10
        module = spec.loader.load_module("mcp_tui")
    sys.exit(module.main(sys.argv[2:]))
"""


def start_keeper(name, argv, connection, timeout, notice, auto=False, token=None):
    """Start a detached keeper for ``name`` and wait until its session is open; returns
    the record it wrote. ``argv`` and ``token`` (the one a `session open` holds the name
    with) go to it on a pipe, never on its command line."""
    import queue
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    options = {}
    if os.name == "nt":
        options["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        options["start_new_session"] = True  # Ctrl+C and a closed terminal do not reach it
    try:
        process = subprocess.Popen([sys.executable, "-I", "-c", KEEPER_BOOT, here, KEEPER_FLAG],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   close_fds=True, **options)
    except OSError as exc:
        raise McpTuiError("cannot start the session keeper: %s" % exc)
    process.stdin.write(json.dumps({"name": name, "argv": argv, "connection": connection, "auto": auto,
                                    "token": token}).encode("utf-8") + b"\n")
    process.stdin.close()
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in iter(process.stdout.readline, b"")] + [
        lines.put(b"")], daemon=True).start()
    limit = timeout * 2 + 10  # the keeper bounds its own connect by --timeout; an OAuth login restarts it
    while True:
        try:
            line = lines.get(timeout=limit)
        except queue.Empty:
            process.kill()
            raise RequestTimeout("the session keeper did not report within %gs" % limit)
        try:
            reply = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            reply = {}
        if "notice" not in reply:
            break
        notice(str(reply["notice"]))  # e.g. where to log in
    process.stdout.close()
    if "ready" in reply:
        return reply["ready"]
    process.wait()
    error = reply.get("error") or {"message": "the session keeper exited (code %s)" % process.returncode}
    failure = McpTuiError(error.get("message", "the session keeper failed"), error.get("hint"))
    failure.kind, failure.exit_code = error.get("kind", "error"), error.get("exitCode", EXIT_FAILURE)
    raise failure


def open_line(name, record):
    return "Session %s open: %s %s (%s, %s)" % (name, record["server"], record["version"], record["era"],
                                                record["transport"])


def keeper_status(name, record):
    """The live keeper's status, or None when it is gone (its record is then removed)."""
    if "ended" in record:  # it stopped unasked and said why (Keeper.stop)
        KeptSessions().remove(name, record["token"])
        return None
    transport = KeeperTransport(name, record)
    try:
        return transport.hello("status", timeout=5.0)["status"]
    except KeeperGone:
        KeptSessions().remove(name, record["token"])
        return None
    finally:
        transport.close()


def gone_text(name, record):
    """What a command says of a session it found ended: why, when the keeper said so."""
    if "ended" in record:
        return "Session %s had ended: %s; removed its record" % (name, record["ended"])
    return "Session %s had ended (its keeper was gone); removed its stale record" % name


def run_session_command(opts, spec, words, output, argv, given=()):
    """`session open NAME [connection]`, `session list`, `session close NAME | --all`;
    ``given``: the connection words that came before `session` (they made ``spec``)."""
    action = words[0] if words else None
    if action == "open":
        return session_open(opts, spec, words[1:], output, argv, list(given))
    if action == "list":
        if len(words) != 1:
            raise UsageError("usage: mcp-tui session list")
        return session_list(output)
    if action == "close":
        names = words[1:]
        if opts.all == bool(names) or len(names) > 1:
            raise UsageError("usage: mcp-tui session close NAME | --all")
        return session_close(names or None, output)
    raise UsageError("usage: mcp-tui session open NAME [connection] | session list | session close NAME | --all")


def session_open(opts, spec, words, output, argv, given=()):
    if not words or len(words) > 2:
        raise UsageError("usage: mcp-tui session open NAME [connection]")
    name, connection = check_session_name(words[0]), words[1:]
    if connection and spec is not None:
        raise UsageError("give the connection once: %r or the connection flags" % connection[0])
    connection = connection or given  # the keeper reads the connection from the same words
    if spec is None:
        spec, _ = spec_from_options(opts, connection, output.credentials)
    if spec is None or spec.kind == "session":
        raise UsageError("session open %s needs a connection: a stdio command, --url URL or --config FILE" % name)
    if opts.idle <= 0:
        raise UsageError("--idle must be more than 0 minutes")
    record = KeptSessions().get(name)
    if record is not None and not record.get("opening"):
        if keeper_status(name, record) is not None:
            raise McpTuiError("session %r is already open" % name, hint=name_taken_hint(name))
        output.notice(gone_text(name, record))
    token = hold_session_name(name)
    try:
        record = start_keeper(name, argv, connection, opts.timeout, output.notice, token=token)
    except BaseException:
        release_session_name(name, token)
        raise
    if output.json:
        output.document({"session": dict(describe_record(name, record), opened=True)})
    else:
        output.text(open_line(name, record))
    return EXIT_OK


def name_taken_hint(name):
    return "use it as @%s, or close it first: mcp-tui session close %s" % (name, name)


def hold_session_name(name):
    """Hold ``name`` for the keeper about to start, under the sessions file's lock, so that
    of two `session open`s one wins and the other starts nothing; returns the token the
    keeper will own the name with. Taken: a running keeper's name, or one that another
    `session open` is still starting a keeper for."""
    import secrets

    token = secrets.token_hex(32)

    def hold(data):
        held = data.get(name)
        if held is not None and "ended" not in held and process_running(held.get("pid")):
            return held
        data[name] = {"opening": True, "token": token, "pid": os.getpid(), "created": time.time()}
        return None
    if KeptSessions().update(hold) is not None:
        raise McpTuiError("session %r is already open" % name, hint=name_taken_hint(name))
    return token


def release_session_name(name, token):
    """A `session open` that failed lets the name go (unless its keeper took it after all)."""
    def release(data):
        held = data.get(name)
        if held is not None and held.get("opening") and held.get("token") == token:
            del data[name]
    KeptSessions().update(release)


def describe_record(name, record, status=None):
    item = {"name": name, "server": record.get("server"), "version": record.get("version"),
            "era": record.get("era"), "transport": record.get("transport"), "connection": record.get("connection")}
    if status is not None:
        item.update(age=status["age"], idle=status["idle"], attached=status["attached"],
                    openTasks=status["openTasks"], pid=status["pid"])
    return item


def session_list(output):
    rows = []
    for name, record in sorted(KeptSessions().read().items()):
        if not isinstance(record, dict) or record.get("opening"):  # no session yet: a keeper is starting
            continue
        status = keeper_status(name, record)
        if status is None:
            output.notice(gone_text(name, record))
            continue
        rows.append(describe_record(name, record, status))
    if output.json:
        output.document({"sessions": rows})
        return EXIT_OK
    if not rows:
        output.progress("No sessions. Open one: mcp-tui session open NAME CONNECTION")
        return EXIT_OK
    table = [("NAME", "SERVER", "ERA", "TRANSPORT", "AGE", "IDLE", "TASKS")]
    for row in rows:
        table.append((row["name"], "%s %s" % (row["server"], row["version"]), row["era"], row["transport"],
                      duration_text(row["age"]), "in use" if row["attached"] else duration_text(row["idle"]),
                      str(row["openTasks"])))
    widths = [max(len(str(line[i])) for line in table) for i in range(len(table[0]))]
    for line in table:
        output.text("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip())
    return EXIT_OK


def session_close(names, output):
    sessions = KeptSessions()
    records = sessions.read()
    if names is None:
        names = sorted(name for name, record in records.items() if isinstance(record, dict)
                       and not still_opening(record))
    closed = []
    for name in names:
        record = records.get(name)
        if record is None:
            raise McpTuiError("no session named %r" % name, hint="mcp-tui session list shows the open ones")
        if still_opening(record):
            raise McpTuiError("session %r is still opening" % name,
                              hint="close it once `mcp-tui session open %s` has finished" % name)
        ended = record.get("ended")
        state = "stale" if ended is not None or record.get("opening") else "closed"  # a killed open's hold
        if state == "stale":  # it stopped by itself and said why: only the record is left
            sessions.remove(name, record["token"])
        else:
            transport = KeeperTransport(name, record)
            try:
                transport.hello("close", timeout=30.0)
            except KeeperGone:
                sessions.remove(name, record["token"])
                state = "stale"
            finally:
                transport.close()
        closed.append(dict({"name": name, "state": state}, **({"ended": ended} if ended is not None else {})))
        if not output.json:
            output.text("Session %s closed" % name if state == "closed" else gone_text(name, record))
    if output.json:
        output.document({"closed": closed})
    elif not closed:
        output.progress("No sessions to close.")  # --all with none open: not silence
    return EXIT_OK


def wants_background_session(opts, spec, words):
    """A stdio task started without --wait would die with the command: keep its server."""
    return (spec is not None and spec.kind == "stdio" and opts.task and not opts.wait
            and command_name(words[0]) == "tool" and words[1:2] == ["call"])


def start_task_session(opts, argv, output):
    """Start an automatic keeper for a stdio task; returns the spec that reaches it."""
    import secrets

    name = "pending-" + secrets.token_hex(4)  # renamed after the task's fingerprint once it exists
    start_keeper(name, argv, list(opts.words), opts.timeout, output.notice, auto=True)
    return ConnectionSpec("session", name=name)  # the command says so once it has created a task


def terminal_prompt(prompt):
    sys.stderr.write(clean(prompt))
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


class SkillCommands(CliCommands):
    """`skill list | get | verify | fetch` (the io.modelcontextprotocol/skills extension), and
    what `tool describe` and `resource read -o` add for an MCP Apps view."""

    def run(self, args):
        action, rest = self.cli.sub(args, ("list", "get", "verify", "fetch"))
        return getattr(self, action)(rest)

    def list(self, args):
        self.cli.expect(args, 0, "CONNECTION skill list")
        skills = list_skills(self.cli.connect())
        if self.out.json:
            self.out.document({"result": {"skills": skills}})
            return
        for entry in skills:
            self.out.text(skill_summary(entry))
        self.cli.count(skills, "skill")

    def get(self, args):
        word, = self.cli.expect(args, 1, "CONNECTION skill get NAME|URI")
        entry = find_skill(self.cli.connect(), word)
        problems = skill_entry_problems(entry)
        if self.out.json:
            self.out.document({"result": {"skill": entry}, "problems": problems})
        else:
            self.out.text(describe_skill(entry, problems))

    def public(self, outcome):
        return dict(outcome, files=[{k: v for k, v in row.items() if k != "raw"} for row in outcome["files"]])

    def verify(self, args):
        if len(args) > 1:
            raise UsageError("usage: mcp-tui CONNECTION skill verify [NAME|URI] [--require-digests]")
        session = self.cli.connect()
        entries = [find_skill(session, args[0])] if args else list_skills(session)
        outcomes = [check_skill(session, entry, self.opts.require_digests) for entry in entries]
        if self.out.json:
            self.out.document({"skills": [self.public(o) for o in outcomes], "ok": all(o["ok"] for o in outcomes)})
        else:
            self.out.text("\n".join(skill_report(o) for o in outcomes) or "(no skills)")
        return EXIT_OK if all(o["ok"] for o in outcomes) else EXIT_FAILURE

    def fetch(self, args):
        word, = self.cli.expect(args, 1, "CONNECTION skill fetch NAME|URI -o DIR")
        if not self.opts.output:
            raise UsageError("skill fetch needs -o DIR, the directory to write the skill's files into")
        target = self.opts.output
        if os.path.exists(target) and not os.path.isdir(target):
            raise UsageError("%s is not a directory" % target)
        session = self.cli.connect()
        outcome = check_skill(session, find_skill(session, word), self.opts.require_digests)
        if not outcome["ok"]:
            bad = [row for row in outcome["files"] if row["status"] != "verified"]
            raise McpTuiError("skill %s did not verify, so nothing was written: %s" % (outcome["path"], "; ".join(
                ["%s %s (%s)" % (row["uri"], row["status"], skill_check_detail(row)) for row in bad]
                or outcome["problems"])))
        root = outcome["skill"][:-len("SKILL.md")]
        files = []
        for row in outcome["files"]:
            relative = row["uri"][len(root):]
            parts = relative.split("/")
            if not relative or any(part in ("", ".", "..") or "\\" in part or ":" in part for part in parts):
                raise McpTuiError("skill %s: %r is not a file path mcp-tui writes; nothing was written"
                                  % (outcome["path"], relative))
            path = os.path.join(target, *parts)
            if os.path.lexists(path):
                raise UsageError("%s already exists; nothing was written" % path, hint="fetch into a new directory")
            files.append((path, row["raw"]))
        for path, raw in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "xb") as handle:
                handle.write(raw)
        if self.out.json:
            self.out.document(dict(self.public(outcome), written=[path for path, _ in files]))
        else:
            self.out.text(skill_report(outcome))
            self.out.progress("%d files written under %s" % (len(files), target))

    def app_of(self, session, tool):
        """The view of an app tool, read (or the error that stopped the read); None for other tools."""
        view = app_view(tool)
        if view is None:
            return None
        try:
            return dict(read_app_view(session, view["resourceUri"]), **view)
        except McpTuiError as exc:
            return exc


# ======================================================================================
# 8. TUI: the curses screens over one session
#
# Uses sections 1-6 (never the CLI). Screens: connection, main (tools, resources,
# prompts, server info), tool form, tasks, elicitation and sampling review, debug.
# curses is imported only here. 8a is the app (the loop, the session, task following),
# 8b the screens, 8c the widgets they are made of, 8d text measured for a terminal.
#
# One rule holds the TUI together: the UI thread only draws and reads keys. Everything that
# touches the network runs on a worker thread and hands its outcome back through the app's
# inbox, a queue the UI thread drains between keys. A server's input request (elicitation,
# sampling) arrives on some other thread; that thread opens a form through the inbox and
# waits on an Event until the user answers it.

TUI_TICK_MS = 100  # redraw period while a clock shows (a call's elapsed time, a task's TTL, a toast)
LOSS_CHECK_SECONDS = 1.0  # connected and idle: how often to look for a stream lost without a message
INBOX_BUDGET = 0.05  # seconds of posted work per turn of the loop, between a redraw and a key
TOAST_SECONDS = 5.0  # how long server news (a log line, a resource update) shows over the key hints
MIN_COLUMNS, MIN_ROWS = 40, 10


# -- 8a. The app: the loop, the inbox, the session and the tasks it follows ----------------


def run_tui(options, spec, credentials):
    """The TUI for ``mcp-tui [connection]`` with no command (``spec`` None: the connection
    screen asks); ``credentials`` is the run's SecretRegistry. Returns the exit code."""
    try:
        import curses
    except ImportError:
        sys.stderr.write("mcp-tui: the TUI needs curses; on Windows run: pip install windows-curses\n")
        return EXIT_FAILURE
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the TUI needs a terminal; give a command to use mcp-tui in a script",
                         hint="see mcp-tui --help")
    # Everything that can fail on bad flags fails here, before curses takes the screen.
    stubs = (load_stub("--elicit-stub", options.elicit_stub), load_stub("--sampling-stub", options.sampling_stub))
    log = make_log(options, credentials)  # no --debug echo: stderr lines would tear the curses screen
    import locale

    try:
        locale.setlocale(locale.LC_CTYPE, "")  # curses draws UTF-8 only under the user's locale
    except locale.Error:
        pass  # a broken $LANG: curses still runs, with ASCII only
    os.environ.setdefault("ESCDELAY", "25")  # Esc means "back" at once, not after curses' default second
    forget_exported_size()
    restore = quit_on_hangup()
    try:
        return curses.wrapper(lambda window: Tui(options, spec, window, curses, log, stubs).run())
    except curses.error as exc:
        if not sys.stdin.isatty():
            return EXIT_INTERRUPTED  # the terminal hung up: curses cannot restore it, nobody reads an error
        raise McpTuiError("cannot run the TUI on this terminal: %s" % exc,
                          hint="$TERM is %s" % (os.environ.get("TERM") or "not set"))
    finally:
        restore()


def quit_on_hangup():
    """A closed terminal window (SIGHUP) or a kill (SIGTERM) quits the way Ctrl+C does, so the
    session closes and a stdio server that ignores the end of its input (the everything
    server) is stopped; dying at once left it running. An ignored signal (nohup) stays
    ignored. Returns what puts the previous handlers back."""
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = {}
    for name in ("SIGHUP", "SIGTERM"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            previous[number] = signal.signal(number, interrupt)
    return lambda: [signal.signal(number, handler) for number, handler in previous.items()]


def forget_exported_size():
    """ncurses believes exported LINES/COLUMNS over the terminal's real size, and then never
    follows a resize; an exported copy is stale as soon as the window changes."""
    try:
        os.get_terminal_size(sys.stdout.fileno())
    except OSError:
        return  # no size from the terminal: the variables are all curses has
    for name in ("LINES", "COLUMNS"):
        os.environ.pop(name, None)


class Inbox:
    """What the workers post for the UI thread, and the loop's sleep: a post, a debug-log entry
    (a message arrived, both ways) or a resize wakes the loop at once, so results show as they
    come and an idle TUI sleeps. The wake is a byte on one end of a socketpair, which the loop
    selects together with the terminal: sockets, not a pipe, as select on Windows takes only
    sockets (there the console cannot be selected: get_wch keeps the tick, ``key_wait_ms``)."""

    def __init__(self, window=None, curses=None, log=None):
        import queue
        import signal
        import socket

        self.queue, self.window, self.curses = queue.Queue(), window, curses
        self.selects_terminal = sys.platform != "win32"
        self.key_wait_ms = 0 if self.selects_terminal else TUI_TICK_MS
        self.reader, self.writer = socket.socketpair()
        for end in (self.reader, self.writer):
            end.setblocking(False)
        self.pending = False  # a byte is on its way: more wakes add nothing until the loop drains it
        if log is not None:
            log.sinks.append(self.wake)
        if window is not None and self.selects_terminal and hasattr(signal, "SIGWINCH"):
            signal.signal(signal.SIGWINCH, self.wake)  # ncurses' own handler would not end a select

    def put(self, item):
        self.queue.put(item)
        self.wake()

    def get_nowait(self):
        return self.queue.get_nowait()

    def wake(self, *_):
        """(Any thread, or a signal handler.)"""
        if self.pending:
            return
        self.pending = True
        try:
            self.writer.send(b"\0")
        except OSError:
            pass  # the buffer is full (a wake is waiting anyway), or the loop has ended

    def drain(self):
        """Before the loop looks at what arrived: a wake after this one ends the next sleep.
        A resize is passed on to curses, which queues KEY_RESIZE (the app repaints)."""
        self.pending = False
        try:
            while self.reader.recv(4096):
                pass
        except OSError:
            pass  # nothing more to read
        if self.window is None or not self.selects_terminal:
            return  # curses' own handler and get_wch see to a resize
        try:
            size = os.get_terminal_size(sys.stdout.fileno())
        except OSError:
            return
        if (size.lines, size.columns) != self.window.getmaxyx():
            try:
                self.curses.resizeterm(size.lines, size.columns)
            except self.curses.error:
                pass

    def sleep(self, app):
        """No key came: wait for one or a wake, for the tick while a clock shows on ``app``'s
        screens, a second while connected (a stream can end without a message), else without
        limit. False when the terminal hung up (SIGHUP ignored: nohup), as get_wch then fails
        at once and the loop must not spin."""
        if not sys.stdin.isatty():
            return False
        if not self.selects_terminal:
            return True  # get_wch waited the tick
        seconds = None if app.session is None or app.disconnected else LOSS_CHECK_SECONDS
        if (app.toast and time.monotonic() < app.toast[1]) or app.attempt or app.work_running() or any(
                getattr(screen, "running", False) or isinstance(screen, (TasksScreen, TaskDetailScreen, HistoryScreen))
                for screen in app.stack):
            seconds = TUI_TICK_MS / 1000.0
        self.wait(sys.stdin.fileno(), seconds)
        return True

    def wait(self, terminal, seconds):
        """Until the ``terminal`` (its fd) has input, a wake comes, or ``seconds`` pass (None:
        no limit). True when woken."""
        import select

        try:
            return self.reader in select.select([terminal, self.reader], [], [], seconds)[0]
        except (OSError, ValueError):
            return False  # a terminal gone: the loop's next read says so


class Binding:
    """One key of a screen, written once: its footer hint, its help line and what it does.
    ``key`` is the key as the footer, the help and the README show it; ``codes`` the key
    names it answers (default: ``key`` where there is an action; none: a key the screen's
    widget or the app handles, listed so that the footer and the help say it); ``hint`` the
    footer's word for it, or a function of the screen where the word changes ("": not in
    the footer; True: the key alone); ``help`` its help line (or a function of the screen),
    after ``help_key`` (default ``key``); ``action(screen, key)`` what it does, returning
    False when it leaves the key to others (None: the app's shared key, which the screen
    only shows); ``when(screen)``: whether the binding applies now."""

    def __init__(self, key, hint="", help="", action=None, codes=None, when=None, help_key=None):
        self.key, self.hint, self.help, self.action = key, hint, help, action
        self.codes = codes if codes is not None else (key,) if action is not None else ()
        self.when, self.help_key = when, help_key or key

    def applies(self, screen):
        return self.when is None or self.when(screen)

    def hint_text(self, screen):
        """The footer's part for this key: "KEY word", the key alone (``hint`` True), or ""."""
        hint = self.hint(screen) if callable(self.hint) else self.hint
        return self.key if hint is True else ("%s %s" % (self.key, hint) if hint else "").strip()

    def help_line(self, width, screen):
        """The help screen's line: the keys in a column ``width`` wide (a longer key gets two
        spaces), the text after them; a line break in the text continues under the text."""
        column = self.help_key.ljust(width - 2) + "  "
        text = self.help(screen) if callable(self.help) else self.help
        return column + text.replace("\n", "\n" + " " * len(column))


def press(bindings, owner, key):
    """Run the binding of ``key`` that applies now: None when none used it; else whether it
    used the key (an app's shared key, shown by a screen, is not used there: False)."""
    for binding in bindings:
        if key in binding.codes and binding.applies(owner):
            if binding.action is None:
                return False
            if binding.action(owner, key) is not False:
                return True
    return None  # an action that returns False leaves the key to the next binding, then to the screen


def key_action(action):
    """A binding's action that uses every key it is given (most do): ``action(screen)``."""
    return lambda screen, key: action(screen) or True


class Tui:
    """The app: a stack of screens over one session, the tasks it knows, and the inbox that
    brings worker results to the UI thread."""

    def __init__(self, options, spec, window, curses, log, stubs):
        self.opts = options
        self.spec = spec
        self.ledger = None if options.no_ledger else TaskLedger()
        self.window = window
        self.curses = curses
        self.terminal_sequences = terminal_takes_sequences()  # after initscr: curses has set the console up
        self.log = log
        self.stubs = stubs
        self.inbox = Inbox(window, curses, log)  # every message and event in the debug log may change the screen
        self.keys = KeyReader(window, curses, self.inbox.key_wait_ms)
        self.style = Style(curses)
        self.closing = threading.Event()
        self.stack = []
        self.status = ""
        self.status_is_error = False
        self.status_screen = None  # the screen on top when the status was said: it goes with that screen
        self.question = None  # (text, on_yes) while a y/n question waits for its key
        self.toast = None  # (text, until): a server log line over the hints, leaving the status alone
        self.session = None
        self.tasks = None  # the session's TaskForm
        self.attempt = None  # the ConnectAttempt under way
        self.disconnected = None  # why the connection ended, until a reconnect
        self.task_book = TaskBook()
        self.follower = TaskFollower(self)
        self.history = CallHistory()
        self.roots = list(options.root)  # the roots offered to servers; the roots screen (R) edits them
        self.subscriptions = {}  # resource URI -> its ChangeWatch (None while it is being set up)
        self.changed = set()  # subscribed resources the server changed since they were last read
        self.tool_screens = {}  # tool name -> its ToolScreen, kept for the session
        self.resumed_sessions = []  # earlier runs' HTTP sessions resumed for their tasks (o on the tasks screen)
        self.exit_code = None
        self.connection = TuiConnection(self)  # connecting, reconnecting, the server lost and back
        self.recording = None  # (MessageRecorder, path) while F9 records
        log.sinks.append(self.connection.watch_answers)

    # -- the loop -------------------------------------------------------------------------

    def run(self):
        self.prepare_terminal()
        connect = ConnectScreen(self, self.spec)
        self.stack = [connect]
        if self.spec is not None:
            connect.connect()
        try:
            while self.exit_code is None:
                self.inbox.drain()
                self.run_posted()
                self.connection.notice_lost_connection()
                self.draw()
                key = self.keys.read()
                if key is not None:
                    self.guarded(self.dispatch, key)
                elif not self.inbox.sleep(self):  # the terminal hung up
                    self.quit_interrupted()
        except KeyboardInterrupt:
            self.exit_code = EXIT_INTERRUPTED
        finally:
            self.bracketed_paste(False)
            self.closing.set()  # input requests still waiting get "cancel"
            if self.attempt is not None:
                self.attempt.abandon(wait=True)  # a server being started must not outlive the app
            if self.session is not None:
                self.session.close()
            self.close_resumed_sessions()
        return self.exit_code

    def prepare_terminal(self):
        curses = self.curses
        curses.raw()  # Ctrl+C, Ctrl+S and Ctrl+Q arrive as keys, not as signals or flow control
        curses.nonl()  # Return arrives as itself: a pasted CR LF is one line break, not two
        self.window.keypad(True)
        self.window.timeout(self.keys.idle_ms)
        curses.typeahead(-1)  # finish every repaint even while keys are waiting: no half-drawn screens
        self.bracketed_paste(True)
        try:
            curses.curs_set(0)
        except curses.error:
            pass  # a terminal without cursor visibility control: the reverse-video cursor still shows

    def run_posted(self):
        """Run what the workers posted, for at most INBOX_BUDGET seconds: a server that floods
        notifications must not keep the screen from being drawn or keys from being read."""
        import queue

        until = time.monotonic() + INBOX_BUDGET
        while time.monotonic() < until:
            try:
                function, args = self.inbox.get_nowait()
            except queue.Empty:
                return
            self.guarded(function, *args)

    def guarded(self, function, *args):
        """A bug in one handler shows on the status line instead of killing the session."""
        try:
            function(*args)
        except KeyboardInterrupt:
            raise
        except Exception as exc:  # our bug, never the server's string: keep the UI alive
            import traceback

            self.log.event("tui", "internal error: %s: %s" % (exc.__class__.__name__, exc),
                           traceback=traceback.format_exc())
            self.say("internal error: %s: %s (details in the debug screen)" % (exc.__class__.__name__, exc), True)

    def post(self, function, *args):
        """Run ``function(*args)`` on the UI thread (callable from any thread)."""
        self.inbox.put((function, args))

    def spawn(self, work, done=None, failed=None):
        """Run ``work()`` on a worker thread; its value goes to ``done`` and its exception
        to ``failed`` (default: the status line), both on the UI thread."""

        def run():
            try:
                value = work()
            except Exception as exc:  # every failure is reported on screen, none is raised into curses
                self.post(failed or self.report_failure, exc)
            else:
                if done is not None:
                    self.post(done, value)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def report_failure(self, exc):
        self.say(describe_failure(exc), True)
        if isinstance(exc, ConnectionFailed) and not isinstance(exc, HttpStatusError):
            self.connection.connection_ended(exc)  # an HTTP server is known gone only when a request fails

    def say(self, text, error=False):
        self.status = first_line(clean(self.log.credentials.redact(text))) if text else ""
        self.status_is_error = error
        self.status_screen = self.stack[-1] if self.stack else None

    def forget_status_of(self, screen):
        """A closed screen's news does not stay on the status line under the next one."""
        if self.status_screen is screen and self.question is None:
            self.say("")

    def show_toast(self, text):
        """News from the server for a few seconds over the key hints: the status line keeps
        the outcome of what the user did."""
        self.toast = (first_line(clean(text)), time.monotonic() + TOAST_SECONDS)

    def ask(self, text, on_yes):
        """A y/n question on the status line; the next key answers it (only y says yes)."""
        self.question = (text, on_yes)
        self.say("%s y/n" % text)

    def answer_question(self, key):
        text, on_yes = self.question
        self.question = None
        if key in ("y", "Y"):
            self.say("")
            on_yes()
        else:
            self.say("Kept.")

    # -- keys -----------------------------------------------------------------------------

    def dispatch(self, key):
        if press(GLOBAL_KEYS, self, key) is not None:
            return
        if self.too_small():
            if key in ("q", "ESC"):
                self.exit_code = EXIT_OK
            return
        if self.question is not None:
            self.answer_question(key)
            return
        screen = self.stack[-1]
        if isinstance(key, Paste):
            screen.on_paste(key.text)
        elif not screen.on_key(key):
            self.browse_key(key)

    def interrupt(self):
        """Ctrl+C: the top screen stops its own work, or the app quits."""
        if not self.stack[-1].interrupt():
            self.quit_interrupted()

    def quit_interrupted(self):
        self.exit_code = EXIT_INTERRUPTED

    def browse_key(self, key):
        """Keys every screen without a text field shares (BROWSE_KEYS)."""
        press(BROWSE_KEYS, self, key)

    def back(self):
        if len(self.stack) > 1:
            self.forget_status_of(self.stack.pop())
            self.window.clearok(True)  # a new screen is painted whole, not diffed against the old one
            self.stack[-1].on_show()
        elif self.work_running() and self.question is None:
            self.ask("%s still running; quit anyway?" % self.work_running(), self.quit)
        else:
            self.quit()

    def quit(self):
        self.exit_code = EXIT_OK

    def work_running(self):
        """What quitting would abandon: tool calls under way, and tasks followed here."""
        calls = sum(1 for screen in self.tool_screens.values() if screen.running and screen.task_id is None)
        tasks = sum(1 for row in self.task_book.rows.values() if row.following or (
            row.created_here and not row.task.terminal))
        parts = (["%d call%s" % (calls, "" if calls == 1 else "s")] if calls else []) + (
            ["%d task%s" % (tasks, "" if tasks == 1 else "s")] if tasks else [])
        return " and ".join(parts)

    def open(self, screen):
        self.stack.append(screen)
        self.window.clearok(True)
        screen.on_show()

    def close_screen(self, screen):
        """Remove a screen wherever it is in the stack (an answered form under the debug view)."""
        if screen in self.stack and len(self.stack) > 1:
            on_top = self.stack[-1] is screen
            self.stack.remove(screen)
            if on_top:
                self.stack[-1].on_show()

    def ping(self):
        session = self.session
        self.say("Pinging %s ..." % session.display_name())

        def work():
            started = time.monotonic()
            method = session.ping()
            return method, time.monotonic() - started

        self.spawn(work, lambda answer: self.say("Ping: %.1f ms round trip (%s)." % (answer[1] * 1000, answer[0])))

    def toggle_subscription(self, uri):
        """s on a resource: subscribe to its updates, or end the subscription."""
        if uri in self.subscriptions:
            watch = self.subscriptions.pop(uri)
            self.changed.discard(uri)
            if watch is not None:
                self.spawn(watch.close, lambda _: self.say("Unsubscribed from %s." % uri))
            return
        self.subscribe([uri])

    def subscribe(self, uris):
        session = self.session
        for uri in uris:
            self.subscriptions[uri] = None
            self.say("Subscribing to %s ..." % uri)

            def done(watch, uri=uri):
                if session is not self.session or uri not in self.subscriptions:
                    threading.Thread(target=watch.close, daemon=True).start()  # given up meanwhile
                    return
                self.subscriptions[uri] = watch
                self.say("Subscribed to %s%s." % (uri, ": the server refused it" if uri in watch.refused else ""),
                         uri in watch.refused)

            def failed(exc, uri=uri):
                self.subscriptions.pop(uri, None)
                self.report_failure(exc)

            self.spawn(lambda uri=uri: session.watch([uri], lambda message: None), done, failed)

    def roots_changed(self):
        session = self.session
        if session is None or self.disconnected:
            self.say("Roots changed (%d); a server gets them when it asks." % len(self.roots))
            return
        self.spawn(session.roots_changed, lambda sent: self.say(
            "Roots changed (%d); %s" % (len(self.roots), "the server was told (notifications/roots/list_changed)."
                                        if sent else "the server gets them with its next request for them.")))

    def resource_mark(self, uri):
        """* changed since read, + subscribed, else nothing."""
        return "*" if uri in self.changed else "+" if uri in self.subscriptions else " "

    def open_tool(self, tool):
        """The tool's screen as it was left (arguments, result, a call still running), or a
        new one when the tool is new or the server changed it."""
        screen = self.tool_screens.get(tool.get("name"))
        if screen is None or screen.tool != tool:
            screen = self.tool_screens[tool.get("name")] = ToolScreen(self, tool)
        self.open(screen)

    def open_debug(self):
        if not isinstance(self.stack[-1], DebugScreen):
            self.open(DebugScreen(self))

    def open_tasks(self):
        if self.session is None:
            self.say("Not connected yet.", True)
        elif not isinstance(self.stack[-1], TasksScreen):
            self.open(TasksScreen(self))

    def toggle_recording(self):
        """F9: every message both ways, from now until F9 again, to mcp-tui-TIME.jsonl in the
        working directory, as --record writes them (0600, credentials masked); `replay` reads it."""
        if self.recording is not None:
            self.log.stop_recording(self.recording[0])
            self.recording, (_, path) = None, self.recording
            return self.say("Recording stopped: %s." % path)
        path = time.strftime("mcp-tui-%Y%m%d-%H%M%S.jsonl")
        try:
            recorder = MessageRecorder(open_private(path), self.log.credentials)
        except OSError as exc:
            self.say("Cannot record to %s: %s" % (path, exc.strerror or exc), True)
            return
        self.recording = recorder, path
        self.log.record_to(recorder)
        self.say("Recording to %s (F9 stops)." % path)

    def open_help(self):
        screen = self.stack[-1]
        self.open(TextScreen(self, "Help", help_text(screen)))

    # -- drawing --------------------------------------------------------------------------

    def too_small(self):
        rows, columns = self.window.getmaxyx()
        return rows < MIN_ROWS or columns < MIN_COLUMNS

    def draw(self):
        rows, columns = self.window.getmaxyx()
        self.window.erase()
        canvas = Canvas(self.window, 0, 0, rows, columns, self.curses.error, self.style)
        if self.too_small():
            canvas.put(0, 0, "Terminal too small (%dx%d);" % (columns, rows), self.style.bold)
            canvas.put(1, 0, "mcp-tui needs %dx%d. q quits." % (MIN_COLUMNS, MIN_ROWS))
        else:
            screen = self.stack[-1]
            canvas.fill(0, self.style.title)
            canvas.put(0, 1, "%s  |  %s" % (screen.title(), self.connection_summary()), self.style.title)
            screen.draw(canvas.sub(1, 0, rows - 3, columns))
            if self.toast and time.monotonic() < self.toast[1]:
                canvas.put(rows - 2, 0, self.toast[0], self.style.bold)
            else:
                canvas.put(rows - 2, 0, screen.hints(), self.style.dim)
            self.draw_status(canvas.sub(rows - 1, 0, 1, columns))
        self.window.noutrefresh()
        self.curses.doupdate()

    def draw_status(self, canvas):
        """The status line; while the connection is down it says so (in its own style) until
        a y/n question or a reconnect needs the line."""
        if self.disconnected and self.question is None and not self.attempt:
            canvas.fill(0, self.style.disconnected)
            canvas.put(0, 0, "Disconnected: %s  (^R reconnects, C connects elsewhere)" % self.disconnected,
                       self.style.disconnected)
        elif self.question is not None:  # news arriving meanwhile (a task's progress) must not hide it
            canvas.put(0, 0, first_line(clean("%s y/n" % self.question[0])), self.style.status)
        else:
            canvas.put(0, 0, self.status, self.style.error if self.status_is_error else self.style.status)

    def connection_summary(self):
        session = self.session
        if session is None:
            return "mcp-tui: not connected"
        summary = session.summary()
        return "%s  %s  %s%s" % (session.display_name(), summary["protocolVersion"], summary["transport"],
                                 "  [disconnected]" if self.disconnected else "")

    def resized(self):
        """The terminal changed size: repaint everything at the new one. ncurses has resized
        stdscr and LINES/COLS by the time it returns KEY_RESIZE; PDCurses (windows-curses)
        only flags the event and leaves it to resize_term(0, 0), which reads the console's
        size. That call is only made on PDCurses: on ncurses it is not needed, and a 0x0
        resize_term there is not the "use the terminal's size" it is on PDCurses."""
        if is_pdcurses(self.curses):
            try:
                self.curses.resize_term(0, 0)
            except self.curses.error:
                pass  # the old size stays; the repaint below still fits it
        self.window.clear()

    def bracketed_paste(self, on):
        """The terminal marks pasted text (Esc [200~ ... Esc [201~), so a pasted newline is
        text, not Enter; terminals without the mode ignore the request."""
        self.write_terminal("\x1b[?2004%s" % ("h" if on else "l"))

    def write_terminal(self, sequence):
        """A control sequence for the terminal itself, sent between two curses refreshes;
        whether it went out (never onto a console that would paint it as text)."""
        if not self.terminal_sequences:
            return False
        try:
            sys.stdout.write(sequence)
            sys.stdout.flush()
        except (OSError, ValueError):
            return False
        return True

    def copy_to_clipboard(self, text):
        """OSC 52 asks the terminal to put ``text`` on the clipboard; terminals that do not
        support it ignore the sequence. It goes out between two curses refreshes. False when
        it could not be sent: the caller shows the text to copy by hand."""
        import base64

        payload = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return self.write_terminal("\x1b]52;c;%s\x07" % payload)

    def outside_curses(self, action):
        """Run ``action`` with the terminal given back (a console browser may take it)."""
        self.curses.def_prog_mode()
        self.bracketed_paste(False)
        self.curses.endwin()
        try:
            return action()
        finally:
            self.curses.reset_prog_mode()
            self.bracketed_paste(True)
            self.window.clear()

    def on_notification(self, message):
        method = message.get("method") or ""
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        task = self.tasks.task_from_notification(message) if self.tasks else None
        if task is not None:
            self.task_seen(task)
        elif method.endswith("/list_changed"):
            kind = method[len("notifications/"):-len("/list_changed")]
            for screen in self.stack:
                if isinstance(screen, MainScreen):
                    screen.reload([kind])
            self.say("The server changed its %s list; refreshed." % kind)
        elif method == "notifications/message":
            chosen = self.session.log_level if self.session is not None else None
            if chosen in LOG_LEVELS and params.get("level") in LOG_LEVELS[LOG_LEVELS.index(chosen):]:
                self.show_toast(log_text(params))
            # else only the debug screen's Logs tab has it: logs the user did not ask for (the
            # everything server's, every few seconds) would hide the key hints for good
        elif method == "notifications/resources/updated":
            uri = str(params.get("uri"))
            if uri not in self.changed and len(self.changed) < KEPT_CHANGED_RESOURCES:  # once until it is read
                self.changed.add(uri)  # again: one that changes every few seconds would hide the key hints
                self.show_toast("Resource updated: %s (marked * in the list)" % params.get("uri", "?"))

    # -- tasks ----------------------------------------------------------------------------

    def task_created(self, task, tool_name):
        self.task_book.update(task, tool_name, created_here=True)
        if self.ledger is not None:
            try:
                self.ledger.remember(task, self.tasks, tool_name)
            except (OSError, McpTuiError) as exc:
                self.log.event("tui", "cannot record the task in the ledger: %s" % exc)

    def task_seen(self, task):
        """A newer view of a task, from any source; a followed task's changes go to the status line."""
        row, changed = self.task_book.update(task)
        if changed and self.ledger is not None:
            self.ledger.note_status(task.task_id, task.status)  # a finished task no longer holds its session
        if changed and row.following:
            self.say("Task %s: %s" % (short_task_id(task.task_id), task.status_line()))

    def tasks_holding(self, task_id):
        """(On a worker.) The tasks of the session a task lives in: the HTTP session of an
        earlier run that the ledger recorded for it, resumed as `task get` resumes it, when
        that is not this session; else this session's."""
        session, ledger = self.session, self.ledger
        recorded = ledger.session_to_resume(task_id, session.spec) if ledger is not None else None
        if recorded is None or recorded.get("id") == (session.session_record() or {}).get("id"):
            return self.tasks
        responder = TuiResponder(self, self.stubs[0], self.stubs[1], self.roots)
        resumed = connect(session.spec, self.opts, responder, self.log, resume=recorded)
        self.resumed_sessions.append(resumed)
        return tasks_for(resumed)

    def close_resumed_sessions(self):
        """A resumed session stays on the server while the ledger holds a task that needs it."""
        sessions, self.resumed_sessions = self.resumed_sessions, []
        for session in sessions:
            try:
                session.keep_alive(self.ledger.live_tasks_in(session.session_record()["id"]) > 0)
            except (OSError, McpTuiError, TypeError):
                session.keep_alive(True)
            threading.Thread(target=session.close, daemon=True).start()

    # -- input requests from the server (called on other threads) --------------------------

    def ask_user(self, make_screen):
        """Open the screen ``make_screen(pending)`` and block until the user answers; None
        when the TUI closes first."""
        pending = PendingAnswer()
        self.post(lambda: self.open(make_screen(pending)))
        while not pending.event.wait(0.2):
            if self.closing.is_set():
                return None
        return pending.value


def connected_app(app):
    return app.session is not None


GLOBAL_KEYS = (  # the app's keys on every screen, before the screen sees them (README: "Any screen")
    Binding("", action=key_action(lambda app: app.resized()), codes=("RESIZE",)),  # repaint at the new size
    Binding("F1", "help", action=key_action(lambda app: app.open_help())),
    Binding("F12", "debug screen", action=key_action(lambda app: app.open_debug())),
    Binding("F9", "record", action=key_action(lambda app: app.toggle_recording())),
    Binding("^R", "reconnect", action=key_action(lambda app: app.connection.reconnect()), when=connected_app),
    Binding("^C", action=key_action(lambda app: app.interrupt())),
    Binding("^L", "redraw", action=key_action(lambda app: app.window.clear())))

BROWSE_KEYS = (  # the app's keys on every screen without a text field (README: "Screens without a text field")
    Binding("?", "help", action=key_action(lambda app: app.open_help())),
    Binding("D", "debug", action=key_action(lambda app: app.open_debug())),
    Binding("T", "tasks", action=key_action(lambda app: app.open_tasks())),
    Binding("H", "history", action=key_action(lambda app: app.open(HistoryScreen(app)))),
    Binding("C", "connection screen", action=key_action(lambda app: app.open(ConnectScreen(
        app, app.session.spec if app.session else app.spec)))),
    Binding("p", "ping", action=key_action(lambda app: app.ping()), when=connected_app),
    Binding("L", "log level", action=key_action(lambda app: app.open(log_level_screen(app))), when=connected_app),
    Binding("R", "roots", action=key_action(lambda app: app.open(RootsScreen(app)))),
    Binding("q", "back", action=key_action(lambda app: app.back()), codes=("q", "ESC")))


class TuiConnection:
    """The session's life in the TUI: connecting on a worker (the main screen replaces the
    others), reconnecting (the screens stay), noticing the server gone and back. The session
    itself stays on the app, which every screen reads."""

    def __init__(self, app):
        self.app = app

    def open_session(self, spec, on_failure, fresh=True):
        """Connect on a worker. ``fresh``: a new server, whose main screen replaces every
        screen; otherwise (a reconnect) the screens stay and refresh."""
        app = self.app
        if app.attempt is not None:
            app.attempt.abandon()
        if spec.auth is not None:
            spec.auth.try_again()  # a cancelled authorization asks again, not fails at once
        responder = TuiResponder(app, app.stubs[0], app.stubs[1], app.roots)
        attempt = app.attempt = ConnectAttempt()

        def work():
            session = connect(spec, app.opts, responder, app.log, tell=lambda text: app.post(app.say, text),
                              browser_step=lambda step: app.post(self.authorize, step),
                              started=attempt.started)
            if attempt.abandoned:
                session.close()
                raise ConnectionFailed("the connection attempt was cancelled")
            session.listen_for_list_changes()
            return session

        def failed(exc):
            if attempt is app.attempt:
                app.attempt = None
                on_failure(exc, getattr(exc, "stderr_lines", []))

        attempt.thread = app.spawn(work, lambda session: self.connected(session, attempt, fresh), failed)

    def authorize(self, step):
        """The browser step of OAuth: its screen, and the status line says what is awaited."""
        app = self.app
        app.open(AuthorizeScreen(app, step))
        app.say("Waiting for the authorization at %s (Esc cancels) ..." % clean(step.host))

    def cancel_connect(self):
        """Esc while connecting: give up the attempt (its server is stopped) and stay."""
        app = self.app
        if app.attempt is not None:
            app.attempt.abandon()
            app.attempt = None

    def connected(self, session, attempt, fresh):
        app = self.app
        if app.exit_code is not None or attempt is not app.attempt:
            session.close()  # the user quit, or gave up on this attempt, while it connected
            return
        app.attempt = None
        old, app.session, app.disconnected = app.session, session, None
        if old is not None:
            threading.Thread(target=old.close, daemon=True).start()  # a slow goodbye must not freeze the UI
        if old is not None and (fresh or not old.outlives_process()):
            # Another server, or a new process of a stdio one: the old tasks are not this server's.
            # Kept, the tasks screen would poll and cancel them here, sending their IDs (which a
            # server may use as bearer tokens) to a server that never made them.
            app.task_book = TaskBook()
            app.close_resumed_sessions()
        app.tasks = tasks_for(session)
        session.observers.append(lambda message: app.post(app.on_notification, message))
        homes = [screen for screen in app.stack if isinstance(screen, MainScreen)]
        if fresh or not homes:
            app.tool_screens = {}
            homes = [MainScreen(app)]
            app.stack = homes[:]
            app.window.clearok(True)
        homes[0].reload()
        uris, app.subscriptions = list(app.subscriptions) if not fresh else [], {}
        app.changed = set() if fresh else app.changed
        app.subscribe(uris)  # a reconnect subscribes again to what the old session had
        summary = session.summary()
        app.say("%s to %s (%s, %s)." % ("Connected" if fresh else "Reconnected", session.display_name(),
                                        summary["protocolVersion"], summary["transport"]))

    def reconnect(self):
        """Ctrl+R: the same server again (a stdio server is started afresh), the screens kept."""
        app = self.app
        spec = app.session.spec
        app.say("Reconnecting to %s ..." % spec.describe())
        threading.Thread(target=app.session.close, daemon=True).start()
        self.open_session(spec, self.reconnect_failed, fresh=False)

    def reconnect_failed(self, exc, stderr_lines):
        app = self.app
        app.disconnected = "reconnecting failed: %s" % describe_failure(exc)
        app.say(app.disconnected, True)

    def notice_lost_connection(self):
        """A stdio server's exit shows at once, keypress or not (the loop ticks)."""
        app = self.app
        if app.session is not None and not app.disconnected:
            lost = app.session.connection_lost()
            if lost is not None:
                self.connection_ended(lost)

    def watch_answers(self, entry):
        """(Any thread.) An answer from the server while the connection counts as lost: an HTTP
        server that came back (a restarted one gets a new session) is connected again."""
        app = self.app
        if app.disconnected and entry.get("type") == "message" and entry.get("direction") == "in" and entry.get(
                "kind") in ("response", "error"):
            app.post(self.server_back)

    def server_back(self):
        app = self.app
        session = app.session
        if not app.disconnected or session is None or session.spec.kind == "stdio":
            return
        listener = session.change_listener
        if listener is not None and listener.lost is not None:
            session.listen_for_list_changes()  # the listen ended with the old server: open one on this one
        if session.connection_lost():
            return
        app.disconnected = None
        app.log.event("tui", "the server answers again")
        for screen in app.stack:
            if isinstance(screen, MainScreen):
                screen.reload()
        lost = [uri for uri, watch in app.subscriptions.items() if watch is not None and watch.lost()]
        for uri in lost:  # their listen ended with the old server too: subscribe on this one
            app.subscriptions.pop(uri)
        app.subscribe(lost)
        app.say("%s answers again; its lists were refreshed." % session.display_name())

    def connection_ended(self, exc):
        app = self.app
        if app.session is not None and not app.disconnected and app.attempt is None:
            app.disconnected = describe_failure(exc)
            app.log.event("tui", "disconnected: %s" % app.disconnected)


class PendingAnswer:
    """One input request waiting for the user; the requesting thread waits on ``event``."""

    def __init__(self):
        self.event = threading.Event()
        self.value = None

    def give(self, value):
        self.value = value
        self.event.set()


class AnswerThen:
    """Where a form's answer goes when no thread waits for it: to a function."""

    def __init__(self, then):
        self.then = then

    def give(self, value):
        self.then(value)


class ConnectAttempt:
    """One connection being opened on a worker, which the UI thread may abandon (Esc, quit,
    another attempt): abandoning closes the session, and a session that opens afterwards
    is closed at once, so no server process is left behind."""

    def __init__(self):
        self.lock = threading.Lock()
        self.session = None
        self.abandoned = False
        self.thread = None

    def started(self, session):
        with self.lock:
            self.session = session
            if self.abandoned:
                raise ConnectionFailed("the connection attempt was cancelled")

    def abandon(self, wait=False):
        with self.lock:
            self.abandoned = True
            session = self.session
        if session is not None:
            threading.Thread(target=session.close, daemon=True).start()
        if wait and self.thread is not None:
            self.thread.join(5.0)  # the worker closes what it opened; then the process may exit
            if self.session is not None:
                self.session.close()


class TuiResponder(InputResponder):
    """Elicitation and sampling answered on screen (direct requests, MRTR rounds and task
    input alike); --elicit-stub and --sampling-stub still win when given."""

    def __init__(self, app, elicit_stub, sampling_stub, roots):
        InputResponder.__init__(self, elicit_stub, sampling_stub, roots)
        self.roots = roots  # the app's own list: the roots screen's edits apply to the next answer
        self.app = app

    def elicit(self, params, server_name):
        if self.elicit_stub is not None:
            return InputResponder.elicit(self, params, server_name)
        screen = UrlElicitationScreen if params.get("mode") == "url" else ElicitationScreen
        answer = self.app.ask_user(lambda pending: screen(self.app, params, server_name, pending))
        return answer or {"action": "cancel"}

    def sample(self, params, server_name):
        if self.sampling_stub is not None:
            return InputResponder.sample(self, params, server_name)
        answer = self.app.ask_user(lambda pending: SamplingScreen(self.app, params, server_name, pending))
        if answer is None:
            raise InputDeclined("User rejected sampling request", -1)
        return answer


class TaskRow:
    def __init__(self, task):
        self.task = task
        self.tool = ""
        self.created_here = False
        self.following = False
        self.result = None
        self.failure = None
        self.tasks = None  # the TaskForm of a resumed session the task lives in; None: the app's


def row_tasks(app, row):
    return row.tasks or app.tasks


class TaskBook:
    """Every task this session knows, created here or listed by the server; touched only
    on the UI thread."""

    def __init__(self):
        self.rows = {}  # task id -> TaskRow, in the order first seen

    def update(self, task, tool=None, created_here=False):
        """Record a view of a task; returns (row, whether its status line changed). An older
        view (out-of-order poll answer) never replaces a newer or a terminal one."""
        row = self.rows.get(task.task_id)
        if row is None:
            row = self.rows[task.task_id] = TaskRow(task)
            changed = True
        elif is_stale(task, row.task):
            changed = False
        else:
            changed = task.status_line() != row.task.status_line()
            row.task = task
        row.tool = tool or row.tool
        row.created_here = row.created_here or created_here
        return row, changed

    def newest_first(self):
        return list(reversed(list(self.rows.values())))


def is_stale(new, old):
    if old.terminal and not new.terminal:
        return True
    new_time = parse_timestamp(new.data.get("lastUpdatedAt"))
    old_time = parse_timestamp(old.data.get("lastUpdatedAt"))
    return new_time is not None and old_time is not None and new_time < old_time


class TaskFollower:
    """Follows tasks to their end on workers: every view of a task to the task book, input
    requests to forms (through the session's responder), and the result or the failure
    to the task's row and to the callbacks."""

    def __init__(self, app):
        self.app = app

    def follow(self, task_id, last_status=None, on_result=None, on_failure=None):
        app = self.app
        row = app.task_book.rows.get(task_id)
        if row is None or row.following:
            app.say("Already following task %s." % short_task_id(task_id) if row else "Unknown task.")
            return
        row.following = True
        tasks = row_tasks(app, row)
        deadline = time.monotonic() + app.opts.timeout
        reporter = StatusReporter(None, last_status, on_view=lambda task: app.post(app.task_seen, task))

        def done(result):
            row.following = False
            row.result, row.failure = result, None
            app.say("Task %s %s." % (short_task_id(task_id), "ended with a tool error (isError)"
                                     if result.get("isError") else "completed"))
            if on_result:
                on_result(result)

        def failed(exc):
            row.following = False
            row.failure = describe_failure(exc)
            app.say("Task %s: %s" % (short_task_id(task_id), row.failure), True)
            if on_failure:
                on_failure(exc)

        app.spawn(lambda: tasks.wait(task_id, deadline, reporter), done, failed)


# -- 8b. Screens ---------------------------------------------------------------------------


TAB_KEYS = ("TAB", "RIGHT", "l", "BTAB", "LEFT", "h")


def tab_chosen(key, tab, count):
    """The tab a key chooses on a screen with ``count`` tabs: a digit its tab (1 the first);
    Tab, Right, l the next; Shift-Tab, Left, h the one before."""
    step = {"TAB": 1, "RIGHT": 1, "l": 1, "BTAB": -1, "LEFT": -1, "h": -1}
    return (tab + step[key]) % count if key in step else int(key) - 1


class Screen:
    """One full-window view. The app draws the title bar, the hints and the status line,
    and offers every key to the top screen first. A screen's keys are its ``BINDINGS``
    (a table of Binding): they drive ``on_key``, the footer hints and the help screen."""

    BINDINGS = (Binding("q", "back"), Binding("?", "help"))
    HELP_COLUMN = 2  # the width of the help screen's key column
    HELP_NOTES = ()  # help lines after the keys

    def __init__(self, app):
        self.app = app

    def title(self):
        return ""

    def hints(self):
        return "  ".join(filter(None, (binding.hint_text(self) for binding in self.BINDINGS
                                       if binding.applies(self))))

    def help_lines(self):
        return [binding.help_line(self.HELP_COLUMN, self) for binding in self.BINDINGS if binding.help] + list(
            self.HELP_NOTES)

    def draw(self, canvas):
        pass

    def on_key(self, key):
        """True when the screen used the key; otherwise the app's shared keys apply."""
        used = press(self.BINDINGS, self, key)
        return self.other_key(key) if used is None else used

    def other_key(self, key):
        """A key no binding answers: the screen's list or text view may use it (True)."""
        return False

    def on_paste(self, text):
        """Pasted text goes into a text field; a screen without one drops it (a paste is
        never a run of key presses)."""
        self.app.say("Nothing to paste into here.", True)

    def on_show(self):
        pass

    def interrupt(self):
        """Ctrl+C: True when the screen stopped some work of its own; otherwise the app quits."""
        return False


class TextScreen(Screen):
    """Long text to read: help, a message's JSON, a resource's contents."""

    BINDINGS = (Binding("j/k PgUp/PgDn Home/End", "scroll"), Binding("", lambda screen: screen.view.position()),
                Binding("q", "back"))

    def __init__(self, app, title, text):
        Screen.__init__(self, app)
        self.name = title
        self.view = TextView(text)

    def title(self):
        return self.name

    def draw(self, canvas):
        self.view.draw(canvas)

    def other_key(self, key):
        return self.view.on_key(key)


QUIT_QUESTION = "Discard your input and quit?"


def form_keys(*bindings):
    """A form's table: its own bindings (what the footer and the help show), then the keys
    every form has, not shown again: ^X submits, Esc goes back (asking on an edited form),
    PgUp/PgDn scroll the output, Tab completes where the server offers values, ^E at the end
    of a text field opens the text area. Every other key goes to the fields."""
    return bindings + (
        Binding("^X", action=key_action(lambda screen: screen.submit())),
        Binding("Esc", action=key_action(lambda screen: screen.escape()), codes=("ESC",)),
        Binding("PgUp/PgDn", action=lambda screen, key: screen.output.on_key(key), codes=("PGUP", "PGDN")),
        Binding("Tab", action=lambda screen, key: screen.complete(), codes=("TAB",)),
        Binding("^E", action=lambda screen, key: screen.open_text_area()))


def completing(screen):
    return screen.completer is not None and screen.completer.offered()


class FieldScreen(Screen):
    """A form over an output pane: connection, tool, template, prompt and input forms.
    Keys go to the form first, so ``q`` and every letter type themselves; Esc goes back."""

    submit_label = "Run"
    output_title = "Result"
    BINDINGS = form_keys(
        Binding("Tab", lambda screen: "complete" if completing(screen) else ""),
        Binding("Up/Down", lambda screen: "move" if completing(screen) else ""),
        Binding("Tab/arrows", lambda screen: "" if completing(screen) else "move"),
        Binding("Enter/^X", lambda screen: screen.submit_label.lower()),
        Binding("^E", lambda screen: "" if completing(screen) or "^E" not in screen.field_keys() else "edit"),
        Binding("^N", lambda screen: "" if completing(screen) or "^N" not in screen.field_keys() else "null"),
        Binding("PgUp/PgDn", "scroll"),
        Binding("F12", lambda screen: "" if completing(screen) or screen.field_keys() else "debug"),
        Binding("Esc", "back"))

    def __init__(self, app, intro=""):
        Screen.__init__(self, app)
        self.intro = TextView(intro)
        self.output = TextView("")
        self.field_list = FieldList([])
        self.running = False
        self.started = None
        self.elapsed = None
        self.progress = ""
        self.clean_state = None  # the fields as last opened or run: Esc asks before losing edits
        self.completer = None  # a Completer where the server completes this form's values

    def field_keys(self):
        """The keys of the form's text fields, for the footer: ^E edit (the text area), and
        ^N null where a field allows null. The same for the whole form: a footer that changed
        from field to field would look like news."""
        texts = [item for item in self.field_list.items if isinstance(item, TextField)]
        return ("^E edit  " if texts else "") + ("^N null  " if any(item.nullable for item in texts) else "")

    def on_key(self, key):
        if self.clean_state is None:
            self.mark_clean()  # before the first key changes anything
        return Screen.on_key(self, key)

    def other_key(self, key):
        self.field_list.on_key(key)
        return True  # a form screen owns every key, so letters type (an unknown Alt key does nothing)

    def escape(self):
        if self.changed():
            self.app.ask("Discard your input?", self.discard)
        else:
            self.cancel()

    def focused_text(self):
        focused = self.field_list.items[self.field_list.focus] if self.field_list.items else None
        return focused if isinstance(focused, TextField) else None

    def complete(self):
        """Tab in a text field the server completes; False: Tab moves on."""
        focused = self.focused_text()
        if focused is None or not completing(self):
            return False
        self.completer.complete(focused)

    def open_text_area(self):
        """^E at the end of a text field; False elsewhere (^E: the end of the line). On an
        array of objects it opens the list, element by element, when the field holds one."""
        focused = self.focused_text()
        if focused is None or focused.cursor != len(focused.text):
            return False
        elements = field_elements(focused)
        if elements is not None:
            self.app.open(ObjectListScreen(self.app, focused, elements))
        else:
            self.app.open(TextAreaScreen(self.app, focused))

    def on_paste(self, text):
        if self.clean_state is None:
            self.mark_clean()  # a paste before any key is an edit too
        if not self.field_list.paste(text):
            self.app.say("Move to a text field to paste.", True)

    def interrupt(self):
        """Ctrl+C with nothing running quits, and quitting drops the input: on an edited form
        it asks first, as Esc does. Ctrl+C again while it asks means yes."""
        if self.running or not self.changed() or self.app.question == (QUIT_QUESTION, self.app.quit_interrupted):
            return False
        self.app.ask(QUIT_QUESTION, self.app.quit_interrupted)
        return True

    def mark_clean(self):
        self.clean_state = self.field_list.state()

    def changed(self):
        return self.clean_state is not None and self.field_list.state() != self.clean_state

    def discard(self):
        self.field_list.restore(self.clean_state)
        self.cancel()

    def cancel(self):
        self.app.back()

    def submit(self):
        pass

    def draw(self, canvas):
        intro_rows = min(len(self.intro.rows(canvas.width)), max(1, canvas.height // 4)) if self.intro.text else 0
        self.intro.draw(canvas.sub(0, 0, intro_rows, canvas.width))
        top = intro_rows + (1 if intro_rows else 0)
        available = canvas.height - top - 1  # less the hint row
        if self.has_output():
            available //= 2  # the output pane gets the other half
        form_rows = min(self.field_list.height(), max(1, available))
        self.field_list.draw(canvas.sub(top, 0, form_rows, canvas.width), self.app.style)
        top += form_rows
        canvas.put(top, 0, self.field_list.hint(), self.app.style.dim)
        if self.has_output():
            canvas.put(top + 1, 0, self.output_heading(canvas.width), self.app.style.bold)
            self.output.draw(canvas.sub(top + 2, 0, canvas.height - top - 2, canvas.width))

    def has_output(self):
        return True

    def output_heading(self, width):
        if self.running:
            state = "running %.1fs%s" % (time.monotonic() - self.started, "  " + self.progress if self.progress else "")
        elif self.elapsed is not None:
            state = "%.2fs  %s" % (self.elapsed, self.output.position())
        else:
            state = ""
        heading = "-- %s %s " % (self.output_title, state)
        return heading + "-" * max(0, width - cells(heading))

    def start(self, work, done):
        """Run ``work`` on a worker; ``done(value)`` fills the output pane."""
        if self.running:
            self.app.say("Still running; wait for it to finish.", True)
            return
        self.running, self.started, self.elapsed, self.progress = True, time.monotonic(), None, ""
        self.mark_clean()  # what was run is kept; Esc now leaves without asking
        self.output.set_text("")
        self.app.spawn(work, lambda value: self.finish(done, value), self.fail)

    def finish(self, done, value):
        self.running, self.elapsed = False, time.monotonic() - self.started
        done(value)

    def fail(self, exc):
        self.running = False
        self.elapsed = time.monotonic() - self.started if self.started else None
        self.output.set_text("Error: %s" % describe_failure(exc))
        self.app.say(describe_failure(exc), True)
        if isinstance(exc, UrlElicitationRequired):
            self.offer_urls(exc)

    def offer_urls(self, exc):
        """-32042: each URL the server needs opened gets the URL-request screen (nothing opens
        without consent); afterwards ^X sends the request again."""
        server = self.app.session.display_name()
        for params in reversed(exc.elicitations):
            then = AnswerThen(lambda answer: self.app.say(
                "URL request: %s. When you are done there, ^X sends the request again." % answer["action"]))
            self.app.open(UrlElicitationScreen(self.app, dict(params, mode="url"), server, then))
        self.output.set_text("Error: %s\n\nThe server needs %d URL(s) opened first; then press ^X to retry." % (
            describe_failure(exc), len(exc.elicitations)))

    def collect(self, required=True):
        """The form's values, or None after saying what is wrong (and focusing that field)."""
        try:
            return self.field_list.collect(required)
        except UsageError as exc:
            self.app.say(exc.message, True)
            return None


HOST_PORT_PATH = r"^(localhost|[\w.-]+|\[[0-9A-Fa-f:]+\]):\d+(/\S*)?$"  # a URL without http:// (compiled on use)


class ConnectScreen(FieldScreen):
    """Where to connect: a URL or a stdio command, transport, protocol version, headers, and
    the servers the usual config files list. A failure shows the reason and the server's
    stderr, and the form stays for a retry or an edit."""

    submit_label = "Connect"
    output_title = "Connection"
    BINDINGS = form_keys(
        Binding("Esc", "cancel the attempt", action=key_action(lambda screen: screen.cancel()), codes=("ESC",),
                when=lambda screen: screen.running),
        Binding("Tab/arrows", "move", when=lambda screen: not screen.running),
        Binding("Enter/^X", "connect", action=lambda screen, key: screen.connect_from_field(), codes=("ENTER",),
                when=lambda screen: not screen.running),
        Binding("^R", "retry", action=key_action(lambda screen: screen.connect(screen.attempted)),  # asks again
                when=lambda screen: not screen.running and screen.attempted is not None),
        Binding("^Y", "copy entry", "on a server from a config file: copy its entry as JSON, its ${VAR}s as the "
                                    "file has them (OSC 52 clipboard)",
                key_action(lambda screen: screen.copy_entry()), when=lambda screen: screen.focused_server()),
        Binding("F12", "debug"),
        Binding("Esc", lambda screen: "back" if screen.stacked() else "quit", when=lambda screen: not screen.running))
    HELP_NOTES = (
        "Type a URL or a stdio command line, pick the transport and protocol version, add headers",
        "('Name: value'), then Enter (or ^X) anywhere in the form connects. A stdio server's arguments are",
        "part of its command line in Server. Env takes NAME=value pairs (quoted as in a shell) for a stdio",
        "server, Directory its working directory; Client ID and Scope are OAuth's (--client-id, --scope).",
        "Servers found in --config and",
        "in the Claude Desktop, VS Code and .mcp.json files are listed as buttons: Enter connects.",
        "A config file's path typed into Server lists that file's servers instead.",
        "^R tries the last attempt again (a cancelled authorization asks again).")

    def __init__(self, app, spec):
        FieldScreen.__init__(self, app, "Connect to an MCP server: a URL (http://...) or a command line that "
                                       "starts a stdio server.")
        self.base_spec = self.attempted = spec
        opts = app.opts
        headers = self.header_fields(spec)
        self.target = TextField("target", "Server", text=spec.describe() if spec else "", required=True,
                                placeholder="URL or command line",
                                description="a URL, or a stdio server's command line with its arguments, quoted "
                                            "as in a shell")
        self.transport = ChoiceField("transport", "Transport", [(k, k) for k in ("auto", "stdio", "http", "sse")],
                                     required=True, default=("sse" if spec and spec.kind == "sse" else opts.transport))
        self.protocol = ChoiceField("protocol", "Protocol", [(p, p) for p in PROTOCOL_CHOICES], required=True,
                                    default=spec.protocol if spec else opts.protocol)
        self.headers = [TextField("header%d" % i, "Header", placeholder="Name: value",
                                  text="%s: %s" % headers[i] if i < len(headers) else "") for i in range(3)]
        self.env = TextField("env", "Env", placeholder="NAME=value ...", description=(
            "a stdio server's environment variables, added to its own (and to --env's): NAME=value, "
            "several separated by spaces, a value with spaces in quotes"))
        self.cwd = TextField("cwd", "Directory", text=(spec.cwd if spec else opts.cwd) or "",
                             placeholder="the working directory", description="a stdio server's working directory")
        self.client_id = TextField("client_id", "Client ID", placeholder="OAuth client id",
                                   description="a client id registered with the authorization server (--client-id)")
        self.scope = TextField("scope", "Scope", placeholder="OAuth scopes",
                               description="the scopes to ask for, separated by spaces (--scope; default: what "
                                           "the server says)")
        self.show_oauth(spec)
        self.list_servers(known_servers(opts))

    def show_oauth(self, spec):
        """The OAuth identity the options and the config entry give, in its fields."""
        try:
            settings = AuthSettings.from_options(self.app.opts, spec.oauth if spec else None)
        except UsageError:
            settings = AuthSettings()  # a bad combination is reported when connecting
        self.client_id.set_text(settings.client_id or "")
        self.scope.set_text(settings.scope or "")
        self.oauth_shown = (self.client_id.text, self.scope.text)

    def list_servers(self, servers):
        """The form's fields, then Connect, then a button for each server from config files."""
        self.known = servers
        self.server_buttons = [(Button("%s (%s)" % (server.name, server.source), self.choose(server),
                                       row_of_its_own=True), server) for server in self.known]
        buttons = [Button("Connect", self.submit)] + [button for button, _ in self.server_buttons]
        self.field_list = FieldList([self.target, self.transport, self.protocol] + self.headers + [
            self.env, self.cwd, self.client_id, self.scope] + buttons)
        self.output.set_text(self.known_servers_text())

    @staticmethod
    def header_fields(spec):
        """The headers the fields show: not a credential, and from a config file only as a
        ${VAR} placeholder (a value written in the file stays with the spec, unseen)."""
        config_headers = spec.shown.headers if spec is not None and spec.shown is not None else {}
        shown = []
        for name, value in (spec.headers.items() if spec else ()):
            if name in config_headers:
                if re.search(CONFIG_VARIABLE, config_headers[name]):
                    shown.append((name, config_headers[name]))
            elif not secret_header(name):
                shown.append((name, value))
        return shown

    def title(self):
        return "Connect"

    def focused_server(self):
        """The config file's server whose button has the focus, or None."""
        focused = self.field_list.items[self.field_list.focus] if self.field_list.items else None
        return next((server for button, server in self.server_buttons if button is focused), None)

    def copy_entry(self):
        server = self.focused_server()
        text = json.dumps({server.name: shareable_config_entry(server.entry)}, indent=2, ensure_ascii=False)
        copied = self.app.copy_to_clipboard(text)
        self.output.set_text("The entry of %s in %s (%s):\n%s" % (server.name, server.path, COPIED if copied
                                                                  else NOT_COPIED, text))
        self.app.say("Copied the config entry of %s as JSON." % server.name if copied else NOT_COPIED.capitalize())

    def stacked(self):
        """Opened from the main screen (C), over a session that stays until a new one opens."""
        return len(self.app.stack) > 1 and self.app.stack[-1] is self

    def connect_from_field(self):
        """As the footer says: Enter connects from any field; on a button it presses it (False)."""
        if isinstance(self.field_list.items[self.field_list.focus], Button):
            return False
        self.submit()

    def cancel(self):
        if self.running:
            self.app.connection.cancel_connect()
            self.running, self.elapsed = False, time.monotonic() - self.started
            self.output.set_text("Connection attempt cancelled.\n\n" + self.known_servers_text())
            self.app.say("Connection attempt cancelled.")
        elif self.stacked():
            self.app.back()
        else:
            self.app.exit_code = EXIT_OK

    def known_servers_text(self):
        if not self.known:
            return "No servers found in --config, Claude Desktop, VS Code or .mcp.json files."
        return "Servers from config files (Enter on one connects):\n" + "\n".join(
            "  %s: %s  [%s]" % (server.name, server.describe(), server.path) for server in self.known)

    def choose(self, server):
        def connect():
            try:
                spec = server.spec(self.protocol.current(), self.app.log.credentials)
            except McpTuiError as exc:
                self.app.say(describe_failure(exc), True)
                return
            self.base_spec = spec
            self.target.set_text(spec.describe())
            self.show_oauth(spec)
            self.connect(spec)

        return connect

    def submit(self):
        if self.running:
            return
        servers = self.config_file_typed()
        if servers is not None:
            self.open_config_file(servers)
            return
        try:
            spec = self.spec_from_fields()
            self.authorize_from_fields(spec)
        except McpTuiError as exc:
            self.app.say(in_connect_words(describe_failure(exc)), True)
            return
        self.connect(spec)

    def config_file_typed(self):
        """The servers of a config file typed (or pasted) into Server, which is no program to
        run; None when Server holds something else."""
        text = self.target.text.strip()
        path = os.path.expanduser(text[1:-1] if text[:1] == text[-1:] and text[:1] in "'\"" else text)
        if not text or not os.path.isfile(path) or (os.access(path, os.X_OK) and not path.endswith(".json")):
            return None
        return config_file_servers(path)

    def open_config_file(self, servers):
        path = servers[0].path if servers else self.target.text.strip()
        self.list_servers(servers)
        if servers:
            self.field_list.focus = len(self.field_list.fields()) + 1  # past Connect: the first server
            self.app.say("%d server%s in %s: Enter on one connects." % (len(servers), "" if len(servers) == 1 else "s",
                                                                        path))
        else:
            self.app.say("%s is a config file that lists no servers." % path, True)

    def connect(self, spec=None, resume=None):
        """Open a session (or, with ``resume``, continue a recorded legacy HTTP one)."""
        spec = self.attempted = spec or self.base_spec
        self.running, self.started, self.elapsed = True, time.monotonic(), None
        self.progress = "connecting to %s" % spec.describe()
        self.app.say("Connecting to %s ..." % spec.describe())
        self.app.connection.open_session(spec, self.failed)

    def failed(self, exc, stderr_lines):
        self.running, self.elapsed = False, time.monotonic() - self.started
        lines = ["Could not connect: %s" % describe_failure(exc), "",
                 "Edit the fields and press Enter to retry."]
        if stderr_lines:
            lines += ["", "The server's stderr (last %d lines):" % len(stderr_lines[-20:])] + stderr_lines[-20:]
        # "localhost:8080/mcp" was taken for a program to start: say what was meant, first
        url = "http://" + self.target.text.strip()
        schemeless = self.attempted.kind == "stdio" and re.match(HOST_PORT_PATH, self.target.text.strip())
        if schemeless:
            lines[1:1] = ["", "A URL needs its scheme: did you mean %s?" % url]
        lines[0] = in_connect_words(lines[0])  # mcp-tui's words; the server's stderr stays as it was written
        self.output.set_text(self.app.log.credentials.redact("\n".join(lines)))
        self.app.say("Could not connect: did you mean %s? (a URL needs http://)" % url if schemeless
                     else lines[0], True)

    def spec_from_fields(self):
        text = self.target.text.strip()
        transport, protocol = self.transport.current(), self.protocol.current()
        headers = dict(parse_header_option(f.text) for f in self.headers if f.text.strip())
        headers.update(auth_headers(self.app.opts))
        base = self.base_spec
        if not text:
            raise UsageError("enter a URL or a command line")
        url = text.startswith(("http://", "https://"))
        if url and transport == "stdio":
            raise UsageError("Transport stdio starts a command line; Server holds a URL: choose Transport auto, "
                             "http or sse")
        if not url and transport in ("http", "sse"):
            raise UsageError("Transport %s needs a URL (http://...) in Server" % transport)
        if base is not None and text == base.describe():
            kind = transport if base.kind != "stdio" and transport in ("http", "sse") else base.kind
            shown = dict(self.header_fields(base))  # a field still showing a placeholder stands for its value
            kept = {n: v for n, v in base.headers.items() if n not in shown and n not in headers and (
                secret_header(n) or base.shown is not None and n in base.shown.headers)}
            headers = {n: base.headers[n] if shown.get(n) == v else v for n, v in headers.items()}
            spec = ConnectionSpec(kind, url=base.url, argv=base.argv, env=dict(base.env, **self.field_env(url)),
                                  cwd=self.field_cwd(url), headers=dict(kept, **headers), protocol=protocol,
                                  source=base.source)
            spec.shown, spec.oauth = base.shown, base.oauth
            return spec
        env = dict(parse_env_option(e) for e in self.app.opts.env)
        env.update(self.field_env(url))
        return build_spec(text, transport, protocol, headers, env, self.field_cwd(url))

    def field_env(self, url):
        """Env's NAME=value pairs, read as --env reads each; the values are registered as
        secrets (an API key is the usual one), so no status line shows them."""
        text = self.env.text.strip()
        if text and url:
            raise UsageError("Env is for a stdio server's command line; Server holds a URL")
        try:
            pairs = dict(parse_env_option(word) for word in split_command_line(text))
        except ValueError as exc:
            raise UsageError("cannot split Env: %s" % exc)
        for value in pairs.values():
            self.app.log.credentials.add(value, "env")
        return pairs

    def field_cwd(self, url):
        path = os.path.expanduser(self.cwd.text.strip())
        if path and url:
            raise UsageError("Directory is for a stdio server's command line; Server holds a URL")
        if path and not os.path.isdir(path):
            raise UsageError("Directory %s is not a directory" % path)
        return path or None

    def authorize_from_fields(self, spec):
        """An HTTP server's Authorizer with the Client ID and Scope fields in place of
        --client-id and --scope (and of the config entry's): what connect() would build from
        the options, with the user's edits."""
        client_id, scope = self.client_id.text.strip() or None, self.scope.text.strip() or None
        if spec.kind == "stdio":
            if (self.client_id.text, self.scope.text) != self.oauth_shown and (client_id or scope):
                raise UsageError("Client ID and Scope are for an HTTP server's OAuth; Server holds a command line")
            return
        split_http_url(spec.url)  # as connect() does, before the authorizer reads it
        options = copy_options(self.app.opts, client_id=client_id, scope=scope)
        oauth = {key: value for key, value in (spec.oauth or {}).items()
                 if key not in ("client_id", "clientId", "client-id", "scope")}
        spec.oauth = oauth
        app = self.app
        spec.auth = authorizer_for(spec, options, app.log, lambda text: app.post(app.say, text))


def shareable_config_entry(entry):
    """A config file's server entry to copy: its ${VAR}s as the file has them, and a secret
    written in it literally (an env value, a credential header, an OAuth client secret) as a
    ${VAR} too, never its value: the clipboard is not a place for credentials."""
    def placeholder(name, value):
        if not isinstance(value, str) or re.search(CONFIG_VARIABLE, value):
            return value
        return "${%s}" % re.sub(r"[^A-Za-z0-9_]", "_", name).upper()

    shared = dict(entry)
    if isinstance(entry.get("env"), dict):
        shared["env"] = {name: placeholder(name, value) for name, value in entry["env"].items()}
    if isinstance(entry.get("headers"), dict):
        shared["headers"] = {name: placeholder(name, value) if secret_header(name) else value
                             for name, value in entry["headers"].items()}
    if isinstance(entry.get("oauth"), dict):
        shared["oauth"] = {key: placeholder("MCP_TUI_CLIENT_SECRET", value) if "secret" in key.lower() else value
                           for key, value in entry["oauth"].items()}
    return shared


CONNECT_WORDS = ((r"leave out --transport sse", "choose Transport auto"), (r"try --transport sse", "choose Transport sse"),
                 (r"--transport (\w+)", r"Transport \1"), (r"drop --protocol-version", "choose Protocol auto"),
                 (r"try --protocol-version", "choose Protocol"), (r"--protocol-version", "Protocol"),
                 (r"--header", "Header"), (r"--url", "Server"), (r"--env needs", "Env needs"), (r"--env", "the environment"),
                 (r"--client-id", "Client ID"), (r"--scope", "Scope"))


def copy_options(opts, **changes):
    """The command line's options with some of them changed, for one connection."""
    import argparse

    return argparse.Namespace(**dict(vars(opts), **changes))


def in_connect_words(text):
    """A message written for the command line, in the connect screen's words: its fields, not
    the CLI's options."""
    for pattern, words in CONNECT_WORDS:
        text = re.sub(pattern, words, text)
    return text


class SkillsTab:
    """The main screen's Skills tab, shown where the server serves skills: its list and detail
    pane are the main screen's (a Catalog of "skill" entries); this is what the tab adds: v
    checks every file of the selected skill as `skill verify` does, Enter lists its files to
    read one."""

    BINDINGS = (Binding("v", "verify", "on the Skills tab: read every file of the skill and check its size and "
                        "SHA-256 against the manifest, as skill verify does (✓/✗ per file)",
                        key_action(lambda screen: screen.skills.verify()),
                        when=lambda screen: screen.tab_name() == "skills"),)

    def __init__(self, screen):
        self.screen, self.app = screen, screen.app

    def verify(self):
        entry = self.screen.selected_entry()
        if entry is None:
            self.app.say("No skill to verify.", True)
            return
        if entry.verification != "running":
            entry.verification, session = "running", self.app.session
            self.app.say("Verifying %s ..." % skill_path(entry.data))
            self.app.spawn(lambda: check_skill(session, entry.data), lambda outcome: self.verified(entry, outcome),
                           lambda exc: self.failed(entry, exc))

    def verified(self, entry, outcome):
        entry.verification = outcome
        self.app.say(skill_report(outcome).split("\n", 1)[0], not outcome["ok"])

    def failed(self, entry, exc):
        entry.verification = "Cannot verify: %s" % describe_failure(exc)
        self.app.report_failure(exc)

    def open_files(self, entry):
        """The files of the skill's manifest (with ✓/✗ once verified); Enter reads one."""
        files = entry.data.get("resources")
        files = [f for f in files if isinstance(f, dict)] if isinstance(files, list) else []
        if not files:
            self.app.say("%s lists no files: %s." % (skill_path(entry.data), skill_size(entry.data)), True)
            return
        checked = entry.verification.get("files") if isinstance(entry.verification, dict) else ()
        marks = dict((row["uri"], check_mark(row["status"] == "verified")) for row in checked)
        labels = ["%s %s" % (marks.get(f.get("uri"), " "), skill_manifest_line(f)) for f in files]
        self.app.open(PickScreen(self.app, "Skill: %s" % skill_path(entry.data), labels,
                                 lambda index: self.app.open(ResourceScreen(self.app, {"uri": str(files[index].get(
                                     "uri"))})), intro="Its files (size, digest, URI): Enter reads one"))


def skill_entry_detail(entry):
    """The Skills tab's detail pane: the skill's frontmatter and manifest, then its last check."""
    verification = entry.verification
    if isinstance(verification, dict):
        verification = "Verification:\n" + skill_report(verification)
    elif verification is None:
        verification = "v verifies every file (size, then SHA-256); Enter lists the files to read one."
    elif verification == "running":
        verification = "Verifying ..."
    return describe_skill(entry.data, skill_entry_problems(entry.data)) + "\n\n" + verification


class MainScreen(Screen):
    """Tabs for tools, resources (and templates), prompts, the server and (where the server
    serves them) skills; a list with a detail pane."""

    TABS = ("tools", "resources", "prompts", "server", "skills")
    LISTS = ("tools", "resources", "prompts", "skills")  # the tabs with a Catalog
    OPTIONAL = ("skills",)  # tabs shown only where the server offers their list
    BINDINGS = (
        Binding("1-5", help="switch tabs (Tools, Resources and templates, Prompts, Server, and Skills where the "
                            "server serves them)",
                action=lambda screen, key: screen.switch_tab(key), help_key="1-5, Tab, Left/Right",
                codes=("1", "2", "3", "4", "5") + TAB_KEYS),
        Binding("j/k", "scroll", when=lambda screen: screen.on_server_tab()),
        Binding("j/k", help="move in the list; Home/End first/last", help_key="j/k, arrows, PgUp/PgDn"),
        Binding("J/K", help="scroll the detail pane (schema, annotations)", codes=("J", "K"),
                action=lambda screen, key: screen.scroll_detail(key), when=lambda screen: not screen.on_server_tab()),
        Binding("Enter", "open", "open: a tool's form, a resource's contents, a prompt, a skill's files",
                codes=("ENTER",), action=key_action(lambda screen: screen.open_selected()),
                when=lambda screen: not screen.on_server_tab()),
        *SkillsTab.BINDINGS,
        Binding("/", lambda screen: "" if screen.on_server_tab() else "filter",
                "a new filter for this tab's list (Enter keeps it, Esc clears it)",
                key_action(lambda screen: screen.new_filter())),
        Binding("r", "refresh", "refresh the lists (list_changed notifications do it too)",
                key_action(lambda screen: screen.reload(announce=True))),
        Binding("p", "ping"), Binding("L", "log level", when=lambda screen: screen.on_server_tab()),
        Binding("T", "tasks"), Binding("H", "history"), Binding("?", "help"), Binding("q", "quit"),
        Binding("Esc", codes=("ESC",), action=key_action(lambda screen: screen.filter.clear()),  # only q quits here
                when=lambda screen: not screen.on_server_tab()),
        Binding("T / D (or F12) / q", help="tasks screen / debug screen / quit (asks while calls or tasks run)"))
    HELP_COLUMN = 24

    def __init__(self, app):
        Screen.__init__(self, app)
        self.tab = 0
        self.catalogs = {name: Catalog() for name in self.LISTS}
        self.catalogs["skills"].offered = False  # until the server is seen to serve them
        self.selections = {name: Selection() for name in self.LISTS}
        self.filters = {name: SearchBar() for name in self.TABS}  # each tab its own: a filter stays on its tab
        self.matches = {}  # tab -> (needle, entries, the entries that match): keys must not filter 10,000 again
        self.detail = TextView("")
        self.detail_entry = None  # the entry the detail pane shows, to scroll back up on a new one
        self.loading = set()  # the lists a reload still waits for
        self.announce = False
        self.server_view = TextView("")
        self.skills = SkillsTab(self)

    @property
    def filter(self):
        return self.filters[self.tab_name()]

    def tabs(self):
        return [name for name in self.TABS if name not in self.OPTIONAL or self.catalogs[name].offered]

    def tab_name(self):
        return self.tabs()[self.tab]

    def title(self):
        return "mcp-tui"

    def hints(self):
        return "type to filter  Enter keep  Esc clear" if self.filter.active else Screen.hints(self)

    def on_server_tab(self):
        return self.tab_name() == "server"

    # -- loading --------------------------------------------------------------------------

    def reload(self, kinds=None, announce=False):
        """Load the lists again; ``announce``: say so on the status line, and when it is done."""
        session = self.app.session
        self.loading = set()
        self.announce = announce
        if announce:
            self.app.say("Refreshing the lists ...")
        shown = self.tab_name()
        for kind in kinds or self.LISTS:
            if kind not in self.catalogs:
                continue
            catalog = self.catalogs[kind]
            catalog.offered = catalog_offered(session, kind)
            if not catalog.offered:
                catalog.entries = []
                continue
            catalog.loading = True
            self.loading.add(kind)
            self.app.spawn(lambda kind=kind: CATALOG_LOADERS[kind](session),
                           lambda entries, kind=kind: self.loaded(kind, entries),
                           lambda exc, kind=kind: self.load_failed(kind, exc))
        tabs = self.tabs()  # an optional tab may have come or gone: stay on the same tab where it is still there
        self.tab = tabs.index(shown) if shown in tabs else min(self.tab, len(tabs) - 1)

    def loaded(self, kind, entries):
        catalog = self.catalogs[kind]
        catalog.entries, catalog.error, catalog.loading = entries, None, False
        self.one_loaded(kind)

    def load_failed(self, kind, exc):
        catalog = self.catalogs[kind]
        catalog.error, catalog.loading = describe_failure(exc), False
        self.one_loaded(kind)
        if isinstance(exc, ConnectionFailed):
            self.app.report_failure(exc)

    def one_loaded(self, kind):
        """The refresh's status line ends with the last list: how it went."""
        self.loading.discard(kind)
        if self.loading or not self.announce:
            return
        failed = [name for name, catalog in self.catalogs.items() if catalog.error]
        if failed:
            self.app.say("Refresh failed for %s: %s" % (", ".join(failed), self.catalogs[failed[0]].error), True)
        else:
            self.app.say("Lists refreshed.")

    # -- keys -----------------------------------------------------------------------------

    def on_key(self, key):
        return self.filter.on_key(key) if self.filter.active else Screen.on_key(self, key)

    def other_key(self, key):
        if self.on_server_tab():
            return self.server_view.on_key(key)
        return self.selections[self.tab_name()].on_key(key, len(self.visible_entries()))

    def switch_tab(self, key):
        chosen = tab_chosen(key, self.tab, len(self.tabs()))
        if chosen < len(self.tabs()):  # 5 without a Skills tab chooses nothing
            self.tab = chosen

    def new_filter(self):
        self.filter.clear()  # a new filter, not more text behind the last one
        self.filter.active = True

    def scroll_detail(self, key):
        self.detail.on_key("DOWN" if key == "J" else "UP")

    def on_paste(self, text):
        self.filter.paste(text)  # pasting on the list filters it, as / then the text would

    def visible_entries(self, name=None):
        """The entries of a tab (this one by default) that match the filter."""
        name = name or self.tab_name()
        if name == "server":
            return []
        needle = self.filters[name].needle()
        entries = self.catalogs[name].entries
        if not needle:
            return entries
        kept = self.matches.get(name)
        if kept is None or kept[0] != needle or kept[1] is not entries:
            narrower = kept is not None and kept[1] is entries and needle.startswith(kept[0])
            kept = self.matches[name] = (needle, entries, [e for e in (kept[2] if narrower else entries)
                                                           if needle in e.search_text])
        return kept[2]

    def selected_entry(self):
        """The entry selected in this tab's list, or None."""
        entries = self.visible_entries()
        return entries[self.selections[self.tab_name()].index] if entries else None

    def open_selected(self):
        entry = self.selected_entry()
        if entry is None:
            return
        if entry.kind == "tool":
            self.app.open_tool(entry.data)
            return
        if entry.kind == "skill":
            self.skills.open_files(entry)
            return
        screen = {"resource": ResourceScreen, "template": TemplateScreen, "prompt": PromptScreen}[entry.kind]
        self.app.open(screen(self.app, entry.data))

    # -- drawing --------------------------------------------------------------------------

    def draw(self, canvas):
        self.draw_tabs(canvas.sub(0, 0, 1, canvas.width))
        body = canvas.sub(1, 0, canvas.height - 1, canvas.width)
        if self.tab_name() == "server":
            self.server_view.set_text(describe_server(self.app.session, self.app.tasks), keep_position=True)
            self.server_view.draw(body)
            return
        list_width = max(24, min(48, body.width * 2 // 5))
        self.draw_list(body.sub(0, 0, body.height, list_width))
        self.draw_detail(body.sub(0, list_width + 1, body.height, body.width - list_width - 1))

    def read_view_of(self, entry):
        """The MCP Apps view of the tool shown, read on a worker for its detail (MIME type,
        size, SHA-256, CSP, permissions, as `tool describe` shows them): only the tools a user
        looks at are read, once each."""
        entry.app_reading = True
        session, view = self.app.session, app_view(entry.data)

        def failed(exc):
            entry.app = exc if isinstance(exc, McpTuiError) else McpTuiError("%s: %s" % (
                exc.__class__.__name__, exc))

        self.app.spawn(lambda: dict(read_app_view(session, view["resourceUri"]), **view),
                       lambda app: setattr(entry, "app", app), failed)

    def draw_tabs(self, canvas):
        col = 0
        for index, name in enumerate(self.tabs()):
            label = "%d %s" % (index + 1, self.tab_label(name))
            canvas.put(0, col, " %s " % label, self.app.style.reverse if index == self.tab else self.app.style.dim)
            col += cells(label) + 3

    def tab_label(self, name):
        if name == "server":
            return "Server info"
        catalog = self.catalogs[name]
        if catalog.loading and not catalog.entries:
            count = "..."
        elif not catalog.offered:
            count = "-"
        elif name == "resources":
            kinds = [e.kind for e in self.visible_entries(name)]  # counts follow the filter
            count = "%d+%d" % (kinds.count("resource"), kinds.count("template"))
        else:
            count = str(len(self.visible_entries(name)))
        return "%s (%s)" % (name.capitalize(), count)

    def draw_list(self, canvas):
        name = self.tab_name()
        catalog = self.catalogs[name]
        height = canvas.height - (1 if self.filter.shown() else 0)
        entries = self.visible_entries()
        if not catalog.offered:
            canvas.put(0, 0, "The server offers no %s." % name, self.app.style.dim)
        elif catalog.error:
            canvas.put(0, 0, "Error: %s" % catalog.error, self.app.style.error)
        elif catalog.loading and not catalog.entries:
            canvas.put(0, 0, "Loading ...", self.app.style.dim)
        elif not entries:
            canvas.put(0, 0, "No match." if self.filter.needle() else "The server lists none.", self.app.style.dim)
        selection = self.selections[name]
        for row, index, attr in list_rows(canvas, 0, height, selection, len(entries), self.app.style):
            canvas.put(row, 0, self.app.resource_mark(entries[index].data.get("uri")), attr)
            canvas.put(row, 1, entries[index].label, attr)
        self.filter.draw(canvas.sub(canvas.height - 1, 0, 1, canvas.width), self.app.style)

    def draw_detail(self, canvas):
        entry = self.selected_entry()
        if entry is None:
            return
        if entry.kind == "tool" and not entry.app_reading and app_view(entry.data):
            self.read_view_of(entry)
        self.detail.set_text(entry.detail(self.app.tasks), keep_position=entry is self.detail_entry)
        self.detail_entry = entry
        self.detail.draw(canvas)


class Catalog:
    """One tab's list as the server last gave it."""

    def __init__(self):
        self.entries = []
        self.offered = True
        self.loading = False
        self.error = None


class Entry:
    """A tool, resource, template, prompt or skill as the main screen lists it."""

    def __init__(self, kind, data):
        self.kind = kind
        self.data = data
        self.verification = None  # a skill's last check (v): "running", check_skill's outcome, or why it failed
        self.app = None  # a tool's MCP Apps view as read_app_view read it, or why it could not; None until then
        self.app_reading = False  # the view is being read (once, when the tool is first shown)
        name = str(data.get("name") or data.get("uri") or data.get("uriTemplate") or "?")
        annotations = data.get("annotations") if isinstance(data.get("annotations"), dict) else {}
        title = data.get("title") or annotations.get("title") or ""
        if kind == "tool":
            self.label = name + (" [task]" if listed_task_support(data) in ("optional", "required") else "")
        elif kind == "skill":
            self.label = skill_row(data)
        elif kind in ("resource", "template"):
            self.label = ("template: " if kind == "template" else "") + str(
                data.get("title") or data.get("name") or data.get("uri") or data.get("uriTemplate"))
        else:
            arguments = [a.get("name", "?") for a in data.get("arguments") or () if isinstance(a, dict)]
            self.label = "%s(%s)" % (name, ", ".join(arguments))
        fields = [data.get(k) for k in ("name", "description", "uri", "uriTemplate")] + [title] + (
            [self.label] if kind == "skill" else [])
        self.search_text = " ".join(str(f) for f in fields if f).lower()

    def detail(self, tasks):
        return entry_detail(self, tasks)


def load_tools(session):
    return [Entry("tool", tool) for tool in tools_by_name(session, refresh=True).values()]


def load_resources(session):
    entries = [Entry("resource", r) for r in list_all(session, "resources/list", "resources") if isinstance(r, dict)]
    try:
        templates = list_all(session, "resources/templates/list", "resourceTemplates")
    except RpcError:
        templates = []  # a server with resources but no templates may not know the method
    return entries + [Entry("template", t) for t in templates if isinstance(t, dict)]


def load_prompts(session):
    return [Entry("prompt", p) for p in list_all(session, "prompts/list", "prompts") if isinstance(p, dict)]


def load_skills(session):
    return [Entry("skill", entry) for entry in list_skills(session)]


CATALOG_LOADERS = {"tools": load_tools, "resources": load_resources, "prompts": load_prompts, "skills": load_skills}


def catalog_offered(session, kind):
    """Whether the server offers a tab's list: its capability, or for skills the extension."""
    return skills_settings(session) is not None if kind == "skills" else kind in session.capabilities


def entry_detail(entry, tasks):
    if entry.kind == "skill":
        return skill_entry_detail(entry)
    if entry.kind == "tool":
        return describe_tool(entry.data, tasks, app=entry.app)
    if entry.kind == "prompt":
        return describe_prompt(entry.data)
    return describe_resource(entry.data) + "\n\nEnter %s." % (
        "fills in the template and reads it" if entry.kind == "template" else "reads it")


class ToolScreen(FieldScreen):
    """A form built from the tool's inputSchema. Execute calls the tool, or with task mode
    (Ctrl+T) calls it as a task and follows it to its result. The app keeps one per tool
    for the session: reopened, it shows the last arguments and result, and a call keeps
    running while the screen is closed."""

    submit_label = "Execute"
    BINDINGS = (
        Binding("^C", "cancel the call", "cancel the running call (a task: asks, then tasks/cancel)",
                lambda screen, key: screen.cancel_on_button(), codes=("x",), help_key="^C, or x on a button",
                when=lambda screen: screen.running),
        Binding("^X", lambda screen: "" if screen.running else "execute",
                "execute (required fields, formats and limits are checked first)"),
        Binding("^T", lambda screen: "" if screen.running else "task mode",
                "task mode: call the tool as a task and follow it", key_action(lambda screen: screen.toggle_task_mode())),
        Binding("^Y", lambda screen: "" if screen.running else "copy",
                "copy the equivalent mcp-tui command (shell-quoted; OSC 52 clipboard)",
                key_action(lambda screen: screen.copy_command())),
        Binding("^E", lambda screen: "" if screen.running or "^E" not in screen.field_keys() else "edit",
                "at the end of a text field: a text area (newlines and tabs)"),
        Binding("^N", lambda screen: "" if screen.running or "^N" not in screen.field_keys() else "null",
                "on a field whose schema allows null: send JSON null (again: clear)"),
        Binding("Tab", lambda screen: "move" if screen.running or "^N" not in screen.field_keys() else "",
                "move between fields and buttons; Enter moves on, or presses a button",
                help_key="Tab/Shift-Tab or Up/Down"),  # 80 columns hold the hints: "^N null" takes its place
        Binding("Left/Right/Space", help="choose in a choice field; Space ticks in a multi-select"),
        Binding("^O", help="open a resource the result links to (resource_link)",
                action=key_action(lambda screen: screen.follow_link())),
        Binding("^S", help="save the result's contents (text, images, audio, blobs) to files",
                action=key_action(lambda screen: open_save_screen(screen.app, screen.result))),
        Binding("PgUp/PgDn", "result", "scroll the result"),
        Binding("Esc", lambda screen: "back (it keeps running)" if screen.running else "back",
                "back to the list; a running call goes on, its result stays here"))
    BINDINGS = form_keys(*BINDINGS)
    HELP_COLUMN = 27

    def __init__(self, app, tool):
        FieldScreen.__init__(self, app, first_line(str(tool.get("description") or "")))
        self.tool = tool
        self.task_mode = self.tool_needs_a_task()
        self.call = None  # the CallRecord of the call in flight
        self.result = None  # the last result, for its resource links
        self.request_id = None  # a plain call's JSON-RPC id, to cancel it
        self.task_id = None  # a task call's task, to cancel it
        schema = tool.get("inputSchema") if isinstance(tool.get("inputSchema"), dict) else {}
        self.field_list = FieldList(schema_fields(schema, titles=False, nested=True) + [
            Button("Execute", self.submit),
            Button(lambda: "Task mode: %s" % ("on" if self.task_mode else "off"), self.toggle_task_mode),
            Button("Copy as command", self.copy_command)])

    def title(self):
        return "Tool: %s%s" % (self.tool.get("name"), " [task mode]" if self.task_mode else "")

    def cancel_on_button(self):
        """x with the focus on a button cancels the running call; in a text field it types."""
        return isinstance(self.field_list.items[self.field_list.focus], Button) and self.interrupt()

    def toggle_task_mode(self):
        self.task_mode = not self.task_mode
        self.app.say("Task mode %s." % ("on: Execute calls the tool as a task" if self.task_mode else "off"))

    def copy_command(self):
        arguments = self.collect(required=False)
        if arguments is None:
            return
        command = tool_call_command(self.app.session.spec, self.tool, arguments, self.task_mode)
        copied = self.app.copy_to_clipboard(command)
        self.output.set_text("Equivalent command (%s):\n%s" % (COPIED if copied else NOT_COPIED, command))
        self.app.say(("Copied: " if copied else NOT_COPIED.capitalize() + ": ") + command)

    def submit(self):
        if self.running:
            self.app.say("Still running; ^C cancels it.", True)
            return
        arguments = self.collect()
        if arguments is None:
            return
        self.call = self.app.history.begin(self.tool["name"], arguments, self.task_mode)
        if self.task_mode:
            self.execute_as_task(arguments)
        else:
            self.execute(arguments)

    def execute(self, arguments):
        session, name = self.app.session, self.tool["name"]
        self.app.say("Calling %s ..." % name)
        on_progress = lambda params: self.app.post(self.show_progress, params)
        request_id = self.request_id = session.next_request_id()
        self.start(lambda: call_tool(session, name, arguments, on_progress, request_id), self.show_result)

    def tool_needs_a_task(self):
        return self.app.session.call_needs_task(self.tool)

    def uncallable(self):
        return "Tool %s %s." % (self.tool["name"], TASK_ONLY_UNCALLABLE)

    def execute_as_task(self, arguments):
        tasks = self.app.tasks
        if tasks.tools_call_refusal() is not None:
            self.call.end("not sent", "The server declared no task support for tools/call.")
            if self.tool_needs_a_task():  # Ctrl+T would only lead to "runs only as a task"
                self.output.set_text(self.uncallable())
                self.app.say(self.uncallable(), True)
            else:
                self.app.say("The server declared no task support for tools/call; Ctrl+T turns task mode off.", True)
            return
        self.app.say("Calling %s as a task ..." % self.tool["name"])
        self.start(lambda: tasks.call(self.tool, arguments), self.task_started)

    def interrupt(self):
        """Ctrl+C (or x): cancel the running call; a task is cancelled after a question."""
        if not self.running:
            return FieldScreen.interrupt(self)
        if self.task_id is not None:
            row = self.app.task_book.rows.get(self.task_id)
            if row is not None:
                self.app.ask("Cancel task %s?" % short_task_id(self.task_id), lambda: cancel_task(self.app, row))
        elif self.request_id is not None and self.app.session.cancel_request(self.request_id):
            self.app.say("Cancelling %s ..." % self.tool["name"])
        return True

    def task_started(self, outcome):
        if outcome.task is None:
            self.show_result(outcome.result)
            if outcome.notes:
                self.app.say(" ".join(outcome.notes))
            return
        task = outcome.task
        self.task_id = task.task_id
        self.app.task_created(task, self.tool["name"])
        self.running, self.progress = True, "task %s" % short_task_id(task.task_id)
        self.app.say("Task %s created: %s" % (short_task_id(task.task_id), task.status_line()))
        self.app.follower.follow(task.task_id, task.status, self.task_result, self.fail)

    def task_result(self, result):
        self.running, self.elapsed = False, time.monotonic() - self.started
        self.show_result(result, quiet=True)

    def show_progress(self, params):
        self.progress = progress_text(params)

    def follow_link(self):
        """^O: read a resource the result links to (a resource_link block)."""
        links = [block for block in (self.result or {}).get("content") or ()
                 if isinstance(block, dict) and block.get("type") == "resource_link" and block.get("uri")]
        if not links:
            self.app.say("The result links to no resource.", True)
        elif len(links) == 1:
            self.app.open(ResourceScreen(self.app, links[0]))
        else:
            self.app.open(PickScreen(self.app, "Open a linked resource", [str(link["uri"]) for link in links],
                                     lambda index: self.app.open(ResourceScreen(self.app, links[index]))))

    def show_result(self, result, quiet=False):
        self.result = result
        text = clean(render_tool_result(result))
        problems = [] if result.get("isError") else output_schema_problems(self.tool, result.get("structuredContent"))
        if problems:  # as the Inspector does: the result is shown, and what breaks the promise above it
            text = "\n".join(["Structured content does not match the tool's outputSchema:"] + [
                "  %s: %s" % (path or "(the whole value)", clean(message)) for path, message in problems] + [
                "", text])
        self.output.set_text(self.with_pictures(result, text))
        self.ended("tool error" if result.get("isError") else "ok", text)
        if problems:
            self.tell("The result does not match the outputSchema: %s: %s" % (problems[0][0] or "(the whole value)",
                                                                               problems[0][1]), True)
        elif not quiet:
            self.tell(tool_outcome_text(result) + ".", bool(result.get("isError")))

    def with_pictures(self, result, text):
        """PNG images drawn under their [image: ...] line with half blocks, where the terminal
        has colours; other images keep the line (^S saves them)."""
        self.output.pictures = []
        columns = max(8, min(80, self.app.window.getmaxyx()[1] - 2))
        for block in result.get("content") or ():
            if not (isinstance(block, dict) and block.get("type") == "image"):
                continue
            line = render_content_block(block).split("\n")[0]
            raw = base64_bytes(block.get("data", ""))
            picture = picture_cells(decode_png(raw), columns, 20) if block.get("mimeType") == "image/png" and raw \
                else None
            at = text.find(line + "\n") if (line + "\n") in text else text.find(line) if text.endswith(line) else -1
            if at < 0:
                continue
            end = at + len(line)
            if picture is None or not self.app.style.colours:
                note = "(not drawn: %s; ^S saves it)" % ("the terminal has no colours" if picture is not None
                                                        else "only PNG images are drawn")
                text = text[:end] + "\n" + note + text[end:]
                continue
            self.output.pictures.append(picture)
            marks = "".join("\n%s%d:%d" % (PICTURE_MARK, len(self.output.pictures) - 1, row)
                            for row in range(len(picture)))
            text = text[:end] + marks + text[end:]
        return text

    def fail(self, exc):
        FieldScreen.fail(self, exc)
        self.ended("cancelled" if isinstance(exc, RequestCancelled) else "failed", self.output.text)
        if isinstance(exc, TaskRequired):
            advice = "Tool %s runs only as a task: press Ctrl+T for task mode, then execute." % exc.tool_name
            if self.app.tasks.tools_call_refusal() is not None:
                advice = self.uncallable()  # task mode would be refused: say so, not "press Ctrl+T"
            self.output.set_text(advice)  # not the CLI's "add --task"
            self.tell(advice, True)
        elif not isinstance(exc, RequestCancelled):
            self.tell(describe_failure(exc), True)

    def ended(self, status, text):
        if self.call is not None:
            self.call.end(status, text)
        self.request_id = self.task_id = None

    def tell(self, text, error=False):
        """The status line; a call that ends while its screen is closed names its tool."""
        on_top = self.app.stack and self.app.stack[-1] is self
        self.app.say(text if on_top else "%s: %s" % (self.tool.get("name"), text), error)


class TextAreaScreen(Screen):
    """A field's text in a small editor (^E at the end of a field): Enter breaks the line,
    Tab and a paste keep their tabs; ^X puts the text back into the field, Esc leaves it as
    it was (asking first when edited)."""

    BINDINGS = (
        Binding("^X", "done", lambda screen: "done: the text goes back into the field %s" % screen.field.label,
                key_action(lambda screen: screen.done())),
        Binding("Enter", "new line", "a new line (the field keeps it: a string is sent with its newlines)",
                key_action(lambda screen: screen.insert("\n")), codes=("ENTER",)),
        Binding("Tab", "tab", "a tab character; a paste keeps its tabs and newlines",
                key_action(lambda screen: screen.insert("\t")), codes=("TAB",)),
        Binding("arrows", "move", "move; Backspace/Delete remove a character", help_key="arrows, Home/End, PgUp/PgDn"),
        Binding("Esc", "cancel", "cancel (asks first when the text was edited)", key_action(lambda screen: screen.cancel()),
                codes=("ESC",)))
    HELP_COLUMN = 27

    def __init__(self, app, field):
        Screen.__init__(self, app)
        self.field = field
        self.text, self.cursor = field.text, len(field.text)
        self.top = 0
        self.height = 10  # rows on screen, as last drawn (PgUp/PgDn move by it)

    def title(self):
        return "Edit: %s" % self.field.label


    def line_start(self, index):
        return self.text.rfind("\n", 0, index) + 1

    def line_end(self, index):
        end = self.text.find("\n", index)
        return len(self.text) if end < 0 else end

    def move_lines(self, count):
        """Up or down ``count`` lines, to the same column where the line is long enough."""
        index = self.cursor
        column = index - self.line_start(index)
        for _ in range(abs(count)):
            start = self.line_start(index)
            if count < 0:
                if not start:
                    break
                index = self.line_start(start - 1)
            else:
                end = self.line_end(index)
                if end == len(self.text):
                    break
                index = end + 1
        self.cursor = min(index + column, self.line_end(index))

    def insert(self, text):
        self.text = self.text[:self.cursor] + text + self.text[self.cursor:]
        self.cursor += len(text)

    def done(self):
        self.field.set_text(self.text)
        self.field.cursor = len(self.text)
        self.app.back()

    def cancel(self):
        if self.text != self.field.text:
            self.app.ask("Discard your edits?", self.app.back)
        else:
            self.app.back()

    def other_key(self, key):
        text, cursor = self.text, self.cursor
        if len(key) == 1:
            self.insert(key)
        elif key == "BACKSPACE" and cursor:
            self.text, self.cursor = text[:cursor - 1] + text[cursor:], cursor - 1
        elif key in ("DELETE", "^D"):
            self.text = text[:cursor] + text[cursor + 1:]
        elif key == "LEFT":
            self.cursor = max(0, cursor - 1)
        elif key == "RIGHT":
            self.cursor = min(len(text), cursor + 1)
        elif key in ("HOME", "^A"):
            self.cursor = self.line_start(cursor)
        elif key in ("END", "^E"):
            self.cursor = self.line_end(cursor)
        elif key in ("UP", "DOWN", "PGUP", "PGDN"):
            page = max(1, self.height - 1)
            self.move_lines({"UP": -1, "DOWN": 1, "PGUP": -page, "PGDN": page}[key])
        return True  # every other key is the editor's too (nothing behind it may act)

    def on_paste(self, text):
        self.insert("".join(c for c in text if c in "\n\t" or c >= " "))

    def interrupt(self):
        """Ctrl+C quits, and asks first when the text was edited (as a form does)."""
        if self.text == self.field.text or self.app.question == (QUIT_QUESTION, self.app.quit_interrupted):
            return False
        self.app.ask(QUIT_QUESTION, self.app.quit_interrupted)
        return True

    def draw(self, canvas):
        self.height = canvas.height
        lines = self.text.split("\n")
        row = self.text.count("\n", 0, self.cursor)
        column = self.cursor - self.line_start(self.cursor)
        self.top = max(min(self.top, row), row - canvas.height + 1)
        style = self.app.style
        for line, text in enumerate(lines[self.top:self.top + canvas.height]):
            shown = text.replace("\t", "\u2192   ")  # a tab shows as an arrow and spaces
            if self.top + line != row:
                canvas.put(line, 0, shown)
                continue
            before = cells(text[:column].replace("\t", "\u2192   "))
            start = max(0, before - canvas.width + 2)  # a long line scrolls to keep the cursor seen
            canvas.put(line, 0, clip_from(shown, start))
            under = text[column] if column < len(text) else " "
            canvas.put(line, before - start, "\u2192" if under == "\t" else under, style.reverse)


def clip_from(text, start_cell):
    """``text`` without its first ``start_cell`` cells."""
    index, used = 0, 0
    while index < len(text) and used < start_cell:
        used += cells(text[index])
        index += 1
    return text[index:]


def field_elements(field):
    """The elements of an array-of-objects field (a list of objects the form edits one by
    one), or None: another field, or text that is not such a list (the text area edits it)."""
    if object_items(field.schema) is None:
        return None
    try:
        elements = json.loads(field.text) if field.text.strip() else []
    except ValueError:
        return None
    return elements if isinstance(elements, list) and all(isinstance(e, dict) for e in elements) else None


def object_items(schema):
    """The items' schema of an array of objects with properties, or None."""
    items = schema.get("items") if schema_types(schema) == ["array"] else None
    return expanded_object(items) if isinstance(items, dict) else None


class ObjectListScreen(Screen):
    """An array of objects (^E on its field in a tool's form), element by element: a form
    of the items' fields adds or edits one, d removes one; ^X puts the list back into the
    field as JSON, which stays the way to type it by hand."""

    BINDINGS = (
        Binding("a", "add", "add an element: a form of the items' fields", key_action(lambda screen: screen.edit(None))),
        Binding("Enter", "edit", "edit the selected element in its form",
                key_action(lambda screen: screen.edit(screen.selected)), codes=("ENTER",),
                when=lambda screen: screen.elements),
        Binding("d", "remove", "remove the selected element", key_action(lambda screen: screen.remove()),
                when=lambda screen: screen.elements),
        Binding("j/k", "move", "move between the elements",
                lambda screen, key: screen.move(1 if key in ("j", "DOWN") else -1), codes=("j", "k", "DOWN", "UP")),
        Binding("^X", "done", lambda screen: "done: the list goes back into the field %s as JSON" % screen.field.label,
                key_action(lambda screen: screen.done())),
        Binding("Esc", "cancel", "cancel: the field stays as it was", key_action(lambda screen: screen.app.back()),
                codes=("ESC",)))
    HELP_COLUMN = 8

    def __init__(self, app, field, elements):
        Screen.__init__(self, app)
        self.field, self.elements = field, elements
        self.items = object_items(field.schema)
        self.selected = 0

    def title(self):
        return "List: %s (%d)" % (self.field.label, len(self.elements))

    def move(self, step):
        self.selected = max(0, min(len(self.elements) - 1, self.selected + step))

    def edit(self, index):
        def keep(values):
            if index is None:
                self.elements.append(values)
                self.selected = len(self.elements) - 1
            else:
                self.elements[index] = values

        shown = len(self.elements) if index is None else index
        self.app.open(ElementScreen(self.app, "%s[%d]" % (self.field.label, shown), self.items,
                                    {} if index is None else self.elements[index], keep))

    def remove(self):
        del self.elements[self.selected]
        self.move(0)
        self.app.say("Removed; ^X puts the list into the field.")

    def done(self):
        self.field.set_text(json.dumps(self.elements, ensure_ascii=False))
        self.app.back()

    def draw(self, canvas):
        if not self.elements:
            canvas.put(0, 0, "No elements yet: a adds one.", self.app.style.dim)
        top = max(0, self.selected - canvas.height + 1)  # the selected element is always seen
        for row, element in enumerate(self.elements[top:top + canvas.height]):
            text = clip("[%d] %s" % (top + row, clean(json.dumps(element, ensure_ascii=False))), canvas.width)
            canvas.put(row, 0, text, self.app.style.reverse if top + row == self.selected else 0)


class ElementScreen(FieldScreen):
    """One element of an array of objects: a field for each of its properties; Done checks
    them as the tool's form does and gives the object to ``keep``."""

    submit_label = "Done"

    def __init__(self, app, name, items, element, keep):
        FieldScreen.__init__(self, app, "")
        self.name, self.keep = name, keep
        self.field_list = FieldList(schema_fields(items, titles=False, nested=True) + [Button("Done", self.submit)])
        if element:
            self.field_list.fill(element)  # a new one keeps the schema's defaults

    def title(self):
        return self.name

    def has_output(self):
        return False

    def submit(self):
        values = self.collect()
        if values is not None:
            self.keep(values)
            self.app.close_screen(self)


class PickScreen(Screen):
    """Choose one of a few lines (under an ``intro`` line, if given); Enter closes the screen
    and hands the chosen index to ``on_pick``."""

    def __init__(self, app, name, labels, on_pick, intro="", index=0):
        Screen.__init__(self, app)
        self.name, self.labels, self.on_pick, self.intro = name, labels, on_pick, intro
        self.selection = Selection()
        self.selection.index = index

    BINDINGS = (Binding("Enter", "choose", action=lambda screen, key: screen.pick(), codes=("ENTER",)),
                Binding("j/k", "move"), Binding("q", "back"))

    def title(self):
        return self.name

    def draw(self, canvas):
        top = 2 if self.intro else 0
        if self.intro:
            canvas.put(0, 0, self.intro, self.app.style.dim)
        for row, index, attr in list_rows(canvas, top, canvas.height - top, self.selection, len(self.labels),
                                          self.app.style):
            canvas.put(row, 1, self.labels[index], attr)

    def pick(self):
        if self.labels:
            self.app.close_screen(self)
            self.on_pick(self.selection.index)
        return bool(self.labels)

    def other_key(self, key):
        return self.selection.on_key(key, len(self.labels))


class CallRecord:
    """One tool call of this session, for the history screen."""

    def __init__(self, tool, arguments, task_mode):
        self.tool, self.arguments, self.task_mode = tool, arguments, task_mode
        self.started_at = time.time()
        self.started = time.monotonic()
        self.duration = None
        self.status = "running"
        self.result = ""

    def end(self, status, result):
        self.duration = time.monotonic() - self.started
        self.status, self.result = status, result

    def cells(self):
        duration = "%.2fs" % self.duration if self.duration is not None else "%.1fs" % (time.monotonic() - self.started)
        return (clock_time_of(self.started_at), self.tool + (" [task]" if self.task_mode
                else ""), self.status, duration, json.dumps(self.arguments, ensure_ascii=False))

    def text(self):
        when, tool, status, duration, _ = self.cells()
        return "\n".join(["Tool:      %s" % tool, "Started:   %s" % when, "Duration:  %s" % duration,
                          "Status:    %s" % status, "Arguments:", json.dumps(self.arguments, indent=2, ensure_ascii=False),
                          "", "Result:", self.result or "(none yet)"])


class CallHistory:
    def __init__(self):
        self.calls = []

    def begin(self, tool, arguments, task_mode):
        record = CallRecord(tool, arguments, task_mode)
        self.calls.append(record)
        return record


class HistoryScreen(Screen):
    """Every tool call of the session, newest first: arguments, duration, status, result."""

    COLUMNS = ("TIME", "TOOL", "STATUS", "TOOK", "ARGUMENTS")
    BINDINGS = (
        Binding("Enter", "the whole call", "the call: arguments, duration, status and its result",
                lambda screen, key: screen.show_selected(), codes=("ENTER",)),
        Binding("e", "edit in the form", "the tool's form with the call's arguments, to edit and run",
                lambda screen, key: screen.load_selected(run=False)),
        Binding("r", "run again", "run the call again (the same arguments and task mode)",
                lambda screen, key: screen.load_selected(run=True)),
        Binding("j/k", "move", "move", help_key="j/k, arrows"),
        Binding("q", "back"))
    HELP_COLUMN = 13

    def __init__(self, app):
        Screen.__init__(self, app)
        self.selection = Selection()

    def title(self):
        return "History"

    def calls(self):
        return list(reversed(self.app.history.calls))

    def show_selected(self):
        """Enter: the selected call whole; False (the key unused) with no call."""
        calls = self.calls()
        if calls:
            record = calls[self.selection.index]
            self.app.open(TextScreen(self.app, "Call: %s" % record.tool, record.text()))
        return bool(calls)

    def load_selected(self, run):
        calls = self.calls()
        if calls:
            self.load(calls[self.selection.index], run)
        return bool(calls)

    def other_key(self, key):
        return self.selection.on_key(key, len(self.calls()))

    def load(self, record, run):
        """The call's tool form, its arguments and task mode filled in; ``run``: execute it."""
        homes = [screen for screen in self.app.stack if isinstance(screen, MainScreen)]
        tools = [e.data for e in homes[0].catalogs["tools"].entries if e.data.get("name") == record.tool] if homes else []
        if not tools:
            self.app.say("The server no longer lists the tool %s." % record.tool, True)
            return
        self.app.open_tool(tools[0])
        screen = self.app.stack[-1]
        if screen.running:
            self.app.say("%s is still running; ^C cancels it." % record.tool, True)
            return
        screen.field_list.fill(record.arguments)
        screen.task_mode = record.task_mode
        if run:
            screen.submit()
        else:
            self.app.say("The arguments of the call at %s are in the form: ^X runs it." % clock_time_of(
                record.started_at))

    def draw(self, canvas):
        calls = self.calls()
        widths = [8, 18, 10, 8, max(10, canvas.width - 48)]
        canvas.put(0, 0, format_columns(self.COLUMNS, widths), self.app.style.bold)
        if not calls:
            canvas.put(1, 0, "No calls yet: run a tool (Enter on it, then ^X).", self.app.style.dim)
        for row, index, attr in list_rows(canvas, 1, canvas.height - 1, self.selection, len(calls), self.app.style):
            canvas.put(row, 0, format_columns(calls[index].cells(), widths), attr)


class ResourceScreen(Screen):
    """A resource's contents, read on a worker, to scroll through; s subscribes to its
    updates, w saves its contents."""

    BINDINGS = (
        Binding("j/k", "scroll", "scroll", help_key="j/k, PgUp/PgDn, Home/End"),
        Binding("r", "read again", "read it again", key_action(lambda screen: screen.read())),
        Binding("s", lambda screen: screen.subscribe_hint(),
                "subscribe to its updates (a changed resource is marked * in the list), again: unsubscribe",
                key_action(lambda screen: screen.app.toggle_subscription(screen.uri))),
        Binding("w", "save", "save its contents (text as UTF-8, blobs decoded) to files in a directory",
                key_action(lambda screen: open_save_screen(screen.app, screen.result))),
        Binding("", lambda screen: screen.view.position()),
        Binding("q", "back"))
    HELP_COLUMN = 3

    def __init__(self, app, resource):
        Screen.__init__(self, app)
        self.resource = resource
        self.uri = str(resource.get("uri"))
        self.result = None
        self.view = TextView("Reading %s ..." % self.uri)
        self.read()

    def title(self):
        mark = {"*": "  [changed: r reads again]", "+": "  [subscribed]"}.get(self.app.resource_mark(self.uri), "")
        return "Resource: %s%s" % (self.uri, mark)

    def subscribe_hint(self):
        """The footer offers s where the server takes subscriptions (the key works anyway)."""
        if not (self.app.session.capabilities.get("resources") or {}).get("subscribe"):
            return ""
        return "unsubscribe" if self.uri in self.app.subscriptions else "subscribe"

    def read(self):
        session, uri = self.app.session, self.uri
        self.app.changed.discard(uri)
        self.app.spawn(lambda: session.request("resources/read", {"uri": uri}), self.show, self.fail)

    def show(self, result):
        self.result = result
        self.view.set_text(render_contents(result))
        self.app.say("Read %s." % self.uri)

    def fail(self, exc):
        self.view.set_text("Error: %s" % describe_failure(exc))
        self.app.say(describe_failure(exc), True)

    def draw(self, canvas):
        self.view.draw(canvas)

    def other_key(self, key):
        return self.view.on_key(key)


def content_payloads(result):
    """What a tool result or a resources/read result holds, as (bytes, uri, kind, mime):
    text as UTF-8, base64 blobs, images and audio decoded; links have no bytes."""
    items = []
    for block in (result or {}).get("content") or (result or {}).get("contents") or ():
        if not isinstance(block, dict):
            continue
        inner = block.get("resource") if isinstance(block.get("resource"), dict) else block
        kind = block.get("type") or ("text" if "text" in inner else "blob")
        mime = inner.get("mimeType") or block.get("mimeType")
        if isinstance(inner.get("text"), str):
            data = inner["text"].encode("utf-8")
            mime = mime or "text/plain"  # a text block rarely says so: saved as .txt, not .bin
        elif isinstance(inner.get("blob") or block.get("data"), str):
            data = base64_bytes(inner.get("blob") or block.get("data"))
        else:
            continue
        if data is not None:
            items.append((data, inner.get("uri"), kind, mime))
    return items


def open_save_screen(app, result):
    payloads = content_payloads(result)
    if not payloads:
        app.say("Nothing to save yet." if result is None else "The result holds no content to save.", True)
        return
    app.open(save_screen(app, payloads))


def save_screen(app, payloads):
    """Save every content of a result to files in a directory (named after the URI or the
    kind; never over an existing file)."""

    def accept(directory):
        saver = BlobSaver(os.path.expanduser(directory))
        try:
            paths = [saver.save(data, uri, kind, mime) for data, uri, kind, mime in payloads]
        except OSError as exc:
            app.say("Cannot save: %s" % describe_os_error(exc), True)
            return False
        app.say("Saved %s" % ", ".join(paths))
        return True

    listing = "\n".join("  %s  %s, %d bytes" % (uri or kind, mime or "?", len(data))
                        for data, uri, kind, mime in payloads)
    return LineScreen(app, "Save contents", "Save %d content item(s):\n%s" % (len(payloads), listing),
                      TextField("directory", "Directory", required=True, text=os.getcwd()), "Save", accept)


class LineScreen(FieldScreen):
    """One line to type (a task ID, a directory) and a button: ``accept(text)`` does the
    work and says True when the screen is done."""

    def __init__(self, app, name, intro, field, button, accept):
        FieldScreen.__init__(self, app, intro)
        self.name, self.line, self.accept = name, field, accept
        self.submit_label = button
        self.field_list = FieldList([field, Button(button, self.submit)])

    def title(self):
        return self.name

    def has_output(self):
        return False

    def submit(self):
        if self.accept(self.line.text.strip()):
            self.app.close_screen(self)


class TemplateScreen(FieldScreen):
    """A resource template: a field per variable, then resources/read of the expanded URI."""

    submit_label = "Read"
    output_title = "Contents"

    def __init__(self, app, template):
        FieldScreen.__init__(self, app, "Template %s" % template.get("uriTemplate"))
        self.template = template
        fields = [TextField(name, name, required=True) for name in template_variables(template.get("uriTemplate", ""))]
        self.field_list = FieldList(fields + [Button("Read", self.submit)])
        self.completer = Completer(self, {"type": "ref/resource", "uri": template.get("uriTemplate", "")})

    def title(self):
        return "Template: %s" % (self.template.get("title") or self.template.get("name"))

    def submit(self):
        values = self.collect()
        if values is None:
            return
        uri = expand_template(self.template.get("uriTemplate", ""), values)
        session = self.app.session
        self.start(lambda: session.request("resources/read", {"uri": uri}),
                   lambda result: self.show(uri, result))

    def show(self, uri, result):
        self.output.set_text(render_contents(result))
        self.app.say("Read %s." % uri)  # not the completion's news any more


class Completer:
    """Tab in a prompt argument or template variable asks the server (completion/complete)
    for values that start with what is typed: one fills the field, several are listed in
    the output pane and Tab again steps through them."""

    def __init__(self, screen, ref):
        self.screen = screen
        self.ref = ref
        self.field = None
        self.typed = None  # what the field held when the values came
        self.values = []
        self.index = -1

    def offered(self):
        return "completions" in self.screen.app.session.capabilities

    def complete(self, field):
        if field is self.field and self.values and (field.text in self.values or field.text == self.typed):
            self.index = (self.index + 1) % len(self.values)  # Tab again: the next value
            field.set_text(self.values[self.index])
            return
        app, ref, value = self.screen.app, self.ref, field.text
        context = {f.key: f.text for f in self.screen.field_list.fields() if f is not field and f.text}
        app.say("Asking the server to complete %s ..." % field.label)
        app.spawn(lambda: complete_argument(app.session, ref, field.key, value, context),
                  lambda result: self.offer(field, result.get("completion")))

    def offer(self, field, completion):
        completion = completion if isinstance(completion, dict) else {}
        values = [str(v) for v in completion.get("values") or () if isinstance(v, (str, int, float))]
        self.field, self.values, self.index, self.typed = field, values, -1, field.text
        app = self.screen.app
        if not values:
            app.say("No completions for %s." % field.label)
        elif len(values) == 1:
            field.set_text(values[0])
            app.say("Completed %s." % field.label)
        else:
            more = "  (and more)" if completion.get("hasMore") else ""
            self.screen.output.set_text("Completions for %s (Tab picks the next):\n%s%s" % (
                field.label, "\n".join("  " + v for v in values), more))
            app.say("%d values for %s: Tab steps through them." % (len(values), field.label))


def expand_template(template, values):
    """RFC 6570 for the common operators: {var}, {+var}, {#var}, {/var}, {.var}, {?a,b}, {&a}."""
    from urllib.parse import quote

    def expand(match):
        operator, body = match.group(1), match.group(2)
        names = expression_variables(body)
        present = [(n, str(values[n])) for n in names if n in values]
        safe = ":/?#[]@!$&'()*+,;=" if operator in ("+", "#") else ""
        if operator in ("?", "&"):
            pairs = "&".join("%s=%s" % (n, quote(v, safe="")) for n, v in present)
            return (operator + pairs) if pairs else ""
        joined = {"/": "/", ".": ".", ";": ";"}.get(operator, ",").join(quote(v, safe=safe) for _, v in present)
        prefix = operator if operator in ("#", "/", ".", ";") and present else ""
        return prefix + joined

    return re.sub(TEMPLATE_EXPRESSION, expand, template)


class PromptScreen(FieldScreen):
    """A prompt's arguments, then prompts/get rendered as messages."""

    submit_label = "Get"
    output_title = "Messages"

    def __init__(self, app, prompt):
        FieldScreen.__init__(self, app, first_line(str(prompt.get("description") or "")))
        self.prompt = prompt
        fields = [TextField(a["name"], a["name"], required=bool(a.get("required")), description=a.get("description"))
                  for a in prompt_arguments(prompt) if a["name"]]
        self.field_list = FieldList(fields + [Button("Get prompt", self.submit)])
        self.completer = Completer(self, {"type": "ref/prompt", "name": prompt.get("name")})
        if not fields:
            self.submit()

    def title(self):
        return "Prompt: %s" % self.prompt.get("name")

    def submit(self):
        values = self.collect()
        if values is None:
            return
        session, name = self.app.session, self.prompt.get("name")
        self.start(lambda: session.request("prompts/get", {"name": name, "arguments": values}), self.show)

    def show(self, result):
        lines = [str(result["description"]), ""] if result.get("description") else []
        self.output.set_text("\n".join(lines) + render_messages(result.get("messages")) or "(no messages)")
        self.app.say("Got prompt %s." % self.prompt.get("name"))  # not the completion's news any more


class RootsScreen(Screen):
    """The roots (directories) offered to servers that ask (roots/list): add and remove."""

    def __init__(self, app):
        Screen.__init__(self, app)
        self.selection = Selection()

    BINDINGS = (
        Binding("a", lambda screen: "add" if screen.app.roots else "add a root",
                "add a root: a directory path (shown to servers as a file:// URI)",
                key_action(lambda screen: screen.app.open(add_root_screen(screen.app)))),
        Binding("d", "remove", "remove the selected root (asks first)", key_action(lambda screen: screen.ask_to_remove()),
                when=lambda screen: screen.app.roots),
        Binding("j/k", "move", when=lambda screen: screen.app.roots),
        Binding("q", "back"))
    HELP_COLUMN = 4
    HELP_NOTES = ("A change is announced to a 2025-11-25 server (notifications/roots/list_changed); a",
                  "2026-07-28 server asks for roots with each request that needs them.")

    def title(self):
        return "Roots"

    def draw(self, canvas):
        roots = self.app.roots
        canvas.put(0, 0, "Roots offered to the server when it asks (roots/list):", self.app.style.dim)
        if not roots:
            canvas.put(2, 0, "None. Press a to add a directory.", self.app.style.dim)
        for row, index, attr in list_rows(canvas, 2, canvas.height - 2, self.selection, len(roots), self.app.style):
            entry = root_entry(roots[index])
            canvas.put(row, 1, "%s  %s" % (entry["name"], entry["uri"]), attr)  # the name: a long URI is cut

    def other_key(self, key):
        return self.selection.on_key(key, len(self.app.roots))

    def ask_to_remove(self):
        path = self.app.roots[self.selection.index]
        self.app.ask("Remove root %s?" % path, lambda: self.remove(path))

    def remove(self, path):
        if path in self.app.roots:
            self.app.roots.remove(path)
            self.app.roots_changed()


def add_root_screen(app):
    def accept(path):
        path = os.path.expanduser(path)
        if not os.path.isdir(path):
            app.say("Not a directory: %s" % (path or "(empty)"), True)
            return False
        app.roots.append(os.path.abspath(path))
        app.roots_changed()
        return True

    return LineScreen(app, "Add a root", "A directory to offer to servers as a root:", TextField(
        "path", "Directory", required=True, placeholder="a path, e.g. ~/projects/app"), "Add", accept)


def log_level_screen(app):
    """L: the level from which the server sends log messages (they show as a toast and on the
    debug screen's Logs tab); the current one is marked *."""
    session = app.session
    intro = ("Server log messages from this level up:" if "logging" in session.capabilities else
             "The server declares no logging capability; it may ignore the level.")
    labels = ["%s %s" % ("*" if level == session.log_level else " ", level) for level in LOG_LEVELS]

    def pick(index):
        level = LOG_LEVELS[index]
        app.say("Setting the log level to %s ..." % level)
        app.spawn(lambda: session.set_log_level(level),
                  lambda _: app.say("Log level: %s (server logs show over the key hints and on the debug "
                                    "screen's Logs tab)." % level))

    current = LOG_LEVELS.index(session.log_level) if session.log_level in LOG_LEVELS else 1
    return PickScreen(app, "Log level", labels, pick, intro=intro, index=current)


class TasksScreen(Screen):
    """Every task this session created, plus those a 2025-11-25 server lists."""

    def __init__(self, app):
        Screen.__init__(self, app)
        self.selection = Selection()
        self.refreshing = False
        self.recorded = []  # (fingerprint, entry) of this server's tasks from earlier runs (the ledger)

    BINDINGS = (
        Binding("Enter", "detail", "the task's detail (TTL, pending input, error) and its result",
                key_action(lambda screen: screen.app.open(TaskDetailScreen(screen.app, screen.selected()))),
                codes=("ENTER",), when=lambda screen: screen.selected()),
        Binding("c", lambda screen: "" if screen.selected().task.terminal else "cancel",
                "cancel the selected task (asks first; tasks/cancel); not on a task that has ended",
                key_action(lambda screen: ask_to_cancel(screen.app, screen.selected())),
                when=lambda screen: screen.selected()),
        Binding("a", lambda screen: "" if screen.selected().task.terminal else "follow",
                "follow the task: answer its input requests in forms and wait for the result",
                key_action(lambda screen: answer_task(screen.app, screen.selected())),
                when=lambda screen: screen.selected()),
        Binding("o", lambda screen: "open by ID" if screen.selected() else "open a task by ID",
                "open a task by its ID (one from an earlier run, or another client)",
                key_action(lambda screen: screen.app.open(open_task_screen(screen.app)))),
        Binding("r", "refresh", "refresh every task from the server (and tasks/list where the server has it)",
                key_action(lambda screen: screen.refresh())),
        Binding("j/k", "move", when=lambda screen: screen.selected()),
        Binding("q", "back"))
    HELP_COLUMN = 8
    HELP_NOTES = ("*       after a status: this screen follows the task (its input requests open forms)",)

    def title(self):
        return "Tasks"

    def on_show(self):
        self.refresh()
        self.recorded = self.earlier_tasks()

    def earlier_tasks(self):
        """The ledger's tasks of this server that this session has not seen: listed by
        fingerprint (the ledger keeps no ID); o opens one by its ID."""
        app = self.app
        if app.ledger is None or not app.session.outlives_process():
            return []  # a stdio server's tasks end with its process
        try:
            recorded = app.ledger.recorded_for(app.session.spec)
        except (OSError, McpTuiError):
            return []
        seen = set(fingerprint(task_id) for task_id in app.task_book.rows)
        return [(key, entry) for key, entry in recorded if key not in seen]

    def rows(self):
        return self.app.task_book.newest_first()

    def selected(self):
        rows = self.rows()
        return rows[self.selection.index] if rows else None

    def other_key(self, key):
        return self.selection.on_key(key, len(self.rows()))

    def refresh(self):
        tasks = self.app.tasks
        support = tasks.support() if tasks else None
        if support is None or self.refreshing:
            return
        known = [(task_id, row_tasks(self.app, row)) for task_id, row in self.app.task_book.rows.items()
                 if not row.task.terminal]
        self.refreshing = True

        def work():
            found = tasks.list() if support.methods.get("tasks/list") else []
            listed = set(task.task_id for task in found)
            for task_id, holder in known:
                if task_id not in listed:
                    try:
                        found.append(holder.get(task_id))
                    except RpcError:
                        pass  # expired or unknown: the row keeps what was last seen
            return found

        def done(found):
            self.refreshing = False
            for task in found:
                self.app.task_seen(task)
            self.recorded = self.earlier_tasks()  # a listed task is no longer only in the ledger
            self.app.say("Tasks refreshed (%d)." % len(self.app.task_book.rows))

        def failed(exc):
            self.refreshing = False
            self.app.report_failure(exc)

        self.app.spawn(work, done, failed)

    def draw(self, canvas):
        tasks = self.app.tasks
        support = tasks.support() if tasks else None
        if support is None:
            canvas.put(0, 0, "The server declared no task support.", self.app.style.dim)
            return
        canvas.put(0, 0, "%s%s  (* followed here)" % (support.label, "  (refreshing ...)" if self.refreshing
                                                          else ""), self.app.style.dim)
        widths = task_columns(canvas.width)
        canvas.put(1, 0, format_columns(TASK_HEADINGS, widths), self.app.style.bold)
        rows = self.rows()
        if not rows:
            canvas.put(2, 0, "No tasks yet: run a tool in task mode (Ctrl+T in its form).", self.app.style.dim)
        now = time.time()
        earlier = canvas.height // 3 if self.recorded else 0  # rows kept for the ledger's tasks
        shown = 0
        for line, index, attr in list_rows(canvas, 2, canvas.height - 2 - earlier, self.selection, len(rows),
                                           self.app.style):
            canvas.put(line, 0, format_columns(task_cells(rows[index], now), widths), attr)
            shown += 1
        if self.recorded:
            top = 2 + max(1, shown)
            canvas.put(top, 0, "From earlier runs (the ledger keeps no ID; o opens a task by its ID):",
                       self.app.style.dim)
            for line, (key, entry) in enumerate(self.recorded[:max(0, canvas.height - top - 1)]):
                cells_ = (str(entry.get("status") or "?"), "fp %s  %s" % (key, entry.get("tool") or ""), "",
                          clock_time(entry.get("createdAt")), "", "")
                canvas.put(top + 1 + line, 0, format_columns(cells_, widths), self.app.style.dim)


TASK_HEADINGS = ("STATUS", "TOOL / TASK", "UPDATED", "CREATED", "TTL LEFT", "PROGRESS")


def task_columns(width):
    """Widths for TASK_HEADINGS: the task column comes right after the status, so it stays
    whole at 80 columns; CREATED goes (width 0) when the terminal is narrow."""
    if width < 110:
        return [16, max(20, width - 45), 8, 0, 8, 8]
    return [16, 40, 8, 8, 8, width - 85]


def format_columns(values, widths):
    return " ".join(pad(clean_line(str(v)), w) for v, w in zip(values, widths) if w)


def task_cells(row, now):
    task = row.task
    status = task.status + (" *" if row.following else "")
    label = "%s  %s" % (short_task_id(task.task_id, 20), row.tool)  # the ID first: it must stay visible
    return (status, label, clock_time(task.data.get("lastUpdatedAt")), clock_time(task.data.get("createdAt")),
            ttl_left(task, now), task.message or "")


def ask_to_cancel(app, row):
    if row.task.terminal:
        app.say("Task %s has ended (%s): nothing to cancel." % (short_task_id(row.task.task_id, 20),
                                                              row.task.status))
        return
    app.ask("Cancel task %s?" % short_task_id(row.task.task_id), lambda: cancel_task(app, row))


def cancel_task(app, row):
    tasks, task_id = row_tasks(app, row), row.task.task_id
    app.say("Cancelling task %s ..." % short_task_id(task_id))

    def work():
        return tasks.cancel(task_id) or tasks.get(task_id)  # the extension's cancel returns nothing

    def done(task):
        app.task_seen(task)
        app.say("Task %s: %s" % (short_task_id(task_id), task.status_line() if task.status == "cancelled"
                                 else "cancellation requested; still %s" % task.status))

    app.spawn(work, done)


def answer_task(app, row):
    """Follow a task: its input requests open forms, its result lands in the row."""
    if row.task.terminal and (row.result is not None or row.failure):
        app.say("Task %s has ended: %s." % (short_task_id(row.task.task_id), row.task.status))
        return
    app.say("Following task %s ..." % short_task_id(row.task.task_id))
    app.follower.follow(row.task.task_id)


class TaskDetailScreen(Screen):
    """One task: status, times, TTL, pending input, error, and the result once fetched."""

    BINDINGS = (
        Binding("r", "refresh", action=key_action(lambda screen: screen.fetch())),
        Binding("c", lambda screen: "" if screen.row.task.terminal else "cancel",
                action=key_action(lambda screen: ask_to_cancel(screen.app, screen.row))),
        Binding("a", lambda screen: "" if screen.row.task.terminal else "follow",
                action=key_action(lambda screen: answer_task(screen.app, screen.row))),
        Binding("j/k", "scroll"),
        Binding("q", "back"))

    def __init__(self, app, row):
        Screen.__init__(self, app)
        self.row = row
        self.view = TextView("")
        self.fetch()

    def title(self):
        return "Task %s" % short_task_id(self.row.task.task_id)

    def other_key(self, key):
        return self.view.on_key(key)

    def fetch(self):
        """tasks/get, and the result too once the task has ended."""
        tasks, row = row_tasks(self.app, self.row), self.row
        task_id = row.task.task_id

        def done(task):
            self.app.task_seen(task)
            if task.terminal and row.result is None and not row.failure and not row.following:
                self.app.follower.follow(task_id, task.status)

        self.app.spawn(lambda: tasks.get(task_id), done)

    def draw(self, canvas):
        self.view.set_text(task_detail_text(self.row, time.time()), keep_position=True)
        self.view.draw(canvas)


def open_task_screen(app):
    """o: a task by its ID (tasks/get), then its detail screen. The form stays until the
    server answers: an unknown ID is said there, where the ID can be corrected (under it,
    the tasks screen's own refresh would write over the error)."""

    def accept(task_id):
        if not task_id:
            app.say("Type or paste a task ID.", True)
            return False
        app.say("Getting task %s ..." % short_task_id(task_id))
        app.spawn(lambda: get(task_id), opened)
        return False

    def get(task_id):
        """tasks/get where the task lives (a session of an earlier run is resumed), and the
        tool the ledger recorded for it."""
        tasks = app.tasks_holding(task_id)
        recorded = app.ledger.lookup(task_id) if app.ledger is not None else None
        return tasks, tasks.get(task_id), (recorded or {}).get("tool")

    def opened(found):
        tasks, task, tool = found
        app.task_seen(task)
        row = app.task_book.rows[task.task_id]
        row.tool = row.tool or tool or ""  # not "(listed by the server)": the ledger knows it
        row.tasks = tasks if tasks is not app.tasks else row.tasks
        app.close_screen(screen)
        app.open(TaskDetailScreen(app, row))
        app.say("Task %s: %s" % (short_task_id(task.task_id), task.status_line()))

    screen = LineScreen(app, "Open a task", "The ID of a task on this server (from an earlier run, or another "
                        "client):", TextField("task", "Task ID", required=True), "Open", accept)
    return screen


def task_detail_text(row, now):
    task = row.task
    lines = [describe_task(task, tool=row.tool or "(listed by the server)", now=now)]
    if task.status == "input_required":
        lines.append("The task waits for input: press a to answer.")
    if row.following:
        lines += ["", "Following the task ..."]
    if row.failure:
        lines += ["", "Failure: %s" % row.failure]
    if row.result is not None:
        lines += ["", render_tool_result(row.result)]
    elif not task.terminal and not row.following:
        lines += ["", "Press a to follow the task to its result."]
    return "\n".join(lines)


class ElicitationScreen(FieldScreen):
    """A form elicitation: the server's message, a field per requested property (defaults
    filled in), then accept, decline or cancel."""

    submit_label = "Accept"
    BINDINGS = form_keys(Binding("Tab", "move"), Binding("^X", "accept"), Binding("Esc", "cancel"),
                         Binding("", "(Decline is a button)"), Binding("F12", "debug"))

    def __init__(self, app, params, server_name, pending):
        FieldScreen.__init__(self, app, elicitation_intro(params, server_name))
        self.pending = pending
        self.schema = params.get("requestedSchema") if isinstance(params.get("requestedSchema"), dict) else {}
        self.field_list = FieldList(schema_fields(self.schema, titles=True) + [
            Button("Accept", self.submit), Button("Decline", lambda: self.answer({"action": "decline"})),
            Button("Cancel", self.cancel)])

    def title(self):
        return "Input requested"


    def has_output(self):
        return False

    def submit(self):
        content = self.collect()
        if content is None:
            return
        self.answer({"action": "accept", "content": normalise_elicited(content, self.schema)})

    def cancel(self):
        self.answer({"action": "cancel"})

    def answer(self, value):
        self.pending.give(value)
        self.app.close_screen(self)
        self.app.say("Answered the server's request: %s." % value["action"])


def elicitation_intro(params, server_name):
    related = ((params.get("_meta") or {}).get(META_PREFIX + "related-task") or {}) if isinstance(
        params.get("_meta"), dict) else {}
    lines = ["%s asks:" % server_name, str(params.get("message", ""))]
    if isinstance(related, dict) and related.get("taskId"):
        lines.append("(for task %s)" % short_task_id(str(related["taskId"])))
    return "\n".join(lines)


class UrlElicitationScreen(FieldScreen):
    """A URL-mode elicitation: show the URL and its host, and open it only when asked."""

    submit_label = "Open"
    BINDINGS = form_keys(
        Binding("Enter", "press button"),
        Binding("^Y", "copy URL", action=key_action(lambda screen: screen.copy_url())),
        Binding("Esc", "cancel"), Binding("", "(nothing opens unless you choose Open)"))

    def __init__(self, app, params, server_name, pending):
        self.url = str(params.get("url", ""))
        try:
            host, refused = elicitation_url_host(self.url), None
        except ValueError as exc:
            host, refused = "(refused: %s)" % exc, exc
        FieldScreen.__init__(self, app, "%s asks you to open a URL:\n%s\n\nURL:  %s\nHost: %s" % (
            server_name, params.get("message", ""), self.url, host))
        self.pending = pending
        buttons = [Button("Decline", self.decline), Button("Cancel", self.cancel)]
        self.field_list = FieldList(buttons if refused else [Button("Open in browser", self.submit)] + buttons)

    def title(self):
        return "Open a URL?"

    def has_output(self):
        return False

    def copy_url(self):
        if self.app.copy_to_clipboard(self.url):
            self.app.say("URL copied to the clipboard (where the terminal allows).")
        else:
            self.app.say(NOT_COPIED.capitalize() + ": " + self.url, True)

    def submit(self):
        import webbrowser

        self.app.outside_curses(lambda: webbrowser.open(self.url))
        self.answer("accept")

    def decline(self):
        self.answer("decline")

    def cancel(self):
        self.answer("cancel")

    def answer(self, action):
        self.app.close_screen(self)
        self.app.say("Answered the URL request: %s." % action)
        self.pending.give({"action": action})


class AuthorizeScreen(TextScreen):
    """OAuth's browser step: the authorization server, the URL the browser was sent to, and
    a countdown; Esc gives up (the connection then fails with "authorization cancelled")."""

    BINDINGS = (Binding("Esc", "cancel", action=key_action(lambda screen: screen.cancel()), codes=("ESC", "q")),
                Binding("^Y", "copy URL", action=key_action(lambda screen: screen.copy_url())))

    def __init__(self, app, step):
        TextScreen.__init__(self, app, "Authorize", "")
        self.step = step


    def draw(self, canvas):
        if self.step.finished:
            self.app.post(self.app.close_screen, self)
            if self.app.status.startswith("Waiting for the authorization"):
                self.app.say("Authorization received.")  # the wait is over (a connect then says more)
        self.view.set_text("The server needs authorization at %s.\n\nA browser was sent to this URL; open it "
                           "yourself if none appeared:\n%s\n\nWaiting %ds for the authorization..." % (
                               clean(self.step.host), clean(self.step.url), int(self.step.seconds_left())),
                           keep_position=True)
        TextScreen.draw(self, canvas)

    def cancel(self):
        self.step.cancel()
        self.app.close_screen(self)
        self.app.say("Authorization cancelled.")

    def copy_url(self):
        if self.app.copy_to_clipboard(self.step.url):
            self.app.say("URL copied to the clipboard (where the terminal allows).")
        else:
            self.app.say(NOT_COPIED.capitalize() + ": " + self.step.url, True)


class SamplingScreen(FieldScreen):
    """A sampling request for review: its messages and limits; you reply as the model or
    reject it."""

    submit_label = "Send"
    BINDINGS = form_keys(
        Binding("", "type the reply"),
        Binding("^E", lambda screen: "edit" if "^E" in screen.field_keys() else ""),
        Binding("^N", lambda screen: "null" if "^N" in screen.field_keys() else ""),
        Binding("^X", "send"), Binding("Esc", "reject"), Binding("PgUp/PgDn", "scroll the request"))
    HELP_NOTES = ("Reply, Model, Stop reason  the result sent back: type the reply and ^X (the model is 'human')",
                  "Result                     or the whole result as JSON (content blocks, model, stopReason);",
                  "                           what it leaves out comes from the fields above",
                  "^X send    Esc or Reject   reject the request")

    STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")

    def __init__(self, app, params, server_name, pending):
        FieldScreen.__init__(self, app, "%s asks the model (you review and answer):" % server_name)
        self.pending = pending
        self.reply = TextField("reply", "Reply", placeholder="the model's answer (^E: several lines)")
        self.model = TextField("model", "Model", text="human", placeholder="the model that answered")
        self.stop = ChoiceField("stopReason", "Stop reason", [(r, r) for r in self.STOP_REASONS], required=True,
                                default="endTurn")
        self.whole = TextField("result", "Result", {"type": "object"}, placeholder='or the whole result as JSON: '
                               '{"content": {"type": "text", "text": "..."}, "model": "...", "stopReason": "..."}')
        self.field_list = FieldList([self.reply, self.model, self.stop, self.whole, Button("Send", self.submit),
                                     Button("Reject", self.cancel)])
        self.output.set_text(sampling_text(params))

    def title(self):
        return "Sampling request"

    def output_heading(self, width):
        heading = "-- Request %s " % self.output.position()
        return heading + "-" * max(0, width - cells(heading))

    def submit(self):
        result = {"role": "assistant", "content": {"type": "text", "text": self.reply.text},
                  "model": self.model.text or "human", "stopReason": self.stop.current()}
        if self.whole.text.strip():  # the whole result, as the Inspector edits it; the fields fill what it leaves out
            try:
                whole = load_json_argument(self.whole.text, "Result")
            except UsageError as exc:
                self.app.say(exc.message, True)
                return
            blocks = whole.get("content") if isinstance(whole, dict) else None
            if not all(isinstance(block, dict) and isinstance(block.get("type"), str) for block in as_list(blocks)) \
                    or not blocks:
                self.field_list.focus_on(self.whole)
                self.app.say('Result must be a JSON object with "content": a content block (or a list of them), '
                             'e.g. {"type": "text", "text": "Paris"}', True)
                return
            result.update(whole)
        elif not self.reply.text:
            self.app.say("Type a reply (or the whole Result), or choose Reject.", True)
            return
        self.pending.give(result)
        self.app.close_screen(self)
        self.app.say("Sent the reply to the sampling request.")

    def cancel(self):
        self.pending.give(None)
        self.app.close_screen(self)
        self.app.say("Rejected the sampling request.")


def sampling_text(params):
    lines = []
    if params.get("systemPrompt"):
        lines += ["System prompt:", str(params["systemPrompt"]), ""]
    lines += [render_messages(params.get("messages")), ""]
    for label, key in (("Max tokens", "maxTokens"), ("Temperature", "temperature"),
                       ("Include context", "includeContext"), ("Stop sequences", "stopSequences"),
                       ("Model preferences", "modelPreferences"), ("Tools", "tools")):
        if key in params:
            lines.append("%s: %s" % (label, json.dumps(params[key], ensure_ascii=False)))
    return "\n".join(lines)


DEBUG_TABS = (  # each tab and the DebugLog.select arguments that pick its entries
    ("Protocol", {"kinds": ("message", "event")}),
    ("Notifications", {"kinds": ("notification",)}),
    ("Logs", {"kinds": ("notification",), "method_prefix": "notifications/message"}),
    ("HTTP", {"kinds": ("http", "sse")}),
    ("Stderr", {"kinds": ("stderr",)}),
)


class DebugScreen(Screen):
    """The debug log live: Protocol (every message), Notifications, HTTP trace and the
    server's stderr. Key 8 keeps only task status notifications."""

    TABS = tuple(name for name, _ in DEBUG_TABS)
    BINDINGS = (
        Binding("1-5", "tabs", "Protocol, Notifications, Logs (the server's log messages), HTTP trace,\nserver stderr",
                lambda screen, key: screen.switch_tab(key), help_key="1-5, Tab, Left/Right",
                codes=("1", "2", "3", "4", "5") + TAB_KEYS),
        Binding("8", "task status", "Notifications: only task status (notifications/tasks[/status]); again: all",
                key_action(lambda screen: screen.toggle_task_status_only())),
        Binding("/", "search", "search: only entries with the text (Enter keeps it, Esc clears it)",
                key_action(lambda screen: setattr(screen.search, "active", True))),
        Binding("Esc", codes=("ESC",), action=key_action(lambda screen: screen.search.clear()),
                when=lambda screen: screen.search.needle()),
        Binding("Enter", "whole entry", "the whole entry, however long (a message as indented JSON)",
                key_action(lambda screen: screen.open_entry()), codes=("ENTER",)),
        Binding("j/k", True),
        Binding("End", "follow", "follow the newest entry"),
        Binding("q", "back"))
    HELP_COLUMN = 22
    HELP_NOTES = ("Task IDs, session ids and tokens are masked exactly as in the CLI's --debug output.",)

    def __init__(self, app):
        Screen.__init__(self, app)
        self.tab = 0
        self.task_status_only = False
        self.selection = Selection()
        self.tail = True  # keep the newest entry selected while new ones arrive
        self.search = SearchBar()
        self.views, self.views_filter = [], None  # each tab's LogSelection, and the filters they apply

    def title(self):
        return "Debug: %s%s" % (self.TABS[self.tab], " [task status only]" if self.task_status_only else "")

    def hints(self):
        return "type to search  Enter keep  Esc clear" if self.search.active else Screen.hints(self)

    def tab_views(self):
        """Each tab's entries under the search and key 8 (tab counts follow them): made again
        when a filter changes, otherwise brought up to date with only the new entries."""
        needle = self.search.needle()
        if self.views_filter != (needle, self.task_status_only):
            self.views_filter = (needle, self.task_status_only)
            self.views = [LogSelection(self.app.log, self.keeper(selector, needle, name == "Notifications"
                                                                 and self.task_status_only))
                          for name, selector in DEBUG_TABS]
        return [view.refresh() for view in self.views]

    @staticmethod
    def keeper(selector, needle, task_status_only):
        def keep(entry):
            return (log_entry_selected(entry, **selector) and (not task_status_only or is_task_status_entry(entry))
                    and (not needle or needle in (debug_line(entry) + str(entry.get("body", ""))).lower()))

        return keep

    def entries(self):
        return self.tab_views()[self.tab]

    def on_paste(self, text):
        self.search.paste(text)

    def on_key(self, key):
        if self.search.active:
            self.tail = True
            return self.search.on_key(key)
        return Screen.on_key(self, key)

    def other_key(self, key):
        count = len(self.entries())
        if not self.selection.on_key(key, count):
            return False
        self.tail = self.selection.index >= count - 1
        return True

    def switch_tab(self, key):
        self.switch(tab_chosen(key, self.tab, len(self.TABS)))

    def toggle_task_status_only(self):
        self.task_status_only = not self.task_status_only
        self.switch(1)

    def open_entry(self):
        entries = self.entries()
        if entries:
            self.app.open(TextScreen(self.app, "Debug entry", full_entry_text(entries[self.selection.index])))

    def switch(self, tab):
        self.tab, self.tail = tab, True

    def draw(self, canvas):
        views = self.tab_views()
        col = 0
        for index, name in enumerate(self.TABS):
            label = " %d %s (%d) " % (index + 1, name, len(views[index]))
            canvas.put(0, col, label, self.app.style.reverse if index == self.tab else self.app.style.dim)
            col += cells(label) + 1
        if self.task_status_only:
            canvas.put(0, col, " 8: task status only ", self.app.style.bold)
        entries = views[self.tab]
        if self.tail:
            self.selection.index = len(entries) - 1
        if not entries:
            canvas.put(2, 0, "Nothing here yet.", self.app.style.dim)
        rows = canvas.height - 1 - (1 if self.search.shown() else 0)
        for row, index, attr in list_rows(canvas, 1, rows, self.selection, len(entries), self.app.style):
            canvas.put(row, 0, debug_line(entries[index]), attr)
        self.search.draw(canvas.sub(canvas.height - 1, 0, 1, canvas.width), self.app.style)


def debug_line(entry):
    """An entry as one row; a server log message reads as its log line."""
    if entry.get("method") == "notifications/message":
        try:
            params = json.loads(entry["body"]).get("params")
        except (ValueError, AttributeError):
            params = None
        if isinstance(params, dict):
            return "%s %s" % (clock_time_of(entry["time"]), log_text(params))
    return format_log_entry(entry).split("\n")[0]


def full_entry_text(entry):
    if entry["type"] != "message":
        return format_log_entry(entry)
    try:
        body = json.dumps(json.loads(entry["body"]), indent=2, ensure_ascii=False)
    except ValueError:
        body = entry["body"]
    header = format_log_entry(dict(entry, body=""))
    return "%s\n%s" % (header.rstrip(), body)


EDITING_HELP = [
    "", "In a text field (as in readline):",
    "Ctrl+A / Ctrl+E  start / end of the text        Alt+B / Alt+F  a word back / forward",
    "Ctrl+W, Alt+Backspace  delete the word before   Alt+D  delete the word after",
    "Ctrl+U  delete to the start    Ctrl+K  delete to the end    Ctrl+D, Delete  the character",
    "Ctrl+E at the end of the text  a text area: Enter a new line, Tab a tab, ^X done, Esc cancel",
    "Ctrl+N  JSON null, on a field whose schema allows null (empty fields are left out)",
    "A paste goes into the field: a JSON (object/array) field keeps its line breaks, others get spaces;",
    "tabs stay.",
    "Esc on an edited form asks before it drops your input (y drops it; any other key keeps it);",
    "so does Ctrl+C, which then quits (Ctrl+C twice quits at once)."]


def help_text(screen):
    editing = EDITING_HELP if isinstance(screen, FieldScreen) else []
    lines = ["%s" % screen.title(), ""] + screen.help_lines() + editing + [
        "", "Everywhere:",
        "F12        debug screen                     Ctrl+R  reconnect to the same server",
        "F9         record every message to a file (mcp-tui-TIME.jsonl here), until F9 again",
        "Ctrl+C     cancel the running call (tool screen), else quit (asks on an edited form)",
        "q          on the main screen: quit (asks while calls or followed tasks run)",
        "", "Outside forms:",
        "?  help    D  debug    T  tasks    H  call history    C  connection screen (switch server)",
        "p  ping    L  log level    R  roots    Esc / q  back (q types itself in a form)",
        "", "Every string a server sends is shown with terminal control sequences removed."]
    return "\n".join(lines)


# -- 8c. Widgets: text, lists, fields ------------------------------------------------------


COPIED, NOT_COPIED = "copied to the clipboard where the terminal allows", "this console cannot copy: select it by hand"


def terminal_takes_sequences(windows=None, enable_vt=None):
    """Whether control sequences written to stdout (OSC 52, bracketed paste) reach the
    terminal as controls. Every POSIX terminal reads them; a Windows console only with VT
    processing on, which this turns on; where it cannot be (an old console, stdout not a
    console) they must not be written, or the console paints them as text."""
    if windows is None:
        windows = os.name == "nt"
    if not windows:
        return True
    try:
        return bool((enable_vt or enable_console_vt)())
    except (ImportError, OSError, AttributeError, ValueError):
        return False


def enable_console_vt():
    """SetConsoleMode with ENABLE_VIRTUAL_TERMINAL_PROCESSING on stdout's console (Windows 10
    1511 and later, and Windows Terminal); False where the console refuses it."""
    import ctypes
    import msvcrt

    virtual_terminal_processing = 0x0004
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    handle = ctypes.c_void_p(msvcrt.get_osfhandle(sys.stdout.fileno()))
    mode = ctypes.c_ulong()
    if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
        return False
    return bool(mode.value & virtual_terminal_processing
                or kernel32.SetConsoleMode(handle, mode.value | virtual_terminal_processing))


def is_pdcurses(curses):
    """Whether ``curses`` is windows-curses (PDCurses): its module alone names PDCurses' own
    key codes (CPython's module exports every name keyname() knows). It is the one that
    needs resize_term(0, 0) after a resize."""
    return hasattr(curses, "ALT_A") and hasattr(curses, "resize_term")


class Paste:
    """Text the terminal delivered as one bracketed paste: it goes into a text field as
    text, never as keys (a pasted newline is not Enter)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "Paste(%d chars)" % len(self.text)


class KeyReader:
    """get_wch() as readable names: a printable character stays itself; any other key is
    named, such as "ENTER", "UP", "PGDN", "^T", "F12", or "M-b" for Alt+b. An Esc that
    arrives together with more input is decoded here: Alt+key (the terminal sends Esc
    first), an escape sequence curses does not know, or a bracketed paste (a Paste)."""

    CHARACTER_NAMES = {"\n": "ENTER", "\r": "ENTER", "\t": "TAB", "\x1b": "ESC", "\x7f": "BACKSPACE",
                       "\x08": "BACKSPACE"}
    # Keys as xterm and the Linux console send them, for when a slow read splits a sequence
    # and curses gives up on it (it then hands over Esc and the rest one by one).
    SEQUENCES = {"[A": "UP", "[B": "DOWN", "[C": "RIGHT", "[D": "LEFT", "OA": "UP", "OB": "DOWN", "OC": "RIGHT",
                 "OD": "LEFT", "[Z": "BTAB", "[3~": "DELETE", "[1~": "HOME", "[4~": "END", "[H": "HOME",
                 "[F": "END", "OH": "HOME", "OF": "END", "[5~": "PGUP", "[6~": "PGDN", "[24~": "F12",
                 "[20~": "F9", "[11~": "F1", "OP": "F1", "[[A": "F1"}
    # The numeric keypad's own codes (NumLock off): ncurses has the corners and PDCurses
    # (windows-curses) all of them, with Enter, Delete and the operators as PAD* codes.
    KEYPAD_NAMES = {"KEY_A1": "HOME", "KEY_A2": "UP", "KEY_A3": "PGUP", "KEY_B1": "LEFT", "KEY_B3": "RIGHT",
                    "KEY_C1": "END", "KEY_C2": "DOWN", "KEY_C3": "PGDN", "PADENTER": "ENTER", "PADSTOP": "DELETE",
                    "PADSLASH": "/", "PADSTAR": "*", "PADMINUS": "-", "PADPLUS": "+"}
    # PDCurses sends Alt+key as a code of its own (ALT_B is 418), not Esc then the key as
    # terminals do; its module names them (ALT_A..ALT_Z, ALT_0..ALT_9 and these), ncurses has
    # none of them. Each gets the name the Esc form has: Alt+b is "M-b" on both.
    ALT_NAMES = {"BKSP": "BACKSPACE", "DEL": "DELETE", "LEFT": "LEFT", "RIGHT": "RIGHT", "UP": "UP", "DOWN": "DOWN",
                 "HOME": "HOME", "END": "END", "PGUP": "PGUP", "PGDN": "PGDN", "ENTER": "ENTER", "MINUS": "-",
                 "EQUAL": "=", "COMMA": ",", "STOP": ".", "FSLASH": "/", "BSLASH": "\\", "SEMICOLON": ";",
                 "FQUOTE": "'", "BQUOTE": "`", "LBRACKET": "[", "RBRACKET": "]"}
    PASTE_START, PASTE_END = "[200~", "\x1b[201~"
    PASTE_LIMIT = 1 << 20  # characters; a paste without its end marker stops here

    def __init__(self, window, curses, idle_ms=TUI_TICK_MS):
        self.window = window
        self.curses = curses
        self.idle_ms = idle_ms  # how long a read waits for a key: 0 where the loop waits in select (Inbox.sleep)
        names = {"KEY_UP": "UP", "KEY_DOWN": "DOWN", "KEY_LEFT": "LEFT", "KEY_RIGHT": "RIGHT",
                 "KEY_PPAGE": "PGUP", "KEY_NPAGE": "PGDN", "KEY_HOME": "HOME", "KEY_END": "END",
                 "KEY_BACKSPACE": "BACKSPACE", "KEY_DC": "DELETE", "KEY_ENTER": "ENTER", "KEY_BTAB": "BTAB",
                 "KEY_RESIZE": "RESIZE", "KEY_F1": "F1", "KEY_F9": "F9", "KEY_F12": "F12"}
        names.update(self.KEYPAD_NAMES)
        names.update(("ALT_" + key, "M-" + name) for key, name in self.ALT_NAMES.items())
        names.update(("ALT_" + char, "M-" + char.lower()) for char in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        self.codes = {getattr(curses, constant): name for constant, name in names.items() if hasattr(curses, constant)}

    def read(self):
        key = self.next_key()
        if key is None:
            return None
        name = self.name(key)
        if name != "ESC":
            return name
        return self.after_escape()

    def next_key(self, wait_ms=None):
        """One get_wch(), or None when nothing arrives in time (``idle_ms``, or ``wait_ms``)."""
        if wait_ms is not None:
            self.window.timeout(wait_ms)
        try:
            return self.window.get_wch()
        except self.curses.error:
            return None
        finally:
            if wait_ms is not None:
                self.window.timeout(self.idle_ms)

    def name(self, key):
        if isinstance(key, int):
            return self.codes.get(key)
        if key in self.CHARACTER_NAMES:
            return self.CHARACTER_NAMES[key]
        if ord(key) < 32:
            return "^" + chr(ord(key) + 64)
        return key

    def after_escape(self):
        """Esc alone is "ESC". Input already waiting behind it (curses waited ESCDELAY for it)
        was sent with it: Alt+key, or a sequence such as a paste's start."""
        follower = self.next_key(0)
        if follower is None:
            return "ESC"
        if follower in ("[", "O"):
            return self.sequence(follower)
        name = self.name(follower)
        if name is None:
            return None
        if name == "ESC":
            self.curses.unget_wch(follower)  # Esc Esc: two presses
            return "ESC"
        return "BTAB" if name == "TAB" else "M-" + name

    def sequence(self, text):
        """The rest of a CSI or SS3 sequence curses did not decode: up to its final byte."""
        while len(text) < 16:
            char = self.next_key(50)  # the rest of a sequence is on its way
            if not isinstance(char, str):
                break
            text += char
            if len(text) > 1 and 0x40 <= ord(char) <= 0x7E:
                break
        if text == self.PASTE_START:
            return self.paste()
        return self.SEQUENCES.get(text, "M-" + text[0] if len(text) == 1 else None)

    def paste(self):
        chars = []
        tail = len(self.PASTE_END)
        while len(chars) < self.PASTE_LIMIT:
            char = self.next_key(1000)
            if char is None:
                break  # the end marker never came: keep what arrived
            if not isinstance(char, str):
                continue  # a key code inside a paste is not text
            chars.append(char)
            if char == "~" and "".join(chars[-tail:]) == self.PASTE_END:
                del chars[-tail:]
                break
        return Paste("".join(chars).replace("\r\n", "\n").replace("\r", "\n"))


class Style:
    """The attributes the screens use; colour where the terminal has it."""

    FIRST_PICTURE_PAIR = 16  # the pairs below are the screens' own

    def __init__(self, curses):
        self.curses = curses
        self.colours = 0  # how many the terminal has, once colour is on (pictures need 8 or more)
        self.pairs = {}  # (foreground, background) colour numbers -> a colour pair made for a picture
        self.bold, self.dim, self.reverse = curses.A_BOLD, curses.A_DIM, curses.A_REVERSE
        self.title = curses.A_REVERSE | curses.A_BOLD
        self.status = curses.A_BOLD
        self.error = curses.A_BOLD
        self.field = curses.A_UNDERLINE
        self.disconnected = curses.A_REVERSE | curses.A_BOLD
        if curses.has_colors():
            try:
                curses.start_color()
                curses.use_default_colors()
                curses.init_pair(1, curses.COLOR_WHITE, curses.COLOR_BLUE)
                curses.init_pair(2, curses.COLOR_RED, -1)
                curses.init_pair(3, curses.COLOR_CYAN, -1)
            except curses.error:
                return
            self.colours = curses.COLORS if curses.COLORS >= 8 else 0
            self.title = curses.color_pair(1) | curses.A_BOLD
            self.error = curses.color_pair(2) | curses.A_BOLD
            self.status = curses.color_pair(3)
            self.disconnected = curses.color_pair(2) | curses.A_REVERSE | curses.A_BOLD

    def pair(self, foreground, background):
        """A colour pair for two RGB colours, made on first use; when the terminal's pairs run
        out, the nearest pair already made stands in."""
        key = (terminal_colour(foreground, self.colours), terminal_colour(background, self.colours))
        if key not in self.pairs:
            number = self.FIRST_PICTURE_PAIR + len(self.pairs)
            try:
                if number >= self.curses.COLOR_PAIRS:
                    raise self.curses.error("no colour pairs left")
                self.curses.init_pair(number, key[0], key[1])
                self.pairs[key] = self.curses.color_pair(number)
            except (self.curses.error, ValueError, OverflowError):
                return next(iter(self.pairs.values()), 0)
        return self.pairs[key]


BASIC_COLOURS = ((0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
                 (229, 229, 229))  # curses' COLOR_BLACK ... COLOR_WHITE, as xterm shows them


def terminal_colour(rgb, colours):
    """The terminal's colour number nearest to ``rgb``: the 6x6x6 cube of a 256-colour
    terminal, else one of the eight basic colours."""
    if colours >= 256:
        return 16 + sum(int(round(channel / 255.0 * 5)) * weight for channel, weight in zip(rgb, (36, 6, 1)))
    return min(range(8), key=lambda index: sum((a - b) ** 2 for a, b in zip(rgb, BASIC_COLOURS[index])))


class Canvas:
    """A rectangle of the window. Every write is clipped to it and cleaned of control
    sequences, so no server string can move the cursor or paint outside its pane."""

    def __init__(self, window, top, left, height, width, error, style=None):
        self.window, self.top, self.left = window, top, left
        self.height, self.width = max(0, height), max(0, width)
        self.error = error
        self.style = style

    def sub(self, top, left, height, width):
        return Canvas(self.window, self.top + top, self.left + left, min(height, self.height - top),
                      min(width, self.width - left), self.error, self.style)

    def colour(self, foreground, background):
        """The attribute for two RGB colours (a picture's cell), as near as the terminal has them."""
        return self.style.pair(foreground, background) if self.style is not None else 0

    def put(self, row, col, text, attr=0):
        if not (0 <= row < self.height and 0 <= col < self.width):
            return
        text = clip(clean_line(text), self.width - col)
        try:
            self.window.addstr(self.top + row, self.left + col, text, attr)
        except (self.error, ValueError, UnicodeError):
            pass  # the bottom-right cell cannot be written without scrolling; nothing else is lost

    def fill(self, row, attr):
        self.put(row, 0, " " * self.width, attr)


class TextView:
    """Text to scroll through, wrapped to the width it is drawn at."""

    def __init__(self, text=""):
        self.text = text
        self.top = 0
        self.height = 1
        self.total = 0
        self._wrapped = (None, None, [])
        self.pictures = []  # rows of (top, bottom) RGB cells, drawn where a PICTURE_MARK row says

    def set_text(self, text, keep_position=False):
        if text != self.text:  # screens rebuild equal text per draw: keep the rows wrapped for it
            self.text = text
        if not keep_position:
            self.top = 0

    def rows(self, width):
        text, cached_width, rows = self._wrapped
        if text is not self.text or cached_width != width:
            rows = wrap_text(self.text, width)
            self._wrapped = (self.text, width, rows)
        return rows

    def draw(self, canvas, attr=0):
        rows = self.rows(max(1, canvas.width))
        self.height, self.total = max(1, canvas.height), len(rows)
        self.top = max(0, min(self.top, len(rows) - self.height))
        for line, text in enumerate(rows[self.top:self.top + self.height]):
            if text.startswith(PICTURE_MARK) and self.pictures:
                self.draw_picture_row(canvas, line, text[len(PICTURE_MARK):])
                continue
            canvas.put(line, 0, text, attr)

    def draw_picture_row(self, canvas, line, where):
        picture, _, row = where.partition(":")
        picture, row = int(picture or 0), int(row) if row.isdigit() else -1  # -1: a mark cut by a narrow pane
        if picture < len(self.pictures) and 0 <= row < len(self.pictures[picture]):
            for col, (top, bottom) in enumerate(self.pictures[picture][row]):
                canvas.put(line, col, "\u2580", canvas.colour(top, bottom))  # upper half block: top on bottom

    def position(self):
        if self.total <= self.height:
            return ""
        return "(%d-%d of %d)" % (self.top + 1, min(self.total, self.top + self.height), self.total)

    def on_key(self, key):
        moves = {"UP": -1, "k": -1, "DOWN": 1, "j": 1, "PGUP": -(self.height - 1), "PGDN": self.height - 1,
                 " ": self.height - 1}
        if key in moves:
            self.top = max(0, self.top + moves[key])
        elif key in ("HOME", "g"):
            self.top = 0
        elif key in ("END", "G"):
            self.top = max(0, self.total - self.height)
        else:
            return False
        return True


class Selection:
    """Which row of a list is selected, and which row is at the top of the view."""

    def __init__(self):
        self.index = 0
        self.top = 0
        self.page = 10

    def on_key(self, key, count):
        moves = {"UP": -1, "k": -1, "DOWN": 1, "j": 1, "PGUP": -self.page, "PGDN": self.page}
        if key in moves:
            self.index += moves[key]
        elif key in ("HOME", "g"):
            self.index = 0
        elif key in ("END", "G"):
            self.index = count - 1
        else:
            return False
        self.index = max(0, min(self.index, count - 1))
        return True

    def window(self, count, height):
        """The indexes to draw in ``height`` rows, with the selected one in view."""
        height = max(1, height)
        self.page = max(1, height - 1)
        self.index = max(0, min(self.index, count - 1))
        if self.index < self.top:
            self.top = self.index
        if self.index >= self.top + height:
            self.top = self.index - height + 1
        self.top = max(0, min(self.top, count - height))
        return range(self.top, min(count, self.top + height))


def list_rows(canvas, top, height, selection, count, style):
    """(canvas row, index, attribute) of each list entry in view, from row ``top`` down for
    ``height`` rows; the selected entry's row is filled in reverse video."""
    for line, index in enumerate(selection.window(count, height)):
        attr = style.reverse if index == selection.index else 0
        canvas.fill(top + line, attr)
        yield top + line, index, attr


class TextField:
    """One line of text, edited as in readline. The schema decides what it becomes
    (coerce_value), so numbers, booleans, arrays and objects typed as JSON all arrive as
    their JSON types. Object, array and untyped (JSON) fields keep pasted newlines. A field
    whose schema allows null is empty (left out) until the user sets it; ^N sends JSON null."""

    def __init__(self, key, label, schema=None, required=False, text="", placeholder=None, description=None):
        self.key, self.label, self.required = key, label, required
        self.schema = schema if isinstance(schema, dict) else {}
        self.text, self.cursor = text, len(text)
        self.placeholder = placeholder or type_hint(self.schema)
        self.description = description if description is not None else self.schema.get("description")
        types = schema_types(self.schema) if schema is not None else ["string"]
        self.multiline = not types or "object" in types or "array" in types
        self.nullable = "null" in types
        self.null = False  # the user chose JSON null (^N), which the text cannot say for a string

    def set_text(self, text):
        """``None``: JSON null (what state() reports for a field set to null)."""
        self.null = text is None
        text = text or ""
        self.text, self.cursor = text, len(text)

    def insert(self, text):
        """Pasted text at the cursor: newlines stay in a multi-line field, else become spaces;
        tabs stay (the text area, ^E, shows and edits both)."""
        if not self.multiline:
            text = text.replace("\n", " ")
        text = "".join(c for c in text if c in "\n\t" or c >= " ")  # no other control characters from a paste
        self.null = False
        self.text = self.text[:self.cursor] + text + self.text[self.cursor:]
        self.cursor += len(text)

    def word_start(self):
        """Where the word before the cursor starts (readline's Alt+Backspace and Ctrl+W)."""
        index = self.cursor
        while index and not self.text[index - 1].isalnum():
            index -= 1
        while index and self.text[index - 1].isalnum():
            index -= 1
        return index

    def word_end(self):
        index, text = self.cursor, self.text
        while index < len(text) and not text[index].isalnum():
            index += 1
        while index < len(text) and text[index].isalnum():
            index += 1
        return index

    def on_key(self, key):
        text, cursor = self.text, self.cursor
        if key == "^N" and self.nullable:
            self.set_text(None if not self.null else "")
            return True
        if self.null and (len(key) == 1 or key in ("BACKSPACE", "DELETE", "^D", "^U", "^W", "M-BACKSPACE")):
            self.null = False  # typing replaces the null
            if len(key) != 1:
                return True
        if len(key) == 1:
            self.text, self.cursor = text[:cursor] + key + text[cursor:], cursor + 1
        elif key == "BACKSPACE" and cursor:
            self.text, self.cursor = text[:cursor - 1] + text[cursor:], cursor - 1
        elif key in ("DELETE", "^D"):
            self.text = text[:cursor] + text[cursor + 1:]
        elif key in ("LEFT", "^B"):
            self.cursor = max(0, cursor - 1)
        elif key in ("RIGHT", "^F"):
            self.cursor = min(len(text), cursor + 1)
        elif key in ("HOME", "^A"):
            self.cursor = 0
        elif key in ("END", "^E"):
            self.cursor = len(text)
        elif key == "^U":
            self.text, self.cursor = text[cursor:], 0
        elif key == "^K":
            self.text = text[:cursor]
        elif key in ("^W", "M-BACKSPACE"):
            start = self.word_start()
            self.text, self.cursor = text[:start] + text[cursor:], start
        elif key == "M-d":
            self.text = text[:cursor] + text[self.word_end():]
        elif key == "M-b":
            self.cursor = self.word_start()
        elif key == "M-f":
            self.cursor = self.word_end()
        else:
            return False
        return True

    def value(self):
        """(present, value); raises UsageError when the text is not what the schema wants."""
        if self.null:
            return True, None
        if not self.text:
            return False, None
        return True, coerce_value(self.text, self.schema, self.label)

    def hint(self):
        lines = self.text.count("\n")
        kind = type_hint(self.schema) + ("  %d lines" % (lines + 1) if lines else "")
        if self.nullable:
            kind += "  ^N null" if not self.null else "  ^N clears the null"
        return join_hint(kind, self.description, self.schema)

    def draw(self, canvas, focused, style):
        if self.null:
            canvas.put(0, 0, "null (JSON null)", style.reverse if focused else style.bold)
            return
        shown = self.text.replace("\n", "\u21b5")  # a kept newline shows as a return arrow
        if not focused:
            canvas.put(0, 0, shown or self.placeholder, 0 if self.text else style.dim)
            return
        start = max(0, self.cursor - canvas.width + 2)
        canvas.put(0, 0, " " * canvas.width, style.field)
        canvas.put(0, 0, shown[start:], style.field)
        under = shown[self.cursor] if self.cursor < len(shown) else " "
        canvas.put(0, cells(clean_line(shown[start:self.cursor])), under, style.reverse)


class ChoiceField:
    """One of a list: an enum, titled oneOf/anyOf constants, or a boolean. Optional fields
    (and required ones without a default) start at a "not set" entry."""

    def __init__(self, key, label, options, schema=None, required=False, default=None, has_default=True):
        self.key, self.label, self.required = key, label, required
        self.schema = schema if isinstance(schema, dict) else {}
        self.options = [(True, value, text) for value, text in options]
        has_default = has_default and default is not None
        if not (required and has_default):
            self.options.insert(0, (False, None, "(choose one)" if required else "(not set)"))
        self.index = 0
        for index, (present, value, _) in enumerate(self.options):
            if present and has_default and value == default and type(value) == type(default):
                self.index = index
        self.description = self.schema.get("description")

    def current(self):
        return self.options[self.index][1]

    def on_key(self, key):
        count = len(self.options)
        if key in ("RIGHT", " "):
            self.index = (self.index + 1) % count
        elif key == "LEFT":
            self.index = (self.index - 1) % count
        elif len(key) == 1:
            return self.jump_to(key.lower())
        else:
            return False
        return True

    def jump_to(self, letter):
        """Typing a letter selects the next option that starts with it."""
        count = len(self.options)
        for step in range(1, count + 1):
            index = (self.index + step) % count
            if self.options[index][2].lower().startswith(letter):
                self.index = index
                return True
        return True

    def value(self):
        present, value, _ = self.options[self.index]
        return present, value

    def hint(self):
        return join_hint("Left/Right or Space to choose, a letter jumps", self.description, self.schema)

    def draw(self, canvas, focused, style):
        text = "< %s >  (%d/%d)" % (self.options[self.index][2], self.index + 1, len(self.options))
        canvas.put(0, 0, text, style.reverse if focused else 0)


class MultiChoiceField:
    """Several of a list (an array of enum or titled constants): Left/Right move, Space ticks."""

    def __init__(self, key, label, options, schema=None, required=False, default=None):
        self.key, self.label, self.required = key, label, required
        self.schema = schema if isinstance(schema, dict) else {}
        self.options = list(options)
        chosen = default if isinstance(default, list) else []
        self.ticked = [value in chosen for value, _ in self.options]
        self.cursor = 0
        self.description = self.schema.get("description")

    def on_key(self, key):
        if key == "RIGHT":
            self.cursor = min(len(self.options) - 1, self.cursor + 1)
        elif key == "LEFT":
            self.cursor = max(0, self.cursor - 1)
        elif key == " " and self.options:
            self.ticked[self.cursor] = not self.ticked[self.cursor]
        else:
            return False
        return True

    def value(self):
        values = [value for (value, _), ticked in zip(self.options, self.ticked) if ticked]
        return bool(values) or self.required, values

    def hint(self):
        return join_hint("Left/Right move, Space ticks", self.description, self.schema)

    def draw(self, canvas, focused, style):
        items = ["[%s] %s" % ("x" if ticked else " ", text) for (_, text), ticked in zip(self.options, self.ticked)]
        first = 0  # options wider than the field scroll, so the one under the cursor is always seen
        while first < self.cursor and sum(cells(item) + 2 for item in items[first:self.cursor + 1]) + 2 > canvas.width:
            first += 1
        col = 0
        if first:
            canvas.put(0, 0, "\u2026", style.dim)  # more options to the left
            col = 2
        for index in range(first, len(items)):
            canvas.put(0, col, items[index], style.reverse if focused and index == self.cursor else 0)
            col += cells(items[index]) + 2
        if col - 2 > canvas.width:
            canvas.put(0, canvas.width - 1, "\u2026", style.dim)  # more to the right


class SearchBar:
    """The / line under a list: typing narrows the list, Enter keeps the text, Esc clears it."""

    def __init__(self):
        self.field = TextField("search", "Search")
        self.active = False

    def needle(self):
        return self.field.text.lower()

    def shown(self):
        return self.active or bool(self.field.text)

    def clear(self):
        self.active = False
        self.field.set_text("")

    def paste(self, text):
        self.active = True
        self.field.insert(text)

    def on_key(self, key):
        if key == "ENTER":
            self.active = False
        elif key == "ESC":
            self.clear()
        else:
            self.field.on_key(key)
        return True

    def draw(self, canvas, style):
        if self.shown():
            canvas.put(0, 0, "/", style.bold)
            self.field.draw(canvas.sub(0, 2, 1, canvas.width - 2), self.active, style)


class Button:
    def __init__(self, label, action, row_of_its_own=False):
        self.label = label  # a string, or a callable for a label that changes
        self.action = action
        self.row_of_its_own = row_of_its_own

    def text(self):
        return "[ %s ]" % (self.label() if callable(self.label) else self.label)

    def on_key(self, key):
        if key in ("ENTER", " "):
            self.action()
            return True
        return False

    def hint(self):
        return "Enter presses %s" % self.text()


class FieldList:
    """Fields one per row, then buttons side by side; Tab or Up/Down move between them,
    Enter moves to the next field or presses a button."""

    def __init__(self, items):
        self.items = items
        self.focus = 0
        self.top = 0

    def fields(self):
        return [item for item in self.items if not isinstance(item, Button)]

    def paste(self, text):
        """Pasted text into the focused text field; False when the focus is elsewhere."""
        item = self.items[self.focus] if self.items else None
        if not isinstance(item, TextField):
            return False
        item.insert(text)
        return True

    def state(self):
        """What the user set, to tell an edited form from an untouched one."""
        return [((None if item.null else item.text) if isinstance(item, TextField) else item.index if isinstance(item, ChoiceField)
                 else list(item.ticked)) for item in self.fields()]

    def restore(self, state):
        for item, value in zip(self.fields(), state or ()):
            if isinstance(item, TextField):
                item.set_text(value)
            elif isinstance(item, ChoiceField):
                item.index = value
            else:
                item.ticked = list(value)

    def on_key(self, key):
        if not self.items:
            return False
        item = self.items[self.focus]
        if key in ("TAB", "DOWN") or (key == "ENTER" and not isinstance(item, Button)):
            self.focus = (self.focus + 1) % len(self.items)
        elif key in ("BTAB", "UP"):
            self.focus = (self.focus - 1) % len(self.items)
        elif isinstance(item, Button) and key in ("LEFT", "RIGHT"):
            self.focus = (self.focus + (1 if key == "RIGHT" else -1)) % len(self.items)
        else:
            return item.on_key(key)
        return True

    def collect(self, required=True):
        """The values of the fields that have one, a nested field's in its object; raises
        UsageError naming the first field that is missing or wrong, and moves the focus there.
        A nested field is required when its object is sent: one of its fields is set, or the
        object is required itself."""
        values, given = {}, []
        for item in self.fields():
            try:
                present, value = item.value()
            except UsageError as exc:
                self.focus_on(item)
                raise UsageError("%s: %s" % (item.label, exc.message))
            given.append((item, present, value))
            if present:
                target = values
                for key in field_parents(item):
                    target = target.setdefault(key, {})
                target[item.key] = value
        for item, present, value in given:
            if object_sent(values, item):  # a required object is sent, if empty: {}
                target = values
                for key in field_parents(item):
                    target = target.setdefault(key, {})
        for item, present, value in given:  # a required object that may be null, none of its fields set: null
            parents = field_parents(item)
            for depth, null_when_empty in enumerate(getattr(item, "parents_null", ())):
                above = nested_value(values, parents[:depth])
                if null_when_empty and isinstance(above, dict) and above.get(parents[depth]) is None:
                    above[parents[depth]] = None
        for item, present, value in given:
            if not present:
                if item.required and required and object_sent(values, item):
                    self.focus_on(item)
                    raise UsageError("%s is required" % item.label)
                continue
            problem = constraint_problem(value, item.schema)
            if problem and required:
                self.focus_on(item)
                raise UsageError(at_path(item.label, problem))
        return values

    def focus_on(self, item):
        self.focus = self.items.index(item)

    def hint(self):
        return self.items[self.focus].hint() if self.items else ""

    def layout(self):
        """(row, column) of each item: a field per row, consecutive buttons share a row."""
        places, row, col, previous_button = [], -1, 0, False
        for item in self.items:
            button = isinstance(item, Button)
            if not (button and previous_button and not item.row_of_its_own):
                row, col = row + 1, 0
            places.append((row, col))
            col += cells(item.text()) + 2 if button else 0
            previous_button = button
        return places, row + 1

    def height(self):
        return self.layout()[1]

    def draw(self, canvas, style):
        places, _ = self.layout()
        if not places:
            return
        labels = [cells(item.label) for item in self.fields()]
        label_width = min(max(labels) + 3 if labels else 0, max(10, canvas.width // 3))
        focus_row, total = places[self.focus][0], places[-1][0] + 1
        self.top = min(self.top, focus_row, max(0, total - canvas.height))  # a taller window shows more again
        self.top = max(self.top, focus_row - canvas.height + 1)
        for index, item in enumerate(self.items):
            row, col = places[index][0] - self.top, places[index][1]
            if not 0 <= row < canvas.height:
                continue
            focused = index == self.focus
            if isinstance(item, Button):
                canvas.put(row, col, item.text(), style.reverse if focused else style.bold)
                continue
            label = item.label + ("*" if item.required else "")
            canvas.put(row, 0, clip(label, label_width - 1), style.bold if focused else 0)
            item.draw(canvas.sub(row, label_width, 1, canvas.width - label_width), focused, style)
        for row, shown, text in ((0, self.top > 0, " \u2191 more above "),
                                 (canvas.height - 1, total - self.top > canvas.height, " \u2193 more below ")):
            if shown and canvas.height > 1:
                canvas.put(row, canvas.width - cells(text), text, style.reverse)

    def fill(self, arguments):
        """Set the fields to ``arguments`` (a call's, from the history); the others are cleared."""
        for item in self.fields():
            source = nested_value(arguments, field_parents(item))
            source = source if isinstance(source, dict) else {}
            present, value = item.key in source, source.get(item.key)
            if isinstance(item, TextField):
                item.set_text(None if present and value is None else "" if not present
                              else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
            elif isinstance(item, ChoiceField):
                item.index = next((index for index, (set_, option, _) in enumerate(item.options)
                                   if set_ == present and (not present or (option == value and type(option) == type(
                                       value)))), item.index)
            else:
                item.ticked = [present and isinstance(value, list) and option in value for option, _ in item.options]


def schema_fields(schema, titles, nested=False, parents=(), parents_required=(), parents_null=()):
    """Fields for an object schema's properties, in the schema's order. ``titles``: label
    with the property's title (elicitation) rather than its key (tool arguments). ``nested``:
    an object property with properties of its own gets a field for each (``address.zip``),
    at any depth; ``parents`` are the keys above these fields, ``parents_required``
    whether each of them is required where it is (then it is sent even with no field set),
    and ``parents_null`` whether each is sent as JSON null when none of its fields is set (a
    required one that may be null: pydantic's ``Optional[Model]`` without a default)."""
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or ())
    defaults = schema.get("default") if parents and isinstance(schema.get("default"), dict) else {}
    fields = []
    for key, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        if key in defaults and "default" not in prop:
            prop = dict(prop, default=defaults[key])  # the object's default, field by field
        inner = expanded_object(prop) if nested else None
        if inner is not None:
            nullable = inner is not prop  # an object or null: null stands for "not given"
            fields += schema_fields(inner, titles, True, parents + (key,),
                                    parents_required + (key in required and not nullable,),
                                    parents_null + (key in required and nullable,))
            continue
        label = str(prop.get("title") or key) if titles else ".".join(parents + (key,))
        field = field_for(key, label, prop, key in required)
        field.parents, field.parents_required, field.parents_null = parents, parents_required, parents_null
        fields.append(field)
    return fields


def expanded_object(prop):
    """The object schema a form shows as a field for each of its properties: ``prop`` itself,
    or, for an object that may be null (``type: [object, null]``, or anyOf/oneOf of an object
    and null: pydantic's ``Optional[Model]``), a copy that is only the object, with the outer
    title, description and default. None for anything else (objects without properties and
    mixes of other types are JSON typed in)."""
    properties = prop.get("properties")
    if choice_options(prop) is not None:
        return None
    if schema_types(prop) == ["object"]:
        return prop if isinstance(properties, dict) and properties else None
    if sorted(schema_types(prop)) != ["null", "object"]:
        return None
    if "type" in prop:
        return expanded_object(dict(prop, type="object"))
    objects = [v for keyword in ("anyOf", "oneOf") for v in (prop.get(keyword) if isinstance(
        prop.get(keyword), list) else ()) if isinstance(v, dict) and schema_types(v) != ["null"]]
    if len(objects) != 1 or expanded_object(objects[0]) is not objects[0]:
        return None
    return dict(objects[0], **{key: prop[key] for key in ("title", "description", "default") if key in prop})


def field_parents(item):
    """The keys of the objects a field's value goes into (none: an argument of its own)."""
    return getattr(item, "parents", ())


def object_sent(values, item):
    """Whether the object a nested field belongs to is sent: one of its fields is set, or it
    is required and the object it is in is sent (an argument of its own: always)."""
    parents, sent = field_parents(item), True
    for depth, required in enumerate(getattr(item, "parents_required", ())):
        sent = nested_value(values, parents[:depth + 1]) is not None or (required and sent)
    return sent


def nested_value(values, parents):
    """The object at ``parents`` in ``values``; None when nothing was set there."""
    for key in parents:
        values = values.get(key) if isinstance(values, dict) else None
    return values


def field_for(key, label, prop, required):
    choices = choice_options(prop)
    has_default, default = "default" in prop, prop.get("default")
    if choices is not None:
        return ChoiceField(key, label, choices, prop, required, default, has_default)
    types = schema_types(prop)
    if types == ["boolean"]:
        return ChoiceField(key, label, [(True, "true"), (False, "false")], prop, required, default, has_default)
    if types == ["array"] and choice_options(prop.get("items") if isinstance(prop.get("items"), dict) else {}):
        return MultiChoiceField(key, label, choice_options(prop["items"]), prop, required, default)
    # a null default means "left out": the field starts empty, never as the text "null"
    text = "" if default is None else default if isinstance(default, str) else json.dumps(default)
    return TextField(key, label, prop, required, text=text)


def choice_options(prop):
    """(value, label) pairs for enum, enum with enumNames, and oneOf/anyOf of titled
    constants (SEP-1330); None when the property is not a choice."""
    if not isinstance(prop, dict):
        return None
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        names = prop.get("enumNames")
        if isinstance(names, list) and len(names) == len(prop["enum"]):
            return [(v, "%s (%s)" % (n, v) if str(n) != str(v) else str(v)) for v, n in zip(prop["enum"], names)]
        return [(v, v if isinstance(v, str) else json.dumps(v)) for v in prop["enum"]]
    for keyword in ("oneOf", "anyOf"):
        variants = prop.get(keyword)
        if isinstance(variants, list) and variants and all(isinstance(v, dict) and "const" in v for v in variants):
            return [(v["const"], str(v.get("title") or v["const"])) for v in variants]
    return None


FORMAT_HINTS = {"email": "email address", "uri": "URI, e.g. https://...", "date": "date YYYY-MM-DD",
                "date-time": "date-time, e.g. 2026-07-28T09:30:00Z", "time": "time, e.g. 09:30:00Z"}


def type_hint(schema):
    """The kind of text a field wants: its JSON types, an array's item type, and the format
    that is checked before sending."""
    types = schema_types(schema)
    if not types:
        return "(text)"
    items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
    item_types = " or ".join(schema_types(items)) or "values"
    names = {"array": "JSON array, or a,b,c of %s" % item_types, "object": "JSON object"}
    hint = " or ".join(names.get(t, t) for t in types)
    if schema.get("format") in FORMAT_HINTS:
        hint += ": " + FORMAT_HINTS[schema["format"]]
    return "(%s)" % hint


def join_hint(kind, description, schema):
    parts = [kind]
    if description:
        parts.append(str(description))
    if "default" in schema:
        parts.append("default %s" % json.dumps(schema["default"], ensure_ascii=False))
    return "  ".join(parts)


# -- 8d. Text on a terminal: one row, cells, clipping --------------------------------------

PICTURE_MARK = "\ue000picture "  # a TextView row that stands for a row of a picture (private use: no server text)


def decode_png(data, max_pixels=16 << 20):
    """A PNG's pixels as rows of (r, g, b), alpha blended over black, or None when it is not a
    PNG this reads (interlaced, damaged, or larger than ``max_pixels``). zlib only."""
    import struct
    import zlib

    if not data or data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    position, header, palette, compressed = 8, None, [], []
    try:
        while position + 8 <= len(data):
            length, kind = struct.unpack(">I4s", data[position:position + 8])
            body = data[position + 8:position + 8 + length]
            position += 12 + length
            if kind == b"IHDR":
                header = struct.unpack(">IIBBBBB", body)
            elif kind == b"PLTE":
                palette = [tuple(body[i:i + 3]) for i in range(0, len(body) - 2, 3)]
            elif kind == b"IDAT":
                compressed.append(body)
            elif kind == b"IEND":
                break
        width, height, depth, colour, _, _, interlace = header
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
        if interlace or not width or not height or width * height > max_pixels or depth not in (1, 2, 4, 8, 16) \
                or (depth < 8 and colour not in (0, 3)) or (colour == 3 and not palette):
            return None
        stride = (width * channels * depth + 7) // 8
        raw = zlib.decompressobj().decompress(b"".join(compressed), (stride + 1) * height)
    except (TypeError, ValueError, KeyError, struct.error, zlib.error):
        return None
    if len(raw) < (stride + 1) * height:
        return None
    step = max(1, channels * depth // 8)
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride if kind else 0):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[i] = (line[i] + near[2]) & 255
        previous = line
        rows.append(png_row(line, width, depth, colour, palette))
    return rows


def png_row(line, width, depth, colour, palette):
    """One unfiltered PNG row as (r, g, b) pixels."""
    if depth < 8:  # grey or palette indices packed into bytes
        per_byte = 8 // depth
        values = [(line[x // per_byte] >> (8 - depth * (x % per_byte + 1))) & ((1 << depth) - 1) for x in range(width)]
        if colour == 3:
            return [palette[v] if v < len(palette) else (0, 0, 0) for v in values]
        return [(v * 255 // ((1 << depth) - 1),) * 3 for v in values]
    size = depth // 8  # 16-bit samples: the high byte is enough for a terminal
    samples = line[::size]
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    pixels = []
    for x in range(width):
        sample = samples[x * channels:(x + 1) * channels]
        if colour == 3:
            pixels.append(palette[sample[0]] if sample[0] < len(palette) else (0, 0, 0))
            continue
        rgb = (sample[0],) * 3 if colour in (0, 4) else tuple(sample[:3])
        alpha = sample[-1] if colour in (4, 6) else 255
        pixels.append(tuple(c * alpha // 255 for c in rgb))
    return pixels


def picture_cells(pixels, max_columns, max_rows):
    """Pixels scaled (nearest neighbour) to at most ``max_columns`` by ``max_rows`` cells, two
    pixel rows a cell (the upper half block's colour over its background): rows of (top,
    bottom) colours. A tiny image is drawn at least 16 cells wide, to be seen."""
    if not pixels:
        return None
    height, width = len(pixels), len(pixels[0])
    columns = min(max_columns, max(width, 16))
    rows = max(1, int(round(columns * height / float(width) / 2)))
    if rows > max_rows:
        rows, columns = max_rows, max(1, int(round(max_rows * 2 * width / float(height))))
    sample = lambda x, y: pixels[min(height - 1, y * height // (rows * 2))][min(width - 1, x * width // columns)]
    return [[(sample(x, 2 * y), sample(x, 2 * y + 1)) for x in range(columns)] for y in range(rows)]


def clean_line(text):
    """A server's string made safe for one row: no control sequences, no line breaks, no
    zero-width format characters, and no lone surrogates (they cannot be encoded)."""
    import unicodedata

    text = clean(text).replace("\t", "    ").replace("\n", " ")
    text = text.encode("utf-8", "replace").decode("utf-8")
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def char_cells(char, unicodedata):
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cells(text):
    import unicodedata

    return len(text) if text.isascii() else sum(char_cells(c, unicodedata) for c in text)


def clip(text, width):
    """The longest prefix of ``text`` that fits in ``width`` terminal cells."""
    if text.isascii():
        return text[:max(width, 0)]
    import unicodedata

    used = 0
    for index, char in enumerate(text):
        used += char_cells(char, unicodedata)
        if used > width:
            return text[:index]
    return text


def pad(text, width):
    text = clip(text, width)
    return text + " " * (width - cells(text))


def wrap_text(text, width):
    """Rows of at most ``width`` cells: a line too long breaks after its last space that
    fits, or inside a word longer than the row."""
    rows = []
    for line in clean(text).split("\n"):
        line = clean_line(line)
        while cells(line) > width:
            head = clip(line, width) or line[:1]
            space = head.rfind(" ")
            if space > 0 and len(head) < len(line):
                head = head[:space + 1]  # the space stays at the row's end, out of sight
            rows.append(head.rstrip(" ") or head)
            line = line[len(head):]
            if line.startswith(" ") and not head.endswith(" "):
                line = line[1:]  # the break fell on a space: it belongs to neither row
        rows.append(line)
    return rows


def short_task_id(task_id, width=28):
    """A task ID cut in the middle to ``width`` characters: its start and end stay."""
    if len(task_id) <= width:
        return task_id
    tail = max(3, width // 4)
    return task_id[:width - tail - 3] + "..." + task_id[-tail:]


def clock_time_of(epoch):
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def clock_time(text):
    epoch = parse_timestamp(text)
    return clock_time_of(epoch) if epoch is not None else "-"


# ======================================================================================
# 9. Sessions keeper: one session held by a background process, reached over a local socket
#
# Uses sections 1-7. `session open` starts a keeper: this same file, run in Python's
# isolated mode (nothing from the working directory or PYTHON* variables) with a private
# flag, detached from the terminal. It connects the usual way (``connect``), listens on a
# Unix socket in the private state directory (an ephemeral 127.0.0.1 port where there is
# none) and records the address, its process id and a 256-bit token there; the name is held
# under the sessions file's lock from the start, so two opens cannot both win. A command
# given @NAME proves it knows the token, and the keeper proves it too, before anything of
# value is sent (KeeperTransport); it attaches (Session.adopt) and its requests are relayed
# under the keeper's own ids, so commands never collide; server requests go back to the
# command whose request is in flight. What a command leaves behind when it goes away, the
# keeper finishes: it declines the server's questions to it and cancels its requests. The
# keeper stops on `session close`, after --idle minutes unused, or when its server goes away.
# The `session` verbs that start, list and close keepers (run_session_command) are the CLI's.
# ======================================================================================

KEEPER_TCP_VARIABLE = "MCP_TUI_KEEPER_TCP"  # 1: a loopback port even where Unix sockets exist
KEEPER_COMMAND_GONE = "the mcp-tui command it was for went away"
AUTO_KEEPER_GRACE = 60.0  # an automatic keeper nobody attached to stops after this many seconds
KEEPER_PROGRESS_ROUTES = 256  # progress tokens of tasks it keeps routing (a request's own go with its answer)


class KeeperClient:
    """One attached command: its socket, and its requests in flight (its id -> ours)."""

    def __init__(self, sock):
        self.sock = sock
        self.inflight = {}  # our ids rise with each request sent: the highest is its latest
        self.closed = False
        self._lock = threading.Lock()

    def send(self, item):
        data = keeper_line(item)
        with self._lock:
            if self.closed:
                return
            try:
                self.sock.sendall(data)
            except OSError:
                self.closed = True

    def close(self):
        self.closed = True
        try:
            self.sock.shutdown(2)
        except OSError:
            pass
        self.sock.close()


class Keeper:
    """The background process's state: the session, the attached commands and the tasks
    it holds the server for."""

    def __init__(self, name, options, auto=False, token=None):
        import secrets

        self.name = name
        self.options = options
        self.auto = auto  # started for a task: it ends when its tasks do
        self.token = token or secrets.token_hex(32)  # `session open` holds the name under this token
        self.roots = [os.path.abspath(os.path.expanduser(path)) for path in options.root]  # as the opener meant them
        self.socket_path = None  # its Unix socket, removed when it stops
        self.credentials = SecretRegistry()  # the connection's secrets and the token, masked in the log
        self.credentials.add(self.token, "keeper-token")
        self.sessions = KeptSessions()
        self.session = None
        self.record = {}
        self.log = None
        self.listener = None
        self.clients = []
        self.held = {}  # task fingerprint -> expiresAt (epoch seconds) or None
        self.ever_attached = False
        self.created = self.last_used = time.time()
        self.stopping = threading.Event()
        self.stop_reason = None
        self.notice = lambda text: None
        self._lock = threading.RLock()
        self.relay = KeeperRelay(self, self._lock)

    # -- starting and stopping -----------------------------------------------------------

    def start(self, spec, notice):
        """Connect and listen; ``notice`` reaches the user of `session open` until it returns."""
        import socket

        self.log = make_log(self.options, self.credentials)
        self.notice = notice
        responder = InputResponder(roots=self.roots)  # a server request with no command to ask is declined
        self.session = connect(spec, self.options, responder, self.log, [self.relay.relay_notification],
                               notice=lambda text: self.notice(text), tell=lambda text: self.notice(text))
        channel = self.session.channel
        self.relay.answer_locally, channel.on_request = channel.on_request, self.relay.relay_server_request
        channel.on_closed = lambda error: self.stop("the server went away: %s" % error.message)
        self.session.open_server_stream()
        try:
            address = self.listen()
        except OSError as exc:
            self.session.close()
            raise McpTuiError("the session keeper cannot listen: %s" % describe_os_error(exc))
        summary = self.session.summary()
        info = summary["serverInfo"] or {}
        record = dict(address, token=self.token, pid=os.getpid(),
                      server=clean(str(info.get("name") or self.session.display_name())),
                      version=clean(str(info.get("version") or "?")), era=summary["protocolVersion"],
                      transport=summary["transport"], connection=connection_label(spec), created=self.created,
                      auto=self.auto)

        def claim(data):
            held = data.get(self.name)
            if held is not None and held.get("token") != self.token:  # another `session open` took the name
                raise McpTuiError("session %r is already open" % self.name, hint=name_taken_hint(self.name))
            data[self.name] = record
        try:
            self.sessions.update(claim)
        except BaseException:
            self.close_listener()
            self.session.close()
            raise
        self.record = record  # what status tells: the keeper wrote it, so it need not read it back
        self.log.event("keeper", "session kept", session=self.name, **address)
        return record

    def listen(self):
        """Listen on a Unix socket in the private state directory, where no other user can
        reach or replace it, or else (Windows, a path too long for a socket, a filesystem
        without them, MCP_TUI_KEEPER_TCP=1) on an ephemeral 127.0.0.1 port. Returns what
        the record says of the address."""
        import socket

        address = None
        if hasattr(socket, "AF_UNIX") and os.environ.get(KEEPER_TCP_VARIABLE) != "1":
            name = "keeper-%s.sock" % os.urandom(8).hex()
            path = os.path.join(private_directory(state_directory()), name)
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                listener.bind(path)
                os.chmod(path, 0o600)
            except OSError as exc:
                listener.close()
                self.log.event("keeper", "no Unix socket (%s); listening on 127.0.0.1 instead" % exc)
            else:
                self.socket_path, address = path, {"socket": name}
        if address is None:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            address = {"port": listener.getsockname()[1]}
        listener.listen(16)
        listener.settimeout(1.0)
        self.listener = listener
        return address

    def close_listener(self):
        self.listener.close()
        self.remove_socket()

    def remove_socket(self):
        """No command finds this keeper any more (serve() closes the listener itself)."""
        if self.socket_path is not None:
            try:
                os.unlink(self.socket_path)
            except OSError:
                pass

    def stop(self, reason, unasked=True):
        """Stop for ``reason``; one nobody asked for (the server went away, --idle passed) stays
        in the record, so the next command that names the session says why it ended."""
        with self._lock:
            if self.stop_reason is not None:
                return
            self.stop_reason = reason
            clients, self.clients = list(self.clients), []
        if self.log:
            self.log.event("keeper", "stopping: %s" % reason, session=self.name)

        def end(data):
            if self.name in data and data[self.name].get("token") == self.token:
                if unasked:
                    data[self.name] = dict(data[self.name], ended=clean(reason))
                else:
                    del data[self.name]
        try:
            self.sessions.update(end)
        except OSError:
            pass  # the state directory went away; nothing to clean up
        for client in clients:
            client.send({"ended": clean(reason)})  # what the command says, instead of "went away"
            client.close()
        self.remove_socket()
        if self.session is not None:
            self.session.close()  # DELETE, or stdin closed, then SIGTERM, then SIGKILL
        self.stopping.set()

    def serve(self):
        threading.Thread(target=self._watch, daemon=True).start()
        while not self.stopping.is_set():
            try:
                sock, _ = self.listener.accept()
            except OSError:  # the 1 s accept timeout: look at stopping again
                continue
            threading.Thread(target=self._serve_client, args=(sock,), daemon=True).start()
        self.listener.close()

    def _watch(self):
        idle_limit = self.options.idle * 60.0
        while not self.stopping.wait(1.0):
            now = time.time()
            with self._lock:
                for key, expires in list(self.held.items()):
                    if expires is not None and expires <= now:
                        del self.held[key]  # the server has forgotten it too
                attached, held = bool(self.clients), bool(self.held)
            if attached:
                continue
            if now - self.last_used >= idle_limit:  # held tasks or not: --idle is the promise
                self.stop("unused for %s" % duration_text(now - self.last_used))
            elif self.auto and not held and (self.ever_attached or now - self.created > AUTO_KEEPER_GRACE):
                self.stop("its tasks are done", unasked=False)

    # -- one connection ------------------------------------------------------------------

    def _serve_client(self, sock):
        sock.settimeout(10.0)
        reader = sock.makefile("rb")
        request = self._handshake(sock, reader)
        if request is None:
            self.log.event("keeper", "refused a connection that did not prove it knows the session's token")
            sock.close()
            return
        sock.settimeout(None)
        client = KeeperClient(sock)
        op = request.get("op")
        if op == "status":
            client.send({"status": self.status()})
        elif op == "close":
            self.stop("closed by `session close`", unasked=False)
            client.send({"closed": True})
        elif op == "attach":
            self.attach(client, reader)
            return
        else:
            client.send({"error": {"class": "UsageError", "message": "the keeper does not know %r" % op}})
        client.close()

    def _handshake(self, sock, reader):
        """The command's first request once both ends have proved they know the token (see
        KeeperTransport.hello), else None."""
        import hmac

        try:
            hello = json.loads(reader.readline(KEEPER_HELLO_LIMIT).decode("utf-8"))
            theirs = hello["nonce"]
            ours, pid = os.urandom(32).hex(), os.getpid()
            sock.sendall(keeper_line({"nonce": ours, "pid": pid,
                                      "proof": keeper_proof(self.token, "keeper", theirs, ours, pid)}))
            request = json.loads(reader.readline(KEEPER_HELLO_LIMIT).decode("utf-8"))
            proof = request.pop("proof")
        except (OSError, ValueError, UnicodeDecodeError, TypeError, KeyError, AttributeError):
            return None
        if not isinstance(proof, str) or not hmac.compare_digest(proof, keeper_proof(self.token, "command", ours,
                                                                                    theirs)):
            return None
        return request

    def attach(self, client, reader):
        state = self.session.handshake_state()
        state["roots"] = self.roots  # a command that gives no --root of its own answers with these
        grant = self.session.spec.auth.granted() if self.session.spec.auth is not None else None
        if grant is not None:  # what `server` shows of it: masked, never the token
            state["grant"] = masked_token_view(grant)
        with self._lock:
            if self.stop_reason is not None:
                client.close()
                return
            self.clients.append(client)
            self.ever_attached = True
            self.last_used = time.time()
        client.send({"state": state, "transport": state["transport"], "legacyStream": state["legacyStream"]})
        try:
            for raw in iter(reader.readline, b""):
                try:
                    item = json.loads(raw.decode("utf-8"))
                except (ValueError, UnicodeDecodeError):
                    continue
                if isinstance(item, dict):
                    self.from_client(client, item)
        except OSError:
            pass
        self.detach(client)

    def detach(self, client):
        """A command went away (it ended, was killed or interrupted): what it left unfinished
        is finished here. Its requests still in flight are cancelled, then the server's
        questions to it are declined, so the server neither works nor waits for nobody. In
        that order: a declined question can let the server answer the request at once, and a
        request that has been answered is no longer cancelled."""
        client.closed = True
        with self._lock:
            if client in self.clients:
                self.clients.remove(client)
            ours = list(client.inflight.values())
            unanswered = self.relay.forget(client)
            self.last_used = time.time()
        for request_id in ours:
            self.relay.abandon(request_id)
        for _, asked in unanswered:
            self.relay.answer_for_the_gone(asked)
        client.close()

    def from_client(self, client, item):
        if "op" in item:
            client.send(self.control(item))
        else:
            self.relay.from_client(client, item)

    def control(self, item):
        """What a command asks about the session itself: the tasks it holds the server for."""
        op = item.get("op")
        task = item.get("task")
        if op == "hold" and isinstance(task, str):
            expires = item.get("expiresAt")
            with self._lock:
                self.held[task] = expires if isinstance(expires, (int, float)) else None
            if self.auto and not self.name.startswith("task-"):
                self.rename("task-" + task)
            return {"name": self.name}
        if op == "release" and isinstance(task, str):
            with self._lock:
                self.held.pop(task, None)
            return {"name": self.name}
        return {"error": {"class": "UsageError", "message": "the keeper does not know %r" % op}}

    def rename(self, name):
        def change(data):
            record = data.pop(self.name, None)
            if record is not None:
                data[name] = record
        self.sessions.update(change)
        self.name = name

    def status(self):
        record = self.record
        now = time.time()
        with self._lock:
            attached, held, routes = len(self.clients), len(self.held), len(self.relay.progress)
            idle = 0.0 if attached else now - self.last_used
        return {"name": self.name, "server": record.get("server"), "version": record.get("version"),
                "era": record.get("era"), "transport": record.get("transport"), "pid": os.getpid(),
                "age": round(now - self.created, 3), "idle": round(idle, 3), "attached": attached,
                "openTasks": held, "progressRoutes": routes}

    def tell_attached(self, text):
        """What the user must know while the keeper serves (the URL of a new authorization, when
        the server refuses the token and it cannot be refreshed): to the commands waiting on the
        server (else every attached one), and to the log."""
        self.log.event("keeper", "notice: %s" % text)
        with self._lock:
            clients = [client for client in self.clients if client.inflight] or list(self.clients)
        for client in clients:
            client.send({"notice": clean(text)})


class KeeperRelay:
    """The traffic between the kept session and the attached commands: each command's requests
    sent under ids (and progress tokens) of the keeper's own, the server's notifications and
    requests taken back to the command they concern, what a command leaves unfinished finished,
    and the resources the commands are subscribed to, subscribed again in a new server session."""

    def __init__(self, keeper, lock):
        self.keeper = keeper
        self.routes = {}  # our request id -> (client, its id)
        self.progress = {}  # our progress token -> (client, its token, the task it created or None)
        self.server_requests = {}  # the id a command answers -> (client, the server's id)
        self.subscribed = {}  # resource URI -> the attached commands subscribed to it (2025-11-25)
        self.answer_locally = None  # the session's own answers to a server request, with no command to ask
        self._lock = lock  # the keeper's: which commands are attached changes under it too
        self._counter = 0

    def forget(self, client):
        """What ``client`` (gone) is owed by the server: [(our id, the server request)], dropped
        here with its progress tokens and subscriptions; under the lock."""
        unanswered = [(key, asked) for key, (owner, asked) in self.server_requests.items() if owner is client]
        for key, _ in unanswered:
            del self.server_requests[key]
        for token in [t for t, (owner, _, _) in self.progress.items() if owner is client]:
            del self.progress[token]
        for uri in list(self.subscribed):
            self._unsubscribed(uri, client)
        return unanswered

    def from_client(self, client, item):
        """What a command sends besides its questions about the session itself (``op``): an abort,
        a request, a notification, or its answer to a server request."""
        channel = self.keeper.session.channel
        if "abort" in item:
            ours = client.inflight.get(item["abort"])
            if ours is not None:
                channel.transport.abort(ours)
        elif isinstance(item.get("message"), dict):
            message, headers = item["message"], item.get("headers")
            if "method" in message and "id" in message:
                threading.Thread(target=self.relay_request, args=(client, message, headers), daemon=True).start()
            elif "method" in message:
                params = message.get("params")
                if message["method"] == "notifications/cancelled" and isinstance(params, dict):
                    ours = client.inflight.get(params.get("requestId"))
                    if ours is not None:  # else nothing of that command's is in flight any more
                        channel.cancel(ours, str(params.get("reason") or "cancelled"))  # once, not again as it leaves
                    return
                try:
                    channel.notify(message["method"], params, headers)
                except McpTuiError:
                    pass
            else:
                with self._lock:
                    owner, asked = self.server_requests.pop(message.get("id"), (None, None))
                if owner is not None:
                    self._respond(asked.get("id"), message.get("result"), message.get("error"), headers)

    def _respond(self, server_id, result=None, error=None, headers=None):
        try:
            self.keeper.session.channel.respond(server_id, result, error, headers)
        except McpTuiError:
            pass

    def answer_for_the_gone(self, message):
        """Answer a server request whose command went away: an elicitation is declined and
        sampling refused (the reason goes to the log, and with the refusal); roots/list and
        ping get the answers the keeper gives with no command attached."""
        method = message.get("method")
        self.keeper.log.event("keeper", "answered %s: %s" % (method, KEEPER_COMMAND_GONE))
        if method == "elicitation/create":
            self._respond(message.get("id"), {"action": "decline"})
        elif method in ("roots/list", "ping"):
            self.answer_locally(message)
        else:
            self._respond(message.get("id"), error={"code": -1, "message": KEEPER_COMMAND_GONE})

    def abandon(self, request_id):
        """Cancel at the server a request of a command that went away (as the session cancels:
        notifications/cancelled, or its HTTP stream closed under 2026-07-28)."""
        if self.keeper.session.channel.abandon(request_id, KEEPER_COMMAND_GONE):
            self.keeper.log.event("keeper", "cancelled request %s: %s" % (request_id, KEEPER_COMMAND_GONE))

    # -- relaying --------------------------------------------------------------------------

    def _next(self, prefix):
        with self._lock:
            self._counter += 1
            return "%s-%d" % (prefix, self._counter)

    def relay_request(self, client, message, headers):
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        ours = None
        if token is not None:  # two commands may pick the same token: give each its own
            ours = self._next("keeper-progress")
            with self._lock:
                self.progress[ours] = (client, token, None)
                while len(self.progress) > KEEPER_PROGRESS_ROUTES:
                    del self.progress[next(iter(self.progress))]  # the oldest task's
            message = dict(message, params=dict(params, _meta=dict(meta, progressToken=ours)))
        sent_under = self.keeper.session.http_session_id()
        pending = self._forward(client, message, headers)
        answer = pending.response or {}  # none when the command left first
        failure = pending.error or (RpcError(answer["error"], message.get("method")) if "error" in answer else None)
        renewed = False
        if failure is not None and not client.closed:
            try:
                renewed = self.keeper.session.start_over_if_lost(failure, sent_under)
            except McpTuiError as exc:  # the server forgot the session and will not start another
                self.keeper.log.event("keeper", "a new session failed: %s" % exc.message)
                pending.error = exc
        if renewed:
            text = ("The server had forgotten session %s; the keeper initialized a new one and sent %s again "
                    "(what the old one held, such as its tasks, is gone)" % (self.keeper.name, message.get("method")))
            self.keeper.log.event("keeper", text)
            client.send({"notice": clean(text)})
            self.subscribe_again()  # first: what the request does may already be news for a watch
            pending = self._forward(client, message, headers)
        self.note_subscription(client, message, pending)
        if ours is not None:
            task_id = self._task_created_by(message, pending)
            with self._lock:
                if task_id is None:
                    self.progress.pop(ours, None)
                elif ours in self.progress:  # the task's progress keeps the token until it ends
                    self.progress[ours] = self.progress[ours][:2] + (task_id,)
        if client.closed:
            return
        if pending.error is not None:
            client.send({"fail": message["id"], "error": keeper_error_data(pending.error)})
        else:
            client.send({"message": dict(pending.response, id=message["id"])})

    def note_subscription(self, client, message, pending):
        """Keep track of the resources attached commands (a `watch`) are subscribed to, so
        that a new server session gets their subscriptions too."""
        method = message.get("method")
        uri = (message.get("params") or {}).get("uri") if isinstance(message.get("params"), dict) else None
        if method not in ("resources/subscribe", "resources/unsubscribe") or not isinstance(uri, str):
            return
        answer = pending.response
        if pending.error is not None or not answer or "error" in answer:
            return
        with self._lock:
            if method == "resources/subscribe" and not client.closed:
                self.subscribed.setdefault(uri, set()).add(client)
            else:
                self._unsubscribed(uri, client)

    def _unsubscribed(self, uri, client):
        """``client`` no longer wants ``uri``'s updates (it unsubscribed, or left); under the lock."""
        clients = self.subscribed.get(uri)
        if clients is not None:
            clients.discard(client)
            if not clients:
                del self.subscribed[uri]

    def subscribe_again(self):
        """After a new server session: the subscriptions the old one held, made again."""
        with self._lock:
            uris = sorted(self.subscribed)
        for uri in uris:
            try:
                self.keeper.session.request("resources/subscribe", {"uri": uri})
                self.keeper.log.event("keeper", "subscribed again to %s in the new session" % uri)
            except McpTuiError as exc:
                self.keeper.log.event("keeper", "could not subscribe again to %s: %s" % (uri, exc.message))
                with self._lock:
                    for client in self.subscribed.pop(uri, ()):
                        client.send({"notice": clean("The new session refused the subscription to %s: %s" % (
                            uri, exc.message))})

    def _task_created_by(self, message, pending):
        """The id of the task a request's answer created, or None (then no progress for it
        can follow the answer)."""
        result = (pending.response or {}).get("result")
        if message.get("method") != "tools/call" or pending.error is not None or not isinstance(result, dict):
            return None
        try:
            task = tasks_for(self.keeper.session).created_task(result)
        except ProtocolViolation:
            return ""  # a malformed task: keep its token; KEEPER_PROGRESS_ROUTES bounds them
        return task.task_id if task is not None else None

    def _forward(self, client, message, headers):
        """Send one command's request under a fresh id of ours; wait until it is answered
        or the command has gone. Returns the PendingRequest."""
        channel = self.keeper.session.channel
        theirs, request_id = message["id"], channel.next_id()
        with self._lock:  # before it is sent: the server may ask something back at once
            client.inflight[theirs] = request_id
            self.routes[request_id] = (client, theirs)
            self.keeper.last_used = time.time()
        try:
            pending = channel.forward(message, headers, request_id)
        except McpTuiError as exc:
            pending = PendingRequest(message.get("method"))
            pending.error = exc
            pending.event.set()
        while not pending.event.wait(1.0):
            if client.closed:
                break
        if pending.event.is_set():
            channel.settle(request_id)
        else:  # the command went away before its answer came
            self.abandon(request_id)
        with self._lock:
            client.inflight.pop(theirs, None)
            self.routes.pop(request_id, None)
            self.keeper.last_used = time.time()
        return pending

    def relay_notification(self, message):
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        subscription = meta.get(META_PREFIX + "subscriptionId")
        session = self.keeper.session  # None while it connects
        task = tasks_for(session).task_from_notification(message) if session is not None else None
        with self._lock:
            if task is not None and task.terminal:  # no more progress for it
                for key in [key for key, (_, _, task_id) in self.progress.items() if task_id == task.task_id]:
                    del self.progress[key]
            if message.get("method") == "notifications/progress" and params.get("progressToken") in self.progress:
                client, token, _ = self.progress[params["progressToken"]]
                targets, message = [client], dict(message, params=dict(params, progressToken=token))
            elif message.get("method") == "notifications/progress":  # of a command that went away: no one's
                targets = []
            elif subscription is not None and subscription in self.routes:
                client, theirs = self.routes[subscription]
                meta = dict(meta, **{META_PREFIX + "subscriptionId": theirs})
                targets, message = [client], dict(message, params=dict(params, _meta=meta))
            else:
                targets = list(self.keeper.clients)
        for client in targets:
            client.send({"message": message})

    def relay_server_request(self, message):
        """Ask the command whose request went out last (the one the server is working on);
        with none attached, answer as a command with no terminal would."""
        with self._lock:
            busy = [(max(c.inflight.values()), c) for c in self.keeper.clients if c.inflight]
            client = max(busy, key=lambda item: item[0])[1] if busy else None
            if client is not None:
                ours = self._next("keeper-request")
                self.server_requests[ours] = (client, message)
        if client is None:
            self.answer_locally(message)
            return
        client.send({"message": dict(message, id=ours)})


def connection_label(spec):
    """How `session list` names a connection: the command line or the URL, no secrets."""
    record = spec.ledger_record()
    if "config" in record:  # its argv or URL may hold expanded ${VAR}s
        return "%s in %s" % (record["server"], record["config"])
    return join_command(record["argv"]) if "argv" in record else record.get("url", spec.describe())


def run_keeper():
    """The keeper process: its orders on stdin, one line back on stdout once the session
    is open (or the error), then it serves until it stops."""
    config = json.loads(sys.stdin.readline())
    opts = parse_command_line(config["argv"])
    keeper = Keeper(config["name"], opts, config.get("auto", False), config.get("token"))

    def report(item):
        sys.stdout.write(json.dumps(item) + "\n")
        sys.stdout.flush()

    try:
        spec, _ = spec_from_options(opts, config["connection"], keeper.credentials)
        record = keeper.start(spec, lambda text: report({"notice": text}))
    except McpTuiError as exc:
        stderr_hint(exc, getattr(exc, "stderr_lines", ()))
        report({"error": exc.to_json()})
        return exc.exit_code
    except Exception as exc:  # a bug of ours: the command that started it reports it
        report({"error": {"kind": "error", "exitCode": EXIT_FAILURE,
                          "message": "internal error in the session keeper: %s: %s" % (exc.__class__.__name__, exc)}})
        return EXIT_FAILURE
    report({"ready": record})
    keeper.notice = keeper.tell_attached  # nobody reads stdout now
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # nothing of the terminal's stays open; stray writes go nowhere
        os.dup2(null, fd)
    stop_on_terminate(keeper)
    keeper.serve()
    return EXIT_OK


def stop_on_terminate(keeper):
    """SIGTERM (or Ctrl+Break on Windows) stops the keeper the orderly way."""
    import signal

    def handler(signum, frame):
        threading.Thread(target=keeper.stop, args=("terminated by a signal",), daemon=True).start()

    for name in ("SIGTERM", "SIGBREAK", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), handler)



# ======================================================================================
# 10. main: options to a CLI run or the TUI, and every error to one line and an exit code
# ======================================================================================


def utf8_when_redirected(streams):
    """Windows writes a redirected stdout or stderr in the ANSI code page (cp1252) with
    "replace": `🙂 中文` became `? ??` in a file. There, a stream that is not a terminal is
    written in UTF-8, unless PYTHONIOENCODING says otherwise (a terminal keeps its own)."""
    if os.name != "nt" or os.environ.get("PYTHONIOENCODING"):
        return
    for stream in streams:
        try:
            if not stream.isatty() and stream.encoding.lower().replace("-", "").replace("_", "") != "utf8":
                stream.reconfigure(encoding="utf-8")
        except (AttributeError, ValueError, OSError):  # not a TextIOWrapper, or closed: leave it
            pass


def main(argv=None):
    if argv is None:  # an entry point; zipapp's generated __main__.py ignores what main() returns
        sys.exit(main(sys.argv[1:]))
    argv = list(argv)
    utf8_when_redirected((sys.stdout, sys.stderr))
    if argv[:1] == [KEEPER_FLAG]:
        return run_keeper()
    if argv == ["--version"]:  # as argparse prints it, without building the parser (a sixth of the run)
        print(VERSION_LINE)
        return EXIT_OK
    output = Output("json" if wants_json(argv) else "text")
    cli = None
    signals = TerminationSignals()
    try:
        opts = parse_command_line(argv)
        output = Output(opts.format, opts.quiet)
        for flag, seconds in (("--timeout", opts.timeout), ("--max-time", opts.max_time),
                              ("--probe-timeout", opts.probe_timeout)):
            if seconds is not None and not seconds > 0:  # NaN too
                raise UsageError("%s must be more than 0 seconds" % flag)
        if opts.max_pages < 1:
            raise UsageError("--max-pages must be at least 1")
        if opts.save and os.path.exists(opts.save) and not os.path.isdir(opts.save):
            raise UsageError("--save %s is a file: give a directory (it is made if missing)" % opts.save)
        added_request_meta(opts)  # a malformed or reserved --meta: exit 2 before anything starts
        if opts.output not in (None, "-") and os.path.isdir(opts.output):
            raise UsageError("-o %s is a directory: give a file name" % opts.output)
        spec, words = spec_from_options(opts, opts.words, output.credentials)
        if words:
            signals.install()  # the TUI quits on them its own way (quit_on_hangup)
        if words and words[0] in ("session", "sessions"):
            given = opts.words[:len(opts.words) - len(words)]  # a stdio command line before `session`
            return signals.exit_code(run_session_command(opts, spec, words[1:], output, argv, given))
        if not words:
            return run_tui(opts, spec, output.credentials)
        background = wants_background_session(opts, spec, words)
        if background:
            spec = start_task_session(opts, argv, output)
        cli = Cli(opts, spec, words, output)
        cli.background_session = background
        return signals.exit_code(cli.run())
    except McpTuiError as exc:
        signals.closing()  # a signal now must not cut the error line short
        output.end_progress()
        output.error(exc)
        return signals.exit_code(exc.exit_code)
    except KeyboardInterrupt as exc:
        signals.closing()
        output.end_progress()
        output.error(McpTuiError("terminated by %s" % exc.name if isinstance(exc, Terminated) else "interrupted"))
        return signals.exit_code(EXIT_INTERRUPTED)
    except Exception as exc:  # a bug of ours: still one line, and the traceback only with --debug
        signals.closing()
        if "--debug" in argv:
            import traceback

            traceback.print_exc()
        output.error(McpTuiError("internal error: %s: %s" % (exc.__class__.__name__, exc),
                                 hint="run with --debug for the traceback, and please report it"))
        return signals.exit_code(EXIT_FAILURE)
    finally:
        signals.closing()
        output.end_progress()
        if cli is not None:
            cli.close()
        signals.restore()


def wants_json(argv):
    """Whether the last --format given is json (as the parser reads it: the last one wins)."""
    chosen = [a[len("--format="):] if a.startswith("--format=") else b
              for a, b in zip(argv, argv[1:] + [""]) if a.startswith("--format=") or a == "--format"]
    return bool(chosen) and chosen[-1] == "json"


if __name__ == "__main__":
    sys.exit(main())
