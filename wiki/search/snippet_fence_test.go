package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

// snippetOf returns a function that fills one hit on rel for the query text.
func snippetOf(t testing.TB, files map[string]string, rel, text string) func() Hit {
	t.Helper()
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	x := Open(st, Options{})
	groups, _, codeAsk, _ := x.readQuery(Query{Text: text, Match: MatchBest})
	return func() Hit {
		h := Hit{Path: rel, Lang: "en"}
		x.fillSnippet(&h, groups, codeAsk)
		return h
	}
}

// TestSnippetFenceStateFar: a hit far into a long page (past the part
// scanned from the start) is read in the fence state of the lines before it:
// a "# comment" line in fenced code before it is not its heading, and a hit
// inside a long fenced block is code, with its listing, under the page's
// real heading.
func TestSnippetFenceStateFar(t *testing.T) {
	prose := strings.Repeat("Plain words about nothing in particular here.\n", 3000) // > snippetScan
	code := strings.Repeat("x = compute(y)  # step\n", 5000)
	cases := []struct {
		name, body, heading string
		listing             bool
	}{
		{"comment in code before", "# Real heading\n\nIntro.\n\n```sh\n# not a heading\necho hi\n```\n\n" + prose + "\nThe zebrafinch sings.\n", "Real heading", false},
		{"hit inside long code", "# Setup\n\n```python\n" + code + "zebrafinch = 1\n# also not a heading\n" + code + "```\n", "Setup", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := snippetOf(t, map[string]string{"pages/p.md": c.body}, "pages/p.md", "zebrafinch")()
			if !strings.Contains(h.Snippet, "zebrafinch") {
				t.Fatalf("snippet %q", clip(h.Snippet, 200))
			}
			if h.Heading != c.heading {
				t.Errorf("heading %q, want %q", h.Heading, c.heading)
			}
			if got := h.Listing != ""; got != c.listing {
				t.Errorf("listing %q, want one: %v", clip(h.Listing, 80), c.listing)
			}
		})
	}
}

// BenchmarkSnippetFarInLines is BenchmarkSnippetOfAHugeFile for a 5 MB page
// of short lines, where the lines before the window are read for their
// fence state and heading.
func BenchmarkSnippetFarInLines(b *testing.B) {
	body := "# Huge\n\n" + strings.Repeat("lorem ipsum dolor sit amet\n", 200_000) + "needleword\n"
	fill := snippetOf(b, map[string]string{"pages/huge.md": body}, "pages/huge.md", "needleword")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if h := fill(); h.Heading != "Huge" {
			b.Fatalf("heading %q", h.Heading)
		}
	}
}
