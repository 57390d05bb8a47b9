"""The TUI against an OAuth-protected server (tests/testserver.py --auth): the browser step
has its own screen with a countdown that Esc cancels, and the server tab shows what was
granted, never the token."""
import json

import pytest

from tui_helpers import needs_pty, tui  # noqa: F401 (tui: a fixture)

from test_auth import BROWSER


@needs_pty
@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_the_tui_authorizes_and_shows_the_grant_without_the_token(tui, start_server, state_dir, era):
    server = start_server("--auth")
    screen = tui("--url", server.url, "--protocol-version", era, env={"BROWSER": BROWSER})
    screen.wait_for("Tools (")
    screen.send("4")
    screen.wait_for("Authorized:   at http://127.0.0.1:")
    text = screen.text()
    assert "expires in" in text and "scope " in text
    stored = json.loads((state_dir / "auth.json").read_text())["tokens"].values()
    tokens = [token[name] for token in stored for name in ("accessToken", "refreshToken") if token.get(name)]
    assert tokens and not any(token in text for token in tokens)


@needs_pty
def test_esc_on_the_authorization_screen_cancels_the_connection(tui, start_server):
    server = start_server("--auth")
    screen = tui("--url", server.url, env={"BROWSER": "false"})  # a browser that never arrives
    screen.wait_all("Authorize", "The server needs authorization at 127.0.0.1:", "/authorize?", "Waiting ")
    screen.send("esc")
    screen.wait_for("authorization cancelled")


@needs_pty
def test_ctrl_r_after_a_cancelled_authorization_asks_again(tui, start_server):
    server = start_server("--auth")
    screen = tui("--url", server.url, env={"BROWSER": "false"})
    screen.wait_for(lambda t: "Waiting for the authorization at 127.0.0.1:" in screen.status_line()  # not "Connected"
                    and "Authorize" in t, what="the wait for the authorization")
    screen.send("esc")
    screen.wait_for("authorization cancelled")
    screen.wait_for("^R retry")
    screen.send("ctrl-r")  # the same attempt again: the browser step is shown again, not the old failure
    screen.wait_all("Authorize", "The server needs authorization at 127.0.0.1:", "Waiting ")
    screen.send("esc")
    screen.wait_for("authorization cancelled")
