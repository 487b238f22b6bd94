package eval

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
)

// DanglingLink is a wikilink in a page that resolves to no file.
type DanglingLink struct {
	Page   string `json:"page"`
	Target string `json:"target"`
	Line   int    `json:"line"`
}

// linkCheckMinimal names the built-in link check in reports.
const linkCheckMinimal = "minimal: [[wikilinks]] and ![[embeds]] outside code fences and code spans, resolved by path, page slug, file basename, title or alias"

// danglingLinks finds wikilinks in pages/ and context.md that resolve to
// nothing.
//
// This is a minimal check kept inside eval (a line scanner, not a markdown
// parser): it skips fenced code and code spans, reads [[target]],
// [[target|alias]], [[target#heading]], [[target^block]] and ![[embed]], and
// resolves the target the way Obsidian does for the common cases: a path
// (with or without .md), a page slug in any case or separator style, a
// unique basename anywhere in the wiki, a page title or an alias. Headings
// inside the target are not checked.
func danglingLinks(st *wiki.Store) ([]DanglingLink, string) {
	out := []DanglingLink{}
	pages, err := st.Pages()
	if err != nil {
		return out, linkCheckMinimal
	}
	known := map[string]bool{}
	for _, p := range pages {
		known[wiki.PageKey(p.Path)] = true
		known["base:"+baseKey(p.Slug)] = true
		known["name:"+strings.ToLower(p.Title)] = true
		for _, a := range p.Aliases {
			known["name:"+strings.ToLower(a)] = true
		}
	}
	_ = fs.WalkDir(st.Root().FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p == ".llmwiki" || p == ".git" || p == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		known["file:"+strings.ToLower(p)] = true
		known["base:"+baseKey(p)] = true
		known["file:"+strings.ToLower(path.Base(p))] = true
		return nil
	})
	files := []string{"context.md"}
	for _, p := range pages {
		files = append(files, p.Path)
	}
	for _, f := range files {
		data, err := st.Root().ReadFile(f)
		if err != nil || wiki.IsBinary(data) {
			continue
		}
		for _, l := range scanWikilinks(string(data)) {
			if !resolves(known, l.target) {
				out = append(out, DanglingLink{Page: f, Target: l.target, Line: l.line})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Page != out[j].Page {
			return out[i].Page < out[j].Page
		}
		return out[i].Line < out[j].Line
	})
	return out, linkCheckMinimal
}

// baseKey is the identity of a file's base name without extension.
func baseKey(p string) string {
	b := path.Base(p)
	b = strings.TrimSuffix(b, path.Ext(b))
	if s, err := wiki.Slugify(b); err == nil {
		return s
	}
	return strings.ToLower(b)
}

func resolves(known map[string]bool, target string) bool {
	t := strings.TrimPrefix(strings.TrimSpace(target), "/")
	lt := strings.ToLower(t)
	if known["file:"+lt] || known["file:"+lt+".md"] || known["file:pages/"+lt] || known["file:pages/"+lt+".md"] {
		return true
	}
	if known["name:"+lt] {
		return true
	}
	cand := t
	if !strings.HasPrefix(cand, "pages/") {
		cand = "pages/" + cand
	}
	if known[wiki.PageKey(cand)] {
		return true
	}
	if !strings.Contains(t, "/") && (known["base:"+baseKey(t)] || known["base:"+baseKey(t+".md")]) {
		return true
	}
	return false
}

type wikilink struct {
	target string
	line   int
}

// scanWikilinks returns the link targets in a markdown text, outside fenced
// code and code spans, with their 1-based lines. Targets that name only a
// heading or block of the same page ([[#x]]) are left out.
func scanWikilinks(text string) []wikilink {
	var out []wikilink
	fence := ""
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, "\r")
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.TrimSpace(strings.TrimLeft(t, fence[:1])) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(t); f != "" && len(line)-len(t) < 4 {
			fence = f
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue // indented code
		}
		line = stripCodeSpans(line)
		for {
			a := strings.Index(line, "[[")
			if a < 0 {
				break
			}
			b := strings.Index(line[a+2:], "]]")
			if b < 0 {
				break
			}
			inner := line[a+2 : a+2+b]
			line = line[a+2+b+2:]
			inner = strings.ReplaceAll(inner, `\|`, "|")
			if k := strings.IndexByte(inner, '|'); k >= 0 {
				inner = inner[:k]
			}
			if k := strings.IndexAny(inner, "#^"); k >= 0 {
				inner = inner[:k]
			}
			inner = strings.TrimSpace(inner)
			if inner == "" || strings.Contains(inner, "[") {
				continue
			}
			out = append(out, wikilink{target: inner, line: i + 1})
		}
	}
	return out
}

// fenceOf returns the code fence a line opens ("```" or "~~~", full
// length), or "".
func fenceOf(t string) string {
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == ch {
			n++
		}
		if n >= 3 {
			if ch == '`' && strings.Contains(t[n:], "`") {
				return ""
			}
			return t[:n]
		}
	}
	return ""
}

// stripCodeSpans blanks `code spans` (matched backtick runs) in one line.
func stripCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		run := line[i : i+n]
		end := -1
		for j := i + n; j < len(line); {
			k := strings.Index(line[j:], run)
			if k < 0 {
				break
			}
			k += j
			m := 0
			for k+m < len(line) && line[k+m] == '`' {
				m++
			}
			if m == n {
				end = k
				break
			}
			j = k + m
		}
		if end < 0 {
			b.WriteString(run)
			i += n
			continue
		}
		b.WriteString(strings.Repeat(" ", end+n-i))
		i = end + n
	}
	return b.String()
}
