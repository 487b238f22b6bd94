package eval

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
)

// FuzzUpsertSection: whatever guidelines.md holds, rewriting the Eval
// Insights section either refuses or leaves every other section byte for
// byte (My Rules above all) and yields exactly one Eval Insights section
// that is the one given; a second rewrite changes nothing.
func FuzzUpsertSection(f *testing.F) {
	for _, s := range []string{
		"# Guidelines\n\n## Eval Insights\n\nold\n\n## My Rules\n\n- mine\n",
		"## My Rules\r\n```\r\n## Eval Insights\r\n```\r\n",
		"## My Rules\n<!--\n## Eval Insights\n-->\n",
		"## My Rules\n```\nunclosed",
		"~~~\n## Eval Insights\n~~~\n## Eval Insights (x)\n## My Rules\n- a",
		"",
		"text",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		out, _, err := UpsertSection([]byte(doc), InsightsTitle, []byte(newSection))
		if err != nil {
			return
		}
		hs, _ := wiki.Headings([]byte(doc))
		for _, h := range hs {
			if h.Level == 2 && (h.Title == InsightsTitle || strings.HasPrefix(h.Title, InsightsTitle+" (")) {
				continue
			}
			if !bytes.Contains(out, []byte(doc[h.Start:h.End])) {
				t.Fatalf("section %q changed\nin:  %q\nout: %q", h.Title, doc, out)
			}
		}
		o, _ := wiki.SectionRange([]byte(doc), MyRulesTitle)
		if o >= 0 {
			os, oe := wiki.SectionRange([]byte(doc), MyRulesTitle)
			ns, ne := wiki.SectionRange(out, MyRulesTitle)
			if ns < 0 || !bytes.Equal([]byte(doc)[os:oe], out[ns:ne]) {
				t.Fatalf("My Rules changed\nin:  %q\nout: %q", doc, out)
			}
		}
		n := 0
		nhs, _ := wiki.Headings(out)
		for _, h := range nhs {
			if h.Level == 2 && strings.HasPrefix(h.Title, InsightsTitle+" (auto-generated") {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d generated sections\nin:  %q\nout: %q", n, doc, out)
		}
		again, how, err := UpsertSection(out, InsightsTitle, []byte(newSection))
		if err != nil || !bytes.Equal(again, out) || how != "replaced" {
			t.Fatalf("second rewrite %s, %v\nin:  %q\nout: %q\nagain: %q", how, err, doc, out, again)
		}
	})
}

// FuzzTranscript: any bytes as a transcript file parse without a panic.
func FuzzTranscript(f *testing.F) {
	f.Add(`{"type":"user","sessionId":"s","timestamp":"2026-11-25T09:00:00Z","message":{"role":"user","content":"q?"}}` + "\n" +
		`{"type":"assistant","sessionId":"s","timestamp":"2026-11-25T09:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"mcp__llmwiki__read_page","input":{"path":"pages/a.md"}},{"type":"text","text":"a"}]}}`)
	f.Add(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"{\"sources\":[{\"path\":\"../x\",\"content\":\"y\"}]}"}]}]}}`)
	f.Add("not json\n{\"type\":\"assistant\"")
	dir := f.TempDir()
	st, err := openTemp(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data string) {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		var stats TranscriptStats
		exs, err := readTranscriptFile(p, &stats)
		if err != nil {
			return
		}
		for _, ex := range exs {
			if ex.usesWiki(st) {
				q := ex.toQuestion(st)
				for _, r := range append(q.PagesRead, q.SourcesRead...) {
					if _, err := wiki.CleanPath(r); err != nil {
						t.Fatalf("a read path escapes: %q", r)
					}
				}
			}
		}
	})
}

// FuzzAuditLine: any bytes as an audit file are read without a panic, and
// every line is counted as read, torn or bad.
func FuzzAuditLine(f *testing.F) {
	f.Add(`{"time":"2026-11-20T10:00:00Z","session":"s","tool":"file_answer","args":{"question":"q","citations":[{"path":1}]},"outcome":"ok","extra":{"answer_id":7},"duration_ms":1}` + "\n")
	f.Add(`{"time":"2026-11-20T10:00:00Z","session":"s","tool":"search_wiki","args":"x","outcome":"ok","extra":{"results":[1,"a"]}}` + "\n{")
	f.Fuzz(func(t *testing.T, data string) {
		var stats LogStats
		g := newGrouper(&answerIndex{paths: map[string]string{}, loaded: map[string]*AnswerRecord{}})
		if err := readAuditFile(strings.NewReader(data), "f.jsonl", time.Time{}, &stats, g.add); err != nil {
			t.Fatal(err)
		}
		qs, _ := g.questions()
		for _, q := range qs {
			if q.DurationMS < 0 && q.End.After(q.Start) {
				t.Fatalf("negative duration %v", q.DurationMS)
			}
		}
	})
}

func openTemp(dir string) (*wiki.Store, error) {
	if _, err := wiki.Init(dir); err != nil {
		return nil, err
	}
	return wiki.Open(dir)
}
