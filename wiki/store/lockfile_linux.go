//go:build linux

package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// keptLock is an exclusive flock(2) on a lock file whose descriptor stays
// open between locks, for the audit lock that every tool call takes: a
// lock and unlock are two flock calls and a check, where gofrs/flock opens,
// sets the descriptor's mode with fcntl four times and closes the file for
// each lock (nine system calls).
//
// Rule: a lock is held on the file the path names once it is taken, as
// when the file is opened for each lock. After each flock the path is
// statted (followed, as open follows it) and compared with the descriptor (same device and inode); a lock
// file removed or replaced since it was opened is opened again at its path
// and locked anew.
type keptLock struct {
	path string
	mu   sync.Mutex
	fd   int // -1 when not open
}

func newKeptLock(path string) *keptLock { return &keptLock{path: path, fd: -1} }

// TryLockContext takes the lock, trying again every retryDelay until ctx
// ends; it returns false and ctx's error then (as gofrs/flock does).
func (l *keptLock) TryLockContext(ctx context.Context, retryDelay time.Duration) (bool, error) {
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if ok, err := l.try(); ok || err != nil {
			return ok, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(retryDelay):
		}
	}
}

func (l *keptLock) try() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for range 10 {
		if l.fd < 0 {
			// O_NONBLOCK: a FIFO put in its place must not hang the open.
			fd, err := retry(func() (int, error) {
				return unix.Open(l.path, unix.O_CREAT|unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o644)
			})
			if err != nil {
				return false, err
			}
			l.fd = fd
		}
		err := retryEINTR(func() error { return unix.Flock(l.fd, unix.LOCK_EX|unix.LOCK_NB) })
		if errors.Is(err, unix.EWOULDBLOCK) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		var own, named unix.Stat_t
		if unix.Fstat(l.fd, &own) == nil && unix.Stat(l.path, &named) == nil && own.Dev == named.Dev && own.Ino == named.Ino {
			return true, nil
		}
		// The path names another file now (or none): lock that one.
		unix.Close(l.fd) // releases the flock
		l.fd = -1
	}
	return false, errors.New("the lock file " + l.path + " keeps being replaced")
}

// Unlock releases the lock and keeps the descriptor.
func (l *keptLock) Unlock() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd < 0 {
		return nil
	}
	return retryEINTR(func() error { return unix.Flock(l.fd, unix.LOCK_UN) })
}

// Close closes the descriptor (releasing a lock still held).
func (l *keptLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd < 0 {
		return nil
	}
	err := unix.Close(l.fd)
	l.fd = -1
	return err
}
