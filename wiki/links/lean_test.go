package links

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// sameLean fails unless parseLean gives what Parse gives for data, field
// by field (links with their offsets and labels, headings, block ids,
// aliases, keys, lines, catalogue entry, sketch).
func sameLean(t *testing.T, name, rel string, data []byte) {
	t.Helper()
	full, lean := Parse(rel, data), parseLean(rel, data)
	if !reflect.DeepEqual(full, lean) {
		t.Fatalf("%s: the lean parse differs:\nfull %+v\nlean %+v", name, full, lean)
	}
}

// TestParseLeanSame checks that parseLean finds what Parse finds where
// blocks with and without "[" sit side by side: in lists, quotes, setext
// and ATX headings, footnotes, after reference definitions, in code.
func TestParseLeanSame(t *testing.T) {
	for name, src := range map[string]string{
		"mixed":      "# Title\n\nText ^abc\n\nSee [[b]] and [c](c.md#H).\n\nSetext\n===\n\n> quote\n> ## in [[quote]]\n\n- item ^li-1\n- [[x|y]] ^li-2\n  # heading in list\n",
		"code":       "```\n[[not]]\n```\n\n    [[indented]]\n\n<div>\n[[html]]\n</div>\n\nA *b* `c` <http://x> ^id\n\n`[[span]]` [[yes]]\n",
		"front":      "---\ntitle: x\nrelated: \"[[r]]\"\naliases: [a, b]\n---\n# H with `code` and **bold**\n\nline\n---\n\n[t](#H)\n",
		"tldr":       "# tar\n\n> Archiving utility.\n> More information: <https://www.gnu.org/software/tar>.\n\n- [c]reate an archive:\n\n`tar {{[-c|--create]}} {{[-f|--file]}} {{path/to/target.tar}}`\n\n- Plain:\n\n`tar xf {{source.tar}}`\n",
		"refs":       "[x][ref] and [ref]\n\nplain text\n\n[ref]: q.md#Top \"title\"\n\n![img][ref] ![[e.png]]^blk\n",
		"footnote":   "Text[^1] more.\n\n[^1]: Note with [[link]].\n    Continued ^fn\n\nplain ^p\n",
		"setext":     "Heading [[a]]\n---\n\nPlain heading\n===\n\npara\n[[b]]\n",
		"emphasis":   "*a [[b]] c* **d** _e_\n\n*open\n\n[unclosed\n\nclosed]\n",
		"escapes":    "\\[[not]] \\[x](y.md)\n\nline with \\\\\nhard break [[z]]\n\ntrailing  \nspaces\n",
		"tabs":       "\t- item\n\t  [[tabbed]]\n\n>\t[[q]]\n\n  \t   lazy\ncontinuation [[c]]\n",
		"html":       "<a href=\"x.md\">[[in html]]</a>\n\ntext <b>[[bold]]</b>\n",
		"empty":      "",
		"no newline": "[[a]]",
		"headings":   "#\n\n##   \n\n# [[x]] #\n\n### a ^b ###\n",
		"crlf":       "# T\r\n\r\nSee [[a]]\r\nplain ^x\r\n\r\n- one\r\n- [b](b.md)\r\n",
		"unicode":    "# Ünïcode\n\n— «[[Straße]]» —\n\n日本語 ^ab\n",
		"bom":        "\ufeff---\ntitle: t\n---\n[[x]]\n",
	} {
		for _, rel := range []string{"pages/x.md", "index.md", "sources/x.md"} {
			sameLean(t, name+" "+rel, rel, []byte(src))
		}
	}
}

// TestParseLeanSameCorpus compares parseLean with Parse page by page over
// every markdown file of the shared corpora (tldr in all its languages and
// the Obsidian help), read as pages.
func TestParseLeanSameCorpus(t *testing.T) {
	n := 0
	for _, rel := range []string{"tldr", "obsidian-help"} {
		filepath.WalkDir(wikitest.Corpus(t, rel), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			n++
			sameLean(t, p, "pages/x.md", data)
			return nil
		})
	}
	if n < 40000 {
		t.Fatalf("only %d pages compared", n)
	}
	t.Logf("%d pages compared", n)
}
