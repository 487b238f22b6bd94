package eval

import (
	"reflect"
	"strings"
	"testing"
)

// TestHitsFromNothingAndTranscriptWaste: a question answered with nothing
// read or searched in its session is not a wiki hit and not a source gap
// but counted apart (answered from nothing); one read earlier in the
// session is what the answer could stand on. A transcript answer that
// names one file it read wastes none of its reads; one that names none
// wastes them all. Audit questions keep per-file waste.
func TestHitsFromNothingAndTranscriptWaste(t *testing.T) {
	qs := []*Question{
		{Source: "audit", Session: "a", Question: "q1 from nothing"},
		{Source: "audit", Session: "b", Question: "q2 page cited", PagesRead: []string{"pages/sync.md"}, seen: []string{"pages/sync.md"},
			Citations: nil, cited: []string{"pages/sync.md"}},
		{Source: "claude-transcript", Session: "c", Question: "q3 names one read", PagesRead: []string{"pages/sync.md", "pages/other.md"},
			SourcesRead: []string{"sources/manual.md"}, seen: []string{"pages/sync.md", "pages/other.md", "sources/manual.md"}, cited: []string{"pages/sync.md"}},
		{Source: "claude-transcript", Session: "d", Question: "q4 names nothing", PagesRead: []string{"pages/sync.md", "pages/other.md"},
			seen: []string{"pages/sync.md", "pages/other.md"}},
		{Source: "audit", Session: "a", Question: "q5 still nothing in session a"},
		{Source: "audit", Session: "e", Question: "q6 searched only", Searches: []string{"sync"}},
		{Source: "audit", Session: "b", Question: "q7 after a read in session b"},
	}
	rep := &Report{Questions: qs}
	judgeQuestions(rep, nil, nil, nil)
	summarise(rep)
	for _, c := range []struct {
		q                int
		hit, fromNothing bool
		wasted           []string
	}{
		{0, false, true, []string{}},
		{1, true, false, []string{}},
		{2, false, false, []string{}},
		{3, true, false, []string{"pages/sync.md", "pages/other.md"}},
		{4, false, true, []string{}},
		{5, true, false, []string{}},
		{6, true, false, []string{}},
	} {
		q := qs[c.q]
		if q.Hit != c.hit || q.FromNothing != c.fromNothing || !reflect.DeepEqual(q.Wasted, c.wasted) {
			t.Errorf("%s: hit %v, from nothing %v, wasted %v; want %v, %v, %v", q.Question, q.Hit, q.FromNothing, q.Wasted, c.hit, c.fromNothing, c.wasted)
		}
	}
	s := rep.Summary
	if s.Queries != 7 || s.Hits != 4 || s.FromNothing != 2 || s.NeededSources != 1 || s.WastedReads != 2 || s.HitRate != 4.0/7 {
		t.Errorf("summary %+v", s)
	}
	if md := string(Markdown(rep)); !strings.Contains(md, "| Answered from nothing (no read, no search) | 2 |") || !strings.Contains(md, "| no: read nothing |") {
		t.Errorf("report lacks the answered-from-nothing count:\n%s", md)
	}
	found := false
	for _, f := range behaviourFixes(rep) {
		found = found || strings.Contains(f, "2 questions answered with nothing read or searched")
	}
	if !found {
		t.Errorf("guidelines give no advice on answers from nothing: %v", behaviourFixes(rep))
	}
}
