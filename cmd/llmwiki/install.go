package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/llmwiki/llmwiki/agents/install"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/tools"
)

// runInstall writes llmwiki into an editor client's configuration (package
// agents/install), printing what it changed and the next step.
func runInstall(_ context.Context, e env, args []string) error {
	fs := newFlags(e, "install", "install <client> [--scope project|user] [--root DIR] [--project DIR] [--command PATH] [--host NAME] [--dry-run] [--force]\n\nClients: "+strings.Join(install.Clients(), ", "))
	scope := fs.String("scope", install.ScopeProject, "project: files in the project (shared where the client allows); user: your own configuration")
	rootFlag := fs.String("root", "", "wiki root the client starts the server on (default $LLMWIKI_ROOT, else ~/llmwiki)")
	project := fs.String("project", "", "project folder for --scope project (default the current folder)")
	command := fs.String("command", "", "llmwiki executable the client runs (default this binary's path)")
	host := fs.String("host", "", "cline only: write just this host's settings ("+strings.Join(install.ClineHosts(), ", ")+"), creating it if missing; default every one that exists")
	dryRun := fs.Bool("dry-run", false, "print the changes as a diff and write nothing")
	force := fs.Bool("force", false, "claude-code: install even when the llmwiki Claude Code plugin is installed (two servers, two sets of sub-agents)")
	var client string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		client, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if client == "" && fs.NArg() > 0 {
		client = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("install takes one client, got %q too", fs.Arg(0))
	}
	if client == "" {
		return fmt.Errorf("name a client: llmwiki install <client>; known clients: %s", strings.Join(install.Clients(), ", "))
	}
	root, err := resolveRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	home := e.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	proj := *project
	if proj == "" {
		proj, err = os.Getwd()
		if err != nil {
			return err
		}
	}
	if proj, err = filepath.Abs(proj); err != nil {
		return err
	}
	cmd := *command
	var notes []string
	onPath := false
	if cmd == "" {
		cmd = "llmwiki"
		if exe, err := os.Executable(); err == nil && !strings.Contains(exe, "go-build") {
			cmd = exe
			onPath = sameFile(lookPath(e, "llmwiki"), exe)
		} else {
			notes = append(notes, "this binary is a temporary `go run` build, so the client is told to run \"llmwiki\" from PATH; install it with go install ./cmd/llmwiki or pass --command")
		}
	}
	res, err := install.Install(install.Options{
		Client: client, Scope: *scope, Project: proj, Home: home, Env: e.getenv,
		Root: root, Command: cmd, Tools: tools.Catalogue(tools.Deps{}), OnPath: onPath, Force: *force, Host: *host, DryRun: *dryRun,
	})
	if err != nil {
		return err
	}
	verb := map[string]string{"create": "created", "update": "updated", "unchanged": "unchanged"}
	if *dryRun {
		verb = map[string]string{"create": "would create", "update": "would update", "unchanged": "unchanged"}
	}
	fmt.Fprintf(e.stdout, "llmwiki install %s (%s scope), wiki root %s, server command %s:\n", res.Client, res.Scope, root, cmd)
	for _, c := range res.Changes {
		fmt.Fprintf(e.stdout, "  %-12s %s  (%s)\n", verb[c.Action], c.Path, c.What)
		if c.Backup != "" {
			fmt.Fprintf(e.stdout, "  %-12s %s\n", "backup", c.Backup)
		}
	}
	if *dryRun {
		for _, c := range res.Changes {
			if c.Diff != "" {
				fmt.Fprint(e.stdout, "\n"+c.Diff)
			}
		}
		fmt.Fprintf(e.stdout, "\nDry run: %s would change; nothing was written.\n", english.Count(res.Changed(), "file"))
		return nil
	}
	if res.Changed() == 0 {
		fmt.Fprintln(e.stdout, "Nothing to change: llmwiki is already installed here.")
	} else {
		fmt.Fprintf(e.stdout, "%s changed.\n", english.Count(res.Changed(), "file"))
	}
	for _, n := range append(notes, res.Notes...) {
		fmt.Fprintln(e.stdout, "Note: "+n)
	}
	if _, err := os.Stat(filepath.Join(root, "schema.md")); err != nil {
		fmt.Fprintf(e.stdout, "Note: there is no wiki at %s yet; the server creates it on first start (or run: llmwiki init %s).\n", root, root)
	}
	fmt.Fprintln(e.stdout, "Next: "+res.Next)
	return nil
}

// sameFile reports whether a and b name one file (after symlinks).
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// lookPath is the file the name runs from PATH ($PATH as e sees it), as a
// shell finds it; "" when none. Relative PATH entries are skipped, as
// exec.LookPath refuses them.
func lookPath(e env, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
			return p
		}
	}
	return ""
}
