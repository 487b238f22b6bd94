package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestFoldersReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("top.md", "top\n")
	write("pages/a.md", "alpha\n")
	write("pages/sub/b.md", "beta\n")
	if err := os.Symlink("a.md", filepath.Join(dir, "pages/link.md")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := newFolders(root)
	defer f.close()
	for _, tc := range []struct {
		rel, want string
		fails     bool
	}{
		{rel: "top.md", want: "top\n"},
		{rel: "pages/a.md", want: "alpha\n"},
		{rel: "pages/sub/b.md", want: "beta\n"},
		{rel: "pages/a.md", want: "alpha\n"}, // its folder open already
		{rel: "pages/missing.md", fails: true},
		{rel: "pages/link.md", fails: true}, // not a regular file
		{rel: "pages/sub", fails: true},     // a folder
		{rel: "nowhere/c.md", fails: true},  // no such folder
	} {
		got, err := f.ReadFile(tc.rel)
		if tc.fails {
			if err == nil {
				t.Errorf("ReadFile(%q) = %q, want an error", tc.rel, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", tc.rel, got, err, tc.want)
		}
	}
}

func TestFoldersTrim(t *testing.T) {
	dir := t.TempDir()
	n := maxOpenFolders + 1
	name := func(i int) string { return fmt.Sprintf("d%03d", i) }
	for i := range n {
		p := filepath.Join(dir, name(i), "x.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	f := newFolders(root)
	defer f.close()
	// One folder a batch: the last trim finds one folder too many and
	// keeps the half used last.
	for i := range n {
		if _, err := f.ReadFile(name(i) + "/x.md"); err != nil {
			t.Fatal(err)
		}
		f.trim()
	}
	if len(f.m) != maxOpenFolders/2 {
		t.Fatalf("%d folders open after trim, want %d", len(f.m), maxOpenFolders/2)
	}
	for i, open := range map[int]bool{0: false, n - maxOpenFolders/2 - 1: false, n - maxOpenFolders/2: true, n - 1: true} {
		if (f.m[name(i)] != nil) != open {
			t.Errorf("folder %s open = %v, want %v", name(i), !open, open)
		}
	}
	// A closed folder opens again.
	if got, err := f.ReadFile("d000/x.md"); err != nil || string(got) != "0" {
		t.Errorf("ReadFile(d000/x.md) after trim = %q, %v; want \"0\"", got, err)
	}
}
