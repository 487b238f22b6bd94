package links

import (
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

func TestRewrite(t *testing.T) {
	src := "---\nrelated: \"[[Old]]\"\n---\n[[Old]] [[Old|shown]] [[Old#Part#Sub|x]] ![[Old#^blk]] [[old.md]] [t](Old.md#Part) [u](<Old.md>) | [[Old\\|cell]] | `[[Old]]`\n"
	pg := Parse("pages/x.md", []byte(src))
	var edits []TargetEdit
	for _, l := range pg.Links {
		nt := "New name"
		if strings.HasSuffix(l.Target, ".md") {
			nt = "New name.md"
		}
		edits = append(edits, TargetEdit{Link: l, Target: nt})
	}
	got, err := Rewrite([]byte(src), edits)
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nrelated: \"[[New name]]\"\n---\n[[New name]] [[New name|shown]] [[New name#Part#Sub|x]] ![[New name#^blk]] [[New name.md]] [t](New%20name.md#Part) [u](<New name.md>) | [[New name\\|cell]] | `[[Old]]`\n"
	if string(got) != want {
		t.Errorf("Rewrite:\n got %s\nwant %s", got, want)
	}
	// Re-parsing the result gives the same links with the new target.
	np := Parse("pages/x.md", got)
	if len(np.Links) != len(pg.Links) {
		t.Fatalf("links %d -> %d", len(pg.Links), len(np.Links))
	}
	for i := range np.Links {
		a, b := pg.Links[i], np.Links[i]
		if a.Fragment() != b.Fragment() || a.Label != b.Label || a.Embed != b.Embed || !strings.HasPrefix(b.Target, "New name") {
			t.Errorf("link %d: %+v -> %+v", i, a, b)
		}
	}
}

func TestRewriteErrors(t *testing.T) {
	src := "[[Old]] [x][r]\n\n[r]: Old.md\n"
	pg := Parse("pages/x.md", []byte(src))
	for _, c := range []struct {
		l      Link
		target string
	}{
		{pg.Links[0], "a|b"},
		{pg.Links[0], "a]]b"},
		{pg.Links[0], "a#b"},
		{pg.Links[0], "  "},
		{pg.Links[1], "New.md"}, // a reference link
	} {
		_, err := Rewrite([]byte(src), []TargetEdit{{Link: c.l, Target: c.target}})
		if store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("Rewrite %s -> %q: err %v, want invalid", c.l.Raw, c.target, err)
		}
	}
	_, err := Rewrite([]byte(src), []TargetEdit{{Link: pg.Links[0], Target: "A"}, {Link: pg.Links[0], Target: "B"}})
	if store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("overlapping edits: %v", err)
	}
}
