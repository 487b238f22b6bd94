package review

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// WriteDiffs returns the diffs of one queued write: from the version
// before it to the version it wrote (from snapshots and the current file).
func (s *Service) WriteDiffs(id string) ([]FileDiff, error) {
	q, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	out := make([]FileDiff, 0, len(q.w.Files))
	for _, f := range q.w.Files {
		var before, after []byte
		var gone string
		if f.Before != "" {
			data, ok, err := s.version(f.Path, f.Before, q.snapshots)
			if err != nil {
				return nil, err
			}
			if !ok {
				gone = "(the version before this write is no longer stored: the snapshot retention pruned it)"
			}
			before = data
		}
		if f.After != "" && gone == "" {
			data, ok, err := s.version(f.Path, f.After, nil)
			if err != nil {
				return nil, err
			}
			if !ok {
				gone = "(the version written is gone: the file changed since, and no snapshot holds that version)"
			}
			after = data
		}
		fd := FileDiff{Path: f.Path, Change: changeOf(f)}
		if gone != "" {
			fd.Diff = gone
		} else {
			fd = textDiff(f.Path, fd.Change, before, after)
		}
		out = append(out, fd)
	}
	return out, nil
}

// changeOf names what a write did to a file.
func changeOf(w store.WriteRecord) string {
	switch {
	case w.Before == "":
		return "created"
	case w.After == "":
		return "deleted"
	}
	return "updated"
}

// textDiff is the unified diff of one file from before to after, with the
// lines added and removed; Diff is "" when either side is not UTF-8 text.
func textDiff(rel, change string, before, after []byte) FileDiff {
	fd := FileDiff{Path: rel, Change: change}
	if !utf8.Valid(before) || !utf8.Valid(after) {
		return fd
	}
	a, b := string(before), string(after)
	edits := udiff.Lines(a, b)
	d, err := udiff.ToUnified("a/"+rel, "b/"+rel, a, edits, udiff.DefaultContextLines)
	if err != nil {
		return fd
	}
	fd.Diff = d
	for _, l := range strings.SplitAfter(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			fd.Added++
		case strings.HasPrefix(l, "-"):
			fd.Removed++
		}
	}
	return fd
}

// version returns the bytes of rel whose sha256 is sum: the current file
// when it matches, else a snapshot holding it (those of the write first,
// then every stored version of rel). ok is false when none is left.
func (s *Service) version(rel, sum string, snaps []string) ([]byte, bool, error) {
	if cur, ok, err := s.st.ReadRaw(rel); err != nil {
		return nil, false, err
	} else if ok && store.SHA256Hex(cur) == sum {
		return cur, true, nil
	}
	try := func(p string) ([]byte, bool, error) {
		data, ok, err := s.st.ReadRaw(p)
		if err != nil || !ok {
			return nil, false, err
		}
		return data, store.SHA256Hex(data) == sum, nil
	}
	dir := path.Join(store.SnapshotDir, rel) + "/"
	for _, p := range snaps {
		if sn, ok := store.ParseSnapshotPath(p); ok && strings.HasPrefix(p, dir) && strings.HasPrefix(sum, sn.SHA256Prefix) {
			if data, ok, err := try(p); err != nil || ok {
				return data, ok, err
			}
		}
	}
	list, err := s.st.Snapshots(rel)
	if err != nil {
		return nil, false, err
	}
	for _, sn := range list {
		if strings.HasPrefix(sum, sn.SHA256Prefix) {
			if data, ok, err := try(sn.Snapshot); err != nil || ok {
				return data, ok, err
			}
		}
	}
	return nil, false, nil
}
