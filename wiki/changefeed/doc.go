// Package changefeed watches a project folder (the wiki) for changes made
// outside the process and tells each consumer which paths changed since it
// last looked ([Sub.Take]), so that a consumer re-reads those paths instead
// of walking the whole tree on every call. It knows paths, stats and
// events, not pages: what a path means is the consumer's business.
//
// The interface consumers rely on is [Changes]: when it says Live, apply
// Paths (or walk everything when it says Full); when it does not (no
// watcher runs: turned off, or it could not start, or it failed), walk the
// tree with a plain stat walk whenever the last walk is older than the
// consumer's freshness window. A nil [*Feed] is such a feed, and its
// cursors always report Live false.
package changefeed
