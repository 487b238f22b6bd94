package wiki

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// SourcesRecordFile records each source as llmwiki first saw it: one JSON
// line per file under sources/ with its sha256, size, when and how it was
// first seen (saved through save_source or research_save, found on disk,
// or recovered from the audit log). Sources are immutable, and research
// notes only grow by appending (each audited append records the new
// length and sha256), so a source whose bytes no longer match its record,
// or that is gone, was changed outside llmwiki: validate_structure reports
// it as an error, lint as a finding and load_project as a problem.
//
// It is derived state: when it is missing it is rebuilt from the audit log
// (the sha256 of every source llmwiki wrote) and, for the files the log
// does not name, from the files as they are then. Each line also caches
// the size and mtime the file had when it was last hashed, so a file whose
// size and mtime did not change is not read again.
const SourcesRecordFile = ".llmwiki/sources.jsonl"

// The kinds of [SourceIssue], as validate_structure and lint name them.
const (
	SourceModified = "source_modified"
	SourceDeleted  = "source_deleted"
)

// SourceIssue is a source whose bytes changed, or that vanished, since
// llmwiki first saw it.
type SourceIssue struct {
	Path string `json:"path"`
	// Kind is [SourceModified] or [SourceDeleted].
	Kind string `json:"kind"`
	// SHA256 is the sha256 of the bytes as first seen (for a research
	// note: as llmwiki last wrote it); FirstSeen is when, How how.
	SHA256    string `json:"sha256"`
	FirstSeen string `json:"first_seen"`
	How       string `json:"how"`
	// NowSHA256 is the sha256 of the file now ("" when it is gone).
	NowSHA256 string `json:"now_sha256,omitempty"`
	Message   string `json:"message"`
	Fix       string `json:"fix"`
}

// How a source was first seen ([sourceRec.How]); otherwise the name of the
// tool that wrote it.
const (
	seenOnDisk  = "found"
	seenInAudit = "audit"
)

// sourceRec is one line of [SourcesRecordFile].
type sourceRec struct {
	Path string `json:"path"`
	// SHA256 and Size are of the bytes as first seen; for a research note,
	// as llmwiki last appended (earlier bytes must stay a prefix). Size is
	// -1 when it is not known (recovered from the audit log for a file that
	// no longer matches).
	SHA256    string `json:"sha256"`
	Size      int64  `json:"size"`
	FirstSeen string `json:"first_seen"`
	How       string `json:"how"`
	// The file as it was last hashed: its size and mtime (Unix ns), and
	// its sha256 when that is not SHA256. Grown: a research note that grew
	// past Size with its recorded bytes kept as a prefix.
	StatSize  int64  `json:"stat_size,omitempty"`
	StatMTime int64  `json:"stat_mtime,omitempty"`
	StatSHA   string `json:"stat_sha256,omitempty"`
	Grown     bool   `json:"grown,omitempty"`
}

// intact reports whether the file as last hashed keeps the recorded bytes.
func (r sourceRec) intact() bool { return r.StatSHA == "" || r.Grown }

// curSHA is the sha256 of the file as last hashed.
func (r sourceRec) curSHA() string {
	if r.StatSHA != "" {
		return r.StatSHA
	}
	return r.SHA256
}

// parseSourceRecord reads the lines of [SourcesRecordFile]. Lines that do
// not parse, or name no path under sources/ or no sha256, are skipped and
// counted in bad (the file may have been edited by hand); of two lines for
// one path the later wins.
func parseSourceRecord(data []byte) (map[string]sourceRec, int) {
	out := map[string]sourceRec{}
	bad := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r sourceRec
		if json.Unmarshal(l, &r) != nil || !isHexSHA(r.SHA256) || (r.StatSHA != "" && !isHexSHA(r.StatSHA)) {
			bad++
			continue
		}
		if c, err := CleanPath(r.Path); err != nil || c != r.Path || (LayerOf(c) != LayerSources && LayerOf(c) != LayerResearch) || c == "sources" {
			bad++
			continue
		}
		r.SHA256, r.StatSHA = strings.ToLower(r.SHA256), strings.ToLower(r.StatSHA)
		out[r.Path] = r
	}
	return out, bad
}

func renderSourceRecord(m map[string]sourceRec) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		line, _ := json.Marshal(m[k])
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// sourceRecord returns the record as on disk (parsed once per version of
// the file: its size and mtime), and whether the file exists. The map is
// shared: callers must not change it. Anything but a regular file in its
// place (a FIFO, a symbolic link) is a [NotRegularError].
func (s *Store) sourceRecord() (map[string]sourceRec, bool, error) {
	fi, err := s.root.Lstat(SourcesRecordFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, store.Internal("stat the sources record", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, false, store.NotRegularError(SourcesRecordFile, fi.Mode())
	}
	s.srcMu.Lock()
	if s.srcRec != nil && sameVersion(s.srcStat, fi) {
		m := s.srcRec
		s.srcMu.Unlock()
		return m, true, nil
	}
	s.srcMu.Unlock()
	data, ok, err := s.ReadRaw(SourcesRecordFile)
	if err != nil || !ok {
		return nil, ok, err
	}
	m, bad := parseSourceRecord(data)
	if bad > 0 {
		s.log.Warn("skipped lines of the sources record that do not parse", "file", SourcesRecordFile, "lines", bad)
	}
	s.srcMu.Lock()
	s.srcRec, s.srcStat = m, fi
	s.srcMu.Unlock()
	return m, true, nil
}

// sameVersion reports whether b is the version of the record a was: the
// same file (every write renames a new one into place), size and mtime.
func sameVersion(a, b fs.FileInfo) bool {
	return a != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// updateSourceRecordLocked changes the record under the project lock, which the
// caller holds: fn gets a copy of the record as on disk (rebuilt first when
// the file is missing) and reports whether it changed it; a changed record
// is written atomically.
// writing names the sources the caller is recording as just created: they
// are new to the record either way, so they alone do not make the rebuild
// say that a change could have gone unseen.
func (s *Store) updateSourceRecordLocked(writing []string, fn func(map[string]sourceRec) bool) error {
	cur, ok, err := s.sourceRecord()
	if err != nil {
		return err
	}
	m := make(map[string]sourceRec, len(cur)+1)
	for k, v := range cur {
		m[k] = v
	}
	changed := false
	if !ok {
		m = s.rebuildSourceRecord(writing)
		changed = true
	}
	if fn(m) {
		changed = true
	}
	if !changed {
		return nil
	}
	if err := s.WriteState(SourcesRecordFile, renderSourceRecord(m)); err != nil {
		return err
	}
	if fi, err := s.root.Stat(SourcesRecordFile); err == nil {
		s.srcMu.Lock()
		s.srcRec, s.srcStat = m, fi
		s.srcMu.Unlock()
	}
	return nil
}

// recordSourceWrites records the sources a committed write created or
// appended to (called by the writer under the project lock): their bytes
// as written are what they must keep.
func (s *Store) recordSourceWrites(call *store.Call, changes []store.Change) {
	var mine []store.Change
	for _, c := range changes {
		if l := LayerOf(c.Path); (l == LayerSources || l == LayerResearch) && c.Op != store.OpDelete {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return
	}
	how := "llmwiki"
	if call != nil && call.Tool != "" {
		how = call.Tool
	}
	now := s.Now().Format(time.RFC3339)
	var writing []string // created by this write: nothing of theirs came before
	for _, c := range mine {
		if c.Op == store.OpCreate {
			writing = append(writing, c.Path)
		}
	}
	err := s.updateSourceRecordLocked(writing, func(m map[string]sourceRec) bool {
		for _, c := range mine {
			r := sourceRec{Path: c.Path, SHA256: store.SHA256Hex(c.Data), Size: int64(len(c.Data)), FirstSeen: now, How: how}
			if old, ok := m[c.Path]; ok && c.Op == store.OpAppend {
				r.FirstSeen, r.How = old.FirstSeen, old.How
			}
			if fi, err := s.root.Lstat(c.Path); err == nil && fi.Size() == r.Size {
				r.StatSize, r.StatMTime = fi.Size(), fi.ModTime().UnixNano()
			}
			m[c.Path] = r
		}
		return true
	})
	if err != nil {
		call.AddWarning("the record of the sources' sha256 was not updated: " + store.PublicMessage(err))
		s.log.Error("sources record not updated", "err", err)
	}
}

// rebuildSourceRecord recovers the record from the audit log: for every
// source llmwiki wrote, the sha256 of its last audited write (sources are
// only created, research notes only appended to). Files the log does not
// name are recorded as found by the scan that follows. It is said once in
// load_project's problems, unless no source but those in writing (the ones
// being recorded as just created) was there to be changed unseen.
func (s *Store) rebuildSourceRecord(writing []string) map[string]sourceRec {
	m := map[string]sourceRec{}
	ents, err := s.ReadDir(store.AuditDir) // a FIFO in its place fails at once
	if err != nil {
		return m
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") || store.IsTempName(e.Name()) {
			continue
		}
		f, err := s.OpenFile(store.AuditDir + "/" + e.Name()) // a FIFO is passed over
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !bytes.Contains(line, []byte(`"sources/`)) {
				continue
			}
			var r struct {
				Time   time.Time           `json:"time"`
				Tool   string              `json:"tool"`
				Writes []store.WriteRecord `json:"writes"`
			}
			if json.Unmarshal(line, &r) != nil {
				continue
			}
			for _, w := range r.Writes {
				c, err := CleanPath(w.Path)
				if err != nil || c != w.Path || (LayerOf(c) != LayerSources && LayerOf(c) != LayerResearch) || !isHexSHA(w.After) {
					continue
				}
				rec := sourceRec{Path: c, SHA256: strings.ToLower(w.After), Size: -1, FirstSeen: r.Time.UTC().Format(time.RFC3339), How: seenInAudit}
				if old, ok := m[c]; ok && LayerOf(c) == LayerResearch {
					rec.FirstSeen = old.FirstSeen
				}
				m[c] = rec
			}
		}
		f.Close()
	}
	// The size of what the log recorded is found in the file when it still
	// holds those bytes (a research note: as a prefix ending a line).
	for p, r := range m {
		data, ok, err := s.ReadRaw(p)
		if err != nil || !ok {
			continue
		}
		if n := prefixWithSHA(data, r.SHA256, LayerOf(p) == LayerResearch); n >= 0 {
			r.Size = int64(n)
			m[p] = r
		}
	}
	known := 0
	for p := range m {
		if !slices.Contains(writing, p) {
			known++
		}
	}
	if known > 0 || s.anySource(writing) {
		s.AddRebuilt(fmt.Sprintf("%s was missing; rebuilt it: %d source(s) from the audit log, the others as they are now (a change made to those before now cannot be detected)", SourcesRecordFile, known))
	}
	return m
}

// anySource reports whether sources/ holds a file other than those in skip.
func (s *Store) anySource(skip []string) bool {
	found := false
	_ = fs.WalkDir(s.root.FS(), "sources", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") && !slices.Contains(skip, p) {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// prefixWithSHA returns the length of data when its sha256 is sum, or,
// when prefixes is set, the length of the shortest prefix ending a line
// whose sha256 is sum; -1 when there is none.
func prefixWithSHA(data []byte, sum string, prefixes bool) int {
	if store.SHA256Hex(data) == sum {
		return len(data)
	}
	if !prefixes {
		return -1
	}
	h := sha256.New()
	start := 0
	for start < len(data) {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			break
		}
		h.Write(data[start : start+i+1])
		start += i + 1
		if hex.EncodeToString(h.Sum(nil)) == sum {
			return start
		}
	}
	return -1
}

// sourceState is one file under sources/ as a scan found it.
type sourceState struct {
	path  string
	sha   string
	size  int64
	mtime time.Time
	rec   sourceRec
	known bool // rec was in the record before this scan
}

// scanSources lists every file under sources/ with its sha256, hashing
// only files whose size or mtime differ from the record's cache, checks
// each against the record, records files seen for the first time, and
// returns the files sorted by path with the problems found. When the
// record is not a regular file the files are listed unchecked, nothing is
// recorded (the file in its place is left alone) and the error is the
// record's [NotRegularError].
func (s *Store) scanSources(ctx context.Context) ([]sourceState, []SourceIssue, error) {
	rec, have, err := s.sourceRecord()
	var recErr error
	if errors.Is(err, store.ErrNotRegular) {
		recErr, rec, have, err = err, nil, true, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if !have && !s.readOnly {
		// Rebuild it first, so the scan checks what the audit log knows (a
		// read-only wiki writes nothing: the scan alone answers).
		ctx2, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := s.Locked(ctx2, func() error { return s.updateSourceRecordLocked(nil, func(map[string]sourceRec) bool { return false }) })
		cancel()
		if err != nil {
			s.log.Warn("could not rebuild the sources record", "err", err)
		}
		if rec, _, err = s.sourceRecord(); err != nil {
			return nil, nil, err
		}
	}
	now := s.Now().Format(time.RFC3339)
	var out []sourceState
	var updates []sourceRec
	var bytesRead int64
	err = s.walkSources(func(p string, d *store.Dir, name string, fst store.FileStat) error {
		if len(out)%progressEvery == progressEvery-1 {
			if err := ctx.Err(); err != nil {
				return errCancelled
			}
			Progress(ctx, len(out)+1, 0, fmt.Sprintf("hashed %d sources (%d KiB)", len(out)+1, bytesRead>>10))
		}
		st := sourceState{path: p, size: fst.Size, mtime: fst.ModTime}
		r, known := rec[p]
		st.known = known
		if known && r.StatSize == st.size && r.StatMTime == st.mtime.UnixNano() && r.StatMTime != 0 {
			st.sha, st.rec = r.curSHA(), r
			out = append(out, st)
			return nil
		}
		data, rst, err := d.ReadFile(name, 1<<62)
		if err != nil {
			return nil // gone or not a regular file any more
		}
		bytesRead += int64(len(data))
		st.sha, st.size, st.mtime = store.SHA256Hex(data), int64(len(data)), rst.ModTime
		if !known {
			r = sourceRec{Path: p, SHA256: st.sha, Size: int64(len(data)), FirstSeen: now, How: seenOnDisk}
		}
		r.StatSize, r.StatMTime, r.StatSHA, r.Grown = int64(len(data)), rst.ModTime.UnixNano(), "", false
		if st.sha != r.SHA256 {
			r.StatSHA = st.sha
			if LayerOf(p) == LayerResearch && r.Size >= 0 && r.Size <= int64(len(data)) && store.SHA256Hex(data[:r.Size]) == r.SHA256 {
				r.Grown = true
			}
		}
		if int64(len(data)) != rst.Size {
			r.StatSize = 0 // it changed while read: hash it again next time
		}
		st.rec = r
		updates = append(updates, r)
		out = append(out, st)
		return nil
	})
	if errors.Is(err, errCancelled) {
		return nil, nil, store.Errorf(store.CodeCancelled, "cancelled while reading the sources; nothing was changed")
	}
	if err != nil {
		return nil, nil, store.Internal("list sources", err)
	}
	Progress(ctx, len(out), len(out), fmt.Sprintf("hashed %d sources (%d KiB)", len(out), bytesRead>>10))
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	if recErr != nil {
		return out, nil, recErr
	}
	if len(updates) > 0 {
		s.saveScan(ctx, updates)
	}
	var issues []SourceIssue
	seen := make(map[string]bool, len(out))
	for _, st := range out {
		seen[st.path] = true
		if st.known && !st.rec.intact() {
			issues = append(issues, sourceIssue(st.rec, SourceModified))
		}
	}
	for p, r := range rec {
		if !seen[p] {
			issues = append(issues, sourceIssue(r, SourceDeleted))
		}
	}
	sort.Slice(issues, func(i, j int) bool { return issues[i].Path < issues[j].Path })
	return out, issues, nil
}

// walkSources calls fn for every regular file under sources/ that the
// tools can name, with the folder it is in ([Dir]: one listing per folder,
// one stat per file); hidden files and folders, writer temp files and
// symbolic links are skipped. An error from fn stops the walk.
func (s *Store) walkSources(fn func(p string, d *store.Dir, name string, st store.FileStat) error) error {
	var walk func(r *os.Root, dir string) error
	walk = func(r *os.Root, dir string) error {
		d, err := store.OpenDir(r)
		if err != nil {
			return nil
		}
		defer d.Close()
		ents, err := d.Entries()
		if err != nil {
			return nil
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name < ents[j].Name })
		for _, e := range ents {
			p := dir + "/" + e.Name
			if strings.HasPrefix(e.Name, ".") || !addressable(p) {
				continue
			}
			switch {
			case e.Type.IsDir():
				sub, err := r.OpenRoot(e.Name)
				if err != nil {
					continue
				}
				err = walk(sub, p)
				sub.Close()
				if err != nil {
					return err
				}
			case e.Type == 0 && !store.IsTempName(e.Name):
				st, err := d.Lstat(e.Name)
				if err != nil || !st.Mode.IsRegular() {
					continue
				}
				if err := fn(p, d, e.Name, st); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if fi, err := s.root.Lstat("sources"); err != nil || !fi.IsDir() {
		return nil
	}
	r, err := s.root.OpenRoot("sources")
	if err != nil {
		return nil
	}
	defer r.Close()
	return walk(r, "sources")
}

// saveScan merges what a scan learned into the record on disk: files seen
// for the first time (unless another writer recorded them meanwhile) and
// the hash cache of files whose record did not change meanwhile. It waits
// two seconds at most for the lock; what it could not save is learned
// again by the next scan.
func (s *Store) saveScan(ctx context.Context, updates []sourceRec) {
	if s.readOnly {
		return // nothing is written; the next writable open learns it again
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	err := s.Locked(ctx, func() error {
		return s.updateSourceRecordLocked(nil, func(m map[string]sourceRec) bool {
			changed := false
			for _, u := range updates {
				old, ok := m[u.Path]
				if ok && (old.SHA256 != u.SHA256 || old.Size != u.Size) {
					continue // rewritten by a write meanwhile
				}
				if ok {
					u.FirstSeen, u.How = old.FirstSeen, old.How
				}
				if old != u {
					m[u.Path] = u
					changed = true
				}
			}
			return changed
		})
	})
	if err != nil {
		s.log.Warn("sources record not saved", "err", err)
	}
}

func sourceIssue(r sourceRec, kind string) SourceIssue {
	first := r.FirstSeen
	if t, err := time.Parse(time.RFC3339, first); err == nil {
		first = t.Format("2006-01-02 15:04 UTC")
	}
	how := "found on disk"
	switch r.How {
	case seenOnDisk:
	case seenInAudit:
		how = "written by llmwiki (audit log)"
	default:
		how = "saved by " + r.How
	}
	is := SourceIssue{Path: r.Path, Kind: kind, SHA256: r.SHA256, FirstSeen: r.FirstSeen, How: r.How}
	undo := fmt.Sprintf("if that was meant, delete the line for %s from %s (it is then recorded as it is now)", r.Path, SourcesRecordFile)
	if kind == SourceDeleted {
		is.Message = fmt.Sprintf("%s is gone: it was %s on %s (sha256 %s…), and sources are never deleted", r.Path, how, first, short(r.SHA256))
		is.Fix = "put the file back from a backup or your sync client's history; " + undo
		return is
	}
	what := "its bytes differ from those"
	if LayerOf(r.Path) == LayerResearch {
		what = "the bytes llmwiki wrote are no longer the start of the file, as they were"
	}
	is.NowSHA256 = r.curSHA()
	is.Message = fmt.Sprintf("%s was changed outside llmwiki: %s %s on %s (sha256 %s…, now %s…); sources are never rewritten", r.Path, what, how, first, short(r.SHA256), short(r.curSHA()))
	is.Fix = "put the original bytes back from a backup or your sync client's history, and save a changed version under a new name with save_source; " + undo
	return is
}

// SourceIssues checks every file under sources/ against the record of how
// it was first seen (see [SourcesRecordFile]) and returns the sources
// whose bytes changed or that are gone, sorted by path. Files seen for the
// first time are recorded, not reported.
func (s *Store) SourceIssues(ctx context.Context) ([]SourceIssue, error) {
	_, issues, err := s.scanSources(ctx)
	if issues == nil {
		issues = []SourceIssue{}
	}
	return issues, err
}
