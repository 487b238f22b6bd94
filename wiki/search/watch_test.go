package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// eventuallyFinds polls a search until want is (or, with want "", nothing
// is) its first hit; a watcher event may take a moment on some platforms,
// so there is no fixed sleep. The 30 s limit only bounds a hang: a loaded
// CI machine can take seconds to run the watcher.
func eventuallyFinds(t *testing.T, x *Index, q Query, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := mustSearch(t, x, q)
		got := ""
		if len(r.Hits) > 0 {
			got = r.Hits[0].Path
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("search %q: first hit %q within 30 s, want %q (hits %v)", q.Text, got, want, paths(r))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// With the server's settings (ReconcileEvery 0) outside edits reach the
// index through the store's change feed, path by path, without a walk.
func TestChangeFeedKeepsIndexInStep(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	x.opt.ReconcileEvery = 0
	if !st.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	mustSearch(t, x, Query{Text: "cafe"})
	x.mu.RLock()
	walked := x.lastWalk
	x.mu.RUnlock()

	wikitest.WriteFile(t, dir, "pages/new/obsidian-edit.md", "# Platypus\n\nEdited in Obsidian.\n")
	eventuallyFinds(t, x, Query{Text: "platypus"}, "pages/new/obsidian-edit.md")
	wikitest.WriteFile(t, dir, "pages/new/obsidian-edit.md", "# Echidna\n\nEdited again.\n")
	eventuallyFinds(t, x, Query{Text: "echidna"}, "pages/new/obsidian-edit.md")
	eventuallyFinds(t, x, Query{Text: "platypus"}, "")
	os.Rename(filepath.Join(dir, "pages", "new", "obsidian-edit.md"), filepath.Join(dir, "pages", "new", "renamed.md"))
	eventuallyFinds(t, x, Query{Text: "echidna"}, "pages/new/renamed.md")
	os.Remove(filepath.Join(dir, "pages", "new", "renamed.md"))
	eventuallyFinds(t, x, Query{Text: "echidna"}, "")

	// A folder made elsewhere and moved in, then moved out again.
	outside := filepath.Join(t.TempDir(), "vault")
	wikitest.WriteFile(t, outside, "deep/wombat.md", "# Wombat burrows\n\nCube-shaped droppings.\n")
	if err := os.Rename(outside, filepath.Join(dir, "pages", "vault")); err != nil {
		t.Fatal(err)
	}
	eventuallyFinds(t, x, Query{Text: "wombat burrows"}, "pages/vault/deep/wombat.md")
	if err := os.Rename(filepath.Join(dir, "pages", "vault"), filepath.Join(t.TempDir(), "away")); err != nil {
		t.Fatal(err)
	}
	eventuallyFinds(t, x, Query{Text: "wombat burrows"}, "")

	// Writes through the store: indexed in the call; their events are
	// absorbed by size+mtime.
	if len(st.Stale()) != 0 {
		t.Errorf("stale: %v", st.Stale())
	}
	x.mu.RLock()
	again := x.lastWalk
	x.mu.RUnlock()
	if !again.Equal(walked) {
		t.Errorf("the index walked every file again; the change feed should have sufficed")
	}
}

// An outside edit that keeps the file's size and mtime (a save within the
// file system's timestamp granularity) reaches the index: the feed's paths
// are hashed, not trusted by size+mtime.
func TestChangeFeedSameSizeEdit(t *testing.T) {
	cases := []struct {
		name string
		save func(t *testing.T, dir, rel, data string)
	}{
		{"rename over", func(t *testing.T, dir, rel, data string) {
			wikitest.WriteFile(t, dir, rel+".tmp", data)
			if err := os.Rename(filepath.Join(dir, rel+".tmp"), filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}},
		{"in place", func(t *testing.T, dir, rel, data string) { wikitest.WriteFile(t, dir, rel, data) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, x, dir := testWiki(t, map[string]string{"pages/a.md": "# Aardvark\n"})
			x.opt.ReconcileEvery = 0
			if !st.WatchChanges().Live() {
				t.Skip("no file watcher on this system")
			}
			mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
			os.Chtimes(filepath.Join(dir, "pages", "a.md"), mtime, mtime)
			eventuallyFinds(t, x, Query{Text: "aardvark"}, "pages/a.md")
			tc.save(t, dir, "pages/a.md", "# Pangolin\n") // the same length
			if err := os.Chtimes(filepath.Join(dir, "pages", "a.md"), mtime, mtime); err != nil {
				t.Fatal(err)
			}
			eventuallyFinds(t, x, Query{Text: "pangolin"}, "pages/a.md")
			eventuallyFinds(t, x, Query{Text: "aardvark"}, "")
		})
	}
}

// A folder replaced by a file of the same name: its files leave the index.
func TestChangeFeedFolderReplacedByFile(t *testing.T) {
	st, x, dir := testWiki(t, map[string]string{"sources/x/a.md": "# Quokka\n"})
	x.opt.ReconcileEvery = 0
	if !st.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	eventuallyFinds(t, x, Query{Text: "quokka", Scope: ScopeSources}, "sources/x/a.md")
	if err := os.Rename(filepath.Join(dir, "sources", "x"), filepath.Join(t.TempDir(), "away")); err != nil {
		t.Fatal(err)
	}
	wikitest.WriteFile(t, dir, "sources/x", "now a file about wallabies\n")
	eventuallyFinds(t, x, Query{Text: "quokka", Scope: ScopeSources}, "")
	eventuallyFinds(t, x, Query{Text: "wallabies", Scope: ScopeSources}, "sources/x")
}

// A folder renamed inside the wiki keeps being watched under its new name:
// an edit made in it (or in a folder under it) afterwards reaches the index
// without waiting for the 60 s walk.
func TestChangeFeedRenamedFolderEdits(t *testing.T) {
	st, x, dir := testWiki(t, map[string]string{"pages/m/a.md": "# Anteater\n", "pages/m/deep/b.md": "# Bilby\n"})
	x.opt.ReconcileEvery = 0
	if !st.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	eventuallyFinds(t, x, Query{Text: "bilby"}, "pages/m/deep/b.md")
	if err := os.Rename(filepath.Join(dir, "pages", "m"), filepath.Join(dir, "pages", "n")); err != nil {
		t.Fatal(err)
	}
	eventuallyFinds(t, x, Query{Text: "bilby"}, "pages/n/deep/b.md")
	wikitest.WriteFile(t, dir, "pages/n/deep/b.md", "# Numbat\n")
	wikitest.WriteFile(t, dir, "pages/n/c.md", "# Cassowary\n")
	eventuallyFinds(t, x, Query{Text: "numbat"}, "pages/n/deep/b.md")
	eventuallyFinds(t, x, Query{Text: "cassowary"}, "pages/n/c.md")
}

// The change feed's periodic safety walk runs in the background: a file
// the index lost track of (an event a platform dropped; here removed from
// the index and its manifest by hand) is found again without a search
// waiting for the walk, and the paths the feed reported are applied first.
func TestSafetyWalkInBackground(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	x.opt.ReconcileEvery = 0
	if !st.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	mustSearch(t, x, Query{Text: "cafe"})
	x.opMu.Lock()
	delete(x.man.Files, "pages/cafe.md")
	err := x.idx.Delete("pages/cafe.md")
	x.opMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if r := mustSearch(t, x, Query{Text: "brûlée"}); len(r.Hits) != 0 {
		t.Fatalf("the dropped file is still found: %v", paths(r))
	}
	wikitest.WriteFile(t, dir, "pages/new/okapi.md", "# Okapi\n\nA forest giraffe.\n")
	x.subscribe().Sync(context.Background())
	x.feed.mu.Lock()
	ch := x.subscribe().Take()
	x.feed.mu.Unlock()
	if len(ch.Paths) == 0 {
		t.Fatalf("the feed did not report the new file: %+v", ch)
	}
	// What the search path does on a periodic Full: paths now, walk later.
	if err := x.reconcilePaths(ch.Paths, nil); err != nil {
		t.Fatal(err)
	}
	x.walkInBackground(x.subscribe())
	if r := mustSearch(t, x, Query{Text: "okapi"}); len(r.Hits) == 0 || r.Hits[0].Path != "pages/new/okapi.md" {
		t.Fatalf("okapi: %v", paths(r))
	}
	eventuallyFinds(t, x, Query{Text: "brûlée"}, "pages/cafe.md")
	if len(st.Stale()) != 0 {
		t.Errorf("stale: %v", st.Stale())
	}
}
