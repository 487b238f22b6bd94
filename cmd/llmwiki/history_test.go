package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
)

// TestHistoryCommand: llmwiki history lists a page's versions for a
// person, from snapshots with git off and from commits (following a
// move) with git on, as a table and as page_history's JSON.
func TestHistoryCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := ""
	for _, body := range []string{"first\n", "second\n"} {
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Topic", Content: body, BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = w.SHA256
	}
	st.Close()

	out, _, err := runCLI(t, "", "history", "topic", "--root", root)
	if err != nil || !strings.Contains(out, "current (pages/topic.md)") || !strings.Contains(out, ".llmwiki/snapshots/pages/topic.md/") {
		t.Errorf("history with git off: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "history", "--json", "--limit", "1", "topic", "--root", root)
	var h struct {
		History    string           `json:"history"`
		Path       string           `json:"path"`
		Versions   []map[string]any `json:"versions"`
		NextCursor string           `json:"next_cursor"`
		Total      int              `json:"total"`
		Warnings   []string         `json:"warnings"`
	}
	if err != nil || json.Unmarshal([]byte(out), &h) != nil || h.History != "snapshots" || h.Total != 2 || len(h.Versions) != 1 || h.NextCursor != "1" || h.Warnings == nil {
		t.Errorf("history --json with git off: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "", "history", "--root", root); err == nil {
		t.Error("history without a page: no error")
	}
	if _, _, err := runCLI(t, "", "history", "nonesuch", "--root", root); err == nil || !strings.Contains(err.Error(), "list_pages") {
		t.Errorf("history of an unknown page: %v", err)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the git half of the history command needs it")
	}
	schema := filepath.Join(root, "schema.md")
	b, _ := os.ReadFile(schema)
	os.WriteFile(schema, git.SetSchemaGit(b, "commit"), 0o644)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/.llmwiki/\n"), 0o644)
	gitc := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitc("init", "-q", "-b", "main")
	gitc("config", "user.name", "Ada Lovelace")
	gitc("config", "user.email", "ada@example.org")
	gitc("add", "-A")
	gitc("commit", "-q", "--author", "Ada Lovelace (claude-code) <ada@example.org>", "-m", "create | Topic", "-m", "Llmwiki-Client: claude-code 1.2.0\nLlmwiki-Tool: write_page")
	gitc("mv", "pages/topic.md", "pages/subject.md")
	gitc("commit", "-q", "-m", "move | topic to subject")

	out, _, err = runCLI(t, "", "history", "subject", "--root", root)
	if err != nil || !strings.Contains(out, "move | topic to subject") || !strings.Contains(out, "create | Topic  [pages/topic.md]") || !strings.Contains(out, "claude-code 1.2.0") {
		t.Errorf("history with git on: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", "history", "--json", "pages/subject.md", "--root", root)
	h.Versions = nil
	if err != nil || json.Unmarshal([]byte(out), &h) != nil || h.History != "git" || h.Total != 2 || len(h.Versions) != 2 || h.Versions[1]["path"] != "pages/topic.md" || h.Versions[1]["tool"] != "write_page" {
		t.Errorf("history --json with git on: %v\n%s", err, out)
	}
}
