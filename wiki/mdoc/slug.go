package mdoc

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// MaxSlugLen is the longest slug, in bytes (slugs are ASCII).
const MaxSlugLen = 80

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

// ReservedName reports whether name (lowercase, without extension) is a
// Windows device name: a file named like one cannot be opened on Windows.
func ReservedName(name string) bool { return reservedNames[name] }
