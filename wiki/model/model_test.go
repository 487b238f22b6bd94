package model_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolveDefaultsAndKeyBinding(t *testing.T) {
	tests := []struct {
		name                string
		env                 map[string]string
		flags               model.Flags
		wantBase, wantModel string
		wantKey, wantOrigin string
		wantNote            string
	}{
		{name: "defaults", wantBase: model.DefaultBaseURL, wantModel: model.DefaultModel},
		{name: "openai key never goes to the local default", env: map[string]string{"OPENAI_API_KEY": "sk-openai"},
			wantBase: model.DefaultBaseURL, wantModel: model.DefaultModel, wantNote: "$OPENAI_API_KEY is configured for https://api.openai.com"},
		{name: "openai key goes to openai", env: map[string]string{"OPENAI_API_KEY": "sk-openai", "LLMWIKI_BASE_URL": "https://api.openai.com/v1"},
			wantBase: "https://api.openai.com/v1", wantModel: model.DefaultOpenAIModel, wantKey: "sk-openai", wantOrigin: "https://api.openai.com"},
		{name: "env key bound to env base url", env: map[string]string{"LLMWIKI_API_KEY": "k1", "LLMWIKI_BASE_URL": "https://llm.example.com/v1/"},
			wantBase: "https://llm.example.com/v1", wantModel: model.DefaultModel, wantKey: "k1", wantOrigin: "https://llm.example.com:443"},
		{name: "a --base-url elsewhere does not get the env key", env: map[string]string{"LLMWIKI_API_KEY": "k1", "LLMWIKI_BASE_URL": "https://llm.example.com/v1"},
			flags:    model.Flags{BaseURL: "https://evil.example.net/v1"},
			wantBase: "https://evil.example.net/v1", wantModel: model.DefaultModel, wantNote: "$LLMWIKI_API_KEY is configured for https://llm.example.com:443, not https://evil.example.net:443"},
		{name: "--api-key goes with --base-url", flags: model.Flags{BaseURL: "http://10.0.0.5:8000/v1", APIKey: "k2", Model: "qwen3:14b"},
			wantBase: "http://10.0.0.5:8000/v1", wantModel: "qwen3:14b", wantKey: "k2", wantOrigin: "http://10.0.0.5:8000", wantNote: "travels unencrypted"},
		{name: "env key without env base url is for the default", env: map[string]string{"LLMWIKI_API_KEY": "k3"},
			wantBase: model.DefaultBaseURL, wantModel: model.DefaultModel, wantKey: "k3", wantOrigin: "http://localhost:11434"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := model.Resolve(envOf(tc.env), tc.flags)
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL != tc.wantBase || c.Model != tc.wantModel || c.APIKey != tc.wantKey || c.KeyOrigin != tc.wantOrigin {
				t.Errorf("got base %q model %q key %q origin %q", c.BaseURL, c.Model, c.APIKey, c.KeyOrigin)
			}
			notes := strings.Join(c.Notes, "\n")
			if tc.wantNote == "" && notes != "" || !strings.Contains(notes, tc.wantNote) {
				t.Errorf("notes %q, want %q", notes, tc.wantNote)
			}
			if strings.Contains(notes, "sk-openai") || strings.Contains(notes, "k1") && tc.wantKey == "" {
				t.Errorf("a note shows a key: %q", notes)
			}
			if c.Timeout != model.DefaultTimeout || c.ResponseFormat != model.FormatJSONObject {
				t.Errorf("timeout %v format %q", c.Timeout, c.ResponseFormat)
			}
		})
	}
}

func TestResolveRejectsBadValues(t *testing.T) {
	for _, f := range []model.Flags{
		{BaseURL: "ftp://x/v1"}, {BaseURL: "http://user:pw@host/v1"}, {BaseURL: "localhost:11434"},
		{ResponseFormat: "xml"}, {BaseURL: "http://h/v1?x=1"},
	} {
		if _, err := model.Resolve(envOf(nil), f); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
	if _, err := model.Resolve(envOf(map[string]string{"LLMWIKI_MODEL_TIMEOUT": "soon"}), model.Flags{}); err == nil {
		t.Error("bad timeout accepted")
	}
	c, err := model.Resolve(envOf(map[string]string{"LLMWIKI_MODEL_TIMEOUT": "90s"}), model.Flags{})
	if err != nil || c.Timeout != 90*time.Second {
		t.Errorf("timeout %v %v", c.Timeout, err)
	}
}

func client(t *testing.T, cfg model.Config) *model.Client {
	t.Helper()
	c, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestKeySentOnlyToItsOrigin(t *testing.T) {
	srv := modeltest.New(t, `{"ok":true}`, `{"ok":true}`)
	cfg, err := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL(), APIKey: "secret-key", Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, cfg)
	if _, err := c.Complete(context.Background(), model.Request{System: "s", User: "u"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[0].Authorization; got != "Bearer secret-key" {
		t.Errorf("configured host got Authorization %q", got)
	}
	// The same key, configured for another origin, is not sent to this one.
	other := cfg
	other.KeyOrigin = "https://api.openai.com"
	c2 := client(t, other)
	if _, err := c2.Complete(context.Background(), model.Request{System: "s", User: "u"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].Authorization; got != "" {
		t.Errorf("a host the key is not for got Authorization %q", got)
	}
}

func TestRedirectToAnotherHostIsRefused(t *testing.T) {
	var gotAuth []string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		w.WriteHeader(500)
	}))
	defer evil.Close()
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redir.Close()
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: redir.URL + "/v1", APIKey: "secret-key"})
	_, err := client(t, cfg).Complete(context.Background(), model.Request{System: "s", User: "u"}, nil)
	if err == nil || !strings.Contains(store.PublicMessage(err), "redirected to another host") {
		t.Fatalf("err = %v", err)
	}
	if len(gotAuth) != 0 {
		t.Errorf("the other host was contacted: %q", gotAuth)
	}
}

func TestEndpointDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: "http://" + addr + "/v1", APIKey: "secret-key"})
	_, err = client(t, cfg).Complete(context.Background(), model.Request{System: "s", User: "u"}, nil)
	if code := store.CodeOf(err); code != store.CodeUnavailable {
		t.Errorf("code %q, want %q", code, store.CodeUnavailable)
	}
	msg := store.PublicMessage(err)
	for _, want := range []string{"cannot reach the model endpoint http://" + addr + "/v1", "connection refused", "ollama serve", "llmwiki doctor"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(err.Error(), "secret-key") {
		t.Errorf("the error shows the key: %v", err)
	}
}

func TestSlowEndpointTimesOut(t *testing.T) {
	srv := modeltest.New(t, `{"ok":true}`)
	srv.Delay = 60 * time.Second // far past the bound below, which a loaded machine must not reach
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL(), Timeout: 150 * time.Millisecond})
	start := time.Now()
	_, err := client(t, cfg).Complete(context.Background(), model.Request{System: "s", User: "u"}, nil)
	if time.Since(start) > 20*time.Second {
		t.Errorf("the timeout did not cut the call short (%v)", time.Since(start))
	}
	if msg := store.PublicMessage(err); !strings.Contains(msg, "did not answer within 150ms") || !strings.Contains(msg, "--timeout") {
		t.Errorf("message %q", msg)
	}
}

func TestRequestShapeAndResponseFormatFallback(t *testing.T) {
	srv := modeltest.New(t, `{"a":1}`)
	srv.RejectResponseFormat = true
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL(), Model: "m1"})
	comp, err := client(t, cfg).Complete(context.Background(), model.Request{System: "sys", User: "usr"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if comp.Content != `{"a":1}` || comp.PromptTokens != 120 || comp.CompletionTokens != 45 {
		t.Errorf("completion %+v", comp)
	}
	r := srv.Requests()[0]
	if r.Model != "m1" || r.Temperature != 0.2 || len(r.Messages) != 2 || r.Messages[0].Content != "sys" {
		t.Errorf("request %+v", r)
	}
	if len(r.ResponseFormat) != 0 && string(r.ResponseFormat) != "null" {
		t.Errorf("the retry still carried response_format %s", r.ResponseFormat)
	}

	srv2 := modeltest.New(t, `{"a":1}`)
	cfg.BaseURL = srv2.BaseURL()
	if _, err := client(t, cfg).Complete(context.Background(), model.Request{System: "s", User: "u"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := string(srv2.Requests()[0].ResponseFormat); got != `{"type":"json_object"}` {
		t.Errorf("response_format %s", got)
	}
}

func TestAskRetriesOnceThenShowsBothErrors(t *testing.T) {
	srv := modeltest.New(t, "not json", `{"n": 2}`, `{"n": 3}`)
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL()})
	c := client(t, cfg)
	call := store.NewCall("test", "s", nil)
	ctx := store.WithCall(context.Background(), call)
	check := func(b []byte) error {
		v, err := model.DecodeJSON(b)
		if err != nil {
			return err
		}
		if v.(map[string]any)["n"].(interface{ String() string }).String() != "3" {
			return store.Errorf(store.CodeInvalid, "n must be 3")
		}
		return nil
	}
	_, u, err := c.Ask(ctx, model.Request{System: "s", User: "u"}, check)
	var rej *model.RejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("err = %v", err)
	}
	msg := store.PublicMessage(err)
	if !strings.Contains(msg, "the reply is not valid JSON") || !strings.Contains(msg, "n must be 3") {
		t.Errorf("message does not show both errors: %q", msg)
	}
	if u.Completions != 2 || u.PromptTokens != 240 || u.CompletionTokens != 90 || !u.Retried || len(u.Each) != 2 || u.Each[1].PromptTokens != 120 || u.Each[0].FinishReason != "stop" {
		t.Errorf("usage %+v", u)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want exactly 2 (one retry)", len(reqs))
	}
	if last := reqs[1].Last(); !strings.Contains(last, "Your reply was rejected: the reply is not valid JSON") || !strings.Contains(last, "ONLY the corrected JSON") {
		t.Errorf("retry message %q", last)
	}
	if reqs[1].Messages[2].Role != "assistant" || reqs[1].Messages[2].Content != "not json" {
		t.Errorf("the retry does not carry the rejected reply: %+v", reqs[1].Messages)
	}
	if got, ok := call.Extra["model"].(model.Usage); !ok || got.Completions != 2 {
		t.Errorf("audit extra = %#v", call.Extra)
	}
}

func TestCleanReply(t *testing.T) {
	for in, want := range map[string]string{
		"```json\n{\"a\":1}\n```":                 `{"a":1}`,
		"  {\"a\":1}\n":                           `{"a":1}`,
		"<think>hmm</think>\n```\n{\"a\":1}\n```": `{"a":1}`,
		"```{\"a\":1}```":                         `{"a":1}`,
		"Sure! {\"a\":1}":                         `Sure! {"a":1}`,
	} {
		if got := string(model.CleanReply(in)); got != want {
			t.Errorf("CleanReply(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeJSON(t *testing.T) {
	for in, want := range map[string]string{
		"":              "empty",
		"{":             "cut off",
		`{"a":1} extra`: "text after the JSON",
		"{\n\"a\": x}":  "line 2",
	} {
		_, err := model.DecodeJSON([]byte(in))
		if err == nil || !strings.Contains(store.PublicMessage(err), want) {
			t.Errorf("DecodeJSON(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestDoctor(t *testing.T) {
	srv := modeltest.New(t, `{"ok": true}`)
	srv.Models = []string{"llama3.2:3b", "other"}
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL()})
	d := client(t, cfg).Doctor(context.Background())
	if !d.OK || len(d.Checks) != 3 {
		t.Fatalf("%+v", d)
	}
	srv2 := modeltest.New(t, `{"ok": true}`)
	cfg.BaseURL = srv2.BaseURL()
	d = client(t, cfg).Doctor(context.Background())
	if !d.OK || !strings.Contains(d.Checks[1].Detail, "not listed") {
		t.Errorf("unlisted but answering model: %+v", d)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	cfg.BaseURL = "http://" + addr + "/v1"
	d = client(t, cfg).Doctor(context.Background())
	if d.OK || len(d.Checks) != 1 || !strings.Contains(d.Checks[0].Fix, "ollama serve") {
		t.Errorf("down endpoint: %+v", d)
	}
}

func TestAskWarnsWhenTheEndpointCutThePrompt(t *testing.T) {
	srv := modeltest.New(t, `{}`, `{}`)
	srv.PromptTokens = 2048 // an Ollama default context window
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL()})
	c := client(t, cfg)
	ok := func([]byte) error { return nil }
	_, u, err := c.Ask(context.Background(), model.Request{System: "s", User: strings.Repeat("word ", 10000)}, ok)
	if err != nil || !strings.Contains(u.Warning, "read 2048 prompt tokens of a prompt of about 12500") || !strings.Contains(u.String(), "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("%v %+v", err, u)
	}
	srv.PromptTokens = 11000
	_, u, _ = c.Ask(context.Background(), model.Request{System: "s", User: strings.Repeat("word ", 10000)}, ok)
	if u.Warning != "" {
		t.Errorf("false warning %q", u.Warning)
	}
}

func TestJSONSchemaResponseFormat(t *testing.T) {
	srv := modeltest.New(t, `{}`)
	cfg, _ := model.Resolve(envOf(nil), model.Flags{BaseURL: srv.BaseURL(), ResponseFormat: model.FormatJSONSchema})
	schema := []byte(`{"type":"object","properties":{"a":{"type":"integer"}}}`)
	if _, err := client(t, cfg).Complete(context.Background(), model.Request{System: "s", User: "u", Schema: schema, SchemaName: "llmwiki_plan"}, nil); err != nil {
		t.Fatal(err)
	}
	got := string(srv.Requests()[0].ResponseFormat)
	want := `{"type":"json_schema","json_schema":{"name":"llmwiki_plan","schema":{"type":"object","properties":{"a":{"type":"integer"}}},"strict":false}}`
	if got != want {
		t.Errorf("response_format\n got %s\nwant %s", got, want)
	}
}

// progressLog collects the progress reports a context receives.
type progressLog struct {
	mu   sync.Mutex
	done []int
	msgs []string
}

func (l *progressLog) fn(done, total int, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if total != 0 {
		msg += " (total given)"
	}
	l.done, l.msgs = append(l.done, done), append(l.msgs, msg)
}

func (l *progressLog) snapshot() ([]int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.done...), append([]string(nil), l.msgs...)
}

// TestProgressWhileWaiting: a slow completion reports progress every
// ProgressInterval, numbered on across the retry, and no report arrives after
// the call returned, on success and on error alike. The counts do not
// depend on how promptly the ticker's goroutine runs: a busy machine drops
// ticks (one timeout window once saw a single report), so each window must
// hold at least two reports, with room for several times that, and never
// more than its length allows.
func TestProgressWhileWaiting(t *testing.T) {
	if _, err := model.Resolve(envOf(map[string]string{model.EnvProgress: "10ms"}), model.Flags{}); err == nil {
		t.Error("an interval under 100ms was accepted")
	}
	srv := modeltest.New(t, "not json", `{"ok":true}`)
	srv.Delay = 700 * time.Millisecond
	cfg, err := model.Resolve(envOf(map[string]string{model.EnvProgress: "100ms"}), model.Flags{BaseURL: srv.BaseURL(), Model: "slow-model"})
	if err != nil || cfg.ProgressInterval != 100*time.Millisecond {
		t.Fatalf("%v %v", cfg.ProgressInterval, err)
	}
	c := client(t, cfg)
	var log progressLog
	ctx := wiki.WithProgress(context.Background(), log.fn)
	check := func(b []byte) error { _, err := model.DecodeJSON(b); return err }
	start := time.Now()
	if _, u, err := c.Ask(ctx, model.Request{System: "s", User: "u"}, check); err != nil || !u.Retried {
		t.Fatalf("%v %+v", err, u)
	}
	took := time.Since(start)
	done, msgs := log.snapshot()
	// 700 ms at 100 ms intervals, twice: about 6 reports per completion;
	// at least 2 in each, and no more than the intervals that passed.
	retries := 0
	for _, m := range msgs {
		if strings.HasSuffix(m, ", retry)") {
			retries++
		}
	}
	if first := len(msgs) - retries; first < 2 || retries < 2 || len(done) > int(took/cfg.ProgressInterval) {
		t.Fatalf("%d progress reports (%d in the retry) in two 700 ms completions taking %v: %v", len(done), retries, took, msgs)
	}
	for i, d := range done {
		if d != i+1 {
			t.Fatalf("reports are not numbered 1, 2, 3, …: %v", done)
		}
	}
	if !strings.HasPrefix(msgs[0], "waiting for slow-model (0s") && !strings.HasPrefix(msgs[0], "waiting for slow-model (1s") {
		t.Errorf("first message %q", msgs[0])
	}
	if last := msgs[len(msgs)-1]; !strings.HasPrefix(last, "waiting for slow-model (") || !strings.HasSuffix(last, "s, retry)") {
		t.Errorf("last message %q", last)
	}
	time.Sleep(300 * time.Millisecond)
	if after, _ := log.snapshot(); len(after) != len(done) {
		t.Errorf("%d reports arrived after Ask returned", len(after)-len(done))
	}

	// On error (the timeout) the ticker stops too.
	srv.Push(`{"ok":true}`)
	srv.Delay = 30 * time.Second // the call ends at its timeout
	cfg.Timeout = time.Second
	var elog progressLog
	start = time.Now()
	_, err = client(t, cfg).Complete(wiki.WithProgress(context.Background(), elog.fn), model.Request{System: "s", User: "u"}, nil)
	took = time.Since(start)
	if !strings.Contains(store.PublicMessage(err), "did not answer within 1s") {
		t.Fatalf("err = %v", err)
	}
	got, _ := elog.snapshot()
	if len(got) < 2 || len(got) > int(took/cfg.ProgressInterval) {
		t.Errorf("%d reports during a 1 s timeout (%v) at 100 ms intervals", len(got), took)
	}
	time.Sleep(300 * time.Millisecond)
	if after, _ := elog.snapshot(); len(after) != len(got) {
		t.Errorf("%d reports arrived after the failed call returned", len(after)-len(got))
	}
}
