package search

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"golang.org/x/text/encoding/korean"
)

// utf16le encodes s as UTF-16LE with a byte order mark (BMP only).
func utf16le(s string) string {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return string(out)
}

// TestSearchIndexesDecodedText: a Latin-1 and a UTF-16 source are found by
// words with non-ASCII letters, as read_page shows them (an index that took
// one invalid UTF-8 byte for a binary file would skip it silently); a
// CP949 source is indexed as its likeliest encoding and the hit says the
// encoding is a guess; binary files and a page named "..md" are counted
// with their reason in the index state, which a write and a rebuild keep.
func TestSearchIndexesDecodedText(t *testing.T) {
	kr, err := korean.EUCKR.NewEncoder().String("# 압축\n\n압축 파일을 만들고 풉니다. 아카이브의 내용을 자세히 보기.\n")
	if err != nil {
		t.Fatal(err)
	}
	st, x, dir := testWiki(t, map[string]string{
		"sources/latin1.txt":      "Recette: cr\xe8me br\xfbl\xe9e et caf\xe9 cr\xe8me\n",
		"sources/utf16.txt":       utf16le("Grüße aus Köln: Straßenbahn\r\n"),
		"sources/korean.txt":      kr,
		"sources/photo.png":       "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"pages/common/..md":       "# .\n\n> Run commands from a file in the current shell.\n",
		"pages/common/source.md":  "# source\n\n> Run commands from a file in the current shell.\n",
		"pages/.hidden/ignore.md": "# ignore\n",
		"sources/.DS_Store":       "\x00\x00\x00\x01Bud1",
	})
	for _, c := range []struct{ query, want string }{
		{"brûlée", "sources/latin1.txt"},
		{"crème", "sources/latin1.txt"},
		{"Straßenbahn", "sources/utf16.txt"},
		{"Köln", "sources/utf16.txt"},
		{"압축", "sources/korean.txt"},
	} {
		r := first(t, x, Query{Text: c.query, Scope: "sources"}, c.want)
		if len(r.Hits) > 0 && c.want == "sources/korean.txt" && !strings.Contains(r.Hits[0].Note, "could not be determined") {
			t.Errorf("korean hit note %q does not say the encoding is a guess", r.Hits[0].Note)
		}
		if len(r.Hits) > 0 && c.want == "sources/latin1.txt" && !strings.Contains(r.Hits[0].Snippet, "brûlée") {
			t.Errorf("latin-1 snippet %q is not the decoded text", r.Hits[0].Snippet)
		}
	}
	wantSkipped := map[string]int{wiki.SkipBinary: 1, wiki.SkipUnservableName: 1}
	wantEx := map[string][]string{wiki.SkipBinary: {"sources/photo.png"}, wiki.SkipUnservableName: {"pages/common/..md"}}
	check := func(when string, s Status) {
		t.Helper()
		if !reflect.DeepEqual(s.Skipped, wantSkipped) || !reflect.DeepEqual(s.SkippedExamples, wantEx) {
			t.Errorf("%s: skipped %v %v, want %v %v", when, s.Skipped, s.SkippedExamples, wantSkipped, wantEx)
		}
	}
	r := mustSearch(t, x, Query{Text: "shell"})
	check("search result", r.Index)
	if got := paths(r); !reflect.DeepEqual(got, []string{"pages/common/source.md"}) {
		t.Errorf("search shell: %v, want only pages/common/source.md", got)
	}
	// A second binary file through the audited writer is counted at once.
	if _, err := st.SaveSource(context.Background(), wiki.SourceInput{Path: "sources/b.bin", Content: "AAEC", Encoding: "base64"}); err != nil {
		t.Fatal(err)
	}
	wantSkipped[wiki.SkipBinary] = 2
	wantEx[wiki.SkipBinary] = []string{"sources/b.bin", "sources/photo.png"}
	check("after a write", x.Status())
	// A restart loads the binary files from the manifest and the names
	// from its walk.
	st.Close()
	st2, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	x2 := Open(st2, Options{ReconcileEvery: -1})
	st2.AddDerived(x2)
	if err := x2.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after a restart", x2.Status())
}

// TestTldrDotPagesAreCounted: the tldr pages named "..md" (the page of the
// "." command, 39 of them) are not left out of the catalogue and search
// without a word: they are counted in the index state and each is named
// by validate_structure, while their neighbours are served.
func TestTldrDotPagesAreCounted(t *testing.T) {
	corpus := wikitest.Corpus(t, "tldr")
	var dots []string
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "..md" {
			rel, _ := filepath.Rel(corpus, p)
			dots = append(dots, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dots) == 0 {
		t.Fatalf("no ..md in %s", corpus)
	}
	files := map[string]string{}
	for _, rel := range dots {
		for _, name := range []string{"..md", "source.md"} {
			src := path.Join(path.Dir(rel), name)
			if b, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(src))); err == nil {
				files["pages/tldr/"+src] = string(b)
			}
		}
	}
	st, x, _ := testWiki(t, files)
	s := mustSearch(t, x, Query{Text: "source"}).Index
	// The index's pages are the neighbours (context.md is not a page).
	if s.Skipped[wiki.SkipUnservableName] != len(dots) || s.Pages != len(files)-len(dots) {
		t.Errorf("index state: %d pages, skipped %v; want %d pages and %d unservable names", s.Pages, s.Skipped, len(files)-len(dots), len(dots))
	}
	vs, err := st.ValidateStructure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, p := range vs.Problems {
		if p.Kind == "hidden_name" && path.Base(p.Path) == "..md" {
			named++
		}
	}
	pages, _ := st.Pages()
	if named != len(dots) || len(pages) != len(files)-len(dots) {
		t.Errorf("validate_structure names %d of %d ..md pages; catalogue has %d pages, want %d", named, len(dots), len(pages), len(files)-len(dots))
	}
}

// TestUnservableNameIndexedBeforeIsDropped: a file whose name the tools
// cannot address, indexed by an older version (its walk did not check
// names), leaves the index at the next walk and is counted, rather than
// stay a hit that read_page refuses.
func TestUnservableNameIndexedBeforeIsDropped(t *testing.T) {
	_, x, dir := testWiki(t, map[string]string{"pages/ok.md": "# ok\n\nzebra crossing\n"})
	wikitest.WriteFile(t, dir, "pages/a:b.md", "# a:b\n\nzebra stripes\n")
	// What the older version's index held: the file, indexed.
	x.opMu.Lock()
	x.mu.RLock()
	idx := x.idx
	x.mu.RUnlock()
	doc, _ := buildDoc("pages/a:b.md", []byte("# a:b\n\nzebra stripes\n"), "en")
	b := idx.NewBatch()
	if err := indexDocument(b, idx.Mapping(), "pages/a:b.md", doc); err != nil {
		t.Fatal(err)
	}
	if err := idx.Batch(b); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(dir, "pages", "a:b.md"))
	x.man.Files["pages/a:b.md"] = fileRec{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), SHA: "x", Len: doc.lens()}
	x.opMu.Unlock()
	if err := x.Reconcile(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := mustSearch(t, x, Query{Text: "zebra"})
	if got := paths(r); !reflect.DeepEqual(got, []string{"pages/ok.md"}) {
		t.Errorf("search zebra: %v, want only pages/ok.md", got)
	}
	if r.Index.Skipped[wiki.SkipUnservableName] != 1 || !reflect.DeepEqual(r.Index.SkippedExamples[wiki.SkipUnservableName], []string{"pages/a:b.md"}) {
		t.Errorf("skipped %v %v", r.Index.Skipped, r.Index.SkippedExamples)
	}
}

// TestUnreadableFileIsCounted: a page the server cannot read is counted in
// the index state (not only logged) and named by validate_structure.
func TestUnreadableFileIsCounted(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("skipping: root reads a file whatever its permissions")
	}
	st, x, dir := testWiki(t, map[string]string{"pages/other.md": "# other\n"})
	wikitest.WriteFile(t, dir, "pages/new.md", "# new\n")
	p := filepath.Join(dir, "pages", "new.md")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(p, 0o644)
	r := mustSearch(t, x, Query{Text: "other"})
	if r.Index.Skipped[wiki.SkipUnreadable] != 1 || !reflect.DeepEqual(r.Index.SkippedExamples[wiki.SkipUnreadable], []string{"pages/new.md"}) {
		t.Errorf("skipped %v %v, want pages/new.md unreadable", r.Index.Skipped, r.Index.SkippedExamples)
	}
	vs, err := st.ValidateStructure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range vs.Problems {
		found = found || p.Kind == "unreadable" && p.Path == "pages/new.md"
	}
	if !found {
		t.Errorf("validate_structure does not name pages/new.md: %+v", vs.Problems)
	}
}
