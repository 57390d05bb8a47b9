"""The tokens screen (issue 35, item 5): the stored OAuth tokens as `auth status` lists them,
masked; f forgets one here, x revokes it as `auth logout` does; both ask first. Reached with
A outside forms and Ctrl+G on the connection screen."""
import json

from tui_helpers import needs_pty, tui  # noqa: F401 (tui: a fixture)

from test_auth import BROWSER


def stored(state_dir):
    return list(json.loads((state_dir / "auth.json").read_text())["tokens"].values())


def secrets_of(tokens):
    return [token[name] for token in tokens for name in ("accessToken", "refreshToken") if token.get(name)]


@needs_pty
def test_a_to_the_tokens_screen_and_x_revokes_the_token_as_auth_logout_does(tui, start_server, state_dir):
    server = start_server("--auth")
    screen = tui("--url", server.url, env={"BROWSER": BROWSER}, columns=160, rows=30)
    screen.wait_for("Tools (")
    tokens = stored(state_dir)
    assert tokens
    screen.send("A")
    screen.wait_for(lambda t: "Stored tokens" in screen.title_line(), what="the tokens screen")
    row = screen.wait_for("token:")
    assert "issuer http://127.0.0.1:" in row and server.url.split("/mcp")[0] in row
    assert not any(secret in screen.text() for secret in secrets_of(tokens))
    screen.send("x")
    screen.wait_for(lambda t: "Revoke the tokens for" in screen.status_line() and "y/n" in screen.status_line(),
                    what="the question")
    screen.send("y")
    screen.wait_for(lambda t: "logged out of" in screen.status_line() and "token revoked at" in screen.status_line(),
                    what="revoked")
    screen.wait_for("No stored tokens")
    assert stored(state_dir) == []


@needs_pty
def test_ctrl_g_on_the_connection_screen_and_f_forgets_a_token_after_asking(tui, start_server, state_dir):
    server = start_server("--auth")
    screen = tui("--url", server.url, env={"BROWSER": BROWSER}, columns=160, rows=30)
    screen.wait_for("Tools (")
    screen.send("C")
    screen.wait_for(lambda t: "Connect" in screen.title_line(), what="the connection screen")
    screen.send("ctrl-g")
    screen.wait_for(lambda t: "Stored tokens" in screen.title_line(), what="the tokens screen")
    screen.wait_for("token:")
    screen.send("f")
    screen.wait_for(lambda t: "Forget the token for" in screen.status_line(), what="the question")
    screen.send("n")  # kept
    screen.wait_for(lambda t: "Kept." in screen.status_line(), what="kept")
    assert len(stored(state_dir)) == 1
    screen.send("f")
    screen.wait_for(lambda t: "Forget the token for" in screen.status_line(), what="the question again")
    screen.send("y")
    screen.wait_for(lambda t: "Token forgotten here" in screen.status_line(), what="forgotten")
    screen.wait_for("No stored tokens")
    assert stored(state_dir) == []
