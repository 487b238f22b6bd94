package ui

import (
	"context"
	"html/template"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// renderReview renders the Review page of d with the embedded templates.
func renderReview(t *testing.T, d reviewData) string {
	t.Helper()
	tmpl, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	a := &app{tmpl: tmpl, log: teststore.Quiet()}
	w := httptest.NewRecorder()
	a.render(w, "review", page{Title: "Review", Nav: "review", Data: d})
	return w.Body.String()
}

// TestReviewPageRendersSetAndEscapes renders a pending set of three actions
// whose diff carries agent-written HTML: three checked boxes, the diff
// lines classed by +/-, and the HTML inert.
func TestReviewPageRendersSetAndEscapes(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := &plan.Plan{ID: "p-1", Op: plan.OpChangeSet, Number: 7, Client: "claude-code 2.0", Session: "s-abc",
		Status: plan.StatusPending, Created: now, Expires: now.Add(review.TTL),
		Takeaways: []string{"Alpha is <b>bold</b>"}}
	sv := setView{Plan: p, Ref: "7", ChangeSet: true}
	for n := 1; n <= 3; n++ {
		diff := "--- a/pages/x.md\n+++ b/pages/x.md\n@@ -1 +1 @@\n-old line\n+<script>alert(1)</script>\n"
		sv.Actions = append(sv.Actions, actionView{N: n, Label: "write_page pages/x.md",
			Files: fileViews([]review.FileDiff{{Path: "pages/x.md", Change: "updated", Diff: diff, Added: 1, Removed: 1}})})
	}
	body := renderReview(t, reviewData{Mode: "before", Sets: []setView{sv}})

	if got := strings.Count(body, `type="checkbox" name="action"`); got != 3 {
		t.Errorf("%d action checkboxes, want 3", got)
	}
	for n := range 3 {
		id := `id="check-7-` + string(rune('1'+n)) + `"`
		i := strings.Index(body, id)
		if i < 0 || !strings.Contains(body[i:i+120], "checked") {
			t.Errorf("checkbox %s missing or not checked", id)
		}
	}
	for _, want := range []string{
		`action="/review/sets/7/approve"`, `formaction="/review/sets/7/decline"`, `id="approve-7"`, `id="decline-7"`,
		`claude-code 2.0`, `s-abc`, `2026-12-01 10:00 UTC`, `2026-12-02 10:00 UTC`,
		`<span class="del">-old line` + "\n</span>", `<span class="add">&#43;&lt;script&gt;alert(1)&lt;/script&gt;` + "\n</span>",
		`<span class="hunk">@@ -1 &#43;1 @@` + "\n</span>", `Alpha is &lt;b&gt;bold&lt;/b&gt;`, `data-mode="before"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "<b>bold") {
		t.Errorf("agent text reached the page unescaped:\n%s", body)
	}
	if !strings.Contains(body, `id="writes-empty"`) {
		t.Errorf("an empty queue does not say so")
	}
}

func TestReviewPageRendersQueue(t *testing.T) {
	w := writeView{Write: review.Write{ID: "a-0123456789ab", Time: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC),
		Client: "cursor 1.0", Session: "s-1", Tool: "write_page", Status: "unreviewed"},
		Files: fileViews([]review.FileDiff{{Path: "pages/a.md", Change: "created", Diff: "+hello\n", Added: 1}})}
	body := renderReview(t, reviewData{Mode: "after", Writes: []writeView{w}, Total: 120, Next: "c50"})
	for _, want := range []string{
		`id="write-a-0123456789ab"`, `action="/review/writes/a-0123456789ab/accept"`, `formaction="/review/writes/a-0123456789ab/revert"`,
		`id="accept-a-0123456789ab"`, `id="revert-a-0123456789ab"`, `id="accept-all"`, `Unreviewed writes (120)`,
		`href="/review?cursor=c50"`, `cursor 1.0`, `write_page`, `2026-12-01 09:30 UTC`, `<span class="add">&#43;hello` + "\n</span>",
		`id="sets-empty"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestDiffLinesCapped(t *testing.T) {
	lines, omitted := diffLines(strings.Repeat("+x\n", maxDiffLines+5))
	if len(lines) != maxDiffLines || omitted != 5 {
		t.Errorf("%d lines shown, %d omitted; want %d and 5", len(lines), omitted, maxDiffLines)
	}
}

// A model plan's actions show what they would write (no dry run), escaped.
func TestReviewPageRendersModelPlan(t *testing.T) {
	p := &plan.Plan{ID: "p-2", Op: "ingest", Number: 9, Status: plan.StatusPending, Source: "sources/a.md",
		Actions: []plan.Action{{Kind: plan.KindCreatePage, Slug: "gamma", Title: "Gamma", Markdown: "Body <script>x</script>", Why: "new topic"}}}
	a := &app{cfg: Config{}}
	sv := a.setView(context.Background(), p)
	body := renderReview(t, reviewData{Mode: "after", Sets: []setView{sv}})
	for _, want := range []string{`Plan (ingest) #9`, `id="check-9-1"`, `sources/a.md`, `new topic`, `<pre class="body">Body &lt;script&gt;x&lt;/script&gt;</pre>`, `create page pages/gamma.md`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
