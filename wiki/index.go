package wiki

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// RenderIndex renders index.md from the page catalogue: one line per page,
// "- [[target|Title]] — summary", grouped under "## " headings by the page's
// first tag, else its folder under pages/, else "Other". Groups are sorted
// by name ("Other" last) and lines by title, then path, so the same pages
// always give the same bytes, whatever the order of pages.
func RenderIndex(pages []PageInfo) []byte {
	return renderIndex(pages, nil)
}

// indexLine is one page's line of index.md and what it sorts by, kept
// between renders ([indexMemo]) so a write re-renders only the lines of
// pages it changed.
type indexLine struct {
	title, summary, group string // the page's fields the line was made from
	byPath                bool   // linked by path (its basename is shared)
	lowTitle, lowGroup    string
	path, slug            string
	lowBase, dir          string // lower-case basename and folder of the slug
	rootName              bool   // the basename is a root file's ([isRootFileName])
	line                  string // "- [[target|Title]] — summary\n"; "" in a stub
}

// indexMemo keeps each page's rendered line by path. Writes render
// index.md under the store's write lock; the mutex covers rebuild_index
// and the odd caller outside it.
type indexMemo struct {
	mu    sync.Mutex
	lines map[string]*indexLine
}

func renderIndex(pages []PageInfo, memo *indexMemo) []byte {
	var lines map[string]*indexLine
	if memo != nil {
		memo.mu.Lock()
		defer memo.mu.Unlock()
		if memo.lines == nil || len(memo.lines) > 2*len(pages)+1024 {
			memo.lines = make(map[string]*indexLine, len(pages))
		}
		lines = memo.lines
	}
	// Pass 1: each page's cached line (or a stub with its name keys), and
	// how many pages share each basename.
	ents := make([]*indexLine, len(pages))
	base := make(map[string]int, len(pages))
	for i, p := range pages {
		l := lines[p.Path]
		if l == nil || l.slug != p.Slug {
			low := strings.ToLower(path.Base(p.Slug))
			l = &indexLine{path: p.Path, slug: p.Slug, lowBase: low, dir: path.Dir(p.Slug), rootName: isRootFileName(low)}
		}
		ents[i] = l
		base[l.lowBase]++
	}
	groups := map[string][]*indexLine{}
	size := 0
	for i, p := range pages {
		l := ents[i]
		g := "Other"
		if len(p.Tags) > 0 {
			g = p.Tags[0]
		} else if l.dir != "." {
			g = l.dir
		}
		// A basename shared with another page, or with a file at the
		// root (pages/log.md and log.md), is linked by its path so the
		// link resolves to this page alone.
		byPath := base[l.lowBase] > 1 || l.rootName
		if l.line == "" || l.title != p.Title || l.summary != p.Summary || l.group != g || l.byPath != byPath {
			l = newIndexLine(p, l, g, byPath)
			if lines != nil {
				lines[p.Path] = l
			}
		}
		groups[g] = append(groups[g], l)
		size += len(l.line)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		if g != "Other" {
			names = append(names, g)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := groups[names[i]][0].lowGroup, groups[names[j]][0].lowGroup
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	if _, ok := groups["Other"]; ok {
		names = append(names, "Other")
	}
	var b bytes.Buffer
	b.Grow(size + 64*len(names) + 128)
	fmt.Fprintf(&b, "---\ngenerated_by: llmwiki rebuild_index\npages: %d\n---\n# Index\n\n", len(pages))
	if len(pages) == 0 {
		b.WriteString("No pages yet.\n")
		return b.Bytes()
	}
	for _, g := range names {
		ls := groups[g]
		slices.SortFunc(ls, func(x, y *indexLine) int {
			if c := strings.Compare(x.lowTitle, y.lowTitle); c != 0 {
				return c
			}
			return strings.Compare(x.path, y.path)
		})
		b.WriteString("## ")
		b.WriteString(textOnly(oneLine(g)))
		b.WriteString("\n\n")
		for _, l := range ls {
			b.WriteString(l.line)
		}
		b.WriteString("\n")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// newIndexLine renders p's line; keys holds p's name keys (pass 1).
func newIndexLine(p PageInfo, keys *indexLine, g string, byPath bool) *indexLine {
	target := path.Base(p.Slug)
	if byPath {
		target = strings.TrimSuffix(p.Path, path.Ext(p.Path))
	}
	title := linkText(p.Title)
	link := "[[" + target + "]]"
	if title != target {
		link = "[[" + target + "|" + title + "]]"
	}
	line := "- " + link + "\n"
	if s := textOnly(oneLine(p.Summary)); s != "" {
		line = "- " + link + " — " + s + "\n"
	}
	return &indexLine{
		title: p.Title, summary: p.Summary, group: g, byPath: byPath,
		lowTitle: strings.ToLower(p.Title), lowGroup: strings.ToLower(g),
		path: p.Path, slug: p.Slug, lowBase: keys.lowBase, dir: keys.dir, rootName: keys.rootName,
		line: line,
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// textOnly backslash-escapes "\\", "[" and "]" outside code spans
// (CommonMark, and Obsidian, render an escaped bracket as the bracket), so
// a summary or tag holding [[x]], ![[x]], [t](u) or ![i](u) shows as that
// text in index.md and is no link. A code span, which holds no link, is
// kept as written: escapes would show in it.
func textOnly(s string) string {
	if !strings.ContainsAny(s, "\\[]") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == '`' {
			n := backticks(s[i:])
			end := i + n
			for j := end; j < len(s); {
				if s[j] != '`' {
					j++
					continue
				}
				m := backticks(s[j:])
				if m == n {
					end = j + m
					break
				}
				j += m
			}
			b.WriteString(s[i:end])
			i = end
			continue
		}
		if c == '\\' || c == '[' || c == ']' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// backticks is the length of the run of backticks s starts with.
func backticks(s string) int {
	n := 0
	for n < len(s) && s[n] == '`' {
		n++
	}
	return n
}

// linkText makes s safe as the shown text of a wikilink.
func linkText(s string) string {
	s = oneLine(s)
	s = strings.ReplaceAll(s, "|", "-")
	s = strings.ReplaceAll(s, "]]", "] ]")
	s = strings.ReplaceAll(s, "[[", "[ [")
	return s
}

// autoIndex stages a regenerated index.md when index: auto is set and the
// transaction changes pages in a way index.md shows.
//
// A page update that keeps the page's path, title, summary and first tag
// cannot change index.md, so it skips the render (on a large wiki, most of
// a write's cost).
func (s *Store) autoIndex(tx *store.Tx) error {
	touches := false
	for _, c := range tx.Changes() {
		if LayerOf(c.Path) == LayerPages && s.changesIndexLine(c) {
			touches = true
			break
		}
	}
	if !touches || !s.Settings().AutoIndex {
		return nil
	}
	if s.deferIndex(tx) {
		return nil
	}
	pages, err := s.catalogueWith(tx)
	if err != nil {
		return err
	}
	return s.stageIndex(tx, pages)
}

func (s *Store) stageIndex(tx *store.Tx, pages []PageInfo) error {
	data := append(renderIndex(pages, &s.idxMemo), '\n')
	cur, ok, err := tx.Read("index.md")
	if err != nil {
		return err
	}
	if ok && bytes.Equal(cur, data) {
		return nil
	}
	return tx.Replace("index.md", data, "")
}

// changesIndexLine reports whether a staged page change can change index.md.
func (s *Store) changesIndexLine(c store.StagedChange) bool {
	if c.Op == store.OpDelete || !c.Existed {
		return true
	}
	before, after := pageInfoFrom(c.Path, c.Old), pageInfoFrom(c.Path, c.Data)
	first := func(t []string) string {
		if len(t) == 0 {
			return ""
		}
		return t[0]
	}
	return before.Title != after.Title || before.Summary != after.Summary || first(before.Tags) != first(after.Tags)
}

// catalogueWith returns the page catalogue as it will be after tx commits,
// in no particular order ([RenderIndex] does not depend on it).
func (s *Store) catalogueWith(tx *store.Tx) ([]PageInfo, error) {
	pages, err := s.PagesShared(tx.Context())
	if err != nil {
		return nil, err
	}
	staged := map[string]store.StagedChange{}
	for _, c := range tx.Changes() {
		if LayerOf(c.Path) == LayerPages {
			staged[c.Path] = c
		}
	}
	out := make([]PageInfo, 0, len(pages)+len(staged))
	for _, p := range pages {
		if _, ok := staged[p.Path]; !ok {
			out = append(out, p)
		}
	}
	for _, c := range staged {
		if c.Op != store.OpDelete {
			out = append(out, pageInfoFrom(c.Path, c.Data))
		}
	}
	return out, nil
}

// IndexResult is the result of [Store.RebuildIndex].
type IndexResult struct {
	Pages   int    `json:"pages"`
	Changed bool   `json:"changed"`
	SHA256  string `json:"sha256"`
}

// RebuildIndex regenerates index.md from every page's frontmatter through
// the audited writer. Changed is false when index.md already matched.
func (s *Store) RebuildIndex(ctx context.Context) (IndexResult, error) {
	var res IndexResult
	taken := false
	err := s.Update(ctx, func(tx *store.Tx) error {
		pages, err := s.PagesFresh(tx.Context())
		if err != nil {
			return err
		}
		res.Pages = len(pages)
		taken = s.idxLater.take() || taken // this render covers a pending regeneration
		Progress(ctx, len(pages), len(pages), "rendering index.md for "+strconv.Itoa(len(pages))+" pages")
		before, _, _ := tx.Read("index.md")
		if err := s.stageIndex(tx, pages); err != nil {
			return err
		}
		after, _, _ := tx.Read("index.md")
		res.Changed = !bytes.Equal(before, after)
		res.SHA256 = store.SHA256Hex(after)
		return nil
	})
	switch {
	case err != nil && taken:
		s.idxLater.mark(s) // not written: still pending
	case err == nil:
		s.clearPendingMarker()
	}
	return res, err
}

// isRootFileName reports whether name (lower case, no .md) is the basename
// of a file at the wiki's root ([LayoutFiles]), which a wikilink can also
// name ([[log]] is log.md as much as pages/log.md).
func isRootFileName(name string) bool {
	return slices.Contains(LayoutFiles, name+".md")
}

// Regenerating index.md after the writes. On a wiki of at least
// [IndexLaterPages] pages, a write under index: auto that changes what
// index.md shows does not regenerate it in its own transaction: rendering,
// writing and fsyncing the whole catalogue (3 MB at 44k pages, 10 MB at
// 144k) and the link graph's re-reading of every line grow with the wiki,
// and a create must not. The write marks index.md pending instead, and one
// regeneration, its own audited write (tool "internal"; its own commit
// under git: commit), renders it from the catalogue as it is then (the same
// bytes a full rebuild gives): after [IndexQuiet] without another such
// write, at the latest [IndexMaxDelay] after the first, when a reader needs
// it ([Store.FlushIndex]: read_page of index.md, lint_findings, load_project
// does not count it as stale meanwhile), and on Close. While one is
// pending, [IndexPendingFile] records it on disk, so a regeneration lost to
// a crash is done by the next server ([Store.ResumeIndex]). Smaller wikis
// regenerate index.md in the write.
const (
	IndexLaterPages = 500
	IndexQuiet      = time.Second
	IndexMaxDelay   = 10 * time.Second
)

// IndexPendingFile exists while a regeneration of index.md is pending (see
// [IndexLaterPages]); it is written and synced before the write that made
// the regeneration pending commits, and removed once index.md is
// regenerated. A stale one costs a regeneration that finds nothing to change.
const IndexPendingFile = store.StateDir + "/index-pending"

// WithIndexLater sets when index.md is regenerated after the writes rather
// than in them (see [IndexLaterPages]): on wikis of at least minPages pages
// (0: always; a negative value: never), quiet after the last such write and
// at most maxDelay after the first. Tests use it.
func WithIndexLater(minPages int, quiet, maxDelay time.Duration) Option {
	return func(s *Store) {
		s.idxLater.minPages, s.idxLater.quiet, s.idxLater.maxDelay, s.idxLater.set = minPages, quiet, maxDelay, true
	}
}

// indexLater is the state of a pending regeneration of index.md.
type indexLater struct {
	set             bool // WithIndexLater gave the figures below
	minPages        int
	quiet, maxDelay time.Duration
	mu              sync.Mutex
	pending         bool
	since           time.Time   // when it became pending
	timer           *time.Timer // runs FlushIndex; nil until first needed
	closed          bool        // Close flushed: the timer does nothing more
	flushMu         sync.Mutex  // one regeneration at a time
}

func (l *indexLater) limits() (minPages int, quiet, maxDelay time.Duration) {
	if l.set {
		return l.minPages, l.quiet, l.maxDelay
	}
	return IndexLaterPages, IndexQuiet, IndexMaxDelay
}

// deferIndex reports whether tx's change to index.md is left to a later
// regeneration, and marks it pending then. A dry run renders it (a
// proposal shows index.md's change).
func (s *Store) deferIndex(tx *store.Tx) bool {
	minPages, _, _ := s.idxLater.limits()
	if minPages < 0 || store.IsDryRun(tx.Context()) {
		return false
	}
	s.catMu.Lock()
	n, loaded := 0, s.cat != nil
	if loaded {
		n = s.cat.len()
	}
	s.catMu.Unlock()
	if !loaded || n < minPages {
		return false
	}
	s.idxLater.mark(s)
	return true
}

// mark records that index.md needs a regeneration and (re)starts its timer.
func (l *indexLater) mark(s *Store) {
	_, quiet, maxDelay := l.limits()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.pending {
		l.pending, l.since = true, time.Now()
		s.writePendingMarker()
	}
	if l.closed {
		return
	}
	wait := min(quiet, time.Until(l.since.Add(maxDelay)))
	if l.timer == nil {
		l.timer = time.AfterFunc(wait, func() { s.flushIndexTimer() })
	} else {
		l.timer.Reset(wait)
	}
}

// take clears the pending mark; it reports whether one was set. Called
// under the project lock by the render that covers it.
func (l *indexLater) take() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	was := l.pending
	l.pending = false
	if l.timer != nil {
		l.timer.Stop()
	}
	return was
}

// IndexPending reports whether a regeneration of index.md is pending (see
// [IndexLaterPages]): index.md does not yet list the latest writes.
func (s *Store) IndexPending() bool {
	s.idxLater.mu.Lock()
	defer s.idxLater.mu.Unlock()
	return s.idxLater.pending
}

// FlushIndex runs a pending regeneration of index.md now (see
// [IndexLaterPages]); nothing when none is pending. Readers that must see
// index.md in step with the pages call it first.
func (s *Store) FlushIndex(ctx context.Context) error {
	l := &s.idxLater
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	if !s.IndexPending() {
		return nil
	}
	// Its own audited write, whoever asked: a reader's call is not
	// charged with it. Not cancelled with the reader either.
	wctx, call, done := s.WithOwnCall(store.WithCall(context.WithoutCancel(ctx), nil))
	err := s.Update(wctx, func(tx *store.Tx) error {
		if !l.take() || !s.Settings().AutoIndex {
			return nil // done meanwhile (rebuild_index), or turned off
		}
		pages, err := s.PagesShared(tx.Context())
		if err != nil {
			return err
		}
		return s.stageIndex(tx, pages)
	})
	if err != nil {
		l.mark(s) // tried again after the next quiet spell, by a reader or on Close
	} else {
		s.clearPendingMarker()
	}
	if err != nil || len(call.Record().Writes) > 0 {
		done(err)
	}
	return err
}

func (s *Store) flushIndexTimer() {
	s.idxLater.mu.Lock()
	closed := s.idxLater.closed
	s.idxLater.mu.Unlock()
	if closed {
		return
	}
	if err := s.FlushIndex(context.Background()); err != nil {
		s.log.Error("index.md not regenerated", "err", err)
	}
}

// closeIndexLater stops the timer and writes a pending regeneration.
func (s *Store) closeIndexLater() {
	l := &s.idxLater
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	if s.Store == nil || s.readOnly {
		return
	}
	if err := s.FlushIndex(context.Background()); err != nil {
		s.log.Error("index.md not regenerated", "err", err)
	}
}

// writePendingMarker records on disk that a regeneration is pending; called
// under idxLater.mu when it becomes pending. A failure is logged: the
// regeneration still runs in this process, only a crash before it would
// leave index.md behind (lint reports the drift).
func (s *Store) writePendingMarker() {
	if s.root == nil || s.readOnly {
		return
	}
	f, err := s.root.OpenFile(IndexPendingFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		s.log.Warn("index.md's pending regeneration not recorded on disk", "err", err)
	}
}

// clearPendingMarker removes [IndexPendingFile] unless a regeneration became
// pending again meanwhile.
func (s *Store) clearPendingMarker() {
	l := &s.idxLater
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending || s.root == nil || s.readOnly {
		return
	}
	if err := s.root.Remove(IndexPendingFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("index.md's pending mark not removed", "err", err)
	}
}

// ResumeIndex schedules the regeneration of index.md that a previous
// process left pending ([IndexPendingFile]: it stopped before writing it).
// A server calls it when its background work starts.
func (s *Store) ResumeIndex() {
	if s.root == nil || s.readOnly {
		return
	}
	if _, err := s.root.Lstat(IndexPendingFile); err != nil {
		return
	}
	s.log.Info("regenerating index.md, left pending by a previous run")
	s.idxLater.mark(s)
}
