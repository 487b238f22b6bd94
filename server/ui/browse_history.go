package ui

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// historyLimit is how many stored versions the history page shows (and
// diffs) at once.
const historyLimit = 10

// maxDiffBytes caps a version the history page diffs; a larger one is
// listed without its diff.
const maxDiffBytes = 2 << 20

// versionView is one version of a file with its diff to the version after
// it (the next newer one, or the current file).
type versionView struct {
	snapRow
	Against string // what the diff compares with: "the current file" or a time
	Files   []fileView
	Note    string // why there is no diff
}

// historyData is what history.html shows.
type historyData struct {
	Path, PageURL, SHA256 string
	Exists                bool
	Versions              []versionView
	Pager                 listPager
}

func (a *app) history(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("path")
	p := page{Title: "History of " + name, Nav: "pages"}
	if flash, isErr := a.takeFlash(w, r); isErr {
		p.Error = flash
	} else {
		p.Flash = flash
	}
	rel, snaps, err := a.cfg.Store.SnapshotsOf(name)
	if err != nil {
		p.Error = store.PublicMessage(err)
		a.renderStatus(w, browseStatus(err), "history", p)
		return
	}
	p.Title = "History of " + rel
	d := historyData{Path: rel}
	cur, curErr := a.cfg.Store.ReadFile(rel)
	d.Exists = curErr == nil
	if d.Exists {
		d.SHA256 = store.SHA256Hex(cur)
		if wiki.LayerOf(rel) == wiki.LayerPages {
			d.PageURL = pageURL(rel)
		}
	}
	off := min(offsetParam(r), len(snaps))
	end := min(off+historyLimit, len(snaps))
	// newer is the version after snaps[i]: the one before it in the list
	// (newest first), or the current file.
	var newer []byte
	newerOK, against := d.Exists, "the current file"
	if off > 0 {
		newer, newerOK = a.readVersion(snaps[off-1].Snapshot)
		against = snapRowOf(snaps[off-1]).Time
	} else {
		newer = cur
	}
	for _, s := range snaps[off:end] {
		v := versionView{snapRow: snapRowOf(s), Against: against}
		old, ok := a.readVersion(s.Snapshot)
		switch {
		case !ok:
			v.Note = "this version cannot be read or is too large to diff"
		case !newerOK:
			v.Note = "nothing to compare with: the file does not exist now"
		case bytes.Equal(old, newer):
			v.Note = "identical to " + against
		default:
			v.Files = []fileView{diffView(rel, old, newer)}
		}
		d.Versions = append(d.Versions, v)
		newer, newerOK, against = old, ok, v.Time
	}
	d.Pager = pageOf(r, len(snaps), off, end-off, historyLimit)
	p.Data = d
	a.render(w, "history", p)
}

// readVersion reads a stored version for diffing.
func (a *app) readVersion(snapshot string) ([]byte, bool) {
	data, err := a.cfg.Store.ReadFile(snapshot)
	if err != nil || len(data) > maxDiffBytes {
		return nil, false
	}
	return data, true
}

// diffView is the change of rel from old to new as the Review page shows
// a file's change (the "diff" template).
func diffView(rel string, old, new []byte) fileView {
	fd := review.FileDiff{Path: rel, Change: "updated"}
	if ot, _, ok := mdoc.DecodeText(old); ok {
		if nt, _, ok := mdoc.DecodeText(new); ok {
			fd.Diff, fd.Added, fd.Removed = review.UnifiedDiff(rel, review.Present(ot), review.Present(nt))
		}
	}
	v := fileView{FileDiff: fd}
	v.Lines, v.Omitted = diffLines(fd.Diff)
	return v
}

// restore brings back the stored version the form names, in an audited
// call of its own (tool "web:restore"), notes it in log.md as `llmwiki
// snapshots restore` does, and returns to the history with a flash.
func (a *app) restore(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("path")
	back := "/history/" + escapePath(name)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	snap := strings.TrimSpace(r.PostFormValue("snapshot"))
	if snap == "" {
		a.setFlash(w, "no version chosen: pick a version's Restore button", true)
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	in := wiki.RestoreInput{Path: name, Snapshot: snap}
	call := store.NewCall("web:restore", a.sessionOf(r), map[string]any{"path": name, "snapshot": snap})
	call.Client = Client
	call.Remote = r.RemoteAddr
	// A restore once posted runs to the end, as a review decision does.
	ctx := store.WithCall(context.WithoutCancel(r.Context()), call)
	// The restore and its log entry are one commit.
	ctx, commit := a.cfg.Store.OneCommit(ctx)
	res, err := a.cfg.Store.RestoreSnapshot(ctx, in)
	if err == nil && res.Changed {
		_, lerr := a.cfg.Store.AppendLog(ctx, wiki.LogInput{Op: "restore", Title: "Restored " + res.Path + " from " + path.Base(res.Restored),
			Details: "Restored on the web page. The version it replaced is kept in " + res.Snapshot + "."})
		if lerr != nil {
			call.AddWarning("log.md entry not written: " + store.PublicMessage(lerr))
		}
	}
	commit()
	if aerr := a.cfg.Store.Audit(call, err); aerr != nil {
		a.log.Error("ui: audit line not written", "tool", call.Tool, "err", aerr)
	}
	switch {
	case err != nil:
		a.setFlash(w, store.PublicMessage(err), true)
	case !res.Changed:
		a.setFlash(w, fmt.Sprintf("%s already holds that version; nothing was changed", res.Path), false)
	default:
		a.setFlash(w, fmt.Sprintf("restored %s from %s (sha256 %s); the version it replaced is kept and listed here", res.Path, path.Base(res.Restored), res.SHA256[:12]), false)
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
