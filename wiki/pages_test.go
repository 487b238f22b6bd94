package wiki

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func TestSlugify(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Electron IPC patterns", "electron-ipc-patterns"},
		{"Café au lait", "cafe-au-lait"},
		{"Straße & Größe", "strasse-grosse"},
		{"  --Hello__World--  ", "hello-world"},
		{"C++ in 2026: a review", "c-in-2026-a-review"},
		{"con", "con-page"},
		{"NUL", "nul-page"},
		{"Ærø Łódź", "aero-lodz"},
	}
	for _, c := range cases {
		got, err := mdoc.Slugify(c.in)
		if err != nil || got != c.want {
			t.Errorf("Slugify(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// No ASCII left: a deterministic hash slug.
	a, _ := mdoc.Slugify("グラフビュー")
	b, _ := mdoc.Slugify("グラフビュー")
	if a != b || !strings.HasPrefix(a, "page-") || !mdoc.ValidSlug(a) {
		t.Errorf("CJK title slug = %q, %q", a, b)
	}
	e, _ := mdoc.Slugify("🎉🎉")
	if e == a || !mdoc.ValidSlug(e) {
		t.Errorf("emoji slug = %q", e)
	}
	for _, bad := range []string{"", "   ", "\t\n"} {
		if _, err := mdoc.Slugify(bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("Slugify(%q) err = %v", bad, err)
		}
	}
	long := strings.Repeat("word ", 40)
	if s, _ := mdoc.Slugify(long); len(s) > mdoc.MaxSlugLen || strings.HasSuffix(s, "-") {
		t.Errorf("long slug = %q", s)
	}
}

func TestNormalizeSlug(t *testing.T) {
	for _, in := range []string{"My Topic", "my_topic", "MY-TOPIC", "my-topic.md", "My\u00a0Topic"} {
		if got, err := mdoc.NormalizeSlug(in); err != nil || got != "my-topic" {
			t.Errorf("NormalizeSlug(%q) = %q, %v", in, got, err)
		}
	}
	// NFC and NFD spellings of one name are one page.
	nfc, _ := mdoc.NormalizeSlug("Caf\u00e9")
	nfd, _ := mdoc.NormalizeSlug("Cafe\u0301")
	if nfc != nfd {
		t.Errorf("NFC %q != NFD %q", nfc, nfd)
	}
	for _, bad := range []string{"../x", "a/b", `a\b`, "c:x", "..", "a\x00b"} {
		if _, err := mdoc.NormalizeSlug(bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("NormalizeSlug(%q) err = %v, want invalid", bad, err)
		}
	}
}

func TestNormalizePageName(t *testing.T) {
	for in, want := range map[string]string{
		"My Topic": "my-topic", "en/plugins/graph-view": "en/plugins/graph-view",
		"En/Plugins/Graph View": "en/plugins/graph-view", "guides/Set_up.md": "guides/set-up",
		// "pages/x" is pages/x.md, as read_page takes it, not pages/pages/x.md.
		"pages/x": "x", "pages/en/Canvas": "en/canvas",
	} {
		if got, err := NormalizePageName(in); err != nil || got != want || !ValidPageName(got) {
			t.Errorf("NormalizePageName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"a/../b", "/x", "a//b", "a/", "../x", "a/..", `a\b`, "a/c:d", "a/b.md/c", "a/ /b", "a/b/c/d/e/f/g/h/i", "a/\x00",
		// Segments a reader could not name the same way (found by a hostile
		// run: write_page made a/page-<hash>/b of "a/./b", read_page read a/b).
		"a/./b", "./x", "~/x", "a/~/b", "a/!!/b", "a/\U0001F600/b"} {
		if got, err := NormalizePageName(bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("NormalizePageName(%q) = %q, %v; want invalid", bad, got, err)
		}
	}
	for _, bad := range []string{"", "a//b", "/a", "a/", "A/b", "a/con", "a/b_c", "a/../b"} {
		if ValidPageName(bad) {
			t.Errorf("ValidPageName(%q) = true", bad)
		}
	}
}

// WritePage takes folder/name slugs: a new page in a folder goes into the
// folder as it is spelled on disk, and an existing nested page is updated in
// place whatever the case and separators of its name.
func TestWritePageNested(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "pages", "en", "Plugins"), 0o755)
	os.WriteFile(filepath.Join(dir, "pages", "en", "Plugins", "Graph view.md"), []byte("---\ntitle: Graph view\n---\nold\n"), 0o644)
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	w, err := st.WritePage(ctx, PageInput{Title: "Canvas", Slug: "en/plugins/canvas", Content: "new\n"})
	if err != nil || w.Path != "pages/en/Plugins/canvas.md" || w.Slug != "en/Plugins/canvas" || !w.Created {
		t.Fatalf("%+v %v", w, err)
	}
	w, err = st.WritePage(ctx, PageInput{Title: "Deep", Slug: "en/plugins/deep/page", Content: "x\n"})
	if err != nil || w.Path != "pages/en/Plugins/deep/page.md" {
		t.Fatalf("%+v %v", w, err)
	}
	w, err = st.WritePage(ctx, PageInput{Title: "Other", Slug: "de/other", Content: "x\n"})
	if err != nil || w.Path != "pages/de/other.md" {
		t.Fatalf("%+v %v", w, err)
	}
	old, _ := os.ReadFile(filepath.Join(dir, "pages", "en", "Plugins", "Graph view.md"))
	w, err = st.WritePage(ctx, PageInput{Title: "Graph view", Slug: "en/plugins/graph-view", Content: "new body\n", BaseSHA256: store.SHA256Hex(old)})
	if err != nil || w.Path != "pages/en/Plugins/Graph view.md" || w.Created {
		t.Fatalf("%+v %v", w, err)
	}
	for _, bad := range []string{"a/../../x", "/etc/x", "a//b", "sources/../../x"} {
		if _, err := st.WritePage(ctx, PageInput{Title: "X", Slug: bad, Content: "x\n"}); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("slug %q: %v", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "en", "plugins")); err == nil {
		if a, b := mustStat(t, filepath.Join(dir, "pages", "en", "plugins")), mustStat(t, filepath.Join(dir, "pages", "en", "Plugins")); !os.SameFile(a, b) {
			t.Error("a second folder en/plugins was made")
		}
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestCleanPath(t *testing.T) {
	good := map[string]string{
		"pages/x.md":        "pages/x.md",
		"pages//x.md":       "pages/x.md",
		"./pages/x.md":      "pages/x.md",
		"sources/a b/c.pdf": "sources/a b/c.pdf",
	}
	for in, want := range good {
		if got, err := CleanPath(in); err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "/etc/passwd", "../x", "pages/../../x", `pages\x.md`, "C:/x", "pages/con.md", "pages/aux", "pages/x.md.", "pages/x ", "a\x01b", "~/x", "pages/a:b.md", "\xff"} {
		if _, err := CleanPath(bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("CleanPath(%q) err = %v, want invalid", bad, err)
		}
	}
}

// Titles and values that break naive frontmatter templates round-trip
// exactly through write_page and read_page.
func TestFrontmatterRoundTrip(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	titles := []string{
		"Key: value", `He said "hi"`, "It's `code`", "*bold* claim", "true", "null", "123",
		"line one\nline two", "- dash start", "# hash start", "[brackets]", "{braces}", "@at", "  padded  ", "trailing:",
		"colon: and # hash", "ünïcödé ✓", "'single'", "multi\n\nparagraph\n",
	}
	for i, title := range titles {
		w, err := s.WritePage(ctx, PageInput{Title: title, Slug: "t" + fmtInt(i), Summary: "s: " + string([]rune(title)[0:1]), Tags: []string{"true", "a:b"}, Content: "body\n"})
		if err != nil {
			t.Fatalf("%q: %v", title, err)
		}
		fc, err := s.Read(ctx, ReadInput{Path: w.Path})
		if err != nil {
			t.Fatal(err)
		}
		if got := fc.Frontmatter["title"]; got != title {
			t.Errorf("title %q came back as %q", title, got)
		}
		if tags := mdoc.MetaList(fc.Frontmatter, "tags"); len(tags) != 2 || tags[0] != "true" || tags[1] != "a:b" {
			t.Errorf("tags came back as %v", tags)
		}
		if fc.Content != "body\n" {
			t.Errorf("body came back as %q", fc.Content)
		}
	}
}

// Unknown frontmatter keys are kept byte for byte on update, comments and
// quoting included; created is kept and updated moves.
func TestUnknownKeysKept(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	s, dir := newStore(t, WithClock(func() time.Time { return now }))
	ctx := context.Background()
	raw := "---\ntitle: Old\npermalink: 'kept/as-is'   # a comment\ncssclasses:\n  - wide\n  -   narrow\ncreated: 2020-05-01T10:00:00Z\n---\n# Old\n"
	os.WriteFile(filepath.Join(dir, "pages", "old.md"), []byte(raw), 0o644)
	fc, err := s.Read(ctx, ReadInput{Page: "old"})
	if err != nil {
		t.Fatal(err)
	}
	now = t0.Add(time.Hour)
	if _, err := s.WritePage(ctx, PageInput{Title: "New title", Slug: "old", Content: "# New\n", BaseSHA256: fc.SHA256}); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, dir, "pages/old.md")
	for _, want := range []string{"permalink: 'kept/as-is'   # a comment\n", "cssclasses:\n  - wide\n  -   narrow\n", "title: New title\n", "created: \"2020-05-01T10:00:00Z\"\n", "updated: \"2026-01-01T01:00:00Z\"\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "---\n") != 2 {
		t.Errorf("more than one frontmatter block:\n%s", got)
	}
}

// One page under many names: case, separators and Unicode form.
func TestPageIdentity(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(dir, "pages", "My Topic.md"), []byte("# My Topic\n"), 0o644)
	for _, name := range []string{"my topic", "MY_TOPIC", "my-topic"} {
		_, err := s.WritePage(ctx, PageInput{Title: "x", Slug: name, Content: "y"})
		wantCode(t, err, store.CodeConflict)
		if err != nil && !strings.Contains(err.Error(), "pages/My Topic.md") {
			t.Errorf("conflict does not name the existing file: %v", err)
		}
		p, err := s.ResolvePage(name)
		if err != nil || p != "pages/My Topic.md" {
			t.Errorf("ResolvePage(%q) = %q, %v", name, p, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "pages"))
	if len(entries) != 1 {
		t.Errorf("pages/ holds %d files, want 1", len(entries))
	}
	_, err := s.ResolvePage("no such page")
	wantCode(t, err, store.CodeNotFound)
	if !strings.Contains(err.Error(), "search_wiki") {
		t.Errorf("not-found error gives no next step: %v", err)
	}
}

// TestCatalogueKeys: the catalogue's index by page key (and its count
// of pages by folder), kept in step by
// writes, deletes, outside edits and scans, equals one made from the
// catalogue, and a case twin created outside the server is still found by
// key.
func TestCatalogueKeys(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		s.catMu.Lock()
		defer s.catMu.Unlock()
		want, dirs := keysOf(s.cat)
		if fmt.Sprint(dirs) != fmt.Sprint(s.catDirs) {
			t.Fatalf("%s: folders %v, rebuilt %v", when, s.catDirs, dirs)
		}
		if len(want) != len(s.catKeys) {
			t.Fatalf("%s: %d keys, rebuilt %d", when, len(s.catKeys), len(want))
		}
		for k, ps := range want {
			got := slices.Sorted(slices.Values(s.catKeys[k]))
			slices.Sort(ps)
			if !slices.Equal(got, ps) {
				t.Fatalf("%s: key %q: %v, rebuilt %v", when, k, got, ps)
			}
		}
	}
	if _, err := s.Pages(); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"a", "sub/b", "sub/c"} {
		if _, err := s.WritePage(ctx, PageInput{Title: slug, Slug: slug, Content: "x\n"}); err != nil {
			t.Fatal(err)
		}
		check("after writing " + slug)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "pages", "sub", "b.md"))
	if err := s.Update(ctx, func(tx *store.Tx) error { return tx.Delete("pages/sub/b.md", store.SHA256Hex(data)) }); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
	os.WriteFile(filepath.Join(dir, "pages", "Sub Two.md"), []byte("# Two\n"), 0o644)
	os.Remove(filepath.Join(dir, "pages", "a.md"))
	if _, err := s.PagesFresh(ctx); err != nil {
		t.Fatal(err)
	}
	check("after a scan")
	if p, err := s.ResolvePage("sub-two"); err != nil || p != "pages/Sub Two.md" {
		t.Errorf("ResolvePage(sub-two) = %q, %v", p, err)
	}
	_, err := s.WritePage(ctx, PageInput{Title: "x", Slug: "sub_two", Content: "y"})
	wantCode(t, err, store.CodeConflict)
}
