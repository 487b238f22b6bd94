package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// rpc is a concurrent JSON-RPC client of one `llmwiki serve` process:
// many goroutines may call at once; answers are routed by id. It checks
// every stdout line is valid UTF-8 JSON-RPC.
type rpc struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	wmu    sync.Mutex
	mu     sync.Mutex
	wait   map[string]chan map[string]any
	nextID atomic.Int64
	dead   chan struct{} // closed when stdout ends
	bad    atomic.Int32  // stdout lines that were not valid JSON-RPC
}

// errServerGone is returned by call when the process died before answering.
var errServerGone = errors.New("the server exited before answering")

func startRPC(t testing.TB, root string) (*rpc, error) {
	cmd := exec.Command(binary(t), "serve", "--root", root)
	cmd.Env = append(cmd.Environ(), "LLMWIKI_LOG=error")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &lockedBuilder{b: &stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rpc{t: t, cmd: cmd, in: in, wait: map[string]chan map[string]any{}, dead: make(chan struct{})}
	go c.read(out)
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "hostile", "version": "1"}}); err != nil {
		c.kill()
		return nil, err
	}
	c.notify("notifications/initialized")
	return c, nil
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (c *rpc) read(out io.Reader) {
	defer func() {
		close(c.dead)
		c.mu.Lock()
		for id, ch := range c.wait {
			close(ch)
			delete(c.wait, id)
		}
		c.mu.Unlock()
	}()
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var m map[string]any
			if !utf8.Valid(line) || json.Unmarshal(line, &m) != nil || m["jsonrpc"] != "2.0" {
				c.bad.Add(1)
			} else if id, ok := m["id"].(string); ok {
				c.mu.Lock()
				ch := c.wait[id]
				delete(c.wait, id)
				c.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (c *rpc) send(msg map[string]any) error {
	b, _ := json.Marshal(msg)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.in.Write(append(b, '\n'))
	return err
}

func (c *rpc) notify(method string) { c.send(map[string]any{"jsonrpc": "2.0", "method": method}) }

// request sends one request and waits for its answer.
func (c *rpc) request(method string, params any) (map[string]any, error) {
	id := fmt.Sprintf("q%d", c.nextID.Add(1))
	ch := make(chan map[string]any, 1)
	c.mu.Lock()
	select {
	case <-c.dead:
		c.mu.Unlock()
		return nil, errServerGone
	default:
	}
	c.wait[id] = ch
	c.mu.Unlock()
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, errServerGone
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, errServerGone
		}
		return m, nil
	case <-time.After(120 * time.Second):
		return nil, fmt.Errorf("no answer to %s within 120 s", method)
	}
}

// toolResult is a tools/call outcome.
type toolResult struct {
	IsError bool
	Text    string
	Data    map[string]any // structuredContent
}

// tool calls a tool. err is only for transport failures (errServerGone);
// a tool's own error is IsError.
func (c *rpc) tool(name string, args map[string]any) (toolResult, error) {
	m, err := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return toolResult{}, err
	}
	if e, ok := m["error"].(map[string]any); ok {
		return toolResult{IsError: true, Text: fmt.Sprint(e["message"])}, nil
	}
	res, _ := m["result"].(map[string]any)
	text, isErr := resultText(m)
	data, _ := res["structuredContent"].(map[string]any)
	return toolResult{IsError: isErr, Text: text, Data: data}, nil
}

// close ends the session (EOF on stdin) and waits for the process.
func (c *rpc) close() error {
	c.in.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		return <-done
	}
}

// kill ends the process with SIGKILL, as a crash would, and waits for it.
func (c *rpc) kill() {
	c.cmd.Process.Kill() // SIGKILL on Unix
	c.cmd.Wait()
	<-c.dead
}
