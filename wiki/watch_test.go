package wiki

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/llmwiki/llmwiki/wiki/changefeed"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The sync files' folder and names, and the age past which a sync file is
// taken for one left by a process that died (see package changefeed).
const (
	syncDir      = changefeed.SyncDir
	syncPrefix   = syncDir + "/sync-"
	syncLeftover = 24 * time.Hour
)

// eventually polls cond until it holds (a watcher event may take a moment
// on some platforms); it never sleeps a fixed time. The 30 s limit only
// bounds a hang: a loaded CI machine can take seconds to run the watcher.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not seen within 30 s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// patientSync makes s's sync rounds wait up to 30 s for the sync file's
// event instead of syncTimeout (250 ms), for tests that check that an
// outside edit is seen by the next call: on a loaded machine the watcher's
// goroutine can be kept off the CPU past 250 ms, the round times out (a
// moment late is allowed), and three such rounds in a row turn rounds off
// for a minute, which these tests would take for a bug. With it, a round
// times out only when the event never comes. Call it after the feed runs.
func patientSync(t *testing.T, s *Store) {
	t.Helper()
	if s.feed == nil {
		t.Skip("no file watcher on this system")
	}
	s.feed.Probe().SetSyncWait(30 * time.Second)
}

func titles(t *testing.T, s *Store) map[string]string {
	t.Helper()
	pages, err := s.Pages()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pages {
		out[p.Path] = p.Title
	}
	return out
}

func lastWalk(s *Store) time.Time {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	return s.catAt
}

func TestChangeFeedSeesOutsideEdits(t *testing.T) {
	s, dir := newStore(t)
	mustWrite(t, dir, "pages/a.md", "# Alpha\n")
	mustWrite(t, dir, "pages/sub/b.md", "# Beta\n")
	if got := titles(t, s); got["pages/a.md"] != "Alpha" || got["pages/sub/b.md"] != "Beta" {
		t.Fatalf("start: %v", got)
	}
	if !s.changeFeed().Live() {
		t.Skip("no file watcher on this system")
	}
	patientSync(t, s) // the check without polling below
	walked := lastWalk(s)
	// A folder made elsewhere and moved in, with a nested folder.
	outside := filepath.Join(t.TempDir(), "moved")
	mustWrite(t, outside, "c.md", "# Gamma\n")
	mustWrite(t, outside, "deep/d.md", "# Delta\n")
	if err := os.Rename(outside, filepath.Join(dir, "pages", "moved")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dir, "pages/new.md", "# Created\n")      // create
	mustWrite(t, dir, "pages/a.md", "# Alpha edited\n")   // edit
	os.Remove(filepath.Join(dir, "pages", "sub", "b.md")) // delete
	cases := map[string]string{
		"pages/moved/c.md":      "Gamma",
		"pages/moved/deep/d.md": "Delta",
		"pages/new.md":          "Created",
		"pages/a.md":            "Alpha edited",
		"pages/sub/b.md":        "",
	}
	eventually(t, "create, edit, delete and a folder moved in", func() bool {
		got := titles(t, s)
		for p, want := range cases {
			if got[p] != want {
				return false
			}
		}
		return true
	})
	// A file in the moved-in folder is watched too.
	mustWrite(t, dir, "pages/moved/deep/e.md", "# Epsilon\n")
	eventually(t, "a file created in a moved-in folder", func() bool { return titles(t, s)["pages/moved/deep/e.md"] == "Epsilon" })
	// Rename a file, then a whole folder.
	os.Rename(filepath.Join(dir, "pages", "new.md"), filepath.Join(dir, "pages", "renamed.md"))
	os.Rename(filepath.Join(dir, "pages", "moved"), filepath.Join(dir, "pages", "elsewhere"))
	eventually(t, "renames", func() bool {
		got := titles(t, s)
		return got["pages/renamed.md"] == "Created" && got["pages/new.md"] == "" &&
			got["pages/elsewhere/deep/e.md"] == "Epsilon" && got["pages/moved/c.md"] == "" && got["pages/elsewhere/c.md"] == "Gamma"
	})
	// A folder moved out of the wiki takes its pages with it.
	os.Rename(filepath.Join(dir, "pages", "elsewhere"), filepath.Join(t.TempDir(), "gone"))
	eventually(t, "a folder moved out", func() bool {
		for p := range titles(t, s) {
			if strings.HasPrefix(p, "pages/elsewhere/") {
				return false
			}
		}
		return true
	})
	// On Linux the sync round makes an edit that finished before the call
	// visible to that call, without polling.
	if runtime.GOOS == "linux" {
		mustWrite(t, dir, "pages/now.md", "# Now\n")
		if got := titles(t, s)["pages/now.md"]; got != "Now" {
			t.Errorf("an outside create was not seen by the next call: %q", got)
		}
	}
	// read_page's name lookup sees a new page, also by title.
	mustWrite(t, dir, "pages/zeta.md", "---\ntitle: Zeta Page\n---\nbody\n")
	eventually(t, "name lookup by title", func() bool {
		p, err := s.ResolvePage("Zeta Page")
		return err == nil && p == "pages/zeta.md"
	})
	// Writes through the store are in the catalogue at once, and their own
	// events are absorbed without a walk.
	ctx, _ := ctxWithCall("write_page")
	if _, err := s.WritePage(ctx, PageInput{Title: "Own write", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	if titles(t, s)["pages/own-write.md"] != "Own write" {
		t.Error("own write not in the catalogue")
	}
	if got := lastWalk(s); !got.Equal(walked) {
		t.Errorf("the catalogue walked pages/ again (at %v, first walk %v); the feed should have sufficed", got, walked)
	}
}

func TestChangeFeedOverflowRescans(t *testing.T) {
	s, dir := newStore(t)
	mustWrite(t, dir, "pages/sub/a.md", "# Alpha\n")
	titles(t, s)
	f := s.changeFeed()
	if !f.Live() {
		t.Skip("no file watcher on this system")
	}
	walked := lastWalk(s)
	// An edit the watcher does not report (its folder is no longer
	// watched) stays unseen ...
	if err := f.Probe().Watcher().Remove(filepath.Join(dir, "pages", "sub")); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dir, "pages/sub/a.md", "# Alpha changed\n")
	if got := titles(t, s)["pages/sub/a.md"]; got != "Alpha" {
		t.Fatalf("an unreported edit was seen without a rescan: %q", got)
	}
	// ... until the watcher reports lost events: then the catalogue walks.
	f.Probe().Watcher().Errors <- fsnotify.ErrEventOverflow
	eventually(t, "a rescan after an overflow", func() bool { return titles(t, s)["pages/sub/a.md"] == "Alpha changed" })
	if lastWalk(s).Equal(walked) {
		t.Error("no full walk after the overflow")
	}
	// The safety net: a cursor whose last full walk is older than
	// FullRescanEvery is told to walk.
	c := s.WatchChanges()
	c.ProbeAged(time.Now().Add(-FullRescanEvery), "pages/sub/a.md")
	if ch := c.Take(); !ch.Full || !ch.Periodic || !ch.Live || len(ch.Paths) != 1 || ch.Paths[0] != "pages/sub/a.md" {
		t.Errorf("safety-net take (periodic, with its paths): %+v", ch)
	}
	if ch := c.Take(); ch.Full {
		t.Errorf("second take still full: %+v", ch)
	}
}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestChangeFeedUnavailableFallsBack(t *testing.T) {
	defer changefeed.SetNewWatcher(func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") })()
	var logs logBuf
	s, dir := newStore(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	mustWrite(t, dir, "pages/a.md", "# Alpha\n")
	if titles(t, s)["pages/a.md"] != "Alpha" {
		t.Fatal("start")
	}
	if s.WatchChanges().Live() {
		t.Fatal("feed live without a watcher")
	}
	// The time rule still finds outside edits (a tiny wiki rescans at
	// once; a large one within MaxCatalogueAge).
	mustWrite(t, dir, "pages/b.md", "# Beta\n")
	eventually(t, "an outside create without a watcher", func() bool { return titles(t, s)["pages/b.md"] == "Beta" })
	s.WatchChanges()
	if n := strings.Count(logs.String(), "cannot watch the wiki"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("not a warning: %s", logs.String())
	}
}

func TestChangeFeedOffStillSeesEdits(t *testing.T) {
	s, dir := newStore(t, WithoutWatcher())
	mustWrite(t, dir, "pages/a.md", "# Alpha\n")
	titles(t, s)
	mustWrite(t, dir, "pages/a.md", "# Alpha two\n")
	eventually(t, "an outside edit with watching off", func() bool { return titles(t, s)["pages/a.md"] == "Alpha two" })
}

// feedSkip skips a test when no file watcher runs here.
func feedSkip(t *testing.T, s *Store) {
	t.Helper()
	if !s.changeFeed().Live() {
		t.Skip("no file watcher on this system")
	}
}

// A folder renamed, moved, moved out or replaced keeps being watched under
// its new name only: edits made in it (and in its subfolders) afterwards
// are seen, and nothing outside the root stays watched. fsnotify maps a
// re-added folder to its old watch and path, so without dropping the old
// watches these edits went unseen until the next full walk.
func TestChangeFeedMovedFolderStaysWatched(t *testing.T) {
	cases := []struct {
		name string
		move func(t *testing.T, dir string) // pages/m/{a.md,deep/b.md} → somewhere
		at   string                         // where the folder is now, "" when out of the wiki
	}{
		{"renamed", func(t *testing.T, dir string) { mustRename(t, dir, "pages/m", "pages/n") }, "pages/n"},
		{"moved under another folder", func(t *testing.T, dir string) {
			mustWrite(t, dir, "pages/other/x.md", "# X\n")
			mustRename(t, dir, "pages/m", "pages/other/m")
		}, "pages/other/m"},
		{"renamed twice", func(t *testing.T, dir string) {
			mustRename(t, dir, "pages/m", "pages/n")
			mustRename(t, dir, "pages/n", "pages/o")
		}, "pages/o"},
		{"replaced by a checkout", func(t *testing.T, dir string) {
			if err := os.RemoveAll(filepath.Join(dir, "pages", "m")); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, dir, "pages/m/a.md", "# A\n")
			mustWrite(t, dir, "pages/m/deep/b.md", "# B\n")
		}, "pages/m"},
		{"moved out", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			mustWrite(t, dir, "pages/m/a.md", "# A\n")
			mustWrite(t, dir, "pages/m/deep/b.md", "# B\n")
			titles(t, s)
			feedSkip(t, s)
			out := filepath.Join(t.TempDir(), "out")
			if tc.move == nil {
				if err := os.Rename(filepath.Join(dir, "pages", "m"), out); err != nil {
					t.Fatal(err)
				}
			} else {
				tc.move(t, dir)
			}
			titles(t, s) // the move is applied
			if tc.at == "" {
				mustWrite(t, out, "deep/c.md", "# C\n")
				titles(t, s)
				for _, w := range s.feed.Probe().Watcher().WatchList() {
					if !strings.HasPrefix(w, dir) || strings.Contains(filepath.ToSlash(w), "/pages/m") {
						t.Errorf("still watched after the folder left the wiki: %s", w)
					}
				}
				return
			}
			mustWrite(t, dir, tc.at+"/a.md", "# A2\n")
			mustWrite(t, dir, tc.at+"/deep/b.md", "# B2\n")
			mustWrite(t, dir, tc.at+"/deep/c.md", "# C\n")
			want := map[string]string{tc.at + "/a.md": "A2", tc.at + "/deep/b.md": "B2", tc.at + "/deep/c.md": "C"}
			eventually(t, "edits in the moved folder", func() bool {
				got := titles(t, s)
				for p, w := range want {
					if got[p] != w {
						return false
					}
				}
				return true
			})
		})
	}
}

func mustRename(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.Rename(filepath.Join(dir, filepath.FromSlash(from)), filepath.Join(dir, filepath.FromSlash(to))); err != nil {
		t.Fatal(err)
	}
}

// An outside edit that keeps the file's size (and, within the file
// system's timestamp granularity, its mtime) is still seen: the watcher's
// event makes the catalogue read the file again instead of trusting
// size+mtime.
func TestChangeFeedSameSizeEdits(t *testing.T) {
	cases := []struct {
		name string
		save func(t *testing.T, dir, rel, data string)
	}{
		{"rename over (vim, Obsidian)", func(t *testing.T, dir, rel, data string) {
			mustWrite(t, dir, rel+".tmp", data)
			mustRename(t, dir, rel+".tmp", rel)
		}},
		{"truncate and write in place", func(t *testing.T, dir, rel, data string) {
			f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(rel)), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(data)
			f.Close()
		}},
		{"delete and create", func(t *testing.T, dir, rel, data string) {
			os.Remove(filepath.Join(dir, filepath.FromSlash(rel)))
			mustWrite(t, dir, rel, data)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			mustWrite(t, dir, "pages/a.md", "# A0\n")
			titles(t, s)
			feedSkip(t, s)
			mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
			for i := 1; i <= 5; i++ {
				want := fmt.Sprintf("A%d", i)
				tc.save(t, dir, "pages/a.md", "# "+want+"\n")
				// The same size and mtime every time, as a coarse clock gives.
				if err := os.Chtimes(filepath.Join(dir, "pages", "a.md"), mtime, mtime); err != nil {
					t.Fatal(err)
				}
				eventually(t, "a same-size edit "+want, func() bool { return titles(t, s)["pages/a.md"] == want })
			}
		})
	}
}

// syncRel is the store's sync file.
func syncRel(t *testing.T, s *Store) string {
	t.Helper()
	if s.feed == nil {
		t.Skip("no file watcher on this system")
	}
	return s.feed.Probe().SyncFile()
}

// readsOwnOutsideWrites checks that an outside edit that finished before a
// call is seen by it (Linux; elsewhere eventually), n times. Its rounds wait
// for the sync file's event as long as it takes (patientSync), so a miss is
// a lost event, not a busy machine.
func readsOwnOutsideWrites(t *testing.T, s *Store, dir string, n int) {
	t.Helper()
	patientSync(t, s)
	for i := 0; i < n; i++ {
		p, want := fmt.Sprintf("pages/x%d.md", i%3), fmt.Sprintf("Edit %d", i)
		mustWrite(t, dir, p, "# "+want+"\n")
		if runtime.GOOS != "linux" {
			eventually(t, "an outside edit", func() bool { return titles(t, s)[p] == want })
			continue
		}
		late := lateRounds(s)
		if got := titles(t, s)[p]; got != want {
			t.Fatalf("edit %d: the next call saw %q, want %q (%d rounds timed out waiting 30 s for the sync file's event)", i, got, want, lateRounds(s)-late)
		}
	}
}

// The sync file removed, replaced by a folder or by a symlink to a page
// while serving: edits are still seen by the next call, the symlink's
// target is never touched, and rounds keep working.
func TestChangeFeedSyncFileTampered(t *testing.T) {
	cases := []struct {
		name   string
		tamper func(t *testing.T, dir, sync string)
	}{
		{"removed", func(t *testing.T, dir, sync string) { os.Remove(sync) }},
		{"its folder removed", func(t *testing.T, dir, sync string) { os.RemoveAll(filepath.Dir(sync)) }},
		{"its folder renamed and made again", func(t *testing.T, dir, sync string) {
			d := filepath.Dir(sync)
			os.Rename(d, d+".old")
			os.Mkdir(d, 0o755)
		}},
		{"replaced by a folder", func(t *testing.T, dir, sync string) {
			os.Remove(sync)
			os.Mkdir(sync, 0o755)
		}},
		{"replaced by a symlink to a page", func(t *testing.T, dir, sync string) {
			os.Remove(sync)
			if err := os.Symlink(filepath.Join(dir, "pages", "victim.md"), sync); err != nil {
				t.Skip("no symlinks here")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newStore(t)
			mustWrite(t, dir, "pages/victim.md", "# Victim\n")
			old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			os.Chtimes(filepath.Join(dir, "pages", "victim.md"), old, old)
			titles(t, s)
			sync := filepath.Join(dir, filepath.FromSlash(syncRel(t, s)))
			tc.tamper(t, dir, sync)
			readsOwnOutsideWrites(t, s, dir, 10)
			if fi, err := os.Stat(filepath.Join(dir, "pages", "victim.md")); err != nil || !fi.ModTime().Equal(old) {
				t.Errorf("the page behind the symlink was touched: %v %v", fi.ModTime(), err)
			}
			ok := s.feed.Probe().CanSync()
			if !ok {
				t.Error("sync rounds were turned off")
			}
		})
	}
}

// Two stores on one wiki (two serve processes): each has its own sync file,
// so the other's rounds never end this one's early, and Close removes it.
// The sync files stay out of the catalogue, the audit log and git.
func TestChangeFeedTwoStores(t *testing.T) {
	a, dir := newStore(t)
	b := openStore(t, dir)
	titles(t, a)
	titles(t, b)
	ra, rb := syncRel(t, a), syncRel(t, b)
	if ra == rb {
		t.Fatalf("both stores use %s", ra)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // the other process, serving calls all the time
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				b.syncFeed(context.Background())
			}
		}
	}()
	readsOwnOutsideWrites(t, a, dir, 300)
	close(stop)
	<-done
	for p := range titles(t, a) {
		if strings.Contains(p, "sync") {
			t.Errorf("a sync file in the catalogue: %s", p)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(syncDir), ".gitignore")); err != nil || !strings.Contains(string(data), "\n*\n") {
		t.Errorf("sync folder's .gitignore: %q %v", data, err)
	}
	ctx, call := ctxWithCall("write_page")
	if _, err := a.WritePage(ctx, PageInput{Title: "Audited", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	titles(t, a)
	if err := a.Audit(call, nil); err != nil {
		t.Fatal(err)
	}
	audit, _ := os.ReadDir(filepath.Join(dir, filepath.FromSlash(store.AuditDir)))
	if len(audit) == 0 {
		t.Error("no audit log to check")
	}
	for _, e := range audit {
		if data, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(store.AuditDir), e.Name())); strings.Contains(string(data), "sync-") {
			t.Errorf("a sync file in the audit log %s", e.Name())
		}
	}
	b.Close()
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rb))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close left its sync file: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(ra))); err != nil {
		t.Errorf("the other store's sync file went: %v", err)
	}
}

// A sync file left by a process that died is removed by the next start once
// a day old; a recent one (a live process) is kept.
func TestChangeFeedSweepsLeftSyncFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	old, live := syncPrefix+"dead", syncPrefix+"live"
	mustWrite(t, dir, old, "")
	mustWrite(t, dir, live, "")
	long := time.Now().Add(-2 * syncLeftover)
	os.Chtimes(filepath.Join(dir, filepath.FromSlash(old)), long, long)
	s := openStore(t, dir)
	titles(t, s)
	syncRel(t, s)
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(old))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a day-old sync file was kept: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(live))); err != nil {
		t.Errorf("a live store's sync file went: %v", err)
	}
}

// A folder that cannot be watched while serving (inotify's max_user_watches
// reached) stops the feed with one warning; outside edits, in that folder
// and elsewhere, are then found by the time rule's rescans.
func TestChangeFeedStopsWhenAFolderCannotBeWatched(t *testing.T) {
	var logs logBuf
	s, dir := newStore(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	mustWrite(t, dir, "pages/a.md", "# Alpha\n")
	titles(t, s)
	feedSkip(t, s)
	setAddWatch(t, func(w *fsnotify.Watcher, name string) error {
		if strings.Contains(filepath.ToSlash(name), "/pages/full") {
			return syscall.ENOSPC // what inotify_add_watch says at the limit
		}
		return w.Add(name)
	})
	mustWrite(t, dir, "pages/full/b.md", "# Beta\n")
	eventually(t, "the feed stops", func() bool { titles(t, s); return !s.feed.Live() })
	cases := []struct{ rel, title string }{
		{"pages/full/b.md", "Beta two"}, // in the folder that is not watched
		{"pages/full/deeper/c.md", "Gamma"},
		{"pages/a.md", "Alpha two"},
	}
	for _, c := range cases {
		mustWrite(t, dir, c.rel, "# "+c.title+"\n")
		eventually(t, "an outside edit of "+c.rel+" after the feed stopped", func() bool { return titles(t, s)[c.rel] == c.title })
	}
	if n := strings.Count(logs.String(), "stopped watching the wiki"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, logs.String())
	}
}

// Store.Close releases the watcher: no file descriptor or goroutine is left
// after many open, list, close cycles, nor a sync file.
func TestChangeFeedCloseReleases(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dir, "pages/a/b.md", "# B\n")
	cycle := func() {
		s, err := Open(dir, WithLogger(testLogger(t)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Pages(); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	count := func() (int, int) {
		fds, _ := os.ReadDir("/proc/self/fd")
		return len(fds), runtime.NumGoroutine()
	}
	cycle() // warm up
	fd0, g0 := count()
	for i := 0; i < 100; i++ {
		cycle()
	}
	var fd1, g1 int
	eventually(t, "goroutines and fds released", func() bool { fd1, g1 = count(); return fd1 <= fd0 && g1 <= g0 })
	if ents, _ := os.ReadDir(filepath.Join(dir, filepath.FromSlash(syncDir))); len(ents) != 1 { // .gitignore
		t.Errorf("sync files left: %v", ents)
	}
}

// BenchmarkPagesCall is the cost of one list_pages-style call on a
// 500-page wiki with no outside edit: with the watcher it is a sync round
// (touch the sync file, wait for its event) and an empty Take; without it,
// the time rule's rescans. Parallel callers share sync rounds.
func BenchmarkPagesCall(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"watcher", nil}, {"no watcher", []Option{WithoutWatcher()}}} {
		s, dir := newStore(b, mode.opts...)
		for i := 0; i < 500; i++ {
			mustWrite(b, dir, fmt.Sprintf("pages/f%d/p%d.md", i%20, i), fmt.Sprintf("# Page %d\n", i))
		}
		if _, err := s.Pages(); err != nil {
			b.Fatal(err)
		}
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				s.Pages()
			}
		})
		b.Run(mode.name+" parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					s.Pages()
				}
			})
		})
	}
}

// Concurrent callers share sync rounds: callers that arrive while a round
// is running all ride the one next round, so 50 of them cost 2 rounds, not
// 50. The test holds both rounds open (testHookRound) until every caller is
// waiting, so the count does not depend on how the goroutines are scheduled.
func TestChangeFeedSharesSyncRounds(t *testing.T) {
	s, _ := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	f := s.feed
	before := feedRounds(f)
	gates := map[uint64]chan struct{}{before + 1: make(chan struct{}), before + 2: make(chan struct{})}
	entered := make(chan uint64, 4)
	f.Probe().SetRoundHook(func(seq uint64) {
		entered <- seq
		if g := gates[seq]; g != nil {
			<-g
		}
	})
	defer f.Probe().SetRoundHook(nil)
	var wg sync.WaitGroup
	call := func() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.syncFeed(context.Background())
		}()
	}
	call() // starts round 1 and is held in it
	if seq := <-entered; seq != before+1 {
		t.Fatalf("first round is %d, want %d", seq, before+1)
	}
	for i := 0; i < 49; i++ {
		call() // arrive during round 1: it started before them, so they wait for it and then for one more
	}
	waitRoundWaiters(t, f, before+1, 49)
	close(gates[before+1])
	if seq := <-entered; seq != before+2 {
		t.Fatalf("second round is %d, want %d", seq, before+2)
	}
	waitRoundWaiters(t, f, before+2, 48) // one of the 49 started round 2; the others ride it
	close(gates[before+2])
	wg.Wait()
	if n := feedRounds(f) - before; n != 2 {
		t.Errorf("50 concurrent callers ran %d sync rounds, want 2", n)
	}
	select {
	case seq := <-entered:
		t.Errorf("an extra round %d started", seq)
	default:
	}
}

// A folder replaced by a file of the same name (git checkout of a branch
// where it is a file): the pages that were in the folder leave the
// catalogue, though the path is now a regular file.
func TestChangeFeedFolderReplacedByFile(t *testing.T) {
	for _, how := range []string{"moved away", "removed"} {
		t.Run(how, func(t *testing.T) {
			s, dir := newStore(t)
			mustWrite(t, dir, "pages/x/a.md", "# A\n")
			mustWrite(t, dir, "pages/x/deep/b.md", "# B\n")
			titles(t, s)
			feedSkip(t, s)
			if how == "removed" {
				os.RemoveAll(filepath.Join(dir, "pages", "x"))
			} else {
				mustRename(t, dir, "pages/x", "../away")
			}
			mustWrite(t, dir, "pages/x", "now a file\n")
			eventually(t, "the folder's pages gone", func() bool {
				got := titles(t, s)
				return got["pages/x/a.md"] == "" && got["pages/x/deep/b.md"] == ""
			})
		})
	}
}

// A new folder swapped for a symlink to a folder outside the wiki between
// the event and the watch (which follows symlinks): the swap's own rename
// event drops that watch, so nothing outside the root stays watched, and
// the link's target never reaches the catalogue.
func TestChangeFeedNewFolderSwappedForSymlink(t *testing.T) {
	s, dir := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	outside := t.TempDir()
	mustWrite(t, outside, "secret.md", "# Secret\n")
	swapped := make(chan struct{})
	away := filepath.Join(t.TempDir(), "was-swap")
	setAddWatch(t, func(w *fsnotify.Watcher, name string) error {
		if filepath.Base(name) == "swap" {
			os.Rename(name, away)
			os.Symlink(outside, name)
			defer close(swapped)
		}
		return w.Add(name)
	})
	if err := os.Mkdir(filepath.Join(dir, "pages", "swap"), 0o755); err != nil {
		t.Fatal(err)
	}
	select {
	case <-swapped:
	case <-time.After(30 * time.Second): // only bounds a hang
		t.Fatal("the new folder was not watched")
	}
	mustWrite(t, dir, "pages/after.md", "# After\n") // after the swap's events
	eventually(t, "the events after the swap", func() bool { return titles(t, s)["pages/after.md"] == "After" })
	for _, w := range s.feed.Probe().Watcher().WatchList() {
		if !strings.HasPrefix(w, dir) || filepath.Base(w) == "swap" {
			t.Errorf("watching %s", w)
		}
	}
	mustWrite(t, outside, "secret.md", "# Secret edited\n")
	for p := range titles(t, s) {
		if strings.HasPrefix(p, "pages/swap/") {
			t.Errorf("listed through the symlink: %s", p)
		}
	}
}

// More changed paths than maxDirtyPaths (a checkout of the whole tree): the
// consumer is told to walk everything, and every page is listed.
func TestChangeFeedMassChangeWalks(t *testing.T) {
	const maxDirtyPaths = 64 // 4096 in earnest; the same path, with fewer files to write
	t.Cleanup(changefeed.SetMaxDirtyPaths(maxDirtyPaths))
	s, dir := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	walked := lastWalk(s)
	n := maxDirtyPaths + 36
	for i := 0; i < n; i++ {
		mustWrite(t, dir, fmt.Sprintf("pages/mass/p%d.md", i), fmt.Sprintf("# M%d\n", i))
	}
	eventually(t, "every page of a mass change", func() bool {
		got := 0
		for p := range titles(t, s) {
			if strings.HasPrefix(p, "pages/mass/") {
				got++
			}
		}
		return got == n
	})
	// The folder's creation alone could have been walked; many paths in
	// an existing folder must overflow the cursor into a full walk.
	walked = lastWalk(s)
	for i := 0; i < n; i++ {
		mustWrite(t, dir, fmt.Sprintf("pages/mass/p%d.md", i), fmt.Sprintf("# N%d\n", i))
	}
	eventually(t, "every page edited", func() bool { return titles(t, s)[fmt.Sprintf("pages/mass/p%d.md", n-1)] == fmt.Sprintf("N%d", n-1) })
	if lastWalk(s).Equal(walked) {
		t.Error("no full walk after more than maxDirtyPaths changes")
	}
	if got := titles(t, s)["pages/mass/p0.md"]; got != "N0" {
		t.Errorf("p0: %q", got)
	}
}

// Sync rounds turned off by timeouts after they had worked (a busy machine)
// resume after FullRescanEvery; on a platform where they never worked they
// stay off.
func TestChangeFeedSyncResumes(t *testing.T) {
	for _, worked := range []bool{true, false} {
		t.Run(fmt.Sprintf("worked=%v", worked), func(t *testing.T) {
			s, _ := newStore(t)
			titles(t, s)
			feedSkip(t, s)
			f := s.feed
			f.Probe().TurnSyncOff(worked, time.Now().Add(-FullRescanEvery))
			before := f.Probe().Rounds()
			s.syncFeed(context.Background())
			ran, on := f.Probe().Rounds()-before, f.Probe().CanSync()
			if want := map[bool]uint64{true: 1, false: 0}[worked]; ran != want || on != worked {
				t.Errorf("rounds %d, on %v; want %d, %v", ran, on, want, worked)
			}
		})
	}
}

// Folders nested several deep, made with their files at once (mkdir -p and
// write, faster than the watcher adds watches): every file is listed, and a
// file made later in the deepest folder too.
func TestChangeFeedNestedFoldersMadeAtOnce(t *testing.T) {
	s, dir := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	files := []string{"x.md", "a/y.md", "a/b/z.md", "a/b/c/w.md"}
	for i := 0; i < 20; i++ {
		base := fmt.Sprintf("pages/n%d/", i)
		for _, f := range files {
			mustWrite(t, dir, base+f, "# "+f+"\n")
		}
		eventually(t, "nested files", func() bool {
			got := titles(t, s)
			for _, f := range files {
				if got[base+f] != f {
					return false
				}
			}
			return true
		})
		mustWrite(t, dir, base+"a/b/c/late.md", "# Late\n")
		eventually(t, "a later file in the deepest folder", func() bool { return titles(t, s)[base+"a/b/c/late.md"] == "Late" })
	}
}

// setAddWatch makes the feeds add watches with hook until the test ends.
func setAddWatch(t *testing.T, hook func(w *fsnotify.Watcher, name string) error) {
	t.Cleanup(changefeed.SetAddWatch(hook))
}

// lateRounds is how many sync rounds of s timed out.
func lateRounds(s *Store) uint64 {
	if s.feed == nil {
		return 0
	}
	return s.feed.Probe().LateRounds()
}

// TestWatchChangesVisit: the watcher's first walk lists every folder it
// watches for the first subscriber (once, each folder after its watch is
// added), and edits after the call reach that subscriber; a later
// subscriber is told to walk itself.
func TestWatchChangesVisit(t *testing.T) {
	s, dir := newStore(t)
	mustWrite(t, dir, "pages/a.md", "# Alpha\n")
	mustWrite(t, dir, "pages/sub/deep/b.md", "# Beta\n")
	mustWrite(t, dir, "pages/.hidden/c.md", "# Hidden\n")
	mustWrite(t, dir, "sources/s.txt", "source\n")
	mustWrite(t, dir, "notes/n.md", "# Not covered\n")
	seen := map[string][]string{}
	sub, visited := s.WatchChangesVisit(func(rel string, d *store.Dir, ents []store.DirEntry) {
		var names []string
		for _, e := range ents {
			if e.Type.IsRegular() {
				st, err := d.Lstat(e.Name)
				if err != nil || !st.Mode.IsRegular() {
					t.Errorf("%s/%s: %v %v", rel, e.Name, st, err)
				}
			}
			names = append(names, e.Name)
		}
		slices.Sort(names)
		if _, dup := seen[rel]; dup {
			t.Errorf("%s visited twice", rel)
		}
		seen[rel] = names
	})
	if !sub.Live() {
		t.Skip("no file watcher on this system")
	}
	if !visited {
		t.Fatal("the first subscriber that starts the watcher should be visited")
	}
	want := map[string][]string{
		"pages":            {".hidden", "a.md", "sub"},
		"pages/sub":        {"deep"},
		"pages/sub/deep":   {"b.md"},
		"sources":          {"research", "s.txt"}, // Init made sources/research
		"sources/research": nil,
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("visited %v, want %v", seen, want)
	}
	mustWrite(t, dir, "pages/sub/deep/b.md", "# Beta edited\n")
	sub.Sync(context.Background())
	eventually(t, "an edit after the visit", func() bool {
		ch := sub.Take()
		if slices.Contains(ch.Paths, "pages/sub/deep/b.md") {
			return true
		}
		sub.Redo(ch)
		sub.Sync(context.Background())
		return false
	})
	if _, visited := s.WatchChangesVisit(func(string, *store.Dir, []store.DirEntry) { t.Error("a second subscriber visited") }); visited {
		t.Fatal("a second subscriber should walk itself")
	}
}

// A call pays for one sync round at most: once a round that touched the
// sync file after the call began has ended, the call's later syncs (the
// page catalogue's, then the link graph's) return at once, while a call
// that begins afterwards gets a round of its own, and sees an outside edit
// made before it began.
func TestChangeFeedOneRoundPerCall(t *testing.T) {
	s, dir := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	f := s.feed
	rounds := func() uint64 { return feedRounds(f) }
	ctx := store.WithCall(context.Background(), store.NewCall("read_page", "sess", nil))
	r0 := rounds()
	s.syncFeed(ctx)
	if got := rounds() - r0; got != 1 {
		t.Fatalf("the call's first sync ran %d rounds, want 1", got)
	}
	s.syncFeed(ctx)
	s.syncFeed(ctx)
	if got := rounds() - r0; got != 1 {
		t.Errorf("the call's later syncs ran %d more rounds, want none", got-1)
	}
	mustWrite(t, dir, "pages/late.md", "# Late\n")
	ctx2 := store.WithCall(context.Background(), store.NewCall("read_page", "sess", nil))
	pages, err := s.PagesShared(ctx2)
	if err != nil {
		t.Fatal(err)
	}
	if got := rounds() - r0; got != 2 {
		t.Errorf("a new call ran %d rounds in all, want 2", got)
	}
	found := false
	for _, p := range pages {
		found = found || p.Path == "pages/late.md"
	}
	if !found {
		t.Error("the new call did not see the page written before it began")
	}
}

// A call that began before a round touched the sync file, and waited for
// that round, needs no round of its own once it ends.
func TestChangeFeedWaitedRoundServesCall(t *testing.T) {
	s, _ := newStore(t)
	titles(t, s)
	feedSkip(t, s)
	f := s.feed
	before := feedRounds(f)
	gate, entered := make(chan struct{}), make(chan uint64, 4)
	f.Probe().SetRoundHook(func(seq uint64) {
		entered <- seq
		if seq == before+1 {
			<-gate
		}
	})
	defer f.Probe().SetRoundHook(nil)
	ctx := store.WithCall(context.Background(), store.NewCall("read_page", "sess", nil)) // begins now
	done := make(chan struct{}, 2)
	go func() { s.syncFeed(context.Background()); done <- struct{}{} }() // round 1, held before its touch
	<-entered
	go func() { s.syncFeed(ctx); done <- struct{}{} }()
	waitRoundWaiters(t, f, before+1, 1)
	close(gate) // round 1 touches now: after the call began
	<-done
	<-done
	if n := feedRounds(f) - before; n != 1 {
		t.Errorf("%d rounds, want 1: the round the call waited for served it", n)
	}
}

// feedRounds returns how many sync rounds f has run.
func feedRounds(f *changefeed.Feed) uint64 { return f.Probe().Rounds() }

// waitRoundWaiters polls f until n callers wait on the sync round seq (the
// round must be running), failing after 30 s.
func waitRoundWaiters(t *testing.T, f *changefeed.Feed, seq uint64, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		w := f.Probe().RoundWaiters(seq)
		if w == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d callers waiting on round %d, want %d", w, seq, n)
		}
		time.Sleep(time.Millisecond)
	}
}
