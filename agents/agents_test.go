package agents

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/mark3labs/mcp-go/mcp"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the generated plugin files")

// TestGeneratedFilesCurrent keeps the committed plugin equal to what the
// registry generates. Refresh with: go generate ./agents
func TestGeneratedFilesCurrent(t *testing.T) {
	root := wikitest.RepoRoot(t)
	files, err := GeneratedFiles(tools.Catalogue(tools.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFiles(root, files, *update, PluginDir); err != nil {
		t.Fatal(err)
	}
}

// agentFile is a parsed Claude Code sub-agent file.
type agentFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Tools       string `yaml:"tools"`
	Body        string `yaml:"-"`
}

func parseAgentFile(t *testing.T, data []byte) agentFile {
	t.Helper()
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatalf("no frontmatter:\n%s", s)
	}
	end := strings.Index(s[4:], "\n---\n")
	var a agentFile
	dec := yaml.NewDecoder(strings.NewReader(s[4 : 4+end]))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	a.Body = s[4+end+5:]
	return a
}

// TestAllowlistsNameRegisteredTools reads the agent files as Claude Code
// would (project form and the committed plugin) and checks that every MCP
// tool in an allowlist is registered under the name the client sees: the
// server name the installer writes, or the plugin form built from the
// plugin's own plugin.json and .mcp.json.
func TestAllowlistsNameRegisteredTools(t *testing.T) {
	list := tools.Catalogue(tools.Deps{})
	registered := map[string]tools.Tool{}
	for _, tl := range list {
		registered[tl.Tool.Name] = tl
	}
	rs, err := Resolve(list)
	if err != nil {
		t.Fatal(err)
	}
	// The plugin's names, from its own manifests on disk.
	root := wikitest.RepoRoot(t)
	var manifest struct {
		Name string `json:"name"`
	}
	readJSON(t, filepath.Join(root, PluginDir, ".claude-plugin", "plugin.json"), &manifest)
	var mcpCfg struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	readJSON(t, filepath.Join(root, PluginDir, ".mcp.json"), &mcpCfg)
	if len(mcpCfg.MCPServers) != 1 {
		t.Fatalf("plugin .mcp.json has %d servers, want 1", len(mcpCfg.MCPServers))
	}
	var pluginServer string
	for k := range mcpCfg.MCPServers {
		pluginServer = k
	}
	forms := map[string]struct {
		prefix string
		files  func(r Resolved) []byte
	}{
		"project": {"mcp__" + ServerName + "__", func(r Resolved) []byte { return ClaudeAgentFile(r, ClaudeToolName) }},
		"plugin": {"mcp__plugin_" + manifest.Name + "_" + pluginServer + "__", func(r Resolved) []byte {
			data, err := os.ReadFile(filepath.Join(root, PluginDir, "agents", r.Name()+".md"))
			if err != nil {
				t.Fatal(err)
			}
			return data
		}},
	}
	for form, f := range forms {
		for _, r := range rs {
			a := parseAgentFile(t, f.files(r))
			if a.Name != r.Name() || a.Description == "" {
				t.Errorf("%s %s: name %q, description %q", form, r.Role, a.Name, a.Description)
			}
			var mcpTools []string
			for _, name := range strings.Split(a.Tools, ", ") {
				for _, bad := range ForbiddenClientTools {
					if name == bad {
						t.Errorf("%s %s has %s, which bypasses the audited writers", form, r.Role, bad)
					}
				}
				if !strings.HasPrefix(name, "mcp__") {
					if !r.HasCap(CapWeb) || (name != "WebSearch" && name != "WebFetch") {
						t.Errorf("%s %s: client tool %q is not allowed", form, r.Role, name)
					}
					continue
				}
				if !strings.HasPrefix(name, f.prefix) {
					t.Errorf("%s %s: %s is not under the name the client sees (%s*)", form, r.Role, name, f.prefix)
					continue
				}
				tool := strings.TrimPrefix(name, f.prefix)
				tl, ok := registered[tool]
				if !ok {
					t.Errorf("%s %s: %s names unregistered tool %s", form, r.Role, name, tool)
					continue
				}
				mcpTools = append(mcpTools, tool)
				if !tl.ReadOnly() && !contains(r.Writes, tool) {
					t.Errorf("%s %s: write tool %s is not one it names", form, r.Role, tool)
				}
			}
			// Every read tool is there.
			for _, tl := range list {
				if tl.ReadOnly() && !contains(mcpTools, tl.Tool.Name) {
					t.Errorf("%s %s lacks read tool %s", form, r.Role, tl.Tool.Name)
				}
			}
			// The body names only tools in the allowlist.
			for name := range registered {
				if strings.Contains(a.Body, "`"+name+"`") && !contains(mcpTools, name) {
					t.Errorf("%s %s: instructions name %s, which it may not call", form, r.Role, name)
				}
			}
		}
	}
}

func TestAgentRoles(t *testing.T) {
	rs, err := Resolve(tools.Catalogue(tools.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Resolved{}
	for _, r := range rs {
		got[r.Role] = r
	}
	for _, role := range []string{"builder", "curator", "researcher", "ingester", "librarian"} {
		if _, ok := got[role]; !ok {
			t.Errorf("agent %s missing", role)
		}
	}
	if got["librarian"].WritesWiki {
		t.Error("the librarian can write")
	}
	for _, w := range []string{"atomic_write_context", "append_log"} {
		if !contains(got["builder"].Tools, w) {
			t.Errorf("builder lacks %s", w)
		}
	}
	if !got["researcher"].HasCap(CapWeb) || contains(got["researcher"].Tools, "write_page") {
		t.Error("researcher: web yes, pages no")
	}
	// Lint state is written by the curator only: the librarian, read-only,
	// cannot hide a finding by dismissing it.
	for _, w := range []string{"submit_lint_findings", "dismiss_lint_findings"} {
		for _, r := range rs {
			if contains(r.Tools, w) != (r.Role == "curator") {
				t.Errorf("%s: %s allowed = %v; only the curator may write lint state", r.Role, w, contains(r.Tools, w))
			}
		}
	}
	if !contains(got["librarian"].Tools, "lint_findings") {
		t.Error("the librarian lacks the read-only lint_findings")
	}
	for _, r := range rs {
		if r.Role != "ingester" && contains(r.Tools, "write_page") {
			t.Errorf("%s can write pages", r.Role)
		}
	}
}

// TestResolveFollowsTheRegistry: a new read tool joins every agent, a new
// write tool joins only agents naming it, a named tool the registry lacks is
// pending and never allowlisted.
func TestResolveFollowsTheRegistry(t *testing.T) {
	mk := func(name string, ro bool) tools.Tool {
		return tools.Tool{Tool: mcp.NewTool(name, mcp.WithReadOnlyHintAnnotation(ro)), Toolset: "core"}
	}
	base := []tools.Tool{
		mk("load_project", true), mk("read_page", true), mk("gather_sources", true),
		mk("write_page", false), mk("append_log", false), mk("atomic_write_context", false),
		mk("research_save", false),
	}
	rs, err := Resolve(base)
	if err != nil {
		t.Fatal(err)
	}
	ing := find(rs, "ingester")
	if !contains(ing.Pending, "edit_page") || contains(ing.Tools, "edit_page") {
		t.Errorf("ingester: pending %v, tools %v", ing.Pending, ing.Tools)
	}
	more := append(base, mk("search_wiki", true), mk("edit_page", false), mk("drop_everything", false))
	rs, err = Resolve(more)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !contains(r.Tools, "search_wiki") {
			t.Errorf("%s did not pick up the new read tool", r.Role)
		}
		if contains(r.Tools, "drop_everything") {
			t.Errorf("%s got a write tool it never named", r.Role)
		}
		if (r.Role == "ingester") != contains(r.Tools, "edit_page") {
			t.Errorf("%s: edit_page allowed = %v", r.Role, contains(r.Tools, "edit_page"))
		}
	}
	if !strings.Contains(find(rs, "ingester").Body, "`edit_page`") {
		t.Error("ingester's instructions do not mention edit_page once it exists")
	}
	if !strings.Contains(find(rs, "librarian").Body, "`search_wiki`") {
		t.Error("librarian's instructions do not use search_wiki once it exists")
	}
	// propose_changes joins the agents that write pages or context.md, and
	// their workflows then ask for one change set.
	rs, err = Resolve(append(more, mk("propose_changes", false)))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		want := r.Role == "ingester" || r.Role == "builder"
		if got := contains(r.Tools, "propose_changes"); got != want {
			t.Errorf("%s: propose_changes allowed = %v, want %v", r.Role, got, want)
		}
		if want && !strings.Contains(r.Body, "`propose_changes`") {
			t.Errorf("%s's instructions do not use propose_changes once it exists", r.Role)
		}
		if got := strings.Contains(r.Body, "never retry a write that came back pending"); got != want {
			t.Errorf("%s: rules of conduct carry the pending rule = %v, want %v", r.Role, got, want)
		}
	}
}

func TestCommands(t *testing.T) {
	roles := map[string]bool{}
	for _, a := range Agents() {
		roles[a.Role] = true
	}
	var names []string
	for _, c := range Commands() {
		names = append(names, c.Name)
		if !roles[c.Agent] {
			t.Errorf("command %s hands work to unknown agent %s", c.Name, c.Agent)
		}
		f := string(ClaudeCommandFile(c, "wiki-"+c.Agent))
		if !strings.Contains(f, "$ARGUMENTS") || !strings.Contains(f, "wiki-"+c.Agent) {
			t.Errorf("command %s:\n%s", c.Name, f)
		}
		// The workflows that write pages or context.md pass on what awaits
		// the person's review and how to review it.
		if reviews := c.Name == "ingest" || c.Name == "build"; reviews != strings.Contains(f, "`llmwiki review`") {
			t.Errorf("command %s names llmwiki review = %v:\n%s", c.Name, !reviews, f)
		}
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "build ingest lint query research" {
		t.Errorf("commands = %v", names)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func find(rs []Resolved, role string) Resolved {
	for _, r := range rs {
		if r.Role == role {
			return r
		}
	}
	return Resolved{}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var _ = bytes.Equal
