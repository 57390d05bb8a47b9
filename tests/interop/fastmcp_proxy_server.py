#!/usr/bin/env python3
"""Interop peer: a FastMCP 4.1.4 server behind FastMCP's OAuthProxy, the way FastMCP's
GitHub, Google, Azure, Auth0... providers work: the proxy offers MCP clients dynamic
registration, PKCE and its own (JWT) tokens, while it authorizes the user at an upstream
identity provider that has one pre-registered client (the proxy) and no dynamic
registration. The upstream here is FastMCP's InMemoryOAuthProvider mounted under
/upstream on the same server (a stand-in for GitHub or Google).

Run it with the interpreter of the `fastmcp` peer venv (env var MCP_TUI_PEER_FASTMCP):

    python fastmcp_proxy_server.py --transport streamable-http --port 0

It binds 127.0.0.1 only and prints one line `listening on http://127.0.0.1:PORT/mcp`
(flushed) once uvicorn accepts connections. The proxy's consent page is turned off
(require_authorization_consent=False) and the upstream authorization endpoint approves at
once, so a browser that follows redirects completes the flow:
client -> /authorize (proxy) -> /upstream/authorize -> /auth/callback (proxy) -> client.

Tools: whoami() -> "client <upstream client id> scopes <a b>"; add(a, b) -> the sum.
Test hook: GET /peer/stats {"upstreamAuthorizations", "upstreamCodeExchanges",
"upstreamRefreshes", ...}, counted at the upstream provider.
"""
from __future__ import annotations

import argparse
import secrets
import sys

from fastmcp import FastMCP
from fastmcp.server.auth.auth import ClientRegistrationOptions, TokenVerifier
from fastmcp.server.auth.oauth_proxy import OAuthProxy
from key_value.aio.stores.memory import MemoryStore
from mcp.shared.auth import OAuthClientInformationFull
from fastmcp_auth_server import CountingProvider, add_tools  # beside this script
from peer_http import bind_loopback, serve_http
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Router

UPSTREAM_CLIENT_ID = "the-proxy"


class UpstreamVerifier(TokenVerifier):
    """Validates upstream tokens as a real provider's API would (here: in process)."""

    def __init__(self, upstream):
        super().__init__()
        self.upstream = upstream

    async def verify_token(self, token):
        return await self.upstream.load_access_token(token)


def build(base_url: str) -> FastMCP:
    upstream = CountingProvider(base_url=base_url + "/upstream",
                        client_registration_options=ClientRegistrationOptions(enabled=False))
    secret = secrets.token_hex(16)
    upstream.clients[UPSTREAM_CLIENT_ID] = OAuthClientInformationFull(
        client_id=UPSTREAM_CLIENT_ID, client_secret=secret, redirect_uris=[base_url + "/auth/callback"],
        token_endpoint_auth_method="client_secret_post", grant_types=["authorization_code", "refresh_token"])
    proxy = OAuthProxy(
        upstream_authorization_endpoint=base_url + "/upstream/authorize",
        upstream_token_endpoint=base_url + "/upstream/token",
        upstream_client_id=UPSTREAM_CLIENT_ID,
        upstream_client_secret=secret,
        # client_secret_basic, the proxy's default, fails here: the proxy sends no client_id in
        # the form, which the SDK's token endpoint (under InMemoryOAuthProvider) requires
        token_endpoint_auth_method="client_secret_post",
        token_verifier=UpstreamVerifier(upstream),
        base_url=base_url,
        client_storage=MemoryStore(),
        jwt_signing_key=secrets.token_hex(16),
        require_authorization_consent=False,
        enable_cimd=False,
    )
    mcp = FastMCP("mcp-tui-fastmcp-proxy-peer", version="1.0.0", auth=proxy)
    add_tools(mcp)

    @mcp.custom_route("/peer/stats", methods=["GET"])
    async def stats(request: Request) -> JSONResponse:
        return JSONResponse({"upstream" + key[0].upper() + key[1:]: value for key, value in upstream.counts.items()})

    mcp.upstream = upstream
    return mcp


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["streamable-http"], default="streamable-http")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0 picks a free one)")
    args = parser.parse_args(argv)

    sock, url = bind_loopback(args.port, "/mcp")
    mcp = build(url[: -len("/mcp")])
    app = mcp.http_app(transport="http", path="/mcp")
    app.router.routes.append(Mount("/upstream", app=Router(routes=mcp.upstream.get_routes())))
    serve_http(app, args.port, "/mcp", sock=sock, lifespan="on")
    return 0


if __name__ == "__main__":
    sys.exit(main())
