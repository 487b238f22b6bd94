package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

// TestPromptsOverStdio drives the built binary with the official TypeScript
// SDK: the prompts each mode offers, a rendered workflow, completions of
// source paths and page slugs from a real wiki, and the error for a missing
// required argument.
func TestPromptsOverStdio(t *testing.T) {
	bin := binary(t)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, title := range []string{"Graph view", "Graph analysis", "Canvas"} {
		if _, err := st.WritePage(ctx, wiki.PageInput{Title: title, Summary: "s", Content: "b\n"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"sources/notes/a.md", "sources/notes/b.md", "sources/papers/c.md"} {
		if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: p, Content: "x\n"}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	var got struct {
		Prompts []string            `json:"prompts"`
		Args    map[string][]string `json:"args"`
		Ingest  string              `json:"ingest"`
		Sources []string            `json:"sources"`
		Pages   []string            `json:"pages"`
		Missing string              `json:"missing"`
	}
	if err := json.Unmarshal(node(t, "prompts_flow.mjs", "--bin", bin, "--root", root), &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"build", "ingest", "lint", "query", "research"}; !reflect.DeepEqual(got.Prompts, want) {
		t.Errorf("prompts = %v", got.Prompts)
	}
	if !reflect.DeepEqual(got.Args["ingest"], []string{"path*"}) || !reflect.DeepEqual(got.Args["query"], []string{"question*", "page"}) {
		t.Errorf("arguments = %v", got.Args)
	}
	if !strings.Contains(got.Ingest, "Source: `sources/notes/a.md`") || !strings.Contains(got.Ingest, "1. Call `load_project`") {
		t.Errorf("ingest prompt:\n%s", got.Ingest)
	}
	if !reflect.DeepEqual(got.Sources, []string{"sources/notes/a.md", "sources/notes/b.md"}) {
		t.Errorf("source completions = %v", got.Sources)
	}
	if !reflect.DeepEqual(got.Pages, []string{"graph-analysis", "graph-view"}) {
		t.Errorf("page completions = %v", got.Pages)
	}
	if !strings.Contains(got.Missing, `needs the argument "question"`) {
		t.Errorf("missing argument: %q", got.Missing)
	}
	// Read-only: only the workflows that need no write tool.
	if err := json.Unmarshal(node(t, "prompts_flow.mjs", "--bin", bin, "--root", root, "--mode", "read-only"), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Prompts, []string{"lint", "query"}) {
		t.Errorf("read-only prompts = %v", got.Prompts)
	}
}
