"""`mcp-tui mock FILE`: a recording served as an MCP server. A session recorded against the
test server with --record is served over stdio and over Streamable HTTP (--listen), and
mcp-tui run against the mock prints what it printed against the real server; a request the
recording lacks is a miss (an error naming the closest recorded request, exit 1); masked
recordings, hostile strings and bad files."""
import json
import subprocess

import pytest

from conftest import MCP_TUI, MCP_TUI_PROCESS, stdio_command

ECHO_REQUEST = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo",
                                                                              "arguments": {"message": "hi"}}}


def mock_command(recording, *flags):
    """The one-string stdio connection that runs `mcp-tui mock RECORDING`."""
    return stdio_command("mock", str(recording), *flags, script=MCP_TUI)


def write_recording(path, messages):
    """A recording of (direction, message) pairs, as --record writes one."""
    lines = [{"recording": 1, "started": "2026-01-01T00:00:00Z"}]
    lines += [{"t": 0.0, "direction": direction, "era": "modern", "transport": "stdio", "message": message}
              for direction, message in messages]
    path.write_text("".join(json.dumps(line, sort_keys=True) + "\n" for line in lines))
    return path


def answer(message_id, result):
    return {"jsonrpc": "2.0", "id": message_id, "result": result}


def lines_of(text):
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_mcp_tui_gets_the_recorded_answers_from_a_mock_over_stdio(cli, tmp_path, era):
    recording = tmp_path / "session.jsonl"
    command = ("tool", "call", "long_operation", "steps=3", "step_ms=10")
    real = cli(stdio_command("--era", era), "--no-cache", "--record", recording, *command)
    assert real.code == 0, real
    mocked = cli(mock_command(recording), "--no-cache", *command)
    assert (mocked.code, mocked.out, mocked.err) == (0, real.out, real.err)
    assert "Done after 3 steps" in mocked.out
    real_json = cli(stdio_command("--era", era), "--no-cache", "--record", recording, "--format", "json",
                    "--elicit-stub", '{"name": "Bob"}', "tool", "call", "ask_name")
    mocked_json = cli(mock_command(recording), "--no-cache", "--format", "json", "--elicit-stub", '{"name": "Bob"}',
                      "tool", "call", "ask_name")
    assert (mocked_json.code, mocked_json.json()) == (0, real_json.json())
    assert "Hello, Bob!" in mocked_json.out


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_mcp_tui_gets_the_recorded_answers_from_a_mock_over_http_at_its_own_url(cli, tmp_path, era):
    recording = tmp_path / "session.jsonl"
    real = cli(stdio_command("--era", era), "--no-cache", "--record", recording, "tool", "call", "echo", "message=hi")
    assert real.code == 0, real
    mock = subprocess.Popen(MCP_TUI_PROCESS + ["mock", str(recording), "--listen", "127.0.0.1:0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = mock.stderr.readline()
        assert said.startswith("mcp-tui mock: serving %s on http://127.0.0.1:" % recording), said
        url = said.split(" on ", 1)[1].strip()
        mocked = cli("--url", url, "--no-cache", "tool", "call", "echo", "message=hi")
        assert (mocked.code, mocked.out) == (0, real.out)
        guessed = cli("--url", url.rsplit("/", 2)[0] + "/mcp", "--no-cache", "tool", "call", "echo", "message=hi")
        assert guessed.code != 0 and "404" in guessed.err  # the token is the key: another path is not served
        missed = cli("--url", url, "--no-cache", "tool", "call", "echo", "message=other")
        assert missed.code == 1 and "closest recorded: tools/call" in missed.err, missed
    finally:
        mock.terminate()
        out, err = mock.communicate(timeout=30)
    assert mock.returncode == 1  # a request missed
    assert out == ""
    miss, = err.splitlines()
    assert miss.startswith("mcp-tui mock: miss: the recording has no request tools/call")


def test_a_request_the_recording_lacks_gets_an_error_naming_the_closest_and_exit_1(cli, tmp_path):
    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", answer(2, {"content": []}))])
    asked = dict(ECHO_REQUEST, id="a", params={"name": "echo", "arguments": {"message": "ho"}})
    result = cli("mock", recording, input=json.dumps(asked) + "\n" + json.dumps(dict(ECHO_REQUEST, id=3)) + "\n")
    assert result.code == 1, result
    missed, served = lines_of(result.out)
    assert missed["id"] == "a" and missed["error"]["code"] == -32602
    assert missed["error"]["message"] == (
        'mcp-tui mock: the recording has no request tools/call {"arguments":{"message":"ho"},"name":"echo"}; '
        'the closest recorded: tools/call {"arguments":{"message":"hi"},"name":"echo"}')
    assert served == answer(3, {"content": []})  # the mock went on
    assert result.err == "mcp-tui mock: miss: " + missed["error"]["message"][len("mcp-tui mock: "):] + "\n"
    unknown = cli("mock", recording, input=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}) + "\n")
    assert unknown.code == 1 and lines_of(unknown.out)[0]["error"]["code"] == -32601


def test_strict_ends_at_the_first_miss(cli, tmp_path):
    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", answer(2, {"content": []}))])
    asked = dict(ECHO_REQUEST, params={"name": "nope"})
    result = cli("mock", recording, "--strict", input=json.dumps(asked) + "\n" + json.dumps(ECHO_REQUEST) + "\n")
    assert result.code == 1, result
    only, = lines_of(result.out)
    assert "error" in only and len(result.err.splitlines()) == 1


def test_recorded_answers_come_in_order_with_the_incoming_id_as_recorded_notifications_included(cli, tmp_path):
    listing = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {"progressToken": "p1"}}}
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    progress = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "p1", "progress": 1}}
    malformed = {"jsonrpc": "2.0", "id": 6, "result": "not an object", "extra": True}
    recording = write_recording(tmp_path / "r.jsonl", [
        ("out", listing), ("in", progress), ("in", answer(5, {"tools": ["first"]})), ("in", changed),
        ("out", dict(listing, id=6)), ("in", malformed)])
    asked = [dict(listing, id=n, params={"_meta": {"progressToken": "mine-%d" % n}}) for n in (10, 11, 12)]
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    text = "".join(json.dumps(message) + "\n" for message in [notification] + asked)
    result = cli("mock", recording, input=text)
    assert (result.code, result.err) == (0, ""), result
    assert lines_of(result.out) == [
        dict(progress, params={"progressToken": "mine-10", "progress": 1}), answer(10, {"tools": ["first"]}), changed,
        dict(malformed, id=11), dict(malformed, id=12)]  # the last one again; the notification got no answer
    assert result.out.splitlines()[3] == '{"extra":true,"id":11,"jsonrpc":"2.0","result":"not an object"}'  # as in the file


def test_a_recording_with_masked_values_is_refused_unless_allowed(cli, tmp_path):
    recording = write_recording(tmp_path / "r.jsonl", [
        ("out", ECHO_REQUEST), ("in", answer(2, {"content": [{"type": "text", "text": "key env:22b07ade"}]}))])
    refused = cli("mock", recording, input=json.dumps(ECHO_REQUEST) + "\n")
    assert (refused.code, refused.out) == (2, "")
    assert len(refused.err.splitlines()) == 1 and "env:22b07ade" in refused.err and "--allow-masked" in refused.err
    allowed = cli("mock", recording, "--allow-masked", input=json.dumps(ECHO_REQUEST) + "\n")
    assert allowed.code == 0
    assert lines_of(allowed.out) == [answer(2, {"content": [{"type": "text", "text": "key env:22b07ade"}]})]
    assert allowed.err == "mcp-tui mock: serving 1 masked value as recorded (env:22b07ade), not the values the " \
                          "server sent\n"


def test_hostile_strings_are_served_as_recorded_and_escaped_on_stderr(cli, tmp_path):
    hostile = "\x1b]0;pwned\x07\x1b[2J\u009b31m\u202eevil"
    recorded = answer(2, {"content": [{"type": "text", "text": hostile}]})
    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", recorded)])
    asked = dict(ECHO_REQUEST, id=3, params={"name": "echo", "arguments": {"message": hostile}})
    result = cli("mock", recording, input=json.dumps(ECHO_REQUEST) + "\n" + json.dumps(asked) + "\n", text=False)
    served, missed = result.out.splitlines()
    assert served == json.dumps(recorded, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    assert "\u009b".encode("utf-8") in served  # as recorded: UTF-8, not re-encoded
    assert json.loads(missed)["id"] == 3
    assert b"\x1b" not in result.err and "\u009b".encode("utf-8") not in result.err and b"\x07" not in result.err
    assert b"\\u001b]0;pwned" in result.err and len(result.err.splitlines()) == 1


@pytest.mark.parametrize("content, said", [
    (None, "cannot read recording"),
    ("{not json\n", "line 1 is not JSON"),
    ('{"recording": 1}\n', "holds no request to answer"),
])
def test_a_bad_recording_file_exits_2_with_one_line(cli, tmp_path, content, said):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content)
    result = cli("mock", path, input="")
    assert (result.code, result.out) == (2, ""), result
    assert len(result.err.splitlines()) == 1 and said in result.err, result


def test_mock_is_in_help_and_completion(cli):
    assert "mock" in cli("--help").out
    assert "--allow-masked" in cli("help", "mock").out
    assert "mock" in cli("completion", "bash").out


def test_a_legacy_recording_without_server_discover_answers_it_as_its_era_does_not_as_a_miss(cli, tmp_path):
    """A host of 2025-11-25 (the SDK, or mcp-tui told the version) never asks server/discover;
    mcp-tui asks it first, and a legacy server's "method not found" sends it on to initialize."""
    recording = tmp_path / "legacy.jsonl"
    command = ("tool", "call", "echo", "message=hi")
    real = cli(stdio_command("--era", "2025-11-25"), "--no-cache", "--protocol-version", "2025-11-25",
               "--record", recording, *command)
    assert real.code == 0, real
    assert "server/discover" not in recording.read_text()
    mock = subprocess.run(MCP_TUI_PROCESS + ["mock", str(recording)], capture_output=True, text=True, timeout=60,
                          input=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}) + "\n")
    assert (mock.returncode, mock.stderr) == (0, ""), mock
    assert json.loads(mock.stdout)["error"]["code"] == -32601
    mocked = cli(mock_command(recording), "--no-cache", *command)
    assert (mocked.code, mocked.out) == (0, real.out), mocked


def test_a_host_that_closed_its_end_ends_the_mock_quietly(tmp_path):
    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", answer(2, {"content": []}))])
    mock = subprocess.Popen(MCP_TUI_PROCESS + ["mock", str(recording)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    mock.stdout.close()  # the host went away without closing our stdin first
    try:
        mock.stdin.write((json.dumps(ECHO_REQUEST) + "\n").encode("utf-8") * 2000)
        mock.stdin.close()
    except BrokenPipeError:  # it may already have ended
        pass
    assert mock.wait(timeout=60) == 0
    assert mock.stderr.read() == b""


def test_listen_is_loopback_only_unless_allowed(cli, tmp_path):
    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", answer(2, {"content": []}))])
    refused = cli("mock", recording, "--listen", "0.0.0.0:0")
    assert (refused.code, refused.out) == (2, ""), refused
    assert "0.0.0.0 is not a loopback address, so other machines could reach the mock" in refused.err


def test_the_http_mock_answers_only_at_its_token_path_chunked_bodies_too(tmp_path):
    import http.client
    from urllib.parse import urlsplit

    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    recording = write_recording(tmp_path / "r.jsonl", [
        ("out", ECHO_REQUEST), ("in", changed), ("in", answer(2, {"content": []}))])
    mock = subprocess.Popen(MCP_TUI_PROCESS + ["mock", str(recording), "--listen", "127.0.0.1:0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = urlsplit(mock.stderr.readline().split(" on ", 1)[1].strip())
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)

        def ask(method, path, body=None, chunked=False):
            connection.request(method, path, body=body, encode_chunked=chunked,
                               headers={"Content-Type": "application/json",
                                        "Accept": "application/json, text/event-stream"})
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type"), response.read()

        request = json.dumps(dict(ECHO_REQUEST, id=9)).encode("utf-8")
        status, kind, body = ask("POST", url.path, iter([request[:10], request[10:]]), chunked=True)
        assert (status, kind) == (200, "text/event-stream")
        assert body.decode("utf-8") == "event: message\ndata: %s\n\nevent: message\ndata: %s\n\n" % (
            json.dumps(changed, sort_keys=True, separators=(",", ":")),
            json.dumps(answer(9, {"content": []}), sort_keys=True, separators=(",", ":")))
        assert ask("POST", url.path, json.dumps(dict(ECHO_REQUEST, id=10)))[:2] == (200, "application/json")
        assert ask("POST", url.path, json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))[0] == 202
        assert ask("GET", url.path)[0] == 405
        assert ask("POST", "/mcp", request)[0] == 404
        assert ask("POST", url.path[:-1], request)[0] == 404
    finally:
        mock.terminate()
        out, err = mock.communicate(timeout=30)
    assert (mock.returncode, out, err) == (143, "", "")


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_a_recorded_task_is_followed_to_its_result_against_the_mock(cli, tmp_path, era):
    """The task's polls get the recorded statuses in order (then the last again), so the host
    following it reaches the recorded result."""
    recording = tmp_path / "task.jsonl"
    command = ("--format", "json", "tool", "call", "render_report", "quarter=Q3", "--task", "--wait")
    real = cli(stdio_command("--era", era), "--no-cache", "--record", recording, *command)
    assert real.code == 0, real
    mocked = cli(mock_command(recording), "--no-cache", *command)
    assert (mocked.code, mocked.json()) == (0, real.json())


def test_strict_ends_the_http_mock_at_the_first_miss(tmp_path):
    import urllib.request

    recording = write_recording(tmp_path / "r.jsonl", [("out", ECHO_REQUEST), ("in", answer(2, {"content": []}))])
    mock = subprocess.Popen(MCP_TUI_PROCESS + ["mock", str(recording), "--listen", "127.0.0.1:0", "--strict"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = mock.stderr.readline().split(" on ", 1)[1].strip()
        asked = urllib.request.Request(url, data=json.dumps(dict(ECHO_REQUEST, params={"name": "nope"})).encode(),
                                       headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(asked, timeout=30) as response:
            assert "the closest recorded: tools/call" in json.loads(response.read())["error"]["message"]
        assert mock.wait(timeout=30) == 1  # ended by itself
    finally:
        if mock.poll() is None:
            mock.kill()
        out, err = mock.communicate(timeout=30)
    assert out == "" and err.startswith("mcp-tui mock: miss: ") and len(err.splitlines()) == 1
