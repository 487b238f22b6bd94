package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// A restore on the History page is a write like any other: a file a
// pending change set holds cannot be restored under it, and the flash
// names the set.
func TestHistoryRestoreOfHeldFileRefused(t *testing.T) {
	f := newReviewFixture(t)
	old := f.read("pages/alpha.md")
	if _, err := f.st.WritePage(context.Background(), wiki.PageInput{Title: "Alpha", Slug: "alpha", Content: "Rewritten.\n", BaseSHA256: store.SHA256Hex([]byte(old))}); err != nil {
		t.Fatal(err)
	}
	_, snaps, err := f.st.SnapshotsOf("alpha")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots %v %v", snaps, err)
	}
	p := f.propose() // holds pages/alpha.md (an edit) among others
	before := f.read("pages/alpha.md")
	r := formPost("/history/alpha", url.Values{"snapshot": {path.Base(snaps[0].Snapshot)}})
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := serve(f.h, r)
	if w.Code != http.StatusSeeOther {
		t.Fatalf("restore: %d", w.Code)
	}
	if got := f.read("pages/alpha.md"); got != before {
		t.Fatalf("a held file was restored under change set #%d:\n%s", p.Number, got)
	}
	rec := teststore.LastCall(t, f.dir, "web:restore")
	if rec == nil || rec.Outcome != "error" || rec.Code != store.CodeConflict {
		t.Fatalf("audit line of the refused restore: %+v", rec)
	}
	body := f.get("/history/alpha", w)
	if want := fmt.Sprintf("pending change in change set #%d", p.Number); !strings.Contains(body, `class="error"`) || !strings.Contains(body, want) {
		t.Errorf("the flash does not say why:\n%s", body)
	}
}
