package wiki

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the cross-process lock every writer holds while it writes.
const LockFile = ".llmwiki/lock"

// Store is one wiki project on disk. All access goes through an [os.Root]
// opened on the project directory. A Store is safe for concurrent use, and
// several processes may open Stores on one directory: writes are serialised
// by an in-process mutex plus a file lock on [LockFile].
type Store struct {
	dir     string // absolute host path; never shown to a model
	root    *os.Root
	mu      sync.Mutex // in-process half of the project lock
	flock   *flock.Flock
	log     *slog.Logger
	now     func() time.Time
	session string
	bg      sync.WaitGroup // background work started by Open

	// fault, when set (tests only), is called before each step of an atomic
	// write ("create", "write", "sync", "rename", "syncdir") and can fail it.
	fault func(step, rel string) error

	derivedMu sync.Mutex
	derived   []Derived
	stale     map[string]string // derived name -> reason

	cfgCache configCache

	catMu sync.Mutex
	cat   map[string]PageInfo // page path -> metadata; nil until first scan
}

// Option configures [Open].
type Option func(*Store)

// WithLogger sets the logger for problems that are also reported to callers
// (stale derived state, repaired files). Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.log = l } }

// WithClock sets the clock used for created/updated times, snapshot names and
// log entries. Tests use it for deterministic output. Default: time.Now.
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithFaults installs a fault-injection seam for tests: fn is called before
// each step of every atomic write and a non-nil error fails that step.
func WithFaults(fn func(step, rel string) error) Option { return func(s *Store) { s.fault = fn } }

// Open opens the project at dir, which must be an existing directory. It
// creates .llmwiki/ and its lock file when missing, and removes temp files
// left by a crashed writer (under the project lock). It does not create the
// rest of the layout: see [Init].
func Open(dir string, opts ...Option) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, internal("resolve project directory", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Errorf(CodeNotFound, "project directory does not exist")
		}
		return nil, internal("stat project directory", err)
	}
	if !st.IsDir() {
		return nil, Errorf(CodeInvalid, "project root is a file, not a directory")
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, internal("open project root", err)
	}
	s := &Store{dir: abs, root: root, log: slog.Default(), now: time.Now, stale: map[string]string{}}
	for _, o := range opts {
		o(s)
	}
	s.session = newSessionID("proc")
	for _, d := range []string{".llmwiki", AuditDir, SnapshotDir} {
		if err := root.MkdirAll(d, 0o755); err != nil {
			root.Close()
			return nil, internal("create .llmwiki", err)
		}
	}
	if f, err := root.OpenFile(LockFile, os.O_CREATE|os.O_RDONLY, 0o644); err == nil {
		f.Close()
	} else {
		root.Close()
		return nil, internal("create lock file", err)
	}
	s.flock = flock.New(filepath.Join(abs, filepath.FromSlash(LockFile)))
	// Temp files of a crashed writer are removed in the background, under
	// the lock, so opening a large wiki stays fast.
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		if err := s.removeStaleTemps(context.Background()); err != nil {
			s.log.Warn("could not clean temp files", "err", err)
		}
	}()
	return s, nil
}

// Close waits for background work, then releases the root and the lock
// file handle.
func (s *Store) Close() error {
	s.bg.Wait()
	s.closeDerived()
	if s.flock != nil {
		_ = s.flock.Close()
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

// lock takes the project lock: the in-process mutex, then the file lock,
// waiting up to 30 s (or ctx) for another process. A wait that runs out is a
// CodeConflict error.
func (s *Store) lock(ctx context.Context) (func(), error) {
	s.mu.Lock()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ok, err := s.flock.TryLockContext(ctx, 2*time.Millisecond)
	if err != nil || !ok {
		s.mu.Unlock()
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, Errorf(CodeConflict, "the wiki is locked by another llmwiki process; retry in a moment")
		}
		if errors.Is(err, context.Canceled) {
			return nil, Errorf(CodeConflict, "cancelled while waiting for the wiki lock")
		}
		return nil, internal("take project lock", err)
	}
	return func() {
		_ = s.flock.Unlock()
		s.mu.Unlock()
	}, nil
}

// tempMarker is part of the name of every temp file the writer creates.
const tempMarker = ".llmwiki-tmp-"

// IsTempName reports whether a file name is one of the writer's temp files.
func IsTempName(name string) bool { return strings.Contains(filepath.Base(name), tempMarker) }

// stateTempGrace is how old a temp file under .llmwiki/ must be before
// removeStaleTemps deletes it: [Store.WriteState] writes server state
// without the project lock (plans call it inside [Store.Locked]), so a young
// one may belong to a write in progress.
const stateTempGrace = 10 * time.Minute

// removeStaleTemps deletes writer temp files. A temp file of a wiki file
// only exists while its writer holds the lock, so under the lock every one
// found is stale; under .llmwiki/ only those older than stateTempGrace are.
func (s *Store) removeStaleTemps(ctx context.Context) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == ".llmwiki/search" {
			return fs.SkipDir
		}
		if !d.IsDir() && IsTempName(d.Name()) && LayerOf(p) == LayerState {
			if fi, ierr := d.Info(); ierr != nil || time.Since(fi.ModTime()) < stateTempGrace {
				return nil
			}
		}
		if !d.IsDir() && IsTempName(d.Name()) {
			if rerr := s.root.Remove(p); rerr == nil {
				s.log.Warn("removed a temp file left by an interrupted write", "path", p)
			}
		}
		return nil
	})
}
