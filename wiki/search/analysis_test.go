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
