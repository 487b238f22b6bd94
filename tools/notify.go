package tools

import (
	"context"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Notifier delivers one notification to the client of the session in ctx.
// A transport that can put notifications in order with its responses (the
// legacy SSE server's event queue) installs one with [WithNotifier];
// otherwise notifications go through mcp-go's session channel.
type Notifier func(ctx context.Context, n mcp.JSONRPCNotification) error

type notifierKey struct{}

// WithNotifier returns ctx whose tool calls send their progress and log
// notifications through n (falling back to the session channel when n
// fails).
func WithNotifier(ctx context.Context, n Notifier) context.Context {
	return context.WithValue(ctx, notifierKey{}, n)
}

// notify sends a notification to the session in ctx.
func notify(ctx context.Context, method string, params map[string]any) error {
	if n, ok := ctx.Value(notifierKey{}).(Notifier); ok && n != nil {
		err := n(ctx, mcp.JSONRPCNotification{
			JSONRPC:      mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}},
		})
		if err == nil {
			return nil
		}
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return server.ErrNotificationNotInitialized
	}
	return srv.SendNotificationToClient(ctx, method, params)
}

// settle waits (at most 250 ms) until the session's notification queue is
// empty, and 20 ms more, so that notifications a call sent reach the client
// before its response: mcp-go moves queued notifications to the client on
// another goroutine, and a client drops progress that comes after the
// response (the TypeScript SDK even drops progress read in the same chunk
// as the response). A transport with a [Notifier] (legacy SSE, and
// streamable HTTP's POST stream in cmd/llmwiki) writes in order and leaves
// the queue empty. Without one, over streamable HTTP mcp-go v1.2.1's forwarder drops
// the notification it has taken off the queue but not yet written when the
// response goes out (mark3labs/mcp-go#969, open), so the wait after the
// queue empties gives the forwarder time to write it: 20 ms narrows the
// window but cannot close it on a very busy machine, where the last
// progress of a call can still be lost over streamable HTTP. Only calls
// that sent progress wait.
func settle(ctx context.Context) {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return
	}
	ch := sess.NotificationChannel()
	for deadline := time.Now().Add(250 * time.Millisecond); len(ch) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
}

// progressInterval is the shortest time between two progress notifications
// for one call.
const progressInterval = 100 * time.Millisecond

// withProgress returns ctx with a [wiki.ProgressFunc] that forwards the
// store's progress reports as MCP notifications/progress, when the client
// sent a progress token with the request (params._meta.progressToken), and
// finish, to call when the work is done: it sends the last report and
// reports whether any notification went out. All of a call's notifications
// go through one [progressReporter], which keeps the specification's rules
// and what a client needs to draw a bar.
func withProgress(ctx context.Context, req mcp.CallToolRequest) (_ context.Context, finish func() bool) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || server.ClientSessionFromContext(ctx) == nil {
		return ctx, func() bool { return false }
	}
	r := &progressReporter{token: req.Params.Meta.ProgressToken, send: func(params map[string]any) error {
		return notify(ctx, string(mcp.MethodNotificationProgress), params)
	}}
	return wiki.WithProgress(ctx, r.report), r.finish
}

// progressReporter sends the progress notifications of one call, in order
// and under one lock: progress strictly increases, never exceeds the total,
// and the total is sent once, with the last notification, when the call is
// done. A call may report several phases (a page scan, then the render),
// so no phase's total is the call's: until the end, notifications carry
// progress and a message but no total, and a bar never fills twice.
// Reports are throttled to one per progressInterval; the newest counted
// report is held back so that the final one, sent by finish with the
// total, is new (a heartbeat with no total is sent at once).
type progressReporter struct {
	token mcp.ProgressToken
	send  func(params map[string]any) error

	mu      sync.Mutex
	seq     progressSeq
	lastAt  time.Time
	pending map[string]any // the newest report, not sent yet
	last    float64        // the last progress sent
	sentAny bool
	done    bool // finish was called: later reports are dropped
}

func (r *progressReporter) report(done, total int, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	p, t, ok := r.seq.next(done, total)
	if !ok {
		return
	}
	r.seq.sent(p, t)
	if r.pending != nil && time.Since(r.lastAt) >= progressInterval {
		r.flush(false)
	}
	r.pending = map[string]any{"progressToken": r.token, "progress": p}
	if message != "" {
		r.pending["message"] = message
	}
	if total <= 0 && time.Since(r.lastAt) >= progressInterval {
		// A heartbeat with no total (waiting on a model) goes out now: a
		// client resets its request timeout on it.
		r.flush(false)
	}
}

// flush sends the pending report, with its progress as the total when
// final. Called with r.mu held.
func (r *progressReporter) flush(final bool) {
	params := r.pending
	r.pending = nil
	p := params["progress"].(float64)
	if r.sentAny && p <= r.last {
		return
	}
	if final {
		params["total"] = p
	}
	if err := r.send(params); err == nil {
		r.last, r.lastAt, r.sentAny = p, time.Now(), true
	}
}

// finish sends the held-back last report with its total and reports whether
// any notification went out.
func (r *progressReporter) finish() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	if r.pending != nil {
		r.flush(true)
	}
	return r.sentAny
}

// progressSeq turns the reports of one call, which may come in phases that
// each count from the start (hashed 1, 2, … 40 sources; then waiting for the
// model 1, 2, …), into one strictly increasing progress value. A phase ends
// with its final report (done ≥ total > 0) or when done goes down; the next
// phase is numbered on from the last value sent (its total too). A report
// that repeats the current phase's last value is dropped.
type progressSeq struct {
	offset  float64 // added to the current phase's values
	raw     int     // the current phase's last done
	last    float64 // the last value sent
	sentAny bool
	ended   bool // the current phase's final report was sent
	started bool
}

// next returns the progress and total (0: unknown) to send for a report, or
// ok=false to drop it. Call sent when it went out.
func (q *progressSeq) next(done, total int) (p, t float64, ok bool) {
	if q.started && (q.ended || done < q.raw) {
		q.offset, q.ended = q.last, false
	}
	q.started, q.raw = true, done
	p = q.offset + float64(done)
	if q.sentAny && p <= q.last {
		return 0, 0, false
	}
	if total > 0 {
		t = q.offset + float64(total)
	}
	return p, t, true
}

// sent records that p (of total t) went out.
func (q *progressSeq) sent(p, t float64) {
	q.last, q.sentAny = p, true
	q.ended = t > 0 && p >= t
}

// logCall sends one MCP log message (notifications/message, logger
// "llmwiki") about a finished tool call to the session that made it, if the
// session asked for that level with logging/setLevel: "error" for internal
// failures, "warning" for calls with warnings, "notice" for other failed
// calls, "info" for writes and "debug" for reads. It reports whether a
// message was sent.
func logCall(ctx context.Context, call *store.Call, readOnly bool) bool {
	sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithLogging)
	if !ok || !sess.Initialized() {
		return false
	}
	rec := call.Record()
	writes := make([]string, 0, len(rec.Writes))
	for _, w := range rec.Writes {
		writes = append(writes, w.Path)
	}
	warnings := rec.Warnings
	level := mcp.LoggingLevelDebug
	switch {
	case rec.Code == store.CodeInternal:
		level = mcp.LoggingLevelError
	case len(warnings) > 0:
		level = mcp.LoggingLevelWarning
	case rec.Outcome == "error":
		level = mcp.LoggingLevelNotice
	case !readOnly:
		level = mcp.LoggingLevelInfo
	}
	if !level.ShouldSendTo(sess.GetLogLevel()) {
		return false
	}
	data := map[string]any{
		"tool":        rec.Tool,
		"outcome":     rec.Outcome,
		"duration_ms": rec.DurationMS,
	}
	if rec.Code != "" {
		data["code"] = rec.Code
		data["error"] = rec.Error
	}
	if len(writes) > 0 {
		data["writes"] = writes
	}
	if len(warnings) > 0 {
		data["warnings"] = warnings
	}
	return notify(ctx, string(mcp.MethodNotificationMessage), map[string]any{"level": level, "logger": "llmwiki", "data": data}) == nil
}
