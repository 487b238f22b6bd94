package wiki

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenKeepsYoungStateTemps: the background clean-up at Open removes
// temp files of interrupted wiki writes, but not a young temp file under
// .llmwiki/, which may belong to a WriteState in progress in another Store
// (it takes no lock).
func TestOpenKeepsYoungStateTemps(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	young := filepath.Join(dir, ".llmwiki", "eval", ".eval-report.json"+tempMarker+"aa")
	old := filepath.Join(dir, ".llmwiki", "eval", ".old.json"+tempMarker+"bb")
	page := filepath.Join(dir, "pages", ".x.md"+tempMarker+"cc")
	for _, p := range []string{young, old, page} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hourAgo := time.Now().Add(-time.Hour)
	os.Chtimes(old, hourAgo, hourAgo)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close() // waits for the clean-up
	for p, want := range map[string]bool{young: true, old: false, page: false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
