#!/usr/bin/env python3
"""Soak test (issue 6, item 5, "Load"): does one long-lived mcp-tui process leak?

    python3 tests/bench/soak.py [--calls 2000] [--tasks 200] [--stdio-calls 500] [--timeout 300]

In ONE process, through the library API (import mcp_tui), against tests/testserver.py on
loopback:

  1. HTTP: `call_tool(session, "echo", ...)` --calls times, one after another;
  2. HTTP: --tasks render_report tasks, each polled with tasks.get() from its own thread
     (all threads at once) until it completes;
  3. stdio: --stdio-calls echo calls on one stdio Session, then session.close().

Every 200 calls (and after each phase) it samples RSS, threading.active_count(), open file
descriptors and child processes. Verdict: RSS growth between the first and the last quarter
of the HTTP echo samples under 10 %, threads and fds back to baseline after close, and no
child process left (other than the HTTP test server this script started). Exits 1 on a leak.
Bounded in count and in time; stops by itself.
"""
import argparse
import gc
import os
import sys
import threading
import time

try:
    import resource
except ImportError:
    resource = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTSERVER = os.path.join(ROOT, "tests", "testserver.py")
PY = sys.executable
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(TESTSERVER))
import mcp_tui  # noqa: E402
from inprocess import child_pids  # noqa: E402
from servers import LoopbackServer  # noqa: E402

SAMPLE_EVERY = 200
GROWTH_LIMIT = 0.10


# -- samples ----------------------------------------------------------------------------------


def rss_kb():
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    if resource:  # peak, not current: the best there is without /proc
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak // 1024 if sys.platform == "darwin" else peak
    return None


def open_fds():
    for where in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(where))
        except OSError:
            continue
    return None


def fd_targets():
    """{fd: what it points at}, where /proc shows it."""
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return {}
    out = {}
    for fd in fds:
        try:
            out[int(fd)] = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            pass
    return out


class Sampler(object):
    def __init__(self, ignore_pids=()):
        self.rows = []
        self.ignore = set(ignore_pids)

    def take(self, phase, count):
        children = child_pids()
        if children is not None:
            children = [p for p in children if p not in self.ignore]
        row = {"phase": phase, "n": count, "rss": rss_kb(), "threads": threading.active_count(),
               "fds": open_fds(), "fd_map": fd_targets(), "children": children, "t": time.monotonic()}
        self.rows.append(row)
        return row

    def table(self):
        print("%-14s %6s %10s %8s %5s %9s" % ("phase", "n", "RSS (kB)", "threads", "fds", "children"))
        for row in self.rows:
            kids = "-" if row["children"] is None else str(len(row["children"]))
            print("%-14s %6d %10s %8d %5s %9s" % (row["phase"], row["n"], row["rss"], row["threads"],
                                                  row["fds"], kids))


# -- the test server ----------------------------------------------------------------------------


def start_http_server(flags):
    return LoopbackServer([PY, TESTSERVER, "--http", "127.0.0.1:0"] + flags)


def open_session(spec):
    return mcp_tui.Session(spec, responder=mcp_tui.InputResponder(), log=mcp_tui.DebugLog()).open()


def echo_round(session, calls, sampler, phase, deadline):
    for i in range(1, calls + 1):
        result = mcp_tui.call_tool(session, "echo", {"message": "hi"})
        if "hi" not in str(result.get("content")):
            raise SystemExit("soak: unexpected echo result %r" % (result,))
        if i % SAMPLE_EVERY == 0 or i == calls:
            sampler.take(phase, i)
        if time.monotonic() > deadline:
            raise SystemExit("soak: over the time limit during %s (%d calls)" % (phase, i))


def task_round(session, count, sampler, deadline):
    tasks = mcp_tui.tasks_for(session)
    tool = mcp_tui.find_tool(session, "render_report")
    ids = []
    for _ in range(count):
        kind, task = tasks.call(tool, {"quarter": "Q4", "pages": 3})
        if kind != "task":
            raise SystemExit("soak: render_report did not run as a task (%s)" % kind)
        ids.append(task.task_id)
    sampler.take("tasks created", count)
    outcome, lock = {}, threading.Lock()

    def poll(task_id):
        status, polls = "?", 0
        try:
            while time.monotonic() < deadline and polls < 2000:
                polls += 1
                status = tasks.get(task_id).status
                if status in mcp_tui.TERMINAL_STATUSES:
                    break
                time.sleep(0.02)
        except Exception as exc:  # noqa: BLE001 - reported below
            status = "error: %s" % exc
        with lock:
            outcome[task_id] = status

    threads = [threading.Thread(target=poll, args=(task_id,), daemon=True) for task_id in ids]
    for thread in threads:
        thread.start()
    sampler.take("tasks polling", count)
    for thread in threads:
        thread.join(max(0.1, deadline - time.monotonic()))
    sampler.take("tasks done", count)
    done = sum(1 for s in outcome.values() if s == "completed")
    return done, {s: list(outcome.values()).count(s) for s in set(outcome.values())}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--stdio-calls", type=int, default=500)
    parser.add_argument("--timeout", type=float, default=300.0, help="overall limit in seconds")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.timeout
    problems = []

    server = start_http_server(["--page-ms", "20"])
    sampler = Sampler(ignore_pids=[server.proc.pid])
    try:
        base = sampler.take("baseline", 0)
        started = time.monotonic()
        session = open_session(mcp_tui.ConnectionSpec("http", url=server.url))
        echo_round(session, args.calls, sampler, "http echo", deadline)
        echo_rate = args.calls / (time.monotonic() - started)
        done, statuses = task_round(session, args.tasks, sampler, deadline)
        session.close()
        time.sleep(0.5)  # let daemon readers notice the close
        after_http = sampler.take("http closed", 0)
        del session
        gc.collect()
        after_http_gc = sampler.take("http gc", 0)
    finally:
        server.stop()
    sampler.ignore = set()

    stdio_base = sampler.take("stdio baseline", 0)
    spec = mcp_tui.ConnectionSpec("stdio", argv=[PY, TESTSERVER])
    session = open_session(spec)
    stdio_children = child_pids()
    sampler.take("stdio open", 0)
    echo_round(session, args.stdio_calls, sampler, "stdio echo", deadline)
    session.close()
    time.sleep(0.5)
    end = sampler.take("stdio closed", 0)
    del session
    gc.collect()
    end_gc = sampler.take("stdio gc", 0)

    print("mcp-tui soak: %d HTTP echo calls (%.0f/s), %d tasks polled from %d threads, %d stdio calls"
          % (args.calls, echo_rate, args.tasks, args.tasks, args.stdio_calls))
    print()
    sampler.table()
    print()

    echo = [r for r in sampler.rows if r["phase"] == "http echo"]
    quarter = max(1, len(echo) // 4)
    first = sum(r["rss"] for r in echo[:quarter]) / quarter
    last = sum(r["rss"] for r in echo[-quarter:]) / quarter
    growth = (last - first) / first
    verdicts = [
        ("RSS growth, first vs last quarter of the echo calls: %+.1f%% (%d -> %d kB; limit %d%%)"
         % (growth * 100, first, last, GROWTH_LIMIT * 100), growth < GROWTH_LIMIT),
        ("tasks completed: %d of %d %s" % (done, args.tasks, statuses), done == args.tasks),
        ("threads after close: %d (baseline %d)" % (end["threads"], base["threads"]),
         end["threads"] <= base["threads"] and after_http["threads"] <= base["threads"]),
    ]
    if base["fds"] is not None:
        for label, before, closed, collected in (("HTTP", base, after_http, after_http_gc),
                                                 ("stdio", stdio_base, end, end_gc)):
            extra = sorted(set(closed["fd_map"].items()) - set(before["fd_map"].items()))
            verdicts.append(("%s fds after session.close(): %d (baseline %d; %d once the Session is "
                             "garbage-collected)%s" % (label, closed["fds"], before["fds"], collected["fds"],
                                                       "; still open: %s" % extra if extra else ""),
                             closed["fds"] <= before["fds"]))
    if end["children"] is not None:
        verdicts.append(("child processes: %d while stdio was open, %d left after close %s"
                         % (len(stdio_children or []), len(end["children"]), end["children"] or ""),
                         not end["children"] and not after_http["children"] and bool(stdio_children)))
    for text, ok in verdicts:
        print("%s  %s" % ("ok  " if ok else "LEAK", text))
        if not ok:
            problems.append(text)
    print()
    print("verdict: %s" % ("no leak detected" if not problems else "LEAK: " + "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
