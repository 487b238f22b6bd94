package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// ListSnapshotsInput names the file whose versions to list.
type ListSnapshotsInput struct {
	Path  string `json:"path,omitempty" jsonschema:"the file: pages/x.md, a page slug or title, context.md or guidelines.md; omit it to list the files that have stored versions"`
	Limit int    `json:"limit,omitempty" jsonschema:"most versions to return, newest first (default 20, at most 200)"`
}

// ListSnapshotsOutput lists stored versions.
type ListSnapshotsOutput struct {
	// Path is the file listed ("" when listing files).
	Path string `json:"path,omitempty"`
	// Snapshots are its stored versions, newest first.
	Snapshots []store.Snapshot `json:"snapshots"`
	// Total is how many versions are stored (may exceed what is listed).
	Total int `json:"total"`
	// Files, when no path was given, are the files with stored versions
	// and how many each has.
	Files []SnapshotFile `json:"files,omitempty"`
	Notes
}

// SnapshotFile is a file with stored versions.
type SnapshotFile struct {
	Path     string `json:"path"`
	Versions int    `json:"versions"`
	Newest   string `json:"newest"`
}

// ListSnapshots returns the list_snapshots tool.
func ListSnapshots(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "list_snapshots", Toolset: "pages", Title: "List snapshots",
		Description: "List the stored earlier versions of a page, context.md or guidelines.md, newest first, with when each was replaced, size and sha256 prefix; without a path, list the files that have versions. Read a version with read_page (its snapshot path) to compare, then bring it back with restore_snapshot.",
		Hints:       readOnlyHints,
	},
		func(ctx context.Context, in ListSnapshotsInput) (ListSnapshotsOutput, error) {
			limit := in.Limit
			if limit <= 0 {
				limit = 20
			}
			if limit > 200 {
				limit = 200
			}
			if in.Path == "" {
				all, err := d.Store.AllSnapshots()
				if err != nil {
					return ListSnapshotsOutput{}, err
				}
				out := ListSnapshotsOutput{Snapshots: []store.Snapshot{}, Total: len(all)}
				for _, sn := range all {
					if n := len(out.Files); n > 0 && out.Files[n-1].Path == sn.Path {
						out.Files[n-1].Versions++
						continue
					}
					out.Files = append(out.Files, SnapshotFile{Path: sn.Path, Versions: 1, Newest: sn.Replaced.Format("2006-01-02T15:04:05Z")})
				}
				return out, nil
			}
			rel, list, err := d.Store.SnapshotsOf(in.Path)
			if err != nil {
				return ListSnapshotsOutput{}, err
			}
			out := ListSnapshotsOutput{Path: rel, Total: len(list), Snapshots: list}
			if len(list) > limit {
				out.Snapshots = list[:limit]
			}
			if out.Snapshots == nil {
				out.Snapshots = []store.Snapshot{}
			}
			return out, nil
		})
}
