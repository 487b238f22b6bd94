// Package search is llmwiki's full-text search: a BM25 index (bleve v2,
// scorch) of the wiki's pages, sources and context.md, kept under
// .llmwiki/search/ and in step with every audited write.
//
// # Keeping in step
//
// [Index] implements [store.Derived]: registered with [wiki.Store.AddDerived],
// it indexes the files of every committed write inside that write's call. A
// failed update marks the index stale in the store (load_project and every
// search result say so) and the next search reconciles at once, which
// re-indexes what the update missed; an update that fails because the index
// is damaged rebuilds it instead. Files changed outside the server
// (Obsidian, git pull) are found by reconciling: every indexable file's size
// and mtime are compared with a manifest of what was indexed, and a file
// that differs is hashed and re-indexed when its sha256 differs too.
// Reconciling happens when the index opens and before a search: for the
// paths the store's file watcher reported since the last search
// ([wiki.Store.WatchChanges]), with a walk of everything when the watcher
// lost events and every [wiki.FullRescanEvery] (that safety walk runs in the
// background, after the reported paths are applied); without a watcher, at most
// every ReconcileEvery (by default ten times the cost of the last walk,
// capped at 2 s). The first build runs in the background, so a server answers
// initialize and tools/list at once. During a full build (a fresh wiki, a
// rebuild) of 1000 files or more, a search waits about a second and then
// answers from a first pass over every file's title, headings and path
// (early.go), its state "building" and its reason saying so; during any
// other build it waits up to BuildWait and then answers from what is
// indexed, with state "building".
// When another llmwiki process holds the shared index, a process keeps a
// private index under .llmwiki/search/proc-* and removes it when it exits.
//
// # Damage while the server runs
//
// Deleting .llmwiki/search/ rebuilds the index, also while the server runs;
// an unreadable index is rebuilt at start. bleve reads its files through
// mmap (zapx and bbolt offer no other way), so a file truncated in place
// under a running server would make the next read a SIGBUS that kills the
// process. To avoid that (guard.go): before every search and every batch,
// the files of the open index are compared with what was recorded of them
// (root.bolt: same inode, never shorter, meta pages intact, read with
// pread; each live segment: same inode and mtime, as long as its mapping);
// bleve's persister and merger run with debug.SetPanicOnFault (set from
// scorch's event callback), so a fault there is a panic that bleve recovers
// and reports to scorch's async error callback. Either way the index is
// abandoned, never read, written or closed again (its memory, mappings and
// goroutines are leaked on purpose until the process exits), and a new one
// is built from the files in a fresh folder, .llmwiki/search/index-<hex>,
// which .llmwiki/search/current names; the status says "rebuilt: ...".
//
// A window remains: damage that lands after a search or batch has passed
// its check, while bleve is inside the damaged files in a goroutine it
// starts without recovery (the per-segment goroutines of the path-prefix
// and language filters, the introducer that applies a batch), or in the
// persister's first round after the index opens (before its first event),
// can still crash the process. The check costs, per search and per batch,
// one stat of index_meta.json, root.bolt and each live segment and two
// 28-byte preads of root.bolt.
//
// # Languages
//
// Every file gets one language, decided in this order: the frontmatter key
// lang (or language); else the first folder below pages/ or sources/ that
// is named by a language tag ("de", "pt-br", "zh-TW") or ends in ".<tag>" or
// "_<tag>" ("pages.fr", as tldr names its translations); else the script of
// its text (kana → ja, Hangul → ko, Han → zh, Arabic script → ar or fa,
// Cyrillic → ru or uk, Thai, Hebrew, Greek, Devanagari...) or, for Latin
// text, a clear majority of one language's stop words; else the lang key of
// schema.md's frontmatter; else English.
//
// # Analysis
//
// All text goes through one analysis that works for every language (see
// analyze): Unicode word segmentation, NFKC, case folding, accents removed
// from Latin, Greek, Arabic and Hebrew letters (Café finds cafe), and
// overlapping bigrams for Chinese, Japanese, Korean, Thai, Lao, Khmer and
// Myanmar text, so a CJK query finds its page also when a Latin product name
// sits inside it. Identifiers are split (getUserName, snake_case,
// os.path.join, utf8) with their whole form kept as a further term, and
// hyphenated names ("--dry-run", "POL-358") keep their joined forms. On top
// of that, the words of a file are stemmed in the file's own language (a
// Snowball stemmer, or bleve's for Arabic, Persian and Hindi) into a
// separate field whose terms carry the language, so English stemming never
// touches a German page. A query is stemmed in its own language, guessed
// from its script and stop words (or given as lang).
//
// # Ranking
//
// BM25 over one combined field in which the title counts three times and
// aliases, tags and headings twice (a simple BM25F), plus the title alone and
// the stems. Each query word may match any of its forms; a page matching
// more of the query's words ranks higher (bleve's coordination factor). In
// the default best-match mode, stop words of the query's language are left
// out. Length normalisation is weakened (BM25 b = 0.5 instead of bleve's
// 0.75) so a long page that is about the query is not buried by a short page
// that mentions it once.
//
// Code: fenced code blocks and whole-line inline code (tldr's commands) are
// also indexed as their own field. A query that asks for code ("show me the
// code for X") has its asking words (show, code, example...) left out of the
// ranking, and matches in code count double; a hit whose best match is in
// prose brings the listing that follows it.
//
// The query is literal text: nothing in it is an operator, whatever it
// contains ("C++", "a:b", "(", "*", "--dry-run"). The match mode replaces
// syntax: best (default), all, any, phrase.
//
// # Process-wide settings
//
// bleve keeps BM25's b in a package variable, and the other settings this
// package can tune (zapx's segment buffers, Go's memory limit during a
// large build, the merger thread's priority, GOMAXPROCS) belong to the
// whole process. The package changes none of them by itself: the program
// calls [SetProcessSettings] once before [Open] (which panics otherwise),
// which sets b and applies the tunings the program chooses in
// [ProcessSettings]. Registering the package's analyzers and scorch
// callbacks under its own names, from init, adds registry entries and
// retunes nothing.
package search
