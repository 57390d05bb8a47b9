#!/usr/bin/env python3
"""Interop peer: an MCP server of the official Python SDK (`mcp` 2.3.0, MCPServer) that is
its own OAuth 2.1 authorization server through `mcp.server.auth` (the SDK's routes,
handlers and bearer middleware), over a minimal in-memory provider written here.

Run it with the interpreter of the `sdk` peer venv (env var MCP_TUI_PEER_SDK):

    python sdk_auth_server.py --transport streamable-http --port 0 [--scope mcp:read]
    python sdk_auth_server.py --transport sse --port 0

It binds 127.0.0.1 only and prints one line `listening on http://127.0.0.1:PORT/mcp`
(flushed) once uvicorn accepts connections. The SDK's own settings are used as a server
author would: dynamic client registration, revocation, tokens bound to this resource
(validate_token_resource: a token issued for another `resource` is refused), and the
SEP-990 identity-assertion grant. The authorization endpoint approves at once (a
signed-in user who consents).

Tools (each needs a valid token): whoami() -> "client <id> scopes <a b> resource <url>";
add(a, b) -> the sum.

Test hooks, outside the MCP endpoint and without authentication (loopback only):
- GET  /peer/stats   counters {"registrations", "authorizations", "codeExchanges",
                      "refreshes", "revocations", "assertions", "liveAccessTokens"}, and
                      "lastCode", the authorization code issued last
- POST /peer/forget  forget every access token (refresh tokens stay valid; with ?all=1
                      the refresh tokens too, so only a new authorization helps)
- POST /peer/deny    the user refuses the next authorization (access_denied)
- POST /peer/clients {"token_endpoint_auth_method", "grant_types", "redirect_uris", "scope"}
                      -> {"client_id", "client_secret"}: a confidential client provisioned
                      by an administrator (the SDK's DCR never grants jwt-bearer)
- POST /idp/token    a stand-in enterprise IdP (RFC 8693 token exchange): any
                      subject_token of type id_token becomes an ID-JAG, opaque here and
                      remembered, which the jwt-bearer grant at /token then accepts once
"""
from __future__ import annotations

import argparse
import secrets
import sys
import time

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizeError,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from peer_http import bind_loopback, serve_http  # beside this script
from starlette.requests import Request
from starlette.responses import JSONResponse

TOKEN_SECONDS = 3600
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"


class MemoryProvider:
    """The OAuthAuthorizationServerProvider protocol, in dictionaries."""

    def __init__(self):
        self.clients = {}
        self.codes = {}
        self.access = {}
        self.refresh = {}
        self.pairs = {}  # refresh token <-> access token, both ways
        self.id_jags = {}  # ID-JAG -> (audience, resource), from /idp/token
        self.last_code = None
        self.deny_next = False  # /peer/deny: the user refuses the next authorization
        self.counts = dict(registrations=0, authorizations=0, codeExchanges=0, refreshes=0, revocations=0,
                           assertions=0)

    async def get_client(self, client_id):
        return self.clients.get(client_id)

    async def register_client(self, client_info):
        self.counts["registrations"] += 1
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client, params):
        self.counts["authorizations"] += 1
        if self.deny_next:
            self.deny_next = False
            raise AuthorizeError(error="access_denied", error_description="The user did not approve the request")
        if client.client_id not in self.clients:
            raise AuthorizeError(error="unauthorized_client", error_description="unknown client")
        code = self.last_code = "code-" + secrets.token_hex(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client, authorization_code):
        code = self.codes.get(authorization_code)
        return code if code and code.client_id == client.client_id and code.expires_at > time.time() else None

    def _issue(self, client_id, scopes, resource, refresh=True):
        access = "sdk-at-" + secrets.token_hex(24)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + TOKEN_SECONDS, resource=resource)
        answer = dict(access_token=access, token_type="Bearer", expires_in=TOKEN_SECONDS, scope=" ".join(scopes))
        if refresh:
            token = "sdk-rt-" + secrets.token_hex(24)
            self.refresh[token] = RefreshToken(token=token, client_id=client_id, scopes=scopes, resource=resource)
            answer["refresh_token"] = token
            self.pairs[token], self.pairs[access] = access, token
        return OAuthToken(**answer)

    async def exchange_authorization_code(self, client, authorization_code):
        self.counts["codeExchanges"] += 1
        if self.codes.pop(authorization_code.code, None) is None:
            raise TokenError("invalid_grant", "code already used")
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client, refresh_token):
        token = self.refresh.get(refresh_token)
        return token if token and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.counts["refreshes"] += 1
        self._drop(refresh_token.token)  # rotation
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token):
        found = self.access.get(token)
        return found if found and (found.expires_at is None or found.expires_at > time.time()) else None

    async def revoke_token(self, token):
        self.counts["revocations"] += 1
        self._drop(token.token)

    def _drop(self, token):
        """A token and its pair (an access token with its refresh token, and back)."""
        for value in (token, self.pairs.pop(token, None)):
            self.access.pop(value, None)
            self.refresh.pop(value, None)
            self.pairs.pop(value, None)

    async def exchange_identity_assertion(self, client, params):
        self.counts["assertions"] += 1
        grant = self.id_jags.pop(params.assertion, None)
        if grant is None:
            raise TokenError("invalid_grant", "unknown ID-JAG")
        return self._issue(client.client_id, params.scopes or [], grant[1], refresh=False)


def build(base_url: str, scopes: list[str], path: str = "/mcp") -> MCPServer:
    provider = MemoryProvider()
    auth = AuthSettings(
        issuer_url=base_url,
        resource_server_url=base_url + path,
        validate_token_resource=True,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=scopes or None),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=scopes or None,
        identity_assertion_enabled=True,
    )
    mcp = MCPServer("mcp-tui-sdk-auth-peer", auth_server_provider=provider, auth=auth)

    @mcp.tool(description="Who the server thinks you are: your client id, scopes and token resource.")
    def whoami() -> str:
        token = get_access_token()
        if token is None:
            return "anonymous"
        return "client %s scopes %s resource %s" % (token.client_id, " ".join(sorted(token.scopes)) or "-",
                                                   token.resource)

    @mcp.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.custom_route("/peer/stats", methods=["GET"])
    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(dict(provider.counts, liveAccessTokens=len(provider.access), lastCode=provider.last_code))

    @mcp.custom_route("/peer/forget", methods=["POST"])
    async def forget(request: Request) -> JSONResponse:
        forgotten = len(provider.access)
        provider.access.clear()
        if request.query_params.get("all"):
            provider.refresh.clear()
        return JSONResponse({"forgotten": forgotten})

    @mcp.custom_route("/peer/deny", methods=["POST"])
    async def deny(request: Request) -> JSONResponse:
        provider.deny_next = True
        return JSONResponse({"denyNext": True})

    @mcp.custom_route("/peer/clients", methods=["POST"])
    async def provision(request: Request) -> JSONResponse:
        # A client set up by an administrator, not by dynamic registration (which the SDK
        # keeps from the jwt-bearer grant): a confidential client for the given grant types.
        body = await request.json()
        client = OAuthClientInformationFull(
            client_id="admin-" + secrets.token_hex(8), client_secret=secrets.token_hex(24),
            redirect_uris=body.get("redirect_uris") or ["http://127.0.0.1:1/callback"],
            token_endpoint_auth_method=body.get("token_endpoint_auth_method", "client_secret_basic"),
            grant_types=body.get("grant_types", ["authorization_code", "refresh_token"]),
            scope=body.get("scope"))
        provider.clients[client.client_id] = client
        return JSONResponse({"client_id": client.client_id, "client_secret": client.client_secret})

    @mcp.custom_route("/idp/token", methods=["POST"])
    async def idp_token(request: Request) -> JSONResponse:
        form = await request.form()
        if (form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange"
                or form.get("requested_token_type") != ID_JAG_TYPE
                or form.get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token"
                or not form.get("subject_token") or not form.get("audience")):
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        jag = "id-jag-" + secrets.token_hex(16)
        provider.id_jags[jag] = (form.get("audience"), form.get("resource"))
        return JSONResponse({"access_token": jag, "issued_token_type": ID_JAG_TYPE, "token_type": "N_A"})

    return mcp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["streamable-http", "sse"], default="streamable-http")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--scope", action="append", default=[],
                        help="a scope every token must carry (repeatable; none by default)")
    args = parser.parse_args(argv)

    path = "/mcp" if args.transport == "streamable-http" else "/sse"
    sock, url = bind_loopback(args.port, path)
    mcp = build(url[: -len(path)], args.scope, path)
    serve_http(mcp.streamable_http_app() if path == "/mcp" else mcp.sse_app(), args.port, path, sock=sock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
