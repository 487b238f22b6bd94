package main

import (
	"context"
	"fmt"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runBuild(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "build", "build [--root DIR] [--note TEXT] [--yes | --select 1,3] [--show] [model flags]")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	note := fs.String("note", "", "guidance for the model")
	yes := fs.Bool("yes", false, "apply every proposed action without asking")
	sel := fs.String("select", "", "apply only these actions (\"1,3\"), without asking")
	full := fs.Bool("show", false, "print each action's markdown (the new context.md) in the checklist")
	budget := fs.Int("budget", plan.DefaultSourceBudget, "most characters of pending sources (two thirds) and page text shown to the model")
	mf := addModelFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("build takes no arguments (got %q)", fs.Arg(0))
	}
	if *yes && *sel != "" {
		return fmt.Errorf("give --yes or --select, not both")
	}
	mc, err := mf.client(e)
	if err != nil {
		return err
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	call := store.NewCall("cli:build", st.SessionID(), map[string]any{"yes": *yes, "select": *sel, "budget": *budget})
	ctx = store.WithCall(ctx, call)
	err = func() error {
		fmt.Fprintf(e.stdout, "Asking %s at %s for a new context.md…\n\n", mc.Config().Model, mc.Config().Host())
		p, err := (&plan.Proposer{Store: st, Model: mc, SourceBudget: *budget}).Build(ctx, plan.BuildInput{Note: *note})
		if err != nil {
			return err
		}
		if len(p.Folded) > 0 {
			fmt.Fprintf(e.stdout, "Applying it records %d source(s) as folded into context.md.\n", len(p.Folded))
		}
		return decide(ctx, e, st, app.New(st, app.Options{NoSearch: true}).Links, p, *yes, *sel, *full, interactive(e))
	}()
	if aerr := st.Audit(call, err); aerr != nil {
		fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
	}
	return cliError(err)
}
