"""State files (the task ledger first): concurrent writers lose nothing, a corrupt file is
moved aside with a warning, malformed entries are skipped, the state directory must be
private, and the task ID is printed whatever happens to the ledger. The ledger's reader is
fuzzed with arbitrary JSON.
"""
import json
import os
import stat
import subprocess
import tempfile
import threading
import types

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mcp_tui
from conftest import MCP_TUI_PROCESS, OTHER_UID, ROOT
from test_reliability import MODERN, bad  # noqa: F401 (bad is a fixture)


def create_task(cli, target, *flags, **options):
    result = cli(*target.args, "tool", "call", "slow_task", "--task", *flags, **options)
    assert result.code == 0 and result.out.startswith("Task "), result
    return result, result.out.split()[1]


def test_twenty_concurrent_writers_lose_no_entry(bad, state_dir):
    target = bad("http", MODERN, "ok")
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    procs = [subprocess.Popen(MCP_TUI_PROCESS + [*target.args, "tool", "call", "slow_task", "--task"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ, cwd=str(ROOT), text=True)
             for _ in range(20)]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), outputs
    ids = [out.split()[1] for out, _ in outputs]
    ledger = json.loads((state_dir / "tasks.json").read_text(encoding="utf-8"))
    assert sorted(ledger) == sorted(mcp_tui.fingerprint(task_id) for task_id in ids), ledger
    assert not [name for name in os.listdir(state_dir) if name.endswith(".tmp")]


def test_a_corrupt_ledger_is_moved_aside_with_a_warning(cli, bad, state_dir):
    (state_dir / "tasks.json").write_text("{not json", encoding="utf-8")
    result, task_id = create_task(cli, bad("http", MODERN, "ok"))
    assert "was not a JSON object; moved it aside to" in result.err, result
    aside = [name for name in os.listdir(state_dir) if name.startswith("tasks.json.corrupt-")]
    assert len(aside) == 1 and (state_dir / aside[0]).read_text() == "{not json", aside
    assert cli("task", "get", task_id).code == 0


def test_malformed_entries_are_skipped_and_the_task_id_still_printed(cli, bad, state_dir):
    (state_dir / "tasks.json").write_text(json.dumps({"a": [1, 2], "b": {"connection": "x"}, "c": None}))
    result, task_id = create_task(cli, bad("http", MODERN, "ok"))
    assert "skipped 3 malformed entries" in result.err, result
    assert cli("task", "get", task_id).code == 0


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_a_state_directory_others_may_write_is_refused(cli, bad, state_dir):
    state_dir.chmod(0o777)
    result, task_id = create_task(cli, bad("http", MODERN, "ok"))
    assert "writable by others" in result.err and "chmod 700" in result.err, result
    assert not (state_dir / "tasks.json").exists()
    looked_up = cli("task", "get", task_id)
    assert looked_up.code == 1 and "writable by others" in looked_up.err, looked_up


@pytest.mark.skipif(os.name == "nt", reason="POSIX symlinks")
def test_a_state_directory_that_is_a_symlink_is_refused_and_its_target_left_alone(cli, bad, tmp_path):
    """MCP_TUI_STATE_DIR at a link another user planted (to a directory of theirs, or of
    root's, 0755): it was accepted, chmod-ed 0700 and used (issue 31)."""
    target, link = tmp_path / "someone-elses", tmp_path / "state"
    target.mkdir()
    target.chmod(0o755)
    link.symlink_to(target, target_is_directory=True)
    result, task_id = create_task(cli, bad("http", MODERN, "ok"), env={"MCP_TUI_STATE_DIR": str(link)})
    assert "the state directory %s is a symbolic link" % link in result.err, result
    assert os.listdir(str(target)) == [] and stat.S_IMODE(target.stat().st_mode) == 0o755
    looked_up = cli("task", "get", task_id, env={"MCP_TUI_STATE_DIR": str(link)})
    assert looked_up.code == 1 and "is a symbolic link" in looked_up.err, looked_up


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="another user's directory needs root")
def test_a_state_directory_another_user_owns_is_refused(cli, bad, tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(str(theirs), OTHER_UID, OTHER_UID)
    result, _ = create_task(cli, bad("http", MODERN, "ok"), env={"MCP_TUI_STATE_DIR": str(theirs)})
    assert "the state directory %s is not yours" % theirs in result.err, result
    assert os.listdir(str(theirs)) == []


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_the_state_directory_and_files_are_private(cli, bad, tmp_path):
    state = tmp_path / "fresh" / "state"
    create_task(cli, bad("http", MODERN, "ok"), env={"MCP_TUI_STATE_DIR": str(state)})
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for name in os.listdir(state):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name


def test_the_state_file_store_is_reusable(tmp_path):
    """The piece the OAuth token store and the sessions file use: locked read-modify-write."""
    store = mcp_tui.JsonStateFile(str(tmp_path / "state" / "auth.json"))

    def add(index):
        for step in range(10):
            store.update(lambda data: data.__setitem__("%d-%d" % (index, step), step))

    threads = [threading.Thread(target=add, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.read()) == 80


class FakeTask(object):
    task_id = "task-1"
    status = "working"
    data = {"createdAt": "2026-01-01T00:00:00Z"}

    def expires_at(self):
        return None


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=25)
ENTRY = st.fixed_dictionaries({"connection": JSON | st.fixed_dictionaries(
    {"kind": st.sampled_from(["stdio", "http", "sse", "x"]), "protocol": JSON, "argv": JSON, "url": JSON,
     "config": JSON, "server": JSON}), "expiresAt": JSON, "tool": JSON, "form": JSON})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(JSON, st.dictionaries(st.text(max_size=10), ENTRY | JSON, max_size=5)))
def test_the_ledger_reader_survives_any_json(value):
    with tempfile.TemporaryDirectory() as directory:
        os.chmod(directory, 0o700)
        path = os.path.join(directory, "tasks.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(value, handle)
        warnings = []
        ledger = mcp_tui.TaskLedger(path, warn=warnings.append)
        for entry in ledger.store.read().values():
            assert mcp_tui.valid_ledger_entry(None, entry)
            if "config" not in entry["connection"] and not entry["connection"].get("queryMasked"):
                mcp_tui.ConnectionSpec.from_ledger(entry["connection"])
        ledger.remember(FakeTask(), types.SimpleNamespace(session=types.SimpleNamespace(spec=mcp_tui.ConnectionSpec("stdio", argv=["server"]), session_record=lambda: None), form="extension"), "tool")
        assert ledger.lookup("task-1")["connection"]["argv"] == ["server"]
        if not isinstance(value, dict):
            assert any("moved it aside" in warning for warning in warnings), warnings


@pytest.mark.skipif(os.name == "nt", reason="a dangling symlink is POSIX")
@pytest.mark.parametrize("trap", ["auth.json.lock is a dangling symlink", "auth.json is a directory"])
def test_an_unusable_token_store_is_one_line_at_once(cli, start_server, state_dir, trap):
    """The token store is first read on the transport's thread, during the authorization:
    its OSError was a thread's traceback, then a wait for the whole --timeout."""
    if trap.startswith("auth.json.lock"):
        os.symlink(str(state_dir / "nowhere" / "x"), str(state_dir / "auth.json.lock"))
        name = "auth.json.lock"
    else:
        (state_dir / "auth.json").mkdir()
        name = "auth.json"
    server = start_server("--auth")
    result = cli("--url", server.url, "--timeout", "60", "tool", "list", env={"BROWSER": "false"}, timeout=50)
    assert (result.code, result.out) == (1, ""), result
    assert result.err.startswith("mcp-tui: cannot use the state file %s: " % (state_dir / name)), result
    assert len(result.err.splitlines()) == 1 and "Traceback" not in result.err, result


@pytest.mark.parametrize("words", [["tool", "call", "render_report", "quarter=Q1", "--task"],
                                   ["session", "open", "nohome"]])
def test_a_state_directory_that_cannot_be_made_names_the_variable_that_moves_it(cli, words):
    """HOME unwritable (here: a file, which even root cannot make a folder in): the ledger and
    the sessions failed with the OS's words alone."""
    from conftest import stdio_command

    words = words + [stdio_command()] if words[0] == "session" else [stdio_command()] + words
    result = cli(*words, env={"MCP_TUI_STATE_DIR": "", "XDG_STATE_HOME": "", "HOME": os.devnull}, process=True)
    assert (result.code, result.out) == (1, ""), result
    assert result.err.startswith("mcp-tui: cannot create the state directory %s" % os.devnull), result
    assert result.err.endswith("(set MCP_TUI_STATE_DIR to a directory you can write)\n"), result


@pytest.mark.parametrize("words", [["tool", "call", "render_report", "quarter=Q1", "--task"],
                                   ["session", "open", "relative"]])
def test_a_relative_state_directory_is_refused_and_nothing_is_written_in_the_cwd(cli, tmp_path, words):
    """Windows with no home (expanduser leaves `~\\AppData\\Local` as it is), or a relative
    MCP_TUI_STATE_DIR: the ledger, tokens and sessions went into whatever folder the command
    ran in (a git checkout, say), and another folder's command did not find them."""
    from conftest import stdio_command

    words = words + [stdio_command()] if words[0] == "session" else [stdio_command()] + words
    result = cli(*words, env={"MCP_TUI_STATE_DIR": "state"}, cwd=tmp_path, process=True)
    assert "mcp-tui: no state directory: state is not a full path, and state is never kept in the folder a command " \
           "runs in (set MCP_TUI_STATE_DIR to a full path you can write)\n" in result.err, result
    assert os.listdir(str(tmp_path)) == [], result
    for reader, says in READ_ONLY:  # what reads state has nothing to show, and says so
        read = cli(*reader, env={"MCP_TUI_STATE_DIR": "state"}, cwd=tmp_path, process=True)
        assert (read.code, (read.out, read.err)) == (0, says), read
    assert os.listdir(str(tmp_path)) == []


def test_a_relative_xdg_state_home_is_ignored_as_the_xdg_spec_says(monkeypatch, tmp_path):
    monkeypatch.delenv("MCP_TUI_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert mcp_tui.state_directory() == str(tmp_path / ".local" / "state" / "mcp-tui")


# -- worlds without a usable home: another user, a host's filtered environment ----------------------

READ_ONLY = [(["auth", "status"], ("no stored tokens\n", "")),  # what stdout and stderr say
             (["session", "list"], ("", "No sessions. Open one: mcp-tui session open NAME CONNECTION\n")),
             (["--format", "json", "session", "list"], ('{\n  "sessions": []\n}\n', ""))]


@pytest.mark.parametrize("words, says", READ_ONLY, ids=["auth-status", "session-list", "session-list-json"])
@pytest.mark.parametrize("home", ["/nonexistent", None], ids=["home-not-there", "no-HOME"])
def test_read_only_commands_need_no_state_directory(other_user, words, says, home):
    """`nobody` (home /nonexistent, which that user cannot make): there is nothing saved to show,
    so say so and exit 0, rather than `cannot create the state directory`, exit 1."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin"}
    if home:
        env["HOME"] = home
    result = other_user.mcp_tui(*words, env=env)
    assert (result.code, (result.out, result.err)) == (0, says), result


@pytest.mark.parametrize("words, says", READ_ONLY, ids=["auth-status", "session-list", "session-list-json"])
def test_reading_state_makes_no_state_directory(host_environment, tmp_path, words, says):
    """Under a host's environment whose HOME is not there yet: nothing is made to read nothing."""
    home = tmp_path / "not-yet"
    proc = subprocess.run(MCP_TUI_PROCESS + words, env=dict(host_environment, HOME=str(home)), capture_output=True,
                          text=True, encoding="utf-8", timeout=60, cwd=str(ROOT))
    assert (proc.returncode, (proc.stdout, proc.stderr)) == (0, says), proc
    assert not home.exists()


def test_a_stdio_server_started_under_a_hosts_environment_works(host_environment):
    """A host on the official SDK starts what it runs with HOME, LOGNAME, PATH, SHELL, TERM and
    USER alone (no LANG, no PYTHON*, no MCP_TUI_*): mcp-tui runs its server and keeps its state
    in that HOME."""
    from conftest import stdio_command

    proc = subprocess.run(MCP_TUI_PROCESS + [stdio_command(), "tool", "call", "echo", "message=caf\u00e9"],
                          env=host_environment, capture_output=True, text=True, encoding="utf-8", timeout=60,
                          cwd=str(ROOT))
    assert (proc.returncode, proc.stdout) == (0, "Tool response:\ncaf\u00e9\n"), proc
    state = os.path.join(host_environment["HOME"], ".local", "state", "mcp-tui")
    assert os.name == "nt" or stat.S_IMODE(os.stat(state).st_mode) == 0o700


def test_the_host_environment_is_the_official_sdks_default():
    """HOST_INHERITED_ENV_VARS is the SDK's own list (where its peer venv is installed)."""
    from conftest import HOST_INHERITED_ENV_VARS

    python = ROOT / ".venv-peers" / "sdk" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        pytest.skip("the official SDK's venv is not installed (.venv-peers/sdk)")
    proc = subprocess.run([str(python), "-c", "import json; from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS as v; "
                           "print(json.dumps(list(v)))"], capture_output=True, text=True, timeout=60, cwd="/")
    assert proc.returncode == 0, proc.stderr[-500:]
    assert tuple(json.loads(proc.stdout)) == HOST_INHERITED_ENV_VARS
