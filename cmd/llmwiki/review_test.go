package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/store"
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

// lastAudit is the last line of the wiki's audit log.
func lastAudit(t *testing.T, root string) store.AuditRecord {
	t.Helper()
	ents, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	var recs []store.AuditRecord
	for _, f := range ents {
		b, _ := os.ReadFile(f)
		r, _ := store.ParseAuditLines(b)
		recs = append(recs, r...)
	}
	if len(recs) == 0 {
		t.Fatal("no audit line")
	}
	last := recs[0]
	for _, r := range recs {
		if !r.Time.Before(last.Time) {
			last = r
		}
	}
	return last
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
	rec := lastAudit(t, root)
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
