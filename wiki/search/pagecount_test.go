package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestPageCountAfterBatches: Status's page count is kept between batches
// (a search does not count every page again) and counted again after each
// batch, whether it adds pages, removes them, or only changes one; sources
// are never counted as pages.
func TestPageCountAfterBatches(t *testing.T) {
	st, x, _ := testWiki(t, map[string]string{
		"pages/alpha.md":   "# Alpha\n\nThe first page.\n",
		"pages/beta.md":    "# Beta\n\nThe second page.\n",
		"pages/sub/gam.md": "# Gamma\n\nThe third page.\n",
		"sources/paper.md": "# A source\n\nNot a page.\n",
	})
	ctx := context.Background()
	update := func(fn func(tx *store.Tx) error) func(t *testing.T) {
		return func(t *testing.T) {
			if err := st.Update(ctx, fn); err != nil {
				t.Fatal(err)
			}
		}
	}
	sha := func(t *testing.T, rel string) string {
		data, ok, err := st.ReadRaw(rel)
		if err != nil || !ok {
			t.Fatalf("read %s: %v %v", rel, ok, err)
		}
		return store.SHA256Hex(data)
	}
	steps := []struct {
		name  string
		do    func(t *testing.T)
		pages int
	}{
		{"as built", func(*testing.T) {}, 3},
		{"create one page", func(t *testing.T) {
			if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Delta", Content: "The fourth page.\n"}); err != nil {
				t.Fatal(err)
			}
		}, 4},
		{"create two pages in one write", update(func(tx *store.Tx) error {
			if err := tx.Create("pages/eps.md", []byte("# Epsilon\n")); err != nil {
				return err
			}
			return tx.Create("pages/zeta.md", []byte("# Zeta\n"))
		}), 6},
		{"add a source", func(t *testing.T) {
			if err := st.Update(ctx, func(tx *store.Tx) error { return tx.Create("sources/more.md", []byte("# More\n")) }); err != nil {
				t.Fatal(err)
			}
		}, 6},
		{"change a page", func(t *testing.T) {
			if _, err := st.WritePage(ctx, wiki.PageInput{Slug: "alpha", Title: "Alpha", Content: "Changed.\n", BaseSHA256: sha(t, "pages/alpha.md")}); err != nil {
				t.Fatal(err)
			}
		}, 6},
		{"delete a page", func(t *testing.T) {
			base := sha(t, "pages/beta.md")
			update(func(tx *store.Tx) error { return tx.Delete("pages/beta.md", base) })(t)
		}, 5},
		{"delete two pages and create one in one write", func(t *testing.T) {
			e, z := sha(t, "pages/eps.md"), sha(t, "pages/zeta.md")
			update(func(tx *store.Tx) error {
				if err := tx.Delete("pages/eps.md", e); err != nil {
					return err
				}
				if err := tx.Delete("pages/zeta.md", z); err != nil {
					return err
				}
				return tx.Create("pages/eta.md", []byte("# Eta\n"))
			})(t)
		}, 4},
	}
	for _, s := range steps {
		before := x.gen.Load()
		s.do(t)
		if t.Failed() {
			t.Fatalf("%s: the write failed", s.name)
		}
		if got := x.Status().Pages; got != s.pages {
			t.Errorf("%s: Status().Pages = %d, want %d", s.name, got, s.pages)
		}
		x.mu.RLock()
		idx := x.idx
		x.mu.RUnlock()
		if got := countKind(idx, KindPage); got != s.pages {
			t.Errorf("%s: the index holds %d pages, want %d", s.name, got, s.pages)
		}
		if s.name != "as built" && x.gen.Load() == before {
			t.Errorf("%s: no batch was counted (gen %d)", s.name, before)
		}
		// A second Status between batches reuses the count: same entry.
		c := x.counts.Load()
		if got := x.Status().Pages; got != s.pages || x.counts.Load() != c {
			t.Errorf("%s: a second Status counted again or changed the count (%d)", s.name, got)
		}
		if c == nil || c.idx != idx || c.gen != x.gen.Load() || c.pages != s.pages {
			t.Errorf("%s: cached count %+v, want %d pages at gen %d of the open index", s.name, c, s.pages, x.gen.Load())
		}
	}
}

// TestBuildInParts: a build chunk of more files than one batch holds is
// indexed as several batches side by side; every file is in the index
// once, and a file of each part is found first by its own word.
func TestBuildInParts(t *testing.T) {
	n := 3*batchDocs + 7
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("pages/p%04d.md", i)] = fmt.Sprintf("# Page %d\n\nThe word zq%dx is only here.\n", i, i)
	}
	_, x, _ := testWiki(t, files)
	if got := x.Status().Pages; got != n {
		t.Fatalf("pages = %d, want %d", got, n)
	}
	for _, i := range []int{0, batchDocs - 1, batchDocs, 2*batchDocs + 1, n - 1} {
		want := fmt.Sprintf("pages/p%04d.md", i)
		if got := paths(mustSearch(t, x, Query{Text: fmt.Sprintf("zq%dx", i)})); len(got) == 0 || got[0] != want {
			t.Errorf("search zq%dx = %v, want %s first", i, got, want)
		}
	}
}
