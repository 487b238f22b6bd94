package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// truncateIndexInPlace opens every file of the index except index_meta.json
// with O_TRUNC and writes garbage into it, the way a careless tool (or a
// full disk, or a sync client) damages files under a running server: the
// inodes stay, their bytes go. It returns how many files it damaged.
func truncateIndexInPlace(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	root := filepath.Join(dir, ".llmwiki", "search")
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Name() == "index_meta.json" || !strings.Contains(filepath.ToSlash(p), "/index") {
			return nil
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil
		}
		f.Write([]byte("garbage, not an index"))
		f.Close()
		n++
		return nil
	})
	return n
}

// TestIndexTruncatedInPlaceWhileRunning damages the files of a running
// index in place (their mmaps go bad: a read past the new end is SIGBUS):
// searches and writes must go on, the index must say it was rebuilt, and
// Close must return promptly. Run it with -count=10: the damage races
// bleve's background persister and merger.
func TestIndexTruncatedInPlaceWhileRunning(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	ctx := context.Background()
	first(t, x, Query{Text: "cafe"}, "pages/cafe.md")
	// A few writes so there are several segments and the persister and
	// merger have work in flight when the damage lands.
	for i, w := range []string{"aardvark", "bandicoot", "cassowary"} {
		if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Animal " + w, Content: "The " + w + " is animal number " + string(rune('1'+i)) + ".\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := truncateIndexInPlace(t, dir); n == 0 {
		t.Fatal("no index files to damage")
	}
	r, err := x.Search(ctx, Query{Text: "cafe"})
	if err != nil {
		t.Fatalf("search after the damage: %v", err)
	}
	if len(r.Hits) == 0 || r.Hits[0].Path != "pages/cafe.md" {
		t.Errorf("search after the damage: %v %+v", paths(r), r.Index)
	}
	if !strings.Contains(r.Index.Reason, "rebuilt") || strings.Contains(r.Index.Reason, dir) {
		t.Errorf("the result must say the index was rebuilt, without host paths: %+v", r.Index)
	}
	w, err := st.WritePage(ctx, wiki.PageInput{Title: "Dugong", Content: "The dugong grazes on sea grass.\n"})
	if err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "dugong sea grass"}, w.Path)
	first(t, x, Query{Text: "bandicoot"}, "pages/animal-bandicoot.md")
	// Damage again, this time with no search in between: the write must
	// not touch the damaged index either.
	truncateIndexInPlace(t, dir)
	w2, err := st.WritePage(ctx, wiki.PageInput{Title: "Echidna", Content: "The echidna lays eggs.\n"})
	if err != nil {
		t.Fatal(err)
	}
	r = first(t, x, Query{Text: "echidna eggs"}, w2.Path)
	if r.Index.State != StateReady {
		t.Errorf("after the second repair: %+v", r.Index)
	}
	t0 := time.Now()
	if err := x.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if d := time.Since(t0); d > 10*time.Second { // a bound on hanging, not a latency goal
		t.Errorf("close took %s", d)
	}
	// The next start finds a sound index (the rebuilt one), with no repair.
	st2, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	x2 := Open(st2, Options{ReconcileEvery: -1})
	defer x2.Close()
	r = first(t, x2, Query{Text: "echidna eggs"}, w2.Path)
	if r.Index.State != StateReady || r.Index.Reason != "" {
		t.Errorf("restart after repairs: %+v", r.Index)
	}
}

// currentIndexDir is the host folder of the shared index of the wiki in dir
// (.llmwiki/search/index, or the fresh folder .llmwiki/search/current names).
func currentIndexDir(t *testing.T, dir string) string {
	t.Helper()
	name := "index"
	if b, err := os.ReadFile(filepath.Join(dir, ".llmwiki", "search", "current")); err == nil {
		name = strings.TrimSpace(string(b))
	}
	return filepath.Join(dir, ".llmwiki", "search", name)
}

// TestCloseAfterDamage closes an index whose files were just truncated in
// place: Close must return at once without touching them, and the next
// start must build a sound index again.
func TestCloseAfterDamage(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	if _, err := st.WritePage(context.Background(), wiki.PageInput{Title: "Fennec", Content: "The fennec fox has big ears.\n"}); err != nil {
		t.Fatal(err)
	}
	truncateIndexInPlace(t, dir)
	t0 := time.Now()
	x.Close()
	if d := time.Since(t0); d > 10*time.Second { // a bound on hanging, not a latency goal
		t.Errorf("close took %s", d)
	}
	st2, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	x2 := Open(st2, Options{ReconcileEvery: -1})
	defer x2.Close()
	r := first(t, x2, Query{Text: "fennec ears"}, "pages/fennec.md")
	if r.Index.State != StateReady {
		t.Errorf("restart after damage: %+v", r.Index)
	}
}

// TestStaleIndexReconcilesAtTheNextSearch: a failed update leaves the index
// stale; the next search reconciles with the files at once, whatever the
// interval, so what the update missed is found and the mark is cleared.
func TestStaleIndexReconcilesAtTheNextSearch(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	x.opt.ReconcileEvery = time.Hour
	first(t, x, Query{Text: "cafe"}, "pages/cafe.md")
	wikitest.WriteFile(t, dir, "pages/missed.md", "# Missed\n\nThe update of this ocelot page failed.\n")
	if r := mustSearch(t, x, Query{Text: "ocelot"}); len(r.Hits) != 0 {
		t.Fatalf("reconciled before its time: %v", paths(r))
	}
	st.MarkStale(x.Name(), "search index: pages/missed.md could not be indexed")
	r := first(t, x, Query{Text: "ocelot"}, "pages/missed.md")
	if r.Index.State != StateReady || len(st.Stale()) != 0 {
		t.Errorf("after the reconciliation: %+v stale %v", r.Index, st.Stale())
	}
}
