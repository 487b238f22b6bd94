package store

import (
	"context"
	"path"
	"path/filepath"
	"strings"
)

// StateDir is the folder of the store's own state: the locks, the journal,
// the audit log, the snapshots and the derived state its owner keeps.
const StateDir = ".llmwiki"

// IsStatePath reports whether the clean path rel is [StateDir] or lies
// under it.
func IsStatePath(rel string) bool { return rel == StateDir || strings.HasPrefix(rel, StateDir+"/") }

// Policy is the owner's rules for the files a store holds, installed with
// [WithPolicy] when the store opens. The store knows nothing of what the
// files mean: it calls the policy at fixed points of a write and enforces
// what it answers, under the project lock, for every writer. A nil field
// allows what it would check.
type Policy struct {
	// CleanPath validates a path a caller named and returns it in
	// canonical form (forward slashes, no "./", no trailing slash). Every
	// path a caller gives the store goes through it. Default: a path
	// that stays inside the root, cleaned.
	CleanPath func(p string) (string, error)

	// Check refuses a change of kind op to the clean path rel, before
	// anything is read: which files may be created, replaced, appended to
	// or deleted at all. A journaled change it refuses is not completed
	// at open.
	Check func(rel string, op Op) error

	// ReplaceMissing reports whether rel may be replaced while it does not
	// exist (files derived from others, written whole). Default: no, a
	// missing file must be created.
	ReplaceMissing func(rel string) bool

	// CheckReplace refuses new content for the existing file rel, given
	// its current content.
	CheckReplace func(rel string, old, new []byte) error

	// CheckNewName refuses a new file rel that the names already in the
	// store (or staged in tx) make ambiguous, beyond the case and Unicode
	// variants the store refuses itself.
	CheckNewName func(tx *Tx, rel string) error

	// Snapshotted reports whether the version of rel a change of kind op
	// replaces is kept as a snapshot. Default: every version a replace or
	// a delete drops (a create drops none; an append keeps every old
	// byte).
	Snapshotted func(rel string, op Op) bool

	// BeforeCommit runs after the function given to [Store.Update] staged
	// its changes and before they are committed; it may stage more (files
	// derived from the staged ones). Its error cancels the write.
	BeforeCommit func(tx *Tx) error

	// Committed runs after a commit, under the project lock, with the
	// changes made (none when nothing changed) and the snapshots taken,
	// before the derived states ([Derived]) are told.
	Committed func(ctx context.Context, call *Call, changes []Change, snapshots []string)
}

func (p Policy) check(rel string, op Op) error {
	if p.Check == nil {
		return nil
	}
	return p.Check(rel, op)
}

func (p Policy) replaceMissing(rel string) bool {
	return p.ReplaceMissing != nil && p.ReplaceMissing(rel)
}

func (p Policy) checkReplace(rel string, old, new []byte) error {
	if p.CheckReplace == nil {
		return nil
	}
	return p.CheckReplace(rel, old, new)
}

func (p Policy) checkNewName(tx *Tx, rel string) error {
	if p.CheckNewName == nil {
		return nil
	}
	return p.CheckNewName(tx, rel)
}

func (p Policy) snapshotted(rel string, op Op) bool {
	if p.Snapshotted == nil {
		return op != OpAppend && op != OpCreate
	}
	return p.Snapshotted(rel, op)
}

func (p Policy) beforeCommit(tx *Tx) error {
	if p.BeforeCommit == nil {
		return nil
	}
	return p.BeforeCommit(tx)
}

func (p Policy) committed(ctx context.Context, call *Call, changes []Change, snapshots []string) {
	if p.Committed != nil {
		p.Committed(ctx, call, changes, snapshots)
	}
}

// cleanPath is the policy's [Policy.CleanPath], or the default: a
// slash-separated path that stays inside the root.
func (s *Store) cleanPath(p string) (string, error) {
	if s.policy.CleanPath != nil {
		return s.policy.CleanPath(p)
	}
	if p == "" {
		return "", Errorf(CodeInvalid, "path is empty")
	}
	clean := path.Clean(strings.TrimSuffix(p, "/"))
	if strings.Contains(p, "\\") || clean == "." || !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", Errorf(CodeInvalid, "path %q does not name a file inside the store", p)
	}
	return clean, nil
}
