"""mcp-tui's CLI against FastMCP 4.1.6 serving the Skills (SEP-2640) and MCP Apps (SEP-1865)
extensions (tests/interop/fastmcp_skills_apps.py, its skills in tests/interop/skills/).

Most tests share one peer on streamable HTTP per module (per xdist worker): a FastMCP start
costs about two seconds of CPU. The tests that serve a peer of their own (an edited copy of the
skills, one-item pages) run it over stdio, one process per invocation, so that transport stays
covered. Its venv comes from tests/interop/peers/skills.txt (MCP_TUI_PEER_SKILLS); without it
these tests skip.
"""
import json
import shlex

import pytest

from .conftest import PeerProcess, peer_python
from .interop_helpers import INTEROP_DIR, describe

PEER = INTEROP_DIR / "fastmcp_skills_apps.py"
SKILLS = INTEROP_DIR / "skills"
# FastMCP imports slowly; keep the probe from timing out on a loaded machine
PATIENCE = ["--probe-timeout", "60", "--timeout", "60"]


@pytest.fixture(scope="module")
def stdio_peer(peer_zygotes):
    """The connection arguments of the FastMCP skills and apps peer over stdio (a process per
    invocation); a test adds the peer's own options to the first one."""
    return [peer_zygotes.command(peer_python("skills"), PEER, "stdio")] + PATIENCE


@pytest.fixture(scope="module")
def peer(peer_log_dir):
    """The connection arguments of one FastMCP skills and apps peer on streamable HTTP,
    shared by this module's tests (none changes its state)."""
    server = PeerProcess([peer_python("skills"), PEER, "http", "--port", "0"], "skills-http", peer_log_dir).start()
    yield [server.url] + PATIENCE
    server.stop()


def ok(result):
    assert result.returncode == 0, describe(result)
    return result


def test_skill_list_shows_both_skills_with_file_counts_and_sizes(run_cli, peer):
    out = ok(run_cli(*peer, "skill", "list")).stdout
    assert "git-workflow\n" in out and "acme/refunds\n" in out
    assert "skill://acme/refunds/SKILL.md · 3 files, 451 bytes" in out
    assert "skill://git-workflow/SKILL.md · 2 files" in out


def test_skill_verify_passes_every_file(run_cli, peer):
    out = ok(run_cli(*peer, "skill", "verify")).stdout
    assert "✓ acme/refunds: 3 of 3 files verified" in out
    assert "✓ git-workflow: 2 of 2 files verified" in out
    assert "mismatch" not in out and "unverifiable" not in out


def test_skill_get_shows_frontmatter_and_manifest(run_cli, peer):
    out = ok(run_cli(*peer, "skill", "get", "git-workflow")).stdout
    assert 'license: "Apache-2.0"' in out and 'metadata: {"version": "1.2"}' in out
    assert "Manifest (2 files" in out and "skill://git-workflow/conventions.md" in out
    document = json.loads(ok(run_cli(*peer, "--format", "json", "skill", "get", "skill://acme/refunds/SKILL.md")).stdout)
    assert document["problems"] == []
    sizes = {f["uri"]: f["size"] for f in document["result"]["skill"]["resources"]}
    assert sizes["skill://acme/refunds/SKILL.md"] == 254  # bytes, not the 250 characters


def test_skill_get_of_a_supporting_file_is_the_servers_refusal(run_cli, peer):
    result = run_cli(*peer, "skill", "get", "skill://git-workflow/conventions.md")
    assert result.returncode == 1, describe(result)
    assert "-32602" in result.stderr


def test_skill_fetch_writes_the_tree_byte_for_byte(run_cli, peer, tmp_path):
    target = tmp_path / "refunds"
    ok(run_cli(*peer, "skill", "fetch", "acme/refunds", "-o", target))
    written = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert written == ["SKILL.md", "templates/email.md", "templates/seal.png"]
    for name in written:
        assert (target / name).read_bytes() == (SKILLS / "acme" / "refunds" / name).read_bytes(), name


def test_a_changed_file_shows_in_the_next_manifest(run_cli, stdio_peer, tmp_path):
    """FastMCP builds each manifest from the live files (--skills-root serves a copy the test
    edits), so a refresh shows the change. A manifest that disagrees with its files within
    one session is tests/test_skills.py's, against the test server's --tampered-skill."""
    import shutil

    root = tmp_path / "skills"
    shutil.copytree(SKILLS, root)
    copy = [stdio_peer[0] + " --skills-root " + shlex.quote(str(root))] + stdio_peer[1:]
    assert "     127  sha256:" in ok(run_cli(*copy, "skill", "get", "acme/refunds")).stdout
    (root / "acme" / "refunds" / "templates" / "email.md").write_text("changed\n", encoding="utf-8")
    out = ok(run_cli(*copy, "skill", "get", "acme/refunds")).stdout
    assert "       8  sha256:" in out and "Manifest (3 files, 332 bytes)" in out


def test_a_2025_session_says_the_server_serves_no_skills(run_cli, peer):
    result = run_cli(*peer, "--protocol-version", "2025-11-25", "skill", "list")
    assert result.returncode == 2, describe(result)
    assert "does not serve skills" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    # the files are still plain resources
    out = ok(run_cli(*peer, "--protocol-version", "2025-11-25", "resource", "read",
                     "skill://git-workflow/SKILL.md")).stdout
    assert "name: git-workflow" in out


def test_tool_list_marks_app_tools(run_cli, peer):
    out = ok(run_cli(*peer, "tool", "list")).stdout
    assert "roll_dice (Roll Dice) [app: ui://peers/dice.html]" in out
    assert "reroll (Reroll) [app-only: ui://peers/dice.html]" in out


def test_tool_describe_shows_the_view_its_csp_and_permissions(run_cli, peer):
    out = ok(run_cli(*peer, "tool", "describe", "roll_dice")).stdout
    assert "App view: ui://peers/dice.html" in out
    assert "Visibility: model, app" in out
    assert "MIME type: text/html;profile=mcp-app" in out
    assert "CSP: connectDomains https://api.example.com, resourceDomains https://cdn.example.com" in out
    assert "Permissions: clipboardWrite" in out
    assert "prefersBorder: true" in out
    document = json.loads(ok(run_cli(*peer, "--format", "json", "tool", "describe", "reroll")).stdout)
    assert document["app"]["visibility"] == ["app"]
    assert document["app"]["ui"]["permissions"] == {"clipboardWrite": {}}


def test_resource_read_saves_the_view(run_cli, peer, tmp_path):
    target = tmp_path / "view.html"
    result = ok(run_cli(*peer, "resource", "read", "ui://peers/dice.html", "-o", target))
    assert result.stdout == ""
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "Wrote %d bytes" % len(target.read_bytes()) in result.stderr and str(target) in result.stderr


@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_advertise_apps_declares_the_extension_to_the_tool(run_cli, peer, era):
    """Per request in 2026-07-28, in initialize in 2025-11-25; never without the flag."""
    conn = peer + ["--protocol-version", era]
    plain = json.loads(ok(run_cli(*conn, "--format", "json", "tool", "call", "roll_dice")).stdout)
    declared = json.loads(ok(run_cli(*conn, "--advertise-apps", "--format", "json", "tool", "call",
                                     "roll_dice")).stdout)
    assert plain["result"]["structuredContent"]["client_declared_ui"] is False
    assert declared["result"]["structuredContent"]["client_declared_ui"] is True


def test_skill_list_follows_every_page(run_cli, stdio_peer, tmp_path):
    record = tmp_path / "record.jsonl"
    paged = [stdio_peer[0] + " --page-size 1"] + stdio_peer[1:]
    out = ok(run_cli(*paged, "--record", record, "skill", "list")).stdout
    assert "acme/refunds\n" in out and "git-workflow\n" in out
    methods = [json.loads(line).get("message", {}).get("method") for line in record.read_text().splitlines()]
    assert methods.count("skills/list") == 2
