package wiki

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestHostileFrontmatterParse: every shape of frontmatter a user's editor or
// another tool leaves behind is read the same way, or refused with the file
// and line named.
func TestHostileFrontmatterParse(t *testing.T) {
	type want struct {
		format FrontmatterFormat
		meta   map[string]any
		body   string
		line   int    // BodyLine
		err    string // substring of the error; "" for success
	}
	cases := []struct {
		name string
		src  string
		want want
	}{
		{"plain", "---\ntitle: a\n---\nbody\n", want{FormatYAML, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"utf-8 BOM", "\xef\xbb\xbf---\ntitle: a\n---\nbody\n", want{FormatYAML, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"CRLF", "---\r\ntitle: a\r\ntags: [x, y]\r\n---\r\nbody\r\n", want{FormatYAML, map[string]any{"title": "a", "tags": []any{"x", "y"}}, "body\r\n", 5, ""}},
		{"BOM and CRLF", "\xef\xbb\xbf---\r\ntitle: a\r\n---\r\n", want{FormatYAML, map[string]any{"title": "a"}, "", 4, ""}},
		{"blank lines first", "\n\n---\ntitle: a\n---\nbody\n", want{FormatYAML, map[string]any{"title": "a"}, "body\n", 6, ""}},
		{"trailing spaces on delimiters", "--- \ntitle: a\n---\t\nbody\n", want{FormatYAML, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"--- and ---- in the body", "---\ntitle: a\n---\nx\n---\ny\n----\nz\n", want{FormatYAML, map[string]any{"title": "a"}, "x\n---\ny\n----\nz\n", 4, ""}},
		{"indented --- inside a block scalar", "---\nnote: |\n  a\n  ---\n  b\n---\nbody\n", want{FormatYAML, map[string]any{"note": "a\n---\nb\n"}, "body\n", 7, ""}},
		{"empty block", "---\n---\nbody\n", want{FormatYAML, map[string]any{}, "body\n", 3, ""}},
		{"no final newline", "---\ntitle: a\n---", want{FormatYAML, map[string]any{"title": "a"}, "", 4, ""}},
		{"leading thematic break, no frontmatter", "---\n\n# Heading\n\ntext\n", want{FormatNone, nil, "---\n\n# Heading\n\ntext\n", 1, ""}},
		{"thematic break then a setext heading", "---\n\nSome text\n---\nmore\n", want{FormatNone, nil, "---\n\nSome text\n---\nmore\n", 1, ""}},
		{"thematic breaks around a list", "---\n- a\n- b\n---\nbody\n", want{FormatNone, nil, "---\n- a\n- b\n---\nbody\n", 1, ""}},
		{"---- is a thematic break", "----\ntitle: a\n----\nbody\n", want{FormatNone, nil, "----\ntitle: a\n----\nbody\n", 1, ""}},
		{"heading first", "# no fm\n---\ntitle: x\n---\n", want{FormatNone, nil, "# no fm\n---\ntitle: x\n---\n", 1, ""}},
		{"date stays as written", "---\ntitle: 2024-01-01\nn: yes\nwhen: 2024-01-01T10:00:00+02:00\n---\n", want{FormatYAML, map[string]any{"title": "2024-01-01", "n": "yes", "when": "2024-01-01T10:00:00+02:00"}, "", 6, ""}},
		{"numbers and bools", "---\nn: 3\nf: 1.5\nb: true\nz: null\n---\n", want{FormatYAML, map[string]any{"n": 3, "f": 1.5, "b": true, "z": nil}, "", 7, ""}},
		{"anchors and merge keys", "---\nbase: &b {x: 1}\nmore:\n  <<: *b\n  y: 2\n---\n", want{FormatYAML, map[string]any{"base": map[string]any{"x": 1}, "more": map[string]any{"x": 1, "y": 2}}, "", 7, ""}},
		{"---yaml opener", "---yaml\ntitle: a\n---\nbody\n", want{FormatYAML, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"TOML +++", "+++\ntitle = \"a\"\ntags = [\"x\"]\ndate = 2024-01-01T00:00:00Z\n+++\nbody\n", want{FormatTOML, map[string]any{"title": "a", "tags": []any{"x"}, "date": "2024-01-01T00:00:00Z"}, "body\n", 6, ""}},
		{"TOML ---toml", "---toml\ntitle = \"a\"\n---\nbody\n", want{FormatTOML, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"JSON object opening the file", "{\n  \"title\": \"a\",\n  \"tags\": [\"x\"]\n}\nbody\n", want{FormatJSON, map[string]any{"title": "a", "tags": []any{"x"}}, "body\n", 5, ""}},
		{"JSON object on one line", "{\"title\": \"a\"}\nbody\n", want{FormatJSON, map[string]any{"title": "a"}, "body\n", 2, ""}},
		{"JSON ;;;", ";;;\n{\"title\": \"a\"}\n;;;\nbody\n", want{FormatJSON, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"JSON ---json", "---json\n{\"title\": \"a\"}\n---\nbody\n", want{FormatJSON, map[string]any{"title": "a"}, "body\n", 4, ""}},
		{"text starting with a brace", "{{< shortcode >}}\ntext\n", want{FormatNone, nil, "{{< shortcode >}}\ntext\n", 1, ""}},
		{"empty file", "", want{FormatNone, nil, "", 1, ""}},
		{"only a BOM", "\xef\xbb\xbf", want{FormatNone, nil, "", 1, ""}},
		// Refusals: the file and the line of the problem are named.
		{"unclosed block", "---\ntitle: a\nbody without close\n", want{err: "f.md: frontmatter opened with '---' on line 1 is never closed"}},
		{"unclosed after blank lines", "\n---\ntitle: a\n", want{err: "on line 2 is never closed"}},
		{"unclosed TOML", "+++\ntitle = \"a\"\n", want{err: "opened with '+++' on line 1 is never closed"}},
		{"invalid YAML", "---\ntitle: a\ntags: [x\n---\nbody\n", want{err: "f.md: frontmatter is not valid YAML (line 3:"}},
		{"invalid YAML after BOM and CRLF", "\xef\xbb\xbf---\r\ntitle: a\r\nb: \"x\r\n---\r\n", want{err: "f.md: frontmatter is not valid YAML (line 3:"}},
		{"duplicate key", "---\ntitle: a\nsummary: s\ntitle: b\n---\n", want{err: "(line 4: key \"title\" is defined twice (first on line 2))"}},
		{"tab indentation", "---\ntitle: a\n\tsummary: b\n---\n", want{err: "f.md: frontmatter is not valid YAML (line 3:"}},
		{"invalid TOML", "+++\ntitle = \"a\"\nbad = \n+++\n", want{err: "f.md: frontmatter is not valid TOML (line"}},
		{"invalid JSON", "{\n  \"title\": \"a\",\n  \"tags\": [x]\n}\nbody\n", want{err: "f.md: frontmatter is not valid JSON (line 3:"}},
		{"JSON that is not an object", ";;;\n[1, 2]\n;;;\n", want{err: "f.md: frontmatter is not valid JSON"}},
		{"alias bomb", "---\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n", want{err: "too many values"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDoc("f.md", []byte(c.src))
			if c.want.err != "" {
				if err == nil {
					t.Fatalf("parsed, want error %q: %+v", c.want.err, d)
				}
				if store.CodeOf(err) != store.CodeInvalid || !strings.Contains(store.PublicMessage(err), c.want.err) {
					t.Fatalf("error = %q (%s), want it to contain %q", store.PublicMessage(err), store.CodeOf(err), c.want.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if d.Format != c.want.format || string(d.Body) != c.want.body || d.BodyLine != c.want.line {
				t.Errorf("got format %q body %q line %d, want %q %q %d", d.Format, d.Body, d.BodyLine, c.want.format, c.want.body, c.want.line)
			}
			if !jsonEqual(d.Meta, c.want.meta) {
				t.Errorf("meta = %#v, want %#v", d.Meta, c.want.meta)
			}
		})
	}
	wikitest.Cases(t, "frontmatter", len(cases))
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	var xv, yv any
	json.Unmarshal(x, &xv)
	json.Unmarshal(y, &yv)
	return reflect.DeepEqual(xv, yv)
}

// nastyStrings are values that break naive YAML emitters and parsers.
var nastyStrings = []string{
	"", " ", "plain", "yes", "no", "on", "off", "null", "~", "true", "1", "0x1F", "1e3", ".inf", "-", "--", "---",
	"...", "a: b", "- item", "# not a comment", "key: [unclosed", "{a: 1}", "[1, 2]", "'single'", `"double"`,
	"2024-01-01", "2024-01-01T10:00:00Z", "12:30", "@at", "`tick`", "!tag", "&anchor", "*alias", "%percent", "|", ">",
	"line1\nline2", "a\n---\nb", "\n---\n", "trailing\n", "\ttab", "back\\slash", "ünïcödé", "日本語", "🎉 emoji",
	"\u2028sep\u2029", "\ufeffbom", "zero\u200bwidth", "ctrl\x01char", "del\x7f", "cr\rmid", "crlf\r\nend", "  lead", "trail  ",
	"<script>alert(1)</script>", "[[wikilink|alias]]", "a # b", "a #b", "x: y: z", strings.Repeat("long ", 200),
}

// TestHostileFrontmatterRoundTrip: every value written reads back equal, and
// keys kept from the previous version survive byte for byte.
func TestHostileFrontmatterRoundTrip(t *testing.T) {
	n := 0
	for _, s := range nastyStrings {
		for _, body := range []string{"", "body\n", "---\nnot frontmatter\n---\n", "----\n", "\n\n# H\n"} {
			n++
			fields := []Field{{"title", s}, {"summary", s}, {"tags", []string{s, "x"}}, {"extra", map[string]any{"k": s, "n": 1}}}
			out, err := RenderDoc(fields, nil, []byte(body))
			if err != nil {
				t.Fatalf("render %q: %v", s, err)
			}
			d, err := ParseDoc("p.md", out)
			if err != nil {
				t.Fatalf("value %q: written file does not parse: %v\n%s", s, err, out)
			}
			want := map[string]any{"title": s, "summary": s, "tags": []any{s, "x"}, "extra": map[string]any{"k": s, "n": 1}}
			if !jsonEqual(d.Meta, want) {
				t.Errorf("value %q did not round-trip:\n got %#v\nfile:\n%s", s, d.Meta, out)
			}
			if string(d.Body) != body {
				t.Errorf("value %q: body %q, want %q", s, d.Body, body)
			}
			// Re-render keeping every key: the bytes are stable.
			again, err := RenderDoc(nil, d, d.Body)
			if err != nil || string(again) != string(out) {
				t.Errorf("value %q: re-render changed the file:\n%s\n---- vs\n%s", s, out, again)
			}
		}
	}
	// Unknown keys, comments and quoting of kept keys stay byte for byte.
	old := "---\n# about this page\ntitle: Old\ncustom: 'kept as is'   # comment\nnested:\n  a: [1, 2]\n---\nbody\n"
	d, err := ParseDoc("p.md", []byte(old))
	if err != nil {
		t.Fatal(err)
	}
	out, err := RenderDoc([]Field{{"title", "New"}}, d, []byte("new body\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntitle: New\ncustom: 'kept as is'   # comment\nnested:\n  a: [1, 2]\n---\nnew body\n"
	if string(out) != want {
		t.Errorf("kept keys:\n%s\nwant:\n%s", out, want)
	}
	// TOML and JSON frontmatter are re-encoded as YAML, in one block.
	for _, src := range []string{"+++\ntitle = \"T\"\nn = 2\n+++\nbody\n", "{\"title\": \"T\", \"n\": 2}\nbody\n"} {
		d, err := ParseDoc("p.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out, err := RenderDoc([]Field{{"summary", "S"}}, d, d.Body)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != "---\nsummary: S\nn: 2\ntitle: T\n---\nbody\n" {
			t.Errorf("from %q:\n%s", src, out)
		}
	}
	wikitest.Cases(t, "frontmatter", n+3)
}

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
		d, err := ParseDoc(rel, []byte(got))
		if err != nil || d.Meta["title"] != "T "+slug || string(d.Body) != string(WithLineEnds([]byte("new body\n---\nafter a rule\n"), crlf)) {
			t.Errorf("%s: reads back %+v %v", slug, d, err)
		}
		if slug != "none" && MetaString(d.Meta, "custom") != "1" {
			t.Errorf("%s: unknown key lost:\n%s", slug, got)
		}
		if w.Snapshot == "" || readFile(t, dir, w.Snapshot) != src {
			t.Errorf("%s: old version not snapshotted byte for byte", slug)
		}
	}
	wikitest.Cases(t, "frontmatter", n)
}
