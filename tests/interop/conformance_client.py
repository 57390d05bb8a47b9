"""The client the MCP conformance suite drives: it maps a scenario onto mcp-tui's options.

    conformance client --command "python3 tests/interop/conformance_client.py" --scenario NAME

The suite appends the scenario's server URL as the last argument and passes the scenario
in MCP_CONFORMANCE_SCENARIO, plus MCP_CONFORMANCE_CONTEXT (JSON) for the scenarios that
hand the client credentials. Everything else is mcp-tui's ordinary options: this file
holds no OAuth logic. The browser is fetch_url.py (BROWSER), the token store a fresh
temporary directory (MCP_TUI_STATE_DIR) unless the caller set one, and
MCP_TUI_CONFORMANCE_EXTRA adds options (the secret-leak test turns on every log).
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MCP_TUI = HERE.parent.parent / "mcp_tui.py"
CACHED_SCRIPT = HERE.parent / "cached_script.py"  # runs mcp_tui.py as `python mcp_tui.py` does, precompiled
CIMD_URL = "https://conformance-test.local/client-metadata.json"

# What each non-auth scenario's server wants the client to do; auth scenarios call test-tool.
COMMANDS = {
    "initialize": ["tool", "list"],
    "tools_call": ["tool", "call", "add_numbers", "a:=2", "b:=3"],
    "elicitation-sep1034-client-defaults": ["tool", "call", "test_client_elicitation_defaults",
                                            "--elicit-stub", "{}"],
    "sse-retry": ["tool", "call", "test_reconnection"],
}


def options_for(scenario, context, workdir):
    """mcp-tui options for a scenario's context (credentials, keys, IdP)."""
    options = ["--client-metadata-url", CIMD_URL]
    if context.get("client_id"):
        options += ["--client-id", context["client_id"]]
    if "client-credentials" in scenario:
        options += ["--grant", "client_credentials"]
    if context.get("private_key_pem"):
        key = Path(workdir) / "client-key.pem"
        key.write_text(context["private_key_pem"])
        options += ["--private-key", str(key)]
    if context.get("idp_id_token"):
        token = Path(workdir) / "id-token"
        token.write_text(context["idp_id_token"])
        options += ["--id-token", "@" + str(token), "--idp-token-endpoint", context["idp_token_endpoint"]]
        if context.get("idp_client_id"):
            options += ["--idp-client-id", context["idp_client_id"]]
    return options


def main(argv):
    url = argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="mcp-tui-conformance-") as workdir:
        env = dict(os.environ)
        env.setdefault("MCP_TUI_STATE_DIR", os.path.join(workdir, "state"))
        env["BROWSER"] = "%s %s %%s" % (shlex.quote(sys.executable), shlex.quote(str(HERE / "fetch_url.py")))
        if context.get("client_secret"):
            env["MCP_TUI_CLIENT_SECRET"] = context["client_secret"]  # off the command line
        command = [sys.executable, str(CACHED_SCRIPT), str(MCP_TUI), "--url", url, "--timeout", "20"]
        command += options_for(scenario, context, workdir)
        command += shlex.split(os.environ.get("MCP_TUI_CONFORMANCE_EXTRA", ""))  # e.g. --debug --trace
        command += COMMANDS.get(scenario, ["tool", "call", "test-tool"])
        return subprocess.call(command, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
