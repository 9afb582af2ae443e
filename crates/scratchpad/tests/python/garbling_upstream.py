"""A deliberately broken MCP server on stdio, for the proxy's failure tests.

It completes the initialize handshake and lists its tools. `echo` answers properly. `garble` answers
with a line that is not JSON, then with a JSON-RPC response whose result has the wrong shape;
`torn` answers with a response cut off mid-line; `huge` with a proper 20 MiB result (over the 16 MiB
line cap of MCP's stdio transports), and `toolong` with one of 40 MiB; `silent` never answers.
Anything else with an id gets "method not found".
"""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


TOOLS = [
    {"name": name, "description": f"{name} test tool", "inputSchema": {"type": "object"}}
    for name in ("echo", "garble", "torn", "huge", "toolong", "silent")
]

for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "garbling-upstream", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = request["params"]["name"]
        if name == "echo":
            send({"jsonrpc": "2.0", "id": rid,
                  "result": {"content": [{"type": "text", "text": "echo ok"}]}})
        elif name == "garble":
            sys.stdout.write("}{ this is not JSON-RPC\n")
            sys.stdout.flush()
            send({"jsonrpc": "2.0", "id": rid, "result": "not an object"})
        elif name == "torn":
            sys.stdout.write('{"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "te\n' % rid)
            sys.stdout.flush()
        elif name in ("huge", "toolong"):
            lines = (20 if name == "huge" else 40) * 1024 * 1024 // 32
            text = "".join(
                "request %09d served: ok ....\n" % i if i != lines // 2
                else "request %09d FATAL: disk full\n" % i
                for i in range(lines)
            )
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        # silent: no answer at all
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
