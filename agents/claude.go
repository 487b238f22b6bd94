package agents

import (
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/tools"
)

// Claude Code formats. Sub-agents are markdown files with YAML frontmatter
// (name, description, tools as a comma-separated string) in .claude/agents/
// or ~/.claude/agents/, https://code.claude.com/docs/en/sub-agents ; MCP
// tools are named mcp__<server>__<tool>, and a plugin's
// mcp__plugin_<plugin>_<server>__<tool>,
// https://code.claude.com/docs/en/mcp and
// https://code.claude.com/docs/en/plugins-reference . Slash commands are
// markdown files with description and argument-hint frontmatter and
// $ARGUMENTS in the body, https://code.claude.com/docs/en/slash-commands .

// ClaudeToolName is the name Claude Code gives an llmwiki tool registered as
// server ServerName in .mcp.json or ~/.claude.json.
func ClaudeToolName(tool string) string { return "mcp__" + ServerName + "__" + tool }

// ClaudePluginToolName is the name Claude Code gives an llmwiki tool served
// by the plugin's .mcp.json.
func ClaudePluginToolName(tool string) string {
	return "mcp__plugin_" + PluginName + "_" + ServerName + "__" + tool
}

// claudeWebTools are Claude Code's web tools, for CapWeb.
var claudeWebTools = []string{"WebSearch", "WebFetch"}

// ClaudeAllowlist is the agent's tools line: its llmwiki tools named by
// toolName, then the client tools its capabilities need.
func ClaudeAllowlist(r Resolved, toolName func(string) string) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, toolName(t))
	}
	if r.HasCap(CapWeb) {
		out = append(out, claudeWebTools...)
	}
	return out
}

// ClaudeAgentFile renders the agent as a Claude Code sub-agent file.
func ClaudeAgentFile(r Resolved, toolName func(string) string) []byte {
	fm := Frontmatter(
		Field{"name", r.Name()},
		Field{"description", r.Description},
		Field{"tools", strings.Join(ClaudeAllowlist(r, toolName), ", ")},
	)
	return append(fm, []byte("\n"+r.Body)...)
}

// ClaudeCommandFile renders a slash command that hands its workflow to
// agentRef (the sub-agent's name as Claude Code knows it).
func ClaudeCommandFile(c Command, agentRef string) []byte {
	fm := Frontmatter(
		Field{"description", c.Description},
		Field{"argument-hint", c.ArgumentHint},
	)
	return append(fm, []byte("\n"+c.delegation(agentRef, "$ARGUMENTS"))...)
}

// Plugin layout, repository-relative: the marketplace file Claude Code
// looks for at a marketplace's root, and the plugin folder it lists.
const (
	MarketplaceFile = ".claude-plugin/marketplace.json"
	PluginDir       = "agents/claude-plugin"
)

// PluginMCPConfig is the plugin's .mcp.json: llmwiki serve on the wiki at
// $LLMWIKI_ROOT, else ~/llmwiki (llmwiki must be on PATH).
func PluginMCPConfig() map[string]any {
	return map[string]any{"mcpServers": map[string]any{
		ServerName: map[string]any{"command": "llmwiki", "args": []string{"serve"}},
	}}
}

// PluginHooks is the plugin's hooks/hooks.json: at session start the agent
// gets the wiki's orientation (llmwiki orient --hook); at session end the
// transcript is saved as a source when the wiki asks for it (llmwiki capture
// --if-enabled does nothing unless schema.md sets capture_sessions: true or
// LLMWIKI_CAPTURE=1). Format: https://code.claude.com/docs/en/hooks
func PluginHooks() map[string]any {
	hook := func(cmd string, timeout int) []any {
		return []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": timeout}}}}
	}
	return map[string]any{
		"description": "llmwiki: orientation at session start; optional capture of the session as a source at session end",
		"hooks": map[string]any{
			"SessionStart": hook("llmwiki orient --hook", 10),
			"SessionEnd":   hook("llmwiki capture --if-enabled", 30),
		},
	}
}

// GeneratedFiles returns every file generated from the registry list that
// the repository commits, keyed by repository-relative path: the Claude Code
// plugin and its marketplace entry.
func GeneratedFiles(list []tools.Tool) (map[string][]byte, error) {
	rs, err := Resolve(list)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	files[MarketplaceFile] = JSON(map[string]any{
		"name":        MarketplaceName,
		"description": "llmwiki: an LLM-maintained markdown wiki served over MCP, with sub-agents that reach it only through audited writers",
		"owner":       map[string]any{"name": "llmwiki"},
		"plugins": []any{map[string]any{
			"name":        PluginName,
			"source":      "./" + PluginDir,
			"description": "The llmwiki MCP server, five tool-restricted sub-agents, slash commands, and session hooks",
			"version":     tools.Version,
			"category":    "productivity",
		}},
	})
	p := PluginDir + "/"
	files[p+".claude-plugin/plugin.json"] = JSON(map[string]any{
		"name":        PluginName,
		"version":     tools.Version,
		"description": "An LLM-maintained markdown wiki (Karpathy's LLM wiki) served over MCP: sub-agents that build, ingest, lint, research and answer through audited writers only.",
		"author":      map[string]any{"name": "llmwiki"},
		"license":     "MIT",
		"keywords":    []string{"wiki", "knowledge-base", "mcp", "markdown"},
		// The plugin's parts (a local stdio server, local hooks) reach no
		// network host; the researcher's web tools are Claude Code's own.
		"network": map[string]any{"hosts": []string{}},
	})
	files[p+".mcp.json"] = JSON(PluginMCPConfig())
	files[p+"hooks/hooks.json"] = JSON(PluginHooks())
	for _, r := range rs {
		files[p+"agents/"+r.Name()+".md"] = ClaudeAgentFile(r, ClaudePluginToolName)
	}
	for _, c := range Commands() {
		files[p+"commands/"+c.Name+".md"] = ClaudeCommandFile(c, PluginName+":wiki-"+c.Agent)
	}
	files[p+"README.md"] = pluginReadme(rs)
	return files, nil
}

func pluginReadme(rs []Resolved) []byte {
	var b strings.Builder
	b.WriteString("# llmwiki plugin for Claude Code\n\n")
	b.WriteString("Generated by `go generate ./agents` from the tool registry; do not edit by hand.\n\n")
	b.WriteString("Needs the `llmwiki` binary on PATH. The wiki is `$LLMWIKI_ROOT`, else `~/llmwiki`.\n\n")
	b.WriteString("```\n/plugin marketplace add <path or URL of the llmwiki repository>\n/plugin install llmwiki@llmwiki\n```\n\n")
	b.WriteString("| sub-agent | tools |\n|---|---|\n")
	for _, r := range rs {
		tl := ClaudeAllowlist(r, func(s string) string { return s })
		b.WriteString("| `" + r.Name() + "` | " + strings.Join(tl, ", ") + " |\n")
	}
	b.WriteString("\nCommands: ")
	var cs []string
	for _, c := range Commands() {
		cs = append(cs, "`/llmwiki:"+c.Name+"`")
	}
	sort.Strings(cs)
	b.WriteString(strings.Join(cs, ", ") + ".\n\n")
	b.WriteString("Hooks: SessionStart runs `llmwiki orient --hook` (the wiki's orientation as context); SessionEnd runs `llmwiki capture --if-enabled`, which saves the session transcript under `sources/sessions/` only when schema.md sets `capture_sessions: true` or `LLMWIKI_CAPTURE=1`.\n")
	return []byte(b.String())
}
