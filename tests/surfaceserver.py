#!/usr/bin/env python3
"""A small MCP server over stdio whose whole surface comes from a JSON file, so the
snapshot, diff and replay tests get a server of any shape cheaply.

    python3 tests/surfaceserver.py SURFACE.json

It speaks the 2025-11-25 handshake (initialize, then notifications/initialized) and answers
server/discover with -32601, as a server of that era does. The file holds:
    {"serverInfo": {...}, "capabilities": {...}, "tools": [...], "prompts": [...],
     "resources": [...], "resourceTemplates": [...],
     "answers": {"TOOL": CallToolResult}}   (a tool not in answers echoes its arguments)
"""
import json
import sys

PROTOCOL_VERSION = "2025-11-25"
LISTS = {"tools/list": "tools", "prompts/list": "prompts", "resources/list": "resources",
         "resources/templates/list": "resourceTemplates"}


def answer(surface, state, method, params):
    """The result of one request, or an (code, message) error."""
    if method == "initialize":
        state["initialized"] = True
        return {"protocolVersion": PROTOCOL_VERSION, "capabilities": surface.get("capabilities", {}),
                "serverInfo": surface.get("serverInfo", {"name": "surface", "version": "0"})}
    if not state.get("initialized"):
        return (-32601, "Method not found: %s" % method)
    if method == "ping":
        return {}
    if method in LISTS:
        key = LISTS[method]
        return {key: surface.get(key, [])}
    if method == "tools/call":
        name = params.get("name")
        if name not in {tool["name"] for tool in surface.get("tools", [])}:
            return (-32602, "Unknown tool: %s" % name)
        answers = surface.get("answers", {})
        if name in answers:
            return answers[name]
        return {"content": [{"type": "text", "text": json.dumps(params.get("arguments") or {}, sort_keys=True)}]}
    return (-32601, "Method not found: %s" % method)


def main(argv):
    with open(argv[0], encoding="utf-8") as handle:
        surface = json.load(handle)
    state = {}
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue  # notifications and responses need no answer
        result = answer(surface, state, message["method"], message.get("params") or {})
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        if isinstance(result, tuple):
            reply["error"] = {"code": result[0], "message": result[1]}
        else:
            reply["result"] = result
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
