package tools

import (
	"context"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// RestoreSnapshotInput names the version to bring back.
type RestoreSnapshotInput struct {
	Path       string `json:"path,omitempty" jsonschema:"the file to restore: pages/x.md, a page slug or title, context.md or guidelines.md; may be omitted when snapshot is a full snapshot path"`
	Snapshot   string `json:"snapshot,omitempty" jsonschema:"the version: a snapshot path from list_snapshots or from a write's snapshot field, its file name, or 8+ hex digits of its sha256; omit it to undo the last change (the newest stored version that differs from the file)"`
	Commit     string `json:"commit,omitempty" jsonschema:"instead of snapshot, a git commit (7 or more hex digits, from page_history): restore the file as it was in that commit (under the name it had then, if it was moved since); needs git on"`
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
		Description: "Bring back an earlier version of a page, context.md or guidelines.md from its snapshots (every replaced version is kept). The current version is snapshotted first, so a restore can be undone the same way; a page that was moved or deleted is created again. Omit snapshot to undo the last change; use list_snapshots or page_history to pick an older version; with git on, commit restores the file as it was in a commit from page_history. Then append_log with op restore.",
		Hints:       hints{destructive: true},
	},
		func(ctx context.Context, in RestoreSnapshotInput) (RestoreSnapshotOutput, error) {
			if strings.TrimSpace(in.Commit) != "" {
				r, err := restoreCommit(ctx, d, in)
				return RestoreSnapshotOutput{RestoreResult: r}, err
			}
			r, err := d.Store.RestoreSnapshot(ctx, wiki.RestoreInput{Path: in.Path, Snapshot: in.Snapshot, BaseSHA256: in.BaseSHA256})
			return RestoreSnapshotOutput{RestoreResult: r}, err
		})
}

// restoreCommit restores the file in.Path names as it was in in.Commit,
// through the same audited restore as a snapshot.
func restoreCommit(ctx context.Context, d Deps, in RestoreSnapshotInput) (wiki.RestoreResult, error) {
	if in.Snapshot != "" {
		return wiki.RestoreResult{}, store.Errorf(store.CodeInvalid, "give snapshot or commit, not both")
	}
	if in.Path == "" {
		return wiki.RestoreResult{}, store.Errorf(store.CodeInvalid, "name the file to restore (path: pages/x.md, a page slug or title, context.md)")
	}
	if d.Git == nil || d.Git.Mode() == wiki.GitOff {
		return wiki.RestoreResult{}, store.Errorf(store.CodeInvalid, "commit needs git on for this wiki (git in schema.md); restore from a snapshot instead (page_history or list_snapshots lists them)")
	}
	rel, err := d.Store.RestoreTarget(in.Path)
	if err != nil {
		// A page deleted with no snapshot left is still in git.
		if slug, serr := mdoc.NormalizeSlug(in.Path); serr == nil && !strings.Contains(in.Path, "/") {
			rel, err = wiki.PagePath(slug), nil
		}
		if err != nil {
			return wiki.RestoreResult{}, err
		}
	}
	v, err := d.Git.FileAt(ctx, strings.TrimSpace(in.Commit), rel)
	if err != nil {
		return wiki.RestoreResult{}, err
	}
	r, err := d.Store.RestoreVersion(ctx, wiki.RestoreVersionInput{Path: rel, Content: v.Content, BaseSHA256: in.BaseSHA256})
	if err != nil {
		return wiki.RestoreResult{}, err
	}
	r.Commit = v.Commit[:12]
	return r, nil
}
