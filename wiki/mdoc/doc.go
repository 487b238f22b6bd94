// Package mdoc is the markdown document model the wiki's features share:
// the one scanner of fenced code blocks and ATX headings ([Fences], [ATX]),
// the decoding of a file's bytes into the text llmwiki shows, searches and
// checks ([Decode]), and frontmatter: the split of a file into its metadata
// and body ([ParseDoc]) and the rendering of a page's frontmatter
// ([RenderDoc], [MergeFrontmatter]); and the slug of a title or name
// ([Slugify], [NormalizeSlug]).
//
// The scanner reads markdown line by line, by the CommonMark rules for
// fences and ATX headings, without building a tree: the search index runs
// it on every page when it builds. Setext headings, links and inline markup
// are for a full parser (wiki/links parses with goldmark); mdoc agrees with
// goldmark on where fenced code is and which lines are ATX headings
// (FuzzScan checks it). mdoc imports nothing of the wiki but the coded
// errors of wiki/store.
package mdoc
