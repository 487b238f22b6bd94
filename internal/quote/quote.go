// Package quote checks that a quoted passage really occurs in a file, under a
// documented normalisation, so that evidence an agent or a model submits
// (lint findings, answer citations) cannot be made up.
//
// The normalisation, applied to both the quote and the file text:
//
//  1. Unicode NFKC (compatibility forms: ligatures, full-width letters,
//     superscripts fold to their plain letters);
//  2. case folding (Unicode simple folding, so "Straße" ~ "STRASSE" is NOT
//     equal but "Ä" ~ "ä" is);
//  3. curly quotes to straight (‘ ’ ‚ ‛ ′ → ', “ ” „ ‟ ″ « » → ");
//  4. dash variants to "-" (‐ ‑ ‒ – — ― − ⁃ ﹘ ﹣ －);
//  5. no-break and other Unicode spaces to a plain space;
//  6. markdown emphasis and code markers removed: * _ ` ~~ ==;
//  7. every run of whitespace, line breaks included, to one space, and the
//     result trimmed.
//
// A quote must be 8 to 300 characters after trimming (before normalisation)
// to count as evidence. The idea and the limits come from MindBase's lint
// verifier: "a verbatim quote from each page, 8–300 characters,
// copied exactly", checked "modulo case/whitespace/markdown normalization".
package quote

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Length limits of a quote, in characters, after trimming.
const (
	MinLen = 8
	MaxLen = 300
)

var replacer = strings.NewReplacer(
	"‘", "'", "’", "'", "‚", "'", "‛", "'", "′", "'",
	"“", `"`, "”", `"`, "„", `"`, "‟", `"`, "″", `"`, "«", `"`, "»", `"`,
	"‐", "-", "‑", "-", "‒", "-", "–", "-", "—", "-", "―", "-", "−", "-", "⁃", "-", "﹘", "-", "﹣", "-", "－", "-",
	"~~", "", "==", "",
)

// Normalize returns s under the package's normalisation. It is idempotent:
// when removing markers or spaces brings characters together that Unicode
// orders or composes differently (combining marks on both sides of a "*"),
// or makes a new "~~" or "==" ("~*~"), the steps are applied again until nothing changes, so a normal form is
// its own normal form (found by go test -fuzz FuzzNormalize).
func Normalize(s string) string {
	n := normalizeOnce(s)
	for i := 0; i < 4 && (!norm.NFKC.IsNormalString(n) || strings.Contains(n, "~~") || strings.Contains(n, "==")); i++ {
		m := normalizeOnce(n)
		if m == n {
			break
		}
		n = m
	}
	return n
}

func normalizeOnce(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = norm.NFKC.String(s)
	s = replacer.Replace(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '*' || r == '_' || r == '`':
			continue
		case unicode.IsSpace(r) || r == '\u00a0' || r == '\u202f' || r == '\u2007' || r == '\u200b':
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(fold(r))
	}
	return b.String()
}

// fold maps r to a canonical case form: ToLower of the lowest rune in its
// simple-folding orbit, so every member of the orbit maps to the same rune.
func fold(r rune) rune {
	min := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < min {
			min = f
		}
	}
	return unicode.ToLower(min)
}

// Check reports why quote cannot be evidence, or "" when its length is fine.
func Check(quote string) string {
	q := strings.TrimSpace(quote)
	if !utf8.ValidString(q) {
		return "quote is not valid UTF-8"
	}
	n := utf8.RuneCountInString(q)
	switch {
	case n == 0:
		return "quote is empty or only whitespace"
	case n < MinLen:
		return "quote is shorter than 8 characters; copy a longer verbatim passage"
	case n > MaxLen:
		return "quote is longer than 300 characters; copy a shorter verbatim passage"
	}
	return ""
}

// Found reports whether quote occurs in text under the normalisation. It
// does not check the quote's length (see [Check]).
func Found(quote, text string) bool {
	q := Normalize(quote)
	return q != "" && strings.Contains(Normalize(text), q)
}

// Line returns the 1-based line of text where quote starts (under the
// normalisation), or 0 when it is not found. It is slower than [Found]; use
// it to point a reader at the evidence.
func Line(quote, text string) int {
	q := Normalize(quote)
	if q == "" {
		return 0
	}
	nt := Normalize(text)
	idx := strings.Index(nt, q)
	if idx < 0 {
		return 0
	}
	// Walk the lines, normalising the prefix up to each line end, until the
	// normalised prefix covers the match start.
	lines := strings.SplitAfter(text, "\n")
	var prefix strings.Builder
	for i, l := range lines {
		prefix.WriteString(l)
		if len(Normalize(prefix.String())) > idx {
			return i + 1
		}
	}
	return len(lines)
}

// Text is a text prepared for many quote lookups: normalised once, with
// the line each part of the normal form came from. Build it with [Prepare];
// it is immutable and safe for concurrent use.
type Text struct {
	norm   string
	starts []int // offset in norm where each contributing line begins
	lines  []int // the 1-based line of each start
}

// Prepare normalises text line by line. Because line breaks are
// whitespace, and no normalisation step joins characters across one, the
// result equals Normalize(text).
func Prepare(text string) *Text {
	t := &Text{}
	var b strings.Builder
	b.Grow(len(text))
	line := 0
	for len(text) > 0 {
		line++
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		n := Normalize(l)
		if n == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		t.starts = append(t.starts, b.Len())
		t.lines = append(t.lines, line)
		b.WriteString(n)
	}
	t.norm = b.String()
	return t
}

// Normalized returns the text's normal form (equal to Normalize(text)).
func (t *Text) Normalized() string { return t.norm }

// Find looks for quote in the text under the normalisation and returns the
// 1-based line where its first occurrence starts. ok is false when it does
// not occur (or normalises to nothing).
func (t *Text) Find(quote string) (line int, ok bool) {
	q := Normalize(quote)
	if q == "" {
		return 0, false
	}
	idx := strings.Index(t.norm, q)
	if idx < 0 {
		return 0, false
	}
	i := sort.SearchInts(t.starts, idx+1) - 1
	if i < 0 {
		i = 0
	}
	return t.lines[i], true
}
