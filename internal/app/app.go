// Package app is the one place a program opens a wiki for its tools: it
// registers every derived state on the store (the search index and the
// link graph, kept in step with each audited write and closed with the
// store), holds the model client, and runs the background work a server
// starts after its clients' opening handshake and stops, within a bound,
// at shutdown.
package app

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/review"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// Options says what [New] wires.
type Options struct {
	// Log receives the tools' internal errors and the background work's
	// warnings (nil: the store's logger).
	Log *slog.Logger
	// Model is the endpoint propose_plan asks (nil: none configured).
	Model *model.Client
	// NoSearch leaves the search index out, for commands that never search
	// (lint, eval, ingest): their writes do not wait on it.
	NoSearch bool
	// ReadOnly is a server that registers only the read-only tools
	// (serve --read-only): its background work writes nothing to the
	// wiki, not even a regeneration of index.md a crashed server left
	// pending ([wiki.Store.ResumeIndex]; the next writing server does it).
	ReadOnly bool
}

// App is an open wiki with its derived state registered.
type App struct {
	Store *wiki.Store
	// Search is the search index (nil with [Options.NoSearch]). It is
	// registered but not started: [App.Start] opens, builds and reconciles
	// it in the background, so a server answers while a large wiki is
	// still being indexed.
	Search *search.Index
	// Links is the link graph: read_page's backlinks, lint's link checks,
	// move_page's rewrites, edit_page's add_links.
	Links *links.Graph
	Model *model.Client
	Log   *slog.Logger
	// Review is the wiki's review (change sets, the review queue); its
	// change-set actions run through the tools' own executors.
	Review *review.Service
	// Git is the wiki's git repository under git: commit or sync, nil
	// otherwise (see wiki/git).
	Git *git.Repo
	// GitError says why the repository could not be opened while
	// schema.md asks for git (no git installed, no repository); writes
	// are then not committed, and load_project and status say so.
	GitError string

	bgCtx  context.Context
	stopBg context.CancelFunc
	bg     sync.WaitGroup
	mu     sync.Mutex
	// started, stopped: Start runs its work once, and never after Stop.
	started, stopped bool
	warmLinks        bool
	warmReview       bool
	readOnly         bool // Options.ReadOnly
}

// New registers the derived states on st: the link graph, and the search
// index unless o.NoSearch. Closing the store closes them.
func New(st *wiki.Store, o Options) *App {
	log := o.Log
	if log == nil {
		log = st.Logger()
	}
	a := &App{Store: st, Model: o.Model, Log: log, readOnly: o.ReadOnly}
	a.bgCtx, a.stopBg = context.WithCancel(context.Background())
	if !o.NoSearch {
		a.Search = search.Open(st, search.Options{Logger: log})
		st.AddDerived(a.Search)
	}
	a.Links = links.Open(st)
	st.AddDerived(a.Links)
	a.openGit()
	a.Review = review.New(st, a.Links, tools.RunWrite(a.deps()))
	return a
}

// openGit opens the wiki's repository and installs its committer
// ([InstallGit]).
func (a *App) openGit() {
	a.Git, a.GitError = InstallGit(a.Store)
	if a.GitError != "" {
		a.Log.Warn("git: " + a.GitError)
	}
}

// InstallGit opens the repository of st and installs its committer when
// schema.md says git: commit or sync, for a command that writes without
// the rest of an [App]. Read at open: turning git on while a server runs
// takes effect at its next start; turning it off stops the commits at
// once. problem says why the repository could not be opened ("" when it
// opened or git is off).
func InstallGit(st *wiki.Store) (r *git.Repo, problem string) {
	if st.Settings().Git == wiki.GitOff {
		return nil, ""
	}
	r, err := git.Open(context.Background(), st)
	if err != nil {
		return nil, "writes are not committed to git: " + store.PublicMessage(err)
	}
	r.Install()
	return r, ""
}

// Deps is what the tools need; every transport (stdio, HTTP) and
// `llmwiki search` build from it.
func (a *App) Deps() tools.Deps {
	d := a.deps()
	d.Review = a.Review
	return d
}

func (a *App) deps() tools.Deps {
	return tools.Deps{Store: a.Store, Log: a.Log, Model: a.Model, Search: a.Search, Links: a.Links, Git: a.Git, GitError: a.GitError}
}

// WarmLinks makes [App.Start] also build the link graph, so that the first
// read_page does not wait for a walk of every page (serve sets it when
// read_page is served). Call it before Start.
func (a *App) WarmLinks() {
	a.mu.Lock()
	a.warmLinks = true
	a.mu.Unlock()
}

// WarmReview makes [App.Start] also read the review queue's index of the
// audit log, so that the first review page or tool call does not pay for
// parsing every marked line (serve --http sets it). Call it before Start.
func (a *App) WarmReview() {
	a.mu.Lock()
	a.warmReview = true
	a.mu.Unlock()
}

// Start starts the background work, once, unless [App.Stop] came first:
// the search index opens, builds and reconciles, the link graph is built
// when [App.WarmLinks] asked and the review queue read when
// [App.WarmReview] did. It returns at once.
func (a *App) Start() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started || a.stopped {
		return
	}
	a.started = true
	if !a.readOnly {
		a.Store.ResumeIndex() // an index.md regeneration a crash left pending
	}
	if a.Search != nil {
		a.Search.Start()
	}
	if a.warmLinks {
		ctx := a.bgCtx
		a.bg.Go(func() {
			if a.Search != nil {
				// On a fresh wiki the index build reads every file first:
				// the graph's walk beside it would hold both in memory at
				// once (at 144k pages 2.5 GB where the build alone peaks
				// near 0.4 GB) and slow the build the first searches wait
				// for. A read_page meanwhile builds the graph itself.
				_ = a.Search.Wait(ctx)
			}
			// One reader: the searches that come right after ready keep
			// the other processors.
			if err := a.Links.Warm(ctx); err != nil && ctx.Err() == nil {
				a.Log.Warn("link graph not built at start; read_page builds it", "err", err)
			}
		})
	}
	a.bg.Go(func() { a.syncLoop(a.bgCtx) }) // sync.go: idle unless git: sync with an interval
	if a.warmReview && a.Review != nil {
		a.bg.Go(func() {
			if _, err := a.Review.Count(); err != nil {
				a.Log.Warn("review queue not read at start; the first review reads it", "err", err)
			}
		})
	}
}

// HandshakeGrace is how long a stdio server waits for a client's opening
// handshake before it starts its background work anyway.
const HandshakeGrace = 200 * time.Millisecond

// StartAfter calls [App.Start] after d, unless it ran meanwhile (a request
// past the handshake starts it: tools.Options.PastHandshake). Over stdio a
// client sends initialize, initialized and tools/list as soon as it starts
// the server; background work started with them would delay their answers
// (two goroutines busy on a two-core machine hold both processors for a
// scheduler slice). The returned func cancels the timer.
func (a *App) StartAfter(d time.Duration) (cancel func()) {
	t := time.AfterFunc(d, a.Start)
	return func() { t.Stop() }
}

// Stop stops the background work and waits for it; Start does nothing
// after it.
func (a *App) Stop() {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.stopBg()
	a.bg.Wait()
}

// Close stops the background work and closes the store, and with it every
// derived state.
func (a *App) Close() error {
	a.Stop()
	return a.Store.Close()
}

// CloseGrace is how long a server may take to close the store and stop its
// background work once a shutdown abandoned calls still running.
const CloseGrace = time.Second

// Watchdog ends the process when, [CloseGrace] after a shutdown abandoned
// calls still running (Arm), the server has not returned (Stop): such a
// call may hold what the deferred closes wait for (a call that never
// returns holds the project lock; the process's end releases it, and a
// write the call had started is whole or absent, see the store's journal).
type Watchdog struct {
	t   atomic.Pointer[time.Timer]
	Log *slog.Logger
}

// Arm starts the countdown.
func (w *Watchdog) Arm() {
	w.t.Store(time.AfterFunc(CloseGrace, func() {
		w.Log.Error("exiting: calls abandoned at shutdown still hold the store (a write is whole or absent)")
		os.Exit(1)
	}))
}

// Stop stops the countdown; the server calls it in its last deferred call.
func (w *Watchdog) Stop() {
	if t := w.t.Load(); t != nil {
		t.Stop()
	}
}
