package wiki

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxSlugLen is the longest slug, in bytes (slugs are ASCII).
const MaxSlugLen = 80

// MaxPathLen is the longest project-relative path a caller may name, in bytes.
const MaxPathLen = 1024

// reservedNames are the Windows device names. A file named like one of them
// (with any extension) cannot be opened on Windows, so llmwiki refuses them on
// every OS and maps slugs derived from titles away from them.
var reservedNames = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true, "conin$": true, "conout$": true,
	"com0": true, "com1": true, "com2": true, "com3": true, "com4": true, "com5": true,
	"com6": true, "com7": true, "com8": true, "com9": true, "com¹": true, "com²": true, "com³": true,
	"lpt0": true, "lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true,
	"lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true, "lpt¹": true, "lpt²": true, "lpt³": true,
}

// windowsInvalid are the characters Windows refuses in file names (besides
// '/', '\\', ':' and control characters, which [CleanPath] names itself).
const windowsInvalid = `<>"|?*`

// transliterations maps letters that Unicode NFKD does not decompose into an
// ASCII base letter plus marks.
var transliterations = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ø': "o", 'Ø': "o", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d",
	'ł': "l", 'Ł': "l", 'þ': "th", 'Þ': "th", 'ı': "i", 'ħ': "h", 'Ħ': "h",
}

// Slugify derives a page slug from a title or a loose name.
//
// The transliteration: Unicode NFKD, drop combining marks (so "Café" →
// "cafe"), map the few letters NFKD leaves alone (ß→ss, æ→ae, ø→o, ł→l,
// đ→d, þ→th), lowercase, and turn every run of other characters into one
// "-". The result is trimmed of "-", cut to [MaxSlugLen] bytes at a "-" where
// possible (for lookups; a name to write goes through [NewSlug], which
// refuses instead), and a Windows device name ("con", "nul", "com1") gets "-page"
// appended. A title with no ASCII letters or digits left (only CJK, emoji or
// punctuation) gets "page-" plus the first 10 hex digits of a sha256:
// deterministic, so the same title always names the same page. The hash is
// of the title's letters and digits (NFKC, lowercased, every run of other
// characters one "-"), so case, separator and normal-form variants of a CJK
// or Greek title are one page; a title with no letter or digit at all (only
// emoji or punctuation) is hashed as written (NFC, trimmed).
//
// An empty or whitespace-only title is an error (CodeInvalid).
func Slugify(title string) (string, error) {
	s, err := fullSlug(title)
	if err != nil || len(s) <= MaxSlugLen {
		return s, err
	}
	return cutSlug(s), nil
}

// NewSlug is [Slugify] for the name of a page or note about to be written:
// a title whose slug would be longer than [MaxSlugLen] is refused
// (CodeInvalid) with a shorter slug to use, never shortened silently.
// Lookups use Slugify, so a long title still finds the page it named.
func NewSlug(title string) (string, error) {
	s, err := fullSlug(title)
	if err != nil || len(s) <= MaxSlugLen {
		return s, err
	}
	return "", slugTooLong(title, s)
}

func slugTooLong(name, full string) error {
	shown := []rune(name)
	if len(shown) > 60 {
		shown = append(shown[:57], []rune("...")...)
	}
	return store.Errorf(store.CodeInvalid, "the slug of %q would be %d characters; the limit is %d. Pass a shorter slug, like %q, or a shorter title or name", string(shown), len(full), MaxSlugLen, cutSlug(full))
}

// cutSlug cuts a slug longer than [MaxSlugLen] at a "-" where possible.
func cutSlug(s string) string {
	s = s[:MaxSlugLen]
	if i := strings.LastIndexByte(s, '-'); i >= MaxSlugLen/2 {
		s = s[:i]
	}
	s = strings.Trim(s, "-")
	if reservedNames[s] {
		s += "-page"
	}
	return s
}

// fullSlug is [Slugify] without the cut to [MaxSlugLen].
func fullSlug(title string) (string, error) {
	if !utf8.ValidString(title) {
		return "", store.Errorf(store.CodeInvalid, "title is not valid UTF-8")
	}
	if strings.TrimSpace(title) == "" {
		return "", store.Errorf(store.CodeInvalid, "title is empty; give the page a title of at least one letter")
	}
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(title) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if t, ok := transliterations[r]; ok {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteString(t)
			continue
		}
		r = unicode.ToLower(r)
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	s := b.String()
	if s == "" {
		key := foldKey(title)
		if key == "" {
			key = norm.NFC.String(strings.TrimSpace(title))
		}
		sum := sha256.Sum256([]byte(key))
		return "page-" + hex.EncodeToString(sum[:])[:10], nil
	}
	if reservedNames[s] {
		s += "-page"
	}
	return s, nil
}

// foldKey is title's letters, digits and marks (NFKC, lowercased), every run
// of other characters turned into one "-", trimmed of "-".
func foldKey(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKC.String(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
			continue
		}
		dash = true
	}
	return b.String()
}

// NormalizeSlug checks a slug a caller gave and returns its canonical form.
//
// Case, separators ("_", " ", "."), and Unicode normal form are folded the way
// [Slugify] folds them, so "Foo_Bar", "foo bar" and "foo-bar" are one page. A
// trailing ".md" is dropped. Names that try to be paths are refused
// (CodeInvalid): "/", "\", "..", ":", NUL and control characters.
func NormalizeSlug(name string) (string, error) { return normalizeSlug(name, Slugify) }

// NewSlugName is [NormalizeSlug] for a page or note about to be written: a
// slug longer than [MaxSlugLen] is refused, never shortened ([NewSlug]).
func NewSlugName(name string) (string, error) { return normalizeSlug(name, NewSlug) }

func normalizeSlug(name string, slugify func(string) (string, error)) (string, error) {
	if !utf8.ValidString(name) {
		return "", store.Errorf(store.CodeInvalid, "slug is not valid UTF-8")
	}
	if len(name) > 4*MaxSlugLen {
		return "", store.Errorf(store.CodeInvalid, "slug is %d bytes; the limit is %d", len(name), MaxSlugLen)
	}
	if strings.ContainsAny(name, "/\\:") || strings.Contains(name, "..") {
		return "", store.Errorf(store.CodeInvalid, "slug %q must be a plain name like \"my-topic\", not a path: it may not contain '/', '\\', ':' or '..'", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return "", store.Errorf(store.CodeInvalid, "slug contains a control character")
		}
	}
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".md"), ".MD")
	return slugify(name)
}

// MaxPageDepth is the most "/"-separated segments a page name may have
// ("en/plugins/graph-view" has three).
const MaxPageDepth = 8

// NormalizePageName checks a page name that may name a page in a folder
// under pages/ ("en/plugins/graph-view" for pages/en/plugins/graph-view.md)
// and returns its canonical form: every "/"-separated segment normalised by
// [NormalizeSlug] (so "En/Plugins/Graph View" is "en/plugins/graph-view").
// A name without "/" is [NormalizeSlug]'s; a leading "pages/" is dropped
// (the reading tools take "pages/x" as pages/x.md). Refused (CodeInvalid): an
// empty segment (a leading, trailing or doubled "/", so no absolute name),
// a ".", ".." or "~…" segment, a segment without letters or digits, "\",
// ":", control characters, more than [MaxPageDepth] segments, and a
// name whose path would exceed [MaxPathLen]; the result always lies under
// pages/.
func NormalizePageName(name string) (string, error) { return normalizePageName(name, NormalizeSlug) }

// NewPageName is [NormalizePageName] for a page about to be written: a
// segment whose slug would be longer than [MaxSlugLen] is refused, never
// shortened ([NewSlug]).
func NewPageName(name string) (string, error) { return normalizePageName(name, NewSlugName) }

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
// up to [MaxPageDepth] [ValidSlug] segments joined by "/".
func ValidPageName(s string) bool {
	segs := strings.Split(s, "/")
	if len(segs) > MaxPageDepth || len(PagePath(s)) > MaxPathLen {
		return false
	}
	for _, seg := range segs {
		if !ValidSlug(seg) {
			return false
		}
	}
	return true
}

// ValidSlug reports whether s is already a canonical slug: 1 to [MaxSlugLen]
// bytes of [a-z0-9-], not starting or ending with "-", not a device name.
func ValidSlug(s string) bool {
	if s == "" || len(s) > MaxSlugLen || s[0] == '-' || s[len(s)-1] == '-' || reservedNames[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
			return false
		}
	}
	return !strings.Contains(s, "--")
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
		if reservedNames[strings.TrimSpace(base)] {
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
	return len(base) > 4 || !reservedNames[strings.ToLower(base)]
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
		s, err := Slugify(c)
		if err != nil {
			s = "-"
		}
		parts[i] = s
	}
	return strings.Join(parts, "/")
}
