package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourcesNameNeverReachesAPage: with a page pages/sources/x.md (with a
// stored version) and no file sources/x, every tool that names a file
// refuses "sources/x" as not found and leaves the page as it was; the page
// is still reached as "pages/sources/x". write_page and move_page refuse a
// new page named "sources/…".
func TestSourcesNameNeverReachesAPage(t *testing.T) {
	h := newHarness(t)
	v1 := h.ok("write_page", map[string]any{"title": "X", "slug": "pages/sources/x", "content": "one\n"})
	if v1["path"] != "pages/sources/x.md" {
		t.Fatalf("write_page pages/sources/x: %v", v1)
	}
	v2 := h.ok("write_page", map[string]any{"title": "X", "slug": "pages/sources/x", "content": "two\n", "base_sha256": v1["sha256"]})
	page := filepath.Join(h.dir, "pages", "sources", "x.md")
	before, _ := os.ReadFile(page)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_page", map[string]any{"page": "sources/x"}, "not_found"},
		{"read_page", map[string]any{"path": "sources/x"}, "not_found"},
		{"read_page", map[string]any{"page": "Sources/X"}, "not_found"},
		{"list_snapshots", map[string]any{"path": "sources/x"}, "not_found"},
		{"restore_snapshot", map[string]any{"path": "sources/x"}, "not_found"},
		{"move_page", map[string]any{"page": "sources/x", "slug": "elsewhere"}, "not_found"},
		{"edit_page", map[string]any{"page": "sources/x", "base_sha256": v2["sha256"], "op": "append", "heading": "More", "content": "more\n"}, "not_found"},
		{"edit_page", map[string]any{"page": "./sources/x", "base_sha256": v2["sha256"], "op": "append", "heading": "More", "content": "more\n"}, "not_found"},
		{"write_page", map[string]any{"title": "X", "slug": "sources/x", "content": "three\n", "base_sha256": v2["sha256"]}, "invalid"},
		{"write_page", map[string]any{"title": "Y", "slug": "sources/y", "content": "new\n"}, "invalid"},
		{"move_page", map[string]any{"page": "pages/sources/x", "slug": "sources/z"}, "invalid"},
	} {
		res := h.call(c.tool, c.args)
		if !res.IsError || !strings.HasPrefix(text(res), c.want+":") {
			t.Errorf("%s %v: want a %s error, got %s", c.tool, c.args, c.want, text(res))
		}
	}
	if after, _ := os.ReadFile(page); string(after) != string(before) {
		t.Errorf("the page pages/sources/x.md changed:\n%s", after)
	}
	for _, p := range []string{"pages/sources/y.md", "pages/sources/z.md", "sources/x", "sources/x.md"} {
		if _, err := os.Stat(filepath.Join(h.dir, filepath.FromSlash(p))); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	got := h.ok("read_page", map[string]any{"page": "pages/sources/x"})
	if got["path"] != "pages/sources/x.md" || got["content"] != "two\n" {
		t.Errorf("read_page pages/sources/x: %v", got)
	}
	list := h.ok("list_snapshots", map[string]any{"path": "pages/sources/x"})
	if list["path"] != "pages/sources/x.md" || list["total"] != float64(1) {
		t.Errorf("list_snapshots pages/sources/x: %v", list)
	}
}

// TestSourceEditedByHandThroughTools: a source saved with save_source and
// then edited by hand is an error in validate_structure (ok false), a line
// in load_project's problems, a lint_findings error and an integrity note
// in gather_sources.
func TestSourceEditedByHandThroughTools(t *testing.T) {
	h := newHarness(t)
	h.ok("save_source", map[string]any{"path": "notes.md", "content": "as saved\n"})
	if v := h.ok("validate_structure", map[string]any{}); v["ok"] != true {
		t.Fatalf("before: %v", v)
	}
	if err := os.WriteFile(filepath.Join(h.dir, "sources", "notes.md"), []byte("edited in a shell\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := h.ok("validate_structure", map[string]any{})
	probs, _ := v["problems"].([]any)
	found := false
	for _, p := range probs {
		m := p.(map[string]any)
		if m["kind"] == "source_modified" && m["path"] == "sources/notes.md" && m["severity"] == "error" {
			found = true
		}
	}
	if v["ok"] != false || !found {
		t.Errorf("validate_structure: %v", v)
	}
	lp := h.ok("load_project", map[string]any{})
	if ps, _ := lp["problems"].([]any); len(ps) == 0 || !strings.Contains(strings.Join(strs(ps), "\n"), "sources/notes.md was changed outside llmwiki") {
		t.Errorf("load_project problems: %v", lp["problems"])
	}
	lf := h.ok("lint_findings", map[string]any{"categories": []string{"source_modified"}})
	if fs, _ := lf["findings"].([]any); len(fs) != 1 || fs[0].(map[string]any)["path"] != "sources/notes.md" || fs[0].(map[string]any)["severity"] != "error" {
		t.Errorf("lint_findings: %v", lf["findings"])
	}
	g := h.ok("gather_sources", map[string]any{"mode": "all"})
	ss, _ := g["sources"].([]any)
	if len(ss) != 1 {
		t.Fatalf("gather_sources: %v", g["sources"])
	}
	if note, _ := ss[0].(map[string]any)["integrity"].(string); !strings.Contains(note, "changed outside llmwiki") {
		t.Errorf("gather_sources: %v", g["sources"])
	}
}

func strs(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}
