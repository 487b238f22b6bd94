package shingle

import (
	"math/bits"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Parameters.
const (
	// Size is the number of consecutive tokens in a shingle.
	Size = 5
	// SketchLen is the number of MinHash values in a [Sketch].
	SketchLen = 64
	// BandCount bands of BandRows values each make up a sketch.
	BandCount = 16
	BandRows  = SketchLen / BandCount
)

// seeds are fixed so sketches are reproducible (splitmix64 of 1..64).
var seeds = func() [SketchLen]uint64 {
	var s [SketchLen]uint64
	x := uint64(0x9e3779b97f4a7c15)
	for i := range s {
		x += 0x9e3779b97f4a7c15
		s[i] = mix64(x)
	}
	return s
}()

// mix64 is the splitmix64 finaliser: a fast, well-mixed 64-bit hash of x.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// noSpaceScript reports runes of scripts written without spaces between
// words: each is a token of its own.
func noSpaceScript(r rune) bool {
	// Every such script starts at or above U+0E00 (Thai).
	return r >= 0x0E00 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// The classes of a rune ([classOf]) other than a lower-cased word rune.
const (
	sep   = -1 // not part of a token
	alone = -2 // a token of its own (noSpaceScript)
)

// classOf returns what r is in a text: sep, alone, or (for a letter, digit
// or combining mark) its lower case.
func classOf(r rune) rune {
	switch {
	case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
		return r
	case r >= 'A' && r <= 'Z':
		return r + 'a' - 'A'
	case r < utf8.RuneSelf:
		return sep
	case noSpaceScript(r):
		return alone
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		return unicode.ToLower(r)
	}
	return sep
}

// bmpClass is classOf for every rune of the Basic Multilingual Plane,
// computed once: the unicode tables are searched per rune otherwise.
var bmpClass = sync.OnceValue(func() *[0x10000]int32 {
	var t [0x10000]int32
	for r := range t {
		t[r] = classOf(rune(r))
	}
	return &t
})

const fnvOffset, fnvPrime = 14695981039346656037, 1099511628211

// tokens yields the hash of each token of a text in turn.
type tokens struct {
	text []byte
	i    int
	bmp  *[0x10000]int32
}

func newTokens(text []byte) tokens { return tokens{text: text, bmp: bmpClass()} }

// next returns the hash of the next token; ok is false at the end.
func (t *tokens) next() (h uint64, ok bool) {
	h = fnvOffset
	in := false
	text := t.text
	for t.i < len(text) {
		c := text[t.i]
		if c < utf8.RuneSelf {
			t.i++
			var r byte
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				r = c
			case c >= 'A' && c <= 'Z':
				r = c + 'a' - 'A'
			default:
				if in {
					return h, true
				}
				continue
			}
			in = true
			h = (h ^ uint64(r)) * fnvPrime
			continue
		}
		r, n := utf8.DecodeRune(text[t.i:])
		var k rune
		if r < 0x10000 {
			k = t.bmp[r]
		} else {
			k = classOf(r)
		}
		if k == alone {
			if in {
				return h, true // the character is read again next time
			}
			t.i += n
			return mix64(uint64(r)), true
		}
		t.i += n
		if k == sep {
			if in {
				return h, true
			}
			continue
		}
		in = true
		h = (h ^ uint64(k)) * fnvPrime
	}
	return h, in
}

// eachToken calls fn with the hash of each token of text.
func eachToken(text []byte, fn func(uint64)) {
	t := newTokens(text)
	for {
		h, ok := t.next()
		if !ok {
			return
		}
		fn(h)
	}
}

// shingles yields the hash of each shingle (run of [Size] tokens) of a
// text in turn, with repeats.
type shingles struct {
	tok  tokens
	win  [Size]uint64 // the last Size tokens, oldest first
	seen int
}

// next returns the hash of the next shingle; ok is false at the end.
func (s *shingles) next() (uint64, bool) {
	for {
		t, ok := s.tok.next()
		if !ok {
			return 0, false
		}
		copy(s.win[:], s.win[1:])
		s.win[Size-1] = t
		if s.seen++; s.seen < Size {
			continue
		}
		h := uint64(0)
		for _, x := range s.win {
			h = bits.RotateLeft64(h, 17) ^ x
			h *= 0x9e3779b97f4a7c15
		}
		return mix64(h), true
	}
}

// Each calls fn with the hash of each shingle of text (with repeats), in
// order.
func Each(text []byte, fn func(uint64)) {
	s := shingles{tok: newTokens(text)}
	for {
		h, ok := s.next()
		if !ok {
			return
		}
		fn(h)
	}
}

// Set returns the sorted, distinct shingle hashes of text.
func Set(text []byte) []uint64 { return SetSized(text, 0) }

// SetSized is Set for a text of about n shingles with repeats (a
// [Sketch]'s Shingles): the hashes are collected in one allocation of that
// size rather than grown to it.
func SetSized(text []byte, n int) []uint64 {
	var out []uint64
	if n > 0 {
		out = make([]uint64, 0, n)
	}
	s := shingles{tok: newTokens(text)}
	for {
		h, ok := s.next()
		if !ok {
			break
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Jaccard returns |a∩b| / |a∪b| of two sorted, distinct sets (0 when both
// are empty).
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Sketch is a text's MinHash signature.
type Sketch struct {
	// Min holds, for each of [SketchLen] hash functions, the least value
	// over the text's shingles.
	Min [SketchLen]uint32
	// Shingles counts shingles with repeats: an upper bound of the number
	// of distinct shingles.
	Shingles int
}

// Of computes text's sketch.
func Of(text []byte) Sketch {
	var s Sketch
	var m [SketchLen]uint64
	for i := range m {
		m[i] = ^uint64(0)
	}
	sh := shingles{tok: newTokens(text)}
	for {
		h, ok := sh.next()
		if !ok {
			break
		}
		s.Shingles++
		for i := range m {
			// One multiply per hash function: h is already well mixed, and
			// x -> (x^seed)*odd is a permutation of 64-bit values.
			v := (h ^ seeds[i]) * 0x9e3779b97f4a7c15
			v ^= v >> 29
			m[i] = min(m[i], v)
		}
	}
	for i, v := range m {
		s.Min[i] = uint32(v >> 32)
	}
	return s
}

// Similarity estimates the Jaccard similarity of the two texts' shingle
// sets: the share of hash functions whose minimum agrees.
func (s *Sketch) Similarity(o *Sketch) float64 {
	n := 0
	for i := range s.Min {
		if s.Min[i] == o.Min[i] {
			n++
		}
	}
	return float64(n) / SketchLen
}

// Bands returns the LSH bucket key of each band of the sketch (the band's
// index is part of the key).
func (s *Sketch) Bands() [BandCount]uint64 {
	var keys [BandCount]uint64
	for b := 0; b < BandCount; b++ {
		h := uint64(b+1) * 0x9e3779b97f4a7c15
		for r := 0; r < BandRows; r++ {
			h = mix64(h ^ uint64(s.Min[b*BandRows+r]))
		}
		keys[b] = h
	}
	return keys
}
