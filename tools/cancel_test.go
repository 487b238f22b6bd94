package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestCancelledRequests: with Options.Cancelled, a request cancelled before
// it started is refused unrun and its tools/call audited with code
// cancelled; one whose cancel is recorded only after the first check (it
// came while mcp-go registered the call) starts with its context cancelled,
// so its write starts nothing. Without the second check that call ran and
// replaced context.md.
func TestCancelledRequests(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cancelled func(n int32) bool // the n-th question (1: before it runs, 2: once registered)
	}{
		{"before it starts", func(n int32) bool { return true }},
		{"while it is registered", func(n int32) bool { return n >= 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quiet := teststore.Quiet()
			st, dir, _ := teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
			var asked atomic.Int32
			srv, _, err := NewServer(withLinks(Deps{Store: st, Log: quiet}), Options{Cancelled: func(_ context.Context, id any) bool {
				return id == 7.0 && tc.cancelled(asked.Add(1))
			}})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(filepath.Join(dir, "context.md"))
			resp := srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"atomic_write_context","arguments":{"content":"# Replaced\n"}}}`))
			b, _ := json.Marshal(resp)
			if !strings.Contains(string(b), "cancelled") {
				t.Errorf("answer (dropped by the transport): %s, want a cancellation", b)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, "context.md")); string(after) != string(before) {
				t.Errorf("a cancelled atomic_write_context replaced context.md:\n%s", after)
			}
			var last store.AuditRecord
			data, _ := os.ReadFile(filepath.Join(dir, ".llmwiki", "audit", st.Now().Format("2006-01-02")+".jsonl"))
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Tool != "atomic_write_context" || last.Code != store.CodeCancelled {
				t.Errorf("audit line: %+v (%v), want atomic_write_context with code cancelled", last, err)
			}
			// Other ids are served.
			if r, ok := srv.HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)).(mcp.JSONRPCResponse); !ok {
				t.Errorf("ping: %#v", r)
			}
		})
	}
}
