package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/eval")

// evalTestdata is the repository's testdata/eval folder.
func evalTestdata(t testing.TB) string {
	return filepath.Join(wikitest.RepoRoot(t), "testdata", "eval")
}

// fixedNow is the clock of every golden run.
var fixedNow = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// fixtureWiki copies testdata/eval/wiki and its audit log into a temp
// folder and opens it with a fixed clock.
func fixtureWiki(t *testing.T) (*wiki.Store, string) {
	t.Helper()
	dir := t.TempDir()
	src := evalTestdata(t)
	wikitest.CopyTree(t, filepath.Join(src, "wiki"), dir)
	wikitest.CopyTree(t, filepath.Join(src, "audit"), filepath.Join(dir, ".llmwiki", "audit"))
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return fixedNow }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, dir
}

// The synthetic audit log (testdata/eval/audit) holds three sessions whose
// metrics were worked out by hand from the log before the code ran:
//
//	S1 Q1 "How does Sync handle conflicts?"  load_project, search, read pages/sync.md,
//	      cites pages/sync.md (verifies). Hit. Reads 1, wasted 0. 10:00:00 -> 10:00:05.002 = 5002 ms.
//	S1 Q2 "How do I set up Sync?"  search, reads pages/sync.md, sources/sync-manual.md,
//	      sources/plugins.md; cites sync-manual. Not a hit. Reads 3, wasted 2 (sync.md, plugins.md). 10002 ms.
//	S1 trailing search "publish price": never filed (1 unfiled call, 0 reads).
//	S2 Q3 "What encryption does Sync use?"  reads sync-manual, cites "AES-128" (the file says
//	      AES-256): citation error. Not a hit. Reads 1, wasted 0. 4002 ms.
//	   (a torn-in-the-middle line: unreadable, skipped)
//	S2 Q4 "How much does Publish cost?"  search, read publish.md, files a wrong quote, then
//	      corrects it with replaces: one question, 1 revision, latest citation verifies.
//	      Not a hit. Reads 1, wasted 0. 5002 ms.
//	S3 Q5 "What does restricted mode do?"  reads pages/sync.md, a write_page, files no citations:
//	      warning "uncited". Hit. Reads 1, wasted 1. 2001 ms.
//	S3 Q6 "Publish price per month?"  a failed file_answer at 12:05:00, then the answer at
//	      12:10:00 citing sources/publish.md, never read in S3: warning "cited-unread".
//	      Not a hit. Reads 0. 300002 ms.
//	S3 Q7 "Is Publish a paid add-on?"  reads publish.md, cites it. Not a hit. Reads 1. 3002 ms.
//	   (a torn last line)
//
// Totals: 7 queries, 3 sessions, 2 hits (29%), 5 needed sources, 8 file
// reads, 3 wasted, 3 searches, avg (5002+10002+4002+5002+2001+300002+3002)/7
// = 47001.857 -> 47001.9 ms, 6 citations, 5 verified, 1 error, 1 answer
// without citations; errors 1, warnings 2. Gaps: 5 questions that needed
// sources (Q2, Q3, Q4, Q6, Q7), topic "publish pricing" asked 3 times
// without a page, 1 dangling link ([[Pricing]] on line 10 of
// pages/sync.md) = 7. Most read: pages/sync.md 3, sources/publish.md 2,
// sources/sync-manual.md 2, sources/plugins.md 1.
func TestSyntheticAuditLog(t *testing.T) {
	st, dir := fixtureWiki(t)
	rep, w, err := Run(context.Background(), st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		Queries: 7, Sessions: 3, Hits: 2, HitRate: 2.0 / 7, NeededSources: 5,
		FileReads: 8, WastedReads: 3, AvgDurationMS: 47001.9, Searches: 3,
		Citations: 6, CitationsVerified: 5, CitationErrors: 1, StaleCitations: 0, CitationValidity: 5.0 / 6,
		Uncited: 1, GapCount: 7, ErrorCount: 1, WarningCount: 2,
	}
	if rep.Summary != want {
		t.Errorf("summary\n got %+v\nwant %+v", rep.Summary, want)
	}
	// The fixture's torn last line was moved aside when wiki.Open repaired
	// the log, which it audits in one internal:recover line of its own (in
	// today's file): three files, 25 lines, none torn.
	wantLog := LogStats{Files: 3, Lines: 25, InWindow: 25, Torn: 0, Bad: []string{"2026-11-20.jsonl:14"}, BadCount: 1}
	if !reflect.DeepEqual(rep.AuditLog, wantLog) {
		t.Errorf("audit log stats = %+v, want %+v", rep.AuditLog, wantLog)
	}
	if rep.Unfiled != (Unfiled{Sessions: 1, Calls: 1, Reads: 0}) {
		t.Errorf("unfiled = %+v", rep.Unfiled)
	}
	type qwant struct {
		question  string
		hit       bool
		reads     int
		wasted    []string
		dur       float64
		revisions int
	}
	wantQ := []qwant{
		{"How does Sync handle conflicts?", true, 1, []string{}, 5002, 0},
		{"How do I set up Sync?", false, 3, []string{"pages/sync.md", "sources/plugins.md"}, 10002, 0},
		{"What encryption does Sync use?", false, 1, []string{}, 4002, 0},
		{"How much does Publish cost?", false, 1, []string{}, 5002, 1},
		{"What does restricted mode do?", true, 1, []string{"pages/sync.md"}, 2001, 0},
		{"Publish price per month?", false, 0, []string{}, 300002, 0},
		{"Is Publish a paid add-on?", false, 1, []string{}, 3002, 0},
	}
	if len(rep.Questions) != len(wantQ) {
		t.Fatalf("%d questions, want %d", len(rep.Questions), len(wantQ))
	}
	for i, w := range wantQ {
		q := rep.Questions[i]
		got := qwant{q.Question, q.Hit, len(q.PagesRead) + len(q.SourcesRead), q.Wasted, q.DurationMS, q.Revisions}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("question %d\n got %+v\nwant %+v", i+1, got, w)
		}
	}
	if q := rep.Questions[3]; q.ID != "a20261120T111005Z-00000005" || q.Answer != "8 dollars per month." || q.Calls != 4 {
		t.Errorf("corrected question keeps id %s, answer %q, calls %d", q.ID, q.Answer, q.Calls)
	}
	if len(rep.Errors) != 1 {
		t.Fatalf("errors = %+v", rep.Errors)
	}
	e := rep.Errors[0]
	if e.Kind != "citation" || e.Question != "What encryption does Sync use?" || e.Path != "sources/sync-manual.md" ||
		e.Quote != "End-to-end encryption uses AES-128" || e.Title != "the quote is not in sources/sync-manual.md" {
		t.Errorf("citation error = %+v", e)
	}
	var kinds []string
	for _, w := range rep.Warnings {
		kinds = append(kinds, w.Kind+":"+w.Question)
	}
	if want := []string{"uncited:What does restricted mode do?", "cited-unread:Publish price per month?"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("warnings = %v, want %v", kinds, want)
	}
	var needed []string
	for _, n := range rep.Gaps.NeededSources {
		needed = append(needed, n.Question+" <- "+strings.Join(n.Sources, ","))
	}
	wantNeeded := []string{
		"How do I set up Sync? <- sources/sync-manual.md,sources/plugins.md",
		"What encryption does Sync use? <- sources/sync-manual.md",
		"How much does Publish cost? <- sources/publish.md",
		"Publish price per month? <- sources/publish.md",
		"Is Publish a paid add-on? <- sources/publish.md",
	}
	if !reflect.DeepEqual(needed, wantNeeded) {
		t.Errorf("needed sources\n got %q\nwant %q", needed, wantNeeded)
	}
	wantTopics := []TopicGap{{Topic: "publish pricing", Key: "pricing publish", Asked: 3,
		Questions: []string{"Is Publish a paid add-on?", "Publish price per month?", "How much does Publish cost?"}}}
	if !reflect.DeepEqual(rep.Gaps.RepeatedTopics, wantTopics) {
		t.Errorf("repeated topics = %+v", rep.Gaps.RepeatedTopics)
	}
	if want := []DanglingLink{{Page: "pages/sync.md", Target: "Pricing", Line: 10}}; !reflect.DeepEqual(rep.Gaps.DanglingLinks, want) {
		t.Errorf("dangling links = %+v", rep.Gaps.DanglingLinks)
	}
	wantRead := []FileCount{{"pages/sync.md", 3}, {"sources/publish.md", 2}, {"sources/sync-manual.md", 2}, {"sources/plugins.md", 1}}
	if !reflect.DeepEqual(rep.MostRead, wantRead) {
		t.Errorf("most read = %+v", rep.MostRead)
	}
	if w.GuidelinesChange != "created" {
		t.Errorf("guidelines change = %q, want created (the fixture has no guidelines.md)", w.GuidelinesChange)
	}

	// The golden files: eval-report.md and the guidelines.md eval wrote.
	md, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ReportMD)))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "eval-report.golden.md", md)
	g, err := os.ReadFile(filepath.Join(dir, "guidelines.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "guidelines.golden.md", g)

	// The JSON report holds the same numbers.
	js, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ReportJSON)))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Summary != want || len(back.Questions) != 7 {
		t.Errorf("JSON report summary = %+v", back.Summary)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join(evalTestdata(t), name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./wiki/eval -update)", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./wiki/eval -update if intended)\n--- got\n%s", name, got)
	}
}

// TestTrendAcrossRuns: each run keeps its numbers; the next report's trend
// lists them, oldest first. guidelines.md is unchanged by a second run on
// the same day with the same numbers.
func TestTrendAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	src := evalTestdata(t)
	wikitest.CopyTree(t, filepath.Join(src, "wiki"), dir)
	wikitest.CopyTree(t, filepath.Join(src, "audit"), filepath.Join(dir, ".llmwiki", "audit"))
	now := fixedNow
	st, err := wiki.Open(dir, wiki.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if _, _, err := Run(ctx, st, links.Open(st), Options{Since: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	rep, _, err := Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	rep3, w3, err := Run(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Trend) != 2 || len(rep3.Trend) != 3 {
		t.Fatalf("trend lengths %d, %d; want 2, 3", len(rep.Trend), len(rep3.Trend))
	}
	first := rep.Trend[0]
	if first.Queries != 3 || first.Since != "2026-11-21T00:00:00Z" || first.WastedReads != 1 {
		t.Errorf("first run = %+v; want 3 queries since 2026-11-21 with 1 wasted read", first)
	}
	if last := rep.Trend[1]; last.Queries != 7 || last.WastedReads != 3 || !last.Time.Equal(fixedNow.Add(time.Hour)) {
		t.Errorf("second run = %+v", last)
	}
	if w3.GuidelinesChange != "unchanged" {
		t.Errorf("third run on the same day changed guidelines.md: %s", w3.GuidelinesChange)
	}
	md := string(Markdown(rep3))
	if !strings.Contains(md, "| 2026-11-22 09:00 | since 2026-11-21T00:00:00Z | 3 | 33% | 1 | 0 | 101.7s |") ||
		!strings.Contains(md, "| 2026-11-22 10:01 (this run) | all | 7 | 29% | 3 | 1 | 47.0s |") {
		t.Errorf("trend table:\n%s", md)
	}
}
