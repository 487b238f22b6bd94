package git

import (
	"bytes"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// FuzzParseTree: a raw tree object from cat-file (a person's repository
// feeds it) never panics the parser.
func FuzzParseTree(f *testing.F) {
	f.Add([]byte("100644 a.md\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x1440000 pages\x00abcdefghijklmnopqrst"), 20)
	f.Add([]byte("100644 \x00"), 20)
	f.Fuzz(func(t *testing.T, body []byte, idLen int) {
		if idLen != 20 && idLen != 32 {
			return
		}
		entries, err := parseTree(body, idLen)
		for name, e := range entries {
			if err == nil && (name == "" || len(e.oid) != 2*idLen || len(e.mode) < 6) {
				t.Fatalf("entry %q = %+v", name, e)
			}
		}
	})
}

// FuzzSetSchemaGit: setting the git line of any schema.md keeps every
// git line in, and a frontmatter that parses still parses.
func FuzzSetSchemaGit(f *testing.F) {
	f.Add([]byte("---\nreview: after\ngit: off   # what it does\n---\n# Schema\n"))
	f.Add([]byte("---\r\nindex: auto\r\n---\r\nbody\r\n"))
	f.Add([]byte("# no frontmatter\n"))
	f.Add([]byte("---\nunclosed: 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := SetSchemaGit(data, "commit")
		if bytes.Equal(out, data) {
			return
		}
		if !bytes.Contains(out, []byte("git: commit")) {
			t.Fatalf("changed without the git line:\n%q\n%q", data, out)
		}
		d, err := mdoc.ParseDoc("schema.md", data)
		if err != nil || d.Meta == nil {
			return
		}
		if _, hadGit := d.Meta["git"]; hadGit {
			return // a git key on another line form (git: [x]) may not be rewritten
		}
		if _, err := mdoc.ParseDoc("schema.md", out); err != nil {
			t.Fatalf("the schema no longer parses: %v\n%q", err, out)
		}
	})
}
