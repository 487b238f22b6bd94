package links

import (
	"fmt"
	"path"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"golang.org/x/text/unicode/norm"
)

// Suggester proposes the page a link that leads nowhere probably meant: the
// page titled as the link's target, or the page whose file name is the
// target's slug (llmwiki names pages by slug, so [[Page Title]] meant
// pages/page-title.md). Lint's dangling_link advice and the unresolved
// links write_page and edit_page report use it.
type Suggester struct {
	byTitle map[string][]string
	bySlug  map[string][]string
}

// NewSuggester indexes pages by title and by file name.
func NewSuggester(pages []wiki.PageInfo) *Suggester {
	s := &Suggester{byTitle: map[string][]string{}, bySlug: map[string][]string{}}
	for _, p := range pages {
		s.byTitle[TitleKey(p.Title)] = append(s.byTitle[TitleKey(p.Title)], p.Path)
		if b := path.Base(p.Slug); mdoc.ValidSlug(b) {
			s.bySlug[b] = append(s.bySlug[b], p.Path)
		}
	}
	return s
}

// TitleKey folds a title for comparison: case, runs of white space and
// Unicode normalisation do not count.
func TitleKey(s string) string {
	return norm.NFC.String(strings.ToLower(strings.Join(strings.Fields(s), " ")))
}

// Pages returns the pages target may have meant, in a fixed order; a
// suggestion is worth making only when there is exactly one.
func (s *Suggester) Pages(target string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ps []string) {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	add(s.byTitle[TitleKey(target)])
	if slug, err := mdoc.Slugify(path.Base(target)); err == nil {
		add(s.bySlug[slug])
	}
	return out
}

// Unresolved is a wikilink that leads to no file, with the link to write
// instead when one page is the likely meaning.
type Unresolved struct {
	// Link is the link as written ("[[Page Title]]").
	Link string `json:"link" jsonschema:"the link as written"`
	// Suggestion is the link to the page it probably meant
	// ("[[page-title|Page Title]]"); "" when no single page fits.
	Suggestion string `json:"suggestion,omitempty" jsonschema:"the link to the existing page it probably meant, shown text kept; absent when no single page fits"`
}

// Message is the sentence an agent reads: "[[X]] resolves to nothing; did
// you mean [[x|X]]?".
func (u Unresolved) Message() string {
	if u.Suggestion == "" {
		return u.Link + " resolves to nothing; create the page or correct the link"
	}
	return fmt.Sprintf("%s resolves to nothing; did you mean %s?", u.Link, u.Suggestion)
}

// UnresolvedLinks returns the wikilinks and wiki embeds of rel that lead to
// no file, in the order written, leaving out as many of each (by the link
// as written) as before holds: a caller passes the links the file had
// before its change to hear only of those the change brought.
func (v *View) UnresolvedLinks(rel string, before []Resolved) []Unresolved {
	had := map[string]int{}
	for _, l := range before {
		if l.Kind == KindWiki && l.Path == "" {
			had[l.Raw]++
		}
	}
	var out []Unresolved
	var sg *Suggester
	for _, l := range v.Links(rel) {
		if l.Kind != KindWiki || l.Path != "" {
			continue
		}
		if had[l.Raw] > 0 {
			had[l.Raw]--
			continue
		}
		if sg == nil {
			sg = NewSuggester(v.Pages())
		}
		u := Unresolved{Link: l.Raw}
		if ps := sg.Pages(l.Target); len(ps) == 1 {
			if t, ok := v.resolver.ShortestTarget(rel, ps[0], false); ok {
				u.Suggestion = suggestLink(l, t+l.Fragment())
			}
		}
		out = append(out, u)
	}
	return out
}

// suggestLink writes l again with target, keeping what l showed: its
// label, else its target as written.
func suggestLink(l Resolved, target string) string {
	shown := l.Label
	if shown == "" {
		shown = l.Target
	}
	b := "[["
	if l.Embed {
		b = "![["
	}
	if shown == target || strings.ContainsAny(shown, "|]\n") {
		return b + target + "]]"
	}
	return b + target + "|" + shown + "]]"
}
