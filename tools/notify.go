package tools

import (
	"context"
	"sync"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
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

// settle waits (at most 100 ms) until the session's notification queue is
// empty, and 5 ms more, so that notifications a call sent reach the client
// before its response: mcp-go moves queued notifications to the client on
// another goroutine, and a client drops progress that comes after the
// response (the TypeScript SDK even drops progress read in the same chunk
// as the response).
func settle(ctx context.Context) {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return
	}
	ch := sess.NotificationChannel()
	for deadline := time.Now().Add(100 * time.Millisecond); len(ch) > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(5 * time.Millisecond)
}

// progressInterval is the shortest time between two progress notifications
// for one call; the final report (done == total) is always sent.
const progressInterval = 100 * time.Millisecond

// withProgress returns ctx with a [wiki.ProgressFunc] that forwards the
// store's progress reports as MCP notifications/progress, when the client
// sent a progress token with the request (params._meta.progressToken).
// Reports are throttled to one per progressInterval and only sent when
// progress increases, as the specification requires. sent reports whether
// any notification went out.
func withProgress(ctx context.Context, req mcp.CallToolRequest) (_ context.Context, sent func() bool) {
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || server.ClientSessionFromContext(ctx) == nil {
		return ctx, func() bool { return false }
	}
	token := req.Params.Meta.ProgressToken
	var mu sync.Mutex
	var last float64
	var lastAt time.Time
	sentAny := false
	fn := func(done, total int, message string) {
		mu.Lock()
		defer mu.Unlock()
		p := float64(done)
		if sentAny && p <= last {
			return
		}
		final := total > 0 && done >= total
		if !final && time.Since(lastAt) < progressInterval {
			return
		}
		params := map[string]any{"progressToken": token, "progress": p}
		if total > 0 {
			params["total"] = float64(total)
		}
		if message != "" {
			params["message"] = message
		}
		if err := notify(ctx, string(mcp.MethodNotificationProgress), params); err == nil {
			last, lastAt, sentAny = p, time.Now(), true
		}
	}
	return wiki.WithProgress(ctx, fn), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return sentAny
	}
}

// logCall sends one MCP log message (notifications/message, logger
// "llmwiki") about a finished tool call to the session that made it, if the
// session asked for that level with logging/setLevel: "error" for internal
// failures, "warning" for calls with warnings, "notice" for other failed
// calls, "info" for writes and "debug" for reads. It reports whether a
// message was sent.
func logCall(ctx context.Context, call *wiki.Call, readOnly bool) bool {
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
	case rec.Code == wiki.CodeInternal:
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
