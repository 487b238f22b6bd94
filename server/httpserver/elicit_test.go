package httpserver

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

type acceptAll struct{ asked atomic.Int32 }

func (a *acceptAll) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked.Add(1)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"action_1": true}}}, nil
}

// TestHTTPElicitationApprovesWrite: over streamable HTTP, behind the guard
// and the POST streams, a write_page call in review mode before asks the
// person with elicitation/create on the call's stream, the client's answer
// (a POSTed JSON-RPC response) reaches mcp-go, and the approved write is
// on disk when the call returns.
func TestHTTPElicitationApprovesWrite(t *testing.T) {
	h, _, root := newTransport(t, Config{})
	if err := os.WriteFile(filepath.Join(root, "schema.md"), []byte("---\nreview: before\n---\n# Schema\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h.Handler())
	defer hs.Close()
	tr, err := transport.NewStreamableHTTP(hs.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	person := &acceptAll{}
	c := client.NewClient(tr, client.WithElicitationHandler(person))
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "http-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "write_page"
	req.Params.Arguments = map[string]any{"title": "Delta", "content": "Delta is the fourth letter.\n"}
	r, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Fatalf("write_page: %+v", r.Content)
	}
	if n := person.asked.Load(); n != 1 {
		t.Fatalf("%d elicitations, want 1", n)
	}
	m, _ := r.StructuredContent.(map[string]any)
	rv, _ := m["review"].(map[string]any)
	if rv["status"] != "applied" || m["path"] != "pages/delta.md" {
		t.Fatalf("result %v, want pages/delta.md applied", m)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "delta.md")); err != nil {
		t.Fatalf("the approved page is not on disk: %v", err)
	}
}
