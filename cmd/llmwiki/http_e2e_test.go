package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// httpProc is a running `llmwiki serve --http` started by a test.
type httpProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan error
}

var servingRE = regexp.MustCompile(`serving .* on (http://[0-9.:\[\]]+)/mcp`)

// startHTTP starts the built binary serving root over HTTP on a free
// loopback port, with extra flags and environment, and waits for its URL.
func startHTTP(t *testing.T, root string, env []string, extra ...string) *httpProc {
	t.Helper()
	args := append([]string{"serve", "--root", root, "--http", "127.0.0.1:0"}, extra...)
	p := startListening(t, "serve --http", args, env, servingRE)
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	})
	return p
}

// startListening starts the built binary with args and environment, keeps
// its stderr, and waits for the line urlRE matches (its first group is the
// base URL); what names the command in failures.
func startListening(t *testing.T, what string, args, env []string, urlRE *regexp.Regexp) *httpProc {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), append([]string{"LLMWIKI_LOG=warn"}, env...)...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &httpProc{cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if m := urlRE.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		pw.Close()
		p.done <- err
	}()
	select {
	case p.base = <-found:
		return p
	case err := <-p.done:
		t.Fatalf("%s exited early: %v\n%s", what, err, p.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not say where it listens:\n%s", what, p.log())
	}
	return nil
}

func (p *httpProc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// waitLog waits up to 20 s for a stderr line re matches and returns its
// submatches (nil: none came). The line that startListening waits for is not
// the last one serve prints, and the reader goroutine keeps lines in order.
func (p *httpProc) waitLog(re *regexp.Regexp) []string {
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := re.FindStringSubmatch(p.log()); m != nil || time.Now().After(deadline) {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *httpProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("serve --http exited with %v after SIGTERM:\n%s", err, p.log())
		}
	case <-time.After(40 * time.Second):
		p.cmd.Process.Kill()
		t.Errorf("serve --http did not stop within 40 s of SIGTERM:\n%s", p.log())
	}
}

// TestHTTPEndToEnd runs the stdio end-to-end flow with the official
// TypeScript SDK over streamable HTTP and over legacy SSE, with a bearer
// token, plus resources, notifications, logging, progress and cancellation;
// then checks the disk and that every audit line carries the session id,
// the client's name and version and the remote address.
func TestHTTPEndToEnd(t *testing.T) {
	vault := wikitest.Corpus(t, "obsidian-help/en")
	e2eDir(t)
	for _, kind := range []string{"streamable", "sse"} {
		t.Run(kind, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "wiki")
			initWiki(t, root)
			n := wikitest.CopyTree(t, vault, filepath.Join(root, "sources"), ".md")
			token := "e2e-token-0123456789abcdef"
			p := startHTTP(t, root, []string{"LLMWIKI_TOKEN=" + token})
			out := node(t, "http_flow.mjs", "--url", p.base, "--transport", kind, "--token", token, "--sources", strconv.Itoa(n))
			p.stop(t)
			var summary struct {
				Calls         int     `json:"calls"`
				ResourceReads int     `json:"resourceReads"`
				Progress      int     `json:"progress"`
				SessionID     *string `json:"sessionId"`
			}
			if err := json.Unmarshal(out, &summary); err != nil {
				t.Fatalf("flow summary: %v\n%s", err, out)
			}
			if tf := teststore.TempFiles(root); len(tf) > 0 {
				t.Errorf("temp files left: %v", tf)
			}
			calls := teststore.AuditLines(t, root)
			tools, reads := 0, 0
			sessions := map[string]bool{}
			for _, c := range calls {
				switch c.Tool {
				case "resources/read":
					reads++
				case "http:refused":
					t.Errorf("a request of the flow was refused: %+v", c)
					continue
				default:
					tools++
				}
				sessions[c.Session] = true
				if c.Client != "llmwiki-e2e 1.0.0" || !strings.HasPrefix(c.Remote, "127.0.0.1:") || (c.Outcome != "ok" && c.Outcome != "error") {
					t.Errorf("audit line lacks identity or outcome: %+v", c)
				}
			}
			if tools != summary.Calls || reads != summary.ResourceReads {
				t.Errorf("audit has %d tool lines and %d resource reads; the client made %d calls and %d reads", tools, reads, summary.Calls, summary.ResourceReads)
			}
			if len(sessions) != 1 {
				t.Errorf("one client session should give one session id in the audit; got %v", sessions)
			}
			for s := range sessions {
				if kind == "streamable" && (summary.SessionID == nil || s != *summary.SessionID || !strings.HasPrefix(s, "mcp-session-")) {
					t.Errorf("audit session %q is not the client's Mcp-Session-Id %v", s, summary.SessionID)
				}
				if kind == "sse" && !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(s) {
					t.Errorf("audit session %q is not the SSE session id", s)
				}
			}
			checkWrites(t, root, calls)
			if summary.Progress < 1 {
				t.Errorf("no progress notifications")
			}
		})
	}
}
