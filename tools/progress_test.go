package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// progressLog collects the notifications/progress a client receives.
type progressLog struct {
	mu  sync.Mutex
	got []map[string]any
}

func (p *progressLog) since(n int) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.got[n:]...)
}

func (p *progressLog) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got)
}

// TestProgressRebuildIndexAndLint: with a progress token, rebuild_index (its
// page scan) and lint_findings (its checks) send notifications/progress
// before their response, each carrying the token, progress increasing, and
// a total only on the last one, at its progress (so a bar never fills
// twice); without a token, none.
func TestProgressRebuildIndexAndLint(t *testing.T) {
	h := newHarness(t)
	log := &progressLog{}
	h.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			log.mu.Lock()
			log.got = append(log.got, n.Params.AdditionalFields)
			log.mu.Unlock()
		}
	})
	// Enough pages for the scan to report more than once (every 100).
	const n = 450
	for i := range n {
		body := fmt.Sprintf("---\ntitle: Topic %03d\nsummary: Page %d of the progress test.\n---\n# Topic %03d\n\nSee [[topic-%03d]].\n", i, i, i, (i+1)%n)
		if err := os.WriteFile(filepath.Join(h.dir, "pages", fmt.Sprintf("topic-%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	call := func(tool, token string) []map[string]any {
		t.Helper()
		before := log.len()
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = map[string]any{}
		if token != "" {
			req.Params.Meta = &mcp.Meta{ProgressToken: token}
		}
		r, err := h.c.CallTool(context.Background(), req)
		if err != nil || r.IsError {
			t.Fatalf("%s: %v %s", tool, err, text(r))
		}
		return log.since(before) // what arrived before the response
	}
	cases := []struct {
		tool, token string
		total       float64 // the last notification's progress and total
	}{
		{"rebuild_index", "rebuild-1", 2 * n}, // pages scanned, then rendered (phases number on: progressSeq)
		{"lint_findings", "lint-1", 0},        // checks run (their number is lint's business)
	}
	for _, c := range cases {
		ps := call(c.tool, c.token)
		if len(ps) < 2 {
			t.Fatalf("%s: want at least 2 progress notifications, got %v", c.tool, ps)
		}
		prev := -1.0
		for i, p := range ps {
			prog, _ := p["progress"].(float64)
			if p["progressToken"] != c.token || prog <= prev {
				t.Errorf("%s: notification %d %v: want token %q and progress above %v", c.tool, i, p, c.token, prev)
			}
			// A bar fills once: no total until the last notification,
			// which is at it (a total sent earlier could grow with a
			// later phase and make the bar jump back).
			if total, ok := p["total"].(float64); ok && (i != len(ps)-1 || prog != total) {
				t.Errorf("%s: notification %d of %d %v carries a total; only the last may, at its progress", c.tool, i, len(ps), p)
			}
			if msg, _ := p["message"].(string); msg == "" {
				t.Errorf("%s: notification %d without a message", c.tool, i)
			}
			prev = prog
		}
		last := ps[len(ps)-1]
		if last["total"] == nil || last["progress"] != last["total"] || (c.total > 0 && last["total"] != c.total) {
			t.Errorf("%s: the last notification %v is not at its total (%v)", c.tool, last, c.total)
		}
		t.Logf("%s: %d progress notifications, last %v", c.tool, len(ps), last)

		if ps := call(c.tool, ""); len(ps) > 0 {
			t.Errorf("%s without a progress token sent progress: %v", c.tool, ps)
		}
	}
}
