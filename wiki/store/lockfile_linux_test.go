//go:build linux

package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// A keptLock excludes another process's lock on the file its path names,
// also after the lock file was removed or replaced under its descriptor.
func TestKeptLockFollowsPath(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, p string)
	}{
		{"unchanged", func(t *testing.T, p string) {}},
		{"removed", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced", func(t *testing.T, p string) {
			if err := os.WriteFile(p+".new", nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "audit.lock")
			l := newKeptLock(p)
			defer l.Close()
			lock := func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
				ok, _ := l.TryLockContext(ctx, time.Millisecond)
				return ok
			}
			if !lock() {
				t.Fatal("first lock not taken")
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			tc.change(t, p)
			if !lock() {
				t.Fatal("lock not taken after the change")
			}
			// Another process's lock on the path (gofrs/flock opens it anew).
			other := flock.New(p)
			if ok, err := other.TryLock(); err != nil || ok {
				t.Fatalf("another lock on the path was taken while held (%v, %v)", ok, err)
			}
			if err := l.Unlock(); err != nil {
				t.Fatal(err)
			}
			if ok, err := other.TryLock(); err != nil || !ok {
				t.Fatalf("another lock not taken after Unlock (%v, %v)", ok, err)
			}
			// And the kept lock waits for it, then times out.
			if lock() {
				t.Fatal("kept lock taken while another holds the path's lock")
			}
			other.Unlock()
			if !lock() {
				t.Fatal("kept lock not taken once the other was released")
			}
			l.Unlock()
		})
	}
}
