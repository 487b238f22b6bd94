package git

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/llmwiki/llmwiki/internal/gitcli"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
)

// GitignoreFile is the wiki's own .gitignore, at its root.
const GitignoreFile = ".gitignore"

// gitignore is what [Enable] writes to [GitignoreFile]: nothing under
// .llmwiki/ travels with the wiki.
const gitignore = `# llmwiki's state stays on each machine (docs/design.md, "Team wikis on git"):
# the search index, link graph and lint are derived and rebuilt; the audit log,
# snapshots, plans and review decisions are this machine's own records (every
# commit names its audit line in the Llmwiki-Audit trailer).
/.llmwiki/
`

// ignoreLine is the line of [gitignore] that matters.
const ignoreLine = "/.llmwiki/"

// Enabled is what [Enable] did.
type Enabled struct {
	// Mode is schema.md's git mode now.
	Mode string
	// SchemaChanged: schema.md's git line was set.
	SchemaChanged bool
	// Initialised: the wiki was in no repository and `git init` made one
	// at its root (branch main).
	Initialised bool
	// Gitignore: .gitignore was created or given its /.llmwiki/ line.
	Gitignore bool
	// Commit is the short hash of the commit of the wiki's files ("" when
	// they were all committed already); Files counts them.
	Commit string
	Files  int
}

// Enable turns git on for the wiki st (llmwiki init --git): schema.md's
// git line says commit (sync stays sync; nothing else of the file
// changes), `git init -b main` runs when the root is in no repository, the
// root's .gitignore keeps .llmwiki/ out, and every file of the wiki not yet
// committed (new, changed or deleted, under the root only) becomes one
// commit by the person. A missing git is an error saying what to install.
func Enable(ctx context.Context, st *wiki.Store) (Enabled, error) {
	var done Enabled
	path, err := gitcli.Find()
	if err != nil {
		return done, store.Errorf(store.CodeUnavailable, "%s", err.Error())
	}
	dir := st.Dir()
	mode := st.Settings().Git
	if mode != wiki.GitSync {
		mode = wiki.GitCommit
	}
	done.Mode = mode
	// The person's own files are written under the project lock: every
	// temp file beside a wiki file is made under it, which is what lets
	// the store's sweep remove the ones it finds.
	if err := st.Locked(ctx, func() error {
		var err error
		done.SchemaChanged, err = setSchemaGitFile(filepath.Join(dir, "schema.md"), mode)
		return err
	}); err != nil {
		return done, err
	}
	g := &gitcli.Git{Path: path, Dir: dir}
	if _, err := g.Run(ctx, "rev-parse", "--show-toplevel"); err != nil {
		if _, err := g.Run(ctx, "init", "-q", "-b", "main"); err != nil {
			st.Logger().Error("git init failed", "err", err)
			return done, store.Errorf(store.CodeUnavailable, "git init failed in the wiki's folder (%s); run `git init` there yourself and try again", reason(err))
		}
		done.Initialised = true
	}
	if err := st.Locked(ctx, func() error {
		var err error
		done.Gitignore, err = ensureGitignore(filepath.Join(dir, GitignoreFile))
		return err
	}); err != nil {
		return done, err
	}
	r, err := Open(ctx, st)
	if err != nil {
		return done, err
	}
	out, err := r.git.Run(ctx, "ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard", "--", ".")
	if err != nil {
		st.Logger().Error("git ls-files failed", "err", err)
		return done, store.Errorf(store.CodeUnavailable, "the wiki's files could not be listed (%s)", reason(err))
	}
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" && !strings.HasPrefix(p, ".llmwiki/") {
			paths = append(paths, p)
		}
	}
	paths = uniqueSorted(paths)
	if len(paths) == 0 {
		return done, nil
	}
	call := store.NewCall("cli:init", st.SessionID(), map[string]any{"git": mode})
	ctx = store.WithCall(ctx, call)
	var commit string
	err = st.Locked(ctx, func() error {
		var cerr error
		commit, cerr = r.CommitFiles(ctx, call, paths)
		return cerr
	})
	if aerr := st.Audit(call, err); aerr != nil {
		st.Logger().Error("audit line not written", "err", aerr)
	}
	if err != nil {
		st.Logger().Error("git: the wiki's first commit failed", "err", err)
		return done, store.Errorf(store.CodeUnavailable, "git could not commit the wiki's files (%s); fix that and run `llmwiki init --git` again", reason(err))
	}
	done.Commit, done.Files = commit, len(paths)
	return done, nil
}

func uniqueSorted(p []string) []string {
	return wikiPaths(func() []store.Change {
		out := make([]store.Change, len(p))
		for i, s := range p {
			out[i] = store.Change{Path: s}
		}
		return out
	}())
}

// schemaGitComment is the comment of the git line [SetSchemaGit] adds to a
// schema.md that has none (the template's own line says the same).
const schemaGitComment = "# off: llmwiki never runs git; commit: every audited write is one git commit of exactly its files (llmwiki init --git); sync: commit, and llmwiki sync rebases on the remote and pushes"

var gitLine = regexp.MustCompile(`^git:[ \t]*([^#\r\n]*?)([ \t]*#[^\r\n]*)?(\r?)$`)

// SetSchemaGit returns schema.md's bytes with its frontmatter's git line
// set to mode, keeping its comment and every other byte; without a git
// line, one is added at the end of the frontmatter; without frontmatter,
// one is put first.
func SetSchemaGit(data []byte, mode string) []byte {
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	added := []byte("git: " + mode + " " + schemaGitComment + nl)
	if !bytes.HasPrefix(data, []byte("---\n")) && !bytes.HasPrefix(data, []byte("---\r\n")) {
		return append(append([]byte("---"+nl), append(added, []byte("---"+nl)...)...), data...)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	for i := 1; i < len(lines); i++ {
		line := bytes.TrimRight(lines[i], "\n")
		if bytes.Equal(bytes.TrimRight(line, "\r"), []byte("---")) {
			out := bytes.Join(lines[:i], nil)
			out = append(out, added...)
			return append(out, bytes.Join(lines[i:], nil)...)
		}
		if m := gitLine.FindSubmatchIndex(line); m != nil {
			var b bytes.Buffer
			b.WriteString("git: " + mode)
			end := m[3]
			if m[4] >= 0 {
				end = m[5]
				// Keep the comment's column where the spaces allow it.
				comment := line[m[4]:m[5]]
				rest := bytes.TrimLeft(comment, " \t")
				ws := len(comment) - len(rest) - (len("git: "+mode) - m[3])
				b.WriteString(strings.Repeat(" ", max(ws, 1)))
				b.Write(rest)
			}
			b.Write(line[end:])
			b.Write(lines[i][len(line):])
			lines[i] = b.Bytes()
			return bytes.Join(lines, nil)
		}
	}
	// An unclosed frontmatter: leave the file to its owner, adding nothing
	// inside what may not be YAML.
	return data
}

// setSchemaGitFile sets schema.md's git line in place (atomically: a temp
// file beside it, renamed over it, its mode kept).
func setSchemaGitFile(path, mode string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, store.Errorf(store.CodeNotFound, "schema.md is missing: run `llmwiki init` first")
		}
		return false, store.Internal("read schema.md", err)
	}
	out := SetSchemaGit(data, mode)
	if bytes.Equal(out, data) {
		if !bytes.Contains(data, []byte("git: "+mode)) {
			return false, store.Errorf(store.CodeInvalid, "schema.md's frontmatter is not closed by a --- line; fix it and add `git: %s`", mode)
		}
		return false, nil
	}
	return true, replaceFile(path, out)
}

// ensureGitignore creates the wiki's .gitignore, or adds its /.llmwiki/
// line to the person's.
func ensureGitignore(path string) (bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, replaceFile(path, []byte(gitignore))
	case err != nil:
		return false, store.Internal("read .gitignore", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l == ignoreLine || l == ".llmwiki/" || l == ".llmwiki" || l == "/.llmwiki" {
			return false, nil
		}
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	return true, replaceFile(path, append(data, []byte("\n"+gitignore)...))
}

// replaceFile writes data to path through a temp file beside it.
func replaceFile(path string, data []byte) error {
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+store.TempMarker+"*")
	if err != nil {
		return store.Internal("write "+filepath.Base(path), err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, perm)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return store.Internal("write "+filepath.Base(path), werr)
	}
	return nil
}
