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
	"github.com/llmwiki/llmwiki/server/jsonrpc/jsonrpctest"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
)

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
	for _, tc := range jsonrpctest.LeniencyCases {
		m, err := c.request(tc.Method, tc.Params)
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		jsonrpctest.CheckLeniency(t, tc.Name, tc.Code, m)
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
	for _, tc := range jsonrpctest.LeniencyCases {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": tc.Method, "params": tc.Params})
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
