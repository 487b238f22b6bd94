package git

import (
	"bytes"
	"context"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// OutsideEditsSubject is the subject of the commit `llmwiki sync` makes of
// the edits made outside llmwiki under the wiki root.
const OutsideEditsSubject = "sync | outside edits"

// IndexSubject is the subject of the commit of index.md regenerated after
// a sync, when no committer made one.
const IndexSubject = "sync | index.md regenerated"

// commitOutsideEdits commits every file under the wiki root that differs
// from HEAD (edited, added or deleted outside llmwiki; .llmwiki/ and writer
// temp files excluded) as one commit by the person. Call it under the
// project lock. It returns the files, from the wiki root.
func (r *Repo) commitOutsideEdits(ctx context.Context) ([]string, error) {
	spec := strings.TrimSuffix(r.prefix, "/")
	if spec == "" {
		spec = "."
	}
	out, err := r.syncTopGit().Run(ctx, "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all", "--", spec)
	if err != nil {
		return nil, err
	}
	var repoPaths, paths []string
	for _, p := range parseSyncStatus(out) {
		wp, ok := r.syncInWiki(p)
		if !ok || wp == ".llmwiki" || strings.HasPrefix(wp, ".llmwiki/") || store.IsTempName(wp) {
			continue
		}
		repoPaths = append(repoPaths, p)
		paths = append(paths, wp)
	}
	if len(repoPaths) == 0 {
		return nil, nil
	}
	if _, err := r.syncCommitPaths(ctx, repoPaths, OutsideEditsSubject+"\n\nLlmwiki-Tool: cli:sync\n"); err != nil {
		return nil, err
	}
	sort.Strings(paths)
	return paths, nil
}

// parseSyncStatus reads the paths of `git status --porcelain=v1 -z
// --no-renames`: "XY <path>\0" per file.
func parseSyncStatus(out []byte) []string {
	var paths []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) < 4 || rec[2] != ' ' {
			continue
		}
		paths = append(paths, string(rec[3:]))
	}
	return paths
}

// syncCommitPaths commits the working tree's version of paths (repository
// paths; a missing file is a deletion) on HEAD, by the person, and
// returns the new commit ("" when nothing differed). The commit is built
// in a temporary index; git's own index learns the paths after. Call it
// under the project lock.
func (r *Repo) syncCommitPaths(ctx context.Context, paths []string, msg string) (string, error) {
	head, err := r.syncRevParse(ctx, "HEAD")
	if err != nil {
		return "", err
	}
	from := head
	if from == "" {
		from = syncEmptyTree
	}
	env, done, err := r.syncTempIndex(ctx, from)
	defer done()
	if err != nil {
		return "", err
	}
	list := []byte(strings.Join(paths, "\x00") + "\x00")
	if _, err := r.syncTopGit().RunWith(ctx, list, env, "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
		return "", err
	}
	tree, err := r.syncTopGit().RunWith(ctx, nil, env, "write-tree")
	if err != nil {
		return "", err
	}
	treeID := strings.TrimSpace(string(tree))
	if head != "" {
		if cur, _ := r.syncRun(ctx, "rev-parse", head+"^{tree}"); cur == treeID {
			return "", nil
		}
	}
	name, email := r.syncIdentity(ctx)
	args := []string{"commit-tree", treeID, "-F", "-"}
	if head != "" {
		args = []string{"commit-tree", treeID, "-p", head, "-F", "-"}
	}
	out, err := r.syncTopGit().RunWith(ctx, []byte(msg), syncIdentityEnv(name, email), args...)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(out))
	if _, err := r.syncRun(ctx, "update-ref", "-m", "llmwiki sync", "HEAD", commit, head); err != nil {
		return "", err
	}
	if _, err := r.syncTopGit().RunWith(ctx, list, nil, "update-index", "--add", "--remove", "-z", "--stdin"); err != nil {
		r.st.Logger().Warn("git index not refreshed after a sync commit; git status may list committed files until the next git command refreshes it", "err", err)
	}
	return commit, nil
}

// regenerateIndex rewrites index.md from the pages after a sync changed
// files (both sides may have added pages, and index.md is derived), and
// commits it when no committer did.
func (r *Repo) regenerateIndex(ctx context.Context, res *SyncResult) {
	if _, err := r.st.RebuildIndex(ctx); err != nil {
		res.Warnings = append(res.Warnings, "index.md was not regenerated after the sync: "+store.PublicMessage(err)+"; run llmwiki index")
		return
	}
	err := r.st.Locked(ctx, func() error {
		data, ok, err := r.st.ReadRaw("index.md")
		if err != nil || !ok {
			return err
		}
		p := r.prefix + "index.md"
		cur, _ := r.syncRevParse(ctx, "HEAD")
		if cur == "" {
			return nil
		}
		inHead, err := r.syncRun(ctx, "rev-parse", "-q", "--verify", cur+":"+p)
		if err == nil {
			if oid, err := r.syncTopGit().RunWith(ctx, data, nil, "hash-object", "--stdin"); err == nil && strings.TrimSpace(string(oid)) == inHead {
				return nil // committed already (by the committer) or unchanged
			}
		}
		_, err = r.syncCommitPaths(ctx, []string{p}, IndexSubject+"\n")
		return err
	})
	if err != nil {
		res.Warnings = append(res.Warnings, "index.md was regenerated but not committed: "+store.PublicMessage(err))
	}
}

// recordConflicts records the sync's conflicts (the lint finding
// sync_conflict and the review page read them) and adds them to res.
func (r *Repo) recordConflicts(ctx context.Context, pcs []pendingConflict, res *SyncResult) {
	if len(pcs) == 0 {
		return
	}
	list := make([]wiki.SyncConflict, len(pcs))
	for i, pc := range pcs {
		list[i] = pc.c
	}
	if err := r.st.RecordSyncConflicts(ctx, list); err != nil {
		res.Warnings = append(res.Warnings, "the sync conflicts were not recorded: "+store.PublicMessage(err))
	}
	res.Conflicts = append(res.Conflicts, list...)
}
