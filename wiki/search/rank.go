package search

import (
	"sort"

	"github.com/blevesearch/bleve/v2/search"
)

// rerankDepth is how many of the best BM25 hits [rerank] reorders. Hits
// past it keep their BM25 order, so paging is stable: the hits of every
// page come from the same ranking.
const rerankDepth = 50

// langPreference multiplies the score of a file written in the query's
// language. Rule: a reader asks in the language they want to read. A wiki
// that holds the same page in several languages (translations share code,
// UI names and product names, so they match a query almost as well) must
// answer an English question with the English page and a German one with
// the German page; pages in other languages still come, after them.
const langPreference = 2.0

// rerank reorders the first rerankDepth hits by their BM25 score times the
// language preference (a file whose language, by its base code, is the
// query's). The scores of the hits become the re-ranked scores.
func rerank(hits search.DocumentMatchCollection, queryLang string) search.DocumentMatchCollection {
	n := min(len(hits), rerankDepth)
	if n < 2 || queryLang == "" {
		return hits
	}
	want := baseLang(queryLang)
	for _, h := range hits[:n] {
		if l, _ := h.Fields["lang"].(string); l != "" && baseLang(l) == want {
			h.Score *= langPreference
		}
	}
	sort.SliceStable(hits[:n], func(i, j int) bool { return hits[i].Score > hits[j].Score })
	// Hits past the window keep their order; none may now outrank the
	// window's last (a boosted score only grows, so this holds).
	return hits
}
