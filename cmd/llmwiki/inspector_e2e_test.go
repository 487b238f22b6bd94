package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

// inspector runs the official MCP Inspector CLI (testdata/e2e, pinned)
// against `bin serve --root root` with args and returns its stdout.
func inspector(t *testing.T, bin, root string, args ...string) []byte {
	t.Helper()
	dir := e2eDir(t)
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		msg := "the MCP Inspector CLI is not installed; run: npm ci --prefix testdata/e2e"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("skipping: " + msg)
	}
	cmd := exec.Command("node", append([]string{cli, "--cli", bin, "serve", "--root", root}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LLMWIKI_LOG=warn")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("inspector %v: %v\nstderr:\n%s\nstdout:\n%s", args, err, errb.String(), out.String())
	}
	return out.Bytes()
}

// TestInspectorCLIPassesArrays drives the built binary with the MCP
// Inspector CLI, which turns a --tool-arg into JSON only when the
// argument's schema type is exactly "array" (or "object", a number, a
// boolean): write_page with tags and sources lands them in the page, and
// tools/list as the Inspector sees it has no type list anywhere.
func TestInspectorCLIPassesArrays(t *testing.T) {
	bin := binary(t)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)

	out := inspector(t, bin, root, "--method", "tools/call", "--tool-name", "write_page",
		"--tool-arg", "title=Graph view", "content=The graph shows links between notes.",
		`tags=["obsidian","graph"]`, `sources=["sources/graph.md","https://help.obsidian.md/graph"]`)
	var res struct {
		IsError    bool `json:"isError"`
		Content    []struct{ Text string }
		Structured struct {
			Path string `json:"path"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("inspector output: %v\n%s", err, out)
	}
	if res.IsError || res.Structured.Path != "pages/graph-view.md" {
		t.Fatalf("write_page through the Inspector: %s", out)
	}
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pages, err := st.PagesContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got *wiki.PageInfo
	for i := range pages {
		if pages[i].Slug == "graph-view" {
			got = &pages[i]
		}
	}
	if got == nil {
		t.Fatalf("no page graph-view: %+v", pages)
	}
	if want := []string{"obsidian", "graph"}; !reflect.DeepEqual(got.Tags, want) {
		t.Errorf("tags = %q, want %q", got.Tags, want)
	}
	if want := []string{"sources/graph.md", "https://help.obsidian.md/graph"}; !reflect.DeepEqual(got.Sources, want) {
		t.Errorf("sources = %q, want %q", got.Sources, want)
	}

	var list struct {
		Tools []struct {
			Name string `json:"name"`
			In   any    `json:"inputSchema"`
			Out  any    `json:"outputSchema"`
		} `json:"tools"`
	}
	out = inspector(t, bin, root, "--method", "tools/list")
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list: %v\n%s", err, out)
	}
	if len(list.Tools) < 20 {
		t.Fatalf("tools/list lists %d tools", len(list.Tools))
	}
	for _, tool := range list.Tools {
		if l := typeLists(tool.In, nil); len(l) > 0 {
			t.Errorf("%s: input schema has type lists: %s", tool.Name, strings.Join(l, "; "))
		}
		if l := typeLists(tool.Out, nil); len(l) > 0 {
			t.Errorf("%s: output schema has type lists: %s", tool.Name, strings.Join(l, "; "))
		}
	}
}

// typeLists returns the "type" values of schema, at any depth, that are
// lists.
func typeLists(schema any, lists []string) []string {
	switch s := schema.(type) {
	case map[string]any:
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if l, ok := s[k].([]any); ok && k == "type" {
				b, _ := json.Marshal(l)
				lists = append(lists, string(b))
				continue
			}
			lists = typeLists(s[k], lists)
		}
	case []any:
		for _, v := range s {
			lists = typeLists(v, lists)
		}
	}
	return lists
}
