package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmwiki/llmwiki/wiki/store"
	openai "github.com/sashabaranov/go-openai"
)

// Usage sums the completions of one [Client.Ask]. It is what the audit line
// records under extra.model and what commands print as their summary.
type Usage struct {
	Endpoint         string  `json:"endpoint"`
	Model            string  `json:"model"`
	Completions      int     `json:"completions"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	DurationMS       float64 `json:"duration_ms"`
	// Retried is true when the first reply was rejected.
	Retried bool `json:"retried,omitempty"`
	// FirstError is why the first reply was rejected.
	FirstError string `json:"first_error,omitempty"`
	// Each lists every completion in order (one, or two after a retry).
	Each []CompletionStats `json:"each,omitempty"`
	// Warning flags a likely problem with the endpoint, such as a prompt
	// it cut to fit a small context window.
	Warning string `json:"warning,omitempty"`
}

// String is a one-line summary for command output.
func (u Usage) String() string {
	s := fmt.Sprintf("model %s at %s: %d completion(s), %d prompt + %d completion tokens, %.1f s",
		u.Model, u.Endpoint, u.Completions, u.PromptTokens, u.CompletionTokens, u.DurationMS/1000)
	if u.Retried {
		s += " (first reply rejected, retried once)"
	}
	if u.Warning != "" {
		s += "\nwarning: " + u.Warning
	}
	return s
}

// CompletionStats are the figures of one completion.
type CompletionStats struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	DurationMS       float64 `json:"duration_ms"`
	FinishReason     string  `json:"finish_reason,omitempty"`
}

func (u *Usage) add(c Completion) {
	u.Each = append(u.Each, CompletionStats{c.PromptTokens, c.CompletionTokens, float64(c.Duration.Microseconds()) / 1000, c.FinishReason})
	u.Completions++
	u.PromptTokens += c.PromptTokens
	u.CompletionTokens += c.CompletionTokens
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.DurationMS += float64(c.Duration.Microseconds()) / 1000
}

// RejectedError is returned by [Client.Ask] when the reply and the one retry
// were both rejected by the checker. Both errors are kept and shown.
type RejectedError struct {
	First, Second error
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("the model's reply was rejected twice, so nothing was proposed or written. First reply: %s. Retry: %s", reason(e.First), reason(e.Second))
}

func reason(err error) string { return strings.TrimSuffix(store.PublicMessage(err), ".") }

// Ask runs one JSON completion and passes the reply (code fences and a
// leading <think> block removed) to check. When check fails, it asks exactly
// once more with the rejected reply and the error appended ("Respond again
// with ONLY the corrected JSON"); if that fails too the result is a
// [*RejectedError] wrapped in a *store.Error (CodeInvalid) whose message shows
// both errors. Endpoint errors are returned as they are, without a retry.
//
// While a completion runs, progress is reported as [Client.Complete] does,
// numbered on across the retry.
//
// The summed [Usage] is recorded in the audit line of the call in ctx under
// extra.model, also on failure.
func (c *Client) Ask(ctx context.Context, req Request, check func(reply []byte) error) ([]byte, Usage, error) {
	u := Usage{Endpoint: c.cfg.Host(), Model: c.cfg.Model}
	record := func() { store.CallFrom(ctx).SetExtra("model", u) }
	defer record()

	wait := &waiting{}
	comp, err := c.complete(ctx, req, nil, wait)
	u.add(comp)
	if err != nil {
		return nil, u, err
	}
	u.Warning = truncationWarning(len(req.System)+len(req.User), comp.PromptTokens)
	reply := CleanReply(comp.Content)
	first := check(reply)
	if first == nil {
		return reply, u, nil
	}
	first = truncatedHint(first, comp)
	u.Retried, u.FirstError = true, reason(first)
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleAssistant, Content: clip(comp.Content, 20000)},
		{Role: openai.ChatMessageRoleUser, Content: "Your reply was rejected: " + store.PublicMessage(first) + "\nRespond again with ONLY the corrected JSON document: no prose, no code fences."},
	}
	wait.retry = true
	comp, err = c.complete(ctx, req, history, wait)
	u.add(comp)
	if err != nil {
		return nil, u, err
	}
	reply = CleanReply(comp.Content)
	second := check(reply)
	if second == nil {
		return reply, u, nil
	}
	second = truncatedHint(second, comp)
	rej := &RejectedError{First: first, Second: second}
	return nil, u, &store.Error{Code: store.CodeInvalid, Msg: rej.Error(), Err: rej}
}

// truncationWarning compares the prompt's size with the tokens the endpoint
// says it read. Text runs about 4 bytes a token (less for code and CJK); an
// endpoint that read under a third of the estimate cut the prompt, as Ollama
// does silently when it exceeds the model's context window.
func truncationWarning(promptBytes, promptTokens int) string {
	est := promptBytes / 4
	if promptTokens <= 0 || est < 2048 || promptTokens*3 > est {
		return ""
	}
	return fmt.Sprintf("the endpoint read %d prompt tokens of a prompt of about %d: it probably cut the prompt to its context window, so the model did not see everything. With Ollama, raise the window (OLLAMA_CONTEXT_LENGTH=16384 ollama serve) or pass a smaller --budget", promptTokens, est)
}

func truncatedHint(err error, c Completion) error {
	if c.FinishReason == "length" {
		return store.Errorf(store.CodeInvalid, "%s (the reply was cut off at the token limit: propose fewer or shorter actions)", store.PublicMessage(err))
	}
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// CleanReply trims what models commonly wrap around a JSON document: white
// space, one leading <think>…</think> block, and one surrounding ``` fence
// (with or without a language tag). Anything else is left for the parser to
// reject.
func CleanReply(s string) []byte {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		inner := s[3 : len(s)-3]
		if nl := strings.IndexByte(inner, '\n'); nl >= 0 && !strings.ContainsAny(inner[:nl], "{[\"") {
			inner = inner[nl+1:]
		}
		s = strings.TrimSpace(inner)
	}
	return []byte(s)
}

// DecodeJSON parses data as exactly one JSON value (numbers kept as
// json.Number) and returns it for schema validation. Trailing data, empty
// input and invalid UTF-8 are errors that say where the problem is.
func DecodeJSON(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, store.Errorf(store.CodeInvalid, "the reply is empty; it must be one JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, store.Errorf(store.CodeInvalid, "the reply is not valid JSON: %s", jsonErr(data, err, dec.InputOffset()))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, store.Errorf(store.CodeInvalid, "the reply has text after the JSON object (at byte %d); send only the JSON object", dec.InputOffset())
	}
	return v, nil
}

func jsonErr(data []byte, err error, off int64) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "it ends in the middle of a value (was it cut off?)"
	}
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%s (line %d, column %d)", strings.TrimPrefix(err.Error(), "json: "), line, col)
}
