// Package wiki is the llmwiki wiki: the layout of a wiki project on disk, page
// names and slugs, frontmatter, and the features (pages, sources, context,
// index, log, restore, validate) over one transactional store.
//
// A [Store] embeds a [store.Store] opened on the project directory, with the
// wiki's rules installed as its policy (policy.go): every path a caller names
// is validated ([CleanPath]), schema.md is the person's, sources are add-only,
// log.md is append-only, guidelines.md keeps its "## My Rules", pages are .md
// files with one identity key ([PageKey]). The store makes every write a
// locked, snapshotted, atomic, audited transaction ([store.Store.Update]).
// docs/design.md ("The write invariants") lists the invariants; each has a
// test in this package or in wiki/store.
//
// This package never imports an MCP library: tools/ adapts it to MCP, and the
// command line uses it directly.
package wiki
