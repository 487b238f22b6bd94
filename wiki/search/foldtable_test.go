package search

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// foldFast returns what the fold table makes of s, and whether it could.
func foldFast(s string) (string, bool) {
	b, ok := appendFoldFast(nil, s)
	return string(b), ok
}

// checkFold fails t when the fold table folds s otherwise than foldSlow.
func checkFold(t testing.TB, s string) bool {
	t.Helper()
	got, ok := foldFast(s)
	if !ok {
		return false
	}
	if want := foldSlow(s); got != want {
		t.Errorf("fold table: %q (%+q) → %+q, foldSlow → %+q", s, s, got, want)
	}
	return true
}

// foldContexts are runes put before and after each rune of the table by
// TestFoldTablePairs: bases whose marks are dropped or kept, marks of
// several classes (some compose, some do not), starters that combine
// backwards, Hangul, runes that NFKC or case folding expand.
var foldContexts = []string{
	"a", "Z", " ", "-", "é", "Å", "ø", "ß", "İ", "ı", "Σ", "ς", "е", "ё", "й", "ك", "ש", "ก", "ำ", "ั", "่", "ุ",
	"ี", "ໍ", "ໍ", "ຳ", "ក", "្", "ា", "ঁ", "ক", "়", "া", "ে", "ৗ", "्", "ि", "க", "ொ", "ௗ", "ം", "ൊ", "ൗ",
	"\u0300", "\u0301", "\u0308", "\u0323", "\u0327", "\u0345", "\u034f", "\u0e4d", "\u0f71", "\u0f72", "\u05b4",
	"\u0651", "\u064e", "\u3099", "\u309a", "か", "ｶ", "ﾞ", "가", "각", "\u1100", "\u1161", "\u11a8", "ㄱ", "ㅏ",
	"ெ", "ா", "െ", "ാ", "ဥ", "ီ", "ෙ", "ා", "ෟ", "ୋ", "େ", "ା", "ﬁ", "Ⅻ", "①", "㎏", "ǅ", "ᾳ", "ῼ", "\u1e9b", "\u0958", "\ufb1d", "\u2126", "\u212b", "\ufffd", "\U0001d15e",
}

var foldPairsAll = flag.Bool("fold.pairs", false, "TestFoldTablePairs: put every rune of the fold table next to each context (else only those whose fold is not the rune itself, and every 16th)")

// Every rune of the basic plane that the fold table folds, alone and next
// to each of foldContexts, folds as foldSlow folds it. Without -fold.pairs,
// only the runes that folding changes (or that are marks) and every 16th
// other rune are put next to the contexts.
func TestFoldTablePairs(t *testing.T) {
	runes, table, paired := 0, 0, 0
	for r := rune(0x80); r < 0x10000; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		runes++
		s := string(r)
		if !checkFold(t, s) {
			continue
		}
		table++
		if e := foldEntryOf(r); !*foldPairsAll && r%16 != 0 && e.kind == foldStarter && !e.lead && e.drop == s && e.tail == 0 {
			continue
		}
		paired++
		for _, c := range foldContexts {
			checkFold(t, c+s)
			checkFold(t, s+c)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d of %d runes of the basic plane are in the fold table, %d of them tried next to %d others", table, runes, paired, len(foldContexts))
	// The fast path's ASCII is the table's.
	for c := rune(0); c < utf8.RuneSelf; c++ {
		e := computeFoldEntry(c)
		if e.kind != foldStarter || e.drop != strings.ToLower(string(c)) || e.after != afterDrop || e.tail != 0 || e.ns != 0 || !e.ends || e.join || e.lead {
			t.Errorf("%q: table entry %+v, the fast path lower-cases it", c, e)
		}
	}
}

// Hand-picked words: the fold table folds them as foldSlow does, and folds
// those it should (a word of a script with marks is not sent to foldSlow).
func TestFoldTableWords(t *testing.T) {
	tests := []struct {
		word string
		fast bool // the table folds it
	}{
		{"Café", true}, {"Übersicht", true}, {"Straße", true}, {"ØRESUND", true}, {"Tiếng Việt", true},
		{"Заметки", true}, {"ёлка", true}, {"Ελληνικά", true}, {"ΣΊΣΥΦΟΣ", true}, {"עִברִית", true},
		{"العربية", true}, {"فارسی", true}, {"ภาษาไทย", true}, {"จำ", true}, {"ทำให้", true}, {"น้ำ", true},
		{"ភាសាខ្មែរ", true}, {"বাংলা", true}, {"কো", true}, {"हिन्दी", true}, {"日本語のノート", true}, {"ｶﾀｶﾅ", true}, {"ｶﾞ", false},
		{"한국어", true}, {"ﬁle", true}, {"①②", true}, {"İstanbul", true}, {"e\u0301", false}, {"\u1100\u1161", false},
		{"গৌ", true}, {"ো", true}, {"ক\u09c7\u09be", false}, {"\u0e48\u0e38", false}, {"\u0e38\u0e48", true},
		{"a" + strings.Repeat("\u0e48", 40), false}, {"x\xff", false},
	}
	for _, tc := range tests {
		ok := checkFold(t, tc.word)
		if ok != tc.fast {
			t.Errorf("%q: folded by the table %v, want %v", tc.word, ok, tc.fast)
		}
		if got, want := fold(tc.word), foldSlow(tc.word); got != want {
			t.Errorf("fold(%q) = %q, foldSlow %q", tc.word, got, want)
		}
	}
}

// The fold table folds every word of the corpora as foldSlow does: the
// text of every token the analysis makes, and every word between spaces
// (what lineFilter folds), of the Obsidian Help vault in all its languages
// and of every tenth tldr page of each language.
func TestFoldTableCorpus(t *testing.T) {
	words := map[string]bool{}
	collect := func(text string) {
		analyze(text, func(tk token) {
			w := text[tk.start:tk.end]
			if !isASCII(w) {
				words[w] = true
			}
		})
		for _, w := range strings.Fields(text) {
			if !isASCII(w) {
				words[w] = true
			}
		}
	}
	for _, c := range []struct {
		dir   string
		every int
	}{{"obsidian-help", 1}, {"tldr", 10}} {
		root := wikitest.Corpus(t, c.dir)
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			n++
			if n%c.every != 0 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			collect(string(data))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fast := 0
	for w := range words {
		if checkFold(t, w) {
			fast++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d distinct words that are not ASCII, %d folded by the table (%.1f%%)", len(words), fast, 100*float64(fast)/float64(len(words)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FuzzFold: whatever the fold table folds, it folds as foldSlow does; fold
// answers foldSlow's answer either way. (And appendLower, cachedStem's key,
// is strings.ToLower.)
func FuzzFold(f *testing.F) {
	for _, s := range foldContexts {
		f.Add(s)
	}
	for _, s := range []string{"Café", "จำ", "น้ำ", "ภาษาไทย", "ভাষা", "ক\u09c7\u09be", "한국어", "e\u0301\u0323", "\u0e38\u0e48", "ΣΊΣΥΦΟΣ", "x\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendLower(nil, s)), strings.ToLower(s); got != want {
			t.Errorf("appendLower(%+q) = %+q, strings.ToLower %+q", s, got, want)
		}
		checkFold(t, s)
		if got, want := fold(s), foldSlow(s); got != want {
			t.Errorf("fold(%+q) = %+q, foldSlow %+q", s, got, want)
		}
	})
}

// appendLower appends what strings.ToLower returns.
func TestAppendLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC", "Café", "ÉCOLE", "İstanbul", "ΣΊΣΥΦΟΣ", "Ǆ", "x\xffY", "\xc3", "Ａｂ", "ẞ", "日本語", "KELVIN \u212a"} {
		if got, want := string(appendLower([]byte("k\x00"), s)), "k\x00"+strings.ToLower(s); got != want {
			t.Errorf("appendLower(%+q) = %+q, want %+q", s, got, want)
		}
	}
}
