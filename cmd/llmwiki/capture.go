package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/llmwiki/llmwiki/agents/install"
	"github.com/llmwiki/llmwiki/internal/app"
	"github.com/llmwiki/llmwiki/internal/english"
	"github.com/llmwiki/llmwiki/internal/redact"
	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/transcript"
)

// hookInput is the part of a Claude Code hook's stdin JSON that capture
// and orient read (https://code.claude.com/docs/en/hooks#hook-input).
type hookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Reason         string `json:"reason"`
}

// SessionsDir is where captured sessions are saved, one source per session
// (and one more part each time a captured session went on).
const SessionsDir = "sources/sessions"

var sessionIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`) })

// runCapture saves a Claude Code session as a new source under
// sources/sessions/, through the audited writer. It is meant for a
// SessionEnd hook: it never fails the editor (exit 0, one line on stderr)
// but records every failure it can in the audit log.
func runCapture(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "capture", "capture [--root DIR] [--if-enabled] [--session ID] [--transcript FILE] < hook.json")
	rootFlag := fs.String("root", "", "wiki root (default: the one the .mcp.json of the hook's cwd gives llmwiki, else $LLMWIKI_ROOT, else ~/llmwiki); it must exist")
	ifEnabled := fs.Bool("if-enabled", false, "do nothing unless schema.md sets capture_sessions: true or LLMWIKI_CAPTURE=1")
	session := fs.String("session", "", "session id (default: session_id of the hook JSON on stdin)")
	transcriptFlag := fs.String("transcript", "", "transcript file (default: transcript_path of the hook JSON, else the session's file under ~/.claude/projects)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	msg, err := capture(ctx, e, *rootFlag, *ifEnabled, *session, *transcriptFlag)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmwiki capture: %s\n", oneLineMsg(cliMessage(err)))
		return nil
	}
	if msg != "" {
		fmt.Fprintf(e.stderr, "llmwiki capture: %s\n", msg)
	}
	return nil
}

func capture(ctx context.Context, e env, rootFlag string, ifEnabled bool, session, transcriptPath string) (string, error) {
	// A bad hook input is not returned at once: once the wiki is open it is
	// recorded in the audit log like every other capture attempt.
	var in hookInput
	var inputErr error
	if session == "" {
		data, err := io.ReadAll(io.LimitReader(e.stdin, 1<<20))
		if err != nil {
			inputErr = store.Errorf(store.CodeInvalid, "read hook input: %v", err)
		} else if len(strings.TrimSpace(string(data))) > 0 {
			if err := json.Unmarshal(data, &in); err != nil {
				inputErr = store.Errorf(store.CodeInvalid, "stdin is not Claude Code hook JSON: %v", err)
			}
		}
		session = in.SessionID
	}
	if transcriptPath == "" {
		transcriptPath = in.TranscriptPath
	}
	dir, named, err := hookRoot(e, rootFlag, in.CWD)
	if err != nil {
		return "", err
	}
	if noWiki(dir) != nil {
		if inputErr != nil {
			return "", fmt.Errorf("%s; no wiki at %s to record it in", store.PublicMessage(inputErr), dir)
		}
		return "", fmt.Errorf("no wiki at %s%s (run llmwiki init %s); nothing was captured", dir, named, dir)
	}
	st, err := wiki.Open(dir, wiki.WithLogger(newLogger(e)))
	if err != nil {
		return "", fmt.Errorf("open wiki at %s: %s", dir, store.PublicMessage(err))
	}
	defer st.Close()
	if ifEnabled && !captureEnabled(e, st) {
		return "", nil
	}
	call := store.NewCall("cli:capture", st.SessionID(), map[string]any{"session_id": session, "transcript": transcriptPath, "event": in.HookEventName, "reason": in.Reason})
	ctx = store.WithCall(ctx, call)
	app.InstallGit(st)
	var msg string
	if err = inputErr; err == nil {
		// A long session saved in parts is one commit.
		cctx, done := st.OneCommit(ctx)
		msg, err = captureInto(cctx, e, st, session, transcriptPath, in.CWD)
		done()
	}
	if err == nil && named != "" && strings.HasPrefix(msg, "saved ") {
		msg += " in the wiki at " + dir + named
	}
	if aerr := st.Audit(call, err); aerr != nil {
		fmt.Fprintf(e.stderr, "llmwiki capture: audit line not written: %s\n", store.PublicMessage(aerr))
	}
	return msg, err
}

// hookRoot is the wiki a session hook works on (capture, orient --hook): --root, else the wiki the
// .mcp.json of the session's project (cwd or a parent) gives llmwiki,
// else $LLMWIKI_ROOT, else ~/llmwiki. named says which .mcp.json chose it.
func hookRoot(e env, rootFlag, cwd string) (dir, named string, err error) {
	if rootFlag == "" {
		pw, err := install.FindProjectWiki(cwd, e.getenv)
		if err != nil {
			return "", "", fmt.Errorf("the project's MCP configuration: %v; nothing was captured", err)
		}
		if pw != nil {
			return pw.Root, " (named by " + pw.Config + ")", nil
		}
	}
	dir, err = resolveRoot(e, rootFlag)
	return dir, "", err
}

func captureEnabled(e env, st *wiki.Store) bool {
	switch strings.ToLower(e.getenv("LLMWIKI_CAPTURE")) {
	case "1", "true", "yes", "on":
		return true
	}
	return st.Settings().CaptureSessions
}

func captureInto(ctx context.Context, e env, st *wiki.Store, session, transcriptPath, cwd string) (string, error) {
	if !sessionIDRE().MatchString(session) {
		return "", store.Errorf(store.CodeInvalid, "session id %q is missing or malformed; pass the hook JSON on stdin or --session", session)
	}
	file, err := findTranscript(e, session, transcriptPath)
	if err != nil {
		return "", err
	}
	// A FIFO would block the open and a device (a link to /dev/zero)
	// never end the read: only a regular file is read.
	if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() {
		return "", store.Errorf(store.CodeInvalid, "transcript of session %s is not a regular file (%s)", session, store.FileKind(fi.Mode()))
	}
	f, err := os.Open(file)
	if err != nil {
		return "", store.Errorf(store.CodeNotFound, "transcript of session %s cannot be read: %v", session, errors.Unwrap(err))
	}
	defer f.Close()
	s, err := transcript.Parse(f, session)
	if err != nil {
		return "", store.Errorf(store.CodeInvalid, "transcript of session %s: %v", session, err)
	}
	call := store.CallFrom(ctx)
	call.SetExtra("turns", len(s.Turns))
	call.SetExtra("skipped_lines", s.Skipped)
	if len(s.Turns) == 0 {
		return "session " + session + " has no question to capture", nil
	}
	covered, parts, err := capturedTurns(st, session)
	if err != nil {
		return "", err
	}
	if covered >= len(s.Turns) {
		return fmt.Sprintf("session %s is already captured (%s)", session, english.Count(covered, "turn")), nil
	}
	project := ""
	if c := firstNonEmpty(cwd, s.CWD); c != "" {
		project = filepath.Base(c)
	}
	date := st.Now().Format("2006-01-02")
	if !s.Start.IsZero() {
		date = s.Start.UTC().Format("2006-01-02")
	}
	var saved []string
	redacted := redact.Counts{}
	call.SetExtra("redacted", redacted)
	for from := covered; from < len(s.Turns); {
		to := len(s.Turns)
		part := parts + 1
		var doc []byte
		var counts redact.Counts
		for {
			doc, counts, err = transcript.Render(s, from, to, transcript.Meta{Part: part, Project: project, Captured: st.Now()})
			if err != nil {
				return "", store.Errorf(store.CodeInternal, "redact session %s: %v; nothing was saved", session, err)
			}
			if len(doc) <= wiki.MaxSourceBytes || to-from == 1 {
				break
			}
			to = from + (to-from)/2
		}
		name := date + "-" + session
		if part > 1 {
			name += fmt.Sprintf("-part%d", part)
		}
		rel := SessionsDir + "/" + name + ".md"
		if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: rel, Content: string(doc)}); err != nil {
			return "", err
		}
		saved = append(saved, rel)
		redacted.Add(counts)
		parts, from = part, to
	}
	msg := fmt.Sprintf("saved %s (%s", strings.Join(saved, ", "), english.Count(len(s.Turns)-covered, "turn"))
	if n := redacted.Total(); n > 0 {
		msg += fmt.Sprintf("; %s redacted: %s", english.Count(n, "secret value"), redacted)
	}
	return msg + ")", nil
}

// findTranscript returns the transcript file of session: the hook's
// transcript_path when its name is <session>.jsonl, else the one file named
// <session>.jsonl under the Claude Code projects folder. It never falls back
// to "the newest file": another session's transcript would be captured
// under this session's name.
func findTranscript(e env, session, given string) (string, error) {
	want := session + ".jsonl"
	if given != "" {
		if filepath.Base(given) != want {
			return "", store.Errorf(store.CodeInvalid, "transcript %s is not the transcript of session %s (its file is named %s)", filepath.Base(given), session, want)
		}
		return given, nil
	}
	base := e.getenv("CLAUDE_CONFIG_DIR")
	if base == "" {
		home := e.getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", store.Errorf(store.CodeNotFound, "no transcript path given and the home folder is unknown")
			}
			home = h
		}
		base = filepath.Join(home, ".claude")
	}
	matches, _ := filepath.Glob(filepath.Join(base, "projects", "*", want))
	switch len(matches) {
	case 0:
		return "", store.Errorf(store.CodeNotFound, "no transcript named %s under %s", want, filepath.Join(base, "projects"))
	case 1:
		return matches[0], nil
	}
	return "", store.Errorf(store.CodeConflict, "%d transcripts are named %s; pass --transcript", len(matches), want)
}

// capturedTurns reads the parts of session already saved: how many turns
// they cover and how many parts there are.
func capturedTurns(st *wiki.Store, session string) (covered, parts int, err error) {
	srcs, err := st.ListSources()
	if err != nil {
		return 0, 0, err
	}
	for _, si := range srcs {
		if path.Dir(si.Path) != SessionsDir || !strings.Contains(path.Base(si.Path), session) {
			continue
		}
		data, err := st.ReadFile(si.Path)
		if err != nil {
			continue
		}
		d, err := mdoc.ParseDoc(si.Path, data)
		if err != nil || d.Meta == nil || mdoc.MetaString(d.Meta, "session_id") != session {
			continue
		}
		parts++
		if n := metaInt(d.Meta["turns_to"]); n > covered {
			covered = n
		}
	}
	return covered, parts, nil
}

func metaInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case uint64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// cliMessage is what the command line says about err: a store error's
// public message (no internals), else the error itself (ours to word).
func cliMessage(err error) string {
	var we *store.Error
	if errors.As(err, &we) {
		return store.PublicMessage(err)
	}
	return err.Error()
}

func oneLineMsg(s string) string { return strings.Join(strings.Fields(s), " ") }
