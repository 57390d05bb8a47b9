"""Section 6 (views): the connection a user types becomes the same ConnectionSpec in the
CLI and in the TUI's connection screen, and both front ends describe things in one way."""
import json
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


def test_output_schema_problems_name_each_path_and_what_is_wrong():
    tool = {"name": "t", "outputSchema": {"type": "object", "required": ["unit"], "properties": {
        "length": {"type": "integer"}, "items": {"type": "array", "items": {"maximum": 3}}}}}

    def problems(structured):
        return mcp_tui.output_schema_problems(tool, {"content": [], "structuredContent": structured})

    assert problems({"unit": "m", "length": 2, "items": [1, 2]}) == []
    assert problems({"unit": "m", "length": "2"}) == [("$.length", "must be an integer, not a string")]
    assert problems({"length": "2"}) == [("$", "missing required property 'unit'"),
                                         ("$.length", "must be an integer, not a string")]
    assert problems({"unit": "m", "items": [1, 9]}) == [("$.items[1]", "at most 3")]
    assert problems([]) == [("$", "must be an object, not an array")]
    assert mcp_tui.output_schema_problems(tool, {"content": []}) == [
        ("$", "missing structuredContent, which the tool's outputSchema promises")]
    assert mcp_tui.output_schema_problems(tool, {"content": [], "isError": True}) == []
    assert mcp_tui.output_schema_problems({"name": "t"}, {"content": []}) == []


def test_a_2026_output_schema_may_describe_any_value():
    tool = {"name": "t", "outputSchema": {"type": "array", "items": {"type": "string"}}}
    assert mcp_tui.output_schema_problems(tool, {"content": [], "structuredContent": ["a"]}) == []
    assert mcp_tui.output_schema_problems(tool, {"content": [], "structuredContent": ["a", 2]}) == [
        ("$[1]", "must be a string, not an integer")]


# -- the text both front ends print, function by function -------------------------------------
# Exact strings: a change of wording shows up here first, and in the CLI and the TUI alike.


def test_clean_strips_what_a_terminal_would_act_on_and_keeps_tabs_and_newlines():
    assert mcp_tui.clean("a\x1b[31mred\x1b[0m\x07b\u202ec\td\n\x9b1m\x1b]0;title\x07") == "aredbc\td\n"
    assert mcp_tui.clean(42) == "42"


def test_terminal_json_escapes_only_what_a_terminal_would_act_on():
    assert mcp_tui.terminal_json({"k": "a\u202eb\x85 é"}) == '{"k": "a\\u202eb\\u0085 é"}'
    assert mcp_tui.terminal_json([1, "plain"], indent=None) == '[1, "plain"]'


@pytest.mark.parametrize("block,text", [
    ({"type": "text", "text": "hi", "annotations": {"audience": ["user", "assistant"], "priority": 0.5,
                                                     "lastModified": "2026-01-01"}},
     "hi\n(for user, assistant; priority 0.5; modified 2026-01-01)"),
    ({"type": "text", "text": "hi", "annotations": "junk"}, "hi"),
    ({"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}, "[image: image/png, 5 bytes]"),
    ({"type": "audio", "data": "aGk="}, "[audio: ?, 2 bytes]"),
    ({"type": "resource_link", "uri": "file:///a.txt", "mimeType": "text/plain", "name": "a", "description": "the a"},
     "[resource link: file:///a.txt (text/plain) — a]\nthe a"),
    ({"type": "resource_link", "uri": "file:///b"}, "[resource link: file:///b]"),
    ({"type": "resource", "resource": {"uri": "test://x", "text": "hello"}}, "[resource test://x]\nhello"),
    ({"type": "resource", "resource": {"uri": "test://x", "mimeType": "text/plain", "blob": "aGVsbG8="}},
     "[resource test://x (text/plain)]\nhello"),
    ({"type": "resource", "resource": {"uri": "test://y", "mimeType": "application/octet-stream", "blob": "AAEC"}},
     "[resource test://y (application/octet-stream)]\n[binary: application/octet-stream, 3 bytes]"),
    ({"type": "widget", "x": 1}, '{\n  "type": "widget",\n  "x": 1\n}'),
], ids=["text-annotated", "bad-annotations", "image", "audio", "link", "bare-link", "resource-text", "text-blob",
        "binary-blob", "unknown-type"])
def test_render_content_block(block, text):
    assert mcp_tui.render_content_block(block) == text


def test_render_tool_result_shows_structured_content_once_and_says_when_there_is_none():
    assert mcp_tui.render_tool_result({"content": [{"type": "text", "text": '{"a": 1}'}], "structuredContent": {"a": 1}}) \
        == 'Tool response (structured content):\n{\n  "a": 1\n}'
    assert mcp_tui.render_tool_result({"content": [], "structuredContent": {"a": 1}, "isError": True}) \
        == 'Error response from tool (structured content):\n{\n  "a": 1\n}'
    assert mcp_tui.render_tool_result({"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 2}}) \
        == 'Tool response:\nx\nStructured content:\n{\n  "a": 2\n}'
    assert mcp_tui.render_tool_result({"content": [], "isError": True}) == "Error response from tool:\n(no content)"
    assert mcp_tui.render_tool_result({"content": [{"type": "text", "text": "x"}, "junk"]}) == "Tool response:\nx"


def test_render_contents_and_messages():
    assert mcp_tui.render_contents({"contents": [{"uri": "a://1", "text": "one"},
                                                 {"uri": "a://2", "mimeType": "text/plain", "text": "two"}]}) \
        == "[resource a://1]\none\n\n[resource a://2 (text/plain)]\ntwo"
    assert mcp_tui.render_contents({}) == "(no contents)"
    assert mcp_tui.render_messages([{"role": "user", "content": {"type": "text", "text": "hi"}},
                                    {"role": "assistant", "content": [{"type": "text", "text": "a"},
                                                                      {"type": "text", "text": "b"}]}, "junk"]) \
        == "[user]\nhi\n\n[assistant]\na\nb"


def test_the_blob_saver_names_files_after_the_uri_inside_its_directory_and_never_overwrites(tmp_path):
    saver = mcp_tui.BlobSaver(str(tmp_path / "out"))
    paths = [saver.save(b"x", "file:///etc/../.hidden/pic.png", "image", "image/png"),
             saver.save(b"y", "file:///x/pic.png", "image", "image/png"),
             saver.save(b"z", None, "audio", None),
             saver.save(b"w", "test://dir/../..", "image", None)]
    assert [os.path.relpath(p, str(tmp_path)) for p in paths] == [
        os.path.join("out", name) for name in ("pic.png", "pic-1.png", "audio-3.bin", "image-4.bin")]
    assert [open(p, "rb").read() for p in paths] == [b"x", b"y", b"z", b"w"]
    block = {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}
    assert mcp_tui.render_content_block(block, saver) == "[image: image/png, 5 bytes, saved to %s]" % os.path.join(
        str(tmp_path), "out", "image-5.png")


@pytest.mark.parametrize("result,message", [
    ({"content": {}}, "tools/call: the result's content is not a list"),
    ({"content": [1]}, "tools/call: content block 0 is not an object with a type"),
    ({"content": [{"type": "text", "text": "ok"}, {"type": "text"}]},
     "tools/call: content block 1 is a text block without string text"),
])
def test_check_tool_result_names_the_bad_block(result, message):
    with pytest.raises(mcp_tui.ProtocolViolation) as error:
        mcp_tui.validate_tool_result(result)
    assert error.value.message == message


def test_result_hint_points_a_modern_input_refusal_at_the_older_era():
    refusal = {"isError": True, "content": [{"type": "text", "text": "Elicitation is Unavailable on 2026-07-28 "
                                                                     "connections"}]}
    assert mcp_tui.result_hint(refusal) == ("the server asks for input in a way 2026-07-28 does not carry: "
                                            "try --protocol-version 2025-11-25")
    assert mcp_tui.result_hint(dict(refusal, isError=False)) is None


def test_progress_log_and_notification_lines():
    assert mcp_tui.progress_text({"progress": 3, "total": 10, "message": "Rendering"}) == "progress 3/10: Rendering"
    assert mcp_tui.progress_text({"progress": 0.5}) == "progress 0.5"
    assert mcp_tui.log_text({"level": "warning", "logger": "db", "data": {"rows": 2}}) == '[warning] db: {"rows": 2}'
    assert mcp_tui.log_text({"data": "plain"}) == "[info] plain"
    lines = [mcp_tui.notification_text(message) for message in [
        {"method": "notifications/resources/updated", "params": {"uri": "test://r"}},
        {"method": "notifications/tools/list_changed"},
        {"method": "notifications/message", "params": {"level": "error", "data": "boom"}},
        {"method": "notifications/progress", "params": {"progress": 1, "total": 2}},
        {"method": "notifications/tasks/status", "params": {"taskId": "t1", "status": "working",
                                                            "statusMessage": "half"}},
        {"method": "notifications/custom", "params": {"_meta": {"x": 1}, "k": "v"}},
        {"method": "notifications/custom", "params": {"_meta": {}}}]]
    assert lines == ["resource updated: test://r", "tools list changed", "[error] boom", "progress 1/2",
                     "task t1: working — half", 'notifications/custom {"k": "v"}', "notifications/custom"]


def test_duration_text():
    assert [mcp_tui.duration_text(s) for s in (0, 59.9, 60, 3599, 3600, 7322)] == [
        "0s", "59s", "1m00s", "59m59s", "1h00m", "2h02m"]


def test_describe_tool_in_full_and_bare():
    tool = {"name": "render", "title": "Render", "description": "Renders.", "annotations": {"readOnlyHint": True},
            "inputSchema": {"required": ["q"], "properties": {
                "q": {"type": ["string", "null"], "description": "quarter"}, "pages": {"type": "integer", "default": 2},
                "x": "junk"}},
            "outputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
    assert mcp_tui.describe_tool(tool, mcp_tui.ExtensionTasks(None)) == "\n".join([
        "Tool: render", "Title: Render", "", "Renders.", "", "Task support: optional", "",
        "Arguments (* required):", "  q*: string/null - quarter", "  pages: integer (default 2)", "  x: any", "",
        "Annotations:", "  readOnlyHint: true", "",
        "Input schema:", json.dumps(tool["inputSchema"], indent=2), "",
        "Output schema:", '{\n  "type": "object"\n}'])
    assert mcp_tui.describe_tool({"name": "bare"}, mcp_tui.ExperimentalTasks(None)) == (
        "Tool: bare\n\nTask support: forbidden\n\nInput schema:\n{}")
    assert mcp_tui.describe_tool({"name": "bare"}, mcp_tui.ExtensionTasks(None)) == (
        "Tool: bare\n\nTask support: the server decides per call\n\nInput schema:\n{}")


def test_describe_resource_and_prompt():
    assert mcp_tui.describe_resource({"uri": "test://a", "name": "a", "mimeType": "text/plain", "size": 0,
                                      "description": "desc", "annotations": {"priority": 1}}) == (
        "URI: test://a\nName: a\nMIME type: text/plain\nSize: 0\n\ndesc\n\nAnnotations: {\"priority\": 1}")
    assert mcp_tui.describe_resource({"uriTemplate": "test://items/{id}", "title": "Item"}) == (
        "URI template: test://items/{id}\nTitle: Item")
    prompt = {"name": "code_review", "title": "Review", "description": "Reviews code.",
              "arguments": [{"name": "code", "required": True, "description": "the code"}, {"name": "lang"}, "junk"]}
    assert mcp_tui.describe_prompt(prompt) == (
        "Prompt: code_review\nTitle: Review\n\nReviews code.\n\nArguments (* required):\n  code* - the code\n  lang")


def test_describe_task_lists_the_input_requests_and_the_error():
    waiting = Task.from_wire({"taskId": "t-1", "status": "input_required", "createdAt": "2026-09-24T18:33:17Z",
                              "lastUpdatedAt": "2026-09-24T18:33:17Z", "ttlMs": None,
                              "inputRequests": {"b": {"method": "sampling/createMessage"},
                                                "a": {"method": "elicitation/create"}}})
    assert describe_task(waiting) == (
        "Task:     t-1\nStatus:   input_required\nCreated:  2026-09-24T18:33:17Z\nUpdated:  2026-09-24T18:33:17Z\n"
        "TTL:      unlimited\nInput:    a (elicitation/create)\n          b (sampling/createMessage)")
    failed = Task.from_wire({"taskId": "t-2", "status": "failed", "createdAt": "2026-09-24T18:33:17Z",
                             "lastUpdatedAt": "2026-09-24T18:33:18Z", "ttlMs": 1000,
                             "error": {"code": -32603, "message": "boom"}})
    assert describe_task(failed).splitlines()[-2:] == ["TTL:      1000ms", "Error:    -32603 boom"]
    expiry = failed.expires_at()
    assert [mcp_tui.ttl_left(failed, expiry + 1), mcp_tui.ttl_left(failed, expiry - 3700),
            mcp_tui.ttl_left(waiting, 0)] == ["expired", "1h01m", "unlimited"]


class ServerSession(object):
    """What describe_server reads of a session."""

    era_label = "2025-11-25 (initialize handshake)"
    kept_grant = {"issuer": "http://127.0.0.1:9", "scope": "", "expiresAt": None, "refreshable": False}

    def __init__(self, summary):
        self.spec = mcp_tui.build_spec("http://127.0.0.1:9/mcp")
        self._summary = summary

    def summary(self):
        return self._summary


class DeclaredTasks(object):
    """What describe_server reads of a session's tasks: the support's label."""

    label = "experimental"

    def support(self):
        return self


def test_describe_server_for_the_cli_and_for_the_tuis_server_tab():
    capabilities = {"tools": {"listChanged": True}, "extensions": {"io.x/y": {}}}
    session = ServerSession({"serverInfo": {"name": "srv", "title": "The Server", "version": "1.2"},
                             "protocolVersion": "2025-11-25", "transport": "http", "capabilities": capabilities,
                             "instructions": "Be nice."})
    head = ["Name:         srv", "Title:        The Server", "Version:      1.2",
            "Era:          2025-11-25 (initialize handshake)", "Protocol:     2025-11-25", "Transport:    http",
            "Authorized:   at http://127.0.0.1:9, scope -, no expiry given"]
    tail = ["Capabilities: tools (listChanged)", "Extensions:   io.x/y", "Instructions: Be nice."]
    assert mcp_tui.describe_server(session) == "\n".join(head + tail)
    assert mcp_tui.describe_server(session, DeclaredTasks()) == "\n".join(
        head + ["Connection:   http://127.0.0.1:9/mcp", "Tasks:        experimental"] + tail
        + ["", "Capabilities as declared:", json.dumps(capabilities, indent=2)])
    session = ServerSession({"serverInfo": None, "protocolVersion": "2026-07-28", "transport": "stdio",
                             "capabilities": {}, "instructions": None})
    session.kept_grant = None
    assert mcp_tui.describe_server(session).splitlines()[:2] + mcp_tui.describe_server(session).splitlines()[-1:] == [
        "Name:         (not reported by the server)", "Version:      (not reported by the server)",
        "Capabilities: none"]
    session = ServerSession({"serverInfo": {"name": "mcp", "version": ""}, "protocolVersion": "2025-11-25",
                             "transport": "stdio", "capabilities": {}, "instructions": None})
    session.kept_grant = None  # the official SDK's low-level server: no blank "Version:" line
    assert mcp_tui.describe_server(session).splitlines()[:2] == [
        "Name:         mcp", "Version:      (not reported by the server)"]


def test_describe_capabilities_and_failures():
    assert mcp_tui.describe_capabilities({"tools": {"listChanged": True}, "logging": {}, "extensions": {"x": {}},
                                          "resources": {"subscribe": True, "listChanged": False}}) == (
        "logging, resources (subscribe), tools (listChanged)")
    assert mcp_tui.describe_capabilities({}) == "none"
    assert mcp_tui.describe_failure(mcp_tui.UsageError("bad", hint="try x")) == "bad (try x)"
    assert mcp_tui.describe_failure(KeyError("k")) == "internal error: KeyError: 'k'"


def test_a_stored_token_is_shown_masked_with_its_expiry():
    view = mcp_tui.masked_token_view({"server": "http://h/mcp", "issuer": "http://h", "accessToken": "tok-SECRET",
                                      "refreshToken": "r", "expiresAt": 1000, "scope": "mcp"}, now=900)
    assert view == {"server": "http://h/mcp", "issuer": "http://h", "resource": None, "scope": "mcp", "grant": None,
                    "token": "token:" + mcp_tui.fingerprint("tok-SECRET"), "refreshable": True, "expiresAt": 1000,
                    "expired": False}
    assert "tok-SECRET" not in json.dumps(view)
    assert [mcp_tui.describe_expiry(view, now=900), mcp_tui.describe_expiry(view, now=1000),
            mcp_tui.describe_expiry(dict(view, expiresAt=None)),
            mcp_tui.describe_expiry(dict(view, refreshable=False), now=0)] == [
        "expires in 1m40s (refreshable)", "expired (refreshable)", "no expiry given", "expires in 16m40s"]


def test_stderr_hint_quotes_the_last_five_lines_once_and_only_on_connection_faults():
    failure = mcp_tui.ConnectionFailed("the server exited")
    mcp_tui.stderr_hint(failure, ["l1", "l2", "l3", "l4", "l5", "l6"])
    mcp_tui.stderr_hint(failure, ["again"])
    assert failure.hint == "server stderr: l2 | l3 | l4 | l5 | l6"
    usage = mcp_tui.UsageError("u")
    mcp_tui.stderr_hint(usage, ["x"])
    assert usage.hint is None


# -- connection specs and config files ---------------------------------------------------------


def test_header_and_env_options():
    assert mcp_tui.parse_header_option(" X-Team :  blue ") == ("X-Team", "blue")
    assert mcp_tui.parse_env_option("K=a=b") == ("K", "a=b")
    for text, message in [("NoColon", "--header needs 'Name: value' (a name without spaces, a colon, then the value)"),
                          ("Bad Name: x", "--header needs 'Name: value' (a name without spaces, a colon, then the "
                                          "value)"),
                          ("X: a\r\nEvil: 1", "--header 'X' has a line break or NUL, which would inject another "
                                              "header")]:
        with pytest.raises(mcp_tui.UsageError) as error:
            mcp_tui.parse_header_option(text)
        assert error.value.message == message
    with pytest.raises(mcp_tui.UsageError) as error:
        mcp_tui.parse_env_option("=x")
    assert error.value.message == "--env needs K=V, got '=x'"


def test_config_values_expand_from_the_environment_and_register_as_secrets(monkeypatch):
    monkeypatch.setenv("VIEW_TEST_KEY", "secret-v")
    monkeypatch.delenv("VIEW_TEST_UNSET", raising=False)
    registry = mcp_tui.SecretRegistry()
    assert mcp_tui.expand_config_value({"a": ["${VIEW_TEST_KEY}", "${env:VIEW_TEST_KEY}x"], "n": 3,
                                        "d": "${VIEW_TEST_UNSET:-fallback}"}, "W", registry) == {
        "a": ["secret-v", "secret-vx"], "n": 3, "d": "fallback"}
    assert "secret-v" not in registry.redact("the key is secret-v")
    with pytest.raises(mcp_tui.UsageError) as error:
        mcp_tui.expand_config_value("${input:api-key}", "server 'a' in f.json", registry)
    assert (error.value.message, error.value.hint) == (
        "server 'a' in f.json uses ${input:api-key}, a VS Code input, which mcp-tui does not prompt for",
        "put the value in an environment variable and write ${env:NAME} there")
    with pytest.raises(mcp_tui.UsageError) as error:
        mcp_tui.expand_config_value("${VIEW_TEST_UNSET}", "server 'a' in f.json", registry)
    assert error.value.message == "server 'a' in f.json uses ${VIEW_TEST_UNSET}, which is not set in the environment"


def test_jsonc_comments_and_trailing_commas_but_not_inside_strings():
    assert mcp_tui.load_jsonc('{"a": "http://x//y", /* c */ "b": [1, 2,], // t\n}') == {"a": "http://x//y",
                                                                                         "b": [1, 2]}
    with pytest.raises(ValueError) as error:
        mcp_tui.load_jsonc('{"a": }')
    assert str(error.value) == "Expecting value: line 1 column 7 (char 6)"  # strict JSON's own message
    assert mcp_tui.config_entries({"mcp": {"servers": {"a": {}}}}) == {"a": {}}
    assert mcp_tui.config_entries([1]) is None


def test_config_entries_become_specs():
    http = mcp_tui.spec_from_config_entry({"url": "http://h/mcp", "type": "sse", "headers": {"X": "1"}}, "auto", "W")
    assert (http.kind, http.url, http.headers) == ("sse", "http://h/mcp", {"X": "1"})
    assert mcp_tui.spec_from_config_entry({"httpUrl": "https://h/mcp"}, "auto", "W").kind == "http"
    stdio = mcp_tui.spec_from_config_entry({"command": "srv", "args": ["-v", 3], "env": {"A": "1"}, "cwd": "/tmp"},
                                           "auto", "W")
    assert (stdio.kind, stdio.argv, stdio.env, stdio.cwd) == ("stdio", ["srv", "-v", "3"], {"A": "1"}, "/tmp")
    for entry, message in [([1], "the server 'a' in f.json is an array, not an object (command and args, or url)"),
                           ({"command": 5}, "the server 'a' in f.json: command is an integer, not a string"),
                           ({"env": {"A": 1}}, "the server 'a' in f.json: env 'A' is an integer, not a string"),
                           ({}, "the server 'a' in f.json has neither command nor url")]:
        with pytest.raises(mcp_tui.UsageError) as error:
            mcp_tui.spec_from_config_entry(entry, "auto", "server 'a' in f.json")
        assert error.value.message == message


def test_what_the_user_typed_becomes_a_spec_or_one_usage_error():
    assert [(s.kind, s.url, s.sse_fallback) for s in (mcp_tui.build_spec("http://h/mcp", t)
                                                       for t in ("auto", "sse", "http"))] == [
        ("http", "http://h/mcp", True), ("sse", "http://h/mcp", True), ("http", "http://h/mcp", False)]
    assert mcp_tui.build_spec("python3 s.py --name 'a b'").argv == ["python3", "s.py", "--name", "a b"]
    for target, transport, message in [
            ("http://h/mcp", "stdio", "--transport stdio needs a command, not a URL"),
            ("srv", "http", "--transport http needs --url"),
            ("'unclosed", "auto", "cannot split the server command \"'unclosed\": No closing quotation"),
            ("   ", "auto", "the server command is empty")]:
        with pytest.raises(mcp_tui.UsageError) as error:
            mcp_tui.build_spec(target, transport)
        assert error.value.message == message
    assert mcp_tui.split_command_line("a 'b c' d\\ e", windows=False) == ["a", "b c", "d e"]


@pytest.mark.parametrize("url,message,hint", [
    ("ftp://x", "--url takes an http:// or https:// URL, not ftp://", None),
    ("localhost:3000/mcp", "--url takes an http:// or https:// URL", "did you mean --url http://localhost:3000/mcp?"),
    ("", "--url takes an http:// or https:// URL", "a stdio server is given without --url, as one quoted command line"),
])
def test_check_url_option(url, message, hint):
    with pytest.raises(mcp_tui.UsageError) as error:
        mcp_tui.validate_url_option(url)
    assert (error.value.message, error.value.hint) == (message, hint)


WINDOWS_SHELLS = {"powershell": "C:\\Users\\ada\\Documents\\WindowsPowerShell\\Modules;C:\\Program Files\\"
                                "WindowsPowerShell\\Modules;C:\\Windows\\system32\\WindowsPowerShell\\v1.0\\Modules",
                  "cmd": "C:\\Program Files\\WindowsPowerShell\\Modules;C:\\Windows\\system32\\WindowsPowerShell\\v1.0\\Modules"}


@pytest.mark.parametrize("shell, expected", [
    ("powershell", "mcp-tui 'python.exe srv.py' --task --wait tool call add a:=1 's=it''s \"x\" $HOME' 'n:=\"@file\"'"),
    ("cmd", 'mcp-tui "python.exe srv.py" --task --wait tool call add "a:=1" "s=it\'s ""x"" $HOME" "n:=""@file"""'),
])
def test_on_windows_a_copied_command_is_quoted_for_the_shell_the_user_is_in(monkeypatch, shell, expected):
    """Windows: PowerShell (its own module folder in PSModulePath) or cmd.exe (only the system's)."""
    monkeypatch.setenv("PSModulePath", WINDOWS_SHELLS[shell])
    for bash_says in ("MSYSTEM", "SHELL"):  # this test's own shell is not the one asked about
        monkeypatch.delenv(bash_says, raising=False)
    on_windows = mcp_tui.user_shell
    monkeypatch.setattr(mcp_tui, "user_shell", lambda environ=None, windows=None: on_windows(environ, True))
    assert mcp_tui.user_shell() == shell
    tool = {"name": "add", "inputSchema": {"properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}}
    spec = mcp_tui.build_spec("python3 srv.py")
    spec.argv = ["python.exe", "srv.py"]
    assert mcp_tui.tool_call_command(spec, tool, {"a": 1, "s": 'it\'s "x" $HOME', "n": "@file"}, True) == expected
    # the task follow-ups the CLI prints go through the same command_line
    assert mcp_tui.command_line([], ["task", "get"], ["-t1"]) == {
        "powershell": "mcp-tui task get '--' -t1", "cmd": "mcp-tui task get -- -t1"}[shell]
    # Ctrl+Y: a form value cmd.exe would expand makes no command for it (the TUI copies nothing, says why)
    hostile = {"a": 1, "s": '5" screen & echo PWNED %USERNAME%'}
    if shell == "cmd":
        with pytest.raises(mcp_tui.UnwritableWord, match="which cmd.exe expands even inside quotes"):
            mcp_tui.tool_call_command(spec, tool, hostile, False)
    else:
        assert "'s=5\" screen & echo PWNED %USERNAME%'" in mcp_tui.tool_call_command(spec, tool, hostile, False)


def crt_argv(line):
    """The words the Windows C runtime (UCRT's parse_cmdline, which python.exe uses) reads
    from a command line: 2n backslashes and a quote give n backslashes and a quote that
    opens or closes, or inside quotes "" one quote; 2n+1 and a quote, n and a quote."""
    words, word, quoted, index, started = [], [], False, 0, False
    while index < len(line):
        char = line[index]
        if char in " \t" and not quoted:
            if started:
                words.append("".join(word))
            word, started = [], False
            index += 1
            continue
        started = True
        backslashes = 0
        while index < len(line) and line[index] == "\\":
            backslashes += 1
            index += 1
        if index < len(line) and line[index] == '"':
            word.append("\\" * (backslashes // 2))
            if backslashes % 2:
                word.append('"')
            elif quoted and line[index + 1:index + 2] == '"':
                word.append('"')
                index += 1
            else:
                quoted = not quoted
            index += 1
            continue
        word.append("\\" * backslashes)
        if backslashes == 0:
            word.append(char)
            index += 1
    if started:
        words.append("".join(word))
    return words


def cmd_sees_unquoted(line):
    """The characters of a line that cmd.exe reads outside quotes (a " toggles, always)."""
    outside, quoted = [], False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif not quoted:
            outside.append(char)
    return "".join(outside)


CMD_HOSTILE = ['x" & echo INJECTED & rem "', '5" screen & echo PWNED', 'a\\"b', 'C:\\dir with\\', 'C:\\dir\\',
               '""', "", "^&|<>()", 'a b\\\\', '\\\\"" & calc', "it's", "$(id) `id`", '"&"', "\u00e9 \u4e2d"]


@pytest.mark.parametrize("word", CMD_HOSTILE)
def test_a_word_for_cmd_reaches_the_program_exactly_and_cmd_runs_none_of_it(word):
    line = mcp_tui.shell_word(word, "cmd")
    assert crt_argv("mcp-tui " + line) == ["mcp-tui", word], line
    assert not set(cmd_sees_unquoted(line)) & set('&|<>^()%!\n'), line
    spaced = mcp_tui.command_line([], ["task", "get"], [word, word], shell="cmd")
    assert crt_argv(spaced) == ["mcp-tui", "task", "get", word, word], spaced


@pytest.mark.parametrize("word, why", [("%PATH%", "holds %, which cmd.exe expands"), ("a!b!", "holds !, which"),
                                       ("50% & !x", "% and !"), ("a\nb", "characters cmd.exe cannot type")])
def test_a_word_cmd_would_expand_is_not_written_for_cmd(word, why):
    with pytest.raises(mcp_tui.UnwritableWord, match=why):
        mcp_tui.command_line([], ["task", "get"], [word], shell="cmd")
    with pytest.raises(mcp_tui.UnwritableWord, match=why):
        mcp_tui.shell_config_word(mcp_tui.ConfigWord("${HOME}" + word), "cmd")
    assert mcp_tui.shell_config_word(mcp_tui.ConfigWord('a "${HOME}" b\\'), "cmd") == '"a ""%HOME%"" b\\\\"'


@pytest.mark.parametrize("word", CMD_HOSTILE + ["%PATH%", "a!b!", "$env:PATH", "'; calc; '", "\u2018x\u2019"])
def test_a_word_for_powershell_is_literal(word):
    """PowerShell expands nothing in '...' (a quote, curly ones too, doubled); the rest is bare
    only when argument mode keeps it as it is."""
    import re

    line = mcp_tui.shell_word(word, "powershell")
    if line.startswith("'"):
        assert line.endswith("'") and re.sub("(['\u2018\u2019\u201a\u201b])\\1", r"\1", line[1:-1]) == word, line
    else:
        assert re.match(r"[A-Za-z_/\\][\w./:=\\+-]*\Z", line) and line == word, line


@pytest.mark.parametrize("args", [["mcp-remote", "https://h/mcp?a=1&b=2"], ["x&echo>file", "a|b", "(c)", "^d", "<e>"],
                                  ["%PATH%", "100%", "!x!", "%%cd%%"], ['say "hi" & exit', 'C:\\dir with\\', "C:\\dir\\"],
                                  ["", " ", "-y", "@scope/pkg@1.0", "\u00e9\u4e2d", "a,b;c=d"]])
def test_a_batch_file_gets_each_argument_intact_and_cmd_runs_none_of_it(args):
    """BatBadBut: what cmd.exe runs for npx.cmd ARGS. cmd reads the line once (expanding %NAME%,
    acting on & | < > ^ ( ) outside quotes); the .cmd passes %* on to a program, whose C runtime
    must read back exactly ARGS."""
    line, program = mcp_tui.windows_spawn(["C:\\Program Files\\nodejs\\npx.cmd"] + args, {"SystemRoot": "C:\\Windows"})
    assert program == "C:\\Windows\\System32\\cmd.exe"
    prefix = 'cmd.exe /e:ON /v:OFF /d /c ""C:\\Program Files\\nodejs\\npx.cmd" '
    assert line.startswith(prefix) and line.endswith('"'), line
    rest = line[len(prefix):-1]  # what %* holds, before cmd's expansion
    assert not set(cmd_sees_unquoted(rest)) & set("&|<>^()"), rest
    assert "%" not in rest.replace("%%cd:~,%", ""), rest  # every % is one that expands to nothing
    assert crt_argv("node " + rest.replace("%%cd:~,%", "%")) == ["node"] + args, rest


def test_a_batch_file_argument_that_cannot_arrive_intact_is_refused():
    for argv, message in [(["srv.cmd", "a\nb"], 'cannot pass the argument "a\\nb" to srv.cmd intact: cmd.exe'),
                          (["srv.bat", "x\r"], "ends the command at a line break"),
                          (['C:\\a"b\\srv.cmd'], "may not hold a quote or end in a backslash")]:
        with pytest.raises(mcp_tui.UsageError) as refused:
            mcp_tui.windows_spawn(argv, {})
        assert message in refused.value.message
    assert mcp_tui.windows_spawn(["C:\\node.exe", "a&b"], {}) == (["C:\\node.exe", "a&b"], None)  # no cmd.exe there


def test_a_stdio_server_gets_no_window_where_mcp_tui_has_no_console():
    """A session keeper runs detached (no console): Windows would open a console window for the
    server it starts. The flags are those subprocess names CREATE_NEW_PROCESS_GROUP and
    CREATE_NO_WINDOW on Windows."""
    assert mcp_tui.stdio_creation_options(True, console=False) == {"creationflags": 0x00000200 | 0x08000000}
    assert mcp_tui.stdio_creation_options(True, console=True) == {"creationflags": 0x00000200}
    assert mcp_tui.stdio_creation_options(False, console=False) == {"start_new_session": True}


@pytest.mark.parametrize("bash_says", [{"MSYSTEM": "MINGW64"}, {"SHELL": "/usr/bin/bash"},
                                       {"SHELL": "C:\\msys64\\usr\\bin\\bash.exe"}])
def test_on_windows_git_bash_gets_posix_quoting_that_runs_nothing(monkeypatch, bash_says):
    """Git Bash, MSYS2, Cygwin: bash runs the $(...) and `...` in cmd.exe's "...", so a
    server's task ID is written as a POSIX word there, whatever PSModulePath says."""
    for name in ("MSYSTEM", "SHELL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in dict(bash_says, PSModulePath=WINDOWS_SHELLS["cmd"]).items():
        monkeypatch.setenv(name, value)
    on_windows = mcp_tui.user_shell
    monkeypatch.setattr(mcp_tui, "user_shell", lambda environ=None, windows=None: on_windows(environ, True))
    assert mcp_tui.user_shell() == "posix"
    task_id = "x$(touch MARK)`touch MARK2`"
    assert mcp_tui.command_line([], ["task", "get"], [task_id]) == "mcp-tui task get 'x$(touch MARK)`touch MARK2`'"
    assert mcp_tui.user_shell({"PSModulePath": WINDOWS_SHELLS["cmd"], "SHELL": "C:\\bin\\zsh"}, True) == "cmd"


def test_windows_quoting_keeps_every_word_exact():
    words = ["1e3", "--x=a.b", "@dev", "--url", "C:\\dir with\\", "\u2019q", "a\x1bb"]
    assert [mcp_tui.shell_word(word, "powershell") for word in words] == [
        "'1e3'", "'--x=a.b'", "'@dev'", "--url", "'C:\\dir with\\'", "'\u2019\u2019q'", '"a$([char]0x001b)b"']
    assert [mcp_tui.shell_word(word, "cmd") for word in words[:-1]] == [
        "1e3", '"--x=a.b"', "@dev", "--url", '"C:\\dir with\\\\"', '"\u2019q"']
    with pytest.raises(mcp_tui.UnwritableWord, match="characters cmd.exe cannot type"):
        mcp_tui.shell_word(words[-1], "cmd")
    header = mcp_tui.ConfigWord("X-Key: ${KEY:-none} $x")
    assert mcp_tui.shell_config_word(header, "powershell") == '"X-Key: ${env:KEY} `$x"'
    assert mcp_tui.shell_config_word(header, "cmd") == '"X-Key: %KEY% $x"'
    assert mcp_tui.shell_config_word(header, "posix") == "'X-Key: '\"${KEY:-none}\"' $x'"
    assert mcp_tui.user_shell({"PSModulePath": WINDOWS_SHELLS["powershell"]}, windows=False) == "posix"


def test_the_command_line_of_a_call_quotes_every_word_and_leaves_secrets_out():
    assert [mcp_tui.shell_word(w) for w in ["plain", "a b", "it's", "red\x1b[31m", "rtl\u202eevil", ""]] == [
        "plain", "'a b'", "'it'\"'\"'s'", "$'red\\x1b[31m'", "$'rtl\\u202eevil'", "''"]
    tool = {"name": "add", "inputSchema": {"properties": {"a": {"type": "integer"}, "s": {"type": "string"}}}}
    assert mcp_tui.tool_call_command(mcp_tui.build_spec("python3 srv.py --flag"), tool,
                                     {"a": 1, "s": "x y", "n": "@file"}, True) == (
        "mcp-tui 'python3 srv.py --flag' --task --wait tool call add a:=1 's=x y' 'n:=\"@file\"'")
    spec = mcp_tui.build_spec("http://h/mcp", "sse", protocol="2025-11-25",
                              headers={"Authorization": "Bearer t", "Cookie": "c", "X-Team": "blue"})
    references = []  # every typed header's value, a credential or not, as a ${VAR} the shell fills in
    assert mcp_tui.connection_words(spec, references) == [
        "--url", "http://h/mcp", "--transport", "sse", "--header", "Authorization: ${AUTHORIZATION}",
        "--header", "Cookie: ${COOKIE}", "--header", "X-Team: ${X_TEAM}", "--protocol-version", "2025-11-25"]
    assert references == ["AUTHORIZATION", "COOKIE", "X_TEAM"]
    stdio = mcp_tui.build_spec("python3 srv.py", env={"API_KEY": "k-123"})
    assert mcp_tui.tool_call_command(stdio, tool, {}, False) == (
        "mcp-tui 'python3 srv.py' --env API_KEY=\"${API_KEY}\" tool call add")
    assert mcp_tui.argument_words({"a=b": 1}, {}) == ["--args-json", '{"a=b": 1}']
    assert mcp_tui.argument_words({"s": "1", "o": {"k": [1]}}, {"s": {"type": "string"}}) == ["s=1", 'o:={"k": [1]}']


def test_the_tui_lists_a_name_with_controls_escaped():
    """The main screen's rows: a name's line break, ESC or bidi override shown as its escape."""
    assert mcp_tui.Entry("tool", {"name": "a\nb\x1b[2J"}).label == "a\\nb\\x1b[2J"
    assert mcp_tui.Entry("prompt", {"name": "p\r", "arguments": [{"name": "x\u202ey"}]}).label == "p\\r(x\\u202ey)"
    assert mcp_tui.Entry("resource", {"uri": "test://x", "name": "r\tn"}).label == "r\\tn"
    assert mcp_tui.Entry("template", {"uriTemplate": "t://{a}\n"}).label == "template: t://{a}\\n"
    assert mcp_tui.Entry("tool", {"name": "C:\\plain"}).label == "C:\\plain"  # nothing to escape: as it is


@pytest.mark.parametrize("windows", [True, False])
def test_a_server_command_line_is_joined_as_it_is_split(windows):
    """The server word of a printed command (`mcp-tui "C:\\Program Files\\nodejs\\node.exe" srv.js`
    task get ...) is read back by split_command_line, which on Windows keeps backslashes and
    takes "..." (not '...') for one word."""
    argv = ["C:\\Program Files\\nodejs\\node.exe", "srv.js", "--name", "a b", "", "it's", "x\\y"]
    line = mcp_tui.join_command(argv, windows=windows)
    assert mcp_tui.split_command_line(line, windows=windows) == argv, line
