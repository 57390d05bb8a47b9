"""Tests for tests/testserver.py --auth: the MCP endpoint as an OAuth 2.1 protected resource and
the same origin as its authorization server. Driven by hand with http.client, the way an OAuth
client would (never through mcp-tui), so that mcp-tui's auth client is tested against a server
whose behaviour is itself pinned down here."""
import base64
import hashlib
import http.client
import json
import re
import secrets
import shutil
import subprocess
import sys
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

import testserver
from testserver import es256_sign, load_p256_key, p256_private_pem, p256_public_key, p256_public_pem

from conftest import wait_for

TIMEOUT = 10.0
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
PRM_PATH = "/.well-known/oauth-protected-resource/mcp"
AS_PATH = "/.well-known/oauth-authorization-server"
REDIRECT = "http://127.0.0.1:41234/callback"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


# =============================================================================================
# An OAuth client by hand
# =============================================================================================

class Response(object):
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def challenge(self):
        """The Bearer challenge's parameters (our server's own quoted-string format)."""
        header = self.headers.get("www-authenticate", "")
        assert header.startswith("Bearer "), header
        return {name: re.sub(r"\\(.)", r"\1", value)
                for name, value in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', header)}

    def redirect(self):
        """The query parameters of a 302's Location, with the Location's base."""
        assert self.status == 302, (self.status, self.body)
        location = self.headers["location"]
        parts = urlsplit(location)
        return location.split("?")[0], {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}

    def __repr__(self):
        return "<%d %s %r>" % (self.status, self.headers, self.body[:300])


def s256(verifier):
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).decode().rstrip("=")


def b64url_json(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


class OAuth(object):
    """One server's AS endpoints and /mcp, as an OAuth client sees them."""

    def __init__(self, server):
        self.server = server
        parts = urlsplit(server.url)
        self.port = parts.port
        self.origin = "http://127.0.0.1:%d" % self.port
        self.resource = self.origin + "/mcp"

    def as_host(self, host):
        """Talk to the server by another loopback name (the Host header); origin and resource follow."""
        self.origin = "http://%s:%d" % (host, self.port)
        self.resource = self.origin + "/mcp"
        return self

    def request(self, verb, path, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        try:
            conn.request(verb, path, body=body, headers=dict({"Host": self.origin[len("http://"):]}, **(headers or {})))
            resp = conn.getresponse()
            return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
        finally:
            conn.close()

    def form(self, path, fields, basic=None, headers=None):
        all_headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if basic:
            all_headers["Authorization"] = "Basic " + base64.b64encode(("%s:%s" % basic).encode()).decode()
        all_headers.update(headers or {})
        fields = {name: value for name, value in fields.items() if value is not None}
        return self.request("POST", path, urlencode(fields).encode(), all_headers)

    def token(self, fields, basic=None, **kwargs):
        return self.form("/token", dict({"resource": self.resource}, **fields), basic, **kwargs)

    def register(self, **metadata):
        body = dict({"client_name": "test", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none",
                     "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}, **metadata)
        resp = self.request("POST", "/register", json.dumps(body).encode(), {"Content-Type": "application/json"})
        assert resp.status == 201, resp
        return resp.json()

    def authorize(self, client_id, verifier=None, redirect_uri=REDIRECT, **params):
        """GET /authorize with a PKCE S256 challenge; params override (None drops one)."""
        query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri,
                 "code_challenge": s256(verifier or "v" * 43), "code_challenge_method": "S256",
                 "state": "st-" + secrets.token_urlsafe(8), "resource": self.resource}
        query.update(params)
        query = {k: v for k, v in query.items() if v is not None}
        return self.request("GET", "/authorize?" + urlencode(query))

    def code(self, client_id, verifier, **params):
        base, answer = self.authorize(client_id, verifier, **params).redirect()
        assert "code" in answer, answer
        return answer["code"]

    def login(self, client_id=None, **params):
        """The whole authorization code flow for a public client; the token response."""
        client_id = client_id or self.register()["client_id"]
        verifier = secrets.token_urlsafe(32)
        code = self.code(client_id, verifier, **params)
        resp = self.token({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                           "code_verifier": verifier, "client_id": client_id})
        assert resp.status == 200, resp
        return resp.json()

    def mcp(self, method="tools/list", params=None, token=None, verb="POST", headers=None, path="/mcp"):
        """A 2026-07-28 request (or a bare GET/DELETE) to /mcp, with the token if given."""
        all_headers = {"Accept": "application/json, text/event-stream"}
        body = None
        if verb == "POST":
            params = dict(params or {}, _meta={"io.modelcontextprotocol/protocolVersion": MODERN,
                                                "io.modelcontextprotocol/clientCapabilities": {}})
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
            all_headers.update({"Content-Type": "application/json", "MCP-Protocol-Version": MODERN,
                                "Mcp-Method": method})
            if method == "tools/call":
                all_headers["Mcp-Name"] = params["name"]
        if token:
            all_headers["Authorization"] = "Bearer " + token
        all_headers.update(headers or {})
        return self.request(verb, path, body, all_headers)

    def call(self, tool, token, message="hi"):
        return self.mcp("tools/call", {"name": tool, "arguments": {"message": message}}, token)


@pytest.fixture
def oauth(start_server):
    """oauth(*flags) -> OAuth for a fresh `testserver.py --http --auth *flags` (recorded)."""
    return lambda *flags: OAuth(start_server("--auth", *flags))


def assert_oauth_error(resp, status, error, text=None):
    assert resp.status == status, resp
    body = resp.json()
    assert body["error"] == error, body
    if text:
        assert text in body["error_description"], body


def text_of(resp):
    assert resp.status == 200, resp
    return resp.json()["result"]["content"][0]["text"]


# =============================================================================================
# The protected resource
# =============================================================================================

def test_every_method_without_a_token_gets_401_naming_the_metadata_and_scope(oauth):
    server = oauth("--era", "both")
    for verb in ("POST", "GET", "DELETE"):
        resp = server.mcp(verb=verb, headers={"Mcp-Session-Id": "s"} if verb != "POST" else None)
        assert resp.status == 401, (verb, resp)
        # RFC 6750 §3.1: no error code when the request carried no credentials at all
        assert resp.challenge() == {"resource_metadata": server.origin + PRM_PATH, "scope": "mcp:basic"}, verb
    records = server.server.auth_records("mcp")
    assert [(r["http"]["method"], r["auth"]["status"]) for r in records] == [
        ("POST", 401), ("GET", 401), ("DELETE", 401)]


def test_a_bad_token_is_invalid_token_and_a_token_in_the_url_is_refused(oauth):
    server = oauth("--auth-scopes", "")
    resp = server.mcp(token="at-made-up")
    assert resp.status == 401
    assert resp.challenge() == {"error": "invalid_token", "error_description": "Unknown access token",
                                "resource_metadata": server.origin + PRM_PATH}     # no scope: none configured
    token = server.login()["access_token"]
    resp = server.mcp(path="/mcp?access_token=" + token, token=token)
    assert resp.status == 400 and resp.challenge()["error"] == "invalid_request"
    assert server.mcp(headers={"Authorization": "Basic " + token}).status == 401
    assert server.mcp(headers={"Authorization": "bearer " + token}).status == 200    # the scheme is case-insensitive


def test_metadata_documents_at_the_same_origin(oauth):
    server = oauth("--auth-scopes", "mcp:basic mcp:read")
    prm = server.request("GET", PRM_PATH)
    assert prm.status == 200 and prm.headers["content-type"] == "application/json"
    assert prm.json()["resource"] == server.resource
    assert prm.json()["authorization_servers"] == [server.origin]
    assert prm.json()["scopes_supported"] == ["mcp:basic", "mcp:read"]
    assert server.request("GET", "/.well-known/oauth-protected-resource").status == 404   # only path-inserted
    meta = server.request("GET", AS_PATH).json()
    assert meta["issuer"] == server.origin
    for name, path in (("authorization_endpoint", "/authorize"), ("token_endpoint", "/token"),
                       ("registration_endpoint", "/register"), ("revocation_endpoint", "/revoke")):
        assert meta[name] == server.origin + path
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["response_types_supported"] == ["code"]
    assert set(meta["token_endpoint_auth_methods_supported"]) == {
        "none", "client_secret_basic", "client_secret_post", "private_key_jwt"}
    assert meta["token_endpoint_auth_signing_alg_values_supported"] == ["ES256"]
    assert meta["client_id_metadata_document_supported"] is True
    assert meta["scopes_supported"] == ["mcp:basic", "mcp:read", "admin"]
    assert meta["authorization_response_iss_parameter_supported"] is True


def test_the_origin_follows_the_host_the_client_used(oauth):
    server = oauth()
    host = "localhost:%d" % server.port
    prm = server.request("GET", PRM_PATH, headers={"Host": host}).json()
    assert prm == dict(prm, resource="http://%s/mcp" % host, authorization_servers=["http://" + host])
    challenge = server.mcp(headers={"Host": host}).challenge()
    assert challenge["resource_metadata"] == "http://%s%s" % (host, PRM_PATH)
    meta = server.request("GET", AS_PATH, headers={"Host": "evil.example:%d" % server.port}).json()
    assert meta["issuer"] == server.origin                  # a non-loopback Host is not believed


def test_a_token_is_good_only_for_the_resource_it_was_issued_for(oauth):
    server = oauth().as_host("localhost")
    tokens = server.login()
    assert server.server.auth_records("authorize")[0]["auth"]["params"]["resource"] == server.resource
    assert server.mcp(token=tokens["access_token"]).status == 200
    resp = server.as_host("127.0.0.1").mcp(token=tokens["access_token"])
    assert resp.status == 401
    assert resp.challenge()["error_description"] == "The access token was issued for another resource"
    assert_oauth_error(server.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                                     "client_id": server.server.auth_records("token")[0]["auth"]["client_id"]}),
                       400, "invalid_target")


def test_the_record_shows_what_each_endpoint_was_sent(oauth):
    """So that client tests can assert, e.g., that no token went to a metadata endpoint."""
    server = oauth()
    server.request("GET", PRM_PATH, headers={"Authorization": "Bearer leaked"})
    server.request("GET", AS_PATH)
    server.request("GET", "/.well-known/openid-configuration")
    records = server.server.auth_records()
    assert [(r["auth"]["endpoint"], r["auth"]["status"]) for r in records] == [
        ("protected_resource_metadata", 200), ("authorization_server_metadata", 200), (None, 404)]
    assert records[0]["http"]["headers"]["authorization"] == "Bearer leaked"
    assert "authorization" not in records[1]["http"]["headers"]
    assert records[2]["http"]["path"] == "/.well-known/openid-configuration"
    assert server.server.records() == []                    # the JSON-RPC record is left as it was


# =============================================================================================
# Authorization code + PKCE
# =============================================================================================

def test_full_pkce_flow_with_dynamic_registration(oauth):
    server = oauth("--auth-scopes", "mcp:basic mcp:read")
    prm_url = server.mcp().challenge()["resource_metadata"]
    assert server.request("GET", urlsplit(prm_url).path).json()["authorization_servers"] == [server.origin]
    client = server.register(scope="mcp:basic mcp:read")
    assert client["client_id"].startswith("dcr-") and "client_secret" not in client
    assert client["token_endpoint_auth_method"] == "none" and client["redirect_uris"] == [REDIRECT]
    verifier = secrets.token_urlsafe(32)
    resp = server.authorize(client["client_id"], verifier, state="a b&c=d/é")
    base, answer = resp.redirect()
    assert base == REDIRECT
    assert answer["state"] == "a b&c=d/é" and answer["iss"] == server.origin and set(answer) == {"code", "state", "iss"}
    resp = server.token({"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": REDIRECT,
                         "code_verifier": verifier, "client_id": client["client_id"]})
    assert resp.status == 200 and resp.headers["cache-control"] == "no-store"
    tokens = resp.json()
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
    assert tokens["scope"] == "mcp:basic mcp:read" and tokens["refresh_token"] != tokens["access_token"]
    assert text_of(server.call("echo", tokens["access_token"], "authorized")) == "authorized"
    authorize, = server.server.auth_records("authorize")
    assert authorize["auth"]["params"]["code_challenge_method"] == "S256"
    assert authorize["auth"]["params"]["code_challenge"] == s256(verifier)
    token, = server.server.auth_records("token")
    assert token["auth"]["params"]["code_verifier"] == verifier
    assert token["auth"]["auth_method"] == "none" and token["auth"]["status"] == 200
    mcp = server.server.auth_records("mcp")
    assert [r["auth"]["status"] for r in mcp] == [401, None]
    assert mcp[1]["auth"]["client_id"] == client["client_id"]


def test_legacy_sessions_need_the_token_on_get_and_delete_too(oauth):
    server = oauth("--era", "2025-11-25")
    token = server.login()["access_token"]
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    resp = server.request("POST", "/mcp", json.dumps(init).encode(), dict(headers, Authorization="Bearer " + token))
    assert resp.status == 200, resp
    session = {"Mcp-Session-Id": resp.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
    assert server.request("DELETE", "/mcp", headers=session).status == 401
    assert server.request("DELETE", "/mcp", headers=dict(session, Authorization="Bearer " + token)).status == 200


def test_the_token_endpoint_checks_pkce_redirect_uri_resource_and_code_reuse(oauth):
    server = oauth()
    client_id = server.register()["client_id"]
    verifier = secrets.token_urlsafe(32)
    code = server.code(client_id, verifier)
    exchange = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                "code_verifier": verifier, "client_id": client_id}
    assert_oauth_error(server.token(dict(exchange, code_verifier=secrets.token_urlsafe(32))), 400,
                       "invalid_grant", "PKCE verification failed")
    assert_oauth_error(server.token(dict(exchange, code_verifier="short")), 400, "invalid_grant", "code_verifier")
    del exchange["code_verifier"]
    assert_oauth_error(server.token(exchange), 400, "invalid_grant", "code_verifier")
    exchange["code_verifier"] = verifier
    assert_oauth_error(server.token(dict(exchange, redirect_uri="http://127.0.0.1:41234/other")), 400,
                       "invalid_grant", "redirect_uri")
    assert_oauth_error(server.token(dict(exchange, resource=server.resource + "/")), 400, "invalid_target")
    assert_oauth_error(server.form("/token", exchange), 400, "invalid_target", "resource is required")
    other = server.register()["client_id"]
    assert_oauth_error(server.token(dict(exchange, client_id=other)), 400, "invalid_grant")
    resp = server.token(exchange)
    assert resp.status == 200, resp
    token = resp.json()["access_token"]
    assert server.mcp(token=token).status == 200
    assert_oauth_error(server.token(exchange), 400, "invalid_grant", "already used")
    assert server.mcp(token=token).status == 401            # a replayed code revokes what it granted


def test_authorize_refuses_bad_requests_without_redirecting_to_unchecked_uris(oauth):
    server = oauth()
    client_id = server.register()["client_id"]
    assert_oauth_error(server.authorize("nobody"), 400, "invalid_client")
    for uri in ("http://example.com/callback", "ftp://127.0.0.1/cb", "http://127.0.0.1:41234/cb#frag", None):
        resp = server.authorize(client_id, redirect_uri=uri)
        assert resp.status == 400 and "location" not in resp.headers, uri
    assert_oauth_error(server.authorize(client_id, redirect_uri="http://127.0.0.1:41234/elsewhere"), 400,
                       "invalid_request", "not registered")
    # RFC 8252 §7.3: any port on the registered loopback redirect URI
    base, answer = server.authorize(client_id, redirect_uri="http://127.0.0.1:5999/callback").redirect()
    assert base == "http://127.0.0.1:5999/callback" and "code" in answer


@pytest.mark.parametrize("params, error", [
    ({"code_challenge": None}, "invalid_request"),
    ({"code_challenge_method": None}, "invalid_request"),
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"resource": None}, "invalid_target"),
    ({"resource": "http://127.0.0.1:1/mcp"}, "invalid_target"),
    ({"scope": "mcp:basic offline_access"}, "invalid_scope"),
    ({"scope": ""}, "invalid_scope"),
])
def test_authorize_errors_go_back_to_the_client_with_its_state(oauth, params, error):
    server = oauth()
    client_id = server.register()["client_id"]
    base, answer = server.authorize(client_id, state="keep-me", **params).redirect()
    assert base == REDIRECT and answer["error"] == error and answer["state"] == "keep-me"
    assert "code" not in answer


def test_authorize_keeps_the_redirect_uris_own_query_and_grants_the_scopes_asked(oauth):
    server = oauth()
    uri = "http://localhost:41234/cb?session=1"
    client_id = server.register(redirect_uris=[uri])["client_id"]
    verifier = secrets.token_urlsafe(32)
    base, answer = server.authorize(client_id, verifier, redirect_uri=uri, scope="admin").redirect()
    assert base == "http://localhost:41234/cb" and answer["session"] == "1"
    resp = server.token({"grant_type": "authorization_code", "code": answer["code"], "redirect_uri": uri,
                         "code_verifier": verifier, "client_id": client_id})
    assert resp.json()["scope"] == "admin"
    assert server.server.auth_records("authorize")[0]["auth"]["client_id"] == client_id


def test_a_url_client_id_is_a_client_id_metadata_document(oauth):
    server = oauth()
    cimd = "https://client.example/mcp-tui.json"
    tokens = server.login(cimd)
    assert tokens["refresh_token"] and server.mcp(token=tokens["access_token"]).status == 200
    assert server.server.auth_records("token")[0]["auth"]["client_id"] == cimd
    assert_oauth_error(server.authorize("https://client.example/"), 400, "invalid_client")   # no path
    assert_oauth_error(server.authorize("http://client.example/c.json"), 400, "invalid_client")
    assert server.request("GET", AS_PATH).json()["client_id_metadata_document_supported"] is True
    strict = oauth("--auth-no-cimd")
    assert strict.request("GET", AS_PATH).json()["client_id_metadata_document_supported"] is False
    assert_oauth_error(strict.authorize(cimd), 400, "invalid_client")


def test_dynamic_registration_validates_and_can_be_off(oauth):
    server = oauth()
    confidential = server.register(token_endpoint_auth_method="client_secret_post")
    assert confidential["client_secret"] and confidential["client_secret_expires_at"] == 0
    body = {"redirect_uris": [REDIRECT]}
    resp = server.request("POST", "/register", json.dumps(body).encode(), {"Content-Type": "application/json"})
    assert resp.status == 201 and resp.json()["token_endpoint_auth_method"] == "client_secret_basic"  # RFC 7591
    for bad, error in (({"redirect_uris": ["http://example.com/cb"]}, "invalid_redirect_uri"),
                       ({"redirect_uris": []}, "invalid_redirect_uri"),
                       ({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"},
                        "invalid_client_metadata"),
                       ({"redirect_uris": [REDIRECT], "grant_types": ["client_credentials"]},
                        "invalid_client_metadata")):
        resp = server.request("POST", "/register", json.dumps(bad).encode(), {"Content-Type": "application/json"})
        assert_oauth_error(resp, 400, error)
    assert_oauth_error(server.request("POST", "/register", b"redirect_uris=x",
                                      {"Content-Type": "application/x-www-form-urlencoded"}),
                       400, "invalid_client_metadata")
    closed = oauth("--auth-no-dcr")
    assert "registration_endpoint" not in closed.request("GET", AS_PATH).json()
    assert closed.request("POST", "/register", b"{}", {"Content-Type": "application/json"}).status == 404


def test_a_client_registered_without_refresh_token_gets_none(oauth):
    server = oauth()
    client_id = server.register(grant_types=["authorization_code"])["client_id"]
    tokens = server.login(client_id)
    assert "refresh_token" not in tokens


# =============================================================================================
# Refresh, expiry, revocation
# =============================================================================================

def test_refresh_rotates_and_a_used_refresh_token_is_dead(oauth):
    server = oauth("--auth-scopes", "mcp:basic mcp:read")
    client_id = server.register()["client_id"]
    first = server.login(client_id)
    refresh = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id}
    resp = server.token(refresh)
    assert resp.status == 200, resp
    second = resp.json()
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    assert second["scope"] == "mcp:basic mcp:read"
    assert_oauth_error(server.token(refresh), 400, "invalid_grant", "already used")
    assert server.mcp(token=second["access_token"]).status == 200
    narrower = server.token(dict(refresh, refresh_token=second["refresh_token"], scope="mcp:basic")).json()
    assert narrower["scope"] == "mcp:basic"
    assert_oauth_error(server.token(dict(refresh, refresh_token=narrower["refresh_token"], scope="admin")),
                       400, "invalid_scope")
    assert_oauth_error(server.token(dict(refresh, refresh_token=narrower["refresh_token"],
                                         client_id=server.register()["client_id"])), 400, "invalid_grant")
    assert_oauth_error(server.token(dict(refresh, refresh_token=narrower["refresh_token"], resource=None)),
                       400, "invalid_target")


def test_access_tokens_expire_after_token_ttl_and_refresh_brings_a_new_one(oauth):
    server = oauth("--token-ttl", "1")
    tokens = server.login()
    assert tokens["expires_in"] == 1
    resp = wait_for(lambda: [r for r in [server.mcp(token=tokens["access_token"])] if r.status == 401],
                    what="a 401 for the expired token")[0]
    assert resp.challenge()["error"] == "invalid_token"
    assert resp.challenge()["error_description"] == "The access token expired"
    fresh = server.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
                          "client_id": server.server.auth_records("token")[0]["auth"]["client_id"]})
    assert fresh.status == 200 and fresh.json()["expires_in"] == 1


def test_revocation(oauth):
    server = oauth()
    client_id = server.register()["client_id"]
    tokens = server.login(client_id)
    revoke = {"token": tokens["access_token"], "client_id": client_id}
    resp = server.form("/revoke", revoke)
    assert resp.status == 200 and resp.body == b""
    assert server.mcp(token=tokens["access_token"]).challenge()["error_description"] == "The access token was revoked"
    assert server.form("/revoke", dict(revoke, token="rt-unknown")).status == 200       # RFC 7009 §2.2
    again = server.login(client_id)
    assert_oauth_error(server.form("/revoke", dict(revoke, token=again["refresh_token"],
                                                   client_id=server.register()["client_id"])),
                       400, "unauthorized_client")
    assert server.form("/revoke", dict(revoke, token=again["refresh_token"])).status == 200
    assert server.mcp(token=again["access_token"]).status == 401           # its access token goes with it
    assert_oauth_error(server.token({"grant_type": "refresh_token", "refresh_token": again["refresh_token"],
                                     "client_id": client_id}), 400, "invalid_grant")
    assert_oauth_error(server.form("/revoke", {"client_id": client_id}), 400, "invalid_request")
    assert [r["auth"]["revoked"] for r in server.server.auth_records("revoke")[:2]] == ["access", None]


# =============================================================================================
# Step-up: per-tool scopes
# =============================================================================================

def test_a_tool_that_needs_more_scope_answers_403_insufficient_scope(oauth):
    server = oauth()
    tools = server.mcp(token=server.login()["access_token"]).json()["result"]["tools"]
    assert tools[-1]["name"] == "admin_echo"
    client_id = server.register()["client_id"]
    basic = server.login(client_id)["access_token"]
    assert text_of(server.call("echo", basic)) == "hi"
    resp = server.call("admin_echo", basic)
    assert resp.status == 403
    assert resp.challenge() == {"error": "insufficient_scope", "scope": "mcp:basic admin",
                                "error_description": "This request needs scope mcp:basic admin",
                                "resource_metadata": server.origin + PRM_PATH}
    stepped = server.login(client_id, scope="mcp:basic admin")
    assert stepped["scope"] == "mcp:basic admin"
    assert text_of(server.call("admin_echo", stepped["access_token"], "root")) == "root"
    admin_only = server.login(client_id, scope="admin")["access_token"]
    resp = server.call("echo", admin_only)
    assert resp.status == 403 and resp.challenge()["scope"] == "mcp:basic"    # every request needs --auth-scopes
    assert server.server.auth_records("mcp")[-1]["auth"]["scopes"] == ["admin"]
    assert len(server.server.auth_records("authorize")) == 4


def test_without_auth_there_is_no_admin_tool_and_no_challenge(start_server):
    plain = OAuth(start_server())
    resp = plain.mcp()
    assert resp.status == 200 and "admin_echo" not in [t["name"] for t in resp.json()["result"]["tools"]]
    assert plain.request("GET", AS_PATH).status == 404


# =============================================================================================
# Client credentials: secret (basic or post) and private_key_jwt (ES256)
# =============================================================================================

def test_client_credentials_with_a_secret_basic_or_post(oauth):
    server = oauth("--auth-client", "svc:s3cr%t", "--auth-client", "app")
    basic = server.token({"grant_type": "client_credentials"}, basic=("svc", "s3cr%25t"))   # RFC 6749 §2.3.1
    assert basic.status == 200, basic
    assert "refresh_token" not in basic.json() and basic.json()["scope"] == "mcp:basic"
    post = server.token({"grant_type": "client_credentials", "client_id": "svc", "client_secret": "s3cr%t",
                         "scope": "mcp:basic admin"})
    assert post.status == 200 and post.json()["scope"] == "mcp:basic admin"
    assert text_of(server.call("admin_echo", post.json()["access_token"])) == "hi"
    assert [r["auth"]["auth_method"] for r in server.server.auth_records("token")] == [
        "client_secret_basic", "client_secret_post"]
    assert_oauth_error(server.token({"grant_type": "client_credentials"}, basic=("svc", "wrong")),
                       401, "invalid_client", "wrong client secret")
    assert_oauth_error(server.token({"grant_type": "client_credentials", "client_secret": "s3cr%t"},
                                    basic=("svc", "s3cr%25t")), 400, "invalid_request", "one client authentication")
    assert_oauth_error(server.token({"grant_type": "client_credentials", "client_id": "svc"}), 401,
                       "invalid_client", "not none")
    assert_oauth_error(server.token({"grant_type": "client_credentials", "client_id": "app"}), 400,
                       "unauthorized_client")                         # a public client has no credentials
    assert_oauth_error(server.token({"grant_type": "client_credentials"}, basic=("svc", "s3cr%25t"),
                                    headers={"Content-Type": "application/json"}), 400, "invalid_request")
    assert_oauth_error(server.token({"grant_type": "password"}, basic=("svc", "s3cr%25t")), 400,
                       "unsupported_grant_type")


def test_pre_registered_clients_can_use_the_authorization_code_grant(oauth):
    server = oauth("--auth-client", "web:pw", "--auth-client", "cli", "--auth-no-dcr")
    assert server.login("cli")["access_token"]
    verifier = secrets.token_urlsafe(32)
    code = server.code("web", verifier)
    resp = server.token({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
                         "code_verifier": verifier}, basic=("web", "pw"))
    assert resp.status == 200 and resp.json()["refresh_token"]


class Key(object):
    def __init__(self, tmp_path, name="key"):
        self.d = secrets.randbelow(testserver.P256_N - 1) + 1
        self.private = tmp_path / (name + ".pem")
        self.private.write_text(p256_private_pem(self.d))
        self.public = tmp_path / (name + ".pub.pem")
        self.public.write_text(p256_public_pem(p256_public_key(self.d)))

    def assertion(self, issuer, client_id="machine", header=None, **claims):
        now = int(time.time())
        body = dict({"iss": client_id, "sub": client_id, "aud": issuer, "iat": now, "exp": now + 300,
                     "jti": str(uuid.uuid4())}, **claims)
        signed = b64url_json(header or {"alg": "ES256", "typ": "JWT"}) + "." + b64url_json(body)
        signature = es256_sign(self.d, signed.encode("ascii"))
        return signed + "." + base64.urlsafe_b64encode(signature).decode().rstrip("=")


def test_client_credentials_with_an_es256_private_key_jwt(oauth, tmp_path):
    key, stranger = Key(tmp_path), Key(tmp_path, "stranger")
    server = oauth("--auth-client-key", "machine:%s" % key.public, "--auth-client-key", "twin:%s" % key.private)

    def grant(assertion, **fields):
        return server.token(dict({"grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
                                  "client_assertion": assertion}, **fields))

    resp = grant(key.assertion(server.origin))
    assert resp.status == 200, resp
    assert server.mcp(token=resp.json()["access_token"]).status == 200
    assert grant(key.assertion(server.origin + "/")).status == 200
    assert grant(key.assertion(server.origin, client_id="twin"), client_id="twin").status == 200
    replayed = key.assertion(server.origin)
    assert grant(replayed).status == 200
    cases = [
        (grant(replayed), "jti replay"),
        (grant(stranger.assertion(server.origin)), "signature"),
        (grant(key.assertion(server.origin + "/token")), "aud"),
        (grant(key.assertion(server.origin, exp=int(time.time()) - 120)), "exp"),
        (grant(key.assertion(server.origin, iss="other")), "iss and sub"),
        (grant(key.assertion(server.origin, header={"alg": "RS256"})), "alg"),
        (grant(key.assertion(server.origin, jti=None)), "jti"),
        (grant(key.assertion(server.origin), client_assertion_type="jwt"), "client_assertion_type"),
        (grant(key.assertion(server.origin), client_id="twin"), "differs"),
        (grant("not.a-jwt"), "not a JWS"),
    ]
    for resp, text in cases:
        assert_oauth_error(resp, 401, "invalid_client", text)
    # DER (what OpenSSL writes) instead of JWS's raw r||s
    head, body, raw = key.assertion(server.origin).split(".")
    signature = base64.urlsafe_b64decode(raw + "==")
    der = der_signature(signature)
    der_jwt = head + "." + body + "." + base64.urlsafe_b64encode(der).decode().rstrip("=")
    assert_oauth_error(grant(der_jwt), 401, "invalid_client", "raw r||s")
    assert [r["auth"].get("auth_method") for r in server.server.auth_records("token")][:2] == [
        "private_key_jwt", "private_key_jwt"]


def test_bad_client_key_files_are_usage_errors(tmp_path):
    bad = tmp_path / "bad.pem"
    bad.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    for argv in (["--auth-client-key", "id:%s" % bad], ["--auth-client-key", "id:%s" % (tmp_path / "none")],
                 ["--auth-client-key", "nokeyfile"], ["--auth-client", "id:"]):
        proc = subprocess.run([sys.executable, testserver.__file__, "--http", "0", "--auth"] + argv,
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert proc.returncode == 2 and "usage:" in proc.stderr and "Traceback" not in proc.stderr, argv
    proc = subprocess.run([sys.executable, testserver.__file__, "--auth"], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert proc.returncode == 2 and "--auth needs --http" in proc.stderr


# =============================================================================================
# ES256 itself
# =============================================================================================

def der_signature(raw):
    def integer(value):
        value = value.lstrip(b"\0")
        value = b"\0" + value if value[0] & 0x80 else value
        return b"\x02" + bytes([len(value)]) + value
    body = integer(raw[:32]) + integer(raw[32:])
    return b"\x30" + bytes([len(body)]) + body


# RFC 6979 A.2.5: ECDSA, 256 bits (prime field), with SHA-256
RFC6979_D = 0xC9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721
RFC6979_Q = (0x60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6,
             0x7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299)
RFC6979_VECTORS = [
    (b"sample", 0xA6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60,
     0xEFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716,
     0xF7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8),
    (b"test", 0xD16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0,
     0xF1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367,
     0x019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083),
]


@pytest.mark.parametrize("message, k, r, s", RFC6979_VECTORS)
def test_es256_against_rfc6979_vectors(message, k, r, s):
    assert p256_public_key(RFC6979_D) == RFC6979_Q
    signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    assert es256_sign(RFC6979_D, message, k=k) == signature
    assert testserver.es256_verify(RFC6979_Q, message, signature)
    assert not testserver.es256_verify(RFC6979_Q, message + b".", signature)
    assert not testserver.es256_verify(RFC6979_Q, message, signature[:32] + (s + 1).to_bytes(32, "big"))
    assert not testserver.es256_verify(RFC6979_Q, message, der_signature(signature))


def test_p256_keys_round_trip_through_pem():
    pem = p256_private_pem(RFC6979_D)
    assert pem.startswith("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg")
    assert load_p256_key(pem) == (RFC6979_D, RFC6979_Q)
    assert load_p256_key(p256_public_pem(RFC6979_Q)) == (None, RFC6979_Q)
    with pytest.raises(ValueError):
        load_p256_key(p256_public_pem(RFC6979_Q).replace("PUBLIC KEY", "RSA PUBLIC KEY"))


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_es256_interoperates_with_openssl(tmp_path):
    key = Key(tmp_path)
    sec1 = subprocess.run(["openssl", "ec", "-in", str(key.private)], capture_output=True, text=True, check=True)
    assert load_p256_key(sec1.stdout)[0] == key.d
    spki = subprocess.run(["openssl", "pkey", "-in", str(key.private), "-pubout"], capture_output=True, text=True,
                          check=True)
    assert spki.stdout == key.public.read_text()
    message = tmp_path / "message"
    message.write_bytes(b"header.claims")
    signature = tmp_path / "signature"
    signature.write_bytes(der_signature(es256_sign(key.d, b"header.claims")))
    verified = subprocess.run(["openssl", "dgst", "-sha256", "-verify", str(key.public), "-signature",
                               str(signature), str(message)], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", str(key.private), str(message)],
                         capture_output=True, check=True).stdout
    body = der[2:]
    r_len = body[1]
    r, s = int.from_bytes(body[2:2 + r_len], "big"), int.from_bytes(body[4 + r_len:], "big")
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    assert testserver.es256_verify(p256_public_key(key.d), b"header.claims", raw)

