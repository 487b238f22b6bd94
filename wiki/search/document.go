package search

import (
	"bytes"
	"hash/maphash"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// Kinds of indexed files, matched by the scopes of [Options].
const (
	KindPage    = "page"
	KindSource  = "source"
	KindContext = "context"
)

// Repetitions of each part in the combined "all" field: a cheap BM25F. A
// term in the title counts three times, in an alias, tag or heading twice.
const (
	titleRepeat   = 3
	aliasRepeat   = 2
	headingRepeat = 2
)

// MaxIndexedBytes is how much of one file is indexed, in bytes; the rest of
// a larger file is not searchable, and a hit on such a file says so in its
// note ([Hit].Note).
const MaxIndexedBytes = 8 << 20

// kindOf returns the kind of an indexable project path, or "" for a file
// search does not index.
func kindOf(rel string) string {
	switch wiki.LayerOf(rel) {
	case wiki.LayerPages:
		if strings.EqualFold(path.Ext(rel), ".md") {
			return KindPage
		}
	case wiki.LayerSources, wiki.LayerResearch:
		return KindSource
	case wiki.LayerContext:
		return KindContext
	}
	return ""
}

// indexDoc is what the mapping sees of one file (see mapping.go): the
// keyword and stored fields. The text fields (All to TStem) stay empty
// here: [textFields] gives bleve their terms ([fileDoc]).
type indexDoc struct {
	Kind    string   `json:"kind"`
	Lang    string   `json:"lang"`
	Path    string   `json:"path"`
	Tags    []string `json:"tags"`
	All     string   `json:"all"`
	Title   string   `json:"title"`
	Code    string   `json:"code"`
	Stem    string   `json:"stem"`
	TStem   string   `json:"tstem"`
	T       string   `json:"t"`
	Updated string   `json:"u"`
}

// parsed is a markdown file cut into the parts search cares about.
type parsed struct {
	title    string
	aliases  []string
	tags     []string
	lang     string
	updated  string
	headings []string
	prose    []string // paragraphs outside code
	code     []string // fenced code blocks and whole-line inline code
	body     string
	bodyOff  int // byte offset of body in the file
	// summary is the frontmatter summary (or description), prose[0] when
	// set; the other prose and the code are body[r[0]:r[1]] for each range
	// of proseAt and codeAt, less the "\r" of CRLF line ends.
	summary         string
	proseAt, codeAt [][2]int
}

// parseFile reads the parts of a text file. Markdown frontmatter gives the
// title, aliases, tags, lang (or language) and updated keys; a file with
// unparseable frontmatter is indexed as plain text.
func parseFile(rel string, data []byte) parsed {
	var p parsed
	text := string(data)
	body := text
	if strings.HasSuffix(strings.ToLower(rel), ".md") {
		if d, err := mdoc.ParseDoc(rel, data); err == nil {
			body = string(d.Body)
			if d.Meta != nil {
				p.title = strings.TrimSpace(mdoc.MetaString(d.Meta, "title"))
				p.aliases = mdoc.MetaList(d.Meta, "aliases")
				p.tags = mdoc.MetaList(d.Meta, "tags")
				p.updated = mdoc.MetaString(d.Meta, "updated")
				p.lang = normLang(mdoc.MetaString(d.Meta, "lang"))
				if p.lang == "" {
					p.lang = normLang(mdoc.MetaString(d.Meta, "language"))
				}
				p.summary = mdoc.MetaString(d.Meta, "summary")
				if p.summary == "" {
					p.summary = mdoc.MetaString(d.Meta, "description")
				}
				if p.summary != "" {
					p.prose = append(p.prose, p.summary)
				}
			}
		}
	}
	p.body = body
	p.bodyOff = len(text) - len(body)
	scanMarkdown(body, func(b block) {
		switch b.kind {
		case blockHeading:
			p.headings = append(p.headings, b.text)
			if p.title == "" && b.level == 1 {
				p.title = b.text
			}
		case blockCode:
			p.code = append(p.code, b.text)
			p.codeAt = append(p.codeAt, [2]int{b.textStart, b.textEnd})
		case blockProse:
			p.prose = append(p.prose, b.text)
			p.proseAt = append(p.proseAt, [2]int{b.start, b.end})
		}
	})
	if p.title == "" {
		base := path.Base(rel)
		p.title = strings.TrimSuffix(base, path.Ext(base))
	}
	for i, t := range p.tags {
		p.tags[i] = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
	}
	return p
}

// pageLang decides the language of a file: the lang (or language)
// frontmatter key; else a folder named by a language tag ([langFromPath]);
// else the text's script or stop words ([langFromText]); else def.
func pageLang(rel string, p parsed, def string) string {
	if p.lang != "" {
		return p.lang
	}
	if l := langFromPath(rel); l != "" {
		return l
	}
	sample := p.title + "\n" + strings.Join(p.prose, "\n")
	if len(sample) > 4000 {
		sample = sample[:4000]
	}
	if l := langFromText(sample, 5); l != "" {
		return l
	}
	return def
}

// buildDoc turns a file into the document bleve indexes.
func buildDoc(rel string, data []byte, defLang string) (fileDoc, parsed) {
	if len(data) > MaxIndexedBytes {
		data = data[:MaxIndexedBytes]
	}
	p := parseFile(rel, data)
	lang := pageLang(rel, p, defLang)
	d := indexDoc{Kind: kindOf(rel), Lang: lang, Path: rel, Tags: p.tags, T: p.title, Updated: p.updated}
	if d.Tags == nil {
		d.Tags = []string{}
	}
	return fileDoc{meta: d, text: newTextFields(rel, lang, p)}, p
}

// pathWords is the part of a path worth searching: its folders below the
// layer folder and the file name without extension.
func pathWords(rel string) string {
	rel = strings.TrimSuffix(rel, path.Ext(rel))
	if i := strings.IndexByte(rel, '/'); i >= 0 {
		rel = rel[i+1:]
	}
	return rel
}

// stemTerm is how a stem is written in the "stem" field: prefixed by the
// base language so that stems of different languages never meet.
func stemTerm(lang, s string) string { return string(appendStemTerm(nil, lang, s)) }

// appendStemTerm appends stemTerm(lang, s) to b.
func appendStemTerm(b []byte, lang, s string) []byte {
	b = append(b, baseLang(lang)...)
	b = append(b, ':')
	return append(b, s...)
}

// tokenStem returns the stem of t, a token of src, in lang: "" for a
// token no stemmer reduces (a number, an n-gram, an extra form) or one
// whose stem is empty.
func tokenStem(lang, src string, t token) string {
	if t.extra || !t.word {
		return ""
	}
	return cachedStem(lang, src[t.start:t.end], t.term)
}

// stemCache maps base language + "\x00" + lower-cased word to its stem,
// in shards (by a hash of the key) each under its own lock: a lookup with
// a key built in a buffer makes no string.
var stemCache [16]struct {
	mu sync.RWMutex
	m  map[string]string
}

var stemSeed = maphash.MakeSeed()

// stemCacheLen counts the entries stored in stemCache since it was last
// cleared; at stemCacheMax (some 5 MB of words) it is cleared.
var stemCacheLen atomic.Int64

const stemCacheMax = 50_000

// cachedStem stems one word, remembering the answer (the vocabulary of a
// wiki is far smaller than its text).
func cachedStem(lang, raw, folded string) string {
	// The key: the base language, 0, and strings.ToLower(raw) (or
	// folded, when that holds an apostrophe), built without a string.
	var buf [96]byte
	key := append(buf[:0], baseLang(lang)...)
	key = append(key, 0)
	n := len(key)
	key = appendLower(key, raw)
	if bytes.ContainsAny(key[n:], "’'") {
		key = append(key[:n], folded...)
	}
	// Keyed by what is stemmed (not by the folded form, which "Café" and
	// "cafe" share): the stem of a word never depends on which form of it
	// was met first, or on when the cache was last cleared.
	sh := &stemCache[maphash.Bytes(stemSeed, key)%uint64(len(stemCache))]
	sh.mu.RLock()
	st, ok := sh.m[string(key)]
	sh.mu.RUnlock()
	if ok {
		return st
	}
	st = stem(lang, string(key[n:]))
	if stemCacheLen.Add(1) > stemCacheMax {
		// A large wiki has more distinct words than are worth keeping:
		// start again rather than grow.
		for i := range stemCache {
			c := &stemCache[i]
			c.mu.Lock()
			clear(c.m)
			c.mu.Unlock()
		}
		stemCacheLen.Store(1)
	}
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[string]string{}
	}
	sh.m[string(key)] = st
	sh.mu.Unlock()
	return st
}

// appendLower appends strings.ToLower(s) to b.
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			// strings.ToLower maps the runes (an invalid byte becomes
			// U+FFFD, as ranging over s gives it).
			for _, r := range s[i:] {
				b = utf8.AppendRune(b, unicode.ToLower(r))
			}
			return b
		}
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// Markdown blocks, as search sees them.
const (
	blockProse = iota
	blockHeading
	blockCode
)

type block struct {
	kind       int
	level      int // heading level
	text       string
	start, end int // byte range in the scanned text
	// textStart, textEnd: of a code block, the byte range of its text (the
	// lines between the fences, or what the backticks hold).
	textStart, textEnd int
}

// scanMarkdown cuts markdown into headings, code (fenced blocks and lines
// that are one inline code span, as tldr pages write commands) and prose
// paragraphs, in order.
func scanMarkdown(src string, fn func(block)) { scanMarkdownFrom(src, mdoc.Fences{}, fn) }

// scanMarkdownFrom is [scanMarkdown] for src that starts at a line of a
// longer document, fences the scanner's state after the lines before it (a
// src that starts inside fenced code starts with a code block).
func scanMarkdownFrom(src string, fences mdoc.Fences, fn func(block)) {
	off := 0
	codeStart, paraStart := -1, -1
	textStart := 0 // of the open fenced block
	if fences.Open() {
		codeStart = 0
	}
	var code, para strings.Builder
	// A paragraph's text is its lines, each without its "\r\n" and with
	// a "\n": while that is src[paraStart:off] (lines that end in "\n"
	// alone), para is left empty and the text is that part of src.
	paraSame := false
	flushPara := func(end int) {
		if paraStart >= 0 {
			text := src[paraStart:end]
			if !paraSame {
				text = para.String()
			}
			fn(block{kind: blockProse, text: text, start: paraStart, end: end})
		}
		para.Reset()
		paraStart = -1
	}
	for off < len(src) {
		nl := strings.IndexByte(src[off:], '\n')
		next := len(src)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := strings.TrimRight(src[off:next], "\r\n")
		// Fences and headings inside a block quote are read without
		// its markers.
		q := mdoc.TrimQuote(line)
		kind := fences.Line(q)
		switch kind {
		case mdoc.Close:
			fn(block{kind: blockCode, text: code.String(), start: codeStart, end: next, textStart: textStart, textEnd: off})
			code.Reset()
			off = next
			continue
		case mdoc.Code:
			code.WriteString(line)
			code.WriteByte('\n')
			off = next
			continue
		case mdoc.Open:
			flushPara(off)
			codeStart, textStart = off, next
			off = next
			continue
		}
		t := strings.TrimLeft(line, " \t>")
		switch {
		case kind == mdoc.Heading:
			flushPara(off)
			lvl, text := mdoc.ATX(q)
			fn(block{kind: blockHeading, level: lvl, text: text, start: off, end: next})
		case isCodeLine(t):
			flushPara(off)
			ts := strings.TrimSpace(t)
			in := off + len(line) - len(strings.TrimLeftFunc(t, unicode.IsSpace)) + 1 // after the backtick
			fn(block{kind: blockCode, text: ts[1 : len(ts)-1], start: off, end: next, textStart: in, textEnd: in + len(ts) - 2})
		case strings.TrimSpace(t) == "":
			flushPara(off)
		default:
			if paraStart < 0 {
				paraStart, paraSame = off, true
			}
			if paraSame && (next-off != len(line)+1 || src[next-1] != '\n') {
				paraSame = false
				para.WriteString(src[paraStart:off])
			}
			if !paraSame {
				para.WriteString(line)
				para.WriteByte('\n')
			}
		}
		off = next
	}
	if fences.Open() {
		fn(block{kind: blockCode, text: code.String(), start: codeStart, end: len(src), textStart: textStart, textEnd: len(src)})
	}
	flushPara(len(src))
}

// isCodeLine reports a line that is one inline code span: `like this`.
func isCodeLine(t string) bool {
	t = strings.TrimSpace(t)
	return len(t) > 2 && t[0] == '`' && t[len(t)-1] == '`' && t[1] != '`' && strings.Count(t, "`") == 2
}
