package plan

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// World is the wiki as a proposal is checked against it: its pages, the
// slugs other pending plans reserved, and context.md. Build it with
// [LoadWorld] just before checking.
type World struct {
	s        *wiki.Store
	pages    map[string]wiki.PageInfo // PageKey -> page
	base     map[string]int           // basename key -> pages with it
	names    map[string]bool          // lowercased titles and aliases
	reserved map[string]string        // slug -> plan id
	// ContextSHA256 and ContextLines describe context.md's current body.
	ContextSHA256 string
	ContextLines  int
	// Cap is context.md's line cap.
	Cap int
}

// LoadWorld reads what [Check] needs. reserved maps slugs held by other
// pending plans to their ids ([Book.Reserved]).
func LoadWorld(s *wiki.Store, reserved map[string]string) (*World, error) {
	pages, err := s.Pages()
	if err != nil {
		return nil, err
	}
	w := &World{s: s, pages: map[string]wiki.PageInfo{}, base: map[string]int{}, names: map[string]bool{}, reserved: reserved, Cap: s.Settings().ContextMaxLines}
	for _, p := range pages {
		k := wiki.PageKey(p.Path)
		w.pages[k] = p
		w.base[path.Base(k)]++
		w.names[strings.ToLower(p.Title)] = true
		for _, a := range p.Aliases {
			w.names[strings.ToLower(a)] = true
		}
	}
	if data, err := s.ReadFile("context.md"); err == nil {
		w.ContextSHA256 = store.SHA256Hex(data)
		w.ContextLines = lines(string(contextBody(data)))
	}
	return w, nil
}

func contextBody(data []byte) []byte {
	d, err := mdoc.ParseDoc("context.md", data)
	if err != nil {
		return data
	}
	return d.Body
}

// page returns the existing page with the given slug; a nested slug
// ("en/plugins/graph-view") finds the page in that folder by [wiki.PageKey],
// whatever the case and separators of its file and folder names.
func (w *World) page(slug string) (wiki.PageInfo, bool) {
	p, ok := w.pages[wiki.PageKey(wiki.PagePath(slug))]
	return p, ok
}

// PageSHA256 returns the current sha256 of the page with the given slug.
func (w *World) PageSHA256(slug string) (string, bool) {
	p, ok := w.page(slug)
	if !ok {
		return "", false
	}
	data, err := w.s.ReadFile(p.Path)
	if err != nil {
		return "", false
	}
	return store.SHA256Hex(data), true
}

// linksOf returns the link targets in the current body of a page.
func (w *World) linksOf(slug string) map[string]bool {
	out := map[string]bool{}
	p, ok := w.page(slug)
	if !ok {
		return out
	}
	data, err := w.s.ReadFile(p.Path)
	if err != nil {
		return out
	}
	for _, t := range wikiLinkTargets(string(data)) {
		out[t] = true
	}
	return out
}

// resolves reports whether a link target names an existing page (by path,
// slug, unique basename, title or alias, as Obsidian resolves), context.md,
// index.md, or a slug in planned.
func (w *World) resolves(target string, planned map[string]bool) bool {
	t, isPage := pageTarget(target)
	if !isPage || t == "" {
		return true
	}
	switch strings.ToLower(t) {
	case "context", "index", "log", "guidelines":
		return true
	}
	if w.names[strings.ToLower(t)] {
		return true
	}
	if strings.ContainsAny(t, "\x00") {
		return false
	}
	key := wiki.PageKey("pages/" + strings.TrimPrefix(t, "pages/") + ".md")
	if _, ok := w.pages[key]; ok {
		return true
	}
	slug := strings.TrimPrefix(key, "pages/")
	if planned[slug] {
		return true
	}
	return !strings.Contains(slug, "/") && w.base[slug] == 1
}

// canonicalSlug re-checks a page name with the store's rules
// ([wiki.NewPageName]): it must already be canonical (one slug, or up
// to [wiki.MaxPageDepth] slugs joined by "/" for a page in a folder), no
// segment empty, "..", absolute or a device name, its first segment not
// "sources" or "pages" (which would read as another layer), and its page
// path must lie in the pages layer.
func canonicalSlug(s string) error {
	n, err := wiki.NewPageName(s)
	if err != nil {
		return err
	}
	if n != s || !wiki.ValidPageName(s) {
		return store.Errorf(store.CodeInvalid, "%q is not a slug: use lowercase words joined by '-', like %q (a page in a folder: folder/name, as the page list shows it)", s, n)
	}
	if first, _, nested := strings.Cut(s, "/"); nested && (first == "sources" || first == "pages") {
		return store.Errorf(store.CodeInvalid, "%q is not a slug of a page: it starts with %q, but a slug names a page under pages/ without that prefix, and sources cannot be written", s, first+"/")
	}
	rel, err := wiki.CleanPath(wiki.PagePath(s))
	if err != nil || wiki.LayerOf(rel) != wiki.LayerPages || rel != wiki.PagePath(s) {
		return store.Errorf(store.CodeInvalid, "%q does not name a page under pages/", s)
	}
	return nil
}

// CheckOptions adjusts [Check].
type CheckOptions struct {
	// Except, when set, is the plan being checked: its own reservations do
	// not conflict.
	Except string
	// Selected, when not nil, restricts the check to these 0-based action
	// indexes (the others count as not planned).
	Selected map[int]bool
	// SkipBaseSHA skips comparing update_page's base_sha256 with the page
	// (Apply leaves that to the writer, which reports a conflict).
	SkipBaseSHA bool
}

// Check re-checks a proposal against the wiki: the action vocabulary, slugs
// by the store's rules, the limits, that created pages do not exist and are
// not reserved by another pending plan, that updated pages exist and
// base_sha256 matches, that appended-to and linked-from pages exist or are
// created earlier in the plan, that every link (add_links and [[wikilinks]]
// in markdown) names an existing or planned page, and that context.md stays
// under its line cap. The error (CodeInvalid, or CodeConflict for a
// reservation) lists up to eight problems by action, for the model's retry.
func Check(p *Proposal, w *World, opt CheckOptions) error {
	var errs []string
	bad := func(i int, a Action, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("actions[%d] (%s): %s", i, a.Kind, fmt.Sprintf(format, args...)))
	}
	if len(p.Actions) > MaxActions {
		return store.Errorf(store.CodeInvalid, "the plan has %d actions; the limit is %d: propose the %d most important", len(p.Actions), MaxActions, MaxActions)
	}
	sel := func(i int) bool { return opt.Selected == nil || opt.Selected[i] }
	// planned: every page the plan creates. Links may name any of them;
	// when a person approves only some, Apply skips add_links entries whose
	// page was not approved, and links in markdown are left for lint.
	planned := map[string]bool{}
	selCreates := map[string]bool{}
	for i, a := range p.Actions {
		if a.Kind == KindCreatePage {
			planned[a.Slug] = true
			if sel(i) {
				selCreates[a.Slug] = true
			}
		}
	}
	conflict := false
	created := map[string]bool{} // created by an earlier action
	updated := map[string]bool{}
	ctxLines, ctxReplaced := w.ContextLines, false
	for i, a := range p.Actions {
		if !sel(i) {
			continue
		}
		if !slices.Contains(Kinds, a.Kind) {
			bad(i, a, "%q is not an action; the only kinds are %s", a.Kind, strings.Join(Kinds, ", "))
			continue
		}
		pageKind := a.Kind != KindUpdateContext && a.Kind != KindAppendContextSection
		if pageKind {
			if err := canonicalSlug(a.Slug); err != nil {
				bad(i, a, "%s (files under sources/, schema.md and .llmwiki/ cannot be written)", store.PublicMessage(err))
				continue
			}
		} else if a.Slug != "" || len(a.Links) > 0 || a.BaseSHA256 != "" {
			bad(i, a, "context.md actions take no slug, links or base_sha256")
			continue
		}
		limit := MaxPageChars
		if a.Kind == KindAppendPageSection || a.Kind == KindAppendContextSection {
			limit = MaxSectionChars
		}
		if a.Kind != KindAddLinks {
			if n := chars(a.Markdown); n > limit {
				bad(i, a, "markdown is %d characters; the limit is %d", n, limit)
			} else if strings.TrimSpace(a.Markdown) == "" {
				bad(i, a, "markdown is empty")
			}
			if d, err := mdoc.ParseDoc("markdown", []byte(a.Markdown)); err != nil || d.Format != mdoc.FormatNone {
				bad(i, a, "markdown starts with a frontmatter block; give title, summary and tags as fields and only the body as markdown")
			}
		}
		if a.Kind == KindAppendPageSection || a.Kind == KindAppendContextSection {
			if h := strings.TrimSpace(a.Heading); h == "" || strings.ContainsAny(h, "\r\n") || strings.HasPrefix(h, "#") || chars(h) > 120 {
				bad(i, a, "heading must be one line of at most 120 characters without leading '#'")
			}
		}
		_, exists := w.page(a.Slug)
		switch a.Kind {
		case KindCreatePage:
			switch {
			case exists:
				bad(i, a, "page %s already exists; use update_page with its base_sha256, or append_page_section", wiki.PagePath(a.Slug))
			case created[a.Slug]:
				bad(i, a, "page %s is created twice in this plan", wiki.PagePath(a.Slug))
			case w.reserved[a.Slug] != "" && w.reserved[a.Slug] != opt.Except:
				bad(i, a, "page %s is reserved by pending plan %s; choose another slug, or wait until that plan is applied or expires", wiki.PagePath(a.Slug), w.reserved[a.Slug])
				conflict = true
			}
			if strings.TrimSpace(a.Title) == "" {
				bad(i, a, "title is required")
			}
			created[a.Slug] = true
		case KindUpdatePage:
			switch {
			case !exists:
				bad(i, a, "page %s does not exist; use create_page", wiki.PagePath(a.Slug))
			case updated[a.Slug]:
				bad(i, a, "page %s is rewritten twice in this plan; merge the changes into one update_page", wiki.PagePath(a.Slug))
			case !opt.SkipBaseSHA:
				if cur, _ := w.PageSHA256(a.Slug); cur != strings.ToLower(a.BaseSHA256) {
					bad(i, a, "base_sha256 %.12s… is not the sha256 of %s (%.12s…); copy the sha256 shown with the page, and only rewrite pages you were shown", a.BaseSHA256, wiki.PagePath(a.Slug), cur)
				}
			}
			updated[a.Slug] = true
		case KindAppendPageSection, KindAddLinks:
			if !exists && !created[a.Slug] {
				if selCreates[a.Slug] {
					bad(i, a, "page %s is created by a later action; put this action after the create_page", wiki.PagePath(a.Slug))
				} else if planned[a.Slug] {
					bad(i, a, "page %s would be created by an action that was not approved; approve that create_page too", wiki.PagePath(a.Slug))
				} else {
					bad(i, a, "page %s does not exist and is not created by this plan", wiki.PagePath(a.Slug))
				}
			}
		case KindUpdateContext:
			if ctxReplaced {
				bad(i, a, "context.md is replaced twice in this plan")
			}
			ctxReplaced = true
			ctxLines = lines(a.Markdown)
			if ctxLines > w.Cap {
				bad(i, a, "context.md is capped at %d lines and this has %d; shorten it", w.Cap, ctxLines)
			}
		case KindAppendContextSection:
			ctxLines += lines(a.Markdown) + 2
			if ctxLines > w.Cap {
				bad(i, a, "appending makes context.md %d lines; its cap is %d", ctxLines, w.Cap)
			}
		}
		if a.Kind == KindAddLinks {
			if len(a.Links) == 0 || len(a.Links) > MaxLinks {
				bad(i, a, "add_links takes 1 to %d links", MaxLinks)
			}
			for _, l := range a.Links {
				if err := canonicalSlug(l); err != nil {
					bad(i, a, "link %s", store.PublicMessage(err))
				} else if l == a.Slug {
					bad(i, a, "a page does not link to itself")
				} else if !w.resolves(l, planned) {
					bad(i, a, "link [[%s]] names no existing page and none this plan creates", l)
				}
			}
		}
		var had map[string]bool
		if a.Kind == KindUpdatePage || a.Kind == KindAppendPageSection {
			had = w.linksOf(a.Slug) // links the page already has are not the plan's doing
		}
		for _, t := range wikiLinkTargets(a.Markdown) {
			if !had[t] && !w.resolves(t, planned) {
				bad(i, a, "the markdown links to [[%s]], which is neither an existing page nor one this plan creates; link only to those (or write the name as plain text)", t)
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	more := ""
	if len(errs) > 8 {
		more = fmt.Sprintf("; and %d more", len(errs)-8)
		errs = errs[:8]
	}
	code := store.CodeInvalid
	if conflict && len(errs) == 1 {
		code = store.CodeConflict
	}
	return store.Errorf(code, "the plan was rejected: %s%s", strings.Join(errs, "; "), more)
}
