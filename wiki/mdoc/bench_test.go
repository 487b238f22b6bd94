package mdoc_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkFences classifies every line of the English tldr pages and the
// English Obsidian Help pages, reading the text of each ATX heading.
func BenchmarkFences(b *testing.B) {
	var pages []string
	size := 0
	for _, rel := range []string{"tldr/pages", "obsidian-help/en"} {
		filepath.WalkDir(wikitest.Corpus(b, rel), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				if data, err := os.ReadFile(p); err == nil {
					pages = append(pages, string(data))
					size += len(data)
				}
			}
			return nil
		})
	}
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
