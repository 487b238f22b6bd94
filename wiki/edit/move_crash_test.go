package edit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// The move every step of which is failed or crashed below: the page goes
// to a new folder, and six other files (index.md among them) follow.
var faultMove = MoveInput{From: "pages/en/Old name.md", To: "guides/Target"}

// quiet keeps the writer's warnings (failed folder syncs, repairs after
// a crash: expected here) out of the test output.
var quiet = wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))

// moveBase returns a folder holding moveWiki, opened once so the layout
// and state are in place.
func moveBase(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "base")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	for p, c := range moveWiki() {
		wikitest.WriteFile(t, dir, p, c)
	}
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return dir
}

func cloneDir(t *testing.T, src string) string {
	dst := filepath.Join(t.TempDir(), "wiki")
	wikitest.CopyTree(t, src, dst)
	return dst
}

// wikiContent hashes every file of the wiki outside .llmwiki/ (the
// server's state: snapshots, audit, derived indexes). Folders are left
// out: a folder holds no bytes.
func wikiContent(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := wikitest.TreeHashes(t, dir, func(rel string) bool { return rel == ".llmwiki" })
	for k, v := range m {
		if v == "dir" {
			delete(m, k)
		}
	}
	return m
}

// leftovers lists writer temp files and a journal left anywhere in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if store.IsTempName(rel) || rel == store.JournalFile {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// runMove opens dir with fault as the writer's fault seam and moves the
// page in a goroutine of its own.
func runMove(t *testing.T, dir string, fault func(step, rel string) error) (*wiki.Store, chan error) {
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return now }), wiki.WithFaults(fault), quiet)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Move(context.Background(), st, links.Open(st), faultMove)
		done <- err
	}()
	return st, done
}

// TestMoveFaultAtEveryStep fails, and separately crashes, the move at each
// step of the audited writer (snapshot, temp file create/write/sync,
// journal, rename, remove, folder sync), one step per run. After a failure
// the wiki must be byte-identical to before the move, or (when the step
// came after the commit point and the move succeeded) to after it. After a
// crash (the disk as it was at that step, copied while the writer is
// stopped, then opened again so the journal rolls forward or the temp
// files go) it must be all old or all new, never a mix, with no temp file
// or journal left.
func TestMoveFaultAtEveryStep(t *testing.T) {
	wikitest.SkipShort(t, "crash (a fault at every step of a move)")
	base := moveBase(t)
	before := wikiContent(t, base)

	// A clean run gives the new state and the steps.
	var steps []string
	ref := cloneDir(t, base)
	st, done := runMove(t, ref, func(step, rel string) error {
		steps = append(steps, step+" "+rel)
		return nil
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st.Close()
	after := wikiContent(t, ref)
	if d := wikitest.DiffHashes(before, after); len(d) < 7 {
		t.Fatalf("the move changes only %v", d)
	}
	kinds := map[string]int{}
	for _, s := range steps {
		kinds[strings.Fields(s)[0]]++
	}
	for _, k := range []string{"create", "write", "sync", "rename", "remove", "syncdir"} {
		if kinds[k] == 0 {
			t.Errorf("the move never reaches a %q step (steps: %v)", k, steps)
		}
	}
	t.Logf("%d steps: %v", len(steps), kinds)

	state := func(got map[string]string) string {
		switch {
		case len(wikitest.DiffHashes(before, got)) == 0:
			return "old"
		case len(wikitest.DiffHashes(after, got)) == 0:
			return "new"
		}
		return "mix"
	}
	var omu sync.Mutex
	outcomes := map[string]int{}
	count := func(o string) {
		omu.Lock()
		outcomes[o]++
		omu.Unlock()
	}
	// The runs are independent (each on its own copy) and mostly wait for
	// fsync, so they run in parallel; the group ends when all have.
	t.Run("steps", func(t *testing.T) {
		for k := range steps {
			at := steps[k]
			// Failure: the step returns the error a full disk gives.
			t.Run("fail/"+at, func(t *testing.T) {
				t.Parallel()
				dir := cloneDir(t, base)
				var mu sync.Mutex
				n := 0
				st, done := runMove(t, dir, func(step, rel string) error {
					mu.Lock()
					defer mu.Unlock()
					n++
					if n == k+1 {
						return &os.PathError{Op: step, Path: rel, Err: syscall.ENOSPC}
					}
					return nil
				})
				err := <-done
				st.Close()
				got := wikiContent(t, dir)
				s := state(got)
				count("fail " + s)
				switch {
				case err != nil && s != "old":
					t.Errorf("the move failed (%v) but the wiki is %s: vs old %v", err, s, wikitest.DiffHashes(before, got))
				case err == nil && s != "new":
					t.Errorf("the move succeeded but the wiki is %s: vs new %v", s, wikitest.DiffHashes(after, got))
				}
				if err != nil && !strings.Contains(store.PublicMessage(err), "full") {
					t.Errorf("the error does not name the cause: %v", err)
				}
				if l := leftovers(t, dir); len(l) > 0 {
					t.Errorf("left behind: %v", l)
				}
			})
			// Crash: the writer stops at the step; the disk as it is then is
			// what the next start finds.
			t.Run("crash/"+at, func(t *testing.T) {
				t.Parallel()
				dir := cloneDir(t, base)
				crashed := filepath.Join(t.TempDir(), "crashed")
				stopped := make(chan struct{})
				release := make(chan struct{})
				var mu sync.Mutex
				n := 0
				st, done := runMove(t, dir, func(step, rel string) error {
					mu.Lock()
					n++
					hit := n == k+1
					mu.Unlock()
					if hit {
						close(stopped)
						<-release
						return errors.New("the process was killed")
					}
					return nil
				})
				select {
				case <-stopped:
				case err := <-done:
					t.Fatalf("the move ended (%v) before step %d", err, k+1)
				}
				wikitest.CopyTree(t, dir, crashed)
				close(release)
				<-done
				st.Close()

				// The next start recovers.
				st2, err := wiki.Open(crashed, wiki.WithClock(func() time.Time { return now }), quiet)
				if err != nil {
					t.Fatal(err)
				}
				st2.Close() // waits for the temp-file cleanup Open starts
				got := wikiContent(t, crashed)
				s := state(got)
				count("crash " + s)
				if s == "mix" {
					t.Errorf("after the crash the wiki is a mix of old and new: vs old %v, vs new %v", wikitest.DiffHashes(before, got), wikitest.DiffHashes(after, got))
				}
				if l := leftovers(t, crashed); len(l) > 0 {
					t.Errorf("left behind after recovery: %v", l)
				}
				// A store opened on the recovered wiki moves the page (or finds
				// it moved), so the wiki is usable again.
				st3, err := wiki.Open(crashed, wiki.WithClock(func() time.Time { return now }), quiet)
				if err != nil {
					t.Fatal(err)
				}
				defer st3.Close()
				if s == "old" {
					if _, err := Move(context.Background(), st3, links.Open(st3), faultMove); err != nil {
						t.Fatalf("moving again after the crash: %v", err)
					}
					if d := wikitest.DiffHashes(after, wikiContent(t, crashed)); len(d) > 0 {
						t.Errorf("moving again after the crash gives a different wiki: %v", d)
					}
				}
			})
		}
	})
	t.Logf("outcomes: %v", outcomes)
	if outcomes["crash new"] == 0 || outcomes["crash old"] == 0 {
		t.Errorf("the crashes never rolled forward or never back: %v", outcomes)
	}
}
