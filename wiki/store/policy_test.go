package store

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testPolicy is a policy with a rule at every hook, none of them the
// wiki's: files under ro/ are add-only, derived.txt may be replaced while
// missing and keeps no snapshots, a file holding "KEEP" keeps it, no two
// files share a base name without extension, names are lower case, and
// each commit stages count.txt and is recorded.
type testPolicy struct {
	mu        sync.Mutex
	committed [][]Change
	snaps     []string
}

func (p *testPolicy) policy() Policy {
	return Policy{
		CleanPath: func(rel string) (string, error) {
			if strings.ToLower(rel) != rel {
				return "", Errorf(CodeInvalid, "%s: names are lower case", rel)
			}
			return path.Clean(rel), nil
		},
		Check: func(rel string, op Op) error {
			if strings.HasPrefix(rel, "ro/") && op != OpCreate {
				return Errorf(CodeInvalid, "%s is add-only", rel)
			}
			return nil
		},
		ReplaceMissing: func(rel string) bool { return rel == "derived.txt" },
		CheckReplace: func(rel string, old, new []byte) error {
			if strings.Contains(string(old), "KEEP") && !strings.Contains(string(new), "KEEP") {
				return Errorf(CodeInvalid, "%s must keep KEEP", rel)
			}
			return nil
		},
		CheckNewName: func(tx *Tx, rel string) error {
			stem := func(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
			for _, o := range tx.Staged() {
				if o != rel && !tx.Deleted(o) && stem(o) == stem(rel) {
					return Errorf(CodeConflict, "%s and %s share a name", rel, o)
				}
			}
			ents, _ := tx.Store().ReadDir(path.Dir(rel))
			for _, e := range ents {
				if o := path.Join(path.Dir(rel), e.Name()); o != rel && !tx.Deleted(o) && stem(o) == stem(rel) {
					return Errorf(CodeConflict, "%s and %s share a name", rel, o)
				}
			}
			return nil
		},
		Snapshotted: func(rel string, op Op) bool { return rel != "derived.txt" && op != OpAppend && op != OpCreate },
		BeforeCommit: func(tx *Tx) error {
			if strings.HasPrefix(tx.Staged()[0], "count") {
				return nil
			}
			return tx.Replace("derived.txt", []byte(strings.Join(tx.Staged(), ",")), "")
		},
		Committed: func(_ context.Context, _ *Call, changes []Change, snaps []string) {
			p.mu.Lock()
			p.committed = append(p.committed, changes)
			p.snaps = append(p.snaps, snaps...)
			p.mu.Unlock()
		},
	}
}

// TestPolicyEnforced: the store calls every hook of an installed policy on
// every write and enforces its answers; a refused write changes nothing.
func TestPolicyEnforced(t *testing.T) {
	tp := &testPolicy{}
	s, dir := newTestStore(t, WithPolicy(tp.policy()))
	ctx := context.Background()
	write := func(fn func(*Tx) error) error { return s.Update(ctx, fn) }
	if err := write(func(tx *Tx) error {
		if err := tx.Create("ro/a.txt", []byte("a")); err != nil {
			return err
		}
		return tx.Create("keep.txt", []byte("KEEP 1"))
	}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "derived.txt"); got != "ro/a.txt,keep.txt" {
		t.Errorf("derived.txt = %q: BeforeCommit's staged file was not committed", got)
	}
	if n := len(tp.committed); n != 1 || len(tp.committed[0]) != 3 {
		t.Fatalf("Committed saw %v, want one commit of 3 changes", tp.committed)
	}
	for _, tc := range []struct {
		name string
		fn   func(*Tx) error
		code Code
	}{
		{"replace in an add-only folder", func(tx *Tx) error { return tx.Replace("ro/a.txt", []byte("b"), "") }, CodeInvalid},
		{"append in an add-only folder", func(tx *Tx) error { return tx.Append("ro/a.txt", []byte("b")) }, CodeInvalid},
		{"delete in an add-only folder", func(tx *Tx) error { return tx.Delete("ro/a.txt", "") }, CodeInvalid},
		{"name the policy refuses", func(tx *Tx) error { return tx.Create("Upper.txt", []byte("x")) }, CodeInvalid},
		{"replace dropping what must be kept", func(tx *Tx) error { return tx.Replace("keep.txt", []byte("2"), "") }, CodeInvalid},
		{"replace of a missing file", func(tx *Tx) error { return tx.Replace("missing.txt", []byte("x"), "") }, CodeNotFound},
		{"new name the policy finds ambiguous", func(tx *Tx) error { return tx.Create("keep.md", []byte("x")) }, CodeConflict},
		{"two staged names the policy finds ambiguous", func(tx *Tx) error {
			if err := tx.Create("b.txt", []byte("x")); err != nil {
				return err
			}
			return tx.Create("b.md", []byte("y"))
		}, CodeConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tp.committed)
			err := write(tc.fn)
			if CodeOf(err) != tc.code {
				t.Fatalf("error = %v (code %q), want code %q", err, CodeOf(err), tc.code)
			}
			if len(tp.committed) != before {
				t.Error("a refused write was committed")
			}
			if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
				t.Error("b.txt was written by a refused transaction")
			}
		})
	}
	// Allowed: a replace keeping KEEP (snapshotted), a missing file the
	// policy lets be replaced (not snapshotted on its next replace).
	if err := write(func(tx *Tx) error { return tx.Replace("keep.txt", []byte("KEEP 2"), "") }); err != nil {
		t.Fatal(err)
	}
	if len(tp.snaps) != 1 || !strings.HasPrefix(tp.snaps[0], SnapshotDir+"/keep.txt/") {
		t.Errorf("snapshots = %v, want one of keep.txt (derived.txt is never snapshotted)", tp.snaps)
	}
	if got := readFile(t, dir, "derived.txt"); got != "keep.txt" {
		t.Errorf("derived.txt = %q", got)
	}
	if err := write(func(tx *Tx) error { return tx.Replace("count.txt", []byte("1"), "") }); CodeOf(err) != CodeNotFound {
		t.Errorf("replace of missing count.txt: %v, want not found", err)
	}
}

// TestJournalSkipsRefused: at open, a journaled change the policy refuses is
// not completed (its temp file is removed as stale); the others are.
func TestJournalSkipsRefused(t *testing.T) {
	tp := &testPolicy{}
	dir := newDir(t)
	s := openStore(t, dir, WithPolicy(tp.policy()))
	s.Close()
	okTemp, roTemp := ".ok.txt"+TempMarker+"0123456789abcdef", "ro/.a.txt"+TempMarker+"0123456789abcdef"
	for rel, data := range map[string]string{"ok.txt": "old", okTemp: "new", "ro/a.txt": "old", roTemp: "new"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := SHA256Hex([]byte("new"))
	j, _ := json.Marshal(journal{Session: "other", Entries: []journalEntry{
		{Path: "ok.txt", Op: OpReplace, Temp: okTemp, SHA256: sum},
		{Path: "ro/a.txt", Op: OpReplace, Temp: roTemp, SHA256: sum},
	}})
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), j, 0o644); err != nil {
		t.Fatal(err)
	}
	openStore(t, dir, WithPolicy(tp.policy()))
	if got := readFile(t, dir, "ok.txt"); got != "new" {
		t.Errorf("ok.txt = %q, want the journaled write completed", got)
	}
	if got := readFile(t, dir, "ro/a.txt"); got != "old" {
		t.Errorf("ro/a.txt = %q, want it left as it was: the policy refuses replacing it", got)
	}
	if tf := findTemps(dir); len(tf) > 0 {
		t.Errorf("temp files remain: %v", tf)
	}
}

// TestDefaultPolicy: with no policy a store refuses only what no store
// may write (a path out of the root, its own state through a Tx) and
// snapshots every replaced version.
func TestDefaultPolicy(t *testing.T) {
	s, dir := newTestStore(t)
	ctx := context.Background()
	for _, rel := range []string{"../x", "/abs", "", "a\\b", ".llmwiki/x", StateDir} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.Create(rel, []byte("x")) }); CodeOf(err) != CodeInvalid {
			t.Errorf("create %q: %v, want invalid", rel, err)
		}
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.Create("any/file.bin", []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	ctx, call := context.Background(), NewCall("test", "s", nil)
	if err := s.Update(WithCall(ctx, call), func(tx *Tx) error { return tx.Replace("any/file.bin", []byte("2"), "") }); err != nil {
		t.Fatal(err)
	}
	if snaps := call.SnapshotsTaken(); len(snaps) != 1 || readFile(t, dir, snaps[0]) != "1" {
		t.Errorf("snapshots = %v, want the replaced version", snaps)
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
