package main

import (
	"encoding/json"
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
	if len(got) < 2 {
		t.Fatalf("want several progress notifications, got %v", got)
	}
	prev := 0.0
	for i, n := range got {
		prog, _ := n["progress"].(float64)
		if n["progressToken"] != "bar-1" || prog <= prev {
			t.Errorf("notification %d %v: want token bar-1 and progress above %v", i, n, prev)
		}
		if total, ok := n["total"].(float64); ok && (i != len(got)-1 || prog != total) {
			t.Errorf("notification %d of %d %v carries a total; only the last may, at its progress", i, len(got), n)
		}
		prev = prog
	}
	t.Logf("%d notifications, last %v", len(got), got[len(got)-1])
}
