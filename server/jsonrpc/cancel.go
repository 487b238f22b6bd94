package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// MCP cancellation (notifications/cancelled): mcp-go cancels the context of
// a call that is running, but a cancel that arrives before its request's
// handler has started (the request and the cancel in one write to stdin, a
// cancel that overtakes its request over HTTP) is lost, and the call runs
// and is answered; a call cancelled while running is answered too, with an
// error result. The spec says a receiver should not answer a cancelled
// request. So each transport records the ids its client cancelled
// ([CancelledIDs]), the server refuses such a request before any handler
// runs ([tools.Options.Cancelled]), and the transport drops every answer
// to a cancelled id (stdio: its output writer; HTTP and SSE: a filter on
// each response).

// MaxCancelled is how many cancelled ids are remembered; the oldest are
// forgotten first. A client cancels a request soon after sending it, so
// only the latest matter.
const MaxCancelled = 4096

// CancelledIDs is the set of request ids clients cancelled, per session.
type CancelledIDs struct {
	mu    sync.Mutex
	ids   map[string]struct{} // session + "\x00" + rpcIDKey
	order []string            // insertion order, for the bound
}

func NewCancelledIDs() *CancelledIDs { return &CancelledIDs{ids: map[string]struct{}{}} }

func cancelKey(session, idKey string) string { return session + "\x00" + idKey }

// Add records that session's client cancelled the request with id key k.
func (c *CancelledIDs) Add(session, k string) {
	if k == "" {
		return
	}
	key := cancelKey(session, k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.ids[key]; ok {
		return
	}
	if len(c.order) >= MaxCancelled {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
	c.ids[key] = struct{}{}
	c.order = append(c.order, key)
}

// Has reports whether the request with id key k of session was cancelled.
func (c *CancelledIDs) Has(session, k string) bool {
	if k == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[cancelKey(session, k)]
	return ok
}

// Take is has, forgetting the id: its one answer is being dropped.
func (c *CancelledIDs) Take(session, k string) bool {
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

// Refuses is the server's [tools.Options.Cancelled]: a request whose id its
// session cancelled.
func (c *CancelledIDs) Refuses(ctx context.Context, id any) bool {
	s := server.ClientSessionFromContext(ctx)
	if s == nil {
		return false
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return false
	}
	return c.Has(s.SessionID(), IDKey(raw))
}

// CancelledRequestID returns the id key of the request a
// notifications/cancelled message names, or "" for any other message.
func CancelledRequestID(msg []byte) string {
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
	return IDKey(m.Params.RequestID)
}

// Len is how many cancelled ids are remembered.
func (c *CancelledIDs) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids)
}
