"""The debug screen's Requests tab (issue 35, item 4): each request with its answer as one
row; Enter shows both, r sends it again with a fresh id and shows the new answer over the old,
e edits its params first, s saves rows as a --record file that `mcp-tui replay` reads; the
session's opening request is refused. y copies the selected entry."""
import json
import os
import re
import stat
import subprocess
import sys

from tui_helpers import MCP_TUI, needs_pty, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)

SIZE = {"columns": 120, "rows": 30}


def call_echo(screen, text):
    screen.wait_for("Tools (")
    open_tool(screen, "echo")
    screen.type(text)
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the call")
    screen.send("esc")
    screen.wait_for(lambda t: re.search(r"Tools \(\d+( of \d+)?\)", t) and "Tool: echo" not in screen.title_line(),
                    what="the main screen")


def requests_tab(screen, needle):
    """The debug screen's Requests tab, searched down to rows with ``needle``."""
    screen.send("D")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug:"), what="the debug screen")
    screen.send("6")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Requests"), what="the Requests tab")
    screen.send("/")
    screen.type(needle)
    screen.send("enter")


def replay(path, tmp_path):
    return subprocess.run([sys.executable, str(MCP_TUI), server_command(), "replay", str(path)], timeout=60,
                          capture_output=True, text=True, env=dict(os.environ, MCP_TUI_STATE_DIR=str(tmp_path)))


@needs_pty
def test_a_request_is_shown_sent_again_edited_and_saved_for_replay(tui, tmp_path):
    screen = tui(server_command(), cwd=tmp_path, **SIZE)
    call_echo(screen, "hi")
    requests_tab(screen, "echo")
    row = screen.wait_for(lambda t: re.search(r"→ tools/call echo +ok +[\d.]+ ms +\d+ B +#\d+", t),
                          what="the call's row")
    first_id = re.search(r"tools/call echo +ok .*#(\d+)", row).group(1)
    screen.send("enter")
    screen.wait_all("Request:", '"message": "hi"')
    screen.send("end")
    screen.wait_all("Answer:", '"result": {', '"text": "hi"')
    screen.send("q")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Requests"), what="back on the tab")

    screen.send("r")  # the same request again: the same answer, a new id
    screen.wait_all("tools/call echo sent again.", "The same answer as the first", "First answer (#%s)" % first_id)
    screen.send("q")
    rows = screen.wait_for(lambda t: len(re.findall(r"tools/call echo +ok", t)) == 2, what="two rows")
    ids = re.findall(r"tools/call echo +ok .*#(\d+)", rows)
    assert len(set(ids)) == 2, rows

    screen.send("e")  # its params in the text area: replaced by a paste, ^X sends them
    screen.wait_for(lambda t: "Edit: params of tools/call" in screen.title_line(), what="the params editor")
    screen.wait_for('"message": "hi"')
    screen.type("\x7f" * 1000)  # Backspace, past the start of the text
    screen.wait_for(lambda t: '"message": "hi"' not in t, what="the params erased")
    screen.paste('{"name": "echo", "arguments": {"message": "bye"}}')
    screen.send("ctrl-x")
    compared = screen.wait_all("sent again with edited params.", "Differences from the first answer:", "bye")
    assert re.search(r"- .*hi", compared) and re.search(r"\+ .*bye", compared), compared
    screen.send("q")
    screen.wait_for(lambda t: len(re.findall(r"tools/call echo +ok", t)) == 3, what="three rows")

    screen.send("s")  # nothing marked: every row
    saved = screen.wait_for(lambda t: "Saved " in screen.status_line(), what="saved")
    path = tmp_path / re.search(r"(mcp-tui-\d{8}-\d{6}(-\d+)?\.jsonl)", saved).group(1)
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o600
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert "recording" in lines[0]
    sent = [line["message"]["params"]["arguments"]["message"] for line in lines
            if line.get("direction") == "out" and line["message"].get("method") == "tools/call"]
    assert sent == ["hi", "hi", "bye"]
    replayed = replay(path, tmp_path)
    assert replayed.returncode == 0, replayed
    assert re.search(r"\d+ requests: \d+ same, 0 different", replayed.stdout + replayed.stderr), replayed


@needs_pty
def test_marked_rows_are_saved_alone_and_the_opening_request_is_not_sent_again(tui, tmp_path):
    screen = tui(server_command(), cwd=tmp_path, **SIZE)
    call_echo(screen, "one")
    requests_tab(screen, "discover")
    screen.wait_for(lambda t: re.search(r"→ server/discover +ok", t), what="the discover row")
    screen.send("r")
    screen.wait_for(lambda t: "server/discover is not sent again: it opens the session" in screen.status_line(),
                    what="the refusal")
    screen.send("/")
    screen.send(*["backspace"] * 8)
    screen.type("echo")
    screen.send("enter")
    screen.wait_for(lambda t: re.search(r"→ tools/call echo +ok", t) and "→ server/discover" not in t,
                    what="the call's row")
    screen.send("y")  # the whole row, on the clipboard
    screen.wait_for(lambda t: "The whole entry: copied" in screen.status_line(), what="copied")
    assert '"message": "one"' in screen.clipboard()
    screen.send(" ")
    screen.wait_for(lambda t: re.search(r"\*\d\d:\d\d:\d\d\S* → tools/call echo", t), what="the row marked")
    screen.send("s")
    saved = screen.wait_for(lambda t: "Saved 1 row to" in screen.status_line(), what="saved")
    path = tmp_path / re.search(r"(mcp-tui-\d{8}-\d{6}(-\d+)?\.jsonl)", saved).group(1)
    methods = [json.loads(line).get("message", {}).get("method") for line in path.read_text().splitlines()]
    assert methods == [None, "tools/call", None]  # the header, the request, its answer
    replayed = replay(path, tmp_path)
    assert replayed.returncode == 0, replayed
    assert "1 request: 1 same, 0 different" in replayed.stdout + replayed.stderr, replayed


@needs_pty
def test_the_debug_footer_holds_its_keys_at_80_columns(tui):
    screen = tui(server_command(), columns=80, rows=24)
    screen.wait_for("Tools (")
    screen.send("D")
    screen.wait_for(lambda t: screen.title_line().startswith(" Debug: Protocol"), what="the debug screen")
    screen.wait_for(lambda t: "y copy" in screen.lines()[-2] and "q back" in screen.lines()[-2], what="the hints")
    screen.send("6")
    screen.wait_for(lambda t: all(word in screen.lines()[-2] for word in ("r again", "e edit", "s save", "q back")),
                    what="the Requests tab's hints")
