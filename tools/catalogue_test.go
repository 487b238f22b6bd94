package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/tools")

// snapshotDir is where each tool's schema is snapshotted.
var snapshotDir = filepath.Join("..", "testdata", "tools")

// TestToolSchemasGolden compares every tool's published definition (name,
// description, annotations, input and output schema) with its snapshot.
// Refresh with: go generate ./tools
func TestToolSchemasGolden(t *testing.T) {
	seen := map[string]bool{}
	// From the Go types: schemas_gen.go is checked against these by
	// TestToolSchemasGoldenGenerated.
	for _, tool := range Catalogue(Deps{reflectSchemas: true}) {
		got, err := json.MarshalIndent(tool.Tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		name := tool.Tool.Name + ".json"
		seen[name] = true
		path := filepath.Join(snapshotDir, name)
		if *update {
			if err := os.MkdirAll(snapshotDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			if os.IsNotExist(err) && os.Getenv("CI") != "true" {
				t.Logf("%s: no snapshot yet; run go generate ./tools", name)
				continue
			}
			t.Fatalf("%s: snapshot missing (run go generate ./tools and commit it): %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: schema differs from its snapshot; if the change is intended, run go generate ./tools\n--- got\n%s", name, got)
		}
	}
	entries, _ := os.ReadDir(snapshotDir)
	for _, e := range entries {
		if !seen[e.Name()] && strings.HasSuffix(e.Name(), ".json") {
			t.Errorf("snapshot %s belongs to no registered tool; delete it", e.Name())
		}
	}
}

// TestCatalogueChecks: unique verb_noun names, descriptions, all four hints
// set explicitly, read-only tools annotated so, every required field exists.
func TestCatalogueChecks(t *testing.T) {
	names := map[string]bool{}
	for _, tool := range Catalogue(Deps{}) {
		tt := tool.Tool
		if names[tt.Name] {
			t.Errorf("duplicate tool name %s", tt.Name)
		}
		names[tt.Name] = true
		if !strings.Contains(tt.Name, "_") || strings.HasPrefix(tt.Name, "llmwiki") || strings.ToLower(tt.Name) != tt.Name {
			t.Errorf("%s: names are verb_noun in lowercase, without a product prefix", tt.Name)
		}
		if len(tt.Description) < 60 {
			t.Errorf("%s: description too short to say when to use it", tt.Name)
		}
		a := tt.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: every annotation hint and the title must be set explicitly", tt.Name)
			continue
		}
		if *a.ReadOnlyHint && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive", tt.Name)
		}
		documented := false
		for _, ts := range ToolsetDocs {
			documented = documented || ts.Name == tool.Toolset
		}
		if !documented {
			t.Errorf("%s: toolset %q is not one of ToolsetDocs in tools/catalogue.go; use one or document a new one there", tt.Name, tool.Toolset)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tt.RawInputSchema, &schema); err != nil {
			t.Fatalf("%s: input schema: %v", tt.Name, err)
		}
		if schema.Type != "object" {
			t.Errorf("%s: input schema type %q", tt.Name, schema.Type)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required field %s is not a property", tt.Name, r)
			}
		}
		for p, raw := range schema.Properties {
			var prop struct {
				Description string `json:"description"`
			}
			json.Unmarshal(raw, &prop)
			if prop.Description == "" {
				t.Errorf("%s: argument %s has no description", tt.Name, p)
			}
		}
		var out struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(tt.RawOutputSchema, &out); out.Type != "object" && tt.OutputSchema.Type != "object" {
			t.Errorf("%s: no output schema", tt.Name)
		}
	}
	for _, want := range []string{"gather_sources", "atomic_write_context", "research_save", "append_log"} {
		if !names[want] {
			t.Errorf("fixed tool %s is not registered", want)
		}
	}
}

func TestSelect(t *testing.T) {
	ro, err := Select(Deps{}, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range ro {
		if !tool.ReadOnly() {
			t.Errorf("%s is not read-only", tool.Tool.Name)
		}
		got = append(got, tool.Tool.Name)
	}
	sort.Strings(got)
	want := "gather_sources lint_findings list_pages list_snapshots load_project page_history read_page search_wiki validate_structure"
	if strings.Join(got, " ") != want {
		t.Errorf("read-only tools = %v, want %s", got, want)
	}
	if _, err := Select(Deps{}, Options{Toolsets: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "known toolsets") {
		t.Errorf("unknown toolset error = %v", err)
	}
}

// TestSchemasHaveSingleTypes: no schema of any tool, input or output,
// served from schemas_gen.go or generated from the Go types, has a "type"
// that is a list, at any depth ($defs, properties, items, anyOf, oneOf,
// additionalProperties...). The MCP Inspector CLI coerces an argument only
// when its type is exactly "array" (or "object", "number"...), and clients
// with a single-type schema dialect (Gemini) reject or misread type lists.
func TestSchemasHaveSingleTypes(t *testing.T) {
	for _, d := range []Deps{{}, {reflectSchemas: true}} {
		for _, tool := range Catalogue(d) {
			b, err := json.Marshal(tool.Tool)
			if err != nil {
				t.Fatal(err)
			}
			var published struct {
				In  any `json:"inputSchema"`
				Out any `json:"outputSchema"`
			}
			if err := json.Unmarshal(b, &published); err != nil {
				t.Fatal(err)
			}
			if published.In == nil || published.Out == nil {
				t.Errorf("%s: a schema is missing", tool.Tool.Name)
			}
			var lists []string
			typeLists(published.In, "inputSchema", &lists)
			typeLists(published.Out, "outputSchema", &lists)
			if len(lists) > 0 {
				t.Errorf("%s (reflected %v): %d type lists: %s", tool.Tool.Name, d.reflectSchemas, len(lists), strings.Join(lists, "; "))
			}
		}
	}
}

// typeLists appends the path and value of every "type" in schema that is
// a list. Every object is walked, whatever keyword holds it.
func typeLists(schema any, at string, lists *[]string) {
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
				*lists = append(*lists, at+".type = "+string(b))
				continue
			}
			typeLists(s[k], at+"."+k, lists)
		}
	case []any:
		for i, v := range s {
			typeLists(v, at+"["+strconv.Itoa(i)+"]", lists)
		}
	}
}
