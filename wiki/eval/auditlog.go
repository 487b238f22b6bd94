package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// LogStats describes what was read from the audit log.
type LogStats struct {
	// Files is the number of daily audit files read.
	Files int `json:"files"`
	// Lines is the number of lines parsed (in the window or not).
	Lines int `json:"lines"`
	// InWindow is the number of lines at or after --since.
	InWindow int `json:"in_window"`
	// Torn counts last lines cut short (a process died mid-write, or a
	// writer is appending right now); they are skipped.
	Torn int `json:"torn"`
	// Bad lists lines that are not audit records ("2026-11-29.jsonl:17"),
	// at most 20; BadCount counts them all.
	Bad      []string `json:"bad,omitempty"`
	BadCount int      `json:"bad_count"`
}

// AuditLine is the part of a [store.AuditRecord] eval reads. Args and Extra
// stay raw JSON, decoded only for the few tools whose arguments matter, so
// a large log is read quickly.
type AuditLine struct {
	Time       time.Time       `json:"time"`
	Session    string          `json:"session"`
	Client     string          `json:"client"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Outcome    string          `json:"outcome"`
	Reads      []string        `json:"reads"`
	Extra      json.RawMessage `json:"extra"`
	DurationMS float64         `json:"duration_ms"`
}

// ReadAudit reads every audit line at or after since (zero: all) from
// .llmwiki/audit/YYYY-MM-DD.jsonl in date order and calls fn with each. A
// last line without its newline that does not parse is torn: counted and
// skipped. Any other line that does not parse is counted in Bad and skipped.
func ReadAudit(st *wiki.Store, since time.Time, fn func(*AuditLine)) (LogStats, error) {
	var stats LogStats
	entries, err := st.ReadDir(store.AuditDir)
	if errors.Is(err, fs.ErrNotExist) {
		return stats, nil
	} else if err != nil {
		return stats, store.Errorf(store.CodeInternal, "list the audit log")
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".jsonl") {
			continue
		}
		day, err := time.Parse("2006-01-02", strings.TrimSuffix(n, ".jsonl"))
		if err != nil {
			continue
		}
		// A day file holds calls that started that UTC day.
		if !since.IsZero() && day.Add(24*time.Hour).Before(since) {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	// Files are parsed in parallel (JSON decoding is most of eval's work on a
	// large log), then handed to fn in date and line order.
	type parsed struct {
		lines []*AuditLine
		stats LogStats
		err   error
	}
	out := make([]parsed, len(names))
	workers := min(runtime.GOMAXPROCS(0), len(names))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(names); i += workers {
				f, err := st.OpenFile(path.Join(store.AuditDir, names[i]))
				if err != nil {
					out[i].err = store.Errorf(store.CodeInternal, "open audit file %s", names[i])
					continue
				}
				out[i].err = readAuditFile(f, names[i], since, &out[i].stats, func(l *AuditLine) { out[i].lines = append(out[i].lines, l) })
				f.Close()
			}
		}(w)
	}
	wg.Wait()
	for _, p := range out {
		if p.err != nil {
			return stats, p.err
		}
		stats.Files++
		stats.Lines += p.stats.Lines
		stats.InWindow += p.stats.InWindow
		stats.Torn += p.stats.Torn
		stats.BadCount += p.stats.BadCount
		for _, b := range p.stats.Bad {
			if len(stats.Bad) < 20 {
				stats.Bad = append(stats.Bad, b)
			}
		}
		for _, l := range p.lines {
			fn(l)
		}
	}
	return stats, nil
}

func readAuditFile(r io.Reader, name string, since time.Time, stats *LogStats, fn func(*AuditLine)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	lineNo := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return store.Errorf(store.CodeInternal, "read audit file %s", name)
		}
		lineNo++
		complete := line[len(line)-1] == '\n'
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var rec AuditLine
		if jerr := json.Unmarshal(line, &rec); jerr != nil || rec.Tool == "" || rec.Time.IsZero() {
			if !complete {
				stats.Torn++
			} else {
				stats.BadCount++
				if len(stats.Bad) < 20 {
					stats.Bad = append(stats.Bad, fmt.Sprintf("%s:%d", name, lineNo))
				}
			}
		} else {
			stats.Lines++
			if since.IsZero() || !rec.Time.Before(since) {
				stats.InWindow++
				fn(&rec)
			}
		}
		if err != nil {
			return nil
		}
	}
}
