package tools

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
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
