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
		auditRejected(st, line, msg, nil)
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

// writeError answers a line that cannot be handed to the server with a
// JSON-RPC error carrying the line's id when it can be read.
func writeError(out io.Writer, line []byte, code int, msg string) {
	out.Write(append(rpcError(requestID(line), code, msg), '\n'))
}
