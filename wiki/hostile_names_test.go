package wiki

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"golang.org/x/text/unicode/norm"
)

// TestHostileCleanPath: names that try to leave the root or that some
// system cannot store are refused the same way on every OS.
func TestHostileCleanPath(t *testing.T) {
	refused := []struct{ in, why string }{
		{"", "empty"},
		{"..", "leaves the wiki root"},
		{"../x.md", "leaves the wiki root"},
		{"pages/../../x.md", "leaves the wiki root"},
		{"pages/..", "leaves the wiki root"},
		{"../wiki-evil/keep.md", "leaves the wiki root"},
		{"/etc/passwd", "absolute"},
		{"//host/share/x", "absolute"},
		{"~/x.md", "absolute"},
		{"~root/x.md", "absolute"},
		{`C:\Windows\x`, "backslash"},
		{"C:/Windows/x", "':'"},
		{"c:x.md", "':'"},
		{`\\host\share\x`, "backslash"},
		{`pages\x.md`, "backslash"},
		{`pages\..\..\x.md`, "backslash"},
		{"pages/x.md:stream", "':'"},
		{"pages/x.md::$DATA", "':'"},
		{"http://example.com/x", "':'"},
		{"con", "reserved device name"},
		{"CON", "reserved device name"},
		{"pages/nul.md", "reserved device name"},
		{"pages/Aux.txt.md", "reserved device name"},
		{"pages/com1.md", "reserved device name"},
		{"pages/COM9", "reserved device name"},
		{"pages/lpt1.md", "reserved device name"},
		{"pages/com0.md", "reserved device name"},
		{"pages/com¹.md", "reserved device name"},
		{"pages/conin$.md", "reserved device name"},
		{"prn/x.md", "reserved device name"},
		{"pages/x.", "ends with a dot"},
		{"pages/x...", "ends with a dot"},
		{"pages./x.md", "ends with a dot"},
		{"pages/x ", "space"},
		{"pages/ x.md", "space"},
		{"pages /x.md", "space"},
		{"pages/a?b.md", "may not contain"},
		{"pages/a*b.md", "may not contain"},
		{"pages/a<b>.md", "may not contain"},
		{"pages/a|b.md", "may not contain"},
		{`pages/a"b.md`, "may not contain"},
		{"pages/a\x00b.md", "control character"},
		{"pages/a\nb.md", "control character"},
		{"pages/a\rb.md", "control character"},
		{"pages/a\tb.md", "control character"},
		{"pages/\x1b[31m.md", "control character"},
		{"pages/\u0085.md", "control character"},
		{"pages/\xff\xfe.md", "UTF-8"},
		{"pages/\xc3.md", "UTF-8"},
		{"pages/" + strings.Repeat("a", 256) + ".md", "limit is 255"},
		{strings.Repeat("a/", 520), "limit is 1024"},
		{".", "does not name a file"},
		{"./", "does not name a file"},
	}
	for _, c := range refused {
		got, err := CleanPath(c.in)
		if err == nil {
			t.Errorf("CleanPath(%q) = %q, want refusal (%s)", c.in, got, c.why)
			continue
		}
		if store.CodeOf(err) != store.CodeInvalid || !strings.Contains(store.PublicMessage(err), c.why) {
			t.Errorf("CleanPath(%q): %q, want it to say %q", c.in, store.PublicMessage(err), c.why)
		}
	}
	accepted := map[string]string{
		"pages/x.md":        "pages/x.md",
		"./pages/x.md":      "pages/x.md",
		"pages/x.md/":       "pages/x.md",
		"pages//x.md":       "pages/x.md",
		"pages/./x.md":      "pages/x.md",
		"pages/.hidden.md":  "pages/.hidden.md",
		"pages/con-page.md": "pages/con-page.md",
		"pages/console.md":  "pages/console.md",
		"pages/café.md":     "pages/café.md",
		"pages/日本語.md":      "pages/日本語.md",
		"pages/a b.md":      "pages/a b.md",
		"pages/a..b.md":     "pages/a..b.md",
		"sources/x.tar.gz":  "sources/x.tar.gz",
	}
	for in, want := range accepted {
		if got, err := CleanPath(in); err != nil || got != want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	wikitest.Cases(t, "containment", len(refused)+len(accepted))
}

// TestHostileContainment: through the store, no read or write reaches a
// file outside the root: not by "..", not by a sibling whose name starts
// with the root's, not through a symlinked folder or file, not by creating
// through a dangling symlink. A root reached through a symlink works.
func TestHostileContainment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "wiki")
	if _, err := Init(dir); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(parent, "outside")
	sibling := filepath.Join(parent, "wiki-evil")
	for _, d := range []string{outside, sibling} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "secret.md"), []byte("---\ntitle: secret\n---\nSECRET\n"), 0o644)
	}
	mustWrite(t, dir, "sources/a.md", "inside source\n")
	links := map[string]string{
		"pages/out":          outside,                                      // folder pointing out
		"pages/secret.md":    filepath.Join(outside, "secret.md"),          // file pointing out
		"pages/dangling.md":  filepath.Join(outside, "created-through.md"), // dangling, pointing out
		"pages/relative.md":  "../../outside/secret.md",                    // relative, pointing out
		"pages/inside.md":    "../sources/a.md",                            // pointing inside, to another layer
		"sources/evil":       sibling,                                      // a source folder pointing to the sibling
		"pages/loop.md":      "loop.md",                                    // a loop
		"pages/dangling-in":  "../nowhere",                                 // dangling, inside
		"sources/up.md":      "..",                                         // the root itself
		"pages/abs-inside":   filepath.Join(dir, "sources"),                // absolute, but inside
		"sources/research/x": "../../../outside",                           // deep folder pointing out
	}
	for rel, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	s := openStore(t, dir)
	ctx := context.Background()
	outsideBefore := wikitest.TreeHashes(t, parent, func(rel string) bool { return rel == "wiki" })
	n := 0

	reads := []string{
		"../wiki-evil/secret.md", "pages/out/secret.md", "pages/secret.md", "pages/relative.md",
		"pages/dangling.md", "sources/evil/secret.md", "pages/loop.md", "sources/research/x/secret.md",
		"sources/up.md", "pages/../../outside/secret.md", "/" + filepath.ToSlash(outside) + "/secret.md",
	}
	for _, p := range reads {
		n++
		fc, err := s.Read(ctx, ReadInput{Path: p})
		if err == nil {
			t.Errorf("read %s = %q", p, fc.Content)
			continue
		}
		if (!strings.Contains(p, parent) && strings.Contains(store.PublicMessage(err), parent)) || strings.Contains(store.PublicMessage(err), "SECRET") {
			t.Errorf("read %s: message shows a host path or content: %q", p, store.PublicMessage(err))
		}
	}
	for _, slug := range []string{"out", "secret", "pages/secret"} {
		n++
		if _, err := s.Read(ctx, ReadInput{Page: slug}); err == nil {
			t.Errorf("read slug %q through a link that leads out", slug)
		}
	}
	// A link that stays inside may be read (it is the same bytes) but is
	// never written through.
	if fc, err := s.Read(ctx, ReadInput{Path: "pages/inside.md"}); err != nil || fc.Content != "inside source\n" {
		t.Errorf("read inside link: %+v %v", fc, err)
	}

	writes := []struct {
		name string
		do   func() error
	}{
		{"write_page through a dangling link", func() error {
			_, err := s.WritePage(ctx, PageInput{Title: "Dangling", Content: "x\n"})
			return err
		}},
		{"write_page onto a link pointing out", func() error {
			_, err := s.WritePage(ctx, PageInput{Title: "Secret", Content: "x\n", BaseSHA256: store.SHA256Hex([]byte("---\ntitle: secret\n---\nSECRET\n"))})
			return err
		}},
		{"write_page onto a link pointing inside", func() error {
			_, err := s.WritePage(ctx, PageInput{Title: "Inside", Content: "x\n", BaseSHA256: store.SHA256Hex([]byte("inside source\n"))})
			return err
		}},
		{"write_page onto a relative link", func() error {
			_, err := s.WritePage(ctx, PageInput{Title: "Relative", Content: "x\n"})
			return err
		}},
		{"save_source into a folder pointing out", func() error {
			_, err := s.SaveSource(ctx, SourceInput{Path: "sources/evil/new.md", Content: "x"})
			return err
		}},
		{"save_source into a deep folder pointing out", func() error {
			_, err := s.SaveSource(ctx, SourceInput{Path: "sources/research/x/new.md", Content: "x"})
			return err
		}},
		{"save_source onto the root link", func() error {
			_, err := s.SaveSource(ctx, SourceInput{Path: "sources/up.md/schema.md", Content: "x"})
			return err
		}},
		{"save_source with ..", func() error {
			_, err := s.SaveSource(ctx, SourceInput{Path: "sources/../../wiki-evil/new.md", Content: "x"})
			return err
		}},
		{"save_source absolute", func() error {
			_, err := s.SaveSource(ctx, SourceInput{Path: filepath.Join(sibling, "new.md"), Content: "x"})
			return err
		}},
		{"research_save with a path as topic", func() error {
			_, err := s.ResearchSave(ctx, ResearchInput{Topic: "../../outside/secret", Content: "x"})
			return err
		}},
		{"tx.Create into the folder pointing out", func() error {
			return s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/out/new.md", []byte("x")) })
		}},
		{"tx.Create into a loop", func() error {
			return s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/loop.md", []byte("x")) })
		}},
		{"tx.Create into an absolute link inside", func() error {
			return s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/abs-inside/new.md", []byte("x")) })
		}},
		{"tx.Create into a dangling folder link", func() error {
			return s.Update(ctx, func(tx *store.Tx) error { return tx.Create("pages/dangling-in/new.md", []byte("x")) })
		}},
	}
	for _, w := range writes {
		n++
		before := treeOf(t, dir)
		err := w.do()
		if err == nil {
			t.Errorf("%s: succeeded", w.name)
		} else if store.CodeOf(err) == store.CodeInternal || (strings.Contains(store.PublicMessage(err), parent) && !strings.Contains(w.name, "absolute")) {
			t.Errorf("%s: %s: %q", w.name, store.CodeOf(err), store.PublicMessage(err))
		}
		sameTree(t, before, treeOf(t, dir))
	}
	if _, err := os.Lstat(filepath.Join(outside, "created-through.md")); err == nil {
		t.Error("a file was created through the dangling link")
	}
	if d := wikitest.DiffHashes(outsideBefore, wikitest.TreeHashes(t, parent, func(rel string) bool { return rel == "wiki" })); len(d) > 0 {
		t.Errorf("files outside the root changed: %v", d)
	}
	// validate_structure names the links that lead out or nowhere.
	st, err := s.ValidateStructure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	flagged := map[string]bool{}
	for _, p := range st.Problems {
		if p.Kind == "symlink_outside" {
			flagged[p.Path] = true
		}
	}
	for _, rel := range []string{"pages/out", "pages/secret.md", "pages/dangling.md", "sources/evil", "pages/loop.md"} {
		if !flagged[rel] {
			t.Errorf("validate_structure does not flag %s", rel)
		}
	}
	wikitest.Cases(t, "containment", n)
}

// TestRootThroughSymlink: a root reached through a symlink (~/wiki ->
// /data/wiki, macOS /tmp -> /private/tmp) works for reads, writes,
// snapshots and the audit log.
func TestRootThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	parent := t.TempDir()
	real := filepath.Join(parent, "data", "wiki")
	if _, err := Init(real); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "home-wiki")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	// A chain: a link to the link.
	link2 := filepath.Join(parent, "again")
	os.Symlink(link, link2)
	for _, root := range []string{link, link2} {
		s := openStore(t, root)
		ctx := context.Background()
		title := "Through " + filepath.Base(root)
		w, err := s.WritePage(ctx, PageInput{Title: title, Content: "one\n"})
		if err != nil {
			t.Fatalf("%s: %v", root, err)
		}
		w2, err := s.WritePage(ctx, PageInput{Title: title, Content: "two\n", BaseSHA256: w.SHA256})
		if err != nil || w2.Snapshot == "" {
			t.Fatalf("%s: update: %+v %v", root, w2, err)
		}
		if fc, err := s.Read(ctx, ReadInput{Page: title}); err != nil || fc.Content != "two\n" {
			t.Errorf("%s: read back %+v %v", root, fc, err)
		}
		if s.Dir() != root {
			t.Errorf("Dir() = %s, want the path it was opened with", s.Dir())
		}
		s.Close()
		if _, err := os.Stat(filepath.Join(real, filepath.FromSlash(w2.Snapshot))); err != nil {
			t.Errorf("snapshot not in the real folder: %v", err)
		}
	}
	checkWiki(t, real)
	wikitest.Cases(t, "containment", 2)
}

// TestStateFolderLinksRefused: .llmwiki/ or its history folders replaced by
// symlinks are refused when the wiki opens, so snapshots and audit lines
// never go elsewhere.
func TestStateFolderLinksRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	for _, rel := range []string{".llmwiki", ".llmwiki/audit", ".llmwiki/snapshots"} {
		dir := filepath.Join(t.TempDir(), "wiki")
		Init(dir)
		elsewhere := filepath.Join(t.TempDir(), "elsewhere")
		os.MkdirAll(elsewhere, 0o755)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.RemoveAll(p)
		os.Symlink(elsewhere, p)
		s, err := Open(dir)
		if err == nil {
			s.Close()
			t.Errorf("%s as a symlink: opened", rel)
			continue
		}
		if !strings.Contains(store.PublicMessage(err), "not a folder") {
			t.Errorf("%s: %v", rel, err)
		}
	}
	wikitest.Cases(t, "containment", 3)
}

// TestHostileSlugs: titles of only emoji, whitespace or punctuation get a
// deterministic slug or a clear refusal; case, separator and NFC/NFD
// variants give one slug; device names are mapped away.
func TestHostileSlugs(t *testing.T) {
	same := [][]string{
		{"My Topic", "my topic", "MY_TOPIC", "my-topic", "My.Topic", "  my   topic  ", "my—topic", "My\tTopic"},
		{"Café Crème", "cafe creme", "Cafe\u0301 Cre\u0300me", norm.NFD.String("Café Crème"), "CAFÉ CRÈME"},
		{"Straße", "strasse", "STRASSE"},
		{"한국어", norm.NFD.String("한국어")},
		{"Αλφα Βήτα", "αλφα βήτα", "ΑΛΦΑ ΒΉΤΑ", "αλφα_βήτα", norm.NFD.String("Αλφα Βήτα")},
		{"日本語 ノート", "日本語_ノート", "日本語-ノート", "日本語  ノート"},
		{"ｆｕｌｌ ｗｉｄｔｈ", "full width"},
		{"ﬁle", "file"},
	}
	n := 0
	for _, group := range same {
		want, err := mdoc.Slugify(group[0])
		if err != nil || !mdoc.ValidSlug(want) {
			t.Fatalf("Slugify(%q) = %q, %v", group[0], want, err)
		}
		for _, v := range group[1:] {
			n++
			if got, err := mdoc.Slugify(v); err != nil || got != want {
				t.Errorf("Slugify(%q) = %q, %v; want %q like %q", v, got, err, want, group[0])
			}
			if strings.ContainsFunc(v, unicode.IsControl) {
				continue // NormalizeSlug refuses control characters
			}
			if got, err := mdoc.NormalizeSlug(v); err != nil || got != want {
				t.Errorf("NormalizeSlug(%q) = %q, %v; want %q", v, got, err, want)
			}
		}
	}
	distinct := []string{"🎉", "🎊", "🎉🎉", "!!!", "???", "...", "日本語", "中文", "Ελληνικά", "עברית", "العربية", "🎉 party", "C", "D"}
	seen := map[string]string{}
	for _, title := range distinct {
		n++
		s1, err := mdoc.Slugify(title)
		if err != nil || !mdoc.ValidSlug(s1) {
			t.Errorf("Slugify(%q) = %q, %v", title, s1, err)
			continue
		}
		s2, _ := mdoc.Slugify(title)
		if s1 != s2 {
			t.Errorf("Slugify(%q) not deterministic", title)
		}
		if prev, ok := seen[s1]; ok {
			t.Errorf("%q and %q share the slug %s", prev, title, s1)
		}
		seen[s1] = title
	}
	if s, _ := mdoc.Slugify("🎉 party"); s != "party" {
		t.Errorf("emoji and words: %q", s)
	}
	for _, title := range []string{"", " ", "\t\n", "\u00a0\u2003", "\u3000"} {
		n++
		if s, err := mdoc.Slugify(title); err == nil {
			t.Errorf("Slugify(%q) = %q, want a refusal", title, s)
		} else if !strings.Contains(store.PublicMessage(err), "empty") {
			t.Errorf("Slugify(%q): %v", title, err)
		}
	}
	mapped := map[string]string{
		"CON": "con-page", "nul": "nul-page", "Com1": "com1-page", "LPT9": "lpt9-page", "aux.": "aux-page",
		"trailing dots...": "trailing-dots", "a:b": "a-b", "a/b": "a-b", `a\b`: "a-b", "x..y": "x-y",
		"Price: $5 (approx.)": "price-5-approx", "C++": "c", "-leading": "leading",
		strings.Repeat("word ", 40): strings.TrimSuffix(strings.Repeat("word-", 16), "-"),
	}
	for in, want := range mapped {
		n++
		if got, err := mdoc.Slugify(in); err != nil || got != want {
			t.Errorf("Slugify(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"../x", "a/b", `a\b`, "a:b", "x..y", "a\x00b", "\xff"} {
		n++
		if got, err := mdoc.NormalizeSlug(bad); err == nil {
			t.Errorf("NormalizeSlug(%q) = %q, want a refusal", bad, got)
		}
	}
	wikitest.Cases(t, "names", n)
}

// TestHostilePageIdentity: names that differ only by case, separator or
// normal form reach one page, and a second write never silently replaces
// a different page or adds a twin.
func TestHostilePageIdentity(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	n := 0
	w, err := s.WritePage(ctx, PageInput{Title: "My Topic", Content: "one\n"})
	if err != nil || w.Path != "pages/my-topic.md" {
		t.Fatalf("%+v %v", w, err)
	}
	for _, in := range []PageInput{
		{Title: "my topic", Content: "two\n"},
		{Title: "Other", Slug: "MY_TOPIC", Content: "two\n"},
		{Title: "Other", Slug: "my.topic.md", Content: "two\n"},
		{Title: "MY—TOPIC", Content: "two\n"},
	} {
		n++
		before := treeOf(t, dir)
		_, err := s.WritePage(ctx, in)
		if store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), "pages/my-topic.md") {
			t.Errorf("create %+v: %v", in, err)
		}
		sameTree(t, before, treeOf(t, dir))
	}
	for _, name := range []string{"My Topic", "my_topic", "MY-TOPIC", "pages/my-topic.md", "pages/My Topic.md", "my topic.md"} {
		n++
		if p, err := s.ResolvePage(name); err != nil || p != "pages/my-topic.md" {
			t.Errorf("ResolvePage(%q) = %q, %v", name, p, err)
		}
	}
	// A hand-made file under another spelling is the page: updates go to
	// it, creates are refused, and no twin appears.
	mustWrite(t, dir, "pages/Café Notes.md", "---\ntitle: Café Notes\n---\nhand\n")
	for _, in := range []PageInput{{Title: "cafe notes", Content: "x\n"}, {Title: "CAFE\u0301 NOTES", Content: "x\n"}, {Title: "x", Slug: "cafe_notes", Content: "x\n"}} {
		n++
		if _, err := s.WritePage(ctx, in); store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), "pages/Café Notes.md") {
			t.Errorf("create %+v: %v", in, err)
		}
	}
	n++
	up, err := s.WritePage(ctx, PageInput{Title: "Café Notes", Slug: "cafe-notes", Content: "updated\n", BaseSHA256: store.SHA256Hex([]byte("---\ntitle: Café Notes\n---\nhand\n"))})
	if err != nil || up.Path != "pages/Café Notes.md" {
		t.Errorf("update of the hand-made page: %+v %v", up, err)
	}
	// The writer itself refuses twins, whoever stages them.
	for _, rel := range []string{"pages/cafe-notes.md", "pages/CAFÉ NOTES.md", "pages/" + norm.NFD.String("Café Notes") + ".md", "pages/my_topic.md"} {
		n++
		err := s.Update(ctx, func(tx *store.Tx) error { return tx.Create(rel, []byte("twin\n")) })
		if store.CodeOf(err) != store.CodeConflict {
			t.Errorf("tx.Create(%q): %v", rel, err)
		}
	}
	n++
	if err := s.Update(ctx, func(tx *store.Tx) error {
		if err := tx.Create("pages/new-one.md", []byte("a\n")); err != nil {
			return err
		}
		return tx.Create("pages/New One.md", []byte("b\n"))
	}); store.CodeOf(err) != store.CodeConflict {
		t.Errorf("two twins in one transaction: %v", err)
	}
	// Sources: case and normal-form twins are refused too.
	if _, err := s.SaveSource(ctx, SourceInput{Path: "sources/Notes/Café.md", Content: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sources/notes/café.md", "sources/Notes/CAFÉ.md", "sources/Notes/" + norm.NFD.String("Café") + ".md", "sources/NOTES/other.md"} {
		n++
		if _, err := s.SaveSource(ctx, SourceInput{Path: p, Content: "y"}); store.CodeOf(err) != store.CodeConflict {
			t.Errorf("save_source %q: %v", p, err)
		}
	}
	// Two titles with the same slug: the second is a conflict, not a
	// replacement.
	if _, err := s.WritePage(ctx, PageInput{Title: "C", Content: "the letter\n"}); err != nil {
		t.Fatal(err)
	}
	n++
	if _, err := s.WritePage(ctx, PageInput{Title: "C++", Content: "the language\n"}); store.CodeOf(err) != store.CodeConflict {
		t.Errorf("C++ after C: %v", err)
	}
	if got := readFile(t, dir, "pages/c.md"); !strings.Contains(got, "the letter") {
		t.Errorf("pages/c.md was replaced:\n%s", got)
	}
	st, _ := s.ValidateStructure(ctx)
	for _, p := range st.Problems {
		if p.Kind == "slug_collision" {
			t.Errorf("a twin exists: %+v", p)
		}
	}
	wikitest.Cases(t, "names", n)
}
