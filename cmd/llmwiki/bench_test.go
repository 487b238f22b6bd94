package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkColdStart measures, per iteration, the time from exec of
// `llmwiki serve` to the answer of tools/list (initialize, initialized and
// tools/list sent at once), and reports the median and the peak RSS of an
// idle server. Goal on the CI machine: median ≤ 20 ms, peak RSS ≤ 30 MB.
//
//	go test ./cmd/llmwiki -run '^$' -bench ColdStart -benchtime 20x
func BenchmarkColdStart(b *testing.B) {
	bin := binary(b)
	root := filepath.Join(b.TempDir(), "wiki")
	initWiki(b, root)
	// Warm the page cache and the wiki's state once.
	coldStart(b, bin, root, false)
	var times []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, _ := coldStart(b, bin, root, false)
		times = append(times, d.Seconds()*1000)
	}
	b.StopTimer()
	sort.Float64s(times)
	b.ReportMetric(times[len(times)/2], "ms-median-to-tools/list")
	_, rss := coldStart(b, bin, root, true)
	b.ReportMetric(rss, "MB-peak-rss-idle")
}

const startLines = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// coldStart runs one server until it answers tools/list; with idle it then
// waits a moment and reads the process's peak RSS (VmHWM) in MB.
func coldStart(tb testing.TB, bin, root string, idle bool) (time.Duration, float64) {
	cmd := exec.Command(bin, "serve", "--root", root)
	cmd.Env = append(os.Environ(), "LLMWIKI_LOG=error")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	io.WriteString(in, startLines)
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			tb.Fatalf("server ended early: %v", err)
		}
		if strings.Contains(line, `"id":2`) {
			break
		}
	}
	d := time.Since(start)
	var rss float64
	if idle {
		time.Sleep(300 * time.Millisecond)
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
		for _, l := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				kb, _ := strconv.ParseFloat(strings.Fields(l)[1], 64)
				rss = kb / 1024
			}
		}
	}
	in.Close()
	cmd.Wait()
	return d, rss
}
