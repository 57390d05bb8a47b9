"""Task follow-ups in a later run keep their promise: a 2025-11-25 HTTP task lives in its
session (the test server's --fidelity keeps tasks per session, as the everything server
does), so mcp-tui keeps that session and resumes it; a stdio task lives on in a background
session (section 9); a refusal marks the ledger entry instead of
erasing it."""
import json
import os
import re
import shlex
import signal
import subprocess
import time

import pytest

from conftest import MCP_TUI_PROCESS, stdio_command, wait_for
from taskhelpers import created_task


@pytest.fixture
def server(start_server):
    return start_server("--fidelity", "--verbose", "--page-ms", "100")


def legacy(server):
    return ["--url", server.url, "--protocol-version", "2025-11-25"]


def session_lines(server, word):
    return [line for line in server.stderr_lines if "HTTP session" in line and word in line]




def test_the_printed_commands_work_in_a_later_run_in_the_same_session(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=5", "--task"))
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    assert shown.out.startswith("Task:     %s\nStatus:   " % task_id)
    result = cli("task", "result", task_id)
    assert result.code == 0, result
    assert result.out == "Tool response:\nQ2 revenue: $4.6M across 1,310 orders\n"
    assert len(session_lines(server, "started")) == 1, server.stderr_lines  # resumed, never re-initialized
    assert len([r for r in server.records() if r["message"].get("method") == "initialize"]) == 1
    assert wait_for(lambda: session_lines(server, "deleted"))  # its last task ended: the session goes


def test_no_id_comes_twice_in_a_session_across_the_creating_command_and_its_follow_ups(cli, server):
    """Each follow-up resumes the session the task was created in; the spec forbids reusing an
    id in a session, so they go on above every id the session has seen (the ledger's mark)."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=2", "--task"))
    for _ in range(3):
        assert cli("task", "get", task_id).code == 0
    listed = cli("task", "list")
    assert listed.code == 0 and task_id in listed.out, listed
    assert cli("task", "result", task_id).code == 0
    requests = [record for record in server.records() if "id" in record["message"] and "method" in record["message"]]
    sessions = set(record["http"]["headers"].get("mcp-session-id") for record in requests) - {None}
    assert len(sessions) == 1, sessions  # one session (initialize's request has no id yet): every follow-up resumed it
    sent = [(record["message"]["id"], record["message"]["method"]) for record in requests]
    assert [method for _, method in sent].count("tasks/get") >= 3, sent
    ids = [request_id for request_id, _ in sent]
    assert len(ids) == len(set(ids)), sent


def test_a_finished_task_keeps_its_session_until_its_result_is_fetched(cli, server):
    """`task get` after the task ended must not end the session: `task result` still needs it."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1", "--task"))
    assert wait_for(lambda: "Status:   completed" in cli("task", "get", task_id).out)
    assert not session_lines(server, "deleted"), server.stderr_lines
    result = cli("task", "result", task_id)
    assert result.code == 0, result
    assert result.out == "Tool response:\nQ2 revenue: $4.6M across 1,310 orders\n"
    assert wait_for(lambda: session_lines(server, "deleted"))  # fetched: now the session goes


def test_the_session_stays_while_a_recorded_task_runs(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                               "--task"))
    assert cli("task", "get", task_id).code == 0
    assert not session_lines(server, "deleted"), server.stderr_lines  # the server logs it before answering
    echo = cli(*legacy(server), "tool", "call", "echo", "message=hi")  # an unrelated session ends as usual
    assert echo.code == 0, echo
    wait_for(lambda: len(session_lines(server, "deleted")) == 1)
    assert cli("task", "cancel", task_id).code == 0
    assert cli("task", "get", task_id).code == 0  # the cancelled task's outcome, shown: its session may go
    wait_for(lambda: len(session_lines(server, "deleted")) == 2)
    assert len(session_lines(server, "deleted")) == 2, server.stderr_lines


def test_a_cancelled_task_is_still_found_in_its_session(cli, server):
    """`task cancel` keeps the session the task lives in: a `task get` after it reads
    "cancelled", where it said the server no longer knew the session (mcp-tui had ended it)."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                               "--task"))
    cancelled = cli("task", "cancel", task_id)
    assert cancelled.code == 0 and cancelled.out.startswith("Task:     %s\nStatus:   cancelled" % task_id), cancelled
    assert not session_lines(server, "deleted"), server.stderr_lines
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    assert shown.out.startswith("Task:     %s\nStatus:   cancelled" % task_id), shown
    assert wait_for(lambda: session_lines(server, "deleted"))  # shown cancelled: its outcome, fetched
    again = cli("task", "get", task_id)
    assert again.code == 1, again
    assert again.err.endswith(" (the server kept it in an HTTP session, which ended once it was shown cancelled)\n")


def test_a_task_asked_for_after_its_session_ended_says_why(cli, server):
    """mcp-tui itself ended the session once the result was fetched: it says so, not that
    the server "no longer knows the session"."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1", "--task"))
    assert cli("task", "result", task_id).code == 0
    assert wait_for(lambda: session_lines(server, "deleted"))
    again = cli("task", "result", task_id)
    assert again.code == 1, again
    assert again.err.endswith(" (the server kept it in an HTTP session, which ended once its result was fetched)\n")
    assert "no longer knows the session" not in again.err, again
    assert again.err.splitlines()[-1].startswith("mcp-tui: unknown or expired task %s: " % task_id)  # as typed


def test_a_forgotten_session_is_explained_and_the_entry_marked_not_erased(cli, server, state_dir):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                               "--task"))
    ledger = state_dir / "tasks.json"
    data = json.loads(ledger.read_text())
    for entry in data.values():
        entry["session"]["id"] = "gone-" + entry["session"]["id"]
    ledger.write_text(json.dumps(data))
    for attempt in (1, 2):
        shown = cli("task", "get", task_id)
        assert shown.code == 1, shown
        assert "unknown or expired task" in shown.err and "marked in the task ledger" in shown.err, shown
        assert "no longer knows the session" in shown.err, shown
        assert "does not know this task" not in shown.err
        assert "unknown or expired task %s: " % task_id in shown.err  # as the user typed it


def test_cancelling_a_finished_task_says_it_already_completed(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=2",
                               "--task"))
    assert cli("task", "result", task_id).code == 0
    result = cli(*legacy(server), "task", "cancel", task_id)
    assert result.code == 1, result
    assert "is already completed; nothing to cancel" in result.err, result
    assert "unknown" not in result.err


def test_task_list_without_a_connection_asks_the_ledgers_sessions(cli, server):
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                               "--task"))
    listed = cli("task", "list")
    assert listed.code == 0, listed
    assert [line for line in listed.out.splitlines() if task_id in line and line.startswith("working ")], listed


def test_task_list_without_a_connection_passes_a_url_whose_query_was_not_kept(cli, server, start_server):
    """The ledger keeps no query values (a key may be one): such a server cannot be asked again
    without --url, so a bare `task list` lists the others and says so, where it failed (exit 2)."""
    kept_out = created_task(cli("--url", server.url + "?team=q-SECRET-7", "--protocol-version", "2025-11-25",
                                "tool", "call", "render_report", "quarter=Q1", "pages=1000", "--task"))
    other = start_server("--fidelity")
    listed_id = created_task(cli(*legacy(other), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                                 "--task"))
    listed = cli("task", "list")
    assert listed.code == 0, listed
    assert [line for line in listed.out.splitlines() if listed_id in line and line.startswith("working ")], listed
    assert kept_out not in listed.out and "q-SECRET-7" not in listed.out + listed.err, listed
    assert "warning: %s?team=q:" % server.url in listed.err, listed
    assert "the task ledger does not keep the URL's query values (pass --url again: mcp-tui --url URL task list)" \
        in listed.err, listed


def test_task_list_with_a_url_shows_the_tasks_of_the_sessions_recorded_there(cli, server, start_server):
    """The server lists a session's tasks in that session only: `task list --url` merges its
    own list with the ledger's sessions on that server (resumed), where it said "No tasks."."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1000",
                               "--task"))
    listed = cli(*legacy(server), "task", "list")
    assert listed.code == 0, listed
    assert [line for line in listed.out.splitlines() if task_id in line and line.startswith("working ")], listed
    assert "No tasks." not in listed.err and "warning" not in listed.err, listed
    other = start_server("--fidelity")  # another server: the ledger's sessions are not its own
    elsewhere = cli(*legacy(other), "task", "list")
    assert elsewhere.code == 0 and elsewhere.out == "" and "No tasks." in elsewhere.err, elsewhere


def test_task_list_says_nothing_of_a_stdio_task_session_that_ended_with_its_task(cli, state_dir):
    """An automatic stdio task session stops once its task's result was fetched: `task list`
    then neither asks it nor warns "no session named ..." (every time, as it did)."""
    task_id = created_task(cli(stdio_command(), "--protocol-version", "2025-11-25", "tool", "call", "render_report",
                               "quarter=Q2", "pages=1", "--task"))
    fetched = cli("task", "result", task_id)
    assert fetched.code == 0 and "Q2 revenue" in fetched.out, fetched
    sessions = state_dir / "sessions.json"
    wait_for(lambda: not sessions.exists() or "task-" not in sessions.read_text())  # the keeper stopped
    for _ in range(2):
        listed = cli("task", "list")
        assert "warning" not in listed.err and "no session named" not in listed.err, listed
        assert listed.out == "", listed


def test_task_list_with_an_empty_ledger_says_what_to_pass(cli):
    result = cli("task", "list")
    assert result.code == 2, result
    assert "task list needs a connection" in result.err and "--url" in result.err
    assert "does not know this task" not in result.err


def test_a_stdio_task_prints_commands_that_work_through_its_background_session(cli, state_dir):
    """A stdio task outlives its command in a background session (issue 12, tests/test_keeper.py)."""
    result = cli(stdio_command(), "tool", "call", "render_report", "quarter=Q2", "--task")
    assert result.code == 0, result
    task_id = created_task(result)
    assert "A background session keeps the server running" in result.err
    assert "Use --wait" not in result.err
    fetched = cli("task", "result", task_id)
    assert fetched.code == 0 and "Q2 revenue" in fetched.out, fetched


def test_the_seed_output_stays_for_2026_http(cli, start_server):
    server = start_server()
    created_task(cli("--url", server.url, "tool", "call", "render_report", "quarter=Q3", "--task"))


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("name,code", [("SIGINT", 130), ("SIGTERM", 143)])  # Ctrl+C, or a kill or `timeout`
def test_ctrl_c_during_wait_keeps_the_session_for_the_printed_command(cli, server, state_dir, name, code):
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + legacy(server) + [
        "tool", "call", "render_report", "quarter=Q1", "pages=1000", "--task", "--wait"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    try:
        wait_for(lambda: [r for r in server.records() if r["message"].get("method") == "tasks/result"])
        proc.send_signal(getattr(signal, name))
        err = proc.stderr.read()
        assert proc.wait(30) == code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    task_id = re.search(r"Task (\S+) created", err).group(1)
    assert "Stopped waiting; the task keeps running: mcp-tui task get %s" % task_id in err, err
    assert not session_lines(server, "deleted"), server.stderr_lines
    shown = cli("task", "get", task_id)
    assert shown.code == 0, shown
    assert shown.out.startswith("Task:     %s\nStatus:   working" % task_id)


def test_a_json_wait_that_stops_at_timeout_gives_the_follow_up_command(cli, server):
    """With --format json --quiet nothing else names the task: the error line carries the
    `task get` command (the error itself names the task by its fingerprint only)."""
    stopped = cli("--url", server.url, "--format", "json", "--quiet", "--timeout", "1",
                  "tool", "call", "render_report", "quarter=Q1", "pages=1000", "--task", "--wait")
    assert stopped.code == 1 and stopped.out == "", stopped
    document = json.loads(stopped.err)
    assert document["error"]["kind"] == "timeout", stopped.err
    assert re.match(r"^task task:\w{8} is still working", document["error"]["message"]), stopped.err
    (follow_up,) = document["warnings"]
    task_id = re.match(r"^Stopped waiting; the task keeps running: mcp-tui task get (\S+)$", follow_up).group(1)
    shown = cli("--format", "json", "task", "get", task_id)
    assert shown.code == 0 and shown.json()["task"]["taskId"] == task_id, shown


def test_task_list_says_nothing_of_a_2025_http_session_that_ended_with_its_tasks(cli, server):
    """Issue 32: once a task's result was fetched (or its cancel seen), mcp-tui ended its HTTP
    session; `task list` no longer resumes it, says "no longer knows the session" and starts an
    empty one each time: the entry is passed over quietly."""
    task_id = created_task(cli(*legacy(server), "tool", "call", "render_report", "quarter=Q2", "pages=1", "--task"))
    assert cli("task", "result", task_id).code == 0
    assert wait_for(lambda: session_lines(server, "deleted"))
    for listed in (cli("task", "list"), cli("task", "list"), cli(*legacy(server), "task", "list")):
        assert listed.code == 0, listed
        assert "no longer knows the session" not in listed.err and "warning" not in listed.err, listed
        assert listed.out == "" and "No tasks." in listed.err, listed
    assert len([r for r in server.records() if r["message"].get("method") == "initialize"]) == 2  # + the --url list


def test_a_task_the_ledger_could_not_record_gets_commands_that_name_the_server(cli, start_server, state_dir):
    """Issue 32: the Poll:/Result: lines left the connection to a ledger that had failed to
    record the task, and could not run."""
    (state_dir / "tasks.json").mkdir()  # the ledger cannot write its file
    server = start_server()  # tasks outlive a session here: a follow-up needs only the URL
    created = cli("--url", server.url, "tool", "call", "render_report", "quarter=Q2", "pages=1", "--task")
    assert created.code == 0, created
    assert "warning: cannot record the task in the ledger" in created.err, created
    poll = [line for line in created.out.splitlines() if line.startswith("Poll:")]
    assert poll and "--url %s" % server.url in poll[0], created
    words = shlex.split(poll[0][len("Poll:"):])[1:]  # what a user pastes, less the program's name
    (state_dir / "tasks.json").rmdir()  # (a ledger that still cannot be read is an error of its own)
    shown = cli(*words)
    assert shown.code == 0 and "Status:" in shown.out, shown


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
@pytest.mark.parametrize("name,code", [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("era", [[], ["--protocol-version", "2025-11-25"]], ids=["2026", "2025"])
def test_a_stopped_stdio_wait_does_not_say_use_wait(state_dir, record_file, name, code, era):
    """`--task --wait` over stdio stopped by Ctrl+C or SIGTERM said "Use --wait to follow it",
    though --wait was given: the task ends with the command, and the line says how to keep
    one that can be followed again."""
    env = dict(os.environ, MCP_TUI_STATE_DIR=str(state_dir), PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(MCP_TUI_PROCESS + [stdio_command("--record", record_file)] + era + [
        "tool", "call", "render_report", "quarter=Q1", "pages=1000", "--task", "--wait"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    try:
        def waiting():  # the task exists and mcp-tui follows it
            lines = record_file.read_text().splitlines() if record_file.exists() else []
            methods = [json.loads(line)["message"].get("method") for line in lines]
            return any(method in ("tasks/get", "tasks/result") for method in methods)

        wait_for(waiting, what="the wait for the task")
        proc.send_signal(getattr(signal, name))
        err = proc.stderr.read()
        assert proc.wait(30) == code, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Use --wait" not in err, err
    assert ("Stopped waiting. The task ends with this command: a stdio server stops when mcp-tui exits. To follow "
            "a stdio task again after a stop, start it with --task alone (a background session keeps its server), "
            "then `mcp-tui task result TASK-ID` waits for its result.") in err, err
