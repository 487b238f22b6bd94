package lint

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

func syncFindings(t *testing.T, st *wiki.Store, opts Options) []Finding {
	t.Helper()
	if opts.Categories == nil {
		opts.Categories = []string{KindSyncConflict}
	}
	rep, err := Run(context.Background(), st, links.Open(st), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, f := range rep.Findings {
		if f.Kind == KindSyncConflict {
			out = append(out, f)
		}
	}
	return out
}

// TestSyncConflictFinding: an open conflict is one error finding naming the
// file, both commits, the snapshot and what to do, with the first differing
// line quoted from each side; its id is stable across runs.
func TestSyncConflictFinding(t *testing.T) {
	st, _ := newStore(t, nil)
	c := teststore.SyncConflict(t, st, "c-0123456789ab", "raft", "# Raft\n\nLeaders are elected by a majority.\n", "# Raft\n\nLeaders are elected by randomised timeouts.\n")
	fs := syncFindings(t, st, Options{})
	if len(fs) != 1 {
		t.Fatalf("findings %+v; want one", fs)
	}
	f := fs[0]
	if f.Severity != Error || f.Path != "pages/raft.md" || f.ID != SyncConflictFindingID(c) || !f.Verified || f.Source != "lint" {
		t.Errorf("finding %+v", f)
	}
	for _, want := range []string{c.ID, ShortCommit(c.Remote), ShortCommit(c.Local), c.Snapshot, c.Summary} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q lacks %q", f.Message, want)
		}
	}
	for _, want := range []string{"read_page at", "restore_snapshot", c.Snapshot, "llmwiki review keep|take " + c.ID} {
		if !strings.Contains(f.Action, want) {
			t.Errorf("action %q lacks %q", f.Action, want)
		}
	}
	if len(f.Related) != 1 || f.Related[0] != c.Snapshot {
		t.Errorf("related %v", f.Related)
	}
	if len(f.Evidence) != 2 || f.Evidence[0].Path != c.Path || f.Evidence[1].Path != c.Snapshot ||
		f.Evidence[0].Quote != "Leaders are elected by randomised timeouts." || f.Evidence[1].Quote != "Leaders are elected by a majority." ||
		f.Evidence[0].SHA256 != c.RemoteSHA256 || f.Evidence[1].SHA256 != c.LocalSHA256 || f.Evidence[0].Line != f.Line || f.Line == 0 {
		t.Errorf("line %d, evidence %+v", f.Line, f.Evidence)
	}
	if again := syncFindings(t, st, Options{}); len(again) != 1 || again[0].ID != f.ID || again[0].Fingerprint != f.Fingerprint {
		t.Errorf("second run %+v", again)
	}
}

// TestSyncConflictClosed: writing the file closes the conflict, and so does
// keeping it; a closed conflict has no finding and cannot be kept again.
func TestSyncConflictClosed(t *testing.T) {
	ctx := context.Background()
	for _, how := range []string{"written", "kept", "dismissed"} {
		t.Run(how, func(t *testing.T) {
			st, _ := newStore(t, nil)
			c := teststore.SyncConflict(t, st, "c-00000000000a", "topic", "local\n", "remote\n")
			fs := syncFindings(t, st, Options{})
			if len(fs) != 1 {
				t.Fatalf("before: %+v", fs)
			}
			switch how {
			case "written":
				cur, _ := st.ReadFile(c.Path)
				if _, err := st.WritePage(ctx, wiki.PageInput{Title: "topic", Slug: "topic", Content: "merged\n", BaseSHA256: store.SHA256Hex(cur)}); err != nil {
					t.Fatal(err)
				}
			case "kept":
				if err := st.KeepSyncConflict(ctx, c, "web", ""); err != nil {
					t.Fatal(err)
				}
			case "dismissed":
				if _, err := Dismiss(ctx, st, links.Open(st), []string{fs[0].ID}, "the remote is right", "cli"); err != nil {
					t.Fatal(err)
				}
			}
			if fs := syncFindings(t, st, Options{}); len(fs) != 0 {
				t.Errorf("after: %+v", fs)
			}
			all, open, err := st.SyncConflicts()
			if err != nil || len(all) != 1 || open[0] {
				t.Errorf("SyncConflicts %v %v %v", all, open, err)
			}
			err = st.KeepSyncConflict(ctx, c, "cli", "")
			if store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), c.ID) {
				t.Errorf("keep again: %v", err)
			}
			if how != "written" && !strings.Contains(store.PublicMessage(err), "already settled") {
				t.Errorf("keep again names no earlier keep: %v", err)
			}
		})
	}
}

// TestSyncConflictCategory: sync_conflict is a category lint_disabled can
// turn off and naming it runs it anyway.
func TestSyncConflictCategory(t *testing.T) {
	if SeverityOf(KindSyncConflict) != Error {
		t.Fatalf("severity %q", SeverityOf(KindSyncConflict))
	}
	st, _ := newStore(t, map[string]string{"schema.md": "---\nlint_disabled: [sync_conflict]\n---\n# Schema\n"})
	teststore.SyncConflict(t, st, "c-00000000000b", "topic", "a\n", "b\n")
	rep, err := Run(context.Background(), st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[KindSyncConflict] != 0 || len(rep.Problems) != 0 || !strings.Contains(strings.Join(rep.Disabled, ","), KindSyncConflict) {
		t.Errorf("disabled: counts %v problems %v disabled %v", rep.Counts, rep.Problems, rep.Disabled)
	}
	if fs := syncFindings(t, st, Options{Categories: []string{KindSyncConflict}}); len(fs) != 1 {
		t.Errorf("named: %+v", fs)
	}
}

func TestFirstDifference(t *testing.T) {
	long := strings.Repeat("é", 400)
	cases := []struct {
		a, b   string
		line   int
		la, lb string
		ok     bool
	}{
		{"x\ny\n", "x\ny\n", 0, "", "", false},
		{"x\ny\n", "x\nz\n", 2, "y", "z", true},
		{"x\ny", "x\n", 2, "y", "", true},
		{"x\n", "x\ny\n", 2, "", "y", true},
		{"x\r\n", "x\n", 1, "x", "x", true},
		{"a\n" + long + "\n", "a\nb\n", 2, strings.Repeat("é", maxEvidenceQuote-1) + "…", "b", true},
		{"a\xff\n", "b\n", 0, "", "", false},
	}
	for _, c := range cases {
		line, la, lb, ok := firstDifference([]byte(c.a), []byte(c.b))
		if line != c.line || la != c.la || lb != c.lb || ok != c.ok {
			t.Errorf("firstDifference(%q, %q) = %d %q %q %v; want %d %q %q %v", c.a, c.b, line, la, lb, ok, c.line, c.la, c.lb, c.ok)
		}
	}
}

// FuzzFirstDifference: any two texts give a line within both and quotes
// that are valid UTF-8 of bounded length.
func FuzzFirstDifference(f *testing.F) {
	f.Add("x\ny\n", "x\nz\n")
	f.Add("", "\n")
	f.Add("a\r\n", "a\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		line, la, lb, ok := firstDifference([]byte(a), []byte(b))
		if !ok {
			if a != b && utf8.ValidString(a) && utf8.ValidString(b) {
				t.Fatalf("no difference found between %q and %q", a, b)
			}
			return
		}
		if line < 1 || line > strings.Count(a, "\n")+strings.Count(b, "\n")+1 {
			t.Fatalf("line %d", line)
		}
		for _, q := range []string{la, lb} {
			if !utf8.ValidString(q) || utf8.RuneCountInString(q) > maxEvidenceQuote || strings.Contains(q, "\n") {
				t.Fatalf("quote %q", q)
			}
		}
	})
}
