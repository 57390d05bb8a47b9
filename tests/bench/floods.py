#!/usr/bin/env python3
"""Floods (issue 21, item 5): what a hostile server can make one mcp-tui run keep.

    python3 tests/bench/floods.py [--only NAME ...] [--mcp-tui PATH] [--limit-mb 400]

Each case runs `mcp-tui` against tests/badserver.py in one flood mode and reads the peak RSS
of the mcp-tui process alone (os.wait4 in a small launcher, as tests/test_limits.py does:
a child forked straight from a big process would report that process's peak). The target
is every flood under --limit-mb (400 MB), the page flood under 600 MB, and, where the run
must fail, one clear `mcp-tui:` line. `--mcp-tui` measures another copy (an older commit's
mcp_tui.py, for a before/after). Takes a few minutes: the floods move gigabytes through pipes.
Exits 1 when a target is missed.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BADSERVER = os.path.join(ROOT, "tests", "badserver.py")
PY = sys.executable
MB = 1000 * 1000

# The child runs with its address space capped (MEMORY_CAP), so that a copy without the bounds
# (a before/after) fails with MemoryError instead of taking the machine's memory.
MEMORY_CAP = 4 * 1024 ** 3
LAUNCHER = ("import os, resource, subprocess, sys\n"
            "cap = lambda: resource.setrlimit(resource.RLIMIT_AS, (%d, %d))\n"
            "child = subprocess.Popen(sys.argv[2:], preexec_fn=cap)\n" % (MEMORY_CAP, MEMORY_CAP) +
            "_, status, usage = os.wait4(child.pid, 0)\n"
            "with open(sys.argv[1], 'w') as out:\n"
            "    out.write(str(usage.ru_maxrss))\n"
            "sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 255)\n")

# name: (badserver mode and flags, mcp-tui words, the limit in MB, what the run must show)
CASES = {
    "method-names": (["--mode", "method-flood", "--count", "60", "--size", "10000000"],
                     ["tool", "call", "echo", "message=hi"], 400, "60 notifications, 10 MB method names"),
    "method-names-json": (["--mode", "method-flood", "--count", "60", "--size", "10000000"],
                          ["--format", "json", "tool", "call", "echo", "message=hi"], 400, "the same, --format json"),
    "emoji": (["--mode", "emoji-flood", "--count", "6000", "--size", "65000"],
              ["tool", "call", "echo", "message=hi"], 400, "6,000 notifications of 65,000 emoji"),
    "emoji-json": (["--mode", "emoji-flood", "--count", "6000", "--size", "65000"],
                   ["--format", "json", "tool", "call", "echo", "message=hi"], 400, "the same, --format json"),
    "pages": (["--mode", "big-pages", "--size", "5000000"],
              ["--max-message-size", "8M", "tool", "list"], 600, "pages of 5 MB under --max-message-size 8M"),
    "stderr": (["--mode", "stderr-lines", "--count", "6000", "--size", "60000"],
               ["tool", "call", "echo", "message=hi"], 400, "6,000 different stderr lines of 60 KB"),
    "sampling": (["--mode", "sampling-flood", "--era", "2025-11-25", "--count", "20000"],
                 ["--quiet", "tool", "call", "echo", "message=hi"], 400, "20,000 sampling requests, --quiet"),
}


def run_case(mcp_tui, server_flags, words, guard):
    server = " ".join(shlex.quote(p) for p in [PY, BADSERVER] + server_flags)
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = os.path.join(scratch, "peak")
        environ = dict(os.environ, MCP_TUI_STATE_DIR=os.path.join(scratch, "state"), PYTHONIOENCODING="utf-8")
        started = time.monotonic()
        proc = subprocess.Popen([PY, "-c", LAUNCHER, peak_file, PY, mcp_tui, server, "--timeout", "300"] + words,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environ, cwd=scratch)
        err = StderrSummary(proc.stderr)  # stderr can be gigabytes: only its lines are counted
        try:
            proc.wait(timeout=guard)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        err.thread.join()
        elapsed = time.monotonic() - started
        try:
            with open(peak_file) as handle:
                peak_kb = int(handle.read())
        except (OSError, ValueError):
            peak_kb = None
    return proc.returncode, err, elapsed, peak_kb


class StderrSummary(object):
    """How many lines a stream had, its last line (its first 200 bytes) and whether it held a traceback."""

    def __init__(self, stream):
        self.lines, self.last, self.traceback = 0, b"", False
        self.thread = threading.Thread(target=self.read, args=(stream,), daemon=True)
        self.thread.start()

    def read(self, stream):
        start = True
        for chunk in iter(lambda: stream.readline(1 << 20), b""):
            if start and chunk.strip():
                self.last = chunk[:200]
                self.traceback = self.traceback or chunk.startswith(b"Traceback")
            start = chunk.endswith(b"\n")
            self.lines += start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(CASES))
    parser.add_argument("--mcp-tui", default=os.path.join(ROOT, "mcp_tui.py"))
    parser.add_argument("--guard", type=float, default=600, help="seconds before a case is killed")
    opts = parser.parse_args()
    if not hasattr(os, "wait4"):
        sys.exit("floods.py reads peak RSS with os.wait4 (POSIX)")
    missed = 0
    print("%-18s %10s %6s %8s  %s" % ("case", "peak MB", "exit", "seconds", "stderr (last line, and lines)"))
    for name in opts.only or CASES:
        server_flags, words, limit, what = CASES[name]
        code, err, elapsed, peak_kb = run_case(opts.mcp_tui, server_flags, words, opts.guard)
        peak = peak_kb * 1024 / MB if peak_kb is not None else float("nan")
        ok = peak_kb is not None and peak < limit and not err.traceback
        missed += not ok
        print("%-18s %10.0f %6s %8.1f  %s (%d lines)%s" % (
            name, peak, code, elapsed, err.last.decode("utf-8", "replace").rstrip()[:110], err.lines,
            "" if ok else "   <- MISSED (limit %d MB)" % limit))
        print("%18s %s" % ("", what))
        sys.stdout.flush()
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
