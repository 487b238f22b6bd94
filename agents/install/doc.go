// Package install writes llmwiki into an editor client's own configuration:
// the MCP server entry in that client's file and format, and the agent, rule
// or workflow files the client has (Claude Code sub-agents and slash
// commands, Cursor rules, Cline rules and workflows, Continue rules, VS Code
// custom agents, Zed agent profiles, Windsurf rules and workflows). The
// formats are each client's current documented ones; every client's code
// cites the pages it follows.
//
// It merges, never clobbers: existing files are parsed with real parsers
// (encoding/json for JSON, github.com/tailscale/hujson for the JSONC of VS
// Code and Zed, gopkg.in/yaml.v3 for Continue) and only the keys llmwiki owns
// are set; other servers, unknown keys, comments and key order stay. A key
// that already holds the wanted value is not touched, so a second run
// changes no byte. Every file that changes is first copied to
// <file>.llmwiki-backup-<time>, then replaced atomically. Nothing is written
// when any file cannot be: an invalid config (the error says where), a
// config that is a symlink, an unwritable folder. DryRun reports the same
// plan as a diff and writes nothing.
//
// testdata/install/golden holds what a fresh install writes for each client
// and scope; go generate ./agents/install refreshes it.
package install

//go:generate go test -run TestGolden -update .
