"""Validate what crosses the wire against the official JSON Schemas in tests/schema/.

Each message is checked against the definition its method names (CallToolRequest for
tools/call, ...), in the schema of the era that carried it; the tasks extension's
methods are checked against tasks-extension.schema.json.
"""
import functools
import json
from pathlib import Path

import jsonschema
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
FILES = {"2026-07-28": "mcp-2026-07-28.schema.json", "2025-11-25": "mcp-2025-11-25.schema.json",
         "tasks": "tasks-extension.schema.json"}


@functools.lru_cache(maxsize=None)
def load(name):
    return json.loads((SCHEMA_DIR / FILES[name]).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def method_definitions(name):
    """method -> definition name, for every request and notification in a schema."""
    out = {}
    for key, definition in load(name)["$defs"].items():
        parts = [definition] + list(definition.get("allOf") or ())
        methods = [((p.get("properties") or {}).get("method") or {}).get("const") for p in parts]
        method = next((m for m in methods if m), None)
        if method and (key.endswith("Request") or key.endswith("Notification")):
            out.setdefault(method, key)
    return out


def validator(name, definition):
    schema = load(name)
    resource = Resource.from_contents(schema)
    registry = Registry().with_resource("urn:mcp:" + name, resource)
    return jsonschema.Draft202012Validator({"$ref": "urn:mcp:%s#/$defs/%s" % (name, definition)}, registry=registry)


@functools.lru_cache(maxsize=None)
def cached_validator(name, definition):
    return validator(name, definition)


def schema_for(message, era):
    """(schema file, definition) for a client message of an era."""
    if era == "2026-07-28":
        method = message.get("method")
        if method in method_definitions("tasks") and method.startswith(("tasks/", "notifications/tasks")):
            return "tasks", method_definitions("tasks")[method]
        base = "2026-07-28"
    else:
        base = "2025-11-25"
    if "method" in message:
        definition = method_definitions(base).get(message["method"])
        if definition is None:
            raise AssertionError("method %r is not in the %s schema" % (message["method"], base))
        return base, definition
    return base, "JSONRPCErrorResponse" if "error" in message else "JSONRPCResultResponse"


def check_client_message(message, era):
    """Raise jsonschema.ValidationError if the message breaks its era's schema."""
    name, definition = schema_for(message, era)
    cached_validator(name, definition).validate(message)
    if era == "2026-07-28" and "method" in message and "id" in message:
        meta = (message.get("params") or {}).get("_meta") or {}
        for key in ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"):
            if key not in meta:
                raise jsonschema.ValidationError("%s lacks _meta %s" % (message["method"], key))


def check_server_result(result, era, definition):
    cached_validator(era if era in FILES else "2025-11-25", definition).validate(result)


def message_era(message):
    """A request's own era: 2026-07-28 requests say so in their _meta."""
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    return (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")


def read_records(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def auth_records(path, endpoint=None):
    """The --auth lines of a --record file ({"http", "auth"}), optionally for one endpoint only."""
    return [record for record in read_records(path) if record.get("transport") == "auth"
            and (endpoint is None or record["auth"]["endpoint"] == endpoint)]


def http_requests(path, verb=None):
    """The --record-http lines of a --record file (GET and DELETE of /mcp): their "http" parts."""
    return [record["http"] for record in read_records(path) if "message" not in record
            and record.get("transport") == "http" and verb in (None, record["http"]["method"])]


def check_recorded(path):
    """Validate every client message a test server recorded (--record); return them (not the
    "auth" lines of --auth: those are what the authorization server saw, see auth_records; nor the
    GET and DELETE lines of --record-http, see http_requests)."""
    records = [record for record in read_records(path) if record.get("transport") != "auth" and "message" in record]
    for record in records:
        era = message_era(record["message"]) or record.get("era") or "2025-11-25"
        try:
            check_client_message(record["message"], "2026-07-28" if era == "2026-07-28" else "2025-11-25")
        except jsonschema.ValidationError as exc:
            raise AssertionError("mcp-tui sent a message that breaks the %s schema: %s\n%s" % (
                era, exc.message, json.dumps(record["message"])[:2000]))
    return records
