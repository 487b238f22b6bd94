package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the cross-process lock every writer holds while it writes.
const LockFile = ".llmwiki/lock"

// StateLockFile is the cross-process lock held while a file under .llmwiki/
// is written (snapshots, derived state, the journal). It is taken after
// [LockFile] when both are needed, never before it.
const StateLockFile = ".llmwiki/state.lock"

// AuditLockFile is the cross-process lock held while an audit line is
// appended (and while a torn last line is moved aside). It is a lock of its
// own so that a call's audit line never waits for another call's state
// writes and their fsyncs (a snapshot, the journal, the search manifest):
// every call, reads too, writes an audit line before it answers. It is
// taken last: after [LockFile] and [StateLockFile] when those are needed,
// never before them. Its folder has a .gitignore of its own (made at open),
// so wikis made before it existed keep it out of git too.
const AuditLockFile = lockDir + "/audit.lock"

// lockDir holds the locks added after the first layout (see AuditLockFile).
const lockDir = ".llmwiki/locks"

// Store is a transactional file store over one directory. All access goes
// through an [os.Root] opened on the directory; what may be written is the
// owner's [Policy]. A Store is safe for concurrent use, and
// several processes may open Stores on one directory: writes are serialised
// by an in-process mutex plus a file lock on [LockFile].
type Store struct {
	dir      string // absolute host path; never shown to a model
	root     *os.Root
	sem      chan struct{} // in-process half of the project lock (capacity 1, so a wait can be cancelled)
	flock    fileLock
	stateSem chan struct{} // in-process half of the state lock
	sflock   fileLock
	auditSem chan struct{} // in-process half of the audit lock
	aflock   fileLock      // a descriptor kept open (every call takes it)
	// audit is the audit file auditName kept open for appending (see
	// [Store.auditFile]); guarded by the audit lock.
	audit     *os.File
	auditName string
	auditStat StatCache // lstats auditName

	// repairs are what Open found and repaired (an interrupted multi-file
	// write completed, a torn audit line moved aside, temp files removed);
	// load_project reports them as problems.
	repairMu sync.Mutex
	repairs  []string

	log       *slog.Logger
	now       func() time.Time
	session   string
	bg        sync.WaitGroup // background work started by Open
	sweepGo   chan struct{}  // closed when the temp-file sweep may start (StartSweep)
	sweepOnce sync.Once
	hintMu    sync.Mutex
	hint      *SweepHint // the watcher's first walk, for the sweep; nil when none or used
	swept     bool       // the sweep has taken its hint (or gone without)
	// sweepListed counts the folders the sweep listed itself ([Store.WaitSweep]).
	sweepListed int

	// fault, when set (tests only), is called before each step of an atomic
	// write ("create", "write", "sync", "rename", "syncdir") and can fail it.
	fault func(step, rel string) error

	derivedMu sync.Mutex
	derived   []Derived
	stale     map[string]string // derived name -> reason

	viewOnly bool   // ViewOnly
	policy   Policy // the owner's rules for what may be written (policy.go)

	readOnly  bool      // the wiki cannot be written (readonly.go)
	auditWarn sync.Once // the one warning that audit lines are skipped
}

// Option configures [Open].
type Option func(*Store)

// WithLogger sets the logger for problems that are also reported to callers
// (stale derived state, repaired files). Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithClock sets the clock used for created/updated times, snapshot names and
// log entries. Tests use it for deterministic output. Default: time.Now.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// ViewOnly opens the store as a read-only one (see [Store.ReadOnly])
// without probing it: nothing is created, repaired or swept, and every
// write is refused.
func ViewOnly() Option { return func(s *Store) { s.viewOnly = true } }

// WithPolicy installs the rules the store enforces on every write (see
// [Policy]). Without one, any clean path may be written.
func WithPolicy(p Policy) Option { return func(s *Store) { s.policy = p } }

// WithFaults installs a fault-injection seam for tests: fn is called before
// each step of every atomic write and a non-nil error fails that step.
func WithFaults(fn func(step, rel string) error) Option { return func(s *Store) { s.fault = fn } }

// Open opens the project at dir, which must be an existing directory. It
// creates .llmwiki/ and its lock file when missing, completes a write a crash
// interrupted, and removes temp files left by a crashed writer in the
// background (under both locks; once the file watcher's first walk has listed
// most folders for it, or after two seconds, or at [Store.Close]). It does not
// create anything else: the owner lays out its files.
func Open(dir string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Internal("resolve project directory", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Errorf(CodeNotFound, "project directory does not exist")
		}
		return nil, Internal("stat project directory", err)
	}
	if !st.IsDir() {
		return nil, Errorf(CodeInvalid, "project root is a file, not a directory")
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, Internal("open project root", err)
	}
	s := &Store{dir: abs, root: root, log: slog.Default(), now: time.Now, stale: map[string]string{},
		sem: make(chan struct{}, 1), stateSem: make(chan struct{}, 1), auditSem: make(chan struct{}, 1)}
	for _, o := range opts {
		o(s)
	}
	s.session = newSessionID("proc")
	s.readOnly = s.viewOnly || probeReadOnly(root)
	if s.readOnly {
		return s.openReadOnly()
	}
	for _, d := range []string{".llmwiki", AuditDir, SnapshotDir} {
		if fi, err := root.Lstat(d); err == nil && !fi.IsDir() {
			root.Close()
			return nil, Errorf(CodeInvalid, "%s is not a folder (a symbolic link or a file); llmwiki keeps its state only in a real folder inside the wiki", d)
		}
		if err := root.MkdirAll(d, 0o755); err != nil {
			root.Close()
			return nil, Internal("create "+d, err)
		}
	}
	if fi, err := root.Lstat(lockDir); err == nil && !fi.IsDir() {
		root.Close()
		return nil, Errorf(CodeInvalid, "%s is not a folder (a symbolic link or a file); llmwiki keeps its locks only in a real folder inside the wiki", lockDir)
	} else if err != nil {
		if err := root.Mkdir(lockDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			root.Close()
			return nil, Internal("create "+lockDir, err)
		}
	}
	if h, err := root.OpenFile(lockDir+"/.gitignore", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		_, _ = h.WriteString("# llmwiki's lock files\n*\n")
		h.Close()
	}
	for _, lf := range []string{LockFile, StateLockFile, AuditLockFile} {
		if f, _, err := openRegularFlag(root, lf, os.O_CREATE|os.O_RDONLY, 0o644); err == nil {
			f.Close()
		} else if errors.Is(err, ErrNotRegular) {
			root.Close() // flock would open it and wait for ever
			return nil, err
		} else if _, serr := root.Stat(lf); serr != nil {
			root.Close()
			return nil, Internal("create lock file", err)
		}
	}
	s.flock = flock.New(filepath.Join(abs, filepath.FromSlash(LockFile)))
	s.sflock = flock.New(filepath.Join(abs, filepath.FromSlash(StateLockFile)))
	s.aflock = newKeptLock(filepath.Join(abs, filepath.FromSlash(AuditLockFile)))
	if err := s.recover(context.Background()); err != nil {
		s.log.Warn("could not check the wiki for interrupted writes", "err", err)
	}
	// Temp files of a crashed writer are removed in the background, under
	// both locks, so opening a large wiki stays fast; the sweep waits for
	// the file watcher's first walk, which lists most folders for it (see
	// SweepHint), or sweepWait, or Close.
	s.sweepGo = make(chan struct{})
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTimer(sweepWait)
		select {
		case <-s.sweepGo:
		case <-t.C:
		}
		t.Stop()
		if err := s.cleanTemps(context.Background()); err != nil {
			s.log.Warn("could not clean temp files", "err", err)
		}
	}()
	return s, nil
}

// openReadOnly finishes Open on a wiki that cannot be written: the state
// folders are checked as usual but nothing is created, repaired or swept.
// A write a crash interrupted is left as it is, and reported.
func (s *Store) openReadOnly() (*Store, error) {
	for _, d := range []string{".llmwiki", AuditDir, SnapshotDir, lockDir} {
		if fi, err := s.root.Lstat(d); err == nil && !fi.IsDir() {
			s.root.Close()
			return nil, Errorf(CodeInvalid, "%s is not a folder (a symbolic link or a file); llmwiki keeps its state only in a real folder inside the wiki", d)
		}
	}
	s.flock = flock.New(filepath.Join(s.dir, filepath.FromSlash(LockFile)))
	s.sflock = flock.New(filepath.Join(s.dir, filepath.FromSlash(StateLockFile)))
	s.aflock = newKeptLock(filepath.Join(s.dir, filepath.FromSlash(AuditLockFile)))
	if _, ok, _ := s.ReadRaw(JournalFile); ok {
		s.addRepair("a write that a crash interrupted is recorded in " + JournalFile + "; the wiki is read-only, so it is completed when the wiki is next opened writable (until then, the files it names may be half written)")
	}
	s.sweepOnce.Do(func() {}) // no sweep: nothing can be removed
	s.swept = true            // so the watcher keeps no hint for it
	return s, nil
}

// sweepWait is how long the temp-file sweep Open starts waits for the file
// watcher's first walk (a server starts it at once, for its search index)
// before it lists every folder itself.
const sweepWait = 2 * time.Second

// StartSweep lets the temp-file sweep run now.
func (s *Store) StartSweep() { s.sweepOnce.Do(func() { close(s.sweepGo) }) }

// WaitSweep waits until the temp-file sweep Open started has run (it does
// not start it: see [Store.StartSweep]) and returns how many folders the
// sweep listed itself, beyond those the watcher's first walk had listed.
func (s *Store) WaitSweep() int {
	s.bg.Wait()
	return s.sweepListed
}

// recover runs under all locks when a store opens, before it serves
// anything: it completes a multi-file write a crash interrupted (the
// journal) and moves a torn last audit line aside. What it does is logged,
// audited and kept for [Store.Repairs].
func (s *Store) recover(ctx context.Context) error {
	return s.underAllLocks(ctx, "internal:recover", func(call *Call) {
		s.recoverJournal(call)
		s.repairAuditTails(call)
	})
}

// cleanTemps removes the temp files crashed writers left, under all locks.
// It first completes a write journaled since Open's recovery (another
// process that crashed mid-commit while this sweep waited, see sweepWait):
// the temp files that journal names hold the write's new content, and
// removing them would leave that write half done for good.
func (s *Store) cleanTemps(ctx context.Context) error {
	return s.underAllLocks(ctx, "internal:recover", func(call *Call) {
		s.recoverJournal(call)
		s.removeStaleTemps(call)
	})
}

// underAllLocks runs fn with a call of tool under the project, state and
// audit locks (taken in that order), then reports and audits what fn
// recorded in the call.
func (s *Store) underAllLocks(ctx context.Context, tool string, fn func(*Call)) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	unlockState, err := s.lockState(ctx)
	if err != nil {
		return err
	}
	defer unlockState()
	unlockAudit, err := s.lockAudit(ctx)
	if err != nil {
		return err
	}
	defer unlockAudit()
	call := NewCall(tool, s.session, nil)
	fn(call)
	if len(call.Writes) == 0 && len(call.Warnings) == 0 {
		return nil
	}
	for _, w := range call.Warnings {
		s.log.Warn("repaired after a crash", "what", w)
	}
	s.repairMu.Lock()
	s.repairs = append(s.repairs, call.Warnings...)
	s.repairMu.Unlock()
	return s.auditLocked(call, nil)
}

// Repairs lists what opening the store found and repaired after a crash
// (an interrupted write completed, a torn audit line moved aside, temp
// files removed), in words for a person. load_project reports them.
func (s *Store) Repairs() []string {
	s.repairMu.Lock()
	defer s.repairMu.Unlock()
	return append([]string(nil), s.repairs...)
}

func (s *Store) addRepair(msg string) {
	s.repairMu.Lock()
	s.repairs = append(s.repairs, msg)
	s.repairMu.Unlock()
	s.log.Warn("repaired after a crash", "what", msg)
}

// AddRebuilt is [Store.addRepair] for state rebuilt because it was not
// there (deleted, or kept only by a later version of llmwiki): reported
// once by load_project like a repair, logged as what it is.
func (s *Store) AddRebuilt(msg string) {
	s.repairMu.Lock()
	s.repairs = append(s.repairs, msg)
	s.repairMu.Unlock()
	s.log.Info("state rebuilt", "what", msg)
}

// Close waits for background work, then releases the root and the lock
// file handles.
func (s *Store) Close() error {
	s.StartSweep()
	s.bg.Wait()
	s.closeDerived()
	if s.flock != nil {
		_ = s.flock.Close()
	}
	if s.sflock != nil {
		_ = s.sflock.Close()
	}
	s.auditSem <- struct{}{}
	s.closeAuditFile()
	s.auditStat.Close()
	<-s.auditSem
	if s.aflock != nil {
		_ = s.aflock.Close()
	}
	return s.root.Close()
}

// Dir returns the absolute host path of the project. It is for the command
// line and logs only; tool results never carry it.
func (s *Store) Dir() string { return s.dir }

// Root returns the store's [os.Root] for read-only helpers in sibling
// packages (search, links). Writes must go through [Store.Update].
func (s *Store) Root() *os.Root { return s.root }

// SessionID returns the id of this process's session, used in audit lines of
// calls that come with no session of their own (the command line, stdio).
func (s *Store) SessionID() string { return s.session }

// Now returns the store's clock reading in UTC.
func (s *Store) Now() time.Time { return s.now().UTC() }

// Logger returns the store's logger.
func (s *Store) Logger() *slog.Logger { return s.log }

// lock takes the project lock: the in-process semaphore (waiting until ctx
// ends: a cancelled call stops waiting), then the file lock, waiting up to
// 30 s (or ctx) for another process. A wait that is cancelled or runs out is
// a CodeConflict error; nothing has been written.
func (s *Store) lock(ctx context.Context) (func(), error) {
	return takeLock(ctx, s.sem, s.flock, "the wiki")
}

// lockState takes the state lock (see [StateLockFile]) the same way.
func (s *Store) lockState(ctx context.Context) (func(), error) {
	return takeLock(ctx, s.stateSem, s.sflock, "the wiki's state")
}

// lockAudit takes the audit lock (see [AuditLockFile]) the same way.
func (s *Store) lockAudit(ctx context.Context) (func(), error) {
	return takeLock(ctx, s.auditSem, s.aflock, "the audit log")
}

// fileLock is the cross-process half of a lock: gofrs/flock, or a
// [keptLock].
type fileLock interface {
	TryLockContext(ctx context.Context, retryDelay time.Duration) (bool, error)
	Unlock() error
	Close() error
}

func takeLock(ctx context.Context, sem chan struct{}, fl fileLock, what string) (func(), error) {
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return nil, Errorf(CodeCancelled, "cancelled while waiting for the lock on %s; nothing was written", what)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 2*time.Millisecond)
	if err != nil || !ok {
		<-sem
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, Errorf(CodeConflict, "%s is locked by another llmwiki process; retry in a moment", what)
		}
		if errors.Is(err, context.Canceled) {
			return nil, Errorf(CodeCancelled, "cancelled while waiting for the lock on %s", what)
		}
		return nil, Internal("take the lock on "+what, err)
	}
	return func() {
		_ = fl.Unlock()
		<-sem
	}, nil
}

// TempMarker is part of the name of every temp file the writer creates
// (see [IsTempName]).
const TempMarker = ".llmwiki-tmp-"

// IsTempName reports whether a file name is one of the writer's temp files.
func IsTempName(name string) bool { return strings.Contains(filepath.Base(name), TempMarker) }

// removeStaleTemps deletes writer temp files. Temp files are only created
// under the project lock (wiki files), the state lock (files under
// .llmwiki/) or the audit lock (torn audit lines moved aside), and the
// caller holds all three, so every one found is stale.
//
// The folders the file watcher's first walk listed (pages/ and sources/,
// most of a large wiki) are not listed again: the temp files the walk saw
// in them are removed if they are still there, and the folders it did not
// list below them (hidden ones) are swept as the rest is. A temp file the
// walk saw before this sweep took the locks was either a live write's,
// which has finished and renamed it since (temp names are random, never
// reused), or a crashed writer's, which is still there.
func (s *Store) removeStaleTemps(call *Call) {
	h := s.takeSweepHint()
	var removed []string
	remove := func(p string) {
		if rerr := s.root.Remove(p); rerr == nil {
			removed = append(removed, p)
		}
	}
	// Each folder is listed without a stat per entry ([Dir]): opening a
	// wiki of 40k pages should not cost 40k stats.
	var walk func(r *os.Root, dir string)
	walk = func(r *os.Root, dir string) {
		d, err := OpenDir(r)
		if err != nil {
			return
		}
		ents, _ := d.Entries()
		d.Close()
		s.sweepListed++
		for _, e := range ents {
			if !e.Type.IsDir() && !IsTempName(e.Name) {
				continue // most entries: no path built
			}
			p := e.Name
			if dir != "" {
				p = dir + "/" + e.Name
			}
			if e.Type.IsDir() {
				// The search index's own folders hold only bleve's files;
				// its manifest (written with a writer temp) sits directly
				// in .llmwiki/search, which is swept.
				if dir == ".llmwiki/search" || p == ".git" || h != nil && h.listed[p] {
					continue
				}
				if sub, err := OpenRootDir(r, e.Name); err == nil {
					walk(sub, p)
					sub.Close()
				}
				continue
			}
			remove(p)
		}
	}
	walk(s.root, "")
	if h != nil {
		for _, p := range h.temps {
			if fi, err := s.root.Lstat(p); err == nil && !fi.IsDir() {
				remove(p)
			}
		}
		for _, p := range h.unlisted {
			if sub, err := OpenRootDir(s.root, p); err == nil {
				walk(sub, p)
				sub.Close()
			}
		}
	}
	slices.Sort(removed) // the order of the folders' listings is the file system's
	if len(removed) > 0 {
		call.AddWarning(fmt.Sprintf("removed %d temp file(s) left by an interrupted write (%s); the files they were for are unchanged", len(removed), strings.Join(firstN(removed, 5), ", ")))
	}
}

// SweepHint is what the file watcher's first walk saw that the temp-file
// sweep needs (see [Store.removeStaleTemps]).
type SweepHint struct {
	listed   map[string]bool // folders the walk listed in full
	temps    []string        // writer temp names (not folders) in them
	unlisted []string        // folders below them the walk did not list (hidden ones; ones it could not read)
}

// NewSweepHint returns an empty hint for a first walk to fill.
func NewSweepHint() *SweepHint { return &SweepHint{listed: map[string]bool{}} }

// Note records the folder rel's listing (err: it failed).
func (h *SweepHint) Note(rel string, ents []DirEntry, err error) {
	if err != nil {
		h.unlisted = append(h.unlisted, rel)
		return
	}
	h.listed[rel] = true
	for _, e := range ents {
		switch {
		case e.Type.IsDir():
			if strings.HasPrefix(e.Name, ".") {
				h.unlisted = append(h.unlisted, rel+"/"+e.Name)
			}
		case IsTempName(e.Name):
			h.temps = append(h.temps, rel+"/"+e.Name)
		}
	}
}

// SetSweepHint hands the watcher's first walk to the sweep, unless the
// sweep has started without it.
func (s *Store) SetSweepHint(h *SweepHint) {
	s.hintMu.Lock()
	if !s.swept {
		s.hint = h
	}
	s.hintMu.Unlock()
}

// takeSweepHint returns the watcher's first walk, once, when the sweep
// starts; nil when there was none (yet).
func (s *Store) takeSweepHint() *SweepHint {
	s.hintMu.Lock()
	defer s.hintMu.Unlock()
	h := s.hint
	s.hint, s.swept = nil, true
	return h
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(append([]string(nil), s[:n]...), "…")
	}
	return s
}
