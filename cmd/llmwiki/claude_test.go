package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/agents"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// The real-client checks run the Claude Code CLI (npm @anthropic-ai/
// claude-code, pinned in testdata/claude/package.json; .ci/run installs it)
// offline: a throwaway HOME, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, and
// only commands that need no account (plugin validate, mcp list).

// claudeCLI returns the installed claude binary, or skips (fails under
// CI=true) with the command that installs it.
func claudeCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(wikitest.RepoRoot(t), "testdata", "claude", "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err != nil {
		msg := "the Claude Code CLI is not installed; run: npm ci --prefix testdata/claude"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("skipping: " + msg)
	}
	return bin
}

// claude runs the CLI in dir with a throwaway home and extra environment,
// returning its combined output.
func claude(t *testing.T, bin, home, dir string, extraEnv []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"CI=true",
	}, extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// serverLine returns the line of claude mcp list output about name.
func serverLine(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, name+":") {
			return l
		}
	}
	return ""
}

// llmwikiBin builds llmwiki into a folder of its own, so PATH can hold it.
func llmwikiInstall(t *testing.T, home string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"install", "claude-code"}, args...)...)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llmwiki install: %v\n%s", err, out)
	}
	return string(out)
}

// TestClaudePluginValidate: the plugin and the marketplace in the
// repository pass claude plugin validate --strict.
func TestClaudePluginValidate(t *testing.T) {
	bin := claudeCLI(t)
	root := wikitest.RepoRoot(t)
	home := t.TempDir()
	for _, dir := range []string{filepath.Join(root, agents.PluginDir), root} {
		out := claude(t, bin, home, home, nil, "plugin", "validate", "--strict", dir)
		if !strings.Contains(out, "Validation passed") {
			t.Errorf("validate %s:\n%s", dir, out)
		}
	}
	out := claude(t, bin, home, home, nil, "plugin", "validate", "--strict", filepath.Join(root, agents.PluginDir))
	for _, part := range []string{"agents: llmwiki:wiki-builder", "commands: llmwiki:ingest", "hooks: SessionStart", "mcpServers: llmwiki"} {
		if !strings.Contains(out, part) {
			t.Errorf("plugin does not provide %q:\n%s", part, out)
		}
	}
}

// TestClaudeUserScopeConnects: after llmwiki install claude-code --scope
// user in a throwaway home, claude mcp list shows the server connected, and
// the agents and commands it wrote pass validation.
func TestClaudeUserScopeConnects(t *testing.T) {
	bin := claudeCLI(t)
	home := t.TempDir()
	work := t.TempDir()
	llmwikiInstall(t, home, "--scope", "user", "--root", filepath.Join(home, "wiki"))
	out := claude(t, bin, home, work, nil, "mcp", "list")
	if l := serverLine(out, "llmwiki"); !strings.Contains(l, "✔ Connected") || !strings.Contains(l, "serve --root "+filepath.Join(home, "wiki")) {
		t.Errorf("llmwiki is not connected:\n%s", out)
	}
	out = claude(t, bin, home, work, nil, "plugin", "validate", "--strict", filepath.Join(home, ".claude"))
	if !strings.Contains(out, "Validation passed") {
		t.Errorf("user agents and commands:\n%s", out)
	}
}

// TestClaudeProjectScopeConnects: a project .mcp.json server stays pending
// until the folder is trusted; the install pre-approves it the documented
// way (enabledMcpjsonServers in .claude/settings.local.json), and once the
// trust dialog's answer is recorded (projects.<dir>.hasTrustDialogAccepted
// in ~/.claude.json, as claude writes it) it connects.
func TestClaudeProjectScopeConnects(t *testing.T) {
	bin := claudeCLI(t)
	home := t.TempDir()
	project := filepath.Join(t.TempDir(), "shop-api")
	os.MkdirAll(project, 0o755)
	llmwikiInstall(t, home, "--scope", "project", "--project", project, "--root", filepath.Join(home, "wiki"))
	out := claude(t, bin, home, project, nil, "mcp", "list")
	if l := serverLine(out, "llmwiki"); !strings.Contains(l, "Pending approval") {
		t.Errorf("an untrusted project's server should wait for approval:\n%s", out)
	}
	trust(t, home, project)
	out = claude(t, bin, home, project, nil, "mcp", "list")
	if l := serverLine(out, "llmwiki"); !strings.Contains(l, "✔ Connected") {
		t.Errorf("llmwiki is not connected in the trusted project:\n%s", out)
	}
	out = claude(t, bin, home, project, nil, "plugin", "validate", "--strict", filepath.Join(project, ".claude"))
	if !strings.Contains(out, "Validation passed") {
		t.Errorf("project agents and commands:\n%s", out)
	}
}

// trust records that the person accepted the folder trust dialog for dir.
func trust(t *testing.T, home, dir string) {
	t.Helper()
	path := filepath.Join(home, ".claude.json")
	cfg := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatal(err)
		}
	}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	p, _ := projects[dir].(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	p["hasTrustDialogAccepted"] = true
	projects[dir] = p
	cfg["projects"] = projects
	data, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestClaudePluginDirConnects loads the repository's plugin with
// --plugin-dir and checks its server connects (llmwiki on PATH, the wiki at
// $LLMWIKI_ROOT).
func TestClaudePluginDirConnects(t *testing.T) {
	bin := claudeCLI(t)
	home := t.TempDir()
	root := filepath.Join(home, "wiki")
	path := filepath.Dir(binary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	out := claude(t, bin, home, home, []string{"PATH=" + path, "LLMWIKI_ROOT=" + root},
		"--plugin-dir", filepath.Join(wikitest.RepoRoot(t), agents.PluginDir), "mcp", "list")
	if l := serverLine(out, "plugin:"+agents.PluginName+":"+agents.ServerName); !strings.Contains(l, "✔ Connected") {
		t.Errorf("the plugin's server is not connected:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "schema.md")); err != nil {
		t.Errorf("the plugin's server did not serve the wiki at $LLMWIKI_ROOT: %v", err)
	}
}

// TestClaudeDeclaresElicitation: Claude Code declares the elicitation
// capability (form mode) when it connects, so in review mode before, or for
// propose_changes, llmwiki asks the person in the editor with one form per
// change set rather than leaving the set pending. The server's stdin is
// recorded through a wrapper script.
func TestClaudeDeclaresElicitation(t *testing.T) {
	bin := claudeCLI(t)
	home := t.TempDir()
	root := filepath.Join(home, "wiki")
	rec := filepath.Join(home, "stdin.jsonl")
	wrapper := filepath.Join(home, "llmwiki-recorded")
	script := "#!/bin/sh\ntee '" + rec + "' | '" + binary(t) + "' serve --root '" + root + "'\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	claude(t, bin, home, home, nil, "mcp", "add", "--scope", "user", "llmwiki", wrapper)
	out := claude(t, bin, home, home, nil, "mcp", "list")
	if l := serverLine(out, "llmwiki"); !strings.Contains(l, "✔ Connected") {
		t.Fatalf("llmwiki is not connected:\n%s", out)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Capabilities map[string]json.RawMessage     `json:"capabilities"`
				ClientInfo   struct{ Name, Version string } `json:"clientInfo"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Method != "initialize" {
			continue
		}
		el, ok := m.Params.Capabilities["elicitation"]
		if !ok {
			t.Fatalf("%s %s declared no elicitation capability: %s", m.Params.ClientInfo.Name, m.Params.ClientInfo.Version, line)
		}
		var modes map[string]json.RawMessage
		if err := json.Unmarshal(el, &modes); err != nil {
			t.Fatalf("elicitation capability %s: %v", el, err)
		}
		// An empty object means form mode (the spec's default); otherwise
		// "form" must be there.
		if _, form := modes["form"]; len(modes) > 0 && !form {
			t.Errorf("elicitation capability %s has no form mode", el)
		}
		t.Logf("%s %s declares elicitation %s", m.Params.ClientInfo.Name, m.Params.ClientInfo.Version, el)
		return
	}
	t.Fatalf("no initialize request recorded:\n%s", data)
}
