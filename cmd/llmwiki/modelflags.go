package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
	"golang.org/x/term"
)

// modelFlags are the flags of every command that talks to a model.
type modelFlags struct {
	baseURL, model, apiKey, format string
	timeout                        time.Duration
}

func addModelFlags(fs *flag.FlagSet) *modelFlags {
	m := &modelFlags{}
	fs.StringVar(&m.baseURL, "base-url", "", "OpenAI-compatible endpoint (default $"+model.EnvBaseURL+", else "+model.DefaultBaseURL+", a local Ollama)")
	fs.StringVar(&m.model, "model", "", "model name (default $"+model.EnvModel+", else "+model.DefaultModel+")")
	fs.StringVar(&m.apiKey, "api-key", "", "API key, sent only to --base-url's host (default $"+model.EnvAPIKey+" for $"+model.EnvBaseURL+"'s host, $"+model.EnvOpenAIKey+" for api.openai.com)")
	fs.DurationVar(&m.timeout, "timeout", 0, "longest wait for one completion (default $"+model.EnvTimeout+", else "+model.DefaultTimeout.String()+")")
	fs.StringVar(&m.format, "response-format", "", "json_object (default), json_schema or none (default $"+model.EnvResponseFormat+")")
	return m
}

// client resolves the flags and the environment into a model client,
// printing configuration notes (a key not sent to this host) to stderr.
func (m *modelFlags) client(e env) (*model.Client, error) {
	cfg, err := model.Resolve(e.getenv, model.Flags{BaseURL: m.baseURL, Model: m.model, APIKey: m.apiKey, ResponseFormat: m.format, Timeout: m.timeout})
	if err != nil {
		return nil, err
	}
	for _, n := range cfg.Notes {
		fmt.Fprintln(e.stderr, "llmwiki: note:", n)
	}
	return model.New(cfg)
}

// printPlan shows a plan as a numbered checklist.
func printPlan(e env, p *plan.Plan, now time.Time, full bool) {
	what := p.Op
	if p.Source != "" {
		what += " of " + p.Source
	}
	fmt.Fprintf(e.stdout, "Plan %s (%s), %s\n", p.ID, what, p.StatusLine(now))
	if len(p.Takeaways) > 0 {
		fmt.Fprintln(e.stdout, "\nTakeaways:")
		for _, t := range p.Takeaways {
			fmt.Fprintf(e.stdout, "  - %s\n", t)
		}
	}
	fmt.Fprintln(e.stdout, "\nProposed actions (nothing is written until you approve):")
	if len(p.Actions) == 0 {
		fmt.Fprintln(e.stdout, "  (none: the model proposes no change)")
	}
	for i, a := range p.Actions {
		fmt.Fprintf(e.stdout, "  [%d] %s\n", i+1, a.Describe())
		if full && a.Markdown != "" {
			for _, l := range strings.Split(strings.TrimRight(a.Markdown, "\n"), "\n") {
				fmt.Fprintf(e.stdout, "      | %s\n", l)
			}
		}
	}
	if p.Model != nil {
		fmt.Fprintf(e.stdout, "\n%s\n", p.Model)
	}
}

// printResults shows what an applied plan did; a caller that printed
// something before it separates the two with a blank line.
func printResults(e env, p *plan.Plan) {
	ok := 0
	for _, r := range p.Results {
		if r.Status == "ok" {
			ok++
		}
	}
	fmt.Fprintf(e.stdout, "Applied %d of %d approved action(s) of %s:\n", ok, len(p.Selected), p.Name())
	for _, r := range p.Results {
		line := fmt.Sprintf("  [%d] %-7s %s %s", r.N, r.Status, r.Kind, r.Path)
		if r.Error != "" {
			line += ": " + r.Error
		}
		for _, n := range r.Notes {
			line += " (" + n + ")"
		}
		fmt.Fprintln(e.stdout, line)
	}
}

// selection decides which actions to apply: --yes, --select, or an answer
// read from stdin when it is a terminal. ok is false when nobody was asked
// (the plan stays pending).
func selection(e env, p *plan.Plan, yes bool, sel string, canAsk bool) ([]int, bool, error) {
	switch {
	case yes && sel != "":
		return nil, false, fmt.Errorf("give --yes or --select, not both")
	case yes:
		s, err := plan.ParseSelection("all", len(p.Actions))
		return s, true, err
	case sel != "":
		s, err := plan.ParseSelection(sel, len(p.Actions))
		if err != nil {
			return nil, false, fmt.Errorf("--select: %s", store.PublicMessage(err))
		}
		return s, true, nil
	case !canAsk || len(p.Actions) == 0:
		return nil, false, nil
	}
	for range 3 {
		fmt.Fprintf(e.stdout, "\nApply which actions? Numbers like 1,3 or 2-4, \"all\" or \"none\": ")
		line, err := readAnswer(e)
		if err != nil {
			return nil, false, nil
		}
		s, perr := plan.ParseSelection(line, len(p.Actions))
		if perr == nil {
			return s, true, nil
		}
		fmt.Fprintln(e.stdout, store.PublicMessage(perr))
	}
	return nil, false, nil
}

// readAnswer reads one line from stdin.
func readAnswer(e env) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := e.stdin.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
			if b.Len() > 1000 {
				return b.String(), nil
			}
		}
		if err != nil {
			if b.Len() > 0 {
				return b.String(), nil
			}
			return "", err
		}
	}
}

// interactive reports whether stdin is a terminal a person types into.
func interactive(e env) bool {
	f, ok := e.stdin.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// pendingHint tells how to apply a plan later.
func pendingHint(e env, p *plan.Plan) {
	if len(p.Actions) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nThe plan is pending until %s UTC. Apply it with:\n  llmwiki plans apply %s --select 1,2   (or --yes for all)\n", p.Expires.Format("15:04:05"), p.ID)
	if p.Number > 0 {
		fmt.Fprintf(e.stdout, "  or: llmwiki review approve %d --only 1,2   (every action without --only)\n", p.Number)
	}
}
