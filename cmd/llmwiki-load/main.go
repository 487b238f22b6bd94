// Command llmwiki-load is the load test of `llmwiki serve --http`: a bounded
// program that proves nothing is lost under concurrent use, and prints the
// figures.
//
// It builds (or takes with --bin) the llmwiki binary, makes a wiki whose
// pages/ holds a corpus (default: all of ../shared/corpora/obsidian-help,
// about 6,300 pages in 35 languages), serves it on a loopback port with a
// bearer token, and runs --clients concurrent MCP clients (mcp-go's
// streamable HTTP client, one session each) for --duration: 80% reads
// (search_wiki when the server has it, read_page, list_pages) and 20% writes
// (append_log, write_page with base_sha256 on shared pages, research_save).
// Then it stops the server with SIGTERM and checks the disk against what
// the clients were told: every acknowledged write is there, every refused
// (conflict) write is nowhere, log.md holds exactly the acknowledged entries
// once each on their own line, the audit log has one line per call, no
// temp file or torn file exists, and the corpus pages are byte-identical.
//
// A second phase starts two `llmwiki serve` processes (stdio) on the same
// root, --stdio-writers concurrent writers each, and checks the same.
//
// Loopback only: it listens on 127.0.0.1 and never connects anywhere else.
// It exits 1 when a check fails; speed figures are printed, not enforced.
//
//	go run ./cmd/llmwiki-load                      # 32 clients, 60 s, full corpus
//	go run ./cmd/llmwiki-load -duration 15s        # the bounded run .ci/run does
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
	flag.DurationVar(&c.duration, "duration", 60*time.Second, "how long the HTTP clients run")
	flag.Float64Var(&c.writeRatio, "write-ratio", 0.2, "share of operations that write")
	flag.IntVar(&c.stdioWriters, "stdio-writers", 50, "concurrent writers per stdio server process (two processes)")
	flag.IntVar(&c.stdioOps, "stdio-ops", 5, "writes each stdio writer makes")
	flag.BoolVar(&c.skipStdio, "skip-stdio", false, "skip the two-process stdio phase")
	flag.DurationVar(&c.callTimeout, "call-timeout", 60*time.Second, "longest wait for one call")
	flag.Int64Var(&c.seed, "seed", 0, "random seed (0: from the clock)")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write the server's CPU profile over the HTTP load to this file, its allocations to FILE.allocs, and where its goroutines waited on locks and channels to FILE.mutex and FILE.block (go tool pprof FILE)")
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
	if err := httpPhase(ctx, c, rep); err != nil {
		return rep, err
	}
	rep.verify(c.root, "after the HTTP phase")
	if !c.skipStdio && ctx.Err() == nil {
		if err := stdioPhase(ctx, c, rep); err != nil {
			return rep, err
		}
		rep.verify(c.root, "after the stdio phase")
	}
	rep.print(c.out)
	return rep, nil
}
