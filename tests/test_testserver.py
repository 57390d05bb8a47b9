"""Tests for tests/testserver.py, driven with raw JSON-RPC (never through mcp-tui).

Every message the server sends is validated against the official JSON schema of its era
(and against the tasks extension schema where it defines the shape).
"""
import base64
import http.client
import itertools
import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from conftest import wait_for

HERE = Path(__file__).resolve().parent
SERVER = HERE / "testserver.py"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
EXT = "io.modelcontextprotocol/tasks"
SUB = "io.modelcontextprotocol/subscriptionId"
RELATED = "io.modelcontextprotocol/related-task"
TIMEOUT = 10.0
FAST = ["--page-ms", "10"]

EXPECTED_TOOLS = ["echo", "add", "get_image", "get_audio", "get_resource_link", "get_embedded_resource",
                  "long_operation", "ask_name", "ask_model", "list_roots", "fail_tool", "log_message",
                  "toggle_extra_tool", "render_report", "fail_report", "weather",
                  "touch_resource"]
TASK_ID = re.compile(r"^report-(\d{4})-(\d+)$")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")
ELICIT_CAPS = {"elicitation": {}, "extensions": {EXT: {}}}


# =============================================================================================
# Schema validation
# =============================================================================================

class Schemas(object):
    FILES = {"modern": ("urn:mcp:2026-07-28", "mcp-2026-07-28.schema.json"),
             "legacy": ("urn:mcp:2025-11-25", "mcp-2025-11-25.schema.json"),
             "tasks": (None, "tasks-extension.schema.json")}

    def __init__(self):
        registry = Registry()
        self.uris = {}
        for key, (uri, name) in self.FILES.items():
            contents = json.loads((HERE / "schema" / name).read_text(encoding="utf-8"))
            uri = uri or contents["$id"]
            self.uris[key] = uri
            registry = registry.with_resource(uri, Resource.from_contents(contents, default_specification=DRAFT202012))
        self.registry = registry
        self.validators = {}

    def check(self, which, definition, instance):
        key = (which, definition)
        if key not in self.validators:
            self.validators[key] = Draft202012Validator(
                {"$ref": "%s#/$defs/%s" % (self.uris[which], definition)}, registry=self.registry)
        errors = sorted(self.validators[key].iter_errors(instance), key=lambda e: list(e.path))
        assert not errors, "%s/%s rejects %s:\n%s" % (which, definition, json.dumps(instance)[:600],
                                                        "\n".join(e.message[:300] for e in errors[:5]))


MODERN_RESULTS = {"server/discover": "DiscoverResult", "tools/list": "ListToolsResult",
                  "resources/list": "ListResourcesResult", "resources/templates/list": "ListResourceTemplatesResult",
                  "resources/read": "ReadResourceResult", "prompts/list": "ListPromptsResult",
                  "prompts/get": "GetPromptResult", "completion/complete": "CompleteResult",
                  "subscriptions/listen": "SubscriptionsListenResult"}
TASK_RESULTS = {"tasks/get": "GetTaskResult", "tasks/update": "UpdateTaskResult", "tasks/cancel": "CancelTaskResult"}
LEGACY_RESULTS = {"initialize": "InitializeResult", "tools/list": "ListToolsResult",
                  "resources/list": "ListResourcesResult", "resources/templates/list": "ListResourceTemplatesResult",
                  "resources/read": "ReadResourceResult", "prompts/list": "ListPromptsResult",
                  "prompts/get": "GetPromptResult", "completion/complete": "CompleteResult",
                  "logging/setLevel": "EmptyResult", "ping": "EmptyResult", "resources/subscribe": "EmptyResult",
                  "tasks/get": "GetTaskResult", "tasks/list": "ListTasksResult", "tasks/cancel": "CancelTaskResult",
                  "tasks/result": "CallToolResult"}


def check_message(schemas, era, message, method=None):
    """Validate one server message of `era` ("modern" or "legacy"); `method` of the request it answers."""
    if "method" in message:
        if "id" in message:
            assert era == "legacy", "a 2026-07-28 server sent a request: %r" % message
            schemas.check("legacy", "ServerRequest", message)
        elif era == "modern" and message["method"] == "notifications/tasks":
            schemas.check("tasks", "TaskStatusNotification", message)
            assert "resultType" not in message["params"]
            assert SUB in message["params"]["_meta"]
        else:
            schemas.check(era, "ServerNotification", message)
        return
    if "error" in message:
        instance = dict(message)
        if instance.get("id", 0) is None:
            # SDK-style "id": null on transport-level refusals; a legacy trait (a 2026 probe may meet it)
            del instance["id"]
            schemas.check("legacy", "JSONRPCErrorResponse", instance)
            return
        schemas.check(era, "JSONRPCErrorResponse", instance)
        specific = {-32020: "HeaderMismatchError", -32021: "MissingRequiredClientCapabilityError",
                    -32022: "UnsupportedProtocolVersionError"}.get(message["error"]["code"])
        if era == "modern" and specific:
            schemas.check("modern", specific, instance)
        return
    schemas.check(era, "JSONRPCResultResponse", message)
    result = message["result"]
    if era == "modern":
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-tui-testserver"
        if method == "tools/call":
            kind = result["resultType"]
            assert kind in ("complete", "input_required", "task")
            if kind == "task":
                schemas.check("tasks", "CreateTaskResult", result)
            else:
                schemas.check("modern", "CallToolResult" if kind == "complete" else "InputRequiredResult", result)
        elif method in TASK_RESULTS:
            schemas.check("tasks", TASK_RESULTS[method], result)
            if method == "tasks/get" and result["status"] == "completed":
                schemas.check("modern", "CallToolResult", result["result"])
        elif method in MODERN_RESULTS:
            schemas.check("modern", MODERN_RESULTS[method], result)
            assert result["resultType"] == "complete"
        else:
            schemas.check("modern", "Result", result)
    else:
        if method == "tools/call":
            schemas.check("legacy", "CreateTaskResult" if "task" in result else "CallToolResult", result)
        elif method in LEGACY_RESULTS:
            schemas.check("legacy", LEGACY_RESULTS[method], result)
        else:
            schemas.check("legacy", "Result", result)


@pytest.fixture(scope="session")
def schemas():
    return Schemas()


# =============================================================================================
# Helpers: messages, waiting
# =============================================================================================

def meta(caps=None, **extra):
    value = {"io.modelcontextprotocol/protocolVersion": MODERN,
             "io.modelcontextprotocol/clientCapabilities": caps if caps is not None else {},
             "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "0.0.1"}}
    value.update(extra)
    return value


def text_of(result):
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


def wait_until(predicate, timeout=TIMEOUT):
    """Poll `predicate` until it returns something truthy; that value is returned."""
    return wait_for(predicate, timeout, interval=0.01)


def same_id(a, b):
    return a == b and type(a) is type(b)


def encode_header(value):
    plain = all(0x20 <= ord(c) <= 0x7E for c in value) and value == value.strip() and not (
        value.startswith("=?base64?") and value.endswith("?="))
    return value if plain else "=?base64?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


NAME_FIELD = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
              "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}


# =============================================================================================
# stdio client
# =============================================================================================

class StdioClient(object):
    """Spawns the server on pipes; validates everything it reads."""

    def __init__(self, schemas, *args, era="modern"):
        self.schemas = schemas
        self.era = era
        self.proc = subprocess.Popen([sys.executable, str(SERVER)] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.stderr = []
        self.ids = itertools.count(1)
        self.methods = {}
        self.notifications = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.inbox.put(json.loads(line.decode("utf-8")))
        self.inbox.put(None)

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def recv(self, timeout=TIMEOUT):
        message = self.inbox.get(timeout=timeout)
        assert message is not None, "server closed stdout"
        method = self.methods.get(json.dumps(message.get("id"))) if "method" not in message else None
        check_message(self.schemas, self.era, message, method)
        return message

    def start(self, method, params=None, request_id=None):
        request_id = next(self.ids) if request_id is None else request_id
        self.methods[json.dumps(request_id)] = method
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def wait_response(self, request_id, on_request=None):
        while True:
            message = self.recv()
            if "method" in message and "id" in message:
                assert on_request is not None, "unexpected server request %r" % message
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": on_request(message)})
            elif "method" in message:
                self.notifications.append(message)
            elif same_id(message.get("id"), request_id):
                return message
            else:
                raise AssertionError("unexpected response %r" % message)

    def request(self, method, params=None, on_request=None, request_id=None):
        return self.wait_response(self.start(method, params, request_id), on_request)

    def wait_notification(self, predicate):
        """The first notification (seen or still to come) that satisfies `predicate`."""
        while True:
            for message in self.notifications:
                if predicate(message):
                    return message
            message = self.recv()
            assert "id" not in message, "unexpected message %r" % message
            self.notifications.append(message)

    def modern(self, method, caps=None, meta_extra=None, **params):
        params["_meta"] = meta(caps, **(meta_extra or {}))
        return self.request(method, params)

    def result(self, method, caps=None, **params):
        response = self.modern(method, caps, **params)
        assert "result" in response, response
        return response["result"]

    def initialize(self, caps=None, version=LEGACY):
        self.era = "legacy"
        response = self.request("initialize", {"protocolVersion": version, "capabilities": caps or {},
                                               "clientInfo": {"name": "pytest", "version": "0.0.1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response["result"]

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture
def stdio(schemas):
    clients = []

    def spawn(*args, **kwargs):
        client = StdioClient(schemas, *args, **kwargs)
        clients.append(client)
        return client
    yield spawn
    for client in clients:
        client.close()


# =============================================================================================
# HTTP server process and client
# =============================================================================================

class HttpServer(object):
    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, str(SERVER), "--http", "127.0.0.1:0"] + list(args),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        lines = queue.Queue()
        threading.Thread(target=lambda: lines.put(self.proc.stdout.readline()), daemon=True).start()
        first = lines.get(timeout=TIMEOUT).decode("utf-8")
        match = re.match(r"^listening on http://127\.0\.0\.1:(\d+)/mcp\n$", first)
        assert match, "unexpected first line %r" % first
        self.port = int(match.group(1))
        self.stderr = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


@pytest.fixture
def http_server():
    servers = []

    def spawn(*args):
        server = HttpServer(*args)
        servers.append(server)
        return server
    yield spawn
    for server in servers:
        server.close()


def read_event(resp):
    """The next SSE event as {"id", "event", "data"}, or None at the end of the stream."""
    event = {"id": None, "event": None, "data": []}
    seen = False
    while True:
        line = resp.readline()
        if not line:
            return event if seen else None
        line = line.decode("utf-8").rstrip("\r\n")
        if not line:
            if seen:
                event["data"] = "\n".join(event["data"])
                return event
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        seen = True
        if field == "data":
            event["data"].append(value)
        elif field in ("id", "event"):
            event[field] = value


class Reply(object):
    def __init__(self, status, headers):
        self.status = status
        self.headers = headers
        self.messages = []                    # every JSON-RPC message, in order
        self.event_ids = []
        self.response = None
        self.body = b""

    @property
    def notifications(self):
        return [m for m in self.messages if "method" in m and "id" not in m]

    @property
    def result(self):
        assert self.response is not None and "result" in self.response, (self.status, self.response, self.body)
        return self.response["result"]

    @property
    def error(self):
        assert self.response is not None and "error" in self.response, (self.status, self.response, self.body)
        return self.response["error"]


class HttpClient(object):
    """Raw Streamable HTTP. Modern: per-request headers. Legacy: session and version headers."""

    def __init__(self, schemas, port, era="modern"):
        self.schemas = schemas
        self.port = port
        self.era = era
        self.session = None
        self.version = None
        self.ids = itertools.count(1)

    def connect(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)

    def headers_for(self, message):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.era == "modern":
            headers["MCP-Protocol-Version"] = MODERN
            if "method" in message:
                headers["Mcp-Method"] = message["method"]
            field = NAME_FIELD.get(message.get("method"))
            if field and isinstance(message.get("params", {}).get(field), str):
                headers["Mcp-Name"] = encode_header(message["params"][field])
        elif self.session is not None:
            headers["Mcp-Session-Id"] = self.session
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def raw(self, verb, body=None, headers=None, path="/mcp"):
        conn = self.connect()
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode("utf-8")
        conn.request(verb, path, body=data, headers=headers or {})
        return conn, conn.getresponse()

    def post(self, message, headers=None, drop=(), on_request=None, keep_open=False):
        """POST one message and read the reply: JSON, or SSE up to the response."""
        all_headers = self.headers_for(message)
        all_headers.update(headers or {})
        for name in drop:
            all_headers.pop(name, None)
        conn, resp = self.raw("POST", message, all_headers)
        reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()})
        method = message.get("method")
        kind = reply.headers.get("content-type", "")
        if kind.startswith("application/json"):
            reply.body = resp.read()
            reply.response = json.loads(reply.body.decode("utf-8"))
            reply.messages.append(reply.response)
            check_message(self.schemas, self.era, reply.response, method)
        elif kind.startswith("text/event-stream"):
            reply.stream = resp
            reply.conn = conn
            if keep_open:
                return reply
            self.read_until_response(reply, message.get("id"), method, on_request)
        else:
            reply.body = resp.read()
        conn.close()
        return reply

    def read_until_response(self, reply, request_id, method, on_request=None):
        while True:
            event = read_event(reply.stream)
            if event is None:
                return reply
            reply.event_ids.append(event["id"])
            if not event["data"]:
                continue                      # priming event
            message = json.loads(event["data"])
            reply.messages.append(message)
            is_response = "method" not in message
            check_message(self.schemas, self.era, message, method if is_response else None)
            if "method" in message and "id" in message:
                assert on_request is not None, "unexpected server request %r" % message
                answer = self.post({"jsonrpc": "2.0", "id": message["id"], "result": on_request(message)})
                assert answer.status == 202, answer.status
            elif is_response and same_id(message.get("id"), request_id):
                reply.response = message
                return reply

    def request(self, method, params=None, caps=None, meta_extra=None, request_id=None, **kwargs):
        params = dict(params or {})
        if self.era == "modern":
            params["_meta"] = meta(caps, **(meta_extra or {}))
        message = {"jsonrpc": "2.0", "id": next(self.ids) if request_id is None else request_id,
                   "method": method, "params": params}
        return self.post(message, **kwargs)

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.post(message)

    def initialize(self, caps=None, version=LEGACY):
        self.era = "legacy"
        reply = self.request("initialize", {"protocolVersion": version, "capabilities": caps or {},
                                            "clientInfo": {"name": "pytest", "version": "0.0.1"}})
        assert reply.status == 200, reply.body
        self.session = reply.headers["mcp-session-id"]
        self.version = reply.result["protocolVersion"]
        assert self.notify("notifications/initialized").status == 202
        return reply.result


def poll_task(client, task_id, until, caps=ELICIT_CAPS, legacy=False):
    """tasks/get until `until(result)` holds; returns that result."""
    def attempt():
        if isinstance(client, StdioClient):
            response = client.modern("tasks/get", caps, taskId=task_id) if not legacy else \
                client.request("tasks/get", {"taskId": task_id})
            result = response["result"]
        else:
            result = client.request("tasks/get", {"taskId": task_id}, caps=caps).result
        return result if until(result) else None
    return wait_until(attempt)


# =============================================================================================
# 2026-07-28: basics, strictness, MRTR
# =============================================================================================

def test_modern_stdio_discover_lists_and_tools(stdio):
    client = stdio(*FAST)
    discover = client.result("server/discover")
    assert MODERN in discover["supportedVersions"] and LEGACY in discover["supportedVersions"]
    assert discover["capabilities"]["extensions"] == {EXT: {}}
    assert discover["capabilities"]["tools"] == {"listChanged": True}
    assert discover["instructions"] and discover["cacheScope"] in ("public", "private")
    assert discover["_meta"]["io.modelcontextprotocol/serverInfo"] == {
        "name": "mcp-tui-testserver", "title": "mcp-tui test server", "version": "0.1.0"}

    tools = client.result("tools/list")["tools"]
    assert [tool["name"] for tool in tools] == EXPECTED_TOOLS
    assert all(tool["title"] and tool["description"] for tool in tools)
    assert not any("execution" in tool for tool in tools)
    add = next(tool for tool in tools if tool["name"] == "add")
    assert add["outputSchema"]["required"] == ["sum"]

    assert text_of(client.result("tools/call", name="echo", arguments={"message": "hi there"})) == "hi there"
    added = client.result("tools/call", name="add", arguments={"a": 2, "b": 40})
    assert text_of(added) == "2 + 40 = 42" and added["structuredContent"] == {"sum": 42}
    image = client.result("tools/call", name="get_image")["content"][0]
    assert image["mimeType"] == "image/png" and base64.b64decode(image["data"]).startswith(b"\x89PNG\r\n\x1a\n")
    audio = client.result("tools/call", name="get_audio")["content"][0]
    assert audio["mimeType"] == "audio/wav" and base64.b64decode(audio["data"])[8:12] == b"WAVE"
    link = client.result("tools/call", name="get_resource_link")["content"][0]
    assert link["type"] == "resource_link" and link["uri"] == "test://static/hello.txt"
    embedded = client.result("tools/call", name="get_embedded_resource")["content"][0]
    assert embedded["resource"] == {"uri": "test://static/hello.txt", "mimeType": "text/plain",
                                    "text": "Hello, resource!"}
    failed = client.result("tools/call", name="fail_tool")
    assert failed["isError"] is True and text_of(failed) == "Something went wrong"
    invalid = client.result("tools/call", name="add", arguments={"a": "2", "b": 1})
    assert invalid["isError"] is True
    unknown = client.modern("tools/call", name="nope")
    assert unknown["error"]["code"] == -32602

    resources = client.result("resources/list")["resources"]
    assert len(resources) >= 5 and resources[0]["uri"] == "test://static/hello.txt"
    hello = client.result("resources/read", uri="test://static/hello.txt")["contents"][0]
    assert hello["text"] == "Hello, resource!"
    logo = client.result("resources/read", uri="test://static/logo.png")["contents"][0]
    assert base64.b64decode(logo["blob"]).startswith(b"\x89PNG")
    assert client.result("resources/read", uri="test://items/7")["contents"][0]["text"] == "Item 7"
    missing = client.modern("resources/read", uri="test://static/missing.txt")["error"]
    assert missing["code"] == -32602 and missing["data"] == {"uri": "test://static/missing.txt"}
    templates = client.result("resources/templates/list")["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "test://items/{id}"

    prompts = client.result("prompts/list")["prompts"]
    assert [p["name"] for p in prompts] == ["greeting", "code_review"]
    greeting = client.result("prompts/get", name="greeting", arguments={"name": "Ada"})
    assert greeting["messages"][0]["content"]["text"] == "Hello, Ada! How are you today?"
    assert client.modern("prompts/get", name="greeting", arguments={})["error"]["code"] == -32602

    languages = client.result("completion/complete", ref={"type": "ref/prompt", "name": "code_review"},
                              argument={"name": "language", "value": "r"})
    assert languages["completion"]["values"] == ["rust", "ruby"]
    ids = client.result("completion/complete", ref={"type": "ref/resource", "uri": "test://items/{id}"},
                        argument={"name": "id", "value": "1"})
    assert ids["completion"]["values"] == ["1"] + [str(n) for n in range(10, 20)]


def test_modern_stdio_progress_and_logging_are_request_scoped(stdio):
    client = stdio(*FAST)
    response = client.modern("tools/call", meta_extra={"progressToken": "p1",
                                                       "io.modelcontextprotocol/logLevel": "info"},
                             name="long_operation", arguments={"steps": 3, "step_ms": 1})
    assert text_of(response["result"]) == "Done after 3 steps"
    progress = [n["params"] for n in client.notifications if n["method"] == "notifications/progress"]
    assert [(p["progressToken"], p["progress"], p["total"], p["message"]) for p in progress] == [
        ("p1", 1, 3, "Step 1 of 3"), ("p1", 2, 3, "Step 2 of 3"), ("p1", 3, 3, "Step 3 of 3")]
    assert [n["params"]["level"] for n in client.notifications if n["method"] == "notifications/message"] == ["info"]
    assert not any(SUB in n["params"].get("_meta", {}) for n in client.notifications)

    del client.notifications[:]
    client.modern("tools/call", name="long_operation", arguments={"steps": 2, "step_ms": 1})
    client.modern("tools/call", meta_extra={"io.modelcontextprotocol/logLevel": "warning"},
                  name="log_message", arguments={"level": "info", "message": "quiet"})
    assert client.notifications == []          # no progress token, no log level, below the level
    client.modern("tools/call", meta_extra={"io.modelcontextprotocol/logLevel": "warning"},
                  name="log_message", arguments={"level": "error", "message": "loud"})
    assert [n["params"]["data"] for n in client.notifications] == ["loud"]


def test_modern_stdio_rejections(stdio):
    client = stdio(*FAST)
    no_meta = client.request("tools/list", {})
    assert no_meta["error"]["code"] == -32602
    partial = client.request("tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}})
    assert partial["error"]["code"] == -32602
    old = client.request("server/discover", {"_meta": dict(meta(), **{
        "io.modelcontextprotocol/protocolVersion": "2099-01-01"})})
    assert old["error"]["code"] == -32022
    assert old["error"]["data"]["requested"] == "2099-01-01" and MODERN in old["error"]["data"]["supported"]
    assert client.modern("bogus/method")["error"]["code"] == -32601
    assert client.modern("tasks/result", caps={"extensions": {EXT: {}}}, taskId="x")["error"]["code"] == -32601
    bad_level = client.modern("tools/list", meta_extra={"io.modelcontextprotocol/logLevel": "loud"})
    assert bad_level["error"]["code"] == -32602
    needs_tasks = client.modern("tools/call", name="render_report", arguments={"quarter": "Q1"})["error"]
    assert needs_tasks["code"] == -32021
    assert needs_tasks["data"]["requiredCapabilities"] == {"extensions": {EXT: {}}}
    needs_elicitation = client.modern("tools/call", name="ask_name")["error"]
    assert needs_elicitation["code"] == -32021 and needs_elicitation["data"]["requiredCapabilities"] == {
        "elicitation": {}}
    locked = client.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                           "clientInfo": {"name": "pytest", "version": "1"}})
    assert locked["error"]["code"] == -32600 and "locked" in locked["error"]["message"]


def test_modern_only_and_legacy_only_stdio(stdio):
    modern = stdio("--era", MODERN)
    refused = modern.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                            "clientInfo": {"name": "pytest", "version": "1"}})["error"]
    assert MODERN in refused["message"] and refused["data"] == {"supported": [MODERN], "requested": LEGACY}
    assert modern.result("server/discover")["supportedVersions"] == [MODERN]

    legacy = stdio("--era", LEGACY, era="legacy")
    assert legacy.request("server/discover", {"_meta": meta()})["error"]["code"] == -32601
    assert legacy.request("tools/list", {})["error"]["code"] == -32000
    assert legacy.initialize()["protocolVersion"] == LEGACY


def test_mrtr_round_trip(http_server, schemas):
    client = HttpClient(schemas, http_server(*FAST).port)
    caps = {"elicitation": {}, "sampling": {}, "roots": {}}
    first = client.request("tools/call", {"name": "ask_name"}, caps=caps).result
    assert first["resultType"] == "input_required"
    request = first["inputRequests"]["name"]
    assert request["method"] == "elicitation/create" and request["params"]["message"] == "Please enter your name."
    assert request["params"]["requestedSchema"]["required"] == ["name"]
    answer = {"name": {"action": "accept", "content": {"name": "Luca"}}}

    no_state = client.request("tools/call", {"name": "ask_name", "inputResponses": answer}, caps=caps)
    assert no_state.error["code"] == -32602
    forged = client.request("tools/call", {"name": "ask_name", "inputResponses": answer,
                                           "requestState": first["requestState"] + "x"}, caps=caps)
    assert forged.error["code"] == -32602
    other_tool = client.request("tools/call", {"name": "ask_model", "inputResponses": answer,
                                               "requestState": first["requestState"]}, caps=caps)
    assert other_tool.error["code"] == -32602
    done = client.request("tools/call", {"name": "ask_name", "inputResponses": answer,
                                         "requestState": first["requestState"]}, caps=caps).result
    assert done["resultType"] == "complete" and text_of(done) == "Hello, Luca!"
    declined = client.request("tools/call", {"name": "ask_name", "inputResponses": {"name": {"action": "decline"}},
                                             "requestState": first["requestState"]}, caps=caps).result
    assert text_of(declined) == "No name given (decline)"

    sampling = client.request("tools/call", {"name": "ask_model"}, caps=caps).result
    params = sampling["inputRequests"]["model"]["params"]
    assert params["maxTokens"] == 100 and params["messages"][0]["content"]["text"] == "What is the capital of France?"
    reply = {"model": {"role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "stub"}}
    answered = client.request("tools/call", {"name": "ask_model", "inputResponses": reply,
                                             "requestState": sampling["requestState"]}, caps=caps).result
    assert text_of(answered) == "The model said: Paris."

    roots = client.request("tools/call", {"name": "list_roots"}, caps=caps).result
    assert roots["inputRequests"]["roots"] == {"method": "roots/list"}
    listed = client.request("tools/call", {"name": "list_roots", "requestState": roots["requestState"],
                                           "inputResponses": {"roots": {"roots": [{"uri": "file:///a"},
                                                                                  {"uri": "file:///b"}]}}},
                            caps=caps).result
    assert text_of(listed) == "file:///a\nfile:///b"


# =============================================================================================
# 2026-07-28 over HTTP: headers and status codes
# =============================================================================================

def test_modern_http_headers_and_status_codes(http_server, schemas):
    server = http_server(*FAST)
    client = HttpClient(schemas, server.port)
    discover = client.request("server/discover")
    assert discover.status == 200 and discover.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in discover.headers
    assert text_of(client.request("tools/call", {"name": "echo", "arguments": {"message": "x"}}).result) == "x"
    unicode_uri = "test://static/gr\u00fc\u00dfe.txt"
    read = client.request("resources/read", {"uri": unicode_uri})
    assert read.result["contents"][0]["text"].startswith("Gr\u00fc\u00dfe")

    def rejected(reply, status, code):
        assert reply.status == status, (reply.status, reply.body)
        assert reply.error["code"] == code
        return reply.error

    echo = {"name": "echo", "arguments": {"message": "x"}}
    rejected(client.request("tools/call", echo, headers={"Mcp-Name": "add"}), 400, -32020)
    rejected(client.request("tools/call", echo, drop=["Mcp-Name"]), 400, -32020)
    rejected(client.request("tools/call", echo, headers={"Mcp-Method": "TOOLS/CALL"}), 400, -32020)
    rejected(client.request("tools/list", drop=["MCP-Protocol-Version"]), 400, -32020)
    rejected(client.request("tools/list", drop=["Mcp-Method"]), 400, -32020)
    rejected(client.request("resources/read", {"uri": unicode_uri},
                            headers={"Mcp-Name": "test://static/gr?e.txt"}), 400, -32020)
    rejected(client.request("resources/read", {"uri": "=?base64?literal?="},
                            headers={"Mcp-Name": "=?base64?literal?="}), 400, -32020)
    literal = client.request("resources/read", {"uri": "=?base64?literal?="})    # sentinel-encoded: reaches the body
    rejected(literal, 200, -32602)
    rejected(client.request("tools/list", meta_extra={"io.modelcontextprotocol/protocolVersion": "2025-06-18"}),
             400, -32020)
    message = {"jsonrpc": "2.0", "id": 99, "method": "server/discover", "params": {"_meta": dict(meta(), **{
        "io.modelcontextprotocol/protocolVersion": "2099-01-01"})}}
    error = rejected(client.post(message, headers={"MCP-Protocol-Version": "2099-01-01"}), 400, -32022)
    assert error["data"]["requested"] == "2099-01-01"
    no_meta = client.post({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}})
    rejected(no_meta, 400, -32602)
    rejected(client.request("bogus/method"), 404, -32601)
    rejected(client.request("tasks/result", {"taskId": "x"}, caps={"extensions": {EXT: {}}}), 404, -32601)

    assert client.request("tools/list", headers={"Accept": "application/json"}).status == 406
    assert client.request("tools/list", headers={"Content-Type": "text/plain"}).status == 415
    assert client.request("tools/list", headers={"Origin": "http://evil.example"}).status == 403
    assert client.request("tools/list", headers={"Origin": "http://localhost:3000"}).status == 200
    for verb in ("GET", "DELETE"):
        conn, resp = client.raw(verb, headers={"Accept": "text/event-stream"})
        assert resp.status == 405
        resp.read()
        conn.close()


def test_modern_only_http_and_legacy_only_http(http_server, schemas):
    modern = HttpClient(schemas, http_server("--era", MODERN).port)
    for verb in ("GET", "DELETE"):
        conn, resp = modern.raw(verb, headers={"Accept": "text/event-stream", "Mcp-Session-Id": "abc"})
        assert resp.status == 405
        resp.read()
        conn.close()
    legacy_style = HttpClient(schemas, modern.port, era="legacy")
    refused = legacy_style.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                                  "clientInfo": {"name": "pytest", "version": "1"}})
    assert refused.status == 400 and refused.error["data"]["supported"] == [MODERN]

    legacy = http_server("--era", LEGACY)
    probe = HttpClient(schemas, legacy.port)
    reply = probe.request("server/discover")
    assert reply.status == 400
    assert reply.response == {"jsonrpc": "2.0", "id": None,
                              "error": {"code": -32000, "message": "Bad Request: Server not initialized"}}


def test_sse_responses_flag(http_server, schemas):
    client = HttpClient(schemas, http_server("--sse-responses").port)
    reply = client.request("tools/call", {"name": "echo", "arguments": {"message": "streamed"}})
    assert reply.headers["content-type"].startswith("text/event-stream")
    assert text_of(reply.result) == "streamed"
    assert client.request("bogus/method").status == 404     # errors with a status of their own stay JSON


def test_modern_http_progress_makes_an_sse_response(http_server, schemas):
    client = HttpClient(schemas, http_server().port)
    reply = client.request("tools/call", {"name": "long_operation", "arguments": {"steps": 2, "step_ms": 1}},
                           meta_extra={"progressToken": 7})
    assert reply.headers["content-type"].startswith("text/event-stream")
    assert [n["params"]["progress"] for n in reply.notifications] == [1, 2]
    assert text_of(reply.result) == "Done after 2 steps"


# =============================================================================================
# Tasks extension (2026-07-28)
# =============================================================================================

def test_modern_task_completes_with_seed_shapes(http_server, schemas):
    client = HttpClient(schemas, http_server("--page-ms", "20").port)
    caps = {"extensions": {EXT: {}}}
    created = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q4", "pages": 4}},
                             caps=caps).result
    assert created["resultType"] == "task" and created["status"] == "working"
    assert created["statusMessage"] == "Rendering render_report"
    assert created["ttlMs"] == 3600000 and created["pollIntervalMs"] == 5
    match = TASK_ID.match(created["taskId"])
    assert match and match.group(1) == "0001"
    assert TIMESTAMP.match(created["createdAt"]) and created["lastUpdatedAt"] == created["createdAt"]
    assert created["createdAt"].endswith(".%09dZ" % (int(match.group(2)) % 10 ** 9))
    assert "result" not in created and "inputRequests" not in created
    task_id = created["taskId"]

    done = poll_task(client, task_id, lambda r: r["status"] == "completed", caps=caps)
    assert text_of(done["result"]) == "Q4 revenue: $5.1M across 1,502 orders"
    assert done["lastUpdatedAt"] > done["createdAt"]

    slow = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q2", "pages": 1000}},
                          caps=caps).result["taskId"]
    working = poll_task(client, slow, lambda r: r.get("statusMessage", "").startswith("Rendering page"), caps=caps)
    assert working["status"] == "working" and working["resultType"] == "complete"
    assert re.match(r"^Rendering page \d+ of 1000$", working["statusMessage"]), working
    assert client.request("tasks/cancel", {"taskId": slow}, caps=caps).status == 200

    assert client.request("tasks/get", {"taskId": task_id}).error["code"] == -32021
    assert client.request("tasks/get", {"taskId": task_id}, headers={"Mcp-Name": "render_report"},
                          caps=caps).error["code"] == -32020
    unknown = client.request("tasks/get", {"taskId": "report-9999-1"}, caps=caps).error
    assert unknown == {"code": -32602, "message": "Failed to retrieve task: Task not found"}
    third = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1", "pages": 1}},
                           caps=caps).result
    assert TASK_ID.match(third["taskId"]).group(1) == "0003"
    assert client.request("tools/call", {"name": "echo", "arguments": {"message": "x"}},
                          caps=caps).result["resultType"] == "complete"


def test_modern_task_cancel_failure_tool_error_and_expiry(stdio):
    client = stdio(*FAST)
    caps = {"extensions": {EXT: {}}}

    def start(name, arguments):
        return client.result("tools/call", caps, name=name, arguments=arguments)["taskId"]

    running = start("render_report", {"quarter": "Q2", "pages": 500})
    assert client.result("tasks/cancel", caps, taskId=running) == {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {
            "name": "mcp-tui-testserver", "title": "mcp-tui test server", "version": "0.1.0"}}}
    assert poll_task(client, running, lambda r: r["status"] != "working", caps)["status"] == "cancelled"
    assert client.result("tasks/cancel", caps, taskId=running)["resultType"] == "complete"   # terminal: still an ack
    assert client.modern("tasks/cancel", caps, taskId="report-0000-0")["error"]["code"] == -32602

    crashed = poll_task(client, start("fail_report", {"mode": "error"}), lambda r: r["status"] == "failed", caps)
    assert crashed["statusMessage"] == "Tool execution failed: Renderer crashed on page 7"
    assert crashed["error"] == {"code": -32603, "message": "Renderer crashed on page 7"}
    tool_error = poll_task(client, start("fail_report", {"mode": "tool_error"}),
                           lambda r: r["status"] == "completed", caps)
    assert tool_error["result"]["isError"] is True
    assert text_of(tool_error["result"]) == "Report has no data for that quarter"

    expiring = start("render_report", {"quarter": "Q3", "pages": 500, "ttl_ms": 150})
    expired = poll_task(client, expiring, lambda r: r["status"] != "working", caps)
    assert expired["status"] == "failed" and expired["statusMessage"] == "Task has expired"
    assert expired["ttlMs"] == 150

    def purged():
        response = client.modern("tasks/get", caps, taskId=expiring)
        return response.get("error")
    assert wait_until(purged) == {"code": -32602, "message": "Failed to retrieve task: Task has expired"}
    assert client.modern("tasks/update", caps, taskId=expiring, inputResponses={})["error"]["code"] == -32602

    forever = client.result("tools/call", caps, name="render_report",
                            arguments={"quarter": "Q1", "pages": 1, "ttl_ms": 0})
    assert forever["ttlMs"] is None
    assert client.modern("tools/call", caps, name="fail_report", arguments={"mode": "error"},
                         )["result"]["resultType"] == "task"


def test_modern_task_input_required_answered_with_tasks_update(stdio):
    client = stdio(*FAST)
    created = client.result("tools/call", ELICIT_CAPS, name="ask_name")
    assert created["resultType"] == "task"
    task_id = created["taskId"]
    waiting = poll_task(client, task_id, lambda r: r["status"] == "input_required")
    assert waiting["statusMessage"] == "Please enter your name."
    request = waiting["inputRequests"]["name"]
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "form" and request["params"]["message"] == "Please enter your name."

    assert client.modern("tasks/get", {"extensions": {EXT: {}}}, taskId=task_id)["error"]["code"] == -32021
    ack = client.result("tasks/update", ELICIT_CAPS, taskId=task_id,
                        inputResponses={"unknown": {"action": "accept", "content": {"name": "x"}}})
    assert ack["resultType"] == "complete"
    assert client.result("tasks/get", ELICIT_CAPS, taskId=task_id)["status"] == "input_required"
    client.result("tasks/update", ELICIT_CAPS, taskId=task_id,
                  inputResponses={"name": {"action": "accept", "content": {"name": "Luca"}}})
    done = poll_task(client, task_id, lambda r: r["status"] == "completed")
    assert text_of(done["result"]) == "Hello, Luca!"

    caps = {"sampling": {}, "extensions": {EXT: {}}}
    model_task = client.result("tools/call", caps, name="ask_model", arguments={"question": "2+2?"})["taskId"]
    waiting = poll_task(client, model_task, lambda r: r["status"] == "input_required", caps)
    assert waiting["inputRequests"]["model"]["method"] == "sampling/createMessage"
    client.result("tasks/update", caps, taskId=model_task, inputResponses={"model": {
        "role": "assistant", "content": {"type": "text", "text": "4"}, "model": "stub"}})
    assert text_of(poll_task(client, model_task, lambda r: r["status"] == "completed", caps)["result"]) == \
        "The model said: 4"


def test_listen_delivers_task_notifications_over_http(http_server, schemas):
    client = HttpClient(schemas, http_server("--page-ms", "20").port)
    caps = {"extensions": {EXT: {}}}
    task_id = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q3", "pages": 5}},
                             caps=caps).result["taskId"]
    refused = client.request("subscriptions/listen", {"notifications": {"taskIds": [task_id]}})
    assert refused.status == 400 and refused.error["code"] == -32021

    listen = client.request("subscriptions/listen", {"notifications": {
        "taskIds": [task_id, "report-9999-0"], "toolsListChanged": True, "promptsListChanged": True}},
        caps=caps, request_id="listen-1", keep_open=True)
    assert listen.status == 200 and listen.headers["content-type"].startswith("text/event-stream")
    seen = []
    while True:
        event = read_event(listen.stream)
        assert event is not None, "listen stream ended early"
        message = json.loads(event["data"])
        check_message(schemas, "modern", message)
        seen.append(message)
        assert message["params"]["_meta"][SUB] == "listen-1"
        if message["method"] == "notifications/tasks" and message["params"]["status"] == "completed":
            break
    ack = seen[0]
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["notifications"] == {"taskIds": [task_id], "toolsListChanged": True,
                                              "promptsListChanged": True}
    final = seen[-1]["params"]
    assert final["taskId"] == task_id and text_of(final["result"]) == "Q3 revenue: $4.9M across 1,433 orders"
    assert all(m["method"] in ("notifications/subscriptions/acknowledged", "notifications/tasks") for m in seen)

    assert client.request("tools/call", {"name": "toggle_extra_tool"}).status == 200
    event = read_event(listen.stream)
    changed = json.loads(event["data"])
    check_message(schemas, "modern", changed)
    assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                       "params": {"_meta": {SUB: "listen-1"}}}
    listen.conn.close()


def test_listen_on_stdio_keeps_subscription_id_types(stdio):
    client = stdio(*FAST)
    client.start("subscriptions/listen", {"notifications": {"toolsListChanged": True},
                                          "_meta": meta()}, request_id=41)
    client.start("subscriptions/listen", {"notifications": {"toolsListChanged": True,
                                                            "resourceSubscriptions": ["test://static/hello.txt"]},
                                          "_meta": meta()}, request_id="41")
    acks = [client.recv(), client.recv()]
    assert sorted(json.dumps(a["params"]["_meta"][SUB]) for a in acks) == ['"41"', "41"]

    toggled = client.result("tools/call", name="toggle_extra_tool")
    assert text_of(toggled) == "Added tool 'extra'"
    tagged = [n["params"]["_meta"][SUB] for n in client.notifications
              if n["method"] == "notifications/tools/list_changed"]
    if len(tagged) < 2:
        tagged += [client.recv()["params"]["_meta"][SUB] for _ in range(2 - len(tagged))]
    assert sorted(json.dumps(t) for t in tagged) == ['"41"', "41"]
    assert client.result("tools/list")["tools"][-1]["name"] == "extra"
    assert text_of(client.result("tools/call", name="extra")) == "The extra tool was called"

    del client.notifications[:]
    client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41}})
    client.result("tools/call", name="touch_resource", arguments={"uri": "test://static/hello.txt"})
    client.result("tools/call", name="toggle_extra_tool")
    client.result("tools/list")              # a round trip: earlier notifications have arrived by now
    assert [(n["method"], n["params"]["_meta"][SUB]) for n in client.notifications] == [
        ("notifications/resources/updated", "41"), ("notifications/tools/list_changed", "41")]


def test_stdio_listen_ends_gracefully_on_sigterm(schemas):
    if not hasattr(__import__("signal"), "SIGTERM") or sys.platform == "win32":
        pytest.skip("needs POSIX signals")
    client = StdioClient(schemas)
    try:
        client.start("subscriptions/listen", {"notifications": {}, "_meta": meta()}, request_id="L")
        assert client.recv()["method"] == "notifications/subscriptions/acknowledged"
        client.proc.terminate()
        result = client.recv()
        assert result["result"]["_meta"][SUB] == "L" and result["result"]["resultType"] == "complete"
        cancelled = client.recv()
        assert cancelled["method"] == "notifications/cancelled" and cancelled["params"]["requestId"] == "L"
    finally:
        client.close()


# =============================================================================================
# 2025-11-25 (legacy) sessions
# =============================================================================================

def test_legacy_stdio_session_and_server_requests(stdio):
    client = stdio(*FAST, era="legacy")
    assert client.request("tools/list", {})["error"]["code"] == -32602      # dual mode, before any era
    init = client.initialize({"elicitation": {}, "roots": {}})
    assert init["protocolVersion"] == LEGACY and init["serverInfo"]["name"] == "mcp-tui-testserver"
    assert init["capabilities"]["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert init["instructions"]
    tools = {t["name"]: t for t in client.request("tools/list", {})["result"]["tools"]}
    assert list(tools) == EXPECTED_TOOLS
    assert tools["render_report"]["execution"] == {"taskSupport": "required"}
    assert tools["ask_name"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in tools["echo"]

    asked = []

    def answer(message):
        asked.append(message)
        return {"action": "accept", "content": {"name": "Luca"}}
    greeted = client.request("tools/call", {"name": "ask_name"}, on_request=answer)["result"]
    assert text_of(greeted) == "Hello, Luca!"
    assert asked[0]["method"] == "elicitation/create" and asked[0]["params"]["message"] == "Please enter your name."
    cancelled = client.request("tools/call", {"name": "ask_name"}, on_request=lambda m: {"action": "cancel"})
    assert text_of(cancelled["result"]) == "No name given (cancel)"
    roots = client.request("tools/call", {"name": "list_roots"},
                           on_request=lambda m: {"roots": [{"uri": "file:///work", "name": "work"}]})
    assert text_of(roots["result"]) == "file:///work"
    no_sampling = client.request("tools/call", {"name": "ask_model"})["result"]
    assert no_sampling["isError"] is True and "sampling" in text_of(no_sampling)
    required = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1"}})["error"]
    assert required == {"code": -32601, "message": "Task augmentation required for tools/call"}
    forbidden = client.request("tools/call", {"name": "echo", "arguments": {"message": "x"}, "task": {}})
    assert forbidden["error"]["code"] == -32601
    missing = client.request("resources/read", {"uri": "test://nope"})["error"]
    assert missing["code"] == -32002 and missing["data"] == {"uri": "test://nope"}

    client.request("tools/call", {"name": "log_message", "arguments": {"message": "before"}})
    assert client.notifications == []
    assert client.request("logging/setLevel", {"level": "info"})["result"] == {}
    client.request("tools/call", {"name": "log_message", "arguments": {"message": "after"}})
    assert [n["params"]["data"] for n in client.notifications] == ["after"]
    assert client.request("resources/subscribe", {"uri": "test://static/hello.txt"})["result"] == {}
    client.request("tools/call", {"name": "touch_resource", "arguments": {"uri": "test://static/hello.txt"}})
    client.request("ping")
    assert client.notifications[-1] == {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                        "params": {"uri": "test://static/hello.txt"}}

    locked = client.request("server/discover", {"_meta": meta()})["error"]
    assert locked["code"] == -32600 and "locked" in locked["message"]
    assert client.request("initialize", {"protocolVersion": LEGACY, "capabilities": {},
                                         "clientInfo": {"name": "x", "version": "1"}})["error"]["code"] == -32600


def test_legacy_older_versions_have_no_tasks(stdio):
    client = stdio(era="legacy")
    init = client.initialize(version="2025-06-18")
    assert init["protocolVersion"] == "2025-06-18" and "tasks" not in init["capabilities"]
    assert not any("execution" in t for t in client.request("tools/list", {})["result"]["tools"])
    report = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1"},
                                           "task": {}})["result"]
    assert report["isError"] is True
    assert client.request("tasks/list", {})["error"]["code"] == -32601
    unknown = stdio(era="legacy").initialize(version="1999-01-01")
    assert unknown["protocolVersion"] == LEGACY


def test_legacy_http_session_rules_and_elicitation(http_server, schemas):
    server = http_server(*FAST)
    client = HttpClient(schemas, server.port, era="legacy")
    client.initialize({"elicitation": {}})
    assert len(client.session) >= 20

    def refused(status, **kwargs):
        reply = client.request("tools/list", **kwargs)
        assert reply.status == status, (reply.status, reply.body)
        return reply.response
    assert refused(400, drop=["Mcp-Session-Id"])["error"]["code"] == -32000
    assert refused(404, headers={"Mcp-Session-Id": "no-such-session"})["error"]["code"] == -32001
    refused(400, headers={"MCP-Protocol-Version": "2025-06-18"})
    refused(400, drop=["MCP-Protocol-Version"])
    assert client.request("tools/list", headers={"Accept": "application/json"}).status == 406

    greeted = client.request("tools/call", {"name": "ask_name"},
                             on_request=lambda m: {"action": "accept", "content": {"name": "Luca"}})
    assert greeted.headers["content-type"].startswith("text/event-stream")
    assert text_of(greeted.result) == "Hello, Luca!"
    assert greeted.event_ids[0] and all(greeted.event_ids)                 # priming event, then ids

    conn, resp = client.raw("GET", headers={"Accept": "text/event-stream", "Mcp-Session-Id": client.session,
                                            "MCP-Protocol-Version": LEGACY})
    assert resp.status == 200
    priming = read_event(resp)
    assert priming["id"] and priming["data"] == ""
    conn2, second = client.raw("GET", headers={"Accept": "text/event-stream", "Mcp-Session-Id": client.session,
                                               "MCP-Protocol-Version": LEGACY})
    assert second.status == 409
    second.read()
    conn2.close()
    assert text_of(client.request("tools/call", {"name": "toggle_extra_tool"}).result) == "Added tool 'extra'"
    changed = read_event(resp)
    assert json.loads(changed["data"]) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    conn.close()

    conn, resp = client.raw("DELETE", headers={"Mcp-Session-Id": client.session, "MCP-Protocol-Version": LEGACY})
    assert resp.status == 200
    resp.read()
    conn.close()
    assert client.request("tools/list").status == 404


def test_legacy_http_stream_resumes_with_last_event_id(http_server, schemas):
    client = HttpClient(schemas, http_server().port, era="legacy")
    client.initialize()
    reply = client.post({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "long_operation", "arguments": {"steps": 4, "step_ms": 30}, "_meta": {"progressToken": "t"}}},
        keep_open=True)
    assert reply.headers["content-type"].startswith("text/event-stream")
    priming = read_event(reply.stream)
    first = read_event(reply.stream)
    assert priming["data"] == "" and json.loads(first["data"])["params"]["progress"] == 1
    reply.conn.close()                                          # drop the stream mid-request

    conn, resp = client.raw("GET", headers={"Accept": "text/event-stream", "Mcp-Session-Id": client.session,
                                            "MCP-Protocol-Version": LEGACY, "Last-Event-ID": first["id"]})
    assert resp.status == 200
    replay = Reply(resp.status, {})
    replay.stream = resp
    client.read_until_response(replay, 7, "tools/call")
    assert [m["params"]["progress"] for m in replay.notifications] == [2, 3, 4]
    assert text_of(replay.result) == "Done after 4 steps"
    conn.close()


# =============================================================================================
# 2025-11-25 experimental tasks
# =============================================================================================

def test_legacy_tasks_on_stdio(stdio):
    client = stdio(*FAST, era="legacy")
    client.initialize({"elicitation": {}})

    created = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1", "pages": 3},
                                            "task": {"ttl": 60000}})["result"]["task"]
    assert created["status"] == "working" and created["statusMessage"] == "Rendering render_report"
    assert created["ttl"] == 60000 and created["pollInterval"] == 5 and TASK_ID.match(created["taskId"])
    task_id = created["taskId"]
    got = client.request("tasks/get", {"taskId": task_id})["result"]
    assert got["taskId"] == task_id and "ttlMs" not in got and "resultType" not in got
    assert task_id in [t["taskId"] for t in client.request("tasks/list", {})["result"]["tasks"]]
    result = client.request("tasks/result", {"taskId": task_id})["result"]
    assert text_of(result) == "Q1 revenue: $4.2M across 1,204 orders"
    assert result["_meta"][RELATED] == {"taskId": task_id}
    client.wait_notification(lambda n: n["method"] == "notifications/tasks/status"
                             and n["params"]["status"] == "completed" and n["params"]["taskId"] == task_id)

    running = client.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q2", "pages": 500},
                                            "task": {}})["result"]["task"]["taskId"]
    cancelled = client.request("tasks/cancel", {"taskId": running})["result"]
    assert cancelled["status"] == "cancelled" and cancelled["statusMessage"] == "The task was cancelled by request."
    assert cancelled["ttl"] == 3600000
    again = client.request("tasks/cancel", {"taskId": running})["error"]
    assert again["code"] == -32602 and "terminal" in again["message"]

    crashed = client.request("tools/call", {"name": "fail_report", "arguments": {"mode": "error"},
                                            "task": {}})["result"]["task"]["taskId"]
    error = client.request("tasks/result", {"taskId": crashed})["error"]
    assert error == {"code": -32603, "message": "Renderer crashed on page 7"}
    failed = client.request("tasks/get", {"taskId": crashed})["result"]
    assert failed["status"] == "failed" and failed["statusMessage"] == "Tool execution failed: Renderer crashed on page 7"
    tool_error = client.request("tools/call", {"name": "fail_report", "arguments": {"mode": "tool_error"},
                                               "task": {}})["result"]["task"]["taskId"]
    payload = client.request("tasks/result", {"taskId": tool_error})["result"]
    assert payload["isError"] is True and text_of(payload) == "Report has no data for that quarter"
    assert client.request("tasks/get", {"taskId": tool_error})["result"]["status"] == "failed"

    asking = client.request("tools/call", {"name": "ask_name", "task": {}})["result"]["task"]["taskId"]
    waiting = poll_task(client, asking, lambda r: r["status"] == "input_required", legacy=True)
    assert waiting["statusMessage"] == "Please enter your name."
    requests = []

    def answer(message):
        requests.append(message)
        return {"action": "accept", "content": {"name": "Luca"},
                "_meta": {RELATED: {"taskId": asking}}}
    greeted = client.request("tasks/result", {"taskId": asking}, on_request=answer)["result"]
    assert text_of(greeted) == "Hello, Luca!"
    assert requests[0]["method"] == "elicitation/create"
    assert requests[0]["params"]["_meta"][RELATED] == {"taskId": asking}
    assert client.request("tasks/get", {"taskId": "nope"})["error"] == {
        "code": -32602, "message": "Failed to retrieve task: Task not found"}

    # Cancelling the task while tasks/result waits on its elicitation withdraws that request.
    dropped = client.request("tools/call", {"name": "ask_name", "task": {}})["result"]["task"]["taskId"]
    pending = client.start("tasks/result", {"taskId": dropped})
    elicitation = client.recv()
    while elicitation["method"] == "notifications/tasks/status":
        elicitation = client.recv()
    assert elicitation["method"] == "elicitation/create"
    cancel_id = client.start("tasks/cancel", {"taskId": dropped})
    seen = {}
    while len(seen) < 3:
        message = client.recv()
        if message.get("method") == "notifications/tasks/status":
            continue
        key = message.get("method") or ("cancel" if message.get("id") == cancel_id else "result")
        seen[key] = message
    assert seen["notifications/cancelled"]["params"]["requestId"] == elicitation["id"]
    assert seen["cancel"]["result"]["status"] == "cancelled"
    assert seen["result"]["id"] == pending and seen["result"]["error"]["code"] == -32603


def test_legacy_tasks_over_http_from_another_session(http_server, schemas):
    port = http_server(*FAST).port
    first = HttpClient(schemas, port, era="legacy")
    first.initialize({"elicitation": {}})
    conn, stream = first.raw("GET", headers={"Accept": "text/event-stream", "Mcp-Session-Id": first.session,
                                             "MCP-Protocol-Version": LEGACY})
    assert read_event(stream)["data"] == ""                  # priming; status notifications follow
    task = first.request("tools/call", {"name": "ask_name", "task": {"ttl": 30000}}).result["task"]
    assert task["ttl"] == 30000

    second = HttpClient(schemas, port, era="legacy")
    second.initialize({"elicitation": {}})
    seen = poll_task(second, task["taskId"], lambda r: r["status"] == "input_required", caps=None)
    assert seen["taskId"] == task["taskId"]
    result = second.request("tasks/result", {"taskId": task["taskId"]},
                            on_request=lambda m: {"action": "decline"})
    assert result.headers["content-type"].startswith("text/event-stream")
    assert text_of(result.result) == "No name given (decline)"
    assert result.messages[0]["params"]["_meta"][RELATED] == {"taskId": task["taskId"]}

    statuses = []
    while not statuses or statuses[-1] != "completed":
        message = json.loads(read_event(stream)["data"])
        check_message(schemas, "legacy", message)
        assert message["method"] == "notifications/tasks/status"
        statuses.append(message["params"]["status"])
    assert statuses == ["input_required", "working", "completed"]
    conn.close()


def test_pagination_and_tasks_list(stdio):
    client = stdio("--page-size", "4", *FAST)
    names, cursor, scopes = [], None, set()
    while True:
        params = {"cursor": cursor} if cursor else {}
        page = client.result("tools/list", **params)
        assert len(page["tools"]) <= 4
        names += [t["name"] for t in page["tools"]]
        scopes.add(page["cacheScope"])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    assert names == EXPECTED_TOOLS and len(scopes) == 1
    assert client.modern("tools/list", cursor="bogus")["error"]["code"] == -32602
    assert client.modern("prompts/list", cursor=client.result("resources/list")["nextCursor"])["error"]["code"] == -32602

    legacy = stdio("--page-size", "2", *FAST, era="legacy")
    legacy.initialize()
    ids = [legacy.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1", "pages": 1},
                                         "task": {}})["result"]["task"]["taskId"] for _ in range(3)]
    first = legacy.request("tasks/list", {})["result"]
    rest = legacy.request("tasks/list", {"cursor": first["nextCursor"]})["result"]
    assert [t["taskId"] for t in first["tasks"] + rest["tasks"]] == ids and "nextCursor" not in rest


def test_no_tasks_mode(stdio):
    client = stdio("--no-tasks")
    assert "extensions" not in client.result("server/discover")["capabilities"]
    report = client.result("tools/call", {"extensions": {EXT: {}}}, name="render_report", arguments={"quarter": "Q1"})
    assert report["isError"] is True and text_of(report) == "This server runs without tasks"
    assert client.modern("tasks/get", {"extensions": {EXT: {}}}, taskId="x")["error"]["code"] == -32601
    assert client.result("tools/call", ELICIT_CAPS, name="ask_name")["resultType"] == "input_required"

    legacy = stdio("--no-tasks", era="legacy")
    assert "tasks" not in legacy.initialize()["capabilities"]
    assert not any("execution" in t for t in legacy.request("tools/list", {})["result"]["tools"])
    plain = legacy.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1"}, "task": {}})
    assert text_of(plain["result"]) == "This server runs without tasks"


# =============================================================================================
# 2024-11-05 HTTP+SSE, --record, secrets in logs
# =============================================================================================

def test_legacy_sse_transport(http_server, schemas):
    server = http_server("--legacy-sse")
    client = HttpClient(schemas, server.port, era="legacy")
    conn, stream = client.raw("GET", headers={"Accept": "text/event-stream"}, path="/sse")
    assert stream.status == 200
    endpoint = read_event(stream)
    assert endpoint["event"] == "endpoint" and endpoint["data"].startswith("/messages?sessionId=")

    def send(message):
        c, r = client.raw("POST", message, {"Content-Type": "application/json"}, path=endpoint["data"])
        assert r.status == 202
        r.read()
        c.close()

    def receive(method):
        event = read_event(stream)
        assert event["event"] == "message"
        message = json.loads(event["data"])
        check_message(schemas, "legacy", message, method)
        return message
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "pytest", "version": "1"}}})
    assert receive("initialize")["result"]["protocolVersion"] == "2024-11-05"
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo",
                                                                        "arguments": {"message": "old"}}})
    assert text_of(receive("tools/call")["result"]) == "old"

    c, r = client.raw("POST", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"Content-Type": "application/json"})
    assert r.status == 405
    r.read()
    c.close()
    c, r = client.raw("POST", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, {"Content-Type": "application/json"},
                      path="/messages?sessionId=unknown")
    assert r.status == 404
    r.read()
    c.close()
    conn.close()


def test_record_file(tmp_path, stdio, http_server, schemas):
    record = tmp_path / "record.jsonl"
    client = stdio("--record", str(record))
    client.result("tools/list")
    client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}})
    client.result("server/discover")
    client.close()
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert [line["message"].get("method") for line in lines] == ["tools/list", "notifications/cancelled",
                                                                 "server/discover"]
    assert all(line["transport"] == "stdio" and line["era"] == MODERN and "http" not in line for line in lines)
    for line in lines:
        schemas.check("modern", "ClientRequest" if "id" in line["message"] else "ClientNotification",
                      line["message"])

    http_record = tmp_path / "http.jsonl"
    server = http_server("--record", str(http_record))
    modern = HttpClient(schemas, server.port)
    modern.request("tools/call", {"name": "echo", "arguments": {"message": "x"}})
    legacy = HttpClient(schemas, server.port, era="legacy")
    legacy.initialize()
    entries = [json.loads(line) for line in http_record.read_text(encoding="utf-8").splitlines()]
    assert [(e["era"], e["message"].get("method")) for e in entries] == [
        (MODERN, "tools/call"), (LEGACY, "initialize"), (LEGACY, "notifications/initialized")]
    first = entries[0]["http"]
    assert first["method"] == "POST" and first["path"] == "/mcp"
    assert first["headers"]["mcp-method"] == "tools/call" and first["headers"]["mcp-name"] == "echo"
    assert entries[2]["http"]["headers"]["mcp-session-id"] == legacy.session


def test_task_and_session_ids_never_reach_stderr(http_server, schemas):
    server = http_server("--verbose", *FAST)
    modern = HttpClient(schemas, server.port)
    task_id = modern.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1", "pages": 1}},
                             caps={"extensions": {EXT: {}}}).result["taskId"]
    legacy = HttpClient(schemas, server.port, era="legacy")
    legacy.initialize()
    legacy_task = legacy.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q1", "pages": 1},
                                                "task": {}}).result["task"]["taskId"]
    legacy.request("tasks/result", {"taskId": legacy_task})
    wait_until(lambda: any("task" in line for line in server.stderr))
    server.close()
    log = "".join(server.stderr)
    assert "task" in log and "session" in log
    for secret in (task_id, legacy_task, legacy.session):
        assert secret not in log
