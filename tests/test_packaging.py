"""The ways to run mcp-tui (issue 7): the zipapp, the console script from `pip install`,
`python -m mcp_tui`; the Windows paths taken without POSIX-only calls; and what
pyproject.toml declares. Real subprocesses against the test server."""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import MCP_TUI, ROOT, TESTSERVER, RunningServer, plant_bytecode
from run_tests import new_venv

PYPROJECT = ROOT / "pyproject.toml"
BIN = "Scripts" if os.name == "nt" else "bin"
EXE = ".exe" if os.name == "nt" else ""

# The documented build: a directory holding only mcp_tui.py, optionally with its bytecode
# (`compileall -b` writes mcp_tui.pyc where zipimport looks; other Python versions fall
# back to the source in the archive), then one `python3 -m zipapp` command.
ZIPAPP_COMMAND = ["-m", "zipapp", "{src}", "-m", "mcp_tui:main", "-p", "/usr/bin/env python3", "-o", "{out}"]
COMPILE_COMMAND = ["-m", "compileall", "-q", "-b", "{src}"]


def run(argv, state_dir, timeout=60, cwd=None, env=None):
    environ = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    environ.pop("MCP_TUI_BEARER", None)
    environ.update(env or {})
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, encoding="utf-8",
                          timeout=timeout, cwd=str(cwd or ROOT), env=environ)


def show(proc):
    return "exit %s\n--- stdout\n%s\n--- stderr\n%s" % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:])


def stdio_words():
    """The test server as --cmd/--args: no quoting rules involved on any platform."""
    return ["--cmd", sys.executable, "--args", str(TESTSERVER), "--args=--page-ms", "--args=0"]


@pytest.fixture(scope="module")
def http_server():
    server = RunningServer(["--http", "127.0.0.1:0", "--page-ms", "0"], None)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return tmp_path_factory.mktemp("state")


# -- the zipapp --------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["source", "bytecode"])
def pyz(request, tmp_path_factory):
    work = tmp_path_factory.mktemp("pyz-" + request.param)
    src = work / "src"
    src.mkdir()
    (src / "mcp_tui.py").write_bytes(MCP_TUI.read_bytes())
    if request.param == "bytecode":
        subprocess.check_call([sys.executable] + [a.format(src=src) for a in COMPILE_COMMAND])
    out = work / "mcp-tui.pyz"
    proc = subprocess.run([sys.executable] + [a.format(src=src, out=out) for a in ZIPAPP_COMMAND],
                          capture_output=True, text=True)
    assert proc.returncode == 0, show(proc)
    return out


def test_zipapp_holds_the_one_file_and_its_bytecode_when_compiled(pyz):
    names = set(zipfile.ZipFile(str(pyz)).namelist())
    expected = {"__main__.py", "mcp_tui.py"} | ({"mcp_tui.pyc"} if "bytecode" in pyz.parent.name else set())
    assert names == expected
    with open(str(pyz), "rb") as handle:
        assert handle.readline() == b"#!/usr/bin/env python3\n"


def test_zipapp_with_bytecode_loads_the_bytecode(pyz, state):
    if "bytecode" not in pyz.parent.name:
        pytest.skip("the source-only archive has no bytecode")
    proc = run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); import mcp_tui; "
                "print(mcp_tui.__file__)", pyz], state)
    assert proc.stdout.strip().endswith("mcp_tui.pyc"), show(proc)


def test_zipapp_lists_tools_over_stdio(pyz, state):
    proc = run([sys.executable, pyz] + stdio_words() + ["tool", "list"], state)
    assert proc.returncode == 0, show(proc)
    assert proc.stdout.startswith("echo (Echo)\n"), show(proc)
    assert "render_report (Render report)" in proc.stdout


def test_zipapp_calls_echo_over_http(pyz, state, http_server):
    proc = run([sys.executable, pyz, "--url", http_server.url, "tool", "call", "echo", "message=hi"], state)
    assert proc.returncode == 0, show(proc)
    assert proc.stdout == "Tool response:\nhi\n", show(proc)


def test_zipapp_keeps_the_exit_codes(pyz, state, http_server):
    """zipapp's generated __main__.py is `import mcp_tui; mcp_tui.main()`: it drops the
    value main() returns, so main() itself must exit when it is called without argv."""
    usage = run([sys.executable, pyz, "--no-such-option"], state)
    assert usage.returncode == 2, show(usage)
    failure = run([sys.executable, pyz, "--url", http_server.url, "rpc", "no/such_method", "{}"], state)
    assert failure.returncode == 1, show(failure)


def keeps_a_session(launcher, name, state, cwd=None):
    """`session open` through ``launcher``, a command through it, `session close`: the keeper,
    run in isolated mode, loads mcp_tui from where ``launcher`` has it; returns the keeper's argv."""
    opened = run(launcher + ["session", "open", name] + stdio_words(), state, cwd=cwd)
    assert opened.returncode == 0, show(opened)
    record = json.loads((Path(str(state)) / "sessions.json").read_text())[name]
    try:
        with open("/proc/%d/cmdline" % record["pid"], "rb") as handle:
            argv = [part.decode() for part in handle.read().split(b"\0")]
    except OSError:  # no /proc (macOS)
        argv = None
    called = run(launcher + ["@" + name, "tool", "call", "echo", "message=kept"], state, cwd=cwd)
    assert (called.returncode, called.stdout) == (0, "Tool response:\nkept\n"), show(called)
    assert run(launcher + ["session", "close", name], state, cwd=cwd).returncode == 0
    return argv


def test_zipapp_keeps_a_session(pyz, state):
    argv = keeps_a_session([sys.executable, pyz], "zipped-" + pyz.parent.name, state)
    inside = os.path.join(str(pyz), "mcp_tui.py")  # the file in the archive (.pyc compiled)
    assert argv is None or (argv[1] == "-I" and any(word in (inside, inside + "c") for word in argv)), argv


# -- install: a launcher for a copied mcp_tui.py ------------------------------------------------------


@pytest.mark.skipif(os.name == "nt", reason="install writes a POSIX launcher")
def test_install_puts_a_launcher_that_runs_the_copied_file_from_its_bytecode(tmp_path, state):
    """The one-file user compiled 18,000 lines at every start; the launcher runs the cached
    bytecode of that very file (PYTHONDONTWRITEBYTECODE notwithstanding), imports nothing from
    its own folder or the working directory, and goes away with install --uninstall."""
    copied = tmp_path / "tools" / "mcp_tui.py"
    copied.parent.mkdir()
    copied.write_bytes(MCP_TUI.read_bytes())
    prefix = tmp_path / "bin"
    launcher = prefix / "mcp-tui"
    quiet = {"PYTHONDONTWRITEBYTECODE": "1"}
    installed = run([sys.executable, copied, "install", "--prefix", prefix], state, env=quiet)
    assert installed.returncode == 0, show(installed)
    assert installed.stdout == ("Wrote %s: it runs %s from its cached bytecode.\nUndo: %s install --uninstall "
                                "--prefix %s (or rm %s)\n" % (launcher, copied, launcher, prefix, launcher)), show(installed)
    assert "is not on your PATH" in installed.stderr
    assert os.access(str(launcher), os.X_OK)
    assert list((copied.parent / "__pycache__").glob("mcp_tui.*.pyc")), "compiled at install"
    (prefix / "json.py").write_text("raise SystemExit('the planted json.py was imported')\n")  # a shared folder
    version = run([launcher, "--version"], state, cwd=prefix, env=quiet)
    assert (version.returncode, version.stdout) == (0, "mcp-tui 0.1.0\n"), show(version)
    listed = run([launcher] + stdio_words() + ["tool", "list"], state, cwd=prefix, env=quiet)
    assert listed.returncode == 0 and listed.stdout.startswith("echo (Echo)\n"), show(listed)
    argv = keeps_a_session([str(launcher)], "launched", state)
    assert argv is None or (argv[1] == "-I" and any(str(copied.parent) in str(word) for word in argv)), argv
    again = run([launcher, "install", "--prefix", prefix, "--format", "json"], state)  # its own launcher: updated
    assert again.returncode == 0 and json.loads(again.stdout)["launcher"] == str(launcher), show(again)
    removed = run([launcher, "install", "--uninstall", "--prefix", prefix], state)
    assert (removed.returncode, removed.stdout) == (0, "Removed %s\n" % launcher), show(removed)
    assert not launcher.exists()


@pytest.mark.skipif(os.name == "nt", reason="install writes a POSIX launcher")
def test_install_leaves_an_mcp_tui_it_did_not_write_alone(tmp_path, state):
    prefix = tmp_path / "bin"
    prefix.mkdir()
    (prefix / "mcp-tui").write_text("#!/bin/sh\necho pip's own\n")
    for extra in ([], ["--uninstall"]):
        refused = run([sys.executable, MCP_TUI, "install", "--prefix", prefix] + extra, state)
        assert (refused.returncode, refused.stdout) == (1, ""), show(refused)
        assert refused.stderr.startswith("mcp-tui: %s is there already and is not an mcp-tui launcher; nothing was "
                                         % (prefix / "mcp-tui")), show(refused)
    assert (prefix / "mcp-tui").read_text() == "#!/bin/sh\necho pip's own\n"


AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
POSIX_ONLY = pytest.mark.skipif(os.name == "nt", reason="install writes a POSIX launcher")


def copied_and_installed(tmp_path, state, mode=0o755):
    """mcp_tui.py copied into tmp_path/src (chmod ``mode`` once it is there), its launcher
    installed in tmp_path/bin with the user's cache folder in tmp_path/cache: (script, launcher, env)."""
    folder = tmp_path / "src"
    folder.mkdir()
    script = folder / "mcp_tui.py"
    script.write_bytes(MCP_TUI.read_bytes())
    os.chmod(str(folder), mode)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    installed = run([sys.executable, script, "install", "--prefix", tmp_path / "bin"], state, env=env)
    assert installed.returncode == 0, show(installed)
    return script, tmp_path / "bin" / "mcp-tui", env


@POSIX_ONLY
@pytest.mark.skipif(not AS_ROOT, reason="another user's __pycache__ needs root to make (chown)")
@pytest.mark.parametrize("where", ["sticky drop folder", "their __pycache__", "their file in yours"])
def test_the_launcher_never_runs_bytecode_another_user_planted(tmp_path, state, where):
    """Issue 44: mcp_tui.py dropped in a 1777 folder, `install`ed; another user made
    __pycache__/mcp_tui.cpython-XY.pyc stamped with the source's mtime and size, and the
    launcher's next run executed it. From a folder others may write the launcher keeps its
    bytecode in the user's cache folder; elsewhere it uses a cache folder and file of the
    user's alone, and says in one line that it ignored any other."""
    script, launcher, env = copied_and_installed(tmp_path, state, 0o1777 if where == "sticky drop folder" else 0o755)
    shutil.rmtree(str(script.parent / "__pycache__"), ignore_errors=True)
    marker = tmp_path / "planted-bytecode-ran"
    pyc = plant_bytecode(script, marker)
    if where == "their file in yours":
        os.chown(os.path.dirname(pyc), 0, 0)
    version = run([launcher, "--version"], state, cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout) == (0, "mcp-tui 0.1.0\n"), show(version)
    assert not marker.exists()
    if where == "sticky drop folder":
        assert version.stderr == "", show(version)
        cached = tmp_path / "cache" / "mcp-tui" / "bytecode" / str(script.parent).lstrip(os.sep)
        assert [path.name for path in cached.iterdir()] == [os.path.basename(pyc)]
    else:
        assert version.stderr == "mcp-tui: ignored the cached bytecode of %s (%s is not yours); compiled the file " \
                                 "afresh\n" % (script, pyc if where == "their file in yours" else os.path.dirname(pyc))


@POSIX_ONLY
def test_a_launcher_reached_through_a_symbolic_link_imports_nothing_from_its_real_folder(tmp_path, state):
    """Its sys.path[0] is its real folder, which the guard compared with the link's: a json.py
    planted beside the real launcher ran."""
    _, launcher, env = copied_and_installed(tmp_path, state)
    marker = tmp_path / "planted-json-ran"
    (launcher.parent / "json.py").write_text("open(%r, 'w').close()\n" % str(marker))
    linked = tmp_path / "links" / "mcp-tui"
    linked.parent.mkdir()
    os.symlink(str(launcher), str(linked))
    version = run([linked, "--version"], state, cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout, version.stderr) == (0, "mcp-tui 0.1.0\n", ""), show(version)
    assert not marker.exists()


@POSIX_ONLY
def test_a_launcher_whose_file_is_gone_says_so_in_one_line_and_still_uninstalls(tmp_path, state):
    """mcp_tui.py moved away: the launcher printed a 10-line FileNotFoundError traceback and
    could not remove itself."""
    script, launcher, env = copied_and_installed(tmp_path, state)
    script.rename(tmp_path / "moved.py")
    version = run([launcher, "--version"], state, cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout) == (1, ""), show(version)
    assert version.stderr == ("mcp-tui: %s, which this launcher runs, is gone (moved or deleted) (run python3 -I "
                              "mcp_tui.py install where your copy is now, or remove the launcher: %s install "
                              "--uninstall)\n" % (script, launcher)), show(version)
    removed = run([launcher, "install", "--uninstall"], state, cwd=tmp_path, env=env)
    assert (removed.returncode, removed.stdout, removed.stderr) == (0, "Removed %s\n" % launcher, ""), show(removed)
    assert not launcher.exists()


@POSIX_ONLY
@pytest.mark.skipif(not AS_ROOT, reason="another user's file needs root to make (chown)")
@pytest.mark.parametrize("who", ["another user", "you, another file"])
def test_the_launcher_never_runs_a_file_made_at_its_path_in_a_sticky_drop_folder(tmp_path, state, who):
    """Probe D1: mcp_tui.py installed from a 1777 folder and moved away; another user created
    a file of that name there, and the launcher's next run executed it as the user. In such a
    folder the launcher runs only the very file install found (its device and inode)."""
    script, launcher, env = copied_and_installed(tmp_path, state, 0o1777)
    script.rename(tmp_path / "moved.py")
    marker = tmp_path / "planted-source-ran"
    script.write_text("open(%r, 'w').close()\ndef main(argv):\n    print('EVIL')\n" % str(marker))
    if who == "another user":
        os.chown(str(script), 65534, 65534)
    version = run([launcher, "--version"], state, cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout) == (1, ""), show(version)
    assert not marker.exists()
    assert version.stderr == ("mcp-tui: %s, which this launcher runs, %s: not run (run python3 -I mcp_tui.py install "
                              "where your copy is now, or remove the launcher: %s install --uninstall)\n" % (
                                  script, "is not yours" if who == "another user" else
                                  "is not the file install found there (replaced since)", launcher)), show(version)
    removed = run([launcher, "install", "--uninstall"], state, cwd=tmp_path, env=env)
    assert (removed.returncode, removed.stdout) == (0, "Removed %s\n" % launcher), show(removed)
    assert not marker.exists()


@POSIX_ONLY
@pytest.mark.parametrize("change", ["writable by others", "not yours"])
def test_the_launcher_and_install_refuse_a_file_others_may_change(tmp_path, state, change):
    """Probe D1: a source another user owns or may write is never run, nor installed."""
    if change == "not yours" and not AS_ROOT:
        pytest.skip("another user's file needs root to make (chown)")
    script, launcher, env = copied_and_installed(tmp_path, state)
    os.chmod(str(script), 0o666) if change == "writable by others" else os.chown(str(script), 65534, 65534)
    version = run([launcher, "--version"], state, cwd=tmp_path, env=env)
    assert (version.returncode, version.stdout) == (1, ""), show(version)
    assert version.stderr.startswith("mcp-tui: %s, which this launcher runs, is %s: not run (" % (script, change))
    installed = run([sys.executable, "-I", script, "install", "--prefix", tmp_path / "bin2"], state, env=env)
    assert (installed.returncode, installed.stdout) == (2, ""), show(installed)
    assert installed.stderr == ("mcp-tui: %s is %s: the launcher would run whatever another user put in it; nothing "
                                "was written (copy mcp_tui.py into a file of your own (cp, then chmod 644))\n"
                                % (script, change)), show(installed)
    assert not (tmp_path / "bin2").exists()


@POSIX_ONLY
@pytest.mark.skipif(not AS_ROOT, reason="another user's file needs root to make (chown)")
def test_a_copy_run_as_a_script_imports_nothing_another_user_put_beside_it(tmp_path, state):
    """Probe D3: `python3 DROP/mcp_tui.py install`, the documented step that makes the launcher,
    imported a json.py another user planted beside the copy (a script's folder is first on
    sys.path). The file takes its own folder off sys.path before its first import."""
    drop = tmp_path / "drop"
    drop.mkdir()
    os.chmod(str(drop), 0o1777)
    script = drop / "mcp_tui.py"
    script.write_bytes(MCP_TUI.read_bytes())
    for name in ("json", "collections", "re", "threading"):
        planted = drop / (name + ".py")
        planted.write_text("open(%r, 'w').close()\n" % str(tmp_path / ("planted-%s-ran" % name)))
        os.chown(str(planted), 65534, 65534)
    version = run([sys.executable, script, "--version"], state, cwd=tmp_path)
    assert (version.returncode, version.stdout, version.stderr) == (0, "mcp-tui 0.1.0\n", ""), show(version)
    installed = run([sys.executable, script, "install", "--prefix", tmp_path / "bin", "--format", "json"], state,
                    cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert installed.returncode == 0 and json.loads(installed.stdout)["module"] == str(script), show(installed)
    (drop / "collections.py").unlink()  # runpy imports it before any module runs: Python's own (README)
    as_module = run([sys.executable, "-m", "mcp_tui", "--version"], state, cwd=drop)
    assert (as_module.returncode, as_module.stdout) == (0, "mcp-tui 0.1.0\n"), show(as_module)
    assert sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("planted-")) == []


@POSIX_ONLY
def test_a_line_break_in_the_copy_s_path_is_no_code_in_the_launcher(tmp_path, state):
    """Probe D9: the launcher's comment line named the path raw, so a folder named with a line
    break and Python after it (another user names folders in a shared drop) became code."""
    marker = tmp_path / "path-code-ran"
    folder = tmp_path / ("x\nopen(%r, 'w').close()\n#" % marker.name)  # run with cwd=tmp_path
    folder.mkdir()
    script = folder / "mcp_tui.py"
    script.write_bytes(MCP_TUI.read_bytes())
    installed = run([sys.executable, "-I", script, "install", "--prefix", tmp_path / "bin"], state, cwd=tmp_path,
                    env={"XDG_CACHE_HOME": str(tmp_path / "cache")})  # (install runs the launcher once: here)
    assert installed.returncode == 0 and len(installed.stdout.splitlines()) == 2, show(installed)
    assert "x\\nopen(" in installed.stdout.splitlines()[0], show(installed)
    launcher = tmp_path / "bin" / "mcp-tui"
    version = run([launcher, "--version"], state, cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (version.returncode, version.stdout) == (0, "mcp-tui 0.1.0\n"), show(version)
    assert not marker.exists()


@POSIX_ONLY
def test_a_launcher_whose_file_is_gone_answers_format_json_in_json(tmp_path, state):
    """Probe D11: its one line and its "Removed ..." were text whatever --format said."""
    script, launcher, env = copied_and_installed(tmp_path, state)
    script.unlink()
    listed = run([launcher, "tool", "list", "--format", "json"], state, cwd=tmp_path, env=env)
    assert (listed.returncode, listed.stdout) == (1, ""), show(listed)
    assert json.loads(listed.stderr) == {"error": {
        "kind": "error", "exitCode": 1, "message": "%s, which this launcher runs, is gone (moved or deleted)" % script,
        "hint": "run python3 -I mcp_tui.py install where your copy is now, or remove the launcher: %s install "
                "--uninstall" % launcher}}, show(listed)
    removed = run([launcher, "install", "--uninstall", "--format=json"], state, cwd=tmp_path, env=env)
    assert removed.returncode == 0 and json.loads(removed.stdout) == {"removed": str(launcher)}, show(removed)
    assert not launcher.exists()


@POSIX_ONLY
def test_install_refuses_a_prefix_others_may_write(tmp_path, state):
    """In a 777 folder another user replaced the launcher, and the user's next mcp-tui ran
    their program; the state directory is refused such a folder already."""
    prefix = tmp_path / "shared-bin"
    prefix.mkdir()
    os.chmod(str(prefix), 0o777)
    refused = run([sys.executable, MCP_TUI, "install", "--prefix", prefix], state)
    assert (refused.returncode, refused.stdout) == (2, ""), show(refused)
    assert refused.stderr == ("mcp-tui: %s is writable by others: another user could replace the launcher there with "
                              "a program of theirs; nothing was written (give --prefix a folder only you may write, "
                              "such as ~/.local/bin)\n" % prefix), show(refused)
    assert os.listdir(str(prefix)) == []


@POSIX_ONLY
def test_install_refuses_a_prefix_inside_a_folder_others_may_write(tmp_path, state):
    """Probe D2: only the last folder was checked; another user renamed the prefix in its 777
    parent, made their own in its place, and the user's next mcp-tui ran their program. A
    sticky parent (/tmp) is fine: no one renames another's entry in it."""
    shared = tmp_path / "p777"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    prefix = shared / "sub" / "bin"
    refused = run([sys.executable, "-I", MCP_TUI, "install", "--prefix", prefix], state)
    assert (refused.returncode, refused.stdout) == (2, ""), show(refused)
    assert refused.stderr == ("mcp-tui: %s is inside %s, which is writable by others: another user could replace the "
                              "launcher there with a program of theirs; nothing was written (give --prefix a folder "
                              "only you may write, such as ~/.local/bin)\n" % (prefix, shared)), show(refused)
    assert not (prefix / "mcp-tui").exists()
    os.chmod(str(shared), 0o1777)
    accepted = run([sys.executable, "-I", MCP_TUI, "install", "--prefix", prefix, "--format", "json"], state)
    assert accepted.returncode == 0 and (prefix / "mcp-tui").exists(), show(accepted)


@POSIX_ONLY
def test_install_refuses_a_bytecode_cache_inside_a_folder_others_may_write(tmp_path, state):
    """Probe D8: the cache folder's parent, another's or open to all, let another user swap
    the folder, so that every run compiled afresh."""
    drop = tmp_path / "drop"
    drop.mkdir()
    os.chmod(str(drop), 0o1777)
    script = drop / "mcp_tui.py"
    script.write_bytes(MCP_TUI.read_bytes())
    xdg = tmp_path / "xdg"
    (xdg / "mcp-tui").mkdir(parents=True)
    os.chmod(str(xdg / "mcp-tui"), 0o777)
    refused = run([sys.executable, "-I", script, "install", "--prefix", tmp_path / "bin"], state,
                  env={"XDG_CACHE_HOME": str(xdg)})
    assert (refused.returncode, refused.stdout) == (2, ""), show(refused)
    assert refused.stderr.startswith("mcp-tui: mcp_tui.py is in %s, which others may write, and your bytecode cache "
                                     "%s is inside %s, which is writable by others: " % (
                                         drop, xdg / "mcp-tui" / "bytecode", xdg / "mcp-tui")), show(refused)
    assert not (tmp_path / "bin" / "mcp-tui").exists()


@POSIX_ONLY
def test_install_refuses_a_shared_source_folder_without_a_cache_folder_of_your_own(tmp_path, state):
    drop = tmp_path / "drop"
    drop.mkdir()
    os.chmod(str(drop), 0o1777)
    script = drop / "mcp_tui.py"
    script.write_bytes(MCP_TUI.read_bytes())
    cache = tmp_path / "cache" / "mcp-tui" / "bytecode"
    cache.mkdir(parents=True)
    os.chmod(str(cache), 0o777)
    refused = run([sys.executable, script, "install", "--prefix", tmp_path / "bin"], state,
                  env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (refused.returncode, refused.stdout) == (2, ""), show(refused)
    assert refused.stderr.startswith("mcp-tui: mcp_tui.py is in %s, which others may write, and your bytecode cache "
                                     "%s is writable by others: " % (drop, cache)), show(refused)
    assert len(refused.stderr.splitlines()) == 1 and not (tmp_path / "bin" / "mcp-tui").exists()


@POSIX_ONLY
def test_from_a_read_only_folder_only_mcp_tui_s_own_bytecode_goes_to_the_cache_folder(tmp_path, state):
    """The launcher set sys.pycache_prefix for the whole process: 2.5 MB of the standard
    library's bytecode went to ~/.cache/mcp-tui/bytecode as well."""
    script, launcher, env = copied_and_installed(tmp_path, state, 0o555)
    listed = run([launcher] + stdio_words() + ["tool", "list"], state, cwd=tmp_path, env=env)
    assert listed.returncode == 0 and listed.stdout.startswith("echo (Echo)\n"), show(listed)
    cache = tmp_path / "cache"
    assert sorted(str(path.relative_to(cache)) for path in cache.rglob("*") if path.is_file()) == [
        os.path.join("mcp-tui", "bytecode", str(script.parent).lstrip(os.sep), "mcp_tui.%s.pyc"
                     % sys.implementation.cache_tag)]
    assert not (script.parent / "__pycache__").exists()


# -- the console script -------------------------------------------------------------------------------


def can_build_offline(python):
    """setuptools that builds wheels by itself (>= 70.1), or setuptools with `wheel`."""
    code = ("import setuptools\ntry:\n import setuptools.command.bdist_wheel\nexcept ImportError:\n import wheel\n")
    return subprocess.run([str(python), "-c", code], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A fresh virtualenv after `pip install .` of a copy of the packaged files (so that the
    build leaves no build/ or *.egg-info in the repo): offline with the interpreter's own
    setuptools when it can build a wheel, else with build isolation (PyPI, as in CI). The venv gets
    no pip of its own when this interpreter's pip can install into it (--python), as
    tests/run_tests.py makes its venvs: ensurepip costs more CPU than the install itself."""
    work = tmp_path_factory.mktemp("venv")
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "mcp_tui.py", "README.md", "LICENSE"):
        (source / name).write_bytes((ROOT / name).read_bytes())
    path = work / "v"
    pip = new_venv(path, "--system-site-packages") + ["install", "--disable-pip-version-check", "--quiet"]
    if can_build_offline(path / BIN / ("python" + EXE)):
        pip += ["--no-build-isolation", "--no-index"]
    proc = subprocess.run(pip + [str(source)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, show(proc)
    return path


def test_console_script_reports_its_version(venv, state):
    proc = run([venv / BIN / ("mcp-tui" + EXE), "--version"], state, cwd=venv)
    assert proc.returncode == 0, show(proc)
    assert proc.stdout.strip() == "mcp-tui 0.1.0"


def test_console_script_runs_the_installed_copy(venv, state):
    proc = run([venv / BIN / ("python" + EXE), "-c", "import mcp_tui; print(mcp_tui.__file__)"], state, cwd=venv)
    assert proc.returncode == 0, show(proc)
    installed = Path(proc.stdout.strip()).resolve()
    assert installed != MCP_TUI.resolve() and Path(venv).resolve() in installed.parents


def test_console_script_lists_tools_and_calls_echo(venv, state, http_server):
    script = venv / BIN / ("mcp-tui" + EXE)
    listed = run([script] + stdio_words() + ["tool", "list"], state, cwd=venv)
    assert listed.returncode == 0, show(listed)
    assert "render_report (Render report)" in listed.stdout
    echoed = run([script, "--url", http_server.url, "tool", "call", "echo", "message=hi"], state, cwd=venv)
    assert echoed.returncode == 0, show(echoed)
    assert echoed.stdout == "Tool response:\nhi\n"
    usage = run([script, "--no-such-option"], state, cwd=venv)
    assert usage.returncode == 2, show(usage)


def test_console_script_keeps_a_session(venv, state):
    argv = keeps_a_session([venv / BIN / ("mcp-tui" + EXE)], "installed", state, cwd=venv)
    assert argv is None or (argv[1] == "-I" and any(str(Path(venv).resolve()) in part for part in argv)), argv


def test_installed_metadata_says_python_3_8_and_windows_curses_on_windows_only(venv, state):
    code = ("import importlib.metadata as m; d = m.distribution('mcp-tui'); "
            "print(d.metadata['Requires-Python']); print('\\n'.join(d.requires or []))")
    proc = run([venv / BIN / ("python" + EXE), "-c", code], state, cwd=venv)
    assert proc.returncode == 0, show(proc)
    lines = proc.stdout.splitlines()
    assert lines[0] == ">=3.8"
    curses = [line for line in lines[1:] if line.startswith("windows-curses")]
    assert curses and all(re.search(r"""sys_platform\s*==\s*["']win32["']""", line) for line in curses), lines


# -- python -m mcp_tui -----------------------------------------------------------------------------------


def test_python_dash_m_from_the_repo_root(state, http_server):
    proc = run([sys.executable, "-m", "mcp_tui", "--url", http_server.url, "tool", "list"], state, cwd=ROOT)
    assert proc.returncode == 0, show(proc)
    assert "echo (Echo)" in proc.stdout
    usage = run([sys.executable, "-m", "mcp_tui", "--no-such-option"], state, cwd=ROOT)
    assert usage.returncode == 2, show(usage)


# -- Windows paths -------------------------------------------------------------------------------------------

FAKE_WINDOWS = r"""
# The standard library's own platform choices are made at import: load what mcp-tui uses as
# the real (POSIX) modules first, so that only mcp-tui's code sees the fake platform.
import argparse, base64, calendar, codecs, collections, hashlib, http.client, json, os, re, shlex, shutil
import socket, ssl, subprocess, sys, textwrap, threading, urllib.parse, webbrowser
root, testserver, url, local = sys.argv[1:5]

# POSIX-only modules a Windows interpreter lacks: importing one now fails, as it would there.
blocked = [name for name in ("termios", "tty", "pty", "fcntl", "pwd", "grp", "resource", "curses", "_curses")
           if name not in sys.modules]
for name in blocked:
    sys.modules[name] = None
import select, signal


def forbid(module, name):
    if hasattr(module, name):
        def bomb(*args, **kwargs):
            raise AssertionError("POSIX-only %s.%s called on the win32 path" % (module.__name__, name))
        setattr(module, name, bomb)


for name in ("fork", "forkpty", "killpg", "setsid", "setpgrp", "getpgid", "getuid", "geteuid", "mkfifo",
             "openpty", "sync", "nice"):
    forbid(os, name)
for name in ("poll", "epoll"):
    forbid(select, name)
real_select = select.select


def sockets_only_select(*lists):  # Windows' select takes sockets and nothing else (no pipes, no files)

    assert all(isinstance(item, socket.socket) for items in lists[:3] for item in items), \
        "select.select on a non-socket called on the win32 path"
    return real_select(*lists)


select.select = sockets_only_select
windows_signals = {signal.SIGINT, signal.SIGTERM, signal.SIGABRT, signal.SIGFPE, signal.SIGILL, signal.SIGSEGV}
real_signal = signal.signal


def checked_signal(signum, handler):
    assert signum in windows_signals, "signal %r does not exist on Windows" % signum
    return real_signal(signum, handler)


signal.signal = checked_signal
sys.platform = "win32"
os.name = "nt"
os.environ.pop("MCP_TUI_STATE_DIR", None)
os.environ["LOCALAPPDATA"] = local
sys.path.insert(0, root)
import mcp_tui

report = {"state": mcp_tui.state_directory()}
opts = mcp_tui.build_parser().parse_intermixed_args(
    ['"C:\\Program Files\\Python\\python.exe" C:\\srv\\server.py --flag', "tool", "list", "--timeout", "9"])
spec, words = mcp_tui.spec_from_options(opts, opts.words, mcp_tui.SecretRegistry())
report["argv"], report["words"], report["timeout"] = spec.argv, words, opts.timeout
server = ["--cmd", sys.executable, "--args", testserver, "--args=--page-ms", "--args=0"]
report["stdio"] = mcp_tui.main(server + ["tool", "list"])
report["stdio_task"] = mcp_tui.main(server + ["tool", "call", "render_report", "quarter=Q4", "--task", "--wait"])
report["http_task"] = mcp_tui.main(["--url", url, "tool", "call", "render_report", "quarter=Q4", "--task", "--wait"])
report["tui"] = mcp_tui.main([])
sys.stdout.write("\nREPORT " + json.dumps(report) + "\n")
"""


def test_windows_paths_make_no_posix_only_call(tmp_path, http_server, state):
    """sys.platform and os.name say Windows; POSIX-only modules cannot be imported and
    POSIX-only calls raise. The state directory, argument parsing, a stdio and an HTTP
    task (the ledger write, the wait, the stdio shutdown) work, and the TUI without curses
    says what to install."""
    local = tmp_path / "LocalAppData"
    proc = run([sys.executable, "-c", FAKE_WINDOWS, ROOT, TESTSERVER, http_server.url, local], state)
    assert "REPORT " in proc.stdout, show(proc)
    report = json.loads(proc.stdout.split("REPORT ", 1)[1])
    assert report["state"] == os.path.join(str(local), "mcp-tui")
    assert report["argv"] == ["C:\\Program Files\\Python\\python.exe", "C:\\srv\\server.py", "--flag"]
    assert report["words"] == ["tool", "list"] and report["timeout"] == 9.0
    assert (report["stdio"], report["stdio_task"], report["http_task"]) == (0, 0, 0), show(proc)
    assert report["tui"] != 0 and "pip install windows-curses" in proc.stderr, show(proc)
    assert proc.stdout.count("Q4 revenue") == 2, show(proc)
    assert (local / "mcp-tui" / "tasks.json").exists(), "the ledger went to %LOCALAPPDATA%\\mcp-tui"
    assert "Traceback" not in proc.stderr, show(proc)


POSIX_ONLY = {
    "os": {"fork", "forkpty", "killpg", "setsid", "setpgrp", "getpgid", "getuid", "geteuid", "getgid", "mkfifo",
           "openpty", "WNOHANG", "sync", "nice", "getpgrp", "setpgid", "pipe2", "set_blocking", "get_blocking"},
    "select": {"select", "poll", "epoll", "kqueue"},
    "signal": {"SIGKILL", "SIGHUP", "SIGQUIT", "SIGCHLD", "SIGPIPE", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGWINCH",
               "SIGSTOP", "SIGCONT", "SIGTSTP", "alarm", "pause", "setitimer", "siginterrupt", "pthread_kill"},
}
POSIX_MODULES = {"termios", "tty", "pty", "fcntl", "pwd", "grp", "resource", "posix"}
POSIX_KEYWORDS = {"preexec_fn", "start_new_session", "pass_fds", "process_group"}


def guarded(node, parents):
    """Inside `if` on sys.platform / os.name / hasattr, or a try that catches ImportError,
    AttributeError or OSError (the fallback)."""
    for parent in parents.get(node, ()):
        if isinstance(parent, ast.If):
            test = ast.dump(parent.test)
            if "platform" in test or "'name'" in test or "hasattr" in test:
                return True
        if isinstance(parent, ast.Try):
            caught = " ".join(ast.dump(h.type) for h in parent.handlers if h.type is not None)
            if re.search(r"ImportError|ModuleNotFoundError|AttributeError|OSError", caught):
                return True
    return False


def test_no_unguarded_posix_only_call_in_the_source():
    tree = ast.parse(MCP_TUI.read_text(encoding="utf-8"))
    parents = {}

    def walk(node, chain):
        parents[node] = chain
        for child in ast.iter_child_nodes(node):
            walk(child, chain + [node])

    walk(tree, [])
    found = []
    for node in ast.walk(tree):
        what = None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr in POSIX_ONLY.get(node.value.id, ()):
                what = "%s.%s" % (node.value.id, node.attr)
        elif isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in POSIX_MODULES]
            what = "import " + ", ".join(names) if names else None
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.split(".")[0] in POSIX_MODULES:
                what = "from %s import" % node.module
            elif any(a.name in POSIX_ONLY.get(node.module, ()) for a in node.names):
                what = "from %s import %s" % (node.module, ", ".join(a.name for a in node.names))
        elif isinstance(node, ast.keyword) and node.arg in POSIX_KEYWORDS:
            what = node.arg + "="
        if what and not guarded(node, parents):
            found.append("line %d: %s" % (getattr(node, "lineno", 0) or parents[node][-1].lineno, what))
    assert not found, "POSIX-only calls without a platform guard or fallback:\n" + "\n".join(found)


# -- pyproject.toml -------------------------------------------------------------------------------------------


def read_pyproject():
    text = PYPROJECT.read_text(encoding="utf-8")
    for name in ("tomllib", "tomli"):
        try:
            return __import__(name).loads(text)
        except ImportError:
            continue
    project = text.split("[project]", 1)[1].split("\n[", 1)[0]  # the regex fallback, 3.8 to 3.10
    requires = re.search(r'^requires-python\s*=\s*"([^"]*)"', project, re.M)
    deps = re.search(r"^dependencies\s*=\s*\[(.*?)\]", project, re.M | re.S)
    scripts = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return {"project": {
        "requires-python": requires.group(1) if requires else None,
        "dependencies": re.findall(r'"([^"]*)"', deps.group(1)) if deps else [],
        "scripts": dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"', scripts, re.M)),
    }}


def test_pyproject_declares_python_3_8_windows_curses_on_win32_and_the_script():
    project = read_pyproject()["project"]
    assert project["requires-python"].replace(" ", "") == ">=3.8"
    curses = [d for d in project["dependencies"] if d.split(";")[0].strip().startswith("windows-curses")]
    assert curses, project["dependencies"]
    for dep in curses:
        assert re.search(r"""sys_platform\s*==\s*['"]win32['"]""", dep.split(";", 1)[1]), dep
    others = [d for d in project["dependencies"] if d not in curses]
    assert all(";" in d for d in others), "the CLI must need nothing but the standard library: %s" % others
    assert project["scripts"] == {"mcp-tui": "mcp_tui:main"}
