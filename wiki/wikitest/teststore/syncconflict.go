package teststore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
)

// SyncConflict fabricates the state a git sync leaves after a conflict on
// the page slug, as wiki/git records it: it writes the page with local
// (the local side), writes it again with remote (the version the sync
// left; the local one becomes a snapshot) and records a
// [wiki.SyncConflict] naming both. id names the conflict ("c-" and 12 hex
// digits).
func SyncConflict(tb testing.TB, st *wiki.Store, id, slug, local, remote string) wiki.SyncConflict {
	tb.Helper()
	ctx := context.Background()
	first, err := st.WritePage(ctx, wiki.PageInput{Title: slug, Slug: slug, Summary: "a page both sides changed", Content: local})
	if err != nil {
		tb.Fatal(err)
	}
	second, err := st.WritePage(ctx, wiki.PageInput{Title: slug, Slug: slug, Content: remote, BaseSHA256: first.SHA256})
	if err != nil {
		tb.Fatal(err)
	}
	if second.Snapshot == "" {
		tb.Fatalf("the second write of %s took no snapshot", slug)
	}
	c := wiki.SyncConflict{
		ID: id, Path: second.Path, Found: FixedNow,
		Local: hashOf("local " + id), Remote: hashOf("remote " + id),
		LocalSHA256: first.SHA256, RemoteSHA256: second.SHA256,
		Snapshot: second.Snapshot,
		Summary:  "Both sides changed the same lines; merge them by hand.",
	}
	if err := st.RecordSyncConflicts(ctx, []wiki.SyncConflict{c}); err != nil {
		tb.Fatal(err)
	}
	return c
}

// hashOf is a made-up commit hash: 40 hex digits derived from s.
func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:20])
}
