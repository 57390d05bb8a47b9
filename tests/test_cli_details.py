"""Section 5 (CLI): the details real servers exposed (issue 11, item 4): refusals before
anything is sent, argument checks with "did you mean", arrays that follow items.type, the
stub checks, what an empty list says, and readable timeouts."""
import shlex
import sys

import pytest

from conftest import stdio_command

SERVER = stdio_command()


def sent(server, method):
    return [r for r in server.records() if r["message"].get("method") == method]


def test_log_level_must_be_one_of_the_eight_levels(cli):
    result = cli(SERVER, "--log-level", "loud", "ping")
    assert result.code == 2, result
    assert "invalid choice: 'loud'" in result.err and "emergency" in result.err


@pytest.mark.parametrize("words,message", [
    (["greeting"], "missing required argument for prompt 'greeting': name"),
    (["greeting", "nmae=Luca"], "unknown argument 'nmae' for prompt 'greeting' (did you mean 'name'?)"),
    (["code_review", "language=go", "colour=red"], "unknown argument 'colour' for prompt 'code_review' "
                                                   "(its arguments: language, code)"),
    (["greetin"], "the server has no prompt named 'greetin'; nothing was sent (did you mean 'greeting'?)"),
    (["weather"], "the server has no prompt named 'weather'; nothing was sent (its prompts: code_review, greeting)"),
    # prompt arguments are strings: a JSON number went out and the server called it missing
    (["greeting", "name:=5"], "argument 'name' must be a string, not an integer (prompt and completion arguments "
                              "are strings: write name=VALUE)"),
    (["greeting", "--args-json", '{"name": true}'], "argument 'name' must be a string, not a boolean"),
])
def test_prompt_arguments_are_checked_before_sending(cli, start_server, words, message):
    server = start_server()
    result = cli("--url", server.url, "prompt", "get", *words)
    assert result.code == 2, result
    assert "mcp-tui: %s" % message in result.err, result.err
    assert not sent(server, "prompts/get")


@pytest.mark.parametrize("words,message", [
    (["code_review", "lang=py"], "unknown argument 'lang' for prompt 'code_review' (did you mean 'language'?)"),
    (["code_review", "language=py", "colour=red"], "unknown argument 'colour' for prompt 'code_review' "
                                                   "(its arguments: language, code)"),
    (["code_revie", "language=py"], "the server has no prompt named 'code_revie'; nothing was sent (did you mean "
                                    "'code_review'?)"),
])
def test_complete_checks_the_prompt_and_its_argument_names_before_sending(cli, start_server, words, message):
    """A misspelt name only got "(no completions)" back, exit 0."""
    server = start_server()
    result = cli("--url", server.url, "complete", "prompt", *words)
    assert (result.code, result.out, result.err) == (2, "", "mcp-tui: %s\n" % message), result
    assert not sent(server, "completion/complete")
    fine = cli("--url", server.url, "complete", "prompt", "code_review", "language=py")  # code is not required here
    assert (fine.code, fine.out) == (0, "python\n"), fine


def test_complete_checks_a_templates_variable_names_before_sending(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "complete", "resource", "test://items/{id}", "item=4")
    assert (result.code, result.out, result.err) == (
        2, "", "mcp-tui: unknown argument 'item' for resource template 'test://items/{id}' (its arguments: id)\n"), result
    assert not sent(server, "completion/complete")


@pytest.mark.parametrize("words,message", [
    (["tool", "lst"], "unknown tool command 'lst': expected one of: list, describe, call (did you mean 'list'?)"),
    (["resources", "raed", "x"], "unknown resource command 'raed': expected one of: list, templates, read, "
                                 "subscribe, unsubscribe (did you mean 'read'?)"),
    (["prompt"], "prompt needs one of: list, get"),
])
def test_a_mistyped_subcommand_is_named_with_the_closest_one(cli, words, message):
    """It said only "expected one of: list, describe, call", naming neither the word nor the command."""
    result = cli(SERVER, *words)
    assert (result.code, result.out, result.err) == (2, "", "mcp-tui: %s\n" % message), result


def test_prompt_get_takes_args_json_as_tool_call_does(cli, start_server):
    """--args-json was ignored by prompt get, which then said the argument was missing."""
    server = start_server()
    result = cli("--url", server.url, "prompt", "get", "greeting", "--args-json", '{"name": "Luca"}')
    assert (result.code, result.out) == (0, "Greets someone by name\n[user]\nHello, Luca! How are you today?\n"), \
        result


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
    # the tool quotes the error it was sent: a neutral text, without the server's name (before the
    # handshake, that name is the whole command line)
    assert "with an error: Sampling request declined: no user to ask (no terminal)\n" in result.out, result


def test_an_elicit_stub_value_outside_the_schema_is_declined_2026(cli):
    """2026-07-28 (MRTR) as 2025-11-25: the server waits for an answer (a task may sit at
    input_required), so a stub that cannot fill the form declines, and says why (issue 32)."""
    result = cli(SERVER, "--protocol-version", "2026-07-28", "--elicit-stub", '{"name": 5}', "tool", "call",
                 "ask_name")
    assert result.code == 0 and "(decline)" in result.out, result
    assert "field 'name' must be a string, not 5; declined" in result.err


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
    # progress up to the cap no flag named: it said "(the --max-time cap)" without a --max-time
    (["--timeout", "0.3"], "step_ms=100", "within 3s (ten times --timeout, however much progress came) (raise "
                                          "--timeout, or give --max-time for the whole command, if the server "
                                          "needs longer)"),
])
def test_timeouts_read_as_whole_or_tenth_seconds(cli, start_server, flags, step, text):
    server = start_server()
    result = cli("--url", server.url, *flags, "tool", "call", "long_operation", "steps=50", step, timeout=120)
    assert result.code == 1, result
    assert text in result.err, result.err


def test_a_stream_the_max_time_deadline_shuts_reads_as_that_deadline(cli, start_server, monkeypatch):
    """--max-time shuts the answer's stream (the HTTP watchdog) as the command's own wait gives
    up: whichever comes first, the user reads the deadline, never 'the server closed the
    response stream' (CI saw that when the watchdog won). Here it always wins."""
    import mcp_tui

    arm, armed = mcp_tui.Watchdog.arm, []
    monkeypatch.setattr(mcp_tui.Watchdog, "arm", lambda self, conn, deadline, seconds: armed.append(conn) or arm(
        self, conn, deadline - 0.5, seconds))
    server = start_server()
    result = cli("--url", server.url, "--timeout", "1", "--max-time", "2", "tool", "call", "long_operation",
                 "steps=50", "step_ms=200", timeout=120)
    assert result.code == 1, result
    assert result.err.endswith("mcp-tui: no answer to tools/call within 2s (the --max-time cap) (raise --max-time "
                               "if the server needs longer)\n"), result.err
    assert armed, "the watchdog this test makes fire first was never armed"


def test_transport_http_is_strict_auto_falls_back_to_sse(cli, start_server):
    server = start_server("--legacy-sse")
    strict = cli("--url", server.url, "--transport", "http", "tool", "list")
    assert strict.code == 1, strict
    assert "--transport http does not fall back" in strict.err and "--transport sse" in strict.err
    assert not [line for line in strict.out.splitlines() if line.startswith("echo")]
    auto = cli("--url", server.url, "tool", "list")
    assert auto.code == 0, auto


def test_annotations_and_resource_link_targets_are_shown():
    from mcp_tui import render_tool_result

    text = render_tool_result({"content": [
        {"type": "text", "text": "Careful", "annotations": {"audience": ["user"], "priority": 0.9}},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"}]})
    assert text == ("Tool response:\nCareful\n(for user; priority 0.9)\n"
                    "[resource link: file:///a.txt (text/plain) — a.txt]")


def test_structured_content_is_shown_once_when_the_text_repeats_it():
    from mcp_tui import render_tool_result

    text = render_tool_result({"content": [{"type": "text", "text": '{"sum": 3}'}], "structuredContent": {"sum": 3}})
    assert text == 'Tool response (structured content):\n{\n  "sum": 3\n}'  # no empty heading above it


def test_a_text_blob_is_decoded_and_other_blobs_are_saved(cli, tmp_path):
    from mcp_tui import render_resource_contents

    assert render_resource_contents({"uri": "x://t", "mimeType": "text/plain", "blob": "aGVsbG8="}) == \
        "[resource x://t (text/plain)]\nhello"
    saved = tmp_path / "saved"
    result = cli(SERVER, "--save", saved, "resource", "read", "test://static/logo.png")
    assert result.code == 0, result
    assert result.out == "[resource test://static/logo.png (image/png)]\n[binary: image/png, 70 bytes, saved to " \
                         "%s]\n" % (saved / "logo.png")
    assert (saved / "logo.png").read_bytes().startswith(b"\x89PNG")
    again = cli(SERVER, "--save", saved, "tool", "call", "get_image")
    assert again.code == 0, again
    assert "saved to %s" % (saved / "image-1.png") in again.out
    assert len(list(saved.iterdir())) == 2


def test_the_stdio_probe_is_named_when_initialize_times_out_after_it(cli):
    from conftest import ROOT

    command = " ".join(shlex.quote(str(part)) for part in [
        sys.executable, ROOT / "tests" / "badserver.py", "--era", "2025-11-25", "--mode", "hang", "--on",
        "server/discover"])
    result = cli(command, "--timeout", "2", "--probe-timeout", "1", "ping")
    assert result.code == 1, result
    assert result.err == ("mcp-tui: the server answered neither server/discover nor initialize within 2s (raise "
                          "--timeout if the server needs longer)\n"), result


@pytest.mark.parametrize("server", ["import time; time.sleep(60)",
                                    "import time\nfor n in range(600):\n    print('junk', n, flush=True); time.sleep(0.1)"],
                         ids=["silent", "junk"])
def test_a_silent_or_junk_printing_stdio_server_ends_within_timeout_naming_it(cli, server):
    """It took --timeout + --probe-timeout (65 s by default) with nothing on a pipe, and the two
    named different options; now --timeout bounds the whole opening, and both name it."""
    import time

    command = "%s -c %s" % (shlex.quote(sys.executable), shlex.quote(server))
    started = time.perf_counter()
    result = cli(command, "--timeout", "6", "tool", "list")
    elapsed = time.perf_counter() - started
    assert result.code == 1 and result.out == "", result
    assert result.err.startswith("mcp-tui: the server answered neither server/discover nor initialize within 6s "
                                 "(raise --timeout if the server needs longer"), result
    assert len(result.err.splitlines()) == 1 and "probe" not in result.err, result
    assert ("meanwhile the server sent \"junk" in result.err) == ("print" in server), result
    assert elapsed < 9.5, elapsed  # 6 s, and stopping the server; it was 6 + 5 s before it


def test_fastmcps_2026_elicitation_error_hints_at_2025_11_25():
    from mcp_tui import result_hint

    result = {"isError": True, "content": [{"type": "text", "text": "Error calling tool 'ask': elicitation via "
                                            "server-initiated requests is unavailable on 2026-07-28 connections."}]}
    assert "--protocol-version 2025-11-25" in result_hint(result)
    assert result_hint({"isError": True, "content": [{"type": "text", "text": "boom"}]}) is None


def test_headers_given_for_a_stdio_server_are_said_to_reach_it_not(cli):
    """Issue 35 (and the CLI alike): -H and --bearer with a stdio server were ignored without a
    word; the header names are said, never their values."""
    result = cli(stdio_command(), "-H", "X-Api-Key: s3cret-value", "--bearer", "tok-123456", "ping")
    assert result.code == 0, result
    assert ("warning: HTTP headers (-H, --bearer) reach only HTTP servers; this stdio server gets none of "
            "Authorization, X-Api-Key (pass what it needs with --env)") in result.err, result
    assert "s3cret-value" not in result.err and "tok-123456" not in result.err
    quiet = cli(stdio_command(), "ping")
    assert "warning" not in quiet.err, quiet
