package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// syncConflictWiki makes a wiki with two open sync conflicts, on
// pages/raft.md and pages/paxos.md, and returns its root and them.
func syncConflictWiki(t *testing.T) (string, []wiki.SyncConflict) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return root, []wiki.SyncConflict{
		teststore.SyncConflict(t, st, "c-00000000000a", "raft", "Leaders win a majority.\n", "Leaders win by timeouts.\n"),
		teststore.SyncConflict(t, st, "c-00000000000b", "paxos", "Acceptors promise.\n", "Acceptors accept.\n"),
	}
}

// TestReviewListsSyncConflicts: review lists open conflicts with both
// commits, the snapshot and the commands that settle them; --diff adds the
// diff; --json names them sync_conflicts.
func TestReviewListsSyncConflicts(t *testing.T) {
	root, cs := syncConflictWiki(t)
	out, errOut, err := runIn(t, "", nil, "review", "--root", root)
	if err != nil {
		t.Fatalf("%v %s", err, errOut)
	}
	for _, want := range []string{"2 sync conflicts to settle", cs[0].ID, cs[1].ID, "pages/raft.md", lint.ShortCommit(cs[0].Remote), lint.ShortCommit(cs[0].Local), cs[0].Snapshot,
		"llmwiki review keep ID", "llmwiki review take ID"} {
		if !strings.Contains(out, want) {
			t.Errorf("review lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Nothing awaits review") || strings.Contains(out, "+Leaders win by timeouts.") {
		t.Errorf("review without --diff:\n%s", out)
	}
	out, _, err = runIn(t, "", nil, "review", "--root", root, "--diff")
	if err != nil || !strings.Contains(out, "-Leaders win a majority.") || !strings.Contains(out, "+Leaders win by timeouts.") {
		t.Errorf("review --diff: %v\n%s", err, out)
	}
	out, _, err = runIn(t, "", nil, "review", "--root", root, "--json", "--diff")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		SyncConflicts []struct {
			ID, Path, Local, Remote, Snapshot string
			FindingID                         string `json:"finding_id"`
			Diff                              *struct{ Diff string }
		} `json:"sync_conflicts"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.SyncConflicts) != 2 || got.SyncConflicts[0].ID != cs[0].ID || got.SyncConflicts[0].Remote != cs[0].Remote || got.SyncConflicts[0].Snapshot != cs[0].Snapshot ||
		got.SyncConflicts[0].FindingID != lint.SyncConflictFindingID(cs[0]) || got.SyncConflicts[0].Diff == nil || !strings.Contains(got.SyncConflicts[0].Diff.Diff, "+Leaders win by timeouts.") {
		t.Errorf("--json: %s", out)
	}
	out, _, err = runIn(t, "", nil, "review", "show", cs[1].ID, "--root", root)
	if err != nil || !strings.Contains(out, "+Acceptors accept.") || !strings.Contains(out, "llmwiki review take "+cs[1].ID) {
		t.Errorf("review show %s: %v\n%s", cs[1].ID, err, out)
	}
}

// TestReviewKeepAndTake: keep leaves the file, take restores the local
// version; each is one cli:review audit line; a settled conflict is
// refused with exit status 1 and a message saying why.
func TestReviewKeepAndTake(t *testing.T) {
	root, cs := syncConflictWiki(t)
	out, errOut, err := runIn(t, "", nil, "review", "keep", cs[0].ID, "--root", root)
	if err != nil || !strings.Contains(out, "Kept pages/raft.md as the sync left it") {
		t.Fatalf("keep: %v %q %q", err, out, errOut)
	}
	if fileSHA(t, root, cs[0].Path) != cs[0].RemoteSHA256 {
		t.Errorf("keep changed the file")
	}
	if rec := reviewAudit(t, root); rec.Outcome != "ok" || len(rec.Writes) != 0 {
		t.Errorf("keep audit %+v", rec)
	}
	out, errOut, err = runIn(t, "", nil, "review", "take", cs[1].ID, "--root", root, "--json")
	if err != nil {
		t.Fatalf("take: %v %q", err, errOut)
	}
	var res struct {
		Settled string
		Restore struct{ Restored string }
	}
	if json.Unmarshal([]byte(out), &res) != nil || res.Settled != "take" || res.Restore.Restored != cs[1].Snapshot {
		t.Errorf("take --json: %s", out)
	}
	if fileSHA(t, root, cs[1].Path) != cs[1].LocalSHA256 {
		t.Errorf("take did not restore the local version")
	}
	if rec := reviewAudit(t, root); rec.Outcome != "ok" || len(rec.Writes) == 0 {
		t.Errorf("take audit %+v", rec)
	}
	out, _, _ = runIn(t, "", nil, "review", "--root", root)
	if !strings.Contains(out, "Nothing awaits review") {
		t.Errorf("after settling both:\n%s", out)
	}
	for _, tc := range []struct{ sub, id, want string }{
		{"take", cs[0].ID, "already settled: kept by cli"},
		{"keep", cs[1].ID, "is no longer open"},
		{"keep", "c-ffffffffffff", "no sync conflict has the id c-ffffffffffff"},
	} {
		_, errOut, err := runIn(t, "", nil, "review", tc.sub, tc.id, "--root", root)
		if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, tc.want) {
			t.Errorf("review %s %s: err %v, stderr %q; want %q", tc.sub, tc.id, err, errOut, tc.want)
		}
	}
	for _, args := range [][]string{{"keep"}, {"take", "a-0123456789ab"}, {"keep", "c-1", "c-2"}} {
		_, _, err := runIn(t, "", nil, append([]string{"review", "--root", root}, args...)...)
		var code exitCode
		if err == nil || errors.As(err, &code) || !strings.Contains(err.Error(), "sync conflict id") {
			t.Errorf("review %v: %v; want a usage error", args, err)
		}
	}
}
