package search

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var buildWiki = flag.String("build.wiki", "", "wiki for BenchmarkBuild (its search index is deleted first); default the tldr corpus (38k pages) in a temp folder")

// BenchmarkBuild measures the full build of the search index as serve
// starts it without a manifest, the first pass (early.go) beside it, without
// the link graph: wall, CPU, peak RSS, index size on disk
// (docs/performance.md, "Index build at scale (issue 20)"):
//
//	LLMWIKI_SHARED=/work/shared go test ./wiki/search -run '^$' -bench '^BenchmarkBuild$' -benchtime 1x
//	go test ./wiki/search -run '^$' -bench '^BenchmarkBuild$' -benchtime 1x -build.wiki DIR -cpuprofile cpu.prof
//
// DIR is a wiki of one's own (a cp -al copy of dev/scalewiki's); its
// .llmwiki/search is deleted before each build.
func BenchmarkBuild(b *testing.B) {
	root := *buildWiki
	if root == "" {
		wikitest.SharedDir(b)
		root = corpusWiki(b, filepath.Join(b.TempDir(), "w"), "tldr")
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(filepath.Join(root, ".llmwiki", "search"))
		runtime.GC()
		resetPeakRSS()
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		x := Open(st, Options{})
		b.StartTimer()
		t0, cpu0 := time.Now(), cpuTime()
		x.Start()
		if err := x.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		b.StopTimer()
		s := x.Status()
		if s.State != StateReady {
			b.Fatalf("index %s: %s", s.State, s.Reason)
		}
		rss := peakRSS()
		x.Close()
		st.Close()
		var size int64
		filepath.WalkDir(filepath.Join(root, ".llmwiki", "search"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					size += fi.Size()
				}
			}
			return nil
		})
		la, _ := os.ReadFile("/proc/loadavg")
		fmt.Printf("build: %d pages: %s wall, %s CPU, peak RSS %s, index on disk %s; load %s", s.Pages, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), mb(rss), mb(size), la)
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
		b.ReportMetric(float64(size)/(1<<20), "disk-MB")
		b.StartTimer()
	}
}
