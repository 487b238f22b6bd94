package search

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Limits of a search.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	MaxOffset    = 10_000
	// MaxQueryTerms is how many distinct words of a query are searched; a
	// longer query is cut and the result says so.
	MaxQueryTerms = 48
	// MaxQueryBytes is the longest query read; the rest is ignored (and said).
	MaxQueryBytes = 4096
)

// Match modes.
const (
	MatchBest   = "best"   // every word may match; pages matching more words rank higher
	MatchAll    = "all"    // every word must match
	MatchAny    = "any"    // any word may match; stop words are searched too
	MatchPhrase = "phrase" // the words in this order, next to each other
)

// Scopes.
const (
	ScopePages   = "pages"
	ScopeSources = "sources"
	ScopeContext = "context"
	ScopeAll     = "all"
)

// Query is one search request.
type Query struct {
	// Text is searched literally: no character in it is an operator.
	Text string
	// Match is best (default), all, any or phrase.
	Match string
	// Scope is pages (default), sources, context or all.
	Scope string
	// Tag keeps only files with this tag (case-insensitive, "#" optional).
	Tag string
	// Prefix keeps only files whose path starts with this ("pages/en/",
	// "sources/papers"; a path under pages/ may omit "pages/").
	Prefix string
	// Lang keeps only files in this language ("de", "ja", "pt-br").
	Lang string
	// Limit is the most hits returned (default 10, at most 50); Offset skips
	// hits for paging.
	Limit, Offset int
}

// Hit is one file that matched.
type Hit struct {
	Path    string  `json:"path" jsonschema:"project-relative path; pass it to read_page"`
	Title   string  `json:"title"`
	Score   float64 `json:"score" jsonschema:"relevance: BM25, then re-ranked for word proximity and the query's language; higher is better; comparable only within one result"`
	Updated string  `json:"updated,omitempty" jsonschema:"when the file last changed (RFC 3339): its frontmatter updated key, else (sources, context.md, pages without the key) the file's modification time"`
	Kind    string  `json:"kind" jsonschema:"page or source or context"`
	Lang    string  `json:"lang" jsonschema:"the language the file was analysed in"`
	// Heading is the heading the best match sits under.
	Heading string `json:"heading,omitempty" jsonschema:"the heading the best match sits under"`
	// Snippet is ~200 characters around the best match, matches in **bold**.
	Snippet string `json:"snippet" jsonschema:"about 200 characters centred on the best match; matched words are marked **like this**"`
	// Line is the 1-based line of the best match in the file.
	Line int `json:"line,omitempty" jsonschema:"1-based line of the best match in the file (read_page from_line)"`
	// Listing is the code block the matched prose introduces (or the one
	// matched), when there is one.
	Listing string `json:"listing,omitempty" jsonschema:"the code block that follows the matched prose in its section (or the block matched); up to 1500 characters"`
	// Note says what is special about this hit: a file larger than
	// MaxIndexedBytes is searchable only up to there.
	Note string `json:"note,omitempty" jsonschema:"what is special about this hit, e.g. a file too large to be indexed whole (text past the first 8 MiB is not searchable), or one whose encoding could not be determined (indexed as a guess)"`
}

// Result is the answer to a [Query].
type Result struct {
	Query string `json:"query"`
	Match string `json:"match"`
	Scope string `json:"scope"`
	// Total is how many files match in all.
	Total      int    `json:"total"`
	Hits       []Hit  `json:"hits"`
	NextOffset int    `json:"-"` // callers put it on the wire in their own vocabulary
	Index      Status `json:"index"`
	// QueryNotes say how the query was read (words left out, a cut query).
	QueryNotes []string `json:"notes,omitempty" jsonschema:"how the query was read: words left out as too common (or a query of common words only); a query cut to its first words; a request for code; a limit above 50 lowered to 50"`
	// Note says where else the query matches when the pages scope found
	// nothing but sources did.
	Note string `json:"note,omitempty" jsonschema:"set when no page matches but sources do: how many, and to search again with scope sources"`
}

// group is one query word: its primary term and alternatives.
type group struct {
	terms  []string // primary term first, then extras at its position
	stems  []string // stem terms (with language prefix)
	stop   bool
	intent bool // a word that asks for code, not which code
}

// codeWords: a query that has one of these asks for code; they say nothing
// about which code, so they are left out of the ranking ("give me the
// code" must not be won by prose that says "code"). Only nouns that name code in general are here: words that are
// also the topic of documentation pages ("command", "function", "script",
// "syntax", "source": "command palette", "date functions", "automation
// script", "formatting syntax") are searched as words, or a question about
// them would lose its subject.
var codeWords = map[string]bool{
	"code": true, "snippet": true, "snippets": true, "listing": true, "listings": true,
	"example": true, "examples": true, "sample": true, "samples": true,
}

// codeAskWords are the asking words of a request for code ("show me the
// code for..."), left out with the code word. Verbs that name a task ("print",
// "find", "write") are not asking words: "pretty print JSON" is about printing.
var codeAskWords = map[string]bool{"show": true, "give": true, "display": true, "see": true, "need": true, "want": true, "me": true}

// platformNames: the names one operating system goes by. Rule: a question
// names the platform the way people say it ("on a Mac"), documentation
// files it the way its folders and headings do ("osx/", "macOS"); each name
// also searches the others (as extra forms of the word, like the whole form
// of a split identifier).
var platformNames = map[string][]string{
	"mac": {"macos", "osx"}, "macos": {"mac", "osx"}, "osx": {"macos", "mac"},
}

// Search runs a query. An empty query, or one with nothing searchable in it,
// is a CodeInvalid error that says what to do.
func (x *Index) Search(ctx context.Context, q Query) (Result, error) {
	res := Result{Query: q.Text, Match: q.Match, Scope: q.Scope, Hits: []Hit{}}
	if err := normalise(&q, &res); err != nil {
		return res, err
	}
	res.Match, res.Scope = q.Match, q.Scope
	if r, ok, err := x.searchEarly(ctx, q, res); ok {
		return r, err
	}
	x.ensure(ctx)
	groups, lang, codeAsk, notes := x.readQuery(q)
	res.QueryNotes = append(res.QueryNotes, notes...)
	if len(groups) == 0 {
		res.Index = x.Status()
		return res, store.Errorf(store.CodeInvalid, "the query %q has no words to search for (punctuation and symbols alone are not indexed); search for words, names or numbers", clip(q.Text, 60))
	}
	x.mu.RLock()
	idx, state, reason := x.idx, x.state, x.reason
	x.mu.RUnlock()
	if idx == nil {
		res.Index = x.Status()
		if state == StateFailed {
			return res, store.Errorf(store.CodeInternal, "the search index is unavailable: %s; it is rebuilt at the next search, or delete %s and retry", reason, StateDir)
		}
		return res, store.Errorf(store.CodeConflict, "the search index is being rebuilt (%s); retry in a moment", reason)
	}
	bq := buildQuery(groups, q.Match, codeAsk)
	// Pages are kept by leaving the other kinds out where those are few:
	// the filter on kind:page checks every candidate against the postings
	// of a term nearly every document has, the exclusion against a few.
	byExclusion := q.Scope == ScopePages && !noKindExclusion && x.fewNonPages(idx)
	if byExclusion {
		bq.AddMustNot(term("kind", KindSource, 1), term("kind", KindContext, 1))
	}
	if f := filterQueryKind(q, !byExclusion); f != nil {
		bq.AddFilter(f)
	}
	// The first rerankDepth hits are re-ranked (see rerank); a page within
	// them needs all of them, a page past them does not.
	from, size := q.Offset, q.Limit
	if q.Offset < rerankDepth {
		from, size = 0, max(q.Offset+q.Limit, rerankDepth)
	}
	req := bleve.NewSearchRequestOptions(bq, size, from, false)
	if noFieldCache {
		req.Fields = hitFields
	}
	// Term positions are needed only for the proximity of the first
	// rerankDepth hits (rank.go); asking for them here would make bleve
	// decode the positions of every matching file (every page that says
	// "file"), so they are read afterwards for those hits alone
	// (withLocations). A phrase query reads positions to match anyway.
	twoPhase := from == 0 && q.Match != MatchPhrase && !onePhaseLocations
	req.IncludeLocations = from == 0 && !twoPhase
	gen := x.gen.Load() // before the search: see loadFields
	sctx := ctx
	if n, err := idx.DocCount(); err == nil {
		sctx = bm25Context(ctx, n, x.fieldAverages())
	}
	// The index's snapshot before the search: when it is still the current
	// one after, the search read it too, and its document numbers hold for
	// withLocations.
	var before index.IndexReader
	if twoPhase {
		if adv, err := idx.Advanced(); err == nil {
			before, _ = protect(adv.Reader)
		}
	}
	sr, err := safeSearch(sctx, idx, req)
	if before != nil {
		defer before.Close()
	}
	if err != nil && sctx != ctx && ctx.Err() == nil && strings.Contains(err.Error(), "field stat for bm25") {
		sr, err = safeSearch(ctx, idx, req) // a field without statistics: bleve's own
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, store.Errorf(store.CodeCancelled, "the search was cancelled")
		}
		x.log.Error("search failed; rebuilding the index", "err", err)
		x.restart("rebuilt: a search failed to read the index (" + shortErr(err) + ")")
		res.Index = x.Status()
		return res, store.Errorf(store.CodeInternal, "the search index could not be read and is being rebuilt; retry in a moment")
	}
	res.Total = int(sr.Total)
	if res.Total == 0 && q.Scope == ScopePages {
		res.Note = x.sourcesNote(sctx, idx, groups, codeAsk, q)
	}
	hits := sr.Hits
	if !noFieldCache {
		x.loadFields(idx, gen, hits)
	}
	if from == 0 {
		var occs map[*search.DocumentMatch][]posOcc
		if twoPhase && needsProximity(hits, groups, codeAsk) {
			var err error
			if occs, err = withLocations(sctx, idx, before, hits[:min(len(hits), rerankDepth)], groups); err != nil {
				x.log.Warn("search: term positions not read; ranked without proximity", "err", err)
			}
		}
		hits = rerank(hits, lang, groups, codeAsk, occs)
		hits = hits[min(q.Offset, len(hits)):]
		hits = hits[:min(q.Limit, len(hits))]
	}
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = h.ID
	}
	infos := x.statHits(paths) // of each hit, for its snippet
	for i, h := range hits {
		hit := Hit{Path: h.ID, Score: math.Round(h.Score*10000) / 10000}
		hit.Title, _ = h.Fields["t"].(string)
		hit.Updated, _ = h.Fields["u"].(string)
		hit.Kind, _ = h.Fields["kind"].(string)
		hit.Lang, _ = h.Fields["lang"].(string)
		if fi := infos[i]; fi != nil {
			if hit.Updated == "" {
				hit.Updated = fi.ModTime().UTC().Format(time.RFC3339)
			}
			if fi.Size() > MaxIndexedBytes {
				hit.Note = fmt.Sprintf("the file is %d bytes; only its first %d bytes (%d MiB) are indexed and searchable", fi.Size(), MaxIndexedBytes, MaxIndexedBytes>>20)
			}
		}
		res.Hits = append(res.Hits, hit)
	}
	x.fillSnippetsOf(res.Hits, infos, groups, codeAsk)
	if q.Offset+len(hits) < res.Total && len(hits) == q.Limit {
		res.NextOffset = q.Offset + len(hits)
	}
	res.Index = x.Status()
	if res.Index.State != StateReady {
		res.QueryNotes = append(res.QueryNotes, "the index is "+res.Index.State+": "+res.Index.Reason)
	}
	return res, nil
}

// sourcesNote counts the sources the query matches, for a search of pages
// that found none; it returns the note to show, or "" when no source
// matches either.
func (x *Index) sourcesNote(ctx context.Context, idx bleve.Index, groups []group, codeAsk bool, q Query) string {
	q.Scope = ScopeSources
	bq := buildQuery(groups, q.Match, codeAsk)
	if f := filterQuery(q); f != nil {
		bq.AddFilter(f)
	}
	sr, err := safeSearch(ctx, idx, bleve.NewSearchRequestOptions(bq, 0, 0, false))
	if err != nil || sr.Total == 0 {
		return ""
	}
	if sr.Total == 1 {
		return "no pages match; 1 source matches: search again with scope: sources"
	}
	return fmt.Sprintf("no pages match; %d sources match: search again with scope: sources", sr.Total)
}

// fillSnippets fills the snippets of hits (see fillSnippetsOf).
func (x *Index) fillSnippets(hits []Hit, groups []group, codeAsk bool) {
	paths := make([]string, len(hits))
	for i, h := range hits {
		paths[i] = h.Path
	}
	x.fillSnippetsOf(hits, x.statHits(paths), groups, codeAsk)
}

// statHits returns the lstat of each of the files rels (nil for one that
// fails), as the wiki's os.Root.Lstat gives it (see store.StatCache).
func (x *Index) statHits(rels []string) []os.FileInfo {
	if noHitStats {
		out := make([]os.FileInfo, len(rels))
		for i, rel := range rels {
			out[i], _ = x.st.Root().Lstat(rel)
		}
		return out
	}
	return x.stats.Lstat(x.st.Root(), rels)
}

// noHitStats makes statHits use os.Root.Lstat for every hit, as before
// store.StatCache (tests compare the two).
var noHitStats bool

// fillSnippetsOf fills the snippets of hits (infos[i] is the Lstat of
// hits[i], or nil), several at a time when they are not all cached (an
// uncached one reads and analyses its file; see fillSnippetOf).
func (x *Index) fillSnippetsOf(hits []Hit, infos []os.FileInfo, groups []group, codeAsk bool) {
	workers := min(len(hits), runtime.GOMAXPROCS(0))
	if workers > 1 && x.snips.allCached(hits, infos) {
		workers = 1 // lookups: cheaper than starting goroutines
	}
	if workers <= 1 {
		for i := range hits {
			x.fillSnippetOf(&hits[i], infos[i], groups, codeAsk)
		}
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			defer func() {
				// A panic here would end the process, not the call: the
				// hits left get no snippet.
				if r := recover(); r != nil {
					x.log.Error("search: snippet failed", "panic", r)
				}
			}()
			for i := int(next.Add(1)) - 1; i < len(hits); i = int(next.Add(1)) - 1 {
				x.fillSnippetOf(&hits[i], infos[i], groups, codeAsk)
			}
		})
	}
	wg.Wait()
}

// onePhaseLocations makes a search read term positions for every match in
// one search, as before withLocations (tests compare the two).
var onePhaseLocations bool

// withLocations reads the positions in the "all" field of the query words
// (see [proximity]) in hits: those a search with IncludeLocations gives,
// read for these documents only, straight from the postings of each term
// through one index reader (a search restricted to the hits' ids, as
// withLocationsBySearch, costs about as much again in query, collector and
// match set-up as the reads themselves). It returns them by hit, each with
// the first group that has its term, as rerank's termGroup; a hit with none
// is left out. before is a reader opened before the search that found hits
// (or nil): when the index still reads the same snapshot, the hits'
// document numbers are used as the search found them; else they are looked
// up again by id.
func withLocations(ctx context.Context, idx bleve.Index, before index.IndexReader, hits search.DocumentMatchCollection, groups []group) (map[*search.DocumentMatch][]posOcc, error) {
	if locationsBySearch {
		return nil, withLocationsBySearch(ctx, idx, hits, groups)
	}
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	return protect(func() (map[*search.DocumentMatch][]posOcc, error) {
		r, err := adv.Reader()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		docs := make([]locDoc, 0, len(hits))
		if before != nil && r == before && !locationsByID {
			// One snapshot throughout: a snapshot replaced is never current
			// again, so the search read this one.
			for _, h := range hits {
				docs = append(docs, locDoc{id: h.IndexInternalID, hit: h})
			}
			sort.Slice(docs, func(i, j int) bool { return docs[i].id.Compare(docs[j].id) < 0 })
		} else if err := hitDocs(r, hits, &docs); err != nil {
			return nil, err
		}
		occs := make(map[*search.DocumentMatch][]posOcc, len(docs))
		seen := map[string]bool{}
		var buf index.TermFieldDoc // reused: the positions are copied out at once
		for gi, g := range groups {
			for _, t := range g.terms {
				if seen[t] {
					continue
				}
				seen[t] = true
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				tfr, err := r.TermFieldReader(ctx, []byte(t), "all", false, false, true)
				if err != nil {
					return nil, err
				}
				// The reader's position: the first posting at or after the
				// last document asked for.
				var cur *index.TermFieldDoc
				for _, d := range docs {
					if cur == nil || cur.ID.Compare(d.id) < 0 {
						// Ids ascend: the reader only moves on (moving back
						// would open it again).
						if cur, err = tfr.Advance(d.id, &buf); err != nil {
							tfr.Close()
							return nil, err
						}
						if cur == nil {
							break // no posting left
						}
					}
					if !cur.ID.Equals(d.id) {
						continue
					}
					o := occs[d.hit]
					for _, v := range cur.Vectors {
						o = append(o, posOcc{int(v.Pos), gi})
					}
					occs[d.hit] = o
				}
				tfr.Close()
			}
		}
		return occs, nil
	})
}

// locDoc is one hit of withLocations and its document in the reader.
type locDoc struct {
	id  index.IndexInternalID
	hit *search.DocumentMatch
}

// hitDocs appends the documents of hits in r to docs, in ascending order
// (a hit removed since its search has none).
func hitDocs(r index.IndexReader, hits search.DocumentMatchCollection, docs *[]locDoc) error {
	ids := make([]string, len(hits))
	byID := make(map[string]*search.DocumentMatch, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
		byID[h.ID] = h
	}
	dr, err := r.DocIDReaderOnly(ids)
	if err != nil {
		return err
	}
	defer dr.Close()
	for {
		id, err := dr.Next()
		if err != nil || id == nil {
			return err
		}
		ext, err := r.ExternalID(id)
		if err != nil {
			return err
		}
		if h, ok := byID[ext]; ok {
			*docs = append(*docs, locDoc{id: id, hit: h})
		}
	}
}

// locationsByID makes withLocations look the hits' documents up by id
// even when the search's snapshot is still current (tests use it).
var locationsByID bool

// locationsBySearch makes withLocations read the positions with a second
// search, as before it read the postings itself (tests compare the two).
var locationsBySearch bool

// withLocationsBySearch is withLocations through a second search
// restricted to the hits' documents.
func withLocationsBySearch(ctx context.Context, idx bleve.Index, hits search.DocumentMatchCollection, groups []group) error {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	var terms []query.Query
	seen := map[string]bool{}
	for _, g := range groups {
		for _, t := range g.terms {
			if !seen[t] {
				seen[t] = true
				terms = append(terms, term("all", t, 1))
			}
		}
	}
	q := query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery(ids), query.NewDisjunctionQuery(terms)})
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.IncludeLocations = true
	req.Score = bleve.ScoreNone // only the positions are wanted
	sr, err := safeSearch(ctx, idx, req)
	if err != nil {
		return err
	}
	byID := make(map[string]search.FieldTermLocationMap, len(sr.Hits))
	for _, h := range sr.Hits {
		byID[h.ID] = h.Locations
	}
	for _, h := range hits {
		if l, ok := byID[h.ID]; ok {
			h.Locations = search.FieldTermLocationMap{"all": l["all"]}
		}
	}
	return nil
}

func safeSearch(ctx context.Context, idx bleve.Index, req *bleve.SearchRequest) (sr *bleve.SearchResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the index failed while reading: %v", r)
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	return idx.SearchInContext(ctx, req)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// normalise checks and fills in the defaults of q.
func normalise(q *Query, res *Result) error {
	if !utf8.ValidString(q.Text) {
		return store.Errorf(store.CodeInvalid, "the query is not valid UTF-8 text")
	}
	if strings.TrimSpace(q.Text) == "" {
		return store.Errorf(store.CodeInvalid, "the query is empty; give the words to search for")
	}
	if len(q.Text) > MaxQueryBytes {
		cut := MaxQueryBytes
		for cut > 0 && !utf8.RuneStart(q.Text[cut]) {
			cut--
		}
		q.Text = q.Text[:cut]
		res.QueryNotes = append(res.QueryNotes, fmt.Sprintf("the query is longer than %d bytes; only its start was searched", MaxQueryBytes))
	}
	switch strings.ToLower(q.Match) {
	case "", MatchBest, "best_match", "best-match":
		q.Match = MatchBest
	case MatchAll, MatchAny, MatchPhrase:
		q.Match = strings.ToLower(q.Match)
	default:
		return store.Errorf(store.CodeInvalid, "match %q is not one of all, any, phrase (or best, the default)", q.Match)
	}
	switch strings.ToLower(q.Scope) {
	case "", ScopePages:
		q.Scope = ScopePages
	case ScopeSources, ScopeContext, ScopeAll:
		q.Scope = strings.ToLower(q.Scope)
	default:
		return store.Errorf(store.CodeInvalid, "scope %q is not one of pages, sources, context, all", q.Scope)
	}
	if q.Limit < 0 || q.Offset < 0 {
		return store.Errorf(store.CodeInvalid, "limit and offset must not be negative")
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit > MaxLimit {
		res.QueryNotes = append(res.QueryNotes, fmt.Sprintf("limit %d is more than %d; at most %d hits are returned (page on with offset)", q.Limit, MaxLimit, MaxLimit))
		q.Limit = MaxLimit
	}
	if q.Offset > MaxOffset {
		return store.Errorf(store.CodeInvalid, "offset %d is past the last page of results that can be read (%d); narrow the query instead", q.Offset, MaxOffset)
	}
	if q.Lang != "" {
		l := normLang(q.Lang)
		if l == "" {
			return store.Errorf(store.CodeInvalid, "lang %q is not a language code like en, de, ja or pt-br", q.Lang)
		}
		q.Lang = l
	}
	return nil
}

// readQuery analyses the query text into groups, guesses its language for
// stemming and stop words, and decides whether it asks for code.
func (x *Index) readQuery(q Query) ([]group, string, bool, []string) {
	var notes []string
	var groups []group
	byPos := map[int]int{}
	var words []string
	analyze(q.Text, func(t token) {
		if t.extra {
			if t.letter {
				// A letter of a run of Chinese, Japanese, Thai, Khmer...
				// text, an extra form of the bigram it starts: as an
				// alternative it would let the bigram's group match every
				// page holding the letter (in Thai, every Thai page), so
				// such a query would score and snippet a whole script's
				// pages (docs/performance.md, "Search at scale").
				// The bigram itself is indexed; a one-letter query is a
				// primary term, not an extra, and still finds the letter.
				return
			}
			if gi, ok := byPos[t.pos]; ok {
				groups[gi].terms = appendUniq(groups[gi].terms, t.term)
			}
			return
		}
		byPos[t.pos] = len(groups)
		g := group{terms: []string{t.term}}
		groups = append(groups, g)
		if t.word {
			words = append(words, q.Text[t.start:t.end])
		} else {
			words = append(words, "")
		}
	})
	lang := langFromText(q.Text, 1)
	if lang == "" {
		lang = x.defaultLang()
	}
	if q.Lang != "" {
		lang = q.Lang
	}
	// Stems.
	if hasStemmer(lang) {
		for i := range groups {
			if words[i] != "" {
				if st := cachedStem(lang, words[i], groups[i].terms[0]); st != "" {
					groups[i].stems = []string{stemTerm(lang, st)}
				}
			}
		}
	}
	// Names of one platform find each other (see platformNames).
	for i := range groups {
		for _, alt := range platformNames[groups[i].terms[0]] {
			groups[i].terms = appendUniq(groups[i].terms, alt)
		}
	}
	// A request for code: its asking words are left out of the ranking.
	codeAsk := false
	for _, g := range groups {
		if codeWords[g.terms[0]] {
			codeAsk = true
		}
	}
	if codeAsk && q.Match != MatchPhrase {
		kept := groups[:0:0]
		var dropped []string
		for _, g := range groups {
			t := g.terms[0]
			if codeWords[t] || codeAskWords[t] {
				dropped = append(dropped, t)
				continue
			}
			kept = append(kept, g)
		}
		if len(kept) > 0 {
			groups = kept
			notes = append(notes, "asks for code: code blocks rank higher, and "+quoteList(dropped)+" were not searched as words")
		} else {
			codeAsk = false
		}
	}
	// Stop words are left out of best-match queries (not all, any, phrase).
	if q.Match == MatchBest {
		var kept []group
		var dropped []string
		for _, g := range groups {
			if groupIsStop(g, lang) {
				dropped = append(dropped, g.terms[0])
				continue
			}
			kept = append(kept, g)
		}
		if len(kept) > 0 && len(dropped) > 0 {
			groups = kept
			notes = append(notes, "common words not searched: "+quoteList(dropped))
		} else if len(kept) == 0 && len(dropped) > 0 {
			notes = append(notes, "the query has only common words ("+quoteList(dropped)+"); they were all searched, so expect weak matches")
		}
	}
	// Duplicates and the cap.
	seen := map[string]bool{}
	uniq := groups[:0:0]
	for _, g := range groups {
		if q.Match == MatchPhrase || !seen[g.terms[0]] {
			seen[g.terms[0]] = true
			uniq = append(uniq, g)
		}
	}
	groups = uniq
	if len(groups) > MaxQueryTerms {
		notes = append(notes, fmt.Sprintf("the query has %d words; only the first %d were searched", len(groups), MaxQueryTerms))
		groups = groups[:MaxQueryTerms]
	}
	return groups, lang, codeAsk, notes
}

// groupIsStop reports a query word that is a stop word of lang as it is
// written: its whole form when it was split ("doesn't" is split into
// "doesn", and "doesn't" is the stop word), else its one term. A compound or
// identifier made of stop words is not one ("to-do", "getUserName" whose
// part "get" is). A short English stop word in a query of another language
// is one too.
func groupIsStop(g group, lang string) bool {
	t := g.terms[0]
	if len(g.terms) > 1 {
		t = g.terms[1]
	}
	return isStop(lang, t) || (lang != "en" && len(t) < 4 && isStop("en", t))
}

func quoteList(ws []string) string {
	seen := map[string]bool{}
	var out []string
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, `"`+w+`"`)
		}
	}
	if len(out) > 8 {
		out = append(out[:8], "…")
	}
	return strings.Join(out, ", ")
}

func appendUniq(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// Boosts of the parts of one query word.
const (
	boostExtra = 1.2 // the whole identifier or compound, when the word was split
	boostStem  = 0.6 // another form of the word (stem match)
	boostTitle = 0.3 // a match in the title or an alias (titles already count three times in "all")
	boostCode  = 2.0 // a match in code, when the query asks for code
)

func term(field, t string, boost float64) query.Query {
	q := query.NewTermQuery(t)
	q.SetField(field)
	q.SetBoost(boost)
	return q
}

// groupQuery matches one query word in any of its forms and fields.
func groupQuery(g group, codeAsk bool) query.Query {
	var alts []query.Query
	for i, t := range g.terms {
		b := 1.0
		if i > 0 {
			b = boostExtra
		}
		alts = append(alts, term("all", t, b))
	}
	for _, s := range g.stems {
		alts = append(alts, term("stem", s, boostStem))
	}
	// A title matches the word in any of its forms ("property" finds
	// "Properties", "highlighted" finds "Highlighter") where the language
	// has a stemmer; else as written.
	if len(g.stems) > 0 {
		alts = append(alts, term("tstem", g.stems[0], boostTitle))
	} else {
		alts = append(alts, term("title", g.terms[0], boostTitle))
	}
	if codeAsk {
		alts = append(alts, term("code", g.terms[0], boostCode))
	}
	return query.NewDisjunctionQuery(alts)
}

// buildQuery turns groups into a bleve query for the match mode.
func buildQuery(groups []group, match string, codeAsk bool) *query.BooleanQuery {
	bq := query.NewBooleanQuery(nil, nil, nil)
	switch match {
	case MatchPhrase:
		terms := make([][]string, len(groups))
		for i, g := range groups {
			terms[i] = g.terms
		}
		if len(terms) == 1 {
			bq.AddMust(groupQuery(groups[0], codeAsk))
		} else {
			bq.AddMust(query.NewMultiPhraseQuery(terms, "all"))
		}
	case MatchAll:
		var must []query.Query
		for _, g := range groups {
			must = append(must, groupQuery(g, codeAsk))
		}
		bq.AddMust(query.NewConjunctionQuery(must))
	default:
		var should []query.Query
		for _, g := range groups {
			should = append(should, groupQuery(g, codeAsk))
		}
		d := query.NewDisjunctionQuery(should)
		d.SetMin(1)
		bq.AddMust(d)
	}
	return bq
}

// filterQuery restricts results to the scope and filters of q (it does not
// change scores).
func filterQuery(q Query) query.Query { return filterQueryKind(q, true) }

// filterQueryKind is filterQuery, without the scope's kind when kind is
// false. A filter of one query is that query (a conjunction of one would
// only add a layer to every candidate's check).
func filterQueryKind(q Query, kind bool) query.Query {
	var must []query.Query
	switch {
	case !kind:
	case q.Scope == ScopePages:
		must = append(must, term("kind", KindPage, 1))
	case q.Scope == ScopeSources:
		must = append(must, term("kind", KindSource, 1))
	case q.Scope == ScopeContext:
		must = append(must, term("kind", KindContext, 1))
	}
	if t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(q.Tag), "#")); t != "" {
		must = append(must, term("tags", t, 1))
	}
	if p := strings.TrimPrefix(strings.TrimSpace(q.Prefix), "/"); p != "" {
		alts := []query.Query{prefix(p)}
		if !strings.HasPrefix(p, "pages/") && !strings.HasPrefix(p, "sources/") && p != "context.md" {
			alts = append(alts, prefix("pages/"+p))
		}
		must = append(must, query.NewDisjunctionQuery(alts))
	}
	if q.Lang != "" {
		alts := []query.Query{term("lang", q.Lang, 1)}
		if !strings.Contains(q.Lang, "-") {
			alts = append(alts, prefix(q.Lang+"-"))
			alts[1].(*query.PrefixQuery).SetField("lang")
		}
		must = append(must, query.NewDisjunctionQuery(alts))
	}
	if len(must) == 0 {
		return nil
	}
	if len(must) == 1 && !noKindExclusion {
		return must[0]
	}
	return query.NewConjunctionQuery(must)
}

// noKindExclusion makes searches filter as before fewNonPages: on the
// scope's kind whatever the counts, and through a conjunction even of one
// filter (tests compare the two).
var noKindExclusion bool

// fewNonPages reports whether the documents other than pages (sources,
// context.md) are at most a quarter as many as the pages, and every
// document has one of the three kinds, so that leaving sources and
// context.md out keeps exactly the pages. Counted again after each batch.
func (x *Index) fewNonPages(idx bleve.Index) bool { return x.kindCounts(idx).few }

func prefix(p string) query.Query {
	q := query.NewPrefixQuery(p)
	q.SetField("path")
	return q
}
