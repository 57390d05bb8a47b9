"""mcp-tui's authorization as the authorization server sees it: tests/testserver.py --auth
records every request to its metadata, registration, authorization, token and revocation
endpoints and to /mcp (--record, "auth" lines), so these tests check the wire, not just the
outcome: PKCE, state, resource, redirect URIs, where the token went, rotation and reuse."""
import base64
import hashlib
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import MCP_TUI, ROOT, wait_for

BROWSER = "%s %s %%s" % (sys.executable, ROOT / "tests" / "interop" / "fetch_url.py")
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"


def seen(server, endpoint=None):
    """What the server saw: [{"http": {method, path, headers}, "auth": {...}}], in order."""
    return server.auth_records(endpoint)


def s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).decode().rstrip("=")


def wait_until_expired(cli, timeout=30.0):
    """Poll `auth status` until the stored token counts as expired."""

    def expired():
        tokens = cli("auth", "status", "--format", "json").json()["tokens"]
        return tokens and all(token["expired"] for token in tokens)

    wait_for(expired, timeout, what="the stored token's expiry")


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_the_authorization_code_flow_on_the_wire(cli, start_server, era):
    server = start_server("--auth")
    origin = server.url[:-len("/mcp")]
    out = cli("--url", server.url, "--protocol-version", era, "tool", "list", env={"BROWSER": BROWSER})
    assert out.code == 0, out
    records = seen(server)
    endpoints = [r["auth"]["endpoint"] for r in records]
    # discovery in the brief's order, each document fetched once, the root PRM never probed
    first_token_call = endpoints.index("token")
    assert endpoints[:first_token_call] == ["mcp", "protected_resource_metadata", "authorization_server_metadata",
                                            "register", "authorize"], endpoints
    assert records[0]["auth"]["status"] == 401
    assert records[1]["http"]["path"] == PRM_PATH
    # the token goes to /mcp only, in the header only
    for record in records:
        authorization = record["http"]["headers"].get("authorization", "")
        if record["auth"]["endpoint"] != "mcp":
            assert not authorization.lower().startswith("bearer"), record
        assert "access_token" not in record["http"]["path"], record
    after = [r for r in records[first_token_call + 1:] if r["auth"]["endpoint"] == "mcp"]
    assert after and all(r["auth"]["status"] is None for r in after), after
    assert all(r["http"]["headers"]["authorization"].startswith("Bearer at-") for r in after)
    # one redirect URI on loopback, the same string in DCR, /authorize and /token
    (register,), (authorize,), (token,) = seen(server, "register"), seen(server, "authorize"), seen(server, "token")
    redirect = authorize["auth"]["params"]["redirect_uri"]
    assert urlsplit(redirect).hostname == "127.0.0.1" and urlsplit(redirect).scheme == "http"
    assert register["auth"]["params"]["redirect_uris"] == [redirect]
    assert "refresh_token" in register["auth"]["params"]["grant_types"]
    assert token["auth"]["params"]["redirect_uri"] == redirect
    # PKCE S256 with a verifier that matches, state with enough randomness, resource on both requests
    params = authorize["auth"]["params"]
    assert params["code_challenge_method"] == "S256" and params["response_type"] == "code"
    assert params["code_challenge"] == s256(token["auth"]["params"]["code_verifier"])
    assert len(params["state"]) >= 22
    assert params["resource"] == token["auth"]["params"]["resource"] == server.url
    assert params["scope"] == "mcp:basic"
    assert token["auth"]["auth_method"] == "none" and token["auth"]["status"] == 200
    assert "iss" not in params and "code_verifier" not in params


def test_refresh_rotation_and_step_up_reuse_the_registration(cli, start_server):
    server = start_server("--auth", "--token-ttl", "1")
    env = {"BROWSER": BROWSER}
    assert cli("--url", server.url, "tool", "list", env=env).code == 0
    for _ in range(2):
        wait_until_expired(cli)
        again = cli("--url", server.url, "tool", "list", env={"BROWSER": "false"})
        assert again.code == 0, again
    refreshes = [r["auth"] for r in seen(server, "token") if r["auth"]["params"]["grant_type"] == "refresh_token"]
    assert len(refreshes) >= 2 and all(r["status"] == 200 for r in refreshes), refreshes
    used = [r["params"]["refresh_token"] for r in refreshes]
    assert len(set(used)) == len(used), "a rotated refresh token was presented again"
    assert all(r["params"]["resource"] == server.url for r in refreshes)
    stepped = cli("--url", server.url, "tool", "call", "admin_echo", "message=up", env=env)
    assert stepped.code == 0, stepped
    assert len(seen(server, "register")) == 1
    authorizations = [r["auth"]["params"] for r in seen(server, "authorize")]
    assert len(authorizations) == 2
    assert authorizations[0]["state"] != authorizations[1]["state"]
    assert authorizations[0]["code_challenge"] != authorizations[1]["code_challenge"]
    forbidden = [r for r in seen(server, "mcp") if r["auth"]["status"] == 403]
    assert len(forbidden) == 1 and forbidden[0]["auth"]["tool"] == "admin_echo"


def test_client_credentials_on_the_wire(cli, start_server):
    server = start_server("--auth", "--auth-client", "robot:s3cret", "--auth-no-dcr")
    out = cli("--url", server.url, "--grant", "client_credentials", "--client-id", "robot", "--client-secret",
              "s3cret", "--scope", "mcp:basic admin", "tool", "call", "admin_echo", "message=hi",
              env={"BROWSER": "false"})
    assert out.code == 0, out
    assert not seen(server, "authorize") and not seen(server, "register")
    (grant,) = [r["auth"] for r in seen(server, "token")]
    assert grant["params"]["grant_type"] == "client_credentials" and grant["auth_method"] == "client_secret_basic"
    # named in the form too, as RFC 6749 3.2.1 allows: the official Python SDK's token endpoint requires it
    assert grant["params"]["client_id"] == "robot" and "client_secret" not in grant["params"]
    assert grant["params"]["scope"] == "mcp:basic admin" and grant["params"]["resource"] == server.url
    assert [r["auth"]["status"] for r in seen(server, "mcp")][-1] is None
    assert "s3cret" not in out.out + out.err


class LookalikeHost(object):
    """A host whose name only looks like loopback (127.0.0.1.evil.example), reached through an
    HTTP proxy as such a name would be (the proxy resolves it, wherever it points): this stands
    in for the proxy and for the MCP server and authorization server behind it, and records
    every request it gets. Its metadata is consistent, so only the loopback check can stop a
    client from sending a registration or a client secret to it over plain HTTP. Reached
    directly, it is a hostile authorization server on loopback: ``token_body`` is what its token
    endpoint answers (raw), ``padding`` bytes make its resource metadata that much larger,
    ``authorization_server`` is the one its resource metadata names (itself unless told)."""

    def __init__(self, token_body=None, padding=0, address="127.0.0.1", authorization_server=None):
        import http.server
        import threading

        self.requests = []
        host = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.answer()

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.answer()

            def answer(self):
                parts = urlsplit(self.path)
                host.requests.append((self.command, self.path, self.headers.get("Authorization")))
                origin = "http://" + (parts.netloc or self.headers["Host"])
                if parts.path == "/mcp":
                    metadata = origin + PRM_PATH
                    return self.send(401, {}, {"WWW-Authenticate": 'Bearer resource_metadata="%s"' % metadata})
                if parts.path == PRM_PATH:
                    return self.send(200, {"resource": origin + "/mcp",
                                           "authorization_servers": [authorization_server or origin],
                                           "padding": "x" * padding})
                if parts.path == "/token" and token_body is not None:
                    return self.send(200, None, raw=token_body)
                if parts.path == "/.well-known/oauth-authorization-server":
                    return self.send(200, {"issuer": origin, "authorization_endpoint": origin + "/authorize",
                                           "token_endpoint": origin + "/token",
                                           "registration_endpoint": origin + "/register",
                                           "code_challenge_methods_supported": ["S256"]})
                self.send(400 if self.command == "POST" else 404, {"error": "invalid_request"})

            def send(self, status, document, headers=None, raw=None):
                body = json.dumps(document).encode() if raw is None else raw
                self.send_response(status)
                for name, value in dict(headers or {}, **{"Content-Type": "application/json"}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer((address, 0), Handler)
        self.proxy = "http://%s:%d" % (address, self.server.server_address[1])
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def lookalike():
    host = LookalikeHost()
    yield host
    host.stop()


@pytest.mark.parametrize("name", ["127.0.0.1.evil.example", "127.evil.example"])
@pytest.mark.parametrize("grant", ["authorization_code", "client_credentials"])
def test_a_host_that_only_looks_like_loopback_gets_no_credentials_over_plain_http(cli, lookalike, name, grant):
    url = "http://%s:%s/mcp" % (name, lookalike.proxy.rsplit(":", 1)[1])
    flags = ["--client-id", "robot", "--client-secret", "s3cret-of-robot"] if grant == "client_credentials" else []
    out = cli("--url", url, "--proxy", lookalike.proxy, "--grant", grant, "--no-browser", "--timeout", "10", *flags,
              "tool", "list", env={"BROWSER": "false"})
    assert out.code == 1, out
    assert ("POST", url, None) in lookalike.requests  # the proxy did carry the run there
    assert not [r for r in lookalike.requests if r[0] == "POST" and not r[1].endswith("/mcp")], lookalike.requests
    lines = [line for line in out.err.splitlines() if line.startswith("mcp-tui:")]
    assert lines == ["mcp-tui: the authorization server http://%s:%s is not HTTPS; mcp-tui sends credentials only "
                     "over HTTPS (or to loopback)" % (name, lookalike.proxy.rsplit(":", 1)[1])], out
    assert "s3cret-of-robot" not in out.out + out.err


@pytest.mark.parametrize("grant", ["authorization_code", "client_credentials"])
def test_a_loopback_address_with_a_zone_is_not_loopback(cli, grant):
    """127.0.0.1%25x.evil.example was taken for 127.0.0.1 (the part before the %): a hosts
    entry for that name would get the code and the PKCE verifier over plain HTTP. A zone
    makes an address a name; the authorization server it names is refused as not HTTPS."""
    port = None
    host = LookalikeHost(authorization_server="http://127.0.0.1%25x.evil.example:9")
    try:
        port = host.proxy.rsplit(":", 1)[1]
        flags = ["--client-id", "robot", "--client-secret", "s3cret-of-robot"] if grant == "client_credentials" else []
        out = cli("--url", host.proxy + "/mcp", "--grant", grant, "--no-browser", "--timeout", "10", *flags,
                  "tool", "list", env={"BROWSER": "false"})
    finally:
        host.stop()
    assert out.code == 1, out
    lines = [line for line in out.err.splitlines() if line.startswith("mcp-tui:")]
    assert lines == ["mcp-tui: the authorization server http://127.0.0.1%25x.evil.example:9 is not HTTPS; mcp-tui "
                     "sends credentials only over HTTPS (or to loopback)"], out
    assert port and [r[1] for r in host.requests] == ["/mcp", PRM_PATH], host.requests


def test_a_url_whose_host_has_a_zone_outside_brackets_is_refused_not_a_crash(cli, lookalike):
    """Through a proxy, http.client asserts on such a Host: `internal error: AssertionError`."""
    port = lookalike.proxy.rsplit(":", 1)[1]
    out = cli("--url", "http://127.0.0.1%%25x.evil.example:%s/mcp" % port, "--proxy", lookalike.proxy,
              "--timeout", "10", "tool", "list")
    assert (out.code, out.err) == (2, "mcp-tui: cannot use the URL: its host has a '%', which only an IPv6 "
                                      "address's zone may have ([fe80::1%25eth0])\n"), out
    assert lookalike.requests == []


def hostile_authorization(cli, state_dir, **behaviour):
    host = LookalikeHost(**behaviour)
    try:
        url = host.proxy + "/mcp"  # straight there: a loopback server, plain HTTP allowed
        out = cli("--url", url, "--grant", "client_credentials", "--client-id", "robot", "--client-secret", "s3cret",
                  "--timeout", "10", "tool", "list")
        return out, host.requests
    finally:
        host.stop()


def test_oauth_answers_over_the_fixed_limit_name_that_limit(cli, state_dir):
    out, _ = hostile_authorization(cli, state_dir, padding=2 << 20)
    assert out.code == 1, out
    assert out.err.startswith("mcp-tui: the answer from http://127.0.0.1:"), out
    assert "is larger than 1 MiB, mcp-tui's fixed limit on OAuth responses" in out.err
    assert "--max-message-size" not in out.err  # it does not govern these


def test_an_issued_token_with_a_line_break_is_never_sent(cli, state_dir):
    body = b'{"access_token": "at-1\\r\\nX-Injected: yes", "token_type": "Bearer", "expires_in": 60}'
    out, requests = hostile_authorization(cli, state_dir, token_body=body)
    assert out.code == 1, out
    assert "issued an access token with a space, line break or control character" in out.err, out
    assert len(out.err.strip().splitlines()) == 1, out
    assert [r for r in requests if r[1] == "/mcp"] == [("POST", "/mcp", None)]  # tried once, never with it
    assert "at-1" not in (state_dir / "auth.json").read_text() if (state_dir / "auth.json").exists() else True


def test_an_infinite_expiry_is_invalid_json_and_never_stored(cli, state_dir):
    body = b'{"access_token": "at-1", "token_type": "Bearer", "expires_in": Infinity}'
    out, requests = hostile_authorization(cli, state_dir, token_body=body)
    assert out.code == 1, out
    assert out.err.endswith("failed (HTTP 200): the answer is not a JSON object\n"), out
    stored = state_dir / "auth.json"
    assert not stored.exists() or "Infinity" not in stored.read_text()
    assert not [r for r in requests if (r[2] or "").startswith("Bearer")], requests  # no token went anywhere


def outward_address():
    """This machine's address on its way out (not loopback), or None."""
    import socket

    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the route
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_plain_http_to_loopback_is_not_carried_off_the_machine_by_a_proxy(cli):
    """A loopback authorization server is reached over plain HTTP; through a proxy on another
    address, the client secret would cross the network in clear to be 'loopback' there."""
    address = outward_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    proxy = LookalikeHost(address=address)
    try:
        out = cli("--url", "http://127.0.0.1:9/mcp", "--proxy", proxy.proxy, "--grant", "client_credentials",
                  "--client-id", "robot", "--client-secret", "s3cret-of-robot", "--timeout", "10", "tool", "list")
    finally:
        proxy.stop()
    assert out.code == 1, out
    assert ("POST", "http://127.0.0.1:9/mcp", None) in proxy.requests  # the MCP request did go that way
    assert not [r for r in proxy.requests if r[0] == "POST" and not r[1].endswith("/mcp")], proxy.requests
    assert out.err == ("mcp-tui: http://127.0.0.1:9 is plain HTTP on loopback, but the proxy %s would carry it off "
                       "this machine; mcp-tui sends credentials only over HTTPS (or straight to loopback) (add the "
                       "host to no_proxy, or pass --proxy '')\n" % proxy.proxy), out
