package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestSnapshotsCommand: list, restore (audited, logged, undoable) and
// prune through the command line.
func TestSnapshotsCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var sums []string
	base := ""
	for _, body := range []string{"first\n", "second\n", "third\n"} {
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: body, BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = w.SHA256
		sums = append(sums, w.SHA256)
	}
	st.Close()

	out, _, err := runCLI(t, "", "snapshots", "--root", root)
	if err != nil || !strings.Contains(out, "pages/topic.md") || !strings.Contains(out, "keep every snapshot") {
		t.Errorf("snapshots list: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "snapshots", "list", "topic", "--root", root)
	if err != nil || strings.Count(out, ".llmwiki/snapshots/pages/topic.md/") != 2 || !strings.Contains(out, sums[0][:16]) {
		t.Errorf("snapshots list topic: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "snapshots", "restore", "pages/topic.md", sums[0][:10], "--root", root)
	if err != nil || !strings.Contains(out, "Restored pages/topic.md") || !strings.Contains(out, "restore it the same way to undo") {
		t.Fatalf("snapshots restore: %v\n%s", err, out)
	}
	page, _ := os.ReadFile(filepath.Join(root, "pages", "topic.md"))
	if store.SHA256Hex(page) != sums[0] {
		t.Errorf("the page is not the first version:\n%s", page)
	}
	log, _ := os.ReadFile(filepath.Join(root, "log.md"))
	if !strings.Contains(string(log), "] restore | Restored pages/topic.md from ") {
		t.Errorf("log.md:\n%s", log)
	}
	calls := teststore.AuditLines(t, root)
	last := calls[len(calls)-1]
	if last.Tool != "cli:snapshots-restore" || last.Outcome != "ok" || len(last.Writes) < 2 || len(last.Snapshots) != 1 {
		t.Errorf("audit line: %+v", last)
	}
	// Undo with no snapshot named: back to the third version.
	if out, _, err = runCLI(t, "", "snapshots", "restore", "topic", "--root", root); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	if page, _ = os.ReadFile(filepath.Join(root, "pages", "topic.md")); store.SHA256Hex(page) != sums[2] {
		t.Error("undo did not bring back the third version")
	}
	// Bad requests are clear errors.
	for _, args := range [][]string{{"restore", "sources/x.md"}, {"restore", "pages/topic.md", "ffffffff"}, {"frobnicate"}, {"restore"}} {
		if _, _, err := runCLI(t, "", append([]string{"snapshots", "--root", root}, args...)...); err == nil {
			t.Errorf("snapshots %v succeeded", args)
		}
	}
	// Prune: nothing without retention; with it, a dry run first.
	out, _, err = runCLI(t, "", "snapshots", "prune", "--root", root)
	if err != nil || !strings.Contains(out, "Deleted 0 snapshot(s)") {
		t.Errorf("prune without retention: %v\n%s", err, out)
	}
	schema, _ := os.ReadFile(filepath.Join(root, "schema.md"))
	s := strings.Replace(string(schema), "snapshot_keep_days: 0 ", "snapshot_keep_days: 1", 1)
	s = strings.Replace(s, "snapshot_keep_last: 20", "snapshot_keep_last: 1 ", 1)
	os.WriteFile(filepath.Join(root, "schema.md"), []byte(s), 0o644)
	out, _, err = runCLI(t, "", "snapshots", "prune", "--dry-run", "--root", root)
	if err != nil || !strings.Contains(out, "keep 1 days, and the newest 1 of each file") || !strings.Contains(out, "Would delete 0") {
		t.Errorf("prune --dry-run: %v\n%s", err, out)
	}
}

// `llmwiki snapshots prune` keeps the version before a write still in the
// review queue, whatever its age.
func TestSnapshotsPruneKeepsUnreviewed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	old := func() time.Time { return time.Now().Add(-10 * 24 * time.Hour) }
	st, err := wiki.Open(root, wiki.WithClock(old), wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := ""
	var sums []string
	for i, body := range []string{"first\n", "second\n", "third\n", "fourth\n"} {
		c := store.NewCall("write_page", st.SessionID(), nil)
		if i == 1 {
			c.SetExtra("review", wiki.ReviewAfter) // the write of "second" awaits review
		}
		w, err := st.WritePage(store.WithCall(ctx, c), wiki.PageInput{Title: "Topic", Content: body, BaseSHA256: base})
		if aerr := st.Audit(c, err); err != nil || aerr != nil {
			t.Fatal(err, aerr)
		}
		base = w.SHA256
		sums = append(sums, w.SHA256)
	}
	st.Close()
	schema, _ := os.ReadFile(filepath.Join(root, "schema.md"))
	s := strings.Replace(string(schema), "snapshot_keep_days: 0 ", "snapshot_keep_days: 1", 1)
	s = strings.Replace(s, "snapshot_keep_last: 20", "snapshot_keep_last: 1 ", 1)
	if err := os.WriteFile(filepath.Join(root, "schema.md"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	// Snapshots: first, second, third; the newest is kept by count, first
	// and second are what the queued write needs.
	out, _, err := runCLI(t, "", "snapshots", "prune", "--root", root)
	if err != nil || !strings.Contains(out, "Deleted 0 snapshot(s)") {
		t.Fatalf("prune with a write awaiting review: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "snapshots", "list", "topic", "--root", root)
	if err != nil || !strings.Contains(out, sums[0][:16]) || !strings.Contains(out, sums[1][:16]) {
		t.Errorf("the versions the queued write needs: %v\n%s", err, out)
	}
}

// TestSnapshotsRestoreRespectsHeldFiles: llmwiki snapshots restore of a
// page a pending change set holds is refused with a conflict naming the
// set, and the page is unchanged.
func TestSnapshotsRestoreRespectsHeldFiles(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := app.New(st, app.Options{NoSearch: true})
	w1, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: "first\n"})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: "second\n", BaseSHA256: w1.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"title": "Topic", "content": "third\n", "base_sha256": w2.SHA256})
	p, err := a.Review.Propose(ctx, review.ProposeInput{Actions: []review.ActionInput{{Tool: "write_page", Arguments: args}}})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	before, _ := os.ReadFile(filepath.Join(root, "pages", "topic.md"))
	_, _, err = runCLI(t, "", "snapshots", "restore", "pages/topic.md", "--root", root)
	if err == nil || !strings.Contains(err.Error(), p.Name()) {
		t.Fatalf("restore of a held page: %v, want a conflict naming %s", err, p.Name())
	}
	if after, _ := os.ReadFile(filepath.Join(root, "pages", "topic.md")); string(after) != string(before) {
		t.Errorf("the held page changed:\n%s", after)
	}
}
