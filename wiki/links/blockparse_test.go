package links

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/yuin/goldmark/parser"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// parseBodyWith is parseBody with a given parser, to compare the
// block-only fast path with the full parser.
func parseBodyWith(p parser.Parser, data []byte) *Page {
	saved := blockParser
	defer func() { blockParser = saved }()
	blockParser = p
	return Parse("pages/x.md", data)
}

func sameParse(t *testing.T, name string, data []byte) {
	t.Helper()
	if bytes.IndexByte(data, '[') >= 0 {
		t.Fatalf("%s has a [", name)
	}
	fast := parseBodyWith(blockParser, data)
	full := parseBodyWith(mdParser, data)
	if !reflect.DeepEqual(fast, full) {
		t.Fatalf("%s: the block-only parse differs:\nfast %+v\nfull %+v", name, fast, full)
	}
}

// TestBlockParserSame checks that a body without "[" parses to the same
// headings, block ids and lines with or without inline parsers.
func TestBlockParserSame(t *testing.T) {
	for i, src := range []string{
		"# Title\n\nText ^abc\n\nSetext\n===\n\n> quote\n> ## in quote\n\n- item ^li-1\n  # heading in list\n",
		"```\n# not a heading\n```\n\n    # indented code\n\n<div>\n# html\n</div>\n\nA *b* `c` <http://x> ^id\n",
		"---\ntitle: x\n---\n# H with `code` and **bold**\n\nline\n---\n\nTerm\n-\n\n#Not heading\n\n##\n\n  ###   spaced   ###  \n",
		"# tldr\n\n> Summary.\n> More information: <https://example.com>.\n\n- Do it:\n\n`cmd {{-x|--long}} {{path/to/file}}`\n",
		"text with ^ caret and !not an image] only ! and ]\n\n]] ]( ) ^x\n",
	} {
		sameParse(t, "case "+string(rune('a'+i)), []byte(src))
	}
}

func TestBlockParserSameCorpus(t *testing.T) {
	n := 0
	for _, rel := range []string{"tldr/pages/common", "tldr/pages.de/common", "tldr/pages.zh/linux", "obsidian-help"} {
		dir := wikitest.Corpus(t, rel)
		k := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || k >= 600 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || bytes.IndexByte(data, '[') >= 0 {
				return nil
			}
			k++
			sameParse(t, p, data)
			return nil
		})
		n += k
	}
	if n < 500 {
		t.Fatalf("only %d pages without [ compared", n)
	}
	t.Logf("%d pages without [ compared", n)
}
