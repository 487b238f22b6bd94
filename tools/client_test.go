package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llmwiki/llmwiki/internal/schemacheck"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// harness is a wiki served to mcp-go's in-process client.
type harness struct {
	t      *testing.T
	dir    string
	parent string
	store  *wiki.Store
	c      *client.Client
}

// connect starts an in-process client on the server NewServer builds
// and completes the MCP handshake; the client closes when the test ends.
func connect(t *testing.T, d Deps, opts Options) *client.Client {
	t.Helper()
	return connectVersion(t, d, opts, mcp.LATEST_PROTOCOL_VERSION)
}

// withLinks gives d the store's link graph, opened and registered as serve
// does, when the test did not.
func withLinks(d Deps) Deps {
	if d.Store != nil && d.Links == nil {
		d.Links = links.Open(d.Store)
		d.Store.AddDerived(d.Links)
	}
	return d
}

// connectVersion is connect with the client asking for protocol version v.
func connectVersion(t testing.TB, d Deps, opts Options, v string) *client.Client {
	t.Helper()
	srv, _, err := NewServer(withLinks(d), opts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = v
	init.Params.ClientInfo = mcp.Implementation{Name: "go-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessVersion(t, mcp.LATEST_PROTOCOL_VERSION)
}

// newHarnessVersion is newHarness with the client asking for the MCP
// protocol version v (resources/subscribe exists only before the modern
// era, e.g. "2025-06-18", what editors speak today).
func newHarnessVersion(t *testing.T, v string) *harness {
	t.Helper()
	quiet := teststore.Quiet()
	st, dir, parent := teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
	c := connectVersion(t, Deps{Store: st, Log: quiet}, Options{}, v)
	return &harness{t: t, dir: dir, parent: parent, store: st, c: c}
}

func (h *harness) call(name string, args map[string]any) *mcp.CallToolResult {
	h.t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	r, err := h.c.CallTool(context.Background(), req)
	if err != nil {
		h.t.Fatalf("%s: protocol error %v", name, err)
	}
	if !r.IsError {
		if err := checkOutput(name, r.StructuredContent); err != nil {
			h.t.Errorf("%s: the result does not match the output schema: %v", name, err)
		}
	}
	return r
}

var outputSchemas = sync.OnceValue(func() map[string]*jsonschema.Schema {
	m := map[string]*jsonschema.Schema{}
	for _, tool := range Catalogue(Deps{}) {
		sch, err := schemacheck.Compile("mem://tools/"+tool.Tool.Name+".out.json", tool.Tool.RawOutputSchema)
		if err != nil {
			panic(tool.Tool.Name + ": output schema: " + err.Error())
		}
		m[tool.Tool.Name] = sch
	}
	return m
})

// checkOutput validates a tool's structured result, as it goes on the
// wire, against the output schema the tool publishes: clients such as the
// TypeScript SDK refuse a result that does not match. Every successful
// call through [harness.call] is checked.
func checkOutput(tool string, structured any) error {
	sch, ok := outputSchemas()[tool]
	if !ok {
		return nil // a tool a test registered itself
	}
	b, err := json.Marshal(structured)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%v\n%s", err, b)
	}
	return nil
}

// ok calls a tool that must succeed and decodes its structured result.
func (h *harness) ok(name string, args map[string]any) map[string]any {
	h.t.Helper()
	r := h.call(name, args)
	if r.IsError {
		h.t.Fatalf("%s failed: %s", name, text(r))
	}
	b, _ := json.Marshal(r.StructuredContent)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

func text(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (h *harness) auditCount() int {
	files, _ := filepath.Glob(filepath.Join(h.dir, ".llmwiki", "audit", "*.jsonl"))
	n := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		n += strings.Count(string(b), "\n")
	}
	return n
}

// state fingerprints everything under the parent folder except the audit log.
func (h *harness) state() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(h.parent, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(h.parent, p)
		if strings.Contains(filepath.ToSlash(rel), ".llmwiki/audit/") {
			return nil
		}
		b, _ := os.ReadFile(p)
		out[rel] = store.SHA256Hex(b)
		return nil
	})
	return out
}

// TestBadInput: each bad input is a clear tool error that names the problem
// without a host path, writes nothing but its one audit line, and leaves the
// session usable.
func TestBadInput(t *testing.T) {
	h := newHarness(t)
	outside := filepath.Join(h.parent, "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(h.dir, "pages", "leak.md"))
	os.Symlink(outside, filepath.Join(h.dir, "pages", "outdir"))
	os.MkdirAll(h.dir+"-evil", 0o755)
	os.WriteFile(filepath.Join(h.dir+"-evil", "keep.md"), []byte("keep\n"), 0o644)
	os.WriteFile(filepath.Join(h.dir, "sources", "raw.md"), []byte("raw\n"), 0o644)
	page := h.ok("write_page", map[string]any{"title": "Topic", "content": "v1\n"})
	h.ok("write_page", map[string]any{"title": "Topic", "content": "v2\n", "base_sha256": page["sha256"]})

	cases := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"slug with ../", "write_page", map[string]any{"title": "x", "slug": "../escape", "content": "x"}, "invalid: slug"},
		{"absolute path (read)", "read_page", map[string]any{"path": "/etc/passwd"}, "invalid: path \"/etc/passwd\" is absolute"},
		{"absolute path (save)", "save_source", map[string]any{"path": "/tmp/evil.md", "content": "x"}, "invalid:"},
		{"symlinked page leading out (read)", "read_page", map[string]any{"path": "pages/leak.md"}, "outside the wiki root"},
		{"symlinked page leading out (write)", "write_page", map[string]any{"title": "leak", "content": "x"}, "invalid:"},
		{"symlinked folder leading out", "save_source", map[string]any{"path": "../pages/outdir/x.md", "content": "x"}, "invalid:"},
		{"sibling with the root's name as prefix", "read_page", map[string]any{"path": "../wiki-evil/keep.md"}, "invalid:"},
		{"overwrite a source", "save_source", map[string]any{"path": "sources/raw.md", "content": "changed"}, "conflict: sources/raw.md already exists"},
		{"stale base_sha256", "write_page", map[string]any{"title": "Topic", "content": "v3", "base_sha256": page["sha256"]}, "conflict: pages/topic.md changed since you read it"},
		{"context over the cap", "atomic_write_context", map[string]any{"content": strings.Repeat("line\n", 401)}, "too_large: content has 401 lines; context.md's cap is 400"},
		{"unknown argument", "read_page", map[string]any{"path": "index.md", "pth": "x"}, "unknown argument 'pth'"},
		{"wrong type", "list_pages", map[string]any{"limit": "ten"}, "argument limit: expected integer"},
		{"integer out of range", "list_pages", map[string]any{"limit": 1e30}, "argument limit: a JSON number 1e+30 does not fit; it must be a whole number"},
		{"missing required argument", "save_source", map[string]any{"content": "x"}, "missing required argument"},
		{"unknown page", "read_page", map[string]any{"page": "nothing here"}, "not_found: page \"nothing here\" not found; use search_wiki or list_pages"},
		{"bad log op", "append_log", map[string]any{"op": "rm", "title": "x"}, "invalid:"},
		{"frontmatter in body", "write_page", map[string]any{"title": "x", "content": "---\ntitle: y\n---\nz"}, "invalid: content starts with a frontmatter block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, audits := h.state(), h.auditCount()
			r := h.call(c.tool, c.args)
			msg := text(r)
			if !r.IsError {
				t.Fatalf("succeeded: %s", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("message %q lacks %q", msg, c.want)
			}
			if strings.Contains(msg, h.parent) || strings.Contains(msg, "goroutine") || strings.Contains(msg, "Go struct") {
				t.Errorf("message leaks a host path or a stack: %q", msg)
			}
			after := h.state()
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s changed", k)
				}
			}
			for k := range after {
				if _, ok := before[k]; !ok {
					t.Errorf("%s was created", k)
				}
			}
			if n := h.auditCount(); n != audits+1 {
				t.Errorf("%d audit lines written, want 1", n-audits)
			}
			// The session goes on.
			h.ok("load_project", nil)
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.md")); string(b) != "secret\n" {
		t.Error("the file outside the root changed")
	}
}

// TestAuditPerCall: every call, read or write, good or bad, leaves one line
// carrying the client's identity.
func TestAuditPerCall(t *testing.T) {
	h := newHarness(t)
	h.ok("load_project", nil)
	h.ok("list_pages", nil)
	h.ok("write_page", map[string]any{"title": "A", "content": "a"})
	h.call("read_page", map[string]any{"page": "missing"})
	files, _ := filepath.Glob(filepath.Join(h.dir, ".llmwiki", "audit", "*.jsonl"))
	var lines []store.AuditRecord
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r store.AuditRecord
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, r)
		}
	}
	if len(lines) != 4 {
		t.Fatalf("%d audit lines, want 4", len(lines))
	}
	tools := []string{lines[0].Tool, lines[1].Tool, lines[2].Tool, lines[3].Tool}
	if strings.Join(tools, ",") != "load_project,list_pages,write_page,read_page" {
		t.Errorf("tools = %v", tools)
	}
	for _, l := range lines {
		if l.Client != "go-test 1" || l.Session == "" {
			t.Errorf("line lacks identity: %+v", l)
		}
	}
	if lines[3].Outcome != "error" || lines[3].Code != store.CodeNotFound {
		t.Errorf("error line: %+v", lines[3])
	}
	if len(lines[2].Writes) != 2 { // the page and index.md
		t.Errorf("write_page writes: %+v", lines[2].Writes)
	}
	if len(lines[0].Reads) == 0 {
		t.Errorf("load_project recorded no reads")
	}
}

// TestInvalidUTF8Argument calls the handler directly: JSON transports turn
// invalid bytes into U+FFFD before a handler runs (the stdio screen answers
// them with a parse error), so only an in-process caller can deliver them.
func TestInvalidUTF8Argument(t *testing.T) {
	h := newHarness(t)
	var wp Tool
	for _, tool := range Catalogue(withLinks(Deps{Store: h.store})) {
		if tool.Tool.Name == "write_page" {
			wp = tool
		}
	}
	before, audits := h.state(), h.auditCount()
	req := mcp.CallToolRequest{}
	req.Params.Name = "write_page"
	req.Params.Arguments = map[string]any{"title": "bad \xff byte", "content": "x"}
	r, err := wp.Handler(context.Background(), req)
	if err != nil || !r.IsError || !strings.Contains(text(r), "invalid: argument title is not valid UTF-8") {
		t.Fatalf("result %v %v", text(r), err)
	}
	if n := h.auditCount(); n != audits+1 {
		t.Errorf("%d audit lines, want 1", n-audits)
	}
	after := h.state()
	if len(after) != len(before) {
		t.Error("files changed")
	}
}
