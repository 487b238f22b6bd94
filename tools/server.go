package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/llmwiki/llmwiki/prompts"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Version is llmwiki's version, reported in initialize.
var Version = "0.1.0-dev"

// Instructions is the MCP initialize "instructions" text: the workflow in a
// few lines, for the agent's system prompt.
const Instructions = `llmwiki keeps a markdown wiki: raw sources/ (immutable), pages/ written by agents, context.md (the synthesis), index.md, guidelines.md and log.md. Reach it only through these tools; every write is validated, locked, snapshotted, atomic and audited.
Workflow: 1) load_project first (rules, guidelines, synthesis, what is pending). 2) To answer a question, search_wiki or read index.md, then read_page; read sources only when the wiki lacks the answer. 3) To ingest, save_source, then write_page for each topic (read_page first and pass base_sha256 to update). 4) To build, gather_sources until next_cursor is absent, then atomic_write_context with folded_sources. 5) End every workflow with one append_log entry.
The prompts ingest, build, query, lint and research spell each workflow out step by step.
Errors say what to do next (a conflict means read the page again and merge).`

// ListPageSize is the most items one tools/list, resources/list or
// prompts/list page holds; the rest follow with nextCursor.
const ListPageSize = 500

// NewServer builds the MCP server with the selected tools registered, and
// the workflow prompts (package prompts) whose tools are all there, with
// completions for their arguments (page slugs, source paths); the wiki's
// files as resources (see [PageTemplate]; list_changed and updated
// notifications follow every write); MCP logging (one message per tool call
// at the level the client set with logging/setLevel); and progress
// notifications for long calls when the client sends a progress token.
// Every transport (stdio, HTTP) serves what this returns. It registers
// derived state on d.Store that keeps the resources in step: use one server
// per store.
func NewServer(d Deps, opts Options) (*server.MCPServer, []string, error) {
	if d.Store != nil && d.Links == nil {
		return nil, nil, errors.New("tools: Deps.Links is nil; open the store's link graph (links.Open) and register it")
	}
	sel, err := Select(d, opts)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(sel))
	for _, t := range sel {
		names = append(names, t.Tool.Name)
	}
	pv := prompts.NewProvider(d.Store, names, d.logger())
	hooks := &server.Hooks{}
	if opts.PastHandshake != nil {
		hooks.AddBeforeAny(func(_ context.Context, _ any, m mcp.MCPMethod, _ any) {
			switch m {
			case mcp.MethodInitialize, mcp.MethodServerDiscover, mcp.MethodPing, mcp.MethodSetLogLevel,
				mcp.MethodToolsList, mcp.MethodPromptsList, mcp.MethodResourcesList, mcp.MethodResourcesTemplatesList:
				return
			}
			opts.PastHandshake()
		})
	}
	var s *server.MCPServer
	if opts.Cancelled != nil {
		hooks.AddOnRequestInitialization(func(ctx context.Context, id any, message any) error {
			if id == nil || !opts.Cancelled(ctx, id) {
				return nil
			}
			auditCancelledCall(ctx, d, message)
			return errCancelledBeforeStart
		})
		// A cancel that comes between that check and mcp-go registering
		// the call for cancellation would be lost; once it is registered,
		// a cancel already recorded is handed to mcp-go again, so the call
		// starts with its context cancelled (a write then starts nothing).
		hooks.AddBeforeCallTool(func(ctx context.Context, id any, _ *mcp.CallToolRequest) {
			if id == nil || !opts.Cancelled(ctx, id) {
				return
			}
			b, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
				Method: string(mcp.MethodNotificationCancelled),
				Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id}},
			}})
			if err == nil {
				s.HandleMessage(ctx, b)
			}
		})
	}
	s = server.NewMCPServer("llmwiki", Version,
		server.WithInstructions(Instructions),
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(pv),
		server.WithPaginationLimit(ListPageSize),
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithResourceRecovery(),
	)
	addTools(s, sel)
	s.AddPrompts(pv.ServerPrompts()...)
	if d.Store != nil { // nil only when listing the catalogue
		if err := registerResources(s, d, hooks); err != nil {
			return nil, nil, err
		}
	}
	return s, names, nil
}
