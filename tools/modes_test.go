package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/prompts"
	"github.com/mark3labs/mcp-go/mcp"
)

// listDir holds one golden tools/list answer per server mode.
var listDir = filepath.Join("..", "testdata", "tools-list")

// modes are the serve flag combinations whose tools/list is pinned.
func modes() map[string]Options {
	m := map[string]Options{
		"all":            {},
		"read-only":      {ReadOnly: true},
		"core-build":     {Toolsets: []string{"core", "build"}},
		"read-only-core": {ReadOnly: true, Toolsets: []string{"core"}},
	}
	for _, ts := range ToolsetDocs {
		m["toolset-"+ts.Name] = Options{Toolsets: []string{ts.Name}}
	}
	return m
}

// TestToolSchemasGoldenListModes pins the tools/list answer of every server
// mode (serve --read-only, --toolsets ...) in testdata/tools-list/<mode>.json,
// so a change to what a client with a small budget loads is a visible diff.
// Refresh with: go generate ./tools
func TestToolSchemasGoldenListModes(t *testing.T) {
	seen := map[string]bool{}
	for mode, opts := range modes() {
		c := connect(t, Deps{}, opts)
		res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if res.NextCursor != "" {
			t.Errorf("%s: tools/list is paged; the golden holds the first page only", mode)
		}
		for _, tool := range res.Tools {
			if opts.ReadOnly && (tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint) {
				t.Errorf("%s: %s is not read-only", mode, tool.Name)
			}
		}
		got, err := json.MarshalIndent(res.Tools, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		name := mode + ".json"
		seen[name] = true
		path := filepath.Join(listDir, name)
		if *update {
			if err := os.MkdirAll(listDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: golden missing (run go generate ./tools and commit it): %v", name, err)
		}
		if !bytes.Equal(got, want) {
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
			}
			t.Errorf("%s: tools/list differs from its golden (now: %s); if intended, run go generate ./tools", name, strings.Join(names, ", "))
		}
	}
	entries, _ := os.ReadDir(listDir)
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("golden %s belongs to no mode; delete it", e.Name())
		}
	}
}

// TestPromptsEveryMode: in every mode, prompts/list offers exactly the
// prompts whose required tools are registered, and each renders through
// prompts/get naming only registered tools.
func TestPromptsEveryMode(t *testing.T) {
	all := map[string]bool{}
	for _, tool := range Catalogue(Deps{}) {
		all[tool.Tool.Name] = true
	}
	args := map[string]map[string]string{
		"ingest": {"path": "sources/a.md"}, "query": {"question": "what?"}, "research": {"topic": "x"},
	}
	for mode, opts := range modes() {
		sel, err := Select(Deps{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		have := map[string]bool{}
		for _, tool := range sel {
			names = append(names, tool.Tool.Name)
			have[tool.Tool.Name] = true
		}
		c := connect(t, Deps{}, opts)
		res, err := c.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		offered := map[string]bool{}
		for _, p := range res.Prompts {
			offered[p.Name] = true
		}
		for _, p := range prompts.All() {
			if p.Available(names) != offered[p.Name] {
				t.Errorf("%s: prompt %s offered=%v, its tools available=%v", mode, p.Name, offered[p.Name], p.Available(names))
			}
		}
		for _, p := range res.Prompts {
			req := mcp.GetPromptRequest{}
			req.Params.Name = p.Name
			req.Params.Arguments = args[p.Name]
			got, err := c.GetPrompt(context.Background(), req)
			if err != nil {
				t.Errorf("%s: prompts/get %s: %v", mode, p.Name, err)
				continue
			}
			text := got.Messages[0].Content.(mcp.TextContent).Text
			for name := range all {
				if strings.Contains(text, "`"+name+"`") && !have[name] {
					t.Errorf("%s: prompt %s names %s, which this mode does not register", mode, p.Name, name)
				}
			}
		}
	}
}
