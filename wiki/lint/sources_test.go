package lint

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestLintSourceChangedOutside: a source edited by hand after it was first
// seen is a source_modified error, one deleted a source_deleted error; an
// untouched source, and one added since, are not findings.
func TestLintSourceChangedOutside(t *testing.T) {
	ctx := context.Background()
	st, dir := newStore(t, map[string]string{"sources/a.md": "a\n", "sources/b.md": "b\n", "sources/c.md": "c\n"})
	if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: "d.md", Content: "saved\n"}); err != nil {
		t.Fatal(err)
	}
	only := Options{Categories: []string{KindSourceModified, KindSourceDeleted}}
	rep, err := Run(ctx, st, links.Open(st), only)
	if err != nil || len(rep.Findings) != 0 {
		t.Fatalf("before any change: %+v %v", rep.Findings, err)
	}
	wikitest.WriteFile(t, dir, "sources/a.md", "a, edited by hand\n")
	os.Remove(filepath.Join(dir, "sources", "d.md"))
	wikitest.WriteFile(t, dir, "sources/e.md", "added later\n")
	rep, err = Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		if f.Kind == KindSourceModified || f.Kind == KindSourceDeleted {
			got[f.Path] = f.Kind + " " + f.Severity
			if f.Action == "" || f.Message == "" {
				t.Errorf("finding without message or action: %+v", f)
			}
		}
	}
	want := map[string]string{"sources/a.md": "source_modified error", "sources/d.md": "source_deleted error"}
	if len(got) != len(want) || got["sources/a.md"] != want["sources/a.md"] || got["sources/d.md"] != want["sources/d.md"] {
		t.Errorf("findings %v, want %v", got, want)
	}
	if rep.Severities.Error < 2 {
		t.Errorf("errors = %d, want the two source findings counted", rep.Severities.Error)
	}
}
