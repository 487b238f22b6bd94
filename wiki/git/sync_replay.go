package git

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// pendingConflict is a conflict found by a replay, recorded once the sync
// has taken the local version's snapshot.
type pendingConflict struct {
	c    wiki.SyncConflict
	data []byte // the local version (nil when the local side deleted the file)
}

// integrate brings the remote commit theirs into the checked-out branch:
// nothing to do when the branch has it, a fast-forward when the branch has
// nothing of its own, else a replay of the local commits on it. Then the
// branch and the working tree move together (git's own two-way checkout,
// which refuses to overwrite an unsaved edit), the local sides of
// conflicts are snapshotted and the derived state learns every changed
// file. Call it under the project lock.
func (r *Repo) integrate(ctx context.Context, call *store.Call, theirs string, res *SyncResult) ([]pendingConflict, error) {
	ours, err := r.syncRevParse(ctx, "HEAD")
	if err != nil {
		return nil, err
	}
	if theirs == "" || theirs == ours {
		return nil, nil
	}
	var tip string
	var conflicts []pendingConflict
	if ours == "" { // an unborn branch: take the remote's
		if tip, conflicts, err = r.screen(ctx, "", theirs, res); err != nil {
			return nil, err
		}
	} else {
		base, err := r.syncRun(ctx, "merge-base", ours, theirs)
		if err != nil || base == "" {
			return nil, store.Errorf(store.CodeConflict, "the local branch and the remote share no history (two separate repositories): clone the shared repository and copy the wiki into it, or merge them with git yourself; nothing was changed")
		}
		if base == theirs {
			return nil, nil // the remote has nothing new
		}
		fetched, err := r.syncRun(ctx, "rev-list", "--count", ours+".."+theirs)
		if err == nil {
			fmt.Sscan(fetched, &res.Fetched)
		}
		if theirs, err = r.keepSources(ctx, base, ours, theirs, res); err != nil {
			return nil, err
		}
		tip = theirs // behind only: a fast-forward
		if base != ours {
			if tip, conflicts, err = r.replay(ctx, base, ours, theirs, res); err != nil {
				return nil, err
			}
		}
		var twins []pendingConflict
		if tip, twins, err = r.screen(ctx, ours, tip, res); err != nil {
			return nil, err
		}
		conflicts = append(conflicts, twins...)
	}
	if err := r.checkout(ctx, call, ours, tip, res); err != nil {
		return nil, err
	}
	for i := range conflicts {
		pc := &conflicts[i]
		if pc.data == nil {
			continue
		}
		snap, err := r.st.SaveSnapshot(call, pc.c.Path, pc.data)
		if err != nil {
			res.Warnings = append(res.Warnings, "the local version of "+pc.c.Path+" could not be kept as a snapshot: "+store.PublicMessage(err)+"; it is still in git as commit "+r.syncShortOf(pc.c.Local))
			continue
		}
		pc.c.Snapshot = snap
	}
	return conflicts, nil
}

// replay re-creates each local commit of base..ours on theirs, by the
// wiki's rules for a file both sides changed, and returns the new tip. It
// writes objects only: no ref, index or file moves.
func (r *Repo) replay(ctx context.Context, base, ours, theirs string, res *SyncResult) (string, []pendingConflict, error) {
	out, err := r.syncRun(ctx, "rev-list", "--reverse", "--parents", base+".."+ours)
	if err != nil {
		return "", nil, err
	}
	tip := theirs
	byPath := map[string]int{} // conflicts by path: a later commit's local version replaces an earlier one's
	var conflicts []pendingConflict
	merged := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return "", nil, store.Errorf(store.CodeConflict, "the local history has a merge commit (%s): sync rebases commits one by one and cannot replay a merge; run `git pull --rebase` yourself, then sync; nothing was changed", r.syncShortOf(f[0]))
		}
		c, parent := f[0], f[1]
		diff, err := r.syncDiffTrees(ctx, parent, c)
		if err != nil {
			return "", nil, err
		}
		if len(diff) == 0 {
			continue
		}
		paths := make([]string, len(diff))
		for i, d := range diff {
			paths[i] = d.Path
		}
		now, err := r.syncLsTree(ctx, tip, paths)
		if err != nil {
			return "", nil, err
		}
		set := map[string]syncTreeEntry{}
		for _, d := range diff {
			t := now[d.Path]
			switch {
			case t == d.Old:
				set[d.Path] = d.New // the remote left it alone: ours
			case t == d.New:
				// both made the same change
			default:
				e, pc, rn, err := r.resolve(ctx, d, t, c, tip, set)
				if err != nil {
					return "", nil, err
				}
				set[d.Path] = e
				if rn != nil {
					res.Renamed = append(res.Renamed, *rn)
				}
				if pc != nil {
					if i, ok := byPath[pc.c.Path]; ok {
						conflicts[i] = *pc
					} else {
						byPath[pc.c.Path] = len(conflicts)
						conflicts = append(conflicts, *pc)
					}
				} else if rn == nil {
					merged[r.syncWikiPath(d.Path)] = true
				}
			}
		}
		tipTree, err := r.syncRun(ctx, "rev-parse", tip+"^{tree}")
		if err != nil {
			return "", nil, err
		}
		tree, err := r.syncWriteTree(ctx, tipTree, set)
		if err != nil {
			return "", nil, err
		}
		if tree == tipTree {
			continue // the remote already holds this commit's changes
		}
		next, err := r.recommit(ctx, c, tree, tip)
		if err != nil {
			return "", nil, err
		}
		tip = next
		res.Replayed++
	}
	for p := range merged {
		if _, conflicted := byPath[p]; !conflicted {
			res.Merged = append(res.Merged, p)
		}
	}
	sort.Strings(res.Merged)
	return tip, conflicts, nil
}

// recommit makes a commit of tree on parent with c's author, date and
// message; the committer is the person (or llmwiki).
func (r *Repo) recommit(ctx context.Context, c, tree, parent string) (string, error) {
	raw, err := r.syncTopGit().Run(ctx, "cat-file", "commit", c)
	if err != nil {
		return "", err
	}
	msg := raw
	if i := bytes.Index(raw, []byte("\n\n")); i >= 0 {
		msg = raw[i+2:]
	} else {
		msg = nil
	}
	who, err := r.syncRun(ctx, "log", "-1", "--format=%an%x00%ae%x00%ad", "--date=raw", c)
	if err != nil {
		return "", err
	}
	f := strings.Split(who, "\x00")
	if len(f) != 3 {
		return "", store.Internal("read commit "+r.syncShortOf(c), fmt.Errorf("unexpected author %q", syncClip(who)))
	}
	name, email := r.syncIdentity(ctx)
	env := []string{"GIT_AUTHOR_NAME=" + f[0], "GIT_AUTHOR_EMAIL=" + f[1], "GIT_AUTHOR_DATE=@" + f[2],
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
	out, err := r.syncTopGit().RunWith(ctx, msg, env, "commit-tree", tree, "-p", parent, "-F", "-")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// resolve decides a file both the local commit c (d.Old → d.New) and the
// remote (now at t, in tip) changed, by the file's layer:
//   - a clean three-way text merge (git merge-file) is taken;
//   - log.md: the union of both sides' entries in time order;
//   - a research note: the remote's plus the sections the local side
//     appended;
//   - index.md: the remote's (the sync regenerates it after);
//   - a source: the remote's keeps the name, the local one is saved under
//     a new name and reported;
//   - anything else (pages, context.md, guidelines.md, schema.md): the
//     remote version, the local one kept as a snapshot and recorded as a
//     conflict for a person to merge.
//
// A file outside the wiki root that both sides changed stops the sync.
func (r *Repo) resolve(ctx context.Context, d syncDiffEntry, t syncTreeEntry, c, tip string, set map[string]syncTreeEntry) (syncTreeEntry, *pendingConflict, *SourceRename, error) {
	wp, inside := r.syncInWiki(d.Path)
	if !inside {
		return t, nil, nil, store.Errorf(store.CodeConflict, "%s, outside the wiki, was changed both here and on the remote: merge it with git yourself (git pull --rebase), then sync; nothing was changed", d.Path)
	}
	blobs, err := r.syncReadBlobs(ctx, []string{d.Old.OID, d.New.OID, t.OID})
	if err != nil {
		return t, nil, nil, err
	}
	base, local, remote := blobs[d.Old.OID], blobs[d.New.OID], blobs[t.OID]
	blob := func(data []byte, like syncTreeEntry) (syncTreeEntry, error) {
		mode := "100644"
		if like.Mode == "100755" {
			mode = like.Mode
		}
		oid, err := r.syncWriteBlob(ctx, data)
		return syncTreeEntry{Mode: mode, OID: oid}, err
	}
	layer := wiki.LayerOf(wp)
	allText := (d.Old.absent() || d.Old.regular()) && (d.New.absent() || d.New.regular()) && (t.absent() || t.regular())
	if layer == wiki.LayerLog && allText {
		e, err := blob(wiki.MergeLogs(local, remote), t)
		return e, nil, nil, err
	}
	if allText && !d.New.absent() && !t.absent() && layer != wiki.LayerSources {
		mb, ml, later, aligned := base, local, []byte(nil), false
		if layer == wiki.LayerPages {
			mb, ml, later, aligned = alignUpdated(base, local, remote)
		}
		if m, clean, err := r.mergeFile(ctx, mb, ml, remote); err != nil {
			return t, nil, nil, err
		} else if clean {
			if aligned {
				m = restoreUpdated(m, later)
			}
			e, err := blob(m, t)
			return e, nil, nil, err
		}
	}
	switch layer {
	case wiki.LayerResearch:
		if d.New.absent() {
			return t, nil, nil, nil // research notes only grow: a local removal is not replayed
		}
		if t.absent() {
			return d.New, nil, nil, nil
		}
		if added, ok := appendedPart(base, local, d.Old.absent()); ok {
			if bytes.HasSuffix(remote, added) {
				return t, nil, nil, nil
			}
			joined := append(append([]byte(nil), remote...), added...)
			if len(remote) > 0 && !bytes.HasSuffix(remote, []byte("\n")) {
				joined = append(append(append([]byte(nil), remote...), '\n'), added...)
			}
			e, err := blob(joined, t)
			return e, nil, nil, err
		}
	case wiki.LayerIndex:
		return t, nil, nil, nil
	case wiki.LayerSources:
		if d.New.absent() {
			return t, nil, nil, nil // sources are never deleted by a sync
		}
		if t.absent() {
			return d.New, nil, nil, nil
		}
		name, err := r.freeName(ctx, d.Path, "-local", tip, set)
		if err != nil {
			return t, nil, nil, err
		}
		set[name] = d.New
		lw, _ := r.syncInWiki(name)
		return t, nil, &SourceRename{Path: wp, Local: lw}, nil
	}
	pc := &pendingConflict{data: nil}
	if !d.New.absent() {
		pc.data = local
	}
	pc.c = wiki.SyncConflict{Path: wp, Found: r.st.Now(), Local: c, Remote: tip}
	if !d.New.absent() {
		pc.c.LocalSHA256 = store.SHA256Hex(local)
	}
	if !t.absent() {
		pc.c.RemoteSHA256 = store.SHA256Hex(remote)
	}
	pc.c.ID = "c-" + store.SHA256Hex([]byte(wp + "\x00" + c + "\x00" + tip))[:12]
	switch {
	case d.New.absent():
		pc.c.Summary = fmt.Sprintf("%s was deleted here (commit %s) and changed on the remote (commit %s): the remote version is kept; delete it again if that is still right", wp, r.syncShortOf(c), r.syncShortOf(tip))
	case t.absent():
		pc.c.Summary = fmt.Sprintf("%s was changed here (commit %s) and deleted on the remote (commit %s): the file is gone, your version is a snapshot; restore it if it should stay", wp, r.syncShortOf(c), r.syncShortOf(tip))
	default:
		pc.c.Summary = fmt.Sprintf("%s was changed both here (commit %s) and on the remote (commit %s) in the same lines: the remote version is the file, yours is a snapshot; merge them and write the result", wp, r.syncShortOf(c), r.syncShortOf(tip))
	}
	return t, pc, nil, nil
}

// appendedPart returns what local added at the end of base (a research
// note that only grows). With no base (both sides created the note) it is
// local's sections: from its first "## " heading.
func appendedPart(base, local []byte, created bool) ([]byte, bool) {
	if created {
		if i := bytes.Index(local, []byte("\n## ")); i >= 0 {
			return local[i+1:], true
		}
		return nil, false
	}
	if !bytes.HasPrefix(local, base) || len(local) == len(base) {
		return nil, false
	}
	return local[len(base):], true
}

// freeName returns a name for a second copy of the file p that neither
// tip nor set uses: "<stem><suffix><ext>", then "<stem><suffix>-2<ext>", …
// (suffix "-local" for the local copy of a source both sides added,
// "-remote" for the remote's rewrite of one).
func (r *Repo) freeName(ctx context.Context, p, suffix, tip string, set map[string]syncTreeEntry) (string, error) {
	ext := path.Ext(p)
	stem := strings.TrimSuffix(p, ext)
	for i := 1; i < 1000; i++ {
		name := stem + suffix + ext
		if i > 1 {
			name = fmt.Sprintf("%s%s-%d%s", stem, suffix, i, ext)
		}
		if e, ok := set[name]; ok && !e.absent() {
			continue
		}
		have, err := r.syncLsTree(ctx, tip, []string{name})
		if err != nil {
			return "", err
		}
		if _, ok := have[name]; !ok {
			return name, nil
		}
	}
	return "", store.Errorf(store.CodeConflict, "no free name for the local copy of %s", p)
}

// checkout moves the branch and the working tree from old to tip with
// git's own two-way checkout (reset --keep), which refuses to overwrite a
// file with changes not committed, then tells the wiki what changed on
// disk. old is "" for an unborn branch.
func (r *Repo) checkout(ctx context.Context, call *store.Call, old, tip string, res *SyncResult) error {
	var err error
	if old == "" {
		_, err = r.syncRun(ctx, "read-tree", "-m", "-u", tip)
		if err == nil {
			_, err = r.syncRun(ctx, "update-ref", "-m", "llmwiki sync", "HEAD", tip, "")
		}
	} else {
		_, err = r.syncRun(ctx, "reset", "-q", "--keep", tip)
	}
	if err != nil {
		if files := overwritten(syncStderrOf(err)); len(files) > 0 {
			for i, f := range files {
				if wp, ok := r.syncInWiki(f); ok {
					files[i] = wp
				}
			}
			return store.Errorf(store.CodeConflict, "the sync would overwrite your unsaved edit of %s; run `llmwiki sync` to commit it first (nothing was changed)", strings.Join(files, ", "))
		}
		r.st.Logger().Warn("git checkout failed during sync", "err", err, "stderr", syncStderrOf(err))
		return store.Errorf(store.CodeInternal, "git could not check out the synced branch (%s); nothing was changed", err.Error())
	}
	from := old
	if from == "" {
		from = syncEmptyTree
	}
	diff, err := r.syncDiffTrees(ctx, from, tip)
	if err != nil {
		res.Warnings = append(res.Warnings, "the files the sync changed could not be listed; the search index and link graph find them at their next rescan")
		return nil
	}
	var oids []string
	for _, d := range diff {
		oids = append(oids, d.Old.OID, d.New.OID)
	}
	blobs, err := r.syncReadBlobs(ctx, oids)
	if err != nil {
		blobs = map[string][]byte{}
	}
	var records []store.WriteRecord
	var changes []store.Change
	for _, d := range diff {
		wp, ok := r.syncInWiki(d.Path)
		if !ok {
			continue
		}
		res.Changed = append(res.Changed, wp)
		rec := store.WriteRecord{Path: wp}
		ch := store.Change{Path: wp, Op: store.OpReplace}
		if !d.Old.absent() {
			rec.Before = store.SHA256Hex(blobs[d.Old.OID])
		} else {
			ch.Op = store.OpCreate
		}
		if d.New.absent() {
			ch.Op = store.OpDelete
		} else {
			ch.Data = blobs[d.New.OID]
			rec.After = store.SHA256Hex(ch.Data)
		}
		records = append(records, rec)
		changes = append(changes, ch)
	}
	r.st.ApplySynced(ctx, call, records, changes)
	return nil
}

// syncEmptyTree is git's empty tree.
const syncEmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

var (
	quotedEntry = regexp.MustCompile(`Entry '([^']+)'`)
)

// overwritten reads the files git refused to overwrite from its stderr.
func overwritten(stderr string) []string {
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, m := range quotedEntry.FindAllStringSubmatch(stderr, -1) {
		add(m[1])
	}
	listing := false
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.Contains(l, "would be overwritten"):
			listing = true
		case listing && strings.HasPrefix(l, "\t"):
			add(strings.TrimSpace(l))
		default:
			listing = false
		}
	}
	return files
}

// syncInWiki turns a repository path into a path from the wiki root, and
// reports whether it is under the root.
func (r *Repo) syncInWiki(p string) (string, bool) {
	if r.prefix == "" {
		return p, true
	}
	if rest, ok := strings.CutPrefix(p, r.prefix); ok && rest != "" {
		return rest, true
	}
	return p, false
}

// syncWikiPath is [Repo.syncInWiki] without the report.
func (r *Repo) syncWikiPath(p string) string {
	wp, _ := r.syncInWiki(p)
	return wp
}

// short abbreviates a hash for a message.
func (r *Repo) syncShortOf(h string) string { return syncShortHash(h) }

// updatedLine finds a page's frontmatter "updated:" line: the start and
// end of the line in data (end excludes the newline), ok false when the
// page has no frontmatter or no such line.
func updatedLine(data []byte) (start, end int, ok bool) {
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return 0, 0, false
	}
	i := 4
	for i < len(data) {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return 0, 0, false
		}
		line := data[i : i+j]
		if bytes.Equal(bytes.TrimRight(line, "\r"), []byte("---")) {
			return 0, 0, false
		}
		if bytes.HasPrefix(line, []byte("updated:")) {
			return i, i + j, true
		}
		i += j + 1
	}
	return 0, 0, false
}

// withLine returns data with its updated line [start,end) replaced by line.
func withLine(data []byte, start, end int, line []byte) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(line))
	out = append(out, data[:start]...)
	out = append(out, line...)
	return append(out, data[end:]...)
}

// alignUpdated prepares a page's three versions for a text merge: every
// write stamps the page's "updated:" time, so two edits of one page always
// differ on that line even when their edits are far apart. The base's and
// the local version's line are set to the remote's; after the merge, the
// later of the two times is put back (see [restoreUpdated]).
func alignUpdated(base, local, remote []byte) (b, l []byte, later []byte, ok bool) {
	rs, re, ok1 := updatedLine(remote)
	ls, le, ok2 := updatedLine(local)
	if !ok1 || !ok2 {
		return base, local, nil, false
	}
	rl, ll := remote[rs:re], local[ls:le]
	later = rl
	if string(ll) > string(rl) {
		later = ll
	}
	l = withLine(local, ls, le, rl)
	b = base
	if bs, be, ok := updatedLine(base); ok {
		b = withLine(base, bs, be, rl)
	}
	return b, l, append([]byte(nil), later...), true
}

// restoreUpdated puts the later "updated:" line into a merged page.
func restoreUpdated(merged, later []byte) []byte {
	if s, e, ok := updatedLine(merged); ok && later != nil {
		return withLine(merged, s, e, later)
	}
	return merged
}
