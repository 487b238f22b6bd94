package wiki

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// writeScenario is one kind of write, run against a wiki prepared by setup.
type writeScenario struct {
	name  string
	setup func(t *testing.T, s *Store)
	op    func(ctx context.Context, s *Store) error
}

func writeScenarios() []writeScenario {
	page := func(t *testing.T, s *Store) {
		if _, err := s.WritePage(context.Background(), PageInput{Title: "Topic", Summary: "first", Content: "version one\n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WriteContext(context.Background(), ContextInput{Content: "# Context\n\nold synthesis\n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ResearchSave(context.Background(), ResearchInput{Topic: "notes", Content: "first finding"}); err != nil {
			t.Fatal(err)
		}
	}
	updatePage := func(ctx context.Context, s *Store) error {
		cur, _, _ := s.ReadRaw("pages/topic.md")
		_, err := s.WritePage(ctx, PageInput{Title: "Topic", Summary: "second", Content: "version two\n", BaseSHA256: store.SHA256Hex(cur)})
		return err
	}
	return []writeScenario{
		{"write_page create (page and index.md)", page, func(ctx context.Context, s *Store) error {
			_, err := s.WritePage(ctx, PageInput{Title: "New Page", Summary: "s", Content: "body\n"})
			return err
		}},
		{"write_page update (page and index.md)", page, updatePage},
		{"write_page update (page only)", page, func(ctx context.Context, s *Store) error {
			cur, _, _ := s.ReadRaw("pages/topic.md")
			_, err := s.WritePage(ctx, PageInput{Title: "Topic", Content: "version three\n", BaseSHA256: store.SHA256Hex(cur)})
			return err
		}},
		{"atomic_write_context", page, func(ctx context.Context, s *Store) error {
			_, err := s.WriteContext(ctx, ContextInput{Content: "# Context\n\nnew synthesis\n"})
			return err
		}},
		{"atomic_write_context spill (context, new page, index.md)", page, func(ctx context.Context, s *Store) error {
			var b strings.Builder
			for i := 0; i < 450; i++ {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			_, err := s.WriteContext(ctx, ContextInput{Content: b.String(), OnOverflow: "spill"})
			return err
		}},
		{"append_log", page, func(ctx context.Context, s *Store) error {
			_, err := s.AppendLog(ctx, LogInput{Op: "note", Title: "an entry"})
			return err
		}},
		{"research_save append", page, func(ctx context.Context, s *Store) error {
			_, err := s.ResearchSave(ctx, ResearchInput{Topic: "notes", Content: "second finding"})
			return err
		}},
		{"save_source", page, func(ctx context.Context, s *Store) error {
			_, err := s.SaveSource(ctx, SourceInput{Path: "sources/new.md", Content: "raw\n"})
			return err
		}},
		{"rebuild_index", func(t *testing.T, s *Store) {
			page(t, s)
			mustWrite(t, s.Dir(), "index.md", "stale\n")
		}, func(ctx context.Context, s *Store) error {
			_, err := s.RebuildIndex(ctx)
			return err
		}},
	}
}

// wikiFiles fingerprints the wiki's own files (not .llmwiki/).
func wikiFiles(t testing.TB, dir string) map[string]string {
	return wikitest.TreeHashes(t, dir, func(rel string) bool { return rel == ".llmwiki" })
}

// prepared returns a folder holding the scenario's starting wiki.
func prepared(t *testing.T, sc writeScenario) string {
	dir := filepath.Join(t.TempDir(), "base")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	sc.setup(t, s)
	s.Close()
	return dir
}

func cloneWiki(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), "wiki")
	wikitest.CopyTree(t, src, dst)
	return dst
}

// runWith runs op on a store opened with fault, in its own goroutine, so a
// fault that calls runtime.Goexit stops the write where a crash would.
func runWith(t *testing.T, dir string, op func(context.Context, *Store) error, fault func(step, rel string) error) (err error, crashed bool) {
	s := openStore(t, dir, WithFaults(fault))
	done := make(chan struct{})
	crashed = true
	go func() {
		defer close(done)
		err = op(context.Background(), s)
		crashed = false
	}()
	<-done
	s.Close()
	return err, crashed
}

// checkWiki checks what must hold after any crash or failure: every file
// parses, no temp file or journal remains, every audit line parses, and
// every version the audit log says was replaced is in a snapshot.
func checkWiki(t *testing.T, dir string) {
	t.Helper()
	if tf := findTemps(dir); len(tf) > 0 {
		t.Errorf("temp files remain: %v", tf)
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(store.JournalFile))); err == nil {
		t.Errorf("the journal remains")
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || strings.Contains(p, string(filepath.Separator)+".llmwiki"+string(filepath.Separator)) {
			return nil
		}
		data, _ := os.ReadFile(p)
		if _, err := mdoc.ParseDoc(p, data); err != nil {
			t.Errorf("%s does not parse: %v", p, err)
		}
		return nil
	})
	snaps := snapshotHashes(t, dir)
	recs := parsedAudit(t, dir)
	for _, r := range recs {
		for _, p := range r.Pruned { // deleted by the retention, audited
			if sn, ok := store.ParseSnapshotPath(p.Path); ok {
				if snaps[sn.Path] == nil {
					snaps[sn.Path] = map[string]bool{}
				}
				snaps[sn.Path][p.Before] = true
			}
		}
	}
	for _, r := range recs {
		for _, w := range r.Writes {
			if w.Before != "" && w.After != "" && snapshotted(w.Path, store.OpReplace) && !strings.HasSuffix(w.Path, "log.md") && LayerOf(w.Path) != LayerResearch {
				if !snaps[w.Path][w.Before] {
					t.Errorf("audit says %s %s… was replaced, but no snapshot holds it", w.Path, short(w.Before))
				}
			}
		}
	}
}

func findTemps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && store.IsTempName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// snapshotHashes maps each snapshotted path to the sha256 of its snapshots.
func snapshotHashes(t testing.TB, dir string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	base := filepath.Join(dir, filepath.FromSlash(store.SnapshotDir))
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(base, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		b, _ := os.ReadFile(p)
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		out[rel][store.SHA256Hex(b)] = true
		return nil
	})
	return out
}

func parsedAudit(t testing.TB, dir string) []store.AuditRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(store.AuditDir), "*.jsonl"))
	var all []store.AuditRecord
	for _, f := range files {
		data, _ := os.ReadFile(f)
		recs, bad := store.ParseAuditLines(data)
		if bad > 0 {
			t.Errorf("%s: %d audit lines do not parse", filepath.Base(f), bad)
		}
		all = append(all, recs...)
	}
	return all
}

// TestCrashAtEveryStep stops each kind of write at every step of the
// writer (create, write, fsync, rename of each temp file, remove, folder
// fsync: the snapshot's, the journal's and each file's) as a crash would,
// then opens the wiki again. The wiki's files must be exactly the old ones
// or exactly the new ones, never a mix, with every check of checkWiki.
func TestCrashAtEveryStep(t *testing.T) {
	var crashes atomic.Int32
	t.Cleanup(func() { wikitest.Figure(t, "crash-steps", map[string]any{"cases": int(crashes.Load())}) })
	for _, sc := range writeScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			base := prepared(t, sc)
			before := wikiFiles(t, base)
			// A clean run gives the new state and the number of steps.
			var steps int32
			ref := cloneWiki(t, base)
			if err, _ := runWith(t, ref, sc.op, func(string, string) error { atomic.AddInt32(&steps, 1); return nil }); err != nil {
				t.Fatal(err)
			}
			after := wikiFiles(t, ref)
			if len(wikitest.DiffHashes(before, after)) == 0 {
				t.Fatal("the scenario changes nothing")
			}
			for k := int32(1); k <= steps; k++ {
				dir := cloneWiki(t, base)
				var n int32
				var at string
				_, crashed := runWith(t, dir, sc.op, func(step, rel string) error {
					if atomic.AddInt32(&n, 1) == k {
						at = step + " " + rel
						runtime.Goexit()
					}
					return nil
				})
				if !crashed {
					t.Fatalf("step %d did not stop the write", k)
				}
				crashes.Add(1)
				s := openStore(t, dir) // recovery runs here
				got := wikiFiles(t, dir)
				old, new := wikitest.DiffHashes(before, got), wikitest.DiffHashes(after, got)
				if len(old) > 0 && len(new) > 0 {
					t.Errorf("crash at step %d (%s): the wiki is a mix of old and new: vs old %v, vs new %v", k, at, old, new)
				}
				s.Close()
				checkWiki(t, dir)
			}
		})
	}
}

// TestWriteFailsCleanly fails each step of each kind of write with the
// errors a full or read-only disk gives: the call fails with a message
// naming the cause, and the wiki is byte-identical (no temp file, no
// snapshot, no journal left).
func TestWriteFailsCleanly(t *testing.T) {
	var n atomic.Int32
	t.Cleanup(func() { wikitest.Cases(t, "disk-faults", int(n.Load())) })
	for _, sc := range writeScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			base := prepared(t, sc)
			var steps int32
			ref := cloneWiki(t, base)
			if err, _ := runWith(t, ref, sc.op, func(string, string) error { atomic.AddInt32(&steps, 1); return nil }); err != nil {
				t.Fatal(err)
			}
			errnos := []struct {
				err  error
				want string
			}{{syscall.ENOSPC, "the disk is full"}, {syscall.EROFS, "the disk is read-only"}, {os.ErrPermission, "permission denied"}}
			// Every step fails once; the causes take turns.
			{
				for k := int32(1); k <= steps; k++ {
					errno := errnos[int(k)%len(errnos)]
					dir := cloneWiki(t, base)
					before := dropStateDirs(treeOf(t, dir))
					var i int32
					var at string
					err, _ := runWith(t, dir, sc.op, func(step, rel string) error {
						if atomic.AddInt32(&i, 1) == k {
							at = step + " " + rel
							return &os.PathError{Op: step, Path: "/host/path/" + rel, Err: errno.err}
						}
						return nil
					})
					n.Add(1)
					after := dropStateDirs(treeOf(t, dir))
					if strings.HasPrefix(at, "syncdir") && err == nil {
						// The data is in place; only its folder's fsync failed (logged).
						continue
					}
					if strings.HasSuffix(at, " "+SourcesRecordFile) && err == nil {
						// The source is in place; only the record of its
						// sha256 was not updated (a warning; the next scan
						// records it as found on disk).
						continue
					}
					if err == nil {
						t.Errorf("%v at step %d (%s): the write succeeded", errno.err, k, at)
						continue
					}
					msg := store.PublicMessage(err)
					if !strings.Contains(msg, errno.want) || strings.Contains(msg, "/host/") {
						t.Errorf("%v at step %d (%s): message %q", errno.err, k, at, msg)
					}
					if d := wikitest.DiffHashes(before, after); len(d) > 0 {
						t.Errorf("%v at step %d (%s): the wiki changed: %v", errno.err, k, at, d)
					}
					checkWiki(t, dir)
				}
			}
		})
	}
}

// TestTornAuditLine: a last audit line cut short by a crash is moved aside
// when the wiki opens (reported by load_project), or by the next append
// from a process that was already running; earlier lines stay byte for
// byte and every line parses.
func TestTornAuditLine(t *testing.T) {
	s, dir := newStore(t)
	ctx, call := ctxWithCall("append_log")
	_, err := s.AppendLog(ctx, LogInput{Op: "note", Title: "one"})
	if err := s.Audit(call, err); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, ".llmwiki", "audit", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("audit files: %v", files)
	}
	good, _ := os.ReadFile(files[0])
	torn := `{"time":"2026-01-02T03:04:05Z","session":"x","tool":"write_pa`
	os.WriteFile(files[0], append(append([]byte(nil), good...), torn...), 0o644)

	// 1. A process already running repairs it before its next line.
	ctx, call = ctxWithCall("append_log")
	_, err = s.AppendLog(ctx, LogInput{Op: "note", Title: "two"})
	if err := s.Audit(call, err); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.HasPrefix(string(data), string(good)) {
		t.Fatal("earlier audit bytes changed")
	}
	recs, bad := store.ParseAuditLines(data)
	if bad != 0 || len(recs) != 3 || recs[1].Tool != "internal:repair" || recs[2].Tool != "append_log" {
		t.Fatalf("after repair: %d bad, %+v", bad, recs)
	}
	moved, _ := filepath.Glob(filepath.Join(dir, ".llmwiki", "audit", "torn", "*"))
	if len(moved) != 1 {
		t.Fatalf("torn bytes not kept: %v", moved)
	}
	if b, _ := os.ReadFile(moved[0]); string(b) != torn {
		t.Errorf("kept torn bytes = %q", b)
	}
	if len(s.Repairs()) != 1 {
		t.Errorf("repairs = %v", s.Repairs())
	}

	// 2. A store that opens repairs it and load_project reports it.
	data, _ = os.ReadFile(files[0])
	os.WriteFile(files[0], append(data, `{"time":"2026`...), 0o644)
	s2 := openStore(t, dir)
	data2, _ := os.ReadFile(files[0])
	if !strings.HasPrefix(string(data2), string(data)) {
		t.Fatal("earlier audit bytes changed on open")
	}
	if _, bad := store.ParseAuditLines(data2); bad != 0 {
		t.Errorf("%d lines do not parse after open", bad)
	}
	p, err := s2.LoadProject(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, pr := range p.Problems {
		found = found || strings.Contains(pr, "cut short by a crash")
	}
	if !found {
		t.Errorf("load_project problems do not report the repair: %v", p.Problems)
	}
	checkWiki(t, dir)
}

// TestJournalRollForward: a journal naming temp files is completed when
// the wiki opens, and the completion is audited and reported.
func TestJournalRollForward(t *testing.T) {
	sc := writeScenarios()[1] // write_page update: page and index.md
	base := prepared(t, sc)
	ref := cloneWiki(t, base)
	if err, _ := runWith(t, ref, sc.op, nil); err != nil {
		t.Fatal(err)
	}
	after := wikiFiles(t, ref)
	dir := cloneWiki(t, base)
	// Stop just before the second rename: the journal and one temp remain.
	renames := 0
	_, crashed := runWith(t, dir, sc.op, func(step, rel string) error {
		if step == "rename" && !strings.HasPrefix(rel, ".llmwiki") {
			if renames++; renames == 2 {
				runtime.Goexit()
			}
		}
		return nil
	})
	if !crashed {
		t.Fatal("no crash")
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(store.JournalFile))); err != nil {
		t.Fatal("no journal after the crash")
	}
	s := openStore(t, dir)
	if d := wikitest.DiffHashes(after, wikiFiles(t, dir)); len(d) > 0 {
		t.Errorf("not rolled forward: %v", d)
	}
	r := s.Repairs()
	if len(r) == 0 || !strings.Contains(strings.Join(r, " "), "completed a write that a crash interrupted") {
		t.Errorf("repairs = %v", r)
	}
	var rec *store.AuditRecord
	recs := parsedAudit(t, dir)
	for i := range recs {
		if recs[i].Tool == "internal:recover" {
			rec = &recs[i]
		}
	}
	if rec == nil || len(rec.Writes) == 0 {
		t.Errorf("the recovery is not audited: %+v", rec)
	}
	checkWiki(t, dir)
}

// dropStateDirs leaves out folders under .llmwiki/ (an empty snapshot
// folder made for a write that then failed is not a change).
func dropStateDirs(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v == "dir" && strings.HasPrefix(k, ".llmwiki/") {
			continue
		}
		out[k] = v
	}
	return out
}

var _ = errors.New
var _ = sort.Strings
