package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/internal/redact"
)

// MaxLine is the longest transcript line read, in bytes; longer lines (a
// pasted image, a huge tool result) are skipped.
const MaxLine = 16 << 20

// ToolCall is one tool use, summarised.
type ToolCall struct {
	Name string
	// Summary is the argument that says what the call did (a path, a
	// command, a query), cut to one short line.
	Summary string
	// Result is "12 lines", "error: ..." or "" when no result was seen.
	Result string
	id     string
}

// Turn is one question and what followed it until the next question.
type Turn struct {
	// Index is the turn's position in the session, from 1.
	Index    int
	Time     time.Time
	Question string
	// Answer is the assistant's text, in order.
	Answer []string
	Tools  []ToolCall
	// Redacted counts the secret values replaced in the turn's texts, by
	// rule.
	Redacted redact.Counts
}

// Session is a parsed transcript.
type Session struct {
	ID    string
	Turns []Turn
	// Start and End are the first and last timestamps seen.
	Start, End time.Time
	// CWD is the working directory the session recorded, if any.
	CWD string
	// Skipped counts lines that were not usable (bad JSON, other
	// sessions, too long).
	Skipped int

	red    *redact.Redactor
	redErr error
}

type entry struct {
	Type        string          `json:"type"`
	SessionID   string          `json:"sessionId"`
	Timestamp   string          `json:"timestamp"`
	IsSidechain bool            `json:"isSidechain"`
	IsMeta      bool            `json:"isMeta"`
	CWD         string          `json:"cwd"`
	Message     json.RawMessage `json:"message"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	ID        string          `json:"id"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// Parse reads a transcript and keeps the entries of session id (an entry
// without a sessionId field is kept: older transcripts lack it). Every text
// it keeps (question, answer, tool name, argument, error line) has its
// secrets replaced by markers (package redact) before it is cut or
// squeezed onto one line, so no cut leaves part of a secret; it fails
// rather than keep a text it could not redact.
func Parse(r io.Reader, id string) (*Session, error) {
	red, err := redact.Default()
	if err != nil {
		return nil, err
	}
	s := &Session{ID: id, red: red}
	br := bufio.NewReaderSize(r, 64<<10)
	var cur *Turn
	pending := map[string]int{}
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			s.consume(line, &cur, pending)
		}
		if err == io.EOF {
			break
		}
		if err == errTooLong {
			s.Skipped++
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	if cur != nil {
		s.Turns = append(s.Turns, *cur)
	}
	if s.redErr != nil {
		return nil, s.redErr
	}
	return s, nil
}

// redact returns t with its secrets replaced, adding their counts to c.
func (s *Session) redact(t string, c redact.Counts) string {
	out, n, err := s.red.Redact(t)
	if err != nil {
		s.redErr = err
		return ""
	}
	c.Add(n)
	return out
}

func addCounts(t *Turn, c redact.Counts) {
	if t == nil || len(c) == 0 {
		return
	}
	if t.Redacted == nil {
		t.Redacted = redact.Counts{}
	}
	t.Redacted.Add(c)
}

var errTooLong = fmt.Errorf("line too long")

// readLine returns one line without its newline; a line over MaxLine is
// drained and reported as errTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				return buf, nil
			}
			return buf, err
		}
		if len(buf)+len(chunk) > MaxLine {
			for isPrefix {
				_, isPrefix, err = br.ReadLine()
				if err != nil {
					return nil, err
				}
			}
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		if !isPrefix {
			return buf, nil
		}
	}
}

func (s *Session) consume(line []byte, cur **Turn, pending map[string]int) {
	var e entry
	if json.Unmarshal(line, &e) != nil {
		s.Skipped++
		return
	}
	if e.SessionID != "" && e.SessionID != s.ID {
		s.Skipped++
		return
	}
	if e.Type != "user" && e.Type != "assistant" {
		return // summaries, system notes, file snapshots
	}
	if e.IsSidechain || e.IsMeta || len(e.Message) == 0 {
		return
	}
	t, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
	if !t.IsZero() {
		if s.Start.IsZero() || t.Before(s.Start) {
			s.Start = t
		}
		if t.After(s.End) {
			s.End = t
		}
	}
	if s.CWD == "" {
		s.CWD = e.CWD
	}
	var m message
	if json.Unmarshal(e.Message, &m) != nil {
		s.Skipped++
		return
	}
	text, blocks := content(m.Content)
	counts := redact.Counts{}
	red := func(t string) string { return s.redact(t, counts) }
	switch e.Type {
	case "user":
		var q []string
		if text != "" {
			q = append(q, text)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				q = append(q, b.Text)
			case "tool_result":
				if i, ok := pending[b.ToolUseID]; ok && *cur != nil && i < len((*cur).Tools) {
					(*cur).Tools[i].Result = resultSummary(b, red)
					delete(pending, b.ToolUseID)
				}
			}
		}
		addCounts(*cur, counts)
		counts = redact.Counts{}
		question := red(clean(strings.Join(q, "\n\n")))
		if question == "" {
			return
		}
		if *cur != nil {
			s.Turns = append(s.Turns, **cur)
		}
		clear(pending)
		*cur = &Turn{Index: len(s.Turns) + 1, Time: t, Question: question}
		addCounts(*cur, counts)
	case "assistant":
		if *cur == nil {
			*cur = &Turn{Index: len(s.Turns) + 1, Time: t}
		}
		if text != "" {
			(*cur).Answer = append((*cur).Answer, red(clean(text)))
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if c := red(clean(b.Text)); c != "" {
					(*cur).Answer = append((*cur).Answer, c)
				}
			case "tool_use":
				(*cur).Tools = append((*cur).Tools, ToolCall{Name: oneLine(red(b.Name), 80), Summary: inputSummary(b.Input, red), id: b.ID})
			}
		}
		addCounts(*cur, counts)
		for i, tc := range (*cur).Tools {
			if tc.id != "" && tc.Result == "" {
				pending[tc.id] = i
			}
		}
	}
}

// content splits a message's content into plain text or blocks.
func content(raw json.RawMessage) (string, []block) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var bs []block
	if json.Unmarshal(raw, &bs) == nil {
		return "", bs
	}
	return "", nil
}

var (
	reminderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`) })
	plumbingRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>.*?</(command-name|command-message|command-args|local-command-stdout|local-command-stderr|local-command-caveat)>`)
	})
)

// clean drops system reminders and slash-command plumbing, and invalid UTF-8.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = reminderRE().ReplaceAllString(s, "")
	s = plumbingRE().ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "[Request interrupted by user]", "")
	return strings.TrimSpace(s)
}

// inputKeys are the tool arguments that say what a call did, in order of
// preference.
var inputKeys = []string{"file_path", "path", "notebook_path", "command", "pattern", "url", "query", "slug", "title", "topic", "op", "description", "prompt", "subagent_type"}

func inputSummary(raw json.RawMessage, red func(string) string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || len(m) == 0 {
		return ""
	}
	for _, k := range inputKeys {
		if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
			return k + "=" + oneLine(red(v), 120)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "args: " + oneLine(red(strings.Join(keys, ", ")), 120)
}

func resultSummary(b block, red func(string) string) string {
	text, blocks := content(b.Content)
	for _, x := range blocks {
		if x.Type == "text" {
			text += x.Text
		}
	}
	if b.IsError {
		// Only the first line is kept (no secret but a PEM block spans
		// lines, and its first line holds no key).
		first := strings.SplitN(strings.TrimSpace(clean(text)), "\n", 2)[0]
		return "error: " + oneLine(red(first), 160)
	}
	n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	if strings.TrimSpace(text) == "" {
		return "no output"
	}
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// oneLine squeezes s onto one line of at most n characters. A cut never
// splits a redaction marker (half a marker would read as a value).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1])
		if i := strings.LastIndex(s, "[REDACTED:"); i >= 0 && !strings.Contains(s[i:], "]") {
			s = s[:i]
		}
		s += "…"
	}
	return s
}
