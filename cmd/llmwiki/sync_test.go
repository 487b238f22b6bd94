package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/git"
)

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "core.hooksPath=" + os.DevNull}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSyncCommand runs llmwiki sync between two clones of a bare
// repository: text output, then --json, then the refusal with git: off.
func TestSyncCommand(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; llmwiki sync needs the git command line")
	}
	tmp := t.TempDir()
	bare := filepath.Join(tmp, "remote.git")
	gitCmd(t, tmp, "init", "-q", "--bare", bare)
	ada := filepath.Join(tmp, "ada")
	gitCmd(t, tmp, "init", "-q", ada)
	initWiki(t, ada)
	schema := filepath.Join(ada, "schema.md")
	data, _ := os.ReadFile(schema)
	os.WriteFile(schema, git.SetSchemaGit(data, "sync"), 0o644)
	os.WriteFile(filepath.Join(ada, ".gitignore"), []byte("/.llmwiki/\n"), 0o644)
	gitCmd(t, ada, "config", "user.name", "Ada Lovelace")
	gitCmd(t, ada, "config", "user.email", "ada@example.org")
	gitCmd(t, ada, "remote", "add", "origin", bare)
	gitCmd(t, ada, "add", "-A")
	gitCmd(t, ada, "commit", "-q", "-m", "init")
	gitCmd(t, ada, "push", "-q", "-u", "origin", "main")
	bob := filepath.Join(tmp, "bob")
	gitCmd(t, tmp, "clone", "-q", bare, bob)
	gitCmd(t, bob, "config", "user.name", "Bob Babbage")
	gitCmd(t, bob, "config", "user.email", "bob@example.org")
	initWiki(t, bob)

	// Ada edits a page in her editor; llmwiki sync --push commits and pushes it.
	os.WriteFile(filepath.Join(ada, "pages/alpha.md"), []byte("---\ntitle: Alpha\nsummary: A.\n---\nAlpha body.\n"), 0o644)
	out, errb, err := runCLI(t, "", "sync", "--root", ada, "--push")
	if err != nil {
		t.Fatalf("sync: %v\n%s", err, errb)
	}
	for _, want := range []string{"committed 1 file edited outside llmwiki: pages/alpha.md", "origin/main has nothing new", "pushed 1 commit to origin/main"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := gitCmd(t, ada, "log", "-1", "--format=%an|%s", "--", "pages/alpha.md"); got != "Ada Lovelace|sync | outside edits" {
		t.Errorf("commit = %q", got)
	}

	// Bob pulls it, with --json.
	out, errb, err = runCLI(t, "", "sync", "--root", bob, "--json")
	if err != nil {
		t.Fatalf("sync --json: %v\n%s", err, errb)
	}
	var res struct {
		Remote    string   `json:"remote"`
		Fetched   int      `json:"fetched"`
		Changed   []string `json:"changed"`
		Conflicts []any    `json:"conflicts"`
		Warnings  []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.Remote != "origin/main" || res.Fetched < 1 || !strings.Contains(strings.Join(res.Changed, ","), "pages/alpha.md") || res.Conflicts == nil || res.Warnings == nil {
		t.Errorf("json = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(bob, "pages/alpha.md")); err != nil {
		t.Error("the page did not reach bob")
	}

	// git: off refuses, saying what to set.
	off := filepath.Join(tmp, "off")
	initWiki(t, off)
	_, _, err = runCLI(t, "", "sync", "--root", off)
	if err == nil || !strings.Contains(err.Error(), "set git: sync") {
		t.Errorf("git: off: err = %v", err)
	}
}
