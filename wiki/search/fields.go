package search

import (
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// The text fields of [indexDoc], in the order of [fieldLens].
const (
	fieldAll = iota
	fieldTitle
	fieldCode
	fieldStem
	fieldTStem
	numTextFields
)

var textFieldNames = [numTextFields]string{"all", "title", "code", "stem", "tstem"}

// partSep is what joins the parts of a combined field (see [fieldSep]).
const partSep = "\n" + fieldSep + "\n"

// fileDoc is what bleve indexes for one file: meta holds the keyword and
// stored fields, which the mapping turns into bleve fields; the text
// fields come from text, which analyses each piece of the file once.
type fileDoc struct {
	meta indexDoc
	text *textFields
}

// document maps d to the bleve document with the given ID. Its text fields
// are analysed by bleve's analysis workers (side by side, as the mapped
// fields were) when they call Analyze.
func (d fileDoc) document(id string, m mapping.IndexMapping) (*document.Document, error) {
	doc := document.NewDocument(id)
	if err := m.MapDocument(doc, d.meta); err != nil {
		return nil, err
	}
	for i, f := range doc.Fields {
		for k, name := range textFieldNames {
			if f.Name() == name {
				d.text.opts[k], d.text.ap[k] = f.Options(), f.ArrayPositions()
				doc.Fields[i] = &preField{name: name, text: d.text, k: k}
			}
		}
	}
	return doc, nil
}

// lens returns the measures of the file's scored fields (analysing it if
// bleve has not yet; after document, which tells the fields' options).
func (d fileDoc) lens() fieldLens {
	d.text.once.Do(d.text.run)
	return d.text.lens
}

// textFields is the text of one file as the all, title, code, stem and
// tstem fields see it. The combined fields repeat their parts (the title
// three times in "all", and again in "title", "stem" and "tstem"); each part
// is analysed once and its tokens are counted where the combined string's
// analysis would put them ([analyzeEnd]). The code and the prose are read
// from the body's tokens (a line end resets the analyser, so a block's
// tokens are the same alone or inside the body). The term frequencies are
// what bleve's analysis.TokenFrequency makes of the combined strings'
// tokens, built without a token stream.
type textFields struct {
	once  sync.Once
	rel   string
	lang  string
	p     parsed // let go once analysed
	opts  [numTextFields]index.FieldIndexingOptions
	ap    [numTextFields][]uint64
	freqs [numTextFields]index.TokenFrequencies
	len   [numTextFields]int
	lens  fieldLens
	// plain is the bytes of text each field stands for, the length of its
	// combined string (bleve's statistics of text indexed; none for the
	// stems, which stand for text counted in "all"). bleve reads it before
	// analysis, so it is known without analysing.
	plain [numTextFields]uint64
}

// newTextFields returns the text fields of the file rel, parsed as p.
func newTextFields(rel, lang string, p parsed) *textFields {
	tf := &textFields{rel: rel, lang: lang, p: p}
	joined := func(ss ...[]string) uint64 {
		n, parts := 0, 0
		for _, s := range ss {
			for _, x := range s {
				n += len(x)
				parts++
			}
		}
		return uint64(n + max(0, parts-1)*len(partSep))
	}
	all := titleRepeat*(len(p.title)+len(partSep)) + len(pathWords(rel)) + len(partSep) + len(p.body)
	for _, ss := range [][]string{p.aliases, p.tags} {
		for _, s := range ss {
			all += aliasRepeat * (len(s) + len(partSep))
		}
	}
	for _, h := range p.headings {
		all += headingRepeat * (len(h) + len(partSep))
	}
	tf.plain[fieldAll] = uint64(all)
	tf.plain[fieldTitle] = joined([]string{p.title}, p.aliases)
	tf.plain[fieldCode] = joined(p.code)
	return tf
}

// textPart is one analysed piece of text.
type textPart struct {
	text  string
	toks  []token
	terms [][]byte // the bytes of each token's term
	end   int      // the last position analyzeEnd took
}

// tokPool holds token buffers between files.
var tokPool = sync.Pool{New: func() any { return new([]token) }}

// partSlab holds the tokens and term bytes of all the parts of one file
// (one buffer of each a file, not one a part: a file with many headings
// would otherwise take as many pooled buffers, each grown to the largest
// part it once held).
type partSlab struct {
	toks  *[]token
	terms []byte
}

func newPartSlab() *partSlab {
	buf := tokPool.Get().(*[]token)
	*buf = (*buf)[:0]
	return &partSlab{toks: buf}
}

// part analyses s into the slab. The part's tokens and terms are slices of
// the slab's buffers; a buffer that grows leaves the earlier parts' slices
// on the old one, unchanged.
func (sl *partSlab) part(s string) *textPart {
	pt := &textPart{text: s}
	toks := *sl.toks
	at := len(toks)
	pt.end = analyzeEnd(s, func(t token) { toks = append(toks, t) })
	*sl.toks = toks
	pt.toks = toks[at:len(toks):len(toks)]
	n := 0
	for _, t := range pt.toks {
		n += len(t.term)
	}
	if cap(sl.terms)-len(sl.terms) < n {
		sl.terms = make([]byte, 0, max(n, 2*cap(sl.terms), 256))
	}
	pt.terms = make([][]byte, len(pt.toks))
	for i, t := range pt.toks {
		at := len(sl.terms)
		sl.terms = append(sl.terms, t.term...)
		pt.terms[i] = sl.terms[at:len(sl.terms):len(sl.terms)]
	}
	return pt
}

// release gives the token buffer back (the parts' toks are then unusable;
// their terms stay valid).
func (sl *partSlab) release() {
	b := *sl.toks
	clear(b) // the terms' strings
	*sl.toks = b[:0]
	if cap(b) <= 1<<16 {
		tokPool.Put(sl.toks)
	}
	sl.toks = nil
}

// freqBuilder builds the term frequencies of one field as
// analysis.TokenFrequency does from its tokens in order.
type freqBuilder struct {
	m       index.TokenFrequencies
	freqs   []index.TokenFreq     // where the map's values live
	locs    []index.TokenLocation // where the terms' locations live
	ap      []uint64
	vectors bool
	norm    bool
	n       int // tokens
}

func newFreqBuilder(opts index.FieldIndexingOptions, ap []uint64, tokens int) *freqBuilder {
	fb := &freqBuilder{m: make(index.TokenFrequencies, tokens/2+1), ap: ap, vectors: opts.IncludeTermVectors(), norm: !opts.SkipFreqNorm()}
	fb.freqs = make([]index.TokenFreq, 0, tokens/2+1)
	if fb.vectors {
		fb.locs = make([]index.TokenLocation, 0, tokens)
	}
	return fb
}

func (fb *freqBuilder) add(term []byte, start, end, pos int) {
	fb.n++
	tf, ok := fb.m[string(term)]
	if !ok {
		if len(fb.freqs) == cap(fb.freqs) {
			fb.freqs = make([]index.TokenFreq, 0, max(16, 2*cap(fb.freqs)))
		}
		fb.freqs = append(fb.freqs, index.TokenFreq{Term: term})
		tf = &fb.freqs[len(fb.freqs)-1]
		fb.m[string(term)] = tf
	}
	if fb.vectors {
		if len(fb.locs) == cap(fb.locs) {
			fb.locs = make([]index.TokenLocation, 0, max(16, 2*cap(fb.locs)))
		}
		fb.locs = append(fb.locs, index.TokenLocation{ArrayPositions: fb.ap, Start: start, End: end, Position: pos})
		tf.Locations = append(tf.Locations, &fb.locs[len(fb.locs)-1])
	}
	if fb.norm {
		tf.SetFrequency(tf.Frequency() + 1)
	}
}

// combine counts the tokens of the parts joined by partSep, at the offsets
// and positions textAnalyzer gives them in the joined string.
func (tf *textFields) combine(k int, parts []*textPart) {
	n := 0
	for _, pt := range parts {
		n += len(pt.toks)
	}
	fb := newFreqBuilder(tf.opts[k], tf.ap[k], n)
	off, base := 0, 0
	for _, pt := range parts {
		for i, t := range pt.toks {
			fb.add(pt.terms[i], off+t.start, off+t.end, base+t.pos)
		}
		off += len(pt.text) + len(partSep)
		base += pt.end + fieldGap
	}
	tf.set(k, fb)
}

func (tf *textFields) set(k int, fb *freqBuilder) {
	tf.freqs[k], tf.len[k] = fb.m, fb.n
}

// inRanges reports whether [start, end) lies inside one of rs (sorted, not
// overlapping).
func inRanges(rs [][2]int, start, end int) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] > start })
	return i < len(rs) && rs[i][0] <= start && end <= rs[i][1]
}

// stemArena holds the bytes of stem terms, a block at a time.
type stemArena struct{ buf []byte }

func (a *stemArena) term(lang, st string) []byte {
	n := len(baseLang(lang)) + 1 + len(st)
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(1024, n))
	}
	at := len(a.buf)
	a.buf = appendStemTerm(a.buf, lang, st)
	return a.buf[at:len(a.buf):len(a.buf)]
}

// Where a body token is, for the code field and the prose's stems.
const (
	inOther = iota
	inCode
	inProse
)

// run analyses the file and fills in freqs, len and lens.
func (tf *textFields) run() {
	p := &tf.p
	slab := newPartSlab()
	part := slab.part
	defer func() {
		slab.release()
		tf.p = parsed{}
	}()
	parts := func(ss []string) []*textPart {
		out := make([]*textPart, len(ss))
		for i, s := range ss {
			out[i] = part(s)
		}
		return out
	}
	title := part(p.title)
	aliases, tags, headings := parts(p.aliases), parts(p.tags), parts(p.headings)
	body := part(p.body)

	var all []*textPart
	rep := func(pt *textPart, n int) {
		for i := 0; i < n; i++ {
			all = append(all, pt)
		}
	}
	rep(title, titleRepeat)
	for _, a := range aliases {
		rep(a, aliasRepeat)
	}
	for _, t := range tags {
		rep(t, aliasRepeat)
	}
	for _, h := range headings {
		rep(h, headingRepeat)
	}
	all = append(all, part(pathWords(tf.rel)), body)
	titles := append([]*textPart{title}, aliases...)
	tf.combine(fieldAll, all)
	tf.combine(fieldTitle, titles)

	// The code field and the prose's stems come from the body's tokens.
	where := make([]uint8, len(body.toks))
	ncode := 0
	for i, t := range body.toks {
		switch {
		case inRanges(p.codeAt, t.start, t.end):
			where[i] = inCode
			ncode++
		case inRanges(p.proseAt, t.start, t.end):
			where[i] = inProse
		}
	}
	code := newFreqBuilder(tf.opts[fieldCode], tf.ap[fieldCode], ncode)
	for i, t := range body.toks {
		if where[i] == inCode {
			code.add(body.terms[i], t.start, t.end, t.pos)
		}
	}
	tf.set(fieldCode, code)

	for _, pt := range all {
		tf.lens[fieldAll] += int32(approxTokens(pt.text))
	}
	for _, pt := range titles {
		tf.lens[fieldTitle] += int32(approxTokens(pt.text))
	}
	for _, c := range p.code {
		tf.lens[fieldCode] += int32(approxTokens(c))
	}

	stem := newFreqBuilder(tf.opts[fieldStem], tf.ap[fieldStem], len(body.toks)/2)
	tstem := newFreqBuilder(tf.opts[fieldTStem], tf.ap[fieldTStem], 8)
	defer func() {
		tf.set(fieldStem, stem)
		tf.set(fieldTStem, tstem)
		tf.lens[fieldStem], tf.lens[fieldTStem] = int32(stem.n), int32(tstem.n)
	}()
	if !hasStemmer(tf.lang) {
		return
	}
	var arena stemArena
	// stems returns the stem terms of pt's word tokens (of those whose
	// where is inProse, when pt is the body).
	stems := func(pt *textPart, where []uint8) [][]byte {
		var out [][]byte
		for i, t := range pt.toks {
			if where != nil && where[i] != inProse {
				continue
			}
			if st := tokenStem(tf.lang, pt.text, t); st != "" {
				out = append(out, arena.term(tf.lang, st))
			}
		}
		return out
	}
	add := func(fb *freqBuilder, terms [][]byte, n int) {
		for i := 0; i < n; i++ {
			for _, s := range terms {
				fb.add(s, 0, 0, fb.n+1)
			}
		}
	}
	for _, pt := range titles {
		st := stems(pt, nil)
		n := aliasRepeat
		if pt == title {
			n = titleRepeat
		}
		add(stem, st, n)
		add(tstem, st, 1)
	}
	for _, h := range headings {
		add(stem, stems(h, nil), headingRepeat)
	}
	if p.summary != "" {
		add(stem, stems(part(p.summary), nil), 1)
	}
	add(stem, stems(body, where), 1)
}

// preField is a text field of a [fileDoc]: bleve's Analyze takes its
// tokens from the file's [textFields].
type preField struct {
	name   string
	text   *textFields
	k      int
	done   bool
	length int
	freqs  index.TokenFrequencies
}

func (f *preField) Name() string                        { return f.name }
func (f *preField) ArrayPositions() []uint64            { return f.text.ap[f.k] }
func (f *preField) Options() index.FieldIndexingOptions { return f.text.opts[f.k] }
func (f *preField) Value() []byte                       { return nil }
func (f *preField) EncodedFieldType() byte              { return 't' }
func (f *preField) AnalyzedLength() int                 { return f.length }
func (f *preField) AnalyzedTokenFrequencies() index.TokenFrequencies {
	return f.freqs
}
func (f *preField) NumPlainTextBytes() uint64 { return f.text.plain[f.k] }

func (f *preField) Size() int {
	n := 96 + len(f.name)
	if f.freqs != nil {
		n += f.freqs.Size()
	}
	return n
}

// Analyze takes the field's term frequencies (once; the file's text
// fields then let them go).
func (f *preField) Analyze() {
	if f.done {
		return
	}
	f.done = true
	f.text.once.Do(f.text.run)
	f.length, f.freqs = f.text.len[f.k], f.text.freqs[f.k]
	f.text.freqs[f.k] = nil
}
