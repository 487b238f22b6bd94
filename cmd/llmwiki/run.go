package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agnivade/levenshtein"
)

// exitCode is returned by a command that has already said what it had to and
// wants the process to exit with this status (lint finding errors: 1).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// env is what every command gets: the streams and the environment lookup.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// command is one subcommand of llmwiki.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e env, args []string) error
}

// commands lists every subcommand, in the order help shows them.
func commands() []command {
	return []command{
		{"serve", "serve a wiki to MCP clients over stdio, or HTTP with --http", runServe},
		{"ui", "serve the review page and the wiki in a browser (loopback; also at / of serve --http)", runUI},
		{"search", "search the wiki from the command line (the search_wiki engine)", runSearch},
		{"init", "create a wiki's folders and starting files (never overwrites)", runInit},
		{"status", "show the wiki at a glance: pages, sources, lint, eval, search index, snapshots, recent log (--json)", runStatus},
		{"lint", "check the wiki's links, pages and index; exit 1 when a finding is an error", runLint},
		{"eval", "measure how well the wiki answers: hit rate, wasted reads, gaps, citations", runEval},
		{"tools", "list the MCP tools (--markdown for the README table)", runTools},
		{"install", "write llmwiki into an editor's config: claude-code, cursor, cline, continue, zed, vscode, windsurf", runInstall},
		{"agents", "list the sub-agents and the tools each may call", runAgents},
		{"orient", "print the wiki's orientation for a starting agent session (SessionStart hook)", runOrient},
		{"capture", "save a Claude Code session as a source under sources/sessions/ (SessionEnd hook)", runCapture},
		{"ingest", "save a source, let a model propose takeaways and a plan, apply what you approve", runIngest},
		{"build", "let a model propose a new context.md from the pages and pending sources, apply it if you approve", runBuild},
		{"index", "regenerate index.md from the pages' frontmatter (the rebuild_index tool)", runIndex},
		{"review", "review what agents wrote: approve or decline change sets, accept or revert writes (--json)", runReview},
		{"plans", "list, show or apply plans a model proposed (they expire after 10 minutes); llmwiki review lists them with the agents' change sets", runPlans},
		{"doctor", "check that the model endpoint and model answer, and say what to do if not", runDoctor},
		{"sync", "sync the wiki with its git remote: commit outside edits, fetch, rebase by the wiki's conflict rules, --push (git: sync)", runSync},
		{"history", "list a page's versions: its commits with git on (following moves), else its snapshots (--json)", runHistory},
		{"snapshots", "list the stored earlier versions of pages and context.md, restore one, or prune by the retention", runSnapshots},
		{"version", "print the version", runVersion},
	}
}

// run is the whole program: it parses args and runs one command. It never
// calls os.Exit, so tests drive it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	tuneProcess()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(ctx, e, args[1:])
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
	}
	usage(stderr)
	if near := nearestCommand(args[0]); near != "" {
		return fmt.Errorf("unknown command %q; did you mean %q?", args[0], near)
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// nearestCommand is the command whose name is closest to name by edit
// distance, when it is close: at most 2 edits and fewer than half of name's
// letters; else "".
func nearestCommand(name string) string {
	best, bestD := "", 3
	for _, c := range commands() {
		if d := levenshtein.ComputeDistance(strings.ToLower(name), c.name); d < bestD && 2*d < len(name) {
			best, bestD = c.name, d
		}
	}
	return best
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "llmwiki keeps an LLM-maintained markdown wiki and serves it to editor agents over MCP.")
	fmt.Fprintln(w, "\nUsage: llmwiki <command> [flags]\n\nCommands:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRun \"llmwiki <command> -h\" for a command's flags. The wiki root is --root, else $LLMWIKI_ROOT, else ~/llmwiki.")
}

// newFlags returns a flag set that prints its usage to e.stderr.
func newFlags(e env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: llmwiki %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// resolveRoot picks the wiki root: the flag, else $LLMWIKI_ROOT, else
// ~/llmwiki. The result is absolute.
func resolveRoot(e env, flagValue string) (string, error) {
	root := flagValue
	if root == "" {
		root = e.getenv("LLMWIKI_ROOT")
	}
	if root == "" {
		home := e.getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no --root given, $LLMWIKI_ROOT is unset and the home folder is unknown: %w", err)
			}
			home = h
		}
		root = filepath.Join(home, "llmwiki")
	}
	if strings.HasPrefix(root, "~/") {
		if home := e.getenv("HOME"); home != "" {
			root = filepath.Join(home, root[2:])
		}
	}
	return filepath.Abs(root)
}

// newLogger returns the slog logger for stderr; LLMWIKI_LOG=debug|info|warn|error sets the level.
func newLogger(e env) *slog.Logger { return newLoggerAt(e, slog.LevelInfo) }

// newCommandLogger is the logger of a one-shot command whose answer is its
// output (search): warnings and errors only, unless $LLMWIKI_LOG says
// otherwise, so progress lines do not crowd the terminal.
func newCommandLogger(e env) *slog.Logger { return newLoggerAt(e, slog.LevelWarn) }

// newLoggerAt logs to stderr at $LLMWIKI_LOG (debug, info, warn, error),
// else at def.
func newLoggerAt(e env, def slog.Level) *slog.Logger {
	var lvl slog.Level
	switch strings.ToLower(e.getenv("LLMWIKI_LOG")) {
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	case "info":
		lvl = slog.LevelInfo
	default:
		lvl = def
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))
}

func runVersion(_ context.Context, e env, _ []string) error {
	fmt.Fprintln(e.stdout, "llmwiki", version())
	return nil
}
