package httpserver

import (
	"encoding/json"
	"testing"

	"github.com/llmwiki/llmwiki/server/jsonrpc/jsonrpctest"
)

// TestProtocolLeniencyHTTP: over streamable HTTP and legacy SSE,
// completion/complete for an unknown prompt or resource template and
// resources/subscribe to a URI the server does not serve are invalid params
// (-32602); known ones still work (cmd/llmwiki's TestProtocolLeniencyStdio
// checks the same over stdio).
func TestProtocolLeniencyHTTP(t *testing.T) {
	ts := newTestServer(t, Config{})
	sid := ts.initialize()
	sse := ts.openSSE()
	sse.post(initBody)
	if m := sse.next(); m["id"] != 1.0 {
		t.Fatalf("SSE initialize: %v", m)
	}
	sse.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, tc := range jsonrpctest.LeniencyCases {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": tc.Method, "params": tc.Params})
		jsonrpctest.CheckLeniency(t, "streamable: "+tc.Name, tc.Code, ts.post(sid, string(b)).message)
		sse.post(string(b))
		jsonrpctest.CheckLeniency(t, "sse: "+tc.Name, tc.Code, sse.next())
	}
}
