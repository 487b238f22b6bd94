package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// queuedWrites makes a wiki holding two writes an agent made in mode after
// (as the tools layer marks them): alpha created, then alpha rewritten.
// It returns the root and the two audit ids.
func queuedWrites(t *testing.T) (root, created, updated string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := ""
	write := func(content string) string {
		c := store.NewCall("write_page", "s-agent", nil)
		c.Client = "test-agent 1.0"
		c.SetExtra(review.MarkKey, wiki.ReviewAfter)
		w, err := st.WritePage(store.WithCall(context.Background(), c), wiki.PageInput{Title: "Alpha", Content: content, BaseSHA256: base})
		if err == nil {
			base = w.SHA256
		}
		if aerr := st.Audit(c, err); aerr != nil {
			t.Fatal(aerr)
		}
		if err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	created = write("Alpha is the first letter.\n")
	updated = write("Alpha is the first letter of the Greek alphabet.\n")
	return root, created, updated
}

// reviewAudit is the last audit line of the command line's review.
func reviewAudit(t *testing.T, root string) store.AuditRecord {
	t.Helper()
	rec := teststore.LastCall(t, root, "cli:review")
	if rec == nil {
		t.Fatal("no cli:review audit line")
	}
	return *rec
}

func statusReviewOf(t *testing.T, root string) statusReview {
	t.Helper()
	out, errOut, err := runIn(t, "", nil, "status", "--root", root, "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, errOut)
	}
	var s wikiStatus
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, out)
	}
	return s.Review
}

// TestReviewRevertRestoresAndAccept reverts the rewrite of a page from the
// command line (the file is byte for byte the version before, the call is
// audited as the CLI's with reviewer cli), accepts the rest with --all, and
// checks status counts what is left each time.
func TestReviewRevertRestoresAndAccept(t *testing.T) {
	root, created, updated := queuedWrites(t)
	page := filepath.Join(root, "pages", "alpha.md")
	if got := statusReviewOf(t, root); got.Mode != wiki.ReviewAfter || got.Unreviewed != 2 || got.Error != "" {
		t.Fatalf("status review %+v, want mode after, 2 unreviewed", got)
	}
	text, _, err := runIn(t, "", nil, "status", "--root", root)
	if err != nil || !strings.Contains(text, "review (mode after): 0 change sets awaiting approval, 2 unreviewed writes to accept or revert (llmwiki review)") {
		t.Errorf("status text (%v) does not count what awaits review:\n%s", err, text)
	}
	text, _, err = runIn(t, "", nil, "orient", "--root", root)
	if err != nil || !strings.Contains(text, "Review mode: after") || !strings.Contains(text, "Unreviewed writes: 2") {
		t.Errorf("orient (%v) does not say what awaits review:\n%s", err, text)
	}
	// The version before the rewrite, as the first write left it.
	first := func() string {
		t.Helper()
		snaps, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "snapshots", "pages", "alpha.md", "*"))
		if len(snaps) != 1 {
			t.Fatalf("snapshots of alpha: %v", snaps)
		}
		b, _ := os.ReadFile(snaps[0])
		return string(b)
	}()
	if !strings.Contains(first, "first letter.\n") {
		t.Fatalf("snapshot %q is not the first version", first)
	}

	out, errOut, err := runIn(t, "", nil, "review", "revert", updated, "--root", root)
	if err != nil {
		t.Fatalf("revert: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "Reverted "+updated) || !strings.Contains(out, "pages/alpha.md") {
		t.Errorf("revert said %q", out)
	}
	if b, _ := os.ReadFile(page); string(b) != first {
		t.Errorf("alpha after revert:\n%s\nwant the version before:\n%s", b, first)
	}
	rec := reviewAudit(t, root)
	if rec.Tool != "cli:review" || rec.Client != reviewClient || rec.Outcome != "ok" || rec.Extra["reviewer"] != review.ByCLI {
		t.Errorf("audit of the revert: tool %q client %q outcome %q extra %v", rec.Tool, rec.Client, rec.Outcome, rec.Extra)
	}
	if len(rec.Writes) == 0 || rec.Writes[0].Path != "pages/alpha.md" {
		t.Errorf("audit of the revert names writes %+v", rec.Writes)
	}
	if got := statusReviewOf(t, root); got.Unreviewed != 1 {
		t.Errorf("after the revert status counts %d unreviewed, want 1", got.Unreviewed)
	}

	// Reverting it again is a conflict a person can act on: exit 1, one line.
	_, errOut, err = runIn(t, "", nil, "review", "revert", updated, "--root", root)
	if !errors.Is(err, exitCode(1)) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "already reverted") {
		t.Errorf("second revert: err %v, stderr %q", err, errOut)
	}

	out, errOut, err = runIn(t, "", nil, "review", "accept", "--all", "--root", root, "--json")
	if err != nil {
		t.Fatalf("accept --all: %v\n%s", err, errOut)
	}
	var acc struct {
		Accepted *int `json:"accepted"`
	}
	if err := json.Unmarshal([]byte(out), &acc); err != nil || acc.Accepted == nil || *acc.Accepted != 1 {
		t.Errorf("accept --all --json: %q (%v)", out, err)
	}
	if got := statusReviewOf(t, root); got.Unreviewed != 0 {
		t.Errorf("after accept --all status counts %d unreviewed", got.Unreviewed)
	}
	// created is decided now: accepting it again names it.
	_, errOut, err = runIn(t, "", nil, "review", "accept", created, "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, created) {
		t.Errorf("accepting a decided write: err %v, stderr %q", err, errOut)
	}
}

// TestReviewUsageErrors: a malformed number or id is refused before the
// wiki is opened, with a message saying what to give (exit status 2, as
// main gives any plain error); a well-formed one that names nothing is
// exit status 1.
func TestReviewUsageErrors(t *testing.T) {
	root, _, _ := queuedWrites(t)
	usage := []struct {
		args []string
		want string
	}{
		{[]string{"approve", "abc"}, "not a change set number"},
		{[]string{"approve", "0"}, "not a change set number"},
		{[]string{"approve", "#0"}, "not a change set number"},
		{[]string{"approve", "+3"}, "not a change set number"},
		{[]string{"approve"}, "takes one change set number"},
		{[]string{"decline", "1", "2"}, "takes one change set number"},
		{[]string{"show", "x1"}, "not a change set number"},
		{[]string{"revert", "42"}, "not a write id"},
		{[]string{"accept"}, "--all"},
		{[]string{"accept", "a-0123456789ab", "--all"}, "not both"},
		{[]string{"decline", "1", "--only", "2"}, "--only is for review approve"},
		{[]string{"list", "extra"}, "no arguments"},
		{[]string{"frobnicate"}, "unknown review subcommand"},
	}
	for _, tc := range usage {
		args := append([]string{"review", "--root", root}, tc.args...)
		_, _, err := runIn(t, "", nil, args...)
		var code exitCode
		if err == nil || errors.As(err, &code) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("review %v: err %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	_, errOut, err := runIn(t, "", nil, "review", "revert", "a-0123456789ab", "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, "a-0123456789ab") {
		t.Errorf("revert of an unknown write: err %v, stderr %q", err, errOut)
	}
}

// TestReviewDiffColour: a diff is coloured (red removed, green added) only
// when asked for a terminal; never with NO_COLOR or into a pipe or file.
func TestReviewDiffColour(t *testing.T) {
	diff := "--- a/pages/a.md\n+++ b/pages/a.md\n@@ -1 +1 @@\n-old\n+new\n same\n"
	var plain, col strings.Builder
	writeDiff(&plain, diff, false, "")
	writeDiff(&col, diff, true, "")
	if plain.String() != diff || strings.Contains(plain.String(), "\x1b") {
		t.Errorf("uncoloured diff changed:\n%q", plain.String())
	}
	for _, want := range []string{ansiRed + "-old" + ansiReset, ansiGreen + "+new" + ansiReset, "--- a/pages/a.md\n", "+++ b/pages/a.md\n", " same\n"} {
		if !strings.Contains(col.String(), want) {
			t.Errorf("coloured diff lacks %q:\n%q", want, col.String())
		}
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colourOn(env{stdout: f, getenv: func(string) string { return "" }}) {
		t.Error("colour on for a file")
	}
	if colourOn(env{stdout: &strings.Builder{}, getenv: func(string) string { return "" }}) {
		t.Error("colour on for a buffer")
	}
}

// TestReviewExitStatusBinary runs the built binary: a malformed id is exit
// status 2, a write that does not exist 1, each said in one line on
// stderr; a revert that works is 0 and says what it restored.
func TestReviewExitStatusBinary(t *testing.T) {
	bin := binary(t)
	root, _, updated := queuedWrites(t)
	cases := []struct {
		args   []string
		status int
		stderr string
		stdout string
	}{
		{[]string{"revert", "abc"}, 2, `"abc" is not a write id`, ""},
		{[]string{"approve", "x"}, 2, `"x" is not a change set number`, ""},
		{[]string{"revert", "a-0123456789ab"}, 1, "a-0123456789ab", ""},
		{[]string{"revert", updated}, 0, "", "Reverted " + updated},
	}
	for _, tc := range cases {
		cmd := exec.Command(bin, append([]string{"review", "--root", root}, tc.args...)...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || !strings.Contains(errb.String(), tc.stderr) || !strings.Contains(out.String(), tc.stdout) {
			t.Errorf("review %v: exit %d, stdout %q, stderr %q; want exit %d saying %q / %q", tc.args, status, out.String(), errb.String(), tc.status, tc.stdout, tc.stderr)
		}
		if tc.status != 0 && (strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 || !strings.HasPrefix(errb.String(), "llmwiki: ")) {
			t.Errorf("review %v: stderr is not one llmwiki: line: %q", tc.args, errb.String())
		}
	}
}

// proposeSet saves a change set of write_page actions creating the pages
// titled titles, as an agent's propose_changes would, and returns it.
func proposeSet(t *testing.T, root string, titles ...string) *plan.Plan {
	t.Helper()
	st, err := wiki.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	in := review.ProposeInput{Takeaways: []string{"The letters come in order."}, Client: "test-agent 1.0", Session: "s-agent"}
	for _, title := range titles {
		args, _ := json.Marshal(map[string]any{"title": title, "content": title + " is a letter.\nIt has a page.\n"})
		in.Actions = append(in.Actions, review.ActionInput{Tool: "write_page", Arguments: args})
	}
	c := store.NewCall("propose_changes", "s-agent", nil)
	p, err := app.New(st, app.Options{NoSearch: true}).Review.Propose(store.WithCall(context.Background(), c), in)
	if aerr := st.Audit(c, err); aerr != nil {
		t.Fatal(aerr)
	}
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	return p
}

// pagesOf lists the files under pages/ with their content, and context.md.
func pagesOf(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for k, v := range treeOf(t, root) {
		if strings.HasPrefix(k, "pages"+string(filepath.Separator)) || k == "context.md" {
			m[k] = v
		}
	}
	return m
}

// TestReviewChangeSetListShowApproveOnly lists a pending three-action
// change set (text and --json), shows its diffs, and approves only action
// 2: exactly that page is written, in an audited call of the CLI's with
// reviewer cli, and the set is no longer pending.
func TestReviewChangeSetListShowApproveOnly(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := proposeSet(t, root, "Alpha", "Beta", "Gamma")
	num := strconv.Itoa(p.Number)
	if p.Number < 1 {
		t.Fatalf("change set has no number: %+v", p)
	}

	out, errOut, err := runIn(t, "", nil, "review", "--root", root, "--json")
	if err != nil {
		t.Fatalf("review --json: %v\n%s", err, errOut)
	}
	var list struct {
		Mode    string `json:"mode"`
		Pending []struct {
			Number    int      `json:"number"`
			Op        string   `json:"op"`
			Client    string   `json:"client"`
			Created   string   `json:"created"`
			Expires   string   `json:"expires"`
			Takeaways []string `json:"takeaways"`
			Actions   []struct {
				Tool  string `json:"tool"`
				Files []struct {
					Path    string `json:"path"`
					Change  string `json:"change"`
					Added   int    `json:"lines_added"`
					Removed *int   `json:"lines_removed"`
				} `json:"files"`
			} `json:"actions"`
			Diffs json.RawMessage `json:"diffs"`
		} `json:"pending"`
		Unreviewed struct {
			Writes []json.RawMessage `json:"writes"`
			Total  *int              `json:"total"`
		} `json:"unreviewed"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("review --json: %v\n%s", err, out)
	}
	if list.Mode != wiki.ReviewAfter || len(list.Pending) != 1 || list.Unreviewed.Total == nil || *list.Unreviewed.Total != 0 || list.Unreviewed.Writes == nil {
		t.Fatalf("review --json: %s", out)
	}
	s := list.Pending[0]
	if s.Number != p.Number || s.Op != plan.OpChangeSet || s.Client != "test-agent 1.0" || s.Created == "" || s.Expires == "" || len(s.Takeaways) != 1 || len(s.Actions) != 3 || s.Diffs != nil {
		t.Errorf("pending set: %+v", s)
	}
	for i, want := range []string{"pages/alpha.md", "pages/beta.md", "pages/gamma.md"} {
		a := s.Actions[i]
		if a.Tool != "write_page" || len(a.Files) != 1 || a.Files[0].Path != want || a.Files[0].Change != "created" || a.Files[0].Added < 2 || a.Files[0].Removed == nil {
			t.Errorf("action %d: %+v, want write_page creating %s", i+1, a, want)
		}
	}

	text, _, err := runIn(t, "", nil, "review", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Change set #" + num + " by test-agent 1.0", "The letters come in order.", "[2] write_page: created pages/beta.md +", "llmwiki review approve N"} {
		if !strings.Contains(text, want) {
			t.Errorf("review text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "+Beta is a letter.") {
		t.Errorf("review without --diff printed diffs:\n%s", text)
	}
	text, _, err = runIn(t, "", nil, "review", "show", "#"+num, "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "+Beta is a letter.") || !strings.Contains(text, "+Gamma is a letter.") || strings.Contains(text, "\x1b[") {
		t.Errorf("review show lacks the diffs (or is coloured into a buffer):\n%s", text)
	}
	out, _, err = runIn(t, "", nil, "review", "show", num, "--root", root, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Number int `json:"number"`
		Diffs  []struct {
			N     int               `json:"n"`
			Files []review.FileDiff `json:"files"`
		} `json:"diffs"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.Number != p.Number || len(shown.Diffs) != 3 || shown.Diffs[1].N != 2 ||
		len(shown.Diffs[1].Files) != 1 || shown.Diffs[1].Files[0].Path != "pages/beta.md" || !strings.Contains(shown.Diffs[1].Files[0].Diff, "+Beta is a letter.") {
		t.Errorf("review show --json (%v): %s", err, out)
	}

	before := pagesOf(t, root)
	out, errOut, err = runIn(t, "", nil, "review", "approve", num, "--only", "2", "--root", root)
	if err != nil {
		t.Fatalf("approve --only 2: %v\n%s%s", err, out, errOut)
	}
	after := pagesOf(t, root)
	beta := filepath.Join("pages", "beta.md")
	if !strings.Contains(after[beta], "Beta is a letter.") {
		t.Errorf("pages/beta.md not written: %q", after[beta])
	}
	for k, v := range after {
		if k != beta && before[k] != v {
			t.Errorf("approve --only 2 wrote %s", k)
		}
	}
	for _, k := range []string{filepath.Join("pages", "alpha.md"), filepath.Join("pages", "gamma.md")} {
		if _, ok := after[k]; ok {
			t.Errorf("approve --only 2 wrote %s", k)
		}
	}
	if !strings.HasPrefix(out, "Applied 1 of 1 approved action(s) of change set #"+num+":\n") || !strings.Contains(out, "[2] ok") || !strings.Contains(out, "pages/beta.md") {
		t.Errorf("approve said (it starts with its result, no blank line):\n%q", out)
	}
	rec := reviewAudit(t, root)
	if rec.Tool != "cli:review" || rec.Client != reviewClient || rec.Outcome != "ok" || rec.Extra["reviewer"] != review.ByCLI {
		t.Errorf("audit of the approval: tool %q client %q outcome %q extra %v", rec.Tool, rec.Client, rec.Outcome, rec.Extra)
	}
	wrote := false
	for _, w := range rec.Writes {
		wrote = wrote || w.Path == "pages/beta.md"
	}
	if !wrote {
		t.Errorf("the approval's audit line does not record pages/beta.md: %+v", rec.Writes)
	}
	out, _, _ = runIn(t, "", nil, "review", "--root", root, "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Pending) != 0 {
		t.Errorf("still pending after the approval: %s", out)
	}
	// Approving it again is a conflict, exit 1.
	_, errOut, err = runIn(t, "", nil, "review", "approve", num, "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, "not pending") {
		t.Errorf("second approve: err %v, stderr %q", err, errOut)
	}
}

// TestReviewDeclineWritesNothing declines a pending set: no page or
// context.md changes, the set ends declined, and the decision is audited.
func TestReviewDeclineWritesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := proposeSet(t, root, "Delta", "Epsilon")
	before := pagesOf(t, root)
	out, errOut, err := runIn(t, "", nil, "review", "decline", strconv.Itoa(p.Number), "--root", root, "--json")
	if err != nil {
		t.Fatalf("decline: %v\n%s", err, errOut)
	}
	var got plan.Plan
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Status != plan.StatusDeclined || got.Number != p.Number || got.Reviewer != review.ByCLI {
		t.Errorf("decline --json (%v): %s", err, out)
	}
	after := pagesOf(t, root)
	if len(after) != len(before) {
		t.Errorf("decline changed the pages: %d files before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Errorf("decline changed %s", k)
		}
	}
	rec := reviewAudit(t, root)
	if rec.Tool != "cli:review" || rec.Client != reviewClient || rec.Outcome != "ok" || rec.Extra["decision"] != "declined" || len(rec.Writes) != 0 && hasReviewed(rec.Writes) {
		t.Errorf("audit of the decline: %+v", rec)
	}
	_, errOut, err = runIn(t, "", nil, "review", "approve", strconv.Itoa(p.Number), "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, "declined") {
		t.Errorf("approving a declined set: err %v, stderr %q", err, errOut)
	}
	_, errOut, err = runIn(t, "", nil, "review", "show", "99", "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, "#99 does not exist") {
		t.Errorf("show 99: err %v, stderr %q", err, errOut)
	}
}

func hasReviewed(ws []store.WriteRecord) bool {
	for _, w := range ws {
		if review.Reviewed(w.Path) {
			return true
		}
	}
	return false
}

// TestReviewApproveConflictIsExitOne: an action whose page changed since
// the proposal is refused with its reason, the other still applies, and
// the command exits 1.
func TestReviewApproveConflictIsExitOne(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := proposeSet(t, root, "Zeta", "Eta")
	// Zeta is created meanwhile by hand.
	if err := os.WriteFile(filepath.Join(root, "pages", "zeta.md"), []byte("---\ntitle: Zeta\n---\nBy hand.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runIn(t, "", nil, "review", "approve", strconv.Itoa(p.Number), "--root", root)
	if !errors.Is(err, exitCode(1)) || !strings.Contains(errOut, "1 of the 2 selected actions") {
		t.Fatalf("approve with a conflict: err %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	if !strings.Contains(out, "[1] failed") || !strings.Contains(out, "changed since") || !strings.Contains(out, "[2] ok") {
		t.Errorf("approve said:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "pages", "zeta.md")); !strings.Contains(string(b), "By hand.") {
		t.Errorf("zeta overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "pages", "eta.md")); !strings.Contains(string(b), "Eta is a letter.") {
		t.Errorf("eta not written: %q", b)
	}
}

// TestReviewApprovesAModelPlan: a model's pending ingest plan is listed by
// review beside the change sets and approved by number like them.
func TestReviewApprovesAModelPlan(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	srv := modeltest.New(t, ingestReply())
	out, errOut, err := runCLI(t, "SQLite keeps a write-ahead log.\n", "ingest", "--root", root, "--base-url", srv.BaseURL(), "--as", "wal.md", "-")
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, errOut)
	}
	m := regexp.MustCompile(`llmwiki review approve (\d+) --only`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("ingest does not say how to approve with llmwiki review:\n%s", out)
	}
	text, _, err := runIn(t, "", nil, "review", "--root", root)
	if err != nil || !strings.Contains(text, "#"+m[1]+" Plan p-") || !strings.Contains(text, "[2] create page pages/sqlite-checkpoints.md") {
		t.Errorf("review (%v) does not list the plan:\n%s", err, text)
	}
	out, errOut, err = runIn(t, "", nil, "review", "approve", m[1], "--only", "2", "--root", root, "--json")
	if err != nil {
		t.Fatalf("approve: %v\n%s", err, errOut)
	}
	var got struct {
		Op       string        `json:"op"`
		Status   string        `json:"status"`
		Reviewer string        `json:"reviewer"`
		Failed   *int          `json:"failed"`
		Results  []plan.Result `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Op != "ingest" || got.Status != plan.StatusApplied || got.Reviewer != review.ByCLI || got.Failed == nil || *got.Failed != 0 || len(got.Results) != 1 || got.Results[0].Path != "pages/sqlite-checkpoints.md" {
		t.Errorf("approve --json (%v): %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-checkpoints.md")); err != nil {
		t.Error("approved action did not run")
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err == nil {
		t.Error("unapproved action ran")
	}
}

// TestReviewPagesAndAcceptsByID pages the unreviewed writes with --limit
// and --cursor (next_cursor absent on the last page, total every write),
// then accepts one by id.
func TestReviewPagesAndAcceptsByID(t *testing.T) {
	root, created, updated := queuedWrites(t)
	type page struct {
		Unreviewed struct {
			Writes []struct {
				ID    string              `json:"id"`
				Files []store.WriteRecord `json:"files"`
			} `json:"writes"`
			Total      int     `json:"total"`
			NextCursor *string `json:"next_cursor"`
		} `json:"unreviewed"`
	}
	list := func(args ...string) page {
		t.Helper()
		out, errOut, err := runIn(t, "", nil, append([]string{"review", "--root", root, "--json", "--limit", "1"}, args...)...)
		if err != nil {
			t.Fatalf("review %v: %v\n%s", args, err, errOut)
		}
		var p page
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("review --json: %v\n%s", err, out)
		}
		return p
	}
	first := list()
	if len(first.Unreviewed.Writes) != 1 || first.Unreviewed.Writes[0].ID != updated || first.Unreviewed.Total != 2 || first.Unreviewed.NextCursor == nil {
		t.Fatalf("first page: %+v", first.Unreviewed)
	}
	if f := first.Unreviewed.Writes[0].Files; len(f) != 1 || f[0].Path != "pages/alpha.md" || f[0].Before == "" || f[0].After == "" {
		t.Errorf("first page's files: %+v", f)
	}
	second := list("--cursor", *first.Unreviewed.NextCursor)
	if len(second.Unreviewed.Writes) != 1 || second.Unreviewed.Writes[0].ID != created || second.Unreviewed.Total != 2 || second.Unreviewed.NextCursor != nil {
		t.Fatalf("second page: %+v", second.Unreviewed)
	}
	out, errOut, err := runIn(t, "", nil, "review", "accept", created, "--root", root)
	if err != nil || !strings.Contains(out, "Accepted 1 write.") {
		t.Fatalf("accept %s: %v\n%s%s", created, err, out, errOut)
	}
	if rec := reviewAudit(t, root); rec.Extra["decision"] != "accepted" || rec.Extra["reviewer"] != review.ByCLI {
		t.Errorf("audit of the accept: %v", rec.Extra)
	}
	if p := list(); p.Unreviewed.Total != 1 || p.Unreviewed.Writes[0].ID != updated {
		t.Errorf("after accepting %s: %+v", created, p.Unreviewed)
	}
}
