"""Loopback is decided from a URL's host as a whole (issue 44 item 6): an IP literal in
127.0.0.0/8, ::1 or ::ffff:127.x, or the name localhost; anything with more labels is a
name that anyone can point anywhere, and gets nothing over plain HTTP. urlsplit's hostname
keeps only what is inside brackets: http://[::1].attacker.example was taken for ::1.
No test here sends anything off loopback: the refused names are never looked up."""
import pytest

from mcp_tui import AuthError, elicitation_url_host, is_loopback_url, require_secure_url, url_host
from test_auth_wire import LookalikeHost

LOOPBACK = ["http://127.0.0.1:8080/mcp", "http://127.9.9.9/", "http://[::1]:5/x", "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]:80/", "http://localhost/", "http://LocalHost:9/", "http://localhost./",
            "http://user:secret@[::1]:9/"]
NAMES = ["http://[::ffff:7f00:1].evil:8080/", "http://[::1].attacker.example/", "http://127.0.0.1.nip.io/",
         "http://localhost.evil/", "http://localhost.evil.:9/", "http://[::1]x/", "http://[localhost]/",
         "http://[127.0.0.1]/", "http://0127.0.0.1/", "http://127.0.0.1%25x.evil.example/", "http://localhost../",
         "http://[::2]/", "http://128.0.0.1/", "http://evil.example@127.0.0.1.evil.example/"]


@pytest.mark.parametrize("url", LOOPBACK)
def test_an_address_on_loopback_or_localhost_is_loopback(url):
    assert is_loopback_url(url), url


@pytest.mark.parametrize("url", NAMES)
def test_a_host_with_more_than_the_address_is_a_name(url):
    assert not is_loopback_url(url), url


def test_the_host_is_taken_whole_with_its_brackets():
    assert url_host("http://u:p@[::ffff:7f00:1].evil:8080/x") == "[::ffff:7f00:1].evil"
    assert url_host("http://[::1]:80/") == "[::1]"
    assert url_host("http://127.0.0.1.nip.io/") == "127.0.0.1.nip.io"


@pytest.mark.parametrize("url", ["http://[::ffff:7f00:1].evil:9/token", "http://[::1].attacker.example:9/token"])
def test_oauth_refuses_plain_http_to_a_bracketed_lookalike(url):
    with pytest.raises(AuthError) as raised:
        require_secure_url(url, "token endpoint")
    assert "is not HTTPS" in raised.value.message
    assert require_secure_url("http://[::1]:9/token", "token endpoint")  # the address itself is loopback


def test_a_url_elicitation_over_plain_http_to_a_lookalike_is_refused():
    with pytest.raises(ValueError, match="only https URLs are opened"):
        elicitation_url_host("http://[::1].attacker.example:9/consent")
    assert elicitation_url_host("http://[::1]:9/consent") == "::1:9"


@pytest.mark.parametrize("issuer", ["http://[::ffff:7f00:1].evil:9", "http://[::1].attacker.example:9"])
@pytest.mark.parametrize("grant", ["authorization_code", "client_credentials"])
def test_an_authorization_server_named_by_a_bracketed_lookalike_gets_nothing(cli, issuer, grant):
    """The resource metadata (on loopback) names an authorization server whose name only looks
    like loopback: refused as not HTTPS before any request to it (the code and the PKCE
    verifier, or the client secret, would go over plain HTTP to whatever the name resolves to)."""
    host = LookalikeHost(authorization_server=issuer)
    try:
        flags = ["--client-id", "robot", "--client-secret", "s3cret-of-robot"] if grant == "client_credentials" else []
        out = cli("--url", host.proxy + "/mcp", "--grant", grant, "--no-browser", "--timeout", "10", *flags,
                  "tool", "list")
    finally:
        host.stop()
    assert out.code == 1, out
    lines = [line for line in out.err.splitlines() if line.startswith("mcp-tui:")]
    assert lines == ["mcp-tui: the authorization server %s is not HTTPS; mcp-tui sends credentials only over HTTPS "
                     "(or to loopback)" % issuer], out
    assert "s3cret-of-robot" not in out.out + out.err
