"""--record and `replay`: every JSON-RPC message of a run as private JSON lines with the
run's credentials masked, and a recording sent again to a server, its answers compared."""
import json
import os
import re
import shlex
import stat
import subprocess
import sys

import pytest

import cached_script
from conftest import MCP_TUI, ROOT, TESTSERVER, stdio_command

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
    assert as_json.json()["summary"] == {"requests": 1, "same": 0, "different": 1, "masked": 0, "breaking": 1,
                                         "additive": 0, "cosmetic": 0}
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


def test_a_recording_nested_too_deeply_is_a_usage_error(cli, tmp_path):
    """330 nested arrays in a recorded answer read as JSON, then ran the replay's walks out of
    stack: `internal error: RecursionError`."""
    recording = tmp_path / "call.jsonl"
    result = cli(stdio_command(), "--record", recording, "tool", "call", "echo", "message=hello")
    assert result.code == 0, result
    lines = recording.read_text().splitlines()
    number = next(n for n, line in enumerate(lines) if '"result"' in line and '"content"' in line)
    deep = json.loads(lines[number])
    deep["message"]["result"]["structuredContent"] = {"deep": "DEEP"}
    lines[number] = json.dumps(deep).replace('"DEEP"', "[" * 330 + "]" * 330)
    recording.write_text("\n".join(lines) + "\n")
    replayed = cli(stdio_command(), "replay", recording)
    assert (replayed.code, replayed.err) == (2, "mcp-tui: %s: line %d holds JSON nested more than 128 levels deep, "
                                                "more than mcp-tui reads\n" % (recording, number + 1)), replayed


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


def test_a_prompt_get_replays_only_the_get(cli, tmp_path):
    """prompt get looks the prompt up in prompts/list first: mcp-tui's bookkeeping, not replayed."""
    recording = tmp_path / "prompt.jsonl"
    result = cli(stdio_command(), "--record", recording, "prompt", "get", "greeting", "name=Ada")
    assert result.code == 0, result
    replayed = cli(stdio_command(), "replay", recording, "--format", "json")
    assert replayed.code == 0, replayed
    assert [r["method"] for r in replayed.json()["requests"]] == ["prompts/get"], replayed


def replay_json(cli, server, recording, *flags):
    replayed = cli(server, "replay", recording, "--format", "json", *flags)
    assert replayed.code in (0, 1), replayed
    return replayed.code, [change for request in replayed.json()["requests"] for change in request["differences"]]


def test_a_tool_removed_from_a_replayed_list_is_one_breaking_change(cli, tmp_path):
    """The list's items are matched by name, as `diff` matches them: not 11 per-field
    differences of the tools that moved up a place."""
    recording = tmp_path / "list.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "list").code == 0
    server = stdio_command("--surface-change", "removed-tool")
    assert replay_json(cli, server, recording) == (1, [
        {"class": "breaking", "path": "/result/tools/add", "change": "tool removed", "recorded": "add"}])
    replayed = cli(server, "replay", recording)
    assert replayed.out == ("request 1: tools/list: different\n"
                            "  tool add\n"
                            "    breaking  tool removed\n"
                            "      - add\n"
                            "1 request: 0 same, 1 different; 1 change: 1 breaking, 0 additive, 0 cosmetic\n"), replayed


def test_a_reworded_or_added_list_item_passes_unless_fail_on_says_otherwise(cli, tmp_path):
    recording = tmp_path / "list.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "list").code == 0
    reworded = stdio_command("--surface-change", "description")
    assert replay_json(cli, reworded, recording) == (0, [
        {"class": "cosmetic", "path": "/result/tools/echo/description", "change": "description changed",
         "recorded": "Returns the message it is given.", "replayed": "Echoes the message back, unchanged."}])
    assert replay_json(cli, reworded, recording, "--fail-on", "additive")[0] == 0
    assert replay_json(cli, reworded, recording, "--fail-on", "any")[0] == 1
    added = stdio_command("--surface-change", "optional-argument")
    code, changes = replay_json(cli, added, recording)
    assert (code, [(c["class"], c["path"], c["change"]) for c in changes]) == (0, [
        ("additive", "/result/tools/echo/inputSchema/properties/repeat", "new optional argument repeat")])
    assert replay_json(cli, added, recording, "--fail-on", "additive")[0] == 1
    required = stdio_command("--surface-change", "required-argument")
    code, changes = replay_json(cli, required, recording)
    assert (code, [(c["class"], c["change"]) for c in changes]) == (1, [("breaking", "new required argument channel")])


def test_a_call_that_now_fails_is_breaking(cli, tmp_path):
    """An answer that is now an error (or a tool error) is breaking, though its fields are new."""
    recording = tmp_path / "calls.jsonl"
    for words in (("echo", "message=hello"), ("add", "a=2", "b=3")):
        assert cli(stdio_command(), "--record", recording, "tool", "call", *words).code == 0
    code, changes = replay_json(cli, stdio_command("--surface-change", "removed-tool"), recording)
    assert (code, [(c["class"], c["path"]) for c in changes]) == (1, [("breaking", "/error"), ("breaking", "/result")])
    code, changes = replay_json(cli, stdio_command("--surface-change", "required-argument"), recording)
    assert (code, [(c["class"], c["path"]) for c in changes]) == (
        1, [("breaking", "/result/content/0/text"), ("breaking", "/result/isError")]), changes


def test_an_http_error_with_id_null_is_recorded_as_sent(cli, start_server, tmp_path):
    """A 2025-11-25-only server refuses the 2026-07-28 probe with a 400 whose error has id
    null; mcp-tui places it under its request, but records what the server sent."""
    server = start_server("--era", "2025-11-25")
    recording = tmp_path / "probe.jsonl"
    assert cli("--url", server.url, "--record", recording, "tool", "list").code == 0
    errors = [line["message"] for line in recorded(recording)
              if line.get("direction") == "in" and "error" in line["message"]]
    assert errors and all(error["id"] is None for error in errors), errors


def test_a_recorded_http_error_with_id_null_answers_the_request_waiting(cli, tmp_path):
    """Over HTTP an error with id null answers the request whose response carried it: a
    recording read back pairs it with the one request waiting."""
    recording = tmp_path / "null.jsonl"
    lines = [{"recording": 1},
             {"direction": "out", "transport": "streamable-http", "message": {
                 "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}},
             {"direction": "in", "transport": "streamable-http", "message": {
                 "jsonrpc": "2.0", "id": None, "error": {"code": -32602, "message": "Unknown tool: nope"}}}]
    recording.write_text("".join(json.dumps(line) + "\n" for line in lines))
    replayed = cli(stdio_command(), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed


def readme_ci_workflow():
    """The README's CI example: the shell commands that make what the job compares against,
    and the job's `run:` steps, as written."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Catching breaking changes\n")[1]
    section = section.split("\n## ")[0]
    shell = re.search(r"\nA CI job .*?```sh\n(.*?)```", section, re.S).group(1)
    job = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return [line for line in shell.splitlines() if line.strip()], re.findall(r"^ *- run: (.+)$", job, re.M)


def test_the_readmes_ci_workflow_passes_a_harmless_change_and_fails_a_breaking_one(tmp_path, state_dir):
    """The README's commands, run as written in a repository whose server.py is the test
    server: the snapshot and the recording made, then the job's steps after each change."""
    setup, steps = readme_ci_workflow()
    assert len(setup) == 3 and len(steps) == 2, (setup, steps)
    tools = tmp_path / "bin"  # what the user has: python3 and mcp-tui on PATH
    tools.mkdir()
    (tools / "python3").symlink_to(sys.executable)
    (tools / "mcp-tui").write_text('#!/bin/sh\nexec python3 %s "$@"\n' % shlex.quote(str(MCP_TUI)))
    (tools / "mcp-tui").chmod(0o755)
    (tmp_path / "tools").mkdir()  # the job's copy of the one file
    (tmp_path / "tools" / "mcp_tui.py").symlink_to(MCP_TUI)
    (tmp_path / "tests").mkdir()
    env = dict(os.environ, PATH=str(tools) + os.pathsep + os.environ["PATH"], MCP_TUI_STATE_DIR=str(state_dir))
    env.pop("MCP_TUI_BEARER", None)

    def serve(*flags):
        # --cache-ttl-ms 0: a server that lets nothing be kept across commands, as most do (a
        # tool list kept by `snapshot` would spare the recorded call its lookup)
        argv = cached_script.command(TESTSERVER) + ["--cache-ttl-ms", "0"] + list(flags)
        (tmp_path / "server.py").write_text("import os\nos.execv(%r, %r)\n" % (argv[0], argv))

    def run(line):
        return subprocess.run(line, shell=True, cwd=str(tmp_path), env=env, capture_output=True, text=True,
                              timeout=60)

    serve()
    for line in setup:
        made = run(line)
        assert made.returncode == 0, (line, made)
    codes, outputs = {}, {}
    for change in ("description", "optional-argument", "required-argument", "removed-tool"):
        serve("--surface-change", change)
        outputs[change] = [run(step) for step in steps]
        codes[change] = [done.returncode for done in outputs[change]]
    assert codes == {"description": [0, 0], "optional-argument": [0, 0], "required-argument": [1, 1],
                     "removed-tool": [1, 1]}, outputs
    assert outputs["description"][1].stdout == ("session 1 (2026-07-28): 1 request: 1 same, 0 different\n"
                                                "session 2 (2026-07-28): 1 request: 1 same, 0 different\n"
                                                "2 requests: 2 same, 0 different\n"), outputs  # one run, one session


def test_a_replayed_task_is_answered_under_its_new_id(cli, tmp_path, record_file):
    """FastMCP names a task's input requests <taskId>:<hash>: the replay's answers go under the
    new task's id. It sent the recorded task's, which the server ignored (the task stayed
    input_required)."""
    recording = tmp_path / "asked.jsonl"
    flags = ("--era", "2026-07-28", "--page-ms", "1", "--no-listen", "--task-scoped-keys")
    result = cli(stdio_command(*flags), "--record", recording, "--elicit-stub", '{"name": "Ada"}', "tool", "call",
                 "ask_name", "--task", "--wait")
    assert (result.code, result.out) == (0, "Tool response:\nHello, Ada!\n"), result
    old_id, = {line["message"]["params"]["taskId"] for line in recorded(recording)
               if line.get("message", {}).get("method") == "tasks/update"}
    replayed = cli(stdio_command("--record", record_file, *flags), "replay", recording, "--ignore", "/result/status",
                   "--ignore", "/result/statusMessage", "--ignore", "/result/inputRequests", "--ignore",
                   "/result/result")
    assert replayed.code == 0, replayed
    updates = [json.loads(line)["message"]["params"] for line in record_file.read_text().splitlines()
               if json.loads(line)["message"].get("method") == "tasks/update"]
    assert updates and all(update["taskId"] != old_id for update in updates), updates
    assert [sorted(update["inputResponses"]) for update in updates] == [
        ["%s:name" % update["taskId"]] for update in updates], updates


HOST = {"name": "claude-ai", "version": "0.1.0"}


def as_host(path, protocol_version=None):
    """The recording at ``path`` rewritten as a host made it: the host's clientInfo and no
    capabilities in its initialize (or in each 2026-07-28 request's _meta)."""
    lines = []
    for line in recorded(path):
        params = (line.get("message") or {}).get("params")
        if line.get("direction") == "out" and isinstance(params, dict):
            if line["message"].get("method") == "initialize":
                params.update(clientInfo=HOST, capabilities={})
            meta = params.get("_meta") or {}
            if "io.modelcontextprotocol/clientInfo" in meta:
                meta.update({"io.modelcontextprotocol/clientInfo": HOST, "io.modelcontextprotocol/clientCapabilities": {}})
        lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n")


def declared(record_file):
    """What a replay declared to the server: (clientInfo, capabilities) of each initialize or
    2026-07-28 request the server got (tests/testserver.py --record)."""
    seen = []
    for line in record_file.read_text().splitlines():
        message = json.loads(line)["message"]
        params = message.get("params") or {}
        meta = params.get("_meta") or {}
        if message.get("method") == "initialize":
            seen.append((params["clientInfo"], params["capabilities"]))
        elif "io.modelcontextprotocol/clientInfo" in meta:
            seen.append((meta["io.modelcontextprotocol/clientInfo"], meta["io.modelcontextprotocol/clientCapabilities"]))
    return seen


@pytest.mark.parametrize("era", ["both", "2025-11-25"])
def test_a_replay_declares_what_the_recorded_host_declared(cli, tmp_path, record_file, era):
    """A host's recording replayed with mcp-tui's clientInfo and capabilities (elicitation,
    sampling, roots) got a server's answers to mcp-tui, not the host's; --as-mcp-tui asks for
    that."""
    recording = tmp_path / "host.jsonl"
    assert cli(stdio_command("--era", era), "--record", recording, "tool", "call", "echo", "message=hi").code == 0
    as_host(recording)
    replayed = cli(stdio_command("--era", era, "--record", record_file), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    assert "replaying the recording as the recorded host claude-ai 0.1.0" in replayed.err, replayed
    seen = declared(record_file)
    assert seen and all(info == HOST and capabilities == {} for info, capabilities in seen), seen
    record_file.unlink()
    replayed = cli(stdio_command("--era", era, "--record", record_file), "replay", recording, "--as-mcp-tui")
    assert replayed.code == 0, replayed
    seen = declared(record_file)
    assert seen and all(info["name"] == "mcp-tui" and "sampling" in capabilities for info, capabilities in seen), seen


def test_a_recorded_host_that_declared_no_object_is_replayed_as_mcp_tui_there(cli, tmp_path, record_file):
    """Hostile: clientInfo and capabilities that are not objects are not declared (nor a traceback)."""
    recording = tmp_path / "odd.jsonl"
    assert cli(stdio_command("--era", "2025-11-25"), "--record", recording, "tool", "call", "echo", "message=hi").code == 0
    text = recording.read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:
        if (line.get("message") or {}).get("method") == "initialize":
            line["message"]["params"].update(clientInfo="claude", capabilities=[1])
    recording.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    replayed = cli(stdio_command("--era", "2025-11-25", "--record", record_file), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    (info, capabilities), = declared(record_file)
    assert info["name"] == "mcp-tui" and "sampling" in capabilities, (info, capabilities)


def test_a_2025_recording_replays_in_2025_without_protocol_version(cli, tmp_path):
    """Replayed in auto mode, a 2025-11-25 tool list met the 2026-07-28 one: each tool's
    execution.taskSupport reported gone, breaking (rc 1)."""
    recording = tmp_path / "old.jsonl"
    assert cli(stdio_command(), "--protocol-version", "2025-11-25", "--record", recording, "tool", "list").code == 0
    replayed = cli(stdio_command(), "replay", recording, "--format", "json")
    assert replayed.code == 0, replayed
    assert replayed.json()["summary"]["different"] == 0, replayed.out
    assert [(s["protocolVersion"], s["era"]) for s in replayed.json()["sessions"]] == [("2025-11-25", "legacy")]
    told = cli(stdio_command(), "--protocol-version", "2026-07-28", "replay", recording, "--format", "json")
    assert told.code == 1 and told.json()["sessions"][0]["protocolVersion"] == "2026-07-28", told


def test_a_log_of_a_2026_run_then_a_2025_run_replays_each_in_its_era(cli, tmp_path):
    recording = tmp_path / "both.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "list").code == 0
    assert cli(stdio_command(), "--protocol-version", "2025-11-25", "--record", recording, "tool", "list").code == 0
    replayed = cli(stdio_command(), "replay", recording, "--format", "json")
    assert replayed.code == 0, replayed
    document = replayed.json()
    assert [(s["session"], s["protocolVersion"], s["requests"], s["different"]) for s in document["sessions"]] == [
        (1, "2026-07-28", 1, 0), (2, "2025-11-25", 1, 0)], document
    assert [(r["request"], r["session"], r["same"]) for r in document["requests"]] == [(1, 1, True), (2, 2, True)]
    text = cli(stdio_command(), "replay", recording)
    assert (text.code, text.out) == (0, "session 1 (2026-07-28): 1 request: 1 same, 0 different\n"
                                        "session 2 (2025-11-25): 1 request: 1 same, 0 different\n"
                                        "2 requests: 2 same, 0 different\n"), text


def test_a_tap_log_split_at_each_opening_request_replays_each_session(cli, tmp_path):
    """A log with no line between two host sessions (a host that opened again on one tap): the
    second initialize starts a session of its own."""
    recording = tmp_path / "two.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "list").code == 0
    assert cli(stdio_command(), "--protocol-version", "2025-11-25", "--record", recording, "tool", "list").code == 0
    lines = [line for line in recording.read_text().splitlines() if '"recording"' not in line]
    recording.write_text("\n".join(lines) + "\n")
    replayed = cli(stdio_command(), "replay", recording, "--format", "json")
    assert replayed.code == 0, replayed
    assert [s["protocolVersion"] for s in replayed.json()["sessions"]] == ["2026-07-28", "2025-11-25"], replayed.out


@pytest.mark.parametrize("era", ["both", "2025-11-25"])
def test_a_replay_polls_a_task_as_often_as_the_server_asks(cli, tmp_path, record_file, era):
    """The server asks for a poll every 1.5 s: the replay polled every 100 ms (about 20 tasks/get
    for a task of 2 s)."""
    recording = tmp_path / "task.jsonl"
    server = ("--era", era, "--page-ms", "1000", "--poll-ms", "1500", "--no-listen")
    result = cli(stdio_command(*server), "--record", recording, "tool", "call", "render_report", "quarter=Q3",
                 "pages=2", "--task", "--wait")
    assert result.code == 0, result
    # As a host that polls rather than waits on tasks/result (mcp-tui's way under 2025-11-25)
    lines, results = recorded(recording), set()
    for line in lines:
        if (line.get("message") or {}).get("method") == "tasks/result":
            results.add(line["message"]["id"])
    recording.write_text("".join(json.dumps(line) + "\n" for line in lines
                                 if (line.get("message") or {}).get("id") not in results))
    replayed = cli(stdio_command(*server, "--record", record_file), "replay", recording, "--format", "json",
                   "--ignore", "/result/statusMessage")
    assert replayed.code == 0, replayed
    recorded_polls = [line for line in recording.read_text().splitlines() if '"tasks/get"' in line]
    polls = [line for line in record_file.read_text().splitlines() if '"tasks/get"' in line]
    # Each recorded poll once, and the last (completed) until the task ends: every 1.5 s of 2.
    assert len(recorded_polls) <= len(polls) <= len(recorded_polls) + 3, (len(polls), len(recorded_polls))


def test_a_masked_value_in_the_recording_is_not_a_change(cli, tmp_path):
    """A tap masks a host's secrets (env:FINGERPRINT): the replay gets the real value, which is
    not a change (nor shown)."""
    recording = tmp_path / "masked.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "call", "echo", "message=hi").code == 0
    recording.write_text(recording.read_text().replace('"text": "hi"', '"text": "key env:22b07ade"'))
    assert "env:22b07ade" in recording.read_text()
    replayed = cli(stdio_command(), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different; 1 masked value not compared\n"), \
        replayed
    as_json = cli(stdio_command(), "replay", recording, "--format", "json")
    assert as_json.json()["requests"][0]["masked"] == ["/result/content/0/text"], as_json.out
    assert as_json.json()["summary"]["masked"] == 1 and "hi" not in as_json.out, as_json.out


def test_a_legacy_recording_without_its_initialize_replays_in_2025(cli, tmp_path):
    """The TUI's debug `s` saves the rows marked, perhaps without the initialize: its requests
    are labelled legacy, and are replayed in 2025-11-25 (what mcp-tui asks for first), not in
    auto mode, which a server of both eras answers in 2026-07-28."""
    recording = tmp_path / "rows.jsonl"
    assert cli(stdio_command(), "--protocol-version", "2025-11-25", "--record", recording, "tool", "list").code == 0
    kept = [line for line in recorded(recording) if (line.get("message") or {}).get("id") != 1
            and (line.get("message") or {}).get("method") != "notifications/initialized"]
    assert not [line for line in kept if (line.get("message") or {}).get("method") == "initialize"], kept
    recording.write_text("".join(json.dumps(line) + "\n" for line in kept))
    replayed = cli(stdio_command(), "replay", recording)
    assert (replayed.code, replayed.out) == (0, "1 request: 1 same, 0 different\n"), replayed
    assert "replaying the recording as mcp-tui, 2025-11-25" in replayed.err, replayed


def test_a_masked_value_a_replay_must_send_is_said(cli, tmp_path):
    """A request that holds a masked value goes out with the label: the replay says so, rather
    than let the server's answer to the label pass for its answer to the secret."""
    recording = tmp_path / "masked.jsonl"
    assert cli(stdio_command(), "--record", recording, "tool", "call", "echo", "message=hi").code == 0
    recording.write_text(recording.read_text().replace('"message": "hi"', '"message": "secret:0123abcd"'))
    replayed = cli(stdio_command(), "replay", recording)
    assert replayed.code == 1, replayed  # echo answers the label, not the recorded hi
    assert ("request 1 holds a masked value (the recording has no secret there): sent as recorded, the label in "
            "place of the value\n") in replayed.err, replayed
