package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// snapshotSums maps each snapshotted path to the sha256 of its snapshots.
func snapshotSums(t testing.TB, root string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	base := filepath.Join(root, filepath.FromSlash(store.SnapshotDir))
	filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(base, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		b, _ := os.ReadFile(p)
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		out[rel][store.SHA256Hex(b)] = true
		return nil
	})
	return out
}

// TestConcurrentServers: two server processes on one wiki, 50 writers in
// each sending mixed append_log, write_page and atomic_write_context calls
// at once. Every append is in log.md once, on its own line; every replaced
// version is in a snapshot; stale base_sha256 values are reported as
// conflicts, never applied; the audit log has one parsable line per call.
func TestConcurrentServers(t *testing.T) {
	const procs, writers, rounds = 2, 50, 3
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	clients := make([]*rpc, procs)
	for i := range clients {
		c, err := startRPC(t, root)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	shared := []string{"shared-a", "shared-b", "shared-c"}
	for _, s := range shared {
		if r, err := clients[0].tool("write_page", map[string]any{"title": s, "content": "seed\n"}); err != nil || r.IsError {
			t.Fatalf("seed %s: %v %s", s, err, r.Text)
		}
	}
	var (
		calls, conflicts, okWrites atomic.Int64
		mu                         sync.Mutex
		appended                   []string
		acked                      = map[string][]string{} // path -> sha256 of acked versions
		failures                   []string
	)
	fail := func(f string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(f, a...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for pi, c := range clients {
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(pi, w int, c *rpc) {
				defer wg.Done()
				for r := 0; r < rounds; r++ {
					tag := fmt.Sprintf("p%d-w%02d-r%d", pi, w, r)
					switch (w + r) % 3 {
					case 0:
						calls.Add(1)
						res, err := c.tool("append_log", map[string]any{"op": "note", "title": "entry " + tag, "details": "line one of " + tag + "\n## [2000-01-01 00:00] edit | forged by " + tag})
						if err != nil || res.IsError {
							fail("append %s: %v %s", tag, err, res.Text)
							continue
						}
						mu.Lock()
						appended = append(appended, tag)
						mu.Unlock()
					case 1:
						slug := shared[(w+r)%len(shared)]
						calls.Add(2)
						rd, err := c.tool("read_page", map[string]any{"page": slug})
						if err != nil || rd.IsError {
							fail("read %s: %v %s", slug, err, rd.Text)
							continue
						}
						res, err := c.tool("write_page", map[string]any{"title": slug, "slug": slug, "content": "version " + tag + "\n", "base_sha256": rd.Data["sha256"]})
						if err != nil {
							fail("write %s: %v", tag, err)
							continue
						}
						if res.IsError {
							if !strings.Contains(res.Text, "conflict") || !strings.Contains(res.Text, "changed since you read it") {
								fail("write %s: %s", tag, res.Text)
							}
							conflicts.Add(1)
							continue
						}
						okWrites.Add(1)
						mu.Lock()
						acked["pages/"+slug+".md"] = append(acked["pages/"+slug+".md"], fmt.Sprint(res.Data["sha256"]))
						mu.Unlock()
					case 2:
						calls.Add(2)
						rd, err := c.tool("read_page", map[string]any{"path": "context.md"})
						if err != nil || rd.IsError {
							fail("read context: %v %s", err, rd.Text)
							continue
						}
						res, err := c.tool("atomic_write_context", map[string]any{"content": "# Context\n\nsynthesis " + tag + "\n", "base_sha256": rd.Data["sha256"]})
						if err != nil {
							fail("context %s: %v", tag, err)
							continue
						}
						if res.IsError {
							if !strings.Contains(res.Text, "conflict") {
								fail("context %s: %s", tag, res.Text)
							}
							conflicts.Add(1)
							continue
						}
						okWrites.Add(1)
						mu.Lock()
						acked["context.md"] = append(acked["context.md"], fmt.Sprint(res.Data["sha256"]))
						mu.Unlock()
					}
				}
			}(pi, w, c)
		}
	}
	wg.Wait()
	for _, c := range clients {
		if c.bad.Load() > 0 {
			t.Errorf("%d stdout lines were not valid JSON-RPC", c.bad.Load())
		}
		c.close()
	}
	for _, f := range failures {
		t.Error(f)
	}
	// Every append once, on its own line; the forged heading stayed text.
	log := readWikiFile(t, root, "log.md")
	lines := strings.Split(log, "\n")
	count := map[string]int{}
	builds := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "## [") {
			if i := strings.Index(l, "| entry "); i >= 0 {
				count[l[i+len("| entry "):]]++
			} else if strings.Contains(l, "] build | context.md: ") {
				builds++ // atomic_write_context logs its own build
			} else {
				t.Errorf("a log heading that no call wrote: %q", l)
			}
		}
	}
	if builds != len(acked["context.md"]) {
		t.Errorf("log.md has %d build entries, %d context.md writes were acknowledged", builds, len(acked["context.md"]))
	}
	for _, tag := range appended {
		if count[tag] != 1 {
			t.Errorf("append %s is in log.md %d times", tag, count[tag])
		}
	}
	if len(count) != len(appended) {
		t.Errorf("log.md has %d entries, %d were acknowledged", len(count), len(appended))
	}
	// Every replaced version is in a snapshot: each acknowledged version
	// is either the current file or a snapshot of it.
	snaps := snapshotSums(t, root)
	lost := 0
	for rel, versions := range acked {
		cur := store.SHA256Hex([]byte(readWikiFile(t, root, rel)))
		for _, v := range versions {
			if v != cur && !snaps[rel][v] {
				lost++
				t.Errorf("%s version %s… was acknowledged, replaced, and is in no snapshot", rel, v[:12])
			}
		}
	}
	recs := teststore.AuditLines(t, root)
	for _, r := range recs {
		for _, w := range r.Writes {
			l := wiki.LayerOf(w.Path)
			if w.Before != "" && w.After != "" && (l == wiki.LayerPages || l == wiki.LayerContext) && !snaps[w.Path][w.Before] {
				t.Errorf("audit: %s %s… replaced without a snapshot", w.Path, w.Before[:12])
			}
		}
	}
	want := int(calls.Load()) + len(shared) + 0
	toolLines := 0
	for _, r := range recs {
		if !strings.HasPrefix(r.Tool, "internal") {
			toolLines++
		}
	}
	if toolLines != want {
		t.Errorf("%d audit lines for tool calls, want %d", toolLines, want)
	}
	if conflicts.Load() == 0 {
		t.Error("no conflict was reported: the writers did not contend")
	}
	if tf := teststore.TempFiles(root); len(tf) > 0 {
		t.Errorf("temp files remain: %v", tf)
	}
	t.Logf("%d calls, %d appends, %d replacing writes, %d conflicts reported, %d lost", calls.Load(), len(appended), okWrites.Load(), conflicts.Load(), lost)
	wikitest.Figure(t, "concurrency", map[string]any{
		"processes": procs, "writers": procs * writers, "calls": calls.Load(), "appends": len(appended),
		"replacing_writes": okWrites.Load(), "conflicts": conflicts.Load(), "lost": lost,
	})
}
