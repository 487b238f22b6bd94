//go:build !linux

package store

import "github.com/gofrs/flock"

// newKeptLock is gofrs/flock here (see lockfile_linux.go).
func newKeptLock(path string) *flock.Flock { return flock.New(path) }
