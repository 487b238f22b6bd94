package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
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

// auditLines reads and parses every audit line of the wiki at root.
func auditLines(t testing.TB, root string) []store.AuditRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	var calls []store.AuditRecord
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
			if line == "" {
				continue
			}
			var c store.AuditRecord
			if err := json.Unmarshal([]byte(line), &c); err != nil {
				t.Fatalf("%s line %d does not parse: %v\n%s", filepath.Base(f), i+1, err, line)
			}
			calls = append(calls, c)
		}
	}
	return calls
}

// tempFiles lists writer temp files under root.
func tempFiles(t testing.TB, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && store.IsTempName(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// waitFor polls cond every 50 ms for up to 15 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
