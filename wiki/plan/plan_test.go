package plan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type fixture struct {
	dir   string
	store *wiki.Store
	clock *clock
	srv   *modeltest.Server
	pr    *plan.Proposer
}

const sourceText = "# Electron IPC\n\nElectron apps talk between the main process and renderers with ipcMain and ipcRenderer.\nThe contextBridge exposes a safe API to the renderer.\n"

// newFixture makes a wiki with one page (electron) and one source, and a
// proposer talking over HTTP to a scripted endpoint.
func newFixture(t *testing.T, replies ...string) *fixture {
	t.Helper()
	dir := t.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	c := &clock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	st, err := wiki.Open(dir, wiki.WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Electron", Slug: "electron", Summary: "A framework for desktop apps with web tech.", Content: "Electron runs Chromium and Node.js.\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: "sources/ipc.md", Content: sourceText}); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, replies...)
	cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{dir: dir, store: st, clock: c, srv: srv, pr: &plan.Proposer{Store: st, Model: mc}}
}

// hashes is the wiki minus server state, to show nothing was written.
func (f *fixture) hashes(t *testing.T) map[string]string {
	return wikitest.TreeHashes(t, f.dir, func(rel string) bool { return rel == ".llmwiki" })
}

func (f *fixture) pageSHA(t *testing.T, slug string) string {
	data, err := os.ReadFile(filepath.Join(f.dir, "pages", slug+".md"))
	if err != nil {
		t.Fatal(err)
	}
	return store.SHA256Hex(data)
}

func (f *fixture) ingest(t *testing.T) (*plan.Plan, error) {
	t.Helper()
	return f.pr.Ingest(context.Background(), plan.IngestInput{Source: "sources/ipc.md"})
}

func doc(takeaways []string, actions ...map[string]any) string {
	if actions == nil {
		actions = []map[string]any{}
	}
	m := map[string]any{"actions": actions}
	if takeaways != nil {
		m["takeaways"] = takeaways
	}
	b, _ := json.Marshal(m)
	return string(b)
}

var tk = []string{"Electron uses IPC between main and renderer processes."}

func create(slug, title, md string) map[string]any {
	return map[string]any{"kind": "create_page", "slug": slug, "title": title, "summary": "About " + title + ".", "tags": []string{"electron"}, "markdown": md, "why": "the source explains it"}
}

func validPlan() string {
	return doc(tk,
		create("electron-ipc", "Electron IPC", "IPC connects the main process and renderers.\n\n## Related\n\n- [[electron]]\n"),
		create("context-bridge", "contextBridge", "contextBridge exposes a safe API; see [[electron-ipc]].\n"),
		map[string]any{"kind": "add_links", "slug": "electron", "links": []string{"electron-ipc", "context-bridge"}},
		map[string]any{"kind": "append_context_section", "heading": "Electron", "markdown": "Electron apps use [[electron-ipc]].\n"},
	)
}

func all(p *plan.Plan) []int {
	out := make([]int, len(p.Actions))
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func TestValidPlanNothingWrittenUntilApproved(t *testing.T) {
	f := newFixture(t, validPlan())
	before := f.hashes(t)
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != plan.StatusPending || len(p.Actions) != 4 || p.Source != "sources/ipc.md" || !plan.ValidID(p.ID) {
		t.Fatalf("plan %+v", p)
	}
	if !p.Expires.Equal(p.Created.Add(10 * time.Minute)) {
		t.Errorf("expires %v, created %v", p.Expires, p.Created)
	}
	if got := strings.Join(p.Reserved, ","); got != "electron-ipc,context-bridge" {
		t.Errorf("reserved %q", got)
	}
	if p.Model == nil || p.Model.Completions != 1 || p.Model.TotalTokens != 165 || p.Model.Retried {
		t.Errorf("usage %+v", p.Model)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Fatalf("proposing wrote to the wiki: %v", d)
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".llmwiki", "plans", p.ID+".json")); err != nil {
		t.Fatalf("plan not saved: %v", err)
	}
	// The prompt carried the source, the page list and the rules.
	req := f.srv.Requests()[0]
	if !strings.Contains(req.Last(), "contextBridge exposes a safe API") || !strings.Contains(req.Last(), "electron | Electron |") || req.Temperature != 0.2 {
		t.Errorf("prompt lacks the source or catalogue:\n%s", req.Last())
	}

	done, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, all(p))
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != plan.StatusApplied || len(done.Results) != 4 {
		t.Fatalf("applied %+v", done)
	}
	page, _ := os.ReadFile(filepath.Join(f.dir, "pages", "electron-ipc.md"))
	for _, want := range []string{"title: Electron IPC", "sources:\n  - sources/ipc.md", "IPC connects the main process"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("electron-ipc.md lacks %q:\n%s", want, page)
		}
	}
	el, _ := os.ReadFile(filepath.Join(f.dir, "pages", "electron.md"))
	if !strings.Contains(string(el), "## Related\n\n- [[electron-ipc]]\n- [[context-bridge]]\n") {
		t.Errorf("links not added:\n%s", el)
	}
	ctxmd, _ := os.ReadFile(filepath.Join(f.dir, "context.md"))
	if !strings.Contains(string(ctxmd), "## Electron\n\nElectron apps use [[electron-ipc]].") || !strings.Contains(string(ctxmd), "sources/ipc.md:") {
		t.Errorf("context.md:\n%s", ctxmd)
	}
	logmd, _ := os.ReadFile(filepath.Join(f.dir, "log.md"))
	if !strings.Contains(string(logmd), "ingest | applied 4 of 4 approved actions of plan "+p.ID+" for sources/ipc.md") {
		t.Errorf("log.md:\n%s", logmd)
	}
	// A plan applies once.
	if _, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, all(p)); err == nil || !strings.Contains(err.Error(), "is applied, not pending") {
		t.Errorf("second apply: %v", err)
	}
}

func TestInvalidJSONThenValid(t *testing.T) {
	f := newFixture(t, "Here is the plan: {actions: [}", validPlan())
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Model.Retried || p.Model.Completions != 2 || !strings.Contains(p.Model.FirstError, "not valid JSON") {
		t.Errorf("usage %+v", p.Model)
	}
	if last := f.srv.Requests()[1].Last(); !strings.Contains(last, "not valid JSON") {
		t.Errorf("the retry does not carry the parse error: %q", last)
	}
}

func TestSchemaInvalidThenValid(t *testing.T) {
	bad := doc(tk, map[string]any{"kind": "create_page", "slug": "Electron IPC", "title": "x", "markdown": "y", "path": "pages/x.md"})
	f := newFixture(t, bad, validPlan())
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	first := p.Model.FirstError
	for _, want := range []string{"actions[0].slug is \"Electron IPC\", which is not a slug", "actions[0]: additionalProperties 'path' not allowed"} {
		if !strings.Contains(first, want) {
			t.Errorf("first error %q lacks %q", first, want)
		}
	}
}

func TestInvalidTwiceFailsWithBothErrorsNothingWritten(t *testing.T) {
	f := newFixture(t, "{", doc(tk, map[string]any{"kind": "create_page", "slug": "x"}))
	before := f.hashes(t)
	_, err := f.ingest(t)
	if err == nil {
		t.Fatal("accepted")
	}
	msg := store.PublicMessage(err)
	for _, want := range []string{"rejected twice", "First reply: the reply is not valid JSON", "Retry: the plan does not match the schema", "missing properties"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}
	if list, _ := plan.NewBook(f.store).List(); len(list) != 0 {
		t.Errorf("a plan was saved: %d", len(list))
	}
	if n := len(f.srv.Requests()); n != 2 {
		t.Errorf("%d completions, want 2", n)
	}
}

func TestActionNamingAPathIsRejected(t *testing.T) {
	for _, slug := range []string{"sources/x.md", "../x", "schema", ".llmwiki/plans/p", "x.md", "pages/x", "con"} {
		t.Run(slug, func(t *testing.T) {
			bad := doc(tk, create(slug, "X", "body"))
			f := newFixture(t, bad, bad)
			before := f.hashes(t)
			_, err := f.ingest(t)
			if slug == "schema" {
				// a plain word is a fine slug: it names pages/schema.md, never schema.md
				if err != nil {
					t.Fatalf("slug schema: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(store.PublicMessage(err), "not a slug") {
				t.Errorf("message %q", store.PublicMessage(err))
			}
			if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
				t.Errorf("wrote: %v", d)
			}
		})
	}
}

// A plan file edited on disk is input too: the executor re-checks it.
func TestTamperedPlanIsRejectedByExecutor(t *testing.T) {
	for _, slug := range []string{"../x", "sources/x", "../../etc/passwd", "a/../b", "/x", "a//b", "pages/x"} {
		f := newFixture(t, validPlan())
		p, err := f.ingest(t)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(f.dir, ".llmwiki", "plans", p.ID+".json")
		data, _ := os.ReadFile(path)
		data = []byte(strings.Replace(string(data), `"slug": "electron-ipc"`, `"slug": "`+slug+`"`, 1))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := f.hashes(t)
		_, err = plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, all(p))
		if err == nil || !strings.Contains(store.PublicMessage(err), "not a slug") {
			t.Errorf("%s: %v", slug, err)
		}
		if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
			t.Errorf("%s: wrote %v", slug, d)
		}
	}
}

func TestUnknownActionKindRejectsWholePlan(t *testing.T) {
	bad := doc(tk, create("electron-ipc", "Electron IPC", "ok"), map[string]any{"kind": "delete_page", "slug": "electron"})
	f := newFixture(t, bad, bad)
	before := f.hashes(t)
	_, err := f.ingest(t)
	msg := store.PublicMessage(err)
	if err == nil || !strings.Contains(msg, `actions[1].kind is "delete_page", which is not an action; the only kinds are create_page, update_page`) {
		t.Fatalf("err = %v", msg)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}
}

func Test21ActionsRejected(t *testing.T) {
	var acts []map[string]any
	for i := range 21 {
		acts = append(acts, create(fmt.Sprintf("topic-%d", i), fmt.Sprintf("Topic %d", i), "text"))
	}
	bad := doc(tk, acts...)
	f := newFixture(t, bad, bad)
	_, err := f.ingest(t)
	if err == nil || !strings.Contains(store.PublicMessage(err), "more than 20 actions") {
		t.Fatalf("err = %v", err)
	}
	// 20 is fine.
	f2 := newFixture(t, doc(tk, acts[:20]...))
	if p, err := f2.ingest(t); err != nil || len(p.Actions) != 20 {
		t.Fatalf("20 actions: %v", err)
	}
}

func TestSubsetApprovedOnlyThoseRun(t *testing.T) {
	f := newFixture(t, validPlan())
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	elBefore := f.pageSHA(t, "electron")
	done, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pages", "electron-ipc.md")); err != nil {
		t.Error("approved action 1 did not run")
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pages", "context-bridge.md")); err == nil {
		t.Error("unapproved action 2 ran")
	}
	ctxmd, _ := os.ReadFile(filepath.Join(f.dir, "context.md"))
	if strings.Contains(string(ctxmd), "## Electron") {
		t.Error("unapproved action 4 ran")
	}
	el, _ := os.ReadFile(filepath.Join(f.dir, "pages", "electron.md"))
	if !strings.Contains(string(el), "- [[electron-ipc]]") || strings.Contains(string(el), "context-bridge") || f.pageSHA(t, "electron") == elBefore {
		t.Errorf("add_links should add only the approved page's link:\n%s", el)
	}
	if len(done.Results) != 2 || done.Results[1].N != 3 || len(done.Results[1].Notes) == 0 || !strings.Contains(done.Results[1].Notes[0], "[[context-bridge]] skipped") {
		t.Errorf("results %+v", done.Results)
	}
	if got := fmt.Sprint(done.Selected); got != "[1 3]" {
		t.Errorf("selected %s", got)
	}
}

func TestSelectionErrors(t *testing.T) {
	f := newFixture(t, validPlan())
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range [][]int{{0}, {5}, {1, 1}, {-1}} {
		if _, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, sel); err == nil {
			t.Errorf("selection %v accepted", sel)
		}
	}
	for in, want := range map[string]string{"1,3": "[1 3]", "2-4": "[2 3 4]", "all": "[1 2 3 4]", "none": "[]", " 4 1 ": "[4 1]"} {
		got, err := plan.ParseSelection(in, 4)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("ParseSelection(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"5", "0", "1,x", "3-1", "1.5", "1,1"} {
		if _, err := plan.ParseSelection(in, 4); err == nil {
			t.Errorf("ParseSelection(%q) accepted", in)
		}
	}
	// nothing selected discards the plan and writes nothing
	before := f.hashes(t)
	done, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, []int{})
	if err != nil || done.Status != plan.StatusDiscarded {
		t.Fatalf("discard: %v %+v", err, done)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}
	if _, err := plan.Apply(context.Background(), f.store, links.Open(f.store), "../../schema", []int{1}); err == nil || !strings.Contains(err.Error(), "not of the form") {
		t.Errorf("bad id: %v", err)
	}
}

func TestExpiredPlanCannotBeApplied(t *testing.T) {
	f := newFixture(t, validPlan())
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.add(10*time.Minute + time.Second)
	before := f.hashes(t)
	_, err = plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, all(p))
	if err == nil || store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "expired at 2026-11-29 10:10:00 UTC") {
		t.Fatalf("err = %v", err)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}
	if len(plan.NewBook(f.store).Pending()) != 0 {
		t.Error("an expired plan is listed as pending")
	}
}

func TestTwoPlansCannotReserveOneSlug(t *testing.T) {
	one := doc(tk, create("electron-ipc", "Electron IPC", "first"))
	other := doc(tk, create("ipc-notes", "IPC notes", "second"))
	f := newFixture(t, one, one, other)
	a, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	// The second proposal wants the same page: rejected, retried with the
	// reservation in the error, and the corrected plan takes another slug.
	b, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Model.FirstError, "page pages/electron-ipc.md is reserved by pending plan "+a.ID) {
		t.Errorf("first error %q", b.Model.FirstError)
	}
	if !strings.Contains(f.srv.Requests()[1].Last(), "RESERVED SLUGS (other pending plans create them; do not create_page them): electron-ipc") {
		t.Error("the prompt does not list reserved slugs")
	}
	if b.Actions[0].Slug != "ipc-notes" {
		t.Errorf("second plan %+v", b.Actions)
	}
	// Once the first plan expires, its slug is free again.
	f.clock.add(11 * time.Minute)
	if r := plan.NewBook(f.store).Reserved(""); len(r) != 0 {
		t.Errorf("reservations after expiry: %v", r)
	}
}

func TestSaveRefusesAReservedSlug(t *testing.T) {
	f := newFixture(t)
	book := plan.NewBook(f.store)
	mk := func() *plan.Plan {
		return &plan.Plan{Op: "ingest", Actions: []plan.Action{{Kind: plan.KindCreatePage, Slug: "same", Title: "Same", Markdown: "x"}}}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = book.Save(context.Background(), mk()) }()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
		} else if store.CodeOf(err) != store.CodeConflict {
			t.Errorf("err = %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d concurrent plans reserved one slug, want 1", ok)
	}
}

func TestUpdatePageNeedsTheShownSHA(t *testing.T) {
	f := newFixture(t)
	sha := f.pageSHA(t, "electron")
	wrong := strings.Repeat("a", 64)
	upd := func(s string) string {
		return doc(tk, map[string]any{"kind": "update_page", "slug": "electron", "base_sha256": s, "markdown": "Electron runs Chromium, Node.js and IPC.\n"})
	}
	f.srv.Push(upd(wrong), upd(sha))
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Model.FirstError, "is not the sha256 of pages/electron.md") {
		t.Errorf("first error %q", p.Model.FirstError)
	}
	if !strings.Contains(f.srv.Requests()[0].Last(), "sha256="+sha) {
		t.Error("the prompt does not show the related page with its sha256")
	}
	// The page changes between proposal and approval: conflict, nothing written.
	cur, _ := os.ReadFile(filepath.Join(f.dir, "pages", "electron.md"))
	if _, err := f.store.WritePage(context.Background(), wiki.PageInput{Title: "Electron", Slug: "electron", Content: "Changed by a person.\n", BaseSHA256: store.SHA256Hex(cur)}); err != nil {
		t.Fatal(err)
	}
	before := f.hashes(t)
	done, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, []int{1})
	if err == nil || !strings.Contains(err.Error(), "nothing was written") || done.Status != plan.StatusFailed {
		t.Fatalf("err = %v", err)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}
}

func TestLinksOnlyToExistingOrPlannedPages(t *testing.T) {
	bad := doc(tk, create("electron-ipc", "Electron IPC", "See [[nowhere]] and `[[in code]]`.\n\n```\n[[also code]]\n```\n"))
	badLinks := doc(tk, map[string]any{"kind": "add_links", "slug": "electron", "links": []string{"missing-page"}})
	f := newFixture(t, bad, badLinks)
	_, err := f.ingest(t)
	msg := store.PublicMessage(err)
	if err == nil || !strings.Contains(msg, "links to [[nowhere]]") || strings.Contains(msg, "in code") || !strings.Contains(msg, "link [[missing-page]] names no existing page") {
		t.Errorf("err = %v", msg)
	}
}

func TestBuildProposesContext(t *testing.T) {
	good := doc([]string{"Folded the IPC notes."}, map[string]any{"kind": "update_context", "markdown": "# Context\n\nThe wiki covers [[electron]].\n"})
	f := newFixture(t, doc(nil), good)
	p, err := f.pr.Build(context.Background(), plan.BuildInput{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Model.FirstError, "exactly one update_context") {
		t.Errorf("first error %q", p.Model.FirstError)
	}
	if !strings.Contains(f.srv.Requests()[0].Last(), "<<<PAGE electron (\"Electron\")\nElectron runs Chromium and Node.js.") {
		t.Error("the build prompt lacks the pages' text")
	}
	if fmt.Sprint(p.Folded) != "[sources/ipc.md]" {
		t.Errorf("folded %v", p.Folded)
	}
	if _, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, []int{1}); err != nil {
		t.Fatal(err)
	}
	prov, built := f.store.Provenance()
	if built == "" || prov["sources/ipc.md"] == "" {
		t.Errorf("provenance %v %q", prov, built)
	}
	// One operation, one log.md entry: the plan's, not also the context
	// write's own build entry.
	logmd, _ := os.ReadFile(filepath.Join(f.dir, "log.md"))
	if n := strings.Count(string(logmd), "] build | "); n != 1 || !strings.Contains(string(logmd), "] build | applied 1 of 1 approved actions of plan") {
		t.Errorf("log.md has %d build entries, want the plan's one:\n%s", n, logmd)
	}
	// Over the cap: rejected with the count.
	long := doc(tk, map[string]any{"kind": "update_context", "markdown": strings.Repeat("line\n", 401)})
	f2 := newFixture(t, long, long)
	if _, err := f2.pr.Build(context.Background(), plan.BuildInput{}); err == nil || !strings.Contains(store.PublicMessage(err), "capped at 400 lines and this has 401") {
		t.Errorf("err = %v", err)
	}
}

func TestEndpointDownAndSlow(t *testing.T) {
	f := newFixture(t)
	f.srv.Close()
	before := f.hashes(t)
	_, err := f.ingest(t)
	if err == nil || !strings.Contains(store.PublicMessage(err), "cannot reach the model endpoint") {
		t.Errorf("down: %v", err)
	}
	if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
		t.Errorf("wrote: %v", d)
	}

	slow := newFixture(t, validPlan())
	slow.srv.Delay = 60 * time.Second // far past the bound below, which a loaded machine must not reach
	cfg := slow.pr.Model.Config()
	cfg.Timeout = 200 * time.Millisecond
	mc, _ := model.New(cfg)
	slow.pr.Model = mc
	start := time.Now()
	_, err = slow.ingest(t)
	if err == nil || !strings.Contains(store.PublicMessage(err), "did not answer within 200ms") || time.Since(start) > 20*time.Second {
		t.Errorf("slow: %v after %v", err, time.Since(start))
	}
}

func TestAuditLineCarriesUsage(t *testing.T) {
	f := newFixture(t, validPlan())
	call := store.NewCall("cli:ingest", f.store.SessionID(), nil)
	ctx := store.WithCall(context.Background(), call)
	p, err := f.pr.Ingest(ctx, plan.IngestInput{Source: "sources/ipc.md"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.Audit(call, nil); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(f.dir, ".llmwiki", "audit", "*.jsonl"))
	data, _ := os.ReadFile(files[0])
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var rec struct {
		Tool  string         `json:"tool"`
		Reads []string       `json:"reads"`
		Extra map[string]any `json:"extra"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rec); err != nil {
		t.Fatal(err)
	}
	m, _ := rec.Extra["model"].(map[string]any)
	if rec.Tool != "cli:ingest" || m["total_tokens"] != 165.0 || m["completions"] != 1.0 || m["model"] != "test-model" || m["duration_ms"] == nil || rec.Extra["plan_id"] != p.ID {
		t.Errorf("audit line %s", lines[len(lines)-1])
	}
	if !strings.Contains(strings.Join(rec.Reads, ","), "sources/ipc.md") {
		t.Errorf("reads %v", rec.Reads)
	}
}

func TestDeepLintClaims(t *testing.T) {
	good := `{"findings":[{"kind":"contradiction","file":"pages/electron.md","message":"Two runtimes are named.","evidence":[{"file":"pages/electron.md","quote":"Electron runs Chromium and Node.js."},{"file":"pages/other.md","quote":"Electron runs only Chromium."}]}]}`
	f := newFixture(t, `{"findings":[{"kind":"opinion","message":"x","evidence":[]}]}`, good)
	r, err := f.pr.DeepLint(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Claims) != 1 || r.Claims[0].Evidence[1].Quote != "Electron runs only Chromium." || r.Pages != 1 || r.Total != 1 {
		t.Errorf("review %+v", r)
	}
	if !r.Usage.Retried || !strings.Contains(r.Usage.FirstError, "findings[0].kind") {
		t.Errorf("usage %+v", r.Usage)
	}
	if !strings.Contains(f.srv.Requests()[0].Last(), "<<<FILE pages/electron.md") {
		t.Error("the page was not shown")
	}
	for _, bad := range []string{`{"findings":[{"kind":"contradiction","message":"m","evidence":[{"file":"a","quote":"short"}]}]}`, `{"findings":[],"extra":1}`, `[]`} {
		if _, err := plan.ParseClaims([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestOldPlansArePruned(t *testing.T) {
	f := newFixture(t)
	book := plan.NewBook(f.store)
	old := &plan.Plan{Op: "ingest", Actions: []plan.Action{{Kind: plan.KindCreatePage, Slug: "a", Title: "A", Markdown: "x"}}}
	if err := book.Save(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	f.clock.add(6 * 24 * time.Hour)
	if err := book.Save(context.Background(), &plan.Plan{Op: "build"}); err != nil {
		t.Fatal(err)
	}
	if list, _ := book.List(); len(list) != 2 {
		t.Fatalf("expired 6 days ago is kept: %d plans", len(list))
	}
	f.clock.add(2 * 24 * time.Hour)
	if err := book.Save(context.Background(), &plan.Plan{Op: "build"}); err != nil {
		t.Fatal(err)
	}
	list, _ := book.List()
	for _, p := range list {
		if p.ID == old.ID {
			t.Error("a plan expired over a week ago was not removed")
		}
	}
	if len(list) != 2 {
		t.Errorf("%d plans", len(list))
	}
	if err := f.store.RemoveState(".llmwiki/audit/x.jsonl"); err == nil {
		t.Error("RemoveState removed history")
	}
	if err := f.store.RemoveState("pages/electron.md"); err == nil {
		t.Error("RemoveState removed a page")
	}
}

func TestAppendPageSectionUsesEditPage(t *testing.T) {
	two := doc(tk,
		map[string]any{"kind": "append_page_section", "slug": "electron", "heading": "IPC", "markdown": "Main and renderers talk over IPC."},
		map[string]any{"kind": "append_page_section", "slug": "electron", "heading": "IPC", "markdown": "contextBridge exposes a safe API."},
	)
	f := newFixture(t, two)
	p, err := f.ingest(t)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Apply(context.Background(), f.store, links.Open(f.store), p.ID, all(p)); err != nil {
		t.Fatal(err)
	}
	el, _ := os.ReadFile(filepath.Join(f.dir, "pages", "electron.md"))
	body := string(el)
	if strings.Count(body, "## IPC") != 1 || !strings.Contains(body, "## IPC\n\nMain and renderers talk over IPC.\n\ncontextBridge exposes a safe API.\n") {
		t.Errorf("two appends to one section:\n%s", body)
	}
	if !strings.Contains(body, "sources:\n  - sources/ipc.md") || !strings.Contains(body, "title: Electron") {
		t.Errorf("frontmatter:\n%s", body)
	}
	calls := 0
	files, _ := filepath.Glob(filepath.Join(f.dir, ".llmwiki", "snapshots", "pages", "electron.md", "*"))
	calls = len(files)
	if calls != 2 {
		t.Errorf("%d snapshots of electron.md, want 2 (one per edit)", calls)
	}
}

// A vault with pages in folders (pages/en/Plugins/Graph view.md): a plan
// names them folder/slug as the page list shows them, and creates, updates,
// appends to and links nested pages through the audited writers; a new page
// goes into the existing folder as it is spelled on disk.
func TestPlanOnNestedPages(t *testing.T) {
	f := newFixture(t)
	raw := "---\ntitle: Graph view\nsummary: The graph of notes and links.\n---\nThe graph view shows notes as nodes and links as edges.\n"
	if err := os.MkdirAll(filepath.Join(f.dir, "pages", "en", "Plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "pages", "en", "Plugins", "Graph view.md"), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.store.SaveSource(ctx, wiki.SourceInput{Path: "sources/graph.md", Content: "# Local graph\n\nThe local graph view shows the links of one note; its depth setting limits the graph.\n"}); err != nil {
		t.Fatal(err)
	}
	sha := store.SHA256Hex([]byte(raw))
	f.srv.Push(doc(tk,
		create("en/plugins/local-graph", "Local graph", "The local graph shows one note's links; see [[en/plugins/graph-view]].\n"),
		map[string]any{"kind": "update_page", "slug": "en/plugins/graph-view", "base_sha256": sha, "markdown": "The graph view shows notes as nodes and links as edges. A local graph shows one note.\n"},
		map[string]any{"kind": "append_page_section", "slug": "en/plugins/local-graph", "heading": "Settings", "markdown": "Depth limits how far the local graph reaches.\n"},
		map[string]any{"kind": "add_links", "slug": "en/plugins/graph-view", "links": []string{"en/plugins/local-graph", "electron"}},
		map[string]any{"kind": "add_links", "slug": "electron", "links": []string{"en/plugins/graph-view"}},
	))
	p, err := f.pr.Ingest(ctx, plan.IngestInput{Source: "sources/graph.md"})
	if err != nil {
		t.Fatal(err)
	}
	prompt := f.srv.Requests()[0].Last()
	for _, want := range []string{"en/plugins/graph-view | Graph view | The graph of notes and links.", "<<<PAGE slug=en/plugins/graph-view sha256=" + sha} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	if got := p.Actions[0].Target(); got != "pages/en/plugins/local-graph.md" {
		t.Errorf("target %q", got)
	}
	done, err := plan.Apply(ctx, f.store, links.Open(f.store), p.ID, all(p))
	if err != nil {
		t.Fatalf("%v\n%+v", err, done.Results)
	}
	for _, r := range done.Results {
		if r.Status != "ok" {
			t.Errorf("result %+v", r)
		}
	}
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	local := read("pages/en/Plugins/local-graph.md")
	if !strings.Contains(local, "title: Local graph") || !strings.Contains(local, "## Settings\n\nDepth limits") || !strings.Contains(local, "sources:\n  - sources/graph.md") {
		t.Errorf("created nested page:\n%s", local)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pages", "en", "plugins")); err == nil {
		if fi, _ := os.Stat(filepath.Join(f.dir, "pages", "en", "Plugins")); !os.SameFile(fi, mustStat(t, filepath.Join(f.dir, "pages", "en", "plugins"))) {
			t.Error("a second folder pages/en/plugins was made next to pages/en/Plugins")
		}
	}
	graph := read("pages/en/Plugins/Graph view.md")
	if !strings.Contains(graph, "A local graph shows one note.") || !strings.Contains(graph, "title: Graph view") || !strings.Contains(graph, "## Related\n\n- [[local-graph]]\n- [[electron]]\n") {
		t.Errorf("updated nested page:\n%s", graph)
	}
	if el := read("pages/electron.md"); !strings.Contains(el, "## Related\n\n- [[Graph view]]\n") {
		t.Errorf("link to the nested page:\n%s", el)
	}
	if snaps, err := f.store.Snapshots("pages/en/Plugins/Graph view.md"); err != nil || len(snaps) == 0 {
		t.Errorf("no snapshot of the updated nested page: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pages", "en", "plugins", "graph-view.md")); err == nil {
		t.Error("update_page wrote a new file instead of the existing page")
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// Nested slugs that try to leave pages/, name another layer or are not
// canonical are refused, in every field that names a page, with nothing
// written.
func TestHostileNestedSlugsAreRefused(t *testing.T) {
	for _, slug := range []string{"a/../b", "/x", "a//b", "sources/x", "pages/x", "a/", "en/con", "En/plugins", "a/b.md/c", "a/b/c/d/e/f/g/h/i", `a\b`, "a/./b"} {
		for _, kind := range []string{"create", "append", "link"} {
			t.Run(kind+" "+slug, func(t *testing.T) {
				var act map[string]any
				switch kind {
				case "create":
					act = create(slug, "X", "body")
				case "append":
					act = map[string]any{"kind": "append_page_section", "slug": slug, "heading": "H", "markdown": "x"}
				case "link":
					act = map[string]any{"kind": "add_links", "slug": "electron", "links": []string{slug}}
				}
				bad := doc(tk, act)
				f := newFixture(t, bad, bad)
				before := f.hashes(t)
				_, err := f.ingest(t)
				if err == nil {
					t.Fatal("accepted")
				}
				if msg := store.PublicMessage(err); !strings.Contains(msg, "rejected twice") {
					t.Errorf("message %q", msg)
				}
				if d := wikitest.DiffHashes(before, f.hashes(t)); len(d) != 0 {
					t.Errorf("wrote: %v", d)
				}
				if list, _ := plan.NewBook(f.store).List(); len(list) != 0 {
					t.Errorf("a plan was saved")
				}
			})
		}
	}
}

// TestIngestLegacyEncodedSource: a Latin-1 source is proposed from the
// text read_page shows (decoded), not refused as binary; a binary one is
// refused.
func TestIngestLegacyEncodedSource(t *testing.T) {
	f := newFixture(t, validPlan())
	if err := os.WriteFile(filepath.Join(f.dir, "sources", "latin1.md"), []byte("# Cr\xe8me\n\nLa cr\xe8me br\xfbl\xe9e se sert froide.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "sources", "blob.md"), []byte("\x00\x01\x02 not text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.pr.Ingest(context.Background(), plan.IngestInput{Source: "sources/latin1.md"}); err != nil {
		t.Fatalf("ingest of a Latin-1 source: %v", err)
	}
	reqs := f.srv.Requests()
	if len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Content, "crème brûlée se sert froide") {
		t.Fatalf("the model was not sent the decoded text")
	}
	_, err := f.pr.Ingest(context.Background(), plan.IngestInput{Source: "sources/blob.md"})
	if store.CodeOf(err) != store.CodeInvalid || !strings.Contains(err.Error(), "binary") {
		t.Fatalf("ingest of a binary source: %v, want invalid: binary", err)
	}
}
