package wiki

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// AllSnapshots lists every stored version of every file, by file path and
// then newest first.
func (s *Store) AllSnapshots() ([]store.Snapshot, error) {
	var out []store.Snapshot
	err := fs.WalkDir(s.root.FS(), store.SnapshotDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == store.SnapshotDir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil
		}
		if d.IsDir() || store.IsTempName(p) {
			return nil
		}
		if sn, ok := store.ParseSnapshotPath(p); ok {
			if info, err := d.Info(); err == nil {
				sn.Size = info.Size()
			}
			out = append(out, sn)
		}
		return nil
	})
	if err != nil {
		return nil, store.Internal("list snapshots", err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Snapshot > out[j].Snapshot
	})
	return out, nil
}

// SnapshotsOf lists the stored versions of the file a caller named (a path,
// or a page slug or title, as [Store.RestoreSnapshot] accepts), newest
// first, with the path it resolved to.
func (s *Store) SnapshotsOf(name string) (string, []store.Snapshot, error) {
	rel, err := s.restoreTarget(name)
	if err != nil {
		return "", nil, err
	}
	list, err := s.Snapshots(rel)
	return rel, list, err
}

// RestoreInput names a stored version to bring back with
// [Store.RestoreSnapshot].
type RestoreInput struct {
	// Path is the file to restore ("pages/topic.md", "context.md"); a page
	// slug or title also works. It may be omitted when Snapshot is a full
	// snapshot path.
	Path string
	// Snapshot picks the version: a snapshot path as listed
	// (".llmwiki/snapshots/pages/x.md/2026…-1a2b….md"), its file name, or
	// at least 8 hex digits of its sha256. Empty picks the newest stored
	// version that differs from the current file (undo the last change).
	Snapshot string
	// BaseSHA256, when set, must be the sha256 of the current file: the
	// restore is then a conflict if the file changed since it was read.
	BaseSHA256 string
}

// RestoreResult reports a restore.
type RestoreResult struct {
	// Path is the file restored.
	Path string `json:"path"`
	// Restored is the snapshot whose content the file now holds (empty
	// when the version came from a git commit: Commit names it).
	Restored string `json:"restored,omitempty"`
	// Commit is the git commit whose version the file now holds (short
	// hash), when the restore named one.
	Commit string `json:"commit,omitempty"`
	// SHA256 is the file's sha256 after the restore.
	SHA256 string `json:"sha256"`
	// Changed is false when the file already held that version.
	Changed bool `json:"changed"`
	// Snapshot is where the version that was replaced is kept ("" when
	// nothing was replaced, or the file did not exist).
	Snapshot string `json:"snapshot,omitempty"`
}

var hexRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]+$`) })

// RestoreSnapshot brings back a stored version of a page, context.md or
// guidelines.md through the audited writer: the current version is
// snapshotted first, like any replaced version, so a restore can itself be
// undone. A page that was moved or deleted is created again under its old
// path. The snapshot's bytes are checked against the sha256 in its name; a
// damaged snapshot is refused. guidelines.md's "## My Rules" section is
// never changed: a version whose My Rules differ is refused.
func (s *Store) RestoreSnapshot(ctx context.Context, in RestoreInput) (out RestoreResult, err error) {
	ctx, call, done := s.WithOwnCall(ctx)
	defer func() { done(err) }()
	if in.BaseSHA256 != "" && !isHexSHA(in.BaseSHA256) {
		return out, store.Errorf(store.CodeInvalid, "base_sha256 must be 64 hex digits, as read_page returns it")
	}
	sn, rel, err := s.findSnapshot(in)
	if err != nil {
		return out, err
	}
	data, ok, err := s.ReadRaw(sn.Snapshot)
	if err != nil {
		return out, err
	}
	if !ok {
		return out, store.Errorf(store.CodeNotFound, "snapshot %s does not exist; list_snapshots shows the stored versions", sn.Snapshot)
	}
	if !strings.HasPrefix(store.SHA256Hex(data), sn.SHA256Prefix) {
		return out, store.Errorf(store.CodeInvalid, "snapshot %s is damaged: its content does not match the sha256 in its name; choose another version", sn.Snapshot)
	}
	out, err = s.restoreBytes(ctx, call, rel, data, in.BaseSHA256)
	if err != nil {
		return RestoreResult{}, err
	}
	out.Restored = sn.Snapshot
	return out, nil
}

// RestoreTarget resolves what a caller named (a path, or a page slug,
// title or alias) to the file a restore or a history is about: an existing
// page, or one whose snapshots exist under pages/<slug>.md, context.md or
// guidelines.md. Other files are refused with the reason.
func (s *Store) RestoreTarget(name string) (string, error) { return s.restoreTarget(name) }

// RestoreVersionInput names an earlier version that is not a snapshot (a
// git commit's copy of the file) to bring back with [Store.RestoreVersion].
type RestoreVersionInput struct {
	// Path is the file to restore, as [Store.RestoreTarget] resolves it.
	Path string
	// Content is the version's bytes.
	Content []byte
	// BaseSHA256 is as in [RestoreInput].
	BaseSHA256 string
}

// RestoreVersion brings back a version of a page, context.md or
// guidelines.md given by its bytes, through the same audited writer as
// [Store.RestoreSnapshot]: the current version is snapshotted first,
// base_sha256 is honoured, a deleted page is created again, and
// guidelines.md's "## My Rules" must come out unchanged. Restored in the
// result is empty: the caller names the version.
func (s *Store) RestoreVersion(ctx context.Context, in RestoreVersionInput) (out RestoreResult, err error) {
	ctx, call, done := s.WithOwnCall(ctx)
	defer func() { done(err) }()
	if in.BaseSHA256 != "" && !isHexSHA(in.BaseSHA256) {
		return out, store.Errorf(store.CodeInvalid, "base_sha256 must be 64 hex digits, as read_page returns it")
	}
	rel, err := s.restoreTarget(in.Path)
	if err != nil {
		return out, err
	}
	if err := restorable(rel); err != nil {
		return out, err
	}
	data := in.Content
	if data == nil {
		data = []byte{}
	}
	out, err = s.restoreBytes(ctx, call, rel, data, in.BaseSHA256)
	if err != nil {
		return RestoreResult{}, err
	}
	return out, nil
}

// restoreBytes writes data as rel in one audited transaction, checking
// base (when set) against the current file, and reports the snapshot the
// replaced version went to.
func (s *Store) restoreBytes(ctx context.Context, call *store.Call, rel string, data []byte, base string) (out RestoreResult, err error) {
	before := len(call.SnapshotsTaken())
	err = s.Update(ctx, func(tx *store.Tx) error {
		cur, exists, err := tx.Read(rel)
		if err != nil {
			return err
		}
		if base != "" {
			if !exists {
				return store.Errorf(store.CodeNotFound, "%s does not exist now, so base_sha256 cannot match; omit base_sha256 to restore it", rel)
			}
			if got := store.SHA256Hex(cur); got != strings.ToLower(base) {
				return store.Errorf(store.CodeConflict, "%s changed since you read it (base_sha256 %s… does not match the current %s…); read it again and decide whether to restore", rel, short(base), short(got))
			}
		}
		out.Changed = !exists || !bytes.Equal(cur, data)
		if !out.Changed {
			return nil
		}
		if exists {
			return tx.Replace(rel, data, "")
		}
		if LayerOf(rel) == LayerPages {
			return tx.Create(rel, data)
		}
		return tx.Replace(rel, data, "")
	})
	if err != nil {
		return RestoreResult{}, err
	}
	out.Path, out.SHA256 = rel, store.SHA256Hex(data)
	for _, p := range call.SnapshotsTaken()[before:] {
		if strings.HasPrefix(p, store.SnapshotDir+"/"+rel+"/") {
			out.Snapshot = p
		}
	}
	return out, nil
}

// findSnapshot resolves what RestoreInput names to one snapshot and the
// file it is a version of.
func (s *Store) findSnapshot(in RestoreInput) (store.Snapshot, string, error) {
	want := strings.TrimSpace(in.Snapshot)
	if strings.HasPrefix(want, ".llmwiki/") && !strings.HasPrefix(want, store.SnapshotDir+"/") {
		return store.Snapshot{}, "", store.Errorf(store.CodeInvalid, "%s is not a snapshot path (snapshots are under %s/; list_snapshots shows them)", want, store.SnapshotDir)
	}
	if strings.HasPrefix(want, store.SnapshotDir+"/") {
		p, err := CleanPath(want)
		if err != nil {
			return store.Snapshot{}, "", err
		}
		sn, ok := store.ParseSnapshotPath(p)
		if !ok {
			return store.Snapshot{}, "", store.Errorf(store.CodeInvalid, "%s is not a snapshot path (list_snapshots shows them)", p)
		}
		if in.Path != "" {
			rel, err := s.restoreTarget(in.Path)
			if err != nil {
				return store.Snapshot{}, "", err
			}
			if rel != sn.Path {
				return store.Snapshot{}, "", store.Errorf(store.CodeInvalid, "snapshot %s is a version of %s, not of %s", p, sn.Path, rel)
			}
		}
		if err := restorable(sn.Path); err != nil {
			return store.Snapshot{}, "", err
		}
		return sn, sn.Path, nil
	}
	if in.Path == "" {
		return store.Snapshot{}, "", store.Errorf(store.CodeInvalid, "name the file to restore (path), or give a full snapshot path")
	}
	rel, err := s.restoreTarget(in.Path)
	if err != nil {
		return store.Snapshot{}, "", err
	}
	list, err := s.Snapshots(rel)
	if err != nil {
		return store.Snapshot{}, "", err
	}
	if len(list) == 0 {
		return store.Snapshot{}, "", store.Errorf(store.CodeNotFound, "%s has no stored versions (a version is stored each time the file is replaced)", rel)
	}
	if want == "" {
		cur, _, err := s.ReadRaw(rel)
		if err != nil {
			return store.Snapshot{}, "", err
		}
		curSum := store.SHA256Hex(cur)
		for _, sn := range list {
			if !strings.HasPrefix(curSum, sn.SHA256Prefix) {
				return sn, rel, nil
			}
		}
		return store.Snapshot{}, "", store.Errorf(store.CodeNotFound, "every stored version of %s equals the current file; there is nothing to undo", rel)
	}
	var found []store.Snapshot
	for _, sn := range list {
		if path.Base(sn.Snapshot) == want {
			return sn, rel, nil
		}
		if len(want) >= 8 && hexRe().MatchString(want) && (strings.HasPrefix(sn.SHA256Prefix, strings.ToLower(want)) || (len(want) > 16 && strings.HasPrefix(strings.ToLower(want), sn.SHA256Prefix))) {
			found = append(found, sn)
		}
	}
	switch {
	case len(found) == 0:
		return store.Snapshot{}, "", store.Errorf(store.CodeNotFound, "no stored version of %s matches %q; list_snapshots shows them (give a snapshot path, its file name, or 8+ hex digits of its sha256)", rel, want)
	case len(found) > 1 && found[0].SHA256Prefix != found[len(found)-1].SHA256Prefix:
		return store.Snapshot{}, "", store.Errorf(store.CodeInvalid, "%q matches %d different versions of %s; give more hex digits or the snapshot path", want, len(found), rel)
	}
	return found[0], rel, nil // the newest copy of that content
}

// restoreTarget turns what a caller named into the path to restore: a
// path, or a page slug or title (of an existing page, or of a page whose
// snapshots exist under pages/<slug>.md).
func (s *Store) restoreTarget(name string) (string, error) {
	rel, err := CleanPath(strings.TrimPrefix(name, "./"))
	if err == nil && (LayerOf(rel) == LayerContext || LayerOf(rel) == LayerGuidelines || (LayerOf(rel) == LayerPages && strings.HasSuffix(rel, ".md"))) {
		return rel, nil
	}
	if err == nil && (LayerOf(rel) == LayerSources || LayerOf(rel) == LayerResearch) {
		// A name in the sources layer resolves there only, never to a page
		// in a folder named sources ([OtherLayerFolder]).
		if _, ok, rerr := s.ReadRaw(rel); rerr == nil && !ok {
			return "", store.Errorf(store.CodeNotFound, "%s not found; sources are never rewritten, so they have no stored versions (a page in a folder named sources is \"pages/%s\")", rel, rel)
		}
		return "", restorable(rel)
	}
	if p, err := s.ResolvePage(name); err == nil {
		return p, nil
	}
	if slug, err := mdoc.NormalizeSlug(name); err == nil {
		if list, _ := s.Snapshots(PagePath(slug)); len(list) > 0 {
			return PagePath(slug), nil
		}
	}
	if err != nil {
		return "", err
	}
	return "", restorable(rel)
}

// restorable refuses files that have no snapshots by design.
func restorable(rel string) error {
	switch LayerOf(rel) {
	case LayerPages, LayerContext, LayerGuidelines:
		return nil
	case LayerSources, LayerResearch:
		return store.Errorf(store.CodeInvalid, "%s is a source: sources are never rewritten, so they have no older versions", rel)
	case LayerIndex:
		return store.Errorf(store.CodeInvalid, "index.md is generated from the pages; run rebuild_index instead of restoring it")
	case LayerLog:
		return store.Errorf(store.CodeInvalid, "log.md only grows; its old entries are all still in it")
	}
	return store.Errorf(store.CodeInvalid, "%s has no stored versions: only pages, context.md and guidelines.md are snapshotted", rel)
}

// Retention is the snapshot retention set in schema.md's frontmatter
// (snapshot_keep_days, snapshot_keep_last). The zero value keeps every
// snapshot forever, the default.
type Retention struct {
	// KeepDays: snapshots younger than this many days are kept (0: all are).
	KeepDays int `json:"keep_days"`
	// KeepLast: the newest KeepLast snapshots of each file are kept
	// whatever their age; at least 1 (the version an undo brings back).
	KeepLast int `json:"keep_last"`
}

// Enabled reports whether the retention deletes anything at all.
func (r Retention) Enabled() bool { return r.KeepDays > 0 }

// PruneResult reports what [Store.PruneSnapshots] deleted and kept.
type PruneResult struct {
	Retention Retention `json:"retention"`
	// Deleted lists the snapshots deleted (or, with dry_run, that would be).
	Deleted []store.WriteRecord `json:"deleted"`
	// Kept counts the snapshots kept, and KeptReferenced those kept only
	// because they are the last copy of a version something refers to.
	Kept           int  `json:"kept"`
	KeptReferenced int  `json:"kept_referenced"`
	DryRun         bool `json:"dry_run,omitempty"`
}

// sha256Token finds sha256 values in the server's live state.
var sha256Token = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9a-f]{64}`) })

// referencedVersions collects the sha256 values the server's live state
// under .llmwiki/ refers to (pending plans, lint findings, filed answers
// and their citations): every file there except the history (audit/,
// snapshots/) and the search index.
func (s *Store) referencedVersions() map[string]bool {
	refs := map[string]bool{}
	_ = fs.WalkDir(s.root.FS(), ".llmwiki", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch p {
			case store.AuditDir, store.SnapshotDir, ".llmwiki/search":
				return fs.SkipDir
			}
			return nil
		}
		if store.IsTempName(p) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 64<<20 {
			return nil
		}
		data, ok, err := s.ReadRaw(p)
		if err != nil || !ok {
			return nil
		}
		for _, m := range sha256Token().FindAll(data, -1) {
			refs[string(m)] = true
		}
		return nil
	})
	return refs
}

// PruneSnapshots applies the retention schema.md sets (see [Retention]) to
// every file's snapshots, under the project lock. A snapshot is deleted only
// when all of these hold: it is older than keep_days; it is not among the
// newest keep_last of its file; and its version is not still referenced
// (a sha256 in the server's live state: pending plans, lint findings,
// filed answers) unless another copy of it survives (the current file, or
// a kept snapshot). Each deletion is a single unlink of a file no writer
// uses, so a crash part-way leaves only snapshots that were due anyway;
// what was deleted, with its sha256, goes into the call's audit line.
// With dryRun nothing is deleted. With no retention set it deletes nothing.
func (s *Store) PruneSnapshots(ctx context.Context, dryRun bool) (res PruneResult, err error) {
	ctx, call, done := s.WithOwnCall(ctx)
	defer func() { done(err) }()
	if s.readOnly {
		if !dryRun {
			return res, s.CheckWritable()
		}
		// Nothing can be pruned, so no lock is needed (none can be taken
		// when the read-only wiki has no lock file).
		return s.pruneLocked(true)
	}
	err = s.Locked(ctx, func() error {
		var perr error
		res, perr = s.pruneLocked(dryRun)
		return perr
	})
	if err == nil && !dryRun {
		call.AddPruned(res.Deleted)
	}
	return res, err
}

func (s *Store) pruneLocked(dryRun bool) (PruneResult, error) {
	ret := s.Settings().Retention
	res := PruneResult{Retention: ret, DryRun: dryRun, Deleted: []store.WriteRecord{}}
	all, err := s.AllSnapshots()
	if err != nil {
		return res, err
	}
	if !ret.Enabled() {
		res.Kept = len(all)
		return res, nil
	}
	keepLast := max(ret.KeepLast, 1)
	cutoff := s.Now().Add(-time.Duration(ret.KeepDays) * 24 * time.Hour)
	byFile := map[string][]store.Snapshot{}
	var files []string
	for _, sn := range all {
		if byFile[sn.Path] == nil {
			files = append(files, sn.Path)
		}
		byFile[sn.Path] = append(byFile[sn.Path], sn) // newest first
	}
	// Copies that survive whatever happens: current files and the
	// snapshots kept by age or count.
	surviving := map[string]bool{}
	survivingOf := map[string]bool{} // KeepKey(file, sha256) of the same
	type candidate struct {
		sn  store.Snapshot
		sum string
	}
	var candidates []candidate
	sumOf := func(p string) string {
		data, ok, err := s.ReadRaw(p)
		if err != nil || !ok {
			return ""
		}
		return store.SHA256Hex(data)
	}
	for _, of := range files {
		if cur, ok, _ := s.ReadRaw(of); ok {
			surviving[store.SHA256Hex(cur)] = true
			survivingOf[KeepKey(of, store.SHA256Hex(cur))] = true
		}
		for i, sn := range byFile[of] {
			if i < keepLast || !sn.Replaced.Before(cutoff) {
				res.Kept++
				if sum := sumOf(sn.Snapshot); sum != "" {
					surviving[sum] = true
					survivingOf[KeepKey(of, sum)] = true
				}
				continue
			}
			candidates = append(candidates, candidate{sn: sn})
		}
	}
	refs := s.referencedVersions()
	// Versions a write awaiting review needs: kept unless the same file
	// still has that version (its current content, or a kept snapshot of
	// it), since a revert and a diff look for it there only.
	keep := s.keptVersions()
	if keep[KeepAll] {
		res.Kept += len(candidates)
		return res, nil
	}
	// Oldest first, so of several copies of a referenced version the
	// newest stays.
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].sn.Replaced.Before(candidates[j].sn.Replaced) })
	for i := range candidates {
		candidates[i].sum = sumOf(candidates[i].sn.Snapshot)
	}
	remaining := map[string]int{}
	for _, c := range candidates {
		remaining[c.sum]++
	}
	for _, c := range candidates {
		if c.sum == "" {
			res.Kept++ // unreadable: leave it for a person to look at
			continue
		}
		if k := KeepKey(c.sn.Path, c.sum); keep[k] && !survivingOf[k] {
			res.Kept++
			res.KeptReferenced++
			continue
		}
		if refs[c.sum] && !surviving[c.sum] && remaining[c.sum] == 1 {
			res.Kept++
			res.KeptReferenced++
			continue
		}
		if !dryRun {
			if err := s.root.Remove(c.sn.Snapshot); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, store.Internal("delete snapshot "+c.sn.Snapshot, err)
			}
		}
		remaining[c.sum]--
		res.Deleted = append(res.Deleted, store.WriteRecord{Path: c.sn.Snapshot, Before: c.sum})
	}
	if len(res.Deleted) > 0 && !dryRun {
		dirs := map[string]bool{}
		for _, d := range res.Deleted {
			dirs[path.Dir(d.Path)] = true
		}
		for d := range dirs {
			_ = s.SyncDir(d)
		}
	}
	return res, nil
}

// pruneInterval is how often a write applies the retention by itself.
const pruneInterval = time.Hour

// autoPrune applies the retention after a commit that made snapshots, at
// most once per pruneInterval per store, under the lock the commit holds.
// What it deletes goes into the call's audit line; a failure is a warning.
func (s *Store) autoPrune(call *store.Call) {
	if !s.Settings().Retention.Enabled() {
		return
	}
	s.pruneMu.Lock()
	due := s.lastPrune.IsZero() || time.Since(s.lastPrune) >= pruneInterval
	if due {
		s.lastPrune = time.Now()
	}
	s.pruneMu.Unlock()
	if !due {
		return
	}
	res, err := s.pruneLocked(false)
	if err != nil {
		call.AddWarning("snapshot retention could not run: " + store.PublicMessage(err))
		s.log.Error("snapshot retention failed", "err", err)
		return
	}
	call.AddPruned(res.Deleted)
	if len(res.Deleted) > 0 {
		s.log.Info("snapshot retention deleted old snapshots", "deleted", len(res.Deleted), "kept", res.Kept)
	}
}

// describeRetention is the retention in words, for the command line.
func (r Retention) String() string {
	if !r.Enabled() {
		return "keep every snapshot (snapshot_keep_days in schema.md is 0 or absent)"
	}
	return fmt.Sprintf("keep %d days, and the newest %d of each file", r.KeepDays, max(r.KeepLast, 1))
}
