package tools

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options.PastHandshake is called for the first request past a client's
// opening handshake, not for initialize, ping or the list methods.
func TestPastHandshake(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := wiki.Open(dir, wiki.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	calls := 0
	c := connect(t, Deps{Store: st, Log: quiet}, Options{PastHandshake: func() { calls++ }})
	ctx := context.Background()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("called %d times during the handshake", calls)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "validate_structure"
	if _, err := c.CallTool(ctx, req); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("called %d times for one tools/call", calls)
	}
}
