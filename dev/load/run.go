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

	"github.com/llmwiki/llmwiki/dev/internal/loadavg"
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

// call invokes a tool now, times it and counts it.
func (m *mcpClient) call(ctx context.Context, tool string, args map[string]any, meta *mcp.Meta) result {
	return m.callAt(ctx, time.Now(), tool, args, meta)
}

// callAt invokes a tool that was due at intended, and counts its latency
// from intended to the answer: a call the client sends late (the open loop
// behind its schedule) is charged for the wait. The call timeout runs from
// the send.
func (m *mcpClient) callAt(ctx context.Context, intended time.Time, tool string, args map[string]any, meta *mcp.Meta) result {
	ctx, cancel := context.WithTimeout(ctx, m.rep.cfg.callTimeout)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = meta
	res, err := m.c.CallTool(ctx, req)
	d := time.Since(intended)
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

// httpSetup starts a server on the new wiki, builds the search index of
// every page (rebuild_index, with progress notifications) and creates the
// pages the writers update, then stops the server. It has its own server
// so that every load phase starts on a fresh process with the index on disk.
func httpSetup(ctx context.Context, c config, rep *report) error {
	token := nonce() + nonce() + nonce() + nonce()
	p, err := startHTTPServer(c.bin, c.root, token, false)
	if err != nil {
		return err
	}
	defer p.kill()
	setup, err := dialHTTP(ctx, p.base, token, "llmwiki-load-setup", rep, c.callTimeout)
	if err != nil {
		return err
	}
	defer setup.c.Close()
	tl, err := setup.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	for _, t := range tl.Tools {
		if t.Name == "search_wiki" {
			rep.hasSearch = true
		}
	}
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
	t1 := time.Now()
	for i := 0; i < loadPages; i++ {
		title := fmt.Sprintf("Load page %02d", i)
		body := fmt.Sprintf("# %s\n\nmarker setup-%02d\n", title, i)
		r := setup.call(ctx, "write_page", map[string]any{"title": title, "summary": "A page the load test updates.", "tags": []string{"load"}, "content": body}, nil)
		if !r.ok() {
			return fmt.Errorf("create %s: %s %s %s", title, r.errKind, r.code, r.msg)
		}
		rep.led.pageAcked(str(r.out, "path"), "", str(r.out, "sha256"), fmt.Sprintf("setup-%02d", i))
	}
	fmt.Fprintf(c.out, "created the %d load pages in %s\n", loadPages, time.Since(t1).Round(time.Millisecond))
	setup.c.Close()
	t2 := time.Now()
	if err := p.stop(60 * time.Second); err != nil {
		return err
	}
	fmt.Fprintf(c.out, "setup server stopped in %s\n", time.Since(t2).Round(time.Millisecond))
	p.mu.Lock()
	rep.serverErrors += p.errs
	p.mu.Unlock()
	return nil
}

// httpRun is the figures of one HTTP load phase.
type httpRun struct {
	mode     string        // "open" or "closed"
	offered  float64       // open: calls a second scheduled over all clients
	elapsed  time.Duration // from the first call to the last answer
	stats    phaseStats
	profiled bool // -cpuprofile covered this phase

	pace paceStats // open loop only; lags sorted

	startup      time.Duration // server start until it listened
	dial         time.Duration // opening every client's session
	warm         warmth        // the warm-up before the clock starts
	serverCPU    float64       // server user+system CPU seconds over the load
	peakMiB      float64
	serverErrors int
	shutdown     time.Duration
	loadBefore   string
	loadAfter    string
}

func (h *httpRun) title() string {
	if h.mode == "open" {
		return "open loop"
	}
	return "closed loop"
}

// httpPhase runs the HTTP clients against a fresh server on the wiki, in
// mode "open" (paced, Poisson arrivals) or "closed" (no pause), and stops
// the server with SIGTERM. With profile it saves the server's profiles over
// the load (-cpuprofile).
func httpPhase(ctx context.Context, c config, rep *report, mode string, profile bool) error {
	run := &httpRun{mode: mode, profiled: profile}
	rep.runs = append(rep.runs, run)
	token := nonce() + nonce() + nonce() + nonce()
	t0 := time.Now()
	p, err := startHTTPServer(c.bin, c.root, token, profile)
	if err != nil {
		return err
	}
	defer p.kill()
	run.startup = time.Since(t0)
	run.loadBefore = loadavg.Read()
	if mode == "open" {
		run.offered = c.rate * float64(c.clients)
		fmt.Fprintf(c.out, "== HTTP phase, open loop: %d clients x %g calls/s (%g calls/s offered, Poisson arrivals, at most %d in flight a client) for %s against %s (server start %s, load average %s)\n",
			c.clients, c.rate, run.offered, c.maxInFlight, c.duration, p.base, run.startup.Round(time.Millisecond), run.loadBefore)
	} else {
		fmt.Fprintf(c.out, "== HTTP phase, closed loop (saturation): %d clients without pause for %s against %s (server start %s, load average %s)\n",
			c.clients, c.duration, p.base, run.startup.Round(time.Millisecond), run.loadBefore)
	}

	// Every client's session first, so that the load starts at one moment.
	tDial := time.Now()
	mcs := make([]*mcpClient, c.clients)
	var dialWG sync.WaitGroup
	var dialErr atomic.Value
	for i := range mcs {
		dialWG.Go(func() {
			mc, err := dialHTTP(ctx, p.base, token, "llmwiki-load", rep, c.callTimeout)
			if err != nil {
				dialErr.Store(err)
				return
			}
			mcs[i] = mc
		})
	}
	dialWG.Wait()
	defer func() {
		for _, mc := range mcs {
			if mc != nil {
				mc.c.Close()
			}
		}
	}()
	if err, _ := dialErr.Load().(error); err != nil {
		return fmt.Errorf("a client could not connect: %w", err)
	}
	run.dial = time.Since(tDial)
	run.warm = warmUp(ctx, mcs[0], rep, p.cmd.Process.Pid)
	rep.resetStats() // the figures are for the load itself

	words := titleWords(rep.corpusPaths)
	langs := topFolders(rep.corpusPaths)
	var wg, profiles sync.WaitGroup // the clients; the profile fetches
	pid := p.cmd.Process.Pid
	cpu0 := cpuSeconds(pid)
	if profile {
		p.mu.Lock()
		base := p.pprof
		p.mu.Unlock()
		profiles.Go(func() {
			if err := fetchProfile(ctx, base, "profile", c.duration, c.cpuProfile); err != nil {
				fmt.Fprintln(c.out, "cpu profile:", err)
			}
		})
		profiles.Go(func() {
			if err := fetchProfile(ctx, base, "allocs", c.duration, c.cpuProfile+".allocs"); err != nil {
				fmt.Fprintln(c.out, "allocation profile:", err)
			}
		})
		for _, kind := range []string{"mutex", "block"} {
			profiles.Go(func() {
				if err := fetchProfile(ctx, base, kind, c.duration, c.cpuProfile+"."+kind); err != nil {
					fmt.Fprintln(c.out, kind+" profile:", err)
				}
			})
		}
	}
	start := time.Now()
	deadline := start.Add(c.duration)
	var paceMu sync.Mutex
	var pace paceStats
	for id, mc := range mcs {
		rng := mrand.New(mrand.NewPCG(uint64(c.seed), uint64(id)))
		w := worker{mc: mc, id: id, rng: rng, words: words, langs: langs, corpus: rep.corpusPaths, search: rep.hasSearch}
		next := func(seq int) op {
			if rng.Float64() < c.writeRatio {
				return w.write(seq)
			}
			return w.read()
		}
		wg.Go(func() {
			if mode == "closed" {
				for seq := 0; time.Now().Before(deadline) && ctx.Err() == nil; seq++ {
					next(seq)(ctx, time.Now())
				}
				return
			}
			// The arrivals have their own random stream, so the schedule
			// depends on the seed alone, not on the operations drawn.
			arrivals := mrand.New(mrand.NewPCG(uint64(c.seed), uint64(id)|1<<32))
			ps := openLoop(ctx, arrivals, c.rate, start, deadline, c.maxInFlight, next)
			paceMu.Lock()
			pace.add(ps)
			paceMu.Unlock()
		})
	}
	wg.Wait()
	run.elapsed = time.Since(start)
	run.serverCPU = cpuSeconds(pid) - cpu0
	profiles.Wait()
	sort.Slice(pace.lags, func(i, j int) bool { return pace.lags[i] < pace.lags[j] })
	run.pace = pace
	run.stats = rep.snapshotStats()
	run.peakMiB = peakRSS(pid)
	run.loadAfter = loadavg.Read()
	for _, mc := range mcs {
		mc.c.Close()
	}
	t1 := time.Now()
	if err := p.stop(60 * time.Second); err != nil {
		return err
	}
	run.shutdown = time.Since(t1)
	p.mu.Lock()
	run.serverErrors = p.errs
	rep.serverErrors += p.errs
	p.mu.Unlock()
	return nil
}

// op is one operation of a client: one call, or for a page update a
// read_page and the write_page that follows it. intended is when the
// operation was due; its first call's latency is measured from there.
type op func(ctx context.Context, intended time.Time)

// openLoop runs one client's open-loop schedule from start until deadline:
// intended start times with exponential gaps of mean 1/rate seconds
// (Poisson arrivals, drawn from arrivals), each the start of next(seq). An
// operation is started at its intended time whatever the earlier ones are
// doing, up to maxInFlight at once; when that many are in flight it waits
// for one to finish and counts as late, as do the operations that fell due
// during that wait. The operation measures its latency from its intended
// start, so a server that falls behind is charged for the wait (no
// coordinated omission; Gil Tene, "How NOT to Measure Latency", and wrk2).
//
// The run is bounded: no operation starts after deadline. Those due before
// it that never started (the client still waiting for a slot) are counted
// in due but not in started; their latency would have been at least the
// time from when they were due to the deadline. It returns when every
// started operation has finished.
func openLoop(ctx context.Context, arrivals *mrand.Rand, rate float64, start, deadline time.Time, maxInFlight int, next func(seq int) op) paceStats {
	var ps paceStats
	slots := make(chan struct{}, max(maxInFlight, 1))
	var calls sync.WaitGroup
	defer calls.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	intended := start
	gap := func() time.Duration { return time.Duration(arrivals.ExpFloat64() / rate * float64(time.Second)) }
	// dropAll counts the operations due from intended to the deadline as
	// due and never started.
	dropAll := func() paceStats {
		for ; intended.Before(deadline); intended = intended.Add(gap()) {
			ps.due++
		}
		return ps
	}
	var freed time.Time // when the last wait for a free slot ended
	for seq := 0; ; seq++ {
		intended = intended.Add(gap())
		if !intended.Before(deadline) {
			return ps
		}
		if d := time.Until(intended); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return dropAll()
			}
		}
		o := next(seq)
		// Late: no free slot now, or it fell due while the loop waited
		// for one for an earlier call.
		late := intended.Before(freed)
		select {
		case slots <- struct{}{}:
		default:
			late = true
			timer.Reset(time.Until(deadline))
			select {
			case slots <- struct{}{}:
				timer.Stop()
				freed = time.Now()
				if !freed.Before(deadline) { // no start after the deadline
					<-slots
					return dropAll()
				}
			case <-timer.C:
				return dropAll()
			case <-ctx.Done():
				return dropAll()
			}
		}
		if late {
			ps.late++
		}
		ps.due++
		ps.started++
		ps.lags = append(ps.lags, time.Since(intended))
		at := intended
		calls.Go(func() {
			defer func() { <-slots }()
			o(ctx, at)
		})
	}
}

// paceStats is how well one open-loop client kept its schedule.
type paceStats struct {
	due     int             // operations due before the deadline
	started int             // of them, started (the others: the client was still behind at the deadline)
	late    int             // of the started, started late: maxInFlight were in flight when due
	lags    []time.Duration // per started operation, its send time minus its intended start
}

func (p *paceStats) add(q paceStats) {
	p.due += q.due
	p.started += q.started
	p.late += q.late
	p.lags = append(p.lags, q.lags...)
}

// worker is one client's operation mix. Its methods draw from rng, so one
// goroutine draws; the operations they return may run concurrently.
type worker struct {
	mc     *mcpClient
	id     int
	rng    *mrand.Rand
	words  []string
	langs  []string
	corpus []string
	search bool
}

// read draws a read operation.
func (w *worker) read() op {
	n := 2
	if w.search {
		n = 3
	}
	var tool string
	var args map[string]any
	switch w.rng.IntN(n) {
	case 0:
		tool, args = "read_page", map[string]any{"path": w.corpus[w.rng.IntN(len(w.corpus))]}
	case 1:
		tool, args = "list_pages", map[string]any{"limit": 50}
		if w.rng.IntN(4) > 0 {
			args["prefix"] = w.langs[w.rng.IntN(len(w.langs))]
		}
	default:
		q := w.words[w.rng.IntN(len(w.words))]
		if w.rng.IntN(2) == 0 {
			q += " " + w.words[w.rng.IntN(len(w.words))]
		}
		tool, args = "search_wiki", map[string]any{"query": q, "limit": 10}
	}
	return func(ctx context.Context, intended time.Time) { w.mc.callAt(ctx, intended, tool, args, nil) }
}

// write draws a write operation: append_log, a page update (read_page,
// then write_page with its sha256 as base_sha256) or research_save. A page
// update's write_page can only be sent once its read_page has answered, so
// its latency is measured from its own send.
func (w *worker) write(seq int) op {
	marker := fmt.Sprintf("c%02d-n%05d-%s", w.id, seq, nonce())
	led := w.mc.rep.led
	switch w.rng.IntN(3) {
	case 0:
		title := "load " + marker
		args := map[string]any{"op": "note", "title": title, "details": "- by client " + fmt.Sprint(w.id)}
		return func(ctx context.Context, intended time.Time) {
			led.logResult(title, w.mc.callAt(ctx, intended, "append_log", args, nil))
		}
	case 1:
		slug := fmt.Sprintf("load-page-%02d", w.rng.IntN(loadPages))
		title := fmt.Sprintf("Load page %s", strings.TrimPrefix(slug, "load-page-"))
		body := fmt.Sprintf("# %s\n\nmarker %s\n\n%s\n", title, marker, strings.Repeat("Written under load. ", 1+w.rng.IntN(40)))
		return func(ctx context.Context, intended time.Time) {
			rd := w.mc.callAt(ctx, intended, "read_page", map[string]any{"page": slug}, nil)
			if !rd.ok() {
				return
			}
			base := str(rd.out, "sha256")
			r := w.mc.call(ctx, "write_page", map[string]any{"title": title, "slug": slug, "content": body, "base_sha256": base}, nil)
			led.pageResult("pages/"+slug+".md", base, marker, r)
		}
	default:
		topic := fmt.Sprintf("load topic %d", w.rng.IntN(researchTopics))
		content := fmt.Sprintf("marker %s\n\n%s\n", marker, strings.Repeat("Found under load. ", 1+w.rng.IntN(20)))
		args := map[string]any{"topic": topic, "content": content, "urls": []string{"https://example.org/" + marker}}
		return func(ctx context.Context, intended time.Time) {
			led.researchResult(marker, w.mc.callAt(ctx, intended, "research_save", args, nil))
		}
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

// warmth is what the warm-up before a phase took.
type warmth struct {
	first time.Duration // the first read_page, search_wiki and list_pages
	quiet time.Duration // then until the server's CPU was quiet
}

// Warm-up bounds: the server counts as quiet once it used less than
// quietCPU seconds of CPU in a quietWindow, and the wait ends after
// quietMax whatever it does.
const (
	quietWindow = 500 * time.Millisecond
	quietCPU    = 0.05
	quietMax    = 120 * time.Second
)

// warmUp makes the first call of each read tool on a fresh server (the
// link graph's first walk, the search index's open) and then waits until
// the server's background work (bleve merging the segments a build left,
// the first walks) has settled, so that a phase measures a server at work,
// not one starting: the cost of a start is a figure of its own (issue 3's
// start to first answer, cold start). The calls are answered and audited
// like any other, but counted in no phase's figures.
func warmUp(ctx context.Context, mc *mcpClient, rep *report, pid int) warmth {
	var w warmth
	t0 := time.Now()
	if len(rep.corpusPaths) > 0 {
		mc.call(ctx, "read_page", map[string]any{"path": rep.corpusPaths[0]}, nil)
	}
	if rep.hasSearch {
		mc.call(ctx, "search_wiki", map[string]any{"query": "obsidian"}, nil)
	}
	mc.call(ctx, "list_pages", map[string]any{"limit": 10}, nil)
	w.first = time.Since(t0)
	t1 := time.Now()
	for time.Since(t1) < quietMax && ctx.Err() == nil {
		c0 := cpuSeconds(pid)
		time.Sleep(quietWindow)
		if cpuSeconds(pid)-c0 < quietCPU {
			break
		}
	}
	w.quiet = time.Since(t1)
	return w
}
