package tools

import (
	"context"

	"github.com/llmwiki/llmwiki/wiki"
)

// RestoreSnapshotInput names the version to bring back.
type RestoreSnapshotInput struct {
	Path       string `json:"path,omitempty" jsonschema:"the file to restore: pages/x.md, a page slug or title, context.md or guidelines.md; may be omitted when snapshot is a full snapshot path"`
	Snapshot   string `json:"snapshot,omitempty" jsonschema:"the version: a snapshot path from list_snapshots or from a write's snapshot field, its file name, or 8+ hex digits of its sha256; omit it to undo the last change (the newest stored version that differs from the file)"`
	BaseSHA256 string `json:"base_sha256,omitempty" jsonschema:"sha256 of the current file as you read it; when given, a file changed since is a conflict"`
}

// RestoreSnapshotOutput reports the restore.
type RestoreSnapshotOutput struct {
	wiki.RestoreResult
	Reviewed
	Notes
}

// RestoreSnapshot returns the restore_snapshot tool.
func RestoreSnapshot(d Deps) Tool {
	return newTool(d, toolSpec{
		Name: "restore_snapshot", Toolset: "pages", Title: "Restore snapshot",
		Description: "Bring back an earlier version of a page, context.md or guidelines.md from its snapshots (every replaced version is kept). The current version is snapshotted first, so a restore can be undone the same way; a page that was moved or deleted is created again. Omit snapshot to undo the last change; use list_snapshots to pick an older version. Then append_log with op restore.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in RestoreSnapshotInput) (RestoreSnapshotOutput, error) {
			r, err := d.Store.RestoreSnapshot(ctx, wiki.RestoreInput{Path: in.Path, Snapshot: in.Snapshot, BaseSHA256: in.BaseSHA256})
			return RestoreSnapshotOutput{RestoreResult: r}, err
		})
}
