"""`mcp-tui check` against servers nobody here wrote: the reference everything server
(stdio and HTTP), the official Python SDK's server and a FastMCP server (stdio and
HTTP, each era the peer speaks). They are correct servers: check finds no error (exit 0)."""
import json

import pytest

from .test_interop_everything import everything_bin, http_url, stdio_server  # noqa: F401 (fixtures)

MODERN = "2026-07-28"
LEGACY = "2025-11-25"


def checked(result):
    assert result.returncode == 0, "exit %s\n--- stdout\n%s\n--- stderr\n%s" % (
        result.returncode, result.stdout, result.stderr)
    document = json.loads(result.stdout)
    errors = [f for f in document["findings"] if f["severity"] == "error"]
    assert errors == [], errors
    assert "internal error" not in result.stderr
    assert document["summary"]["rules"] >= 15, document["summary"]
    return document


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_check_passes_on_the_everything_server(run_cli, request, transport):
    args = ([request.getfixturevalue("stdio_server")] if transport == "stdio"
            else ["--url", request.getfixturevalue("http_url")])
    document = checked(run_cli(*args, "check", "--format", "json", "--timeout", "30", timeout=180))
    assert document["server"]["protocolVersion"] == LEGACY


@pytest.mark.parametrize("transport,protocol", [("stdio", "auto"), ("stdio", LEGACY), ("http", "auto"),
                                                ("http", LEGACY)])
def test_check_passes_on_the_sdk_server(run_cli, request, transport, protocol):
    args = ([request.getfixturevalue("sdk_stdio_cmd"), "--probe-timeout", "60"] if transport == "stdio"
            else ["--url", request.getfixturevalue("sdk_http").url])
    document = checked(run_cli(*args, "check", "--format", "json", "--protocol-version", protocol,
                               "--timeout", "30", timeout=180))
    assert document["server"]["protocolVersion"] == (MODERN if protocol == "auto" else LEGACY)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_check_passes_on_a_fastmcp_server(run_cli, request, transport):
    args = ([request.getfixturevalue("fastmcp_stdio_cmd"), "--probe-timeout", "60"] if transport == "stdio"
            else ["--url", request.getfixturevalue("fastmcp_http").url])
    checked(run_cli(*args, "check", "--format", "json", "--timeout", "30", timeout=180))


def test_check_config_of_the_peers_and_one_faulty_server_names_each_and_exits_1(run_cli, request, tmp_path):
    """Issue 47 item 3: a host's config file of the everything server, the SDK's and FastMCP's
    (stdio) plus one faulty server, checked at once: each server named, the faulty one failing."""
    import shlex
    import sys

    from conftest import FAULTYSERVER

    commands = {"everything": request.getfixturevalue("stdio_server"),
                "sdk": request.getfixturevalue("sdk_stdio_cmd"),
                "fastmcp": request.getfixturevalue("fastmcp_stdio_cmd"),
                "faulty": "%s %s --fault blob-not-base64" % (shlex.quote(sys.executable),
                                                             shlex.quote(str(FAULTYSERVER)))}
    servers = {}
    for name, command in commands.items():
        argv = shlex.split(command)
        servers[name] = {"command": argv[0], "args": argv[1:]}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    result = run_cli("check", "--config", str(config), "--format", "json", "--timeout", "30", "--probe-timeout", "60",
                     timeout=240)
    assert result.returncode == 1, result.stdout + result.stderr
    document = json.loads(result.stdout)
    assert [s["name"] for s in document["servers"]] == list(commands), document
    assert all(s["connects"] for s in document["servers"]), document["servers"]
    assert document["summary"]["failedServers"] == ["faulty"], document["summary"]
