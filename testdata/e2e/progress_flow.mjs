// Usage: node progress_flow.mjs --url http://127.0.0.1:PORT --transport streamable|sse [--calls N]
// Calls rebuild_index N times with a progress token and prints, per call,
// the progress notifications the SDK handed to onprogress, as JSON.
import { args, connectHTTP } from "./lib.mjs";

const a = args();
const w = await connectHTTP(a.url, a.transport, "");
try {
  // The streamable HTTP client opens its standalone GET stream after
  // initialization; give it time so the calls run with that stream open.
  await new Promise((res) => setTimeout(res, 500));
  const out = [];
  for (let i = 0; i < Number(a.calls ?? 3); i++) {
    const got = [];
    await w.raw("rebuild_index", {}, { onprogress: (p) => got.push(p) });
    out.push(got);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} finally {
  await w.close();
}
