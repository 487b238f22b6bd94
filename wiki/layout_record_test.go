package wiki

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestInitSourcesRecordFirstSave: init makes an empty sources record, so a
// new wiki's first saved source is recorded without the "was missing"
// rebuild message; a re-init leaves an existing record byte for byte; a
// wiki without the record (made by an older version) is rebuilt quietly
// when sources/ held nothing before the save, and with the message when it
// held a source that could have changed unseen.
func TestInitSourcesRecordFirstSave(t *testing.T) {
	cases := []struct {
		name string
		// before acts on the freshly initialised wiki before the store opens.
		before      func(t *testing.T, dir string)
		wantMissing bool
		wantPaths   []string
	}{
		{"fresh init", func(*testing.T, string) {}, false, []string{"sources/a.md"}},
		{"older wiki, no sources", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))); err != nil {
				t.Fatal(err)
			}
		}, false, []string{"sources/a.md"}},
		{"older wiki, a source by hand", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, dir, "sources/hand.txt", "dropped in by hand\n")
		}, true, []string{"sources/a.md", "sources/hand.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "wiki")
			created, err := Init(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(created, "\n"), SourcesRecordFile) {
				t.Errorf("init did not report creating %s: %q", SourcesRecordFile, created)
			}
			tc.before(t, dir)
			var logs bytes.Buffer
			s := openStore(t, dir, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))))
			ctx := context.Background()
			if _, err := s.SaveSource(ctx, SourceInput{Path: "a.md", Content: "the first source\n"}); err != nil {
				t.Fatal(err)
			}
			pr, err := s.LoadProject(ctx)
			if err != nil {
				t.Fatal(err)
			}
			said := logs.String() + strings.Join(pr.Problems, "\n")
			if got := strings.Contains(said, "was missing"); got != tc.wantMissing {
				t.Errorf("\"was missing\" said = %v, want %v:\n%s", got, tc.wantMissing, said)
			}
			rec, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile)))
			if err != nil {
				t.Fatal(err)
			}
			m, bad := parseSourceRecord(rec)
			if bad != 0 || len(m) != len(tc.wantPaths) {
				t.Fatalf("record holds %d sources (%d bad lines), want %v:\n%s", len(m), bad, tc.wantPaths, rec)
			}
			for _, p := range tc.wantPaths {
				if _, ok := m[p]; !ok {
					t.Errorf("record lacks %s:\n%s", p, rec)
				}
			}
			if r := m["sources/a.md"]; r.SHA256 != store.SHA256Hex([]byte("the first source\n")) || r.Size != int64(len("the first source\n")) {
				t.Errorf("record of sources/a.md: %+v", r)
			}

			// Init again: the record is kept byte for byte, not reported.
			again, err := Init(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != 0 {
				t.Errorf("re-init created %q", again)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(SourcesRecordFile))); !bytes.Equal(after, rec) {
				t.Errorf("re-init changed the record:\n%s\nwas:\n%s", after, rec)
			}
		})
	}
}
