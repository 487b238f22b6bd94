package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/llmwiki/llmwiki/tools"
)

// Scopes.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Options says what to install where.
type Options struct {
	// Client is one of [Clients].
	Client string
	// Scope is ScopeProject (files in Project, shared with the team where
	// the client allows) or ScopeUser (the user's own configuration).
	Scope string
	// Project is the project folder (for ScopeProject).
	Project string
	// Home is the user's home folder.
	Home string
	// Env looks up environment variables (XDG_CONFIG_HOME, APPDATA).
	Env func(string) string
	// GOOS selects per-system user paths (default runtime.GOOS).
	GOOS string
	// Root is the wiki root the server is started on (absolute).
	Root string
	// Command is the llmwiki executable the client starts.
	Command string
	// OnPath says that "llmwiki" on PATH is Command, so files shared with
	// a project name it plainly.
	OnPath bool
	// Force installs Claude Code's files even when the llmwiki plugin is
	// installed (two servers and two sets of sub-agents).
	Force bool
	// Tools is the registry (tools.Catalogue) the agent files are made from.
	Tools []tools.Tool
	// Host picks the one Cline settings file to write ([ClineHosts]; ""
	// writes every one that exists).
	Host string
	// DryRun computes the changes and their diffs but writes nothing.
	DryRun bool
	// Now stamps backups (default time.Now).
	Now func() time.Time
}

// Change is what happened (or, in a dry run, would happen) to one file.
type Change struct {
	Path string
	// Action is "create", "update" or "unchanged".
	Action string
	// What says what llmwiki keeps in the file.
	What string
	// Backup is the copy made of the old version ("" when none).
	Backup string
	// Diff is a unified diff of the change (dry runs, and always for
	// updates).
	Diff string
}

// Result is the outcome of [Install].
type Result struct {
	Client, Scope string
	Changes       []Change
	// Notes are things the person should know (a client without a
	// project-level MCP file, a command that is not on PATH).
	Notes []string
	// Next is the next step to take in the client.
	Next string
}

// Changed counts the files created or updated.
func (r *Result) Changed() int {
	n := 0
	for _, c := range r.Changes {
		if c.Action != "unchanged" {
			n++
		}
	}
	return n
}

// fileEdit is one file of a client's plan: build returns the new content
// from the old (exists false: there is no file yet).
type fileEdit struct {
	path  string
	what  string
	build func(old []byte, exists bool) ([]byte, error)
}

// plan is a client's set of edits for one run.
type plan struct {
	edits []fileEdit
	notes []string
	next  string
}

// client is one supported editor.
type client struct {
	name, title string
	make        func(o *Options) (*plan, error)
}

// Clients returns the supported client names, sorted.
func Clients() []string {
	var out []string
	for _, c := range clients {
		out = append(out, c.name)
	}
	sort.Strings(out)
	return out
}

// Install writes llmwiki into one client. On any error nothing is written.
func Install(o Options) (*Result, error) {
	var cl *client
	for i := range clients {
		if clients[i].name == o.Client {
			cl = &clients[i]
		}
	}
	if cl == nil {
		return nil, fmt.Errorf("unknown client %q; known clients: %s", o.Client, strings.Join(Clients(), ", "))
	}
	if o.Host != "" && cl.name != "cline" {
		return nil, fmt.Errorf("--host applies to cline only, not %s", cl.name)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	p, err := cl.make(&o)
	if err != nil {
		return nil, err
	}
	res := &Result{Client: cl.name, Scope: o.Scope, Notes: p.notes, Next: p.next}
	type pending struct {
		edit     fileEdit
		old, new []byte
		exists   bool
		mode     fs.FileMode
	}
	var todo []pending
	for _, e := range p.edits {
		fi, err := os.Lstat(e.path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %v; nothing was changed", e.path, err)
		}
		mode := fs.FileMode(0o644)
		var old []byte
		if exists {
			if fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(e.path)
				return nil, fmt.Errorf("%s is a symlink (to %s); llmwiki install does not write through symlinks, which a dotfiles manager may own. Nothing was changed; add the llmwiki entry to the file it points to yourself, or replace the link with a file", e.path, target)
			}
			if !fi.Mode().IsRegular() {
				return nil, fmt.Errorf("%s is not a regular file; nothing was changed", e.path)
			}
			mode = fi.Mode().Perm()
			if old, err = os.ReadFile(e.path); err != nil {
				return nil, fmt.Errorf("%s: %v; nothing was changed", e.path, err)
			}
		}
		nw, err := e.build(old, exists)
		if err != nil {
			return nil, fmt.Errorf("%s: %v; nothing was changed", e.path, err)
		}
		todo = append(todo, pending{e, old, nw, exists, mode})
	}
	// Refuse before writing anything when a folder cannot be written.
	if !o.DryRun {
		for _, t := range todo {
			if t.exists && bytes.Equal(t.old, t.new) {
				continue
			}
			if err := writable(filepath.Dir(t.edit.path)); err != nil {
				return nil, fmt.Errorf("cannot write %s: %v; nothing was changed", t.edit.path, err)
			}
		}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	stamp := now().UTC().Format("20060102-150405")
	for _, t := range todo {
		c := Change{Path: t.edit.path, What: t.edit.what}
		switch {
		case t.exists && bytes.Equal(t.old, t.new):
			c.Action = "unchanged"
		case t.exists:
			c.Action = "update"
			c.Diff = unifiedDiff(t.edit.path, t.old, t.new)
		default:
			c.Action = "create"
			if o.DryRun {
				c.Diff = unifiedDiff(t.edit.path, nil, t.new)
			}
		}
		if c.Action != "unchanged" && !o.DryRun {
			if t.exists {
				c.Backup = t.edit.path + ".llmwiki-backup-" + stamp
				if err := writeAtomic(c.Backup, t.old, t.mode); err != nil {
					return res, fmt.Errorf("back up %s: %v (files listed before this one were changed)", t.edit.path, err)
				}
			}
			if err := os.MkdirAll(filepath.Dir(t.edit.path), 0o755); err != nil {
				return res, fmt.Errorf("%s: %v (files listed before this one were changed)", t.edit.path, err)
			}
			if err := writeAtomic(t.edit.path, t.new, t.mode); err != nil {
				return res, fmt.Errorf("%s: %v (files listed before this one were changed)", t.edit.path, err)
			}
		}
		res.Changes = append(res.Changes, c)
	}
	return res, nil
}

func (o *Options) check() error {
	switch o.Scope {
	case ScopeProject, ScopeUser:
	default:
		return fmt.Errorf("scope %q is not %q or %q", o.Scope, ScopeProject, ScopeUser)
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	if o.Home == "" || !filepath.IsAbs(o.Home) {
		return fmt.Errorf("the home folder is unknown; set HOME")
	}
	if !filepath.IsAbs(o.Root) {
		return fmt.Errorf("wiki root %q must be an absolute path", o.Root)
	}
	if fi, err := os.Stat(o.Root); err == nil && !fi.IsDir() {
		return fmt.Errorf("wiki root %s is a file, not a folder; pass --root with a folder (it is created on first start)", o.Root)
	}
	if o.Scope == ScopeProject {
		fi, err := os.Stat(o.Project)
		if err != nil {
			return fmt.Errorf("project folder %s: %v", o.Project, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("project folder %s is a file", o.Project)
		}
	}
	if o.Command == "" {
		o.Command = "llmwiki"
	}
	return nil
}

// writable checks that dir (or its nearest existing parent, where it will
// be created) accepts a new file.
func writable(dir string) error {
	d := dir
	for {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a folder", d)
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return err
		}
		d = parent
	}
	f, err := os.CreateTemp(d, ".llmwiki-probe-*")
	if err != nil {
		return fmt.Errorf("folder %s is not writable", d)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// writeAtomic writes data to a temp file beside path, syncs it and renames
// it over path, so a reader sees the old file or the new one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".llmwiki-tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
