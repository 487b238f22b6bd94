package search

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var scaleDir = flag.String("scale.dir", "", "folder for the scale wiki (kept between runs); default a temp folder")

var scaleNoLineFilter = flag.Bool("scale.nolinefilter", false, "analyse all of a hit's scanned text for its snippet (the way before the line filter), to compare")

var scaleOnePhase = flag.Bool("scale.onephase", false, "read term positions for every match in one search (the way before withLocations), to compare")

// BenchmarkScale measures the search index on a wiki made of all of
// ../shared/corpora/tldr (38k pages) and obsidian-help (6k) and prints the
// figures docs/performance.md records ("Search at scale"):
//
//	go test ./wiki/search -run '^$' -bench Scale -benchtime 1x -timeout 60m
//
// full build time, index size on disk, incremental update after one
// write_page, search latency p50/p99 over 200 varied queries (warm), peak
// RSS while building and while serving (VmHWM, Linux), and start to first
// answer with the index already built (open the store and the index, answer
// one search). The work is done once whatever b.N is.
func BenchmarkScale(b *testing.B) {
	wikitest.SharedDir(b)
	dir := *scaleDir
	if dir == "" {
		dir = b.TempDir()
	}
	root := corpusWiki(b, dir, "obsidian-help", "tldr")
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			continue
		}
		// 1. Full build from nothing.
		os.RemoveAll(filepath.Join(root, ".llmwiki", "search"))
		os.Remove(filepath.Join(root, "pages", "scale-probe.md")) // a previous run's
		resetPeakRSS()
		runtime.GC()
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		x := Open(st, Options{})
		st.AddDerived(x)
		t0 := time.Now()
		cpu0 := cpuTime()
		x.Start()
		x.Wait(ctx)
		build := time.Since(t0)
		buildCPU := cpuTime() - cpu0
		pages := x.Status().Pages
		buildRSS := peakRSS()
		fmt.Printf("scale: full build of %d pages: %s wall, %s CPU; peak RSS %s\n", pages, build.Round(time.Millisecond), buildCPU.Round(time.Millisecond), mb(buildRSS))
		b.ReportMetric(build.Seconds(), "build-s")

		// 2. Index size.
		var size int64
		filepath.WalkDir(filepath.Join(root, ".llmwiki", "search"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					size += fi.Size()
				}
			}
			return nil
		})
		fmt.Printf("scale: index size on disk %s\n", mb(size))

		// 3. Incremental update after one write_page (20 writes).
		resetPeakRSS()
		var writes, applies []time.Duration
		var last wiki.PageWrite
		for k := 0; k < 20; k++ {
			in := wiki.PageInput{Title: "Scale probe", Content: fmt.Sprintf("Probe %d mentions the zyxwv%d marker and a few words about tar archives.\n", k, k), BaseSHA256: last.SHA256}
			t0 := time.Now()
			w, err := st.WritePage(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			writes = append(writes, time.Since(t0))
			last = w
			data, _ := st.Root().ReadFile(w.Path)
			t1 := time.Now()
			if err := x.Apply(ctx, []store.Change{{Path: w.Path, Op: store.OpReplace, Data: data}}); err != nil {
				b.Fatal(err)
			}
			applies = append(applies, time.Since(t1))
			r, err := x.Search(ctx, Query{Text: "zyxwv" + strconv.Itoa(k), Limit: 1})
			if err != nil || len(r.Hits) == 0 || r.Hits[0].Path != w.Path {
				b.Fatalf("write %d not searchable: %v %v", k, err, paths(r))
			}
		}
		fmt.Printf("scale: incremental index update (Apply of one page): p50 %s, max %s; whole write_page p50 %s, max %s\n",
			pct(applies, 50), pct(applies, 100), pct(writes, 50), pct(writes, 100))

		// 4. Latency over 200 varied queries, warm.
		scaleLatency(b, x, root)
		x.Close()
		st.Close()

		// 5. Start to first answer with the index built.
		scaleStart(b, root)
	}
}

// BenchmarkScaleServe measures only the serving figures (latency, RSS while
// serving, start to first answer) on the wiki of a previous BenchmarkScale
// run, in a process that never built the index:
//
//	go test ./wiki/search -run '^$' -bench ScaleServe -benchtime 1x -scale.dir DIR
//
// It skips when -scale.dir holds no built index.
func BenchmarkScaleServe(b *testing.B) {
	if *scaleDir == "" {
		b.Skip("needs -scale.dir with the wiki of a BenchmarkScale run")
	}
	root := *scaleDir
	onePhaseLocations = *scaleOnePhase
	noLineFilter = *scaleNoLineFilter
	defer func() { onePhaseLocations, noLineFilter = false, false }()
	if _, err := os.Stat(filepath.Join(root, manifestFile)); err != nil {
		b.Skip("no built index in -scale.dir; run BenchmarkScale with it first")
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		if i > 0 {
			continue
		}
		scaleStart(b, root)
		resetPeakRSS()
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		x := Open(st, Options{})
		st.AddDerived(x)
		x.Start()
		x.Wait(ctx)
		scaleLatency(b, x, root)
		x.Close()
		st.Close()
	}
}

// BenchmarkScaleStart measures only start to first answer (see
// scaleStart), b.N starts, on the wiki of a previous BenchmarkScale run, for
// profiling the start:
//
//	go test ./wiki/search -run '^$' -bench ScaleStart -benchtime 20x -scale.dir DIR -cpuprofile cpu.out
//
// It skips when -scale.dir holds no built index.
func BenchmarkScaleStart(b *testing.B) {
	if *scaleDir == "" {
		b.Skip("needs -scale.dir with the wiki of a BenchmarkScale run")
	}
	if _, err := os.Stat(filepath.Join(*scaleDir, manifestFile)); err != nil {
		b.Skip("no built index in -scale.dir; run BenchmarkScale with it first")
	}
	scaleStartN(b, *scaleDir, b.N)
}

// scaleLatency prints search latency over 200 varied queries (warm) and
// the peak RSS meanwhile.
func scaleLatency(b *testing.B, x *Index, root string) {
	ctx := context.Background()
	qs := scaleQueries(b, root, 200)
	for _, q := range qs { // warm-up pass
		x.Search(ctx, Query{Text: q})
	}
	var lat []time.Duration
	cpu0 := cpuTime()
	for _, q := range qs {
		t0 := time.Now()
		if _, err := x.Search(ctx, Query{Text: q}); err != nil {
			b.Fatalf("%q: %v", q, err)
		}
		lat = append(lat, time.Since(t0))
	}
	cpu := cpuTime() - cpu0
	fmt.Printf("scale: search latency over %d queries (warm, limit 10, snippets included): p50 %s, p90 %s, p99 %s, max %s; %s CPU in all; peak RSS while serving %s\n",
		len(lat), pct(lat, 50), pct(lat, 90), pct(lat, 99), pct(lat, 100), cpu.Round(time.Millisecond), mb(peakRSS()))
	b.ReportMetric(float64(pct(lat, 50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(lat, 99).Microseconds())/1000, "p99-ms")
}

// scaleStart prints start to first answer with the index built: open the
// store and the index, reconcile, answer one search (5 times).
func scaleStart(b *testing.B, root string) { scaleStartN(b, root, 5) }

// scaleStartN is scaleStart with n starts.
func scaleStartN(b *testing.B, root string, n int) {
	ctx := context.Background()
	var starts []time.Duration
	cpu0 := cpuTime()
	for k := 0; k < n; k++ {
		t0 := time.Now()
		st, err := wiki.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		x := Open(st, Options{})
		st.AddDerived(x)
		x.Start()
		r, err := x.Search(ctx, Query{Text: "extract a gzipped tarball"})
		starts = append(starts, time.Since(t0))
		if err != nil || len(r.Hits) == 0 || r.Index.State != StateReady {
			b.Fatalf("first answer: %v %+v", err, r.Index)
		}
		x.Close()
		st.Close()
	}
	cpu := (cpuTime() - cpu0) / time.Duration(n)
	fmt.Printf("scale: start to first answer (open store and index, reconcile, one search): min %s, p50 %s, max %s; %s CPU each (with close)\n", pct(starts, 0), pct(starts, 50), pct(starts, 100), cpu.Round(time.Millisecond))
}

// scaleQueries mixes the golden questions with words from random page
// titles and bodies (many languages), n in all.
func scaleQueries(b *testing.B, root string, n int) []string {
	var qs []string
	shared := wikitest.SharedDir(b)
	for _, f := range []string{filepath.Join(shared, "golden", "search.yaml"), filepath.Join(wikitest.RepoRoot(b), "testdata", "search", "golden.yaml")} {
		for _, q := range loadGolden(b, f) {
			qs = append(qs, q.Query)
		}
	}
	var files []string
	filepath.WalkDir(filepath.Join(root, "pages"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	rng := rand.New(rand.NewSource(1))
	for len(qs) < n && len(files) > 0 {
		data, err := os.ReadFile(files[rng.Intn(len(files))])
		if err != nil {
			continue
		}
		words := strings.Fields(string(data))
		if len(words) < 8 {
			continue
		}
		k := rng.Intn(len(words) - 4)
		q := strings.Join(words[k:k+1+rng.Intn(4)], " ")
		if !strings.ContainsFunc(q, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue // only punctuation (">"): a query error, not a search
		}
		qs = append(qs, q)
	}
	return qs[:min(n, len(qs))]
}

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s) - 1) * p / 100
	return s[i].Round(10 * time.Microsecond)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// peakRSS is the process's peak resident set (VmHWM), 0 when unknown.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// resetPeakRSS starts a new peak (Linux: clear_refs 5).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func cpuTime() time.Duration {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 15 {
		return 0
	}
	u, _ := strconv.ParseInt(f[13], 10, 64)
	s, _ := strconv.ParseInt(f[14], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}
