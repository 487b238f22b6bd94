// Usage: node team_flow.mjs --bin PATH --root DIR --client NAME [--client-version V]
// One person's editor agent for the team-wiki test: the official TypeScript
// SDK client, introducing itself as NAME (clientInfo), starts
// `PATH serve --root DIR` over stdio and stays connected while the Go test
// drives it. Each line on stdin is one tool call, {"id": N, "tool": name,
// "arguments": {...}}; each answer is one line on stdout, {"id": N,
// "is_error": bool, "text": "...", "structured": {...}}, error or not.
// The first line on stdout, {"ready": [tool names]}, says the session is
// up. End of stdin closes the session and exits.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { args } from "./lib.mjs";

const a = args();
const client = new Client({ name: a.client, version: a["client-version"] ?? "1.0.0" });
await client.connect(new StdioClientTransport({
  command: a.bin,
  args: ["serve", "--root", a.root],
  stderr: "inherit",
  env: { ...process.env, LLMWIKI_LOG: process.env.LLMWIKI_LOG ?? "warn" },
}));
const tools = (await client.listTools()).tools.map((t) => t.name);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
say({ ready: tools });

// Calls run one at a time, in the order they came, as one agent's would.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const req = JSON.parse(line);
  queue = queue.then(async () => {
    try {
      const r = await client.callTool({ name: req.tool, arguments: req.arguments ?? {} }, undefined, { timeout: 120000 });
      say({
        id: req.id,
        is_error: r.isError === true,
        text: (r.content ?? []).map((c) => c.text ?? "").join("\n"),
        structured: r.structuredContent ?? null,
      });
    } catch (e) {
      say({ id: req.id, is_error: true, text: `protocol error: ${e.message}`, structured: null });
    }
  });
});
lines.on("close", () => {
  queue.then(() => client.close()).then(() => process.exit(0));
});
