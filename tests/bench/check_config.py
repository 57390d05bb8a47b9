#!/usr/bin/env python3
"""`mcp-tui check --config FILE` of N servers at once against checking them one after another
(issue 47): the same config file, checked whole (its servers in CONFIG_CHECK_THREADS threads)
and server by server (`check --config FILE --server NAME`, N runs in turn, as a user had to).

    python3 tests/bench/check_config.py [--servers 8] [--rounds 3]

The servers are stdio, on loopback: tests/testserver.py in each era and tests/faultyserver.py
in each era, in turn, to make N. Each round runs the whole check and the one-by-one checks,
the order alternating round by round; the table gives the medians, the slowest single
server's check (the floor a concurrent check can reach) and the ratio. Target: the whole
check within 1.5x the slowest server's, and well under the one-by-one total.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MCP_TUI = os.path.join(ROOT, "mcp_tui.py")
PY = sys.executable
KINDS = [
    [os.path.join(ROOT, "tests", "testserver.py")],
    [os.path.join(ROOT, "tests", "testserver.py"), "--era", "2025-11-25"],
    [os.path.join(ROOT, "tests", "faultyserver.py")],
    [os.path.join(ROOT, "tests", "faultyserver.py"), "--era", "2026-07-28"],
]
TARGET_RATIO = 1.5  # the whole check against the slowest server's own


def config_file(directory, count):
    servers = {}
    for index in range(count):
        script = KINDS[index % len(KINDS)]
        servers["server-%d" % (index + 1)] = {"command": PY, "args": script}
    path = os.path.join(directory, "mcp.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"mcpServers": servers}, handle)
    return path, sorted(servers)


def timed(argv, env):
    started = time.perf_counter()
    result = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=ROOT)
    if result.returncode not in (0, 1):
        sys.exit("%s failed (%d): %s" % (" ".join(argv), result.returncode, result.stderr.decode()[-500:]))
    return time.perf_counter() - started, result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, MCP_TUI_STATE_DIR=state)
        path, names = config_file(state, args.servers)
        whole_runs, one_by_one_runs, slowest_runs = [], [], []
        timed([PY, MCP_TUI, "check", "--config", path], env)  # warm-up: the file systems' caches
        for round_ in range(args.rounds):
            def whole():
                seconds, result = timed([PY, MCP_TUI, "check", "--config", path, "--format", "json"], env)
                document = json.loads(result.stdout)
                assert [s["name"] for s in document["servers"]] == names, document
                whole_runs.append(seconds)

            def one_by_one():
                each = [timed([PY, MCP_TUI, "check", "--config", path, "--server", name], env)[0] for name in names]
                one_by_one_runs.append(sum(each))
                slowest_runs.append(max(each))

            for step in ((whole, one_by_one) if round_ % 2 == 0 else (one_by_one, whole)):
                step()
    whole, one_by_one, slowest = (statistics.median(runs) for runs in (whole_runs, one_by_one_runs, slowest_runs))
    print("check --config of %d stdio servers, medians of %d rounds (s)" % (args.servers, args.rounds))
    print("  all at once (check --config FILE)          %6.2f" % whole)
    print("  one after another (--server NAME, %d runs)  %6.2f  (%.1fx the whole check)" % (
        args.servers, one_by_one, one_by_one / whole))
    print("  the slowest server alone                   %6.2f  (the whole check: %.2fx it; target <= %.1fx)" % (
        slowest, whole / slowest, TARGET_RATIO))
    return 0 if whole / slowest <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
