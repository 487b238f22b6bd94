package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestRetentionKeepsCitedVersion: a stored finding's verified evidence
// carries the sha256 of the version it quotes, so the snapshot retention
// keeps that version's last copy while an older version nothing cites is
// deleted.
func TestRetentionKeepsCitedVersion(t *testing.T) {
	ctx := context.Background()
	now := teststore.FixedNow
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	schemaPath := filepath.Join(dir, "schema.md")
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(schema), "snapshot_keep_days: 0 ", "snapshot_keep_days: 30", 1)
	s = strings.Replace(s, "snapshot_keep_last: 20", "snapshot_keep_last: 1 ", 1)
	if s == string(schema) {
		t.Fatal("the schema.md template no longer has the retention settings this test edits")
	}
	wikitest.WriteFile(t, dir, "schema.md", s)
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r := st.Settings().Retention; r.KeepDays != 30 || r.KeepLast != 1 {
		t.Fatalf("retention %+v", r)
	}

	bodies := []string{
		"The renderer must never call Node APIs directly.\n",
		"The renderer may call Node APIs through a preload script.\n",
		"A third version of the page.\n",
		"The current version of the page.\n",
	}
	var sums []string
	base := ""
	for i, b := range bodies {
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: b, BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = w.SHA256
		sums = append(sums, w.SHA256)
		if i == 0 {
			// A finding quoting the first version, stored while it is current.
			fs, err := Submit(ctx, st, "agent", "test", []Proposal{{Kind: KindStaleClaim, Message: "preload scripts changed this", Evidence: []Quote{{Path: "pages/topic.md", Quote: "must never call Node APIs directly"}}}})
			if err != nil {
				t.Fatal(err)
			}
			if ev := fs[0].Evidence[0]; !ev.Verified || ev.SHA256 != w.SHA256 {
				t.Fatalf("evidence %+v, want verified with sha256 %s", ev, w.SHA256)
			}
		}
		now = now.Add(time.Minute)
	}
	// The stored finding names the version it quotes.
	data, ok, err := st.ReadState(agentFile)
	if err != nil || !ok || !strings.Contains(string(data), sums[0]) {
		t.Fatalf("agent.json does not name the cited version %s: %s %v", sums[0], data, err)
	}
	// Snapshots hold v1, v2 and v3; the file is v4.
	now = now.Add(60 * 24 * time.Hour)
	res, err := st.PruneSnapshots(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	// Kept: v3 (the newest snapshot) and v1 (cited by the finding, its only
	// copy). Deleted: v2, which nothing refers to.
	if len(res.Deleted) != 1 || res.Deleted[0].Before != sums[1] || res.Kept != 2 || res.KeptReferenced != 1 {
		t.Fatalf("prune: %+v (versions %v)", res, sums)
	}
	list, err := st.Snapshots("pages/topic.md")
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]bool{}
	for _, sn := range list {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(sn.Snapshot)))
		if err != nil {
			t.Fatal(err)
		}
		left[store.SHA256Hex(b)] = true
	}
	if len(left) != 2 || !left[sums[0]] || !left[sums[2]] {
		t.Errorf("snapshots left %v; want v1 %s and v3 %s", left, sums[0], sums[2])
	}
}
