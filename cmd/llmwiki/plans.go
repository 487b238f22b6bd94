package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"

	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
)

func runPlans(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "plans", "plans [--root DIR] [list | show ID [--show] | apply ID (--yes | --select 1,3)]\n\nllmwiki review lists these plans with the agents' change sets, by number, and approves or declines them.")
	rootFlag := fs.String("root", "", "wiki root (default $LLMWIKI_ROOT, else ~/llmwiki)")
	yes := fs.Bool("yes", false, "apply: every action")
	sel := fs.String("select", "", "apply: only these actions (\"1,3\", \"2-4\", \"none\" discards)")
	full := fs.Bool("show", false, "show: print each action's markdown")
	asJSON := fs.Bool("json", false, "list/show: print JSON")
	rest, err := parseAll(fs, args)
	if err != nil {
		return err
	}
	sub := "list"
	if len(rest) > 0 {
		sub, rest = rest[0], rest[1:]
	}
	st, _, err := openExistingRoot(e, *rootFlag)
	if err != nil {
		return err
	}
	defer st.Close()
	book := plan.NewBook(st)
	switch sub {
	case "list":
		list, _ := book.List()
		if *asJSON {
			b, _ := json.MarshalIndent(list, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return nil
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "No plans. llmwiki ingest FILE or llmwiki build proposes one.")
			return nil
		}
		now := st.Now()
		for _, p := range list {
			what := p.Op
			if p.Source != "" {
				what += " " + p.Source
			}
			fmt.Fprintf(e.stdout, "%s  %-28s %2d action(s)  %s\n", p.ID, p.StatusLine(now), len(p.Actions), what)
		}
		return nil
	case "show":
		if len(rest) != 1 {
			return fmt.Errorf("plans show takes one plan id")
		}
		p, err := book.Load(rest[0])
		if err != nil {
			return cliError(err)
		}
		if *asJSON {
			b, _ := json.MarshalIndent(p, "", "  ")
			fmt.Fprintln(e.stdout, string(b))
			return nil
		}
		printPlan(e, p, st.Now(), *full)
		if len(p.Results) > 0 {
			fmt.Fprintln(e.stdout)
			printResults(e, p)
		}
		return nil
	case "apply":
		if len(rest) != 1 {
			return fmt.Errorf("plans apply takes one plan id")
		}
		if !*yes && *sel == "" {
			return fmt.Errorf("plans apply needs --yes (every action) or --select 1,3")
		}
		call := store.NewCall("cli:plans-apply", st.SessionID(), map[string]any{"plan_id": rest[0], "yes": *yes, "select": *sel})
		ctx = store.WithCall(ctx, call)
		err := func() error {
			p, err := book.Load(rest[0])
			if err != nil {
				return err
			}
			return decide(ctx, e, st, app.New(st, app.Options{NoSearch: true}).Links, p, *yes, *sel, false, false)
		}()
		if aerr := st.Audit(call, err); aerr != nil {
			fmt.Fprintln(e.stderr, "llmwiki: audit line not written:", store.PublicMessage(aerr))
		}
		return cliError(err)
	}
	return fmt.Errorf("unknown plans subcommand %q; use list, show ID or apply ID", sub)
}

// parseAll parses flags that may come before, between or after the
// positional arguments ("plans apply ID --yes", "ingest paper.md --yes")
// and returns the positional ones.
func parseAll(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}
