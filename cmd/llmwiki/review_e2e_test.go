package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// The end-to-end tests of review by a person: the built binary served over
// stdio to the official TypeScript SDK client (testdata/e2e/review_flow.mjs),
// which answers elicitation/create as the person would, and the
// `llmwiki review` command line the person decides with.

// reviewStep is one tool call of review_flow.mjs.
type reviewStep struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// reviewFlowOut is what review_flow.mjs prints.
type reviewFlowOut struct {
	Elicitations []struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Type    string `json:"type"`
				Title   string `json:"title"`
				Default *bool  `json:"default"`
			} `json:"properties"`
		} `json:"requestedSchema"`
	} `json:"elicitations"`
	Results []reviewResult `json:"results"`
}

type reviewResult struct {
	Tool       string         `json:"tool"`
	IsError    bool           `json:"is_error"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured"`
}

// reviewOf returns the result's review status ({change_set, id, status,
// message}), failing when it has none.
func (r reviewResult) reviewOf(t *testing.T) (n int, status, message string) {
	t.Helper()
	rv, ok := r.Structured["review"].(map[string]any)
	if !ok {
		t.Fatalf("%s result has no review: %s %v", r.Tool, r.Text, r.Structured)
	}
	f, _ := rv["change_set"].(float64)
	status, _ = rv["status"].(string)
	message, _ = rv["message"].(string)
	return int(f), status, message
}

// reviewWiki creates a wiki in review mode mode with the given pages
// (slug → body), put on disk as a person would before any client
// connects, so they are neither pending nor unreviewed.
func reviewWiki(t *testing.T, mode string, pages map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	for slug, body := range pages {
		p := filepath.Join(root, "pages", slug+".md")
		if err := os.WriteFile(p, []byte("---\ntitle: "+slug+"\nsummary: about "+slug+"\n---\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	setReviewMode(t, root, mode)
	return root
}

// setReviewMode sets schema.md's review: key.
func setReviewMode(t *testing.T, root, mode string) {
	t.Helper()
	p := filepath.Join(root, "schema.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []string
	for i, l := range lines {
		if strings.HasPrefix(l, "review:") {
			continue
		}
		out = append(out, l)
		if i == 0 && l == "---" {
			out = append(out, "review: "+mode)
		}
	}
	if lines[0] != "---" {
		t.Fatalf("schema.md has no frontmatter:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reviewFlow runs steps on one stdio connection whose person answers as
// person says (see review_flow.mjs).
func reviewFlow(t *testing.T, root, person string, steps ...reviewStep) reviewFlowOut {
	t.Helper()
	return runReviewFlow(t, []string{"--bin", binary(t), "--root", root}, person, steps)
}

// runReviewFlow runs review_flow.mjs with conn (how it connects) and steps.
func runReviewFlow(t *testing.T, conn []string, person string, steps []reviewStep) reviewFlowOut {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	sf := filepath.Join(t.TempDir(), "steps.json")
	if err := os.WriteFile(sf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := node(t, "review_flow.mjs", append(conn, "--steps", sf, "--person", person)...)
	var r reviewFlowOut
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("review_flow output: %v\n%s", err, out)
	}
	if len(r.Results) != len(steps) {
		t.Fatalf("%d results for %d steps", len(r.Results), len(steps))
	}
	return r
}

// reviewCLI runs the built `llmwiki review ARGS --root root` and returns
// its stdout, stderr and exit status.
func reviewCLI(t *testing.T, root string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"review", "--root", root}, args...)...)
	cmd.Env = append(os.Environ(), "LLMWIKI_LOG=warn", "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("llmwiki review: %v", err)
	}
	return out.String(), errb.String(), code
}

// treeSums returns the sha256 of every file under root except .llmwiki/
// (the server's own state: plans, audit, snapshots).
func treeSums(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".llmwiki" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		h := sha256.Sum256(b)
		sums[rel] = hex.EncodeToString(h[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// fileSHA is the sha256 of root/rel, as base_sha256 takes it.
func fileSHA(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func readRel(t *testing.T, root, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// auditWith returns the audit lines whose Extra has key = value.
func auditWith(t *testing.T, root, key string, value any) []store.AuditRecord {
	t.Helper()
	var out []store.AuditRecord
	for _, r := range teststore.AuditLines(t, root) {
		if v, ok := r.Extra[key]; ok && v == value {
			out = append(out, r)
		}
	}
	return out
}

func writeStep(slug, title, content string) reviewStep {
	return reviewStep{Tool: "write_page", Arguments: map[string]any{"slug": slug, "title": title, "summary": "About " + title + ".", "content": content}}
}

// threeActions is a change set of three new pages.
func threeActions() reviewStep {
	var actions []map[string]any
	for _, s := range []string{"alpha", "beta", "gamma"} {
		w := writeStep(s, strings.ToUpper(s[:1])+s[1:], "## Notes\n\nAbout "+s+".\n")
		actions = append(actions, map[string]any{"tool": w.Tool, "arguments": w.Arguments, "why": "a page for " + s})
	}
	return reviewStep{Tool: "propose_changes", Arguments: map[string]any{
		"takeaways": []string{"Three subjects deserve a page each."},
		"actions":   actions,
	}}
}

// TestReviewElicitationTicksTwoOfThree: a client declaring elicitation
// proposes a three-action change set; it is asked exactly once, with one
// boolean per action, ticked by default; accepting with actions 1 and 3
// ticked writes exactly those two pages.
func TestReviewElicitationTicksTwoOfThree(t *testing.T) {
	root := reviewWiki(t, "after", nil)
	checkTwoOfThree(t, root, reviewFlow(t, root, "accept:1,3", threeActions()))
	// What the person approved in the editor does not wait in the queue
	// of mode after as well.
	if list, stderr, code := reviewCLI(t, root, "--json"); code != 0 || !strings.Contains(list, `"total": 0`) {
		t.Errorf("review --json after an approved set: exit %d\n%s%s", code, list, stderr)
	}
}

// TestReviewElicitationOverHTTP: the same form and answer over streamable
// HTTP, where the server's elicitation/create and the client's answer
// travel on the session's HTTP streams rather than stdin and stdout. Over
// the legacy SSE transport mcp-go cannot send a client a request, so a
// client declaring elicitation there gets the set pending, never an
// approval, and the person approves on the command line.
func TestReviewElicitationOverHTTP(t *testing.T) {
	t.Run("streamable", func(t *testing.T) {
		root := reviewWiki(t, "after", nil)
		p := startHTTP(t, root, nil)
		out := runReviewFlow(t, []string{"--url", p.base, "--transport", "streamable"}, "accept:1,3", []reviewStep{threeActions()})
		p.stop(t)
		checkTwoOfThree(t, root, out)
	})
	t.Run("sse", func(t *testing.T) {
		root := reviewWiki(t, "after", nil)
		p := startHTTP(t, root, nil)
		out := runReviewFlow(t, []string{"--url", p.base, "--transport", "sse"}, "accept:1,3", []reviewStep{threeActions()})
		p.stop(t)
		r := out.Results[0]
		n, status, msg := r.reviewOf(t)
		if len(out.Elicitations) != 0 || r.IsError || status != "pending" || n != 1 || !strings.Contains(msg, "llmwiki review approve 1") {
			t.Fatalf("over SSE: %d elicitations, error %v, #%d %s: %s", len(out.Elicitations), r.IsError, n, status, msg)
		}
		for _, slug := range []string{"alpha", "beta", "gamma"} {
			if _, ok := readRel(t, root, "pages/"+slug+".md"); ok {
				t.Errorf("pages/%s.md written while pending", slug)
			}
		}
		if stdout, stderr, code := reviewCLI(t, root, "approve", "1", "--only", "1,3"); code != 0 {
			t.Fatalf("review approve 1 --only 1,3: exit %d\n%s%s", code, stdout, stderr)
		}
		for slug, want := range map[string]bool{"alpha": true, "beta": false, "gamma": true} {
			if _, ok := readRel(t, root, "pages/"+slug+".md"); ok != want {
				t.Errorf("pages/%s.md exists %v after approving 1 and 3", slug, ok)
			}
		}
	})
}

// checkTwoOfThree checks the outcome of threeActions answered accept:1,3.
func checkTwoOfThree(t *testing.T, root string, out reviewFlowOut) {
	t.Helper()
	if len(out.Elicitations) != 1 {
		t.Fatalf("%d elicitations, want 1", len(out.Elicitations))
	}
	e := out.Elicitations[0]
	if e.RequestedSchema.Type != "object" || len(e.RequestedSchema.Properties) != 3 {
		t.Fatalf("requested schema %+v", e.RequestedSchema)
	}
	for _, key := range []string{"action_1", "action_2", "action_3"} {
		p, ok := e.RequestedSchema.Properties[key]
		if !ok || p.Type != "boolean" || p.Default == nil || !*p.Default {
			t.Errorf("%s: %+v, want a boolean defaulting to true", key, p)
		}
	}
	for _, want := range []string{"Three subjects deserve a page each.", "pages/alpha.md", "pages/beta.md", "pages/gamma.md"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, e.Message)
		}
	}
	r := out.Results[0]
	if r.IsError {
		t.Fatalf("propose_changes: %s", r.Text)
	}
	n, status, _ := r.reviewOf(t)
	if status != "applied" || n < 1 {
		t.Errorf("review #%d %s, want applied", n, status)
	}
	for slug, want := range map[string]bool{"alpha": true, "beta": false, "gamma": true} {
		got, ok := readRel(t, root, "pages/"+slug+".md")
		if ok != want {
			t.Errorf("pages/%s.md exists %v, want %v", slug, ok, want)
			continue
		}
		if want && (!strings.Contains(got, "title: "+strings.ToUpper(slug[:1])+slug[1:]) || !strings.HasSuffix(got, "## Notes\n\nAbout "+slug+".\n")) {
			t.Errorf("pages/%s.md:\n%s", slug, got)
		}
	}
	approved := auditWith(t, root, "decision", "approved")
	if len(approved) != 1 || approved[0].Extra["reviewer"] != "elicitation" {
		t.Fatalf("approval audit lines %+v", approved)
	}
	var wrote []string
	for _, w := range approved[0].Writes {
		wrote = append(wrote, w.Path)
	}
	if strings.Contains(strings.Join(wrote, " "), "beta") || !strings.Contains(strings.Join(wrote, " "), "pages/alpha.md") || !strings.Contains(strings.Join(wrote, " "), "pages/gamma.md") {
		t.Errorf("approval wrote %v", wrote)
	}
}

// TestReviewElicitationDecline: the person declines the form; nothing under
// the root changes (every file's sha256 but the server's own .llmwiki/ and
// log.md, which may only grow),
// the agent gets an error it cannot take for success, and the audit line
// says declined.
func TestReviewElicitationDecline(t *testing.T) {
	// accept with every box unticked declines too.
	for name, answer := range map[string]string{"decline": "decline", "cancel": "cancel", "accept-none-ticked": "accept:"} {
		t.Run(name, func(t *testing.T) {
			root := reviewWiki(t, "after", map[string]string{"existing": "## Notes\n\nKept.\n"})
			before := treeSums(t, root)
			oldLog, _ := readRel(t, root, "log.md")
			out := reviewFlow(t, root, answer, threeActions())
			// log.md may only have grown by an entry saying what the
			// person decided.
			if newLog, _ := readRel(t, root, "log.md"); !strings.HasPrefix(newLog, oldLog) {
				t.Errorf("log.md was rewritten, not appended to:\n%s", newLog)
			}
			if len(out.Elicitations) != 1 {
				t.Fatalf("%d elicitations, want 1", len(out.Elicitations))
			}
			r := out.Results[0]
			if !r.IsError || !strings.Contains(r.Text, "the person declined change set #1") || !strings.Contains(r.Text, "nothing was written") {
				t.Errorf("declined propose_changes: error %v, %q", r.IsError, r.Text)
			}
			after := treeSums(t, root)
			for p, s := range before {
				if p == "log.md" {
					continue
				}
				if after[p] != s {
					t.Errorf("%s changed (%s → %s)", p, s, after[p])
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s was created", p)
				}
			}
			declined := auditWith(t, root, "decision", "declined")
			if len(declined) != 1 || declined[0].Extra["reviewer"] != "elicitation" || declined[0].Extra["change_set"] != 1.0 {
				t.Fatalf("decline audit lines %+v", declined)
			}
			for _, w := range declined[0].Writes {
				if w.Path != "log.md" {
					t.Errorf("the decline wrote %s", w.Path)
				}
			}
			if got := auditWith(t, root, "decision", "approved"); len(got) != 0 {
				t.Errorf("approved lines after a decline: %+v", got)
			}
		})
	}
}

// TestReviewBeforeDirectWriteAsksOnce: in mode before a plain write_page is
// a one-action change set: one form with one boolean; accepting it (the
// defaults standing) writes the page and returns write_page's own output
// with the review.
func TestReviewBeforeDirectWriteAsksOnce(t *testing.T) {
	root := reviewWiki(t, "before", nil)
	out := reviewFlow(t, root, "accept", writeStep("delta", "Delta", "## Notes\n\nAbout delta.\n"))
	if len(out.Elicitations) != 1 {
		t.Fatalf("%d elicitations, want 1", len(out.Elicitations))
	}
	props := out.Elicitations[0].RequestedSchema.Properties
	if p, ok := props["action_1"]; len(props) != 1 || !ok || p.Type != "boolean" || p.Default == nil || !*p.Default {
		t.Fatalf("requested schema properties %+v, want one boolean action_1 defaulting to true", props)
	}
	if !strings.Contains(out.Elicitations[0].Message, "pages/delta.md created") {
		t.Errorf("message: %s", out.Elicitations[0].Message)
	}
	r := out.Results[0]
	if r.IsError {
		t.Fatalf("write_page: %s", r.Text)
	}
	if _, status, _ := r.reviewOf(t); status != "applied" {
		t.Errorf("review status %q, want applied", status)
	}
	if r.Structured["path"] != "pages/delta.md" {
		t.Errorf("write_page output %v, want its own path", r.Structured)
	}
	got, ok := readRel(t, root, "pages/delta.md")
	if !ok || !strings.HasSuffix(got, "## Notes\n\nAbout delta.\n") {
		t.Errorf("pages/delta.md (exists %v):\n%s", ok, got)
	}
}

// TestReviewBeforePendingApprovedByCLI: a client without elicitation writes
// in mode before; the call returns at once with the set pending and
// nothing written; `llmwiki review --json` lists it; `llmwiki review
// approve N` writes it and the audit line names the cli reviewer.
func TestReviewBeforePendingApprovedByCLI(t *testing.T) {
	root := reviewWiki(t, "before", nil)
	// The agent tries to answer for the person: arguments saying approved
	// approve nothing.
	forged := threeActions()
	forged.Arguments["approved"] = true
	forged.Arguments["selected"] = []int{1, 2, 3}
	forged.Arguments["reviewer"] = "cli"
	out := reviewFlow(t, root, "none",
		writeStep("delta", "Delta", "## Notes\n\nAbout delta.\n"),
		reviewStep{Tool: "load_project", Arguments: map[string]any{}},
		forged,
	)
	if len(out.Elicitations) != 0 {
		t.Fatalf("%d elicitations to a client without the capability", len(out.Elicitations))
	}
	if f := out.Results[2]; !f.IsError {
		if _, status, _ := f.reviewOf(t); status != "pending" {
			t.Errorf("propose_changes with approved/selected/reviewer in its arguments: status %q, want an error or pending", status)
		}
	} else {
		t.Logf("forged approval: %s", f.Text)
	}
	for _, slug := range []string{"alpha", "beta", "gamma"} {
		if _, ok := readRel(t, root, "pages/"+slug+".md"); ok {
			t.Errorf("pages/%s.md written on the agent's word", slug)
		}
	}
	lp := out.Results[1]
	rv, _ := lp.Structured["review"].(map[string]any)
	pend, _ := rv["pending"].([]any)
	if lp.IsError || rv["mode"] != "before" || len(pend) != 1 {
		t.Errorf("load_project review: %v (%s)", rv, lp.Text)
	} else if ps, _ := pend[0].(map[string]any); ps["change_set"] != 1.0 || ps["actions"] != 1.0 || !strings.HasPrefix(fmt.Sprint(ps["proposed_by"]), "llmwiki-e2e-review") {
		t.Errorf("load_project pending set %v", ps)
	}
	r := out.Results[0]
	n, status, msg := r.reviewOf(t)
	if r.IsError || status != "pending" || n != 1 {
		t.Fatalf("write_page: error %v, review #%d %s: %s", r.IsError, n, status, r.Text)
	}
	for _, want := range []string{"change set #1 awaits review", "llmwiki review approve 1", "do not retry"} {
		if !strings.Contains(msg, want) {
			t.Errorf("pending message lacks %q: %s", want, msg)
		}
	}
	if _, ok := readRel(t, root, "pages/delta.md"); ok {
		t.Fatal("a pending write was written")
	}
	// The write_page call's audit line says it went pending, and wrote
	// no page.
	pending := auditWith(t, root, "decision", "pending")
	if len(pending) != 1 || pending[0].Tool != "write_page" || pending[0].Extra["change_set"] != 1.0 {
		t.Fatalf("pending audit lines %+v", pending)
	}
	for _, w := range pending[0].Writes {
		if strings.HasPrefix(w.Path, "pages/") {
			t.Errorf("the pending call wrote %s", w.Path)
		}
	}
	list, stderr, code := reviewCLI(t, root, "--json")
	var l struct {
		Mode    string `json:"mode"`
		Pending []struct {
			Number  int    `json:"number"`
			Op      string `json:"op"`
			Client  string `json:"client"`
			Actions []struct {
				Tool  string `json:"tool"`
				Files []struct {
					Path   string `json:"path"`
					Change string `json:"change"`
				} `json:"files"`
			} `json:"actions"`
		} `json:"pending"`
	}
	if err := json.Unmarshal([]byte(list), &l); code != 0 || err != nil {
		t.Fatalf("review --json: exit %d, %v\n%s%s", code, err, list, stderr)
	}
	if len(l.Pending) > 0 && l.Pending[0].Number == 2 {
		l.Pending = l.Pending[1:] // the forged proposal, if it was kept as a set
	}
	if l.Mode != "before" || len(l.Pending) != 1 || l.Pending[0].Number != 1 || !strings.HasPrefix(l.Pending[0].Client, "llmwiki-e2e-review") ||
		len(l.Pending[0].Actions) != 1 || l.Pending[0].Actions[0].Tool != "write_page" || len(l.Pending[0].Actions[0].Files) != 1 || l.Pending[0].Actions[0].Files[0].Path != "pages/delta.md" {
		t.Fatalf("review --json:\n%s", list)
	}
	stdout, stderr, code := reviewCLI(t, root, "approve", "1")
	if code != 0 {
		t.Fatalf("review approve 1: exit %d\n%s%s", code, stdout, stderr)
	}
	got, ok := readRel(t, root, "pages/delta.md")
	if !ok || !strings.HasSuffix(got, "## Notes\n\nAbout delta.\n") {
		t.Errorf("pages/delta.md after approve (exists %v):\n%s", ok, got)
	}
	approved := auditWith(t, root, "decision", "approved")
	if len(approved) != 1 || approved[0].Extra["reviewer"] != "cli" || approved[0].Tool != "cli:review" || len(approved[0].Writes) == 0 || approved[0].Writes[0].Path != "pages/delta.md" {
		t.Fatalf("approval audit lines %+v", approved)
	}
	list, _, _ = reviewCLI(t, root, "--json")
	l.Pending = nil
	if err := json.Unmarshal([]byte(list), &l); err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Pending {
		if p.Number == 1 {
			t.Errorf("the approved set is still pending:\n%s", list)
		}
	}
}

// TestReviewPendingSameNewSlugConflicts: two pending change sets creating
// the same new page, from the same session or another client's process:
// the second is refused, naming the first.
func TestReviewPendingSameNewSlugConflicts(t *testing.T) {
	root := reviewWiki(t, "before", nil)
	out := reviewFlow(t, root, "none",
		writeStep("delta", "Delta", "## Notes\n\nFirst.\n"),
		writeStep("delta", "Delta", "## Notes\n\nSecond.\n"),
	)
	if n, status, _ := out.Results[0].reviewOf(t); status != "pending" || n != 1 {
		t.Fatalf("first: #%d %s: %s", n, status, out.Results[0].Text)
	}
	r := out.Results[1]
	t.Logf("second write: %s", r.Text)
	if !r.IsError || !strings.Contains(r.Text, "change set #1") || !strings.Contains(r.Text, "pages/delta.md") {
		t.Errorf("second write of the same new page: error %v, %q; want a conflict naming change set #1", r.IsError, r.Text)
	}
	// Another client, in another process, proposing the same new page.
	w := writeStep("delta", "Delta", "## Notes\n\nThird.\n")
	other := reviewFlow(t, root, "none", reviewStep{Tool: "propose_changes", Arguments: map[string]any{
		"takeaways": []string{"Delta again."},
		"actions":   []map[string]any{{"tool": w.Tool, "arguments": w.Arguments}},
	}})
	if r := other.Results[0]; !r.IsError || !strings.Contains(r.Text, "change set #1") {
		t.Errorf("another client's set creating the same page: error %v, %q; want a conflict naming change set #1", r.IsError, r.Text)
	}
	if _, ok := readRel(t, root, "pages/delta.md"); ok {
		t.Error("pages/delta.md written while pending")
	}
	list, _, _ := reviewCLI(t, root, "--json")
	if strings.Count(list, `"number":`) != 1 {
		t.Errorf("want one pending set:\n%s", list)
	}
}

// TestReviewApproveRefusesChangedPage: of a pending set of two actions, the
// edit of a page the person changed meanwhile (in their editor, after a
// second client was refused the held file) is refused on approve; the
// other action still applies and the page keeps the person's bytes.
func TestReviewApproveRefusesChangedPage(t *testing.T) {
	root := reviewWiki(t, "before", map[string]string{"existing": "## Notes\n\nOld line.\n"})
	base := fileSHA(t, root, "pages/existing.md")
	edit := map[string]any{"tool": "edit_page", "arguments": map[string]any{"page": "pages/existing.md", "base_sha256": base, "op": "append", "heading": "Notes", "content": "Agent line.\n"}, "why": "add a line"}
	create := writeStep("fresh", "Fresh", "## Notes\n\nAbout fresh.\n")
	out := reviewFlow(t, root, "none",
		reviewStep{Tool: "propose_changes", Arguments: map[string]any{
			"takeaways": []string{"One edit, one new page."},
			"actions":   []map[string]any{edit, {"tool": create.Tool, "arguments": create.Arguments}},
		}},
	)
	if n, status, _ := out.Results[0].reviewOf(t); status != "pending" || n != 1 {
		t.Fatalf("propose_changes: #%d %s: %s", n, status, out.Results[0].Text)
	}
	// A second client may not write a file the pending set holds.
	setReviewMode(t, root, "off")
	second := reviewFlow(t, root, "none", reviewStep{Tool: "edit_page", Arguments: edit["arguments"].(map[string]any)})
	t.Logf("second client: %s", second.Results[0].Text)
	if r := second.Results[0]; !r.IsError || !strings.Contains(r.Text, "change set #1") {
		t.Errorf("second client's edit of a held page: error %v, %q; want a conflict naming change set #1", r.IsError, r.Text)
	}
	setReviewMode(t, root, "before")
	mine := []byte("---\ntitle: existing\nsummary: about existing\n---\n## Notes\n\nThe person's line.\n")
	if err := os.WriteFile(filepath.Join(root, "pages", "existing.md"), mine, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := reviewCLI(t, root, "approve", "1", "--json")
	if code != 1 {
		t.Errorf("review approve 1 with one action refused: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	var res struct {
		Results []struct {
			N      int    `json:"n"`
			Status string `json:"status"`
			Error  string `json:"error"`
		} `json:"results"`
		Failed int `json:"failed"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("approve --json: %v\n%s%s", err, stdout, stderr)
	}
	status := map[int]string{}
	for _, x := range res.Results {
		status[x.N] = x.Status
		if x.N == 1 && !strings.Contains(x.Error, "pages/existing.md changed since change set #1") {
			t.Errorf("action 1's reason %q does not say the page changed", x.Error)
		}
	}
	t.Logf("approve: %+v", res.Results)
	if res.Failed != 1 || status[1] != "failed" || status[2] != "ok" {
		t.Errorf("results %+v", res)
	}
	if got, _ := readRel(t, root, "pages/existing.md"); got != string(mine) {
		t.Errorf("the person's edit was overwritten:\n%s", got)
	}
	if got, ok := readRel(t, root, "pages/fresh.md"); !ok || !strings.HasSuffix(got, "About fresh.\n") {
		t.Errorf("pages/fresh.md (exists %v):\n%s", ok, got)
	}
}

// TestReviewAfterRevert: in mode after an update of a page applies at once
// without asking and is in `llmwiki review --json` as unreviewed; `llmwiki review revert ID` restores the
// byte-exact previous version and the audit has the revert's line.
func TestReviewAfterRevert(t *testing.T) {
	root := reviewWiki(t, "after", map[string]string{"existing": "## Notes\n\nOld line.  \n\n\ttabbed\n"})
	old, _ := readRel(t, root, "pages/existing.md")
	w := writeStep("existing", "existing", "## Notes\n\nNew line.\n")
	w.Arguments["base_sha256"] = fileSHA(t, root, "pages/existing.md")
	// The client could answer a form, but mode after asks nothing.
	out := reviewFlow(t, root, "accept", w, reviewStep{Tool: "load_project", Arguments: map[string]any{}})
	if len(out.Elicitations) != 0 {
		t.Errorf("%d elicitations in mode after", len(out.Elicitations))
	}
	if rv, _ := out.Results[1].Structured["review"].(map[string]any); rv["mode"] != "after" || rv["unreviewed"] != 1.0 {
		t.Errorf("load_project review after the write: %v", rv)
	}
	if r := out.Results[0]; r.IsError || r.Structured["review"] != nil {
		t.Fatalf("write_page in mode after: error %v, %v: %s", r.IsError, r.Structured, r.Text)
	}
	if now, _ := readRel(t, root, "pages/existing.md"); !strings.HasSuffix(now, "New line.\n") {
		t.Fatalf("mode after did not write at once:\n%s", now)
	}
	list, stderr, code := reviewCLI(t, root, "--json")
	var l struct {
		Unreviewed struct {
			Writes []struct {
				ID     string `json:"id"`
				Tool   string `json:"tool"`
				Status string `json:"status"`
				Files  []struct {
					Path string `json:"path"`
				} `json:"files"`
			} `json:"writes"`
			Total int `json:"total"`
		} `json:"unreviewed"`
	}
	if err := json.Unmarshal([]byte(list), &l); code != 0 || err != nil {
		t.Fatalf("review --json: exit %d, %v\n%s%s", code, err, list, stderr)
	}
	ws := l.Unreviewed.Writes
	if l.Unreviewed.Total != 1 || len(ws) != 1 || ws[0].Tool != "write_page" || ws[0].Status != "unreviewed" || len(ws[0].Files) != 1 || ws[0].Files[0].Path != "pages/existing.md" {
		t.Fatalf("unreviewed writes:\n%s", list)
	}
	id := ws[0].ID
	stdout, stderr, code := reviewCLI(t, root, "revert", id)
	if code != 0 {
		t.Fatalf("review revert %s: exit %d\n%s%s", id, code, stdout, stderr)
	}
	if got, _ := readRel(t, root, "pages/existing.md"); got != old {
		t.Errorf("revert did not restore the previous bytes:\ngot  %q\nwant %q", got, old)
	}
	reverted := auditWith(t, root, "decision", "reverted")
	if len(reverted) != 1 || reverted[0].Extra["reviewer"] != "cli" || len(reverted[0].Writes) == 0 {
		t.Fatalf("revert audit lines %+v", reverted)
	}
	found := false
	for _, p := range reverted[0].Writes {
		found = found || p.Path == "pages/existing.md"
	}
	if ids, _ := reverted[0].Extra["writes"].([]any); !found || len(ids) != 1 || ids[0] != id {
		t.Errorf("revert line %+v, want it to write pages/existing.md and name %s", reverted[0], id)
	}
	if list, _, _ := reviewCLI(t, root, "--json"); !strings.Contains(list, `"total": 0`) {
		t.Errorf("the reverted write still awaits review:\n%s", list)
	}
}

// TestReviewBeforeApplyPlanNeedsThePerson: in mode before, apply_plan of a
// model plan goes through the person whatever the agent selected: without
// elicitation it stays pending until `llmwiki review approve N`; with it,
// the agent's selected are only the form's default ticks and the person's
// answer decides.
func TestReviewBeforeApplyPlanNeedsThePerson(t *testing.T) {
	steps := []reviewStep{
		{Tool: "save_source", Arguments: map[string]any{"path": "sources/wal.md", "content": "# WAL\n\nSQLite's write-ahead log lets readers continue while a writer appends.\n"}},
		{Tool: "propose_plan", Arguments: map[string]any{"operation": "ingest", "path": "sources/wal.md"}},
		{Tool: "apply_plan", Arguments: map[string]any{"plan_id": "$1.plan_id", "selected": []int{1}}},
	}
	flow := func(t *testing.T, root, person string) reviewFlowOut {
		srv := modeltest.New(t, ingestReply())
		serveArgs, _ := json.Marshal([]string{"--base-url", srv.BaseURL(), "--model", "test-model"})
		out := runReviewFlow(t, []string{"--bin", binary(t), "--root", root, "--serve-args", string(serveArgs)}, person, steps)
		for i, r := range out.Results[:2] {
			if r.IsError {
				t.Fatalf("step %d %s: %s", i, r.Tool, r.Text)
			}
		}
		return out
	}
	exists := func(t *testing.T, root string, want map[string]bool) {
		t.Helper()
		for slug, w := range want {
			if _, ok := readRel(t, root, "pages/"+slug+".md"); ok != w {
				t.Errorf("pages/%s.md exists %v, want %v", slug, ok, w)
			}
		}
	}
	t.Run("pending", func(t *testing.T) {
		root := reviewWiki(t, "before", nil)
		out := flow(t, root, "none")
		r := out.Results[2]
		n, status, msg := r.reviewOf(t)
		if r.IsError || status != "pending" || n < 1 || !strings.Contains(msg, fmt.Sprintf("plan #%d awaits review", n)) {
			t.Fatalf("apply_plan in mode before: error %v, #%d %s: %s", r.IsError, n, status, r.Text)
		}
		exists(t, root, map[string]bool{"sqlite-wal": false, "sqlite-checkpoints": false})
		if stdout, stderr, code := reviewCLI(t, root, "approve", fmt.Sprint(n), "--only", "2"); code != 0 {
			t.Fatalf("review approve %d --only 2: exit %d\n%s%s", n, code, stdout, stderr)
		}
		exists(t, root, map[string]bool{"sqlite-wal": false, "sqlite-checkpoints": true})
	})
	t.Run("elicitation", func(t *testing.T) {
		root := reviewWiki(t, "before", nil)
		out := flow(t, root, "accept:2")
		if len(out.Elicitations) != 1 {
			t.Fatalf("%d elicitations, want 1", len(out.Elicitations))
		}
		props := out.Elicitations[0].RequestedSchema.Properties
		if d1, d2 := props["action_1"].Default, props["action_2"].Default; len(props) != 2 || d1 == nil || !*d1 || d2 == nil || *d2 {
			t.Errorf("form properties %+v, want action_1 ticked and action_2 not (the agent's selected)", props)
		}
		if r := out.Results[2]; r.IsError {
			t.Fatalf("apply_plan: %s", r.Text)
		}
		exists(t, root, map[string]bool{"sqlite-wal": false, "sqlite-checkpoints": true})
		approved := auditWith(t, root, "decision", "approved")
		if len(approved) != 1 || approved[0].Extra["reviewer"] != "elicitation" {
			t.Errorf("approval audit lines %+v", approved)
		}
	})
}

// TestReviewCLIApprovalSeenByTheRunningServer: a set pending in a running
// server is approved on the command line while the agent's session stays
// open; the session then reads the approved page and updates it (the
// file is no longer held), as an agent carries on after the person
// approved in a terminal.
func TestReviewCLIApprovalSeenByTheRunningServer(t *testing.T) {
	root := reviewWiki(t, "before", nil)
	bin := binary(t)
	dir := e2eDir(t)
	steps := []reviewStep{
		writeStep("delta", "Delta", "## Notes\n\nAbout delta.\n"),
		{Tool: "$pause"},
		{Tool: "read_page", Arguments: map[string]any{"path": "pages/delta.md"}},
		{Tool: "edit_page", Arguments: map[string]any{"page": "pages/delta.md", "base_sha256": "$2.sha256", "op": "append", "heading": "Notes", "content": "More.\n"}},
	}
	b, _ := json.Marshal(steps)
	sf := filepath.Join(t.TempDir(), "steps.json")
	if err := os.WriteFile(sf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(dir, "review_flow.mjs"), "--bin", bin, "--root", root, "--steps", sf, "--person", "none")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for paused := false; !paused; {
		select {
		case err := <-done:
			t.Fatalf("review_flow ended before its pause: %v\n%s%s", err, out.String(), errb.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("review_flow did not pause:\n%s", errb.String())
		case <-time.After(50 * time.Millisecond):
			_, err := os.Stat(sf + ".paused")
			paused = err == nil
		}
	}
	if stdout, stderr, code := reviewCLI(t, root, "approve", "1"); code != 0 {
		t.Errorf("review approve 1: exit %d\n%s%s", code, stdout, stderr)
	}
	// The session's next write of the page is itself a change set (mode
	// before): it must be proposed, not refused as held by set 1.
	if err := os.WriteFile(sf+".resume", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("review_flow: %v\n%s", err, errb.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("review_flow did not finish:\n%s", errb.String())
	}
	var r reviewFlowOut
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Results) != len(steps) {
		t.Fatalf("review_flow output: %v\n%s", err, out.String())
	}
	if rd := r.Results[2]; rd.IsError || !strings.Contains(fmt.Sprint(rd.Structured["content"]), "About delta.") {
		t.Errorf("read_page after the approval: error %v, %s %v", rd.IsError, rd.Text, rd.Structured)
	}
	ed := r.Results[3]
	t.Logf("edit after approval: %s", ed.Text)
	if ed.IsError {
		t.Fatalf("edit_page after the approval: %s", ed.Text)
	}
	if n, status, _ := ed.reviewOf(t); status != "pending" || n != 2 {
		t.Errorf("edit_page after the approval: #%d %s, want change set #2 pending", n, status)
	}
}

// TestReviewOffAsksAndQueuesNothing: in mode off a write applies at once,
// asks nothing and waits in no queue.
func TestReviewOffAsksAndQueuesNothing(t *testing.T) {
	root := reviewWiki(t, "off", nil)
	out := reviewFlow(t, root, "accept", writeStep("delta", "Delta", "## Notes\n\nAbout delta.\n"))
	if r := out.Results[0]; r.IsError || r.Structured["review"] != nil || len(out.Elicitations) != 0 {
		t.Fatalf("write_page in mode off: error %v, %d elicitations, %v", r.IsError, len(out.Elicitations), r.Structured)
	}
	if _, ok := readRel(t, root, "pages/delta.md"); !ok {
		t.Error("pages/delta.md not written")
	}
	if list, stderr, code := reviewCLI(t, root, "--json"); code != 0 || !strings.Contains(list, `"total": 0`) || !strings.Contains(list, `"mode": "off"`) {
		t.Errorf("review --json in mode off: exit %d\n%s%s", code, list, stderr)
	}
}

// TestReviewEveryWriteToolInOneSet: a change set with one action of each
// direct write tool (write_page, edit_page, move_page,
// atomic_write_context), proposed by a client without elicitation and
// approved whole on the command line: each runs as its tool would, and
// the approval's audit line lists every file written.
func TestReviewEveryWriteToolInOneSet(t *testing.T) {
	root := reviewWiki(t, "before", map[string]string{"existing": "## Notes\n\nOld line.\n", "mover": "## Notes\n\nTo move.\n"})
	create := writeStep("fresh", "Fresh", "## Notes\n\nAbout fresh.\n")
	actions := []map[string]any{
		{"tool": create.Tool, "arguments": create.Arguments},
		{"tool": "edit_page", "arguments": map[string]any{"page": "pages/existing.md", "base_sha256": fileSHA(t, root, "pages/existing.md"), "op": "append", "heading": "Notes", "content": "Agent line.\n"}},
		{"tool": "move_page", "arguments": map[string]any{"page": "pages/mover.md", "slug": "moved", "base_sha256": fileSHA(t, root, "pages/mover.md")}},
		{"tool": "atomic_write_context", "arguments": map[string]any{"content": "# Synthesis\n\nFresh, existing and moved.\n", "base_sha256": fileSHA(t, root, "context.md")}},
	}
	before := treeSums(t, root)
	out := reviewFlow(t, root, "none", reviewStep{Tool: "propose_changes", Arguments: map[string]any{"takeaways": []string{"Every kind of write."}, "actions": actions}})
	r := out.Results[0]
	if n, status, _ := r.reviewOf(t); r.IsError || status != "pending" || n != 1 {
		t.Fatalf("propose_changes: #%d %s: %s", n, status, r.Text)
	}
	files := map[string]string{}
	for _, a := range r.Structured["actions"].([]any) {
		for _, f := range a.(map[string]any)["files"].([]any) {
			fm := f.(map[string]any)
			files[fm["path"].(string)] = fm["change"].(string)
		}
	}
	for path, change := range map[string]string{"pages/fresh.md": "created", "pages/existing.md": "updated", "pages/mover.md": "deleted", "pages/moved.md": "created", "context.md": "updated"} {
		if files[path] != change {
			t.Errorf("proposed files %v: want %s %s", files, path, change)
		}
	}
	if after := treeSums(t, root); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a pending set changed files:\nbefore %v\nafter  %v", before, after)
	}
	if stdout, stderr, code := reviewCLI(t, root, "approve", "1"); code != 0 {
		t.Fatalf("review approve 1: exit %d\n%s%s", code, stdout, stderr)
	}
	for rel, want := range map[string]string{"pages/fresh.md": "About fresh.\n", "pages/existing.md": "Agent line.\n", "pages/moved.md": "To move.\n", "context.md": "Fresh, existing and moved.\n"} {
		if got, ok := readRel(t, root, rel); !ok || !strings.Contains(got, want) {
			t.Errorf("%s (exists %v) lacks %q:\n%s", rel, ok, want, got)
		}
	}
	if _, ok := readRel(t, root, "pages/mover.md"); ok {
		t.Error("pages/mover.md is still there after the move")
	}
	approved := auditWith(t, root, "decision", "approved")
	if len(approved) != 1 {
		t.Fatalf("approval audit lines %+v", approved)
	}
	wrote := map[string]bool{}
	for _, w := range approved[0].Writes {
		wrote[w.Path] = true
	}
	for _, p := range []string{"pages/fresh.md", "pages/existing.md", "pages/mover.md", "pages/moved.md", "context.md"} {
		if !wrote[p] {
			t.Errorf("the approval's audit line does not list %s: %v", p, approved[0].Writes)
		}
	}
}

// TestReviewElicitationErrorLeavesPending: a client that declared
// elicitation but answers the form with an error approves nothing: the
// set stays pending, saying why, and the person can still approve it.
func TestReviewElicitationErrorLeavesPending(t *testing.T) {
	root := reviewWiki(t, "before", nil)
	out := reviewFlow(t, root, "error", writeStep("delta", "Delta", "## Notes\n\nAbout delta.\n"))
	r := out.Results[0]
	n, status, msg := r.reviewOf(t)
	if len(out.Elicitations) != 1 || r.IsError || status != "pending" || n != 1 || !strings.Contains(msg, "change set #1 awaits review (") {
		t.Fatalf("after a failed form: %d elicitations, error %v, #%d %s: %s", len(out.Elicitations), r.IsError, n, status, msg)
	}
	t.Logf("pending: %s", msg)
	if _, ok := readRel(t, root, "pages/delta.md"); ok {
		t.Fatal("written without an answer")
	}
	if got := auditWith(t, root, "decision", "approved"); len(got) != 0 {
		t.Errorf("approved without an answer: %+v", got)
	}
	if stdout, stderr, code := reviewCLI(t, root, "approve", "1"); code != 0 {
		t.Fatalf("review approve 1: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, ok := readRel(t, root, "pages/delta.md"); !ok {
		t.Error("pages/delta.md not written after approve")
	}
}
