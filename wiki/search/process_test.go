package search

import (
	"strings"
	"testing"

	bsearch "github.com/blevesearch/bleve/v2/search"
)

// TestOpenChecksBM25B: an index refuses to open once bleve's BM25 b is not
// the one the ranking is tuned for, and SetProcessSettings refuses other
// settings after the first.
func TestOpenChecksBM25B(t *testing.T) {
	st, _, _ := testWiki(t, fixture)
	if bsearch.BM25_b != bm25B {
		t.Fatalf("BM25 b after SetProcessSettings = %v, want %v", bsearch.BM25_b, bm25B)
	}
	mustPanic := func(what, want string, fn func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil {
				t.Fatalf("%s did not panic", what)
			}
			if !strings.Contains(r.(string), want) {
				t.Fatalf("%s panicked with %q, want it to mention %q", what, r, want)
			}
		}()
		fn()
	}
	old := bsearch.BM25_b
	bsearch.BM25_b = 0.75
	mustPanic("Open with bleve's default b", "BM25 b is 0.75", func() { Open(st, Options{}) })
	bsearch.BM25_b = old

	s := *processSet.Load()
	SetProcessSettings(s) // the same again: nothing happens
	s.ProportionalSegmentBuffers = !s.ProportionalSegmentBuffers
	mustPanic("SetProcessSettings with other settings", "set once per process", func() { SetProcessSettings(s) })
}
