"""Server Cards (SEP-2127): `card` reads a remote server's card, at <endpoint>/server-card or
from a host's AI Catalog; a bare host (--url http://host) is connected through its catalog;
`check` holds a served card to its schema and to the live server. The card checks are held to
the official schema and examples (tests/schema/server-card*, from the public repository
modelcontextprotocol/experimental-ext-server-card)."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jsonschema
import pytest

import mcp_tui

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"


def card_schema():
    schema = json.loads((SCHEMA_DIR / "server-card.schema.json").read_text(encoding="utf-8"))
    return dict(schema, **{"$ref": "#/$defs/ServerCard"})


def examples(kind):
    return sorted((SCHEMA_DIR / "server-card-examples" / kind).glob("*.json"))


@pytest.mark.parametrize("path", examples("valid") + examples("invalid"), ids=lambda p: p.parent.name + "/" + p.name)
def test_the_card_rules_agree_with_the_official_schema_on_its_examples(path):
    card = json.loads(path.read_text(encoding="utf-8"))
    official = list(jsonschema.Draft202012Validator(card_schema()).iter_errors(card))
    ours = mcp_tui.server_card_problems(card)
    assert bool(official) == bool(ours) == (path.parent.name == "invalid"), (official, ours)


def test_the_test_server_s_card_is_valid_by_the_official_schema(cli, start_server):
    server = start_server("--server-card")
    document = cli("--url", server.url, "card", "--format", "json").json()
    jsonschema.Draft202012Validator(card_schema()).validate(document["card"])
    assert document["problems"] == [] and document["url"] == server.url + "/server-card"


def test_card_prints_the_card_of_an_endpoint(cli, start_server):
    server = start_server("--server-card")
    result = cli("--url", server.url, "card")
    assert result.code == 0, result
    lines = result.out.splitlines()
    assert lines[0] == "Server Card: io.github.mcp-tui/testserver", result
    assert "  version: 0.1.0" in lines and "  from: %s/server-card" % server.url in lines, result
    assert any(line.startswith("  remote: streamable-http %s (2026-07-28, 2025-11-25" % server.url) for line in lines)


def test_card_of_a_bare_host_comes_from_its_catalog_and_a_bare_host_is_connected_through_it(cli, start_server):
    server = start_server("--server-card")
    host = server.url[:-len("/mcp")]
    result = cli("--url", host, "card")
    assert result.code == 0 and result.out.startswith("Server Card: io.github.mcp-tui/testserver\n"), result
    listed = cli("--url", host, "tool", "list")
    assert listed.code == 0 and "echo" in listed.out, listed
    assert ('has no MCP endpoint path; its catalog lists "io.github.mcp-tui/testserver" at %s: connecting there'
            % server.url) in listed.err, listed


def test_a_catalog_of_several_servers_asks_which(cli, start_server):
    server = start_server("--server-card", "--catalog-extra", "2")
    host = server.url[:-len("/mcp")]
    asked = cli("--url", host, "tool", "list")
    assert asked.code == 2, asked
    assert "lists 3 servers; pick one with --server NAME" in asked.err, asked
    assert '"urn:air:localhost:mcp:other-2"' in asked.err, asked
    picked = cli("--url", host, "--server", "other-1", "ping")
    assert picked.code == 0 and '"io.github.mcp-tui/other-1"' in picked.err, picked
    cards = cli("--url", host, "card")
    assert cards.code == 0 and cards.out.count("Server Card: ") == 3, cards
    unknown = cli("--url", host, "--server", "nope", "card")
    assert unknown.code == 2 and "lists no server 'nope'" in unknown.err, unknown


def test_no_card_is_a_clear_failure(cli, start_server):
    server = start_server()
    result = cli("--url", server.url, "card")
    assert result.code == 1, result
    assert "no Server Card at %s/server-card (HTTP 404)" % server.url in result.err, result
    assert "Traceback" not in result.err


def test_card_needs_a_url(cli):
    from conftest import stdio_command

    result = cli(stdio_command(), "card")
    assert result.code == 2 and "card reads a remote server's card: give --url" in result.err, result


@pytest.mark.parametrize("fault,finding", [
    ("invalid", ("card.valid", "error", "name: must be NAMESPACE/NAME")),
    ("version", ("card.runtime", "warning", "the card says version 9.9.9; the server says 0.1.0")),
    ("versions", ("card.runtime", "warning", "the card lists 2099-01-01, which the server's server/discover does not")),
])
def test_check_holds_a_served_card_to_its_schema_and_to_the_live_server(cli, start_server, fault, finding):
    server = start_server("--server-card", "--card-fault", fault)
    document = cli("--url", server.url, "--protocol-version", "2026-07-28", "check", "--format", "json").json()
    found = [(f["rule"], f["severity"]) for f in document["findings"] if finding[2] in f["message"]]
    assert found == [finding[:2]], document["findings"]


UNREADABLE = {
    "huge": "it is larger than 1 MiB, more than a card or catalog may be",
    "deep": "it is nested more than 128 levels deep",
    "not-json": "it is not JSON",
    "redirect": "a redirect to http://elsewhere.invalid/mcp/server-card was refused (HTTP 302; mcp-tui does not "
                "follow redirects)",
}


@pytest.mark.parametrize("fault", sorted(UNREADABLE))
def test_a_card_that_cannot_be_read_is_a_card_valid_finding_that_says_why(cli, start_server, fault):
    """Issue 47 item 2: a card over 1 MiB, nested 50,000 deep, not JSON or a redirect was
    skipped without a word (no card rule run, exit 0); `card` called the deep one "not found"."""
    server = start_server("--server-card", "--card-fault", fault, "--catalog-extra", "1")
    result = cli("--url", server.url, "--protocol-version", "2026-07-28", "check", "--format", "json")
    assert result.code == 1, result
    said = "the card at %s/server-card cannot be read: %s" % (server.url, UNREADABLE[fault])
    assert [(f["rule"], f["severity"], f["message"]) for f in result.json()["findings"]] == [
        ("card.valid", "error", said)], result
    card = cli("--url", server.url, "card")
    assert card.code == 1 and "the Server Card at %s/server-card cannot be read: %s" % (
        server.url, UNREADABLE[fault]) in card.err, card
    listed = cli("--url", server.url[:-len("/mcp")], "card", "--format", "json").json()["cards"]
    assert [c["problems"] for c in listed] == [[UNREADABLE[fault]], []], listed


def test_check_through_a_catalog_holds_the_catalog_s_card_to_the_live_server(cli, start_server):
    """Issue 47 item 2: a bare host's catalog card (9.9.9) is the card the server it leads to
    (0.1.0) is held to; it was ignored for a card at the endpoint's /server-card, which is none."""
    server = start_server("--server-card", "--card-fault", "catalog-version")
    result = cli("--url", server.url[:-len("/mcp")], "--protocol-version", "2026-07-28", "check", "--format", "json")
    assert result.code == 0, result
    (finding,) = result.json()["findings"]
    assert (finding["rule"], finding["severity"], finding["message"]) == (
        "card.runtime", "warning", "the card says version 9.9.9; the server says 0.1.0"), finding
    assert finding["where"].startswith('server card (the catalog entry "urn:air:localhost:mcp:testserver" at '), finding


def test_server_takes_the_name_a_card_gives(cli, start_server):
    """Issue 47 item 2: `card` prints io.github.mcp-tui/other-2, and --server takes it."""
    server = start_server("--server-card", "--catalog-extra", "2")
    host = server.url[:-len("/mcp")]
    named = cli("--url", host, "--server", "io.github.mcp-tui/other-2", "card")
    assert named.code == 0 and named.out.startswith("Server Card: io.github.mcp-tui/other-2\n"), named
    fetched = cli("--url", host, "--server", "io.github.mcp-tui/testserver", "ping")  # its card is at a url
    assert fetched.code == 0 and '"io.github.mcp-tui/testserver"' in fetched.err, fetched


def test_a_refused_redirect_of_a_catalog_says_so_and_where_to(cli, start_server):
    server = start_server("--server-card", "--card-fault", "catalog-redirect")
    result = cli("--url", server.url[:-len("/mcp")], "card")
    assert result.code == 1, result
    host = server.url[:-len("/mcp")]
    assert ("the AI Catalog at %s/.well-known/ai-catalog.json cannot be read: a redirect to "
            "http://elsewhere.invalid/.well-known/ai-catalog.json was refused" % host) in result.err, result
    assert "serves no AI Catalog" not in result.err, result


@pytest.mark.parametrize("fault, said", [
    ("invalid", "but its card gives no Streamable HTTP URL to connect to"),
    ("not-json", "but its card cannot be read: it is not JSON"),
    ("catalog-redirect", "/.well-known/ai-catalog.json cannot be read: a redirect to "
                         "http://elsewhere.invalid/.well-known/ai-catalog.json was refused"),
])
def test_check_through_a_catalog_whose_card_cannot_lead_anywhere_is_card_valid(cli, start_server, fault, said):
    """Probe D7: through a bare host, a catalog card that cannot be used was a lifecycle.handshake
    finding blaming the handshake, and a catalog redirected elsewhere was ignored: check and tool
    list connected to the host itself (-32600 Not Found). Now card.valid, and no connection."""
    server = start_server("--server-card", "--card-fault", fault)
    host = server.url[:-len("/mcp")]
    result = cli("--url", host, "--protocol-version", "2026-07-28", "check", "--format", "json")
    assert result.code == 1, result
    found = [(f["rule"], f["severity"]) for f in result.json()["findings"]]
    assert found == [("card.valid", "error")], result
    assert said in result.json()["findings"][0]["message"], result
    listed = cli("--url", host, "tool", "list")
    assert listed.code == 1 and said in listed.err and "Not Found" not in listed.err, listed
    if fault == "catalog-redirect":
        assert "mcp-tui connects neither there nor to %s itself" % host in listed.err, listed


def test_check_of_a_server_without_a_card_runs_no_card_rule(cli, start_server):
    result = cli("--url", start_server().url, "--protocol-version", "2026-07-28", "check")
    assert result.code == 0 and "card." not in result.out, result


# -- hostile hosts ------------------------------------------------------------------------


class HostileHost:
    """A host whose catalog and card are whatever a test plants (documents by path)."""

    def __init__(self, documents):
        self.documents = documents
        self.content_type = "application/json"
        self.stopping = threading.Event()
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = host.documents.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                if body == "endless SSE":  # a server at the root answering every GET with a stream
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    while not host.stopping.is_set():
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                        host.stopping.wait(0.1)
                    return
                data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", host.content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def hostile_host():
    hosts = []

    def make(documents):
        hosts.append(HostileHost(documents))
        return hosts[-1]

    yield make
    for host in hosts:
        host.close()


def entry(identifier, card=None, url=None):
    return dict({"identifier": identifier, "type": "application/mcp-server-card+json"},
                **({"data": card} if card is not None else {"url": url}))


def test_a_catalog_s_strings_are_shown_as_data(cli, hostile_host):
    evil = "x\x1b[2J\nFORGED LINE\x07"
    card = {"$schema": mcp_tui.SERVER_CARD_SCHEMA, "name": evil, "version": evil, "description": evil,
            "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:9/mcp\x1b[31m"}]}
    host = hostile_host({"/.well-known/ai-catalog.json": {"entries": [entry(evil, card), entry("two", card)]}})
    listed = cli("--url", host.url, "card")
    assert listed.code == 0, listed
    assert "\x1b" not in listed.out + listed.err and "\x07" not in listed.out + listed.err, listed
    assert "\nFORGED LINE" not in listed.out and "\nFORGED LINE" not in listed.err, listed
    asked = cli("--url", host.url, "tool", "list")
    assert asked.code == 2 and "\x1b" not in asked.err and "\nFORGED" not in asked.err, asked


def test_a_catalog_pointing_at_another_origin_gets_no_credentials(cli, hostile_host):
    card = {"$schema": mcp_tui.SERVER_CARD_SCHEMA, "name": "evil.example/steal", "version": "1", "description": "",
            "remotes": [{"type": "streamable-http", "url": "http://localhost:9/mcp"}]}
    host = hostile_host({"/.well-known/ai-catalog.json": {"entries": [entry("steal", card)]}})
    result = cli("--url", host.url, "--bearer", "s3cret-token", "tool", "list")
    assert result.code == 2, result
    assert "another origin; mcp-tui does not send your headers or token there" in result.err, result
    assert "s3cret-token" not in result.out + result.err


def test_an_oversized_or_broken_card_is_refused_plainly(cli, hostile_host):
    host = hostile_host({"/mcp/server-card": b"{" * (2 << 20), "/other/server-card": b"[[[[not json"})
    big = cli("--url", host.url + "/mcp", "card")
    assert big.code == 1 and "cannot be read: it is larger than 1 MiB" in big.err, big
    broken = cli("--url", host.url + "/other", "card")
    assert broken.code == 1 and "cannot be read: it is not JSON" in broken.err and "Traceback" not in broken.err, broken


def test_a_server_at_the_host_root_that_streams_every_get_is_not_taken_for_a_catalog(cli, hostile_host):
    """A server whose endpoint is the host's root (the conformance suite's) may answer every GET
    with an SSE stream that never ends: the catalog lookup reads the headers and goes on, not
    waiting out --timeout (the conformance suite's sse-retry scenario waited 20 s)."""
    host = hostile_host({"/.well-known/ai-catalog.json": "endless SSE", "/.well-known/mcp/catalog.json": "endless SSE"})
    result = cli("--url", host.url, "card", "--timeout", "5")
    assert result.code == 1 and "serves no AI Catalog" in result.err, result
    assert "timed out" not in result.err and "no complete answer" not in result.err, result
