package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmwiki/llmwiki/agents"
)

// claudePlugin returns where Claude Code records the llmwiki plugin
// ("llmwiki@<marketplace>") as installed or enabled, "" when nowhere.
// Claude Code lists installed plugins in ~/.claude/plugins/
// installed_plugins.json ("plugins", keyed name@marketplace) and enables
// them in a settings file's enabledPlugins ("name@marketplace": true), at
// user, project or local scope (https://code.claude.com/docs/en/settings,
// https://code.claude.com/docs/en/plugins/cli-reference). A file that
// does not parse is ignored: Claude Code's own files are not llmwiki's to
// judge.
func claudePlugin(o *Options) (id, where string) {
	prefix := agents.ServerName + "@"
	find := func(path string, keys map[string]any, enabledOnly bool) bool {
		var ids []string
		for k, v := range keys {
			if !strings.HasPrefix(k, prefix) {
				continue
			}
			if b, ok := v.(bool); enabledOnly && (!ok || !b) {
				continue
			}
			ids = append(ids, k)
		}
		if len(ids) == 0 {
			return false
		}
		sort.Strings(ids)
		id, where = ids[0], path
		return true
	}
	installed := filepath.Join(o.Home, ".claude", "plugins", "installed_plugins.json")
	var doc struct {
		Plugins map[string]any `json:"plugins"`
	}
	if readJSON(installed, &doc) && find(installed, doc.Plugins, false) {
		return id, where
	}
	settings := []string{filepath.Join(o.Home, ".claude", "settings.json")}
	if o.Project != "" {
		settings = append(settings, filepath.Join(o.Project, ".claude", "settings.json"), filepath.Join(o.Project, ".claude", "settings.local.json"))
	}
	for _, path := range settings {
		var s struct {
			EnabledPlugins map[string]any `json:"enabledPlugins"`
		}
		if readJSON(path, &s) && find(path, s.EnabledPlugins, true) {
			return id, where
		}
	}
	return "", ""
}

func readJSON(path string, v any) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && json.Unmarshal(data, v) == nil
}

// errPluginInstalled is the refusal when the plugin already serves llmwiki.
func errPluginInstalled(id, where string) error {
	return fmt.Errorf("the llmwiki Claude Code plugin (%s, recorded in %s) is installed: it already gives Claude Code the llmwiki server, sub-agents and commands, so install claude-code would add a second server and a second set of sub-agents. Nothing was changed. Keep the plugin alone, or remove it first (claude plugin uninstall %s) and run again, or pass --force to install both anyway", id, where, id)
}
