#!/usr/bin/env python3
"""faultyserver: a small, correct MCP server (stdio) with one planted fault, for
`mcp-tui check`'s tests. Standard library only, Python 3.8+.

    python3 tests/faultyserver.py [--fault NAME] [--era VERSION] [--tools-file FILE]

Without --fault (or with --fault none) it breaks no rule `check` knows. Its tools: echo(message)
and weather(city), whose outputSchema asks for {"temperature": number}; its resources: a text
note and a PNG blob; its prompt: greet (no arguments). It claims tools.listChanged and
resources.subscribe. --era 2025-11-25 (the default) speaks the handshake era and answers
server/discover with -32601; --era 2026-07-28 answers server/discover and subscriptions/listen
(acknowledged, then held open) and refuses initialize; --era both speaks either, whichever the
client opens with (server/discover lists both versions). --tools-file FILE lists the tools in FILE
(a JSON list) instead of its own, for tests that mutate a tools/list result. --results-file FILE
(a JSON object, method -> result) answers those methods with those results, verbatim; its
"capabilities" object is added to the declared ones (e.g. completions, tasks.list).
"""

import argparse
import json
import sys
import time

LEGACY, MODERN = "2025-11-25", "2026-07-28"
LIST_FLAGS = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}

FAULTS = {
    "none": "no fault at all",
    "no-jsonrpc": 'the tools/list response has no "jsonrpc" field',
    "unoffered-version": "initialize answers with protocol version 2099-01-01, which no client offered",
    "input-schema-not-object": 'echo\'s inputSchema is {"type": "string"}',
    "duplicate-tools": "two tools are named echo",
    "structured-content": "weather's structuredContent breaks its outputSchema (a string temperature)",
    "endless-cursor": "tools/list always answers with the same nextCursor",
    "unknown-tool-success": "a call of a tool that does not exist is answered as a success",
    "no-ping": "ping is never answered (2026-07-28, which has no ping: server/discover, after the first)",
    "missing-method": "prompts is declared, and prompts/list says -32601",
    "uri-without-scheme": "a resource's URI is notes.txt, without a scheme",
    "stdout-logs": "log lines on stdout before each response",
    "notification-with-id": "a notifications/message carrying an id, sent before the tools/list response",
    "blob-not-base64": "the PNG resource's blob is not base64",
    "unportable-schema": "echo's inputSchema has anyOf at its top level (a warning, not an error)",
    "subscribe-missing": "resources.subscribe is declared, and resources/subscribe and unsubscribe say -32601 "
                         "(2026-07-28: the listen acknowledgement leaves resourceSubscriptions out)",
    "subscribe-unclaimed": "resources.subscribe is not declared, and subscriptions are taken all the same "
                           "(a warning)",
    "list-changed-undeclared": "no prompts capability, and prompt list changes announced all the same "
                               "(2025-11-25: notifications/prompts/list_changed; 2026-07-28: promptsListChanged "
                               "acknowledged)",
    "list-changed-unclaimed": "prompts declared without listChanged, and its list changes announced all the same "
                              "(a warning)",
    "list-changed-not-boolean": 'tools.listChanged is "yes"',
    "handshake-refused": "initialize (and server/discover) answered with -32603, so no session opens",
    "stray-response": "a response to id 9999, which no client sent, before the tools/list response",
    "undeclared-served": "no resources capability, and resources/list answered all the same",
    "annotations-not-boolean": 'weather\'s readOnlyHint is "yes"',
    "template-without-scheme": "a resource template notes/{name}, without a scheme",
    "set-level-refused": "logging is declared, and logging/setLevel says -32603",
    "task-support-incoherent": "echo's taskSupport is optional, and no task support is declared",
    "schema-invalid": 'weather\'s inputSchema says "type": "strng" for city and "required": "city"',
    "nested-type-list": 'echo\'s message property has "type": ["string", "null"] (a warning, not an error)',
    "duplicate-prompt-args": "the prompt greet lists its argument name twice",
    "request-before-initialized": "roots/list is sent before the initialize response (a warning, not an error)",
    "listen-missing": "2026-07-28: tools.listChanged is claimed, and subscriptions/listen says -32601",
    "task-reopened": "a task-only tool job (tasks declared): tasks/get says its task is completed, and once its "
                     "result was taken (2025-11-25: tasks/result; 2026-07-28: the first completed tasks/get) working",
    "task-result-working": "2025-11-25: the task-only tool job's tasks/get always says working, and tasks/result "
                           "gives its result all the same",
    "ref-nowhere": 'echo\'s inputSchema has {"$ref": "#/$defs/nowhere"} for message',
    "ref-cycle": 'echo\'s inputSchema has $defs a -> b -> a, and message is {"$ref": "#/$defs/a"}',
    "structured-content-ref": 'weather\'s outputSchema says temperature is {"$ref": "#/$defs/reading"}, a string '
                              "under $defs (as pydantic writes nested models), and weather returns 21.5",
}
TASK_FAULTS = ("task-reopened", "task-result-working")
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
JOB = {"name": "job", "description": "A long job, run only as a task.",
       "inputSchema": {"type": "object", "properties": {}}, "execution": {"taskSupport": "required"}}

TOOLS = [
    {"name": "echo", "description": "Echo a message.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}},
    {"name": "weather", "description": "The temperature in a city.", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
     "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}},
                      "required": ["temperature"]}},
]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


class Server:
    def __init__(self, fault, tools=None, era=LEGACY, results=None):
        self.fault = fault
        self.tools = TOOLS if tools is None else tools
        self.both = era == "both"  # either era, the one the client opens with
        self.era = MODERN if self.both else era
        self.results = dict(results or {})
        self.added_capabilities = self.results.pop("capabilities", {})
        if fault in TASK_FAULTS:
            self.added_capabilities = dict(self.added_capabilities, **(
                {"extensions": {TASKS_EXTENSION: {}}} if self.era == MODERN
                else {"tasks": {"requests": {"tools": {"call": {}}}}}))
        self.tasks = {}  # taskId -> whether its result was taken
        self.discovered = False  # whether server/discover was answered once

    def capabilities(self):
        resources = {} if self.fault == "subscribe-unclaimed" else {"subscribe": True}
        capabilities = {"tools": {"listChanged": "yes" if self.fault == "list-changed-not-boolean" else True},
                        "resources": resources, "prompts": {}}
        if self.fault == "list-changed-undeclared":
            del capabilities["prompts"]
        if self.fault == "undeclared-served":
            del capabilities["resources"]
        if self.fault == "set-level-refused":
            capabilities["logging"] = {}
        capabilities.update(self.added_capabilities)
        return capabilities

    def announces(self):
        """The capability whose list changes are announced, though they are not claimed."""
        return "prompts" if self.fault in ("list-changed-undeclared", "list-changed-unclaimed") else None

    def send(self, message):
        if self.fault == "stdout-logs":
            sys.stdout.write("INFO handling a request\n")
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def answer(self, request_id, result):
        if self.era == MODERN:
            result = dict(result, resultType="complete")
        message = {"jsonrpc": "2.0", "id": request_id, "result": result}
        self.send(message)
        return message

    def refuse(self, request_id, code, text):
        self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})

    def handle(self, message):
        method, request_id, params = message.get("method"), message.get("id"), message.get("params") or {}
        if request_id is None or method is None:
            return
        if self.both and method in ("initialize", "server/discover"):
            self.era = LEGACY if method == "initialize" else MODERN  # a notification, or the client's answer to one sent with an id: nothing to answer
        if method in self.results:
            return self.send({"jsonrpc": "2.0", "id": request_id, "result": self.results[method]})
        handler = getattr(self, "m_" + str(method).replace("/", "_"), None)
        if handler is None:
            return self.refuse(request_id, -32601, "Method not found: %s" % method)
        return handler(request_id, params)

    def m_initialize(self, request_id, params):
        if self.fault == "handshake-refused":
            return self.refuse(request_id, -32603, "Internal error: the database is down")
        if self.fault == "request-before-initialized":
            self.send({"jsonrpc": "2.0", "id": "early-1", "method": "roots/list"})
        if self.era == MODERN:
            return self.refuse(request_id, -32601, "Method not found: initialize")
        version = "2099-01-01" if self.fault == "unoffered-version" else LEGACY
        self.answer(request_id, {"protocolVersion": version, "capabilities": self.capabilities(),
                                 "serverInfo": {"name": "faultyserver", "version": "1.0"}})

    def m_server_discover(self, request_id, params):
        if self.fault == "handshake-refused":
            return self.refuse(request_id, -32603, "Internal error: the database is down")
        if self.era != MODERN:
            return self.refuse(request_id, -32601, "Method not found: server/discover")
        if self.fault == "no-ping" and self.discovered:
            return  # the handshake's was answered; the ones after it (check's sign of life) are not
        self.discovered = True
        version = "2099-01-01" if self.fault == "unoffered-version" else MODERN
        versions = [version, LEGACY] if self.both else [version]
        self.answer(request_id, {"supportedVersions": versions, "capabilities": self.capabilities(),
                                 "ttlMs": 0, "cacheScope": "private",
                                 "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "faultyserver",
                                                                                   "version": "1.0"}}})

    def m_subscriptions_listen(self, request_id, params):
        """The acknowledgement of what is claimed; the listen then stays open (no result)."""
        if self.era != MODERN or self.fault == "listen-missing":
            return self.refuse(request_id, -32601, "Method not found: subscriptions/listen")
        wanted = params.get("notifications") or {}
        capabilities = self.capabilities()
        accepted = {}
        for capability, flag in LIST_FLAGS.items():
            if wanted.get(flag) is True and ((capabilities.get(capability) or {}).get("listChanged")
                                             or capability == self.announces()):
                accepted[flag] = True
        subscribe = capabilities["resources"].get("subscribe") or self.fault == "subscribe-unclaimed"
        if wanted.get("resourceSubscriptions") and subscribe and self.fault != "subscribe-missing":
            accepted["resourceSubscriptions"] = list(wanted["resourceSubscriptions"])
        self.send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                   "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": request_id},
                              "notifications": accepted}})

    def m_resources_subscribe(self, request_id, params):
        if self.era == MODERN or self.fault == "subscribe-missing":
            return self.refuse(request_id, -32601, "Method not found: resources/subscribe")
        self.answer(request_id, {})

    def m_resources_unsubscribe(self, request_id, params):
        if self.era == MODERN or self.fault == "subscribe-missing":
            return self.refuse(request_id, -32601, "Method not found: resources/unsubscribe")
        self.answer(request_id, {})

    def m_ping(self, request_id, params):
        if self.fault != "no-ping":
            self.answer(request_id, {})

    def m_tools_list(self, request_id, params):
        tools = [dict(tool) for tool in self.tools]
        if self.fault == "input-schema-not-object":
            tools[0]["inputSchema"] = {"type": "string"}
        if self.fault == "unportable-schema":
            tools[0]["inputSchema"] = dict(tools[0]["inputSchema"], anyOf=[{"required": ["message"]}])
        if self.fault == "schema-invalid":
            tools[1]["inputSchema"] = {"type": "object", "properties": {"city": {"type": "strng"}}, "required": "city"}
        if self.fault == "nested-type-list":
            tools[0]["inputSchema"] = {"type": "object", "properties": {"message": {"type": ["string", "null"]}}}
        if self.fault == "annotations-not-boolean":
            tools[1]["annotations"] = {"readOnlyHint": "yes"}
        if self.fault == "task-support-incoherent":
            tools[0]["execution"] = {"taskSupport": "optional"}
        if self.fault == "stray-response":
            self.send({"jsonrpc": "2.0", "id": 9999, "result": {}})
        if self.fault == "duplicate-tools":
            tools.append(dict(TOOLS[0], description="Echo a message, again."))
        if self.fault in ("ref-nowhere", "ref-cycle"):
            tools[0]["inputSchema"] = {"type": "object", "properties": {"message": {"$ref": "#/$defs/a"}},
                                       "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
            if self.fault == "ref-nowhere":
                tools[0]["inputSchema"] = {"type": "object", "properties": {"message": {"$ref": "#/$defs/nowhere"}},
                                           "$defs": {"text": {"type": "string"}}}
        if self.fault == "structured-content-ref":
            tools[1] = dict(tools[1], outputSchema={"type": "object", "properties": {"temperature": {
                "$ref": "#/$defs/reading"}}, "required": ["temperature"], "$defs": {"reading": {"type": "string"}}})
        if self.fault in TASK_FAULTS:
            tools.append(dict(JOB) if self.era == LEGACY else {k: v for k, v in JOB.items() if k != "execution"})
        result = {"tools": tools}
        if self.fault == "endless-cursor":
            result["nextCursor"] = "page-2"
        if self.fault == "notification-with-id":
            self.send({"jsonrpc": "2.0", "id": 900, "method": "notifications/message",
                       "params": {"level": "info", "data": "listing tools"}})
        if self.announces() and self.era == LEGACY:
            self.send({"jsonrpc": "2.0", "method": "notifications/%s/list_changed" % self.announces()})
        if self.fault == "no-jsonrpc":
            self.send({"id": request_id, "result": result})
            return
        self.answer(request_id, result)

    def m_tools_call(self, request_id, params):
        name, arguments = params.get("name"), params.get("arguments") or {}
        if name == "echo":
            return self.answer(request_id, {"content": [{"type": "text", "text": str(arguments.get("message"))}]})
        if name == "weather":
            temperature = "hot" if self.fault == "structured-content" else 21.5
            return self.answer(request_id, {"content": [{"type": "text", "text": json.dumps(
                {"temperature": temperature})}], "structuredContent": {"temperature": temperature}})
        if name == "job" and self.fault in TASK_FAULTS:
            return self.start_task(request_id, params)
        if self.fault == "unknown-tool-success":
            return self.answer(request_id, {"content": [{"type": "text", "text": "done"}]})
        self.refuse(request_id, -32602, "Unknown tool: %s" % name)

    def start_task(self, request_id, params):
        """job runs only as a task: a plain call is refused (2026-07-28: -32021), a task call
        answered with a working task."""
        meta = params.get("_meta") or {}
        declared = ((meta.get("io.modelcontextprotocol/clientCapabilities") or {}).get("extensions") or {})
        if self.era == MODERN and TASKS_EXTENSION not in declared:
            return self.send({"jsonrpc": "2.0", "id": request_id, "error": {
                "code": -32021, "message": "job runs only as a task",
                "data": {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}}})
        task_id = "task-%d" % (len(self.tasks) + 1)
        self.tasks[task_id] = False
        view = self.task_view(task_id, "working")
        if self.era == MODERN:
            return self.send({"jsonrpc": "2.0", "id": request_id, "result": dict(view, resultType="task")})
        self.answer(request_id, {"task": view})

    def task_view(self, task_id, status):
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        view = {"taskId": task_id, "status": status, "createdAt": now, "lastUpdatedAt": now}
        if self.era == MODERN:
            view.update(ttlMs=60000, pollIntervalMs=10)
            if status == "completed":
                view["result"] = {"content": [{"type": "text", "text": "job done"}]}
        else:
            view.update(ttl=60000, pollInterval=10)
        return view

    def m_tasks_get(self, request_id, params):
        task_id = params.get("taskId")
        if task_id not in self.tasks:
            return self.refuse(request_id, -32602, "Task not found")
        taken = self.tasks[task_id]
        status = "working" if taken or self.fault == "task-result-working" else "completed"
        if self.era == MODERN and status == "completed":
            self.tasks[task_id] = True  # the result went out with this answer
        self.answer(request_id, self.task_view(task_id, status))

    def m_tasks_result(self, request_id, params):
        task_id = params.get("taskId")
        if self.era == MODERN or task_id not in self.tasks:
            return self.refuse(request_id, -32602 if task_id not in self.tasks else -32601, "no such task")
        self.tasks[task_id] = True
        self.answer(request_id, {"content": [{"type": "text", "text": "job done"}]})

    def m_resources_list(self, request_id, params):
        note = "notes.txt" if self.fault == "uri-without-scheme" else "file:///notes.txt"
        self.answer(request_id, {"resources": [{"uri": note, "name": "notes", "mimeType": "text/plain"},
                                               {"uri": "file:///logo.png", "name": "logo", "mimeType": "image/png"}]})

    def m_resources_templates_list(self, request_id, params):
        template = "notes/{name}" if self.fault == "template-without-scheme" else "file:///notes/{name}"
        self.answer(request_id, {"resourceTemplates": [{"uriTemplate": template, "name": "a note"}]})

    def m_resources_read(self, request_id, params):
        uri = params.get("uri")
        if uri == "file:///logo.png":
            blob = "this is not base64!" if self.fault == "blob-not-base64" else PNG
            return self.answer(request_id, {"contents": [{"uri": uri, "mimeType": "image/png", "blob": blob}]})
        self.answer(request_id, {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "a note"}]})

    def m_prompts_list(self, request_id, params):
        if self.fault == "missing-method" or "prompts" not in self.capabilities():
            return self.refuse(request_id, -32601, "Method not found: prompts/list")
        prompt = {"name": "greet", "description": "Say hello."}
        if self.fault == "duplicate-prompt-args":
            prompt["arguments"] = [{"name": "name", "required": False}, {"name": "name", "required": False}]
        self.answer(request_id, {"prompts": [prompt]})

    def m_logging_setLevel(self, request_id, params):
        if self.fault == "set-level-refused":
            return self.refuse(request_id, -32603, "Internal error: no logger")
        self.answer(request_id, {})

    def m_prompts_get(self, request_id, params):
        self.answer(request_id, {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello!"}}]})


def meet(directory, count):
    """--rendezvous: leave a file in ``directory``, then wait until ``count`` are there."""
    import os

    open(os.path.join(directory, "server-%d" % os.getpid()), "w").close()
    deadline = time.time() + 60
    while len(os.listdir(directory)) < count and time.time() < deadline:
        time.sleep(0.02)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fault", choices=sorted(FAULTS), default="none")
    parser.add_argument("--era", choices=(LEGACY, MODERN, "both"), default=LEGACY)
    parser.add_argument("--tools-file", help="list the tools in this JSON file instead")
    parser.add_argument("--results-file", help="answer the methods in this JSON object with its results")
    parser.add_argument("--rendezvous", nargs=2, metavar=("DIR", "N"),
                        help="answer nothing until N servers given this DIR have started (each leaves a file in "
                             "it; 60 s at most): servers started one after another never get there")
    args = parser.parse_args()
    if args.rendezvous:
        meet(args.rendezvous[0], int(args.rendezvous[1]))
    tools = results = None
    if args.tools_file:
        with open(args.tools_file, encoding="utf-8") as listed:
            tools = json.load(listed)
    if args.results_file:
        with open(args.results_file, encoding="utf-8") as served:
            results = json.load(served)
    server = Server(args.fault, tools, args.era, results)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            message = json.loads(line)
        except ValueError:
            server.refuse(None, -32700, "Parse error")
            continue
        if isinstance(message, dict):
            server.handle(message)


if __name__ == "__main__":
    main()
