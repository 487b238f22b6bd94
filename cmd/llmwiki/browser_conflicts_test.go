package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// TestBrowserSyncConflicts: two open sync conflicts on the review page in
// Chromium, above the change sets, with their diffs; the person takes
// their version of one and keeps the other, and the disk holds exactly
// that. Screenshots: review-sync-conflicts, review-sync-conflicts-settled.
func TestBrowserSyncConflicts(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	raft := teststore.SyncConflict(t, st, "c-00000000000a", "raft",
		"# Raft\n\nLeaders are elected by a majority of votes.\n\n## Terms\n\nEach term has at most one leader.\n",
		"# Raft\n\nLeaders are elected with randomised election timeouts.\n\n## Terms\n\nEach term has at most one leader.\n")
	paxos := teststore.SyncConflict(t, st, "c-00000000000b", "paxos",
		"# Paxos\n\nAcceptors promise not to accept older proposals. <img src=x onerror=alert(1)>\n",
		"# Paxos\n\nAcceptors accept the highest-numbered proposal.\n")
	st.Close()

	p := startUI(t, root)
	b := newBrowser(t)
	if code := b.open(p.base + "/review"); code != 200 {
		t.Fatalf("GET /review: %d\n%s", code, p.log())
	}
	ids := get(b, "conflicts shown", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#conflicts article.conflict")].map(e => e.dataset.conflict)`))
	if strings.Join(ids, ",") != raft.ID+","+paxos.ID {
		t.Fatalf("conflicts shown %v", ids)
	}
	if above := get(b, "section order", chromedp.Evaluate[bool](`!!(document.querySelector("#conflicts").compareDocumentPosition(document.querySelector("#sets")) & Node.DOCUMENT_POSITION_FOLLOWING)`)); !above {
		t.Errorf("the conflicts section is not above the change sets")
	}
	if n := get(b, "images", chromedp.Evaluate[int](`document.querySelectorAll("main img").length`)); n != 0 {
		t.Errorf("agent HTML became %d elements", n)
	}
	b.shot("review-sync-conflicts")

	b.do("take my version of raft", chromedp.Click(chromedp.ID("take-"+raft.ID)))
	if f := b.waitFlash("take"); !strings.Contains(f, "pages/raft.md is your version again") {
		t.Errorf("take flash %q", f)
	}
	if code := b.open(p.base + "/review"); code != 200 {
		t.Fatal(code)
	}
	b.do("keep paxos", chromedp.Click(chromedp.ID("keep-"+paxos.ID)))
	if f := b.waitFlash("keep"); !strings.Contains(f, "pages/paxos.md stays as the sync left it") {
		t.Errorf("keep flash %q", f)
	}
	b.shot("review-sync-conflicts-settled")
	if n := get(b, "conflicts left", chromedp.Evaluate[int](`document.querySelectorAll("#conflicts").length`)); n != 0 {
		t.Errorf("the conflicts section is still shown")
	}
	if got := store.SHA256Hex(readBytes(t, root, raft.Path)); got != raft.LocalSHA256 {
		t.Errorf("pages/raft.md is not the local version")
	}
	if got := store.SHA256Hex(readBytes(t, root, paxos.Path)); got != paxos.RemoteSHA256 {
		t.Errorf("pages/paxos.md changed on keep")
	}
	if rec := teststore.LastCall(t, root, "web:restore"); rec == nil || rec.Outcome != "ok" {
		t.Errorf("take audit %+v", rec)
	}
	if rec := teststore.LastCall(t, root, "web:review_keep"); rec == nil || rec.Outcome != "ok" {
		t.Errorf("keep audit %+v", rec)
	}
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened", n)
	}
}
