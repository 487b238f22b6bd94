package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// rawSession runs the built binary on root and speaks raw JSON-RPC lines.
type rawSession struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T, root string) *rawSession {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--root", root)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	cmd.Env = append(cmd.Environ(), "LLMWIKI_LOG=error")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawSession{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20)}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.recv()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawSession) recv() map[string]any {
	s.t.Helper()
	done := make(chan map[string]any, 1)
	go func() {
		line, err := s.out.ReadString('\n')
		if err != nil {
			done <- nil
			return
		}
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		done <- m
	}()
	select {
	case m := <-done:
		if m == nil {
			s.t.Fatal("server closed stdout")
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatal("no response within 30 s")
	}
	return nil
}

func toolCall(id int, name string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	return string(b)
}

func resultText(m map[string]any) (string, bool) {
	res, _ := m["result"].(map[string]any)
	if res == nil {
		return "", false
	}
	isErr, _ := res["isError"].(bool)
	var parts []string
	content, _ := res["content"].([]any)
	for _, c := range content {
		if cm, ok := c.(map[string]any); ok {
			parts = append(parts, fmt.Sprint(cm["text"]))
		}
	}
	return strings.Join(parts, "\n"), isErr
}

// TestStdioBadBytes: a request line with an invalid UTF-8 byte gets a parse
// error (-32700) with its id and an audit line; a 300 KB single-line argument
// is handled (refused or stored, as its tool's limits say); the session goes
// on after each.
func TestStdioBadBytes(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	s := startRaw(t, root)

	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_page","arguments":{"title":"bad ` + "\xff" + ` byte","content":"x"}}}`)
	m := s.recv()
	errObj, _ := m["error"].(map[string]any)
	if errObj == nil || errObj["code"].(float64) != -32700 || m["id"].(float64) != 7 {
		t.Fatalf("invalid UTF-8 line answered with %v", m)
	}
	if !strings.Contains(errObj["message"].(string), "not valid UTF-8") {
		t.Errorf("message %v", errObj["message"])
	}

	big := strings.Repeat("x", 300_000)
	s.send(toolCall(8, "write_page", map[string]any{"title": big, "content": "x"}))
	msg, isErr := resultText(s.recv())
	if !isErr || !strings.Contains(msg, "title is 300000 bytes") {
		t.Errorf("300 KB title: %v %q", isErr, msg[:min(len(msg), 200)])
	}
	s.send(toolCall(9, "save_source", map[string]any{"path": "sources/one-line.txt", "content": big}))
	msg, isErr = resultText(s.recv())
	if isErr || !strings.Contains(msg, `"size":300000`) {
		t.Errorf("300 KB single-line source: %v %q", isErr, msg[:min(len(msg), 200)])
	}
	s.send(toolCall(10, "load_project", nil))
	if _, isErr := resultText(s.recv()); isErr {
		t.Error("the session did not go on")
	}
	s.in.Close()
	s.cmd.Wait()
	calls := teststore.AuditLines(t, root)
	if len(calls) != 4 {
		t.Fatalf("%d audit lines, want 4", len(calls))
	}
	if calls[0].Tool != "write_page" || calls[0].Outcome != "error" || !strings.Contains(calls[0].Error, "not valid UTF-8") {
		t.Errorf("rejected line's audit: %+v", calls[0])
	}
	if a, _ := calls[1].Args.(map[string]any)["title"].(map[string]any); a == nil || a["len"].(float64) != 300000 {
		t.Errorf("300 KB argument not redacted in the audit line: %v", calls[1].Args)
	}
}

// TestServeTerminalHelp: with a terminal on stdin, serve says how to
// connect a client instead of hanging silently.
func TestServeTerminalHelp(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("skipping: script(1) is not installed")
	}
	root := filepath.Join(t.TempDir(), "wiki")
	// script gives the child a pseudo-terminal; its stdin reaches EOF at once.
	cmd := exec.Command("script", "-qec", binary(t)+" serve --root "+root, "/dev/null")
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"created a new wiki at " + root, "llmwiki is an MCP server", "claude mcp add llmwiki", ".cursor/mcp.json"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("terminal output lacks %q:\n%s", want, out)
		}
	}
}

// TestStdioAnswersCallsInFlightAtEOF: a client that writes its calls and
// closes stdin at once (a script piping into serve) still gets an answer
// to every call before the server exits, and the writes among them are
// audited and on disk.
func TestStdioAnswersCallsInFlightAtEOF(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	s := startRaw(t, root)
	const calls = 12
	for id := 1; id <= calls; id++ {
		switch id % 3 {
		case 0:
			s.send(toolCall(id, "write_page", map[string]any{"title": fmt.Sprintf("EOF page %d", id), "content": "Written just before stdin closed.\n"}))
		case 1:
			s.send(toolCall(id, "load_project", map[string]any{}))
		default:
			s.send(toolCall(id, "list_pages", map[string]any{}))
		}
	}
	s.in.Close()
	seen := map[int]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			line, err := s.out.ReadString('\n')
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				if id, ok := m["id"].(float64); ok {
					seen[int(id)] = true
				}
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not exit within 60 s of stdin closing")
	}
	for id := 1; id <= calls; id++ {
		if !seen[id] {
			t.Errorf("call %d got no answer before the server exited", id)
		}
	}
	for id := 3; id <= calls; id += 3 {
		if _, err := os.Stat(filepath.Join(root, "pages", fmt.Sprintf("eof-page-%d.md", id))); err != nil {
			t.Errorf("write_page %d not on disk (it was cancelled when stdin closed): %v", id, err)
		}
	}
}
