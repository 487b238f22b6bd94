package wiki

import (
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxPathLen is the longest project-relative path a caller may name, in bytes.
const MaxPathLen = 1024

// windowsInvalid are the characters Windows refuses in file names (besides
// '/', '\\', ':' and control characters, which [CleanPath] names itself).
const windowsInvalid = `<>"|?*`

// MaxPageDepth is the most "/"-separated segments a page name may have
// ("en/plugins/graph-view" has three).
const MaxPageDepth = 8

// NormalizePageName checks a page name that may name a page in a folder
// under pages/ ("en/plugins/graph-view" for pages/en/plugins/graph-view.md)
// and returns its canonical form: every "/"-separated segment normalised by
// [mdoc.NormalizeSlug] (so "En/Plugins/Graph View" is "en/plugins/graph-view").
// A name without "/" is [mdoc.NormalizeSlug]'s; a leading "pages/" is dropped
// (the reading tools take "pages/x" as pages/x.md). Refused (CodeInvalid): an
// empty segment (a leading, trailing or doubled "/", so no absolute name),
// a ".", ".." or "~…" segment, a segment without letters or digits, "\",
// ":", control characters, more than [MaxPageDepth] segments, and a
// name whose path would exceed [MaxPathLen]; the result always lies under
// pages/.
func NormalizePageName(name string) (string, error) {
	return normalizePageName(name, mdoc.NormalizeSlug)
}

// NewPageName is [NormalizePageName] for a page about to be written: a
// segment whose slug would be longer than [mdoc.MaxSlugLen] is refused, never
// shortened ([mdoc.NewSlug]).
func NewPageName(name string) (string, error) { return normalizePageName(name, mdoc.NewSlugName) }

func normalizePageName(name string, normSlug func(string) (string, error)) (string, error) {
	if !strings.Contains(name, "/") {
		return normSlug(name)
	}
	if !utf8.ValidString(name) {
		return "", store.Errorf(store.CodeInvalid, "page name is not valid UTF-8")
	}
	if len(name) > MaxPathLen {
		return "", store.Errorf(store.CodeInvalid, "page name is %d bytes; the limit is %d", len(name), MaxPathLen)
	}
	// "pages/x" names pages/x.md, as every reading tool takes it.
	if rest, ok := strings.CutPrefix(name, "pages/"); ok {
		name = rest
		if !strings.Contains(name, "/") {
			return normSlug(name)
		}
	}
	segs := strings.Split(name, "/")
	if len(segs) > MaxPageDepth {
		return "", store.Errorf(store.CodeInvalid, "page name %q has %d folder levels; the limit is %d", name, len(segs), MaxPageDepth)
	}
	for i, seg := range segs {
		if strings.TrimSpace(seg) == "" {
			return "", store.Errorf(store.CodeInvalid, "page name %q has an empty segment: give folder/name like \"en/my-topic\", without a leading, trailing or doubled '/'", name)
		}
		if seg == "." || seg == ".." || strings.HasPrefix(seg, "~") {
			return "", store.Errorf(store.CodeInvalid, "slug %q has a %q segment: give a name like \"my-topic\" or folder/name like \"en/my-topic\" under pages/, not a relative or home path", name, seg)
		}
		// A segment with no letter or digit would become a hash name that
		// no reader could guess; a folder is named in words.
		if !strings.ContainsFunc(seg, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			return "", store.Errorf(store.CodeInvalid, "page name %q has a segment without letters or digits (%q); name folders and pages in words", name, seg)
		}
		if i < len(segs)-1 && strings.HasSuffix(strings.ToLower(seg), ".md") {
			return "", store.Errorf(store.CodeInvalid, "page name %q has a folder named like a page (%q)", name, seg)
		}
		n, err := normSlug(seg)
		if err != nil {
			return "", err
		}
		segs[i] = n
	}
	out := strings.Join(segs, "/")
	if rel, err := CleanPath(PagePath(out)); err != nil || rel != PagePath(out) || LayerOf(rel) != LayerPages {
		return "", store.Errorf(store.CodeInvalid, "page name %q does not name a page under pages/", name)
	}
	return out, nil
}

// ValidPageName reports whether s is already a canonical page name: one or
// up to [MaxPageDepth] [mdoc.ValidSlug] segments joined by "/".
func ValidPageName(s string) bool {
	segs := strings.Split(s, "/")
	if len(segs) > MaxPageDepth || len(PagePath(s)) > MaxPathLen {
		return false
	}
	for _, seg := range segs {
		if !mdoc.ValidSlug(seg) {
			return false
		}
	}
	return true
}

// CleanPath validates a project-relative path a caller named and returns it in
// canonical form (forward slashes, no "./", no trailing slash).
//
// Refused with CodeInvalid: empty names, absolute paths ("/x", "C:\x",
// "\\host"), backslashes, "..", ":" anywhere (drive letters, NTFS streams),
// NUL and control characters, the characters Windows refuses (< > " | ? *),
// components with leading or trailing spaces or trailing dots, Windows
// device names as a component ("con", "nul.txt", "COM1.md", "conin$"),
// invalid UTF-8, components over 255 bytes and paths over [MaxPathLen]
// bytes. The rules are the same on every OS. The
// result is also checked with [filepath.IsLocal]; resolution still goes
// through the store's [os.Root], which refuses symlinks that lead out.
func CleanPath(p string) (string, error) {
	if p == "" {
		return "", store.Errorf(store.CodeInvalid, "path is empty")
	}
	if !utf8.ValidString(p) {
		return "", store.Errorf(store.CodeInvalid, "path is not valid UTF-8")
	}
	if len(p) > MaxPathLen {
		return "", store.Errorf(store.CodeInvalid, "path is %d bytes; the limit is %d", len(p), MaxPathLen)
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return "", store.Errorf(store.CodeInvalid, "path %q is absolute; name files relative to the wiki root, like \"pages/topic.md\"", p)
	}
	if strings.Contains(p, "\\") {
		return "", store.Errorf(store.CodeInvalid, "path %q contains a backslash; use '/' between folders", p)
	}
	if strings.Contains(p, ":") {
		return "", store.Errorf(store.CodeInvalid, "path %q contains ':'; drive letters and URLs are not wiki paths", p)
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return "", store.Errorf(store.CodeInvalid, "path contains a control character")
		}
	}
	if i := strings.IndexAny(p, windowsInvalid); i >= 0 {
		return "", store.Errorf(store.CodeInvalid, "path %q contains %q, which file names may not contain on every system (< > \" | ? *)", p, p[i:i+1])
	}
	p = strings.TrimSuffix(p, "/")
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "..":
			return "", store.Errorf(store.CodeInvalid, "path %q leaves the wiki root ('..' is not allowed)", p)
		case c == "" || c == ".":
			continue
		case strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") || strings.HasPrefix(c, " "):
			return "", store.Errorf(store.CodeInvalid, "path component %q starts or ends with a space or ends with a dot", c)
		case len(c) > 255:
			return "", store.Errorf(store.CodeInvalid, "path component is %d bytes; the limit is 255", len(c))
		}
		base := strings.ToLower(c)
		if i := strings.IndexByte(base, '.'); i >= 0 {
			base = base[:i]
		}
		if mdoc.ReservedName(strings.TrimSpace(base)) {
			return "", store.Errorf(store.CodeInvalid, "path component %q is a reserved device name on Windows", c)
		}
	}
	clean := path.Clean(p)
	if clean == "." || !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", store.Errorf(store.CodeInvalid, "path %q does not name a file inside the wiki", p)
	}
	return clean, nil
}

// addressable reports whether a path found on disk can be named through
// the tools: [CleanPath] accepts it as it is. Files that cannot (a name
// with ':' or '?', invalid UTF-8, a device name) are left out of listings
// and reported by validate_structure, never shown with a mangled name.
func addressable(p string) bool {
	c, err := CleanPath(p)
	return err == nil && c == p
}

// Reasons a file where pages or sources go is left out of the search index,
// as its state counts them (search.Status.Skipped).
const (
	SkipBinary         = "binary"          // not text (see [mdoc.Decode]): described by read_page, never indexed
	SkipUnservableName = "unservable name" // see [UnservableName]
	SkipUnreadable     = "unreadable"      // reading it failed (permissions); retried at every walk
)

// UnservableName says why llmwiki will not serve the file at rel, a path
// found on disk under pages/ or sources/, as a page or a source (the
// catalogue and the search index leave it out; validate_structure names
// it), or "" when it does: a name the tools cannot address as it is
// ([CleanPath] refuses or changes it), or a markdown file whose name starts
// with "." ("..md", ".draft.md"), which is hidden. Other hidden files
// (.DS_Store, .gitkeep), anything in a hidden folder and writer temp files
// are not content: "" for them too, and they are left out silently.
func UnservableName(rel string) string {
	base := path.Base(rel)
	if store.IsTempName(rel) || !strings.HasPrefix(base, ".") && addressable(rel) {
		return ""
	}
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return ""
		}
	}
	if !addressable(rel) {
		_, err := CleanPath(rel)
		if err == nil {
			return "its name is not written the way the tools name files"
		}
		return "its name cannot be used through the tools: " + strings.ToValidUTF8(store.PublicMessage(err), "\uFFFD")
	}
	if strings.EqualFold(path.Ext(base), ".md") {
		return "its name starts with '.', which marks a hidden file"
	}
	return ""
}

// PlainName reports, by a quick look, a file name that [CleanPath] takes as
// it is: 1 to 255 bytes of ASCII letters, digits and "-_.+@", starting with
// a letter or digit, not ending with ".", and not a Windows device name.
// false says only that the quick look cannot tell: use [UnservableName].
func PlainName(name string) bool {
	if name == "" || len(name) > 255 || name[len(name)-1] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '-' && c != '_' && c != '.' && c != '+' && c != '@') {
			return false
		}
	}
	base := name
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	return len(base) > 4 || !mdoc.ReservedName(strings.ToLower(base))
}

// Layer is the part of a project a path belongs to; the writer's rules
// (nothing under sources/ is rewritten, see [checkLayer]) depend on it.
type Layer string

// The layers of a project (docs/design.md, "A wiki on disk").
const (
	LayerSchema     Layer = "schema"     // schema.md: human-owned, never written by a tool
	LayerSources    Layer = "sources"    // sources/: files may be added, never rewritten or deleted
	LayerResearch   Layer = "research"   // sources/research/: created or appended by research_save only
	LayerPages      Layer = "pages"      // pages/: agent-written pages
	LayerContext    Layer = "context"    // context.md: replaced only by atomic_write_context
	LayerIndex      Layer = "index"      // index.md: generated by rebuild_index
	LayerGuidelines Layer = "guidelines" // guidelines.md: "## Eval Insights" regenerated, "## My Rules" never touched
	LayerLog        Layer = "log"        // log.md: append-only, one entry per operation
	LayerState      Layer = "state"      // .llmwiki/: the server's own state
	LayerOther      Layer = "other"      // anything else: not part of the wiki layout
)

// LayerOf classifies a clean project-relative path (see [CleanPath]).
func LayerOf(p string) Layer {
	switch {
	case p == "schema.md":
		return LayerSchema
	case p == "context.md":
		return LayerContext
	case p == "index.md":
		return LayerIndex
	case p == "guidelines.md":
		return LayerGuidelines
	case p == "log.md":
		return LayerLog
	case strings.HasPrefix(p, "sources/research/"):
		return LayerResearch
	case p == "sources" || strings.HasPrefix(p, "sources/"):
		return LayerSources
	case p == "pages" || strings.HasPrefix(p, "pages/"):
		return LayerPages
	case p == ".llmwiki" || strings.HasPrefix(p, ".llmwiki/"):
		return LayerState
	}
	return LayerOther
}

// OtherLayerFolder returns the layer folder ("sources" or ".llmwiki") a
// name a caller gave for a page begins with, or "". Such a name resolves in
// that layer only, never to a page below pages/: "sources/x" is never the
// page pages/sources/x.md. A page in a folder literally called sources is
// named with its layer, "pages/sources/x". Case and a leading "./" do not
// matter ("Sources/x" is the same folder on macOS and Windows).
func OtherLayerFolder(name string) string {
	n := strings.TrimPrefix(strings.TrimSpace(name), "./")
	first, _, _ := strings.Cut(n, "/")
	for _, l := range []string{"sources", ".llmwiki"} {
		if strings.EqualFold(first, l) && len(n) > len(first) {
			return l
		}
	}
	return ""
}

// PagePath returns the project-relative path of the page with the given
// canonical slug: "pages/<slug>.md".
func PagePath(slug string) string { return "pages/" + slug + ".md" }

// PageKey returns the identity key of a page path: two files whose keys are
// equal are the same page. Each folder and the base name (without ".md") are
// slugified, so case, separators and Unicode normal form do not matter:
// "pages/My Topic.md", "pages/my_topic.md" and "pages/my-topic.md" share the
// key "pages/my-topic".
func PageKey(rel string) string {
	rel = strings.TrimSuffix(rel, path.Ext(rel))
	parts := strings.Split(rel, "/")
	for i, c := range parts {
		s, err := mdoc.Slugify(c)
		if err != nil {
			s = "-"
		}
		parts[i] = s
	}
	return strings.Join(parts, "/")
}
