package search

import (
	"container/list"
	"os"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// snippetCacheBytes bounds the memory of the snippet cache (approximate:
// each entry's body, blocks and tokens).
const snippetCacheBytes = 24 << 20

// noSnippetCache makes every snippet read and analyse its file, as before
// the cache (tests compare the two).
var noSnippetCache bool

// snipFile is what a snippet needs of one version of a file that is not
// larger than snippetScan: its decoded body, its markdown blocks and, from
// the second search that hits this version on, its analysed tokens. It is
// never changed once in the cache (a version with tokens replaces it).
type snipFile struct {
	fi       os.FileInfo // the version: same file, size and mtime
	lang     string      // the tokens' language (the hit's)
	body     string
	bodyLine int    // the 1-based line of the file the body starts on
	note     string // the encoding note of an uncertain decode, or ""
	blocks   []block
	// Tokens of body in analysis order (nil until the version is hit a
	// second time), and the tokens of each term and stem, so the matches of
	// a query are looked up rather than analysed.
	toks   []snipTok
	byTerm map[string][]int32
	byStem map[string][]int32
	cost   int
}

type snipTok struct {
	start, end int32
	term       string
}

// snippetCache keeps snipFiles by path, least recently used out first.
type snippetCache struct {
	mu    sync.Mutex
	byKey map[string]*list.Element
	lru   list.List // of *snipFile entries, most recent first
	paths map[*snipFile]string
	bytes int
}

// get returns the cached version of rel that fi describes, or nil.
func (c *snippetCache) get(rel string, fi os.FileInfo) *snipFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[rel]
	if !ok {
		return nil
	}
	f := e.Value.(*snipFile)
	if !sameVersion(f.fi, fi) {
		return nil
	}
	c.lru.MoveToFront(e)
	return f
}

// put stores f as rel's entry, replacing any other, and drops the least
// recently used entries beyond snippetCacheBytes.
func (c *snippetCache) put(rel string, f *snipFile) {
	if f.cost > snippetCacheBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[string]*list.Element{}
		c.paths = map[*snipFile]string{}
	}
	if e, ok := c.byKey[rel]; ok {
		old := e.Value.(*snipFile)
		c.bytes -= old.cost
		delete(c.paths, old)
		c.lru.Remove(e)
	}
	c.byKey[rel] = c.lru.PushFront(f)
	c.paths[f] = rel
	c.bytes += f.cost
	for c.bytes > snippetCacheBytes {
		e := c.lru.Back()
		old := e.Value.(*snipFile)
		c.lru.Remove(e)
		delete(c.byKey, c.paths[old])
		delete(c.paths, old)
		c.bytes -= old.cost
	}
}

func sameVersion(a, b os.FileInfo) bool {
	return a != nil && b != nil && store.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// loadSnipFile reads rel for a snippet: nil when it cannot be read or is
// binary, and big when its body is larger than snippetScan (such a file is
// scanned in a window per query, see fillSnippet, and never cached).
func (x *Index) loadSnipFile(rel string, fi os.FileInfo) (f *snipFile, data []byte, big bool) {
	raw, err := x.st.ReadFile(rel)
	if err != nil {
		return nil, nil, false
	}
	dec := mdoc.Decode(raw) // the text indexed, as read_page shows it
	if dec.Binary {
		return nil, nil, false
	}
	data = dec.Text
	f = &snipFile{fi: fi}
	if dec.Uncertain {
		f.note = "the file's encoding could not be determined; it is indexed as " + dec.Encoding + ", a guess (read_page says the same)"
	}
	if len(data) > MaxIndexedBytes {
		data = data[:MaxIndexedBytes]
	}
	body, bodyOff := splitBody(rel, data)
	f.body = body
	f.bodyLine = 1 + strings.Count(string(data[:bodyOff]), "\n")
	if len(body) > snippetScan {
		return f, data, true
	}
	scanMarkdownFrom(body, mdoc.Fences{}, func(b block) { f.blocks = append(f.blocks, b) })
	f.cost = 256 + len(body)
	for _, b := range f.blocks {
		f.cost += 64
		if !strings.Contains(body, b.text) {
			f.cost += len(b.text)
		}
	}
	return f, data, false
}

// withTokens returns a copy of f with the tokens of its body analysed in
// lang, as findMatches finds them (with every word stemmed).
func (f *snipFile) withTokens(lang string) *snipFile {
	g := *f
	g.lang = lang
	g.toks = nil
	g.byTerm = map[string][]int32{}
	g.byStem = map[string][]int32{}
	stemming := hasStemmer(lang)
	text := f.body
	analyze(text, func(t token) {
		i := int32(len(g.toks))
		g.toks = append(g.toks, snipTok{int32(t.start), int32(t.end), t.term})
		g.byTerm[t.term] = append(g.byTerm[t.term], i)
		if stemming {
			if st := tokenStem(lang, text, t); st != "" {
				k := stemTerm(lang, st)
				g.byStem[k] = append(g.byStem[k], i)
			}
		}
	})
	g.cost = f.cost + len(g.toks)*(8+16+4+4) + (len(g.byTerm)+len(g.byStem))*64
	return &g
}

// matches returns what findMatches(f.body, f.lang, want, nil) returns, from
// the tokens: a token matches by its term, else by its stem. The lists of
// token numbers by term and by stem are in token order, so they are merged
// rather than sorted. A token is in one term list and at most one stem
// list; when a stem list's next token is also a term list's, its term is
// wanted and it matches by its term.
func (f *snipFile) matches(want map[string]int) []match {
	type list struct {
		is   []int32
		gi   int
		stem bool
	}
	var buf [8]list
	lists := buf[:0]
	n := 0
	for k, gi := range want {
		if is := f.byTerm[k]; len(is) > 0 {
			lists = append(lists, list{is, gi, false})
			n += len(is)
		}
		if is := f.byStem[k]; len(is) > 0 {
			lists = append(lists, list{is, gi, true})
			n += len(is)
		}
	}
	var ms []match
	for {
		best := -1
		for j := range lists {
			l := &lists[j]
			if len(l.is) == 0 {
				continue
			}
			if best < 0 || l.is[0] < lists[best].is[0] || l.is[0] == lists[best].is[0] && !l.stem {
				best = j
			}
		}
		if best < 0 {
			return ms
		}
		i := lists[best].is[0]
		if ms == nil {
			ms = make([]match, 0, n)
		}
		t := f.toks[i]
		ms = append(ms, match{int(t.start), int(t.end), lists[best].gi})
		for j := range lists {
			if l := &lists[j]; len(l.is) > 0 && l.is[0] == i {
				l.is = l.is[1:]
			}
		}
	}
}

// allCached reports whether every hit's version is cached with its tokens
// in the hit's language.
func (c *snippetCache) allCached(hits []Hit, infos []os.FileInfo) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, h := range hits {
		e, ok := c.byKey[h.Path]
		if !ok {
			return false
		}
		f := e.Value.(*snipFile)
		if f.toks == nil || f.lang != h.Lang || !sameVersion(f.fi, infos[i]) {
			return false
		}
	}
	return true
}
