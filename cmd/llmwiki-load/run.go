package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// loadPages is how many shared pages the writers update with base_sha256
// (so that they conflict now and then).
const loadPages = 32

// researchTopics is how many research notes the writers append to.
const researchTopics = 8

// mcpClient is one MCP session and the ledger it reports to.
type mcpClient struct {
	c    *client.Client
	name string
	rep  *report
	sid  string
}

// dialHTTP opens one streamable HTTP session, pinned to the last
// session-oriented protocol revision.
// The token goes on every request through the HTTP client, not mcp-go's
// header option: mcp-go's client leaves its headers off the DELETE that ends
// a session, which the server then refuses (and audits).
func dialHTTP(ctx context.Context, base, token, name string, rep *report, timeout time.Duration) (*mcpClient, error) {
	hc := &http.Client{Timeout: timeout, Transport: bearer{token: token, next: sharedTransport}}
	c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	return initClient(ctx, c, name, rep)
}

// sharedTransport keeps enough idle connections for every client.
var sharedTransport = &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second}

// bearer adds "Authorization: Bearer <token>" to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func initClient(ctx context.Context, c *client.Client, name string, rep *report) (*mcpClient, error) {
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	mc := &mcpClient{c: c, name: name, rep: rep}
	if t, ok := c.GetTransport().(*transport.StreamableHTTP); ok {
		mc.sid = t.GetSessionId()
	}
	return mc, nil
}

// result is one tool call's outcome.
type result struct {
	out     map[string]any // structured content
	code    string         // tool error code ("conflict"), "" when ok
	msg     string
	errKind string // "" when the server answered; else why there is no answer
}

func (r result) ok() bool { return r.errKind == "" && r.code == "" }

// call invokes a tool, times it and counts it.
func (m *mcpClient) call(ctx context.Context, tool string, args map[string]any, meta *mcp.Meta) result {
	ctx, cancel := context.WithTimeout(ctx, m.rep.cfg.callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = meta
	start := time.Now()
	res, err := m.c.CallTool(ctx, req)
	d := time.Since(start)
	var r result
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		r.errKind = "timeout"
	case err != nil:
		r.errKind = "transport: " + shortErr(err)
	case res.IsError:
		r.msg = textOf(res)
		r.code, _, _ = strings.Cut(r.msg, ":")
		if strings.Contains(r.code, " ") {
			r.code = "error"
		}
	default:
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &r.out)
	}
	m.rep.record(tool, d, r)
	return r
}

func textOf(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func nonce() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// httpPhase runs the HTTP clients against a server on the wiki.
func httpPhase(ctx context.Context, c config, rep *report) error {
	token := nonce() + nonce() + nonce() + nonce()
	p, err := startHTTPServer(c.bin, c.root, token, c.cpuProfile != "")
	if err != nil {
		return err
	}
	defer func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
		}
	}()
	rep.loadBefore = loadAvg()
	fmt.Fprintf(c.out, "== HTTP phase: %d clients for %s against %s (load average %s)\n", c.clients, c.duration, p.base, rep.loadBefore)
	setup, err := dialHTTP(ctx, p.base, token, "llmwiki-load-setup", rep, c.callTimeout)
	if err != nil {
		return err
	}
	tl, err := setup.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	for _, t := range tl.Tools {
		if t.Name == "search_wiki" {
			rep.hasSearch = true
		}
	}
	// The index of every page, with progress notifications.
	var progress atomic.Int64
	setup.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			progress.Add(1)
		}
	})
	t0 := time.Now()
	r := setup.call(ctx, "rebuild_index", map[string]any{}, &mcp.Meta{ProgressToken: "rebuild"})
	if !r.ok() {
		return fmt.Errorf("rebuild_index: %s %s %s", r.errKind, r.code, r.msg)
	}
	rep.setupIndex = time.Since(t0)
	time.Sleep(50 * time.Millisecond)
	rep.setupProgress = int(progress.Load())
	fmt.Fprintf(c.out, "rebuild_index over %v pages: %s, %d progress notifications\n", r.out["pages"], rep.setupIndex.Round(time.Millisecond), rep.setupProgress)
	for i := 0; i < loadPages; i++ {
		title := fmt.Sprintf("Load page %02d", i)
		body := fmt.Sprintf("# %s\n\nmarker setup-%02d\n", title, i)
		r := setup.call(ctx, "write_page", map[string]any{"title": title, "summary": "A page the load test updates.", "tags": []string{"load"}, "body": body}, nil)
		if !r.ok() {
			return fmt.Errorf("create %s: %s %s %s", title, r.errKind, r.code, r.msg)
		}
		rep.led.pageAcked(str(r.out, "path"), "", str(r.out, "sha256"), fmt.Sprintf("setup-%02d", i))
	}
	setup.c.Close()
	rep.resetStats() // the figures are for the load itself

	words := titleWords(rep.corpusPaths)
	langs := topFolders(rep.corpusPaths)
	deadline := time.Now().Add(c.duration)
	var wg sync.WaitGroup
	pid := p.cmd.Process.Pid
	cpu0 := cpuSeconds(pid)
	if c.cpuProfile != "" {
		p.mu.Lock()
		base := p.pprof
		p.mu.Unlock()
		wg.Go(func() {
			if err := fetchProfile(ctx, base, "profile", c.duration, c.cpuProfile); err != nil {
				fmt.Fprintln(c.out, "cpu profile:", err)
			}
		})
		wg.Go(func() {
			if err := fetchProfile(ctx, base, "allocs", c.duration, c.cpuProfile+".allocs"); err != nil {
				fmt.Fprintln(c.out, "allocation profile:", err)
			}
		})
		for _, kind := range []string{"mutex", "block"} {
			wg.Go(func() {
				if err := fetchProfile(ctx, base, kind, c.duration, c.cpuProfile+"."+kind); err != nil {
					fmt.Fprintln(c.out, kind+" profile:", err)
				}
			})
		}
	}
	var dialErr atomic.Value
	sessions := make([]string, c.clients)
	start := time.Now()
	for i := 0; i < c.clients; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			mc, err := dialHTTP(ctx, p.base, token, "llmwiki-load", rep, c.callTimeout)
			if err != nil {
				dialErr.Store(err)
				return
			}
			defer mc.c.Close()
			sessions[id] = mc.sid
			rng := mrand.New(mrand.NewPCG(uint64(c.seed), uint64(id)))
			w := worker{mc: mc, id: id, rng: rng, words: words, langs: langs, corpus: rep.corpusPaths, search: rep.hasSearch}
			for seq := 0; time.Now().Before(deadline) && ctx.Err() == nil; seq++ {
				if rng.Float64() < c.writeRatio {
					w.write(ctx, seq)
				} else {
					w.read(ctx)
				}
			}
		}(i)
	}
	wg.Wait()
	rep.httpElapsed = time.Since(start)
	if err, _ := dialErr.Load().(error); err != nil {
		return fmt.Errorf("a client could not connect: %w", err)
	}
	rep.httpSessions = sessions
	rep.httpStats = rep.snapshotStats()
	rep.serverCPU = cpuSeconds(pid) - cpu0
	rep.serverPeakMiB = peakRSS(p.cmd.Process.Pid)
	rep.loadAfter = loadAvg()
	t1 := time.Now()
	if err := p.stop(60 * time.Second); err != nil {
		return err
	}
	rep.shutdown = time.Since(t1)
	p.mu.Lock()
	rep.serverErrors += p.errs
	p.mu.Unlock()
	return nil
}

// worker is one client's operation mix.
type worker struct {
	mc     *mcpClient
	id     int
	rng    *mrand.Rand
	words  []string
	langs  []string
	corpus []string
	search bool
}

func (w *worker) read(ctx context.Context) {
	n := 2
	if w.search {
		n = 3
	}
	switch w.rng.IntN(n) {
	case 0:
		w.mc.call(ctx, "read_page", map[string]any{"path": w.corpus[w.rng.IntN(len(w.corpus))]}, nil)
	case 1:
		args := map[string]any{"limit": 50}
		if w.rng.IntN(4) > 0 {
			args["prefix"] = w.langs[w.rng.IntN(len(w.langs))]
		}
		w.mc.call(ctx, "list_pages", args, nil)
	case 2:
		q := w.words[w.rng.IntN(len(w.words))]
		if w.rng.IntN(2) == 0 {
			q += " " + w.words[w.rng.IntN(len(w.words))]
		}
		w.mc.call(ctx, "search_wiki", map[string]any{"query": q, "limit": 10}, nil)
	}
}

func (w *worker) write(ctx context.Context, seq int) {
	marker := fmt.Sprintf("c%02d-n%05d-%s", w.id, seq, nonce())
	led := w.mc.rep.led
	switch w.rng.IntN(3) {
	case 0:
		title := "load " + marker
		r := w.mc.call(ctx, "append_log", map[string]any{"op": "note", "title": title, "details": "- by client " + fmt.Sprint(w.id)}, nil)
		led.logResult(title, r)
	case 1:
		slug := fmt.Sprintf("load-page-%02d", w.rng.IntN(loadPages))
		rd := w.mc.call(ctx, "read_page", map[string]any{"slug": slug}, nil)
		if !rd.ok() {
			return
		}
		title := fmt.Sprintf("Load page %s", strings.TrimPrefix(slug, "load-page-"))
		body := fmt.Sprintf("# %s\n\nmarker %s\n\n%s\n", title, marker, strings.Repeat("Written under load. ", 1+w.rng.IntN(40)))
		base := str(rd.out, "sha256")
		r := w.mc.call(ctx, "write_page", map[string]any{"title": title, "slug": slug, "body": body, "base_sha256": base}, nil)
		led.pageResult("pages/"+slug+".md", base, marker, r)
	case 2:
		topic := fmt.Sprintf("load topic %d", w.rng.IntN(researchTopics))
		content := fmt.Sprintf("marker %s\n\n%s\n", marker, strings.Repeat("Found under load. ", 1+w.rng.IntN(20)))
		r := w.mc.call(ctx, "research_save", map[string]any{"topic": topic, "content": content, "urls": []string{"https://example.org/" + marker}}, nil)
		led.researchResult(marker, r)
	}
}

// titleWords returns words (4+ letters) from the corpus file names, for
// search queries.
func titleWords(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		name := strings.TrimSuffix(p[strings.LastIndex(p, "/")+1:], ".md")
		for _, f := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '(' || r == ')' }) {
			if len([]rune(f)) >= 4 && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"note"}
	}
	return out
}

// topFolders returns the first folders under pages/ ("en", "de", ...).
func topFolders(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		rest := strings.TrimPrefix(p, "pages/")
		if i := strings.IndexByte(rest, '/'); i > 0 && !seen[rest[:i]] {
			seen[rest[:i]] = true
			out = append(out, rest[:i])
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

// stat is the figures of one tool.
type stat struct {
	Tool   string
	N      int
	Errors int
	P50    time.Duration
	P99    time.Duration
	Max    time.Duration
}

func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(ds)))) - 1
	if i < 0 {
		i = 0
	}
	return ds[i]
}
