#!/usr/bin/env python3
"""A stand-in web browser for tests of mcp-tui's authorization: BROWSER="python3 tests/browser.py %s".

It fetches the URL and follows redirects, like `curl -s -L -o /dev/null URL`: the test server's
/authorize answers at once with a 302 to mcp-tui's loopback callback, so fetching it completes the
authorization. With $MCP_TUI_TEST_BROWSER_LOG set, it first appends the URL to that file (one
line per opening), so that a test can count how often a browser was opened. It prints nothing:
whatever it wrote would land in mcp-tui's stderr. Exit status 1 when the fetch failed.
"""
import os
import sys
import urllib.request


def main(argv):
    if len(argv) != 2:
        return 2
    log = os.environ.get("MCP_TUI_TEST_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as opened:
            opened.write(argv[1] + "\n")
    try:
        with urllib.request.urlopen(argv[1], timeout=30) as response:
            response.read()
    except (OSError, ValueError):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
