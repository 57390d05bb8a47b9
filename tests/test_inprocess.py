"""The cli fixture's in-process runs (tests/inprocess.py) give what a process gives: the same
exit code and the same stdout and stderr text, byte for byte, for each way a run can end."""
import threading

import pytest

import inprocess
from conftest import stdio_command

SERVER = stdio_command()
RUNS = {
    "version": (["--version"], None),
    "version among options (argparse exits)": (["-q", "--version"], None),
    "help": (["--help"], None),
    "usage error": (["--no-such-option"], None),
    "usage error as JSON": (["--format", "json", "--max-pages", "0", "tool", "list"], None),
    "tool list": ([SERVER, "tool", "list"], None),
    "non-ASCII out and JSON": ([SERVER, "--format", "json", "tool", "call", "echo", "message=é ✓ \u202e"], None),
    "arguments on stdin": ([SERVER, "tool", "call", "echo", "--args-json", "-"], '{"message": "from stdin ✓"}'),
    "a server error": ([SERVER, "rpc", "nosuch/method"], None),
    "a server that is not there": (["--url", "http://127.0.0.1:9/mcp", "--timeout", "5", "tool", "list"], None),
}


@pytest.mark.parametrize("args,given", list(RUNS.values()), ids=list(RUNS))
def test_a_run_in_this_process_is_a_run_in_a_process(cli, args, given):
    here, there = cli(*args, input=given), cli(*args, input=given, process=True)
    assert (here.code, here.out, here.err) == (there.code, there.out, there.err)


def test_exit_codes_are_the_interpreters():
    assert [inprocess.exit_code(code, None) for code in (None, 0, 2, 130, 256 + 3)] == [0, 0, 2, 130, 3]


def test_a_thread_left_running_fails_the_test(monkeypatch):
    monkeypatch.setattr(inprocess, "LINGER", 0.2)
    leftovers = inprocess.Leftovers()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="left-behind", daemon=True)
    thread.start()
    try:
        with pytest.raises(AssertionError) as error:
            leftovers.check("the test")
        assert "the test left thread left-behind" in str(error.value)
    finally:
        stop.set()
        thread.join()
    leftovers.check("the test")  # nothing left now
