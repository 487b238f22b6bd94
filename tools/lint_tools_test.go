package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkTools drives read_page backlinks, edit_page, move_page and
// lint_findings over MCP.
func TestLinkTools(t *testing.T) {
	h := newHarness(t)
	os.WriteFile(filepath.Join(h.dir, "sources", "ipc.md"), []byte("# IPC\n\nContext isolation is off by default in every Electron release.\n"), 0o644)
	ipc := h.ok("write_page", map[string]any{"title": "Electron IPC", "summary": "How processes talk", "sources": []any{"sources/ipc.md"},
		"content": "# Electron IPC\n\n## Basics\n\nContext isolation is on by default since Electron 12.\n"})
	h.ok("write_page", map[string]any{"title": "Security", "summary": "Hardening", "sources": []any{"sources/ipc.md"},
		"content": "# Security\n\nRead [[electron-ipc#Basics]] first; `[[electron-ipc]]` in code is not a link.\n"})

	// read_page returns backlinks.
	r := h.ok("read_page", map[string]any{"page": "electron-ipc"})
	bl, _ := r["backlinks"].([]any)
	froms := []string{}
	for _, b := range bl {
		froms = append(froms, b.(map[string]any)["path"].(string))
	}
	if strings.Join(froms, " ") != "index.md pages/security.md" || r["backlinks_total"].(float64) != 2 {
		t.Errorf("backlinks %v", r["backlinks"])
	}

	// edit_page: a stale base is a conflict; a good one appends.
	if res := h.call("edit_page", map[string]any{"page": "electron-ipc", "base_sha256": strings.Repeat("0", 64), "op": "append", "heading": "Basics", "content": "x"}); !res.IsError || !strings.HasPrefix(text(res), "conflict: ") {
		t.Errorf("stale edit: %s", text(res))
	}
	e := h.ok("edit_page", map[string]any{"page": "electron-ipc", "base_sha256": ipc["sha256"], "op": "add_links", "links": []any{"security"}})
	if e["changed"] != true || !strings.HasPrefix(e["snapshot"].(string), ".llmwiki/snapshots/pages/electron-ipc.md/") {
		t.Errorf("edit %v", e)
	}
	if res := h.call("edit_page", map[string]any{"page": "electron-ipc", "base_sha256": e["sha256"], "op": "find_replace", "find": "Electron", "replace": "E", "count": 1}); !res.IsError || !strings.Contains(text(res), "not the 1 you expected") {
		t.Errorf("count mismatch: %s", text(res))
	}

	// move_page rewrites the link in security.md, keeping its heading.
	m := h.ok("move_page", map[string]any{"page": "electron-ipc", "slug": "ipc-in-electron"})
	if m["path"] != "pages/ipc-in-electron.md" || m["links_rewritten"].(float64) != 1 {
		t.Errorf("move %v", m)
	}
	sec, _ := os.ReadFile(filepath.Join(h.dir, "pages", "security.md"))
	if !strings.Contains(string(sec), "Read [[ipc-in-electron#Basics]] first; `[[electron-ipc]]` in code") {
		t.Errorf("security.md:\n%s", sec)
	}

	// lint_findings: the wiki is healthy but for one orphan-free, sourced
	// state; a submitted contradiction is verified, a made-up one is not.
	sl := h.ok("submit_lint_findings", map[string]any{
		"findings": []any{
			map[string]any{"kind": "contradiction", "message": "the page and its source disagree on the default",
				"evidence": []any{
					map[string]any{"path": "pages/ipc-in-electron.md", "quote": "Context isolation is on by default since Electron 12"},
					map[string]any{"path": "sources/ipc.md", "quote": "Context isolation is OFF by default in every Electron release"},
				}},
			map[string]any{"kind": "stale_claim", "message": "made up", "evidence": []any{map[string]any{"path": "pages/security.md", "quote": "Electron 30 removed remote entirely"}}},
		},
	})
	sub := sl["submitted"].([]any)
	if sub[0].(map[string]any)["verified"] != true || sub[1].(map[string]any)["verified"] != false || sl["unverified"].(float64) != 1 {
		t.Errorf("submitted %v", sl)
	}
	l := h.ok("lint_findings", map[string]any{})
	if l["unverified"].(float64) != 1 || l["severities"].(map[string]any)["error"].(float64) != 0 {
		t.Errorf("lint %v", l)
	}
	var staleID string
	for _, f := range l["findings"].([]any) {
		fm := f.(map[string]any)
		if fm["kind"] == "stale_claim" {
			staleID = fm["id"].(string)
		}
	}
	if d := h.ok("dismiss_lint_findings", map[string]any{"dismiss": []any{staleID}, "reason": "checked by hand"}); fmt.Sprint(d["dismissed_ids"]) != "["+staleID+"]" {
		t.Errorf("dismiss %v", d)
	}
	l2 := h.ok("lint_findings", map[string]any{"categories": []any{"stale_claim", "contradiction"}})
	if l2["dismissed"].(float64) != 1 || len(l2["findings"].([]any)) != 1 {
		t.Errorf("after dismiss %v", l2)
	}
	if res := h.call("dismiss_lint_findings", map[string]any{"dismiss": []any{"000000000000"}}); !res.IsError || !strings.HasPrefix(text(res), "not_found: ") {
		t.Errorf("unknown id: %s", text(res))
	}
	if d := h.ok("dismiss_lint_findings", map[string]any{"undismiss": []any{staleID}}); d["undismissed"].(float64) != 1 {
		t.Errorf("undismiss %v", d)
	}
	if l3 := h.ok("lint_findings", map[string]any{"categories": []any{"stale_claim"}}); l3["dismissed"].(float64) != 0 || len(l3["findings"].([]any)) != 1 {
		t.Errorf("after undismiss %v", l3)
	}
	// Bad input: quotes of 7 and 301 characters and a path outside are
	// unverified evidence; 1,000 quotes and unknown kinds are errors.
	l3 := h.ok("submit_lint_findings", map[string]any{"findings": []any{
		map[string]any{"kind": "gap", "message": "m", "evidence": []any{
			map[string]any{"path": "pages/security.md", "quote": "Read [["},
			map[string]any{"path": "pages/security.md", "quote": strings.Repeat("x", 301)},
			map[string]any{"path": "../outside.md", "quote": "some words here"},
			map[string]any{"path": "pages/none.md", "quote": "some words here"},
		}},
	}})
	ev := l3["submitted"].([]any)[0].(map[string]any)["evidence"].([]any)
	for i, want := range []string{"shorter than 8", "longer than 300", "leaves the wiki root", "does not exist"} {
		e := ev[i].(map[string]any)
		if e["verified"] != false || !strings.Contains(e["reason"].(string), want) {
			t.Errorf("evidence %d: %v, want reason ~%q", i, e, want)
		}
	}
	many := []any{}
	for i := 0; i < 1000; i++ {
		many = append(many, map[string]any{"path": fmt.Sprintf("pages/p%03d.md", i), "quote": "some words here"})
	}
	if res := h.call("submit_lint_findings", map[string]any{"findings": []any{map[string]any{"kind": "gap", "message": "m", "evidence": many}}}); !res.IsError || !strings.Contains(text(res), "at most 20") || !strings.Contains(text(res), "names 1000") {
		t.Errorf("1,000 files: %s", text(res))
	}
	if res := h.call("submit_lint_findings", map[string]any{"findings": []any{map[string]any{"kind": "orphan_page", "message": "m", "evidence": many[:1]}}}); !res.IsError {
		t.Errorf("deterministic kind submitted: %s", text(res))
	}
	if res := h.call("lint_findings", map[string]any{"categories": []any{"nope"}}); !res.IsError || !strings.Contains(text(res), "unknown lint category") {
		t.Errorf("bad category: %s", text(res))
	}
}
