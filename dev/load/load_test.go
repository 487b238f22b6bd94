package main

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestLoadSmall runs the whole load test, bounded and small (a made-up
// corpus, 4 clients for 3 s open loop at 8 calls/s each, then 3 s closed
// loop, 2 stdio processes x 5 writers), then damages the wiki in the ways
// the checks exist for and sees each one caught.
func TestLoadSmall(t *testing.T) {
	wikitest.SkipShort(t, "load")
	dir := t.TempDir()
	bin := filepath.Join(dir, "llmwiki")
	repo, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/llmwiki")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	corpus := filepath.Join(dir, "corpus")
	for _, lang := range []string{"en", "de", "ja"} {
		for i := 0; i < 60; i++ {
			p := filepath.Join(corpus, lang, fmt.Sprintf("Folder %d", i%4), fmt.Sprintf("Note %02d.md", i))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nText of note %d in %s about graphs and canvas.\n", i, i, lang)), 0o644)
		}
	}
	var out strings.Builder
	cfg := config{bin: bin, corpus: corpus, root: filepath.Join(dir, "wiki"), keep: true, clients: 4, duration: 3 * time.Second,
		mode: "both", rate: 8, maxInFlight: 4, seed: 7,
		writeRatio: 0.3, stdioWriters: 5, stdioOps: 5, callTimeout: 60 * time.Second, out: &out}
	rep, err := run(context.Background(), cfg)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ok() {
		t.Fatal("the load test's checks failed")
	}
	if len(rep.led.logAcked) == 0 || len(rep.led.pages) <= loadPages || len(rep.led.research) == 0 {
		t.Fatalf("too little was written to prove anything: %d log entries, %d page writes, %d research sections", len(rep.led.logAcked), len(rep.led.pages), len(rep.led.research))
	}
	if len(rep.runs) != 2 || rep.runs[0].mode != "open" || rep.runs[1].mode != "closed" {
		t.Fatalf("want an open-loop then a closed-loop phase, got %d phases", len(rep.runs))
	}
	for _, want := range []string{"open loop at 32 calls/s offered", "goal: p99 <= 50 ms", "saturation (closed loop, no pause): capacity figures, latency = clients / throughput"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// The open loop paces: about rate x clients x duration calls due (a
	// Poisson count of mean 96, sd ~10), every started one counted once,
	// plus the write_page that follows a page update's read_page.
	open := rep.runs[0].pace
	want := cfg.rate * float64(cfg.clients) * cfg.duration.Seconds()
	if n := float64(open.due); n < 0.7*want || n > 1.3*want {
		t.Errorf("open loop: %d calls due, want about %.0f", open.due, want)
	}
	followUps := 0
	for _, s := range rep.runs[0].stats.tools {
		if s.Tool == "write_page" {
			followUps = s.N
		}
	}
	if total := rep.runs[0].stats.total; total != open.started+followUps || len(open.lags) != open.started {
		t.Errorf("open loop: %d calls counted, %d start lags, want %d started + %d write_page", total, len(open.lags), open.started, followUps)
	}

	// The checks must fail on a damaged wiki. Each case damages its own
	// fresh copy of the wiki: damage done in place would stack, and a later
	// case could undo an earlier one (a log entry removed, then the same
	// entry, picked at random again, written twice, leaves it once).
	damage := []struct {
		name  string
		check string
		do    func(root string) error
	}{
		{"an acknowledged log entry removed", "log.md holds exactly the acknowledged entries", func(root string) error {
			return rewrite(filepath.Join(root, "log.md"), func(s string) string {
				for title := range rep.led.logAcked {
					return strings.Replace(s, "| "+title+"\n", "| gone\n", 1)
				}
				return s
			})
		}},
		{"a log entry written twice", "log.md holds exactly the acknowledged entries", func(root string) error {
			return rewrite(filepath.Join(root, "log.md"), func(s string) string {
				for title := range rep.led.logAcked {
					return s + "\n## [2026-01-01 00:00] note | " + title + "\n"
				}
				return s
			})
		}},
		{"an acknowledged page version lost", "acknowledged page writes on disk", func(root string) error {
			w := rep.led.pages[len(rep.led.pages)/2]
			snaps, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "snapshots", filepath.FromSlash(w.path), "*"))
			for _, s := range snaps {
				os.Remove(s)
			}
			return os.WriteFile(filepath.Join(root, filepath.FromSlash(w.path)), []byte("---\ntitle: x\n---\noverwritten\n"), 0o644)
		}},
		{"a refused write on disk", "refused page writes are nowhere", func(root string) error {
			if len(rep.led.conflicts) == 0 {
				rep.led.conflicts = []pageWrite{{path: "pages/load-page-00.md", marker: "planted"}}
			}
			w := rep.led.conflicts[0]
			return rewrite(filepath.Join(root, filepath.FromSlash(w.path)), func(s string) string { return s + "\nmarker " + w.marker + "\n" })
		}},
		{"a research section lost", "research notes hold each acknowledged section once", func(root string) error {
			files, _ := filepath.Glob(filepath.Join(root, "sources", "research", "*.md"))
			return os.WriteFile(files[0], []byte("# emptied\n"), 0o644)
		}},
		{"an audit line torn", "audit lines equal calls", func(root string) error {
			files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
			f, err := os.OpenFile(files[0], os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString(`{"time":"2026-`)
			return err
		}},
		{"a temp file left", "no temp or torn files; corpus untouched", func(root string) error {
			return os.WriteFile(filepath.Join(root, "pages", ".x.md.llmwiki-tmp-0000"), []byte("half"), 0o644)
		}},
		{"a corpus page changed", "no temp or torn files; corpus untouched", func(root string) error {
			return rewrite(filepath.Join(root, filepath.FromSlash(rep.corpusPaths[0])), func(s string) string { return s + "x" })
		}},
	}
	for _, d := range damage {
		root := filepath.Join(t.TempDir(), "wiki")
		if err := os.CopyFS(root, os.DirFS(cfg.root)); err != nil {
			t.Fatalf("%s: copying the wiki: %v", d.name, err)
		}
		if err := d.do(root); err != nil {
			t.Fatalf("%s: %v", d.name, err)
		}
		before := len(rep.checks)
		rep.verify(root, d.name)
		caught := false
		for _, c := range rep.checks[before:] {
			if c.name == d.check && !c.ok {
				caught = true
			}
		}
		if !caught {
			t.Errorf("%s: the check %q did not fail", d.name, d.check)
		}
	}
}

func rewrite(path string, f func(string) string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(f(string(b))), 0o644)
}

// TestOpenLoop checks the open loop's schedule without a server: calls
// start on time at the offered rate whatever the server does, and when the
// server falls behind (one call in flight, each taking 20 ms, 100 due a
// second) the schedule is kept, the late calls are counted, and each call
// is handed its intended start, from which its latency is measured. Only
// lower bounds on time are checked (a sleep takes at least its time); how
// late a loaded machine starts a call is logged, not asserted.
func TestOpenLoop(t *testing.T) {
	type started struct{ intended, actual time.Time }
	runLoop := func(rate float64, d time.Duration, inFlight int, work time.Duration) (paceStats, []started, time.Time) {
		var mu sync.Mutex
		var calls []started
		start := time.Now()
		ps := openLoop(context.Background(), mrand.New(mrand.NewPCG(7, 1)), rate, start, start.Add(d), inFlight, func(int) op {
			return func(_ context.Context, intended time.Time) {
				now := time.Now()
				mu.Lock()
				calls = append(calls, started{intended, now})
				mu.Unlock()
				time.Sleep(work)
			}
		})
		return ps, calls, start
	}

	// A fast server: about rate x duration calls, all started, none early,
	// (almost) none late, spread over the duration. (A busy machine can
	// run a finished call's goroutine late, and keep its slot a moment.)
	ps, calls, start := runLoop(100, 600*time.Millisecond, 8, 0)
	if ps.due < 40 || ps.due > 80 || ps.started != ps.due || len(calls) != ps.started {
		t.Fatalf("fast server: %d calls due, %d started, %d run, want about 60 and all", ps.due, ps.started, len(calls))
	}
	// How many start late depends on the machine's load: a figure, not a check.
	t.Logf("fast server: %d of %d calls late", ps.late, ps.due)
	for _, c := range calls {
		if c.actual.Before(c.intended) {
			t.Errorf("a call started %s before its time", c.intended.Sub(c.actual))
		}
	}
	if last := calls[len(calls)-1].intended.Sub(start); last < 400*time.Millisecond {
		t.Errorf("fast server: the last call was due %s after the start, want the calls spread over 600ms", last)
	}

	// A slow server (capacity 50 calls/s, 100 due a second): the schedule
	// does not stretch (as many calls due as on a fast server), the calls
	// queue and are handed the time they were due, those that fell due in
	// the queue are late, and those still queued at the end never start.
	ps, calls, start = runLoop(100, 400*time.Millisecond, 1, 20*time.Millisecond)
	if ps.due < 25 || ps.due > 55 {
		t.Fatalf("slow server: %d calls due, want about 40 whatever the server does", ps.due)
	}
	if ps.started >= ps.due || ps.started > 22 || ps.late == 0 || len(calls) != ps.started {
		t.Errorf("slow server: %d due, %d started (%d run), %d late; want at most 20 started, the rest never, some late", ps.due, ps.started, len(calls), ps.late)
	}
	var behind time.Duration
	for i, c := range calls {
		if i > 0 && !calls[i-1].intended.Before(c.intended) {
			t.Errorf("call %d: intended start %s not after the one before", i, c.intended)
		}
		if c.intended.Sub(start) > 400*time.Millisecond {
			t.Errorf("call %d was due %s after the start, after the deadline", i, c.intended.Sub(start))
		}
		behind = max(behind, c.actual.Sub(c.intended))
	}
	if behind < 100*time.Millisecond {
		t.Errorf("slow server: calls started at most %s after they were due, want the queue's wait (>= 100ms)", behind)
	}
}

// TestCallAtMeasuresFromIntended checks that a call's latency runs from
// its intended start, not from its send.
func TestCallAtMeasuresFromIntended(t *testing.T) {
	srv := server.NewMCPServer("fake", "1.0")
	srv.AddTool(mcp.NewTool("read_page"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	rep := &report{cfg: config{callTimeout: 10 * time.Second}, led: newLedger()}
	mc, err := initClient(context.Background(), c, "test", rep)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r := mc.callAt(context.Background(), time.Now().Add(-300*time.Millisecond), "read_page", nil, nil); !r.ok() {
		t.Fatalf("call: %+v", r)
	}
	if d := rep.lat["read_page"]; len(d) != 1 || d[0] < 300*time.Millisecond {
		t.Fatalf("latency %v, want >= 300ms (from the intended start 300ms before the send)", d)
	}
}

func TestPhaseModes(t *testing.T) {
	for mode, want := range map[string]string{"open": "open", "closed": "closed", "both": "open closed", "": "open closed", "half": "error"} {
		got, err := phaseModes(mode)
		s := strings.Join(got, " ")
		if err != nil {
			s = "error"
		}
		if s != want {
			t.Errorf("phaseModes(%q) = %q, want %q", mode, s, want)
		}
	}
}
