#!/usr/bin/env python3
"""Start-up and request cost of mcp-tui, side by side with the floor and the official SDK.

    python3 tests/bench/bench.py [--runs 15] [--sdk-python PATH] [--quick] [--no-profile] [--no-wait]

Everything runs in one process tree on loopback, against tests/testserver.py over HTTP
and stdio, with the interpreter running this script (sys.executable: the real binary,
never a launcher shim). Cases are interleaved run by run, after one discarded warm-up
each, and the table shows medians:

  (a) python -c pass                     the interpreter's own start-up
  (b) tests/bench/floor_client.py        the same POSTs with http.client (or a pipe), nothing else
  (c) mcp-tui, four ways                 python mcp_tui.py (compiled from source every start),
                                         python -m mcp_tui (cached bytecode), the zipapp (with
                                         bytecode), the console-script wrapper pip writes
  (d) tests/bench/sdk_client.py          the official Python SDK (`mcp`), from the interpreter
                                         in --sdk-python / $MCP_TUI_PEER_SDK (skipped if absent)

for `tool list`, `tool call echo message=hi` and `tool call render_report quarter=Q4
--task --wait` (a task that finishes at once: the server runs with --page-ms 0).
Then: the ratios c/b and c/d against the targets of issues 7 and 16, what compiling the file
costs, an -X importtime summary of `--help` and of `tool list` over HTTP, a cProfile of
one `tool list` (all threads), and the CPU a 10-second --wait burns.

The HTTP test server is started with TCP_NODELAY on its sockets (see --server-as-is):
its handler writes the headers and the body of a response in two send() calls, so with
Nagle's algorithm on, every response on a kept-alive connection after the first waits
~40 ms for the client's delayed ACK. That is a test-server artefact that every client
here pays equally; it would hide the clients' own cost.
"""
import argparse
import hashlib
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import resource
except ImportError:  # Windows: wall time only
    resource = None

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MCP_TUI = os.path.join(ROOT, "mcp_tui.py")
TESTSERVER = os.path.join(ROOT, "tests", "testserver.py")
FLOOR = os.path.join(HERE, "floor_client.py")
SDK_CLIENT = os.path.join(HERE, "sdk_client.py")
PY = sys.executable
sys.path.insert(0, os.path.dirname(TESTSERVER))
from servers import LoopbackServer  # noqa: E402

TARGET_VS_FLOOR = {"tool list": 1.1, "warm tool call": 1.1}  # issue 16, over HTTP
TARGET_VS_SDK = 0.25
TARGET_HELP_MS = 25.0

# The test server with TCP_NODELAY on its accepted sockets (see the module docstring).
NODELAY_SERVER = ("import sys; sys.path.insert(0, %r); import testserver; "
                  "testserver.Handler.disable_nagle_algorithm = True; sys.exit(testserver.main(sys.argv[1:]))"
                  % os.path.dirname(TESTSERVER))

OPS = {
    # op: (mcp-tui words, floor command, SDK command, a string stdout must contain)
    "tool list": (["tool", "list"], "list", "list", "render_report"),
    # mcp-tui kept server/discover and tools/list from the warm-up run (the server's ttlMs is an
    # hour here), so the floor is the one POST of tools/call; the SDK keeps nothing across runs.
    "warm tool call": (["tool", "call", "echo", "message=hi"], "call", "echo", "hi"),
    "task --wait": (["tool", "call", "render_report", "quarter=Q4", "--task", "--wait"], "task", "task",
                    "Q4 revenue"),
}
CACHE_TTL = ["--cache-ttl-ms", "3600000"]  # the test server's ttlMs: an hour, so every measured run is warm
UNWANTED = ("curses", "_curses", "ssl", "_ssl", "asyncio", "subprocess", "email", "http.client", "argparse",
            "urllib.request", "zipfile", "tempfile", "hashlib", "base64", "shlex", "calendar", "datetime",
            # authorization's, which only a server that asks for OAuth may cost
            "hmac", "secrets", "http.server", "webbrowser", "fcntl", "uuid")


# -- processes ---------------------------------------------------------------------------------


class Failed(Exception):
    pass


def run_once(argv, expect=None, cwd=None, env=None, timeout=120):
    """Run one command; return (wall seconds, CPU seconds of it and its waited-for children,
    the wall-clock time it ended, stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN) if resource else None
    started = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
                          timeout=timeout)
    wall = time.perf_counter() - started
    ended = time.time()
    cpu = None
    if resource:
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0 or (expect and expect not in out):
        raise Failed("%s\nexit %s\n--- stdout\n%s\n--- stderr\n%s" % (
            " ".join(shlex.quote(a) for a in argv), proc.returncode, out[-2000:],
            proc.stderr.decode("utf-8", "replace")[-2000:]))
    return wall, cpu, ended, proc.stderr.decode("utf-8", "replace")


def start_http_server(flags, as_is=False):
    """The test server on loopback HTTP (with TCP_NODELAY unless ``as_is``)."""
    head = [PY, TESTSERVER] if as_is else [PY, "-c", NODELAY_SERVER]
    return LoopbackServer(head + ["--http", "127.0.0.1:0"] + flags)


class Case(object):
    def __init__(self, group, label, argv, expect=None, cwd=None, kind=None):
        self.group = group
        self.label = label
        self.argv = argv
        self.expect = expect
        self.cwd = cwd
        self.kind = kind  # "a", "b", "c", "d" or None
        self.walls = []
        self.cpus = []

    def median(self):
        return statistics.median(self.walls) * 1000 if self.walls else None

    def cpu_median(self):
        cpus = [c for c in self.cpus if c is not None]
        return statistics.median(cpus) * 1000 if cpus else None


# -- preparing the three ways to run mcp-tui ---------------------------------------------------------


def build_zipapps(work, snapshot):
    """The documented zipapp, with bytecode (compileall -b puts mcp_tui.pyc where zipimport
    looks) and, for comparison, the same archive from source only."""
    paths = {}
    for name, bytecode in (("mcp-tui.pyz", True), ("mcp-tui-source.pyz", False)):
        source = os.path.join(work, "pyz-" + name)
        os.mkdir(source)
        shutil.copy(snapshot, source)
        if bytecode:
            subprocess.check_call([PY, "-m", "compileall", "-q", "-b", source])
        target = os.path.join(work, name)
        subprocess.check_call([PY, "-m", "zipapp", source, "-m", "mcp_tui:main", "-p", "/usr/bin/env python3",
                               "-o", target])
        paths[name] = target
    return paths


def mcp_tui_ways(work, env):
    """{label: (argv prefix, cwd)}: the script, -m with a warm __pycache__, the zipapp; all
    from one snapshot of mcp_tui.py (the file may change while the benchmark runs)."""
    module_dir = os.path.join(work, "module")
    os.mkdir(module_dir)
    snapshot = os.path.join(module_dir, "mcp_tui.py")
    shutil.copy(MCP_TUI, snapshot)
    subprocess.check_call([PY, "-m", "mcp_tui", "--version"], cwd=module_dir, env=env, stdout=subprocess.DEVNULL)
    if not os.path.isdir(os.path.join(module_dir, "__pycache__")):
        raise SystemExit("bench: python -m mcp_tui wrote no __pycache__ (is PYTHONDONTWRITEBYTECODE set?)")
    pyz = build_zipapps(work, snapshot)
    # What `pip install` writes as bin/mcp-tui (setuptools' console-script wrapper), run with
    # mcp_tui.py and its __pycache__ next to it instead of in site-packages.
    script = os.path.join(module_dir, "mcp-tui-console-script")
    with open(script, "w") as handle:
        handle.write("# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom mcp_tui import main\n"
                     "if __name__ == '__main__':\n"
                     "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
                     "    sys.exit(main())\n")
    ways = {
        "python mcp_tui.py": ([PY, snapshot], None),
        "python -m mcp_tui": ([PY, "-m", "mcp_tui"], module_dir),
        "zipapp (.pyz)": ([PY, pyz["mcp-tui.pyz"]], None),
        "console script": ([PY, script], None),
    }
    return ways, pyz["mcp-tui-source.pyz"], module_dir, snapshot


def find_sdk_python(given):
    candidates = [given, os.environ.get("MCP_TUI_PEER_SDK"),
                  os.path.join(ROOT, ".venv-peers", "sdk", "Scripts" if os.name == "nt" else "bin",
                               "python.exe" if os.name == "nt" else "python"),
                  "/tmp/v-sdk/bin/python"]
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            proc = subprocess.run([candidate, "-c", "import mcp"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
            if proc.returncode == 0:
                return candidate
    return None


# -- the measurement ---------------------------------------------------------------------------------


def build_cases(ways, source_pyz, sdk_python, http_url, transports):
    cases = [Case("start-up", "(a) python -c pass", [PY, "-c", "pass"], kind="a"),
             Case("start-up", "    python -S -c pass (no site)", [PY, "-S", "-c", "pass"])]
    if sdk_python:
        cases.append(Case("start-up", "    SDK interpreter: -c pass", [sdk_python, "-c", "pass"]))
    for label, (prefix, cwd) in ways.items():
        cases.append(Case("--help", "(c) " + label, prefix + ["--help"], "usage: mcp-tui", cwd, "c"))
    cases.append(Case("--help", "    zipapp without bytecode", [PY, source_pyz, "--help"], "usage: mcp-tui"))
    prefix, cwd = ways["python -m mcp_tui"]
    cases.append(Case("--help", "    python -S -m mcp_tui (no site)", [PY, "-S"] + prefix[1:] + ["--help"],
                      "usage: mcp-tui", cwd))
    stdio_server = [PY, TESTSERVER, "--page-ms", "0"] + CACHE_TTL
    for transport in transports:
        if transport == "http":
            connection, peer = ["--url", http_url], ["--url", http_url]
        else:
            connection, peer = [" ".join(shlex.quote(a) for a in stdio_server)], ["--stdio"] + stdio_server + ["--"]
        for op, (words, command, sdk_command, expect) in OPS.items():
            group = "%s  %s" % (transport, op)
            cases.append(Case(group, "(b) floor (stdlib)", [PY, FLOOR] + peer + [command], expect, kind="b"))
            for label, (prefix, cwd) in ways.items():
                cases.append(Case(group, "(c) " + label, prefix + connection + words, expect, cwd, "c"))
            if sdk_python:
                cases.append(Case(group, "(d) official SDK", [sdk_python, SDK_CLIENT] + peer + [sdk_command], expect,
                                  kind="d"))
    return cases


def measure(cases, runs, env):
    total = len(cases) * (runs + 1)
    done = 0
    for round_ in range(runs + 1):  # round 0 is the warm-up and is thrown away
        for case in cases:
            wall, cpu, _, _ = run_once(case.argv, case.expect, case.cwd, env)
            if round_:
                case.walls.append(wall)
                case.cpus.append(cpu)
            done += 1
        sys.stderr.write("\rbench: %d/%d runs" % (done, total))
        sys.stderr.flush()
    sys.stderr.write("\n")


def fmt(value, digits=1):
    return "-" if value is None else ("%.*f" % (digits, value))


def print_table(cases):
    print("%-44s %10s %10s %9s %9s" % ("", "median ms", "cpu ms", "c/b", "c/d"))
    groups = []
    for case in cases:
        if case.group not in groups:
            groups.append(case.group)
    for group in groups:
        members = [c for c in cases if c.group == group]
        floor = next((c.median() for c in members if c.kind == "b"), None)
        sdk = next((c.median() for c in members if c.kind == "d"), None)
        print("\n" + group)
        for case in members:
            vs_floor = case.median() / floor if floor and case.kind == "c" else None
            vs_sdk = case.median() / sdk if sdk and case.kind == "c" else None
            print("  %-42s %10s %10s %9s %9s" % (case.label, fmt(case.median()), fmt(case.cpu_median()),
                                                fmt(vs_floor, 2), fmt(vs_sdk, 2)))


def find(cases, group, label, cpu=False):
    for case in cases:
        if case.group == group and case.label == label:
            return case.cpu_median() if cpu else case.median()
    return None


WAYS = ("python -m mcp_tui", "console script", "zipapp (.pyz)", "python mcp_tui.py")


def verdict(value, target):
    return "ok" if value <= target else "MISSED"


def print_targets(cases, transports):
    print("\nTargets (issues 7 and 16), for each way to run mcp-tui: from the wall-time medians, and [from the "
          "CPU-time medians, steadier on a busy machine]")
    for way in WAYS:
        extra = find(cases, "--help", "(c) " + way) - find(cases, "start-up", "(a) python -c pass")
        cpu = find(cases, "--help", "(c) " + way, True)
        extra_cpu = cpu - find(cases, "start-up", "(a) python -c pass", True) if cpu is not None else None
        print("  --help minus python -c pass  %-18s %6.1f ms [%s ms]  (target <= %.0f ms) %s" % (
            way, extra, fmt(extra_cpu), TARGET_HELP_MS, verdict(extra, TARGET_HELP_MS)))
    for transport in transports:
        for op in OPS:
            group = "%s  %s" % (transport, op)
            floor, floor_cpu = find(cases, group, "(b) floor (stdlib)"), find(cases, group, "(b) floor (stdlib)", True)
            sdk, sdk_cpu = find(cases, group, "(d) official SDK"), find(cases, group, "(d) official SDK", True)
            for way in WAYS:
                value, cpu = find(cases, group, "(c) " + way), find(cases, group, "(c) " + way, True)
                ratio = value / floor
                text = "c/b %.2f [%s]" % (ratio, fmt(cpu / floor_cpu, 2) if cpu and floor_cpu else "-")
                if transport == "http" and op in TARGET_VS_FLOOR:
                    text += " (target <= %.1f) %-6s" % (TARGET_VS_FLOOR[op], verdict(ratio, TARGET_VS_FLOOR[op]))
                else:
                    text += " " * 23
                if sdk:
                    text += "   c/d %.2f [%s] (target <= %.2f) %s" % (
                        value / sdk, fmt(cpu / sdk_cpu, 2) if cpu and sdk_cpu else "-", TARGET_VS_SDK,
                        verdict(value / sdk, TARGET_VS_SDK))
                print("  %-22s %-18s %s" % (group, way, text))


# -- compile cost, import time, profile ------------------------------------------------------------------


def compile_cost(path, runs):
    code = ("import time, statistics\nsrc = open(%r, encoding='utf-8').read()\nts = []\n"
            "for _ in range(%d):\n    t = time.perf_counter(); compile(src, 'mcp_tui.py', 'exec')\n"
            "    ts.append(time.perf_counter() - t)\nprint(statistics.median(ts) * 1000)\n" % (path, runs))
    return float(subprocess.check_output([PY, "-c", code]).decode().strip())


IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def importtime(argv, cwd, env, repeat=7):
    """[(module, self us, cumulative us, depth)], each the median over `repeat` runs."""
    runs = []
    for _ in range(repeat):
        proc = subprocess.run([PY, "-X", "importtime"] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=cwd, env=env)
        rows = {}
        for line in proc.stderr.decode("utf-8", "replace").splitlines():
            match = IMPORT_LINE.match(line)
            if match:
                rows[match.group(4)] = (int(match.group(1)), int(match.group(2)), len(match.group(3)) // 2)
        runs.append(rows)
    result = []
    for name, (_, _, depth) in runs[0].items():
        samples = [r[name] for r in runs if name in r]
        result.append((name, statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples),
                       depth))
    return result


def print_importtime(title, rows, baseline, floor=None):
    """Modules beyond what `python -c pass` imports: the top ones by self time, the top-level
    imports by cumulative time, and any module that a command should not need."""
    base = set(name for name, _, _, _ in baseline)
    extra = [r for r in rows if r[0] not in base]
    total = sum(r[1] for r in extra) / 1000.0
    print("\n%s (medians of 7): %d modules beyond `python -c pass`, %.1f ms of import time (self, summed)" % (
        title, len(extra), total))
    tops = sorted((r for r in extra if r[3] == 0), key=lambda r: -r[2])[:10]
    print("  top-level imports by cumulative ms: " + ", ".join("%s %.1f" % (r[0], r[2] / 1000.0) for r in tops))
    heavy = sorted(extra, key=lambda r: -r[1])[:10]
    print("  heaviest modules by self ms:        " + ", ".join("%s %.1f" % (r[0], r[1] / 1000.0) for r in heavy))
    flagged = sorted(set((r[0], r[2]) for r in extra for u in UNWANTED if r[0] == u or r[0].startswith(u + ".")))
    print("  of the modules to watch (cumulative ms; ~0 is an import that failed at once): " +
          (", ".join("%s %.1f" % (name, us / 1000.0) for name, us in flagged) if flagged else "none"))
    if floor is not None:
        floor_names = set(name for name, _, _, _ in floor)
        beyond = [r for r in extra if r[0] not in floor_names]
        print("  beyond the floor client's imports: %.1f ms in %d modules: %s" % (
            sum(r[1] for r in beyond) / 1000.0, len(beyond),
            ", ".join("%s %.1f" % (r[0], r[1] / 1000.0) for r in sorted(beyond, key=lambda r: -r[1]))))
    site = [r for r in baseline if r[0] == "site"]
    return flagged, (site[0][2] / 1000.0 if site else None)


PROFILE_DRIVER = r"""
import cProfile, io, os, pstats, runpy, sys, threading
profiles = []
original_run = threading.Thread.run
def run(self):
    profile = cProfile.Profile()
    profiles.append(profile)
    profile.enable()
    try:
        original_run(self)
    finally:
        profile.disable()
threading.Thread.run = run
sys.argv = ["mcp_tui"] + sys.argv[1:]
main = cProfile.Profile()
main.enable()
try:
    runpy.run_module("mcp_tui", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
main.disable()
out = io.StringIO()
stats = pstats.Stats(main, stream=out)
stats.sort_stats("cumulative").print_stats(18)
merged = pstats.Stats(main, stream=out)
for profile in profiles:
    try:
        merged.add(profile)
    except TypeError:  # a thread that never ran a function
        pass
out.write("\n==== all threads (%d worker threads), by own time ====\n" % len(profiles))
merged.sort_stats("tottime").print_stats(14)
with open(os.environ["MCP_TUI_BENCH_PROFILE"], "w") as handle:
    handle.write(out.getvalue())
"""


def print_profile(module_dir, url, env, work):
    target = os.path.join(work, "profile.txt")
    subprocess.run([PY, "-c", PROFILE_DRIVER, "--url", url, "tool", "list"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=module_dir, env=dict(env, MCP_TUI_BENCH_PROFILE=target))
    with open(target) as handle:
        text = handle.read()
    keep = []
    for line in text.splitlines():
        if line.strip().startswith(("Ordered by", "List reduced")) or not line.strip():
            continue
        keep.append("  " + line.replace(module_dir + os.sep, "").replace(os.path.dirname(os.__file__) + os.sep, ""))
    print("\ncProfile of one `python -m mcp_tui --url URL tool list` (main thread, by cumulative time;"
          " profiling slows imports):")
    print("\n".join(keep))


COMPLETED_AT = re.compile(r'"status": ?"completed".*?"lastUpdatedAt": ?"([^"]+)"')


def rfc3339(text):
    """Seconds since the epoch of a UTC timestamp like 2026-11-30T05:50:18.365408468Z."""
    import calendar

    whole, _, fraction = text.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + float("0." + (fraction or "0"))


def wait_check(ways, env, as_is, seconds):
    """CPU burnt while --wait follows a long task, and how late after the server finished
    it the client has printed the result and exited (from the task's lastUpdatedAt, read in
    the --debug log, to the moment the process ended; same clock, same machine)."""
    pages = max(1, int(round(seconds)))
    server = start_http_server(["--page-ms", "1000", "--poll-ms", "1000"], as_is)
    try:
        prefix, cwd = ways["python -m mcp_tui"]
        print("\nWaiting costs nothing: render_report with %d pages x 1000 ms (pollIntervalMs 1000), "
              "python -m mcp_tui --debug, HTTP" % pages)
        _, idle_cpu, _, _ = run_once(prefix + ["--url", server.url, "--debug", "tool", "list"], "render_report",
                                     cwd, env)
        print("  (a `tool list` run for comparison: cpu %.3f s)" % (idle_cpu or 0.0))
        words = ["--url", server.url, "--debug", "tool", "call", "render_report", "quarter=Q4", "pages=%d" % pages,
                 "--task", "--wait"]
        for label, extra in (("auto (2026-07-28 extension, subscriptions/listen)", []),
                             ("--protocol-version 2025-11-25 (experimental tasks)",
                              ["--protocol-version", "2025-11-25"])):
            wall, cpu, ended, err = run_once(prefix + words + extra, "Q4 revenue", cwd, env,
                                             timeout=seconds + 60)
            found = COMPLETED_AT.search(err)
            late = "%.0f ms" % ((ended - rfc3339(found.group(1))) * 1000) if found else "n/a"
            print("  %-52s wall %6.2f s  cpu %.3f s (%.3f s more than `tool list`; target < 0.1 s)  "
                  "exited %s after the server completed the task" % (label, wall, cpu or 0.0,
                                                                     (cpu or 0.0) - (idle_cpu or 0.0), late))
    finally:
        server.stop()


def task_wait_cpu(ways, sdk_python, env, as_is, seconds):
    """{client label: CPU ms} of following one render_report task of `seconds` (12 pages) to
    its end with --wait, every client at once against one server (each child's own rusage,
    from os.wait4); 2026-07-28 with the tasks extension, pollIntervalMs 1000."""
    server = start_http_server(["--page-ms", str(int(seconds * 1000 / 12)), "--poll-ms", "1000"], as_is)
    argvs = {"floor": ([PY, FLOOR, "--url", server.url, "task"], None)}
    for label, (prefix, cwd) in ways.items():
        argvs[label] = (prefix + ["--url", server.url] + OPS["task --wait"][0], cwd)
    if sdk_python:
        argvs["official SDK"] = ([sdk_python, SDK_CLIENT, "--url", server.url, "task"], None)
    try:
        procs = {label: subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
                 for label, (argv, cwd) in argvs.items()}
        cpu = {}
        for label, proc in procs.items():
            out = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = status
            proc.stdout.close()
            if status != 0 or b"Q4 revenue" not in out:
                raise Failed("%s: the task --wait run failed (status %d)" % (label, status))
            cpu[label] = (usage.ru_utime + usage.ru_stime) * 1000
        return cpu
    finally:
        server.stop()


SUMMARY_COLUMNS = ("floor", "python -m mcp_tui", "console script", "zipapp (.pyz)", "python mcp_tui.py",
                   "official SDK")


def print_summary(cases, transports, big, wait_cpu):
    """The one table: each row a job, each column a client; ms of wall time (medians), or
    ms and peak MiB for the large result, or CPU ms for the long --wait."""
    labels = {"floor": "(b) floor (stdlib)", "official SDK": "(d) official SDK"}
    columns = [c for c in SUMMARY_COLUMNS if c != "official SDK" or any(case.kind == "d" for case in cases)]
    width = 24
    heads = {"python -m mcp_tui": "-m mcp_tui", "zipapp (.pyz)": "zipapp", "python mcp_tui.py": "mcp_tui.py (src)",
             "official SDK": "SDK"}
    print("\nSummary: median wall ms (x the floor) [CPU ms x the floor's: steadier on a busy machine]; "
          "20 MB rows also peak RSS MiB; the --wait row CPU ms")
    print("%-26s" % "" + "".join("%*s" % (width, heads.get(c, c)) for c in columns))
    rows, failures = [], []
    for transport in transports:
        for op in ("tool list", "warm tool call"):
            group = "%s  %s" % (transport, op)
            values = {c: find(cases, group, labels.get(c, "(c) " + c)) for c in columns}
            cpus = {c: find(cases, group, labels.get(c, "(c) " + c), True) for c in columns}
            rows.append(("%s %s" % (transport, op), values, cpus, None))
    for body, measured in (big or {}).items():
        by_label = {row.label: row for row in measured}
        values = {c: by_label[c].wall() * 1000 if c in by_label and not by_label[c].failed else None
                  for c in columns}
        peaks = {c: by_label[c].peak() / 1024.0 if c in by_label and not by_label[c].failed else None
                 for c in columns}
        cpus = {c: by_label[c].cpu() * 1000 if c in by_label and not by_label[c].failed else None
                for c in columns}
        rows.append(("http 20 MB result, %s" % body, values, cpus, peaks))
        failures.extend("%s %s: %s" % (body, row.label, row.failed) for row in measured if row.failed)
    for label, values, cpus, peaks in rows:
        floor, floor_cpu = values.get("floor"), cpus.get("floor")
        cells = []
        for column in columns:
            value = values.get(column)
            if value is None:
                cells.append("-")
                continue
            cell = "%.0f" % value if column == "floor" or not floor else "%.0f (%.2f)" % (value, value / floor)
            if column != "floor" and floor_cpu and cpus.get(column):
                cell += " [%.2f]" % (cpus[column] / floor_cpu)
            if peaks and peaks.get(column) is not None:
                cell += " %.0fM" % peaks[column]
            cells.append(cell)
        print("%-26s" % label + "".join("%*s" % (width, cell) for cell in cells))
    if wait_cpu:
        print("%-26s" % "http 10 s task --wait CPU" + "".join(
            "%*s" % (width, "%.0f" % wait_cpu[c] if c in wait_cpu else "-") for c in columns))
    for failure in failures:
        print("  (-) failed: " + failure)


# -- main ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="measured runs per case (default 15)")
    parser.add_argument("--quick", action="store_true", help="5 runs per case")
    parser.add_argument("--sdk-python", metavar="PATH", help="an interpreter with `mcp` installed")
    parser.add_argument("--transports", default="http,stdio", help="http,stdio (default both)")
    parser.add_argument("--server-as-is", action="store_true",
                        help="leave Nagle's algorithm on in the HTTP test server (adds ~40 ms per kept-alive "
                             "response after the first)")
    parser.add_argument("--no-profile", action="store_true", help="skip importtime and cProfile")
    parser.add_argument("--no-wait", action="store_true", help="skip the 10-second --wait CPU check")
    parser.add_argument("--wait-seconds", type=float, default=10.0)
    parser.add_argument("--no-payload", action="store_true", help="skip the 20 MB result rows")
    parser.add_argument("--mb", type=int, default=20, help="size of the large result (default 20)")
    options = parser.parse_args()
    runs = 5 if options.quick else max(1, options.runs)
    transports = [t for t in options.transports.split(",") if t]

    work = tempfile.mkdtemp(prefix="mcp-tui-bench-")
    env = dict(os.environ, MCP_TUI_STATE_DIR=os.path.join(work, "state"), PYTHONIOENCODING="utf-8")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    server = None
    try:
        ways, source_pyz, module_dir, snapshot = mcp_tui_ways(work, env)
        sdk_python = find_sdk_python(options.sdk_python)
        server = start_http_server(["--page-ms", "0"] + CACHE_TTL, options.server_as_is)
        load = os.getloadavg() if hasattr(os, "getloadavg") else None
        print("mcp-tui benchmark: %d runs per case, medians; %s" % (runs, time.strftime("%Y-%m-%d %H:%M")))
        print("interpreter  %s (Python %s, %s)" % (PY, platform.python_version(), platform.platform()))
        with open(snapshot, "rb") as handle:
            data = handle.read()
        print("mcp_tui.py   %d lines, %d bytes, sha256 %s (snapshot)" % (
            data.count(b"\n"), len(data), hashlib.sha256(data).hexdigest()[:12]))
        print("machine      %s CPUs, load average %s" % (os.cpu_count(), " ".join("%.2f" % x for x in load)
                                                          if load else "n/a"))
        print("SDK          %s" % (sdk_python or "not found: (d) skipped (pass --sdk-python or set "
                                   "MCP_TUI_PEER_SDK to an interpreter with `mcp` installed)"))
        print("HTTP server  %s (%s)" % (server.url, "as is, Nagle on" if options.server_as_is else "TCP_NODELAY"))
        print("cpu ms       user+sys of the client and the children it waited for (for stdio: the server too)")
        cases = build_cases(ways, source_pyz, sdk_python, server.url, transports)
        measure(cases, runs, env)
        print()
        print_table(cases)
        print_targets(cases, transports)

        script_help = find(cases, "--help", "(c) python mcp_tui.py")
        module_help = find(cases, "--help", "(c) python -m mcp_tui")
        zip_help = find(cases, "--help", "(c) zipapp (.pyz)")
        source_zip_help = find(cases, "--help", "    zipapp without bytecode")
        print("\nCompiling the file on every start (`python mcp_tui.py`, or a zipapp without bytecode):")
        print("  compile() of mcp_tui.py in-process, median of %d:         %6.1f ms" % (
            runs, compile_cost(snapshot, runs)))
        print("  --help: python mcp_tui.py - python -m mcp_tui:           %6.1f ms" % (script_help - module_help))
        print("  --help: zipapp without bytecode - zipapp with bytecode:  %6.1f ms" % (source_zip_help - zip_help))

        if not options.no_profile:
            baseline = importtime(["-c", "pass"], None, env)
            _, site_ms = print_importtime("-X importtime python -m mcp_tui --help",
                                          importtime(["-m", "mcp_tui", "--help"], module_dir, env), baseline)
            if "http" in transports:
                print_importtime("-X importtime python -m mcp_tui --url URL tool list",
                                 importtime(["-m", "mcp_tui", "--url", server.url, "tool", "list"], module_dir, env),
                                 baseline, importtime([FLOOR, "--url", server.url, "list"], None, env))
            if site_ms is not None:
                print("\n  (`python -c pass` itself spends %.1f ms importing site and what .pth files load)" % site_ms)
            if "http" in transports:
                print_profile(module_dir, server.url, env, work)
        if not options.no_wait:
            wait_check(ways, env, options.server_as_is, options.wait_seconds)
        big = wait_cpu = None
        summary_ways = {label: ways[label] for label in SUMMARY_COLUMNS if label in ways}
        if not options.no_payload and "http" in transports:
            import payload

            big = payload.big_result_rows(summary_ways, options.mb, runs, env, sdk_python)
        if not options.no_wait and "http" in transports:
            wait_cpu = task_wait_cpu(summary_ways, sdk_python, env, options.server_as_is, options.wait_seconds)
        print_summary(cases, transports, big, wait_cpu)
    except Failed as exc:
        sys.stderr.write("bench: a run failed:\n%s\n" % exc)
        return 1
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
