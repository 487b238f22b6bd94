//go:build unix

package store

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadHead reads at most len(buf) bytes of a regular file, says how long
// the file is, and refuses what is not a regular file without waiting.
func TestDirReadHead(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("0123456789", 1000)
	for name, body := range map[string]string{"empty.md": "", "short.md": "# Title\n", "exact.md": long[:16], "long.md": long} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("short.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644) == nil
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	d, err := OpenDir(r)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cases := []struct {
		name    string
		buf     int
		want    string
		size    int64
		wantErr bool
	}{
		{"empty.md", 16, "", 0, false},
		{"short.md", 16, "# Title\n", 8, false},
		{"exact.md", 16, long[:16], 16, false},
		{"long.md", 16, long[:16], 10000, false},
		{"long.md", 20000, long, 10000, false},
		{"link.md", 16, "", 0, true},
		{"sub", 16, "", 0, true},
		{"missing.md", 16, "", 0, true},
	}
	if fifo {
		cases = append(cases, struct {
			name    string
			buf     int
			want    string
			size    int64
			wantErr bool
		}{"fifo.md", 16, "", 0, true})
	}
	for _, c := range cases {
		buf := make([]byte, c.buf)
		n, st, err := d.ReadHead(c.name, buf)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v, want error %v", c.name, err, c.wantErr)
			continue
		}
		if c.wantErr {
			continue
		}
		if got := string(buf[:n]); got != c.want || st.Size != c.size || !st.Mode.IsRegular() {
			t.Errorf("%s (buffer %d): read %d bytes %.20q, size %d mode %v; want %.20q, size %d", c.name, c.buf, n, got, st.Size, st.Mode, c.want, c.size)
		}
	}
}
