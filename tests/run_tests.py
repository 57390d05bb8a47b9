#!/usr/bin/env python3
"""Install what the tests need on a fresh machine, then run them.

    python3 tests/run_tests.py [pytest arguments]

It makes `.venv-test` (pytest, hypothesis, jsonschema, ...) and one virtualenv per
interop peer under `.venv-peers/<name>` (each `tests/interop/peers/<name>.txt` is that
peer's requirements; a `<name>.npm` file lists npm packages installed with npm under the
same folder, `SPEC ; platform=linux-x64` for one platform only), reusing them while their requirements are unchanged. The peers' interpreters
(or npm prefixes) reach the tests as MCP_TUI_PEER_<NAME> environment variables.
mcp_tui.py itself never needs any of this.
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


def ensure_venv(venv, requirements):
    """Create `venv` with `requirements` installed, unless a stamp says it is current."""
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    stamp = venv / ".requirements.sha256"
    if stamp.exists() and stamp.read_text() == digest and venv_python(venv).exists():
        return venv_python(venv)
    print("run_tests: preparing %s from %s" % (venv.name, requirements.relative_to(ROOT)), flush=True)
    subprocess.check_call([sys.executable, "-m", "venv", "--clear", str(venv)])
    python = venv_python(venv)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.check_call(pip + ["--upgrade", "pip"])
    subprocess.check_call(pip + ["-r", str(requirements)])
    stamp.write_text(digest)
    return python


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


def ensure_npm(prefix, packages):
    """Install an npm peer (one package spec a line) under `prefix`; None without npm."""
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
    subprocess.check_call([npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(prefix)]
                          + specs)
    stamp.write_text(digest)
    return prefix


def main():
    env = dict(os.environ)
    test_python = ensure_venv(ROOT / ".venv-test", ROOT / "tests" / "requirements.txt")
    peers = ROOT / "tests" / "interop" / "peers"
    for requirements in sorted(peers.glob("*.txt")):
        python = ensure_venv(ROOT / ".venv-peers" / requirements.stem, requirements)
        env[peer_variable(requirements)] = str(python)
    for packages in sorted(peers.glob("*.npm")):
        prefix = ensure_npm(ROOT / ".venv-peers" / packages.stem, packages)
        if prefix:
            env[peer_variable(packages)] = str(prefix)
    pytest = [str(test_python), "-m", "pytest", "-q"]
    if sys.argv[1:]:
        phases = [pytest + ["-n", "3"] + sys.argv[1:]]
    else:
        # The TUI tests read a terminal emulator's screen; they get the machine to themselves.
        tui = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "tests").glob("test_tui*.py"))
        phases = [pytest + ["-n", "3", "tests"] + ["--ignore=" + path for path in tui],
                  pytest + ["-n", "2"] + tui]
    status = 0
    for cmd in phases:
        print("run_tests: " + " ".join(cmd), flush=True)
        status = subprocess.call(cmd, cwd=str(ROOT), env=env) or status
    return status


if __name__ == "__main__":
    sys.exit(main())
