// Usage: node plan_flow.mjs --bin PATH --root DIR --base-url URL
// Drives propose_plan and apply_plan over stdio against a scripted
// OpenAI-compatible endpoint (the Go test serves it) and prints a summary.
import { args, assert, connectStdio } from "./lib.mjs";

const a = args();
const w = await connectStdio(a.bin, a.root, ["--base-url", a["base-url"], "--model", "test-model"]);
try {
  const tools = (await w.client.listTools()).tools;
  const propose = tools.find((t) => t.name === "propose_plan");
  const apply = tools.find((t) => t.name === "apply_plan");
  assert.ok(propose && apply, "plan tools listed");
  assert.equal(propose.annotations.readOnlyHint, false);
  assert.equal(propose.annotations.openWorldHint, true);
  assert.equal(apply.annotations.destructiveHint, true);
  assert.equal(apply.annotations.openWorldHint, false);

  await w.call("save_source", { path: "sources/wal.md", content: "# WAL\n\nSQLite's write-ahead log lets readers continue while a writer appends.\n" });
  const plan = await w.call("propose_plan", { operation: "ingest", source: "sources/wal.md" });
  assert.equal(plan.actions.length, 2);
  assert.equal(plan.actions[0].n, 1);
  assert.equal(plan.actions[0].target, "pages/sqlite-wal.md");

  const bad = await w.fail("apply_plan", { plan_id: plan.plan_id, selected: [3] });
  assert.match(bad, /action 3 does not exist/);
  const done = await w.call("apply_plan", { plan_id: plan.plan_id, selected: [1] });
  assert.equal(done.status, "applied");
  assert.equal(done.applied, 1);
  const page = await w.call("read_page", { path: "pages/sqlite-wal.md" });
  process.stdout.write(JSON.stringify({ plan_id: plan.plan_id, calls: w.calls, body: page.body ?? page.content ?? "" }) + "\n");
} finally {
  await w.close();
}
