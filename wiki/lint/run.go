package lint

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/internal/shingle"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Options select what [Run] reports.
type Options struct {
	// Categories limits the run to these categories; empty means every
	// category schema.md does not turn off. Naming a category runs it even
	// when schema.md turns it off.
	Categories []string
	// Prefix keeps only findings whose file starts with it
	// ("pages/en/").
	Prefix string
	// IncludeDismissed also reports dismissed findings (Dismissed true).
	IncludeDismissed bool
	// OneShot says the graph is the caller's own and nobody else reads it
	// (llmwiki lint): Run takes its view with [links.Graph.Detach], which
	// closes the graph, and drops from the view what the checks need no
	// more (the sketches once the near-duplicate candidates are found), so
	// that at 144k pages the view, the findings and the report are held
	// hundreds of megabytes smaller.
	OneShot bool
	// Listed, when set, returns what [wiki.Store.PagesListed] gave the
	// caller (llmwiki lint lists the pages to size its memory limit, while
	// Run walks the links), or nil when that listing failed: Run calls it
	// once, when it puts the report together, and takes the skipped files
	// from it rather than list pages/ again.
	Listed func() *Listed
}

// Listed is the skipped files of a listing of pages/ ([wiki.Store.PagesListed]).
type Listed struct {
	Counts   map[string]int
	Examples map[string][]string
}

// lintLinks picks the resolved links the checks read from a detached view
// (Options.OneShot): those with a problem (checkLinks; the links sharing
// one's text share its problem, so counting its occurrences among them
// counts them all) and those of index.md (checkIndex).
func lintLinks(from string, r *links.Resolved) bool {
	return r.Problem != "" || from == "index.md"
}

// Severities counts findings by severity. The wire names the counts by
// severity, since "warnings" is always the array of problems that did not
// fail a call (docs/design.md, Wire vocabulary).
type Severities struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Info    int `json:"info"`
}

// Summary is the totals of a [Report].
type Summary struct {
	// Generated is when the report was made (RFC 3339).
	Generated string `json:"generated"`
	// Counts are the reported findings per category.
	Counts map[string]int `json:"counts"`
	// Severities counts the reported findings by severity.
	Severities Severities `json:"severities"`
	// Dismissed counts findings not reported because a person dismissed
	// them and their evidence has not changed.
	Dismissed int `json:"dismissed"`
	// Unverified counts reported submitted findings whose evidence did not
	// verify.
	Unverified int `json:"unverified"`
	// Pages is the number of pages checked.
	Pages int `json:"pages"`
	// Skipped counts, by reason, the files under pages/ not checked (not a
	// regular file: a FIFO, socket or device, never opened); SkippedExamples
	// names a few.
	Skipped         map[string]int      `json:"skipped,omitempty"`
	SkippedExamples map[string][]string `json:"skipped_examples,omitempty"`
	// Disabled are the categories schema.md turns off (lint_disabled).
	Disabled []string `json:"disabled,omitempty"`
	// Problems are settings in schema.md that could not be used.
	Problems []string `json:"problems,omitempty"`
	// DurationMS is the run's wall time in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// Report is the result of [Run]: the totals and the findings.
type Report struct {
	Summary
	// Findings are sorted by severity, category, file and line.
	Findings []Finding `json:"findings"`
}

// Run checks the wiki: every deterministic category that is enabled (see
// [Options] and [Settings]), plus the submitted findings, each checked
// again against the files as they are now. It leaves out dismissed findings
// whose evidence has not changed. It writes nothing: lint_findings is a
// read-only tool. Unknown category names are a CodeInvalid error.
func Run(ctx context.Context, st *wiki.Store, g *links.Graph, opts Options) (*Report, error) {
	start := time.Now()
	set := SettingsFrom(st.Settings())
	want := map[string]bool{}
	if len(opts.Categories) > 0 {
		for _, k := range opts.Categories {
			k = strings.TrimSpace(k)
			if !isKind(k) {
				return nil, store.Errorf(store.CodeInvalid, "unknown lint category %q; the categories are %s", k, strings.Join(Categories(), ", "))
			}
			want[k] = true
		}
	} else {
		for _, k := range Categories() {
			if !set.Disabled[k] {
				want[k] = true
			}
		}
	}
	var view *links.View
	var pages []wiki.PageInfo
	var err error
	if opts.OneShot {
		view, pages, err = g.Detach(ctx, lintLinks)
	} else if view, err = g.Fresh(ctx); err == nil {
		pages = view.Pages()
	}
	if err != nil {
		return nil, err
	}
	now := st.Now()
	c := &checker{st: st, v: view, pages: pages, set: set, want: want, now: now, files: &fileCache{m: map[string][]byte{}}, oneShot: opts.OneShot}
	// The findings stay in one slice per check (outs), in the checks'
	// order, until the report is put together: copying them into one
	// slice while the graph is still held would hold both at once.
	outs, err := c.run(ctx)
	if err != nil {
		return nil, err
	}
	nPages := len(pages)

	agent, err := loadAgent(st)
	if err != nil {
		return nil, err
	}
	if len(agent) > 0 {
		var sub []recorded
		ver := NewVerifier(st)
		for _, f := range agent {
			if !want[f.Kind] {
				continue
			}
			g, err := ver.Check(proposalOf(f))
			if err != nil {
				g = f
				g.Verified = false
				g.Note = store.PublicMessage(err)
			}
			g.Source, g.SubmittedBy, g.Submitted = f.Source, f.SubmittedBy, f.Submitted
			sub = append(sub, recorded{p: &pending{kind: g.Kind, full: &g}})
		}
		outs = append(outs, sub)
	}

	dismissed, err := loadDismissed(st)
	if err != nil {
		return nil, err
	}
	rep := &Report{Summary: Summary{Generated: now.Format(time.RFC3339), Counts: map[string]int{}, Pages: nPages, Problems: set.Problems}, Findings: []Finding{}}
	// The link graph leaves out what is not a regular file as the page
	// catalogue does; a listing of pages/ counts them (a catalogue scan
	// would read every page a second time).
	var listed *Listed
	if opts.Listed != nil {
		listed = opts.Listed()
	}
	if listed != nil {
		rep.Skipped, rep.SkippedExamples = listed.Counts, listed.Examples
	} else if _, counts, examples, err := st.PagesListed(ctx); err == nil {
		rep.Skipped, rep.SkippedExamples = counts, examples
	}
	for k := range set.Disabled {
		rep.Disabled = append(rep.Disabled, k)
	}
	sort.Strings(rep.Disabled)
	prefix := strings.TrimPrefix(opts.Prefix, "./")
	// status says whether f is reported (keep) and whether a dismissal
	// holds for it (dism).
	status := func(f *Finding) (keep, dism bool) {
		if prefix != "" && !strings.HasPrefix(f.Path, prefix) {
			return false, false
		}
		if d, ok := dismissed[f.ID]; ok && d.Fingerprint == f.Fingerprint {
			return opts.IncludeDismissed, true
		}
		return true, false
	}
	// The findings under the prefix are counted first (by their file: a
	// dismissal's test needs the finding made) and the reported ones made
	// once into a slice of at most that size (a big wiki has 500k+), in
	// the checks' order; each check's slice is dropped as soon as it is
	// copied.
	n := 0
	for _, o := range outs {
		if prefix == "" {
			n += len(o)
			continue
		}
		for i := range o {
			if strings.HasPrefix(o[i].path(), prefix) {
				n++
			}
		}
	}
	kept := make([]Finding, 0, n)
	for k, o := range outs {
		outs[k] = nil
		for i := range o {
			if prefix != "" && !strings.HasPrefix(o[i].path(), prefix) {
				continue
			}
			f := o[i].finding()
			keep, dism := status(&f)
			if dism {
				rep.Dismissed++
				f.Dismissed = true
			}
			if !keep {
				continue
			}
			kept = append(kept, f)
			if f.Dismissed {
				continue
			}
			rep.Counts[f.Kind]++
			switch f.Severity {
			case Error:
				rep.Severities.Error++
			case Warning:
				rep.Severities.Warning++
			default:
				rep.Severities.Info++
			}
			if !f.Verified {
				rep.Unverified++
			}
		}
	}
	if len(kept) > 0 {
		rep.Findings = kept
	}
	sortFindings(rep.Findings)
	rep.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	return rep, nil
}

type checker struct {
	st    *wiki.Store
	v     *links.View
	pages []wiki.PageInfo
	set   Settings
	want  map[string]bool
	now   time.Time
	out   []recorded
	files *fileCache
	// oneShot: the view is lint's own (Options.OneShot); a check may drop
	// from its pages what no check reads after it.
	oneShot bool
	// shared holds, for the check that runs, one copy of each finding
	// that differs from others of its check by its file and line alone
	// (see add).
	shared map[sharedKey]*pending
}

// pending is a deterministic finding as a check makes it: what newFinding
// takes, and the target and related files. The Finding (id, fingerprint,
// severity) is made once the checks are done with the link graph; until
// then a check keeps each as a [recorded].
type pending struct {
	kind, file, key, evidence, msg, action, target string
	line                                           int
	related                                        []string
	full                                           *Finding // a finding made whole already (sync conflicts); the rest is unset
}

// find is newFinding for a check: see there.
func find(kind, file string, line int, key, evidence, msg, action string) pending {
	return pending{kind: kind, file: file, line: line, key: key, evidence: evidence, msg: msg, action: action}
}

// recorded is a pending finding as a check keeps it: its file and line,
// and the rest, which many findings share (every page without sources has
// the same message and evidence), as one pending whose file and line are
// unset.
type recorded struct {
	file string
	line int
	p    *pending
}

// sharedKey is what a pending finding without key, target or related files
// is beyond its file and line.
type sharedKey struct{ kind, evidence, msg, action string }

// finding returns the finding r records.
func (r *recorded) finding() Finding {
	p := r.p
	if p.full != nil {
		return *p.full
	}
	f := newFinding(p.kind, r.file, r.line, p.key, p.evidence, p.msg, p.action)
	f.Target, f.Related = p.target, p.related
	return f
}

// path returns the file of the finding r records.
func (r *recorded) path() string {
	if r.p.full != nil {
		return r.p.full.Path
	}
	return r.file
}

// fileCache holds files read for line numbers, shared by the checks.
type fileCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

// add records f. The 500k+ findings of a big wiki are held while the link
// graph is; most are of a few kinds (a page without sources, an orphan)
// whose findings differ by file and line alone, and those share one
// pending, so that such a finding takes a recorded only.
func (c *checker) add(f pending) {
	if !c.want[f.kind] {
		return
	}
	r := recorded{file: f.file, line: f.line}
	f.file, f.line = "", 0
	if f.key == "" && f.target == "" && f.related == nil && f.full == nil {
		k := sharedKey{f.kind, f.evidence, f.msg, f.action}
		if r.p = c.shared[k]; r.p == nil {
			if c.shared == nil {
				c.shared = map[sharedKey]*pending{}
			}
			r.p = &f
			c.shared[k] = r.p
		}
	} else {
		r.p = &f
	}
	c.out = append(c.out, r)
}

// addFinding records a finding made whole already.
func (c *checker) addFinding(f Finding) {
	if c.want[f.Kind] {
		c.out = append(c.out, recorded{p: &pending{kind: f.Kind, full: &f}})
	}
}

// run runs the checks that have a wanted category in two lanes side by
// side (each check reads the same immutable view and collects its own
// findings): the near-duplicate check, the longest, in one, the others one
// after another in the other, so that the maps and lists each builds
// while it runs are not all held at once. It reports progress as each
// finishes and returns each check's findings, in a fixed order.
func (c *checker) run(ctx context.Context) ([][]recorded, error) {
	n := len(c.pages)
	steps := []struct {
		name  string
		kinds []string
		size  int // expected findings, to size the slice once
		fn    func(*checker) error
	}{
		{"merge candidates", []string{KindMergeCandidate}, 16, func(x *checker) error { return x.checkMerge(ctx) }},
		{"frontmatter and sources", []string{KindPageWithoutSources, KindMissingSource, KindMissingFrontmatter, KindStalePage, KindBadFrontmatter}, 2*n + 16, nochk((*checker).checkPages)},
		{"links", []string{KindDanglingLink, KindMissingEmbed, KindMissingHeading, KindAmbiguousLink}, 256, nochk((*checker).checkLinks)},
		{"orphans", []string{KindOrphanPage}, n + 16, nochk((*checker).checkOrphans)},
		{"duplicate titles", []string{KindDuplicateTitle, KindDuplicateAlias}, n/4 + 16, nochk((*checker).checkDuplicates)},
		{"index.md", []string{KindIndexDrift}, 1, nochk((*checker).checkIndex)},
		{"context.md", []string{KindContextOverCap, KindBadFrontmatter}, 2, nochk((*checker).checkContext)},
		{"sources", []string{KindSourceModified, KindSourceDeleted}, 4, func(x *checker) error { return x.checkSources(ctx) }},
		{"sync conflicts", []string{KindSyncConflict}, 4, func(x *checker) error { return x.checkSyncConflicts(ctx) }},
	}
	outs := make([][]recorded, len(steps))
	errs := make([]error, len(steps))
	var wg sync.WaitGroup
	var pmu sync.Mutex
	done, total := 0, len(steps)+1
	var lanes [2][]int // lane 0: the near-duplicate check; lane 1: the rest
	for i, s := range steps {
		wanted := false
		for _, k := range s.kinds {
			wanted = wanted || c.want[k]
		}
		if !wanted {
			total--
			continue
		}
		lane := 1
		if i == 0 {
			lane = 0
		}
		lanes[lane] = append(lanes[lane], i)
	}
	for _, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range lane {
				s := steps[i]
				sub := *c
				sub.out = make([]recorded, 0, s.size)
				errs[i] = s.fn(&sub)
				outs[i] = sub.out
				pmu.Lock()
				done++
				wiki.Progress(ctx, done, total, fmt.Sprintf("checked %s of %d pages", s.name, n))
				pmu.Unlock()
				if errs[i] != nil || ctx.Err() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, store.Errorf(store.CodeCancelled, "lint cancelled")
	}
	wiki.Progress(ctx, total, total, fmt.Sprintf("checked %d pages", n))
	return outs, nil
}

func nochk(fn func(*checker)) func(*checker) error {
	return func(c *checker) error { fn(c); return nil }
}

// read returns a file's bytes (cached), or nil.
func (c *checker) read(rel string) []byte {
	c.files.mu.Lock()
	defer c.files.mu.Unlock()
	if b, ok := c.files.m[rel]; ok {
		return b
	}
	b, err := c.st.ReadFile(rel)
	if err != nil {
		b = nil
	}
	c.files.m[rel] = b
	return b
}

// lineOf returns the 1-based line of the first occurrence of needle in
// rel, or 0.
func (c *checker) lineOf(rel, needle string) int {
	b := c.read(rel)
	i := bytes.Index(b, []byte(needle))
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(b[:i], []byte("\n"))
}

func (c *checker) checkLinks() {
	r := c.v.Resolver()
	sg := links.NewSuggester(c.pages)
	for _, from := range c.v.Sources() {
		occ := map[string]int{}
		for _, l := range c.v.Links(from) {
			occ[l.Raw]++
			if l.Problem == "" {
				continue
			}
			key := l.Raw + "#" + strconv.Itoa(occ[l.Raw])
			shown := l.Raw
			if l.InFrontmatter {
				shown += " (frontmatter)"
			}
			withExt := strings.HasSuffix(strings.ToLower(l.Target), ".md")
			switch l.Problem {
			case links.ProblemDangling:
				action := "create the page, correct the target, or remove the link"
				if ps := sg.Pages(l.Target); len(ps) == 1 {
					if t, ok := r.ShortestTarget(from, ps[0], withExt); ok {
						action = fmt.Sprintf("did you mean [[%s]] (%s)? Otherwise create the page or remove the link", t, ps[0])
					}
				}
				f := find(KindDanglingLink, from, l.Line, key, l.Raw, fmt.Sprintf("%s leads nowhere: no file or page alias is named %q", shown, l.Target), action)
				f.target = l.Target
				c.add(f)
			case links.ProblemMissingEmbed:
				f := find(KindMissingEmbed, from, l.Line, key, l.Raw, fmt.Sprintf("%s embeds %q, which does not exist", shown, l.Target), "add the file (attachments go under pages/ or sources/), correct the name, or remove the embed")
				f.target = l.Target
				c.add(f)
			case links.ProblemHeading, links.ProblemBlock:
				var msg, action string
				if l.Problem == links.ProblemBlock {
					msg = fmt.Sprintf("%s: %s has no block ^%s", shown, l.Path, l.Block)
					action = fmt.Sprintf("add \" ^%s\" at the end of the paragraph meant in %s, or link to a heading", l.Block, l.Path)
				} else {
					msg = fmt.Sprintf("%s: %s has no heading %q", shown, l.Path, strings.Join(l.Headings, "#"))
					action = "link to a heading it has"
					if pg := c.v.Page(l.Path); pg != nil && len(pg.Headings) > 0 {
						var hs []string
						for _, h := range pg.Headings {
							hs = append(hs, strconv.Quote(h.Text))
						}
						action += ": " + listShort(hs, 8)
					} else {
						action += "; it has no headings"
					}
				}
				f := find(KindMissingHeading, from, l.Line, key, l.Raw+"\x00"+l.Path, msg, action)
				f.target = l.Target + l.Fragment()
				c.add(f)
			case links.ProblemAmbiguous:
				action := "write more of the path so one file matches"
				if t, ok := r.ShortestTarget(from, l.Path, withExt); ok {
					action = fmt.Sprintf("write more of the path so one file matches, e.g. [[%s]]", t)
				}
				f := find(KindAmbiguousLink, from, l.Line, key, l.Raw+"\x00"+l.Path+"\x00"+strings.Join(l.Ambiguous, "\x00"),
					fmt.Sprintf("%s matches %d files equally well (%s); it leads to %s", shown, len(l.Ambiguous)+1, listShort(l.Ambiguous, 3), l.Path), action)
				f.target = l.Target
				f.related = append([]string{l.Path}, l.Ambiguous...)
				c.add(f)
			}
		}
	}
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// checkOrphans reports pages with no inbound link. A generated index.md
// (index: auto) lists every page, so its links are no editorial choice and
// do not count; a hand-kept index.md (index: manual) and context.md, which
// the agent writes, do.
func (c *checker) checkOrphans() {
	generated := c.st.Settings().AutoIndex
	for _, p := range c.pages {
		if c.set.exempt(p.Path) || hasInbound(c.v.Backlinks(p.Path), generated) {
			continue
		}
		msg := "no other page, index.md or context.md links to this page"
		if generated {
			msg = "no other page or context.md links to this page (the generated index.md does not count)"
		}
		c.add(find(KindOrphanPage, p.Path, 0, "", "", msg,
			"link it from a related page (edit_page add_links) or from context.md; or list it in orphan_exempt in schema.md"))
	}
}

// hasInbound reports whether bls holds a link that counts against
// orphan_page: any, except from index.md when it is generated.
func hasInbound(bls []links.Backlink, generatedIndex bool) bool {
	for _, b := range bls {
		if !generatedIndex || b.Path != "index.md" {
			return true
		}
	}
	return false
}

// pageTime is when the page was last written: frontmatter updated, else
// created, else the file's modification time.
func (c *checker) pageTime(p wiki.PageInfo) (time.Time, string) {
	for _, s := range []string{p.Updated, p.Created} {
		if t, ok := parseTime(s); ok {
			return t, s
		}
	}
	t := c.v.ModTime(p.Path)
	return t, "file modified " + t.UTC().Format(time.RFC3339)
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func isURL(s string) bool { return strings.Contains(s, "://") }

func (c *checker) checkPages() {
	days := time.Duration(c.set.StaleAfterDays) * 24 * time.Hour
	lacks := map[string]string{}
	for _, p := range c.pages {
		if p.Error != "" {
			c.add(find(KindBadFrontmatter, p.Path, 1, "", p.Error, p.Error,
				"fix the frontmatter by hand (it must be a YAML mapping between '---' lines), or restore a snapshot"))
			continue
		}
		if len(p.Sources) == 0 {
			c.add(find(KindPageWithoutSources, p.Path, 0, "", "", "the page cites no sources (its frontmatter has no sources)",
				"add the files under sources/ or the URLs it is based on to sources (edit_page frontmatter)"))
		}
		for _, s := range p.Sources {
			if isURL(s) {
				continue
			}
			rel, err := wiki.CleanPath(s)
			if err == nil && c.v.Resolver().Has(rel) && wiki.LayerOf(rel) != wiki.LayerState {
				continue
			}
			f := find(KindMissingSource, p.Path, c.lineOf(p.Path, s), s, s, fmt.Sprintf("the page cites %q, which does not exist", s),
				"correct the path (sources live under sources/; gather_sources lists them) or remove it from sources")
			f.target = s
			c.add(f)
		}
		if pg := c.v.Page(p.Path); pg != nil && len(c.set.Required) > 0 {
			var missing []string
			for _, k := range c.set.Required {
				if i := sort.SearchStrings(pg.Keys, k); i >= len(pg.Keys) || pg.Keys[i] != k {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				ev := strings.Join(missing, ",")
				msg, ok := lacks[ev]
				if !ok {
					// One message per set of missing keys, shared by the
					// findings: a wiki without frontmatter has one a page.
					msg = "the frontmatter lacks " + strings.Join(missing, ", ") + " (required_frontmatter in schema.md)"
					lacks[ev] = msg
				}
				c.add(find(KindMissingFrontmatter, p.Path, 1, "", ev, msg,
					"add them (edit_page with frontmatter, or write_page)"))
			}
		}
		t, when := c.pageTime(p)
		if t.IsZero() {
			continue
		}
		var reasons []string
		if days > 0 && c.now.Sub(t) > days {
			reasons = append(reasons, fmt.Sprintf("last updated %s, more than %d days ago", t.UTC().Format("2006-01-02"), c.set.StaleAfterDays))
		}
		for _, s := range p.Sources {
			if isURL(s) {
				continue
			}
			rel, err := wiki.CleanPath(s)
			if err != nil {
				continue
			}
			if mt := c.v.ModTime(rel); !mt.IsZero() && mt.Truncate(time.Second).After(t) {
				reasons = append(reasons, fmt.Sprintf("%s changed on %s, after the page was last updated (%s)", rel, mt.UTC().Format(time.RFC3339), t.UTC().Format(time.RFC3339)))
			}
		}
		if len(reasons) > 0 {
			c.add(find(KindStalePage, p.Path, 0, "", when+"\x00"+strings.Join(reasons, "\x00"), "the page may be out of date: "+strings.Join(reasons, "; "),
				"read its sources again and update the page (edit_page or write_page), which sets updated"))
		}
	}
}

func (c *checker) checkDuplicates() {
	byTitle := map[string][]string{}
	titleOf := map[string]string{}
	byFile := map[string][]string{}
	byAlias := map[string][]string{}
	aliasText := map[string]string{}
	for _, p := range c.pages {
		if k := links.TitleKey(p.Title); k != "" && p.Error == "" {
			byTitle[k] = append(byTitle[k], p.Path)
			titleOf[p.Path] = p.Title
		}
		byFile[links.Key(path.Base(p.Path))] = append(byFile[links.Key(path.Base(p.Path))], p.Path)
		seen := map[string]bool{}
		for _, a := range p.Aliases {
			k := links.Key(strings.TrimSpace(a))
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			byAlias[k] = append(byAlias[k], p.Path)
			if _, ok := aliasText[k]; !ok {
				aliasText[k] = strings.TrimSpace(a)
			}
		}
	}
	if c.want[KindDuplicateTitle] {
		for _, k := range sortedKeys(byTitle) {
			ps := byTitle[k]
			if len(ps) < 2 {
				continue
			}
			sort.Strings(ps)
			title := titleOf[ps[0]]
			f := find(KindDuplicateTitle, ps[0], 0, k, strings.Join(ps, "\x00"),
				fmt.Sprintf("%d pages share the title %q: %s", len(ps), title, listShort(ps, 5)),
				"give each page a title that says how it differs, or merge them into one")
			f.related = ps[1:]
			f.target = title
			c.add(f)
		}
	}
	if c.want[KindDuplicateAlias] {
		for _, k := range sortedKeys(byAlias) {
			owners := byAlias[k]
			sort.Strings(owners)
			own := map[string]bool{}
			for _, o := range owners {
				own[o] = true
			}
			var named []string
			for _, p := range byFile[k] {
				if !own[p] {
					named = append(named, p)
				}
			}
			for _, p := range byTitle[links.TitleKey(aliasText[k])] {
				if !own[p] && !contains(named, p) {
					named = append(named, p)
				}
			}
			sort.Strings(named)
			if len(owners) < 2 && len(named) == 0 {
				continue
			}
			var msg string
			switch {
			case len(owners) > 1 && len(named) > 0:
				msg = fmt.Sprintf("the alias %q is claimed by %d pages (%s) and is also the name of %s", aliasText[k], len(owners), listShort(owners, 4), listShort(named, 3))
			case len(owners) > 1:
				msg = fmt.Sprintf("the alias %q is claimed by %d pages: %s", aliasText[k], len(owners), listShort(owners, 5))
			default:
				msg = fmt.Sprintf("the alias %q is also the name or title of %s, so [[%s]] does not lead to this page", aliasText[k], listShort(named, 3), aliasText[k])
			}
			f := find(KindDuplicateAlias, owners[0], c.lineOf(owners[0], aliasText[k]), k, strings.Join(owners, "\x00")+"\x01"+strings.Join(named, "\x00"), msg,
				"keep the alias on one page only, and never use another page's name as an alias")
			f.target = aliasText[k]
			f.related = append(append([]string(nil), owners[1:]...), named...)
			c.add(f)
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// indexLinks returns index.md's links, resolved. The link graph keeps no
// links of a file over links.MaxParseBytes (index.md of some 120k pages or
// more): those are read from data here.
func (c *checker) indexLinks(data []byte) []links.Resolved {
	if len(data) <= links.MaxParseBytes {
		return c.v.Links("index.md")
	}
	r := c.v.Resolver()
	var out []links.Resolved
	for _, l := range links.Parse("index.md", data).Links {
		out = append(out, links.Resolved{Link: l, Resolution: r.Resolve("index.md", l.Target)})
	}
	return out
}

func (c *checker) checkIndex() {
	data := c.read("index.md")
	if data == nil {
		c.add(find(KindIndexDrift, "index.md", 0, "", "missing", "index.md is missing", "run rebuild_index"))
		return
	}
	want := wiki.RenderIndex(c.pages)
	if strings.TrimRight(string(data), "\n") == strings.TrimRight(string(want), "\n") {
		return
	}
	listed := map[string]bool{}
	var gone []string
	for _, l := range c.indexLinks(data) {
		if l.Path != "" {
			listed[l.Path] = true
		} else {
			gone = append(gone, l.Raw)
		}
	}
	var unlisted []string
	for _, p := range c.pages {
		if !listed[p.Path] {
			unlisted = append(unlisted, p.Path)
		}
	}
	var parts []string
	if len(unlisted) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s not listed (%s)", english.Count(len(unlisted), "page"), english.Plural(len(unlisted), "is", "are"), listShort(unlisted, 3)))
	}
	if len(gone) > 0 {
		parts = append(parts, fmt.Sprintf("%d %s nowhere (%s)", len(gone), english.Plural(len(gone), "entry leads", "entries lead"), listShort(gone, 3)))
	}
	if len(parts) == 0 {
		parts = append(parts, "titles, summaries or groups differ from the pages' frontmatter")
	}
	c.add(find(KindIndexDrift, "index.md", 0, "", store.SHA256Hex(data)+store.SHA256Hex(want),
		"index.md is out of step with the pages: "+strings.Join(parts, "; "),
		"run rebuild_index (it regenerates index.md from the pages' frontmatter)"))
}

func (c *checker) checkContext() {
	data := c.read("context.md")
	if data == nil {
		return
	}
	for _, rel := range []string{"context.md", "index.md"} {
		b := c.read(rel)
		if b == nil {
			continue
		}
		d, err := mdoc.ParseDoc(rel, b)
		if err != nil {
			c.add(find(KindBadFrontmatter, rel, 1, "", store.PublicMessage(err), store.PublicMessage(err), "fix the frontmatter by hand, or restore a snapshot"))
			continue
		}
		if rel != "context.md" {
			continue
		}
		n := bytes.Count(d.Body, []byte("\n"))
		if len(d.Body) > 0 && d.Body[len(d.Body)-1] != '\n' {
			n++
		}
		limit := c.st.Settings().ContextMaxLines
		if n > limit {
			c.add(find(KindContextOverCap, "context.md", d.BodyLine+limit, "", strconv.Itoa(n)+"/"+strconv.Itoa(limit),
				fmt.Sprintf("context.md has %d lines; the cap is %d (context_max_lines in schema.md)", n, limit),
				"shorten it with atomic_write_context (on_overflow: \"spill\" moves the tail to a page)"))
		}
	}
}

// Merge candidates: pages whose shingle sets (internal/shingle) have Jaccard
// similarity at or above merge_similarity. The link graph keeps a MinHash
// sketch of every page; pages sharing an LSH band are candidates; a
// candidate pair whose sketches agree on at least mergeMargin less than
// the threshold (a pair exactly at 0.8 falls that low with probability
// about 3e-5: four standard errors of a 64-value sketch) is compared exactly on its shingle sets; the
// near-duplicate groups are the connected components of the pairs at or
// above the threshold. No pair of pages is compared unless it shares a
// band.
const mergeMargin = 0.2

// mergeSetBudget bounds the bytes of exact shingle sets the merge check
// holds at once (see checkMerge).
const mergeSetBudget = 16 << 20

// MinShingles is the fewest distinct shingles a page needs to be a merge
// candidate (tiny pages are trivially alike).
const MinShingles = 16

func (c *checker) checkMerge(ctx context.Context) error {
	type doc struct {
		path     string
		start    int
		shingles int // the sketch's Shingles: at least the size of the exact set
		sk       *shingle.Sketch
		pg       *links.Page
	}
	docs := make([]doc, 0, len(c.pages))
	for _, p := range c.pages {
		if pg := c.v.Page(p.Path); pg != nil && p.Error == "" && pg.Sketch != nil && pg.Sketch.Shingles >= MinShingles {
			docs = append(docs, doc{p.Path, pg.BodyStart, pg.Sketch.Shingles, pg.Sketch, pg})
		}
	}
	// LSH without a hash map: per band, the (key, page) pairs sorted by
	// key; pages with equal keys share the band. A pair is taken at the
	// first band it shares (so each once), collected as x<<32|y and
	// sorted.
	// A pair whose sketches agree less than this is never a candidate.
	thr := c.set.MergeSimilarity - mergeMargin
	// The pairs are collected in chunks of a fixed size, put together once
	// at the end: a list of millions grown by append is copied and cleared
	// again at every doubling.
	const chunk = 1 << 16
	var chunks [][]docPair
	cand := make([]docPair, 0, chunk)
	bands := make([][shingle.BandCount]uint64, len(docs))
	for i := range docs {
		bands[i] = docs[i].sk.Bands()
	}
	type keyDoc struct {
		key uint64
		doc int32
	}
	kd := make([]keyDoc, len(docs))
	for b := 0; b < shingle.BandCount; b++ {
		for i := range docs {
			kd[i].key, kd[i].doc = bands[i][b], int32(i)
		}
		slices.SortFunc(kd, func(p, q keyDoc) int {
			if c := cmp.Compare(p.key, q.key); c != 0 {
				return c
			}
			return cmp.Compare(p.doc, q.doc)
		})
		for lo := 0; lo < len(kd); {
			hi := lo + 1
			for hi < len(kd) && kd[hi].key == kd[lo].key {
				hi++
			}
			for a := lo; a < hi; a++ {
				bx := &bands[kd[a].doc]
			next:
				for c := a + 1; c < hi; c++ {
					by := &bands[kd[c].doc]
					for e := 0; e < b; e++ {
						if bx[e] == by[e] {
							continue next // taken at band e
						}
					}
					if docs[kd[a].doc].sk.Similarity(docs[kd[c].doc].sk) < thr {
						continue // kept out at once: a band shared by many pages makes many pairs
					}
					if len(cand) == chunk {
						chunks, cand = append(chunks, cand), make([]docPair, 0, chunk)
					}
					cand = append(cand, docPair(kd[a].doc)<<32|docPair(kd[c].doc))
				}
			}
			lo = hi
		}
		if ctx.Err() != nil {
			return store.Errorf(store.CodeCancelled, "lint cancelled")
		}
	}
	if c.oneShot {
		// No check reads a sketch after the candidates are found.
		for i := range docs {
			docs[i].pg.Sketch, docs[i].sk = nil, nil
		}
	}
	pairs := make([]docPair, 0, len(chunks)*chunk+len(cand))
	for k, ch := range chunks {
		pairs = append(pairs, ch...)
		chunks[k] = nil
	}
	pairs = append(pairs, cand...)
	cand = nil
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	// The pairs are compared in order, a window at a time: the exact
	// shingle sets a window needs are read in parallel, and each is dropped
	// after the last pair that names its page, so that a wiki with many
	// near-duplicates never holds every candidate's set at once.
	// last is, per page, the index of the last pair naming it; sets and
	// shas, per page, its exact shingle set and the sha256 of its file
	// once read (state: 0 not read, 1 held, 2 dropped, never needed again).
	last := make([]int32, len(docs))
	for k, p := range pairs {
		last[p.x()], last[p.y()] = int32(k), int32(k)
	}
	sets := make([][]uint64, len(docs))
	shas := make([]string, len(docs))
	state := make([]uint8, len(docs))
	dirs := newFolders(c.st.Root())
	defer dirs.close()
	read := func(ids []int32) {
		defer dirs.trim()
		var wg sync.WaitGroup
		next := make(chan int32, 64)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					data, err := dirs.ReadFile(docs[i].path)
					var s []uint64
					sha := ""
					if err == nil && docs[i].start <= len(data) {
						s = shingle.SetSized(data[docs[i].start:], docs[i].shingles)
						sha = store.SHA256Hex(data)
					}
					if len(s) < MinShingles {
						s = nil
					} else if cap(s) > len(s)+len(s)/8 {
						// Held until the page's last pair: not with
						// the room the set grew with.
						s = slices.Clone(s)
					}
					// Each worker writes only its own pages' slots.
					sets[i], shas[i] = s, sha
				}
			}()
		}
		for _, i := range ids {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	uf := newUnionFind(len(docs))
	type edge struct {
		x, y int32
		j    float64
	}
	var edges []edge
	// A window is at most this many pairs, and ends once the sets it
	// reads may take a quarter of the budget (by the sketches' shingle
	// counts), so that the sets read for it are held at once.
	const window = 4096
	// held lists the pages whose sets may be held (state 1), heldBytes
	// what those sets take.
	var held []int32
	heldBytes := 0
	for lo, hi := 0, 0; lo < len(pairs); lo = hi {
		var ids []int32
		reading := 0
		for hi < len(pairs) && hi-lo < window && reading < mergeSetBudget/4 {
			p := pairs[hi]
			hi++
			if uf.find(p.x()) == uf.find(p.y()) {
				continue // already in one group: never compared (below)
			}
			for _, i := range [2]int32{p.x(), p.y()} {
				if state[i] == 0 {
					state[i] = 1
					ids = append(ids, i)
					reading += 8 * docs[i].shingles
				}
			}
		}
		read(ids)
		if ctx.Err() != nil {
			return store.Errorf(store.CodeCancelled, "lint cancelled")
		}
		for _, i := range ids {
			heldBytes += 8 * cap(sets[i])
		}
		held = append(held, ids...)
		for _, p := range pairs[lo:hi] {
			if uf.find(p.x()) == uf.find(p.y()) {
				continue
			}
			sx, sy := sets[p.x()], sets[p.y()]
			if sx == nil || sy == nil {
				continue
			}
			if j := shingle.Jaccard(sx, sy); j >= c.set.MergeSimilarity {
				uf.union(p.x(), p.y())
				edges = append(edges, edge{p.x(), p.y(), j})
			}
		}
		for _, p := range pairs[lo:hi] {
			for _, i := range [2]int32{p.x(), p.y()} {
				if int(last[i]) < hi && state[i] == 1 {
					heldBytes -= 8 * cap(sets[i])
					sets[i], state[i] = nil, 2
				}
			}
		}
		if heldBytes > mergeSetBudget {
			// Over the budget: the sets whose last pair is furthest
			// away are dropped, and read again should a pair need them.
			held = slices.DeleteFunc(held, func(i int32) bool { return state[i] != 1 })
			slices.SortFunc(held, func(a, b int32) int { return cmp.Compare(last[a], last[b]) })
			for len(held) > 0 && heldBytes > mergeSetBudget/2 {
				i := held[len(held)-1]
				held = held[:len(held)-1]
				heldBytes -= 8 * cap(sets[i])
				sets[i], state[i] = nil, 0
			}
		}
	}
	best := map[int32]float64{}
	groups := map[int32][]int32{}
	for _, e := range edges {
		r := uf.find(e.x)
		best[r] = max(best[r], e.j)
		groups[r] = append(groups[r], e.x, e.y)
	}
	var roots []int32
	for r, g := range groups {
		groups[r] = uniq32(g)
		roots = append(roots, r)
	}
	sort.Slice(roots, func(i, j int) bool { return docs[roots[i]].path < docs[roots[j]].path })
	for _, r := range roots {
		var ps, ev []string
		g := groups[r]
		sort.Slice(g, func(i, j int) bool { return docs[g[i]].path < docs[g[j]].path })
		for _, i := range g {
			ps = append(ps, docs[i].path)
			ev = append(ev, docs[i].path+"@"+shas[i])
		}
		f := find(KindMergeCandidate, ps[0], 0, "", strings.Join(ev, "\x00"),
			fmt.Sprintf("%d pages are near-duplicates (at least %.0f%% of their 5-word shingles shared; the closest pair %.0f%%): %s", len(ps), c.set.MergeSimilarity*100, best[r]*100, listShort(ps, 5)),
			"merge them into one page (edit_page, then move_page or delete the rest by hand), or make each say what only it says")
		f.related = ps[1:]
		c.add(f)
	}
	return nil
}

// docPair is a candidate pair of the merge check's pages x < y, as
// x<<32 | y: sorted, the pairs come in the order of x, then y.
type docPair uint64

func (p docPair) x() int32 { return int32(p >> 32) }
func (p docPair) y() int32 { return int32(uint32(p)) }

// unionFind groups pages into near-duplicate clusters.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

func (u unionFind) find(x int32) int32 {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int32) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if ra < rb {
		u[rb] = ra
	} else {
		u[ra] = rb
	}
}

func uniq32(s []int32) []int32 {
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	w := 0
	for i, v := range s {
		if i == 0 || v != s[w-1] {
			s[w] = v
			w++
		}
	}
	return s[:w]
}

// checkSources reports sources changed or deleted outside llmwiki since
// they were first seen ([wiki.Store.SourceIssues]).
func (c *checker) checkSources(ctx context.Context) error {
	issues, err := c.st.SourceIssues(ctx)
	if errors.Is(err, store.ErrNotRegular) {
		return nil // the record cannot be read; validate_structure lists it
	}
	if err != nil {
		return err
	}
	for _, is := range issues {
		c.add(find(is.Kind, is.Path, 0, "", is.SHA256+is.NowSHA256, is.Message, is.Fix))
	}
	return nil
}
