package httpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestPostStreamOrdersNotificationsBeforeResponse: notifications written
// through a POST's stream turn a JSON answer into an event stream whose
// last event is the answer; with none, the JSON answer goes out untouched.
func TestPostStreamOrdersNotificationsBeforeResponse(t *testing.T) {
	progress := func(p int) mcp.JSONRPCNotification {
		return mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/progress",
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"progressToken": "t", "progress": p}}}}
	}
	answer := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for _, tc := range []struct {
		name   string
		notes  int
		ctype  string
		events []string
	}{
		{"json untouched", 0, "application/json", nil},
		{"notifications then answer", 3, "text/event-stream", []string{
			`"progress":1`, `"progress":2`, `"progress":3`, `"id":1`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := withPostStreams(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ctx := postStreamNotifier(context.Background(), r)
				ps := r.Context().Value(postStreamKey{}).(*postStream)
				for i := 1; i <= tc.notes; i++ {
					if err := ps.notify(ctx, progress(i)); err != nil {
						t.Fatal(err)
					}
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				w.Write([]byte(answer + "\n"))
				ps.notify(ctx, progress(99)) // after the answer: dropped
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}")))
			if got := rec.Header().Get("Content-Type"); got != tc.ctype {
				t.Fatalf("Content-Type %q, want %q", got, tc.ctype)
			}
			body := rec.Body.String()
			if tc.events == nil {
				if strings.TrimSpace(body) != answer {
					t.Fatalf("body %q, want %q", body, answer)
				}
				return
			}
			parts := strings.Split(strings.TrimSpace(body), "\n\n")
			if len(parts) != len(tc.events) {
				t.Fatalf("%d events, want %d:\n%s", len(parts), len(tc.events), body)
			}
			for i, p := range parts {
				if !strings.HasPrefix(p, "event: message\ndata: ") || !strings.Contains(p, tc.events[i]) {
					t.Errorf("event %d %q, want one holding %s", i, p, tc.events[i])
				}
			}
		})
	}
}
