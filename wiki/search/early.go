package search

import (
	"bytes"
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

	"github.com/llmwiki/llmwiki/internal/english"
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
	// first pass to read every file before it answers from the files read
	// so far (it answers as soon as the pass is done). Under the 2 s a
	// person waits for a first answer, with room for ranking and snippets.
	earlyWait = 1700 * time.Millisecond
	// earlyHold is the longest the build and the link graph's first walk
	// wait for the pass to finish (so that the pass has the processors to
	// itself; the wait costs the build what the pass takes).
	earlyHold = 5 * time.Second
	// earlyHeadings is the most headings of one file kept (a file's first
	// headings say what it is about; the rest wait for the full index).
	earlyHeadings = 24
	// earlyHeadingBytes bounds one kept heading.
	earlyHeadingBytes = 120
	// earlyHeadBytes is how much of each file the pass reads: the
	// frontmatter, title and first headings of nearly every page (at 44k
	// pages, 0.6% of the files are longer).
	earlyHeadBytes = 16 << 10
	// earlyRunFiles is the most files of one folder read in a row.
	earlyRunFiles = 32
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

// startEarly starts the first pass for the build whose end closes ready
// (the pass Start made, or a new one), over the files of l (nil: the pass
// lists them).
func (x *Index) startEarly(ready <-chan struct{}, e *earlyPass, l *listing) {
	if e == nil {
		e = newEarlyPass()
		x.early.Store(e)
	}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				x.log.Error("search: first pass failed", "panic", r)
			}
		}()
		e.run(x, ready, l)
		<-ready
		x.early.CompareAndSwap(e, nil) // the full index answers now
	}()
}

// WaitFirstPass returns when no first pass is under way (the index needs
// no full build, or the pass has read every file), after d at most, or when
// ctx ends. Work that reads every file at start (the link graph's first
// walk) calls it so that the pass, which the first searches wait for, has
// the processors first.
func (x *Index) WaitFirstPass(ctx context.Context, d time.Duration) {
	e := x.early.Load()
	if e == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.done:
	case <-t.C:
	case <-ctx.Done():
	case <-x.closing:
	}
}

func newEarlyPass() *earlyPass {
	e := &earlyPass{post: map[string][]earlyPost{}, done: make(chan struct{}), t0: time.Now()}
	e.total.Store(-1) // not known until the files are listed
	return e
}

// earlyRun is a run of files of one folder the pass reads in a row:
// names[lo:hi] of listing.dirs[dir].
type earlyRun struct{ dir, lo, hi int32 }

// earlyOrder returns the runs of at most earlyRunFiles files of l's
// folders in the order the pass reads them: spread over the walk's order
// (the k-th run of the walk goes to the place of frac(k·φ), a
// low-discrepancy sequence), so that whatever part of the files the pass
// has read when a search comes is an even sample of every folder, not the
// first folders in path order. Within a run the files share one folder
// handle.
func earlyOrder(l *listing) []earlyRun {
	var runs []earlyRun
	for di, d := range l.dirs {
		for lo := 0; lo < len(d.names); lo += earlyRunFiles {
			runs = append(runs, earlyRun{int32(di), int32(lo), int32(min(lo+earlyRunFiles, len(d.names)))})
		}
	}
	const phi = 0.6180339887498949
	keys := make([]float64, len(runs))
	for k := range runs {
		_, keys[k] = math.Modf(float64(k) * phi)
	}
	idx := make([]int, len(runs))
	for k := range idx {
		idx[k] = k
	}
	sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	out := make([]earlyRun, len(runs))
	for k, at := range idx {
		out[k] = runs[at]
	}
	return out
}

// run reads the files of l (listed here when l is nil: names only, each
// file's read checks it is a regular file) with GOMAXPROCS goroutines.
func (e *earlyPass) run(x *Index, ready <-chan struct{}, l *listing) {
	defer close(e.done)
	if l == nil {
		l = x.walkWith(newNameLister())
	}
	runs := earlyOrder(l)
	e.total.Store(int64(l.count()))
	def := x.defaultLang()
	shared := newEarlyDirs(x, l)
	defer shared.close()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			w := earlyWorker{e: e, def: def, shared: shared, buf: make([]byte, earlyHeadBytes), terms: map[string]uint32{}}
			defer w.closeDir()
			for k := int(next.Add(1)) - 1; k < len(runs); k = int(next.Add(1)) - 1 {
				select {
				case <-ready:
					return
				case <-x.closing:
					return
				default:
				}
				w.readRun(x, l, runs[k])
			}
		})
	}
	wg.Wait()
	e.took.Store(int64(time.Since(e.t0)))
}

// earlyWorker is one goroutine of the pass, with what it reuses from file
// to file.
type earlyWorker struct {
	e      *earlyPass
	def    string
	shared *earlyDirs
	buf    []byte // a file's head
	path   []byte
	terms  map[string]uint32 // one file's terms -> best field
	// The folder open and the terms of its path words (for one language).
	at       int32
	dir      *store.Dir
	root     *os.Root
	dirLang  string
	dirTerms map[string][]string // language -> terms of the folder's path words
	// One run's files, added to the pass under one lock.
	docs  []earlyDoc
	posts [][]earlyTermField
}

type earlyTermField struct {
	term  string
	field uint32
}

func (w *earlyWorker) closeDir() {
	if w.root != nil { // not a shared handle
		w.dir.Close()
		w.root.Close()
	}
	w.dir, w.root = nil, nil
}

// earlyDirs holds the handles of the folders the pass reads in several
// runs, opened once and shared by its goroutines (opening a folder by its
// path costs one openat per path element); other folders are opened by
// the run that reads them.
type earlyDirs struct {
	x    *Index
	l    *listing
	mu   sync.Mutex
	dirs map[int32]*store.Dir
	open []*os.Root
}

// earlyDirsMax bounds the folder handles held at once.
const earlyDirsMax = 256

func newEarlyDirs(x *Index, l *listing) *earlyDirs {
	return &earlyDirs{x: x, l: l, dirs: map[int32]*store.Dir{}}
}

// get returns the shared handle of folder di, nil when it is not shared.
func (s *earlyDirs) get(di int32) *store.Dir {
	if len(s.l.dirs[di].names) <= earlyRunFiles {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.dirs[di]; ok {
		return d
	}
	if len(s.dirs) >= earlyDirsMax {
		return nil
	}
	var d *store.Dir
	rel := s.l.dirs[di].rel
	if rel == "" {
		rel = "."
	}
	if root, err := store.OpenRootDir(s.x.st.Root(), rel); err == nil {
		if dd, err := store.OpenDir(root); err == nil {
			d = dd
			s.open = append(s.open, root)
		} else {
			root.Close()
		}
	}
	s.dirs[di] = d // nil when it cannot be opened: not tried again
	return d
}

func (s *earlyDirs) close() {
	for _, d := range s.dirs {
		if d != nil {
			d.Close()
		}
	}
	for _, r := range s.open {
		r.Close()
	}
}

// readRun reads one run of files and adds them to the pass.
func (w *earlyWorker) readRun(x *Index, l *listing, r earlyRun) {
	d := l.dirs[r.dir]
	if w.dir == nil || w.at != r.dir {
		w.closeDir()
		w.at = r.dir
		clear(w.dirTerms)
		if w.dir = w.shared.get(r.dir); w.dir == nil {
			rel := d.rel
			if rel == "" {
				rel = "."
			}
			if root, err := store.OpenRootDir(x.st.Root(), rel); err == nil {
				if dd, err := store.OpenDir(root); err == nil {
					w.dir, w.root = dd, root
				} else {
					root.Close()
				}
			}
		}
		w.dirLang = ""
		if d.rel != "" {
			w.dirLang = langFromPath(d.rel + "/x")
		}
	}
	w.docs, w.posts = w.docs[:0], w.posts[:0]
	if w.dir != nil {
		for i := r.lo; i < r.hi; i++ {
			if d.stats[i].size < 0 {
				continue
			}
			n, st, err := w.dir.ReadHead(d.names[i], w.buf)
			if err != nil {
				continue
			}
			data := w.buf[:n]
			if st.Size > int64(n) {
				// Only the head was read: drop the last, likely cut, line.
				if k := bytes.LastIndexByte(data, '\n'); k > 0 {
					data = data[:k+1]
				}
			}
			w.path = d.path(w.path, int(i))
			w.add(string(w.path), d, data)
		}
	}
	w.e.addRun(w.docs, w.posts)
	w.e.read.Add(int64(r.hi - r.lo))
}

// add reads one file's title, headings, tags and language into the
// worker's run.
func (w *earlyWorker) add(rel string, d *dirFiles, data []byte) {
	dec := mdoc.Decode(data)
	if dec.Binary {
		return
	}
	p := parseFile(rel, dec.Text)
	// The language from frontmatter or folder, else guessed from the title
	// and headings only (guessing from the prose costs more than the rest
	// of the pass; the full index guesses from the prose).
	lang := p.lang
	if lang == "" {
		lang = w.dirLang
	}
	if lang == "" {
		p.prose = p.headings
		lang = pageLang(rel, p, w.def)
	}
	doc := earlyDoc{path: rel, title: strings.Clone(p.title), kind: kindOf(rel), lang: lang, tags: p.tags}
	for _, h := range p.headings[:min(len(p.headings), earlyHeadings)] {
		if len(h) > earlyHeadingBytes {
			h = clip(h, earlyHeadingBytes)
		}
		doc.headings = append(doc.headings, strings.Clone(h))
	}
	clear(w.terms)
	stems := hasStemmer(lang)
	addField := func(s string, field uint32) {
		analyze(s, func(t token) {
			if t.letter {
				return
			}
			if f, ok := w.terms[t.term]; !ok || f < field {
				w.terms[t.term] = field
			}
			if stems {
				if st := tokenStem(lang, s, t); st != "" {
					k := stemTerm(lang, st)
					if f, ok := w.terms[k]; !ok || f < field {
						w.terms[k] = field
					}
				}
			}
		})
	}
	// The path words: the folder's are the same for every file of the run.
	words := pathWords(rel)
	if k := strings.LastIndexByte(words, '/'); k >= 0 {
		dirTerms, ok := w.dirTerms[lang]
		if !ok {
			addField(words[:k], 0)
			for t := range w.terms {
				dirTerms = append(dirTerms, t)
			}
			if w.dirTerms == nil {
				w.dirTerms = map[string][]string{}
			}
			w.dirTerms[lang] = dirTerms
		} else {
			for _, t := range dirTerms {
				w.terms[t] = 0
			}
		}
		words = words[k+1:]
	}
	addField(words, 0)
	for _, h := range doc.headings {
		addField(h, 1)
	}
	addField(doc.title, 2)
	var posts []earlyTermField
	if len(w.posts) < cap(w.posts) {
		posts = w.posts[:len(w.posts)+1][len(w.posts)][:0]
	}
	for t, f := range w.terms {
		posts = append(posts, earlyTermField{t, f})
	}
	w.docs = append(w.docs, doc)
	w.posts = append(w.posts, posts)
}

// addRun adds the files of one run to the pass.
func (e *earlyPass) addRun(docs []earlyDoc, posts [][]earlyTermField) {
	if len(docs) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range docs {
		id := uint32(len(e.docs))
		e.docs = append(e.docs, docs[i])
		for _, tf := range posts[i] {
			ps, ok := e.post[tf.term]
			t := tf.term
			if !ok {
				t = strings.Clone(t)
			}
			e.post[t] = append(ps, earlyPost(id<<2|tf.field))
		}
	}
}

// status is the index's reason while the first pass answers: what the
// build has done, and what searches answer from meanwhile.
func (e *earlyPass) status(done, total int) string {
	read, all := e.read.Load(), e.total.Load()
	s := "building the index for the first time"
	if total > 0 {
		s += fmt.Sprintf(" (%s of %s files so far)", english.Thousands(done), english.Thousands(total))
	}
	switch {
	case all < 0:
		return s + "; until it is done, searches match titles, headings and file names only, and the files are still being listed"
	case read < all:
		return s + fmt.Sprintf("; until it is done, searches match titles, headings and file names only, of the %s of %s files read so far", english.Thousands(int(read)), english.Thousands(int(all)))
	}
	return s + fmt.Sprintf("; until it is done, searches match the titles, headings and file names of all %s files, not their text", english.Thousands(int(all)))
}

// searchEarly answers q from the first pass when a full build is under
// way: as soon as the pass has read every file, else after earlyWait from
// what it has read. ok is false when the full index should answer (no
// build under way, the build ended, or a wiki of fewer than earlyMinFiles
// files, whose build ends soon).
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
	e := x.early.Load()
	if e == nil {
		// Whether a pass runs is known at once on a fresh wiki, after the
		// walk when the build resumes.
		give := time.NewTimer(x.opt.BuildWait)
		defer give.Stop()
		select {
		case <-x.decided:
		case <-ready:
		case <-give.C:
		case <-ctx.Done():
		}
		if e = x.early.Load(); e == nil {
			return res, false, nil // the index holds most files
		}
	}
	t := time.NewTimer(earlyWait)
	defer t.Stop()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	small := func() bool { n := e.total.Load(); return n >= 0 && n < int64(earlyMinFiles) }
wait:
	for {
		select {
		case <-ready:
			return res, false, nil
		case <-e.done:
			break wait
		case <-t.C:
			break wait
		case <-ctx.Done():
			break wait
		case <-poll.C:
			if small() {
				return res, false, nil
			}
		}
	}
	if small() {
		return res, false, nil
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
