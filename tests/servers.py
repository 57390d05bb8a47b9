"""A server process on loopback HTTP, for the tests and the benchmarks alike: it is ready
once its first stdout line says `listening on URL`; stop() ends it (terminate, then kill)."""
import queue
import subprocess
import threading


class LoopbackServer(object):
    def __init__(self, argv, ready_timeout=60.0):  # a bound, not a wait: a fresh clone's first run builds
        # the interop peers (pip, npm) beside the tests, and a start there was seen to take over 20 s
        self.argv = [str(a) for a in argv]
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     encoding="utf-8")
        self.stderr_lines = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        first = queue.Queue()
        threading.Thread(target=lambda: first.put(self.proc.stdout.readline()), daemon=True).start()
        try:
            line = first.get(timeout=ready_timeout)
        except queue.Empty:
            line = ""
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError("%s did not start (first line %r): %s" % (
                " ".join(self.argv[1:3]), line, "".join(self.stderr_lines)[-2000:]))
        self.url = line.split("listening on ", 1)[1].strip()

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
