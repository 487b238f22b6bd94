package wiki

import (
	"context"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestHostileFrontmatterWrites: a page whose frontmatter does not parse is
// never rewritten (the file stays byte-identical, no second block is
// prepended); a body that smuggles a frontmatter block is refused; pages
// with BOM, CRLF, TOML or JSON frontmatter update into one clean block.
func TestHostileFrontmatterWrites(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	n := 0
	broken := []string{
		"---\ntitle: Broken\ntags: [x\n---\nbody\n",
		"---\ntitle: Broken\nbody without a closing line\n",
		"---\ntitle: a\ntitle: b\n---\n",
		"+++\ntitle = \n+++\n",
		"{\n\"title\": \"x\",\n}\n",
	}
	for i, src := range broken {
		n++
		rel := "pages/broken-" + string(rune('a'+i)) + ".md"
		mustWrite(t, dir, rel, src)
		before := treeOf(t, dir)
		_, err := s.WritePage(ctx, PageInput{Title: "Broken", Slug: strings.TrimSuffix(strings.TrimPrefix(rel, "pages/"), ".md"), Content: "new\n", BaseSHA256: store.SHA256Hex([]byte(src))})
		if err == nil || store.CodeOf(err) != store.CodeInvalid || !strings.Contains(store.PublicMessage(err), rel) || !strings.Contains(store.PublicMessage(err), "line ") {
			t.Errorf("%s: update of a page with broken frontmatter: %v", rel, err)
		}
		sameTree(t, before, treeOf(t, dir))
		if got := readFile(t, dir, rel); got != src {
			t.Errorf("%s changed:\n%s", rel, got)
		}
		// read_page still shows it, with the problem.
		fc, err := s.Read(ctx, ReadInput{Path: rel})
		if err != nil || fc.FrontmatterError == "" || fc.Content != src {
			t.Errorf("%s: read = %+v, %v", rel, fc, err)
		}
	}
	// A body that starts with a frontmatter block would become a second block.
	for _, body := range []string{"---\ntitle: Sneaky\n---\ntext\n", "\n\n---\nsummary: x\n---\n", "+++\ntitle = \"x\"\n+++\n", "{\"title\": \"x\"}\ntext\n"} {
		n++
		if _, err := s.WritePage(ctx, PageInput{Title: "Sneaky", Content: body}); err == nil || !strings.Contains(store.PublicMessage(err), "frontmatter") {
			t.Errorf("body %q: %v", body, err)
		}
		if _, err := s.WriteContext(ctx, ContextInput{Content: body}); err == nil {
			t.Errorf("context %q accepted", body)
		}
	}
	// Editors' variants update into one YAML block; unknown keys survive;
	// "\r\n" line ends stay.
	variants := map[string]string{
		"bom":  "\xef\xbb\xbf---\ntitle: Bom\ncustom: 1\n---\nold\n",
		"crlf": "---\r\ntitle: Crlf\r\ncustom: 1\r\n---\r\nold\r\n",
		"toml": "+++\ntitle = \"Toml\"\ncustom = 1\n+++\nold\n",
		"json": "{\"title\": \"Json\", \"custom\": 1}\nold\n",
		"none": "---\n\n# Thematic break first\n",
	}
	for slug, src := range variants {
		n++
		rel := "pages/" + slug + ".md"
		mustWrite(t, dir, rel, src)
		w, err := s.WritePage(ctx, PageInput{Title: "T " + slug, Slug: slug, Content: "new body\n---\nafter a rule\n", BaseSHA256: store.SHA256Hex([]byte(src))})
		if err != nil {
			t.Fatalf("%s: %v", slug, err)
		}
		got := readFile(t, dir, rel)
		// A CRLF page keeps "\r\n" on every line; the others have none.
		crlf := slug == "crlf"
		if strings.Count(got, "title:") != 1 || strings.HasPrefix(got, "\xef\xbb\xbf") || strings.Contains(got, "\r") != crlf ||
			crlf && strings.Count(got, "\n") != strings.Count(got, "\r\n") {
			t.Errorf("%s: not one clean block:\n%q", slug, got)
		}
		d, err := mdoc.ParseDoc(rel, []byte(got))
		if err != nil || d.Meta["title"] != "T "+slug || string(d.Body) != string(WithLineEnds([]byte("new body\n---\nafter a rule\n"), crlf)) {
			t.Errorf("%s: reads back %+v %v", slug, d, err)
		}
		if slug != "none" && mdoc.MetaString(d.Meta, "custom") != "1" {
			t.Errorf("%s: unknown key lost:\n%s", slug, got)
		}
		if w.Snapshot == "" || readFile(t, dir, w.Snapshot) != src {
			t.Errorf("%s: old version not snapshotted byte for byte", slug)
		}
	}
	wikitest.Cases(t, "frontmatter", n)
}
