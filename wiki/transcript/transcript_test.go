package transcript

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/redact/redacttest"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
)

var update = flag.Bool("update", false, "rewrite the golden rendering")

const sessionID = "5b1c9a2e-7f3d-4c1a-9e2b-0d4f6a8c1e37"

func load(t *testing.T) *Session {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "transcripts", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParse(t *testing.T) {
	s := load(t)
	if len(s.Turns) != 2 {
		t.Fatalf("turns = %d, want 2: %+v", len(s.Turns), s.Turns)
	}
	q1 := s.Turns[0]
	if q1.Question != "Why does the checkout handler retry twice on a 409 from the payments service?" {
		t.Errorf("question 1 = %q", q1.Question)
	}
	if len(q1.Tools) != 2 || q1.Tools[0].Name != "Read" || q1.Tools[0].Summary != "file_path=/home/dev/shop-api/checkout/handler.go" || q1.Tools[0].Result != "3 lines" {
		t.Errorf("tool 1 = %+v", q1.Tools)
	}
	if q1.Tools[1].Result != "error: --- FAIL: TestRetry409 (0.00s)" || q1.Tools[1].Summary != "command=go test ./checkout/... -run TestRetry" {
		t.Errorf("tool 2 = %+v", q1.Tools[1])
	}
	if s.Turns[1].Question != "Fix it and record the decision." || s.Turns[1].Tools[0].Result != "1 line" {
		t.Errorf("turn 2 = %+v", s.Turns[1])
	}
	// Two skipped: the bad line and the other session's entry.
	if s.Skipped != 2 {
		t.Errorf("skipped = %d, want 2", s.Skipped)
	}
	all := strings.Join(append(q1.Answer, s.Turns[1].Answer...), "\n")
	for _, leak := range []string{"secret chain of thought", "SIDECHAIN", "another session", "system-reminder", "/clear"} {
		if strings.Contains(all+q1.Question, leak) {
			t.Errorf("rendering leaks %q", leak)
		}
	}
	if s.CWD != "/home/dev/shop-api" || s.Start.Format(time.RFC3339) != "2026-11-20T10:00:05Z" || s.End.Format(time.RFC3339) != "2026-11-20T10:01:06Z" {
		t.Errorf("cwd %q start %v end %v", s.CWD, s.Start, s.End)
	}
}

func TestRenderGolden(t *testing.T) {
	s := load(t)
	got, counts, err := Render(s, 0, len(s.Turns), Meta{Part: 1, Project: "shop-api", Captured: time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC)})
	if err != nil || counts.Total() != 0 {
		t.Fatalf("%v, redacted %v", err, counts)
	}
	path := filepath.Join("..", "..", "testdata", "transcripts", "session.md")
	if *update {
		os.WriteFile(path, got, 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rendering differs from %s (go test ./wiki/transcript -update)\n%s", path, got)
	}
	// A heading inside an answer cannot fake a turn; inside code it is kept.
	if strings.Contains(string(got), "\n# Cause") || !strings.Contains(string(got), "### Cause") || !strings.Contains(string(got), "\n# not a heading inside code") {
		t.Error("headings not demoted outside code")
	}
	part2, _, _ := Render(s, 1, 2, Meta{Part: 2, Captured: time.Unix(0, 0)})
	if !strings.Contains(string(part2), "turns_from: 2") || strings.Contains(string(part2), "Why does the checkout") {
		t.Errorf("part 2:\n%s", part2)
	}
}

func TestParseLimits(t *testing.T) {
	long := `{"type":"user","sessionId":"s","message":{"role":"user","content":"` + strings.Repeat("x", MaxLine) + `"}}`
	in := long + "\n" + `{"type":"user","sessionId":"s","message":{"role":"user","content":"short"}}` + "\n"
	s, err := Parse(strings.NewReader(in), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 1 || s.Turns[0].Question != "short" || s.Skipped != 1 {
		t.Errorf("turns %+v skipped %d", s.Turns, s.Skipped)
	}
}

// FuzzParse: no input makes Parse fail or Render panic, and the rendering
// is always valid UTF-8 with frontmatter.
func FuzzParse(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "transcripts", "session.jsonl"))
	f.Add(data)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","input":"x"}]}}`))
	f.Add([]byte("{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse(bytes.NewReader(in), sessionID)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := Render(s, 0, len(s.Turns), Meta{Part: 1})
		if err != nil || !bytes.HasPrefix(out, []byte("---\n")) || !isUTF8(out) {
			t.Fatalf("bad rendering:\n%s", out)
		}
	})
}

// TestParseRedactsBeforeCutting: a secret is replaced before a title, a
// heading or a tool line is cut, so no cut keeps a piece of it; the counts
// go to the turn whose text held the secret.
func TestParseRedactsBeforeCutting(t *testing.T) {
	long := strings.Repeat("word ", 12) + redacttest.FakeOpenAI
	cmd := "OPENAI_API_KEY=" + redacttest.FakeOpenAI + " npm run sync -- --all"
	lines := []string{
		`{"type":"user","sessionId":"s","message":{"role":"user","content":` + jsonString(long) + `}}`,
		`{"type":"assistant","sessionId":"s","message":{"role":"assistant","content":[{"type":"text","text":"Running it."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + jsonString(cmd) + `}}]}}`,
		`{"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":` + jsonString("401 for token "+redacttest.FakeGitHubPAT+"\n"+redacttest.FakeSlackBot) + `}]}}`,
		`{"type":"user","sessionId":"s","message":{"role":"user","content":"next question"}}`,
	}
	s, err := Parse(strings.NewReader(strings.Join(lines, "\n")), "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 2 {
		t.Fatalf("turns %+v", s.Turns)
	}
	tc := s.Turns[0].Tools[0]
	if tc.Summary != "command=OPENAI_API_KEY=[REDACTED:openai-api-key] npm run sync -- --all" || tc.Result != "error: 401 for token [REDACTED:github-pat]" {
		t.Errorf("tool call %+v", tc)
	}
	if got := s.Turns[0].Redacted; len(got) != 2 || got["openai-api-key"] != 2 || got["github-pat"] != 1 || s.Turns[1].Redacted != nil {
		t.Errorf("counts %v / %v", got, s.Turns[1].Redacted)
	}
	doc, counts, err := Render(s, 0, 2, Meta{Part: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range []string{redacttest.FakeOpenAI[:20], redacttest.FakeGitHubPAT[:12], redacttest.FakeSlackBot[:12]} {
		if strings.Contains(string(doc), piece) {
			t.Errorf("rendering keeps %q:\n%s", piece, doc)
		}
	}
	for _, want := range []string{"redacted: 3\n", "redacted_kinds:\n    github-pat: 1\n    openai-api-key: 2\n", "3 values that looked like secrets were replaced by [REDACTED:<kind>] before saving (openai-api-key 2, github-pat 1)."} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("rendering lacks %q:\n%s", want, doc)
		}
	}
	if counts.Total() != 3 {
		t.Errorf("counts %v", counts)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func isUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "") == string(b) }

// demote leaves fenced code as it is by the rules of the one markdown
// scanner: a "````" block is not closed by "```", nor a "```" block by
// "```bash".
func TestDemoteKeepsCode(t *testing.T) {
	in := "# A\n````\n```\n# code 1\n````\n```\n```bash\n# code 2\n```\n## B"
	want := "### A\n````\n```\n# code 1\n````\n```\n```bash\n# code 2\n```\n### B"
	if got := mdoc.DemoteHeadings(in); got != want {
		t.Errorf("demote:\n%s\nwant:\n%s", got, want)
	}
}
