package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// TestProgressStdioBarFillsOnce drives the built binary over stdio:
// rebuild_index with a progress token on a wiki big enough for several
// notifications (a page scan, then the render) sends progress that only
// rises, never exceeds a total, and carries the total at most once, on the
// last notification before the response, so a client's bar fills once.
func TestProgressStdioBarFillsOnce(t *testing.T) {
	root := t.TempDir()
	lintWiki(t, root, 450)
	p := startStdio(t, root, nil)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "rebuild_index", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "bar-1"}}})
	p.write(string(b))
	var got []map[string]any
	timeout := time.After(60 * time.Second) // only bounds a hang
wait:
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("the server closed stdout before answering:\n%s", p.log())
			}
			if m["method"] == "notifications/progress" {
				got = append(got, m["params"].(map[string]any))
			} else if m["id"] == 7.0 {
				break wait
			}
		case <-timeout:
			t.Fatalf("no answer to rebuild_index:\n%s", p.log())
		}
	}
	checkProgressBar(t, "bar-1", got)
}

// checkProgressBar asserts what a client needs to draw one call's progress
// as a bar that fills once: several notifications, all with token (when
// token is not nil), progress strictly rising, and a total only on the last,
// equal to its progress.
func checkProgressBar(t *testing.T, token any, got []map[string]any) {
	t.Helper()
	if len(got) < 2 {
		t.Fatalf("want several progress notifications, got %v", got)
	}
	prev := 0.0
	for i, n := range got {
		prog, _ := n["progress"].(float64)
		if (token != nil && n["progressToken"] != token) || prog <= prev {
			t.Errorf("notification %d %v: want token %v and progress above %v", i, n, token, prev)
		}
		if total, ok := n["total"].(float64); ok && (i != len(got)-1 || prog != total) {
			t.Errorf("notification %d of %d %v carries a total; only the last may, at its progress", i, len(got), n)
		}
		prev = prog
	}
	t.Logf("%d notifications, last %v", len(got), got[len(got)-1])
}

// TestProgressHTTPBarFillsOnce drives the built binary with the official
// TypeScript SDK over streamable HTTP (whose client keeps the session's GET
// stream open) and legacy SSE: each rebuild_index call's progress, as
// onprogress sees it, rises in order and carries its total once, last.
func TestProgressHTTPBarFillsOnce(t *testing.T) {
	e2eDir(t)
	root := t.TempDir()
	lintWiki(t, root, 450)
	for _, kind := range []string{"streamable", "sse"} {
		t.Run(kind, func(t *testing.T) {
			p := startHTTP(t, root, nil)
			out := node(t, "progress_flow.mjs", "--url", p.base, "--transport", kind, "--calls", "10")
			p.stop(t)
			var calls [][]map[string]any
			if err := json.Unmarshal(out, &calls); err != nil {
				t.Fatalf("flow output: %v\n%s", err, out)
			}
			if len(calls) != 10 {
				t.Fatalf("want 10 calls, got %d", len(calls))
			}
			for i, got := range calls {
				t.Run(strconv.Itoa(i), func(t *testing.T) { checkProgressBar(t, nil, got) })
			}
		})
	}
}
