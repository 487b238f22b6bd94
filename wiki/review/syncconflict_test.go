package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

const (
	localBody  = "# Raft\n\nLeaders are elected by a majority.\n"
	remoteBody = "# Raft\n\nLeaders are elected by randomised timeouts.\n"
)

// openIDs lists the ids of the open sync conflicts.
func openIDs(t *testing.T, s *Service) []string {
	t.Helper()
	cs, err := s.SyncConflicts()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestSyncConflictsListed: an open conflict comes with its lint finding's
// id and the diff from the local version to the file now. The clock is
// fixed: two writes a second apart would differ in updated: as well.
func TestSyncConflictsListed(t *testing.T) {
	st, _ := teststore.New(t, nil, teststore.WithFixedClock())
	s := New(st, links.Open(st), nil)
	c := teststore.SyncConflict(t, st, "c-0123456789ab", "raft", localBody, remoteBody)
	cs, err := s.SyncConflicts()
	if err != nil || len(cs) != 1 {
		t.Fatalf("%+v %v", cs, err)
	}
	got := cs[0]
	if got.ID != c.ID || got.FindingID != lint.SyncConflictFindingID(c) || got.Diff.Path != c.Path || got.Diff.Added != 1 || got.Diff.Removed != 1 ||
		!strings.Contains(got.Diff.Diff, "-Leaders are elected by a majority.") || !strings.Contains(got.Diff.Diff, "+Leaders are elected by randomised timeouts.") {
		t.Errorf("conflict %+v", got)
	}
}

// TestSettleSyncConflict: keep records the decision and changes no file;
// take restores the local version through the audited restore and notes
// it in log.md; both close the conflict, and a closed conflict is refused
// with a message saying why, changing nothing.
func TestSettleSyncConflict(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, how string
		before    func(t *testing.T, st *wiki.Store, dir string, c wiki.SyncConflict)
		want      string // the file after, "" when the settle is refused
		refused   string
	}{
		{name: "keep", how: SettleKeep, want: "remote"},
		{name: "take", how: SettleTake, want: "local"},
		{name: "keep after a write", how: SettleKeep, before: writeAgain, refused: "no longer open"},
		{name: "take after a write", how: SettleTake, before: writeAgain, refused: "no longer open"},
		{name: "take after keep", how: SettleTake, before: keep, refused: "already settled: kept by cli"},
		{name: "keep after keep", how: SettleKeep, before: keep, refused: "already settled: kept by cli"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, st, dir := newService(t, nil)
			c := teststore.SyncConflict(t, st, "c-0123456789ab", "raft", localBody, remoteBody)
			if tc.before != nil {
				tc.before(t, st, dir, c)
			}
			file := readFile(t, dir, c.Path)
			res, err := s.SettleSyncConflict(ctx, c.ID, tc.how, ByWeb)
			if tc.refused != "" {
				if store.CodeOf(err) != store.CodeConflict || !strings.Contains(store.PublicMessage(err), tc.refused) || !strings.Contains(store.PublicMessage(err), c.ID) {
					t.Fatalf("settle: %v; want a conflict saying %q", err, tc.refused)
				}
				if readFile(t, dir, c.Path) != file {
					t.Errorf("a refused settle changed the file")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.ID != c.ID || res.Path != c.Path || res.Settled != tc.how {
				t.Errorf("result %+v", res)
			}
			now := readFile(t, dir, c.Path)
			switch tc.want {
			case "remote":
				if sha(now) != c.RemoteSHA256 || res.Restore != nil {
					t.Errorf("keep changed the file or restored: %+v", res)
				}
			case "local":
				if sha(now) != c.LocalSHA256 || res.Restore == nil || res.Restore.Restored != c.Snapshot || res.Restore.Snapshot == "" {
					t.Errorf("take: file sha %s, want %s; result %+v", sha(now), c.LocalSHA256, res.Restore)
				}
				if log := readFile(t, dir, "log.md"); !strings.Contains(log, "restore | Took your version of pages/raft.md in sync conflict c-0123456789ab (web)") {
					t.Errorf("log.md lacks the take:\n%s", log)
				}
			}
			rec := teststore.LastCall(t, dir, "review:sync_"+tc.how)
			if rec == nil || rec.Outcome != "ok" {
				t.Fatalf("audit line %+v", rec)
			}
			if tc.how == SettleTake && len(rec.Writes) == 0 {
				t.Errorf("the take's audit line names no write: %+v", rec)
			}
			if ids := openIDs(t, s); len(ids) != 0 {
				t.Errorf("still open: %v", ids)
			}
			// Settled once: a second settle of either kind is refused.
			for _, how := range []string{SettleKeep, SettleTake} {
				if _, err := s.SettleSyncConflict(ctx, c.ID, how, ByCLI); store.CodeOf(err) != store.CodeConflict {
					t.Errorf("second %s: %v", how, err)
				}
			}
		})
	}
}

func writeAgain(t *testing.T, st *wiki.Store, dir string, c wiki.SyncConflict) {
	t.Helper()
	if _, err := st.WritePage(context.Background(), wiki.PageInput{Title: "raft", Slug: "raft", Content: "merged\n", BaseSHA256: sha(readFile(t, dir, c.Path))}); err != nil {
		t.Fatal(err)
	}
}

func keep(t *testing.T, st *wiki.Store, _ string, c wiki.SyncConflict) {
	t.Helper()
	if err := st.KeepSyncConflict(context.Background(), c, ByCLI, ""); err != nil {
		t.Fatal(err)
	}
}

// TestSettleSyncConflictDeletions: a side that deleted the file. Taking a
// local deletion deletes the file; taking the local version of a file the
// remote deleted creates it again.
func TestSettleSyncConflictDeletions(t *testing.T) {
	ctx := context.Background()
	t.Run("local deleted", func(t *testing.T) {
		s, st, dir := newService(t, nil)
		w, err := st.WritePage(ctx, wiki.PageInput{Title: "Gone", Content: "remote\n"})
		if err != nil {
			t.Fatal(err)
		}
		c := wiki.SyncConflict{ID: "c-00000000000d", Path: w.Path, Local: "aaaaaaa1", Remote: "bbbbbbb2", RemoteSHA256: w.SHA256, Summary: "Deleted here, changed there."}
		if err := st.RecordSyncConflicts(ctx, []wiki.SyncConflict{c}); err != nil {
			t.Fatal(err)
		}
		cs, _ := s.SyncConflicts()
		if len(cs) != 1 || cs[0].Diff.Change != "created" || !strings.Contains(cs[0].Diff.Diff, "+remote") {
			t.Fatalf("listed %+v", cs)
		}
		res, err := s.SettleSyncConflict(ctx, c.ID, SettleTake, ByCLI)
		if err != nil || !res.Deleted {
			t.Fatalf("take: %+v %v", res, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "pages", "gone.md")); !os.IsNotExist(err) {
			t.Errorf("the page is still there: %v", err)
		}
		if ids := openIDs(t, s); len(ids) != 0 {
			t.Errorf("still open: %v", ids)
		}
	})
	t.Run("remote deleted", func(t *testing.T) {
		s, st, dir := newService(t, nil)
		c := teststore.SyncConflict(t, st, "c-00000000000e", "raft", localBody, remoteBody)
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(c.Path))); err != nil {
			t.Fatal(err)
		}
		c.ID, c.RemoteSHA256 = "c-00000000000f", ""
		if err := st.RecordSyncConflicts(ctx, []wiki.SyncConflict{c}); err != nil {
			t.Fatal(err)
		}
		if ids := openIDs(t, s); len(ids) != 1 || ids[0] != c.ID {
			t.Fatalf("open %v", ids)
		}
		if _, err := s.SettleSyncConflict(ctx, c.ID, SettleTake, ByCLI); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, dir, c.Path); sha(got) != c.LocalSHA256 {
			t.Errorf("restored %q", got)
		}
	})
}

// TestSettleSyncConflictRefusals: an unknown id, an unknown way to settle
// and an unknown reviewer change nothing.
func TestSettleSyncConflictRefusals(t *testing.T) {
	s, st, _ := newService(t, nil)
	c := teststore.SyncConflict(t, st, "c-0123456789ab", "raft", localBody, remoteBody)
	ctx := context.Background()
	if _, err := s.SettleSyncConflict(ctx, "c-ffffffffffff", SettleKeep, ByWeb); store.CodeOf(err) != store.CodeNotFound {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := s.SettleSyncConflict(ctx, c.ID, "merge", ByWeb); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("unknown how: %v", err)
	}
	if _, err := s.SettleSyncConflict(ctx, c.ID, SettleKeep, "agent"); err == nil {
		t.Errorf("an agent settled a conflict")
	}
	if ids := openIDs(t, s); len(ids) != 1 {
		t.Errorf("open %v", ids)
	}
}

// TestRetentionKeepsSyncConflictSnapshots: the local version of an open
// conflict is never pruned; once settled it is pruned as usual.
func TestRetentionKeepsSyncConflictSnapshots(t *testing.T) {
	st, _ := teststore.New(t, nil)
	s := New(st, links.Open(st), nil)
	c := teststore.SyncConflict(t, st, "c-0123456789ab", "raft", localBody, remoteBody)
	if !s.keepVersions()[wiki.KeepKey(c.Path, c.LocalSHA256)] {
		t.Fatalf("the open conflict's local version is not kept: %v", s.keepVersions())
	}
	if _, err := s.SettleSyncConflict(context.Background(), c.ID, SettleKeep, ByWeb); err != nil {
		t.Fatal(err)
	}
	if s.keepVersions()[wiki.KeepKey(c.Path, c.LocalSHA256)] {
		t.Errorf("a settled conflict's local version is still kept")
	}
}
