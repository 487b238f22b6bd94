package tools

import (
	"context"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ReadPageInput names the file to read.
type ReadPageInput struct {
	Path     string `json:"path,omitempty" jsonschema:"project-relative path such as pages/topic.md or sources/notes.md or context.md or index.md; give this or page"`
	Page     string `json:"page,omitempty" jsonschema:"a page by slug, title or alias (case and separators do not matter); give this or path"`
	FromLine int    `json:"from_line,omitempty" jsonschema:"first line to return (1-based line of the whole file); use with to_line for long files"`
	ToLine   int    `json:"to_line,omitempty" jsonschema:"last line to return (inclusive)"`
	MaxChars int    `json:"max_chars,omitempty" jsonschema:"most characters to return (default 60000; at most 400000)"`
	At       string `json:"at,omitempty" jsonschema:"an earlier version to read instead of the current file: a commit hash (7 or more hex digits, from page_history) or a snapshot path (from page_history or list_snapshots)"`
}

// ReadPageOutput is the file's content and metadata.
type ReadPageOutput struct {
	wiki.FileContent
	// Backlinks are the links into the file from pages, index.md and
	// context.md (up to MaxBacklinks); BacklinksTotal counts them all.
	Backlinks      []links.Backlink `json:"backlinks" jsonschema:"links into this file from pages, index.md, context.md and guidelines.md: the linking file, line and link as written (an empty list means nothing links here)"`
	BacklinksTotal int              `json:"backlinks_total" jsonschema:"how many links lead here in all"`
	// At is the version read when the call asked for one: the commit
	// (short hash) or the snapshot path.
	At string `json:"at,omitempty" jsonschema:"the earlier version this content is (a commit or a snapshot), when at was given; path is then the file's name in that version"`
	Notes
}

// MaxBacklinks is the most backlinks read_page returns.
const MaxBacklinks = 200

// ReadPage returns the read_page tool.
func ReadPage(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "read_page", Toolset: "core", Title: "Read page",
		Description: "Read one file of the wiki: a page (by path, or by slug or title as page), a source, context.md, index.md, schema.md, guidelines.md or log.md. Returns frontmatter, content, sha256 (pass it as base_sha256 when you update the page) and backlinks (the files that link here). Long files come in parts: read on from next_from_line. Binary files are described, not shown. With at (a commit or snapshot from page_history), returns that earlier version instead. Use search_wiki first when you do not know which page answers a question.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in ReadPageInput) (ReadPageOutput, error) {
			rin := wiki.ReadInput{Path: in.Path, Page: in.Page, FromLine: in.FromLine, ToLine: in.ToLine, MaxChars: in.MaxChars}
			var fc wiki.FileContent
			var err error
			at := strings.TrimSpace(in.At)
			if at != "" {
				fc, at, err = readAt(ctx, d, rin, at)
			} else {
				fc, err = d.Store.Read(ctx, rin)
			}
			if err != nil {
				return ReadPageOutput{}, err
			}
			out := ReadPageOutput{FileContent: fc, Backlinks: []links.Backlink{}, At: at}
			v, err := d.Links.View(ctx)
			if err != nil {
				store.CallFrom(ctx).AddWarning("backlinks unavailable: " + store.PublicMessage(err))
				return out, nil
			}
			bl := v.Backlinks(fc.Path)
			out.BacklinksTotal = len(bl)
			out.Backlinks = append(out.Backlinks, bl[:min(len(bl), MaxBacklinks)]...)
			return out, nil
		})
}

// readAt reads the earlier version at of the file in names: a snapshot
// path (which names its file, so page and path may be omitted) or a
// commit. It returns the version and how the result names it.
func readAt(ctx context.Context, d Deps, in wiki.ReadInput, at string) (wiki.FileContent, string, error) {
	if strings.HasPrefix(at, store.SnapshotDir+"/") {
		p, err := wiki.CleanPath(at)
		if err != nil {
			return wiki.FileContent{}, "", err
		}
		sn, ok := store.ParseSnapshotPath(p)
		if !ok {
			return wiki.FileContent{}, "", store.Errorf(store.CodeInvalid, "%s is not a snapshot path; page_history and list_snapshots list the versions", p)
		}
		if in.Path != "" || in.Page != "" {
			rel, err := git.HistoryTarget(d.Store, in.Page, in.Path, false)
			if err != nil {
				return wiki.FileContent{}, "", err
			}
			if rel != sn.Path {
				return wiki.FileContent{}, "", store.Errorf(store.CodeInvalid, "snapshot %s is a version of %s, not of %s; page_history lists the versions of %s", p, sn.Path, rel, rel)
			}
		}
		data, ok, err := d.Store.ReadRaw(p)
		if err != nil {
			return wiki.FileContent{}, "", err
		}
		if !ok {
			return wiki.FileContent{}, "", store.Errorf(store.CodeNotFound, "snapshot %s does not exist; page_history lists the versions of %s", p, sn.Path)
		}
		fc, err := d.Store.ReadVersion(ctx, sn.Path, data, in)
		return fc, p, err
	}
	if !git.IsCommitRef(at) {
		return wiki.FileContent{}, "", store.Errorf(store.CodeInvalid, "at must be a commit hash (7 or more hex digits) or a snapshot path, as page_history lists them")
	}
	if d.Git == nil || d.Git.Mode() == wiki.GitOff {
		return wiki.FileContent{}, "", store.Errorf(store.CodeInvalid, "at names a commit, but git is off for this wiki (git in schema.md); page_history lists its snapshots, which at also takes")
	}
	rel, err := git.HistoryTarget(d.Store, in.Page, in.Path, true)
	if err != nil {
		return wiki.FileContent{}, "", err
	}
	v, err := d.Git.FileAt(ctx, at, rel)
	if err != nil {
		return wiki.FileContent{}, "", err
	}
	fc, err := d.Store.ReadVersion(ctx, v.Path, v.Content, in)
	return fc, v.Commit[:12], err
}
