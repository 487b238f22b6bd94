package git

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// gitRepo is a wiki in a git repository made with plain git commands, as
// the commit half will make them: author "Ada Lovelace (claude-code)",
// llmwiki's trailers in the message.
type gitRepo struct {
	t        testing.TB
	top, dir string // the repository's top and the wiki's root
	st       *wiki.Store
	repo     *Repo
}

// newGitRepo makes a wiki with git: commit at sub under a new repository
// (sub "" : the wiki is the whole repository) and commits it.
func newGitRepo(t testing.TB, sub string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the history tests need the git command line")
	}
	top := t.TempDir()
	dir := filepath.Join(top, sub)
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	schema := filepath.Join(dir, "schema.md")
	b, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, SetSchemaGit(b, "commit"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/.llmwiki/\n"), 0o644)
	g := &gitRepo{t: t, top: top, dir: dir}
	g.git("init", "-q", "-b", "main")
	g.git("config", "user.name", "Ada Lovelace")
	g.git("config", "user.email", "ada@example.org")
	g.git("add", "-A")
	g.git("commit", "-q", "-m", "init")
	st, err := wiki.Open(dir, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g.st = st
	if g.repo, err = Open(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	return g
}

// git runs git in the repository's top with a fixed clock and returns its
// output.
func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = g.top
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2026-05-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-05-01T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// write puts content at rel (from the wiki root).
func (g *gitRepo) write(rel, content string) {
	g.t.Helper()
	p := filepath.Join(g.dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

// commit commits everything under the wiki as an agent write: subject,
// author "Ada Lovelace (<agent>)" and, when tool is set, the trailers.
// It returns the commit's full hash.
func (g *gitRepo) commit(subject, agent, tool, date string) string {
	g.t.Helper()
	g.git("add", "-A", "--", g.dir)
	msg := subject
	if tool != "" {
		msg += "\n\nLlmwiki-Client: " + agent + " 1.2.0\nLlmwiki-Session: s-1\nLlmwiki-Tool: " + tool + "\nLlmwiki-Audit: a-1\n"
	}
	author := "Ada Lovelace <ada@example.org>"
	if agent != "" {
		author = "Ada Lovelace (" + agent + ") <ada@example.org>"
	}
	cmd := exec.Command("git", "commit", "-q", "--allow-empty-message", "--author", author, "-F", "-")
	cmd.Dir = g.top
	cmd.Stdin = strings.NewReader(msg)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		g.t.Fatalf("git commit: %v\n%s", err, out)
	}
	return strings.TrimSpace(g.git("rev-parse", "HEAD"))
}

// TestFileHistoryFollowsMoves: the history of a moved page lists the
// commits of its old name with the name they had, newest first, with the
// author, client, tool, subject, line counts and sha256 of each version;
// in a repository the wiki is the whole of, and in one it is a folder of.
func TestFileHistoryFollowsMoves(t *testing.T) {
	for _, sub := range []string{"", "team/wiki"} {
		t.Run("sub="+sub, func(t *testing.T) {
			g := newGitRepo(t, sub)
			ctx := context.Background()
			v1 := "---\ntitle: Raft\n---\n# Raft\n\nLeader election.\n"
			g.write("pages/raft.md", v1)
			c1 := g.commit("create | Raft", "claude-code", "write_page", "2026-05-01T10:00:00Z")
			v2 := v1 + "\nLog replication.\nSafety.\n"
			g.write("pages/raft.md", v2)
			c2 := g.commit("update | Raft", "cursor", "", "2026-05-02T10:00:00Z")
			g.git("mv", filepath.Join(g.dir, "pages/raft.md"), filepath.Join(g.dir, "pages/raft-consensus.md"))
			c3 := g.commit("move | raft to raft-consensus", "claude-code", "move_page", "2026-05-03T10:00:00Z")
			v4 := strings.Replace(v2, "Safety.", "Safety and liveness.", 1)
			g.write("pages/raft-consensus.md", v4)
			g.write("pages/other.md", "# Other\n")
			c4 := g.commit("update | Raft consensus", "", "", "2026-05-04T10:00:00Z")

			h, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Page: "raft-consensus"})
			if err != nil {
				t.Fatal(err)
			}
			if h.Kind != HistoryGit || h.Path != "pages/raft-consensus.md" || h.Total != 4 || h.NextCursor != "" {
				t.Fatalf("history: kind %q path %q total %d next %q", h.Kind, h.Path, h.Total, h.NextCursor)
			}
			type want struct {
				commit, path, author, client, tool, message, sha string
				added, removed                                   int
			}
			wants := []want{
				{c4, "pages/raft-consensus.md", "Ada Lovelace", "", "", "update | Raft consensus", store.SHA256Hex([]byte(v4)), 1, 1},
				{c3, "pages/raft-consensus.md", "Ada Lovelace", "claude-code 1.2.0", "move_page", "move | raft to raft-consensus", store.SHA256Hex([]byte(v2)), 0, 0},
				{c2, "pages/raft.md", "Ada Lovelace", "cursor", "", "update | Raft", store.SHA256Hex([]byte(v2)), 3, 0},
				{c1, "pages/raft.md", "Ada Lovelace", "claude-code 1.2.0", "write_page", "create | Raft", store.SHA256Hex([]byte(v1)), 6, 0},
			}
			if len(h.Versions) != len(wants) {
				t.Fatalf("%d versions, want %d: %+v", len(h.Versions), len(wants), h.Versions)
			}
			for i, w := range wants {
				v := h.Versions[i]
				got := want{v.full, v.Path, v.Author, v.Client, v.Tool, v.Message, v.SHA256, v.Added, v.Removed}
				if got != w {
					t.Errorf("version %d:\n got %+v\nwant %+v", i, got, w)
				}
				if v.Commit != w.commit[:12] {
					t.Errorf("version %d: commit %q, want the short hash of %s", i, v.Commit, w.commit)
				}
			}
			if got := h.Versions[3].Written.Format("2006-01-02T15:04:05Z07:00"); got != "2026-05-01T10:00:00Z" {
				t.Errorf("written: %s", got)
			}

			// The version of the old name at a commit before the move.
			fv, err := g.repo.FileAt(ctx, c2[:7], "pages/raft-consensus.md")
			if err != nil {
				t.Fatal(err)
			}
			if fv.Path != "pages/raft.md" || string(fv.Content) != v2 || fv.Commit != c2 {
				t.Errorf("FileAt c2: %q %q %q", fv.Path, fv.Content, fv.Commit)
			}
			if fv, err = g.repo.FileAt(ctx, c4, "pages/raft-consensus.md"); err != nil || string(fv.Content) != v4 {
				t.Errorf("FileAt c4: %q %v", fv.Content, err)
			}
			// A commit that did not touch the page: its version then.
			g.write("pages/unrelated.md", "# Unrelated\n")
			c5 := g.commit("create | Unrelated", "claude-code", "write_page", "2026-05-05T10:00:00Z")
			if fv, err = g.repo.FileAt(ctx, c5, "pages/raft-consensus.md"); err != nil || string(fv.Content) != v4 {
				t.Errorf("FileAt c5: %q %v", fv.Content, err)
			}
		})
	}
}

// TestFileHistoryPages: limit and cursor page the history; a commit made
// between two pages does not shift the second; total is given once the
// end is reached; a bad cursor is refused.
func TestFileHistoryPages(t *testing.T) {
	g := newGitRepo(t, "")
	ctx := context.Background()
	var commits []string
	for i, c := range []string{"one\n", "two\n", "three\n", "four\n", "five\n"} {
		g.write("pages/topic.md", c)
		commits = append(commits, g.commit("update | Topic", "claude-code", "write_page", "2026-05-0"+string(rune('1'+i))+"T10:00:00Z"))
	}
	h1, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Page: "topic", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(h1.Versions) != 2 || h1.NextCursor == "" || h1.Total != 0 || h1.Versions[0].full != commits[4] {
		t.Fatalf("first page: %+v", h1)
	}
	g.write("pages/topic.md", "six\n")
	g.commit("update | Topic", "claude-code", "write_page", "2026-05-09T10:00:00Z")
	var got []string
	for _, v := range h1.Versions {
		got = append(got, v.full)
	}
	cursor := h1.NextCursor
	for cursor != "" {
		h, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Page: "topic", Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range h.Versions {
			got = append(got, v.full)
		}
		if h.NextCursor == "" && h.Total != 5 {
			t.Errorf("last page: total %d, want 5", h.Total)
		}
		cursor = h.NextCursor
	}
	want := []string{commits[4], commits[3], commits[2], commits[1], commits[0]}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paged commits:\n got %v\nwant %v", got, want)
	}
	for _, bad := range []string{"x", "-1." + commits[0], "2", "2.zz", "02." + commits[0]} {
		if _, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Page: "topic", Cursor: bad}); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}

// TestFileHistoryDeletedAndErrors: a deleted page's history is found by
// its path, its deleting commit is marked and has nothing to read; bad,
// unknown and ambiguous commits are clear errors; a page nobody knows is
// not found with what to do.
func TestFileHistoryDeletedAndErrors(t *testing.T) {
	g := newGitRepo(t, "")
	ctx := context.Background()
	g.write("pages/gone.md", "# Gone\n\nsoon\n")
	c1 := g.commit("create | Gone", "claude-code", "write_page", "2026-05-01T10:00:00Z")
	os.Remove(filepath.Join(g.dir, "pages/gone.md"))
	c2 := g.commit("delete | Gone", "claude-code", "", "2026-05-02T10:00:00Z")
	for _, q := range []HistoryQuery{{Path: "pages/gone.md"}, {Page: "gone"}} {
		h, err := PageHistory(ctx, g.st, g.repo, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if len(h.Versions) != 2 || !h.Versions[0].Deleted || h.Versions[0].SHA256 != "" || h.Versions[0].Removed != 3 || h.Versions[1].Deleted {
			t.Fatalf("%+v: %+v", q, h.Versions)
		}
	}
	if _, err := g.repo.FileAt(ctx, c2, "pages/gone.md"); store.CodeOf(err) != store.CodeNotFound || !strings.Contains(err.Error(), "page_history") {
		t.Errorf("FileAt the deleting commit: %v", err)
	}
	if fv, err := g.repo.FileAt(ctx, c1, "pages/gone.md"); err != nil || string(fv.Content) != "# Gone\n\nsoon\n" {
		t.Errorf("FileAt before the delete: %q %v", fv.Content, err)
	}
	for ref, code := range map[string]store.Code{
		"abc":                   store.CodeInvalid,
		"--output=/tmp/x":       store.CodeInvalid,
		"HEAD":                  store.CodeInvalid,
		"0000000":               store.CodeNotFound,
		strings.Repeat("f", 40): store.CodeNotFound,
	} {
		if _, err := g.repo.ResolveCommit(ctx, ref); store.CodeOf(err) != code {
			t.Errorf("ResolveCommit(%q): %v, want %s", ref, err, code)
		}
	}
	if _, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Page: "Nobody Knows This"}); err == nil {
		// git knows no such path either: the history is empty, not an error.
	} else {
		t.Errorf("unknown page with git: %v", err)
	}
	if _, err := PageHistory(ctx, g.st, nil, HistoryQuery{Page: "Nobody Knows This"}); store.CodeOf(err) != store.CodeNotFound || !strings.Contains(err.Error(), "list_pages") {
		t.Errorf("unknown page without git: %v", err)
	}
	if _, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Path: ".llmwiki/audit/x.jsonl"}); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("state path: %v", err)
	}
}

// TestFileHistoryHostileCommits: authors, subjects and trailers are
// untrusted text: control characters, the log format's own markers and
// NUL-like bytes neither break the parse nor reach the output raw.
func TestFileHistoryHostileCommits(t *testing.T) {
	g := newGitRepo(t, "")
	ctx := context.Background()
	g.write("pages/x.md", "a\n")
	g.commit("llmwiki-0000-c\x1e\x1f\x07 bell | \x1b[31mred", "evil) (agent", "write_page\x1fextra", "2026-05-01T10:00:00Z")
	g.write("pages/x.md", "b\n")
	g.commit(strings.Repeat("long ", 200), "", "", "2026-05-02T10:00:00Z")
	h, err := PageHistory(ctx, g.st, g.repo, HistoryQuery{Path: "pages/x.md"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Versions) != 2 {
		t.Fatalf("%+v", h.Versions)
	}
	for _, v := range h.Versions {
		for _, s := range []string{v.Author, v.Client, v.Tool, v.Message} {
			if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len([]rune(s)) > maxField {
				t.Errorf("field %q kept control characters or its length", s)
			}
		}
	}
	if v := h.Versions[1]; v.Author != "Ada Lovelace (evil)" || v.Client != "evil) (agent 1.2.0" || v.Tool != "write_page" {
		t.Errorf("hostile commit: author %q client %q tool %q", v.Author, v.Client, v.Tool)
	}
}

// TestSnapshotHistory: with git off the history is the file on disk and
// its snapshots, newest first, paged, with line counts between versions.
func TestSnapshotHistory(t *testing.T) {
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	st, err := wiki.Open(dir, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	contents := []string{"one\n", "one\ntwo\n", "two\nthree\n"}
	for i, c := range contents {
		if err := st.Update(ctx, func(tx *store.Tx) error {
			if i == 0 {
				return tx.Create("pages/topic.md", []byte(c))
			}
			return tx.Replace("pages/topic.md", []byte(c), "")
		}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := PageHistory(ctx, st, nil, HistoryQuery{Page: "topic", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if h.Kind != HistorySnapshots || h.Total != 3 || h.NextCursor != "2" || len(h.Versions) != 2 {
		t.Fatalf("%+v", h)
	}
	cur, s1 := h.Versions[0], h.Versions[1]
	if !cur.Current || cur.SHA256 != store.SHA256Hex([]byte(contents[2])) || cur.Added != 1 || cur.Removed != 1 || cur.Written.IsZero() {
		t.Errorf("current: %+v", cur)
	}
	if s1.Snapshot == "" || s1.SHA256 != store.SHA256Hex([]byte(contents[1])) || s1.Added != 1 || s1.Removed != 0 || s1.Replaced.IsZero() {
		t.Errorf("snapshot 1: %+v", s1)
	}
	h2, err := PageHistory(ctx, st, nil, HistoryQuery{Page: "topic", Limit: 2, Cursor: h.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if len(h2.Versions) != 1 || h2.NextCursor != "" || h2.Versions[0].SHA256 != store.SHA256Hex([]byte(contents[0])) || h2.Versions[0].Added != 1 {
		t.Errorf("second page: %+v", h2)
	}
}
