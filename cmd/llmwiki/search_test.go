package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/search"
)

func TestSearchCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	os.WriteFile(filepath.Join(root, "pages", "graph.md"), []byte("---\ntitle: Graph view\n---\nColour groups of notes in the graph.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sources", "raw.md"), []byte("# Raw\n\nA colour chart.\n"), 0o644)
	runCmd := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"search"}, args...), strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), err
	}
	out, stderr, err := runCmd("colour groups", "--root", root)
	if err != nil || !strings.Contains(out, "1. Graph view  (pages/graph.md:4") || !strings.Contains(out, "**Colour**") {
		t.Fatalf("search: %v\n%s\n%s", err, out, stderr)
	}
	out, _, err = runCmd("--root", root, "--scope", "sources", "--json", "colour")
	var res search.Result
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || len(res.Hits) != 1 || res.Hits[0].Path != "sources/raw.md" || res.Index.State != search.StateReady {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if _, _, err := runCmd("--root", root, "((("); err == nil || !strings.Contains(err.Error(), "no words") {
		t.Errorf("punctuation query: %v", err)
	}
	if _, _, err := runCmd("--root", root); err == nil {
		t.Errorf("no query: want an error")
	}
}
