package main

import (
	"os"
	"path/filepath"
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
