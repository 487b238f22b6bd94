package httpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// cancelBody is a notifications/cancelled for request id.
func cancelBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user pressed stop"}}`, id)
}

// TestCancelBeforeStartHTTP: over streamable HTTP and legacy SSE, a
// notifications/cancelled that reaches the server before its request (two
// POSTs, the cancel first, as happens when they travel on two connections)
// keeps the request from running: context.md is unchanged, no response
// carries its id, its audit line says cancelled, and the next request is
// answered.
func TestCancelBeforeStartHTTP(t *testing.T) {
	for _, transport := range []string{"streamable", "sse"} {
		t.Run(transport, func(t *testing.T) {
			ts := newTestServer(t, Config{})
			before := readFile(t, filepath.Join(ts.root, "context.md"))
			write := callBody(7, "atomic_write_context", map[string]any{"content": "# Replaced\n"})
			switch transport {
			case "streamable":
				sid := ts.initialize()
				if r := ts.post(sid, cancelBody(7)); r.status != http.StatusAccepted {
					t.Fatalf("cancel: %d %s", r.status, r.body)
				}
				if r := ts.post(sid, write); r.message != nil {
					t.Errorf("the cancelled call was answered: %s", r.body)
				}
				if r := ts.post(sid, `{"jsonrpc":"2.0","id":8,"method":"ping"}`); r.message["result"] == nil {
					t.Errorf("the next request: %d %s", r.status, r.body)
				}
			case "sse":
				s := ts.openSSE()
				s.post(initBody)
				s.next()
				s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				s.post(cancelBody(7))
				s.post(write)
				s.post(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
				var seen []float64
				for m := s.next(); ; m = s.next() {
					id, _ := m["id"].(float64)
					seen = append(seen, id)
					if id == 8 {
						break
					}
				}
				// 7 was refused before 8 was posted; a last request shows
				// its answer (the refusal) is not merely late.
				wikitest.WaitFor(t, func() bool { return teststore.LastCall(t, ts.root, "atomic_write_context") != nil }, "the cancelled call's audit line")
				s.post(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
				for m := s.next(); ; m = s.next() {
					id, _ := m["id"].(float64)
					seen = append(seen, id)
					if id == 9 {
						break
					}
				}
				for _, id := range seen {
					if id == 7 {
						t.Errorf("the cancelled call was answered on the stream (ids seen %v)", seen)
					}
				}
			}
			if got := readFile(t, filepath.Join(ts.root, "context.md")); got != before {
				t.Errorf("a cancelled atomic_write_context replaced context.md:\n%s", got)
			}
			if c := teststore.LastCall(t, ts.root, "atomic_write_context"); c == nil || c.Code != store.CodeCancelled {
				t.Errorf("audit line of the cancelled call: %+v, want code cancelled", c)
			}
		})
	}
}

// TestCancelMidLint: notifications/cancelled sent while lint_findings runs
// on a 5,000-page wiki stops the handler (its audit line says cancelled)
// and the call gets no response, over streamable HTTP and SSE.
func TestCancelMidLint(t *testing.T) {
	wikitest.SkipShort(t, "scale (a 5,000-page wiki)")
	const pages = 5000
	lint := func(id int) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
			"name": "lint_findings", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": fmt.Sprint("lint-", id)}}})
		return string(b)
	}
	checkAudit := func(t *testing.T, root string) {
		t.Helper()
		var c *store.AuditRecord
		wikitest.WaitFor(t, func() bool { c = teststore.LastCall(t, root, "lint_findings"); return c != nil }, "lint_findings' audit line")
		if c.Code != store.CodeCancelled {
			t.Errorf("audit line of the cancelled lint: outcome %s code %s, want code cancelled", c.Outcome, c.Code)
		}
	}
	for _, transport := range []string{"streamable", "sse"} {
		t.Run(transport, func(t *testing.T) {
			ts := newTestServer(t, Config{})
			wikitest.WriteLinkedPages(t, ts.root, pages)
			var s *sseSession
			got := make(chan rpcReply, 1)
			var sid string
			if transport == "sse" {
				s = ts.openSSE()
				s.post(initBody)
				s.next()
				s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				s.post(lint(5))
			} else {
				sid = ts.initialize()
				go func() { got <- ts.post(sid, lint(5)) }()
			}
			wikitest.WaitFor(t, func() bool { return ts.h.running.Load() == 1 }, "lint_findings to start")
			if transport == "sse" {
				s.post(cancelBody(5))
			} else if r := ts.post(sid, cancelBody(5)); r.status != http.StatusAccepted {
				t.Fatalf("cancel: %d %s", r.status, r.body)
			}
			checkAudit(t, ts.root)
			if transport == "sse" {
				s.post(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
				if m := s.next(); m["id"] != 6.0 {
					t.Errorf("the cancelled lint was answered: %v", m)
				}
				return
			}
			r := <-got
			if r.message != nil {
				t.Errorf("the cancelled lint was answered: %.300s", r.body)
			}
			if r := ts.post(sid, `{"jsonrpc":"2.0","id":6,"method":"ping"}`); r.message["result"] == nil {
				t.Errorf("the next request: %d %s", r.status, r.body)
			}
		})
	}
}
