package lint

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestSpecialFilesSkippedByLint: a FIFO or socket under pages/ and
// sources/ is never opened by lint or the link graph: the run ends, counts
// the page as skipped (not a regular file), the graph holds neither file,
// and a quote of one is not verified, with the reason.
func TestSpecialFilesSkippedByLint(t *testing.T) {
	ctx := context.Background()
	for _, kind := range wikitest.SpecialKinds {
		t.Run(kind, func(t *testing.T) {
			st, dir := newStore(t, map[string]string{
				"pages/home.md": page("Home", "h", []string{"sources/y.md"}, "2026-01-01", "See [[x]].\n"),
			})
			what := wikitest.MakeSpecial(t, filepath.Join(dir, "pages", "x.md"), kind)
			wikitest.MakeSpecial(t, filepath.Join(dir, "sources", "y.md"), kind)
			rep, err := wikitest.Within(t, "lint", func() (*Report, error) { return Run(ctx, st, links.Open(st), Options{}) })
			if err != nil {
				t.Fatal(err)
			}
			if rep.Pages != 1 || rep.Skipped[store.SkipNotRegular] != 1 || !slices.Equal(rep.SkippedExamples[store.SkipNotRegular], []string{"pages/x.md"}) {
				t.Errorf("lint pages=%d skipped=%v %v, want 1 page, 1 skipped: pages/x.md", rep.Pages, rep.Skipped, rep.SkippedExamples)
			}
			v, err := wikitest.Within(t, "link graph", func() (*links.View, error) { return links.Open(st).Fresh(ctx) })
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range v.Files() {
				if f == "pages/x.md" || f == "sources/y.md" {
					t.Errorf("the link graph holds %s, which is %s", f, what)
				}
			}
			ev, _ := wikitest.Within(t, "verify", func() (Evidence, error) {
				return NewVerifier(st).Verify(Quote{Path: "sources/y.md", Quote: "anything at all"}), nil
			})
			if ev.Verified || !strings.Contains(ev.Reason, "sources/y.md is not a regular file ("+what+")") {
				t.Errorf("verify a quote of %s: %+v", what, ev)
			}
		})
	}
}

// TestLintSourcesRecordFIFO: a FIFO in place of .llmwiki/sources.jsonl
// does not stop lint: the run ends with its other findings (the sources go
// unchecked; validate_structure and load_project name the file).
func TestLintSourcesRecordFIFO(t *testing.T) {
	ctx := context.Background()
	st, dir := newStore(t, map[string]string{
		"pages/home.md": page("Home", "h", []string{"sources/y.md"}, "2026-01-01", "See [[nowhere]].\n"),
		"sources/y.md":  "# Y\n",
	})
	rec := filepath.Join(dir, filepath.FromSlash(wiki.SourcesRecordFile))
	if err := os.Remove(rec); err != nil { // init made an empty one
		t.Fatal(err)
	}
	wikitest.MakeSpecial(t, rec, "fifo")
	rep, err := wikitest.Within(t, "lint", func() (*Report, error) { return Run(ctx, st, links.Open(st), Options{}) })
	if err != nil {
		t.Fatalf("lint with a FIFO sources record: %v", err)
	}
	if !slices.ContainsFunc(rep.Findings, func(f Finding) bool { return f.Kind == "dangling_link" && f.Path == "pages/home.md" }) {
		t.Errorf("lint findings %+v lack the dangling link", rep.Findings)
	}
}
