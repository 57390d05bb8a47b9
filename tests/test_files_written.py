"""Files written only where the user meant (issue 31): every file mcp-tui writes for the user
(-o, snapshot -o, --junit, --record, --log-file) refuses a symbolic link planted at its path,
a FIFO or device, and a file another user owns; a whole file goes to a temporary name beside
it and is renamed into place; recordings and logs are 0600."""
import os
import stat

import pytest

import mcp_tui
from conftest import OTHER_UID, stdio_command

POSIX = pytest.mark.skipif(os.name == "nt", reason="symlinks, FIFOs and owners as POSIX has them")
AS_ROOT = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="another user's file needs root to make (chown)")

# (what the user asked for, as flags after the connection) for each writer; PATH is the target
WRITERS = {
    "-o": ["tool", "call", "echo", "message=hi", "-o", "PATH"],
    "snapshot -o": ["snapshot", "-o", "PATH"],
    "--junit": ["check", "--junit", "PATH"],
    "--record": ["--record", "PATH", "tool", "list"],
    "--log-file": ["--log-file", "PATH", "tool", "list"],
}


def run_writer(cli, writer, path):
    return cli(stdio_command(), *[str(path) if word == "PATH" else word for word in WRITERS[writer]])


@POSIX
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_symlink_planted_at_the_path_is_refused_and_its_target_unchanged(cli, tmp_path, writer):
    victim, link = tmp_path / "victim.txt", tmp_path / "out"
    victim.write_text("the victim's own\n")
    os.symlink(str(victim), str(link))
    result = run_writer(cli, writer, link)
    assert result.code == 2, result
    assert "%s: it is a symbolic link, and mcp-tui never writes through one" % link in result.err, result
    assert len(result.err.strip().splitlines()) == 1, result
    assert victim.read_text() == "the victim's own\n"
    assert os.path.islink(str(link)) and sorted(os.listdir(str(tmp_path))) == ["out", "victim.txt"]


@POSIX
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_at_the_path_is_refused_at_once(cli, tmp_path, writer):
    """Nobody reads the FIFO: an open for writing would wait for a reader past --max-time."""
    fifo = tmp_path / "out"
    os.mkfifo(str(fifo))
    result = run_writer(cli, writer, fifo)
    assert result.code == 2, result
    assert "it is not a regular file (a FIFO, a device or a directory)" in result.err, result
    assert stat.S_ISFIFO(os.lstat(str(fifo)).st_mode)


@POSIX
@AS_ROOT
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_file_another_user_owns_is_neither_replaced_nor_appended_to(cli, tmp_path, writer):
    """Root in a sticky /tmp is not stopped by the sticky bit: the owner is checked."""
    theirs = tmp_path / "out"
    theirs.write_text("theirs\n")
    os.chmod(str(theirs), 0o666)
    os.chown(str(theirs), OTHER_UID, OTHER_UID)
    result = run_writer(cli, writer, theirs)
    assert result.code == 2, result
    assert "%s: it belongs to another user" % theirs in result.err, result
    assert theirs.read_text() == "theirs\n" and os.stat(str(theirs)).st_uid == OTHER_UID


@POSIX
def test_recordings_and_logs_are_created_private_and_a_replaced_file_keeps_its_mode(cli, tmp_path):
    record, log, out = tmp_path / "record.jsonl", tmp_path / "debug.jsonl", tmp_path / "out.txt"
    out.write_text("old")
    os.chmod(str(out), 0o640)
    result = cli(stdio_command(), "--record", record, "--log-file", log, "tool", "call", "echo", "message=hi",
                 "-o", out)
    assert result.code == 0, result
    assert stat.S_IMODE(os.stat(str(record)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(str(log)).st_mode) == 0o600
    assert out.read_text() == "hi" and stat.S_IMODE(os.stat(str(out)).st_mode) == 0o640
    assert sorted(os.listdir(str(tmp_path))) == ["debug.jsonl", "out.txt", "record.jsonl"]  # no temporary left


@POSIX
def test_a_link_planted_after_the_start_is_refused_when_the_file_is_written(tmp_path):
    """-o is checked before anything is sent and again when the result is written: a link
    that turns up in between is not followed (the rename replaces names, never targets)."""
    victim, link = tmp_path / "victim.txt", tmp_path / "out"
    victim.write_text("the victim's own\n")
    os.symlink(str(victim), str(link))
    with pytest.raises(mcp_tui.McpTuiError) as raised:
        mcp_tui.write_output_file(str(link), b"result")
    assert raised.value.exit_code == 1
    assert str(raised.value) == "cannot write -o %s: it is a symbolic link, and mcp-tui never writes through one" % link
    assert victim.read_text() == "the victim's own\n" and sorted(os.listdir(str(tmp_path))) == ["out", "victim.txt"]


@POSIX
@AS_ROOT
def test_appending_refuses_a_file_swapped_in_after_the_look(tmp_path, monkeypatch):
    """The look before the open and the open race; the check of what was opened (fstat) does not."""
    theirs = tmp_path / "log"
    theirs.write_text("theirs\n")
    os.chown(str(theirs), OTHER_UID, OTHER_UID)
    monkeypatch.setattr(os, "lstat", lambda path: (_ for _ in ()).throw(FileNotFoundError(path)))  # not there yet
    with pytest.raises(mcp_tui.UnsafeFile) as raised:
        mcp_tui.open_user_file(str(theirs), append=True, private=True)
    monkeypatch.undo()
    assert raised.value.strerror == "it belongs to another user"
    assert theirs.read_text() == "theirs\n" and stat.S_IMODE(os.stat(str(theirs)).st_mode) != 0o600


@POSIX
def test_save_passes_a_link_planted_under_the_name_it_would_take(cli, tmp_path):
    """--save DIR makes only new files: a link at logo.png, dangling or not, is passed by."""
    saved, victim = tmp_path / "saved", tmp_path / "victim.png"
    saved.mkdir()
    victim.write_bytes(b"the victim's own")
    os.symlink(str(victim), str(saved / "logo.png"))
    result = cli(stdio_command(), "--save", saved, "resource", "read", "test://static/logo.png")
    assert result.code == 0, result
    assert "saved to %s]" % (saved / "logo-1.png") in result.out, result
    assert victim.read_bytes() == b"the victim's own" and (saved / "logo-1.png").read_bytes().startswith(b"\x89PNG")
    os.unlink(str(victim))  # now the link dangles
    again = cli(stdio_command(), "--save", saved, "resource", "read", "test://static/logo.png")
    assert again.code == 0 and "saved to %s]" % (saved / "logo-2.png") in again.out, again
    assert not victim.exists()
