"""mcp-tui's CLI against a server built with the official Python SDK (mcp 2.3.0).

Every case runs in each era the peer serves, over each transport: stdio, streamable
HTTP and the legacy HTTP+SSE transport, with --protocol-version left at auto, forced to
2026-07-28 and forced to 2025-11-25 (legacy HTTP+SSE carries no 2026-07-28 era).
The SDK peer is dual-era, so `auto` must end up on 2026-07-28 over stdio and streamable
HTTP, and on the legacy handshake over HTTP+SSE. Secondary checks (JSON variants,
describe, typed arguments, progress) run once per transport with the era on auto.
"""
import json
import re

import pytest

from .conftest import PeerProcess
from .interop_helpers import SDK_SERVER, describe, json_output, tool_response

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
SDK_TOOLS = ("echo", "add", "ask_name", "fail", "progress")

CASES = [
    ("stdio", "auto", MODERN),
    ("stdio", MODERN, MODERN),
    ("stdio", LEGACY, LEGACY),
    ("http", "auto", MODERN),
    ("http", MODERN, MODERN),
    ("http", LEGACY, LEGACY),
    ("sse", "auto", LEGACY),
    ("sse", LEGACY, LEGACY),
]


class Connection(object):
    def __init__(self, transport, requested, expected, args):
        self.transport = transport
        self.requested = requested
        self.expected = expected
        self.args = args

    @property
    def modern(self):
        return self.expected == MODERN


def _connect(request, transport, requested, expected):
    if transport == "stdio":
        # A generous probe timeout: on a loaded 2-core CI machine the peer can take
        # longer than mcp-tui's default to import; the recovery path that a short
        # probe timeout exercises has its own test below.
        args = [request.getfixturevalue("sdk_stdio_cmd"), "--probe-timeout", "60"]
    elif transport == "http":
        args = ["--url", request.getfixturevalue("sdk_http").url]
    else:
        args = ["--url", request.getfixturevalue("sdk_sse").url, "--transport", "sse"]
    if requested != "auto":  # auto is the default: leave the flag out, as a user would
        args += ["--protocol-version", requested]
    args += ["--timeout", "30"]
    return Connection(transport, requested, expected, args)


@pytest.fixture(params=CASES, ids=["%s-%s" % (t, v) for t, v, _ in CASES])
def sdk(request):
    """Every transport x era combination."""
    return _connect(request, *request.param)


AUTO_CASES = [case for case in CASES if case[1] == "auto"]


@pytest.fixture(params=AUTO_CASES, ids=["%s-%s" % (t, v) for t, v, _ in AUTO_CASES])
def sdk_auto(request):
    """Each transport with the era left to auto-detection (for the secondary checks)."""
    return _connect(request, *request.param)


def ok(result):
    assert result.returncode == 0, describe(result)
    return result


def first_words(stdout):
    return [line.split()[0] for line in stdout.splitlines() if line.strip()]


# --------------------------------------------------------------------------- server / ping


def test_server_reports_name_and_negotiated_protocol(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "server"))
    assert re.search(r"^Name:\s+mcp-tui-sdk-peer$", result.stdout, re.M), describe(result)
    assert re.search(r"^Version:\s+1\.0\.0$", result.stdout, re.M), describe(result)
    assert re.search(r"^Protocol:\s+%s$" % re.escape(sdk.expected), result.stdout, re.M), describe(result)


def test_server_json_names_the_era(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "--format", "json", "server"))
    doc = json_output(result)
    assert doc["serverInfo"]["name"] == "mcp-tui-sdk-peer"
    assert doc["protocolVersion"] == sdk.expected
    assert doc["era"] == ("modern" if sdk.modern else "legacy"), describe(result)


def test_ping(run_cli, sdk):
    """The reply names the server and the method that asked: 2026-07-28 has no ping of its own."""
    result = ok(run_cli(*sdk.args, "ping"))
    method = "server/discover" if sdk.modern else "ping"
    assert re.fullmatch(r"pong from mcp-tui-sdk-peer in \d+\.\d ms \(%s\)\n" % re.escape(method), result.stdout), \
        describe(result)


# --------------------------------------------------------------------------- tools


def test_tool_list_names_every_tool(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "tool", "list"))
    names = first_words(result.stdout)
    for tool in SDK_TOOLS:
        assert tool in names, describe(result)


def test_tool_list_json(run_cli, sdk_auto):
    doc = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "tool", "list")))
    tools = {tool["name"]: tool for tool in doc["result"]["tools"]}
    assert set(SDK_TOOLS) <= set(tools)
    assert tools["add"]["inputSchema"]["properties"]["a"]["type"] == "integer"


def test_tool_describe_shows_the_schema(run_cli, sdk_auto):
    result = ok(run_cli(*sdk_auto.args, "tool", "describe", "add"))
    assert "add" in result.stdout and "Add two integers." in result.stdout, describe(result)
    assert "integer" in result.stdout, describe(result)


def test_a_misspelt_tool_or_prompt_is_a_usage_error_with_a_suggestion(run_cli, sdk_auto):
    tool = run_cli(*sdk_auto.args, "--quiet", "tool", "call", "ech", "message=hi")
    assert tool.returncode == 2, describe(tool)
    assert tool.stderr == "mcp-tui: the server has no tool named 'ech'; nothing was sent (did you mean 'echo'?)\n"
    prompt = run_cli(*sdk_auto.args, "prompt", "get", "gret", "name=Bob")
    assert prompt.returncode == 2, describe(prompt)
    assert prompt.stderr == "mcp-tui: the server has no prompt named 'gret'; nothing was sent (did you mean 'greet'?)\n"
    unknown = run_cli(*sdk_auto.args, "--format", "json", "tool", "call", "nope")
    assert unknown.returncode == 2, describe(unknown)
    assert json.loads(unknown.stderr)["error"] == {
        "kind": "usage", "message": "the server has no tool named 'nope'; nothing was sent", "exitCode": 2,
        "hint": "its tools: add, ask_name, echo, fail, progress"}


def test_tool_call_echo(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "tool", "call", "echo", "message=hi"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["hi"], describe(result)
    assert "Error response from tool:" not in result.stdout


def test_tool_call_add_json_structured_content(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "--format", "json", "tool", "call", "add", "a=2", "b=3"))
    doc = json_output(result)
    assert doc["result"]["structuredContent"] == {"result": 5}, describe(result)
    assert doc["result"]["content"][0]["text"] == "5"
    assert not doc["result"].get("isError")


def test_tool_call_add_with_json_values_and_args_json(run_cli, sdk_auto):
    typed = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "tool", "call", "add", "a:=20", "b:=22")))
    assert typed["result"]["structuredContent"] == {"result": 42}
    whole = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "tool", "call", "add", "--args-json", '{"a": 1, "b": 2}')))
    assert whole["result"]["structuredContent"] == {"result": 3}


def test_args_json_from_a_file_as_curl_takes_it(run_cli, sdk_auto, tmp_path):
    path = tmp_path / "args.json"
    path.write_text('{"a": 40, "b": 2}')
    whole = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "tool", "call", "add", "--args-json",
                                   "@%s" % path)))
    assert whole["result"]["structuredContent"] == {"result": 42}
    missing = run_cli(*sdk_auto.args, "--quiet", "tool", "call", "add", "--args-json", "@%s" % (tmp_path / "nope"))
    assert missing.returncode == 2, describe(missing)
    assert missing.stderr == "mcp-tui: cannot read %s: No such file or directory\n" % (tmp_path / "nope")


def test_elicitation_answered_with_stub(run_cli, sdk):
    # 2026-07-28: an MRTR round (input_required, then a retry with inputResponses);
    # legacy: a server-to-client elicitation/create request during the call.
    result = ok(run_cli(*sdk.args, "--elicit-stub", '{"name": "Luca"}', "tool", "call", "ask_name"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Hello, Luca!"], describe(result)


def test_is_error_result_exits_zero(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "tool", "call", "fail"))
    body = tool_response(result.stdout, header="Error response from tool:")
    assert body is not None, describe(result)
    assert "Deliberate failure: something went wrong" in "\n".join(body), describe(result)
    assert "Tool response:" not in result.stdout


def test_is_error_result_json(run_cli, sdk_auto):
    doc = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "tool", "call", "fail", "reason=bad input")))
    assert doc["result"]["isError"] is True
    assert "Deliberate failure: bad input" in doc["result"]["content"][0]["text"]


def test_progress_tool_completes(run_cli, sdk_auto):
    result = ok(run_cli(*sdk_auto.args, "tool", "call", "progress", "steps=2"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["done after 2 steps"], describe(result)


# --------------------------------------------------------------------------- resources and prompts


def test_resource_list_and_templates(run_cli, sdk):
    listed = ok(run_cli(*sdk.args, "resource", "list"))
    assert "info://server" in listed.stdout, describe(listed)
    templates = ok(run_cli(*sdk.args, "resource", "templates"))
    assert "greeting://{name}" in templates.stdout, describe(templates)


def test_resource_read(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "resource", "read", "info://server"))
    assert "mcp-tui-sdk-peer 1.0.0: official SDK interop peer" in result.stdout, describe(result)


def test_resource_read_from_template(run_cli, sdk):
    result = ok(run_cli(*sdk.args, "resource", "read", "greeting://Bob"))
    assert "Hello, Bob!" in result.stdout, describe(result)


def test_resource_read_json(run_cli, sdk_auto):
    doc = json_output(ok(run_cli(*sdk_auto.args, "--format", "json", "resource", "read", "greeting://Ann")))
    text = json.dumps(doc)
    assert "Hello, Ann!" in text and "greeting://Ann" in text


def test_prompt_list_and_get(run_cli, sdk):
    listed = ok(run_cli(*sdk.args, "prompt", "list"))
    assert re.search(r"^greet\b", listed.stdout, re.M), describe(listed)
    assert "Ask the model to greet someone by name." in listed.stdout, describe(listed)
    result = ok(run_cli(*sdk.args, "prompt", "get", "greet", "name=Bob"))
    assert "Please write a warm greeting for Bob." in result.stdout, describe(result)


# --------------------------------------------------------------------------- a stdio probe that times out


def test_stdio_probe_timeout_then_refused_initialize_respawns_modern(run_cli, sdk_stdio_cmd):
    """The probe (server/discover) times out while the peer is still importing, so
    mcp-tui sends `initialize` on the same process; but the SDK locks a stdio process to
    the era of its first request, answers the late discover and refuses `initialize`
    with -32022. mcp-tui must then respawn the server and use the era the probe revealed
    (brief section 1.6), not fail."""
    result = ok(run_cli(sdk_stdio_cmd, "--probe-timeout", "0.01", "--timeout", "30", "server"))
    assert re.search(r"^Protocol:\s+%s$" % MODERN, result.stdout, re.M), describe(result)
    echoed = ok(run_cli(sdk_stdio_cmd, "--probe-timeout", "0.01", "--timeout", "30", "tool", "call", "echo", "message=hi"))
    assert tool_response(echoed.stdout)[:1] == ["hi"], describe(echoed)


# --------------------------------------------------------------------------- the wrong transport forced


def test_transport_sse_against_streamable_http_says_to_leave_it_out(run_cli, sdk_http):
    result = run_cli("--url", sdk_http.url, "--transport", "sse", "--timeout", "30", "tool", "list")
    assert result.returncode == 1, describe(result)
    assert result.stderr.startswith("mcp-tui: HTTP 400 Bad Request: "), describe(result)
    assert result.stderr.endswith(" (the server may speak Streamable HTTP: leave out --transport sse)\n"), describe(result)


def test_a_kept_2025_11_25_session_survives_a_restart_of_the_sdk_server(run_cli, sdk_python, peer_log_dir):
    """The Python SDK answers a session id it does not know with HTTP 404 and a -32600
    "Session not found" body; the keeper took that for the command's answer and every
    @NAME command failed with it. The 404 is what says the session is gone: start anew."""
    import socket

    with socket.socket() as probe:  # one port for both lives of the server, as a restart keeps it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sdk_python, SDK_SERVER, "--transport", "streamable-http", "--port", port]
    first = PeerProcess(argv, "sdk-restart-1", peer_log_dir).start()
    second = None
    try:
        opened = run_cli("session", "open", "restarted", "--url", first.url, "--protocol-version", LEGACY)
        assert opened.returncode == 0, describe(opened)
        assert tool_response(ok(run_cli("@restarted", "tool", "call", "echo", "message=before")).stdout) == ["before"]
        first.stop()
        second = PeerProcess(argv, "sdk-restart-2", peer_log_dir).start()
        after = ok(run_cli("@restarted", "tool", "call", "echo", "message=after"))
        assert tool_response(after.stdout) == ["after"], describe(after)
        assert "The server had forgotten session restarted; the keeper initialized a new one" in after.stderr
    finally:
        run_cli("session", "close", "restarted")
        first.stop()
        if second is not None:
            second.stop()


def test_log_level_on_a_server_without_logging_says_it_has_no_effect(run_cli, sdk_auto):
    """The SDK peer offers no logging capability: --log-level was dropped without a word."""
    result = ok(run_cli(*sdk_auto.args, "--log-level", "debug", "tool", "call", "echo", "message=hi"))
    assert tool_response(result.stdout) == ["hi"], describe(result)
    assert ("warning: mcp-tui-sdk-peer does not offer logging (no logging capability); --log-level has no effect"
            in result.stderr.splitlines()), describe(result)
