"""`mcp-tui tap` under a real host stand-in: the official Python SDK's client (the SDK peer's
interpreter) talks to tests/testserver.py over stdio through the tap and directly. The answers
are the same, and the tap's log holds every message the client sent and got."""
import json
import os
import subprocess
import sys

from .interop_helpers import INTEROP_DIR, MCP_TUI, REPO_ROOT

SDK_CLIENT = INTEROP_DIR / "sdk_tap_client.py"
TESTSERVER = REPO_ROOT / "tests" / "testserver.py"


def sdk_client(sdk_python, server_argv, env):
    run = subprocess.run([sdk_python, str(SDK_CLIENT)] + server_argv, capture_output=True, text=True, timeout=120,
                         env=env, cwd=str(REPO_ROOT))
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_sdk_client_gets_the_same_answers_through_the_tap_and_the_log_holds_every_message(sdk_python,
                                                                                              state_dir):
    state = state_dir
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state))
    server = [sys.executable, str(TESTSERVER)]
    direct = sdk_client(sdk_python, server, env)
    tapped = sdk_client(sdk_python, [sys.executable, str(MCP_TUI), "tap", "--name", "sdk", "--"] + server, env)
    assert tapped == direct
    assert direct["echo"]["content"][0]["text"].endswith("through the tap")
    records = [json.loads(line) for line in (state / "taps" / "sdk.jsonl").read_text().splitlines()]
    messages = [(r["direction"], r["message"]) for r in records if "message" in r]
    assert not [r for r in records if "raw" in r]  # every line the client and the server wrote was JSON-RPC
    asked = {m["id"]: m["method"] for d, m in messages if d == "out" and "id" in m and "method" in m}
    answered = {m["id"] for d, m in messages if d == "in" and "id" in m and "method" not in m}
    assert answered == set(asked)  # each request the host sent, and its answer, logged
    calls = [m["params"]["name"] for d, m in messages if d == "out" and m.get("method") == "tools/call"]
    assert calls == ["echo", "add"] and "tools/list" in asked.values()


def test_the_sdk_client_over_streamable_http_gets_the_same_answers_through_the_http_tap(sdk_python, state_dir):
    from tests.servers import LoopbackServer

    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    server = LoopbackServer([sys.executable, str(TESTSERVER), "--http", "127.0.0.1:0", "--chunked-streams"])
    tap = subprocess.Popen([sys.executable, str(MCP_TUI), "tap", "--name", "sdk-http", "--listen", "127.0.0.1:0",
                            "--url", server.url], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO_ROOT))
    try:
        said = tap.stderr.readline()
        assert "listening on " in said, said
        direct = sdk_client(sdk_python, [server.url], env)
        tapped = sdk_client(sdk_python, [said.split("listening on ", 1)[1].split()[0]], env)
        assert tapped == direct
        assert direct["echo"]["content"][0]["text"].endswith("through the tap")
        records = [json.loads(line) for line in (state_dir / "taps" / "sdk-http.jsonl").read_text().splitlines()]
        messages = [(r["direction"], r["message"]) for r in records if "message" in r]
        asked = {m["id"]: m["method"] for d, m in messages if d == "out" and "id" in m and "method" in m}
        answered = {m["id"] for d, m in messages if d == "in" and "id" in m and "method" not in m}
        assert answered == set(asked)  # each request the host sent, and its answer, logged
        calls = [m["params"]["name"] for d, m in messages if d == "out" and m.get("method") == "tools/call"]
        assert calls == ["echo", "add"]
    finally:
        tap.terminate()
        assert tap.wait(30) == 143
        server.stop()
