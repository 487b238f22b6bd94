package httpserver

import (
	"bytes"
	"net/http"
	"net/url"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
)

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
	cancelled *jsonrpc.CancelledIDs
	session   string // the session's id; a legacy SSE stream learns it from its endpoint event
	requestID string // the POST's request id key ("" for a stream)
	drop      bool   // the JSON answer is dropped
}

func (w *cancelFilterWriter) WriteHeader(code int) {
	h := w.Header()
	if code == http.StatusOK && w.requestID != "" && h.Get("Content-Type") == "application/json" &&
		w.cancelled.Take(w.session, w.requestID) {
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
		if id, ok := jsonrpc.ResponseID(bytes.TrimSpace(data)); ok && w.cancelled.Take(w.session, jsonrpc.IDKey(id)) {
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
