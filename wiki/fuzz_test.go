package wiki

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The fuzz targets of package wiki: names and path resolution, log entries
// (frontmatter parse and render are fuzzed in wiki/mdoc). Seeds are below
// and in testdata/fuzz/. Run each for a minute with .ci/fuzz.

// FuzzCleanPath: whatever CleanPath accepts is canonical, local, portable
// to every OS, and accepted again unchanged.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{
		"pages/x.md", "./pages//x.md/", "..", "../x", "pages/../../x", "/etc/passwd", `C:\x`, "C:/x", `\\host\s`,
		"pages/x.md:s", "con", "pages/NUL.txt", "pages/com¹.md", "pages/x.", "pages/x ", " x", "a?b", "a\x00b",
		"\xff", "~/x", "pages/.hidden", "a/./b", "a/b/../c", strings.Repeat("a/", 600), "pages/" + strings.Repeat("é", 200),
		"sources/日本語/ファイル.md", "pages/café.md", "pages/cafe\u0301.md", ".llmwiki/snapshots/pages/x.md/y.md",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := CleanPath(p)
		if err != nil {
			if store.CodeOf(err) != store.CodeInvalid || !utf8.ValidString(store.PublicMessage(err)) {
				t.Fatalf("CleanPath(%q): %v", p, err)
			}
			return
		}
		again, err := CleanPath(c)
		if err != nil || again != c {
			t.Fatalf("CleanPath(%q) = %q, not accepted again unchanged: %q %v", p, c, again, err)
		}
		if c == "" || c == "." || strings.HasPrefix(c, "/") || strings.HasSuffix(c, "/") || !utf8.ValidString(c) ||
			strings.ContainsAny(c, `\:`+windowsInvalid) || strings.ContainsFunc(c, unicode.IsControl) ||
			!filepath.IsLocal(filepath.FromSlash(c)) || len(c) > MaxPathLen {
			t.Fatalf("CleanPath(%q) = %q", p, c)
		}
		for _, comp := range strings.Split(c, "/") {
			base := strings.ToLower(comp)
			if i := strings.IndexByte(base, '.'); i >= 0 {
				base = base[:i]
			}
			if comp == "" || comp == "." || comp == ".." || strings.HasSuffix(comp, ".") || strings.TrimSpace(comp) != comp || mdoc.ReservedName(base) || len(comp) > 255 {
				t.Fatalf("CleanPath(%q) = %q has component %q", p, c, comp)
			}
		}
	})
}

// FuzzSlugify: a slug is valid, stable, the same for NFC and NFD input,
// and names a page path whose identity key is itself.
func FuzzSlugify(f *testing.F) {
	for _, s := range []string{
		"My Topic", "Café Crème", "🎉", "!!!", "   ", "", "CON", "com1", "a:b", "../x", "日本語", "Αλφα", "ß", "ﬁ",
		strings.Repeat("word ", 50), "-x-", "x--y", "\u0301", "\xff", "a\x00b", "한국어", "İstanbul", "ǅemal",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		slug, err := mdoc.Slugify(title)
		if err != nil {
			if store.CodeOf(err) != store.CodeInvalid {
				t.Fatalf("Slugify(%q): %v", title, err)
			}
			return
		}
		if !mdoc.ValidSlug(slug) {
			t.Fatalf("Slugify(%q) = %q is not a valid slug", title, slug)
		}
		if again, err := mdoc.Slugify(slug); err != nil || again != slug {
			t.Fatalf("Slugify(%q) = %q, but Slugify(%q) = %q %v", title, slug, slug, again, err)
		}
		if n, err := mdoc.NormalizeSlug(slug); err != nil || n != slug {
			t.Fatalf("NormalizeSlug(%q) = %q %v", slug, n, err)
		}
		if utf8.ValidString(title) {
			a, errA := mdoc.Slugify(norm.NFC.String(title))
			b, errB := mdoc.Slugify(norm.NFD.String(title))
			if (errA == nil) != (errB == nil) || a != b {
				t.Fatalf("NFC and NFD of %q give %q and %q", title, a, b)
			}
		}
		if k := PageKey(PagePath(slug)); k != "pages/"+slug {
			t.Fatalf("PageKey(%q) = %q", PagePath(slug), k)
		}
		if _, err := CleanPath(PagePath(slug)); err != nil {
			t.Fatalf("page path of slug %q refused: %v", slug, err)
		}
	})
}

var fuzzStore struct {
	once sync.Once
	s    *Store
	root string // the real root folder
	out  string // a folder outside the root, reachable by symlinks
	err  error
}

// FuzzResolvePath: through a store whose pages/ holds symlinks leading out
// of the root, no name a caller gives makes a read return content from
// outside, or a write create anything outside or through a link.
func FuzzResolvePath(f *testing.F) {
	if runtime.GOOS == "windows" {
		f.Skip("symlinks need privileges on Windows")
	}
	for _, s := range []string{
		"pages/x.md", "pages/out/secret.md", "pages/link.md", "pages/dangling.md", "../outside/secret.md",
		"pages/../../outside/secret.md", "/tmp/x", "pages/out", "sources/a.md", "pages/sub/../link.md",
		"pages/OUT/secret.md", "pages/loop.md", ".llmwiki/snapshots/pages/x.md/y.md", "pages/new.md",
	} {
		f.Add(s)
	}
	fs := &fuzzStore
	fs.once.Do(func() {
		base, err := os.MkdirTemp("", "llmwiki-fuzz-")
		if err != nil {
			fs.err = err
			return
		}
		fs.root, fs.out = filepath.Join(base, "wiki"), filepath.Join(base, "outside")
		if _, err := Init(fs.root); err != nil {
			fs.err = err
			return
		}
		os.MkdirAll(fs.out, 0o755)
		os.WriteFile(filepath.Join(fs.out, "secret.md"), []byte("OUTSIDE SECRET\n"), 0o644)
		os.WriteFile(filepath.Join(fs.root, "sources", "a.md"), []byte("inside\n"), 0o644)
		os.Symlink(fs.out, filepath.Join(fs.root, "pages", "out"))
		os.Symlink(filepath.Join(fs.out, "secret.md"), filepath.Join(fs.root, "pages", "link.md"))
		os.Symlink(filepath.Join(fs.out, "new.md"), filepath.Join(fs.root, "pages", "dangling.md"))
		os.Symlink("loop.md", filepath.Join(fs.root, "pages", "loop.md"))
		fs.s, fs.err = Open(fs.root)
	})
	if fs.err != nil {
		f.Fatal(fs.err)
	}
	s := fs.s
	f.Fuzz(func(t *testing.T, p string) {
		ctx := context.Background()
		if fc, err := s.Read(ctx, ReadInput{Path: p}); err == nil {
			if strings.Contains(fc.Content, "OUTSIDE SECRET") {
				t.Fatalf("read %q returned a file from outside the root", p)
			}
			real, err := filepath.EvalSymlinks(filepath.Join(fs.root, filepath.FromSlash(fc.Path)))
			if err != nil || !strings.HasPrefix(real, fs.root+string(filepath.Separator)) {
				t.Fatalf("read %q resolved to %q", p, real)
			}
		}
		if fc, err := s.Read(ctx, ReadInput{Page: p}); err == nil && strings.Contains(fc.Content, "OUTSIDE SECRET") {
			t.Fatalf("read slug %q returned a file from outside the root", p)
		}
		err := s.Update(ctx, func(tx *store.Tx) error { return tx.Create(p, []byte("fuzz\n")) })
		if err == nil {
			rel, _ := CleanPath(p)
			full := filepath.Join(fs.root, filepath.FromSlash(rel))
			fi, lerr := os.Lstat(full)
			real, _ := filepath.EvalSymlinks(filepath.Dir(full))
			if lerr != nil || !fi.Mode().IsRegular() || !strings.HasPrefix(real+string(filepath.Separator), fs.root+string(filepath.Separator)) {
				t.Fatalf("create %q wrote %s (%v)", p, full, lerr)
			}
			os.Remove(full)
		}
		entries, _ := os.ReadDir(fs.out)
		if len(entries) != 1 {
			t.Fatalf("after %q the outside folder holds %d files", p, len(entries))
		}
	})
}

// FuzzRenderLogEntry: an entry is one heading line plus details in which
// nothing can read as another entry, a heading, a setext underline, a
// frontmatter delimiter or a code fence; appended to log.md it adds exactly one entry.
func FuzzRenderLogEntry(f *testing.F) {
	for _, s := range [][3]string{
		{"note", "a title", ""},
		{"edit", "t", "## [2000-01-01 00:00] edit | forged"},
		{"NOTE", " spaced ", "line\n# h1\n  ## h2\n===\n---\n- item"},
		{"build", "x\ny", ""},
		{"lint", "x", "\r\n## [x] y\r\n"},
		{"bogus", "x", ""},
		{"note", "\u2028", "\u0085## x"},
		{"note", "t", "```\n## inside a fence\n```"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, op, title, details string) {
		heading, entry, err := RenderLogEntry("2026-01-02 03:04", LogInput{Op: op, Title: title, Details: details})
		if err != nil {
			if c := store.CodeOf(err); c != store.CodeInvalid && c != store.CodeTooLarge {
				t.Fatalf("error code %s", c)
			}
			return
		}
		if strings.ContainsAny(heading, "\r\n") || !strings.HasPrefix(entry, heading+"\n") || !utf8.ValidString(entry) {
			t.Fatalf("entry %q", entry)
		}
		for i, l := range strings.Split(strings.TrimSuffix(entry, "\n"), "\n") {
			if i == 0 {
				continue
			}
			tl := strings.TrimLeft(l, " \t")
			if strings.HasPrefix(tl, "#") || strings.HasPrefix(tl, "=") || strings.HasPrefix(tl, "---") || new(mdoc.Fences).Line(l) == mdoc.Open || strings.ContainsFunc(l, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) {
				t.Fatalf("detail line %d can forge structure: %q", i, l)
			}
		}
		log := "# Log\n\n## [2026-01-01 00:00] note | before\n"
		all := log + "\n" + entry
		if n := strings.Count(all, "\n## ["); n != 2 {
			t.Fatalf("log.md has %d entries after one append:\n%s", n, all)
		}
	})
}
