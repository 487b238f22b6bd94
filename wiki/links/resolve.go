package links

import (
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/llmwiki/llmwiki/internal/quote"
	"golang.org/x/text/unicode/norm"
)

// Key folds a file path or link target for comparison the way Obsidian
// compares them: lower case, Unicode NFC, and a trailing ".md" dropped
// ("en/Foo Bar.md" and "EN/foo bar" have the same key).
func Key(p string) string {
	p = norm.NFC.String(strings.ToLower(p))
	if strings.HasSuffix(p, ".md") {
		p = p[:len(p)-3]
	}
	return p
}

// How a link was resolved ([Resolution].By).
const (
	BySelf     = "self"     // [[#Heading]]: the linking file
	ByPath     = "path"     // a path or the last components of one: [[folder/Foo]]
	ByName     = "name"     // a bare file name: [[Foo]]
	ByRelative = "relative" // ./x or ../x from the linking file's folder
	ByAlias    = "alias"    // a frontmatter alias of a page
)

// Resolution is where a link leads.
type Resolution struct {
	// Path is the project-relative path of the file; "" when none matches.
	Path string `json:"path,omitempty"`
	// By says how Path was found (BySelf, ByPath, ByName, ByRelative,
	// ByAlias).
	By string `json:"by,omitempty"`
	// Ambiguous lists the other files that matched as well as Path did
	// (equally near the linking file); empty when the link is unambiguous.
	Ambiguous []string `json:"ambiguous,omitempty"`
}

type fileKey struct {
	path, key string
}

// Resolver resolves link targets against a fixed set of files. It is
// immutable and safe for concurrent use.
type Resolver struct {
	byKey   overlay[[]string]   // full key -> paths (case variants)
	byBase  overlay[[]fileKey]  // last component of the key -> files
	aliases map[string][]string // alias key -> pages
}

// NewResolver indexes files (project-relative paths of every file a link may
// reach) and aliases (page path -> its frontmatter aliases).
func NewResolver(files []string, aliases map[string][]string) *Resolver {
	r := &Resolver{aliases: map[string][]string{}}
	byKey, byBase := make(map[string][]string, len(files)), make(map[string][]fileKey, len(files))
	for _, f := range files {
		k := Key(f)
		byKey[k] = append(byKey[k], f)
		b := k[strings.LastIndexByte(k, '/')+1:]
		byBase[b] = append(byBase[b], fileKey{f, k})
	}
	for p, as := range aliases {
		seen := map[string]bool{}
		for _, a := range as {
			k := Key(strings.TrimSpace(a))
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			r.aliases[k] = append(r.aliases[k], p)
		}
	}
	for _, v := range byKey {
		sort.Strings(v)
	}
	r.byKey.base, r.byBase.base = byKey, byBase
	for _, v := range r.aliases {
		sort.Strings(v)
	}
	return r
}

// Has reports whether a file with path p's key exists.
func (r *Resolver) Has(p string) bool { return len(r.byKey.at(Key(p))) > 0 }

// AliasOwners returns the pages that declare alias a (by key).
func (r *Resolver) AliasOwners(a string) []string { return r.aliases[Key(strings.TrimSpace(a))] }

// Resolve returns the file a link written in the file from with the given
// target leads to. target is the file part only (see [Link].Target).
//
// In order: "" is from itself; "./x" and "../x" are relative to from's
// folder; otherwise every file whose key equals the target's key or ends
// with "/" + it matches (so [[Foo]] finds pages/any/Foo.md and
// [[en/Foo]] finds pages/en/Foo.md); when none does, pages whose aliases
// include the target match. Of several matches the one sharing the most
// leading folders with from wins, then the shortest path, then the first in
// byte order; the rest of the equally near ones are listed in Ambiguous.
func (r *Resolver) Resolve(from, target string) Resolution {
	res, _ := r.resolve(from, target)
	return res
}

// resolve is [Resolver.Resolve] that also returns the last component of the
// key the target was looked up by ("" for a link to from itself): only a
// file whose key ends in that component can change where the link leads,
// so a view re-resolves just those links when files come or go.
func (r *Resolver) resolve(from, target string) (Resolution, string) {
	t := strings.TrimSpace(target)
	if t == "" {
		return Resolution{Path: from, By: BySelf}, ""
	}
	if strings.HasPrefix(t, "./") || strings.HasPrefix(t, "../") {
		j := path.Join(path.Dir(from), t)
		if j == ".." || strings.HasPrefix(j, "../") {
			return Resolution{}, ""
		}
		k := Key(j)
		base := k[strings.LastIndexByte(k, '/')+1:]
		if ps := r.byKey.at(k); len(ps) > 0 {
			return Resolution{Path: ps[0], By: ByRelative}, base
		}
		return Resolution{}, base
	}
	t = strings.TrimLeft(t, "/")
	k := Key(t)
	if k == "" {
		return Resolution{}, ""
	}
	base := k[strings.LastIndexByte(k, '/')+1:]
	var cands []string
	for _, f := range r.byBase.at(base) {
		if f.key == k || (len(f.key) > len(k) && f.key[len(f.key)-len(k)-1] == '/' && strings.HasSuffix(f.key, k)) {
			cands = append(cands, f.path)
		}
	}
	by := ByName
	if strings.Contains(k, "/") {
		by = ByPath
	}
	if len(cands) == 0 {
		cands = r.aliases[k]
		by = ByAlias
	}
	if len(cands) == 0 {
		return Resolution{}, base
	}
	best, tied := nearest(from, cands)
	return Resolution{Path: best, By: by, Ambiguous: tied}, base
}

// baseKey is the last component of a file's key: the bucket of byBase the
// file is in, and the base [Resolver.resolve] reports for links it may
// answer.
func baseKey(file string) string {
	k := Key(file)
	return k[strings.LastIndexByte(k, '/')+1:]
}

// with returns a resolver of r's files with added and without removed
// (project-relative paths; the aliases stay r's). r is unchanged: the maps
// are copied, and a bucket is copied before it changes.
func (r *Resolver) with(added, removed []string) *Resolver {
	nr := &Resolver{byKey: r.byKey.next(), byBase: r.byBase.next(), aliases: r.aliases}
	for _, f := range removed {
		k := Key(f)
		b := k[strings.LastIndexByte(k, '/')+1:]
		ps := slices.DeleteFunc(slices.Clone(nr.byKey.at(k)), func(p string) bool { return p == f })
		if len(ps) == 0 {
			nr.byKey.del(k)
		} else {
			nr.byKey.set(k, ps)
		}
		fs := slices.DeleteFunc(slices.Clone(nr.byBase.at(b)), func(x fileKey) bool { return x.path == f })
		if len(fs) == 0 {
			nr.byBase.del(b)
		} else {
			nr.byBase.set(b, fs)
		}
	}
	for _, f := range added {
		k := Key(f)
		b := k[strings.LastIndexByte(k, '/')+1:]
		ps := append(slices.Clone(nr.byKey.at(k)), f)
		sort.Strings(ps)
		nr.byKey.set(k, ps)
		nr.byBase.set(b, append(slices.Clone(nr.byBase.at(b)), fileKey{f, k}))
	}
	return nr
}

// nearest picks the candidate sharing the most leading folders with from,
// then the shortest, then the first in byte order. tied lists the others
// that were exactly as near.
func nearest(from string, cands []string) (string, []string) {
	if len(cands) == 1 {
		return cands[0], nil
	}
	dir := strings.Split(path.Dir(from), "/")
	score := func(p string) int {
		d := strings.Split(path.Dir(p), "/")
		n := 0
		for n < len(d) && n < len(dir) && d[n] == dir[n] && d[n] != "." {
			n++
		}
		return n
	}
	type c struct {
		p string
		s int
	}
	cs := make([]c, len(cands))
	for i, p := range cands {
		cs[i] = c{p, score(p)}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].s != cs[j].s {
			return cs[i].s > cs[j].s
		}
		if len(cs[i].p) != len(cs[j].p) {
			return len(cs[i].p) < len(cs[j].p)
		}
		return cs[i].p < cs[j].p
	})
	var tied []string
	for _, x := range cs[1:] {
		if x.s == cs[0].s {
			tied = append(tied, x.p)
		}
	}
	return cs[0].p, tied
}

// ShortestTarget returns the shortest link target (file name, then more and
// more leading folders, then the path under pages/, then the project path)
// that resolves from the file from to the file to without ambiguity. A
// markdown target keeps its ".md" only when withExt is true; other files
// always keep their extension. ok is false when no written form reaches to
// unambiguously.
func (r *Resolver) ShortestTarget(from, to string, withExt bool) (string, bool) {
	name := to
	isMD := strings.EqualFold(path.Ext(to), ".md")
	if isMD && !withExt {
		name = name[:len(name)-3]
	}
	parts := strings.Split(name, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		cand := strings.Join(parts[i:], "/")
		res := r.Resolve(from, cand)
		if res.Path == to && len(res.Ambiguous) == 0 && res.By != ByAlias {
			return cand, true
		}
	}
	return "", false
}

// RelativeTarget returns the path of to relative to from's folder ("x.md",
// "../a/x.md", "./x.md" style without the "./"), for markdown links written
// relative to their file.
func RelativeTarget(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	td := strings.Split(path.Dir(to), "/")
	if path.Dir(from) == "." {
		fd = nil
	}
	if path.Dir(to) == "." {
		td = nil
	}
	n := 0
	for n < len(fd) && n < len(td) && fd[n] == td[n] {
		n++
	}
	var b []string
	for range fd[n:] {
		b = append(b, "..")
	}
	b = append(b, td[n:]...)
	b = append(b, path.Base(to))
	return strings.Join(b, "/")
}

// HeadingKey folds a heading, or the heading part of a link, for
// comparison the way Obsidian matches heading links: the quote
// normalisation (NFKC, case fold, quote and dash variants, emphasis
// markers, whitespace), then the punctuation Obsidian drops from heading
// links (! " # $ % & ( ) * + , . : ; < = > ? @ ^ ` { | } ~ / [ ] \) turned
// into spaces and runs of spaces collapsed. So [[FAQ#How large can a vault
// be]] finds "### How large can a vault be?".
func HeadingKey(s string) string {
	s = quote.Normalize(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		if strings.ContainsRune(headingPunct, r) {
			r = ' '
		}
		if r == ' ' {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

const headingPunct = "!\"#$%&()*+,.:;<=>?@^`{|}~/[]\\"

// githubSlug is the anchor GitHub and many markdown renderers give a
// heading: lower case, punctuation dropped, spaces to "-".
func githubSlug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r == ' ' || r == '-':
			b.WriteByte('-')
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// HasHeadings reports whether pg has the heading chain hs, each heading
// after the one before, compared by [HeadingKey]. With anchors (for
// markdown links, which other renderers also show) a GitHub-style anchor
// like "#my-heading" matches too; wikilinks are Obsidian's alone and must
// name the heading.
func HasHeadings(pg *Page, hs []string, anchors bool) bool {
	idx := -1
	keys := pg.headingIndex()
	for _, want := range hs {
		wk := HeadingKey(want)
		ws := strings.ToLower(strings.TrimSpace(want))
		found := false
		for j := idx + 1; j < len(pg.Headings); j++ {
			hk, ha := keys.keys[j], keys.anchors[j]
			if hk == wk || (anchors && ha == ws) {
				idx, found = j, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// HasBlock reports whether pg defines block id b (case-insensitively, as
// Obsidian compares them).
func HasBlock(pg *Page, b string) bool {
	for _, x := range pg.Blocks {
		if strings.EqualFold(x, b) {
			return true
		}
	}
	return false
}
