package install

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

// The clients' own tools an llmwiki agent may have besides the llmwiki
// server's, and only when its role needs the web (the researcher).
var (
	// VS Code: https://code.visualstudio.com/docs/agents/reference/custom-agent-file-reference
	// (tool sets like web/fetch; VS Code has no built-in web search tool).
	vscodeWebTools = map[string]bool{"web/fetch": true}
	// Zed: https://zed.dev/docs/ai/tools ("fetch" and "web_search" under
	// Read & Search Tools).
	zedWebTools = map[string]bool{"fetch": true, "web_search": true}
	// zedEditTools are Zed's built-in tools that change files or run
	// commands (https://zed.dev/docs/ai/tools, "Edit Tools"), plus subagent,
	// which starts another agent. Written out here from the docs, not taken
	// from the generator, so a tool the generator forgets fails the test.
	zedEditTools = []string{"copy_path", "create_directory", "delete_path", "edit_file", "move_path", "restore_file_from_disk", "save_file", "terminal", "subagent"}
)

// allowlistRules is what the checks compare an allowlist with: the
// registry the generator uses and what each agent's role allows.
type allowlistRules struct {
	registered map[string]tools.Tool
	roles      map[string]agents.Agent // by client-visible name (wiki-<role>)
}

func newAllowlistRules(list []tools.Tool) allowlistRules {
	r := allowlistRules{registered: map[string]tools.Tool{}, roles: map[string]agents.Agent{}}
	for _, t := range list {
		r.registered[t.Tool.Name] = t
	}
	for _, a := range agents.Agents() {
		r.roles[a.Name()] = a
	}
	return r
}

// checkLLMWikiTool checks one llmwiki tool in agent's allowlist: it is
// registered, and a write tool only when the role names it.
func (r allowlistRules) checkLLMWikiTool(agent, tool string) []string {
	t, ok := r.registered[tool]
	if !ok {
		return []string{fmt.Sprintf("%s allows %s, which is not a registered llmwiki tool", agent, tool)}
	}
	a := r.roles[agent]
	if !t.ReadOnly() && !contains(a.Writes, tool) {
		return []string{fmt.Sprintf("%s allows write tool %s, which its role (%s) does not", agent, tool, a.Role)}
	}
	return nil
}

func (r allowlistRules) webAllowed(agent string) bool {
	a := r.roles[agent]
	return contains(a.Caps, agents.CapWeb)
}

// missingReads lists the registered read-only tools absent from got.
func (r allowlistRules) missingReads(agent string, got map[string]bool) []string {
	var out []string
	for name, t := range r.registered {
		if t.ReadOnly() && !got[name] {
			out = append(out, fmt.Sprintf("%s lacks read tool %s", agent, name))
		}
	}
	sort.Strings(out)
	return out
}

// checkVSCodeAgent parses a VS Code custom agent file (.agent.md) and
// returns its name and every problem of its tools list.
func (r allowlistRules) checkVSCodeAgent(data []byte) (string, []string) {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return "", []string{"no frontmatter"}
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return "", []string{"frontmatter not closed"}
	}
	var fm struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description"`
		Tools       []string `yaml:"tools"`
	}
	dec := yaml.NewDecoder(strings.NewReader(s[4 : 4+end]))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return "", []string{"frontmatter: " + err.Error()}
	}
	if _, ok := r.roles[fm.Name]; !ok {
		return fm.Name, []string{fmt.Sprintf("agent %q is not one of llmwiki's agents", fm.Name)}
	}
	var problems []string
	got := map[string]bool{}
	for _, entry := range fm.Tools {
		server, tool, ok := strings.Cut(entry, "/")
		switch {
		case ok && server == agents.ServerName:
			got[tool] = true
			problems = append(problems, r.checkLLMWikiTool(fm.Name, tool)...)
		case vscodeWebTools[entry] && r.webAllowed(fm.Name):
		default:
			problems = append(problems, fmt.Sprintf("%s allows %s, which is not an llmwiki tool", fm.Name, entry))
		}
	}
	problems = append(problems, r.missingReads(fm.Name, got)...)
	return fm.Name, problems
}

// checkZedProfiles parses a Zed settings.json (JSONC) and returns the
// names of its wiki-* agent profiles and every problem of their tools.
func (r allowlistRules) checkZedProfiles(data []byte) ([]string, []string) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, []string{"JSONC: " + err.Error()}
	}
	v.Standardize()
	var settings struct {
		Agent struct {
			Profiles map[string]struct {
				Name                    string          `json:"name"`
				Tools                   map[string]bool `json:"tools"`
				EnableAllContextServers *bool           `json:"enable_all_context_servers"`
				ContextServers          map[string]struct {
					Tools map[string]bool `json:"tools"`
				} `json:"context_servers"`
			} `json:"profiles"`
		} `json:"agent"`
	}
	if err := json.Unmarshal(v.Pack(), &settings); err != nil {
		return nil, []string{"JSON: " + err.Error()}
	}
	var names, problems []string
	for name, p := range settings.Agent.Profiles {
		if !strings.HasPrefix(name, "wiki-") {
			continue // the person's own profile
		}
		names = append(names, name)
		if _, ok := r.roles[name]; !ok {
			problems = append(problems, fmt.Sprintf("profile %q is not one of llmwiki's agents", name))
			continue
		}
		if p.EnableAllContextServers == nil || *p.EnableAllContextServers {
			problems = append(problems, name+": enable_all_context_servers is not false")
		}
		for _, t := range zedEditTools {
			if on, ok := p.Tools[t]; !ok || on {
				problems = append(problems, fmt.Sprintf("%s: built-in %s is not switched off (false)", name, t))
			}
		}
		for t, on := range p.Tools {
			if on && !(zedWebTools[t] && r.webAllowed(name)) {
				problems = append(problems, fmt.Sprintf("%s allows built-in %s, which is not an llmwiki tool", name, t))
			}
		}
		got := map[string]bool{}
		for server, cs := range p.ContextServers {
			for t, on := range cs.Tools {
				if !on {
					continue
				}
				if server != agents.ServerName {
					problems = append(problems, fmt.Sprintf("%s allows %s of server %s, which is not an llmwiki tool", name, t, server))
					continue
				}
				got[t] = true
				problems = append(problems, r.checkLLMWikiTool(name, t)...)
			}
		}
		problems = append(problems, r.missingReads(name, got)...)
	}
	sort.Strings(names)
	sort.Strings(problems)
	return names, problems
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func agentNames() []string {
	var out []string
	for _, a := range agents.Agents() {
		out = append(out, a.Name())
	}
	sort.Strings(out)
	return out
}

// TestClientAllowlists parses every VS Code custom agent and every Zed
// agent profile a fresh install writes (both scopes) and checks each
// allowlist against the registry the generator uses: every llmwiki tool it
// names is registered, write tools only where the role allows them, every
// read tool present, nothing else but the web tools for the researcher,
// and Zed's built-in edit, terminal and subagent tools switched off.
func TestClientAllowlists(t *testing.T) {
	list := tools.Catalogue(tools.Deps{})
	rules := newAllowlistRules(list)
	files, err := GoldenFiles(list)
	if err != nil {
		t.Fatal(err)
	}
	vscode := map[string][]string{} // scope -> agent names
	zedProfiles := map[string][]string{}
	for rel, data := range files {
		dir := strings.SplitN(strings.TrimPrefix(rel, GoldenDir+"/"), "/", 2)[0]
		switch {
		case strings.HasPrefix(dir, "vscode-") && strings.HasSuffix(rel, ".agent.md"):
			name, problems := rules.checkVSCodeAgent(data)
			for _, p := range problems {
				t.Errorf("%s: %s", rel, p)
			}
			if !strings.HasSuffix(rel, "/"+name+".agent.md") {
				t.Errorf("%s: name %q does not match the file", rel, name)
			}
			vscode[dir] = append(vscode[dir], name)
		case strings.HasPrefix(dir, "zed-") && strings.HasSuffix(rel, "settings.json"):
			names, problems := rules.checkZedProfiles(data)
			for _, p := range problems {
				t.Errorf("%s: %s", rel, p)
			}
			zedProfiles[dir] = names
		}
	}
	want := strings.Join(agentNames(), " ")
	for _, dir := range []string{"vscode-project", "vscode-user", "zed-user"} {
		got := append([]string(nil), vscode[dir]...)
		got = append(got, zedProfiles[dir]...)
		sort.Strings(got)
		if strings.Join(got, " ") != want {
			t.Errorf("%s: agents %v, want %s", dir, got, want)
		}
	}
	// Zed reads agent profiles from user settings only.
	if len(zedProfiles["zed-project"]) != 0 {
		t.Errorf("zed-project wrote profiles %v", zedProfiles["zed-project"])
	}
}

// TestClientAllowlistChecksCatch mutates real generated files and checks
// the allowlist checks above fail for each kind of mistake, so a check
// that passes everything cannot hide behind TestClientAllowlists.
func TestClientAllowlistChecksCatch(t *testing.T) {
	list := tools.Catalogue(tools.Deps{})
	rules := newAllowlistRules(list)
	files, err := GoldenFiles(list)
	if err != nil {
		t.Fatal(err)
	}
	get := func(rel string) string {
		data, ok := files[GoldenDir+"/"+rel]
		if !ok {
			t.Fatalf("no generated %s", rel)
		}
		return string(data)
	}
	librarian := get("vscode-project/project/.github/agents/wiki-librarian.agent.md")
	researcher := get("vscode-project/project/.github/agents/wiki-researcher.agent.md")
	zed := get("zed-user/home/.config/zed/settings.json")
	mustReplace := func(s, old, new string) string {
		t.Helper()
		if !strings.Contains(s, old) {
			t.Fatalf("mutation anchor %q not found", old)
		}
		return strings.Replace(s, old, new, 1)
	}
	vscodeCases := []struct{ name, file, want string }{
		{"unknown llmwiki tool", mustReplace(librarian, "  - llmwiki/read_page\n", "  - llmwiki/read_page\n  - llmwiki/delete_everything\n"), "delete_everything, which is not a registered llmwiki tool"},
		{"write tool the role lacks", mustReplace(librarian, "  - llmwiki/read_page\n", "  - llmwiki/read_page\n  - llmwiki/write_page\n"), "write tool write_page, which its role (librarian) does not"},
		{"client edit tool", mustReplace(librarian, "  - llmwiki/read_page\n", "  - llmwiki/read_page\n  - edit/editFiles\n"), "edit/editFiles, which is not an llmwiki tool"},
		{"web tool for a role without the web", mustReplace(librarian, "  - llmwiki/read_page\n", "  - llmwiki/read_page\n  - web/fetch\n"), "web/fetch, which is not an llmwiki tool"},
		{"another server's tool", mustReplace(researcher, "  - web/fetch\n", "  - web/fetch\n  - github/create_issue\n"), "github/create_issue, which is not an llmwiki tool"},
		{"a read tool missing", mustReplace(librarian, "  - llmwiki/read_page\n", ""), "lacks read tool read_page"},
	}
	for _, c := range vscodeCases {
		_, problems := rules.checkVSCodeAgent([]byte(c.file))
		if !hasProblem(problems, c.want) {
			t.Errorf("vscode, %s: problems %q, want one with %q", c.name, problems, c.want)
		}
	}
	// In the Zed settings the librarian's profile comes first.
	zedCases := []struct{ name, file, want string }{
		{"unknown llmwiki tool", mustReplace(zed, `"read_page": true,`, `"read_page": true, "delete_everything": true,`), "delete_everything, which is not a registered llmwiki tool"},
		{"write tool the role lacks", mustReplace(zed, `"read_page": true,`, `"read_page": true, "write_page": true,`), "wiki-librarian allows write tool write_page"},
		{"built-in edit tool on", mustReplace(zed, `"edit_file": false`, `"edit_file": true`), "wiki-librarian: built-in edit_file is not switched off"},
		{"built-in terminal missing", mustReplace(zed, `"terminal": false`, `"grep": false`), "wiki-librarian: built-in terminal is not switched off"},
		{"built-in read tool on", mustReplace(zed, `"edit_file": false,`, `"edit_file": false, "read_file": true,`), "wiki-librarian allows built-in read_file"},
		{"web for a role without the web", mustReplace(zed, `"edit_file": false,`, `"edit_file": false, "fetch": true,`), "wiki-librarian allows built-in fetch"},
		{"all context servers", mustReplace(zed, `"enable_all_context_servers": false`, `"enable_all_context_servers": true`), "wiki-librarian: enable_all_context_servers is not false"},
	}
	for _, c := range zedCases {
		_, problems := rules.checkZedProfiles([]byte(c.file))
		if !hasProblem(problems, c.want) {
			t.Errorf("zed, %s: problems %q, want one with %q", c.name, problems, c.want)
		}
	}
}

func hasProblem(problems []string, want string) bool {
	for _, p := range problems {
		if strings.Contains(p, want) {
			return true
		}
	}
	return false
}
