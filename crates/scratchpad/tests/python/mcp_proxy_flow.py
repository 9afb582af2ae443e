"""What an agent sees through `scratchpad mcp proxy`, driven by the official Python SDK client against the
real npm reference servers.

Usage:
  mcp_proxy_flow.py filesystem MODE SCRATCHPAD_BIN STORE NODE_PREFIX DIR
      the proxy wraps server-filesystem over stdio; DIR holds an 800 KB log
  mcp_proxy_flow.py everything MODE SCRATCHPAD_BIN STORE NODE_PREFIX
      the proxy wraps server-everything over stdio
  mcp_proxy_flow.py everything-http MODE SCRATCHPAD_BIN STORE UPSTREAM_URL
      the proxy reaches server-everything over streamable HTTP
  mcp_proxy_flow.py everything-https MODE SCRATCHPAD_BIN STORE UPSTREAM_URL CA_PEM TOKEN
      the same over HTTPS with a bearer token; first without trusting the CA, which must fail clearly
  mcp_proxy_flow.py crash MODE SCRATCHPAD_BIN STORE NODE_PREFIX PIDFILE
      the upstream is killed mid-call: that call fails clearly, the next one reconnects

MODE is the SDK's connect mode: `legacy` (2025-11-25 initialize) or `auto` (2026-07-28 when offered).
Exits non-zero with the failed check on stderr; prints one `ok ...` line on success.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time

from mcp import Client, StdioServerParameters, types


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def text_of(result) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


def messages(err: BaseException) -> str:
    """An error's message, with those of the errors an exception group carries."""
    inner = getattr(err, "exceptions", None)
    return "; ".join(messages(e) for e in inner) if inner else str(err)


def links_of(result) -> list[str]:
    return [str(block.uri) for block in result.content if getattr(block, "type", "") == "resource_link"]


async def call(client: Client, tool: str, args: dict, *, error: bool = False):
    result = await client.call_tool(tool, args)
    text = text_of(result)
    check(bool(result.is_error) == error, f"{tool}({str(args)[:200]}) isError={result.is_error}: {text[:2000]}")
    return result, text


def observation(result) -> dict:
    for block in result.content:
        if getattr(block, "type", "") == "text":
            try:
                value = json.loads(block.text)
            except ValueError:
                continue
            if isinstance(value, dict) and "scratchpad" in value and "preview" in value:
                return value
    raise AssertionError(f"no offloaded observation in {text_of(result)[:2000]}")


async def sample(context, params) -> types.CreateMessageResult:
    """The client's model, for an upstream's sampling request: answers without a model."""
    asked = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="test-model",
                                     content=types.TextContent(type="text", text=f"sampled: {asked}"))


async def elicit(context, params) -> types.ElicitResult:
    """The user, for an upstream's elicitation: fills in the one required field."""
    return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})


def proxy(binary: str, store: str, upstream: list[str], mode: str, extra: list[str] | None = None,
          env: dict[str, str] | None = None) -> Client:
    args = ["--store", store, "--session", "proxy", "mcp", "proxy", *(extra or []), "--", *upstream]
    params = StdioServerParameters(command=binary, args=args, env=env)
    return Client(params, mode=mode, read_timeout_seconds=60, sampling_callback=sample,
                  elicitation_callback=elicit)


def node(prefix: str) -> str:
    return os.path.join(prefix, "node_modules", "node", "bin", "node")


def package(prefix: str, name: str) -> str:
    return os.path.join(prefix, "node_modules", "@modelcontextprotocol", name, "dist", "index.js")


async def filesystem_flow(client: Client, directory: str) -> str:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    check("scratchpad_read" in tools and "read_text_file" in tools, f"tools: {sorted(tools)}")
    read_tool = tools["read_text_file"]
    check("scratchpad" in read_tool.input_schema["properties"], f"{read_tool.input_schema}")
    check("anyOf" in (read_tool.output_schema or {}), f"output schema widened: {read_tool.output_schema}")

    # Small: passes through untouched, structured content and all.
    small = os.path.join(directory, "small.txt")
    result, text = await call(client, "read_text_file", {"path": small})
    check(text == "hello from a small file\n", f"small file passes through: {text!r}")
    check(result.structured_content == {"content": "hello from a small file\n"}, f"{result.structured_content}")

    # 800 KB: a reference with a preview (first and last lines, the error line) and a resource link.
    log = os.path.join(directory, "build.log")
    result, text = await call(client, "read_text_file", {"path": log})
    check(len(text) < 6_000, f"the reference is short: {len(text)} chars")
    obs = observation(result)
    preview = obs["preview"]
    check("line 1 compiling crate-1" in preview, f"first line in preview: {preview[:400]}")
    check("line 12000 finished build" in preview, f"last line in preview: {preview[-400:]}")
    check("ERROR linker failed for crate-7321" in preview, f"error line in preview: {preview}")
    check("scratchpad_read" in obs["hint"], obs["hint"])
    check(obs["bytes"] > 700_000, f"{obs['bytes']}")
    check(links_of(result), "a resource_link to the entry")
    check(result.structured_content and result.structured_content.get("scratchpad") == obs["scratchpad"],
          f"structured content offloaded too: {str(result.structured_content)[:300]}")
    name = obs["scratchpad"]

    _, grep = await call(client, "scratchpad_read", {"name": name, "mode": "grep", "pattern": "ERROR"})
    check("7321:line 7321 ERROR linker failed for crate-7321: undefined symbol `frob`" in grep, grep)
    _, lines = await call(client, "scratchpad_read", {"name": name, "mode": "lines", "from": 7320, "to": 7322})
    check("7320: line 7320 compiling crate-7320" in lines and "7322: line 7322" in lines, lines)

    # The resource link is readable through the proxy.
    contents = (await client.read_resource(links_of(result)[0])).contents
    check(contents[0].text.startswith("line 1 compiling crate-1 "), "resource_link reads the entry")

    # `scratchpad` argument: a small output kept under a name; it is not sent upstream.
    result, text = await call(client, "read_text_file", {"path": small, "scratchpad": "greeting"})
    check("hello from a small file" in text and "`greeting`" in text, text)
    _, whole = await call(client, "scratchpad_read", {"name": "greeting", "mode": "full"})
    check("hello from a small file" in whole, whole)

    # Pass by reference: a value stored from one call, passed whole into another.
    copy = os.path.join(directory, "copy.log")
    await call(client, "write_file", {"path": copy, "content": "{{scratchpad:%s}}" % name})
    with open(log, encoding="utf-8") as f, open(copy, encoding="utf-8") as g:
        check(f.read() == g.read(), "the copy written from the placeholder equals the log")
    part = os.path.join(directory, "part.log")
    await call(client, "write_file", {"path": part, "content": "{{scratchpad:%s#lines=7321-7321}}" % name})
    with open(part, encoding="utf-8") as f:
        check("ERROR linker failed for crate-7321" in f.read(), "a selector passes one line")

    # An unknown name is an error to the model, and the upstream is not called.
    missing = os.path.join(directory, "missing.log")
    _, text = await call(client, "write_file", {"path": missing, "content": "{{scratchpad:nope}}"}, error=True)
    check("nope" in text and "not called" in text, text)
    check(not os.path.exists(missing), "the upstream was not called")
    return f"protocol {client.protocol_version}, {obs['bytes']:,}-byte log offloaded as {name}"


async def everything_flow(client: Client) -> str:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    check("echo" in tools and "scratchpad_read" in tools, f"tools: {sorted(tools)}")
    if client.protocol_version != "2026-07-28":
        # Requests from the upstream to the client (2026-07-28 has none) pass through the proxy.
        _, text = await call(client, "trigger-sampling-request", {"prompt": "two words", "maxTokens": 20})
        check("sampled: Resource trigger-sampling-request context: two words" in text, f"sampling: {text}")
        _, text = await call(client, "trigger-elicitation-request", {})
        check("Name: Ada Lovelace" in text, f"elicitation: {text}")
    _, text = await call(client, "echo", {"message": "hi"})
    check(text == "Echo: hi", f"small result passes through: {text!r}")
    result, text = await call(client, "get-structured-content", {"location": "Chicago"})
    check(result.structured_content == {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82},
          f"{result.structured_content}")
    # The "tiny" image is 5 KB of base64, over the threshold: stored as the PNG's bytes, its captions kept.
    result, text = await call(client, "get-tiny-image", {})
    image = observation(result)
    check(image["kind"] == "binary" and image["metadata"].get("mimeType") == "image/png", f"{image}")
    check(text.startswith("Here's the image you requested:") or "image" in text.split("\n")[0], text[:300])
    _, head = await call(client, "scratchpad_read", {"name": image["scratchpad"], "mode": "bytes", "length": 8})
    check("iVBORw0KGgo" in head, f"stored as PNG bytes: {head}")

    # Progress notifications from the upstream reach the client, on the client's own token, every
    # one of them before the result (a 2026-07-28 client drops an update that comes after it).
    steps: list[float] = []

    async def on_progress(progress, total, message):
        steps.append(progress)

    result = await client.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 3},
                                    progress_callback=on_progress)
    check("completed" in text_of(result), text_of(result))
    check(steps == [1, 2, 3], f"progress forwarded: {steps}")

    big = "\n".join(f"row {i} value {i * 7}" for i in range(1, 20_001))
    await call(client, "scratchpad_write", {"name": "rows", "content": big})
    result, text = await call(client, "echo", {"message": "{{scratchpad:rows}}"})
    obs = observation(result)
    check(obs["bytes"] == len("Echo: ") + len(big), f"{obs['bytes']} vs {len(big)}")
    _, grep = await call(client, "scratchpad_read", {"name": obs["scratchpad"], "mode": "grep", "pattern": "^row 12345 "})
    check("row 12345 value 86415" in grep, grep)
    # resources/list pages through the upstream's resources, then this session's entries.
    uris: list[str] = []
    cursor = None
    for _ in range(100):
        page = await client.list_resources(cursor=cursor, cache_mode="refresh")
        uris += [str(resource.uri) for resource in page.resources]
        cursor = page.next_cursor
        if not cursor:
            break
    check(any(uri.startswith("demo://") for uri in uris), f"upstream resources listed: {uris[:5]}")
    check("scratchpad://proxy/rows" in uris, f"scratchpad entries listed after them: {uris[-5:]}")
    check(len(uris) == len(set(uris)), "no resource listed twice")
    _, text = await call(client, "echo", {"message": "small", "scratchpad": "kept-echo"})
    _, whole = await call(client, "scratchpad_read", {"name": "kept-echo", "mode": "full"})
    check("Echo: small" in whole, whole)
    return f"protocol {client.protocol_version}, echo of {len(big):,} bytes offloaded as {obs['scratchpad']}"


async def crash_flow(client: Client, pidfile: str) -> str:
    """The upstream is killed in the middle of a call: that call fails clearly, the next one runs on
    a new upstream process."""

    def upstream_pid() -> int:
        with open(pidfile, encoding="utf-8") as f:
            return int(f.read().strip())

    _, text = await call(client, "echo", {"message": "before"})
    first = upstream_pid()
    running = asyncio.create_task(
        client.call_tool("trigger-long-running-operation", {"duration": 20, "steps": 20}))
    await asyncio.sleep(1.5)
    os.kill(first, signal.SIGKILL)
    try:
        result = await asyncio.wait_for(running, timeout=30)
        text = text_of(result)
        check(bool(result.is_error), f"the call cut by the crash is an error: {text}")
    except asyncio.TimeoutError:
        raise AssertionError("the proxy hung after the upstream crashed")
    except Exception as err:  # a protocol error is also a clear answer
        text = str(err)
    check("gone" in text and "next request" in text, f"the error says the upstream is gone: {text}")
    # The next call starts the upstream again.
    _, after = await call(client, "echo", {"message": "after"})
    check(after == "Echo: after", f"the proxy reconnected: {after}")
    check(upstream_pid() != first, "a new upstream process serves")
    await call(client, "scratchpad_list", {})
    return f"upstream crash reported: {text[:120]}; then reconnected"


async def malformed_flow(client: Client) -> str:
    """An upstream that garbles answers, tears one, sends results past the stdio line cap, and never
    sends another: each a clear error or a stored result, at once, and no hang."""
    answers = []
    for tool in ("garble", "torn", "toolong", "silent"):
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(client.call_tool(tool, {}), timeout=30)
            text = text_of(result)
            check(bool(result.is_error), f"{tool}: a broken answer is an error: {text}")
        except asyncio.TimeoutError:
            raise AssertionError(f"the proxy hung on {tool}")
        except Exception as err:  # a protocol error is also a clear answer
            text = str(err)
        check(text.strip() != "", f"{tool}: the error says something")
        if tool != "silent":
            # Reported when it happens, not when the call times out.
            check("did not answer" not in text, f"{tool}: reported as a timeout: {text}")
            check(time.monotonic() - started < 8, f"{tool}: the error took the call timeout")
        answers.append(f"{tool}: {text[:300]}")
    # A result over the 16 MiB line cap of MCP's stdio transports is stored whole.
    result = await asyncio.wait_for(client.call_tool("huge", {}), timeout=60)
    check(not result.is_error, f"huge: {text_of(result)[:300]}")
    reference = json.loads(text_of(result).split("\n")[0])
    check(reference["bytes"] > 20 * 1024 * 1024, f"huge: stored whole: {reference['bytes']}")
    _, found = await call(client, "scratchpad_read", {"name": reference["scratchpad"], "mode": "grep", "pattern": "FATAL"})
    check("FATAL: disk full" in found, f"huge: the stored result reads back: {found[:300]}")
    answers.append(f"huge: stored as {reference['scratchpad']} ({reference['bytes']} bytes)")
    # The proxy still serves: the scratchpad answers, and so does the upstream if it still runs.
    await call(client, "scratchpad_list", {})
    result = await asyncio.wait_for(client.call_tool("echo", {}), timeout=30)
    answers.append(f"echo afterwards: {text_of(result)[:60]}")
    return "; ".join(answers)


async def main(argv: list[str]) -> str:
    flow, mode, binary, store = argv[:4]
    if flow == "filesystem":
        prefix, directory = argv[4:6]
        upstream = [node(prefix), package(prefix, "server-filesystem"), directory]
        async with proxy(binary, store, upstream, mode) as client:
            return await filesystem_flow(client, directory)
    if flow == "everything":
        prefix = argv[4]
        upstream = [node(prefix), package(prefix, "server-everything"), "stdio"]
        async with proxy(binary, store, upstream, mode) as client:
            return await everything_flow(client)
    if flow == "everything-http":
        url = argv[4]
        async with proxy(binary, store, [], mode, ["--upstream-url", url]) as client:
            return await everything_flow(client)
    if flow == "everything-https":
        url, ca, token = argv[4:7]
        env = {**os.environ, "SCRATCHPAD_UPSTREAM_TOKEN": token}
        env.pop("SSL_CERT_FILE", None)
        refusal = ""
        try:
            async with proxy(binary, store, [], mode, ["--upstream-url", url], env) as client:
                await client.list_tools()  # a 2026-07-28 client has no initialize: the upstream is reached here
        except Exception as err:  # the handshake with the upstream fails: the error must say why
            refusal = messages(err)
        check("certificate" in refusal and "SSL_CERT_FILE" in refusal, f"untrusted CA refused: {refusal!r}")
        env["SSL_CERT_FILE"] = ca
        async with proxy(binary, store, [], mode, ["--upstream-url", url], env) as client:
            return await everything_flow(client)
    if flow == "crash":
        prefix, pidfile = argv[4:6]
        script = f'echo $$ > "{pidfile}"; exec "{node(prefix)}" "{package(prefix, "server-everything")}" stdio'
        async with proxy(binary, store, ["sh", "-c", script], mode, ["--call-timeout", "20"]) as client:
            return await crash_flow(client, pidfile)
    if flow == "malformed":
        upstream = [sys.executable, os.path.join(os.path.dirname(__file__), "garbling_upstream.py")]
        extra = ["--call-timeout", "10", "--max-result-bytes", str(32 * 1024 * 1024)]
        async with proxy(binary, store, upstream, mode, extra) as client:
            return await malformed_flow(client)
    raise SystemExit(f"unknown flow {flow}")


if __name__ == "__main__":
    try:
        print("ok " + asyncio.run(main(sys.argv[1:])))
    except Exception as err:  # report the failed check, exit non-zero
        print(f"FAILED: {type(err).__name__}: {messages(err)}", file=sys.stderr)
        sys.exit(1)
