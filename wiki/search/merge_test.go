package search

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkWriteChurn measures what one-page writes cost the index's
// background merging (merge.go) on a 6k-page wiki, all of Obsidian Help as
// pages: 600 updates of 64 existing pages, one Apply each, 75 ms apart
// (the load test writes about 13 times a second), then the merges they
// caused (documents' segments combined, bytes written, time spent), the
// segments left, and the latency of 200 searches afterwards:
//
//	go test ./wiki/search -run '^$' -bench WriteChurn -benchtime 1x -v
//
// It skips without ../shared. Figures at bleve's default policy (floor 2000
// documents, growth 10) and at ours are in merge.go.
func BenchmarkWriteChurn(b *testing.B) {
	root := corpusWiki(b, b.TempDir(), "obsidian-help")
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			continue
		}
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		x := Open(st, Options{})
		st.AddDerived(x)
		x.Start()
		if err := x.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		time.Sleep(2 * time.Second) // the build's last merges
		before := scorchStats(x)
		var pages []string
		filepath.WalkDir(filepath.Join(root, "pages"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && len(pages) < 64 {
				rel, _ := filepath.Rel(root, p)
				pages = append(pages, filepath.ToSlash(rel))
			}
			return nil
		})
		const writes = 600
		cpu0 := cpuTime()
		for k := 0; k < writes; k++ {
			data := fmt.Appendf(nil, "# Churn %d\n\nUpdate %d of this page mentions qwxz%d and tar archives.\n", k, k, k)
			if err := x.Apply(ctx, []store.Change{{Path: pages[k%len(pages)], Op: store.OpReplace, Data: data}}); err != nil {
				b.Fatal(err)
			}
			time.Sleep(75 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // the writes' last merges
		cpu := cpuTime() - cpu0
		after := scorchStats(x)
		d := func(k string) uint64 { return after[k] - before[k] }
		fmt.Printf("churn: %d page updates: %d merges of %d segments, %.1f MB written by merges in %s; %d segments after the build, %d at the end; %s CPU in all\n",
			writes, d("TotFileMergePlanTasksDone"), d("TotFileMergeSegments"), float64(d("TotFileMergeWrittenBytes"))/1e6,
			time.Duration(d("TotFileMergeZapTime")).Round(time.Millisecond), before["TotFileSegmentsAtRoot"], after["TotFileSegmentsAtRoot"], cpu.Round(time.Millisecond))
		b.ReportMetric(float64(d("TotFileMergeWrittenBytes"))/1e6, "merged-MB")
		scaleLatency(b, x, root)
		x.Close()
		st.Close()
	}
}

// scorchStats returns the numeric counters of the open index's scorch
// statistics (TotFileMergeWrittenBytes and the like).
func scorchStats(x *Index) map[string]uint64 {
	x.mu.RLock()
	idx := x.idx
	x.mu.RUnlock()
	out := map[string]uint64{}
	m, _ := idx.StatsMap()["index"].(map[string]any)
	for k, v := range m {
		if u, ok := v.(uint64); ok {
			out[k] = u
		}
	}
	return out
}

// TestBigBuildEndsCompacted: a build of compactAfter files or more ends
// with its segments merged by bleve's default plan, a few instead of the
// dozen the write-time policy would leave; later one-page writes do not
// rewrite those segments (mergePlanOptions); and a Close right after a big
// build starts does not wait for that merge.
func TestBigBuildEndsCompacted(t *testing.T) {
	wikitest.SkipShort(t, "scale (a build of thousands of pages)")
	files := map[string]string{}
	for i := 0; i < compactAfter+500; i++ {
		files[fmt.Sprintf("pages/p%04d.md", i)] = fmt.Sprintf("# Page %d\n\nWord%d and the shared words tar archive.\n", i, i)
	}
	_, x, dir := testWiki(t, files)
	if n := scorchStats(x)["TotFileSegmentsAtRoot"]; n > 3 {
		t.Errorf("%d segments after a build of %d files, want at most 3", n, len(files))
	}
	first(t, x, Query{Text: "word1234"}, "pages/p1234.md")

	// Single-page writes merge among themselves: under bleve's default
	// policy (tiers from 2,000 documents) each one made the merger rewrite
	// the build's large segment, 30 writes some 30 times its size. A merge
	// still running when the check comes can only make this pass wrongly.
	before := scorchStats(x)
	ctx := context.Background()
	for k := 0; k < 30; k++ {
		data := fmt.Appendf(nil, "# Page %d\n\nRewritten %d.\n", k, k)
		if err := x.Apply(ctx, []store.Change{{Path: fmt.Sprintf("pages/p%04d.md", k), Op: store.OpReplace, Data: data}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	after := scorchStats(x)
	if written, size := after["TotFileMergeWrittenBytes"]-before["TotFileMergeWrittenBytes"], after["CurOnDiskBytes"]; written > size/2 {
		t.Errorf("30 one-page writes made merges write %d bytes; the whole index is %d", written, size)
	}

	// Close while a big build runs returns without waiting for a merge.
	os.RemoveAll(filepath.Join(dir, StateDir))
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	y := Open(st, Options{})
	y.Start()
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	y.Close()
	st.Close()
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Close during a big build took %s", d)
	}
}
