package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"golang.org/x/term"
)

// reviewClient is the client name the command line's review decisions are
// audited under.
const reviewClient = "llmwiki cli"

const reviewSynopsis = "review [--root DIR] [--json] [--diff] [--limit N --cursor C]\n" +
	"       review show N\n" +
	"       review approve N [--only 1,3]\n" +
	"       review decline N\n" +
	"       review accept ID... | review accept --all\n" +
	"       review revert ID\n" +
	"       review keep CONFLICT | review take CONFLICT"

// runReview is how a person reviews what agents wrote from a terminal:
// open sync conflicts (keep the file, take their own version), pending
// change sets and model plans (approve, decline) and the writes of mode
// after (accept, revert). Listing reads only; each decision is one
// audited call (tool "cli:review", reviewer cli). Exit status 1 when a
// decision or one of its actions failed, 2 for a usage error.
func runReview(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "review", reviewSynopsis)
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	withDiff := fs.Bool("diff", false, "list: show each change's diff (show always does)")
	only := fs.String("only", "", "approve: only these actions (\"1,3\", \"2-4\"; default every action)")
	all := fs.Bool("all", false, "accept: every unreviewed write")
	limit := fs.Int("limit", 50, "list: at most this many unreviewed writes")
	cursor := fs.String("cursor", "", "list: continue after the previous list's next_cursor")
	rest, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	sub := "list"
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	if err := checkReviewArgs(sub, rest, *only, *all, *limit); err != nil {
		return err
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	r := reviewCmd{e: e, svc: app.New(st, app.Options{NoSearch: true}).Review, json: *asJSON, colour: colourOn(e), now: st.Now()}
	session := st.SessionID()
	decide := func(args map[string]any, fn func(ctx context.Context) error) error {
		call := store.NewCall("cli:review", session, args)
		call.Client = reviewClient
		err := fn(store.WithCall(ctx, call))
		if aerr := st.Audit(call, err); aerr != nil {
			fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
		}
		return r.failed(err)
	}
	switch sub {
	case "list":
		return r.failed(r.list(ctx, *withDiff, *limit, *cursor))
	case "show":
		return r.failed(r.show(ctx, rest[0]))
	case "approve":
		return decide(map[string]any{"subcommand": sub, "ref": rest[0], "only": *only}, func(ctx context.Context) error {
			return r.approve(ctx, rest[0], *only)
		})
	case "decline":
		return decide(map[string]any{"subcommand": sub, "ref": rest[0]}, func(ctx context.Context) error {
			return r.decline(ctx, rest[0])
		})
	case "accept":
		return decide(map[string]any{"subcommand": sub, "ids": rest, "all": *all}, func(ctx context.Context) error {
			return r.accept(ctx, rest, *all)
		})
	case "revert":
		return decide(map[string]any{"subcommand": sub, "id": rest[0]}, func(ctx context.Context) error {
			return r.revert(ctx, rest[0])
		})
	case "keep", "take":
		return decide(map[string]any{"subcommand": sub, "conflict": rest[0]}, func(ctx context.Context) error {
			return r.settle(ctx, rest[0], sub)
		})
	}
	return fmt.Errorf("unknown review subcommand %q; use list, show N, approve N, decline N, accept ID, revert ID, keep CONFLICT or take CONFLICT", sub)
}

var (
	writeIDPattern    = regexp.MustCompile(`^a-[0-9a-f]{12}$`)
	conflictIDPattern = regexp.MustCompile(`^c-[0-9a-f]{12}$`)
)

// checkReviewArgs refuses a malformed command line before the wiki is
// opened (exit status 2).
func checkReviewArgs(sub string, rest []string, only string, all bool, limit int) error {
	one := func(what string) error {
		if len(rest) != 1 {
			return fmt.Errorf("review %s takes one %s (got %d); llmwiki review lists them", sub, what, len(rest))
		}
		return nil
	}
	if only != "" && sub != "approve" {
		return fmt.Errorf("--only is for review approve N")
	}
	if all && sub != "accept" {
		return fmt.Errorf("--all is for review accept")
	}
	switch sub {
	case "list":
		if len(rest) > 0 {
			return fmt.Errorf("review lists with no arguments (got %q); use review show N for one change set", rest[0])
		}
		if limit < 1 {
			return fmt.Errorf("--limit must be at least 1 (got %d)", limit)
		}
	case "show", "approve", "decline":
		if err := one("change set number"); err != nil {
			return err
		}
		if sub == "show" && conflictIDPattern.MatchString(rest[0]) {
			return nil
		}
		if !validPlanRef(rest[0]) {
			return fmt.Errorf("%q is not a change set number: give the number llmwiki review lists (3 or #3) or a plan id (p-YYYYMMDD-HHMMSS-xxxxxx)", rest[0])
		}
	case "accept":
		if all && len(rest) > 0 {
			return fmt.Errorf("review accept takes write ids or --all, not both")
		}
		if !all && len(rest) == 0 {
			return fmt.Errorf("review accept takes the ids of writes (a-xxxxxxxxxxxx, as llmwiki review lists them) or --all")
		}
		for _, id := range rest {
			if !writeIDPattern.MatchString(id) {
				return fmt.Errorf("%q is not a write id: give the id llmwiki review lists (a- and 12 hex digits)", id)
			}
		}
	case "revert":
		if err := one("write id"); err != nil {
			return err
		}
		if !writeIDPattern.MatchString(rest[0]) {
			return fmt.Errorf("%q is not a write id: give the id llmwiki review lists (a- and 12 hex digits)", rest[0])
		}
	case "keep", "take":
		if err := one("sync conflict id"); err != nil {
			return err
		}
		if !conflictIDPattern.MatchString(rest[0]) {
			return fmt.Errorf("%q is not a sync conflict id: give the id llmwiki review lists (c- and 12 hex digits)", rest[0])
		}
	}
	return nil
}

// validPlanRef reports whether s names a change set or plan: a number
// (3, #3) or a plan id.
func validPlanRef(s string) bool {
	if plan.ValidID(s) {
		return true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(s, "#"))
	return err == nil && n >= 1 && !strings.HasPrefix(strings.TrimPrefix(s, "#"), "+")
}

// reviewCmd holds what one review command prints with.
type reviewCmd struct {
	e      env
	svc    *review.Service
	json   bool
	colour bool
	now    time.Time
}

// failed turns an error into the command's exit: an exitCode as it is
// (already reported), any other error one line on stderr and exit status 1.
func (r reviewCmd) failed(err error) error {
	if err == nil {
		return nil
	}
	var code exitCode
	if errors.As(err, &code) {
		return err
	}
	fmt.Fprintln(r.e.stderr, "llmwiki:", oneLineMsg(cliMessage(err)))
	return exitCode(1)
}

func (r reviewCmd) printJSON(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(r.e.stdout, string(b))
}

// reviewList is review --json: what awaits a person.
type reviewList struct {
	Mode string `json:"mode"`
	// SyncConflicts are the open sync conflicts, oldest first (never
	// paged: each is a file a person must settle).
	SyncConflicts []reviewConflict `json:"sync_conflicts"`
	// Pending are the change sets and model plans awaiting approval,
	// newest first (never paged: they expire).
	Pending []reviewSet `json:"pending"`
	// Unreviewed are the writes of mode after awaiting accept or revert,
	// newest first, paged by limit and cursor.
	Unreviewed reviewWrites `json:"unreviewed"`
}

type reviewWrites struct {
	Writes     []reviewWrite `json:"writes"`
	Total      int           `json:"total"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// reviewSet is a pending change set or plan with, when asked, the diff of
// each action.
type reviewSet struct {
	*plan.Plan
	Diffs []actionDiffs `json:"diffs,omitempty"`
}

type actionDiffs struct {
	N     int               `json:"n"`
	Files []review.FileDiff `json:"files"`
	Error string            `json:"error,omitempty"`
}

// reviewConflict is an open sync conflict with, when asked, its diff from
// the local version to the file now.
type reviewConflict struct {
	wiki.SyncConflict
	FindingID string           `json:"finding_id"`
	Diff      *review.FileDiff `json:"diff,omitempty"`
}

type reviewWrite struct {
	review.Write
	Diffs []review.FileDiff `json:"diffs,omitempty"`
	Error string            `json:"error,omitempty"`
}

func (r reviewCmd) list(ctx context.Context, withDiff bool, limit int, cursor string) error {
	pending, err := r.svc.Pending()
	if err != nil {
		return err
	}
	ws, next, total, err := r.svc.Queue(limit, cursor)
	if err != nil {
		return err
	}
	conflicts, err := r.svc.SyncConflicts()
	if err != nil {
		return err
	}
	out := reviewList{Mode: r.svc.Mode(), SyncConflicts: []reviewConflict{}, Pending: []reviewSet{}, Unreviewed: reviewWrites{Writes: []reviewWrite{}, Total: total, NextCursor: next}}
	for _, c := range conflicts {
		out.SyncConflicts = append(out.SyncConflicts, conflictOf(c, withDiff))
	}
	for _, p := range pending {
		out.Pending = append(out.Pending, r.set(ctx, p, withDiff))
	}
	for _, w := range ws {
		out.Unreviewed.Writes = append(out.Unreviewed.Writes, r.write(w, withDiff))
	}
	if r.json {
		r.printJSON(out)
		return nil
	}
	w := r.e.stdout
	fmt.Fprintf(w, "review mode: %s\n", out.Mode)
	if len(out.SyncConflicts) == 0 && len(out.Pending) == 0 && total == 0 {
		fmt.Fprintln(w, "Nothing awaits review.")
		return nil
	}
	if len(out.SyncConflicts) > 0 {
		fmt.Fprintf(w, "\n%s to settle (each file holds the remote version; yours is a snapshot):\n", english.Count(len(out.SyncConflicts), "sync conflict"))
		for _, c := range out.SyncConflicts {
			r.printConflict(c)
		}
		fmt.Fprintln(w, "\nMerge by editing the file, or keep it as it is with llmwiki review keep ID, or take your version with llmwiki review take ID.")
	}
	if len(out.Pending) > 0 {
		fmt.Fprintf(w, "\n%d %s awaiting approval:\n", len(out.Pending), english.Plural(len(out.Pending), "change set or plan", "change sets and plans"))
		for _, s := range out.Pending {
			fmt.Fprintln(w)
			r.printSet(s, withDiff)
		}
		fmt.Fprintln(w, "\nApprove with llmwiki review approve N [--only 1,3], decline with llmwiki review decline N.")
	}
	if total > 0 {
		fmt.Fprintf(w, "\n%s to accept or revert:\n", english.Count(total, "unreviewed write"))
		for _, x := range out.Unreviewed.Writes {
			r.printWrite(x, withDiff)
		}
		if next != "" {
			fmt.Fprintf(w, "  ... more: llmwiki review --cursor %s\n", next)
		}
		fmt.Fprintln(w, "\nAccept with llmwiki review accept ID... (or --all), revert with llmwiki review revert ID.")
	}
	return nil
}

// set is p with its diffs when asked (change sets only: a model plan's
// actions show their markdown instead).
func (r reviewCmd) set(ctx context.Context, p *plan.Plan, withDiff bool) reviewSet {
	s := reviewSet{Plan: p}
	if !withDiff || p.Op != plan.OpChangeSet {
		return s
	}
	for i := range p.Actions {
		d := actionDiffs{N: i + 1, Files: []review.FileDiff{}}
		fds, err := r.svc.Diffs(ctx, p, i+1)
		if err != nil {
			d.Error = oneLineMsg(cliMessage(err))
		} else if fds != nil {
			d.Files = fds
		}
		s.Diffs = append(s.Diffs, d)
	}
	return s
}

func (r reviewCmd) write(w review.Write, withDiff bool) reviewWrite {
	x := reviewWrite{Write: w}
	if withDiff {
		fds, err := r.svc.WriteDiffs(w.ID)
		if err != nil {
			x.Error = oneLineMsg(cliMessage(err))
		}
		x.Diffs = fds
	}
	return x
}

// setRef is how a person names p on the command line.
func setRef(p *plan.Plan) string {
	if p.Number > 0 {
		return strconv.Itoa(p.Number)
	}
	return p.ID
}

func (r reviewCmd) printSet(s reviewSet, withDiff bool) {
	p := s.Plan
	if p.Op != plan.OpChangeSet {
		fmt.Fprintf(r.e.stdout, "#%s ", setRef(p))
		printPlan(r.e, p, r.now, withDiff)
		return
	}
	w := r.e.stdout
	by := p.Client
	if by == "" {
		by = "an agent"
	}
	fmt.Fprintf(w, "Change set #%s by %s (session %s), proposed %s UTC, %s\n", setRef(p), by, p.Session, p.Created.UTC().Format("2006-01-02 15:04"), p.StatusLine(r.now))
	if len(p.Takeaways) > 0 {
		fmt.Fprintln(w, "Takeaways:")
		for _, t := range p.Takeaways {
			fmt.Fprintf(w, "  - %s\n", t)
		}
	}
	fmt.Fprintln(w, "Actions:")
	for i, a := range p.Actions {
		var files []string
		for _, f := range a.Files {
			files = append(files, fmt.Sprintf("%s %s +%d -%d", f.Change, f.Path, f.Added, f.Removed))
		}
		line := fmt.Sprintf("  [%d] %s", i+1, a.Tool)
		if len(files) > 0 {
			line += ": " + strings.Join(files, ", ")
		}
		if a.Why != "" {
			line += " — " + a.Why
		}
		fmt.Fprintln(w, line)
		if i < len(s.Diffs) {
			if s.Diffs[i].Error != "" {
				fmt.Fprintf(w, "      (no diff: %s)\n", s.Diffs[i].Error)
			}
			for _, fd := range s.Diffs[i].Files {
				r.printDiff(fd)
			}
		}
	}
}

func (r reviewCmd) printWrite(x reviewWrite, withDiff bool) {
	w := r.e.stdout
	var files []string
	for _, f := range x.Files {
		files = append(files, f.Path)
	}
	client := x.Client
	if client == "" {
		client = "session " + x.Session
	}
	fmt.Fprintf(w, "  %s  %s  %s  %s  %s\n", x.ID, x.Time.UTC().Format("2006-01-02 15:04:05"), client, x.Tool, strings.Join(files, ", "))
	if !withDiff {
		return
	}
	if x.Error != "" {
		fmt.Fprintf(w, "      (no diff: %s)\n", x.Error)
	}
	for _, fd := range x.Diffs {
		r.printDiff(fd)
	}
}

// printDiff prints one file's unified diff, coloured on a terminal.
func (r reviewCmd) printDiff(fd review.FileDiff) {
	w := r.e.stdout
	fmt.Fprintf(w, "    %s %s (+%d -%d)\n", fd.Change, fd.Path, fd.Added, fd.Removed)
	if fd.Diff == "" {
		fmt.Fprintln(w, "      (not text)")
		return
	}
	writeDiff(w, fd.Diff, r.colour, "      ")
}

// reviewSummary says what awaits a person, for status.
func reviewSummary(c review.Counts) string {
	if c.Pending == 0 && c.Unreviewed == 0 {
		return "nothing awaits review"
	}
	return fmt.Sprintf("%d %s awaiting approval, %s to accept or revert (llmwiki review)",
		c.Pending, english.Plural(c.Pending, "change set", "change sets"), english.Count(c.Unreviewed, "unreviewed write"))
}

// ANSI colours of a diff on a terminal.
const (
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

// writeDiff prints a unified diff indented, removed lines red and added
// green when colour is on.
func writeDiff(w io.Writer, diff string, colour bool, indent string) {
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		c := ""
		if colour {
			switch {
			case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			case strings.HasPrefix(l, "+"):
				c = ansiGreen
			case strings.HasPrefix(l, "-"):
				c = ansiRed
			case strings.HasPrefix(l, "@@"):
				c = ansiCyan
			}
		}
		if c != "" {
			fmt.Fprintf(w, "%s%s%s%s\n", indent, c, l, ansiReset)
		} else {
			fmt.Fprintf(w, "%s%s\n", indent, l)
		}
	}
}

// colourOn reports whether diffs are coloured: stdout is a terminal and
// NO_COLOR (https://no-color.org) is unset or empty.
func colourOn(e env) bool {
	if e.getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := e.stdout.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (r reviewCmd) show(ctx context.Context, ref string) error {
	if conflictIDPattern.MatchString(ref) {
		return r.showConflict(ref)
	}
	p, err := r.svc.Get(ref)
	if err != nil {
		return err
	}
	s := r.set(ctx, p, true)
	if r.json {
		r.printJSON(s)
		return nil
	}
	r.printSet(s, true)
	if len(p.Results) > 0 {
		fmt.Fprintln(r.e.stdout)
		printResults(r.e, p)
	}
	return nil
}

// reviewApproval is review approve --json.
type reviewApproval struct {
	*plan.Plan
	// Failed counts the selected actions that did not apply.
	Failed int `json:"failed"`
}

func (r reviewCmd) approve(ctx context.Context, ref, only string) error {
	var selected []int
	if only != "" {
		p, err := r.svc.Get(ref)
		if err != nil {
			return err
		}
		selected, err = plan.ParseSelection(only, len(p.Actions))
		if err != nil {
			return fmt.Errorf("--only: %s", store.PublicMessage(err))
		}
		if len(selected) == 0 {
			return fmt.Errorf("--only selects no action; to apply nothing, llmwiki review decline %s", ref)
		}
	}
	out, err := r.svc.Approve(ctx, ref, selected, review.ByCLI)
	if err != nil && (out == nil || out.Plan == nil) {
		return err
	}
	p := out.Plan
	failed := 0
	for _, res := range p.Results {
		if res.Status == "failed" {
			failed++
		}
	}
	if r.json {
		r.printJSON(reviewApproval{Plan: p, Failed: failed})
	} else if len(p.Results) > 0 {
		printResults(r.e, p)
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of the %d selected actions of %s did not apply (see each one's reason above)", failed, len(p.Selected), p.Name())
	}
	return nil
}

func (r reviewCmd) decline(ctx context.Context, ref string) error {
	p, err := r.svc.Decline(ctx, ref, review.ByCLI)
	if err != nil {
		return err
	}
	if r.json {
		r.printJSON(p)
		return nil
	}
	fmt.Fprintf(r.e.stdout, "Declined %s; nothing written.\n", p.Name())
	return nil
}

// reviewAccepted is review accept --json.
type reviewAccepted struct {
	Accepted int      `json:"accepted"`
	IDs      []string `json:"ids,omitempty"`
}

func (r reviewCmd) accept(ctx context.Context, ids []string, all bool) error {
	out := reviewAccepted{IDs: ids}
	if all {
		n, err := r.svc.AcceptAll(ctx, review.ByCLI, "")
		if err != nil {
			return err
		}
		out.Accepted = n
	} else {
		if err := r.svc.Accept(ctx, ids, review.ByCLI); err != nil {
			return err
		}
		out.Accepted = len(ids)
	}
	if r.json {
		r.printJSON(out)
		return nil
	}
	fmt.Fprintf(r.e.stdout, "Accepted %s.\n", english.Count(out.Accepted, "write"))
	return nil
}

func (r reviewCmd) revert(ctx context.Context, id string) error {
	res, err := r.svc.Revert(ctx, id, review.ByCLI)
	if err != nil {
		return err
	}
	if r.json {
		r.printJSON(res)
		return nil
	}
	fmt.Fprintf(r.e.stdout, "Reverted %s: restored %s.\n", res.ID, strings.Join(res.Files, ", "))
	return nil
}

// conflictOf is c as review lists it, with its diff when asked.
func conflictOf(c review.SyncConflict, withDiff bool) reviewConflict {
	x := reviewConflict{SyncConflict: c.SyncConflict, FindingID: c.FindingID}
	if withDiff {
		d := c.Diff
		x.Diff = &d
	}
	return x
}

func (r reviewCmd) printConflict(c reviewConflict) {
	w := r.e.stdout
	fmt.Fprintf(w, "  %s  %s  found %s UTC  the file: remote commit %s  yours: local commit %s",
		c.ID, c.Path, c.Found.UTC().Format("2006-01-02 15:04"), orUnknownCommit(c.Remote), orUnknownCommit(c.Local))
	if c.Snapshot != "" {
		fmt.Fprintf(w, ", %s", c.Snapshot)
	} else {
		fmt.Fprint(w, ", which deleted it")
	}
	fmt.Fprintln(w)
	if c.Summary != "" {
		fmt.Fprintf(w, "      %s\n", oneLineMsg(c.Summary))
	}
	if c.Diff != nil {
		if strings.HasPrefix(c.Diff.Diff, "(") {
			fmt.Fprintf(w, "      %s\n", c.Diff.Diff)
			return
		}
		fmt.Fprintln(w, "      diff from your version to the file now:")
		r.printDiff(*c.Diff)
	}
}

func orUnknownCommit(h string) string {
	if h == "" {
		return "unknown"
	}
	return lint.ShortCommit(h)
}

// showConflict prints one open sync conflict with its diff.
func (r reviewCmd) showConflict(id string) error {
	cs, err := r.svc.SyncConflicts()
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.ID != id {
			continue
		}
		x := conflictOf(c, true)
		if r.json {
			r.printJSON(x)
			return nil
		}
		r.printConflict(x)
		fmt.Fprintf(r.e.stdout, "\nKeep the file with llmwiki review keep %s, or take your version with llmwiki review take %s.\n", id, id)
		return nil
	}
	return fmt.Errorf("no open sync conflict has the id %s; llmwiki review lists the open ones", id)
}

// settle keeps the file of sync conflict id as it is, or takes the local
// version back (how: keep or take).
func (r reviewCmd) settle(ctx context.Context, id, how string) error {
	res, err := r.svc.SettleSyncConflict(ctx, id, how, review.ByCLI)
	if err != nil {
		return err
	}
	if r.json {
		r.printJSON(res)
		return nil
	}
	switch {
	case how == review.SettleKeep:
		fmt.Fprintf(r.e.stdout, "Kept %s as the sync left it; your version stays in its snapshot (sync conflict %s settled).\n", res.Path, res.ID)
	case res.Deleted:
		fmt.Fprintf(r.e.stdout, "Deleted %s, as your side had it (sync conflict %s settled).\n", res.Path, res.ID)
	default:
		fmt.Fprintf(r.e.stdout, "Restored your version of %s; the remote version is kept as a snapshot (sync conflict %s settled).\n", res.Path, res.ID)
	}
	return nil
}
