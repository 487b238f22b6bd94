// Package model is llmwiki's client for an OpenAI-compatible chat endpoint
// (github.com/sashabaranov/go-openai): a local Ollama by default, any cloud
// or self-hosted endpoint when configured.
//
// The model never writes to disk. [Client.Ask] runs one constrained JSON
// completion (temperature 0.2, a JSON response format where the endpoint
// supports it) and hands the reply to a checker; when the checker rejects it
// there is exactly one retry with the error appended, and then a
// [*RejectedError] carrying both errors. Callers (package plan) turn an
// accepted reply into a plan a person approves before any writer runs. The
// design follows MindBase's "the model proposes JSON, it never writes prose
// to disk".
//
// An API key is bound to the origin (scheme, host, port) it was configured
// for ([Resolve]); the HTTP transport attaches it only to requests for that
// origin and refuses redirects to any other, so a key is never sent to a host
// it was not configured for. Token usage and the duration of each completion
// are recorded in the audit line of the call in the context
// (store.CallFrom(ctx).SetExtra("model", ...)).
package model
