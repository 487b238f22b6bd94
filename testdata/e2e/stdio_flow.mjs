// Usage: node stdio_flow.mjs --bin PATH --root DIR --sources N
import { args, connectStdio } from "./lib.mjs";
import { flow } from "./flow.mjs";

const a = args();
const w = await connectStdio(a.bin, a.root);
try {
  const summary = await flow(w, { expectSources: Number(a.sources) });
  process.stdout.write(JSON.stringify(summary) + "\n");
} finally {
  await w.close();
}
