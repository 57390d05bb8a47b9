"""`mcp-tui mock` under a real host: the official Python SDK's client (the SDK peer's
interpreter) talks to tests/testserver.py through a tap, the tap's conversation is saved with
`tap save`, and the same client run against `mcp-tui mock` of that file, over stdio and over
Streamable HTTP, gets the answers the server gave."""
import os
import subprocess
import sys

from .interop_helpers import MCP_TUI, REPO_ROOT
from .test_tap_peers import TESTSERVER, sdk_client


def test_the_sdk_client_gets_the_recorded_answers_from_a_mock_over_stdio_and_http(sdk_python, state_dir, tmp_path):
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    server = [sys.executable, str(TESTSERVER)]
    direct = sdk_client(sdk_python, server, env)
    tapped = sdk_client(sdk_python, [sys.executable, str(MCP_TUI), "tap", "--name", "sdk", "--"] + server, env)
    assert tapped == direct
    recording = tmp_path / "sdk.jsonl"
    saved = subprocess.run([sys.executable, str(MCP_TUI), "tap", "save", "sdk", "-o", str(recording)],
                           capture_output=True, text=True, timeout=60, env=env, cwd=str(REPO_ROOT))
    assert saved.returncode == 0, saved.stderr
    mocked = sdk_client(sdk_python, [sys.executable, str(MCP_TUI), "mock", str(recording)], env)
    assert mocked == direct
    assert direct["echo"]["content"][0]["text"].endswith("through the tap")
    mock = subprocess.Popen([sys.executable, str(MCP_TUI), "mock", str(recording), "--listen", "127.0.0.1:0"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=str(REPO_ROOT))
    try:
        said = mock.stderr.readline()
        assert " on http://127.0.0.1:" in said, said
        assert sdk_client(sdk_python, [said.split(" on ", 1)[1].strip()], env) == direct
    finally:
        mock.terminate()
        out, err = mock.communicate(timeout=30)
    assert (mock.returncode, out, err) == (143, "", "")  # no miss: nothing more said, and no message on stdout
