package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// Environment for the long crash run (.ci/run sets them; the default test
// run does a short one).
const (
	crashWritesEnv = "LLMWIKI_CRASH_WRITES" // writes to attempt (default 120)
	crashKillsEnv  = "LLMWIKI_CRASH_KILLS"  // SIGKILLs to deliver (default 8)
	crashSeedEnv   = "LLMWIKI_CRASH_SEED"   // random seed (default 1)
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// crashModel is what the driver knows of the wiki: every version it sent
// (attempted) and every version the server acknowledged.
type crashModel struct {
	mu sync.Mutex
	// bodies[rel] holds every body ever sent for a tracked file, plus the
	// first one; the file must always hold one of them.
	bodies map[string]map[string]bool
	// versions[rel] holds sha256 of acknowledged versions and of versions
	// seen on disk after a restart: each must stay the file or be in a
	// snapshot.
	versions map[string]map[string]bool
	cur      map[string]string // rel -> sha256 last known
	// log entries and research sections: tag -> acknowledged?
	appends, research map[string]bool
	// sources: path -> content; acked[path] when acknowledged.
	sources      map[string]string
	sourcesAcked map[string]bool
	created      map[string]bool   // pages created and acknowledged
	newPages     map[string]string // pages asked to be created: path -> body
}

func newCrashModel() *crashModel {
	return &crashModel{
		bodies: map[string]map[string]bool{}, versions: map[string]map[string]bool{}, cur: map[string]string{},
		appends: map[string]bool{}, research: map[string]bool{}, sources: map[string]string{}, sourcesAcked: map[string]bool{}, created: map[string]bool{}, newPages: map[string]string{},
	}
}

func (m *crashModel) addBody(rel, body string) {
	if m.bodies[rel] == nil {
		m.bodies[rel] = map[string]bool{}
	}
	m.bodies[rel][body] = true
}

func (m *crashModel) addVersion(rel, sha string) {
	if m.versions[rel] == nil {
		m.versions[rel] = map[string]bool{}
	}
	m.versions[rel][sha] = true
	m.cur[rel] = sha
}

// crashStats are the figures of a crash run.
type crashStats struct {
	attempted, acked, kills, restarts, inFlightAtKill int
	journals, tornLines, tempRepairs                  int
	lost                                              int
}

// TestCrashKill kills the server with SIGKILL at random moments while it
// writes (mixed write_page, atomic_write_context, append_log,
// research_save, save_source), restarts it, and checks after each restart:
// every file parses; context.md and each page hold a version that was
// written; every acknowledged or observed version that was replaced is in
// a snapshot; every acknowledged append is present once; audit lines parse
// (a torn last line repaired on start); no temp file or journal remains.
// The default run is short; .ci/run runs 1,000 writes and 50 kills.
func TestCrashKill(t *testing.T) {
	writes := envInt(crashWritesEnv, 120)
	kills := envInt(crashKillsEnv, 8)
	seed := envInt(crashSeedEnv, 1)
	if kills >= writes {
		t.Fatalf("%d kills need more than %d writes", kills, writes)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	m := newCrashModel()
	var st crashStats

	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"p-0", "p-1", "p-2", "p-3"}
	for _, p := range pages {
		body := "first version of " + p + "\n"
		r, err := c.tool("write_page", map[string]any{"title": p, "slug": p, "content": body})
		if err != nil || r.IsError {
			t.Fatalf("seed: %v %s", err, r.Text)
		}
		m.addBody("pages/"+p+".md", body)
		m.addVersion("pages/"+p+".md", fmt.Sprint(r.Data["sha256"]))
	}
	ctxBody := "# Context\n\nfirst synthesis\n"
	r, err := c.tool("atomic_write_context", map[string]any{"content": ctxBody})
	if err != nil || r.IsError {
		t.Fatalf("seed context: %v %s", err, r.Text)
	}
	m.addBody("context.md", ctxBody)
	m.addVersion("context.md", fmt.Sprint(r.Data["sha256"]))

	// Kill points: distinct write numbers.
	killAt := map[int]bool{}
	for len(killAt) < kills {
		killAt[1+rng.IntN(writes-10)] = true // room at the end for kills carried over
	}
	if kills*5 > writes {
		t.Fatalf("%d kills in %d writes leaves too few writes between kills", kills, writes)
	}
	var latencies []time.Duration
	median := func() time.Duration {
		if len(latencies) == 0 {
			return 5 * time.Millisecond
		}
		s := append([]time.Duration(nil), latencies...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}

	// one sends write number i and records what the model needs.
	one := func(c *rpc, i int, concurrent bool) (ok bool) {
		tag := fmt.Sprintf("w%04d", i)
		m.mu.Lock()
		var name string
		var args map[string]any
		var rel, body string
		switch k := rng.IntN(100); {
		case k < 30:
			p := pages[rng.IntN(len(pages))]
			rel, body = "pages/"+p+".md", "version "+tag+" of "+p+"\n\n"+strings.Repeat("text "+tag+" ", 1+rng.IntN(200))+"\n"
			name, args = "write_page", map[string]any{"title": p, "slug": p, "content": body, "base_sha256": m.cur[rel]}
		case k < 50:
			rel, body = "context.md", "# Context\n\nsynthesis "+tag+"\n\n"+strings.Repeat("- point "+tag+"\n", 1+rng.IntN(100))
			name, args = "atomic_write_context", map[string]any{"content": body, "base_sha256": m.cur[rel]}
		case k < 75:
			name, args = "append_log", map[string]any{"op": "note", "title": "entry " + tag, "details": "details of " + tag}
			m.appends[tag] = false
		case k < 85:
			name, args = "research_save", map[string]any{"topic": "crash notes", "content": "finding " + tag}
			m.research[tag] = false
		case k < 95:
			rel = "sources/crash/" + tag + ".md"
			body = strings.Repeat("raw source "+tag+"\n", 1+rng.IntN(300))
			name, args = "save_source", map[string]any{"path": rel, "content": body}
			m.sources[rel] = body
		default:
			rel, body = "pages/new-"+tag+".md", "created by "+tag+"\n"
			name, args = "write_page", map[string]any{"title": "new " + tag, "content": body}
		}
		if strings.HasPrefix(rel, "pages/new-") {
			m.newPages[rel] = body
		} else if rel != "" && (name == "write_page" || name == "atomic_write_context") {
			m.addBody(rel, body)
		}
		st.attempted++
		m.mu.Unlock()
		start := time.Now()
		r, err := c.tool(name, args)
		if err != nil {
			return false // killed before it answered
		}
		if r.IsError {
			// Writes sent together with the same base_sha256: all but one
			// are conflicts, as they must be.
			if !concurrent || !strings.HasPrefix(r.Text, "conflict:") {
				t.Errorf("write %s (%s) failed: %s", tag, name, r.Text)
			}
			return true
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		latencies = append(latencies, time.Since(start))
		st.acked++
		switch name {
		case "write_page":
			if strings.HasPrefix(rel, "pages/new-") {
				m.created[rel] = true
			} else {
				m.addVersion(rel, fmt.Sprint(r.Data["sha256"]))
			}
		case "atomic_write_context":
			m.addVersion(rel, fmt.Sprint(r.Data["sha256"]))
		case "append_log":
			m.appends[tag] = true
		case "research_save":
			m.research[tag] = true
		case "save_source":
			m.sourcesAcked[rel] = true
		}
		return true
	}

	carry := 0 // kill points skipped over by a batch: kill at the next write
	for i := 1; i <= writes; i++ {
		if !killAt[i] && (carry == 0 || i == writes) {
			one(c, i, false)
			continue
		}
		if !killAt[i] {
			carry--
		}
		// Send this write and up to three more at once, then kill the
		// server at a random moment within about two write times.
		extra := rng.IntN(4)
		var wg sync.WaitGroup
		m.mu.Lock()
		delay := time.Duration(rng.Int64N(int64(2*median()) + 1))
		m.mu.Unlock()
		for j := 0; j <= extra && i+j <= writes; j++ {
			wg.Add(1)
			go func(n int) {
				defer wg.Done()
				one(c, n, true)
			}(i + j)
		}
		time.Sleep(delay)
		c.kill()
		wg.Wait()
		st.kills++
		st.inFlightAtKill += extra + 1
		for j := 1; j <= extra; j++ {
			if killAt[i+j] {
				carry++
			}
		}
		i += extra
		c, err = startRPC(t, root)
		if err != nil {
			t.Fatalf("restart after kill %d: %v", st.kills, err)
		}
		st.restarts++
		crashCheck(t, c, root, m, &st)
		if t.Failed() {
			break
		}
	}
	if st.kills != kills {
		t.Errorf("%d kills delivered, %d planned", st.kills, kills)
	}
	if err := c.close(); err != nil {
		t.Logf("server exit: %v", err)
	}
	c, err = startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	crashCheck(t, c, root, m, &st)
	c.close()
	t.Logf("%d writes attempted, %d acknowledged, %d kills (%d writes in flight), %d restarts; repairs: %d interrupted writes completed, %d torn audit lines, %d temp-file clean-ups; writes lost: %d",
		st.attempted, st.acked, st.kills, st.inFlightAtKill, st.restarts, st.journals, st.tornLines, st.tempRepairs, st.lost)
	wikitest.Figure(t, "crash", map[string]any{
		"writes": st.attempted, "acknowledged": st.acked, "kills": st.kills, "restarts": st.restarts,
		"in_flight_at_kill": st.inFlightAtKill, "journals_completed": st.journals, "torn_audit_lines": st.tornLines,
		"lost": st.lost,
	})
}

// crashCheck checks the wiki after a restart (see TestCrashKill) and
// brings the model up to date with what is on disk.
func crashCheck(t *testing.T, c *rpc, root string, m *crashModel, st *crashStats) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(store.JournalFile))); err == nil {
		t.Error("the journal remains after a restart")
	}
	// Every markdown file parses.
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".llmwiki" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") && !store.IsTempName(p) {
			data, _ := os.ReadFile(p)
			if _, err := mdoc.ParseDoc(p, data); err != nil {
				t.Errorf("%s does not parse: %v", p, err)
			}
		}
		return nil
	})
	// Tracked files hold a version that was written; versions seen become
	// versions that must be snapshotted when replaced.
	for rel, bodies := range m.bodies {
		r, err := c.tool("read_page", map[string]any{"path": rel, "max_chars": 400000})
		if err != nil || r.IsError {
			t.Errorf("read %s after restart: %v %s", rel, err, r.Text)
			continue
		}
		body := fmt.Sprint(r.Data["content"])
		if !bodies[body] {
			t.Errorf("%s holds a body that was never written: %.200q", rel, body)
		}
		m.addVersion(rel, fmt.Sprint(r.Data["sha256"]))
	}
	snaps := snapshotSums(t, root)
	for rel, versions := range m.versions {
		for v := range versions {
			if v != m.cur[rel] && !snaps[rel][v] {
				st.lost++
				t.Errorf("%s version %.12s… was replaced and is in no snapshot", rel, v)
			}
		}
	}
	for rel, body := range m.newPages {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			if m.created[rel] {
				st.lost++
				t.Errorf("created page %s is gone", rel)
			}
			continue
		}
		if d, err := mdoc.ParseDoc(rel, data); err != nil || string(d.Body) != body {
			t.Errorf("new page %s holds something never written: %.200q", rel, data)
		}
	}
	// Appends: acknowledged ones once, the others at most once; each on
	// its own line.
	logText := readWikiFile(t, root, "log.md")
	for tag, acked := range m.appends {
		n := strings.Count(logText, "| entry "+tag+"\n")
		if n > 1 || (acked && n != 1) {
			if acked && n == 0 {
				st.lost++
			}
			t.Errorf("log entry %s (acknowledged %v) appears %d times", tag, acked, n)
		}
	}
	if strings.Contains(logText, "details of w") && strings.Count(logText, "\n## [") < strings.Count(logText, "details of w") {
		t.Error("a log entry lost its heading")
	}
	if data, err := os.ReadFile(filepath.Join(root, "sources", "research", "crash-notes.md")); err == nil {
		for tag, acked := range m.research {
			n := strings.Count(string(data), "finding "+tag+"\n")
			if n > 1 || (acked && n != 1) {
				if acked && n == 0 {
					st.lost++
				}
				t.Errorf("research section %s (acknowledged %v) appears %d times", tag, acked, n)
			}
		}
	}
	for rel, want := range m.sources {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		switch {
		case err != nil && m.sourcesAcked[rel]:
			st.lost++
			t.Errorf("acknowledged source %s is missing", rel)
		case err == nil && string(got) != want:
			t.Errorf("source %s holds %d bytes that were never written (want %d)", rel, len(got), len(want))
		}
	}
	// Audit lines parse: Open moved any torn last line aside.
	files, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	st.journals, st.tornLines, st.tempRepairs = 0, 0, 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		recs, bad := store.ParseAuditLines(data)
		if bad > 0 {
			t.Errorf("%s: %d audit lines do not parse after a restart", filepath.Base(f), bad)
		}
		for _, r := range recs {
			for _, w := range r.Warnings {
				switch {
				case strings.HasPrefix(w, "completed a write that a crash interrupted"):
					st.journals++
				case strings.Contains(w, "cut short by a crash"):
					st.tornLines++
				case strings.HasPrefix(w, "removed ") && strings.Contains(w, "temp file"):
					st.tempRepairs++
				}
			}
		}
	}
	// No temp files: the restarted server removes them in the background,
	// under the lock; give it time (30 s only bounds a hang: on a loaded
	// CI machine the background removal can take seconds to run).
	deadline := time.Now().Add(30 * time.Second)
	for {
		tf := teststore.TempFiles(root)
		if len(tf) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("temp files remain after a restart: %v", tf)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}
