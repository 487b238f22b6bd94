package wiki

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestSpecialFilesNeverBlock: a FIFO or a Unix socket in a file's place
// under pages/, sources/, or as context.md, log.md or an audit log, makes
// no call wait: reads and writes of it are refused with an invalid error
// naming the wiki path and what it is, never a host path; validate lists
// it; the page catalogue leaves it out and counts it; and the project lock
// is free afterwards (append_log, a page write and a context write land).
// A reader that opened it for reading would block read, write_page and
// validate for ever in open(2).
func TestSpecialFilesNeverBlock(t *testing.T) {
	for _, kind := range wikitest.SpecialKinds {
		t.Run(kind, func(t *testing.T) {
			s, dir := newStore(t)
			what := ""
			for _, rel := range []string{"pages/x.md", "sources/y.md", "pages/sub/z.md"} {
				what = wikitest.MakeSpecial(t, filepath.Join(dir, filepath.FromSlash(rel)), kind)
			}
			refused := func(t *testing.T, call, rel string, err error) {
				t.Helper()
				want := rel + " is not a regular file (" + what + ")"
				if store.CodeOf(err) != store.CodeInvalid || !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), want) {
					t.Errorf("%s: err = %v (code %q), want invalid %q", call, err, store.CodeOf(err), want)
				}
				if strings.Contains(store.PublicMessage(err), dir) {
					t.Errorf("%s: message names a host path: %s", call, store.PublicMessage(err))
				}
			}
			for _, rel := range []string{"pages/x.md", "sources/y.md", "pages/sub/z.md"} {
				ctx, _ := ctxWithCall("read_page")
				_, err := wikitest.Within(t, "Read "+rel, func() (FileContent, error) { return s.Read(ctx, ReadInput{Path: rel}) })
				refused(t, "Read "+rel, rel, err)
				_, err = wikitest.Within(t, "ReadFile "+rel, func() ([]byte, error) { return s.ReadFile(rel) })
				refused(t, "ReadFile "+rel, rel, err)
				_, err = wikitest.Within(t, "OpenFile "+rel, func() (any, error) { return s.OpenFile(rel) })
				refused(t, "OpenFile "+rel, rel, err)
			}
			ctx, _ := ctxWithCall("read_page")
			_, err := wikitest.Within(t, "Read slug x", func() (FileContent, error) { return s.Read(ctx, ReadInput{Page: "x"}) })
			refused(t, "Read slug x", "pages/x.md", err)

			ctx, _ = ctxWithCall("write_page")
			_, err = wikitest.Within(t, "WritePage x", func() (PageWrite, error) {
				return s.WritePage(ctx, PageInput{Title: "x", Content: "new body\n"})
			})
			refused(t, "WritePage x", "pages/x.md", err)
			ctx, _ = ctxWithCall("save_source")
			_, err = wikitest.Within(t, "SaveSource y", func() (SourceWrite, error) {
				return s.SaveSource(ctx, SourceInput{Path: "sources/y.md", Content: "text\n"})
			})
			if err == nil {
				t.Errorf("SaveSource over %s: no error", what)
			}

			st, err := wikitest.Within(t, "ValidateStructure", func() (Structure, error) { return s.ValidateStructure(ctx) })
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]string{}
			for _, p := range st.Problems {
				if p.Kind == "not_regular" {
					found[p.Path] = p.Message
				}
			}
			for _, rel := range []string{"pages/x.md", "sources/y.md", "pages/sub/z.md"} {
				if !strings.Contains(found[rel], "("+what+")") {
					t.Errorf("validate: %s not listed as not_regular (%q); problems %+v", rel, found[rel], st.Problems)
				}
			}
			if st.OK || st.Pages != 0 || st.Sources != 0 {
				t.Errorf("validate: ok=%v pages=%d sources=%d, want false 0 0", st.OK, st.Pages, st.Sources)
			}

			pages, err := wikitest.Within(t, "PagesContext", func() ([]PageInfo, error) { return s.PagesContext(ctx) })
			if err != nil || len(pages) != 0 {
				t.Errorf("catalogue: %v %+v, want no pages", err, pages)
			}
			counts, examples := s.PagesSkipped()
			if counts[store.SkipNotRegular] != 2 || strings.Join(examples[store.SkipNotRegular], ",") != "pages/sub/z.md,pages/x.md" {
				t.Errorf("catalogue skipped = %v %v, want 2 not regular: pages/sub/z.md, pages/x.md", counts, examples)
			}
			// The listing without reads (lint's) says the same.
			if n, lc, le, err := s.PagesListed(ctx); err != nil || n != 0 || !maps.Equal(lc, counts) || strings.Join(le[store.SkipNotRegular], ",") != "pages/sub/z.md,pages/x.md" {
				t.Errorf("PagesListed = %d %v %v %v, want 0 pages, %v", n, lc, le, err, counts)
			}

			// The lock is free: writes of other files land.
			ctx, _ = ctxWithCall("append_log")
			if _, err := wikitest.Within(t, "AppendLog", func() (LogWrite, error) {
				return s.AppendLog(ctx, LogInput{Op: "note", Title: "after the special files"})
			}); err != nil {
				t.Fatalf("append_log: %v", err)
			}
			ctx, _ = ctxWithCall("write_page")
			if _, err := wikitest.Within(t, "WritePage other", func() (PageWrite, error) {
				return s.WritePage(ctx, PageInput{Title: "Other", Content: "fine\n"})
			}); err != nil {
				t.Fatalf("write_page other: %v", err)
			}
			if pages, _ := s.PagesContext(ctx); len(pages) != 1 || pages[0].Path != "pages/other.md" {
				t.Errorf("catalogue after a write: %+v, want pages/other.md", pages)
			}
			if n, lc, _, err := s.PagesListed(ctx); err != nil || n != 1 || lc[store.SkipNotRegular] != 2 {
				t.Errorf("PagesListed after a write = %d %v %v, want 1 page, 2 not regular", n, lc, err)
			}
		})
	}
}

// TestSpecialStateFilesNeverBlock: a FIFO as context.md, log.md, a
// snapshot or today's audit log is refused, never waited on: load_project
// and context.md's writer report it, append_log of log.md is refused, a
// call's audit line is refused (the audit file is not appended to, so its
// buffer can never fill and block the writer that holds the audit lock),
// and validate lists all of them.
func TestSpecialStateFilesNeverBlock(t *testing.T) {
	s, dir := newStore(t)
	ctx, _ := ctxWithCall("write_page")
	if _, err := s.WritePage(ctx, PageInput{Title: "Kept", Content: "v1\n"}); err != nil {
		t.Fatal(err)
	}
	// A stored version of pages/kept.md, then a FIFO in its place; and a
	// FIFO where the snapshot folder of another page would be.
	ctx, _ = ctxWithCall("write_page")
	if _, err := s.WritePage(ctx, PageInput{Title: "Kept", Content: "v2\n", BaseSHA256: sumOfFile(t, dir, "pages/kept.md")}); err != nil {
		t.Fatal(err)
	}
	snaps, err := s.Snapshots("pages/kept.md")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots of pages/kept.md: %v %+v", err, snaps)
	}
	snap := snaps[0].Snapshot
	wikitest.MakeSpecial(t, filepath.Join(dir, filepath.FromSlash(store.SnapshotDir), "pages", "gone.md"), "fifo")
	if _, err := wikitest.Within(t, "Snapshots of a FIFO folder", func() ([]store.Snapshot, error) { return s.Snapshots("pages/gone.md") }); err == nil {
		t.Errorf("snapshots listed through a FIFO folder")
	}
	for _, rel := range []string{"context.md", "log.md", snap} {
		if err := removeForTest(dir, rel); err != nil {
			t.Fatal(err)
		}
		wikitest.MakeSpecial(t, filepath.Join(dir, rel), "fifo")
	}
	ctx, _ = ctxWithCall("read_page")
	_, err = wikitest.Within(t, "Read snapshot", func() (FileContent, error) { return s.Read(ctx, ReadInput{Path: snap}) })
	if !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), snap+" is not a regular file (a FIFO)") {
		t.Errorf("read_page of a FIFO snapshot: %v", err)
	}
	ctx, _ = ctxWithCall("load_project")
	if _, err := wikitest.Within(t, "LoadProject", func() (Project, error) { return s.LoadProject(ctx) }); err != nil {
		t.Logf("load_project: %v", err)
	}
	ctx, _ = ctxWithCall("append_log")
	_, err = wikitest.Within(t, "AppendLog", func() (LogWrite, error) { return s.AppendLog(ctx, LogInput{Op: "note", Title: "x"}) })
	if !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), "log.md is not a regular file (a FIFO)") {
		t.Errorf("append_log to a FIFO log.md: %v", err)
	}
	ctx, _ = ctxWithCall("atomic_write_context")
	_, err = wikitest.Within(t, "WriteContext", func() (ContextWrite, error) { return s.WriteContext(ctx, ContextInput{Content: "# Context\n"}) })
	if !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), "context.md is not a regular file (a FIFO)") {
		t.Errorf("atomic_write_context over a FIFO context.md: %v", err)
	}

	c := store.NewCall("note", "test", nil)
	audit := store.AuditDir + "/" + c.Time.Format("2006-01-02") + ".jsonl"
	if err := removeForTest(dir, audit); err != nil {
		t.Fatal(err)
	}
	wikitest.MakeSpecial(t, filepath.Join(dir, filepath.FromSlash(audit)), "fifo")
	_, err = wikitest.Within(t, "Audit", func() (struct{}, error) { return struct{}{}, s.Audit(c, nil) })
	if !errors.Is(err, store.ErrNotRegular) {
		t.Errorf("audit line into a FIFO: %v, want a not-regular error", err)
	}

	st, err := wikitest.Within(t, "ValidateStructure", func() (Structure, error) { return s.ValidateStructure(ctx) })
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, p := range st.Problems {
		if p.Kind == "not_regular" {
			listed[p.Path] = true
		}
	}
	for _, rel := range []string{"context.md", "log.md", audit, snap, store.SnapshotDir + "/pages/gone.md"} {
		if !listed[rel] {
			t.Errorf("validate does not list %s: %+v", rel, st.Problems)
		}
	}
}

// removeForTest removes the file rel of the wiki at dir, if it is there.
func removeForTest(dir, rel string) error {
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// sumOfFile is the sha256 of the file rel of the wiki at dir.
func sumOfFile(t testing.TB, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return store.SHA256Hex(b)
}

// TestSpecialInPlaceOfAFolder: a FIFO where a folder is expected is an
// error at once for the folder readers (os.Root's OpenRoot and
// fs.ReadDir of it wait in open(2) for a writer), and a symbolic link to a
// FIFO is refused like the FIFO.
func TestSpecialInPlaceOfAFolder(t *testing.T) {
	s, dir := newStore(t)
	wikitest.MakeSpecial(t, filepath.Join(dir, "pages", "sub"), "fifo")
	wikitest.MakeSpecial(t, filepath.Join(dir, "pages", "x.md"), "fifo")
	if _, err := wikitest.Within(t, "OpenRootDir", func() (*os.Root, error) { return store.OpenRootDir(s.Root(), "pages/sub") }); err == nil {
		t.Error("OpenRootDir of a FIFO: no error")
	}
	if _, err := wikitest.Within(t, "ReadDir", func() ([]fs.DirEntry, error) { return s.ReadDir("pages/sub") }); err == nil {
		t.Error("ReadDir of a FIFO: no error")
	}
	if _, err := wikitest.Within(t, "Snapshots", func() ([]store.Snapshot, error) { return s.Snapshots("pages/sub/a.md") }); err != nil {
		t.Logf("snapshots under a FIFO folder: %v", err)
	}
	if err := os.Symlink("x.md", filepath.Join(dir, "pages", "link.md")); err != nil {
		t.Fatal(err)
	}
	ctx, _ := ctxWithCall("read_page")
	_, err := wikitest.Within(t, "Read link", func() (FileContent, error) { return s.Read(ctx, ReadInput{Path: "pages/link.md"}) })
	if !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), "pages/link.md is not a regular file (a FIFO)") {
		t.Errorf("read_page of a link to a FIFO: %v", err)
	}
	st, err := s.ValidateStructure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, p := range st.Problems {
		if p.Kind == "not_regular" {
			listed = append(listed, p.Path)
		}
	}
	if strings.Join(listed, ",") != "pages/link.md,pages/sub,pages/x.md" {
		t.Errorf("validate lists %v as not regular, want pages/link.md, pages/sub, pages/x.md", listed)
	}
}

// TestSpecialLockFileRefusedAtOpen: a FIFO as the project's lock file
// makes Open fail at once with a message naming it (the file lock's own
// open would wait for ever, and every write with it).
func TestSpecialLockFileRefusedAtOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	if err := removeForTest(dir, store.LockFile); err != nil {
		t.Fatal(err)
	}
	wikitest.MakeSpecial(t, filepath.Join(dir, filepath.FromSlash(store.LockFile)), "fifo")
	s, err := wikitest.Within(t, "Open", func() (*Store, error) { return Open(dir) })
	if err == nil {
		s.Close()
		t.Fatal("Open with a FIFO lock file: no error")
	}
	if want := store.LockFile + " is not a regular file (a FIFO)"; !strings.Contains(store.PublicMessage(err), want) {
		t.Errorf("Open: %v, want %q", err, want)
	}
}

// TestSourcesRecordNotRegular: a FIFO, or a symbolic link leading outside
// the root or to a device, in place of .llmwiki/sources.jsonl is listed by
// validate_structure and named in load_project's problems, and neither
// fails; lint and gather_sources go on (the sources are listed, unchecked)
// and nothing replaces the file.
func TestSourcesRecordNotRegular(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		kind string
	}{
		{"fifo", func(t *testing.T, p string) { wikitest.MakeSpecial(t, p, "fifo") }, "a FIFO"},
		{"symlink outside", func(t *testing.T, p string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "rec.jsonl"), p); err != nil {
				t.Skipf("symlink: %v", err)
			}
		}, "a symbolic link"},
		{"symlink to a device", func(t *testing.T, p string) {
			if err := os.Symlink(os.DevNull, p); err != nil {
				t.Skipf("symlink: %v", err)
			}
		}, "a symbolic link"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			if err := os.WriteFile(filepath.Join(dir, "sources", "a.md"), []byte("# A\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rec := filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))
			if err := removeForTest(dir, SourcesRecordFile); err != nil {
				t.Fatal(err)
			}
			tc.make(t, rec)
			before, err := os.Lstat(rec)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			want := SourcesRecordFile + " is not a regular file (" + tc.kind + ")"

			st, err := wikitest.Within(t, "ValidateStructure", func() (Structure, error) { return s.ValidateStructure(ctx) })
			if err != nil {
				t.Fatalf("validate_structure: %v", err)
			}
			var listed []string
			for _, p := range st.Problems {
				if p.Path == SourcesRecordFile {
					listed = append(listed, p.Kind+": "+p.Message)
				}
			}
			if len(listed) != 1 || !strings.HasPrefix(listed[0], "not_regular: "+want) || st.OK {
				t.Errorf("validate_structure lists the record as %q (ok %v), want one not_regular problem %q", listed, st.OK, want)
			}
			if st.Sources != 1 {
				t.Errorf("validate_structure counts %d sources, want 1", st.Sources)
			}

			pr, err := wikitest.Within(t, "LoadProject", func() (Project, error) { return s.LoadProject(ctx) })
			if err != nil {
				t.Fatalf("load_project: %v", err)
			}
			if !slices.ContainsFunc(pr.Problems, func(l string) bool { return strings.Contains(l, want) }) {
				t.Errorf("load_project problems %q do not name the record", pr.Problems)
			}
			if pr.Counts.Sources != 1 {
				t.Errorf("load_project counts %d sources, want 1", pr.Counts.Sources)
			}

			if _, err := wikitest.Within(t, "SourceIssues", func() ([]SourceIssue, error) { return s.SourceIssues(ctx) }); !errors.Is(err, store.ErrNotRegular) || !strings.Contains(store.PublicMessage(err), want) {
				t.Errorf("SourceIssues: %v, want %q", err, want)
			}
			all, err := wikitest.Within(t, "ListSources", func() ([]SourceInfo, error) { return s.ListSourcesContext(ctx) })
			if err != nil || len(all) != 1 || all[0].Path != "sources/a.md" {
				t.Errorf("gather_sources: %v %+v, want sources/a.md", err, all)
			}

			after, err := os.Lstat(rec)
			if err != nil || !os.SameFile(before, after) || after.Mode().Type() != before.Mode().Type() {
				t.Errorf("the record was replaced: %v %v", err, after)
			}
		})
	}
}

// TestSpecialAuditFileWhileRebuildingSources: rebuilding a lost sources
// record reads the audit log; a FIFO among its files (or in place of its
// folder) is passed over, never waited on.
func TestSpecialAuditFileWhileRebuildingSources(t *testing.T) {
	for _, where := range []string{store.AuditDir + "/2020-01-01.jsonl", store.AuditDir} {
		t.Run(where, func(t *testing.T) {
			s, dir := newStore(t)
			ctx, _ := ctxWithCall("save_source")
			if _, err := s.SaveSource(ctx, SourceInput{Path: "sources/a.md", Content: "# A\n"}); err != nil {
				t.Fatal(err)
			}
			if where == store.AuditDir {
				if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(store.AuditDir))); err != nil {
					t.Fatal(err)
				}
			}
			wikitest.MakeSpecial(t, filepath.Join(dir, filepath.FromSlash(where)), "fifo")
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))); err != nil {
				t.Fatal(err)
			}
			ctx, _ = ctxWithCall("validate_structure")
			if _, err := wikitest.Within(t, "SourceIssues", func() ([]SourceIssue, error) { return s.SourceIssues(ctx) }); err != nil {
				t.Logf("source issues: %v", err)
			}
		})
	}
}

// TestCancelledCodedCancelled: a write whose context has ended is coded
// cancelled (not conflict, which callers take for a name taken or a stale
// base) and writes nothing.
func TestCancelledCodedCancelled(t *testing.T) {
	s, dir := newStore(t)
	ctx, _ := ctxWithCall("save_source")
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := s.SaveSource(ctx, SourceInput{Path: "sources/a.md", Content: "# A\n"})
	if store.CodeOf(err) != store.CodeCancelled {
		t.Fatalf("save_source with an ended context: %v (code %s), want cancelled", err, store.CodeOf(err))
	}
	if _, err := os.Stat(filepath.Join(dir, "sources", "a.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cancelled write left sources/a.md: %v", err)
	}
}
