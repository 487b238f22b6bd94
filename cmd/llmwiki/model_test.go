package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/model/modeltest"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func ingestReply() string {
	b, _ := json.Marshal(map[string]any{
		"takeaways": []string{"WAL mode lets readers run during a write."},
		"actions": []map[string]any{
			{"kind": "create_page", "slug": "sqlite-wal", "title": "SQLite WAL", "summary": "Write-ahead logging in SQLite.", "markdown": "WAL appends changes to a log; see [[sqlite-checkpoints]].\n", "why": "the source's main topic"},
			{"kind": "create_page", "slug": "sqlite-checkpoints", "title": "SQLite checkpoints", "markdown": "A checkpoint moves WAL pages into the database.\n"},
		},
	})
	return string(b)
}

func TestIngestYesAppliesAndAudits(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	srv := modeltest.New(t, ingestReply())
	src := filepath.Join(t.TempDir(), "wal.md")
	os.WriteFile(src, []byte("# WAL\n\nSQLite's write-ahead log lets readers continue while a writer appends.\n"), 0o644)
	out, stderr, err := runCLI(t, "", "ingest", "--root", root, "--base-url", srv.BaseURL(), "--model", "test-model", src, "--yes")
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{
		"Saved the source as sources/wal.md",
		"Takeaways:\n  - WAL mode lets readers run during a write.",
		"[1] create page pages/sqlite-wal.md \"SQLite WAL\"",
		"[2] create page pages/sqlite-checkpoints.md",
		"model test-model at 127.0.0.1:",
		"1 completion(s), 120 prompt + 45 completion tokens",
		"Applied 2 of 2 approved action(s)",
		"[1] ok      create_page pages/sqlite-wal.md",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err != nil {
		t.Error(err)
	}
	calls := teststore.AuditLines(t, root)
	last := calls[len(calls)-1]
	if last.Tool != "cli:ingest" || last.Outcome != "ok" {
		t.Fatalf("last audit line %+v", last)
	}
	m, _ := last.Extra["model"].(map[string]any)
	if m["total_tokens"] != 165.0 || m["completions"] != 1.0 || m["duration_ms"] == nil {
		t.Errorf("model usage in audit: %v", last.Extra)
	}
	written := map[string]bool{}
	for _, w := range last.Writes {
		written[w.Path] = true
	}
	for _, p := range []string{"sources/wal.md", "pages/sqlite-wal.md", "pages/sqlite-checkpoints.md", "index.md", "log.md"} {
		if !written[p] {
			t.Errorf("audit line lacks write of %s: %+v", p, last.Writes)
		}
	}
	// The same file again reuses the saved source.
	srv.Push(`{"takeaways":["nothing new"],"actions":[]}`)
	out, _, err = runCLI(t, "", "ingest", "--root", root, "--base-url", srv.BaseURL(), src)
	if err != nil || !strings.Contains(out, "Source sources/wal.md is already in the wiki") || !strings.Contains(out, "(none: the model proposes no change)") {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestIngestPendingThenPlansApply(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	srv := modeltest.New(t, ingestReply())
	out, stderr, err := runCLI(t, "SQLite keeps a write-ahead log.\n", "ingest", "--root", root, "--base-url", srv.BaseURL(), "--as", "notes/wal.md", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	id := regexp.MustCompile(`p-\d{8}-\d{6}-[0-9a-f]{6}`).FindString(out)
	if id == "" || !strings.Contains(out, "Saved the source as sources/notes/wal.md") || !strings.Contains(out, "llmwiki plans apply "+id) {
		t.Fatalf("output:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err == nil {
		t.Fatal("written without approval")
	}
	out, _, _ = runCLI(t, "", "plans", "--root", root)
	if !strings.Contains(out, id) || !strings.Contains(out, "pending, expires in") {
		t.Errorf("plans list:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "plans", "show", id, "--root", root, "--show")
	if !strings.Contains(out, "| WAL appends changes to a log") {
		t.Errorf("plans show --show:\n%s", out)
	}
	if _, _, err := runCLI(t, "", "plans", "apply", id, "--root", root); err == nil || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("apply without a selection: %v", err)
	}
	out, _, err = runCLI(t, "", "plans", "apply", id, "--select", "2", "--root", root)
	if err != nil || !strings.Contains(out, "Applied 1 of 1") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-checkpoints.md")); err != nil {
		t.Error("approved action did not run")
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err == nil {
		t.Error("unapproved action ran")
	}
	calls := teststore.AuditLines(t, root)
	if last := calls[len(calls)-1]; last.Tool != "cli:plans-apply" || last.Outcome != "ok" || len(last.Writes) == 0 {
		t.Errorf("audit %+v", last)
	}
}

func TestIngestBadSelection(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	srv := modeltest.New(t, ingestReply())
	src := filepath.Join(t.TempDir(), "wal.md")
	os.WriteFile(src, []byte("WAL text\n"), 0o644)
	// --select wins over asking; a bad selection is a clear error and nothing runs.
	_, _, err := runCLI(t, "", "ingest", "--root", root, "--base-url", srv.BaseURL(), "--select", "3", src)
	if err == nil || !strings.Contains(err.Error(), "action 3 does not exist: the plan's actions are numbered 1 to 2") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err == nil {
		t.Error("written")
	}
}

func TestIngestEndpointDown(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	src := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(src, []byte("text\n"), 0o644)
	out, _, err := runCLI(t, "", "ingest", "--root", root, "--base-url", "http://"+addr+"/v1", src, "--yes")
	if err == nil || !strings.Contains(err.Error(), "cannot reach the model endpoint http://"+addr+"/v1 (connection refused)") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(out, "Saved the source as sources/x.md") {
		t.Errorf("output:\n%s", out)
	}
	calls := teststore.AuditLines(t, root)
	if last := calls[len(calls)-1]; last.Tool != "cli:ingest" || last.Outcome != "error" || !strings.Contains(last.Error, "connection refused") {
		t.Errorf("audit %+v", last)
	}
}

func TestBuildYes(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	os.WriteFile(filepath.Join(root, "sources", "a.md"), []byte("Alpha is the first letter.\n"), 0o644)
	srv := modeltest.New(t, `{"takeaways":["Folded a.md"],"actions":[{"kind":"update_context","markdown":"# Context\n\nAlpha is first.\n"}]}`)
	out, _, err := runCLI(t, "", "build", "--root", root, "--base-url", srv.BaseURL(), "--yes")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "records 1 source(s) as folded") || !strings.Contains(out, "[1] ok      update_context context.md") {
		t.Errorf("output:\n%s", out)
	}
	data, _ := os.ReadFile(filepath.Join(root, "context.md"))
	if !strings.Contains(string(data), "Alpha is first.") || !strings.Contains(string(data), "sources/a.md:") {
		t.Errorf("context.md:\n%s", data)
	}
	if !strings.Contains(srv.Requests()[0].Last(), "Alpha is the first letter.") {
		t.Error("the pending source was not in the prompt")
	}
}

func TestDoctor(t *testing.T) {
	srv := modeltest.New(t, `{"ok": true}`)
	srv.Models = []string{"test-model"}
	out, _, err := runCLI(t, "", "doctor", "--base-url", srv.BaseURL(), "--model", "test-model", "--api-key", "sekrit")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"[ok  ] endpoint", "[ok  ] model", "[ok  ] completion", "API key:  from --api-key, sent only to http://127.0.0.1:", "The model side works"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sekrit") {
		t.Error("doctor printed the key")
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	out, _, err = runCLI(t, "", "doctor", "--base-url", "http://"+addr+"/v1")
	var code exitCode
	if !errors.As(err, &code) || code != 1 || !strings.Contains(out, "[FAIL] endpoint") || !strings.Contains(out, "fix: install Ollama") {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestSelectionAsksUntilValid(t *testing.T) {
	p := &plan.Plan{Actions: make([]plan.Action, 3)}
	var out bytes.Buffer
	e := env{stdin: strings.NewReader("7\n1, 3\n"), stdout: &out, stderr: &out}
	got, asked, err := selection(e, p, false, "", true)
	if err != nil || !asked || fmt.Sprint(got) != "[1 3]" || !strings.Contains(out.String(), "action 7 does not exist") {
		t.Errorf("%v %v %v\n%s", got, asked, err, out.String())
	}
	// no answer (EOF): nobody was asked, the plan stays pending
	e.stdin = strings.NewReader("")
	if _, asked, _ := selection(e, p, false, "", true); asked {
		t.Error("EOF counted as an answer")
	}
	e.stdin = strings.NewReader("none\n")
	if got, asked, _ := selection(e, p, false, "", true); !asked || len(got) != 0 {
		t.Errorf("none: %v %v", got, asked)
	}
}

// TestPlanToolsEndToEnd drives propose_plan and apply_plan in the built
// binary with the official TypeScript SDK; the binary's go-openai client
// talks over HTTP to a scripted endpoint.
func TestPlanToolsEndToEnd(t *testing.T) {
	bin := binary(t)
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	second, _ := json.Marshal(map[string]any{
		"takeaways": []string{"A checkpoint copies the WAL back."},
		"actions":   []map[string]any{{"kind": "create_page", "slug": "sqlite-checkpoints", "title": "SQLite checkpoints", "markdown": "A checkpoint moves WAL pages into the database; see [[sqlite-wal]].\n"}},
	})
	srv := modeltest.New(t, ingestReply(), string(second))
	// Every completion takes 3 s; the server reports progress every
	// 250 ms, and the script's second propose_plan has a 1.5 s timeout
	// that resets on progress: it succeeds only by those resets, and a
	// loaded machine has six intervals, not three (1.5 s and 750 ms
	// before), to deliver each report.
	srv.Delay = 3 * time.Second
	t.Setenv(model.EnvProgress, "250ms")
	out := node(t, "plan_flow.mjs", "--bin", bin, "--root", root, "--base-url", srv.BaseURL(), "--delay", "3000")
	var sum struct {
		PlanID     string `json:"plan_id"`
		SlowPlanID string `json:"slow_plan_id"`
		Calls      int    `json:"calls"`
		Progress   int    `json:"progress"`
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-wal.md")); err != nil {
		t.Error("approved action did not run")
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "sqlite-checkpoints.md")); err == nil {
		t.Error("unapproved action ran")
	}
	calls := teststore.AuditLines(t, root)
	var propose, apply int
	for _, c := range calls {
		switch c.Tool {
		case "propose_plan":
			propose++
			if m, _ := c.Extra["model"].(map[string]any); m["total_tokens"] != 165.0 || (c.Extra["plan_id"] != sum.PlanID && c.Extra["plan_id"] != sum.SlowPlanID) || len(c.Writes) != 0 {
				t.Errorf("propose_plan audit %+v", c)
			}
		case "apply_plan":
			apply++
		}
	}
	if sum.Progress < 2 || sum.SlowPlanID == "" {
		t.Errorf("slow propose_plan: %d progress notifications, plan %q", sum.Progress, sum.SlowPlanID)
	}
	if propose != 2 || apply != 2 || len(calls) != sum.Calls {
		t.Errorf("audit: %d propose, %d apply, %d lines for %d calls", propose, apply, len(calls), sum.Calls)
	}
}

// deepWiki is a wiki with two pages that contradict each other, and the
// scripted reply of a model that finds one real contradiction, invents a
// quote, and quotes only one side of another.
func deepWiki(t *testing.T) (string, string) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	os.WriteFile(filepath.Join(root, "pages", "wal.md"), []byte("---\ntitle: WAL\n---\nSQLite's WAL mode allows one writer and many readers at once.\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pages", "locking.md"), []byte("---\ntitle: Locking\n---\nIn SQLite a writer always blocks every reader.\n"), 0o644)
	reply, _ := json.Marshal(map[string]any{"findings": []map[string]any{
		{"kind": "contradiction", "file": "pages/locking.md", "message": "One page says writers block readers, the other that WAL lets them run together.", "evidence": []map[string]string{
			{"file": "pages/wal.md", "quote": "WAL mode allows one writer and many readers"},
			{"file": "pages/locking.md", "quote": "a writer always blocks every reader"}}},
		{"kind": "stale_claim", "file": "pages/wal.md", "message": "Invented.", "evidence": []map[string]string{
			{"file": "pages/wal.md", "quote": "WAL mode was removed in SQLite 4"}}},
		{"kind": "contradiction", "file": "pages/wal.md", "message": "Only one side quoted.", "evidence": []map[string]string{
			{"file": "pages/wal.md", "quote": "one writer and many readers at once"}}},
	}})
	return root, string(reply)
}

func TestDeepLintKeepsOnlyVerifiedClaims(t *testing.T) {
	root, reply := deepWiki(t)
	srv := modeltest.New(t, reply)
	st, err := openOrCreate(env{stderr: io.Discard, getenv: os.Getenv}, root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mc := testModel(t, srv)
	call := store.NewCall("cli:lint", st.SessionID(), nil)
	res, err := deepLint(store.WithCall(context.Background(), call), st, mc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proposed != 3 || len(res.Findings) != 1 || res.Dropped != 2 || res.Pages != 2 {
		t.Fatalf("result %+v", res)
	}
	f := res.Findings[0]
	if f.Kind != "contradiction" || !f.Verified || f.Source != "model" || f.Path != "pages/locking.md" || len(f.Evidence) != 2 || f.Evidence[0].Line != 4 {
		t.Errorf("finding %+v", f)
	}
	why := strings.Join(res.DroppedWhy, "\n")
	if !strings.Contains(why, "2 (stale_claim)") || !strings.Contains(why, "not in pages/wal.md") || !strings.Contains(why, "3 (contradiction)") || !strings.Contains(why, "two different places") {
		t.Errorf("dropped: %s", why)
	}
	stored, _ := os.ReadFile(filepath.Join(root, ".llmwiki", "lint", "agent.json"))
	if strings.Count(string(stored), `"id"`) != 1 || strings.Contains(string(stored), "Invented.") {
		t.Errorf("stored findings:\n%s", stored)
	}
	if call.Extra["deep_dropped"] != 2 || call.Extra["deep_verified"] != 1 {
		t.Errorf("audit extras %v", call.Extra)
	}
	var out bytes.Buffer
	printDeep(&out, res)
	if !strings.Contains(out.String(), "3 proposed, 1 verified, 2 dropped because their quotes were not found") {
		t.Errorf("output:\n%s", out.String())
	}
}

func testModel(t *testing.T, srv *modeltest.Server) *model.Client {
	t.Helper()
	cfg, err := model.Resolve(func(string) string { return "" }, model.Flags{BaseURL: srv.BaseURL(), Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return mc
}

func TestLintDeepCommand(t *testing.T) {
	root, reply := deepWiki(t)
	srv := modeltest.New(t, reply, reply)
	out, _, err := runCLI(t, "", "lint", "--root", root, "--deep", "--base-url", srv.BaseURL(), "--model", "test-model")
	var code exitCode
	if err != nil && !errors.As(err, &code) {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"pages checked",
		"Deep lint (model, 2 of 2 pages shown): 3 proposed, 1 verified, 2 dropped because their quotes were not found in the files.",
		"[contradiction] One page says writers block readers",
		"dropped 2 (stale_claim)",
		"model test-model at 127.0.0.1:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	calls := teststore.AuditLines(t, root)
	last := calls[len(calls)-1]
	if last.Tool != "cli:lint" || last.Extra["deep_dropped"] != 2.0 || last.Extra["model"] == nil {
		t.Errorf("audit %+v", last)
	}
	out, _, _ = runCLI(t, "", "lint", "--root", root, "--deep", "--json", "--base-url", srv.BaseURL())
	var rep struct {
		Pages int `json:"pages"`
		Deep  struct {
			Proposed int `json:"proposed"`
			Dropped  int `json:"dropped"`
		} `json:"deep"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Deep.Proposed != 3 || rep.Deep.Dropped != 2 || rep.Pages != 2 {
		t.Errorf("json %v %+v\n%s", err, rep, out)
	}
	// The endpoint down: the deterministic report still prints, then a clear error.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	out, _, err = runCLI(t, "", "lint", "--root", root, "--deep", "--base-url", "http://"+addr+"/v1")
	if err == nil || !strings.Contains(err.Error(), "lint --deep: cannot reach the model endpoint") || !strings.Contains(out, "pages checked") {
		t.Errorf("%v\n%s", err, out)
	}
	// Without --deep nothing asks a model.
	n := len(srv.Requests())
	runCLI(t, "", "lint", "--root", root, "--base-url", srv.BaseURL())
	if len(srv.Requests()) != n {
		t.Error("lint without --deep called the model")
	}
}
