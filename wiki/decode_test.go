package wiki

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"golang.org/x/text/encoding/korean"
)

// TestUncertainEncodingAndUnservedFiles: read_page and gather_sources say
// when a file's encoding is a guess (a CP949 source came back as
// Windows-1252 mojibake with no word), and validate_structure names every
// page or source llmwiki does not serve in full: the guessed encoding, a
// binary page or source, a page named "..md" (left out of the catalogue
// without a word before).
func TestUncertainEncodingAndUnservedFiles(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	kr := wikitest.Encode(t, korean.EUCKR, wikitest.KoreanPage)
	mustWrite(t, dir, "sources/korean.md", string(kr))
	mustWrite(t, dir, "sources/latin1.txt", "caf\xe9 cr\xe8me\n")
	mustWrite(t, dir, "sources/photo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	mustWrite(t, dir, "pages/common/..md", "# .\n\n> Run commands from a file.\n")
	mustWrite(t, dir, "pages/common/source.md", "# source\n")
	mustWrite(t, dir, "pages/blob.md", "\x00\x01binary")
	mustWrite(t, dir, "sources/.DS_Store", "\x00\x00\x00\x01Bud1")

	fc, err := s.Read(ctx, ReadInput{Path: "sources/korean.md"})
	if err != nil {
		t.Fatal(err)
	}
	if !fc.EncodingUncertain || fc.Encoding != "euc-kr" || !strings.Contains(fc.Note, "could not be determined") || !strings.Contains(fc.Content, "압축 파일을 만들고 풉니다") {
		t.Errorf("read korean: encoding %q uncertain=%v note %q body %q", fc.Encoding, fc.EncodingUncertain, fc.Note, fc.Content)
	}
	if fc, _ := s.Read(ctx, ReadInput{Path: "sources/latin1.txt"}); fc.EncodingUncertain || fc.Content != "café crème\n" {
		t.Errorf("read latin-1: uncertain=%v body %q", fc.EncodingUncertain, fc.Content)
	}
	res, err := s.GatherSources(ctx, GatherInput{Mode: "all"})
	if err != nil {
		t.Fatal(err)
	}
	for _, si := range res.Sources {
		if si.Path == "sources/korean.md" && (!si.EncodingUncertain || !strings.Contains(si.Note, "could not be determined")) {
			t.Errorf("gather korean: uncertain=%v note %q", si.EncodingUncertain, si.Note)
		}
	}

	st, err := s.ValidateStructure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range st.Problems {
		switch p.Kind {
		case "hidden_name", "binary_file", "unknown_encoding":
			got[p.Path] = p.Kind + "/" + p.Severity
			if !strings.Contains(p.Message, p.Path) || p.Fix == "" {
				t.Errorf("finding %+v does not name the file or a fix", p)
			}
		}
	}
	want := map[string]string{
		"sources/korean.md": "unknown_encoding/warning",
		"sources/photo.png": "binary_file/info",
		"pages/blob.md":     "binary_file/warning",
		"pages/common/..md": "hidden_name/warning",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
	if !st.OK {
		t.Errorf("not ok: %+v", st.Problems)
	}
	if st.Pages != 2 {
		t.Errorf("pages %d, want 2 (..md is not a page)", st.Pages)
	}
	pages, _ := s.Pages()
	if len(pages) != 2 {
		t.Errorf("catalogue %v", pages)
	}
}

// FuzzPlainName: the quick look of PlainName never passes a name that
// CleanPath would refuse or change (the search walk trusts it).
func FuzzPlainName(f *testing.F) {
	for _, s := range []string{"git-commit.md", "con.md", "COM1", "a.", "..md", "a b.md", "$.md", "((.md", "x+y@z.md", "lpt9.txt", "conin$.md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !PlainName(name) {
			return
		}
		rel := "pages/" + name
		if c, err := CleanPath(rel); err != nil || c != rel || UnservableName(rel) != "" {
			t.Fatalf("PlainName(%q) but CleanPath gives %q, %v", name, c, err)
		}
	})
}
