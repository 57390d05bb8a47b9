"""--record and `replay`: every JSON-RPC message of a run as private JSON lines with the
run's credentials masked, and a recording sent again to a server, its answers compared."""
import json
import os
import shlex
import stat
import sys

import pytest

from conftest import ROOT, stdio_command

SURFACE_SERVER = ROOT / "tests" / "surfaceserver.py"

BEARER = "record-bearer-0123456789"
HEADER = "record-header-abcdefghij"
EXPANDED = "record-config-zyxwvutsrq"


def recorded(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def runs(path):
    """The recording's parts, one per run: lists of message lines."""
    parts = []
    for line in recorded(path):
        if "recording" in line:
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def answer_to(messages, method):
    """The recorded answer to the one request of ``method``."""
    request, = [line["message"] for line in messages if line["message"].get("method") == method]
    answer, = [line["message"] for line in messages if line["direction"] == "in" and "method" not in line["message"]
               and line["message"].get("id") == request["id"]]
    return answer


def test_a_recording_has_every_message_both_ways_and_no_credential(cli, start_server, tmp_path):
    server = start_server()
    recording = tmp_path / "run.jsonl"
    result = cli("--url", server.url, "--bearer", BEARER, "-H", "X-Api-Key: " + HEADER, "--record", recording,
                 "tool", "call", "echo", "message=%s and %s" % (BEARER, HEADER))
    assert result.code == 0, result
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"web": {"url": server.url,
                                                         "headers": {"X-Team": "${RECORD_TEAM}"}}}}))
    result = cli("--config", config, "--record", recording, "tool", "call", "echo", "message=" + EXPANDED,
                 env={"RECORD_TEAM": EXPANDED})
    assert result.code == 0, result
    assert stat.S_IMODE(os.stat(recording).st_mode) == 0o600
    text = recording.read_text()
    for secret in (BEARER, HEADER, EXPANDED):
        assert secret not in text
    parts = runs(recording)
    assert len(parts) == 2  # the second run appended its part
    messages = parts[0] + parts[1]
    assert {line["transport"] for line in messages} == {"streamable-http"}
    assert {line["era"] for line in messages} == {"modern"}
    assert all(isinstance(line["t"], float) for line in messages)
    assert {line["direction"] for line in messages} == {"in", "out"}
    texts = [answer_to(part, "tools/call")["result"]["content"][0]["text"] for part in parts]
    assert texts[0].startswith("secret:") and " and secret:" in texts[0], texts
    assert texts[1].startswith("env:"), texts

def test_a_recording_keeps_task_ids_and_says_the_legacy_era(cli, tmp_path):
    recording = tmp_path / "task.jsonl"
    result = cli(stdio_command("--era", "2025-11-25", "--page-ms", "1"), "--record", recording, "--format", "json",
                 "tool", "call", "render_report", "quarter=Q3", "--task", "--wait")
    assert result.code == 0, result
    messages = [line for line in recorded(recording) if "message" in line]
    assert {line["transport"] for line in messages} == {"stdio"}
    opened = next(i for i, line in enumerate(messages) if line["message"].get("method") == "initialize")
    assert messages[0]["message"]["method"] == "server/discover" and messages[0]["era"] == "modern"
    assert {line["era"] for line in messages[opened:]} == {"legacy"}
    created = [line["message"]["result"]["task"]["taskId"] for line in messages
               if line["direction"] == "in" and "task" in (line["message"].get("result") or {})]
    assert created, messages
    gets = [line for line in messages if line["message"].get("method") in ("tasks/get", "tasks/result")]
    assert gets and all(line["message"]["params"]["taskId"] == created[0] for line in gets)


def surface_server(tmp_path, name, answer):
    """tests/surfaceserver.py with one tool, echo, that answers ``answer``."""
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps({
        "serverInfo": {"name": "surface", "version": "1"}, "capabilities": {"tools": {}},
        "tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}}],
        "answers": {"echo": {"content": [{"type": "text", "text": answer}], "isError": False}}}))
    return " ".join(shlex.quote(str(p)) for p in (sys.executable, SURFACE_SERVER, path))


def test_a_recorded_tool_call_replays_clean_against_the_same_server(cli, tmp_path):
    """The tools/list mcp-tui sends to look the tool up is its own bookkeeping: recorded (and
    marked so), but a replay sends and compares only the call."""
    recording = tmp_path / "call.jsonl"
    result = cli(stdio_command(), "--record", recording, "tool", "call", "echo", "message=hello")
    assert result.code == 0, result
    sent = [(line["message"]["method"], line.get("bookkeeping", False)) for line in recorded(recording)
            if line.get("direction") == "out" and "method" in line["message"] and "id" in line["message"]]
    assert ("tools/list", True) in sent and ("tools/call", False) in sent, sent
    replayed = cli(stdio_command(), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    as_json = cli(stdio_command(), "replay", recording, "--format", "json")
    assert as_json.code == 0, as_json
    assert [(r["method"], r["same"]) for r in as_json.json()["requests"]] == [("tools/call", True)]


def test_a_tool_that_now_answers_differently_is_reported(cli, tmp_path):
    recording = tmp_path / "call.jsonl"
    result = cli(surface_server(tmp_path, "old", "hello"), "--record", recording, "tool", "call", "echo",
                 "message=hello")
    assert result.code == 0, result
    new = surface_server(tmp_path, "new", "HELLO")
    replayed = cli(new, "replay", recording)
    assert replayed.code == 1, replayed
    assert replayed.out == ("request 1: tools/call echo: different\n"
                            "  /result/content/0/text\n"
                            "    breaking  changed\n"
                            "      - hello\n"
                            "      + HELLO\n"
                            "1 request: 0 same, 1 different; 1 change: 1 breaking, 0 additive, 0 cosmetic\n"), replayed
    as_json = cli(new, "replay", recording, "--format", "json")
    assert as_json.code == 1, as_json
    assert as_json.json()["requests"][0]["differences"] == [
        {"class": "breaking", "path": "/result/content/0/text", "change": "changed", "recorded": "hello",
         "replayed": "HELLO"}]
    assert as_json.json()["summary"] == {"requests": 1, "same": 0, "different": 1, "breaking": 1, "additive": 0,
                                         "cosmetic": 0}
    ignored = cli(new, "replay", recording, "--ignore", "/result/content/*/text")
    assert (ignored.code, ignored.out) == (0, "1 request: 1 same, 0 different\n"), ignored


@pytest.mark.parametrize("era", ["both", "2025-11-25"])
def test_the_servers_requests_are_answered_as_recorded(cli, tmp_path, era):
    """ask_name elicits a name: without --elicit-stub it is declined, but a replay answers
    as the recording did (a server request in 2025-11-25, an input_required round in 2026)."""
    recording = tmp_path / "ask.jsonl"
    server = stdio_command("--era", era)
    result = cli(server, "--record", recording, "--elicit-stub", '{"name": "Ada"}', "tool", "call", "ask_name")
    assert (result.code, result.out) == (0, "Tool response:\nHello, Ada!\n"), result
    replayed = cli(server, "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed


def test_a_replay_sends_only_what_the_recording_sent(cli, tmp_path, record_file):
    recording = tmp_path / "list.jsonl"
    result = cli(stdio_command(), "--record", recording, "prompt", "list")
    assert result.code == 0, result
    replayed = cli(stdio_command("--record", record_file), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    sent = {json.loads(line)["message"].get("method") for line in record_file.read_text().splitlines()}
    recorded_methods = {line["message"].get("method") for line in recorded(recording) if line.get("direction") == "out"}
    assert sent <= recorded_methods, sent - recorded_methods


def test_a_file_that_is_not_a_recording_is_a_usage_error(cli, tmp_path):
    other = tmp_path / "other.jsonl"
    other.write_text("not json\n")
    result = cli(stdio_command(), "replay", other)
    assert (result.code, result.err) == (2, "mcp-tui: %s: line 1 is not JSON\n" % other), result
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = cli(stdio_command(), "replay", empty)
    assert result.code == 2 and "holds no request" in result.err, result
    bad = cli(stdio_command(), "replay", empty, "--ignore", "result")
    assert bad.code == 2 and "--ignore result: a path starts with /" in bad.err, bad


@pytest.mark.parametrize("era", ["both", "2025-11-25"])
def test_a_replayed_task_is_followed_by_its_new_id(cli, tmp_path, era):
    """The replay's task has an ID of its own: the recorded tasks/get and tasks/result go to
    it (with the recorded ID the server would answer "unknown task"). How far the task has
    got when it is polled is timing, left out with --ignore."""
    recording = tmp_path / "task.jsonl"
    # --no-listen: mcp-tui polls with tasks/get. Where it may listen, the task's status can
    # come by notification before the first poll (it did on a loaded machine), and then the
    # recording has no tasks/get to replay.
    server = stdio_command("--era", era, "--page-ms", "1", "--no-listen")
    result = cli(server, "--record", recording, "tool", "call", "render_report", "quarter=Q3", "pages=2", "--task",
                 "--wait")
    assert result.code == 0, result
    replayed = cli(server, "replay", recording, "--format", "json", "--ignore", "/result/status",
                   "--ignore", "/result/statusMessage", "--ignore", "/result/result")
    assert replayed.code == 0, replayed
    methods = [r["method"] for r in replayed.json()["requests"]]
    assert "tools/call" in methods and "tasks/get" in methods, methods
    assert all(r["same"] for r in replayed.json()["requests"]), replayed


def test_record_and_replay_through_a_kept_session(cli, tmp_path):
    opened = cli("session", "open", "kept", stdio_command())
    assert opened.code == 0, opened
    recording = tmp_path / "kept.jsonl"
    result = cli("@kept", "--record", recording, "tool", "call", "echo", "message=hello")
    assert result.code == 0, result
    assert any(line.get("message", {}).get("method") == "tools/call" for line in recorded(recording))
    replayed = cli("@kept", "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed


def test_a_replayed_call_sends_the_recorded_tools_parameter_headers(cli, start_server, tmp_path):
    """2026-07-28 over HTTP: weather's region travels as Mcp-Param-Region too, as the tool
    list says; the replay takes the list from the recording and sends it again."""
    server = start_server()
    recording = tmp_path / "weather.jsonl"
    result = cli("--url", server.url, "--record", recording, "tool", "call", "weather", "region=north")
    assert result.code == 0, result
    replayed = cli("--url", server.url, "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    calls = [r for r in server.records() if r["message"].get("method") == "tools/call"]
    assert [r["http"]["headers"].get("mcp-param-region") for r in calls] == ["north", "north"], calls
