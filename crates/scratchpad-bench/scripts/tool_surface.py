"""Characters of tool definitions a client lists for three servers: each behind its own proxy (every
proxy listing the scratchpad tools), wrapped as `scratchpad mcp wrap` does now (one proxy lists them),
and behind one `scratchpad mcp gateway`. Counted as the tool surface is elsewhere: each tool's name,
description and input schema as compact JSON.

Usage: tool_surface.py SCRATCHPAD_BIN NODE_PREFIX DIR
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile

from mcp import Client, StdioServerParameters


def chars(tools) -> int:
    return sum(len(json.dumps({"name": t.name, "description": t.description, "inputSchema": t.input_schema},
                              separators=(",", ":"))) for t in tools)


async def listed(command: str, args: list[str]) -> list:
    async with Client(StdioServerParameters(command=command, args=args), mode="legacy") as client:
        return (await client.list_tools()).tools


async def main(binary: str, prefix: str, directory: str) -> None:
    node = os.path.join(prefix, "node_modules", "node", "bin", "node")
    pkg = lambda name: os.path.join(prefix, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")
    servers = {
        "filesystem": [node, pkg("server-filesystem"), directory],
        "everything": [node, pkg("server-everything"), "stdio"],
        "everything2": [node, pkg("server-everything"), "stdio"],
    }
    store = f"sqlite://{tempfile.mkdtemp()}/pad.db"
    base = ["--store", store, "mcp", "proxy"]
    direct = sum([chars(await listed(cmd[0], cmd[1:])) for cmd in servers.values()])
    before = [await listed(binary, [*base, "--", *cmd]) for cmd in servers.values()]
    after = [await listed(binary, [*base, *([] if i == 0 else ["--no-scratchpad-tools"]), "--", *cmd])
             for i, cmd in enumerate(servers.values())]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"mcpServers": {name: {"command": cmd[0], "args": cmd[1:]} for name, cmd in servers.items()}}, f)
    gateway = await listed(binary, ["--store", store, "mcp", "gateway", "--servers-from", f.name])
    count = lambda lists: (sum(len(l) for l in lists), sum(chars(l) for l in lists),
                           sum(1 for l in lists for t in l if t.name == "scratchpad_read"))
    print(f"servers' own tools, direct: {direct:,} chars")
    for label, lists in [("three proxies (before)", before), ("mcp wrap now", after), ("mcp gateway", [gateway])]:
        n, c, reads = count(lists)
        print(f"{label}: {n} tools, {c:,} chars, scratchpad_read listed {reads}x")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
