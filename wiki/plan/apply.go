package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/edit"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ParseSelection reads action numbers as a person types them: "1,3",
// "1 3", "2-4", "all" (every action of a plan with n actions) or "none"
// ("" too). Numbers are 1-based and must lie in 1..n.
func ParseSelection(s string, n int) ([]int, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "all", "a", "y", "yes":
		out := make([]int, n)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	case "", "none", "n", "no":
		return []int{}, nil
	}
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		lo, hi, isRange := strings.Cut(f, "-")
		var a, b int
		if _, err := fmt.Sscanf(lo, "%d", &a); err != nil || fmt.Sprint(a) != lo {
			return nil, store.Errorf(store.CodeInvalid, "%q is not an action number; give numbers like 1,3 or 2-4, \"all\" or \"none\"", f)
		}
		b = a
		if isRange {
			if _, err := fmt.Sscanf(hi, "%d", &b); err != nil || fmt.Sprint(b) != hi || b < a {
				return nil, store.Errorf(store.CodeInvalid, "%q is not a range of action numbers like 2-4", f)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, checkSelection(out, n)
}

func checkSelection(sel []int, n int) error {
	seen := map[int]bool{}
	for _, i := range sel {
		if i < 1 || i > n {
			if n == 0 {
				return store.Errorf(store.CodeInvalid, "action %d does not exist: the plan has no actions", i)
			}
			return store.Errorf(store.CodeInvalid, "action %d does not exist: the plan's actions are numbered 1 to %d", i, n)
		}
		if seen[i] {
			return store.Errorf(store.CodeInvalid, "action %d is selected twice", i)
		}
		seen[i] = true
	}
	return nil
}

// Apply runs the approved actions of a pending plan, and only those.
//
// selected holds 1-based action numbers as the checklist shows them; an
// empty selection discards the plan. Under the project lock the plan is
// claimed (so it can be applied once): it must be pending and not expired
// (an expired plan is CodeConflict, nothing written). The plan is then
// re-validated against the schema and re-checked against the wiki as it is
// now ([Check]); any problem fails the apply before anything is written.
// The actions run in plan order through the audited writers
// ([wiki.Store.WritePage], [wiki.Store.WriteContext]); the first failure
// stops the rest (reported as not_run) and the plan ends "failed". One log.md
// entry records the outcome. With git on, the writes and the entry are one
// commit. The returned plan carries Results either way.
func Apply(ctx context.Context, s *wiki.Store, g *links.Graph, id string, selected []int) (*Plan, error) {
	// Every write of the plan and its log entry is one commit.
	ctx, done := s.OneCommit(ctx)
	defer done()
	b := NewBook(s)
	var p *Plan
	err := s.Locked(ctx, func() error {
		var err error
		if p, err = b.Load(id); err != nil {
			return err
		}
		now := s.Now()
		switch {
		case p.Op == OpChangeSet:
			// Only a person ends a change set (the review service):
			// apply_plan is the agent's own tool.
			return store.Errorf(store.CodeInvalid, "%s is a change set, not a plan: only the person approves or declines it, on the review page (llmwiki ui) or with `llmwiki review approve %d`", p.Name(), p.Number)
		case p.Status != StatusPending:
			return store.Errorf(store.CodeConflict, "plan %s is %s, not pending; it cannot be applied again", id, p.Status)
		case p.Expired(now):
			return store.Errorf(store.CodeConflict, "plan %s expired at %s UTC (plans can be approved for %s); nothing was written: propose a new one", id, p.Expires.Format("2006-01-02 15:04:05"), TTL)
		}
		if err := checkSelection(selected, len(p.Actions)); err != nil {
			return err
		}
		p.Selected = slices.Sorted(slices.Values(selected))
		p.Status = StatusApplying
		if len(selected) == 0 {
			p.Status = StatusDiscarded
			p.Finished = &now
		}
		return b.write(p)
	})
	if err != nil {
		return nil, err
	}
	if p.Status == StatusDiscarded {
		return p, nil
	}
	fail := func(err error) (*Plan, error) {
		now := s.Now()
		p.Status, p.Finished = StatusFailed, &now
		if werr := b.write(p); werr != nil {
			s.Logger().Error("could not record the plan's outcome", "plan", p.ID, "err", werr)
		}
		return p, err
	}
	// Re-validate: the plan file is state on disk, so treat it as input.
	raw, _ := json.Marshal(Proposal{Takeaways: p.Takeaways, Actions: p.Actions})
	if _, err := Parse(raw); err != nil {
		return fail(store.Errorf(store.CodeInvalid, "plan %s no longer validates, so nothing was written: %s", id, store.PublicMessage(err)))
	}
	w, err := LoadWorld(s, b.Reserved(id))
	if err != nil {
		return fail(err)
	}
	selIdx := map[int]bool{}
	for _, n := range p.Selected {
		selIdx[n-1] = true
	}
	if err := Check(&Proposal{Actions: p.Actions}, w, CheckOptions{Except: id, Selected: selIdx}); err != nil {
		return fail(&store.Error{Code: store.CodeOf(err), Msg: "nothing was written: " + store.PublicMessage(err) + " (the wiki changed since the plan was proposed: propose a new one)", Err: err})
	}
	var firstErr error
	for _, n := range p.Selected {
		a := p.Actions[n-1]
		r := Result{N: n, Kind: a.Kind, Path: a.Target(), Status: "ok"}
		if firstErr != nil {
			r.Status = "not_run"
			p.Results = append(p.Results, r)
			continue
		}
		sha, rel, notes, err := execute(ctx, s, g, p, a)
		r.SHA256, r.Notes = sha, notes
		if rel != "" {
			r.Path = rel // the file as it is spelled on disk (a nested vault's "en/Plugins/Graph view.md")
		}
		if err != nil {
			r.Status, r.Error = "failed", store.PublicMessage(err)
			firstErr = err
		}
		p.Results = append(p.Results, r)
	}
	now := s.Now()
	p.Status, p.Finished = StatusApplied, &now
	if firstErr != nil {
		p.Status = StatusFailed
	}
	if err := b.write(p); err != nil {
		s.Logger().Error("could not record the plan's outcome", "plan", p.ID, "err", err)
	}
	logOutcome(ctx, s, p)
	if firstErr != nil {
		ran := 0
		for _, r := range p.Results {
			if r.Status == "ok" {
				ran++
			}
		}
		return p, &store.Error{Code: store.CodeOf(firstErr), Err: firstErr, Msg: fmt.Sprintf("action %d failed after %d action(s) ran: %s", failedN(p), ran, store.PublicMessage(firstErr))}
	}
	return p, nil
}

func failedN(p *Plan) int {
	for _, r := range p.Results {
		if r.Status == "failed" {
			return r.N
		}
	}
	return 0
}

// execute runs one action through the store's writers and returns the
// sha256 and path of the file written.
func execute(ctx context.Context, s *wiki.Store, g *links.Graph, p *Plan, a Action) (sha, rel string, notes []string, err error) {
	if !slices.Contains(Kinds, a.Kind) {
		return "", "", nil, store.Errorf(store.CodeInvalid, "%q is not an action", a.Kind)
	}
	if a.Kind != KindUpdateContext && a.Kind != KindAppendContextSection {
		// Belt and braces: the schema and Check said so; say it again here.
		if err := canonicalSlug(a.Slug); err != nil {
			return "", "", nil, err
		}
		if wiki.LayerOf(wiki.PagePath(a.Slug)) != wiki.LayerPages {
			return "", "", nil, store.Errorf(store.CodeInvalid, "%s is not a page", a.Slug)
		}
	}
	var sources []string
	if p.Source != "" {
		sources = []string{p.Source}
	}
	switch a.Kind {
	case KindCreatePage:
		w, err := s.WritePage(ctx, wiki.PageInput{Title: a.Title, Slug: a.Slug, Summary: a.Summary, Tags: cloneTags(a.Tags), Sources: sources, Content: a.Markdown})
		return w.SHA256, w.Path, nil, err
	case KindUpdatePage:
		cur, err := readPage(s, a.Slug)
		if err != nil {
			return "", "", nil, err
		}
		title := a.Title
		if title == "" {
			title = cur.info.Title
		}
		w, err := s.WritePage(ctx, wiki.PageInput{Title: title, Slug: a.Slug, Summary: a.Summary, Tags: cloneTags(a.Tags), Sources: mergeSources(cur.info.Sources, sources), Content: a.Markdown, BaseSHA256: a.BaseSHA256})
		return w.SHA256, w.Path, nil, err
	case KindAppendPageSection, KindAddLinks:
		// Section appends and Related links are wiki/edit's (edit_page's)
		// edits, run with the sha256 of the version read just now.
		cur, err := readPage(s, a.Slug)
		if err != nil {
			return "", "", nil, err
		}
		in := edit.Input{Page: cur.info.Path, BaseSHA256: cur.sha}
		if add := mergeSources(cur.info.Sources, sources); add != nil && len(add) != len(cur.info.Sources) {
			in.Frontmatter = map[string]any{"sources": add}
		}
		if a.Kind == KindAppendPageSection {
			in.Op, in.Heading, in.Content = edit.OpAppend, a.Heading, strings.TrimRight(a.Markdown, "\n")
		} else {
			w, err := LoadWorld(s, nil)
			if err != nil {
				return "", "", nil, err
			}
			for _, l := range a.Links {
				if info, ok := w.page(l); ok {
					// The page's own path under pages/: a slug names it by
					// key ("en/plugins/graph-view"), its link by file
					// name ("en/Plugins/Graph view").
					in.Links = append(in.Links, strings.TrimSuffix(strings.TrimPrefix(info.Path, "pages/"), path.Ext(info.Path)))
				} else {
					notes = append(notes, fmt.Sprintf("[[%s]] skipped: that page was not created (its create_page was not approved)", l))
				}
			}
			if len(in.Links) == 0 {
				return cur.sha, cur.info.Path, notes, nil
			}
			in.Op = edit.OpAddLinks
		}
		r, err := edit.Edit(ctx, s, g, in)
		if err == nil && a.Kind == KindAddLinks && len(r.LinksAdded) < len(in.Links) {
			notes = append(notes, fmt.Sprintf("%d link(s) already under Related", len(in.Links)-len(r.LinksAdded)))
		}
		return r.SHA256, cur.info.Path, notes, err
	case KindUpdateContext:
		w, err := s.WriteContext(ctx, wiki.ContextInput{Content: a.Markdown, FoldedSources: p.Folded, BaseSHA256: p.ContextSHA256, BuiltBy: builtBy(p), Logged: true})
		return w.SHA256, "", nil, err
	case KindAppendContextSection:
		data, _ := s.ReadFile("context.md")
		base := ""
		if data != nil {
			base = store.SHA256Hex(data)
		}
		body := appendSection(string(contextBody(data)), a.Heading, a.Markdown)
		w, err := s.WriteContext(ctx, wiki.ContextInput{Content: body, FoldedSources: p.Folded, BaseSHA256: base, BuiltBy: builtBy(p), Logged: true})
		return w.SHA256, "", nil, err
	}
	return "", "", nil, store.Errorf(store.CodeInvalid, "%q is not an action", a.Kind)
}

func builtBy(p *Plan) string {
	s := "llmwiki " + p.Op + " plan " + p.ID
	if p.Model != nil && p.Model.Model != "" {
		s += " (" + p.Model.Model + ")"
	}
	return s
}

type pageNow struct {
	info wiki.PageInfo
	body string
	sha  string
}

func readPage(s *wiki.Store, slug string) (pageNow, error) {
	w, err := LoadWorld(s, nil)
	if err != nil {
		return pageNow{}, err
	}
	info, ok := w.page(slug)
	if !ok {
		return pageNow{}, store.Errorf(store.CodeNotFound, "page %s does not exist", wiki.PagePath(slug))
	}
	data, err := s.ReadFile(info.Path)
	if err != nil {
		return pageNow{}, store.Errorf(store.CodeNotFound, "page %s cannot be read", info.Path)
	}
	d, err := mdoc.ParseDoc(info.Path, data)
	if err != nil {
		return pageNow{}, &store.Error{Code: store.CodeInvalid, Msg: store.PublicMessage(err) + "; the page was not changed", Err: err}
	}
	return pageNow{info: info, body: string(d.Body), sha: store.SHA256Hex(data)}, nil
}

func mergeSources(have, add []string) []string {
	if len(add) == 0 {
		return nil // keep what the page has
	}
	out := append([]string(nil), have...)
	for _, a := range add {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func cloneTags(t []string) []string {
	if t == nil {
		return nil
	}
	return append([]string(nil), t...)
}

// logOutcome appends one log.md entry for an applied plan.
func logOutcome(ctx context.Context, s *wiki.Store, p *Plan) {
	op := p.Op
	if !slices.Contains(wiki.LogOps, op) {
		op = "edit"
	}
	ok := 0
	var details []string
	for _, r := range p.Results {
		if r.Status == "ok" {
			ok++
		}
		line := fmt.Sprintf("- %d. %s %s: %s", r.N, r.Kind, r.Path, r.Status)
		if r.Error != "" {
			line += " (" + r.Error + ")"
		}
		details = append(details, line)
	}
	title := fmt.Sprintf("applied %d of %d approved actions of plan %s", ok, len(p.Selected), p.ID)
	if p.Source != "" {
		title += " for " + p.Source
	}
	if _, err := s.AppendLog(ctx, wiki.LogInput{Op: op, Title: title, Details: strings.Join(details, "\n")}); err != nil {
		store.CallFrom(ctx).AddWarning("log.md entry not written: " + store.PublicMessage(err))
	}
}
