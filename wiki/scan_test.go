package wiki

import (
	"context"
	"strings"
	"testing"
	"time"
)

// research_save demotes level-1 and level-2 headings of the appended text,
// and leaves every line of fenced code as it was: a "```bash" line inside
// a block is code, not its end, so the "# comment" after it stays.
func TestResearchSaveKeepsCode(t *testing.T) {
	frozen := time.Date(2026, 11, 29, 9, 30, 0, 0, time.UTC)
	s, dir := newStore(t, WithClock(func() time.Time { return frozen }))
	content := "## Fake\n```\n```bash\n# comment\n```\n   # Indented fake\n    # indented code\n~~~~\n~~~\n# still code\n~~~~\n# Fake two"
	r, err := s.ResearchSave(context.Background(), ResearchInput{Topic: "shell", Content: content})
	if err != nil {
		t.Fatal(err)
	}
	got := readFile(t, dir, r.Path)
	want := "### Fake\n```\n```bash\n# comment\n```\n### Indented fake\n    # indented code\n~~~~\n~~~\n# still code\n~~~~\n### Fake two"
	if !strings.Contains(got, want) {
		t.Errorf("saved note:\n%s\nwant it to hold:\n%s", got, want)
	}
}

// A page's title, when its frontmatter has none, is its first level-1 ATX
// heading outside fenced code.
func TestFirstHeading(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"# Title\n", "Title"},
		{"text\n\n# Title ##\n", "Title"},
		{"# C#\n", "C#"},
		{"  # Indented\n", "Indented"},
		{"#\tTab\n", "Tab"},
		{"## Two\n# One\n", "One"},
		{"```\n```python\n# not a title\n```\n# Title\n", "Title"},
		{"    ```\n# Title\n", "Title"},
		{"````\n```\n# not a title\n````\n# Title\n", "Title"},
		{"~~~\n# not a title\n", ""},
		{"    # code\n#Tag\n", ""},
		{"# Title\r\n", "Title"},
	} {
		if got := firstHeading([]byte(c.body)); got != c.want {
			t.Errorf("firstHeading(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

// Headings finds level-1 and level-2 ATX headings outside fenced code and
// HTML comments, indented by at most three spaces.
func TestHeadingsScan(t *testing.T) {
	doc := "# A\n```\n```go\n## in code\n```\n  ## B ##\n    ## indented code\n<!--\n## in comment\n-->\n## C\n"
	hs, open := Headings([]byte(doc))
	var got []string
	for _, h := range hs {
		got = append(got, strings.Repeat("#", h.Level)+" "+h.Title)
	}
	if strings.Join(got, "|") != "# A|## B|## C" || open {
		t.Errorf("Headings = %q (open %v), want [# A ## B ## C]", got, open)
	}
	if _, open := Headings([]byte("# A\n```\n")); !open {
		t.Error("a document ending in an open fence is not reported open")
	}
}

// spillCut never cuts inside fenced code, and "#tag" or a "# comment" in
// code is no heading to cut at.
func TestSpillCutScan(t *testing.T) {
	for _, c := range []struct {
		doc        string
		keep, want int
	}{
		{"a\nb\nc\nd\ne\n#tag\ng\nh", 7, 7},
		{"a\nb\nc\nd\ne\n## H\ng\nh", 7, 5},
		{"a\nb\nc\nd\ne\nf\n```\n```sh\n# comment\n```\nk", 9, 6},
		{"a\nb\nc\nd\ne\nf\n```\n```sh\n# comment\n```\nk", 11, 11},
	} {
		if got := spillCut(strings.Split(c.doc, "\n"), c.keep); got != c.want {
			t.Errorf("spillCut(%q, %d) = %d, want %d", c.doc, c.keep, got, c.want)
		}
	}
}
