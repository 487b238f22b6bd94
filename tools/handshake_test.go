package tools

import (
	"context"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/mcp"
)

// Options.PastHandshake is called for the first request past a client's
// opening handshake, not for initialize, ping or the list methods.
func TestPastHandshake(t *testing.T) {
	quiet := teststore.Quiet()
	st, _, _ := teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
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
