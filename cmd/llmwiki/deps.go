package main

import (
	"log/slog"

	"github.com/llmwiki/llmwiki/tools"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/model"
)

// newDeps wires what the tools need for the store st (mc may be nil: no
// model configured); every transport (stdio, HTTP) builds its server from
// the same Deps.
func newDeps(_ env, st *wiki.Store, log *slog.Logger, mc *model.Client) (tools.Deps, error) {
	return tools.Deps{Store: st, Log: log, Model: mc}, nil
}
