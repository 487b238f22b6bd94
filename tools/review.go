package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// reviewableTools are the tools that can write pages or context.md: in
// review mode before, a call of one that would write such a file (see
// [writesReviewed]) becomes a one-action change set a person approves.
// research_save and file_answer write neither, so they are never held.
var reviewableTools = map[string]bool{
	"write_page":           true,
	"edit_page":            true,
	"move_page":            true,
	"atomic_write_context": true,
	// A restore rewrites a page or context.md too (or guidelines.md,
	// which is not reviewed).
	"restore_snapshot": true,
}

// writesReviewed dry-runs the call (raw, through run) and reports whether
// it would write a file a person reviews; a call its own checks refuse
// returns their error, as it would without review. The dry run has an
// audit record of its own, so nothing it reads or warns of reaches the
// call's line twice.
func writesReviewed[Out any](ctx context.Context, run func(context.Context, any) (Out, error), raw any) (bool, error) {
	c := store.CallFrom(ctx)
	probe := store.NewCall(c.Tool, c.Session, nil)
	probe.Client = c.Client
	dctx, dry := store.WithDryRun(store.WithCall(ctx, probe))
	if _, err := run(dctx, raw); err != nil && !errors.Is(err, store.ErrDryRun) {
		return false, err
	}
	for _, ch := range dry.Changes() {
		if review.Reviewed(ch.Path) {
			return true, nil
		}
	}
	return false, nil
}

// reviewMode is the wiki's review mode; off without a review service.
func (d Deps) reviewMode() string {
	if d.Review == nil || d.Store == nil {
		return wiki.ReviewOff
	}
	return d.Review.Mode()
}

// markForReview puts call in the review queue (mode after) when it wrote a
// file a person reviews, unless a person approved those writes within the
// call (propose_changes answered in the editor).
func markForReview(call *store.Call) {
	rec := call.Record()
	if rec.Extra["decision"] == "approved" {
		return
	}
	for _, w := range rec.Writes {
		if review.Reviewed(w.Path) {
			call.SetExtra(review.MarkKey, wiki.ReviewAfter)
			return
		}
	}
}

// Review statuses of a change set, as tool results report them.
const (
	reviewPending  = "pending"
	reviewApplied  = "applied"
	reviewFailed   = "failed"
	reviewDeclined = "declined"
)

// ReviewStatus says where a change set stands with the person.
type ReviewStatus struct {
	ChangeSet int    `json:"change_set" jsonschema:"the change set's number (#N), what the person approves it by"`
	ID        string `json:"id" jsonschema:"the change set's id"`
	Status    string `json:"status" jsonschema:"pending (awaiting the person: do not retry), applied, failed (see the results) or declined"`
	Message   string `json:"message" jsonschema:"what happened and what to do next, to pass on to the person"`
}

// Reviewed is embedded in the output of every tool whose writes a person
// may approve first (review mode before, propose_changes, apply_plan).
type Reviewed struct {
	Review *ReviewStatus `json:"review,omitempty" jsonschema:"present when the call went to a person for review (review mode before): the change set and its status; while pending nothing was written and the other fields are empty"`
}

func (r *Reviewed) setReview(s *ReviewStatus) { r.Review = s }

type reviewSetter interface{ setReview(*ReviewStatus) }

// elicitTimeout bounds how long a tool call waits for the person's answer
// in the editor; after it the change set stays pending.
const elicitTimeout = 10 * time.Minute

// setRef is how the CLI names p.
func setRef(p *plan.Plan) string {
	if p.Number > 0 {
		return strconv.Itoa(p.Number)
	}
	return p.ID
}

// pendingMessage tells the model that p waits for the person, and how the
// person approves it.
func pendingMessage(p *plan.Plan, why string) string {
	if why != "" {
		why = " (" + why + ")"
	}
	return fmt.Sprintf("%s awaits review%s: the person approves it on the review page (llmwiki ui) or with `llmwiki review approve %s`; do not retry the write", p.Name(), why, setRef(p))
}

// declinedError is the result of a set the person declined: an error, so
// the model cannot take it for a success.
func declinedError(p *plan.Plan) error {
	return store.Errorf(store.CodeRefused, "the person declined %s; nothing was written; ask them what to change", p.Name())
}

// actionLine sums up action n of p for the person: its files with their
// change and line counts, and why (or the tool).
func actionLine(n int, a plan.Action) string {
	var files []string
	for _, f := range a.Files {
		files = append(files, fmt.Sprintf("%s %s, +%d −%d", f.Path, f.Change, f.Added, f.Removed))
	}
	what := a.Why
	if what == "" {
		what = a.Tool
	}
	if what == "" {
		what = a.Kind
		if t := a.Target(); t != "" && len(files) == 0 {
			files = append(files, t)
		}
	}
	line := fmt.Sprintf("%d. ", n)
	if len(files) > 0 {
		line += strings.Join(files, "; ") + ": "
	}
	return line + what
}

// askResult is what the person did with a change set.
type askResult struct {
	plan    *plan.Plan
	status  string // pending, applied, failed, declined
	message string
	outputs map[int]any
}

func (r askResult) review() *ReviewStatus {
	return &ReviewStatus{ChangeSet: r.plan.Number, ID: r.plan.ID, Status: r.status, Message: r.message}
}

// elicitationDeclared reports whether the client of ctx declared the
// elicitation capability in initialize.
// The transports' sessions (stdio, HTTP) keep what the client declared; an
// in-process session (tests) keeps nothing and hands the request to its
// handler, if it has one ([errNoAsker]).
func elicitationDeclared(ctx context.Context) bool {
	sess := server.ClientSessionFromContext(ctx)
	if s, ok := sess.(server.SessionWithClientInfo); ok {
		return s.GetClientCapabilities().Elicitation != nil
	}
	_, ok := sess.(server.SessionWithElicitation)
	return ok
}

// errNoAsker reports an elicitation refused because the session has no
// way to ask (an in-process client without a handler): the set is pending
// as for a client without the capability.
func errNoAsker(err error) bool {
	return errors.Is(err, server.ErrElicitationNotSupported) || strings.Contains(err.Error(), "no elicitation handler")
}

// askPerson puts the pending set p to the person: one elicitation/create
// form when the client declared the capability (a boolean per action,
// ticked as ticks says; nil ticks all), otherwise nothing and p stays
// pending. Only the person's answer approves: accept runs the ticked
// actions (none ticked declines), decline and cancel decline, and a failed
// or unanswered request leaves p pending.
func askPerson(ctx context.Context, d Deps, p *plan.Plan, ticks []int) (askResult, error) {
	res := askResult{plan: p, status: reviewPending, message: pendingMessage(p, "")}
	srv := server.ServerFromContext(ctx)
	if srv == nil || !elicitationDeclared(ctx) {
		return res, nil
	}
	ticked := map[int]bool{}
	for _, n := range ticks {
		ticked[n] = true
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "Review %s", p.Name())
	if p.Client != "" {
		fmt.Fprintf(&msg, " from %s", p.Client)
	}
	msg.WriteString(". Untick what should not be written.\n")
	for _, t := range p.Takeaways {
		fmt.Fprintf(&msg, "\n- %s", t)
	}
	if len(p.Takeaways) > 0 {
		msg.WriteString("\n")
	}
	props := map[string]any{}
	var order []string
	for i, a := range p.Actions {
		n := i + 1
		line := actionLine(n, a)
		fmt.Fprintf(&msg, "\n%s", line)
		key := fmt.Sprintf("action_%d", n)
		props[key] = map[string]any{"type": "boolean", "title": line, "default": ticks == nil || ticked[n]}
		order = append(order, key)
	}
	req := mcp.ElicitationRequest{Params: mcp.ElicitationParams{
		Message:         msg.String(),
		RequestedSchema: map[string]any{"type": "object", "properties": props},
	}}
	ectx, cancel := context.WithTimeout(ctx, elicitTimeout)
	answer, err := srv.RequestElicitation(ectx, req)
	cancel()
	if err != nil && errNoAsker(err) {
		return res, nil
	}
	if err != nil {
		d.logger().Warn("elicitation failed; the change set stays pending", "plan", p.ID, "err", err)
		why := "the question in the editor got no answer"
		if errors.Is(err, context.DeadlineExceeded) {
			why = "the person did not answer in the editor in time"
		}
		res.message = pendingMessage(p, why)
		return res, nil
	}
	if answer.Action != mcp.ElicitationResponseActionAccept {
		return declineSet(ctx, d, p)
	}
	content, _ := answer.Content.(map[string]any)
	var selected []int
	for i, key := range order {
		n := i + 1
		v, given := content[key]
		b, isBool := v.(bool)
		if (given && isBool && b) || (!given && (ticks == nil || ticked[n])) {
			selected = append(selected, n)
		}
	}
	if len(selected) == 0 {
		return declineSet(ctx, d, p)
	}
	return approveSet(ctx, d, p, selected)
}

// declineSet declines p for the person and records it on the call.
func declineSet(ctx context.Context, d Deps, p *plan.Plan) (askResult, error) {
	got, err := d.Review.Decline(ctx, p.ID, review.ByElicitation)
	if err != nil {
		return askResult{}, err
	}
	if got != nil {
		p = got
	}
	return askResult{plan: p, status: reviewDeclined}, declinedError(p)
}

// approveSet runs the actions selected (1-based) of p, as the person
// approved them.
func approveSet(ctx context.Context, d Deps, p *plan.Plan, selected []int) (askResult, error) {
	o, err := d.Review.Approve(ctx, p.ID, selected, review.ByElicitation)
	if o == nil || o.Plan == nil {
		return askResult{}, err
	}
	p = o.Plan
	res := askResult{plan: p, outputs: o.Outputs, status: reviewApplied}
	var failed []string
	for _, r := range p.Results {
		if r.Status != "ok" && r.Status != review.StatusNotSelected {
			failed = append(failed, fmt.Sprintf("action %d %s: %s", r.N, r.Status, r.Error))
		}
	}
	if err != nil || p.Status == plan.StatusFailed || len(failed) > 0 {
		res.status = reviewFailed
	}
	var nums []string
	for _, n := range selected {
		nums = append(nums, strconv.Itoa(n))
	}
	res.message = fmt.Sprintf("the person approved %s (actions %s of %d)", p.Name(), strings.Join(nums, ", "), len(p.Actions))
	if len(p.Actions) == 1 {
		res.message = fmt.Sprintf("the person approved %s", p.Name())
	}
	if len(failed) > 0 {
		sort.Strings(failed)
		res.message += "; " + strings.Join(failed, "; ")
	} else if err != nil {
		res.message += "; " + store.PublicMessage(err)
	}
	return res, nil
}

// recordPending notes on the call's audit line that p awaits the person,
// in the words the review service records its decisions with (change_set
// or plan: the number; decision).
func recordPending(ctx context.Context, p *plan.Plan) {
	key := "plan"
	if p.Op == plan.OpChangeSet {
		key = "change_set"
	}
	store.CallFrom(ctx).SetExtra(key, p.Number)
	store.CallFrom(ctx).SetExtra("decision", reviewPending)
}

// proposeCall turns a call of a reviewable write tool (review mode
// before) into a one-action change set and puts it to the person: the
// tool's own output when the person approved it, a pending result
// otherwise, an error when they declined.
func proposeCall[Out any](ctx context.Context, d Deps, tool string, raw any) (Out, error) {
	var out Out
	args, err := rawObject(raw)
	if err != nil {
		return out, err
	}
	p, err := d.Review.Propose(ctx, review.ProposeInput{
		Actions: []review.ActionInput{{Tool: tool, Arguments: args}},
		Client:  store.CallFrom(ctx).Client,
		Session: store.CallFrom(ctx).Session,
	})
	if err != nil {
		return out, err
	}
	recordPending(ctx, p)
	res, err := askPerson(ctx, d, p, nil)
	if err != nil {
		return out, err
	}
	if res.status == reviewApplied {
		if o, ok := res.outputs[1].(Out); ok {
			out = o
		}
	}
	if res.status == reviewFailed {
		return out, store.Errorf(store.CodeConflict, "%s", res.message)
	}
	if res.status == reviewPending {
		// The output's own fields stay empty until the person approves;
		// say so where every result carries its notes.
		store.CallFrom(ctx).AddWarning("nothing was written yet: " + res.message + "; the result's other fields are empty until then")
	}
	if s, ok := any(&out).(reviewSetter); ok {
		s.setReview(res.review())
	}
	return out, nil
}

// rawObject is a call's raw arguments as a JSON object.
func rawObject(raw any) (json.RawMessage, error) {
	if raw == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(raw)
	if err != nil || string(b) == "null" {
		return json.RawMessage("{}"), nil
	}
	return b, nil
}
