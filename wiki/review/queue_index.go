package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// The queue's index: the audit lines marked for review, parsed once. Audit
// files and DecisionsFile are only ever appended to, so each is kept with
// its size, mtime and the offset after its last complete line: a later
// read parses only the bytes appended since (a file that shrank, which
// only a person's hand can do, is parsed again from the start).

// queued is one marked write as the index keeps it.
type queued struct {
	w Write
}

// auditLine is the part of an audit line the queue reads (the arguments
// are skipped).
type auditLine struct {
	ID      string              `json:"id"`
	Time    time.Time           `json:"time"`
	Session string              `json:"session"`
	Client  string              `json:"client"`
	Tool    string              `json:"tool"`
	Outcome string              `json:"outcome"`
	Writes  []store.WriteRecord `json:"writes"`
	Extra   struct {
		// Mark is Extra[MarkKey].
		Mark any `json:"review"`
	} `json:"extra"`
}

// Decision is one line of [DecisionsFile].
type Decision struct {
	ID       string    `json:"id"`
	Decision string    `json:"decision"` // accepted, reverted
	Reviewer string    `json:"reviewer"`
	Time     time.Time `json:"time"`
}

// The decisions a person can make on a queued write.
const (
	DecisionAccepted = "accepted"
	DecisionReverted = "reverted"
)

// tailFile is the parsed prefix of one append-only file.
type tailFile struct {
	size   int64
	mtime  time.Time
	offset int64 // after the last complete line parsed
}

// queueIndex caches the parsed audit files and decisions of one wiki.
type queueIndex struct {
	mu    sync.Mutex
	files map[string]*auditFile // audit file name -> its marked writes
	dec   tailFile
	decs  map[string]Decision // write id -> its decision (the first one)
	// sorted is every marked write, newest first; nil when it must be
	// built again from files. at is the position of each id in sorted.
	sorted []queued
	at     map[string]int
}

type auditFile struct {
	tailFile
	writes []queued // in line order
}

// changed reports whether fi differs from what was parsed, and whether the
// file must be parsed from its start (it shrank).
func (t *tailFile) changed(fi fs.FileInfo) (changed, restart bool) {
	if fi.Size() == t.size && fi.ModTime().Equal(t.mtime) {
		return false, false
	}
	return true, fi.Size() < t.offset
}

// readTail reads the complete lines of the file rel after t.offset,
// advancing t. A last line without its newline (being written, or torn) is
// left for a later read.
// restart is called first when the file must be parsed from its start.
func readTail(st *wiki.Store, rel string, t *tailFile, restart func(), fn func(line []byte)) error {
	f, err := st.OpenFile(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	ch, again := t.changed(fi)
	if !ch {
		return nil
	}
	if again {
		*t = tailFile{}
		restart()
	}
	if _, err := f.Seek(t.offset, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(f, fi.Size()-t.offset))
	if err != nil {
		return err
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	for _, l := range bytes.Split(data[:end], []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			fn(l)
		}
	}
	t.offset += int64(end)
	t.size, t.mtime = fi.Size(), fi.ModTime()
	return nil
}

// parseQueued returns the marked write a line records, if it is one: an ok
// call marked for review with at least one reviewed write.
func parseQueued(line []byte) (queued, bool) {
	var a auditLine
	if json.Unmarshal(line, &a) != nil || a.ID == "" || a.Outcome != "ok" || a.Extra.Mark == nil {
		return queued{}, false
	}
	if m, ok := a.Extra.Mark.(string); ok && m == wiki.ReviewOff {
		return queued{}, false
	}
	files := netWrites(a.Writes)
	if len(files) == 0 {
		return queued{}, false
	}
	return queued{w: Write{ID: a.ID, Time: a.Time, Client: a.Client, Session: a.Session, Tool: a.Tool, Files: files, Status: StatusUnreviewed}}, true
}

// netWrites is what a call did to each reviewed file, in the order first
// written: from the sha256 before its first write to the one after its last
// (a call may write a file twice, as two updates); a file left as it was is
// dropped.
func netWrites(ws []store.WriteRecord) []store.WriteRecord {
	var out []store.WriteRecord
	at := map[string]int{}
	for _, w := range ws {
		if !Reviewed(w.Path) {
			continue
		}
		if i, ok := at[w.Path]; ok {
			out[i].After = w.After
			continue
		}
		at[w.Path] = len(out)
		out = append(out, w)
	}
	kept := out[:0]
	for _, w := range out {
		if w.Before != w.After {
			kept = append(kept, w)
		}
	}
	return kept
}

// markNeedle is in every marked line: the others are not decoded at all.
var markNeedle = []byte(`"` + MarkKey + `"`)

// parseAll parses lines into the marked writes they record, in order, on
// every CPU when there are many (decoding is most of a cold start's work).
func parseAll(lines [][]byte) []queued {
	const chunk = 512
	if len(lines) <= chunk {
		return parseRange(lines)
	}
	parts := make([][]queued, (len(lines)+chunk-1)/chunk)
	next := make(chan int, len(parts))
	for i := range parts {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for i := range next {
				parts[i] = parseRange(lines[i*chunk : min((i+1)*chunk, len(lines))])
			}
		})
	}
	wg.Wait()
	var out []queued
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func parseRange(lines [][]byte) []queued {
	var out []queued
	for _, l := range lines {
		if w, ok := parseQueued(l); ok {
			out = append(out, w)
		}
	}
	return out
}

// StatusUnreviewed is the Status of a write awaiting a person.
const StatusUnreviewed = "unreviewed"

// refresh brings the index up to date with the audit files and decisions
// on disk. The caller holds q.mu.
func (q *queueIndex) refresh(st *wiki.Store) error {
	if q.files == nil {
		q.files = map[string]*auditFile{}
		q.decs = map[string]Decision{}
	}
	entries, err := st.ReadDir(store.AuditDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return store.Internal("list the audit log", err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		seen[n] = true
		af := q.files[n]
		if af == nil {
			af = &auditFile{}
			q.files[n] = af
		}
		var lines [][]byte
		err := readTail(st, path.Join(store.AuditDir, n), &af.tailFile, func() { af.writes, q.sorted = nil, nil }, func(l []byte) {
			if bytes.Contains(l, markNeedle) {
				lines = append(lines, l)
			}
		})
		if len(lines) > 0 {
			q.sorted = nil
			af.writes = append(af.writes, parseAll(lines)...)
		}
		if errors.Is(err, fs.ErrNotExist) {
			delete(seen, n)
			continue
		}
		if err != nil {
			return store.Internal("read audit file "+n, err)
		}
	}
	for n := range q.files {
		if !seen[n] {
			delete(q.files, n)
			q.sorted = nil
		}
	}
	return q.refreshDecisions(st)
}

// refreshDecisions reads the decisions appended since the last call. The
// caller holds q.mu.
func (q *queueIndex) refreshDecisions(st *wiki.Store) error {
	err := readTail(st, DecisionsFile, &q.dec, func() { q.decs = map[string]Decision{} }, func(l []byte) {
		var d Decision
		if json.Unmarshal(l, &d) == nil && d.ID != "" {
			if _, ok := q.decs[d.ID]; !ok {
				q.decs[d.ID] = d
			}
		}
	})
	if errors.Is(err, fs.ErrNotExist) {
		q.dec, q.decs = tailFile{}, map[string]Decision{}
		return nil
	}
	if err != nil {
		return store.Internal("read the review decisions", err)
	}
	return nil
}

// withIndex brings the index up to date and calls fn with every marked
// write, newest first, the position of each id in it, and the decisions by
// write id (fn must not keep or change them).
func (s *Service) withIndex(fn func(all []queued, at map[string]int, decs map[string]Decision) error) error {
	q := &s.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.refresh(s.st); err != nil {
		return err
	}
	if q.sorted == nil {
		names := make([]string, 0, len(q.files))
		n := 0
		for name, af := range q.files {
			names = append(names, name)
			n += len(af.writes)
		}
		sort.Strings(names)
		out := make([]queued, 0, n)
		for i := len(names) - 1; i >= 0; i-- {
			ws := q.files[names[i]].writes
			for j := len(ws) - 1; j >= 0; j-- {
				out = append(out, ws[j])
			}
		}
		q.sorted = out
		q.at = make(map[string]int, len(out))
		for i, w := range out {
			q.at[w.w.ID] = i
		}
	}
	return fn(q.sorted, q.at, q.decs)
}
