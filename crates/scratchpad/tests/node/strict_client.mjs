// A strict client: the official TypeScript SDK validates every tool result that has an output
// schema against it (a tool with an output schema must return matching structured content). Drives
// `scratchpad mcp proxy` wrapping server-filesystem and calls every kind of result through it.
//
// Usage: node strict_client.mjs SCRATCHPAD_BIN STORE NODE_PREFIX DIR
// Prints one `ok ...` line on success; exits non-zero with the failed check on stderr.
import path from "node:path";

const [bin, store, prefix, dir] = process.argv.slice(2);
const sdk = (p) => import(path.join(prefix, "node_modules/@modelcontextprotocol/sdk/dist/esm", p));
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

function check(condition, what) {
  if (!condition) throw new Error(what);
}

const node = path.join(prefix, "node_modules/node/bin/node");
const filesystem = path.join(prefix, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
const transport = new StdioClientTransport({
  command: bin,
  args: ["--store", store, "--session", "strict", "mcp", "proxy", "--", node, filesystem, dir],
  stderr: "inherit",
});
const client = new Client({ name: "strict-client", version: "1.0.0" });

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const withSchema = tools.filter((tool) => tool.outputSchema);
  check(withSchema.length > 5, `tools with output schemas: ${withSchema.map((t) => t.name)}`);

  const text = (result) => result.content.filter((b) => b.type === "text").map((b) => b.text).join("\n");
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
