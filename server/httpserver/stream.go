package httpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/mark3labs/mcp-go/mcp"
)

// Over streamable HTTP, mcp-go v1.2.1 queues a call's notifications on the
// session's channel, which the POST's forwarder and the client's standalone
// GET stream both read: one call's progress is split across two streams and
// reaches the client out of order. A tool's notifications (progress, logs)
// instead go straight onto the response of the POST that carries the call,
// through [postStream], so they arrive in order and before the response,
// as the specification asks of messages related to a request.

// postStream is the response of one streamable HTTP POST. mcp-go writes its
// response through it; [postStream.notify] writes the call's notifications
// as SSE events on the same response, turning it into an event stream on
// the first one. mcp-go, which does not know of that upgrade, may then
// answer with a plain JSON body: that body is held and sent as the stream's
// last event by [postStream.finish].
type postStream struct {
	w       http.ResponseWriter
	flusher http.Flusher
	header  http.Header // what mcp-go sets; copied to w's when headers go out

	mu       sync.Mutex
	wrote    bool          // status and headers have gone out
	sse      bool          // the response is an event stream
	held     *bytes.Buffer // mcp-go's JSON body after the upgrade
	finished bool
}

func newPostStream(w http.ResponseWriter) *postStream {
	f, _ := w.(http.Flusher)
	return &postStream{w: w, flusher: f, header: w.Header().Clone()}
}

func (s *postStream) Header() http.Header { return s.header }

// sendHeaders copies mcp-go's headers to the real response and writes the
// status. The caller holds mu.
func (s *postStream) sendHeaders(code int) {
	real := s.w.Header()
	for k, v := range s.header {
		real[k] = v
	}
	s.wrote = true
	s.sse = strings.HasPrefix(real.Get("Content-Type"), "text/event-stream")
	s.w.WriteHeader(code)
}

func (s *postStream) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.wrote {
		s.sendHeaders(code)
		return
	}
	if s.sse && s.held == nil && !strings.HasPrefix(s.header.Get("Content-Type"), "text/event-stream") {
		s.held = &bytes.Buffer{}
	}
}

func (s *postStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.wrote {
		s.sendHeaders(http.StatusOK)
	}
	if s.held != nil {
		return s.held.Write(p)
	}
	return s.w.Write(p)
}

func (s *postStream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flusher != nil && s.held == nil {
		s.flusher.Flush()
	}
}

// errNoStream is the error of a notification that cannot go on the POST
// (the writer cannot stream); it then takes mcp-go's session channel.
var errNoStream = errors.New("the response cannot stream")

// notify writes n as an SSE event on the response, upgrading it to an
// event stream when nothing has been written yet. A notification after the
// response went out as JSON, or after the request ended, is dropped: the
// client no longer listens for it.
func (s *postStream) notify(_ context.Context, n mcp.JSONRPCNotification) error {
	if s.flusher == nil {
		return errNoStream
	}
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished || s.held != nil || (s.wrote && !s.sse) {
		return nil
	}
	if !s.wrote {
		s.header.Set("Content-Type", "text/event-stream")
		s.header.Set("Cache-Control", "no-cache")
		s.header.Set("Connection", "keep-alive")
		s.sendHeaders(http.StatusOK)
	}
	if _, err := fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", data); err != nil {
		return nil // the client has gone; nothing else can reach it either
	}
	s.flusher.Flush()
	return nil
}

// finish ends the response: a JSON body mcp-go wrote after the upgrade goes
// out as the last event.
func (s *postStream) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished = true
	if s.held == nil {
		return
	}
	body := bytes.TrimSpace(s.held.Bytes())
	if len(body) > 0 {
		fmt.Fprintf(s.w, "event: message\ndata: %s\n\n", body)
		s.flusher.Flush()
	}
}

type postStreamKey struct{}

// withPostStreams wraps the streamable HTTP handler: each POST's response
// is a [postStream], found by [postStreamNotifier] in the request context.
func withPostStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		ps := newPostStream(w)
		defer ps.finish()
		next.ServeHTTP(ps, r.WithContext(context.WithValue(r.Context(), postStreamKey{}, ps)))
	})
}

// postStreamNotifier installs, in a call's context, the notifier that
// writes on the POST carrying the call.
func postStreamNotifier(ctx context.Context, r *http.Request) context.Context {
	if ps, ok := r.Context().Value(postStreamKey{}).(*postStream); ok {
		ctx = tools.WithNotifier(ctx, ps.notify)
	}
	return ctx
}

// Unwrap lets http.ResponseController reach the connection (mcp-go sets
// write deadlines through it).
func (s *postStream) Unwrap() http.ResponseWriter { return s.w }
