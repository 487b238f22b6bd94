package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// activityLimit is how many audit lines the Activity page shows at once;
// maxOptions caps each filter's select box (newest values first).
const (
	activityLimit = 100
	maxOptions    = 200
)

// auditFile is one parsed day file of the audit log, kept while its size
// and modification time stay the same (only today's file grows).
type auditFile struct {
	size int64
	mod  time.Time
	recs []store.AuditRecord // in file order, without args, reads and extra
	bad  int
}

// auditCache holds the parsed audit files of one app, so a page of the
// log costs a stat per day file, not a parse of the whole log.
type auditCache struct {
	mu    sync.Mutex
	files map[string]*auditFile
}

// auditLog returns every audit record, newest first, and how many lines
// did not parse.
func (a *app) auditLog() ([]store.AuditRecord, int, error) {
	cache := &a.audit
	entries, err := a.cfg.Store.ReadDir(store.AuditDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, store.Errorf(store.CodeInternal, "list the audit log")
	}
	infos := map[string]fs.FileInfo{}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			infos[e.Name()] = info
			names = append(names, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.files == nil {
		cache.files = map[string]*auditFile{}
	}
	var out []store.AuditRecord
	bad := 0
	seen := map[string]bool{}
	for _, name := range names {
		seen[name] = true
		f, info := cache.files[name], infos[name]
		if f == nil || f.size != info.Size() || !f.mod.Equal(info.ModTime()) {
			data, err := a.cfg.Store.ReadFile(path.Join(store.AuditDir, name))
			if err != nil {
				continue
			}
			recs, n := store.ParseAuditLines(data)
			for i := range recs {
				recs[i].Args, recs[i].Reads, recs[i].Extra = nil, nil, nil
			}
			f = &auditFile{size: info.Size(), mod: info.ModTime(), recs: recs, bad: n}
			cache.files[name] = f
		}
		bad += f.bad
		for i := len(f.recs) - 1; i >= 0; i-- {
			out = append(out, f.recs[i])
		}
	}
	for name := range cache.files {
		if !seen[name] {
			delete(cache.files, name)
		}
	}
	return out, bad, nil
}

// activityRow is one audit line as the page shows it.
type activityRow struct {
	store.AuditRecord
	When     string
	Duration string
	Written  []string
}

// filterBox is one select box of the filter form.
type filterBox struct {
	Name, Label, Value string
	Options            []string
}

// activityData is what activity.html shows.
type activityData struct {
	Filters []filterBox
	Rows    []activityRow
	Pager   listPager
	Bad     int
	Empty   bool // the audit log has no line at all
}

func (a *app) activity(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Activity", Nav: "activity"}
	recs, bad, err := a.auditLog()
	if err != nil {
		p.Error = store.PublicMessage(err)
		a.renderStatus(w, browseStatus(err), "activity", p)
		return
	}
	q := r.URL.Query()
	fields := []struct {
		name, label string
		of          func(*store.AuditRecord) string
	}{
		{"client", "Client", func(r *store.AuditRecord) string { return r.Client }},
		{"session", "Session", func(r *store.AuditRecord) string { return r.Session }},
		{"tool", "Tool", func(r *store.AuditRecord) string { return r.Tool }},
		{"outcome", "Outcome", func(r *store.AuditRecord) string { return r.Outcome }},
	}
	d := activityData{Bad: bad, Empty: len(recs) == 0}
	for _, f := range fields {
		box := filterBox{Name: f.name, Label: f.label, Value: q.Get(f.name)}
		have := map[string]bool{}
		for i := range recs {
			if v := f.of(&recs[i]); v != "" && !have[v] && len(box.Options) < maxOptions {
				have[v] = true
				box.Options = append(box.Options, v)
			}
		}
		if box.Name != "session" { // sessions stay newest first
			sort.Strings(box.Options)
		}
		if box.Value != "" && !have[box.Value] {
			box.Options = append(box.Options, box.Value)
		}
		d.Filters = append(d.Filters, box)
	}
	var match []int
	for i := range recs {
		ok := true
		for j, f := range fields {
			if v := d.Filters[j].Value; v != "" && f.of(&recs[i]) != v {
				ok = false
				break
			}
		}
		if ok {
			match = append(match, i)
		}
	}
	off := min(offsetParam(r), len(match))
	end := min(off+activityLimit, len(match))
	for _, i := range match[off:end] {
		rec := recs[i]
		row := activityRow{AuditRecord: rec, When: rec.Time.UTC().Format("2006-01-02 15:04:05"), Duration: duration(rec.DurationMS)}
		// A call writes one file several times (an approval whose actions
		// each update index.md): the row names each file once.
		for _, wr := range rec.Writes {
			if !slices.Contains(row.Written, wr.Path) {
				row.Written = append(row.Written, wr.Path)
			}
		}
		d.Rows = append(d.Rows, row)
	}
	d.Pager = pageOf(r, len(match), off, end-off, activityLimit)
	p.Data = d
	a.render(w, "activity", p)
}

// duration shows a call's wall time.
func duration(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}
