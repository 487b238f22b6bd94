package ui

import (
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

const (
	conflictLocal  = "# Raft\n\nLeaders are elected by a majority. <script>alert(1)</script>\n"
	conflictRemote = "# Raft\n\nLeaders are elected by randomised timeouts.\n"
)

// conflict fabricates an open sync conflict on pages/raft.md.
func (f *reviewFixture) conflict() wiki.SyncConflict {
	f.t.Helper()
	return teststore.SyncConflict(f.t, f.st, "c-0123456789ab", "raft", conflictLocal, conflictRemote)
}

// TestReviewSyncConflictSection: an open conflict is shown above the change
// sets with the file, both commits, when, the snapshot and the diff from
// the local version, agent text escaped; without one there is no section.
func TestReviewSyncConflictSection(t *testing.T) {
	f := newReviewFixture(t)
	if body := f.get("/review", nil); strings.Contains(body, `id="conflicts"`) {
		t.Fatalf("a section with no open conflict:\n%s", body)
	}
	c := f.conflict()
	body := f.get("/review", nil)
	i, j := strings.Index(body, `id="conflicts"`), strings.Index(body, `id="sets"`)
	if i < 0 || j < 0 || i > j {
		t.Fatalf("the conflicts section is missing or below the change sets (%d, %d):\n%s", i, j, body)
	}
	for _, want := range []string{
		`id="conflict-c-0123456789ab"`, "<code>pages/raft.md</code>", "2026-11-01 12:00 UTC",
		`data-side="remote">` + lint.ShortCommit(c.Remote) + "<", `data-side="local">` + lint.ShortCommit(c.Local) + "<",
		c.Snapshot, c.Summary,
		`<span class="del">-Leaders are elected by a majority. &lt;script&gt;alert(1)&lt;/script&gt;`,
		`<span class="add">&#43;Leaders are elected by randomised timeouts.`,
		`action="/review/conflicts/c-0123456789ab/keep"`, `formaction="/review/conflicts/c-0123456789ab/take"`,
		"Keep the file as it is", "Take my version",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the review page lacks %s", want)
		}
	}
	if strings.Contains(body, "<script>") {
		t.Errorf("agent text reached the page unescaped")
	}
}

// TestReviewSyncConflictKeep: keep changes no file, is audited as
// web:review_keep, closes the conflict; a second keep says it was settled.
func TestReviewSyncConflictKeep(t *testing.T) {
	f := newReviewFixture(t)
	c := f.conflict()
	w := f.post("/review/conflicts/"+c.ID+"/keep", nil)
	if got := f.read(c.Path); store.SHA256Hex([]byte(got)) != c.RemoteSHA256 {
		t.Errorf("keep changed the file: %q", got)
	}
	rec := teststore.LastCall(t, f.dir, "web:review_keep")
	if rec == nil || rec.Outcome != "ok" || rec.Client != Client || len(rec.Writes) != 0 {
		t.Fatalf("keep audit line %+v", rec)
	}
	body := f.get("/review", w)
	if !strings.Contains(body, `id="flash"`) || !strings.Contains(body, "sync conflict c-0123456789ab settled: pages/raft.md stays as the sync left it") || strings.Contains(body, `id="conflicts"`) {
		t.Errorf("after keep:\n%s", body)
	}
	w = f.post("/review/conflicts/"+c.ID+"/keep", nil)
	if body := f.get("/review", w); !strings.Contains(body, `id="flash-error"`) || !strings.Contains(body, "already settled: kept by web") {
		t.Errorf("second keep:\n%s", body)
	}
}

// TestReviewSyncConflictTake: take restores the snapshot through the
// audited restore (web:restore), which closes the conflict; once the file
// changed, a take is refused and changes nothing.
func TestReviewSyncConflictTake(t *testing.T) {
	f := newReviewFixture(t)
	c := f.conflict()
	w := f.post("/review/conflicts/"+c.ID+"/take", nil)
	if got := f.read(c.Path); store.SHA256Hex([]byte(got)) != c.LocalSHA256 {
		t.Errorf("take did not restore the local version: %q", got)
	}
	rec := teststore.LastCall(t, f.dir, "web:restore")
	if rec == nil || rec.Outcome != "ok" || rec.Client != Client || len(rec.Writes) == 0 {
		t.Fatalf("take audit line %+v", rec)
	}
	body := f.get("/review", w)
	if !strings.Contains(body, "pages/raft.md is your version again") || strings.Contains(body, `id="conflicts"`) {
		t.Errorf("after take:\n%s", body)
	}
	before := f.read(c.Path)
	w = f.post("/review/conflicts/"+c.ID+"/take", nil)
	if body := f.get("/review", w); !strings.Contains(body, `id="flash-error"`) || !strings.Contains(body, "is no longer open") {
		t.Errorf("second take:\n%s", body)
	}
	if f.read(c.Path) != before {
		t.Errorf("a refused take changed the file")
	}
	if rec := teststore.LastCall(t, f.dir, "web:restore"); rec.Outcome != "error" {
		t.Errorf("the refused take is audited as %q", rec.Outcome)
	}
}

// TestReviewSyncConflictUnknown: a POST naming no conflict is refused with
// a flash, not a server error.
func TestReviewSyncConflictUnknown(t *testing.T) {
	f := newReviewFixture(t)
	w := f.post("/review/conflicts/c-ffffffffffff/take", nil)
	if body := f.get("/review", w); !strings.Contains(body, "no sync conflict has the id c-ffffffffffff") {
		t.Errorf("unknown conflict:\n%s", body)
	}
}

// TestHealthSyncConflict: the health page lists an open conflict and drops
// it once kept, though keeping changes no file the link graph follows.
func TestHealthSyncConflict(t *testing.T) {
	f := newReviewFixture(t)
	c := f.conflict()
	if body := f.get("/health", nil); !strings.Contains(body, `id="cat-sync_conflict"`) || !strings.Contains(body, c.ID) {
		t.Fatalf("health lacks the conflict:\n%s", body)
	}
	f.post("/review/conflicts/"+c.ID+"/keep", nil)
	if body := f.get("/health", nil); strings.Contains(body, `id="cat-sync_conflict"`) {
		t.Errorf("health still lists the kept conflict")
	}
}
