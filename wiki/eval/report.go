package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxReportQueries is how many questions eval-report.md lists (the newest);
// eval-report.json has them all.
const MaxReportQueries = 200

// MaxReportDetails is how many of the newest questions eval-report.md shows
// in full (searches, files read, answer, citations).
const MaxReportDetails = 20

// Markdown renders the report for people (eval-report.md): the tables of
// llm-kb's report plus the trend across runs.
func Markdown(rep *Report) []byte {
	var b strings.Builder
	s := rep.Summary
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	window := "the whole audit log"
	if rep.Since != "" {
		window = "since " + rep.Since
	}
	w("# Eval Report\n\n> %d queries across %d sessions · %s · %s\n\n", s.Queries, s.Sessions, rep.Generated.Format("2006-01-02 15:04 UTC"), window)

	w("## Performance\n\n| Metric | Value |\n|---|---|\n")
	w("| Total queries | %d |\n", s.Queries)
	w("| Avg duration | %s |\n", durationOf(s.AvgDurationMS, s.Queries))
	w("| Wiki hits (no source reads) | %d (%s) |\n", s.Hits, pct(s.HitRate, s.Queries))
	w("| Needed source files | %d |\n", s.NeededSources)
	w("| Answered from nothing (no read, no search) | %d |\n", s.FromNothing)
	w("| Total file reads | %d |\n", s.FileReads)
	w("| Wasted reads | %d |\n", s.WastedReads)
	w("| Searches | %d |\n", s.Searches)
	w("| Citations verified | %d/%d (%s) |\n", s.CitationsVerified, s.Citations, pct(ratio(s.CitationsVerified, s.Citations), s.Citations))
	w("| Citation errors | %d |\n", s.CitationErrors)
	if s.StaleCitations > 0 {
		w("| Stale citations (file changed since) | %d |\n", s.StaleCitations)
	}
	w("| Answers without citations | %d |\n", s.Uncited)

	w("\n### Most Read Files\n\n")
	if len(rep.MostRead) == 0 {
		w("No files were read by answered questions.\n")
	} else {
		w("| File | Times Read |\n|---|---|\n")
		for i, f := range rep.MostRead {
			if i == 10 {
				break
			}
			w("| %s | %d |\n", cell(f.Path), f.Questions)
		}
	}

	w("\n## Trend\n\n| Run | Window | Queries | Wiki hit rate | Wasted reads | Citation errors | Avg duration |\n|---|---|---|---|---|---|---|\n")
	for i, r := range rep.Trend {
		label := r.Time.Format("2006-01-02 15:04")
		if i == len(rep.Trend)-1 {
			label += " (this run)"
		}
		win := "all"
		if r.Since != "" {
			win = "since " + r.Since
		}
		w("| %s | %s | %d | %s | %d | %d | %s |\n", label, win, r.Queries, pct(r.HitRate, r.Queries), r.WastedReads, r.CitationErrors, durationOf(r.AvgDurationMS, r.Queries))
	}

	w("\n## 🔴 Errors (%d)\n\n", len(rep.Errors))
	if len(rep.Errors) == 0 {
		w("None.\n\n")
	}
	for _, e := range rep.Errors {
		w("### %s: %s\n\n", e.Kind, text(e.Title))
		issueLines(&b, e)
		w("\n")
	}

	w("## 🟡 Warnings (%d)\n\n", len(rep.Warnings))
	if len(rep.Warnings) == 0 {
		w("None.\n")
	}
	for _, e := range rep.Warnings {
		w("- **%s**: %s", e.Kind, text(e.Title))
		if e.Question != "" {
			w(" (query: \"%s\"", text(clip(e.Question, 160)))
			if e.Quote != "" {
				w("; quote: \"%s\"", text(clip(e.Quote, 120)))
			}
			w(")")
		}
		if e.Recommendation != "" {
			w(". %s", text(e.Recommendation))
		}
		w(".\n")
	}

	g := rep.Gaps
	w("\n## 📝 Wiki Gaps (%d)\n\n", s.GapCount)
	w("### Questions that needed sources (%d)\n\n", len(g.NeededSources))
	if len(g.NeededSources) == 0 {
		w("None: every question was answered from pages and context.md.\n")
	} else {
		w("| Question | Sources |\n|---|---|\n")
		for _, n := range g.NeededSources {
			w("| %s | %s |\n", cell(clip(n.Question, 160)), cell(strings.Join(n.Sources, ", ")))
		}
	}
	w("\n### Topics asked %d+ times without a page (%d)\n\n", MinTopicRepeats, len(g.RepeatedTopics))
	if len(g.RepeatedTopics) == 0 {
		w("None.\n")
	} else {
		w("| Topic | Times asked | Latest question |\n|---|---|---|\n")
		for _, t := range g.RepeatedTopics {
			w("| %s | %d | %s |\n", cell(clip(t.Topic, 80)), t.Asked, cell(clip(t.Questions[0], 160)))
		}
	}
	if len(g.EmptySearches) > 0 {
		w("\n### Searches that found nothing (%d)\n\n| Search | Question |\n|---|---|\n", len(g.EmptySearches))
		for i, e := range g.EmptySearches {
			if i == 100 {
				w("\n%d more in eval-report.json.\n", len(g.EmptySearches)-100)
				break
			}
			w("| %s | %s |\n", cell(clip(e.Query, 80)), cell(clip(e.Question, 160)))
		}
	}
	w("\n### Dangling links (%d)\n\n", len(g.DanglingLinks))
	if len(g.DanglingLinks) == 0 {
		w("None.\n")
	} else {
		w("| Page | Link | Line |\n|---|---|---|\n")
		for i, d := range g.DanglingLinks {
			if i == 100 {
				w("\n%d more in eval-report.json.\n", len(g.DanglingLinks)-100)
				break
			}
			w("| %s | %s | %d |\n", cell(d.Page), cell("[["+d.Target+"]]"), d.Line)
		}
	}
	w("\nLink check: %s.\n", g.LinkCheck)
	if len(g.Judge) > 0 {
		w("\n### Reported by the judge (%d)\n\n", len(g.Judge))
		for _, j := range g.Judge {
			w("- %s (query: %s)\n", text(j.Title), text(clip(j.Question, 120)))
		}
	}

	w("\n## Queries\n\n")
	qs := rep.Questions
	if len(qs) > MaxReportQueries {
		w("The newest %d of %d; eval-report.json has them all.\n\n", MaxReportQueries, len(qs))
		qs = qs[len(qs)-MaxReportQueries:]
	}
	if len(qs) == 0 {
		w("No answered questions. Agents record each answer with the file_answer tool; eval reads those records and the audit log.\n")
	} else {
		w("| When | Question | Duration | Searches | Pages read | Sources read | Wasted | Citations ok | Wiki hit |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, q := range qs {
			ok := 0
			for _, c := range q.Checks {
				if c.Status != "error" {
					ok++
				}
			}
			hit := "no"
			switch {
			case q.Hit:
				hit = "yes"
			case q.FromNothing:
				hit = "no: read nothing"
			}
			w("| %s | %s | %s | %d | %d | %d | %d | %d/%d | %s |\n", q.Start.Format("2006-01-02 15:04"), cell(clip(q.Question, 120)), seconds(q.DurationMS),
				len(q.Searches), len(q.PagesRead), len(q.SourcesRead), len(q.Wasted), ok, len(q.Checks), hit)
		}
	}

	if n := min(len(qs), MaxReportDetails); n > 0 {
		w("\n### The newest %d in detail\n", n)
		for i := len(qs) - 1; i >= len(qs)-n; i-- {
			q := qs[i]
			w("\n#### %s\n\n", text(clip(q.Question, 200)))
			w("- **When:** %s, %s, %s", q.Start.Format("2006-01-02 15:04:05"), seconds(q.DurationMS), plural(q.Calls, "call"))
			if q.Revisions > 0 {
				w(", answer corrected %s", plural(q.Revisions, "time"))
			}
			w(" (session %s)\n", text(q.Session))
			if len(q.Searches) > 0 {
				ss := make([]string, len(q.Searches))
				for i, s := range q.Searches {
					ss[i] = "\"" + text(clip(s, 80)) + "\""
				}
				w("- **Searches:** %s\n", strings.Join(ss, ", "))
			}
			if len(q.PagesRead) > 0 {
				w("- **Pages read:** %s\n", text(strings.Join(q.PagesRead, ", ")))
			}
			if len(q.SourcesRead) > 0 {
				w("- **Sources read:** %s\n", text(strings.Join(q.SourcesRead, ", ")))
			}
			if len(q.Wasted) > 0 {
				w("- **Read, never cited:** %s\n", text(strings.Join(q.Wasted, ", ")))
			}
			w("- **Answer:** %s\n", text(clip(q.Answer, 300)))
			for _, c := range q.Checks {
				w("- **Citation (%s):** %s: \"%s\"", c.Status, text(c.Path), text(clip(c.Quote, 160)))
				if c.Line > 0 {
					w(" (line %d)", c.Line)
				}
				w("\n")
			}
		}
	}

	w("\n## Sources of this report\n\n")
	a := rep.AuditLog
	w("- Audit log: %d files, %d lines (%d in the window)", a.Files, a.Lines, a.InWindow)
	if a.Torn > 0 {
		w("; %d torn last line(s) skipped", a.Torn)
	}
	if a.BadCount > 0 {
		w("; %d unreadable line(s) skipped (%s)", a.BadCount, strings.Join(a.Bad, ", "))
	}
	w(".\n")
	if rep.BadAnswerRecords > 0 {
		w("- Eval store: %d unreadable answer record(s) skipped.\n", rep.BadAnswerRecords)
	}
	if u := rep.Unfiled; u.Calls > 0 {
		w("- Not counted: %d search or read calls in %d session(s) after their last file_answer (work never filed as an answer).\n", u.Calls, u.Sessions)
	}
	if t := rep.Transcripts; t != nil {
		w("- Claude Code transcripts: %d files, %d sessions used the wiki, %d questions (%d already in the audit log, %d added)", t.Files, t.Sessions, t.Exchanges, t.Duplicates, t.Used)
		if t.Torn+t.Bad > 0 {
			w("; %d line(s) skipped", t.Torn+t.Bad)
		}
		w(".\n")
	}
	if j := rep.Judge; j != nil {
		w("- Judge: %s checked %d questions: %d findings kept, %d dropped (their quote is not in the file)", text(j.Judge), j.Questions, j.Findings, j.Unverified)
		if j.Failures > 0 {
			w(", %d failed (%s)", j.Failures, text(j.Failure))
		}
		if u := j.Usage; u != nil {
			w("; %d completions, %d prompt + %d completion tokens, %s", u.Completions, u.PromptTokens, u.CompletionTokens, seconds(u.DurationMS))
			if u.Warning != "" {
				w("; warning: %s", text(u.Warning))
			}
		}
		w(".\n")
	} else {
		w("- Judge: none (the deterministic checks above need no model).\n")
	}
	return []byte(b.String())
}

func issueLines(b *strings.Builder, e Issue) {
	if e.Question != "" {
		fmt.Fprintf(b, "- **Query:** %s\n", text(clip(e.Question, 300)))
	}
	if len(e.Searches) > 0 {
		qs := make([]string, len(e.Searches))
		for i, s := range e.Searches {
			qs[i] = "\"" + text(clip(s, 80)) + "\""
		}
		fmt.Fprintf(b, "- **Searches:** %s\n", strings.Join(qs, ", "))
	}
	if e.Path != "" {
		if e.Quote != "" {
			fmt.Fprintf(b, "- **Cited:** %s: \"%s\"\n", text(e.Path), text(clip(e.Quote, 300)))
		} else {
			fmt.Fprintf(b, "- **File:** %s\n", text(e.Path))
		}
	}
	if e.Detail != "" && e.Detail != e.Title {
		fmt.Fprintf(b, "- **Detail:** %s\n", text(clip(e.Detail, 500)))
	}
	if e.Recommendation != "" {
		fmt.Fprintf(b, "- **Recommendation:** %s\n", text(e.Recommendation))
	}
}

// JSON renders the report as compact JSON (eval-report.json; a large log
// makes a large report, so no indentation).
func JSON(rep *Report) ([]byte, error) {
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// pct formats a rate as a whole percentage, or "n/a" when nothing was
// counted.
func pct(rate float64, of int) string {
	if of == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d%%", int(math.Round(rate*100)))
}

// durationOf is an average duration, or "n/a" when nothing was counted.
func durationOf(ms float64, of int) string {
	if of == 0 {
		return "n/a"
	}
	return seconds(ms)
}

func seconds(ms float64) string {
	return fmt.Sprintf("%.1fs", ms/1000)
}

// text makes untrusted text safe inline markdown: one line, with the
// characters that would start code, links, emphasis, HTML or tables
// escaped (an underscore inside a word, as in file_answer, is left alone:
// it cannot start emphasis).
func text(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '`', '*', '[', ']', '|', '#':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '_':
			if i > 0 && i < len(s)-1 && isWordByte(s[i-1]) && isWordByte(s[i+1]) {
				b.WriteByte(c)
			} else {
				b.WriteString(`\_`)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// plural returns n and noun, with an "s" unless n is 1.
func plural(n int, noun string) string { return english.Count(n, noun) }

// cell is text for a table cell.
func cell(s string) string { return text(s) }

// loadRuns reads the summaries of earlier runs, oldest first.
func loadRuns(st *wiki.Store) ([]RunSummary, error) {
	entries, err := st.ReadDir(RunsDir)
	if err != nil {
		return nil, nil // no runs yet
	}
	var out []RunSummary
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || store.IsTempName(e.Name()) {
			continue
		}
		data, ok, err := st.ReadState(path.Join(RunsDir, e.Name()))
		if err != nil || !ok {
			continue
		}
		var r RunSummary
		if json.Unmarshal(data, &r) == nil && !r.Time.IsZero() {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, nil
}

// Runs returns the summaries of the stored eval runs, oldest first (none
// when eval has not run). It reads only.
func Runs(st *wiki.Store) ([]RunSummary, error) { return loadRuns(st) }
