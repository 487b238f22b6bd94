package review

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// UnifiedDiff returns the unified diff (3 lines of context) of rel from old
// to new ("" when either is not UTF-8 text) and the lines it adds and
// removes. A nil old is a created file ("--- /dev/null"), a nil new a
// deleted one ("+++ /dev/null"); an existing empty file is a non-nil empty
// slice (see [Present]). Every diff a person reviews, in the terminal or
// the browser, comes from here.
func UnifiedDiff(rel string, old, new []byte) (diff string, added, removed int) {
	if !utf8.Valid(old) || !utf8.Valid(new) {
		return "", 0, 0
	}
	a, b := string(old), string(new)
	oldName, newName := "a/"+rel, "b/"+rel
	if old == nil {
		oldName = "/dev/null"
	}
	if new == nil {
		newName = "/dev/null"
	}
	out, err := udiff.ToUnified(oldName, newName, a, udiff.Lines(a, b), udiff.DefaultContextLines)
	if err != nil {
		return "", 0, 0
	}
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return out, added, removed
}

// Present returns data as the bytes of a file that exists: non-nil, so
// [UnifiedDiff] does not take an empty file for an absent one.
func Present(data []byte) []byte {
	if data == nil {
		return []byte{}
	}
	return data
}

// Diffs returns the diffs of action n (1-based) of change set p: from the
// file as it is now to what the action would write (a fresh dry run), or,
// for a finished set, what the action wrote.
func (s *Service) Diffs(ctx context.Context, p *plan.Plan, n int) ([]FileDiff, error) {
	if p == nil || p.Op != plan.OpChangeSet {
		return nil, store.Errorf(store.CodeInvalid, "only change sets have diffs per action")
	}
	if n < 1 || n > len(p.Actions) {
		return nil, store.Errorf(store.CodeInvalid, "action %d does not exist: %s has actions 1 to %d", n, p.Name(), len(p.Actions))
	}
	a := p.Actions[n-1]
	if p.Status == plan.StatusPending && !p.Expired(s.st.Now()) {
		changes, err := s.dryRun(ctx, p.ID, a.Tool, a.Arguments)
		if err != nil {
			return nil, actionError(n, a.Tool, err)
		}
		var out []FileDiff
		for _, c := range changes {
			if !Reviewed(c.Path) {
				continue
			}
			fd := FileDiff{Path: c.Path, Change: "updated"}
			var old, now []byte
			if c.Existed {
				old = Present(c.Old)
			} else {
				fd.Change = "created"
			}
			if c.Op == store.OpDelete {
				fd.Change = "deleted"
			} else {
				now = Present(c.Data)
			}
			fd.Diff, fd.Added, fd.Removed = UnifiedDiff(c.Path, old, now)
			out = append(out, fd)
		}
		return out, nil
	}
	out := make([]FileDiff, 0, len(a.Files))
	for _, f := range a.Files {
		fd := FileDiff{Path: f.Path, Change: f.Change, Added: f.Added, Removed: f.Removed}
		old, okOld := s.version(f.Path, f.Before)
		now, okNew := s.version(f.Path, f.After)
		if okOld && okNew {
			fd.Diff, _, _ = UnifiedDiff(f.Path, old, now)
		}
		out = append(out, fd)
	}
	return out, nil
}

// version returns the bytes of rel whose sha256 is sum ("" is the absent
// file): the file on disk or one of its snapshots.
func (s *Service) version(rel, sum string) ([]byte, bool) {
	if sum == "" {
		return nil, true
	}
	if data, ok, err := s.st.ReadRaw(rel); err == nil && ok && store.SHA256Hex(data) == sum {
		return Present(data), true
	}
	snaps, err := s.st.Snapshots(rel)
	if err != nil {
		return nil, false
	}
	for _, sn := range snaps {
		if !strings.HasPrefix(sum, sn.SHA256Prefix) {
			continue
		}
		if data, ok, err := s.st.ReadRaw(sn.Snapshot); err == nil && ok && store.SHA256Hex(data) == sum {
			return Present(data), true
		}
	}
	return nil, false
}
