package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/stdio"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// initBody is an initialize request over HTTP.
const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"go-test","version":"9.9"}}}`

// cancelBody is a notifications/cancelled for request id.
func cancelBody(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user pressed stop"}}`, id)
}

// stdioProc is `llmwiki serve` over stdio started by a test, with its
// stdout split into lines (every one kept) and its stderr kept.
type stdioProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan map[string]any // every JSON-RPC message written to stdout
	mu     sync.Mutex
	stderr bytes.Buffer
	exited chan struct{}
}

func startStdio(t *testing.T, root string, env []string, args ...string) *stdioProc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "--root", root}, args...)...)
	cmd.Env = append(cmd.Environ(), append([]string{"LLMWIKI_LOG=warn"}, env...)...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	p := &stdioProc{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 1024), exited: make(chan struct{})}
	cmd.Stderr = &lockedBuffer{mu: &p.mu, b: &p.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReaderSize(outp, 1<<20)
		for {
			line, err := br.ReadString('\n')
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				p.lines <- m
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	go func() { cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-p.exited
		}
	})
	p.write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cancel-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := p.until(0); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	return p
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (p *stdioProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// write sends lines in one write to stdin.
func (p *stdioProc) write(lines ...string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, strings.Join(lines, "\n")+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// until returns the response with id, failing on a response to any id in
// never that comes before it.
func (p *stdioProc) until(id int, never ...int) map[string]any {
	p.t.Helper()
	timeout := time.After(60 * time.Second) // only bounds a hang
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the server closed stdout before answering %d:\n%s", id, p.log())
			}
			if m["method"] != nil {
				continue
			}
			got, _ := m["id"].(float64)
			for _, n := range never {
				if got == float64(n) {
					p.t.Fatalf("request %d was cancelled but answered: %v", n, m)
				}
			}
			if got == float64(id) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no answer to %d within 60 s:\n%s", id, p.log())
		}
	}
}

// rest reads stdout to its end (the process exits) and fails on any
// response to an id in never.
func (p *stdioProc) rest(never ...int) {
	p.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				return
			}
			got, _ := m["id"].(float64)
			for _, n := range never {
				if m["method"] == nil && got == float64(n) {
					p.t.Errorf("request %d was cancelled but answered: %v", n, m)
				}
			}
		case <-timeout:
			p.t.Fatal("stdout did not end within 60 s of stdin's end")
		}
	}
}

// TestCancelBeforeStartStdio: a tools/call and its notifications/cancelled
// in one write to stdin: the call never runs (context.md unchanged), it
// gets no response, its audit line says cancelled, and the next request is
// answered. A cancel that reached mcp-go before the call had registered
// for cancellation would be lost: context.md replaced and the call
// acknowledged.
func TestCancelBeforeStartStdio(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	before := readFile(t, filepath.Join(root, "context.md"))
	p := startStdio(t, root, nil)
	for round := range 3 {
		id := 10 + 2*round
		p.write(toolCall(id, "atomic_write_context", map[string]any{"content": fmt.Sprintf("# Replaced %d\n", round)}), cancelBody(id))
		p.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id+1))
		if m := p.until(id+1, id); m["result"] == nil {
			t.Fatalf("ping after the cancelled call: %v", m)
		}
	}
	p.in.Close()
	p.rest(10, 12, 14)
	if got := readFile(t, filepath.Join(root, "context.md")); got != before {
		t.Errorf("a cancelled atomic_write_context replaced context.md:\n%s", got)
	}
	n := 0
	for _, c := range teststore.AuditLines(t, root) {
		if c.Tool == "atomic_write_context" {
			n++
			if c.Code != store.CodeCancelled {
				t.Errorf("audit line of a cancelled call: outcome %s code %s, want code cancelled", c.Outcome, c.Code)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d audit lines of atomic_write_context, want 3", n)
	}
}

// lintWiki writes a wiki of n generated pages (links between them, some
// dangling) at root.
func lintWiki(t testing.TB, root string, n int) {
	t.Helper()
	initWiki(t, root)
	wikitest.WriteLinkedPages(t, root, n)
}

// TestCancelMidLint: notifications/cancelled sent while lint_findings runs
// on a 5,000-page wiki stops the handler (its audit line says cancelled)
// and the call gets no response, over stdio (streamable HTTP and SSE:
// server/httpserver's TestCancelMidLint).
func TestCancelMidLint(t *testing.T) {
	wikitest.SkipShort(t, "scale (a 5,000-page wiki)")
	const pages = 5000
	lint := func(id int) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
			"name": "lint_findings", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": fmt.Sprint("lint-", id)}}})
		return string(b)
	}
	checkAudit := func(t *testing.T, root string) {
		t.Helper()
		var c *store.AuditRecord
		wikitest.WaitFor(t, func() bool { c = teststore.LastCall(t, root, "lint_findings"); return c != nil }, "lint_findings' audit line")
		if c.Code != store.CodeCancelled {
			t.Errorf("audit line of the cancelled lint: outcome %s code %s, want code cancelled", c.Outcome, c.Code)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		root := filepath.Join(t.TempDir(), "wiki")
		lintWiki(t, root, pages)
		p := startStdio(t, root, nil)
		p.write(lint(5))
		// The first progress notification: the lint is running.
		for m := range p.lines {
			if m["method"] == "notifications/progress" {
				break
			}
			if m["id"] == 5.0 {
				t.Fatalf("lint ended before it could be cancelled: %v", m)
			}
		}
		p.write(cancelBody(5))
		checkAudit(t, root)
		p.write(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)
		p.until(6, 5)
		p.in.Close()
		p.rest(5)
	})
}

// hangEnv makes write_page a call that never returns (see testHangEnv).
var hangEnv = []string{testHangEnv + "=write_page"}

// waitHang waits until the hanging call has taken the project lock.
func waitHang(t *testing.T, log func() string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(log(), hangStarted) {
			return
		}
	}
	t.Fatalf("the hanging call did not start:\n%s", log())
}

// exitWithin waits for exited and returns how long it took, failing after
// limit.
func exitWithin(t *testing.T, exited <-chan struct{}, limit time.Duration, what string, kill func()) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case <-exited:
		return time.Since(start)
	case <-time.After(limit):
		kill()
		t.Fatalf("the server was still running %v after %s", limit, what)
	}
	return 0
}

// TestShutdownBoundWithStuckHandler: a server with a call that never
// returns (holding the project lock, a page staged) still exits within its
// drain bound (--shutdown-timeout, here 2s, plus a few seconds to stop)
// when stdin ends or at SIGTERM, over stdio and HTTP; a second SIGTERM
// exits at once (the bound here is the default 30s); a request read while
// a stdio server drains is refused with -32000. The staged page is
// not on disk, and the next server writes at once (the locks are free).
func TestShutdownBoundWithStuckHandler(t *testing.T) {
	const bound = 2 * time.Second
	// bound + stdio.StopGrace + app.CloseGrace, and slack for a loaded machine.
	limit := bound + stdio.StopGrace + app.CloseGrace + 10*time.Second
	for _, tc := range []struct {
		name, how string
		http      bool
		timeout   string
	}{
		{"stdio EOF", "eof", false, "2s"},
		{"stdio SIGTERM", "term", false, "2s"},
		{"stdio second SIGTERM", "term2", false, "30s"},
		{"http SIGTERM", "term", true, "2s"},
		{"http second SIGTERM", "term2", true, "30s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "wiki")
			initWiki(t, root)
			var exited <-chan struct{}
			var log func() string
			var proc *os.Process
			var sp *stdioProc
			if tc.http {
				p := startHTTP(t, root, hangEnv, "--shutdown-timeout", tc.timeout)
				go func() {
					req, _ := http.NewRequest(http.MethodPost, p.base+"/mcp", strings.NewReader(initBody))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						return
					}
					resp.Body.Close()
					sid := resp.Header.Get("Mcp-Session-Id")
					for _, body := range []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
						toolCall(2, "write_page", map[string]any{"title": "Hang", "content": "# Hang\n"})} {
						req, _ := http.NewRequest(http.MethodPost, p.base+"/mcp", strings.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Accept", "application/json, text/event-stream")
						req.Header.Set("Mcp-Session-Id", sid)
						req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
						if resp, err := http.DefaultClient.Do(req); err == nil {
							resp.Body.Close()
						}
					}
				}()
				ch := make(chan struct{})
				go func() { <-p.done; close(ch) }()
				exited, log, proc = ch, p.log, p.cmd.Process
			} else {
				p := startStdio(t, root, hangEnv, "--shutdown-timeout", tc.timeout)
				p.write(toolCall(2, "write_page", map[string]any{"title": "Hang", "content": "# Hang\n"}))
				exited, log, proc, sp = p.exited, p.log, p.cmd.Process, p
				if tc.how == "eof" {
					waitHang(t, log)
					start := time.Now()
					p.in.Close()
					exitWithin(t, exited, limit, "stdin ended", func() { proc.Kill() })
					t.Logf("exited %v after stdin ended", time.Since(start).Round(time.Millisecond))
				}
			}
			waitHang(t, log)
			switch tc.how {
			case "term":
				proc.Signal(syscall.SIGTERM)
				if sp != nil {
					// While it drains, a new request is refused, not run.
					time.Sleep(300 * time.Millisecond)
					sp.write(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
					if m := sp.until(4); m["error"] == nil || m["error"].(map[string]any)["code"] != float64(stdio.CodeShuttingDown) {
						t.Errorf("a request read while draining: %v, want error %d", m, stdio.CodeShuttingDown)
					}
				}
				d := exitWithin(t, exited, limit, "SIGTERM", func() { proc.Kill() })
				t.Logf("exited %v after SIGTERM", d.Round(time.Millisecond))
			case "term2":
				proc.Signal(syscall.SIGTERM)
				time.Sleep(300 * time.Millisecond)
				proc.Signal(syscall.SIGTERM)
				// Well under the 30 s bound.
				d := exitWithin(t, exited, 10*time.Second, "a second SIGTERM", func() { proc.Kill() })
				t.Logf("exited %v after the second SIGTERM", d.Round(time.Millisecond))
			}
			if _, err := os.Stat(filepath.Join(root, "pages", "hang.md")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the page the stuck call staged is on disk (%v)", err)
			}
			if tf := teststore.TempFiles(root); len(tf) > 0 {
				t.Errorf("temp files left: %v", tf)
			}
			// The locks are free: the next server writes at once.
			next := startStdio(t, root, nil)
			start := time.Now()
			next.write(toolCall(3, "write_page", map[string]any{"title": "After", "content": "# After\n"}))
			m := next.until(3)
			if text, isErr := resultText(m); isErr || time.Since(start) > 10*time.Second {
				t.Errorf("write after the stuck server exited: %v %s (%v)", isErr, text, time.Since(start))
			}
		})
	}
}

// TestCancelledIDs: ids are kept per session, a string id is not the
// number, take forgets an id, and past jsonrpc.MaxCancelled the oldest go first.
