package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Judge checks an answered question against the files its agent read. It is
// optional: without one, eval still computes every deterministic metric.
// The idea is llm-kb's judge, with one difference: the judge
// gets every file in full, never the first 2,000 characters.
type Judge interface {
	// Name identifies the judge in reports ("model llama3.2 at ...").
	Name() string
	// Judge returns findings about one question. Findings that quote a
	// file are verified by eval; the judge's word alone is not evidence.
	Judge(ctx context.Context, in JudgeInput) ([]JudgeFinding, error)
}

// JudgeInput is one question for a judge.
type JudgeInput struct {
	Question string
	Answer   string
	// Files are the files the question read or cited, each in full.
	Files []JudgeFile
	// Skipped are files search offered that were not read.
	Skipped []string
}

// JudgeFile is one file, whole.
type JudgeFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// JudgeFinding is one problem a judge reports.
type JudgeFinding struct {
	// Kind: "contradiction" (the answer says what a file contradicts),
	// "unsupported" (a claim no file read supports), "citation" (a cited
	// clause, number or name differs from the file) or "wiki-gap" (the wiki
	// should have a page on it).
	Kind string `json:"kind"`
	// Severity is "error" or "warning".
	Severity       string `json:"severity"`
	Detail         string `json:"detail"`
	Recommendation string `json:"recommendation,omitempty"`
	// Path and Quote are the evidence: a passage copied from a file the
	// judge was given. Required for contradiction and citation findings.
	Path  string `json:"path,omitempty"`
	Quote string `json:"quote,omitempty"`
}

// JudgeStats reports what the judge did.
type JudgeStats struct {
	Judge     string `json:"judge"`
	Questions int    `json:"questions"`
	Findings  int    `json:"findings"`
	// Unverified counts findings dropped because their quote is not in the
	// file they name (or they had none where one is required).
	Unverified int `json:"unverified"`
	// Failures counts questions the judge could not check; Failure is the
	// first error.
	Failures int    `json:"failures"`
	Failure  string `json:"failure,omitempty"`
	// Usage is the model's token usage and time, for a [ModelJudge].
	Usage *model.Usage `json:"usage,omitempty"`
}

// runJudge asks the judge about the newest questions (up to opts.JudgeMax)
// that read or cited at least one file, and adds its verified findings to
// rep.
func runJudge(ctx context.Context, st *wiki.Store, opts Options, rep *Report, say func(string)) *JudgeStats {
	js := &JudgeStats{Judge: opts.Judge.Name()}
	max := opts.JudgeMax
	if max <= 0 {
		max = 50
	}
	qs := append([]*Question{}, rep.Questions...)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].End.After(qs[j].End) })
	if len(qs) > max {
		qs = qs[:max]
	}
	inARow := 0
	for i, q := range qs {
		if ctx.Err() != nil {
			break
		}
		say(fmt.Sprintf("Judging %d/%d: %q", i+1, len(qs), clip(q.Question, 60)))
		in := JudgeInput{Question: q.Question, Answer: q.Answer}
		paths := append(append([]string{}, q.PagesRead...), q.SourcesRead...)
		for _, c := range q.Checks {
			paths = addUnique(paths, c.Path)
		}
		texts := map[string]string{}
		for _, p := range paths {
			data, err := st.ReadFile(p)
			if err != nil {
				continue
			}
			dec := mdoc.Decode(data) // the text the agent read
			if dec.Binary {
				continue
			}
			texts[p] = string(dec.Text)
			in.Files = append(in.Files, JudgeFile{Path: p, Content: texts[p]})
		}
		if len(in.Files) == 0 {
			continue // nothing read, nothing to contradict
		}
		for _, p := range q.SearchResults {
			if _, read := texts[p]; !read {
				in.Skipped = append(in.Skipped, p)
			}
		}
		findings, err := opts.Judge.Judge(ctx, in)
		js.Questions++
		if err != nil {
			js.Failures++
			inARow++
			if js.Failure == "" {
				js.Failure = store.PublicMessage(err)
			}
			if inARow == 3 {
				js.Failure += " (stopped after 3 failures in a row)"
				break
			}
			continue
		}
		inARow = 0
		for _, f := range findings {
			issue, ok := verifyFinding(f, texts)
			if !ok {
				js.Unverified++
				continue
			}
			js.Findings++
			issue.Question, issue.QuestionID, issue.Session, issue.Searches = q.Question, q.ID, q.Session, q.Searches
			switch {
			case issue.Kind == "wiki-gap":
				rep.Gaps.Judge = append(rep.Gaps.Judge, issue)
			case issue.Severity == "error":
				rep.Errors = append(rep.Errors, issue)
			default:
				rep.Warnings = append(rep.Warnings, issue)
			}
		}
	}
	if mj, ok := opts.Judge.(*ModelJudge); ok {
		u := mj.Usage
		js.Usage = &u
	}
	return js
}

// verifyFinding checks a judge finding's shape and evidence: contradiction
// and citation findings must quote a file the judge was given, and the quote
// must be found there (package quote's normalisation, 8-300 characters).
func verifyFinding(f JudgeFinding, texts map[string]string) (Issue, bool) {
	kind := strings.ToLower(strings.TrimSpace(f.Kind))
	sev := strings.ToLower(strings.TrimSpace(f.Severity))
	if sev != "error" {
		sev = "warning"
	}
	issue := Issue{Kind: kind, Severity: sev, Title: clip(oneLine(f.Detail), 200), Detail: f.Detail, Recommendation: oneLine(f.Recommendation), Path: f.Path, Quote: f.Quote}
	switch kind {
	case "contradiction", "citation":
	case "unsupported", "wiki-gap":
		if f.Quote == "" {
			return issue, strings.TrimSpace(f.Detail) != ""
		}
	default:
		return issue, false
	}
	// A slice of a long file is labelled "path (lines a-b)"; the evidence
	// is checked against the whole file.
	if i := strings.Index(f.Path, " (lines "); i > 0 {
		f.Path = f.Path[:i]
		issue.Path = f.Path
	}
	text, ok := texts[f.Path]
	if !ok {
		return issue, false
	}
	if _, found := checkText(f.Quote, text); !found {
		return issue, false
	}
	if issue.Title == "" {
		issue.Title = kind
	}
	return issue, true
}

// Asker is the one call a model judge needs: [model.Client.Ask], a JSON
// completion checked by check, with one retry on a rejected reply.
type Asker interface {
	Ask(ctx context.Context, req model.Request, check func(reply []byte) error) ([]byte, model.Usage, error)
}

// ModelJudge is a [Judge] that asks a model (package model: any
// OpenAI-compatible endpoint). Files are sent whole; when they do not fit in
// MaxChars, the question is asked several times, each time with a complete
// slice of the files (cut at line ends), so every character of every file
// is read by the model in one of the calls.
type ModelJudge struct {
	Model Asker
	Label string
	// MaxChars is the most file text in one completion (default
	// DefaultJudgeChars). Keep it within the model's context window: an
	// endpoint that cuts the prompt is reported in the usage warning.
	MaxChars int
	// Usage sums every completion made so far.
	Usage model.Usage
}

// DefaultJudgeChars is the default file text per judge completion, about
// 4,000 tokens: it fits the context window small local models are served
// with.
const DefaultJudgeChars = 16_000

// NewModelJudge returns a judge that asks c.
func NewModelJudge(c *model.Client, maxChars int) *ModelJudge {
	cfg := c.Config()
	return &ModelJudge{Model: c, Label: "model " + cfg.Model + " at " + cfg.Host(), MaxChars: maxChars}
}

// Name implements [Judge].
func (m *ModelJudge) Name() string { return m.Label }

const judgeSystem = `You are a strict fact checker for answers given from a markdown wiki.
You get a QUESTION, the ANSWER an agent gave, and the FULL TEXT of the files the agent read
(a long file may come in slices; each slice is complete).
Report problems only when the files show them:
- "contradiction": the answer states something a file contradicts;
- "citation": the answer names a clause, number, date or name that differs from the file;
- "unsupported": an important claim no file supports;
- "wiki-gap": the topic deserves its own wiki page (detail = the topic).
For contradiction and citation findings, "path" must be one of the files given and "quote"
must be 8-300 characters copied exactly from that file; findings whose quote is not in the
file are discarded.
Reply with JSON only: {"findings":[{"kind":"...","severity":"error|warning","detail":"...",
"recommendation":"...","path":"...","quote":"..."}]}. No problems: {"findings":[]}.`

// judgeSchema is the reply's JSON schema, for endpoints that take one.
var judgeSchema = json.RawMessage(`{"type":"object","additionalProperties":false,"required":["findings"],
"properties":{"findings":{"type":"array","maxItems":20,"items":{"type":"object","additionalProperties":false,
"required":["kind","severity","detail"],"properties":{
"kind":{"type":"string","enum":["contradiction","citation","unsupported","wiki-gap"]},
"severity":{"type":"string","enum":["error","warning"]},
"detail":{"type":"string","maxLength":1000},
"recommendation":{"type":"string","maxLength":500},
"path":{"type":"string","maxLength":1024},
"quote":{"type":"string","maxLength":1000}}}}}}`)

// Judge implements [Judge].
func (m *ModelJudge) Judge(ctx context.Context, in JudgeInput) ([]JudgeFinding, error) {
	max := m.MaxChars
	if max <= 0 {
		max = DefaultJudgeChars
	}
	var out []JudgeFinding
	for _, part := range splitFiles(in.Files, max) {
		var b strings.Builder
		fmt.Fprintf(&b, "QUESTION: %s\n\nANSWER:\n%s\n\nFILES READ BY AGENT (full text):\n", in.Question, in.Answer)
		for _, f := range part {
			fmt.Fprintf(&b, "\n=== File: %s ===\n%s\n=== end of %s ===\n", f.Path, f.Content, f.Path)
		}
		if len(in.Skipped) > 0 {
			fmt.Fprintf(&b, "\nFILES AVAILABLE BUT SKIPPED: %s\n", strings.Join(in.Skipped, ", "))
		}
		var found []JudgeFinding
		_, u, err := m.Model.Ask(ctx, model.Request{System: judgeSystem, User: b.String(), Schema: judgeSchema, SchemaName: "llmwiki_eval_judge"},
			func(reply []byte) error {
				fs, perr := parseFindings(string(reply))
				if perr != nil {
					return store.Errorf(store.CodeInvalid, "%v", perr)
				}
				found = fs
				return nil
			})
		m.addUsage(u)
		if err != nil {
			return out, err
		}
		out = append(out, found...)
	}
	return out, nil
}

func (m *ModelJudge) addUsage(u model.Usage) {
	m.Usage.Endpoint, m.Usage.Model = u.Endpoint, u.Model
	m.Usage.Completions += u.Completions
	m.Usage.PromptTokens += u.PromptTokens
	m.Usage.CompletionTokens += u.CompletionTokens
	m.Usage.TotalTokens += u.TotalTokens
	m.Usage.DurationMS += u.DurationMS
	if u.Retried {
		m.Usage.Retried = true
	}
	if u.Warning != "" {
		m.Usage.Warning = u.Warning
	}
}

// splitFiles packs files into parts of at most max characters, in order; a
// file larger than max is first cut at line ends into consecutive slices
// labelled "path (lines a-b)" (a single line longer than max is one
// slice). Every character lands in exactly one part.
func splitFiles(files []JudgeFile, max int) [][]JudgeFile {
	var pieces []JudgeFile
	for _, f := range files {
		if utf8.RuneCountInString(f.Content) <= max {
			pieces = append(pieces, f)
			continue
		}
		var b strings.Builder
		first, line, size := 1, 1, 0
		emit := func() {
			if b.Len() > 0 {
				pieces = append(pieces, JudgeFile{Path: fmt.Sprintf("%s (lines %d-%d)", f.Path, first, line-1), Content: b.String()})
				b.Reset()
				size, first = 0, line
			}
		}
		for _, l := range strings.SplitAfter(f.Content, "\n") {
			n := utf8.RuneCountInString(l)
			if size+n > max && size > 0 {
				emit()
			}
			b.WriteString(l)
			size += n
			line++
		}
		emit()
	}
	var parts [][]JudgeFile
	var cur []JudgeFile
	used := 0
	for _, p := range pieces {
		n := utf8.RuneCountInString(p.Content)
		if used+n > max && len(cur) > 0 {
			parts = append(parts, cur)
			cur, used = nil, 0
		}
		cur = append(cur, p)
		used += n
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// parseFindings reads a judge reply: {"findings":[...]} or a bare array,
// possibly inside a ```json fence.
func parseFindings(text string) ([]JudgeFinding, error) {
	t := strings.TrimSpace(text)
	if i := strings.Index(t, "```"); i >= 0 {
		t = t[i+3:]
		t = strings.TrimPrefix(t, "json")
		if j := strings.Index(t, "```"); j >= 0 {
			t = t[:j]
		}
		t = strings.TrimSpace(t)
	}
	var wrap struct {
		Findings []JudgeFinding `json:"findings"`
	}
	if strings.HasPrefix(t, "[") {
		if err := json.Unmarshal([]byte(t), &wrap.Findings); err != nil {
			return nil, fmt.Errorf("not a JSON array of findings: %v", err)
		}
		return wrap.Findings, nil
	}
	if err := json.Unmarshal([]byte(t), &wrap); err != nil {
		return nil, fmt.Errorf("not a JSON object with findings: %v", err)
	}
	return wrap.Findings, nil
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
