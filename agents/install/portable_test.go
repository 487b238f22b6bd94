package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

// expandAs expands a shared file's server argument the way client does:
// Claude Code its ${VAR} from the environment, with a relative path taken
// from the project folder it starts the server in; VS Code and Cursor
// ${workspaceFolder} and ${userHome}; Zed nothing, starting the server in
// the project folder, where llmwiki expands a leading ~/ itself; Continue
// like Zed (no variables, servers started in the workspace folder).
func expandAs(client, arg, home, project string) string {
	switch client {
	case "zed", "continue":
		if rest, ok := strings.CutPrefix(arg, "~/"); ok {
			arg = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(arg) {
			arg = filepath.Join(project, arg)
		}
		return filepath.Clean(arg)
	case "claude-code":
		arg = expandVars(arg, func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		})
		if !filepath.IsAbs(arg) {
			arg = filepath.Join(project, arg)
		}
		return filepath.Clean(arg)
	}
	arg = strings.NewReplacer("${workspaceFolder}", project, "${userHome}", home).Replace(arg)
	return filepath.Clean(arg)
}

// TestProjectFilesShareable: a project-scope install, with llmwiki on PATH
// and the wiki in the project or at the default ~/llmwiki, writes no file
// into the project that holds the installing user's home path, and the
// server arguments, expanded as the client expands them, point at the
// wiki. The user scope keeps absolute paths.
func TestProjectFilesShareable(t *testing.T) {
	servers := map[string]struct {
		file string
		keys []string
	}{
		"claude-code": {".mcp.json", []string{"mcpServers", "llmwiki"}},
		"cursor":      {".cursor/mcp.json", []string{"mcpServers", "llmwiki"}},
		"vscode":      {".vscode/mcp.json", []string{"servers", "llmwiki"}},
		"zed":         {".zed/settings.json", []string{"context_servers", "llmwiki"}},
		"continue":    {".continue/mcpServers/llmwiki.yaml", nil},
	}
	for _, client := range Clients() {
		for _, where := range []string{"in project", "default ~/llmwiki", "project itself"} {
			t.Run(client+"/"+where, func(t *testing.T) {
				o, home, project := setup(t, client, ScopeProject)
				o.Command, o.OnPath = filepath.Join(home, "go", "bin", "llmwiki"), true
				switch where {
				case "in project":
					o.Root = filepath.Join(project, "docs", "wiki")
				case "default ~/llmwiki":
					o.Root = filepath.Join(home, "llmwiki")
				default:
					o.Root = project
				}
				res, err := Install(o)
				if err != nil {
					t.Fatal(err)
				}
				err = filepath.WalkDir(project, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					if strings.Contains(string(data), home) {
						t.Errorf("%s holds the home path %s:\n%s", p, home, data)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				sv, ok := servers[client]
				if !ok {
					return
				}
				data, err := os.ReadFile(filepath.Join(project, sv.file))
				if err != nil {
					t.Fatal(err)
				}
				var entry map[string]any
				if client == "continue" {
					var block struct {
						McpServers []map[string]any `yaml:"mcpServers"`
					}
					if err := yaml.Unmarshal(data, &block); err != nil || len(block.McpServers) != 1 {
						t.Fatalf("%s: %v, %s", sv.file, err, data)
					}
					entry = block.McpServers[0]
				} else {
					v, err := hujson.Parse(data)
					if err != nil {
						t.Fatal(err)
					}
					v.Standardize()
					var m map[string]any
					if err := json.Unmarshal(v.Pack(), &m); err != nil {
						t.Fatal(err)
					}
					entry = dig(t, sv.file, m, sv.keys...)
				}
				args, _ := entry["args"].([]any)
				if entry["command"] != "llmwiki" || len(args) != 3 || args[0] != "serve" || args[1] != "--root" {
					t.Fatalf("%s: server entry %v", sv.file, entry)
				}
				if got := expandAs(client, args[2].(string), home, project); got != o.Root {
					t.Errorf("%s: --root %q expands to %s, want %s", sv.file, args[2], got, o.Root)
				}
				if !strings.Contains(strings.Join(res.Notes, "\n"), "so the file can be shared") {
					t.Errorf("no note says how the paths were written: %q", res.Notes)
				}
			})
		}
	}

	// A wiki outside home and project, and a command not on PATH, stay
	// absolute; so does everything at user scope.
	o, _, project := setup(t, "claude-code", ScopeProject)
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(project, ".mcp.json"))
	var m map[string]any
	json.Unmarshal(data, &m)
	entry := dig(t, ".mcp.json", m, "mcpServers", "llmwiki")
	if entry["command"] != testCommand || !reflect.DeepEqual(entry["args"], []any{"serve", "--root", testRoot}) {
		t.Errorf("outside home and project: %v", entry)
	}
	// Continue says so, naming what stays absolute.
	o, _, _ = setup(t, "continue", ScopeProject)
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(res.Notes, "\n"); !strings.Contains(notes, "cannot be shared") || !strings.Contains(notes, testRoot) {
		t.Errorf("continue, outside home and project: no note says the file cannot be shared: %q", res.Notes)
	}
	o, home, _ := setup(t, "claude-code", ScopeUser)
	o.Root, o.OnPath = filepath.Join(home, "llmwiki"), true
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
	json.Unmarshal(data, &m)
	entry = dig(t, ".claude.json", m, "mcpServers", "llmwiki")
	if entry["command"] != testCommand || !reflect.DeepEqual(entry["args"], []any{"serve", "--root", o.Root}) {
		t.Errorf("user scope: %v", entry)
	}
}

// TestClaudePluginInstalled: install claude-code refuses, changing
// nothing, when Claude Code records the llmwiki plugin as installed or
// enabled, names the way out, and installs with Force.
func TestClaudePluginInstalled(t *testing.T) {
	cases := []struct {
		name, file, data string
		refuse           bool
	}{
		{"installed v2", ".claude/plugins/installed_plugins.json", `{"version":2,"plugins":{"llmwiki@llmwiki":[{"scope":"user","installPath":"/x","version":"0.1.0"}]}}`, true},
		{"installed v1", ".claude/plugins/installed_plugins.json", `{"version":1,"plugins":{"llmwiki@team-tools":{"version":"0.1.0"}}}`, true},
		{"enabled in user settings", ".claude/settings.json", `{"enabledPlugins":{"llmwiki@llmwiki":true}}`, true},
		{"disabled in user settings", ".claude/settings.json", `{"enabledPlugins":{"llmwiki@llmwiki":false}}`, false},
		{"another plugin", ".claude/plugins/installed_plugins.json", `{"version":2,"plugins":{"llmwiki-extras@x":[{}],"other@llmwiki":[{}]}}`, false},
		{"unparsable record", ".claude/plugins/installed_plugins.json", `{"plugins":`, false},
	}
	for _, scope := range []string{ScopeProject, ScopeUser} {
		for _, tc := range cases {
			t.Run(scope+"/"+tc.name, func(t *testing.T) {
				o, home, project := setup(t, "claude-code", scope)
				path := filepath.Join(home, tc.file)
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(tc.data), 0o644)
				_, err := Install(o)
				if !tc.refuse {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), "plugin") || !strings.Contains(err.Error(), "claude plugin uninstall llmwiki@") || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "Nothing was changed") {
					t.Fatalf("want a refusal naming the plugin, uninstall and --force; got %v", err)
				}
				for _, p := range []string{filepath.Join(project, ".mcp.json"), filepath.Join(project, ".claude", "agents"), filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "agents")} {
					if _, err := os.Stat(p); err == nil {
						t.Errorf("%s was written despite the refusal", p)
					}
				}
				o.Force = true
				res, err := Install(o)
				if err != nil {
					t.Fatal(err)
				}
				if res.Changed() == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "two llmwiki servers") {
					t.Errorf("forced install: %d changes, notes %q", res.Changed(), res.Notes)
				}
			})
		}
	}
	// A project that enables the plugin for the team counts too.
	o, _, project := setup(t, "claude-code", ScopeProject)
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(project, ".claude", "settings.json"), []byte(`{"enabledPlugins":{"llmwiki@llmwiki":true}}`), 0o644)
	if _, err := Install(o); err == nil || !strings.Contains(err.Error(), filepath.Join(project, ".claude", "settings.json")) {
		t.Errorf("project-enabled plugin: %v", err)
	}
}
