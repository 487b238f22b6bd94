package tools

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lfOnly finds a line end without its "\r".
var lfOnly = regexp.MustCompile(`(^|[^\r])\n`)

// TestCRLFPageKeepsCRLF: a page written with "\r\n" line ends keeps them on
// every line through every edit_page op (each rewrites the frontmatter's
// updated stamp), a frontmatter merge, and write_page with new text sent
// with "\n"; a CRLF context.md keeps them through atomic_write_context. An
// LF page stays LF.
func TestCRLFPageKeepsCRLF(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(h.dir, "pages", "crlf.md")
	os.WriteFile(p, []byte("---\r\ntitle: CRLF page\r\nsummary: Windows line ends\r\nupdated: 2026-01-01T00:00:00Z\r\n---\r\n# CRLF page\r\n\r\n## Basics\r\n\r\nLine one.\r\nLine two.\r\n"), 0o644)
	sha := h.ok("read_page", map[string]any{"page": "crlf"})["sha256"]
	check := func(what, path string, want ...string) {
		t.Helper()
		b, _ := os.ReadFile(path)
		if lfOnly.Match(b) || !strings.HasPrefix(string(b), "---\r\n") {
			t.Errorf("%s: a line lost its \\r:\n%q", what, b)
		}
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: %q lacks %q", what, b, w)
			}
		}
	}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"op": "frontmatter", "frontmatter": map[string]any{"summary": "changed", "status": "draft", "tags": []any{"a", "b"}}}, []string{"summary: changed\r\n", "status: draft\r\n", "tags:\r\n  - a\r\n  - b\r\n"}},
		{map[string]any{"op": "append", "heading": "Basics", "content": "Line three.\nLine four."}, []string{"Line two.\r\n\r\nLine three.\r\nLine four.\r\n"}},
		{map[string]any{"op": "insert_before", "heading": "Basics", "content": "## Intro\n\nFirst."}, []string{"## Intro\r\n\r\nFirst.\r\n"}},
		{map[string]any{"op": "find_replace", "find": "Line one.", "replace": "Line 1.\nLine 1b.", "count": 1}, []string{"Line 1.\r\nLine 1b.\r\n"}},
		{map[string]any{"op": "add_links", "links": []any{"index"}}, []string{"## Related\r\n\r\n- [[index]]\r\n"}},
	} {
		c.args["page"], c.args["base_sha256"] = "crlf", sha
		sha = h.ok("edit_page", c.args)["sha256"]
		check("edit_page "+c.args["op"].(string), p, c.want...)
	}
	w := h.ok("write_page", map[string]any{"title": "CRLF page", "slug": "crlf", "base_sha256": sha, "summary": "rewritten", "content": "# CRLF page\n\nNew body.\n"})
	check("write_page", p, "summary: rewritten\r\n", "# CRLF page\r\n\r\nNew body.\r\n")
	if w["sha256"] != h.ok("read_page", map[string]any{"page": "crlf"})["sha256"] {
		t.Errorf("write_page's sha256 is not the file's")
	}

	ctxPath := filepath.Join(h.dir, "context.md")
	os.WriteFile(ctxPath, []byte("---\r\nbuilt_by: a person\r\nnote: kept\r\n---\r\n# Context\r\n\r\nOld.\r\n"), 0o644)
	h.ok("atomic_write_context", map[string]any{"content": "# Context\n\nNew synthesis.\n"})
	check("atomic_write_context", ctxPath, "note: kept\r\n", "# Context\r\n\r\nNew synthesis.\r\n")

	lf := h.ok("write_page", map[string]any{"title": "LF page", "content": "# LF page\n\nText.\n"})
	h.ok("edit_page", map[string]any{"page": "lf-page", "base_sha256": lf["sha256"], "op": "append", "heading": "LF page", "content": "More."})
	if b, _ := os.ReadFile(filepath.Join(h.dir, "pages", "lf-page.md")); strings.Contains(string(b), "\r") || !strings.Contains(string(b), "Text.\n\nMore.\n") {
		t.Errorf("the LF page after an edit:\n%q", b)
	}
}
