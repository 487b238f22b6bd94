package store

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// SnapshotDir holds every replaced version of context.md, guidelines.md and
// each page: <SnapshotDir>/<path>/<UTC time to the ns>-<sha256 prefix><ext>.
// Files there are never overwritten; they are deleted only by the retention
// schema.md may set (package wiki's Store.PruneSnapshots), which never
// deletes the last copy of a version still referenced.
const SnapshotDir = ".llmwiki/snapshots"

const snapshotStamp = "20060102T150405.000000000Z"

// snapshot stores old, the version of rel about to be replaced, and returns
// the snapshot's project-relative path. The name joins the time to the
// nanosecond with the first 16 hex digits of the content's sha256, so two
// snapshots can only share a name when they hold the same bytes.
func (s *Store) snapshot(rel string, old []byte) (string, error) {
	sum := SHA256Hex(old)
	name := path.Join(SnapshotDir, rel, s.now().UTC().Format(snapshotStamp)+"-"+sum[:16]+path.Ext(rel))
	if err := s.writeState(name, old); err != nil {
		_ = s.root.Remove(name) // renamed in place before a later step failed
		return "", &Error{Code: CodeInternal, Msg: "snapshot " + rel + " (nothing was changed): " + ioReasonOr(err), Err: err}
	}
	return name, nil
}

// Snapshot describes one stored version of a file.
type Snapshot struct {
	// Snapshot is the snapshot's project-relative path (under .llmwiki/snapshots/).
	Snapshot string `json:"snapshot"`
	// Path is the path of the file it is a version of.
	Path string `json:"path"`
	// Replaced is when the version was replaced (UTC).
	Replaced time.Time `json:"replaced"`
	// SHA256Prefix is the first 16 hex digits of the version's sha256.
	SHA256Prefix string `json:"sha256_prefix"`
	// Size is the version's size in bytes.
	Size int64 `json:"size"`
}

// Snapshots lists the stored versions of rel, newest first.
func (s *Store) Snapshots(rel string) ([]Snapshot, error) {
	rel, err := s.cleanPath(rel)
	if err != nil {
		return nil, err
	}
	dir := path.Join(SnapshotDir, rel)
	entries, err := readDir(s.root, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, Internal("list snapshots of "+rel, err)
	}
	var out []Snapshot
	for _, e := range entries {
		if e.IsDir() || IsTempName(e.Name()) {
			continue
		}
		name := strings.TrimSuffix(e.Name(), path.Ext(rel))
		i := strings.LastIndexByte(name, '-')
		if i < 0 {
			continue
		}
		t, err := time.Parse(snapshotStamp, name[:i])
		if err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, Snapshot{Snapshot: path.Join(dir, e.Name()), Path: rel, Replaced: t, SHA256Prefix: name[i+1:], Size: info.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Snapshot > out[j].Snapshot })
	return out, nil
}

// ParseSnapshotPath reads a snapshot's project-relative path
// ("<SnapshotDir>/<of>/<stamp>-<sha prefix><ext>").
func ParseSnapshotPath(p string) (Snapshot, bool) {
	if !strings.HasPrefix(p, SnapshotDir+"/") {
		return Snapshot{}, false
	}
	of := path.Dir(strings.TrimPrefix(p, SnapshotDir+"/"))
	if of == "." {
		return Snapshot{}, false
	}
	name := strings.TrimSuffix(path.Base(p), path.Ext(of))
	i := strings.LastIndexByte(name, '-')
	if i < 0 || len(name)-i-1 != 16 {
		return Snapshot{}, false
	}
	t, err := time.Parse(snapshotStamp, name[:i])
	if err != nil {
		return Snapshot{}, false
	}
	return Snapshot{Snapshot: p, Path: of, Replaced: t, SHA256Prefix: name[i+1:]}, true
}
