package tools

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/review"
)

// TestEveryToolOutputMatchesItsSchema calls every tool of the catalogue,
// starting from an empty wiki (where lists are empty: the case a nil Go
// slice would send as null), and checks each result against the output
// schema the tool publishes ([harness.call] validates every result). The
// schemas type each array "array" and nothing else, so a null would break
// clients that validate structuredContent (the TypeScript SDK does).
func TestEveryToolOutputMatchesItsSchema(t *testing.T) {
	st, dir, idx, quiet := indexedStore(t)
	reply, _ := json.Marshal(map[string]any{
		"takeaways": []string{"Alpha is the first letter."},
		"actions":   []map[string]any{{"kind": "create_page", "slug": "letters", "title": "Letters", "markdown": "Alpha comes first.\n"}},
	})
	srv := modeltest.New(t, string(reply))
	cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := withLinks(Deps{Store: st, Log: quiet, Search: idx, Model: mc})
	d.Review = review.New(st, d.Links, RunWrite(d))
	c := connect(t, d, Options{})
	t.Cleanup(func() { c.Close() })
	h := &harness{t: t, dir: dir, store: st, c: c}

	called := map[string]bool{}
	ok := func(name string, args map[string]any) map[string]any {
		t.Helper()
		called[name] = true
		return h.ok(name, args)
	}
	// An empty wiki: no pages, sources, snapshots, findings or log entries.
	ok("load_project", map[string]any{})
	ok("list_pages", map[string]any{})
	ok("search_wiki", map[string]any{"query": "nothing here"})
	ok("gather_sources", map[string]any{})
	ok("validate_structure", map[string]any{})
	ok("lint_findings", map[string]any{})
	ok("list_snapshots", map[string]any{})
	ok("read_page", map[string]any{"path": "index.md"})
	ok("page_history", map[string]any{"path": "guidelines.md"})
	ok("rebuild_index", map[string]any{})

	// Writes whose results hold empty lists (no tags, links, folded sources).
	ok("save_source", map[string]any{"path": "sources/a.md", "content": "# A\n\nAlpha is the first letter of the Greek alphabet.\n"})
	page := ok("write_page", map[string]any{"title": "Alpha", "content": "## Basics\n\nAlpha is the first letter.\n"})
	page = ok("edit_page", map[string]any{"page": "alpha", "base_sha256": page["sha256"], "op": "append", "heading": "Basics", "content": "It comes before beta."})
	ok("restore_snapshot", map[string]any{"path": "pages/alpha.md"})
	ok("move_page", map[string]any{"page": "alpha", "slug": "first-letter"})
	ok("atomic_write_context", map[string]any{"content": "# Context\n\nLetters.\n"})
	ok("append_log", map[string]any{"op": "note", "title": "schema check"})
	ok("file_answer", map[string]any{"question": "What is alpha?", "answer": "The first letter."})
	ok("research_save", map[string]any{"topic": "letters", "content": "Alpha, then beta."})
	sub := ok("submit_lint_findings", map[string]any{"findings": []any{map[string]any{"kind": "gap", "message": "nothing on beta",
		"evidence": []any{map[string]any{"path": "pages/first-letter.md", "quote": "Alpha is the first letter."}}}}})
	id, _ := sub["submitted"].([]any)[0].(map[string]any)["id"].(string)
	ok("dismiss_lint_findings", map[string]any{"undismiss": []any{id}})
	plan := ok("propose_plan", map[string]any{"operation": "ingest", "path": "sources/a.md"})
	ok("apply_plan", map[string]any{"plan_id": plan["plan_id"], "selected": []any{}}) // discards: no results
	// Pending: the client declared no elicitation.
	ok("propose_changes", map[string]any{"takeaways": []any{"Gamma is third."},
		"actions": []any{map[string]any{"tool": "write_page", "arguments": map[string]any{"title": "Gamma", "content": "Gamma is the third letter.\n"}, "why": "a page on gamma"}}})

	// The same reads on a wiki with content.
	for _, name := range []string{"load_project", "list_pages", "gather_sources", "validate_structure", "lint_findings", "list_snapshots"} {
		ok(name, map[string]any{})
	}
	ok("search_wiki", map[string]any{"query": "alpha", "scope": "all"})
	ok("read_page", map[string]any{"page": "first-letter"})
	ok("page_history", map[string]any{"page": "first-letter"})

	for _, tool := range Catalogue(Deps{}) {
		if !called[tool.Tool.Name] {
			t.Errorf("%s: never called; add a call of it here", tool.Tool.Name)
		}
	}
}
