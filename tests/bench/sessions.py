"""What a kept session saves: `mcp-tui @NAME tool list` side by side with the same command
on a fresh stdio server and with the stdlib floor over HTTP, in one run.

    python3 tests/bench/sessions.py            # 15 runs per case
    python3 tests/bench/sessions.py --runs 5

Issue 12's targets: @NAME tool list takes at most 0.25x the time of the same command with a
fresh stdio server (the test server, and the reference "everything" server when
$MCP_TUI_PEER_EVERYTHING or --everything names its install), and at most 1.2x the floor client (`floor_client.py`, http.client and
nothing else) over HTTP. mcp-tui runs as `python -m mcp_tui` with a warm __pycache__ (as
bench.py's "(c)" rows), from a snapshot of mcp_tui.py; the session's keeper runs from the
same snapshot, and so does everything in a private state directory.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from bench import FLOOR, MCP_TUI, PY, TESTSERVER, Case, fmt, measure, start_http_server

TARGET_VS_FRESH_STDIO = 0.25
TARGET_VS_HTTP_FLOOR = 1.2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--everything", default=os.environ.get("MCP_TUI_PEER_EVERYTHING"), metavar="DIR",
                        help="where the everything server is installed (its node_modules)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mcp-tui-sessions-bench-")
    env = dict(os.environ, MCP_TUI_STATE_DIR=os.path.join(work, "state"), PYTHONIOENCODING="utf-8")
    env.pop("MCP_TUI_BEARER", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the cases run with a warm __pycache__, as bench.py's do
    module_dir = os.path.join(work, "module")
    os.mkdir(module_dir)
    shutil.copy(MCP_TUI, os.path.join(module_dir, "mcp_tui.py"))
    mcp_tui = [PY, "-m", "mcp_tui"]
    subprocess.check_call(mcp_tui + ["--version"], cwd=module_dir, env=env, stdout=subprocess.DEVNULL)
    if not os.path.isdir(os.path.join(module_dir, "__pycache__")):
        raise SystemExit("sessions bench: python -m mcp_tui wrote no __pycache__")
    stdio_server = " ".join(shlex.quote(a) for a in [PY, TESTSERVER, "--page-ms", "0"])
    everything = None
    if args.everything:
        program = os.path.join(args.everything, "node_modules", ".bin", "mcp-server-everything")
        everything = shlex.quote(program) + " stdio" if os.path.exists(program) else None
    http = start_http_server(["--page-ms", "0"])
    sessions = [("bench-stdio", [stdio_server]), ("bench-http", ["--url", http.url])]
    if everything:
        sessions.append(("bench-everything", [everything]))
    try:
        for name, connection in sessions:
            subprocess.check_call(mcp_tui + ["session", "open", name] + connection, cwd=module_dir, env=env,
                                  stdout=subprocess.DEVNULL)
        cases = [
            Case("tool list", "@NAME, a kept stdio session", mcp_tui + ["@bench-stdio", "tool", "list"],
                 "render_report", module_dir),
            Case("tool list", "@NAME, a kept HTTP session", mcp_tui + ["@bench-http", "tool", "list"],
                 "render_report", module_dir),
            Case("tool list", "a fresh stdio server", mcp_tui + [stdio_server, "tool", "list"], "render_report",
                 module_dir),
            Case("tool list", "direct over HTTP", mcp_tui + ["--url", http.url, "tool", "list"], "render_report",
                 module_dir),
            Case("tool list", "floor (stdlib) over HTTP", [PY, FLOOR, "--url", http.url, "list"], "render_report"),
        ]
        if everything:
            cases += [Case("tool list", "@NAME, a kept everything server", mcp_tui + ["@bench-everything", "tool",
                                                                                      "list"], "echo", module_dir),
                      Case("tool list", "a fresh everything server", mcp_tui + [everything, "tool", "list"], "echo",
                           module_dir)]
        measure(cases, args.runs, env)
    finally:
        subprocess.call(mcp_tui + ["session", "close", "--all"], cwd=module_dir, env=env, stdout=subprocess.DEVNULL)
        http.stop()
        shutil.rmtree(work, ignore_errors=True)
    medians = dict((case.label, case.median()) for case in cases)
    print("%-32s %10s %10s" % ("tool list (median of %d)" % args.runs, "wall ms", "cpu ms"))
    for case in cases:
        print("%-32s %10s %10s" % (case.label, fmt(case.median()), fmt(case.cpu_median())))
    comparisons = [("@NAME, a kept stdio session", "a fresh stdio server", TARGET_VS_FRESH_STDIO),
                   ("@NAME, a kept stdio session", "floor (stdlib) over HTTP", TARGET_VS_HTTP_FLOOR)]
    if everything:
        comparisons.append(("@NAME, a kept everything server", "a fresh everything server", TARGET_VS_FRESH_STDIO))
    for kept, fresh, target in comparisons:
        ratio = medians[kept] / medians[fresh]
        print("%s vs %s: %.2f (target <= %.2f: %s)" % (kept, fresh, ratio, target,
                                                        "met" if ratio <= target else "NOT MET"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
