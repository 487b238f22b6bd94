package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs real git in dir for a test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

// gitHome gives a test a home without the machine's git configuration.
func gitHome(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: init --git runs real git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

// TestInitGit: init --git in a folder in no repository runs git init
// (branch main), sets git: commit, writes .gitignore and commits the new
// wiki as one commit; the tree is clean after it, and status shows git.
func TestInitGit(t *testing.T) {
	gitHome(t)
	dir := filepath.Join(t.TempDir(), "wiki")
	out, _, err := runIn(t, "", nil, "init", "--git", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"set git: commit in schema.md", "ran git init (branch main)", "wrote .gitignore", "committed "} {
		if !strings.Contains(out, want) {
			t.Errorf("init --git did not say %q:\n%s", want, out)
		}
	}
	if got := gitIn(t, dir, "rev-list", "--count", "HEAD"); got != "1" {
		t.Errorf("%s commits, want 1", got)
	}
	if got := gitIn(t, dir, "symbolic-ref", "--short", "HEAD"); got != "main" {
		t.Errorf("branch %s", got)
	}
	files := gitIn(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	if files != ".gitignore\ncontext.md\nguidelines.md\nindex.md\nlog.md\nschema.md" {
		t.Errorf("first commit holds:\n%s", files)
	}
	if got := gitIn(t, dir, "status", "--porcelain", "--ignored"); got != "!! .llmwiki/" {
		t.Errorf("git status after init = %q, want only .llmwiki/ ignored", got)
	}
	schema, _ := os.ReadFile(filepath.Join(dir, "schema.md"))
	if !strings.Contains(string(schema), "\ngit: commit ") || strings.Contains(string(schema), "git: off") {
		t.Errorf("schema.md's git line not set:\n%s", schema)
	}
	ign, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if !strings.Contains(string(ign), "\n/.llmwiki/\n") || !strings.HasPrefix(string(ign), "# ") {
		t.Errorf(".gitignore:\n%s", ign)
	}
	if a := gitIn(t, dir, "log", "-1", "--format=%an <%ae>|%(trailers:key=Llmwiki-Tool,valueonly,separator=)"); a != "llmwiki <llmwiki@localhost>|cli:init" {
		t.Errorf("author|tool = %q", a)
	}

	out, _, err = runIn(t, "", nil, "status", "--root", dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "git: commit on main at ") {
		t.Errorf("status has no git line:\n%s", out)
	}
	out, _, err = runIn(t, "", nil, "status", "--root", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Git struct {
			Mode, Branch, Head string
			Uncommitted        int
		} `json:"git"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Git.Mode != "commit" || s.Git.Branch != "main" || len(s.Git.Head) < 7 || s.Git.Uncommitted != 0 {
		t.Errorf("status --json git = %+v", s.Git)
	}
}

// TestInitGitExistingWiki: on an existing wiki inside a larger
// repository, init --git edits only schema.md's git line (the person's
// edits stay), runs no git init, and commits only the wiki's files.
func TestInitGitExistingWiki(t *testing.T) {
	gitHome(t)
	top := t.TempDir()
	gitIn(t, top, "init", "-q", "-b", "trunk")
	gitIn(t, top, "config", "user.name", "Ada Lovelace")
	gitIn(t, top, "config", "user.email", "ada@example.org")
	os.WriteFile(filepath.Join(top, "main.go"), []byte("package main\n"), 0o644)
	dir := filepath.Join(top, "docs", "wiki")
	if _, _, err := runIn(t, "", nil, "init", dir); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "schema.md")
	schema, _ := os.ReadFile(p)
	if !strings.Contains(string(schema), "\ngit: off ") {
		t.Fatalf("a new schema.md has no git: off line:\n%s", schema)
	}
	mine := strings.Replace(string(schema), "stale_after_days: 180", "stale_after_days: 90   # mine", 1) + "\nMy own rule.\n"
	os.WriteFile(p, []byte(mine), 0o644)
	out, _, err := runIn(t, "", nil, "init", "--git", dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "git init") {
		t.Errorf("ran git init inside a repository:\n%s", out)
	}
	after, _ := os.ReadFile(p)
	if want := strings.Replace(mine, "\ngit: off   ", "\ngit: commit", 1); string(after) != want {
		t.Errorf("schema.md changed beyond its git line:\n%s", after)
	}
	for _, f := range strings.Split(gitIn(t, top, "ls-tree", "-r", "--name-only", "HEAD"), "\n") {
		if !strings.HasPrefix(f, "docs/wiki/") {
			t.Errorf("committed %s, outside the wiki", f)
		}
	}
	if got := gitIn(t, top, "status", "--porcelain"); got != "?? main.go" {
		t.Errorf("git status = %q", got)
	}
	if a := gitIn(t, top, "log", "-1", "--format=%an"); a != "Ada Lovelace" {
		t.Errorf("author %q", a)
	}
	out, _, err = runIn(t, "", nil, "init", "--git", dir)
	if err != nil || !strings.Contains(out, "already committed") {
		t.Errorf("second init --git: %v\n%s", err, out)
	}
}

// TestInitGitWithoutGit: no git on PATH is a clear error naming what to
// install, before anything is created.
func TestInitGitWithoutGit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	t.Setenv("PATH", t.TempDir())
	_, _, err := runIn(t, "", nil, "init", "--git", dir)
	if err == nil || !strings.Contains(err.Error(), "install git") {
		t.Fatalf("err = %v, want one naming git to install", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("init --git created the wiki without git")
	}
}
