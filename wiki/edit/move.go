package edit

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// MoveInput names a page and its new name.
type MoveInput struct {
	// From names the page: a path ("pages/x.md") or a slug or title.
	From string
	// To is the new name: a slug ("new-name", folded like write_page's) or
	// a path under pages/ ("pages/guides/new-name.md", "guides/New name").
	To string
	// BaseSHA256, when given, must be the sha256 of the page as the caller
	// read it.
	BaseSHA256 string
}

// FileLinks counts the links rewritten in one file.
type FileLinks struct {
	Path  string `json:"path"`
	Links int    `json:"links"`
}

// MoveResult reports a move.
type MoveResult struct {
	OldPath string `json:"old_path"`
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	// Rewritten lists every file whose links were rewritten (the moved page
	// included when its own links had to change), sorted by path.
	Rewritten []FileLinks `json:"rewritten"`
	// LinksRewritten is the total number of links rewritten.
	LinksRewritten int `json:"links_rewritten"`
	// NotRewritten lists links left as they were because no tool may
	// write where they are (guidelines.md's "## My Rules").
	NotRewritten []string `json:"not_rewritten,omitempty"`
}

// Move renames a page and rewrites every link to it across the wiki —
// pages, index.md, context.md and guidelines.md outside "## My Rules" —
// keeping each link's alias, heading chain and block id, and its style
// (a file name when that is unique, a path when it must be; ".md" kept
// when it was written; markdown links relative to their file stay
// relative). Links whose target the move would change in passing (a
// name that becomes ambiguous, a relative link out of the moved page) are
// rewritten to keep their target. Links that reached the page through an
// alias still do and are left alone; log.md and sources/ are history and
// raw documents and are never rewritten.
//
// Everything happens in one [wiki.Store.Update] transaction: the page is
// created under its new name, the old file deleted and every rewritten
// file replaced, all or none (a failure midway restores what was done), and
// index.md follows when it is automatic. The new name must not belong to
// an existing page (CodeConflict). A link that cannot be rewritten in
// place (a reference-style definition) fails the move with CodeInvalid and
// nothing is written.
func Move(ctx context.Context, st *wiki.Store, g *links.Graph, in MoveInput) (MoveResult, error) {
	var res MoveResult
	from, err := st.ResolvePage(in.From)
	if err != nil {
		return res, err
	}
	if wiki.LayerOf(from) != wiki.LayerPages {
		return res, store.Errorf(store.CodeInvalid, "%s is not a page; move_page renames files under pages/", from)
	}
	to, err := targetPath(in.To)
	if err != nil {
		return res, err
	}
	if to == from {
		return res, store.Errorf(store.CodeInvalid, "%s is already the page's name", to)
	}
	base := strings.ToLower(strings.TrimSpace(in.BaseSHA256))
	ctx, finish := ensureCall(ctx, st, "move_page", in)
	defer func() { finish(err) }()
	err = st.Update(ctx, func(tx *store.Tx) error {
		view, err := g.Fresh(tx.Context())
		if err != nil {
			return err
		}
		for _, p := range view.Pages() {
			if p.Path != from && wiki.PageKey(p.Path) == wiki.PageKey(to) {
				return store.Errorf(store.CodeConflict, "%s already exists (as %s); choose another name, or merge the pages first", to, p.Path)
			}
		}
		if _, ok, _ := tx.Read(to); ok && wiki.PageKey(to) != wiki.PageKey(from) {
			return store.Errorf(store.CodeConflict, "%s already exists; choose another name", to)
		}
		plan, err := planMove(view, from, to)
		if err != nil {
			return err
		}
		// The moved page: created under its new name, its own links fixed.
		data, ok, err := tx.Read(from)
		if err != nil {
			return err
		}
		if !ok {
			return store.Errorf(store.CodeNotFound, "page %s was removed meanwhile", from)
		}
		if base != "" && store.SHA256Hex(data) != base {
			return store.Errorf(store.CodeConflict, "%s changed since you read it (base_sha256 does not match); read it again and retry", from)
		}
		moved, n, err := rewriteFile(view, plan, from, to, data)
		if err != nil {
			return err
		}
		if n > 0 {
			res.Rewritten = append(res.Rewritten, FileLinks{Path: to, Links: n})
			res.LinksRewritten += n
		}
		if err := tx.Delete(from, store.SHA256Hex(data)); err != nil {
			return err
		}
		if err := tx.Create(to, moved); err != nil {
			return err
		}
		res.SHA256 = store.SHA256Hex(moved)
		auto := st.Settings().AutoIndex
		for _, f := range plan.files {
			if f == from || (f == "index.md" && auto) {
				continue // index.md is regenerated in this same write
			}
			old, ok, err := tx.Read(f)
			if err != nil {
				return err
			}
			if !ok {
				return store.Errorf(store.CodeConflict, "%s was removed meanwhile; retry the move", f)
			}
			nd, n, err := rewriteFile(view, plan, f, f, old)
			if err != nil {
				return err
			}
			if n == 0 {
				continue
			}
			if err := tx.Replace(f, nd, store.SHA256Hex(old)); err != nil {
				return err
			}
			res.Rewritten = append(res.Rewritten, FileLinks{Path: f, Links: n})
			res.LinksRewritten += n
		}
		res.NotRewritten = plan.skipped
		return nil
	})
	if err != nil {
		return MoveResult{}, err
	}
	res.OldPath, res.Path = from, to
	sort.Slice(res.Rewritten, func(i, j int) bool { return res.Rewritten[i].Path < res.Rewritten[j].Path })
	if res.Rewritten == nil {
		res.Rewritten = []FileLinks{}
	}
	return res, nil
}

// targetPath turns the caller's new name into a page path.
func targetPath(to string) (string, error) {
	t := strings.TrimSpace(to)
	if t == "" {
		return "", store.Errorf(store.CodeInvalid, "to is empty; give the new slug (like \"new-name\") or a path under pages/")
	}
	if l := wiki.OtherLayerFolder(t); l != "" {
		return "", store.Errorf(store.CodeInvalid, "%q begins with %s/, which is not under pages/; for a page in a folder named %s, give \"pages/%s\"", to, l, l, strings.TrimPrefix(t, "./"))
	}
	if !strings.Contains(t, "/") && !strings.HasSuffix(strings.ToLower(t), ".md") {
		slug, err := mdoc.NewSlugName(t)
		if err != nil {
			return "", err
		}
		return wiki.PagePath(slug), nil
	}
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.Contains(t, "//") || strings.Contains(t, "\\") {
		return "", store.Errorf(store.CodeInvalid, "%q is not a page path under pages/: give the new slug (like \"new-name\") or a path like \"folder/New name.md\", with no leading '/', '~' or doubled '/'", to)
	}
	t = strings.TrimPrefix(strings.TrimPrefix(t, "./"), "pages/")
	if strings.Count(t, "/")+1 > wiki.MaxPageDepth {
		return "", store.Errorf(store.CodeInvalid, "%q has %d folder levels; the limit is %d", to, strings.Count(t, "/")+1, wiki.MaxPageDepth)
	}
	if !strings.HasSuffix(strings.ToLower(t), ".md") {
		t += ".md"
	}
	rel, err := wiki.CleanPath("pages/" + t)
	if err != nil {
		return "", err
	}
	if wiki.LayerOf(rel) != wiki.LayerPages || rel == "pages" {
		return "", store.Errorf(store.CodeInvalid, "%q is not a page path under pages/", to)
	}
	for _, c := range strings.Split(rel, "/") {
		if strings.HasPrefix(c, ".") {
			return "", store.Errorf(store.CodeInvalid, "page names and folders may not start with a dot")
		}
		if strings.ContainsAny(c, "#|^[]") {
			return "", store.Errorf(store.CodeInvalid, "%q holds a character links cannot carry (# | ^ [ ])", c)
		}
	}
	return rel, nil
}

// movePlan is what a move changes: the files with links to rewrite and the
// resolver of the wiki as it will be.
type movePlan struct {
	from, to string
	after    *links.Resolver
	files    []string
	skipped  []string
}

func planMove(view *links.View, from, to string) (*movePlan, error) {
	files := make([]string, 0, len(view.Files()))
	for _, f := range view.Files() {
		if f != from {
			files = append(files, f)
		}
	}
	files = append(files, to)
	aliases := map[string][]string{}
	for _, p := range view.Pages() {
		if len(p.Aliases) > 0 {
			k := p.Path
			if k == from {
				k = to
			}
			aliases[k] = p.Aliases
		}
	}
	plan := &movePlan{from: from, to: to, after: links.NewResolver(files, aliases)}
	for _, src := range view.Sources() {
		for _, l := range view.Links(src) {
			if _, ok := plan.wanted(src, l); ok {
				plan.files = append(plan.files, src)
				break
			}
		}
	}
	return plan, nil
}

// wanted returns the file a link of src must still lead to after the move,
// and whether it needs rewriting to get there (it would lead elsewhere, or
// become ambiguous).
func (p *movePlan) wanted(src string, l links.Resolved) (string, bool) {
	if l.By == links.BySelf || l.Path == "" {
		return "", false
	}
	want := l.Path
	if want == p.from {
		want = p.to
	}
	at := src
	if src == p.from {
		at = p.to
	}
	now := p.after.Resolve(at, l.Target)
	return want, now.Path != want || (len(now.Ambiguous) > 0 && len(l.Ambiguous) == 0)
}

// rewriteFile rewrites the links of data (the file src as it is now,
// written to dst) whose target the move changes, and checks that every
// link of the result leads where it should.
func rewriteFile(view *links.View, plan *movePlan, src, dst string, data []byte) ([]byte, int, error) {
	pg := links.Parse(src, data)
	before := view.Resolver()
	var myRules [2]int
	if src == "guidelines.md" {
		myRules[0], myRules[1] = wiki.SectionRange(data, "My Rules")
	}
	var edits []links.TargetEdit
	type check struct {
		link links.Link
		want string
	}
	var checks []check
	for _, l := range pg.Links {
		r := links.Resolved{Link: l, Resolution: before.Resolve(src, l.Target)}
		want, need := plan.wanted(src, r)
		if want == "" {
			continue
		}
		if !need {
			checks = append(checks, check{l, want})
			continue
		}
		if myRules[0] >= 0 && src == "guidelines.md" && l.Start >= myRules[0] && l.Start < myRules[1] {
			plan.skipped = append(plan.skipped, fmt.Sprintf("%s:%d %s (in \"## My Rules\", which no tool writes)", src, l.Line, l.Raw))
			continue
		}
		if l.TargetStart < 0 {
			return nil, 0, store.Errorf(store.CodeInvalid, "%s line %d links to %s with a reference-style definition (%s); change it to an inline link by hand, then move; nothing was written", src, l.Line, r.Path, l.Raw)
		}
		t, err := newTarget(plan.after, l, r, dst, want)
		if err != nil {
			return nil, 0, err
		}
		edits = append(edits, links.TargetEdit{Link: l, Target: t})
		checks = append(checks, check{l, want})
	}
	if len(edits) == 0 {
		return data, 0, nil
	}
	out, err := links.Rewrite(data, edits)
	if err != nil {
		return nil, 0, err
	}
	// Verify: every link that led somewhere leads to the right place.
	np := links.Parse(dst, out)
	if len(np.Links) != len(pg.Links) {
		return nil, 0, store.Errorf(store.CodeInternal, "rewriting the links of %s changed how many links it has; nothing was written", src)
	}
	k := 0
	for i, l := range np.Links {
		if k < len(checks) && pg.Links[i].Start == checks[k].link.Start {
			if got := plan.after.Resolve(dst, l.Target).Path; got != checks[k].want {
				return nil, 0, store.Errorf(store.CodeInternal, "after rewriting, %s line %d would lead to %q instead of %s; nothing was written", src, l.Line, got, checks[k].want)
			}
			if l.Fragment() != pg.Links[i].Fragment() || l.Label != pg.Links[i].Label || l.Embed != pg.Links[i].Embed {
				return nil, 0, store.Errorf(store.CodeInternal, "rewriting %s line %d would lose its heading, alias or embed; nothing was written", src, l.Line)
			}
			k++
		}
	}
	return out, len(edits), nil
}

// newTarget is how the link l, written in the file at dst, should name
// want after the move.
func newTarget(after *links.Resolver, l links.Link, r links.Resolved, dst, want string) (string, error) {
	withExt := strings.HasSuffix(strings.ToLower(l.Target), ".md")
	if l.Kind == links.KindMarkdown && (r.By == links.ByRelative || strings.HasPrefix(l.Target, "./") || strings.HasPrefix(l.Target, "../")) {
		t := links.RelativeTarget(dst, want)
		if !strings.Contains(t, "/") {
			t = "./" + t
		}
		if !withExt && strings.HasSuffix(t, ".md") {
			t = strings.TrimSuffix(t, ".md")
		}
		if after.Resolve(dst, t).Path == want {
			return t, nil
		}
	}
	if t, ok := after.ShortestTarget(dst, want, withExt); ok {
		return t, nil
	}
	t := want
	if !withExt && strings.EqualFold(path.Ext(t), ".md") {
		t = t[:len(t)-3]
	}
	if after.Resolve(dst, t).Path == want {
		return t, nil
	}
	return "", store.Errorf(store.CodeInvalid, "no way to write a link from %s to %s that leads only there; rename one of the files with the same name first", dst, want)
}
