package wiki

import (
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// TestRenderLogEntryEscapesFences: a detail line that would open a fenced
// code block is escaped like a heading line, so the entry cannot swallow
// the entries after it when log.md is rendered.
func TestRenderLogEntryEscapesFences(t *testing.T) {
	for _, details := range []string{
		"```",
		"see:\n```go\nfunc f() {}",
		"~~~",
		"  ````",
		"\t```",
		"```\nclosed\n```",
	} {
		_, entry, err := RenderLogEntry("2026-01-02 03:04", LogInput{Op: "note", Title: "t", Details: details})
		if err != nil {
			t.Fatal(err)
		}
		log := "# Log\n\n" + entry + "\n## [2026-01-02 03:05] note | after\n"
		var f mdoc.Fences
		headings := 0
		for _, l := range strings.Split(log, "\n") {
			switch f.Line(l) {
			case mdoc.Open:
				t.Errorf("details %q: line %q opens a fence in\n%s", details, l, log)
			case mdoc.Heading:
				if strings.HasPrefix(l, "## [") {
					headings++
				}
			}
		}
		if headings != 2 {
			t.Errorf("details %q: %d entry headings outside code, want 2:\n%s", details, headings, log)
		}
	}
}
