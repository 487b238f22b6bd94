package main

import (
	"context"
	"fmt"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runInit(_ context.Context, e env, args []string) error {
	fs := newFlags(e, "init", "init [--root DIR] [DIR]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
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
	created, err := wiki.Init(dir)
	if err != nil {
		return fmt.Errorf("init %s: %s", dir, store.PublicMessage(err))
	}
	if len(created) == 0 {
		fmt.Fprintf(e.stdout, "%s is already a wiki; nothing was changed.\n", dir)
		return nil
	}
	fmt.Fprintf(e.stdout, "Initialised a wiki at %s:\n", dir)
	for _, c := range created {
		fmt.Fprintf(e.stdout, "  created %s\n", c)
	}
	fmt.Fprintf(e.stdout, "Next: drop documents into %s/sources/ and connect a client: llmwiki serve --root %s\n", dir, dir)
	return nil
}
