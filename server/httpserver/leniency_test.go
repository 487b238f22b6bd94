package httpserver

import (
	"encoding/json"
	"testing"
)

// leniencyCases are requests whose params name what the server does not
// serve (want -32602, invalid params) and their well-formed twins (want a
// result); cmd/llmwiki's TestProtocolLeniencyStdio sends the same over stdio.
var leniencyCases = []struct {
	name   string
	method string
	params map[string]any
	code   float64 // 0: a result
}{
	{"complete unknown prompt", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "no-such-prompt"}, "argument": map[string]any{"name": "page", "value": "a"}}, -32602},
	{"complete known prompt", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "query"}, "argument": map[string]any{"name": "page", "value": "a"}}, 0},
	{"complete unknown template", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "wiki://nope/{x}"}, "argument": map[string]any{"name": "x", "value": "a"}}, -32602},
	{"complete page template", "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "wiki://pages/{slug}"}, "argument": map[string]any{"name": "slug", "value": "a"}}, 0},
	{"subscribe foreign uri", "resources/subscribe", map[string]any{"uri": "file:///etc/passwd"}, -32602},
	{"subscribe unknown wiki uri", "resources/subscribe", map[string]any{"uri": "wiki://nothing.md"}, -32602},
	{"subscribe context", "resources/subscribe", map[string]any{"uri": "wiki://context.md"}, 0},
	{"subscribe page", "resources/subscribe", map[string]any{"uri": "wiki://pages/some-page"}, 0},
	{"prompt without its required argument", "prompts/get", map[string]any{"name": "ingest", "arguments": map[string]any{}}, -32602},
	{"prompt with a blank required argument", "prompts/get", map[string]any{"name": "ingest", "arguments": map[string]any{"path": " "}}, -32602},
	{"prompt with an unknown argument", "prompts/get", map[string]any{"name": "ingest", "arguments": map[string]any{"path": "sources/a.md", "source": "sources/a.md"}}, -32602},
	{"prompt with its argument", "prompts/get", map[string]any{"name": "ingest", "arguments": map[string]any{"path": "sources/a.md"}}, 0},
}

// checkLeniency asserts one answer against its case.
func checkLeniency(t *testing.T, name string, code float64, m map[string]any) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	switch {
	case code == 0 && (e != nil || m["result"] == nil):
		t.Errorf("%s: want a result, got %v", name, m)
	case code != 0 && (e == nil || e["code"] != code):
		t.Errorf("%s: want error %v, got %v", name, code, m)
	}
}

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
	for i, tc := range leniencyCases {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": tc.method, "params": tc.params})
		checkLeniency(t, "streamable: "+tc.name, tc.code, ts.post(sid, string(b)).message)
		sse.post(string(b))
		checkLeniency(t, "sse: "+tc.name, tc.code, sse.next())
	}
}
