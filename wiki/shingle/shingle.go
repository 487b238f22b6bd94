package shingle

import (
	"math/bits"
	"sort"
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
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// eachToken calls fn with the hash of each token of text.
func eachToken(text []byte, fn func(uint64)) {
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
		case noSpaceScript(r):
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

// Each calls fn with the hash of each shingle of text (with repeats), in
// order.
func Each(text []byte, fn func(uint64)) {
	var ring [Size]uint64
	n := 0
	eachToken(text, func(t uint64) {
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

// Set returns the sorted, distinct shingle hashes of text.
func Set(text []byte) []uint64 {
	var out []uint64
	Each(text, func(h uint64) { out = append(out, h) })
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
	Each(text, func(h uint64) {
		s.Shingles++
		for i := range m {
			// One multiply per hash function: h is already well mixed, and
			// x -> (x^seed)*odd is a permutation of 64-bit values.
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
