package search

import (
	"context"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2/search"
	"unicode"
	"unicode/utf8"
)

// approxTokens estimates how many terms [analyze] makes of s without
// running it: one per run of letters or digits, one more per character of
// a script written without spaces (bigram plus unigram). It is used only
// for the average field lengths of BM25, where a 10% error is harmless.
func approxTokens(s string) int {
	n := 0
	in := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			w := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
			if w && !in {
				n++
			}
			in = w
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar):
			n += 2
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if !in {
				n++
			}
			in = true
		default:
			in = false
		}
	}
	return n
}

// scoredFields are the fields a query may score on; BM25 needs a length
// statistic for each ([bm25Context]).
// Keyword and filter fields (and "*", which bleve names for queries without
// a field) are given length 1. A field missing here would fail the search,
// so [Index.Search] retries without the statistics when bleve says so.
var scoredFields = []string{"all", "title", "code", "stem", "tstem", "kind", "lang", "path", "tags", "t", "u", "*", "_all", "_id"}

// avgOverride, when set, replaces the measured average field lengths (tests).
var avgOverride map[string]float64

// bm25Context returns ctx carrying the BM25 statistics of the index: its
// document count and, per field, the average field length in terms.
//
// Why: bleve (v2.6) takes a field's average length to be its number of
// distinct terms divided by the number of documents, far below the true
// average, so every page looks many times longer than average and length
// normalisation buries long pages (docs/performance.md, "Search ranking:
// BM25 field lengths"). The averages here come from the files as indexed
// (see fileRec.Len), so BM25's b has its textbook meaning.
func bm25Context(ctx context.Context, docs uint64, avg map[string]float64) context.Context {
	if avgOverride != nil {
		avg = avgOverride
	}
	if docs == 0 || avg == nil {
		return ctx
	}
	card := make(map[string]int, len(scoredFields))
	for _, f := range scoredFields {
		a := avg[f]
		if a < 1 {
			a = 1
		}
		card[f] = int(a * float64(docs))
	}
	return context.WithValue(ctx, search.BM25StatsKey, &search.BM25Stats{DocCount: float64(docs), FieldCardinality: card})
}

// fieldLens is one file's length in terms in the all, title, code, stem and
// tstem fields (estimates for the text fields, see [approxTokens]).
type fieldLens [5]int32

// avgCache holds the last computed averages.
type avgCache struct {
	mu    sync.Mutex
	avg   map[string]float64
	files int
	at    time.Time
}

// fieldAverages returns the average length of each scored field over the
// indexed files, from the manifest (nil while no file has a length). It is
// recomputed when the number of files changed or after 10 seconds; while
// the manifest is being changed it returns the last averages.
func (x *Index) fieldAverages() map[string]float64 {
	x.avg.mu.Lock()
	defer x.avg.mu.Unlock()
	if !x.opMu.TryLock() {
		return x.avg.avg
	}
	defer x.opMu.Unlock()
	if x.avg.avg != nil && len(x.man.Files) == x.avg.files && time.Since(x.avg.at) < 10*time.Second {
		return x.avg.avg
	}
	var sum [len(fieldLens{})]float64
	n := 0
	for _, r := range x.man.Files {
		if r.Skipped || r.Len[0] == 0 {
			continue
		}
		n++
		for i, l := range r.Len {
			sum[i] += float64(l)
		}
	}
	x.avg.files, x.avg.at = len(x.man.Files), time.Now()
	if n == 0 {
		x.avg.avg = nil
		return nil
	}
	x.avg.avg = map[string]float64{"all": sum[0] / float64(n), "title": sum[1] / float64(n), "code": sum[2] / float64(n), "stem": sum[3] / float64(n), "tstem": sum[4] / float64(n)}
	return x.avg.avg
}
