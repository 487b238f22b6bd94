package lint

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// KindSyncConflict is a file both sides of a git sync changed beyond a
// clean merge ([wiki.SyncConflict]): the file holds the remote version, the
// local one is a snapshot, and a person merges them. One finding per open
// conflict; writing the file or keeping it ([wiki.Store.KeepSyncConflict],
// or dismissing the finding) closes it.
const KindSyncConflict = "sync_conflict"

// maxEvidenceQuote bounds a quote of a sync conflict's evidence, in runes.
const maxEvidenceQuote = 300

// ShortCommit is a commit hash as output shows it: its first 7 digits.
func ShortCommit(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// SyncConflictFinding returns the finding of the open conflict c. cur is
// the file now (nil when it does not exist), local the snapshot's bytes
// (nil when the local side deleted the file or the snapshot is gone); the
// evidence quotes the first line where the two differ, on each side.
func SyncConflictFinding(c wiki.SyncConflict, cur, local []byte) Finding {
	remote, mine := "commit "+orUnknown(ShortCommit(c.Remote)), "commit "+orUnknown(ShortCommit(c.Local))
	var what string
	switch {
	case c.Snapshot == "":
		what = fmt.Sprintf("%s was deleted here (%s) and changed on the remote (%s); the file is the remote version", c.Path, mine, remote)
	case c.RemoteSHA256 == "":
		what = fmt.Sprintf("%s was deleted on the remote (%s) and changed here (%s); the file is gone and your version is kept in %s", c.Path, remote, mine, c.Snapshot)
	default:
		what = fmt.Sprintf("%s changed on both sides beyond a clean merge: the file is the remote version (%s), your version (%s) is kept in %s", c.Path, remote, mine, c.Snapshot)
	}
	msg := fmt.Sprintf("sync conflict %s, found %s: %s", c.ID, c.Found.UTC().Format(time.RFC3339), what)
	if s := strings.TrimSpace(c.Summary); s != "" {
		msg += ". " + s
	}
	var action string
	if c.Snapshot == "" {
		action = fmt.Sprintf("merge them: the remote version is the file; edit it, or delete it by hand to take your deletion; then a person settles it with llmwiki review keep %s (or on the review page)", c.ID)
	} else {
		action = fmt.Sprintf("merge them: read the snapshot with read_page at %q, edit the page to hold what both say, or restore_snapshot (snapshot %q) to take the local version; a person can settle it on the review page or with llmwiki review keep|take %s", c.Snapshot, c.Snapshot, c.ID)
	}
	f := newFinding(KindSyncConflict, c.Path, 0, c.ID, c.LocalSHA256+"\x00"+c.RemoteSHA256, msg, action)
	if c.Snapshot != "" {
		f.Related = []string{c.Snapshot}
	}
	if cur != nil && local != nil {
		if line, a, b, ok := firstDifference(cur, local); ok {
			f.Line = line
			f.Evidence = []Evidence{
				{Path: c.Path, Quote: a, Verified: true, Line: line, SHA256: c.RemoteSHA256},
				{Path: c.Snapshot, Quote: b, Verified: true, Line: line, SHA256: c.LocalSHA256},
			}
		}
	}
	return f
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// firstDifference returns the 1-based number of the first line where a and
// b differ and that line of each (cut to [maxEvidenceQuote] runes; "" past
// the end of one). ok is false when they are equal or not UTF-8 text.
func firstDifference(a, b []byte) (line int, la, lb string, ok bool) {
	if bytes.Equal(a, b) || !utf8.Valid(a) || !utf8.Valid(b) {
		return 0, "", "", false
	}
	for n := 1; ; n++ {
		var x, y []byte
		x, a, _ = bytes.Cut(a, []byte("\n"))
		y, b, _ = bytes.Cut(b, []byte("\n"))
		x, y = bytes.TrimSuffix(x, []byte("\r")), bytes.TrimSuffix(y, []byte("\r"))
		// Equal lines to the end of both: only line endings differ.
		if !bytes.Equal(x, y) || (len(a) == 0 && len(b) == 0) {
			return n, cutRunes(string(x)), cutRunes(string(y)), true
		}
	}
}

func cutRunes(s string) string {
	if utf8.RuneCountInString(s) <= maxEvidenceQuote {
		return s
	}
	r := []rune(s)
	return string(r[:maxEvidenceQuote-1]) + "…"
}

// checkSyncConflicts reports every open sync conflict.
func (c *checker) checkSyncConflicts(ctx context.Context) error {
	all, open, err := c.st.SyncConflicts()
	if err != nil {
		return err
	}
	for i, sc := range all {
		if !open[i] || ctx.Err() != nil {
			continue
		}
		var cur, local []byte
		if sc.RemoteSHA256 != "" {
			cur = c.read(sc.Path)
		}
		if sc.Snapshot != "" {
			if b, ok, err := c.st.ReadRaw(sc.Snapshot); err == nil && ok {
				local = b
			}
		}
		c.addFinding(SyncConflictFinding(sc, cur, local))
	}
	return nil
}

// keepDismissedConflicts closes the sync conflicts whose findings fs (just
// dismissed) are about: a dismissed sync_conflict is a conflict kept as it
// is, so load_project, status and the review page agree with lint. One
// whose file was written meanwhile is closed already.
func keepDismissedConflicts(ctx context.Context, st *wiki.Store, fs []Finding, reason, by string) error {
	ids := map[string]bool{}
	for _, f := range fs {
		if f.Kind == KindSyncConflict {
			ids[f.ID] = true
		}
	}
	if len(ids) == 0 {
		return nil
	}
	all, open, err := st.SyncConflicts()
	if err != nil {
		return err
	}
	for i, sc := range all {
		if !open[i] || !ids[SyncConflictFindingID(sc)] {
			continue
		}
		if err := st.KeepSyncConflict(ctx, sc, by, reason); err != nil && store.CodeOf(err) != store.CodeConflict {
			return err
		}
	}
	return nil
}

// SyncConflictFindingID is the id of c's finding.
func SyncConflictFindingID(c wiki.SyncConflict) string {
	return hashParts(12, KindSyncConflict, c.Path, c.ID)
}
