"""Section 5, auth: the WWW-Authenticate parser, the JWT signers against known vectors,
the resource and method rules, and whole flows against tests/testserver.py --auth (a real
protected resource and authorization server on loopback) as a user runs them."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MCP_TUI, MCP_TUI_PROCESS, ROOT, TESTSERVER, wait_for
from mcp_tui import (
    SHA256_DIGEST_INFO, bearer_challenge, canonical_resource, choose_token_auth_method, es256_sign,
    load_signing_key, p256_multiply, parse_www_authenticate, resource_covers, rfc6979_nonce, sign_jwt,
)

FETCH_URL = ROOT / "tests" / "interop" / "fetch_url.py"
BROWSER = "%s %s %%s" % (sys.executable, FETCH_URL)


# -- WWW-Authenticate ------------------------------------------------------------------------


def test_parses_the_conformance_challenge():
    header = ('Bearer error="invalid_token", error_description="Missing Authorization header", '
              'resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"')
    assert bearer_challenge([header]) == {
        "error": "invalid_token", "error_description": "Missing Authorization header",
        "resource_metadata": "http://localhost:3000/.well-known/oauth-protected-resource/mcp"}


def test_parses_escapes_spaces_case_and_any_order():
    header = 'bEaReR   scope = "a b" ,error=insufficient_scope, error_description="say \\"no\\", twice\\\\"'
    assert bearer_challenge([header]) == {"scope": "a b", "error": "insufficient_scope",
                                          "error_description": 'say "no", twice\\'}


def test_picks_bearer_among_several_challenges_in_one_or_many_headers():
    one = 'DPoP algs="ES256", Bearer realm="x", scope="mcp:basic", Basic realm="y"'
    assert parse_www_authenticate([one]) == [("dpop", {"algs": "ES256"}),
                                             ("bearer", {"realm": "x", "scope": "mcp:basic"}),
                                             ("basic", {"realm": "y"})]
    assert bearer_challenge(['Basic realm="y"', 'Bearer scope="s"']) == {"scope": "s"}


def test_token68_is_not_a_parameter_and_a_comma_in_quotes_does_not_split():
    assert parse_www_authenticate(["Negotiate abc==, Bearer error_description=\"a, b=c\""]) == [
        ("negotiate", {"token68": "abc=="}), ("bearer", {"error_description": "a, b=c"})]


def test_no_bearer_challenge_is_empty():
    assert bearer_challenge([]) == {}
    assert bearer_challenge(['Basic realm="x"']) == {}
    assert bearer_challenge(["Bearer"]) == {}


# -- resource and client authentication rules --------------------------------------------------


def test_resource_must_be_this_server_or_a_segment_prefix_of_it():
    url = "http://localhost:3000/mcp"
    assert resource_covers("http://localhost:3000/mcp", url)
    assert resource_covers("http://localhost:3000", url)  # metadata-var2: the origin
    assert resource_covers("HTTP://LOCALHOST:3000/", url)
    assert not resource_covers("https://evil.example.com/mcp", url)  # resource-mismatch
    assert not resource_covers("http://localhost:3001/mcp", url)
    assert not resource_covers("http://localhost:3000/mc", url)  # not a segment boundary
    assert not resource_covers("http://localhost:3000/mcp/deeper", url)
    assert canonical_resource("HTTP://Example.COM:8443/Path/#frag") == "http://example.com:8443/Path"


def test_token_endpoint_auth_method_choice():
    basic_only = {"token_endpoint_auth_methods_supported": ["client_secret_basic"]}
    post_only = {"token_endpoint_auth_methods_supported": ["client_secret_post"]}
    none_only = {"token_endpoint_auth_methods_supported": ["none"]}
    assert choose_token_auth_method(basic_only, None, True, False) == "client_secret_basic"
    assert choose_token_auth_method(post_only, None, True, False) == "client_secret_post"
    assert choose_token_auth_method(post_only, "client_secret_post", True, False) == "client_secret_post"
    assert choose_token_auth_method(basic_only, "client_secret_post", True, False) == "client_secret_basic"
    assert choose_token_auth_method(none_only, None, False, False) == "none"
    assert choose_token_auth_method({}, None, True, False) == "client_secret_basic"  # RFC 8414 default
    assert choose_token_auth_method({}, None, False, False) == "none"
    assert choose_token_auth_method(basic_only, None, False, True) == "private_key_jwt"


def test_the_callback_iss_is_the_metadata_issuer_exactly(tmp_path):
    """RFC 9207: `iss` is compared with the issuer of the authorization server's metadata, which
    may differ from the resource metadata's entry by the trailing slash discovery tolerates
    (FastMCP's RemoteAuthProvider adds one); anything else is a mix-up."""
    from mcp_tui import AuthError, Discovery, Grants

    discovery = Discovery("http://127.0.0.1:9/mcp", "https://as.example.com/", {
        "issuer": "https://as.example.com", "authorization_response_iss_parameter_supported": True})
    Grants.validate_callback({"iss": "https://as.example.com", "code": "c"}, discovery)
    for wrong in ("https://as.example.com/", "https://evil.example.com"):
        with pytest.raises(AuthError, match="names another issuer"):
            Grants.validate_callback({"iss": wrong, "code": "c"}, discovery)


# -- signers ------------------------------------------------------------------------------------

# RFC 6979 A.2.5: ECDSA P-256 with SHA-256, message "sample".
RFC6979_KEY = 0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721
RFC6979_PUBLIC = (0x60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6,
                  0x7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299)


def test_es256_matches_rfc6979_vector():
    import hashlib

    assert p256_multiply(RFC6979_KEY) == RFC6979_PUBLIC
    assert rfc6979_nonce(RFC6979_KEY, hashlib.sha256(b"sample").digest()) == int(
        "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60", 16)
    assert es256_sign(RFC6979_KEY, b"sample").hex().upper() == (
        "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
        "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8")
    assert es256_sign(RFC6979_KEY, b"test").hex().upper() == (
        "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"
        "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083")


def p256_verify(public, message, signature):
    """ECDSA verification written here, independently of mcp_tui's signer."""
    import hashlib

    p = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffff
    n = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551
    g = (0x6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296,
         0x4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5)

    def add(a, b):
        if a is None or b is None:
            return a or b
        if a[0] == b[0] and (a[1] + b[1]) % p == 0:
            return None
        lam = ((3 * a[0] ** 2 - 3) * pow(2 * a[1], -1, p) if a == b else (b[1] - a[1]) * pow(b[0] - a[0], -1, p)) % p
        x = (lam * lam - a[0] - b[0]) % p
        return x, (lam * (a[0] - x) - a[1]) % p

    def mul(k, point):
        out = None
        for bit in bin(k)[2:]:
            out = add(out, out)
            if bit == "1":
                out = add(out, point)
        return out

    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    z = int.from_bytes(hashlib.sha256(message).digest(), "big")
    w = pow(s, -1, n)
    point = add(mul(z * w % n, g), mul(r * w % n, public))
    return point is not None and point[0] % n == r


def test_es256_signatures_verify_independently():
    for message in (b"", b"header.claims", bytes(range(256))):
        assert p256_verify(RFC6979_PUBLIC, message, es256_sign(RFC6979_KEY, message))
    assert not p256_verify(RFC6979_PUBLIC, b"other", es256_sign(RFC6979_KEY, b"header.claims"))


# PKCS#8 of the RFC 6979 key (as jose.exportPKCS8 writes it: with the public key).
RFC6979_PKCS8 = """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgya+p2EW6dRZrXCFX
Z7HWk05Qw9s26JsSe4piKxIPZyGhRANCAARg/tS6JVqdMclh63TGNW1owEm4kjth
+mzmaWIuYPKftnkD/hAIuLyZpBrp6VYovGTy8bIMLX6fUXejwpTURiKZ
-----END PRIVATE KEY-----
"""


def test_pkcs8_ec_key_signs_a_jwt_that_verifies():
    import base64

    key = load_signing_key(RFC6979_PKCS8)
    assert key.alg == "ES256"
    token = sign_jwt(key, {"iss": "c", "sub": "c", "aud": "http://localhost:1"})
    head, claims, signature = token.split(".")
    pad = lambda part: base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))  # noqa: E731
    assert json.loads(pad(head)) == {"alg": "ES256", "typ": "JWT"}
    assert json.loads(pad(claims))["aud"] == "http://localhost:1"
    assert len(pad(signature)) == 64  # raw r||s, not DER
    assert p256_verify(RFC6979_PUBLIC, ("%s.%s" % (head, claims)).encode(), pad(signature))


def test_unsupported_keys_are_usage_errors():
    from mcp_tui import UsageError

    for text in ("no pem here", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----",
                 "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"):
        with pytest.raises(UsageError):
            load_signing_key(text)


def node_or_skip():
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (it generates and verifies keys independently)")
    return node


NODE_VERIFY = r"""
const c = require('crypto');
const [kind, format] = process.argv.slice(1);
const pair = kind === 'ec' ? c.generateKeyPairSync('ec', {namedCurve: 'P-256'})
                           : c.generateKeyPairSync('rsa', {modulusLength: 2048});
const type = format === 'pkcs8' ? 'pkcs8' : (kind === 'ec' ? 'sec1' : 'pkcs1');
process.stdout.write(pair.privateKey.export({type, format: 'pem'}) + '\n==\n');
process.stdin.on('data', d => {
  const [head, claims, sig] = d.toString().trim().split('.');
  const opts = kind === 'ec' ? {key: pair.publicKey, dsaEncoding: 'ieee-p1363'} : pair.publicKey;
  const ok = c.verify('sha256', Buffer.from(head + '.' + claims), opts, Buffer.from(sig, 'base64url'));
  process.stdout.write(ok ? 'VALID' : 'INVALID');
});
"""


@pytest.mark.parametrize("kind,fmt,alg", [("ec", "pkcs8", "ES256"), ("ec", "sec1", "ES256"),
                                          ("rsa", "pkcs8", "RS256"), ("rsa", "pkcs1", "RS256")])
def test_signatures_verify_in_nodes_crypto(kind, fmt, alg):
    """Node (OpenSSL) makes the key in each PEM form and verifies mcp-tui's JWS."""
    proc = subprocess.Popen([node_or_skip(), "-e", NODE_VERIFY, kind, fmt], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    pem = ""
    while not pem.endswith("\n==\n"):
        line = proc.stdout.readline()
        assert line, "node produced no key"
        pem += line
    key = load_signing_key(pem)
    assert key.alg == alg
    out, _ = proc.communicate(sign_jwt(key, {"iss": "x", "n": 1}) + "\n", timeout=60)
    assert out == "VALID"


def test_rs256_is_pkcs1_v15_over_sha256():
    """RS256 recomputed from the key's numbers: s^e mod n is the EMSA-PKCS1-v1_5 encoding."""
    import hashlib

    proc = subprocess.run([node_or_skip(), "-e", r"""
const c = require('crypto');
const pair = c.generateKeyPairSync('rsa', {modulusLength: 2048});
const jwk = pair.publicKey.export({format: 'jwk'});
process.stdout.write(JSON.stringify({pem: pair.privateKey.export({type: 'pkcs8', format: 'pem'}),
                                     n: jwk.n, e: jwk.e}));
"""], capture_output=True, text=True, timeout=60)
    data = json.loads(proc.stdout)
    import base64

    number = lambda b64: int.from_bytes(base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)), "big")  # noqa
    n, e = number(data["n"]), number(data["e"])
    signature = load_signing_key(data["pem"]).sign(b"message")
    digest = SHA256_DIGEST_INFO + hashlib.sha256(b"message").digest()
    expected = b"\x00\x01" + b"\xff" * (256 - len(digest) - 3) + b"\x00" + digest
    assert pow(int.from_bytes(signature, "big"), e, n).to_bytes(256, "big") == expected


# -- whole flows against tests/testserver.py --auth ------------------------------------------------

needs_auth_server = pytest.mark.skipif(
    "--auth-scopes" not in TESTSERVER.read_text(encoding="utf-8"),
    reason="tests/testserver.py has no --auth yet (it arrives with the authorization-server branch)")


def auth_records(server):
    lines = [json.loads(line) for line in Path(server.record).read_text().splitlines() if line.strip()]
    return [line["auth"] for line in lines if line.get("transport") == "auth"]


def endpoint_hits(server, name):
    return [r for r in auth_records(server) if r.get("endpoint") == name]


@pytest.fixture
def browser_env():
    return {"BROWSER": BROWSER}


@needs_auth_server
@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_authorizes_once_then_uses_the_stored_token(cli, start_server, state_dir, browser_env, era):
    server = start_server("--auth")
    first = cli("--url", server.url, "--protocol-version", era, "tool", "list", env=browser_env)
    assert first.code == 0, first
    assert "echo (Echo)" in first.out
    assert re.search(r"authorizing at 127\.0\.0\.1:\d+ in your browser: http://127\.0\.0\.1:\d+/authorize\?",
                     first.err), first
    assert len(endpoint_hits(server, "authorize")) == 1
    store = state_dir / "auth.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert stat.S_IMODE(state_dir.stat().st_mode) == 0o700 or os.name == "nt"
    before = len(auth_records(server))
    second = cli("--url", server.url, "--protocol-version", era, "tool", "list", env=browser_env)
    assert second.code == 0, second
    assert "authoriz" not in second.err
    later = auth_records(server)[before:]
    assert all(r.get("endpoint") == "mcp" for r in later), later  # no metadata, no token request


@needs_auth_server
def test_status_masks_and_logout_revokes(cli, start_server, state_dir, browser_env):
    server = start_server("--auth")
    assert cli("--url", server.url, "tool", "list", env=browser_env).code == 0
    stored = json.loads((state_dir / "auth.json").read_text())
    (token,) = stored["tokens"].values()
    status = cli("auth", "status")
    assert status.code == 0, status
    assert server.url in status.out and "scope mcp:basic" in status.out and "token:" in status.out
    assert token["accessToken"] not in status.out + status.err
    as_json = cli("auth", "status", "--format", "json").json()
    assert as_json["tokens"][0]["server"] == server.url and as_json["tokens"][0]["refreshable"] is True
    assert token["accessToken"] not in json.dumps(as_json)
    logout = cli("--url", server.url, "auth", "logout", "--format", "json")
    assert logout.code == 0, logout
    assert logout.json() == {"loggedOut": [{"server": server.url, "issuer": token["issuer"], "revoked": True}]}
    assert endpoint_hits(server, "revoke")
    assert cli("auth", "status", "--format", "json").json() == {"tokens": []}
    assert json.loads((state_dir / "auth.json").read_text()) == {"registrations": {}, "tokens": {}}
    again = cli("--url", server.url, "tool", "list", env=browser_env)
    assert again.code == 0 and "authorizing at" in again.err, again
    assert len(endpoint_hits(server, "authorize")) == 2


@needs_auth_server
def test_login_now_and_logout_all(cli, start_server, browser_env):
    one, two = start_server("--auth"), start_server("--auth")
    for server in (one, two):
        login = cli("--url", server.url, "auth", "login", env=browser_env)
        assert login.code == 0, login
        assert "authorized at http://127.0.0.1" in login.out
    assert len(cli("auth", "status", "--format", "json").json()["tokens"]) == 2
    out = cli("auth", "logout", "--all")
    assert out.code == 0 and out.out.count("logged out of") == 2, out
    assert cli("auth", "status").out.strip() == "no stored tokens"


@needs_auth_server
def test_refreshes_an_expired_token_without_a_browser(cli, start_server, browser_env):
    server = start_server("--auth", "--token-ttl", "1")
    assert cli("--url", server.url, "tool", "list", env=browser_env).code == 0
    refreshes_before = [r for r in endpoint_hits(server, "token") if (r.get("params") or {}).get(
        "grant_type") == "refresh_token"]
    # the token lives one second; waiting on the store's own expiry time, not a fixed sleep
    wait_for(lambda: cli("auth", "status", "--format", "json").json()["tokens"][0]["expired"] is not False,
             what="the stored token's expiry")
    again = cli("--url", server.url, "tool", "list", env={"BROWSER": "false"})
    assert again.code == 0, again
    assert "authoriz" not in again.err
    refreshes = [r for r in endpoint_hits(server, "token") if (r.get("params") or {}).get(
        "grant_type") == "refresh_token"]
    assert len(refreshes) > len(refreshes_before)
    assert len(endpoint_hits(server, "authorize")) == 1


@needs_auth_server
@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_steps_up_to_the_scope_a_tool_needs(cli, start_server, browser_env, era):
    server = start_server("--auth")
    out = cli("--url", server.url, "--protocol-version", era, "tool", "call", "admin_echo", "message=hi",
              env=browser_env)
    assert out.code == 0, out
    assert "hi" in out.out
    authorizations = endpoint_hits(server, "authorize")
    assert len(authorizations) == 2
    assert authorizations[-1]["params"]["scope"].split() == ["mcp:basic", "admin"]


@needs_auth_server
def test_client_credentials_with_a_secret_opens_no_browser(cli, start_server):
    server = start_server("--auth", "--auth-client", "robot:s3cret-value")
    out = cli("--url", server.url, "--grant", "client_credentials", "--client-id", "robot", "tool", "list",
              "--trace", env={"BROWSER": "false", "MCP_TUI_CLIENT_SECRET": "s3cret-value"})
    assert out.code == 0, out
    assert "in your browser" not in out.err and not endpoint_hits(server, "authorize")
    (grant,) = [r for r in endpoint_hits(server, "token")]
    assert grant["auth_method"] == "client_secret_basic" and grant["params"]["grant_type"] == "client_credentials"
    assert "s3cret-value" not in out.out + out.err


@needs_auth_server
def test_oauth_settings_from_a_config_entry(cli, start_server, tmp_path):
    server = start_server("--auth", "--auth-client", "robot:from-config-secret")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": server.url, "oauth": {
        "grant": "client_credentials", "clientId": "robot", "client_secret": "${ROBOT_SECRET}"}}}}))
    out = cli("--config", config, "tool", "list", env={"BROWSER": "false", "ROBOT_SECRET": "from-config-secret"})
    assert out.code == 0, out
    (grant,) = endpoint_hits(server, "token")
    assert grant["client_id"] == "robot" and grant["params"]["grant_type"] == "client_credentials"


@needs_auth_server
def test_client_credentials_with_a_private_key(cli, start_server, tmp_path):
    key = tmp_path / "robot.pem"
    key.write_text(RFC6979_PKCS8)
    server = start_server("--auth", "--auth-client-key", "robot:%s" % key)
    out = cli("--url", server.url, "--grant", "client_credentials", "--client-id", "robot", "--private-key", key,
              "tool", "list", "--debug")
    assert out.code == 0, out
    (grant,) = endpoint_hits(server, "token")
    assert grant["auth_method"] == "private_key_jwt"
    assert "eyJ" not in out.err  # the assertion is masked in --debug


@needs_auth_server
def test_logout_all_after_a_private_key_login_forgets_every_token(cli, start_server, tmp_path, browser_env):
    """`auth logout --all` after a --private-key login ended in `internal error: TypeError`
    (the revocation had no key to sign with) and forgot nothing, another server's token
    included. Every token is forgotten; what could not be revoked is said, with why."""
    key = tmp_path / "robot.pem"
    key.write_text(RFC6979_PKCS8)
    keyed, other = start_server("--auth", "--auth-client-key", "robot:%s" % key), start_server("--auth")
    assert cli("--url", keyed.url, "--grant", "client_credentials", "--client-id", "robot", "--private-key", key,
               "tool", "list").code == 0
    assert cli("--url", other.url, "auth", "login", env=browser_env).code == 0
    out = cli("auth", "logout", "--all", "--format", "json")
    assert out.code == 0, out
    results = {result["server"]: result for result in out.json()["loggedOut"]}
    assert results[other.url]["revoked"] is True and "notRevoked" not in results[other.url]
    assert results[keyed.url]["revoked"] is False, results
    assert "--private-key" in results[keyed.url]["notRevoked"], results
    assert not endpoint_hits(keyed, "revoke")
    assert cli("auth", "status").out.strip() == "no stored tokens"
    assert cli("--url", keyed.url, "--grant", "client_credentials", "--client-id", "robot", "--private-key", key,
               "tool", "list").code == 0
    text = cli("auth", "logout", "--all", "--private-key", key)  # with the key, it is revoked too
    assert (text.code, text.out) == (0, "logged out of %s (token revoked at %s)\n" % (
        keyed.url, keyed.url.rsplit("/", 1)[0])), text
    assert endpoint_hits(keyed, "revoke")


@needs_auth_server
def test_no_browser_prints_the_url_and_waits_on_the_listener(cli, start_server, tmp_path):
    """--no-browser: the user opens the printed URL (here: a helper that reads stderr)."""
    server = start_server("--auth")
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(tmp_path / "state"), BROWSER="false")
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["--url", server.url, "--no-browser", "tool", "list"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    line = proc.stderr.readline()
    assert "open this URL in a browser" in line, line
    url = line.rsplit(": ", 1)[1].strip()
    assert subprocess.run([sys.executable, str(FETCH_URL), url], timeout=60).returncode == 0
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "echo (Echo)" in out


def free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@needs_auth_server
def test_callback_port_fixes_the_redirect_uri(cli, start_server, state_dir, browser_env):
    server = start_server("--auth")
    port = free_port()
    out = cli("--url", server.url, "--callback-port", port, "tool", "list", env=browser_env)
    assert out.code == 0, out
    (authorize,) = endpoint_hits(server, "authorize")
    assert authorize["params"]["redirect_uri"] == "http://127.0.0.1:%d/callback" % port
    (registration,) = json.loads((state_dir / "auth.json").read_text())["registrations"].values()
    assert registration["redirectUri"] == "http://127.0.0.1:%d/callback" % port


@needs_auth_server
def test_a_callback_port_in_use_is_one_line_and_exit_1(cli, start_server, browser_env):
    import socket

    server = start_server("--auth")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = cli("--url", server.url, "--callback-port", port, "tool", "list", env=browser_env)
    assert out.code == 1, out
    assert out.err.strip().splitlines()[-1] == (
        "mcp-tui: cannot listen on 127.0.0.1:%d for the authorization response: Address already in use "
        "(free that port, or choose another with --callback-port)" % port), out
    assert not endpoint_hits(server, "authorize")


@pytest.mark.parametrize("options,message", [
    (["--callback-port", "70000"], "--callback-port must be a port number (1-65535)"),
    (["--client-metadata-url", "http://example.com/client.json"], "--client-metadata-url must be an https URL"),
    (["--grant", "client_credentials"], "--grant client_credentials needs --client-id and --client-secret"),
])
def test_bad_oauth_settings_are_usage_errors(cli, options, message):
    """One line and exit 2, nothing sent (it was an internal error: AttributeError)."""
    out = cli("--url", "http://127.0.0.1:9/mcp", *options, "tool", "list")
    assert out.code == 2, out
    assert out.err.startswith("mcp-tui: " + message) and len(out.err.strip().splitlines()) == 1, out


def test_login_at_a_server_without_oauth_says_so(cli, start_server):
    """No resource or authorization server metadata and no 401: `auth login` says the server
    does not seem to use OAuth (it reported a failed registration at a guessed /register)."""
    server = start_server()
    out = cli("--url", server.url, "auth", "login", env={"BROWSER": "false"})
    assert out.code == 1, out
    assert out.err.strip() == ("mcp-tui: %s publishes no authorization metadata; it does not seem to use OAuth "
                               "(mcp-tui authorizes by itself when a server answers 401)" % server.url), out


@needs_auth_server
def test_the_browser_wait_is_bounded_by_the_timeout(cli, start_server):
    server = start_server("--auth")
    # a browser that starts (exit 0) and never comes back; one that fails to start ends at once
    out = cli("--url", server.url, "--timeout", "3", "tool", "list", env={"BROWSER": "true"}, timeout=60)
    assert out.code == 1, out
    assert "no authorization response from the browser within" in out.err and "--timeout" in out.err
    assert "Traceback" not in out.err


@needs_auth_server
@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child is POSIX")
@pytest.mark.parametrize("name,code,said", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated by SIGTERM")])
def test_ctrl_c_cancels_the_wait(start_server, tmp_path, name, code, said):
    import signal

    server = start_server("--auth")
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(tmp_path / "state"), BROWSER="false")
    proc = subprocess.Popen(MCP_TUI_PROCESS + ["--url", server.url, "--no-browser", "tool", "list"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    assert "open this URL in a browser" in proc.stderr.readline()
    proc.send_signal(getattr(signal, name))
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert said in err and "Traceback" not in err


@needs_auth_server
def test_bearer_wins_over_oauth(cli, start_server, browser_env):
    server = start_server("--auth")
    out = cli("--url", server.url, "--bearer", "not-a-token", "tool", "list", env=browser_env)
    assert out.code == 1, out
    assert "401" in out.err and "authorizing" not in out.err
    assert "not-a-token" not in out.err
    assert not endpoint_hits(server, "authorize")


@needs_auth_server
def test_secrets_stay_out_of_every_output_and_file(cli, start_server, state_dir, tmp_path, browser_env):
    server = start_server("--auth", "--token-ttl", "1")
    log_file = tmp_path / "debug.jsonl"
    outputs = []
    for _ in range(2):
        outputs.append(cli("--url", server.url, "--debug", "--trace", "--log-file", log_file, "tool", "call",
                           "admin_echo", "message=hi", env=browser_env))
    outputs.append(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q1", "--task",
                       env=browser_env))
    assert all(o.code == 0 for o in outputs), outputs
    secrets = set()
    for record in auth_records(server):
        params = record.get("params") or {}
        for name in ("code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "token"):
            if isinstance(params.get(name), str):
                secrets.add(params[name])
    stored = json.loads((state_dir / "auth.json").read_text())
    for token in stored["tokens"].values():
        secrets.update(v for k, v in token.items() if k in ("accessToken", "refreshToken"))
    for registration in stored["registrations"].values():
        if registration.get("clientSecret"):
            secrets.add(registration["clientSecret"])
    assert len(secrets) >= 4, secrets
    files = [log_file] + [p for p in state_dir.iterdir() if p.name != "auth.json"]
    texts = [o.out + o.err for o in outputs] + [p.read_text() for p in files if p.is_file()]
    assert any("secret:" in text for text in texts)
    for text in texts:
        for secret in secrets:
            assert secret not in text


def test_tool_list_on_an_open_server_loads_no_auth_machinery(http_server_url, tmp_path):
    """No 401, no cost: none of auth's modules is imported and no extra request is made.
    (fcntl is not auth's alone: the result cache locks its state file with it.)"""
    code = ("import sys, runpy; sys.argv = ['mcp-tui', '--url', %r, '--trace', 'tool', 'list']\n"
            "try:\n runpy.run_path(%r, run_name='__main__')\nexcept SystemExit: pass\n"
            "heavy = ('hashlib', 'hmac', 'secrets', 'http.server', 'webbrowser', 'uuid')\n"
            "sys.stderr.write('IMPORTED:' + ','.join(m for m in heavy if m in sys.modules) + '\\n')"
            % (http_server_url, str(MCP_TUI)))
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(tmp_path / "state"))
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert "echo (Echo)" in proc.stdout, proc.stderr
    assert "IMPORTED:\n" in proc.stderr, proc.stderr[-500:]
    requests = re.findall(r"HTTP (\w+) (\S+) .*?->", proc.stderr)
    assert requests and all(url == http_server_url for _, url in requests), requests
    assert not (tmp_path / "state" / "auth.json").exists()


@pytest.fixture
def http_server_url(start_server):
    return start_server().url


# -- the retry rules, without a network ------------------------------------------------------------


def make_authorizer(tmp_path, **settings):
    from mcp_tui import AuthSettings, AuthStore, Authorizer

    return Authorizer("http://127.0.0.1:9/mcp", AuthSettings(**settings), store=AuthStore(str(tmp_path / "a.json")))


def test_a_second_401_after_a_fresh_token_is_an_error_not_a_loop(tmp_path):
    from mcp_tui import AuthError, AuthStore, Discovery

    authorizer = make_authorizer(tmp_path, grant="client_credentials", client_id="robot", client_secret="s")
    grants = []
    authorizer._discover = lambda challenge: Discovery("http://127.0.0.1:9/mcp", "http://127.0.0.1:9", {})
    authorizer._client_credentials = lambda discovery, scopes: (
        grants.append(1) or {"access_token": "t%d" % len(grants)}, {"client_id": "robot"}, "client_secret_basic")
    attempt = {}
    assert authorizer.challenged(401, ['Bearer error="invalid_token"'], None, attempt) is True
    with pytest.raises(AuthError, match="still answers 401"):
        authorizer.challenged(401, ['Bearer error="invalid_token"'], "Bearer t1", attempt)
    assert len(grants) == 1
    assert authorizer.authorization() == "Bearer t1"
    stored = AuthStore(str(tmp_path / "a.json")).tokens_for("http://127.0.0.1:9/mcp")
    assert [token["accessToken"] for token in stored] == ["t1"]  # and it was stored


def test_step_up_asks_for_the_union_and_stops_when_granted(tmp_path):
    authorizer = make_authorizer(tmp_path)
    asked = []

    def obtain(challenge, scopes, attempt):
        attempt["authorizations"] = attempt.get("authorizations", 0) + 1
        asked.append(scopes)
        authorizer._token = {"accessToken": "t%d" % len(asked), "scope": " ".join(scopes)}

    authorizer._obtain = obtain
    authorizer._token, authorizer._requested = {"accessToken": "t0", "scope": "mcp:basic"}, ["mcp:basic"]
    attempt = {}
    challenge = ['Bearer error="insufficient_scope", scope="mcp:basic mcp:write"']
    assert authorizer.challenged(403, challenge, "Bearer t0", attempt) is True
    assert asked == [["mcp:basic", "mcp:write"]]
    assert authorizer.challenged(403, challenge, "Bearer t1", attempt) is False  # granted: no new grant helps
    assert authorizer.challenged(403, ['Bearer error="forbidden"'], "Bearer t1", {}) is False
    assert len(asked) == 1


def test_two_runs_refreshing_one_token_send_one_refresh(tmp_path):
    """The token request of a refresh goes out with auth.json's own lock free, yet a second
    run that finds the same token expiring meanwhile waits for the first one's refresh and
    takes its successor: a rotated refresh token is presented once."""
    import threading
    import time

    from mcp_tui import AuthStore

    expired = {"server": "http://127.0.0.1:9/mcp", "issuer": "https://as.example", "resource": "http://127.0.0.1:9/mcp",
               "accessToken": "old", "refreshToken": "r1", "obtainedAt": time.time() - 100,
               "expiresAt": time.time() - 10, "tokenEndpoint": "https://as.example/token", "clientId": "robot",
               "authMethod": "client_secret_basic"}
    key = AuthStore.token_key(expired["issuer"], expired["resource"])
    AuthStore(str(tmp_path / "a.json")).update(lambda data: data["tokens"].__setitem__(key, dict(expired)))
    first, second = (make_authorizer(tmp_path, client_id="robot", client_secret="s") for _ in range(2))
    presented, first_sending, second_at_lock = [], threading.Event(), threading.Event()

    def token_endpoint(endpoint, issuer, client, method, fields):
        presented.append(fields["refresh_token"])
        first_sending.set()
        assert second_at_lock.wait(30)  # the first run answers only once the second one wants to refresh too
        assert AuthStore(str(tmp_path / "a.json")).load()["tokens"][key]["accessToken"] == "old"  # store not locked
        return {"access_token": "new", "refresh_token": "r2", "expires_in": 3600}

    def refresh_lock(original=second.store.refresh_lock):
        second_at_lock.set()
        return original()

    first.requests.token_request = second.requests.token_request = token_endpoint
    second.store.refresh_lock = refresh_lock
    results = {}
    runs = [threading.Thread(target=lambda run=run: results.__setitem__(run, run.authorization()))
            for run in (first, second)]
    runs[0].start()
    assert first_sending.wait(30)
    runs[1].start()
    for run in runs:
        run.join(60)
    assert results == {first: "Bearer new", second: "Bearer new"}
    assert presented == ["r1"]
    stored = AuthStore(str(tmp_path / "a.json")).load()["tokens"][key]
    assert (stored["accessToken"], stored["refreshToken"]) == ("new", "r2")


def test_scope_precedence(tmp_path):
    from mcp_tui import Discovery

    authorizer = make_authorizer(tmp_path)
    prm = Discovery("r", "i", {"scopes_supported": ["mcp:basic", "offline_access"]}, prm_scopes=["a", "b"])
    assert authorizer._choose_scopes({"scope": "x y"}, prm) == ["x", "y", "offline_access"]
    assert authorizer._choose_scopes({}, prm) == ["a", "b", "offline_access"]
    bare = Discovery("r", "i", {"scopes_supported": ["mcp:basic"]})
    assert authorizer._choose_scopes({}, bare) == []  # no source: no scope parameter
    assert authorizer._choose_scopes({"scope": "x"}, bare) == ["x"]  # offline_access only where offered
    assert make_authorizer(tmp_path, scope="mine")._choose_scopes({"scope": "x"}, bare) == ["mine"]


def test_the_listener_takes_one_matching_callback_and_a_pasted_redirect(monkeypatch):
    import io
    import urllib.error
    import urllib.request

    from mcp_tui import CallbackListener, read_pasted_redirects

    listener = CallbackListener()
    try:
        assert re.match(r"http://127\.0\.0\.1:\d+/callback$", listener.redirect_uri)
        listener.state = "expected-state"
        for path, status in (("/other?code=c&state=expected-state", 404), ("/callback?code=c&state=forged", 400)):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(listener.redirect_uri.replace("/callback", path), timeout=30)
            assert refused.value.code == status
        assert listener.wait(0.1) is None
        pasted = "%s?code=the-code&state=expected-state\n" % listener.redirect_uri
        monkeypatch.setattr(sys, "stdin", io.StringIO("not a url\n" + pasted))
        read_pasted_redirects(listener)
        assert listener.wait(30) == {"code": "the-code", "state": "expected-state"}
        assert not listener.offer("code=again&state=expected-state")  # one callback only
    finally:
        listener.close()


# A browser that first opens three connections to the redirect port that never send a byte,
# then follows the authorization URL; if that fails it holds the idle ones past mcp-tui's wait
# (its output goes nowhere, so that mcp-tui's own end is not held up by it).
IDLE_FIRST = """\
import os, socket, subprocess, sys, time
from urllib.parse import parse_qs, urlsplit
quiet = os.open(os.devnull, os.O_WRONLY)
os.dup2(quiet, 1)
os.dup2(quiet, 2)
redirect = urlsplit(parse_qs(urlsplit(sys.argv[1]).query)["redirect_uri"][0])
idle = [socket.create_connection(("127.0.0.1", redirect.port)) for _ in range(3)]
if subprocess.call([sys.executable, %r, sys.argv[1]]) != 0:
    time.sleep(60)
"""


@needs_auth_server
def test_idle_connections_to_the_callback_do_not_hold_back_the_redirect(cli, start_server, tmp_path):
    """A browser's preconnect, or another local user, opens connections to the redirect port
    and sends nothing; served one at a time, they kept the real redirect waiting until the
    authorization wait ran out (then 'no answer to server/discover')."""
    browser = tmp_path / "idle_first.py"
    browser.write_text(IDLE_FIRST % str(FETCH_URL))
    server = start_server("--auth")
    out = cli("--url", server.url, "--timeout", "30", "tool", "list",
              env={"BROWSER": "%s %s %%s" % (sys.executable, browser)}, timeout=90)
    assert out.code == 0 and "echo" in out.out, out
