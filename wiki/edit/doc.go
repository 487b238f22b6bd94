// Package edit makes targeted changes to wiki pages through the audited
// writer: section edits by heading, links added to "## Related",
// find-and-replace with an expected count, frontmatter merges ([Edit]),
// and renames that rewrite every link to the page across the wiki
// ([Move]).
//
// Every change reads the page inside one [wiki.Store.Update] transaction,
// checks the caller's base_sha256 (the version it read), and writes with
// the writer's guarantees: snapshot of the old version, atomic write, audit
// line, index.md kept in step. A move changes many files in that one
// transaction, so it lands whole or not at all.
//
// Sections are found with the markdown parser of wiki/links, so a "#" line
// inside fenced code is never taken for a heading.
//
// Edit and Move are wiki features, but they live here rather than in
// package wiki because they read the link graph (wiki/links: the resolver
// for add_links, the backlinks a move rewrites), which is derived state
// built on package wiki.
package edit
