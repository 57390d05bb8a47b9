"""mcp-tui's CLI against FastMCP 4.1.4 + fastmcp-tasks 4.1.4: the
`io.modelcontextprotocol/tasks` extension on 2026-07-28.

Peer tools (see fastmcp_tasks_server.py): render_report (always a task), summarize
(optionally a task), echo (never a task), ask_name (a task that stops at
input_required), slow_job (slow, cancellable), fail_task (completes with isError),
broken_task (fails with a JSON-RPC error).

Flows that span several mcp-tui invocations (create, then `task get`/`result`/`cancel`)
use streamable HTTP: over stdio every invocation spawns a fresh server process, and the
peer keeps its tasks in memory. Single-invocation flows also run over stdio.
"""
import json
import re

import pytest

from .interop_helpers import describe, json_output, tool_response

MODERN = "2026-07-28"
CREATED_RE = re.compile(r"^Task (\S+) created: (\S+)(?: \u2014 (.*))?$", re.M)
TERMINAL = ("completed", "failed", "cancelled")

# The `task support` block of the seed page, line for line.
EXTENSION_SUPPORT = [
    "Tasks: io.modelcontextprotocol/tasks extension",
    "tools/call as a task: yes",
    "tasks/get:            yes",
    "tasks/result:         no",
    "tasks/list:           no",
    "tasks/cancel:         yes",
    "tasks/update:         yes",
]


@pytest.fixture
def http(fastmcp_http):
    """Connection arguments for the shared FastMCP peer over streamable HTTP (era: auto)."""
    return ["--url", fastmcp_http.url, "--timeout", "30"]


@pytest.fixture(params=["stdio", "http"])
def any_transport(request):
    if request.param == "stdio":
        # FastMCP imports slowly; keep the probe from timing out on a loaded machine
        # (the timeout-and-recover path is tested on its own below).
        return [request.getfixturevalue("fastmcp_stdio_cmd"), "--probe-timeout", "60", "--timeout", "30"]
    return ["--url", request.getfixturevalue("fastmcp_http").url, "--timeout", "30"]


def ok(result):
    assert result.returncode == 0, describe(result)
    return result


def start_task(run_cli, conn, tool, *arguments):
    """`tool call TOOL ARGS --task`; checks the three lines and returns (task id, status, message)."""
    result = ok(run_cli(*conn, "tool", "call", tool, *arguments, "--task"))
    match = CREATED_RE.search(result.stdout)
    assert match, describe(result)
    task_id = match.group(1)
    lines = result.stdout.splitlines()
    at = lines.index(match.group(0))
    assert re.match(r"^Poll:   mcp-tui\b.*\btask get (?:-- )?%s$" % re.escape(task_id), lines[at + 1]), describe(result)
    assert re.match(r"^Result: mcp-tui\b.*\btask result (?:-- )?%s$" % re.escape(task_id), lines[at + 2]), describe(result)
    return task_id, match.group(2), match.group(3)


def task_json(run_cli, conn, task_id):
    doc = json_output(ok(run_cli(*conn, "--format", "json", "task", "get", "--", task_id)))
    assert doc["form"] == "extension", doc
    assert doc["task"]["taskId"] == task_id, doc
    return doc["task"]


def poll_until(run_cli, conn, task_id, statuses, rounds=60):
    """`task get --format json` until the status is in `statuses` (each round is a real CLI run)."""
    task = None
    for _ in range(rounds):
        task = task_json(run_cli, conn, task_id)
        if task["status"] in statuses:
            return task
    pytest.fail("task %s never reached %s; last seen %s" % (task_id, statuses, task))


# --------------------------------------------------------------------------- discovery


def test_server_is_modern_with_the_tasks_extension(run_cli, any_transport):
    doc = json_output(ok(run_cli(*any_transport, "--format", "json", "server")))
    assert doc["protocolVersion"] == MODERN
    assert "io.modelcontextprotocol/tasks" in doc["capabilities"]["extensions"]


def test_task_support_block(run_cli, any_transport):
    result = ok(run_cli(*any_transport, "task", "support"))
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    for expected in EXTENSION_SUPPORT:
        assert expected in lines, "missing %r\n%s" % (expected, describe(result))


def test_tool_list(run_cli, http):
    result = ok(run_cli(*http, "tool", "list"))
    names = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    for tool in ("render_report", "summarize", "echo", "ask_name", "slow_job"):
        assert tool in names, describe(result)


def test_a_task_only_tool_is_described_as_the_server_deciding_per_call(run_cli, http):
    """Issue 32: 2026-07-28 tools carry no execution.taskSupport: render_report runs only as a task,
    and `tool describe` said "Task support: forbidden" for it."""
    result = ok(run_cli(*http, "tool", "describe", "render_report"))
    assert "\nTask support: the server decides per call\n" in result.stdout, describe(result)
    doc = json_output(ok(run_cli(*http, "--format", "json", "tool", "describe", "render_report")))
    assert doc["taskSupport"] == "per-call", doc


def test_a_diff_of_the_server_in_both_eras_is_additive(run_cli, http, tmp_path):
    """Issue 32: a 2025-11-25 snapshot against a 2026-07-28 one of the same server reported
    breaking changes (task support, the tasks capability) that only the era made; what the
    server offers differently in the two eras is still reported."""
    old, new = str(tmp_path / "old.json"), str(tmp_path / "new.json")
    ok(run_cli(*http, "--protocol-version", "2025-11-25", "snapshot", "-o", old))
    ok(run_cli(*http, "--protocol-version", "2026-07-28", "snapshot", "-o", new))
    result = run_cli("diff", old, new, "--format", "json")
    changes = json.loads(result.stdout)["changes"]
    era_only = [c for c in changes if c["class"] == "breaking" and (
        "taskSupport" in c["path"] or c["path"].startswith(("/capabilities/tasks", "/capabilities/extensions")))]
    assert era_only == [], result.stdout  # (FastMCP claims listChanged in one era only: a real difference)


# --------------------------------------------------------------------------- creating tasks


def test_always_task_tool_with_task_prints_the_three_lines(run_cli, http):
    task_id, status, _message = start_task(run_cli, http, "render_report", "quarter=Q3")
    assert status in ("working", "completed"), status
    assert len(task_id) >= 32  # fastmcp-tasks mints secrets.token_urlsafe(32)


def test_task_get_then_result(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "render_report", "quarter=Q3")
    shown = ok(run_cli(*http, "task", "get", "--", task_id))
    assert re.search(r"^Task:\s+%s$" % re.escape(task_id), shown.stdout, re.M), describe(shown)
    assert re.search(r"^Status:\s+(working|completed)\b", shown.stdout, re.M), describe(shown)
    assert re.search(r"^TTL:\s+900000ms$", shown.stdout, re.M), describe(shown)
    assert re.search(r"^Poll:\s+every 50ms$", shown.stdout, re.M), describe(shown)

    result = ok(run_cli(*http, "task", "result", "--", task_id))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Q3 revenue: $5.1M across 1,502 orders"], describe(result)


def test_task_get_json_has_the_extension_shape(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "render_report", "quarter=Q1")
    task = task_json(run_cli, http, task_id)
    assert task["status"] in ("working", "completed")
    assert task["ttlMs"] == 900000
    assert task["pollIntervalMs"] == 50
    assert task["createdAt"] and task["lastUpdatedAt"]
    done = poll_until(run_cli, http, task_id, TERMINAL)
    assert done["status"] == "completed"


def test_always_task_tool_task_wait_prints_the_result(run_cli, any_transport):
    result = ok(run_cli(*any_transport, "tool", "call", "render_report", "quarter=Q4", "--task", "--wait"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Q4 revenue: $5.1M across 1,502 orders"], describe(result)


def test_always_task_tool_without_task_fails_with_a_hint(run_cli, any_transport):
    result = run_cli(*any_transport, "tool", "call", "render_report", "quarter=Q3")
    assert result.returncode == 1, describe(result)
    assert "--task" in result.stderr, describe(result)
    assert "-32021" in result.stderr, describe(result)
    assert "Tool response:" not in result.stdout


def test_never_task_tool_answers_directly(run_cli, any_transport):
    result = ok(run_cli(*any_transport, "tool", "call", "echo", "message=hi", "--task"))
    assert "The server answered directly; no task was created." in result.stderr, describe(result)
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["hi"], describe(result)
    assert not CREATED_RE.search(result.stdout)


def test_optional_task_tool_direct_without_task(run_cli, http):
    result = ok(run_cli(*http, "tool", "call", "summarize", "text=one two three"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Summary: 3 words"], describe(result)
    assert not CREATED_RE.search(result.stdout)
    assert "no task was created" not in result.stderr  # nothing was asked for


def test_optional_task_tool_becomes_a_task_with_task(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "summarize", "text=a b")
    result = ok(run_cli(*http, "task", "result", "--", task_id))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Summary: 2 words"], describe(result)


# --------------------------------------------------------------------------- results and errors


def test_tool_error_inside_a_task_is_a_result(run_cli, any_transport):
    result = ok(run_cli(*any_transport, "tool", "call", "fail_task", "--task", "--wait"))
    body = tool_response(result.stdout, header="Error response from tool:")
    assert body is not None and "Deliberate tool failure inside a task" in "\n".join(body), describe(result)


def test_strict_errors_turns_a_task_tool_error_into_exit_1(run_cli, http):
    result = run_cli(*http, "tool", "call", "fail_task", "--task", "--wait", "--strict-errors")
    assert result.returncode == 1, describe(result)


def test_failed_task_exits_1_with_its_json_rpc_error(run_cli, any_transport):
    result = run_cli(*any_transport, "tool", "call", "broken_task", "--task", "--wait")
    assert result.returncode == 1, describe(result)
    assert "Deliberate protocol failure inside a task" in result.stderr, describe(result)


def test_unknown_task_id_fails(run_cli, http):
    result = run_cli(*http, "task", "get", "no-such-task-id")
    assert result.returncode == 1, describe(result)
    assert "-32602" in result.stderr or "not found" in result.stderr.lower(), describe(result)


# --------------------------------------------------------------------------- input_required


def test_input_required_shows_what_it_waits_on(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "ask_name")
    poll_until(run_cli, http, task_id, ("input_required",) + TERMINAL)
    shown = ok(run_cli(*http, "task", "get", "--", task_id))
    assert re.search(r"^Status:\s+input_required\b", shown.stdout, re.M), describe(shown)
    # fastmcp-tasks surfaces its own keys (<taskId>:<hex>), not the tool's "name".
    assert re.search(r"^Input:\s+\S+ \(elicitation/create\)$", shown.stdout, re.M), describe(shown)


def test_input_required_answered_by_task_result_with_elicit_stub(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "ask_name")
    result = ok(run_cli(*http, "--elicit-stub", '{"name": "Luca"}', "task", "result", "--", task_id))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Hello, Luca!"], describe(result)


def test_input_required_answered_by_hand_with_task_update(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "ask_name")
    poll_until(run_cli, http, task_id, ("input_required",) + TERMINAL)
    shown = ok(run_cli(*http, "task", "get", "--", task_id))
    match = re.search(r"^Input:\s+(\S+) \(elicitation/create\)$", shown.stdout, re.M)
    assert match, describe(shown)
    answers = {match.group(1): {"action": "accept", "content": {"name": "Manual"}}}
    ok(run_cli(*http, "task", "update", "--input-responses", json.dumps(answers), "--", task_id))  # IDs may start with -
    result = ok(run_cli(*http, "task", "result", "--", task_id))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Hello, Manual!"], describe(result)


def test_input_required_answered_during_task_wait(run_cli, any_transport):
    result = ok(run_cli(*any_transport, "--elicit-stub", '{"name": "Luca"}', "tool", "call", "ask_name", "--task", "--wait"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Hello, Luca!"], describe(result)


# --------------------------------------------------------------------------- cancel


def test_task_cancel(run_cli, http):
    task_id, _, _ = start_task(run_cli, http, "slow_job", "seconds:=30")
    result = ok(run_cli(*http, "task", "cancel", "--", task_id))
    lines = result.stdout.splitlines()
    expected = ("Cancellation requested for task %s. The server acknowledges it; the task may still finish." % task_id)
    assert expected in lines, describe(result)
    assert any(re.match(r"^Check: mcp-tui\b.*\btask get (?:-- )?%s$" % re.escape(task_id), line) for line in lines), describe(result)
    assert poll_until(run_cli, http, task_id, TERMINAL)["status"] == "cancelled"
    shown = ok(run_cli(*http, "task", "get", "--", task_id))
    assert re.search(r"^Status:\s+cancelled\b", shown.stdout, re.M), describe(shown)


def test_a_wait_that_times_out_names_the_task_even_with_quiet(run_cli, fastmcp_http):
    """--quiet hides the creation line, so the ID is given where the wait stops."""
    waited = run_cli("--url", fastmcp_http.url, "--timeout", "10", "--quiet", "tool", "call", "slow_job",
                     "seconds:=120", "--task", "--wait")
    assert waited.returncode == 1 and waited.stdout == "", describe(waited)
    first, last = waited.stderr.splitlines()
    # FastMCP's IDs are random and may start with "-", which the printed command guards with "--".
    match = re.match(r"^Stopped waiting; the task keeps running: mcp-tui task get (?:-- )?(\S+)$", first)
    assert match, describe(waited)
    assert re.match(r"^mcp-tui: task task:\w{8} is still working; stopped waiting at --timeout \(raise --timeout for "
                    r"long tasks, or follow it later with `task result`\)$", last), describe(waited)
    ok(run_cli("--url", fastmcp_http.url, "task", "cancel", "--", match.group(1)))


# --------------------------------------------------------------------------- a stdio probe that times out


def test_stdio_probe_timeout_then_refused_initialize_respawns_modern(run_cli, fastmcp_stdio_cmd):
    """FastMCP 4.1.4 locks a stdio process to the era of its first request. When the
    discover probe times out, mcp-tui's `initialize` on that process is refused with
    -32022; it must respawn and use 2026-07-28, which the late DiscoverResult revealed."""
    result = ok(run_cli(fastmcp_stdio_cmd, "--probe-timeout", "0.01", "--timeout", "30",
                        "tool", "call", "render_report", "quarter=Q2", "--task", "--wait"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["Q2 revenue: $5.1M across 1,502 orders"], describe(result)


# --------------------------------------------------------------------------- the legacy era


def test_legacy_era_plain_call(run_cli, fastmcp_http):
    result = ok(run_cli("--url", fastmcp_http.url, "--protocol-version", "2025-11-25", "tool", "call", "echo", "message=hi"))
    body = tool_response(result.stdout)
    assert body is not None and body[:1] == ["hi"], describe(result)


def test_legacy_era_refuses_task_calls(run_cli, fastmcp_http):
    # fastmcp-tasks serves tasks only on 2026-07-28: on 2025-11-25 the server declares
    # no `tasks` capability, so mcp-tui refuses before sending anything.
    result = run_cli("--url", fastmcp_http.url, "--protocol-version", "2025-11-25",
                     "tool", "call", "render_report", "--task")
    assert result.returncode != 0, describe(result)
    assert not CREATED_RE.search(result.stdout), describe(result)


def test_complete_without_the_completions_capability_sends_nothing(run_cli, http):
    """FastMCP declares no completions here: mcp-tui says so instead of sending."""
    result = run_cli(*http, "complete", "prompt", "any", "arg=x")
    assert result.returncode == 2, describe(result)
    assert "does not offer completions (no completions capability); nothing was sent" in result.stderr


def test_forcing_2025_11_25_on_an_extension_only_server_names_the_extension(run_cli, http):
    result = run_cli(*http, "--protocol-version", "2025-11-25", "tool", "call", "render_report", "--task")
    assert result.returncode == 1, describe(result)
    assert "declared no task support" in result.stderr
    assert "2026-07-28 io.modelcontextprotocol/tasks extension" in result.stderr, describe(result)


def test_a_task_only_tool_where_tasks_are_off_is_not_sent_round_in_circles(run_cli, any_transport):
    """FastMCP lists render_report with taskSupport required under 2025-11-25 but declares no
    tasks there: the plain call said "add --task", and --task then said "no task support"."""
    result = run_cli(*any_transport, "--protocol-version", "2025-11-25", "tool", "call", "render_report",
                     "quarter=Q4")
    assert result.returncode == 2, describe(result)
    assert ("mcp-tui: tool 'render_report' cannot be called here: it runs only as a task, and the server declared "
            "no task support for tools/call; nothing was sent") in result.stderr, describe(result)
    assert "add --task" not in result.stderr
    assert "drop --protocol-version" in result.stderr


# --------------------------------------------------------------------------- watch


def test_watch_on_a_server_that_announces_nothing_to_listen_for_waits(run_cli, http):
    """FastMCP announces no listChanged under 2026-07-28 and answers subscriptions/listen
    -32601: the watch sends none, says so, and ends with --for (issue 22, item 3)."""
    result = run_cli(*http, "watch", "--for", "1")
    assert result.returncode == 0, describe(result)
    assert "announces nothing to listen for" in result.stderr, describe(result)
    assert "Method not found" not in result.stderr, describe(result)


def test_structured_content_that_only_wraps_the_text_is_printed_once(run_cli, http):
    """FastMCP wraps a str return as {"result": "hi"} beside the text "hi" (issue 22, item 8)."""
    result = ok(run_cli(*http, "tool", "call", "echo", "message=hi"))
    assert result.stdout == "Tool response:\nhi\n", describe(result)
