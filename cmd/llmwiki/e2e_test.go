package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestStdioEndToEnd drives the built binary over stdio with the official
// TypeScript MCP SDK on a real wiki (the English Obsidian Help vault as
// sources), then checks the disk: snapshots, audit lines, containment, no
// temp files.
func TestStdioEndToEnd(t *testing.T) {
	vault := wikitest.Corpus(t, "obsidian-help/en")
	bin := binary(t)
	parent := t.TempDir()
	root := filepath.Join(parent, "wiki")
	// A sibling whose name starts with the root's name: a prefix check
	// ("/x/wiki" vs "/x/wiki-evil") must not let anything reach it.
	sibling := filepath.Join(parent, "wiki-evil")
	if err := os.MkdirAll(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sibling, "keep.md"), []byte("untouched\n"), 0o644)
	initWiki(t, root)
	n := wikitest.CopyTree(t, vault, filepath.Join(root, "sources"), ".md")
	if n != 173 {
		t.Fatalf("copied %d vault files, want 173", n)
	}
	outside := func() map[string]string {
		return wikitest.TreeHashes(t, parent, func(rel string) bool { return rel == "wiki" })
	}
	before := outside()

	out := node(t, "stdio_flow.mjs", "--bin", bin, "--root", root, "--sources", strconv.Itoa(n))
	var summary struct {
		Calls int      `json:"calls"`
		Pages []string `json:"pages"`
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("flow summary: %v\n%s", err, out)
	}

	if d := wikitest.DiffHashes(before, outside()); len(d) > 0 {
		t.Errorf("files outside the root changed: %v", d)
	}
	if tf := teststore.TempFiles(root); len(tf) > 0 {
		t.Errorf("temp files left: %v", tf)
	}
	calls := teststore.AuditLines(t, root)
	if len(calls) != summary.Calls {
		t.Errorf("audit has %d lines, the client made %d tool calls", len(calls), summary.Calls)
	}
	for _, c := range calls {
		if c.Client != "llmwiki-e2e 1.0.0" || c.Session == "" || c.Tool == "" || (c.Outcome != "ok" && c.Outcome != "error") {
			t.Errorf("audit line lacks identity or outcome: %+v", c)
		}
	}
	checkWrites(t, root, calls)
	log, _ := os.ReadFile(filepath.Join(root, "log.md"))
	if !strings.Contains(string(log), "] build | Folded the Obsidian Help vault") {
		t.Errorf("log.md lacks the entry:\n%s", log)
	}
	if strings.Contains(string(log), "\n## [2000-01-01 00:00]") {
		t.Errorf("details forged a second log entry:\n%s", log)
	}
}

// checkWrites checks the audit lines of a flow against the disk: every
// replaced version has its snapshot, and every file's last audited
// sha256_after is what is on disk.
func checkWrites(t *testing.T, root string, calls []store.AuditRecord) {
	t.Helper()
	snapshotsOf := func(rel string) map[string]bool {
		hashes := map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "snapshots", filepath.FromSlash(rel), "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			hashes[store.SHA256Hex(b)] = true
		}
		return hashes
	}
	last := map[string]string{}
	replaced := 0
	for _, c := range calls {
		for _, w := range c.Writes {
			if w.After == "" && w.Before == "" {
				t.Errorf("write record without hashes: %+v", w)
			}
			last[w.Path] = w.After
			layer := wiki.LayerOf(w.Path)
			if w.Before == "" || layer == wiki.LayerIndex || layer == wiki.LayerLog || layer == wiki.LayerResearch {
				continue // created, derived, or append-only (the old bytes are a prefix of the new)
			}
			replaced++
			if !snapshotsOf(w.Path)[w.Before] {
				t.Errorf("no snapshot of %s with sha256 %s", w.Path, w.Before)
			}
		}
	}
	if replaced < 3 { // daily-notes.md once, context.md twice
		t.Errorf("only %d replaced versions seen in the audit log", replaced)
	}
	for p, h := range last {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || store.SHA256Hex(b) != h {
			t.Errorf("%s on disk does not match its last audited sha256_after", p)
		}
	}
}

// TestSearchEndToEnd drives search_wiki through the built binary with the
// TypeScript SDK on a wiki whose pages are the English Obsidian Help vault,
// then checks the index is on disk and every call was audited.
func TestSearchEndToEnd(t *testing.T) {
	vault := wikitest.Corpus(t, "obsidian-help/en")
	bin := binary(t)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	n := wikitest.CopyTree(t, vault, filepath.Join(root, "pages", "obsidian-help", "en"), ".md")
	out := node(t, "search_flow.mjs", "--bin", bin, "--root", root, "--pages", strconv.Itoa(n))
	var summary struct {
		Calls int    `json:"calls"`
		Top   string `json:"top"`
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, ".llmwiki", "search", "index", "index_meta.json")); err != nil {
		t.Errorf("no index on disk: %v", err)
	}
	if got := len(teststore.AuditLines(t, root)); got != summary.Calls {
		t.Errorf("audit has %d lines, the client made %d calls", got, summary.Calls)
	}
}
