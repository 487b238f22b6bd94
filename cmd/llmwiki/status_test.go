package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// treeOf reads every file and folder under root (.llmwiki included) into a
// map from path to content ("/" marks a folder).
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			m[rel+"/"] = ""
			return nil
		}
		b, _ := os.ReadFile(p)
		m[rel] = string(b)
		return nil
	})
	return m
}

// TestStatusShowsTheWikiAndWritesNothing builds a wiki with two pages (one
// stale and unlinked), a source not folded into context.md, a snapshot and
// two eval runs, and checks llmwiki status --json and the text against
// them, and that the tree is byte for byte the same afterwards.
func TestStatusShowsTheWikiAndWritesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pages/alpha.md", "---\ntitle: Alpha\nsummary: the first\nupdated: 2020-01-01\nsources: [sources/s.md]\n---\n# Alpha\n\nSee [[beta]].\n")
	write("pages/beta.md", "---\ntitle: Beta\nsummary: the second\nsources: [sources/s.md]\n---\n# Beta\n\nSee [[alpha]] and [[missing-page]].\n")
	write("sources/s.md", "# S\n\nsome source text\n")
	write(".llmwiki/snapshots/pages/alpha.md/20260101T000000.000000000Z-0123456789abcdef.md", "0123456789")
	write(".llmwiki/eval/runs/20260101T000000.000000000Z.json", `{"time":"2026-01-01T00:00:00Z","queries":10,"wiki_hit_rate":0.5}`)
	write(".llmwiki/eval/runs/20260102T000000.000000000Z.json", `{"time":"2026-01-02T00:00:00Z","queries":8,"wiki_hit_rate":0.75}`)
	before := treeOf(t, root)

	out, errOut, err := runCLI(t, "", "status", "--root", root, "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, errOut)
	}
	var s wikiStatus
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if s.Name != "wiki" || s.Pages != 2 || s.Sources != 1 || s.PendingSources != 1 {
		t.Errorf("name %q pages %d sources %d pending %d, want wiki 2 1 1", s.Name, s.Pages, s.Sources, s.PendingSources)
	}
	if s.StalePages != 1 || s.Lint["stale_page"] != 1 || s.Lint["dangling_link"] != 1 || s.LintSeverities.Error < 1 {
		t.Errorf("stale %d, lint %v (errors %d)", s.StalePages, s.Lint, s.LintSeverities.Error)
	}
	if s.Eval == nil || s.Eval.HitRate != 0.75 || s.Eval.Queries != 8 || len(s.Eval.Trend) != 2 || s.Eval.Trend[0] != 0.5 || s.Eval.Evaluated != "2026-01-02T00:00:00Z" {
		t.Errorf("eval %+v", s.Eval)
	}
	// The names follow the wire vocabulary (docs/design.md): counts by
	// severity under lint_severities, a time named by its event.
	var raw struct {
		LintSeverities map[string]int  `json:"lint_severities"`
		Eval           map[string]any  `json:"eval"`
		Old            json.RawMessage `json:"lint_errors"`
		// load_project's names for the same facts, not status-only ones.
		PendingSources *int            `json:"pending_sources"`
		IndexStale     *bool           `json:"index_stale"`
		OldPending     json.RawMessage `json:"sources_pending"`
		OldIndexStale  json.RawMessage `json:"index_md_stale"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.LintSeverities["error"]; !ok || raw.Old != nil || raw.Eval["evaluated"] != "2026-01-02T00:00:00Z" || raw.Eval["time"] != nil {
		t.Errorf("status JSON names: lint_severities %v, lint_errors %s, eval %v", raw.LintSeverities, raw.Old, raw.Eval)
	}
	if raw.PendingSources == nil || *raw.PendingSources != 1 || raw.IndexStale == nil || raw.OldPending != nil || raw.OldIndexStale != nil {
		t.Errorf("status JSON names differ from load_project's: pending_sources %v, index_stale %v, sources_pending %s, index_md_stale %s", raw.PendingSources, raw.IndexStale, raw.OldPending, raw.OldIndexStale)
	}
	if s.Snapshots.Files != 1 || s.Snapshots.Bytes != 10 {
		t.Errorf("snapshots %+v, want 1 file of 10 bytes", s.Snapshots)
	}
	if s.SearchIndex.Built {
		t.Errorf("search index reported built: %+v", s.SearchIndex)
	}
	text, _, err := runCLI(t, "", "status", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`wiki "wiki": 2 pages, 1 source (1 not yet folded into context.md)`, "stale pages: 1", "dangling_link 1", "eval: hit rate 75% over 8 queries", "trend 50% → 75%", "search index: not built", "snapshots: 1 file, 10 bytes"} {
		if !strings.Contains(text, want) {
			t.Errorf("status text lacks %q:\n%s", want, text)
		}
	}
	after := treeOf(t, root)
	for k, v := range after {
		if b, ok := before[k]; !ok || b != v {
			t.Errorf("status changed %s", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("status removed %s", k)
		}
	}
}

// TestStatusFreshWikiIsQuiet: status on a wiki just made by init, with a
// source dropped in by hand, prints no warning: it writes nothing, so it
// does not try to rebuild or save the sources record.
func TestStatusFreshWikiIsQuiet(t *testing.T) {
	root := filepath.Join(t.TempDir(), "w")
	if _, _, err := runIn(t, "", nil, "init", root); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "sources", "paper.md"), []byte("# Paper\n\nRaft.\n"), 0o644)
	for range 2 {
		_, stderr, err := runIn(t, "", nil, "status", "--root", root)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, "WARN") {
			t.Errorf("status warned on a fresh wiki:\n%s", stderr)
		}
	}
}
