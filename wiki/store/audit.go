package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// AuditDir is the folder of the audit log: one JSON line per tool call or CLI
// command in <AuditDir>/YYYY-MM-DD.jsonl (UTC date). Lines are only ever
// appended.
const AuditDir = ".llmwiki/audit"

// MaxAuditString is the longest string argument kept verbatim in an audit
// line, in bytes. Longer strings are replaced by {"len": N, "sha256": "..."}.
const MaxAuditString = 512

// Call is the audit record of one tool call or command while it runs.
// Create one with [NewCall], put it in the context with [WithCall] before
// calling store methods (they add what they read and wrote), then finish it
// with [Store.Audit]. Safe for concurrent use.
type Call struct {
	mu sync.Mutex
	AuditRecord
	// begun is when the call started, with the monotonic clock: a change
	// feed sync round whose touch came later has seen every edit that
	// finished before the call, so the call's later syncs are skipped.
	begun time.Time
}

// AuditRecord is one line of the audit log, as written and as read back.
type AuditRecord struct {
	// ID names the call's line ("a-" and 12 hex digits), unique in the
	// wiki: the review queue and git trailers refer to a write by it.
	ID string `json:"id,omitempty"`
	// Time is when the call started (UTC).
	Time time.Time `json:"time"`
	// Session identifies the MCP session (or CLI process) that made the call.
	Session string `json:"session"`
	// Client is the name and version the client gave in initialize.
	Client string `json:"client,omitempty"`
	// Remote is the peer address for HTTP sessions.
	Remote string `json:"remote,omitempty"`
	// Tool is the MCP tool name, or "cli:<command>" for the command line.
	Tool string `json:"tool"`
	// Args are the call's arguments, large strings replaced (see [MaxAuditString]).
	Args any `json:"args,omitempty"`
	// Outcome is "ok" or "error".
	Outcome string `json:"outcome"`
	// Code is the error code when Outcome is "error".
	Code Code `json:"code,omitempty"`
	// Error is the public error message when Outcome is "error".
	Error string `json:"error,omitempty"`
	// Reads lists project-relative paths whose content the call returned.
	Reads []string `json:"reads,omitempty"`
	// Writes lists every path the call wrote, with sha256 before and after
	// ("" for a file that did not exist before or was removed).
	Writes []WriteRecord `json:"writes,omitempty"`
	// Snapshots lists the snapshot files made of replaced versions.
	Snapshots []string `json:"snapshots,omitempty"`
	// Pruned lists the snapshots the retention deleted during the call,
	// each with the sha256 of the version it held (in sha256_before).
	Pruned []WriteRecord `json:"pruned_snapshots,omitempty"`
	// Warnings are things that went wrong without failing the call (a derived
	// index that could not be updated and is now marked stale).
	Warnings []string `json:"warnings,omitempty"`
	// Extra holds tool-specific figures (result counts, model token usage).
	Extra map[string]any `json:"extra,omitempty"`
	// DurationMS is the call's wall time in milliseconds.
	DurationMS float64 `json:"duration_ms"`
}

// WriteRecord is one path written by a call. Before and After are lowercase
// hex sha256 of the file's bytes; "" means absent.
type WriteRecord struct {
	Path   string `json:"path"`
	Before string `json:"sha256_before"`
	After  string `json:"sha256_after"`
}

// NewCall starts the audit record of a call of tool with the given raw
// arguments (a JSON object or any JSON-encodable value; may be nil).
func NewCall(tool, session string, args any) *Call {
	now := time.Now()
	return &Call{AuditRecord: AuditRecord{ID: newSessionID("a"), Time: now.UTC(), Tool: tool, Session: session, Args: redactArgs(args)}, begun: now}
}

type callKey struct{}

// WithCall returns a context carrying c, so store methods record into it.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallFrom returns the call in ctx, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// AddRead records that the call returned the content of rel.
func (c *Call) AddRead(rel string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.Reads = append(c.Reads, rel)
	c.mu.Unlock()
}

// AddWarning records a problem that did not fail the call.
func (c *Call) AddWarning(w string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.Warnings = append(c.Warnings, w)
	c.mu.Unlock()
}

// SetExtra records a tool-specific figure.
func (c *Call) SetExtra(key string, v any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.Extra == nil {
		c.Extra = map[string]any{}
	}
	c.Extra[key] = v
	c.mu.Unlock()
}

// WarningsSnapshot returns a copy of the warnings recorded so far.
func (c *Call) WarningsSnapshot() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.Warnings...)
}

// SnapshotsTaken returns a copy of the snapshot files the call has made so
// far (paths under .llmwiki/snapshots/, in order).
func (c *Call) SnapshotsTaken() []string {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.Snapshots...)
}

// Record returns a copy of the call's record as it stands (slices copied).
func (c *Call) Record() AuditRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.AuditRecord
	r.Reads = append([]string(nil), r.Reads...)
	r.Writes = append([]WriteRecord(nil), r.Writes...)
	r.Snapshots = append([]string(nil), r.Snapshots...)
	r.Warnings = append([]string(nil), r.Warnings...)
	return r
}

func (c *Call) addWrites(w []WriteRecord, snaps []string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.Writes = append(c.Writes, w...)
	c.Snapshots = append(c.Snapshots, snaps...)
	c.mu.Unlock()
}

// Begun is when the call started, with the monotonic clock.
func (c *Call) Begun() time.Time { return c.begun }

// AddPruned records snapshots deleted by the retention, with their sha256.
func (c *Call) AddPruned(p []WriteRecord) {
	if c == nil || len(p) == 0 {
		return
	}
	c.mu.Lock()
	c.Pruned = append(c.Pruned, p...)
	c.mu.Unlock()
}

// Finish sets the outcome from err and the duration.
func (c *Call) Finish(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.DurationMS = float64(time.Since(c.Time).Microseconds()) / 1000
	if err == nil {
		c.Outcome = "ok"
		return
	}
	c.Outcome, c.Code, c.Error = "error", CodeOf(err), PublicMessage(err)
}

// redactArgs replaces strings longer than MaxAuditString (and invalid UTF-8)
// with their length and sha256, recursively.
func redactArgs(v any) any {
	switch x := v.(type) {
	case nil, bool, float64, int, int64, json.Number:
		return x
	case json.RawMessage:
		var m any
		if json.Unmarshal(x, &m) != nil {
			return map[string]any{"len": len(x), "sha256": SHA256Hex(x)}
		}
		return redactArgs(m)
	case string:
		if len(x) > MaxAuditString || !utf8.ValidString(x) {
			return map[string]any{"len": len(x), "sha256": SHA256Hex([]byte(x))}
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = redactArgs(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = redactArgs(v)
		}
		return out
	case []string:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = redactArgs(v)
		}
		return out
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		var m any
		if json.Unmarshal(b, &m) != nil {
			return nil
		}
		switch m.(type) {
		case map[string]any, []any, string:
			return redactArgs(m)
		}
		return m
	}
}

// Audit finishes c with err and appends its line to today's audit file with
// a single write(2) on an O_APPEND descriptor, under the audit lock (see
// [AuditLockFile]), so lines from concurrent calls and processes never
// interleave. A last line torn by a crash is repaired first (see
// [Store.Repairs]). It takes neither the project lock nor the state lock,
// so it never waits for a write's fsyncs.
func (s *Store) Audit(c *Call, err error) error {
	if s.readOnly {
		c.Finish(err)
		s.warnAuditSkipped()
		return nil
	}
	unlock, lerr := s.lockAudit(context.Background())
	if lerr != nil {
		return lerr
	}
	defer unlock()
	return s.auditLocked(c, err)
}

// auditLocked is Audit for a caller holding the audit lock.
func (s *Store) auditLocked(c *Call, err error) error {
	c.Finish(err)
	c.mu.Lock()
	line, merr := json.Marshal(c.AuditRecord)
	c.mu.Unlock()
	if merr != nil {
		return Internal("encode audit line", merr)
	}
	line = append(line, '\n')
	name := AuditDir + "/" + c.Time.Format("2006-01-02") + ".jsonl"
	f, fi, err := s.auditFile(name)
	if err != nil {
		return err
	}
	if msg, rerr := s.repairAuditTail(f, fi.Size(), name); rerr != nil {
		// The torn bytes stay; start this line on a line of its own.
		s.log.Error("could not repair a torn audit line", "file", name, "err", rerr)
		line = append([]byte("\n"), line...)
	} else if msg != "" {
		s.addRepair(msg)
		rec := AuditRecord{Time: time.Now().UTC(), Session: s.session, Tool: "internal:repair", Outcome: "ok", Warnings: []string{msg}}
		if b, err := json.Marshal(rec); err == nil {
			line = append(append(b, '\n'), line...)
		}
	}
	_, werr := f.Write(line)
	if werr != nil || !keepAuditOpen {
		s.closeAuditFile()
	}
	if werr != nil {
		return Internal("append audit line", werr)
	}
	return nil
}

// keepAuditOpen says whether the audit descriptor is kept between lines.
// Not on Windows, where an open file cannot be renamed or removed by
// whoever rotates the logs.
const keepAuditOpen = runtime.GOOS != "windows"

// auditFile returns the audit file name (the day's) opened for appending,
// and its fstat. The descriptor is kept between lines, for the same name:
// before each line the path is lstatted as through the root (by a
// [StatCache], which keeps .llmwiki/audit open and checks it), and unless it
// still names the kept file (same device and inode; an inode cannot be
// reused while a descriptor holds it) the file is opened again, so a log
// renamed, replaced or removed under the descriptor gets the next line at
// its path, as a fresh open would. The caller holds the audit lock.
func (s *Store) auditFile(name string) (*os.File, fs.FileInfo, error) {
	if s.audit != nil {
		if s.auditName == name {
			if pfi := s.auditStat.Lstat(s.root, []string{name})[0]; pfi != nil {
				if fi, err := s.audit.Stat(); err == nil && SameFile(pfi, fi) {
					return s.audit, fi, nil
				}
			}
		}
		s.closeAuditFile()
	}
	if err := s.root.MkdirAll(AuditDir, 0o755); err != nil {
		return nil, nil, Internal("create audit folder", err)
	}
	f, fi, err := openRegularFlag(s.root, name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		if errors.Is(err, ErrNotRegular) {
			return nil, nil, err
		}
		return nil, nil, Internal("open audit log", err)
	}
	s.audit, s.auditName = f, name
	return f, fi, nil
}

// closeAuditFile closes the kept audit descriptor, if any. The caller holds
// the audit lock.
func (s *Store) closeAuditFile() {
	if s.audit != nil {
		_ = s.audit.Close()
		s.audit, s.auditName = nil, ""
	}
}

// TornDir holds the bytes of audit lines cut short by a crash, moved out of
// the audit log so that every line of it parses.
const TornDir = AuditDir + "/torn"

// repairAuditTail checks that the audit file f (named name) ends with a
// complete line. Lines are written whole under the audit lock, which the
// caller holds, so bytes after the last newline are a line whose writer
// died mid-write: they are copied to [TornDir], cut off (every earlier byte
// stays as it was), and msg says so. msg is "" when the file was whole.
func (s *Store) repairAuditTail(f *os.File, size int64, name string) (string, error) {
	if size == 0 {
		return "", nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return "", err
	}
	if last[0] == '\n' {
		return "", nil
	}
	start := int64(0)
	buf := make([]byte, 64<<10)
	for pos := size; pos > 0; {
		n := int64(len(buf))
		if n > pos {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = pos + int64(i) + 1
			break
		}
	}
	frag := make([]byte, size-start)
	if _, err := f.ReadAt(frag, start); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	moved := fmt.Sprintf("%s/%s.at-%d.txt", TornDir, path.Base(name), start)
	if err := s.writeStateLocked(moved, frag); err != nil {
		return "", err
	}
	if err := f.Truncate(start); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return fmt.Sprintf("the last line of %s was cut short by a crash (%d bytes); it was moved to %s, and the log now ends at its last complete line", name, len(frag), moved), nil
}

// repairAuditTails repairs every audit file whose last line is torn. Called
// under all locks by Open.
func (s *Store) repairAuditTails(call *Call) {
	entries, err := readDir(s.root, AuditDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		name := AuditDir + "/" + e.Name()
		f, _, err := openRegularFlag(s.root, name, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		fi, err := f.Stat()
		msg := ""
		if err == nil {
			msg, err = s.repairAuditTail(f, fi.Size(), name)
		}
		f.Close()
		if err != nil {
			call.AddWarning("could not repair the torn last line of " + name + "; readers skip it")
		} else if msg != "" {
			call.AddWarning(msg)
		}
	}
}

// ParseAuditLines parses the lines of one audit file. A line that does not
// parse (a torn last line before the store repaired it) is skipped and
// counted in bad.
func ParseAuditLines(data []byte) (recs []AuditRecord, bad int) {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r AuditRecord
		if json.Unmarshal(l, &r) != nil {
			bad++
			continue
		}
		recs = append(recs, r)
	}
	return recs, bad
}

// newSessionID returns a random id for a process-level session.
func newSessionID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}
