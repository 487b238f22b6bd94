package wiki

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// load_project's index_stale follows index.md and the pages through its
// memo: a change of either is seen at the next call.
func TestIndexStaleFollowsChanges(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	write := func(slug string) {
		t.Helper()
		if _, err := s.WritePage(ctx, PageInput{Title: "Page " + slug, Slug: slug, Summary: "about " + slug, Content: "body\n"}); err != nil {
			t.Fatal(err)
		}
	}
	rebuild := func() {
		t.Helper()
		if _, err := s.RebuildIndex(ctx); err != nil {
			t.Fatal(err)
		}
	}
	outside := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manual := func() {
		t.Helper()
		schema, err := os.ReadFile(filepath.Join(dir, "schema.md"))
		if err != nil || !strings.Contains(string(schema), "\nindex: auto ") {
			t.Fatalf("schema.md has no index: auto to change (%v)", err)
		}
		outside("schema.md", strings.Replace(string(schema), "\nindex: auto ", "\nindex: manual ", 1))
		if s.Settings().AutoIndex {
			t.Fatal("index: manual not in force")
		}
	}
	steps := []struct {
		name  string
		do    func()
		stale bool
	}{
		{"a page written", func() { write("alpha") }, false},
		{"asked again", func() {}, false},
		{"index.md written by hand", func() { outside("index.md", "# My own index\n") }, true},
		{"asked again", func() {}, true},
		{"rebuild_index", rebuild, false},
		{"a page written with index: manual", func() { manual(); write("beta") }, true},
		{"rebuild_index again", rebuild, false},
		{"index.md deleted", func() { os.Remove(filepath.Join(dir, "index.md")) }, true},
	}
	for _, st := range steps {
		st.do()
		p, err := s.LoadProject(ctx)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if p.IndexStale != st.stale {
			t.Errorf("%s: index_stale %v, want %v", st.name, p.IndexStale, st.stale)
		}
	}
}
