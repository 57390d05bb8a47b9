#!/usr/bin/env python3
"""Install what the tests need on a fresh machine, then run them.

    python3 tests/run_tests.py [pytest arguments]
    python3 tests/run_tests.py --windows[=optional] [pytest arguments]

It makes `.venv-test` (pytest, hypothesis, jsonschema, ...) and one virtualenv per
interop peer under `.venv-peers/<name>` (each `tests/interop/peers/<name>.txt` is that
peer's requirements; a `<name>.npm` file lists npm packages installed with npm under the
same folder, `SPEC ; platform=linux-x64` for one platform only), reusing them while their requirements are unchanged; the peers are made side by side, and with
this interpreter's pip where it can install elsewhere (no ensurepip in each). The tests start
as soon as `.venv-test` is ready, all in one pytest run (the TUI tests too): the peers are
built meanwhile (from the start, at a lower CPU priority: the tests are the run's critical
path), and the interop tests, which run last, wait for them (MCP_TUI_PEERS_PENDING,
tests/interop/conftest.py). The peers' interpreters (or npm prefixes) reach the tests as
MCP_TUI_PEER_<NAME> environment variables.
MCP_TUI_TEST_WORKERS sets the number of pytest-xdist workers (6 unless told).
`--windows` runs the Windows leg instead (see windows_leg). mcp_tui.py itself never needs any of this.
"""
import hashlib
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = "Scripts" if os.name == "nt" else "bin"


def venv_python(venv):
    return venv / BIN / ("python.exe" if os.name == "nt" else "python")


def own_pip_can_install_elsewhere():
    """This interpreter's pip, if it can install into another environment (--python, pip
    22.3): then a new virtualenv needs no pip of its own, which ensurepip makes slowly."""
    try:
        from pip import __version__
    except ImportError:
        return False
    return tuple(int(part) for part in __version__.split(".")[:2] if part.isdigit()) >= (22, 3)


def in_background(command, background):
    """`command`, at a lower CPU priority (nice 10) when it runs in the background: the peers are
    built while the tests run, and the tests, not the peers, are what the run waits for (the
    peers are wanted only by the interop tests, at its end). Where there is no `nice`, as is."""
    niced = shutil.which("nice") if background else None
    return [niced, "-n", "10"] + command if niced else command


def ensure_venv(venv, requirements, background=False):
    """Create `venv` with `requirements` installed, unless a stamp says it is current (with
    `background`, its installs at a lower priority: in_background)."""
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    stamp = venv / ".requirements.sha256"
    if stamp.exists() and stamp.read_text() == digest and venv_python(venv).exists():
        return venv_python(venv)
    print("run_tests: preparing %s from %s" % (venv.name, requirements.relative_to(ROOT)), flush=True)
    pip = new_venv(venv, background=background) + ["install", "--quiet", "--disable-pip-version-check",
                                                   "--prefer-binary"]
    if not own_pip_can_install_elsewhere():  # the venv's own pip, as ensurepip left it
        subprocess.check_call(pip + ["--upgrade", "pip"])
    subprocess.check_call(pip + ["-r", str(requirements)])
    stamp.write_text(digest)
    return venv_python(venv)


def new_venv(venv, *venv_options, background=False):
    """Create `venv` afresh; the command that runs a pip for it: this interpreter's pip with
    --python when it can install elsewhere (the venv then gets no pip of its own), else the
    venv's own pip (with `background`, both at a lower priority: in_background)."""
    if own_pip_can_install_elsewhere():
        subprocess.check_call(in_background([sys.executable, "-m", "venv", "--clear", "--without-pip"]
                                            + list(venv_options) + [str(venv)], background))
        return in_background([sys.executable, "-m", "pip", "--python", str(venv_python(venv))], background)
    subprocess.check_call(in_background([sys.executable, "-m", "venv", "--clear"] + list(venv_options) + [str(venv)],
                                        background))
    return in_background([str(venv_python(venv)), "-m", "pip"], background)


def peer_variable(path):
    return "MCP_TUI_PEER_" + path.stem.upper().replace("-", "_")


def npm_spec(line):
    """One line of a .npm file: a package spec, or None (a comment, or a package for another
    platform: `SPEC ; platform=linux-x64` installs only on that platform)."""
    spec, _, condition = line.split("#", 1)[0].partition(";")
    if condition.strip().startswith("platform="):
        machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(platform.machine().lower(),
                                                                          platform.machine().lower())
        if condition.strip()[len("platform="):] != "%s-%s" % (sys.platform, machine):
            return None
    return spec.strip() or None


def ensure_npm(prefix, packages, background=False):
    """Install an npm peer (one package spec a line) under `prefix`; None without npm (with
    `background`, at a lower priority: in_background)."""
    npm = shutil.which("npm")
    if npm is None:
        print("run_tests: npm not found; the %s peer's tests will be skipped" % packages.stem, flush=True)
        return None
    digest = hashlib.sha256(packages.read_bytes()).hexdigest()
    stamp = prefix / ".packages.sha256"
    if stamp.exists() and stamp.read_text() == digest:
        return prefix
    print("run_tests: preparing %s from %s" % (prefix.name, packages.relative_to(ROOT)), flush=True)
    specs = [spec for spec in map(npm_spec, packages.read_text().splitlines()) if spec]
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.check_call(in_background([npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                                         str(prefix)] + specs, background))
    stamp.write_text(digest)
    return prefix


PEERS_PENDING = "MCP_TUI_PEERS_PENDING"  # a file that names the peers once they are built (tests/interop/conftest.py)


def peer_jobs():
    """What makes each interop peer: environment variable -> (ensure function, folder, list)."""
    peers = ROOT / "tests" / "interop" / "peers"
    jobs = {}
    for requirements in sorted(peers.glob("*.txt")):
        jobs[peer_variable(requirements)] = (ensure_venv, ROOT / ".venv-peers" / requirements.stem, requirements)
    for packages in sorted(peers.glob("*.npm")):
        jobs[peer_variable(packages)] = (ensure_npm, ROOT / ".venv-peers" / packages.stem, packages)
    return jobs


def prepare_peers(jobs, background=False):
    """Every peer's virtualenv or npm prefix, made side by side (mostly downloads and disk):
    the environment variables that name them. `background`: see in_background."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(len(jobs), 1)) as pool:
        futures = {name: pool.submit(*job, background=background) for name, job in jobs.items()}
        made = {name: future.result() for name, future in futures.items()}
    return {name: str(path) for name, path in made.items() if path}


class PeersInBackground(object):
    """The peers, built on a thread while the tests run: the interop tests run last and wait
    for `announce` (a JSON file of the peers' variables, or of the build's error) before their
    first test (tests/interop/conftest.py), so their downloads and installs overlap the other tests."""

    def __init__(self, jobs, announce):
        import threading

        self.announce, self.error = announce, None
        self.thread = threading.Thread(target=self._build, args=(jobs,), name="peers", daemon=True)
        self.thread.start()

    def _build(self, jobs):
        import json

        try:
            found = prepare_peers(jobs, background=True)
        except Exception as exc:  # said in the file and by finish(), not lost on a thread
            self.error = "building the interop peers failed: %s" % (exc,)
            found = {"error": self.error}
        partial = self.announce.with_suffix(".part")
        partial.write_text(json.dumps(found))
        os.replace(str(partial), str(self.announce))

    def finish(self):
        """Wait for the build (its stamps are written at its end); its error, or None."""
        self.thread.join()
        return self.error


def windows_leg(optional, pytest_args):
    """The Windows leg: mcp_tui.py on the Windows CPython 3.11 under Wine (tests/windows/README.md).
    tests/windows/install.sh installs the harness (Wine and tmux through apt-get where they are
    missing), then tests/windows/test_windows.py runs, alone. Where the harness cannot be had (no
    64-bit Linux, no apt-get, not root, the install fails) one line says why, and the exit code is 1,
    or 0 with `--windows=optional` (what .ci/run uses: CI does not fail where Wine cannot be)."""
    def cannot(reason):
        print("run_tests: the Windows leg cannot run here: %s%s" % (reason, " (skipped)" if optional else ""),
              flush=True)
        return 0 if optional else 1

    windows = ROOT / "tests" / "windows"
    if sys.platform != "linux" or platform.machine().lower() not in ("x86_64", "amd64"):
        return cannot("Wine's 64-bit Windows programs need x86-64 Linux, this is %s %s" % (sys.platform,
                                                                                          platform.machine()))
    if not (shutil.which("wine") and os.path.exists("/usr/lib/wine/wine64")):
        if not shutil.which("apt-get"):
            return cannot("Wine is not installed, and there is no apt-get to install it (packages wine, wine64)")
        if os.geteuid() != 0:
            return cannot("Wine is not installed, and apt-get needs root (install the packages wine and wine64)")
    print("run_tests: installing the Windows harness (tests/windows/install.sh)", flush=True)
    installer = ["bash", str(windows / "install.sh")]
    if subprocess.call(installer, cwd=str(ROOT), env=dict(os.environ, PYTHON=sys.executable)):
        return cannot("tests/windows/install.sh failed (its output is above)")
    test_python = ensure_venv(ROOT / ".venv-test", ROOT / "tests" / "requirements.txt")
    # One at a time: each test starts Windows processes, and the TUI smoke reads a screen.
    cmd = [str(test_python), "-m", "pytest", "-q", "-rs", "-p", "no:xdist", str(windows / "test_windows.py")]
    print("run_tests: " + " ".join(cmd + pytest_args), flush=True)
    try:
        return subprocess.call(cmd + pytest_args, cwd=str(ROOT))
    finally:  # run.sh keeps the prefix's wineserver for 5 minutes after its last use: not after the leg
        subprocess.call(["bash", str(windows / "run.sh"), "--stop"], cwd=str(ROOT))


def main():
    import tempfile

    if sys.argv[1:2] in (["--windows"], ["--windows=optional"]):
        return windows_leg(sys.argv[1] == "--windows=optional", sys.argv[2:])
    env = dict(os.environ)
    # pytest keeps the test modules it rewrites for its asserts in __pycache__ only where
    # bytecode may be written: otherwise every worker rewrites and compiles them all again
    # (about 3 s of CPU each), and every test helper a test starts compiles its imports.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # The peers' build starts first, at a lower priority: it overlaps .venv-test's too.
    scratch = Path(tempfile.mkdtemp(prefix="mcp-tui-run-tests-"))
    peers = PeersInBackground(peer_jobs(), scratch / "peers.json")
    env[PEERS_PENDING] = str(scratch / "peers.json")
    test_python = ensure_venv(ROOT / ".venv-test", ROOT / "tests" / "requirements.txt")
    pytest = [str(test_python), "-m", "pytest", "-q"]
    # Most tests wait on servers and timeouts more than they compute: three workers a CPU of the
    # two CI has. With 4 the CPUs sat idle a quarter of the time (1.5 of 2 busy on average; 299 s
    # warm, 304 s from a clean clone); with 6 they are busy to the end (260 s and 264 s warm, one
    # run apart). MCP_TUI_TEST_WORKERS sets it on a machine shared with others.
    workers = os.environ.get("MCP_TUI_TEST_WORKERS", "6")
    # The arguments given, or the whole suite in one run (the TUI tests among the others:
    # they wait on the screen's text, never on time).
    cmd = pytest + ["-n", workers] + (sys.argv[1:] or ["tests"])
    print("run_tests: " + " ".join(cmd), flush=True)
    status = subprocess.call(cmd, cwd=str(ROOT), env=env)
    error = peers.finish()
    shutil.rmtree(str(scratch), ignore_errors=True)
    if error:
        print("run_tests: " + error, flush=True)
        status = status or 1
    return status


if __name__ == "__main__":
    sys.exit(main())
