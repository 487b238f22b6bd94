package main

import (
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/git"
)

// TestGitLineShowsSync: under git: sync, status's git line says which
// remote, what is not pushed or not pulled, when the last sync succeeded
// and why the last one failed.
func TestGitLineShowsSync(t *testing.T) {
	synced := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		in   git.Status
		want string
	}{
		{"commit", git.Status{Mode: "commit", Branch: "main", Head: "abc1234"}, "git: commit on main at abc1234"},
		{"in step", git.Status{Mode: "sync", Branch: "main", Head: "abc1234", Remote: "origin/main", Synced: &synced},
			"git: sync on main at abc1234; remote origin/main, last synced 2026-03-01T09:30:00Z"},
		{"failed", git.Status{Mode: "sync", Branch: "main", Head: "abc1234", Remote: "origin/main", Ahead: 1, Behind: 2, Synced: &synced,
			SyncError: "could not fetch from the remote origin; the next sync tries again"},
			"git: sync on main at abc1234; remote origin/main, 1 commit not pushed (llmwiki sync --push), 2 commits to bring in (llmwiki sync), last synced 2026-03-01T09:30:00Z; sync: could not fetch from the remote origin; the next sync tries again"},
		{"no remote", git.Status{Mode: "sync", Branch: "main", Head: "abc1234", SyncError: "the wiki's repository has no remote to sync with"},
			"git: sync on main at abc1234; sync: the wiki's repository has no remote to sync with"},
	} {
		if got := gitLine(c.in); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}
