"""Tasks under the io.modelcontextprotocol/tasks extension (2026-07-28): the seed page's
examples, word for word, against the test server over HTTP."""
import re

import pytest

from taskhelpers import (SEED_SUPPORT_EXTENSION, STAMP, check_ledger, check_wait_output, created_task)


@pytest.fixture
def server(start_server):
    return start_server("--page-ms", "200")


def test_task_support_prints_the_seed_block(cli, server):
    result = cli("--url", server.url, "task", "support")
    assert result.code == 0, result
    assert result.out == SEED_SUPPORT_EXTENSION


def test_start_then_follow_a_task_from_the_ledger(cli, server, state_dir):
    # 1000 pages: still working at `task get` however loaded the machine (12 pages took 2.4 s, and a
    # loaded run found it completed)
    task_id = created_task(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "pages=1000",
                               "--task"))
    assert "created: working — Rendering render_report" in cli("--url", server.url, "tool", "call",
                                                              "render_report", "quarter=Q1", "--task").out
    check_ledger(state_dir, task_id)
    shown = cli("task", "get", task_id)  # no connection flags: the ledger knows it
    assert shown.code == 0, shown
    lines = shown.out.splitlines()
    assert lines[0] == "Task:     %s" % task_id
    assert re.match(r"^Status:   working — Rendering (render_report|page \d+ of 1000)$", lines[1]), lines
    assert re.match(r"^Created:  %s$" % STAMP, lines[2]) and re.match(r"^Updated:  %s$" % STAMP, lines[3])
    assert lines[4:] == ["TTL:      3600000ms", "Poll:     every 5ms"]
    records = server.records()
    gets = [r for r in records if r["message"].get("method") == "tasks/get"]
    assert gets and gets[-1]["http"]["headers"]["mcp-name"] == task_id
    meta = gets[-1]["message"]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "io.modelcontextprotocol/tasks" in meta["extensions"]


def test_task_get_json_has_one_shape(cli, server):
    task_id = created_task(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "--task"))
    document = cli("--format", "json", "task", "get", task_id).json()
    assert document["form"] == "extension"
    task = document["task"]
    assert list(task) == ["taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs",
                          "pollIntervalMs"]
    assert task["taskId"] == task_id and task["ttlMs"] == 3600000 and task["pollIntervalMs"] == 5


def test_wait_prints_the_seed_lines(cli, start_server):
    server = start_server("--page-ms", "5")
    check_wait_output(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q4", "--task", "--wait"))
    listens = [r["message"] for r in server.records() if r["message"].get("method") == "subscriptions/listen"]
    assert listens and listens[0]["params"]["notifications"]["taskIds"]


def test_plain_call_of_a_task_only_tool_fails_with_a_hint(cli, server):
    result = cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3")
    assert result.code == 1, result
    assert "-32021" in result.err and "add --task" in result.err
    calls = [r["message"] for r in server.records() if r["message"].get("method") == "tools/call"]
    caps = calls[0]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "extensions" not in caps  # a plain call never declares the extension


def test_direct_answer_under_the_extension(cli, server):
    result = cli("--url", server.url, "tool", "call", "echo", "message=hi", "--task")
    assert result.code == 0, result
    assert result.out == "Tool response:\nhi\n"
    assert "The server answered directly; no task was created." in result.err


def test_input_required_then_task_result_answers_with_the_stub(cli, server):
    task_id = created_task(cli("--url", server.url, "tool", "call", "ask_name", "--task"))
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    if "input_required" not in shown.out:  # the task may still be on its way there
        shown = cli("task", "get", task_id)
    assert "Status:   input_required — Please enter your name." in shown.out
    assert "Input:    name (elicitation/create)" in shown.out
    assert ("Answer:   mcp-tui task result %s (answers with the --elicit-stub/--sampling-stub handlers)"
            % task_id) in shown.out
    result = cli("--elicit-stub", '{"name":"Luca"}', "task", "result", task_id)
    assert result.code == 0, result
    assert result.out == "Tool response:\nHello, Luca!\n"
    updates = [r["message"] for r in server.records() if r["message"].get("method") == "tasks/update"]
    assert len(updates) == 1  # each key answered once
    assert updates[0]["params"]["inputResponses"] == {"name": {"action": "accept", "content": {"name": "Luca"}}}


def test_task_update_by_hand(cli, server):
    task_id = created_task(cli("--url", server.url, "tool", "call", "ask_name", "--task"))
    for _ in range(50):
        if "input_required" in cli("task", "get", task_id).out:
            break
    answer = '{"name":{"action":"accept","content":{"name":"Luca"}}}'
    updated = cli("task", "update", task_id, "--input-responses", answer)
    assert updated.code == 0, updated
    result = cli("task", "result", task_id)
    assert result.code == 0 and "Hello, Luca!" in result.out, result


def test_cancel_prints_the_seed_lines(cli, server):
    task_id = created_task(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "pages=1000",
                               "--task"))
    result = cli("task", "cancel", task_id)
    assert result.code == 0, result
    assert result.out == ("Cancellation requested for task %s. The server acknowledges it; the task may still "
                          "finish.\nCheck: mcp-tui task get %s\n" % (task_id, task_id))
    for _ in range(50):
        shown = cli("task", "get", task_id)
        if "cancelled" in shown.out:
            break
    assert "Status:   cancelled" in shown.out


def test_failed_task_exits_1_with_its_error(cli, server):
    result = cli("--url", server.url, "tool", "call", "fail_report", "mode=error", "--task", "--wait")
    assert result.code == 1, result
    assert "failed: -32603 Renderer crashed on page 7" in result.err


def test_tool_error_in_a_task_is_a_result(cli, server):
    result = cli("--url", server.url, "tool", "call", "fail_report", "mode=tool_error", "--task", "--wait")
    assert result.code == 0, result
    assert result.out == "Error response from tool:\nReport has no data for that quarter\n"
    strict = cli("--url", server.url, "tool", "call", "fail_report", "mode=tool_error", "--task", "--wait",
                 "--strict-errors")
    assert strict.code == 1


def test_sampling_inside_a_task(cli, server):
    result = cli("--url", server.url, "--sampling-stub", '{"text":"Paris"}', "tool", "call", "ask_model", "--task",
                 "--wait")
    assert result.code == 0, result
    assert "The model said: Paris" in result.out


def test_expired_and_unknown_tasks(cli, server):
    task_id = created_task(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "pages=1000",
                               "ttl_ms=300", "--task"))
    waited = cli("task", "result", task_id)
    assert waited.code == 1, waited
    assert "TTL" in waited.err or "expired" in waited.err
    unknown = cli("--url", server.url, "task", "get", "report-9999-1")
    assert unknown.code == 1
    # the ID as the user typed it: a fingerprint of their own input only puzzled (issue 22); the debug log
    # still names it by its fingerprint
    assert unknown.err.startswith("mcp-tui: unknown or expired task report-9999-1"), unknown
    failed = cli("--url", server.url, "tool", "call", "fail_report", "mode=error", "--task", "--wait")
    assert "failed: -32603" in failed.err and not re.search(r"report-\d{4}-\d+", failed.err.splitlines()[-1])


def test_task_list_is_refused_with_the_reason(cli, server):
    result = cli("--url", server.url, "task", "list")
    assert result.code == 1
    assert "tasks/list is not available" in result.err and "no tasks/list" in result.err
    assert not [r for r in server.records() if r["message"].get("method") == "tasks/list"]


def test_no_task_support_refuses_before_sending(cli, start_server):
    server = start_server("--no-tasks")
    support = cli("--url", server.url, "task", "support")
    assert support.code == 0 and support.out.startswith("Tasks: none"), support
    result = cli("--url", server.url, "task", "get", "report-0001-1")
    assert result.code == 1
    assert "declared no task support; nothing was sent" in result.err
    called = cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "--task")
    assert called.code == 1
    assert not [r for r in server.records() if r["message"].get("method", "").startswith(("tasks/", "tools/call"))]


def test_stdio_task_round_trip(cli, record_file):
    from conftest import stdio_command

    server = stdio_command("--record", record_file, "--page-ms", "5")
    check_wait_output(cli(server, "tool", "call", "render_report", "quarter=Q4", "--task", "--wait"))


def test_a_stdio_wait_that_times_out_does_not_offer_a_later_follow_up(cli):
    """A stdio server stops with the command: no later `task result` can follow the task."""
    from conftest import stdio_command

    result = cli(stdio_command("--page-ms", "200"), "--timeout", "5", "--quiet", "tool", "call", "render_report",
                 "quarter=Q3", "pages=1000", "--task", "--wait")
    assert result.code == 1 and result.out == "", result
    assert re.match(r"^mcp-tui: task task:\w{8} is still working; stopped waiting at --timeout \(raise --timeout for "
                    r"long tasks; no later command can follow this task\)\n$", result.err), result
