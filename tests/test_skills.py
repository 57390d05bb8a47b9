"""Skills (SEP-2640) against the test server's --tampered-skill, and the strict YAML subset
mcp-tui reads a SKILL.md's frontmatter in. The FastMCP peer's skills and App view are in
tests/interop/test_skills_apps.py."""
import json
import os

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


def test_fetch_writes_every_file_byte_for_byte_into_a_new_directory_and_nothing_beside_it(cli, tmp_path):
    target = tmp_path / "greeting"
    result = cli(stdio_command("--skills"), "skill", "fetch", "greeting", "-o", target)
    assert result.code == 0, result
    assert (target / "templates" / "hello.md").read_bytes() == b"Hello, {name}!\n"
    assert (target / "stamp.bin").read_bytes() == bytes(range(250, 256)) + bytes(6)
    assert (target / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: greeting\n")
    assert os.listdir(str(tmp_path)) == ["greeting"]  # the temporary directory was renamed, not left


# A skill whose manifest verifies but whose file names cannot all be written, on every
# platform (a fetched skill may be copied to Windows): (names, the path named, why)
HOSTILE_NAMES = [
    (["NUL.txt"], "'NUL.txt'", "a device name Windows reserves"),
    (["CON"], "'CON'", "a device name Windows reserves"),
    (["ok.md", "sub/COM1.md"], "'sub/COM1.md'", "a device name Windows reserves"),
    (["aux.tar.gz"], "'aux.tar.gz'", "a device name Windows reserves"),
    (["a", "a/b"], "'a'", "both a file and the folder of 'a/b'"),
    (["x/y/z", "x/Y"], "'x/Y'", "both a file and the folder of 'x/y/z'"),
    (["a\u0000b"], "'a\\x00b'", "a NUL character"),
    (["n" * 300], "'%s'" % ("n" * 300), "a name longer than 255 bytes"),
    (["what?.md"], "'what?.md'", "a character Windows does not allow in a name"),
    (["tab\tname.md"], "'tab\\tname.md'", "a character Windows does not allow in a name"),
    (["notes.md", "Notes.md"], "'Notes.md'", "the same name as 'notes.md' where case is ignored"),
    (["dot.", "sub/space "], "'dot.'", "a name that ends in a dot or a space"),
    (["sub/space "], "'sub/space '", "a name that ends in a dot or a space"),
    (["a/./b"], "'a/./b'", "an empty, . or .. part"),
]


@pytest.mark.parametrize("names,path,why", HOSTILE_NAMES, ids=[repr(case[0])[:40] for case in HOSTILE_NAMES])
def test_fetch_of_a_skill_whose_file_names_cannot_all_be_written_writes_nothing(cli, tmp_path, names, path, why):
    """It gave `internal error` (ValueError, FileExistsError, OSError) with part of the skill
    written, and NUL.txt reported success and wrote to the NUL device on Windows (issue 31)."""
    target = tmp_path / "out"
    result = cli(stdio_command("--hostile-skill", json.dumps(names)), "skill", "fetch", "hostile", "-o", target)
    assert result.code == 1, result
    assert result.err.startswith("mcp-tui: skill hostile: nothing was written: ") and "internal error" not in result.err
    assert "%s: %s" % (path, why) in result.err, result
    assert len(result.err.strip().splitlines()) == 1, result
    assert os.listdir(str(tmp_path)) == []


def test_a_fetch_that_fails_part_way_leaves_nothing(cli, tmp_path, monkeypatch):
    """A write that fails after the first files (a full disk, here a refused open) removes what
    was written: the files go into a temporary directory that is renamed only at the end."""
    opened, real = [], mcp_tui.open_user_file

    def fail_the_second(path, *args, **kwargs):
        opened.append(path)
        if len(opened) == 2:
            raise OSError(28, "No space left on device", path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(mcp_tui, "open_user_file", fail_the_second)
    target = tmp_path / "greeting"
    result = cli(stdio_command("--skills"), "skill", "fetch", "greeting", "-o", target)
    assert result.code == 1, result
    assert "cannot write skill docs/greeting to %s: No space left on device; nothing was written" % target in result.err
    assert len(opened) == 2 and os.listdir(str(tmp_path)) == []


def test_fetch_into_a_path_that_exists_is_refused_before_anything_is_sent(cli, tmp_path):
    existing = tmp_path / "there"
    existing.write_text("mine")
    result = cli(stdio_command("--skills"), "skill", "fetch", "greeting", "-o", existing)
    assert result.code == 2 and "already exists; skill fetch writes the skill into a new directory" in result.err
    assert existing.read_text() == "mine"


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


def test_fetch_into_an_empty_directory_writes_the_skill_there(cli, tmp_path):
    """`-o DIR` where DIR is an empty directory (made for it): it was "is a directory"."""
    target = tmp_path / "greeting"
    target.mkdir()
    target.chmod(0o700)
    result = cli(stdio_command("--skills"), "skill", "fetch", "greeting", "-o", target)
    assert result.code == 0, result
    assert (target / "templates" / "hello.md").read_bytes() == b"Hello, {name}!\n"
    assert (target / "SKILL.md").read_text(encoding="utf-8").startswith("---\nname: greeting\n")
    assert os.listdir(str(tmp_path)) == ["greeting"]
    if os.name == "posix":
        assert oct(target.stat().st_mode & 0o777) == oct(0o700)  # its mode is kept


def test_fetch_into_a_directory_that_is_not_empty_is_refused_before_anything_is_sent(cli, tmp_path):
    target = tmp_path / "there"
    target.mkdir()
    (target / "mine.txt").write_text("mine")
    result = cli(stdio_command("--skills"), "skill", "fetch", "greeting", "-o", target)
    assert result.code == 2 and "already exists; skill fetch writes the skill into a new directory or an empty one" \
        in result.err, result
    assert os.listdir(str(target)) == ["mine.txt"]

