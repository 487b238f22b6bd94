package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestRPCIDKey(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`1`, "n:1"}, {`1.0`, "n:1"}, {`-7`, "n:-7"}, {`"1"`, "s:1"}, {`"abc"`, "s:abc"},
		{`null`, ""}, {``, ""}, {`{}`, ""}, {`[1]`, ""}, {`1e400`, "n:1e400"},
	} {
		if got := jsonrpc.IDKey(json.RawMessage(c.raw)); got != c.want {
			t.Errorf("jsonrpc.IDKey(%s) = %q, want %q", c.raw, got, c.want)
		}
	}
	// A request and its answer meet by id; a server notification or
	// request (it has a method) answers nothing.
	f := newInFlight()
	f.sent([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}`))
	f.sent([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	f.answered([]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`))
	if len(f.ids) != 1 {
		t.Fatalf("pending %v, want id 4 alone", f.ids)
	}
	f.answered([]byte(`{"jsonrpc":"2.0","id":4.0,"result":{}}` + "\n"))
	if len(f.ids) != 0 {
		t.Fatalf("pending %v after the answer", f.ids)
	}
	for _, c := range []struct {
		msg, id string
		ok      bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, "7", true},
		{`{"jsonrpc":"2.0","error":{"code":-32601},"id":"x"}`, `"x"`, true},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "", false},
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "", false},
		{`{"jsonrpc":"2.0","id":3}`, "", false},
		{`[1]`, "", false},
		{`{"id":1,"result":`, "1", true}, // read no further than the result key
	} {
		id, ok := jsonrpc.ResponseID([]byte(c.msg))
		if ok != c.ok || (ok && string(id) != c.id) {
			t.Errorf("jsonrpc.ResponseID(%s) = %s, %v; want %s, %v", c.msg, id, ok, c.id, c.ok)
		}
	}
	// A cancelled request may go unanswered: it is no longer waited for.
	f.sent([]byte(`{"jsonrpc":"2.0","id":"r5","method":"tools/call","params":{}}`))
	f.sent([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r5"}}`))
	if len(f.ids) != 0 {
		t.Fatalf("pending %v after the cancellation", f.ids)
	}
}

// TestServeOverPipes drives Serve in-process: a line that is not valid
// UTF-8 gets a parse error and the session goes on, and a call still
// running when stdin ends is answered before Serve returns.
func TestServeOverPipes(t *testing.T) {
	srv := server.NewMCPServer("test", "1")
	srv.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(300 * time.Millisecond)
		return mcp.NewToolResultText("done"), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), srv, inR, outW, io.Discard, nil, jsonrpc.NewCancelledIDs(),
			Drain{Timeout: 10 * time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		outW.Close()
	}()
	go func() {
		io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		io.WriteString(inW, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
		inW.Close()
	}()
	got := map[float64]map[string]any{}
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", sc.Text(), err)
		}
		id, _ := m["id"].(float64)
		got[id] = m
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if e, _ := got[2]["error"].(map[string]any); e == nil || e["code"] != float64(jsonrpc.CodeParseError) {
		t.Errorf("invalid UTF-8 line: %v, want error %d", got[2], jsonrpc.CodeParseError)
	}
	if got[1]["result"] == nil {
		t.Errorf("initialize: %v", got[1])
	}
	res, _ := got[3]["result"].(map[string]any)
	if content, _ := res["content"].([]any); len(content) != 1 || content[0].(map[string]any)["text"] != "done" {
		t.Errorf("the call running at the end of stdin: %v, want its answer", got[3])
	}
}

// TestServeElicitationRoundTrip checks that the screen passes a client's
// JSON-RPC response to a request of the server's (elicitation/create, which
// a tool in review mode before sends) through to mcp-go: the tool gets the
// person's answer.
func TestServeElicitationRoundTrip(t *testing.T) {
	srv := server.NewMCPServer("test", "1")
	srv.AddTool(mcp.NewTool("ask"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message:         "approve?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"action_1": map[string]any{"type": "boolean"}}},
		}})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		b, _ := json.Marshal(res.Content)
		return mcp.NewToolResultText(string(res.Action) + " " + string(b)), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), srv, inR, outW, io.Discard, nil, jsonrpc.NewCancelledIDs(),
			Drain{Timeout: 10 * time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		outW.Close()
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}}`+"\n")
	sc := bufio.NewScanner(outR)
	var answer string
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", sc.Text(), err)
		}
		if m.Method == "elicitation/create" {
			io.WriteString(inW, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"action":"accept","content":{"action_1":true}}}`+"\n")
			continue
		}
		if string(m.ID) == "3" {
			if len(m.Result.Content) > 0 {
				answer = m.Result.Content[0].Text
			}
			inW.Close()
		}
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if answer != `accept {"action_1":true}` {
		t.Fatalf("the tool got %q, want the client's answer accept {\"action_1\":true}", answer)
	}
}
