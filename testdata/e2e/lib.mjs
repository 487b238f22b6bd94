// Shared helpers for the end-to-end scripts: connect the official MCP
// TypeScript SDK client to a built llmwiki binary and call tools.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

export function args() {
  const out = {};
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) out[a[i].replace(/^--/, "")] = a[i + 1];
  return out;
}

// connectStdio starts `bin serve --root root` and returns a connected client
// plus a counter of tool calls made through call().
export async function connectStdio(bin, root, extraArgs = []) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["serve", "--root", root, ...extraArgs],
    stderr: "inherit",
    env: { ...process.env, LLMWIKI_LOG: "warn" },
  });
  const client = new Client({ name: "llmwiki-e2e", version: "1.0.0" });
  await client.connect(transport);
  return wrap(client);
}

// connectHTTP connects to a running `llmwiki serve --http`: base is
// "http://127.0.0.1:PORT", kind "streamable" (/mcp) or "sse" (/sse), token
// the bearer token ("" for none).
export async function connectHTTP(base, kind, token) {
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  const transport = kind === "sse"
    ? new SSEClientTransport(new URL("/sse", base), { requestInit })
    : new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit });
  const client = new Client({ name: "llmwiki-e2e", version: "1.0.0" });
  await client.connect(transport);
  const w = wrap(client);
  w.transport = transport;
  return w;
}

export function wrap(client) {
  const w = {
    client,
    calls: 0,
    // call invokes a tool and returns its structured result; it fails the
    // test when the tool reports an error.
    async call(name, args = {}) {
      const r = await w.raw(name, args);
      assert.ok(!r.isError, `${name} failed: ${JSON.stringify(r.content)}`);
      assert.ok(r.structuredContent, `${name} returned no structuredContent`);
      return r.structuredContent;
    },
    // fail invokes a tool that must report an error and returns its text.
    async fail(name, args = {}) {
      const r = await w.raw(name, args);
      assert.equal(r.isError, true, `${name} should have failed: ${JSON.stringify(r.structuredContent ?? r.content)}`);
      return r.content.map((c) => c.text).join("\n");
    },
    async raw(name, args, options = {}) {
      w.calls++;
      return client.callTool({ name, arguments: args }, undefined, { timeout: 120000, ...options });
    },
    async close() {
      await client.close();
    },
  };
  return w;
}

export { assert };
