// Usage: node review_flow.mjs (--bin PATH --root DIR | --url BASE [--transport streamable|sse])
//        --steps FILE [--person ANSWER] [--serve-args JSON]
// Review by a person with the official TypeScript SDK client, over stdio
// (the client starts `PATH serve --root DIR`) or to a running
// `llmwiki serve --http` at BASE (http://127.0.0.1:PORT); --serve-args is a
// JSON list of more flags for the stdio server (--base-url ...).
// FILE holds a JSON list of tool calls ({"tool": name, "arguments": {...}}),
// made in order on one connection; each call's result is kept, error or
// not, and an argument "$N.field" is that field of step N's result. A step
// {"tool": "$pause"} writes FILE.paused and waits for FILE.resume. ANSWER says how the person answers elicitation/create:
//   none (default)  the client does not declare the elicitation capability;
//   accept:1,3      accept with exactly those actions ticked (action_N),
//                   every other boolean of the form unticked;
//   accept          accept without content (the form's defaults stand);
//   decline, cancel that action;
//   error           the client answers elicitation/create with an error.
// Prints {"elicitations": [params...], "results": [{is_error, text,
// structured}]} for the Go test, which checks the disk and the audit log.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { args, assert } from "./lib.mjs";

const a = args();
const steps = JSON.parse(readFileSync(a.steps, "utf8"));
const answer = a.person ?? "none";
const elicitations = [];

const capabilities = answer === "none" ? {} : { elicitation: { form: {} } };
const client = new Client({ name: "llmwiki-e2e-review", version: "1.0.0" }, { capabilities });
if (answer !== "none") {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicitations.push(req.params);
    if (answer === "error") throw new Error("the editor could not show the form");
    const [action, ticks] = answer.split(":");
    if (action !== "accept") return { action };
    if (ticks === undefined) return { action: "accept" };
    const want = new Set(ticks.split(",").filter(Boolean).map((n) => `action_${n}`));
    const content = {};
    for (const key of Object.keys(req.params.requestedSchema?.properties ?? {})) content[key] = want.has(key);
    return { action: "accept", content };
  });
}
const transport = a.url
  ? a.transport === "sse"
    ? new SSEClientTransport(new URL("/sse", a.url))
    : new StreamableHTTPClientTransport(new URL("/mcp", a.url))
  : new StdioClientTransport({
    command: a.bin,
    args: ["serve", "--root", a.root, ...JSON.parse(a["serve-args"] ?? "[]")],
    stderr: "inherit",
    env: { ...process.env, LLMWIKI_LOG: "warn" },
  });
await client.connect(transport);
const results = [];
// resolve replaces an argument string "$N.field" by that field of step N's
// (0-based) structured result, so a step can use an id an earlier one got.
function resolve(v) {
  if (typeof v === "string") {
    const m = /^\$(\d+)\.(\w+)$/.exec(v);
    return m ? results[Number(m[1])]?.structured?.[m[2]] : v;
  }
  if (Array.isArray(v)) return v.map(resolve);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  return v;
}
try {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes("propose_changes"), `propose_changes is registered: ${tools}`);
  for (const s of steps) {
    if (s.tool === "$pause") {
      // Let the Go test act (the command line, a disk edit) while this
      // session stays connected: say so in FILE.paused, wait for
      // FILE.resume.
      writeFileSync(`${a.steps}.paused`, "");
      while (!existsSync(`${a.steps}.resume`)) await new Promise((r) => setTimeout(r, 50));
      results.push({ tool: s.tool, is_error: false, text: "", structured: null });
      continue;
    }
    const r = await client.callTool({ name: s.tool, arguments: resolve(s.arguments) }, undefined, { timeout: 120000 });
    results.push({
      tool: s.tool,
      is_error: r.isError === true,
      text: (r.content ?? []).map((c) => c.text ?? "").join("\n"),
      structured: r.structuredContent ?? null,
    });
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify({ elicitations, results }));
