// Usage: node links_flow.mjs --bin PATH --root DIR
// Links, lint and targeted edits over stdio on a real wiki (the English
// Obsidian Help vault as pages/): backlinks, lint_findings (deterministic),
// submit_lint_findings (quotes checked) and dismiss_lint_findings,
// edit_page with base_sha256, and move_page
// of a page that six others link to. Prints a JSON summary for the Go test.
import { args, assert, connectStdio } from "./lib.mjs";

const a = args();
const w = await connectStdio(a.bin, a.root);
const summary = {};
try {
  const tools = (await w.client.listTools()).tools;
  const by = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const n of ["lint_findings", "submit_lint_findings", "dismiss_lint_findings", "edit_page", "move_page"]) assert.ok(by[n], `${n} is registered`);
  assert.equal(by.lint_findings.annotations.readOnlyHint, true);
  assert.equal(by.submit_lint_findings.annotations.readOnlyHint, false);
  assert.equal(by.dismiss_lint_findings.annotations.readOnlyHint, false);
  assert.equal(by.edit_page.annotations.readOnlyHint, false);
  assert.equal(by.move_page.annotations.destructiveHint, true);

  // Backlinks.
  const gv = await w.call("read_page", { path: "pages/Plugins/Graph view.md" });
  const froms = gv.backlinks.map((b) => b.path);
  assert.ok(froms.includes("pages/User interface/Tabs.md"), `backlinks: ${froms}`);
  assert.equal(gv.backlinks_total, gv.backlinks.length);
  summary.graph_backlinks = gv.backlinks_total;

  // Deterministic lint.
  const before = await w.call("lint_findings", { categories: ["dangling_link", "missing_heading"], limit: 500 });
  summary.dangling_before = before.counts.dangling_link ?? 0;
  summary.missing_heading_before = before.counts.missing_heading ?? 0;
  for (const f of before.findings) {
    assert.ok(f.id && f.path && f.message && f.action && f.severity, `incomplete finding ${JSON.stringify(f)}`);
  }
  const all = await w.call("lint_findings", { limit: 1 });
  assert.ok(all.total > 100, "a raw vault has many findings");
  assert.equal(all.findings.length, 1);
  assert.equal(all.next_cursor, "1");

  // edit_page: a stale base is refused; the right one appends.
  const tabs = await w.call("read_page", { path: "pages/User interface/Tabs.md" });
  const stale = await w.fail("edit_page", { page: "pages/User interface/Tabs.md", base_sha256: "0".repeat(64), op: "append", heading: "Related", content: "x" });
  assert.match(stale, /^conflict: /);
  const ed = await w.call("edit_page", {
    page: "pages/User interface/Tabs.md", base_sha256: tabs.sha256, op: "add_links", links: ["Graph view", "Canvas"],
  });
  assert.equal(ed.changed, true);
  summary.links_added = ed.links_added;

  // move_page: every link to Graph view follows; nothing new dangles.
  const mv = await w.call("move_page", { page: "pages/Plugins/Graph view.md", slug: "Plugins/Graph" });
  assert.equal(mv.path, "pages/Plugins/Graph.md");
  summary.moved_to = mv.path;
  summary.links_rewritten = mv.links_rewritten;
  summary.rewritten = mv.rewritten.map((r) => r.path);
  const after = await w.call("lint_findings", { categories: ["dangling_link", "missing_heading"], limit: 500 });
  assert.equal(after.counts.dangling_link ?? 0, summary.dangling_before, "the move left no dangling link");
  assert.equal(after.counts.missing_heading ?? 0, summary.missing_heading_before, "headings kept");
  const moved = await w.call("read_page", { path: mv.path });
  assert.ok(moved.backlinks_total >= gv.backlinks_total, "backlinks followed the page");
  await w.fail("read_page", { path: "pages/Plugins/Graph view.md" });

  // Submitted findings: quotes are checked, a made-up one is unverified.
  const sub = await w.call("submit_lint_findings", {
    findings: [
      {
        kind: "contradiction", message: "Tabs says one thing, About Obsidian another",
        evidence: [
          { path: "pages/User interface/Tabs.md", quote: (tabs.content.match(/[A-Z][^.\n]{20,120}\./) ?? ["x"])[0] },
          { path: "pages/Obsidian/About Obsidian.md", quote: "Obsidian greatly values this" },
        ],
      },
      { kind: "unsupported_claim", message: "invented", evidence: [{ path: mv.path, quote: "The graph view was removed in 2020" }] },
    ],
  });
  assert.equal(sub.submitted[0].verified, true, JSON.stringify(sub.submitted[0]));
  assert.equal(sub.submitted[1].verified, false);
  assert.equal(sub.unverified, 1);
  const dis = await w.call("dismiss_lint_findings", { dismiss: [sub.submitted[1].id], reason: "noise" });
  assert.deepEqual(dis.dismissed_ids, [sub.submitted[1].id]);
  const left = await w.call("lint_findings", { categories: ["contradiction", "unsupported_claim"] });
  assert.equal(left.dismissed, 1);
  assert.equal(left.total, 1);
  summary.calls = w.calls;
} finally {
  await w.client.close();
}
console.log(JSON.stringify(summary));
