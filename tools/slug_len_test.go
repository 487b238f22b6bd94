package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestLongSlugRefusedNeverCut: a page or note name whose slug would exceed
// the 80-character limit is refused with a clear error naming a shorter
// slug to use, at every entry point that names something new (write_page
// by title or by slug, move_page, research_save), and nothing is written;
// before, 81 to 320 characters were cut silently. An 80-character slug is
// taken as given.
func TestLongSlugRefusedNeverCut(t *testing.T) {
	h := newHarness(t)
	words := strings.Repeat("electron context isolation ", 10) // 270 characters
	slug100 := strings.Repeat("abcdefghi-", 10)[:99] + "z"
	skip := func(rel string) bool { return rel == ".llmwiki" }
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"write_page", map[string]any{"title": words, "content": "# Long\n"}},
		{"write_page", map[string]any{"title": "Short", "slug": slug100, "content": "# Long\n"}},
		{"write_page", map[string]any{"title": "Short", "slug": "guides/" + slug100, "content": "# Long\n"}},
		{"write_page", map[string]any{"title": "Short", "slug": strings.Repeat("a", 5000), "content": "# Long\n"}},
		{"research_save", map[string]any{"topic": words, "content": "Findings."}},
	} {
		before := wikitest.TreeHashes(t, h.dir, skip)
		res := h.call(c.tool, c.args)
		msg := text(res)
		if !res.IsError || !strings.HasPrefix(msg, "invalid: ") || !strings.Contains(msg, "limit is 80") {
			t.Errorf("%s %.60v: %s", c.tool, c.args, msg)
		}
		if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, h.dir, skip)); len(d) > 0 {
			t.Errorf("%s: a refused call wrote %v", c.tool, d)
		}
	}
	if res := h.call("write_page", map[string]any{"title": words, "content": "# Long\n"}); !strings.Contains(text(res), `like "electron-context-isolation-electron-context-isolation-electron-context"`) {
		t.Errorf("the error names no shorter slug: %s", text(res))
	}

	// 80 characters exactly: written under that name.
	slug80 := slug100[:79] + "z"
	p := h.ok("write_page", map[string]any{"title": "Eighty", "slug": slug80, "content": "# Eighty\n"})
	if p["path"] != "pages/"+slug80+".md" {
		t.Errorf("80-character slug written as %v", p["path"])
	}
	if res := h.call("move_page", map[string]any{"page": slug80, "slug": slug100}); !res.IsError || !strings.Contains(text(res), "limit is 80") {
		t.Errorf("move_page to a 100-character slug: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pages", slug80+".md")); err != nil {
		t.Errorf("the refused move lost the page: %v", err)
	}
}
