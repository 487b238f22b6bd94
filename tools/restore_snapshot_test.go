package tools

import (
	"strings"
	"testing"
)

// TestRestoreSnapshotTool: list_snapshots, read_page on a snapshot and
// restore_snapshot through MCP; the restore snapshots the current version
// and can be undone; bad requests are clear tool errors.
func TestRestoreSnapshotTool(t *testing.T) {
	h := newHarness(t)
	v1 := h.ok("write_page", map[string]any{"title": "Topic", "content": "one\n"})
	v2 := h.ok("write_page", map[string]any{"title": "Topic", "content": "two\n", "base_sha256": v1["sha256"]})
	files := h.ok("list_snapshots", map[string]any{})
	if f, _ := files["files"].([]any); len(f) != 1 || f[0].(map[string]any)["path"] != "pages/topic.md" {
		t.Fatalf("list_snapshots: %v", files)
	}
	list := h.ok("list_snapshots", map[string]any{"path": "topic"})
	snaps, _ := list["snapshots"].([]any)
	if len(snaps) != 1 || list["path"] != "pages/topic.md" {
		t.Fatalf("list_snapshots topic: %v", list)
	}
	snap := snaps[0].(map[string]any)["snapshot"].(string)
	old := h.ok("read_page", map[string]any{"path": snap})
	if old["content"] != "one\n" || old["sha256"] != v1["sha256"] {
		t.Errorf("read_page of a snapshot: %v", old)
	}
	r := h.ok("restore_snapshot", map[string]any{"path": "pages/topic.md", "snapshot": snap, "base_sha256": v2["sha256"]})
	if r["sha256"] != v1["sha256"] || r["changed"] != true || !strings.HasPrefix(r["snapshot"].(string), ".llmwiki/snapshots/pages/topic.md/") {
		t.Fatalf("restore_snapshot: %v", r)
	}
	page := h.ok("read_page", map[string]any{"page": "topic"})
	if page["content"] != "one\n" {
		t.Errorf("after restore: %v", page["content"])
	}
	undo := h.ok("restore_snapshot", map[string]any{"path": "topic"})
	if undo["sha256"] != v2["sha256"] {
		t.Errorf("undo: %v", undo)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "topic", "base_sha256": v1["sha256"]}, "conflict"},
		{map[string]any{"path": "sources/x.md"}, "sources are never rewritten"},
		{map[string]any{"path": "topic", "snapshot": "0000000000"}, "no stored version"},
		{map[string]any{"snapshot": ".llmwiki/audit/2026-01-01.jsonl"}, "not a snapshot path"},
		{map[string]any{"path": "topic", "snapshots": "typo"}, "snapshots"},
	} {
		res := h.call("restore_snapshot", c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("restore_snapshot %v: %s", c.args, text(res))
		}
	}
	res := h.call("read_page", map[string]any{"path": ".llmwiki/audit/x.jsonl"})
	if !res.IsError || !strings.Contains(text(res), "server's own state") {
		t.Errorf("read_page of the audit log: %s", text(res))
	}
}

// TestListSnapshotsPages: list_snapshots pages a file's versions and the
// files with versions by limit and cursor, and total counts the whole list
// the result pages.
func TestListSnapshotsPages(t *testing.T) {
	h := newHarness(t)
	sha := ""
	for _, c := range []string{"one\n", "two\n", "three\n", "four\n"} {
		args := map[string]any{"title": "Topic", "content": c}
		if sha != "" {
			args["base_sha256"] = sha
		}
		sha = h.ok("write_page", args)["sha256"].(string)
	}
	h.ok("write_page", map[string]any{"title": "Other", "content": "a\n"})
	h.ok("write_page", map[string]any{"title": "Other", "content": "b\n", "base_sha256": h.ok("read_page", map[string]any{"page": "other"})["sha256"]})
	var seen []string
	args := map[string]any{"path": "topic", "limit": 2}
	for range 5 {
		r := h.ok("list_snapshots", args)
		if r["total"] != float64(3) {
			t.Errorf("total %v, want the 3 stored versions", r["total"])
		}
		for _, s := range r["snapshots"].([]any) {
			seen = append(seen, s.(map[string]any)["snapshot"].(string))
		}
		next, _ := r["next_cursor"].(string)
		if next == "" {
			break
		}
		args["cursor"] = next
	}
	if len(seen) != 3 || seen[0] == seen[1] || seen[1] == seen[2] {
		t.Errorf("paged versions: %v, want 3 distinct", seen)
	}
	files := h.ok("list_snapshots", map[string]any{"limit": 1})
	if f, _ := files["files"].([]any); len(f) != 1 || files["total"] != float64(2) || files["next_cursor"] == nil {
		t.Errorf("files, limit 1: %v", files)
	}
	files = h.ok("list_snapshots", map[string]any{"limit": 1, "cursor": files["next_cursor"]})
	if f, _ := files["files"].([]any); len(f) != 1 || files["next_cursor"] != nil {
		t.Errorf("files, second page: %v", files)
	}
	if r := h.call("list_snapshots", map[string]any{"path": "topic", "cursor": "x"}); !r.IsError || !strings.Contains(text(r), "cursor is not one") {
		t.Errorf("bad cursor: %s", text(r))
	}
}
