package prompts

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MaxCompletions is the most values one completion/complete answer carries
// (the MCP limit is 100).
const MaxCompletions = 100

// Provider serves the prompts of one MCP server: prompts/list, prompts/get
// and completion/complete for prompt arguments. Create it with the names of
// the tools the server registers; only prompts whose required tools are all
// there are offered, and their text names only those tools.
type Provider struct {
	store *wiki.Store
	tools []string
	log   *slog.Logger
	list  []*Prompt
}

// NewProvider returns the provider for a server over st offering tools.
// st may be nil for listing (completions then return nothing).
func NewProvider(st *wiki.Store, tools []string, log *slog.Logger) *Provider {
	if log == nil {
		log = slog.Default()
	}
	pv := &Provider{store: st, tools: append([]string(nil), tools...), log: log}
	for _, p := range All() {
		if p.Available(tools) {
			pv.list = append(pv.list, p)
		}
	}
	return pv
}

// Prompts returns the prompts offered, sorted by name.
func (pv *Provider) Prompts() []*Prompt { return pv.list }

// ServerPrompts returns the prompts with their handlers, for
// server.MCPServer.AddPrompts.
func (pv *Provider) ServerPrompts() []server.ServerPrompt {
	out := make([]server.ServerPrompt, 0, len(pv.list))
	for _, p := range pv.list {
		out = append(out, server.ServerPrompt{Prompt: p.MCP(), Handler: pv.handler(p)})
	}
	return out
}

// MCP returns the prompt's definition as prompts/list shows it.
func (p *Prompt) MCP() mcp.Prompt {
	opts := []mcp.PromptOption{mcp.WithPromptTitle(p.Title), mcp.WithPromptDescription(p.Description)}
	for _, a := range p.Arguments {
		aopts := []mcp.ArgumentOption{mcp.ArgumentDescription(a.Description)}
		if a.Required {
			aopts = append(aopts, mcp.RequiredArgument())
		}
		opts = append(opts, mcp.WithArgument(a.Name, aopts...))
	}
	return mcp.NewPrompt(p.Name, opts...)
}

func (pv *Provider) handler(p *Prompt) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var call *store.Call
		if pv.store != nil {
			call = store.NewCall("prompt:"+p.Name, pv.store.SessionID(), req.Params.Arguments)
			if s := server.ClientSessionFromContext(ctx); s != nil {
				if id := s.SessionID(); id != "" && id != "stdio" {
					call.Session = id
				}
			}
		}
		mode := ""
		if pv.store != nil {
			mode = pv.store.Settings().Review
		}
		text, err := p.renderIn(req.Params.Arguments, pv.tools, mode)
		if call != nil {
			var aerr error
			if err != nil {
				aerr = store.Errorf(store.CodeInvalid, "%s", err.Error())
			}
			if e := pv.store.Audit(call, aerr); e != nil {
				pv.log.Error("audit line not written", "prompt", p.Name, "err", e)
			}
		}
		if err != nil {
			return nil, err
		}
		return mcp.NewGetPromptResult(p.Description, []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text)),
		}), nil
	}
}

// CompletePromptArgument implements server.PromptCompletionProvider: page
// slugs, source paths, source folders or research topics that start with
// (or, failing that, contain) the typed value, case-insensitively.
func (pv *Provider) CompletePromptArgument(ctx context.Context, promptName string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var kind string
	for _, p := range pv.list {
		if p.Name != promptName {
			continue
		}
		for _, a := range p.Arguments {
			if a.Name == arg.Name {
				kind = a.Complete
			}
		}
	}
	if kind == "" || pv.store == nil {
		return &mcp.Completion{Values: []string{}}, nil
	}
	cands, err := pv.candidates(kind)
	if err != nil {
		pv.log.Error("completion failed", "prompt", promptName, "argument", arg.Name, "err", err)
		return &mcp.Completion{Values: []string{}}, nil
	}
	return Complete(cands, arg.Value), nil
}

// candidates lists the values of a completion kind, in the order offered.
func (pv *Provider) candidates(kind string) ([]string, error) {
	switch kind {
	case CompletePage:
		pages, err := pv.store.Pages()
		if err != nil {
			return nil, err
		}
		out := make([]string, 0, len(pages))
		for _, p := range pages {
			out = append(out, p.Slug)
		}
		return out, nil
	case CompleteSource, CompleteFolder:
		srcs, err := pv.store.ListSources()
		if err != nil {
			return nil, err
		}
		if kind == CompleteSource {
			// New sources first: they are what an ingest is usually for.
			var fresh, rest []string
			for _, s := range srcs {
				if s.Status == "folded" {
					rest = append(rest, s.Path)
				} else {
					fresh = append(fresh, s.Path)
				}
			}
			return append(fresh, rest...), nil
		}
		seen := map[string]bool{}
		var out []string
		for _, s := range srcs {
			for d := path.Dir(s.Path); d != "." && d != "sources" && !seen[d]; d = path.Dir(d) {
				seen[d] = true
				out = append(out, d)
			}
		}
		sort.Strings(out)
		return out, nil
	case CompleteTopic:
		srcs, err := pv.store.ListSources()
		if err != nil {
			return nil, err
		}
		var out []string
		for _, s := range srcs {
			if strings.HasPrefix(s.Path, "sources/research/") && strings.HasSuffix(s.Path, ".md") {
				out = append(out, strings.TrimSuffix(strings.TrimPrefix(s.Path, "sources/research/"), ".md"))
			}
		}
		more, err := pv.candidates(CompletePage)
		if err != nil {
			return nil, err
		}
		return append(out, more...), nil
	}
	return nil, fmt.Errorf("unknown completion kind %q", kind)
}

// Complete filters cands by typed: those starting with it (ignoring case,
// and a leading "sources/" or "pages/"), then those containing it, at most
// [MaxCompletions], with the total and whether more exist.
func Complete(cands []string, typed string) *mcp.Completion {
	q := strings.ToLower(strings.TrimSpace(typed))
	var first, second []string
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c] {
			continue
		}
		seen[c] = true
		l := strings.ToLower(c)
		bare := strings.TrimPrefix(strings.TrimPrefix(l, "sources/"), "pages/")
		switch {
		case q == "" || strings.HasPrefix(l, q) || strings.HasPrefix(bare, q):
			first = append(first, c)
		case strings.Contains(l, q):
			second = append(second, c)
		}
	}
	all := append(first, second...)
	res := &mcp.Completion{Values: all, Total: len(all)}
	if len(all) > MaxCompletions {
		res.Values, res.HasMore = all[:MaxCompletions], true
	}
	if res.Values == nil {
		res.Values = []string{}
	}
	return res
}
