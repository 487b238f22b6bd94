package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// The browser tests drive the web app of the built binary with headless
// Chromium (Debian's chromium package) through the DevTools protocol: what
// a person sees and clicks, checked against the files on disk.

// chromiumPath returns the Chromium to drive: $LLMWIKI_CHROMIUM, else the
// first of the usual names on PATH. Without one the test skips, and under
// CI=true it fails (.ci/run installs Debian's chromium package).
func chromiumPath(t testing.TB) string {
	t.Helper()
	wikitest.SkipShort(t, "end-to-end (headless Chromium)")
	if p := os.Getenv("LLMWIKI_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("LLMWIKI_CHROMIUM=%s: %v", p, err)
		}
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "Chromium is not installed: install chromium (apt-get install chromium) or set LLMWIKI_CHROMIUM to its path"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("skipping: " + msg)
	return ""
}

// artifactsDir is where screenshots go: $LLMWIKI_ARTIFACTS/screenshots, or
// testdata/artifacts/screenshots in the repository (git-ignored).
func artifactsDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(wikitest.RepoRoot(t), "testdata", "artifacts", "screenshots")
	if d := os.Getenv("LLMWIKI_ARTIFACTS"); d != "" {
		dir = filepath.Join(d, "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

var uiURLRE = regexp.MustCompile(`(http://127\.0\.0\.1:[0-9]+)`)

// startUI starts `llmwiki ui --root root --addr 127.0.0.1:0`, waits for
// the URL it prints on stderr, and stops it (SIGTERM) when the test ends.
func startUI(t *testing.T, root string, env ...string) *httpProc {
	t.Helper()
	p := startListening(t, "llmwiki ui", []string{"ui", "--root", root, "--addr", "127.0.0.1:0"}, env, uiURLRE)
	t.Cleanup(func() { p.stopOnce(t) })
	return p
}

// stopOnce ends the server with SIGTERM (SIGKILL after 20 s); unlike stop
// it is safe to call twice and does not ask for a clean exit status.
func (p *httpProc) stopOnce(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Errorf("the server did not stop within 20 s of SIGTERM:\n%s", p.log())
	}
}

// browser is one headless Chromium tab and what it saw.
type browser struct {
	t   *testing.T
	ctx context.Context
	// dialogs counts JavaScript dialogs (alert, confirm, prompt) that
	// opened; each is dismissed at once so the page goes on.
	dialogs atomic.Int32
	mu      sync.Mutex
	// console holds dialogs, console messages and uncaught exceptions.
	console []string
}

// newBrowser starts headless Chromium with a fresh profile. The flags keep
// it off the network (no sync, updates, field trials or QUIC probes), so
// on a closed machine it makes no connection but to the test's server.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox, // tests and CI run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx}
	// The first call starts the browser, without a time limit of its own
	// (a limit on it would bound the browser's whole life).
	if _, err := chromedp.Run(ctx, chromedp.Location()); err != nil {
		t.Fatalf("start Chromium (%s): %v", exe, err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.dialogs.Add(1)
			b.logf("dialog %s: %q", ev.Type, ev.Message)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value))
			}
			b.logf("console.%s %s", ev.Type, strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			b.logf("exception: %s", ev.ExceptionDetails.Text)
		}
	})
	return b
}

func (b *browser) logf(format string, args ...any) {
	b.mu.Lock()
	b.console = append(b.console, strings.TrimSpace(fmt.Sprintf(format, args...)))
	b.mu.Unlock()
}

func (b *browser) log() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.console, "\n")
}

// get runs one action in b's tab with a time limit and returns its value.
func get[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v\nbrowser log:\n%s", what, err, b.log())
	}
	return v
}

// do runs actions in b's tab with a time limit.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	get(b, what, chromedp.Steps(steps...))
}

// open loads url, waits for its body and returns the document's status.
func (b *browser) open(url string) int64 {
	b.t.Helper()
	resp := get(b, "open "+url, chromedp.NavigateResponse(url))
	b.do("wait for the body of "+url, chromedp.WaitReady(chromedp.CSS("body")))
	if resp == nil {
		b.t.Fatalf("open %s: no HTTP response", url)
	}
	return resp.Status
}

// shot saves a full-page screenshot of the tab as name.png in the
// artifacts folder and checks it is a PNG of some size.
func (b *browser) shot(name string) string {
	b.t.Helper()
	buf := get(b, "screenshot "+name, chromedp.FullScreenshot(100))
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		b.t.Fatalf("screenshot %s is not a PNG: %v", name, err)
	}
	if r := img.Bounds(); r.Dx() < 100 || r.Dy() < 100 {
		b.t.Fatalf("screenshot %s is %dx%d", name, r.Dx(), r.Dy())
	}
	path := filepath.Join(artifactsDir(b.t), name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

// TestBrowserHarness starts the built binary's web app on a fresh wiki,
// opens it in headless Chromium, and saves a screenshot: the harness the
// other browser tests build on.
func TestBrowserHarness(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	p := startUI(t, root)
	b := newBrowser(t)
	if st := b.open(p.base + "/"); st != 200 {
		t.Fatalf("GET / in Chromium: status %d, want 200\nserver log:\n%s", st, p.log())
	}
	title := get(b, "title", chromedp.Title())
	if !strings.Contains(title, "llmwiki") {
		t.Errorf("title %q does not name llmwiki", title)
	}
	b.shot("harness")
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened", n)
	}
}

// mcpTool calls a tool on c and fails the test on a transport or tool
// error.
func mcpTool(t *testing.T, c *rpc, name string, args map[string]any) toolResult {
	t.Helper()
	r, err := c.tool(name, args)
	if err != nil || r.IsError {
		t.Fatalf("%s: %v %s", name, err, r.Text)
	}
	return r
}

func readBytes(t *testing.T, root, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitFlash waits for the flash line of the page a POST redirected to
// and returns it; a flash of class error fails the test. The page the
// POST came from must have had no flash (a flash is shown once: open the
// page afresh before the click).
func (b *browser) waitFlash(what string) string {
	b.t.Helper()
	b.do(what+": wait for the flash", chromedp.WaitVisible(chromedp.CSS("p.flash, main > p.error")))
	if e := get(b, what+": error flash", chromedp.Evaluate[string](`(document.querySelector("main > p.error") || {}).textContent || ""`)); e != "" {
		b.t.Fatalf("%s: the page shows an error: %s", what, e)
	}
	return get(b, what+": flash", chromedp.Text(chromedp.CSS("p.flash")))
}

// checked returns the checked state of change set ref's action boxes,
// in order.
func (b *browser) checked(ref string) []bool {
	b.t.Helper()
	return get(b, "checkboxes of set "+ref, chromedp.Evaluate[[]bool](
		fmt.Sprintf(`[...document.querySelectorAll('input[type=checkbox][data-set="%s"]')].map(e => e.checked)`, ref)))
}

// TestBrowserReviewFlow is the review of issue 18 as a person does it in
// Chromium: an agent (a stdio MCP client without elicitation) updates a
// page in mode after and proposes a change set of three new pages; on the
// review page the person unticks the second action and approves, then
// reverts the update. The disk must hold exactly the two approved pages,
// with the bytes the proposal announced, and the page's previous version.
// Every page of the web app is then opened and saved as a screenshot.
func TestBrowserReviewFlow(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	mcpTool(t, c, "write_page", map[string]any{"title": "Alpha", "summary": "The first letter.", "content": "Alpha is the first letter.\n\n## Related\n\n- [[beta]]\n"})
	alphaV1 := readBytes(t, root, "pages/alpha.md")
	mcpTool(t, c, "write_page", map[string]any{"title": "Alpha", "content": "Alpha is the first letter of the Greek alphabet.\n\n## Related\n\n- [[beta]]\n- [[one]]\n", "base_sha256": store.SHA256Hex(alphaV1)})
	alphaV2 := readBytes(t, root, "pages/alpha.md")
	set := mcpTool(t, c, "propose_changes", map[string]any{
		"takeaways": []any{"Greek letters are numbered from one.", "Each number gets a page."},
		"actions": []any{
			map[string]any{"tool": "write_page", "why": "the first number", "arguments": map[string]any{"title": "One", "summary": "The number one.", "content": "One comes first; see [[alpha]].\n"}},
			map[string]any{"tool": "write_page", "why": "the second number", "arguments": map[string]any{"title": "Two", "summary": "The number two.", "content": "Two comes after [[one]].\n"}},
			map[string]any{"tool": "write_page", "why": "the third number", "arguments": map[string]any{"title": "Three", "summary": "The number three.", "content": "Three comes after [[two]].\n"}},
		},
	})
	if err := c.close(); err != nil {
		t.Fatalf("stdio server: %v", err)
	}
	var proposal struct {
		ChangeSet int    `json:"change_set"`
		Status    string `json:"status"`
		Actions   []struct {
			N     int               `json:"n"`
			Files []plan.FileChange `json:"files"`
		} `json:"actions"`
	}
	raw, _ := json.Marshal(set.Data)
	if err := json.Unmarshal(raw, &proposal); err != nil || proposal.ChangeSet == 0 || proposal.Status != "pending" || len(proposal.Actions) != 3 {
		t.Fatalf("propose_changes answered %s (%v)", raw, err)
	}
	for _, rel := range []string{"pages/one.md", "pages/two.md", "pages/three.md"} {
		if _, err := os.Stat(filepath.Join(root, rel)); !os.IsNotExist(err) {
			t.Fatalf("%s exists before approval (%v)", rel, err)
		}
	}
	// The queued update of alpha is the write the person reverts.
	var updateID string
	for _, r := range teststore.AuditLines(t, root) {
		if r.Tool == "write_page" && len(r.Writes) > 0 && r.Writes[0].Path == "pages/alpha.md" && r.Writes[0].Before != "" {
			updateID = r.ID
		}
	}
	if updateID == "" {
		t.Fatal("no audit line for the update of pages/alpha.md")
	}

	p := startUI(t, root)
	b := newBrowser(t)
	ref := strconv.Itoa(proposal.ChangeSet)
	if st := b.open(p.base + "/review"); st != 200 {
		t.Fatalf("GET /review: %d\n%s", st, p.log())
	}
	if got := b.checked(ref); fmt.Sprint(got) != "[true true true]" {
		t.Fatalf("change set #%s shows boxes %v, want three ticked", ref, got)
	}
	for _, want := range []string{"Greek letters are numbered from one.", "pages/one.md", "pages/two.md", "pages/three.md", "+One comes first; see [[alpha]]."} {
		if txt := get(b, "set text", chromedp.Text(chromedp.CSS("#set-"+ref))); !strings.Contains(txt, want) {
			t.Errorf("change set #%s does not show %q:\n%s", ref, want, txt)
		}
	}
	if txt := get(b, "write text", chromedp.Text(chromedp.CSS("#write-"+updateID))); !strings.Contains(txt, "+Alpha is the first letter of the Greek alphabet.") || !strings.Contains(txt, "-Alpha is the first letter.") {
		t.Errorf("the queued update shows no diff of its lines:\n%s", txt)
	}
	b.shot("review")

	b.do("untick action 2", chromedp.Click(chromedp.ID(fmt.Sprintf("check-%s-2", ref))))
	if got := b.checked(ref); fmt.Sprint(got) != "[true false true]" {
		t.Fatalf("after unticking action 2 the boxes are %v", got)
	}
	b.shot("review-ticked")
	b.do("approve", chromedp.Click(chromedp.ID("approve-"+ref)))
	flash := b.waitFlash("approve")
	t.Logf("approve: %s", flash)
	b.shot("review-approved")
	// The approved pages hold exactly what was proposed; created and
	// updated are the time of the approval.
	for _, f := range []struct{ rel, title, summary, content string }{
		{"pages/one.md", "One", "The number one.", "One comes first; see [[alpha]].\n"},
		{"pages/three.md", "Three", "The number three.", "Three comes after [[two]].\n"},
	} {
		got := readBytes(t, root, f.rel)
		m := regexp.MustCompile(`(?m)^created: "([0-9TZ:-]+)"$`).FindSubmatch(got)
		if m == nil {
			t.Errorf("%s has no created date:\n%s", f.rel, got)
			continue
		}
		want := fmt.Sprintf("---\ntitle: %s\nsummary: %s\ncreated: \"%s\"\nupdated: \"%s\"\n---\n%s", f.title, f.summary, m[1], m[1], f.content)
		if string(got) != want {
			t.Errorf("%s on disk is\n%q\nwant\n%q", f.rel, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "two.md")); !os.IsNotExist(err) {
		t.Errorf("pages/two.md, the unticked action, exists after approval (%v)", err)
	}
	if !bytes.Equal(readBytes(t, root, "pages/alpha.md"), alphaV2) {
		t.Error("approving the set changed pages/alpha.md")
	}

	if st := b.open(p.base + "/review"); st != 200 {
		t.Fatalf("GET /review: %d", st)
	}
	b.do("revert the update", chromedp.Click(chromedp.ID("revert-"+updateID)))
	flash = b.waitFlash("revert")
	t.Logf("revert: %s", flash)
	b.shot("review-reverted")
	if got := readBytes(t, root, "pages/alpha.md"); !bytes.Equal(got, alphaV1) {
		t.Errorf("after revert pages/alpha.md is\n%s\nwant the version before the update:\n%s", got, alphaV1)
	}
	decided := map[string]string{}
	for _, r := range teststore.AuditLines(t, root) {
		if strings.HasPrefix(r.Tool, "web:") {
			decided[r.Tool] = r.Outcome
		}
	}
	if decided["web:review_approve"] != "ok" || decided["web:review_revert"] != "ok" {
		t.Errorf("the web decisions are not audited as ok: %v", decided)
	}

	// Every page of the web app, as a person browses it.
	for _, pg := range []struct{ name, path, want string }{
		{"pages", "/pages", "Alpha"},
		{"page", "/pages/alpha.md", "Alpha is the first letter."},
		{"history", "/history/alpha.md", "alpha"},
		{"search", "/search?q=first+letter", "Alpha"},
		{"health", "/health", ""},
		{"eval", "/eval", ""},
		{"activity", "/activity", "write_page"},
	} {
		if st := b.open(p.base + pg.path); st != 200 {
			t.Errorf("GET %s in Chromium: status %d", pg.path, st)
		}
		if txt := get(b, pg.name+" text", chromedp.Text(chromedp.CSS("main"))); !strings.Contains(txt, pg.want) {
			t.Errorf("GET %s does not show %q:\n%.1500s", pg.path, pg.want, txt)
		}
		b.shot(pg.name)
	}
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened:\n%s", n, b.log())
	}
	// Browsing wrote no failed call into the audit log (rendering a
	// pending set's diffs is a dry run, not an audited error).
	for _, r := range teststore.AuditLines(t, root) {
		if r.Outcome != "ok" {
			t.Errorf("audit line %s %s: %s %s %s", r.ID, r.Tool, r.Outcome, r.Code, r.Error)
		}
	}
}

// hostileMarkdown is agent-written markdown that tries every way of
// running script in the person's browser; each payload would set
// window.__pwned and open a dialog.
const hostileMarkdown = `Hostile content for the sanitizer.

<script>window.__pwned = "script"; alert("script")</script>

[click me](javascript:window.__pwned='md-link';alert('md-link'))

<a href="javascript:window.__pwned='a';alert('a')" id="jslink">raw link</a>

<img src="x" onerror="window.__pwned='img';alert('img')">

<svg onload="window.__pwned='svg';alert('svg')"><circle r="5"></circle></svg>

<iframe src="javascript:window.parent.__pwned='iframe';alert('iframe')"></iframe>

<div onclick="window.__pwned='div'" onmouseover="alert('hover')" id="hoverme">hover or click me</div>

<form action="javascript:alert('form')"><button id="formbtn">send</button></form>

![pic](javascript:alert('pic'))

<style>body { background: url("javascript:alert('css')") }</style>

## Related

- [[alpha]]
`

// scriptTraces lists what of a page could run script: script elements
// that are not the app's own, on* attributes, and javascript: URLs.
const scriptTraces = `(() => {
	const out = [];
	for (const e of document.querySelectorAll('*')) {
		if (e.tagName === 'SCRIPT' && !(e.getAttribute('src') || '').startsWith('/static/')) out.push('script element: ' + e.outerHTML.slice(0, 80));
		if (e.tagName === 'IFRAME') out.push('iframe: ' + e.outerHTML.slice(0, 80));
		for (const a of e.attributes) {
			if (/^on/i.test(a.name)) out.push(e.tagName + ' ' + a.name + '=' + a.value.slice(0, 60));
			if (/^\s*javascript:/i.test(a.value)) out.push(e.tagName + ' ' + a.name + '=' + a.value.slice(0, 60));
		}
	}
	return out;
})()`

// TestBrowserHostilePageInert writes a page holding <script>, javascript:
// links and onerror= attributes through write_page (so it is also a
// queued write with a diff, in the page list, its history, search results
// and the activity log), and opens each of those pages in Chromium,
// hovering and clicking what the payload offers: no dialog may open, no
// payload may set window.__pwned, and the DOM must hold no script element,
// on* attribute or javascript: URL.
func TestBrowserHostilePageInert(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	title := `Evil <img src=x onerror="window.__pwned='title';alert('title')">`
	mcpTool(t, c, "write_page", map[string]any{"title": "Alpha", "content": "Alpha is safe.\n"})
	first := mcpTool(t, c, "write_page", map[string]any{"slug": "evil", "title": title, "summary": `<script>alert("summary")</script>`, "content": hostileMarkdown})
	raw, _ := json.Marshal(first.Data)
	var w struct {
		SHA256 string `json:"sha256"`
	}
	json.Unmarshal(raw, &w)
	mcpTool(t, c, "write_page", map[string]any{"slug": "evil", "title": title, "content": hostileMarkdown + "\n<img src=y onerror=alert('second')>\n", "base_sha256": w.SHA256})
	if err := c.close(); err != nil {
		t.Fatalf("stdio server: %v", err)
	}

	p := startUI(t, root)
	b := newBrowser(t)
	for _, pg := range []struct{ name, path string }{
		{"hostile-review", "/review"},
		{"hostile-pages", "/pages"},
		{"hostile-page", "/pages/evil.md"},
		{"hostile-history", "/history/evil.md"},
		{"hostile-search", "/search?q=hostile+sanitizer"},
		{"hostile-activity", "/activity"},
	} {
		if st := b.open(p.base + pg.path); st != 200 {
			t.Errorf("GET %s: status %d", pg.path, st)
			continue
		}
		// Hover and click what the payload put on the page, if the
		// sanitizer left it (a click may navigate: come back after).
		for _, sel := range []string{"#hoverme", "#jslink", "#formbtn"} {
			if n := get(b, "count "+sel, chromedp.Evaluate[int](`document.querySelectorAll("`+sel+`").length`)); n > 0 {
				b.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
				time.Sleep(200 * time.Millisecond)
				b.open(p.base + pg.path)
			}
		}
		if traces := get(b, "script traces", chromedp.Evaluate[[]string](scriptTraces)); len(traces) > 0 {
			t.Errorf("GET %s holds what could run script:\n  %s", pg.path, strings.Join(traces, "\n  "))
		}
		if pw := get(b, "window.__pwned", chromedp.Evaluate[string](`typeof window.__pwned === "undefined" ? "" : String(window.__pwned)`)); pw != "" {
			t.Errorf("GET %s: a payload ran (window.__pwned = %q)", pg.path, pw)
		}
		b.shot(pg.name)
	}
	// The payload's text is shown to the person, escaped, where it is data.
	b.open(p.base + "/review")
	if txt := get(b, "review text", chromedp.Text(chromedp.CSS("#writes"))); !strings.Contains(txt, `+<script>window.__pwned = "script"; alert("script")</script>`) {
		t.Errorf("the review diff does not show the agent's <script> line as text:\n%.3000s", txt)
	}
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened:\n%s", n, b.log())
	}
}

// TestBrowserModeBefore: in mode before, an agent's direct write_page
// (a client without elicitation) changes nothing on disk and becomes a
// one-action change set; the person approves one such set and declines
// another in Chromium, and only the approved page is written.
func TestBrowserModeBefore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "wiki")
	initWiki(t, root)
	if err := os.WriteFile(filepath.Join(root, "schema.md"), []byte("---\nreview: before\n---\n# Schema\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := startRPC(t, root)
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Beta", "Gamma"} {
		r, err := c.tool("write_page", map[string]any{"title": title, "summary": "A letter.", "content": title + " is a Greek letter.\n"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.Text, "awaits review") {
			t.Errorf("write_page %s in mode before answered %q, want it to say the change set awaits review", title, r.Text)
		}
	}
	c.close()
	for _, rel := range []string{"pages/beta.md", "pages/gamma.md"} {
		if _, err := os.Stat(filepath.Join(root, rel)); !os.IsNotExist(err) {
			t.Fatalf("%s exists before review (%v)", rel, err)
		}
	}
	p := startUI(t, root)
	b := newBrowser(t)
	if st := b.open(p.base + "/review"); st != 200 {
		t.Fatalf("GET /review: %d", st)
	}
	if mode := get(b, "mode", chromedp.Evaluate[string](`document.getElementById("review-mode").dataset.mode`)); mode != "before" {
		t.Errorf("the page shows mode %q, want before", mode)
	}
	// Sets are listed newest first: Gamma's, then Beta's.
	refs := get(b, "set refs", chromedp.Evaluate[[]string](`[...document.querySelectorAll("article.set")].map(e => e.dataset.set)`))
	if len(refs) != 2 {
		t.Fatalf("the review page lists change sets %v, want two", refs)
	}
	refOf := map[string]string{}
	for _, ref := range refs {
		txt := get(b, "set "+ref, chromedp.Text(chromedp.CSS("#set-"+ref)))
		for _, rel := range []string{"pages/beta.md", "pages/gamma.md"} {
			if strings.Contains(txt, rel) {
				refOf[rel] = ref
			}
		}
	}
	if refOf["pages/beta.md"] == "" || refOf["pages/gamma.md"] == "" || refOf["pages/beta.md"] == refOf["pages/gamma.md"] {
		t.Fatalf("cannot tell the two one-action sets apart: %v", refOf)
	}
	b.shot("before-review")
	b.do("approve beta", chromedp.Click(chromedp.ID("approve-"+refOf["pages/beta.md"])))
	t.Logf("approve: %s", b.waitFlash("approve"))
	b.open(p.base + "/review") // the flash is shown once: wait for a new one
	b.do("decline gamma", chromedp.Click(chromedp.ID("decline-"+refOf["pages/gamma.md"])))
	t.Logf("decline: %s", b.waitFlash("decline"))
	b.shot("before-decided")
	if got := string(readBytes(t, root, "pages/beta.md")); !strings.Contains(got, "title: Beta\n") || !strings.HasSuffix(got, "---\nBeta is a Greek letter.\n") {
		t.Errorf("pages/beta.md after approval:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "pages", "gamma.md")); !os.IsNotExist(err) {
		t.Errorf("pages/gamma.md exists after its set was declined (%v)", err)
	}
	if n := get(b, "sets left", chromedp.Evaluate[int](`document.querySelectorAll("article.set").length`)); n != 0 {
		t.Errorf("%d change sets still listed after approve and decline", n)
	}
	decided := map[string]string{}
	for _, r := range teststore.AuditLines(t, root) {
		if strings.HasPrefix(r.Tool, "web:") {
			decided[r.Tool] = r.Outcome
		}
		if r.Outcome != "ok" {
			t.Errorf("audit line %s %s: %s %s %s", r.ID, r.Tool, r.Outcome, r.Code, r.Error)
		}
	}
	if decided["web:review_approve"] != "ok" || decided["web:review_decline"] != "ok" {
		t.Errorf("the web decisions are not audited as ok: %v", decided)
	}
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened", n)
	}
}
