"""What Inspector users look for in the TUI: ping, the log level with a log pane and a
toast, the tasks screen's details. At 80x24, in a pseudo-terminal, in both eras."""
import pytest

from tui_helpers import ERAS, needs_pty, open_tool, server_command, tui  # noqa: F401 (tui: a fixture)

SMALL = {"columns": 80, "rows": 24}


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_ping_shows_the_round_trip_time(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    screen.send("p")
    screen.wait_for(lambda t: "Ping: " in screen.status_line() and "ms round trip" in screen.status_line(),
                    what="the ping's round trip time")


@needs_pty
@pytest.mark.parametrize("era", sorted(ERAS))
def test_log_level_brings_server_logs_as_a_toast_and_to_the_logs_tab(tui, era):
    screen = tui(server_command(), *ERAS[era], **SMALL)
    screen.wait_for("Tools (")
    screen.send("L")
    screen.wait_all("Log level", "emergency")
    screen.send("home", "enter")  # debug: everything
    screen.wait_for(lambda t: "Log level: debug" in screen.status_line(), what="the level set")
    open_tool(screen, "log_message")
    screen.send("right", "right", "tab")  # level: warning (from the default, info)
    screen.type("disk almost full")
    screen.send("ctrl-x")
    screen.wait_for(lambda t: "[warning] log_message: disk almost full" in screen.lines()[-2],
                    what="the toast over the key hints")
    screen.wait_for(lambda t: "Tool executed successfully." in screen.status_line(), what="the result's status kept")
    screen.send("f12", "3")
    screen.wait_all("Debug: Logs", "[warning] log_message: disk almost full")
