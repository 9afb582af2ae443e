"""A client configuration file, read the way an MCP client reads it: the official Python SDK client
starts one of its servers with the command, args and env written there, and reads a large file
through it (server-filesystem's read_text_file).

Usage:
  mcp_client_config.py CONFIG_JSON SERVER_NAME FILE

Exits non-zero with the failed check on stderr; prints one `ok ...` line on success.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


async def main(config: str, name: str, path: str) -> str:
    with open(config, encoding="utf-8") as f:
        entry = json.load(f)["mcpServers"][name]
    # As written: the SDK adds the entry's env to its default environment, as clients do.
    params = StdioServerParameters(command=entry["command"], args=entry.get("args", []), env=entry.get("env"))
    async with Client(params, read_timeout_seconds=60) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        check({"read_text_file", "scratchpad_read"} <= tools, f"tools: {sorted(tools)}")
        result = await client.call_tool("read_text_file", {"path": path})
        text = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        check(not result.is_error, text[:2000])
        check('"scratchpad":' in text, f"not offloaded: {text[:500]}")
        check(len(text) < 8_000, f"the reference is short: {len(text)} chars")
        reference = json.loads(text)
        return f"{reference['bytes']:,}-byte file offloaded as {reference['scratchpad']}"


if __name__ == "__main__":
    try:
        print("ok " + asyncio.run(main(*sys.argv[1:4])))
    except Exception as err:  # report the failed check, exit non-zero
        print(f"FAILED: {type(err).__name__}: {err}", file=sys.stderr)
        sys.exit(1)
