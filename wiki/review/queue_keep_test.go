package review

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// The snapshot retention never prunes the versions a write awaiting
// review needs (before and after each file), and prunes them as usual once
// the write is accepted.
func TestRetentionKeepsUnreviewedVersions(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	jump := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	st, dir := teststore.New(t, map[string]string{"pages/a.md": "# A\n"}, wiki.WithClock(clock))
	s := New(st, links.Open(st), nil)
	schema := readFile(t, dir, "schema.md")
	schema = regexp.MustCompile(`(?m)^snapshot_keep_days: *\d+`).ReplaceAllString(schema, "snapshot_keep_days: 1")
	schema = regexp.MustCompile(`(?m)^snapshot_keep_last: *\d+`).ReplaceAllString(schema, "snapshot_keep_last: 1")
	if err := os.WriteFile(filepath.Join(dir, "schema.md"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := st.Settings().Retention; r.KeepDays != 1 || r.KeepLast != 1 {
		t.Fatalf("retention from schema.md: %+v", r)
	}

	id := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "A", Content: "x\n", BaseSHA256: sha("# A\n")}))
	written := readFile(t, dir, "pages/a.md")
	jump(48 * time.Hour)
	// Two more writes to the page, not reviewed.
	call(t, st, "write_page", false, writePage(st, wiki.PageInput{Title: "A", Content: "y\n", BaseSHA256: sha(written)}))
	call(t, st, "write_page", false, writePage(st, wiki.PageInput{Title: "A", Content: "z\n", BaseSHA256: sha(readFile(t, dir, "pages/a.md"))}))
	jump(48 * time.Hour)

	prune := func() map[string]bool {
		t.Helper()
		res, err := st.PruneSnapshots(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		deleted := map[string]bool{}
		for _, d := range res.Deleted {
			deleted[d.Before] = true
		}
		return deleted
	}
	if deleted := prune(); deleted[sha("# A\n")] || deleted[sha(written)] || len(deleted) != 0 {
		t.Fatalf("the retention pruned versions an unreviewed write needs: %v", deleted)
	}
	d, err := s.WriteDiffs(id)
	if err != nil || len(d) != 1 || !strings.Contains(d[0].Diff, "-# A") || !strings.Contains(d[0].Diff, "+x") {
		t.Fatalf("diff of the queued write after pruning: %+v %v", d, err)
	}
	// Its revert finds the version before: refused only because the page
	// changed since, never as not_found.
	if _, err := s.Revert(context.Background(), id, ByWeb); store.CodeOf(err) != store.CodeConflict {
		t.Fatalf("revert after pruning: %v (want a conflict: the page changed since)", err)
	}

	if err := s.Accept(context.Background(), []string{id}, ByWeb); err != nil {
		t.Fatal(err)
	}
	if deleted := prune(); len(deleted) != 2 || !deleted[sha("# A\n")] || !deleted[sha(written)] {
		t.Fatalf("after accept, the next prune deletes both old versions: %v", deleted)
	}
}
