package search

import (
	"math/rand"
	"reflect"
	"testing"
)

// mnemonics finds exactly what the mnemonic expression finds.
func TestMnemonicsMatchesRegexp(t *testing.T) {
	cases := []string{
		"[c]reate", "g[z]ipped", "e[x]tract", "a[b]cd[e]f", "ab[cdef]g[h]", "[abc]", "[abcd]x", "x[]y",
		"[[a]]", "é[ç]à", "日[本]語", "word [link](url) [x]", "a[b]", "[a]b[c]d", "a[b", "[", "]", "",
		"Te[x]t [t]o [s]peech", "x1[a]b", "[a]1b", "aaa[b]ccc]d", "ab[c]\u0301d",
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "b", "[", "]", " ", "1", "é", "日", "\u0301", "-", "Z", "\xff", "\xc3"}
	for i := 0; i < 20000; i++ {
		n := rng.Intn(14)
		s := ""
		for k := 0; k < n; k++ {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		want := mnemonic().FindAllStringIndex(s, -1)
		got := mnemonics(s)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %v, want %v", s, got, want)
		}
	}
}

// A query whose letters are as many Latin as Han is Chinese, every time
// (the choice once followed map order, so one query ranked two ways).
func TestLangFromTextTies(t *testing.T) {
	for i := 0; i < 50; i++ {
		if got := langFromText("run` 的別名。", 1); got != "zh" {
			t.Fatalf("run 的別名: %q, want zh", got)
		}
		if got := langFromText("שלום миро", 1); got != "he" {
			t.Fatalf("a tie of Hebrew and Cyrillic: %q, want he (the first code)", got)
		}
	}
}
