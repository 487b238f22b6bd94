//go:build linux

package changefeed

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// keptTouch touches the sync file through its kept folders while they are
// what the path names, and declines (for touchSync's path through the root)
// when a folder was replaced or the file is missing or not a regular file;
// it never touches what a link points at.
func TestKeptTouch(t *testing.T) {
	const rel = syncDir + "/sync-test"
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   bool
	}{
		{"unchanged", func(t *testing.T, dir string) {}, true},
		{"file removed", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, rel)) }, false},
		{"folder renamed and made again", func(t *testing.T, dir string) {
			d := filepath.Join(dir, syncDir)
			os.Rename(d, d+".old")
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(dir, rel), nil, 0o644)
		}, false},
		{".llmwiki renamed and made again", func(t *testing.T, dir string) {
			d := filepath.Join(dir, ".llmwiki")
			os.Rename(d, d+".old")
			os.MkdirAll(filepath.Join(dir, syncDir), 0o755)
			os.WriteFile(filepath.Join(dir, rel), nil, 0o644)
		}, false},
		{"file replaced by a symlink", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, rel))
			if err := os.Symlink(filepath.Join(dir, "victim.md"), filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, syncDir), 0o755)
			for _, p := range []string{rel, "victim.md"} {
				os.WriteFile(filepath.Join(dir, p), nil, 0o644)
				os.Chtimes(filepath.Join(dir, p), old, old)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			var k keptTouch
			defer k.close()
			if !k.touch(root, rel) {
				t.Fatal("first touch declined")
			}
			os.Chtimes(filepath.Join(dir, rel), old, old)
			tc.change(t, dir)
			if got := k.touch(root, rel); got != tc.want {
				t.Fatalf("touch after the change = %v, want %v", got, tc.want)
			}
			if fi, err := os.Lstat(filepath.Join(dir, rel)); tc.want && (err != nil || fi.ModTime().Equal(old)) {
				t.Errorf("sync file not touched: %v", err)
			}
			if fi, _ := os.Stat(filepath.Join(dir, "victim.md")); !fi.ModTime().Equal(old) {
				t.Error("the link's target was touched")
			}
			if !tc.want {
				// Once the file is made again where the path names it, the
				// kept folders are opened anew.
				os.Remove(filepath.Join(dir, rel))
				os.WriteFile(filepath.Join(dir, rel), nil, 0o644)
				if !k.touch(root, rel) {
					t.Error("touch declined after the file was made again")
				}
			}
			k.close()
			if k.touch(root, rel) {
				t.Error("touch after close")
			}
		})
	}
}

// A feed whose rounds never touched (a read-only wiki) closes its zero
// keptTouch: no descriptor is closed, not even 0.
func TestKeptTouchZeroClosesNothing(t *testing.T) {
	var st unix.Stat_t
	if unix.Fstat(0, &st) != nil {
		t.Skip("no descriptor 0 here")
	}
	var k keptTouch
	k.close()
	if err := unix.Fstat(0, &st); err != nil {
		t.Fatalf("descriptor 0 closed: %v", err)
	}
}
