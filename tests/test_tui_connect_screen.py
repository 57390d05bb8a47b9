"""The connect screen does what its footer says and speaks in its own words: Enter connects
from any field, its errors name its fields (not the CLI's options), a transport that does
not fit the Server field is refused, and a config file typed there lists its servers."""
import json
import sys

from tui_helpers import TESTSERVER, needs_pty, server_command, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}


def connect_screen(tui, **options):
    screen = tui(**dict(SMALL, **options))
    screen.wait_for("Connect to an MCP server")
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
    screen = connect_screen(tui)
    screen.paste(server.url)
    screen.send("tab", "right")  # Transport: stdio
    screen.wait_for("< stdio >")
    screen.send("enter")
    screen.wait_for(lambda t: "Transport stdio starts a command line; Server holds a URL" in screen.status_line(),
                    what="the refusal")
    screen.send("left", "enter")  # auto
    screen.wait_for(lambda t: "Connected to mcp-tui test server" in screen.status_line(), what="connected")


@needs_pty
def test_an_sse_failure_is_explained_with_the_transport_field(tui, start_server):
    server = start_server()
    screen = connect_screen(tui, columns=250)  # the status line holds the whole reason
    screen.paste(server.url)
    screen.send("tab", "right", "right", "right")  # Transport: sse
    screen.wait_for("< sse >")
    screen.send("enter")
    screen.wait_for(lambda t: "choose Transport auto" in screen.status_line(), what="the field's words")
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
