package wiki

import (
	"bytes"
	"strings"
)

// LogEntry is one entry of log.md: its heading line ("## [YYYY-MM-DD
// HH:MM] op | title") and the whole entry's text, heading included, without
// the blank lines that separate it from the next.
type LogEntry struct {
	Heading string
	Text    string
}

// When returns the entry's time as written ("YYYY-MM-DD HH:MM"), "" when
// the heading has none. Times compare as strings.
func (e LogEntry) When() string {
	rest, ok := strings.CutPrefix(e.Heading, "## [")
	if !ok {
		return ""
	}
	when, _, ok := strings.Cut(rest, "]")
	if !ok {
		return ""
	}
	return when
}

// SplitLog is the one parse of log.md: the text before the first entry
// (the file's title and notes) and the entries in file order. An entry
// starts at a line beginning "## [" (RenderLogEntry escapes such lines in
// details, so they cannot start one by accident).
func SplitLog(data []byte) (preamble string, entries []LogEntry) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var cur *strings.Builder
	var heading string
	var pre strings.Builder
	flush := func() {
		if cur != nil {
			entries = append(entries, LogEntry{Heading: heading, Text: strings.TrimRight(cur.String(), "\n")})
		}
	}
	lines := strings.SplitAfter(text, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "## [") {
			flush()
			cur = &strings.Builder{}
			heading = strings.TrimRight(l, "\n")
		}
		if cur != nil {
			cur.WriteString(l)
		} else {
			pre.WriteString(l)
		}
	}
	flush()
	return pre.String(), entries
}

// MergeLogs merges two versions of log.md that both grew from a common one
// (a sync, wiki/git): every entry of either side once (an entry both hold
// counts once, as many times as the side holding it more often does), in
// time order; entries of the same minute keep theirs' order first. The
// preamble is theirs'. log.md is append-only, so the union loses nothing
// and never conflicts.
func MergeLogs(ours, theirs []byte) []byte {
	pre, te := SplitLog(theirs)
	if len(bytes.TrimSpace(theirs)) == 0 {
		pre, _ = SplitLog(ours)
	}
	_, oe := SplitLog(ours)
	have := map[string]int{}
	for _, e := range te {
		have[e.Text]++
	}
	var only []LogEntry // ours' entries theirs lacks, in ours' order
	for _, e := range oe {
		if have[e.Text] > 0 {
			have[e.Text]--
			continue
		}
		only = append(only, e)
	}
	merged := make([]LogEntry, 0, len(te)+len(only))
	i, j := 0, 0
	for i < len(te) || j < len(only) {
		if j == len(only) || (i < len(te) && te[i].When() <= only[j].When()) {
			merged = append(merged, te[i])
			i++
		} else {
			merged = append(merged, only[j])
			j++
		}
	}
	var b strings.Builder
	b.WriteString(pre)
	if pre != "" && !strings.HasSuffix(pre, "\n") {
		b.WriteString("\n")
	}
	if pre != "" && !strings.HasSuffix(pre, "\n\n") && len(merged) > 0 {
		b.WriteString("\n")
	}
	for k, e := range merged {
		if k > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(e.Text)
	}
	if len(merged) > 0 {
		b.WriteString("\n")
	}
	return []byte(b.String())
}
