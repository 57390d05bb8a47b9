"""The connect screen does what its footer says and speaks in its own words: Enter connects
from any field, its errors name its fields (not the CLI's options), a transport that does
not fit the Server field is refused, and a config file typed there lists its servers."""
import json
import re
import sys

from tui_helpers import TESTSERVER, needs_pty, server_command, tui  # noqa: F401 (tui: a fixture)

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
def test_an_http_server_that_comes_back_clears_disconnected_and_refreshes_the_lists(tui, start_server, tmp_path):
    """2025-11-25: the restarted server has forgotten the session; the next request starts a
    new one, and the title and the lists follow."""
    from conftest import RunningServer

    server = start_server()
    port = int(server.url.split(":")[2].split("/")[0])
    screen = tui(server.url, "--protocol-version", "2025-11-25", **SMALL)
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
    finally:
        again.stop()
