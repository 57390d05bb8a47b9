"""The curses TUI against servers mcp-tui did not write: the official Python SDK and
FastMCP peers, driven in a pseudo-terminal as a newcomer would (see tests/tui_helpers.py).
Each test skips when its peer is not installed, as the other interop tests do."""
import pytest

from tui_helpers import needs_pty, open_tool, tui  # noqa: F401 (tui: a fixture)

from .conftest import _start_peer
from .interop_helpers import SDK_SERVER

SMALL = {"columns": 80, "rows": 24}


@needs_pty
def test_an_sdk_http_server_that_stops_mid_session_is_described_in_words(tui, sdk_python, peer_log_dir):
    """uvicorn cuts the open listen stream mid-chunk when it stops; http.client's
    IncompleteRead must not reach the status line as "IncompleteRead(0 bytes read)"."""
    peer = _start_peer(sdk_python, SDK_SERVER, "streamable-http", "sdk-http-stops", peer_log_dir)
    try:
        screen = tui("--url", peer.url, **SMALL)
        screen.wait_for("Tools (5)")
        open_tool(screen, "echo")
        screen.type("kept")
        peer.stop()
        screen.wait_for(lambda t: screen.status_line().startswith("Disconnected: "), what="Disconnected")
        assert "IncompleteRead" not in screen.status_line()
        assert "[disconnected]" in screen.title_line() and "kept" in screen.text()
    finally:
        peer.stop()
