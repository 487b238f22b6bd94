package links

import (
	"fmt"
	"maps"
	"path"
	"slices"
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
	byTitle overlay[[]string]
	bySlug  overlay[[]string]
}

// NewSuggester indexes pages by title and by file name.
func NewSuggester(pages []wiki.PageInfo) *Suggester {
	byTitle, bySlug := map[string][]string{}, map[string][]string{}
	for _, p := range pages {
		byTitle[TitleKey(p.Title)] = append(byTitle[TitleKey(p.Title)], p.Path)
		if b := path.Base(p.Slug); mdoc.ValidSlug(b) {
			bySlug[b] = append(bySlug[b], p.Path)
		}
	}
	return &Suggester{byTitle: overlay[[]string]{base: byTitle}, bySlug: overlay[[]string]{base: bySlug}}
}

// next returns a copy of s that shares what it can, for a new view to
// change with drop and add.
func (s *Suggester) next() *Suggester {
	return &Suggester{byTitle: s.byTitle.next(), bySlug: s.bySlug.next()}
}

// drop takes the page p out of s (a copy from next).
func (s *Suggester) drop(p wiki.PageInfo) {
	without := func(o *overlay[[]string], k string) {
		ps := slices.DeleteFunc(slices.Clone(o.at(k)), func(x string) bool { return x == p.Path })
		if len(ps) == 0 {
			o.del(k)
		} else {
			o.set(k, ps)
		}
	}
	without(&s.byTitle, TitleKey(p.Title))
	if b := path.Base(p.Slug); mdoc.ValidSlug(b) {
		without(&s.bySlug, b)
	}
}

// add puts the page p in s (a copy from next), keeping each list sorted
// by path as NewSuggester makes it from the sorted pages.
func (s *Suggester) add(p wiki.PageInfo) {
	with := func(o *overlay[[]string], k string) {
		ps := o.at(k)
		i, found := slices.BinarySearch(ps, p.Path)
		if !found {
			o.set(k, slices.Insert(slices.Clone(ps), i, p.Path))
		}
	}
	with(&s.byTitle, TitleKey(p.Title))
	if b := path.Base(p.Slug); mdoc.ValidSlug(b) {
		with(&s.bySlug, b)
	}
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
	add(s.byTitle.at(TitleKey(target)))
	if slug, err := mdoc.Slugify(path.Base(target)); err == nil {
		add(s.bySlug.at(slug))
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
			sg = v.Suggester()
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

// Suggester returns the [Suggester] of the view's pages. It is made on
// first use and then carried to each view [View.update] makes, changed by
// the pages that came, went or changed, so a write does not index every
// page again.
func (v *View) Suggester() *Suggester {
	v.suggMu.Lock()
	defer v.suggMu.Unlock()
	if v.sugg == nil {
		v.sugg = NewSuggester(v.Pages())
	}
	return v.sugg
}

// nextSuggester gives nv (made by v.update) v's suggester changed by the
// pages in changed and removed, when v has one; nv's files are in place.
func (v *View) nextSuggester(nv *View, changed map[string]*entry, removed map[string]bool) {
	v.suggMu.Lock()
	sg := v.sugg
	v.suggMu.Unlock()
	if sg == nil {
		return
	}
	ns := sg.next()
	info := func(vw *View, p string) *wiki.PageInfo {
		if !IsSource(p) {
			return nil
		}
		if pg := vw.files.at(p).get(); pg != nil {
			return pg.Info
		}
		return nil
	}
	for _, ps := range []func(func(string) bool){maps.Keys(changed), maps.Keys(removed)} {
		for p := range ps {
			if old := info(v, p); old != nil {
				ns.drop(*old)
			}
			if now := info(nv, p); now != nil {
				ns.add(*now)
			}
		}
	}
	nv.sugg = ns
}
