package install

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/agents"
)

// ProjectWiki is the wiki a project's Claude Code configuration serves.
type ProjectWiki struct {
	// Root is the wiki root, absolute.
	Root string
	// Config is the .mcp.json file that names it.
	Config string
}

// FindProjectWiki returns the wiki root that the .mcp.json nearest to dir
// (dir itself or a parent) gives the llmwiki server, the way the
// claude-code client writes it: the server named llmwiki, else the one
// server whose command is llmwiki; its --root argument, else its env
// LLMWIKI_ROOT. ${VAR} and ${VAR:-default} are expanded with getenv as
// Claude Code expands them; a relative root is taken from the project
// folder. It returns nil when no .mcp.json is found or it names no wiki
// root, and an error when the file cannot be read or parsed.
func FindProjectWiki(dir string, getenv func(string) string) (*ProjectWiki, error) {
	if dir == "" || !filepath.IsAbs(dir) {
		return nil, nil
	}
	dir = filepath.Clean(dir)
	for {
		file := filepath.Join(dir, ".mcp.json")
		// A FIFO would block the read and a device (a link to /dev/zero)
		// never end it: only a regular file is read.
		fi, err := os.Stat(file)
		if err == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", file)
		}
		var data []byte
		if err == nil {
			data, err = os.ReadFile(file)
		}
		if err == nil {
			root, err := mcpJSONRoot(data, getenv)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if root == "" {
				return nil, nil
			}
			if strings.HasPrefix(root, "~/") && getenv("HOME") != "" {
				root = filepath.Join(getenv("HOME"), root[2:])
			}
			if !filepath.IsAbs(root) {
				root = filepath.Join(dir, root)
			}
			return &ProjectWiki{Root: filepath.Clean(root), Config: file}, nil
		}
		if !os.IsNotExist(err) {
			return nil, fmt.Errorf("%s cannot be read: %v", file, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// mcpJSONRoot is the wiki root .mcp.json data gives the llmwiki server,
// "" when it names none.
func mcpJSONRoot(data []byte, getenv func(string) string) (string, error) {
	d, err := parseJSON(data, false)
	if err != nil {
		return "", err
	}
	v, _ := d.get("mcpServers")
	servers, _ := v.(map[string]any)
	server, _ := servers[agents.ServerName].(map[string]any)
	if server == nil {
		var names []string
		for name, s := range servers {
			m, _ := s.(map[string]any)
			cmd, _ := m["command"].(string)
			base := strings.TrimSuffix(filepath.Base(filepath.ToSlash(cmd)), ".exe")
			if base == agents.ServerName {
				names = append(names, name)
			}
		}
		if len(names) != 1 {
			sort.Strings(names)
			if len(names) > 1 {
				return "", fmt.Errorf("servers %s all run llmwiki; name the one to use %s", strings.Join(names, ", "), agents.ServerName)
			}
			return "", nil
		}
		server = servers[names[0]].(map[string]any)
	}
	args, _ := server["args"].([]any)
	for i, a := range args {
		s, _ := a.(string)
		for _, flag := range []string{"--root", "-root"} {
			if s == flag && i+1 < len(args) {
				next, _ := args[i+1].(string)
				return expandVars(next, getenv), nil
			}
			if v, ok := strings.CutPrefix(s, flag+"="); ok {
				return expandVars(v, getenv), nil
			}
		}
	}
	env, _ := server["env"].(map[string]any)
	if v, ok := env["LLMWIKI_ROOT"].(string); ok {
		return expandVars(v, getenv), nil
	}
	return "", nil
}

var varRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`) })

// expandVars expands ${VAR} and ${VAR:-default} as Claude Code does in
// .mcp.json (https://code.claude.com/docs/en/mcp).
func expandVars(s string, getenv func(string) string) string {
	return varRE().ReplaceAllStringFunc(s, func(m string) string {
		g := varRE().FindStringSubmatch(m)
		if v := getenv(g[1]); v != "" {
			return v
		}
		return g[2]
	})
}
