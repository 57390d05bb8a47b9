"""The floor: the least a Python client can do to get the same answers as mcp-tui.

    python floor_client.py --url URL COMMAND
    python floor_client.py --stdio PROGRAM [ARG ...] -- COMMAND

COMMAND is one of
    list    server/discover, tools/list                      (as `mcp-tui tool list`)
    echo    server/discover, tools/list, tools/call echo     (as `mcp-tui tool call echo message=hi`)
    task    server/discover, tools/list, tools/call render_report as a task (the
            io.modelcontextprotocol/tasks extension), then tasks/get until the task
            ends, sleeping its pollIntervalMs between polls   (as `... --task --wait`)

It speaks 2026-07-28 only (the test server does), sends the same headers as mcp-tui
(MCP-Protocol-Version, Mcp-Method, Mcp-Name), reuses one kept-alive HTTP connection,
and prints what it got on stdout. No argparse, no threads, no error handling beyond
exiting non-zero: this is a lower bound for the benchmark, not a client.
"""
import json
import sys

VERSION = "2026-07-28"
PREFIX = "io.modelcontextprotocol/"
TASKS = PREFIX + "tasks"
NAME_PARAM = {"tools/call": "name", "tasks/get": "taskId"}


def envelope(method, params, request_id, tasks=False):
    capabilities = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
    if tasks:
        capabilities["extensions"] = {TASKS: {}}
    params = dict(params)
    params["_meta"] = {PREFIX + "protocolVersion": VERSION, PREFIX + "clientCapabilities": capabilities,
                       PREFIX + "clientInfo": {"name": "floor", "version": "0"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


class Http(object):
    def __init__(self, url):
        import http.client
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.path = parts.path or "/"
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.next_id = 0

    def request(self, method, params, tasks=False):
        self.next_id += 1
        body = json.dumps(envelope(method, params, self.next_id, tasks)).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": VERSION, "Mcp-Method": method}
        if method in NAME_PARAM:
            headers["Mcp-Name"] = params[NAME_PARAM[method]]
        self.conn.request("POST", self.path, body=body, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        if response.getheader("Content-Type", "").startswith("text/event-stream"):
            # The response is the stream's last event, one data line (JSON has no raw newlines);
            # one slice, no split of the whole body (the floor for a large SSE body).
            payload = payload[payload.rindex(b"data:") + 5:]
        message = json.loads(payload)
        if "error" in message:
            sys.exit("error: %s" % message["error"])
        return message["result"]

    def close(self):
        self.conn.close()


class Stdio(object):
    def __init__(self, argv):
        import subprocess

        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.next_id = 0

    def request(self, method, params, tasks=False):
        self.next_id += 1
        self.proc.stdin.write(json.dumps(envelope(method, params, self.next_id, tasks)).encode("utf-8") + b"\n")
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("error: the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                break  # notifications and other traffic are skipped
        if "error" in message:
            sys.exit("error: %s" % message["error"])
        return message["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def write_content(result):
    for block in result.get("content", ()):
        sys.stdout.write(block.get("text", ""))
        sys.stdout.write("\n")
    return 0


def main(argv):
    if argv[:1] == ["--url"]:
        peer, command = Http(argv[1]), argv[2]
    elif argv[:1] == ["--stdio"] and "--" in argv:
        split = argv.index("--")
        peer, command = Stdio(argv[1:split]), argv[split + 1]
    else:
        sys.exit(__doc__)
    try:
        if command == "call":
            return write_content(peer.request("tools/call", {"name": "echo", "arguments": {"message": "hi"}}))
        peer.request("server/discover", {})
        if command == "big":
            return write_content(peer.request("tools/call", {"name": "big_text", "arguments": {}}))
        tools = peer.request("tools/list", {})["tools"]
        if command == "list":
            sys.stdout.write("".join("%s\n" % tool["name"] for tool in tools))
            return 0
        if command == "echo":
            result = peer.request("tools/call", {"name": "echo", "arguments": {"message": "hi"}})
        elif command == "task":
            import time

            result = peer.request("tools/call", {"name": "render_report", "arguments": {"quarter": "Q4"}}, True)
            if result.get("resultType") == "task":
                task = result
                while task["status"] in ("working", "input_required"):
                    time.sleep(task.get("pollIntervalMs", 100) / 1000.0)
                    task = peer.request("tasks/get", {"taskId": task["taskId"]}, True)
                if task["status"] != "completed":
                    sys.exit("error: task %s" % task["status"])
                result = task["result"]
        else:
            sys.exit("unknown command %r" % command)
        return write_content(result)
    finally:
        peer.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
