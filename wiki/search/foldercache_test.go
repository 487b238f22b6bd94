package search

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFolderCache states and reads files by name in their folder, moving
// between folders in any order, and falls back to the os.Root for a file
// at the top and a folder that is a symbolic link.
func TestFolderCache(t *testing.T) {
	st, _, dir := testWiki(t, map[string]string{
		"pages/a/x.md":    "# X\n\nalpha\n",
		"pages/b/y.md":    "# Y\n\nbravo bravo\n",
		"pages/a/z.md":    "# Z\n",
		"pages/top.md":    "# Top\n\ncharlie\n",
		"pages/real/w.md": "# W\n\ndelta\n",
		"context.md":      "context text\n",
	})
	if err := os.Symlink("real", filepath.Join(dir, "pages", "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var c folderCache
	defer c.close()
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
		fi, err := c.lstat(st.Root(), tc.path)
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
		data, err := c.readFile(st, tc.path)
		if err != nil || string(data) != tc.want {
			t.Errorf("read %s: %q, %v; want %q", tc.path, data, err, tc.want)
		}
	}
	// A folder replaced by a link is never read through the open folder.
	if fi, err := c.lstat(st.Root(), "pages/link"); err == nil && fi.Mode.IsRegular() {
		t.Errorf("pages/link stated as a regular file: %+v", fi)
	}
}
