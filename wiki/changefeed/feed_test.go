package changefeed

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listAll is a Config.List that lists with os.Root, for a feed with no
// consumer of its first walk.
func listAll(r *os.Root, _ string, _ bool) []Entry {
	f, err := r.Open(".")
	if err != nil {
		return nil
	}
	defer f.Close()
	des, _ := f.ReadDir(-1)
	out := make([]Entry, len(des))
	for i, d := range des {
		out[i] = Entry{Name: d.Name(), Type: d.Type()}
	}
	return out
}

// startTest starts a feed on a new folder with pages/ and sources/.
func startTest(t *testing.T, cfg Config, first *Sub) (*Feed, string) {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"pages/sub", "sources"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	cfg.Dir, cfg.Root = dir, root
	if cfg.List == nil {
		cfg.List = listAll
	}
	f := Start(cfg, first)
	if f == nil {
		t.Skip("no file watcher on this system")
	}
	t.Cleanup(f.Close)
	f.Probe().SetSyncWait(30 * time.Second)
	return f, dir
}

// takeUntil syncs and takes from c until the changes hold want, failing
// after 30 s; it returns every path taken.
func takeUntil(t *testing.T, c *Sub, want string) []string {
	t.Helper()
	var all []string
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(all, want) {
		if time.Now().After(deadline) {
			t.Fatalf("%q not reported within 30 s; got %v", want, all)
		}
		c.Sync(context.Background())
		ch := c.Take()
		if !ch.Live {
			t.Fatal("the feed stopped")
		}
		all = append(all, ch.Paths...)
		time.Sleep(time.Millisecond)
	}
	return all
}

// The feed reports the paths written under pages/ and sources/ and .md files
// at the top, never hidden ones, ignored ones or other top-level files.
func TestFeedReportsPaths(t *testing.T) {
	f, dir := startTest(t, Config{Ignore: func(rel string) bool { return strings.HasSuffix(rel, ".tmp") }}, nil)
	c := f.Subscribe()
	for _, rel := range []string{"notes.txt", "pages/.hidden.md", "pages/sub/x.md.tmp", "index.md", "sources/s.txt", "pages/sub/a.md"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := takeUntil(t, c, "pages/sub/a.md")
	for _, want := range []string{"index.md", "sources/s.txt"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not reported: %v", want, got)
		}
	}
	for _, never := range []string{"notes.txt", "pages/.hidden.md", "pages/sub/x.md.tmp"} {
		if slices.Contains(got, never) {
			t.Errorf("%s reported: %v", never, got)
		}
	}
}

// The first walk lists every covered folder with first set, and only it:
// a folder made later is listed with first unset.
func TestFeedFirstWalk(t *testing.T) {
	first := map[string]int{}
	later := map[string]int{}
	list := func(r *os.Root, rel string, isFirst bool) []Entry {
		if isFirst {
			first[rel]++
		} else {
			later[rel]++
		}
		return listAll(r, rel, isFirst)
	}
	sub := NewSub()
	_, dir := startTest(t, Config{List: list}, sub)
	if !sub.Live() {
		t.Fatal("the first subscriber is not on the feed")
	}
	if want := map[string]int{"pages": 1, "pages/sub": 1, "sources": 1}; !maps.Equal(first, want) {
		t.Fatalf("first walk listed %v, want %v", first, want)
	}
	if err := os.Mkdir(filepath.Join(dir, "pages", "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	takeUntil(t, sub, "pages/new")
	if len(first) != 3 || later["pages/new"] != 1 {
		t.Errorf("after a new folder: first %v, later %v", first, later)
	}
}

// A nil feed (none runs) gives cursors that report Live false, and Sync and
// Close do nothing.
func TestNilFeed(t *testing.T) {
	var f *Feed
	c := f.Subscribe()
	c.Sync(context.Background())
	f.Sync(context.Background())
	if f.Live() || c.Live() || c.Take().Live {
		t.Error("a nil feed is live")
	}
	f.Close()
}

// Close removes the feed's sync file and stops its cursors.
func TestFeedCloseRemovesSyncFile(t *testing.T) {
	f, dir := startTest(t, Config{}, nil)
	c := f.Subscribe()
	sync := filepath.Join(dir, filepath.FromSlash(f.Probe().SyncFile()))
	if _, err := os.Lstat(sync); err != nil {
		t.Fatalf("no sync file: %v", err)
	}
	f.Close()
	if _, err := os.Lstat(sync); !os.IsNotExist(err) {
		t.Errorf("sync file kept after Close: %v", err)
	}
	if c.Live() {
		t.Error("a cursor is live after Close")
	}
}
