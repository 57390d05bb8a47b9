#!/usr/bin/env python3
"""Interop peer: a FastMCP 4.1.4 server protected by FastMCP's own OAuth 2.1
authorization server, `fastmcp.server.auth.providers.in_memory.InMemoryOAuthProvider`
(dynamic client registration, authorization code + PKCE, refresh with rotation,
revocation, protected resource metadata), all on one origin.

Run it with the interpreter of the `fastmcp` peer venv (env var MCP_TUI_PEER_FASTMCP):

    python fastmcp_auth_server.py --transport streamable-http --port 0 [--scope mcp:read]
    python fastmcp_auth_server.py --transport streamable-http --port 0 --static-token KEY

It binds 127.0.0.1 only and prints one line `listening on http://127.0.0.1:PORT/mcp`
(flushed) once uvicorn accepts connections. The authorization endpoint has no login
page: like a browser with a signed-in user who consents, a GET of it redirects straight
to the client's redirect_uri with a code.

Tools (each needs a valid token): whoami() -> "client <id> scopes <a b>";
add(a, b) -> the sum.

Test hooks, outside the MCP endpoint and without authentication (loopback only):
- GET  /peer/stats   {"registrations", "authorizations", "codeExchanges", "refreshes",
                      "revocations", "liveAccessTokens"} counted since start, and
                     "lastCode", the authorization code issued last (to look for in output)
- POST /peer/forget  the server forgets every access token issued so far (refresh tokens
                      stay valid), so the next MCP request meets a 401 invalid_token
"""
from __future__ import annotations

import argparse
import sys
from urllib.parse import parse_qs, urlsplit

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions, RevocationOptions
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
from fastmcp.server.dependencies import get_access_token
from peer_http import bind_loopback, serve_http  # beside this script
from starlette.requests import Request
from starlette.responses import JSONResponse


class CountingProvider(InMemoryOAuthProvider):
    """InMemoryOAuthProvider unchanged, counting what clients did to it."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.counts = dict(registrations=0, authorizations=0, codeExchanges=0, refreshes=0, revocations=0)
        self.last_code = None

    async def register_client(self, client_info):
        self.counts["registrations"] += 1
        return await super().register_client(client_info)

    async def authorize(self, client, params):
        self.counts["authorizations"] += 1
        redirect = await super().authorize(client, params)
        self.last_code = parse_qs(urlsplit(redirect).query).get("code", [None])[0]
        return redirect

    async def exchange_authorization_code(self, client, authorization_code):
        self.counts["codeExchanges"] += 1
        return await super().exchange_authorization_code(client, authorization_code)

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        self.counts["refreshes"] += 1
        return await super().exchange_refresh_token(client, refresh_token, scopes)

    async def revoke_token(self, token):
        self.counts["revocations"] += 1
        return await super().revoke_token(token)


def add_tools(mcp: FastMCP) -> None:
    """The two tools of the FastMCP authorization peers (fastmcp_proxy_server.py too)."""

    @mcp.tool(description="Who the server thinks you are: your client id and scopes.")
    def whoami() -> str:
        token = get_access_token()
        if token is None:
            return "anonymous"
        return "client %s scopes %s" % (token.client_id, " ".join(sorted(token.scopes)) or "-")

    @mcp.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b


def build(base_url: str, scopes: list[str]) -> FastMCP:
    provider = CountingProvider(
        base_url=base_url,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=scopes or None),
        revocation_options=RevocationOptions(enabled=True),
        required_scopes=scopes or None,
    )
    mcp = FastMCP("mcp-tui-fastmcp-auth-peer", version="1.0.0", auth=provider)
    add_tools(mcp)

    @mcp.custom_route("/peer/stats", methods=["GET"])
    async def stats(request: Request) -> JSONResponse:
        return JSONResponse(dict(provider.counts, liveAccessTokens=len(provider.access_tokens),
                                 lastCode=provider.last_code))

    @mcp.custom_route("/peer/forget", methods=["POST"])
    async def forget(request: Request) -> JSONResponse:
        # Not by expiring them: InMemoryOAuthProvider revokes an expired access token's
        # refresh token too when the access token is next presented.
        forgotten = len(provider.access_tokens)
        provider.access_tokens.clear()
        return JSONResponse({"forgotten": forgotten})

    return mcp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["streamable-http", "http"], default="streamable-http")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    parser.add_argument("--scope", action="append", default=[],
                        help="a scope every token must carry (repeatable; none by default)")
    parser.add_argument("--static-token", metavar="TOKEN",
                        help="no OAuth: FastMCP's StaticTokenVerifier takes this one token (an API key)")
    args = parser.parse_args(argv)

    sock, url = bind_loopback(args.port, "/mcp")
    base_url = url[: -len("/mcp")]
    if args.static_token:
        mcp = FastMCP("mcp-tui-fastmcp-static-token-peer", version="1.0.0", auth=StaticTokenVerifier(
            tokens={args.static_token: {"client_id": "holder-of-the-key", "scopes": []}}))
        add_tools(mcp)
    else:
        mcp = build(base_url, args.scope)
    app = mcp.http_app(transport="http", path="/mcp")
    serve_http(app, args.port, "/mcp", sock=sock, lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
