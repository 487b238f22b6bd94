package mdoc

import (
	"strings"
	"unsafe"
)

// Kind classifies one line of a markdown document.
type Kind uint8

const (
	// Other is a line outside fenced code that is not an ATX heading.
	Other Kind = iota
	// Heading is an ATX heading outside fenced code.
	Heading
	// Open is the opening fence line of a fenced code block.
	Open
	// Code is a line inside a fenced code block.
	Code
	// Close is the closing fence line of a fenced code block.
	Close
)

// InCode reports whether a line of kind k belongs to a fenced code block
// (its fences included).
func (k Kind) InCode() bool { return k >= Open }

// Fences follows fenced code blocks across the lines of one document, by the
// CommonMark rules: a fence opens with at least three backticks or tildes
// indented by at most three spaces (a backtick fence's info string holds no
// backtick); it closes with the same character, at least as many, indented by
// at most three spaces and followed by nothing but spaces and tabs; a fence
// left open runs to the end of the document. A line inside fenced code is
// never a heading.
//
// The zero value is outside any fence. Feed it every line in order, without
// its line ending ("\n" or "\r\n"; a trailing "\r" is ignored), through
// [Fences.Line] or [Fences.LineBytes]. Container blocks (block quotes, list
// items) are the caller's: pass the line with their markers removed.
type Fences struct {
	ch byte // '`' or '~' while inside a fenced block, else 0
	n  int  // length of the opening fence
}

// Line classifies line and advances past it.
func (f *Fences) Line(line string) Kind { return f.step(line) }

// LineBytes is [Fences.Line] for a line held as bytes.
func (f *Fences) LineBytes(line []byte) Kind { return f.step(view(line)) }

// Open reports whether the lines seen so far end inside fenced code.
func (f *Fences) Open() bool { return f.ch != 0 }

func (f *Fences) step(line string) Kind {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if f.ch != 0 {
		if closes(line, f.ch, f.n) {
			f.ch, f.n = 0, 0
			return Close
		}
		return Code
	}
	if ch, n := opens(line); n > 0 {
		f.ch, f.n = ch, n
		return Open
	}
	if lvl, _, _ := atx(line); lvl > 0 {
		return Heading
	}
	return Other
}

// indent returns the byte offset of line's first character after at most
// three columns of leading spaces, or -1 when the line is indented four
// columns or more (a tab counts as reaching the next multiple of four).
func indent(line string) int {
	i := 0
	for i < len(line) && i < 4 {
		switch line[i] {
		case ' ':
			i++
		case '\t':
			return -1
		default:
			return i
		}
	}
	if i == 4 {
		return -1
	}
	return i
}

// opens returns the fence character and length line opens, or 0, 0.
func opens(line string) (byte, int) {
	i := indent(line)
	if i < 0 || i >= len(line) {
		return 0, 0
	}
	ch := line[i]
	if ch != '`' && ch != '~' {
		return 0, 0
	}
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-i < 3 {
		return 0, 0
	}
	if ch == '`' {
		for k := j; k < len(line); k++ {
			if line[k] == '`' {
				return 0, 0
			}
		}
	}
	return ch, j - i
}

// closes reports whether line closes a fence of n characters ch.
func closes(line string, ch byte, n int) bool {
	i := indent(line)
	if i < 0 {
		return false
	}
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-i < n {
		return false
	}
	for ; j < len(line); j++ {
		if line[j] != ' ' && line[j] != '\t' {
			return false
		}
	}
	return true
}

// ATX returns the level (1 to 6) and text of the ATX heading line is, or 0
// and "": one to six "#" indented by at most three spaces, then a space, a
// tab or the end of the line. The text is trimmed of spaces and tabs and of
// a closing run of "#" that follows a space or tab ("# Title ##" is "Title";
// "# C#" is "C#"). ATX does not know about fences: use [Fences] to skip
// fenced code.
func ATX(line string) (int, string) {
	lvl, s, e := atx(line)
	return lvl, line[s:e]
}

// ATXBytes is [ATX] for a line held as bytes; the text shares line's memory.
func ATXBytes(line []byte) (int, []byte) {
	lvl, s, e := atx(view(line))
	return lvl, line[s:e]
}

// view returns b as a string sharing its memory, for the scanning functions
// here, which read their line and keep nothing of it.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// atx returns the heading level of line and the byte range of its text.
func atx(line string) (int, int, int) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	i := indent(line)
	if i < 0 || i >= len(line) || line[i] != '#' {
		return 0, 0, 0
	}
	j := i
	for j < len(line) && line[j] == '#' {
		j++
	}
	lvl := j - i
	if lvl > 6 || (j < len(line) && line[j] != ' ' && line[j] != '\t') {
		return 0, 0, 0
	}
	s, e := j, len(line)
	for s < e && (line[s] == ' ' || line[s] == '\t') {
		s++
	}
	for e > s && (line[e-1] == ' ' || line[e-1] == '\t') {
		e--
	}
	// A closing sequence: a run of "#" at the end, preceded by a space or
	// tab, or making up the whole text.
	k := e
	for k > s && line[k-1] == '#' {
		k--
	}
	if k < e && (k == s || line[k-1] == ' ' || line[k-1] == '\t') {
		e = k
		for e > s && (line[e-1] == ' ' || line[e-1] == '\t') {
			e--
		}
	}
	return lvl, s, e
}

// TrimQuote returns line without its leading block-quote markers (each at
// most three spaces, ">" and one optional space), as the content a fence or
// heading inside the quote is read from.
func TrimQuote(line string) string {
	for {
		i := 0
		for i < len(line) && i < 3 && line[i] == ' ' {
			i++
		}
		if i >= len(line) || line[i] != '>' {
			return line
		}
		i++
		if i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		line = line[i:]
	}
}

// DemoteHeadings turns every level-1 and level-2 ATX heading of s outside
// fenced code into a level-3 heading, so text quoted into a document cannot
// start a section of its own (a dated research section, a transcript turn,
// a title).
func DemoteHeadings(s string) string {
	lines := strings.Split(s, "\n")
	var fences Fences
	for i, l := range lines {
		if fences.Line(l) != Heading {
			continue
		}
		if lvl, _ := ATX(l); lvl <= 2 {
			lines[i] = "###" + strings.TrimLeft(strings.TrimLeft(l, " "), "#")
		}
	}
	return strings.Join(lines, "\n")
}
