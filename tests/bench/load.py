"""`tool call --load` side by side with the MCP Inspector CLI's `--load`, in one run.

    python3 tests/bench/load.py                       # 5 rounds of 2,000 calls at concurrency 8
    python3 tests/bench/load.py --concurrency 8,10 --requests 3000 --rounds 3
    python3 tests/bench/load.py --inspector PATH      # where the Inspector's `mcp-inspector` bin is

Issue 25's target: `mcp-tui --url URL tool call echo message=hi --load` reaches at least the
Inspector's throughput at the same concurrency, against the HTTP test server. The Inspector CLI
(`@modelcontextprotocol/inspector` 2.x on npm) has a load mode of its own: `--method tools/call
--tool-name NAME --tool-arg k=v --load --load-concurrency C --load-requests N`, which prints the
same JSON keys mcp-tui's `--format json` does (`requests`, `ok`, `toolErrors`, `errors`,
`errorRate`, `elapsedMs`, `throughput`, `latencyMs`). Both count `throughput` as calls over the
load phase only (the tool listing and connecting come first and are not counted), so the figures
compare directly; each process's wall time, start-up included, is printed beside them.

The Inspector is looked for in --inspector, then $MCP_TUI_INSPECTOR, then
.venv-inspector/node_modules/.bin/mcp-inspector (git-ignored), which this installs:

    npm install --prefix .venv-inspector @modelcontextprotocol/inspector@2.12.0

(2.x asks for Node >= 22.19; 2.12.0 runs its CLI on Node 20 with an engine warning. Without a
version, npm on an older Node picks 0.15, which has no --load.) Without the Inspector its
column is skipped, the output says so, and the target is not judged.

What runs, each round, one after another, all on one server (`tests/testserver.py --http
--page-ms 0`, TCP_NODELAY on, as bench.py starts it), at each concurrency:
- the Inspector: it speaks 2025-11-25 (its default `legacy` era: initialize, then the calls);
- mcp-tui `python -m mcp_tui` (warm __pycache__), in the era it negotiates (2026-07-28), and
  with `--protocol-version 2025-11-25`, the Inspector's era;
- the floor: C threads of `floor_client.Http`, each its own kept-alive http.client connection
  POSTing 2026-07-28 tools/call, N calls in all: what the server can take from a Python
  client that does nothing else (no client beats the server's own ceiling).
Each cell is the median of the rounds. Exit 1 when mcp-tui (either era) is below the
Inspector at some concurrency, 0 otherwise (or when the Inspector is not there).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench import MCP_TUI, PY, fmt, start_http_server
import floor_client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSPECTOR_HOME = os.path.join(ROOT, ".venv-inspector", "node_modules", ".bin", "mcp-inspector")
TOOL, ARGUMENT = "echo", "message=hi"


def find_inspector(given):
    for place in (given, os.environ.get("MCP_TUI_INSPECTOR"), INSPECTOR_HOME):
        if place and os.path.exists(place):
            return place
    return None


def load_json(argv, cwd, env):
    """(the --load JSON summary, wall seconds of the whole process) of one load run."""
    started = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, timeout=600)
    wall = time.perf_counter() - started
    out = proc.stdout.decode("utf-8", "replace")
    try:
        document = json.loads(out)
    except ValueError:
        document = None
    if not isinstance(document, dict):
        raise SystemExit("load bench: %s\nexit %s\n--- stdout\n%s\n--- stderr\n%s" % (
            " ".join(argv), proc.returncode, out[-2000:], proc.stderr.decode("utf-8", "replace")[-2000:]))
    return document.get("result", document), wall  # the Inspector wraps its JSON in {"result": ...}


def floor_load(url, concurrency, requests):
    """The floor's summary in the same keys: C threads, each its own connection, N calls in all."""
    latencies, errors, lock = [], [], threading.Lock()
    left = [requests]

    def work():
        client = floor_client.Http(url)
        client.request("server/discover", {})
        while True:
            with lock:
                if left[0] <= 0:
                    break
                left[0] -= 1
            began = time.perf_counter()
            try:
                client.request("tools/call", {"name": TOOL, "arguments": {"message": "hi"}})
            except (OSError, ValueError, SystemExit) as exc:
                with lock:
                    errors.append(str(exc))
                continue
            with lock:
                latencies.append((time.perf_counter() - began) * 1000)
        client.close()

    threads = [threading.Thread(target=work) for _ in range(concurrency)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    latencies.sort()
    done = len(latencies) + len(errors)
    return {"requests": done, "errors": len(errors), "elapsedMs": elapsed * 1000,
            "throughput": done / elapsed,
            "latencyMs": {"p50": latencies[len(latencies) // 2] if latencies else None,
                          "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else None}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=2000, help="calls per run (default 2000)")
    parser.add_argument("--concurrency", default="8", help="comma-separated (default 8, the issue's figure)")
    parser.add_argument("--inspector", help="the Inspector's mcp-inspector bin")
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    inspector = find_inspector(args.inspector)
    work = tempfile.mkdtemp(prefix="mcp-tui-load-bench-")
    env = dict(os.environ, MCP_TUI_STATE_DIR=os.path.join(work, "state"), PYTHONIOENCODING="utf-8")
    env.pop("MCP_TUI_BEARER", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    module_dir = os.path.join(work, "module")
    os.mkdir(module_dir)
    shutil.copy(MCP_TUI, os.path.join(module_dir, "mcp_tui.py"))
    subprocess.check_call([PY, "-m", "mcp_tui", "--version"], cwd=module_dir, env=env, stdout=subprocess.DEVNULL)
    server = start_http_server(["--page-ms", "0"])
    try:
        if inspector:
            version = subprocess.run([inspector, "--cli", "--version"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=work).stdout.decode().strip()
            print("Inspector: %s (%s)" % (inspector, version or "version unknown"))
        else:
            print("Inspector: not found (--inspector, $MCP_TUI_INSPECTOR, %s); its column is skipped" % INSPECTOR_HOME)
        print("Server: tests/testserver.py --http --page-ms 0 at %s; %d calls of %s per run, %d rounds\n" % (
            server.url, args.requests, TOOL, args.rounds))
        cases = []
        for concurrency in levels:
            bound = ["--load-concurrency", str(concurrency), "--load-requests", str(args.requests)]
            mcp_tui = [PY, "-m", "mcp_tui", "--url", server.url]
            call = ["tool", "call", TOOL, ARGUMENT, "--load", "--format", "json"] + bound
            if inspector:
                cases.append((concurrency, "Inspector --load (2025-11-25)", lambda c=concurrency, b=bound: load_json(
                    [inspector, "--cli", server.url, "--transport", "http", "--method", "tools/call", "--tool-name",
                     TOOL, "--tool-arg", ARGUMENT, "--load", "--format", "json"] + b, work, env)))
            cases.append((concurrency, "mcp-tui --load (2026-07-28)", lambda a=mcp_tui + call: load_json(
                a, module_dir, env)))
            cases.append((concurrency, "mcp-tui --load (2025-11-25)", lambda a=mcp_tui + [
                "--protocol-version", "2025-11-25"] + call: load_json(a, module_dir, env)))
            cases.append((concurrency, "floor: http.client threads", lambda c=concurrency: (
                floor_load(server.url, c, args.requests), None)))
        for _, _, run in cases:  # one warm-up each, not counted
            run()
        results = dict((index, []) for index in range(len(cases)))
        for round_number in range(args.rounds):
            for index, (_, _, run) in enumerate(cases):
                results[index].append(run())
            print("round %d of %d done" % (round_number + 1, args.rounds), file=sys.stderr)
        return report(cases, results, levels, bool(inspector))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


def report(cases, results, levels, judged):
    print("%-4s %-32s %10s %9s %9s %7s %9s" % ("C", "client", "calls/s", "p50 ms", "p99 ms", "errors", "wall s"))
    medians = {}
    for index, (concurrency, label, _) in enumerate(cases):
        runs = results[index]
        throughput = statistics.median(r["throughput"] for r, _ in runs)
        p50 = statistics.median(r["latencyMs"]["p50"] for r, _ in runs)
        p99 = statistics.median(r["latencyMs"]["p99"] for r, _ in runs)
        errors = sum(r["errors"] + r.get("toolErrors", 0) for r, _ in runs)
        walls = [wall for _, wall in runs if wall is not None]
        medians[concurrency, label] = throughput
        print("%-4d %-32s %10s %9s %9s %7d %9s" % (concurrency, label, fmt(throughput), fmt(p50, 2), fmt(p99, 2),
                                                  errors, fmt(statistics.median(walls), 2) if walls else "-"))
    if not judged:
        print("\ntarget (mcp-tui >= the Inspector at the same concurrency): not judged, no Inspector")
        return 0
    missed = False
    print()
    for concurrency in levels:
        theirs = medians[concurrency, "Inspector --load (2025-11-25)"]
        for label in ("mcp-tui --load (2026-07-28)", "mcp-tui --load (2025-11-25)"):
            ours = medians[concurrency, label]
            met = ours >= theirs
            missed = missed or not met
            print("C=%d %s / Inspector: %.2fx (target >= 1.0: %s)" % (concurrency, label, ours / theirs,
                                                                   "met" if met else "MISSED"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
