package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestSpecialFilesSkippedAndCounted: the index never opens a FIFO or
// socket under pages/ or sources/; it indexes the rest and reports them in
// its state as skipped, "not a regular file", with their paths; one made
// after the build is counted by the next reconciliation, and one removed
// is no longer counted.
func TestSpecialFilesSkippedAndCounted(t *testing.T) {
	for _, kind := range wikitest.SpecialKinds {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := wiki.Init(dir); err != nil {
				t.Fatal(err)
			}
			wikitest.WriteFile(t, dir, "pages/real.md", "---\ntitle: Real\n---\nzebra crossing\n")
			wikitest.MakeSpecial(t, filepath.Join(dir, "pages", "x.md"), kind)
			wikitest.MakeSpecial(t, filepath.Join(dir, "sources", "y.md"), kind)
			st, err := wiki.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			x := Open(st, Options{ReconcileEvery: -1, BuildWait: 30 * time.Second})
			st.AddDerived(x)
			if _, err := wikitest.Within(t, "first build", func() (struct{}, error) { return struct{}{}, x.Wait(context.Background()) }); err != nil {
				t.Fatal(err)
			}
			res, err := wikitest.Within(t, "search", func() (Result, error) {
				return x.Search(context.Background(), Query{Text: "zebra"})
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(paths(res), ","); got != "pages/real.md" {
				t.Errorf("hits %q, want pages/real.md", got)
			}
			s := res.Index
			if s.State != StateReady || s.Skipped[store.SkipNotRegular] != 2 || strings.Join(s.SkippedExamples[store.SkipNotRegular], ",") != "pages/x.md,sources/y.md" {
				t.Errorf("index state %+v, want ready with 2 skipped as not a regular file: pages/x.md, sources/y.md", s)
			}

			// One more after the build; the old one goes.
			wikitest.MakeSpecial(t, filepath.Join(dir, "sources", "z.txt"), kind)
			if err := os.Remove(filepath.Join(dir, "pages", "x.md")); err != nil {
				t.Fatal(err)
			}
			res, err = wikitest.Within(t, "search after changes", func() (Result, error) {
				return x.Search(context.Background(), Query{Text: "zebra"})
			})
			if err != nil {
				t.Fatal(err)
			}
			if s := res.Index; s.Skipped[store.SkipNotRegular] != 2 || strings.Join(s.SkippedExamples[store.SkipNotRegular], ",") != "sources/y.md,sources/z.txt" {
				t.Errorf("index state after changes %+v, want 2 skipped: sources/y.md, sources/z.txt", s)
			}
		})
	}
}
