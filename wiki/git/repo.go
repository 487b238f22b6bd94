// Package git keeps a wiki in git (schema.md git: commit or sync): every
// audited write that changed files becomes one commit of exactly those
// files, made under the project lock right after the atomic write; a
// page's history is read back from the commits (or from the snapshots when
// git is off); and `llmwiki sync` rebases the wiki's commits on a remote by
// the wiki's own conflict rules and pushes them.
//
// The engine is the git command line (internal/gitcli), never a
// reimplementation. The wiki may be the whole repository or a folder inside
// a larger one: only paths under the wiki's root are ever committed.
package git

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Repo is the git repository that holds a wiki.
type Repo struct {
	st  *wiki.Store
	git *gitcli.Git // runs in the wiki's root

	// top is the repository's top folder and gitDir its git directory
	// (host paths, never shown to a model); prefix is the wiki root's
	// path inside the repository with a trailing slash ("" when the wiki
	// is the whole repository).
	top, gitDir, prefix string

	commits commitState // commit.go
	syncs   syncState   // sync.go
}

// Open finds the repository that holds the wiki st. It fails with
// CodeUnavailable when git is not installed or the wiki is in no
// repository, with what to do in the message.
func Open(ctx context.Context, st *wiki.Store) (*Repo, error) {
	path, err := gitcli.Find()
	if err != nil {
		return nil, store.Errorf(store.CodeUnavailable, "%s", err.Error())
	}
	g := &gitcli.Git{Path: path, Dir: st.Dir()}
	out, err := g.Run(ctx, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--show-prefix")
	if err != nil {
		return nil, store.Errorf(store.CodeUnavailable, "the wiki is not in a git repository (git: %s in schema.md): run `llmwiki init --git` to create one, or set git: off", st.Settings().Git)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for len(lines) < 3 {
		lines = append(lines, "")
	}
	r := &Repo{st: st, git: g, top: filepath.Clean(lines[0]), gitDir: filepath.Clean(lines[1]), prefix: lines[2]}
	r.git.Hooks = st.Settings().GitHooks
	return r, nil
}

// Store returns the wiki the repository holds.
func (r *Repo) Store() *wiki.Store { return r.st }

// Mode returns the git mode schema.md sets now (it may change while a
// server runs).
func (r *Repo) Mode() string { return r.st.Settings().Git }
