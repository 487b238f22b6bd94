package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// BenchmarkLintScale runs `llmwiki lint --json` as its own process on scale
// wikis (internal/scalecorpus: 10,000 and 44,681 pages by default; other
// sizes from $LLMWIKI_SCALE_PAGES, e.g. 10000,44681,144000, the 144k run
// one a person starts by hand) and reports
// each run's wall time, CPU time and peak RSS. Goal (issue 20): ≤ 10 s and
// ≤ 500 MB at 144k, and linear from 10k. Figures, not a pass/fail test:
//
//	LLMWIKI_SHARED=/work/shared go test ./cmd/llmwiki -run '^$' -bench LintScale -benchtime 1x
func BenchmarkLintScale(b *testing.B) {
	for _, pages := range wikitest.ScalePages(b, 10000, 44681) {
		b.Run(strconv.Itoa(pages), func(b *testing.B) { benchLint(b, pages) })
	}
}

func benchLint(b *testing.B, pages int) {
	bin := binary(b)
	root := wikitest.ScaleWiki(b, pages, func(dir string) error { initWiki(b, dir); return nil })
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
	fmt.Printf("lint of a %d-page scale wiki (%d pages listed): %.1f s wall, %.1f s CPU, %.0f MB peak RSS, %d findings (%d errors); goal at 144k ≤ 10 s, ≤ 500 MB\n",
		pages, rep.Pages, perRun, cpu.Seconds()/float64(b.N), float64(rss)/1024, len(rep.Findings), rep.Severities.Error)
}
