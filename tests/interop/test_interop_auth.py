"""mcp-tui's OAuth client against third-party authorization servers, run as a user runs it.

Two peers, each an MCP server that is its own authorization server on the same origin:
- FastMCP 4.1.4 behind its InMemoryOAuthProvider (fastmcp_auth_server.py);
- the official SDK's MCPServer with `mcp.server.auth` over a minimal in-memory provider
  (sdk_auth_server.py), which also binds tokens to the resource and takes the SEP-990
  identity-assertion grant.
Both: protected resource metadata, RFC 8414 metadata, dynamic client registration,
authorization code + PKCE, refresh with rotation, revocation. Their authorization endpoints
answer at once with a redirect (a signed-in user who consents), so the stand-in browser
(fetch_url.py, through $BROWSER as in tests/test_auth.py) lands on mcp-tui's loopback
listener. Each test gets its own HOME and state dir (its own auth.json); a peer is shared by
the tests of one worker, one at a time, so tests compare its counters (/peer/stats).
Also: FastMCP's OAuthProxy in front of an upstream identity provider (fastmcp_proxy_server.py),
and FastMCP behind a static API key with no OAuth at all (fastmcp_auth_server.py --static-token).
"""
import json
import re
import subprocess
import sys
import urllib.request

import pytest

from conftest import MCP_TUI_PROCESS  # noqa: E402 (tests/ is on sys.path: tests/conftest.py)

from .conftest import PeerProcess, _cli_env, cli_runner, make_cli_home
from .interop_helpers import (
    FASTMCP_AUTH_SERVER, INTEROP_DIR, REPO_ROOT, SDK_AUTH_SERVER, describe, json_output, tool_response,
)

FETCH_URL = INTEROP_DIR / "fetch_url.py"
BROWSER = "%s %s %%s" % (sys.executable, FETCH_URL)
NO_BROWSER = {"BROWSER": "false"}  # a run that tries to open a browser fails its authorization
AUTHORIZING_RE = re.compile(
    r"^mcp-tui: authorizing at 127\.0\.0\.1:\d+ in your browser: http://127\.0\.0\.1:\d+/authorize\?\S+$", re.M)
COUNTERS = ("registrations", "authorizations", "codeExchanges", "refreshes", "revocations", "liveAccessTokens")


@pytest.fixture
def home(tmp_path):
    return make_cli_home(tmp_path / "home")


@pytest.fixture
def cli(home):
    """mcp-tui with a private state dir and the stand-in browser."""
    return cli_runner(home, BROWSER=BROWSER)


@pytest.fixture(params=["fastmcp", "sdk"])
def peer(request):
    return request.getfixturevalue("%s_auth_http" % request.param)


@pytest.fixture(params=["fastmcp", "sdk"])
def scoped_peer(request):
    return request.getfixturevalue("%s_auth_scoped_http" % request.param)


def conn(peer, *extra):
    return ["--url", peer.url, "--timeout", "30"] + list(extra)


def ok(result):
    assert result.returncode == 0, describe(result)
    return result


def origin(peer):
    return peer.url.rsplit("/", 1)[0]  # the peers serve /mcp (or /sse) at the root


def stats(peer):
    with urllib.request.urlopen(origin(peer) + "/peer/stats", timeout=10) as response:
        return json.loads(response.read())


def forget_access_tokens(peer):
    request = urllib.request.Request(origin(peer) + "/peer/forget", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["forgotten"]


def state_file(home):
    return home / "state" / "mcp-tui" / "auth.json"


def age_stored_token(home):
    """Move the stored token's expiry into the past, as time would (no waiting)."""
    data = json.loads(state_file(home).read_text())
    for token in data["tokens"].values():
        token["obtainedAt"] -= 7200
        token["expiresAt"] = token["obtainedAt"] + 3600
    state_file(home).write_text(json.dumps(data))


def stored(home):
    """auth.json of this test's state dir: (the one token record, the registrations)."""
    data = json.loads(state_file(home).read_text())
    tokens = list(data["tokens"].values())
    assert len(tokens) == 1, data
    return tokens[0], data["registrations"]


def secrets_of(home):
    token, registrations = stored(home)
    values = [token["accessToken"], token.get("refreshToken")]
    values += [r.get("clientSecret") for r in registrations.values()]
    return [v for v in values if v]


def assert_no_secret(result, secrets):
    shown = result.stdout + result.stderr
    for secret in secrets:
        assert secret not in shown, "a credential reached the output\n" + describe(result)


def delta(before, after):
    return {key: after[key] - before[key] for key in COUNTERS}


def whoami_line(client_id, scopes="-"):
    """The first line of the peers' whoami answer (the SDK peer adds the token's resource)."""
    return re.compile(r"^client %s scopes %s( resource \S+)?$" % (re.escape(client_id), re.escape(scopes)))


def whoami(result):
    body = tool_response(result.stdout)
    assert body, describe(result)
    return body[0]


# --------------------------------------------------------------------------- both peers


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_first_command_authorizes_then_the_stored_token_is_used(cli, home, peer, era):
    before = stats(peer)
    first = ok(cli(*conn(peer, "--protocol-version", era), "tool", "list"))
    names = [line.split()[0] for line in first.stdout.splitlines() if line and not line.startswith(" ")]
    assert names == ["whoami", "add"], describe(first)
    assert len(AUTHORIZING_RE.findall(first.stderr)) == 1, describe(first)
    assert delta(before, stats(peer)) == dict(registrations=1, authorizations=1, codeExchanges=1, refreshes=0,
                                              revocations=0, liveAccessTokens=1)
    token, registrations = stored(home)
    assert token["server"] == peer.url and token["resource"] == peer.url
    assert token["issuer"].rstrip("/") == origin(peer)  # FastMCP's issuer ends in "/", the SDK's does not
    (registration,) = registrations.values()
    assert registration["clientId"] == token["clientId"]

    middle = stats(peer)
    second = ok(cli(*conn(peer, "--protocol-version", era), "tool", "call", "whoami", env=NO_BROWSER))
    assert "authoriz" not in second.stderr, describe(second)
    assert whoami_line(token["clientId"]).match(whoami(second)), describe(second)
    doc = json_output(ok(cli(*conn(peer, "--protocol-version", era), "--format", "json", "tool", "call", "add",
                             "a=2", "b=40", env=NO_BROWSER)))
    assert doc["result"]["structuredContent"] == {"result": 42}, doc
    assert delta(middle, stats(peer))["authorizations"] == 0


def test_server_and_auth_status_show_the_grant_masked(cli, home, peer):
    ok(cli(*conn(peer), "tool", "list"))
    secrets = secrets_of(home)
    server = ok(cli(*conn(peer), "server", env=NO_BROWSER))
    assert re.search(r"^Authorized:\s+at %s/?, scope -, expires in \d+m\d\ds \(refreshable\)$" % re.escape(
        origin(peer)), server.stdout, re.M), describe(server)
    status = ok(cli("auth", "status"))
    assert status.stdout.splitlines()[0] == peer.url, describe(status)
    assert re.search(r"token:[0-9a-f]{8}", status.stdout), describe(status)
    doc = json_output(ok(cli("auth", "status", "--format", "json")))
    (view,) = doc["tokens"]
    assert view["server"] == peer.url and view["refreshable"] is True and view["expired"] is False, doc
    for result in (server, status):
        assert_no_secret(result, secrets)
    assert not any(secret in json.dumps(doc) for secret in secrets)


def test_logout_revokes_the_token_at_the_server(cli, home, peer):
    ok(cli(*conn(peer), "auth", "login"))
    token, _ = stored(home)
    before = stats(peer)
    logout = ok(cli(*conn(peer), "--format", "json", "auth", "logout"))
    assert json_output(logout) == {"loggedOut": [{"server": peer.url, "issuer": token["issuer"], "revoked": True}]}
    assert delta(before, stats(peer))["revocations"] == 1
    assert json_output(ok(cli("auth", "status", "--format", "json"))) == {"tokens": []}
    # the server agrees: the old token (sent by hand, so mcp-tui cannot renew it) is refused
    stale = cli(*conn(peer, "--bearer", token["accessToken"]), "tool", "list", env=NO_BROWSER)
    assert stale.returncode == 1, describe(stale)
    assert token["accessToken"] not in stale.stdout + stale.stderr
    assert len(stale.stderr.strip().splitlines()) == 1, describe(stale)
    assert "HTTP 401" in stale.stderr and "refused the credentials given with --bearer" in stale.stderr, \
        describe(stale)  # it said "pass --bearer TOKEN", which the user had done


def test_an_expired_token_is_refreshed_before_use_without_a_browser(cli, home, peer):
    ok(cli(*conn(peer), "tool", "list"))
    old, _ = stored(home)
    age_stored_token(home)
    assert json_output(ok(cli("auth", "status", "--format", "json")))["tokens"][0]["expired"] is True
    before = stats(peer)
    again = ok(cli(*conn(peer), "tool", "call", "add", "a=1", "b=1", env=NO_BROWSER))
    assert tool_response(again.stdout)[:1] == ["2"], describe(again)
    assert "authoriz" not in again.stderr, describe(again)
    assert delta(before, stats(peer))["refreshes"] == 1
    new, _ = stored(home)
    assert new["accessToken"] != old["accessToken"]
    assert new["refreshToken"] != old["refreshToken"]  # FastMCP rotates; the spent one is not kept
    assert new["expiresAt"] > new["obtainedAt"]


def test_parallel_runs_refresh_an_expired_token_once(cli, home, peer):
    """Several commands started together after the token expired: one refreshes, the others
    take its token from the store. The refresh token rotates, so a second refresh with the
    old one would be refused, and that run used to forget the new token and open a browser."""
    ok(cli(*conn(peer), "tool", "list"))
    age_stored_token(home)
    before = stats(peer)
    env = _cli_env(home)
    env["BROWSER"] = "false"
    runs = [subprocess.Popen(MCP_TUI_PROCESS + conn(peer) + ["tool", "call", "add", "a=%d" % n, "b=1"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=str(REPO_ROOT), env=env) for n in range(6)]
    outputs = [run.communicate(timeout=90) for run in runs]  # bounded: each gives up after --timeout
    for n, (run, (out, err)) in enumerate(zip(runs, outputs)):
        done = subprocess.CompletedProcess(run.args, run.returncode, out, err)
        assert done.returncode == 0 and "authoriz" not in err, describe(done)
        assert tool_response(out)[:1] == [str(n + 1)], describe(done)
    assert delta(before, stats(peer))["refreshes"] == 1
    assert stored(home)[0]["expiresAt"] > stored(home)[0]["obtainedAt"]


def test_a_token_the_server_no_longer_knows_is_refreshed_on_its_401(cli, home, peer):
    ok(cli(*conn(peer), "tool", "list"))
    old, _ = stored(home)
    assert forget_access_tokens(peer) >= 1
    before = stats(peer)
    again = ok(cli(*conn(peer), "tool", "call", "add", "a=2", "b=2", env=NO_BROWSER))
    assert tool_response(again.stdout)[:1] == ["4"], describe(again)
    assert "authoriz" not in again.stderr, describe(again)
    assert delta(before, stats(peer))["refreshes"] == 1
    assert stored(home)[0]["accessToken"] != old["accessToken"]


@pytest.mark.parametrize("name,python", [("fastmcp", "fastmcp_python"), ("sdk", "sdk_python")])
def test_a_restarted_server_that_forgot_the_client_gets_a_new_registration(cli, home, request, peer_log_dir,
                                                                             name, python):
    """An in-memory authorization server restarts (on the same port) and forgets mcp-tui's
    client and tokens: the refresh is refused as an unknown client, so mcp-tui drops that
    registration and authorizes with a new one (it sent the browser to the server's error
    page for the old client id, and waited out --timeout, on every run)."""
    script = FASTMCP_AUTH_SERVER if name == "fastmcp" else SDK_AUTH_SERVER
    port = free_port()
    argv = [request.getfixturevalue(python), script, "--transport", "streamable-http", "--port", port]
    first = PeerProcess(argv, "%s-auth-restart" % name, peer_log_dir).start()
    try:
        ok(cli(*conn(first), "tool", "list"))
    finally:
        first.stop()
    again = PeerProcess(argv, "%s-auth-restarted" % name, peer_log_dir).start()
    try:
        result = ok(cli(*conn(again), "tool", "call", "add", "a=1", "b=2"))
        assert tool_response(result.stdout)[:1] == ["3"], describe(result)
        assert len(AUTHORIZING_RE.findall(result.stderr)) == 1, describe(result)
        counts = stats(again)
        assert counts["registrations"] == 1 and counts["codeExchanges"] == 1, counts
    finally:
        again.stop()


def test_no_credential_reaches_the_output_or_the_debug_log(cli, home, peer, tmp_path):
    log_file = tmp_path / "debug.log"
    first = ok(cli(*conn(peer), "--debug", "--log-file", log_file, "tool", "call", "whoami"))
    code = stats(peer)["lastCode"]
    secrets = secrets_of(home) + [code]
    assert_no_secret(first, secrets)
    text = log_file.read_text(encoding="utf-8", errors="replace")
    assert "/token" in text and "/register" in text  # the log covers the authorization requests
    for secret in secrets:
        assert secret not in text
    age_stored_token(home)
    refreshed = ok(cli(*conn(peer), "--debug", "tool", "call", "whoami", env=NO_BROWSER))
    assert_no_secret(refreshed, secrets + secrets_of(home))


def test_login_with_no_browser_prints_the_url_and_waits(home, peer):
    """`auth login --no-browser`: one line with the URL on stderr; the user opens it
    (here: fetch_url.py, as a browser elsewhere would) and the login completes."""
    env = _cli_env(home)
    env["BROWSER"] = "false"
    argv = MCP_TUI_PROCESS + conn(peer) + ["--no-browser", "auth", "login"]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(REPO_ROOT), env=env)
    try:
        line = proc.stderr.readline()  # bounded: mcp-tui gives up after --timeout
        match = re.match(r"^mcp-tui: to authorize at 127\.0\.0\.1:\d+, open this URL in a browser: (\S+)$", line)
        assert match, "unexpected first stderr line: %r" % line
        assert subprocess.run([sys.executable, str(FETCH_URL), match.group(1)], timeout=60).returncode == 0
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, (out, err)
    assert re.match(r"^authorized at %s/? for %s \(scope -; expires in \d+m\d\ds \(refreshable\)\)$" % (
        re.escape(origin(peer)), re.escape(peer.url)), out), (out, err)
    assert_no_secret(subprocess.CompletedProcess(argv, 0, out, err), secrets_of(home))


def test_scopes_from_the_challenge_are_asked_for_and_granted(cli, home, scoped_peer):
    peer = scoped_peer
    result = ok(cli(*conn(peer), "tool", "call", "whoami"))
    assert "&scope=mcp%3Aread+mcp%3Awrite" in result.stderr, describe(result)
    token, _ = stored(home)
    assert whoami_line(token["clientId"], "mcp:read mcp:write").match(whoami(result)), describe(result)
    assert token["scope"] == "mcp:read mcp:write"


def test_a_step_up_beyond_the_registered_scope_registers_again(cli, home, scoped_peer):
    """--scope asks for less than the server needs: its 403 insufficient_scope starts a
    step-up, which the SDK's authorization endpoint (FastMCP's too) refuses with invalid_scope
    because the client was registered for the smaller scope (RFC 7591 lets it hold a client to that);
    mcp-tui registers again for the union, once, and the call goes through."""
    peer = scoped_peer
    before = stats(peer)
    result = ok(cli(*conn(peer), "--scope", "mcp:read", "tool", "call", "whoami"))
    token, registrations = stored(home)
    assert whoami_line(token["clientId"], "mcp:read mcp:write").match(whoami(result)), describe(result)
    assert [r["clientId"] for r in registrations.values()] == [token["clientId"]]
    moved = delta(before, stats(peer))
    assert moved["registrations"] == 2 and moved["codeExchanges"] == 2, moved
    again = ok(cli(*conn(peer), "--scope", "mcp:read", "tool", "call", "add", "a=1", "b=2", env=NO_BROWSER))
    assert "authoriz" not in again.stderr, describe(again)


def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def register_client(peer, method, redirect_uri):
    """A client registered by hand (as an administrator would, for --client-id and
    --client-secret), with one exact redirect URI."""
    body = json.dumps({"client_name": "by hand", "redirect_uris": [redirect_uri], "token_endpoint_auth_method": method,
                       "grant_types": ["authorization_code", "refresh_token"]}).encode()
    request = urllib.request.Request(origin(peer) + "/register", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    return answer["client_id"], answer["client_secret"]


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_a_pre_registered_client_with_its_exact_redirect_uri(cli, home, peer, method):
    """Both peers compare redirect URIs exactly (no RFC 8252 loopback port leniency), so a
    client registered elsewhere needs --callback-port; the SDK's token endpoint wants the
    Basic client's client_id in the form as well (RFC 6749 3.2.1 allows it)."""
    port = free_port()
    client_id, secret = register_client(peer, method, "http://127.0.0.1:%d/callback" % port)
    before = stats(peer)
    options = conn(peer, "--client-id", client_id, "--client-secret", secret, "--callback-port", port)
    result = ok(cli(*options, "tool", "call", "whoami"))
    assert whoami_line(client_id).match(whoami(result)), describe(result)
    assert delta(before, stats(peer))["registrations"] == 0
    assert secret not in result.stdout + result.stderr
    if method == "client_secret_post":  # Basic cannot be revoked at the SDK: it wants client_secret in the form
        logout = ok(cli(*options, "--format", "json", "auth", "logout"))
        assert json_output(logout)["loggedOut"][0]["revoked"] is True, describe(logout)


# --------------------------------------------------------------------------- the SDK peer only


def provision_client(peer, **body):
    """A confidential client an administrator set up at the SDK peer: (client_id, secret)."""
    request = urllib.request.Request(origin(peer) + "/peer/clients", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.loads(response.read())
    return answer["client_id"], answer["client_secret"]


def test_the_token_is_bound_to_this_server(cli, sdk_auth_http):
    """The SDK peer refuses tokens whose RFC 8707 resource is not its /mcp: mcp-tui's
    resource parameter reaches the token, and the calls go through."""
    peer = sdk_auth_http
    result = ok(cli(*conn(peer), "tool", "call", "whoami"))
    assert whoami(result).endswith(" resource %s" % peer.url), describe(result)


def deny_next_authorization(peer):
    request = urllib.request.Request(origin(peer) + "/peer/deny", data=b"", method="POST")
    urllib.request.urlopen(request, timeout=10).close()


def test_a_refused_authorization_is_one_line_and_exit_1(cli, home, sdk_auth_http):
    """The user says no at the authorization server: its access_denied, in one line."""
    peer = sdk_auth_http
    deny_next_authorization(peer)
    refused = cli(*conn(peer), "tool", "list")
    assert refused.returncode == 1, describe(refused)
    assert refused.stderr.strip().splitlines()[-1] == (
        "mcp-tui: the authorization server refused: access_denied (The user did not approve the request)"), \
        describe(refused)
    assert refused.stdout == ""
    deny_next_authorization(peer)
    as_json = cli(*conn(peer), "--format", "json", "auth", "login")
    assert as_json.returncode == 1, describe(as_json)
    error = json.loads(as_json.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "auth" and error["exitCode"] == 1, error
    assert error["message"] == "the authorization server refused: access_denied (The user did not approve the request)"
    assert not state_file(home).exists() or not json.loads(state_file(home).read_text())["tokens"]


def test_a_kept_session_that_must_authorize_again_tells_the_command(cli, home, sdk_auth_http):
    """`session open` authorizes in the foreground; when the server later refuses the token
    and its refresh token, the keeper authorizes again, and the command waiting on it shows
    the browser line (the keeper's own stderr goes nowhere)."""
    peer = sdk_auth_http
    opened = ok(cli(*conn(peer), "session", "open", "auth-kept"))
    try:
        assert len(AUTHORIZING_RE.findall(opened.stderr)) == 1, describe(opened)
        request = urllib.request.Request(origin(peer) + "/peer/forget?all=1", data=b"", method="POST")
        urllib.request.urlopen(request, timeout=10).close()
        before = stats(peer)
        again = ok(cli("@auth-kept", "tool", "call", "add", "a=20", "b=22"))
        assert tool_response(again.stdout)[:1] == ["42"], describe(again)
        assert len(AUTHORIZING_RE.findall(again.stderr)) == 1, describe(again)
        assert delta(before, stats(peer))["authorizations"] == 1
        server = ok(cli("@auth-kept", "server"))  # the keeper's grant, as a direct `server` shows it
        assert re.search(r"^Authorized:\s+at %s, scope -, expires in \d+m\d\ds \(refreshable\)$" % re.escape(
            origin(peer)), server.stdout, re.M), describe(server)
        assert_no_secret(server, secrets_of(home))
    finally:
        cli("session", "close", "auth-kept")


def test_the_legacy_sse_transport_is_authorized_too(cli, home, sdk_auth_sse):
    """The 2024-11-05 HTTP+SSE transport: the 401 comes on the GET of the stream; the token
    then goes on that GET and on every POST to the endpoint the stream names."""
    peer = sdk_auth_sse
    first = ok(cli("--url", peer.url, "--timeout", "30", "tool", "call", "whoami"))
    assert len(AUTHORIZING_RE.findall(first.stderr)) == 1, describe(first)
    token, _ = stored(home)
    assert whoami(first) == "client %s scopes - resource %s" % (token["clientId"], peer.url), describe(first)
    second = ok(cli("--url", peer.url, "--timeout", "30", "tool", "call", "add", "a=3", "b=4", env=NO_BROWSER))
    assert tool_response(second.stdout)[:1] == ["7"] and "authoriz" not in second.stderr, describe(second)


def test_cross_app_access_trades_an_id_token_without_a_browser(cli, home, sdk_auth_http):
    """SEP-990: the IdP's ID token becomes an ID-JAG at the IdP (here a stand-in on the same
    origin), which the SDK's token endpoint trades for an access token (jwt-bearer)."""
    peer = sdk_auth_http
    client_id, secret = provision_client(peer, grant_types=["urn:ietf:params:oauth:grant-type:jwt-bearer"])
    id_token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.c2ln"
    options = conn(peer, "--client-id", client_id, "--client-secret", secret, "--id-token", id_token,
                   "--idp-token-endpoint", origin(peer) + "/idp/token")
    before = stats(peer)
    result = ok(cli(*options, "tool", "call", "whoami", env=NO_BROWSER))
    assert whoami(result) == "client %s scopes - resource %s" % (client_id, peer.url), describe(result)
    after = stats(peer)
    assert after["assertions"] - before["assertions"] == 1
    assert delta(before, after)["authorizations"] == 0 and delta(before, after)["registrations"] == 0
    for secret_value in [secret, id_token] + secrets_of(home):
        assert secret_value not in result.stdout + result.stderr, describe(result)
    (view,) = json_output(ok(cli("auth", "status", "--format", "json")))["tokens"]
    assert view["grant"] == "cross_app" and view["refreshable"] is False, view


# --------------------------------------------------------------------------- FastMCP with an API key


def test_a_bearer_only_server_asks_for_the_token_in_one_line(cli, home, fastmcp_static_token_http):
    """FastMCP behind StaticTokenVerifier answers 401 `Bearer` with no metadata: mcp-tui tries
    2025-03-26's default endpoints, finds no /register, and says to pass the token."""
    peer = fastmcp_static_token_http
    refused = cli(*conn(peer), "tool", "list", env=NO_BROWSER)
    assert refused.returncode == 1, describe(refused)
    assert refused.stderr.strip() == (
        "mcp-tui: %s asks for a token but publishes no authorization metadata: there is no OAuth to follow "
        "(pass a token it takes with --bearer TOKEN or --header 'Authorization: ...')" % peer.url), describe(refused)
    listed = ok(cli(*conn(peer, "--bearer", "dev-key-4f1c"), "tool", "list", env=NO_BROWSER))
    assert "whoami" in listed.stdout and "dev-key-4f1c" not in listed.stdout + listed.stderr, describe(listed)


def test_a_rejected_bearer_is_said_in_whole_sentences_and_once(cli, home, fastmcp_static_token_http):
    """FastMCP's 401 body and its WWW-Authenticate carry the same long description: it is cut
    after a sentence, and the challenge is named by its scheme and error (issue 22, item 12)."""
    peer = fastmcp_static_token_http
    refused = cli(*conn(peer, "--bearer", "wrong-key"), "tool", "list", env=NO_BROWSER)
    assert refused.returncode == 1, describe(refused)
    line = refused.stderr.strip()
    assert line.startswith("mcp-tui: HTTP 401 Unauthorized: invalid_token: Authentication failed."), describe(refused)
    assert "(WWW-Authenticate: Bearer error=\"invalid_token\")" in line, describe(refused)
    assert line.count("Authentication failed") == 1 and " in (" not in line, describe(refused)


# --------------------------------------------------------------------------- FastMCP's OAuthProxy


def test_through_fastmcp_s_oauth_proxy(cli, home, fastmcp_proxy_http):
    """The proxy registers mcp-tui, sends the browser on to the upstream identity provider,
    takes its answer on its own callback, and hands mcp-tui a code (with the RFC 9207 iss
    its metadata promises) for its own token; refresh goes through it to the upstream too."""
    peer = fastmcp_proxy_http
    before = stats(peer)
    first = ok(cli(*conn(peer), "tool", "call", "whoami"))
    assert whoami(first) == "client the-proxy scopes -", describe(first)  # the upstream's view
    assert len(AUTHORIZING_RE.findall(first.stderr)) == 1, describe(first)
    after = stats(peer)
    assert after["upstreamAuthorizations"] - before["upstreamAuthorizations"] == 1
    assert after["upstreamCodeExchanges"] - before["upstreamCodeExchanges"] == 1
    token, _ = stored(home)
    assert token["authMethod"] == "none"  # the proxy's clients are public
    again = ok(cli(*conn(peer), "tool", "call", "add", "a=5", "b=6", env=NO_BROWSER))
    assert tool_response(again.stdout)[:1] == ["11"] and "authoriz" not in again.stderr, describe(again)
    age_stored_token(home)
    refreshed = ok(cli(*conn(peer), "--debug", "tool", "call", "add", "a=1", "b=6", env=NO_BROWSER))
    assert tool_response(refreshed.stdout)[:1] == ["7"] and "authoriz" not in refreshed.stderr, describe(refreshed)
    assert stats(peer)["upstreamRefreshes"] - after["upstreamRefreshes"] == 1
    assert stored(home)[0]["accessToken"] != token["accessToken"]
    assert_no_secret(refreshed, [token["accessToken"], token["refreshToken"]] + secrets_of(home))  # JWTs, masked
    logout = ok(cli(*conn(peer), "auth", "logout"))  # the proxy has no revocation endpoint
    assert logout.stdout.strip() == ("logged out of %s (token forgotten, not revoked: the authorization server has "
                                     "no revocation endpoint)" % peer.url), describe(logout)
