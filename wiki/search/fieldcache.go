package search

import (
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
)

// hitFields are the stored fields a search reads of its hits: the title,
// the updated time, the kind and the language (rerank and Hit).
var hitFields = []string{"t", "u", "kind", "lang"}

// maxCachedFields bounds the files whose fields the cache holds (about
// 300 bytes each); past it the cache starts again empty.
const maxCachedFields = 20_000

// noFieldCache makes every search have bleve load the stored fields of its
// hits, as before fieldCache (tests compare the two).
var noFieldCache bool

// fieldCache keeps the stored fields of hits by document id for one index
// at one batch count (Index.gen): bleve decodes a document's stored fields
// (one compressed chunk) for every hit of every search, up to rerankDepth
// a search. Any batch bumps gen, and the cache of an older gen is never
// read, so a cached value is always the one the index holds now.
type fieldCache struct {
	mu  sync.Mutex
	idx bleve.Index
	gen uint64
	m   map[string]map[string]any
}

// loadFields sets the Fields of hits as a search with
// SearchRequest.Fields = hitFields does, from the cache where it holds
// them and else from the index, through one reader. gen is x.gen as read
// before the search that found hits, so that fields stored under it were
// read no earlier than the batch it counts.
func (x *Index) loadFields(idx bleve.Index, gen uint64, hits search.DocumentMatchCollection) {
	c := &x.fields
	var miss []*search.DocumentMatch
	c.mu.Lock()
	valid := c.idx == idx && c.gen == gen
	for _, h := range hits {
		if f, ok := c.m[h.ID]; valid && ok {
			h.Fields = f
		} else {
			miss = append(miss, h)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return
	}
	adv, err := idx.Advanced()
	if err != nil {
		return
	}
	r, err := protect(adv.Reader)
	if err != nil {
		return
	}
	req := &bleve.SearchRequest{Fields: hitFields}
	loaded := make(map[string]map[string]any, len(miss))
	_, _ = protect(func() (struct{}, error) {
		for _, h := range miss {
			d := &search.DocumentMatch{ID: h.ID}
			// The function bleve's search uses, so the values are the same
			// (a hit removed since the search has none).
			if err, _ := bleve.LoadAndHighlightFields(d, req, "", r, nil); err == nil {
				h.Fields = d.Fields
				loaded[h.ID] = d.Fields
			}
		}
		return struct{}{}, nil
	})
	_ = r.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idx != idx || c.gen < gen || len(c.m)+len(loaded) > maxCachedFields {
		c.idx, c.gen, c.m = idx, gen, make(map[string]map[string]any, len(loaded))
	}
	if c.gen != gen {
		return // the index changed since: these may be older than its fields
	}
	for id, f := range loaded {
		c.m[id] = f
	}
}
