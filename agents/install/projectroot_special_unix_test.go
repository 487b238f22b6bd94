//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFindProjectWikiSpecialFile: a FIFO, or a symbolic link to a device,
// as a project's .mcp.json is an error naming the file, at once: capture
// (a SessionEnd hook) never waits on it or reads it for ever.
func TestFindProjectWikiSpecialFile(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, p string)
	}{
		{"fifo", func(t *testing.T, p string) {
			if err := unix.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { // release a reader blocked by a bug
				if fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
					unix.Close(fd)
				}
			})
		}},
		{"symlink to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			project := t.TempDir()
			file := filepath.Join(project, ".mcp.json")
			c.make(t, file)
			type result struct {
				pw  *ProjectWiki
				err error
			}
			ch := make(chan result, 1)
			go func() {
				pw, err := FindProjectWiki(project, func(string) string { return "" })
				ch <- result{pw, err}
			}()
			select {
			case r := <-ch:
				if r.pw != nil || r.err == nil || !strings.Contains(r.err.Error(), file+" is not a regular file") {
					t.Errorf("%+v %v, want an error naming %s", r.pw, r.err, file)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("FindProjectWiki of a .mcp.json that is a %s did not return within 10 s", c.name)
			}
		})
	}
}
