package wiki

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Problem is one finding of [Store.ValidateStructure].
type Problem struct {
	// Kind: missing_folder, missing_file, bad_frontmatter, wrong_layer,
	// slug_collision, symlink_outside, temp_file, bad_name, hidden_name,
	// binary_file, unknown_encoding, unreadable, not_regular (a FIFO, socket or device:
	// never read), source_modified
	// (a source's bytes differ from those first seen), source_deleted (a
	// source first seen earlier is gone).
	Kind string `json:"kind"`
	// Severity: "error", "warning" or "info" (a fact worth knowing, such
	// as a binary source search cannot cover).
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	// Fix says what to do about it.
	Fix string `json:"fix"`
}

// Structure is the result of [Store.ValidateStructure].
type Structure struct {
	// OK is true when there is no problem of severity "error".
	OK       bool      `json:"ok"`
	Problems []Problem `json:"problems"`
	Pages    int       `json:"pages"`
	Sources  int       `json:"sources"`
}

// ValidateStructure checks the layout of the project: missing folders and
// files, pages whose frontmatter does not parse, files in the wrong layer,
// pages that are one page under two names (slug collisions), symlinks that
// lead out of the root, temp files left by an interrupted write, files
// that are not regular files (a FIFO, socket or device: never read), sources
// changed or deleted outside llmwiki ([Store.SourceIssues]), and every
// page or source llmwiki cannot serve in full: names it will not serve
// ([UnservableName]), binary files (search does not index them) and text
// whose encoding could not be determined ([mdoc.Decoded].Uncertain).
func (s *Store) ValidateStructure(ctx context.Context) (Structure, error) {
	var out Structure
	add := func(kind, sev, p, msg, fix string) {
		out.Problems = append(out.Problems, Problem{Kind: kind, Severity: sev, Path: p, Message: msg, Fix: fix})
	}
	for _, d := range []string{"sources", "sources/research", "pages"} {
		if fi, err := s.root.Stat(d); err != nil || !fi.IsDir() {
			add("missing_folder", "error", d, d+"/ is missing", "run `llmwiki init` on the project (it never overwrites files)")
		}
	}
	for _, f := range LayoutFiles {
		if fi, err := s.root.Stat(f); err != nil || fi.IsDir() { // a FIFO or device is reported by the walk
			add("missing_file", "warning", f, f+" is missing", "run `llmwiki init` on the project to restore the starting file")
		}
	}
	for _, f := range []string{"context.md", "index.md", "schema.md"} {
		if data, ok, err := s.ReadRaw(f); err == nil && ok {
			if _, err := mdoc.ParseDoc(f, data); err != nil {
				add("bad_frontmatter", "error", f, store.PublicMessage(err), "fix the frontmatter by hand, or restore a snapshot")
			}
		}
	}
	keys := map[string][]string{}
	err := fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p == "." {
			return nil
		}
		if d.IsDir() && (p == ".llmwiki" || p == ".git" || p == ".obsidian" || p == ".trash") {
			if p == ".llmwiki" {
				return s.checkStateTemps(add)
			}
			return fs.SkipDir
		}
		if !addressable(p) {
			_, err := CleanPath(p)
			shown := strings.ToValidUTF8(p, "\uFFFD")
			add("bad_name", "error", shown, fmt.Sprintf("%q cannot be read or written through llmwiki: %s", shown, strings.ToValidUTF8(store.PublicMessage(err), "\uFFFD")), "rename it by hand to a name without : < > \" | ? *, control characters, edge spaces or dots, or Windows device names, in UTF-8")
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := s.root.Stat(p); err != nil {
				add("symlink_outside", "error", p, p+" is a symbolic link that leads outside the wiki root or nowhere", "remove the link; llmwiki never reads or writes through it")
			} else if !fi.IsDir() && !fi.Mode().IsRegular() {
				addNotRegular(add, p, fi.Mode())
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			addNotRegular(add, p, d.Type())
			return nil
		}
		if store.IsTempName(p) {
			add("temp_file", "warning", p, p+" is a temp file left by an interrupted write", "restart the server (it removes them under the lock) or delete it")
			return nil
		}
		switch LayerOf(p) {
		case LayerOther:
			if !strings.HasPrefix(path.Base(p), ".") && !strings.EqualFold(path.Base(p), "README.md") {
				add("wrong_layer", "warning", p, p+" is outside the wiki layout", "move raw documents under sources/ and wiki pages under pages/")
			}
		case LayerPages:
			if !strings.EqualFold(path.Ext(p), ".md") {
				if !strings.HasPrefix(path.Base(p), ".") {
					add("wrong_layer", "warning", p, p+" is not a markdown page", "keep attachments and raw files under sources/")
				}
				return nil
			}
			if why := UnservableName(p); why != "" {
				add("hidden_name", "warning", p, p+" is not served as a page: "+why+"; list_pages, index.md and search_wiki leave it out", "rename it by hand to a name without the leading '.' (for example "+path.Dir(p)+"/dot.md) to make it a page")
				return nil
			}
			out.Pages++
			keys[PageKey(p)] = append(keys[PageKey(p)], p)
			data, ok, err := s.ReadRaw(p)
			if err != nil {
				s.unreadable(p, err, add)
			}
			if err == nil && ok {
				dec := s.checkText(p, data, "warning", add)
				if dec.Binary {
					return nil
				}
				if _, perr := mdoc.ParseDoc(p, dec.Text); perr != nil {
					add("bad_frontmatter", "error", p, store.PublicMessage(perr), "fix the frontmatter by hand, or restore a snapshot")
				}
			}
		case LayerSources, LayerResearch:
			if why := UnservableName(p); why != "" {
				add("hidden_name", "warning", p, p+" is not served as a source: "+why+"; gather_sources and search_wiki leave it out", "rename it by hand to a name without the leading '.'")
				return nil
			}
			out.Sources++
			if strings.HasPrefix(path.Base(p), ".") || !d.Type().IsRegular() {
				return nil // .DS_Store, .gitkeep: not content; a FIFO would block a read
			}
			if data, ok, err := s.ReadRaw(p); err != nil {
				s.unreadable(p, err, add)
			} else if ok {
				s.checkText(p, data, "info", add)
			}
		}
		return nil
	})
	if err != nil {
		return out, store.Internal("walk project", err)
	}
	issues, err := s.SourceIssues(ctx)
	if errors.Is(err, store.ErrNotRegular) {
		// The record cannot be read: the sources go unchecked, and the
		// file in its place is listed (the walk of .llmwiki lists a FIFO
		// there, not a symbolic link).
		if !slices.ContainsFunc(out.Problems, func(p Problem) bool { return p.Path == SourcesRecordFile }) {
			add("not_regular", "error", SourcesRecordFile, store.PublicMessage(err), "remove it: llmwiki rebuilds the record from the audit log and the sources as they are then")
		}
	} else if err != nil {
		return out, err
	}
	for _, is := range issues {
		add(is.Kind, "error", is.Path, is.Message, is.Fix)
	}
	for _, paths := range keys {
		if len(paths) > 1 {
			sort.Strings(paths)
			add("slug_collision", "error", paths[0], "these files are one page under different names: "+strings.Join(paths, ", "), "merge them into one file and delete the others by hand")
		}
	}
	rank := map[string]int{"error": 0, "warning": 1, "info": 2}
	sort.SliceStable(out.Problems, func(i, j int) bool {
		if out.Problems[i].Severity != out.Problems[j].Severity {
			return rank[out.Problems[i].Severity] < rank[out.Problems[j].Severity]
		}
		return out.Problems[i].Path < out.Problems[j].Path
	})
	out.OK = true
	for _, p := range out.Problems {
		if p.Severity == "error" {
			out.OK = false
		}
	}
	if out.Problems == nil {
		out.Problems = []Problem{}
	}
	return out, nil
}

// checkText reports a page or source that is not text (binarySev: a
// warning for a page, info for a source, where PDFs and images are
// expected) or whose encoding could not be determined, and returns the
// file as [mdoc.Decode] reads it.
func (s *Store) checkText(p string, data []byte, binarySev string, add func(kind, sev, p, msg, fix string)) mdoc.Decoded {
	dec := mdoc.Decode(data)
	switch {
	case dec.Binary:
		add("binary_file", binarySev, p, p+" is not text ("+MediaType(p, data)+"): read_page describes it without its content and search_wiki does not index it", "nothing to do for an image or PDF; if it should be text, save it again as UTF-8")
	case dec.Uncertain:
		add("unknown_encoding", "warning", p, p+" is not UTF-8 and its encoding could not be determined: read_page and search_wiki take it as "+dec.Encoding+", a guess that may garble the text", "convert the file to UTF-8 by hand (for Korean text, for example: iconv -f CP949 -t UTF-8), keeping the original if it is a source")
	}
	return dec
}

// unreadable reports a page or source that cannot be read (permissions).
func (s *Store) unreadable(p string, err error, add func(kind, sev, p, msg, fix string)) {
	add("unreadable", "warning", p, p+" cannot be read ("+store.PublicMessage(err)+"): read_page, list_pages and search_wiki cannot show it", "check the file's permissions: the server's user must be able to read it")
}

func (s *Store) checkStateTemps(add func(kind, sev, p, msg, fix string)) error {
	_ = fs.WalkDir(s.root.FS(), ".llmwiki", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p == ".llmwiki/search" {
			return fs.SkipDir
		}
		if !d.IsDir() && d.Type()&fs.ModeSymlink == 0 && !d.Type().IsRegular() {
			addNotRegular(add, p, d.Type())
			return nil
		}
		if !d.IsDir() && store.IsTempName(p) {
			add("temp_file", "warning", p, p+" is a temp file left by an interrupted write", "restart the server (it removes them under the lock) or delete it")
		}
		return nil
	})
	return fs.SkipDir
}

// addNotRegular reports p, of type bits m, as a file llmwiki will not open.
func addNotRegular(add func(kind, sev, p, msg, fix string), p string, m fs.FileMode) {
	add("not_regular", "error", p, store.NotRegularError(p, m).Msg, "remove it, or replace it with a regular file; llmwiki refuses to read or write it and search, lint and the page list skip it")
}
