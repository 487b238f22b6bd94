package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// person answers elicitation/create as the person would, and keeps every
// request it was shown.
type person struct {
	mu     sync.Mutex
	asked  []mcp.ElicitationParams
	answer func(mcp.ElicitationParams) *mcp.ElicitationResult
}

func (p *person) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p.mu.Lock()
	p.asked = append(p.asked, req.Params)
	p.mu.Unlock()
	return p.answer(req.Params), nil
}

func ticks(action mcp.ElicitationResponseAction, content map[string]any) func(mcp.ElicitationParams) *mcp.ElicitationResult {
	return func(mcp.ElicitationParams) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}
	}
}

// reviewHarness serves a wiki in review mode to an in-process client that
// answers elicitations as p does (nil: a client without elicitation). The
// pages alpha and beta exist, written before the server starts.
func reviewHarness(t *testing.T, mode string, p *person, mc *model.Client) (*harness, Deps) {
	t.Helper()
	quiet := teststore.Quiet()
	st, dir, parent := teststore.NewInParent(t, map[string]string{"schema.md": "---\nreview: " + mode + "\n---\n# Schema\n\nPages are notes.\n"}, wiki.WithLogger(quiet))
	if got := st.Settings().Review; got != mode {
		t.Fatalf("review mode %q, want %q", got, mode)
	}
	for _, slug := range []string{"alpha", "beta"} {
		if _, err := st.WritePage(context.Background(), wiki.PageInput{Title: strings.ToUpper(slug[:1]) + slug[1:], Content: "## Notes\n\nAbout " + slug + ".\n"}); err != nil {
			t.Fatal(err)
		}
	}
	d := withLinks(Deps{Store: st, Log: quiet, Model: mc})
	d.Review = review.New(st, d.Links, RunWrite(d))
	srv, _, err := NewServer(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if p != nil {
		opts = append(opts, client.WithElicitationHandler(p))
	}
	c, err := client.NewInProcessClientWithOptions(srv, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "go-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, dir: dir, parent: parent, store: st, c: c}, d
}

// reviewedFiles fingerprints the files a person reviews (pages/,
// context.md).
func reviewedFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); review.Reviewed(rel) {
			b, _ := os.ReadFile(p)
			out[rel] = store.SHA256Hex(b)
		}
		return nil
	})
	return out
}

func fileSHA(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return store.SHA256Hex(b)
}

// threeActions is a change set of three actions: create gamma, append to
// alpha, replace context.md.
func threeActions(t *testing.T, dir string) map[string]any {
	return map[string]any{
		"takeaways": []any{"Gamma is the third letter."},
		"actions": []any{
			map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Gamma", "content": "Gamma is the third letter.\n"}, "why": "a page on gamma"},
			map[string]any{"tool": "edit_page", "arguments": map[string]any{"page": "alpha", "base_sha256": fileSHA(t, dir, "pages/alpha.md"), "op": "append", "heading": "Notes", "content": "Alpha comes before gamma."}},
			map[string]any{"tool": "atomic_write_context", "arguments": map[string]any{"content": "# Context\n\nLetters.\n", "base_sha256": fileSHA(t, dir, "context.md")}, "why": "the synthesis"},
		},
	}
}

func reviewOf(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	r, _ := out["review"].(map[string]any)
	if r == nil {
		t.Fatalf("no review in the result: %v", out)
	}
	return r
}

// TestProposeChangesElicitationTicksTwo: a client declaring elicitation
// gets one form for a three-action change set, a boolean per action ticked
// by default; the person unticks the second, and exactly the first and
// third are written, recorded on the tool call's audit line.
func TestProposeChangesElicitationTicksTwo(t *testing.T) {
	p := &person{answer: ticks(mcp.ElicitationResponseActionAccept, map[string]any{"action_1": true, "action_2": false, "action_3": true})}
	h, _ := reviewHarness(t, wiki.ReviewBefore, p, nil)
	alpha := fileSHA(t, h.dir, "pages/alpha.md")
	out := h.ok("propose_changes", threeActions(t, h.dir))

	if len(p.asked) != 1 {
		t.Fatalf("%d elicitations, want 1", len(p.asked))
	}
	msg := p.asked[0].Message
	for _, want := range []string{"change set #1", "- Gamma is the third letter.", "1. pages/gamma.md created, +", ": a page on gamma", "2. pages/alpha.md updated, +", ": edit_page", "3. context.md "} {
		if !strings.Contains(msg, want) {
			t.Errorf("elicitation message lacks %q:\n%s", want, msg)
		}
	}
	b, _ := json.Marshal(p.asked[0].RequestedSchema)
	var sch struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Default bool   `json:"default"`
		} `json:"properties"`
	}
	json.Unmarshal(b, &sch)
	if sch.Type != "object" || len(sch.Properties) != 3 {
		t.Fatalf("requested schema %s, want an object of 3 booleans", b)
	}
	for _, k := range []string{"action_1", "action_2", "action_3"} {
		if pr := sch.Properties[k]; pr.Type != "boolean" || !pr.Default || !strings.HasPrefix(pr.Title, k[len(k)-1:]+". ") {
			t.Errorf("%s: %+v, want a boolean ticked by default titled with its line", k, pr)
		}
	}

	if out["status"] != "applied" || out["change_set"] != 1.0 || reviewOf(t, out)["status"] != "applied" {
		t.Fatalf("result %v, want change set 1 applied", out)
	}
	if fileSHA(t, h.dir, "pages/gamma.md") == "" {
		t.Error("action 1 (gamma) not written")
	}
	if got := fileSHA(t, h.dir, "pages/alpha.md"); got != alpha {
		t.Error("action 2 (alpha), unticked, was written")
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "context.md")); !strings.HasSuffix(string(b), "---\n# Context\n\nLetters.\n") {
		t.Errorf("action 3 (context.md) not written: %q", b)
	}
	rec := teststore.LastCall(t, h.dir, "propose_changes")
	if rec == nil || rec.Outcome != "ok" || rec.Extra["decision"] != "approved" || rec.Extra["reviewer"] != review.ByElicitation || len(rec.Writes) == 0 {
		t.Fatalf("audit line %+v, want ok, approved by elicitation, with its writes", rec)
	}
	if rec.Extra[review.MarkKey] != nil {
		t.Errorf("writes the person approved were queued for review: %v", rec.Extra)
	}
}

// TestProposeChangesDeclineWritesNothing: decline and cancel write nothing,
// the model gets an error it cannot take for success, and the audit line
// says declined.
func TestProposeChangesDeclineWritesNothing(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(mcp.ElicitationParams) *mcp.ElicitationResult
	}{
		{"decline", ticks(mcp.ElicitationResponseActionDecline, nil)},
		{"cancel", ticks(mcp.ElicitationResponseActionCancel, nil)},
		{"accept with nothing ticked", ticks(mcp.ElicitationResponseActionAccept, map[string]any{"action_1": false, "action_2": false, "action_3": false})},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, d := reviewHarness(t, wiki.ReviewBefore, &person{answer: c.answer}, nil)
			before := reviewedFiles(t, h.dir)
			r := h.call("propose_changes", threeActions(t, h.dir))
			want := "the person declined change set #1; nothing was written; ask them what to change"
			if !r.IsError || !strings.Contains(text(r), want) {
				t.Fatalf("result %q (error %v), want an error saying %q", text(r), r.IsError, want)
			}
			if after := reviewedFiles(t, h.dir); !equalMaps(before, after) {
				t.Fatalf("files changed:\nbefore %v\nafter  %v", before, after)
			}
			rec := teststore.LastCall(t, h.dir, "propose_changes")
			if rec == nil || rec.Extra["decision"] != "declined" || rec.Code != store.CodeRefused {
				t.Fatalf("audit line %+v, want refused, declined", rec)
			}
			for _, w := range rec.Writes {
				if w.Path != "log.md" {
					t.Errorf("the declined call wrote %s (only log.md's entry is expected)", w.Path)
				}
			}
			if ps, _ := d.Review.Pending(); len(ps) != 0 {
				t.Fatalf("%d sets still pending after the decline", len(ps))
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBeforeModeWritePage: in mode before a write_page call becomes a
// one-action change set: pending at once for a client without
// elicitation (nothing written, load_project lists it), applied with the
// tool's own output when the person accepts in the editor.
func TestBeforeModeWritePage(t *testing.T) {
	args := map[string]any{"title": "Delta", "content": "Delta is the fourth letter.\n"}
	t.Run("without elicitation", func(t *testing.T) {
		h, d := reviewHarness(t, wiki.ReviewBefore, nil, nil)
		out := h.ok("write_page", args)
		rv := reviewOf(t, out)
		want := "change set #1 awaits review: the person approves it on the review page (llmwiki ui) or with `llmwiki review approve 1`; do not retry the write"
		if rv["status"] != "pending" || rv["change_set"] != 1.0 || rv["message"] != want {
			t.Fatalf("review %v, want pending #1 saying %q", rv, want)
		}
		if fileSHA(t, h.dir, "pages/delta.md") != "" {
			t.Fatal("pages/delta.md written before the person approved")
		}
		ps, err := d.Review.Pending()
		if err != nil || len(ps) != 1 || len(ps[0].Actions) != 1 || ps[0].Actions[0].Tool != "write_page" || ps[0].Op != "change_set" {
			t.Fatalf("pending %+v (%v), want one change set of one write_page", ps, err)
		}
		rec := teststore.LastCall(t, h.dir, "write_page")
		if rec == nil || rec.Outcome != "ok" || rec.Extra["decision"] != "pending" || rec.Extra["change_set"] != 1.0 || len(rec.Writes) != 0 {
			t.Fatalf("audit line %+v, want ok, pending change set 1, no writes", rec)
		}
		lp := h.ok("load_project", map[string]any{})
		sum, _ := lp["review"].(map[string]any)
		pend, _ := sum["pending"].([]any)
		if sum["mode"] != "before" || len(pend) != 1 || pend[0].(map[string]any)["change_set"] != 1.0 || pend[0].(map[string]any)["actions"] != 1.0 {
			t.Fatalf("load_project review %v, want mode before and change set 1 pending", sum)
		}
		// The person approves it later (review page, CLI): the write runs.
		if _, err := d.Review.Approve(context.Background(), "1", nil, review.ByCLI); err != nil {
			t.Fatal(err)
		}
		if fileSHA(t, h.dir, "pages/delta.md") == "" {
			t.Fatal("approved, but pages/delta.md not written")
		}
	})
	t.Run("with elicitation", func(t *testing.T) {
		p := &person{answer: ticks(mcp.ElicitationResponseActionAccept, map[string]any{"action_1": true})}
		h, _ := reviewHarness(t, wiki.ReviewBefore, p, nil)
		out := h.ok("write_page", args)
		if len(p.asked) != 1 || !strings.Contains(p.asked[0].Message, "1. pages/delta.md created") {
			t.Fatalf("asked %+v, want one form naming pages/delta.md", p.asked)
		}
		if out["path"] != "pages/delta.md" || out["sha256"] != fileSHA(t, h.dir, "pages/delta.md") || reviewOf(t, out)["status"] != "applied" {
			t.Fatalf("result %v, want write_page's own output for pages/delta.md, applied", out)
		}
	})
	t.Run("restore_snapshot waits too", func(t *testing.T) {
		h, _ := reviewHarness(t, wiki.ReviewBefore, nil, nil)
		if _, err := h.store.WritePage(context.Background(), wiki.PageInput{Title: "Alpha", Content: "Changed.\n", BaseSHA256: fileSHA(t, h.dir, "pages/alpha.md")}); err != nil {
			t.Fatal(err)
		}
		now := fileSHA(t, h.dir, "pages/alpha.md")
		// Never a write past the person: pending, or refused while the
		// review service does not take restore_snapshot as an action.
		r := h.call("restore_snapshot", map[string]any{"path": "pages/alpha.md"})
		if fileSHA(t, h.dir, "pages/alpha.md") != now {
			t.Fatal("restore_snapshot rewrote pages/alpha.md in mode before")
		}
		if !r.IsError {
			b, _ := json.Marshal(r.StructuredContent)
			var out map[string]any
			json.Unmarshal(b, &out)
			if reviewOf(t, out)["status"] != "pending" {
				t.Fatalf("result %v, want pending", out)
			}
		}
	})
	t.Run("bad call fails as before", func(t *testing.T) {
		h, d := reviewHarness(t, wiki.ReviewBefore, nil, nil)
		r := h.call("write_page", map[string]any{"title": "Alpha", "content": "x", "base_sha256": strings.Repeat("0", 64)})
		if !r.IsError || !strings.Contains(text(r), "conflict") {
			t.Fatalf("result %q, want a conflict", text(r))
		}
		if ps, _ := d.Review.Pending(); len(ps) != 0 {
			t.Fatalf("a refused call left %d pending sets", len(ps))
		}
	})
}

// TestApplyPlanBeforeModeNeedsThePerson: in mode before, apply_plan with
// the agent's selected does not apply: the plan stays pending for a client
// without elicitation, and the person's ticks decide with one.
func TestApplyPlanBeforeModeNeedsThePerson(t *testing.T) {
	reply, _ := json.Marshal(map[string]any{
		"takeaways": []string{"Epsilon is fifth."},
		"actions": []map[string]any{
			{"kind": "create_page", "slug": "epsilon", "title": "Epsilon", "markdown": "Epsilon is the fifth letter.\n"},
			{"kind": "create_page", "slug": "zeta", "title": "Zeta", "markdown": "Zeta is the sixth letter.\n"},
		},
	})
	newModel := func(t *testing.T) *model.Client {
		srv := modeltest.New(t, string(reply))
		cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model", Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		mc, err := model.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return mc
	}
	propose := func(h *harness) string {
		if err := os.WriteFile(filepath.Join(h.dir, "sources", "e.md"), []byte("# E\n\nEpsilon and zeta.\n"), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return h.ok("propose_plan", map[string]any{"operation": "ingest", "path": "sources/e.md"})["plan_id"].(string)
	}
	t.Run("without elicitation", func(t *testing.T) {
		h, d := reviewHarness(t, wiki.ReviewBefore, nil, newModel(t))
		id := propose(h)
		out := h.ok("apply_plan", map[string]any{"plan_id": id, "selected": []any{1, 2}})
		rv := reviewOf(t, out)
		if out["status"] != "pending" || out["applied"] != 0.0 || rv["status"] != "pending" || !strings.HasPrefix(rv["message"].(string), "plan #") {
			t.Fatalf("result %v, want the plan pending", out)
		}
		if fileSHA(t, h.dir, "pages/epsilon.md") != "" || fileSHA(t, h.dir, "pages/zeta.md") != "" {
			t.Fatal("the agent's selected applied the plan")
		}
		if p, err := d.Review.Get(id); err != nil || p.Status != "pending" {
			t.Fatalf("plan %+v (%v), want pending", p, err)
		}
	})
	t.Run("with elicitation", func(t *testing.T) {
		p := &person{answer: ticks(mcp.ElicitationResponseActionAccept, map[string]any{"action_1": false, "action_2": true})}
		h, _ := reviewHarness(t, wiki.ReviewBefore, p, newModel(t))
		id := propose(h)
		out := h.ok("apply_plan", map[string]any{"plan_id": id, "selected": []any{1}})
		b, _ := json.Marshal(p.asked)
		if len(p.asked) != 1 || !strings.Contains(string(b), `"action_1":{"default":true`) || !strings.Contains(string(b), `"action_2":{"default":false`) {
			t.Fatalf("asked %s, want the agent's selected as the default ticks only", b)
		}
		if out["status"] != "applied" || out["applied"] != 1.0 || fileSHA(t, h.dir, "pages/epsilon.md") != "" || fileSHA(t, h.dir, "pages/zeta.md") == "" {
			t.Fatalf("result %v, want only the person's tick (zeta) applied", out)
		}
	})
}

// TestAfterModeMarksWrites: in mode after a write of a reviewed file is
// marked for the review queue; reads, log.md and mode off are not.
func TestAfterModeMarksWrites(t *testing.T) {
	h, _ := reviewHarness(t, wiki.ReviewAfter, nil, nil)
	h.ok("write_page", map[string]any{"title": "Eta", "content": "Eta is the seventh letter.\n"})
	if rec := teststore.LastCall(t, h.dir, "write_page"); rec == nil || rec.Extra[review.MarkKey] != "after" || tookOver(rec) {
		t.Fatalf("write_page audit line %+v, want extra review=after", rec)
	}
	h.ok("read_page", map[string]any{"page": "eta"})
	h.ok("append_log", map[string]any{"op": "note", "title": "a note"})
	for _, tool := range []string{"read_page", "append_log"} {
		if rec := teststore.LastCall(t, h.dir, tool); rec == nil || rec.Extra[review.MarkKey] != nil {
			t.Errorf("%s audit line %+v, want no review mark", tool, rec)
		}
	}
	lp := h.ok("load_project", map[string]any{})
	if sum, _ := lp["review"].(map[string]any); sum["mode"] != "after" || sum["unreviewed"] != 1.0 {
		t.Errorf("load_project review %v, want mode after and 1 unreviewed write", lp["review"])
	}
	off, _ := reviewHarness(t, wiki.ReviewOff, nil, nil)
	off.ok("write_page", map[string]any{"title": "Eta", "content": "Eta.\n"})
	if rec := teststore.LastCall(t, off.dir, "write_page"); rec == nil || rec.Extra[review.MarkKey] != nil {
		t.Fatalf("mode off: audit line %+v, want no review mark", rec)
	}
}

// tookOver reports a call the review took over (none in mode after).
func tookOver(rec *store.AuditRecord) bool { return rec.Extra["decision"] != nil }

// TestBeforeModePendingOutputsMatchSchemas: every reviewable tool's
// pending result (its output with empty fields and review) still matches
// the output schema it publishes ([harness.call] checks it).
func TestBeforeModePendingOutputsMatchSchemas(t *testing.T) {
	h, _ := reviewHarness(t, wiki.ReviewBefore, nil, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_page", map[string]any{"title": "Theta", "content": "Theta.\n"}},
		{"edit_page", map[string]any{"page": "alpha", "base_sha256": fileSHA(t, h.dir, "pages/alpha.md"), "op": "append", "heading": "Notes", "content": "More."}},
		{"move_page", map[string]any{"page": "beta", "slug": "second-letter"}},
		{"atomic_write_context", map[string]any{"content": "# Context\n\nLetters.\n"}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			before := reviewedFiles(t, h.dir)
			out := h.ok(c.tool, c.args)
			if rv := reviewOf(t, out); rv["status"] != "pending" || !strings.Contains(rv["message"].(string), "awaits review") {
				t.Fatalf("review %v, want pending", rv)
			}
			if after := reviewedFiles(t, h.dir); !equalMaps(before, after) {
				t.Fatalf("%s wrote in mode before:\nbefore %v\nafter  %v", c.tool, before, after)
			}
		})
	}
	// Tools that write no page or context.md run at once, as in mode off.
	for _, c := range []struct {
		tool string
		args map[string]any
		file string
	}{
		{"research_save", map[string]any{"topic": "letters", "content": "Alpha, then beta."}, "sources/research/letters.md"},
		{"file_answer", map[string]any{"question": "What is alpha?", "answer": "The first letter."}, ""},
	} {
		out := h.ok(c.tool, c.args)
		if out["review"] != nil {
			t.Errorf("%s: review %v, want none (it writes no reviewed file)", c.tool, out["review"])
		}
		if c.file != "" && fileSHA(t, h.dir, c.file) == "" {
			t.Errorf("%s: %s not written", c.tool, c.file)
		}
		if rec := teststore.LastCall(t, h.dir, c.tool); rec == nil || rec.Outcome != "ok" || rec.Extra["decision"] != nil {
			t.Errorf("%s: audit line %+v, want ok and no review decision", c.tool, rec)
		}
	}
}

type failingPerson struct{}

func (failingPerson) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return nil, context.DeadlineExceeded
}

// TestElicitationErrorLeavesPending: when the question in the editor gets
// no answer (an error, a timeout), nothing is written and the set stays
// pending for the review page or the CLI, and the result says so.
func TestElicitationErrorLeavesPending(t *testing.T) {
	h, d := reviewHarness(t, wiki.ReviewBefore, nil, nil)
	srv, _, err := NewServer(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClientWithOptions(srv, client.WithElicitationHandler(failingPerson{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "go-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	h.c = c
	out := h.ok("write_page", map[string]any{"title": "Iota", "content": "Iota.\n"})
	rv := reviewOf(t, out)
	if rv["status"] != "pending" || !strings.HasPrefix(rv["message"].(string), "change set #1 awaits review (") || !strings.Contains(rv["message"].(string), "llmwiki review approve 1") {
		t.Fatalf("review %v, want pending with why the editor did not ask", rv)
	}
	if fileSHA(t, h.dir, "pages/iota.md") != "" {
		t.Fatal("written without an answer")
	}
	if ps, _ := d.Review.Pending(); len(ps) != 1 {
		t.Fatalf("%d pending, want 1", len(ps))
	}
}

// TestBeforeModePageNamedIndex: a page named index (pages/index.md) is a
// page like any other, not the generated index.md at the root: in mode
// before its write waits for the person.
func TestBeforeModePageNamedIndex(t *testing.T) {
	h, _ := reviewHarness(t, wiki.ReviewBefore, nil, nil)
	out := h.ok("write_page", map[string]any{"title": "Index", "slug": "index", "content": "An agent's page named index.\n"})
	if rv := reviewOf(t, out); rv["status"] != "pending" {
		t.Fatalf("review %v, want pending", rv)
	}
	if fileSHA(t, h.dir, "pages/index.md") != "" {
		t.Fatal("pages/index.md written before the person approved")
	}
}
