package changefeed

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"time"
)

// Config is what a feed needs of the folder it watches.
type Config struct {
	// Dir is the folder watched, absolute, as the watcher reports paths.
	Dir string
	// Root is Dir opened as an os.Root: every stat, listing and write of
	// the feed goes through it.
	Root *os.Root
	// Log receives the feed's warnings (it could not start, it stopped, it
	// lost events).
	Log *slog.Logger
	// ReadOnly says nothing can be written in Dir: no sync file is made,
	// so an outside edit may show up a moment late.
	ReadOnly bool
	// MaxAge is the longest a consumer goes without a walk when the feed
	// is off, named in the warnings.
	MaxAge time.Duration
	// Ignore reports paths (project-relative, slash-separated) never
	// reported: the writer's temp files. Nil ignores none.
	Ignore func(rel string) bool
	// OpenDir opens the folder rel of r, which must be a folder (never a
	// FIFO or device put in its place, which would block).
	OpenDir func(r *os.Root, rel string) (*os.Root, error)
	// ReadDir lists the folder rel of Root sorted by name, as fs.ReadDir
	// does, never waiting on a FIFO or device in the folder's place.
	ReadDir func(rel string) ([]fs.DirEntry, error)
	// List lists the folder r, at rel (project-relative), for a walk of the
	// feed: the names and type bits of its entries. first is true during
	// the walk [Start] makes, after the folder is watched, so a consumer
	// can take that listing as its own first walk. A folder that cannot be
	// listed is listed as empty (its partial listing, if any).
	List func(r *os.Root, rel string, first bool) []Entry
	// Unlisted, when set, is called during the walk [Start] makes for each
	// folder below a listed one that could not be opened (err says why).
	Unlisted func(rel string, err error)
	// Begun, when set, returns when the call carried by ctx began (zero
	// when none): a sync round that touched the sync file after that ends
	// the call's need for another (see [Feed.Sync]).
	Begun func(ctx context.Context) time.Time
}

// Entry is one name in a folder listed by [Config.List]: one path element
// and its type bits (fs.ModeDir, fs.ModeSymlink, 0 for a regular file).
type Entry struct {
	Name string
	Type fs.FileMode
}

// env is a feed's view of its Config, with the defaults filled in.
type env struct {
	dir      string
	root     *os.Root
	log      *slog.Logger
	readOnly bool
	maxAge   time.Duration
	ignore   func(rel string) bool
	openDir  func(r *os.Root, rel string) (*os.Root, error)
	readDir  func(rel string) ([]fs.DirEntry, error)
	list     func(r *os.Root, rel string, first bool) []Entry
	unlisted func(rel string, err error)
	begun    func(ctx context.Context) time.Time
}

func newEnv(c Config) *env {
	e := &env{dir: c.Dir, root: c.Root, log: c.Log, readOnly: c.ReadOnly, maxAge: c.MaxAge, ignore: c.Ignore, openDir: c.OpenDir, readDir: c.ReadDir, list: c.List, unlisted: c.Unlisted, begun: c.Begun}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.ignore == nil {
		e.ignore = func(string) bool { return false }
	}
	if e.openDir == nil {
		e.openDir = func(r *os.Root, rel string) (*os.Root, error) { return r.OpenRoot(rel) }
	}
	if e.readDir == nil {
		e.readDir = func(rel string) ([]fs.DirEntry, error) { return fs.ReadDir(c.Root.FS(), rel) }
	}
	if e.begun == nil {
		e.begun = func(context.Context) time.Time { return time.Time{} }
	}
	return e
}

// NewSub returns a cursor not yet on any feed, to pass to [Start] as its
// first subscriber; until then (and for good, when Start returns nil) it
// reports Live false.
func NewSub() *Sub { return &Sub{paths: map[string]bool{}, lastFull: time.Now()} }

// Subscribe returns a new cursor on the feed: changes made after it returns
// are reported by its Take; the consumer walks the files once itself to
// start. On a nil feed the cursor always reports Live false.
func (f *Feed) Subscribe() *Sub {
	c := NewSub()
	if f != nil {
		c.f = f
		f.mu.Lock()
		f.subs = append(f.subs, c)
		f.mu.Unlock()
	}
	return c
}

// Live reports whether the watcher runs; false on a nil feed.
func (f *Feed) Live() bool { return f.isLive() }

// Sync waits until the watcher has delivered the events of edits that
// finished before the call (see [Sub.Sync]); it returns at once when the
// feed does not run.
func (f *Feed) Sync(ctx context.Context) {
	if f.isLive() {
		f.sync(ctx)
	}
}

// Close stops the watcher and removes the feed's sync file; its cursors
// report Live false from then on. A nil feed is fine.
func (f *Feed) Close() { f.close() }
