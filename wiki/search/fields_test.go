package search

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// joinedDoc is the oracle for textFields: the text fields as combined
// strings, which the mapping's analyzers (textAnalyzer, termsAnalyzer)
// analyse whole.
func joinedDoc(rel string, data []byte, defLang string) indexDoc {
	fd, p := buildDoc(rel, data, defLang)
	d, lang := fd.meta, fd.meta.Lang
	var all []string
	rep := func(s string, n int) {
		for i := 0; i < n; i++ {
			all = append(all, s)
		}
	}
	rep(p.title, titleRepeat)
	for _, a := range p.aliases {
		rep(a, aliasRepeat)
	}
	for _, t := range p.tags {
		rep(t, aliasRepeat)
	}
	for _, h := range p.headings {
		rep(h, headingRepeat)
	}
	all = append(all, pathWords(rel), p.body)
	d.All = strings.Join(all, partSep)
	d.Title = strings.Join(append([]string{p.title}, p.aliases...), partSep)
	d.Code = strings.Join(p.code, partSep)
	if hasStemmer(lang) {
		var st []string
		stems := func(s string, n int) {
			for i := 0; i < n; i++ {
				st = appendStems(st, lang, s)
			}
		}
		stems(p.title, titleRepeat)
		for _, a := range p.aliases {
			stems(a, aliasRepeat)
		}
		for _, h := range p.headings {
			stems(h, headingRepeat)
		}
		for _, pr := range p.prose {
			stems(pr, 1)
		}
		d.Stem = strings.Join(st, " ")
		var ts []string
		for _, t := range append([]string{p.title}, p.aliases...) {
			ts = appendStems(ts, lang, t)
		}
		d.TStem = strings.Join(ts, " ")
	}
	return d
}

// appendStems appends the stem terms of the words of s in lang (the
// oracle's stem analysis, each string on its own).
func appendStems(dst []string, lang, s string) []string {
	analyze(s, func(t token) {
		if st := tokenStem(lang, s, t); st != "" {
			dst = append(dst, stemTerm(lang, st))
		}
	})
	return dst
}

// joinedLens is what the manifest records for the oracle's document.
func joinedLens(d indexDoc) fieldLens {
	count := func(terms string) int32 {
		if terms == "" {
			return 0
		}
		return int32(strings.Count(terms, " ") + 1)
	}
	return fieldLens{int32(approxTokens(d.All)), int32(approxTokens(d.Title)), int32(approxTokens(d.Code)), count(d.Stem), count(d.TStem)}
}

// sameFields reports how the document bleve gets from buildDoc differs
// from the oracle's ("" when it does not): every field's length and term
// frequencies, with each term's positions and byte offsets, and the
// lengths the manifest records.
func sameFields(rel string, data []byte) string {
	m := newMapping()
	fd, _ := buildDoc(rel, data, DefaultLang)
	got, err := fd.document(rel, m)
	if err != nil {
		return err.Error()
	}
	old := joinedDoc(rel, data, DefaultLang)
	want := document.NewDocument(rel)
	if err := m.MapDocument(want, old); err != nil {
		return err.Error()
	}
	if len(got.Fields) != len(want.Fields) {
		return fmt.Sprintf("%d fields, want %d", len(got.Fields), len(want.Fields))
	}
	for i, w := range want.Fields {
		g := got.Fields[i]
		if g.Name() != w.Name() || g.Options() != w.Options() {
			return fmt.Sprintf("field %d: %s %v, want %s %v", i, g.Name(), g.Options(), w.Name(), w.Options())
		}
		g.Analyze()
		w.Analyze()
		if g.AnalyzedLength() != w.AnalyzedLength() {
			return fmt.Sprintf("%s: length %d, want %d", w.Name(), g.AnalyzedLength(), w.AnalyzedLength())
		}
		if stem := w.Name() == "stem" || w.Name() == "tstem"; stem && g.NumPlainTextBytes() != 0 || !stem && g.NumPlainTextBytes() != w.NumPlainTextBytes() {
			return fmt.Sprintf("%s: %d plain bytes, want %d", w.Name(), g.NumPlainTextBytes(), w.NumPlainTextBytes())
		}
		if d := sameFreqs(g.AnalyzedTokenFrequencies(), w.AnalyzedTokenFrequencies()); d != "" {
			return w.Name() + ": " + d
		}
	}
	if g, w := fd.lens(), joinedLens(old); g != w {
		return fmt.Sprintf("lens %v, want %v", g, w)
	}
	return ""
}

func sameFreqs(got, want index.TokenFrequencies) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d terms, want %d", len(got), len(want))
	}
	for term, w := range want {
		g, ok := got[term]
		if !ok {
			return fmt.Sprintf("term %q missing", term)
		}
		if !bytes.Equal(g.Term, w.Term) || g.Frequency() != w.Frequency() || len(g.Locations) != len(w.Locations) {
			return fmt.Sprintf("term %q: %q ×%d at %d places, want %q ×%d at %d", term, g.Term, g.Frequency(), len(g.Locations), w.Term, w.Frequency(), len(w.Locations))
		}
		for i, wl := range w.Locations {
			gl := g.Locations[i]
			if gl.Start != wl.Start || gl.End != wl.End || gl.Position != wl.Position || len(gl.ArrayPositions) != len(wl.ArrayPositions) {
				return fmt.Sprintf("term %q, place %d: %+v, want %+v", term, i, *gl, *wl)
			}
		}
	}
	return ""
}

// TestTextFieldsSameAsJoined: analysing each part of a file once gives
// bleve the same fields as analysing the combined strings did.
func TestTextFieldsSameAsJoined(t *testing.T) {
	cases := map[string]string{
		"plain":       "# Title\n\nSome prose about running things.\n",
		"frontmatter": "---\ntitle: Cafés and Naïve\naliases: [Alias one, \"\"]\ntags: [#Go, Wiki]\nsummary: Summary words running\n---\n# Heading\n\nBody prose.\n",
		"description": "---\ndescription: Described things\nlang: de\n---\nLaufende Hunde und Katzen.\n",
		"crlf":        "# T\r\n\r\nline one\r\nline two\r\n\r\n```sh\r\necho running\r\n```\r\n",
		"fences":      "# tar\n\n> Archiving utility.\n\n- [c]reate an archive:\n\n`tar -cf {{target.tar}} {{file1}}`\n\n```bash info words\nls -la C# C++ dry-run\n```\n\n~~~\nunclosed dry-run\n",
		"quoted":      "> # Quoted heading\n> ```\n> code in quote\n> ```\n> prose in quote\n",
		"inline":      "  `C#`  \n\n`[x]tract`\n\n` spaced code `\n\nfoo-\nbar\n",
		"cjk":         "# 日本語のタイトル\n\n漢字とかなの文。한국어 문장입니다. ภาษาไทย\n\n`中文代码`\n",
		"sep":         "---\ntitle: a \uE000 b\n---\ntext \uE000 more\n",
		"headings":    "# One\n## Two words\n### Three ###\nprose\n#### C# guide\n",
		"identifiers": "getUserName os.path.join HTTPServer don't l'import 3d-printing POL-358\n",
		"empty":       "",
		"only-fm":     "---\ntitle: x\n---\n",
	}
	for name, text := range cases {
		for _, rel := range []string{"pages/" + name + ".md", "sources/" + name + ".txt"} {
			if d := sameFields(rel, []byte(text)); d != "" {
				t.Errorf("%s: %s", rel, d)
			}
		}
	}
}

// TestTextFieldsSameAsJoinedCorpora runs the same comparison over every
// page of the shared corpora (every 20th in -short).
func TestTextFieldsSameAsJoinedCorpora(t *testing.T) {
	every := 1
	if testing.Short() {
		every = 20
	}
	n, bad := 0, 0
	for _, c := range []string{"obsidian-help", "tldr"} {
		root := wikitest.Corpus(t, c)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			n++
			if n%every != 0 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = "pages/" + c + "/" + filepath.ToSlash(rel)
			if d := sameFields(rel, data); d != "" {
				if bad++; bad <= 10 {
					t.Errorf("%s: %s", rel, d)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if bad > 0 {
		t.Errorf("%d of the pages differ", bad)
	}
}

func FuzzTextFields(f *testing.F) {
	f.Add("# T\n\nprose\n\n```\ncode\n```\n")
	f.Add("---\ntitle: a\naliases: [b]\nsummary: s\n---\n`C#`\r\n> ~~~\n> x\n")
	f.Fuzz(func(t *testing.T, text string) {
		// What the index reads: decoded text (valid UTF-8), never binary.
		dec := mdoc.Decode([]byte(text))
		if dec.Binary {
			return
		}
		if d := sameFields("pages/f.md", dec.Text); d != "" {
			t.Fatalf("%q: %s", text, d)
		}
	})
}

// BenchmarkDocFields measures what a file costs before bleve's segment
// work: parsing, analysis and term frequencies of every field, for the
// tldr corpus, as indexed now ("parts") and with the combined strings
// analysed whole ("joined", the oracle):
//
//	LLMWIKI_SHARED=/work/shared go test ./wiki/search -run '^$' -bench '^BenchmarkDocFields$' -benchmem
func BenchmarkDocFields(b *testing.B) {
	root := wikitest.Corpus(b, "tldr")
	type file struct {
		rel  string
		data []byte
	}
	var files []file
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files = append(files, file{"pages/" + filepath.ToSlash(rel), data})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	m := newMapping()
	analyzeAll := func(doc *document.Document) {
		for _, f := range doc.Fields {
			if f.Options().IsIndexed() {
				f.Analyze()
			}
		}
	}
	b.Run("parts", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, f := range files {
				fd, _ := buildDoc(f.rel, f.data, DefaultLang)
				doc, _ := fd.document(f.rel, m)
				analyzeAll(doc)
				fd.lens()
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(files)), "µs/file")
	})
	b.Run("joined", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, f := range files {
				d := joinedDoc(f.rel, f.data, DefaultLang)
				doc := document.NewDocument(f.rel)
				m.MapDocument(doc, d)
				analyzeAll(doc)
				joinedLens(d)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(files)), "µs/file")
	})
}
