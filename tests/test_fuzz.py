"""Property-based tests (hypothesis) of the code that reads what a server or a user sends:
the SSE decoder, the JSON-RPC reader, the header-value encoder, the k=v argument parser,
schema coercion and the terminal prompts built from a schema, clean(), and Task.from_wire.

Each property runs 250 to 500 generated examples plus explicit ones (found bugs kept as
@example): a quarter of what they once ran, for the suite's time on 2 CPUs (the file took 36 s
of CPU, then 21 s); the seed is new at every run, so runs go on exploring, and
MCP_TUI_FUZZ_SCALE=N runs N times as many (a deeper search before a release). The example
database is off, so a failure is reproduced by its @example or its printed seed, not by a file
in the tree.
"""
import io
import json
import os
import re

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import mcp_tui
from mcp_tui import (McpTuiError, ProtocolViolation, SseDecoder, Task, UsageError, clean, coerce_value,
                     decode_header_value, decode_messages, encode_header_value, parse_arguments, split_key_value)

SCALE = max(1, int(os.environ.get("MCP_TUI_FUZZ_SCALE", "1") or 1))
MANY = settings(max_examples=500 * SCALE, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
SOME = settings(MANY, max_examples=250 * SCALE)

FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

# -- JSON values --------------------------------------------------------------------------------

KEYS = st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error", "taskId", "status", "type",
                        "_meta", "io.modelcontextprotocol/subscriptionId", "a", ""])
json_scalars = (st.sampled_from([None, True, False, 0, 1, -1, 2 ** 63, 0.5, -1e300, "", "a", "2.0"])
                | st.integers() | st.text(max_size=6))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    KEYS | st.text(max_size=3), inner, max_size=3), max_leaves=6)
small_values = json_scalars | st.lists(json_scalars, max_size=2) | st.dictionaries(KEYS, json_scalars, max_size=2)


# ==============================================================================================
# The SSE decoder
# ==============================================================================================


def reference_sse(text):
    """A plain reading of the WHATWG event-stream rules (an id becomes the last event id when
    its event is dispatched, at the blank line), with SseDecoder's one deliberate extension: an
    event with an id and no data is still reported (the priming event).
    Returns (events, last_event_id, retry_ms) for the complete lines of ``text``."""
    lines = re.split("\r\n|\r|\n", text)[:-1]  # the last piece has no line end yet
    events, data, event, event_id, last, retry = [], [], "", None, None, None
    buffer = ""  # the spec's last event ID buffer: it becomes the last event ID at each dispatch
    for line in lines:
        if line == "":
            last = buffer or None  # an empty id resets it: no Last-Event-ID then
            if data or event_id is not None:
                events.append((event or "message", "\n".join(data), event_id))
            data, event, event_id = [], "", None
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id" and "\0" not in value:
            event_id = buffer = value
        elif field == "retry" and value and all(c in "0123456789" for c in value):
            retry = int(value)
    return events, last, retry


def decode_sse(chunks):
    decoder = SseDecoder()
    events = []
    for chunk in chunks:
        events.extend((e.event, e.data, e.id) for e in decoder.feed(chunk))
    return events, decoder.last_event_id, decoder.retry_ms


SSE_TOKENS = ["data:", "data: ", "data", "event:", "event: ", "id:", "id: ", "retry:", "retry: ", ":", ": ping",
              "\n", "\n", "\n", "\r", "\r\n", "\r\n", "x", "{}", " ", "1", "20", "\x00", "é", "世", "²", "٣",
              "\u2028", "dat", "Data:"]
sse_streams = st.lists(st.sampled_from(SSE_TOKENS), max_size=40).map("".join)


@st.composite
def chunked(draw):
    text = draw(sse_streams)
    cuts = sorted(c % (len(text) + 1) for c in draw(st.lists(st.integers(0, 255), max_size=8)))
    bounds = [0] + cuts + [len(text)]
    return text, [text[a:b] for a, b in zip(bounds, bounds[1:])]  # empty chunks included


@MANY
@given(sse_streams)
@example("retry: ²\n\n")
@example("retry: ٣\ndata: x\n\n")
@example("id: a\x00b\ndata: x\n\n")
def test_sse_decoder_matches_the_reference(text):
    assert decode_sse([text]) == reference_sse(text)


def test_sse_an_empty_chunk_between_cr_and_lf_is_no_line():
    chunks = ["data: a\r", "", "\ndata: b\r\n\r\n"]
    assert decode_sse(chunks) == decode_sse(["".join(chunks)])


@MANY
@given(chunked())
def test_sse_chunking_does_not_matter(case):
    text, chunks = case
    assert decode_sse(chunks) == decode_sse([text])


@SOME
@given(st.text(alphabet=st.sampled_from(list("data:event:id:retry: 1\r\n\x00é")), max_size=60))
def test_sse_decoder_never_raises_on_any_text(text):
    decode_sse([text])


# ==============================================================================================
# The JSON-RPC reader
# ==============================================================================================


def check_decoded(payload):
    try:
        messages = decode_messages(payload)
    except ProtocolViolation:
        return None
    assert isinstance(messages, list) and all(isinstance(m, dict) for m in messages)
    return messages


@MANY
@given(st.binary(max_size=200))
@example(b"[" * 100000)
@example(b'{"a":' * 50000)
@example(b"\xff\xfe{}")
@example(b"1" * 5000)
def test_decode_messages_of_any_bytes(payload):
    check_decoded(payload)


@MANY
@given(json_values)
def test_decode_messages_of_any_json(value):
    messages = check_decoded(json.dumps(value).encode("utf-8"))
    if isinstance(value, dict):
        assert messages == [value]
    elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
        assert messages == value
    else:
        assert messages is None


def test_decode_messages_of_deep_nesting_is_a_protocol_violation():
    for text in ("[" * 100000 + "]" * 100000, '{"a":' * 50000 + "1" + "}" * 50000):
        try:
            decode_messages(text)
        except ProtocolViolation:
            continue
        except RecursionError:
            raise AssertionError("RecursionError escaped decode_messages (kills the reader thread)")
        raise AssertionError("decode_messages read JSON nested %d deep without a protocol error" % text.count("["))


def message_shapes():
    ids = st.sampled_from([None, 1, 2, "1", "x", True, 1.5, [1], {}])
    methods = st.sampled_from(["notifications/progress", "notifications/message", "notifications/tasks",
                               "notifications/tools/list_changed", "notifications/subscriptions/acknowledged",
                               "ping", "x", "", 5, None, ["x"]])
    params = st.fixed_dictionaries({}, optional={key: small_values for key in (
        "progressToken", "progress", "total", "message", "level", "logger", "data", "taskId", "_meta")}) | small_values
    return st.fixed_dictionaries({}, optional={"jsonrpc": st.sampled_from(["2.0", "1.0", None, 2]), "id": ids,
                                               "method": methods, "params": params, "result": small_values,
                                               "error": small_values})


class NullTransport(object):
    name = "stdio"

    def start(self, channel):
        pass

    def send(self, message, headers=None):
        pass


@MANY
@given(st.lists(message_shapes(), max_size=3))
@example([{"jsonrpc": "2.0", "method": 5}])
@example([{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": 3, "logger": [], "data": 1}}])
@example([{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "message": 7}}])
def test_the_reader_delivers_any_message_without_raising(messages):
    """What RpcChannel.deliver runs on the reader thread for each message: the debug log,
    routing, and the CLI's notification printer. An exception here kills the reader."""
    out = mcp_tui.Output("text", stdout=io.StringIO(), stderr=io.StringIO())
    channel = mcp_tui.RpcChannel(NullTransport(), log=mcp_tui.DebugLog(), on_notification=out.on_notification,
                                 on_request=lambda message: None)
    pending = mcp_tui.PendingRequest("t", on_progress=lambda params: None)
    channel._pending[1] = pending
    for message in messages:
        channel.deliver(dict(message))
    json_out = mcp_tui.Output("json", stdout=io.StringIO(), stderr=io.StringIO())
    for message in messages:
        json_out.on_notification(dict(message))


# ==============================================================================================
# Header values
# ==============================================================================================

VISIBLE_ASCII = re.compile(r"^[\x20-\x7e\t]*$")


@MANY
@given(st.text(max_size=40) | st.text(alphabet=st.sampled_from(list("=?base64?= \tAaZz09+/")), max_size=30))
@example("=?base64?literal?=")
@example("=?base64??=")
@example("=?base64?SGk=?=")
@example(" padded ")
@example("")
@example("\t")
@example("line\r\nbreak")
def test_header_values_round_trip(value):
    encoded = encode_header_value(value)
    assert VISIBLE_ASCII.match(encoded) and encoded == encoded.strip(), repr(encoded)
    assert decode_header_value(encoded) == value
    if VISIBLE_ASCII.match(value) and value == value.strip() and not (
            value.startswith("=?base64?") and value.endswith("?=")):
        assert encoded == value


def test_header_value_examples_from_the_spec():
    assert encode_header_value("Hello, 世界") == "=?base64?SGVsbG8sIOS4lueVjA==?="
    assert encode_header_value(" padded ") == "=?base64?IHBhZGRlZCA=?="
    assert encode_header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="


# ==============================================================================================
# k=v arguments and schema coercion
# ==============================================================================================

word_chars = st.sampled_from(list("ab:=@-_ 1.{}[]\"\\,") + ["é", "\n", "true", "null", "-1", "1e400", "9" * 30])
words = st.lists(word_chars, max_size=10).map("".join)

schema_keys = st.sampled_from(["type", "anyOf", "oneOf", "enum", "items", "properties", "required", "default",
                               "title", "const"])
type_names = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object", "bogus"])
schemas = st.recursive(
    st.fixed_dictionaries({}, optional={"type": type_names | st.lists(type_names, max_size=2) | json_scalars}),
    lambda inner: st.dictionaries(schema_keys, inner | json_scalars | st.lists(inner, max_size=2) | st.dictionaries(
        st.sampled_from(["a", "b", "x"]), inner, max_size=2), max_size=3),
    max_leaves=6) | small_values


def file_free(word_list):
    """Keep k=@file words away from real paths (no /dev/zero surprises)."""
    for word in word_list:
        try:
            _, _, value = split_key_value(word)
        except UsageError:
            continue
        if value.startswith("@") and any(c in value for c in "/\\~"):
            return False
    return True


@MANY
@given(words)
def test_split_key_value(word):
    try:
        key, op, value = split_key_value(word)
    except UsageError:
        assert "=" not in word[1:]
        return
    assert key and op in ("=", ":=") and key + op + value == word


@MANY
@given(st.lists(words, max_size=5), schemas, st.none() | words, st.booleans(), st.text(max_size=20))
@example(["n=" + "9" * 400], {"properties": {"n": {"type": "number"}}}, None, False, "")
@example(["n=" + "9" * 5000], {"properties": {"n": {"type": "integer"}}}, None, False, "")
@example(["a:=" + "[" * 100000], {}, None, False, "")
@example(["a=1"], {"properties": ["a"]}, None, False, "")
@example(["a=1"], [], None, False, "")
@example(["n=nan"], {"properties": {"n": {"type": "number"}}}, None, False, "")
@example(["n=-inf"], {"properties": {"n": {"type": "number"}}}, None, False, "")
@example(["n:=NaN"], {}, None, False, "")
@example([], {}, '{"n": Infinity}', False, "")
def test_parse_arguments_raises_only_usage_errors(word_list, schema, args_json, strings_only, stdin):
    """Any words and any tool schema: arguments that are valid JSON to send, or a UsageError."""
    assume(file_free(word_list))
    try:
        arguments = parse_arguments(word_list, schema, args_json, stdin=io.StringIO(stdin), strings_only=strings_only)
    except UsageError:
        return
    assert isinstance(arguments, dict)
    json.dumps(arguments, allow_nan=False)  # NaN and Infinity are not JSON; no server could read them


@MANY
@given(words, schemas)
@example("1", {"enum": 5})
@example("1", {"anyOf": 5})
@example("9" * 400, {"type": "number"})
@example("9" * 5000, {"type": "integer"})
@example("[" * 100000, {"type": "array"})
@example("nan", {"type": "number"})
@example("1e400", {"type": "number"})
@example("[NaN]", {"type": "array"})
def test_coerce_value_raises_only_usage_errors(text, schema):
    try:
        value = coerce_value(text, schema, "k")
    except UsageError:
        return
    json.dumps(value, allow_nan=False)
    types = mcp_tui.schema_types(schema)
    if len(types) == 1 and types[0] in ("integer", "boolean", "null", "array", "object"):
        assert mcp_tui.json_type(value) == types[0], (value, schema)
    if types == ["number"]:
        assert mcp_tui.json_type(value) in ("integer", "number"), (value, schema)


@SOME
@given(schemas, st.lists(words, max_size=12), st.booleans())
@example({"properties": ["a"]}, [], False)
@example({"properties": {"a": {"type": "integer"}}, "required": 5}, ["1", "y"], False)
@example({"properties": {"a": {"oneOf": 3}}}, ["x", "y"], False)
def test_the_elicitation_form_raises_only_mcp_tui_errors(schema, answers, with_stub):
    """The form mcp-tui builds from a server's requestedSchema, on a terminal (answers
    typed by the user) or from --elicit-stub: any schema gives an answer or a clean error."""
    typed = list(answers)

    def ask(prompt):
        assert isinstance(prompt, str)
        if not typed:
            raise EOFError
        return typed.pop(0)

    responder = mcp_tui.InputResponder(elicit_stub={"a": "1"} if with_stub else None, ask=ask,
                                       notice=lambda text: None)
    try:
        answer = responder.elicit({"message": "m", "requestedSchema": schema}, "server")
    except McpTuiError:
        return
    assert answer.get("action") in ("accept", "decline", "cancel"), answer


# ==============================================================================================
# clean()
# ==============================================================================================

escape_bits = st.sampled_from(["\x1b", "\x1b[", "\x1b]", "\x1bP", "\x1b\\", "\x07", "\x9b", "\x9d", "\x9c", "\x90",
                               "[", "]", ";", "0", "31", "m", "?", "\\", "\n", "\t", "\r", "\x00", "\x7f", "\x85",
                               "\u202e", "\u2066", "\u2069", "\u200f", "\u061c", "a", "Z", " ", "é", "世", "\u2028"])
hostile_text = st.lists(escape_bits, max_size=30).map("".join) | st.text(max_size=40)
plain_text = st.text(st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="\u061c\u200e\u200f"
                                   "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), max_size=30)


@MANY
@given(hostile_text)
def test_clean_leaves_no_control_and_is_idempotent(text):
    cleaned = clean(text)
    assert not FORBIDDEN.search(cleaned), repr(cleaned)
    assert clean(cleaned) == cleaned


@MANY
@given(plain_text)
def test_clean_keeps_plain_text(text):
    assert clean(text) == text


@MANY
@given(hostile_text, plain_text)
@example("\x1b]", "the next line")
@example("\x1bP", "the next line")
@example("\x9d", "the next line")
def test_clean_never_swallows_the_next_line(hostile, plain):
    """A server string that ends inside an unterminated OSC/DCS must not hide the text that
    mcp-tui prints after it on the next line (e.g. a prompt's role, then its text)."""
    assume("\n" not in plain)
    assert clean(hostile + "\n" + plain).endswith("\n" + plain)


# ==============================================================================================
# Task.from_wire
# ==============================================================================================

task_values = st.fixed_dictionaries({}, optional={
    "taskId": st.sampled_from(["t", "", "task-1"]) | small_values,
    "status": st.sampled_from(list(mcp_tui.TASK_STATUSES) + ["paused", ""]) | small_values,
    "statusMessage": small_values,
    "createdAt": st.sampled_from(["2026-08-01T12:00:00Z", "2026-13-01T00:00:00Z", "2026-02-30T25:61:61Z",
                                  "9999-12-31T23:59:59.999999+99:99", "2026-08-01T12:00:00.5-05:00", "", "x"])
    | small_values,
    "lastUpdatedAt": st.sampled_from(["2026-08-01T12:00:00Z", "0000-00-00T00:00:00Z"]) | small_values,
    "ttlMs": st.none() | st.integers() | st.floats() | small_values,
    "ttl": st.none() | st.integers() | st.floats() | small_values,
    "pollIntervalMs": st.integers() | st.floats() | small_values,
    "pollInterval": st.integers() | st.floats() | small_values,
    "resultType": small_values, "_meta": small_values, "result": small_values, "error": small_values,
    "inputRequests": small_values})


@MANY
@given(task_values | small_values, st.booleans())
@example({"taskId": "t", "status": "working", "createdAt": 5, "ttlMs": 1000}, False)
@example({"taskId": "t", "status": "working", "createdAt": "2026-13-01T00:00:00Z", "ttlMs": 1000}, False)
@example({"taskId": "t", "status": "working", "createdAt": "2026-08-01T12:00:00Z", "ttlMs": float("nan")}, False)
def test_task_from_wire_raises_only_protocol_violations(raw, legacy):
    try:
        task = Task.from_wire(raw, legacy=legacy)
    except ProtocolViolation:
        return
    assert isinstance(task.task_id, str) and task.status in mcp_tui.TASK_STATUSES
    task.poll_seconds()
    task.expires_at()
    task.status_line()
    mcp_tui.short_timestamp(task.data.get("createdAt"))
    mcp_tui.short_timestamp(task.data.get("lastUpdatedAt"))
