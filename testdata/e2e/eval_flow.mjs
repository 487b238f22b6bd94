// Usage: node eval_flow.mjs --bin PATH --root DIR
// An agent answers two questions over stdio and files them with
// file_answer: the first with a wrong citation it then corrects (replaces),
// the second from a raw source. Prints a JSON summary for the Go test.
import { args, assert, connectStdio } from "./lib.mjs";

const a = args();
const w = await connectStdio(a.bin, a.root);
try {
  const tools = (await w.client.listTools()).tools;
  const fa = tools.find((t) => t.name === "file_answer");
  assert.ok(fa, "file_answer is registered");
  assert.equal(fa.annotations.readOnlyHint, false);
  assert.equal(fa.annotations.destructiveHint, false);

  await w.call("load_project");
  const page = await w.call("read_page", { path: "pages/sync.md" });
  assert.match(page.content, /keeping both versions/);

  const first = await w.call("file_answer", {
    question: "How does Sync handle conflicts?",
    answer: "It keeps both versions.",
    topic: "sync conflicts",
    citations: [
      { path: "pages/sync.md", quote: "Conflicts are resolved by keeping both versions" },
      { path: "pages/sync.md", quote: "Conflicts are merged automatically" },
    ],
  });
  assert.equal(first.verified, 1);
  assert.equal(first.unverified, 1);
  assert.equal(first.all_verified, false);
  assert.equal(first.citations[0].line, 8);
  assert.match(first.citations[1].problem, /the quote is not in pages\/sync.md/);
  assert.match(first.advice, /replaces=/);

  const fixed = await w.call("file_answer", {
    question: "How does Sync handle conflicts?",
    answer: "It keeps both versions.",
    topic: "sync conflicts",
    replaces: first.answer_id,
    citations: [{ path: "sync", quote: "Conflicts are resolved by keeping both versions" }],
  });
  assert.equal(fixed.all_verified, true);
  assert.equal(fixed.citations[0].path, "pages/sync.md");

  await w.call("read_page", { path: "sources/publish.md" });
  const second = await w.call("file_answer", {
    question: "How much does Publish cost?",
    answer: "8 dollars per month.",
    citations: [{ path: "sources/publish.md", quote: "Publish costs 8 dollars per month" }],
  });
  assert.equal(second.all_verified, true);

  const bad = await w.fail("file_answer", { question: "", answer: "x" });
  assert.match(bad, /question is empty/);
  const notOurs = await w.fail("file_answer", { question: "q", answer: "a", replaces: "a20200101T000000Z-00000000" });
  assert.match(notOurs, /no stored answer/);

  process.stdout.write(JSON.stringify({ calls: w.calls, first: first.answer_id, fixed: fixed.answer_id }) + "\n");
} finally {
  await w.close();
}
