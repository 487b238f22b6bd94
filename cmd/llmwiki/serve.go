package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/server/jsonrpc"
	"github.com/llmwiki/llmwiki/server/stdio"
	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/term"
)

func runServe(ctx context.Context, e env, args []string) error {
	var wd app.Watchdog
	defer wd.Stop()
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
		if err := hc.resolveReviewToken(e.getenv); err != nil {
			return err
		}
		var err error
		if ln, err = listenHTTP(*hc); err != nil {
			return err
		}
		defer ln.Close()
	}
	log := newLogger(e)
	wd.Log = log
	if err := startPprof(ctx, e, e.getenv("LLMWIKI_PPROF"), log); err != nil {
		return err
	}
	st, dir, err := openRoot(e, *rootFlag)
	if err != nil {
		return err
	}
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
	// The app registers the search index and the link graph on the store;
	// its background work (indexing, the link graph read_page's backlinks
	// need) starts after the opening handshake (see below) and is stopped,
	// and waited for, before the store closes.
	a := app.New(st, app.Options{Log: log, Model: mc, ReadOnly: *readOnly})
	defer a.Close()
	if hc.shutdownTimeout <= 0 {
		return errors.New("--shutdown-timeout must be positive")
	}
	cancelled := jsonrpc.NewCancelledIDs()
	opts := tools.Options{ReadOnly: *readOnly, PastHandshake: a.Start, Cancelled: cancelled.Refuses}
	if *toolsets != "" {
		opts.Toolsets = strings.Split(*toolsets, ",")
	}
	srv, names, err := tools.NewServer(a.Deps(), opts)
	if err != nil {
		return err
	}
	if slices.Contains(names, "read_page") {
		a.WarmLinks()
	}
	if httpMode {
		web, err := webApp(a, hc.reviewToken)
		if err != nil {
			return err
		}
		a.WarmReview()
		a.Start()
		return runHTTP(ctx, e, *hc, ln, st, srv, web, log, len(names), cancelled, wd.Arm)
	}
	// Over stdio the background work starts at the first request past the
	// handshake (Options.PastHandshake), or app.HandshakeGrace after
	// serving begins, whichever comes first.
	defer a.StartAfter(app.HandshakeGrace)()
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		printConnectHelp(e, dir)
	}
	useTestHang(e, srv, st)
	log.Info("serving over stdio", "root", dir, "tools", len(names))
	return stdio.Serve(ctx, srv, e.stdin, e.stdout, e.stderr, st, cancelled, stdio.Drain{Timeout: hc.shutdownTimeout, Log: log, Abandoned: wd.Arm})
}

// testHangEnv names a tool whose calls never return, holding the project
// lock with a page staged: for the tests of the shutdown bound only (a
// handler stuck in a system call is not reproducible on demand). Not
// documented for users.
const testHangEnv = "LLMWIKI_TEST_HANG_TOOL"

// hangStarted is logged when a [testHangEnv] call has taken the lock.
const hangStarted = "test hang: a call that never returns holds the project lock"

// useTestHang installs the [testHangEnv] middleware when it is set. The
// transports call it after their own middleware, so the stuck call is
// inside what they count as in flight, as a real tool call would be.
func useTestHang(e env, srv *server.MCPServer, st *wiki.Store) {
	if name := e.getenv(testHangEnv); name != "" {
		srv.Use(hangTool(name, st))
	}
}

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
