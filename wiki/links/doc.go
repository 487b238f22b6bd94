// Package links finds, resolves and rewrites the links of a wiki's markdown
// files, the way Obsidian reads them.
//
// Parsing ([Parse]) uses a real markdown parser, github.com/yuin/goldmark,
// with the go.abhg.dev/goldmark/wikilink extension, never regular
// expressions: a link is whatever the parser sees as one, so nothing inside a
// code span, fenced or indented code, or an HTML block is a link (bash
// `[[ -n "$x" ]]`, TOML `[[servers]]`, tldr's `{{[-C|--directory]}}`). It
// reports wikilinks `[[t]]`, `[[t|alias]]`, `[[t#Heading]]`,
// `[[t#H1#H2]]`, `[[t#^block]]`, `[[t^block]]` and embeds `![[t]]`;
// markdown links and images to local files (`[x](Some%20note.md#Part)`,
// `![x](pic.png)`; URLs with a scheme are external and skipped); wikilinks
// that are the whole value of a frontmatter property (`related: "[[x]]"`);
// and each file's headings and block ids (`^id` at the end of a paragraph or
// list item), which links into the file are checked against. In a table,
// `[[a\|b]]` is target a with alias b.
//
// Resolution ([Resolver]) follows Obsidian: a link names a file by path or
// by its last path components (`[[Foo]]`, `[[folder/Foo]]`, `[[Foo.md]]`),
// case-insensitively and under Unicode NFC; `./` and `../` are relative to
// the linking file; a name no file has resolves through the frontmatter
// `aliases` of pages. When several files match, the one nearest the linking
// file wins (most leading folders in common), and the link is reported as
// ambiguous when two are equally near.
//
// [Graph] keeps the parsed files of a [wiki.Store] in step with the disk: its
// opener ([Open]) registers it as [store.Derived], so every audited write
// updates it, and
// edits made outside the server (Obsidian, git) are picked up from the
// store's change feed (the paths the file watcher reported), else by a walk
// comparing size and modification time. [Graph.View] gives an immutable
// picture with every link resolved and the backlinks of every file; a
// change re-resolves only the links it can affect. [Rewrite] changes link
// targets in a file's bytes, keeping aliases, headings and block refs; it is
// what move_page uses.
//
// This package imports wiki; wiki never imports it.
package links
