package ui

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/eval"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// chartRuns is how many of the newest runs the chart shows.
const chartRuns = 60

// figure is one row of the latest figures' table.
type figure struct{ Name, Value, Help string }

// evalData is what eval.html shows.
type evalData struct {
	Lines, Queries int
	Runs           int // stored runs (the chart's points before "now")
	Chart          template.HTML
	Figures        []figure
	Trend          []eval.RunSummary // newest first, for the table under the chart
}

func (a *app) evalPage(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Eval", Nav: "eval"}
	if a.cfg.Links == nil {
		p.Error = "this server runs without the link graph, which eval needs"
		a.renderStatus(w, http.StatusServiceUnavailable, "eval", p)
		return
	}
	// The same computation as `llmwiki eval --dry-run`: nothing is written.
	rep, err := eval.Evaluate(r.Context(), a.cfg.Store, a.cfg.Links, eval.Options{})
	if err != nil {
		p.Error = store.PublicMessage(err)
		a.renderStatus(w, browseStatus(err), "eval", p)
		return
	}
	s := rep.Summary
	d := evalData{Lines: rep.AuditLog.Lines, Queries: s.Queries, Runs: len(rep.Trend) - 1}
	trend := rep.Trend
	if len(trend) > chartRuns {
		trend = trend[len(trend)-chartRuns:]
	}
	d.Chart = trendChart(trend)
	for i := len(trend) - 1; i >= 0 && len(d.Trend) < 20; i-- {
		d.Trend = append(d.Trend, trend[i])
	}
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", x*100) }
	d.Figures = []figure{
		{"Questions answered", fmt.Sprint(s.Queries), fmt.Sprintf("from %d sessions", s.Sessions)},
		{"Wiki hit rate", pct(s.HitRate), fmt.Sprintf("%d answered from the wiki without a raw source (target %s)", s.Hits, pct(eval.HitRateTarget))},
		{"Needed sources", fmt.Sprint(s.NeededSources), "questions that read or cited a raw source"},
		{"Answered from nothing", fmt.Sprint(s.FromNothing), "nothing read or searched in the session"},
		{"File reads", fmt.Sprint(s.FileReads), "distinct files read, summed over questions"},
		{"Wasted reads", fmt.Sprint(s.WastedReads), "files read that the answer did not cite"},
		{"Searches", fmt.Sprint(s.Searches), ""},
		{"Average duration", fmt.Sprintf("%.1f s", s.AvgDurationMS/1000), "first call to answer"},
		{"Citations", fmt.Sprint(s.Citations), fmt.Sprintf("%d verified, %d wrong, %d stale; validity %s", s.CitationsVerified, s.CitationErrors, s.StaleCitations, pct(s.CitationValidity))},
		{"Answers without citations", fmt.Sprint(s.Uncited), ""},
		{"Gaps", fmt.Sprint(s.GapCount), "needed sources, repeated topics, empty searches, dangling links"},
		{"Errors / warnings", fmt.Sprintf("%d / %d", s.ErrorCount, s.WarningCount), "llmwiki eval lists them"},
		{"Audit log", fmt.Sprintf("%d lines in %d files", rep.AuditLog.Lines, rep.AuditLog.Files), ""},
	}
	p.Data = d
	a.render(w, "eval", p)
}

// trendChart draws the hit rate (left axis, 0–100%) and wasted reads
// (right axis, 0 to the largest) of each run, oldest left, as an inline
// SVG: no script, nothing fetched. Every text in it is escaped.
func trendChart(runs []eval.RunSummary) template.HTML {
	if len(runs) == 0 {
		return ""
	}
	const (
		width, height      = 720, 260
		left, right        = 48, 56
		top, bottom        = 16, 40
		plotW, plotH       = width - left - right, height - top - bottom
		hitColor, wasteCol = "#1f6feb", "#cf222e"
	)
	maxWaste := 1
	for _, r := range runs {
		maxWaste = max(maxWaste, r.WastedReads)
	}
	// Wasted reads are whole numbers: above 2 the right axis runs to a
	// multiple of 4, so each of its grid lines falls on one, and a grid line
	// at a fraction gets no label.
	if maxWaste > 2 {
		maxWaste = (maxWaste + 3) / 4 * 4
	}
	x := func(i int) float64 {
		if len(runs) == 1 {
			return left + plotW/2
		}
		return left + float64(i)*plotW/float64(len(runs)-1)
	}
	yHit := func(v float64) float64 { return top + plotH*(1-math.Max(0, math.Min(1, v))) }
	yWaste := func(v int) float64 { return top + plotH*(1-float64(v)/float64(maxWaste)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" id="eval-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="wiki hit rate and wasted reads per eval run">`, width, height, width, height)
	// Grid and axes.
	for _, f := range []float64{0, .25, .5, .75, 1} {
		y := yHit(f)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#e5e5e5"/>`, left, y, left+plotW, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11" text-anchor="end" fill="%s">%.0f%%</text>`, left-6, y+4, hitColor, f*100)
		if v := f * float64(maxWaste); v == math.Trunc(v) {
			fmt.Fprintf(&b, `<text class="waste-tick" x="%d" y="%.1f" font-size="11" fill="%s">%d</text>`, left+plotW+6, y+4, wasteCol, int(v))
		}
	}
	// The target hit rate.
	ty := yHit(eval.HitRateTarget)
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-dasharray="4 4" opacity=".5"/>`, left, ty, left+plotW, ty, hitColor)
	var hit, waste []string
	for i, r := range runs {
		hit = append(hit, fmt.Sprintf("%.1f,%.1f", x(i), yHit(r.HitRate)))
		waste = append(waste, fmt.Sprintf("%.1f,%.1f", x(i), yWaste(r.WastedReads)))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, hitColor, strings.Join(hit, " "))
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="6 3" points="%s"/>`, wasteCol, strings.Join(waste, " "))
	for i, r := range runs {
		label := template.HTMLEscapeString(r.Time.UTC().Format("2006-01-02 15:04"))
		fmt.Fprintf(&b, `<circle class="hit-point" cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: hit rate %.0f%% of %d questions</title></circle>`, x(i), yHit(r.HitRate), hitColor, label, r.HitRate*100, r.Queries)
		fmt.Fprintf(&b, `<circle class="waste-point" cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %d wasted reads</title></circle>`, x(i), yWaste(r.WastedReads), wasteCol, label, r.WastedReads)
	}
	// First and last run's dates under the axis.
	first := template.HTMLEscapeString(runs[0].Time.UTC().Format("2006-01-02"))
	last := template.HTMLEscapeString(runs[len(runs)-1].Time.UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" fill="#555">%s</text>`, left, height-bottom+16, first)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end" fill="#555">%s (now)</text>`, left+plotW, height-bottom+16, last)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="%s">— wiki hit rate</text>`, left, height-6, hitColor)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="%s">- - wasted reads</text>`, left+150, height-6, wasteCol)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func init() {
	// pct shows a rate in [0, 1] as a percentage.
	funcs["pct"] = func(x float64) float64 { return x * 100 }
}
