package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Snapshot files are never overwritten: the same content at the same
// instant maps to the same name, other content to another name.
func TestSnapshotNames(t *testing.T) {
	frozen := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s, _ := newTestStore(t, WithClock(func() time.Time { return frozen }))
	a, _ := s.snapshot("pages/x.md", []byte("one"))
	b, _ := s.snapshot("pages/x.md", []byte("two"))
	c, _ := s.snapshot("pages/x.md", []byte("one"))
	if a == "" || a == b || a != c {
		t.Errorf("snapshot names: %s %s %s", a, b, c)
	}
}

// TestWriteStepOrder pins the order of an atomic write: temp file created
// beside the target, written, fsynced, renamed over the target, then the
// folder fsynced. Removing a step fails this test.
func TestWriteStepOrder(t *testing.T) {
	var mu sync.Mutex
	var steps []string
	s, _ := newTestStore(t, WithFaults(func(st, rel string) error {
		mu.Lock()
		steps = append(steps, st+" "+rel)
		mu.Unlock()
		return nil
	}))
	mu.Lock()
	steps = nil
	mu.Unlock()
	if err := s.Update(context.Background(), func(tx *Tx) error { return tx.Create("pages/p.md", []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(steps, ", ")
	want := "create pages/p.md, write pages/p.md, sync pages/p.md"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "rename pages/p.md") || !strings.Contains(got, "syncdir pages") {
		t.Errorf("steps = %s", got)
	}
	if strings.Index(got, "rename pages/p.md") < strings.Index(got, "sync pages/p.md") || strings.Index(got, "syncdir pages") < strings.Index(got, "rename pages/p.md") {
		t.Errorf("steps out of order: %s", got)
	}
}

// TestOpenRemovesStateTemps: a writer temp left in .llmwiki/search (the
// search manifest, written through WriteState) by a killed server is
// removed when the wiki opens; bleve's own folders below it are not walked.
func TestOpenRemovesStateTemps(t *testing.T) {
	s, dir := newTestStore(t)
	s.Close()
	stale := filepath.Join(dir, ".llmwiki", "search", ".manifest.gob"+TempMarker+"e350799b91a532c6")
	inIndex := filepath.Join(dir, ".llmwiki", "search", "index-1", "x"+TempMarker+"1")
	for _, p := range []string{stale, inIndex} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := Open(dir, WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	s2.Close() // the sweep runs in the background; Close waits for it
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale manifest temp still there: %v", err)
	}
	if _, err := os.Stat(inIndex); err != nil {
		t.Errorf("a file inside the index folder was touched: %v", err)
	}
}

// A call's audit line does not wait for the state lock: another call's
// state writes (a snapshot, the journal, the search manifest, each with
// fsyncs) must not hold up the answer of a read. The audit lock still
// serialises the lines themselves.
func TestAuditDoesNotWaitForStateLock(t *testing.T) {
	s, dir := newTestStore(t)
	unlockState, err := s.lockState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer unlockState()
	done := make(chan error, 1)
	go func() { done <- s.Audit(NewCall("read_page", "sess-1", map[string]any{"path": "index.md"}), nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the audit line waited for the state lock")
	}
	if n := len(auditRecords(t, dir)); n != 1 {
		t.Fatalf("%d audit lines, want 1", n)
	}

	// The audit lock is what a line waits for.
	unlockAudit, err := s.lockAudit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- s.Audit(NewCall("read_page", "sess-1", nil), nil) }()
	select {
	case <-done:
		t.Fatal("an audit line was written while another holder had the audit lock")
	case <-time.After(50 * time.Millisecond):
	}
	unlockAudit()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(auditRecords(t, dir)); n != 2 {
		t.Fatalf("%d audit lines, want 2", n)
	}
	// The lock lives in a folder git ignores, also in wikis made before it.
	if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(lockDir), ".gitignore")); err != nil || !strings.Contains(string(data), "*") {
		t.Errorf("%s/.gitignore: %q, %v", lockDir, data, err)
	}
}
