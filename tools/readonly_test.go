package tools

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/mark3labs/mcp-go/mcp"
)

// roCall is one call of a read-only tool. A call with mayRefuse tries to
// write through a read-only tool (arguments that ask it to store, dismiss
// or undismiss findings, which only the write tools do): it may be refused
// as invalid, but whether refused or not it writes nothing.
type roCall struct {
	args      map[string]any
	mayRefuse bool
}

// readOnlyCalls are the calls TestReadOnlyToolsWriteNothing makes, per
// read-only tool. Between them they use every argument of the tool's input
// schema and every value of its enums (the test checks), so a read-only
// tool that grows an argument is exercised with it. "$cursor" is replaced
// by the next_cursor of the call before, "$snapshot" by a stored version
// of pages/electron-ipc.md.
func readOnlyCalls(finding string) map[string][]roCall {
	ok := func(args map[string]any) roCall { return roCall{args: args} }
	return map[string][]roCall{
		"load_project": {ok(map[string]any{})},
		"read_page": {
			ok(map[string]any{"page": "electron-ipc"}),
			ok(map[string]any{"path": "context.md", "from_line": 1, "to_line": 3, "max_chars": 200}),
			ok(map[string]any{"path": "sources/ipc.md"}),
			ok(map[string]any{"path": "log.md"}),
			ok(map[string]any{"page": "electron-ipc", "at": "$snapshot"}),
		},
		"page_history": {
			ok(map[string]any{"page": "electron-ipc", "limit": 1}),
			ok(map[string]any{"page": "electron-ipc", "limit": 1, "cursor": "$cursor"}),
			ok(map[string]any{"path": "context.md"}),
		},
		"list_pages": {
			ok(map[string]any{}),
			ok(map[string]any{"tag": "security", "prefix": "sec", "limit": 1, "cursor": "0"}),
			ok(map[string]any{"limit": 1, "cursor": "1"}),
		},
		"search_wiki": {
			ok(map[string]any{"query": "context isolation"}),
			ok(map[string]any{"query": "context isolation", "match": "all", "scope": "all", "limit": 1, "cursor": "1"}),
			ok(map[string]any{"query": "isolation hardening", "match": "any", "scope": "sources", "lang": "en"}),
			ok(map[string]any{"query": "context isolation", "match": "phrase", "scope": "context"}),
			ok(map[string]any{"query": "hardening", "match": "best", "scope": "pages", "tag": "security", "prefix": "pages/"}),
		},
		"gather_sources": {
			ok(map[string]any{}),
			ok(map[string]any{"mode": "all", "budget": 10}),
			ok(map[string]any{"mode": "all", "budget": 10, "cursor": "$cursor"}),
			ok(map[string]any{"mode": "pending", "since": "2000-01-01T00:00:00Z", "under": "papers"}),
		},
		"validate_structure": {ok(map[string]any{})},
		"lint_findings": {
			ok(map[string]any{}),
			ok(map[string]any{"categories": []any{"orphan_page", "stale_claim", "contradiction"}, "path": "pages/", "limit": 1, "cursor": "1", "include_dismissed": true}),
			// Writing lint state is the job of submit_lint_findings and
			// dismiss_lint_findings.
			{args: map[string]any{"submit": []any{map[string]any{"kind": "gap", "message": "nothing on sandboxing",
				"evidence": []any{map[string]any{"path": "pages/security.md", "quote": "Read the IPC page first"}}}}}, mayRefuse: true},
			{args: map[string]any{"dismiss": []any{finding}, "reason": "left as it is"}, mayRefuse: true},
			{args: map[string]any{"undismiss": []any{finding}}, mayRefuse: true},
		},
		"list_snapshots": {
			ok(map[string]any{}),
			ok(map[string]any{"path": "electron-ipc", "limit": 1}),
			ok(map[string]any{"path": "electron-ipc", "limit": 1, "cursor": "1"}),
		},
	}
}

// TestReadOnlyToolsWriteNothing calls every tool annotated read-only, with
// every argument it has, against a populated wiki (pages, sources, a
// context.md, snapshots, a log, submitted and dismissed lint findings, an
// eval answer, a search index), and compares the whole tree byte for byte
// after each call: nothing but the audit log may change. Clients approve
// read-only tools without asking, and serve --read-only offers only them.
func TestReadOnlyToolsWriteNothing(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	open := func() (*harness, *search.Index) {
		st, err := wiki.Open(dir, wiki.WithLogger(quiet))
		if err != nil {
			t.Fatal(err)
		}
		idx := search.Open(st, search.Options{Logger: quiet})
		st.AddDerived(idx)
		if err := idx.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		c := connect(t, Deps{Store: st, Log: quiet, Search: idx}, Options{})
		return &harness{t: t, dir: dir, store: st, c: c}, idx
	}

	// Populate through the writers, then close, so that nothing the
	// writes set going (the search manifest) is still pending.
	h, _ := open()
	os.MkdirAll(filepath.Join(dir, "sources", "papers"), 0o755)
	h.ok("save_source", map[string]any{"path": "sources/ipc.md", "content": "# IPC\n\nContext isolation is off by default in every Electron release.\n"})
	h.ok("save_source", map[string]any{"path": "sources/papers/hardening.md", "content": "# Hardening\n\nSandboxing and context isolation together.\n"})
	ipc := h.ok("write_page", map[string]any{"title": "Electron IPC", "summary": "How processes talk", "tags": []any{"electron"}, "sources": []any{"sources/ipc.md"},
		"content": "# Electron IPC\n\n## Basics\n\nContext isolation is on by default since Electron 12.\n"})
	h.ok("write_page", map[string]any{"title": "Security", "summary": "Hardening", "tags": []any{"security"}, "sources": []any{"sources/papers/hardening.md"},
		"content": "# Security\n\nRead the IPC page first: [[electron-ipc]] and [[nowhere]].\n"})
	h.ok("edit_page", map[string]any{"page": "electron-ipc", "base_sha256": ipc["sha256"], "op": "append", "heading": "Basics", "content": "Preload scripts bridge the two worlds."})
	h.ok("atomic_write_context", map[string]any{"content": "# Context\n\nContext isolation matters for Electron IPC.\n", "folded_sources": []any{"sources/ipc.md"}})
	h.ok("append_log", map[string]any{"op": "note", "title": "populated for the read-only test"})
	h.ok("file_answer", map[string]any{"question": "Is context isolation on?", "answer": "Yes, since Electron 12.",
		"citations": []any{map[string]any{"path": "pages/electron-ipc.md", "quote": "Context isolation is on by default since Electron 12"}}})
	ctx := context.Background()
	sub, err := lint.Submit(ctx, h.store, "agent", "go-test", []lint.Proposal{{Kind: lint.KindContradiction, Message: "the page and its source disagree",
		Evidence: []lint.Quote{{Path: "pages/electron-ipc.md", Quote: "Context isolation is on by default since Electron 12"}, {Path: "sources/ipc.md", Quote: "Context isolation is off by default in every Electron release"}}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := lint.Run(ctx, h.store, links.Open(h.store), lint.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dangling string
	for _, f := range rep.Findings {
		if f.Kind == lint.KindDanglingLink {
			dangling = f.ID
		}
	}
	if _, err := lint.Dismiss(ctx, h.store, links.Open(h.store), []string{dangling}, "on purpose", "go-test"); err != nil {
		t.Fatal(err)
	}
	h.c.Close()
	if err := h.store.Close(); err != nil {
		t.Fatal(err)
	}

	h, _ = open()
	t.Cleanup(func() { h.c.Close(); h.store.Close() })
	calls := readOnlyCalls(sub[0].ID)
	ro, err := Select(Deps{}, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_, snaps, err := h.store.SnapshotsOf("pages/electron-ipc.md")
	if err != nil || len(snaps) == 0 {
		t.Fatalf("no snapshot of electron-ipc to read: %v", err)
	}
	before := settledTree(t, dir)
	for _, tool := range ro {
		name := tool.Tool.Name
		cs, ok := calls[name]
		if !ok {
			t.Errorf("%s is read-only but readOnlyCalls has no call of it: add calls that use each of its arguments", name)
			continue
		}
		for _, miss := range unusedArgs(t, tool.Tool, cs) {
			t.Errorf("%s: no call in readOnlyCalls uses %s", name, miss)
		}
		cursor := ""
		for _, c := range cs {
			args := map[string]any{}
			for k, v := range c.args {
				if v == "$cursor" {
					v = cursor
				}
				if v == "$snapshot" {
					v = snaps[0].Snapshot
				}
				args[k] = v
			}
			res := h.call(name, args)
			if res.IsError && (!c.mayRefuse || !strings.HasPrefix(text(res), "invalid: ")) {
				t.Errorf("%s %v failed: %s", name, args, text(res))
			}
			if m, ok := res.StructuredContent.(map[string]any); ok {
				cursor, _ = m["next_cursor"].(string)
			} else if b, err := json.Marshal(res.StructuredContent); err == nil {
				var m map[string]any
				json.Unmarshal(b, &m)
				cursor, _ = m["next_cursor"].(string)
			}
			if diff := diffTrees(before, treeOf(t, dir)); diff != "" {
				t.Errorf("read-only %s %v changed the wiki: %s", name, args, diff)
				before = treeOf(t, dir)
			}
		}
	}
}

// settledTree is treeOf once the tree has stayed the same for two seconds.
// Opening a search index has scorch write its opened snapshot to
// root.bolt again, in the background, a moment after the index is ready
// (and merge what it finds to merge): the library's own housekeeping at
// open, which no call causes.
func settledTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	cur, since := treeOf(t, dir), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Since(since) < 2*time.Second; {
		if time.Now().After(deadline) {
			t.Fatal("the wiki's files kept changing for a minute after the server opened")
		}
		time.Sleep(100 * time.Millisecond)
		if next := treeOf(t, dir); diffTrees(cur, next) != "" {
			cur, since = next, time.Now()
		}
	}
	return cur
}

// unusedArgs lists the arguments of tool's input schema (and enum values,
// as arg=value) that no call in cs uses, refused calls left out.
func unusedArgs(t *testing.T, tool mcp.Tool, cs []roCall) []string {
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.RawInputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, c := range cs {
		if c.mayRefuse {
			continue
		}
		for k, v := range c.args {
			used[k] = true
			if s, ok := v.(string); ok {
				used[k+"="+s] = true
			}
		}
	}
	var miss []string
	for p, prop := range schema.Properties {
		if !used[p] {
			miss = append(miss, p)
		}
		for _, e := range prop.Enum {
			if !used[p+"="+e] {
				miss = append(miss, p+"="+e)
			}
		}
	}
	sort.Strings(miss)
	return miss
}

// treeOf hashes every file, link and folder under dir, the audit log's
// folder left out.
func treeOf(t *testing.T, dir string) map[string]string {
	return wikitest.TreeHashes(t, dir, func(rel string) bool { return rel == store.AuditDir })
}

// diffTrees names the paths added, removed or changed from a to b.
func diffTrees(a, b map[string]string) string {
	return strings.Join(wikitest.DiffHashes(a, b), ", ")
}
