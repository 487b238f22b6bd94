package ui

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// reviewFixture is the web app over a wiki with a real review service
// whose change-set actions run through the tools' executors.
type reviewFixture struct {
	t   *testing.T
	st  *wiki.Store
	dir string
	rv  *review.Service
	h   http.Handler
}

func newReviewFixture(t *testing.T) *reviewFixture {
	t.Helper()
	st, dir := teststore.New(t, nil, wiki.WithLogger(teststore.Quiet()))
	ctx := context.Background()
	for _, slug := range []string{"alpha", "beta"} {
		if _, err := st.WritePage(ctx, wiki.PageInput{Title: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug, Content: "## Notes\n\nAbout " + slug + ".\n"}); err != nil {
			t.Fatal(err)
		}
	}
	g := links.Open(st)
	rv := review.New(st, g, tools.RunWrite(tools.Deps{Store: st, Links: g, Log: teststore.Quiet()}))
	h, err := New(Config{Store: st, Review: rv, Links: g, Log: teststore.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	return &reviewFixture{t: t, st: st, dir: dir, rv: rv, h: h}
}

func (f *reviewFixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// get fetches path with the cookies of a previous answer (the flash).
func (f *reviewFixture) get(path string, prev *httptest.ResponseRecorder) string {
	f.t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if prev != nil {
		for _, c := range prev.Result().Cookies() {
			r.AddCookie(c)
		}
	}
	w := serve(f.h, r)
	if w.Code != http.StatusOK {
		f.t.Fatalf("GET %s = %d:\n%s", path, w.Code, w.Body)
	}
	return w.Body.String()
}

// post sends a same-origin form, as the page's own buttons do, and expects
// the redirect to /review.
func (f *reviewFixture) post(path string, form url.Values) *httptest.ResponseRecorder {
	f.t.Helper()
	r := formPost(path, form)
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	w := serve(f.h, r)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/review" {
		f.t.Fatalf("POST %s = %d to %q, want 303 to /review:\n%s", path, w.Code, w.Header().Get("Location"), w.Body)
	}
	return w
}

func action(tool string, v map[string]any) review.ActionInput {
	b, _ := json.Marshal(v)
	return review.ActionInput{Tool: tool, Arguments: b}
}

// propose proposes three actions: create gamma (with agent HTML), append
// to alpha, replace context.md.
func (f *reviewFixture) propose() *plan.Plan {
	f.t.Helper()
	p, err := f.rv.Propose(context.Background(), review.ProposeInput{
		Takeaways: []string{"gamma is <em>new</em>"},
		Client:    "claude-code 2.0", Session: "s-agent",
		Actions: []review.ActionInput{
			action("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "New page.\n\n<script>alert(1)</script>\n"}),
			action("edit_page", map[string]any{"page": "alpha", "base_sha256": store.SHA256Hex([]byte(f.read("pages/alpha.md"))), "op": "append", "heading": "Notes", "content": "More about alpha."}),
			action("atomic_write_context", map[string]any{"content": "# Context\n\nWhat matters.\n", "base_sha256": store.SHA256Hex([]byte(f.read("context.md")))}),
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// write makes an agent's write in mode after: an audited call marked for
// review. It returns the audit line's id.
func (f *reviewFixture) write(slug, content string) string {
	f.t.Helper()
	c := store.NewCall("write_page", "s-agent", nil)
	c.Client = "cursor 1.0"
	c.SetExtra(review.MarkKey, wiki.ReviewAfter)
	in := wiki.PageInput{Title: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug, Content: content}
	if old := f.read(wiki.PagePath(slug)); old != "" {
		in.BaseSHA256 = store.SHA256Hex([]byte(old))
	}
	_, err := f.st.WritePage(store.WithCall(context.Background(), c), in)
	if aerr := f.st.Audit(c, err); err != nil || aerr != nil {
		f.t.Fatal(err, aerr)
	}
	return c.ID
}

func TestReviewApproveTicked(t *testing.T) {
	f := newReviewFixture(t)
	p := f.propose()
	ref := planRef(p)
	alphaBefore := f.read("pages/alpha.md")

	body := f.get("/review", nil)
	for n := 1; n <= 3; n++ {
		id := `id="check-` + ref + `-` + string(rune('0'+n)) + `"`
		i := strings.Index(body, id)
		if i < 0 || !strings.Contains(body[i:i+120], "checked") {
			t.Errorf("checkbox %s missing or not checked", id)
		}
	}
	for _, want := range []string{"claude-code 2.0", "s-agent", "gamma is &lt;em&gt;new&lt;/em&gt;", "pages/gamma.md", "pages/alpha.md", "context.md",
		`&lt;script&gt;alert(1)&lt;/script&gt;`, `<span class="add">&#43;More about alpha.` + "\n</span>"} {
		if !strings.Contains(body, want) {
			t.Errorf("review page lacks %s", want)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "<em>new") {
		t.Errorf("agent text reached the page unescaped")
	}

	w := f.post("/review/sets/"+ref+"/approve", url.Values{"action": {"1", "3"}})
	if got := f.read("pages/gamma.md"); !strings.Contains(got, "New page.") {
		t.Errorf("action 1 not applied: pages/gamma.md = %q", got)
	}
	if got := f.read("context.md"); !strings.Contains(got, "What matters.") {
		t.Errorf("action 3 not applied: context.md = %q", got)
	}
	if got := f.read("pages/alpha.md"); got != alphaBefore {
		t.Errorf("action 2 was not ticked but pages/alpha.md changed:\n%s", got)
	}
	rec := teststore.LastCall(t, f.dir, "web:review_approve")
	if rec == nil || rec.Outcome != "ok" || rec.Client != Client || len(rec.Writes) == 0 {
		t.Fatalf("approve audit line %+v, want ok by %q with the writes", rec, Client)
	}
	after := f.get("/review", w)
	if !strings.Contains(after, `id="flash"`) || !strings.Contains(after, "2 of 2 selected actions applied") {
		t.Errorf("no flash saying what was approved:\n%s", after)
	}
	if !strings.Contains(after, `id="sets-empty"`) {
		t.Errorf("the approved set is still listed")
	}
}

func TestReviewApproveNothingTickedAndDecline(t *testing.T) {
	f := newReviewFixture(t)
	ref := planRef(f.propose())
	w := f.post("/review/sets/"+ref+"/approve", nil)
	if body := f.get("/review", w); !strings.Contains(body, `id="flash-error"`) || !strings.Contains(body, "no action ticked") {
		t.Errorf("approving nothing ticked did not say so:\n%s", body)
	}
	if f.read("pages/gamma.md") != "" {
		t.Fatalf("approving nothing ticked wrote pages/gamma.md")
	}
	w = f.post("/review/sets/"+ref+"/decline", nil)
	if body := f.get("/review", w); !strings.Contains(body, "declined: nothing was written") || !strings.Contains(body, `id="sets-empty"`) {
		t.Errorf("decline not reported, or the set still listed:\n%s", body)
	}
	if f.read("pages/gamma.md") != "" {
		t.Errorf("a declined set wrote pages/gamma.md")
	}
	if rec := teststore.LastCall(t, f.dir, "web:review_decline"); rec == nil || rec.Outcome != "ok" || rec.Client != Client {
		t.Errorf("decline audit line %+v", rec)
	}
}

func TestReviewRevertAndAcceptAll(t *testing.T) {
	f := newReviewFixture(t)
	orig := f.read("pages/alpha.md")
	id := f.write("alpha", "## Notes\n\nRewritten by an agent <img src=x onerror=alert(1)>.\n")
	f.write("delta", "A new page.\n")
	f.write("epsilon", "Another.\n")

	body := f.get("/review", nil)
	for _, want := range []string{`id="write-` + id + `"`, `id="revert-` + id + `"`, `id="accept-all"`, "cursor 1.0", "Unreviewed writes (3)",
		"&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("review page lacks %s", want)
		}
	}
	if strings.Contains(body, "<img src=x") {
		t.Errorf("agent HTML reached the page unescaped")
	}

	w := f.post("/review/writes/"+id+"/revert", nil)
	if got := f.read("pages/alpha.md"); got != orig {
		t.Errorf("revert left pages/alpha.md = %q, want %q", got, orig)
	}
	if rec := teststore.LastCall(t, f.dir, "web:review_revert"); rec == nil || rec.Outcome != "ok" || rec.Client != Client || len(rec.Writes) == 0 {
		t.Errorf("revert audit line %+v", rec)
	}
	if body := f.get("/review", w); !strings.Contains(body, "reverted: restored pages/alpha.md") || strings.Contains(body, `id="write-`+id+`"`) {
		t.Errorf("revert not reported, or the write still queued:\n%s", body)
	}

	// Accept all accepts what the page showed, not a write queued after
	// the page was drawn.
	page := f.get("/review", nil)
	m := regexp.MustCompile(`name="through" value="(a-[0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the accept-all form names no newest write:\n%s", page)
	}
	late := f.write("zeta", "Written after the page was drawn.\n")
	f.post("/review/writes/accept-all", url.Values{"through": {m[1]}})
	if ws, _, total, err := f.rv.Queue(10, ""); err != nil || total != 1 || ws[0].ID != late {
		t.Errorf("after accept-all the queue holds %d (%v), want only the late write %s", total, err, late)
	}
	if w := f.post("/review/writes/accept-all", nil); !strings.Contains(f.get("/review", w), "reload the review page") {
		t.Errorf("accept-all without the newest write shown is not refused")
	}
	f.post("/review/writes/accept-all", url.Values{"through": {late}})
	if body := f.get("/review", nil); !strings.Contains(body, `id="writes-empty"`) {
		t.Errorf("the empty queue does not say so")
	}
	if rec := teststore.LastCall(t, f.dir, "web:review_accept"); rec == nil || rec.Outcome != "ok" {
		t.Errorf("accept-all audit line %+v", rec)
	}
}

// A write whose file changed since cannot be reverted: the person sees the
// conflict, and nothing changes.
func TestReviewRevertConflictShown(t *testing.T) {
	f := newReviewFixture(t)
	id := f.write("alpha", "first agent version\n")
	f.write("alpha", "second agent version\n")
	now := f.read("pages/alpha.md")
	w := f.post("/review/writes/"+id+"/revert", nil)
	body := f.get("/review", w)
	if !strings.Contains(body, `id="flash-error"`) || !strings.Contains(body, "pages/alpha.md") {
		t.Errorf("the conflict is not shown:\n%s", body)
	}
	if got := f.read("pages/alpha.md"); got != now {
		t.Errorf("a refused revert changed pages/alpha.md to %q", got)
	}
	if rec := teststore.LastCall(t, f.dir, "web:review_revert"); rec == nil || rec.Outcome != "error" || rec.Code != store.CodeConflict {
		t.Errorf("revert audit line %+v, want a conflict", rec)
	}
}
