"""Section 6 (views): the connection a user types becomes the same ConnectionSpec in the
CLI and in the TUI's connection screen, and both front ends describe things in one way."""
import os

import pytest

import mcp_tui
from mcp_tui import ConnectScreen, Task, build_parser, describe_task, spec_from_options

WINDOWS_COMMAND = r'"C:\Program Files\Python\python.exe" C:\srv\server.py --name "a b"'
WINDOWS_ARGV = [r"C:\Program Files\Python\python.exe", r"C:\srv\server.py", "--name", "a b"]


class App:
    """What the connection screen asks of the app: the options."""

    def __init__(self, argv):
        self.opts = build_parser().parse_intermixed_args(argv)
        self.log = mcp_tui.DebugLog()


@pytest.fixture
def on_windows(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.chdir(tmp_path)  # no .mcp.json from the checkout in the screen's server list
    monkeypatch.setenv("HOME", str(tmp_path))


def test_a_windows_command_typed_in_the_tui_is_split_like_the_cli_splits_it(on_windows):
    cli_spec, words = spec_from_options(App([WINDOWS_COMMAND, "tool", "list"]).opts, [WINDOWS_COMMAND, "tool", "list"],
                                        mcp_tui.SecretRegistry())
    assert cli_spec.argv == WINDOWS_ARGV and words == ["tool", "list"]
    screen = ConnectScreen(App([]), None)
    screen.target.set_text(WINDOWS_COMMAND)
    assert screen.spec_from_fields().argv == cli_spec.argv


def test_the_tui_and_the_cli_refuse_the_same_mismatch_each_in_its_own_words(on_windows):
    screen = ConnectScreen(App(["--transport", "stdio"]), None)
    screen.target.set_text("http://127.0.0.1:9/mcp")
    with pytest.raises(mcp_tui.UsageError) as tui_error:
        screen.spec_from_fields()
    with pytest.raises(mcp_tui.UsageError) as cli_error:
        spec_from_options(App(["--transport", "stdio", "--url", "http://127.0.0.1:9/mcp"]).opts, ["tool", "list"],
                          mcp_tui.SecretRegistry())
    tui_message, cli_message = tui_error.value.message, cli_error.value.message  # plain str: os.name is "nt" here
    assert "--transport stdio" in cli_message
    assert tui_message.startswith("Transport stdio starts a command line") and "--" not in tui_message


def test_describe_task_is_the_seed_block_and_the_tui_adds_the_tool_and_time_left():
    task = Task.from_wire({"taskId": "report-1", "status": "working", "statusMessage": "Rendering page 3 of 12",
                           "createdAt": "2026-09-24T18:33:17.048Z", "lastUpdatedAt": "2026-09-24T18:33:17.056Z",
                           "ttlMs": 3600000, "pollIntervalMs": 5})
    assert describe_task(task) == (
        "Task:     report-1\nStatus:   working — Rendering page 3 of 12\nCreated:  2026-09-24T18:33:17Z\n"
        "Updated:  2026-09-24T18:33:17Z\nTTL:      3600000ms\nPoll:     every 5ms")
    tui_text = describe_task(task, tool="render_report", now=task.expires_at() - 90)
    assert "Tool:     render_report" in tui_text and "TTL:      3600000ms (1m30s left)" in tui_text


def test_a_config_word_leaves_its_placeholders_for_the_shell_and_quotes_the_rest():
    import subprocess

    word = mcp_tui.ConfigWord("http://h/mcp?key=${env:KEY}&b=${B:-d e}&c=${C:-$(touch x)}&d='q'")
    line = mcp_tui.command_line(["--url", word], ["tool", "call"], ["-rf"])
    assert line == ("mcp-tui --url 'http://h/mcp?key='\"${KEY}\"'&b='\"${B:-d e}\"'&c=${C:-$(touch x)}&d='\"'\"'q'\"'\"'' "
                    "tool call -- -rf"), line
    echoed = subprocess.run(["bash", "-c", "printf '%s\\n' " + line[len("mcp-tui "):]], capture_output=True, text=True,
                            env={"KEY": "k 1", "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    assert echoed[1] == "http://h/mcp?key=k 1&b=d e&c=${C:-$(touch x)}&d='q'", echoed


def test_schema_violation_names_the_first_path_and_what_is_wrong():
    schema = {"type": "object", "required": ["unit"], "properties": {
        "length": {"type": "integer"}, "items": {"type": "array", "items": {"maximum": 3}}}}
    assert mcp_tui.schema_violation({"unit": "m", "length": 2, "items": [1, 2]}, schema) is None
    assert mcp_tui.schema_violation({"unit": "m", "length": "2"}, schema) == (
        "$.length", "must be an integer, not a string")
    assert mcp_tui.schema_violation({"length": 2}, schema) == ("$", "missing unit")
    assert mcp_tui.schema_violation({"unit": "m", "items": [1, 9]}, schema) == ("$.items[1]", "at most 3")
    assert mcp_tui.schema_violation([], schema) == ("$", "must be an object, not an array")
