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

// Proximity. Rule: a page that answers a question has the question's words
// together, in one sentence or list item; a page that merely mentions them
// (release notes, changelogs, glossaries, long indexes) has them scattered
// far apart. The proximity of a hit is the largest share of the query's
// words (by distinct query word) found within proxWindow positions of each
// other in the combined field; its score is multiplied by
// 1 + proxWeight × proximity. It needs at least two query words, and is
// not used for a request for code: a listing names things by identifiers
// (parseConfig), not by the question's words in a sentence, so proximity
// would hand the request back to prose.
const (
	proxWindow = 12
	proxWeight = 1.0
)

// rerank reorders the first rerankDepth hits by their BM25 score times the
// language preference (a file whose language, by its base code, is the
// query's) and the proximity factor. The scores of the hits become the
// re-ranked scores. occs holds the positions of the query words in hits
// as withLocations reads them; nil: they are in the hits' Locations.
func rerank(hits search.DocumentMatchCollection, queryLang string, groups []group, codeAsk bool, occs map[*search.DocumentMatch][]posOcc) search.DocumentMatchCollection {
	n := min(len(hits), rerankDepth)
	if n < 2 {
		return hits
	}
	want := baseLang(queryLang)
	termGroup := map[string]int{}
	for gi, g := range groups {
		for _, t := range g.terms {
			if _, ok := termGroup[t]; !ok {
				termGroup[t] = gi
			}
		}
	}
	prox := needsProximity(hits, groups, codeAsk)
	for _, h := range hits[:n] {
		if l, _ := h.Fields["lang"].(string); want != "" && l != "" && baseLang(l) == want {
			h.Score *= langPreference
		}
		if prox {
			var o []posOcc
			if occs != nil {
				o = occs[h]
			} else {
				o = locationOccs(h, termGroup)
			}
			h.Score *= 1 + proxWeight*proximity(o, len(groups))
		}
	}
	sort.SliceStable(hits[:n], func(i, j int) bool { return hits[i].Score > hits[j].Score })
	// Hits past the window keep their order; none outranks the window's
	// last, because re-ranking only raises scores.
	return hits
}

// needsProximity reports whether [rerank] uses the term positions of hits.
func needsProximity(hits search.DocumentMatchCollection, groups []group, codeAsk bool) bool {
	return len(hits) >= 2 && len(groups) >= 2 && !codeAsk
}

// posOcc is one occurrence of a query word in a hit's "all" field: its
// position and the query word's group.
type posOcc struct{ pos, group int }

// locationOccs returns the occurrences of the query words in the hit's
// Locations of the "all" field.
func locationOccs(h *search.DocumentMatch, termGroup map[string]int) []posOcc {
	var occs []posOcc
	for t, locs := range h.Locations["all"] {
		g, ok := termGroup[t]
		if !ok {
			continue
		}
		for _, l := range locs {
			occs = append(occs, posOcc{int(l.Pos), g})
		}
	}
	return occs
}

// proximity returns the largest share of the ngroups query words that
// occur within proxWindow positions of each other in occs (it sorts occs).
func proximity(occs []posOcc, ngroups int) float64 {
	if len(occs) == 0 {
		return 0
	}
	sort.Slice(occs, func(i, j int) bool { return occs[i].pos < occs[j].pos })
	count := make([]int, ngroups)
	distinct, best, lo := 0, 0, 0
	for _, o := range occs {
		if count[o.group] == 0 {
			distinct++
		}
		count[o.group]++
		for o.pos-occs[lo].pos >= proxWindow {
			count[occs[lo].group]--
			if count[occs[lo].group] == 0 {
				distinct--
			}
			lo++
		}
		best = max(best, distinct)
	}
	return float64(best) / float64(ngroups)
}
