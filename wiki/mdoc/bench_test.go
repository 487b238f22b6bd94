package mdoc_test

import (
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkFences classifies every line of the English tldr pages and the
// English Obsidian Help pages, reading the text of each ATX heading.
func BenchmarkFences(b *testing.B) {
	pages, size := wikitest.CorpusPages(b, "tldr/pages", "obsidian-help/en")
	b.SetBytes(int64(size))
	b.ReportAllocs()
	heads := 0
	for b.Loop() {
		for _, p := range pages {
			var f mdoc.Fences
			for line := range strings.Lines(p) {
				if f.Line(strings.TrimRight(line, "\n")) == mdoc.Heading {
					if _, text := mdoc.ATX(line); text != "" {
						heads++
					}
				}
			}
		}
	}
}
