package wiki

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Problem is one finding of [Store.ValidateStructure].
type Problem struct {
	// Kind: missing_folder, missing_file, bad_frontmatter, wrong_layer,
	// slug_collision, symlink_outside, temp_file, bad_name, not_regular.
	Kind string `json:"kind"`
	// Severity: "error" or "warning".
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
// lead out of the root, temp files left by an interrupted write, and files
// that are not regular files (a FIFO, socket or device: never read).
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
		if data, ok, err := s.readRaw(f); err == nil && ok {
			if _, err := ParseDoc(f, data); err != nil {
				add("bad_frontmatter", "error", f, PublicMessage(err), "fix the frontmatter by hand, or restore a snapshot")
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
			add("bad_name", "error", shown, fmt.Sprintf("%q cannot be read or written through llmwiki: %s", shown, strings.ToValidUTF8(PublicMessage(err), "\uFFFD")), "rename it by hand to a name without : < > \" | ? *, control characters, edge spaces or dots, or Windows device names, in UTF-8")
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
		if IsTempName(p) {
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
			out.Pages++
			keys[PageKey(p)] = append(keys[PageKey(p)], p)
			data, ok, err := s.readRaw(p)
			if err == nil && ok {
				if _, perr := ParseDoc(p, data); perr != nil {
					add("bad_frontmatter", "error", p, PublicMessage(perr), "fix the frontmatter by hand, or restore a snapshot")
				}
			}
		case LayerSources, LayerResearch:
			out.Sources++
		}
		return nil
	})
	if err != nil {
		return out, internal("walk project", err)
	}
	for _, paths := range keys {
		if len(paths) > 1 {
			sort.Strings(paths)
			add("slug_collision", "error", paths[0], "these files are one page under different names: "+strings.Join(paths, ", "), "merge them into one file and delete the others by hand")
		}
	}
	sort.SliceStable(out.Problems, func(i, j int) bool {
		if out.Problems[i].Severity != out.Problems[j].Severity {
			return out.Problems[i].Severity == "error"
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
		if !d.IsDir() && IsTempName(p) {
			add("temp_file", "warning", p, p+" is a temp file left by an interrupted write", "restart the server (it removes them under the lock) or delete it")
		}
		return nil
	})
	return fs.SkipDir
}

// addNotRegular reports p, of type bits m, as a file llmwiki will not open.
func addNotRegular(add func(kind, sev, p, msg, fix string), p string, m fs.FileMode) {
	add("not_regular", "error", p, NotRegularError(p, m).Msg, "remove it, or replace it with a regular file; llmwiki refuses to read or write it and search, lint and the page list skip it")
}
