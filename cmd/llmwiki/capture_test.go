package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	. "github.com/llmwiki/llmwiki/internal/redact/redacttest"
	"github.com/llmwiki/llmwiki/wiki/mdoc"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

const capSession = "5b1c9a2e-7f3d-4c1a-9e2b-0d4f6a8c1e37"

// runIn runs the program in-process with stdin and env, returning stdout,
// stderr and the error.
func runIn(t *testing.T, stdin string, envv map[string]string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return envv[k] }}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(context.Background(), e, args[1:])
			return out.String(), errb.String(), err
		}
	}
	t.Fatalf("no command %s", args[0])
	return "", "", nil
}

// captureFixture makes a wiki and a Claude Code home holding the fixture
// transcript at the path Claude Code uses.
func captureFixture(t *testing.T) (root, home, transcriptPath string) {
	return captureFixtureOf(t, "session.jsonl", capSession)
}

// captureFixtureOf is captureFixture with testdata/transcripts/<file> as the
// transcript of session.
func captureFixtureOf(t *testing.T, file, session string) (root, home, transcriptPath string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "wiki")
	initWiki(t, root)
	home = filepath.Join(dir, "home")
	transcriptPath = filepath.Join(home, ".claude", "projects", "-home-dev-shop-api", session+".jsonl")
	os.MkdirAll(filepath.Dir(transcriptPath), 0o755)
	data, err := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "testdata", "transcripts", file))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(transcriptPath, data, 0o644)
	return root, home, transcriptPath
}

func hookJSON(session, transcript string) string {
	b, _ := json.Marshal(map[string]string{"session_id": session, "transcript_path": transcript, "cwd": "/home/dev/shop-api", "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
	return string(b)
}

func TestCaptureSavesOneSourcePerSession(t *testing.T) {
	root, home, tp := captureFixture(t)
	envv := map[string]string{"HOME": home}
	_, stderr, err := runIn(t, hookJSON(capSession, tp), envv, "capture", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	rel := "sources/sessions/2026-11-20-" + capSession + ".md"
	if !strings.Contains(stderr, "saved "+rel+" (2 turns)") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr = %q", stderr)
	}
	got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(wikitest.RepoRoot(t), "testdata", "transcripts", "session.md"))
	// The same rendering as the golden, but for the capture time.
	strip := func(b []byte) string {
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "captured: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(got) != strip(want) {
		t.Errorf("saved source differs from testdata/transcripts/session.md:\n%s", got)
	}
	calls := teststore.AuditLines(t, root)
	last := calls[len(calls)-1]
	if last.Tool != "cli:capture" || last.Outcome != "ok" || len(last.Writes) != 1 || last.Writes[0].Path != rel || last.Writes[0].Before != "" {
		t.Errorf("audit = %+v", last)
	}

	// Idempotent: the second run changes nothing but its audit line.
	before := wikitest.TreeHashes(t, root, func(r string) bool { return strings.HasPrefix(r, ".llmwiki") })
	_, stderr, _ = runIn(t, hookJSON(capSession, tp), envv, "capture", "--root", root)
	if !strings.Contains(stderr, "already captured (2 turns)") {
		t.Errorf("second run: %q", stderr)
	}
	if d := wikitest.DiffHashes(before, wikitest.TreeHashes(t, root, func(r string) bool { return strings.HasPrefix(r, ".llmwiki") })); len(d) > 0 {
		t.Errorf("second capture changed %v", d)
	}

	// The session went on (resumed): only the new turn is saved, as part 2.
	f, _ := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"user","sessionId":"` + capSession + `","timestamp":"2026-11-21T08:00:00Z","message":{"role":"user","content":"And the refund path?"}}` + "\n")
	f.WriteString(`{"type":"assistant","sessionId":"` + capSession + `","timestamp":"2026-11-21T08:00:05Z","message":{"role":"assistant","content":[{"type":"text","text":"Refunds never retry."}]}}` + "\n")
	f.Close()
	_, stderr, _ = runIn(t, hookJSON(capSession, tp), envv, "capture", "--root", root)
	part2 := "sources/sessions/2026-11-20-" + capSession + "-part2.md"
	if !strings.Contains(stderr, "saved "+part2+" (1 turn)") {
		t.Errorf("continued session: %q", stderr)
	}
	p2, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(part2)))
	if !strings.Contains(string(p2), "Refunds never retry.") || strings.Contains(string(p2), "checkout handler") || !strings.Contains(string(p2), "turns_from: 3") {
		t.Errorf("part 2:\n%s", p2)
	}
	// The first part is untouched.
	if again, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))); !bytes.Equal(again, got) {
		t.Error("part 1 was rewritten")
	}
}

const secretsSession = "9d2f4b61-3c8e-4a7d-b5e0-7a1c2e9f4d83"

// TestCaptureRedactsSecrets: a session holding fifteen secrets of twelve
// kinds, in questions, answers, tool arguments and tool outputs, is saved
// with none of them, anywhere in the wiki (source, audit line, log.md) or on
// stderr, with the text around them, and with the counts by kind in the
// frontmatter, the note under the title and the audit line.
func TestCaptureRedactsSecrets(t *testing.T) {
	root, home, tp := captureFixtureOf(t, "secrets.jsonl", secretsSession)
	fixture, _ := os.ReadFile(tp)
	secrets := map[string]string{
		"openai": FakeOpenAI, "anthropic": FakeAnthropic, "aws key id": FakeAWSKeyID, "aws secret": FakeAWSSecret,
		"github pat": FakeGitHubPAT, "github fine-grained": FakeGitHubFine, "slack bot": FakeSlackBot, "stripe": FakeStripe,
		"google": FakeGoogle, "jwt": FakeJWT, "bearer": FakeBearer, "db password": FakeDBPassword, "db token": FakeDBToken,
		"password": FakePassword, "pem body": FakePEMBody,
	}
	for name, v := range secrets {
		j, _ := json.Marshal(v)
		if !strings.Contains(string(fixture), strings.Trim(string(j), `"`)) {
			t.Fatalf("the fixture lacks the %s secret", name)
		}
	}
	_, stderr, err := runIn(t, hookJSON(secretsSession, tp), map[string]string{"HOME": home}, "capture", "--root", root)
	if err != nil {
		t.Fatal(err)
	}
	rel := "sources/sessions/2026-11-24-" + secretsSession + ".md"
	wantCounts := map[string]int{
		"openai-api-key": 1, "anthropic-api-key": 1, "stripe-access-token": 1, "secret-assignment": 4, "aws-access-token": 1,
		"curl-auth-header": 1, "github-fine-grained-pat": 1, "url-password": 1, "slack-bot-token": 1, "gcp-api-key": 2,
		"jwt": 1, "private-key": 1, "authorization-header": 1,
	}
	total := 0
	for _, n := range wantCounts {
		total += n
	}
	if !strings.Contains(stderr, "saved "+rel+" (2 turns; "+strconv.Itoa(total)+" secret values redacted: ") {
		t.Errorf("stderr = %q", stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	// No secret is anywhere under the wiki root, nor on stderr; not even a
	// piece of one (a cut tool line would keep its start).
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for name, v := range secrets {
			k := min(16, len(v)/2)
			for _, piece := range []string{v, v[:k], v[len(v)/2-k/2 : len(v)/2+k/2], v[len(v)-k:]} {
				if strings.Contains(string(b), piece) || strings.Contains(stderr, piece) {
					t.Errorf("%s keeps %q of the %s secret", p, piece, name)
				}
			}
		}
		return nil
	})
	for _, want := range []string{
		"The nightly sync to Stripe fails. Here is my .env, can you see what is wrong?",
		"OPENAI_API_KEY=[REDACTED:openai-api-key]\nANTHROPIC_API_KEY=[REDACTED:anthropic-api-key]\nSTRIPE_KEY=[REDACTED:stripe-access-token]\nDB_PASSWORD=[REDACTED:secret-assignment]\nDB_TOKEN=[REDACTED:secret-assignment]",
		"The job runs at 02:00 from cron.",
		"The script exports the AWS key [REDACTED:aws-access-token] and its secret AWS_SECRET_ACCESS_KEY=[REDACTED:secret-assignment] in clear text.",
		`command=curl -sS -H "Authorization: Bearer [REDACTED:curl-auth-header]" https://api.shop.test/v1/sync/status → error: HTTP/1.1 401 Unauthorized: token [REDACTED:github-fine-grained-pat] is not allowed`,
		"command=psql postgres://shop:[REDACTED:url-password]@db.internal:5432/shop -c 'select 1' && PASSWORD=… → error: psql: error:",
		"Also the Slack alert bot uses [REDACTED:slack-bot-token] and the maps widget uses GOOGLE_MAPS_KEY: [REDACTED:gcp-api-key]",
		"The admin session cookie was [REDACTED:jwt] and the deploy key is:\n\n[REDACTED:private-key]\n\nDo we leak any of these in the logs?",
		`prints a request's header "Authorization: Bearer [REDACTED:authorization-header]". Mask both in the logger; rotate the token, the Google key [REDACTED:gcp-api-key] and the deploy key.`,
		"- `Grep` path=/home/dev/shop-api/logs → 2 lines",
		strconv.Itoa(total) + " values that looked like secrets were replaced by [REDACTED:<kind>] before saving (secret-assignment 4, gcp-api-key 2, ",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("saved source lacks %q:\n%s", want, doc)
		}
	}
	d, err := mdoc.ParseDoc(rel, data)
	if err != nil {
		t.Fatal(err)
	}
	if n := metaInt(d.Meta["redacted"]); n != total {
		t.Errorf("frontmatter redacted: %v, want %d", d.Meta["redacted"], total)
	}
	kinds, _ := d.Meta["redacted_kinds"].(map[string]any)
	if len(kinds) != len(wantCounts) {
		t.Errorf("redacted_kinds %v, want %v", kinds, wantCounts)
	}
	for k, n := range wantCounts {
		if metaInt(kinds[k]) != n {
			t.Errorf("redacted_kinds[%s] = %v, want %d", k, kinds[k], n)
		}
	}
	calls := teststore.AuditLines(t, root)
	last := calls[len(calls)-1]
	got, _ := last.Extra["redacted"].(map[string]any)
	if last.Outcome != "ok" || len(got) != len(wantCounts) {
		t.Fatalf("audit %+v", last)
	}
	for k, n := range wantCounts {
		if metaInt(got[k]) != n {
			t.Errorf("audit redacted[%s] = %v, want %d", k, got[k], n)
		}
	}
}

// TestCaptureIntoProjectWiki: the session goes to the wiki its project's
// .mcp.json gives llmwiki, not to $LLMWIKI_ROOT's; a project wiki that does
// not exist is said so and not created, and nothing is captured elsewhere.
func TestCaptureIntoProjectWiki(t *testing.T) {
	global, home, tp := captureFixture(t)
	project := filepath.Join(home, "src", "shop-api")
	projectWiki := filepath.Join(project, "docs", "wiki")
	initWiki(t, projectWiki)
	os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(`{"mcpServers":{"llmwiki":{"type":"stdio","command":"llmwiki","args":["serve","--root","docs/wiki"]}}}`), 0o644)
	hook := func(cwd string) string {
		b, _ := json.Marshal(map[string]string{"session_id": capSession, "transcript_path": tp, "cwd": cwd, "hook_event_name": "SessionEnd"})
		return string(b)
	}
	envv := map[string]string{"HOME": home, "LLMWIKI_ROOT": global}
	n := len(teststore.AuditLines(t, global))
	_, stderr, err := runIn(t, hook(filepath.Join(project, "checkout")), envv, "capture")
	rel := "sources/sessions/2026-11-20-" + capSession + ".md"
	if err != nil || !strings.Contains(stderr, "saved "+rel+" (2 turns) in the wiki at "+projectWiki+" (named by "+filepath.Join(project, ".mcp.json")+")") {
		t.Fatalf("err %v stderr %q", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(projectWiki, filepath.FromSlash(rel))); err != nil {
		t.Error(err)
	}
	if files, _ := filepath.Glob(filepath.Join(global, "sources", "sessions", "*")); len(files) != 0 || len(teststore.AuditLines(t, global)) != n {
		t.Errorf("the global wiki got %v", files)
	}
	if calls := teststore.AuditLines(t, projectWiki); calls[len(calls)-1].Tool != "cli:capture" || calls[len(calls)-1].Outcome != "ok" {
		t.Errorf("project audit %+v", calls[len(calls)-1])
	}
	// --root still wins.
	if _, stderr, _ = runIn(t, hook(project), envv, "capture", "--root", global); !strings.Contains(stderr, "saved "+rel) || strings.Contains(stderr, "named by") {
		t.Errorf("--root: %q", stderr)
	}
	// A project whose wiki is not there: said, not created, nothing saved.
	other := filepath.Join(home, "src", "billing")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, ".mcp.json"), []byte(`{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve"],"env":{"LLMWIKI_ROOT":"${HOME}/wikis/billing"}}}}`), 0o644)
	missing := filepath.Join(home, "wikis", "billing")
	_, stderr, err = runIn(t, hook(other), envv, "capture")
	if err != nil || stderr != "llmwiki capture: no wiki at "+missing+" (named by "+filepath.Join(other, ".mcp.json")+") (run llmwiki init "+missing+"); nothing was captured\n" {
		t.Errorf("missing project wiki: %v %q", err, stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("capture created the project's wiki")
	}
	// A project without llmwiki in .mcp.json uses $LLMWIKI_ROOT.
	plain := filepath.Join(home, "src", "plain")
	os.MkdirAll(plain, 0o755)
	os.WriteFile(filepath.Join(plain, ".mcp.json"), []byte(`{"mcpServers":{"git":{"command":"uvx","args":["mcp-server-git"]}}}`), 0o644)
	if _, stderr, _ = runIn(t, hook(plain), envv, "capture"); !strings.Contains(stderr, "already captured") {
		t.Errorf("project without llmwiki: %q", stderr)
	}
}

// TestCaptureFindsThatSession: without transcript_path the file named after
// the session is used, never the newest transcript.
func TestCaptureFindsThatSession(t *testing.T) {
	root, home, tp := captureFixture(t)
	newer := filepath.Join(filepath.Dir(tp), "ffffffff-0000-4000-8000-000000000000.jsonl")
	os.WriteFile(newer, []byte(`{"type":"user","sessionId":"ffffffff-0000-4000-8000-000000000000","message":{"role":"user","content":"the newest session"}}`+"\n"), 0o644)
	_, stderr, err := runIn(t, `{"session_id":"`+capSession+`"}`, map[string]string{"HOME": home}, "capture", "--root", root)
	if err != nil || !strings.Contains(stderr, "saved ") {
		t.Fatalf("err %v stderr %q", err, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(root, "sources", "sessions", "*.md"))
	if len(files) != 1 || !strings.Contains(files[0], capSession) {
		t.Fatalf("saved %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if strings.Contains(string(data), "the newest session") {
		t.Error("captured another session's transcript")
	}
}

// TestCaptureFailsQuietly: every failure exits 0 with one stderr line, writes
// no source, and (when the wiki exists) leaves an audit line saying why.
func TestCaptureFailsQuietly(t *testing.T) {
	root, home, tp := captureFixture(t)
	other := filepath.Join(filepath.Dir(tp), "0a0a0a0a-1111-4222-8333-444455556666.jsonl")
	os.WriteFile(other, []byte("{}\n"), 0o644)
	cases := []struct {
		name, stdin string
		args        []string
		want        string
		audited     bool
	}{
		{"transcript of another session", hookJSON(capSession, other), nil, "is not the transcript of session", true},
		{"missing transcript", hookJSON("1111-2222", ""), nil, "no transcript named 1111-2222.jsonl", true},
		{"malformed session id", hookJSON("../../etc/passwd", tp), nil, "missing or malformed", true},
		{"not hook JSON", "{not json", nil, "not Claude Code hook JSON", true},
		{"hook JSON of the wrong shape", `{"session_id": 42}`, nil, "not Claude Code hook JSON", true},
		{"no wiki", hookJSON(capSession, tp), []string{"--root", filepath.Join(home, "nowiki")}, "no wiki at", false},
		{"not hook JSON and no wiki", "{not json", []string{"--root", filepath.Join(home, "nowiki")}, "not Claude Code hook JSON", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(teststore.AuditLines(t, root))
			args := append([]string{"capture", "--root", root}, c.args...)
			_, stderr, err := runIn(t, c.stdin, map[string]string{"HOME": home}, args...)
			if err != nil {
				t.Errorf("exit error %v: a hook must not fail the editor", err)
			}
			if !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "llmwiki capture: ") {
				t.Errorf("stderr = %q, want one line with %q", stderr, c.want)
			}
			files, _ := filepath.Glob(filepath.Join(root, "sources", "sessions", "*"))
			if len(files) != 0 {
				t.Errorf("saved %v", files)
			}
			calls := teststore.AuditLines(t, root)
			if c.audited {
				if len(calls) != n+1 || calls[len(calls)-1].Outcome != "error" || calls[len(calls)-1].Tool != "cli:capture" || !strings.Contains(calls[len(calls)-1].Error, c.want) {
					t.Errorf("audit: %d -> %d lines, last %+v", n, len(calls), calls[len(calls)-1])
				}
			} else if len(calls) != n {
				t.Errorf("audit: %d -> %d lines in a wiki the attempt was not about", n, len(calls))
			}
			if _, err := os.Stat(filepath.Join(home, "nowiki")); err == nil {
				t.Error("capture created a wiki")
			}
		})
	}
}

func TestCaptureIfEnabled(t *testing.T) {
	root, home, tp := captureFixture(t)
	n := len(teststore.AuditLines(t, root))
	_, stderr, _ := runIn(t, hookJSON(capSession, tp), map[string]string{"HOME": home}, "capture", "--root", root, "--if-enabled")
	files, _ := filepath.Glob(filepath.Join(root, "sources", "sessions", "*"))
	if stderr != "" || len(files) != 0 || len(teststore.AuditLines(t, root)) != n {
		t.Errorf("disabled capture did something: %q %v", stderr, files)
	}
	// Disabled, it does not even complain about its input.
	_, stderr, _ = runIn(t, "{not json", map[string]string{"HOME": home}, "capture", "--root", root, "--if-enabled")
	if stderr != "" || len(teststore.AuditLines(t, root)) != n {
		t.Errorf("disabled capture with a bad hook input: %q, %d audit lines (want %d)", stderr, len(teststore.AuditLines(t, root)), n)
	}
	// schema.md turns it on.
	schema := filepath.Join(root, "schema.md")
	data, _ := os.ReadFile(schema)
	if _, err := mdoc.ParseDoc("schema.md", data); err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "capture_sessions: false", "capture_sessions: true", 1)
	if !strings.Contains(s, "capture_sessions: true") {
		t.Fatal("schema template lacks capture_sessions")
	}
	os.WriteFile(schema, []byte(s), 0o644)
	_, stderr, _ = runIn(t, hookJSON(capSession, tp), map[string]string{"HOME": home}, "capture", "--root", root, "--if-enabled")
	if !strings.Contains(stderr, "saved ") {
		t.Errorf("enabled by schema.md: %q", stderr)
	}
	// So does LLMWIKI_CAPTURE=1 (for another wiki without the setting).
	root2, _, _ := captureFixture(t)
	_, stderr, _ = runIn(t, hookJSON(capSession, tp), map[string]string{"HOME": home, "LLMWIKI_CAPTURE": "1"}, "capture", "--root", root2, "--if-enabled")
	if !strings.Contains(stderr, "saved ") {
		t.Errorf("enabled by LLMWIKI_CAPTURE: %q", stderr)
	}
}

func TestOrient(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "wiki")
	initWiki(t, root)
	out, _, err := runIn(t, "", nil, "orient", "--root", root, "--hook")
	if err != nil {
		t.Fatal(err)
	}
	var hook struct {
		Out struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &hook); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"0 pages", "has not been built yet (cap 400 lines)", "wiki-builder (build)", "never edit its files", "Synthesis (context.md, start)", "Review mode: after (writes apply at once and wait in the review queue"} {
		if !strings.Contains(hook.Out.Context, want) {
			t.Errorf("orientation lacks %q:\n%s", want, hook.Out.Context)
		}
	}
	if hook.Out.Event != "SessionStart" {
		t.Errorf("event %q", hook.Out.Event)
	}
	calls := teststore.AuditLines(t, root)
	if last := calls[len(calls)-1]; last.Tool != "cli:orient" || last.Outcome != "ok" || len(last.Writes) != 0 {
		t.Errorf("audit %+v", last)
	}
	// Without --root, the wiki the session's project names in .mcp.json
	// (the one capture saves into), not $LLMWIKI_ROOT.
	project := filepath.Join(dir, "shop-api")
	initWiki(t, filepath.Join(project, "docs", "wiki"))
	os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(`{"mcpServers":{"llmwiki":{"command":"llmwiki","args":["serve","--root","docs/wiki"]}}}`), 0o644)
	n := len(teststore.AuditLines(t, root))
	if _, _, err := runIn(t, "", map[string]string{"CLAUDE_PROJECT_DIR": project, "LLMWIKI_ROOT": root}, "orient", "--hook"); err != nil {
		t.Fatal(err)
	}
	if calls := teststore.AuditLines(t, filepath.Join(project, "docs", "wiki")); len(calls) == 0 || calls[len(calls)-1].Tool != "cli:orient" {
		t.Errorf("orient --hook did not orient on the project's wiki: %+v", calls)
	}
	if len(teststore.AuditLines(t, root)) != n {
		t.Error("orient --hook read $LLMWIKI_ROOT's wiki although the project names its own")
	}
	// No wiki: say so, create nothing, exit 0.
	missing := filepath.Join(dir, "none")
	out, _, err = runIn(t, "", nil, "orient", "--root", missing, "--hook")
	if err != nil || !strings.Contains(out, "no wiki at") {
		t.Errorf("missing wiki: %v %s", err, out)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("orient created a wiki")
	}
}
