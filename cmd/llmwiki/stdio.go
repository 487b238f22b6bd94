package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"sync"
	"unicode/utf8"

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
	out := &lockedWriter{w: e.stdout}
	pr, pw := io.Pipe()
	reject := func(line []byte, code int, msg string) {
		writeError(out, line, code, msg)
		auditRejected(st, line, msg)
	}
	go func() {
		pw.CloseWithError(screenLines(e.stdin, pw, reject))
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

// JSON-RPC error codes the screen answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	// codeNotInitialized is the code LSP uses for a request before
	// initialize; MCP defines none, and -32000..-32099 are the server's.
	codeNotInitialized = -32002
)

// screen checks each line before mcp-go sees it. It is used by one
// goroutine.
type screen struct {
	initialized bool // an initialize request has gone through
}

// check returns 0 to pass line on, -1 to skip it silently (a blank line),
// or the JSON-RPC error code and message to answer it with.
func (sc *screen) check(line []byte) (int, string) {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return -1, ""
	case !utf8.Valid(line):
		return codeParseError, "Parse error: request is not valid UTF-8"
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

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// screenLines copies good lines from r to w and passes bad ones to reject.
func screenLines(r io.Reader, w io.Writer, reject func(line []byte, code int, msg string)) error {
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

// auditRejected writes the audit line of a request the screen refused.
func auditRejected(st *wiki.Store, line []byte, msg string) {
	if st == nil {
		return
	}
	var probe struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	json.Unmarshal(bytes.ToValidUTF8(line, []byte("\uFFFD")), &probe)
	tool := "protocol"
	if probe.Method == "tools/call" && probe.Params.Name != "" && utf8.ValidString(probe.Params.Name) && len(probe.Params.Name) < 64 {
		tool = probe.Params.Name
	}
	c := wiki.NewCall(tool, st.SessionID(), map[string]any{"method": probe.Method, "bytes": len(line)})
	st.Audit(c, wiki.Errorf(wiki.CodeInvalid, "%s", msg))
}

// writeError answers a line that cannot be handed to the server with a
// JSON-RPC error carrying the line's id when it can be read.
func writeError(out io.Writer, line []byte, code int, msg string) {
	var id any
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	clean := bytes.ToValidUTF8(line, []byte("\uFFFD"))
	if json.Unmarshal(clean, &probe) == nil && len(probe.ID) > 0 && validID(probe.ID) {
		id = probe.ID
	}
	resp := map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": msg},
	}
	b, _ := json.Marshal(resp)
	out.Write(append(b, '\n'))
}

// validID reports a JSON-RPC id: a string or a number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
