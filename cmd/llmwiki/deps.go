package main

import (
	"log/slog"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
	"github.com/llmwiki/llmwiki/wiki/search"
)

// newDeps wires what the tools need for the store st (mc may be nil: no
// model configured); every transport (stdio, HTTP) and `llmwiki search`
// build from the same Deps. The search index is registered with the store,
// so every audited write updates it in the same call and closing the store
// closes it. The caller starts it (deps.Search.Start: it opens, builds and
// reconciles in the background, so a server answers while a large wiki is
// still being indexed); serve does so once the handshake is answered.
func newDeps(_ env, st *wiki.Store, log *slog.Logger, mc *model.Client) (tools.Deps, error) {
	idx := search.Open(st, search.Options{Logger: log})
	st.AddDerived(idx)
	return tools.Deps{Store: st, Log: log, Model: mc, Search: idx}, nil
}
