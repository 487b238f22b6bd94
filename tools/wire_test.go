package tools

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// walkSchema calls fn for every named property of the JSON schema s, at its
// dotted location (items of an array as "name[]"), depth first.
func walkSchema(s map[string]any, at string, fn func(name, at string, prop map[string]any)) {
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		loc := strings.TrimPrefix(at+"."+n, ".")
		fn(n, loc, p)
		walkSchema(p, loc, fn)
		if items, ok := p["items"].(map[string]any); ok {
			walkSchema(items, loc+"[]", fn)
		}
		if ap, ok := p["additionalProperties"].(map[string]any); ok {
			walkSchema(ap, loc+"{}", fn)
		}
	}
}

func decodeSchema(t *testing.T, tool, which string, raw []byte) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: %s schema: %v", tool, which, err)
	}
	return s
}

// TestWireVocabulary holds every tool's schemas to the wire vocabulary of
// docs/design.md, so that a new or changed tool cannot drift from it.
func TestWireVocabulary(t *testing.T) {
	// Names the rule replaced, anywhere in an input or an output.
	banned := map[string]string{
		"file":        "a file is path",
		"body":        "text is content",
		"text":        "text is content",
		"offset":      "lists page with cursor",
		"next_offset": "lists page with cursor; the next page is next_cursor",
		"from":        "a file is path; the page acted on is page",
		"to":          "a new name is slug; the file written is path",
		"of":          "a file is path",
		"time":        "a time is named by its event",
	}
	for _, tool := range Catalogue(Deps{}) {
		name := tool.Tool.Name
		in := decodeSchema(t, name, "input", tool.Tool.RawInputSchema)
		out := decodeSchema(t, name, "output", tool.Tool.RawOutputSchema)
		check := func(side string) func(string, string, map[string]any) {
			return func(prop, at string, p map[string]any) {
				if why, ok := banned[prop]; ok {
					t.Errorf("%s %s: property %s: %s (docs/design.md, Wire vocabulary)", name, side, at, why)
				}
				if strings.HasSuffix(prop, "_at") {
					t.Errorf("%s %s: property %s: a time is named by its event, without _at", name, side, at)
				}
				typ, _ := p["type"].(string)
				switch {
				case prop == "path" || prop == "content" || prop == "cursor" || prop == "next_cursor" || prop == "sha256" || prop == "base_sha256" || strings.HasSuffix(prop, "_id"):
					if typ != "string" {
						t.Errorf("%s %s: property %s is a %s; it must be a string", name, side, at, typ)
					}
				case prop == "paths" || prop == "warnings" && at == "warnings":
					items, _ := p["items"].(map[string]any)
					if typ != "array" || items["type"] != "string" {
						t.Errorf("%s %s: property %s must be an array of strings", name, side, at)
					}
				case prop == "limit" || prop == "total":
					if typ != "integer" {
						t.Errorf("%s %s: property %s must be an integer", name, side, at)
					}
				}
			}
		}
		walkSchema(in, "", check("input"))
		walkSchema(out, "", check("output"))

		inProps, _ := in["properties"].(map[string]any)
		outProps, _ := out["properties"].(map[string]any)
		if _, ok := outProps["warnings"]; !ok {
			t.Errorf("%s: output has no warnings (every result carries them)", name)
		}
		_, cursor := inProps["cursor"]
		_, next := outProps["next_cursor"]
		if cursor != next {
			t.Errorf("%s: a tool that takes cursor returns next_cursor and one that returns next_cursor takes cursor (cursor %v, next_cursor %v)", name, cursor, next)
		}
		if _, limit := inProps["limit"]; limit && !cursor {
			t.Errorf("%s: a tool that takes limit takes cursor, so a list longer than the limit can be paged", name)
		}
		if _, ok := inProps["slug"]; ok && name != "write_page" && name != "move_page" {
			t.Errorf("%s: slug names a page being created or renamed; an existing page is page", name)
		}
	}
}

// TestRenamedArgsTable keeps renamedArgs true to the schemas: every old name
// is gone from its tool's input and every new name is one of its arguments.
func TestRenamedArgsTable(t *testing.T) {
	byName := map[string]Tool{}
	for _, tool := range Catalogue(Deps{}) {
		byName[tool.Tool.Name] = tool
	}
	for toolName, renames := range renamedArgs {
		tool, ok := byName[toolName]
		if !ok {
			t.Errorf("renamedArgs names %s, which is no tool", toolName)
			continue
		}
		props := map[string]bool{}
		walkSchema(decodeSchema(t, toolName, "input", tool.Tool.RawInputSchema), "", func(_, at string, _ map[string]any) { props[at] = true })
		for old, name := range renames {
			parent := ""
			if i := strings.LastIndex(old, "."); i >= 0 {
				parent = old[:i+1]
			}
			if props[old] {
				t.Errorf("%s: %s is renamed to %s but is still an argument", toolName, old, name)
			}
			if !props[parent+name] {
				t.Errorf("%s: %s is renamed to %s, which is no argument", toolName, old, parent+name)
			}
		}
	}
}

// A call with an argument name the wire vocabulary replaced is refused as
// invalid, naming the new name, and changes nothing.
func TestRenamedArgumentsRefused(t *testing.T) {
	h := newHarness(t)
	h.ok("write_page", map[string]any{"title": "Alpha", "content": "Alpha is the first letter.\n"})
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_page", map[string]any{"title": "Beta", "body": "b\n"}, "invalid: invalid arguments: unknown argument 'body'; use 'content'"},
		{"write_page", map[string]any{"title": "Beta", "body": "b\n", "content": "b\n"}, "unknown argument 'body'; use 'content'"},
		{"read_page", map[string]any{"slug": "alpha"}, "invalid: invalid arguments: unknown argument 'slug'; use 'page'"},
		{"move_page", map[string]any{"from": "alpha", "to": "first"}, "invalid: invalid arguments: unknown argument 'from'; use 'page'; unknown argument 'to'; use 'slug'"},
		{"list_pages", map[string]any{"offset": 1}, "unknown argument 'offset'; use 'cursor'"},
		{"lint_findings", map[string]any{"offset": 0}, "unknown argument 'offset'; use 'cursor'"},
		{"search_wiki", map[string]any{"query": "alpha", "offset": 10}, "unknown argument 'offset'; use 'cursor'"},
		{"list_pages", map[string]any{"nonesuch": 1}, "invalid: invalid arguments: unknown argument 'nonesuch'; check the tool's input schema"},
		{"propose_plan", map[string]any{"operation": "ingest", "source": "sources/a.md"}, "invalid: invalid arguments: unknown argument 'source'; use 'path'"},
		{"submit_lint_findings", map[string]any{"findings": []any{map[string]any{
			"kind": "gap", "file": "pages/alpha.md", "message": "m",
			"evidence": []any{map[string]any{"path": "pages/alpha.md", "quote": "Alpha is the first letter."}, map[string]any{"file": "pages/alpha.md", "quote": "Alpha is the first letter."}},
		}}}, "invalid: invalid arguments: argument findings[0].evidence[1]: unknown field 'file'; use 'path'; argument findings[0]: unknown field 'file'; use 'path'"},
	}
	// Every tool hints the vocabulary's replacement for a banned name it has
	// (the fresh-user test found atomic_write_context, research_save and
	// edit_page refusing body without naming content).
	replaces := []struct{ old, new string }{
		{"body", "content"}, {"text", "content"}, {"file", "path"}, {"file", "page"},
		{"offset", "cursor"}, {"next_offset", "cursor"}, {"from", "page"}, {"from", "path"},
		{"to", "slug"}, {"to", "path"}, {"source", "path"}, {"slug", "page"},
	}
	for _, tool := range Catalogue(Deps{}) {
		name := tool.Tool.Name
		props, _ := decodeSchema(t, name, "input", tool.Tool.RawInputSchema)["properties"].(map[string]any)
		done := map[string]bool{}
		for _, r := range replaces {
			_, hasOld := props[r.old]
			_, hasNew := props[r.new]
			if hasOld || !hasNew || done[r.old] {
				continue
			}
			done[r.old] = true
			if renamedArgs[name][r.old] != "" {
				continue // the tool's own rename, checked above
			}
			cases = append(cases, struct {
				tool string
				args map[string]any
				want string
			}{name, map[string]any{r.old: "x"}, "invalid: invalid arguments: unknown argument '" + r.old + "'; use '" + r.new + "'"})
		}
	}
	for _, want := range []string{"atomic_write_context body", "research_save body", "edit_page body", "gather_sources offset", "save_source file", "read_page file"} {
		found := false
		for _, c := range cases {
			for k := range c.args {
				found = found || c.tool+" "+k == want && len(c.args) == 1
			}
		}
		if !found {
			t.Errorf("no case for %s", want)
		}
	}
	for _, c := range cases {
		before, audits := h.state(), h.auditCount()
		r := h.call(c.tool, c.args)
		if !r.IsError || !strings.Contains(text(r), c.want) {
			t.Errorf("%s %v: got %q, want an error with %q", c.tool, c.args, text(r), c.want)
		}
		if after := h.state(); !reflect.DeepEqual(after, before) {
			t.Errorf("%s %v: the refused call changed the wiki", c.tool, c.args)
		}
		if h.auditCount() != audits+1 {
			t.Errorf("%s %v: the refused call wrote %d audit lines, want 1", c.tool, c.args, h.auditCount()-audits)
		}
	}
}

// Cursors are the ones a tool returned; anything else is refused.
func TestCursorRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 50, 10_000} {
		if got, err := CursorOffset(NextCursor(n)); err != nil || got != n {
			t.Errorf("cursor of %d: %d, %v", n, got, err)
		}
	}
	if NextCursor(0) != "" {
		t.Errorf("position 0 has no cursor: %q", NextCursor(0))
	}
	for _, bad := range []string{"-1", "x", "01", " 1", "1.5", "99999999999999999999999"} {
		if _, err := CursorOffset(bad); err == nil || !strings.HasPrefix(err.Error(), "cursor is not one this tool returned") {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}
