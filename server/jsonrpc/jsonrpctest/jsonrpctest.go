// Package jsonrpctest holds the JSON-RPC cases every transport's tests send,
// so stdio and HTTP are held to one table.
package jsonrpctest

import "testing"

// LeniencyCases are requests whose params name what the server does not
// serve (want -32602, invalid params) and their well-formed twins (want a
// result). cmd/llmwiki's TestProtocolLeniencyStdio and
// server/httpserver's TestProtocolLeniencyHTTP send each of them.
var LeniencyCases = []struct {
	Name   string
	Method string
	Params map[string]any
	Code   float64 // 0: a result
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

// CheckLeniency asserts one answer against its case.
func CheckLeniency(t *testing.T, name string, code float64, m map[string]any) {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	switch {
	case code == 0 && (e != nil || m["result"] == nil):
		t.Errorf("%s: want a result, got %v", name, m)
	case code != 0 && (e == nil || e["code"] != code):
		t.Errorf("%s: want error %v, got %v", name, code, m)
	}
}
