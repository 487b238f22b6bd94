package search

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

var snippetsWiki = flag.String("snippets.wiki", "", "a built wiki for BenchmarkSnippets to use as it is (the -scale.dir of BenchmarkScale), instead of the Obsidian Help vault")

var snippetsDir = flag.String("snippets.dir", "", "folder for BenchmarkSnippets' wiki of ../shared/corpora/obsidian-help (kept between runs); default a temp folder")

// snippetCase is one search's snippet work: its query words and hits.
type snippetCase struct {
	query   string
	groups  []group
	codeAsk bool
	hits    []Hit
}

// snippetCases opens (building when needed) a wiki of the Obsidian Help
// vault and returns the hits of 200 varied queries with their snippets
// cleared.
func snippetCases(b *testing.B) (*Index, []snippetCase, func()) {
	dir := *snippetsDir
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "w")
	}
	root := *snippetsWiki
	if root == "" {
		root = corpusWiki(b, dir, "obsidian-help")
	}
	st, err := wiki.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	x := Open(st, Options{})
	st.AddDerived(x)
	x.Start()
	ctx := context.Background()
	x.Wait(ctx)
	var cases []snippetCase
	for _, q := range scaleQueries(b, root, 200) {
		r, err := x.Search(ctx, Query{Text: q})
		if err != nil {
			b.Fatalf("%q: %v", q, err)
		}
		groups, _, codeAsk, _ := x.readQuery(Query{Text: q, Match: MatchBest})
		c := snippetCase{query: q, groups: groups, codeAsk: codeAsk}
		for _, h := range r.Hits {
			c.hits = append(c.hits, Hit{Path: h.Path, Lang: h.Lang})
		}
		cases = append(cases, c)
	}
	return x, cases, func() { x.Close(); st.Close() }
}

// BenchmarkSnippets measures the snippets of one search (its hits, up to
// 10, one after another) over 200 varied queries on the Obsidian Help
// vault, with the line filter (findMatchesIn) and without it (cpu-ms/op is
// the process's CPU time per search, steadier than ns/op on a busy
// machine), and prints
// the hits whose snippet, heading, line or listing differ between the two:
//
//	go test ./wiki/search -run '^$' -bench Snippets -snippets.dir DIR
func BenchmarkSnippets(b *testing.B) {
	x, cases, done := snippetCases(b)
	defer done()
	run := func(c snippetCase) []Hit {
		hs := make([]Hit, len(c.hits))
		for i, h := range c.hits {
			hs[i] = Hit{Path: h.Path, Lang: h.Lang}
			x.fillSnippet(&hs[i], c.groups, c.codeAsk)
		}
		return hs
	}
	diffs, total := 0, 0
	for _, c := range cases {
		noLineFilter = true
		before := run(c)
		noLineFilter = false
		after := run(c)
		for i := range before {
			total++
			if before[i] != after[i] {
				diffs++
				fmt.Printf("snippet differs: %q %s\n  all:    %q (%s, line %d)\n  filter: %q (%s, line %d)\n", c.query, before[i].Path,
					before[i].Snippet, before[i].Heading, before[i].Line, after[i].Snippet, after[i].Heading, after[i].Line)
			}
		}
	}
	fmt.Printf("snippets: %d of %d hits differ with the line filter (%d queries)\n", diffs, total, len(cases))
	for _, mode := range []struct {
		name string
		all  bool
	}{{"filter", false}, {"all", true}} {
		b.Run(mode.name, func(b *testing.B) {
			noLineFilter = mode.all
			defer func() { noLineFilter = false }()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				run(cases[i%len(cases)])
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
