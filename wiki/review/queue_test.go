package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/edit"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// call runs fn as one audited tool call, marked for review as the tools
// layer marks a write in mode after when marked, and returns its id.
func call(t testing.TB, st *wiki.Store, tool string, marked bool, fn func(ctx context.Context) error) string {
	t.Helper()
	c := store.NewCall(tool, "s-test", nil)
	if marked {
		c.SetExtra(MarkKey, wiki.ReviewAfter)
	}
	err := fn(store.WithCall(context.Background(), c))
	if aerr := st.Audit(c, err); aerr != nil {
		t.Fatal(aerr)
	}
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return c.ID
}

func writePage(st *wiki.Store, in wiki.PageInput) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := st.WritePage(ctx, in)
		return err
	}
}

func readFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func queueIDs(t testing.TB, s *Service) []string {
	t.Helper()
	ws, next, total, err := s.Queue(1000, "")
	if err != nil {
		t.Fatal(err)
	}
	if next != "" || total != len(ws) {
		t.Fatalf("one page of everything: next %q, total %d for %d writes", next, total, len(ws))
	}
	ids := []string{}
	for _, w := range ws {
		ids = append(ids, w.ID)
	}
	return ids
}

func newService(t testing.TB, files map[string]string) (*Service, *wiki.Store, string) {
	t.Helper()
	st, dir := teststore.New(t, files)
	return New(st, links.Open(st), nil), st, dir
}

func sha(s string) string { return store.SHA256Hex([]byte(s)) }

func TestQueueMarkedWrites(t *testing.T) {
	s, st, _ := newService(t, map[string]string{"pages/a.md": "# A\n"})
	a := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "B", Content: "b\n"}))
	call(t, st, "write_page", false, writePage(st, wiki.PageInput{Title: "C", Content: "c\n"}))
	c := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "D", Content: "d\n"}))
	// log.md and sources/ only: never reviewed, even when marked.
	call(t, st, "append_log", true, func(ctx context.Context) error {
		_, err := st.AppendLog(ctx, wiki.LogInput{Op: "note", Title: "x"})
		return err
	})
	call(t, st, "add_source", true, func(ctx context.Context) error {
		return st.Update(ctx, func(tx *store.Tx) error { return tx.Create("sources/n.md", []byte("raw\n")) })
	})
	// A failed marked call is not queued.
	fc := store.NewCall("write_page", "s-test", nil)
	fc.SetExtra(MarkKey, wiki.ReviewAfter)
	_, ferr := st.WritePage(store.WithCall(context.Background(), fc), wiki.PageInput{Title: "A", Content: "no base"})
	if ferr == nil {
		t.Fatal("an update without base_sha256 succeeded")
	}
	if err := st.Audit(fc, ferr); err != nil {
		t.Fatal(err)
	}

	if got, want := queueIDs(t, s), []string{c, a}; !reflect.DeepEqual(got, want) {
		t.Fatalf("queue %v, want %v (newest first, marked only)", got, want)
	}
	ws, _, _, _ := s.Queue(10, "")
	if w := ws[0]; w.Tool != "write_page" || w.Session != "s-test" || w.Status != StatusUnreviewed ||
		len(w.Files) != 1 || w.Files[0].Path != "pages/d.md" || w.Files[0].Before != "" || w.Files[0].After != sha(readFile(t, st.Dir(), "pages/d.md")) {
		t.Errorf("queued write %+v", w)
	}

	// Paging: one at a time.
	p1, next, total, err := s.Queue(1, "")
	if err != nil || len(p1) != 1 || p1[0].ID != c || next != a || total != 2 {
		t.Fatalf("page 1: %v %q %d %v", p1, next, total, err)
	}
	p2, next, total, err := s.Queue(1, next)
	if err != nil || len(p2) != 1 || p2[0].ID != a || next != "" || total != 2 {
		t.Fatalf("page 2: %v %q %d %v", p2, next, total, err)
	}
	if _, _, _, err := s.Queue(1, "a-nonsense"); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("unknown cursor: %v, want invalid", err)
	}

	// Accept removes from the queue, is recorded and audited.
	if err := s.Accept(context.Background(), []string{a}, ByCLI); err != nil {
		t.Fatal(err)
	}
	if got := queueIDs(t, s); !reflect.DeepEqual(got, []string{c}) {
		t.Fatalf("after accept: %v", got)
	}
	rec := teststore.LastCall(t, st.Dir(), "review:accept")
	if rec == nil || rec.Outcome != "ok" || rec.Extra["decision"] != DecisionAccepted || rec.Extra["reviewer"] != ByCLI ||
		!reflect.DeepEqual(rec.Extra["writes"], []any{a}) {
		t.Fatalf("accept audit line %+v", rec)
	}
	if err := s.Accept(context.Background(), []string{a}, ByWeb); store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "already accepted") {
		t.Errorf("accept twice: %v", err)
	}
	if err := s.Accept(context.Background(), []string{"a-000000000000"}, ByWeb); store.CodeOf(err) != store.CodeNotFound {
		t.Errorf("accept unknown: %v", err)
	}
	if cn, err := s.Count(); err != nil || cn.Unreviewed != 1 {
		t.Errorf("count %+v %v", cn, err)
	}

	// A fresh service (another process) reads the same decisions.
	s2 := New(st, nil, nil)
	if got := queueIDs(t, s2); !reflect.DeepEqual(got, []string{c}) {
		t.Fatalf("fresh service: %v", got)
	}
	n, err := s2.AcceptAll(context.Background(), ByWeb, "")
	if err != nil || n != 1 {
		t.Fatalf("accept all: %d %v", n, err)
	}
	if got := queueIDs(t, s); len(got) != 0 {
		t.Fatalf("after accept all: %v", got)
	}
}

func TestRevertUpdateByteExact(t *testing.T) {
	orig := "---\r\ntitle: A\r\n---\r\nline one\r\nline two without newline"
	s, st, dir := newService(t, map[string]string{"pages/a.md": orig})
	id := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "A", Content: "rewritten\n", BaseSHA256: sha(orig)}))
	written := readFile(t, dir, "pages/a.md")

	diffs, err := s.WriteDiffs(id)
	if err != nil || len(diffs) != 1 || diffs[0].Change != "updated" || diffs[0].Added == 0 || diffs[0].Removed == 0 ||
		!strings.Contains(diffs[0].Diff, "-line two without newline") || !strings.Contains(diffs[0].Diff, "+rewritten") {
		t.Fatalf("diffs %+v %v", diffs, err)
	}

	res, err := s.Revert(context.Background(), id, ByWeb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, RevertResult{ID: id, Files: []string{"pages/a.md"}}) {
		t.Errorf("result %+v", res)
	}
	if got := readFile(t, dir, "pages/a.md"); got != orig {
		t.Fatalf("reverted bytes %q, want %q", got, orig)
	}
	rec := teststore.LastCall(t, dir, "review:revert")
	if rec == nil || rec.Outcome != "ok" || rec.Extra["decision"] != DecisionReverted || rec.Extra["reviewer"] != ByWeb ||
		!reflect.DeepEqual(rec.Extra["writes"], []any{id}) {
		t.Fatalf("revert audit line %+v", rec)
	}
	var wrote bool
	for _, w := range rec.Writes {
		wrote = wrote || (w.Path == "pages/a.md" && w.Before == sha(written) && w.After == sha(orig))
	}
	if !wrote || len(rec.Snapshots) == 0 {
		t.Errorf("revert writes %+v snapshots %v: want pages/a.md from the written version back to the original, snapshotted", rec.Writes, rec.Snapshots)
	}
	if log := readFile(t, dir, "log.md"); !strings.Contains(log, "review | write "+id+" reverted: pages/a.md (web)") {
		t.Errorf("log.md lacks the revert entry:\n%s", log)
	}
	// The revert is not itself queued, and the write is no longer.
	if got := queueIDs(t, s); len(got) != 0 {
		t.Errorf("queue after revert: %v", got)
	}
	if _, err := s.Revert(context.Background(), id, ByWeb); store.CodeOf(err) != store.CodeConflict {
		t.Errorf("revert twice: %v", err)
	}
	// The written version is gone from disk but kept by the revert's
	// snapshot, so the diff still shows it.
	if d, err := s.WriteDiffs(id); err != nil || !strings.Contains(d[0].Diff, "+rewritten") {
		t.Errorf("diff after revert: %+v %v", d, err)
	}
}

func TestRevertCreateDeletes(t *testing.T) {
	s, st, dir := newService(t, nil)
	id := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "New", Content: "fresh\n"}))
	if d, err := s.WriteDiffs(id); err != nil || len(d) != 1 || d[0].Change != "created" || d[0].Removed != 0 || d[0].Added == 0 {
		t.Fatalf("diffs %+v %v", d, err)
	}
	// Inside a call of the page's own (the web page's), no line of its own.
	c := store.NewCall("ui:revert", "s-web", nil)
	_, err := s.Revert(store.WithCall(context.Background(), c), id, ByWeb)
	if aerr := st.Audit(c, err); err != nil || aerr != nil {
		t.Fatal(err, aerr)
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "new.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("created page still there: %v", err)
	}
	if teststore.LastCall(t, dir, "review:revert") != nil {
		t.Error("a revert inside a call wrote its own audit line")
	}
	if rec := teststore.LastCall(t, dir, "ui:revert"); rec == nil || rec.Extra["decision"] != DecisionReverted || len(rec.Writes) == 0 {
		t.Errorf("the call's line %+v", rec)
	}
}

func TestRevertMoveRestoresAll(t *testing.T) {
	files := map[string]string{
		"pages/old.md":   "# Old\n\nbody\n",
		"pages/user.md":  "See [[old]].\r\n",
		"pages/other.md": "Also [[old|the old one]]",
	}
	s, st, dir := newService(t, files)
	reviewed := func(rel string) bool { return rel != "pages" && !Reviewed(rel) }
	before := wikitest.TreeHashes(t, dir, reviewed)
	id := call(t, st, "move_page", true, func(ctx context.Context) error {
		_, err := edit.Move(ctx, st, links.Open(st), edit.MoveInput{From: "old", To: "new"})
		return err
	})
	if readFile(t, dir, "pages/user.md") == files["pages/user.md"] {
		t.Fatal("the move rewrote no link")
	}
	ws, _, _, _ := s.Queue(10, "")
	if len(ws) != 1 || len(ws[0].Files) != 4 {
		t.Fatalf("queued %+v, want one write of 4 files", ws)
	}
	res, err := s.Revert(context.Background(), id, ByCLI)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 4 {
		t.Errorf("restored %v", res.Files)
	}
	if after := wikitest.TreeHashes(t, dir, reviewed); before["pages/old.md"] == "" || !reflect.DeepEqual(after, before) {
		t.Errorf("pages after revert %v, want %v", after, before)
	}
	for rel, want := range files {
		if got := readFile(t, dir, rel); got != want {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
	}
}

func TestRevertConflictWritesNothing(t *testing.T) {
	s, st, dir := newService(t, map[string]string{"pages/a.md": "# A\n", "pages/b.md": "# B\n"})
	id := call(t, st, "write_page", true, func(ctx context.Context) error {
		return st.Update(ctx, func(tx *store.Tx) error {
			if err := tx.Replace("pages/a.md", []byte("# A2\n"), ""); err != nil {
				return err
			}
			return tx.Replace("pages/b.md", []byte("# B2\n"), "")
		})
	})
	call(t, st, "edit_page", false, func(ctx context.Context) error {
		return st.Update(ctx, func(tx *store.Tx) error { return tx.Replace("pages/b.md", []byte("# B3\n"), "") })
	})
	before := wikitest.TreeHashes(t, dir, nil)
	_, err := s.Revert(context.Background(), id, ByWeb)
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "pages/b.md changed since write "+id) {
		t.Fatalf("revert of a changed file: %v", err)
	}
	after := wikitest.TreeHashes(t, dir, func(rel string) bool { return strings.HasPrefix(rel, ".llmwiki/audit") })
	for rel, h := range after {
		if before[rel] != h {
			t.Errorf("%s changed by a refused revert", rel)
		}
	}
	if got := queueIDs(t, s); !reflect.DeepEqual(got, []string{id}) {
		t.Errorf("a refused revert left the queue %v", got)
	}
}

func TestRevertPrunedSnapshot(t *testing.T) {
	s, st, dir := newService(t, map[string]string{"pages/a.md": "# A\n"})
	id := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "A", Content: "x\n", BaseSHA256: sha("# A\n")}))
	if err := os.RemoveAll(filepath.Join(dir, ".llmwiki", "snapshots")); err != nil {
		t.Fatal(err)
	}
	written := readFile(t, dir, "pages/a.md")
	if _, err := s.Revert(context.Background(), id, ByWeb); store.CodeOf(err) != store.CodeNotFound || !strings.Contains(err.Error(), "no longer stored") {
		t.Fatalf("revert without the snapshot: %v", err)
	}
	if readFile(t, dir, "pages/a.md") != written {
		t.Error("the page changed")
	}
	if d, err := s.WriteDiffs(id); err != nil || !strings.Contains(d[0].Diff, "no longer stored") {
		t.Errorf("diff without the snapshot: %+v %v", d, err)
	}
}

// The index parses only what was appended since, and a last line still
// being written (or torn) waits until it is whole.
func TestQueueIndexTail(t *testing.T) {
	s, st, dir := newService(t, nil)
	a := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "A", Content: "a\n"}))
	if got := queueIDs(t, s); !reflect.DeepEqual(got, []string{a}) {
		t.Fatalf("queue %v", got)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".llmwiki", "audit", "*.jsonl"))
	f, err := os.OpenFile(logs[len(logs)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"a-0123456789ab","outcome":"ok","extra":{"review":"after"},"writes":[{"path":"pages/t.md","sha256_bef`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := queueIDs(t, s); !reflect.DeepEqual(got, []string{a}) {
		t.Fatalf("with a torn last line: %v", got)
	}
	// The store's next audit line moves the torn bytes away first.
	b := call(t, st, "write_page", true, writePage(st, wiki.PageInput{Title: "B", Content: "b\n"}))
	if got := queueIDs(t, s); !reflect.DeepEqual(got, []string{b, a}) {
		t.Fatalf("after the repair: %v, want %v", got, []string{b, a})
	}
	// A file cut shorter (by a person's hand) is parsed again.
	if err := os.WriteFile(logs[len(logs)-1], nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := queueIDs(t, s); len(got) != 0 {
		t.Fatalf("after the audit file was emptied: %v", got)
	}
}

// A call that wrote a page twice is reverted to the version before its
// first write; one that wrote a page and put it back is not queued.
func TestRevertTwoWritesOfOneFile(t *testing.T) {
	s, st, dir := newService(t, map[string]string{"pages/a.md": "# A\n", "pages/b.md": "# B\n"})
	replace := func(rel, data string) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			return st.Update(ctx, func(tx *store.Tx) error { return tx.Replace(rel, []byte(data), "") })
		}
	}
	id := call(t, st, "edit_page", true, func(ctx context.Context) error {
		for _, f := range []func(context.Context) error{replace("pages/a.md", "# A2\n"), replace("pages/a.md", "# A3\n"), replace("pages/b.md", "# B2\n"), replace("pages/b.md", "# B\n")} {
			if err := f(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	ws, _, _, err := s.Queue(10, "")
	if err != nil || len(ws) != 1 || len(ws[0].Files) != 1 || ws[0].Files[0] != (store.WriteRecord{Path: "pages/a.md", Before: sha("# A\n"), After: sha("# A3\n")}) {
		t.Fatalf("queued %+v %v", ws, err)
	}
	if d, err := s.WriteDiffs(id); err != nil || !strings.Contains(d[0].Diff, "-# A\n+# A3\n") {
		t.Errorf("diff %+v %v", d, err)
	}
	if _, err := s.Revert(context.Background(), id, ByCLI); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "pages/a.md"); got != "# A\n" {
		t.Errorf("a.md = %q", got)
	}
}

func TestRevertContextAndCount(t *testing.T) {
	s, st, dir := newService(t, nil)
	orig := readFile(t, dir, "context.md")
	id := call(t, st, "atomic_write_context", true, func(ctx context.Context) error {
		_, err := st.WriteContext(ctx, wiki.ContextInput{Content: "# Context\n\nThe synthesis.\n", BaseSHA256: sha(orig)})
		return err
	})
	if c, err := s.Count(); err != nil || c != (Counts{Pending: 0, Unreviewed: 1}) {
		t.Fatalf("count %+v %v", c, err)
	}
	ws, _, _, _ := s.Queue(0, "")
	if len(ws) != 1 || ws[0].ID != id || ws[0].Files[0].Path != "context.md" {
		t.Fatalf("queued %+v (log.md, written too, is not reviewed)", ws)
	}
	if _, err := s.Revert(context.Background(), id, ByCLI); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "context.md"); got != orig {
		t.Errorf("context.md = %q, want %q", got, orig)
	}
	if c, err := s.Count(); err != nil || c.Unreviewed != 0 {
		t.Errorf("count after revert %+v %v", c, err)
	}
}

// TestRevertNamesTheLaterWrite: a revert refused because a later write in
// the queue changed the file names that write, so the person reverts it
// first; once it is reverted, the first revert goes through.
func TestRevertNamesTheLaterWrite(t *testing.T) {
	s, st, dir := newService(t, map[string]string{"pages/a.md": "# A\n"})
	first := call(t, st, "write_page", true, func(ctx context.Context) error {
		return st.Update(ctx, func(tx *store.Tx) error { return tx.Replace("pages/a.md", []byte("# A2\n"), "") })
	})
	second := call(t, st, "edit_page", true, func(ctx context.Context) error {
		return st.Update(ctx, func(tx *store.Tx) error { return tx.Replace("pages/a.md", []byte("# A3\n"), "") })
	})
	_, err := s.Revert(context.Background(), first, ByWeb)
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "write "+second+" changed it next and awaits review; revert that one first") {
		t.Fatalf("revert under a later queued write: %v", err)
	}
	if _, err := s.Revert(context.Background(), second, ByWeb); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Revert(context.Background(), first, ByWeb); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "pages/a.md"); got != "# A\n" {
		t.Errorf("after both reverts: %q", got)
	}
}

func TestReviewed(t *testing.T) {
	for rel, want := range map[string]bool{
		"context.md": true, "pages/a.md": true, "pages/index.md": true, "pages/en/Plugins/Graph view.md": true,
		"index.md": false, "log.md": false, "schema.md": false, "guidelines.md": false,
		"sources/a.md": false, "sources/research/a.md": false, ".llmwiki/plans/p.json": false, "pages/image.png": false,
	} {
		if got := Reviewed(rel); got != want {
			t.Errorf("Reviewed(%q) = %v, want %v", rel, got, want)
		}
	}
}
