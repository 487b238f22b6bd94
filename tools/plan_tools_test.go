package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/mcp"
)

// newModelHarness serves a wiki whose propose_plan talks over HTTP to a
// scripted OpenAI-compatible endpoint.
func newModelHarness(t *testing.T, replies ...string) (*harness, *modeltest.Server) {
	t.Helper()
	return newModelHarnessProgress(t, 0, replies...)
}

// newModelHarnessProgress is newModelHarness whose model client reports a
// completion in progress every interval (0: the default).
func newModelHarnessProgress(t *testing.T, interval time.Duration, replies ...string) (*harness, *modeltest.Server) {
	t.Helper()
	quiet := teststore.Quiet()
	st, dir, _ := teststore.NewInParent(t, nil, wiki.WithLogger(quiet))
	srv := modeltest.New(t, replies...)
	cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model", Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if interval > 0 {
		cfg.ProgressInterval = interval
	}
	mc, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, Deps{Store: st, Log: quiet, Model: mc}, Options{})
	t.Cleanup(func() { c.Close() })
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
	if r := h.call("propose_plan", map[string]any{"operation": "ingest"}); !r.IsError || !strings.Contains(text(r), "ingest needs path") {
		t.Errorf("no source: %s", text(r))
	}
	if r := h.call("propose_plan", map[string]any{"operation": "delete"}); !r.IsError {
		t.Error("unknown operation accepted")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d completions for bad arguments", n)
	}

	out := h.ok("propose_plan", map[string]any{"operation": "ingest", "path": "sources/rust.md"})
	id, _ := out["plan_id"].(string)
	acts, _ := out["actions"].([]any)
	if id == "" || len(acts) != 2 {
		t.Fatalf("propose_plan: %v", out)
	}
	first := acts[0].(map[string]any)
	if first["n"] != 1.0 || first["path"] != "pages/borrow-checker.md" || !strings.Contains(first["summary"].(string), "create page") {
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
	r := h.call("propose_plan", map[string]any{"operation": "ingest", "path": "sources/a.md"})
	if !r.IsError || !strings.Contains(text(r), "no model endpoint is configured") {
		t.Errorf("%s", text(r))
	}
}

// TestProposePlanReportsProgressWhileTheModelWorks: a client that sends a
// progress token gets notifications/progress while the model is slow, with
// values that strictly increase from the source scan (build hashes the
// pending sources first) into the wait for the model, and none after the
// response.
func TestProposePlanReportsProgressWhileTheModelWorks(t *testing.T) {
	reply, _ := json.Marshal(map[string]any{
		"takeaways": []string{"The wiki now covers WAL."},
		"actions":   []map[string]any{{"kind": "update_context", "markdown": "# Context\n\nSQLite's WAL.\n"}},
	})
	h, srv := newModelHarnessProgress(t, 150*time.Millisecond, string(reply))
	srv.Delay = 1200 * time.Millisecond
	for _, n := range []string{"a", "b", "c"} {
		h.ok("save_source", map[string]any{"path": "sources/" + n + ".md", "content": "# " + n + "\n\nWAL text " + n + ".\n"})
	}
	type note struct {
		progress, total float64
		message         string
		token           any
	}
	var mu sync.Mutex
	var notes []note
	h.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		f := n.Params.AdditionalFields
		p, _ := f["progress"].(float64)
		tot, _ := f["total"].(float64)
		msg, _ := f["message"].(string)
		mu.Lock()
		notes = append(notes, note{p, tot, msg, f["progressToken"]})
		mu.Unlock()
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "propose_plan"
	req.Params.Arguments = map[string]any{"operation": "build"}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	start := time.Now()
	res, err := h.c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("%v %s", err, text(res))
	}
	took := time.Since(start)
	mu.Lock()
	got := append([]note(nil), notes...)
	mu.Unlock()
	waits := 0
	for i, n := range got {
		if n.token != "tok-1" {
			t.Errorf("notification %d carries token %v", i, n.token)
		}
		if i > 0 && n.progress <= got[i-1].progress {
			t.Errorf("progress does not increase: %+v then %+v", got[i-1], n)
		}
		if strings.HasPrefix(n.message, "waiting for test-model (") {
			waits++
			if n.total != 0 && (i != len(got)-1 || n.total != n.progress) {
				t.Errorf("a wait before the last notification reports a total: %+v", n)
			}
		}
	}
	// 1.2 s at 150 ms intervals: about 7 reports of the wait; at least 2
	// (a busy machine drops ticks, so not more), never more than the
	// intervals that passed.
	if waits < 2 || waits > int(took/(150*time.Millisecond)) {
		t.Fatalf("%d progress notifications while waiting %v for the model: %+v", waits, took, got)
	}
	if !strings.HasPrefix(got[0].message, "hashed 3 sources") || got[0].progress != 3 || got[0].total != 0 || got[1].progress != 4 {
		t.Errorf("the scan's report and the first wait: %+v", got[:2])
	}
	time.Sleep(400 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != len(got) {
		t.Errorf("%d progress notifications after the response", len(notes)-len(got))
	}
}

// TestProgressSeq: phases that each count from the start become one strictly
// increasing sequence; repeats are dropped.
func TestProgressSeq(t *testing.T) {
	type rep struct{ done, total int }
	var q progressSeq
	var out [][2]float64
	for _, r := range []rep{{1, 0}, {1, 0}, {5, 10}, {10, 10}, {1, 0}, {2, 0}, {2, 0}, {1, 3}, {0, 0}, {3, 0}} {
		p, tot, ok := q.next(r.done, r.total)
		if ok {
			q.sent(p, tot)
			out = append(out, [2]float64{p, tot})
		}
	}
	want := [][2]float64{{1, 0}, {5, 10}, {10, 10}, {11, 0}, {12, 0}, {13, 15}, {16, 0}}
	if fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", out, want)
	}
}
