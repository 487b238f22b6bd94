package app_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/llmwiki/llmwiki"

// layers ranks the module's packages by path, from the top (0) down. A
// package may import packages of its own rank or below, never one above
// it. The longest matching prefix decides; a package no prefix matches
// fails the test until it is ranked here.
var layers = []struct {
	prefix string
	rank   int
}{
	// Programs and harnesses: may import anything.
	{"cmd", 0},
	{"dev", 0},
	// The one place a program wires a wiki.
	{"internal/app", 1},
	// The MCP server and its transports; agents render plugin and agent
	// files from the tool catalogue, beside it.
	{"server", 2},
	{"agents", 2},
	// The tools and the workflow prompts they serve.
	{"tools", 3},
	{"prompts", 3},
	// The wiki's features (pages, sources, lint, links, search, plans,
	// eval, the model client, schema checks and their test helpers).
	{"wiki", 4},
	// The markdown document model and the change feed.
	{"wiki/mdoc", 5},
	{"wiki/changefeed", 5},
	// The transactional file store, knowing nothing of markdown.
	{"wiki/store", 6},
	// Generic libraries: they import nothing of llmwiki but each other.
	{"internal", 7},
}

// mcpAllowedBelow is the lowest rank (largest number) whose packages may
// depend on mcp-go: the tools and everything above them. The wiki never
// does.
const mcpAllowedBelow = 3

const mcpGo = "github.com/mark3labs/mcp-go"

// rankOf returns the rank of the module-relative package path rel, and
// false when no prefix matches.
func rankOf(rel string) (int, bool) {
	best, rank := -1, 0
	for _, l := range layers {
		if (rel == l.prefix || strings.HasPrefix(rel, l.prefix+"/")) && len(l.prefix) > best {
			best, rank = len(l.prefix), l.rank
		}
	}
	return rank, best >= 0
}

func TestRankOf(t *testing.T) {
	for _, c := range []struct {
		rel  string
		rank int
		ok   bool
	}{
		{"cmd/llmwiki", 0, true},
		{"dev/load", 0, true},
		{"internal/app", 1, true},
		{"server", 2, true},
		{"server/stdio", 2, true},
		{"agents/install", 2, true},
		{"wiki/transcript", 4, true},
		{"tools", 3, true},
		{"wiki", 4, true},
		{"wiki/lint", 4, true},
		{"wiki/mdoc", 5, true},
		{"wiki/store", 6, true},
		{"wiki/storeish", 4, true},
		{"internal/redact/redacttest", 7, true},
		{"internal/llm", 7, true},
		{"internal/quote", 7, true},
		{"newthing", 0, false},
		{"serverless", 0, false},
	} {
		rank, ok := rankOf(c.rel)
		if rank != c.rank || ok != c.ok {
			t.Errorf("rankOf(%q) = %d, %v; want %d, %v", c.rel, rank, ok, c.rank, c.ok)
		}
	}
}

// TestLayers checks the dependency direction of every package of the
// module with `go list -deps`: no package imports one ranked above it, and
// no package below the tools depends on mcp-go, directly or not.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Skipf("go env GOMOD: %v (no go command or no module)", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...")
	cmd.Dir = filepath.Dir(string(bytes.TrimSpace(out)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var problems []string
	seen := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkg, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue // the standard library and other modules
		}
		seen++
		rank, ok := rankOf(pkg)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is not ranked: add its path to layers in internal/app/layers_test.go", pkg))
			continue
		}
		for _, imp := range strings.Fields(f[1]) {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if r, ok := rankOf(dep); ok && r < rank {
				problems = append(problems, fmt.Sprintf("%s (rank %d) imports %s (rank %d), a layer above it", pkg, rank, dep, r))
			}
		}
		if rank > mcpAllowedBelow {
			if i := slices.IndexFunc(strings.Fields(f[2]), func(d string) bool { return strings.HasPrefix(d, mcpGo+"/") }); i >= 0 {
				problems = append(problems, fmt.Sprintf("%s (rank %d) depends on %s; only the tools and the layers above them may", pkg, rank, strings.Fields(f[2])[i]))
			}
		}
	}
	if seen == 0 {
		t.Fatal("go list listed no package of the module")
	}
	for _, p := range problems {
		t.Error(p)
	}
}
