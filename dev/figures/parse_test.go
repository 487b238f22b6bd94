package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParsers reads outputs captured from the real commands (testdata/)
// and checks every number the table takes from them.
func TestParsers(t *testing.T) {
	type want struct {
		name  string
		unit  string
		value float64
	}
	tests := []struct {
		file  string
		parse func(string) ([]metric, error)
		want  []want
	}{
		{"coldstart.txt", parseCold, []want{
			{"cold start: exec to tools/list, median", "ms", 44.54},
			{"cold start: peak RSS, idle", "MB", 31.79},
		}},
		{"lintscale.txt", parseLint, []want{
			{"lint: wall", "s", 23.74},
			{"lint: CPU", "s", 19.03},
			{"lint: peak RSS", "MB", 313.7},
			{"lint: findings (44681 files)", "count", 147121},
		}},
		{"load.txt", parseLoad, []want{
			{"load: reads p50", "ms", 461.3},
			{"load: reads p99", "ms", 5048.1},
			{"load: search_wiki p50", "ms", 621.5},
			{"load: search_wiki p99", "ms", 5048.1},
			{"load: achieved", "calls/s", 52.6},
			{"load: server CPU a call", "ms", 10.7},
			{"load: server start", "ms", 104},
			{"load: warm-up (first read_page, search_wiki, list_pages)", "s", 18.9},
			{"load: server peak RSS", "MiB", 350},
			{"load: setup rebuild_index", "s", 18.621},
			{"load: checks failed (of 7)", "count", 0},
		}},
		{"scale.txt", parseScale, []want{
			{"build: full index, wall (44642 pages)", "s", 255.612},
			{"build: full index, CPU", "s", 94.18},
			{"build: peak RSS", "MB", 240.7},
			{"build: index on disk", "MB", 150.8},
			{"search: one page's update (Apply), p50", "ms", 1.14},
			{"search: latency p50 (200 queries)", "ms", 39.08},
			{"search: latency p90", "ms", 102.02},
			{"search: latency p99", "ms", 348.29},
			{"search: CPU of the queries", "s", 4.3},
			{"search: peak RSS serving", "MB", 253.9},
			{"search: start to first answer, p50", "ms", 1446.2},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.parse(string(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d metrics %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.name != w.name || g.unit != w.unit || math.Abs(g.value-w.value) > 1e-9*math.Max(1, w.value) {
					t.Errorf("metric %d = %q %v %s, want %q %v %s", i, g.name, g.value, g.unit, w.name, w.value, w.unit)
				}
			}
		})
	}
}

// TestParsersRefuse checks that an output without the figures (a skipped
// benchmark, a run cut short) is an error, not a table of zeros.
func TestParsersRefuse(t *testing.T) {
	skipped := "goos: linux\nBenchmarkScale\n    scale_test.go:41: skipping: no ../shared\n--- SKIP: BenchmarkScale\nPASS\n"
	tests := []struct {
		name  string
		parse func(string) ([]metric, error)
		out   string
		err   string
	}{
		{"cold empty", parseCold, "", "BenchmarkColdStart did not run"},
		{"cold not run", parseCold, "PASS\nok  \tgithub.com/llmwiki/llmwiki/cmd/llmwiki\t0.040s\n", "BenchmarkColdStart did not run"},
		{"cold skipped", parseCold, "--- SKIP: BenchmarkColdStart\n    helpers_test.go:27: skipping end-to-end\nPASS\n", "no result line for BenchmarkColdStart"},
		{"cold other benchmark", parseCold, "BenchmarkColdStartX-2  20  55000391 ns/op  31.79 MB-peak-rss-idle\n", "no result line"},
		{"cold without its unit", parseCold, "BenchmarkColdStart-2  20  55000391 ns/op  31.79 MB-peak-rss-idle\n", "no ms-median-to-tools/list"},
		{"lint bad number", parseLint, "BenchmarkLintScale-2  1  x ns/op\n", "value \"x\""},
		{"scale skipped", parseScale, skipped, "no \"scale: full build\" line"},
		{"scale not run", parseScale, "PASS\n", "BenchmarkScale did not run"},
		{"scale cut short", parseScale, "BenchmarkScale\nscale: full build of 44681 pages: 28.5s wall, 45.9s CPU; peak RSS 256.0 MB\n", "no \"scale: search latency\" line"},
		{"load empty", parseLoad, "", "no \"reads (all read tools)\" line"},
		{"load without checks", parseLoad, "reads (all read tools): p50 4.2 ms, p99 22.9 ms\n", "no \"checks:\" line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.parse(tc.out)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %+v, %v; want an error with %q", got, err, tc.err)
			}
		})
	}
}

// TestDurations reads the lines Scale prints with each form
// time.Duration.String gives.
func TestDurations(t *testing.T) {
	for _, tc := range []struct {
		apply string
		ms    float64
	}{{"580µs", 0.58}, {"4.5ms", 4.5}, {"1.2s", 1200}, {"1m2.5s", 62500}, {"2h0m0s", 7200000}} {
		out := "scale: full build of 3 pages: 1m2.5s wall, 45.9s CPU; peak RSS 256.0 MB\n" +
			"scale: incremental index update (Apply of one page): p50 " + tc.apply + ", max 4.9ms; whole write_page p50 1ms, max 2ms\n" +
			"scale: search latency over 200 queries (warm, limit 10, snippets included): p50 " + tc.apply + ", p90 10ms, p99 25.6ms, max 30ms; 1.2s CPU in all; peak RSS while serving 276.0 MB\n"
		ms, err := parseScale(out)
		if err != nil {
			t.Fatalf("%s: %v", tc.apply, err)
		}
		if ms[0].value != 62.5 || ms[3].value != tc.ms || ms[4].value != tc.ms {
			t.Errorf("%s: build %v s, apply %v ms, p50 %v ms; want 62.5, %v, %v", tc.apply, ms[0].value, ms[3].value, ms[4].value, tc.ms, tc.ms)
		}
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		s, unit string
		want    float64
		bad     bool
	}{
		{"28.512s", "s", 28.512, false},
		{"28.512s", "ms", 28512, false},
		{"4.5ms", "ms", 4.5, false},
		{"580µs", "ms", 0.58, false},
		{"580us", "ms", 0.58, false},
		{"1m2.5s", "s", 62.5, false},
		{"256.0", "MB", 256, false},
		{"4.5ms", "MB", 0, true},
		{"fast", "ms", 0, true},
	}
	for _, tc := range tests {
		got, err := value(tc.s, tc.unit)
		if (err != nil) != tc.bad || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("value(%q, %s) = %v, %v; want %v (error %v)", tc.s, tc.unit, got, err, tc.want, tc.bad)
		}
	}
}
