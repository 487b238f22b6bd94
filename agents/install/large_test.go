package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bigClaudeJSON is a ~/.claude.json as Claude Code keeps it for a heavy
// user: a "projects" object with an entry per folder, each holding its
// prompt history. lines is the approximate line count once indented.
func bigClaudeJSON(lines int) []byte {
	type hist struct {
		Display        string         `json:"display"`
		PastedContents map[string]any `json:"pastedContents"`
	}
	type proj struct {
		AllowedTools           []string       `json:"allowedTools"`
		History                []hist         `json:"history"`
		MCPContextURIs         []string       `json:"mcpContextUris"`
		MCPServers             map[string]any `json:"mcpServers"`
		HasTrustDialogAccepted bool           `json:"hasTrustDialogAccepted"`
		LastCost               float64        `json:"lastCost"`
		LastSessionID          string         `json:"lastSessionId"`
		ProjectOnboardingCount int            `json:"projectOnboardingSeenCount"`
		HasCompletedOnboarding bool           `json:"hasCompletedProjectOnboarding"`
	}
	const perHistory, historyLen = 4, 40
	projects := map[string]proj{}
	for i := 0; len(projects)*(historyLen*perHistory+12) < lines; i++ {
		p := proj{AllowedTools: []string{}, MCPContextURIs: []string{}, MCPServers: map[string]any{}, HasTrustDialogAccepted: true, LastCost: float64(i) / 7, LastSessionID: fmt.Sprintf("5f1c%04d-aa11-4b2c-9d3e-%012d", i, i), ProjectOnboardingCount: i % 5}
		for h := 0; h < historyLen; h++ {
			p.History = append(p.History, hist{Display: fmt.Sprintf("fix the failing test in pkg%d and explain why it broke (%d)", h, i), PastedContents: map[string]any{}})
		}
		projects[fmt.Sprintf("/home/heavy/src/project-%04d", i)] = p
	}
	data, err := json.MarshalIndent(map[string]any{
		"numStartups": 412, "installMethod": "native", "autoUpdates": true,
		"userID": strings.Repeat("ab", 32), "projects": projects,
	}, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(data, '\n')
}

// installBig installs claude-code at user scope into a home whose
// ~/.claude.json is cfg and returns the bytes allocated meanwhile.
func installBig(tb testing.TB, cfg []byte) uint64 {
	tb.Helper()
	o, home, _ := setup(tb, "claude-code", ScopeUser)
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), cfg, 0o600); err != nil {
		tb.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Install(o)
	runtime.ReadMemStats(&after)
	if err != nil {
		tb.Fatal(err)
	}
	var ch *Change
	for i := range res.Changes {
		if strings.HasSuffix(res.Changes[i].Path, ".claude.json") {
			ch = &res.Changes[i]
		}
	}
	if ch == nil || ch.Action != "update" || !strings.Contains(ch.Diff, "+    \"llmwiki\": {") {
		tb.Fatalf("~/.claude.json was not updated with a readable diff: %+v", ch)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestInstallLargeClaudeJSON installs into a 1 MB, 30,000-line
// ~/.claude.json: the whole install allocates well under 300 MB (a diff
// table of lines squared would take gigabytes).
func TestInstallLargeClaudeJSON(t *testing.T) {
	cfg := bigClaudeJSON(30000)
	if n := strings.Count(string(cfg), "\n"); n < 29000 || len(cfg) < 900_000 {
		t.Fatalf("generated config has %d lines, %d bytes; want about 30,000 lines and 1 MB", n, len(cfg))
	}
	if alloc := installBig(t, cfg); alloc > 300<<20 {
		t.Errorf("installing into a %d-byte ~/.claude.json allocated %d MB; want under 300 MB", len(cfg), alloc>>20)
	}
}

// BenchmarkInstallLargeClaudeJSON: go test ./agents/install -run '^$'
// -bench InstallLargeClaudeJSON -benchtime 5x. It reports the bytes
// allocated per install (alloc-MB/op) and the peak heap in use (peak-MB).
func BenchmarkInstallLargeClaudeJSON(b *testing.B) {
	cfg := bigClaudeJSON(30000)
	b.ReportMetric(float64(len(cfg))/1e6, "config-MB")
	var total uint64
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			time.Sleep(time.Millisecond)
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		total += installBig(b, cfg)
	}
	b.StopTimer()
	close(stop)
	<-done
	b.ReportMetric(float64(total)/float64(b.N)/(1<<20), "alloc-MB/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
}
