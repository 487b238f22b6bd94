// Usage: node http_flow.mjs --url http://127.0.0.1:PORT --transport streamable|sse --token T --sources N
// Runs the stdio end-to-end flow over HTTP, then what only a long-lived
// session shows: resources (list, templates, read, subscribe + updated and
// list_changed notifications), MCP logging after logging/setLevel, progress
// notifications for a long call, and a cancelled call that leaves the
// session usable. Prints a JSON summary for the Go test.
import {
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { args, assert, connectHTTP } from "./lib.mjs";
import { flow } from "./flow.mjs";

const a = args();
const w = await connectHTTP(a.url, a.transport, a.token);

// waitFor resolves when pred has seen a matching event, or fails after ms.
function events() {
  const seen = [];
  const waiters = [];
  return {
    seen,
    push(e) {
      seen.push(e);
      for (const wt of [...waiters]) if (wt.pred(e)) { waiters.splice(waiters.indexOf(wt), 1); wt.resolve(e); }
    },
    waitFor(pred, what, ms = 30000) {
      const hit = seen.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        // The timer goes when the event comes: a pending one would keep
        // node running until it fired.
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; saw ${JSON.stringify(seen).slice(0, 2000)}`)), ms);
        const wt = { pred, resolve: (e) => { clearTimeout(timer); resolve(e); } };
        waiters.push(wt);
      });
    },
  };
}

try {
  const ev = events();
  w.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => ev.push({ kind: "updated", uri: n.params.uri }));
  w.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => ev.push({ kind: "list_changed" }));
  w.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => ev.push({ kind: "log", level: n.params.level, data: n.params.data }));

  const summary = await flow(w, { expectSources: Number(a.sources) });
  summary.resourceReads = 0;

  // Resources: the four top-level files and every page, paged.
  const uris = [];
  let cursor;
  do {
    const r = await w.client.listResources(cursor ? { cursor } : {});
    uris.push(...r.resources.map((x) => x.uri));
    for (const x of r.resources) assert.ok(x.name && x.uri, JSON.stringify(x));
    cursor = r.nextCursor;
  } while (cursor);
  for (const u of ["wiki://context.md", "wiki://index.md", "wiki://schema.md", "wiki://guidelines.md",
    "wiki://pages/graph-view", "wiki://pages/daily-notes", "wiki://pages/templates", "wiki://pages/callouts-a-guide"]) {
    assert.ok(uris.includes(u), `resources/list lacks ${u}: ${uris}`);
  }
  const tpl = await w.client.listResourceTemplates();
  assert.deepEqual(tpl.resourceTemplates.map((t) => t.uriTemplate), ["wiki://pages/{slug}"]);
  const page = await w.client.readResource({ uri: "wiki://pages/daily-notes" });
  summary.resourceReads++;
  assert.match(page.contents[0].text, /^---\n[\s\S]*title: Daily notes[\s\S]*YYYY\/MM\/YYYY-MM-DD/);
  const ctx = await w.client.readResource({ uri: "wiki://context.md" });
  summary.resourceReads++;
  assert.match(ctx.contents[0].text, /Onboarding uses the graph view/);
  // A page addressed through the template by another spelling of its name.
  const byTitle = await w.client.readResource({ uri: "wiki://pages/Graph%20View" });
  summary.resourceReads++;
  assert.equal(byTitle.contents[0].uri, "wiki://pages/Graph%20View");
  assert.match(byTitle.contents[0].text, /title: Graph view/);
  await assert.rejects(w.client.readResource({ uri: "wiki://pages/no-such-page" }), /not_found/);
  summary.resourceReads++;

  // Subscribe, write, and hear about it.
  await w.client.subscribeResource({ uri: "wiki://pages/graph-view" });
  await w.client.subscribeResource({ uri: "wiki://context.md" });
  const gv = await w.call("read_page", { page: "graph-view" });
  await w.call("write_page", { title: "Graph view", base_sha256: gv.sha256, content: gv.content + "\nFilters hide orphans.\n" });
  await ev.waitFor((e) => e.kind === "updated" && e.uri === "wiki://pages/graph-view", "resources/updated for graph-view");
  await w.call("write_page", { title: "Canvas", summary: "An infinite board for notes.", content: "# Canvas\n" });
  await ev.waitFor((e) => e.kind === "list_changed", "resources/list_changed after a new page");
  const after = await w.client.listResources({});
  assert.ok(after.resources.some((x) => x.uri === "wiki://pages/canvas" && x.description === "An infinite board for notes."));
  // Unsubscribed from daily-notes: no updated for it.
  const dn = await w.call("read_page", { page: "daily-notes" });
  await w.call("write_page", { title: "Daily notes", base_sha256: dn.sha256, content: dn.content + "\nOne more line.\n" });

  // Logging: silent at the default level, then info after setLevel.
  await w.call("append_log", { op: "note", title: "before setLevel" });
  await w.client.setLoggingLevel("info");
  await w.call("append_log", { op: "note", title: "after setLevel" });
  const log = await ev.waitFor((e) => e.kind === "log" && e.data?.tool === "append_log", "a log message for append_log");
  assert.equal(log.level, "info");
  assert.deepEqual(log.data.writes, ["log.md"]);
  assert.equal(ev.seen.filter((e) => e.kind === "log" && e.data?.tool === "append_log").length, 1, "one log message: the call before setLevel was below the level");
  await w.fail("write_page", { title: "Graph view", base_sha256: "0".repeat(64), content: "stale" });
  await ev.waitFor((e) => e.kind === "log" && e.level === "notice" && e.data?.code === "conflict", "a notice for the conflict");
  assert.ok(!ev.seen.some((e) => e.kind === "updated" && e.uri === "wiki://pages/daily-notes"), "no updated for an unsubscribed page");

  // Progress: gather_sources hashes every source and reports as it goes.
  // The notifications are taken from the transport: the SDK drops progress
  // that arrives in the same read as the response (it runs notification
  // handlers a microtask later), which a busy machine makes likely.
  const progress = [];
  const onmessage = w.transport.onmessage;
  w.transport.onmessage = (m, extra) => {
    if (m.method === "notifications/progress") progress.push(m.params);
    return onmessage(m, extra);
  };
  const r = await w.raw("gather_sources", { mode: "all", budget: 1000 }, { onprogress: () => {} });
  // A call's notifications come before its response, on the same stream.
  const want = Number(a.sources) + 2; // the vault, meeting-notes.md and the research note
  const final = () => progress.some((p) => p.progress === want);
  // The last one must come: wait up to 30 s (only a bound on the wait; a
  // loaded machine can take seconds).
  const tries = 1500;
  for (let i = 0; i < tries && !final(); i++) {
    await new Promise((res) => setTimeout(res, 20));
  }
  w.transport.onmessage = onmessage;
  assert.ok(!r.isError, JSON.stringify(r.content));
  assert.ok(progress.length >= 1, "no progress notifications");
  assert.ok(progress.every((p) => p.progressToken === progress[0].progressToken));
  // The server sends strictly increasing progress, the last at its total
  // (tools/notify.go), on the stream that carries the call's response.
  const values = progress.map((p) => p.progress);
  const lastP = progress[progress.length - 1];
  assert.equal(lastP.progress, want);
  assert.equal(lastP.total, lastP.progress);
  for (let i = 1; i < progress.length; i++) assert.ok(values[i] > values[i - 1], "progress must increase: " + JSON.stringify(values));
  summary.progress = progress.length;

  // Cancellation: abort a call the server is running (it has reported
  // progress); the client sends notifications/cancelled, the call rejects,
  // and the session goes on.
  const ac = new AbortController();
  const pending = w.raw("gather_sources", { mode: "all", budget: 500000 }, { signal: ac.signal, onprogress: () => ac.abort("test cancels") });
  await assert.rejects(pending);
  const still = await w.call("list_pages", {});
  assert.equal(still.total, 5);

  summary.calls = w.calls;
  summary.sessionId = w.transport.sessionId ?? null;
  summary.events = ev.seen.length;
  process.stdout.write(JSON.stringify(summary) + "\n");
} finally {
  await w.close();
}
