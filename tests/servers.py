"""A server process on loopback HTTP, for the tests and the benchmarks alike: it is ready
once its first stdout line says `listening on URL`; stop() ends it (terminate, then kill)."""
import os
import queue
import signal
import subprocess
import threading


class LoopbackServer(object):
    def __init__(self, argv, ready_timeout=60.0):  # a bound, not a wait: a fresh clone's first run builds
        # the interop peers (pip, npm) beside the tests, and a start there was seen to take over 20 s
        self.argv = [str(a) for a in argv]
        # PYTHONFAULTHANDLER: a start that never says it listens is asked (SIGABRT) where it stands
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     encoding="utf-8", env=dict(os.environ, PYTHONFAULTHANDLER="1"))
        self.stderr_lines = []
        self.stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self.stderr_reader.start()
        first = queue.Queue()
        threading.Thread(target=lambda: first.put(self.proc.stdout.readline()), daemon=True).start()
        try:
            line = first.get(timeout=ready_timeout)
        except queue.Empty:
            line = ""
        if not line.startswith("listening on "):
            where = self._where_it_stands()
            self.stop()
            raise RuntimeError("%s did not start (first line %r; %s): %s" % (
                " ".join(self.argv[1:3]), line, where, "".join(self.stderr_lines)[-4000:]))
        self.url = line.split("listening on ", 1)[1].strip()

    def _where_it_stands(self):
        """What a start that never said it listens was doing: its exit status, or its process state
        and (a Python server, on SIGABRT) its threads' stacks, which reach stderr_lines."""
        status = self.proc.poll()
        if status is not None:
            return "it exited with %s" % status
        try:
            with open("/proc/%d/status" % self.proc.pid) as info:
                state = next((l.split(":", 1)[1].strip() for l in info if l.startswith("State:")), "?")
        except OSError:
            state = "?"
        if hasattr(signal, "SIGABRT") and os.name == "posix":
            self.proc.send_signal(signal.SIGABRT)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
            else:
                self.stderr_reader.join(5)  # the stack dump's last lines
        return "it was still running, state %s; its stacks, if it is Python, follow" % state

    def _drain_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
