package review_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/edit"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// args are the few fields of the write tools the test runner decodes.
type args struct {
	Title, Slug, Content, Page, Op, Heading, From, To string
	BaseSHA256                                        string `json:"base_sha256"`
}

// runner runs the direct write tools through the wiki's writers, as the
// tools layer does (the tests of wiki/ cannot import tools). "file_answer"
// stands for a tool that writes no reviewed file.
func runner(st *wiki.Store, g *links.Graph) review.RunFunc {
	return func(ctx context.Context, tool string, raw json.RawMessage) (any, error) {
		var a args
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, store.Errorf(store.CodeInvalid, "bad arguments: %v", err)
		}
		switch tool {
		case "write_page":
			return st.WritePage(ctx, wiki.PageInput{Title: a.Title, Slug: a.Slug, Content: a.Content, BaseSHA256: a.BaseSHA256})
		case "edit_page":
			return edit.Edit(ctx, st, g, edit.Input{Page: a.Page, BaseSHA256: a.BaseSHA256, Op: a.Op, Heading: a.Heading, Content: a.Content})
		case "move_page":
			return edit.Move(ctx, st, g, edit.MoveInput{From: a.From, To: a.To, BaseSHA256: a.BaseSHA256})
		case "atomic_write_context":
			return st.WriteContext(ctx, wiki.ContextInput{Content: a.Content, BaseSHA256: a.BaseSHA256})
		case "file_answer":
			return "nothing", nil
		}
		return nil, store.Errorf(store.CodeInvalid, "the test runner has no tool %s", tool)
	}
}

type fixture struct {
	st  *wiki.Store
	dir string
	clk *clock
	rv  *review.Service
	ctx context.Context
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := &clock{t: teststore.FixedNow}
	st, dir := teststore.New(t, nil, wiki.WithClock(clk.now), wiki.WithLogger(teststore.Quiet()))
	g := links.Open(st)
	f := &fixture{st: st, dir: dir, clk: clk, ctx: context.Background()}
	// Pages written before the review exists, so nothing holds them.
	for _, slug := range []string{"alpha", "beta"} {
		if _, err := st.WritePage(f.ctx, wiki.PageInput{Title: strings.ToUpper(slug[:1]) + slug[1:], Slug: slug, Content: "## Notes\n\nAbout " + slug + ".\n"}); err != nil {
			t.Fatal(err)
		}
	}
	f.rv = review.New(st, g, runner(st, g))
	return f
}

func (f *fixture) sha(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return store.SHA256Hex(data)
}

func call(tool string, v map[string]any) review.ActionInput {
	b, _ := json.Marshal(v)
	return review.ActionInput{Tool: tool, Arguments: b}
}

// three is a three-action set: create gamma, append to alpha, replace
// context.md.
func (f *fixture) three(t *testing.T) []review.ActionInput {
	return []review.ActionInput{
		call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "New page.\n"}),
		call("edit_page", map[string]any{"page": "alpha", "base_sha256": f.sha(t, "pages/alpha.md"), "op": "append", "heading": "Notes", "content": "More about alpha."}),
		call("atomic_write_context", map[string]any{"content": "# Context\n\nWhat matters.\n", "base_sha256": f.sha(t, "context.md")}),
	}
}

func TestApproveRunsExactlyTheSelectedActions(t *testing.T) {
	f := newFixture(t)
	alpha := f.sha(t, "pages/alpha.md")
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Takeaways: []string{"gamma is new"}, Actions: f.three(t), Client: "test 1.0", Session: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Number != 1 || p.Op != plan.OpChangeSet || p.Status != plan.StatusPending || len(p.Actions) != 3 || !p.Expires.Equal(teststore.FixedNow.Add(review.TTL)) {
		t.Fatalf("plan = #%d %s %s, %d actions, expires %s", p.Number, p.Op, p.Status, len(p.Actions), p.Expires)
	}
	want := []struct{ path, change string }{{"pages/gamma.md", "created"}, {"pages/alpha.md", "updated"}, {"context.md", "updated"}}
	for i, w := range want {
		fs := p.Actions[i].Files
		if len(fs) != 1 || fs[0].Path != w.path || fs[0].Change != w.change || fs[0].After == "" || fs[0].Added == 0 {
			t.Fatalf("action %d files = %+v, want one %s %s", i+1, fs, w.path, w.change)
		}
	}
	if p.Actions[1].Files[0].Before != alpha {
		t.Fatalf("alpha before = %s, want %s", p.Actions[1].Files[0].Before, alpha)
	}
	if got, _ := f.rv.Pending(); len(got) != 1 || got[0].ID != p.ID {
		t.Fatalf("pending = %v", got)
	}
	out, err := f.rv.Approve(f.ctx, "#1", []int{3, 1}, review.ByCLI)
	if err != nil {
		t.Fatal(err)
	}
	done := out.Plan
	if done.Status != plan.StatusApplied || done.Reviewer != review.ByCLI || fmt.Sprint(done.Selected) != "[1 3]" {
		t.Fatalf("status %s reviewer %s selected %v", done.Status, done.Reviewer, done.Selected)
	}
	statuses := []string{}
	for _, r := range done.Results {
		statuses = append(statuses, r.Status)
	}
	if fmt.Sprint(statuses) != "[ok not_selected ok]" {
		t.Fatalf("results = %v", statuses)
	}
	if got := f.sha(t, "pages/gamma.md"); got != p.Actions[0].Files[0].After || got != done.Results[0].SHA256 {
		t.Fatalf("gamma sha %s, proposed %s, result %s", got, p.Actions[0].Files[0].After, done.Results[0].SHA256)
	}
	if got := f.sha(t, "context.md"); got != p.Actions[2].Files[0].After {
		t.Fatalf("context.md sha %s, proposed %s", got, p.Actions[2].Files[0].After)
	}
	if got := f.sha(t, "pages/alpha.md"); got != alpha {
		t.Fatal("alpha was written though action 2 was not selected")
	}
	if len(out.Outputs) != 2 || out.Outputs[2] != nil {
		t.Fatalf("outputs = %v", out.Outputs)
	}
	again, err := f.rv.Get(p.ID)
	if err != nil || again.Status != plan.StatusApplied || again.Reviewer != review.ByCLI || len(again.Results) != 3 {
		t.Fatalf("stored: %+v %v", again, err)
	}
	log, _ := os.ReadFile(filepath.Join(f.dir, "log.md"))
	if !strings.Contains(string(log), "review | change set #1: applied 2 of 3 actions (cli)") {
		t.Fatalf("log.md:\n%s", log)
	}
	rec := teststore.LastCall(t, f.dir, "review:approve")
	if rec == nil || rec.Extra["decision"] != "approved" || rec.Extra["reviewer"] != "cli" || fmt.Sprint(rec.Extra["change_set"]) != "1" {
		t.Fatalf("audit = %+v", rec)
	}
	written := map[string]bool{}
	for _, w := range rec.Writes {
		written[w.Path] = true
	}
	if !written["pages/gamma.md"] || !written["context.md"] || written["pages/alpha.md"] {
		t.Fatalf("audited writes = %v", rec.Writes)
	}
	if _, err := f.rv.Approve(f.ctx, "1", nil, review.ByCLI); store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "change set #1 is applied, not pending") {
		t.Fatalf("second approve: %v", err)
	}
}

func TestDeclineWritesNothing(t *testing.T) {
	f := newFixture(t)
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
	if err != nil {
		t.Fatal(err)
	}
	before := f.tree(t, "pages", "context.md")
	got, err := f.rv.Decline(f.ctx, fmt.Sprintf("#%d", p.Number), review.ByWeb)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != plan.StatusDeclined || got.Reviewer != review.ByWeb || got.Finished == nil {
		t.Fatalf("declined = %s %s", got.Status, got.Reviewer)
	}
	if after := f.tree(t, "pages", "context.md"); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("files changed:\n%v\n%v", before, after)
	}
	rec := teststore.LastCall(t, f.dir, "review:decline")
	if rec == nil || rec.Extra["decision"] != "declined" || rec.Extra["reviewer"] != "web" {
		t.Fatalf("audit = %+v", rec)
	}
	for _, w := range rec.Writes {
		if w.Path != "log.md" {
			t.Fatalf("decline wrote %s", w.Path)
		}
	}
	if pend, _ := f.rv.Pending(); len(pend) != 0 {
		t.Fatalf("pending after decline: %d", len(pend))
	}
	// Nothing is held any more.
	if _, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Gamma", Slug: "gamma", Content: "x\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rv.Approve(f.ctx, p.ID, nil, review.ByWeb); store.CodeOf(err) != store.CodeConflict {
		t.Fatalf("approve after decline: %v", err)
	}
}

// tree maps every file under the given roots to its sha256.
func (f *fixture) tree(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range roots {
		filepath.WalkDir(filepath.Join(f.dir, r), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(f.dir, p)
				out[filepath.ToSlash(rel)] = f.sha(t, filepath.ToSlash(rel))
			}
			return nil
		})
	}
	return out
}

func TestPendingSetsConflict(t *testing.T) {
	f := newFixture(t)
	p1, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "one\n"})}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		act  review.ActionInput
		want string
	}{
		{"same new slug", call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "two\n"}), "pages/gamma.md already has a pending change in change set #1"},
		{"same slug in another case", call("write_page", map[string]any{"title": "Gamma", "slug": "Gamma", "content": "two\n"}), "already has a pending change in change set #1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{tc.act}})
			if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want conflict %q", err, tc.want)
			}
		})
	}
	// Updating the same existing page in two sets conflicts too.
	edit := func() review.ActionInput {
		return call("edit_page", map[string]any{"page": "beta", "base_sha256": f.sha(t, "pages/beta.md"), "op": "append", "heading": "Notes", "content": "x"})
	}
	if _, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{edit()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{edit()}}); store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "pages/beta.md already has a pending change in change set #2") {
		t.Fatalf("err = %v", err)
	}
	// A model plan creating a held slug is refused too.
	if err := plan.NewBook(f.st).Save(f.ctx, &plan.Plan{Op: "build", Actions: []plan.Action{{Kind: plan.KindCreatePage, Slug: "gamma", Title: "Gamma", Markdown: "x"}}}); store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "change set #1") {
		t.Fatalf("model plan: %v", err)
	}
	_ = p1
}

func TestApproveRefusesChangedFilesOnly(t *testing.T) {
	f := newFixture(t)
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
	if err != nil {
		t.Fatal(err)
	}
	// Someone edits alpha outside the server (an editor on the files).
	path := filepath.Join(f.dir, "pages", "alpha.md")
	data, _ := os.ReadFile(path)
	changed := append(data, []byte("Edited by hand.\n")...)
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := f.rv.Approve(f.ctx, p.ID, nil, review.ByElicitation)
	if err != nil {
		t.Fatal(err)
	}
	done := out.Plan
	if done.Status != plan.StatusFailed {
		t.Fatalf("status = %s", done.Status)
	}
	r := done.Results[1]
	if r.Status != "failed" || !strings.Contains(r.Error, "pages/alpha.md changed since change set #1 was proposed; ask the agent for a new change set") {
		t.Fatalf("action 2 = %+v", r)
	}
	if done.Results[0].Status != "ok" || done.Results[2].Status != "ok" {
		t.Fatalf("results = %+v", done.Results)
	}
	if got := f.sha(t, "pages/alpha.md"); got != store.SHA256Hex(changed) {
		t.Fatal("the hand edit of alpha was overwritten")
	}
	if f.sha(t, "pages/gamma.md") != p.Actions[0].Files[0].After || f.sha(t, "context.md") != p.Actions[2].Files[0].After {
		t.Fatal("the unchanged actions did not apply as proposed")
	}
	log, _ := os.ReadFile(filepath.Join(f.dir, "log.md"))
	if !strings.Contains(string(log), "applied 2 of 3 actions (elicitation)") {
		t.Fatalf("log.md:\n%s", log)
	}
}

func TestHeldFiles(t *testing.T) {
	f := newFixture(t)
	base := f.sha(t, "pages/alpha.md")
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
	if err != nil {
		t.Fatal(err)
	}
	writes := []struct {
		name string
		do   func() error
	}{
		{"write_page update", func() error {
			_, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Alpha", Slug: "alpha", Content: "replaced\n", BaseSHA256: base})
			return err
		}},
		{"write_page create of a reserved slug", func() error {
			_, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Gamma", Slug: "gamma", Content: "mine\n"})
			return err
		}},
		{"context.md", func() error {
			_, err := f.st.WriteContext(f.ctx, wiki.ContextInput{Content: "# Mine\n"})
			return err
		}},
		{"move onto a held page", func() error {
			_, err := edit.Move(f.ctx, f.st, links.Open(f.st), edit.MoveInput{From: "beta", To: "gamma"})
			return err
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			err := w.do()
			if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "already has a pending change in change set #1; approve or decline it first") {
				t.Fatalf("err = %v", err)
			}
		})
	}
	// A file no set holds is written as usual.
	if _, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Delta", Slug: "delta", Content: "free\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rv.Approve(f.ctx, "#1", nil, review.ByWeb); err != nil {
		t.Fatal(err)
	}
	// Applied: nothing is held any more.
	if _, err := f.st.WriteContext(f.ctx, wiki.ContextInput{Content: "# Mine\n"}); err != nil {
		t.Fatal(err)
	}
	_ = p
}

func TestExpiry(t *testing.T) {
	f := newFixture(t)
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
	if err != nil {
		t.Fatal(err)
	}
	f.clk.add(review.TTL)
	if pend, _ := f.rv.Pending(); len(pend) != 0 {
		t.Fatalf("pending after expiry: %d", len(pend))
	}
	before := f.tree(t, "pages", "context.md")
	_, err = f.rv.Approve(f.ctx, p.ID, nil, review.ByCLI)
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "change set #1 expired at") {
		t.Fatalf("approve expired: %v", err)
	}
	if fmt.Sprint(f.tree(t, "pages", "context.md")) != fmt.Sprint(before) {
		t.Fatal("an expired set wrote files")
	}
	// An expired set holds nothing.
	if _, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Gamma", Slug: "gamma", Content: "mine\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Epsilon", "slug": "epsilon", "content": "e\n"})}}); err != nil {
		t.Fatal(err)
	}
}

func TestNumbering(t *testing.T) {
	f := newFixture(t)
	book := plan.NewBook(f.st)
	model := &plan.Plan{Op: "build"}
	if err := book.Save(f.ctx, model); err != nil {
		t.Fatal(err)
	}
	p2, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "g\n"})}})
	if err != nil {
		t.Fatal(err)
	}
	if model.Number != 1 || p2.Number != 2 {
		t.Fatalf("numbers = %d, %d", model.Number, p2.Number)
	}
	for _, ref := range []string{"#2", "2", " #2 ", p2.ID} {
		got, err := f.rv.Get(ref)
		if err != nil || got.ID != p2.ID {
			t.Fatalf("Get(%q) = %v, %v", ref, got, err)
		}
	}
	if got, err := f.rv.Get("1"); err != nil || got.ID != model.ID || got.Name() != "plan #1" {
		t.Fatalf("Get(1) = %v, %v", got, err)
	}
	if _, err := f.rv.Get("#9"); store.CodeOf(err) != store.CodeNotFound {
		t.Fatalf("Get(#9) = %v", err)
	}
	if _, err := f.rv.Get("../../schema"); store.CodeOf(err) != store.CodeInvalid {
		t.Fatalf("Get(path) = %v", err)
	}
	if pend, _ := f.rv.Pending(); len(pend) != 2 {
		t.Fatalf("pending = %d", len(pend))
	}
	// Declined and removed plans never give their number back.
	if _, err := f.rv.Decline(f.ctx, "#2", review.ByCLI); err != nil {
		t.Fatal(err)
	}
	if err := f.st.RemoveState(".llmwiki/plans/" + p2.ID + ".json"); err != nil {
		t.Fatal(err)
	}
	p3, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "g\n"})}})
	if err != nil || p3.Number != 3 {
		t.Fatalf("third = %v, %v", p3, err)
	}
	// Without the counter file the highest number on disk still counts.
	if err := f.st.RemoveState(plan.NumberFile); err != nil {
		t.Fatal(err)
	}
	if err := book.Save(f.ctx, &plan.Plan{Op: "build"}); err != nil {
		t.Fatal(err)
	}
	if pend, _ := f.rv.Pending(); pend[0].Number != 4 {
		t.Fatalf("newest = #%d", pend[0].Number)
	}
}

func TestProposeRefusesBadActions(t *testing.T) {
	f := newFixture(t)
	alpha := f.sha(t, "pages/alpha.md")
	gamma := call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "g\n"})
	many := make([]review.ActionInput, plan.MaxActions+1)
	for i := range many {
		many[i] = call("write_page", map[string]any{"title": fmt.Sprint("P", i), "slug": fmt.Sprint("p-", i), "content": "x\n"})
	}
	tests := []struct {
		name string
		in   review.ProposeInput
		code store.Code
		want string
	}{
		{"no actions", review.ProposeInput{}, store.CodeInvalid, "at least one action"},
		{"unknown tool", review.ProposeInput{Actions: []review.ActionInput{gamma, call("delete_everything", nil)}}, store.CodeInvalid, `action 2: "delete_everything" is not a write tool a change set can call; the tools are write_page, edit_page`},
		{"read tool", review.ProposeInput{Actions: []review.ActionInput{call("read_page", map[string]any{"page": "alpha"})}}, store.CodeInvalid, `action 1: "read_page" is not a write tool`},
		{"arguments not an object", review.ProposeInput{Actions: []review.ActionInput{{Tool: "write_page", Arguments: json.RawMessage(`[1]`)}}}, store.CodeInvalid, "action 1 (write_page): arguments must be a JSON object"},
		{"stale base", review.ProposeInput{Actions: []review.ActionInput{gamma, call("edit_page", map[string]any{"page": "alpha", "base_sha256": strings.Repeat("0", 64), "op": "append", "heading": "Notes", "content": "x"})}}, store.CodeConflict, "action 2 (edit_page): pages/alpha.md changed since you read it"},
		{"existing page created", review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Alpha", "slug": "alpha", "content": "x\n"})}}, store.CodeConflict, "action 1 (write_page):"},
		{"writes no reviewed file", review.ProposeInput{Actions: []review.ActionInput{call("file_answer", map[string]any{"x": 1})}}, store.CodeInvalid, "action 1 (file_answer) writes no page or context.md, so it needs no review: call file_answer directly"},
		{"two actions, one file", review.ProposeInput{Actions: []review.ActionInput{
			call("edit_page", map[string]any{"page": "alpha", "base_sha256": alpha, "op": "append", "heading": "Notes", "content": "x"}),
			gamma,
			call("edit_page", map[string]any{"page": "pages/alpha.md", "base_sha256": alpha, "op": "append", "heading": "Notes", "content": "y"}),
		}}, store.CodeInvalid, "actions 1 and 3 both write pages/alpha.md; merge them into one action"},
		{"too many actions", review.ProposeInput{Actions: many}, store.CodeTooLarge, fmt.Sprintf("at most %d actions", plan.MaxActions)},
		{"too many takeaway lines", review.ProposeInput{Takeaways: []string{strings.Repeat("line\n", 21)}, Actions: []review.ActionInput{gamma}}, store.CodeTooLarge, "21 lines"},
		{"takeaway line too long", review.ProposeInput{Takeaways: []string{strings.Repeat("x", 501)}, Actions: []review.ActionInput{gamma}}, store.CodeTooLarge, "501 characters"},
		{"why on two lines", review.ProposeInput{Actions: []review.ActionInput{{Tool: gamma.Tool, Arguments: gamma.Arguments, Why: "a\nb"}}}, store.CodeInvalid, "action 1 (write_page): why must be one line"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := f.rv.Propose(f.ctx, tc.in)
			if err == nil {
				t.Fatalf("saved %s", p.Name())
			}
			if store.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (%s), want %s %q", err, store.CodeOf(err), tc.code, tc.want)
			}
			if pend, _ := f.rv.Pending(); len(pend) != 0 {
				t.Fatalf("a refused proposal was saved")
			}
		})
	}
}

func TestDryRunLeavesNothing(t *testing.T) {
	f := newFixture(t)
	move := call("move_page", map[string]any{"from": "beta", "to": "beta-renamed"})
	before := f.tree(t, ".")
	audited := len(teststore.AuditLines(t, f.dir))
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: append(f.three(t), move)})
	if err != nil {
		t.Fatal(err)
	}
	mv := p.Actions[3].Files
	if len(mv) != 2 || mv[0].Path != "pages/beta.md" || mv[0].Change != "deleted" || mv[1].Path != "pages/beta-renamed.md" || mv[1].Change != "created" {
		t.Fatalf("move files = %+v", mv)
	}
	for n := 1; n <= 4; n++ {
		ds, err := f.rv.Diffs(f.ctx, p, n)
		if err != nil || len(ds) == 0 || ds[0].Path != p.Actions[n-1].Files[0].Path {
			t.Fatalf("diffs of %d = %+v, %v", n, ds, err)
		}
	}
	ds, _ := f.rv.Diffs(f.ctx, p, 2)
	if ds[0].Added != 2 || ds[0].Removed != 0 || !strings.Contains(ds[0].Diff, "+More about alpha.") || !strings.HasPrefix(ds[0].Diff, "--- a/pages/alpha.md\n+++ b/pages/alpha.md\n") {
		t.Fatalf("alpha diff = %+v", ds[0])
	}
	after := f.tree(t, ".")
	for rel, sum := range after {
		if strings.HasPrefix(rel, ".llmwiki/plans/") || rel == plan.NumberFile || strings.HasPrefix(rel, ".llmwiki/audit") {
			continue
		}
		if before[rel] != sum {
			t.Errorf("%s was written by a dry run", rel)
		}
	}
	for rel := range before {
		if _, ok := after[rel]; !ok {
			t.Errorf("%s was removed by a dry run", rel)
		}
	}
	if tmp := teststore.TempFiles(f.dir); len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
	for _, rec := range teststore.AuditLines(t, f.dir)[audited:] {
		if len(rec.Writes) != 0 || len(rec.Snapshots) != 0 {
			t.Errorf("a dry run was audited as a write: %s %+v", rec.Tool, rec.Writes)
		}
	}
	// Approved, the diffs are what was written, from the snapshots.
	if _, err := f.rv.Approve(f.ctx, p.ID, []int{2}, review.ByCLI); err != nil {
		t.Fatal(err)
	}
	done, _ := f.rv.Get(p.ID)
	ds, err = f.rv.Diffs(f.ctx, done, 2)
	if err != nil || len(ds) != 1 || !strings.Contains(ds[0].Diff, "+More about alpha.") || ds[0].Added != 2 {
		t.Fatalf("finished diff = %+v, %v", ds, err)
	}
	if ds, err := f.rv.Diffs(f.ctx, done, 5); store.CodeOf(err) != store.CodeInvalid {
		t.Fatalf("diffs of 5 = %v, %v", ds, err)
	}
}

// A change set proposed by another process (another Store on the same
// folder) holds its files in this one at once.
func TestHeldAcrossProcesses(t *testing.T) {
	f := newFixture(t)
	// Prime this process's held list: nothing pending.
	if _, err := f.st.WritePage(f.ctx, wiki.PageInput{Title: "Delta", Slug: "delta", Content: "d\n"}); err != nil {
		t.Fatal(err)
	}
	other, err := wiki.Open(f.dir, wiki.WithClock(f.clk.now), wiki.WithLogger(teststore.Quiet()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	og := links.Open(other)
	orv := review.New(other, og, runner(other, og))
	p, err := orv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "g\n"})}})
	if err != nil {
		t.Fatal(err)
	}
	if rec := teststore.LastCall(t, f.dir, "review:propose"); rec == nil || fmt.Sprint(rec.Extra["change_set"]) != fmt.Sprint(p.Number) || rec.Outcome != "ok" {
		t.Fatalf("propose audit = %+v", rec)
	}
	_, err = f.st.WritePage(f.ctx, wiki.PageInput{Title: "Gamma", Slug: "gamma", Content: "mine\n"})
	if store.CodeOf(err) != store.CodeConflict || !strings.Contains(err.Error(), "change set #1") {
		t.Fatalf("write in this process: %v", err)
	}
	// Its approval, here, writes the held file.
	if _, err := f.rv.Approve(f.ctx, "#1", nil, review.ByWeb); err != nil {
		t.Fatal(err)
	}
	if f.sha(t, "pages/gamma.md") != p.Actions[0].Files[0].After {
		t.Fatal("gamma not written as proposed")
	}
}

func TestDecisionNeedsAPerson(t *testing.T) {
	f := newFixture(t)
	p, err := f.rv.Propose(f.ctx, review.ProposeInput{Actions: f.three(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"", "agent", "claude"} {
		if _, err := f.rv.Approve(f.ctx, p.ID, nil, who); err == nil {
			t.Fatalf("approved by %q", who)
		}
		if _, err := f.rv.Decline(f.ctx, p.ID, who); err == nil {
			t.Fatalf("declined by %q", who)
		}
	}
	if got, _ := f.rv.Get(p.ID); got.Status != plan.StatusPending {
		t.Fatalf("status = %s", got.Status)
	}
}

func TestInApproval(t *testing.T) {
	f := newFixture(t)
	var seen []bool
	g := links.Open(f.st)
	inner := runner(f.st, g)
	rv := review.New(f.st, g, func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		seen = append(seen, review.InApproval(ctx), store.IsDryRun(ctx))
		return inner(ctx, tool, args)
	})
	p, err := rv.Propose(f.ctx, review.ProposeInput{Actions: []review.ActionInput{call("write_page", map[string]any{"title": "Gamma", "slug": "gamma", "content": "g\n"})}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rv.Diffs(f.ctx, p, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := rv.Approve(f.ctx, p.ID, nil, review.ByCLI); err != nil {
		t.Fatal(err)
	}
	// propose: dry run, not an approval; diffs: a dry run as the set's
	// approval; approve: a dry run as the approval (does it write only the
	// files proposed?), then the real run.
	if fmt.Sprint(seen) != "[false true true true true true true false]" {
		t.Fatalf("(in approval, dry run) per run = %v", seen)
	}
	if review.InApproval(f.ctx) {
		t.Fatal("a plain ctx is in approval")
	}
}

// While a set's approval runs, its files stay held against other writers,
// and a move's result names the page's new file.
func TestHeldWhileApplying(t *testing.T) {
	f := newFixture(t)
	g := links.Open(f.st)
	inner := runner(f.st, g)
	var during error
	rv := review.New(f.st, g, func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		if review.InApproval(ctx) && !store.IsDryRun(ctx) && tool == "move_page" {
			_, during = f.st.WriteContext(context.Background(), wiki.ContextInput{Content: "# Sneaked in\n"})
		}
		return inner(ctx, tool, args)
	})
	acts := []review.ActionInput{
		call("move_page", map[string]any{"from": "beta", "to": "beta-renamed"}),
		call("atomic_write_context", map[string]any{"content": "# Context\n", "base_sha256": f.sha(t, "context.md")}),
	}
	p, err := rv.Propose(f.ctx, review.ProposeInput{Actions: acts})
	if err != nil {
		t.Fatal(err)
	}
	out, err := rv.Approve(f.ctx, p.ID, nil, review.ByWeb)
	if err != nil {
		t.Fatal(err)
	}
	if store.CodeOf(during) != store.CodeConflict || !strings.Contains(during.Error(), "context.md already has a pending change in change set #1") {
		t.Fatalf("write during the approval: %v", during)
	}
	r := out.Plan.Results[0]
	if out.Plan.Status != plan.StatusApplied || r.Path != "pages/beta-renamed.md" || r.SHA256 != f.sha(t, "pages/beta-renamed.md") {
		t.Fatalf("status %s, move result %+v", out.Plan.Status, r)
	}
	if f.sha(t, "context.md") != p.Actions[1].Files[0].After {
		t.Fatal("context.md not as proposed")
	}
}
