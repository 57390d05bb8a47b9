#!/usr/bin/env python3
"""The tap's cost (issue 36): one `tools/call` round trip through `mcp-tui tap` against the same
round trip direct, over stdio and over Streamable HTTP.

    python3 tests/bench/tap.py [--rounds 300]

In one run, on loopback against tests/testserver.py: over stdio two servers, one started
directly and one through `mcp-tui tap -- SERVER`; over HTTP one server (with TCP_NODELAY, as
bench.py runs it), called directly and through `mcp-tui tap --listen 127.0.0.1:0 --url URL`.
The client is floor_client.py's (one kept-alive connection, or one pipe). After a warm-up, each
round makes one direct call and one tapped call, the order alternating round by round, so both
see the same machine at the same moment; the table gives the medians and the median of the
per-round differences (the tap's cost). Then the same, in fewer rounds, for a 20 MB result
(the test server's big_text, answered as JSON, then as one SSE event). Targets: the echo
call's cost within 1 ms, the 20 MB result within 1.2x direct.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTSERVER = os.path.join(ROOT, "tests", "testserver.py")
MCP_TUI = os.path.join(ROOT, "mcp_tui.py")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(TESTSERVER))
from bench import NODELAY_SERVER  # noqa: E402
from floor_client import Http, Stdio  # noqa: E402
from servers import LoopbackServer  # noqa: E402

PY = sys.executable
TARGET_MS = 1.0
TARGET_RATIO = 1.2  # the 20 MB result through the tap against direct
CALL = ("tools/call", {"name": "echo", "arguments": {"message": "hi"}})
BIG = ("tools/call", {"name": "big_text", "arguments": {}})


def http_tap(url, env):
    """`mcp-tui tap --listen 127.0.0.1:0 --url URL`: (the process, the URL it says it listens on)."""
    process = subprocess.Popen([PY, MCP_TUI, "tap", "--name", "bench-http", "--listen", "127.0.0.1:0", "--url", url],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, env=env)
    said = process.stderr.readline()
    found = re.search(r"listening on (\S+)", said)
    if not found:
        process.kill()
        sys.exit("the tap did not start: %s" % said)
    return process, found.group(1)


def paired(direct, tapped, rounds, call=CALL, warm=20):
    """Per round, one ``call`` each way (the order alternating): the times in ms, direct and tapped.
    Both peers are closed at the end."""
    try:
        return calls(direct, tapped, rounds, call, warm)
    finally:
        direct.close()
        tapped.close()


def calls(direct, tapped, rounds, call, warm):
    times = ([], [])
    for peer in (direct, tapped):
        peer.request("server/discover", {})
        for _ in range(warm):
            peer.request(*call)
    for number in range(rounds):
        order = (0, 1) if number % 2 == 0 else (1, 0)
        for which in order:
            peer = (direct, tapped)[which]
            started = time.perf_counter()
            peer.request(*call)
            times[which].append((time.perf_counter() - started) * 1000)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--big-rounds", type=int, default=7, help="rounds of the 20 MB result (JSON, then SSE)")
    options = parser.parse_args()
    state = tempfile.mkdtemp(prefix="mcp-tui-bench-tap-")
    os.environ["MCP_TUI_STATE_DIR"] = state  # the taps' logs (Stdio starts its children with this environment)
    env = dict(os.environ)
    rows = []
    try:
        server = [PY, TESTSERVER, "--page-ms", "0"]
        tapped = [PY, MCP_TUI, "tap", "--name", "bench-stdio", "--"] + server
        rows.append(("stdio",) + paired(Stdio(server), Stdio(tapped), options.rounds))
        http_server = LoopbackServer([PY, "-c", NODELAY_SERVER, "--page-ms", "0", "--http", "127.0.0.1:0"])
        tap, tap_url = http_tap(http_server.url, env)
        try:
            rows.append(("streamable-http",) + paired(Http(http_server.url), Http(tap_url), options.rounds))
        finally:
            tap.terminate()
            tap.wait(30)
            http_server.stop()
        for label, flags in (("20 MB result, JSON", []), ("20 MB result, SSE", ["--sse-responses"])):
            http_server = LoopbackServer([PY, "-c", NODELAY_SERVER, "--big-text", "20", "--http", "127.0.0.1:0"] + flags)
            tap, tap_url = http_tap(http_server.url, env)
            try:
                rows.append((label,) + paired(Http(http_server.url), Http(tap_url), options.big_rounds, BIG, 1))
            finally:
                tap.terminate()
                tap.wait(30)
                http_server.stop()
    finally:
        shutil.rmtree(state, ignore_errors=True)
    print("tools/call round trips: echo in %d paired rounds, the 20 MB result in %d (ms, medians)" % (
        options.rounds, options.big_rounds))
    print()
    print("| call | direct | through the tap | the tap's cost (median of the rounds' differences) | ratio |")
    print("|---|---|---|---|---|")
    missed = False
    for label, direct_ms, tapped_ms in rows:
        cost = statistics.median(t - d for d, t in zip(direct_ms, tapped_ms))
        ratio = statistics.median(t / d for d, t in zip(direct_ms, tapped_ms))
        missed |= cost > TARGET_MS if "20 MB" not in label else ratio > TARGET_RATIO
        print("| %s | %.2f | %.2f | %+.2f | %.2f |" % (label, statistics.median(direct_ms),
                                                      statistics.median(tapped_ms), cost, ratio))
    print()
    print("targets: the echo call's cost within %.0f ms, the 20 MB result within %.1fx direct: %s" % (
        TARGET_MS, TARGET_RATIO, "missed" if missed else "met"))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
