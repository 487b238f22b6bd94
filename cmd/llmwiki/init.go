package main

import (
	"context"
	"fmt"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/git"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runInit(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "init", "init [--root DIR] [--git] [DIR]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	withGit := fs.Bool("git", false, "keep the wiki in git: set git: commit in schema.md, run git init when the folder is in no repository, write .gitignore and commit the wiki's files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("init takes one folder, got %d", fs.NArg())
	}
	want := *rootFlag
	if fs.NArg() == 1 {
		want = fs.Arg(0)
	}
	dir, err := resolveRoot(e, want)
	if err != nil {
		return err
	}
	if *withGit {
		// Before anything is created: a missing git says what to install.
		if _, err := gitcli.Find(); err != nil {
			return fmt.Errorf("init --git: %s", err)
		}
	}
	created, err := wiki.Init(dir)
	if err != nil {
		return fmt.Errorf("init %s: %s", dir, store.PublicMessage(err))
	}
	if len(created) == 0 && !*withGit {
		fmt.Fprintf(e.stdout, "%s is already a wiki; nothing was changed.\n", dir)
		return nil
	}
	if len(created) > 0 {
		fmt.Fprintf(e.stdout, "Initialised a wiki at %s:\n", dir)
		for _, c := range created {
			fmt.Fprintf(e.stdout, "  created %s\n", c)
		}
	}
	if *withGit {
		if err := initGit(ctx, e, dir); err != nil {
			return err
		}
	}
	if len(created) > 0 {
		fmt.Fprintf(e.stdout, "Next: drop documents into %s/sources/ and connect a client: llmwiki install <client> --root %s (claude-code, cline, continue, cursor, vscode, windsurf or zed)\n", dir, dir)
	}
	return nil
}

// initGit turns git on for the wiki at dir and says what it did.
func initGit(ctx context.Context, e env, dir string) error {
	st, err := wiki.Open(dir, wiki.WithLogger(newLogger(e)))
	if err != nil {
		return fmt.Errorf("open wiki at %s: %s", dir, store.PublicMessage(err))
	}
	defer st.Close()
	res, err := git.Enable(ctx, st)
	if err != nil {
		return fmt.Errorf("init --git: %s", store.PublicMessage(err))
	}
	if res.SchemaChanged {
		fmt.Fprintf(e.stdout, "  set git: %s in schema.md\n", res.Mode)
	}
	if res.Initialised {
		fmt.Fprintln(e.stdout, "  ran git init (branch main)")
	}
	if res.Gitignore {
		fmt.Fprintf(e.stdout, "  wrote %s (.llmwiki/ stays on this machine)\n", git.GitignoreFile)
	}
	if res.Commit != "" {
		fmt.Fprintf(e.stdout, "  committed %d files as %s\n", res.Files, res.Commit)
	} else {
		fmt.Fprintln(e.stdout, "  every file of the wiki was already committed")
	}
	fmt.Fprintf(e.stdout, "git is on (git: %s): every audited write is now one commit.\n", res.Mode)
	return nil
}
