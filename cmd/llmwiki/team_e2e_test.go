package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// The team wiki end to end (issue 19's "Done when"): two people, each with
// a clone of one bare repository on local disk, their own git identity and
// their own `llmwiki serve` driven by the official TypeScript SDK as their
// editor's agent (testdata/e2e/team_flow.mjs), write at the same time and
// sync with `llmwiki sync --push`; then what git, the files, lint, review
// and the running servers say is checked with real values.

// teamPerson is one person on one machine: a home of their own (no shared
// git configuration), a clone, an editor.
type teamPerson struct {
	name, email, client string
	home, root          string
	env                 []string
}

// teamBareURL is the shared repository's address in README's "Team wiki
// on git" commands; the test puts the bare repository's path in its place.
const teamBareURL = "git@example.org:team/wiki.git"

func newTeamPerson(t *testing.T, tmp, name, email, client string) *teamPerson {
	t.Helper()
	home := filepath.Join(tmp, strings.ToLower(strings.Fields(name)[0]))
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "XDG_CONFIG_HOME" || k == "LLMWIKI_ROOT" || k == "PATH" || strings.HasPrefix(k, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"LLMWIKI_LOG=warn", "NO_COLOR=1", "LC_ALL=C",
		"PATH="+filepath.Dir(binary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &teamPerson{name: name, email: email, client: client, home: home, root: filepath.Join(home, "team-wiki"), env: env}
}

// llmwiki runs the built binary as this person; a nonzero exit is code,
// not a failure.
func (p *teamPerson) llmwiki(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return p.exec(t, binary(t), args...)
}

// mustLLMWiki runs the binary and fails the test unless it exits 0.
func (p *teamPerson) mustLLMWiki(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := p.llmwiki(t, args...)
	if code != 0 {
		t.Fatalf("%s: llmwiki %s: exit %d\n%s%s", p.name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// git runs git in the person's clone and fails the test when it fails.
func (p *teamPerson) git(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := p.exec(t, "git", append([]string{"-C", p.root}, args...)...)
	if code != 0 {
		t.Fatalf("%s: git %s: exit %d\n%s%s", p.name, strings.Join(args, " "), code, out, errOut)
	}
	return strings.TrimRight(out, "\n")
}

func (p *teamPerson) exec(t *testing.T, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = p.home
	cmd.Env = p.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %s: %v", p.name, name, err)
	}
	return out.String(), errb.String(), code
}

// setIdentity gives the clone the person's git identity, as the person
// would with git config in it.
func (p *teamPerson) setIdentity(t *testing.T) {
	t.Helper()
	p.git(t, "config", "user.name", p.name)
	p.git(t, "config", "user.email", p.email)
}

// teamSetup runs README's "Team wiki on git" commands (between its
// team-setup markers) as the people they are for, with ~ their home and
// the shared repository the bare one. A comment naming a person switches
// to that person; the comment that says to set git: sync is done as a
// person does it, by editing schema.md. Each clone gets its person's git
// identity as soon as it exists.
func teamSetup(t *testing.T, bare string, people map[string]*teamPerson) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	begin, end := "<!-- team-setup:begin -->\n", "<!-- team-setup:end -->"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatal("README.md lacks the team-setup:begin/team-setup:end markers around the Team wiki on git commands")
	}
	block := strings.TrimSpace(s[i+len(begin) : j])
	if !strings.HasPrefix(block, "```sh\n") || !strings.HasSuffix(block, "```") {
		t.Fatalf("README's team-setup block is not one sh code fence:\n%s", block)
	}
	var who *teamPerson
	commands, edited := 0, false
	for _, line := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(block, "```sh\n"), "```"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			for first, p := range people {
				if strings.HasPrefix(strings.TrimSpace(rest), first) {
					who = p
				}
			}
			if strings.Contains(rest, "git: sync") {
				if who == nil {
					t.Fatalf("README's team-setup says to set git: sync before naming whose wiki: %q", line)
				}
				schema := filepath.Join(who.root, "schema.md")
				b, err := os.ReadFile(schema)
				if err != nil {
					t.Fatal(err)
				}
				re := regexp.MustCompile(`(?m)^git: commit\b`)
				if !re.Match(b) {
					t.Fatalf("schema.md after init --git has no git: commit line to change:\n%s", b)
				}
				if err := os.WriteFile(schema, re.ReplaceAll(b, []byte("git: sync  ")), 0o644); err != nil {
					t.Fatal(err)
				}
				edited = true
			}
			continue
		}
		if who == nil {
			t.Fatalf("README's team-setup runs %q before a comment names whose machine it is", line)
		}
		if k := strings.Index(line, "  #"); k >= 0 {
			line = strings.TrimSpace(line[:k])
		}
		line = strings.ReplaceAll(line, teamBareURL, bare)
		out, errOut, code := who.exec(t, "sh", "-c", line)
		t.Logf("%s$ %s\n%s%s", who.name, line, out, errOut)
		if code != 0 {
			t.Fatalf("README command failed for %s: %s: exit %d\n%s%s", who.name, line, code, out, errOut)
		}
		commands++
		for _, p := range people {
			if _, err := os.Stat(filepath.Join(p.root, ".git")); err == nil {
				if _, _, code := p.exec(t, "git", "-C", p.root, "config", "user.name"); code != 0 {
					p.setIdentity(t)
				}
			}
		}
	}
	if commands > 5 || !edited {
		t.Fatalf("README's team setup has %d commands (at most 5) and edits git: sync: %v", commands, edited)
	}
}

// teamSession is one person's editor agent: team_flow.mjs connected to
// `llmwiki serve` on their clone.
type teamSession struct {
	who    *teamPerson
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	next   int
	tools  []string
}

// teamResult is one tool call's answer.
type teamResult struct {
	ID         int            `json:"id"`
	Tool       string         `json:"-"`
	IsError    bool           `json:"is_error"`
	Text       string         `json:"text"`
	Structured map[string]any `json:"structured"`
}

func startTeamSession(t *testing.T, p *teamPerson) *teamSession {
	t.Helper()
	dir := e2eDir(t)
	cmd := exec.Command("node", filepath.Join(dir, "team_flow.mjs"), "--bin", binary(t), "--root", p.root, "--client", p.client, "--client-version", "1.0.0")
	cmd.Dir = dir
	cmd.Env = p.env
	s := &teamSession{who: p, cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = s.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.in, s.out = in, bufio.NewReaderSize(out, 1<<20)
	t.Cleanup(func() { s.stop() })
	line, err := s.out.ReadBytes('\n')
	var ready struct{ Ready []string }
	if err != nil || json.Unmarshal(line, &ready) != nil || len(ready.Ready) == 0 {
		t.Fatalf("%s's session did not start: %v %s\n%s", p.name, err, line, s.stderr.String())
	}
	s.tools = ready.Ready
	return s
}

// call makes one tool call and waits for its answer. It never fails the
// test itself, so goroutines may use it.
func (s *teamSession) call(tool string, args map[string]any) (teamResult, error) {
	s.next++
	req, _ := json.Marshal(map[string]any{"id": s.next, "tool": tool, "arguments": args})
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		return teamResult{}, fmt.Errorf("%s: send %s: %v", s.who.name, tool, err)
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		return teamResult{}, fmt.Errorf("%s: %s: the session ended: %v\n%s", s.who.name, tool, err, s.stderr.String())
	}
	var r teamResult
	if err := json.Unmarshal(line, &r); err != nil || r.ID != s.next {
		return teamResult{}, fmt.Errorf("%s: %s: answer %s (%v)", s.who.name, tool, line, err)
	}
	r.Tool = tool
	return r, nil
}

// ok makes a call that must succeed without warnings and returns its
// structured result.
func (s *teamSession) ok(tool string, args map[string]any) (map[string]any, error) {
	r, err := s.call(tool, args)
	if err != nil {
		return nil, err
	}
	if r.IsError || r.Structured == nil {
		return nil, fmt.Errorf("%s: %s %v: %s", s.who.name, tool, args, r.Text)
	}
	if w, _ := r.Structured["warnings"].([]any); len(w) > 0 {
		return nil, fmt.Errorf("%s: %s warned: %v", s.who.name, tool, w)
	}
	return r.Structured, nil
}

// must is ok that fails the test.
func (s *teamSession) must(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	out, err := s.ok(tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// shaOf reads a file through MCP and returns its sha256.
func (s *teamSession) shaOf(path string) (string, error) {
	r, err := s.ok("read_page", map[string]any{"path": path})
	if err != nil {
		return "", err
	}
	sha, _ := r["sha256"].(string)
	return sha, nil
}

func (s *teamSession) stop() {
	if s.in != nil {
		s.in.Close()
		s.in = nil
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
}

// teamSteps runs steps in order, each a function of the session; the
// first error ends them.
func teamSteps(s *teamSession, steps ...func(*teamSession) error) error {
	for _, f := range steps {
		if err := f(s); err != nil {
			return err
		}
	}
	return nil
}

func teamWrite(slug, title, content string) func(*teamSession) error {
	return func(s *teamSession) error {
		_, err := s.ok("write_page", map[string]any{"slug": slug, "title": title, "summary": "About " + title + ".", "content": content})
		return err
	}
}

// teamEdit reads the page for its sha256, then edits it.
func teamEdit(path string, args map[string]any) func(*teamSession) error {
	return func(s *teamSession) error {
		sha, err := s.shaOf(path)
		if err != nil {
			return err
		}
		a := map[string]any{"page": path, "base_sha256": sha}
		for k, v := range args {
			a[k] = v
		}
		_, err = s.ok("edit_page", a)
		return err
	}
}

func teamLog(title string) func(*teamSession) error {
	return func(s *teamSession) error {
		_, err := s.ok("append_log", map[string]any{"op": "note", "title": title})
		return err
	}
}

func teamSource(path, content string) func(*teamSession) error {
	return func(s *teamSession) error {
		_, err := s.ok("save_source", map[string]any{"path": path, "content": content})
		return err
	}
}

func teamMove(path, slug string) func(*teamSession) error {
	return func(s *teamSession) error {
		sha, err := s.shaOf(path)
		if err != nil {
			return err
		}
		_, err = s.ok("move_page", map[string]any{"page": path, "slug": slug, "base_sha256": sha})
		return err
	}
}

// teamCommit is one commit of a clone's history.
type teamCommit struct {
	Hash, Author, Subject string
	Trailers              map[string]string
}

// teamHistory lists the commits of revs, newest first, with their Llmwiki trailers.
func teamHistory(t *testing.T, p *teamPerson, revs ...string) []teamCommit {
	t.Helper()
	out := p.git(t, append([]string{"log", "--format=%H%x00%an%x00%B%x1e"}, revs...)...)
	var list []teamCommit
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\x00", 3)
		if len(f) != 3 {
			t.Fatalf("git log record %q", rec)
		}
		c := teamCommit{Hash: f[0], Author: f[1], Trailers: map[string]string{}}
		lines := strings.Split(strings.TrimSpace(f[2]), "\n")
		c.Subject = lines[0]
		for _, l := range lines[1:] {
			if k, v, ok := strings.Cut(l, ": "); ok && strings.HasPrefix(k, "Llmwiki-") {
				c.Trailers[k] = v
			}
		}
		list = append(list, c)
	}
	return list
}

// teamWriteTools are the tools the agents write with in this test.
var teamWriteTools = []string{"write_page", "edit_page", "append_log", "save_source", "move_page"}

// agentWrites are p's audit lines of agent writes that changed files of
// the wiki.
func agentWrites(t *testing.T, p *teamPerson) []store.AuditRecord {
	t.Helper()
	var out []store.AuditRecord
	for _, r := range teststore.AuditLines(t, p.root) {
		if !slices.Contains(teamWriteTools, r.Tool) || r.Outcome != "ok" {
			continue
		}
		for _, w := range r.Writes {
			if !strings.HasPrefix(w.Path, ".llmwiki/") {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// conflictMarkers returns the files under root (but .git) holding a
// conflict marker line: <<<<<<< or >>>>>>> at a line's start, or a line
// of ======= between them.
func conflictMarkers(t *testing.T, root string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		open := false
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(l, "<<<<<<<"), strings.HasPrefix(l, ">>>>>>>"):
				bad = append(bad, p+": "+l)
				open = strings.HasPrefix(l, "<<<<<<<")
			case open && l == "=======":
				bad = append(bad, p+": "+l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

var logEntryRE = regexp.MustCompile(`(?m)^## \[(\d{4}-\d\d-\d\d \d\d:\d\d)\] (.*)$`)

func TestTeamWikiOnGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; the team wiki test runs real git")
	}
	e2eDir(t)
	tmp := t.TempDir()
	ada := newTeamPerson(t, tmp, "Ada Lovelace", "ada@example.org", "claude-code")
	bob := newTeamPerson(t, tmp, "Bob Babbage", "bob@example.org", "cursor")
	bare := filepath.Join(tmp, "shared", "wiki.git")
	ada.exec(t, "git", "init", "-q", "--bare", "--initial-branch=main", bare)

	// 1. The README's setup: Ada makes the wiki and pushes it, Bob clones.
	teamSetup(t, bare, map[string]*teamPerson{"Ada": ada, "Bob": bob})
	if got := bob.git(t, "log", "-1", "--format=%H"); got != ada.git(t, "rev-parse", "HEAD") {
		t.Fatalf("Bob's clone is at %s, Ada at %s", got, ada.git(t, "rev-parse", "HEAD"))
	}
	if out := bob.mustLLMWiki(t, "status", "--root", bob.root); !strings.Contains(out, "git: sync on main") {
		t.Errorf("Bob's status after the clone:\n%s", out)
	}

	// 2. Both editors connect at once.
	var as, bs *teamSession
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); as = startTeamSession(t, ada) }()
	go func() { defer wg.Done(); bs = startTeamSession(t, bob) }()
	wg.Wait()
	if as == nil || bs == nil {
		t.FailNow()
	}

	// Ada's agent writes the pages both will change; they reach Bob.
	if err := teamSteps(as,
		teamWrite("meeting", "Meeting", "## Notes\n\nThe team meets on Monday.\n"),
		teamWrite("handbook", "Handbook", "## Setup\n\nInstall the tools.\n\n## Middle\n\nOne.\n\nTwo.\n\nThree.\n\n## Usage\n\nRun the tools.\n"),
		teamWrite("mover", "Mover", "## Notes\n\nThe first version of the mover page.\n"),
		teamEdit("pages/mover.md", map[string]any{"op": "append", "heading": "Notes", "content": "A second line.\n"}),
	); err != nil {
		t.Fatal(err)
	}
	ada.mustLLMWiki(t, "sync", "--push", "--root", ada.root)
	out := bob.mustLLMWiki(t, "sync", "--root", bob.root)
	if !strings.Contains(out, "brought in 4 commits from origin/main") {
		t.Errorf("Bob's first sync:\n%s", out)
	}
	if got := fmt.Sprint(bs.must(t, "list_pages", nil)); !strings.Contains(got, "pages/meeting.md") || !strings.Contains(got, "pages/mover.md") {
		t.Fatalf("Bob's server does not list the synced pages: %s", got)
	}

	// Both agents write at the same time.
	const adaSource, bobSource = "Ada's copy of the shared notes.\n", "Bob's copy of the shared notes, longer.\n"
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = teamSteps(as,
			teamWrite("ada-notes", "Ada notes", "## Notes\n\nAda writes about the adaquokka.\n"),
			teamEdit("pages/meeting.md", map[string]any{"op": "find_replace", "find": "Monday", "replace": "Tuesday", "count": 1}),
			teamEdit("pages/handbook.md", map[string]any{"op": "append", "heading": "Setup", "content": "Ada adds a setup step.\n"}),
			teamLog("Ada's first note"),
			teamSource("sources/shared.md", adaSource),
			teamMove("pages/mover.md", "moved-page"),
			teamLog("Ada's second note"),
		)
	}()
	go func() {
		defer wg.Done()
		errs[1] = teamSteps(bs,
			teamWrite("bob-notes", "Bob notes", "## Notes\n\nBob writes about the bobnarwhal.\n"),
			teamEdit("pages/meeting.md", map[string]any{"op": "find_replace", "find": "Monday", "replace": "Friday", "count": 1}),
			teamEdit("pages/handbook.md", map[string]any{"op": "append", "heading": "Usage", "content": "Bob adds a usage tip.\n"}),
			teamLog("Bob's first note"),
			teamSource("sources/shared.md", bobSource),
			teamLog("Bob's second note"),
		)
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}

	// 3. Sync: Ada, Bob, Ada, with both servers running.
	out = ada.mustLLMWiki(t, "sync", "--push", "--root", ada.root)
	t.Logf("Ada's sync:\n%s", out)
	if !strings.Contains(out, "origin/main has nothing new") || !strings.Contains(out, "pushed 7 commits to origin/main") {
		t.Errorf("Ada's second sync:\n%s", out)
	}
	out = bob.mustLLMWiki(t, "sync", "--push", "--root", bob.root)
	t.Logf("Bob's sync:\n%s", out)
	for _, want := range []string{
		"brought in 7 commits from origin/main and replayed",
		"merged: pages/handbook.md (changed on both sides, combined)",
		"merged: log.md",
		"source kept twice: sources/shared.md is the remote's, yours is now sources/shared-local.md",
		"conflict: pages/meeting.md was changed both here",
		"pushed ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Bob's sync does not say %q:\n%s", want, out)
		}
	}
	out = ada.mustLLMWiki(t, "sync", "--push", "--root", ada.root)
	t.Logf("Ada's last sync:\n%s", out)
	if !strings.Contains(out, "brought in ") || strings.Contains(out, "conflict") || strings.Contains(out, "pushed") {
		t.Errorf("Ada's last sync:\n%s", out)
	}

	// 4. Both clones are on the remote's commit, with nothing uncommitted.
	head := ada.git(t, "rev-parse", "HEAD")
	if got := bob.git(t, "rev-parse", "HEAD"); got != head {
		t.Errorf("Bob is at %s, Ada at %s", got, head)
	}
	if got := strings.TrimSpace(ada.exec2(t, "git", "--git-dir", bare, "rev-parse", "main")); got != head {
		t.Errorf("the shared repository's main is %s, the clones %s", got, head)
	}
	for _, p := range []*teamPerson{ada, bob} {
		if st := p.git(t, "status", "--porcelain"); st != "" {
			t.Errorf("%s's clone has changes git does not hold:\n%s", p.name, st)
		}
	}

	// Every agent write is one commit by the person with the agent named,
	// whose trailers name the client, session, tool and an audit line of
	// that machine. A write that lost a sync conflict is its person's
	// local commit (named by the conflict), not in the shared history.
	history := teamHistory(t, ada, "HEAD")
	byAudit := map[string][]teamCommit{}
	for _, c := range history {
		if id := c.Trailers["Llmwiki-Audit"]; id != "" {
			byAudit[id] = append(byAudit[id], c)
		}
	}
	conflicts, err := recordedConflicts(t, bob.root)
	if err != nil {
		t.Fatalf("Bob's recorded sync conflicts: %v", err)
	}
	for _, p := range []*teamPerson{ada, bob} {
		author := p.name + " (" + p.client + ")"
		writes := agentWrites(t, p)
		ids := map[string]bool{}
		for _, rec := range writes {
			ids[rec.ID] = true
			cs := byAudit[rec.ID]
			if len(cs) == 0 {
				// Not in the shared history: it must be the local side of a
				// recorded conflict, a commit still in this clone.
				lost := ""
				for _, c := range conflicts {
					if l := teamHistory(t, p, "-1", c.Local); len(l) == 1 && l[0].Trailers["Llmwiki-Audit"] == rec.ID && l[0].Author == author {
						lost = c.Local
					}
				}
				if lost == "" {
					t.Errorf("%s's %s (audit %s, %v) is in no commit", p.name, rec.Tool, rec.ID, rec.Writes)
				} else {
					t.Logf("%s's %s lost a sync conflict; its commit %s is the conflict's local version", p.name, rec.Tool, lost[:12])
				}
				continue
			}
			if len(cs) != 1 {
				t.Errorf("%s's %s (audit %s) is %d commits", p.name, rec.Tool, rec.ID, len(cs))
			}
			c := cs[0]
			if c.Author != author || c.Trailers["Llmwiki-Client"] != p.client+" 1.0.0" || c.Trailers["Llmwiki-Session"] != rec.Session || c.Trailers["Llmwiki-Tool"] != rec.Tool {
				t.Errorf("%s's %s (audit %s): commit %s by %q, trailers %v", p.name, rec.Tool, rec.ID, c.Hash[:12], c.Author, c.Trailers)
			}
		}
		if len(writes) < 6 {
			t.Errorf("%s made %d agent writes, want at least 6", p.name, len(writes))
		}
		for _, c := range history {
			if strings.HasSuffix(c.Author, "("+p.client+")") && !ids[c.Trailers["Llmwiki-Audit"]] {
				t.Errorf("commit %s by %q names audit line %q, which is not in %s's audit log", c.Hash[:12], c.Author, c.Trailers["Llmwiki-Audit"], p.name)
			}
		}
	}

	// A commit as README's "Team wiki on git" shows one.
	if got := ada.git(t, "log", "-1", "--format=%an <%ae>%n%B", "--grep=^note | Ada's first note$"); !regexp.MustCompile(`^Ada Lovelace \(claude-code\) <ada@example.org>\nnote \| Ada's first note\n\nLlmwiki-Client: claude-code 1.0.0\nLlmwiki-Session: \S+\nLlmwiki-Tool: append_log\nLlmwiki-Audit: a-[0-9a-f]+$`).MatchString(got) {
		t.Errorf("append_log's commit:\n%s", got)
	} else {
		t.Logf("append_log's commit:\n%s", got)
	}

	// No conflict marker anywhere in either wiki.
	for _, p := range []*teamPerson{ada, bob} {
		if bad := conflictMarkers(t, p.root); len(bad) > 0 {
			t.Errorf("conflict markers in %s's wiki:\n%s", p.name, strings.Join(bad, "\n"))
		}
	}

	// log.md: the same in both, every entry of both sides once, in time
	// order.
	adaLog, _ := readRel(t, ada.root, "log.md")
	if bobLog, _ := readRel(t, bob.root, "log.md"); bobLog != adaLog {
		t.Errorf("log.md differs:\nAda:\n%s\nBob:\n%s", adaLog, bobLog)
	}
	var times []string
	seen := map[string]int{}
	for _, m := range logEntryRE.FindAllStringSubmatch(adaLog, -1) {
		times = append(times, m[1])
		seen[m[2]]++
	}
	for _, title := range []string{"Ada's first note", "Ada's second note", "Bob's first note", "Bob's second note"} {
		if seen["note | "+title] != 1 {
			t.Errorf("log.md holds %q %d times:\n%s", title, seen["note | "+title], adaLog)
		}
	}
	for entry, n := range seen {
		if n != 1 {
			t.Errorf("log.md holds %q %d times", entry, n)
		}
	}
	if !sort.StringsAreSorted(times) {
		t.Errorf("log.md entries are not in time order: %v", times)
	}

	// Both sources are kept, the remote's under the name, Bob's renamed.
	for _, p := range []*teamPerson{ada, bob} {
		if got, _ := readRel(t, p.root, "sources/shared.md"); got != adaSource {
			t.Errorf("%s's sources/shared.md = %q", p.name, got)
		}
		if got, _ := readRel(t, p.root, "sources/shared-local.md"); got != bobSource {
			t.Errorf("%s's sources/shared-local.md = %q", p.name, got)
		}
		// The page both changed in the same line is the remote version
		// (Ada's, pushed first); the page both changed apart holds both.
		if got, _ := readRel(t, p.root, "pages/meeting.md"); !strings.Contains(got, "meets on Tuesday") || strings.Contains(got, "Friday") {
			t.Errorf("%s's pages/meeting.md:\n%s", p.name, got)
		}
		got, _ := readRel(t, p.root, "pages/handbook.md")
		if i, j, k := strings.Index(got, "Ada adds a setup step."), strings.Index(got, "## Middle"), strings.Index(got, "Bob adds a usage tip."); i < 0 || j < i || k < j || !strings.HasSuffix(got, "Bob adds a usage tip.\n") {
			t.Errorf("%s's pages/handbook.md does not hold both edits:\n%s", p.name, got)
		}
	}

	// The conflict is Bob's to settle: his version is a snapshot, lint and
	// review name it.
	conflict := checkTeamConflict(t, bob)
	if out := bob.mustLLMWiki(t, "status", "--root", bob.root); !strings.Contains(out, "1 sync conflict open") {
		t.Errorf("Bob's status does not count the conflict:\n%s", out)
	}
	if out, _, _ := ada.llmwiki(t, "lint", "--json", "--root", ada.root); strings.Contains(out, `"sync_conflict"`) {
		t.Errorf("Ada's lint reports a sync conflict she did not have:\n%s", out)
	}

	// The running servers caught up with what the syncs changed.
	for _, c := range []struct {
		s            *teamSession
		word, wanted string
	}{{bs, "adaquokka", "pages/ada-notes.md"}, {as, "bobnarwhal", "pages/bob-notes.md"}} {
		if got := jsonText(c.s.must(t, "search_wiki", map[string]any{"query": c.word})); !strings.Contains(got, `"path":"`+c.wanted+`"`) {
			t.Errorf("%s's search for %s does not find %s: %s", c.s.who.name, c.word, c.wanted, got)
		}
		got := jsonText(c.s.must(t, "list_pages", nil))
		for _, want := range []string{"pages/ada-notes.md", "pages/bob-notes.md", "pages/moved-page.md", "pages/meeting.md", "pages/handbook.md"} {
			if !strings.Contains(got, `"path":"`+want+`"`) {
				t.Errorf("%s's list_pages lacks %s: %s", c.s.who.name, want, got)
			}
		}
		if strings.Contains(got, `"path":"pages/mover.md"`) {
			t.Errorf("%s's list_pages still lists the moved page's old name: %s", c.s.who.name, got)
		}
	}
	if got := bs.must(t, "read_page", map[string]any{"path": "pages/meeting.md"}); !strings.Contains(fmt.Sprint(got["content"]), "Tuesday") || got["sha256"] != fileSHA(t, bob.root, "pages/meeting.md") {
		t.Errorf("Bob's read_page of the conflicted page: %v", got)
	}
	if got := jsonText(bs.must(t, "load_project", nil)); !strings.Contains(got, "sync") {
		t.Errorf("Bob's load_project says nothing of git: %s", got)
	}

	// page_history follows the move to the old name's commits; read_page
	// at the oldest returns the first version.
	for _, s := range []*teamSession{as, bs} {
		h := s.must(t, "page_history", map[string]any{"path": "pages/moved-page.md"})
		vs, _ := h["versions"].([]any)
		var oldName []map[string]any
		for _, v := range vs {
			if m := v.(map[string]any); m["path"] == "pages/mover.md" {
				oldName = append(oldName, m)
			}
		}
		if h["history"] != "git" || len(oldName) != 2 {
			t.Fatalf("%s's page_history of pages/moved-page.md: %s", s.who.name, jsonText(h))
		}
		first := oldName[len(oldName)-1]
		if first["author"] != "Ada Lovelace" || !strings.HasPrefix(fmt.Sprint(first["client"]), "claude-code") || first["tool"] != "write_page" {
			t.Errorf("%s: the first version's commit: %v", s.who.name, first)
		}
		old := s.must(t, "read_page", map[string]any{"path": "pages/moved-page.md", "at": first["commit"]})
		if c := fmt.Sprint(old["content"]); !strings.Contains(c, "The first version of the mover page.") || strings.Contains(c, "A second line.") || old["path"] != "pages/mover.md" {
			t.Errorf("%s: read_page at %v: %s", s.who.name, first["commit"], jsonText(old))
		}
	}

	// 5. The remote goes away: writes still work and commit; sync says why
	// it failed, status shows it; the remote back, sync succeeds.
	away := bare + ".away"
	if err := os.Rename(bare, away); err != nil {
		t.Fatal(err)
	}
	as.must(t, "write_page", map[string]any{"slug": "offline", "title": "Offline", "summary": "Written without the remote.", "content": "## Notes\n\nWritten while the remote was away.\n"})
	if got := ada.git(t, "log", "-1", "--format=%an|%s", "--", "pages/offline.md"); !strings.HasPrefix(got, "Ada Lovelace (claude-code)|") {
		t.Errorf("the offline write's commit: %q", got)
	}
	out, errOut, code := ada.llmwiki(t, "sync", "--push", "--root", ada.root)
	// The message (not the log lines above it, which may name paths) says
	// what failed and names no host path.
	msg := errOut[strings.LastIndex(errOut, "llmwiki: "):]
	if code == 0 || !strings.HasPrefix(msg, "llmwiki: sync: could not fetch from the remote origin") || strings.Contains(msg, tmp) {
		t.Errorf("sync with the remote away: exit %d\n%s%s", code, out, errOut)
	}
	out = ada.mustLLMWiki(t, "status", "--root", ada.root)
	if !strings.Contains(out, "; remote origin/main, 1 commit not pushed (llmwiki sync --push)") || !strings.Contains(out, "; sync: could not fetch from the remote origin") {
		t.Errorf("status with the remote away:\n%s", out)
	}
	if err := os.Rename(away, bare); err != nil {
		t.Fatal(err)
	}
	out = ada.mustLLMWiki(t, "sync", "--push", "--root", ada.root)
	if !strings.Contains(out, "pushed 1 commit to origin/main") {
		t.Errorf("sync with the remote back:\n%s", out)
	}
	var st struct {
		Git struct {
			Remote    string `json:"remote"`
			SyncError string `json:"sync_error"`
			Ahead     int    `json:"ahead"`
			Synced    string `json:"synced"`
		} `json:"git"`
	}
	if err := json.Unmarshal([]byte(ada.mustLLMWiki(t, "status", "--json", "--root", ada.root)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Git.Remote != "origin/main" || st.Git.SyncError != "" || st.Git.Ahead != 0 || st.Git.Synced == "" {
		t.Errorf("status --json after the remote came back: %+v", st.Git)
	}
	bob.mustLLMWiki(t, "sync", "--root", bob.root)
	if got := jsonText(bs.must(t, "list_pages", nil)); !strings.Contains(got, `"path":"pages/offline.md"`) {
		t.Errorf("Bob's server does not list the page written offline: %s", got)
	}

	// Bob settles the conflict by taking his version back: a commit by
	// Bob himself, which his next sync sends to Ada.
	out = bob.mustLLMWiki(t, "review", "take", conflict.ID, "--root", bob.root)
	t.Logf("Bob's take:\n%s", out)
	if got, _ := readRel(t, bob.root, "pages/meeting.md"); !strings.Contains(got, "meets on Friday") {
		t.Errorf("Bob's pages/meeting.md after take:\n%s", got)
	}
	if got := bob.git(t, "log", "-1", "--format=%an", "--", "pages/meeting.md"); got != "Bob Babbage" {
		t.Errorf("the take's commit is by %q, want Bob Babbage alone", got)
	}
	if out, _, _ := bob.llmwiki(t, "lint", "--json", "--root", bob.root); strings.Contains(out, `"sync_conflict"`) {
		t.Errorf("Bob's lint still reports the settled conflict:\n%s", out)
	}
	bob.mustLLMWiki(t, "sync", "--push", "--root", bob.root)
	ada.mustLLMWiki(t, "sync", "--root", ada.root)
	if got := as.must(t, "read_page", map[string]any{"path": "pages/meeting.md"}); !strings.Contains(fmt.Sprint(got["content"]), "meets on Friday") {
		t.Errorf("Ada's server after Bob's take synced: %v", got["content"])
	}
	if got, want := bob.git(t, "rev-parse", "HEAD"), ada.git(t, "rev-parse", "HEAD"); got != want {
		t.Errorf("after the take: Bob at %s, Ada at %s", got, want)
	}
	as.stop()
	bs.stop()
}

// exec2 runs a command as p and returns its stdout, failing the test on a
// nonzero exit.
func (p *teamPerson) exec2(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, errOut, code := p.exec(t, name, args...)
	if code != 0 {
		t.Fatalf("%s: %s %s: exit %d\n%s%s", p.name, name, strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// teamConflict is a sync conflict as review --json lists it.
type teamConflict struct {
	ID, Path, Local, Remote, Snapshot string
	FindingID                         string `json:"finding_id"`
}

// recordedConflicts reads the sync conflicts the wiki at root recorded.
func recordedConflicts(t *testing.T, root string) ([]teamConflict, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(wiki.SyncConflictsFile)))
	if err != nil {
		return nil, err
	}
	var list []teamConflict
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c teamConflict
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			return nil, err
		}
		list = append(list, c)
	}
	return list, nil
}

// checkTeamConflict checks p has exactly one open sync conflict, on
// pages/meeting.md: the local version (Friday) is its snapshot, lint
// --json reports it as sync_conflict and review --json lists it.
func checkTeamConflict(t *testing.T, p *teamPerson) teamConflict {
	t.Helper()
	out, errOut, _ := p.llmwiki(t, "review", "--json", "--root", p.root)
	var rv struct {
		SyncConflicts []teamConflict `json:"sync_conflicts"`
	}
	if err := json.Unmarshal([]byte(out), &rv); err != nil || len(rv.SyncConflicts) != 1 {
		t.Fatalf("%s's review --json: %v\n%s%s", p.name, err, out, errOut)
	}
	c := rv.SyncConflicts[0]
	if c.Path != "pages/meeting.md" || c.Snapshot == "" || c.Local == "" || c.Remote == "" {
		t.Errorf("%s's conflict: %+v", p.name, c)
	}
	if snap, ok := readRel(t, p.root, c.Snapshot); !ok || !strings.Contains(snap, "meets on Friday") {
		t.Errorf("%s's snapshot %s of the local version (exists %v):\n%s", p.name, c.Snapshot, ok, snap)
	}
	if got := p.git(t, "show", c.Local+":pages/meeting.md"); !strings.Contains(got, "meets on Friday") {
		t.Errorf("the conflict's local commit %s holds:\n%s", c.Local, got)
	}
	out, errOut, _ = p.llmwiki(t, "lint", "--json", "--root", p.root)
	var rep struct {
		Findings []struct {
			ID, Kind, Path string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s's lint --json: %v\n%s%s", p.name, err, out, errOut)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Kind == "sync_conflict" {
			found = true
			if f.Path != "pages/meeting.md" || f.ID != c.FindingID {
				t.Errorf("%s's sync_conflict finding %+v, review names %s", p.name, f, c.FindingID)
			}
		}
	}
	if !found {
		t.Errorf("%s's lint --json reports no sync_conflict:\n%s", p.name, out)
	}
	return c
}
