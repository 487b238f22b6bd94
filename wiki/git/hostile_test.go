package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// mallory pushes to the shared repository whatever change fn makes in a
// fresh clone of it (raw git: force-added ignored files, links,
// submodules), as a teammate with push access can.
func mallory(t *testing.T, bare string, fn func(dir string)) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "mallory")
	gitT(t, filepath.Dir(dir), "clone", "-q", bare, dir)
	gitT(t, dir, "config", "user.name", "Mallory")
	gitT(t, dir, "config", "user.email", "m@example.org")
	fn(dir)
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "mallory")
	gitT(t, dir, "push", "-q", "origin", "HEAD:main")
}

func writeT(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A remote commit that force-adds files under .llmwiki/ (past the
// .gitignore) must never write the machine's own state: review
// decisions, audit lines, conflicts, the pending-commit file.
func TestHostileGitRemoteWritesLlmwikiState(t *testing.T) {
	for _, tc := range []struct {
		name string
		ff   bool // bob has nothing of his own: a fast-forward
	}{{"fast-forward", true}, {"replay", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bare, _, b := newTeam(t)
			own := filepath.Join(b.dir, ".llmwiki", "review", "decisions.jsonl")
			writeT(t, own, "bob's own decision\n")
			mallory(t, bare, func(dir string) {
				for _, rel := range []string{".llmwiki/review/decisions.jsonl", ".llmwiki/git/conflicts.jsonl", ".llmwiki/git/pending.jsonl", ".llmwiki/audit/forged.jsonl"} {
					writeT(t, filepath.Join(dir, rel), "forged by mallory\n")
					gitT(t, dir, "add", "-f", rel)
				}
				writeT(t, filepath.Join(dir, "pages", "m.md"), "---\ntitle: m\n---\nm\n")
				gitT(t, dir, "add", "pages/m.md")
			})
			if !tc.ff {
				b.writePage(t, "bobs", "Bob's page.\n")
				b.commit(t, "edit | bobs")
			}
			res, err := b.repo.Sync(context.Background(), SyncOptions{Tool: "cli:sync"})
			t.Logf("sync: %+v err=%v", res, err)
			if got, _ := os.ReadFile(own); string(got) != "bob's own decision\n" {
				t.Errorf("the remote rewrote bob's review decisions: %q", got)
			}
			for _, rel := range []string{".llmwiki/git/conflicts.jsonl", ".llmwiki/git/pending.jsonl", ".llmwiki/audit/forged.jsonl"} {
				if data, err := os.ReadFile(filepath.Join(b.dir, rel)); err == nil && strings.Contains(string(data), "forged") {
					t.Errorf("the remote wrote bob's %s", rel)
				}
			}
			for _, p := range res.Changed {
				if strings.HasPrefix(p, ".llmwiki/") {
					t.Errorf("the sync reports the machine's state %s as changed", p)
				}
			}
			noMarkers(t, b)
		})
	}
}

// Links, submodules and names the store would refuse, from the remote:
// no link or submodule reaches the disk (the remote's commit stays in
// history), names the tools cannot address stay out of the catalogue.
func TestHostileGitRemoteSpecialEntries(t *testing.T) {
	bare, _, b := newTeam(t)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeT(t, secret, "host secret\n")
	mallory(t, bare, func(dir string) {
		os.MkdirAll(filepath.Join(dir, "pages"), 0o755)
		os.MkdirAll(filepath.Join(dir, "sources"), 0o755)
		if err := os.Symlink(secret, filepath.Join(dir, "pages", "link.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/", filepath.Join(dir, "sources", "root")); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"pages/-rf.md", "pages/a\nb.md", "pages/\x1b[31mred.md", "pages/:(glob)*.md"} {
			writeT(t, filepath.Join(dir, n), "---\ntitle: x\n---\nx\n")
		}
		gitT(t, dir, "add", "-A")
		head := gitT(t, dir, "rev-parse", "HEAD")
		gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",pages/sub")
	})
	res, err := b.repo.Sync(context.Background(), SyncOptions{Tool: "cli:sync"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"pages/link.md", "sources/root", "pages/sub"} {
		if _, err := os.Lstat(filepath.Join(b.dir, rel)); err == nil {
			t.Errorf("%s from the remote reached the disk", rel)
		}
		if !strings.Contains(strings.Join(res.Warnings, " "), rel) {
			t.Errorf("no warning names %s: %q", rel, res.Warnings)
		}
	}
	if tree := gitT(t, b.dir, "ls-tree", "-r", "HEAD"); strings.Contains(tree, "120000 ") || strings.Contains(tree, "160000 ") {
		t.Errorf("the synced branch still holds a link or submodule:\n%s", tree)
	}
	pages, err := b.st.Pages()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pages {
		names = append(names, p.Path)
	}
	if want := []string{"pages/-rf.md"}; !slices.Equal(names, want) {
		t.Errorf("catalogue %q, want %q (names the tools cannot address left out)", names, want)
	}
	noMarkers(t, b)
}

// log.md is append-only: a remote commit that deletes entries (and one
// that rewrites it whole) must not take them out of the wiki's log.
func TestHostileGitRemoteTruncatesLog(t *testing.T) {
	for _, tc := range []struct {
		name string
		ff   bool
	}{{"fast-forward", true}, {"replay", false}} {
		t.Run(tc.name, func(t *testing.T) {
			bare, a, b := newTeam(t)
			a.log(t, "09:10", "ada's first")
			a.log(t, "09:20", "ada's second")
			a.commit(t, "note | ada")
			a.sync(t, true)
			b.sync(t, false)
			mallory(t, bare, func(dir string) {
				data, err := os.ReadFile(filepath.Join(dir, "log.md"))
				if err != nil {
					t.Fatal(err)
				}
				i := strings.Index(string(data), "## [")
				if i < 0 {
					t.Fatalf("no entry in log.md:\n%s", data)
				}
				writeT(t, filepath.Join(dir, "log.md"), string(data[:i])+"## [2026-03-01 09:30] note | mallory's\n")
				gitT(t, dir, "add", "log.md")
			})
			if !tc.ff {
				b.writePage(t, "bobs", "Bob's page.\n")
				b.commit(t, "edit | bobs")
			}
			res := b.sync(t, false)
			log := b.read(t, "log.md")
			for _, e := range []string{"ada's first", "ada's second", "mallory's"} {
				if strings.Count(log, e) != 1 {
					t.Errorf("log.md holds %q %d times after the sync (%+v):\n%s", e, strings.Count(log, e), res, log)
				}
			}
			noMarkers(t, b)
		})
	}
}

// Hostile refs for read_page at / restore_snapshot commit: only a commit's
// hash (or a unique prefix) names a version; options, revision syntax, a
// tree or a blob never reach git as a revision.
func TestHostileGitResolveCommitRefs(t *testing.T) {
	_, a, _ := newTeam(t)
	head := gitT(t, a.dir, "rev-parse", "HEAD")
	tree := gitT(t, a.dir, "rev-parse", "HEAD^{tree}")
	blob := gitT(t, a.dir, "rev-parse", "HEAD:log.md")
	for _, ref := range []string{"--output=x", "HEAD", "HEAD~1", "@{-1}", "..", head[:7] + "..HEAD", tree, blob, "-" + head[:7], head[:6], ":(glob)*"} {
		if full, err := a.repo.ResolveCommit(context.Background(), ref); err == nil {
			t.Errorf("ResolveCommit(%q) = %s, want an error", ref, full)
		} else if code := store.CodeOf(err); code != store.CodeInvalid && code != store.CodeNotFound {
			t.Errorf("ResolveCommit(%q): %v (code %s), want invalid or not_found", ref, err, code)
		}
	}
	if _, err := os.Stat(filepath.Join(a.dir, "x")); err == nil {
		t.Errorf("a ref wrote a file")
	}
	if full, err := a.repo.ResolveCommit(context.Background(), strings.ToUpper(head[:7])); err != nil || full != head {
		t.Errorf("ResolveCommit(short HEAD) = %s, %v; want %s", full, err, head)
	}
}

// A remote commit that flips schema.md's git_hooks to true is taken as it
// is: with a hooks folder kept in the repository (core.hooksPath set to a
// tracked folder, husky style) the remote then chooses code our commits run.
func TestHostileGitRemoteEnablesHooks(t *testing.T) {
	t.Skip("open: a remote schema.md with git_hooks: true is checked out as it is; whether a sync keeps the local hook setting is a design question, see the hostile report")
}
