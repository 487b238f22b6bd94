package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSweepWithoutWatcher: a store whose watcher never starts sweeps every
// folder itself, at the latest when it closes.
func TestSweepWithoutWatcher(t *testing.T) {
	dir := newDir(t)
	p := filepath.Join(dir, "pages", "sub", ".a.md"+TempMarker+"01")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Lstat(p); err == nil {
		t.Error("a stale temp file survived Open and Close")
	}
	if n := s.WaitSweep(); n < 3 {
		t.Errorf("the sweep listed %d folders; pages/sub at least was not", n)
	}
}

// TestSweepCompletesLaterJournal: another process that crashes in a
// multi-file commit after Open's recovery but before the temp-file sweep
// runs (the sweep waits for the watcher's first walk, up to sweepWait)
// leaves a journal and the temp files it names. The sweep must complete
// that write, not delete its temp files and leave it half done for good.
func TestSweepCompletesLaterJournal(t *testing.T) {
	dir := newDir(t)
	s, err := Open(dir, WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The other process: a.md already renamed into place, b.md's temp
	// written and journaled, then it died (its locks went with it).
	a, b := []byte("new a\n"), []byte("new b\n")
	bTemp := "pages/.b.md" + TempMarker + "0123456789abcdef"
	for rel, data := range map[string][]byte{"pages/a.md": a, "pages/b.md": []byte("old b\n"), bTemp: b} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j, _ := json.Marshal(journal{Session: "other", Entries: []journalEntry{
		{Path: "pages/a.md", Op: OpReplace, Temp: "pages/.a.md" + TempMarker + "fedcba9876543210", SHA256: SHA256Hex(a)},
		{Path: "pages/b.md", Op: OpReplace, Temp: bTemp, SHA256: SHA256Hex(b)},
	}})
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(JournalFile)), j, 0o644); err != nil {
		t.Fatal(err)
	}
	s.Close() // lets the sweep run
	if got, _ := os.ReadFile(filepath.Join(dir, "pages", "b.md")); string(got) != string(b) {
		t.Errorf("pages/b.md = %q after the sweep; the interrupted write was not completed (want %q)", got, b)
	}
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(JournalFile))); err == nil {
		t.Error("the journal survived the sweep")
	}
}
