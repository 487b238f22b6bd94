package search

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// checkProse fails t when a prose block of src is not its lines, each
// without its "\r\n" and with a "\n" (what scanMarkdown built for every
// paragraph before it took the text from src when that is the same).
func checkProse(t *testing.T, name, src string) {
	t.Helper()
	scanMarkdown(src, func(b block) {
		if b.kind != blockProse {
			return
		}
		var want strings.Builder
		for off := b.start; off < b.end; {
			next := b.end
			if k := strings.IndexByte(src[off:b.end], '\n'); k >= 0 {
				next = off + k + 1
			}
			want.WriteString(strings.TrimRight(src[off:next], "\r\n"))
			want.WriteByte('\n')
			off = next
		}
		if b.text != want.String() {
			t.Errorf("%s: prose %d-%d is %q, want %q", name, b.start, b.end, b.text, want.String())
		}
	})
}

// The text of a prose paragraph is its lines without their line ends,
// each with "\n": for LF, CRLF and mixed line ends, a last line without
// one, and the pages of the Obsidian Help vault (in English and Thai)
// with LF and with CRLF.
func TestScanMarkdownProse(t *testing.T) {
	for _, src := range []string{
		"", "one line", "one line\n", "a\nb\n\nc", "a\r\nb\r\n\r\nc\r\n", "a\nb\r\nc\n", "a\r\r\nb", "# h\npara\n```\ncode\n```\nmore\nlines",
		"x\n\n\n", "> quoted\n> more\n", "para\n`code line`\nafter\r\n",
	} {
		checkProse(t, src, src)
	}
	for _, lang := range []string{"en", "th"} {
		dir := wikitest.Corpus(t, "obsidian-help/"+lang)
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkProse(t, p, string(data))
			checkProse(t, p+" (CRLF)", strings.ReplaceAll(string(data), "\n", "\r\n"))
			return nil
		})
	}
}

// BenchmarkScanMarkdown cuts every English tldr page and every English
// Obsidian Help page into blocks, as the index does for each page it builds.
func BenchmarkScanMarkdown(b *testing.B) {
	pages, size := wikitest.CorpusPages(b, "tldr/pages", "obsidian-help/en")
	b.SetBytes(int64(size))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, p := range pages {
			scanMarkdown(p, func(block) { n++ })
		}
	}
}

// Headings and fences follow the one markdown scanner (wiki/mdoc): a
// closing "#" run is dropped but "C#" keeps its "#", a fence line with an
// info string inside a block does not close it, and fences and headings in
// a block quote count.
func TestScanMarkdownHeadings(t *testing.T) {
	src := "# C#\n## Setup ##\n```\n```bash\n# comment\n```\n> ~~~\n> # quoted code\n> ~~~\n> ## Quoted\n"
	var got []string
	scanMarkdown(src, func(b block) {
		switch b.kind {
		case blockHeading:
			got = append(got, "h"+strconv.Itoa(b.level)+":"+b.text)
		case blockCode:
			got = append(got, "code:"+b.text)
		}
	})
	want := []string{"h1:C#", "h2:Setup", "code:```bash\n# comment\n", "code:> # quoted code\n", "h2:Quoted"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("blocks %q, want %q", got, want)
	}
}
