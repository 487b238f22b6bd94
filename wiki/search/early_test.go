package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// A search during a fresh build answers from the first pass (titles,
// headings, paths) and says so; once the build is done the full index
// answers, body text included.
func TestSearchDuringBuild(t *testing.T) {
	buildHold = make(chan struct{})
	held := true
	earlyMinFiles = 0
	defer func() {
		earlyMinFiles = 1000
		if held {
			close(buildHold)
		}
		buildHold = nil
	}()
	st, _ := teststore.New(t, map[string]string{
		"pages/git/commit.md":   "# git commit\n\nRecord changes.\n\n## Amend the last commit\n\nRewrite it with a zebra.\n",
		"pages/tar.md":          "---\ntitle: tar\ntags: [archive]\n---\n\n## Extract an archive\n\n`tar xf file.tar`\n",
		"pages/notes/travel.md": "# Travel notes\n\nNothing about commits here.\n",
		"sources/paper.md":      "# Committing protocols\n",
	})
	x := Open(st, Options{ReconcileEvery: -1})
	st.AddDerived(x)
	x.Start()
	ctx := context.Background()

	r := mustSearch(t, x, Query{Text: "amend commit"})
	if r.Index.State != StateBuilding {
		t.Fatalf("state %q, want building", r.Index.State)
	}
	if !strings.Contains(r.Index.Reason, "searches match the titles, headings and file names of all 5 files, not their text") {
		t.Errorf("reason %q does not say where results come from", r.Index.Reason)
	}
	if got := paths(r); len(got) == 0 || got[0] != "pages/git/commit.md" {
		t.Fatalf("hits %v, want pages/git/commit.md first", got)
	}
	if h := r.Hits[0]; h.Title != "git commit" || h.Kind != KindPage || h.Lang != "en" || !strings.Contains(h.Snippet, "**") {
		t.Errorf("first hit %+v", h)
	}
	for _, p := range paths(r) {
		if strings.HasPrefix(p, "sources/") {
			t.Errorf("scope pages returned %s", p)
		}
	}
	noted := false
	for _, n := range r.QueryNotes {
		noted = noted || strings.HasPrefix(n, "the index is building: ")
	}
	if !noted {
		t.Errorf("notes %q do not say the index is building", r.QueryNotes)
	}
	// Stems match as in the full index: "extracting" finds "Extract".
	if got := paths(mustSearch(t, x, Query{Text: "extracting", Tag: "archive"})); len(got) != 1 || got[0] != "pages/tar.md" {
		t.Errorf("extracting #archive: %v", got)
	}
	if got := paths(mustSearch(t, x, Query{Text: "commit", Scope: ScopeSources})); len(got) != 1 || got[0] != "sources/paper.md" {
		t.Errorf("commit in sources: %v", got)
	}
	// Body text waits for the full index.
	if r := mustSearch(t, x, Query{Text: "zebra"}); len(r.Hits) != 0 || r.Total != 0 {
		t.Errorf("zebra during the build: %v", paths(r))
	}

	close(buildHold)
	held = false
	if err := x.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	r = mustSearch(t, x, Query{Text: "zebra"})
	if r.Index.State != StateReady || len(r.Hits) != 1 || r.Hits[0].Path != "pages/git/commit.md" {
		t.Fatalf("after the build: state %q hits %v", r.Index.State, paths(r))
	}
	for _, n := range r.QueryNotes {
		if strings.Contains(n, "first pass") {
			t.Errorf("after the build, note %q", n)
		}
	}
}

// The pass reads every file once, in runs of one folder, spread so that
// the first runs read are an even sample of the folders, not the first
// folders in path order.
func TestEarlyOrder(t *testing.T) {
	l := &listing{}
	sizes := map[string]int{"pages/a": 40, "pages/b": 3200, "pages/c": 5, "pages/d": 1600, "sources": 320}
	for _, rel := range []string{"pages/a", "pages/b", "pages/c", "pages/d", "sources"} {
		d := &dirFiles{rel: rel}
		for i := range sizes[rel] {
			d.names = append(d.names, fmt.Sprintf("%d.md", i))
		}
		d.stats = make([]fileStat, len(d.names))
		l.dirs = append(l.dirs, d)
	}
	runs := earlyOrder(l)
	seen := map[string]bool{}
	total := 0
	for _, r := range runs {
		if r.hi-r.lo > earlyRunFiles || r.hi <= r.lo {
			t.Fatalf("run %+v", r)
		}
		for i := r.lo; i < r.hi; i++ {
			k := l.dirs[r.dir].rel + "/" + l.dirs[r.dir].names[i]
			if seen[k] {
				t.Fatalf("%s read twice", k)
			}
			seen[k] = true
			total++
		}
	}
	if total != l.count() {
		t.Fatalf("%d files in the runs, %d listed", total, l.count())
	}
	// After a tenth of the files, each large folder has had about its
	// share (a tenth of its files, within a few runs).
	read := map[int32]int{}
	n := 0
	for _, r := range runs {
		if n >= total/10 {
			break
		}
		read[r.dir] += int(r.hi - r.lo)
		n += int(r.hi - r.lo)
	}
	for di, d := range l.dirs {
		want := len(d.names) / 10
		if got := read[int32(di)]; len(d.names) >= 320 && (got < want-2*earlyRunFiles || got > want+2*earlyRunFiles) {
			t.Errorf("%s: %d of %d files in the first tenth, want about %d", d.rel, got, len(d.names), want)
		}
	}
}
