package mdoc

import (
	"strings"
	"testing"
)

// kinds runs Fences over doc and returns one letter per line: o other,
// h heading, [ open, c code, ] close.
func kinds(doc string) string {
	var f Fences
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		b.WriteByte("oh[c]"[f.Line(l)])
	}
	return b.String()
}

func TestFences(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"plain", "# T\ntext\n## S", "hoh"},
		{"backticks", "```\n# x\n```\n# y", "[c]h"},
		{"tildes", "~~~\n# x\n~~~\n# y", "[c]h"},
		{"info string", "```go\n# x\n```", "[c]"},
		// A fence line with an info string is code, not a close.
		{"info line inside", "```\n```bash\n# comment\n```\n# y", "[cc]h"},
		{"longer opener", "````\n```\n# x\n````\n# y", "[cc]h"},
		{"longer closer", "```\n# x\n`````\n# y", "[c]h"},
		{"other char", "~~~\n```\n# x\n~~~", "[cc]"},
		{"backtick info with backtick", "``` a`b\n# y", "oh"},
		{"tilde info with backtick", "~~~ a`b\n# x\n~~~", "[c]"},
		{"two chars", "``\n# y", "oh"},
		{"indented 3", "   ```\n# x\n   ```\n# y", "[c]h"},
		{"indented 4", "    ```\n# y", "oh"},
		{"tab indent", "\t```\n# y", "oh"},
		{"close indented 4", "```\n    ```\n# x\n```", "[cc]"},
		{"close with text", "```\n``` x\n# x\n```", "[cc]"},
		{"close with spaces", "```\n```  \t\n# y", "[]h"},
		{"unclosed", "```\n# x\n# y", "[cc"},
		{"crlf", "```\r\n# x\r\n```\r\n# y\r", "[c]h"},
		{"heading needs space", "#x\n#\n# \n####### 7", "ohho"},
		{"heading indent", "   # a\n    # b\n\t# c", "hoo"},
	} {
		if got := kinds(c.doc); got != c.want {
			t.Errorf("%s: %q scans as %q, want %q", c.name, c.doc, got, c.want)
		}
	}
}

func TestFencesOpen(t *testing.T) {
	var f Fences
	f.Line("```")
	if !f.Open() {
		t.Fatal("not open after an opening fence")
	}
	f.Line("```")
	if f.Open() {
		t.Fatal("open after the closing fence")
	}
}

func TestATX(t *testing.T) {
	for _, c := range []struct {
		line string
		lvl  int
		text string
	}{
		{"# Title", 1, "Title"},
		{"## Two", 2, "Two"},
		{"###### Six", 6, "Six"},
		{"####### Seven", 0, ""},
		{"#Tag", 0, ""},
		{"#", 1, ""},
		{"#\tTab", 1, "Tab"},
		{"  ## Indented  ", 2, "Indented"},
		{"    # Code", 0, ""},
		{"# Title ##", 1, "Title"},
		{"# Title ##   ", 1, "Title"},
		{"# C#", 1, "C#"},
		{"# F# and C#", 1, "F# and C#"},
		{"### ###", 3, ""},
		{"# #", 1, ""},
		{"# foo \\#", 1, "foo \\#"},
		{"# Title\r", 1, "Title"},
		{"text", 0, ""},
		{"", 0, ""},
	} {
		lvl, text := ATX(c.line)
		if lvl != c.lvl || text != c.text {
			t.Errorf("ATX(%q) = %d, %q; want %d, %q", c.line, lvl, text, c.lvl, c.text)
		}
		blvl, btext := ATXBytes([]byte(c.line))
		if blvl != lvl || string(btext) != text {
			t.Errorf("ATXBytes(%q) = %d, %q; ATX gives %d, %q", c.line, blvl, btext, lvl, text)
		}
	}
}

func TestTrimQuote(t *testing.T) {
	for in, want := range map[string]string{
		"> ```":     "```",
		">> # x":    "# x",
		"  > > a":   "a",
		">":         "",
		"    > a":   "    > a",
		"text > a":  "text > a",
		">\t# x":    "# x",
		"> >   # x": "  # x",
	} {
		if got := TrimQuote(in); got != want {
			t.Errorf("TrimQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDemoteHeadings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# Title\ntext", "### Title\ntext"},
		{"  ## Turn", "### Turn"},
		{"### Deep", "### Deep"},
		{"```\n# comment\n```\n# After", "```\n# comment\n```\n### After"},
		{"    # indented code", "    # indented code"},
		{"#tag", "#tag"},
	} {
		if got := DemoteHeadings(c.in); got != c.want {
			t.Errorf("DemoteHeadings(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
