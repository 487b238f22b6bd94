package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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

// Two remote pages whose names differ only by case: the store refuses to
// create the second (one file on macOS and Windows), the sync lets both in.
func TestHostileGitRemoteCaseTwins(t *testing.T) {
	t.Skip("open: a sync checks out Raft.md and raft.md side by side (git's checkout collides them on macOS/Windows); which one to keep is a design question, see the hostile report")
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
