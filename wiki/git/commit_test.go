package git_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// needGit skips a test on a machine without git.
func needGit(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed: the commit tests run real git")
	}
}

// isolate keeps the machine's own git configuration out of a test.
func isolate(tb testing.TB) {
	tb.Helper()
	home := tb.TempDir()
	tb.Setenv("HOME", home)
	tb.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// run runs real git in dir (the test's own view, not the package's).
func run(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GIT_DIR" && k != "GIT_WORK_TREE" && k != "GIT_INDEX_FILE" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(string(out), "\n")
}

type fixture struct {
	top, root string
	st        *wiki.Store
	repo      *git.Repo
}

// newFixture makes a repository at a temp folder (with the identity Ada
// Lovelace unless anon), a wiki at sub inside it ("" for the top), turns
// git on with [git.Enable] and installs the committer.
func newFixture(t *testing.T, sub string, anon bool) *fixture {
	t.Helper()
	needGit(t)
	isolate(t)
	top := t.TempDir()
	run(t, top, "init", "-q", "-b", "main")
	if !anon {
		run(t, top, "config", "user.name", "Ada Lovelace")
		run(t, top, "config", "user.email", "ada@example.org")
	}
	root := filepath.Join(top, sub)
	if _, err := wiki.Init(root); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := git.Enable(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	r, err := git.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	r.Install()
	return &fixture{top: top, root: root, st: st, repo: r}
}

// agentCall is a tool call of claude-code.
func agentCall(tool string) (context.Context, *store.Call) {
	c := store.NewCall(tool, "s-test", nil)
	c.Client = "claude-code 1.0.3"
	return store.WithCall(context.Background(), c), c
}

func (f *fixture) writePage(t *testing.T, ctx context.Context, title, content string) {
	t.Helper()
	if _, err := f.st.WritePage(ctx, wiki.PageInput{Title: title, Summary: "About " + title + ".", Content: content}); err != nil {
		t.Fatal(err)
	}
}

// commits counts the commits of HEAD.
func (f *fixture) commits(t *testing.T) int {
	t.Helper()
	n := 0
	for _, l := range strings.Split(run(t, f.top, "rev-list", "HEAD"), "\n") {
		if l != "" {
			n++
		}
	}
	return n
}

// files lists the paths a commit changed, from the repository's top.
func files(t *testing.T, dir, rev string) []string {
	t.Helper()
	out := run(t, dir, "show", "--name-only", "--format=", "-M", rev)
	var fs []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			fs = append(fs, l)
		}
	}
	slices.Sort(fs)
	return fs
}

// written is the paths call wrote, sorted, with prefix.
func written(call *store.Call, prefix string) []string {
	var out []string
	for _, w := range call.Record().Writes {
		out = append(out, prefix+w.Path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestCommitExactPaths: a page write is one commit of exactly the files it
// wrote; the person's staged and unstaged changes elsewhere stay as they
// were, and the written files are clean in `git status`.
func TestCommitExactPaths(t *testing.T) {
	f := newFixture(t, "", false)
	before := f.commits(t)
	os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("mine\n"), 0o644)
	run(t, f.top, "add", "notes.txt")
	os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("mine, edited\n"), 0o644)
	os.WriteFile(filepath.Join(f.root, "scratch.txt"), []byte("untracked\n"), 0o644)

	ctx, call := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft is a consensus algorithm.\n")
	if got := f.commits(t); got != before+1 {
		t.Fatalf("commits = %d, want %d", got, before+1)
	}
	want := written(call, "")
	if got := files(t, f.top, "HEAD"); !reflect.DeepEqual(got, want) {
		t.Errorf("commit holds %v, want exactly the call's writes %v", got, want)
	}
	if !slices.Contains(want, "pages/raft.md") {
		t.Errorf("the call wrote %v, no page", want)
	}
	if got := run(t, f.top, "diff", "--cached", "--name-only"); got != "notes.txt" {
		t.Errorf("staged = %q, want notes.txt still staged", got)
	}
	if got := run(t, f.top, "status", "--porcelain"); got != "AM notes.txt\n?? scratch.txt" {
		t.Errorf("git status = %q, want only the person's own changes", got)
	}
	if w := call.WarningsSnapshot(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
}

// TestCommitAuthorAndTrailers reads back author, committer, subject and
// trailers of an agent's write and of a person's CLI action.
func TestCommitAuthorAndTrailers(t *testing.T) {
	for _, anon := range []bool{false, true} {
		t.Run(map[bool]string{false: "identity", true: "no identity"}[anon], func(t *testing.T) {
			f := newFixture(t, "", anon)
			ctx, call := agentCall("append_log")
			if _, err := f.st.AppendLog(ctx, wiki.LogInput{Op: "note", Title: "A first note"}); err != nil {
				t.Fatal(err)
			}
			format := "%an|%ae|%cn|%ce|%s|%(trailers:key=Llmwiki-Client,valueonly,separator=)|%(trailers:key=Llmwiki-Session,valueonly,separator=)|%(trailers:key=Llmwiki-Tool,valueonly,separator=)|%(trailers:key=Llmwiki-Audit,valueonly,separator=)"
			got := run(t, f.top, "log", "-1", "--format="+format)
			person, email := "Ada Lovelace", "ada@example.org"
			if anon {
				person, email = "llmwiki", "llmwiki@localhost"
			}
			want := strings.Join([]string{person + " (claude-code)", email, person, email, "note | A first note", "claude-code 1.0.3", "s-test", "append_log", call.Record().ID}, "|")
			if got != want {
				t.Errorf("agent commit:\n got %s\nwant %s", got, want)
			}

			cli := store.NewCall("cli:review", "s-cli", nil)
			ctx = store.WithCall(context.Background(), cli)
			f.writePage(t, ctx, "Paxos", "Paxos.\n")
			got = run(t, f.top, "log", "-1", "--format=%an|%cn|%s|%(trailers:key=Llmwiki-Tool,valueonly,separator=)")
			if !strings.HasPrefix(got, person+"|"+person+"|") || !strings.HasSuffix(got, "|cli:review") {
				t.Errorf("person's commit = %q, want authored by %s alone", got, person)
			}
		})
	}
}

// TestOneCommit: every write inside Store.OneCommit is one commit, made
// when it ends.
func TestOneCommit(t *testing.T) {
	f := newFixture(t, "", false)
	before := f.commits(t)
	ctx, call := agentCall("apply_plan")
	ctx, done := f.st.OneCommit(ctx)
	f.writePage(t, ctx, "Alpha", "A.\n")
	f.writePage(t, ctx, "Beta", "B.\n")
	if _, err := f.st.AppendLog(ctx, wiki.LogInput{Op: "ingest", Title: "Two pages"}); err != nil {
		t.Fatal(err)
	}
	if got := f.commits(t); got != before {
		t.Fatalf("committed before the end: %d commits, want %d", got, before)
	}
	done()
	if got := f.commits(t); got != before+1 {
		t.Fatalf("commits = %d, want %d", got, before+1)
	}
	if got, want := files(t, f.top, "HEAD"), written(call, ""); !reflect.DeepEqual(got, want) {
		t.Errorf("commit holds %v, want %v", got, want)
	}
	if s := run(t, f.top, "log", "-1", "--format=%s"); s != "ingest | Two pages" {
		t.Errorf("subject %q", s)
	}
}

// TestCommitSubfolder: a wiki inside a larger repository commits only
// under its root; the person's files beside it stay as they were.
func TestCommitSubfolder(t *testing.T) {
	f := newFixture(t, "docs/wiki", false)
	for _, p := range files(t, f.top, "HEAD") {
		if !strings.HasPrefix(p, "docs/wiki/") {
			t.Errorf("the first commit holds %s, outside the wiki", p)
		}
	}
	os.WriteFile(filepath.Join(f.top, "main.go"), []byte("package main\n"), 0o644)
	ctx, call := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	if got, want := files(t, f.top, "HEAD"), written(call, "docs/wiki/"); !reflect.DeepEqual(got, want) {
		t.Errorf("commit holds %v, want %v", got, want)
	}
	if got := run(t, f.top, "status", "--porcelain"); got != "?? main.go" {
		t.Errorf("git status = %q", got)
	}
}

// TestCommitIgnoresGitEnvironment: GIT_DIR, GIT_WORK_TREE and
// GIT_INDEX_FILE pointing elsewhere do not move the commits.
func TestCommitIgnoresGitEnvironment(t *testing.T) {
	f := newFixture(t, "", false)
	other := t.TempDir()
	run(t, other, "init", "-q", "-b", "main")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "idx"))
	before := f.commits(t)
	ctx, _ := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_WORK_TREE")
	os.Unsetenv("GIT_INDEX_FILE")
	if got := f.commits(t); got != before+1 {
		t.Errorf("commits = %d, want %d", got, before+1)
	}
	if _, err := os.Stat(filepath.Join(other, "idx")); err == nil {
		t.Error("the other index was written")
	}
	if out, _ := exec.Command("git", "-C", other, "rev-list", "--all").Output(); len(out) != 0 {
		t.Errorf("the other repository got commits: %s", out)
	}
}

// TestOpenWithoutGit: no git on PATH is an error that says what to
// install.
func TestOpenWithoutGit(t *testing.T) {
	needGit(t)
	isolate(t)
	root := t.TempDir()
	if _, err := wiki.Init(root); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t.Setenv("PATH", t.TempDir())
	for name, f := range map[string]func() error{
		"Open":   func() error { _, err := git.Open(context.Background(), st); return err },
		"Enable": func() error { _, err := git.Enable(context.Background(), st); return err },
	} {
		err := f()
		if err == nil || store.CodeOf(err) != store.CodeUnavailable || !strings.Contains(err.Error(), "install git") {
			t.Errorf("%s without git: %v, want unavailable naming what to install", name, err)
		}
	}
}

// setMode rewrites schema.md's git line.
func (f *fixture) setMode(t *testing.T, mode string) {
	t.Helper()
	p := filepath.Join(f.root, "schema.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, git.SetSchemaGit(data, mode), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := f.st.Settings().Git; got != mode {
		t.Fatalf("mode = %s after setting %s", got, mode)
	}
}

// TestModeOff: git: off in schema.md, set while the committer is
// installed, makes no commits; back on, the next write commits.
func TestModeOff(t *testing.T) {
	f := newFixture(t, "", false)
	f.setMode(t, wiki.GitOff)
	before := f.commits(t)
	ctx, _ := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	if got := f.commits(t); got != before {
		t.Errorf("git: off made %d commits", got-before)
	}
	f.setMode(t, wiki.GitCommit)
	f.writePage(t, ctx, "Paxos", "Paxos.\n")
	if got := f.commits(t); got != before+1 {
		t.Errorf("commits = %d, want %d", got, before+1)
	}
}

// TestMoveIsRename: a move's old and new names are one commit git follows.
func TestMoveIsRename(t *testing.T) {
	f := newFixture(t, "", false)
	ctx, _ := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft is a consensus algorithm for replicated logs, with a leader.\n")
	ctx, _ = agentCall("move_page")
	err := f.st.Update(ctx, func(tx *store.Tx) error {
		data, _, err := tx.Read("pages/raft.md")
		if err != nil {
			return err
		}
		if err := tx.Create("pages/raft-consensus.md", data); err != nil {
			return err
		}
		return tx.Delete("pages/raft.md", "")
	})
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, f.top, "log", "--follow", "--format=%s", "--", "pages/raft-consensus.md")
	if n := len(strings.Split(got, "\n")); n != 2 {
		t.Errorf("git log --follow finds %d commits, want 2 (the write and the move):\n%s", n, got)
	}
}

// TestPendingAfterIndexLock: a commit refused by a held index lock leaves
// the write on disk, a warning and a pending commit; the next write, once
// the lock is gone, commits both, in order.
func TestPendingAfterIndexLock(t *testing.T) {
	for _, sub := range []string{"", "docs/wiki"} {
		t.Run("at /"+sub, func(t *testing.T) { testPendingAfterIndexLock(t, sub) })
	}
}

func testPendingAfterIndexLock(t *testing.T, sub string) {
	f := newFixture(t, sub, false)
	prefix := ""
	if sub != "" {
		prefix = sub + "/"
	}
	before := f.commits(t)
	lock := filepath.Join(f.top, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	ctx, call := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	w := call.WarningsSnapshot()
	if len(w) != 1 || w[0] != "the write is on disk but git could not commit it (another git process holds the index lock); the next write commits it" {
		t.Errorf("warnings = %q", w)
	}
	if f.commits(t) != before {
		t.Fatal("committed past the lock")
	}
	st := f.repo.Status(context.Background())
	if st.Uncommitted != 1 || st.CommitError != "another git process holds the index lock" || st.Branch != "main" || st.Head == "" {
		t.Errorf("status = %+v", st)
	}
	os.Remove(lock)
	ctx, call2 := agentCall("write_page")
	f.writePage(t, ctx, "Paxos", "Paxos.\n")
	if got := f.commits(t); got != before+2 {
		t.Fatalf("commits = %d, want %d (the pending one and the new one)", got, before+2)
	}
	if got, want := files(t, f.top, "HEAD~1"), written(call, prefix); !reflect.DeepEqual(got, want) {
		t.Errorf("pending commit holds %v, want %v", got, want)
	}
	if got, want := files(t, f.top, "HEAD"), written(call2, prefix); !reflect.DeepEqual(got, want) {
		t.Errorf("new commit holds %v, want %v", got, want)
	}
	if st := f.repo.Status(context.Background()); st.Uncommitted != 0 || st.CommitError != "" {
		t.Errorf("status after = %+v", st)
	}
	if got := run(t, f.top, "status", "--porcelain"); got != "" {
		t.Errorf("git status = %q", got)
	}
}

// writeHook installs an executable hook.
func writeHook(t *testing.T, top, name, body string) {
	t.Helper()
	p := filepath.Join(top, ".git", "hooks", name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestHooks: hooks off by default (a pre-commit and a post-commit hook
// that write a marker never run); with git_hooks: true a failing
// pre-commit hook keeps the commit pending until it passes.
func TestHooks(t *testing.T) {
	f := newFixture(t, "", false)
	marker := filepath.Join(t.TempDir(), "ran")
	writeHook(t, f.top, "pre-commit", "echo pre >> "+marker)
	writeHook(t, f.top, "post-commit", "echo post >> "+marker)
	ctx, _ := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook ran with hooks off")
	}

	p := filepath.Join(f.root, "schema.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "\ngit: ", "\ngit_hooks: true\ngit: ", 1)), 0o644)
	if !f.st.Settings().GitHooks {
		t.Fatal("git_hooks not read")
	}
	writeHook(t, f.top, "pre-commit", "echo refused >&2; exit 1")
	before := f.commits(t)
	ctx, call := agentCall("write_page")
	f.writePage(t, ctx, "Paxos", "Paxos.\n")
	if w := call.WarningsSnapshot(); len(w) != 1 || !strings.Contains(w[0], "pre-commit hook refused it") {
		t.Errorf("warnings = %q", w)
	}
	if f.commits(t) != before {
		t.Fatal("committed past a failing pre-commit hook")
	}
	writeHook(t, f.top, "pre-commit", "echo pre >> "+marker)
	ctx, _ = agentCall("write_page")
	f.writePage(t, ctx, "Zab", "Zab.\n")
	if got := f.commits(t); got != before+2 {
		t.Fatalf("commits = %d, want %d", got, before+2)
	}
	if got, _ := os.ReadFile(marker); string(got) != "pre\npost\npre\npost\n" {
		t.Errorf("hooks ran %q, want pre and post for each of two commits", got)
	}
}

// TestHeadMovedByPerson: a commit the person made meanwhile is the parent
// of the next one, and nothing of it is lost.
func TestHeadMovedByPerson(t *testing.T) {
	f := newFixture(t, "", false)
	ctx, _ := agentCall("write_page")
	f.writePage(t, ctx, "Raft", "Raft.\n")
	os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("mine\n"), 0o644)
	run(t, f.top, "add", "notes.txt")
	run(t, f.top, "commit", "-q", "-m", "my notes")
	f.writePage(t, ctx, "Paxos", "Paxos.\n")
	if got := run(t, f.top, "log", "-2", "--format=%s"); !strings.HasSuffix(got, "\nmy notes") {
		t.Errorf("log = %q", got)
	}
	if got := run(t, f.top, "ls-tree", "--name-only", "HEAD", "notes.txt"); got != "notes.txt" {
		t.Error("the person's commit was lost")
	}
	if got := run(t, f.top, "status", "--porcelain"); got != "" {
		t.Errorf("git status = %q", got)
	}
}
