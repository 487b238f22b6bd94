package git

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The plumbing sync uses: every command runs in the repository's top
// folder with repository paths, so a wiki inside a larger repository sees
// the same paths git prints.

// syncZeroOID is git's name for "no object" in diff-tree and index-info lines.
const syncZeroOID = "0000000000000000000000000000000000000000"

// syncTreeEntry is one path of a tree: its mode and blob ("" when absent).
type syncTreeEntry struct {
	Mode, OID string
}

func (e syncTreeEntry) absent() bool { return e.OID == "" }

// regular reports whether the entry is a plain file (not a link or submodule).
func (e syncTreeEntry) regular() bool { return e.Mode == "100644" || e.Mode == "100755" }

// syncDiffEntry is one path two trees hold differently.
type syncDiffEntry struct {
	Path      string
	Old, New  syncTreeEntry
	StatusStr string
}

// syncTopGit runs git in the repository's top folder.
func (r *Repo) syncTopGit() *gitcli.Git {
	return &gitcli.Git{Path: r.git.Path, Dir: r.top, Hooks: r.git.Hooks, Env: r.git.Env}
}

// run runs git in the top folder and returns stdout trimmed of its last
// newline.
func (r *Repo) syncRun(ctx context.Context, args ...string) (string, error) {
	out, err := r.syncTopGit().Run(ctx, args...)
	return strings.TrimRight(string(out), "\n"), err
}

// syncRevParse resolves rev to a full hash; "" with no error when it does not
// exist.
func (r *Repo) syncRevParse(ctx context.Context, rev string) (string, error) {
	out, err := r.syncTopGit().Run(ctx, "rev-parse", "-q", "--verify", rev+"^{commit}")
	if err != nil {
		if gitcli.ExitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// syncDiffTrees lists the paths a and b hold differently, without rename
// detection (a rename is a delete and an add, which the rules handle).
func (r *Repo) syncDiffTrees(ctx context.Context, a, b string) ([]syncDiffEntry, error) {
	out, err := r.syncTopGit().Run(ctx, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", a, b)
	if err != nil {
		return nil, err
	}
	return parseSyncDiffTree(out)
}

// parseSyncDiffTree reads `git diff-tree -r -z` output:
// ":<mode> <mode> <oid> <oid> <status>\0<path>\0" per path.
func parseSyncDiffTree(out []byte) ([]syncDiffEntry, error) {
	var list []syncDiffEntry
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		head := string(fields[i])
		if head == "" {
			continue
		}
		if !strings.HasPrefix(head, ":") || i+1 >= len(fields) {
			return nil, fmt.Errorf("unexpected diff-tree output %q", syncClip(head))
		}
		f := strings.Fields(head[1:])
		if len(f) != 5 {
			return nil, fmt.Errorf("unexpected diff-tree line %q", syncClip(head))
		}
		i++
		p := string(fields[i])
		if p == "" {
			return nil, fmt.Errorf("diff-tree line without a path")
		}
		e := syncDiffEntry{Path: p, StatusStr: f[4]}
		if f[2] != syncZeroOID {
			e.Old = syncTreeEntry{Mode: f[0], OID: f[2]}
		}
		if f[3] != syncZeroOID {
			e.New = syncTreeEntry{Mode: f[1], OID: f[3]}
		}
		list = append(list, e)
	}
	return list, nil
}

func syncClip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// syncLsTree returns the entries of commit for paths (absent paths are left
// out of the map).
func (r *Repo) syncLsTree(ctx context.Context, commit string, paths []string) (map[string]syncTreeEntry, error) {
	m := map[string]syncTreeEntry{}
	for len(paths) > 0 {
		n := min(len(paths), 400)
		args := append([]string{"ls-tree", "-r", "-z", "--full-tree", commit, "--"}, paths[:n]...)
		paths = paths[n:]
		out, err := r.syncTopGit().Run(ctx, args...)
		if err != nil {
			return nil, err
		}
		if err := parseSyncLsTree(out, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// parseSyncLsTree reads `git ls-tree -z` output: "<mode> <type> <oid>\t<path>\0".
func parseSyncLsTree(out []byte, m map[string]syncTreeEntry) error {
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || p == "" {
			return fmt.Errorf("unexpected ls-tree output %q", syncClip(string(rec)))
		}
		m[p] = syncTreeEntry{Mode: f[0], OID: f[2]}
	}
	return nil
}

// syncReadBlobs returns the content of each blob in oids, by one cat-file.
func (r *Repo) syncReadBlobs(ctx context.Context, oids []string) (map[string][]byte, error) {
	m := map[string][]byte{}
	var in bytes.Buffer
	for _, o := range oids {
		if o != "" {
			in.WriteString(o + "\n")
		}
	}
	if in.Len() == 0 {
		return m, nil
	}
	out, err := r.syncTopGit().RunWith(ctx, in.Bytes(), nil, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	if err := parseSyncCatFile(out, m); err != nil {
		return nil, err
	}
	return m, nil
}

// parseSyncCatFile reads `git cat-file --batch` output:
// "<oid> <type> <size>\n<content>\n" per object ("<name> missing\n" for an
// object that is not there).
func parseSyncCatFile(out []byte, m map[string][]byte) error {
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			return nil
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "missing" {
			continue
		}
		if len(f) != 3 {
			return fmt.Errorf("unexpected cat-file output %q", syncClip(line))
		}
		size, perr := strconv.Atoi(f[2])
		if perr != nil || size < 0 || size > len(out) {
			return fmt.Errorf("unexpected cat-file size %q", syncClip(line))
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(br, data); err != nil {
			return fmt.Errorf("cat-file output ends inside an object")
		}
		m[f[0]] = data[:size]
	}
}

// syncWriteBlob stores data as a blob and returns its hash.
func (r *Repo) syncWriteBlob(ctx context.Context, data []byte) (string, error) {
	out, err := r.syncTopGit().RunWith(ctx, data, nil, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// syncTempIndex returns the environment of a temporary index file holding
// tree (git's own index is never touched), and a func that removes it.
func (r *Repo) syncTempIndex(ctx context.Context, tree string) ([]string, func(), error) {
	f, err := os.CreateTemp(r.gitDir, "llmwiki-index-*")
	if err != nil {
		return nil, func() {}, store.Internal("create a temporary git index", err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name) // git creates it; an empty file is not an index
	env := []string{"GIT_INDEX_FILE=" + name}
	done := func() { os.Remove(name); os.Remove(name + ".lock") }
	if _, err := r.syncTopGit().RunWith(ctx, nil, env, "read-tree", tree); err != nil {
		done()
		return nil, func() {}, err
	}
	return env, done, nil
}

// syncWriteTree applies entries (path → entry; absent removes it) to tree in a
// temporary index and returns the new tree's hash.
func (r *Repo) syncWriteTree(ctx context.Context, tree string, entries map[string]syncTreeEntry) (string, error) {
	env, done, err := r.syncTempIndex(ctx, tree)
	defer done()
	if err != nil {
		return "", err
	}
	var in bytes.Buffer
	for p, e := range entries {
		if e.absent() {
			fmt.Fprintf(&in, "0 %s\t%s\x00", syncZeroOID, p)
		} else {
			fmt.Fprintf(&in, "%s %s\t%s\x00", e.Mode, e.OID, p)
		}
	}
	if in.Len() > 0 {
		if _, err := r.syncTopGit().RunWith(ctx, in.Bytes(), env, "update-index", "-z", "--index-info"); err != nil {
			return "", err
		}
	}
	out, err := r.syncTopGit().RunWith(ctx, nil, env, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// mergeFile runs git merge-file on three versions and reports the result
// and whether it merged without a conflict. Binary content never merges.
func (r *Repo) mergeFile(ctx context.Context, base, local, remote []byte) ([]byte, bool, error) {
	if bytes.IndexByte(base, 0) >= 0 || bytes.IndexByte(local, 0) >= 0 || bytes.IndexByte(remote, 0) >= 0 {
		return nil, false, nil
	}
	dir, err := os.MkdirTemp(r.gitDir, "llmwiki-merge-*")
	if err != nil {
		return nil, false, store.Internal("create a folder for a merge", err)
	}
	defer os.RemoveAll(dir)
	names := []string{filepath.Join(dir, "remote"), filepath.Join(dir, "base"), filepath.Join(dir, "local")}
	for i, data := range [][]byte{remote, base, local} {
		if err := os.WriteFile(names[i], data, 0o600); err != nil {
			return nil, false, store.Internal("write a version to merge", err)
		}
	}
	out, err := r.syncTopGit().Run(ctx, "merge-file", "-p", "-q", names[0], names[1], names[2])
	if err != nil {
		if c := gitcli.ExitCode(err); c > 0 && c < 128 {
			return nil, false, nil // conflicts: the caller applies its rule
		}
		return nil, false, err
	}
	return out, true, nil
}

// syncIdentity returns the person's git syncIdentity in this repository, or
// llmwiki's when none is set.
func (r *Repo) syncIdentity(ctx context.Context) (name, email string) {
	name, _ = r.syncRun(ctx, "config", "user.name")
	email, _ = r.syncRun(ctx, "config", "user.email")
	if strings.TrimSpace(name) == "" || strings.TrimSpace(email) == "" {
		return "llmwiki", "llmwiki@localhost"
	}
	return name, email
}

// syncIdentityEnv sets author and committer to name and email.
func syncIdentityEnv(name, email string) []string {
	return []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
}
