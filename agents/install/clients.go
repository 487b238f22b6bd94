package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmwiki/llmwiki/agents"
	"gopkg.in/yaml.v3"
)

var clients = []client{
	{"claude-code", "Claude Code", claudeCode},
	{"cursor", "Cursor", cursor},
	{"cline", "Cline", cline},
	{"continue", "Continue", continueDev},
	{"zed", "Zed", zed},
	{"vscode", "VS Code", vscode},
	{"windsurf", "Windsurf", windsurf},
}

// userConfigDir is the per-user application config folder: $XDG_CONFIG_HOME
// or ~/.config on Linux, ~/Library/Application Support on macOS, %APPDATA%
// on Windows.
func (o *Options) userConfigDir() string {
	switch o.GOOS {
	case "darwin":
		return filepath.Join(o.Home, "Library", "Application Support")
	case "windows":
		if a := o.Env("APPDATA"); a != "" {
			return a
		}
		return filepath.Join(o.Home, "AppData", "Roaming")
	}
	if x := o.Env("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	return filepath.Join(o.Home, ".config")
}

// claudeCode: https://code.claude.com/docs/en/mcp (project .mcp.json with
// mcpServers; user scope in ~/.claude.json's top-level mcpServers),
// https://code.claude.com/docs/en/settings (enabledMcpjsonServers approves
// project servers; .claude/settings.local.json is personal),
// https://code.claude.com/docs/en/sub-agents (.claude/agents/*.md,
// ~/.claude/agents/*.md), https://code.claude.com/docs/en/slash-commands
// (.claude/commands/*.md, ~/.claude/commands/*.md).
func claudeCode(o *Options) (*plan, error) {
	id, where := claudePlugin(o)
	if id != "" && !o.Force {
		return nil, errPluginInstalled(id, where)
	}
	rs, err := o.resolved()
	if err != nil {
		return nil, err
	}
	command, args, note := o.sharedServer(claudeVars)
	entry := ordered{{"type", "stdio"}, {"command", command}, {"args", args}}
	p := &plan{}
	if note != "" {
		p.notes = append(p.notes, note)
	}
	var base string
	if o.Scope == ScopeProject {
		base = filepath.Join(o.Project, ".claude")
		p.edits = append(p.edits,
			jsonEdit(filepath.Join(o.Project, ".mcp.json"), "MCP server "+agents.ServerName+" (project scope, shared)", false, func(d *jsonDoc) error {
				return d.setEntry(entry, "mcpServers", agents.ServerName)
			}),
			jsonEdit(filepath.Join(base, "settings.local.json"), "approval of the project's "+agents.ServerName+" server (enabledMcpjsonServers, personal)", false, func(d *jsonDoc) error {
				return d.addToList(agents.ServerName, "enabledMcpjsonServers")
			}),
		)
		p.next = "Run claude in " + o.Project + " and accept the folder trust prompt; the llmwiki server is already approved for you (teammates approve it once). Check with: claude mcp list. Then try /wiki-query <question>."
	} else {
		base = filepath.Join(o.Home, ".claude")
		p.edits = append(p.edits, jsonEdit(filepath.Join(o.Home, ".claude.json"), "MCP server "+agents.ServerName+" (user scope)", false, func(d *jsonDoc) error {
			return d.setEntry(entry, "mcpServers", agents.ServerName)
		}))
		p.next = "Start claude anywhere and check with: claude mcp list (llmwiki should show as connected). Then try /wiki-query <question>."
	}
	for _, r := range rs {
		p.edits = append(p.edits, textFile(filepath.Join(base, "agents", r.Name()+".md"), "sub-agent "+r.Name(), agents.ClaudeAgentFile(r, agents.ClaudeToolName)))
	}
	for _, c := range agents.Commands() {
		p.edits = append(p.edits, textFile(filepath.Join(base, "commands", "wiki-"+c.Name+".md"), "slash command /wiki-"+c.Name, agents.ClaudeCommandFile(c, "wiki-"+c.Agent)))
	}
	if id != "" {
		p.notes = append(p.notes, "--force: the llmwiki plugin ("+id+") is installed too, so Claude Code shows two llmwiki servers and two sets of sub-agents; remove one with claude plugin uninstall "+id+" or by deleting these files.")
	}
	p.notes = append(p.notes, "Alternative, not an addition: the plugin (agents/claude-plugin) installs the same server and sub-agents plus session hooks, instead of this install (not both, or Claude Code runs two llmwiki servers). To switch: remove these files, then /plugin marketplace add <llmwiki repository> and /plugin install llmwiki@llmwiki.")
	return p, nil
}

// cursor: https://cursor.com/docs/mcp (.cursor/mcp.json in the project,
// ~/.cursor/mcp.json for the user; mcpServers with command and args) and
// https://cursor.com/docs/context/rules (.cursor/rules/*.mdc with
// description, globs and alwaysApply frontmatter; user rules live in the
// settings UI, not in files).
func cursor(o *Options) (*plan, error) {
	command, args, note := o.sharedServer(vscodeVars)
	entry := ordered{{"command", command}, {"args", args}}
	p := &plan{}
	if note != "" {
		p.notes = append(p.notes, note)
	}
	dir := filepath.Join(o.Home, ".cursor")
	if o.Scope == ScopeProject {
		dir = filepath.Join(o.Project, ".cursor")
		rule := append(agents.Frontmatter(
			agents.Field{Key: "description", Value: "How to work with this project's llmwiki wiki (MCP server llmwiki)"},
			agents.Field{Key: "globs", Value: ""},
			agents.Field{Key: "alwaysApply", Value: true},
		), []byte("\n"+rulesBody(o))...)
		p.edits = append(p.edits, textFile(filepath.Join(dir, "rules", "llmwiki.mdc"), "project rule llmwiki", rule))
	} else {
		p.notes = append(p.notes, "Cursor keeps user rules in Settings > Rules, not in files; the project scope writes .cursor/rules/llmwiki.mdc.")
	}
	p.edits = append([]fileEdit{jsonEdit(filepath.Join(dir, "mcp.json"), "MCP server "+agents.ServerName, false, func(d *jsonDoc) error {
		return d.setEntry(entry, "mcpServers", agents.ServerName)
	})}, p.edits...)
	p.next = "Open Cursor Settings > MCP (Customize > MCPs) and check that llmwiki is listed and switched on; its prompts appear as slash commands in the agent chat."
	return p, nil
}

// clineHosts are the places Cline keeps its MCP settings: the extension's
// globalStorage (saoudrizwan.claude-dev) under each VS Code-based editor's
// user folder, and the Cline CLI's ~/.cline/data. The first is the default
// when none exists yet.
var clineHosts = []struct{ name, app string }{
	{"vscode", "Code"},
	{"insiders", "Code - Insiders"},
	{"vscodium", "VSCodium"},
	{"cursor", "Cursor"},
	{"windsurf", "Windsurf"},
	{"cli", ""},
}

// ClineHosts returns the names --host accepts for Cline.
func ClineHosts() []string {
	var out []string
	for _, h := range clineHosts {
		out = append(out, h.name)
	}
	return out
}

// clineSettings is the cline_mcp_settings.json of one host.
func (o *Options) clineSettings(app string) string {
	if app == "" {
		return filepath.Join(o.Home, ".cline", "data", "settings", "cline_mcp_settings.json")
	}
	return filepath.Join(o.userConfigDir(), app, "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
}

// clineTargets picks the settings files to write: the one o.Host names
// (created if missing), else every one that exists, else VS Code's.
func clineTargets(o *Options) ([]string, []string, error) {
	if o.Host != "" {
		for _, h := range clineHosts {
			if h.name == o.Host {
				return []string{o.clineSettings(h.app)}, nil, nil
			}
		}
		return nil, nil, fmt.Errorf("unknown Cline host %q; known hosts: %s", o.Host, strings.Join(ClineHosts(), ", "))
	}
	var found []string
	for _, h := range clineHosts {
		f := o.clineSettings(h.app)
		if _, err := os.Lstat(f); err == nil {
			found = append(found, f)
		}
	}
	if len(found) > 0 {
		return found, nil, nil
	}
	f := o.clineSettings(clineHosts[0].app)
	return []string{f}, []string{"No Cline settings file exists yet, so VS Code's is created (" + f + "); for Cline in another editor or the CLI pass --host " + strings.Join(ClineHosts(), "|") + "."}, nil
}

// cline: https://docs.cline.bot/mcp/configuring-mcp-servers (MCP servers
// only in the extension's cline_mcp_settings.json, under the editor's
// globalStorage for saoudrizwan.claude-dev, or the CLI's ~/.cline/data;
// mcpServers with command, args, and Cline's own disabled/autoApprove,
// which are kept), https://docs.cline.bot/customization/cline-rules
// (.clinerules/*.md in the workspace; global rules in ~/Documents/Cline/Rules)
// and https://docs.cline.bot/customization/workflows (.clinerules/workflows/,
// global ~/Documents/Cline/Workflows; invoked as /name.md).
func cline(o *Options) (*plan, error) {
	entry := ordered{{"command", o.Command}, {"args", o.serveArgs()}}
	targets, notes, err := clineTargets(o)
	if err != nil {
		return nil, err
	}
	p := &plan{notes: notes}
	for _, settings := range targets {
		p.edits = append(p.edits, jsonEdit(settings, "MCP server "+agents.ServerName+" (Cline keeps servers per user only)", false, func(d *jsonDoc) error {
			return d.setEntry(entry, "mcpServers", agents.ServerName)
		}))
	}
	rules, workflows := filepath.Join(o.Project, ".clinerules"), filepath.Join(o.Project, ".clinerules", "workflows")
	if o.Scope == ScopeUser {
		rules, workflows = filepath.Join(o.Home, "Documents", "Cline", "Rules"), filepath.Join(o.Home, "Documents", "Cline", "Workflows")
	} else {
		p.notes = append(p.notes, "Cline has no project-level MCP file: the server entry goes to your user settings ("+strings.Join(targets, ", ")+").")
	}
	p.edits = append(p.edits, textFile(filepath.Join(rules, "llmwiki.md"), "rule llmwiki", []byte(rulesBody(o))))
	for _, c := range agents.Commands() {
		text, ok, err := workflowBody(o, c.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			p.edits = append(p.edits, textFile(filepath.Join(workflows, "wiki-"+c.Name+".md"), "workflow /wiki-"+c.Name+".md", []byte(text)))
		}
	}
	p.next = "Open Cline's MCP Servers panel: llmwiki should show a green dot. Run a workflow with /wiki-query.md in the Cline chat."
	return p, nil
}

// continueDev: https://docs.continue.dev/customize/deep-dives/mcp (block
// files in .continue/mcpServers/*.yaml with name, version, schema and an
// mcpServers list of entries with name, command, args; read from the
// workspace and from ~/.continue) and
// https://docs.continue.dev/customize/deep-dives/rules (.continue/rules/*.md
// with name and alwaysApply frontmatter; ~/.continue/rules for the user).
// The user scope writes a block file too, never ~/.continue/config.yaml:
// Continue loads config.yaml in place of an older config.json, so creating
// one would hide the user's models and settings.
func continueDev(o *Options) (*plan, error) {
	command, args, note := o.sharedServer(continueVars)
	server := ordered{{"name", agents.ServerName}, {"type", "stdio"}, {"command", command}, {"args", args}}
	p := &plan{}
	if note != "" {
		p.notes = append(p.notes, note)
	}
	if o.Scope == ScopeProject {
		if n := unsharedNote(command, args); n != "" {
			p.notes = append(p.notes, n)
		}
	}
	base := filepath.Join(o.Project, ".continue")
	if o.Scope == ScopeUser {
		base = filepath.Join(o.Home, ".continue")
		p.notes = append(p.notes, continueUserNote(base))
	}
	p.edits = append(p.edits, yamlEdit(filepath.Join(base, "mcpServers", agents.ServerName+".yaml"), "MCP server block "+agents.ServerName, func(d *yamlDoc) error {
		for _, kv := range []kv{{"name", "llmwiki MCP server"}, {"version", "0.0.1"}, {"schema", "v1"}} {
			if err := d.setDefault(kv.Key, kv.Value); err != nil {
				return err
			}
		}
		return d.upsertNamed("mcpServers", server)
	}))
	rule := append(agents.Frontmatter(
		agents.Field{Key: "name", Value: "llmwiki"},
		agents.Field{Key: "description", Value: "How to work with the llmwiki wiki (MCP server llmwiki)"},
		agents.Field{Key: "alwaysApply", Value: true},
	), []byte("\n"+rulesBody(o))...)
	p.edits = append(p.edits, textFile(filepath.Join(base, "rules", "llmwiki.md"), "rule llmwiki", rule))
	p.next = "Reload Continue (it reads its config on change) and switch to Agent mode: llmwiki's tools are listed under MCP servers and its prompts as slash commands."
	return p, nil
}

// continueUserNote says why the server goes to a block file and which of
// the user's config files stays untouched.
func continueUserNote(base string) string {
	var kept []string
	for _, f := range []string{"config.yaml", "config.json"} {
		if _, err := os.Lstat(filepath.Join(base, f)); err == nil {
			kept = append(kept, filepath.Join(base, f))
		}
	}
	n := "The server goes to the block file " + filepath.Join(base, "mcpServers", agents.ServerName+".yaml") + ", which Continue reads beside its config; a new config.yaml would replace an older config.json and hide its models."
	if len(kept) > 0 {
		n += " Left untouched: " + strings.Join(kept, ", ") + "."
	}
	// An earlier llmwiki wrote its server into config.yaml; two entries of
	// one name would start two servers.
	var cfg struct {
		McpServers []struct{ Name string } `yaml:"mcpServers"`
	}
	if b, err := os.ReadFile(filepath.Join(base, "config.yaml")); err == nil && yaml.Unmarshal(b, &cfg) == nil {
		for _, s := range cfg.McpServers {
			if s.Name == agents.ServerName {
				n += " " + filepath.Join(base, "config.yaml") + " also lists a server named " + agents.ServerName + " (an earlier install): remove that entry so Continue starts one."
				break
			}
		}
	}
	return n
}

// zed: https://zed.dev/docs/ai/mcp (context_servers in settings.json with
// command, args and env; project settings in .zed/settings.json, read once
// the worktree is trusted), https://zed.dev/docs/ai/agent-profiles
// (agent.profiles with built-in tools and per-server MCP tools, so each
// llmwiki agent becomes a profile allowing only its tools),
// https://zed.dev/docs/ai/rules (project rules: the first of zedRulesFiles
// at the top of the worktree) and https://zed.dev/docs/ai/instructions
// (personal instructions in AGENTS.md beside the user settings.json). Zed's
// settings are JSON with comments and trailing commas (JSONC), kept as
// they are.
func zed(o *Options) (*plan, error) {
	command, args, note := o.sharedServer(zedVars)
	entry := ordered{{"command", command}, {"args", args}, {"env", map[string]string{}}}
	p := &plan{}
	if note != "" {
		p.notes = append(p.notes, note)
	}
	var settings string
	if o.Scope == ScopeProject {
		settings = filepath.Join(o.Project, ".zed", "settings.json")
		p.notes = append(p.notes, "Zed reads agent profiles from your user settings only; run with --scope user to add the wiki-* profiles.")
	} else if o.GOOS == "windows" {
		settings = filepath.Join(o.userConfigDir(), "Zed", "settings.json")
	} else {
		cfg := filepath.Join(o.Home, ".config")
		if x := o.Env("XDG_CONFIG_HOME"); o.GOOS == "linux" && x != "" && filepath.IsAbs(x) {
			cfg = x
		}
		settings = filepath.Join(cfg, "zed", "settings.json")
	}
	var profiles []agents.Resolved
	if o.Scope == ScopeUser {
		rs, err := o.resolved()
		if err != nil {
			return nil, err
		}
		profiles = rs
	}
	p.edits = append(p.edits, jsonEdit(settings, "context server "+agents.ServerName+profileWhat(profiles), true, func(d *jsonDoc) error {
		if err := d.setEntry(entry, "context_servers", agents.ServerName); err != nil {
			return err
		}
		for _, r := range profiles {
			if err := d.set(zedProfile(r), "agent", "profiles", r.Name()); err != nil {
				return err
			}
		}
		return nil
	}))
	if o.Scope == ScopeProject {
		rules, existing := zedRulesFile(o.Project)
		if existing && filepath.Base(rules) != ".rules" {
			p.notes = append(p.notes, "Zed reads only the first project rules file of "+strings.Join(zedRulesFiles, ", ")+"; this project has "+filepath.Base(rules)+", so the llmwiki block goes there rather than into a new .rules that would hide it.")
		}
		p.edits = append(p.edits, blockEdit(rules, "llmwiki block in the project rules Zed reads", rulesBody(o)))
	} else {
		p.edits = append(p.edits, blockEdit(filepath.Join(filepath.Dir(settings), "AGENTS.md"), "llmwiki block in your personal instructions", rulesBody(o)))
	}
	p.next = "In Zed open the Agent Panel settings (agent: open settings): llmwiki should have a green dot. Pick a wiki-* profile to give the agent only that role's tools."
	if o.Scope == ScopeProject {
		p.next = "Open the project in Zed and trust it (Restricted Mode blocks project MCP servers), then check the Agent Panel settings for llmwiki's green dot."
	}
	return p, nil
}

// zedRulesFiles are the project rules files Zed looks for at the top of a
// worktree, in order; it reads only the first one present
// (https://zed.dev/docs/ai/rules).
var zedRulesFiles = []string{".rules", ".cursorrules", ".windsurfrules", ".clinerules", ".github/copilot-instructions.md", "AGENT.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}

// zedRulesFile returns the rules file Zed reads in project (existing true),
// else project/.rules. A folder of that name (Cline's .clinerules/) is not
// a rules file to Zed; a symlink counts, and Install then refuses it.
func zedRulesFile(project string) (string, bool) {
	for _, name := range zedRulesFiles {
		p := filepath.Join(project, filepath.FromSlash(name))
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode().IsRegular() {
			return p, true
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, true
			}
		}
	}
	return filepath.Join(project, ".rules"), false
}

func profileWhat(rs []agents.Resolved) string {
	if len(rs) == 0 {
		return ""
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Name())
	}
	return " and agent profiles " + strings.Join(names, ", ")
}

// zedBuiltinWrite are Zed's built-in tools that change files or run
// commands (https://zed.dev/docs/ai/tools, "Edit Tools"), and subagent,
// which starts another agent with tools of its own: each is set false in
// every llmwiki profile, so none depends on how Zed treats a tool a profile
// does not list.
var zedBuiltinWrite = []string{"edit_file", "create_directory", "delete_path", "move_path", "copy_path", "restore_file_from_disk", "save_file", "terminal", "subagent"}

func zedProfile(r agents.Resolved) ordered {
	builtins := ordered{}
	for _, t := range zedBuiltinWrite {
		builtins = append(builtins, kv{t, false})
	}
	if r.HasCap(agents.CapWeb) {
		builtins = append(builtins, kv{"fetch", true}, kv{"web_search", true})
	}
	mcp := ordered{}
	for _, t := range r.Tools {
		mcp = append(mcp, kv{t, true})
	}
	return ordered{
		{"name", "Wiki " + strings.ToUpper(r.Role[:1]) + r.Role[1:]},
		{"tools", builtins},
		{"enable_all_context_servers", false},
		{"context_servers", ordered{{agents.ServerName, ordered{{"tools", mcp}}}}},
	}
}

// vscode: https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
// (.vscode/mcp.json in the workspace or mcp.json in the user profile folder;
// a top-level servers object, stdio servers with type, command and args;
// JSONC) and https://code.visualstudio.com/docs/agent-customization/custom-agents
// (.github/agents/*.agent.md in the workspace, ~/.copilot/agents for the
// user; tools listed as <server>/<tool>).
func vscode(o *Options) (*plan, error) {
	rs, err := o.resolved()
	if err != nil {
		return nil, err
	}
	command, args, note := o.sharedServer(vscodeVars)
	entry := ordered{{"type", "stdio"}, {"command", command}, {"args", args}}
	p := &plan{}
	if note != "" {
		p.notes = append(p.notes, note)
	}
	mcpFile := filepath.Join(o.userConfigDir(), "Code", "User", "mcp.json")
	agentDir := filepath.Join(o.Home, ".copilot", "agents")
	if o.Scope == ScopeProject {
		mcpFile = filepath.Join(o.Project, ".vscode", "mcp.json")
		agentDir = filepath.Join(o.Project, ".github", "agents")
	}
	p.edits = append(p.edits, jsonEdit(mcpFile, "MCP server "+agents.ServerName, true, func(d *jsonDoc) error {
		return d.setEntry(entry, "servers", agents.ServerName)
	}))
	for _, r := range rs {
		p.edits = append(p.edits, textFile(filepath.Join(agentDir, r.Name()+".agent.md"), "custom agent "+r.Name(), vscodeAgent(r)))
	}
	p.next = "In VS Code run MCP: List Servers and start llmwiki (trust it when asked); the wiki-* agents appear in the Chat view's agent picker."
	return p, nil
}

func vscodeAgent(r agents.Resolved) []byte {
	var tl []string
	for _, t := range r.Tools {
		tl = append(tl, agents.ServerName+"/"+t)
	}
	if r.HasCap(agents.CapWeb) {
		tl = append(tl, "web/fetch")
	}
	fm := agents.Frontmatter(
		agents.Field{Key: "name", Value: r.Name()},
		agents.Field{Key: "description", Value: r.Description},
		agents.Field{Key: "tools", Value: tl},
	)
	return append(fm, []byte("\n"+r.Body)...)
}

// windsurf: https://docs.windsurf.com/windsurf/cascade/mcp (servers only in
// ~/.codeium/windsurf/mcp_config.json, mcpServers with command and args),
// https://docs.windsurf.com/windsurf/cascade/memories (workspace rules in
// .windsurf/rules/*.md with a trigger frontmatter; global rules in the one
// file global_rules.md, ~/.codeium/windsurf/memories/global_rules.md, read
// up to 6,000 characters) and
// https://docs.windsurf.com/windsurf/cascade/workflows (.windsurf/workflows/
// *.md, invoked as /name).
func windsurf(o *Options) (*plan, error) {
	entry := ordered{{"command", o.Command}, {"args", o.serveArgs()}}
	cfg := filepath.Join(o.Home, ".codeium", "windsurf", "mcp_config.json")
	p := &plan{}
	p.edits = append(p.edits, jsonEdit(cfg, "MCP server "+agents.ServerName+" (Windsurf keeps servers per user only)", false, func(d *jsonDoc) error {
		return d.setEntry(entry, "mcpServers", agents.ServerName)
	}))
	if o.Scope == ScopeProject {
		p.notes = append(p.notes, "Windsurf has no project-level MCP file: the server entry goes to "+cfg+".")
		rule := append(agents.Frontmatter(
			agents.Field{Key: "trigger", Value: "always_on"},
			agents.Field{Key: "description", Value: "How to work with this project's llmwiki wiki (MCP server llmwiki)"},
		), []byte("\n"+rulesBody(o))...)
		p.edits = append(p.edits, textFile(filepath.Join(o.Project, ".windsurf", "rules", "llmwiki.md"), "workspace rule llmwiki", rule))
		for _, c := range agents.Commands() {
			text, ok, err := workflowBody(o, c.Name)
			if err != nil {
				return nil, err
			}
			if ok {
				wf := append(agents.Frontmatter(agents.Field{Key: "description", Value: c.Description}), []byte("\n"+text)...)
				p.edits = append(p.edits, textFile(filepath.Join(o.Project, ".windsurf", "workflows", "wiki-"+c.Name+".md"), "workflow /wiki-"+c.Name, wf))
			}
		}
	} else {
		p.edits = append(p.edits, blockEdit(filepath.Join(o.Home, ".codeium", "windsurf", "memories", "global_rules.md"), "llmwiki block in your global rules", rulesBody(o)))
		p.notes = append(p.notes, fmt.Sprintf("Windsurf limits the size of global_rules.md (6,000 characters in its docs); the llmwiki block takes about %d of them. Workflows are per project: run with --scope project to add .windsurf/workflows.", len(rulesBody(o))/100*100+100))
	}
	p.next = "In Windsurf open Cascade > MCP servers and press refresh: llmwiki should be listed with its tools."
	return p, nil
}
