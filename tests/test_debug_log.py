"""Section 4 (debug log): everything on the wire is recorded, and no secret is written."""
import json
import re

import pytest

from mcp_tui import DebugLog, DebugScreen, fingerprint
from taskhelpers import created_task

TOKEN = "S3CRET-bearer-token-value"


def read_log(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_whole_task_session_leaks_no_secret(cli, start_server, tmp_path, era):
    server = start_server("--page-ms", "20")
    log = tmp_path / "run.jsonl"
    base = ["--url", server.url, "--protocol-version", era, "--bearer", TOKEN, "--log-file", log, "--trace", "-q"]
    traces = []
    created = cli(*base, "tool", "call", "render_report", "quarter=Q3", "--task")
    task_id = created_task(created)
    traces.append(created.err)
    for args in (["task", "get", task_id], ["--elicit-stub", '{"name":"Luca"}', "tool", "call", "ask_name", "--task",
                 "--wait"], ["task", "result", task_id]):
        result = cli(*base, *args)
        assert result.code == 0, result
        traces.append(result.err)
    slow = created_task(cli(*base, "tool", "call", "render_report", "quarter=Q1", "pages=1000", "--task"))
    cancelled = cli(*base, "task", "cancel", slow)
    assert cancelled.code == 0, cancelled
    traces.append(cancelled.err)

    records = server.records()
    task_ids = {task_id, slow} | {r["message"]["params"]["taskId"] for r in records
                                  if "taskId" in (r["message"].get("params") or {})}
    session_ids = {r["http"]["headers"].get("mcp-session-id") for r in records} - {None}
    names = {r["http"]["headers"].get("mcp-name") for r in records
             if r["message"].get("method", "").startswith("tasks/")} - {None}
    written = log.read_bytes() + "".join(traces).encode("utf-8")
    assert b"HTTP POST" in written and b"tasks/get" in written  # the trace and the log are really there
    for secret in task_ids | session_ids | names | {TOKEN}:
        assert secret.encode() not in written, "secret written: %s" % secret
    if era == "2025-11-25":
        assert session_ids, "the legacy server minted no session id?"

    entries = read_log(log)
    linked = [e for e in entries if e.get("task") == fingerprint(task_id)]
    assert {e.get("method") for e in linked} >= {"tasks/get"}
    assert any(e["type"] == "message" and e["direction"] == "in" for e in linked)
    assert "task:" + fingerprint(task_id) in log.read_text()


def test_the_log_holds_every_message_in_order(cli, start_server, tmp_path):
    server = start_server()
    log = tmp_path / "run.jsonl"
    result = cli("--url", server.url, "--log-file", log, "tool", "call", "echo", "message=hi")
    assert result.code == 0, result
    messages = [(e["direction"], e["kind"], e["method"]) for e in read_log(log) if e["type"] == "message"]
    assert messages == [("out", "request", "server/discover"), ("in", "response", None),
                        ("out", "request", "tools/list"), ("in", "response", None),
                        ("out", "request", "tools/call"), ("in", "response", None)]
    http = [e for e in read_log(log) if e["type"] == "http"]
    assert [e["requestHeaders"]["Mcp-Method"] for e in http] == ["server/discover", "tools/list", "tools/call"]
    assert all(e["status"] == 200 and e["firstByteMs"] >= 0 for e in http)


def test_the_ring_stays_bounded_under_a_flood():
    log = DebugLog(capacity=100)
    for n in range(10000):
        log.message("in", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": n}}, "stdio")
    assert len(log.entries) == 100
    assert json.loads(log.entries[-1]["body"])["params"]["progress"] == 9999


def test_long_fields_are_cut_saying_how_much_went():
    from mcp_tui import KEPT_FIELD_LIMIT, LOG_BODY_LIMIT

    log = DebugLog()
    secret = "Zq7-private-value-that-straddles-the-cut"
    log.mask(secret, "secret")
    method = "notifications/" + "m" * (KEPT_FIELD_LIMIT - 30) + secret + "m" * 10000000  # a 10 MB method name
    log.message("in", {"jsonrpc": "2.0", "method": method, "params": {}}, "stdio")
    log.stderr("e" * 50000)
    log.event("protocol", "refused", method=method, scopes=["s" * 9000])
    message, line, event = log.entries
    label = "secret:" + fingerprint(secret)
    assert message["method"] == ("notifications/" + "m" * (KEPT_FIELD_LIMIT - 30) + label + "m")[:KEPT_FIELD_LIMIT] + (
        "… (cut at %d of %d characters)" % (KEPT_FIELD_LIMIT, len(method) - len(secret) + len(label)))
    assert secret[:6] not in message["method"] and secret[:6] not in message["body"]
    cut = re.search(r"… \(cut at (\d+) of (\d+) characters\)$", message["body"])
    assert int(cut.group(1)) == LOG_BODY_LIMIT and int(cut.group(2)) > 10000000, message["body"][-80:]
    assert line["text"] == "e" * KEPT_FIELD_LIMIT + "… (cut at %d of 50000 characters)" % KEPT_FIELD_LIMIT
    assert event["method"] == message["method"]
    assert event["scopes"].startswith('["sss') and event["scopes"].endswith("of 9004 characters)")


def test_the_ring_is_capped_in_bytes_as_well_as_in_entries():
    from mcp_tui import LogSelection

    log = DebugLog(capacity=5000, size=1024 * 1024)
    every = LogSelection(log, lambda entry: True)
    for n in range(2000):  # each holds a 64K-character body of emoji: 256 KB in memory
        log.message("in", {"jsonrpc": "2.0", "method": "notifications/message",
                           "params": {"n": n, "data": "\U0001F600" * 100000}}, "stdio")
    assert 1 <= len(log.entries) <= 4 and log.entries.bytes <= 1024 * 1024 + 300 * 1024
    assert json.loads(log.entries[-1]["body"].split("… (cut")[0] + '"}}')["params"]["n"] == 1999
    assert log.added == 2000 and [e["body"] for e in every.refresh()] == [e["body"] for e in log.entries]
    for n in range(100):  # small entries fill the ring up to its count again
        log.event("test", str(n))
    assert len(log.entries) >= 100 and log.entries[-1]["text"] == "99" and log.entries.bytes <= 1024 * 1024


def test_task_ids_are_replaced_by_fingerprints_in_bodies():
    log = DebugLog()
    log.message("in", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task", "taskId": "tok-123456"}}, "http")
    log.event("transport", "later mention of tok-123456")
    text = json.dumps(list(log.entries))
    assert "tok-123456" not in text and "task:" + fingerprint("tok-123456") in text
    assert log.entries[0]["task"] == fingerprint("tok-123456") and len(fingerprint("x")) == 8


def test_notifications_go_to_stderr_or_into_json(cli, start_server):
    server = start_server()
    text = cli("--url", server.url, "--log-level", "info", "tool", "call", "log_message", "message=hello-log")
    assert text.code == 0, text
    assert "📣 [info]" in text.err and "hello-log" in text.err
    document = cli("--url", server.url, "--format", "json", "tool", "call", "long_operation", "steps=2", "step_ms=1")
    assert document.code == 0, document
    methods = [n["method"] for n in document.json()["notifications"]]
    assert methods.count("notifications/progress") == 2


def test_filters_by_kind_method_and_task():
    log = DebugLog()
    log.message("out", {"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t-1"}}, "http")
    log.message("in", {"jsonrpc": "2.0", "method": "notifications/tasks", "params": {"taskId": "t-1",
                                                                                   "status": "working"}}, "http")
    log.message("in", {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": {"taskId": "t-2"}}, "stdio")
    log.message("in", {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}, "stdio")
    log.event("transport", "connected")
    keep = DebugScreen.keeper({"kinds": ("notification",)}, "", True)  # the TUI's key 8
    assert [e["method"] for e in log.entries if keep(e)] == ["notifications/tasks", "notifications/tasks/status"]
    assert [e["method"] for e in log.select(task=fingerprint("t-1"))] == ["tasks/get", "notifications/tasks"]
    assert [e["type"] for e in log.select(kinds=("event",))] == ["event"]
    assert len(log.select(kinds=("request",))) == 1


def test_a_log_selection_follows_the_ring_reading_only_what_is_new():
    from mcp_tui import LogSelection

    log = DebugLog(capacity=10)
    read = []  # how many entries each refresh was handed
    since = log.since
    log.since = lambda count: read.append(len(since(count)[2])) or since(count)
    odd = LogSelection(log, lambda entry: int(entry["text"]) % 2 == 1)
    for number in range(7):
        log.event("test", str(number))
    assert [e["text"] for e in odd.refresh()] == ["1", "3", "5"]
    assert since(7)[2] == [] and len(since(0)[2]) == 7
    for number in range(7, 25):  # the ring keeps 15..24
        log.event("test", str(number))
        if number % 5 == 0:
            odd.refresh()
    assert [e["text"] for e in odd.refresh()] == ["15", "17", "19", "21", "23"]
    assert read == [7, 4, 5, 5, 4]  # every entry was looked at once
    assert [e["text"] for e in odd] == [e["text"] for e in log.select() if int(e["text"]) % 2 == 1]
    assert len(odd) == 5 and odd[-1]["text"] == "23"


def test_a_large_message_keeps_its_start_and_no_secret_cut_in_half():
    from mcp_tui import LOG_BODY_LIMIT

    log = DebugLog()
    secret = "Zq7-private-value-that-straddles-the-cut"
    log.mask(secret, "secret")
    text = "x" * (LOG_BODY_LIMIT - 40) + secret + "y" * (4 * 1024 * 1024)
    log.message("in", {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}, "http")
    body = log.entries[-1]["body"]
    assert body.startswith('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"xxx')
    assert len(body) < LOG_BODY_LIMIT + 100
    assert secret[:6] not in body and "yyy" not in body


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_each_trace_line_names_the_json_rpc_method_it_carried(cli, start_server, era):
    server = start_server("--fidelity")
    result = cli("--url", server.url, "--protocol-version", era, "--trace", "--root", "/", "tool", "call",
                 "ask_on_stream" if era == "2025-11-25" else "echo", "message=hi")
    assert result.code == 0, result
    lines = [line for line in result.err.splitlines() if "⇄ HTTP" in line]
    assert all(re.search(r"⇄ HTTP (POST|GET|DELETE) \S+ \S.* -> \d{3} ", line) for line in lines), lines
    assert [line for line in lines if " HTTP POST %s tools/call -> 200 " % server.url in line], lines
    if era == "2025-11-25":
        for carried in ("initialize -> 200", "notifications/initialized -> 202", "result #srv-1 -> 202"):
            assert [line for line in lines if " HTTP POST %s %s" % (server.url, carried) in line], (
                carried, "\n".join(lines))  # whole: a loaded full run missed one, and the list was cut
        assert [line for line in lines if " HTTP GET %s (server stream) -> 200" % server.url in line], lines
        assert [line for line in lines if " HTTP DELETE %s (end of session) -> 200" % server.url in line], lines
    else:
        assert [line for line in lines if " HTTP POST %s server/discover -> 200" % server.url in line], lines
