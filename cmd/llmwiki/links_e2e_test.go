package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestLinksEndToEnd drives backlinks, lint_findings, edit_page and
// move_page over stdio with the TypeScript SDK on the English Obsidian
// Help vault as pages/, then checks the disk: every rewritten file, the
// moved page, snapshots, audit lines, no temp files.
func TestLinksEndToEnd(t *testing.T) {
	vault := wikitest.Corpus(t, "obsidian-help/en")
	bin := binary(t)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	if n := wikitest.CopyTree(t, vault, filepath.Join(root, "pages"), ".md"); n != 173 {
		t.Fatalf("copied %d pages", n)
	}
	out := node(t, "links_flow.mjs", "--bin", bin, "--root", root)
	var s struct {
		Calls          int      `json:"calls"`
		GraphBacklinks int      `json:"graph_backlinks"`
		MovedTo        string   `json:"moved_to"`
		LinksRewritten int      `json:"links_rewritten"`
		Rewritten      []string `json:"rewritten"`
		LinksAdded     []string `json:"links_added"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	// Six pages link to Graph view by name ([[Graph view]]), index.md is
	// regenerated, and Tabs.md got one more from edit_page.
	if s.GraphBacklinks < 6 || s.LinksRewritten < 7 || len(s.Rewritten) < 6 {
		t.Errorf("summary %+v", s)
	}
	for _, f := range s.Rewritten {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "[[Graph view]]") || strings.Contains(string(b), "[[Graph view|") || strings.Contains(string(b), "[[Graph view#") {
			t.Errorf("%s still links to the old name", f)
		}
		if !strings.Contains(string(b), "[[Graph]]") && !strings.Contains(string(b), "[[Graph|") && !strings.Contains(string(b), "[[Graph#") {
			t.Errorf("%s does not link to the new name", f)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "Plugins", "Graph view.md")); !os.IsNotExist(err) {
		t.Error("the old file is still there")
	}
	if tf := teststore.TempFiles(root); len(tf) > 0 {
		t.Errorf("temp files left: %v", tf)
	}
	calls := teststore.AuditLines(t, root)
	if len(calls) != s.Calls {
		t.Errorf("audit has %d lines, the client made %d calls", len(calls), s.Calls)
	}
	var move *store.AuditRecord
	for i := range calls {
		if calls[i].Tool == "move_page" {
			move = &calls[i]
		}
	}
	if move == nil || move.Outcome != "ok" || len(move.Writes) < len(s.Rewritten)+1 || len(move.Snapshots) < len(s.Rewritten) {
		t.Fatalf("move_page audit line: %+v", move)
	}
	for _, snap := range move.Snapshots {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(snap))); err != nil {
			t.Errorf("snapshot %s: %v", snap, err)
		}
	}
}
