package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStatCacheAsRootLstat: the cache gives what os.Root.Lstat gives
// (same file, size, mtime, mode; no file where it has none) while folders
// are renamed, replaced, made symbolic links and removed between calls.
func TestStatCacheAsRootLstat(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var s StatCache
	defer s.Close()
	rels := []string{"top.md", "pages/a/b/one.md", "pages/a/b/two.md", "pages/a/c/three.md", "pages/link/one.md", "pages/a/b", "pages/missing/x.md", "pages/a/b/missing.md", "../out.md", "pages//a/b/one.md"}
	steps := []struct {
		name string
		do   func()
	}{
		{"first", func() {
			write("top.md", "top")
			write("pages/a/b/one.md", "one")
			write("pages/a/b/two.md", "two two")
			write("pages/a/c/three.md", "three")
		}},
		{"cached", func() {}},
		{"file replaced", func() { write("pages/a/b/one.md", "one, longer now") }},
		{"folder renamed and made again", func() {
			if err := os.Rename(filepath.Join(dir, "pages/a"), filepath.Join(dir, "pages/old")); err != nil {
				t.Fatal(err)
			}
			write("pages/a/b/one.md", "new one")
		}},
		{"folder a symbolic link", func() {
			if err := os.RemoveAll(filepath.Join(dir, "pages/a")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("old", filepath.Join(dir, "pages/a")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("old/b", filepath.Join(dir, "pages/link")); err != nil {
				t.Fatal(err)
			}
		}},
		{"symbolic link a folder again", func() {
			os.Remove(filepath.Join(dir, "pages/a"))
			write("pages/a/b/two.md", "two again")
		}},
		{"folders removed", func() {
			if err := os.RemoveAll(filepath.Join(dir, "pages")); err != nil {
				t.Fatal(err)
			}
		}},
		{"made again", func() { write("pages/a/c/three.md", "three again") }},
	}
	for _, step := range steps {
		step.do()
		got := s.Lstat(root, rels)
		for i, rel := range rels {
			want, werr := root.Lstat(rel)
			switch {
			case werr != nil && got[i] != nil:
				t.Errorf("%s: %s: got a stat, os.Root.Lstat says %v", step.name, rel, werr)
			case werr == nil && got[i] == nil:
				t.Errorf("%s: %s: got none, os.Root.Lstat gives one", step.name, rel)
			case werr == nil && (!SameFile(got[i], want) || got[i].Size() != want.Size() || !got[i].ModTime().Equal(want.ModTime()) || got[i].Mode() != want.Mode()):
				t.Errorf("%s: %s: got %v %d %v %v, want %v %d %v %v", step.name, rel, got[i].Sys(), got[i].Size(), got[i].ModTime(), got[i].Mode(), want.Sys(), want.Size(), want.ModTime(), want.Mode())
			}
		}
	}
}
