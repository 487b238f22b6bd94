package mdoc

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// plainDoc reports whether every line of s is one whose block structure a
// line scanner can read without the container and HTML-block rules (block
// quotes, lists, HTML blocks, link reference definitions), the documents on
// which Fences and ATX must agree with goldmark line for line.
func plainDoc(s string) bool {
	if strings.ContainsAny(s, "\x00\v\f") || strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\r") {
		return false
	}
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) >= 4 || t == "" {
			continue
		}
		switch c := t[0]; {
		case strings.IndexByte(">-*+<[_=|\t", c) >= 0, c >= '0' && c <= '9':
			return false
		}
	}
	return true
}

// FuzzScan: Fences and ATX never panic, and on documents without container
// blocks they find the same fenced code lines and ATX headings as goldmark.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"# T\n\ntext\n\n```go\n# x\n```\n## S ##\n",
		"```\n```bash\n# c\n```\n# after",
		"````\n```\n````\n~~~ a`b\n# in\n~~~\n",
		"   ```\n    ```\n  ```  \n#\n# #\n### ###\n# C#",
		"text\n```\ncode\n\n\nmore",
		"#\tTab\n  ### x ##  \n#######\n``` `\n",
		"```\r\n# x\r\n```\r\n# y\r\n",
	} {
		f.Add(s)
	}
	md := goldmark.New()
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		var fs Fences
		got := make([]Kind, len(lines))
		heads := map[int]string{}
		for i, l := range lines {
			got[i] = fs.Line(l)
			if got[i] == Heading {
				_, heads[i] = ATX(l)
			}
		}
		if !plainDoc(s) {
			return
		}
		src := []byte(s)
		lineOf := func(off int) int { return strings.Count(s[:off], "\n") }
		code := map[int]bool{}
		wantHeads := map[int]string{}
		nHeads, nFences := 0, 0
		doc := md.Parser().Parse(text.NewReader(src))
		for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
			switch n := n.(type) {
			case *ast.FencedCodeBlock:
				nFences++
				for i := 0; i < n.Lines().Len(); i++ {
					code[lineOf(n.Lines().At(i).Start)] = true
				}
			case *ast.Heading:
				if n.Lines().Len() == 0 {
					nHeads++
					continue
				}
				seg := n.Lines().At(0)
				i := lineOf(seg.Start)
				if lvl, _ := ATX(lines[i]); lvl == 0 {
					continue // a setext heading
				}
				nHeads++
				wantHeads[i] = strings.Trim(string(seg.Value(src)), " \t")
			}
		}
		opens, gotHeads := 0, 0
		for i, k := range got {
			switch k {
			case Open:
				opens++
			case Heading:
				gotHeads++
				if w, ok := wantHeads[i]; ok && w != heads[i] {
					t.Fatalf("line %d %q: ATX text %q, goldmark %q", i+1, lines[i], heads[i], w)
				}
			case Code:
				if !code[i] && strings.Trim(lines[i], " \t\r") != "" {
					t.Fatalf("line %d %q is code here, not for goldmark", i+1, lines[i])
				}
			}
		}
		for i := range code {
			if got[i] != Code {
				t.Fatalf("line %d %q is code for goldmark, %d here", i+1, lines[i], got[i])
			}
		}
		for i := range wantHeads {
			if got[i] != Heading {
				t.Fatalf("line %d %q is a heading for goldmark, %d here", i+1, lines[i], got[i])
			}
		}
		if opens != nFences || gotHeads != nHeads {
			t.Fatalf("%d fences and %d ATX headings here, goldmark %d and %d", opens, gotHeads, nFences, nHeads)
		}
	})
}
