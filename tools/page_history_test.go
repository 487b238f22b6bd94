package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// gitHarness is a harness on a wiki with git: commit in a repository of
// its own. Until the commit half commits each write, the test commits
// with plain git, as that half will: author "Ada Lovelace (agent)",
// llmwiki's trailers in the message.
type gitHarness struct {
	*harness
}

func newGitHarness(t *testing.T) *gitHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the history tests need the git command line")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "schema.md")
	b, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(schema, git.SetSchemaGit(b, "commit"), 0o644)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/.llmwiki/\n"), 0o644)
	g := &gitHarness{harness: &harness{t: t, dir: dir, parent: parent}}
	g.git("init", "-q", "-b", "main")
	g.git("config", "user.name", "Ada Lovelace")
	g.git("config", "user.email", "ada@example.org")
	g.commit("init", "", "")
	quiet := teststore.Quiet()
	st, err := wiki.Open(dir, wiki.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	repo, err := git.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	g.store = st
	g.c = connect(t, Deps{Store: st, Log: quiet, Git: repo}, Options{})
	return g
}

func (g *gitHarness) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// commit commits every change in the wiki (a move is a delete and an add
// in one commit, which git log --follow sees as a rename) and returns the
// commit's full hash.
func (g *gitHarness) commit(subject, agent, tool string) string {
	g.t.Helper()
	g.git("add", "-A")
	msg := subject
	author := "Ada Lovelace <ada@example.org>"
	if agent != "" {
		author = "Ada Lovelace (" + agent + ") <ada@example.org>"
		msg += "\n\nLlmwiki-Client: " + agent + " 1.2.0\nLlmwiki-Session: s-1\nLlmwiki-Tool: " + tool + "\nLlmwiki-Audit: a-1\n"
	}
	g.git("commit", "-q", "--author", author, "-m", msg)
	return strings.TrimSpace(g.git("rev-parse", "HEAD"))
}

// TestPageHistoryGit: after writes, an edit and a move_page (committed as
// the commit half will), page_history on the new name lists the old
// name's commits too; read_page at reads a version under the name it had;
// restore_snapshot with commit brings it back through the audited
// restore; and none of the reads changes the wiki or the repository.
func TestPageHistoryGit(t *testing.T) {
	g := newGitHarness(t)
	v1 := g.ok("write_page", map[string]any{"title": "Raft", "summary": "Consensus", "content": "# Raft\n\nLeader election.\n"})
	c1 := g.commit("create | Raft", "claude-code", "write_page")
	v2 := g.ok("edit_page", map[string]any{"page": "raft", "base_sha256": v1["sha256"], "op": "append", "heading": "Raft", "content": "Log replication."})
	c2 := g.commit("update | Raft", "claude-code", "edit_page")
	g.ok("move_page", map[string]any{"page": "raft", "slug": "raft-consensus"})
	c3 := g.commit("move | raft to raft-consensus", "cursor", "move_page")

	before := g.state()
	h := g.ok("page_history", map[string]any{"page": "raft-consensus"})
	if h["history"] != "git" || h["path"] != "pages/raft-consensus.md" || h["total"] != float64(3) {
		t.Fatalf("page_history: %v", h)
	}
	vs := h["versions"].([]any)
	want := []struct{ commit, path, client, tool, message string }{
		{c3, "pages/raft-consensus.md", "cursor 1.2.0", "move_page", "move | raft to raft-consensus"},
		{c2, "pages/raft.md", "claude-code 1.2.0", "edit_page", "update | Raft"},
		{c1, "pages/raft.md", "claude-code 1.2.0", "write_page", "create | Raft"},
	}
	if len(vs) != len(want) {
		t.Fatalf("versions: %v", vs)
	}
	for i, w := range want {
		v := vs[i].(map[string]any)
		if v["commit"] != w.commit[:12] || v["path"] != w.path || v["client"] != w.client || v["tool"] != w.tool || v["message"] != w.message || v["author"] != "Ada Lovelace" {
			t.Errorf("version %d: %v, want %+v", i, v, w)
		}
	}
	if v := vs[2].(map[string]any); v["sha256"] != v1["sha256"] || v["lines_added"].(float64) < 4 {
		t.Errorf("first version: %v (write_page wrote %v)", v, v1["sha256"])
	}

	// The version before the move, by a 7-digit prefix, under its old name.
	old := g.ok("read_page", map[string]any{"page": "raft-consensus", "at": c2[:7]})
	if old["at"] != c2[:12] || old["path"] != "pages/raft.md" || old["sha256"] != v2["sha256"] || !strings.Contains(old["content"].(string), "Log replication.") {
		t.Errorf("read_page at c2: %v", old)
	}
	first := g.ok("read_page", map[string]any{"path": "pages/raft-consensus.md", "at": c1})
	if first["sha256"] != v1["sha256"] || strings.Contains(first["content"].(string), "Log replication.") {
		t.Errorf("read_page at c1: %v", first)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"page": "raft-consensus", "at": "0000000"}, "page_history"},
		{map[string]any{"page": "raft-consensus", "at": "HEAD~1"}, "page_history"},
		{map[string]any{"page": "raft-consensus", "at": ".llmwiki/snapshots/pages/nope.md/x.md"}, "not a snapshot path"},
	} {
		if res := g.call("read_page", c.args); !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("read_page %v: %s", c.args, text(res))
		}
	}
	if diff := diffStates(before, g.state()); diff != "" {
		t.Errorf("page_history and read_page at changed the wiki or its repository: %s", diff)
	}

	// Restore the first version: the current one is snapshotted first and
	// base_sha256 is honoured.
	cur := g.ok("read_page", map[string]any{"page": "raft-consensus"})
	if res := g.call("restore_snapshot", map[string]any{"path": "raft-consensus", "commit": c1[:8], "base_sha256": v1["sha256"]}); !res.IsError || !strings.Contains(text(res), "changed since you read it") {
		t.Errorf("restore with a stale base_sha256: %s", text(res))
	}
	if res := g.call("restore_snapshot", map[string]any{"path": "raft-consensus", "commit": c1, "snapshot": "x"}); !res.IsError || !strings.Contains(text(res), "not both") {
		t.Errorf("restore with commit and snapshot: %s", text(res))
	}
	r := g.ok("restore_snapshot", map[string]any{"path": "raft-consensus", "commit": c1[:8], "base_sha256": cur["sha256"]})
	if r["commit"] != c1[:12] || r["sha256"] != v1["sha256"] || r["changed"] != true || r["path"] != "pages/raft-consensus.md" || !strings.HasPrefix(r["snapshot"].(string), ".llmwiki/snapshots/pages/raft-consensus.md/") {
		t.Fatalf("restore_snapshot commit: %v", r)
	}
	now := g.ok("read_page", map[string]any{"page": "raft-consensus"})
	if now["sha256"] != v1["sha256"] {
		t.Errorf("after the restore: %v", now["sha256"])
	}
	if last := teststore.LastCall(t, g.dir, "restore_snapshot"); last == nil || len(last.Writes) == 0 || last.Writes[0].Path != "pages/raft-consensus.md" {
		t.Errorf("the restore's audit line: %+v", last)
	}
}

// diffStates names the files that differ between two harness states.
func diffStates(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// TestPageHistorySnapshots: with git off the history is the page on disk
// and its snapshots, paged; read_page at a snapshot reads it under the
// page's path; a commit is refused with what to use instead.
func TestPageHistorySnapshots(t *testing.T) {
	h := newHarness(t)
	sha := ""
	for _, c := range []string{"one\n", "two\n", "three\n"} {
		args := map[string]any{"title": "Topic", "content": c}
		if sha != "" {
			args["base_sha256"] = sha
		}
		sha = h.ok("write_page", args)["sha256"].(string)
	}
	r := h.ok("page_history", map[string]any{"page": "Topic", "limit": 2})
	vs := r["versions"].([]any)
	if r["history"] != "snapshots" || r["total"] != float64(3) || r["next_cursor"] != "2" || len(vs) != 2 {
		t.Fatalf("page_history: %v", r)
	}
	if v := vs[0].(map[string]any); v["current"] != true || v["sha256"] != sha || v["path"] != "pages/topic.md" {
		t.Errorf("current version: %v", v)
	}
	snap := vs[1].(map[string]any)["snapshot"].(string)
	old := h.ok("read_page", map[string]any{"page": "topic", "at": snap})
	if old["at"] != snap || old["path"] != "pages/topic.md" || old["content"] != "two\n" {
		t.Errorf("read_page at a snapshot: %v", old)
	}
	if bare := h.ok("read_page", map[string]any{"at": snap}); bare["content"] != "two\n" {
		t.Errorf("read_page at a snapshot without page: %v", bare)
	}
	rest := h.ok("page_history", map[string]any{"path": "pages/topic.md", "limit": 2, "cursor": r["next_cursor"]})
	if vs := rest["versions"].([]any); len(vs) != 1 || rest["next_cursor"] != nil {
		t.Errorf("second page: %v", rest)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_page", map[string]any{"page": "topic", "at": "abcdef0"}, "git is off"},
		{"restore_snapshot", map[string]any{"path": "topic", "commit": "abcdef0"}, "git on"},
		{"page_history", map[string]any{"page": "no such page"}, "list_pages"},
		{"page_history", map[string]any{"page": "topic", "cursor": "x"}, "cursor"},
		{"page_history", map[string]any{}, "name the page"},
	} {
		if res := h.call(c.tool, c.args); !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %v: %s", c.tool, c.args, text(res))
		}
	}
}
