// Package modeltest is an OpenAI-compatible HTTP server for tests: it
// replays scripted chat completions over real HTTP (net/http/httptest), so
// the real go-openai client code runs end to end, and it records what it was
// sent.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one chat completion request as the server received it.
type Request struct {
	Model          string          `json:"model"`
	Temperature    float64         `json:"temperature"`
	ResponseFormat json.RawMessage `json:"response_format"`
	Messages       []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	// Authorization is the header the request carried ("" when none).
	Authorization string `json:"-"`
}

// Last returns the content of the request's last message.
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Server is a scripted OpenAI-compatible endpoint.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []string
	requests []Request
	// Delay is how long each completion takes to answer.
	Delay time.Duration
	// Models is what GET /models lists (default: "test-model").
	Models []string
	// Usage is what each completion reports (prompt, completion tokens).
	PromptTokens, CompletionTokens int
	// RejectResponseFormat makes the server answer 400 to requests that
	// carry response_format, like endpoints that do not support it.
	RejectResponseFormat bool
}

// New starts a server that answers successive chat completions with
// replies (the message content), then with HTTP 500 when they run out. It is
// closed when the test ends.
func New(t testing.TB, replies ...string) *Server {
	s := &Server{replies: replies, Models: []string{"test-model"}, PromptTokens: 120, CompletionTokens: 45}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the base URL to configure a client with (".../v1").
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the chat completion requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Push adds replies to the script.
func (s *Server) Push(replies ...string) {
	s.mu.Lock()
	s.replies = append(s.replies, replies...)
	s.mu.Unlock()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		var data []map[string]any
		for _, m := range s.Models {
			data = append(data, map[string]any{"id": m, "object": "model", "created": 1700000000, "owned_by": "test"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		body, _ := io.ReadAll(r.Body)
		var req Request
		if err := json.Unmarshal(body, &req); err != nil {
			writeJSON(w, http.StatusBadRequest, apiError("invalid JSON body"))
			return
		}
		req.Authorization = r.Header.Get("Authorization")
		if s.RejectResponseFormat && len(req.ResponseFormat) > 0 && string(req.ResponseFormat) != "null" {
			writeJSON(w, http.StatusBadRequest, apiError("response_format is not supported by this server"))
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		var reply string
		ok := len(s.replies) > 0
		if ok {
			reply, s.replies = s.replies[0], s.replies[1:]
		}
		delay := s.Delay
		s.mu.Unlock()
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
		}
		if !ok {
			writeJSON(w, http.StatusInternalServerError, apiError("modeltest: no scripted reply left"))
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", len(s.Requests())), "object": "chat.completion", "created": 1700000000, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply}}},
			"usage":   map[string]any{"prompt_tokens": s.PromptTokens, "completion_tokens": s.CompletionTokens, "total_tokens": s.PromptTokens + s.CompletionTokens},
		})
	default:
		writeJSON(w, http.StatusNotFound, apiError("no route "+r.URL.Path))
	}
}

func apiError(msg string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
