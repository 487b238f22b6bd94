package review

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Tools are the write tools a change-set action may call: the direct
// writers of pages/ and context.md.
var Tools = []string{"write_page", "edit_page", "move_page", "atomic_write_context", "restore_snapshot", "research_save", "file_answer"}

// Limits of a change set's takeaways.
const (
	MaxTakeawayLines = 20
	MaxTakeawayChars = 500
)

// Result statuses of a change-set action besides "ok" and "failed".
const StatusNotSelected = "not_selected"

// Propose validates every action by a dry run of its own executor against
// the wiki as it is (the actions of one set are independent: two actions
// writing the same file are refused, "merge them into one"), checks that
// no other pending set holds a file or a new slug it writes, and saves the
// pending change set (numbered, expiring after [TTL]). A bad action fails
// the whole proposal with an error naming it ("action 2 (edit_page):
// ..."); nothing is saved then.
func (s *Service) Propose(ctx context.Context, in ProposeInput) (_ *plan.Plan, err error) {
	// The dry runs record into the caller's call (the tool call that
	// proposed), or into one the proposal audits itself.
	ctx, finish := s.ownCall(ctx, "review:propose", map[string]any{"actions": len(in.Actions)})
	defer func() { finish(err) }()
	if err := checkTakeaways(in.Takeaways); err != nil {
		return nil, err
	}
	switch {
	case len(in.Actions) == 0:
		return nil, store.Errorf(store.CodeInvalid, "a change set needs at least one action (a call of %s)", strings.Join(Tools, ", "))
	case len(in.Actions) > plan.MaxActions:
		return nil, store.Errorf(store.CodeTooLarge, "a change set has at most %d actions (this one has %d); propose the %d most important, or several change sets", plan.MaxActions, len(in.Actions), plan.MaxActions)
	}
	p := &plan.Plan{Op: plan.OpChangeSet, Client: in.Client, Session: in.Session, Takeaways: in.Takeaways}
	writer := map[string]int{} // hold key -> action number
	for i, a := range in.Actions {
		n := i + 1
		if !slices.Contains(Tools, a.Tool) {
			return nil, store.Errorf(store.CodeInvalid, "action %d: %q is not a write tool a change set can call; the tools are %s", n, a.Tool, strings.Join(Tools, ", "))
		}
		if strings.ContainsAny(a.Why, "\r\n") || len([]rune(a.Why)) > MaxTakeawayChars {
			return nil, store.Errorf(store.CodeInvalid, "action %d (%s): why must be one line of at most %d characters", n, a.Tool, MaxTakeawayChars)
		}
		args := bytes.TrimSpace(a.Arguments)
		var obj map[string]json.RawMessage
		if len(args) == 0 || json.Unmarshal(args, &obj) != nil || obj == nil {
			return nil, store.Errorf(store.CodeInvalid, "action %d (%s): arguments must be a JSON object of %s's own arguments", n, a.Tool, a.Tool)
		}
		changes, err := s.dryRun(ctx, "", a.Tool, args)
		if err != nil {
			return nil, actionError(n, a.Tool, err)
		}
		files := fileChanges(changes)
		if len(files) == 0 {
			return nil, store.Errorf(store.CodeInvalid, "action %d (%s) writes no page or context.md, so it needs no review: call %s directly", n, a.Tool, a.Tool)
		}
		for _, f := range files {
			k := plan.HoldKey(f.Path)
			if o, ok := writer[k]; ok {
				return nil, store.Errorf(store.CodeInvalid, "actions %d and %d both write %s; merge them into one action", o, n, f.Path)
			}
			writer[k] = n
		}
		p.Actions = append(p.Actions, plan.Action{Kind: plan.KindCall, Tool: a.Tool, Arguments: json.RawMessage(args), Files: files, Why: a.Why})
	}
	err = s.book.SaveWith(ctx, p, TTL)
	s.held.invalidate()
	if err != nil {
		return nil, err
	}
	store.CallFrom(ctx).SetExtra("change_set", p.Number)
	return p, nil
}

func checkTakeaways(ts []string) error {
	lines := 0
	for _, t := range ts {
		for _, l := range strings.Split(strings.TrimRight(t, "\n"), "\n") {
			lines++
			if c := len([]rune(l)); c > MaxTakeawayChars {
				return store.Errorf(store.CodeTooLarge, "a takeaway line has %d characters; keep each under %d", c, MaxTakeawayChars)
			}
		}
	}
	if lines > MaxTakeawayLines {
		return store.Errorf(store.CodeTooLarge, "the takeaways have %d lines; keep them to %d for the person", lines, MaxTakeawayLines)
	}
	return nil
}

// actionError names action n in err's public message, keeping its code.
func actionError(n int, tool string, err error) error {
	return &store.Error{Code: store.CodeOf(err), Msg: fmt.Sprintf("action %d (%s): %s", n, tool, store.PublicMessage(err)), Err: err}
}

// dryRun runs one action in a dry run (as the approval of set id when id
// is not "", so the files that set holds may be written) and returns what
// it would write.
func (s *Service) dryRun(ctx context.Context, id, tool string, args json.RawMessage) ([]store.StagedChange, error) {
	dctx, dr := store.WithDryRun(ctx)
	if id != "" {
		dctx = withApproval(dctx, id)
	}
	_, err := s.run(dctx, tool, args)
	if err != nil && !errors.Is(err, store.ErrDryRun) {
		return nil, err
	}
	return dr.Changes(), nil
}

// fileChanges are the reviewed files among staged changes.
func fileChanges(cs []store.StagedChange) []plan.FileChange {
	var out []plan.FileChange
	for _, c := range cs {
		if !Reviewed(c.Path) {
			continue
		}
		f := plan.FileChange{Path: c.Path, Change: "updated"}
		var now []byte
		if c.Existed {
			f.Before = store.SHA256Hex(c.Old)
		} else {
			f.Change = "created"
		}
		if c.Op == store.OpDelete {
			f.Change = "deleted"
		} else {
			now = c.Data
			f.After = store.SHA256Hex(now)
		}
		_, f.Added, f.Removed = UnifiedDiff(c.Path, c.Old, now)
		out = append(out, f)
	}
	return out
}

// Get returns a plan or change set by reference: "#12", "12" or its id.
func (s *Service) Get(ref string) (*plan.Plan, error) {
	ref = strings.TrimSpace(ref)
	num := strings.TrimPrefix(ref, "#")
	if num != "" && strings.Trim(num, "0123456789") == "" {
		list, err := s.book.List()
		if err != nil {
			return nil, err
		}
		for _, p := range list {
			if fmt.Sprint(p.Number) == strings.TrimLeft(num, "0") {
				return p, nil
			}
		}
		return nil, store.Errorf(store.CodeNotFound, "change set #%s does not exist (finished ones are removed after a week); llmwiki review lists the pending ones", num)
	}
	return s.book.Load(ref)
}

// Pending returns the plans and change sets awaiting a person, newest first.
func (s *Service) Pending() ([]*plan.Plan, error) {
	s.recoverStale(context.Background())
	return s.book.Pending(), nil
}

// Outcome is what an approval did.
type Outcome struct {
	Plan *plan.Plan
	// Outputs are the tool outputs of the actions that ran, by action
	// number (1-based), as [RunFunc] returned them.
	Outputs map[int]any
}

// Approve runs the selected actions (1-based; nil selects all) of the
// pending change set or plan ref, recording reviewer (ByWeb, ...). Each
// action whose files changed since the proposal is refused (its Result says
// so, conflict); the others still run. The plan's Results say what each
// did. The writes are recorded in the [store.Call] of ctx (the tool call
// that asked the person, or the web page's or the CLI's own call).
func (s *Service) Approve(ctx context.Context, ref string, selected []int, reviewer string) (_ *Outcome, err error) {
	ctx, finish := s.ownCall(ctx, "review:approve", map[string]any{"ref": ref, "selected": selected, "reviewer": reviewer})
	defer func() { finish(err) }()
	// The approved actions and the decision's log entry are one commit,
	// made before the audit line.
	ctx, commit := s.st.OneCommit(ctx)
	defer commit()
	if err := checkReviewer(reviewer); err != nil {
		return nil, err
	}
	p, err := s.Get(ref)
	if err != nil {
		return nil, err
	}
	if selected == nil {
		selected = make([]int, len(p.Actions))
		for i := range selected {
			selected[i] = i + 1
		}
	}
	call := store.CallFrom(ctx)
	if p.Op != plan.OpChangeSet {
		applied, aerr := plan.Apply(ctx, s.st, s.g, p.ID, selected)
		if applied == nil {
			return nil, aerr
		}
		if _, uerr := s.book.Update(ctx, p.ID, func(q *plan.Plan) error { q.Reviewer = reviewer; return nil }); uerr == nil {
			applied.Reviewer = reviewer
		}
		call.SetExtra("plan", applied.Number)
		call.SetExtra("decision", "approved")
		call.SetExtra("reviewer", reviewer)
		return &Outcome{Plan: applied, Outputs: map[int]any{}}, aerr
	}
	sorted := slices.Sorted(slices.Values(selected))
	defer approving.start(p.ID)()
	p, err = s.book.Update(ctx, p.ID, func(q *plan.Plan) error {
		if err := awaiting(q, s.st.Now()); err != nil {
			return err
		}
		if err := plan.CheckSelection(selected, len(q.Actions)); err != nil {
			return err
		}
		q.Status, q.Selected, q.Reviewer, q.Applier = plan.StatusApplying, sorted, reviewer, s.applier()
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Plan: p, Outputs: map[int]any{}}
	actx := withApproval(ctx, p.ID)
	ok, failed := 0, 0
	p.Results = nil
	for i, a := range p.Actions {
		n := i + 1
		r := plan.Result{N: n, Kind: a.Tool, Status: "ok", Path: mainFile(a)}
		if !slices.Contains(sorted, n) {
			r.Status = StatusNotSelected
			p.Results = append(p.Results, r)
			continue
		}
		var rerr error
		if f, changed := s.changedSince(a); changed {
			rerr = store.Errorf(store.CodeConflict, "%s changed since %s was proposed; ask the agent for a new change set", f, p.Name())
		} else if f, extra := s.writesUnproposed(actx, p.ID, a); extra {
			rerr = store.Errorf(store.CodeConflict, "the action would now also write %s, which %s did not propose (the wiki changed since); ask the agent for a new change set", f, p.Name())
		} else {
			var o any
			o, rerr = s.run(actx, a.Tool, a.Arguments)
			if rerr == nil {
				out.Outputs[n] = o
			}
		}
		if rerr != nil {
			r.Status, r.Error = "failed", store.PublicMessage(rerr)
			failed++
		} else {
			ok++
			if data, exists, _ := s.st.ReadRaw(r.Path); exists {
				r.SHA256 = store.SHA256Hex(data)
			}
		}
		p.Results = append(p.Results, r)
	}
	now := s.st.Now()
	p.Finished = &now
	switch {
	case len(sorted) == 0:
		p.Status = plan.StatusDiscarded
	case failed > 0:
		p.Status = plan.StatusFailed
	default:
		p.Status = plan.StatusApplied
	}
	p.Applier = nil
	final := *p
	if _, werr := s.book.Update(ctx, p.ID, func(q *plan.Plan) error { *q = final; return nil }); werr != nil {
		s.st.Logger().Error("could not record the change set's outcome", "plan", p.ID, "err", werr)
	}
	s.held.invalidate()
	call.SetExtra("change_set", p.Number)
	call.SetExtra("decision", "approved")
	call.SetExtra("reviewer", reviewer)
	s.logDecision(ctx, p, fmt.Sprintf("%s: applied %d of %d actions (%s)", p.Name(), ok, len(p.Actions), reviewer))
	return out, nil
}

// mainFile is the file a result names: the first one the action creates or
// updates (a move's new name, not the old one it deletes).
func mainFile(a plan.Action) string {
	for _, f := range a.Files {
		if f.Change != "deleted" {
			return f.Path
		}
	}
	if len(a.Files) > 0 {
		return a.Files[0].Path
	}
	return ""
}

// checkReviewer refuses a decision not made by a person through one of the
// ways a person decides.
func checkReviewer(r string) error {
	switch r {
	case ByElicitation, ByWeb, ByCLI:
		return nil
	}
	return store.Errorf(store.CodeInternal, "review: reviewer %q is not %s, %s or %s", r, ByElicitation, ByWeb, ByCLI)
}

// awaiting refuses a plan that is not pending or has expired.
func awaiting(p *plan.Plan, now time.Time) error {
	switch {
	case p.Status == plan.StatusApplying:
		return store.Errorf(store.CodeConflict, "%s is being applied by another approval, not pending; it cannot be approved or declined again (llmwiki review show %d tells when it is done)", p.Name(), p.Number)
	case p.Status != plan.StatusPending:
		return store.Errorf(store.CodeConflict, "%s is %s, not pending; it cannot be approved or declined again", p.Name(), p.Status)
	case p.Expired(now):
		return store.Errorf(store.CodeConflict, "%s expired at %s UTC (it could be approved for %s); nothing was written: ask the agent to propose it again", p.Name(), p.Expires.Format("2006-01-02 15:04:05"), ttlOf(p))
	}
	return nil
}

func ttlOf(p *plan.Plan) time.Duration {
	if p.Op == plan.OpChangeSet {
		return TTL
	}
	return plan.TTL
}

// changedSince returns the first file of action a whose bytes differ from
// those its proposal was checked against.
func (s *Service) changedSince(a plan.Action) (string, bool) {
	for _, f := range a.Files {
		data, exists, err := s.st.ReadRaw(f.Path)
		cur := ""
		if err == nil && exists {
			cur = store.SHA256Hex(data)
		}
		if err != nil || cur != f.Before {
			return f.Path, true
		}
	}
	return "", false
}

// writesUnproposed dry-runs action a of set id and returns a reviewed
// file it would write that its proposal did not list (a move's link
// rewrite in a page written since): the person approves only the files
// they were shown.
func (s *Service) writesUnproposed(ctx context.Context, id string, a plan.Action) (string, bool) {
	changes, err := s.dryRun(ctx, id, a.Tool, a.Arguments)
	if err != nil {
		return "", false // the run itself reports it
	}
	for _, c := range changes {
		if Reviewed(c.Path) && !slices.ContainsFunc(a.Files, func(f plan.FileChange) bool { return f.Path == c.Path }) {
			return c.Path, true
		}
	}
	return "", false
}

// ownCall returns ctx with the caller's [store.Call], or a new one for tool
// that finish audits.
func (s *Service) ownCall(ctx context.Context, tool string, args any) (context.Context, func(error)) {
	if store.CallFrom(ctx) != nil {
		return ctx, func(error) {}
	}
	c := store.NewCall(tool, s.st.SessionID(), args)
	return store.WithCall(ctx, c), func(err error) {
		if aerr := s.st.Audit(c, err); aerr != nil {
			s.st.Logger().Error("audit line not written", "err", aerr)
		}
	}
}

// logDecision appends the decision's log.md entry: the title, and one line
// per action.
func (s *Service) logDecision(ctx context.Context, p *plan.Plan, title string) {
	var details []string
	for i, a := range p.Actions {
		line := fmt.Sprintf("- %d. %s %s", i+1, a.Tool, filesOf(a))
		for _, r := range p.Results {
			if r.N == i+1 {
				line += ": " + r.Status
				if r.Error != "" {
					line += " (" + r.Error + ")"
				}
			}
		}
		details = append(details, line)
	}
	if _, err := s.st.AppendLog(ctx, wiki.LogInput{Op: "review", Title: title, Details: strings.Join(details, "\n")}); err != nil {
		store.CallFrom(ctx).AddWarning("log.md entry not written: " + store.PublicMessage(err))
	}
}

func filesOf(a plan.Action) string {
	var fs []string
	for _, f := range a.Files {
		fs = append(fs, f.Path+" ("+f.Change+")")
	}
	return strings.Join(fs, ", ")
}

// Decline ends the pending change set or plan ref with nothing written,
// audited and logged as declined.
func (s *Service) Decline(ctx context.Context, ref, reviewer string) (_ *plan.Plan, err error) {
	ctx, finish := s.ownCall(ctx, "review:decline", map[string]any{"ref": ref, "reviewer": reviewer})
	defer func() { finish(err) }()
	if err := checkReviewer(reviewer); err != nil {
		return nil, err
	}
	p, err := s.Get(ref)
	if err != nil {
		return nil, err
	}
	p, err = s.book.Update(ctx, p.ID, func(q *plan.Plan) error {
		if q.Status != plan.StatusPending {
			return store.Errorf(store.CodeConflict, "%s is %s, not pending; there is nothing to decline", q.Name(), q.Status)
		}
		now := s.st.Now()
		q.Status, q.Reviewer, q.Finished = plan.StatusDeclined, reviewer, &now
		return nil
	})
	s.held.invalidate()
	if err != nil {
		return nil, err
	}
	call := store.CallFrom(ctx)
	if p.Op == plan.OpChangeSet {
		call.SetExtra("change_set", p.Number)
	} else {
		call.SetExtra("plan", p.Number)
	}
	call.SetExtra("decision", "declined")
	call.SetExtra("reviewer", reviewer)
	s.logDecision(ctx, p, fmt.Sprintf("%s: declined, nothing written (%s)", p.Name(), reviewer))
	return p, nil
}

// FileDiff is one file's change, as a unified diff.
type FileDiff struct {
	Path    string `json:"path"`
	Change  string `json:"change"` // created, updated, deleted
	Diff    string `json:"diff"`   // unified diff, "" when the bytes are not text
	Added   int    `json:"lines_added"`
	Removed int    `json:"lines_removed"`
}
