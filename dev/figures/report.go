package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// series is one metric's values on each side.
type series struct {
	metric                      // the first value read: name, unit, direction
	vals   map[string][]float64 // by side label
}

// table renders the results as markdown: the machine, one row per metric
// (before and after as median [min–max] over the rounds, and the change of
// the median), the wall time of each command, and the runs that failed.
func table(figs []figure, results map[string]map[string][]run, sides []*side, m machineInfo, rounds int) string {
	var b strings.Builder
	before, after := sides[0], sides[1]
	fmt.Fprintf(&b, "Before: `%s` (%s); after: `%s` (%s). %d round(s), interleaved (before first in odd rounds, after first in even), %s UTC, %s in all.\n\n",
		before.rev, before.short, after.rev, after.short, rounds, m.when.Format("2006-01-02 15:04"), m.took.Round(time.Second))
	model := ""
	if m.model != "" {
		model = " (" + m.model + ")"
	}
	fmt.Fprintf(&b, "Machine: %d CPUs%s, %s; load average at the start %s, at the end %s.\n\n", m.cpus, model, m.goVersion, m.loadStart, m.loadEnd)
	b.WriteString("| figure | unit | before median [min–max] | after median [min–max] | change |\n")
	b.WriteString("|---|---|---|---|---|\n")
	var failures []string
	apart := false
	for _, f := range figs {
		runs := results[f.key]
		all := collect(runs, sides)
		if len(all) == 0 {
			row(&b, f.key, "", missing(runs[before.label]), missing(runs[after.label]), "")
		}
		for _, sr := range all {
			var cells [2]string
			for i, s := range sides {
				vs := sr.vals[s.label]
				if len(vs) == 0 {
					cells[i] = missing(runs[s.label])
					continue
				}
				cells[i] = summary(vs)
				if k := failed(runs[s.label]); k > 0 {
					cells[i] += fmt.Sprintf(" (%d of %d runs failed)", k, len(runs[s.label]))
				}
			}
			ch := ""
			bv, av := sr.vals[before.label], sr.vals[after.label]
			if len(bv) > 0 && len(av) > 0 {
				ch = change(median(bv), median(av))
				if v := verdict(sr.metric, bv, av); v != "" {
					ch += " " + v
					apart = true
				}
			}
			row(&b, sr.name, sr.unit, cells[0], cells[1], ch)
		}
		for _, s := range sides {
			for i, r := range runs[s.label] {
				switch {
				case r.absent:
					failures = append(failures, fmt.Sprintf("- %s, %s: absent, %v", f.key, s.label, r.err))
				case r.err != nil:
					failures = append(failures, fmt.Sprintf("- %s, %s, run %d: %v (%s)", f.key, s.label, i+1, r.err, r.log))
				}
			}
		}
	}
	if apart {
		b.WriteString("\n(worse), (better), (changed): the two sides' ranges do not overlap (said with 3 rounds or more).\n")
	}
	var times []string
	for _, f := range figs {
		var ts [2]string
		for i, s := range sides {
			var ds []float64
			for _, r := range results[f.key][s.label] {
				if r.wall > 0 {
					ds = append(ds, r.wall.Seconds())
				}
			}
			ts[i] = "–"
			if len(ds) > 0 {
				ts[i] = fmt.Sprintf("%.0f s", median(ds))
			}
		}
		times = append(times, fmt.Sprintf("%s %s before, %s after", f.key, ts[0], ts[1]))
	}
	b.WriteString("\nWall time of one run (median): " + strings.Join(times, "; ") + ".\n")
	if len(failures) > 0 {
		b.WriteString("\nFailed or absent:\n" + strings.Join(failures, "\n") + "\n")
	}
	return b.String()
}

// row writes one row of the markdown table.
func row(b *strings.Builder, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// collect gathers each metric's values by side, in the order the metrics
// first appear (before's runs first), from the runs that succeeded.
func collect(runs map[string][]run, sides []*side) []*series {
	var out []*series
	byName := map[string]*series{}
	for _, s := range sides {
		for _, r := range runs[s.label] {
			if r.err != nil {
				continue
			}
			for _, mt := range r.metrics {
				sr := byName[mt.name]
				if sr == nil {
					sr = &series{metric: mt, vals: map[string][]float64{}}
					byName[mt.name] = sr
					out = append(out, sr)
				}
				sr.vals[s.label] = append(sr.vals[s.label], mt.value)
			}
		}
	}
	return out
}

// missing says why a side has no value: absent, failed, or not run.
func missing(runs []run) string {
	if len(runs) == 0 {
		return "not run"
	}
	if runs[0].absent {
		return "absent (" + runs[0].err.Error() + ")"
	}
	return fmt.Sprintf("failed (%d of %d runs)", failed(runs), len(runs))
}

func failed(runs []run) int {
	n := 0
	for _, r := range runs {
		if r.err != nil {
			n++
		}
	}
	return n
}

// summary is "median [min–max]", or the value alone for one run.
func summary(vs []float64) string {
	if len(vs) == 1 {
		return num(vs[0])
	}
	return fmt.Sprintf("%s [%s–%s]", num(median(vs)), num(slices.Min(vs)), num(slices.Max(vs)))
}

// change is the after median's change from the before median, in percent.
func change(before, after float64) string {
	switch {
	case before == after:
		return "0%"
	case before == 0:
		return "from 0"
	}
	return fmt.Sprintf("%+.1f%%", 100*(after-before)/before)
}

// verdict says whether after is worse or better than before beyond the
// spread of the runs: the two ranges do not overlap. With fewer than three
// runs a side, it says nothing.
func verdict(m metric, before, after []float64) string {
	if len(before) < 3 || len(after) < 3 {
		return ""
	}
	up := slices.Min(after) > slices.Max(before)
	down := slices.Max(after) < slices.Min(before)
	switch {
	case !up && !down:
		return ""
	case m.neutral:
		return "(changed)"
	case up == m.higher:
		return "(better)"
	}
	return "(worse)"
}

func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// num prints three significant figures or more: 1234, 123, 12.3, 1.23,
// 0.123.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a == math.Trunc(a) && a < 1e15:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
