// Usage: node plan_flow.mjs --bin PATH --root DIR --base-url URL
// Drives propose_plan and apply_plan over stdio against a scripted
// OpenAI-compatible endpoint (the Go test serves it) and prints a summary.
// Each completion takes --delay ms; the server reports progress every
// $LLMWIKI_PROGRESS_INTERVAL, so a call whose timeout is shorter than the
// delay succeeds when it resets its timeout on progress.
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
  const plan = await w.call("propose_plan", { operation: "ingest", path: "sources/wal.md" });
  assert.equal(plan.actions.length, 2);
  assert.equal(plan.actions[0].n, 1);
  assert.equal(plan.actions[0].path, "pages/sqlite-wal.md");

  const bad = await w.fail("apply_plan", { plan_id: plan.plan_id, selected: [3] });
  assert.match(bad, /action 3 does not exist/);
  const done = await w.call("apply_plan", { plan_id: plan.plan_id, selected: [1] });
  assert.equal(done.status, "applied");
  assert.equal(done.applied, 1);
  const page = await w.call("read_page", { path: "pages/sqlite-wal.md" });

  // A slow model and a client with a short timeout that resets on progress
  // (the SDK's default timeout is 60 s; a completion can take minutes).
  const delay = Number(a.delay);
  assert.ok(delay >= 1000, "--delay is at least a second");
  await w.call("save_source", { path: "sources/checkpoint.md", content: "# Checkpoints\n\nA checkpoint copies WAL pages back into the database.\n" });
  const progress = [];
  const started = Date.now();
  w.calls++;
  const slow = await w.client.callTool(
    { name: "propose_plan", arguments: { operation: "ingest", path: "sources/checkpoint.md" } },
    undefined,
    { timeout: Math.floor(delay / 2), resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) },
  );
  const took = Date.now() - started;
  assert.ok(!slow.isError, `slow propose_plan failed: ${JSON.stringify(slow.content)}`);
  assert.ok(took >= delay, `the call took ${took} ms, less than the model's ${delay} ms`);
  assert.equal(slow.structuredContent.actions[0].path, "pages/sqlite-checkpoints.md");
  assert.ok(progress.length >= 2, `progress while waiting: ${JSON.stringify(progress)}`);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].progress > progress[i - 1].progress, "progress increases");
  assert.match(progress[0].message, /^waiting for test-model \(\d+s\)$/);

  process.stdout.write(JSON.stringify({ plan_id: plan.plan_id, slow_plan_id: slow.structuredContent.plan_id, calls: w.calls, progress: progress.length, content: page.content ?? "" }) + "\n");
} finally {
  await w.close();
}
