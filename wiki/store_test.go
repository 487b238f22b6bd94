package wiki

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantCode(t *testing.T, err error, code store.Code) {
	t.Helper()
	if store.CodeOf(err) != code {
		t.Fatalf("error = %v (code %q), want code %q", err, store.CodeOf(err), code)
	}
}

// Invariant 1: containment. Names are validated, then resolved through
// os.Root; symlinks that lead out are refused for reads and writes.
func TestInvariantContainment(t *testing.T) {
	s, dir := newStore(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644)
	// A symlinked folder and file inside pages/ that point outside the root.
	os.Symlink(outside, filepath.Join(dir, "pages", "out"))
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "pages", "secret.md"))
	// A sibling whose name starts with the root's name.
	sibling := dir + "-evil"
	os.MkdirAll(sibling, 0o755)
	ctx := context.Background()

	for _, p := range []string{"../outside/secret.md", "/etc/passwd", "pages/../../outside/x.md", `pages\x.md`, "C:/x.md", "../" + filepath.Base(sibling) + "/x.md"} {
		if _, err := s.Read(ctx, ReadInput{Path: p}); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("Read(%q) = %v, want invalid", p, err)
		}
		err := s.Update(ctx, func(tx *store.Tx) error { return tx.Create(p, []byte("x")) })
		if store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("Create(%q) = %v, want invalid", p, err)
		}
	}
	if _, err := s.Read(ctx, ReadInput{Path: "pages/secret.md"}); err == nil {
		t.Error("read through a symlink leading out of the root succeeded")
	}
	if _, err := s.Read(ctx, ReadInput{Path: "pages/out/secret.md"}); err == nil {
		t.Error("read through a symlinked folder leading out succeeded")
	}
	err := s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/out/new.md", []byte("x")) })
	wantCode(t, err, store.CodeInvalid)
	if _, err := os.Stat(filepath.Join(outside, "new.md")); err == nil {
		t.Fatal("a write escaped through the symlinked folder")
	}
	_, err = s.WritePage(ctx, PageInput{Title: "Secret", Content: "overwrite?"})
	if err == nil {
		t.Error("write_page through a symlinked page leading out succeeded")
	}
	if got := readFile(t, outside, "secret.md"); got != "secret" {
		t.Errorf("file outside the root changed: %q", got)
	}
	// A symlink that stays inside the root is still never written through:
	// it could carry a page write into sources/.
	os.Symlink("../sources", filepath.Join(dir, "pages", "src"))
	err = s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/src/x.md", []byte("x")) })
	wantCode(t, err, store.CodeInvalid)
	entries, _ := os.ReadDir(sibling)
	if len(entries) != 0 {
		t.Errorf("sibling folder touched: %v", entries)
	}
}

// Invariant 2: layer rules.
func TestInvariantLayers(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(dir, "sources", "a.md"), []byte("raw"), 0o644)
	cases := []struct {
		name string
		fn   func(tx *store.Tx) error
	}{
		{"rewrite a source", func(tx *store.Tx) error { return tx.Replace("sources/a.md", []byte("new"), "") }},
		{"append to a source", func(tx *store.Tx) error { return tx.Append("sources/a.md", []byte("more")) }},
		{"delete a source", func(tx *store.Tx) error { return tx.Delete("sources/a.md", "") }},
		{"create over a source", func(tx *store.Tx) error { return tx.Create("sources/a.md", []byte("x")) }},
		{"write schema.md", func(tx *store.Tx) error { return tx.Replace("schema.md", []byte("x"), "") }},
		{"rewrite log.md", func(tx *store.Tx) error { return tx.Replace("log.md", []byte("x"), "") }},
		{"write server state", func(tx *store.Tx) error { return tx.Create(".llmwiki/x.md", []byte("x")) }},
		{"write outside the layout", func(tx *store.Tx) error { return tx.Create("notes.md", []byte("x")) }},
		{"replace a research note", func(tx *store.Tx) error { return tx.Replace("sources/research/r.md", []byte("x"), "") }},
		{"non-markdown page", func(tx *store.Tx) error { return tx.Create("pages/x.txt", []byte("x")) }},
	}
	before := treeState(t, dir)
	for _, c := range cases {
		err := s.Update(ctx, c.fn)
		if err == nil || (store.CodeOf(err) != store.CodeInvalid && store.CodeOf(err) != store.CodeConflict) {
			t.Errorf("%s: err = %v, want a refusal", c.name, err)
		}
	}
	if d := diffState(before, treeState(t, dir)); d != "" {
		t.Errorf("refused writes changed files: %s", d)
	}
	// guidelines.md: Eval Insights may change, My Rules may not.
	g := readFile(t, dir, "guidelines.md")
	newG := strings.Replace(g, "(No eval has run yet.)", "- fill the gaps", 1)
	if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Replace("guidelines.md", []byte(newG), "") }); err != nil {
		t.Fatalf("rewriting Eval Insights: %v", err)
	}
	bad := strings.Replace(newG, "(add your own rules here)", "(rewritten by a tool)", 1)
	err := s.Update(ctx, func(tx *store.Tx) error { return tx.Replace("guidelines.md", []byte(bad), "") })
	wantCode(t, err, store.CodeInvalid)
	if readFile(t, dir, "guidelines.md") != newG {
		t.Error("My Rules were changed")
	}
	// A source may be added; a research note may be created and appended to.
	if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Create("sources/b.md", []byte("b")) }); err != nil {
		t.Error(err)
	}
	for i := 0; i < 2; i++ {
		if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Append("sources/research/r.md", []byte("line\n")) }); err != nil {
			t.Error(err)
		}
	}
	if got := readFile(t, dir, "sources/research/r.md"); got != "line\nline\n" {
		t.Errorf("research note = %q", got)
	}
}

// Invariant 3: the project lock is held across processes: a second Store on
// the same folder (its own file descriptor, as another process would have)
// cannot enter a write while the first holds it.
func TestInvariantLock(t *testing.T) {
	s1, dir := newStore(t)
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	ctx := context.Background()
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s1.Update(ctx, func(tx *store.Tx) error {
			close(inside)
			<-release
			return tx.Append("log.md", []byte("first\n"))
		})
	}()
	<-inside
	entered := make(chan struct{})
	second := make(chan error, 1)
	go func() {
		second <- s2.Update(ctx, func(tx *store.Tx) error {
			close(entered)
			return tx.Append("log.md", []byte("second\n"))
		})
	}()
	select {
	case <-entered:
		t.Fatal("the second store entered a write while the first held the lock")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-entered
	if err := <-second; err != nil { // committed (a sleep here lost the race on a busy machine)
		t.Fatal(err)
	}
	log := readFile(t, dir, "log.md")
	if !strings.HasSuffix(log, "first\nsecond\n") {
		t.Errorf("log.md tail = %q", log[max(0, len(log)-30):])
	}

	// Many writers on two stores: every append lands once.
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		st := s1
		if i%2 == 1 {
			st = s2
		}
		wg.Add(1)
		go func(i int, st *Store) {
			defer wg.Done()
			if _, err := st.AppendLog(ctx, LogInput{Op: "note", Title: "writer " + itoa(i)}); err != nil {
				t.Error(err)
			}
		}(i, st)
	}
	wg.Wait()
	log = readFile(t, dir, "log.md")
	for i := 0; i < 40; i++ {
		if n := strings.Count(log, "] note | writer "+itoa(i)+"\n"); n != 1 {
			t.Errorf("writer %d's entry appears %d times", i, n)
		}
	}
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// Invariant 4: base_sha256 — a stale expectation is a conflict, never an
// overwrite.
func TestInvariantBaseSHA(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	w, err := s.WritePage(ctx, PageInput{Title: "Topic", Content: "v1\n"})
	if err != nil {
		t.Fatal(err)
	}
	w2, err := s.WritePage(ctx, PageInput{Title: "Topic", Content: "v2\n", BaseSHA256: w.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.WritePage(ctx, PageInput{Title: "Topic", Content: "v3 from a stale read\n", BaseSHA256: w.SHA256})
	wantCode(t, err, store.CodeConflict)
	if !strings.Contains(readFile(t, dir, w.Path), "v2") {
		t.Error("a stale base_sha256 overwrote the page")
	}
	// Creating over an existing page without base_sha256 is a conflict too.
	_, err = s.WritePage(ctx, PageInput{Title: "topic", Content: "again"})
	wantCode(t, err, store.CodeConflict)
	// The Tx level check.
	err = s.Update(ctx, func(tx *store.Tx) error { return tx.Replace(w.Path, []byte("x"), w.SHA256) })
	wantCode(t, err, store.CodeConflict)
	err = s.Update(ctx, func(tx *store.Tx) error { return tx.Replace(w.Path, []byte("---\ntitle: Topic\n---\nv4\n"), w2.SHA256) })
	if err != nil {
		t.Errorf("a matching base_sha256 was refused: %v", err)
	}
}

// Invariant 5: every replaced version is snapshotted under a name that
// cannot collide, even when the clock does not move.
func TestInvariantSnapshots(t *testing.T) {
	frozen := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s, dir := newStore(t, WithClock(func() time.Time { return frozen }))
	ctx := context.Background()
	w, err := s.WritePage(ctx, PageInput{Title: "Topic", Content: "v1\n"})
	if err != nil {
		t.Fatal(err)
	}
	versions := []string{readFile(t, dir, w.Path)}
	sha := w.SHA256
	for i := 2; i <= 4; i++ {
		r, err := s.WritePage(ctx, PageInput{Title: "Topic", Content: "v" + fmtInt(i) + "\n", BaseSHA256: sha})
		if err != nil {
			t.Fatal(err)
		}
		sha = r.SHA256
		versions = append(versions, readFile(t, dir, w.Path))
	}
	snaps, err := s.Snapshots(w.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots, want 3 (one per replaced version)", len(snaps))
	}
	got := map[string]bool{}
	for _, sn := range snaps {
		got[readFile(t, dir, sn.Snapshot)] = true
	}
	for _, v := range versions[:3] {
		if !got[v] {
			t.Errorf("replaced version not snapshotted:\n%s", v)
		}
	}
}

// Invariant 6: atomic writes. A failure at any step leaves the old file
// byte-identical and no temp file behind; a multi-file write that fails
// midway puts back the files already renamed.
func TestInvariantAtomicWrite(t *testing.T) {
	for _, step := range []string{"create", "write", "sync", "rename"} {
		t.Run(step, func(t *testing.T) {
			var fail bool
			s, dir := newStore(t, WithFaults(func(st, rel string) error {
				if fail && st == step && rel == "context.md" {
					return errors.New("injected " + st + " failure")
				}
				return nil
			}))
			before := readFile(t, dir, "context.md")
			fail = true
			_, err := s.WriteContext(context.Background(), ContextInput{Content: "# New\n"})
			wantCode(t, err, store.CodeInternal)
			if got := readFile(t, dir, "context.md"); got != before {
				t.Errorf("context.md changed after a failed %s", step)
			}
			if tmp := temps(dir); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
		})
	}
	t.Run("multi-file rollback", func(t *testing.T) {
		var fail bool
		s, dir := newStore(t, WithFaults(func(st, rel string) error {
			if fail && st == "rename" && rel == "pages/b.md" {
				return errors.New("injected")
			}
			return nil
		}))
		ctx := context.Background()
		s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/a.md", []byte("a1")) })
		fail = true
		err := s.Update(ctx, func(tx *store.Tx) error {
			if err := tx.Replace("pages/a.md", []byte("a2"), ""); err != nil {
				return err
			}
			return tx.Create("pages/b.md", []byte("b1"))
		})
		if err == nil {
			t.Fatal("the injected failure was not reported")
		}
		if got := readFile(t, dir, "pages/a.md"); got != "a1" {
			t.Errorf("pages/a.md = %q after rollback, want a1", got)
		}
		if _, err := os.Stat(filepath.Join(dir, "pages", "b.md")); err == nil {
			t.Error("pages/b.md exists after rollback")
		}
		if tmp := temps(dir); len(tmp) > 0 {
			t.Errorf("temp files left: %v", tmp)
		}
	})
}

func temps(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && store.IsTempName(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Invariant 7: one audit line per call, with the paths written and their
// sha256 before and after, large strings replaced by length and sha256.
func TestInvariantAudit(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	big := strings.Repeat("x", 5000)
	c := store.NewCall("write_page", "sess-1", map[string]any{"title": "T", "body": big})
	w, err := s.WritePage(store.WithCall(ctx, c), PageInput{Title: "T", Content: big})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Audit(c, nil); err != nil {
		t.Fatal(err)
	}
	c2 := store.NewCall("write_page", "sess-1", map[string]any{"title": "T"})
	_, err = s.WritePage(store.WithCall(ctx, c2), PageInput{Title: "T", Content: "again"})
	s.Audit(c2, err)
	lines := auditRecords(t, dir)
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2", len(lines))
	}
	first := lines[0]
	if first.Outcome != "ok" || first.Session != "sess-1" || first.Tool != "write_page" {
		t.Errorf("first line: %+v", first)
	}
	body, _ := first.Args.(map[string]any)["body"].(map[string]any)
	if body == nil || body["len"].(float64) != 5000 || body["sha256"] != store.SHA256Hex([]byte(big)) {
		t.Errorf("large argument not replaced by len+sha256: %v", first.Args)
	}
	var found bool
	for _, wr := range first.Writes {
		if wr.Path == w.Path && wr.Before == "" && wr.After == w.SHA256 {
			found = true
		}
	}
	if !found {
		t.Errorf("write of %s not recorded with hashes: %+v", w.Path, first.Writes)
	}
	if lines[1].Outcome != "error" || lines[1].Code != store.CodeConflict || len(lines[1].Writes) != 0 {
		t.Errorf("failed call's line: %+v", lines[1])
	}
	// A write made without a call in the context audits itself.
	s.Update(ctx, func(tx *store.Tx) error { return tx.Append("log.md", []byte("x\n")) })
	if n := len(auditRecords(t, dir)); n != 3 {
		t.Errorf("%d audit lines after an internal write, want 3", n)
	}
}

func auditRecords(t *testing.T, dir string) []store.AuditRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, store.AuditDir, "*.jsonl"))
	var out []store.AuditRecord
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if l == "" {
				continue
			}
			var r store.AuditRecord
			if err := jsonUnmarshal([]byte(l), &r); err != nil {
				t.Fatalf("audit line does not parse: %v: %s", err, l)
			}
			out = append(out, r)
		}
	}
	return out
}

type failingDerived struct{ fail bool }

func (f *failingDerived) Name() string { return "search" }
func (f *failingDerived) Apply(ctx context.Context, ch []store.Change) error {
	if f.fail {
		return store.Errorf(store.CodeInternal, "index is corrupt")
	}
	return nil
}
func (f *failingDerived) Close() error { return nil }

// Invariant 8: derived state is kept in step or loudly stale: index.md
// follows page writes in the same call, and a derived updater that fails is
// reported in the call's warnings and by Stale.
func TestInvariantDerived(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	if _, err := s.WritePage(ctx, PageInput{Title: "Alpha", Summary: "first letter", Content: "a"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, dir, "index.md"), "- [[alpha|Alpha]] — first letter") {
		t.Errorf("index.md did not follow the write:\n%s", readFile(t, dir, "index.md"))
	}
	d := &failingDerived{fail: true}
	s.AddDerived(d)
	c := store.NewCall("write_page", "s", nil)
	if _, err := s.WritePage(store.WithCall(ctx, c), PageInput{Title: "Beta", Content: "b"}); err != nil {
		t.Fatal(err)
	}
	if w := c.WarningsSnapshot(); len(w) != 1 || !strings.Contains(w[0], "search is stale: index is corrupt") {
		t.Errorf("warnings = %v", w)
	}
	if st := s.Stale(); len(st) != 1 || st[0].Name != "search" {
		t.Errorf("Stale() = %v", st)
	}
	p, _ := s.LoadProject(ctx)
	if len(p.Stale) != 1 {
		t.Errorf("load_project does not report stale state: %+v", p.Stale)
	}
}

// treeState fingerprints every file under dir except the audit log.
func treeState(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(filepath.ToSlash(rel), store.AuditDir) || strings.HasPrefix(filepath.ToSlash(rel), ".llmwiki/lock") || strings.HasPrefix(filepath.ToSlash(rel), syncDir) {
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = store.SHA256Hex(b)
		return nil
	})
	return out
}

func diffState(a, b map[string]string) string {
	var buf bytes.Buffer
	for k, v := range a {
		if b[k] != v {
			buf.WriteString("changed/removed " + k + "; ")
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			buf.WriteString("added " + k + "; ")
		}
	}
	return buf.String()
}
