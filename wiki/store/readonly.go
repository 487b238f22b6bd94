package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// A read-only wiki: a read-only mount, a container volume, a folder the user
// cannot write. [Open] finds out by trying (see probeReadOnly) and then
// writes nothing at all: no folders or lock files are created, no crashed
// write is completed (one recorded in the journal is reported in
// [Store.Repairs]), no temp file is swept, the file watcher makes no sync
// file, and audit lines are skipped (a read-only wiki has no writes to
// record; one warning on the log says so). Every write is refused with
// [ReadOnlyMessage] before it starts.

// isReadOnlyErr reports whether err is the file system refusing a write
// because the wiki cannot be written (a read-only mount, no permission).
func isReadOnlyErr(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// probeReadOnly reports whether the wiki under root cannot be written: it
// creates (and removes) a temp file in .llmwiki/, or .llmwiki/ itself when
// it is missing, and looks at why that fails. Any other failure is not
// read-only-ness, and Open reports it as it did before.
func probeReadOnly(root *os.Root) bool {
	if _, err := root.Lstat(".llmwiki"); errors.Is(err, fs.ErrNotExist) {
		err := root.Mkdir(".llmwiki", 0o755)
		return err != nil && isReadOnlyErr(err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	name := ".llmwiki/.probe" + TempMarker + hex.EncodeToString(rnd[:])
	f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return isReadOnlyErr(err)
	}
	f.Close()
	_ = root.Remove(name)
	return false
}

// ReadOnly reports whether the wiki cannot be written (found when the store
// opened). Every write then fails with [ReadOnlyMessage] and changes
// nothing; reads and searches work (the search index is opened read-only,
// or kept outside the wiki).
func (s *Store) ReadOnly() bool { return s.readOnly }

// CheckWritable is nil, or the coded error (CodeUnavailable, with
// [ReadOnlyMessage]) every write returns on a read-only wiki. Tools call it
// before they start a write, so that nothing is done first.
func (s *Store) CheckWritable() error {
	if s.readOnly {
		return errReadOnly
	}
	return nil
}

// warnAuditSkipped logs, once per store, that audit lines are not written
// because the wiki is read-only.
func (s *Store) warnAuditSkipped() {
	s.auditWarn.Do(func() {
		s.log.Warn("the wiki is read-only: audit lines are not written (no write can happen, and every one is refused)")
	})
}
