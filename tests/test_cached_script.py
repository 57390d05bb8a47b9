"""tests/cached_script.py runs a script as `python SCRIPT` does, from the bytecode cache."""
import os
import subprocess
import sys

import cached_script

PROBE = """import sys
print(sorted(globals()), __name__, __spec__, __package__, __cached__, type(__loader__).__name__)
print(__file__, sys.argv, sys.path[0])
sys.exit(int(sys.argv[-1]))
"""


def test_a_script_sees_what_it_sees_when_run_directly_and_its_bytecode_is_cached(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    direct = subprocess.run([sys.executable, str(script), "x", "3"], capture_output=True, text=True, env=environ,
                            cwd=str(tmp_path), timeout=60)
    cached = subprocess.run(cached_script.command(script) + ["x", "3"], capture_output=True, text=True, env=environ,
                            cwd=str(tmp_path), timeout=60)
    assert (cached.returncode, cached.stdout, cached.stderr) == (direct.returncode, direct.stdout, direct.stderr)
    assert direct.returncode == 3 and "] __main__ None None None SourceFileLoader\n" in direct.stdout
    assert [path.name for path in (tmp_path / "__pycache__").iterdir()] == [
        "probe.cpython-%d%d.pyc" % sys.version_info[:2]]
