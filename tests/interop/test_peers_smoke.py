"""The interop peers themselves work: raw JSON-RPC, no mcp-tui involved.

Each peer starts and answers `tools/list` in every era it serves: `server/discover`
plus the per-request `_meta` envelope for 2026-07-28, the `initialize` handshake for
2025-11-25. The feature tools the CLI tests rely on are exercised once on the wire.
"""
import time

import pytest

from .interop_helpers import (
    FASTMCP_SERVER,
    SDK_SERVER,
    LEGACY,
    MODERN,
    TASKS_EXT,
    HttpPeer,
    LegacySsePeer,
    RpcError,
    StdioPeer,
    initialize_params,
    modern_params,
)

SDK_TOOLS = {"echo", "add", "ask_name", "fail", "progress"}
FASTMCP_TOOLS = {"render_report", "summarize", "echo", "ask_name", "slow_job", "fail_task", "broken_task"}
TASK_CAPS = {"extensions": {TASKS_EXT: {}}, "elicitation": {"form": {}}}


@pytest.fixture
def stdio_peer(tmp_path, peer_zygotes):
    peers = []

    def start(python, script):
        peer = StdioPeer(peer_zygotes.argv(python, script, "--transport", "stdio"),
                         tmp_path / ("stderr-%d.log" % len(peers)), env=peer_zygotes.env, cwd=peer_zygotes.cwd)
        peers.append(peer)
        return peer

    yield start
    for peer in peers:
        peer.close()


def tool_names(result):
    return {tool["name"] for tool in result["tools"]}


def text_content(result):
    return "\n".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def wait_for_task(peer, task_id, statuses, capabilities=TASK_CAPS, limit=30.0):
    """Poll tasks/get at the server's pollIntervalMs until the status is one of `statuses`."""
    deadline = time.monotonic() + limit
    while True:
        task = peer.request("tasks/get", modern_params({"taskId": task_id}, capabilities))
        assert task["resultType"] == "complete"
        if task["status"] in statuses:
            return task
        assert time.monotonic() < deadline, "task %s still %s after %ss" % (task_id, task["status"], limit)
        time.sleep(task.get("pollIntervalMs", 100) / 1000.0)  # the protocol's own pacing


# --------------------------------------------------------------------------- SDK, stdio


def test_sdk_stdio_modern(stdio_peer, sdk_python):
    peer = stdio_peer(sdk_python, SDK_SERVER)
    discover = peer.request("server/discover", modern_params())
    assert MODERN in discover["supportedVersions"]
    assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-tui-sdk-peer"
    assert SDK_TOOLS <= tool_names(peer.request("tools/list", modern_params()))

    # MRTR elicitation: input_required, then the retry with inputResponses + requestState.
    caps = {"elicitation": {"form": {}}}
    first = peer.request("tools/call", modern_params({"name": "ask_name", "arguments": {}}, caps))
    assert first["resultType"] == "input_required"
    (key, ask), = first["inputRequests"].items()
    assert ask["method"] == "elicitation/create"
    assert "name" in ask["params"]["requestedSchema"]["properties"]
    retry = modern_params(
        {
            "name": "ask_name",
            "arguments": {},
            "inputResponses": {key: {"action": "accept", "content": {"name": "Luca"}}},
            "requestState": first["requestState"],
        },
        caps,
    )
    assert text_content(peer.request("tools/call", retry)) == "Hello, Luca!"

    added = peer.request("tools/call", modern_params({"name": "add", "arguments": {"a": 2, "b": 3}}))
    assert added["structuredContent"] == {"result": 5}
    failed = peer.request("tools/call", modern_params({"name": "fail", "arguments": {}}))
    assert failed["isError"] is True
    progress = peer.request(
        "tools/call", modern_params({"name": "progress", "arguments": {"steps": 2}}, progressToken="p1")
    )
    assert text_content(progress) == "done after 2 steps"
    assert [n["params"]["progress"] for n in peer.notifications if n["method"] == "notifications/progress"] == [1, 2]


def test_sdk_stdio_legacy(stdio_peer, sdk_python):
    peer = stdio_peer(sdk_python, SDK_SERVER)
    init = peer.request("initialize", initialize_params({"elicitation": {}}))
    assert init["protocolVersion"] == LEGACY
    assert init["serverInfo"]["name"] == "mcp-tui-sdk-peer"
    peer.notify("notifications/initialized")
    assert SDK_TOOLS <= tool_names(peer.request("tools/list", {}))
    assert peer.request("ping", {}) == {}

    asked = []

    def elicit(message):
        asked.append(message)
        return {"action": "accept", "content": {"name": "Luca"}}

    result = peer.request("tools/call", {"name": "ask_name", "arguments": {}}, on_request=elicit)
    assert text_content(result) == "Hello, Luca!"
    assert asked and asked[0]["method"] == "elicitation/create"


# --------------------------------------------------------------------------- SDK, HTTP


def test_sdk_http_modern(sdk_http):
    assert sdk_http.url.startswith("http://127.0.0.1:") and sdk_http.url.endswith("/mcp")
    peer = HttpPeer(sdk_http.url)
    discover = peer.request("server/discover", modern_params())
    assert peer.last_status == 200
    assert MODERN in discover["supportedVersions"]
    assert "mcp-session-id" not in peer.last_headers
    assert SDK_TOOLS <= tool_names(peer.request("tools/list", modern_params()))
    result = peer.request("tools/call", modern_params({"name": "echo", "arguments": {"message": "hi"}}))
    assert text_content(result) == "hi"
    read = peer.request("resources/read", modern_params({"uri": "greeting://Bob"}))
    assert read["contents"][0]["text"] == "Hello, Bob!"
    prompt = peer.request("prompts/get", modern_params({"name": "greet", "arguments": {"name": "Bob"}}))
    assert "Bob" in prompt["messages"][0]["content"]["text"]
    with pytest.raises(RpcError) as info:
        peer.request("tools/call", modern_params({"name": "ask_name", "arguments": {}}))
    assert info.value.code == -32021  # elicitation not declared on this request


def test_sdk_http_legacy(sdk_http):
    peer = HttpPeer(sdk_http.url)
    init = peer.initialize({"elicitation": {}})
    assert init["protocolVersion"] == LEGACY
    assert peer.session_id
    assert SDK_TOOLS <= tool_names(peer.request("tools/list", {}, modern=False))
    result = peer.request(
        "tools/call",
        {"name": "ask_name", "arguments": {}},
        modern=False,
        on_request=lambda msg: {"action": "accept", "content": {"name": "Luca"}},
    )
    assert text_content(result) == "Hello, Luca!"


def test_sdk_sse_legacy(sdk_sse):
    assert sdk_sse.url.startswith("http://127.0.0.1:") and sdk_sse.url.endswith("/sse")
    peer = LegacySsePeer(sdk_sse.url)
    try:
        init = peer.request("initialize", initialize_params({"elicitation": {}}))
        assert init["protocolVersion"] == LEGACY
        peer.notify("notifications/initialized")
        assert SDK_TOOLS <= tool_names(peer.request("tools/list", {}))
        result = peer.request(
            "tools/call",
            {"name": "ask_name", "arguments": {}},
            on_request=lambda msg: {"action": "accept", "content": {"name": "Luca"}},
        )
        assert text_content(result) == "Hello, Luca!"
    finally:
        peer.close()


# --------------------------------------------------------------------------- FastMCP tasks


def test_fastmcp_stdio_modern(stdio_peer, fastmcp_python):
    peer = stdio_peer(fastmcp_python, FASTMCP_SERVER)
    discover = peer.request("server/discover", modern_params())
    assert MODERN in discover["supportedVersions"]
    assert TASKS_EXT in discover["capabilities"]["extensions"]
    assert FASTMCP_TOOLS <= tool_names(peer.request("tools/list", modern_params()))

    created = peer.request("tools/call", modern_params({"name": "render_report", "arguments": {"quarter": "Q4"}}, TASK_CAPS))
    assert created["resultType"] == "task"
    assert created["status"] == "working"
    done = wait_for_task(peer, created["taskId"], {"completed", "failed", "cancelled"})
    assert done["status"] == "completed"
    assert text_content(done["result"]) == "Q4 revenue: $5.1M across 1,502 orders"

    with pytest.raises(RpcError) as info:
        peer.request("tools/call", modern_params({"name": "render_report", "arguments": {}}))
    assert info.value.code == -32021


def test_fastmcp_stdio_legacy(stdio_peer, fastmcp_python):
    peer = stdio_peer(fastmcp_python, FASTMCP_SERVER)
    init = peer.request("initialize", initialize_params())
    assert init["protocolVersion"] == LEGACY
    peer.notify("notifications/initialized")
    assert FASTMCP_TOOLS <= tool_names(peer.request("tools/list", {}))
    assert text_content(peer.request("tools/call", {"name": "echo", "arguments": {"message": "hi"}})) == "hi"


def test_fastmcp_http_modern_task_lifecycle(fastmcp_http):
    peer = HttpPeer(fastmcp_http.url)
    discover = peer.request("server/discover", modern_params())
    assert TASKS_EXT in discover["capabilities"]["extensions"]
    assert FASTMCP_TOOLS <= tool_names(peer.request("tools/list", modern_params()))

    # Never a task: answered directly even when the extension is declared.
    direct = peer.request("tools/call", modern_params({"name": "echo", "arguments": {"message": "hi"}}, TASK_CAPS))
    assert direct.get("resultType", "complete") == "complete" and text_content(direct) == "hi"
    # Optional: direct without the declaration, a task with it.
    plain = peer.request("tools/call", modern_params({"name": "summarize", "arguments": {}}))
    assert plain.get("resultType", "complete") == "complete"
    tasked = peer.request("tools/call", modern_params({"name": "summarize", "arguments": {}}, TASK_CAPS))
    assert tasked["resultType"] == "task"

    # input_required, answered with tasks/update.
    created = peer.request("tools/call", modern_params({"name": "ask_name", "arguments": {}}, TASK_CAPS))
    waiting = wait_for_task(peer, created["taskId"], {"input_required", "completed", "failed", "cancelled"})
    assert waiting["status"] == "input_required"
    (key, ask), = waiting["inputRequests"].items()
    assert ask["method"] == "elicitation/create"
    ack = peer.request(
        "tasks/update",
        modern_params({"taskId": created["taskId"], "inputResponses": {key: {"action": "accept", "content": {"name": "Luca"}}}}, TASK_CAPS),
    )
    assert ack["resultType"] == "complete"
    done = wait_for_task(peer, created["taskId"], {"completed", "failed", "cancelled"})
    assert text_content(done["result"]) == "Hello, Luca!"

    # Cancel a slow one.
    slow = peer.request("tools/call", modern_params({"name": "slow_job", "arguments": {}}, TASK_CAPS))
    ack = peer.request("tasks/cancel", modern_params({"taskId": slow["taskId"]}, TASK_CAPS))
    assert ack["resultType"] == "complete"
    assert wait_for_task(peer, slow["taskId"], {"completed", "failed", "cancelled"})["status"] == "cancelled"


def test_fastmcp_http_legacy(fastmcp_http):
    peer = HttpPeer(fastmcp_http.url)
    init = peer.initialize()
    assert init["protocolVersion"] == LEGACY
    assert FASTMCP_TOOLS <= tool_names(peer.request("tools/list", {}, modern=False))
