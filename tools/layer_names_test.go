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
	v1 := h.ok("write_page", map[string]any{"title": "X", "slug": "pages/sources/x", "body": "one\n"})
	if v1["path"] != "pages/sources/x.md" {
		t.Fatalf("write_page pages/sources/x: %v", v1)
	}
	v2 := h.ok("write_page", map[string]any{"title": "X", "slug": "pages/sources/x", "body": "two\n", "base_sha256": v1["sha256"]})
	page := filepath.Join(h.dir, "pages", "sources", "x.md")
	before, _ := os.ReadFile(page)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_page", map[string]any{"slug": "sources/x"}, "not_found"},
		{"read_page", map[string]any{"path": "sources/x"}, "not_found"},
		{"read_page", map[string]any{"slug": "Sources/X"}, "not_found"},
		{"list_snapshots", map[string]any{"path": "sources/x"}, "not_found"},
		{"restore_snapshot", map[string]any{"path": "sources/x"}, "not_found"},
		{"move_page", map[string]any{"from": "sources/x", "to": "elsewhere"}, "not_found"},
		{"edit_page", map[string]any{"page": "sources/x", "base_sha256": v2["sha256"], "op": "append", "heading": "More", "content": "more\n"}, "not_found"},
		{"edit_page", map[string]any{"page": "./sources/x", "base_sha256": v2["sha256"], "op": "append", "heading": "More", "content": "more\n"}, "not_found"},
		{"write_page", map[string]any{"title": "X", "slug": "sources/x", "body": "three\n", "base_sha256": v2["sha256"]}, "invalid"},
		{"write_page", map[string]any{"title": "Y", "slug": "sources/y", "body": "new\n"}, "invalid"},
		{"move_page", map[string]any{"from": "pages/sources/x", "to": "sources/z"}, "invalid"},
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
	got := h.ok("read_page", map[string]any{"slug": "pages/sources/x"})
	if got["path"] != "pages/sources/x.md" || got["body"] != "two\n" {
		t.Errorf("read_page pages/sources/x: %v", got)
	}
	list := h.ok("list_snapshots", map[string]any{"path": "pages/sources/x"})
	if list["path"] != "pages/sources/x.md" || list["total"] != float64(1) {
		t.Errorf("list_snapshots pages/sources/x: %v", list)
	}
}
