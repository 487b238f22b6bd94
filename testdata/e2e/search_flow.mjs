// Usage: node search_flow.mjs --bin PATH --root DIR --pages N
// search_wiki end to end through the built binary over stdio, with the
// official TypeScript SDK, on a wiki whose pages/ holds the English Obsidian
// Help vault. Prints a JSON summary for the Go test.
import { args, assert, connectStdio } from "./lib.mjs";

const a = args();
const w = await connectStdio(a.bin, a.root);
try {
  const { tools } = await w.client.listTools();
  const t = tools.find((x) => x.name === "search_wiki");
  assert.ok(t, "tools/list lacks search_wiki");
  assert.equal(t.annotations.readOnlyHint, true);
  assert.equal(t.annotations.destructiveHint, false);
  assert.deepEqual(t.inputSchema.required, ["query"]);

  // load_project reports the index.
  const p = await w.call("load_project");
  assert.ok(p.index, "load_project has no index");
  assert.ok(["ready", "building"].includes(p.index.state), `index state ${p.index.state}`);

  // A paraphrased question finds its page; the hit carries a marked snippet.
  const r = await w.call("search_wiki", { query: "how do I give some of my notes their own colour in the graph" });
  assert.equal(r.index.state, "ready", JSON.stringify(r.index));
  assert.equal(r.index.pages, Number(a.pages), "pages indexed (context.md is not a page)");
  assert.equal(r.hits[0].path, "pages/obsidian-help/en/Plugins/Graph view.md", JSON.stringify(r.hits.map((h) => h.path)));
  assert.match(r.hits[0].snippet, /\*\*graph\*\*/i);
  assert.ok(r.hits.length <= 10 && r.total >= r.hits.length);

  // Literal text: operators are not operators; CJK and accents work.
  for (const q of ["C++", "--dry-run", "a:b", "POL-358", "don't", "title:graph"]) {
    const x = await w.call("search_wiki", { query: q, scope: "all" });
    assert.equal(x.index.state, "ready");
  }
  const phrase = await w.call("search_wiki", { query: "Open graph view", match: "phrase", limit: 3 });
  assert.ok(phrase.hits.length > 0);

  // A page written through write_page is found by the very next search.
  await w.call("write_page", { title: "Axolotl notes", summary: "On axolotls.", content: "The axolotl regrows its limbs.\n" });
  const ax = await w.call("search_wiki", { query: "axolotl limbs", limit: 1 });
  assert.equal(ax.hits[0].path, "pages/axolotl-notes.md");

  // Bad input is a clear tool error.
  for (const q of ["", "   ", "((( ***"]) {
    const msg = await w.fail("search_wiki", { query: q });
    assert.match(msg, /query/);
  }
  const msg = await w.fail("search_wiki", { query: "x", scope: "web" });
  assert.match(msg, /scope/);
  const long = await w.call("search_wiki", { query: "graph ".repeat(2000) });
  assert.equal(long.hits[0].path, "pages/obsidian-help/en/Plugins/Graph view.md");

  process.stdout.write(JSON.stringify({ calls: w.calls, top: r.hits[0].path }) + "\n");
} finally {
  await w.close();
}
