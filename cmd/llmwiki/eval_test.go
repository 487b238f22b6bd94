package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/eval"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// evalFixture copies testdata/eval (a wiki and a synthetic audit log) to a
// temp folder.
func evalFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(wikitest.RepoRoot(t), "testdata", "eval")
	wikitest.CopyTree(t, filepath.Join(src, "wiki"), dir)
	wikitest.CopyTree(t, filepath.Join(src, "audit"), filepath.Join(dir, ".llmwiki", "audit"))
	return dir
}

func TestEvalCommand(t *testing.T) {
	dir := evalFixture(t)
	out, errOut, err := runCLI(t, "", "eval", "--root", dir)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut)
	}
	for _, want := range []string{
		"Queries analyzed: 7 (across 3 sessions)",
		"Wiki hit rate:    29% (2 of 7 answered without raw sources)",
		"Wasted reads:     3 of 8 file reads",
		"Citations:        5 of 6 verified, 1 wrong",
		"Issues:           1 error, 2 warnings",
		"Wiki gaps:        7",
		// The fixture's torn last line is moved aside when the wiki opens.
		"Audit log:        0 torn and 1 unreadable lines skipped",
		"Report: .llmwiki/eval/eval-report.md",
		"Guidelines: guidelines.md ## Eval Insights created",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "Found 7 answered questions across 3 sessions") {
		t.Errorf("progress on stderr:\n%s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".llmwiki", "eval", "eval-report.md")); err != nil {
		t.Error(err)
	}
	// The run is audited, with its write of guidelines.md.
	// (the fixture's own files hold a bad and a torn line on purpose)
	for _, f := range []string{"2026-11-20.jsonl", "2026-11-21.jsonl"} {
		os.Remove(filepath.Join(dir, ".llmwiki", "audit", f))
	}
	calls := teststore.AuditLines(t, dir)
	last := calls[len(calls)-1]
	if last.Tool != "cli:eval" || last.Outcome != "ok" || len(last.Writes) != 1 || last.Writes[0].Path != "guidelines.md" {
		t.Errorf("last audit line = %+v", last)
	}

	// --json prints the report; --fail-on-error exits 1 on the wrong citation.
	wikitest.CopyTree(t, filepath.Join(wikitest.RepoRoot(t), "testdata", "eval", "audit"), filepath.Join(dir, ".llmwiki", "audit"))
	out, _, err = runCLI(t, "", "eval", "--root", dir, "--json", "--fail-on-error", "--dry-run")
	var rep eval.Report
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil || rep.Summary.Queries != 7 {
		t.Errorf("--json output: %v\n%s", jerr, out)
	}
	var code exitCode
	if !errors.As(err, &code) || code != 1 {
		t.Errorf("--fail-on-error: %v", err)
	}
	// The second run's trend has the first; --dry-run wrote no run of its own.
	if len(rep.Trend) != 2 {
		t.Errorf("trend = %+v", rep.Trend)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".llmwiki", "eval", "runs", "*.json"))
	if len(runs) != 1 {
		t.Errorf("%d runs stored, want 1 (dry runs store none)", len(runs))
	}

	if _, _, err := runCLI(t, "", "eval", "--root", dir, "--since", "last tuesday"); err == nil || !strings.Contains(err.Error(), "--since \"last tuesday\" is not a time") {
		t.Errorf("bad --since: %v", err)
	}
	out, errOut, err = runCLI(t, "", "eval", "--root", dir, "--since", "2026-11-21", "--dry-run")
	if err != nil || !strings.Contains(out, "Queries analyzed: 3 (across 1 session)\n") || !strings.Contains(out, "Issues:           0 errors, 2 warnings") || !strings.Contains(out, "Dry run: nothing written.") {
		t.Errorf("--since a date: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "Found 3 answered questions across 1 session") || strings.Contains(errOut, "1 sessions") {
		t.Errorf("progress on stderr: %q", errOut)
	}
	if _, _, err := runCLI(t, "", "eval", "--root", filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "no wiki at") {
		t.Errorf("missing root: %v", err)
	}
}

// TestEvalEndToEnd: an agent files answers over stdio with the official
// TypeScript SDK; llmwiki eval then reports them.
func TestEvalEndToEnd(t *testing.T) {
	dir := evalFixture(t)
	os.RemoveAll(filepath.Join(dir, ".llmwiki", "audit"))
	initWiki(t, dir)
	bin := binary(t)
	out := node(t, "eval_flow.mjs", "--bin", bin, "--root", dir)
	var summary struct {
		Calls int    `json:"calls"`
		Fixed string `json:"fixed"`
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("flow summary: %v\n%s", err, out)
	}
	calls := teststore.AuditLines(t, dir)
	if len(calls) != summary.Calls {
		t.Errorf("%d audit lines for %d calls", len(calls), summary.Calls)
	}
	stdout, errOut, err := runCLI(t, "", "eval", "--root", dir, "--json")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Summary
	if s.Queries != 2 || s.Hits != 1 || s.CitationErrors != 0 || s.Citations != 2 || s.WastedReads != 0 || s.FileReads != 2 {
		t.Errorf("summary = %+v", s)
	}
	q := rep.Questions[0]
	if q.ID != summary.Fixed || q.Revisions != 1 || q.Client != "llmwiki-e2e 1.0.0" || len(q.PagesRead) != 1 || !q.Filed {
		t.Errorf("first question = %+v", q)
	}
	g, _ := os.ReadFile(filepath.Join(dir, "guidelines.md"))
	if !strings.Contains(string(g), "- Wiki hit rate: 50% (target: 80%+)") || !strings.Contains(string(g), "## My Rules") {
		t.Errorf("guidelines.md:\n%s", g)
	}
}

// TestEvalJudge runs the judge against an OpenAI-compatible test server over
// HTTP (the real go-openai client).
func TestEvalJudge(t *testing.T) {
	dir := evalFixture(t)
	srv := modeltest.New(t,
		`{"findings":[{"kind":"contradiction","severity":"error","detail":"The answer says add-on; the file gives a monthly price.","path":"sources/publish.md","quote":"Publish costs 8 dollars per month"}]}`,
		`{"findings":[]}`)
	out, errOut, err := runCLI(t, "", "eval", "--root", dir, "--judge", "--judge-max", "2", "--base-url", srv.BaseURL(), "--model", "test-model", "--dry-run")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	for _, want := range []string{
		"Issues:           2 errors, 2 warnings",
		"Judge:            2 questions checked, 1 findings kept, 0 dropped as unverified, 0 failed",
		"2 completions, 240 prompt + 90 completion tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, `Judging 1/2: "Is Publish a paid add-on?"`) {
		t.Errorf("progress:\n%s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[0].Last(), "QUESTION: Is Publish a paid add-on?") ||
		!strings.Contains(reqs[0].Last(), "=== File: sources/publish.md ===\n# Publish\n\nPublish costs 8 dollars per month.\n") {
		t.Errorf("first judge prompt:\n%s", reqs[0].Last())
	}
	// Endpoint down: eval still reports every deterministic metric.
	srv.Close()
	out, _, err = runCLI(t, "", "eval", "--root", dir, "--judge", "--base-url", srv.BaseURL(), "--dry-run")
	if err != nil || !strings.Contains(out, "Queries analyzed: 7") || !strings.Contains(out, "3 failed") {
		t.Errorf("endpoint down: %v\n%s", err, out)
	}
}
