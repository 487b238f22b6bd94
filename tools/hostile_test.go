package tools

import (
	"context"
	"os"
	"path/filepath"

	"encoding/base64"
	"github.com/llmwiki/llmwiki/wiki/review"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestHostileBeforeModeNoBypass: in review mode before, an agent without
// elicitation tries every write tool and path trick it has to change a
// page or context.md; none may change a file a person reviews.
func TestHostileBeforeModeNoBypass(t *testing.T) {
	h, _ := reviewHarness(t, wiki.ReviewBefore, nil, nil)
	before := reviewedFiles(t, h.dir)
	alpha := fileSHA(t, h.dir, "pages/alpha.md")
	ctxSHA := fileSHA(t, h.dir, "context.md")
	b64 := base64.StdEncoding.EncodeToString([]byte("# Evil\n\nOwned.\n"))
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"save_source", map[string]any{"path": "pages/evil.md", "content": "# Evil\n"}},
		{"save_source", map[string]any{"path": "sources/../pages/evil.md", "content": "# Evil\n"}},
		{"save_source", map[string]any{"path": "sources/../context.md", "content": "# Evil\n"}},
		{"save_source", map[string]any{"path": "sources/%2e%2e/pages/evil.md", "content": "# Evil\n"}},
		{"save_source", map[string]any{"path": "sources\\..\\pages\\evil.md", "content": "# Evil\n"}},
		{"save_source", map[string]any{"path": "context.md", "content": b64, "encoding": "base64"}},
		{"save_source", map[string]any{"path": "sources/a.md", "content": "# Source\n\nAlpha is great.\n"}},
		{"append_log", map[string]any{"op": "note", "title": "x\n# injected", "details": "- [[alpha]]"}},
		{"rebuild_index", map[string]any{}},
		{"research_save", map[string]any{"topic": "../../pages/evil", "content": "Owned."}},
		{"research_save", map[string]any{"topic": "../context", "content": "Owned."}},
		{"file_answer", map[string]any{"question": "q?", "answer": "a", "topic": "../../pages/alpha"}},
		{"write_page", map[string]any{"title": "Alpha", "content": "Owned.\n", "base_sha256": alpha}},
		{"write_page", map[string]any{"title": "ALPHA", "content": "Owned.\n"}},
		{"write_page", map[string]any{"title": "Älpha", "content": "Owned.\n"}},
		{"write_page", map[string]any{"title": "Evil", "path": "pages/EVIL.MD", "content": "Owned.\n"}},
		{"edit_page", map[string]any{"page": "alpha", "op": "append", "heading": "Notes", "content": "Owned."}},
		{"edit_page", map[string]any{"page": "ALPHA", "op": "set_frontmatter", "key": "title", "value": "Owned"}},
		{"move_page", map[string]any{"page": "alpha", "slug": "omega"}},
		{"move_page", map[string]any{"page": "alpha", "slug": "beta"}},
		{"atomic_write_context", map[string]any{"content": "# Owned\n", "base_sha256": ctxSHA}},
		{"atomic_write_context", map[string]any{"content": "# Owned\n"}},
		{"restore_snapshot", map[string]any{"path": "context.md"}},
		{"restore_snapshot", map[string]any{"path": "pages/alpha.md"}},
		{"restore_snapshot", map[string]any{"path": "pages/../context.md"}},
		{"restore_snapshot", map[string]any{"path": "guidelines.md"}},
		{"propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Evil", "content": "x\n"}}}, "approved": true}},
		{"propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "propose_changes", "arguments": map[string]any{}}}}},
		{"propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "save_source", "arguments": map[string]any{"path": "sources/x.md", "content": "x"}}}}},
	}
	for _, c := range calls {
		r := h.call(c.tool, c.args)
		now := reviewedFiles(t, h.dir)
		if !equalMaps(before, now) {
			t.Errorf("%s %v (error=%v %q) changed a reviewed file in mode before:\nbefore %v\nafter  %v", c.tool, c.args, r.IsError, text(r), before, now)
			before = now
		}
	}
	_ = strings.TrimSpace
}

// TestHostileApplyPlanOnChangeSet: apply_plan is the agent's own tool; a
// change set's id passed to it must neither apply, fail nor discard the
// set: only the person ends a change set.
func TestHostileApplyPlanOnChangeSet(t *testing.T) {
	for _, mode := range []string{wiki.ReviewBefore, wiki.ReviewAfter} {
		for _, sel := range [][]any{{}, {1.0}} {
			t.Run(mode, func(t *testing.T) {
				h, d := reviewHarness(t, mode, nil, nil)
				out := h.ok("propose_changes", map[string]any{"takeaways": []any{"Gamma."}, "actions": []any{
					map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Gamma", "content": "Gamma.\n"}},
				}})
				id, _ := reviewOf(t, out)["id"].(string)
				r := h.call("apply_plan", map[string]any{"plan_id": id, "selected": sel})
				p, err := d.Review.Get(id)
				if err != nil {
					t.Fatal(err)
				}
				if p.Status != "pending" || fileSHA(t, h.dir, "pages/gamma.md") != "" {
					t.Fatalf("apply_plan %v on change set %s (error=%v %q): set is %s, pages/gamma.md written=%v; want it pending and nothing written",
						sel, id, r.IsError, text(r), p.Status, fileSHA(t, h.dir, "pages/gamma.md") != "")
				}
			})
		}
	}
}

// TestHostileHeldFileOtherNames: a pending change set holds pages/alpha.md
// and the new pages/gamma.md; in mode after an agent's direct writes
// reach them by every other name it has (title, case, a move onto or
// away, a restore) and must all be refused.
func TestHostileHeldFileOtherNames(t *testing.T) {
	h, _ := reviewHarness(t, wiki.ReviewAfter, nil, nil)
	alpha := fileSHA(t, h.dir, "pages/alpha.md")
	h.ok("propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{
		map[string]any{"tool": "edit_page", "arguments": map[string]any{"page": "alpha", "base_sha256": alpha, "op": "append", "heading": "Notes", "content": "Proposed."}},
		map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Gamma", "content": "Proposed gamma.\n"}},
	}})
	before := reviewedFiles(t, h.dir)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"edit_page", map[string]any{"page": "Alpha", "op": "append", "heading": "Notes", "content": "Direct."}},
		{"edit_page", map[string]any{"page": "pages/ALPHA.md", "op": "append", "heading": "Notes", "content": "Direct."}},
		{"write_page", map[string]any{"title": "ALPHA", "content": "Direct.\n", "base_sha256": alpha}},
		{"write_page", map[string]any{"title": "Alpha", "slug": "Alpha", "content": "Direct.\n", "base_sha256": alpha}},
		{"write_page", map[string]any{"title": "GAMMA", "content": "Direct.\n"}},
		{"write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "Direct.\n"}},
		{"write_page", map[string]any{"title": "Gámma", "content": "Direct.\n"}},
		{"move_page", map[string]any{"page": "alpha", "slug": "omega"}},
		{"move_page", map[string]any{"page": "beta", "slug": "gamma"}},
		{"move_page", map[string]any{"page": "beta", "slug": "Gamma"}},
		{"restore_snapshot", map[string]any{"path": "pages/alpha.md"}},
	}
	for _, c := range calls {
		r := h.call(c.tool, c.args)
		now := reviewedFiles(t, h.dir)
		for _, f := range []string{"pages/alpha.md", "pages/gamma.md"} {
			if before[f] != now[f] {
				t.Errorf("%s %v (error=%v %q) changed held %s", c.tool, c.args, r.IsError, text(r), f)
			}
		}
		for f := range now {
			if before[f] == "" && strings.EqualFold(f, "pages/gamma.md") {
				t.Errorf("%s %v created %s, a name of the held new page gamma", c.tool, c.args, f)
			}
		}
		before = now
	}
}

// TestHostileProposeInput: propose_changes with hostile input is refused
// with a message, never a crash, a hang or a saved set. (Invalid UTF-8
// cannot reach a tool: JSON decoding turns it into U+FFFD.)
func TestHostileProposeInput(t *testing.T) {
	h, d := reviewHarness(t, wiki.ReviewAfter, nil, nil)
	wp := func(i int) any {
		return map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "P" + strings.Repeat("x", i%7) + string(rune('a'+i%26)), "content": "x\n"}}
	}
	many := []any{}
	for i := 0; i < 1000; i++ {
		many = append(many, wp(i))
	}
	var nested any = map[string]any{}
	for i := 0; i < 5000; i++ {
		nested = map[string]any{"a": nested}
	}
	cases := []map[string]any{
		{"takeaways": []any{"x"}, "actions": many},
		{"takeaways": []any{strings.Repeat("long ", 100000)}, "actions": []any{wp(1)}},
		{"takeaways": []any{strings.Repeat("line\n", 10000)}, "actions": []any{wp(1)}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": nested}}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "../../x", "arguments": map[string]any{}}}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": "title=x"}}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": []any{1, 2}}}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": nil}}},
		{"takeaways": []any{"x"}, "actions": []any{map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "W", "content": "x\n"}, "why": "a\nb"}}},
	}
	for i, c := range cases {
		r := h.call("propose_changes", c)
		if !r.IsError {
			t.Errorf("case %d: propose_changes accepted hostile input: %.300s", i, text(r))
		}
		if msg := text(r); strings.Contains(msg, h.dir) || strings.Contains(msg, "goroutine") {
			t.Errorf("case %d: error leaks a host path or a stack: %.300s", i, msg)
		}
	}
	if ps, _ := d.Review.Pending(); len(ps) != 0 {
		t.Fatalf("%d sets saved from hostile input", len(ps))
	}
}

// TestHostileApprovalWritesOnlyWhatWasShown: a change set moves alpha;
// after the proposal, an agent writes a page linking [[alpha]]. The
// approval must not write a file the set did not propose (the person
// never saw gamma's change): the action is refused as changed instead.
func TestHostileApprovalWritesOnlyWhatWasShown(t *testing.T) {
	h, d := reviewHarness(t, wiki.ReviewAfter, nil, nil)
	out := h.ok("propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{
		map[string]any{"tool": "move_page", "arguments": map[string]any{"page": "alpha", "slug": "omega"}},
	}})
	id, _ := reviewOf(t, out)["id"].(string)
	h.ok("write_page", map[string]any{"title": "Gamma", "content": "See [[alpha]].\n"})
	gamma := fileSHA(t, h.dir, "pages/gamma.md")
	p, err := d.Review.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	proposed := map[string]bool{}
	for _, f := range p.Actions[0].Files {
		proposed[f.Path] = true
	}
	if proposed["pages/gamma.md"] {
		t.Fatalf("gamma in the proposal's files %v", p.Actions[0].Files)
	}
	if _, err := d.Review.Approve(context.Background(), id, nil, review.ByCLI); err != nil {
		t.Logf("approve: %v", err)
	}
	if got := fileSHA(t, h.dir, "pages/gamma.md"); got != gamma {
		b, _ := os.ReadFile(filepath.Join(h.dir, "pages/gamma.md"))
		t.Fatalf("the approval of %s rewrote pages/gamma.md, a file it never proposed (files %v); gamma now:\n%s", p.Name(), p.Actions[0].Files, b)
	}
}

// TestHostileRevert: a revert never clobbers a later change, runs once,
// and never undoes an accepted write; a revert of a move puts back the
// page and the links it rewrote.
func TestHostileRevert(t *testing.T) {
	ctx := context.Background()
	h, d := reviewHarness(t, wiki.ReviewAfter, nil, nil)
	queued := func() []review.Write {
		ws, _, _, err := d.Review.Queue(100, "")
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	h.ok("write_page", map[string]any{"title": "Gamma", "content": "## Notes\n\nSee [[alpha]].\n"})
	h.ok("move_page", map[string]any{"page": "alpha", "slug": "omega"})
	h.ok("atomic_write_context", map[string]any{"content": "# Context\n\nOne.\n", "base_sha256": fileSHA(t, h.dir, "context.md")})
	ws := queued()
	if len(ws) != 3 {
		t.Fatalf("queue %+v, want 3 writes", ws)
	}
	byTool := map[string]string{}
	for _, w := range ws {
		byTool[w.Tool] = w.ID
	}
	// A later write to gamma: reverting the move (which rewrote gamma's
	// link) must not clobber it.
	h.ok("edit_page", map[string]any{"page": "gamma", "base_sha256": fileSHA(t, h.dir, "pages/gamma.md"), "op": "append", "heading": "Notes", "content": "Later."})
	later := fileSHA(t, h.dir, "pages/gamma.md")
	if later == "" {
		t.Skip("the later edit did not apply; adjust the fixture")
	}
	if _, err := d.Review.Revert(ctx, byTool["move_page"], review.ByWeb); err == nil {
		t.Errorf("reverting the move clobbered a later change to gamma")
	}
	if fileSHA(t, h.dir, "pages/gamma.md") != later || fileSHA(t, h.dir, "pages/omega.md") == "" {
		t.Errorf("a refused revert changed files")
	}
	// context.md: revert once, then again.
	c0 := fileSHA(t, h.dir, "context.md")
	if _, err := d.Review.Revert(ctx, byTool["atomic_write_context"], review.ByWeb); err != nil {
		t.Fatalf("revert context.md: %v", err)
	}
	c1 := fileSHA(t, h.dir, "context.md")
	if c1 == c0 {
		t.Fatal("revert left context.md as the write made it")
	}
	if _, err := d.Review.Revert(ctx, byTool["atomic_write_context"], review.ByWeb); err == nil || fileSHA(t, h.dir, "context.md") != c1 {
		t.Errorf("a second revert of one write was not refused (%v)", err)
	}
	// An accepted write cannot be reverted.
	if err := d.Review.Accept(ctx, []string{byTool["write_page"]}, review.ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Review.Revert(ctx, byTool["write_page"], review.ByWeb); err == nil {
		t.Errorf("an accepted write was reverted")
	}
	// A reviewer that is not a person: refused, as Approve and Decline
	// refuse one.
	for _, who := range []string{"", "agent"} {
		if _, err := d.Review.Revert(ctx, byTool["write_page"], who); err == nil || !strings.Contains(err.Error(), "reviewer") {
			t.Errorf("a revert by reviewer %q: %v, want refused for the reviewer", who, err)
		}
		if err := d.Review.Accept(ctx, []string{byTool["move_page"]}, who); err == nil {
			t.Errorf("an accept by reviewer %q was taken", who)
		}
		if n, err := d.Review.AcceptAll(ctx, who, ""); err == nil {
			t.Errorf("accept-all by reviewer %q took %d writes", who, n)
		}
	}
}

// TestHostileElicitationAnswer: an accept whose content ticks nothing
// valid (strings, numbers, keys of actions that do not exist) writes
// nothing: only a boolean true of an existing action approves it.
func TestHostileElicitationAnswer(t *testing.T) {
	for i, content := range []map[string]any{
		{"action_1": "true", "action_2": 1, "action_99": true, "action_0": true, "approved": true, "selected": []any{1, 2}},
		{"action_1": false, "action_2": "yes", "action_-1": true},
	} {
		p := &person{answer: ticks(mcp.ElicitationResponseActionAccept, content)}
		h, _ := reviewHarness(t, wiki.ReviewBefore, p, nil)
		r := h.call("propose_changes", map[string]any{"takeaways": []any{"x"}, "actions": []any{
			map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Gamma", "content": "Gamma.\n"}},
			map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Delta", "content": "Delta.\n"}},
		}})
		if fileSHA(t, h.dir, "pages/gamma.md") != "" || fileSHA(t, h.dir, "pages/delta.md") != "" {
			t.Errorf("case %d: answer %v wrote a page (%q)", i, content, text(r))
		}
	}
}
