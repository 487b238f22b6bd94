package search

import (
	"bytes"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	index "github.com/blevesearch/bleve_index_api"
)

// Analyzer names registered with bleve.
const (
	analyzerText  = "llmwiki_text"  // [analyze]
	analyzerTerms = "llmwiki_terms" // pre-analysed terms separated by spaces
)

// schemaVersion changes whenever analysis or mapping changes; an index built
// with another version is rebuilt.
const schemaVersion = "llmwiki-search-6"

// bm25B is BM25's length normalisation (bleve's default is 0.75). Pages in a
// wiki vary from one line to thousands; with full normalisation a short
// page that mentions a term once beats the long page that is about it. At
// 0.5 a long page pays two thirds as much for its length as at 0.75 (with
// true average lengths, see bm25Context); docs/performance.md has the
// recall of both golden sets at 0.3, 0.5 and 0.75.
// bleve keeps it in a package variable: [SetProcessSettings] sets it.
const bm25B = 0.5

func init() {
	if err := registry.RegisterAnalyzer(analyzerText, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return textAnalyzer{}, nil
	}); err != nil {
		panic(err)
	}
	if err := registry.RegisterAnalyzer(analyzerTerms, func(map[string]any, *registry.Cache) (analysis.Analyzer, error) {
		return termsAnalyzer{}, nil
	}); err != nil {
		panic(err)
	}
}

type textAnalyzer struct{}

// Analyze runs [analyze] for bleve.
func (textAnalyzer) Analyze(input []byte) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(input)/6+1)
	analyze(string(input), func(t token) {
		typ := analysis.AlphaNumeric
		out = append(out, &analysis.Token{Term: []byte(t.term), Start: t.start, End: t.end, Position: t.pos, Type: typ})
	})
	return out
}

type termsAnalyzer struct{}

// Analyze splits pre-analysed terms at spaces. Each term is a slice of
// input, which bleve keeps unchanged while it indexes the field.
func (termsAnalyzer) Analyze(input []byte) analysis.TokenStream {
	n := bytes.Count(input, []byte{' '}) + 1
	toks := make([]analysis.Token, 0, n)
	pos := 0
	for off := 0; off <= len(input); {
		end := bytes.IndexByte(input[off:], ' ')
		if end < 0 {
			end = len(input)
		} else {
			end += off
		}
		if end > off {
			pos++
			toks = append(toks, analysis.Token{Term: input[off:end:end], Start: off, End: end, Position: pos, Type: analysis.AlphaNumeric})
		}
		off = end + 1
	}
	out := make(analysis.TokenStream, len(toks))
	for i := range toks {
		out[i] = &toks[i]
	}
	return out
}

// newMapping returns the index mapping: BM25 scoring and the fields of
// [indexDoc].
func newMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	im.DefaultAnalyzer = analyzerText
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	dm := bleve.NewDocumentStaticMapping()
	text := func(analyzer string, vectors bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = vectors
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	kw := func(store bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeInAll = false
		f.DocValues = false
		f.IncludeTermVectors = false
		return f
	}
	stored := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Index = false
		f.Store = true
		f.IncludeInAll = false
		f.DocValues = false
		f.IncludeTermVectors = false
		return f
	}
	dm.AddFieldMappingsAt("all", text(analyzerText, true))
	dm.AddFieldMappingsAt("title", text(analyzerText, false))
	dm.AddFieldMappingsAt("code", text(analyzerText, false))
	dm.AddFieldMappingsAt("stem", text(analyzerTerms, false))
	dm.AddFieldMappingsAt("tstem", text(analyzerTerms, false))
	dm.AddFieldMappingsAt("kind", kw(true))
	dm.AddFieldMappingsAt("lang", kw(true))
	dm.AddFieldMappingsAt("path", kw(false))
	dm.AddFieldMappingsAt("tags", kw(false))
	dm.AddFieldMappingsAt("t", stored())
	dm.AddFieldMappingsAt("u", stored())
	im.DefaultMapping = dm
	return im
}
