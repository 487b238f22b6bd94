// Prompts over stdio with the official SDK: prompts/list, prompts/get with an
// argument, and completion/complete for source paths and page slugs. Prints
// a JSON summary for cmd/llmwiki/prompts_e2e_test.go to check.
import { args, connectStdio, assert } from "./lib.mjs";

const a = args();
const extra = a.mode === "read-only" ? ["--read-only"] : [];
const w = await connectStdio(a.bin, a.root, extra);
const c = w.client;
assert.ok(c.getServerCapabilities().prompts, "no prompts capability");
assert.ok(c.getServerCapabilities().completions, "no completions capability");
const list = await c.listPrompts();
const out = { prompts: list.prompts.map((p) => p.name).sort(), args: {} };
for (const p of list.prompts) out.args[p.name] = (p.arguments ?? []).map((x) => x.name + (x.required ? "*" : ""));
const complete = async (prompt, arg, value) =>
  (await c.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name: arg, value } })).completion.values;
if (out.prompts.includes("ingest")) {
  const got = await c.getPrompt({ name: "ingest", arguments: { path: "sources/notes/a.md" } });
  out.ingest = got.messages[0].content.text;
  out.sources = await complete("ingest", "path", "notes");
}
out.pages = await complete("query", "page", "gra");
try {
  await c.getPrompt({ name: "query", arguments: {} });
  out.missing = "accepted";
} catch (e) {
  out.missing = String(e.message);
}
await w.close();
console.log(JSON.stringify(out));
