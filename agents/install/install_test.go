package install

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/tailscale/hujson"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden install trees")

const (
	testRoot    = GoldenRoot
	testCommand = GoldenCommand
)

// setup returns options over a fresh home and project.
func setup(t testing.TB, client, scope string) (Options, string, string) {
	t.Helper()
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(project, 0o755)
	return Options{
		Client: client, Scope: scope, Project: project, Home: home, GOOS: "linux",
		Env: func(string) string { return "" }, Root: testRoot, Command: testCommand,
		Tools: tools.Catalogue(tools.Deps{}), Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
	}, home, project
}

// TestGolden compares every file a fresh install writes, per client and
// scope, with testdata/install/golden (refresh: go generate
// ./agents/install), parses each with its format's real parser
// and checks the documented shape, and checks a second run changes nothing.
func TestGolden(t *testing.T) {
	files, err := GoldenFiles(tools.Catalogue(tools.Deps{}))
	if err != nil {
		t.Fatal(err)
	}
	root := wikitest.RepoRoot(t)
	if err := agents.CheckFiles(root, files, *update, GoldenDir); err != nil {
		t.Error(err)
	}
	perClient := map[string]int{}
	for rel, data := range files {
		parts := strings.SplitN(strings.TrimPrefix(rel, GoldenDir+"/"), "/", 2)
		client := parts[0][:strings.LastIndex(parts[0], "-")]
		perClient[parts[0]]++
		checkShape(t, client, parts[1], data)
	}
	for _, client := range Clients() {
		for _, scope := range []string{ScopeProject, ScopeUser} {
			if perClient[client+"-"+scope] == 0 {
				t.Errorf("%s-%s wrote nothing", client, scope)
			}
			o, _, _ := setup(t, client, scope)
			res, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if again.Changed() != 0 || res.Changed() != perClient[client+"-"+scope] || res.Next == "" {
				t.Errorf("%s-%s: first run %d changes (golden has %d), second run %d", client, scope, res.Changed(), perClient[client+"-"+scope], again.Changed())
			}
		}
	}
}

// checkShape parses a written file with its format's real parser and checks
// the keys each client's docs require.
func checkShape(t *testing.T, client, rel string, data []byte) {
	t.Helper()
	base := filepath.Base(rel)
	switch {
	case strings.HasSuffix(base, ".json"):
		std := data
		if client == "vscode" || client == "zed" {
			v, err := hujson.Parse(data)
			if err != nil {
				t.Fatalf("%s: JSONC: %v", rel, err)
			}
			v.Standardize()
			std = v.Pack()
		}
		var m map[string]any
		if err := json.Unmarshal(std, &m); err != nil {
			t.Fatalf("%s: JSON: %v", rel, err)
		}
		switch {
		case base == "settings.local.json":
			if !reflect.DeepEqual(m["enabledMcpjsonServers"], []any{"llmwiki"}) {
				t.Errorf("%s: %v", rel, m)
			}
			return
		case client == "vscode":
			m = dig(t, rel, m, "servers", "llmwiki")
			if m["type"] != "stdio" {
				t.Errorf("%s: type %v", rel, m["type"])
			}
		case client == "zed":
			m = dig(t, rel, m, "context_servers", "llmwiki")
		default:
			m = dig(t, rel, m, "mcpServers", "llmwiki")
		}
		if m["command"] != testCommand || !reflect.DeepEqual(m["args"], []any{"serve", "--root", testRoot}) {
			t.Errorf("%s: server entry %v", rel, m)
		}
	case strings.HasSuffix(base, ".yaml"):
		var m struct {
			Name, Version, Schema string
			MCPServers            []struct{ Name, Command string } `yaml:"mcpServers"`
		}
		if err := yaml.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: YAML: %v", rel, err)
		}
		if m.Name == "" || m.Version == "" || m.Schema != "v1" || len(m.MCPServers) != 1 || m.MCPServers[0].Name != "llmwiki" || m.MCPServers[0].Command != testCommand {
			t.Errorf("%s: %+v", rel, m)
		}
	case base == ".rules" || strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".mdc"):
		fm := map[string]any{}
		if strings.HasPrefix(string(data), "---\n") {
			end := strings.Index(string(data)[4:], "\n---\n")
			if err := yaml.Unmarshal(data[4:4+end], &fm); err != nil {
				t.Fatalf("%s: frontmatter: %v", rel, err)
			}
		}
		var keys []string
		for k := range fm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := map[string]string{
			"claude-code/agents":   "description name tools",
			"claude-code/commands": "argument-hint description",
			"cursor/rules":         "alwaysApply description globs",
			"continue/rules":       "alwaysApply description name",
			"vscode/agents":        "description name tools",
			"windsurf/rules":       "description trigger",
			"windsurf/workflows":   "description",
			"cline/Rules":          "",
			"cline/Workflows":      "",
			"cline/.clinerules":    "",
			"cline/workflows":      "",
			"zed/project":          "",
			"zed/zed":              "",
			"windsurf/memories":    "",
		}[client+"/"+filepath.Base(filepath.Dir(rel))]
		if strings.Join(keys, " ") != want {
			t.Errorf("%s: frontmatter keys %v, want %q", rel, keys, want)
		}
		// Files shared with the person hold llmwiki's text in one marked block.
		if shared := base == ".rules" || base == "AGENTS.md" || base == "global_rules.md"; shared != strings.Contains(string(data), blockBegin) ||
			strings.Count(string(data), blockBeginPrefix) != boolInt(shared) || strings.Count(string(data), blockEnd) != boolInt(shared) {
			t.Errorf("%s: shared file %v, but llmwiki block markers %d/%d", rel, shared, strings.Count(string(data), blockBeginPrefix), strings.Count(string(data), blockEnd))
		}
		if base == "global_rules.md" && len(data) > 6000 {
			t.Errorf("%s: %d bytes, over Windsurf's 6,000-character limit for global rules", rel, len(data))
		}
		if client == "vscode" {
			if _, ok := fm["tools"].([]any); !ok {
				t.Errorf("%s: tools is not a list", rel)
			}
		}
	default:
		t.Errorf("%s: unexpected file", rel)
	}
}

func dig(t *testing.T, rel string, m map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			t.Fatalf("%s: no object at %s", rel, k)
		}
		m = next
	}
	return m
}

// TestMergeExisting starts from realistic configs holding other servers and
// settings, and checks that only llmwiki's keys change, comments survive,
// a backup keeps the old file, and a second run changes no byte.
func TestMergeExisting(t *testing.T) {
	cases := []struct {
		client, scope, fixture string
		target                 func(home, project string) string
		others                 func(t *testing.T, before, after []byte)
	}{
		{"claude-code", ScopeUser, "claude.json", func(h, p string) string { return filepath.Join(h, ".claude.json") }, func(t *testing.T, b, a []byte) {
			sameExcept(t, decodeJSON(t, b), decodeJSON(t, a), "mcpServers", "llmwiki")
		}},
		{"cursor", ScopeProject, "cursor-mcp.json", func(h, p string) string { return filepath.Join(p, ".cursor", "mcp.json") }, func(t *testing.T, b, a []byte) {
			sameExcept(t, decodeJSON(t, b), decodeJSON(t, a), "mcpServers", "llmwiki")
		}},
		{"cline", ScopeUser, "cline_mcp_settings.json", func(h, p string) string {
			return filepath.Join(h, ".config", "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		}, func(t *testing.T, b, a []byte) {
			after := decodeJSON(t, a)
			sameExcept(t, decodeJSON(t, b), after, "mcpServers", "llmwiki")
			e := after["mcpServers"].(map[string]any)["llmwiki"].(map[string]any)
			// Cline's own keys on the entry stay; command and args are ours.
			if e["disabled"] != true || e["timeout"] != 120.0 || !reflect.DeepEqual(e["autoApprove"], []any{"read_page", "load_project"}) || e["command"] != testCommand {
				t.Errorf("entry = %v", e)
			}
		}},
		{"windsurf", ScopeUser, "windsurf-mcp_config.json", func(h, p string) string { return filepath.Join(h, ".codeium", "windsurf", "mcp_config.json") }, func(t *testing.T, b, a []byte) {
			sameExcept(t, decodeJSON(t, b), decodeJSON(t, a), "mcpServers", "llmwiki")
		}},
		{"vscode", ScopeProject, "vscode-mcp.json", func(h, p string) string { return filepath.Join(p, ".vscode", "mcp.json") }, func(t *testing.T, b, a []byte) {
			sameExcept(t, decodeJSONC(t, b), decodeJSONC(t, a), "servers", "llmwiki")
			if !strings.Contains(string(a), "// Servers for this workspace") {
				t.Error("comment lost")
			}
		}},
		{"zed", ScopeUser, "zed-settings.json", func(h, p string) string { return filepath.Join(h, ".config", "zed", "settings.json") }, func(t *testing.T, b, a []byte) {
			before, after := decodeJSONC(t, b), decodeJSONC(t, a)
			ag := after["agent"].(map[string]any)
			delete(before, "agent")
			delete(after, "agent")
			sameExcept(t, before, after, "context_servers", "llmwiki")
			// The agent settings kept their model; the profiles were added.
			if ag["default_model"] == nil || len(ag["profiles"].(map[string]any)) != 5 {
				t.Errorf("agent = %v", ag)
			}
			for _, c := range []string{"// Zed settings", "// fetch pages for the agent"} {
				if !strings.Contains(string(a), c) {
					t.Errorf("comment %q lost", c)
				}
			}
		}},
		{"continue", ScopeProject, "continue-config.yaml", func(h, p string) string { return filepath.Join(p, ".continue", "mcpServers", "llmwiki.yaml") }, func(t *testing.T, b, a []byte) {
			var before, after map[string]any
			yaml.Unmarshal(b, &before)
			if err := yaml.Unmarshal(a, &after); err != nil {
				t.Fatal(err)
			}
			list := after["mcpServers"].([]any)
			if len(list) != 2 || list[0].(map[string]any)["name"] != "Playwright" || list[1].(map[string]any)["name"] != "llmwiki" {
				t.Errorf("mcpServers = %v", list)
			}
			after["mcpServers"] = before["mcpServers"]
			if !reflect.DeepEqual(before, after) {
				t.Errorf("other keys changed:\n%v\n%v", before, after)
			}
			if !strings.Contains(string(a), "# Local models first") {
				t.Error("comment lost")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.client, func(t *testing.T) {
			o, home, project := setup(t, c.client, c.scope)
			target := c.target(home, project)
			orig, err := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "testdata", "install", "existing", c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(target), 0o755)
			os.WriteFile(target, orig, 0o600)
			res, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			var ch *Change
			for i := range res.Changes {
				if res.Changes[i].Path == target {
					ch = &res.Changes[i]
				}
			}
			if ch == nil || ch.Action != "update" || ch.Backup == "" || ch.Diff == "" {
				t.Fatalf("change = %+v", ch)
			}
			if b, _ := os.ReadFile(ch.Backup); string(b) != string(orig) {
				t.Error("backup is not the old file")
			}
			after, _ := os.ReadFile(target)
			if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the old 0600", fi.Mode().Perm())
			}
			c.others(t, orig, after)
			again, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if again.Changed() != 0 {
				t.Errorf("second run changed %d files", again.Changed())
			}
			if now, _ := os.ReadFile(target); string(now) != string(after) {
				t.Error("second run rewrote the file")
			}
			backups, _ := filepath.Glob(target + ".llmwiki-backup-*")
			if len(backups) != 1 {
				t.Errorf("backups = %v", backups)
			}
		})
	}
}

// TestBadInput: refusals change nothing and say why.
func TestBadInput(t *testing.T) {
	unchanged := func(t *testing.T, dirs ...string) func() {
		before := map[string]string{}
		for _, d := range dirs {
			for k, v := range wikitest.TreeHashes(t, d, nil) {
				before[d+"/"+k] = v
			}
		}
		return func() {
			after := map[string]string{}
			for _, d := range dirs {
				for k, v := range wikitest.TreeHashes(t, d, nil) {
					after[d+"/"+k] = v
				}
			}
			if d := wikitest.DiffHashes(before, after); len(d) > 0 {
				t.Errorf("files changed: %v", d)
			}
		}
	}
	t.Run("invalid JSON", func(t *testing.T) {
		o, home, project := setup(t, "cursor", ScopeProject)
		p := filepath.Join(project, ".cursor", "mcp.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}\n"), 0o644)
		check := unchanged(t, home, project)
		_, err := Install(o)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line 4, column 3") || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("invalid JSON in the second file", func(t *testing.T) {
		o, home, project := setup(t, "claude-code", ScopeProject)
		p := filepath.Join(project, ".claude", "settings.local.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{\"permissions\": "), 0o644)
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "settings.local.json") {
			t.Errorf("err = %v", err)
		}
		check()
		if _, err := os.Stat(filepath.Join(project, ".mcp.json")); err == nil {
			t.Error(".mcp.json was written although the run failed")
		}
	})
	t.Run("invalid JSONC", func(t *testing.T) {
		o, home, project := setup(t, "zed", ScopeUser)
		p := filepath.Join(home, ".config", "zed", "settings.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{\n  // ok\n  \"theme\": \"x\" \"y\"\n}\n"), 0o644)
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("invalid YAML", func(t *testing.T) {
		o, home, project := setup(t, "continue", ScopeUser)
		p := filepath.Join(home, ".continue", "mcpServers", "llmwiki.yaml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("name: x\nmcpServers: [\n"), 0o644)
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "not valid YAML") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("symlinked config", func(t *testing.T) {
		o, home, project := setup(t, "claude-code", ScopeUser)
		real := filepath.Join(home, "dotfiles", "claude.json")
		os.MkdirAll(filepath.Dir(real), 0o755)
		os.WriteFile(real, []byte("{}\n"), 0o644)
		os.Symlink(real, filepath.Join(home, ".claude.json"))
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "is a symlink (to "+real+")") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("unwritable folder", func(t *testing.T) {
		o, home, project := setup(t, "cursor", ScopeProject)
		if os.Geteuid() == 0 {
			// root writes anywhere on a normal file system; /proc refuses.
			if runtime.GOOS != "linux" {
				t.Skip("needs a folder root cannot write")
			}
			o.Project = "/proc/self"
		} else {
			os.Chmod(project, 0o555)
			defer os.Chmod(project, 0o755)
		}
		check := unchanged(t, home, project)
		_, err := Install(o)
		if err == nil || !strings.Contains(err.Error(), "not writable") || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("unknown client", func(t *testing.T) {
		o, _, _ := setup(t, "emacs", ScopeProject)
		_, err := Install(o)
		if err == nil || !strings.Contains(err.Error(), "known clients: claude-code, cline, continue, cursor, vscode, windsurf, zed") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("root is a file", func(t *testing.T) {
		o, home, project := setup(t, "cursor", ScopeProject)
		f := filepath.Join(home, "notes.txt")
		os.WriteFile(f, []byte("x"), 0o644)
		o.Root = f
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
			t.Errorf("err = %v", err)
		}
		check()
	})
	t.Run("entry path blocked", func(t *testing.T) {
		o, home, project := setup(t, "cursor", ScopeProject)
		p := filepath.Join(project, ".cursor", "mcp.json")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(`{"mcpServers": ["not", "an", "object"]}`), 0o644)
		check := unchanged(t, home, project)
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), `"mcpServers" is not an object`) {
			t.Errorf("err = %v", err)
		}
		check()
	})
}

func TestDryRun(t *testing.T) {
	o, home, project := setup(t, "vscode", ScopeProject)
	p := filepath.Join(project, ".vscode", "mcp.json")
	orig, _ := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "testdata", "install", "existing", "vscode-mcp.json"))
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, orig, 0o644)
	before := wikitest.TreeHashes(t, project, nil)
	o.DryRun = true
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, project, nil)); len(d) > 0 {
		t.Errorf("dry run wrote %v", d)
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Errorf("dry run wrote into home")
	}
	var diff string
	for _, c := range res.Changes {
		if c.Path == p {
			diff = c.Diff
		}
	}
	for _, want := range []string{"--- a/", "+++ b/", "@@ ", "+    \"llmwiki\": {\n+      \"type\": \"stdio\",", "+      \"command\": \"" + testCommand + "\","} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if res.Changed() != 6 {
		t.Errorf("changed = %d, want 6 (mcp.json and 5 agents)", res.Changed())
	}
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("JSON: %v\n%s", err, b)
	}
	return m
}

func decodeJSONC(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v, err := hujson.Parse(append([]byte(nil), b...)) // Standardize works in place
	if err != nil {
		t.Fatalf("JSONC: %v\n%s", err, b)
	}
	v.Standardize()
	return decodeJSON(t, v.Pack())
}

// sameExcept checks before and after are equal but for the key at path
// (parent, key), and that the entry exists after.
func sameExcept(t *testing.T, before, after map[string]any, parent, key string) {
	t.Helper()
	a := after[parent].(map[string]any)
	if a[key] == nil {
		t.Fatalf("%s.%s missing", parent, key)
	}
	b, _ := before[parent].(map[string]any)
	for k, v := range b {
		if k != key && !reflect.DeepEqual(a[k], v) {
			t.Errorf("%s.%s changed: %v -> %v", parent, k, v, a[k])
		}
	}
	for k, v := range before {
		if k != parent && !reflect.DeepEqual(after[k], v) {
			t.Errorf("%s changed", k)
		}
	}
	if len(after) != len(before)+boolInt(before[parent] == nil) && !(parent == "context_servers") {
		t.Errorf("top-level keys: %d -> %d", len(before), len(after))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUserPathsPerSystem: user-scope files land where each client looks on
// Linux (XDG_CONFIG_HOME honoured), macOS and Windows.
func TestUserPathsPerSystem(t *testing.T) {
	cases := []struct {
		client, goos string
		env          map[string]string
		want         string // relative to home, or absolute under APPDATA
	}{
		{"vscode", "linux", nil, ".config/Code/User/mcp.json"},
		{"vscode", "linux", map[string]string{"XDG_CONFIG_HOME": "XDG"}, "XDG/Code/User/mcp.json"},
		{"vscode", "darwin", nil, "Library/Application Support/Code/User/mcp.json"},
		{"vscode", "windows", map[string]string{"APPDATA": "AppDataX"}, "AppDataX/Code/User/mcp.json"},
		{"cline", "darwin", nil, "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{"zed", "darwin", nil, ".config/zed/settings.json"},
		{"zed", "windows", map[string]string{"APPDATA": "AppDataX"}, "AppDataX/Zed/settings.json"},
		{"cursor", "windows", nil, ".cursor/mcp.json"},
		{"windsurf", "darwin", nil, ".codeium/windsurf/mcp_config.json"},
		{"continue", "windows", nil, ".continue/mcpServers/llmwiki.yaml"},
	}
	for _, c := range cases {
		o, home, _ := setup(t, c.client, ScopeUser)
		o.GOOS = c.goos
		o.DryRun = true
		o.Env = func(k string) string {
			if v := c.env[k]; v != "" {
				return filepath.Join(home, v)
			}
			return ""
		}
		res, err := Install(o)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(home, filepath.FromSlash(c.want))
		if res.Changes[0].Path != want {
			t.Errorf("%s on %s: %s, want %s", c.client, c.goos, res.Changes[0].Path, want)
		}
	}
}
