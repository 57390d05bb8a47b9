"""The cache of 2026-07-28 CacheableResults (issue 16): server/discover and list results
kept in the state directory for their ttlMs, so that a warm `tool call` is one request."""
import json
import os
import stat
import sys
import threading

import pytest

from conftest import MCP_TUI, stdio_command

sys.path.insert(0, str(MCP_TUI.parent))
import mcp_tui  # noqa: E402


def methods(server, since=0):
    return [r["message"].get("method") for r in server.records()[since:]]


def http_requests(result):
    """The HTTP requests the --trace on stderr shows."""
    return [line for line in result.err.splitlines() if "⇄ HTTP " in line]


def cache_file(state_dir):
    return state_dir / "cache.json"


def edit_cached_tools(state_dir, change):
    """Change the kept tools/list page as if the server had said something else earlier."""
    path = cache_file(state_dir)
    entries = json.loads(path.read_text(encoding="utf-8"))
    pages = [entry for key, entry in entries.items() if " tools/list " in key]
    assert len(pages) == 1, list(entries)
    change(pages[0]["result"]["tools"])
    path.write_text(json.dumps(entries), encoding="utf-8")


def test_a_warm_tool_call_over_http_is_one_request(cli, start_server, state_dir):
    server = start_server()
    cold = cli("--url", server.url, "tool", "call", "echo", "message=hi")
    assert cold.code == 0 and "hi" in cold.out, cold
    assert methods(server) == ["server/discover", "tools/list", "tools/call"]
    warm = cli("--url", server.url, "--trace", "tool", "call", "echo", "message=again")
    assert warm.code == 0 and "again" in warm.out, warm
    assert methods(server, 3) == ["tools/call"]
    assert len(http_requests(warm)) == 1, warm.err


def test_the_cache_file_is_private_and_holds_no_url_in_clear(cli, start_server, state_dir):
    server = start_server()
    assert cli("--url", server.url + "?api_key=s3cret-value", "tool", "list").code == 0
    path = cache_file(state_dir)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text(encoding="utf-8")
    assert "s3cret-value" not in text and "127.0.0.1" not in text
    assert "echo" in text  # the tool list itself is kept


def test_tool_list_asks_for_the_list_but_not_for_discover(cli, start_server):
    server = start_server()
    assert cli("--url", server.url, "tool", "list").code == 0
    warm = cli("--url", server.url, "tool", "list")
    assert warm.code == 0 and "echo" in warm.out
    assert methods(server, 2) == ["tools/list"]  # its reply refreshes the kept list


def test_no_cache_asks_every_time(cli, start_server):
    server = start_server()
    for _ in range(2):
        assert cli("--url", server.url, "--no-cache", "tool", "call", "echo", "message=hi").code == 0
    assert methods(server) == ["server/discover", "tools/list", "tools/call"] * 2


def test_a_zero_ttl_keeps_nothing(cli, start_server):
    server = start_server("--cache-ttl-ms", "0")
    for _ in range(2):
        assert cli("--url", server.url, "tool", "call", "echo", "message=hi").code == 0
    assert methods(server) == ["server/discover", "tools/list", "tools/call"] * 2


def test_nothing_is_kept_across_commands_under_2025_11_25(cli, start_server, state_dir):
    server = start_server()
    for _ in range(2):
        result = cli("--url", server.url, "--protocol-version", "2025-11-25", "tool", "call", "echo", "message=hi")
        assert result.code == 0, result
    sent = [m for m in methods(server) if not (m or "").startswith("notifications/")]
    assert sent == ["initialize", "tools/list", "tools/call"] * 2
    assert not cache_file(state_dir).exists()


def test_a_legacy_only_server_is_not_cached(cli, start_server, state_dir):
    server = start_server("--era", "2025-11-25")
    for _ in range(2):
        assert cli("--url", server.url, "tool", "call", "echo", "message=hi").code == 0
    assert methods(server).count("tools/list") == 2


def test_a_header_mismatch_drops_the_kept_list_and_retries_once(cli, start_server, state_dir):
    server = start_server()
    assert cli("--url", server.url, "tool", "list").code == 0

    def forget_the_header(tools):  # as if weather had no x-mcp-header when it was listed
        weather = next(tool for tool in tools if tool["name"] == "weather")
        del weather["inputSchema"]["properties"]["region"]["x-mcp-header"]

    edit_cached_tools(state_dir, forget_the_header)
    result = cli("--url", server.url, "tool", "call", "weather", "region=Oslo")
    assert result.code == 0 and "Sunny in Oslo" in result.out, result
    assert methods(server, 2) == ["tools/call", "tools/list", "tools/call"]
    calls = [r for r in server.records() if r["message"].get("method") == "tools/call"]
    assert calls[-1]["http"]["headers"].get("mcp-param-region") == "Oslo"
    again = cli("--url", server.url, "tool", "call", "weather", "region=Bergen")  # the refreshed list was kept
    assert again.code == 0 and methods(server, 5) == ["tools/call"]


def test_an_unknown_tool_drops_the_kept_list_and_retries_once(cli, start_server, state_dir):
    server = start_server()
    assert cli("--url", server.url, "tool", "list").code == 0
    edit_cached_tools(state_dir, lambda tools: tools.append(
        {"name": "vanished", "inputSchema": {"type": "object"}}))
    result = cli("--url", server.url, "tool", "call", "vanished")
    assert result.code == 1
    assert "no tool named 'vanished'" in result.err
    assert methods(server, 2) == ["tools/call", "tools/list"]  # one call, then the list; no second call


def test_a_tool_missing_from_the_kept_list_is_looked_up_once(cli, start_server, state_dir):
    server = start_server()
    assert cli("--url", server.url, "tool", "list").code == 0
    edit_cached_tools(state_dir, lambda tools: tools.remove(next(t for t in tools if t["name"] == "add")))
    result = cli("--url", server.url, "tool", "call", "add", "a=1", "b=2")
    assert result.code == 0 and "1 + 2 = 3" in result.out, result
    assert methods(server, 2) == ["tools/list", "tools/call"]


def test_private_results_are_not_shared_between_credentials(cli, start_server):
    server = start_server("--cache-scope", "private")
    alice = ["--url", server.url, "-H", "X-Api-Key: alice"]
    assert cli(*alice + ["tool", "call", "echo", "message=hi"]).code == 0
    assert cli(*alice + ["tool", "call", "echo", "message=hi"]).code == 0
    assert methods(server) == ["server/discover", "tools/list", "tools/call", "tools/call"]
    assert cli("--url", server.url, "-H", "X-Api-Key: bob", "tool", "call", "echo", "message=hi").code == 0
    assert methods(server, 4) == ["server/discover", "tools/list", "tools/call"]


def test_public_results_are_shared_between_credentials(cli, start_server):
    server = start_server()
    assert cli("--url", server.url, "-H", "X-Api-Key: alice", "tool", "list").code == 0
    assert cli("--url", server.url, "-H", "X-Api-Key: bob", "tool", "call", "echo", "message=hi").code == 0
    assert methods(server, 2) == ["tools/call"]


def test_a_warm_stdio_call_is_one_request(cli, record_file):
    server = stdio_command("--record", record_file)
    for word in ("one", "two"):
        result = cli(server, "tool", "call", "echo", "message=" + word)
        assert result.code == 0 and word in result.out, result
    sent = [json.loads(line)["message"].get("method") for line in record_file.read_text().splitlines()]
    assert sent == ["server/discover", "tools/list", "tools/call", "tools/call"]


def test_a_server_that_changed_era_is_probed_again(cli, start_server, state_dir, tmp_path):
    modern = start_server("--era", "2026-07-28")
    assert cli("--url", modern.url, "tool", "list").code == 0
    entries = json.loads(cache_file(state_dir).read_text(encoding="utf-8"))
    modern.stop()
    legacy = start_server("--era", "2025-11-25")
    # The same URL now serves 2025-11-25 only: move the kept entries to the new port's key.
    old_key = mcp_tui.cache_digest(json.dumps(["http", modern.url]))
    new_key = mcp_tui.cache_digest(json.dumps(["http", legacy.url]))
    cache_file(state_dir).write_text(json.dumps({k.replace(old_key, new_key): v for k, v in entries.items()}))
    result = cli("--url", legacy.url, "tool", "list")
    assert result.code == 0 and "echo" in result.out, result
    assert methods(legacy)[:3] == ["tools/list", "server/discover", "initialize"]
    assert not json.loads(cache_file(state_dir).read_text(encoding="utf-8"))  # nothing kept for it now


def test_list_changed_drops_the_kept_list(start_server, state_dir, monkeypatch):
    monkeypatch.setenv("MCP_TUI_STATE_DIR", str(state_dir))
    server = start_server()
    spec = mcp_tui.ConnectionSpec("http", url=server.url)
    first = mcp_tui.Session(spec, cache=True).open()
    try:
        mcp_tui.list_tools(first)
    finally:
        first.close()
    session = mcp_tui.Session(spec, cache=True).open()
    try:
        assert session.answered_from_cache("server/discover")
        changed = threading.Event()
        session.observers.append(
            lambda message: message.get("method") == "notifications/tools/list_changed" and changed.set())
        subscription = session.listen({"toolsListChanged": True}, lambda message: None)
        assert subscription.acknowledged.wait(30)
        session.request("tools/call", {"name": "toggle_extra_tool"})
        assert changed.wait(30)
        assert session.cache.get("tools/list") is None
        assert "extra" in {tool["name"] for tool in mcp_tui.list_tools(session, cached=True)[0]}
    finally:
        session.close()


def test_a_kept_page_expires_with_its_ttl_and_a_private_one_stays_with_its_credential(tmp_path):
    now = [1000.0]
    path = str(tmp_path / "cache.json")
    cache = mcp_tui.ResultCache("server", lambda: "alice", path=path, clock=lambda: now[0])
    cache.put("tools/list", {}, {"tools": [], "ttlMs": 1000, "cacheScope": "public"})
    cache.put("prompts/list", {}, {"prompts": [], "ttlMs": 5000, "cacheScope": "private"})
    assert cache.get("tools/list") == {"tools": [], "ttlMs": 1000, "cacheScope": "public"}
    other = mcp_tui.ResultCache("server", lambda: "bob", path=path, clock=lambda: now[0])
    assert other.get("prompts/list") is None  # another credential never sees a private page
    now[0] += 2
    assert mcp_tui.ResultCache("server", lambda: "alice", path=path, clock=lambda: now[0]).get("tools/list") is None
    assert mcp_tui.ResultCache("server", lambda: "alice", path=path, clock=lambda: now[0]).get(
        "prompts/list") is not None


def test_ping_after_a_cached_discover_times_a_round_trip_not_the_start_up(cli, start_server, state_dir):
    """Issue 32: with server/discover from the cache, ping's request was the first to reach the
    server, and its time was the server's start-up; a first, unmeasured ping waits for it."""
    server = start_server()
    cold = cli("--url", server.url, "ping", "--format", "json")
    assert cold.code == 0 and methods(server) == ["server/discover", "server/discover"], cold
    warm = cli("--url", server.url, "ping", "--format", "json")
    assert warm.code == 0 and warm.json()["method"] == "server/discover", warm
    assert methods(server, 2) == ["server/discover", "server/discover"]  # the one that waits, the one timed
