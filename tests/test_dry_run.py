"""--dry-run: the command's own request, built exactly as it would go out (era, _meta, HTTP
headers), printed and not sent. What the command needs to build it (discover, initialize, the
tool list for the schema) is still sent; the test server's record shows the rest is not."""
import json

from conftest import stdio_command
from schemas import check_client_message

TOKEN = "dry-run-bearer-0123456789"


def sent_methods(server_or_record):
    records = server_or_record.records() if hasattr(server_or_record, "records") else [
        json.loads(line) for line in server_or_record.read_text().splitlines()]
    return [record["message"].get("method") for record in records]


def split_preview(out):
    """The text form: the request line and headers, a blank line, the JSON-RPC message."""
    head, _, body = out.partition("\n\n")
    lines = head.splitlines()
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return lines[0], headers, json.loads(body)


def test_a_2026_tool_call_is_shown_with_its_headers_and_not_sent(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "--bearer", TOKEN, "-H", "X-Tenant: blue", "tool", "call", "add", "a=2", "b=3",
                 "--dry-run")
    assert result.code == 0, result
    request, headers, message = split_preview(result.out)
    assert request == "POST %s" % server.url
    assert headers["Mcp-Method"] == "tools/call" and headers["Mcp-Name"] == "add", headers
    assert headers["MCP-Protocol-Version"] == "2026-07-28", headers
    # -H values and the bearer are credentials: masked here as everywhere
    assert headers["X-Tenant"].startswith("secret:") and headers["Authorization"].startswith("secret:"), headers
    assert TOKEN not in result.out + result.err, result
    assert message["method"] == "tools/call" and message["params"]["arguments"] == {"a": 2, "b": 3}  # coerced
    check_client_message(message, "2026-07-28")
    assert "(--dry-run: tools/call was not sent)" in result.err, result
    assert "tools/call" not in sent_methods(server), sent_methods(server)


def test_a_2025_task_call_is_shown_in_json_within_its_session(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "--protocol-version", "2025-11-25", "--format", "json", "tool", "call",
                 "render_report", "quarter=Q1", "--task", "--ttl", "60000", "--dry-run")
    assert result.code == 0, result
    document = result.json()
    assert document["dryRun"] is True and document["transport"] == "streamable-http", document
    assert document["headers"]["MCP-Protocol-Version"] == "2025-11-25" and document["headers"]["Mcp-Session-Id"]
    message = document["message"]
    assert message["params"]["task"] == {"ttl": 60000}, message
    check_client_message(message, "2025-11-25")
    assert sent_methods(server).count("initialize") == 1 and "tools/call" not in sent_methods(server)


def test_a_stdio_prompt_get_and_an_rpc_are_shown_as_stdin_lines(cli, record_file):
    command = stdio_command("--record", record_file)
    result = cli(command, "prompt", "get", "greeting", "name=Ann", "--dry-run")
    assert result.code == 0, result
    request, headers, message = split_preview(result.out)
    assert request.startswith("stdin of ") and headers == {}, result.out
    assert message["method"] == "prompts/get" and message["params"]["arguments"] == {"name": "Ann"}
    pinged = cli(command, "rpc", "ping", "--dry-run")
    assert pinged.code == 0 and split_preview(pinged.out)[2]["method"] == "ping", pinged
    assert not {"prompts/get", "ping"} & set(sent_methods(record_file)), sent_methods(record_file)


def test_a_command_with_nothing_of_its_own_to_preview_is_refused(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "tool", "list", "--dry-run")
    assert result.code == 2 and result.out == "", result
    assert result.err == ("mcp-tui: --dry-run previews the request of tool call, prompt get, resource read, complete, "
                          "rpc, tap install or tap uninstall, not of 'tool list'\n"), result
    assert sent_methods(server) == []


def test_values_from_a_config_are_masked_in_a_stdio_preview(cli, tmp_path):
    import sys

    from conftest import TESTSERVER

    secret = "dry-run-config-secret-0123"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"local": {
        "command": sys.executable, "args": [str(TESTSERVER), "--record", str(tmp_path / "r-${MCP_TEST_SECRET}.jsonl")],
        "env": {"MCP_TEST_TOKEN": "${MCP_TEST_SECRET}"}}}}))
    for fmt in ("text", "json"):
        result = cli("--config", config, "--format", fmt, "tool", "call", "add", "a=1", "b=2", "--dry-run",
                     env={"MCP_TEST_SECRET": secret})
        assert result.code == 0, result
        assert secret not in result.out + result.err, result
        request = result.json()["request"] if fmt == "json" else result.out.splitlines()[0]
        assert request.startswith("stdin of ") and "r-env:" in request, request
