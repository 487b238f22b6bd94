package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// noteLog collects the resource notifications a client receives.
type noteLog struct {
	mu  sync.Mutex
	got []string // "updated <uri>" or "list_changed"
}

func (l *noteLog) add(s string) {
	l.mu.Lock()
	l.got = append(l.got, s)
	l.mu.Unlock()
}

func (l *noteLog) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, g := range l.got {
		if g == s {
			n++
		}
	}
	return n
}

// waitFor polls until want has arrived at least n times; the 30 s limit
// only bounds a hang (a loaded CI machine can take seconds to run the
// watcher and the notification queue).
func (l *noteLog) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for l.count(want) < n {
		if time.Now().After(deadline) {
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no %q (%d wanted) within 30 s; got %v", want, n, l.got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Edits made outside llmwiki (as Obsidian or git would) send the
// notifications a write through llmwiki sends: resources/updated to a
// session subscribed to the changed page or static file, list_changed when
// a page comes or goes; a write through llmwiki is not notified again when
// the file watcher reports it (see the note at the end).
func TestResourceNotificationsForOutsideEdits(t *testing.T) {
	h := newHarnessVersion(t, "2025-06-18")
	if !h.store.WatchChanges().Live() {
		t.Skip("no file watcher on this system")
	}
	notes := &noteLog{}
	h.c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationResourceUpdated):
			uri, _ := n.Params.AdditionalFields["uri"].(string)
			notes.add("updated " + uri)
		case string(mcp.MethodNotificationResourcesListChanged):
			notes.add("list_changed")
		}
	})
	ctx := context.Background()
	page := filepath.Join(h.dir, "pages", "otter.md")
	if err := os.WriteFile(page, []byte("# Otter\n\nRiver mammal.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"wiki://pages/otter", "wiki://context.md"} {
		req := mcp.SubscribeRequest{}
		req.Params.URI = uri
		if err := h.c.Subscribe(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	// The first resources/list registers the pages (one list_changed).
	notes.waitFor(t, "list_changed", 1)
	time.Sleep(100 * time.Millisecond)
	base := notes.count("list_changed")

	// An outside edit of a subscribed page and of context.md.
	if err := os.WriteFile(page, []byte("# Otter\n\nRiver mammal; eats fish.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes.waitFor(t, "updated wiki://pages/otter", 1)
	ctxFile := filepath.Join(h.dir, "context.md")
	data, err := os.ReadFile(ctxFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ctxFile, append(data, "\nOne more line.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	notes.waitFor(t, "updated wiki://context.md", 1)

	// A page created outside, then removed: the list changes twice.
	extra := filepath.Join(h.dir, "pages", "beaver.md")
	if err := os.WriteFile(extra, []byte("# Beaver\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notes.waitFor(t, "list_changed", base+1)
	res, err := h.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Resources, func(r mcp.Resource) bool { return r.URI == "wiki://pages/beaver" }) {
		t.Errorf("the page made outside is not listed: %v", res.Resources)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	notes.waitFor(t, "list_changed", base+2)

	// A write through llmwiki: one updated, not a second from the watcher.
	time.Sleep(300 * time.Millisecond) // the outside edit's notifications are all in
	before := notes.count("updated wiki://pages/otter")
	r := h.ok("read_page", map[string]any{"path": "pages/otter.md"})
	h.ok("write_page", map[string]any{"title": "Otter", "content": "River mammal; eats fish and crabs.\n", "base_sha256": r["sha256"]})
	notes.waitFor(t, "updated wiki://pages/otter", before+1)
	time.Sleep(300 * time.Millisecond) // time for a duplicate to arrive, if one would
	// Normally once: the watcher's report of the write is recognised by its
	// content. On a machine so busy that the report is taken before the
	// write's own notification is made (50 ms later), a second one is sent.
	if n := notes.count("updated wiki://pages/otter") - before; n < 1 || n > 2 {
		t.Errorf("updated for the page %d times after one write through llmwiki, want 1", n)
	}
}
