package review_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/review"
)

// TestApproveIsOneCommit: with git on, an approved change set (its actions
// and the decision's log entry) is one commit, by the person.
func TestApproveIsOneCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: this test runs real git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	f := newFixture(t)
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
	if _, err := git.Enable(ctx, f.st); err != nil {
		t.Fatal(err)
	}
	r, err := git.Open(ctx, f.st)
	if err != nil {
		t.Fatal(err)
	}
	r.Install()
	if _, err := f.rv.Propose(f.ctx, review.ProposeInput{Takeaways: []string{"gamma is new"}, Actions: f.three(t), Client: "test 1.0", Session: "s-1"}); err != nil {
		t.Fatal(err)
	}
	before := gitc("rev-parse", "HEAD")
	if _, err := f.rv.Approve(f.ctx, "#1", nil, review.ByCLI); err != nil {
		t.Fatal(err)
	}
	if n := gitc("rev-list", "--count", before+"..HEAD"); n != "1" {
		t.Fatalf("the approval made %s commits, want 1", n)
	}
	got := strings.Split(gitc("show", "--name-only", "--format=", "HEAD"), "\n")
	slices.Sort(got)
	if want := []string{"context.md", "index.md", "log.md", "pages/alpha.md", "pages/gamma.md"}; !slices.Equal(got, want) {
		t.Errorf("the commit holds %v, want %v", got, want)
	}
	if s := gitc("log", "-1", "--format=%s|%an|%(trailers:key=Llmwiki-Tool,valueonly,separator=)"); !strings.HasPrefix(s, "review | ") || !strings.HasSuffix(s, "|llmwiki|review:approve") {
		t.Errorf("subject|author|tool = %q", s)
	}
}
