package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/term"
)

func runServe(ctx context.Context, e env, args []string) error {
	var wd watchdog
	defer wd.stop()
	fs := newFlags(e, "serve", "serve [--root DIR] [--read-only] [--toolsets a,b] [--http ADDR [--token-file FILE]]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki); created with starting files when missing")
	readOnly := fs.Bool("read-only", false, "register only the read-only tools")
	toolsets := fs.String("toolsets", "", "comma-separated toolsets to register: "+strings.Join(tools.Toolsets(tools.Deps{}), ", ")+" or all (default all)")
	mf := addModelFlags(fs)
	hc := addHTTPFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	httpMode := hc.addr != ""
	var ln net.Listener
	if httpMode {
		if err := hc.resolve(e.getenv); err != nil {
			return err
		}
		var err error
		if ln, err = listenHTTP(*hc); err != nil {
			return err
		}
		defer ln.Close()
	}
	search.SpareProcForMerges()
	log := newLogger(e)
	wd.log = log
	if err := startPprof(ctx, e, e.getenv("LLMWIKI_PPROF"), log); err != nil {
		return err
	}
	st, dir, err := openRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	if st.ReadOnly() {
		log.Warn("the wiki is read-only: every tool that writes is refused; reading and searching work", "root", dir)
	}
	// Only propose_plan uses the model, and only when called: a bad model
	// setting leaves that one tool unconfigured rather than stopping serve.
	mc, err := mf.client(e)
	if err != nil {
		log.Warn("propose_plan has no model endpoint", "err", err)
		mc = nil
	}
	deps, err := newDeps(e, st, log, mc)
	if err != nil {
		return err
	}
	// Background work: the search index opens, builds and reconciles, and
	// the link graph (read_page's backlinks) is built so the first read_page
	// does not wait for a walk of every page. It starts after the opening
	// handshake (see below); it is stopped, and waited for, before
	// the store closes.
	warmCtx, stopWarm := context.WithCancel(ctx)
	var warm sync.WaitGroup
	defer warm.Wait()
	defer stopWarm()
	var readPage bool
	bg := &startOnce{run: func() {
		deps.Search.Start()
		if readPage {
			warm.Go(func() {
				if _, err := links.Of(st).View(warmCtx); err != nil && warmCtx.Err() == nil {
					log.Warn("link graph not built at start; read_page builds it", "err", err)
				}
			})
		}
	}}
	defer bg.stop()
	if hc.shutdownTimeout <= 0 {
		return errors.New("--shutdown-timeout must be positive")
	}
	cancelled := newCancelledIDs()
	opts := tools.Options{ReadOnly: *readOnly, PastHandshake: bg.start, Cancelled: cancelled.refuses}
	if *toolsets != "" {
		opts.Toolsets = strings.Split(*toolsets, ",")
	}
	srv, names, err := tools.NewServer(deps, opts)
	if err != nil {
		return err
	}
	readPage = slices.Contains(names, "read_page")
	if name := e.getenv(testHangEnv); name != "" {
		srv.Use(hangTool(name, st))
	}
	if httpMode {
		bg.start()
		return runHTTP(ctx, e, *hc, ln, st, srv, log, len(names), cancelled, wd.arm)
	}
	// Over stdio a client sends initialize, initialized and tools/list as
	// soon as it starts the server; background work started with them
	// would delay their answers (two goroutines busy on a two-core machine
	// hold both processors for a scheduler slice, 10 ms). It starts at the
	// first request past the handshake (Options.PastHandshake), or
	// handshakeGrace after serving begins, whichever comes first.
	t := time.AfterFunc(handshakeGrace, bg.start)
	defer t.Stop()
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		printConnectHelp(e, dir)
	}
	log.Info("serving over stdio", "root", dir, "tools", len(names))
	return serveStdio(ctx, srv, e, st, cancelled, drainConfig{timeout: hc.shutdownTimeout, log: log, abandoned: wd.arm})
}

// drainConfig is how a transport shuts down: it waits up to timeout for
// the calls in flight, then calls abandoned (when set) if some still run,
// and stops serving without them.
type drainConfig struct {
	timeout   time.Duration
	log       *slog.Logger
	abandoned func()
}

// closeGrace is how long serve may take to close the store and stop its
// background work once a shutdown abandoned calls still running.
const closeGrace = time.Second

// watchdog ends the process when, closeGrace after a shutdown abandoned
// calls still running, runServe has not returned: such a call may hold
// what the deferred closes wait for (a call that never returns holds the
// project lock; the process's end releases it, and a write the call had
// started is whole or absent, see the store's journal). runServe stops it
// in its last deferred call.
type watchdog struct {
	t   atomic.Pointer[time.Timer]
	log *slog.Logger
}

func (w *watchdog) arm() {
	w.t.Store(time.AfterFunc(closeGrace, func() {
		w.log.Error("exiting: calls abandoned at shutdown still hold the store (a write is whole or absent)")
		os.Exit(1)
	}))
}

func (w *watchdog) stop() {
	if t := w.t.Load(); t != nil {
		t.Stop()
	}
}

// testHangEnv names a tool whose calls never return, holding the project
// lock with a page staged: for the tests of the shutdown bound only (a
// handler stuck in a system call is not reproducible on demand). Not
// documented for users.
const testHangEnv = "LLMWIKI_TEST_HANG_TOOL"

// hangStarted is logged when a [testHangEnv] call has taken the lock.
const hangStarted = "test hang: a call that never returns holds the project lock"

// hangTool is the middleware [testHangEnv] installs.
func hangTool(name string, st *wiki.Store) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.Name != name {
				return next(ctx, req)
			}
			err := st.Update(context.WithoutCancel(ctx), func(tx *store.Tx) error {
				st.Logger().Warn(hangStarted)
				if err := tx.Create("pages/hang.md", []byte("# Hang\n\nStaged by a call that never returns.\n")); err != nil {
					return err
				}
				select {}
			})
			return nil, err
		}
	}
}

// handshakeGrace is how long serve over stdio waits for a client's opening
// handshake before it starts its background work anyway.
const handshakeGrace = 200 * time.Millisecond

// startOnce runs run at the first start, unless stop came first.
type startOnce struct {
	mu               sync.Mutex
	started, stopped bool
	run              func()
}

func (s *startOnce) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return
	}
	s.started = true
	s.run()
}

func (s *startOnce) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
}

// openRoot resolves the wiki root (rootFlag, else $LLMWIKI_ROOT, else
// ~/llmwiki; see resolveRoot) and opens the wiki there with openOrCreate.
// It returns the store and the root's path.
func openRoot(e env, rootFlag string) (*wiki.Store, string, error) {
	dir, err := resolveRoot(e, rootFlag)
	if err != nil {
		return nil, "", err
	}
	st, err := openOrCreate(e, dir)
	return st, dir, err
}

// openOrCreate opens the wiki at dir, creating it with init's files first
// when the folder does not exist or has no schema.md (said on stderr).
func openOrCreate(e env, dir string) (*wiki.Store, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("wiki root %s is a file, not a folder", dir)
	}
	if _, err := os.Stat(dir + "/schema.md"); err != nil {
		created, err := wiki.Init(dir)
		if err != nil {
			return nil, fmt.Errorf("create wiki at %s: %s", dir, store.PublicMessage(err))
		}
		if len(created) > 0 {
			fmt.Fprintf(e.stderr, "llmwiki: created a new wiki at %s (%d files and folders)\n", dir, len(created))
		}
	}
	st, err := wiki.Open(dir, wiki.WithLogger(newLogger(e)))
	if err != nil {
		return nil, fmt.Errorf("open wiki at %s: %s", dir, store.PublicMessage(err))
	}
	return st, nil
}

func printConnectHelp(e env, dir string) {
	exe, err := os.Executable()
	if err != nil || strings.Contains(exe, "go-build") {
		exe = "llmwiki"
	}
	fmt.Fprintf(e.stderr, `llmwiki is an MCP server: it speaks JSON-RPC on stdin/stdout, and an editor starts it for you.
Wiki root: %s

Connect a client:
  Claude Code:  claude mcp add llmwiki -- %s serve --root %s
  Cursor:       add to .cursor/mcp.json:
                {"mcpServers": {"llmwiki": {"command": "%s", "args": ["serve", "--root", "%s"]}}}

Waiting for JSON-RPC on stdin (Ctrl-D or Ctrl-C to quit).
`, dir, exe, dir, exe, dir)
}

// newStdioServer wraps srv for stdio; separate so tests can reuse it.
func newStdioServer(srv *server.MCPServer) *server.StdioServer {
	return server.NewStdioServer(srv)
}
