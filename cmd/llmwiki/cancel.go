package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// MCP cancellation (notifications/cancelled): mcp-go cancels the context of
// a call that is running, but a cancel that arrives before its request's
// handler has started (the request and the cancel in one write to stdin, a
// cancel that overtakes its request over HTTP) was lost, and the call ran
// and was answered; a call cancelled while running was answered too, with
// an error result. The spec says a receiver should not answer a cancelled
// request. So each transport records the ids its client cancelled
// ([cancelledIDs]), the server refuses such a request before any handler
// runs ([tools.Options.Cancelled]), and the transport drops every answer
// to a cancelled id (stdio: [lockedWriter]; HTTP and SSE:
// [cancelFilterWriter]).

// maxCancelled is how many cancelled ids are remembered; the oldest are
// forgotten first. A client cancels a request soon after sending it, so
// only the latest matter.
const maxCancelled = 4096

// cancelledIDs is the set of request ids clients cancelled, per session.
type cancelledIDs struct {
	mu    sync.Mutex
	ids   map[string]struct{} // session + "\x00" + rpcIDKey
	order []string            // insertion order, for the bound
}

func newCancelledIDs() *cancelledIDs { return &cancelledIDs{ids: map[string]struct{}{}} }

func cancelKey(session, idKey string) string { return session + "\x00" + idKey }

// add records that session's client cancelled the request with id key k.
func (c *cancelledIDs) add(session, k string) {
	if k == "" {
		return
	}
	key := cancelKey(session, k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[key]; ok {
		return
	}
	if len(c.order) >= maxCancelled {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
	c.ids[key] = struct{}{}
	c.order = append(c.order, key)
}

// has reports whether the request with id key k of session was cancelled.
func (c *cancelledIDs) has(session, k string) bool {
	if k == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[cancelKey(session, k)]
	return ok
}

// take is has, forgetting the id: its one answer is being dropped.
func (c *cancelledIDs) take(session, k string) bool {
	if k == "" {
		return false
	}
	key := cancelKey(session, k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[key]; !ok {
		return false
	}
	delete(c.ids, key)
	for i, o := range c.order {
		if o == key {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	return true
}

// refuses is the server's [tools.Options.Cancelled]: a request whose id its
// session cancelled.
func (c *cancelledIDs) refuses(ctx context.Context, id any) bool {
	s := server.ClientSessionFromContext(ctx)
	if s == nil {
		return false
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return false
	}
	return c.has(s.SessionID(), rpcIDKey(raw))
}

// cancelledRequestID returns the id key of the request a
// notifications/cancelled message names, or "" for any other message.
func cancelledRequestID(msg []byte) string {
	if !bytes.Contains(msg, []byte("notifications/cancelled")) {
		return ""
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "notifications/cancelled" {
		return ""
	}
	return rpcIDKey(m.Params.RequestID)
}

// sseEventPrefix starts every message event mcp-go writes on an SSE stream.
var sseEventPrefix = []byte("event: message\ndata: ")

// sseEndpointPrefix starts the first event of a legacy SSE stream, whose
// URL names the session.
var sseEndpointPrefix = []byte("event: endpoint\ndata: ")

// cancelFilterWriter wraps the HTTP response that carries answers to
// session's requests (a streamable HTTP POST, a legacy SSE stream) and drops
// the answers to cancelled ids. mcp-go writes each SSE event with one Write;
// a JSON answer (streamable HTTP, no stream) is written whole after
// WriteHeader, and for a cancelled id becomes an empty event stream (the
// POST carried a request, so it must be answered with a stream or JSON).
type cancelFilterWriter struct {
	http.ResponseWriter
	cancelled *cancelledIDs
	session   string // the session's id; a legacy SSE stream learns it from its endpoint event
	requestID string // the POST's request id key ("" for a stream)
	drop      bool   // the JSON answer is dropped
}

func (w *cancelFilterWriter) WriteHeader(code int) {
	h := w.Header()
	if code == http.StatusOK && w.requestID != "" && h.Get("Content-Type") == "application/json" &&
		w.cancelled.take(w.session, w.requestID) {
		w.drop = true
		h.Set("Content-Type", "text/event-stream")
		h.Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *cancelFilterWriter) Write(p []byte) (int, error) {
	if w.drop {
		return len(p), nil
	}
	if w.session == "" {
		if ep, ok := bytes.CutPrefix(p, sseEndpointPrefix); ok {
			if u, err := url.Parse(string(bytes.TrimSpace(ep))); err == nil {
				w.session = u.Query().Get("sessionId")
			}
		}
	}
	if data, ok := bytes.CutPrefix(p, sseEventPrefix); ok {
		if id, ok := responseID(bytes.TrimSpace(data)); ok && w.cancelled.take(w.session, rpcIDKey(id)) {
			return len(p), nil
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *cancelFilterWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *cancelFilterWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
