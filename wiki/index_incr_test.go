package wiki

import (
	"context"
	"fmt"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// index.md as kept by writes (creates, updates that change a title, a
// summary or a first tag, moves, deletes, basenames that become shared and
// stop being shared) is byte for byte what a fresh render of the pages
// gives, and what rebuild_index leaves unchanged.
func TestIndexFollowsWritesLikeRebuild(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	check := func(step string) {
		t.Helper()
		got, _, err := s.ReadRaw("index.md")
		if err != nil {
			t.Fatal(err)
		}
		pages, err := s.PagesFresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := string(RenderIndex(pages)) + "\n"; string(got) != want {
			t.Fatalf("%s: index.md\n%s\nwant\n%s", step, got, want)
		}
		res, err := s.RebuildIndex(ctx)
		if err != nil || res.Changed {
			t.Fatalf("%s: rebuild_index changed index.md (%+v, %v)", step, res, err)
		}
	}
	write := func(in PageInput) PageWrite {
		t.Helper()
		out, err := s.WritePage(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	tags := [][]string{nil, {"zeta"}, {"Alpha"}, {"alpha"}, {"[x]"}}
	for i := 0; i < 20; i++ {
		slug := fmt.Sprintf("f%d/note-%d", i%3, i/2) // note-k in two folders: shared basenames
		if i%4 == 0 {
			slug = fmt.Sprintf("note-%d", i)
		}
		write(PageInput{Title: fmt.Sprintf("Note %d", 20-i), Slug: slug, Summary: fmt.Sprintf("summary [[%d]]", i), Tags: tags[i%len(tags)], Content: "body\n"})
		check("create " + slug)
	}
	// An update that changes the title, then one that changes the first tag.
	cur, _, _ := s.ReadRaw("pages/f1/note-0.md")
	w := write(PageInput{Title: "aardvark", Slug: "f1/note-0", BaseSHA256: store.SHA256Hex(cur), Content: "body\n"})
	check("retitle")
	write(PageInput{Title: "aardvark", Slug: "f1/note-0", BaseSHA256: w.SHA256, Tags: []string{"moved-tag"}, Content: "body\n"})
	check("retag")
	// A move (delete + create in one write) and deletes: note-1's basename
	// stops being shared.
	err := s.Update(ctx, func(tx *store.Tx) error {
		data, _, err := tx.Read("pages/f2/note-1.md")
		if err != nil {
			return err
		}
		if err := tx.Delete("pages/f2/note-1.md", ""); err != nil {
			return err
		}
		return tx.Create("pages/moved/renamed.md", data)
	})
	if err != nil {
		t.Fatal(err)
	}
	check("move")
	for _, p := range []string{"pages/note-0.md", "pages/f0/note-1.md", "pages/f1/note-3.md"} {
		if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Delete(p, "") }); err != nil {
			t.Fatal(err)
		}
		check("delete " + p)
	}
}
