package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
)

// TestListPagesWindow: the prefix (any case), tag, limit and offset pick
// the same pages, total and next offset as filtering the whole catalogue,
// also after writes change the catalogue between calls.
func TestListPagesWindow(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, p := range []struct{ slug, tag string }{
		{"En/Alpha", "x"}, {"en/beta", "y"}, {"EN/Gamma", "x"}, {"en/Ärger", "x"}, {"de/eins", "x"}, {"enough", "y"}, {"fr/un", "y"},
	} {
		// Written as Obsidian would: the store slugifies names it writes.
		file := filepath.Join(h.dir, "pages", filepath.FromSlash(p.slug)+".md")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("---\ntitle: "+p.slug+"\ntags: ["+p.tag+"]\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	slugs := func(out map[string]any) []string {
		var s []string
		for _, p := range out["pages"].([]any) {
			s = append(s, p.(map[string]any)["slug"].(string))
		}
		return s
	}
	cases := []struct {
		args  map[string]any
		want  []string
		total int
		next  int
	}{
		{map[string]any{"prefix": "en/", "limit": 2}, []string{"EN/Gamma", "En/Alpha"}, 4, 2},
		{map[string]any{"prefix": "EN/", "limit": 2, "cursor": "2"}, []string{"en/beta", "en/Ärger"}, 4, 0},
		{map[string]any{"prefix": "pages/en", "tag": "#X"}, []string{"EN/Gamma", "En/Alpha", "en/Ärger"}, 3, 0},
		{map[string]any{"prefix": "en/ä"}, []string{"en/Ärger"}, 1, 0},
		{map[string]any{"prefix": "en", "cursor": "9"}, nil, 5, 0},
		{map[string]any{"limit": 3, "cursor": "3"}, []string{"en/beta", "en/Ärger", "enough"}, 7, 6},
	}
	for i, c := range cases {
		out := h.ok("list_pages", c.args)
		next, _ := out["next_cursor"].(string)
		if got := slugs(out); !reflect.DeepEqual(got, c.want) || int(out["total"].(float64)) != c.total || next != NextCursor(c.next) {
			t.Errorf("case %d %v: pages %v total %v next %v; want %v %d %d", i, c.args, got, out["total"], next, c.want, c.total, c.next)
		}
	}
	// A write after a listing: the next listing sees it (the shared
	// catalogue slice is replaced, not edited under the first result).
	first, err := h.store.PagesShared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := fmt.Sprint(first)
	if _, err := h.store.WritePage(ctx, wiki.PageInput{Title: "Aardvark", Slug: "en/aardvark", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(first) != before {
		t.Error("a write changed a catalogue slice already handed out")
	}
	// The store put the page in the folder already there ("EN").
	if got := slugs(h.ok("list_pages", map[string]any{"prefix": "en/", "limit": 3})); !reflect.DeepEqual(got, []string{"EN/Gamma", "EN/aardvark", "En/Alpha"}) {
		t.Errorf("after a write: %v", got)
	}
}

// A page without an updated key is listed with its file's modification
// time; a page with one keeps it.
func TestListPagesUpdatedFallsBackToModTime(t *testing.T) {
	h := newHarness(t)
	mtime := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for name, text := range map[string]string{
		"plain.md": "# Plain\n\nbody\n",
		"dated.md": "---\ntitle: Dated\nupdated: 2024-01-02T03:04:05Z\n---\nbody\n",
	} {
		file := filepath.Join(h.dir, "pages", name)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{}
	for _, p := range h.ok("list_pages", map[string]any{})["pages"].([]any) {
		m := p.(map[string]any)
		got[m["slug"].(string)], _ = m["updated"].(string)
	}
	if got["plain"] != "2025-03-04T05:06:07Z" || got["dated"] != "2024-01-02T03:04:05Z" {
		t.Errorf("updated: %v", got)
	}
}
