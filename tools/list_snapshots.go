package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// ListSnapshotsInput names the file whose versions to list.
type ListSnapshotsInput struct {
	Path   string `json:"path,omitempty" jsonschema:"the file: pages/x.md, a page slug or title, context.md or guidelines.md; omit it to list the files that have stored versions"`
	Limit  int    `json:"limit,omitempty" jsonschema:"most versions (or, without path, files) to return, newest first (default 20, at most 200)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous call with the same path, to continue the list"`
}

// ListSnapshotsOutput lists stored versions.
type ListSnapshotsOutput struct {
	// Path is the file listed ("" when listing files).
	Path string `json:"path,omitempty"`
	// Snapshots are its stored versions, newest first.
	Snapshots []store.Snapshot `json:"snapshots"`
	// Total counts the whole list this result pages: the file's stored
	// versions, or without a path the files that have versions.
	Total int `json:"total" jsonschema:"how many items the whole list holds: the file's stored versions, or without path the files that have stored versions; may exceed what one result lists"`
	// NextCursor is set when more items follow.
	NextCursor string `json:"next_cursor,omitempty" jsonschema:"pass as cursor for the next page of the list; absent on the last page"`
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
			start, err := CursorOffset(in.Cursor)
			if err != nil {
				return ListSnapshotsOutput{}, err
			}
			// page is the window [start, start+limit) of n items, and the
			// cursor continuing after it.
			page := func(n int) (lo, hi int, next string) {
				lo, hi = min(start, n), min(start+limit, n)
				if hi < n {
					next = NextCursor(hi)
				}
				return lo, hi, next
			}
			if in.Path == "" {
				all, err := d.Store.AllSnapshots()
				if err != nil {
					return ListSnapshotsOutput{}, err
				}
				out := ListSnapshotsOutput{Snapshots: []store.Snapshot{}}
				for _, sn := range all {
					if n := len(out.Files); n > 0 && out.Files[n-1].Path == sn.Path {
						out.Files[n-1].Versions++
						continue
					}
					out.Files = append(out.Files, SnapshotFile{Path: sn.Path, Versions: 1, Newest: sn.Replaced.Format("2006-01-02T15:04:05Z")})
				}
				out.Total = len(out.Files)
				lo, hi, next := page(len(out.Files))
				out.Files, out.NextCursor = out.Files[lo:hi], next
				return out, nil
			}
			rel, list, err := d.Store.SnapshotsOf(in.Path)
			if err != nil {
				return ListSnapshotsOutput{}, err
			}
			out := ListSnapshotsOutput{Path: rel, Total: len(list)}
			lo, hi, next := page(len(list))
			out.Snapshots, out.NextCursor = list[lo:hi], next
			if out.Snapshots == nil {
				out.Snapshots = []store.Snapshot{}
			}
			return out, nil
		})
}
