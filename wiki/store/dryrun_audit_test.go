package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestDryRunWithoutCallIsNotAudited: a dry run made without a Call in its
// ctx (the review page renders a pending change set's diffs so) writes
// nothing, so it leaves no audit line, in particular no "internal" error
// line for ErrDryRun: neither from Update's own Call nor from the one
// WithOwnCall gives a store method (wiki's WritePage).
func TestDryRunWithoutCallIsNotAudited(t *testing.T) {
	s, dir := newTestStore(t)
	ctx, dr := WithDryRun(context.Background())
	octx, _, done := s.WithOwnCall(ctx)
	err := s.Update(octx, func(tx *Tx) error { return tx.Create("pages/a.md", []byte("# A\n")) })
	done(err)
	if err2 := s.Update(ctx, func(tx *Tx) error { return nil }); !errors.Is(err2, ErrDryRun) {
		t.Fatalf("Update without a Call in a dry run: %v, want ErrDryRun", err2)
	}
	if !errors.Is(err, ErrDryRun) {
		t.Fatalf("Update in a dry run: %v, want ErrDryRun", err)
	}
	if got := dr.Changes(); len(got) != 1 || got[0].Path != "pages/a.md" {
		t.Fatalf("staged %+v, want pages/a.md", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "pages", "a.md")); !os.IsNotExist(err) {
		t.Errorf("the dry run wrote pages/a.md (%v)", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(AuditDir), "*.jsonl"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); len(b) > 0 {
			t.Errorf("the dry run left audit lines in %s:\n%s", filepath.Base(f), b)
		}
	}
}
