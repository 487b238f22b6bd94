package wiki

import (
	"bytes"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

// sectionBytes returns the bytes of the level-2 section titled title (its
// heading line through the line before the next level-1 or level-2 heading),
// skipping headings inside fenced code.
func sectionBytes(doc []byte, title string) ([]byte, bool) {
	start, end := SectionRange(doc, title)
	if start < 0 {
		return nil, false
	}
	return doc[start:end], true
}

// SectionRange returns the byte range [start, end) of the level-2 section
// titled title in doc: from its "## title" line to the next "# " or "## "
// heading outside fenced code and HTML comments, or the end. start is -1
// when there is none. Headings are matched after trimming; a heading like
// "## Eval Insights (auto-generated ...)" matches the title "Eval Insights".
func SectionRange(doc []byte, title string) (int, int) {
	hs, _ := Headings(doc)
	for _, h := range hs {
		if h.Level == 2 && (h.Title == title || strings.HasPrefix(h.Title, title+" ")) {
			return h.Start, h.End
		}
	}
	return -1, -1
}

// Heading is a level-1 ("# ") or level-2 ("## ") heading line of a markdown
// document, found by [Headings].
type Heading struct {
	// Level is 1 or 2.
	Level int
	// Title is the heading text, trimmed.
	Title string
	// Start is the byte offset of the heading line; End is where its
	// section ends: the start of the next level-1 or level-2 heading, or
	// len(doc).
	Start, End int
}

// Headings lists the level-1 and level-2 ATX headings of doc ([mdoc.ATX];
// "\r\n" line ends are fine) that are not inside fenced code ([mdoc.Fences])
// or an HTML comment block (a line starting with "<!--" up to the line
// holding "-->"). open reports whether doc ends inside such a block, where
// anything appended would not be seen as a heading.
func Headings(doc []byte) (hs []Heading, open bool) {
	var fences mdoc.Fences
	comment := false
	off := 0
	for off < len(doc) {
		end := bytes.IndexByte(doc[off:], '\n')
		next := len(doc)
		if end >= 0 {
			next = off + end + 1
		}
		line := strings.TrimRight(string(doc[off:next]), "\r\n")
		t := strings.TrimLeft(line, " ")
		indent := len(line) - len(t)
		switch {
		case comment:
			if strings.Contains(line, "-->") {
				comment = false
			}
		case fences.Line(line).InCode():
		case indent < 4 && strings.HasPrefix(t, "<!--"):
			comment = !strings.Contains(t[4:], "-->")
		default:
			level, title := mdoc.ATX(line)
			if level != 1 && level != 2 {
				break
			}
			if n := len(hs); n > 0 {
				hs[n-1].End = off
			}
			hs = append(hs, Heading{Level: level, Title: title, Start: off, End: len(doc)})
		}
		off = next
	}
	return hs, fences.Open() || comment
}
