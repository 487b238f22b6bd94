package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	sides := []*side{{label: "before", rev: "main", short: "6f1425a"}, {label: "after", rev: "HEAD", short: "abc1234"}}
	cold := func(ms float64) run {
		return run{metrics: []metric{{name: "cold start", unit: "ms", value: ms}, {name: "findings", unit: "count", value: 7, neutral: true}}, wall: 30 * time.Second}
	}
	load := func(callsPerSec float64) run {
		return run{metrics: []metric{{name: "achieved", unit: "calls/s", value: callsPerSec, higher: true}}, wall: 60 * time.Second}
	}
	figs := []figure{{key: "cold"}, {key: "load"}, {key: "lint"}, {key: "search"}}
	results := map[string]map[string][]run{
		"cold": {
			"before": {cold(40), cold(42), cold(41)},
			"after":  {cold(50), cold(52), {err: errors.New("go test: exit status 1"), log: "/logs/r3-cold-after.log", wall: 5 * time.Second}},
		},
		"load": {
			"before": {load(60), load(61), load(62)},
			"after":  {load(70), load(71), load(72)},
		},
		"lint": {
			"before": {{absent: true, err: errors.New("no BenchmarkLintScale in the tree")}},
			"after":  {{metrics: []metric{{name: "lint: wall", unit: "s", value: 9.04}}}},
		},
		"search": {
			"before": {{err: errors.New("parse: no \"scale: full build\" line"), log: "/logs/r1-search-before.log"}},
			"after":  {{err: errors.New("go test: signal: killed"), log: "/logs/r1-search-after.log"}},
		},
	}
	m := machineInfo{cpus: 2, model: "AMD EPYC", goVersion: "go version go1.26.8 linux/amd64", loadStart: "0.36 0.63 1.49", loadEnd: "4.1 2.0 1.9",
		took: 95 * time.Second, when: time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)}
	got := table(figs, results, sides, m, 3)
	for _, want := range []string{
		"Before: `main` (6f1425a); after: `HEAD` (abc1234). 3 round(s), interleaved (before first in odd rounds, after first in even), 2026-12-02 01:00 UTC, 1m35s in all.",
		"Machine: 2 CPUs (AMD EPYC), go version go1.26.8 linux/amd64; load average at the start 0.36 0.63 1.49, at the end 4.1 2.0 1.9.",
		"| figure | unit | before median [min–max] | after median [min–max] | change |",
		"| cold start | ms | 41 [40–42] | 51 [50–52] (1 of 3 runs failed) | +24.4% |",
		"| findings | count | 7 [7–7] | 7 [7–7] (1 of 3 runs failed) | 0% |",
		"| achieved | calls/s | 61 [60–62] | 71 [70–72] | +16.4% (better) |",
		"| lint: wall | s | absent (no BenchmarkLintScale in the tree) | 9.04 |  |",
		"| search |  | failed (1 of 1 runs) | failed (1 of 1 runs) |  |",
		"Wall time of one run (median): cold 30 s before, 30 s after; load 60 s before, 60 s after; lint – before, – after; search – before, – after.",
		"- lint, before: absent, no BenchmarkLintScale in the tree",
		"- cold, after, run 3: go test: exit status 1 (/logs/r3-cold-after.log)",
		"- search, before, run 1: parse: no \"scale: full build\" line (/logs/r1-search-before.log)",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("table lacks the line\n%s\ngot:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| cold start | ms | 41 [40–42] | 51 [50–52] (1 of 3 runs failed) | +24.4% (worse)") {
		t.Error("a verdict from 2 runs")
	}
}

func TestVerdict(t *testing.T) {
	low := metric{}
	high := metric{higher: true}
	neutral := metric{neutral: true}
	tests := []struct {
		name          string
		m             metric
		before, after []float64
		want          string
	}{
		{"overlap", low, []float64{10, 12, 14}, []float64{13, 15, 16}, ""},
		{"slower", low, []float64{10, 12, 14}, []float64{15, 15, 16}, "(worse)"},
		{"faster", low, []float64{10, 12, 14}, []float64{7, 8, 9}, "(better)"},
		{"more throughput", high, []float64{10, 12, 14}, []float64{15, 15, 16}, "(better)"},
		{"less throughput", high, []float64{10, 12, 14}, []float64{7, 8, 9}, "(worse)"},
		{"other findings", neutral, []float64{7, 7, 7}, []float64{8, 8, 8}, "(changed)"},
		{"two runs", low, []float64{10, 12}, []float64{15, 16}, ""},
	}
	for _, tc := range tests {
		if got := verdict(tc.m, tc.before, tc.after); got != tc.want {
			t.Errorf("%s: verdict = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		vs     []float64
		median float64
		sum    string
	}{
		{[]float64{3}, 3, "3"},
		{[]float64{4, 1, 2}, 2, "2 [1–4]"},
		{[]float64{4.25, 1.5, 2.5, 3.5}, 3, "3 [1.50–4.25]"},
		{[]float64{313.7, 320.2}, 316.95, "317 [314–320]"},
		{[]float64{0.58, 0.61}, 0.595, "0.595 [0.580–0.610]"},
	} {
		if got := median(tc.vs); got != tc.median {
			t.Errorf("median(%v) = %v, want %v", tc.vs, got, tc.median)
		}
		if got := summary(tc.vs); got != tc.sum {
			t.Errorf("summary(%v) = %q, want %q", tc.vs, got, tc.sum)
		}
	}
	for _, tc := range []struct {
		before, after float64
		want          string
	}{{40, 50, "+25.0%"}, {50, 40, "-20.0%"}, {3, 3, "0%"}, {0, 2, "from 0"}} {
		if got := change(tc.before, tc.after); got != tc.want {
			t.Errorf("change(%v, %v) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
}

func TestSelectFigures(t *testing.T) {
	figs, err := figures("scale")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		only string
		want string
		bad  bool
	}{
		{"", "cold,search,load,lint", false},
		{"build", "search", false},
		{"lint, search,build", "search,lint", false},
		{"cold,speed", "", true},
	} {
		got, err := selectFigures(figs, tc.only)
		var keys []string
		for _, f := range got {
			keys = append(keys, f.key)
		}
		if (err != nil) != tc.bad || strings.Join(keys, ",") != tc.want {
			t.Errorf("-only %q: %v, %v; want %q (error %v)", tc.only, keys, err, tc.want, tc.bad)
		}
	}
}

// TestBenchArgs checks that each figure's -bench pattern selects its
// benchmark and not the others of its package (ScaleServe beside Scale).
func TestBenchArgs(t *testing.T) {
	for _, variant := range []string{"scale", "light"} {
		figs, err := figures(variant)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range figs {
			if f.bench == "" {
				continue
			}
			args := benchArgs("pkg", f)
			i := slices.Index(args, "-bench")
			if i < 0 || args[2] != "./pkg" {
				t.Fatalf("%s: %v", f.key, args)
			}
			re := regexp.MustCompile(args[i+1])
			for _, name := range []string{"BenchmarkColdStart", "BenchmarkScale", "BenchmarkScaleServe", "BenchmarkScaleStart", "BenchmarkLintScale"} {
				if re.MatchString(name) != (name == f.bench) {
					t.Errorf("%s: -bench %s matches %s: %v", f.key, args[i+1], name, !(name == f.bench))
				}
			}
		}
	}
}

// TestBenchPackage finds a benchmark in whichever package declares it and
// ignores testdata, hidden folders and a name that only starts the same.
func TestBenchPackage(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"cmd/llmwiki/bench_test.go":        "package main\n\nfunc BenchmarkColdStartX(b *testing.B) {}\n",
		"server/stdio/cold_test.go":        "package stdio\n\nfunc BenchmarkColdStart(b *testing.B) {}\n",
		"testdata/x/lint_test.go":          "package x\n\nfunc BenchmarkLintScale(b *testing.B) {}\n",
		".git/y/lint_test.go":              "package y\n\nfunc BenchmarkLintScale(b *testing.B) {}\n",
		"wiki/search/scale.go":             "package search\n\nfunc BenchmarkScale(b *testing.B) {}\n",
		"wiki/search/comment_test.go":      "package search\n\n// func BenchmarkScale(b *testing.B) {}\n",
		"wiki/search/scale_helper_test.go": "package search\n\nfunc BenchmarkScaleServe(b *testing.B) {}\n",
	}
	for p, c := range files {
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"BenchmarkColdStart": "server/stdio", "BenchmarkLintScale": "", "BenchmarkScale": ""} {
		got, err := benchPackage(root, name)
		if err != nil || got != want {
			t.Errorf("benchPackage(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
}

// TestSubsetShared makes a shared folder of part of another: the listed
// paths with their files, an empty folder for each of empty, nothing else.
func TestSubsetShared(t *testing.T) {
	src := t.TempDir()
	for p, c := range map[string]string{
		"corpora/tldr/pages/common/tar.md":    "# tar\n",
		"corpora/tldr/pages/linux/apt.md":     "# apt\n",
		"corpora/tldr/pages.de/common/tar.md": "# tar (de)\n",
		"corpora/obsidian-help/en/Start.md":   "# Start\n",
		"golden/search.yaml":                  "- query: tar\n",
	} {
		p = filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "shared")
	got, err := subsetShared(src, dst, []string{"corpora/tldr/pages", "golden"}, []string{"corpora/obsidian-help"})
	if err != nil || got != dst {
		t.Fatalf("subsetShared = %q, %v", got, err)
	}
	var files []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dst, p)
		if d.IsDir() {
			rel += "/"
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	want := "./ corpora/ corpora/obsidian-help/ corpora/tldr/ corpora/tldr/pages/ corpora/tldr/pages/common/ corpora/tldr/pages/common/tar.md corpora/tldr/pages/linux/ corpora/tldr/pages/linux/apt.md golden/ golden/search.yaml"
	if strings.Join(files, " ") != want {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(files, " "), want)
	}
	if data, _ := os.ReadFile(filepath.Join(dst, "corpora", "tldr", "pages", "linux", "apt.md")); string(data) != "# apt\n" {
		t.Errorf("apt.md = %q", data)
	}
}
