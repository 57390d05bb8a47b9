"""`tap install` with the official Python SDK's client as the host: a Claude Desktop config
names tests/testserver.py; after `tap install` the client starts the entry's command and
args, as Claude Desktop does, and gets the same answers as from the server itself; the
conversation saved with `tap save` replays clean against the same server and reports the
change against one whose echo needs a new argument; `tap uninstall` gives the file back."""
import json
import os
import subprocess
import sys

from .interop_helpers import MCP_TUI, REPO_ROOT
from .test_tap_peers import TESTSERVER, sdk_client


def mcp_tui(*args, env):
    return subprocess.run([sys.executable, str(MCP_TUI)] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=str(REPO_ROOT))


def test_the_sdk_client_runs_a_claude_desktop_entry_put_behind_a_tap(sdk_python, state_dir, tmp_path):
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    server = [sys.executable, str(TESTSERVER)]
    config = tmp_path / "claude_desktop_config.json"
    text = json.dumps({"mcpServers": {"test server": {"command": server[0], "args": server[1:]}}}, indent=2) + "\n"
    config.write_text(text)
    installed = mcp_tui("tap", "install", "--config", config, "--server", "test server", env=env)
    assert installed.returncode == 0, installed.stderr
    entry = json.loads(config.read_text())["mcpServers"]["test server"]
    # The client as a host: MCP_TUI_STATE_DIR not passed on, so the SDK starts the entry with its default
    # environment (HOME, PATH, ...); the state directory tap install pinned in the args is where the log goes.
    host = dict((name, value) for name, value in env.items() if name != "MCP_TUI_STATE_DIR")
    tapped = sdk_client(sdk_python, [entry["command"]] + entry["args"], host)
    assert tapped == sdk_client(sdk_python, server, env)

    saved = tmp_path / "host.jsonl"
    assert mcp_tui("tap", "save", "test-server", "-o", saved, env=env).returncode == 0
    version = ["--protocol-version", tapped["protocolVersion"]]
    same = mcp_tui(" ".join(server), *version, "replay", saved, env=env)
    assert same.returncode == 0 and " same, 0 different" in same.stdout, same.stdout + same.stderr
    changed = mcp_tui(" ".join(server + ["--surface-change", "required-argument"]), *version, "replay", saved, env=env)
    assert changed.returncode == 1 and "channel" in changed.stdout, changed.stdout + changed.stderr

    assert mcp_tui("tap", "uninstall", "--config", config, "--server", "test server", env=env).returncode == 0
    assert config.read_text() == text
