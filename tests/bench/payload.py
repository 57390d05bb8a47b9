#!/usr/bin/env python3
"""Large results (issue 16): one 20 MB tool result, mcp-tui side by side with the floor.

    python3 tests/bench/payload.py [--mb 20] [--runs 5] [--no-profile]

tests/testserver.py --big-text MB serves the tool big_text (one text block of MB MiB), once
answering with application/json and once (--sse-responses) with one text/event-stream event.
Against each, in one run, interleaved, medians of --runs after one discarded warm-up:

  floor      tests/bench/floor_client.py big: exactly two POSTs (server/discover, tools/call)
             on one http.client connection, json.loads, the text written to stdout
  mcp-tui    python -m mcp_tui --url URL tool call big_text (cached bytecode, a fresh state
             directory per run of the benchmark)

Each child's stdout is drained through a pipe by this process. Wall time is measured here;
peak RSS comes from /usr/bin/time -f %M where there is one. Without it, from os.wait4, which on
Linux also counts this process's RSS at fork (an upper bound that is the same for every row).

Targets: mcp-tui's time <= 1.2x the floor's and its peak RSS <= 1.5x the floor's, for the JSON
and the SSE body. It also feeds mcp_tui.SseDecoder one event of 1, 10 and 20 MB (in 64 KB chunks
and in one piece) and checks that its time is linear in the size. Exit status 1 when a target is
missed; then a cProfile of one in-process `tool call big_text` (all threads) is printed.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (the floor client, the test server's start-up, the ways to run mcp-tui)

ROOT = bench.ROOT
PY = bench.PY
sys.path.insert(0, ROOT)
import mcp_tui  # noqa: E402

TARGET_TIME = 1.2
TARGET_MEMORY = 1.5
CHUNK = 64 * 1024
MB = 1024 * 1024
BODIES = (("JSON", []), ("SSE", ["--sse-responses"]))


# -- one child, its stdout drained ----------------------------------------------------------------


TIME_BIN = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


class ChildFailed(Exception):
    pass


def run_child(argv, cwd=None, env=None):
    """(wall seconds, peak RSS in KiB, bytes on stdout, CPU seconds) of one child, its stdout
    drained. The CPU time (user+sys, from os.wait4: the child and what it waited for) is
    steadier than wall time on a busy machine."""
    stamp = None
    if TIME_BIN:
        fd, stamp = tempfile.mkstemp(prefix="payload-rss-")
        os.close(fd)
        argv = [TIME_BIN, "-f", "%M", "-o", stamp] + argv
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
    err = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    reader.start()
    size = 0
    while True:
        chunk = proc.stdout.read(CHUNK)
        if not chunk:
            break
        size += len(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    reader.join()
    proc.stdout.close()
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
    if code != 0:
        raise ChildFailed("%s failed (exit %d):\n%s" % (" ".join(argv), code, err[0].decode("utf-8", "replace")[-2000:]))
    if stamp:
        with open(stamp) as handle:
            peak = int(handle.read().split()[-1])
        os.unlink(stamp)
    else:
        peak = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss
    return wall, peak, size, usage.ru_utime + usage.ru_stime


class Row(object):
    def __init__(self, body, label, argv, cwd=None, kind=None):
        self.body, self.label, self.argv, self.cwd, self.kind = body, label, argv, cwd, kind
        self.walls, self.peaks, self.cpus, self.out = [], [], [], 0
        self.failed = None  # the last line of a failed run's stderr (the SDK's client may give up)

    def wall(self):
        return statistics.median(self.walls)

    def peak(self):
        return statistics.median(self.peaks)

    def cpu(self):
        return statistics.median(self.cpus)


def measure(rows, runs, env, size):
    """Interleaved runs of every row, the first round thrown away (server warm-up, page cache)."""
    for round_ in range(runs + 1):
        for row in rows:
            if row.failed:
                continue
            try:
                wall, peak, out, cpu = run_child(row.argv, row.cwd, env)
            except ChildFailed as exc:
                if row.kind != "d":
                    raise SystemExit("payload: %s" % exc)
                lines = [line.strip(" |") for line in str(exc).splitlines()]
                row.failed = ([line for line in lines if "rror" in line] or lines)[-1][:120]
                continue
            if out < size:
                raise SystemExit("payload: only %d bytes on stdout from %s" % (out, " ".join(row.argv)))
            if round_:
                row.walls.append(wall)
                row.peaks.append(peak)
                row.cpus.append(cpu)
                row.out = out
        sys.stderr.write("\rpayload: round %d/%d" % (round_, runs))
        sys.stderr.flush()
    sys.stderr.write("\n")


def big_result_rows(ways, mb, runs, env, sdk_python=None):
    """The floor and each way to run mcp-tui (and the SDK client, when given), against the test
    server with --big-text MB, as a JSON body and as an SSE body: {body: [Row, ...]}."""
    measured = {}
    for body, flags in BODIES:
        server = bench.start_http_server(["--big-text", str(mb)] + bench.CACHE_TTL + flags)
        try:
            rows = [Row(body, "floor", [PY, bench.FLOOR, "--url", server.url, "big"], kind="b")]
            for label, (prefix, cwd) in ways.items():
                rows.append(Row(body, label, prefix + ["--url", server.url, "tool", "call", "big_text"], cwd, "c"))
            if sdk_python:
                rows.append(Row(body, "official SDK", [sdk_python, bench.SDK_CLIENT, "--url", server.url, "big"],
                                kind="d"))
            measure(rows, runs, env, mb * MB)
        finally:
            server.stop()
        measured[body] = rows
    return measured


# -- the SSE decoder on its own --------------------------------------------------------------------


def sse_event(size):
    return "data: " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"content": [
        {"type": "text", "text": "y" * size}]}}) + "\n\n"


def decode_time(text, chunk):
    decoder = mcp_tui.SseDecoder()
    started = time.perf_counter()
    events = []
    if chunk:
        for start in range(0, len(text), chunk):
            events.extend(decoder.feed(text[start:start + chunk]))
    else:
        events.extend(decoder.feed(text))
    elapsed = time.perf_counter() - started
    if len(events) != 1 or len(events[0].data) != len(text) - len("data: ") - 2:
        raise SystemExit("payload: SseDecoder returned %d events" % len(events))
    return elapsed


# -- profiles ---------------------------------------------------------------------------------------


def profile_call(url):
    """cProfile of one in-process `tool call big_text`, main thread and worker threads together."""
    profiles = []
    original_run = threading.Thread.run

    def run(self):
        profile = cProfile.Profile()
        profiles.append(profile)
        profile.runcall(original_run, self)

    threading.Thread.run = run
    main = cProfile.Profile()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        main.runcall(mcp_tui.main, ["--url", url, "tool", "call", "big_text"])
    except SystemExit:
        pass
    finally:
        sys.stdout.close()
        sys.stdout, sys.stderr = saved
        threading.Thread.run = original_run
    return stats_text([main] + profiles)


def stats_text(profiles):
    out = io.StringIO()
    stats = pstats.Stats(profiles[0], stream=out)
    for profile in profiles[1:]:
        try:
            stats.add(profile)
        except TypeError:  # a thread that never ran anything
            pass
    stats.sort_stats("tottime").print_stats(10)
    lines = out.getvalue().splitlines()
    start = next((i for i, l in enumerate(lines) if "ncalls" in l), 0)
    return "\n".join(l for l in lines[start - 2:] if l.strip())


# -- main -------------------------------------------------------------------------------------------


def print_rows(measured):
    print("%-5s %-22s %9s %9s %9s %9s %10s %10s %10s" % ("body", "client", "wall ms", "x floor", "cpu ms",
                                                         "x floor", "peak MiB", "x floor", "stdout MiB"))
    verdicts = []
    for body, rows in measured.items():
        floor = next(r for r in rows if r.kind == "b")
        for row in rows:
            if row.failed:
                print("%-5s %-22s failed: %s" % (body, row.label, row.failed))
                continue
            time_ratio, memory_ratio = row.wall() / floor.wall(), row.peak() / floor.peak()
            print("%-5s %-22s %9.0f %9.2f %9.0f %9.2f %10.1f %10.2f %10.1f" % (
                body, row.label, row.wall() * 1000, time_ratio, row.cpu() * 1000, row.cpu() / floor.cpu(),
                row.peak() / 1024.0, memory_ratio, row.out / MB))
            if row.kind == "c":
                verdicts.append((time_ratio <= TARGET_TIME, "%s %s: time %.2fx the floor (target <= %.1fx)"
                                 % (body, row.label, time_ratio, TARGET_TIME)))
                verdicts.append((memory_ratio <= TARGET_MEMORY, "%s %s: peak RSS %.2fx the floor (target <= %.1fx)"
                                 % (body, row.label, memory_ratio, TARGET_MEMORY)))
    return verdicts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args(argv)

    work = tempfile.mkdtemp(prefix="mcp-tui-payload-")
    env = dict(os.environ, MCP_TUI_STATE_DIR=os.path.join(work, "state"), PYTHONIOENCODING="utf-8")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        ways, _, _, _ = bench.mcp_tui_ways(work, env)
        ways = {"python -m mcp_tui": ways["python -m mcp_tui"]}
        measured = big_result_rows(ways, args.mb, args.runs, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("mcp-tui large result: one text block of %d MiB from tests/testserver.py --big-text; medians of %d; "
          "%s %s; peak RSS from %s" % (args.mb, args.runs, os.path.basename(PY), sys.version.split()[0],
                                       "/usr/bin/time -f %M" if TIME_BIN else "os.wait4 (includes this process)"))
    print("(floor = floor_client.py big: two POSTs, json.loads, write the text)")
    print()
    verdicts = print_rows(measured)

    print()
    print("SseDecoder, one event (best of 3):")
    print("%6s %14s %14s" % ("MiB", "64 KB chunks", "one piece"))
    decoded = {}
    for mb in sorted({1, min(10, args.mb), args.mb}):
        event = sse_event(mb * MB)
        decoded[mb] = (min(decode_time(event, CHUNK) for _ in range(3)), min(decode_time(event, None) for _ in range(3)))
        print("%6d %11.1f ms %11.1f ms" % (mb, decoded[mb][0] * 1000, decoded[mb][1] * 1000))
    # Linear: the time per MB at the largest size within 1.5x of that at 10 MB (a quadratic
    # decoder gives 2x). 1 MB is shown but not judged: it fits in the CPU caches.
    mid = min(10, args.mb)
    growth = [(decoded[args.mb][i] / args.mb) / (decoded[mid][i] / mid) for i in (0, 1)]
    verdicts.append((args.mb == mid or max(growth) <= 1.5,
                     "SseDecoder: time per MiB at %d MiB %.2fx (chunked) and %.2fx (one piece) that at %d MiB "
                     "(linear = 1x)" % (args.mb, growth[0], growth[1], mid)))

    print()
    for ok, text in verdicts:
        print("%s  %s" % ("met   " if ok else "MISSED", text))
    missed = not all(ok for ok, _ in verdicts)
    if missed and not args.no_profile:
        server = bench.start_http_server(["--big-text", str(args.mb)])
        try:
            print()
            print("cProfile of one in-process `tool call big_text` (JSON body), top 10 by tottime:")
            print(profile_call(server.url))
        finally:
            server.stop()
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
