package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki/eval"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runEval(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "eval", "eval [--root DIR] [--since T] [--claude-transcripts DIR] [--json] [--dry-run] [--judge [model flags]]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	sinceFlag := fs.String("since", "", "only calls and answers from this time: RFC 3339 (2026-11-01T09:00:00Z), a date (2026-11-01) or an age (36h, 7d)")
	transcripts := fs.String("claude-transcripts", "", "also read Claude Code session transcripts (*.jsonl) under this folder, e.g. ~/.claude/projects/<project>")
	asJSON := fs.Bool("json", false, "print the report as JSON on stdout instead of the summary")
	dryRun := fs.Bool("dry-run", false, "compute and print, but write neither the report nor guidelines.md")
	failOnError := fs.Bool("fail-on-error", false, "exit with status 1 when the report has errors (wrong citations), for CI")
	judge := fs.Bool("judge", false, "also ask a model (see the model flags) whether each answer contradicts the files it read, sent in full")
	judgeMax := fs.Int("judge-max", 50, "with --judge: how many of the newest questions to check")
	judgeChars := fs.Int("judge-chars", eval.DefaultJudgeChars, "with --judge: most file text per completion; longer files are sent in several complete slices")
	mf := addModelFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("eval takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	dir, err := resolveRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	st, err := openExistingLog(dir, newLogger(e))
	if err != nil {
		return err
	}
	defer st.Close()
	opts := eval.Options{Transcripts: expandHome(e, *transcripts)}
	if *sinceFlag != "" {
		if opts.Since, err = parseSince(*sinceFlag, st.Now()); err != nil {
			return err
		}
	}
	if !*asJSON {
		opts.Progress = func(s string) { fmt.Fprintln(e.stderr, s) }
	}
	if *judge {
		c, err := mf.client(e)
		if err != nil {
			return err
		}
		opts.Judge, opts.JudgeMax = eval.NewModelJudge(c, *judgeChars), *judgeMax
	}
	call := store.NewCall("cli:eval", st.SessionID(), map[string]any{"since": *sinceFlag, "claude_transcripts": *transcripts, "dry_run": *dryRun})
	ctx = store.WithCall(ctx, call)
	rep, err := eval.Evaluate(ctx, st, app.New(st, app.Options{NoSearch: true}).Links, opts)
	var w eval.Written
	if err == nil && !*dryRun {
		w, err = eval.Write(ctx, st, rep)
	}
	if rep != nil {
		call.SetExtra("queries", rep.Summary.Queries)
		call.SetExtra("errors", rep.Summary.ErrorCount)
		if rep.Judge != nil {
			call.SetExtra("judge", rep.Judge)
		}
	}
	if aerr := st.Audit(call, err); aerr != nil {
		newLogger(e).Error("audit line not written", "err", aerr)
	}
	if err != nil {
		return fmt.Errorf("eval: %s", store.PublicMessage(err))
	}
	if *asJSON {
		js, jerr := eval.JSON(rep)
		if jerr != nil {
			return jerr
		}
		_, err = e.stdout.Write(js)
	} else {
		printEvalSummary(e, rep, w, *dryRun)
	}
	if err == nil && *failOnError && rep.Summary.ErrorCount > 0 {
		return exitCode(1)
	}
	return err
}

func printEvalSummary(e env, rep *eval.Report, w eval.Written, dry bool) {
	s := rep.Summary
	out := e.stdout
	fmt.Fprintf(out, "Results:\n")
	fmt.Fprintf(out, "  Queries analyzed: %d (across %s)\n", s.Queries, english.Count(s.Sessions, "session"))
	if s.Queries > 0 {
		fmt.Fprintf(out, "  Wiki hit rate:    %d%% (%d of %d answered without raw sources)\n", int(s.HitRate*100+0.5), s.Hits, s.Queries)
		fmt.Fprintf(out, "  Wasted reads:     %d of %d file reads\n", s.WastedReads, s.FileReads)
		fmt.Fprintf(out, "  Avg duration:     %.1fs\n", s.AvgDurationMS/1000)
	}
	fmt.Fprintf(out, "  Citations:        %d of %d verified, %d wrong\n", s.CitationsVerified, s.Citations, s.CitationErrors)
	fmt.Fprintf(out, "  Issues:           %s, %s\n", english.Count(s.ErrorCount, "error"), english.Count(s.WarningCount, "warning"))
	fmt.Fprintf(out, "  Wiki gaps:        %d\n", s.GapCount)
	if j := rep.Judge; j != nil {
		fmt.Fprintf(out, "  Judge:            %d questions checked, %d findings kept, %d dropped as unverified, %d failed\n", j.Questions, j.Findings, j.Unverified, j.Failures)
		if j.Usage != nil {
			fmt.Fprintf(out, "                    %d completions, %d prompt + %d completion tokens, %.1fs\n", j.Usage.Completions, j.Usage.PromptTokens, j.Usage.CompletionTokens, j.Usage.DurationMS/1000)
			if j.Usage.Warning != "" {
				fmt.Fprintf(out, "  warning: %s\n", j.Usage.Warning)
			}
		}
	}
	if a := rep.AuditLog; a.Torn+a.BadCount > 0 {
		fmt.Fprintf(out, "  Audit log:        %d torn and %d unreadable lines skipped\n", a.Torn, a.BadCount)
	}
	if dry {
		fmt.Fprintln(out, "Dry run: nothing written.")
		return
	}
	fmt.Fprintf(out, "Report: %s (and %s)\n", w.Report, w.JSON)
	fmt.Fprintf(out, "Guidelines: %s ## %s %s\n", w.Guidelines, eval.InsightsTitle, w.GuidelinesChange)
}

// parseSince reads --since: RFC 3339, a date (midnight UTC), or an age
// before now ("36h", "90m", "7d").
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t.UTC(), nil
	}
	if strings.HasSuffix(s, "d") {
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q is not a time: use RFC 3339 (2026-11-01T09:00:00Z), a date (2026-11-01) or an age (36h, 7d)", s)
}

func expandHome(e env, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home := e.getenv("HOME"); home != "" {
			return home + p[1:]
		}
	}
	return p
}
