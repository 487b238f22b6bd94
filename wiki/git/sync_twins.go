package git

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// A twin is a file a sync brings in whose name is one file with another's
// by the store's rules: a page whose key ([wiki.PageKey]: case, separators,
// accents) is an existing page's, or any file or folder whose name folds
// ([store.FoldName]: case, Unicode form) to an existing sibling's. On
// macOS and Windows the two would be one file (the checkout would overwrite
// one with the other); on Linux the wiki would hold two files the store
// itself refuses to create. The sync renames the incoming one.

// twinRename is one file a screen moved to keep the store's name rules.
type twinRename struct {
	from, to string // from the wiki root
	// twin is the file it would have been one file with ("" when only a
	// folder was respelled to the existing folder's spelling).
	twin     string
	twinData []byte
	toSHA256 string
}

func (tw twinRename) reason() string {
	if tw.twin == "" {
		return "into the existing folder " + path.Dir(tw.to)
	}
	return "one file with " + tw.twin
}

func (tw twinRename) warning() string {
	if tw.twin == "" {
		return fmt.Sprintf("the remote's %s was moved to %s: its folder differs from an existing folder only by case or Unicode form, which are one folder on macOS and Windows", tw.from, tw.to)
	}
	return fmt.Sprintf("the remote's %s was renamed %s: its name differs from %s only by case, separators or Unicode form, which are one file on macOS and Windows; merge the two and delete the other", tw.from, tw.to, tw.twin)
}

// conflict is the sync conflict a renamed page is recorded as, so a person
// merges the twins: the file is the remote's page under its new name, the
// local version (snapshotted by the caller) is its twin's text, so the
// review page's diff runs from the twin to it.
func (tw twinRename) conflict(r *Repo, local, remote string) *pendingConflict {
	if tw.twin == "" || wiki.LayerOf(tw.to) != wiki.LayerPages {
		return nil
	}
	c := wiki.SyncConflict{Path: tw.to, Found: r.st.Now(), Local: local, Remote: remote,
		LocalSHA256: store.SHA256Hex(tw.twinData), RemoteSHA256: tw.toSHA256}
	c.ID = "c-" + store.SHA256Hex([]byte(tw.to + "\x00" + tw.twin + "\x00" + remote))[:12]
	c.Summary = fmt.Sprintf("%s from the remote (commit %s) and %s are one page by name (they differ only by case, separators or accents): the remote's page is now %s and the snapshot holds %s; merge them into one and delete the other", tw.from, r.syncShortOf(remote), tw.twin, tw.to, tw.twin)
	return &pendingConflict{c: c, data: tw.twinData}
}

// twinKeys are the names under which the store's rules count the file wp
// (from the wiki root): its folded name, and a page's key.
func twinKeys(wp string) []string {
	keys := []string{"f:" + store.FoldName(wp)}
	if wiki.LayerOf(wp) == wiki.LayerPages && strings.EqualFold(path.Ext(wp), ".md") {
		keys = append(keys, "p:"+wiki.PageKey(wp))
	}
	return keys
}

// folderKey is the name under which a folder is one folder with another
// on macOS and Windows.
func folderTwinKey(dir string) string { return "d:" + store.FoldName(dir) }

// renameTwins adds to set (repository path → entry) the renames that keep
// the store's name rules in target's tree once set is applied: every file
// the diff adds (in path order, so of two incoming twins the first keeps
// its name) that is one file with a file target keeps or an earlier
// incoming one is moved to "<stem>-remote<ext>" (then "-remote-2", …),
// and its folders are spelled as existing folders that differ only by
// case or Unicode form.
func (r *Repo) renameTwins(ctx context.Context, diff []syncDiffEntry, target string, set map[string]syncTreeEntry) ([]twinRename, error) {
	added := map[string]syncTreeEntry{} // wiki path → entry
	for _, d := range diff {
		wp, inside := r.syncInWiki(d.Path)
		if !inside || !d.Old.absent() || d.New.absent() {
			continue
		}
		e := d.New
		if s, ok := set[d.Path]; ok {
			if s.absent() {
				continue
			}
			e = s
		}
		added[wp] = e
	}
	if len(added) == 0 {
		return nil, nil
	}
	args := []string{"ls-tree", "-r", "-z", "--full-tree", target}
	if r.prefix != "" {
		args = append(args, "--", strings.TrimSuffix(r.prefix, "/"))
	}
	out, err := r.syncTopGit().Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	tree := map[string]syncTreeEntry{}
	if err := parseSyncLsTree(out, tree); err != nil {
		return nil, err
	}
	for p, e := range set {
		if e.absent() {
			delete(tree, p)
		} else {
			tree[p] = e
		}
	}
	holder := map[string]string{}  // key → wiki path holding it
	folders := map[string]string{} // folder key → its spelling
	claim := func(wp string) {
		for _, k := range twinKeys(wp) {
			if _, ok := holder[k]; !ok {
				holder[k] = wp
			}
		}
		for d := path.Dir(wp); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := folders[folderTwinKey(d)]; !ok {
				folders[folderTwinKey(d)] = d
			}
		}
	}
	taken := func(wp string) string {
		for _, k := range twinKeys(wp) {
			if h, ok := holder[k]; ok && h != wp {
				return h
			}
		}
		return ""
	}
	paths := map[string]bool{} // wiki paths of the tree
	for p := range tree {
		if wp, inside := r.syncInWiki(p); inside {
			paths[wp] = true
			if _, in := added[wp]; !in {
				claim(wp)
			}
		}
	}
	order := make([]string, 0, len(added))
	for wp := range added {
		order = append(order, wp)
	}
	sort.Strings(order)
	var renames []twinRename
	var oids []string
	for _, wp := range order {
		// Spell its folders as the existing ones.
		parts := strings.Split(wp, "/")
		for i := 0; i < len(parts)-1; i++ {
			cand := strings.Join(parts[:i+1], "/")
			if sp, ok := folders[folderTwinKey(cand)]; ok && sp != cand {
				parts[i] = path.Base(sp)
			}
		}
		to := strings.Join(parts, "/")
		twin := taken(to)
		if twin != "" {
			ext := path.Ext(to)
			stem := strings.TrimSuffix(to, ext)
			free := ""
			for i := 1; i < 1000 && free == ""; i++ {
				name := stem + "-remote" + ext
				if i > 1 {
					name = fmt.Sprintf("%s-remote-%d%s", stem, i, ext)
				}
				if !paths[name] && taken(name) == "" {
					free = name
				}
			}
			if free == "" {
				return nil, store.Errorf(store.CodeConflict, "no free name for the remote's %s, which is one file with %s", wp, twin)
			}
			to = free
		}
		claim(to)
		if to == wp {
			continue
		}
		paths[to] = true
		e := added[wp]
		set[r.prefix+wp] = syncTreeEntry{}
		set[r.prefix+to] = e
		tw := twinRename{from: wp, to: to, twin: twin}
		if twin != "" {
			oids = append(oids, e.OID, tree[r.prefix+twin].OID)
		}
		renames = append(renames, tw)
	}
	if len(oids) > 0 {
		blobs, err := r.syncReadBlobs(ctx, oids)
		if err != nil {
			return nil, err
		}
		for i := range renames {
			tw := &renames[i]
			if tw.twin == "" {
				continue
			}
			tw.twinData = bytes.Clone(blobs[tree[r.prefix+tw.twin].OID])
			tw.toSHA256 = store.SHA256Hex(blobs[set[r.prefix+tw.to].OID])
		}
	}
	return renames, nil
}
