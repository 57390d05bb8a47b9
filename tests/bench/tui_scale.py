#!/usr/bin/env python3
"""The TUI at scale: what one key costs with 10,000 tools (alone, then with 20 servers in
the side pane), and whether a flood of 1,000 notifications a second leaves the loop free to
draw and read keys.

    python3 tests/bench/tui_scale.py [--tools 10000] [--servers 20] [--rate 1000] [--seconds 8]

It runs the TUI's own code (mcp_tui.Tui, its screens and widgets) in this process over a
window that draws nothing, so the figures are the TUI's work per key: handling the key and
building the whole frame (the terminal's own repaint is not included). Targets from issue
13: at most 16 ms per key with 10,000 tools; under the flood, every turn of the loop ends
within a frame or two and the debug log stays at its capacity, also while the debug
screen searches. From issue 35: with 20 servers in the list and 10,000 tools on the one
shown, every key still at most 16 ms at the median.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import mcp_tui  # noqa: E402


class NullWindow:
    """A curses window of 24x80 that keeps nothing."""

    def __init__(self, rows=24, columns=80):
        self.size = (rows, columns)

    def getmaxyx(self):
        return self.size

    def addstr(self, *args):
        pass

    def __getattr__(self, name):  # erase, noutrefresh, clear, clearok, keypad, timeout ...
        return lambda *args: None


class NullCurses:
    """What mcp_tui.Tui asks of the curses module, with nothing drawn."""

    error = Exception
    A_BOLD = A_DIM = A_REVERSE = A_UNDERLINE = 0

    def has_colors(self):
        return False

    def doupdate(self):
        pass


def make_app(log=None, size=(24, 80)):
    options = mcp_tui.build_parser().parse_args([])
    options.no_ledger = True
    return mcp_tui.Tui(options, None, NullWindow(*size), NullCurses(), log or mcp_tui.DebugLog(), (None, None))


def figures(name, samples, unit="keys"):
    samples = sorted(samples)
    p95 = samples[int(len(samples) * 0.95) - 1] if len(samples) >= 20 else samples[-1]
    print("  %-34s median %6.2f ms   p95 %6.2f ms   max %6.2f ms   (%d %s)" % (
        name, statistics.median(samples) * 1000, p95 * 1000, samples[-1] * 1000, len(samples), unit))
    return statistics.median(samples), p95


def timed_keys(app, screen, keys):
    samples = []
    for key in keys:
        started = time.perf_counter()
        screen.on_key(key)
        app.draw()
        samples.append(time.perf_counter() - started)
    return samples


def typed(app, keys):
    """Each key as the loop handles it (Tui.run): through the app's dispatch (its own keys,
    then the top screen's, then the keys every screen shares), the posted work, a frame."""
    samples = []
    for key in keys:
        started = time.perf_counter()
        app.dispatch(key)
        app.run_posted()
        app.draw()
        samples.append(time.perf_counter() - started)
    return samples


def by_kind(app, rounds, kinds):
    """``kinds``: (name, keys, or a function of the round giving them) in the order they are
    typed; typed ``rounds`` times over, each key's time counted under its kind."""
    samples = {name: [] for name, _ in kinds}
    for round_ in range(rounds):
        for name, keys in kinds:
            samples[name] += typed(app, keys(round_) if callable(keys) else keys)
    return samples


def bench_tools(count, rounds, servers=1, size=(24, 80)):
    print("%d tools, %dx%d%s:" % (count, size[1], size[0], ", %d servers in the side pane" % servers
                                  if servers > 1 else ""))
    app = make_app(size=size)
    home = mcp_tui.MainScreen(app)
    app.stack = [home]
    app.session = None
    app.connection_summary = lambda: "bench"
    for _ in range(servers - 1):  # the others: each with its own main screen, in the background
        other = app.add_server()
        other.stack = [mcp_tui.MainScreen(app)]
    mcp_tui.ToolScreen.tool_needs_a_task = lambda screen: False  # no session here: the bench times the form
    tools = [{"name": "tool_%05d" % n, "description": "Tool number %d, which does thing %d." % (n, n % 97),
              "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}} for n in range(count)]
    home.catalogs["tools"].entries = [mcp_tui.Entry("tool", tool) for tool in tools]
    app.draw()
    found = [figures("move (j, PgDn, End, Home)", timed_keys(app, home, ["j"] * 100 + ["PGDN"] * 50 + ["END", "HOME"]))]
    home.on_key("/")
    found.append(figures("filter (type 'tool_0', erase)", timed_keys(
        app, home, list("tool_0") + ["BACKSPACE"] * 6 + list("thing 42") + ["BACKSPACE"] * 8)))
    home.on_key("ENTER")
    found.append(figures("move in a filtered list", timed_keys(app, home, ["j"] * 100)))
    home.on_key("ESC")
    print("  each key through the app's key path (Tui.dispatch, posted work, frame), %d rounds:" % rounds)
    kinds = by_kind(app, rounds, [
        ("filter: / (a new filter)", ["/"]),
        ("filter: type a character", list("thing 42")),
        ("filter: Backspace", ["BACKSPACE"] * 8),
        ("filter: type a character", list("tool_042")),
        ("filter: Backspace", ["BACKSPACE"] * 8),
        ("filter: type a character", list("42")),
        ("filter: Enter (keep it)", ["ENTER"]),
        ("move (j/k, PgDn/PgUp)", ["j"] * 10 + ["PGDN"] * 3 + ["PGUP"] * 3 + ["k"] * 10),
        ("filter: Esc (clear it)", ["ESC"]),
        ("move (j/k, PgDn/PgUp)", ["j"] * 10 + ["PGDN"] * 3 + ["END", "HOME"]),
        ("switch tabs (1-3, Tab, Left)", ["2", "3", "1", "TAB", "TAB", "LEFT", "h"]),  # 4, the server, needs one
        ("move (j/k, PgDn/PgUp)", lambda round_: ["j"] * (round_ + 1)),  # a tool not opened before: a new form
        ("open a tool (Enter)", ["ENTER"]),
        ("back to the list (Esc)", ["ESC"])] + ([
        ("servers: S (into the pane, back)", ["S"]),
        ("servers: move in the pane (j/k)", ["j"] * 10 + ["k"] * 10),
        ("servers: S (into the pane, back)", ["S"]),
        ("servers: switch (Alt+2, Alt+1)", ["M-2", "M-1"])] if servers > 1 else []))
    for name, samples in kinds.items():
        found.append(figures(name, samples))
    median, p95 = max(m for m, _ in found), max(p for _, p in found)
    print("  target: at most 16 ms per key: %s; at the median: %s" % (
        "met" if p95 <= 0.016 else "NOT met (p95 %.1f ms)" % (p95 * 1000),
        "met" if median <= 0.016 else "NOT met (%.1f ms)" % (median * 1000)))


def bench_flood(rate, seconds, needle=""):
    print("%d notifications/s for %g s (server log messages and progress), debug screen open%s:" % (
        rate, seconds, ", searching for %r" % needle if needle else ""))
    log = mcp_tui.DebugLog()
    app = make_app(log)
    app.connection_summary = lambda: "bench"
    debug = mcp_tui.DebugScreen(app)
    debug.search.paste(needle)
    app.stack = [mcp_tui.MainScreen(app), debug]
    turns, sent, started = [], 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        due = int((time.perf_counter() - started) * rate)
        while sent < due:  # what the transport's reader thread does per message
            message = {"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "info", "logger": "flood", "data": "line %d" % sent}}
            log.message("in", message, "stdio")
            app.post(app.on_notification, message)
            sent += 1
        turn = time.perf_counter()
        app.run_posted()  # one turn of the loop: posted work, then a frame
        app.draw()
        turns.append(time.perf_counter() - turn)
        time.sleep(max(0.0, mcp_tui.TUI_TICK_MS / 1000.0 / 10))  # keys would be read here
    figures("loop turn (inbox + frame)", turns, "turns")
    print("  %d notifications sent, %d still queued at the end; debug log holds %d entries (capacity %d)" % (
        sent, app.inbox.queue.qsize(), len(log.select()), log.entries.maxlen))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tools", type=int, default=10000)
    parser.add_argument("--servers", type=int, default=20, help="servers in the side pane (120x40)")
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=8.0)  # long enough to fill the debug log
    parser.add_argument("--rounds", type=int, default=5, help="times the key-path sequence is typed")
    parser.add_argument("--no-flood", action="store_true", help="only the keys with many tools")
    options = parser.parse_args()
    bench_tools(options.tools, options.rounds)
    bench_tools(options.tools, options.rounds, options.servers, size=(40, 120))
    if options.no_flood:
        return
    bench_flood(options.rate, options.seconds)
    bench_flood(options.rate, options.seconds, needle="line 7")


if __name__ == "__main__":
    main()
