package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	openai "github.com/sashabaranov/go-openai"
)

// MaxResponseBytes bounds the body of one endpoint response; a longer one is
// an error rather than unbounded memory.
const MaxResponseBytes = 32 << 20

// Client talks to one OpenAI-compatible endpoint with go-openai. It is safe
// for concurrent use.
type Client struct {
	cfg Config
	api *openai.Client
	hc  *http.Client
}

// New returns a client for cfg (from [Resolve]). go-openai never sees the
// key: the transport adds it, and only to requests for cfg.KeyOrigin.
func New(cfg Config) (*Client, error) {
	if _, err := Origin(cfg.BaseURL); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ResponseFormat == "" {
		cfg.ResponseFormat = FormatJSONObject
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{
		Transport: &keyTransport{base: base, key: cfg.APIKey, origin: cfg.KeyOrigin},
		// Only redirects within the configured origin are followed.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if originOf(req.URL) != originOf(via[0].URL) {
				return fmt.Errorf("the endpoint redirected to another host (%s); llmwiki does not follow it", req.URL.Host)
			}
			return nil
		},
	}
	oc := openai.DefaultConfig("")
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = hc
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc), hc: hc}, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// keyTransport adds the bearer token to requests for its origin only, and
// bounds response bodies.
type keyTransport struct {
	base   http.RoundTripper
	key    string
	origin string
}

func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Del("Authorization")
	if t.key != "" && t.origin != "" && originOf(req.URL) == t.origin {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{rc: resp.Body, left: MaxResponseBytes}
	return resp, nil
}

type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the endpoint's response is larger than %d bytes", MaxResponseBytes)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

// Request is one JSON completion.
type Request struct {
	// System and User are the two messages.
	System, User string
	// Schema is the reply's JSON schema, sent with [FormatJSONSchema].
	Schema json.RawMessage
	// SchemaName names the schema for the endpoint ("llmwiki_plan").
	SchemaName string
	// MaxTokens bounds the reply (0: the endpoint's default).
	MaxTokens int
}

// Completion is one reply of the endpoint.
type Completion struct {
	Content          string
	FinishReason     string
	PromptTokens     int
	CompletionTokens int
	Duration         time.Duration
}

// Complete runs one chat completion with the given messages. The call is
// bounded by the configured timeout. Errors are *store.Error values whose
// message says what to do (start Ollama, pull the model, check the key).
//
// While the endpoint has not answered, Complete reports progress to the
// context's [wiki.ProgressFunc] every [Config.ProgressInterval]: done is 1,
// 2, 3, … (total 0, unknown) and the message "waiting for <model> (Ns)". The
// reports stop before Complete returns.
func (c *Client) Complete(ctx context.Context, req Request, history []openai.ChatCompletionMessage) (Completion, error) {
	return c.complete(ctx, req, history, &waiting{})
}

// waiting numbers the progress reports of one [Client.Ask] (both
// completions of a retry), so they keep increasing.
type waiting struct {
	n     int
	retry bool
}

// tick reports progress every interval until the returned stop is called;
// stop returns only when no report is in flight, so none comes after it.
func (c *Client) tick(ctx context.Context, w *waiting, start time.Time) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(c.cfg.ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-t.C:
				select {
				case <-done:
					return
				default:
				}
				w.n++
				msg := fmt.Sprintf("waiting for %s (%ds)", c.cfg.Model, int(now.Sub(start).Round(time.Second)/time.Second))
				if w.retry {
					msg = fmt.Sprintf("waiting for %s (%ds, retry)", c.cfg.Model, int(now.Sub(start).Round(time.Second)/time.Second))
				}
				wiki.Progress(ctx, w.n, 0, msg)
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

func (c *Client) complete(ctx context.Context, req Request, history []openai.ChatCompletionMessage, w *waiting) (Completion, error) {
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: req.System},
		{Role: openai.ChatMessageRoleUser, Content: req.User},
	}
	msgs = append(msgs, history...)
	creq := openai.ChatCompletionRequest{
		Model:       c.cfg.Model,
		Messages:    msgs,
		Temperature: Temperature,
		MaxTokens:   req.MaxTokens,
	}
	switch c.cfg.ResponseFormat {
	case FormatJSONObject:
		creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	case FormatJSONSchema:
		if len(req.Schema) > 0 {
			name := req.SchemaName
			if name == "" {
				name = "reply"
			}
			creq.ResponseFormat = &openai.ChatCompletionResponseFormat{
				Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: req.Schema},
			}
		} else {
			creq.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	start := time.Now()
	stop := c.tick(ctx, w, start)
	resp, err := c.api.CreateChatCompletion(ctx, creq)
	if err != nil && creq.ResponseFormat != nil && rejectsResponseFormat(err) {
		// "where the endpoint supports it": an endpoint that refuses
		// response_format gets the same request without it.
		creq.ResponseFormat = nil
		resp, err = c.api.CreateChatCompletion(ctx, creq)
	}
	stop()
	out := Completion{Duration: time.Since(start)}
	if err != nil {
		return out, c.explain(ctx, err)
	}
	out.PromptTokens, out.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	if len(resp.Choices) == 0 {
		return out, store.Errorf(store.CodeInternal, "the model endpoint %s returned no choices for model %s", c.cfg.Host(), c.cfg.Model)
	}
	out.Content = resp.Choices[0].Message.Content
	out.FinishReason = string(resp.Choices[0].FinishReason)
	return out, nil
}

func rejectsResponseFormat(err error) bool {
	var ae *openai.APIError
	if errors.As(err, &ae) && ae.HTTPStatusCode == http.StatusBadRequest {
		return strings.Contains(strings.ToLower(ae.Message), "response_format")
	}
	return false
}

// explain turns a transport or API error into a message a person can act on.
//
// An endpoint that cannot be reached is CodeUnavailable, named by its base
// URL (Resolve refuses one that carries credentials, a query or a fragment,
// so the URL holds no secret).
func (c *Client) explain(ctx context.Context, err error) error {
	host := c.cfg.Host()
	endpoint := c.cfg.BaseURL
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err):
		return &store.Error{Code: store.CodeInternal, Err: err, Msg: fmt.Sprintf("the model endpoint %s did not answer within %s; use a smaller or already-loaded model, or raise --timeout / $%s", host, c.cfg.Timeout, EnvTimeout)}
	case errors.Is(err, context.Canceled):
		return &store.Error{Code: store.CodeCancelled, Err: err, Msg: "cancelled while waiting for the model; nothing was written"}
	case errors.As(err, &ae):
		return c.explainStatus(ae.HTTPStatusCode, ae.Message, err)
	case errors.As(err, &re):
		return c.explainStatus(re.HTTPStatusCode, strings.TrimSpace(string(re.Body)), err)
	case isConnRefused(err):
		hint := "check --base-url / $" + EnvBaseURL
		if c.cfg.IsLocal() {
			hint = "start Ollama (ollama serve) or point --base-url / $" + EnvBaseURL + " at a running endpoint"
		}
		return &store.Error{Code: store.CodeUnavailable, Err: err, Msg: fmt.Sprintf("cannot reach the model endpoint %s (connection refused): %s; llmwiki doctor checks the setup", endpoint, hint)}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return &store.Error{Code: store.CodeUnavailable, Err: err, Msg: fmt.Sprintf("cannot resolve the host of the model endpoint %s; check --base-url / $%s", endpoint, EnvBaseURL)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return &store.Error{Code: store.CodeUnavailable, Err: err, Msg: fmt.Sprintf("cannot talk to the model endpoint %s: %s; llmwiki doctor checks the setup", endpoint, oneLine(ue.Err.Error(), 200))}
	}
	return &store.Error{Code: store.CodeInternal, Err: err, Msg: fmt.Sprintf("the model endpoint %s failed: %s", host, oneLine(err.Error(), 300))}
}

func (c *Client) explainStatus(status int, msg string, err error) error {
	host := c.cfg.Host()
	msg = oneLine(msg, 300)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		hint := "set --api-key or $" + EnvAPIKey
		if c.cfg.APIKey != "" {
			hint = "check the key from " + c.cfg.KeySource
		}
		return &store.Error{Code: store.CodeInternal, Err: err, Msg: fmt.Sprintf("the model endpoint %s refused the request (HTTP %d: %s); %s", host, status, msg, hint)}
	case status == http.StatusNotFound:
		hint := "check --model / $" + EnvModel
		if c.cfg.IsLocal() {
			hint = "pull it with: ollama pull " + c.cfg.Model + " (or choose another with --model / $" + EnvModel + ")"
		}
		return &store.Error{Code: store.CodeNotFound, Err: err, Msg: fmt.Sprintf("the model endpoint %s does not know model %q or the path (HTTP 404: %s); %s", host, c.cfg.Model, msg, hint)}
	case status == http.StatusTooManyRequests:
		return &store.Error{Code: store.CodeConflict, Err: err, Msg: fmt.Sprintf("the model endpoint %s is rate-limiting (HTTP 429: %s); wait and retry", host, msg)}
	}
	return &store.Error{Code: store.CodeInternal, Err: err, Msg: fmt.Sprintf("the model endpoint %s answered HTTP %d: %s", host, status, msg)}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isConnRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	if s == "" {
		s = "no details"
	}
	return s
}

// Models lists the model ids the endpoint offers (GET /models).
func (c *Client) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, min(c.cfg.Timeout, 30*time.Second))
	defer cancel()
	list, err := c.api.ListModels(ctx)
	if err != nil {
		return nil, c.explain(ctx, err)
	}
	out := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, m.ID)
	}
	return out, nil
}
