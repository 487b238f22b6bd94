package links

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"go.abhg.dev/goldmark/wikilink"

	"github.com/llmwiki/llmwiki/wiki"
)

// TestRenderIndexEscapesSummaries: link and embed syntax in a summary or
// tag is text in the generated index.md: the parser finds only the page
// entries, and a CommonMark renderer shows the summary as written.
func TestRenderIndexEscapesSummaries(t *testing.T) {
	summaries := []string{
		"see [[x]] here",
		"embeds ![[pic.png]] inline",
		"a [text](pages/u.md) link",
		"an ![img](i.png) image",
		`a \[[y]] escaped and a ] lone`,
		"code `[[z]]` kept",
		"ref [a][b] link",
	}
	var pages []wiki.PageInfo
	for i, s := range summaries {
		slug := "p" + string(rune('a'+i))
		pages = append(pages, wiki.PageInfo{Path: "pages/" + slug + ".md", Slug: slug, Title: slug, Summary: s})
	}
	pages = append(pages, wiki.PageInfo{Path: "pages/tagged.md", Slug: "tagged", Title: "tagged", Tags: []string{"[[t]]"}})
	out := wiki.RenderIndex(pages)

	var got []string
	for _, l := range Parse("index.md", out).Links {
		got = append(got, l.Raw)
	}
	want := []string{"[[tagged]]", "[[pa]]", "[[pb]]", "[[pc]]", "[[pd]]", "[[pe]]", "[[pf]]", "[[pg]]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links in index.md %q, want only the entries %q\n%s", got, want, out)
	}

	var html bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(&wikilink.Extender{}))
	if err := md.Convert(out, &html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, s := range summaries {
		shown := s
		if strings.HasPrefix(s, "code") {
			shown = "code <code>[[z]]</code> kept"
		}
		if !strings.Contains(h, shown) {
			t.Errorf("rendered index.md does not show %q:\n%s", shown, h)
		}
	}
	if !strings.Contains(h, "<h2>[[t]]</h2>") {
		t.Errorf("rendered index.md does not show the tag [[t]] as a heading:\n%s", h)
	}
	if n := strings.Count(h, "<a "); n != len(want) {
		t.Errorf("rendered index.md has %d links, want %d:\n%s", n, len(want), h)
	}
	if strings.Contains(h, "<img") {
		t.Errorf("rendered index.md embeds an image:\n%s", h)
	}
}

// FuzzRenderIndexSummary: whatever a page's summary and tag hold, the
// generated index.md links to that page and to nothing else.
func FuzzRenderIndexSummary(f *testing.F) {
	for _, s := range []string{"[[x]]", "![[x]]", "[t](u.md)", "![i](u.png)", `\[[x]]`, "`[[x]]`", "``[[x]]`", "[a][b]\n\n[b]: c.md", "<a href=x.md>x</a>"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, summary, tag string) {
		p := wiki.PageInfo{Path: "pages/p.md", Slug: "p", Title: "p", Summary: summary}
		if tag != "" {
			p.Tags = []string{tag}
		}
		var got []string
		for _, l := range Parse("index.md", wiki.RenderIndex([]wiki.PageInfo{p})).Links {
			got = append(got, l.Raw)
		}
		if len(got) != 1 || got[0] != "[[p]]" {
			t.Fatalf("summary %q, tag %q: links %q, want only [[p]]", summary, tag, got)
		}
	})
}
