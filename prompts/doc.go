// Package prompts holds llmwiki's MCP prompts: the ingest, build, query,
// lint and research workflows, written so a small local model (3B) or a
// frontier model can follow them step by step with the server's tools.
// Clients show MCP prompts as slash commands (/mcp__llmwiki__ingest in
// Claude Code).
//
// Each workflow is an embedded markdown file (ingest.md, ...) with YAML
// frontmatter (name, title, description, the tools it requires, and its
// arguments with the kind of completion each offers) and a text/template
// body. The body names tools only through {{tool "name"}}, which fails to
// render when the server does not offer that tool, and branches on optional
// tools with {{if has "name"}}; so a prompt can never tell a model to call a
// tool that is not there, in any --read-only/--toolsets mode. A prompt whose
// required tools are missing is not offered at all.
//
// The agents package renders the same workflows into sub-agent definitions.
package prompts
