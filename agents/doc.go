// Package agents defines llmwiki's sub-agents (builder, curator, researcher,
// ingester, librarian) and renders them for each client.
//
// An agent is a rule, not a list: every read-only tool of the registry, the
// write tools it names, and the client's own tools it needs (the web, for the
// researcher). [Resolve] intersects the rule with [tools.Catalogue], so an
// allowlist can never name a tool that does not exist, and a tool that lands
// later joins the agents that name it (read tools join every agent) the next
// time the files are generated. A write tool an agent names but the registry
// lacks is reported as pending, never written into an allowlist.
//
// Each agent's instructions are its workflow from package prompts rendered
// against exactly its own allowlist, so the text never tells it to call a
// tool it does not have. No agent gets a client file-writing or shell tool
// (Edit, Write, MultiEdit, NotebookEdit, Bash): its only way to the wiki is
// the audited writers.
//
// The Claude Code plugin in the repository (agents/claude-plugin, listed by
// .claude-plugin/marketplace.json at the root) is generated from here;
// [GeneratedFiles] returns it and a test keeps the committed copy equal.
// Regenerate with go generate ./agents (go generate ./... refreshes every
// generated file of the repository).
// Package agents/install writes these definitions into each client.
package agents

//go:generate go test -run TestGeneratedFilesCurrent -update .
