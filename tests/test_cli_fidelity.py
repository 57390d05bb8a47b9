"""Section 7 (CLI): what real servers showed in issue 22 (items 2, 3, 8-12): a -32042 URL
on a terminal, `watch` on a server that announces nothing, structured content only when it
adds something (and checked against outputSchema), `tool describe`'s details, one JSON
envelope for every verb, no list_changed lost to --log-level, and the messages."""
import shlex
import sys

import pytest

from conftest import ROOT, stdio_command

BADSERVER = ROOT / "tests" / "badserver.py"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"


def bad_server(era, *flags):
    return " ".join(shlex.quote(str(p)) for p in [sys.executable, BADSERVER, "--era", era] + list(flags))


# -- 2. a -32042 error shows its URL and message, as a URL elicitation does -------------------


def test_a_32042_error_shows_the_url_and_its_message_on_a_terminal(cli):
    server = bad_server(LEGACY, "--mode", "url-required", "--elicit-url", "https://mail.example.com/authorize?x=1")
    result = cli(server, "tool", "call", "echo", "message=x")
    assert result.code == 1, result
    assert "https://mail.example.com/authorize?x=1 (host: mail.example.com): Sign in to Example Mail" in result.err, \
        result
    assert "\x1b" not in result.err, result
    assert "Declined: opening a URL needs your consent on a terminal." in result.err, result
    assert "This request requires browser-based authorization. (the server needs the URL above opened first)" \
        in result.err, result


def test_a_32042_error_refuses_a_misleading_url_as_a_url_elicitation_does(cli):
    server = bad_server(LEGACY, "--mode", "url-required", "--elicit-url", "https://evil.example@accounts.google.com/")
    result = cli(server, "tool", "call", "echo", "message=x")
    assert result.code == 1, result
    assert "refused: the URL holds a user name" in result.err, result


def test_a_32042_error_keeps_its_urls_in_json(cli):
    server = bad_server(LEGACY, "--mode", "url-required", "--elicit-url", "https://mail.example.com/a")
    result = cli("--format", "json", server, "tool", "call", "echo", "message=x")
    assert result.code == 1, result
    error = __import__("json").loads(result.err)["error"]
    assert error["data"]["elicitations"][0]["url"] == "https://mail.example.com/a", result


# -- 3. watch on a 2026-07-28 server that announces nothing to listen for ----------------------


def test_watch_on_a_server_that_announces_nothing_says_so_and_waits(cli, start_server):
    server = start_server("--era", MODERN, "--no-listen")
    result = cli("--url", server.url, "watch", "--for", "1")
    assert result.code == 0, result
    assert "announces nothing to listen for (no listChanged capability)" in result.err, result
    assert "Method not found" not in result.err, result
    assert not [r for r in server.records() if r["message"].get("method") == "subscriptions/listen"]


def test_watch_with_a_resource_on_such_a_server_is_refused_before_sending(cli, start_server):
    server = start_server("--era", MODERN, "--no-listen")
    result = cli("--url", server.url, "watch", "--resource", "test://static/hello.txt", "--for", "1")
    assert result.code == 2, result
    assert "no resources.subscribe capability" in result.err, result


# -- 8. structured content: shown only when it adds something; checked against outputSchema ------


SCHEMA_SERVER = stdio_command("--schema-tools")


def test_structured_content_that_breaks_the_output_schema_is_warned_about_with_its_path(cli):
    result = cli(SCHEMA_SERVER, "tool", "call", "measure", "text=abc", "broken:=true")
    assert result.code == 0, result
    assert ("warning: the result of tool 'measure' breaks its outputSchema: "
            "$.length: must be an integer, not a string\n") in result.err, result
    assert '"length": "3"' in result.out, result


def test_structured_content_that_matches_the_output_schema_gets_no_warning(cli):
    result = cli(SCHEMA_SERVER, "tool", "call", "measure", "text=abc")
    assert result.code == 0, result
    assert "warning" not in result.err, result
    assert result.out == 'Tool response:\n3 characters\nStructured content:\n{\n  "length": 3\n}\n', result


def test_a_result_without_the_promised_structured_content_is_warned_about_as_the_tui_does(cli, tmp_path):
    from tui_helpers import one_tool_server

    tool = {"name": "weather", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"temp": {"type": "number"}}}}
    server = one_tool_server(tmp_path, tool, """
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "21"}]}})
""")
    result = cli(server, "tool", "call", "weather")
    assert result.code == 0, result
    assert ("warning: the result of tool 'weather' breaks its outputSchema: "
            "$: missing structuredContent, which the tool's outputSchema promises\n") in result.err, result


def test_the_output_schema_warning_is_kept_in_json(cli):
    result = cli("--format", "json", SCHEMA_SERVER, "tool", "call", "measure", "text=abc", "broken:=true")
    assert result.code == 0, result
    assert any("$.length: must be an integer" in w for w in result.json()["warnings"]), result


@pytest.mark.parametrize("structured,text", [({"result": 3}, "3"), ({"content": "a.txt\nb.txt"}, "a.txt\nb.txt"),
                                             ({"result": [1, 2]}, "[1, 2]")])
def test_structured_content_that_only_wraps_the_text_is_not_printed(structured, text):
    from mcp_tui import render_tool_result

    shown = render_tool_result({"content": [{"type": "text", "text": text}], "structuredContent": structured})
    assert shown == "Tool response:\n" + text


def test_structured_content_that_adds_to_the_text_is_printed():
    from mcp_tui import render_tool_result

    shown = render_tool_result({"content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3, "of": 2}})
    assert shown == 'Tool response:\n3\nStructured content:\n{\n  "sum": 3,\n  "of": 2\n}'


# -- 9. tool describe: enum values, array item types and _meta ----------------------------------


def test_tool_describe_shows_enum_values_item_types_and_meta(cli):
    result = cli(SCHEMA_SERVER, "tool", "describe", "paint")
    assert result.code == 0, result
    assert "  color*: string, one of red, green, blue - Colour\n" in result.out, result
    assert "  sizes*: array of integer - Box sizes\n" in result.out, result
    assert 'Meta:\n  example.com/owner: "paint-team"\n' in result.out, result


# -- 10. one JSON envelope for every verb --------------------------------------------------------


@pytest.mark.parametrize("words,path", [
    (["tool", "list"], ["tools"]),
    (["tool", "describe", "echo"], ["inputSchema"]),
    (["prompt", "list"], ["prompts"]),
    (["prompt", "get", "greeting", "name=Ann"], ["messages"]),
    (["resource", "list"], ["resources"]),
    (["resource", "templates"], ["resourceTemplates"]),
    (["resource", "read", "test://static/hello.txt"], ["contents"]),
    (["complete", "prompt", "code_review", "language=py"], ["completion", "values"]),
    (["rpc", "tools/list"], ["tools"]),
])
def test_every_verb_puts_what_the_server_answered_under_result(cli, words, path):
    result = cli(stdio_command(), "--format", "json", "--log-level", "debug", *words)
    assert result.code == 0, result
    document = result.json()
    own = {"taskSupport", "app"} if words[:2] == ["tool", "describe"] else set()  # mcp-tui's reading, beside
    assert set(document) <= {"result", "notifications", "notificationCounts", "warnings"} | own, document
    value = document["result"]
    for key in path:
        value = value[key]
    assert "notifications" not in document["result"], document


# -- 11. watch --log-level loses no list change that arrives while the session opens -------------


def test_watch_prints_the_list_changes_that_arrive_during_set_level(cli):
    server = stdio_command("--changes-on-set-level")
    result = cli(server, "--protocol-version", LEGACY, "--log-level", "debug", "watch", "--for", "1")
    assert result.code == 0, result
    lines = [line.split(" ", 1)[1] for line in result.out.splitlines()]
    assert lines == ["tools list changed", "prompts list changed", "resources list changed"], result
    assert "🔔" not in result.err, result


def test_watch_json_has_them_too(cli):
    server = stdio_command("--changes-on-set-level")
    result = cli(server, "--format", "json", "--protocol-version", LEGACY, "--log-level", "debug", "watch", "--for",
                 "1")
    assert result.code == 0, result
    methods = [__import__("json").loads(line)["method"] for line in result.out.splitlines()]
    assert methods == ["notifications/%s/list_changed" % kind for kind in ("tools", "prompts", "resources")], result


# -- 12. messages ----------------------------------------------------------------------------------


@pytest.mark.skipif(__import__("os").name == "nt", reason="SIGINT to a child process is POSIX")
def test_no_progress_line_follows_interrupted(state_dir):
    """A server that goes on after the cancellation (the everything server's long-running
    operation) sends progress while mcp-tui closes: none of it is printed after the last word."""
    import os
    import queue
    import signal
    import subprocess
    import threading

    from conftest import MCP_TUI_PROCESS, wait_for

    server = [stdio_command("--ignore-cancel")]
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + server + [
        "tool", "call", "long_operation", "steps=1000", "step_ms=5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True)
    reader.start()
    seen = []
    try:
        wait_for(lambda: seen.append(lines.get(timeout=30)) or seen[-1].startswith("⏳"))
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(30)
    while not lines.empty():
        seen.append(lines.get())
    assert proc.returncode == 130, seen
    at = seen.index("mcp-tui: interrupted\n")
    assert not [line for line in seen[at:] if line.startswith("⏳")], seen[at:]


def test_the_background_session_notice_only_follows_a_created_task(cli):
    refused = cli(stdio_command(), "tool", "call", "nosuch", "--task")
    assert refused.code == 2, refused
    assert "background session" not in refused.err, refused
    created = cli(stdio_command(), "tool", "call", "render_report", "quarter=Q1", "--task")
    assert created.code == 0, created
    assert created.err.count("A background session keeps the server running") == 1, created


def test_trace_on_stdio_says_once_that_it_covers_http(cli):
    result = cli(stdio_command(), "--trace", "ping")
    assert result.code == 0, result
    assert result.err.count("--trace shows HTTP requests and SSE events, and a stdio server has none") == 1, result


def test_stdout_junk_of_a_server_that_exits_is_named_without_python_quoting(cli):
    chatty = "%s -c %s" % (shlex.quote(sys.executable), shlex.quote(
        "import sys; print(\"Starting... you're early\", flush=True); sys.exit(3)"))
    result = cli(chatty, "tool", "list")
    assert result.code == 1, result
    assert "exited with code 3; before that it wrote \"Starting... you're early\" on stdout" in result.err, result
    assert "\\'" not in result.err, result


@pytest.fixture
def web_server():
    """A plain web server on loopback that answers every path with an HTML 404 page."""
    import http.server
    import threading

    class NotFound(http.server.BaseHTTPRequestHandler):
        def answer(self):
            page = b"<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>" \
                   b"<p>The requested URL was not found on this server.</p></body></html>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        do_GET = do_POST = do_DELETE = answer

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/mcp" % server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_wrong_path_says_it_is_not_an_mcp_endpoint_without_the_page(cli, web_server):
    result = cli("--url", web_server, "tool", "list")
    assert result.code == 1, result
    assert result.err.startswith("mcp-tui: HTTP 404 Not Found: not an MCP endpoint (check the URL's path"), result
    assert "<" not in result.err, result


@pytest.mark.parametrize("body,summary", [
    (b"<!DOCTYPE html><html><body><h1>404</h1><p>The page is gone</p></body></html>", ""),
    (b'{"error": "invalid_token", "error_description": "' + b"Token expired. " * 30 + b'"}',
     "invalid_token: " + "Token expired. " * 12 + "Token expired. …"),
    (b"word " * 100, ("word " * 40).strip() + " …"),
])
def test_an_error_body_is_summed_up_in_whole_sentences(body, summary):
    from mcp_tui import body_summary

    assert body_summary(body) == summary


def test_a_rejected_bearer_names_the_challenge_once(cli, start_server):
    server = start_server("--auth")
    result = cli("--url", server.url, "--bearer", "wrong-token", "tool", "list")
    assert result.code == 1, result
    line = result.err.strip()
    assert line.count("Unknown access token") == 1 and "error_description" not in line, result
    assert '(WWW-Authenticate: Bearer error="invalid_token", scope="mcp:basic", resource_metadata=' in line, result
    assert "wrong-token" not in line, result


def test_https_to_a_plain_http_port_says_so(cli, start_server):
    server = start_server()
    result = cli("--url", server.url.replace("http://", "https://"), "tool", "list")
    assert result.code == 1, result
    assert "the server answered in plain HTTP, not TLS: try the URL with http://" in result.err, result
    assert "SSL" not in result.err, result


def test_an_undeclared_argument_the_schema_allows_is_sent_with_a_warning(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi", "volume=11")
    assert result.code == 0, result
    assert ("warning: tool 'echo' does not declare 'volume' (its arguments: message); sent anyway, as its schema "
            "allows others") in result.err, result
    calls = [r["message"] for r in server.records() if r["message"].get("method") == "tools/call"]
    assert calls[0]["params"]["arguments"] == {"message": "hi", "volume": "11"}


def test_forcing_2026_on_a_2025_only_server_hints_at_the_versions(cli):
    result = cli(stdio_command("--era", LEGACY), "--protocol-version", MODERN, "tool", "list")
    assert result.code == 1, result
    assert ("(the server refused server/discover, so it seems to speak only 2025-11-25 or older; --protocol-version "
            "auto uses what it speaks)") in result.err, result


@pytest.mark.parametrize("words,capability", [(["resource", "list"], "resources"), (["resource", "templates"],
                                                                                      "resources"),
                                              (["prompt", "list"], "prompts")])
def test_a_list_the_server_does_not_offer_is_empty_and_nothing_is_sent(cli, words, capability, tmp_path):
    """Issue 32: on a server without resources or prompts, the list commands sent the method
    and exited 1 on -32601; they say the server offers none and exit 0, as a client should."""
    from conftest import faulty_command

    fault = "undeclared-served" if capability == "resources" else "list-changed-undeclared"
    result = cli(faulty_command("--fault", fault), *words)
    assert result.code == 0, result
    assert result.out == "" and "faultyserver offers no %s (no %s capability); nothing was sent" % (
        capability, capability) in result.err, result
    document = cli(faulty_command("--fault", fault), *words, "--format", "json")
    assert document.code == 0 and list(document.json()["result"].values()) == [[]], document


def test_quiet_keeps_the_log_lines_asked_for_with_log_level(cli):
    """Issue 32: -q hid the server's log lines that --log-level asked for; it silences progress."""
    asked = cli(stdio_command(), "-q", "--log-level", "debug", "tool", "call", "log_message", "message=hello")
    assert asked.code == 0, asked
    assert asked.err == "📣 [info] log_message: hello\n", asked
    unasked = cli(stdio_command(), "-q", "tool", "call", "log_message", "message=hello")
    assert unasked.code == 0 and unasked.err == "", unasked
