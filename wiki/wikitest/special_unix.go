//go:build unix

package wikitest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// SpecialKinds are the kinds of file [MakeSpecial] makes.
var SpecialKinds = []string{"fifo", "socket"}

// MakeSpecial makes a file that is not a regular file at path: a named
// pipe ("fifo") or a listening Unix socket ("socket"), and returns what
// llmwiki calls it ("a FIFO", "a socket"). A reader blocked on the FIFO by
// a bug is released when the test ends (a writer opens it), so that the
// test's cleanup can finish.
func MakeSpecial(tb testing.TB, path, kind string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	switch kind {
	case "fifo":
		if err := unix.Mkfifo(path, 0o644); err != nil {
			tb.Fatalf("mkfifo: %v", err)
		}
		tb.Cleanup(func() {
			// ENXIO when nobody waits on it: nothing to release.
			if fd, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
				unix.Close(fd)
			}
		})
		return "a FIFO"
	case "socket":
		l, err := net.Listen("unix", path)
		if err != nil {
			tb.Skipf("cannot make a Unix socket at %s: %v", path, err)
		}
		tb.Cleanup(func() { l.Close() })
		return "a socket"
	}
	tb.Fatalf("unknown special file kind %q", kind)
	return ""
}
