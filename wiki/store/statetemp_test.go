package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenSparesLiveStateWrites: the clean-up at Open removes every temp
// file a crashed writer left, young or old, under .llmwiki/ or not, because
// it holds the state lock that every live write under .llmwiki/ holds too.
// A WriteState in progress in another Store is therefore never disturbed:
// Open waits for it.
func TestOpenSparesLiveStateWrites(t *testing.T) {
	dir := newDir(t)
	young := filepath.Join(dir, ".llmwiki", "eval", ".eval-report.json"+TempMarker+"aa")
	old := filepath.Join(dir, ".llmwiki", "eval", ".old.json"+TempMarker+"bb")
	page := filepath.Join(dir, "pages", ".x.md"+TempMarker+"cc")
	for _, p := range []string{young, old, page} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-time.Hour)
	os.Chtimes(old, hourAgo, hourAgo)

	// A live state write in store a, stopped just before its rename.
	atRename, release := make(chan struct{}), make(chan struct{})
	a := openStore(t, dir, WithFaults(func(step, rel string) error {
		if step == "rename" && rel == ".llmwiki/eval/report.json" {
			close(atRename)
			<-release
		}
		return nil
	}))
	for _, p := range []string{young, old, page} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: a stale temp file survived Open", filepath.Base(p))
		}
	}
	written := make(chan error)
	go func() { written <- a.WriteState(".llmwiki/eval/report.json", []byte("report")) }()
	<-atRename
	opened := make(chan *Store)
	go func() {
		b, err := Open(dir)
		if err != nil {
			t.Error(err)
		}
		opened <- b
	}()
	select {
	case <-opened:
		t.Fatal("Open did not wait for the state write in progress")
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if err := <-written; err != nil {
		t.Fatalf("the live state write failed: %v", err)
	}
	b := <-opened
	b.Close()
	if got, err := os.ReadFile(filepath.Join(dir, ".llmwiki", "eval", "report.json")); err != nil || string(got) != "report" {
		t.Errorf("report.json = %q, %v", got, err)
	}
	if tf := findTemps(dir); len(tf) > 0 {
		t.Errorf("temp files remain: %v", tf)
	}
}
