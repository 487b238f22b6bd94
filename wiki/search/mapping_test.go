package search

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
)

// refTerms is termsAnalyzer in its plain form (each term copied), which
// the form that slices the input must equal.
func refTerms(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	pos, off := 0, 0
	for _, f := range strings.Split(string(input), " ") {
		if f != "" {
			pos++
			out = append(out, &analysis.Token{Term: []byte(f), Start: off, End: off + len(f), Position: pos, Type: analysis.AlphaNumeric})
		}
		off += len(f) + 1
	}
	return out
}

var analyzerInputs = []string{
	"",
	" ",
	"Hello world",
	"  two  spaces  ",
	"Ünïcödé straße and 東京タワー の 夜景",
	"run running runs ran",
	"code `x := y` and C++ v1.2.3 e-mail foo_bar",
	"a\n" + fieldSep + "\nb",
	"stem stem  stem",
}

func sameStream(t *testing.T, name, input string, got, want analysis.TokenStream) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s(%q):\n got %v\nwant %v", name, input, got, want)
	}
	for i := range got {
		if cap(got[i].Term) != len(got[i].Term) {
			t.Errorf("%s(%q): token %d's term has room past its end (cap %d, len %d): an append would write over the next", name, input, i, cap(got[i].Term), len(got[i].Term))
		}
	}
}

func TestTermsAnalyzerEqualsPlainForm(t *testing.T) {
	for _, in := range analyzerInputs {
		sameStream(t, "termsAnalyzer", in, termsAnalyzer{}.Analyze([]byte(in)), refTerms([]byte(in)))
	}
}

func FuzzAnalyzers(f *testing.F) {
	for _, in := range analyzerInputs {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		textAnalyzer{}.Analyze([]byte(in)) // no panic, whatever the bytes
		sameStream(t, "termsAnalyzer", in, termsAnalyzer{}.Analyze([]byte(in)), refTerms([]byte(in)))
	})
}
