package httpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// testServer is the HTTP transport serving a fresh wiki in-process on a
// loopback port, through [Server.Serve] (so shutdown is the real one).
type testServer struct {
	t      *testing.T
	root   string
	st     *wiki.Store
	h      *Server
	base   string
	cancel context.CancelFunc
	done   chan error
	client *http.Client
}

// newTransport builds the transport over a fresh wiki; zero fields of cfg
// take serve --http's defaults (Addr: 127.0.0.1 on an unnamed port). opts
// are passed to wiki.Open (fault injection).
func newTransport(t *testing.T, cfg Config, opts ...wiki.Option) (*Server, *wiki.Store, string) {
	t.Helper()
	log := teststore.Quiet()
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	st, root := teststore.New(t, nil, append([]wiki.Option{wiki.WithLogger(log)}, opts...)...)
	cancelled := jsonrpc.NewCancelledIDs()
	srv, _, err := tools.NewServer(app.New(st, app.Options{Log: log, NoSearch: true}).Deps(), tools.Options{Cancelled: cancelled.Refuses})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.MaxBodyMiB == 0 {
		cfg.MaxBodyMiB = 8
	}
	if cfg.SessionIdle == 0 {
		cfg.SessionIdle = time.Hour
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = 10 * time.Second
	}
	h, err := New(cfg, st, srv, log, cancelled)
	if err != nil {
		t.Fatal(err)
	}
	return h, st, root
}

// newTestServer serves [newTransport] on a loopback port through
// [Server.Serve], so that shutdown is the real one.
func newTestServer(t *testing.T, cfg Config, opts ...wiki.Option) *testServer {
	t.Helper()
	h, st, root := newTransport(t, cfg, opts...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{t: t, root: root, st: st, h: h, base: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1),
		client: &http.Client{Timeout: 30 * time.Second}}
	go func() { ts.done <- h.Serve(ctx, ln) }()
	t.Cleanup(func() { ts.stop() })
	return ts
}

// stop shuts the server down (as SIGTERM would) and returns serve's error.
func (ts *testServer) stop() error {
	ts.cancel()
	select {
	case err := <-ts.done:
		ts.done <- err
		return err
	case <-time.After(30 * time.Second):
		ts.t.Fatal("serve did not stop within 30 s")
		return nil
	}
}

// rpcReply is one HTTP exchange with /mcp.
type rpcReply struct {
	status  int
	header  http.Header
	body    []byte
	message map[string]any // the JSON-RPC response, from JSON or SSE
}

func (r rpcReply) result() map[string]any {
	m, _ := r.message["result"].(map[string]any)
	return m
}

// post sends one JSON-RPC message to /mcp with the given session and extra
// headers ("Key: value").
func (ts *testServer) post(sid string, body string, headers ...string) rpcReply {
	ts.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.base+"/mcp", strings.NewReader(body))
	return ts.do(req, sid, headers...)
}

func (ts *testServer) do(req *http.Request, sid string, headers ...string) rpcReply {
	ts.t.Helper()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rpcReply{status: resp.StatusCode, header: resp.Header, body: b}
	r.message = parseRPC(resp.Header.Get("Content-Type"), b)
	return r
}

// parseRPC returns the JSON-RPC response in a JSON or SSE body.
func parseRPC(ctype string, b []byte) map[string]any {
	if strings.HasPrefix(ctype, "text/event-stream") {
		var last map[string]any
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil && m["id"] != nil {
					last = m
				}
			}
		}
		return last
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"go-test","version":"9.9"}}}`

// initialize opens a session and returns its id.
func (ts *testServer) initialize(headers ...string) string {
	ts.t.Helper()
	r := ts.post("", initBody, headers...)
	sid := r.header.Get("Mcp-Session-Id")
	if r.status != http.StatusOK || sid == "" {
		ts.t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	ts.post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers...)
	return sid
}

func callBody(id int, tool string, args any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// refusals returns the audit lines of refused requests.
func (ts *testServer) refusals() []store.AuditRecord {
	var out []store.AuditRecord
	for _, c := range teststore.AuditLines(ts.t, ts.root) {
		if c.Tool == "http:refused" {
			out = append(out, c)
		}
	}
	return out
}

// TestHTTPRefusesBadRequests sends what a stranger, a browser on another
// site or a broken client would, and checks the status, that nothing but an
// audit line is written, and that the token never reaches the audit log.
func TestHTTPRefusesBadRequests(t *testing.T) {
	const token = "s3cret-token-0123456789"
	ts := newTestServer(t, Config{Token: token})
	auth := "Authorization: Bearer " + token
	before := wikiFiles(t, ts.root)
	sid := ts.initialize(auth)
	sse := ts.openSSE(auth)
	sse.post(initBody)
	if m := sse.next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("SSE initialize: %v", m)
	}
	sse.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A tool argument holding a byte that is not UTF-8 (\xff, and a
	// truncated two-byte sequence): encoding/json would store U+FFFD.
	badUTF8 := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_page","arguments":{"title":"bad ` + "\xff" + ` byte","content":"x"}}}`
	badUTF8SSE := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"save_source","arguments":{"path":"sources/bad.md","content":"` + "\xc3\x28" + `"}}}`

	big := strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"save_source","arguments":{"path":"sources/big.md","content":"` + strings.Repeat("x", 20<<20) + `"}}}`)
	chunked := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":8,"method":"ping","params":{"pad":"`), strings.NewReader(strings.Repeat("y", 20<<20)), strings.NewReader(`"}}`))
	cases := []struct {
		name    string
		req     func() *http.Request
		sid     string
		headers []string
		status  int
		reason  string // audited refusal reason, "" when not audited
		want    string // in the body
		// screened is the tool of the audit line the UTF-8 screen writes
		// for a JSON-RPC message it refuses (-32700, id null), "" for none.
		screened string
	}{
		{"no token", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", nil, 401, "no bearer token", "Bearer", ""},
		{"wrong token", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{"Authorization: Bearer wrong-token-0123456789"}, 401, "wrong bearer token", "", ""},
		{"basic auth", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{"Authorization: Basic dXNlcjpwYXNz"}, 401, "no bearer token", "", ""},
		{"token in query", func() *http.Request { return newReq("POST", ts.base+"/mcp?access_token="+token, initBody) }, "", []string{auth}, 400, "credential in the URL query (access_token)", "Authorization: Bearer", ""},
		{"token value in query", func() *http.Request { return newReq("GET", ts.base+"/sse?x="+token, "") }, "", []string{auth}, 400, "credential in the URL query (x)", "", ""},
		{"token in query without header", func() *http.Request { return newReq("GET", ts.base+"/sse?token=abc", "") }, "", nil, 400, "credential in the URL query (token)", "", ""},
		{"foreign origin", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{auth, "Origin: https://evil.example"}, 403, "Origin not allowed", "--allow-origin", ""},
		{"foreign origin same host other port", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{auth, "Origin: http://127.0.0.1:1"}, 403, "Origin not allowed", "", ""},
		{"null origin", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{auth, "Origin: null"}, 403, "Origin not allowed", "", ""},
		{"foreign host", func() *http.Request {
			r := newReq("POST", ts.base+"/mcp", initBody)
			r.Host = "evil.example:80"
			return r
		}, "", []string{auth}, 403, "Host not allowed", "DNS rebinding", ""},
		{"20 MB body", func() *http.Request {
			r, _ := http.NewRequest("POST", ts.base+"/mcp", big)
			return r
		}, sid, []string{auth}, 413, "body too large", "limit is 8 MiB", ""},
		{"20 MB chunked body", func() *http.Request {
			r := newReq("POST", ts.base+"/mcp", "")
			r.Body = io.NopCloser(chunked)
			r.ContentLength = -1
			return r
		}, sid, []string{auth}, 413, "body too large", "over the 8 MiB limit", ""},
		{"malformed JSON", func() *http.Request { return newReq("POST", ts.base+"/mcp", `{"jsonrpc":"2.0","id":3,"method":`) }, sid, []string{auth}, 400, "", "not valid json", ""},
		{"not JSON at all", func() *http.Request { return newReq("POST", ts.base+"/mcp", "\xff\xfe garbage") }, sid, []string{auth}, 400, "", "not valid UTF-8", "protocol"},
		{"invalid UTF-8 in a tool argument", func() *http.Request { return newReq("POST", ts.base+"/mcp", badUTF8) }, sid, []string{auth}, 400, "", "not valid UTF-8", "write_page"},
		{"invalid UTF-8 in a tool argument over SSE", func() *http.Request { return newReq("POST", sse.endpoint, badUTF8SSE) }, "", []string{auth}, 400, "", "not valid UTF-8", "save_source"},
		{"unknown session POST", func() *http.Request {
			return newReq("POST", ts.base+"/mcp", callBody(4, "list_pages", map[string]any{}))
		}, "mcp-session-00000000-0000-4000-8000-000000000000", []string{auth}, 404, "", "Invalid session ID", ""},
		{"forged session POST", func() *http.Request {
			return newReq("POST", ts.base+"/mcp", callBody(4, "list_pages", map[string]any{}))
		}, "../../etc/passwd", []string{auth}, 404, "", "", ""},
		{"unknown session GET", func() *http.Request { return newReq("GET", ts.base+"/mcp", "") }, "mcp-session-00000000-0000-4000-8000-000000000000", []string{auth}, 404, "", "unknown or expired session", ""},
		{"GET without session", func() *http.Request { return newReq("GET", ts.base+"/mcp", "") }, "", []string{auth}, 400, "", "initialize first", ""},
		{"unknown session DELETE", func() *http.Request { return newReq("DELETE", ts.base+"/mcp", "") }, "nope", []string{auth}, 404, "", "", ""},
		{"unknown SSE session", func() *http.Request {
			return newReq("POST", ts.base+"/message?sessionId=00000000-0000-4000-8000-000000000000", callBody(5, "list_pages", map[string]any{}))
		}, "", []string{auth}, 400, "", "Invalid session ID", ""},
		{"wrong content type", func() *http.Request { return newReq("POST", ts.base+"/mcp", initBody) }, "", []string{auth, "Content-Type: text/plain"}, 400, "", "application/json", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(ts.refusals())
			nCalls := len(teststore.AuditLines(t, ts.root)) - n
			r := ts.do(c.req(), c.sid, c.headers...)
			if r.status != c.status || !strings.Contains(string(r.body), c.want) {
				t.Fatalf("status %d, want %d; body %.300s", r.status, c.status, r.body)
			}
			var calls []store.AuditRecord
			for _, a := range teststore.AuditLines(t, ts.root) {
				if a.Tool != "http:refused" {
					calls = append(calls, a)
				}
			}
			calls = calls[nCalls:]
			if c.screened == "" && len(calls) > 0 {
				t.Fatalf("a refused request reached a tool or was audited as one: %+v", calls)
			}
			if c.screened != "" {
				errObj, _ := r.message["error"].(map[string]any)
				if id, ok := r.message["id"]; !ok || id != nil || errObj == nil || errObj["code"] != float64(jsonrpc.CodeParseError) ||
					r.header.Get("Content-Type") != "application/json" {
					t.Errorf("want a JSON-RPC parse error with id null, got %s %s", r.header.Get("Content-Type"), r.body)
				}
				if len(calls) != 1 {
					t.Fatalf("want one audit line for the screened message, got %+v", calls)
				}
				a := calls[0]
				args, _ := a.Args.(map[string]any)
				if a.Tool != c.screened || a.Outcome != "error" || a.Code != store.CodeInvalid || !strings.Contains(a.Error, "not valid UTF-8") ||
					!strings.HasPrefix(a.Remote, "127.0.0.1:") || len(a.Writes) > 0 || args["bytes"] == nil {
					t.Errorf("screened message's audit line: %+v", a)
				}
				if c.sid != "" && a.Session != c.sid {
					t.Errorf("audit line session %q, want the request's session %q", a.Session, c.sid)
				}
				if c.sid == "" && args["claimed_session"] != sse.id {
					t.Errorf("audit line of an SSE message does not name its session %q: %v", sse.id, args)
				}
			}
			got := ts.refusals()
			if c.reason == "" {
				if len(got) != n {
					t.Fatalf("audited a refusal it should not: %+v", got[n:])
				}
				return
			}
			if len(got) != n+1 {
				t.Fatalf("want one audit line for the refusal, got %d new", len(got)-n)
			}
			a := got[n]
			args, _ := a.Args.(map[string]any)
			if args["reason"] != c.reason || a.Code != store.CodeRefused || a.Outcome != "error" || !strings.HasPrefix(a.Remote, "127.0.0.1:") {
				t.Errorf("audit line: %+v", a)
			}
			if c.status == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
		})
	}
	if m := ts.post(sid, callBody(9, "list_pages", map[string]any{}), auth); m.status != 200 || m.result() == nil {
		t.Fatalf("the session broke after bad requests: %d %s", m.status, m.body)
	}
	sse.post(callBody(10, "list_pages", map[string]any{}))
	if m := sse.next(); m["id"] != 10.0 || m["result"] == nil {
		t.Fatalf("the SSE session broke after bad requests: %v", m)
	}
	for _, p := range []string{"pages/bad-byte.md", "pages/bad-\ufffd-byte.md", "sources/bad.md"} {
		if _, err := os.Stat(filepath.Join(ts.root, p)); err == nil {
			t.Errorf("a message with invalid UTF-8 was written: %s", p)
		}
	}
	raw, _ := os.ReadFile(filepath.Join(ts.root, ".llmwiki", "audit", time.Now().UTC().Format("2006-01-02")+".jsonl"))
	if bytes.Contains(raw, []byte(token)) {
		t.Errorf("the token is in the audit log")
	}
	if d := diffFiles(before, wikiFiles(t, ts.root)); len(d) > 0 {
		t.Errorf("bad requests changed wiki files: %v", d)
	}
}

// sseSession is a legacy SSE session: a GET /sse stream and the
// /message endpoint it announced.
type sseSession struct {
	ts       *testServer
	id       string // the sessionId of the endpoint
	endpoint string // absolute URL of /message?sessionId=...
	headers  []string
	events   chan map[string]any // JSON-RPC messages with an id, from the stream
}

// openSSE opens a legacy SSE stream; it is closed when the test ends.
func (ts *testServer) openSSE(headers ...string) *sseSession {
	ts.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		cancel()
		ts.t.Fatalf("GET /sse: %v %v", err, resp)
	}
	ts.t.Cleanup(func() { cancel(); resp.Body.Close() })
	s := &sseSession{ts: ts, headers: headers, events: make(chan map[string]any, 16)}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		} else if d, ok := strings.CutPrefix(line, "data: "); ok && event == "endpoint" {
			u, err := resp.Request.URL.Parse(d)
			if err != nil {
				ts.t.Fatalf("endpoint %q: %v", d, err)
			}
			s.endpoint, s.id = u.String(), u.Query().Get("sessionId")
			break
		}
	}
	if s.id == "" {
		ts.t.Fatalf("the SSE stream announced no endpoint (%v)", sc.Err())
	}
	go func() {
		defer close(s.events)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil && m["id"] != nil {
					s.events <- m
				}
			}
		}
	}()
	return s
}

// post sends one JSON-RPC message to the session's endpoint; the answer
// comes on the stream (see next).
func (s *sseSession) post(body string) {
	s.ts.t.Helper()
	r := s.ts.do(newReq("POST", s.endpoint, body), "", s.headers...)
	if r.status != http.StatusAccepted {
		s.ts.t.Fatalf("POST %s: %d %s", s.endpoint, r.status, r.body)
	}
}

// next returns the next response on the stream.
func (s *sseSession) next() map[string]any {
	s.ts.t.Helper()
	select {
	case m, ok := <-s.events:
		if !ok {
			s.ts.t.Fatal("the SSE stream ended")
		}
		return m
	case <-time.After(10 * time.Second):
		s.ts.t.Fatal("no response on the SSE stream within 10 s")
		return nil
	}
}

func newReq(method, url, body string) *http.Request {
	r, _ := http.NewRequest(method, url, strings.NewReader(body))
	return r
}

// wikiFiles hashes every file of the wiki outside .llmwiki/audit.
func wikiFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(rel, filepath.Join(".llmwiki", "audit")) || strings.HasPrefix(rel, filepath.Join(".llmwiki", "watch")) {
			return nil // the audit log, and the file watcher's sync file (server bookkeeping)
		}
		b, _ := os.ReadFile(p)
		out[rel] = store.SHA256Hex(b)
		return nil
	})
	return out
}

func diffFiles(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k)
		}
	}
	return d
}

// TestAllowedHostsAndOrigins: bound to every interface, the Host
// allow-list holds the loopback names, this machine's addresses and the
// extra names (ports and brackets stripped), never 0.0.0.0; origins are
// normalised and anything that is not a plain origin is refused.
func TestAllowedHostsAndOrigins(t *testing.T) {
	hosts := allowedHosts("0.0.0.0", []string{"wiki.example.com:443", "[fd00::1]"})
	for _, h := range []string{"localhost", "127.0.0.1", "::1", "wiki.example.com", "fd00::1"} {
		if !hosts[h] {
			t.Errorf("allowed hosts lack %s: %v", h, hosts)
		}
	}
	if hosts["0.0.0.0"] || hosts["evil.example"] {
		t.Errorf("allowed hosts too wide: %v", hosts)
	}
	for in, want := range map[string]string{"https://App.Example:443": "https://app.example", "http://localhost:3000/": "http://localhost:3000", "https://[::1]:443": "https://[::1]"} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"null", "file:///x", "https://a.example/path", "https://user@a.example", "ftp://a.example"} {
		if _, err := ParseOrigin(bad); err == nil {
			t.Errorf("ParseOrigin(%q) accepted", bad)
		}
	}
}

// TestHTTPAllowedOriginAndHost: an --allow-origin browser app and a proxy
// name from --allow-host get through, with CORS headers for the app.
func TestHTTPAllowedOriginAndHost(t *testing.T) {
	ts := newTestServer(t, Config{AllowOrigins: []string{"https://app.example"}, AllowHosts: []string{"wiki.internal"}})
	r := ts.do(newReq("POST", ts.base+"/mcp", initBody), "", "Origin: https://app.example")
	if r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("allowed origin: %d %v %s", r.status, r.header, r.body)
	}
	req := newReq("POST", ts.base+"/mcp", initBody)
	req.Host = "wiki.internal:8765"
	if r := ts.do(req, ""); r.status != 200 {
		t.Fatalf("allowed host: %d %s", r.status, r.body)
	}
	// Its own origin (a page served by this server's host and port).
	if r := ts.do(newReq("POST", ts.base+"/mcp", initBody), "", "Origin: "+ts.base); r.status != 200 {
		t.Fatalf("same origin: %d %s", r.status, r.body)
	}
}

// TestHTTPSessionIdentityInAudit: every audit line of an HTTP session
// carries its session id, client name/version and remote address.
func TestHTTPSessionIdentityInAudit(t *testing.T) {
	ts := newTestServer(t, Config{})
	sid := ts.initialize()
	r := ts.post(sid, callBody(2, "write_page", map[string]any{"title": "Identity", "content": "# Identity\n"}))
	if r.result() == nil || r.result()["isError"] == true {
		t.Fatalf("write_page: %s", r.body)
	}
	ts.post(sid, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"wiki://pages/identity"}}`)
	lines := teststore.AuditLines(t, ts.root)
	if len(lines) != 2 {
		t.Fatalf("want 2 audit lines, got %d", len(lines))
	}
	for _, a := range lines {
		if a.Session != sid || a.Client != "go-test 9.9" || !strings.HasPrefix(a.Remote, "127.0.0.1:") {
			t.Errorf("audit line without the session's identity: session %q client %q remote %q", a.Session, a.Client, a.Remote)
		}
	}
}

// TestHTTPDisconnectMidWrite: a client that goes away while its write waits
// for the lock gets nothing written (and an audit line saying so); one that
// goes away while the write commits gets the whole write. Never a temp file
// or a torn page.
func TestHTTPDisconnectMidWrite(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	ts := newTestServer(t, Config{}, wiki.WithFaults(func(step, rel string) error {
		if step == "rename" && rel == "pages/during-commit.md" {
			entered <- struct{}{}
			<-hold
		}
		return nil
	}))
	sid := ts.initialize()

	// 1. Disconnect while waiting for the lock: nothing is written.
	locked := make(chan struct{})
	release := make(chan struct{})
	go ts.st.Update(context.Background(), func(tx *store.Tx) error {
		close(locked)
		<-release
		return nil
	})
	<-locked
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.base+"/mcp", strings.NewReader(callBody(2, "write_page", map[string]any{"title": "Before commit", "content": "# Gone\n"})))
	errc := make(chan error, 1)
	go func() {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		_, err := ts.client.Do(req)
		errc <- err
	}()
	wikitest.WaitFor(t, func() bool { return ts.h.running.Load() == 1 }, "the write to wait for the lock")
	cancel() // the client hangs up
	<-errc
	// The server sees the hang-up and ends the write while the lock is
	// still held (a fixed sleep here let a busy machine release the lock
	// first, and the write went through).
	wikitest.WaitFor(t, func() bool { return hasAudit(t, ts.root, "write_page", "error") }, "an error audit line for the abandoned write")
	close(release)
	if _, err := os.Stat(filepath.Join(ts.root, "pages", "before-commit.md")); err == nil {
		t.Errorf("a write whose client left before the commit was written")
	}

	// 2. Disconnect during the commit: the write completes, whole.
	body := "# During commit\n\n" + strings.Repeat("All of this or none of it.\n", 2000)
	ctx2, cancel2 := context.WithCancel(context.Background())
	req2, _ := http.NewRequestWithContext(ctx2, "POST", ts.base+"/mcp", strings.NewReader(callBody(3, "write_page", map[string]any{"title": "During commit", "content": body})))
	go func() {
		req2.Header.Set("Content-Type", "application/json")
		req2.Header.Set("Accept", "application/json, text/event-stream")
		req2.Header.Set("Mcp-Session-Id", sid)
		req2.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		_, err := ts.client.Do(req2)
		errc <- err
	}()
	<-entered
	cancel2()
	<-errc
	time.Sleep(100 * time.Millisecond)
	close(hold)
	wikitest.WaitFor(t, func() bool { return hasAudit(t, ts.root, "write_page", "ok") }, "an ok audit line for the committed write")
	b, err := os.ReadFile(filepath.Join(ts.root, "pages", "during-commit.md"))
	if err != nil || !bytes.HasSuffix(b, []byte(body)) {
		t.Errorf("the write committed while its client left is not whole (%d bytes, %v)", len(b), err)
	}
	if tf := teststore.TempFiles(ts.root); len(tf) > 0 {
		t.Errorf("temp files left: %v", tf)
	}
}

// TestHTTPCancelledNotificationStopsHandler: notifications/cancelled for a
// call waiting on the lock ends it, writes nothing, audits it as cancelled,
// and the call gets no answer (MCP: a cancelled request is not answered):
// its POST gets an event stream without a response.
func TestHTTPCancelledNotificationStopsHandler(t *testing.T) {
	ts := newTestServer(t, Config{})
	sid := ts.initialize()
	locked := make(chan struct{})
	release := make(chan struct{})
	go ts.st.Update(context.Background(), func(tx *store.Tx) error {
		close(locked)
		<-release
		return nil
	})
	<-locked
	defer close(release)
	got := make(chan rpcReply, 1)
	go func() {
		got <- ts.post(sid, callBody(42, "write_page", map[string]any{"title": "Cancelled", "content": "# No\n"}))
	}()
	// The call is running (mcp-go has registered it for cancellation
	// before the tool middleware counts it); a fixed sleep here let a busy
	// machine send the cancellation before the call was known.
	wikitest.WaitFor(t, func() bool { return ts.h.running.Load() == 1 }, "the write to wait for the lock")
	if r := ts.post(sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"user pressed stop"}}`); r.status != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	select {
	case r := <-got:
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || r.message != nil {
			t.Fatalf("the cancelled call was answered: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
		}
	case <-time.After(30 * time.Second): // only bounds a hang
		t.Fatal("notifications/cancelled did not stop the handler")
	}
	if _, err := os.Stat(filepath.Join(ts.root, "pages", "cancelled.md")); err == nil {
		t.Errorf("a cancelled write was written")
	}
	if c := teststore.LastCall(t, ts.root, "write_page"); c == nil || c.Code != store.CodeCancelled {
		t.Errorf("audit line of the cancelled call: %+v, want code cancelled", c)
	}
}

// TestHTTPGracefulShutdown: on SIGTERM (the serve context ends) a write in
// flight finishes and is answered, new requests meanwhile get 503 (on open
// connections and new ones), and serve returns with the listener closed.
func TestHTTPGracefulShutdown(t *testing.T) {
	hold := make(chan struct{})
	entered := make(chan struct{}, 1)
	ts := newTestServer(t, Config{}, wiki.WithFaults(func(step, rel string) error {
		if step == "rename" && rel == "pages/in-flight.md" {
			entered <- struct{}{}
			<-hold
		}
		return nil
	}))
	sid := ts.initialize()
	got := make(chan rpcReply, 1)
	go func() {
		got <- ts.post(sid, callBody(2, "write_page", map[string]any{"title": "In flight", "content": "# In flight\n"}))
	}()
	<-entered
	// A client with a connection open from before the shutdown.
	addr := strings.TrimPrefix(ts.base, "http://")
	early, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Close()
	stopped := make(chan error, 1)
	go func() { stopped <- ts.stop() }()
	wikitest.WaitFor(t, ts.h.draining.Load, "the server to start draining")
	time.Sleep(100 * time.Millisecond)
	// While the write is in flight, new requests get 503, on the open
	// connection and on a new one.
	fmt.Fprintf(early, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		addr, len(initBody), initBody)
	early.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(early), nil)
	if err != nil {
		t.Fatalf("a request on an open connection got no answer while draining: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !resp.Close {
		t.Errorf("a request on an open connection while draining: %d (Retry-After %q, close %v); want 503", resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close)
	}
	if r := ts.post(sid, callBody(3, "list_pages", map[string]any{})); r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "shutting down") {
		t.Errorf("a new request while draining: %d %s; want 503", r.status, r.body)
	}
	select {
	case <-stopped:
		t.Fatal("serve returned while a write was in flight")
	default:
	}
	close(hold)
	r := <-got
	if r.result() == nil || r.result()["isError"] == true {
		t.Fatalf("the in-flight write was not answered ok: %d %s", r.status, r.body)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("the listener is still open after serve returned")
	}
	if _, err := os.Stat(filepath.Join(ts.root, "pages", "in-flight.md")); err != nil {
		t.Errorf("the in-flight write is not on disk: %v", err)
	}
}

// TestHTTPAbandonedSessions opens 500 sessions (initialize, a call, a GET
// stream dropped halfway) and abandons them; after the idle sweep the
// sessions are gone and memory and goroutines return to the baseline.
func TestHTTPAbandonedSessions(t *testing.T) {
	ts := newTestServer(t, Config{SessionIdle: 3 * time.Second})
	ts.client.Transport = &http.Transport{MaxIdleConnsPerHost: 4}
	warm := ts.initialize()
	ts.post(warm, callBody(2, "list_pages", map[string]any{}))
	baseHeap, baseG := settleMem(ts.client)
	const n = 500
	for i := 0; i < n; i++ {
		sid := ts.initialize()
		ts.post(sid, callBody(2, "list_pages", map[string]any{}))
		if i%5 == 0 { // a listening stream the client drops
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", ts.base+"/mcp", nil)
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Accept", "text/event-stream")
			if resp, err := ts.client.Do(req); err == nil {
				cancel()
				resp.Body.Close()
			} else {
				cancel()
			}
		}
	}
	openHeap, openG := settleMem(ts.client)
	open := ts.h.sessions.count() // the first may already be swept on a slow machine
	opened := ts.h.sessions.opened.Load()
	wikitest.WaitFor(t, func() bool { return ts.h.sessions.count() == 0 }, "the idle sweep to forget every session")
	// The swept sessions' goroutines and buffers go a moment later (later
	// still on a busy machine): poll, up to 30 s, instead of a fixed sleep.
	var endHeap uint64
	var endG int
	for deadline := time.Now().Add(30 * time.Second); ; {
		endHeap, endG = settleMem(ts.client)
		if endHeap <= baseHeap+4<<20 && endG <= baseG+5 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("500 abandoned sessions: opened %d, live %d -> %d; heap %.1f MiB baseline, %.1f MiB with them, %.1f MiB after the sweep; goroutines %d -> %d -> %d",
		opened, open, ts.h.sessions.count(), mib(baseHeap), mib(openHeap), mib(endHeap), baseG, openG, endG)
	if opened < n+1 {
		t.Errorf("only %d sessions were opened", opened)
	}
	if endHeap > baseHeap+4<<20 {
		t.Errorf("heap did not return to baseline: %.1f MiB -> %.1f MiB", mib(baseHeap), mib(endHeap))
	}
	if endG > baseG+5 {
		t.Errorf("goroutines did not return to baseline: %d -> %d", baseG, endG)
	}
	if r := ts.post(warm, callBody(3, "list_pages", map[string]any{})); r.status != http.StatusNotFound {
		t.Errorf("a swept session should be unknown (404), got %d", r.status)
	}
}

func settleMem(c *http.Client) (uint64, int) {
	c.CloseIdleConnections()
	var ms runtime.MemStats
	for i := 0; i < 3; i++ {
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, runtime.NumGoroutine()
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func hasAudit(t *testing.T, root, tool, outcome string) bool {
	for _, a := range teststore.AuditLines(t, root) {
		if a.Tool == tool && a.Outcome == outcome {
			return true
		}
	}
	return false
}

// TestHTTPModernClientGetsASession: mcp-go's client tries the stateless
// 2026-07-28 protocol first; the server only offers session revisions, so
// the client falls back to initialize and its calls carry a session id.
func TestHTTPModernClientGetsASession(t *testing.T) {
	ts := newTestServer(t, Config{})
	c, err := client.NewStreamableHttpClient(ts.base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "mcp-go-default", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if mcp.IsModernProtocol(res.ProtocolVersion) {
		t.Fatalf("negotiated the stateless protocol %s", res.ProtocolVersion)
	}
	var call mcp.CallToolRequest
	call.Params.Name = "list_pages"
	if _, err := c.CallTool(ctx, call); err != nil {
		t.Fatal(err)
	}
	lines := teststore.AuditLines(t, ts.root)
	if len(lines) != 1 || !strings.HasPrefix(lines[0].Session, "mcp-session-") || lines[0].Client != "mcp-go-default 1" {
		t.Fatalf("audit: %+v", lines)
	}
}

// TestHandlerWithoutServe: [Server.Handler] mounted on a server of the
// caller's (httptest here) serves a session whose audit lines name it and
// its remote address, and still refuses a foreign Host.
func TestHandlerWithoutServe(t *testing.T) {
	h, _, root := newTransport(t, Config{})
	hs := httptest.NewServer(h.Handler())
	defer hs.Close()
	ts := &testServer{t: t, root: root, base: hs.URL, client: hs.Client()}
	sid := ts.initialize()
	if r := ts.post(sid, callBody(2, "list_pages", map[string]any{})); r.status != http.StatusOK || r.result() == nil {
		t.Fatalf("list_pages: %d %s", r.status, r.body)
	}
	lines := teststore.AuditLines(t, root)
	if len(lines) != 1 || lines[0].Tool != "list_pages" || lines[0].Session != sid || !strings.HasPrefix(lines[0].Remote, "127.0.0.1:") {
		t.Fatalf("audit: %+v", lines)
	}
	req := newReq("POST", hs.URL+"/mcp", initBody)
	req.Host = "evil.example"
	if r := ts.do(req, ""); r.status != http.StatusForbidden {
		t.Fatalf("foreign Host: %d %s", r.status, r.body)
	}
}
