package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"strconv"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/server"
)

// maxRequestBytes is the longest JSON-RPC line accepted on stdin. Longer
// lines are answered with a parse error and skipped; the session goes on.
const maxRequestBytes = 32 << 20

// serveStdio serves srv on e.stdin/e.stdout until EOF or ctx ends. Lines are
// screened before mcp-go sees them (see [screen]): a line that is not valid
// UTF-8 or not valid JSON, or longer than maxRequestBytes, gets a parse
// error (-32700); a JSON value that is not one object (a batch) gets an
// invalid-request error (-32600); a request before initialize gets
// -32002. Each answer carries the request's id when it can be read, the
// rejection is audited (tool "protocol", or the tool the request named),
// and the next line is served. Blank lines are skipped. stdout carries only
// JSON-RPC; every write to it is one whole message.
func serveStdio(ctx context.Context, srv *server.MCPServer, e env, st *wiki.Store) error {
	pending := newInFlight()
	out := &lockedWriter{w: e.stdout, answered: pending.answered}
	pr, pw := io.Pipe()
	reject := func(line []byte, code int, msg string) {
		writeError(out, line, code, msg)
		auditRejected(st, line, msg, nil)
	}
	go func() {
		err := screenLines(e.stdin, pw, reject, pending.sent)
		if err == nil {
			// stdin ended: answer the calls already read before mcp-go
			// stops (it cancels what still runs and drops what is queued).
			pending.wait(ctx, stdioDrainTimeout)
		}
		pw.CloseWithError(err)
	}()
	ss := newStdioServer(srv)
	ss.SetErrorLogger(log.New(e.stderr, "llmwiki: mcp: ", 0))
	err := ss.Listen(ctx, pr, out)
	pr.Close()
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// screen checks each line before mcp-go sees it. It is used by one
// goroutine.
type screen struct {
	initialized bool // an initialize request has gone through
}

// check returns 0 to pass line on, -1 to skip it silently (a blank line),
// or the JSON-RPC error code and message to answer it with.
func (sc *screen) check(line []byte) (int, string) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return -1, ""
	}
	if code, msg := screenEncoding(line); code != 0 {
		return code, msg
	}
	switch {
	case !json.Valid(t):
		return codeParseError, "Parse error: request is not valid JSON"
	case t[0] != '{':
		return codeInvalidRequest, "Invalid Request: a message must be one JSON object (JSON-RPC batches are not supported)"
	}
	if !sc.initialized {
		var probe struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(t, &probe)
		isRequest := len(probe.ID) > 0 && string(probe.ID) != "null" && probe.Method != ""
		switch {
		case probe.Method == "initialize":
			sc.initialized = true
		case isRequest && probe.Method != "ping":
			return codeNotInitialized, "Server not initialized: send initialize (then notifications/initialized) before " + probe.Method
		}
	}
	return 0, ""
}

// lockedWriter writes whole messages to stdout, one at a time, and tells
// answered (when set) about each response it wrote.
type lockedWriter struct {
	mu       sync.Mutex
	w        io.Writer
	answered func(msg []byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.answered != nil && err == nil {
		l.answered(p)
	}
	return n, err
}

// stdioDrainTimeout is how long a stdio server whose stdin ended waits for
// the answers to the requests it had read (as long as an HTTP server's
// default --shutdown-timeout).
const stdioDrainTimeout = defaultShutdownTimeout

// inFlight counts the requests passed on to mcp-go that are not answered
// yet, by JSON-RPC id. When stdin ends, mcp-go's stdio server cancels the
// requests still running and drops those still queued for its workers, so
// a client that writes its calls and closes stdin (a script piping into
// serve) lost answers, and the writes among them were cancelled; the
// server now waits for those answers first.
type inFlight struct {
	mu  sync.Mutex
	ids map[string]int
}

func newInFlight() *inFlight { return &inFlight{ids: map[string]int{}} }

// sent notes a line passed on to mcp-go: a request (method and id) awaits
// its answer; notifications/cancelled takes the request it names off the
// list (a cancelled request may get no answer).
func (f *inFlight) sent(line []byte) {
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return
	}
	if m.Method == "notifications/cancelled" {
		f.done(rpcIDKey(m.Params.RequestID))
		return
	}
	if k := rpcIDKey(m.ID); k != "" {
		f.mu.Lock()
		f.ids[k]++
		f.mu.Unlock()
	}
}

// done takes one request with id key k off the list.
func (f *inFlight) done(k string) {
	f.mu.Lock()
	if f.ids[k] > 1 {
		f.ids[k]--
	} else {
		delete(f.ids, k)
	}
	f.mu.Unlock()
}

// answered notes a message written to stdout: a response (an id and no
// method) answers its request.
func (f *inFlight) answered(msg []byte) {
	if id, ok := responseID(msg); ok {
		f.done(rpcIDKey(id))
	}
}

// responseID returns the id of a JSON-RPC response, reading the message's
// top-level keys only until it knows: mcp-go writes the id before the
// result, so a large result (a whole page) is not parsed a second time.
func responseID(msg []byte) (json.RawMessage, bool) {
	d := json.NewDecoder(bytes.NewReader(msg))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var id json.RawMessage
	answer := false
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, false
		}
		switch k {
		case "method":
			return nil, false // a notification or a request of the server's
		case "result", "error":
			answer = true
			if id != nil {
				return id, true
			}
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if k == "id" {
			id = v
			if answer {
				return id, true
			}
		}
	}
	return id, answer && id != nil
}

// wait returns once every request sent is answered, ctx ends, or after
// timeout.
func (f *inFlight) wait(ctx context.Context, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for ctx.Err() == nil && time.Now().Before(deadline) {
		f.mu.Lock()
		n := len(f.ids)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// rpcIDKey is a JSON-RPC id as a map key: strings and numbers kept apart,
// numbers by value (1 and 1.0 are one id); "" for no id or null.
func rpcIDKey(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if len(raw) == 0 || d.Decode(&v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		return "s:" + v
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
		}
		return "n:" + v.String()
	}
	return ""
}

// screenLines copies good lines from r to w and passes bad ones to reject;
// sent (when set) sees each line passed on.
func screenLines(r io.Reader, w io.Writer, reject func(line []byte, code int, msg string), sent func(line []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var sc screen
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			if tooLong {
				reject(line, codeParseError, "Parse error: request is larger than 32 MiB")
			} else if code, msg := sc.check(line); code > 0 || code < -1 {
				reject(line, code, msg)
			} else if code == 0 {
				if sent != nil {
					sent(line)
				}
				if _, werr := w.Write(line); werr != nil {
					return werr
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line including its newline. For a line longer than
// maxRequestBytes it returns the first 4 KiB (to find the id), discards the
// rest up to the newline, and reports tooLong.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > maxRequestBytes {
			head := append(buf, chunk...)
			if len(head) > 4096 {
				head = head[:4096]
			}
			head = append([]byte(nil), head...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			return head, true, err
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, false, err
	}
}

// writeError answers a line that cannot be handed to the server with a
// JSON-RPC error carrying the line's id when it can be read.
func writeError(out io.Writer, line []byte, code int, msg string) {
	out.Write(append(rpcError(requestID(line), code, msg), '\n'))
}
