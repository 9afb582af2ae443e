// A strict client: the official TypeScript SDK validates every tool result that has an output
// schema against it (a tool with an output schema must return matching structured content). Drives
// `scratchpad mcp proxy` wrapping server-filesystem and calls every kind of result through it; with
// `gateway`, drives `scratchpad mcp gateway` in front of server-filesystem and server-everything.
//
// Usage: node strict_client.mjs SCRATCHPAD_BIN STORE NODE_PREFIX DIR [gateway]
// Prints one `ok ...` line on success; exits non-zero with the failed check on stderr.
import path from "node:path";

const [bin, store, prefix, dir, face = "proxy"] = process.argv.slice(2);
const sdk = (p) => import(path.join(prefix, "node_modules/@modelcontextprotocol/sdk/dist/esm", p));
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

function check(condition, what) {
  if (!condition) throw new Error(what);
}

const node = path.join(prefix, "node_modules/node/bin/node");
const filesystem = path.join(prefix, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const everything = path.join(prefix, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
const quoted = (words) => words.map((word) => `'${word}'`).join(" ");
const args = face === "gateway"
  ? ["--store", store, "--session", "strict", "mcp", "gateway",
     "--server", `fs=${quoted([node, filesystem, dir])}`,
     "--server", `everything=${quoted([node, everything, "stdio"])}`]
  : ["--store", store, "--session", "strict", "mcp", "proxy", "--", node, filesystem, dir];
const transport = new StdioClientTransport({ command: bin, args, stderr: "inherit" });
const client = new Client({ name: "strict-client", version: "1.0.0" });

// The gateway: every listing namespaced, the scratchpad tools once, one call per server and one
// scratchpad call, and an offloaded result read back whole through its resource link.
async function gateway() {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ["fs__read_text_file", "everything__echo", "scratchpad_read"]) {
    check(names.includes(name), `${name} listed: ${names}`);
  }
  check(names.filter((name) => name === "scratchpad_read").length === 1, "scratchpad_read listed once");
  check(names.every((name) => /^[A-Za-z0-9_-]{1,64}$/.test(name)), `every name is valid: ${names}`);
  const { prompts } = await client.listPrompts();
  check(prompts.some((prompt) => prompt.name === "everything__simple-prompt"), `prompts: ${prompts.map((p) => p.name)}`);
  const { resources } = await client.listResources();
  const demo = resources.find((resource) => resource.uri.startsWith("demo://"));
  check(demo, `server-everything's resources listed: ${resources.slice(0, 5).map((r) => r.uri)}`);
  const read = await client.readResource({ uri: demo.uri });
  check(read.contents.length >= 1, `${demo.uri} read`);

  const small = await client.callTool({ name: "fs__read_text_file", arguments: { path: path.join(dir, "small.txt") } });
  check(!small.isError && text(small) === "hello from a small file\n", `fs__read_text_file: ${text(small)}`);
  const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "through the gateway" } });
  check(text(echoed) === "Echo: through the gateway", `everything__echo: ${text(echoed)}`);

  // The 800 KB log is offloaded: structured content is the observation (validated against the
  // widened output schema by the SDK), and the resource link reads back every byte.
  const big = await client.callTool({ name: "fs__read_text_file", arguments: { path: path.join(dir, "build.log") } });
  const observation = big.structuredContent;
  check(observation && observation.scratchpad && observation.preview, `offloaded: ${text(big).slice(0, 300)}`);
  const link = big.content.find((block) => block.type === "resource_link");
  check(link && link.uri.endsWith(`/${observation.scratchpad}`), `resource link: ${JSON.stringify(link)}`);
  const whole = await client.readResource({ uri: link.uri });
  const body = whole.contents.map((c) => c.text).join("");
  check(body.length === observation.bytes && body.includes("line 7321 ERROR linker failed"),
    `read back ${body.length} of ${observation.bytes} bytes`);
  const grep = await client.callTool({
    name: "scratchpad_read",
    arguments: { name: observation.scratchpad, mode: "grep", pattern: "ERROR" },
  });
  check(!grep.isError && text(grep).includes("7321:line 7321 ERROR linker failed"), `grep: ${text(grep)}`);
  console.log(`ok gateway: ${tools.length} tools, ${prompts.length} prompts, ${resources.length} resources; ` +
    `${observation.scratchpad} read back (${body.length} bytes)`);
}

try {
  await client.connect(transport);
  if (face === "gateway") {
    await gateway();
    await client.close();
    process.exit(0);
  }
  const { tools } = await client.listTools();
  const withSchema = tools.filter((tool) => tool.outputSchema);
  check(withSchema.length > 5, `tools with output schemas: ${withSchema.map((t) => t.name)}`);

  const calls = [
    ["read_text_file", { path: path.join(dir, "small.txt") }],
    ["read_text_file", { path: path.join(dir, "build.log") }],
    ["read_text_file", { path: path.join(dir, "small.txt"), scratchpad: "strict-small" }],
    ["read_text_file", { path: path.join(dir, "build.log"), head: 3 }],
    ["list_directory", { path: dir }],
    ["get_file_info", { path: path.join(dir, "build.log") }],
    ["read_text_file", { path: path.join(dir, "no-such-file") }],
    ["scratchpad_list", {}],
    ["scratchpad_read", { name: "strict-small", mode: "full" }],
  ];
  let offloaded = 0;
  for (const [name, args] of calls) {
    // callTool throws if structured content does not match the tool's output schema.
    const result = await client.callTool({ name, arguments: args });
    if (result.structuredContent && result.structuredContent.scratchpad && result.structuredContent.preview) {
      offloaded += 1;
    }
    if (name !== "read_text_file" || !args.path.endsWith("no-such-file")) {
      check(!result.isError, `${name} failed: ${text(result)}`);
    }
  }
  check(offloaded === 1, `exactly the 800 KB read was offloaded (got ${offloaded})`);
  console.log(`ok ${calls.length} calls validated against ${withSchema.length} output schemas`);
  await client.close();
} catch (err) {
  console.error(`FAILED: ${err.stack || err}`);
  await client.close().catch(() => {});
  process.exit(1);
}
