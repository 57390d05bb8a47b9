"""The curses TUI against servers mcp-tui did not write: the official Python SDK, FastMCP
and the reference everything server, driven in a pseudo-terminal as a newcomer would
(see tests/tui_helpers.py). Each test skips when its peer is not installed, as the other
interop tests do."""
import re
import shlex

import pytest
from tui_helpers import needs_pty, open_tool, tui, wait_for_form  # noqa: F401 (tui: a fixture)

from .conftest import _start_peer, direct_argv
from .interop_helpers import FASTMCP_SERVER, SDK_SERVER
from .test_interop_auth import BROWSER
from .test_interop_everything import everything_bin

SMALL = {"columns": 80, "rows": 24}


@needs_pty
def test_an_sdk_http_server_that_stops_mid_session_is_described_in_words(tui, sdk_python, peer_log_dir):
    """uvicorn cuts the open listen stream mid-chunk when it stops; http.client's
    IncompleteRead must not reach the status line as "IncompleteRead(0 bytes read)"."""
    peer = _start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-http-stops", peer_log_dir)
    try:
        screen = tui("--url", peer.url, **SMALL)
        screen.wait_for("Tools (5)")
        open_tool(screen, "echo")
        screen.type("kept")
        peer.stop()
        screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: "), what="Disconnected")
        assert "IncompleteRead" not in screen.status_line()
        assert "[disconnected]" in screen.title_line() and "kept" in screen.text()
    finally:
        peer.stop()


@needs_pty
def test_empty_lists_say_so_in_words(tui, fastmcp_http):
    """FastMCP offers resources and prompts and lists none: the tabs said "None.", which
    reads as a leaked Python None. (The session's FastMCP peer on HTTP: listing changes
    nothing there, and a FastMCP start is about 2 s of CPU.)"""
    screen = tui("--url", fastmcp_http.url, **SMALL)
    screen.wait_for("Tools (7)")
    screen.send("2")
    screen.wait_all("Resources (0+0)", "The server lists none.")
    screen.send("3")
    screen.wait_all("Prompts (0)", "The server lists none.")
    assert "None." not in screen.text()


@needs_pty
def test_fastmcp_tasks_from_the_tui(tui, fastmcp_python):
    """A task-only tool: the plain call points at Ctrl+T, task mode follows it to its result,
    an input request inside a task opens a form, and the tasks screen cancels a slow job.
    (The peer starts directly: the TUI's environment is not the one the peer zygote serves.)"""
    screen = tui(shlex.join(direct_argv(fastmcp_python, FASTMCP_SERVER, "--transport", "stdio")), **SMALL)
    screen.wait_for("Tools (7)")
    open_tool(screen, "render_report")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "press Ctrl+T for task mode" in t, what="the advice")
    screen.send("ctrl-t", "ctrl-x")
    screen.wait_for("Q3 revenue: $5.1M across 1,502 orders")
    screen.send("esc", "esc")  # back to the list, and clear its filter
    open_tool(screen, "ask_name")
    screen.send("ctrl-t", "ctrl-x")
    wait_for_form(screen, "Input requested", "Please enter your name.")
    screen.type("Zoë")
    screen.send("ctrl-x")
    screen.wait_for("Hello, Zoë!")
    screen.send("esc", "esc")
    open_tool(screen, "slow_job")
    screen.send("ctrl-t", "ctrl-x")
    screen.wait_for("Working: step")
    screen.send("esc", "T")
    screen.wait_for(lambda t: "slow_job" in t.splitlines()[3] and "working" in t.splitlines()[3], what="the job")
    screen.send("c")
    screen.wait_for(lambda t: "Cancel task" in screen.status_line() and "y/n" in screen.status_line(),
                    what="the question, kept while the job reports progress")
    screen.send("y")
    screen.wait_for(lambda t: "cancelled" in t.splitlines()[3], what="the job cancelled")


@needs_pty
def test_everything_elicitation_form_with_every_field_type(tui):
    """The reference server's elicitation asks for strings with formats, a boolean, numbers
    and single and multiple choices; the form takes them all at 80x24."""
    screen = tui("%s stdio" % everything_bin(), **SMALL)
    screen.wait_for("Tools (")
    open_tool(screen, "trigger-elicitation-request")
    screen.send("ctrl-x")
    wait_for_form(screen, "Input requested", "Untitled Multiple Select")
    screen.type("Ada")
    screen.send("ctrl-x")
    screen.wait_all("User provided the requested information", "Name: Ada", '"untitledMultipleSelectEnum"')


@needs_pty
@pytest.mark.parametrize("name", ["fastmcp_auth_http", "sdk_auth_http", "fastmcp_proxy_http"])
def test_the_tui_authorizes_at_third_party_authorization_servers(tui, request, name):
    """FastMCP's InMemoryOAuthProvider, its OAuthProxy and the SDK's mcp.server.auth: the
    browser step (the stand-in browser follows the redirects), a tool call with the token,
    and the grant on the server tab."""
    peer = request.getfixturevalue(name)
    screen = tui("--url", peer.url, env={"BROWSER": BROWSER}, **SMALL)
    screen.wait_for("Tools (2)")
    open_tool(screen, "whoami")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"client \S+ scopes -", t), what="whoami's answer")
    screen.send("esc", "esc", "4")
    screen.wait_for("Authorized:   at http://127.0.0.1:")


@needs_pty
@pytest.mark.parametrize("name", ["fastmcp_auth_scoped_http", "sdk_auth_scoped_http"])
def test_the_tui_steps_up_when_the_token_lacks_a_scope(tui, request, name):
    """--scope asks for less than the server needs: the 403 starts a step-up (the SDK's names
    no scope; its resource metadata does), the server refuses the first registration's scope,
    mcp-tui registers again, and the call shows its answer, all without a key pressed."""
    peer = request.getfixturevalue(name)
    screen = tui("--url", peer.url, "--scope", "mcp:read", env={"BROWSER": BROWSER}, **SMALL)
    screen.wait_for("Tools (2)")
    open_tool(screen, "whoami")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: re.search(r"client \S+ scopes mcp:read mcp:write", t), what="whoami's answer")
