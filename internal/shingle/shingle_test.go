package shingle

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	// Case and punctuation do not matter; word order does.
	a := Set([]byte("The quick brown fox jumps over the lazy dog."))
	b := Set([]byte("the QUICK brown fox -- jumps over the lazy dog"))
	if len(a) != 5 || Jaccard(a, b) != 1 {
		t.Errorf("len %d, J %v", len(a), Jaccard(a, b))
	}
	if c := Set([]byte("dog lazy the over jumps fox brown quick the")); Jaccard(a, c) != 0 {
		t.Errorf("reversed words share shingles")
	}
	// Scripts without spaces: every character is a token.
	if n := len(Set([]byte("日本語のテキストです"))); n != 6 {
		t.Errorf("CJK shingles = %d, want 6 (10 characters)", n)
	}
	if n := len(Set([]byte("Ελληνικά κείμενα με λέξεις και άλλα"))); n != 2 {
		t.Errorf("Greek shingles = %d, want 2", n)
	}
	if len(Set(nil)) != 0 || Jaccard(nil, nil) != 0 {
		t.Error("empty text")
	}
}

// TestSetSized: the size given changes nothing but the room allocated.
func TestSetSized(t *testing.T) {
	text := []byte("one two three four five six one two three four five six seven")
	want := Set(text) // 9 shingles, 7 distinct
	sk := Of(text)
	if len(want) != 7 || sk.Shingles != 9 {
		t.Fatalf("len(Set) = %d, Shingles = %d; want 7, 9", len(want), sk.Shingles)
	}
	for _, n := range []int{0, 1, 7, sk.Shingles, 100} {
		got := SetSized(text, n)
		if !slices.Equal(got, want) {
			t.Errorf("SetSized(text, %d) = %v, want %v", n, got, want)
		}
		if n >= sk.Shingles && cap(got) != n {
			t.Errorf("SetSized(text, %d): cap %d, want %d (one allocation)", n, cap(got), n)
		}
	}
	if got := SetSized(nil, 8); len(got) != 0 {
		t.Errorf("SetSized(nil, 8) = %v", got)
	}
}

func words(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", r.Intn(100000))
	}
	return out
}

// TestSketch: the sketch estimates Jaccard within a few standard errors,
// and pairs at 0.8 share a band.
func TestSketch(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, keep := range []float64{1, 0.9, 0.7, 0.4, 0.1} {
		base := words(r, 600)
		other := append([]string(nil), base...)
		for i := range other {
			if r.Float64() > keep {
				other[i] = fmt.Sprintf("x%d", r.Intn(100000))
			}
		}
		ta, tb := []byte(strings.Join(base, " ")), []byte(strings.Join(other, " "))
		j := Jaccard(Set(ta), Set(tb))
		sa, sb := Of(ta), Of(tb)
		if est := sa.Similarity(&sb); math.Abs(est-j) > 4*math.Sqrt(j*(1-j)/SketchLen)+0.01 {
			t.Errorf("keep %.1f: J %.3f, estimate %.3f", keep, j, est)
		}
		if sa.Shingles != 596 {
			t.Errorf("shingles %d", sa.Shingles)
		}
		shared := false
		ka, kb := sa.Bands(), sb.Bands()
		for i := range ka {
			shared = shared || ka[i] == kb[i]
		}
		if j >= 0.8 && !shared {
			t.Errorf("J %.2f but no band shared", j)
		}
	}
}

// BenchmarkSet: a page of 2,000 words, its set grown (Set) or sized by its
// sketch's count (SetSized, as lint's merge check does).
func BenchmarkSet(b *testing.B) {
	text := []byte(strings.Join(words(rand.New(rand.NewSource(1)), 2000), " "))
	n := Of(text).Shingles
	b.Run("grown", func(b *testing.B) {
		for b.Loop() {
			Set(text)
		}
	})
	b.Run("sized", func(b *testing.B) {
		for b.Loop() {
			SetSized(text, n)
		}
	})
}
