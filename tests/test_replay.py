"""--record and `replay`: every JSON-RPC message of a run as private JSON lines with the
run's credentials masked, and a recording sent again to a server, its answers compared."""
import json
import os
import stat

from conftest import stdio_command

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
