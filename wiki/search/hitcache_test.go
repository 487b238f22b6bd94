package search

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestSearchSameAsBefore: whole results (hits, order, scores, titles,
// snippets, totals, notes) are the same with the stored-field cache and
// the folder stats as with bleve loading every hit's fields, os.Root.Lstat
// for every hit and every snippet read from its file, over Obsidian Help
// in its 35 languages and tldr's common pages, for the golden questions
// and the benchmarks' queries in every match mode and with paging and
// filters. Each query is asked twice: the second answer comes from the
// caches, and reads the positions of the hits' documents looked up by id
// rather than by the search's numbers.
func TestSearchSameAsBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an index of the corpora")
	}
	shared := wikitest.SharedDir(t)
	root := corpusWiki(t, filepath.Join(t.TempDir(), "w"), "obsidian-help", "tldr/pages/common", "tldr/pages.de")
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := Open(st, Options{ReconcileEvery: time.Hour})
	st.AddDerived(x)
	defer x.Close()
	ctx := context.Background()
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, f := range []string{filepath.Join(shared, "golden", "search.yaml"), filepath.Join(wikitest.RepoRoot(t), "testdata", "search", "golden.yaml")} {
		for _, q := range loadGolden(t, f) {
			texts = append(texts, q.Query)
		}
	}
	texts = append(texts, wikitest.SearchBenchQueries...)
	var qs []Query
	for i, text := range texts {
		qs = append(qs, Query{Text: text})
		if i%4 == 0 {
			qs = append(qs, Query{Text: text, Match: MatchAll}, Query{Text: text, Match: MatchPhrase}, Query{Text: text, Match: MatchAny, Limit: 50})
		}
		if i%7 == 0 {
			qs = append(qs, Query{Text: text, Offset: 45, Limit: 20}, Query{Text: text, Offset: 60}, Query{Text: text, Lang: "de"}, Query{Text: text, Scope: ScopeAll, Prefix: "tldr/"})
		}
	}
	defer func() {
		noFieldCache, noHitStats, noSnippetCache, locationsBySearch, noKindExclusion = false, false, false, false, false
	}()
	ask := func(q Query, ref bool) Result {
		noFieldCache, noHitStats, noSnippetCache, locationsBySearch, noKindExclusion = ref, ref, ref, ref, ref
		res, err := x.Search(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		return res
	}
	hits := 0
	for _, q := range qs {
		want := ask(q, true)
		hits += len(want.Hits)
		for round := range 2 {
			locationsByID = round == 1
			got := ask(q, false)
			locationsByID = false
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v (round %d):\n got %+v\nwant %+v", q, round, got, want)
			}
		}
	}
	if hits < 10*len(qs)/2 {
		t.Errorf("only %d hits for %d queries: the comparison compares little", hits, len(qs))
	}
	t.Logf("%d queries, %d hits, each the same three times", len(qs), hits)
}

// TestFieldCacheFollowsWrites: a hit's title and updated time after a
// write are the written ones, though the search before the write cached
// the old ones.
func TestFieldCacheFollowsWrites(t *testing.T) {
	st, x, _ := testWiki(t, map[string]string{"pages/other.md": "# Other\n\nnothing about it.\n"})
	ctx := context.Background()
	x.opt.ReconcileEvery = time.Hour // only the writes update the index
	w, err := st.WritePage(ctx, wiki.PageInput{Slug: "quokka-facts", Title: "Quokka facts", Content: "The quokka is a small marsupial.\n"})
	if err != nil {
		t.Fatal(err)
	}
	for i, title := range []string{"Quokka facts", "Quokka notes", "Marsupial notes"} {
		if i > 0 {
			if w, err = st.WritePage(ctx, wiki.PageInput{Slug: "quokka-facts", Title: title, Content: "The quokka is a small marsupial.\n", BaseSHA256: w.SHA256}); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			r := mustSearch(t, x, Query{Text: "quokka"})
			if len(r.Hits) != 1 || r.Hits[0].Title != title {
				t.Fatalf("after write %d: hits %+v, want one titled %q", i, r.Hits, title)
			}
		}
	}
}
