// Package wiki is the llmwiki store: the layout of a wiki project on disk, page
// names and slugs, frontmatter, and the one audited writer every write goes
// through.
//
// A [Store] owns one [os.Root] opened on the project directory. Every path a
// caller names is validated ([CleanPath], [Slugify]) and then resolved through
// that root, so no name, symlink or prefix trick reaches outside it. Writes are
// transactions ([Store.Update]): they take the project lock (an in-process
// mutex plus a cross-process file lock on .llmwiki/lock), check the caller's
// base_sha256, snapshot each replaced version under .llmwiki/snapshots/, write
// each file atomically (temp file beside the target, fsync, rename, fsync the
// directory), and record the sha256 of every path before and after in the
// call's audit line (.llmwiki/audit/YYYY-MM-DD.jsonl). The README's "A wiki
// on disk" lists the invariants; each has a test in this package.
//
// This package never imports an MCP library: tools/ adapts it to MCP, and the
// command line uses it directly.
package wiki
