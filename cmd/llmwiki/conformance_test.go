package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// conformanceScenarios are the server scenarios of the official MCP
// conformance suite (@modelcontextprotocol/conformance, pinned in
// testdata/e2e/package.json) that need no test_* fixtures on the server.
var conformanceScenarios = []string{
	"server-initialize", "ping", "logging-set-level", "tools-list", "resources-list",
	"prompts-list", "server-sse-multiple-streams", "dns-rebinding-protection",
}

// TestHTTPConformance runs those scenarios against `serve --http` on a
// fresh wiki; each must run at least one check and pass every one.
func TestHTTPConformance(t *testing.T) {
	dir := e2eDir(t)
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the conformance suite is not installed (npm ci --prefix testdata/e2e): %v", err)
	}
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := startHTTP(t, root, nil)
	defer p.stop(t)
	summary := regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed`)
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			cmd := exec.Command("node", cli, "server", "--url", p.base+"/mcp", "--scenario", sc)
			cmd.Dir = t.TempDir() // it writes results/ here
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			m := summary.FindSubmatch(out.Bytes())
			if err != nil || m == nil {
				t.Fatalf("conformance %s: %v\n%s", sc, err, out.String())
			}
			passed, _ := strconv.Atoi(string(m[1]))
			if passed == 0 || string(m[3]) != "0" || string(m[1]) != string(m[2]) {
				// 0/0 means the scenario checked nothing: not a pass.
				t.Fatalf("conformance %s: passed %s/%s, %s failed\n%s", sc, m[1], m[2], m[3], out.String())
			}
			t.Logf("%s: passed %s/%s", sc, m[1], m[2])
		})
	}
}
