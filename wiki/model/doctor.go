package model

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/store"
)

// Check is one line of a [Diagnosis].
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what was found; Fix, when not OK, what to do.
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Diagnosis is what [Client.Doctor] found.
type Diagnosis struct {
	BaseURL string  `json:"base_url"`
	Model   string  `json:"model"`
	Key     string  `json:"key"`
	Checks  []Check `json:"checks"`
	OK      bool    `json:"ok"`
}

// Doctor checks that the endpoint answers (GET /models), that it offers the
// configured model, and that the model returns a JSON object for a tiny
// request. Each check says what to do when it fails. It never shows the key.
func (c *Client) Doctor(ctx context.Context) Diagnosis {
	d := Diagnosis{BaseURL: c.cfg.BaseURL, Model: c.cfg.Model, Key: "none"}
	if c.cfg.APIKey != "" {
		d.Key = fmt.Sprintf("from %s, sent only to %s", c.cfg.KeySource, c.cfg.KeyOrigin)
	}
	for _, n := range c.cfg.Notes {
		d.Checks = append(d.Checks, Check{Name: "configuration", OK: true, Detail: n})
	}
	models, err := c.Models(ctx)
	if err != nil {
		fix := "check --base-url / $" + EnvBaseURL
		if c.cfg.IsLocal() {
			fix = "install Ollama (https://ollama.com), run `ollama serve`, then `ollama pull " + c.cfg.Model + "`; or set --base-url / $" + EnvBaseURL + " to another OpenAI-compatible endpoint"
		}
		d.Checks = append(d.Checks, Check{Name: "endpoint", Detail: store.PublicMessage(err), Fix: fix})
		return d
	}
	d.Checks = append(d.Checks, Check{Name: "endpoint", OK: true, Detail: fmt.Sprintf("%s answers; it offers %d model(s)", c.cfg.Host(), len(models))})
	found := false
	for _, m := range models {
		if m == c.cfg.Model || strings.TrimSuffix(m, ":latest") == c.cfg.Model || m == c.cfg.Model+":latest" {
			found = true
		}
	}
	if !found {
		fix := "choose one of them with --model / $" + EnvModel
		if c.cfg.IsLocal() {
			fix = "run `ollama pull " + c.cfg.Model + "`, or " + fix
		}
		shown := models
		if len(shown) > 8 {
			shown = shown[:8]
		}
		d.Checks = append(d.Checks, Check{Name: "model", Detail: fmt.Sprintf("%q is not among the endpoint's models (%s)", c.cfg.Model, strings.Join(shown, ", ")), Fix: fix})
	} else {
		d.Checks = append(d.Checks, Check{Name: "model", OK: true, Detail: fmt.Sprintf("%q is available", c.cfg.Model)})
	}
	start := time.Now()
	comp, err := c.Complete(ctx, Request{
		System:    "You answer with one JSON object and nothing else.",
		User:      `Reply with exactly this JSON object: {"ok": true}`,
		MaxTokens: 50,
	}, nil)
	if err != nil {
		d.Checks = append(d.Checks, Check{Name: "completion", Detail: store.PublicMessage(err), Fix: "see the message; `ollama ps` shows loaded models"})
		return d
	}
	v, perr := DecodeJSON(CleanReply(comp.Content))
	if m, ok := v.(map[string]any); perr != nil || !ok || m["ok"] != true {
		d.Checks = append(d.Checks, Check{Name: "completion", Detail: fmt.Sprintf("the model answered in %.1f s but not with the JSON asked for: %q", time.Since(start).Seconds(), oneLine(comp.Content, 120)), Fix: "use a model that follows JSON instructions (llama3.2:3b or larger), or try --response-format json_schema"})
		return d
	}
	d.Checks = append(d.Checks, Check{Name: "completion", OK: true, Detail: fmt.Sprintf("the model returned JSON in %.1f s (%d prompt + %d completion tokens)", time.Since(start).Seconds(), comp.PromptTokens, comp.CompletionTokens)})
	if !found {
		// Some endpoints do not list every model they serve (aliases,
		// routers); one that answers is good enough.
		for i := range d.Checks {
			if d.Checks[i].Name == "model" {
				d.Checks[i] = Check{Name: "model", OK: true, Detail: fmt.Sprintf("%q is not listed by the endpoint, but it answered", c.cfg.Model)}
			}
		}
	}
	d.OK = true
	return d
}
