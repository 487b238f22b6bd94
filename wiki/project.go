package wiki

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Project is the orientation load_project returns: the rules, the learned
// guidelines, the synthesis, counts, and what changed since the last build.
type Project struct {
	// Name is the project folder's base name (never a full host path).
	Name       string `json:"name"`
	Schema     string `json:"schema"`
	Guidelines string `json:"guidelines"`
	// Context is context.md's body; ContextLines its line count and
	// ContextCap the cap.
	Context      string `json:"context"`
	ContextLines int    `json:"context_lines"`
	ContextCap   int    `json:"context_cap"`
	// LastBuild is context.md's built_at ("" before the first build).
	LastBuild string       `json:"last_build,omitempty"`
	Counts    ProjectCount `json:"counts"`
	// PendingSources lists (up to 50) sources not yet folded into
	// context.md, or changed since.
	PendingSources []string `json:"pending_sources"`
	// PagesUpdatedSinceBuild lists (up to 50) pages updated after LastBuild.
	PagesUpdatedSinceBuild []string `json:"pages_updated_since_build"`
	// IndexStale is true when index.md does not match the pages.
	IndexStale bool `json:"index_stale"`
	// Stale lists derived state out of step (search index) and why.
	Stale []store.StaleState `json:"stale"`
	// RecentLog is the last few log.md entry headings.
	RecentLog []string `json:"recent_log"`
	// Problems are things the person should fix (unreadable schema.md
	// settings, missing layout files, sources changed or deleted outside
	// llmwiki).
	Problems []string `json:"problems,omitempty"`
}

// maxSourceProblems is how many changed or deleted sources load_project
// names one by one.
const maxSourceProblems = 20

// ProjectCount holds the sizes of the project's layers.
type ProjectCount struct {
	Pages          int `json:"pages"`
	Sources        int `json:"sources"`
	PendingSources int `json:"pending_sources"`
	ResearchNotes  int `json:"research_notes"`
}

// LoadProject gathers the orientation an agent needs before any workflow.
func (s *Store) LoadProject(ctx context.Context) (Project, error) {
	p := Project{Name: filepath.Base(s.dir), Stale: s.Stale(), PendingSources: []string{}, PagesUpdatedSinceBuild: []string{}}
	cfg := s.Settings()
	p.ContextCap = cfg.ContextMaxLines
	if cfg.Err != "" {
		p.Problems = append(p.Problems, "schema.md settings: "+cfg.Err+" (defaults are in force)")
	}
	for _, pr := range cfg.Problems {
		p.Problems = append(p.Problems, "schema.md settings: "+pr)
	}
	call := store.CallFrom(ctx)
	read := func(name string) string {
		data, ok, err := s.ReadRaw(name)
		if err != nil || !ok {
			p.Problems = append(p.Problems, name+" is missing; run `llmwiki init` on the project to restore the starting files")
			return ""
		}
		call.AddRead(name)
		return string(data)
	}
	p.Schema = read("schema.md")
	p.Guidelines = read("guidelines.md")
	ctxText := read("context.md")
	if d, err := mdoc.ParseDoc("context.md", []byte(ctxText)); err == nil {
		p.Context = string(d.Body)
	} else {
		p.Context = ctxText
		p.Problems = append(p.Problems, store.PublicMessage(err))
	}
	p.ContextLines = countLines([]byte(p.Context))
	_, p.LastBuild = s.Provenance()
	pages, gen, err := s.pagesSharedGen(ctx)
	if err != nil {
		return p, err
	}
	p.Counts.Pages = len(pages)
	var built time.Time
	if p.LastBuild != "" {
		built, _ = time.Parse(time.RFC3339, p.LastBuild)
	}
	for _, pg := range pages {
		if built.IsZero() {
			break
		}
		if t, err := time.Parse(time.RFC3339, pg.Updated); err == nil && t.After(built) && len(p.PagesUpdatedSinceBuild) < 50 {
			p.PagesUpdatedSinceBuild = append(p.PagesUpdatedSinceBuild, pg.Path)
		}
	}
	sources, issues, err := s.listSources(ctx)
	if errors.Is(err, store.ErrNotRegular) {
		p.Problems = append(p.Problems, store.PublicMessage(err)+": the sources were not checked against their record; validate_structure says how to fix it")
	} else if err != nil {
		return p, err
	}
	for i, is := range issues {
		if i == maxSourceProblems {
			p.Problems = append(p.Problems, fmt.Sprintf("sources: %d more changed or deleted outside llmwiki; validate_structure lists them all", len(issues)-i))
			break
		}
		p.Problems = append(p.Problems, is.Message+"; validate_structure says how to fix it")
	}
	for _, si := range sources {
		p.Counts.Sources++
		if strings.HasPrefix(si.Path, "sources/research/") {
			p.Counts.ResearchNotes++
		}
		if si.Status != "folded" {
			p.Counts.PendingSources++
			if len(p.PendingSources) < 50 {
				p.PendingSources = append(p.PendingSources, si.Path)
			}
		}
	}
	if s.IndexPending() {
		p.IndexStale = false // regenerated after the writes ([IndexLaterPages])
	} else {
		p.IndexStale = s.indexStale(pages, gen)
	}
	p.RecentLog = s.LogEntries(5)
	if p.RecentLog == nil {
		p.RecentLog = []string{}
	}
	for _, r := range s.Repairs() {
		p.Problems = append(p.Problems, "repaired when the server started: "+r)
	}
	sort.Strings(p.Problems)
	return p, nil
}

// staleMemo is the last answer of [Store.indexStale], for the catalogue
// generation and the version of index.md it was computed from.
type staleMemo struct {
	mu    sync.Mutex
	ok    bool
	gen   uint64
	size  int64
	mtime time.Time
	stale bool
}

// indexStale reports whether index.md differs from what the catalogue
// pages (generation gen, see [Store.pagesSharedGen]) renders. Rendering
// index.md grows with the wiki (at 144k pages, 144k lines and 10 MB to
// compare), so the answer is kept until the catalogue or index.md (its
// size or modification time) changes. The render does not fill the
// writes' line memo (idxMemo): at 144k pages that would hold 40 MB more
// in a server that never writes.
func (s *Store) indexStale(pages []PageInfo, gen uint64) bool {
	fi, err := s.root.Lstat("index.md")
	if err != nil || !fi.Mode().IsRegular() {
		return true
	}
	m := &s.staleMemo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ok && m.gen == gen && m.size == fi.Size() && m.mtime.Equal(fi.ModTime()) {
		return m.stale
	}
	idx, ok, err := s.ReadRaw("index.md")
	if err != nil || !ok {
		return true
	}
	stale := !bytes.Equal(bytes.TrimRight(idx, "\n"), bytes.TrimRight(RenderIndex(pages), "\n"))
	// The version read is the one stated only if the file did not change
	// in between; otherwise the answer stands for this call alone.
	if fi2, err := s.root.Lstat("index.md"); err == nil && fi2.Size() == fi.Size() && fi2.ModTime().Equal(fi.ModTime()) && int64(len(idx)) == fi.Size() {
		m.ok, m.gen, m.size, m.mtime, m.stale = true, gen, fi.Size(), fi.ModTime(), stale
	}
	return stale
}
