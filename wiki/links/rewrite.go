package links

import (
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// TargetEdit replaces the target of one link: Link is the link as [Parse]
// found it in the file, Target the new target as a person would write it
// (not percent-encoded; [Rewrite] encodes it for markdown links).
type TargetEdit struct {
	Link   Link
	Target string
}

// Rewrite returns data with each edit's link target replaced, keeping
// everything else of the link: "!", heading chain, block id, "|alias", a
// markdown link's text and title. Edits must name links of data as parsed
// by [Parse]; overlapping edits, reference links and targets a link cannot
// hold ("]]", "|", "#", "^", a line break in a wikilink) are CodeInvalid
// errors and nothing is changed.
func Rewrite(data []byte, edits []TargetEdit) ([]byte, error) {
	es := append([]TargetEdit(nil), edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].Link.TargetStart < es[j].Link.TargetStart })
	prev := -1
	for _, e := range es {
		l := e.Link
		if l.TargetStart < 0 || l.TargetEnd < l.TargetStart || l.TargetEnd > len(data) {
			return nil, store.Errorf(store.CodeInvalid, "the link %s on line %d cannot be rewritten in place (a reference-style link); change its definition by hand", l.Raw, l.Line)
		}
		if l.TargetStart < prev {
			return nil, store.Errorf(store.CodeInvalid, "two edits of the link on line %d overlap", l.Line)
		}
		prev = l.TargetEnd
		if l.Kind == KindWiki && (strings.ContainsAny(e.Target, "|#^\r\n") || strings.Contains(e.Target, "]]")) {
			return nil, store.Errorf(store.CodeInvalid, "%q cannot be written inside a [[wikilink]] (it holds | # ^ ]] or a line break)", e.Target)
		}
		if strings.TrimSpace(e.Target) == "" {
			return nil, store.Errorf(store.CodeInvalid, "a link target cannot be empty")
		}
	}
	var b strings.Builder
	b.Grow(len(data) + 64)
	at := 0
	for _, e := range es {
		l := e.Link
		b.Write(data[at:l.TargetStart])
		t := e.Target
		if l.Kind == KindMarkdown {
			angle := l.TargetStart > 0 && data[l.TargetStart-1] == '<'
			t = escapeDest(t, angle)
		}
		b.WriteString(t)
		at = l.TargetEnd
	}
	b.Write(data[at:])
	return []byte(b.String()), nil
}

// escapeDest percent-encodes what a markdown link destination cannot hold
// literally (space, %, parentheses, <, >, #, ?); letters of any script stay
// readable. Inside <...> only <, > and line breaks need it.
func escapeDest(s string, angle bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<' || r == '>' || r == '\n' || r == '\r':
			b.WriteString(pct(r))
		case angle:
			b.WriteRune(r)
		case r == ' ' || r == '%' || r == '(' || r == ')' || r == '#' || r == '?' || r == '\t':
			b.WriteString(pct(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func pct(r rune) string {
	const hex = "0123456789ABCDEF"
	return "%" + string(hex[r>>4]) + string(hex[r&15])
}
