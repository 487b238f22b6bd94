package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestInstallCommand(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	os.MkdirAll(home, 0o755)
	os.MkdirAll(project, 0o755)
	envv := map[string]string{"HOME": home}
	args := []string{"install", "cursor", "--project", project, "--root", filepath.Join(home, "wiki"), "--command", "/usr/local/bin/llmwiki"}

	out, _, err := runIn(t, "", envv, append(args, "--dry-run")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"would create", ".cursor/mcp.json", "+++ b/", "+      \"command\": \"/usr/local/bin/llmwiki\",", "Dry run: 2 files would change; nothing was written."} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(project, ".cursor")); err == nil {
		t.Error("dry run wrote files")
	}

	out, _, err = runIn(t, "", envv, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created", "2 files changed.", "Next: Open Cursor Settings", "no wiki at"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runIn(t, "", envv, args...)
	if !strings.Contains(out, "Nothing to change: llmwiki is already installed here.") {
		t.Errorf("second run:\n%s", out)
	}

	if _, _, err := runIn(t, "", envv, "install", "emacs"); err == nil || !strings.Contains(err.Error(), "known clients: claude-code, cline, continue, cursor, vscode, windsurf, zed") {
		t.Errorf("unknown client: %v", err)
	}
	if _, _, err := runIn(t, "", envv, "install"); err == nil || !strings.Contains(err.Error(), "known clients") {
		t.Errorf("no client: %v", err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if _, _, err := runIn(t, "", envv, "install", "zed", "--scope", "user", "--root", file); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("root is a file: %v", err)
	}
	if _, _, err := runIn(t, "", envv, "install", "zed", "--scope", "team"); err == nil || !strings.Contains(err.Error(), `scope "team"`) {
		t.Errorf("bad scope: %v", err)
	}
}

// TestInstallClineHost: --host reaches the installer, and every Cline
// settings file written is printed.
func TestInstallClineHost(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the paths below are the Linux ones")
	}
	home := t.TempDir()
	envv := map[string]string{"HOME": home}
	args := []string{"install", "cline", "--scope", "user", "--root", filepath.Join(home, "wiki"), "--command", "/usr/local/bin/llmwiki"}
	windsurf := filepath.Join(home, ".config", "Windsurf", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
	cli := filepath.Join(home, ".cline", "data", "settings", "cline_mcp_settings.json")
	out, _, err := runIn(t, "", envv, append(args, "--host", "windsurf")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "created      "+windsurf) || strings.Contains(out, "/Code/") {
		t.Errorf("output:\n%s", out)
	}
	os.MkdirAll(filepath.Dir(cli), 0o755)
	os.WriteFile(cli, []byte("{}\n"), 0o644)
	out, _, err = runIn(t, "", envv, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "unchanged    "+windsurf) || !strings.Contains(out, "updated      "+cli) {
		t.Errorf("output:\n%s", out)
	}
	if _, _, err := runIn(t, "", envv, append(args, "--host", "emacs")...); err == nil || !strings.Contains(err.Error(), "known hosts: vscode, insiders") {
		t.Errorf("unknown host: %v", err)
	}
}

// TestInstallProjectShareable: with the built llmwiki on PATH (through a
// link) and the default wiki root, install claude-code writes .mcp.json
// with the command llmwiki and the root ${HOME}/llmwiki, no home path, and
// says so; with the Claude Code plugin recorded it refuses until --force.
func TestInstallProjectShareable(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	home, project, pathDir := filepath.Join(dir, "home"), filepath.Join(dir, "project"), filepath.Join(dir, "bin")
	for _, d := range []string{home, project, pathDir} {
		os.MkdirAll(d, 0o755)
	}
	if err := os.Symlink(bin, filepath.Join(pathDir, "llmwiki")); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"install", "claude-code", "--project", project}, args...)...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + pathDir}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "the wiki path is written as ${HOME}/llmwiki") || !strings.Contains(out, "so the file can be shared") {
		t.Errorf("output does not say how the paths were written:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(project, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if s := m.MCPServers["llmwiki"]; s.Command != "llmwiki" || strings.Join(s.Args, " ") != "serve --root ${HOME}/llmwiki" || strings.Contains(string(data), home) {
		t.Errorf(".mcp.json:\n%s", data)
	}

	plugins := filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
	os.MkdirAll(filepath.Dir(plugins), 0o755)
	os.WriteFile(plugins, []byte(`{"version":2,"plugins":{"llmwiki@llmwiki":[{"scope":"user"}]}}`), 0o644)
	os.RemoveAll(filepath.Join(project, ".claude"))
	out, err = run()
	if err == nil || !strings.Contains(out, "claude plugin uninstall llmwiki@llmwiki") || !strings.Contains(out, "--force") {
		t.Errorf("with the plugin installed: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(project, ".claude")); err == nil {
		t.Error("the refused install wrote .claude/")
	}
	if out, err = run("--force"); err != nil || !strings.Contains(out, "two llmwiki servers") {
		t.Errorf("--force: %v\n%s", err, out)
	}
}
