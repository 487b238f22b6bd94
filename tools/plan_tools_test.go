package tools

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// newModelHarness serves a wiki whose propose_plan talks over HTTP to a
// scripted OpenAI-compatible endpoint.
func newModelHarness(t *testing.T, replies ...string) (*harness, *modeltest.Server) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wiki")
	if _, err := wiki.Init(dir); err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := wiki.Open(dir, wiki.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t, replies...)
	cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := NewServer(Deps{Store: st, Log: quiet, Model: mc}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "go-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); st.Close() })
	return &harness{t: t, dir: dir, store: st, c: c}, srv
}

func TestProposeAndApplyPlanOverMCP(t *testing.T) {
	reply, _ := json.Marshal(map[string]any{
		"takeaways": []string{"Rust's borrow checker prevents data races."},
		"actions": []map[string]any{
			{"kind": "create_page", "slug": "borrow-checker", "title": "Borrow checker", "summary": "How Rust checks borrows.", "markdown": "The borrow checker enforces one writer or many readers.\n", "why": "core idea of the source"},
			{"kind": "create_page", "slug": "ownership", "title": "Ownership", "markdown": "Each value has one owner; see [[borrow-checker]].\n"},
		},
	})
	h, srv := newModelHarness(t, string(reply))
	h.ok("save_source", map[string]any{"path": "sources/rust.md", "content": "# Rust\n\nThe borrow checker prevents data races at compile time.\n"})

	// Wrong arguments never reach the model.
	if r := h.call("propose_plan", map[string]any{"operation": "ingest"}); !r.IsError || !strings.Contains(text(r), "ingest needs source") {
		t.Errorf("no source: %s", text(r))
	}
	if r := h.call("propose_plan", map[string]any{"operation": "delete"}); !r.IsError {
		t.Error("unknown operation accepted")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d completions for bad arguments", n)
	}

	out := h.ok("propose_plan", map[string]any{"operation": "ingest", "source": "sources/rust.md"})
	id, _ := out["plan_id"].(string)
	acts, _ := out["actions"].([]any)
	if id == "" || len(acts) != 2 {
		t.Fatalf("propose_plan: %v", out)
	}
	first := acts[0].(map[string]any)
	if first["n"] != 1.0 || first["target"] != "pages/borrow-checker.md" || !strings.Contains(first["summary"].(string), "create page") {
		t.Errorf("action 1: %v", first)
	}
	if m := out["model"].(map[string]any); m["completions"] != 1.0 || m["total_tokens"] != 165.0 {
		t.Errorf("model usage: %v", m)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pages", "borrow-checker.md")); err == nil {
		t.Fatal("propose_plan wrote a page")
	}

	res := h.ok("apply_plan", map[string]any{"plan_id": id, "selected": []int{2}})
	if res["status"] != "applied" || res["applied"] != 1.0 {
		t.Errorf("apply_plan: %v", res)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pages", "ownership.md")); err != nil {
		t.Error("approved action 2 did not run")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "pages", "borrow-checker.md")); err == nil {
		t.Error("unapproved action 1 ran")
	}
	if r := h.call("apply_plan", map[string]any{"plan_id": id, "selected": []int{1}}); !r.IsError || !strings.Contains(text(r), "conflict: plan "+id+" is applied, not pending") {
		t.Errorf("second apply: %s", text(r))
	}
	if r := h.call("apply_plan", map[string]any{"plan_id": "../../schema.md", "selected": []int{1}}); !r.IsError || !strings.Contains(text(r), "not of the form") {
		t.Errorf("bad id: %s", text(r))
	}
}

func TestProposePlanWithoutModel(t *testing.T) {
	h := newHarness(t)
	h.ok("save_source", map[string]any{"path": "sources/a.md", "content": "text"})
	r := h.call("propose_plan", map[string]any{"operation": "ingest", "source": "sources/a.md"})
	if !r.IsError || !strings.Contains(text(r), "no model endpoint is configured") {
		t.Errorf("%s", text(r))
	}
}
