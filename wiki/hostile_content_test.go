package wiki

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

func utf16le(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			out = append(out, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func swap16(b []byte) []byte {
	out := append([]byte(nil), b...)
	for i := 0; i+1 < len(out); i += 2 {
		out[i], out[i+1] = out[i+1], out[i]
	}
	return out
}

// validJSON fails the test when v does not marshal to valid UTF-8 JSON.
func validJSON(t *testing.T, what string, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil || !utf8.Valid(b) || !json.Valid(b) {
		t.Errorf("%s: response is not valid UTF-8 JSON: %v", what, err)
	}
	return b
}

// TestHostileContent: sources with NUL bytes, other encodings or huge
// lines are decoded or described, never dumped; every response is valid
// UTF-8 JSON.
func TestHostileContent(t *testing.T) {
	s, dir := newStore(t)
	ctx := context.Background()
	text := "Grüße, “quoted” — 日本語 🎉\nsecond line\n"
	long := strings.Repeat("x", 3_000_000)
	cases := []struct {
		name    string
		data    []byte
		enc     string // "" = UTF-8 text; "binary" = described
		body    string // expected text ("" = don't check)
		contain string
	}{
		{"utf8.md", []byte(text), "", text, ""},
		{"utf8-bom.txt", append([]byte("\xef\xbb\xbf"), text...), "", "\ufeff" + text, ""},
		{"utf8-bom.md", append([]byte("\xef\xbb\xbf"), text...), "", text, ""},
		{"utf16le-bom.txt", utf16le(text, true), mdoc.EncodingUTF16LE, text, ""},
		{"utf16be-bom.txt", swap16(utf16le(text, true)), mdoc.EncodingUTF16BE, text, ""},
		{"utf16le-nobom.txt", utf16le("plain ascii text\r\nfrom a Windows tool\r\n", false), mdoc.EncodingUTF16LE, "plain ascii text\r\nfrom a Windows tool\r\n", ""},
		{"utf32le.txt", append([]byte{0xFF, 0xFE, 0, 0}, []byte{'h', 0, 0, 0, 'i', 0, 0, 0}...), mdoc.EncodingUTF32LE, "hi", ""},
		{"latin1.txt", []byte("caf\xe9 cr\xe8me br\xfbl\xe9e\n"), mdoc.EncodingWindows1252, "café crème brûlée\n", ""},
		{"cp1252.txt", []byte("\x93smart quotes\x94 and \x85 ellipsis\n"), mdoc.EncodingWindows1252, "“smart quotes” and … ellipsis\n", ""},
		{"late-invalid.md", append([]byte(strings.Repeat("a", 9000)+"\n"), "tail \xff\n"...), mdoc.EncodingWindows1252, "", "tail ÿ"},
		{"nul-byte.txt", []byte("text with a \x00 NUL byte\n"), "binary", "", ""},
		{"late-nul.txt", append([]byte(strings.Repeat("b", 20000)), 0), "binary", "", ""},
		{"png.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "binary", "", ""},
		{"controls.bin", []byte("ab\x01\x02\x03cd"), "binary", "", ""},
		{"odd-utf16.txt", []byte{0xFF, 0xFE, 'a'}, "", "", ""}, // a BOM and half a code unit
		{"huge-line.txt", []byte(long), "", "", ""},
	}
	for _, c := range cases {
		mustWrite(t, dir, "sources/"+c.name, string(c.data))
	}
	n := 0
	for _, c := range cases {
		n++
		rel := "sources/" + c.name
		fc, err := s.Read(ctx, ReadInput{Path: rel})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		b := validJSON(t, c.name, fc)
		if fc.SHA256 != store.SHA256Hex(c.data) || fc.Size != int64(len(c.data)) {
			t.Errorf("%s: sha256/size are not of the bytes on disk", c.name)
		}
		switch c.enc {
		case "binary":
			if !fc.Binary || fc.Content != "" || fc.MediaType == "" || len(b) > 2000 {
				t.Errorf("%s: not described: %s", c.name, b)
			}
		default:
			if fc.Binary || fc.Encoding != c.enc {
				if c.name == "odd-utf16.txt" && (fc.Binary || fc.Encoding != "") {
					continue // either is fine for a broken file, as long as it is not dumped
				}
				t.Errorf("%s: binary=%v encoding=%q, want %q", c.name, fc.Binary, fc.Encoding, c.enc)
				continue
			}
			if c.body != "" && fc.Content != c.body {
				t.Errorf("%s: body %q, want %q", c.name, fc.Content, c.body)
			}
			if c.contain != "" && !strings.Contains(fc.Content, c.contain) {
				if fc.NextFromLine > 0 {
					more, _ := s.Read(ctx, ReadInput{Path: rel, FromLine: fc.NextFromLine})
					if !strings.Contains(more.Content, c.contain) {
						t.Errorf("%s: %q not found", c.name, c.contain)
					}
				}
			}
			if c.enc != "" && !strings.Contains(fc.Note, "decoded from "+c.enc) {
				t.Errorf("%s: note %q", c.name, fc.Note)
			}
		}
	}
	// A huge single line is cut at the limit and said so, not dumped.
	fc, _ := s.Read(ctx, ReadInput{Path: "sources/huge-line.txt"})
	if utf8.RuneCountInString(fc.Content) != DefaultReadChars || !fc.Truncated || !strings.Contains(fc.Note, "line 1 has 3000000 characters") {
		t.Errorf("huge line: %d chars, truncated=%v, note %q", utf8.RuneCountInString(fc.Content), fc.Truncated, fc.Note)
	}
	fc, _ = s.Read(ctx, ReadInput{Path: "sources/huge-line.txt", MaxChars: 10 * MaxReadChars})
	if utf8.RuneCountInString(fc.Content) != MaxReadChars {
		t.Errorf("max_chars above the limit returned %d chars", utf8.RuneCountInString(fc.Content))
	}
	// gather_sources decodes, describes and cuts the same way, and never
	// sends the reader back to the line it just read.
	res, err := s.GatherSources(ctx, GatherInput{Mode: "all", Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]SourceInfo{}
	for cursor := ""; ; {
		res, err = s.GatherSources(ctx, GatherInput{Mode: "all", Budget: 1000, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		validJSON(t, "gather_sources", res)
		for _, si := range res.Sources {
			seen[si.Path] = si
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	for _, c := range cases {
		si, ok := seen["sources/"+c.name]
		if !ok {
			t.Errorf("gather_sources does not list %s", c.name)
			continue
		}
		if (c.enc == "binary") != si.Binary || (c.enc != "binary" && c.name != "odd-utf16.txt" && si.Encoding != c.enc) {
			t.Errorf("gather %s: binary=%v encoding=%q", c.name, si.Binary, si.Encoding)
		}
		if si.Binary && si.Content != "" {
			t.Errorf("gather %s: binary content dumped", c.name)
		}
	}
	if si := seen["sources/huge-line.txt"]; !si.Truncated || si.NextFromLine != 0 || utf8.RuneCountInString(si.Content) != 1000 || !strings.Contains(si.Note, "line 1 has 3000000 characters") {
		t.Errorf("gather huge line: truncated=%v next=%d chars=%d note=%q", si.Truncated, si.NextFromLine, utf8.RuneCountInString(si.Content), si.Note)
	}
	if si := seen["sources/utf16le-bom.txt"]; si.Content != text {
		t.Errorf("gather utf-16: %q", si.Content)
	}
	wikitest.Cases(t, "content", n+3)
}

// TestHostileFileNames: files a user or another tool drops in with names
// llmwiki cannot address are left out of listings (never shown with a
// mangled name) and reported by validate_structure in valid UTF-8.
func TestHostileFileNames(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("these names cannot exist on Windows")
	}
	s, dir := newStore(t)
	ctx := context.Background()
	bad := []string{"sources/a:b.md", "sources/what?.md", "sources/\xff\xfe.md", "sources/nul.md", "sources/trailing. ", "pages/star*.md", "pages/con.md", "sources/bad\x01name.md", "sources/dir:x/inner.md"}
	for _, b := range bad {
		p := filepath.Join(dir, filepath.FromSlash(b))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("---\ntitle: x\n---\nx\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, dir, "sources/good.md", "good\n")
	srcs, err := s.ListSources()
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || srcs[0].Path != "sources/good.md" {
		t.Errorf("sources listed: %+v", srcs)
	}
	pages, _ := s.Pages()
	if len(pages) != 0 {
		t.Errorf("pages listed: %+v", pages)
	}
	p, err := s.LoadProject(ctx)
	if err != nil {
		t.Fatal(err)
	}
	validJSON(t, "load_project", p)
	st, err := s.ValidateStructure(ctx)
	if err != nil {
		t.Fatal(err)
	}
	validJSON(t, "validate_structure", st)
	flagged := 0
	for _, pr := range st.Problems {
		if pr.Kind == "bad_name" {
			flagged++
		}
	}
	if flagged != len(bad) {
		t.Errorf("validate_structure flagged %d bad names, want %d: %+v", flagged, len(bad), st.Problems)
	}
	wikitest.Cases(t, "content", len(bad))
}
