"""Skills (SEP-2640) against the test server's --tampered-skill, and the strict YAML subset
mcp-tui reads a SKILL.md's frontmatter in. The FastMCP peer's skills and App view are in
tests/interop/test_skills_apps.py."""
import json

import pytest

import mcp_tui
from conftest import stdio_command


def test_verify_names_the_file_whose_size_and_the_file_whose_digest_disagree(cli):
    result = cli(stdio_command("--tampered-skill"), "skill", "verify")
    assert result.code == 1, result.err
    assert "✗ tampered: 1 of 3 files verified" in result.out
    assert "size-mismatch            skill://tampered/notes.md" in result.out
    assert "the manifest says 10 bytes, the server sent 12" in result.out
    assert "digest-mismatch          skill://tampered/seal.bin" in result.out
    assert "verified                 skill://tampered/SKILL.md" in result.out


def test_verify_as_json_keeps_expected_and_actual(cli):
    result = cli(stdio_command("--tampered-skill"), "--format", "json", "skill", "verify", "tampered")
    assert result.code == 1, result.err
    document = json.loads(result.out)
    assert document["ok"] is False
    statuses = {row["uri"]: row["status"] for row in document["skills"][0]["files"]}
    assert statuses == {"skill://tampered/SKILL.md": "verified", "skill://tampered/notes.md": "size-mismatch",
                        "skill://tampered/seal.bin": "digest-mismatch"}


def test_fetch_of_a_tampered_skill_writes_nothing(cli, tmp_path):
    target = tmp_path / "out"
    result = cli(stdio_command("--tampered-skill"), "skill", "fetch", "skill://tampered/SKILL.md", "-o", target)
    assert result.code == 1
    assert "nothing was written" in result.err
    assert "skill://tampered/notes.md size-mismatch" in result.err
    assert "skill://tampered/seal.bin digest-mismatch" in result.err
    assert not target.exists()


def test_the_skills_extension_is_declared_on_skills_requests_only(cli, tmp_path):
    record = tmp_path / "record.jsonl"
    result = cli(stdio_command("--tampered-skill", "--record", record), "skill", "list")
    assert result.code == 0, result.err
    assert "skill://tampered/SKILL.md · 3 files" in result.out
    declared = {}
    for line in record.read_text().splitlines():
        message = json.loads(line)["message"]
        capabilities = ((message.get("params") or {}).get("_meta") or {}).get(
            "io.modelcontextprotocol/clientCapabilities") or {}
        if "method" in message:
            declared[message["method"]] = "io.modelcontextprotocol/skills" in (capabilities.get("extensions") or {})
    assert declared["skills/list"] is True
    assert declared["server/discover"] is False


def test_a_server_without_skills_gets_one_line_and_nothing_sent(cli):
    result = cli(stdio_command(), "skill", "list")
    assert result.code == 2
    assert "does not serve skills" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err


def test_skill_get_unknown_name_is_a_usage_error(cli):
    result = cli(stdio_command("--tampered-skill"), "skill", "get", "nope")
    assert result.code == 2
    assert "no skill named 'nope'" in result.err and "tampered" in result.err


# -- the frontmatter reader ------------------------------------------------------------


def frontmatter(body):
    return mcp_tui.skill_frontmatter("---\n%s---\n\n# Body\n" % body)


def test_frontmatter_reads_scalars_lists_nested_maps_and_quotes():
    assert frontmatter(
        "name: git-workflow\n"
        "description: Follow this team's Git conventions, branches first.\n"
        "license: Apache-2.0\n"
        "metadata:\n  version: \"1.2\"\n  owner: 'it''s me'\n  nested:\n    - 1\n    - two\n"
        "tags:\n- a\n- \"b\\u20ac\"\n"
        "count: 3\nratio: 1.10\nflag: true\nnothing: null  # a comment\n"
    ) == {"name": "git-workflow", "description": "Follow this team's Git conventions, branches first.",
          "license": "Apache-2.0", "metadata": {"version": "1.2", "owner": "it's me", "nested": [1, "two"]},
          "tags": ["a", "b€"], "count": 3, "ratio": 1.1, "flag": True, "nothing": None}


def test_frontmatter_reads_crlf_lines():
    assert mcp_tui.skill_frontmatter("---\r\nname: a\r\ndescription: b\r\n---\r\n") == {"name": "a",
                                                                                        "description": "b"}


@pytest.mark.parametrize("body", [
    "name: yes\n",  # true in YAML 1.1, a string in 1.2
    "when: 2024-01-01\n",  # a date to some loaders
    "mode: 0755\n",  # octal in YAML 1.1
    "tags: [a, b]\n",  # flow collections
    "text: |\n  block\n",  # block scalars
    "ref: *anchor\n",
    "name: a\n  continued\n",  # a folded plain scalar
    "name: a\nname: b\n",  # a duplicate key
    "items:\n  - key: value\n",  # a map inside a list item
    "text: \"\\x41\"\n",  # a YAML escape JSON lacks
])
def test_frontmatter_beyond_the_subset_is_reported_not_guessed(body):
    with pytest.raises(mcp_tui.FrontmatterUnsupported):
        frontmatter(body)


def test_frontmatter_needs_its_fences():
    with pytest.raises(mcp_tui.FrontmatterUnsupported):
        mcp_tui.skill_frontmatter("name: a\n")


def test_the_bytes_of_text_are_its_utf8_and_of_a_blob_its_strict_base64():
    assert mcp_tui.skill_file_bytes({"text": "€"}) == b"\xe2\x82\xac"
    assert mcp_tui.skill_file_bytes({"blob": "AAEC"}) == b"\x00\x01\x02"
    with pytest.raises(mcp_tui.ProtocolViolation):
        mcp_tui.skill_file_bytes({"blob": "AA!EC", "uri": "skill://x/y"})


@pytest.mark.parametrize("change, problem", [
    (lambda e: e["resources"].pop(0), "manifest-missing-self"),
    (lambda e: e["resources"].append(dict(e["resources"][0])), "duplicate-resource"),
    (lambda e: e["resources"][0].update(digest="sha256:" + "A" * 64), "malformed-digest"),
    (lambda e: e["resources"].append({"uri": "skill://other/x", "size": 1, "digest": "sha256:" + "0" * 64}),
     "resource-outside-skill-root"),
    (lambda e: e.pop("resources"), "missing-resources"),
    (lambda e: e["frontmatter"].update(name="other"), "name-path-mismatch"),
])
def test_an_unsound_entry_is_named(change, problem):
    entry = {"uri": "skill://acme/refunds/SKILL.md", "frontmatter": {"name": "refunds", "description": "d"},
             "resources": [{"uri": "skill://acme/refunds/SKILL.md", "size": 3, "digest": "sha256:" + "0" * 64}]}
    assert mcp_tui.skill_entry_problems(entry) == []
    change(entry)
    assert problem in mcp_tui.skill_entry_problems(entry)


def test_app_view_prefers_the_nested_key_and_reads_the_legacy_one():
    assert mcp_tui.app_view({"_meta": {"ui/resourceUri": "ui://a/old.html"}}) == {
        "resourceUri": "ui://a/old.html", "visibility": ["model", "app"]}
    assert mcp_tui.app_view({"_meta": {"ui": {"resourceUri": "ui://a/new.html", "visibility": ["app"]},
                                       "ui/resourceUri": "ui://a/old.html"}})["resourceUri"] == "ui://a/new.html"
    assert mcp_tui.app_view({"_meta": {"ui": {"resourceUri": "https://a/x.html"}}}) is None
