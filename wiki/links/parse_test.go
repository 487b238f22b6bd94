package links

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// wl is a compact description of a parsed link for table tests.
type wl struct {
	Kind     Kind
	Embed    bool
	Target   string
	Headings []string
	Block    string
	Label    string
	Line     int
}

func compact(pg *Page) []wl {
	out := []wl{}
	for _, l := range pg.Links {
		out = append(out, wl{l.Kind, l.Embed, l.Target, l.Headings, l.Block, l.Label, l.Line})
	}
	return out
}

func TestParseLinks(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []wl
	}{
		{"plain", "See [[Foo]].", []wl{{KindWiki, false, "Foo", nil, "", "", 1}}},
		{"alias", "[[Foo|the foo]]", []wl{{KindWiki, false, "Foo", nil, "", "the foo", 1}}},
		{"heading", "[[Foo#Bar baz]]", []wl{{KindWiki, false, "Foo", []string{"Bar baz"}, "", "", 1}}},
		{"heading chain", "[[Help#Questions and advice#Report bugs|x]]", []wl{{KindWiki, false, "Help", []string{"Questions and advice", "Report bugs"}, "", "x", 1}}},
		{"block hash", "[[Foo#^abc-1]]", []wl{{KindWiki, false, "Foo", nil, "abc-1", "", 1}}},
		{"block caret", "[[Foo^abc]]", []wl{{KindWiki, false, "Foo", nil, "abc", "", 1}}},
		{"same page heading", "[[#Intro]]", []wl{{KindWiki, false, "", []string{"Intro"}, "", "", 1}}},
		{"embed", "![[pic.png|100]]", []wl{{KindWiki, true, "pic.png", nil, "", "100", 1}}},
		{"with md", "[[Three laws of motion.md]]", []wl{{KindWiki, false, "Three laws of motion.md", nil, "", "", 1}}},
		{"path", "[[Projects/Three laws]]", []wl{{KindWiki, false, "Projects/Three laws", nil, "", "", 1}}},
		{"escaped pipe in table", "| a | b |\n|---|---|\n| [[Foo\\|bar]] | x |\n", []wl{{KindWiki, false, "Foo", nil, "", "bar", 3}}},
		{"empty links are not links", "[[]] and [[#]] and [[ ]] and [[|x]]", []wl{}},
		{"code span", "run `[[ -n \"$x\" ]]` or `[[servers]]`", []wl{}},
		{"tldr placeholder", "- Clone:\n\n`git clone {{[-C|--directory]}} {{path/to/dir}}`\n", []wl{}},
		{"fenced code", "```toml\n[[servers]]\nname = \"a\"\n```\n\nthen [[Real]]\n", []wl{{KindWiki, false, "Real", nil, "", "", 6}}},
		{"tilde fence", "~~~\n[[no]]\n~~~\n", []wl{}},
		{"indented code", "para\n\n    [[indented]]\n", []wl{}},
		{"unclosed fence", "[[before]]\n\n```bash\nif [[ -n $x ]]; then\n[[never]]\n", []wl{{KindWiki, false, "before", nil, "", "", 1}}},
		{"html block", "<div>\n[[in html]]\n</div>\n\n[[after]]", []wl{{KindWiki, false, "after", nil, "", "", 5}}},
		{"footnote is not a link", "A note.[^1]\n\n[^1]: meaningful!\n", []wl{}},
		{"markdown link", "[x](Three%20laws%20of%20motion.md#Newton's%20first)", []wl{{KindMarkdown, false, "Three laws of motion.md", []string{"Newton's first"}, "", "x", 1}}},
		{"markdown no ext", "[x](Three%20laws)", []wl{{KindMarkdown, false, "Three laws", nil, "", "x", 1}}},
		{"markdown angle", "[x](<With space.md>)", []wl{{KindMarkdown, false, "With space.md", nil, "", "x", 1}}},
		{"markdown image", "![alt](img/a.png \"t\")", []wl{{KindMarkdown, true, "img/a.png", nil, "", "alt", 1}}},
		{"markdown anchor", "[up](#Top)", []wl{{KindMarkdown, false, "", []string{"Top"}, "", "up", 1}}},
		{"external skipped", "[a](https://x.y/a.md) [b](mailto:a@b.c) [c](obsidian://open?x) <https://z> [d](//cdn/x.md)", []wl{}},
		{"reference link", "[x][r]\n\n[r]: Other.md\n", []wl{{KindMarkdown, false, "Other.md", nil, "", "x", 1}}},
		{"line numbers", "one\ntwo [[A]]\n\nthree ![[B]]\n", []wl{{KindWiki, false, "A", nil, "", "", 2}, {KindWiki, true, "B", nil, "", "", 4}}},
		{"link in heading and list", "# About [[Home]]\n\n- item [[List item]]\n> quote [[Quoted]]\n", []wl{{KindWiki, false, "Home", nil, "", "", 1}, {KindWiki, false, "List item", nil, "", "", 3}, {KindWiki, false, "Quoted", nil, "", "", 4}}},
		{"unclosed wikilink", "[[never closed\n]]", []wl{}},
		{"spaces trimmed", "[[  Foo  #  Bar  |  baz ]]", []wl{{KindWiki, false, "Foo", []string{"Bar"}, "", "baz", 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := compact(Parse("pages/x.md", []byte(c.src)))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Parse(%q)\n got %+v\nwant %+v", c.src, got, c.want)
			}
		})
	}
}

func TestParseOffsets(t *testing.T) {
	src := "---\ntitle: T\nrelated: \"[[Rel#H]]\"\n---\nText [[Foo#Bar|baz]] and ![[img.png]] and [l](Some%20page.md#X) and [a](<x y.md>).\n"
	pg := Parse("pages/x.md", []byte(src))
	want := []struct{ raw, target string }{
		{"[[Rel#H]]", "Rel"},
		{"[[Foo#Bar|baz]]", "Foo"},
		{"![[img.png]]", "img.png"},
		{"[l](Some%20page.md#X)", "Some%20page.md"},
		{"[a](<x y.md>)", "x y.md"},
	}
	if len(pg.Links) != len(want) {
		t.Fatalf("got %d links: %+v", len(pg.Links), pg.Links)
	}
	for i, w := range want {
		l := pg.Links[i]
		if src[l.Start:l.End] != w.raw || l.Raw != w.raw {
			t.Errorf("link %d: raw %q (offsets give %q), want %q", i, l.Raw, src[l.Start:l.End], w.raw)
		}
		if src[l.TargetStart:l.TargetEnd] != w.target {
			t.Errorf("link %d: target as written %q, want %q", i, src[l.TargetStart:l.TargetEnd], w.target)
		}
	}
	if !pg.Links[0].InFrontmatter || pg.Links[0].Line != 3 {
		t.Errorf("frontmatter link: %+v", pg.Links[0])
	}
	if pg.BodyStart != strings.Index(src, "Text") {
		t.Errorf("BodyStart = %d", pg.BodyStart)
	}
}

func TestParseHeadingsAndBlocks(t *testing.T) {
	src := "---\naliases: [One, \"Two\"]\nalias: Three\ntags: []\ntitle: X\n---\n# Title\n\nIntro para. ^intro\n\n```md\n## Not a heading\nfake ^nope\n```\n\nSetext H\n--------\n\n- item one ^li-1\n- item two\n\n> ## Quoted heading\n\n![[pic.png]]^after-embed\n\n| a |\n|---|\n\n^table-id\n\n### Deep `code` **bold** ###\nword^notid\n"
	pg := Parse("pages/x.md", []byte(src))
	var hs []string
	for _, h := range pg.Headings {
		hs = append(hs, strings.Repeat("#", h.Level)+" "+h.Text+"@"+strconv.Itoa(h.Line))
		if !strings.Contains(src[h.Start:h.End], firstWord(h.Text)) {
			t.Errorf("heading %q: range %q does not hold it", h.Text, src[h.Start:h.End])
		}
	}
	wantH := []string{"# Title@7", "## Setext H@16", "## Quoted heading@22", "### Deep `code` **bold**@31"}
	if !reflect.DeepEqual(hs, wantH) {
		t.Errorf("headings %v, want %v", hs, wantH)
	}
	if got := pg.Headings[1]; src[got.Start:got.End] != "Setext H\n--------\n" {
		t.Errorf("setext range %q", src[got.Start:got.End])
	}
	wantB := []string{"intro", "li-1", "after-embed", "table-id"}
	if !reflect.DeepEqual(pg.Blocks, wantB) {
		t.Errorf("blocks %v, want %v", pg.Blocks, wantB)
	}
	if !reflect.DeepEqual(pg.Aliases, []string{"One", "Two", "Three"}) {
		t.Errorf("aliases %v", pg.Aliases)
	}
	if !reflect.DeepEqual(pg.Keys, []string{"alias", "aliases", "title"}) {
		t.Errorf("keys %v (empty tags must not count)", pg.Keys)
	}
}

func firstWord(s string) string { return strings.Fields(s)[0] }

func TestParseBadFrontmatter(t *testing.T) {
	pg := Parse("pages/x.md", []byte("---\ntitle: [unclosed\n---\n[[Still a link]]\n"))
	if pg.FrontmatterError == "" {
		t.Error("no frontmatter error reported")
	}
	if len(pg.Links) != 1 || pg.Links[0].Target != "Still a link" || pg.Links[0].Line != 4 {
		t.Errorf("links %+v", pg.Links)
	}
}

// TestParsePageInfo: the catalogue entry the graph keeps is the one the
// store gives, with and without the frontmatter fast path.
func TestParsePageInfo(t *testing.T) {
	for _, src := range []string{
		"\xef\xbb\xbf# Title with BOM\n\ntext\n",
		"  \n# Late title\n",
		"---\ntitle: From frontmatter\nsummary: s\ntags: [a, b]\n---\n# Other\n",
		"+++\ntitle = \"TOML\"\n+++\nbody\n",
		"no heading at all\n",
		"```\n# not a title\n```\n# Real title\n",
	} {
		pg := Parse("pages/p.md", []byte(src))
		d, err := mdoc.ParseDoc("pages/p.md", []byte(src))
		want := wiki.PageInfoOf("pages/p.md", d, err)
		if !reflect.DeepEqual(*pg.Info, want) {
			t.Errorf("%q: info %+v, want %+v", src, *pg.Info, want)
		}
	}
}
