package search

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestWalkLists: a walk lists exactly the indexable files, with their sizes
// and mtimes, whether the index walks itself or the file watcher's first
// walk lists the folders for it, a folder larger than one stat task's chunk
// included.
func TestWalkLists(t *testing.T) {
	files := map[string]string{
		"pages/a.md":                 "# A\n",
		"pages/B.MD":                 "# B\n",
		"pages/notes.txt":            "not a page",
		"pages/.hidden.md":           "hidden",
		"pages/.h/inside.md":         "in a hidden folder",
		"pages/sub/deep/c.md":        "# C, deeper\n",
		"pages/.c.md.llmwiki-tmp-01": "a writer's temp",
		"sources/report.pdf":         "%PDF",
		"sources/research/r.md":      "research",
		"context.md":                 "# Context\n",
		"index.md":                   "not indexed",
	}
	for i := range listStatChunk*2 + 7 {
		files[fmt.Sprintf("pages/big/p%04d.md", i)] = fmt.Sprint("page ", i)
	}
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		wikitest.WriteFile(t, dir, rel, content)
	}
	os.Remove(filepath.Join(dir, "context.md")) // Init made one; ours replaces it
	wikitest.WriteFile(t, dir, "context.md", files["context.md"])
	want := map[string]fileStat{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir // hidden folders: .llmwiki, pages/.h
			}
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() && indexable(rel) {
			want[rel] = fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"pages/a.md", "pages/B.MD", "pages/sub/deep/c.md", "sources/report.pdf", "sources/research/r.md", "context.md", "pages/big/p0000.md"} {
		if _, ok := want[p]; !ok {
			t.Fatalf("the test's own list lacks %s", p)
		}
	}
	for _, p := range []string{"pages/notes.txt", "pages/.hidden.md", "pages/.h/inside.md", "pages/.c.md.llmwiki-tmp-01", "index.md"} {
		if _, ok := want[p]; ok {
			t.Fatalf("the test's own list has %s", p)
		}
	}
	for _, watched := range []bool{false, true} {
		t.Run(fmt.Sprint("watched=", watched), func(t *testing.T) {
			var opts []wiki.Option
			if !watched {
				opts = append(opts, wiki.WithoutWatcher())
			}
			st, err := wiki.Open(dir, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			x := Open(st, Options{})
			l := x.walkFrom(x.subscribeWalk())
			if watched && !x.feed.sub.Live() {
				t.Skip("no file watcher on this system")
			}
			got := l.paths()
			if !reflect.DeepEqual(got, want) {
				for p := range want {
					if _, ok := got[p]; !ok {
						t.Errorf("missing %s", p)
					}
				}
				for p, st := range got {
					if w, ok := want[p]; !ok || w != st {
						t.Errorf("%s: %+v, want %+v (listed: %v)", p, st, w, ok)
					}
				}
			}
			if l.count() != len(want) {
				t.Errorf("count %d, want %d", l.count(), len(want))
			}
		})
	}
}

// TestCompareWalk: the reconciliation re-reads the files the manifest lacks
// or whose size or mtime differ, and removes those it holds that the walk
// did not find; a file that is no longer a regular file counts as not
// found.
func TestCompareWalk(t *testing.T) {
	x := &Index{man: manifest{Files: map[string]fileRec{
		"pages/same.md":    {Size: 1, MTime: 10},
		"pages/size.md":    {Size: 1, MTime: 10},
		"pages/mtime.md":   {Size: 1, MTime: 10},
		"pages/gone.md":    {Size: 1, MTime: 10},
		"pages/nowdir.md":  {Size: 1, MTime: 10},
		"context.md":       {Size: 5, MTime: 50},
		"sources/kept.pdf": {Size: 9, MTime: 90},
	}}}
	l := &listing{dirs: []*dirFiles{
		{rel: "pages", names: []string{"same.md", "size.md", "mtime.md", "new.md", "nowdir.md"},
			stats: []fileStat{{1, 10}, {2, 10}, {1, 11}, {3, 30}, {size: -1}}},
		{rel: "", names: []string{"context.md"}, stats: []fileStat{{5, 50}}},
		{rel: "sources", names: []string{"kept.pdf"}, stats: []fileStat{{9, 90}}},
	}}
	todo, gone := x.compareWalk(l)
	var paths []string
	for _, f := range todo {
		paths = append(paths, f.path)
	}
	slices.Sort(paths)
	slices.Sort(gone)
	if want := []string{"pages/mtime.md", "pages/new.md", "pages/size.md"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("todo %v, want %v", paths, want)
	}
	if want := []string{"pages/gone.md", "pages/nowdir.md"}; !reflect.DeepEqual(gone, want) {
		t.Errorf("gone %v, want %v", gone, want)
	}
	for _, f := range todo {
		if f.path == "pages/new.md" && f.size != 3 {
			t.Errorf("new.md's size %d", f.size)
		}
	}
	// Nothing gone: every file of the manifest was found.
	delete(x.man.Files, "pages/gone.md")
	delete(x.man.Files, "pages/nowdir.md")
	if _, gone := x.compareWalk(l); len(gone) != 0 {
		t.Errorf("gone %v, want none", gone)
	}
}

// TestIndexableIn: the folder-wise rule of a walk is indexable's.
func TestIndexableIn(t *testing.T) {
	for _, dir := range []string{"pages", "pages/sub", "pages/sources", "sources", "sources/research", "sources/pages"} {
		for _, name := range []string{"a.md", "A.MD", "a.txt", "a", ".a.md", "a.md.llmwiki-tmp-1", ".a.md.llmwiki-tmp-1", "md", ".md", "x.md.bak"} {
			if got, want := indexableIn(wiki.LayerOf(dir) == wiki.LayerPages, name), indexable(dir+"/"+name); got != want {
				t.Errorf("%s/%s: indexableIn %v, indexable %v", dir, name, got, want)
			}
		}
	}
}
