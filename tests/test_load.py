"""`tool call NAME --load`: many concurrent calls over one connection, reported as the
Inspector's --load reports them (requests, ok, toolErrors, errors, errorRate, elapsedMs,
throughput, latencyMs{min,mean,p50,p90,p99,max}), over stdio and HTTP in both eras."""
import shlex
import sys

import pytest

from conftest import ROOT, stdio_command

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
