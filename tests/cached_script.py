"""Run a Python script as ``python SCRIPT ARGS...`` does, from the bytecode cache.

    python tests/cached_script.py SCRIPT [ARGS...]

Python compiles a script afresh at every start (it caches only what is imported): for
mcp_tui.py that is about 0.25 s of CPU of the 0.3 s a start costs, paid by each of the
hundreds of processes the tests start. This runs the same code the same way -- as a fresh
``__main__`` module with its ``__file__``, ``sys.argv[0]`` the script and the script's folder
first on sys.path -- from ``__pycache__`` (written on first use, whatever
PYTHONDONTWRITEBYTECODE says; a changed script is compiled again). Start-up itself (the
modules a start imports, its time) is measured on the script as a user runs it, not here.
"""
import os
import sys


def command(script):
    """The argv prefix that runs ``script`` this way."""
    return [sys.executable, os.path.abspath(__file__), str(script)]


def run(path):
    from importlib.machinery import SourceFileLoader

    loader = SourceFileLoader("__main__", path)
    writes = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        code = loader.get_code("__main__")
    finally:
        sys.dont_write_bytecode = writes
    main = type(sys)("__main__")  # the names a script's __main__ starts with
    main.__dict__.update(__file__=path, __loader__=loader, __builtins__=__builtins__, __cached__=None,
                         __annotations__={})
    sys.modules["__main__"] = main
    del sys.argv[0]
    sys.path[0] = os.path.dirname(path)
    exec(code, main.__dict__)


if __name__ == "__main__":
    run(os.path.abspath(sys.argv[1]))
