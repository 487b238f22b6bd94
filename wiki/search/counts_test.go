package search

import (
	"context"
	"testing"
)

// TestStatusCountsOnlyPages checks that Status.Pages counts pages alone:
// context.md, index.md, log.md and sources are indexed or present but are
// not pages.
func TestStatusCountsOnlyPages(t *testing.T) {
	_, x, _ := testWiki(t, map[string]string{
		"pages/alpha.md":      "---\ntitle: Alpha\n---\nAlpha text.\n",
		"pages/beta.md":       "---\ntitle: Beta\n---\nBeta text.\n",
		"pages/en/gamma.md":   "---\ntitle: Gamma\n---\nGamma text.\n",
		"context.md":          "# Context\n\nWhat the wiki knows.\n",
		"sources/one.md":      "# One\n\nFirst source.\n",
		"sources/papers/2.md": "# Two\n\nSecond source.\n",
	})
	if got := x.Status().Pages; got != 3 {
		t.Errorf("Status().Pages = %d, want 3 (3 pages; context.md and 2 sources are not pages)", got)
	}
	res, err := x.Search(context.Background(), Query{Text: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Index.Pages != 3 {
		t.Errorf("search result index.pages = %d, want 3", res.Index.Pages)
	}
}

// TestSourcesNote checks that a pages search with no hits says how many
// sources match, and that no note is given when pages match or nothing
// matches anywhere.
func TestSourcesNote(t *testing.T) {
	_, x, _ := testWiki(t, map[string]string{
		"pages/alpha.md":      "---\ntitle: Alpha\n---\nAlpha text about zebras.\n",
		"sources/one.md":      "# One\n\nA source about quokkas.\n",
		"sources/papers/2.md": "# Two\n\nMore quokkas and wombats.\n",
	})
	cases := []struct {
		text, scope, want string
	}{
		{"quokkas", "", "no pages match; 2 sources match: search again with scope: sources"},
		{"wombats", ScopePages, "no pages match; 1 source matches: search again with scope: sources"},
		{"zebras", "", ""},
		{"platypus", "", ""},
		{"quokkas", ScopeSources, ""},
		{"platypus", ScopeAll, ""},
	}
	for _, c := range cases {
		res, err := x.Search(context.Background(), Query{Text: c.text, Scope: c.scope})
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if res.Note != c.want {
			t.Errorf("search %q in %q: note %q, want %q", c.text, c.scope, res.Note, c.want)
		}
	}
}
