// Command scale is the scale run of issue 20: it builds llmwiki once, makes
// a wiki of each size from the shared corpora (internal/scalecorpus, as
// dev/scalewiki does) and drives the built binary as a user would, over
// MCP stdio and by exec, printing one markdown table:
//
//	go run ./dev/scale -sizes 10000,44681,144000 [-out DIR] [-keep]
//	go run ./dev/scale -ci    # 173, 10k and 44k pages, as .ci/run does
//
// Per size: the index build in `serve` from nothing (wall time from exec
// until load_project says ready, the server's peak RSS, the index on
// disk); the first search_wiki answer sent right after initialize
// (latency, the index state it reports); search p50/p95 over seeded
// queries drawn from the corpus once built; write_page creates (first,
// median, p95); `llmwiki lint` and `lint --json` (wall, CPU, peak RSS of the
// child); exec → tools/list (cold start). The 173-page row is Obsidian Help
// in English. Timings are figures, never pass/fail: the run fails only on
// errors (a tool error, a lost write, a search that misses a page it
// should find).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/llmwiki/llmwiki/dev/internal/loadavg"
	"github.com/llmwiki/llmwiki/internal/scalecorpus"
	"github.com/llmwiki/llmwiki/wiki"
)

type config struct {
	shared, out, bin string
	queries, writes  int
	colds            int
	buildTimeout     time.Duration
	seed             int64
}

// row is the figures of one size.
type row struct {
	label          string
	pages          int
	makeWiki       time.Duration
	build          time.Duration
	buildCPU       time.Duration // the server's user+sys CPU until the index was ready
	buildRSS       int64         // KiB, VmHWM when the index was ready
	buildAnon      int64         // KiB, the largest RssAnon seen while building (VmHWM also counts the index's mapped segment files)
	endRSS         int64         // KiB, VmHWM after the searches and writes
	indexBytes     int64
	firstSearch    time.Duration
	firstState     string
	firstHits      int
	projectFirst   time.Duration // the first load_project (the page catalogue's first scan)
	projectP50     time.Duration // load_project while the index builds, polled every 100 ms
	projectMax     time.Duration
	searchP50      time.Duration
	searchP95      time.Duration
	zeroHit        int
	writeFirst     time.Duration
	writeP50       time.Duration
	writeP95       time.Duration
	lint, lintJSON lintRun
	cold           time.Duration
	coldMin        time.Duration
	load           string
}

type lintRun struct {
	wall, cpu time.Duration
	rss       int64 // KiB
	bytes     int64
	exit      int
	err       string
}

func main() {
	sizes := flag.String("sizes", "10000,44681", "wiki sizes in pages, comma-separated (173 is Obsidian Help in English)")
	ci := flag.Bool("ci", false, "the bounded CI run: sizes 173,10000,44681, fewer queries and writes")
	out := flag.String("out", "", "folder for the binary and the wikis (default a new temp folder)")
	keep := flag.Bool("keep", false, "keep the wikis after the run")
	shared := flag.String("shared", "", "the shared folder (default $LLMWIKI_SHARED, else ../shared)")
	c := config{}
	flag.IntVar(&c.queries, "queries", 200, "search queries per size")
	flag.IntVar(&c.writes, "writes", 30, "write_page creates per size")
	flag.IntVar(&c.colds, "cold", 5, "cold starts (exec → tools/list) per size")
	flag.DurationVar(&c.buildTimeout, "build-timeout", 20*time.Minute, "longest wait for an index build")
	flag.Int64Var(&c.seed, "seed", 20, "seed of the query and link choices")
	flag.Parse()
	if *ci {
		*sizes = "173,10000,44681"
		c.buildTimeout = 8 * time.Minute
	}
	c.shared = *shared
	if c.shared == "" {
		c.shared = os.Getenv("LLMWIKI_SHARED")
	}
	if c.shared == "" {
		c.shared = filepath.Join("..", "shared")
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("bad size %q", s))
		}
		ns = append(ns, n)
	}
	c.out = *out
	if c.out == "" {
		d, err := os.MkdirTemp("", "llmwiki-scale-")
		if err != nil {
			fail(err)
		}
		c.out = d
		if !*keep {
			defer os.RemoveAll(d)
		}
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		fail(err)
	}
	c.bin = filepath.Join(c.out, "llmwiki")
	t0 := time.Now()
	b := exec.Command("go", "build", "-o", c.bin, "./cmd/llmwiki")
	b.Stdout, b.Stderr = os.Stderr, os.Stderr
	if err := b.Run(); err != nil {
		fail(fmt.Errorf("go build: %w", err))
	}
	logf("built %s in %s; load average %s", c.bin, time.Since(t0).Round(time.Millisecond), loadavg.Read())
	var rows []row
	var errs []error
	for _, n := range ns {
		r, err := runSize(c, n)
		if err != nil {
			errs = append(errs, fmt.Errorf("%d pages: %w", n, err))
			logf("ERROR %d pages: %v", n, err)
		}
		rows = append(rows, r)
		if !*keep {
			os.RemoveAll(filepath.Join(c.out, fmt.Sprintf("w%d", n)))
		}
	}
	printTable(os.Stdout, rows, c)
	if len(errs) > 0 {
		fail(errors.Join(errs...))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scale:", err)
	os.Exit(1)
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "scale: "+format+"\n", a...)
}

// makeWiki makes the wiki of n pages under root.
func makeWiki(c config, root string, n int) (int, error) {
	if err := os.RemoveAll(root); err != nil {
		return 0, err
	}
	if _, err := wiki.Init(root); err != nil {
		return 0, err
	}
	if n != 173 {
		return scalecorpus.Build(c.shared, root, n)
	}
	// Obsidian Help in English, the small wiki of the peer table.
	src := filepath.Join(c.shared, "corpora", "obsidian-help", "en")
	count := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, "pages", rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		count++
		return os.WriteFile(dst, data, 0o644)
	})
	return count, err
}

func runSize(c config, n int) (row, error) {
	r := row{label: fmt.Sprint(n), load: loadavg.Read()}
	if n == 173 {
		r.label = "173 (obsidian-help/en)"
	}
	root := filepath.Join(c.out, fmt.Sprintf("w%d", n))
	t0 := time.Now()
	got, err := makeWiki(c, root, n)
	r.pages, r.makeWiki = got, time.Since(t0)
	if err != nil {
		return r, fmt.Errorf("make wiki: %w", err)
	}
	logf("%d pages: wiki made in %s (load %s)", got, r.makeWiki.Round(time.Millisecond), loadavg.Read())
	paths, err := pagePaths(root)
	if err != nil {
		return r, err
	}
	ctx := context.Background()
	rng := rand.New(rand.NewSource(c.seed + int64(n)))
	queries := drawQueries(root, paths, rng, c.queries)

	// Index build from nothing, with the first search sent right after
	// initialize.
	start := time.Now()
	s, err := startServer(ctx, c.bin, root)
	if err != nil {
		return r, err
	}
	defer s.close()
	t1 := time.Now()
	var res struct {
		Total int `json:"total"`
		Hits  []struct {
			Path string `json:"path"`
		} `json:"hits"`
		Index struct {
			State string `json:"state"`
			Pages int    `json:"pages"`
		} `json:"index"`
	}
	if err := s.call(ctx, "search_wiki", map[string]any{"query": queries[0]}, &res); err != nil {
		return r, fmt.Errorf("first search: %w", err)
	}
	r.firstSearch, r.firstState, r.firstHits = time.Since(t1), res.Index.State, len(res.Hits)
	logf("%d pages: first search %q in %s, state %s, %d hits", n, queries[0], r.firstSearch.Round(time.Microsecond), r.firstState, r.firstHits)
	var plat []time.Duration // load_project's latencies
	for {
		var lp struct {
			Index struct {
				State  string `json:"state"`
				Pages  int    `json:"pages"`
				Reason string `json:"reason"`
			} `json:"index"`
		}
		t := time.Now()
		if err := s.call(ctx, "load_project", map[string]any{}, &lp); err != nil {
			return r, fmt.Errorf("load_project: %w", err)
		}
		plat = append(plat, time.Since(t))
		r.buildAnon = max(r.buildAnon, procStatusKiB(s.pid, "RssAnon:"))
		if lp.Index.State == "ready" {
			r.build = time.Since(start)
			break
		}
		if lp.Index.State == "failed" {
			return r, fmt.Errorf("index failed: %s", lp.Index.Reason)
		}
		if time.Since(start) > c.buildTimeout {
			return r, fmt.Errorf("index not ready after %s (%s, %d pages)", c.buildTimeout, lp.Index.State, lp.Index.Pages)
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.buildRSS, r.buildCPU = vmHWM(s.pid), procCPU(s.pid)
	r.projectFirst, r.projectP50, r.projectMax = plat[0], pct(plat[1:], 0.5), pct(plat, 1)
	r.indexBytes = duBytes(filepath.Join(root, ".llmwiki", "search"))
	logf("%d pages: index ready in %s (CPU %s), peak RSS %d MiB (anonymous %d MiB), index %d MiB (load %s)", n, r.build.Round(time.Millisecond), r.buildCPU, r.buildRSS>>10, r.buildAnon>>10, r.indexBytes>>20, loadavg.Read())

	// Searches once built.
	var lat []time.Duration
	for _, q := range queries {
		t := time.Now()
		if err := s.call(ctx, "search_wiki", map[string]any{"query": q}, &res); err != nil {
			return r, fmt.Errorf("search %q: %w", q, err)
		}
		lat = append(lat, time.Since(t))
		if res.Total == 0 {
			r.zeroHit++
		}
	}
	r.searchP50, r.searchP95 = pct(lat, 0.5), pct(lat, 0.95)
	if r.zeroHit > len(queries)/10 {
		return r, fmt.Errorf("%d of %d queries drawn from the pages found nothing", r.zeroHit, len(queries))
	}

	// Creates: new pages with a few wikilinks to existing pages.
	var wlat []time.Duration
	type made struct{ slug, marker, sha string }
	var mades []made
	for i := 0; i < c.writes; i++ {
		marker := fmt.Sprintf("scalemark%dx%03dq", n, i)
		slug := fmt.Sprintf("scale-run/create-%03d", i)
		var links []string
		for j := 0; j < 3; j++ {
			p := paths[rng.Intn(len(paths))]
			links = append(links, "[["+strings.TrimSuffix(filepath.Base(p), ".md")+"]]")
		}
		body := fmt.Sprintf("# Scale create %d\n\nA page of the scale run, %s. See %s.\n", i, marker, strings.Join(links, ", "))
		var w struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		}
		t := time.Now()
		if err := s.call(ctx, "write_page", map[string]any{"title": fmt.Sprintf("Scale create %d", i), "slug": slug, "content": body}, &w); err != nil {
			return r, fmt.Errorf("write_page %s: %w", slug, err)
		}
		wlat = append(wlat, time.Since(t))
		mades = append(mades, made{slug, marker, w.SHA256})
	}
	if len(wlat) > 0 {
		r.writeFirst, r.writeP50, r.writeP95 = wlat[0], pct(wlat, 0.5), pct(wlat, 0.95)
	}
	for _, m := range mades {
		var rd struct {
			Content string `json:"content"`
			SHA256  string `json:"sha256"`
		}
		if err := s.call(ctx, "read_page", map[string]any{"page": m.slug}, &rd); err != nil {
			return r, fmt.Errorf("read back %s: %w", m.slug, err)
		}
		if !strings.Contains(rd.Content, m.marker) || (m.sha != "" && rd.SHA256 != m.sha) {
			return r, fmt.Errorf("lost write: %s does not hold what write_page acknowledged", m.slug)
		}
	}
	if len(mades) > 0 {
		m := mades[len(mades)-1]
		found := false
		for t := time.Now(); time.Since(t) < 30*time.Second && !found; time.Sleep(200 * time.Millisecond) {
			if err := s.call(ctx, "search_wiki", map[string]any{"query": m.marker}, &res); err != nil {
				return r, fmt.Errorf("search marker: %w", err)
			}
			for _, h := range res.Hits {
				found = found || strings.Contains(h.Path, m.slug)
			}
		}
		if !found {
			return r, fmt.Errorf("search for %s did not find %s within 30 s of its write", m.marker, m.slug)
		}
	}
	r.endRSS = vmHWM(s.pid)
	s.close()
	logf("%d pages: search p50 %s p95 %s; create first %s p50 %s p95 %s (load %s)", n, r.searchP50, r.searchP95, r.writeFirst, r.writeP50, r.writeP95, loadavg.Read())

	r.lint = runLint(c.bin, root, false)
	r.lintJSON = runLint(c.bin, root, true)
	for _, l := range []lintRun{r.lint, r.lintJSON} {
		if l.err != "" {
			return r, fmt.Errorf("lint: %s", l.err)
		}
	}
	logf("%d pages: lint %s cpu %s rss %d MiB, %d bytes out", n, r.lint.wall.Round(time.Millisecond), r.lint.cpu.Round(time.Millisecond), r.lint.rss>>10, r.lint.bytes)

	var colds []time.Duration
	for i := 0; i < c.colds; i++ {
		d, err := coldStart(ctx, c.bin, root)
		if err != nil {
			return r, fmt.Errorf("cold start: %w", err)
		}
		colds = append(colds, d)
	}
	if len(colds) > 0 {
		r.cold, r.coldMin = pct(colds, 0.5), pct(colds, 0)
	}
	return r, nil
}

// server is one `llmwiki serve` over stdio.
type server struct {
	c   *client.Client
	pid int
}

func startServer(ctx context.Context, bin, root string) (*server, error) {
	var cmd *exec.Cmd
	tr := transport.NewStdioWithOptions(bin, []string{"LLMWIKI_LOG=error"}, []string{"serve", "--root", root},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	c := client.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start serve: %w", err)
	}
	s := &server{c: c}
	if cmd != nil && cmd.Process != nil {
		s.pid = cmd.Process.Pid
	}
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "llmwiki-scale", Version: "1.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return s, nil
}

func (s *server) close() {
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
}

// call invokes a tool and decodes its structured answer into out; a tool
// error is an error.
func (s *server) call(ctx context.Context, tool string, args map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	if res.IsError {
		var sb strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(mcp.TextContent); ok {
				sb.WriteString(t.Text)
			}
		}
		return fmt.Errorf("%s: %s", tool, sb.String())
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// coldStart times exec → initialize → tools/list.
func coldStart(ctx context.Context, bin, root string) (time.Duration, error) {
	t := time.Now()
	s, err := startServer(ctx, bin, root)
	if err != nil {
		return 0, err
	}
	defer s.close()
	tl, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return 0, err
	}
	d := time.Since(t)
	if len(tl.Tools) == 0 {
		return d, fmt.Errorf("tools/list is empty")
	}
	return d, nil
}

// runLint execs `llmwiki lint` (exit 1 means an error finding, not a
// failure) and takes the child's rusage.
func runLint(bin, root string, asJSON bool) lintRun {
	args := []string{"lint", "--root", root}
	if asJSON {
		args = append(args, "--json")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "LLMWIKI_LOG=error")
	cw := &countWriter{}
	cmd.Stdout = cw
	var stderr strings.Builder
	cmd.Stderr = &stderr
	t := time.Now()
	err := cmd.Run()
	l := lintRun{wall: time.Since(t), bytes: cw.n}
	if ps := cmd.ProcessState; ps != nil {
		l.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			l.rss = ru.Maxrss
		}
		l.exit = ps.ExitCode()
	}
	if err != nil && l.exit != 1 {
		l.err = fmt.Sprintf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if asJSON && l.err == "" && cw.n == 0 {
		l.err = "lint --json printed nothing"
	}
	return l
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func pagePaths(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "pages"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return err
	})
	sort.Strings(out)
	if len(out) == 0 && err == nil {
		err = fmt.Errorf("no pages under %s", root)
	}
	return out, err
}

// drawQueries draws n queries of one to three words, each from the prose of
// a page chosen at random (seeded): words of four letters or more.
func drawQueries(root string, paths []string, rng *rand.Rand, n int) []string {
	var out []string
	for tries := 0; len(out) < max(n, 1) && tries < 50*max(n, 1); tries++ {
		data, err := os.ReadFile(paths[rng.Intn(len(paths))])
		if err != nil {
			continue
		}
		words := strings.FieldsFunc(string(data), func(r rune) bool { return !unicode.IsLetter(r) })
		var good []string
		for _, w := range words {
			if len([]rune(w)) >= 4 {
				good = append(good, w)
			}
		}
		if len(good) == 0 {
			continue
		}
		k := 1 + rng.Intn(3)
		i := rng.Intn(len(good))
		q := good[i:min(i+k, len(good))]
		out = append(out, strings.Join(q, " "))
	}
	if len(out) == 0 {
		out = append(out, "install")
	}
	return out
}

func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

// procCPU is the process's user+sys CPU time so far (0 when unknown),
// from /proc/PID/stat in clock ticks of 1/100 s.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s) // f[0] is field 3 (state); utime and stime are fields 14 and 15
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

// vmHWM is the process's peak resident set in KiB (0 when unknown).
func vmHWM(pid int) int64 { return procStatusKiB(pid, "VmHWM:") }

// procStatusKiB is the figure of /proc/PID/status named key ("RssAnon:"),
// in KiB (0 when unknown).
func procStatusKiB(pid int, key string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

func duBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func ms(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	case d < 10*time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

func mib(kib int64) string {
	if kib == 0 {
		return "–"
	}
	return fmt.Sprintf("%d MB", kib*1024/1e6)
}

func printTable(w io.Writer, rows []row, c config) {
	fmt.Fprintf(w, "\nScale run (dev/scale), %s, %d queries, %d creates, %d cold starts per size; load average at the end %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), c.queries, c.writes, c.colds, loadavg.Read())
	fmt.Fprintln(w, "| pages | build in serve (CPU) | peak RSS at ready / end (anonymous while building) | index on disk | first search (state, hits) | search p50 / p95 | create first / p50 / p95 | lint wall / CPU / RSS | lint --json wall / RSS | exec → tools/list median (min) | load_project first / p50 / max while building | load at start |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s (%s) | %s / %s (%s) | %s | %s (%s, %d) | %s / %s | %s / %s / %s | %s / %s / %s | %s / %s | %s (%s) | %s / %s / %s | %s |\n",
			r.label, ms(r.build), ms(r.buildCPU), mib(r.buildRSS), mib(r.endRSS), mib(r.buildAnon), mib(r.indexBytes>>10),
			ms(r.firstSearch), r.firstState, r.firstHits, ms(r.searchP50), ms(r.searchP95),
			ms(r.writeFirst), ms(r.writeP50), ms(r.writeP95),
			ms(r.lint.wall), ms(r.lint.cpu), mib(r.lint.rss), ms(r.lintJSON.wall), mib(r.lintJSON.rss),
			ms(r.cold), ms(r.coldMin), ms(r.projectFirst), ms(r.projectP50), ms(r.projectMax), r.load)
	}
}
