package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// TestReadmeToolTable fails when the README's tool table differs from the
// registry. Refresh it with: go generate ./cmd/llmwiki
func TestReadmeToolTable(t *testing.T) {
	path := filepath.Join(wikitest.RepoRoot(t), "README.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	list := tools.Catalogue(tools.Deps{})
	changed := false
	for _, block := range []struct{ name, want string }{
		{"tools", toolTable(list)},
		{"toolsets", toolsetTable(list)},
	} {
		begin, end := "<!-- "+block.name+":begin -->\n", "<!-- "+block.name+":end -->"
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Fatalf("README.md lacks the %s:begin/%s:end markers", block.name, block.name)
		}
		if s[i+len(begin):j] == block.want {
			continue
		}
		if *updateReadme {
			s = s[:i+len(begin)] + block.want + s[j:]
			changed = true
			continue
		}
		t.Errorf("README.md's %s table is out of date; run go generate ./cmd/llmwiki\nwant:\n%s", block.name, block.want)
	}
	if changed {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadmeCommands checks the README opens with the two commands a
// newcomer runs, and that .ci/run runs the same test command.
func TestReadmeCommands(t *testing.T) {
	root := wikitest.RepoRoot(t)
	data, _ := os.ReadFile(filepath.Join(root, "README.md"))
	s := string(data)
	if !strings.Contains(s[:min(len(s), 1200)], "go run ./cmd/llmwiki serve") {
		t.Error("README's first lines lack the command that runs the server")
	}
	// .ci/run takes the second line after the marker: a code fence, then
	// the command.
	lines := strings.Split(s, "\n")
	found := false
	for i, l := range lines {
		if strings.TrimSpace(l) != "<!-- test-command -->" {
			continue
		}
		found = true
		if i+2 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") || !strings.Contains(lines[i+2], "go test") {
			t.Error("README's <!-- test-command --> is not followed by a code fence and the go test command")
		}
		break
	}
	if !found {
		t.Error("README lacks the <!-- test-command --> marker")
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "test-command") {
		t.Error(".ci/run does not take its test command from the README")
	}
}

// TestReadmeDocumentsEveryCommand checks the README is the user guide the
// code describes: every CLI command is shown as "llmwiki <name>", and the
// guide's sections are there.
func TestReadmeDocumentsEveryCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, c := range commands() {
		if !strings.Contains(s, "`llmwiki "+c.name) {
			t.Errorf("README does not document the command llmwiki %s", c.name)
		}
	}
	for _, h := range []string{"Install", "Connect an editor", "A first session", "A wiki on disk",
		"Tools", "Prompts", "Modes and toolsets", "CLI commands", "Security model", "Troubleshooting"} {
		if !strings.Contains(s, "\n## "+h+"\n") {
			t.Errorf("README lacks the section ## %s", h)
		}
	}
}
