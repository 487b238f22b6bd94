package wiki

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
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
		"pages/.a.md" + store.TempMarker + "01",
		"pages/sub/deep/.b.md" + store.TempMarker + "02",
		"pages/.hidden/.c.md" + store.TempMarker + "03",
		"pages/.hidden/more/.c2.md" + store.TempMarker + "03b",
		"sources/.d.pdf" + store.TempMarker + "04",
		".index.md" + store.TempMarker + "05",
		".llmwiki/eval/.r.json" + store.TempMarker + "06",
		"other/.z" + store.TempMarker + "09",
	}
	kept := []string{
		".git/.y" + store.TempMarker + "07",
		".llmwiki/search/index-1/x" + store.TempMarker + "08",
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
	listed := s.WaitSweep() // the sweep, let go by the watcher's first walk
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
	if listed > 15 {
		t.Errorf("the sweep listed %d folders itself; the watcher's walk had listed most", listed)
	}
}
