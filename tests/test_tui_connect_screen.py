"""The connect screen does what its footer says and speaks in its own words: Enter connects
from any field, its errors name its fields (not the CLI's options), a transport that does
not fit the Server field is refused, and a config file typed there lists its servers."""
import json
import re
import sys

import pytest

from tui_helpers import ERAS, TESTSERVER, needs_pty, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}


def connect_screen(tui, **options):
    screen = tui(**dict(SMALL, **options))
    screen.wait_for("Connect to an MCP server")
    return screen


def refused_with_transport(screen, url, transport, refusal):
    """``url`` in Server, ``transport`` chosen, Enter: the status line says ``refusal``."""
    screen.wait_for("Connect to an MCP server")
    screen.paste(url)
    screen.send("tab", *["right"] * ["auto", "stdio", "http", "sse"].index(transport))
    screen.wait_for("< %s >" % transport)
    screen.send("enter")
    screen.wait_for(lambda t: refusal in screen.status_line(), what="the refusal")
    return screen


@needs_pty
def test_enter_in_the_server_field_connects(tui):
    screen = connect_screen(tui)
    screen.type(server_command())
    screen.send("enter")
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected")


@needs_pty
def test_a_header_without_its_colon_is_refused_in_the_screens_words(tui):
    screen = connect_screen(tui)
    screen.type(server_command())
    screen.send("tab", "tab", "tab")  # onto the first Header
    screen.type("X-Team")
    screen.send("enter")
    screen.wait_for(lambda t: "Header needs 'Name: value'" in screen.status_line(), what="the refusal")
    assert "--header" not in screen.text()


@needs_pty
def test_transport_stdio_with_a_url_is_refused_not_ignored(tui, start_server):
    server = start_server()
    screen = refused_with_transport(tui(**SMALL), server.url, "stdio",
                                    "Transport stdio starts a command line; Server holds a URL")
    screen.send("left", "enter")  # auto
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected")


@needs_pty
def test_an_sse_failure_is_explained_with_the_transport_field(tui, start_server):
    server = start_server()
    screen = refused_with_transport(tui(columns=250), server.url, "sse", "choose Transport auto")  # the whole reason
    assert "--transport" not in screen.text()


@needs_pty
def test_a_config_file_typed_into_server_lists_its_servers(tui, tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"mine": {"command": sys.executable, "args": [str(TESTSERVER)]}}}))
    screen = connect_screen(tui, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
                            cwd=tmp_path, columns=250)  # the status line holds the whole path
    screen.paste(str(config))
    screen.send("enter")
    screen.wait_all("1 server in %s: Enter on one connects." % config, "[ mine (servers.json) ]")
    assert "Errno" not in screen.text()
    screen.send("enter")
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_an_http_server_that_comes_back_clears_disconnected_and_refreshes_the_lists(tui, start_server, tmp_path, era):
    """2025-11-25: the restarted server has forgotten the session; the next request starts a
    new one, and the title and the lists follow. 2026-07-28: the subscriptions/listen stream
    ended with the old server; it is opened on the new one, so its list changes come again."""
    from conftest import RunningServer

    server = start_server()
    port = int(server.url.split(":")[2].split("/")[0])
    screen = tui(server.url, *ERAS[era], **SMALL)
    text = screen.wait_for(lambda t: re.search(r"Tools \((\d+)\)", t), what="the tools listed")
    before = int(re.search(r"Tools \((\d+)\)", text).group(1))
    server.stop()
    screen.wait_for(lambda t: "[disconnected]" in screen.title_line(), what="the loss noticed")
    again = RunningServer(["--http", "127.0.0.1:%d" % port, "--record", str(tmp_path / "again.jsonl"),
                           "--big-text", "1"], tmp_path / "again.jsonl")  # one more tool: big_text
    try:
        screen.send("p")
        screen.wait_for(lambda t: "[disconnected]" not in screen.title_line() and "Tools (%d)" % (before + 1) in t,
                        what="connected again, with the lists refreshed")
        open_tool(screen, "toggle_extra_tool")
        screen.send("ctrl-x")
        screen.wait_for("Added tool 'extra'")
        screen.send("esc")
        screen.wait_for(lambda t: any(line.startswith(" extra ") for line in screen.lines()),
                        what="the list change, on the stream opened again: the tool extra listed")
        assert "[disconnected]" not in screen.title_line()
    finally:
        again.stop()


ENV_AND_CWD_TOOL = {"name": "where", "description": "Says its environment and directory",
                    "inputSchema": {"type": "object", "properties": {}}}
ENV_AND_CWD_HANDLER = '''
    elif method == "tools/call":
        import os
        text = "GREETING=%s MODE=%s cwd=%s" % (os.environ.get("GREETING"), os.environ.get("MODE"), os.getcwd())
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}]}})
'''


@needs_pty
def test_env_and_directory_fields_reach_the_stdio_server(tui, tmp_path):
    from tui_helpers import one_tool_server, open_tool

    home = tmp_path / "home"
    home.mkdir()
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    screen = connect_screen(tui, columns=120, rows=40, env={"HOME": str(home), "XDG_CONFIG_HOME": str(home)})
    screen.paste(one_tool_server(tmp_path, ENV_AND_CWD_TOOL, ENV_AND_CWD_HANDLER))
    screen.send(*["tab"] * 6)  # past Transport, Protocol and the three Headers: Env
    screen.paste("GREETING='hello there' MODE=fast")
    screen.send("tab")
    screen.paste(str(workdir))
    screen.send("enter")
    screen.wait_for(lambda t: "Connected to where-server" in screen.status_line(), what="connected")
    open_tool(screen, "where")
    screen.send("ctrl-x")
    screen.wait_for("GREETING=hello there MODE=fast cwd=%s" % workdir)


@needs_pty
def test_an_env_value_is_masked_where_the_server_echoes_it(tui, tmp_path):
    screen = connect_screen(tui, columns=120, rows=40, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    screen.paste('%s -c "import os, sys; sys.exit(\'my key is \' + os.environ[\'API_KEY\'])"' % sys.executable)
    screen.send(*["tab"] * 6)
    screen.paste("API_KEY=sk-very-secret-value")
    screen.send("enter")
    screen.wait_all("Could not connect", "my key is env:")
    shown = [line for line in screen.lines() if "API_KEY=sk-very-secret-value" not in line]  # but its own field
    assert len(shown) == len(screen.lines()) - 1 and "sk-very-secret-value" not in "\n".join(shown)


@needs_pty
def test_a_directory_that_is_not_one_is_refused_by_its_field_name(tui, tmp_path):
    screen = connect_screen(tui, columns=250)  # the status line holds the whole path
    screen.type(server_command())
    screen.send(*["tab"] * 7)
    screen.paste(str(tmp_path / "missing"))
    screen.send("enter")
    screen.wait_for(lambda t: "Directory %s is not a directory" % (tmp_path / "missing") in screen.status_line(),
                    what="the refusal")


@needs_pty
def test_client_id_and_scope_fields_go_into_the_authorization(tui, start_server):
    server = start_server("--auth")
    screen = connect_screen(tui, columns=120, rows=40, env={"BROWSER": "false"})
    screen.paste(server.url)
    screen.send(*["tab"] * 8)  # Client ID
    screen.type("my-own-client")
    screen.send("tab")
    screen.type("tools:read extra")
    screen.send("enter")
    screen.wait_all("Authorize", "Waiting ")
    screen.send("ctrl-y")
    screen.wait_for("URL copied")
    url = screen.clipboard()
    assert "client_id=my-own-client" in url and "scope=tools%3Aread+extra" in url.replace("%20", "+")
    screen.send("esc")
    screen.wait_for("authorization cancelled")


@needs_pty
def test_ctrl_y_on_a_config_server_copies_its_entry_with_the_files_placeholders(tui, tmp_path):
    config = tmp_path / "servers.json"
    local = {"command": sys.executable, "args": [str(TESTSERVER)],
             "env": {"API_KEY": "${MY_KEY}", "WRITTEN_IN": "literal-secret-123"}}
    remote = {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "blue",
                                                           "Cookie": "session=literal-cookie"}}
    config.write_text(json.dumps({"mcpServers": {"local": local, "remote": remote}}))
    screen = connect_screen(tui, env={"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                                      "MY_KEY": "expanded-key-value", "TOKEN": "expanded-token"},
                            cwd=tmp_path, columns=120, rows=40)
    screen.paste(str(config))
    screen.send("enter")
    screen.wait_all("2 servers in", "[ local (servers.json) ]", "^Y copy entry")
    screen.send("ctrl-y")
    screen.wait_for(lambda t: "Copied the config entry of local as JSON." in screen.status_line(), what="copied")
    copied = json.loads(screen.clipboard())
    assert copied == {"local": dict(local, env={"API_KEY": "${MY_KEY}", "WRITTEN_IN": "${WRITTEN_IN}"})}
    screen.send("tab")
    screen.send("ctrl-y")
    screen.wait_for(lambda t: "Copied the config entry of remote as JSON." in screen.status_line(), what="copied")
    copied = json.loads(screen.clipboard())
    assert copied == {"remote": dict(remote, headers={"Authorization": "Bearer ${TOKEN}", "X-Team": "blue",
                                                      "Cookie": "${COOKIE}"})}
    raw = bytes(screen.raw)
    assert not any(secret in raw for secret in (b"expanded-key-value", b"expanded-token", b"literal-secret-123",
                                                b"literal-cookie"))
