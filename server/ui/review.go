package ui

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// reviewRoutes registers the Review page and its POSTs (see the package doc).
func (a *app) reviewRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /review", a.reviewPage)
	mux.HandleFunc("POST /review/sets/{ref}/approve", a.approveSet)
	mux.HandleFunc("POST /review/sets/{ref}/decline", a.declineSet)
	mux.HandleFunc("POST /review/writes/accept-all", a.acceptAll)
	mux.HandleFunc("POST /review/writes/{id}/accept", a.acceptWrite)
	mux.HandleFunc("POST /review/writes/{id}/revert", a.revertWrite)
	mux.HandleFunc("POST /review/conflicts/{id}/keep", a.keepConflict)
	mux.HandleFunc("POST /review/conflicts/{id}/take", a.takeConflict)
}

// Client is the client name the web page's own audit lines carry.
const Client = "llmwiki ui"

// queuePage is how many queued writes one Review page shows.
const queuePage = 50

// maxDiffLines bounds the lines of one file's diff on the page; the rest
// is counted, not shown.
const maxDiffLines = 400

// reviewData is the Review page.
type reviewData struct {
	Mode      string
	Conflicts []conflictView // open sync conflicts
	Sets      []setView
	Writes    []writeView
	Total     int    // queued writes in all
	Newest    string // the newest queued write drawn: Accept all stops there
	Cursor    string // this page's cursor ("" for the first)
	Next      string // the next page's cursor, "" at the end
	Problem   string // why part of the page could not be read
}

// setView is one pending change set or model plan.
type setView struct {
	Plan      *plan.Plan
	Ref       string // the number, or the id when it has none
	ChangeSet bool
	Actions   []actionView
}

// actionView is one action of a pending set with its diffs.
type actionView struct {
	N     int
	Label string
	Why   string
	Files []fileView
	Body  string // a model plan's action: the markdown it writes
	Error string // why its diff could not be computed
}

// fileView is one file's change with its diff as classified lines.
type fileView struct {
	review.FileDiff
	Lines   []diffLine
	Omitted int // lines not shown (over maxDiffLines)
}

// diffLine is one line of a unified diff; Class is add, del, hunk, hdr or
// ctx (a CSS class).
type diffLine struct {
	Class string
	Text  string
}

// conflictView is one open sync conflict with its diff from the local
// version to the file now.
type conflictView struct {
	review.SyncConflict
	RemoteShort, LocalShort string
	Files                   []fileView // the one file, as the diff template takes it
}

// writeView is one queued write with its diffs.
type writeView struct {
	review.Write
	Files []fileView
	Error string
}

func (a *app) reviewPage(w http.ResponseWriter, r *http.Request) {
	rv := a.cfg.Review
	d := reviewData{Mode: rv.Mode(), Cursor: r.URL.Query().Get("cursor")}
	var problems []string
	conflicts, err := rv.SyncConflicts()
	if err != nil {
		problems = append(problems, "sync conflicts: "+store.PublicMessage(err))
	}
	for _, c := range conflicts {
		v := conflictView{SyncConflict: c, RemoteShort: lint.ShortCommit(c.Remote), LocalShort: lint.ShortCommit(c.Local)}
		v.Files = fileViews([]review.FileDiff{c.Diff})
		d.Conflicts = append(d.Conflicts, v)
	}
	pending, err := rv.Pending()
	if err != nil {
		problems = append(problems, "pending change sets: "+store.PublicMessage(err))
	}
	for _, p := range pending {
		d.Sets = append(d.Sets, a.setView(r.Context(), p))
	}
	ws, next, total, err := rv.Queue(queuePage, d.Cursor)
	if err != nil {
		problems = append(problems, "review queue: "+store.PublicMessage(err))
	}
	d.Next, d.Total = next, total
	if d.Cursor == "" && len(ws) > 0 {
		d.Newest = ws[0].ID
	} else if newest, _, _, err := rv.Queue(1, ""); err == nil && len(newest) > 0 {
		d.Newest = newest[0].ID
	}
	for _, wr := range ws {
		v := writeView{Write: wr}
		fds, err := rv.WriteDiffs(wr.ID)
		if err != nil {
			v.Error = store.PublicMessage(err)
		}
		v.Files = fileViews(fds)
		d.Writes = append(d.Writes, v)
	}
	d.Problem = strings.Join(problems, "; ")
	flash, isErr := a.takeFlash(w, r)
	p := page{Title: "Review", Nav: "review", Data: d}
	if isErr {
		p.Error = flash
	} else {
		p.Flash = flash
	}
	a.render(w, "review", p)
}

// setView prepares one pending plan: each action's label and diffs.
func (a *app) setView(ctx context.Context, p *plan.Plan) setView {
	v := setView{Plan: p, Ref: planRef(p), ChangeSet: p.Op == plan.OpChangeSet}
	for i, act := range p.Actions {
		n := i + 1
		av := actionView{N: n, Why: act.Why}
		if act.Kind == plan.KindCall {
			var paths []string
			for _, f := range act.Files {
				paths = append(paths, f.Path)
			}
			av.Label = act.Tool + " " + strings.Join(paths, ", ")
		} else {
			// A model plan's actions are not dry-run calls: the person
			// reads what each would write.
			av.Label, av.Body = act.Describe(), act.Markdown
			v.Actions = append(v.Actions, av)
			continue
		}
		fds, err := a.cfg.Review.Diffs(ctx, p, n)
		if err != nil {
			av.Error = store.PublicMessage(err)
		}
		av.Files = fileViews(fds)
		v.Actions = append(v.Actions, av)
	}
	return v
}

// planRef is how the page's forms name a plan: its number, else its id.
func planRef(p *plan.Plan) string {
	if p.Number > 0 {
		return strconv.Itoa(p.Number)
	}
	return p.ID
}

func fileViews(fds []review.FileDiff) []fileView {
	out := make([]fileView, 0, len(fds))
	for _, fd := range fds {
		out = append(out, fileView{FileDiff: fd})
		v := &out[len(out)-1]
		v.Lines, v.Omitted = diffLines(fd.Diff)
	}
	return out
}

// diffLines splits a unified diff into classified lines, at most
// maxDiffLines of them; omitted counts the rest.
func diffLines(diff string) (lines []diffLine, omitted int) {
	if diff == "" {
		return nil, 0
	}
	all := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(all) > maxDiffLines {
		omitted = len(all) - maxDiffLines
		all = all[:maxDiffLines]
	}
	lines = make([]diffLine, 0, len(all))
	for _, l := range all {
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			c = "hdr"
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		lines = append(lines, diffLine{Class: c, Text: l})
	}
	return lines, omitted
}

// decide runs one decision of the person in its own audited call (tool
// "web:review_<what>", client [Client]), so every decision is an audit
// line, and redirects to the Review page with a flash saying what was done
// or why not.
func (a *app) decide(w http.ResponseWriter, r *http.Request, what string, args map[string]any, fn func(ctx context.Context) (string, error)) {
	a.decideAs(w, r, "web:review_"+what, args, fn)
}

// decideAs is decide audited as tool.
func (a *app) decideAs(w http.ResponseWriter, r *http.Request, tool string, args map[string]any, fn func(ctx context.Context) (string, error)) {
	call := store.NewCall(tool, a.sessionOf(r), args)
	call.Client = Client
	call.Remote = r.RemoteAddr
	// A decision once posted runs to the end even if the browser goes
	// away: the person saw it submitted.
	msg, err := fn(store.WithCall(context.WithoutCancel(r.Context()), call))
	if aerr := a.cfg.Store.Audit(call, err); aerr != nil {
		a.log.Error("ui: audit line not written", "tool", call.Tool, "err", aerr)
	}
	if err != nil {
		a.setFlash(w, store.PublicMessage(err), true)
	} else {
		a.setFlash(w, msg, false)
	}
	http.Redirect(w, r, "/review", http.StatusSeeOther)
}

func (a *app) approveSet(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	if err := r.ParseForm(); err != nil {
		a.setFlash(w, "the form could not be read", true)
		http.Redirect(w, r, "/review", http.StatusSeeOther)
		return
	}
	var sel []int
	for _, v := range r.PostForm["action"] {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			a.setFlash(w, fmt.Sprintf("action %q is not an action number", v), true)
			http.Redirect(w, r, "/review", http.StatusSeeOther)
			return
		}
		sel = append(sel, n)
	}
	if len(sel) == 0 {
		// nil would select every action: a person who ticked none
		// approved nothing.
		a.setFlash(w, "no action ticked: tick the actions to apply, or decline the set", true)
		http.Redirect(w, r, "/review", http.StatusSeeOther)
		return
	}
	a.decide(w, r, "approve", map[string]any{"ref": ref, "selected": sel}, func(ctx context.Context) (string, error) {
		out, err := a.cfg.Review.Approve(ctx, ref, sel, review.ByWeb)
		if err != nil {
			return "", err
		}
		return approveSummary(out.Plan), nil
	})
}

// approveSummary says what an approval did: how many actions applied, and
// each one refused or failed with its reason.
func approveSummary(p *plan.Plan) string {
	ok, bad := 0, []string(nil)
	for _, res := range p.Results {
		if res.Status == "ok" {
			ok++
			continue
		}
		s := fmt.Sprintf("action %d %s", res.N, strings.ReplaceAll(res.Status, "_", " "))
		if res.Error != "" {
			s += ": " + res.Error
		}
		bad = append(bad, s)
	}
	msg := fmt.Sprintf("%s: %d of %d selected actions applied", p.Name(), ok, len(p.Selected))
	if len(bad) > 0 {
		msg += "; " + strings.Join(bad, "; ")
	}
	return msg
}

func (a *app) declineSet(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	a.decide(w, r, "decline", map[string]any{"ref": ref}, func(ctx context.Context) (string, error) {
		p, err := a.cfg.Review.Decline(ctx, ref, review.ByWeb)
		if err != nil {
			return "", err
		}
		return p.Name() + " declined: nothing was written", nil
	})
}

func (a *app) acceptWrite(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	a.decide(w, r, "accept", map[string]any{"id": id}, func(ctx context.Context) (string, error) {
		if err := a.cfg.Review.Accept(ctx, []string{id}, review.ByWeb); err != nil {
			return "", err
		}
		return "write " + id + " accepted", nil
	})
}

func (a *app) acceptAll(w http.ResponseWriter, r *http.Request) {
	// Only what the page showed: writes queued after it was drawn stay.
	through := r.FormValue("through")
	a.decide(w, r, "accept", map[string]any{"all": true, "through": through}, func(ctx context.Context) (string, error) {
		if through == "" {
			return "", store.Errorf(store.CodeInvalid, "accept all names the newest write the page showed; reload the review page and try again")
		}
		n, err := a.cfg.Review.AcceptAll(ctx, review.ByWeb, through)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d writes accepted", n), nil
	})
}

func (a *app) revertWrite(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	a.decide(w, r, "revert", map[string]any{"id": id}, func(ctx context.Context) (string, error) {
		res, err := a.cfg.Review.Revert(ctx, id, review.ByWeb)
		if err != nil {
			return "", err
		}
		return "write " + id + " reverted: restored " + strings.Join(res.Files, ", "), nil
	})
}

// keepConflict settles a sync conflict by keeping the file as the sync
// left it (audited as web:review_keep).
func (a *app) keepConflict(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	a.decideAs(w, r, "web:review_keep", map[string]any{"conflict": id}, func(ctx context.Context) (string, error) {
		res, err := a.cfg.Review.SettleSyncConflict(ctx, id, review.SettleKeep, review.ByWeb)
		if err != nil {
			return "", err
		}
		return "sync conflict " + id + " settled: " + res.Path + " stays as the sync left it; your version stays in its snapshot", nil
	})
}

// takeConflict settles a sync conflict by taking the local version back,
// through the audited restore (audited as web:restore).
func (a *app) takeConflict(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	a.decideAs(w, r, "web:restore", map[string]any{"conflict": id}, func(ctx context.Context) (string, error) {
		res, err := a.cfg.Review.SettleSyncConflict(ctx, id, review.SettleTake, review.ByWeb)
		if err != nil {
			return "", err
		}
		if res.Deleted {
			return "sync conflict " + id + " settled: " + res.Path + " deleted, as your side had it", nil
		}
		return "sync conflict " + id + " settled: " + res.Path + " is your version again; the remote version is kept as a snapshot", nil
	})
}

// relTime is a time for the page: UTC, to the minute.
func relTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
