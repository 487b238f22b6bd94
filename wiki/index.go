package wiki

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// RenderIndex renders index.md from the page catalogue: one line per page,
// "- [[target|Title]] — summary", grouped under "## " headings by the page's
// first tag, else its folder under pages/, else "Other". Groups are sorted
// by name ("Other" last) and lines by title, then path, so the same pages
// always give the same bytes.
func RenderIndex(pages []PageInfo) []byte {
	base := map[string]int{}
	for _, p := range pages {
		base[strings.ToLower(path.Base(p.Slug))]++
	}
	groups := map[string][]PageInfo{}
	for _, p := range pages {
		g := "Other"
		if len(p.Tags) > 0 {
			g = p.Tags[0]
		} else if d := path.Dir(p.Slug); d != "." {
			g = d
		}
		groups[g] = append(groups[g], p)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		if g != "Other" {
			names = append(names, g)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	if _, ok := groups["Other"]; ok {
		names = append(names, "Other")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\ngenerated_by: llmwiki rebuild_index\npages: %d\n---\n# Index\n\n", len(pages))
	if len(pages) == 0 {
		b.WriteString("No pages yet.\n")
		return b.Bytes()
	}
	for _, g := range names {
		ps := groups[g]
		sort.Slice(ps, func(i, j int) bool {
			a, b := strings.ToLower(ps[i].Title), strings.ToLower(ps[j].Title)
			if a != b {
				return a < b
			}
			return ps[i].Path < ps[j].Path
		})
		fmt.Fprintf(&b, "## %s\n\n", textOnly(oneLine(g)))
		for _, p := range ps {
			target := path.Base(p.Slug)
			// A basename shared with another page, or with a file at the
			// root (pages/log.md and log.md), is linked by its path so the
			// link resolves to this page alone.
			if base[strings.ToLower(target)] > 1 || isRootFileName(strings.ToLower(target)) {
				target = strings.TrimSuffix(p.Path, path.Ext(p.Path))
			}
			title := linkText(p.Title)
			link := "[[" + target + "]]"
			if title != target {
				link = "[[" + target + "|" + title + "]]"
			}
			if s := textOnly(oneLine(p.Summary)); s != "" {
				fmt.Fprintf(&b, "- %s — %s\n", link, s)
			} else {
				fmt.Fprintf(&b, "- %s\n", link)
			}
		}
		b.WriteString("\n")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
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
	pages, err := s.catalogueWith(tx)
	if err != nil {
		return err
	}
	return stageIndex(tx, pages)
}

func stageIndex(tx *store.Tx, pages []PageInfo) error {
	data := append(RenderIndex(pages), '\n')
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

// catalogueWith returns the page catalogue as it will be after tx commits.
func (s *Store) catalogueWith(tx *store.Tx) ([]PageInfo, error) {
	pages, err := s.PagesContext(tx.Context())
	if err != nil {
		return nil, err
	}
	byPath := make(map[string]PageInfo, len(pages))
	for _, p := range pages {
		byPath[p.Path] = p
	}
	for _, c := range tx.Changes() {
		if LayerOf(c.Path) != LayerPages {
			continue
		}
		if c.Op == store.OpDelete {
			delete(byPath, c.Path)
		} else {
			byPath[c.Path] = pageInfoFrom(c.Path, c.Data)
		}
	}
	out := make([]PageInfo, 0, len(byPath))
	for _, p := range byPath {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
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
	err := s.Update(ctx, func(tx *store.Tx) error {
		pages, err := s.PagesFresh(tx.Context())
		if err != nil {
			return err
		}
		res.Pages = len(pages)
		Progress(ctx, len(pages), len(pages), "rendering index.md for "+strconv.Itoa(len(pages))+" pages")
		before, _, _ := tx.Read("index.md")
		if err := stageIndex(tx, pages); err != nil {
			return err
		}
		after, _, _ := tx.Read("index.md")
		res.Changed = !bytes.Equal(before, after)
		res.SHA256 = store.SHA256Hex(after)
		return nil
	})
	return res, err
}

// isRootFileName reports whether name (lower case, no .md) is the basename
// of a file at the wiki's root ([LayoutFiles]), which a wikilink can also
// name ([[log]] is log.md as much as pages/log.md).
func isRootFileName(name string) bool {
	return slices.Contains(LayoutFiles, name+".md")
}
