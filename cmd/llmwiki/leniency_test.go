package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
)

// leniencyCases are requests whose params name what the server does not
// serve (want -32602, invalid params) and their well-formed twins (want a
// result).
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

// TestProtocolLeniencyStdio: over stdio, completion/complete for an unknown
// prompt or resource template and resources/subscribe to a URI the server
// does not serve are invalid params (-32602); known ones still work.
func TestProtocolLeniencyStdio(t *testing.T) {
	root := t.TempDir()
	initWiki(t, root)
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	defer c.kill()
	for _, tc := range leniencyCases {
		m, err := c.request(tc.method, tc.params)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkLeniency(t, tc.name, tc.code, m)
	}
}

// FuzzScreenParams feeds arbitrary messages to the params screen: it never
// panics, answers only with -32602 and only for the three methods it knows.
func FuzzScreenParams(f *testing.F) {
	root := filepath.Join(f.TempDir(), "wiki")
	initWiki(f, root)
	st, err := wiki.Open(root, wiki.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
	srv, _, err := tools.NewServer(app.New(st, app.Options{NoSearch: true}).Deps(), tools.Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, tc := range leniencyCases {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": tc.method, "params": tc.params})
		f.Add(b)
	}
	f.Add([]byte(`{"id":1,"method":"resources/subscribe","params":{"uri":"wiki://pages/%zz"}}`))
	f.Add([]byte(`{"id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"` + "\xff" + `"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		code, msg := jsonrpc.ScreenParams(srv, raw)
		if code == 0 {
			return
		}
		if code != jsonrpc.CodeInvalidParams || !utf8.ValidString(msg) {
			t.Fatalf("code %d msg %q for %q", code, msg, raw)
		}
		var probe struct{ Method string }
		json.Unmarshal(raw, &probe)
		if probe.Method != "completion/complete" && probe.Method != "resources/subscribe" && probe.Method != "prompts/get" {
			t.Fatalf("refused method %q: %q", probe.Method, raw)
		}
	})
}
