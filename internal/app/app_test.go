package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/search"
)

func openWiki(t *testing.T) *wiki.Store {
	t.Helper()
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestNewRegistersDerivedState: the graph and the index New registers
// follow a write through the store, and Deps hands the same ones to the
// tools.
func TestNewRegistersDerivedState(t *testing.T) {
	st := openWiki(t)
	a := app.New(st, app.Options{})
	defer a.Close()
	d := a.Deps()
	if d.Store != st || d.Links != a.Links || d.Search != a.Search || a.Links == nil || a.Search == nil {
		t.Fatalf("Deps = %+v, want the app's store, graph and index", d)
	}
	ctx := context.Background()
	if _, err := a.Links.View(ctx); err != nil { // the first view walks
		t.Fatal(err)
	}
	a.Start()
	if err := a.Search.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Alpha", Content: "Links to [[beta]]."}); err != nil {
		t.Fatal(err)
	}
	v, err := a.Links.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Links("pages/alpha.md"); len(got) != 1 || got[0].Target != "beta" {
		t.Errorf("links of the new page = %+v, want one to beta", got)
	}
	res, err := a.Search.Search(ctx, search.Query{Text: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Path != "pages/alpha.md" {
		t.Errorf("search after the write = %+v, want pages/alpha.md first", res.Hits)
	}
}

// TestStartNeverAfterStop: background work starts once, and not at all
// when Stop came first (a server shutting down before the handshake).
func TestStartNeverAfterStop(t *testing.T) {
	st := openWiki(t)
	a := app.New(st, app.Options{})
	a.Stop()
	cancel := a.StartAfter(time.Millisecond)
	defer cancel()
	a.Start()
	time.Sleep(50 * time.Millisecond)
	if s := a.Search.Status(); s.State != search.StateBuilding || s.Reason != "the index has not been opened yet" {
		t.Errorf("index after Stop then Start = %+v, want never opened", s)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	n := app.New(openWiki(t), app.Options{NoSearch: true})
	defer n.Close()
	if n.Search != nil || n.Links == nil {
		t.Errorf("NoSearch: index %v, graph %v; want no index, a graph", n.Search, n.Links)
	}

	st2 := openWiki(t)
	b := app.New(st2, app.Options{})
	defer b.Close()
	b.Start()
	b.Start()
	ctx, done := context.WithTimeout(context.Background(), 30*time.Second)
	defer done()
	if err := b.Search.Wait(ctx); err != nil || b.Search.Status().State != search.StateReady {
		t.Fatalf("index after Start: %v, %+v", err, b.Search.Status())
	}
}

// TestWarmReview: Start reads the review queue in the background when
// WarmReview asked, and Close waits for it before the store closes.
func TestWarmReview(t *testing.T) {
	st := openWiki(t)
	if _, err := st.WritePage(context.Background(), wiki.PageInput{Title: "Alpha", Content: "One."}); err != nil {
		t.Fatal(err)
	}
	a := app.New(st, app.Options{NoSearch: true})
	a.WarmReview()
	a.Start()
	a.Stop() // waits for the warm-up
	c, err := a.Review.Count()
	if err != nil {
		t.Fatal(err)
	}
	if c.Pending != 0 {
		t.Errorf("counts = %+v, want no pending change set", c)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// Start resumes a regeneration of index.md a crashed server left pending
// (wiki.IndexPendingFile), except in a read-only server.
func TestStartResumesPendingIndex(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprint("read-only=", readOnly), func(t *testing.T) {
			st := openWiki(t)
			marker := filepath.Join(st.Dir(), filepath.FromSlash(wiki.IndexPendingFile))
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			a := app.New(st, app.Options{NoSearch: true, ReadOnly: readOnly})
			a.Start()
			if got := st.IndexPending(); got == readOnly {
				t.Fatalf("pending after Start = %v, want %v", got, !readOnly)
			}
			a.Stop()
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := os.Lstat(marker)
			if gone := err != nil; gone == readOnly {
				t.Fatalf("marker removed = %v after Close, want %v", gone, !readOnly)
			}
		})
	}
}
