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
	// Paging is the wire's: --json prints next_cursor, --cursor takes it.
	var page struct {
		Hits       []search.Hit `json:"hits"`
		NextCursor string       `json:"next_cursor"`
		Offset     any          `json:"next_offset"`
	}
	out, _, err = runCmd("--root", root, "--scope", "all", "--limit", "1", "--json", "colour")
	if err != nil || json.Unmarshal([]byte(out), &page) != nil || len(page.Hits) != 1 || page.NextCursor != "1" || page.Offset != nil {
		t.Fatalf("first page: %v\n%s", err, out)
	}
	first := page.Hits[0].Path
	page.NextCursor = ""
	out, _, err = runCmd("--root", root, "--scope", "all", "--limit", "1", "--cursor", "1", "--json", "colour")
	if err != nil || json.Unmarshal([]byte(out), &page) != nil || len(page.Hits) != 1 || page.Hits[0].Path == first || page.NextCursor != "" {
		t.Fatalf("second page (first was %s): %v\n%s", first, err, out)
	}
	if out, _, err := runCmd("--root", root, "--scope", "all", "--limit", "1", "colour"); err != nil || !strings.Contains(out, "more with --cursor 1") {
		t.Errorf("human output names the cursor: %v\n%s", err, out)
	}
	if _, _, err := runCmd("--root", root, "--cursor", "x", "colour"); err == nil || !strings.Contains(err.Error(), "next_cursor") {
		t.Errorf("a cursor the search did not return: %v", err)
	}
	if _, _, err := runCmd("--root", root, "((("); err == nil || !strings.Contains(err.Error(), "no words") {
		t.Errorf("punctuation query: %v", err)
	}
	if _, _, err := runCmd("--root", root); err == nil {
		t.Errorf("no query: want an error")
	}
	// Query words that look like flags are searched as text, wherever
	// they stand; known flags still work around them.
	os.WriteFile(filepath.Join(root, "pages", "deploy.md"), []byte("---\ntitle: Deploying\n---\nRun the deploy with --dry-run first, then --force.\n"), 0o644)
	for _, args := range [][]string{
		{"--dry-run", "--root", root},
		{"--root", root, "--dry-run"},
		{"--root=" + root, "deploy", "--dry-run", "--limit", "3"},
		{"--root", root, "--", "--dry-run"},
		{"-dry-run", "--root", root},
	} {
		out, stderr, err := runCmd(args...)
		if err != nil || !strings.Contains(out, "pages/deploy.md") {
			t.Errorf("search %q: %v\n%s\n%s", args, err, out, stderr)
		}
	}
	out, _, err = runCmd("--dry-run", "--json", "--root", root)
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Query != "--dry-run" || len(res.Hits) != 1 {
		t.Errorf("--dry-run as the query: %v %q", err, out)
	}
	out, _, err = runCmd("--root", root, "--json", "--", "--json")
	if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Query != "--json" {
		t.Errorf("after --, a flag name is a query word: %v %q", err, out)
	}
	if _, _, err := runCmd("--root", root, "deploy", "--limit"); err == nil || !strings.Contains(err.Error(), "needs a value") {
		t.Errorf("a flag without its value: %v", err)
	}
}

func TestSearchNeedsAnExistingWiki(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-wiki")
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"search", "--root", missing, "anything"}, strings.NewReader(""), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no wiki at") || !strings.Contains(err.Error(), "llmwiki init") {
		t.Fatalf("search in a missing wiki: %v\n%s", err, errb.String())
	}
	if _, serr := os.Stat(missing); !os.IsNotExist(serr) {
		t.Errorf("search created %s: %v", missing, serr)
	}
	// An existing folder that is not a wiki is not turned into one either.
	plain := t.TempDir()
	err = run(context.Background(), []string{"search", "--root", plain, "anything"}, strings.NewReader(""), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "no wiki at") {
		t.Fatalf("search in a plain folder: %v", err)
	}
	if ents, _ := os.ReadDir(plain); len(ents) != 0 {
		t.Errorf("search wrote into a plain folder: %v", ents)
	}
}

// TestSearchCommandNotesSources checks the CLI counts pages alone in its
// "no matches" line and says when only sources match.
func TestSearchCommandNotesSources(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	os.WriteFile(filepath.Join(root, "pages", "graph.md"), []byte("---\ntitle: Graph view\n---\nColour groups.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "context.md"), []byte("# Context\n\nWhat the wiki knows.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sources", "a.md"), []byte("# A\n\nA note on quokkas.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sources", "b.md"), []byte("# B\n\nMore quokkas.\n"), 0o644)
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"search", "--root", root, "quokkas"}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("search: %v\n%s", err, errb.String())
	}
	want := "no matches for \"quokkas\" in pages (1 page indexed)\nnote: no pages match; 2 sources match: search again with --scope sources\n"
	if got := out.String(); !strings.HasSuffix(got, want) {
		t.Errorf("search output:\n%s\nwant it to end with:\n%s", got, want)
	}
}
