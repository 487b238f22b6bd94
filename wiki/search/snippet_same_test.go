package search

import (
	"flag"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/llmwiki/llmwiki/wiki"
)

var snippetsSameEvery = flag.Int("snippets.same.every", 12, "TestSnippetsSameAsBefore: try every n-th page (1: all)")

// snippetsSameCorpora are the folders of ../shared/corpora that
// TestSnippetsSameAsBefore reads: Obsidian Help in its 35 languages and
// tldr in scripts Obsidian Help lacks or writes otherwise.
var snippetsSameCorpora = []string{
	"obsidian-help", "tldr/pages/common", "tldr/pages.th", "tldr/pages.bn", "tldr/pages.hi", "tldr/pages.ta",
	"tldr/pages.ml", "tldr/pages.lo", "tldr/pages.ko", "tldr/pages.zh", "tldr/pages.ru", "tldr/pages.ar",
}

// TestSnippetsSameAsBefore: the snippet, heading, line and listing of a
// hit are the same with the fold table as without it, for queries like
// dev/load's (words of file names) and words of the page, over
// every 12th page (-snippets.same.every) of the corpora. The reference is
// the same code with the switch that turns the fold table off
// (foldTableOff), and on one page in four the whole text analysed without
// the line filter too (noLineFilter). Each hit is also asked a second
// time, which the snippet cache answers from the file's analysed tokens.
func TestSnippetsSameAsBefore(t *testing.T) {
	root := corpusWiki(t, filepath.Join(t.TempDir(), "w"), snippetsSameCorpora...)
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	x := Open(st, Options{})
	var files []string
	byDir := map[string][]string{} // title words by folder
	filepath.WalkDir(filepath.Join(root, "pages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		files = append(files, rel)
		dir := filepath.Dir(rel)
		byDir[dir] = append(byDir[dir], titleWordsOf(rel)...)
		return nil
	})
	sort.Strings(files)
	defer func() { foldTableOff, noLineFilter, noSnippetCache = false, false, false }()
	fill := func(rel, lang, q string, ref, whole bool) Hit {
		foldTableOff, noLineFilter = ref, whole
		noSnippetCache = ref || whole // the reference reads the file each time
		groups, _, codeAsk, _ := x.readQuery(Query{Text: q, Match: MatchBest})
		h := Hit{Path: rel, Lang: lang}
		x.fillSnippet(&h, groups, codeAsk)
		return h
	}
	rng := rand.New(rand.NewSource(1))
	hits, wholes, matched := 0, 0, 0
	for i, rel := range files {
		if i%*snippetsSameEvery != 0 {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		lang := pageLang(rel, parseFile(rel, data), DefaultLang)
		var qs []string
		own := titleWordsOf(rel)
		if len(own) > 0 {
			qs = append(qs, strings.Join(own[:min(2, len(own))], " "))
		}
		if ws := byDir[filepath.Dir(rel)]; len(ws) > 0 {
			q := ws[rng.Intn(len(ws))]
			if rng.Intn(2) == 0 {
				q += " " + ws[rng.Intn(len(ws))]
			}
			qs = append(qs, q, "example code "+q)
		}
		if words := strings.Fields(string(data)); len(words) > 8 {
			k := rng.Intn(len(words) - 4)
			qs = append(qs, strings.Join(words[k:k+1+rng.Intn(3)], " "))
		}
		for _, q := range qs {
			if !strings.ContainsFunc(q, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
				continue
			}
			got := fill(rel, lang, q, false, false)
			// The same hit again: from the snippet cache's tokens.
			if again := fill(rel, lang, q, false, false); again != got {
				t.Errorf("%s, query %q:\n  cached: %q (%q, line %d, listing %d bytes)\n  read:   %q (%q, line %d, listing %d bytes)", rel, q,
					again.Snippet, again.Heading, again.Line, len(again.Listing), got.Snippet, got.Heading, got.Line, len(got.Listing))
			}
			want := fill(rel, lang, q, true, false)
			hits++
			if got.Line > 0 {
				matched++
			}
			if got != want {
				t.Errorf("%s, query %q:\n  now:    %q (%q, line %d, listing %d bytes)\n  before: %q (%q, line %d, listing %d bytes)", rel, q,
					got.Snippet, got.Heading, got.Line, len(got.Listing), want.Snippet, want.Heading, want.Line, len(want.Listing))
			}
			if (i / *snippetsSameEvery % 4) == 0 {
				wholes++
				if whole := fill(rel, lang, q, true, true); got != whole {
					t.Errorf("%s, query %q:\n  now:   %q (%q, line %d)\n  whole: %q (%q, line %d)", rel, q,
						got.Snippet, got.Heading, got.Line, whole.Snippet, whole.Heading, whole.Line)
				}
			}
			if t.Failed() && hits > 20 {
				t.FailNow()
			}
		}
	}
	t.Logf("%d hits compared (%d with a match, %d also with the whole text analysed) on %d of %d pages", hits, matched, wholes, (len(files)+*snippetsSameEvery-1) / *snippetsSameEvery, len(files))
}

// titleWordsOf returns the words of four letters or more of a file's name,
// as dev/load picks its search words.
func titleWordsOf(rel string) []string {
	name := strings.TrimSuffix(filepath.Base(rel), ".md")
	var out []string
	for _, f := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '(' || r == ')' }) {
		if len([]rune(f)) >= 4 {
			out = append(out, f)
		}
	}
	return out
}
