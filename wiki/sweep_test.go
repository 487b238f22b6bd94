package wiki

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSweepUsesWatcherWalk: the temp-file sweep Open starts waits for the
// file watcher's first walk and does not list the folders it listed
// (pages/ and sources/ and their non-hidden folders) again, yet removes
// every stale temp file it would have removed alone: in those folders, in
// hidden folders below them, at the top level and under .llmwiki/; and it
// leaves .git and the search index's folders alone, as before.
func TestSweepUsesWatcherWalk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	tmp := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	stale := []string{
		"pages/.a.md" + tempMarker + "01",
		"pages/sub/deep/.b.md" + tempMarker + "02",
		"pages/.hidden/.c.md" + tempMarker + "03",
		"pages/.hidden/more/.c2.md" + tempMarker + "03b",
		"sources/.d.pdf" + tempMarker + "04",
		".index.md" + tempMarker + "05",
		".llmwiki/eval/.r.json" + tempMarker + "06",
		"other/.z" + tempMarker + "09",
	}
	kept := []string{
		".git/.y" + tempMarker + "07",
		".llmwiki/search/index-1/x" + tempMarker + "08",
		"pages/sub/page.md",
	}
	for i := range 30 { // folders the watcher lists and the sweep need not
		kept = append(kept, "pages/many/f"+strings.Repeat("x", i%3)+string(rune('a'+i))+"/p.md")
	}
	for _, p := range append(append([]string(nil), stale...), kept...) {
		if err := os.MkdirAll(filepath.Dir(tmp(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tmp(p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir, WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	s.bg.Wait() // the sweep, let go by the watcher's first walk
	for _, p := range stale {
		if _, err := os.Lstat(tmp(p)); err == nil {
			t.Errorf("%s: a stale temp file survived", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(tmp(p)); err != nil {
			t.Errorf("%s: removed (%v)", p, err)
		}
	}
	// The sweep listed the top level, .llmwiki/ and its folders, other/ and
	// the hidden folders, not the 30-odd folders of pages/.
	if s.sweepListed > 15 {
		t.Errorf("the sweep listed %d folders itself; the watcher's walk had listed most", s.sweepListed)
	}
}

// TestSweepWithoutWatcher: a store whose watcher never starts sweeps every
// folder itself, at the latest when it closes.
func TestSweepWithoutWatcher(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "pages", "sub", ".a.md"+tempMarker+"01")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, WithLogger(testLogger(t)), WithoutWatcher())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Lstat(p); err == nil {
		t.Error("a stale temp file survived Open and Close")
	}
	if s.sweepListed < 3 {
		t.Errorf("the sweep listed %d folders; pages/sub at least was not", s.sweepListed)
	}
}

// TestSweepCompletesLaterJournal: another process that crashes in a
// multi-file commit after Open's recovery but before the temp-file sweep
// runs (the sweep waits for the watcher's first walk, up to sweepWait)
// leaves a journal and the temp files it names. The sweep must complete
// that write, not delete its temp files and leave it half done for good.
func TestSweepCompletesLaterJournal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, WithLogger(testLogger(t)), WithoutWatcher())
	if err != nil {
		t.Fatal(err)
	}
	// The other process: a.md already renamed into place, b.md's temp
	// written and journaled, then it died (its locks went with it).
	a, b := []byte("new a\n"), []byte("new b\n")
	bTemp := "pages/.b.md" + tempMarker + "0123456789abcdef"
	for rel, data := range map[string][]byte{"pages/a.md": a, "pages/b.md": []byte("old b\n"), bTemp: b} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j, _ := json.Marshal(journal{Session: "other", Entries: []journalEntry{
		{Path: "pages/a.md", Op: OpReplace, Temp: "pages/.a.md" + tempMarker + "fedcba9876543210", SHA256: SHA256Hex(a)},
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
