package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"
)

// Op is the kind of a staged change in a [Tx].
type Op string

// The operations a transaction can stage.
const (
	OpCreate  Op = "create"  // a new file; fails if it exists
	OpReplace Op = "replace" // new content for an existing (or, for derived files, missing) file
	OpAppend  Op = "append"  // bytes added at the end; existing bytes kept
	OpDelete  Op = "delete"  // remove a page (move_page); the old version is snapshotted
)

// Change is one committed change, as passed to [Derived] state.
type Change struct {
	Path string
	Op   Op
	// Data is the file's new content (nil after OpDelete).
	Data []byte
}

type change struct {
	rel     string
	op      Op
	data    []byte
	old     []byte
	existed bool
	mode    fs.FileMode
}

// Tx is a write transaction: changes staged in it are committed together by
// [Store.Update], all or none. A Tx is used by one goroutine, inside the
// function passed to Update, while the project lock is held.
type Tx struct {
	s       *Store
	ctx     context.Context
	changes []*change
	byPath  map[string]*change
}

// Update runs fn with a transaction while holding the project lock, then
// commits what fn staged: every invariant of the store (see the package doc)
// holds for each file.
// If fn returns an error nothing is written. If a step of the commit fails,
// files already renamed are put back and the error is returned; the old
// content is byte-identical and no temp file is left.
//
// The paths written, with sha256 before and after, and the snapshots made are
// added to the [Call] in ctx. When ctx has no Call, Update audits the write
// itself as tool "internal", so no write is ever unaudited; a dry run
// ([WithDryRun]) writes nothing and is not audited then.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	call := CallFrom(ctx)
	own := call == nil
	if own {
		call = NewCall("internal", s.session, nil)
		ctx = WithCall(ctx, call)
	}
	err := s.update(ctx, call, fn)
	if own && !IsDryRun(ctx) {
		if aerr := s.Audit(call, err); aerr != nil {
			s.log.Error("audit line not written", "err", aerr)
		}
	}
	return err
}

// WithOwnCall returns ctx carrying a Call: the caller's, or a new
// "internal" one that done audits (so a store method can report what it
// wrote, such as the snapshot it made, whoever called it); in a dry run
// ([WithDryRun]) nothing is written and done audits nothing.
func (s *Store) WithOwnCall(ctx context.Context) (context.Context, *Call, func(error)) {
	if c := CallFrom(ctx); c != nil {
		return ctx, c, func(error) {}
	}
	c := NewCall("internal", s.session, nil)
	return WithCall(ctx, c), c, func(err error) {
		if IsDryRun(ctx) {
			return
		}
		if aerr := s.Audit(c, err); aerr != nil {
			s.log.Error("audit line not written", "err", aerr)
		}
	}
}

func (s *Store) update(ctx context.Context, call *Call, fn func(*Tx) error) error {
	if err := s.CheckWritable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return Errorf(CodeCancelled, "cancelled before the write started; nothing was written")
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	tx := &Tx{s: s, ctx: ctx, byPath: map[string]*change{}}
	if err := fn(tx); err != nil {
		return err
	}
	if err := s.policy.beforeCommit(tx); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return Errorf(CodeCancelled, "cancelled before commit; nothing was written")
	}
	if d := dryRunFrom(ctx); d != nil {
		d.add(tx.Changes())
		return ErrDryRun
	}
	committed, records, snaps, err := s.commit(tx)
	if err != nil {
		return err
	}
	call.addWrites(records, snaps)
	s.policy.committed(ctx, call, committed, snaps)
	if len(committed) > 0 {
		s.applyDerived(ctx, call, committed)
	}
	return nil
}

// Context returns the context of the Update call.
func (tx *Tx) Context() context.Context { return tx.ctx }

// Store returns the store the transaction writes to.
func (tx *Tx) Store() *Store { return tx.s }

// Read returns the current content of rel as this transaction sees it (staged
// changes included). exists is false when the file does not exist.
func (tx *Tx) Read(rel string) (data []byte, exists bool, err error) {
	rel, err = tx.s.cleanPath(rel)
	if err != nil {
		return nil, false, err
	}
	if c, ok := tx.byPath[rel]; ok {
		if c.op == OpDelete {
			return nil, false, nil
		}
		return c.data, true, nil
	}
	return tx.s.ReadRaw(rel)
}

// StagedChange is a change staged in a [Tx], with what it replaces.
type StagedChange struct {
	Change
	// Old is the file's content before the transaction; Existed is false
	// when there was none.
	Old     []byte
	Existed bool
}

// Changes returns the changes staged so far, in order.
func (tx *Tx) Changes() []StagedChange {
	out := make([]StagedChange, len(tx.changes))
	for i, c := range tx.changes {
		out[i] = StagedChange{Change: Change{Path: c.rel, Op: c.op, Data: c.data}, Old: c.old, Existed: c.existed}
	}
	return out
}

// Staged reports the paths staged so far, in order.
func (tx *Tx) Staged() []string {
	out := make([]string, len(tx.changes))
	for i, c := range tx.changes {
		out[i] = c.rel
	}
	return out
}

// Create stages a new file. It is a CodeConflict error when rel exists.
func (tx *Tx) Create(rel string, data []byte) error {
	return tx.stage(rel, OpCreate, data, "")
}

// Replace stages new content for rel. When baseSHA256 is not "", the file's
// current sha256 must equal it (CodeConflict otherwise): that is how a
// caller proves it read the version it is replacing. Derived files
// (index.md) may be replaced when missing.
func (tx *Tx) Replace(rel string, data []byte, baseSHA256 string) error {
	return tx.stage(rel, OpReplace, data, baseSHA256)
}

// Append stages bytes added at the end of rel (created when missing). The
// existing bytes are kept exactly; when the file does not end with a newline
// and data does not start with one, a newline is inserted first.
func (tx *Tx) Append(rel string, data []byte) error {
	return tx.stage(rel, OpAppend, data, "")
}

// Delete stages the removal of a page. baseSHA256, when not "", must match.
func (tx *Tx) Delete(rel string, baseSHA256 string) error {
	return tx.stage(rel, OpDelete, nil, baseSHA256)
}

func (tx *Tx) stage(rel string, op Op, data []byte, base string) error {
	rel, err := tx.s.cleanPath(rel)
	if err != nil {
		return err
	}
	if err := tx.s.policy.check(rel, op); err != nil {
		return err
	}
	if IsStatePath(rel) {
		return Errorf(CodeInvalid, "%s is the store's own state; a transaction does not write it", rel)
	}
	if IsTempName(rel) {
		return Errorf(CodeInvalid, "%s is a reserved temp-file name", rel)
	}
	if err := tx.s.checkNoLinks(rel); err != nil {
		return err
	}
	cur, exists, err := tx.Read(rel)
	if err != nil {
		return err
	}
	if !exists && op != OpDelete {
		if err := tx.checkNewName(rel); err != nil {
			return err
		}
	}
	if base != "" {
		base = strings.ToLower(strings.TrimSpace(base))
		if !exists {
			return Errorf(CodeNotFound, "%s does not exist, so base_sha256 cannot match; omit base_sha256 to create it", rel)
		}
		if got := SHA256Hex(cur); got != base {
			return Errorf(CodeConflict, "%s changed since you read it (base_sha256 %s… does not match the current %s…); read it again, merge your change, and retry with the new sha256", rel, short(base), short(got))
		}
	}
	switch op {
	case OpCreate:
		if exists {
			return Errorf(CodeConflict, "%s already exists; it is never overwritten by a create", rel)
		}
	case OpReplace:
		if !exists && !tx.s.policy.replaceMissing(rel) {
			return Errorf(CodeNotFound, "%s does not exist; create it instead", rel)
		}
		if exists {
			if err := tx.s.policy.checkReplace(rel, cur, data); err != nil {
				return err
			}
		}
	case OpAppend:
		joined := make([]byte, 0, len(cur)+len(data)+1)
		joined = append(joined, cur...)
		if len(cur) > 0 && cur[len(cur)-1] != '\n' && (len(data) == 0 || data[0] != '\n') {
			joined = append(joined, '\n')
		}
		data = append(joined, data...)
	case OpDelete:
		if !exists {
			return Errorf(CodeNotFound, "%s does not exist", rel)
		}
	}
	if c, ok := tx.byPath[rel]; ok {
		// A second change to one path in one transaction: fold it in.
		c.data = data
		if op == OpDelete {
			c.op = OpDelete
		} else if c.op == OpDelete {
			c.op = OpReplace
		}
		return nil
	}
	c := &change{rel: rel, op: op, data: data}
	c.old, c.existed = cur, exists
	if exists {
		if fi, err := tx.s.root.Lstat(rel); err == nil {
			c.mode = fi.Mode().Perm()
		}
	}
	tx.changes = append(tx.changes, c)
	tx.byPath[rel] = c
	return nil
}

// FoldName is the form in which two file names are one file on a
// case-insensitive or normalisation-insensitive file system (macOS,
// Windows): NFC, lowercased. The writer refuses a new name that folds to
// an existing sibling's; a sync renames what the remote brings in by the
// same rule (wiki/git).
func FoldName(name string) string {
	return strings.ToLower(norm.NFC.String(name))
}

// checkNewName refuses a new file whose name is a variant of an existing
// one: on disk, a sibling whose name differs only by case or Unicode normal
// form (on macOS and Windows the two are one file, so the write would
// replace it; on Linux there would be two files that sync to one). The
// store's policy may refuse more (see [Policy.CheckNewName]). Files
// staged in the same transaction count, except files it deletes.
func (tx *Tx) checkNewName(rel string) error {
	s := tx.s
	for _, c := range tx.changes {
		if c.rel != rel && c.op != OpDelete && FoldName(c.rel) == FoldName(rel) {
			return Errorf(CodeConflict, "%s and %s differ only by case or Unicode form; they would be one file on macOS and Windows", rel, c.rel)
		}
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if _, err := s.root.Lstat(p); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return Internal("inspect "+p, err)
		}
		entries, err := readDir(s.root, path.Dir(p))
		if err != nil {
			break
		}
		want := FoldName(parts[i])
		for _, e := range entries {
			if e.Name() != parts[i] && FoldName(e.Name()) == want {
				other := path.Join(path.Dir(p), e.Name())
				if c, ok := tx.byPath[other]; ok && c.op == OpDelete {
					continue
				}
				return Errorf(CodeConflict, "%s would be a second file for %s: names that differ only by case or Unicode form are one file on macOS and Windows; use %s", p, other, other)
			}
		}
		break
	}
	return tx.s.policy.checkNewName(tx, rel)
}

// Deleted reports whether the transaction stages the removal of rel.
func (tx *Tx) Deleted(rel string) bool {
	c, ok := tx.byPath[rel]
	return ok && c.op == OpDelete
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// checkNoLinks refuses a target that is, or lies under, a symbolic link: the
// writer never writes through a link, even one that stays inside the root
// (it could carry a write from pages/ into sources/).
func (s *Store) checkNoLinks(rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := s.root.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if isEscape(err) {
				return Errorf(CodeInvalid, "%s resolves outside the wiki root", rel)
			}
			return Internal("inspect "+rel, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return Errorf(CodeInvalid, "%s goes through a symbolic link (%s); llmwiki never writes through links", rel, p)
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return Errorf(CodeInvalid, "%s: %s is a file, not a folder", rel, p)
		}
		if i == len(parts)-1 && fi.IsDir() {
			return Errorf(CodeInvalid, "%s is a folder, not a file", rel)
		}
		if i == len(parts)-1 && !fi.Mode().IsRegular() {
			return NotRegularError(rel, fi.Mode())
		}
	}
	return nil
}

func isEscape(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes"))
}

// ReadRaw reads rel through the root ([openRegular]: a FIFO, socket or
// device is refused without blocking). A missing file is (nil, false, nil).
func (s *Store) ReadRaw(rel string) ([]byte, bool, error) {
	b, err := readRegular(s.root, rel)
	if err == nil {
		return b, true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return nil, false, s.readError(rel, err)
}

// readError is the coded error for a failed read of rel.
func (s *Store) readError(rel string, err error) error {
	var we *Error
	switch {
	case errors.As(err, &we):
		return err
	case isEscape(err):
		return Errorf(CodeInvalid, "%s resolves outside the wiki root", rel)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "is a directory") {
		return Errorf(CodeInvalid, "%s is a folder, not a file", rel)
	}
	return Internal("read "+rel, err)
}

// ReadFile reads the file rel of the wiki (slash-separated, relative to
// the root) as every reader of wiki files outside this package must: a
// FIFO, socket or device in its place is refused at once with a coded
// error naming rel (errors.Is(err, [ErrNotRegular])), never waited on. A
// missing file is an error for which errors.Is(err, fs.ErrNotExist) holds;
// every other error is coded and names no host path.
func (s *Store) ReadFile(rel string) ([]byte, error) {
	b, err := readRegular(s.root, rel)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return b, err
	}
	return nil, s.readError(rel, err)
}

// OpenFile opens the file rel of the wiki for a streamed read, refusing
// what is not a regular file as [Store.ReadFile] does.
func (s *Store) OpenFile(rel string) (*os.File, error) {
	f, _, err := openRegular(s.root, rel)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	return nil, s.readError(rel, err)
}

// JournalFile records a multi-file commit while its renames run. It lists
// every target with the temp file holding its new content (already written
// and fsynced) and is removed when the renames are done. A store that opens
// and finds it completes the renames (roll forward), so a crash never leaves
// a transaction half applied.
const JournalFile = ".llmwiki/journal.json"

type journal struct {
	Time    time.Time      `json:"time"`
	Session string         `json:"session"`
	Entries []journalEntry `json:"entries"`
}

type journalEntry struct {
	Path string `json:"path"`
	Op   Op     `json:"op"`
	// Temp holds the new content ("" for a delete); SHA256 is its hash.
	Temp   string `json:"temp,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// commit writes the staged changes. See Update for the guarantees. The
// steps: snapshot every replaced version; write each new version to a temp
// file beside its target and fsync it; for more than one file, write the
// journal; rename each temp into place (or remove a deleted page); fsync the
// folders; remove the journal.
func (s *Store) commit(tx *Tx) ([]Change, []WriteRecord, []string, error) {
	var todo []*change
	for _, c := range tx.changes {
		if c.op != OpDelete && c.existed && bytes.Equal(c.old, c.data) {
			continue // nothing changes
		}
		todo = append(todo, c)
	}
	if len(todo) == 0 {
		return nil, nil, nil, nil
	}
	// 1. Snapshot every version about to be replaced.
	var snaps []string
	dropSnaps := func() {
		// The write failed and the old versions stay where they are: the
		// copies just made are not history.
		for _, sn := range snaps {
			_ = s.root.Remove(sn)
		}
	}
	for _, c := range todo {
		if c.existed && s.policy.snapshotted(c.rel, c.op) {
			name, err := s.snapshot(c.rel, c.old)
			if err != nil {
				dropSnaps()
				return nil, nil, nil, err
			}
			snaps = append(snaps, name)
		}
	}
	// 2. Write every new version to a temp file beside its target.
	temps := make([]string, len(todo))
	cleanup := func() {
		for i, t := range temps {
			if t != "" {
				_ = s.root.Remove(t)
				temps[i] = ""
			}
		}
	}
	for i, c := range todo {
		if c.op == OpDelete {
			continue
		}
		mode := c.mode
		if mode == 0 {
			mode = 0o644
		}
		t, err := s.writeTemp(c.rel, c.data, mode)
		if err != nil {
			cleanup()
			dropSnaps()
			return nil, nil, nil, err
		}
		temps[i] = t
	}
	// 3. With more than one file, journal the renames so a crash in step 4
	// is rolled forward when the wiki is next opened.
	journaled := false
	if len(todo) > 1 {
		j := journal{Time: s.now().UTC(), Session: s.session}
		for i, c := range todo {
			e := journalEntry{Path: c.rel, Op: c.op, Temp: temps[i]}
			if c.op != OpDelete {
				e.SHA256 = SHA256Hex(c.data)
			}
			j.Entries = append(j.Entries, e)
		}
		data, _ := json.Marshal(j)
		if err := s.writeState(JournalFile, data); err != nil {
			_ = s.root.Remove(JournalFile)
			cleanup()
			dropSnaps()
			return nil, nil, nil, err
		}
		journaled = true
	}
	dropJournal := func() {
		if journaled {
			if err := s.root.Remove(JournalFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				s.log.Error("could not remove the write journal", "err", err)
			}
			_ = s.SyncDir(".llmwiki")
		}
	}
	// 4. Rename each into place; on failure put back what was done.
	for i, c := range todo {
		var err error
		if c.op == OpDelete {
			err = s.step("remove", c.rel)
			if err == nil {
				err = s.root.Remove(c.rel)
			}
		} else {
			err = s.renameInto(temps[i], c.rel)
			if err == nil {
				temps[i] = ""
			}
		}
		if err != nil {
			cleanup()
			failed := s.rollback(todo[:i])
			dropJournal()
			if len(failed) > 0 {
				return nil, nil, nil, Internal(fmt.Sprintf("write %s failed part-way and %s could not be put back; their old versions are in .llmwiki/snapshots/", c.rel, strings.Join(failed, ", ")), err)
			}
			dropSnaps()
			return nil, nil, nil, Internal("write "+c.rel+" (nothing was changed)", err)
		}
	}
	// 5. Make the renames durable, then retire the journal.
	dirs := map[string]bool{}
	for _, c := range todo {
		dirs[path.Dir(c.rel)] = true
	}
	for d := range dirs {
		if err := s.SyncDir(d); err != nil {
			s.log.Warn("fsync of folder failed", "dir", d, "err", err)
		}
	}
	dropJournal()
	var out []Change
	var recs []WriteRecord
	for _, c := range todo {
		r := WriteRecord{Path: c.rel}
		if c.existed {
			r.Before = SHA256Hex(c.old)
		}
		if c.op != OpDelete {
			r.After = SHA256Hex(c.data)
		}
		recs = append(recs, r)
		out = append(out, Change{Path: c.rel, Op: c.op, Data: c.data})
	}
	return out, recs, snaps, nil
}

// rollback restores the files of done changes to their old content and
// returns the paths it could not restore.
func (s *Store) rollback(done []*change) []string {
	var failed []string
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		var err error
		if c.existed {
			mode := c.mode
			if mode == 0 {
				mode = 0o644
			}
			var t string
			if t, err = s.writeTemp(c.rel, c.old, mode); err == nil {
				err = s.renameInto(t, c.rel)
				if err != nil {
					_ = s.root.Remove(t)
				}
			}
		} else {
			err = s.root.Remove(c.rel)
		}
		if err != nil {
			failed = append(failed, c.rel)
			s.log.Error("rollback failed; the snapshot holds the old version", "path", c.rel, "err", err)
		}
	}
	return failed
}

// recoverJournal completes a multi-file commit that a crash interrupted:
// every temp file the journal names that is still there is renamed into
// place (its content is checked against the journal), every delete is
// done, and the journal is removed. Called under both locks by Open.
func (s *Store) recoverJournal(call *Call) {
	data, ok, err := s.ReadRaw(JournalFile)
	if err != nil || !ok {
		return
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		// A journal is written atomically, so this one was not written by
		// llmwiki; the temps it might name are removed as stale.
		call.AddWarning("removed an unreadable write journal; no file was changed")
		_ = s.root.Remove(JournalFile)
		return
	}
	var done []string
	var recs []WriteRecord
	for _, e := range j.Entries {
		rel, err := s.cleanPath(e.Path)
		if err != nil || IsStatePath(rel) || s.policy.check(rel, e.Op) != nil {
			continue
		}
		cur, exists, _ := s.ReadRaw(rel)
		before := ""
		if exists {
			before = SHA256Hex(cur)
		}
		if e.Op == OpDelete {
			if exists {
				if err := s.root.Remove(rel); err == nil {
					done = append(done, rel)
					recs = append(recs, WriteRecord{Path: rel, Before: before})
				}
			}
			continue
		}
		if e.Temp == "" || !IsTempName(e.Temp) || path.Dir(e.Temp) != path.Dir(rel) {
			continue
		}
		tmp, ok, _ := s.ReadRaw(e.Temp)
		if !ok {
			continue // already renamed before the crash
		}
		if SHA256Hex(tmp) != e.SHA256 {
			call.AddWarning(fmt.Sprintf("the interrupted write of %s could not be completed: its temp file does not hold what the journal says; %s was left as it was", rel, rel))
			continue
		}
		if err := s.root.Rename(e.Temp, rel); err != nil {
			call.AddWarning(fmt.Sprintf("the interrupted write of %s could not be completed (%s); %s was left as it was", rel, PublicMessage(Internal("rename", err)), rel))
			continue
		}
		done = append(done, rel)
		recs = append(recs, WriteRecord{Path: rel, Before: before, After: e.SHA256})
	}
	dirs := map[string]bool{}
	for _, d := range done {
		dirs[path.Dir(d)] = true
	}
	for d := range dirs {
		_ = s.SyncDir(d)
	}
	_ = s.root.Remove(JournalFile)
	_ = s.SyncDir(".llmwiki")
	call.addWrites(recs, nil)
	if len(done) > 0 {
		call.AddWarning(fmt.Sprintf("completed a write that a crash interrupted (session %s at %s): %s", j.Session, j.Time.Format(time.RFC3339), strings.Join(done, ", ")))
	}
}

func (s *Store) step(step, rel string) error {
	if s.fault != nil {
		return s.fault(step, rel)
	}
	return nil
}

// writeTemp writes data to a new temp file in rel's folder, fsyncs and
// closes it, and returns the temp file's name.
func (s *Store) writeTemp(rel string, data []byte, mode fs.FileMode) (string, error) {
	dir := path.Dir(rel)
	if err := s.root.MkdirAll(dir, 0o755); err != nil {
		if isEscape(err) {
			return "", Errorf(CodeInvalid, "%s resolves outside the wiki root", rel)
		}
		return "", Internal("create folder for "+rel, err)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := path.Join(dir, "."+path.Base(rel)+TempMarker+hex.EncodeToString(rnd[:]))
	if len(path.Base(tmp)) > 255 {
		tmp = path.Join(dir, TempMarker+hex.EncodeToString(rnd[:]))
	}
	if err := s.step("create", rel); err != nil {
		return "", Internal("create temp file for "+rel, err)
	}
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return "", Internal("create temp file for "+rel, err)
	}
	fail := func(what string, err error) (string, error) {
		f.Close()
		_ = s.root.Remove(tmp)
		return "", Internal(what+" "+rel, err)
	}
	if err := s.step("write", rel); err != nil {
		return fail("write", err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := s.step("sync", rel); err != nil {
		return fail("fsync", err)
	}
	if err := f.Sync(); err != nil {
		return fail("fsync", err)
	}
	if err := f.Close(); err != nil {
		_ = s.root.Remove(tmp)
		return "", Internal("close "+rel, err)
	}
	return tmp, nil
}

func (s *Store) renameInto(tmp, rel string) error {
	if err := s.step("rename", rel); err != nil {
		return err
	}
	return s.root.Rename(tmp, rel)
}

// SyncDir fsyncs the folder dir so the renames and removals in it are
// durable (through the fault seam, step "syncdir").
func (s *Store) SyncDir(dir string) error {
	if err := s.step("syncdir", dir); err != nil {
		return err
	}
	d, err := openDir(s.root, dir) // never waits on a FIFO in the folder's place
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeState atomically writes a file under .llmwiki/ (derived state: lint
// findings, plans, eval results). It takes no snapshot and no audit line of
// its own; callers hold whatever lock their state needs.
func (s *Store) writeState(rel string, data []byte) error {
	if !IsStatePath(rel) {
		return Errorf(CodeInvalid, "%s is not server state", rel)
	}
	if err := s.CheckWritable(); err != nil {
		return err
	}
	if err := s.checkNoLinks(rel); err != nil {
		return err
	}
	unlock, err := s.lockState(context.Background())
	if err != nil {
		return err
	}
	defer unlock()
	return s.writeStateLocked(rel, data)
}

// writeStateLocked is writeState for a caller holding the lock that covers
// rel: the state lock, or the audit lock for a torn line moved into
// [TornDir].
func (s *Store) writeStateLocked(rel string, data []byte) error {
	t, err := s.writeTemp(rel, data, 0o644)
	if err != nil {
		return err
	}
	if err := s.renameInto(t, rel); err != nil {
		_ = s.root.Remove(t)
		return Internal("write "+rel, err)
	}
	if err := s.SyncDir(path.Dir(rel)); err != nil {
		return Internal("write "+rel, err)
	}
	return nil
}

// WriteState atomically writes derived state under .llmwiki/ (rel must start
// with ".llmwiki/"). It is for state the server owns (lint findings, plans,
// eval results); it is not snapshotted.
func (s *Store) WriteState(rel string, data []byte) error {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return err
	}
	return s.writeState(rel, data)
}

// ReadState reads a file under .llmwiki/. A missing file is (nil, false, nil).
func (s *Store) ReadState(rel string) ([]byte, bool, error) {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return nil, false, err
	}
	if !IsStatePath(rel) {
		return nil, false, Errorf(CodeInvalid, "%s is not server state", rel)
	}
	return s.ReadRaw(rel)
}

// UpdateState is a read-modify-write of one state file under .llmwiki/,
// made under the project lock so two processes sharing the wiki cannot lose
// each other's update (lint dismissals, submitted findings, plans). fn gets
// the current content (nil, false when the file is missing) and returns the
// new content; returning nil data, or an error, leaves the file as it was.
// The write is atomic, not snapshotted and not audited (the caller's own
// audit line covers it).
func (s *Store) UpdateState(ctx context.Context, rel string, fn func(old []byte, exists bool) ([]byte, error)) error {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return err
	}
	if !IsStatePath(rel) {
		return Errorf(CodeInvalid, "%s is not server state", rel)
	}
	if err := s.CheckWritable(); err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	old, ok, err := s.ReadRaw(rel)
	if err != nil {
		return err
	}
	data, err := fn(old, ok)
	if err != nil || data == nil {
		return err
	}
	return s.writeState(rel, data)
}

// Locked runs fn while holding the project lock (the in-process mutex and
// the file lock on [LockFile]). It is for server state under .llmwiki/ that
// needs a read-check-write step across processes, such as plan slug
// reservations. fn must not call [Store.Update] or another Locked: the lock
// is not re-entrant. fn's error is returned as it is.
func (s *Store) Locked(ctx context.Context, fn func() error) error {
	if err := s.CheckWritable(); err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// RemoveState deletes a file under .llmwiki/ (rel must start with
// ".llmwiki/"), such as a plan that is no longer needed. A missing file is not
// an error. Audit lines and snapshots are history and cannot be removed.
func (s *Store) RemoveState(rel string) error {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return err
	}
	if !IsStatePath(rel) {
		return Errorf(CodeInvalid, "%s is not server state", rel)
	}
	if strings.HasPrefix(rel, AuditDir+"/") || strings.HasPrefix(rel, SnapshotDir+"/") || rel == LockFile || rel == StateLockFile || rel == AuditLockFile || rel == JournalFile {
		return Errorf(CodeInvalid, "%s is history and is never removed", rel)
	}
	if err := s.CheckWritable(); err != nil {
		return err
	}
	if err := s.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Internal("remove "+rel, err)
	}
	return nil
}
