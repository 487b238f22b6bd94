package lint

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestSimpleMethodSmall: the simple method's merge candidates and index
// drift (simple_test.go) agree with Run on small wikis, so the corpus
// comparison (TestObsidianHelp) compares two working methods.
func TestSimpleMethodSmall(t *testing.T) {
	ctx := context.Background()
	fresh := "2026-10-20T00:00:00Z"
	long := essay(1, 40)
	var han strings.Builder
	for i := 0; i < 60; i++ {
		han.WriteRune(rune(0x4e00 + i*37))
	}
	files := map[string]string{
		"pages/twin1.md":     page("Twin one", "t", []string{"sources/a.md"}, fresh, long+"\n[[twin2]]\n"),
		"pages/twin2.md":     page("Twin two", "t", []string{"sources/a.md"}, fresh, long+" One more sentence at the end.\n[[twin1]]\n"),
		"pages/near.md":      page("Near", "n", []string{"sources/a.md"}, fresh, strings.Replace(long, "Sentence 3 of", "Line three of", 1)+"\n"),
		"pages/unrelated.md": page("Unrelated", "u", []string{"sources/a.md"}, fresh, essay(2, 40)+"\n"),
		"pages/han.md":       page("Han", "h", []string{"sources/a.md"}, fresh, han.String()+"。\n"),
		"pages/han2.md":      page("Han two", "h", []string{"sources/a.md"}, fresh, han.String()+"再见。\n"),
		"pages/short.md":     page("Short", "s", []string{"sources/a.md"}, fresh, "Too short to compare.\n"),
		"sources/a.md":       "# A\n",
	}
	st, dir := newStore(t, files)
	pages := map[string]string{}
	bodies := map[string]string{}
	for p, c := range files {
		if strings.HasPrefix(p, "pages/") {
			pages[p] = c
			_, b, _ := sSplit(c)
			bodies[p] = b
		}
	}
	check := func(what string, wantMerge, wantDrift []string) {
		t.Helper()
		rep, err := Run(ctx, st, links.Open(st), Options{Categories: []string{KindMergeCandidate, KindIndexDrift}})
		if err != nil {
			t.Fatal(err)
		}
		got := kindsOf(rep)
		simpleMerge := sNearDuplicates(bodies, DefaultMergeSimilarity, MinShingles)
		index, err := st.Root().ReadFile("index.md")
		simpleDrift := sIndexDrift(string(index), err == nil, pages)
		for _, c := range []struct {
			kind         string
			lint, simple []string
			want         []string
		}{{KindMergeCandidate, got[KindMergeCandidate], simpleMerge, wantMerge}, {KindIndexDrift, got[KindIndexDrift], simpleDrift, wantDrift}} {
			if !reflect.DeepEqual(c.lint, c.want) && len(c.lint)+len(c.want) > 0 {
				t.Errorf("%s: lint %s = %v, want %v", what, c.kind, c.lint, c.want)
			}
			if !reflect.DeepEqual(c.simple, c.want) && len(c.simple)+len(c.want) > 0 {
				t.Errorf("%s: simple method %s = %v, want %v", what, c.kind, c.simple, c.want)
			}
		}
	}
	// The twins and near.md are one group; the two Han pages another (each
	// character a token).
	check("starting index", []string{"pages/han.md:0", "pages/near.md:0"}, []string{"index.md:0"})
	if _, err := st.RebuildIndex(ctx); err != nil {
		t.Fatal(err)
	}
	check("rebuilt index", []string{"pages/han.md:0", "pages/near.md:0"}, nil)
	// A page the index does not list.
	files["pages/new.md"] = page("New", "n", []string{"sources/a.md"}, fresh, "New.\n")
	pages["pages/new.md"] = files["pages/new.md"]
	wikitest.WriteFile(t, dir, "pages/new.md", files["pages/new.md"])
	check("page added", []string{"pages/han.md:0", "pages/near.md:0"}, []string{"index.md:0"})
	// The page gone again: no drift; then an entry that leads nowhere.
	removeFile(t, dir, "pages/new.md")
	delete(pages, "pages/new.md")
	check("page removed", []string{"pages/han.md:0", "pages/near.md:0"}, nil)
	index, _ := st.Root().ReadFile("index.md")
	wikitest.WriteFile(t, dir, "index.md", strings.Replace(string(index), "[[unrelated", "[[unrelatd", 1))
	check("entry leads nowhere", []string{"pages/han.md:0", "pages/near.md:0"}, []string{"index.md:0"})
}

// TestSimpleTokens: the simple method's words and shingles.
func TestSimpleTokens(t *testing.T) {
	got := sTokens("Ünïcode_words, e\u0301t CAFÉ 42x — 维基a")
	want := []string{"ünïcode", "words", "e\u0301t", "café", "42x", "维", "基", "a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens %q, want %q", got, want)
	}
	if n := len(sShingles("one two three four five six")); n != 2 {
		t.Errorf("%d shingles of 6 words, want 2", n)
	}
	if n := len(sShingles("a b c d a b c d a")); n != 4 {
		t.Errorf("%d distinct shingles, want 4", n)
	}
	a, b := sShingles("one two three four five six"), sShingles("one two three four five seven")
	if j := sJaccard(a, b); j != 1.0/3 {
		t.Errorf("jaccard %v, want 1/3", j)
	}
}
