package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

func TestMergeBlock(t *testing.T) {
	block := blockBegin + "\nnew rules\n" + blockEnd + "\n"
	crlf := strings.ReplaceAll(block, "\n", "\r\n")
	cases := []struct{ name, old, want, err string }{
		{"no file", "", block, ""},
		{"blank file", "\n\n", block, ""},
		{"person's rules", "# Mine\n\nUse tabs.\n", "# Mine\n\nUse tabs.\n\n" + block, ""},
		{"no final newline", "Use tabs.", "Use tabs.\n\n" + block, ""},
		{"CRLF file", "Use tabs.\r\n", "Use tabs.\r\n\r\n" + crlf, ""},
		{"stale block between the person's rules", "A\n\n" + blockBegin + "\nold rules\nmore old\n" + blockEnd + "\n\nB\n", "A\n\n" + block + "\nB\n", ""},
		{"block with another comment, indented end", "A\n<!-- llmwiki:begin -->\nold\n  " + blockEnd + "  \nB", "A\n" + block + "B", ""},
		{"current block", "A\n\n" + block, "A\n\n" + block, ""},
		{"begin without end", "A\n" + blockBegin + "\nold\n", "", "begin markers on lines [2], end markers on lines []"},
		{"end before begin", blockEnd + "\n" + blockBegin + "\n", "", "begin markers on lines [2], end markers on lines [1]"},
		{"two blocks", block + block, "", "begin markers on lines [1 4]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := mergeBlock([]byte(c.old), "new rules")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
			again, err := mergeBlock(got, "new rules")
			if err != nil || string(again) != string(got) {
				t.Errorf("second merge changed it: %q, %v", again, err)
			}
		})
	}
}

// TestRulesBlockInstall: Zed's project rules and Windsurf's global rules
// are files the person writes too; install keeps their text byte for byte,
// puts its own in one marked block, and never hides the file Zed reads
// behind a new .rules.
func TestRulesBlockInstall(t *testing.T) {
	mine := "# House rules\r\n\r\nRun `make check` before you push.\r\n"
	cases := []struct {
		name, client, scope string
		setup               func(t *testing.T, home, project string)
		target              func(home, project string) string
		absent              []string // project-relative files that must not appear
		note                string
	}{
		{"zed project with AGENTS.md", "zed", ScopeProject,
			func(t *testing.T, h, p string) { write(t, filepath.Join(p, "AGENTS.md"), mine) },
			func(h, p string) string { return filepath.Join(p, "AGENTS.md") }, []string{".rules"}, "this project has AGENTS.md"},
		{"zed project with .clinerules folder and CLAUDE.md", "zed", ScopeProject,
			func(t *testing.T, h, p string) {
				write(t, filepath.Join(p, ".clinerules", "style.md"), "Cline's own rule\n")
				write(t, filepath.Join(p, "CLAUDE.md"), mine)
			},
			func(h, p string) string { return filepath.Join(p, "CLAUDE.md") }, []string{".rules"}, "this project has CLAUDE.md"},
		{"zed project with .rules", "zed", ScopeProject,
			func(t *testing.T, h, p string) {
				write(t, filepath.Join(p, ".rules"), mine)
				write(t, filepath.Join(p, "AGENTS.md"), "Codex rules\n")
			},
			func(h, p string) string { return filepath.Join(p, ".rules") }, nil, ""},
		{"zed user instructions", "zed", ScopeUser,
			func(t *testing.T, h, p string) { write(t, filepath.Join(h, ".config", "zed", "AGENTS.md"), mine) },
			func(h, p string) string { return filepath.Join(h, ".config", "zed", "AGENTS.md") }, nil, ""},
		{"windsurf global rules", "windsurf", ScopeUser,
			func(t *testing.T, h, p string) {
				write(t, filepath.Join(h, ".codeium", "windsurf", "memories", "global_rules.md"), mine)
			},
			func(h, p string) string {
				return filepath.Join(h, ".codeium", "windsurf", "memories", "global_rules.md")
			}, nil, "6,000 characters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, home, project := setup(t, c.client, c.scope)
			c.setup(t, home, project)
			target := c.target(home, project)
			res, err := Install(o)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(target)
			s := string(data)
			if !strings.HasPrefix(s, mine+"\r\n"+blockBegin+"\r\n# llmwiki\r\n") || !strings.HasSuffix(s, blockEnd+"\r\n") {
				t.Errorf("%s:\n%q", target, s)
			}
			if strings.Count(strings.ReplaceAll(s, "\r\n", ""), "\n") != 0 {
				t.Error("lone LF line endings in a CRLF file")
			}
			var ch *Change
			for i := range res.Changes {
				if res.Changes[i].Path == target {
					ch = &res.Changes[i]
				}
			}
			if ch == nil || ch.Action != "update" || ch.Backup == "" {
				t.Fatalf("change = %+v", ch)
			}
			if b, _ := os.ReadFile(ch.Backup); string(b) != mine {
				t.Error("backup is not the old file")
			}
			for _, f := range c.absent {
				if _, err := os.Stat(filepath.Join(project, f)); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			if c.note != "" && !strings.Contains(strings.Join(res.Notes, "\n"), c.note) {
				t.Errorf("notes %q lack %q", res.Notes, c.note)
			}
			if other := filepath.Join(project, "AGENTS.md"); c.name == "zed project with .rules" {
				if b, _ := os.ReadFile(other); string(b) != "Codex rules\n" {
					t.Errorf("AGENTS.md changed: %q", b)
				}
			}
			// The person edits their part and the block; a second run
			// restores the block only.
			edited := strings.Replace(s, "Run `make check`", "Run `make lint`", 1)
			edited = strings.Replace(edited, "End every wiki task", "Sometimes end a wiki task", 1)
			write(t, target, edited)
			if _, err := Install(o); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(target); string(b) != strings.Replace(s, "Run `make check`", "Run `make lint`", 1) {
				t.Errorf("after the person's edit:\n%q", b)
			}
			again, err := Install(o)
			if err != nil || again.Changed() != 0 {
				t.Errorf("third run: %v, %d changes", err, again.Changed())
			}
		})
	}
}

// TestRulesBlockRefusals: a damaged block or a rules file that is a symlink
// stops the install before anything is written.
func TestRulesBlockRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, project string)
		want  string
	}{
		{"begin without end", func(t *testing.T, p string) {
			write(t, filepath.Join(p, ".rules"), "Mine\n"+blockBegin+"\n# llmwiki\n")
		}, ".rules: the llmwiki block is damaged (begin markers on lines [2], end markers on lines []"},
		{"CLAUDE.md is a symlink", func(t *testing.T, p string) {
			write(t, filepath.Join(p, "docs", "agents.md"), "Shared rules\n")
			if err := os.Symlink(filepath.Join("docs", "agents.md"), filepath.Join(p, "CLAUDE.md")); err != nil {
				t.Skip(err)
			}
		}, "CLAUDE.md is a symlink"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, home, project := setup(t, "zed", ScopeProject)
			c.setup(t, project)
			before := wikitest.TreeHashes(t, filepath.Dir(home), nil)
			_, err := Install(o)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(strings.ToLower(err.Error()), "nothing was changed") {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			after := wikitest.TreeHashes(t, filepath.Dir(home), nil)
			if len(before) != len(after) {
				t.Errorf("files %d -> %d", len(before), len(after))
			}
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s changed", k)
				}
			}
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
