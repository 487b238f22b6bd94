package search

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var earlyWiki = flag.String("early.wiki", "", "wiki for BenchmarkFirstAnswer (its search index is deleted); default the tldr corpus (38k pages) in a temp folder")

// BenchmarkFirstAnswer measures a search on a fresh wiki (no index yet):
// the first pass alone (time, CPU, heap it keeps), then start to first
// answer with the build running, and what that answer says
// (docs/performance.md, "Search while the index builds (issue 20)"):
//
//	LLMWIKI_SHARED=/work/shared go test ./wiki/search -run '^$' -bench FirstAnswer -benchtime 1x
//	go test ./wiki/search -run '^$' -bench FirstAnswer -benchtime 1x -early.wiki DIR
//
// DIR is a wiki of one's own (a copy of dev/scalewiki's); its
// .llmwiki/search is deleted. The work is done once whatever b.N is.
func BenchmarkFirstAnswer(b *testing.B) {
	root := *earlyWiki
	if root == "" {
		wikitest.SharedDir(b)
		root = corpusWiki(b, filepath.Join(b.TempDir(), "w"), "tldr")
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			continue
		}
		os.RemoveAll(filepath.Join(root, ".llmwiki", "search"))
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		// 1. The first pass alone.
		x := Open(st, Options{})
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		e := newEarlyPass()
		cpu0 := cpuTime()
		e.run(x, make(chan struct{}), nil)
		cpu := cpuTime() - cpu0
		runtime.GC()
		runtime.ReadMemStats(&m1)
		fmt.Printf("early: first pass over %d files (%d terms): %s wall, %s CPU; heap kept %s\n",
			len(e.docs), len(e.post), time.Duration(e.took.Load()).Round(time.Millisecond), cpu.Round(time.Millisecond), mb(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)))
		runtime.KeepAlive(e)
		e = nil
		x.Close()

		// 2. A fresh start: open, start the build, answer.
		os.RemoveAll(filepath.Join(root, ".llmwiki", "search"))
		runtime.GC()
		t0 := time.Now()
		x = Open(st, Options{})
		st.AddDerived(x)
		x.Start()
		for _, q := range []string{"tlpdb", "extract a tar archive", "git amend commit", "graph view"} {
			t1 := time.Now()
			r, err := x.Search(ctx, Query{Text: q})
			if err != nil {
				b.Fatal(err)
			}
			top := ""
			if len(r.Hits) > 0 {
				top = r.Hits[0].Path
			}
			fmt.Printf("early: %q at %s after start (%s): %d hits of %d, first %s; index %s: %s\n",
				q, time.Since(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond), len(r.Hits), r.Total, top, r.Index.State, r.Index.Reason)
		}
		fmt.Printf("early: peak RSS %s\n", mb(peakRSS()))
		x.Close()
		st.Close()
	}
}

// BenchmarkFirstPass is the first pass alone over the wiki of -early.wiki
// (default the tldr corpus), once per iteration, for its CPU profile and
// allocations:
//
//	go test ./wiki/search -run '^$' -bench FirstPass -benchtime 3x -benchmem -cpuprofile cpu.prof -early.wiki DIR
func BenchmarkFirstPass(b *testing.B) {
	root := *earlyWiki
	if root == "" {
		wikitest.SharedDir(b)
		root = corpusWiki(b, filepath.Join(b.TempDir(), "w"), "tldr")
	}
	st, err := wiki.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := Open(st, Options{})
	defer x.Close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	files := 0
	for i := 0; i < b.N; i++ {
		e := newEarlyPass()
		e.run(x, make(chan struct{}), nil)
		files = len(e.docs)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(files), "files")
}
