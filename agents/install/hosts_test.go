package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestContinueUserNeverShadowsConfigJSON: with only the older
// ~/.continue/config.json (or a config.yaml) the user scope writes the block
// file ~/.continue/mcpServers/llmwiki.yaml, leaves the config byte for byte
// and creates no config.yaml, which Continue would load instead.
func TestContinueUserNeverShadowsConfigJSON(t *testing.T) {
	for _, existing := range []string{"config.json", "config.yaml"} {
		t.Run(existing, func(t *testing.T) {
			o, home, _ := setup(t, "continue", ScopeUser)
			dir := filepath.Join(home, ".continue")
			os.MkdirAll(dir, 0o755)
			cfg := filepath.Join(dir, existing)
			orig := []byte("{\"models\": [{\"title\": \"Local\", \"provider\": \"ollama\", \"model\": \"llama3\"}]}\n")
			if existing == "config.yaml" {
				orig = []byte("name: Mine\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Local\n    provider: ollama\n    model: llama3\n")
			}
			os.WriteFile(cfg, orig, 0o600)
			res, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(cfg); !bytes.Equal(b, orig) {
				t.Errorf("%s changed:\n%s", existing, b)
			}
			if existing == "config.json" {
				if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
					t.Error("config.yaml was created; Continue would load it instead of config.json")
				}
			}
			block := filepath.Join(dir, "mcpServers", "llmwiki.yaml")
			b, err := os.ReadFile(block)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Name, Version, Schema string
				McpServers            []struct {
					Name, Type, Command string
					Args                []string
				} `yaml:"mcpServers"`
			}
			if err := yaml.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Schema != "v1" || doc.Name == "" || doc.Version == "" || len(doc.McpServers) != 1 {
				t.Fatalf("block = %+v", doc)
			}
			s := doc.McpServers[0]
			if s.Name != "llmwiki" || s.Type != "stdio" || s.Command != testCommand || strings.Join(s.Args, " ") != "serve --root "+testRoot {
				t.Errorf("server = %+v", s)
			}
			var paths []string
			for _, c := range res.Changes {
				paths = append(paths, c.Path)
			}
			if paths[0] != block {
				t.Errorf("changes = %v, want the block file first", paths)
			}
			if !strings.Contains(strings.Join(res.Notes, "\n"), "Left untouched: "+cfg) {
				t.Errorf("notes = %q, want them to name %s", res.Notes, cfg)
			}
			if strings.Contains(strings.Join(res.Notes, "\n"), "also lists") {
				t.Errorf("notes = %q: no earlier entry to report", res.Notes)
			}
		})
	}
}

// TestClineHosts: every existing Cline settings file is updated and no other
// is created; --host writes only the one it names, creating it; with none
// the VS Code one is created and a note says so.
func TestClineHosts(t *testing.T) {
	gs := func(app string) string {
		return filepath.Join(".config", app, "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
	}
	all := map[string]string{
		"vscode": gs("Code"), "insiders": gs("Code - Insiders"), "vscodium": gs("VSCodium"),
		"cursor": gs("Cursor"), "windsurf": gs("Windsurf"), "cli": filepath.Join(".cline", "data", "settings", "cline_mcp_settings.json"),
	}
	cases := []struct {
		name, host string
		existing   []string
		want       []string // settings files holding llmwiki afterwards
		note       string
	}{
		{"existing ones", "", []string{"cursor", "cli"}, []string{"cursor", "cli"}, ""},
		{"host names one", "windsurf", []string{"cursor"}, []string{"windsurf"}, ""},
		{"none exists", "", nil, []string{"vscode"}, "No Cline settings file exists yet, so VS Code's is created"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, home, _ := setup(t, "cline", ScopeUser)
			o.Host = c.host
			orig := []byte("{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\", \"disabled\": true}\n  }\n}\n")
			for _, h := range c.existing {
				p := filepath.Join(home, all[h])
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, orig, 0o644)
			}
			res, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			written := map[string]bool{}
			for _, c := range res.Changes {
				if filepath.Base(c.Path) == "cline_mcp_settings.json" {
					written[c.Path] = true
				}
			}
			want := map[string]bool{}
			for _, h := range c.want {
				want[h] = true
				p := filepath.Join(home, all[h])
				if !written[p] {
					t.Errorf("%s not among the changes %v", p, written)
				}
				m := decodeJSON(t, mustRead(t, p))
				srv := m["mcpServers"].(map[string]any)
				if e, _ := srv["llmwiki"].(map[string]any); e == nil || e["command"] != testCommand {
					t.Errorf("%s: llmwiki = %v", h, srv["llmwiki"])
				}
				if _, ok := srv["other"]; !ok && contains(c.existing, h) {
					t.Errorf("%s: other server lost", h)
				}
			}
			if len(written) != len(c.want) {
				t.Errorf("wrote %d settings files %v, want %v", len(written), written, c.want)
			}
			for h, rel := range all {
				p := filepath.Join(home, rel)
				if want[h] {
					continue
				}
				b, err := os.ReadFile(p)
				switch {
				case contains(c.existing, h) && !bytes.Equal(b, orig):
					t.Errorf("%s was changed", h)
				case !contains(c.existing, h) && err == nil:
					t.Errorf("%s was created", h)
				}
			}
			if c.note != "" && !strings.Contains(strings.Join(res.Notes, "\n"), c.note) {
				t.Errorf("notes = %q", res.Notes)
			}
		})
	}
	t.Run("unknown host", func(t *testing.T) {
		o, home, _ := setup(t, "cline", ScopeUser)
		o.Host = "emacs"
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "known hosts: vscode, insiders, vscodium, cursor, windsurf, cli") {
			t.Errorf("err = %v", err)
		}
		if entries, _ := os.ReadDir(home); len(entries) != 0 {
			t.Error("a refused host wrote files")
		}
	})
	t.Run("host on another client", func(t *testing.T) {
		o, _, _ := setup(t, "cursor", ScopeUser)
		o.Host = "cli"
		if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "--host applies to cline only") {
			t.Errorf("err = %v", err)
		}
	})
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestContinueUserNotesEarlierEntry: a server llmwiki left in config.yaml by
// an earlier install is reported (not edited), so Continue does not start two.
func TestContinueUserNotesEarlierEntry(t *testing.T) {
	o, home, _ := setup(t, "continue", ScopeUser)
	cfg := filepath.Join(home, ".continue", "config.yaml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	orig := []byte("name: Mine\nmcpServers:\n  - name: llmwiki\n    command: llmwiki\n")
	os.WriteFile(cfg, orig, 0o644)
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), cfg+" also lists a server named llmwiki") {
		t.Errorf("notes = %q", res.Notes)
	}
	if b, _ := os.ReadFile(cfg); !bytes.Equal(b, orig) {
		t.Error("config.yaml changed")
	}
}

// TestClaudeCodeNotePluginIsAnAlternative: the note about the plugin says it
// replaces install claude-code rather than adding to it (README: "instead of
// install claude-code (not both)"), so a user does not end up with two servers.
func TestClaudeCodeNotePluginIsAnAlternative(t *testing.T) {
	o, _, _ := setup(t, "claude-code", ScopeUser)
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes, "\n")
	if !strings.Contains(notes, "instead of this install (not both") || strings.Contains(notes, "adds session hooks too") {
		t.Errorf("plugin note does not say the plugin is the alternative:\n%s", notes)
	}
}
