package search

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// Snippet sizes, in characters.
const (
	snippetChars = 200
	listingChars = 1500
)

type match struct {
	start, end int // byte range in the body
	group      int
}

// snippetScan is how much of a file's body is analysed for its snippet, in
// bytes: all of a smaller file; of a larger one, the start, or when the
// start holds no match, a window around the first literal occurrence of a
// query word. It keeps the analysis of a hit bounded whatever the file's
// size (a file may be indexed up to MaxIndexedBytes); the lines before a
// later window are only read by the fence scanner, for its state and the
// heading above the window.
const snippetScan = 64 << 10

// fillSnippet reads the hit's file and sets its snippet, heading, line and
// listing from the best window of matches within the part of the file
// scanned (see snippetScan). A file that cannot be read gets an empty
// snippet.
func (x *Index) fillSnippet(h *Hit, groups []group, codeAsk bool) {
	x.fillSnippetOf(h, x.statHits([]string{h.Path})[0], groups, codeAsk)
}

// fillSnippetOf is fillSnippet for the version of the file fi describes
// (the hit's Lstat, nil when there is none). A file no larger than
// snippetScan is read, decoded and cut into blocks once per version
// (snippetCache); from the second search that hits the same version on,
// its matches are looked up in its analysed tokens instead of analysing
// its lines again.
func (x *Index) fillSnippetOf(h *Hit, fi os.FileInfo, groups []group, codeAsk bool) {
	cacheable := fi != nil && fi.Mode().IsRegular() && !noSnippetCache
	var f *snipFile
	if cacheable {
		f = x.snips.get(h.Path, fi)
	}
	big := false
	if f == nil {
		f, _, big = x.loadSnipFile(h.Path, fi)
		if f == nil {
			return
		}
		if cacheable && !big {
			x.snips.put(h.Path, f)
		}
	} else if f.toks == nil || f.lang != h.Lang {
		f = f.withTokens(h.Lang)
		x.snips.put(h.Path, f)
	}
	if f.note != "" {
		note := f.note
		if h.Note != "" {
			note = h.Note + "; " + note
		}
		h.Note = note
	}
	body := f.body

	want := map[string]int{}
	for gi, g := range groups {
		for _, t := range g.terms {
			if _, ok := want[t]; !ok {
				want[t] = gi
			}
		}
		for _, s := range g.stems {
			if _, ok := want[s]; !ok {
				want[s] = gi
			}
		}
	}
	// The scanned window [off, off+len(win)) of the body.
	off, win := 0, body
	var ms []match
	if f.toks != nil {
		ms = f.matches(want)
	} else {
		filter := lineNeedles(h.Lang, groups)
		if big {
			win = body[:runeFloor(body, snippetScan)]
			ms = findMatchesIn(win, h.Lang, want, filter)
			if len(ms) == 0 {
				if at := firstLiteral(body, groups); at >= 0 {
					off = runeFloor(body, max(0, at-snippetScan/4))
					// Start the window at a line where one is near, so the
					// scanner reads its first line whole.
					if ls := strings.LastIndexByte(body[:off], '\n') + 1; off-ls <= snippetScan/4 {
						off = ls
					}
					win = body[off:runeFloor(body, min(len(body), off+snippetScan))]
				}
			}
		}
		if ms == nil {
			ms = findMatchesIn(win, h.Lang, want, filter)
		}
	}
	// The window is read in the fence state the lines before it leave,
	// and a hit under no heading of the window is under the last heading
	// before it: both from one forward pass of the scanner.
	var fences mdoc.Fences
	before := ""
	if off > 0 {
		fences, before = scanPrefix(body[:strings.LastIndexByte(body[:off], '\n')+1])
	}
	blocks := f.blocks // read only: the cache's
	if big {
		blocks = nil
		scanMarkdownFrom(win, fences, func(b block) {
			b.start += off
			b.end += off
			blocks = append(blocks, b)
		})
	}
	if len(ms) == 0 {
		h.Snippet = excerpt(body, off, off, nil)
		return
	}
	for i := range ms {
		ms[i].start += off
		ms[i].end += off
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	inCode := func(at int) bool {
		b := blockAt(blocks, at)
		return b >= 0 && blocks[b].kind == blockCode
	}
	// The best window of ~snippetChars bytes: most distinct query words,
	// then most matches; code first when the query asks for code.
	bestI, bestJ, bestScore := 0, 0, -1.0
	j := 0
	counts := map[int]int{}
	for i := range ms {
		if i > 0 {
			g := ms[i-1].group
			counts[g]--
			if counts[g] == 0 {
				delete(counts, g)
			}
		}
		if j < i {
			j = i
		}
		for j < len(ms) && ms[j].end-ms[i].start <= snippetChars {
			counts[ms[j].group]++
			j++
		}
		score := float64(len(counts))*10 + float64(j-i)
		if codeAsk && inCode(ms[i].start) {
			score += 15
		}
		if score > bestScore {
			bestI, bestJ, bestScore = i, j, score
		}
	}
	best := ms[bestI:bestJ]
	if len(best) == 0 {
		best = ms[bestI : bestI+1]
	}
	h.Snippet = excerpt(body, best[0].start, best[len(best)-1].end, best)
	at := best[0].start
	h.Line = f.bodyLine + strings.Count(body[:at], "\n")
	bi := blockAt(blocks, at)
	for k := len(blocks) - 1; k >= 0; k-- {
		if blocks[k].kind == blockHeading && blocks[k].start <= at {
			h.Heading = blocks[k].text
			break
		}
	}
	if h.Heading == "" {
		h.Heading = before
	}
	if bi >= 0 {
		switch {
		case blocks[bi].kind == blockCode:
			h.Listing = clipChars(blocks[bi].text, listingChars)
		case blocks[bi].kind == blockProse && bi+1 < len(blocks) && blocks[bi+1].kind == blockCode:
			h.Listing = clipChars(blocks[bi+1].text, listingChars)
		}
	}
}

// splitBody returns the body of a file (after markdown frontmatter) and its
// byte offset in the file.
func splitBody(rel string, data []byte) (string, int) {
	text := string(data)
	if strings.HasSuffix(strings.ToLower(rel), ".md") {
		if d, err := mdoc.ParseDoc(rel, data); err == nil {
			off := len(text) - len(d.Body)
			if off >= 0 && text[off:] == string(d.Body) {
				return text[off:], off // the body is the file's tail: no copy
			}
			body := string(d.Body)
			return body, len(text) - len(body)
		}
	}
	return text, 0
}

// findMatches analyses text and returns the tokens that are query terms
// (want: term → query word), also through the stems of lang. With stemStarts
// not nil, a word is only stemmed when its term holds one of them (the
// start of a query stem; see lineNeedles): the stem of any other word
// cannot be a query's.
func findMatches(text, lang string, want map[string]int, stemStarts [][]byte) []match {
	stemming := hasStemmer(lang)
	var ms []match
	analyze(text, func(t token) {
		gi, ok := want[t.term]
		if !ok && stemming && t.word && !t.extra && mayStemTo(t.term, stemStarts) {
			if st := tokenStem(lang, text, t); st != "" {
				gi, ok = want[stemTerm(lang, st)]
			}
		}
		if ok {
			ms = append(ms, match{t.start, t.end, gi})
		}
	})
	return ms
}

// mayStemTo reports whether term holds one of starts (always, with starts
// nil).
func mayStemTo(term string, starts [][]byte) bool {
	if starts == nil {
		return true
	}
	for _, s := range starts {
		if strings.Contains(term, string(s)) {
			return true
		}
	}
	return false
}

// findMatchesIn returns what findMatches(text, lang, want) returns, but
// analyses only the lines of text that may hold a match (see lineFilter;
// with f nil, all of text is analysed). The analysis never joins two lines
// (UAX #29 breaks words at new lines, and the analyzer forgets its
// compound, symbol and mnemonic state at any white space), so analysing a
// run of lines alone yields the tokens a whole analysis yields there.
func findMatchesIn(text, lang string, want map[string]int, f *lineFilter) []match {
	if f == nil || noLineFilter {
		return findMatches(text, lang, want, nil)
	}
	var ms []match
	runStart, runEnd := -1, -1 // the run of candidate lines being gathered
	flush := func() {
		if runStart < 0 {
			return
		}
		for _, m := range findMatches(text[runStart:runEnd], lang, want, f.stemStarts()) {
			ms = append(ms, match{m.start + runStart, m.end + runStart, m.group})
		}
		runStart, runEnd = -1, -1
	}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		if f.mayMatch(text[start:end]) {
			if runStart < 0 {
				runStart = start
			}
			runEnd = end
		} else {
			flush()
		}
		start = end
	}
	flush()
	return ms
}

// noLineFilter makes findMatchesIn analyse all of its text, as before the
// line filter (tests compare the two).
var noLineFilter bool

// squeezed are the bytes left out of the text lineFilter looks in (and
// of needles): the analyzer drops them from the joined forms of compounds
// ("dry-run" → "dryrun"), identifiers ("get_user" → "getuser"),
// contractions and tldr mnemonics ("[c]reate" → "create").
func squeezed(c byte) bool { return c == '-' || c == '_' || c == '\'' || c == '[' || c == ']' }

// lineFilter tells the lines of a file that may hold a match of a query
// from the lines that cannot, without analysing them (see lineNeedles).
type lineFilter struct {
	terms [][]byte // folded terms, squeezed bytes left out
	stems [][]byte // the starts of stems
	buf   []byte
	lower []byte
}

// mayMatch reports whether line may hold a token findMatches would mark.
//
// A token's term is the folded form of the text it covers, some squeezed
// bytes left out; folding a line folds each of its words as folding the
// word alone does (a word never ends inside a combining sequence). So a
// line that holds a match of a term holds the term in its folded form,
// squeezed bytes left out. A word matched through its stem starts with the
// start of the stem: on an ASCII line, a word part starts after a byte
// that is no letter, or at an upper-case letter (camelCase, HTMLParser);
// a line that is not ASCII is only searched for the stem's start anywhere.
func (f *lineFilter) mayMatch(line string) bool {
	b, lower := f.buf[:0], f.lower[:0]
	ascii := true
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
		if !squeezed(c) {
			b = append(b, c)
		}
	}
	if !ascii {
		// Fold word by word.
		b = b[:0]
		for rest := line; rest != ""; {
			k := strings.IndexByte(rest, ' ')
			w := rest
			if k >= 0 {
				w, rest = rest[:k], rest[k+1:]
			} else {
				rest = ""
			}
			b = appendFoldSqueezed(b, w)
			b = append(b, ' ')
		}
	}
	f.buf, f.lower = b, lower
	for _, n := range f.terms {
		if bytes.Contains(b, n) {
			return true
		}
	}
	if !ascii {
		for _, n := range f.stems {
			if bytes.Contains(b, n) {
				return true
			}
		}
		return false
	}
	for _, n := range f.stems {
		for from := 0; from < len(lower); {
			k := bytes.Index(lower[from:], n)
			if k < 0 {
				break
			}
			at := from + k
			if at == 0 || !isASCIILetter(line[at-1]) || ('A' <= line[at] && line[at] <= 'Z') {
				return true
			}
			from = at + 1
		}
	}
	return false
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// appendFoldSqueezed appends fold(w) without its squeezed bytes to b,
// folding in place when the fold table can (no string is made).
func appendFoldSqueezed(b []byte, w string) []byte {
	if foldTableOff {
		return appendSqueezed(b, fold(w))
	}
	n := len(b)
	b, ok := appendFoldFast(b, w)
	if !ok {
		return appendSqueezed(b, fold(w))
	}
	j := n
	for i := n; i < len(b); i++ {
		if !squeezed(b[i]) {
			b[j] = b[i]
			j++
		}
	}
	return b[:j]
}

// appendSqueezed appends s without its squeezed bytes to b.
func appendSqueezed(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !squeezed(s[i]) {
			b = append(b, s[i])
		}
	}
	return b
}

// stemKept is, per language, how many of a stem's last characters may
// differ from the start of the word it is the stem of (after folding), or
// absent when lineNeedles must not trust the stem's start. Measured over
// the Obsidian Help and tldr pages of each language (TestStemPrefix), with
// one character to spare: English changes at most the last letter (try →
// tri, using → use); French two (applications → appliqu); Dutch two
// (eenheden → eenheid); Finnish undoubles consonants anywhere (liittyy →
// liityy), so only its first two characters count; Turkish changes the
// first letters (buna → p, oge → ok), so it gets no filter.
var stemKept = map[string]int{
	"en": 2, "fr": 3, "nl": 3, "de": 2, "es": 2, "it": 2, "pt": 2, "ru": 2,
	"sv": 2, "no": 2, "nb": 2, "da": 2, "ro": 2, "hu": 2, "fi": 1 << 20,
}

// lineNeedles returns the filter of the lines of a file of lang that may
// hold a match of groups, or nil when no such test is safe (a word that is
// all squeezed bytes, a stemmer that may change the start of a word).
//
// A term is searched for as it is, squeezed. A word matched through its
// stem is found by the start of the stem: all of it but its last stemKept
// characters, and at least its first two, if it has two (English's dying, lying and
// tying, whose stems are die, lie and tie, add dy, ly and ty).
func lineNeedles(lang string, groups []group) *lineFilter {
	base := baseLang(lang)
	kept, trusted := stemKept[base]
	stemming := hasStemmer(lang)
	if stemming && !trusted {
		return nil
	}
	f := &lineFilter{}
	add := func(s string) bool {
		n := appendSqueezed(nil, s)
		if len(n) == 0 {
			return false
		}
		f.terms = append(f.terms, n)
		return true
	}
	addStem := func(s string) {
		f.stems = append(f.stems, []byte(s))
	}
	prefix := stemTerm(lang, "")
	for _, g := range groups {
		for _, t := range g.terms {
			if !add(t) {
				return nil
			}
		}
		if !stemming {
			continue
		}
		for _, s := range g.stems {
			st, found := strings.CutPrefix(s, prefix)
			if !found {
				continue // a stem of another language: never equal here
			}
			rs := []rune(st)
			if len(rs) == 0 || strings.ContainsFunc(st, func(r rune) bool { return r < utf8.RuneSelf && squeezed(byte(r)) }) {
				return nil
			}
			addStem(string(rs[:min(len(rs), max(2, len(rs)-kept))]))
			if base == "en" {
				switch st {
				case "die", "lie", "tie":
					addStem(st[:1] + "y")
				}
			}
		}
	}
	return f
}

// runeFloor returns n, moved back to the start of the rune it falls in.
func runeFloor(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// firstLiteral returns the offset of the first occurrence in body of a
// query word as written in the index (ASCII letters compared without case),
// or -1. It is a cheap locator for large files, not an analysis: a word
// found only through folding or stemming is not found here.
func firstLiteral(body string, groups []group) int {
	var terms []string
	longest := 0
	for _, g := range groups {
		if t := g.terms[0]; t != "" {
			terms = append(terms, t)
			longest = max(longest, len(t))
		}
	}
	if len(terms) == 0 {
		return -1
	}
	const chunk = 64 << 10
	buf := make([]byte, 0, chunk+longest)
	for lo := 0; lo < len(body); lo += chunk {
		hi := min(len(body), lo+chunk+longest)
		buf = buf[:0]
		for i := lo; i < hi; i++ {
			c := body[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
		}
		first := -1
		for _, t := range terms {
			if k := bytes.Index(buf, []byte(t)); k >= 0 && (first < 0 || k < first) {
				first = k
			}
		}
		if first >= 0 {
			return lo + first
		}
	}
	return -1
}

// scanPrefix reads the lines of s, the start of a body up to a line start,
// with the one scanner, and returns its fence state after them and the text
// of the last ATX heading outside fenced code ("" when there is none).
func scanPrefix(s string) (mdoc.Fences, string) {
	var f mdoc.Fences
	heading := ""
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		q := mdoc.TrimQuote(strings.TrimSuffix(line, "\r"))
		if f.Line(q) == mdoc.Heading {
			_, heading = mdoc.ATX(q)
		}
	}
	return f, heading
}

// blockAt returns the index of the block containing off, or -1.
func blockAt(blocks []block, off int) int {
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].end > off })
	if i < len(blocks) && blocks[i].start <= off {
		return i
	}
	return -1
}

func clipChars(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// excerpt returns about snippetChars characters of body around [from, to),
// on one line, with the matches marked **like this**. Cut ends get "…".
func excerpt(body string, from, to int, marks []match) string {
	span := utf8.RuneCountInString(body[from:to])
	pad := (snippetChars - span) / 2
	if pad < 20 {
		pad = 20
	}
	start := from
	for n := 0; n < pad && start > 0; n++ {
		_, sz := utf8.DecodeLastRuneInString(body[:start])
		start -= sz
	}
	end := to
	for n := 0; n < pad && end < len(body); n++ {
		_, sz := utf8.DecodeRuneInString(body[end:])
		end += sz
	}
	// Prefer to cut at a space, when one is near.
	if start > 0 {
		if k := strings.IndexAny(body[start:from], " \n\t"); k >= 0 && k < 30 {
			start += k + 1
		}
	}
	if end < len(body) {
		if k := strings.LastIndexAny(body[to:end], " \n\t"); k >= 0 && end-(to+k) < 30 {
			end = to + k
		}
	}
	var pieces []piece
	pos := start
	for _, m := range marks {
		if m.start < pos || m.end > end {
			continue
		}
		pieces = append(pieces, piece{text: body[pos:m.start]}, piece{text: body[m.start:m.end], bold: true})
		pos = m.end
	}
	pieces = append(pieces, piece{text: body[pos:end]})
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	writeMarked(&b, pieces)
	if end < len(body) {
		b.WriteString("…")
	}
	return strings.TrimSpace(b.String())
}

// piece is a run of snippet text, bold when it is a match.
type piece struct {
	text string
	bold bool
}

// writeMarked writes pieces flattened to one line, each bold run between
// one pair of ** markers. The page's own bold markers (runs of two or more
// '*') are dropped, a '*' touching a marker is dropped, and matches that
// end up adjacent are merged, so the page's **alias** or two abutting
// matches never give ****alias****: the only ** in the output are the
// marker pairs.
func writeMarked(b *strings.Builder, pieces []piece) {
	var flat []piece
	add := func(t string, bold bool) {
		if n := len(flat); n > 0 && flat[n-1].bold == bold {
			flat[n-1].text = dropStarRuns(flat[n-1].text + t)
			return
		}
		flat = append(flat, piece{text: t, bold: bold})
	}
	for _, p := range pieces {
		var fb strings.Builder
		writeFlat(&fb, p.text)
		t := dropStarRuns(fb.String())
		if p.bold {
			t = strings.Trim(t, "*")
		}
		if t != "" {
			add(t, p.bold)
		}
	}
	// Text between two matches that is only a '*' would touch both
	// markers: the two matches and it become one bold run.
	var out []piece
	for i := 0; i < len(flat); i++ {
		p := flat[i]
		if n := len(out); !p.bold && p.text == "*" && n > 0 && i+1 < len(flat) {
			out[n-1].text += "*" + flat[i+1].text
			i++
			continue
		}
		out = append(out, p)
	}
	for i, p := range out {
		if p.bold {
			b.WriteString("**")
			b.WriteString(strings.Trim(p.text, "*"))
			b.WriteString("**")
			continue
		}
		t := p.text
		if i > 0 {
			t = strings.TrimLeft(t, "*")
		}
		if i+1 < len(out) {
			t = strings.TrimRight(t, "*")
		}
		b.WriteString(t)
	}
}

// dropStarRuns returns s without its runs of two or more '*'.
func dropStarRuns(s string) string {
	if !strings.Contains(s, "**") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '*' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '*' {
			j++
		}
		if j-i == 1 {
			b.WriteByte('*')
		}
		i = j
	}
	return b.String()
}

// writeFlat writes s with runs of white space (new lines included) as one
// space.
func writeFlat(b *strings.Builder, s string) {
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
}

// stemStarts returns the starts of the query's stems, never nil.
func (f *lineFilter) stemStarts() [][]byte {
	if f.stems == nil {
		return [][]byte{}
	}
	return f.stems
}
