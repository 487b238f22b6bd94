package plan_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// TestApplyIsOneCommit: with git on, an applied plan (its pages, context.md,
// index.md and its log entry) is one commit, whose subject is the plan's
// log line.
func TestApplyIsOneCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: this test runs real git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	f := newFixture(t, validPlan())
	gitc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = f.dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	ctx := context.Background()
	if _, err := git.Enable(ctx, f.store); err != nil {
		t.Fatal(err)
	}
	r, err := git.Open(ctx, f.store)
	if err != nil {
		t.Fatal(err)
	}
	r.Install()
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	before := gitc("rev-parse", "HEAD")
	call := store.NewCall("apply_plan", "s-plan", nil)
	call.Client = "claude-code 1.0.3"
	if _, err := plan.Apply(store.WithCall(ctx, call), f.store, links.Open(f.store), p.ID, all(p)); err != nil {
		t.Fatal(err)
	}
	if got := gitc("rev-list", "--count", before+"..HEAD"); got != "1" {
		t.Fatalf("the plan made %s commits, want 1", got)
	}
	var want []string
	for _, w := range call.Record().Writes {
		want = append(want, w.Path)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	got := strings.Split(gitc("show", "--name-only", "--format=", "HEAD"), "\n")
	slices.Sort(got)
	if !slices.Equal(got, want) || !slices.Contains(got, "log.md") || !slices.Contains(got, "context.md") {
		t.Errorf("the commit holds %v, want the plan's writes %v", got, want)
	}
	if s := gitc("log", "-1", "--format=%s|%an"); !strings.HasPrefix(s, "ingest | ") || !strings.HasSuffix(s, "|llmwiki (claude-code)") {
		t.Errorf("subject|author = %q", s)
	}
}
