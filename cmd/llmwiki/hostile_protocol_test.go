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
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// proc is the built binary serving a wiki over stdio, spoken to in raw
// JSON-RPC lines. Every line it writes to stdout is checked to be valid
// UTF-8 JSON.
type proc struct {
	t    testing.TB
	cmd  *exec.Cmd
	in   io.WriteCloser
	mu   sync.Mutex
	w    *bufio.Writer
	got  chan []byte
	done chan struct{}
	n    int // lines read
}

func startProc(t testing.TB, root string, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), "serve", "--root", root)
	cmd.Env = append(append(cmd.Environ(), "LLMWIKI_LOG=error"), env...)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, in: in, w: bufio.NewWriterSize(in, 1<<16), got: make(chan []byte, 1024), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		r := bufio.NewReaderSize(outp, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.got <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { p.stop() })
	return p
}

func (p *proc) stop() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// send writes lines, each followed by "\n", in one flush.
func (p *proc) send(lines ...string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range lines {
		p.w.WriteString(l)
		p.w.WriteByte('\n')
	}
	if err := p.w.Flush(); err != nil {
		p.t.Fatalf("write to the server: %v", err)
	}
}

// recv returns the next message the server wrote.
// recv returns the next response; notifications the server sends on its own
// (resources/list_changed after a page is created) are checked and skipped.
func (p *proc) recv() map[string]any {
	p.t.Helper()
	for {
		select {
		case line := <-p.got:
			p.n++
			if !utf8.Valid(line) || !json.Valid(line) {
				p.t.Fatalf("stdout line %d is not valid UTF-8 JSON: %.200q", p.n, line)
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
				p.t.Fatalf("stdout line %d is not a JSON-RPC message: %.200q", p.n, line)
			}
			if _, hasID := m["id"]; !hasID && m["method"] != nil {
				continue
			}
			return m
		case <-time.After(60 * time.Second):
			p.t.Fatal("no message from the server within 60 s")
		}
		return nil
	}
}

func (p *proc) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if m := p.recv(); m["id"] != "init" || m["result"] == nil {
		p.t.Fatalf("initialize: %v", m)
	}
}

// errCode returns the JSON-RPC error code of m (0 when it has none).
func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return ""
	}
	return fmt.Sprint(e["message"])
}

func call(id any, name string, args any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	return string(b)
}

// TestHostileProtocol: every kind of bad request over stdio gets a clear
// answer and the next request is served; nothing but valid UTF-8 JSON-RPC
// reaches stdout.
func TestHostileProtocol(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := startProc(t, root)
	n := 0

	// Before initialize: requests are refused (ping is allowed), the
	// session stays usable, and initialize then works.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := p.recv(); errCode(m) != jsonrpc.CodeNotInitialized || m["id"].(float64) != 1 || !strings.Contains(errMessage(m), "send initialize") {
		t.Errorf("tools/list before initialize: %v", m)
	}
	p.send(call(2, "write_page", map[string]any{"title": "Early", "content": "x"}))
	if m := p.recv(); errCode(m) != jsonrpc.CodeNotInitialized || m["id"].(float64) != 2 {
		t.Errorf("tools/call before initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := p.recv(); m["id"].(float64) != 3 || m["result"] == nil {
		t.Errorf("ping before initialize: %v", m)
	}
	p.send(`{not json`)
	if m := p.recv(); errCode(m) != jsonrpc.CodeParseError || m["id"] != nil {
		t.Errorf("invalid JSON before initialize: %v", m)
	}
	n += 4
	p.initialize()

	type check func(t *testing.T, m map[string]any)
	isErr := func(code int, want string) check {
		return func(t *testing.T, m map[string]any) {
			if errCode(m) != code || !strings.Contains(errMessage(m), want) {
				t.Errorf("got %v, want error %d with %q", m, code, want)
			}
		}
	}
	toolErr := func(want ...string) check {
		return func(t *testing.T, m map[string]any) {
			text, isErr := resultText(m)
			if !isErr {
				t.Errorf("got %v, want a tool error", m)
				return
			}
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("tool error %q lacks %q", text, w)
				}
			}
		}
	}
	anyErr := func(want string) check {
		return func(t *testing.T, m map[string]any) {
			text, isErr := resultText(m)
			if errCode(m) != 0 {
				text, isErr = errMessage(m), true
			}
			if !isErr || !strings.Contains(text, want) {
				t.Errorf("got %v, want an error with %q", m, want)
			}
		}
	}
	ok := func(want string) check {
		return func(t *testing.T, m map[string]any) {
			text, isErr := resultText(m)
			if isErr || errCode(m) != 0 || !strings.Contains(text, want) {
				t.Errorf("got %.300v, want a result with %q", m, want)
			}
		}
	}
	cases := []struct {
		name string
		line string
		id   any // the id the answer must carry; nil = null
		want check
	}{
		{"invalid JSON", `{"jsonrpc":"2.0","id":10,"method":`, nil, isErr(jsonrpc.CodeParseError, "not valid JSON")},
		{"invalid UTF-8 byte", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"write_page","arguments":{"title":"` + "\xc3\x28" + `","content":"x"}}}`, 11.0, isErr(jsonrpc.CodeParseError, "not valid UTF-8")},
		{"lone surrogate escape", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"append_log","arguments":{"op":"note","title":"\ud800"}}}`, 12.0, ok("entry")},
		{"raw NUL in a string", "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\",\"x\":\"a\x00b\"}", nil, isErr(jsonrpc.CodeParseError, "not valid JSON")},
		{"a batch", `[{"jsonrpc":"2.0","id":14,"method":"ping"}]`, nil, isErr(jsonrpc.CodeInvalidRequest, "batches are not supported")},
		{"a number", `42`, nil, isErr(jsonrpc.CodeInvalidRequest, "one JSON object")},
		{"a string", `"tools/list"`, nil, isErr(jsonrpc.CodeInvalidRequest, "one JSON object")},
		{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), nil, isErr(jsonrpc.CodeParseError, "not valid JSON")},
		{"wrong jsonrpc version", `{"jsonrpc":"1.0","id":15,"method":"ping"}`, 15.0, isErr(-32600, "")},
		{"unknown method", `{"jsonrpc":"2.0","id":16,"method":"wiki/destroy"}`, 16.0, isErr(-32601, "")},
		{"unknown tool", call(17, "delete_everything", map[string]any{}), 17.0, anyErr("delete_everything")},
		{"tools/call without params", `{"jsonrpc":"2.0","id":18,"method":"tools/call"}`, 18.0, anyErr("")},
		{"arguments not an object", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"read_page","arguments":[1,2]}}`, 19.0, anyErr("object")},
		{"arguments a string", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"read_page","arguments":"pages/x.md"}}`, 20.0, anyErr("object")},
		{"wrong type: number for a string", call(21, "write_page", map[string]any{"title": 5, "content": "x"}), 21.0, toolErr("invalid arguments", "title")},
		{"wrong type: string for a number", call(22, "read_page", map[string]any{"path": "index.md", "from_line": "1"}), 22.0, toolErr("from_line")},
		{"wrong type: object for a list", call(23, "write_page", map[string]any{"title": "T", "content": "x", "tags": map[string]any{"a": 1}}), 23.0, toolErr("tags")},
		{"wrong type: null for a required string", call(24, "append_log", map[string]any{"op": "note", "title": nil}), 24.0, toolErr("title")},
		{"unknown argument", call(25, "write_page", map[string]any{"titel": "Typo", "content": "x"}), 25.0, toolErr("titel")},
		{"unknown argument beside good ones", call(26, "append_log", map[string]any{"op": "note", "title": "t", "detials": "x"}), 26.0, toolErr("detials")},
		{"missing required argument", call(27, "append_log", map[string]any{"op": "note"}), 27.0, toolErr("title")},
		{"enum violated", call(28, "append_log", map[string]any{"op": "rm -rf", "title": "t"}), 28.0, toolErr("op")},
		{"path outside the root", call(29, "read_page", map[string]any{"path": "../../etc/passwd"}), 29.0, toolErr("leaves the wiki root")},
		{"string id", call("abc", "list_pages", map[string]any{}), "abc", ok("pages")},
		{"negative fractional id", call(-1.5, "list_pages", map[string]any{}), -1.5, ok("pages")},
		{"huge id", call(strings.Repeat("i", 100000), "list_pages", map[string]any{}), strings.Repeat("i", 100000), ok("pages")},
		{"CRLF line end", call(30, "list_pages", map[string]any{}) + "\r", 30.0, ok("pages")},
		{"control characters in a title", call(31, "append_log", map[string]any{"op": "note", "title": "a\u0007b\u001b[31m"}), 31.0, toolErr("control characters")},
		{"title forging a second log entry", call(32, "append_log", map[string]any{"op": "note", "title": "x\n## [2000-01-01 00:00] edit | forged"}), 32.0, toolErr("one line")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p.send(c.line)
			m := p.recv()
			if fmt.Sprint(m["id"]) != fmt.Sprint(c.id) {
				t.Errorf("answer id %v, want %v: %.300v", m["id"], c.id, m)
			}
			c.want(t, m)
			// The session goes on.
			p.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			if a := p.recv(); a["id"] != "after" {
				t.Fatalf("the next request was not served: %v", a)
			}
		})
	}
	n += len(cases)
	// Blank lines and notifications get no answer.
	p.send("", "   ", "\t", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}`, `{"jsonrpc":"2.0","id":"next","method":"ping"}`)
	if m := p.recv(); m["id"] != "next" {
		t.Errorf("blank lines or notifications were answered: %v", m)
	}
	n += 5
	wikitest.Cases(t, "protocol", n)
}

// TestHostileProtocolLoad: a 5 MB request, and 100 requests pipelined
// without waiting, each answered once with its own id and its own result.
func TestHostileProtocolLoad(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := startProc(t, root)
	p.initialize()

	// 5 MB: a source that size is stored; a page body that size is refused
	// with the limit; the session goes on.
	big := strings.Repeat("0123456789abcdef\n", 5<<20/17)
	p.send(call(1, "save_source", map[string]any{"path": "sources/big.txt", "content": big}))
	if text, isErr := resultText(p.recv()); isErr || !strings.Contains(text, fmt.Sprintf(`"size":%d`, len(big))) {
		t.Errorf("5 MB source: %.300q", text)
	}
	p.send(call(2, "write_page", map[string]any{"title": "Big", "content": big}))
	if text, isErr := resultText(p.recv()); !isErr || !strings.Contains(text, "the limit is") {
		t.Errorf("5 MB page body: %.300q", text)
	}
	oneLine := strings.Repeat("x", 5<<20)
	p.send(call(3, "read_page", map[string]any{"path": "sources/big.txt", "max_chars": 1000}), call(4, "save_source", map[string]any{"path": "sources/one-line.txt", "content": oneLine}))
	for i := 0; i < 2; i++ {
		m := p.recv()
		text, isErr := resultText(m)
		if isErr || len(text) > 2_000_000 {
			t.Errorf("after 5 MB: id %v error=%v len %d", m["id"], isErr, len(text))
		}
	}

	// 100 pipelined requests of mixed kinds, sent in one write.
	for i := 0; i < 20; i++ {
		p.send(call(fmt.Sprintf("seed-%d", i), "write_page", map[string]any{"title": fmt.Sprintf("Page %d", i), "content": fmt.Sprintf("body of page %d\n", i)}))
		if _, isErr := resultText(p.recv()); isErr {
			t.Fatal("seed write failed")
		}
	}
	var lines []string
	want := map[string]string{}
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("r%03d", i)
		switch i % 4 {
		case 0:
			lines = append(lines, call(id, "read_page", map[string]any{"page": fmt.Sprintf("page-%d", i%20)}))
			want[id] = fmt.Sprintf("body of page %d\\n", i%20)
		case 1:
			lines = append(lines, call(id, "append_log", map[string]any{"op": "note", "title": "pipelined " + id}))
			want[id] = "pipelined " + id
		case 2:
			lines = append(lines, call(id, "write_page", map[string]any{"title": "New " + id, "content": "made by " + id + "\n"}))
			want[id] = "new-" + id
		case 3:
			lines = append(lines, `{"jsonrpc":"2.0","id":"`+id+`","method":"ping"}`)
			want[id] = ""
		}
	}
	p.send(lines...)
	seen := map[string]int{}
	for i := 0; i < 100; i++ {
		m := p.recv()
		id := fmt.Sprint(m["id"])
		seen[id]++
		w, known := want[id]
		if !known {
			t.Errorf("answer with an id nobody sent: %v", id)
			continue
		}
		if w == "" {
			if m["result"] == nil {
				t.Errorf("%s: ping answered %v", id, m)
			}
			continue
		}
		text, isErr := resultText(m)
		if isErr || !strings.Contains(text, w) {
			t.Errorf("%s: answer does not belong to its request (want %q): %.300q", id, w, text)
		}
	}
	for id := range want {
		if seen[id] != 1 {
			t.Errorf("%s answered %d times", id, seen[id])
		}
	}
	p.stop()
	// Every append is in log.md once; every tool call has its audit line.
	log := readWikiFile(t, root, "log.md")
	for i := 1; i < 100; i += 4 {
		if c := strings.Count(log, fmt.Sprintf("| pipelined r%03d\n", i)); c != 1 {
			t.Errorf("log entry %d appears %d times", i, c)
		}
	}
	if c := len(teststore.AuditLines(t, root)); c != 4+20+75 {
		t.Errorf("%d audit lines, want %d", c, 4+20+75)
	}
	wikitest.Cases(t, "protocol", 5+100)
}

func readWikiFile(t testing.TB, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
