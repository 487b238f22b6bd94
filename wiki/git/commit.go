package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Files of the committer under the wiki's .llmwiki/git/ (never committed:
// the generated .gitignore ignores .llmwiki/ whole).
const (
	// IndexFile is the index the repository's hooks see (git_hooks:
	// true): the tree of the commit being made.
	IndexFile = ".llmwiki/git/index"
	// PendingFile holds the commits that failed (one JSON object a
	// line, [Pending]); the next write commits them first.
	PendingFile = ".llmwiki/git/pending.jsonl"
	// messageFile is the message handed to a commit-msg hook.
	messageFile = ".llmwiki/git/COMMIT_MSG"
)

// commitState is what the committer keeps between writes.
type commitState struct {
	mu sync.Mutex
	// noted are the paths each call changed inside [wiki.Store.OneCommit],
	// committed by Flush.
	noted map[*store.Call][]string
}

// Install makes r the store's committer: from now on every audited write
// that changes files is committed (while schema.md says git: commit or
// sync).
func (r *Repo) Install() { r.st.SetCommitter(r) }

// Committed commits the paths of a transaction of call at once, or, inside
// [wiki.Store.OneCommit], notes them for [Repo.Flush]. It runs under the
// project lock. A failure adds a warning to call and keeps the commit as
// pending; the write itself stands.
func (r *Repo) Committed(ctx context.Context, call *store.Call, changes []store.Change) {
	if !r.enabled() {
		return
	}
	paths := wikiPaths(changes)
	if len(paths) == 0 {
		return
	}
	if wiki.InOneCommit(ctx) {
		r.commits.mu.Lock()
		if r.commits.noted == nil {
			r.commits.noted = map[*store.Call][]string{}
		}
		r.commits.noted[call] = append(r.commits.noted[call], paths...)
		r.commits.mu.Unlock()
		return
	}
	r.commitCall(ctx, call, paths)
}

// Flush commits what call changed inside [wiki.Store.OneCommit] as one
// commit, under the project lock.
func (r *Repo) Flush(ctx context.Context, call *store.Call) {
	r.commits.mu.Lock()
	paths := r.commits.noted[call]
	delete(r.commits.noted, call)
	r.commits.mu.Unlock()
	if !r.enabled() || len(paths) == 0 {
		return
	}
	slices.Sort(paths)
	r.commitCall(ctx, call, slices.Compact(paths))
}

// enabled reports whether schema.md asks for commits now.
func (r *Repo) enabled() bool {
	m := r.Mode()
	return m == wiki.GitCommit || m == wiki.GitSync
}

// wikiPaths are the changed files a commit holds: every path but server
// state, each once, sorted.
func wikiPaths(changes []store.Change) []string {
	var out []string
	for _, c := range changes {
		if c.Path == "" || c.Path == ".llmwiki" || strings.HasPrefix(c.Path, ".llmwiki/") {
			continue
		}
		out = append(out, c.Path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// commitCall commits the pending commits, then paths as call's commit; a
// failure becomes a warning on call and a pending commit.
func (r *Repo) commitCall(ctx context.Context, call *store.Call, paths []string) {
	ctx = context.WithoutCancel(ctx) // the files are written; their commit must not be skipped
	p := r.describe(ctx, call, paths)
	if err := r.commitPending(ctx); err != nil {
		r.keepPending(p, err, call)
		return
	}
	if _, err := r.commit(ctx, p); err != nil {
		r.keepPending(p, err, call)
	}
}

// keepPending records p as pending after err, and warns call.
func (r *Repo) keepPending(p Pending, err error, call *store.Call) {
	why := reason(err)
	r.st.Logger().Warn("git commit failed; kept as pending", "paths", p.Paths, "err", err)
	p.Error = why
	if p.Blobs == nil {
		// The versions this write made, so a later write of the same
		// files does not change what this commit holds.
		if b, err := r.versions(context.Background(), p.Paths); err == nil {
			p.Blobs = b
		}
	}
	if perr := r.appendPending(p); perr != nil {
		r.st.Logger().Error("pending git commit not recorded", "err", perr)
	}
	call.AddWarning("the write is on disk but git could not commit it (" + why + "); the next write commits it")
}

// errIndexLocked is a commit refused because another git process holds the
// repository's index lock.
var errIndexLocked = errors.New("index locked")

// hookError is a hook that refused the commit.
type hookError struct {
	hook string
	err  error
}

func (e *hookError) Error() string { return e.hook + " hook: " + e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// reason says in a few words why a commit failed, for a person or a model:
// never a host path (git's stderr goes to the server log).
func reason(err error) string {
	var he *hookError
	switch {
	case errors.Is(err, errIndexLocked):
		return "another git process holds the index lock"
	case errors.As(err, &he):
		return "the repository's " + he.hook + " hook refused it"
	case errors.Is(err, gitcli.ErrNotFound):
		return "git is not installed or not on PATH"
	}
	var ge *gitcli.Error
	if errors.As(err, &ge) && len(ge.Args) > 0 {
		return "git " + ge.Args[0] + " failed; the server log says why"
	}
	return "git failed; the server log says why"
}

// runner returns the git runner for one commit: hooks as schema.md says
// now.
func (r *Repo) runner() *gitcli.Git {
	g := *r.git
	g.Hooks = r.st.Settings().GitHooks
	return &g
}

// host returns the host path of a file under the wiki root.
func (r *Repo) host(rel string) string { return filepath.Join(r.st.Dir(), filepath.FromSlash(rel)) }

// commit makes one commit of p.Paths on top of HEAD, with p's message and
// identities: the files' versions are written as blobs (or, for a pending
// commit, taken from it), HEAD's tree gets them (buildTree: no index is
// read or written), the tree becomes a commit whose parent is HEAD, HEAD
// moves to it only if it is still the commit read (update-ref's
// compare-and-swap), and the person's index learns the same paths so `git
// status` stays clean. It returns the new commit, or "" when the paths
// were already committed as they are.
func (r *Repo) commit(ctx context.Context, p Pending) (string, error) {
	g := r.runner()
	if err := r.checkIndexLock(); err != nil {
		return "", err
	}
	head, err := headCommit(ctx, g)
	if err != nil {
		return "", err
	}
	if p.Blobs == nil {
		if p.Blobs, err = r.versions(ctx, p.Paths); err != nil {
			return "", err
		}
		p.fromDisk = true
	}
	changes := make(map[string]fileChange, len(p.Paths))
	for _, path := range p.Paths {
		changes[r.prefix+path] = p.change(path)
	}
	tree, headTree, err := buildTree(ctx, g, head, changes)
	if err != nil {
		return "", err
	}
	if head != "" && tree == headTree {
		return "", nil // already committed as they are
	}
	env := p.env()
	msg := p.Message
	if g.Hooks {
		// The hooks see the commit's tree as the index, as under `git
		// commit --only`.
		idx := "GIT_INDEX_FILE=" + r.host(IndexFile)
		if err := os.MkdirAll(filepath.Dir(r.host(IndexFile)), 0o755); err != nil {
			return "", store.Internal("create the committer's folder", err)
		}
		if _, err := g.RunWith(ctx, nil, []string{idx}, "read-tree", tree); err != nil {
			return "", err
		}
		henv := append([]string{idx}, env...)
		if err := r.runHook(ctx, g, henv, "pre-commit"); err != nil {
			return "", err
		}
		if msg, err = r.commitMsgHook(ctx, g, henv, msg); err != nil {
			return "", err
		}
	}
	args := []string{"commit-tree", tree}
	if head != "" {
		args = append(args, "-p", head)
	}
	out, err := g.RunWith(ctx, []byte(msg), env, append(args, "-F", "-")...)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(out))
	subject, _, _ := strings.Cut(msg, "\n")
	if _, err := g.RunWith(ctx, nil, nil, "update-ref", "-m", "llmwiki: "+subject, "HEAD", commit, head); err != nil {
		return "", err
	}
	// The person's index: the same paths, so they are not shown as staged
	// back to their old content. Their other entries are untouched.
	if _, err := g.RunWith(ctx, p.stageInput(r.prefix), nil, p.stageArgs()...); err != nil {
		r.st.Logger().Warn("git: the commit is made but the repository's index was not updated for its files; `git status` may list them until `git reset -- <paths>`", "commit", commit, "err", err)
	}
	if g.Hooks {
		if err := r.runHook(ctx, g, nil, "post-commit"); err != nil {
			r.st.Logger().Warn("git: post-commit hook failed", "err", err)
		}
	}
	return commit, nil
}

// headCommit reads HEAD's commit with g ("" on an unborn branch).
func headCommit(ctx context.Context, g *gitcli.Git) (string, error) {
	out, err := g.Run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		if gitcli.ExitCode(err) == 1 {
			return "", nil // unborn: the first commit
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// checkIndexLock fails when another git process holds the repository's
// index: the commit would succeed but the person's index could not follow.
func (r *Repo) checkIndexLock() error {
	if _, err := os.Lstat(filepath.Join(r.gitDir, "index.lock")); err == nil {
		return errIndexLocked
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// runHook runs one of the repository's hooks, when it has it.
func (r *Repo) runHook(ctx context.Context, g *gitcli.Git, env []string, hook string) error {
	if _, err := g.RunWith(ctx, nil, env, "hook", "run", "--ignore-missing", hook); err != nil {
		return &hookError{hook: hook, err: err}
	}
	return nil
}

// commitMsgHook runs the commit-msg hook on msg and returns the message it
// left.
func (r *Repo) commitMsgHook(ctx context.Context, g *gitcli.Git, env []string, msg string) (string, error) {
	if err := r.st.WriteState(messageFile, []byte(msg)); err != nil {
		return msg, err
	}
	defer r.st.RemoveState(messageFile)
	if _, err := g.RunWith(ctx, nil, env, "hook", "run", "--ignore-missing", "commit-msg", "--", r.host(messageFile)); err != nil {
		return msg, &hookError{hook: "commit-msg", err: err}
	}
	data, err := os.ReadFile(r.host(messageFile))
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return msg, nil
	}
	return string(data), nil
}

// stageArgs is the update-index that stages p: the files as they are on
// disk, or, for a pending commit, the versions its write made.
func (p Pending) stageArgs() []string {
	if !p.fromDisk {
		return []string{"update-index", "-z", "--index-info"}
	}
	return []string{"update-index", "--add", "--remove", "-z", "--stdin"}
}

// stageInput is the stdin of [Pending.stageArgs].
func (p Pending) stageInput(prefix string) []byte {
	if p.fromDisk {
		return nulList(p.Paths)
	}
	var b bytes.Buffer
	for _, path := range p.Paths {
		c := p.change(path)
		if c.removed {
			c.mode, c.oid = "0", zeroOID
		}
		b.WriteString(c.mode + " " + c.oid + "\t" + prefix + path) // --index-info takes paths from the top
		b.WriteByte(0)
	}
	return b.Bytes()
}

// change is path's version in p.
func (p Pending) change(path string) fileChange {
	v := p.Blobs[path]
	mode, oid, ok := strings.Cut(v, " ")
	if !ok || oid == "" {
		return fileChange{removed: true}
	}
	return fileChange{mode: mode, oid: oid}
}

// zeroOID in --index-info removes a path.
const zeroOID = "0000000000000000000000000000000000000000"

// versions writes the files' versions as they are on disk as blobs and
// returns them by path ("<mode> <blob>"; "" for a file that is gone).
func (r *Repo) versions(ctx context.Context, paths []string) (map[string]string, error) {
	var present []string
	blobs := map[string]string{}
	for _, path := range paths {
		fi, err := os.Lstat(r.host(path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			blobs[path] = ""
		case err != nil:
			return nil, err
		case fi.Mode()&fs.ModeSymlink != 0:
			blobs[path] = "120000"
			present = append(present, path)
		default:
			mode := "100644"
			if fi.Mode()&0o111 != 0 {
				mode = "100755"
			}
			blobs[path] = mode
			present = append(present, path)
		}
	}
	if len(present) == 0 {
		return blobs, nil
	}
	// Paths as arguments (hash-object resolves them against its working
	// directory, which --stdin-paths does not), a bounded number a run.
	var ids []string
	for chunk := range slices.Chunk(present, 512) {
		out, err := r.git.Run(ctx, append([]string{"hash-object", "-w", "--"}, chunk...)...)
		if err != nil {
			return nil, err
		}
		ids = append(ids, strings.Fields(string(out))...)
	}
	if len(ids) != len(present) {
		return nil, fmt.Errorf("git hash-object: %d ids for %d files", len(ids), len(present))
	}
	for i, path := range present {
		blobs[path] += " " + ids[i]
	}
	return blobs, nil
}

// nulList is paths for a -z --stdin reader.
func nulList(paths []string) []byte {
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes()
}
