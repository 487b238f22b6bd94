package main

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// metric is one number read from a command's output.
type metric struct {
	name   string
	unit   string
	value  float64
	higher bool // a higher value is better (throughput); else lower is
	// neutral: neither direction is better, a change is a change of
	// behaviour (the findings lint reports)
	neutral bool
}

// benchResults reads the result line of benchmark name (the last one when
// it ran more than once) from go test output: "BenchmarkX-2  20  55000391
// ns/op  31.79 MB-peak-rss-idle ...". It returns each value by its unit.
func benchResults(out, name string) (map[string]float64, error) {
	var res map[string]float64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || (f[0] != name && !strings.HasPrefix(f[0], name+"-")) {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // the name alone, printed by -v before the figures
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %v", name, f[i], err)
			}
			m[f[i+1]] = v
		}
		res = m
	}
	if res == nil && !strings.Contains(out, name) {
		return nil, fmt.Errorf("%s did not run (not in the output)", name)
	}
	if res == nil {
		return nil, fmt.Errorf("no result line for %s", name)
	}
	return res, nil
}

// fromBench picks units out of a benchmark's result line as metrics.
func fromBench(out, name string, want []metric, units []string) ([]metric, error) {
	res, err := benchResults(out, name)
	if err != nil {
		return nil, err
	}
	var ms []metric
	for i, w := range want {
		v, ok := res[units[i]]
		if !ok {
			return nil, fmt.Errorf("%s: no %s in its result line", name, units[i])
		}
		w.value = v
		ms = append(ms, w)
	}
	return ms, nil
}

// parseCold reads BenchmarkColdStart's output.
func parseCold(out string) ([]metric, error) {
	return fromBench(out, "BenchmarkColdStart",
		[]metric{{name: "cold start: exec to tools/list, median", unit: "ms"}, {name: "cold start: peak RSS, idle", unit: "MB"}},
		[]string{"ms-median-to-tools/list", "MB-peak-rss-idle"})
}

var lintFindings = regexp.MustCompile(`(?m)^lint of (\d+) files .*?, (\d+) findings`)

// parseLint reads BenchmarkLintScale's output: wall, CPU and peak RSS from
// its result line, and the findings count from its printed line (the same
// on both sides unless lint's behaviour changed).
func parseLint(out string) ([]metric, error) {
	ms, err := fromBench(out, "BenchmarkLintScale",
		[]metric{{name: "lint: wall", unit: "s"}, {name: "lint: CPU", unit: "s"}, {name: "lint: peak RSS", unit: "MB"}},
		[]string{"s/lint", "cpu-s/lint", "MB-peak-RSS"})
	if err != nil {
		return nil, err
	}
	if m := lintFindings.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseFloat(m[2], 64)
		ms = append(ms, metric{name: "lint: findings (" + m[1] + " files)", unit: "count", value: n, neutral: true})
	}
	return ms, nil
}

// A Go duration as time.Duration.String prints it ("28.512s", "4.5ms",
// "580µs", "1m2.5s").
const durRE = `([\d.]+(?:ms|µs|us|ns|h|m|s)(?:[\d.]+(?:ms|µs|us|ns|m|s))*)`

// Scale's printed lines, each with the groups scaleLine maps to metrics.
var (
	scaleBuild   = regexp.MustCompile(`scale: full build of (\d+) pages: ` + durRE + ` wall, ` + durRE + ` CPU; peak RSS ([\d.]+) MB`)
	scaleSize    = regexp.MustCompile(`scale: index size on disk ([\d.]+) MB`)
	scaleApply   = regexp.MustCompile(`scale: incremental index update \(Apply of one page\): p50 ` + durRE)
	scaleLatency = regexp.MustCompile(`scale: search latency over (\d+) queries[^:]*: p50 ` + durRE + `, p90 ` + durRE + `, p99 ` + durRE + `, max ` + durRE + `; ` + durRE + ` CPU in all; peak RSS while serving ([\d.]+) MB`)
	scaleStart   = regexp.MustCompile(`scale: start to first answer[^:]*: min ` + durRE + `, p50 ` + durRE)
)

// parseScale reads BenchmarkScale's printed lines: the build (wall, CPU,
// peak RSS, size on disk), one page's incremental update, search latency
// (p50, p90, p99 over its queries, and the CPU they took), peak RSS while
// serving, and start to first answer.
func parseScale(out string) ([]metric, error) {
	var ms []metric
	add := func(name, unit, s string) error {
		v, err := value(s, unit)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		ms = append(ms, metric{name: name, unit: unit, value: v})
		return nil
	}
	m := scaleBuild.FindStringSubmatch(out)
	if m == nil && !strings.Contains(out, "BenchmarkScale") {
		return nil, fmt.Errorf("BenchmarkScale did not run (not in the output)")
	}
	if m == nil {
		return nil, fmt.Errorf("no \"scale: full build\" line")
	}
	errs := []error{
		add("build: full index, wall ("+m[1]+" pages)", "s", m[2]),
		add("build: full index, CPU", "s", m[3]),
		add("build: peak RSS", "MB", m[4]),
	}
	if m := scaleSize.FindStringSubmatch(out); m != nil {
		errs = append(errs, add("build: index on disk", "MB", m[1]))
	}
	if m := scaleApply.FindStringSubmatch(out); m != nil {
		errs = append(errs, add("search: one page's update (Apply), p50", "ms", m[1]))
	}
	m = scaleLatency.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no \"scale: search latency\" line")
	}
	errs = append(errs,
		add("search: latency p50 ("+m[1]+" queries)", "ms", m[2]),
		add("search: latency p90", "ms", m[3]),
		add("search: latency p99", "ms", m[4]),
		add("search: CPU of the queries", "s", m[6]),
		add("search: peak RSS serving", "MB", m[7]),
	)
	if m := scaleStart.FindStringSubmatch(out); m != nil {
		errs = append(errs, add("search: start to first answer, p50", "ms", m[2]))
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ms, nil
}

// The load test's lines (cmd/llmwiki-load's report).
var (
	loadSetup    = regexp.MustCompile(`(?m)^setup: rebuild_index ` + durRE)
	loadAchieved = regexp.MustCompile(`(?m)^achieved: \d+ calls answered in [\d.]+ s = ([\d.]+) calls/s`)
	loadReads    = regexp.MustCompile(`(?m)^reads \(all read tools\): p50 ([\d.]+) ms, p99 ([\d.]+) ms`)
	loadSearch   = regexp.MustCompile(`(?m)^\s*search_wiki\s+\d+\s+\d+\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s*$`)
	loadCPU      = regexp.MustCompile(`(?m)^server CPU over the [^:]*: [\d.]+ s \([\d.]+ cores busy\), ([\d.]+) ms a call`)
	loadServer   = regexp.MustCompile(`(?m)^server: start ` + durRE + ` \(.*?warm-up: first read_page, search_wiki and list_pages ` + durRE + `.*?\), peak RSS ([\d.]+) MiB`)
	loadChecks   = regexp.MustCompile(`(?m)^checks: (\d+) passed, (\d+) failed`)
)

// parseLoad reads the load test's report of one open-loop phase: achieved
// calls a second, read latency p50/p99, search_wiki's p50/p99, the
// server's CPU a call, its start, warm-up and peak RSS, the setup's index
// build, and the failed checks (0 unless something was lost).
func parseLoad(out string) ([]metric, error) {
	var ms []metric
	var errs []error
	add := func(name, unit, s string, higher bool) {
		v, err := value(s, unit)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
			return
		}
		ms = append(ms, metric{name: name, unit: unit, value: v, higher: higher})
	}
	m := loadReads.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no \"reads (all read tools)\" line")
	}
	add("load: reads p50", "ms", m[1], false)
	add("load: reads p99", "ms", m[2], false)
	if m := loadSearch.FindStringSubmatch(out); m != nil {
		add("load: search_wiki p50", "ms", m[1], false)
		add("load: search_wiki p99", "ms", m[2], false)
	}
	if m := loadAchieved.FindStringSubmatch(out); m != nil {
		add("load: achieved", "calls/s", m[1], true)
	}
	if m := loadCPU.FindStringSubmatch(out); m != nil {
		add("load: server CPU a call", "ms", m[1], false)
	}
	if m := loadServer.FindStringSubmatch(out); m != nil {
		add("load: server start", "ms", m[1], false)
		add("load: warm-up (first read_page, search_wiki, list_pages)", "s", m[2], false)
		add("load: server peak RSS", "MiB", m[3], false)
	}
	if m := loadSetup.FindStringSubmatch(out); m != nil {
		add("load: setup rebuild_index", "s", m[1], false)
	}
	m = loadChecks.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no \"checks:\" line")
	}
	add("load: checks failed (of "+addInts(m[1], m[2])+")", "count", m[2], false)
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return ms, nil
}

func addInts(a, b string) string {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return strconv.Itoa(x + y)
}

// value reads s as a number in unit: a Go duration is converted to ms or s,
// anything else is a plain number already in unit.
func value(s, unit string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a number nor a duration", s)
	}
	switch unit {
	case "ms":
		return float64(d) / float64(time.Millisecond), nil
	case "s":
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("duration %q for unit %s", s, unit)
}
