package search

import (
	"context"
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
	if !strings.Contains(r.Index.Reason, "first pass over the titles, headings and paths of every file") {
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
