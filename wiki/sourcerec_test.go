package wiki

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// sourceProblems returns what validate_structure, load_project and
// gather_sources say about changed or deleted sources: the structure
// problems by path ("kind severity"), load_project's problem lines that
// name a source, and the integrity notes gather_sources gives by path.
func sourceProblems(t *testing.T, s *Store) (map[string]string, []string, map[string]string, bool) {
	t.Helper()
	ctx := context.Background()
	st, err := s.ValidateStructure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vs := map[string]string{}
	for _, p := range st.Problems {
		if strings.HasPrefix(p.Kind, "source_") {
			vs[p.Path] = p.Kind + " " + p.Severity
			if p.Fix == "" || p.Message == "" {
				t.Errorf("problem without message or fix: %+v", p)
			}
		}
	}
	pr, err := s.LoadProject(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lp []string
	for _, l := range pr.Problems {
		if strings.HasPrefix(l, "sources/") {
			lp = append(lp, l)
		}
	}
	gs := map[string]string{}
	all, err := s.ListSources()
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range all {
		if si.Integrity != "" {
			gs[si.Path] = si.Integrity
		}
	}
	return vs, lp, gs, st.OK
}

// touchLater sets a file's mtime a minute ahead, as an editor's save does.
func touchLater(t *testing.T, p string) {
	t.Helper()
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
}

// TestSourceChangedOutsideIsAnError: a source saved through save_source,
// one added by hand and a research note, each edited or deleted by hand
// afterwards, is an error in validate_structure, a line in load_project
// and an integrity note in gather_sources; untouched sources, a source
// added by hand (recorded when first seen) and research_save appends are
// not.
func TestSourceChangedOutsideIsAnError(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// setup makes the source through llmwiki or by hand; change then
		// acts on it outside llmwiki.
		setup  func(t *testing.T, s *Store, dir string)
		change func(t *testing.T, dir string)
		path   string
		want   string // "" (no problem), SourceModified or SourceDeleted
	}{
		{"saved, edited (other length)", saveA, func(t *testing.T, dir string) { writeHand(t, dir, "sources/a.md", "edited by hand\n") }, "sources/a.md", SourceModified},
		{"saved, edited (same length)", saveA, func(t *testing.T, dir string) {
			writeHand(t, dir, "sources/a.md", "ORIGINAL TEXT\n")
			touchLater(t, filepath.Join(dir, "sources/a.md"))
		}, "sources/a.md", SourceModified},
		{"saved, deleted", saveA, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sources/a.md")) }, "sources/a.md", SourceDeleted},
		{"saved, untouched", saveA, func(t *testing.T, dir string) {}, "sources/a.md", ""},
		{"by hand, untouched", handB, func(t *testing.T, dir string) {}, "sources/b.txt", ""},
		{"by hand, edited", handB, func(t *testing.T, dir string) { writeHand(t, dir, "sources/b.txt", "another version\n") }, "sources/b.txt", SourceModified},
		{"by hand, deleted", handB, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sources/b.txt")) }, "sources/b.txt", SourceDeleted},
		{"research, appended twice", research, func(t *testing.T, dir string) {}, "sources/research/topic.md", ""},
		{"research, appended by hand", research, func(t *testing.T, dir string) {
			f, _ := os.OpenFile(filepath.Join(dir, "sources/research/topic.md"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("\n## a note added by hand\n")
			f.Close()
		}, "sources/research/topic.md", ""},
		{"research, earlier bytes edited", research, func(t *testing.T, dir string) {
			p := filepath.Join(dir, "sources/research/topic.md")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(b), "first finding", "FIRST FINDING", 1)), 0o644)
			touchLater(t, p)
		}, "sources/research/topic.md", SourceModified},
		{"research, deleted", research, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "sources/research/topic.md")) }, "sources/research/topic.md", SourceDeleted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, dir := newStore(t)
			c.setup(t, s, dir)
			if vs, lp, gs, ok := sourceProblems(t, s); len(vs)+len(lp)+len(gs) > 0 || !ok {
				t.Fatalf("before the change: %v %v %v ok=%v", vs, lp, gs, ok)
			}
			c.change(t, dir)
			// A second store, as another process sees the wiki.
			for _, st := range []*Store{s, openStore(t, dir)} {
				vs, lp, gs, ok := sourceProblems(t, st)
				if c.want == "" {
					if len(vs)+len(lp)+len(gs) > 0 || !ok {
						t.Errorf("flagged: %v %v %v ok=%v", vs, lp, gs, ok)
					}
					continue
				}
				if vs[c.path] != c.want+" error" || len(vs) != 1 || ok {
					t.Errorf("validate_structure: %v ok=%v, want %s error for %s", vs, ok, c.want, c.path)
				}
				word := map[string]string{SourceModified: "was changed outside llmwiki", SourceDeleted: "is gone"}[c.want]
				if len(lp) != 1 || !strings.HasPrefix(lp[0], c.path+" "+word) {
					t.Errorf("load_project problems: %q, want one about %s %s", lp, c.path, word)
				}
				if c.want == SourceModified && !strings.Contains(gs[c.path], "changed outside llmwiki") {
					t.Errorf("gather_sources integrity: %v", gs)
				}
			}
			// Reopening, the record still says so (it is on disk).
			if issues, err := openStore(t, dir).SourceIssues(ctx); err != nil || (c.want != "") != (len(issues) == 1) {
				t.Errorf("after reopening: %v %v", issues, err)
			}
		})
	}
}

func saveA(t *testing.T, s *Store, dir string) {
	t.Helper()
	if _, err := s.SaveSource(context.Background(), SourceInput{Path: "a.md", Content: "original text\n"}); err != nil {
		t.Fatal(err)
	}
}

func handB(t *testing.T, s *Store, dir string) {
	t.Helper()
	writeHand(t, dir, "sources/b.txt", "dropped in by hand\n")
	issues, err := s.SourceIssues(context.Background())
	if err != nil || len(issues) != 0 {
		t.Fatalf("a source added by hand: %v %v", issues, err)
	}
	rec, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile)))
	if !strings.Contains(string(rec), `"path":"sources/b.txt","sha256":"`+store.SHA256Hex([]byte("dropped in by hand\n"))+`"`) || !strings.Contains(string(rec), `"how":"found"`) {
		t.Fatalf("not recorded as found:\n%s", rec)
	}
}

func research(t *testing.T, s *Store, dir string) {
	t.Helper()
	for _, c := range []string{"first finding", "second finding"} {
		if _, err := s.ResearchSave(context.Background(), ResearchInput{Topic: "Topic", Content: c}); err != nil {
			t.Fatal(err)
		}
		if issues, err := s.SourceIssues(context.Background()); err != nil || len(issues) != 0 {
			t.Fatalf("after research_save: %v %v", issues, err)
		}
	}
}

func writeHand(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSourcesRecordRebuilt: with the record deleted, the next scan rebuilds
// it from the audit log without a false alarm (sources saved, research
// notes appended to by research_save and by hand, sources added by hand),
// says so in load_project, and still knows a saved source that was edited
// by hand; with all of .llmwiki/ deleted, every source is recorded as it is.
func TestSourcesRecordRebuilt(t *testing.T) {
	ctx := context.Background()
	s, dir := newStore(t)
	saveA(t, s, dir)
	research(t, s, dir)
	writeHand(t, dir, "sources/b.txt", "dropped in by hand\n")
	if _, err := s.SaveSource(ctx, SourceInput{Path: "c.md", Content: "will be edited\n"}); err != nil {
		t.Fatal(err)
	}
	if issues, err := s.SourceIssues(ctx); err != nil || len(issues) != 0 {
		t.Fatalf("before: %v %v", issues, err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "sources/research/topic.md"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("a line added by hand\n")
	f.Close()
	writeHand(t, dir, "sources/c.md", "edited by hand\n")
	rec := filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))
	if err := os.Remove(rec); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir)
	vs, lp, _, _ := sourceProblems(t, s2)
	if len(vs) != 1 || vs["sources/c.md"] != SourceModified+" error" || len(lp) != 1 {
		t.Errorf("after the record was deleted: %v %q; want only sources/c.md modified (the audit log has its sha256)", vs, lp)
	}
	pr, _ := s2.LoadProject(ctx)
	if !strings.Contains(strings.Join(pr.Problems, "\n"), SourcesRecordFile+" was missing; rebuilt it: 3 source(s) from the audit log") {
		t.Errorf("load_project does not say the record was rebuilt: %q", pr.Problems)
	}
	data, _ := os.ReadFile(rec)
	if !strings.Contains(string(data), `"path":"sources/a.md"`) || !strings.Contains(string(data), `"how":"audit"`) || !strings.Contains(string(data), `"path":"sources/b.txt"`) {
		t.Errorf("rebuilt record:\n%s", data)
	}

	if err := os.RemoveAll(filepath.Join(dir, ".llmwiki")); err != nil {
		t.Fatal(err)
	}
	s3 := openStore(t, dir)
	if vs, lp, gs, ok := sourceProblems(t, s3); len(vs)+len(lp)+len(gs) > 0 || !ok {
		t.Errorf("after .llmwiki/ was deleted: %v %q %v ok=%v", vs, lp, gs, ok)
	}
	pr, _ = s3.LoadProject(ctx)
	if !strings.Contains(strings.Join(pr.Problems, "\n"), "rebuilt it: 0 source(s) from the audit log, the others as they are now") {
		t.Errorf("load_project does not say the record was rebuilt from disk: %q", pr.Problems)
	}
	writeHand(t, dir, "sources/a.md", "edited after the rebuild\n")
	if issues, _ := s3.SourceIssues(ctx); len(issues) != 1 || issues[0].Path != "sources/a.md" || issues[0].Kind != SourceModified {
		t.Errorf("an edit after the rebuild: %v", issues)
	}
}

// TestSourceScanReadsOnlyChangedFiles: a second scan reads no source whose
// size and mtime are unchanged (it trusts the record's cache), and reads a
// file whose mtime changed.
func TestSourceScanReadsOnlyChangedFiles(t *testing.T) {
	s, dir := newStore(t)
	for i := 0; i < 20; i++ {
		writeHand(t, dir, "sources/f"+fmtInt(i)+".md", strings.Repeat("x", 1000+i))
	}
	ctx := context.Background()
	read := func() int {
		var n int
		ctx := WithProgress(ctx, func(done, total int, msg string) {
			if total > 0 {
				n = kibRead(msg)
			}
		})
		if _, err := s.ListSourcesContext(ctx); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := read(); n < 19 {
		t.Fatalf("first scan read %d KiB, want the 20 files (about 20 KiB)", n)
	}
	if n := read(); n != 0 {
		t.Errorf("second scan read %d KiB, want 0", n)
	}
	writeHand(t, dir, "sources/f3.md", strings.Repeat("y", 4096))
	if n := read(); n != 4 {
		t.Errorf("after one file changed the scan read %d KiB, want 4", n)
	}
}

func kibRead(msg string) int {
	i := strings.Index(msg, "(")
	j := strings.Index(msg, " KiB")
	if i < 0 || j < i {
		return -1
	}
	n := 0
	for _, c := range msg[i+1 : j] {
		n = n*10 + int(c-'0')
	}
	return n
}

// FuzzSourceRecord: parsing any record file never panics, and every entry
// kept names a file under sources/ with a sha256.
func FuzzSourceRecord(f *testing.F) {
	f.Add([]byte(`{"path":"sources/a.md","sha256":"` + strings.Repeat("a", 64) + `","size":3,"first_seen":"2026-01-01T00:00:00Z","how":"found"}` + "\n"))
	f.Add([]byte(`{"path":"pages/x.md","sha256":"zz"}` + "\n{not json\n"))
	f.Add([]byte(`{"path":"sources/../x","sha256":"` + strings.Repeat("b", 64) + `"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := parseSourceRecord(data)
		for p, r := range m {
			if p != r.Path || !strings.HasPrefix(p, "sources/") || !isHexSHA(r.SHA256) {
				t.Fatalf("kept %q: %+v", p, r)
			}
		}
	})
}

// TestSourcesRecordTwoProcesses: two stores on one wiki save sources,
// append research notes and scan at the same time; afterwards no source is
// flagged and every one is recorded as the tool that wrote it (no update
// of the record was lost).
func TestSourcesRecordTwoProcesses(t *testing.T) {
	a, dir := newStore(t)
	b := openStore(t, dir)
	ctx := context.Background()
	done := make(chan error, 3)
	go func() {
		for i := 0; i < 12; i++ {
			ctx := store.WithCall(ctx, store.NewCall("save_source", "test", nil))
			if _, err := a.SaveSource(ctx, SourceInput{Path: "a" + fmtInt(i) + ".md", Content: "source " + fmtInt(i) + "\n"}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	go func() {
		for i := 0; i < 12; i++ {
			ctx := store.WithCall(ctx, store.NewCall("research_save", "test", nil))
			if _, err := b.ResearchSave(ctx, ResearchInput{Topic: "Topic " + fmtInt(i%3), Content: "finding " + fmtInt(i)}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	go func() {
		for i := 0; i < 12; i++ {
			st := a
			if i%2 == 1 {
				st = b
			}
			if issues, err := st.SourceIssues(ctx); err != nil || len(issues) > 0 {
				done <- fmt.Errorf("scan %d: %v %v", i, issues, err)
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 3; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []*Store{a, b, openStore(t, dir)} {
		if issues, err := st.SourceIssues(ctx); err != nil || len(issues) > 0 {
			t.Errorf("after: %v %v", issues, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile)))
	m, bad := parseSourceRecord(data)
	if bad != 0 || len(m) != 15 {
		t.Fatalf("record has %d entries (%d bad), want 15:\n%s", len(m), bad, data)
	}
	for p, r := range m {
		want := "save_source"
		if strings.HasPrefix(p, "sources/research/") {
			want = "research_save"
		}
		if r.How != want {
			t.Errorf("%s recorded as %q", p, r.How)
		}
	}
}
