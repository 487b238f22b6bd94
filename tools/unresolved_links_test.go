package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWriteEditUnresolvedLinks: write_page and edit_page succeed and list
// each wikilink of the new text that leads to no file, with the page it
// probably meant by title or slug, the shown text kept; edit_page lists
// only the links the edit added.
func TestWriteEditUnresolvedLinks(t *testing.T) {
	h := newHarness(t)
	h.ok("write_page", map[string]any{"title": "Page Title", "content": "Intro.\n\n## Setup\n\nSteps.\n"})
	h.ok("write_page", map[string]any{"title": "Electron IPC", "slug": "ipc", "content": "Messages.\n"})

	type ul = map[string]any
	got := h.ok("write_page", map[string]any{"title": "Other",
		"content": "See [[Page Title]], [[page-title]], [[Nowhere]], ![[Page Title]], [[Page Title#Setup|the setup]] and [[electron  ipc]].\n"})
	want := []any{
		ul{"link": "[[Page Title]]", "suggestion": "[[page-title|Page Title]]"},
		ul{"link": "[[Nowhere]]"},
		ul{"link": "![[Page Title]]", "suggestion": "![[page-title|Page Title]]"},
		ul{"link": "[[Page Title#Setup|the setup]]", "suggestion": "[[page-title#Setup|the setup]]"},
		ul{"link": "[[electron  ipc]]", "suggestion": "[[ipc|electron  ipc]]"},
	}
	if !reflect.DeepEqual(got["unresolved_links"], want) {
		t.Errorf("write_page unresolved_links %#v, want %#v", got["unresolved_links"], want)
	}
	wantWarn := []any{
		"[[Page Title]] resolves to nothing; did you mean [[page-title|Page Title]]?",
		"[[Nowhere]] resolves to nothing; create the page or correct the link",
		"![[Page Title]] resolves to nothing; did you mean ![[page-title|Page Title]]?",
		"[[Page Title#Setup|the setup]] resolves to nothing; did you mean [[page-title#Setup|the setup]]?",
		"[[electron  ipc]] resolves to nothing; did you mean [[ipc|electron  ipc]]?",
	}
	if !reflect.DeepEqual(got["warnings"], wantWarn) {
		t.Errorf("write_page warnings %#v, want %#v", got["warnings"], wantWarn)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pages", "other.md")); err != nil {
		t.Fatalf("the page with unresolved links was not written: %v", err)
	}

	// edit_page: [[Nowhere]] was there once and is now twice, so one is new.
	got = h.ok("edit_page", map[string]any{"page": "other", "base_sha256": got["sha256"], "op": "append", "heading": "More",
		"content": "More on [[Nowhere]], [[Electron IPC]] and [[ipc]].\n"})
	want = []any{
		ul{"link": "[[Nowhere]]"},
		ul{"link": "[[Electron IPC]]", "suggestion": "[[ipc|Electron IPC]]"},
	}
	if !reflect.DeepEqual(got["unresolved_links"], want) {
		t.Errorf("edit_page unresolved_links %#v, want %#v", got["unresolved_links"], want)
	}

	// A write whose links all resolve lists none.
	got = h.ok("edit_page", map[string]any{"page": "other", "base_sha256": got["sha256"], "op": "append", "heading": "More", "content": "And [[ipc]].\n"})
	if v, ok := got["unresolved_links"]; ok {
		t.Errorf("edit_page with good links: unresolved_links %#v, want none", v)
	}
	got = h.ok("write_page", map[string]any{"title": "Clean", "content": "[[page-title]] [[Other]]\n"})
	if v, ok := got["unresolved_links"]; ok {
		t.Errorf("write_page with good links: unresolved_links %#v, want none", v)
	}
}
