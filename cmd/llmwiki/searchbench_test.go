package main

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var searchBin = flag.String("search.bin", "", "BenchmarkSearchStdio: serve this llmwiki binary instead of one built from this package (to compare two builds)")

var searchRoot = flag.String("search.root", "", "BenchmarkSearchStdio: an existing wiki to search (default: Obsidian Help's 173 English pages copied into a fresh wiki)")

// BenchmarkSearchStdio measures search_wiki as a client sees it: tools/call
// round trips over stdio to the built binary's `serve`, index built, warm
// (every query asked once before timing, and the server's own work after
// start done). It reports the median and p95 of
// the round trip and the server's CPU time a call (/proc/PID/stat).
//
//	LLMWIKI_SHARED=/work/shared go test ./cmd/llmwiki -run '^$' -bench SearchStdio -benchtime 400x [-search.root DIR] [-search.bin FILE]
func BenchmarkSearchStdio(b *testing.B) {
	root := *searchRoot
	if root == "" {
		src := filepath.Join(wikitest.SharedDir(b), "corpora", "obsidian-help", "en")
		root = filepath.Join(b.TempDir(), "wiki")
		initWiki(b, root)
		if err := os.CopyFS(filepath.Join(root, "pages", "obsidian"), os.DirFS(src)); err != nil {
			b.Fatal(err)
		}
	}
	if *searchBin != "" {
		buildOnce.Do(func() { builtBin = *searchBin })
	}
	c, err := startRPC(b, root)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	// Wait for the index, then ask every query once.
	deadline := time.Now().Add(20 * time.Minute)
	for {
		r, err := c.tool("search_wiki", map[string]any{"query": "link"})
		if err != nil || r.IsError {
			b.Fatalf("search: %v %s", err, r.Text)
		}
		idx, _ := r.Data["index"].(map[string]any)
		if idx["state"] == "ready" {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("index not ready: %v", idx)
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, q := range wikitest.SearchBenchQueries {
		c.tool("search_wiki", map[string]any{"query": q})
	}
	// The server's work after start (the link graph's first walk, the file
	// watcher's) shares the cores with the first searches: time the
	// searches once it is done, when the server uses under 5% of a core
	// over a second (at most 10 minutes).
	for settle := time.Now().Add(10 * time.Minute); time.Now().Before(settle); {
		before := procCPU(b, c.cmd.Process.Pid)
		time.Sleep(time.Second)
		if procCPU(b, c.cmd.Process.Pid)-before < 50*time.Millisecond {
			break
		}
	}
	cpu0 := procCPU(b, c.cmd.Process.Pid)
	times := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := c.tool("search_wiki", map[string]any{"query": wikitest.SearchBenchQueries[i%len(wikitest.SearchBenchQueries)]})
		times = append(times, float64(time.Since(start).Microseconds())/1000)
		if err != nil || r.IsError {
			b.Fatalf("search: %v %s", err, r.Text)
		}
	}
	b.StopTimer()
	cpu := procCPU(b, c.cmd.Process.Pid) - cpu0
	sort.Float64s(times)
	b.ReportMetric(times[len(times)/2], "ms-p50")
	b.ReportMetric(times[len(times)*95/100], "ms-p95")
	b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "ms-server-cpu/call")
}

// procCPU is the process's user+system CPU time so far.
func procCPU(tb testing.TB, pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		tb.Skip("no /proc: ", err)
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return time.Duration(ut+st) * 10 * time.Millisecond
}
