package shingle

import (
	"math/bits"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// refEachToken and refEach are the first, plain implementation of the
// tokens and shingles (a callback per token, the unicode tables searched
// per rune); the table-driven one must give the same hashes.
func refEachToken(text []byte, fn func(uint64)) {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	in := false
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(text[i:])
		}
		i += n
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r < utf8.RuneSelf:
			r = -1
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan):
			if in {
				fn(h)
				in = false
			}
			fn(mix64(uint64(r)))
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			r = unicode.ToLower(r)
		default:
			r = -1
		}
		if r < 0 {
			if in {
				fn(h)
				in = false
			}
			continue
		}
		if !in {
			h, in = offset, true
		}
		h = (h ^ uint64(r)) * prime
	}
	if in {
		fn(h)
	}
}

func refEach(text []byte, fn func(uint64)) {
	var ring [Size]uint64
	n := 0
	refEachToken(text, func(t uint64) {
		ring[n%Size] = t
		n++
		if n < Size {
			return
		}
		h := uint64(0)
		for j := 0; j < Size; j++ {
			h = bits.RotateLeft64(h, 17) ^ ring[(n+j)%Size]
			h *= 0x9e3779b97f4a7c15
		}
		fn(mix64(h))
	})
}

func refOf(text []byte) Sketch {
	var s Sketch
	var m [SketchLen]uint64
	for i := range m {
		m[i] = ^uint64(0)
	}
	refEach(text, func(h uint64) {
		s.Shingles++
		for i := range m {
			v := (h ^ seeds[i]) * 0x9e3779b97f4a7c15
			v ^= v >> 29
			if v < m[i] {
				m[i] = v
			}
		}
	})
	for i, v := range m {
		s.Min[i] = uint32(v >> 32)
	}
	return s
}

func refSet(text []byte) []uint64 {
	var out []uint64
	refEach(text, func(h uint64) { out = append(out, h) })
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	w := 0
	for i, h := range out {
		if i == 0 || h != out[w-1] {
			out[w] = h
			w++
		}
	}
	return out[:w]
}

func checkSame(t *testing.T, name string, text []byte) {
	t.Helper()
	var got, want []uint64
	eachToken(text, func(h uint64) { got = append(got, h) })
	refEachToken(text, func(h uint64) { want = append(want, h) })
	if !equal(got, want) {
		t.Fatalf("%s: tokens differ: %d vs %d hashes (text %q)", name, len(got), len(want), clip(text))
	}
	got, want = got[:0], want[:0]
	Each(text, func(h uint64) { got = append(got, h) })
	refEach(text, func(h uint64) { want = append(want, h) })
	if !equal(got, want) {
		t.Fatalf("%s: shingles differ (text %q)", name, clip(text))
	}
	if Of(text) != refOf(text) {
		t.Fatalf("%s: sketches differ (text %q)", name, clip(text))
	}
	if !equal(Set(text), refSet(text)) {
		t.Fatalf("%s: sets differ (text %q)", name, clip(text))
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func clip(b []byte) []byte { return b[:min(len(b), 80)] }

func TestMatchesReference(t *testing.T) {
	// Mixed scripts, case, combining marks, astral runes, invalid bytes.
	pool := []string{"a", "Z", "7", " ", "\n", "-", "_", "é", "É", "ß", "ǅ", "İ", "Ω", "ж", "Ж", "ק", "ع", "ह", "\u0301", "\u093f",
		"日", "本", "の", "カ", "ก", "ລ", "ក", "က", "ཀ", "한", "글", "𝔘", "𠀋", "😀", "\u00a0", "\u3000", "\xff", "\xe2\x82", "\ufffd", "’", "1️⃣"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := r.Intn(60); n > 0; n-- {
			b.WriteString(pool[r.Intn(len(pool))])
			if r.Intn(3) == 0 {
				b.WriteString(" word ")
			}
		}
		checkSame(t, "random", []byte(b.String()))
	}
	// Every rune of the Basic Multilingual Plane, and a few beyond it.
	var b strings.Builder
	for c := rune(0); c < 0x10000; c++ {
		if c >= 0xD800 && c < 0xE000 {
			continue
		}
		b.WriteRune(c)
		b.WriteString("x ")
	}
	for _, c := range []rune{0x10400, 0x1D400, 0x20000, 0x1F600, 0xE0001} {
		b.WriteRune(c)
		b.WriteString(" ")
	}
	checkSame(t, "all runes", []byte(b.String()))
}

// TestMatchesReferenceCorpus compares the two on real pages in many
// languages.
func TestMatchesReferenceCorpus(t *testing.T) {
	n := 0
	for _, rel := range []string{"obsidian-help", "tldr/pages.zh", "tldr/pages.ko", "tldr/pages.ru"} {
		dir := wikitest.Corpus(t, rel)
		k := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || k >= 400 {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil {
				k++
				checkSame(t, p, data)
			}
			return nil
		})
		n += k
	}
	t.Logf("%d corpus files compared", n)
}

func FuzzMatchesReference(f *testing.F) {
	f.Add([]byte("The quick brown fox jumps over the lazy dog"))
	f.Add([]byte("日本語のテキストです and Ελληνικά κείμενα"))
	f.Add([]byte("\xff\xfe a\u0301b ǅ İ 𝔘𝔫𝔦"))
	f.Fuzz(func(t *testing.T, text []byte) { checkSame(t, "fuzz", text) })
}
