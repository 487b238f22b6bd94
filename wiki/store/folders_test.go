package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFolderCache states and reads files by name in their folder, moving
// between folders in any order, and falls back to the os.Root for a file
// at the top and a folder that is a symbolic link.
func TestFolderCache(t *testing.T) {
	dir := t.TempDir()
	for rel, data := range map[string]string{
		"pages/a/x.md":    "# X\n\nalpha\n",
		"pages/b/y.md":    "# Y\n\nbravo bravo\n",
		"pages/a/z.md":    "# Z\n",
		"pages/top.md":    "# Top\n\ncharlie\n",
		"pages/real/w.md": "# W\n\ndelta\n",
		"context.md":      "context text\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if err := os.Symlink("real", filepath.Join(dir, "pages", "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var c FolderCache
	defer c.Close()
	cases := []struct {
		path string
		want string // "" when the file is not there
	}{
		{"pages/a/x.md", "# X\n\nalpha\n"},
		{"pages/b/y.md", "# Y\n\nbravo bravo\n"},
		{"pages/a/z.md", "# Z\n"},
		{"pages/top.md", "# Top\n\ncharlie\n"},
		{"context.md", "context text\n"},
		{"pages/a/missing.md", ""},
		{"pages/nofolder/missing.md", ""},
		{"pages/link/w.md", "# W\n\ndelta\n"}, // through the link, as os.Root resolves it
		{"pages/real/w.md", "# W\n\ndelta\n"},
	}
	for _, tc := range cases {
		fi, err := c.Lstat(root, tc.path)
		if tc.want == "" {
			if err == nil {
				t.Errorf("lstat %s: found a file of %d bytes, want none", tc.path, fi.Size)
			}
			continue
		}
		if err != nil || !fi.Mode.IsRegular() || fi.Size != int64(len(tc.want)) {
			t.Errorf("lstat %s: %+v, %v; want a regular file of %d bytes", tc.path, fi, err, len(tc.want))
			continue
		}
		data, err := c.ReadFile(root, tc.path)
		if err != nil || string(data) != tc.want {
			t.Errorf("read %s: %q, %v; want %q", tc.path, data, err, tc.want)
		}
	}
	// A folder replaced by a link is never read through the open folder.
	if fi, err := c.Lstat(root, "pages/link"); err == nil && fi.Mode.IsRegular() {
		t.Errorf("pages/link stated as a regular file: %+v", fi)
	}
}
