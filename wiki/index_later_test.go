package wiki

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// wantIndex is index.md as a full rebuild renders it from the pages on disk.
func wantIndex(t *testing.T, s *Store) string {
	t.Helper()
	pages, err := s.PagesFresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return string(RenderIndex(pages)) + "\n"
}

func indexOnDisk(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A regeneration left for after the writes: each create leaves index.md as
// it was and marks it pending; each way of flushing it (FlushIndex, a read
// of index.md, Close) writes what a full rebuild gives, as its own audited
// write, and a flush with nothing pending writes nothing.
func TestIndexLaterFlushes(t *testing.T) {
	never := time.Hour // the timer does not fire during the test
	cases := []struct {
		name  string
		flush func(t *testing.T, s *Store)
	}{
		{"FlushIndex", func(t *testing.T, s *Store) {
			if err := s.FlushIndex(context.Background()); err != nil {
				t.Fatal(err)
			}
		}},
		{"read index.md", func(t *testing.T, s *Store) {
			ctx, call := ctxWithCall("read_page")
			fc, err := s.Read(ctx, ReadInput{Path: "index.md"})
			if err != nil {
				t.Fatal(err)
			}
			if fc.SHA256 == "" || len(call.Record().Writes) != 0 {
				t.Fatalf("read: %+v, the reader's call records writes %v", fc, call.Record().Writes)
			}
		}},
		{"Close", func(t *testing.T, s *Store) {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t, WithIndexLater(0, never, never))
			ctx := context.Background()
			if _, err := s.Pages(); err != nil { // the catalogue is loaded, as a server's first write does
				t.Fatal(err)
			}
			before := indexOnDisk(t, dir)
			for i := range 5 {
				if _, err := s.WritePage(ctx, PageInput{Title: fmt.Sprintf("Note %d", i), Slug: fmt.Sprintf("f%d/note-%d", i%2, i), Summary: "s", Content: "body\n"}); err != nil {
					t.Fatal(err)
				}
				if !s.IndexPending() || indexOnDisk(t, dir) != before {
					t.Fatalf("create %d: pending %v, index.md rewritten in the write", i, s.IndexPending())
				}
			}
			want := wantIndex(t, s)
			auditBefore := len(auditRecords(t, dir))
			tc.flush(t, s)
			if got := indexOnDisk(t, dir); got != want {
				t.Fatalf("index.md after the flush\n%s\nwant\n%s", got, want)
			}
			if s.IndexPending() {
				t.Fatal("still pending after the flush")
			}
			lines := auditRecords(t, dir)[auditBefore:]
			var own []string
			for _, l := range lines {
				if l.Tool == "internal" {
					for _, w := range l.Writes {
						own = append(own, w.Path)
					}
				}
			}
			if len(own) != 1 || own[0] != "index.md" {
				t.Fatalf("the regeneration's audit lines write %v, want [index.md] (lines %+v)", own, lines)
			}
			if tc.name == "Close" {
				return
			}
			n := len(auditRecords(t, dir))
			if err := s.FlushIndex(ctx); err != nil {
				t.Fatal(err)
			}
			if res, err := s.RebuildIndex(ctx); err != nil || res.Changed {
				t.Fatalf("rebuild_index after the flush changed index.md (%+v, %v)", res, err)
			}
			if got := len(auditRecords(t, dir)); got != n+1 { // rebuild_index's own line only
				t.Fatalf("audit lines %d after a flush with nothing pending and a rebuild, want %d", got, n+1)
			}
		})
	}
}

// Below the threshold (and with it at -1) index.md follows in the write.
func TestIndexLaterThreshold(t *testing.T) {
	for _, minPages := range []int{-1, 100} {
		t.Run(fmt.Sprint(minPages), func(t *testing.T) {
			s, dir := newStore(t, WithIndexLater(minPages, time.Hour, time.Hour))
			if _, err := s.Pages(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.WritePage(context.Background(), PageInput{Title: "Note", Content: "body\n"}); err != nil {
				t.Fatal(err)
			}
			if s.IndexPending() || indexOnDisk(t, dir) != wantIndex(t, s) {
				t.Fatalf("pending %v; index.md not written in the write", s.IndexPending())
			}
		})
	}
}

// Writers in parallel with regenerations the timer starts after each quiet
// spell: no page is missing from index.md in the end, which equals a full
// rebuild, and nothing is pending after Close.
func TestIndexLaterNoWriteLost(t *testing.T) {
	s, dir := newStore(t, WithIndexLater(0, time.Millisecond, 5*time.Millisecond))
	if _, err := s.Pages(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if _, err := s.WritePage(context.Background(), PageInput{Title: fmt.Sprintf("W%d note %d", w, i), Content: "body\n"}); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					time.Sleep(3 * time.Millisecond) // a quiet spell: the timer regenerates
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := wantIndex(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := indexOnDisk(t, dir); got != want {
		t.Fatalf("index.md after Close\n%s\nwant\n%s", got, want)
	}
	for w := range 4 {
		for i := range 10 {
			if line := fmt.Sprintf("|W%d note %d]]", w, i); !strings.Contains(want, line) {
				t.Fatalf("index.md lacks %q", line)
			}
		}
	}
}

// The feed's periodic walk of pages/, run in the background, finds a page
// changed, one added and one removed behind the catalogue's back.
func TestCatalogueBackgroundWalk(t *testing.T) {
	s, dir := newStore(t, WithoutWatcher())
	for _, p := range []string{"a", "b", "c"} {
		mustWrite(t, dir, "pages/"+p+".md", "---\ntitle: "+p+"\n---\nbody\n")
	}
	if _, err := s.PagesFresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dir, "pages/a.md", "---\ntitle: a changed, longer\n---\nbody\n")
	mustWrite(t, dir, "pages/sub/d.md", "---\ntitle: d\n---\nbody\n")
	if err := os.Remove(filepath.Join(dir, "pages/b.md")); err != nil {
		t.Fatal(err)
	}
	s.catMu.Lock()
	s.walkPagesInBackground()
	s.catMu.Unlock()
	s.catWG.Wait()
	s.catMu.Lock()
	got := map[string]string{}
	s.cat.each(func(pi PageInfo) bool {
		got[pi.Path] = pi.Title
		return true
	})
	s.catMu.Unlock()
	want := map[string]string{"pages/a.md": "a changed, longer", "pages/c.md": "c", "pages/sub/d.md": "d"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("catalogue after the background walk %v, want %v", got, want)
	}
}

// The sorted catalogue readers share follows creates and deletes merged in
// at the next read, in path order, equal to a fresh scan's.
func TestCatalogueSortedAfterWrites(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	if _, err := s.Pages(); err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		got, err := s.PagesShared(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, p := range got {
			paths = append(paths, p.Path+"="+p.Title)
		}
		fresh, err := s.PagesFresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, p := range fresh {
			want = append(want, p.Path+"="+p.Title)
		}
		if fmt.Sprint(paths) != fmt.Sprint(want) {
			t.Fatalf("%s: shared catalogue %v, want %v", step, paths, want)
		}
	}
	for i, slug := range []string{"m", "c", "x/y", "a", "d"} {
		if _, err := s.WritePage(ctx, PageInput{Title: slug, Slug: slug, Content: "body\n"}); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			check("create " + slug)
		}
	}
	cur, _, _ := s.ReadRaw("pages/c.md")
	if _, err := s.WritePage(ctx, PageInput{Title: "c again", Slug: "c", BaseSHA256: store.SHA256Hex(cur), Content: "body\n"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx *store.Tx) error {
		data, _, _ := tx.Read("pages/m.md")
		return tx.Delete("pages/m.md", store.SHA256Hex(data))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WritePage(ctx, PageInput{Title: "b", Slug: "b", Content: "body\n"}); err != nil {
		t.Fatal(err)
	}
	check("update, delete and create")
}

// A regeneration still pending when the process dies is recorded on disk
// (IndexPendingFile) and done by the next server: a copy of the wiki taken
// right after a create, before any flush, is the crashed state.
func TestIndexLaterAfterCrash(t *testing.T) {
	s, dir := newStore(t, WithIndexLater(0, time.Hour, time.Hour))
	ctx := context.Background()
	if _, err := s.Pages(); err != nil {
		t.Fatal(err)
	}
	before := indexOnDisk(t, dir)
	if _, err := s.WritePage(ctx, PageInput{Title: "Crash note", Content: "body\n"}); err != nil {
		t.Fatal(err)
	}
	marker := func(dir string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(IndexPendingFile)))
		return err == nil
	}
	if !marker(dir) || indexOnDisk(t, dir) != before {
		t.Fatalf("after the create: marker %v, index.md rewritten %v", marker(dir), indexOnDisk(t, dir) != before)
	}
	crashed := t.TempDir()
	if err := os.CopyFS(crashed, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}

	// The first process flushes: the marker goes.
	if err := s.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if marker(dir) {
		t.Fatal("marker left after the flush")
	}

	// The next server on the crashed copy regenerates index.md.
	s2, err := Open(crashed, WithIndexLater(0, time.Hour, time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	if indexOnDisk(t, crashed) != before {
		t.Fatal("the crashed copy's index.md already lists the page")
	}
	s2.ResumeIndex()
	if !s2.IndexPending() {
		t.Fatal("ResumeIndex did not find the pending regeneration")
	}
	if err := s2.FlushIndex(ctx); err != nil {
		t.Fatal(err)
	}
	got := indexOnDisk(t, crashed)
	if got != wantIndex(t, s2) || !strings.Contains(got, "|Crash note]]") {
		t.Fatalf("index.md after the resumed regeneration\n%s", got)
	}
	if marker(crashed) {
		t.Fatal("marker left after the resumed regeneration")
	}

	// Nothing pending: ResumeIndex does nothing.
	s2.ResumeIndex()
	if s2.IndexPending() {
		t.Fatal("ResumeIndex marked a regeneration with no marker on disk")
	}
}
