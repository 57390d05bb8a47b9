"""`tool call NAME --load`: many concurrent calls over one connection, reported as the
Inspector's --load reports them (requests, ok, toolErrors, errors, errorRate, elapsedMs,
throughput, latencyMs{min,mean,p50,p90,p99,max}), over stdio and HTTP in both eras."""
import json
import os
import shlex
import subprocess
import sys

import pytest

from conftest import MCP_TUI_PROCESS, ROOT, signalled, stdio_command, wait_for

KEYS = {"requests", "ok", "toolErrors", "errors", "errorRate", "elapsedMs", "throughput", "latencyMs",
        "errorMessages"}


def assert_latencies(latency):
    assert set(latency) == {"min", "mean", "p50", "p90", "p99", "max"}
    assert 0 < latency["min"] <= latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert latency["min"] <= latency["mean"] <= latency["max"]


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_load_over_stdio(cli, protocol):
    result = cli(stdio_command(), "tool", "call", "echo", "message=hi", "--load", "--load-requests", "60",
                 "--load-concurrency", "6", "--protocol-version", protocol, "--format", "json")
    assert result.code == 0, result
    report = result.json()
    assert set(report) == KEYS
    assert (report["requests"], report["ok"], report["toolErrors"], report["errors"]) == (60, 60, 0, 0)
    assert report["errorRate"] == 0 and report["throughput"] > 0 and report["elapsedMs"] > 0
    assert_latencies(report["latencyMs"])


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_load_over_http_in_text(cli, start_server, protocol):
    server = start_server()
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi", "--load", "--load-requests", "100",
                 "--protocol-version", protocol)
    assert result.code == 0, result
    lines = dict(line.split(None, 1) if not line.startswith(("tool errors", "error rate", "latency ms")) else
                 (line[:12].strip(), line[12:].strip()) for line in result.out.splitlines())
    assert lines["requests"] == "100" and lines["ok"] == "100" and lines["errors"] == "0", result.out
    assert lines["tool errors"] == "0" and lines["error rate"] == "0.00%"
    assert lines["throughput"].endswith("calls/s")
    assert all(key in lines["latency ms"] for key in ("min", "mean", "p50", "p90", "p99", "max"))


def test_tool_errors_are_counted_apart(cli):
    result = cli(stdio_command(), "tool", "call", "fail_tool", "--load", "--load-requests", "8", "--format", "json")
    assert result.code == 0, result
    report = result.json()
    assert (report["requests"], report["ok"], report["toolErrors"], report["errors"]) == (8, 0, 8, 0)
    assert report["errorRate"] == 1.0  # as the Inspector counts it: tool errors too
    strict = cli(stdio_command(), "tool", "call", "fail_tool", "--load", "--load-requests", "4", "--strict-errors")
    assert strict.code == 1, strict


def test_errors_fail_the_run_and_are_named(cli):
    server = " ".join(shlex.quote(str(word)) for word in (
        sys.executable, ROOT / "tests" / "badserver.py", "--mode", "result-and-error", "--on", "tools/call",
        "--times", "3"))
    result = cli(server, "tool", "call", "echo", "message=hi", "--load", "--load-requests", "10", "--format", "json")
    assert result.code == 1, result
    report = result.json()
    assert (report["requests"], report["ok"], report["errors"]) == (10, 7, 3)
    assert report["errorRate"] == 0.3
    assert report["errorMessages"] == [{"message": "the server broke the protocol answering tools/call: its "
                                                   "response has both result and error", "count": 3}]
    text = cli(server, "tool", "call", "echo", "message=hi", "--load", "--load-requests", "5")
    assert text.code == 1 and "errors seen:\n  3× the server broke the protocol" in text.out, text


def test_a_duration_bounds_the_run(cli):
    result = cli(stdio_command(), "tool", "call", "echo", "message=hi", "--load", "--load-duration", "0.5",
                 "--load-rate", "20", "--format", "json")
    assert result.code == 0, result
    report = result.json()
    assert 0 < report["requests"] == report["ok"] <= 10  # a call every 50 ms, none due at 500 ms or later


@pytest.mark.parametrize("words,message", [
    (["--load-requests", "5"], "--load-requests works with --load"),
    (["--load", "--load-concurrency", "0"], "--load-concurrency must be more than 0"),
    (["--load", "--load-requests", "-3"], "--load-requests"),
    (["--load", "--task"], "leave out --task"),
    (["--load", "--dry-run"], "leave out --dry-run"),
])
def test_load_usage_errors(cli, words, message):
    result = cli(stdio_command(), "tool", "call", "echo", "message=hi", *words)
    assert result.code == 2, result
    assert message in result.err, result


@pytest.mark.parametrize("bound", [["--load-requests", "200000"], ["--load-duration", "600"]])
def test_max_time_ends_a_load_and_reports_what_it_did(cli, bound):
    """`--load-requests 200000 --max-time 3` ran 49 s and made every call; `--load-duration 30
    --max-time 3` ran 30 s. The cap ends the load: the report of the calls made, then one line
    that says the cap ended it (exit 1, as every --max-time does)."""
    result = cli(stdio_command(), "tool", "call", "echo", "message=hi", "--load", *bound, "--max-time", "2",
                 "--format", "json", timeout=120)
    assert result.code == 1, result
    report = json.loads(result.out)
    assert 0 < report["requests"] < 200000 and report["requests"] == report["ok"] and report["errors"] == 0, report
    error = json.loads(result.err.splitlines()[-1])["error"]
    assert error["kind"] == "timeout" and error["exitCode"] == 1, error
    assert error["message"].startswith("the --max-time limit (2s) ended the load after %d calls"
                                       % report["requests"]), error


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_during_a_load_cancels_the_calls_in_flight(state_dir, tmp_path):
    """Ctrl+C stopped a load without a word to the server: the calls in flight ran on."""
    record = tmp_path / "record.jsonl"
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")

    def received(method):
        lines = record.read_text().splitlines() if record.exists() else []
        return [m for m in (json.loads(line).get("message") or {} for line in lines) if m.get("method") == method]

    returncode, out, err = signalled(MCP_TUI_PROCESS + [stdio_command("--record", record), "tool", "call",
                                                        "long_operation", "steps=1", "step_ms=60000", "--load",
                                                        "--load-concurrency", "3"], env,
                                     lambda: len(received("tools/call")) == 3, "SIGINT")
    assert returncode == 130, (out, err)
    calls = received("tools/call")
    cancelled = wait_for(lambda: len(received("notifications/cancelled")) == 3 and received("notifications/cancelled"))
    assert sorted(m["params"]["requestId"] for m in cancelled) == sorted(m["id"] for m in calls)


def test_load_memory_holds_one_large_answer_at_a_time(start_server, state_dir):
    """Answers of 60 MB at concurrency 10 peaked at 870 MB: each worker kept its last result
    while it waited for the next, and every answer in flight was held as bytes, text and
    result at once. Now answers past 1 MiB are read and parsed one at a time and no result is
    kept: 8 calls of a 34 MiB answer at once hold about two answers' worth (they held 150-330
    MB). Measured with tracemalloc in a process of its own: what mcp-tui holds, not what the
    C allocator keeps of what was freed (its arenas make RSS vary from run to run)."""
    server = start_server("--big-text", "34")
    size = 34 * 1024 * 1024
    measure = ("import sys, tracemalloc\n"
               "sys.path.insert(0, %r)\n"
               "import mcp_tui\n"
               "tracemalloc.start()\n"
               "code = mcp_tui.main(sys.argv[1:])\n"
               "sys.stderr.write('%%d %%d\\n' %% (code, tracemalloc.get_traced_memory()[1]))\n" % str(ROOT))
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir))
    measured = subprocess.run([sys.executable, "-c", measure, "--url", server.url, "tool", "call", "big_text", "--load",
                               "--load-requests", "8", "--load-concurrency", "8", "--format", "json"],
                              capture_output=True, text=True, timeout=120, env=env)
    code, peak = measured.stderr.splitlines()[-1].split()
    assert code == "0" and json.loads(measured.stdout)["ok"] == 8, measured
    assert int(peak) < 3 * size, "peak %d MB for 8 answers of %d MB at once" % (int(peak) // 2 ** 20, size // 2 ** 20)


def test_max_time_during_a_load_cancels_the_calls_in_flight_and_ends_the_session(cli, start_server):
    """--max-time cut the calls in flight without a word to the server (2025-11-25 HTTP: no
    notifications/cancelled, no DELETE): past the cap every exchange failed at once."""
    server = start_server("--record-http")
    result = cli("--url", server.url, "--protocol-version", "2025-11-25", "tool", "call", "long_operation",
                 "steps=1", "step_ms=60000", "--load", "--load-concurrency", "3", "--load-requests", "6",
                 "--max-time", "2", timeout=60)
    assert result.code == 1, result
    assert "cut 3 in flight" in result.err, result
    calls = [r["message"] for r in server.records() if r["message"].get("method") == "tools/call"]
    cancelled = wait_for(lambda: [r["message"] for r in server.records()
                                  if r["message"].get("method") == "notifications/cancelled"], timeout=10)
    assert sorted(m["params"]["requestId"] for m in cancelled) == sorted(m["id"] for m in calls), (cancelled, calls)
    assert len(server.http_requests("DELETE")) == 1, server.http_requests()
