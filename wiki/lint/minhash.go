package lint

import (
	"math/bits"
	"sort"
	"unicode"
	"unicode/utf8"
)

// Shingling and MinHash parameters for merge candidates.
const (
	// ShingleSize is the number of consecutive tokens in a shingle.
	ShingleSize = 5
	// MinShingles is the fewest distinct shingles a page needs to be a
	// merge candidate (tiny pages are trivially alike).
	MinShingles = 16
	// sigLen MinHash values per page, in bands of rows: two pages whose
	// shingle sets have Jaccard similarity J share a band with probability
	// 1-(1-J^4)^16 (0.9998 at J=0.8, 0.64 at J=0.5). Every pair sharing a
	// band is then compared exactly, so banding costs recall only.
	sigLen = 64
	bands  = 16
	rows   = sigLen / bands
)

// seeds are fixed so runs are reproducible (splitmix64 of 1..64).
var seeds = func() [sigLen]uint64 {
	var s [sigLen]uint64
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
// words (Han, kana, Thai, Lao, Khmer, Myanmar, Tibetan): each is a token of
// its own.
func noSpaceScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}

// eachToken calls fn with the hash of each token of text: a run of letters,
// digits and combining marks, lower-cased, or one rune of a script written
// without spaces. Everything else separates tokens.
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

// eachShingle calls fn with the hash of each run of [ShingleSize]
// consecutive tokens of text.
func eachShingle(text []byte, fn func(uint64)) {
	var ring [ShingleSize]uint64
	n := 0
	eachToken(text, func(t uint64) {
		ring[n%ShingleSize] = t
		n++
		if n < ShingleSize {
			return
		}
		h := uint64(0)
		for j := 0; j < ShingleSize; j++ {
			h = bits.RotateLeft64(h, 17) ^ ring[(n+j)%ShingleSize]
			h *= 0x9e3779b97f4a7c15
		}
		fn(mix64(h))
	})
}

// Shingles returns the sorted, distinct shingle hashes of text: the set
// merge candidates are compared by (Jaccard similarity of these sets).
func Shingles(text []byte) []uint64 {
	var out []uint64
	eachShingle(text, func(h uint64) { out = append(out, h) })
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

// Jaccard returns |a∩b| / |a∪b| of two sorted, distinct sets.
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

// signature is a page's MinHash signature.
type signature struct {
	sig [sigLen]uint64
	// n counts shingles with repeats: an upper bound of the distinct count
	// that [MinShingles] is checked against exactly later.
	n int
}

// minhash computes text's signature.
func minhash(text []byte) signature {
	var s signature
	for i := range s.sig {
		s.sig[i] = ^uint64(0)
	}
	eachShingle(text, func(h uint64) {
		s.n++
		for i := range s.sig {
			// One multiply per hash function: h is already well mixed, and
			// x -> (x^seed)*odd is a permutation of 64-bit values.
			v := (h ^ seeds[i]) * 0x9e3779b97f4a7c15
			v ^= v >> 29
			if v < s.sig[i] {
				s.sig[i] = v
			}
		}
	})
	return s
}

// bandKeys returns the LSH bucket key of each band of sig.
func (s *signature) bandKeys() [bands]uint64 {
	var keys [bands]uint64
	for b := 0; b < bands; b++ {
		h := uint64(b) * 0x9e3779b97f4a7c15
		for r := 0; r < rows; r++ {
			h = mix64(h ^ s.sig[b*rows+r])
		}
		keys[b] = h
	}
	return keys
}

// unionFind groups pages into near-duplicate clusters.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

func (u unionFind) find(x int32) int32 {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if ra < rb {
		u[rb] = ra
	} else {
		u[ra] = rb
	}
}
