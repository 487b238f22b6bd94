package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkLintScale runs `llmwiki lint --json` as its own process on a
// wiki whose pages/ holds all of tldr and the Obsidian Help vault (44,681
// files), and reports its wall time, CPU time and peak RSS. Goal on the CI
// machine: ≤ 10 s and ≤ 400 MB peak RSS. Figures, not a pass/fail test:
//
//	go test ./cmd/llmwiki -run '^$' -bench LintScale -benchtime 1x
func BenchmarkLintScale(b *testing.B) {
	shared := wikitest.SharedDir(b)
	bin := binary(b)
	root := filepath.Join(b.TempDir(), "wiki")
	initWiki(b, root)
	n := wikitest.CopyTree(b, filepath.Join(shared, "corpora", "tldr"), filepath.Join(root, "pages", "tldr"), ".md")
	n += wikitest.CopyTree(b, filepath.Join(shared, "corpora", "obsidian-help"), filepath.Join(root, "pages", "obsidian-help"), ".md")
	b.ResetTimer()
	var wall, cpu time.Duration
	var rss int64
	var rep struct {
		Pages      int `json:"pages"`
		Severities struct {
			Error int `json:"error"`
		} `json:"severities"`
		Findings []json.RawMessage
	}
	for i := 0; i < b.N; i++ {
		out, err := os.CreateTemp(b.TempDir(), "report-*.json")
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "lint", "--root", root, "--json")
		cmd.Env = append(os.Environ(), "LLMWIKI_LOG=error")
		cmd.Stdout = out
		start := time.Now()
		err = cmd.Run()
		wall += time.Since(start)
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			b.Fatalf("lint: %v", err)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		rss = max(rss, ru.Maxrss) // KiB on Linux
		out.Seek(0, 0)
		if err := json.NewDecoder(out).Decode(&rep); err != nil {
			b.Fatalf("report: %v", err)
		}
		out.Close()
	}
	b.StopTimer()
	perRun := wall.Seconds() / float64(b.N)
	b.ReportMetric(perRun, "s/lint")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/lint")
	b.ReportMetric(float64(rss)/1024, "MB-peak-RSS")
	fmt.Printf("lint of %d files (%d pages): %.1f s wall, %.1f s CPU, %.0f MB peak RSS, %d findings (%d errors); goal ≤ 10 s, ≤ 400 MB\n",
		n, rep.Pages, perRun, cpu.Seconds()/float64(b.N), float64(rss)/1024, len(rep.Findings), rep.Severities.Error)
}
