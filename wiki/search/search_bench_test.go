package search

import (
	"context"
	"flag"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var searchWiki = flag.String("search.wiki", "", "BenchmarkSearch: a wiki to search as it is (its index built or not); default Obsidian Help's 173 English pages copied into -search.dir")

var searchNoCache = flag.Bool("search.nocache", false, "BenchmarkSearch: read and analyse each hit's file for its snippet, as before the snippet cache")

var searchDir = flag.String("search.dir", "", "BenchmarkSearch: folder for the 173-page wiki (kept between runs); default a temp folder")

// BenchmarkSearch measures Index.Search in the process, without MCP and
// stdio: the queries of BenchmarkSearchStdio in turn, index built, every
// query asked once before timing. cpu-ms/op is the process's CPU time a
// search (steadier than ns/op on a shared machine):
//
//	LLMWIKI_SHARED=/work/shared go test ./wiki/search -run '^$' -bench 'Search$' -benchtime 2000x -benchmem -cpuprofile cpu.prof [-search.wiki DIR] [-search.nocache]
func BenchmarkSearch(b *testing.B) {
	root := *searchWiki
	if root == "" {
		dir := *searchDir
		if dir == "" {
			dir = filepath.Join(b.TempDir(), "w")
		}
		root = corpusWiki(b, dir, "obsidian-help/en")
	}
	st, err := wiki.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// No periodic walk of the files: serve has a file watcher instead, and
	// the walk is not the search's cost.
	x := Open(st, Options{ReconcileEvery: time.Hour})
	st.AddDerived(x)
	x.Start()
	defer x.Close()
	ctx := context.Background()
	x.Wait(ctx)
	for _, q := range wikitest.SearchBenchQueries {
		if _, err := x.Search(ctx, Query{Text: q}); err != nil {
			b.Fatalf("%q: %v", q, err)
		}
	}
	noSnippetCache = *searchNoCache
	defer func() { noSnippetCache = false }()
	runtime.GC()
	times := make([]float64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := x.Search(ctx, Query{Text: wikitest.SearchBenchQueries[i%len(wikitest.SearchBenchQueries)]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, float64(time.Since(start).Microseconds())/1000)
	}
	cpu := cpuTime() - cpu0
	b.StopTimer()
	// The slowest queries by their median, for where p95 comes from.
	byQuery := map[string][]float64{}
	for i, t := range times {
		q := wikitest.SearchBenchQueries[i%len(wikitest.SearchBenchQueries)]
		byQuery[q] = append(byQuery[q], t)
	}
	type slow struct {
		q  string
		ms float64
	}
	var slows []slow
	for q, ts := range byQuery {
		sort.Float64s(ts)
		slows = append(slows, slow{q, ts[len(ts)/2]})
	}
	sort.Slice(slows, func(i, j int) bool { return slows[i].ms > slows[j].ms })
	b.Logf("slowest queries (median ms): %v", slows[:min(4, len(slows))])
	sort.Float64s(times)
	b.ReportMetric(times[len(times)/2], "ms-p50")
	b.ReportMetric(times[len(times)*95/100], "ms-p95")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
