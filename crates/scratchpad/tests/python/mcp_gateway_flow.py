"""What an agent sees through `scratchpad mcp gateway` in front of several real npm reference servers,
driven by the official Python SDK client.

Usage:
  mcp_gateway_flow.py MODE SCRATCHPAD_BIN STORE SERVERS_FILE DIR PIDFILE

SERVERS_FILE (client-shaped JSON) names: `filesystem` (server-filesystem on DIR, which holds an 800 KB
log), `every_thing` (server-everything, its shell's pid in PIDFILE), `every.thing` (another
server-everything, whose names clash with the first's once dots are replaced) and `broken` (exits at
once). MODE is the SDK's connect mode: `legacy` or `auto`.
Exits non-zero with the failed check on stderr; prints one `ok ...` line on success.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys

from mcp import Client, StdioServerParameters

from mcp_proxy_flow import call, check, elicit, observation, sample, text_of

VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SCRATCHPAD_TOOLS = {"scratchpad_read", "scratchpad_write", "scratchpad_list"}


async def gateway_flow(client: Client, directory: str, pidfile: str) -> str:
    tools = {}
    for tool in (await client.list_tools()).tools:
        check(tool.name not in tools, f"{tool.name} listed twice")
        tools[tool.name] = tool
    names = sorted(tools)
    check(all(VALID_NAME.match(name) for name in names), f"names every model API accepts: {names}")
    own = [name for name in names if name.startswith("scratchpad_")]
    check(SCRATCHPAD_TOOLS <= set(own) and len(own) == 9, f"the scratchpad tools once: {own}")
    for name in ["filesystem__read_text_file", "every_thing__echo", "every_thing__trigger-long-running-operation"]:
        check(name in tools, f"{name} listed: {names}")
        check("scratchpad" in tools[name].input_schema["properties"], f"{name} takes `scratchpad`")
    # `every.thing` reads like `every_thing`: the exact name keeps it, the other is told apart by a hash
    # and says what its server calls it.
    clashed = [name for name in names if name.startswith("every_thing__echo_")]
    check(len(clashed) == 1, f"the clashing echo listed once under another name: {names}")
    check("`every.thing` calls it `echo`" in (tools[clashed[0]].description or ""), tools[clashed[0]].description)
    _, text = await call(client, clashed[0], {"message": "from the other one"})
    check(text == "Echo: from the other one", text)

    # A server that could not start stands as one tool that says why; the others did not wait for it.
    check("broken__unavailable" in tools, f"placeholder listed: {names}")
    check(not any(name.startswith("broken__") and name != "broken__unavailable" for name in names), names)
    _, text = await call(client, "broken__unavailable", {}, error=True)
    check("not available" in text and "the command exited" in text, f"the reason is given: {text}")

    # Each server's large result is offloaded and read back through the one scratchpad_read.
    small = os.path.join(directory, "small.txt")
    _, text = await call(client, "filesystem__read_text_file", {"path": small})
    check(text == "hello from a small file\n", f"small file passes through: {text!r}")
    result, _ = await call(client, "filesystem__read_text_file", {"path": os.path.join(directory, "build.log")})
    log = observation(result)
    _, found = await call(client, "scratchpad_read", {"name": log["scratchpad"], "mode": "grep", "pattern": "ERROR"})
    check("ERROR linker failed for crate-7321" in found, found)
    big = "\n".join(f"row {i} value {i * 7}" for i in range(1, 20_001))
    await call(client, "scratchpad_write", {"name": "rows", "content": big})
    result, _ = await call(client, "every_thing__echo", {"message": "{{scratchpad:rows}}"})
    echoed = observation(result)
    _, found = await call(client, "scratchpad_read",
                          {"name": echoed["scratchpad"], "mode": "grep", "pattern": "^row 12345 "})
    check("row 12345 value 86415" in found, found)

    # Progress reaches the client on its own token; requests from an upstream come back to this client.
    steps: list[float] = []

    async def on_progress(progress, total, message):
        steps.append(progress)

    result = await client.call_tool("every_thing__trigger-long-running-operation", {"duration": 1, "steps": 3},
                                    progress_callback=on_progress)
    check("completed" in text_of(result) and steps == [1, 2, 3], f"progress: {steps} {text_of(result)}")
    if client.protocol_version != "2026-07-28":
        _, text = await call(client, "every_thing__trigger-sampling-request", {"prompt": "two words", "maxTokens": 20})
        check("sampled:" in text, f"sampling routed back: {text}")

    # Prompts are namespaced; resources keep their URIs and are read from the server that lists them.
    prompts = sorted(prompt.name for prompt in (await client.list_prompts()).prompts)
    check("every_thing__simple-prompt" in prompts, f"prompts: {prompts}")
    check(all(VALID_NAME.match(name) for name in prompts), f"prompt names: {prompts}")
    got = await client.get_prompt("every_thing__simple-prompt", {})
    check(len(got.messages) >= 1, f"{got}")
    uris = [str(resource.uri) for resource in (await client.list_resources()).resources]
    demo = [uri for uri in uris if uri.startswith("demo://")]
    check(demo and "scratchpad://proxy/rows" in uris, f"resources: {uris[:5]} … {uris[-5:]}")
    read = await client.read_resource(demo[0])
    check(len(read.contents) >= 1, f"{read}")

    # One server killed mid-call: that call fails clearly, the others keep answering, and the next call
    # to it starts it again.
    with open(pidfile, encoding="utf-8") as f:
        first = int(f.read().strip())
    running = asyncio.create_task(
        client.call_tool("every_thing__trigger-long-running-operation", {"duration": 20, "steps": 20}))
    await asyncio.sleep(1.5)
    os.kill(first, signal.SIGKILL)
    _, text = await call(client, "filesystem__read_text_file", {"path": small})
    check(text == "hello from a small file\n", f"the other server answers: {text!r}")
    try:
        result = await asyncio.wait_for(running, timeout=30)
        cut = text_of(result)
        check(bool(result.is_error), f"the cut call is an error: {cut}")
    except asyncio.TimeoutError:
        raise AssertionError("the gateway hung after an upstream crashed")
    except Exception as err:  # a protocol error is also a clear answer
        cut = str(err)
    check("gone" in cut, f"the error says the server is gone: {cut}")
    _, after = await call(client, "every_thing__echo", {"message": "after"})
    check(after == "Echo: after", f"restarted: {after}")
    return (f"protocol {client.protocol_version}, {len(names)} tools, {len(prompts)} prompts; "
            f"offloaded {log['scratchpad']} and {echoed['scratchpad']}; crash reported and restarted")


async def main(argv: list[str]) -> str:
    mode, binary, store, servers, directory, pidfile = argv[:6]
    args = ["--store", store, "--session", "proxy", "mcp", "gateway", "--servers-from", servers,
            "--call-timeout", "30"]
    params = StdioServerParameters(command=binary, args=args)
    async with Client(params, mode=mode, read_timeout_seconds=60, sampling_callback=sample,
                      elicitation_callback=elicit) as client:
        return await gateway_flow(client, directory, pidfile)


if __name__ == "__main__":
    print("ok " + asyncio.run(main(sys.argv[1:])))
