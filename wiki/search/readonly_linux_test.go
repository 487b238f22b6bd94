//go:build linux

package search

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestReadOnlyWikiSearches: on a real tmpfs remounted read-only, the wiki
// opens read-only and searches find its pages: with the wiki's own index
// (opened read-only in place; a page added while no server ran is indexed
// in memory), and with none (built under the user's cache folder, and found
// there again by the next start). Every write is refused with the
// read-only message, and no byte of the wiki changes.
func TestReadOnlyWikiSearches(t *testing.T) {
	for _, tc := range []struct {
		name    string
		noIndex bool   // .llmwiki/search removed before the remount
		where   string // what the status says
	}{
		{"index in the wiki", false, "its search index is used read-only"},
		{"no index", true, "kept in the user's cache folder (llmwiki/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mnt := wikitest.MountTmpfs(t, "16m", "nothing else covers a read-only wiki")
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			dir := filepath.Join(mnt, "wiki")
			if _, err := wiki.Init(dir); err != nil {
				t.Fatal(err)
			}
			wikitest.WriteFile(t, dir, "pages/banana.md", "---\ntitle: Banana\n---\n# Banana\n\nThe banana is a yellow fruit.\n")
			st, err := wiki.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st.ReadOnly() {
				t.Fatal("a writable wiki opened read-only")
			}
			x := Open(st, Options{ReconcileEvery: -1, BuildWait: 30 * time.Second})
			st.AddDerived(x)
			if err := x.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			if s := x.Status(); s.State != StateReady || s.Pages < 1 {
				t.Fatalf("index before the remount: %+v", s)
			}
			st.Close()
			// Added while no server runs: the wiki's index lacks it.
			wikitest.WriteFile(t, dir, "pages/cherry.md", "---\ntitle: Cherry\n---\n# Cherry\n\nThe cherry is a red fruit.\n")
			if tc.noIndex {
				os.RemoveAll(filepath.Join(dir, ".llmwiki", "search"))
			}
			wikitest.Remount(t, mnt, true)
			before := wikitest.TreeHashes(t, dir, nil)

			for start := 1; start <= 2; start++ {
				st, err := wiki.Open(dir)
				if err != nil {
					t.Fatalf("open a read-only wiki: %v", err)
				}
				if !st.ReadOnly() {
					t.Error("a wiki on a read-only mount did not open read-only")
				}
				x := Open(st, Options{BuildWait: 30 * time.Second})
				st.AddDerived(x)
				res := mustSearch(t, x, Query{Text: "fruit"})
				if got := paths(res); !slices.Equal(got, []string{"pages/banana.md", "pages/cherry.md"}) && !slices.Equal(got, []string{"pages/cherry.md", "pages/banana.md"}) {
					t.Errorf("start %d: search fruit found %v (index %+v)", start, got, res.Index)
				}
				if res.Index.State != StateReady || !strings.Contains(res.Index.Reason, tc.where) || strings.Contains(res.Index.Reason, cache) {
					t.Errorf("start %d: index status %+v, want ready and %q", start, res.Index, tc.where)
				}
				ctx := context.Background()
				_, err = st.WritePage(ctx, wiki.PageInput{Title: "Date", Content: "A date is a brown fruit.\n"})
				checkReadOnly(t, "WritePage", err)
				_, err = st.AppendLog(ctx, wiki.LogInput{Op: "note", Title: "t"})
				checkReadOnly(t, "AppendLog", err)
				_, err = st.RebuildIndex(ctx)
				checkReadOnly(t, "RebuildIndex", err)
				checkReadOnly(t, "WriteState", st.WriteState(".llmwiki/x.json", []byte("{}")))
				if err := st.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
				if diff := wikitest.DiffHashes(before, wikitest.TreeHashes(t, dir, nil)); len(diff) > 0 {
					t.Errorf("start %d changed the read-only wiki: %v", start, diff)
				}
			}
			inCache, _ := filepath.Glob(filepath.Join(cache, "llmwiki", "*", ".llmwiki", "search", "*", "index_meta.json"))
			if tc.noIndex != (len(inCache) == 1) {
				t.Errorf("indexes in the cache folder: %v", inCache)
			}
			wikitest.Remount(t, mnt, false)
		})
	}
}

func checkReadOnly(t *testing.T, what string, err error) {
	t.Helper()
	if store.CodeOf(err) != store.CodeUnavailable || store.PublicMessage(err) != store.ReadOnlyMessage {
		t.Errorf("%s on a read-only wiki: %v (code %q), want %q", what, err, store.CodeOf(err), store.ReadOnlyMessage)
	}
}

// TestReadOnlyViewFollowsOutsideEdits: a server on a read-only bind mount
// of a wiki someone else writes (a container's read-only volume) uses the
// wiki's index read-only and indexes, in memory, a page written underneath
// while it runs; it writes nothing into the wiki's state.
func TestReadOnlyViewFollowsOutsideEdits(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	src := t.TempDir()
	if _, err := wiki.Init(src); err != nil {
		t.Fatal(err)
	}
	wikitest.WriteFile(t, src, "pages/banana.md", "---\ntitle: Banana\n---\n# Banana\n\nThe banana is a yellow fruit.\n")
	st, err := wiki.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	x := Open(st, Options{BuildWait: 30 * time.Second})
	st.AddDerived(x)
	if err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	st.Close()
	view := wikitest.BindReadOnly(t, src, "TestReadOnlyWikiSearches covers a read-only tmpfs")
	state := func() map[string]string {
		return wikitest.TreeHashes(t, filepath.Join(src, ".llmwiki"), nil)
	}
	before := state()
	st, err = wiki.Open(view)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !st.ReadOnly() {
		t.Error("a read-only bind mount did not open read-only")
	}
	x = Open(st, Options{BuildWait: 30 * time.Second})
	st.AddDerived(x)
	if got := paths(mustSearch(t, x, Query{Text: "fruit"})); !slices.Equal(got, []string{"pages/banana.md"}) {
		t.Errorf("search fruit: %v", got)
	}
	wikitest.WriteFile(t, src, "pages/cherry.md", "---\ntitle: Cherry\n---\n# Cherry\n\nThe cherry is a red fruit.\n")
	var res Result
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res = mustSearch(t, x, Query{Text: "cherry"}); len(res.Hits) > 0 {
			break
		}
	}
	if got := paths(res); !slices.Equal(got, []string{"pages/cherry.md"}) || res.Index.State != StateReady || !strings.Contains(res.Index.Reason, "used read-only") {
		t.Errorf("search cherry after an edit underneath: %v, index %+v", got, res.Index)
	}
	if diff := wikitest.DiffHashes(before, state()); len(diff) > 0 {
		t.Errorf("the read-only view changed the wiki's state: %v", diff)
	}
}
