// Package gitcli runs the git command line: found on PATH, always with an
// argument list (never a shell string), in a chosen folder, with the
// environment cleaned of the variables that would point git at another
// repository, index or configuration, and with hooks off unless the caller
// asks for them.
//
// It knows nothing of wikis: it is the engine's front door. Callers build
// the arguments; this package only runs them safely and reports failures.
package gitcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNotFound is returned by [Find] when no git is on PATH.
var ErrNotFound = errors.New("git is not installed or not on PATH: install git (https://git-scm.com/downloads), or set git: off in schema.md")

// Find returns the path of the git executable on PATH.
func Find() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", ErrNotFound
	}
	return p, nil
}

// Git runs git in one folder.
type Git struct {
	// Path is the git executable ([Find]).
	Path string
	// Dir is the folder git runs in (its working directory); paths given
	// to git are relative to it.
	Dir string
	// Hooks lets git run the repository's hooks. Off, every command runs
	// with core.hooksPath pointing at no folder, so a pre-commit or
	// post-commit hook the wiki did not ask for never runs.
	Hooks bool
	// Env is added to the cleaned environment of every command
	// ("NAME=value").
	Env []string
}

// Error is a git command that failed: its arguments, exit code and what
// it printed on stderr (trimmed). Error() never includes host paths the
// caller did not pass in args.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.ExitCode)
	}
	name := "git"
	if len(e.Args) > 0 {
		name += " " + e.Args[0]
	}
	return name + ": " + msg
}

// ExitCode returns the exit code of err when it is an [*Error], else -1.
func ExitCode(err error) int {
	var ge *Error
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}

// scrubbed are the variables that would make git act on a repository,
// index, object store, work tree or configuration other than the one Dir
// holds (set by an outer git, a hook, or the user's shell).
var scrubbed = []string{
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
	"GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_PREFIX",
	"GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
	"GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS",
	"GIT_PAGER", "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT",
	"GIT_TRACE2_PERF", "GIT_QUARANTINE_PATH", "GIT_REPLACE_REF_BASE", "GIT_SHALLOW_FILE",
	"GIT_GRAFT_FILE", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
	"GIT_ICASE_PATHSPECS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR",
}

// environ is the process environment without [scrubbed], plus the settings
// every command needs: no prompts for credentials, no pager, C locale for
// parseable output, literal pathspecs (a page named "*.md" is that file).
func (g *Git) environ(extra []string) []string {
	drop := map[string]bool{}
	for _, k := range scrubbed {
		drop[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C",
		"GIT_LITERAL_PATHSPECS=1", "GIT_EDITOR=true")
	env = append(env, g.Env...)
	return append(env, extra...)
}

// args puts the options every command takes before the caller's.
func (g *Git) args(args []string) []string {
	pre := []string{"-c", "core.quotePath=false", "-c", "color.ui=false"}
	if !g.Hooks {
		pre = append(pre, "-c", "core.hooksPath="+os.DevNull)
	}
	return append(pre, args...)
}

// Run runs git with args and returns its stdout.
func (g *Git) Run(ctx context.Context, args ...string) ([]byte, error) {
	return g.RunWith(ctx, nil, nil, args...)
}

// RunWith runs git with args, stdin (nil: none) and env added to the
// cleaned environment, and returns its stdout. A non-zero exit is an
// [*Error] carrying stderr.
func (g *Git) RunWith(ctx context.Context, stdin []byte, env []string, args ...string) ([]byte, error) {
	path := g.Path
	if path == "" {
		p, err := Find()
		if err != nil {
			return nil, err
		}
		path = p
	}
	cmd := exec.CommandContext(ctx, path, g.args(args)...)
	cmd.Dir = g.Dir
	cmd.Env = g.environ(env)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.Bytes(), &Error{Args: args, ExitCode: ee.ExitCode(), Stderr: errb.String()}
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", firstArg(args), ctx.Err())
		}
		return nil, fmt.Errorf("git %s: %w", firstArg(args), err)
	}
	return out.Bytes(), nil
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
