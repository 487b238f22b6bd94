package tools

import (
	"testing"
)

// TestSearchWikiCountsPagesAndNotesSources checks search_wiki and
// load_project report index.pages as pages alone, and that a pages search
// finding nothing where sources match says so in note.
func TestSearchWikiCountsPagesAndNotesSources(t *testing.T) {
	st, dir, idx, quiet := indexedStore(t)
	h := &harness{t: t, dir: dir, store: st, c: connect(t, Deps{Store: st, Log: quiet, Search: idx}, Options{})}
	for _, title := range []string{"Alpha", "Beta", "Gamma"} {
		h.ok("write_page", map[string]any{"title": title, "content": title + " is about zebras.\n"})
	}
	h.ok("save_source", map[string]any{"path": "sources/one.md", "content": "# One\n\nA source about quokkas.\n"})
	h.ok("save_source", map[string]any{"path": "sources/two.md", "content": "# Two\n\nMore quokkas.\n"})

	res := h.ok("search_wiki", map[string]any{"query": "quokkas"})
	if hits, _ := res["hits"].([]any); len(hits) != 0 {
		t.Fatalf("pages search for quokkas: hits %v, want none", hits)
	}
	if got, want := res["note"], "no pages match; 2 sources match: search again with scope: sources"; got != want {
		t.Errorf("note = %v, want %q", got, want)
	}
	ri, _ := res["index"].(map[string]any)
	if ri["pages"] != 3.0 {
		t.Errorf("search_wiki index.pages = %v, want 3", ri["pages"])
	}
	res = h.ok("search_wiki", map[string]any{"query": "zebras"})
	if _, ok := res["note"]; ok {
		t.Errorf("pages match: note %v, want none", res["note"])
	}
	lp := h.ok("load_project", map[string]any{})
	if lidx, _ := lp["index"].(map[string]any); lidx["pages"] != 3.0 {
		t.Errorf("load_project index.pages = %v, want 3", lidx["pages"])
	}
}
