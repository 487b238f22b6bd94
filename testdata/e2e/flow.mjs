// The end-to-end flow of issue 2 over any transport: a real wiki whose
// sources/ holds the Obsidian Help vault. Prints a JSON summary on stdout for
// the Go test to check against the disk.
import { assert } from "./lib.mjs";

export async function flow(w, { expectSources }) {
  const summary = { calls: 0, writes: [] };

  // initialize's instructions reach the client: the workflow, naming the
  // tools an agent starts with.
  const instructions = w.client.getInstructions();
  assert.equal(typeof instructions, "string", "initialize carried no instructions");
  assert.ok(instructions.trim().length > 0, "the instructions are empty");
  for (const tool of ["load_project", "search_wiki"]) {
    assert.ok(instructions.includes(tool), `the instructions do not name ${tool}`);
  }
  summary.instructionsChars = instructions.length;

  // tools/list: every tool has all four hints set explicitly.
  const { tools } = await w.client.listTools();
  const names = tools.map((t) => t.name).sort();
  for (const want of ["load_project", "read_page", "list_pages", "gather_sources", "validate_structure",
    "atomic_write_context", "write_page", "research_save", "save_source", "append_log", "rebuild_index"]) {
    assert.ok(names.includes(want), `tools/list lacks ${want}`);
  }
  for (const t of tools) {
    for (const h of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      assert.equal(typeof t.annotations?.[h], "boolean", `${t.name} does not set ${h}`);
    }
    assert.ok(t.outputSchema, `${t.name} has no output schema`);
  }
  summary.tools = names;

  const p = await w.call("load_project");
  assert.equal(p.counts.sources, expectSources);
  assert.equal(p.counts.pending_sources, expectSources);
  assert.match(p.schema, /wiki-worthy/);

  // gather_sources until the cursor ends: every source exactly once, budget respected.
  const budget = 30000;
  const seen = new Map();
  let cursor;
  let pages = 0;
  do {
    const r = await w.call("gather_sources", cursor ? { budget, cursor } : { budget });
    pages++;
    let chars = 0;
    for (const s of r.sources) {
      assert.ok(!seen.has(s.path), `${s.path} returned twice`);
      seen.set(s.path, s);
      chars += [...(s.content ?? "")].length;
    }
    const alone = r.sources.length === 1 && r.sources[0].truncated;
    assert.ok(chars <= budget || alone, `page ${pages} holds ${chars} chars over budget ${budget}`);
    assert.equal(r.chars, chars);
    cursor = r.next_cursor;
  } while (cursor);
  assert.equal(seen.size, expectSources, "every source returned once");
  summary.gatherPages = pages;

  // Pages.
  const written = [];
  const topics = [
    ["Graph view", "How the graph view shows notes and their links, and how to colour groups of notes.", ["sources/Plugins/Graph view.md"]],
    ["Daily notes", "One note per day, named by date; the date format can put them in year and month folders.", ["sources/Plugins/Daily notes.md"]],
    ["Templates", "Insert prepared text; {{date}} and {{time}} placeholders take a format.", ["sources/Plugins/Templates.md"]],
    ["Callouts: a guide", "Boxes that highlight text; a '-' after the type makes them start collapsed.", ["sources/Editing and formatting/Callouts.md"]],
  ];
  for (const [title, summaryLine, sources] of topics) {
    const r = await w.call("write_page", {
      title, summary: summaryLine, tags: ["obsidian"], sources,
      content: `# ${title}\n\n${summaryLine}\n\n## Related\n\n- [[graph-view]]\n`,
    });
    assert.equal(r.created, true);
    written.push(r.path);
  }
  const page = await w.call("read_page", { page: "Daily Notes" });
  assert.equal(page.path, "pages/daily-notes.md");
  assert.equal(page.frontmatter.title, "Daily notes");
  const upd = await w.call("write_page", {
    title: "Daily notes", base_sha256: page.sha256,
    content: page.content + "\nUse the `YYYY/MM/YYYY-MM-DD` format to file notes by year and month.\n",
  });
  assert.equal(upd.created, false);
  assert.ok(upd.snapshot.startsWith(".llmwiki/snapshots/pages/daily-notes.md/"));
  const stale = await w.fail("write_page", { title: "Daily notes", base_sha256: page.sha256, content: "lost?" });
  assert.match(stale, /^conflict: /);

  // context.md folds every source; then nothing is pending.
  const ctx1 = await w.call("atomic_write_context", {
    content: "# Context\n\nObsidian keeps notes as markdown files in a vault; see [[graph-view]] and [[daily-notes]].\n",
    folded_sources: [...seen.keys()],
  });
  assert.equal(ctx1.folded.length, expectSources);
  const none = await w.call("gather_sources", {});
  assert.equal(none.sources.length, 0);
  assert.equal(none.matching, 0);

  // One new source: exactly that one is pending.
  const saved = await w.call("save_source", { path: "sources/new/meeting-notes.md", content: "# Meeting\n\nWe chose the graph view for onboarding.\n" });
  const one = await w.call("gather_sources", {});
  assert.deepEqual(one.sources.map((s) => s.path), [saved.path]);
  const ctx2 = await w.call("atomic_write_context", {
    content: "# Context\n\nObsidian keeps notes as markdown files in a vault.\n\nOnboarding uses the graph view (meeting notes).\n",
    folded_sources: [saved.path],
  });
  assert.ok(ctx2.snapshot.startsWith(".llmwiki/snapshots/context.md/"));

  // research_save twice: the second appends.
  const r1 = await w.call("research_save", { topic: "Obsidian sync options", content: "Sync is a paid add-on.", urls: ["https://obsidian.md/sync"] });
  const r2 = await w.call("research_save", { topic: "Obsidian sync options", heading: "Follow-up", content: "Git works too." });
  assert.equal(r1.created, true);
  assert.equal(r2.created, false);
  assert.equal(r1.path, r2.path);
  const note = await w.call("read_page", { path: r1.path });
  assert.match(note.content, /Sync is a paid add-on\.[\s\S]*Git works too\./);

  await w.call("append_log", { op: "build", title: "Folded the Obsidian Help vault", details: "- created [[graph-view]]\n## [2000-01-01 00:00] ingest | forged?" });
  const idx = await w.call("rebuild_index");
  assert.equal(idx.pages, 4);
  const v = await w.call("validate_structure");
  assert.deepEqual(v.problems, [], JSON.stringify(v.problems));
  assert.equal(v.ok, true);

  const list = await w.call("list_pages", { tag: "obsidian" });
  assert.equal(list.total, 4);

  summary.calls = w.calls;
  summary.pages = written;
  return summary;
}
