package tools

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestLoadProjectGit: with git on, a tool's write is a commit authored by
// the client, and load_project's git names the branch and head; with a
// repository that could not open, git says why and so does a warning;
// with git off there is no git object.
func TestLoadProjectGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: this test runs real git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	quiet := teststore.Quiet()

	st, dir, _ := teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
	h := &harness{t: t, dir: dir, store: st, c: connectVersion(t, Deps{Store: st, Log: quiet}, Options{}, "2025-06-18")}
	if lp := h.ok("load_project", nil); lp["git"] != nil {
		t.Errorf("git off: load_project has git %v", lp["git"])
	}

	if _, err := git.Enable(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	r, err := git.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	r.Install()
	h.c = connectVersion(t, Deps{Store: st, Log: quiet, Git: r}, Options{}, "2025-06-18")
	h.ok("write_page", map[string]any{"title": "Raft", "summary": "Consensus.", "content": "Raft.\n"})
	out, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%an|%(trailers:key=Llmwiki-Tool,valueonly,separator=)").Output()
	if err != nil || strings.TrimSpace(string(out)) != "llmwiki (go-test)|write_page" {
		t.Errorf("the write's commit: %q %v", out, err)
	}
	g, _ := h.ok("load_project", nil)["git"].(map[string]any)
	if g["mode"] != "commit" || g["branch"] == "" || len(g["head"].(string)) < 7 || g["uncommitted"] != float64(0) {
		t.Errorf("git = %v", g)
	}

	h.c = connectVersion(t, Deps{Store: st, Log: quiet, GitError: "writes are not committed to git: the wiki is not in a git repository"}, Options{}, "2025-06-18")
	lp := h.ok("load_project", nil)
	g, _ = lp["git"].(map[string]any)
	if g["mode"] != "commit" || !strings.Contains(g["commit_error"].(string), "not in a git repository") {
		t.Errorf("git without a repository = %v", g)
	}
	if w, _ := lp["warnings"].([]any); len(w) == 0 || !strings.Contains(w[len(w)-1].(string), "not committed to git") {
		t.Errorf("warnings = %v", lp["warnings"])
	}
}
