package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// runIndex regenerates index.md from every page's frontmatter, as the
// rebuild_index tool does, with progress on stderr.
func runIndex(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "index", "index [--root DIR]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki); it must exist")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("index takes no arguments (got %q); use --root DIR", fs.Arg(0))
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	app.InstallGit(st)
	ctx = wiki.WithProgress(ctx, func(done, total int, msg string) {
		fmt.Fprintf(e.stderr, "llmwiki index: %d/%d %s\n", done, total, msg)
	})
	res, err := st.RebuildIndex(store.WithCall(ctx, store.NewCall("cli:index", st.SessionID(), nil)))
	if err != nil {
		return fmt.Errorf("index: %s", cliMessage(err))
	}
	state := "unchanged"
	if res.Changed {
		state = "rewritten"
	}
	fmt.Fprintf(e.stdout, "index.md %s: %s\n", state, english.Count(res.Pages, "page"))
	return nil
}

// cliCommands names the command that does what an MCP tool does, for
// advice shown on the command line ("run rebuild_index" → "run llmwiki
// index"). Tools with no command (edit_page, write_page) keep their name.
var cliCommands = map[string]string{
	"rebuild_index": "llmwiki index",
}

// cliAdvice rewrites the tool names in advice to the commands that do the same.
func cliAdvice(advice string) string {
	for tool, cmd := range cliCommands {
		advice = strings.ReplaceAll(advice, tool, cmd)
	}
	return advice
}
