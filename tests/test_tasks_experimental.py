"""Tasks in the 2025-11-25 experimental form: the same commands as the extension, against
the test server's legacy era (params.task, tasks/result, tasks/list, tasks/cancel)."""
import re

import pytest

from taskhelpers import SEED_SUPPORT_2025, STAMP, check_wait_output, created_task


@pytest.fixture
def server(start_server):
    return start_server("--page-ms", "200")


def legacy(server):
    return ["--url", server.url, "--protocol-version", "2025-11-25"]


def test_task_support_block(cli, server):
    result = cli(*legacy(server), "task", "support")
    assert result.code == 0, result
    assert result.out == SEED_SUPPORT_2025


def test_ttl_goes_in_params_task_and_the_ledger_keeps_the_era(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q3", "--task",
                               "--ttl", "60000"))
    calls = [r["message"] for r in server.records() if r["message"].get("method") == "tools/call"]
    assert calls[-1]["params"]["task"] == {"ttl": 60000}
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    lines = shown.out.splitlines()
    assert lines[0] == "Task:     %s" % task_id
    assert re.match(r"^Created:  %s$" % STAMP, lines[2])
    assert "TTL:      60000ms" in lines
    assert cli("--format", "json", "task", "get", task_id).json()["form"] == "2025-11-25"


def test_task_list_line_format(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q3", "pages=1000",
                               "--task"))  # still working when listed, however loaded the machine
    result = cli(*legacy(server), "task", "list")
    assert result.code == 0, result
    line = [l for l in result.out.splitlines() if task_id in l][0]
    assert re.match(r"^working         %s  updated %s  Rendering (render_report|page \d+ of 1000)$"
                    % (task_id, STAMP), line), line


def test_wait_uses_tasks_result(cli, start_server):
    server = start_server("--page-ms", "5")
    check_wait_output(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q4", "--task", "--wait"))
    assert [r for r in server.records() if r["message"].get("method") == "tasks/result"]


def test_elicitation_arrives_on_tasks_result(cli, server):
    result = cli(*legacy(server), "--elicit-stub", '{"name":"Luca"}', "tool", "call", "ask_name", "--task", "--wait")
    assert result.code == 0, result
    assert result.out == "Tool response:\nHello, Luca!\n"
    answers = [r["message"] for r in server.records() if "result" in r["message"]
               and r["message"]["result"].get("action") == "accept"]
    assert answers and "io.modelcontextprotocol/related-task" in answers[0]["result"]["_meta"]


def test_cancel_shows_the_cancelled_task(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q3", "pages=1000", "--task"))
    result = cli("task", "cancel", task_id)
    assert result.code == 0, result
    assert "Status:   cancelled — The task was cancelled by request." in result.out


def test_update_is_refused_with_the_reason(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "ask_name", "--task"))
    result = cli("task", "update", task_id, "--input-responses", "{}")
    assert result.code == 1
    assert "tasks/update is not available" in result.err


def test_required_tool_without_task_is_refused_before_sending(cli, server):
    result = cli(*legacy(server), "tool", "call", "render_report", "quarter=Q3")
    assert result.code == 2, result  # nothing was sent
    assert "runs only as a task" in result.err and "add --task" in result.err
    assert not [r for r in server.records() if r["message"].get("method") == "tools/call"]


def test_failed_task(cli, server):
    result = cli(*legacy(server), "tool", "call", "fail_report", "mode=error", "--task", "--wait")
    assert result.code == 1, result
    assert "-32603 Renderer crashed on page 7" in result.err


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("flags,bound", [(["--timeout", "2"], "--timeout"), (["--timeout", "60", "--max-time", "2"],
                                                                              "--max-time")],
                         ids=["timeout", "max-time"])
def test_a_wait_that_runs_out_names_the_flag_that_bounded_it(cli, server, era, flags, bound):
    """Without --max-time, the wait was said to end "within 2s (the --max-time cap)"."""
    result = cli("--url", server.url, "--protocol-version", era, *flags, "tool", "call", "render_report",
                 "quarter=Q2", "pages=1000", "--task", "--wait")
    assert result.code == 1, result
    line = result.err.splitlines()[-1]
    if "is still working" in line:  # else the cap came while a tasks/get was on its way, and says so
        assert "; stopped waiting at %s (raise %s for long tasks, or follow it later with `task result`)" % (
            bound, bound) in line, result
    other = "--max-time" if bound == "--timeout" else "--timeout"
    assert line.startswith("mcp-tui: ") and bound in line and other not in line, line
