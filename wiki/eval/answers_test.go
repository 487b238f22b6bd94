package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func writeFile(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFileAnswerVerifiesCitations(t *testing.T) {
	st, dir := emptyWiki(t)
	writeFile(t, dir, "pages/sync.md", "---\ntitle: Sync\n---\n# Sync\n\nConflicts are resolved by\nkeeping **both** versions.\n")
	writeFile(t, dir, "sources/manual.md", "Encryption uses “AES-256” — always.\n")
	writeFile(t, dir, "sources/blob.bin", "\x00\x01\x02binary")
	ctx := context.Background()
	call := store.NewCall("file_answer", "sess-1", nil)
	call.Client = "test 1.0"
	ctx = store.WithCall(ctx, call)
	res, err := FileAnswer(ctx, st, AnswerInput{
		Question: "  How are conflicts handled?  ",
		Answer:   "Both versions are kept.",
		Topic:    "sync   conflicts",
		Citations: []Citation{
			{Path: "pages/sync.md", Quote: "conflicts are resolved by keeping both versions"}, // line wrap and ** ignored
			{Path: "sync", Quote: "Conflicts are resolved by"},                                // a slug
			{Path: "sources/manual.md", Quote: `Encryption uses "AES-256" - always`},          // curly quotes and dash
			{Path: "sources/manual.md", Quote: "Encryption uses AES-128"},                     // wrong
			{Path: "pages/sync.md", Quote: "short"},                                           // too short
			{Path: "pages/missing.md", Quote: "anything at all here"},                         // missing file
			{Path: "../outside.md", Quote: "anything at all here"},                            // outside
			{Path: ".llmwiki/audit/x.jsonl", Quote: "anything at all here"},                   // state
			{Path: "sources/blob.bin", Quote: "anything at all here"},                         // binary
			{Path: "sources", Quote: "anything at all here"},                                  // a folder
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	type v struct {
		path     string
		verified bool
		line     int
		problem  string
	}
	want := []v{
		{"pages/sync.md", true, 6, ""},
		{"pages/sync.md", true, 6, ""},
		{"sources/manual.md", true, 1, ""},
		{"sources/manual.md", false, 0, "the quote is not in sources/manual.md"},
		{"pages/sync.md", false, 0, "shorter than 8 characters"},
		{"pages/missing.md", false, 0, "does not exist"},
		{"../outside.md", false, 0, ""},
		{".llmwiki/audit/x.jsonl", false, 0, "the server's own state"},
		{"sources/blob.bin", false, 0, "binary file"},
		{"sources", false, 0, "is a folder"},
	}
	if len(res.Citations) != len(want) {
		t.Fatalf("%d citations", len(res.Citations))
	}
	for i, w := range want {
		c := res.Citations[i]
		if c.Path != w.path || c.Verified != w.verified || c.Line != w.line || !strings.Contains(c.Problem, w.problem) || (!w.verified && c.Problem == "") {
			t.Errorf("citation %d = %+v, want %+v", i, c, w)
		}
		if strings.Contains(c.Problem, dir) {
			t.Errorf("citation %d problem leaks the host path: %s", i, c.Problem)
		}
	}
	if res.Verified != 3 || res.Unverified != 7 || res.AllVerified || !strings.Contains(res.Advice, "7 of 10 citations did not verify") || !strings.Contains(res.Advice, res.AnswerID) {
		t.Errorf("result = %+v", res)
	}
	if call.Extra["answer_id"] != res.AnswerID || call.Extra["verified"] != 3 || call.Extra["citations"] != 10 {
		t.Errorf("audit extra = %v", call.Extra)
	}
	// The record is in the eval store, with the session and client.
	data, ok, err := st.ReadState(answerPath(res.AnswerID))
	if err != nil || !ok {
		t.Fatalf("record missing: %v", err)
	}
	var rec AnswerRecord
	json.Unmarshal(data, &rec)
	if rec.Question != "How are conflicts handled?" || rec.Topic != "sync conflicts" || rec.Session != "sess-1" || rec.Client != "test 1.0" || len(rec.Citations) != 10 {
		t.Errorf("record = %+v", rec)
	}
	// Nothing in the wiki was written.
	if _, err := os.Stat(filepath.Join(dir, "pages", "missing.md")); err == nil {
		t.Error("a wiki file appeared")
	}

	// A correction names the earlier answer.
	res2, err := FileAnswer(ctx, st, AnswerInput{Question: "How are conflicts handled?", Answer: "Both kept.", Replaces: res.AnswerID,
		Citations: []Citation{{Path: "pages/sync.md", Quote: "keeping both versions"}}})
	if err != nil || !res2.AllVerified || res2.Advice != "All 1 citations verified." {
		t.Errorf("correction: %+v, %v", res2, err)
	}
	// No citations at all: recorded, with advice.
	res3, err := FileAnswer(ctx, st, AnswerInput{Question: "q?", Answer: "a"})
	if err != nil || res3.AllVerified || !strings.Contains(res3.Advice, "no citations") {
		t.Errorf("uncited: %+v, %v", res3, err)
	}
}

func TestFileAnswerRefusesBadInput(t *testing.T) {
	st, _ := emptyWiki(t)
	ctx := context.Background()
	many := make([]Citation, MaxCitations+1)
	for _, tc := range []struct {
		in   AnswerInput
		code store.Code
		msg  string
	}{
		{AnswerInput{Question: " ", Answer: "a"}, store.CodeInvalid, "question is empty"},
		{AnswerInput{Question: "q", Answer: "\n"}, store.CodeInvalid, "answer is empty"},
		{AnswerInput{Question: strings.Repeat("q", MaxQuestionChars+1), Answer: "a"}, store.CodeTooLarge, "question has"},
		{AnswerInput{Question: "q", Answer: strings.Repeat("é", MaxAnswerChars+1)}, store.CodeTooLarge, "answer has"},
		{AnswerInput{Question: "q", Answer: "a", Topic: strings.Repeat("t", 121)}, store.CodeInvalid, "topic has"},
		{AnswerInput{Question: "q", Answer: "a", Citations: many}, store.CodeTooLarge, "51 citations"},
		{AnswerInput{Question: "q", Answer: "a", Replaces: "nope"}, store.CodeInvalid, "not an answer id"},
		{AnswerInput{Question: "q", Answer: "a", Replaces: "a20261120T100005Z-00000001"}, store.CodeNotFound, "no stored answer"},
	} {
		_, err := FileAnswer(ctx, st, tc.in)
		if store.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: err = %v, want %s %q", clip(tc.in.Question, 20), err, tc.code, tc.msg)
		}
	}
}

// TestStaleAndStoredOnlyAnswers: an answer filed through the eval store
// whose page changed afterwards is a stale citation (verified in the
// snapshot), not an error; an answer whose audit line was lost is still
// counted from the store.
func TestStaleAndStoredOnlyAnswers(t *testing.T) {
	st, dir := emptyWiki(t)
	ctx := context.Background()
	w, err := st.WritePage(ctx, wiki.PageInput{Title: "Sync", Content: "Conflicts are resolved by keeping both versions.\n"})
	if err != nil {
		t.Fatal(err)
	}
	call := store.NewCall("file_answer", "sess-9", map[string]any{"question": "conflicts?"})
	actx := store.WithCall(ctx, call)
	res, err := FileAnswer(actx, st, AnswerInput{Question: "How are conflicts handled?", Answer: "Both kept.",
		Citations: []Citation{{Path: w.Path, Quote: "keeping both versions"}}})
	if err != nil || !res.AllVerified {
		t.Fatal(res, err)
	}
	if err := st.Audit(call, nil); err != nil {
		t.Fatal(err)
	}
	// A second answer is stored but its audit line is lost.
	if _, err := FileAnswer(store.WithCall(ctx, store.NewCall("file_answer", "sess-10", nil)), st, AnswerInput{Question: "Lost line?", Answer: "Yes.",
		Citations: []Citation{{Path: w.Path, Quote: "keeping both versions"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Sync", Content: "Conflicts now ask you which version to keep.\n", BaseSHA256: w.SHA256}); err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(ctx, st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Queries != 2 || rep.Summary.StaleCitations != 2 || rep.Summary.CitationErrors != 0 {
		t.Fatalf("summary = %+v", rep.Summary)
	}
	q := rep.Questions[0]
	if q.Session != "sess-9" || !q.Filed || q.Checks[0].Status != "stale" || !strings.HasPrefix(q.Checks[0].Snapshot, ".llmwiki/snapshots/pages/sync.md/") {
		t.Errorf("question = %+v checks %+v", q, q.Checks)
	}
	if rep.Questions[1].Session != "sess-10" || rep.Questions[1].Question != "Lost line?" {
		t.Errorf("stored-only answer = %+v", rep.Questions[1])
	}
	_ = dir
}

// TestTornLastLine: a torn last line is skipped and counted, whatever it
// holds, and a log that is only a torn line yields nothing.
func TestTornLastLine(t *testing.T) {
	st, dir := emptyWiki(t)
	good := `{"time":"2026-11-20T10:00:00Z","session":"s","tool":"read_page","outcome":"ok","reads":["pages/a.md"],"duration_ms":1}` + "\n" +
		`{"time":"2026-11-20T10:00:01Z","session":"s","tool":"file_answer","args":{"question":"q?","answer":"a"},"outcome":"ok","duration_ms":1}` + "\n"
	for _, tc := range []struct {
		name, log       string
		lines, torn, qs int
	}{
		{"torn JSON", good + `{"time":"2026-11-20T10:00:02Z","sess`, 2, 1, 1},
		{"torn in a string with an escape", good + `{"time":"2026-11-20T10:00:02Z","session":"s","tool":"x\`, 2, 1, 1},
		{"torn multibyte", good + "{\"time\":\"2026-11-20T10:00:02Z\",\"session\":\"\xe2\x82", 2, 1, 1},
		{"only a torn line", `{"time":"2026-11`, 0, 1, 0},
		{"complete last line without newline", strings.TrimSuffix(good, "\n"), 2, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, dir, ".llmwiki/audit/2026-11-20.jsonl", tc.log)
			rep, err := Evaluate(context.Background(), st, links.Open(st), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.AuditLog.Lines != tc.lines || rep.AuditLog.Torn != tc.torn || rep.AuditLog.BadCount != 0 || rep.Summary.Queries != tc.qs {
				t.Errorf("stats = %+v, queries %d", rep.AuditLog, rep.Summary.Queries)
			}
		})
	}
}

// TestSince: --since drops older calls and answers.
func TestSince(t *testing.T) {
	st, _ := fixtureWiki(t)
	rep, err := Evaluate(context.Background(), st, links.Open(st), Options{Since: time.Date(2026, 11, 21, 12, 10, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// 3 calls of the fixture, plus the internal:recover line wiki.Open
	// wrote when it moved the fixture's torn last line aside.
	if rep.Summary.Queries != 2 || rep.AuditLog.InWindow != 4 || rep.Since != "2026-11-21T12:10:00Z" {
		t.Errorf("summary %+v, log %+v", rep.Summary, rep.AuditLog)
	}
}

// TestEmptySearchIsAGap: a search_wiki call that found nothing (its audit
// line's extra "hits" is 0) is listed as a gap with its question.
func TestEmptySearchIsAGap(t *testing.T) {
	st, dir := emptyWiki(t)
	writeFile(t, dir, ".llmwiki/audit/2026-11-20.jsonl",
		`{"time":"2026-11-20T10:00:00Z","session":"s","tool":"search_wiki","args":{"query":"canvas export"},"outcome":"ok","extra":{"hits":0,"total":0},"duration_ms":1}`+"\n"+
			`{"time":"2026-11-20T10:00:01Z","session":"s","tool":"search_wiki","args":{"query":"canvas"},"outcome":"ok","extra":{"hits":3,"total":3},"duration_ms":1}`+"\n"+
			`{"time":"2026-11-20T10:00:02Z","session":"s","tool":"file_answer","args":{"question":"Can I export a canvas?","answer":"Not in the wiki."},"outcome":"ok","duration_ms":1}`+"\n")
	rep, err := Evaluate(context.Background(), st, links.Open(st), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []SearchGap{{Query: "canvas export", Question: "Can I export a canvas?"}}
	if !reflect.DeepEqual(rep.Gaps.EmptySearches, want) || rep.Summary.GapCount != 1 || rep.Summary.Searches != 2 {
		t.Errorf("gaps = %+v, summary %+v", rep.Gaps, rep.Summary)
	}
	if !strings.Contains(string(Insights(rep)), "- canvas export (searched, nothing found)") {
		t.Errorf("insights:\n%s", Insights(rep))
	}
}

// TestRecordReadOnlyWhenNeeded: when file_answer's audit line holds the
// whole answer and every citation verified at filing, eval reads the stored
// record only if a citation fails now, and then tells a changed file
// (stale) from a wrong quote.
func TestRecordReadOnlyWhenNeeded(t *testing.T) {
	st, _ := emptyWiki(t)
	ctx := context.Background()
	a, err := st.WritePage(ctx, wiki.PageInput{Title: "Alpha", Content: "Alpha is the first letter of the alphabet.\n"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.WritePage(ctx, wiki.PageInput{Title: "Beta", Content: "Beta is the second letter of the alphabet.\n"})
	if err != nil {
		t.Fatal(err)
	}
	file := func(q, path, quote string) string {
		args := map[string]any{"question": q, "answer": "An answer.", "citations": []any{map[string]any{"path": path, "quote": quote}}}
		call := store.NewCall("file_answer", "sess", args)
		res, err := FileAnswer(store.WithCall(ctx, call), st, AnswerInput{Question: q, Answer: "An answer.", Citations: []Citation{{Path: path, Quote: quote}}})
		if err != nil || !res.AllVerified {
			t.Fatal(res, err)
		}
		if err := st.Audit(call, nil); err != nil {
			t.Fatal(err)
		}
		return res.AnswerID
	}
	idA := file("What is alpha?", "alpha", "Alpha is the first letter")
	idB := file("What is beta?", b.Path, "Beta is the second letter")
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Alpha", Content: "Alpha was renamed.\n", BaseSHA256: a.SHA256}); err != nil {
		t.Fatal(err)
	}
	answers, err := listAnswers(st, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	g := newGrouper(answers)
	if _, err := ReadAudit(st, time.Time{}, g.add); err != nil {
		t.Fatal(err)
	}
	rep := &Report{}
	rep.Questions, _ = g.questions()
	judgeQuestions(rep, st, newVerifier(st), answers)
	if _, read := answers.loaded[idB]; read {
		t.Error("the record of an answer whose citations still verify was read")
	}
	if _, read := answers.loaded[idA]; !read {
		t.Error("the record of an answer whose citation fails now was not read")
	}
	if s := rep.Questions[0].Checks[0]; s.Status != "stale" || s.Path != "pages/alpha.md" || s.Snapshot == "" {
		t.Errorf("alpha citation = %+v", s)
	}
	if s := rep.Questions[1].Checks[0]; s.Status != "verified" {
		t.Errorf("beta citation = %+v", s)
	}
}
