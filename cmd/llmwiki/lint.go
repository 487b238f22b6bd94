package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// lintMemoryLimit is the soft memory limit of llmwiki lint, in bytes.
const lintMemoryLimit = 300 << 20

// lintBytesPerPage is the soft memory limit per page when that is more
// than lintMemoryLimit: at 144k pages about 1.9 times the live heap's peak
// during the checks (the detached link view, the catalogue, the findings
// of a wiki without frontmatter, the near-duplicate check's lists); a
// lower limit makes the collector run without end (docs/performance.md,
// "Lint at scale (issue 20)").
const lintBytesPerPage = 5 << 10

// lintFlags are the flags of llmwiki lint. New flags (--deep) go here and in
// register; run reads them after parsing.
type lintFlags struct {
	root       string
	json       bool
	categories string
	path       string
	all        bool
	limit      int
	list       bool
	dismiss    string
	reason     string
	undismiss  string
	// deep asks the model for contradictions and stale claims (lint --deep);
	// budget bounds the page text it is shown; model is the endpoint.
	deep   bool
	budget int
	model  *modelFlags
	// listed gives the listing of pages/ taken for the memory limit,
	// handed to lint.Run (not a flag).
	listed func() *lint.Listed
}

func (f *lintFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.root, "root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.StringVar(&f.categories, "category", "", "only these categories, comma-separated (default: every category schema.md does not turn off)")
	fs.StringVar(&f.path, "path", "", "only findings about files whose path starts with this (pages/guides/)")
	fs.BoolVar(&f.all, "all", false, "also show dismissed findings")
	fs.IntVar(&f.limit, "limit", 0, "print at most this many findings (0: all); the totals count every finding")
	fs.BoolVar(&f.list, "list", false, fmt.Sprintf("print every finding even when there are more than %d (otherwise a summary: counts, the worst pages, an example of each category)", summaryOver))
	fs.StringVar(&f.dismiss, "dismiss", "", "dismiss these finding ids (comma-separated): not reported again until their evidence changes")
	fs.StringVar(&f.reason, "reason", "", "why the findings in --dismiss are dismissed")
	fs.StringVar(&f.undismiss, "undismiss", "", "report these dismissed finding ids again (comma-separated)")
	fs.BoolVar(&f.deep, "deep", false, "also ask the model for contradictions and stale claims; only those whose quotes are found in the files are kept")
	fs.IntVar(&f.budget, "budget", plan.DefaultLintBudget, "--deep: most characters of page text shown to the model")
	f.model = addModelFlags(fs)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runLint checks the wiki and prints the findings. It exits with status 1
// when a reported finding has severity error, so a CI job can run it.
func runLint(ctx context.Context, e env, args []string) error {
	var f lintFlags
	fs := newFlags(e, "lint", "lint [--root DIR] [--json] [--category a,b] [--path PREFIX] [--all] [--list] [--limit N] [--dismiss IDS [--reason TEXT]] [--undismiss IDS] [--deep [model flags]]")
	f.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: llmwiki lint [flags]\n\nChecks the wiki and lists findings; exits 1 when one has severity error.\nCategories: %s\n\nFlags:\n", strings.Join(lint.Categories(), ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("lint takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	dir, err := resolveRoot(e, f.root)
	if err != nil {
		return err
	}
	if err := noWiki(dir); err != nil {
		return err
	}
	st, err := wiki.Open(dir, wiki.WithLogger(newLogger(e)))
	if err != nil {
		return fmt.Errorf("open wiki at %s: %s", dir, cliMessage(err))
	}
	defer st.Close()
	if e.getenv("GOMEMLIMIT") == "" {
		// Linting a big wiki makes much short-lived garbage; a soft limit
		// makes the collector keep the process small at a little more CPU
		// (docs/performance.md, "Lint at scale"). The limit grows with the
		// wiki: lint holds every page's links and findings at once, and a
		// limit under that live heap makes the collector run without end.
		// GOMEMLIMIT overrides it. The pages are counted alongside the
		// link walk (whose heap is small at first): a listing of 144k pages
		// takes a core for a second or two.
		prev := debug.SetMemoryLimit(lintMemoryLimit)
		var listed *lint.Listed
		done := make(chan struct{})
		go func() {
			defer close(done)
			if n, counts, examples, err := st.PagesListed(ctx); err == nil {
				debug.SetMemoryLimit(max(int64(lintMemoryLimit), int64(n)*lintBytesPerPage))
				listed = &lint.Listed{Counts: counts, Examples: examples}
			}
		}()
		f.listed = func() *lint.Listed { <-done; return listed }
		defer func() {
			<-done
			debug.SetMemoryLimit(prev)
		}()
	}
	graph := app.New(st, app.Options{NoSearch: true}).Links
	call := store.NewCall("cli:lint", st.SessionID(), map[string]any{"args": args})
	ctx = store.WithCall(ctx, call)
	rep, err := lintRun(ctx, e, st, graph, &f)
	var deep *deepResult
	var deepErr error
	if err == nil && f.deep {
		var mc *model.Client
		if mc, deepErr = f.model.client(e); deepErr == nil {
			deep, deepErr = deepLint(ctx, st, mc, f.budget)
		}
	}
	// What lint read is not needed for printing: the graph's memory goes
	// back before the report is written (a 144k-page wiki's links are
	// hundreds of megabytes).
	graph.Close()
	auditErr := err
	if auditErr == nil {
		auditErr = deepErr
	}
	if aerr := st.Audit(call, auditErr); aerr != nil {
		fmt.Fprintf(e.stderr, "llmwiki lint: audit line not written: %s\n", cliMessage(aerr))
	}
	if err != nil {
		return fmt.Errorf("lint: %s", cliMessage(err))
	}
	if f.json {
		var extra any
		if deep != nil {
			extra = deep
		}
		if err := writeReportJSON(e.stdout, rep, "deep", extra); err != nil {
			return err
		}
	} else {
		if len(rep.Findings) > summaryOver && !f.list && f.limit == 0 {
			printSummary(e, rep, f.path)
		} else {
			printReport(e, rep, f.limit, f.path)
		}
		if deep != nil {
			printDeep(e.stdout, deep)
		}
	}
	if deepErr != nil {
		return fmt.Errorf("lint --deep: %s", cliMessage(deepErr))
	}
	if rep.Severities.Error > 0 {
		return exitCode(1)
	}
	if deep != nil {
		for _, x := range deep.Findings {
			if x.Severity == lint.Error {
				return exitCode(1)
			}
		}
	}
	return nil
}

func lintRun(ctx context.Context, e env, st *wiki.Store, graph *links.Graph, f *lintFlags) (*lint.Report, error) {
	if ids := splitList(f.dismiss); len(ids) > 0 {
		fs, err := lint.Dismiss(ctx, st, graph, ids, f.reason, "cli")
		if err != nil {
			return nil, err
		}
		for _, x := range fs {
			fmt.Fprintf(e.stderr, "dismissed %s (%s %s)\n", x.ID, x.Kind, x.Path)
		}
	}
	if ids := splitList(f.undismiss); len(ids) > 0 {
		n, err := lint.Undismiss(ctx, st, ids)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(e.stderr, "%d dismissal(s) removed\n", n)
	}
	// The graph is lint's own: Run detaches its view and closes it.
	return lint.Run(ctx, st, graph, lint.Options{Categories: splitList(f.categories), Prefix: f.path, IncludeDismissed: f.all, OneShot: true, Listed: f.listed})
}

// writeReportJSON writes the report as one JSON object, the findings one
// per line, without building the whole document in memory (a 44k-page
// wiki has well over 100k findings). extra, when not nil, is added under
// key (lint --deep's result under "deep").
func writeReportJSON(out io.Writer, rep *lint.Report, key string, extra any) error {
	w := bufio.NewWriterSize(out, 1<<16)
	head, err := json.Marshal(rep.Summary)
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1])
	if extra != nil {
		b, err := json.Marshal(extra)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, ",\n%q: %s", key, b)
	}
	w.WriteString(",\n\"findings\": [")
	for i := range rep.Findings {
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n  ")
		b, err := json.Marshal(&rep.Findings[i])
		if err != nil {
			return err
		}
		w.Write(b)
	}
	w.WriteString("\n]}\n")
	return w.Flush()
}

// printReport writes one line per finding, then the totals. Lint always
// checks every page (links need them all); prefix, from --path, only filters
// the findings, and the totals line says so.
func printReport(e env, rep *lint.Report, limit int, prefix string) {
	w := bufio.NewWriterSize(e.stdout, 1<<16)
	defer w.Flush()
	n := 0
	for _, x := range rep.Findings {
		if limit > 0 && n >= limit {
			break
		}
		n++
		where := x.Path
		if x.Line > 0 {
			where = fmt.Sprintf("%s:%d", x.Path, x.Line)
		}
		tag := ""
		switch {
		case x.Dismissed:
			tag = " [dismissed]"
		case !x.Verified:
			tag = " [UNVERIFIED: " + x.Note + "]"
		}
		fmt.Fprintf(w, "%-7s %-20s %s  %s%s  [%s]\n", x.Severity, x.Kind, where, oneLineMsg(x.Message), tag, x.ID)
		fmt.Fprintf(w, "        fix: %s\n", oneLineMsg(cliAdvice(x.Action)))
		for _, ev := range x.Evidence {
			mark := "verified"
			if !ev.Verified {
				mark = "NOT FOUND: " + ev.Reason
			}
			loc := ev.Path
			if ev.Line > 0 {
				loc = fmt.Sprintf("%s:%d", ev.Path, ev.Line)
			}
			fmt.Fprintf(w, "        quote %s %q (%s)\n", loc, ev.Quote, mark)
		}
	}
	if n < len(rep.Findings) {
		fmt.Fprintf(w, "... %d more (--limit %d); --json prints them all\n", len(rep.Findings)-n, limit)
	}
	printTotals(w, rep, prefix)
}

// summaryOver is the most findings llmwiki lint lists one by one by
// default; above it (a big wiki without frontmatter has a million) it
// prints a summary a person can act on, and --list or --limit the findings.
const summaryOver = 200

// worstShown is how many pages the summary names as the worst.
const worstShown = 10

// printSummary writes, instead of every finding, the findings by category
// and severity, the pages with the most findings (errors first), the first
// finding of each category as an example, how to see the rest, then the
// totals.
func printSummary(e env, rep *lint.Report, prefix string) {
	w := bufio.NewWriterSize(e.stdout, 1<<16)
	defer w.Flush()
	type tally struct{ err, warn, info int }
	type cat struct {
		kind, severity string
		n              int
		first          *lint.Finding
	}
	byKind := map[string]*cat{}
	byPage := map[string]*tally{}
	for i := range rep.Findings {
		x := &rep.Findings[i]
		if x.Dismissed {
			continue
		}
		c := byKind[x.Kind]
		if c == nil {
			c = &cat{kind: x.Kind, severity: x.Severity, first: x}
			byKind[x.Kind] = c
		}
		c.n++
		t := byPage[x.Path]
		if t == nil {
			t = &tally{}
			byPage[x.Path] = t
		}
		switch x.Severity {
		case lint.Error:
			t.err++
		case lint.Warning:
			t.warn++
		default:
			t.info++
		}
	}
	rank := map[string]int{lint.Error: 0, lint.Warning: 1, lint.Info: 2}
	cats := make([]*cat, 0, len(byKind))
	for _, c := range byKind {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		a, b := cats[i], cats[j]
		if rank[a.severity] != rank[b.severity] {
			return rank[a.severity] < rank[b.severity]
		}
		if a.n != b.n {
			return a.n > b.n
		}
		return a.kind < b.kind
	})
	fmt.Fprintf(w, "%d findings, too many to list (--list prints them all, --limit N the first N, --json everything); by category:\n", len(rep.Findings))
	for _, c := range cats {
		fmt.Fprintf(w, "  %-7s %-20s %7d\n", c.severity, c.kind, c.n)
	}
	paths := make([]string, 0, len(byPage))
	for p := range byPage {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		a, b := byPage[paths[i]], byPage[paths[j]]
		if a.err != b.err {
			return a.err > b.err
		}
		if a.warn != b.warn {
			return a.warn > b.warn
		}
		if a.info != b.info {
			return a.info > b.info
		}
		return paths[i] < paths[j]
	})
	if len(paths) > 0 {
		fmt.Fprintf(w, "\nworst %s of %d with findings (most errors, then warnings):\n", english.Count(min(worstShown, len(paths)), "page"), len(paths))
		for _, p := range paths[:min(worstShown, len(paths))] {
			t := byPage[p]
			fmt.Fprintf(w, "  %s: %s, %s, %d info\n", p, english.Count(t.err, "error"), english.Count(t.warn, "warning"), t.info)
		}
		fmt.Fprintf(w, "  (--path PREFIX lists one page's or folder's findings)\n")
	}
	fmt.Fprintf(w, "\none example of each category (--category KIND lists them):\n")
	for _, c := range cats {
		x := c.first
		where := x.Path
		if x.Line > 0 {
			where = fmt.Sprintf("%s:%d", x.Path, x.Line)
		}
		fmt.Fprintf(w, "  %-20s %s  %s  [%s]\n", x.Kind, where, oneLineMsg(x.Message), x.ID)
		fmt.Fprintf(w, "  %-20s fix: %s\n", "", oneLineMsg(cliAdvice(x.Action)))
	}
	printTotals(w, rep, prefix)
}

// printTotals writes the totals lines of a report.
func printTotals(w io.Writer, rep *lint.Report, prefix string) {
	var cats []string
	for k, v := range rep.Counts {
		cats = append(cats, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(cats)
	fmt.Fprintf(w, "\n%s checked", english.Count(rep.Pages, "page"))
	if prefix != "" {
		fmt.Fprintf(w, ", findings under %s shown", prefix)
	}
	fmt.Fprintf(w, ": %s, %s, %d info", english.Count(rep.Severities.Error, "error"), english.Count(rep.Severities.Warning, "warning"), rep.Severities.Info)
	if rep.Dismissed > 0 {
		fmt.Fprintf(w, ", %d dismissed", rep.Dismissed)
	}
	if rep.Unverified > 0 {
		fmt.Fprintf(w, ", %d unverified", rep.Unverified)
	}
	fmt.Fprintln(w)
	if len(cats) > 0 {
		fmt.Fprintf(w, "by category: %s\n", strings.Join(cats, ", "))
	}
	if len(rep.Disabled) > 0 {
		fmt.Fprintf(w, "turned off in schema.md: %s\n", strings.Join(rep.Disabled, ", "))
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "schema.md: %s\n", p)
	}
}
