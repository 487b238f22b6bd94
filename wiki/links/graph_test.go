package links

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// openGraph opens st's link graph and registers it, as a server does.
func openGraph(st *wiki.Store) *Graph {
	g := Open(st)
	st.AddDerived(g)
	return g
}

func backlinkFroms(v *View, rel string) []string {
	var out []string
	for _, b := range v.Backlinks(rel) {
		out = append(out, b.Path)
	}
	return out
}

func TestGraph(t *testing.T) {
	ctx := context.Background()
	st, dir := teststore.New(t, map[string]string{
		"pages/a.md":       "---\ntitle: A\naliases: [Alpha]\n---\n# A\n\nSee [[b]] and [[b#Part two]] and [[b#Nope]] and [[missing]] and ![[gone.png]].\n",
		"pages/b.md":       "# B\n\n## Part two\n\nBack to [[Alpha|a]]. ^blk\n",
		"pages/sub/c.md":   "[up](../a.md) [[b#^blk]] [[b#^none]]\n",
		"sources/notes.md": "Links in sources do not count: [[a]]\n",
		"log.md":           "# Log\n\n- created [[a]]\n",
		"context.md":       "---\nbuilt_at: x\n---\nThe synthesis cites [[b]].\n",
	})
	g := openGraph(st)
	v, err := g.Fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := backlinkFroms(v, "pages/a.md"); !reflect.DeepEqual(got, []string{"pages/b.md", "pages/sub/c.md"}) {
		t.Errorf("backlinks of a = %v", got)
	}
	if got := backlinkFroms(v, "pages/b.md"); !reflect.DeepEqual(got, []string{"context.md", "pages/a.md", "pages/a.md", "pages/a.md", "pages/sub/c.md", "pages/sub/c.md"}) {
		t.Errorf("backlinks of b = %v", got)
	}
	problems := map[string]string{}
	for _, s := range v.Sources() {
		for _, l := range v.Links(s) {
			if l.Problem != "" {
				problems[s+" "+l.Raw] = l.Problem
			}
		}
	}
	want := map[string]string{
		"pages/a.md [[b#Nope]]":      ProblemHeading,
		"pages/a.md [[missing]]":     ProblemDangling,
		"pages/a.md ![[gone.png]]":   ProblemMissingEmbed,
		"pages/sub/c.md [[b#^none]]": ProblemBlock,
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems = %v, want %v", problems, want)
	}
	if got := len(v.Pages()); got != 3 {
		t.Errorf("Pages() = %d entries", got)
	}

	// A write through the store is seen at once, without a walk.
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "D", Slug: "d", Content: "Links to [[missing]] now exist.\n"}); err != nil {
		t.Fatal(err)
	}
	v2, _ := g.View(ctx)
	// index.md is automatic: the write regenerated it, linking every page.
	if got := backlinkFroms(v2, "pages/d.md"); !reflect.DeepEqual(got, []string{"index.md"}) {
		t.Errorf("d backlinks %v", got)
	}
	if l := v2.Links("pages/d.md"); len(l) != 1 || l[0].Problem != ProblemDangling {
		t.Errorf("d links %+v", l)
	}
	// An edit made outside the server is seen by the next walk.
	time.Sleep(10 * time.Millisecond)
	wikitest.WriteFile(t, dir, "pages/missing.md", "# Missing no more\n")
	v3, _ := g.Fresh(ctx)
	if got := backlinkFroms(v3, "pages/missing.md"); !reflect.DeepEqual(got, []string{"pages/a.md", "pages/d.md"}) { // not yet in index.md
		t.Errorf("missing backlinks %v", got)
	}
	os.Remove(filepath.Join(dir, "pages", "sub", "c.md"))
	v4, _ := g.Fresh(ctx)
	if got := backlinkFroms(v4, "pages/a.md"); !reflect.DeepEqual(got, []string{"index.md", "pages/b.md"}) {
		t.Errorf("after delete, backlinks of a = %v", got)
	}
}

// TestViewUpdate: after edits through the store, the view updated in place
// equals a view built from scratch.
func TestViewUpdate(t *testing.T) {
	ctx := context.Background()
	st, _ := teststore.New(t, map[string]string{
		"pages/a.md": "# A\n\n## One\n\n[[b]] [[b#Two]] [[c#^x]]\n",
		"pages/b.md": "# B\n\n## Two\n\n[[a#One]] [[a]]\n",
		"pages/c.md": "# C\n\npara ^x\n\n[[a]] [[nowhere]]\n",
		"pages/d.md": "---\naliases: [Dee]\n---\n# D\n\n[[b]]\n",
	})
	g := openGraph(st)
	if _, err := g.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	edits := []struct{ slug, body string }{
		{"b", "# B\n\n## Renamed\n\n[[a#One]] [[c]] [[Dee]]\n"}, // a's [[b#Two]] now misses
		{"c", "# C\n\nno block now\n\n[[a]] [[a]] [[b#Renamed]]\n"},
		{"a", "# A\n\n## One\n\n[[b#Renamed]] [[c#^x]] [[d]]\n"},
	}
	for _, e := range edits {
		rel := "pages/" + e.slug + ".md"
		data, _ := st.Root().ReadFile(rel)
		if err := st.Update(ctx, func(tx *store.Tx) error { return tx.Replace(rel, []byte(e.body), store.SHA256Hex(data)) }); err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		inc := g.view
		full := buildView(g.entries)
		g.mu.Unlock()
		if inc == nil {
			t.Fatalf("after editing %s the view was dropped, not updated", rel)
		}
		if !reflect.DeepEqual(inc.out.flat(), full.out.flat()) || !reflect.DeepEqual(inc.in.flat(), full.in.flat()) {
			t.Errorf("after editing %s:\nupdated %v\nrebuilt %v", rel, inc.in, full.in)
		}
	}
	// A new page changes the set of targets: the links it may answer are
	// re-resolved.
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Nowhere", Slug: "nowhere", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	v, _ := g.View(ctx)
	for _, l := range v.Links("pages/c.md") {
		if l.Problem != "" {
			t.Errorf("%s: %s", l.Raw, l.Problem)
		}
	}
}

// sameView reports how the view updated in place differs from one built
// from the same entries ("" when it does not).
func sameView(inc, full *View) string {
	if inc == nil {
		return "the view was dropped, not updated"
	}
	switch {
	case !slices.Equal(inc.Files(), full.Files()):
		return fmt.Sprintf("files %v, rebuilt %v", inc.Files(), full.Files())
	case !slices.Equal(inc.Sources(), full.Sources()):
		return fmt.Sprintf("sources %v, rebuilt %v", inc.Sources(), full.Sources())
	case !reflect.DeepEqual(inc.files.flat(), full.files.flat()):
		return "parsed files differ"
	case !reflect.DeepEqual(inc.mtimes.flat(), full.mtimes.flat()):
		return "mtimes differ"
	case !reflect.DeepEqual(inc.out.flat(), full.out.flat()):
		return fmt.Sprintf("links\nupdated %+v\nrebuilt %+v", inc.out.flat(), full.out.flat())
	case !reflect.DeepEqual(inc.in.flat(), full.in.flat()):
		return fmt.Sprintf("backlinks\nupdated %v\nrebuilt %v", inc.in.flat(), full.in.flat())
	case !reflect.DeepEqual(inc.linkers.flat(), full.linkers.flat()):
		return fmt.Sprintf("linkers\nupdated %v\nrebuilt %v", inc.linkers.flat(), full.linkers.flat())
	case !reflect.DeepEqual(inc.resolver.byKey.flat(), full.resolver.byKey.flat()):
		return "resolver keys differ"
	}
	incBase, fullBase := inc.resolver.byBase.flat(), full.resolver.byBase.flat()
	for b, fs := range fullBase {
		got := append([]fileKey(nil), incBase[b]...)
		want := append([]fileKey(nil), fs...)
		less := func(x, y fileKey) int { return strings.Compare(x.path, y.path) }
		slices.SortFunc(got, less)
		slices.SortFunc(want, less)
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("resolver base %q: %v, rebuilt %v", b, got, want)
		}
	}
	if len(incBase) != len(fullBase) {
		return "resolver bases differ"
	}
	return ""
}

// TestViewUpdateFiles: files created and deleted, through the store and
// outside it, update the view in place to what a full build gives: links
// that now find a file, an ambiguous name, a relative link, an embed of a
// new image, a deleted link source and target; a page with aliases coming
// or going makes a full build.
func TestViewUpdateFiles(t *testing.T) {
	ctx := context.Background()
	st, dir := teststore.New(t, map[string]string{
		"pages/a.md":     "# A\n\n## One\n\n[[b]] [[new]] [[sub/new#Top]] ![[pic.png]] [[Dee]] [[#One]]\n",
		"pages/b.md":     "# B\n\n[[a#One]] [./new](./new.md) [[gone]]\n",
		"pages/gone.md":  "# Gone\n\n[[a]] [[b]]\n",
		"pages/d.md":     "---\naliases: [Dee]\n---\n# D\n\n[[b]]\n",
		"pages/x/new.md": "# New in x\n\n[[a]]\n",
	})
	g := openGraph(st)
	if _, err := g.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	check := func(label string, wantInPlace bool) {
		t.Helper()
		g.mu.Lock()
		inc := g.view
		full := buildView(g.entries)
		g.mu.Unlock()
		if inc == nil && !wantInPlace {
			return
		}
		if d := sameView(inc, full); d != "" {
			t.Errorf("%s: %s", label, d)
		}
	}
	tx := func(label string, fn func(*store.Tx) error) {
		t.Helper()
		if err := st.Update(ctx, fn); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		check(label, true)
	}
	tx("create pages/new.md", func(tx *store.Tx) error {
		return tx.Create("pages/new.md", []byte("# New\n\n[[a#One]] [[b]]\n"))
	})
	tx("create pages/sub/new.md", func(tx *store.Tx) error {
		return tx.Create("pages/sub/new.md", []byte("# Top\n\n[[new]]\n"))
	})
	tx("delete pages/gone.md", func(tx *store.Tx) error {
		data, _, _ := tx.Read("pages/gone.md")
		return tx.Delete("pages/gone.md", store.SHA256Hex(data))
	})
	tx("create and change in one", func(tx *store.Tx) error {
		if err := tx.Create("pages/gone.md", []byte("# Back\n")); err != nil {
			return err
		}
		data, _, _ := tx.Read("pages/b.md")
		return tx.Replace("pages/b.md", []byte("# B\n\n[[gone#Back]] [[x/new]]\n"), store.SHA256Hex(data))
	})
	// Outside the store: the walk finds them.
	wikitest.WriteFile(t, dir, "pages/pic.png", "png")
	if _, err := g.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("walk: create pages/pic.png", true)
	wikitest.WriteFile(t, dir, "pages/y/new.md", "# New in y\n")
	os.Remove(filepath.Join(dir, "pages", "x", "new.md"))
	if _, err := g.Fresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("walk: create pages/y/new.md, delete pages/x/new.md", true)
	// Aliases coming or going: a full build.
	if err := st.Update(ctx, func(tx *store.Tx) error {
		return tx.Create("pages/e.md", []byte("---\naliases: [Gone]\n---\n# E\n"))
	}); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	dropped := g.view == nil
	g.mu.Unlock()
	if !dropped {
		t.Error("a page with aliases was added in place; want a full build")
	}
	v, err := g.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	full := buildView(g.entries)
	g.mu.Unlock()
	if d := sameView(v, full); d != "" {
		t.Errorf("after aliases: %s", d)
	}
}

// TestGraphFeed: with the file watcher running, View sees outside edits at
// once (a new file, a changed one, a removed folder, a new folder) by
// re-reading the paths it reported, and the view equals a full build.
func TestGraphFeed(t *testing.T) {
	ctx := context.Background()
	st, dir := teststore.New(t, map[string]string{
		"pages/a.md":     "# A\n\n[[b]] [[c]] [[sub/d]]\n",
		"pages/b.md":     "# B\n\n[[a]]\n",
		"pages/sub/d.md": "# D\n\n[[a]]\n",
	})
	g := openGraph(st)
	if _, err := g.View(ctx); err != nil {
		t.Fatal(err)
	}
	if !g.sub.Live() {
		t.Skip("no file watcher on this system")
	}
	step := func(label string, edit func(), check func(v *View) string) {
		t.Helper()
		edit()
		v, err := g.View(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msg := check(v); msg != "" {
			t.Errorf("%s: %s", label, msg)
		}
		g.mu.Lock()
		full := buildView(g.entries)
		g.mu.Unlock()
		if d := sameView(v, full); d != "" {
			t.Errorf("%s: %s", label, d)
		}
	}
	step("new file", func() { wikitest.WriteFile(t, dir, "pages/c.md", "# C\n\n[[b]]\n") }, func(v *View) string {
		if got := backlinkFroms(v, "pages/c.md"); !reflect.DeepEqual(got, []string{"pages/a.md"}) {
			return fmt.Sprintf("backlinks of c %v", got)
		}
		return ""
	})
	step("changed file", func() { wikitest.WriteFile(t, dir, "pages/b.md", "# B\n\nno links now, longer\n") }, func(v *View) string {
		if got := backlinkFroms(v, "pages/a.md"); !reflect.DeepEqual(got, []string{"pages/sub/d.md"}) {
			return fmt.Sprintf("backlinks of a %v", got)
		}
		return ""
	})
	step("removed folder", func() { os.RemoveAll(filepath.Join(dir, "pages", "sub")) }, func(v *View) string {
		if v.Page("pages/sub/d.md") != nil || len(v.Backlinks("pages/sub/d.md")) != 0 {
			return "pages/sub/d.md still known"
		}
		return ""
	})
	step("new folder", func() { wikitest.WriteFile(t, dir, "pages/sub/d.md", "# D again\n") }, func(v *View) string {
		if got := backlinkFroms(v, "pages/sub/d.md"); !reflect.DeepEqual(got, []string{"pages/a.md"}) {
			return fmt.Sprintf("backlinks of d %v", got)
		}
		return ""
	})
}

// TestLazyParse: log.md and sources/ are parsed only when something needs
// their headings; links into them are still checked.
func TestLazyParse(t *testing.T) {
	ctx := context.Background()
	st, _ := teststore.New(t, map[string]string{
		"pages/a.md": "# A\n\n[[log#Log]] [[log#Nope]]\n",
	})
	g := openGraph(st)
	v, err := g.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendLog(ctx, wiki.LogInput{Op: "note", Title: "Day one"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ResearchSave(ctx, wiki.ResearchInput{Topic: "x", Content: "found"}); err != nil {
		t.Fatal(err)
	}
	if v, err = g.View(ctx); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	research := g.entries["sources/research/x.md"].page
	g.mu.Unlock()
	if research.pg.Load() != nil {
		t.Error("sources/research/x.md was parsed though nothing links into it")
	}
	if pg := v.Page("sources/research/x.md"); pg == nil || len(pg.Headings) == 0 {
		t.Errorf("sources/research/x.md parsed on demand: %+v", pg)
	}
	problems := map[string]string{}
	for _, l := range v.Links("pages/a.md") {
		problems[l.Raw] = l.Problem
	}
	if want := map[string]string{"[[log#Log]]": "", "[[log#Nope]]": ProblemHeading}; !reflect.DeepEqual(problems, want) {
		t.Errorf("links into log.md: %v, want %v", problems, want)
	}
}

// TestGraphConcurrent: readers of views (old and new) while writes create,
// change and delete pages; run with -race. The last view equals a full
// build.
func TestGraphConcurrent(t *testing.T) {
	ctx := context.Background()
	st, _ := teststore.New(t, map[string]string{
		"pages/a.md": "# A\n\n## One\n\n[[b]] [[p3#One]]\n",
		"pages/b.md": "# B\n\n[[a#One]] [[p1]]\n",
	})
	g := openGraph(st)
	if _, err := g.View(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var readers sync.WaitGroup
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				v, err := g.View(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				for _, s := range v.Sources() {
					for _, l := range v.Links(s) {
						_ = l.Problem
					}
					_ = v.Backlinks(s)
					if pg := v.Page(s); pg != nil {
						_ = len(pg.Headings)
					}
				}
				_ = v.Page("log.md")
			}
		})
	}
	for i := range 60 {
		rel := fmt.Sprintf("pages/p%d.md", i%7)
		err := st.Update(ctx, func(tx *store.Tx) error {
			data, ok, err := tx.Read(rel)
			switch {
			case err != nil:
				return err
			case ok && i%5 == 0:
				return tx.Delete(rel, store.SHA256Hex(data))
			case ok:
				return tx.Replace(rel, fmt.Appendf(nil, "# P\n\n## One\n\n[[a]] [[p%d]] v%d\n", (i+1)%7, i), store.SHA256Hex(data))
			default:
				return tx.Create(rel, fmt.Appendf(nil, "# P\n\n[[b#Nope]] [[p%d]]\n", (i+2)%7))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := st.AppendLog(ctx, wiki.LogInput{Op: "note", Title: fmt.Sprint("entry ", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	readers.Wait()
	v, err := g.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	full := buildView(g.entries)
	g.mu.Unlock()
	if d := sameView(v, full); d != "" {
		t.Error(d)
	}
}

// The change feed's periodic safety walk runs in the background and repairs
// what a lost watcher event left wrong: a changed file is read again, a new
// file is added, a removed one is dropped, and the view follows.
func TestGraphBackgroundWalk(t *testing.T) {
	ctx := context.Background()
	st, dir := teststore.New(t, map[string]string{
		"pages/a.md": "# A\n\nSee [[b]].\n",
		"pages/b.md": "# B\n",
	})
	g := openGraph(st)
	if _, err := g.View(ctx); err != nil {
		t.Fatal(err)
	}
	// What the watcher reported is applied as usual; the graph is then told
	// wrong things, as if events had been lost: a.md changed, c.md was made,
	// gone.md was removed.
	wikitest.WriteFile(t, dir, "pages/c.md", "# C\n\nSee [[a]].\n")
	wikitest.WriteFile(t, dir, "pages/a.md", "# A\n\nSee [[c]] now.\n")
	if _, err := g.View(ctx); err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.entries["pages/a.md"] = &entry{size: 1, mtime: time.Unix(1, 0), page: eager(parseFor("pages/a.md", []byte("# A\n\nSee [[b]].\n")))}
	delete(g.entries, "pages/c.md")
	g.entries["pages/gone.md"] = &entry{size: 5, mtime: time.Unix(1, 0), page: eager(parseFor("pages/gone.md", []byte("# Gone\n\n[[b]]\n")))}
	g.view = nil
	g.walkInBackground()
	g.mu.Unlock()
	g.bgWG.Wait()

	g.mu.Lock()
	_, hasGone := g.entries["pages/gone.md"]
	_, hasC := g.entries["pages/c.md"]
	a := g.entries["pages/a.md"]
	g.view = nil
	g.mu.Unlock()
	if hasGone || !hasC || a == nil || a.size == 1 {
		t.Fatalf("after the background walk: gone.md kept %v, c.md known %v, a.md %+v", hasGone, hasC, a)
	}
	v, err := g.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := backlinkFroms(v, "pages/c.md"); !slices.Equal(got, []string{"pages/a.md"}) {
		t.Errorf("backlinks of c.md: %v, want [pages/a.md]", got)
	}
	if got := backlinkFroms(v, "pages/b.md"); len(got) != 0 {
		t.Errorf("backlinks of b.md: %v, want none", got)
	}

	// No background walk starts once the graph is closed.
	g.Close()
	g.mu.Lock()
	g.walkInBackground()
	g.mu.Unlock()
	if g.bgWalk.Load() {
		t.Error("a background walk started after Close")
	}
}

// A write during the graph's first walk does not wait for it (at 100k pages
// the walk takes seconds), and the view the walk ends with holds the write.
func TestWriteDuringFirstWalk(t *testing.T) {
	ctx := context.Background()
	st, _ := teststore.New(t, map[string]string{
		"pages/a.md": "# A\n\nSee [[b]].\n",
		"pages/b.md": "# B\n\nPlain.\n",
	})
	g := openGraph(st)
	walkHold = make(chan struct{})
	defer func() { walkHold = nil }()
	views := make(chan *View, 1)
	go func() {
		v, err := g.View(ctx)
		if err != nil {
			t.Error(err)
		}
		views <- v
	}()
	for !g.Walking() {
		time.Sleep(time.Millisecond)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := st.WritePage(ctx, wiki.PageInput{Title: "C", Slug: "c", Content: "Links [[a]] and [[b]].\n"})
		if err == nil {
			// A rewrite of b while the walk still holds its old text.
			data, _ := st.Root().ReadFile("pages/b.md")
			err = st.Update(ctx, func(tx *store.Tx) error {
				return tx.Replace("pages/b.md", []byte("# B\n\nNow [[c]].\n"), store.SHA256Hex(data))
			})
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a write waited for the link graph's first walk")
	}
	close(walkHold)
	v := <-views
	if g.Walking() {
		t.Error("Walking() after the first walk ended")
	}
	if got := backlinkFroms(v, "pages/a.md"); !reflect.DeepEqual(got, []string{"index.md", "pages/c.md"}) {
		t.Errorf("backlinks of a = %v, want [index.md pages/c.md]", got)
	}
	if got := backlinkFroms(v, "pages/c.md"); !reflect.DeepEqual(got, []string{"index.md", "pages/b.md"}) {
		t.Errorf("backlinks of c = %v, want [index.md pages/b.md] (b's rewrite during the walk)", got)
	}
	if got := backlinkFroms(v, "pages/b.md"); !reflect.DeepEqual(got, []string{"index.md", "pages/a.md", "pages/c.md"}) {
		t.Errorf("backlinks of b = %v", got)
	}
}

// TestWarmSameAsView: Warm's walk on one reader builds the view a View
// builds with one reader per processor, and a View after it walks no more.
func TestWarmSameAsView(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("pages/f%d/p%d.md", i%7, i)] = fmt.Sprintf("# P%d\n\nSee [[p%d]] and [[p%d#Nope]].\n", i, (i+1)%300, (i+2)%300)
	}
	st1, _ := teststore.New(t, files)
	g1 := openGraph(st1)
	if err := g1.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	walked := g1.lastWalk
	v1, err := g1.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !g1.lastWalk.Equal(walked) {
		t.Error("View after Warm walked again")
	}
	st2, _ := teststore.New(t, files)
	v2, err := openGraph(st2).View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	summary := func(v *View) []string {
		var out []string
		for _, s := range v.Sources() {
			for _, l := range v.Links(s) {
				out = append(out, s+" "+l.Raw+" "+l.Target+" "+l.Problem)
			}
			out = append(out, fmt.Sprint(s, " ", backlinkFroms(v, s)))
		}
		return out
	}
	if a, b := summary(v1), summary(v2); len(a) < 900 || !reflect.DeepEqual(a, b) {
		t.Errorf("Warm's view (%d lines) differs from View's (%d lines)", len(a), len(b))
	}
}

// TestDetach: a detached view gives what a fresh one does, less what the
// one-shot reader gave up, and the graph forgets what it read.
func TestDetach(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		"pages/a.md": "---\ntitle: A\n---\n# A\n\nSee [[b]], [[b#Nope]] and [[missing]].\n",
		"pages/b.md": "# B\n\nBack to [[a]].\n",
		"index.md":   "- [[a]]\n- [[b]]\n",
	}
	problems := func(from string, r *Resolved) bool { return r.Problem != "" }
	for _, tc := range []struct {
		name  string
		keep  func(string, *Resolved) bool
		links map[string][]string // source -> Raw of the links View.Links gives
		// viewed: the graph has a view (of every link) before Detach.
		viewed bool
	}{
		{"every link", nil, map[string][]string{
			"index.md":   {"[[a]]", "[[b]]"},
			"pages/a.md": {"[[b]]", "[[b#Nope]]", "[[missing]]"},
			"pages/b.md": {"[[a]]"},
		}, false},
		{"problems only", problems, map[string][]string{
			"pages/a.md": {"[[b#Nope]]", "[[missing]]"},
		}, false},
		{"problems only, viewed before", problems, map[string][]string{
			"pages/a.md": {"[[b#Nope]]", "[[missing]]"},
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := teststore.New(t, files)
			fresh, err := openGraph(st).Fresh(ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantPages := fresh.Pages()
			g := openGraph(st)
			if tc.viewed {
				if _, err := g.View(ctx); err != nil {
					t.Fatal(err)
				}
			}
			v, pages, err := g.Detach(ctx, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pages, wantPages) {
				t.Errorf("pages = %+v, want %+v", pages, wantPages)
			}
			got := map[string][]string{}
			for _, s := range v.Sources() {
				for _, l := range v.Links(s) {
					got[s] = append(got[s], l.Raw)
				}
				// Each link kept is resolved as in a view of every link.
				var want []Resolved
				for _, r := range fresh.Links(s) {
					if tc.keep == nil || tc.keep(s, &r) {
						want = append(want, r)
					}
				}
				if gotRs := v.Links(s); len(gotRs) != len(want) || (len(want) > 0 && !reflect.DeepEqual(gotRs, want)) {
					t.Errorf("%s: resolved links %+v, want %+v", s, gotRs, want)
				}
				if pg := v.Page(s); len(pg.Links) != 0 || pg.Info != nil {
					t.Errorf("%s: page keeps %d links, info %v", s, len(pg.Links), pg.Info)
				}
			}
			if !reflect.DeepEqual(got, tc.links) {
				t.Errorf("links = %v, want %v", got, tc.links)
			}
			for _, rel := range []string{"pages/a.md", "pages/b.md"} {
				if got, want := backlinkFroms(v, rel), backlinkFroms(fresh, rel); !reflect.DeepEqual(got, want) {
					t.Errorf("backlinks of %s = %v, want %v", rel, got, want)
				}
			}
			if n := len(g.entries); n != 0 || g.view != nil {
				t.Errorf("graph after Detach: %d entries, view %v", n, g.view != nil)
			}
		})
	}
}

// TestDetachWindows checks a Detach view of more sources than
// resolveKept's window against a view of every link: each source's kept
// links and each file's backlinks, in order.
func TestDetachWindows(t *testing.T) {
	ctx := context.Background()
	const n = 9000
	files := map[string]string{"index.md": "- [[p0]]\n- [[p1#H]]\n- [[gone]]\n"}
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("# P%d\n\n[[p%d]] [[p%d#H]] [[gone%d]] ![[p%d#^b]]\n", i, (i+1)%n, (i*7)%n, i%10, (i*13)%n)
		if i%2 == 0 {
			body += "\n## H\n\ntext ^b\n"
		}
		files[fmt.Sprintf("pages/d%d/p%d.md", i%37, i)] = body
	}
	st, _ := teststore.New(t, files)
	fresh, err := openGraph(st).Fresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keep := func(from string, r *Resolved) bool { return r.Problem != "" || from == "index.md" }
	v, _, err := openGraph(st).Detach(ctx, keep)
	if err != nil {
		t.Fatal(err)
	}
	kept, backlinks := 0, 0
	for _, s := range fresh.Sources() {
		var want []Resolved
		for _, r := range fresh.Links(s) {
			if keep(s, &r) {
				want = append(want, r)
			}
		}
		if got := v.Links(s); len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Fatalf("%s: resolved links %+v, want %+v", s, got, want)
		}
		kept += len(want)
		if got, want := v.Backlinks(s), fresh.Backlinks(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("backlinks of %s = %+v, want %+v", s, got, want)
		}
		backlinks += len(v.Backlinks(s))
	}
	if kept < n || backlinks < 2*n {
		t.Fatalf("only %d links kept and %d backlinks compared", kept, backlinks)
	}
}
