package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindProjectWiki: the wiki root a project's .mcp.json gives llmwiki,
// read the way Claude Code reads the file.
func TestFindProjectWiki(t *testing.T) {
	env := map[string]string{"HOME": "/home/dev", "WIKI": "/srv/wikis/shop"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		name, mcp, want, err string
	}{
		{"root argument, relative", `{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve","--root","docs/wiki"]}}}`, "PROJECT/docs/wiki", ""},
		{"root=value, variable", `{"mcpServers":{"llmwiki":{"type":"stdio","command":"llmwiki","args":["serve","--root=${WIKI}"]}}}`, "/srv/wikis/shop", ""},
		{"variable default", `{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve","-root","${NOPE:-~/wiki}"]}}}`, "/home/dev/wiki", ""},
		{"env LLMWIKI_ROOT", `{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve"],"env":{"LLMWIKI_ROOT":"/srv/wikis/env"}}}}`, "/srv/wikis/env", ""},
		{"other name, llmwiki command", `{"mcpServers":{"notes":{"command":"/usr/local/bin/llmwiki","args":["serve","--root","/srv/notes"]},"git":{"command":"uvx","args":["mcp-server-git"]}}}`, "/srv/notes", ""},
		{"llmwiki without a root", `{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve"]}}}`, "", ""},
		{"no llmwiki server", `{"mcpServers":{"git":{"command":"uvx","args":["mcp-server-git","--root","/x"]}}}`, "", ""},
		{"no servers", `{}`, "", ""},
		{"two llmwiki servers", `{"mcpServers":{"a":{"command":"llmwiki","args":["serve","--root","/a"]},"b":{"command":"llmwiki","args":["serve","--root","/b"]}}}`, "", "servers a, b all run llmwiki"},
		{"not JSON", `{"mcpServers":`, "", "not valid JSON at line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			project := t.TempDir()
			os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(c.mcp), 0o644)
			sub := filepath.Join(project, "cmd", "api")
			os.MkdirAll(sub, 0o755)
			for _, dir := range []string{project, sub} {
				pw, err := FindProjectWiki(dir, getenv)
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), filepath.Join(project, ".mcp.json")) {
						t.Errorf("from %s: err %v, want %q", dir, err, c.err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got := ""
				if pw != nil {
					got = pw.Root
					if pw.Config != filepath.Join(project, ".mcp.json") {
						t.Errorf("config %s", pw.Config)
					}
				}
				if want := strings.Replace(c.want, "PROJECT", project, 1); got != want {
					t.Errorf("from %s: root %q, want %q", dir, got, want)
				}
			}
		})
	}
	// No .mcp.json up to the file system's root, or no usable folder.
	for _, dir := range []string{t.TempDir(), "", "relative/dir"} {
		if pw, err := FindProjectWiki(dir, getenv); pw != nil || err != nil {
			t.Errorf("%q: %+v %v", dir, pw, err)
		}
	}
}

// TestFindProjectWikiReadsWhatInstallWrites: the entry install claude-code
// writes is the one FindProjectWiki reads.
func TestFindProjectWikiReadsWhatInstallWrites(t *testing.T) {
	o, _, project := setup(t, "claude-code", ScopeProject)
	o.Root = filepath.Join(project, "wiki")
	if _, err := Install(o); err != nil {
		t.Fatal(err)
	}
	pw, err := FindProjectWiki(project, o.Env)
	if err != nil || pw == nil || pw.Root != o.Root {
		t.Errorf("%+v %v, want %s", pw, err, o.Root)
	}
}
