package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/eval"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// wikiStatus is what llmwiki status shows; its JSON field names are stable
// (docs/design.md, "Transports and the command line") and name a fact
// load_project also reports by load_project's name.
type wikiStatus struct {
	Name           string            `json:"name"`
	Pages          int               `json:"pages"`
	Sources        int               `json:"sources"`
	PendingSources int               `json:"pending_sources"` // load_project's counts.pending_sources
	StalePages     int               `json:"stale_pages"`     // lint's stale_page findings (load_project's stale is derived state, another fact)
	IndexStale     bool              `json:"index_stale"`     // load_project's index_stale
	Lint           map[string]int    `json:"lint"`
	LintSeverities lint.Severities   `json:"lint_severities"`
	Eval           *statusEval       `json:"eval"`
	SearchIndex    statusSearchIndex `json:"search_index"`
	Snapshots      statusSnapshots   `json:"snapshots"`
	RecentLog      []string          `json:"recent_log"`
	Review         statusReview      `json:"review"`
	Git            git.Status        `json:"git"` // load_project's git (mode off: nothing else is set)
}

// statusReview is what awaits a person (llmwiki review).
type statusReview struct {
	Mode string `json:"mode"`
	review.Counts
	// Error says why the counts could not be read (they are 0 then).
	Error string `json:"error,omitempty"`
}

type statusEval struct {
	Evaluated string    `json:"evaluated"` // when the last eval ran (RFC 3339)
	HitRate   float64   `json:"hit_rate"`
	Queries   int       `json:"queries"`
	Trend     []float64 `json:"trend"` // hit rates of the stored runs, oldest first
}

type statusSearchIndex struct {
	Built bool   `json:"built"`
	Stale string `json:"stale,omitempty"` // why it is out of step with the pages, when it is
}

type statusSnapshots struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
}

// runStatus prints a one-screen dashboard of the wiki. It reads only: it
// writes no file and no audit line.
func runStatus(ctx context.Context, e env, args []string) error {
	fset := newFlags(e, "status", "status [--root DIR] [--json]")
	rootFlag := fset.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki); it must exist")
	asJSON := fset.Bool("json", false, "print the status as one JSON object")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("status takes no arguments (got %q); use --root DIR", fset.Arg(0))
	}
	dir, err := resolveRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	if err := noWiki(dir); err != nil {
		return err
	}
	st, err := wiki.Open(dir, wiki.WithLogger(newCommandLogger(e)), wiki.ViewOnly())
	if err != nil {
		return fmt.Errorf("open wiki at %s: %s", dir, cliMessage(err))
	}
	defer st.Close()
	s, err := collectStatus(ctx, st, dir)
	if err != nil {
		return fmt.Errorf("status: %s", cliMessage(err))
	}
	if *asJSON {
		b, _ := json.MarshalIndent(s, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	printStatus(e, s)
	return nil
}

func collectStatus(ctx context.Context, st *wiki.Store, dir string) (*wikiStatus, error) {
	p, err := st.LoadProject(ctx)
	if err != nil {
		return nil, err
	}
	a := app.New(st, app.Options{NoSearch: true})
	rep, err := lint.Run(ctx, st, a.Links, lint.Options{})
	if err != nil {
		return nil, err
	}
	s := &wikiStatus{
		Name: p.Name, Pages: p.Counts.Pages, Sources: p.Counts.Sources, PendingSources: p.Counts.PendingSources,
		StalePages: rep.Counts[string(lint.KindStalePage)], IndexStale: p.IndexStale,
		Lint: rep.Counts, LintSeverities: rep.Severities, RecentLog: p.RecentLog,
		Review: statusReview{Mode: a.Review.Mode()},
	}
	s.Git = gitStatus(ctx, st, a)
	if c, err := a.Review.Count(); err != nil {
		s.Review.Error = oneLineMsg(cliMessage(err))
	} else {
		s.Review.Counts = c
	}
	if s.Lint == nil {
		s.Lint = map[string]int{}
	}
	if s.RecentLog == nil {
		s.RecentLog = []string{}
	}
	if runs, err := eval.Runs(st); err == nil && len(runs) > 0 {
		last := runs[len(runs)-1]
		s.Eval = &statusEval{Evaluated: last.Time.UTC().Format("2006-01-02T15:04:05Z"), HitRate: last.HitRate, Queries: last.Queries}
		for _, r := range runs {
			s.Eval.Trend = append(s.Eval.Trend, r.HitRate)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(search.StateDir))); err == nil && len(ents) > 0 {
		s.SearchIndex.Built = true
	}
	for _, x := range p.Stale {
		if strings.Contains(x.Name, "search") {
			s.SearchIndex.Stale = x.Reason
		}
	}
	filepath.WalkDir(filepath.Join(dir, filepath.FromSlash(store.SnapshotDir)), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				s.Snapshots.Files++
				s.Snapshots.Bytes += fi.Size()
			}
		}
		return nil
	})
	return s, nil
}

// gitStatus is the git state, or why schema.md's mode is not in force.
func gitStatus(ctx context.Context, st *wiki.Store, a *app.App) git.Status {
	if a.Git != nil {
		return a.Git.Status(ctx)
	}
	return git.Status{Mode: st.Settings().Git, CommitError: a.GitError}
}

// gitLine is status's git line.
func gitLine(g git.Status) string {
	if g.Mode == wiki.GitOff {
		return "git: off (llmwiki init --git keeps the wiki in git)"
	}
	if g.Branch == "" && g.Head == "" && g.CommitError != "" {
		return fmt.Sprintf("git: %s, %s", g.Mode, g.CommitError)
	}
	line := fmt.Sprintf("git: %s on %s at %s", g.Mode, orNone(g.Branch, "a detached HEAD"), orNone(g.Head, "no commit yet"))
	if g.Uncommitted > 0 {
		line += fmt.Sprintf("; %s on disk not committed (%s): the next write commits %s", english.Count(g.Uncommitted, "write"), g.CommitError, english.Plural(g.Uncommitted, "it", "them"))
	}
	if g.Conflicts > 0 {
		line += fmt.Sprintf("; %s open (llmwiki lint)", english.Count(g.Conflicts, "sync conflict"))
	}
	if g.Remote != "" {
		line += "; remote " + g.Remote
		if g.Ahead > 0 {
			line += fmt.Sprintf(", %s not pushed (llmwiki sync --push)", english.Count(g.Ahead, "commit"))
		}
		if g.Behind > 0 {
			line += fmt.Sprintf(", %s to bring in (llmwiki sync)", english.Count(g.Behind, "commit"))
		}
		if g.Synced != nil {
			line += ", last synced " + g.Synced.UTC().Format(time.RFC3339)
		}
	}
	if g.SyncError != "" {
		line += "; sync: " + g.SyncError
	}
	return line
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func printStatus(e env, s *wikiStatus) {
	w := e.stdout
	fmt.Fprintf(w, "wiki %q: %s, %s (%d not yet folded into context.md)\n", s.Name, english.Count(s.Pages, "page"), english.Count(s.Sources, "source"), s.PendingSources)
	fmt.Fprintf(w, "stale pages: %d", s.StalePages)
	if s.IndexStale {
		fmt.Fprint(w, "; index.md is out of date (llmwiki index)")
	}
	fmt.Fprintln(w)
	var cats []string
	for k, v := range s.Lint {
		cats = append(cats, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(cats)
	fmt.Fprintf(w, "lint: %s, %s", english.Count(s.LintSeverities.Error, "error"), english.Count(s.LintSeverities.Warning, "warning"))
	if len(cats) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(cats, ", "))
	}
	fmt.Fprintln(w)
	if s.Eval == nil {
		fmt.Fprintln(w, "eval: never run (llmwiki eval)")
	} else {
		var tr []string
		for _, h := range s.Eval.Trend {
			tr = append(tr, fmt.Sprintf("%.0f%%", 100*h))
		}
		fmt.Fprintf(w, "eval: hit rate %.0f%% over %d queries at %s; trend %s\n", 100*s.Eval.HitRate, s.Eval.Queries, s.Eval.Evaluated, strings.Join(tr, " → "))
	}
	switch {
	case !s.SearchIndex.Built:
		fmt.Fprintln(w, "search index: not built (llmwiki serve or llmwiki search --wait builds it)")
	case s.SearchIndex.Stale != "":
		fmt.Fprintf(w, "search index: built, out of step: %s\n", s.SearchIndex.Stale)
	default:
		fmt.Fprintln(w, "search index: built")
	}
	fmt.Fprintf(w, "snapshots: %s, %s\n", english.Count(s.Snapshots.Files, "file"), english.Count(int(s.Snapshots.Bytes), "byte"))
	fmt.Fprintf(w, "review (mode %s): %s", s.Review.Mode, reviewSummary(s.Review.Counts))
	if s.Review.Error != "" {
		fmt.Fprintf(w, " (not counted: %s)", s.Review.Error)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, gitLine(s.Git))
	if len(s.RecentLog) > 0 {
		fmt.Fprintln(w, "recent log:")
		for _, l := range s.RecentLog {
			fmt.Fprintf(w, "  %s\n", strings.TrimPrefix(l, "## "))
		}
	}
}
