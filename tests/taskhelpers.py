"""Shared pieces of the task tests (both forms run the same seed-page examples)."""
import os
import re
import stat

SEED_SUPPORT_EXTENSION = """\
Tasks: io.modelcontextprotocol/tasks extension
tools/call as a task: yes
tasks/get:            yes
tasks/result:         no
tasks/list:           no
tasks/cancel:         yes
tasks/update:         yes
"""

SEED_SUPPORT_2025 = """\
Tasks: 2025-11-25 experimental tasks
tools/call as a task: yes
tasks/get:            yes
tasks/result:         yes
tasks/list:           yes
tasks/cancel:         yes
tasks/update:         no
"""

CREATED = re.compile(r"^Task (report-\d{4}-\d+) created: (\w+) — (.*)\nPoll:   mcp-tui task get \1\n"
                     r"Result: mcp-tui task result \1\n$")
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def created_task(result):
    """The task ID from `tool call ... --task`, after checking the seed's three lines."""
    assert result.code == 0, result
    match = CREATED.match(result.out)
    assert match, result.out
    return match.group(1)


def check_wait_output(result, quarter_text="Q4 revenue: $5.1M across 1,502 orders"):
    assert result.code == 0, result
    lines = result.err.splitlines()
    assert lines[:3] == ["🛠️  Preparing to call tool 'render_report'...", "📝 Parsing arguments...",
                         "🚀 Calling tool as a task..."], result.err
    match = re.match(r"^⏳ Task (report-\d{4}-\d+) created; waiting for it to finish\.\.\.$", lines[3])
    assert match, result.err
    task_id = match.group(1)
    assert "⏳ task %s: completed" % task_id in lines
    assert lines[-2:] == ["✅ Tool executed successfully", ""], result.err
    assert result.out == "Tool response:\n%s\n" % quarter_text
    return task_id


def check_ledger(state_dir, task_id):
    ledger = state_dir / "tasks.json"
    assert ledger.exists()
    if os.name != "nt":
        assert stat.S_IMODE(ledger.stat().st_mode) == 0o600
    assert task_id not in ledger.read_text()
