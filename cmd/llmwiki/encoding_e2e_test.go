package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/text/encoding/korean"
)

// TestUnservedFilesAreReportedEndToEnd: through the binary, search_wiki
// finds a Latin-1 and a UTF-16 source by words with non-ASCII letters;
// search_wiki's and load_project's index state count a binary source and a
// page named "..md" by reason; read_page says a CP949 file's encoding is a
// guess; validate_structure names all three.
func TestUnservedFilesAreReportedEndToEnd(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	kr, err := korean.EUCKR.NewEncoder().String("# 압축\n\n압축 파일을 만들고 풉니다. 아카이브의 내용을 자세히 보기.\n")
	if err != nil {
		t.Fatal(err)
	}
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range "Grüße aus Köln: Straßenbahn\r\n" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	for rel, data := range map[string]string{
		"sources/latin1.txt":     "Recette: cr\xe8me br\xfbl\xe9e\n",
		"sources/utf16.txt":      string(utf16),
		"sources/korean.txt":     kr,
		"sources/photo.png":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"pages/common/..md":      "# .\n\n> Run commands from a file in the current shell.\n",
		"pages/common/source.md": "# source\n\n> Run commands from a file in the current shell.\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		r, err := c.tool(name, args)
		if err != nil || r.IsError {
			t.Fatalf("%s: %v %s", name, err, r.Text)
		}
		return r.Data
	}
	wantSkipped := map[string]any{"binary": 1.0, "unservable name": 1.0}
	wantEx := map[string]any{"binary": []any{"sources/photo.png"}, "unservable name": []any{"pages/common/..md"}}
	checkIndex := func(what string, data map[string]any) {
		t.Helper()
		idx, _ := data["index"].(map[string]any)
		if !reflect.DeepEqual(idx["skipped"], wantSkipped) || !reflect.DeepEqual(idx["skipped_examples"], wantEx) {
			t.Errorf("%s index state: skipped %v examples %v", what, idx["skipped"], idx["skipped_examples"])
		}
	}
	for _, q := range []struct{ query, want string }{{"brûlée", "sources/latin1.txt"}, {"Straßenbahn", "sources/utf16.txt"}} {
		res := call("search_wiki", map[string]any{"query": q.query, "scope": "sources"})
		hits, _ := res["hits"].([]any)
		if len(hits) == 0 || hits[0].(map[string]any)["path"] != q.want {
			t.Errorf("search %q: %v, want %s first", q.query, hits, q.want)
		}
		checkIndex("search_wiki", res)
	}
	checkIndex("load_project", call("load_project", map[string]any{}))
	rp := call("read_page", map[string]any{"path": "sources/korean.txt"})
	if rp["encoding_uncertain"] != true || !strings.Contains(rp["note"].(string), "could not be determined") || !strings.Contains(rp["content"].(string), "압축 파일을") {
		t.Errorf("read_page korean: %v", rp)
	}
	vs := call("validate_structure", map[string]any{})
	got := map[string]string{}
	probs, _ := vs["problems"].([]any)
	for _, p := range probs {
		m := p.(map[string]any)
		got[m["path"].(string)] = m["kind"].(string)
	}
	for path, kind := range map[string]string{"pages/common/..md": "hidden_name", "sources/photo.png": "binary_file", "sources/korean.txt": "unknown_encoding"} {
		if got[path] != kind {
			t.Errorf("validate_structure: %s is %q, want %q (all: %v)", path, got[path], kind, got)
		}
	}
}
