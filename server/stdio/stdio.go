// Package stdio serves an MCP server over stdin and stdout: each line is
// screened before mcp-go sees it, answers to cancelled requests are dropped,
// and at the end of input the calls already read are answered, within a
// bound, before the server stops.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/mark3labs/mcp-go/server"
)

// maxRequestBytes is the longest JSON-RPC line accepted on stdin. Longer
// lines are answered with a parse error and skipped; the session goes on.
const maxRequestBytes = 32 << 20

// Serve serves srv on stdin/stdout until stdin ends or ctx ends
// (SIGINT, SIGTERM). Lines are screened before mcp-go sees them (see
// [screen]): a line that is not valid UTF-8 or not valid JSON, or longer
// than maxRequestBytes, gets a parse error (-32700); a JSON value that is
// not one object (a batch) gets an invalid-request error (-32600); a
// request before initialize gets -32002. Each answer carries the request's
// id when it can be read, the rejection is audited (tool "protocol", or the
// tool the request named), and the next line is served. Blank lines are
// skipped. stdout carries only JSON-RPC; every write to it is one whole
// message.
//
// Cancellation: the ids notifications/cancelled names are recorded in
// cancelled (session "stdio") before mcp-go sees the line, and before the
// request itself when both are in one write; the server refuses such a
// request unrun (see [tools.Options.Cancelled]) and no answer to a
// cancelled id reaches stdout.
//
// Shutdown: when stdin ends or ctx ends, the requests already read are
// answered first, for up to dc.Timeout (new requests read meanwhile get
// CodeShuttingDown); then mcp-go stops, cancelling what still runs, and
// Serve returns at most StopGrace later even if a handler never
// returns (it is abandoned, and dc.Abandoned called: a write is whole or
// absent).
func Serve(ctx context.Context, srv *server.MCPServer, stdin io.Reader, stdout, stderr io.Writer, st *wiki.Store, cancelled *jsonrpc.CancelledIDs, dc Drain) error {
	pending := newInFlight()
	out := &lockedWriter{w: stdout, answered: pending.answeredID, cancelled: cancelled}
	pr, pw := io.Pipe()
	reject := func(line []byte, code int, msg string) {
		writeError(out, line, code, msg)
		jsonrpc.AuditRejected(st, line, msg, nil)
	}
	var closing atomic.Bool
	sent := func(line []byte) bool {
		if closing.Load() && len(jsonrpc.RequestID(line)) > 0 && !isResponse(line) {
			reject(line, CodeShuttingDown, "Server shutting down: the request was not run; send it again to a new server")
			return false
		}
		if code, msg := jsonrpc.ScreenParams(srv, line); code != 0 && len(jsonrpc.RequestID(line)) > 0 {
			reject(line, code, msg)
			return false
		}
		if k := jsonrpc.CancelledRequestID(line); k != "" && pending.has(k) {
			cancelled.Add(stdioSession, k)
		}
		pending.sent(line)
		return true
	}
	ahead := func(line, next []byte) { cancelAhead(cancelled, line, next) }
	inputDone := make(chan error, 1)
	go func() { inputDone <- screenLines(stdin, pw, reject, sent, ahead) }()
	ss := newStdioServer(srv)
	ss.SetErrorLogger(log.New(stderr, "llmwiki: mcp: ", 0))
	lctx, stopListen := context.WithCancel(context.WithoutCancel(ctx))
	defer stopListen()
	listenDone := make(chan error, 1)
	go func() { listenDone <- ss.Listen(lctx, pr, out) }()
	var err error
	select {
	case err = <-listenDone:
		pw.Close()
		return quietStop(err)
	case err = <-inputDone:
	case <-ctx.Done():
	}
	closing.Store(true)
	if err == nil {
		// Answer the calls already read before mcp-go stops (it cancels
		// what still runs and drops what is queued).
		pending.wait(dc.Timeout)
	}
	pw.CloseWithError(err)
	stopListen()
	select {
	case err = <-listenDone:
	case <-time.After(StopGrace):
		dc.Log.Error("shutdown: calls still running are abandoned (a write is whole or absent)", "calls", pending.count(), "timeout", dc.Timeout)
		if dc.Abandoned != nil {
			dc.Abandoned()
		}
		return nil
	}
	return quietStop(err)
}

// cancelAhead records the request on line as cancelled when next, the
// input already read behind it, holds a whole notifications/cancelled
// naming it: the cancel is then known before mcp-go can start the request.
func cancelAhead(cancelled *jsonrpc.CancelledIDs, line, next []byte) {
	if !bytes.Contains(next, []byte("notifications/cancelled")) || isResponse(line) {
		return
	}
	k := jsonrpc.IDKey(jsonrpc.RequestID(line))
	if k == "" {
		return
	}
	for l := range bytes.Lines(next) {
		if !bytes.HasSuffix(l, []byte("\n")) {
			return // not read whole yet
		}
		if jsonrpc.CancelledRequestID(l) == k {
			cancelled.Add(stdioSession, k)
			return
		}
	}
}

// quietStop is Listen's error, nil for the ways a session normally ends.
func quietStop(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// stdioSession is the session id mcp-go gives the stdio client.
const stdioSession = "stdio"

// StopGrace is how long a server whose drain ended waits for mcp-go to stop
// (the calls still running are cancelled) before it leaves them behind.
const StopGrace = time.Second

// CodeShuttingDown answers a request read after the server began shutting
// down (a server-defined JSON-RPC code).
const CodeShuttingDown = -32000

// isResponse reports a JSON-RPC response (an answer to a request of the
// server's), which has no method.
func isResponse(line []byte) bool {
	_, ok := jsonrpc.ResponseID(line)
	return ok
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
	if code, msg := jsonrpc.ScreenEncoding(line); code != 0 {
		return code, msg
	}
	switch {
	case !json.Valid(t):
		return jsonrpc.CodeParseError, "Parse error: request is not valid JSON"
	case t[0] != '{':
		return jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be one JSON object (JSON-RPC batches are not supported)"
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
			return jsonrpc.CodeNotInitialized, "Server not initialized: send initialize (then notifications/initialized) before " + probe.Method
		}
	}
	return 0, ""
}

// lockedWriter writes whole messages to stdout, one at a time, and tells
// answered (when set) the id of each response it wrote. A response to an
// id in cancelled (when set) is dropped.
type lockedWriter struct {
	mu        sync.Mutex
	w         io.Writer
	answered  func(id json.RawMessage)
	cancelled *jsonrpc.CancelledIDs
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	id, answer := jsonrpc.ResponseID(p)
	if answer && l.cancelled != nil && l.cancelled.Take(stdioSession, jsonrpc.IDKey(id)) {
		return len(p), nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if l.answered != nil && err == nil && answer {
		l.answered(id)
	}
	return n, err
}

// inFlight counts the requests passed on to mcp-go that are not answered
// yet, by JSON-RPC id. When stdin ends, mcp-go's stdio server cancels the
// requests still running and drops those still queued for its workers, so
// a client that writes its calls and closes stdin (a script piping into
// serve) would lose answers, and the writes among them would be cancelled;
// the server waits for those answers first.
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
		f.done(jsonrpc.IDKey(m.Params.RequestID))
		return
	}
	if k := jsonrpc.IDKey(m.ID); k != "" {
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
	if id, ok := jsonrpc.ResponseID(msg); ok {
		f.answeredID(id)
	}
}

// answeredID notes a response to the request with id.
func (f *inFlight) answeredID(id json.RawMessage) { f.done(jsonrpc.IDKey(id)) }

// wait returns once every request sent is answered, or after timeout.
func (f *inFlight) wait(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && f.count() > 0 {
		time.Sleep(5 * time.Millisecond)
	}
}

// count is the number of requests not answered yet.
func (f *inFlight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ids)
}

// Has reports whether the request with id key k awaits its answer.
func (f *inFlight) has(k string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ids[k] > 0
}

// screenLines copies good lines from r to w and passes bad ones to reject.
// sent (when set) sees each good line first and may keep it back (false);
// ahead (when set) sees each good line with the input already read behind
// it, before the line is passed on.
func screenLines(r io.Reader, w io.Writer, reject func(line []byte, code int, msg string), sent func(line []byte) bool, ahead func(line, next []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var sc screen
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			if tooLong {
				reject(line, jsonrpc.CodeParseError, "Parse error: request is larger than 32 MiB")
			} else if code, msg := sc.check(line); code > 0 || code < -1 {
				reject(line, code, msg)
			} else if code == 0 {
				if ahead != nil && br.Buffered() > 0 {
					next, _ := br.Peek(br.Buffered())
					ahead(line, next)
				}
				if sent == nil || sent(line) {
					if _, werr := w.Write(line); werr != nil {
						return werr
					}
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
	out.Write(append(jsonrpc.RPCError(jsonrpc.RequestID(line), code, msg), '\n'))
}

// Drain is how a transport shuts down: it waits up to Timeout for
// the calls in flight, then calls Abandoned (when set) if some still run,
// and stops serving without them.
type Drain struct {
	Timeout   time.Duration
	Log       *slog.Logger
	Abandoned func()
}

// newStdioServer wraps srv for stdio; separate so tests can reuse it.
func newStdioServer(srv *server.MCPServer) *server.StdioServer {
	return server.NewStdioServer(srv)
}
