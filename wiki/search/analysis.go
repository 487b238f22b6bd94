package search

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// token is one term produced by [analyze]. Primary tokens each take a
// position; extra tokens (the whole form of a split identifier or compound,
// CJK unigrams) share the position of the primary token they start with.
type token struct {
	term       string
	start, end int // byte offsets of the source text
	pos        int
	extra      bool
	// word marks a letter word that a stemmer may reduce (not a number, not
	// an n-gram of a script written without spaces).
	word bool
	// letter marks an extra that is one letter of an n-gram run (see
	// analyzer.ngrams), emitted beside the bigram it starts.
	letter bool
}

// fieldGap is the position gap [analyze] leaves at a [fieldSep], so a phrase
// never matches across two parts of a combined field.
const fieldGap = 50

// fieldSep separates the parts of a combined field (title, headings, body...).
// It is a private-use character, so no real text contains it.
const fieldSep = "\uE000"

// analyze splits text into search terms (the universal analysis every field
// and every query goes through):
//
//   - Unicode word segmentation (UAX #29, blevesearch/segment);
//   - folding: NFKC, Unicode case folding, and removal of accents on Latin,
//     Greek, Arabic and Hebrew letters (Café → cafe, ß → ss); marks that are
//     vowels in other scripts (Devanagari, Thai...) are kept;
//   - scripts written without spaces: Han, Hiragana, Katakana and Hangul runs
//     become overlapping bigrams (plus unigrams as extras), Thai, Lao, Khmer
//     and Myanmar runs likewise;
//   - identifiers: camelCase, snake_case, dotted.names, letter-digit runs
//     (utf8) and apostrophes are split into parts, and the whole form is kept
//     as an extra term ("getusername", "os.path.join"); hyphenated compounds
//     ("dry-run", "POL-358") also get the joined form; "C++", "C#" keep their
//     symbols as an extra term.
//
// No stop words are removed here: a query of stop words still finds text.
func analyze(text string, emit func(token)) { analyzeEnd(text, emit) }

// analyzeEnd is [analyze] that returns the last position it took: text
// followed by a [fieldSep] and more text is analysed as text alone, then
// the rest alone with its positions after that one plus fieldGap (what
// [textFields] relies on to analyse each part of a combined field once).
func analyzeEnd(text string, emit func(token)) int {
	a := analyzer{src: text, emit: emit, pos: 0}
	a.run()
	return a.pos
}

// analyzeAll returns every token of text.
func analyzeAll(text string) []token {
	var out []token
	analyze(text, func(t token) { out = append(out, t) })
	return out
}

type analyzer struct {
	src  string
	emit func(token)
	pos  int // position of the last primary token

	// run collects a run of characters of a script written without spaces.
	runStart, runEnd int
	runKind          int // 0 none, 1 CJK, 2 other no-space script, 3 letters UAX #29 leaves out

	// compound tracking: the previous word segment's end and its tokens
	prevWordEnd            int
	chainStart, chainFirst int // byte start of the compound chain, position of its first token
	chainParts             int

	// Buffers reused from word to word (splitWord's parts, ngrams' units).
	parts [8][2]int
	units []ngramUnit
}

// mnemonic matches tldr's bracketed mnemonic letters inside a word:
// "[c]reate", "g[z]ipped", "e[x]tract" are indexed as create, gzipped, extract.
var mnemonic = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\pL*\[\pL{1,3}\]\pL*`) })

// mnemonics returns what mnemonic.FindAllStringIndex(s, -1) returns,
// without the regular expression (which backtracks over every letter of
// every word that precedes a "[" in a 64 KB page): the letters before a "[",
// one to three letters and "]", and the letters after, leftmost first and
// not overlapping.
func mnemonics(s string) [][]int {
	var out [][]int
	floor := 0 // the end of the last match
	for i := 0; i < len(s); {
		k := strings.IndexByte(s[i:], '[')
		if k < 0 {
			break
		}
		open := i + k
		i = open + 1
		// One to three letters, then "]".
		j, n := open+1, 0
		for j < len(s) && n <= 3 {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) {
				break
			}
			j += size
			n++
		}
		if n < 1 || n > 3 || j >= len(s) || s[j] != ']' {
			continue
		}
		end := j + 1
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			if !unicode.IsLetter(r) {
				break
			}
			end += size
		}
		start := open
		for start > floor {
			r, size := utf8.DecodeLastRuneInString(s[floor:start])
			if !unicode.IsLetter(r) {
				break
			}
			start -= size
		}
		out = append(out, []int{start, end})
		floor, i = end, end
	}
	return out
}

func (a *analyzer) run() {
	var spans [][]int
	for _, m := range mnemonics(a.src) {
		if m[1]-m[0] > 2 && (a.src[m[0]] != '[' || a.src[m[1]-1] != ']') {
			spans = append(spans, m)
		}
	}
	seg := segment.NewWordSegmenterDirect([]byte(a.src))
	off := 0
	a.prevWordEnd = -1
	skipTo := 0
	for seg.Segment() {
		b := seg.Bytes()
		start, end := off, off+len(b)
		off = end
		if start < skipTo {
			continue
		}
		if len(spans) > 0 && start == spans[0][0] {
			sp := spans[0]
			spans = spans[1:]
			a.flushRun()
			word := strings.NewReplacer("[", "", "]", "").Replace(a.src[sp[0]:sp[1]])
			a.pos++
			a.emit(token{term: fold(word), start: sp[0], end: sp[1], pos: a.pos, word: true})
			a.chainStart, a.chainFirst, a.chainParts = sp[0], a.pos, 1
			a.prevWordEnd = sp[1]
			skipTo = sp[1]
			continue
		}
		for len(spans) > 0 && spans[0][0] < start {
			spans = spans[1:]
		}
		typ := seg.Type()
		s := a.src[start:end]
		switch {
		case typ == segment.Ideo || typ == segment.Kana:
			a.addRun(start, end, 1)
			continue
		case typ == segment.None:
			r, _ := utf8.DecodeRuneInString(s)
			if isNoSpaceScript(r) {
				a.addRun(start, end, 2)
				continue
			}
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				// Letters and digits UAX #29 leaves alone (full-width
				// digits): a word of their own.
				a.addRun(start, end, 3)
				continue
			}
			a.flushRun()
			if s == fieldSep {
				a.pos += fieldGap
				a.prevWordEnd = -1
				continue
			}
			// "C++", "C#", "F#": symbols glued to the word before.
			if (s == "+" || s == "#") && a.prevWordEnd == start {
				a.symbolSuffix(start)
				continue
			}
			if s == "-" && a.prevWordEnd == start {
				continue // may join the next word into a compound
			}
			a.prevWordEnd = -1
			continue
		}
		a.flushRun()
		if containsHangul(s) {
			a.ngrams(start, end, true)
			a.prevWordEnd = -1
			continue
		}
		joined := a.prevWordEnd >= 0 && start == a.prevWordEnd+1 && a.src[a.prevWordEnd] == '-'
		first := a.word(start, end, typ == segment.Number)
		if joined {
			a.chainParts++
			a.compound(end)
		} else {
			a.chainStart, a.chainFirst, a.chainParts = start, first, 1
		}
		a.prevWordEnd = end
	}
	a.flushRun()
}

// symbolSuffix emits "c++" / "c#" when the symbols end the word.
func (a *analyzer) symbolSuffix(at int) {
	end := at
	for end < len(a.src) && (a.src[end] == '+' || a.src[end] == '#') {
		end++
	}
	if end < len(a.src) {
		r, _ := utf8.DecodeRuneInString(a.src[end:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return
		}
	}
	if end-at > 2 {
		return
	}
	term := fold(a.src[a.chainStart:end])
	a.emit(token{term: term, start: a.chainStart, end: end, pos: a.chainFirst, extra: true})
	a.prevWordEnd = -1
}

// compound emits the joined forms of a hyphenated chain ending at end.
func (a *analyzer) compound(end int) {
	whole := fold(a.src[a.chainStart:end])
	a.emit(token{term: whole, start: a.chainStart, end: end, pos: a.chainFirst, extra: true})
	if j := strings.ReplaceAll(whole, "-", ""); j != whole {
		a.emit(token{term: j, start: a.chainStart, end: end, pos: a.chainFirst, extra: true})
	}
}

// word emits the tokens of one word segment and returns the position of its
// first token.
func (a *analyzer) word(start, end int, number bool) int {
	s := a.src[start:end]
	parts := splitWord(a.parts[:0], s, number)
	if len(parts) == 1 && parts[0][0] == 0 && parts[0][1] == len(s) {
		a.pos++
		a.emit(token{term: fold(s), start: start, end: end, pos: a.pos, word: !number && !allDigits(s)})
		return a.pos
	}
	first := a.pos + 1
	for _, p := range parts {
		a.pos++
		ps := s[p[0]:p[1]]
		a.emit(token{term: fold(ps), start: start + p[0], end: start + p[1], pos: a.pos, word: !allDigits(ps)})
	}
	whole := fold(s)
	whole = strings.ReplaceAll(whole, "’", "'")
	a.emit(token{term: whole, start: start, end: end, pos: first, extra: true})
	if j := strings.Map(func(r rune) rune {
		if r == '_' || r == '\'' {
			return -1
		}
		return r
	}, whole); j != whole && j != "" {
		a.emit(token{term: j, start: start, end: end, pos: first, extra: true})
	}
	return first
}

// splitWord appends to dst (from its start) and returns the byte ranges
// of the parts of an identifier-like word:
// split at internal punctuation (. _ : ' ’ ,), at lower→Upper and
// Upper→Upper-lower case changes, and between letters and digits. Parts of
// one letter left by an apostrophe (the l of l'import, the t of don't) are
// dropped. A plain word is one part.
func splitWord(dst [][2]int, s string, number bool) [][2]int {
	parts := dst[:0]
	apostrophe := false
	start := -1
	var prev rune
	prevKind := 0 // 0 none, 1 lower, 2 upper, 3 digit, 4 other letter
	flush := func(i int) {
		if start >= 0 && i > start {
			parts = append(parts, [2]int{start, i})
		}
		start = -1
	}
	for i, r := range s {
		kind := 4
		switch {
		case unicode.IsDigit(r):
			kind = 3
		case unicode.IsUpper(r):
			kind = 2
		case unicode.IsLower(r):
			kind = 1
		case unicode.IsLetter(r) || unicode.IsMark(r):
			kind = 4
		default:
			kind = 0
		}
		if kind == 0 {
			if r == '\'' || r == '’' {
				apostrophe = true
			}
			flush(i)
			prevKind, prev = 0, r
			continue
		}
		if start >= 0 && !number {
			boundary := false
			switch {
			case prevKind == 1 && kind == 2:
				boundary = true
			case prevKind == 2 && kind == 1:
				// "HTTPServer": the boundary is before the last upper letter.
				if n := utf8.RuneLen(prev); i-n > start {
					prevStart := i - n
					if isUpperRun(s[start:prevStart]) {
						parts = append(parts, [2]int{start, prevStart})
						start = prevStart
					}
				}
			case (prevKind == 3) != (kind == 3) && unicode.IsMark(r) == false:
				boundary = true
			}
			if boundary {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		prevKind, prev = kind, r
	}
	flush(len(s))
	if apostrophe && len(parts) > 1 {
		kept := parts[:0:0]
		for _, p := range parts {
			if utf8.RuneCountInString(s[p[0]:p[1]]) > 1 {
				kept = append(kept, p)
			}
		}
		if len(kept) > 0 {
			parts = kept
		}
	}
	if len(parts) == 0 {
		return append(parts, [2]int{0, len(s)})
	}
	return parts
}

func isUpperRun(s string) bool {
	if len(s) < 2 {
		return false
	}
	for _, r := range s {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

func (a *analyzer) addRun(start, end, kind int) {
	if a.runKind != 0 && (a.runKind != kind || a.runEnd != start) {
		a.flushRun()
	}
	if a.runKind == 0 {
		a.runKind, a.runStart = kind, start
	}
	a.runEnd = end
	a.prevWordEnd = -1
}

func (a *analyzer) flushRun() {
	switch a.runKind {
	case 0:
		return
	case 3:
		a.word(a.runStart, a.runEnd, false)
	default:
		a.ngrams(a.runStart, a.runEnd, true)
	}
	a.runKind = 0
}

// ngrams emits overlapping bigrams of the runes in src[start:end] (each at
// its own position), plus each rune as an extra unigram when unigrams is
// set. A single rune is a primary unigram. Combining marks stay with the
// rune before them.
func (a *analyzer) ngrams(start, end int, unigrams bool) {
	units := a.units[:0]
	for i, r := range a.src[start:end] {
		// The width read, not utf8.RuneLen(r): an invalid byte is read as
		// utf8.RuneError, one byte wide where RuneLen says three.
		_, w := utf8.DecodeRuneInString(a.src[start+i : end])
		if unicode.IsMark(r) && len(units) > 0 {
			units[len(units)-1].e = start + i + w
			continue
		}
		units = append(units, ngramUnit{start + i, start + i + w})
	}
	a.units = units
	if len(units) == 0 {
		return
	}
	if len(units) == 1 {
		a.pos++
		a.emit(token{term: fold(a.src[units[0].s:units[0].e]), start: units[0].s, end: units[0].e, pos: a.pos})
		return
	}
	for i := 0; i < len(units); i++ {
		if i+1 < len(units) {
			a.pos++
			a.emit(token{term: fold(a.src[units[i].s:units[i+1].e]), start: units[i].s, end: units[i+1].e, pos: a.pos})
		}
		if unigrams {
			p := a.pos
			if i+1 == len(units) {
				p = a.pos + 1
			}
			a.emit(token{term: fold(a.src[units[i].s:units[i].e]), start: units[i].s, end: units[i].e, pos: p, extra: true, letter: true})
		}
	}
	a.pos++
}

// ngramUnit is the byte range of one unit of ngrams: a rune and the
// combining marks after it.
type ngramUnit struct{ s, e int }

func containsHangul(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hangul, r) {
			return true
		}
	}
	return false
}

// isNoSpaceScript reports letters and marks of scripts written without
// spaces that UAX #29 does not split into words.
func isNoSpaceScript(r rune) bool {
	return unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan) &&
		(unicode.IsLetter(r) || unicode.IsMark(r))
}

var folder = cases.Fold()

// fold returns the search form of a term: NFKC, case folded, accents removed
// from Latin, Greek, Arabic and Hebrew letters, and ø æ œ đ ł þ ß spelled out.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	if !foldTableOff {
		var buf [64]byte
		if b, ok := appendFoldFast(buf[:0], s); ok {
			if string(b) == s {
				return s
			}
			return string(b)
		}
	}
	if v, ok := foldCache.Load(s); ok {
		return v.(string)
	}
	f := foldSlow(s)
	if len(s) <= 64 {
		if foldCacheLen.Add(1) > foldCacheMax {
			foldCache.Clear()
			foldCacheLen.Store(1)
		}
		// A copy: s may be a slice of a whole page.
		foldCache.Store(strings.Clone(s), f)
	}
	return f
}

// foldTableOff makes fold skip the fold table (tests compare the two).
var foldTableOff bool

// foldCache keeps the folded form of the words that are not ASCII and that
// the fold table cannot fold (folding one takes four Unicode
// normalisations); words repeat, so most are found here.
// It is cleared when foldCacheMax words were stored.
var foldCache sync.Map

var foldCacheLen atomic.Int64

const foldCacheMax = 50_000

func foldSlow(s string) string {
	s = norm.NFKC.String(s)
	s = folder.String(s)
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	var base rune
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if foldMarksOf(base) || (r == '\u0308' && (base == 'е')) {
				continue
			}
			b.WriteRune(r)
			continue
		}
		base = r
		switch r {
		case 'ø':
			b.WriteByte('o')
		case 'æ':
			b.WriteString("ae")
		case 'œ':
			b.WriteString("oe")
		case 'đ', 'ð':
			b.WriteByte('d')
		case 'ł':
			b.WriteByte('l')
		case 'þ':
			b.WriteString("th")
		case 'ı':
			b.WriteByte('i')
		case '’', 'ʼ':
			b.WriteByte('\'')
		default:
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// foldMarksOf reports whether combining marks after base are accents to
// drop (Latin, Greek, Arabic, Hebrew) rather than part of the letter.
func foldMarksOf(base rune) bool {
	if base < 0x250 {
		return true
	}
	return unicode.In(base, unicode.Latin, unicode.Greek, unicode.Arabic, unicode.Hebrew)
}
