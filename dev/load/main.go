// Command load (dev/load) is the load test of `llmwiki serve --http`: a bounded
// program that proves nothing is lost under concurrent use, and prints the
// figures.
//
// It builds (or takes with --bin) the llmwiki binary, makes a wiki whose
// pages/ holds a corpus (default: all of ../shared/corpora/obsidian-help,
// about 6,300 pages in 35 languages), builds its search index, serves it on
// a loopback port with a bearer token, and runs --clients MCP clients
// (mcp-go's streamable HTTP client, one session each) for --duration: 80%
// reads (search_wiki when the server has it, read_page, list_pages) and 20%
// writes (append_log, write_page with base_sha256 on shared pages,
// research_save).
//
// The clients run in two modes (--mode, default both, one phase each, each
// on a fresh server process):
//
//   - open loop (the latency at a load): each client starts calls on its own
//     schedule, --rate a second with exponential gaps (Poisson arrivals,
//     seeded from --seed), whether or not its earlier calls have answered
//     (up to --max-inflight at once on its session). A call's latency runs
//     from its intended start, not from when it was sent, so a server that
//     falls behind is charged for the queue it causes (coordinated omission
//     corrected, as wrk2 and k6's constant-arrival-rate executor do; Gil
//     Tene, "How NOT to Measure Latency"). No call starts after the
//     phase's end; the calls still due then are reported as never started.
//     The read p99 goal is read here.
//   - closed loop (saturation): each client sends its next call the moment
//     the previous one answers. That measures capacity (calls a second);
//     its latency is set by Little's law, clients / throughput, not by the
//     server at a given load.
//
// After each phase it stops the server with SIGTERM and checks the disk
// against what the clients were told: every acknowledged write is there,
// every refused (conflict) write is nowhere, log.md holds exactly the
// acknowledged entries once each on their own line, the audit log has one
// line per call, no temp file or torn file exists, and the corpus pages are
// byte-identical.
//
// A last phase starts two `llmwiki serve` processes (stdio) on the same
// root, --stdio-writers concurrent writers each, and checks the same.
//
// Loopback only: it listens on 127.0.0.1 and never connects anywhere else.
// It exits 1 when a check fails; speed figures are printed, not enforced.
//
//	go run ./dev/load                      # 32 clients, 60 s open loop at 64 calls/s, 60 s closed loop, full corpus
//	go run ./dev/load -duration 15s        # the bounded run .ci/run does
//	go run ./dev/load -mode open -rate 4   # the open loop alone, 128 calls/s offered
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// config is what one run does.
type config struct {
	bin          string
	corpus       string
	root         string
	keep         bool
	clients      int
	duration     time.Duration
	mode         string  // "open", "closed" or "both"
	rate         float64 // open loop: calls started a second per client
	maxInFlight  int     // open loop: calls in flight per client at most
	writeRatio   float64
	stdioWriters int
	stdioOps     int
	skipStdio    bool
	callTimeout  time.Duration
	seed         int64
	cpuProfile   string
	out          io.Writer
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "", "llmwiki binary to test (default: go build ./cmd/llmwiki into a temp folder)")
	flag.StringVar(&c.corpus, "corpus", "", "folder of markdown copied into pages/ (default: ../shared/corpora/obsidian-help next to the repository)")
	flag.StringVar(&c.root, "root", "", "wiki root to create (default: a temp folder, removed afterwards unless -keep)")
	flag.BoolVar(&c.keep, "keep", false, "keep the wiki root for inspection")
	flag.IntVar(&c.clients, "clients", 32, "concurrent HTTP clients, one MCP session each")
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long the HTTP clients run in each mode")
	flag.StringVar(&c.mode, "mode", "both", "open: paced clients (Poisson arrivals at -rate, latency from each call's intended start; the latency goal); closed: saturation, every client sends its next call when the last answers (capacity); both: open, then closed")
	flag.Float64Var(&c.rate, "rate", 2, "open loop: calls each client starts a second (offered load = rate x clients; a page update's write_page follows its read_page and is not scheduled)")
	flag.IntVar(&c.maxInFlight, "max-inflight", 4, "open loop: calls one client (one MCP session) has in flight at most; a call due while that many are in flight waits and is counted late")
	flag.Float64Var(&c.writeRatio, "write-ratio", 0.2, "share of operations that write")
	flag.IntVar(&c.stdioWriters, "stdio-writers", 50, "concurrent writers per stdio server process (two processes)")
	flag.IntVar(&c.stdioOps, "stdio-ops", 5, "writes each stdio writer makes")
	flag.BoolVar(&c.skipStdio, "skip-stdio", false, "skip the two-process stdio phase")
	flag.DurationVar(&c.callTimeout, "call-timeout", 60*time.Second, "longest wait for one call")
	flag.Int64Var(&c.seed, "seed", 0, "random seed (0: from the clock)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write the server's CPU profile over the HTTP load (the open loop when -mode both) to this file, its allocations to FILE.allocs, and where its goroutines waited on locks and channels to FILE.mutex and FILE.block (go tool pprof FILE)")
	flag.Parse()
	c.out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmwiki-load:", err)
		os.Exit(2)
	}
	if !rep.ok() {
		fmt.Fprintln(os.Stderr, "llmwiki-load: checks FAILED")
		os.Exit(1)
	}
}

// run does one load test and prints its report.
func run(ctx context.Context, c config) (*report, error) {
	if c.seed == 0 {
		c.seed = time.Now().UnixNano()
	}
	if c.callTimeout == 0 {
		c.callTimeout = 60 * time.Second
	}
	if c.out == nil {
		c.out = io.Discard
	}
	modes, err := phaseModes(c.mode)
	if err != nil {
		return nil, err
	}
	if c.mode != "closed" && !(c.rate > 0) {
		return nil, fmt.Errorf("-rate %g: the open loop needs calls a second above 0", c.rate)
	}
	if c.maxInFlight < 1 {
		c.maxInFlight = 1
	}
	tmp, err := os.MkdirTemp("", "llmwiki-load-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if !c.keep {
			os.RemoveAll(tmp)
		}
	}()
	if c.bin == "" {
		fmt.Fprintln(c.out, "== building llmwiki")
		if c.bin, err = buildBinary(tmp); err != nil {
			return nil, err
		}
	}
	if c.corpus == "" {
		if c.corpus, err = defaultCorpus(); err != nil {
			return nil, err
		}
	}
	if c.root == "" {
		c.root = filepath.Join(tmp, "wiki")
	}
	if c.keep {
		fmt.Fprintln(c.out, "wiki root (kept):", c.root)
	}
	rep := &report{cfg: c, led: newLedger(), corpus: map[string]string{}}
	fmt.Fprintf(c.out, "== setup: %s into pages/ of %s\n", c.corpus, c.root)
	if err := setupWiki(ctx, c, rep); err != nil {
		return rep, err
	}
	if err := httpSetup(ctx, c, rep); err != nil {
		return rep, err
	}
	for _, mode := range modes {
		if ctx.Err() != nil {
			break
		}
		// One profile: the open loop's when both run.
		profile := c.cpuProfile != "" && (mode == "open" || len(modes) == 1)
		if err := httpPhase(ctx, c, rep, mode, profile); err != nil {
			return rep, err
		}
		rep.verify(c.root, "after the "+mode+"-loop HTTP phase")
	}
	if !c.skipStdio && ctx.Err() == nil {
		if err := stdioPhase(ctx, c, rep); err != nil {
			return rep, err
		}
		rep.verify(c.root, "after the stdio phase")
	}
	rep.print(c.out)
	return rep, nil
}

// phaseModes returns the HTTP phases of -mode, in order.
func phaseModes(mode string) ([]string, error) {
	switch mode {
	case "open", "closed":
		return []string{mode}, nil
	case "both", "":
		return []string{"open", "closed"}, nil
	}
	return nil, fmt.Errorf("-mode %q: want open, closed or both", mode)
}
