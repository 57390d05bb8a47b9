#!/usr/bin/env python3
"""What `mcp-tui tap` costs a host over stdio: round trips through the tap against direct.

    python3 tests/bench/tap_overhead.py [--calls 300] [--mb 20] [--runs 7]

Two stdio servers, tests/testserver.py --big-text MB, one started directly and one through
`python3 -m mcp_tui tap --name ... -- python3 tests/testserver.py ...` (its log in a scratch
state directory). This process is the host: a raw newline-delimited JSON-RPC client that
does the 2025-11-25 handshake with each, then, in one run and taking turns (direct, tap,
direct, tap, ...), times --calls `tools/call echo` round trips and --runs `tools/call
big_text` (one text block of --mb MiB) on each. Medians after a discarded warm-up.

Targets (issue 36): a `tools/call` round trip through the tap within 1 ms of direct at the
median, and the 20 MB result within 1.2x direct. Exit status 1 when a target is missed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = sys.executable
TESTSERVER = os.path.join(ROOT, "tests", "testserver.py")
TARGET_ECHO_MS = 1.0
TARGET_BIG_RATIO = 1.2


class Host:
    """A host's side of a stdio connection: one request at a time, its answer read whole."""

    def __init__(self, argv, env):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=ROOT)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "tap-bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("tap_overhead: the server closed its output")
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise SystemExit("tap_overhead: %s failed: %s" % (method, answer["error"]))
                return answer["result"]

    def timed_call(self, name, arguments):
        started = time.perf_counter()
        self.request("tools/call", {"name": name, "arguments": arguments})
        return time.perf_counter() - started

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def paired(hosts, name, arguments, count):
    """{label: [seconds, ...]} for ``count`` calls on each host, taking turns, after a warm-up."""
    for host in hosts.values():
        host.timed_call(name, arguments)
    times = {label: [] for label in hosts}
    for _ in range(count):
        for label, host in hosts.items():
            times[label].append(host.timed_call(name, arguments))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    state = tempfile.mkdtemp(prefix="mcp-tui-tap-bench-")
    env = dict(os.environ, MCP_TUI_STATE_DIR=state)
    server = [PY, TESTSERVER, "--big-text", str(options.mb)]
    hosts = {"direct": Host(server, env),
             "tap": Host([PY, "-m", "mcp_tui", "tap", "--name", "bench", "--"] + server, env)}
    try:
        echo = paired(hosts, "echo", {"message": "hello"}, options.calls)
        big = paired(hosts, "big_text", {}, options.runs)
    finally:
        for host in hosts.values():
            host.close()
        logs = [os.path.join(state, "taps", name) for name in ("bench.jsonl", "bench.1.jsonl")]
        logged = sum(os.path.getsize(path) for path in logs if os.path.exists(path))
        shutil.rmtree(state, ignore_errors=True)
    echo_ms = {label: statistics.median(values) * 1000 for label, values in echo.items()}
    pair_ms = statistics.median([(tap - direct) * 1000 for direct, tap in zip(echo["direct"], echo["tap"])])
    big_ms = {label: statistics.median(values) * 1000 for label, values in big.items()}
    ratio = statistics.median([tap / direct for direct, tap in zip(big["direct"], big["tap"])])
    print("stdio, %s, Python %s; medians, calls taken in turn" % (sys.platform, sys.version.split()[0]))
    print("%-34s %10s %10s %16s" % ("", "direct ms", "tap ms", "tap - direct"))
    print("%-34s %10.3f %10.3f %13.3f ms" % ("tools/call echo (%d calls)" % options.calls, echo_ms["direct"],
                                             echo_ms["tap"], pair_ms))
    print("%-34s %10.1f %10.1f %14.2fx" % ("tools/call big_text, %d MiB (%d runs)" % (options.mb, options.runs),
                                           big_ms["direct"], big_ms["tap"], ratio))
    print("the tap's log at the end: %.1f MiB (the log and its one rotated file)" % (logged / 1048576.0))
    missed = pair_ms > TARGET_ECHO_MS or ratio > TARGET_BIG_RATIO
    print("targets: echo within %.0f ms: %s; %d MiB within %.1fx: %s" % (
        TARGET_ECHO_MS, "met" if pair_ms <= TARGET_ECHO_MS else "MISSED", options.mb, TARGET_BIG_RATIO,
        "met" if ratio <= TARGET_BIG_RATIO else "MISSED"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
