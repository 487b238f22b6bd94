package search

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

var snippetsWiki = flag.String("snippets.wiki", "", "a built wiki for BenchmarkSnippets to use as it is (the -scale.dir of BenchmarkScale), instead of the Obsidian Help vault")

var snippetsLang = flag.String("snippets.lang", "", "BenchmarkSnippetsTitles: take the query words from the file names of this language's folder (th, de...) only")

var snippetsFoldSlow = flag.Bool("snippets.foldslow", false, "BenchmarkSnippetsTitles: fold without the fold table, as before it")

var snippetsDir = flag.String("snippets.dir", "", "folder for BenchmarkSnippets' wiki of ../shared/corpora/obsidian-help (kept between runs); default a temp folder")

// snippetCase is one search's snippet work: its query words and hits.
type snippetCase struct {
	query   string
	groups  []group
	codeAsk bool
	hits    []Hit
}

// snippetCases opens (building when needed) a wiki of the Obsidian Help
// vault and returns the hits of 200 queries (from queries, given the wiki's
// root) with their snippets cleared.
func snippetCases(b *testing.B, queries func(root string) []string) (*Index, []snippetCase, func()) {
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
	for _, q := range queries(root) {
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
// the hits whose snippet, heading, line or listing differ between the two
// (the snippet cache off, so each run reads and analyses its files):
//
//	go test ./wiki/search -run '^$' -bench Snippets -snippets.dir DIR
func BenchmarkSnippets(b *testing.B) {
	x, cases, done := snippetCases(b, func(root string) []string { return scaleQueries(b, root, 200) })
	defer done()
	noSnippetCache = true // each run reads and analyses the files
	defer func() { noSnippetCache = false }()
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

// BenchmarkSnippetsTitles measures the snippets of one search (its hits,
// up to 10, one after another) for queries like dev/load's: one or
// two words of four letters or more from the file names of the Obsidian
// Help vault (35 languages), 200 queries. cpu-ms/op is the process's CPU
// time per search:
//
//	go test ./wiki/search -run '^$' -bench SnippetsTitles -benchtime 200x -snippets.dir DIR
//
// (-benchtime 200x: each query once, so runs compare)
func BenchmarkSnippetsTitles(b *testing.B) {
	x, cases, done := snippetCases(b, func(root string) []string { return titleQueries(root, 200) })
	defer done()
	foldTableOff = *snippetsFoldSlow
	noSnippetCache = true // each run reads and analyses the files
	defer func() { foldTableOff, noSnippetCache = false, false }()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		c := cases[i%len(cases)]
		for _, h := range c.hits {
			h := Hit{Path: h.Path, Lang: h.Lang}
			x.fillSnippet(&h, c.groups, c.codeAsk)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// titleQueries returns n queries of one or two words (four letters or
// more) from the names of the files under root/pages, as dev/load
// asks them.
func titleQueries(root string, n int) []string {
	seen := map[string]bool{}
	var words []string
	filepath.WalkDir(filepath.Join(root, "pages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		if *snippetsLang != "" && !strings.Contains(filepath.ToSlash(p), "/obsidian-help/"+*snippetsLang+"/") {
			return nil
		}
		name := strings.TrimSuffix(d.Name(), ".md")
		for _, f := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '(' || r == ')' }) {
			if len([]rune(f)) >= 4 && !seen[f] {
				seen[f] = true
				words = append(words, f)
			}
		}
		return nil
	})
	sort.Strings(words)
	if len(words) == 0 {
		return nil
	}
	rng := rand.New(rand.NewSource(1))
	qs := make([]string, 0, n)
	for range n {
		q := words[rng.Intn(len(words))]
		if rng.Intn(2) == 0 {
			q += " " + words[rng.Intn(len(words))]
		}
		qs = append(qs, q)
	}
	return qs
}
