package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// fakeAsker answers every Ask with the next reply, after recording the
// prompt; a reply the check rejects gets one retry, as model.Client does.
type fakeAsker struct {
	prompts []string
	replies []string
}

func (f *fakeAsker) Ask(ctx context.Context, req model.Request, check func([]byte) error) ([]byte, model.Usage, error) {
	u := model.Usage{Model: "fake", Endpoint: "test"}
	for try := 0; try < 2; try++ {
		f.prompts = append(f.prompts, req.User)
		u.Completions++
		u.PromptTokens += len(req.User) / 4
		if len(f.replies) == 0 {
			return nil, u, store.Errorf(store.CodeInvalid, "no scripted reply left")
		}
		r := f.replies[0]
		f.replies = f.replies[1:]
		if err := check([]byte(r)); err == nil {
			return []byte(r), u, nil
		} else if try == 1 {
			return nil, u, err
		}
		u.Retried = true
	}
	return nil, u, nil
}

// TestJudgeSeesWholeFiles: the judge gets every file in full (here a page
// of 30,000 characters whose decisive sentence is at the very end, far past
// the first 2,000), in slices when it does not fit one completion; findings
// are kept only when their quote is in the file.
func TestJudgeSeesWholeFiles(t *testing.T) {
	st, dir := emptyWiki(t)
	var long strings.Builder
	for i := 0; long.Len() < 30_000; i++ {
		fmt.Fprintf(&long, "Filler line %d about unrelated matters of sync history.\n", i)
	}
	long.WriteString("Sync encryption uses AES-256 with keys derived from your password.\n")
	writeFile(t, dir, "pages/sync.md", long.String())
	writeFile(t, dir, "pages/short.md", "Publish costs 8 dollars per month.\n")
	writeFile(t, dir, ".llmwiki/audit/2026-11-20.jsonl",
		`{"time":"2026-11-20T10:00:00Z","session":"s","tool":"read_page","outcome":"ok","reads":["pages/sync.md","pages/short.md"],"duration_ms":1}`+"\n"+
			`{"time":"2026-11-20T10:00:05Z","session":"s","tool":"file_answer","args":{"question":"What encryption does Sync use?","answer":"Sync uses AES-128."},"outcome":"ok","duration_ms":1}`+"\n"+
			`{"time":"2026-11-20T10:01:00Z","session":"s","tool":"file_answer","args":{"question":"Anything read?","answer":"No."},"outcome":"ok","duration_ms":1}`+"\n")

	reply := func(fs ...JudgeFinding) string {
		b, _ := json.Marshal(map[string]any{"findings": fs})
		return string(b)
	}
	asker := &fakeAsker{replies: []string{
		"I think the answer is fine.", // not JSON: retried once
		reply(JudgeFinding{Kind: "contradiction", Severity: "error", Detail: "The file says AES-256, the answer AES-128.",
			Recommendation: "Quote the cipher from the file", Path: "pages/sync.md (lines 1-263)", Quote: "Sync encryption uses AES-256"}),
		reply(JudgeFinding{Kind: "contradiction", Severity: "error", Detail: "made up", Path: "pages/sync.md", Quote: "Sync uses quantum encryption"},
			JudgeFinding{Kind: "citation", Severity: "error", Detail: "no quote"},
			JudgeFinding{Kind: "opinion", Severity: "warning", Detail: "unknown kind"},
			JudgeFinding{Kind: "wiki-gap", Severity: "warning", Detail: "Sync encryption deserves its own page"}),
	}}
	j := &ModelJudge{Model: asker, Label: "fake judge", MaxChars: 20_000}
	rep, err := Evaluate(context.Background(), st, links.Open(st), Options{Judge: j})
	if err != nil {
		t.Fatal(err)
	}
	// Two slices: pages/sync.md is longer than 20,000 characters.
	if len(asker.prompts) != 3 {
		t.Fatalf("%d prompts, want 3 (a retry, then the second slice)", len(asker.prompts))
	}
	all := strings.Join(asker.prompts[1:], "")
	if !strings.Contains(all, "Sync encryption uses AES-256 with keys derived") || !strings.Contains(all, "Filler line 0 about") ||
		!strings.Contains(all, "Publish costs 8 dollars per month.") {
		t.Error("the judge did not get every file in full")
	}
	if !strings.Contains(asker.prompts[1], "=== File: pages/sync.md (lines 1-") || !strings.Contains(asker.prompts[2], "(lines ") {
		t.Errorf("slices are not labelled with their lines:\n%.300s", asker.prompts[2])
	}
	js := rep.Judge
	if js == nil || js.Judge != "fake judge" || js.Questions != 1 || js.Findings != 2 || js.Unverified != 3 || js.Failures != 0 {
		t.Fatalf("judge stats = %+v", js)
	}
	if js.Usage == nil || js.Usage.Completions != 3 || !js.Usage.Retried {
		t.Errorf("usage = %+v", js.Usage)
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Kind != "contradiction" || rep.Errors[0].Path != "pages/sync.md" || rep.Errors[0].Question != "What encryption does Sync use?" {
		t.Errorf("errors = %+v", rep.Errors)
	}
	if len(rep.Gaps.Judge) != 1 || !strings.Contains(rep.Gaps.Judge[0].Title, "deserves its own page") {
		t.Errorf("judge gaps = %+v", rep.Gaps.Judge)
	}
	ins := string(Insights(rep))
	if !strings.Contains(ins, "the judge found 1 answer contradicted by the files read") || !strings.Contains(ins, "Sync encryption deserves its own page (judge)") {
		t.Errorf("insights:\n%s", ins)
	}
	if md := string(Markdown(rep)); !strings.Contains(md, "- Judge: fake judge checked 1 questions: 2 findings kept, 3 dropped") {
		t.Errorf("report:\n%s", md)
	}
}

// TestJudgeStopsAfterRepeatedFailures: an endpoint that fails is not asked
// about every question.
func TestJudgeStopsAfterRepeatedFailures(t *testing.T) {
	st, dir := emptyWiki(t)
	writeFile(t, dir, "pages/a.md", "Alpha is the first letter of the Greek alphabet.\n")
	var log strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&log, `{"time":"2026-11-20T10:0%d:00Z","session":"s","tool":"read_page","outcome":"ok","reads":["pages/a.md"],"duration_ms":1}`+"\n", i)
		fmt.Fprintf(&log, `{"time":"2026-11-20T10:0%d:01Z","session":"s","tool":"file_answer","args":{"question":"Q%d?","answer":"A"},"outcome":"ok","duration_ms":1}`+"\n", i, i)
	}
	writeFile(t, dir, ".llmwiki/audit/2026-11-20.jsonl", log.String())
	asker := &fakeAsker{}
	rep, err := Evaluate(context.Background(), st, links.Open(st), Options{Judge: &ModelJudge{Model: asker, Label: "down"}})
	if err != nil {
		t.Fatal(err)
	}
	if j := rep.Judge; j.Questions != 3 || j.Failures != 3 || !strings.Contains(j.Failure, "stopped after 3 failures in a row") {
		t.Errorf("judge = %+v", j)
	}
	if rep.Summary.Queries != 6 {
		t.Errorf("the deterministic metrics still count every question: %+v", rep.Summary)
	}
}

func TestSplitFilesKeepsEveryCharacter(t *testing.T) {
	files := []JudgeFile{{Path: "a", Content: strings.Repeat("x\n", 10)}, {Path: "b", Content: "é" + strings.Repeat("yy\n", 40)}, {Path: "c", Content: "z"}}
	parts := splitFiles(files, 25)
	got := map[string]string{}
	for _, p := range parts {
		n := 0
		for _, f := range p {
			n += len([]rune(f.Content))
			got[strings.SplitN(f.Path, " ", 2)[0]] += f.Content
		}
		if n > 25 && len(p) > 1 {
			t.Errorf("part over budget: %d", n)
		}
	}
	for _, f := range files {
		if got[f.Path] != f.Content {
			t.Errorf("%s reassembled as %q", f.Path, got[f.Path])
		}
	}
}
