package wiki

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// jumpClock is a clock a test moves by hand; it ticks one millisecond per
// reading so snapshot names stay distinct.
type jumpClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *jumpClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *jumpClock) jump(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// writeVersions writes a page len(bodies) times and returns the sha256 of
// each version.
func writeVersions(t *testing.T, s *Store, title string, bodies ...string) []string {
	t.Helper()
	var sums []string
	base := ""
	for _, b := range bodies {
		w, err := s.WritePage(context.Background(), PageInput{Title: title, Content: b, BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = w.SHA256
		sums = append(sums, w.SHA256)
	}
	return sums
}

func TestRestoreSnapshot(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	sums := writeVersions(t, s, "Topic", "one\n", "two\n", "three\n")
	list, err := s.Snapshots("pages/topic.md")
	if err != nil || len(list) != 2 {
		t.Fatalf("snapshots: %+v %v", list, err)
	}
	// Undo: the newest stored version that differs from the file.
	r, err := s.RestoreSnapshot(ctx, RestoreInput{Path: "pages/topic.md"})
	if err != nil || !r.Changed || r.SHA256 != sums[1] || r.Restored != list[0].Snapshot || r.Snapshot == "" {
		t.Fatalf("undo: %+v %v", r, err)
	}
	if got := readFile(t, dir, "pages/topic.md"); !strings.HasSuffix(got, "\ntwo\n") {
		t.Errorf("after undo:\n%s", got)
	}
	if b := readFile(t, dir, r.Snapshot); store.SHA256Hex([]byte(b)) != sums[2] {
		t.Error("the replaced version was not snapshotted")
	}
	// Undo again: back to three (a restore can itself be undone).
	r, err = s.RestoreSnapshot(ctx, RestoreInput{Path: "Topic"})
	if err != nil || r.SHA256 != sums[2] {
		t.Fatalf("undo the undo: %+v %v", r, err)
	}
	// By sha256 prefix, file name and full path.
	for _, pick := range []RestoreInput{
		{Path: "topic", Snapshot: sums[0][:8]},
		{Path: "pages/topic.md", Snapshot: path.Base(list[1].Snapshot)},
		{Snapshot: list[1].Snapshot},
		{Path: "pages/topic.md", Snapshot: strings.ToUpper(sums[0][:12])},
	} {
		r, err := s.RestoreSnapshot(ctx, pick)
		if err != nil || r.SHA256 != sums[0] {
			t.Errorf("restore %+v: %+v %v", pick, r, err)
		}
	}
	// Restoring the version the file already holds changes nothing.
	before := treeOf(t, dir)
	r, err = s.RestoreSnapshot(ctx, RestoreInput{Snapshot: list[1].Snapshot})
	if err != nil || r.Changed {
		t.Errorf("restore of the current version: %+v %v", r, err)
	}
	sameTree(t, before, treeOf(t, dir))
	// index.md follows the restored page.
	if idx := readFile(t, dir, "index.md"); !strings.Contains(idx, "[[topic|Topic]]") {
		t.Errorf("index.md:\n%s", idx)
	}

	// Refusals leave everything as it was.
	cur := store.SHA256Hex([]byte(readFile(t, dir, "pages/topic.md")))
	mustWrite(t, dir, "sources/a.md", "a\n")
	refusals := []struct {
		in   RestoreInput
		code store.Code
		want string
	}{
		{RestoreInput{Path: "pages/topic.md", BaseSHA256: strings.Repeat("0", 64)}, store.CodeConflict, "changed since you read it"},
		{RestoreInput{Path: "pages/topic.md", Snapshot: "deadbeef"}, store.CodeNotFound, "no stored version"},
		{RestoreInput{Path: "pages/topic.md", Snapshot: "abc"}, store.CodeNotFound, "no stored version"},
		{RestoreInput{Path: "context.md", Snapshot: list[0].Snapshot}, store.CodeInvalid, "is a version of pages/topic.md"},
		{RestoreInput{Snapshot: store.SnapshotDir + "/pages/topic.md/not-a-snapshot.md"}, store.CodeInvalid, "not a snapshot path"},
		{RestoreInput{Snapshot: store.SnapshotDir + "/../../x"}, store.CodeInvalid, ""},
		{RestoreInput{Path: "sources/a.md"}, store.CodeInvalid, "sources are never rewritten"},
		{RestoreInput{Path: "index.md"}, store.CodeInvalid, "rebuild_index"},
		{RestoreInput{Path: "log.md"}, store.CodeInvalid, "only grows"},
		{RestoreInput{Path: "schema.md"}, store.CodeInvalid, "no stored versions"},
		{RestoreInput{Path: "pages/never.md"}, store.CodeNotFound, "no stored versions"},
		{RestoreInput{Path: "../x.md"}, store.CodeInvalid, "leaves the wiki root"},
		{RestoreInput{}, store.CodeInvalid, "name the file"},
	}
	for _, c := range refusals {
		before := treeOf(t, dir)
		_, err := s.RestoreSnapshot(ctx, c.in)
		if store.CodeOf(err) != c.code || !strings.Contains(store.PublicMessage(err), c.want) {
			t.Errorf("restore %+v: %v (%s), want %s %q", c.in, err, store.CodeOf(err), c.code, c.want)
		}
		sameTree(t, before, treeOf(t, dir))
	}
	if store.SHA256Hex([]byte(readFile(t, dir, "pages/topic.md"))) != cur {
		t.Error("a refused restore changed the page")
	}
	// A damaged snapshot is refused.
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(list[1].Snapshot)), []byte("tampered\n"), 0o644)
	if _, err := s.RestoreSnapshot(ctx, RestoreInput{Snapshot: list[1].Snapshot}); err == nil || !strings.Contains(store.PublicMessage(err), "damaged") {
		t.Errorf("damaged snapshot: %v", err)
	}
}

func TestRestoreContextGuidelinesAndDeletedPage(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	c1, err := s.WriteContext(ctx, ContextInput{Content: "# one\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteContext(ctx, ContextInput{Content: "# two\n"}); err != nil {
		t.Fatal(err)
	}
	r, err := s.RestoreSnapshot(ctx, RestoreInput{Path: "context.md"})
	if err != nil || r.SHA256 != c1.SHA256 {
		t.Errorf("context.md: %+v %v", r, err)
	}
	// A page that was deleted (moved away) is created again.
	w := writeVersions(t, s, "Gone", "v1\n", "v2\n")
	if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Delete("pages/gone.md", w[1]) }); err != nil {
		t.Fatal(err)
	}
	r, err = s.RestoreSnapshot(ctx, RestoreInput{Path: "gone"})
	if err != nil || r.SHA256 != w[1] || r.Snapshot != "" {
		t.Fatalf("deleted page: %+v %v", r, err)
	}
	if got := readFile(t, dir, "pages/gone.md"); !strings.HasSuffix(got, "v2\n") {
		t.Errorf("restored page:\n%s", got)
	}
	// guidelines.md: "## My Rules" belongs to the person.
	g := readFile(t, dir, "guidelines.md")
	mustWrite(t, dir, "guidelines.md", strings.Replace(g, "## My Rules", "## My Rules\n\n- a rule the person added", 1))
	cur := readFile(t, dir, "guidelines.md")
	if err := s.Update(ctx, func(tx *store.Tx) error {
		return tx.Replace("guidelines.md", []byte(strings.Replace(cur, "## Eval Insights", "## Eval Insights\n\n- learned", 1)), "")
	}); err != nil {
		t.Fatal(err)
	}
	// The stored version has the person's rule: restoring it is fine.
	if _, err := s.RestoreSnapshot(ctx, RestoreInput{Path: "guidelines.md"}); err != nil {
		t.Errorf("guidelines.md: %v", err)
	}
	// Once the person changes My Rules again, an older version would undo
	// that: refused.
	mustWrite(t, dir, "guidelines.md", strings.Replace(readFile(t, dir, "guidelines.md"), "- a rule the person added", "- the person's new rule", 1))
	if _, err := s.RestoreSnapshot(ctx, RestoreInput{Path: "guidelines.md"}); err == nil || !strings.Contains(store.PublicMessage(err), "My Rules") {
		t.Errorf("restore over the person's rules: %v", err)
	}
}

// TestSnapshotRetention: old snapshots are deleted only when retention is
// set, never the newest keep_last of a file, never the last copy of a
// version the server's live state still refers to; the deletion is audited.
func TestSnapshotRetention(t *testing.T) {
	clk := &jumpClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir, WithClock(clk.now))
	ctx := context.Background()
	sums := writeVersions(t, s, "Topic", "v1\n", "v2\n", "v3\n", "v1\n", "v4\n", "v5\n", "v6\n")
	// Snapshots hold v1, v2, v3, v1 (again), v4, v5; the file is v6.
	if n := countSnapshots(t, s); n != 6 {
		t.Fatalf("%d snapshots", n)
	}
	// No retention set: nothing is deleted, however old.
	clk.jump(400 * 24 * time.Hour)
	res, err := s.PruneSnapshots(ctx, false)
	if err != nil || len(res.Deleted) != 0 || res.Kept != 6 {
		t.Fatalf("without retention: %+v %v", res, err)
	}
	// Retention: 30 days, keep the last 2 of each file. A pending plan
	// refers to v2 and to v1.
	schema := readFile(t, dir, "schema.md")
	schema = strings.Replace(schema, "snapshot_keep_days: 0 ", "snapshot_keep_days: 30", 1)
	schema = strings.Replace(schema, "snapshot_keep_last: 20", "snapshot_keep_last: 2 ", 1)
	mustWrite(t, dir, "schema.md", schema)
	if r := s.Settings().Retention; r.KeepDays != 30 || r.KeepLast != 2 {
		t.Fatalf("retention read from schema.md: %+v", r)
	}
	mustWrite(t, dir, ".llmwiki/plans/p1.json", `{"base_sha256":"`+sums[1]+`","other":"`+sums[0]+`"}`)
	before := treeOf(t, dir)
	res, err = s.PruneSnapshots(ctx, true)
	if err != nil || len(res.Deleted) != 2 || !res.DryRun {
		t.Fatalf("dry run: %+v %v", res, err)
	}
	sameTree(t, before, treeOf(t, dir))

	c, call := ctxWithCall("cli:snapshots-prune")
	res, err = s.PruneSnapshots(c, false)
	if err := s.Audit(call, err); err != nil {
		t.Fatal(err)
	}
	// Kept: v4, v5 (newest two), v2 (referenced, only copy), the newer v1
	// (referenced; its older copy went). Deleted: v3, the older v1.
	deleted := map[string]bool{}
	for _, d := range res.Deleted {
		deleted[d.Before] = true
	}
	if len(res.Deleted) != 2 || !deleted[sums[2]] || !deleted[sums[0]] || res.Kept != 4 || res.KeptReferenced != 2 {
		t.Fatalf("prune: %+v", res)
	}
	left := map[string]int{}
	list, _ := s.Snapshots("pages/topic.md")
	for _, sn := range list {
		b := readFile(t, dir, sn.Snapshot)
		left[store.SHA256Hex([]byte(b))]++
	}
	if left[sums[0]] != 1 || left[sums[1]] != 1 || left[sums[2]] != 0 || left[sums[4]] != 1 || left[sums[5]] != 1 {
		t.Errorf("snapshots left: %v", left)
	}
	recs := parsedAudit(t, dir)
	last := recs[len(recs)-1]
	if last.Tool != "cli:snapshots-prune" || len(last.Pruned) != 2 || last.Pruned[0].Before == "" {
		t.Errorf("the deletion is not audited: %+v", last)
	}
	// Once the plan is gone, an old version nothing refers to may go; the
	// newest two never do.
	os.Remove(filepath.Join(dir, ".llmwiki", "plans", "p1.json"))
	res, _ = s.PruneSnapshots(ctx, false)
	if len(res.Deleted) != 2 || countSnapshots(t, s) != 2 {
		t.Errorf("after the plan went: %+v, %d left", res, countSnapshots(t, s))
	}
	// A write applies the retention by itself (at most once an hour) and
	// audits what it deleted.
	writeVersions(t, s, "Other", "a\n", "b\n", "c\n", "d\n")
	clk.jump(60 * 24 * time.Hour)
	s.pruneMu.Lock()
	s.lastPrune = time.Time{}
	s.pruneMu.Unlock()
	c, call = ctxWithCall("write_page")
	cur := readFile(t, dir, "pages/other.md")
	_, err = s.WritePage(c, PageInput{Title: "Other", Content: "e\n", BaseSHA256: store.SHA256Hex([]byte(cur))})
	if err := s.Audit(call, err); err != nil {
		t.Fatal(err)
	}
	if len(call.Pruned) != 2 { // a and b; c and d (the newest two) stay
		t.Errorf("the write pruned %v", call.Pruned)
	}
	if list, _ := s.Snapshots("pages/other.md"); len(list) != 2 {
		t.Errorf("other.md keeps %d snapshots, want 2", len(list))
	}
	checkWiki(t, dir)
}

func countSnapshots(t *testing.T, s *Store) int {
	all, err := s.AllSnapshots()
	if err != nil {
		t.Fatal(err)
	}
	return len(all)
}
