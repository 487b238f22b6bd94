package search

import (
	"strings"
	"testing"
)

// markAll returns matches for every occurrence of each term in body.
func markAll(body string, terms ...string) []match {
	var ms []match
	for i := 0; i < len(body); {
		hit := false
		for _, t := range terms {
			if strings.HasPrefix(body[i:], t) {
				ms = append(ms, match{start: i, end: i + len(t)})
				i += len(t)
				hit = true
				break
			}
		}
		if !hit {
			i++
		}
	}
	return ms
}

// checkMarkers fails when s nests or leaves open a bold marker: every run
// of '*' longer than one is exactly one marker and they pair up.
func checkMarkers(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, "***") {
		t.Errorf("snippet %q holds a run of three or more '*'", s)
	}
	if n := strings.Count(s, "**"); n%2 != 0 {
		t.Errorf("snippet %q has %d bold markers, not pairs", s, n)
	}
}

func TestSnippetBoldIsOnePair(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		terms      []string
		want       string
	}{
		{"plain", "the alias here", []string{"alias"}, "the **alias** here"},
		{"already bold", "the **alias** here", []string{"alias"}, "the **alias** here"},
		{"bold with markers matched", "the **alias** here", []string{"**alias**"}, "the **alias** here"},
		{"adjacent terms", "the aliasname here", []string{"alias", "name"}, "the **aliasname** here"},
		{"bold phrase, two terms", "see **page alias** now", []string{"page", "alias"}, "see **page** **alias** now"},
		{"bold between terms", "an alias**name** x", []string{"alias", "name"}, "an **aliasname** x"},
		{"italic term", "the *alias* here", []string{"alias"}, "the **alias** here"},
		{"star between terms", "a alias*name b", []string{"alias", "name"}, "a **alias*name** b"},
		{"bold italic", "x ***alias*** y", []string{"alias"}, "x **alias** y"},
		{"unmatched bold kept as text", "**note** the alias", []string{"alias"}, "note the **alias**"},
		{"lone star kept", "2 * 3 alias", []string{"alias"}, "2 * 3 **alias**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := markAll(tc.body, tc.terms...)
			if len(ms) == 0 {
				t.Fatalf("no match of %q in %q", tc.terms, tc.body)
			}
			got := excerpt(tc.body, ms[0].start, ms[len(ms)-1].end, ms)
			if got != tc.want {
				t.Errorf("excerpt(%q) = %q, want %q", tc.body, got, tc.want)
			}
			checkMarkers(t, got)
		})
	}
}

// TestSearchSnippetOfBoldAlias: a page that writes its alias in bold
// gives a snippet with one pair of markers around it.
func TestSearchSnippetOfBoldAlias(t *testing.T) {
	_, x, _ := testWiki(t, map[string]string{
		"pages/widget.md": "---\ntitle: Widget\n---\n\nAlso known as **gizmo**, the widget turns.\n",
	})
	r := mustSearch(t, x, Query{Text: "gizmo"})
	if len(r.Hits) == 0 {
		t.Fatalf("no hit for gizmo")
	}
	got := r.Hits[0].Snippet
	if !strings.Contains(got, "**gizmo**") || strings.Contains(got, "***") {
		t.Errorf("snippet %q: want **gizmo** with one pair of markers", got)
	}
	checkMarkers(t, got)
}

// FuzzExcerpt: page text is untrusted; whatever it holds, the snippet
// never nests bold markers and they pair up.
func FuzzExcerpt(f *testing.F) {
	f.Add("the **alias** here", "alias", "name")
	f.Add("an alias**name** x", "alias", "name")
	f.Add("****alias****", "alias", "*")
	f.Add("a*b*c", "a", "b")
	f.Fuzz(func(t *testing.T, body, t1, t2 string) {
		if t1 == "" || t2 == "" || len(body) > 4096 {
			return
		}
		ms := markAll(body, t1, t2)
		if len(ms) == 0 {
			return
		}
		checkMarkers(t, excerpt(body, ms[0].start, ms[len(ms)-1].end, ms))
	})
}
