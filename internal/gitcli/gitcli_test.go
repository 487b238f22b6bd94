package gitcli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func needGit(t *testing.T) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		t.Skip("git is not installed: these tests run real git")
	}
	return p
}

// TestEnvironmentCleaned: variables pointing git at another repository,
// index or identity are dropped; the caller's env is added.
func TestEnvironmentCleaned(t *testing.T) {
	path := needGit(t)
	dir := t.TempDir()
	other := t.TempDir()
	g := &Git{Path: path, Dir: dir}
	if _, err := g.Run(context.Background(), "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "index"))
	t.Setenv("GIT_AUTHOR_NAME", "Mallory")
	out, err := g.RunWith(context.Background(), nil, []string{"GIT_AUTHOR_NAME=Ada"}, "rev-parse", "--absolute-git-dir")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.EvalSymlinks(strings.TrimSpace(string(out))); !strings.HasPrefix(got, mustEval(t, dir)) {
		t.Errorf("git dir %s, want the one in %s", got, dir)
	}
	for _, kv := range g.environ([]string{"GIT_AUTHOR_NAME=Ada"}) {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == "GIT_DIR" || k == "GIT_WORK_TREE" || k == "GIT_INDEX_FILE":
			t.Errorf("%s kept", kv)
		case k == "GIT_AUTHOR_NAME" && v != "Ada":
			t.Errorf("%s kept", kv)
		}
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	e, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestHooksOff: a hook runs only with Hooks set.
func TestHooksOff(t *testing.T) {
	path := needGit(t)
	dir := t.TempDir()
	g := &Git{Path: path, Dir: dir, Env: []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}}
	ctx := context.Background()
	if _, err := g.Run(ctx, "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	if _, err := g.Run(ctx, "commit", "-q", "--allow-empty", "-m", "off"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the hook ran with hooks off")
	}
	g.Hooks = true
	if _, err := g.Run(ctx, "commit", "-q", "--allow-empty", "-m", "on"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the hook did not run with hooks on")
	}
}

// TestErrors: a failing command is an *Error with its exit code and the
// first line of stderr; no git on PATH is ErrNotFound, naming what to
// install.
func TestErrors(t *testing.T) {
	path := needGit(t)
	g := &Git{Path: path, Dir: t.TempDir()}
	_, err := g.Run(context.Background(), "rev-parse", "--verify", "nosuchref")
	var ge *Error
	if !errors.As(err, &ge) || ExitCode(err) != 128 || !strings.HasPrefix(err.Error(), "git rev-parse: fatal: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v (%T)", err, err)
	}
	if ExitCode(errors.New("x")) != -1 {
		t.Error("ExitCode of another error")
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "install git") {
		t.Errorf("Find without git: %v", err)
	}
	if _, err := (&Git{Dir: t.TempDir()}).Run(context.Background(), "version"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run without git: %v", err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		t.Error("PATH still finds git")
	}
}
