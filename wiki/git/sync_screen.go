package git

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
)

// ScreenSubject is the subject of the commit a sync makes on top of the
// remote's when the remote carries what it may not write into the wiki.
const ScreenSubject = "sync | left out what the remote may not write"

// forbidden says why the remote may not bring e at the repository path p
// into the wiki ("" when it may): the machine's own state under .llmwiki/
// (never shared, whatever the remote's .gitignore says), and symbolic
// links and submodules, which no audited writer makes and which would
// lead readers of the wiki's files outside it.
func (r *Repo) forbidden(p string, e syncTreeEntry) string {
	wp, inside := r.syncInWiki(p)
	if !inside || e.absent() {
		return ""
	}
	switch {
	case wp == ".llmwiki" || strings.HasPrefix(wp, ".llmwiki/"):
		return "the machine's own state"
	case e.Mode == "120000":
		return "a symbolic link"
	case e.Mode == "160000":
		return "a submodule"
	}
	return ""
}

// screen returns the commit the branch may move to instead of target: target
// itself when what it brings in since from ("" for none) is all allowed,
// else a commit on target that puts back from's entry (or no entry) at
// every path [Repo.forbidden] refuses, so the checkout never writes such
// a path and the working file, when there is one, stays as it is, and
// log.md with the entries the target deleted put back (append-only on
// both sides, not only when both changed it). The remote's version stays
// in git history; each refusal is a warning.
func (r *Repo) screen(ctx context.Context, from, target string, res *SyncResult) (string, error) {
	base := from
	if base == "" {
		base = syncEmptyTree
	}
	diff, err := r.syncDiffTrees(ctx, base, target)
	if err != nil {
		return "", err
	}
	set := map[string]syncTreeEntry{}
	var why []string
	for _, d := range diff {
		if reason := r.forbidden(d.Path, d.New); reason != "" {
			set[d.Path] = d.Old
			why = append(why, fmt.Sprintf("%q (%s)", r.syncWikiPath(d.Path), reason))
			continue
		}
		if e, ok, err := r.keepLogEntries(ctx, d); err != nil {
			return "", err
		} else if ok {
			set[d.Path] = e
			why = append(why, fmt.Sprintf("%q (entries the remote deleted; log.md is append-only)", r.syncWikiPath(d.Path)))
		}
	}
	if len(set) == 0 {
		return target, nil
	}
	sort.Strings(why)
	tipTree, err := r.syncRun(ctx, "rev-parse", target+"^{tree}")
	if err != nil {
		return "", err
	}
	tree, err := r.syncWriteTree(ctx, tipTree, set)
	if err != nil {
		return "", err
	}
	name, email := r.syncIdentity(ctx)
	msg := ScreenSubject + "\n\n" + strings.Join(why, "\n") + "\n\nLlmwiki-Tool: sync\n"
	out, err := r.syncTopGit().RunWith(ctx, []byte(msg), syncIdentityEnv(name, email), "commit-tree", tree, "-p", target, "-F", "-")
	if err != nil {
		return "", err
	}
	shown := why
	if len(shown) > 5 {
		shown = append(append([]string(nil), why[:5]...), fmt.Sprintf("and %d more", len(why)-5))
	}
	res.Warnings = append(res.Warnings, "the remote's commits carry files a sync never writes into the wiki, left out (they stay in git history): "+strings.Join(shown, ", "))
	return strings.TrimSpace(string(out)), nil
}

// keepLogEntries returns log.md with the entries HEAD's version holds and
// d's new version lost put back (the union, [wiki.MergeLogs]), ok false
// when d is not the wiki's log.md or lost nothing.
func (r *Repo) keepLogEntries(ctx context.Context, d syncDiffEntry) (syncTreeEntry, bool, error) {
	wp, inside := r.syncInWiki(d.Path)
	if !inside || wiki.LayerOf(wp) != wiki.LayerLog || !d.Old.regular() || !d.New.regular() {
		return syncTreeEntry{}, false, nil
	}
	blobs, err := r.syncReadBlobs(ctx, []string{d.Old.OID, d.New.OID})
	if err != nil {
		return syncTreeEntry{}, false, err
	}
	theirs := blobs[d.New.OID]
	merged := wiki.MergeLogs(blobs[d.Old.OID], theirs)
	if bytes.Equal(merged, theirs) {
		return syncTreeEntry{}, false, nil
	}
	oid, err := r.syncWriteBlob(ctx, merged)
	if err != nil {
		return syncTreeEntry{}, false, err
	}
	return syncTreeEntry{Mode: d.New.Mode, OID: oid}, true, nil
}
