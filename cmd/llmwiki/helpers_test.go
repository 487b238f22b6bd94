package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// binary builds cmd/llmwiki once per test process and returns its path.
func binary(t testing.TB) string {
	t.Helper()
	wikitest.SkipShort(t, "end-to-end (built binary)")
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "llmwiki-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "llmwiki")
		cmd := exec.Command("go", "build", "-o", builtBin, ".")
		cmd.Stderr = os.Stderr
		buildErr = cmd.Run()
	})
	if buildErr != nil {
		t.Fatalf("build llmwiki: %v", buildErr)
	}
	return builtBin
}

// e2eDir returns testdata/e2e with its npm packages installed, or skips (fails
// under CI=true) with the command that installs them.
func e2eDir(t testing.TB) string {
	t.Helper()
	wikitest.SkipShort(t, "end-to-end (node client)")
	dir := filepath.Join(wikitest.RepoRoot(t), "testdata", "e2e")
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed")
		}
		t.Skip("skipping: node is not installed (the end-to-end tests use the official TypeScript MCP SDK)")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		msg := "the end-to-end client is not installed; run: npm ci --prefix testdata/e2e"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("skipping: " + msg)
	}
	return dir
}

// node runs a script of testdata/e2e and returns its stdout.
func node(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	dir := e2eDir(t)
	cmd := exec.Command("node", append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s\nstdout:\n%s", script, err, errb.String(), out.String())
	}
	return out.Bytes()
}

// initWiki creates a wiki at dir with llmwiki init, in-process.
func initWiki(t testing.TB, dir string) {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"init", dir}, strings.NewReader(""), &out, &errb); err != nil {
		t.Fatalf("init: %v\n%s", err, errb.String())
	}
}
