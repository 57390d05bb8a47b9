"""Section 5 (CLI): the details real servers exposed (issue 11, item 4): refusals before
anything is sent, argument checks with "did you mean", arrays that follow items.type, the
stub checks, what an empty list says, and readable timeouts."""
import json

import pytest

from conftest import stdio_command

SERVER = stdio_command()


def sent(server, method):
    return [r for r in server.records() if r["message"].get("method") == method]


def test_log_level_must_be_one_of_the_eight_levels(cli):
    result = cli(SERVER, "--log-level", "loud", "ping")
    assert result.code == 2, result
    assert "invalid choice: 'loud'" in result.err and "emergency" in result.err


def test_a_task_only_tool_without_task_exits_2_having_sent_nothing(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "--protocol-version", "2025-11-25", "tool", "call", "render_report",
                 "quarter=Q1")
    assert result.code == 2, result
    assert "runs only as a task" in result.err and "add --task" in result.err
    assert not sent(server, "tools/call")


@pytest.mark.parametrize("words,message", [
    (["greeting"], "missing required argument for prompt 'greeting': name"),
    (["greeting", "nmae=Luca"], "unknown argument 'nmae' for prompt 'greeting' (did you mean 'name'?)"),
    (["code_review", "language=go", "colour=red"], "unknown argument 'colour' for prompt 'code_review' "
                                                   "(its arguments: language, code)"),
    (["greetin"], "the server has no prompt named 'greetin'; nothing was sent (its prompts: code_review, greeting)"),
])
def test_prompt_arguments_are_checked_before_sending(cli, start_server, words, message):
    server = start_server()
    result = cli("--url", server.url, "prompt", "get", *words)
    assert result.code == 2, result
    assert "mcp-tui: %s" % message in result.err, result.err
    assert not sent(server, "prompts/get")


def test_a_misspelt_tool_argument_gets_did_you_mean(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "tool", "call", "echo", "mesage=hi")
    assert result.code == 2, result
    assert "unknown argument 'mesage' for tool 'echo' (did you mean 'message'?)" in result.err
    assert not sent(server, "tools/call")


@pytest.mark.parametrize("text,schema,value", [
    ("1,2,3", {"type": "array", "items": {"type": "integer"}}, [1, 2, 3]),
    ("42", {"type": "array", "items": {"type": "string"}}, ["42"]),
    ("42", {"type": "array", "items": {"type": "integer"}}, [42]),
    ("a, b", {"type": "array"}, ["a", "b"]),
    ("[1,2]", {"type": "array", "items": {"type": "integer"}}, [1, 2]),
    ("", {"type": "array"}, []),
])
def test_arrays_from_key_value_follow_items_type(text, schema, value):
    from mcp_tui import coerce_value

    assert coerce_value(text, schema, "k") == value


def test_an_array_item_of_the_wrong_type_suggests_json(text="1,x"):
    from mcp_tui import UsageError, coerce_value

    with pytest.raises(UsageError) as caught:
        coerce_value(text, {"type": "array", "items": {"type": "integer"}}, "nums")
    assert "nums:=JSON" in caught.value.hint


@pytest.mark.parametrize("stub", ["Paris", '{"model":"x"}', '{"text":"a","content":{"type":"text","text":"b"}}',
                                  '{"text":"a","temperature":1}', '{"text":5}', '{"content":"Paris"}'])
def test_sampling_stub_must_be_an_object_with_text_or_content(cli, stub):
    result = cli(SERVER, "--sampling-stub", stub, "tool", "call", "ask_model")
    assert result.code == 2, result
    assert "--sampling-stub" in result.err


def test_a_good_sampling_stub_with_model_and_stop_reason(cli):
    result = cli(SERVER, "--protocol-version", "2025-11-25", "--sampling-stub",
                 '{"text":"Paris","model":"stub-1","stopReason":"endTurn"}', "tool", "call", "ask_model")
    assert result.code == 0, result
    assert result.out == "Tool response:\nThe model said: Paris\n"


def test_a_declined_sampling_request_is_said_on_stderr(cli):
    result = cli(SERVER, "--protocol-version", "2025-11-25", "tool", "call", "ask_model")
    assert result.code == 0, result
    assert "Declined mcp-tui test server's sampling request (no terminal" in result.err


def test_an_elicit_stub_value_outside_the_schema_is_refused_before_answering_2026(cli):
    """2026-07-28 (MRTR): the answer is not sent yet, so the refusal comes first."""
    result = cli(SERVER, "--protocol-version", "2026-07-28", "--elicit-stub", '{"name": 5}', "tool", "call",
                 "ask_name")
    assert result.code == 2, result
    assert "field 'name' must be string, not 5" in result.err


@pytest.mark.parametrize("command,text", [(["resource", "list"], "6 resources"),
                                          (["resource", "templates"], "1 resource template"),
                                          (["prompt", "list"], "2 prompts"), (["tool", "list"], "tools")])
def test_lists_say_their_count_on_stderr(cli, command, text):
    result = cli(SERVER, *command)
    assert result.code == 0, result
    assert result.err.rstrip("\n").splitlines()[-1].endswith(text), result.err


@pytest.mark.parametrize("flags,step,text", [
    (["--timeout", "1.5"], "step_ms=5000", "within 1.5s ("),  # no progress: the plain timeout
    (["--timeout", "0.8", "--max-time", "2"], "step_ms=300", "within 2s (the --max-time cap)"),
])
def test_timeouts_read_as_whole_or_tenth_seconds(cli, start_server, flags, step, text):
    server = start_server()
    result = cli("--url", server.url, *flags, "tool", "call", "long_operation", "steps=50", step, timeout=120)
    assert result.code == 1, result
    assert text in result.err, result.err
