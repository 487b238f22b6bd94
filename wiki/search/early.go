package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The first pass: while a full build runs (a fresh wiki, or a rebuild), a
// search cannot wait for it (tens of seconds at 38k pages) and bleve may
// hold nothing searchable until the build ends. So alongside the build, the
// first pass reads every indexable file once and keeps, in memory, its path,
// title, headings, kind, language and tags, with an inverted list of their
// terms (the same analysis and stems as the index: a query matches the way
// the full index would, on those fields only). A search during the build
// answers from it, ranked by BM25-like weights of title, headings and path,
// and says so in its notes. The pass is dropped when the build ends.
const (
	// earlyWait is how long a search during a full build waits for the
	// build before it answers from the first pass (and up to half as long
	// again for the pass to finish reading; then from the files read so far).
	earlyWait = 1000 * time.Millisecond
	// earlyHeadings is the most headings of one file kept (a file's first
	// headings say what it is about; the rest wait for the full index).
	earlyHeadings = 24
	// earlyHeadingBytes bounds one kept heading.
	earlyHeadingBytes = 120
)

// Weights of the fields of the first pass (the full index's title field
// outweighs its headings the same way).
const (
	earlyTitleW   = 3.0
	earlyHeadingW = 1.0
	earlyPathW    = 0.5
)

type earlyDoc struct {
	path, title, kind, lang string
	tags                    []string
	headings                []string
}

// earlyPost is one file a term occurs in: doc<<2 | the best field it
// occurs in (0 path, 1 heading, 2 title).
type earlyPost uint32

type earlyPass struct {
	mu    sync.RWMutex
	docs  []earlyDoc
	post  map[string][]earlyPost
	read  atomic.Int64 // files read so far
	total atomic.Int64 // files to read; -1 until the walk is done
	done  chan struct{}
	t0    time.Time
	took  atomic.Int64 // nanoseconds the pass took, once done
}

// earlyMinFiles is the fewest files for which a search answers from the
// first pass: a smaller wiki's build ends soon after the wait (a variable
// for tests).
var earlyMinFiles = 1000

// buildHold, when a test sets it, holds every build until it is closed, so
// that the test can search while a build is under way.
var buildHold chan struct{}

func holdForTest() {
	if buildHold != nil {
		<-buildHold
	}
}

// startEarly starts the first pass for the build whose end closes ready.
func (x *Index) startEarly(ready <-chan struct{}) {
	e := &earlyPass{post: map[string][]earlyPost{}, done: make(chan struct{}), t0: time.Now()}
	e.total.Store(-1) // not known until the files are listed
	x.early.Store(e)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				x.log.Error("search: first pass failed", "panic", r)
			}
		}()
		e.run(x, ready)
		<-ready
		x.early.CompareAndSwap(e, nil) // the full index answers now
	}()
}

func (e *earlyPass) run(x *Index, ready <-chan struct{}) {
	defer close(e.done)
	l := x.walk()
	type item struct{ dir, name int }
	var items []item
	for di, d := range l.dirs {
		for i := range d.names {
			if d.stats[i].size >= 0 {
				items = append(items, item{di, i})
			}
		}
	}
	e.total.Store(int64(len(items)))
	def := x.defaultLang()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			// Each file is read by name in its folder: one openat, not one
			// per path element (store.Dir).
			var dir *store.Dir
			var root *os.Root
			at := -1
			defer func() {
				if dir != nil {
					dir.Close()
					root.Close()
				}
			}()
			buf := make([]byte, 0, 256)
			for i := int(next.Add(1)) - 1; i < len(items); i = int(next.Add(1)) - 1 {
				select {
				case <-ready:
					return
				case <-x.closing:
					return
				default:
				}
				it := items[i]
				d := l.dirs[it.dir]
				if it.dir != at {
					if dir != nil {
						dir.Close()
						root.Close()
						dir, root = nil, nil
					}
					at = it.dir
					rel := d.rel
					if rel == "" {
						rel = "."
					}
					if r, err := store.OpenRootDir(x.st.Root(), rel); err == nil {
						if dd, err := store.OpenDir(r); err == nil {
							dir, root = dd, r
						} else {
							r.Close()
						}
					}
				}
				if dir != nil {
					if data, _, err := dir.ReadFile(d.names[it.name], MaxIndexedBytes); err == nil && data != nil {
						e.add(string(d.path(buf, it.name)), data, def)
					}
				}
				e.read.Add(1)
			}
		})
	}
	wg.Wait()
	e.took.Store(int64(time.Since(e.t0)))
}

// add puts one file into the pass.
func (e *earlyPass) add(rel string, data []byte, def string) {
	dec := mdoc.Decode(data)
	if dec.Binary {
		return
	}
	text := dec.Text
	p := parseFile(rel, text)
	// The language from frontmatter or folder, else guessed from the title
	// and headings only (guessing from the prose costs more than the rest
	// of the pass; the full index guesses from the prose).
	p.prose = p.headings
	d := earlyDoc{path: rel, title: p.title, kind: kindOf(rel), lang: pageLang(rel, p, def), tags: p.tags}
	for _, h := range p.headings[:min(len(p.headings), earlyHeadings)] {
		if len(h) > earlyHeadingBytes {
			h = clip(h, earlyHeadingBytes)
		}
		d.headings = append(d.headings, strings.Clone(h))
	}
	d.title = strings.Clone(d.title)
	terms := map[string]uint32{} // term -> best field
	addField := func(s string, field uint32) {
		analyze(s, func(t token) {
			if t.letter {
				return
			}
			if f, ok := terms[t.term]; !ok || f < field {
				terms[t.term] = field
			}
			if t.word && !t.extra && hasStemmer(d.lang) {
				if st := cachedStem(d.lang, s[t.start:t.end], t.term); st != "" {
					k := stemTerm(d.lang, st)
					if f, ok := terms[k]; !ok || f < field {
						terms[k] = field
					}
				}
			}
		})
	}
	addField(pathWords(rel), 0)
	for _, h := range d.headings {
		addField(h, 1)
	}
	addField(d.title, 2)
	e.mu.Lock()
	id := uint32(len(e.docs))
	e.docs = append(e.docs, d)
	for t, f := range terms {
		ps, ok := e.post[t]
		if !ok {
			t = strings.Clone(t)
		}
		e.post[t] = append(ps, earlyPost(id<<2|f))
	}
	e.mu.Unlock()
}

// status is the state's reason while the first pass answers.
func (e *earlyPass) status(done, total int) string {
	read, all := e.read.Load(), e.total.Load()
	s := "building the index"
	if total > 0 {
		s += fmt.Sprintf(": %d of %d files indexed", done, total)
	}
	if all < 0 {
		return s + "; results come from a first pass over titles, headings and paths, which is still listing the files: none yet"
	}
	if all > 0 && read < all {
		return s + fmt.Sprintf("; results come from a first pass over titles, headings and paths (%d of %d files read so far), not the text", read, all)
	}
	return s + "; results come from a first pass over the titles, headings and paths of every file, not the text"
}

// searchEarly answers q from the first pass when a full build is under
// way and not done within earlyWait; ok is false when the full index
// should answer.
func (x *Index) searchEarly(ctx context.Context, q Query, res Result) (Result, bool, error) {
	x.Start()
	x.mu.RLock()
	ready := x.ready
	x.mu.RUnlock()
	select {
	case <-ready:
		return res, false, nil // the usual case: no build under way
	default:
	}
	t := time.NewTimer(earlyWait)
	defer t.Stop()
	// Whether a build is a full one (and starts the pass) is known once
	// the index is opened, a moment after the start.
	// Until then, wait for it as long as for a build (on a loaded machine
	// opening takes seconds at 144k files).
	e := x.early.Load()
	if e == nil {
		poll := time.NewTicker(5 * time.Millisecond)
		defer poll.Stop()
		give := time.NewTimer(x.opt.BuildWait)
		defer give.Stop()
		for ; e == nil; e = x.early.Load() {
			select {
			case <-ready:
				return res, false, nil
			case <-give.C:
				return res, false, nil
			case <-ctx.Done():
				return res, false, nil
			case <-poll.C:
			}
			if x.isClosed() {
				return res, false, nil
			}
		}
	}
	// A small wiki's build ends before the wait does: the full index answers.
	select {
	case <-ready:
		return res, false, nil
	case <-t.C:
	case <-ctx.Done():
		return res, false, nil
	}
	if n := e.total.Load(); n >= 0 && n < int64(earlyMinFiles) {
		return res, false, nil
	}
	// The pass reads far faster than the build indexes; give it a moment
	// more to finish, then answer from what it has.
	t.Reset(earlyWait / 2)
	select {
	case <-e.done:
	case <-ready:
		return res, false, nil
	case <-t.C:
	case <-ctx.Done():
	}
	groups, lang, codeAsk, notes := x.readQuery(q)
	res.QueryNotes = append(res.QueryNotes, notes...)
	if len(groups) == 0 {
		return res, false, nil // the full path says why
	}
	hits, total := e.search(q, groups, lang)
	res.Total = total
	start := min(q.Offset, len(hits))
	hits = hits[start:]
	hits = hits[:min(q.Limit, len(hits))]
	res.Hits = append(res.Hits, hits...)
	x.fillSnippets(res.Hits, groups, codeAsk)
	if q.Offset+len(hits) < total && len(hits) == q.Limit {
		res.NextOffset = q.Offset + len(hits)
	}
	res.Index = x.Status()
	x.mu.RLock()
	done, all := x.done, x.total
	x.mu.RUnlock()
	if res.Index.State == StateBuilding {
		res.Index.Reason = e.status(done, all)
	}
	res.QueryNotes = append(res.QueryNotes, "the index is "+res.Index.State+": "+res.Index.Reason)
	return res, true, nil
}

// search ranks the pass's files for groups; it returns every match (up to
// MaxOffset+MaxLimit) best first, and how many matched.
func (e *earlyPass) search(q Query, groups []group, lang string) ([]Hit, int) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	n := float64(len(e.docs))
	scores := map[uint32]float64{}
	matched := map[uint32]int{}
	need := 0
	for _, g := range groups {
		if g.stop && q.Match != MatchAny {
			continue
		}
		need++
		best := map[uint32]float64{}
		for _, t := range append(append([]string(nil), g.terms...), g.stems...) {
			ps := e.post[t]
			if len(ps) == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
			for _, p := range ps {
				w := earlyPathW
				switch p & 3 {
				case 1:
					w = earlyHeadingW
				case 2:
					w = earlyTitleW
				}
				if s := idf * w; s > best[uint32(p>>2)] {
					best[uint32(p>>2)] = s
				}
			}
		}
		for id, s := range best {
			scores[id] += s
			matched[id]++
		}
	}
	all := q.Match == MatchAll || q.Match == MatchPhrase
	want := baseLang(lang)
	var ids []uint32
	for id := range scores {
		if all && matched[id] < need {
			continue
		}
		if !e.docs[id].keep(q) {
			continue
		}
		if baseLang(e.docs[id].lang) == want {
			scores[id] *= 1.1 // the query's language first, as rerank does
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := ids[i], ids[j]
		if matched[a] != matched[b] {
			return matched[a] > matched[b]
		}
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return e.docs[a].path < e.docs[b].path
	})
	total := len(ids)
	ids = ids[:min(len(ids), MaxOffset+MaxLimit)]
	hits := make([]Hit, len(ids))
	for i, id := range ids {
		d := &e.docs[id]
		hits[i] = Hit{Path: d.path, Title: d.title, Kind: d.kind, Lang: d.lang, Score: math.Round(scores[id]*10000) / 10000}
	}
	return hits, total
}

// keep applies the query's filters (as filterQuery does for the index).
func (d *earlyDoc) keep(q Query) bool {
	switch q.Scope {
	case ScopePages:
		if d.kind != KindPage {
			return false
		}
	case ScopeSources:
		if d.kind != KindSource {
			return false
		}
	case ScopeContext:
		if d.kind != KindContext {
			return false
		}
	}
	if t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#")); t != "" {
		found := false
		for _, dt := range d.tags {
			found = found || dt == t
		}
		if !found {
			return false
		}
	}
	if p := strings.TrimPrefix(strings.TrimSpace(q.Prefix), "/"); p != "" {
		if !strings.HasPrefix(d.path, p) && (strings.HasPrefix(p, "pages/") || strings.HasPrefix(p, "sources/") || p == "context.md" || !strings.HasPrefix(d.path, "pages/"+p)) {
			return false
		}
	}
	if q.Lang != "" && d.lang != q.Lang && (strings.Contains(q.Lang, "-") || !strings.HasPrefix(d.lang, q.Lang+"-")) {
		return false
	}
	return true
}
