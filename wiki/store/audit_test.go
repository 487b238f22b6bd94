package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// auditTools lists the tool of each line of the audit file at p (nil when
// there is no such file); every line must parse.
func auditTools(t *testing.T, p string) []string {
	t.Helper()
	data, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r AuditRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%s: a line does not parse: %v: %q", p, err, l)
		}
		out = append(out, r.Tool)
	}
	return out
}

// auditAt writes the audit line of a call to tool begun at when.
func auditAt(t *testing.T, s *Store, tool string, when time.Time) {
	t.Helper()
	c := NewCall(tool, "sess-1", nil)
	c.Time = when
	if err := s.Audit(c, nil); err != nil {
		t.Fatal(err)
	}
}

// The audit file is kept open between lines; a log renamed, replaced,
// removed or truncated under that descriptor (by a person, or a tool that
// rotates logs) gets the next line at its path, as a fresh open would, and
// no line is lost.
func TestAuditFileChangedUnderHandle(t *testing.T) {
	day := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	const name = "2026-03-04.jsonl"
	cases := []struct {
		name   string
		change func(t *testing.T, dir, log string)
		want   map[string][]string // file (relative to the audit folder) -> tools of its lines
	}{
		{"unchanged", func(t *testing.T, dir, log string) {},
			map[string][]string{name: {"first", "second", "third"}}},
		{"renamed", func(t *testing.T, dir, log string) {
			if err := os.Rename(log, log+".1"); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{name + ".1": {"first"}, name: {"second", "third"}}},
		{"replaced", func(t *testing.T, dir, log string) {
			tmp := log + ".new"
			if err := os.WriteFile(tmp, []byte(`{"tool":"by-hand"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, log); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{name: {"by-hand", "second", "third"}}},
		{"removed", func(t *testing.T, dir, log string) {
			if err := os.Remove(log); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{name: {"second", "third"}}},
		{"folder renamed", func(t *testing.T, dir, log string) {
			a := filepath.Join(dir, AuditDir)
			if err := os.Rename(a, a+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(a, 0o755); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{"../audit.old/" + name: {"first"}, name: {"second", "third"}}},
		{"folder removed", func(t *testing.T, dir, log string) {
			if err := os.RemoveAll(filepath.Join(dir, AuditDir)); err != nil {
				t.Fatal(err)
			}
		}, map[string][]string{name: {"second", "third"}}},
		{"torn tail written in place", func(t *testing.T, dir, log string) {
			f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"tool":"cut sh`)
			f.Close()
		}, map[string][]string{name: {"first", "internal:repair", "second", "third"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := newTestStore(t)
			log := filepath.Join(dir, AuditDir, name)
			auditAt(t, s, "first", day)
			tc.change(t, dir, log)
			auditAt(t, s, "second", day.Add(time.Minute))
			auditAt(t, s, "third", day.Add(2*time.Minute))
			for file, want := range tc.want {
				if got := auditTools(t, filepath.Join(dir, AuditDir, file)); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: lines of %v, want %v", file, got, want)
				}
			}
			// The descriptor is kept open on what the path names now.
			if keepAuditOpen {
				fi, err := os.Lstat(log)
				if err != nil {
					t.Fatal(err)
				}
				hfi, err := s.audit.Stat()
				if err != nil || !os.SameFile(fi, hfi) {
					t.Errorf("kept descriptor is not the file at %s (%v)", log, err)
				}
			}
		})
	}
}

// Each line goes to the file of the day (UTC) its call began: at midnight
// the next line opens the new day's file, and a call begun before midnight
// that finishes after it still goes to the day before.
func TestAuditFileOfTheDay(t *testing.T) {
	s, dir := newTestStore(t)
	midnight := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
	auditAt(t, s, "late", midnight.Add(-time.Second))
	auditAt(t, s, "midnight", midnight)
	auditAt(t, s, "begun before", midnight.Add(-time.Millisecond))
	auditAt(t, s, "early", midnight.Add(time.Second))
	want := map[string][]string{
		"2026-03-04.jsonl": {"late", "begun before"},
		"2026-03-05.jsonl": {"midnight", "early"},
	}
	for file, w := range want {
		if got := auditTools(t, filepath.Join(dir, AuditDir, file)); !reflect.DeepEqual(got, w) {
			t.Errorf("%s: lines of %v, want %v", file, got, w)
		}
	}
	if keepAuditOpen && s.auditName != AuditDir+"/2026-03-05.jsonl" {
		t.Errorf("kept file %q, want the last line's day", s.auditName)
	}
	// Close releases the descriptor.
	s.Close()
	if s.audit != nil {
		t.Error("Close kept the audit file open")
	}
}

// BenchmarkAudit measures the audit line of a read call, as every tool call
// writes one.
//
//	go test ./wiki/store -run '^$' -bench Audit -benchmem
func BenchmarkAudit(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "store")
	if err := os.MkdirAll(filepath.Join(dir, "pages"), 0o755); err != nil {
		b.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := map[string]any{"query": "canvas file", "limit": 10}
	b.ReportAllocs()
	for b.Loop() {
		c := NewCall("search_wiki", "sess-1", args)
		c.AddRead("pages/obsidian/Canvas.md")
		if err := s.Audit(c, nil); err != nil {
			b.Fatal(err)
		}
	}
}
