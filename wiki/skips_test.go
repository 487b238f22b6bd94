package wiki

import (
	"reflect"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestSkipsReport: counts per reason; examples are the first paths by name,
// at most SkipExamples of each reason; ResetReason replaces one reason only;
// Set with no reason forgets.
func TestSkipsReport(t *testing.T) {
	var s store.Skips
	for _, p := range []string{"e", "d", "c", "b"} {
		s.Set(p, SkipBinary)
	}
	s.Set("a", store.SkipNotRegular)
	counts, ex := s.Report()
	if !reflect.DeepEqual(counts, map[string]int{SkipBinary: 4, store.SkipNotRegular: 1}) || !reflect.DeepEqual(ex, map[string][]string{SkipBinary: {"b", "c", "d"}, store.SkipNotRegular: {"a"}}) {
		t.Errorf("got %v %v", counts, ex)
	}
	s.ResetReason(SkipBinary, []string{"z"})
	s.Set("a", "")
	counts, ex = s.Report()
	if !reflect.DeepEqual(counts, map[string]int{SkipBinary: 1}) || !reflect.DeepEqual(ex, map[string][]string{SkipBinary: {"z"}}) {
		t.Errorf("after ResetReason: %v %v", counts, ex)
	}
	var empty store.Skips
	if c, e := empty.Report(); c != nil || e != nil {
		t.Errorf("empty: %v %v", c, e)
	}
}
