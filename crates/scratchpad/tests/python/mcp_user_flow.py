"""What a new user's agent does with the scratchpad MCP server, driven by the official Python SDK client.

Usage:
  mcp_user_flow.py stdio MODE SCRATCHPAD_BIN STORE SESSION
  mcp_user_flow.py http MODE URL TOKEN|-
  mcp_user_flow.py http-isolation MODE URL TOKEN_A TOKEN_B
  mcp_user_flow.py stdio-reopen MODE SCRATCHPAD_BIN STORE SESSION

MODE is the SDK's connect mode: `legacy` (the 2025-11-25 initialize handshake) or `auto` (discover,
2026-07-28). Exits non-zero with the failed check on stderr; prints one `ok ...` line on success.
"""

from __future__ import annotations

import asyncio
import sys

from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def call(client: Client, tool: str, args: dict, *, error: bool = False) -> tuple[str, object]:
    result = await client.call_tool(tool, args)
    text = text_of(result)
    check(bool(result.is_error) == error, f"{tool}({args}) isError={result.is_error}: {text}")
    return text, result.structured_content


def big_log() -> str:
    lines = []
    for i in range(1, 40_001):
        if i == 23_456:
            lines.append(f"2026-11-22T10:00:00Z ERROR worker-7 job {i} failed: disk quota exceeded")
        else:
            lines.append(f"2026-11-22T10:00:00Z INFO worker-{i % 8} job {i} done in {i % 97} ms")
    return "\n".join(lines) + "\n"


async def user_flow(client: Client, mode: str) -> str:
    expected = "2025-11-25" if mode == "legacy" else "2026-07-28"
    check(client.protocol_version == expected, f"negotiated {client.protocol_version}, wanted {expected}")
    check("scratchpad_list" in (client.instructions or ""), "the instructions tell the model to list first")

    tools = {tool.name for tool in (await client.list_tools()).tools}
    for name in ["scratchpad_write", "scratchpad_read", "scratchpad_edit", "scratchpad_list",
                 "scratchpad_delete", "scratchpad_search"]:
        check(name in tools, f"{name} is listed")

    # Start of a session: what is there already?
    listing, _ = await call(client, "scratchpad_list", {})

    # A plan, kept up to date.
    await call(client, "scratchpad_write", {"name": "plan", "content": "- [ ] find the failing job\n- [ ] fix it\n"})
    await call(client, "scratchpad_edit", {"name": "plan", "old": "- [ ] find", "new": "- [x] find"})

    # A large output: stored whole, answered with a short preview that still shows the error line.
    log = big_log()
    reference, summary = await call(client, "scratchpad_write", {"name": "worker-log", "content": log})
    check(len(reference) < 5_000, f"the reference is short ({len(reference)} chars for {len(log)})")
    check("23456: 2026-11-22T10:00:00Z ERROR worker-7" in reference, f"preview shows the error line: {reference}")
    check(summary["lines"] == 40_000, f"structured summary counts lines: {summary}")

    grep, meta = await call(client, "scratchpad_read",
                            {"name": "worker-log", "mode": "grep", "pattern": "ERROR", "context": 1})
    check("23456:2026-11-22T10:00:00Z ERROR worker-7 job 23456 failed" in grep, grep)
    check(meta["total_matches"] == 1, f"{meta}")

    lines, _ = await call(client, "scratchpad_read",
                          {"name": "worker-log", "mode": "lines", "from": 23_455, "to": 23_457})
    check("23456: 2026-11-22T10:00:00Z ERROR" in lines and "23457:" in lines, lines)

    tail, _ = await call(client, "scratchpad_read", {"name": "worker-log", "mode": "tail", "n": 100})
    check("job 40000 done" in tail, tail)

    # Bad arguments come back as tool errors the model can act on.
    wrong, _ = await call(client, "scratchpad_read", {"name": "worker-logs", "mode": "tail"}, error=True)
    check("`worker-log`" in wrong, f"a near miss names the real entry: {wrong}")
    bad_regex, _ = await call(client, "scratchpad_read",
                              {"name": "worker-log", "mode": "grep", "pattern": "[unclosed"}, error=True)
    check("regex" in bad_regex, bad_regex)

    listing, page = await call(client, "scratchpad_list", {})
    names = [entry["name"] for entry in page["entries"]]
    check(names[:2] == ["worker-log", "plan"], f"newest first: {names}")

    hits, _ = await call(client, "scratchpad_search", {"query": "failing job"})
    check("plan" in hits, hits)

    resources = (await client.list_resources()).resources
    uris = {str(resource.uri) for resource in resources}
    plan_uri = next((uri for uri in uris if uri.endswith("/plan")), None)
    check(plan_uri is not None, f"plan is a resource: {uris}")
    contents = (await client.read_resource(plan_uri)).contents
    check(contents[0].text == "- [x] find the failing job\n- [ ] fix it\n", f"{contents}")

    prompt = await client.get_prompt("scratchpad_guide")
    check("scratchpad_read" in prompt.messages[0].content.text, "the prompt carries the guidance")

    # A runaway jq query is refused or ends its own worker process, never the server: the next call
    # is answered.
    await call(client, "scratchpad_write", {"name": "orders", "content": '{"items": [{"id": 71}]}'})
    recursive, _ = await call(client, "scratchpad_read",
                              {"name": "orders", "mode": "json", "query": "def f: 1 + f; f"}, error=True)
    check("calls itself" in recursive, recursive)
    hungry, _ = await call(client, "scratchpad_read",
                           {"name": "orders", "mode": "json", "query": "[range(1e10)] | length"}, error=True)
    check("limit" in hungry, hungry)
    ids, _ = await call(client, "scratchpad_read", {"name": "orders", "mode": "json", "query": ".items[].id"})
    check("71" in ids, ids)
    await call(client, "scratchpad_delete", {"name": "orders"})

    await call(client, "scratchpad_delete", {"name": "worker-log"})
    _, page = await call(client, "scratchpad_list", {})
    check([entry["name"] for entry in page["entries"]] == ["plan"], f"{page}")
    return f"protocol {client.protocol_version}, {len(tools)} tools, {len(log):,}-byte log sliced"


def stdio_client(binary: str, store: str, session: str, mode: str) -> Client:
    params = StdioServerParameters(command=binary,
                                   args=["--store", store, "--session", session, "mcp", "serve"])
    return Client(params, mode=mode, read_timeout_seconds=60)


def http_client(url: str, token: str, mode: str) -> Client:
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode, read_timeout_seconds=60)


async def main(argv: list[str]) -> str:
    kind, mode = argv[0], argv[1]
    if kind == "stdio":
        async with stdio_client(argv[2], argv[3], argv[4], mode) as client:
            return await user_flow(client, mode)
    if kind == "stdio-reopen":
        # A second run of the same session finds the plan the first run left.
        async with stdio_client(argv[2], argv[3], argv[4], mode) as client:
            text, _ = await call(client, "scratchpad_read", {"name": "plan"})
            check("- [x] find the failing job" in text, text)
            return "the plan survived the restart"
    if kind == "http":
        async with http_client(argv[2], argv[3], mode) as client:
            return await user_flow(client, mode)
    if kind == "http-isolation":
        url, token_a, token_b = argv[2], argv[3], argv[4]
        async with http_client(url, token_a, mode) as alice, http_client(url, token_b, mode) as bob:
            await call(alice, "scratchpad_write", {"name": "secret-plan", "content": "alice only"})
            denied, _ = await call(bob, "scratchpad_read", {"name": "secret-plan"}, error=True)
            check("no entry named `secret-plan`" in denied, denied)
            _, page = await call(bob, "scratchpad_list", {})
            check(page["entries"] == [], f"bob sees nothing: {page}")
            check((await bob.list_resources()).resources == [], "bob lists no resources")
            mine, _ = await call(alice, "scratchpad_read", {"name": "secret-plan"})
            check("alice only" in mine, mine)
            return "two tokens, two sessions"
    raise SystemExit(f"unknown kind {kind!r}")


if __name__ == "__main__":
    try:
        print("ok", asyncio.run(main(sys.argv[1:])))
    except AssertionError as failure:
        print(f"check failed: {failure}", file=sys.stderr)
        sys.exit(1)
