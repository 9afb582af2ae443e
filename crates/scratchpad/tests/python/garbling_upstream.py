"""A deliberately broken MCP server on stdio, for the proxy's failure tests.

It completes the initialize handshake and lists two tools. `echo` answers properly. `garble` answers
with a line that is not JSON, then with a JSON-RPC response whose result has the wrong shape, and
`silent` never answers. Anything else with an id gets "method not found".
"""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


TOOLS = [
    {"name": name, "description": f"{name} test tool", "inputSchema": {"type": "object"}}
    for name in ("echo", "garble", "silent")
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
        # silent: no answer at all
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "method not found"}})
