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
		{"cold empty", parseCold, "", "no result line for BenchmarkColdStart"},
		{"cold other benchmark", parseCold, "BenchmarkColdStartX-2  20  55000391 ns/op  31.79 MB-peak-rss-idle\n", "no result line"},
		{"cold without its unit", parseCold, "BenchmarkColdStart-2  20  55000391 ns/op  31.79 MB-peak-rss-idle\n", "no ms-median-to-tools/list"},
		{"lint bad number", parseLint, "BenchmarkLintScale-2  1  x ns/op\n", "value \"x\""},
		{"scale skipped", parseScale, skipped, "no \"scale: full build\" line"},
		{"scale cut short", parseScale, "scale: full build of 44681 pages: 28.5s wall, 45.9s CPU; peak RSS 256.0 MB\n", "no \"scale: search latency\" line"},
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
