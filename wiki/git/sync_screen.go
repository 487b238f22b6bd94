package git

import (
	"bytes"
	"context"
	"fmt"
	"path"
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

// AttributesFile is git's per-folder attributes file. Under the wiki root
// only the person adds or changes one: its working-tree-encoding, eol,
// ident, text and filter attributes change the bytes git checks out and
// hashes, so the files on disk would no longer be the bytes in git.
const AttributesFile = ".gitattributes"

// isAttributes reports whether the repository path p is a .gitattributes
// under the wiki root.
func (r *Repo) isAttributes(p string) bool {
	wp, inside := r.syncInWiki(p)
	return inside && path.Base(wp) == AttributesFile
}

// screen returns the commit the branch may move to instead of target: target
// itself when what it brings in since from ("" for none) is all allowed,
// else a commit on target that puts back from's entry (or no entry) at
// every path [Repo.forbidden] refuses and at every .gitattributes under
// the wiki root (the person's own stays as it is), so the checkout never
// writes such a path and the working file, when there is one, stays as it
// is; log.md with the entries the target deleted put back (append-only on
// both sides, not only when both changed it); and every file it adds that
// is one file with another by the store's name rules renamed
// ([Repo.renameTwins]). The remote's version stays in git history; each
// refusal is a warning, and each renamed page a conflict for a person to
// merge (its local side is snapshotted by the caller).
func (r *Repo) screen(ctx context.Context, from, target string, res *SyncResult) (string, []pendingConflict, error) {
	base := from
	if base == "" {
		base = syncEmptyTree
	}
	diff, err := r.syncDiffTrees(ctx, base, target)
	if err != nil {
		return "", nil, err
	}
	set := map[string]syncTreeEntry{}
	var why, warns []string
	for _, d := range diff {
		if r.isAttributes(d.Path) && d.New.absent() {
			// Without it git writes the files as they are stored; putting
			// it back would undo a teammate's screen of it at every sync.
			warns = append(warns, fmt.Sprintf("the remote deleted %s; git now writes the wiki's files as they are stored", r.syncWikiPath(d.Path)))
			continue
		}
		if r.isAttributes(d.Path) {
			set[d.Path] = d.Old
			why = append(why, fmt.Sprintf("%q (a .gitattributes inside the wiki)", r.syncWikiPath(d.Path)))
			warns = append(warns, fmt.Sprintf("llmwiki left out %s: a .gitattributes inside the wiki would change how its files are written; add it yourself if you mean it", r.syncWikiPath(d.Path)))
			continue
		}
		if reason := r.forbidden(d.Path, d.New); reason != "" {
			set[d.Path] = d.Old
			why = append(why, fmt.Sprintf("%q (%s)", r.syncWikiPath(d.Path), reason))
			continue
		}
		if e, ok, err := r.keepLogEntries(ctx, d); err != nil {
			return "", nil, err
		} else if ok {
			set[d.Path] = e
			why = append(why, fmt.Sprintf("%q (entries the remote deleted; log.md is append-only)", r.syncWikiPath(d.Path)))
		}
	}
	nForbidden := 0
	for _, w := range why {
		if !strings.Contains(w, "(a .gitattributes inside the wiki)") {
			nForbidden++
		}
	}
	twins, err := r.renameTwins(ctx, diff, target, set)
	if err != nil {
		return "", nil, err
	}
	for _, tw := range twins {
		why = append(why, fmt.Sprintf("%q renamed %q (%s)", tw.from, tw.to, tw.reason()))
	}
	if len(set) == 0 {
		res.Warnings = append(res.Warnings, warns...)
		return target, nil, nil
	}
	sort.Strings(why)
	tipTree, err := r.syncRun(ctx, "rev-parse", target+"^{tree}")
	if err != nil {
		return "", nil, err
	}
	tree, err := r.syncWriteTree(ctx, tipTree, set)
	if err != nil {
		return "", nil, err
	}
	tip, err := r.screenCommit(ctx, target, tree, why)
	if err != nil {
		return "", nil, err
	}
	if nForbidden > 0 {
		var shown []string
		for _, w := range why {
			if !strings.Contains(w, "(a .gitattributes inside the wiki)") && !strings.Contains(w, " renamed ") {
				shown = append(shown, w)
			}
		}
		if len(shown) > 5 {
			shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(shown)-5))
		}
		res.Warnings = append(res.Warnings, "the remote's commits carry files a sync never writes into the wiki, left out (they stay in git history): "+strings.Join(shown, ", "))
	}
	sort.Strings(warns)
	res.Warnings = append(res.Warnings, warns...)
	var conflicts []pendingConflict
	for _, tw := range twins {
		res.Warnings = append(res.Warnings, tw.warning())
		if pc := tw.conflict(r, from, tip); pc != nil {
			conflicts = append(conflicts, *pc)
		}
	}
	return tip, conflicts, nil
}

// screenCommit makes the commit of tree on target that a screen puts on
// top of the remote's commits, by the person (or llmwiki).
func (r *Repo) screenCommit(ctx context.Context, target, tree string, why []string) (string, error) {
	name, email := r.syncIdentity(ctx)
	msg := ScreenSubject + "\n\n" + strings.Join(why, "\n") + "\n\nLlmwiki-Tool: sync\n"
	out, err := r.syncTopGit().RunWith(ctx, []byte(msg), syncIdentityEnv(name, email), "commit-tree", tree, "-p", target, "-F", "-")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// keepSources returns the commit a sync integrates instead of the remote's
// theirs: theirs itself when it leaves every source base had as it was,
// else a commit on theirs that puts back base's bytes of each source the
// remote rewrote or deleted (sources are never rewritten or deleted: the
// name keeps the bytes everyone cited) and saves the remote's rewrite
// under a free name ("<stem>-remote<ext>"), each reported. Run it on the
// remote's side before the local commits are replayed, so a rewrite never
// meets the rules for a file both sides changed.
func (r *Repo) keepSources(ctx context.Context, base, ours, theirs string, res *SyncResult) (string, error) {
	diff, err := r.syncDiffTrees(ctx, base, theirs)
	if err != nil {
		return "", err
	}
	var changed []syncDiffEntry
	var paths []string
	for _, d := range diff {
		wp, inside := r.syncInWiki(d.Path)
		if inside && wiki.LayerOf(wp) == wiki.LayerSources && d.Old.regular() && d.New.OID != d.Old.OID {
			changed = append(changed, d)
			paths = append(paths, d.Path)
		}
	}
	if len(changed) == 0 {
		return theirs, nil
	}
	have, err := r.syncLsTree(ctx, ours, paths)
	if err != nil {
		return "", err
	}
	set := map[string]syncTreeEntry{}
	var why, warns []string
	for _, d := range changed {
		wp := r.syncWikiPath(d.Path)
		if have[d.Path] == d.New {
			continue // the local side has the remote's version already (it screened the same commit)
		}
		set[d.Path] = d.Old
		if !d.New.regular() {
			why = append(why, fmt.Sprintf("%q put back (the remote deleted it)", wp))
			warns = append(warns, fmt.Sprintf("the remote deleted the source %s; sources are never deleted, so llmwiki put it back (delete it yourself with git if you mean it)", wp))
			continue
		}
		name, err := r.freeName(ctx, d.Path, "-remote", theirs, set)
		if err != nil {
			return "", err
		}
		set[name] = syncTreeEntry{Mode: "100644", OID: d.New.OID}
		nw := r.syncWikiPath(name)
		why = append(why, fmt.Sprintf("%q put back, the remote's rewrite saved as %q", wp, nw))
		warns = append(warns, fmt.Sprintf("the remote rewrote the source %s; sources are never rewritten, so %s keeps the bytes it had and the remote's version is saved as %s", wp, wp, nw))
	}
	if len(set) == 0 {
		return theirs, nil
	}
	sort.Strings(why)
	sort.Strings(warns)
	tipTree, err := r.syncRun(ctx, "rev-parse", theirs+"^{tree}")
	if err != nil {
		return "", err
	}
	tree, err := r.syncWriteTree(ctx, tipTree, set)
	if err != nil {
		return "", err
	}
	tip, err := r.screenCommit(ctx, theirs, tree, why)
	if err != nil {
		return "", err
	}
	res.Warnings = append(res.Warnings, warns...)
	return tip, nil
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
