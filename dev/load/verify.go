package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// ledger is what the clients were told: acknowledged, refused and
// unanswered writes, and how many calls the server answered.
type ledger struct {
	mu        sync.Mutex
	pages     []pageWrite    // acknowledged write_page calls
	conflicts []pageWrite    // refused with a conflict
	unknown   []string       // markers of writes with no answer (timeout, transport)
	unknownAt map[string]int // page -> writes with no answer
	logAcked  map[string]int
	logOther  map[string]bool // refused or unanswered append_log titles
	research  map[string]string
	resOther  map[string]bool
}

type pageWrite struct {
	path, base, after, marker string
}

func newLedger() *ledger {
	return &ledger{logAcked: map[string]int{}, logOther: map[string]bool{}, research: map[string]string{}, resOther: map[string]bool{}, unknownAt: map[string]int{}}
}

func (l *ledger) pageAcked(path, base, after, marker string) {
	l.mu.Lock()
	l.pages = append(l.pages, pageWrite{path, base, after, marker})
	l.mu.Unlock()
}

func (l *ledger) pageResult(path, base, marker string, r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.ok():
		l.pages = append(l.pages, pageWrite{path, base, str(r.out, "sha256"), marker})
	case r.errKind != "":
		l.unknown = append(l.unknown, marker)
		l.unknownAt[path]++
	default: // refused: conflict, lock wait, ...; never written
		l.conflicts = append(l.conflicts, pageWrite{path: path, base: base, marker: marker})
	}
}

func (l *ledger) logResult(title string, r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.ok() {
		l.logAcked[title]++
	} else {
		l.logOther[title] = r.errKind != "" // true: may or may not be there
	}
}

func (l *ledger) researchResult(marker string, r result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.ok() {
		l.research[marker] = str(r.out, "path")
	} else {
		l.resOther[marker] = r.errKind != ""
	}
}

// report gathers the figures and the checks.
type report struct {
	cfg         config
	led         *ledger
	corpus      map[string]string // page -> sha256 as copied
	corpusPaths []string
	hasSearch   bool

	statMu  sync.Mutex
	lat     map[string][]time.Duration
	errs    map[string]int // "tool: kind"
	calls   int            // answered calls, all phases
	noreply int            // calls without an answer, all phases

	setupIndex    time.Duration
	setupProgress int
	runs          []*httpRun // the HTTP load phases, in order
	stdioElapsed  time.Duration
	stdioStats    phaseStats
	serverErrors  int // ERROR lines on the servers' stderr, all HTTP servers

	checks []check
}

type phaseStats struct {
	tools   []stat
	errs    map[string]int
	total   int
	reads   int
	readP50 time.Duration
	readP99 time.Duration
}

type check struct {
	when, name string
	ok         bool
	detail     string
}

func (r *report) ok() bool {
	for _, c := range r.checks {
		if !c.ok {
			return false
		}
	}
	return len(r.checks) > 0
}

func (r *report) record(tool string, d time.Duration, res result) {
	r.statMu.Lock()
	defer r.statMu.Unlock()
	if r.lat == nil {
		r.lat, r.errs = map[string][]time.Duration{}, map[string]int{}
	}
	r.lat[tool] = append(r.lat[tool], d)
	if res.errKind != "" {
		r.errs[tool+": "+res.errKind]++
		r.noreply++
		return
	}
	r.calls++
	if res.code != "" {
		r.errs[tool+": "+res.code]++
	}
}

func (r *report) resetStats() {
	r.statMu.Lock()
	r.lat, r.errs = map[string][]time.Duration{}, map[string]int{}
	r.statMu.Unlock()
}

var readTools = map[string]bool{"read_page": true, "list_pages": true, "search_wiki": true}

func (r *report) snapshotStats() phaseStats {
	r.statMu.Lock()
	defer r.statMu.Unlock()
	ps := phaseStats{errs: map[string]int{}}
	var reads []time.Duration
	for k, v := range r.errs {
		ps.errs[k] = v
	}
	for tool, ds := range r.lat {
		s := append([]time.Duration(nil), ds...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		st := stat{Tool: tool, N: len(s), P50: percentile(s, 0.50), P99: percentile(s, 0.99), Max: s[len(s)-1]}
		for k, v := range r.errs {
			if strings.HasPrefix(k, tool+": ") {
				st.Errors += v
			}
		}
		ps.tools = append(ps.tools, st)
		ps.total += len(s)
		if readTools[tool] {
			ps.reads += len(s)
			reads = append(reads, s...)
		}
	}
	sort.Slice(reads, func(i, j int) bool { return reads[i] < reads[j] })
	ps.readP50, ps.readP99 = percentile(reads, 0.50), percentile(reads, 0.99)
	sort.Slice(ps.tools, func(i, j int) bool { return ps.tools[i].Tool < ps.tools[j].Tool })
	return ps
}

func (r *report) add(when, name string, ok bool, format string, args ...any) {
	r.checks = append(r.checks, check{when, name, ok, fmt.Sprintf(format, args...)})
}

// verify checks the disk at root against the ledger.
func (r *report) verify(root, when string) {
	l := r.led
	l.mu.Lock()
	defer l.mu.Unlock()

	// Every version of every page written: the file and its snapshots.
	versions := map[string]map[string][]byte{} // path -> sha -> content
	current := map[string]string{}
	load := func(path string) {
		if versions[path] != nil {
			return
		}
		vs := map[string][]byte{}
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path))); err == nil {
			sha := store.SHA256Hex(b)
			vs[sha] = b
			current[path] = sha
		}
		snaps, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "snapshots", filepath.FromSlash(path), "*"))
		for _, s := range snaps {
			if b, err := os.ReadFile(s); err == nil {
				vs[store.SHA256Hex(b)] = b
			}
		}
		versions[path] = vs
	}
	lost, badContent := 0, 0
	byPage := map[string][]pageWrite{}
	for _, w := range l.pages {
		load(w.path)
		b, ok := versions[w.path][w.after]
		if !ok {
			lost++
		} else if !bytes.Contains(b, []byte("marker "+w.marker+"\n")) {
			badContent++
		}
		byPage[w.path] = append(byPage[w.path], w)
	}
	r.add(when, "acknowledged page writes on disk", lost == 0 && badContent == 0,
		"%d acknowledged write_page calls; %d versions missing, %d with other content", len(l.pages), lost, badContent)

	// One chain of versions per page: no base acknowledged twice (a lost
	// update), and the newest acknowledged version is the file.
	doubled, notCurrent := 0, 0
	for path, ws := range byPage {
		bases := map[string]int{}
		for _, w := range ws {
			bases[w.base]++
		}
		for _, n := range bases {
			if n > 1 {
				doubled += n - 1
			}
		}
		// The file must be the newest acknowledged version: one no
		// acknowledged write replaced. A write that got no answer may have
		// committed after it (or between two acknowledged ones).
		if l.unknownAt[path] > 0 && unknownHead(versions[path][current[path]], l.unknown) {
			continue
		}
		heads := 0
		isHead := false
		for _, w := range ws {
			if bases[w.after] == 0 {
				heads++
				isHead = isHead || current[path] == w.after
			}
		}
		if !isHead || (heads != 1 && l.unknownAt[path] == 0) {
			notCurrent++
		}
	}
	r.add(when, "no lost update (one version chain per page)", doubled == 0 && notCurrent == 0,
		"%d pages; %d writes acknowledged on an already-replaced base; %d pages whose file is not their newest acknowledged version", len(byPage), doubled, notCurrent)

	written := 0
	for _, w := range l.conflicts {
		load(w.path)
		for _, b := range versions[w.path] {
			if bytes.Contains(b, []byte("marker "+w.marker+"\n")) {
				written++
			}
		}
	}
	r.add(when, "refused page writes are nowhere", written == 0,
		"%d write_page calls refused (conflict or lock wait); %d of them found on disk", len(l.conflicts), written)

	// log.md: exactly the acknowledged entries, once each, each on its own line.
	logb, _ := os.ReadFile(filepath.Join(root, "log.md"))
	seen := map[string]int{}
	ownLine := true
	heading := regexp.MustCompile(`^## \[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] note \| (load .*)$`)
	sc := bufio.NewScanner(bytes.NewReader(logb))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			seen[m[1]]++
			if strings.Count(line, "## [") != 1 {
				ownLine = false
			}
		} else if strings.Contains(line, "note | load ") {
			ownLine = false
		}
	}
	missing, twice, stray := 0, 0, 0
	for t := range l.logAcked {
		switch seen[t] {
		case 0:
			missing++
		case 1:
		default:
			twice++
		}
	}
	for t, n := range seen {
		if _, ok := l.logAcked[t]; !ok {
			if maybe, known := l.logOther[t]; !known || !maybe || n > 1 {
				stray++
			}
		}
	}
	r.add(when, "log.md holds exactly the acknowledged entries", missing == 0 && twice == 0 && stray == 0 && ownLine,
		"%d acknowledged append_log entries; %d missing, %d more than once, %d not acknowledged, every entry on its own line: %v", len(l.logAcked), missing, twice, stray, ownLine)

	// Research notes: each acknowledged section once.
	var notes bytes.Buffer
	files, _ := filepath.Glob(filepath.Join(root, "sources", "research", "*.md"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		notes.Write(b)
	}
	rmiss, rtwice, rstray := 0, 0, 0
	for m := range l.research {
		switch bytes.Count(notes.Bytes(), []byte("marker "+m+"\n")) {
		case 0:
			rmiss++
		case 1:
		default:
			rtwice++
		}
	}
	for m, maybe := range l.resOther {
		if !maybe && bytes.Contains(notes.Bytes(), []byte("marker "+m+"\n")) {
			rstray++
		}
	}
	r.add(when, "research notes hold each acknowledged section once", rmiss == 0 && rtwice == 0 && rstray == 0,
		"%d acknowledged research_save sections; %d missing, %d more than once, %d refused but present", len(l.research), rmiss, rtwice, rstray)

	// The audit log: one line per call, every line whole. The server's own
	// writes (tool "internal": index.md regenerated after the writes on a
	// large wiki) are counted apart and may write only index.md.
	lines, torn, identity, refused, own, ownStray := 0, 0, 0, 0, 0, 0
	sessions := map[string]bool{}
	auditFiles, _ := filepath.Glob(filepath.Join(root, ".llmwiki", "audit", "*.jsonl"))
	for _, f := range auditFiles {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if line == "" {
				continue
			}
			var a store.AuditRecord
			if json.Unmarshal([]byte(line), &a) != nil {
				torn++
				continue
			}
			if a.Tool == "http:refused" {
				refused++
				continue
			}
			if a.Tool == "internal" {
				own++
				for _, w := range a.Writes {
					if w.Path != "index.md" {
						ownStray++
					}
				}
				continue
			}
			lines++
			if a.Client == "llmwiki-load 1.0" {
				sessions[a.Session] = true
				if !strings.HasPrefix(a.Session, "mcp-session-") || !strings.HasPrefix(a.Remote, "127.0.0.1:") {
					identity++
				}
			}
		}
	}
	r.statMu.Lock()
	calls, noreply := r.calls, r.noreply
	r.statMu.Unlock()
	auditOK := torn == 0 && (lines == calls || (lines > calls && lines <= calls+noreply))
	r.add(when, "audit lines equal calls", auditOK && identity == 0 && refused == 0 && ownStray == 0,
		"%d audit lines of calls, %d calls answered (%d unanswered); %d torn lines; %d refused requests; %d HTTP sessions seen, %d lines without session id or remote address; %d lines of the server's own index.md regenerations, %d writes in them other than index.md", lines, calls, noreply, torn, refused, len(sessions), identity, own, ownStray)

	// No temp file anywhere, no torn page, the corpus untouched.
	var temps []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && store.IsTempName(d.Name()) {
			temps = append(temps, p)
		}
		return nil
	})
	changed := 0
	for p, h := range r.corpus {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || store.SHA256Hex(b) != h {
			changed++
		}
	}
	tornPages := 0
	for path := range byPage {
		b := versions[path][current[path]]
		if _, err := mdoc.ParseDoc(path, b); err != nil || !bytes.HasSuffix(b, []byte("\n")) {
			tornPages++
		}
	}
	r.add(when, "no temp or torn files; corpus untouched", len(temps) == 0 && changed == 0 && tornPages == 0,
		"%d temp files, %d written pages that do not parse, %d of %d corpus pages changed", len(temps), tornPages, changed, len(r.corpus))
}

// unknownHead reports whether the current file is the work of a write that
// got no answer (it may have committed), so it may stand above the chain.
func unknownHead(cur []byte, unknown []string) bool {
	for _, m := range unknown {
		if bytes.Contains(cur, []byte("marker "+m+"\n")) {
			return true
		}
	}
	return false
}

func (r *report) print(w io.Writer) {
	c := r.cfg
	fmt.Fprintf(w, "\n== figures (%d pages; seed %d)\n", len(r.corpus), c.seed)
	fmt.Fprintf(w, "setup: rebuild_index %s (%d progress notifications); %d error log lines from the HTTP servers in all\n", r.setupIndex.Round(time.Millisecond), r.setupProgress, r.serverErrors)
	printTable := func(ps phaseStats) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "tool\tcalls\terrors\tp50 ms\tp99 ms\tmax ms\t")
		for _, s := range ps.tools {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t\n", s.Tool, s.N, s.Errors, ms(s.P50), ms(s.P99), ms(s.Max))
		}
		tw.Flush()
		if len(ps.errs) > 0 {
			keys := make([]string, 0, len(ps.errs))
			for k := range ps.errs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			fmt.Fprintln(w, "errors by kind:")
			for _, k := range keys {
				fmt.Fprintf(w, "  %-50s %d\n", k, ps.errs[k])
			}
		} else {
			fmt.Fprintln(w, "errors by kind: none")
		}
	}
	throughput := func(ps phaseStats, elapsed time.Duration) string {
		secs := elapsed.Seconds()
		return fmt.Sprintf("%d calls answered in %.1f s = %.1f calls/s (reads %.1f/s, writes %.1f/s)", ps.total, secs, float64(ps.total)/secs, float64(ps.reads)/secs, float64(ps.total-ps.reads)/secs)
	}
	for _, h := range r.runs {
		secs := h.elapsed.Seconds()
		if secs == 0 {
			continue
		}
		ps := h.stats
		if h.mode == "open" {
			fmt.Fprintf(w, "\nopen loop at %g calls/s offered (%d clients x %g/s, Poisson arrivals, at most %d in flight a client; latency from each call's intended start)\n", h.offered, c.clients, c.rate, c.maxInFlight)
			pc := h.pace
			dropped := pc.due - pc.started
			fmt.Fprintf(w, "achieved: %s; %d calls due (%.1f/s over %s), %d started (a page update's write_page follows its read_page unscheduled)\n",
				throughput(ps, h.elapsed), pc.due, float64(pc.due)/c.duration.Seconds(), c.duration, pc.started)
			printTable(ps)
			fmt.Fprintf(w, "reads (all read tools): p50 %.1f ms, p99 %.1f ms\n", ms(ps.readP50), ms(ps.readP99))
			// Calls never started waited at least from when they were due to
			// the deadline: the p99 of the started ones understates the
			// truth when more than 1% were never started.
			verdict := "met"
			if ps.readP99 > 50*time.Millisecond || dropped*100 > pc.due {
				verdict = "NOT met"
			}
			fmt.Fprintf(w, "goal: p99 <= 50 ms (reads, at this offered load, on 2 cores): %s\n", verdict)
			fmt.Fprintf(w, "schedule: send time behind the intended start p50 %.1f ms, p99 %.1f ms, max %.1f ms; %d of %d started calls could not start on time (their client had %d in flight)\n",
				ms(percentile(pc.lags, 0.50)), ms(percentile(pc.lags, 0.99)), ms(percentile(pc.lags, 1)), pc.late, pc.started, c.maxInFlight)
			if dropped > 0 {
				fmt.Fprintf(w, "behind: %d of %d calls due were never started (their client still had %d in flight at the end); the server did not keep up with the offered load\n", dropped, pc.due, c.maxInFlight)
			}
		} else {
			fmt.Fprintln(w, "\nsaturation (closed loop, no pause): capacity figures, latency = clients / throughput")
			fmt.Fprintf(w, "%d clients: %s\n", c.clients, throughput(ps, h.elapsed))
			printTable(ps)
			fmt.Fprintf(w, "reads (all read tools): p50 %.1f ms, p99 %.1f ms (not the goal's measure: each client waits for its answer)\n", ms(ps.readP50), ms(ps.readP99))
			if ps.total > 0 {
				fmt.Fprintf(w, "Little's law: %d clients / %.1f calls/s = %.1f ms a call on average\n", c.clients, float64(ps.total)/secs, 1000*float64(c.clients)/(float64(ps.total)/secs))
			}
		}
		if ps.total > 0 {
			fmt.Fprintf(w, "server CPU over the %s: %.1f s (%.2f cores busy), %.1f ms a call\n", h.title(), h.serverCPU, h.serverCPU/secs, 1000*h.serverCPU/float64(ps.total))
		}
		profiled := ""
		if h.profiled {
			profiled = "; profiled (-cpuprofile)"
		}
		fmt.Fprintf(w, "server: start %s (%d sessions opened in %s; warm-up: first read_page, search_wiki and list_pages %s, then quiet after %s), peak RSS %.0f MiB, %d error log lines, graceful stop %s; load average before %s, after %s%s\n",
			h.startup.Round(time.Millisecond), c.clients, h.dial.Round(time.Millisecond), h.warm.first.Round(time.Millisecond), h.warm.quiet.Round(time.Millisecond), h.peakMiB, h.serverErrors, h.shutdown.Round(time.Millisecond), h.loadBefore, h.loadAfter, profiled)
	}
	if r.stdioElapsed > 0 {
		fmt.Fprintf(w, "\nstdio, 2 processes x %d writers: %s\n", c.stdioWriters, throughput(r.stdioStats, r.stdioElapsed))
		printTable(r.stdioStats)
	}
	fmt.Fprintln(w, "\n== checks")
	for _, ch := range r.checks {
		mark := "ok  "
		if !ch.ok {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s (%s): %s\n", mark, ch.name, ch.when, ch.detail)
	}
	pass, fail := 0, 0
	for _, ch := range r.checks {
		if ch.ok {
			pass++
		} else {
			fail++
		}
	}
	fmt.Fprintf(w, "checks: %d passed, %d failed\n", pass, fail)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
