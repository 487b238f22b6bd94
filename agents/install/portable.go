package install

import (
	"path/filepath"
	"strings"
)

// Per-client path variables for files committed with a project. Claude Code
// expands ${VAR} and ${VAR:-default} from the environment in .mcp.json and
// starts a project's servers in the project folder
// (https://code.claude.com/docs/en/mcp); VS Code expands ${workspaceFolder}
// and ${userHome} in mcp.json
// (https://code.visualstudio.com/docs/reference/variables-reference), and
// Cursor the same two in .cursor/mcp.json (https://cursor.com/docs/mcp,
// "Config interpolation"). Zed starts context servers in the project
// folder (https://github.com/zed-industries/zed/pull/35271).
type pathVars struct {
	// project is the prefix for a path inside the project ("" for a plain
	// relative path, which the client resolves from the project folder).
	project string
	// home stands for the home folder.
	home string
}

var (
	claudeVars = pathVars{project: "", home: "${HOME}"}
	vscodeVars = pathVars{project: "${workspaceFolder}", home: "${userHome}"}
	// zedVars: Zed expands nothing in settings.json but starts a
	// project's context servers in the project folder; llmwiki itself
	// expands a leading ~/ in --root.
	zedVars = pathVars{project: "", home: "~"}
	// continueVars: Continue's YAML blocks expand only ${{ secrets.* }}
	// and ${{ inputs.* }} templates, no home or workspace variable, and
	// it starts a stdio server without cwd in the workspace folder
	// (resolveCwd in continuedev/continue core/context/mcp/MCPConnection.ts
	// resolves "." against the workspace); llmwiki itself expands a
	// leading ~/ in --root.
	continueVars = pathVars{project: "", home: "~"}
)

// sharedServer returns the command and serve arguments for a server entry
// in a file committed with the project (vars: the client's expansion), and
// a note saying how they were written. Outside project scope, and for a
// wiki neither in the project nor under the home folder, the absolute paths
// stay. The installing user's home path is never written when avoidable: a
// teammate's differs.
func (o *Options) sharedServer(vars pathVars) (command string, args []string, note string) {
	command, args = o.Command, o.serveArgs()
	if o.Scope != ScopeProject {
		return command, args, ""
	}
	var why []string
	if o.OnPath {
		command = "llmwiki"
		why = append(why, "the command is written as llmwiki (found on PATH)")
	}
	if rel, ok := within(o.Project, o.Root); ok {
		root := rel
		if vars.project != "" {
			root = vars.project
			if rel != "." {
				root += "/" + rel
			}
		}
		args = []string{"serve", "--root", root}
		why = append(why, "the wiki path is written as "+root+" (inside the project)")
	} else if rel, ok := within(o.Home, o.Root); ok {
		root := vars.home
		if rel != "." {
			root += "/" + rel
		}
		args = []string{"serve", "--root", root}
		why = append(why, "the wiki path is written as "+root+" (expanded to each user's home folder)")
	}
	if len(why) == 0 {
		return command, args, ""
	}
	return command, args, strings.Join(why, " and ") + ", so the file can be shared."
}

// unsharedNote names the parts of a project-scope server entry still
// written as absolute paths (a command not on PATH, a wiki neither in the
// project nor under the home folder), which a teammate's machine lacks.
func unsharedNote(command string, args []string) string {
	var abs []string
	if filepath.IsAbs(command) {
		abs = append(abs, "the command "+command+" (llmwiki is not on PATH)")
	}
	if len(args) == 3 && args[1] == "--root" && filepath.IsAbs(args[2]) {
		abs = append(abs, "the wiki path "+args[2]+" (neither in the project nor under the home folder)")
	}
	if len(abs) == 0 {
		return ""
	}
	return "Written as absolute paths, so the file cannot be shared as it is: " + strings.Join(abs, " and ") + "."
}

// within returns path relative to dir, with slashes, when path is dir or
// inside it.
func within(dir, path string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// shownRoot is the wiki root as project-scope rule files name it: relative
// to the project, or ~/..., so a committed file holds no one's home path.
func (o *Options) shownRoot() string {
	if o.Scope != ScopeProject {
		return o.Root
	}
	if rel, ok := within(o.Project, o.Root); ok {
		if rel == "." {
			return "the project folder"
		}
		return rel
	}
	if rel, ok := within(o.Home, o.Root); ok {
		return "~/" + rel
	}
	return o.Root
}
