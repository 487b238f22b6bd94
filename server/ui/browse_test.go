package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/eval"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/lint"
	"github.com/llmwiki/llmwiki/wiki/search"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// browseApp is a wiki holding files with its link graph (and, with
// indexed, its search index built) and the web app over it.
type browseApp struct {
	st  *wiki.Store
	dir string
	h   http.Handler
	idx *search.Index
}

func newBrowseApp(t *testing.T, files map[string]string, indexed bool) *browseApp {
	t.Helper()
	quiet := teststore.Quiet()
	st, dir := teststore.New(t, files, wiki.WithLogger(quiet))
	g := links.Open(st)
	st.AddDerived(g)
	b := &browseApp{st: st, dir: dir}
	if indexed {
		b.idx = search.Open(st, search.Options{Logger: quiet})
		st.AddDerived(b.idx)
		if err := b.idx.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	h, err := New(Config{Store: st, Links: g, Search: b.idx, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	b.h = h
	return b
}

// get returns the status and body of GET target.
func (b *browseApp) get(t *testing.T, target string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

// post returns the response to a same-origin form POST.
func (b *browseApp) post(t *testing.T, target string, form url.Values) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	return rec.Result()
}

// mustContain fails unless body holds every one of want.
func mustContain(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("body lacks %q:\n%s", w, body)
		}
	}
}

// article is the rendered page body of a /pages response.
func article(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `<article class="page-body">`)
	j := strings.Index(body, `</article>`)
	if i < 0 || j < i {
		t.Fatalf("no article in:\n%s", body)
	}
	return body[i:j]
}

func TestPagesList(t *testing.T) {
	b := newBrowseApp(t, map[string]string{
		"pages/raft.md":   "---\ntitle: Raft consensus\nsummary: Leader election and log replication\nupdated: 2026-10-01T10:00:00Z\n---\n# Raft\n",
		"pages/paxos.md":  "---\ntitle: Paxos\nsummary: The older protocol\n---\nBody\n",
		"pages/en/Go.md":  "# Go language\n",
		"pages/notes.txt": "not a page",
	}, false)
	code, body := b.get(t, "/pages")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, "Raft consensus", "pages/raft.md", "Leader election and log replication", "2026-10-01T10:00:00Z",
		"Paxos", `href="/pages/paxos.md"`, "Go language", `href="/pages/en/Go.md"`, "1–3 of 3")
	code, body = b.get(t, "/pages?q=leader")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, "Raft consensus", "1–1 of 1")
	if strings.Contains(body, "Paxos") {
		t.Errorf("filter kept Paxos:\n%s", body)
	}
}

func TestPagesListPaging(t *testing.T) {
	files := map[string]string{}
	for i := range listLimit + 5 {
		files[fmt.Sprintf("pages/p%03d.md", i)] = fmt.Sprintf("# Page %03d\n", i)
	}
	b := newBrowseApp(t, files, false)
	_, body := b.get(t, "/pages")
	mustContain(t, body, "1–100 of 105", `href="/pages?cursor=100"`, "Page 099")
	if strings.Contains(body, "Page 100") {
		t.Error("first page shows row 101")
	}
	_, body = b.get(t, "/pages?cursor=100")
	mustContain(t, body, "101–105 of 105", "Page 104", `href="/pages"`)
}

func TestPageRendersInert(t *testing.T) {
	b := newBrowseApp(t, map[string]string{
		"pages/evil.md": "---\ntitle: Evil\n---\n# Evil\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))\n\n" +
			"<img src=x onerror=alert(1)>\n\n<a href=\"/pages/evil.md\" onclick=\"alert(2)\">click</a>\n\n" +
			"[[Evil|self]] <iframe src=\"https://example.com\"></iframe> <a href=\"JaVaScRiPt:alert(3)\">y</a>\n",
		"pages/quote.md": "![[x\" onerror=\"alert(4).png]] [[a\" onclick=\"b]]\n",
	}, false)
	code, body := b.get(t, "/pages/evil")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	art := strings.ToLower(article(t, body))
	for _, bad := range []string{"<script", "javascript:", "onerror=", "onclick=", "<iframe"} {
		if strings.Contains(art, bad) {
			t.Errorf("rendered body holds %q:\n%s", bad, art)
		}
	}
	mustContain(t, art, "click", "self")
	// A wikilink target cannot break out of its attribute: its quotes stay text.
	_, body = b.get(t, "/pages/quote")
	art = article(t, body)
	mustContain(t, art, `<span class="wl-missing">x&#34; onerror=&#34;alert(4).png</span>`)
	if strings.Contains(art, `" onerror`) || strings.Contains(art, `" onclick`) {
		t.Errorf("a quote in a link target closed an attribute:\n%s", art)
	}
}

func TestPageRendersLinksAndEmbeds(t *testing.T) {
	b := newBrowseApp(t, map[string]string{
		"pages/raft.md": "---\ntitle: Raft\ntags: [consensus, distributed]\n---\n# Raft\n\n" +
			"See [[Paxos]], [[Paxos|the older one]], [[Paxos#Phase two]], [[Nowhere]] and [md](paxos.md#phase-one).\n\n" +
			"![[Leader]]\n\n![[diagram.png]]\n\n![[Paxos#Phase two]]\n\n- [x] done\n",
		"pages/paxos.md":      "# Paxos\n\n## Phase one\n\nPrepare.\n\n## Phase two\n\nAccept **quorum**.\n\n## After\n\nLater text.\n",
		"pages/leader.md":     "---\ntitle: Leader\n---\nThe leader text. ![[Raft]] [[Raft]]\n",
		"pages/diagram.png":   "\x89PNG\r\n\x1a\nfake",
		"pages/electing.md":   "Links to [[Raft]].\n",
		"sources/secret.json": "{}",
	}, false)
	code, body := b.get(t, "/pages/raft")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	art := article(t, body)
	mustContain(t, art,
		`<a href="/pages/paxos.md" rel="nofollow">Paxos</a>`,
		`<a href="/pages/paxos.md" rel="nofollow">the older one</a>`,
		`<a href="/pages/paxos.md#h-phase-two" rel="nofollow">`,
		`<span class="wl-missing" title="no file named Nowhere">Nowhere</span>`,
		`<a href="/pages/paxos.md#h-phase-one" rel="nofollow">md</a>`,
		`<div class="wl-embed"><p>The leader text.`, // the embed, one level deep:
		`<a href="/pages/raft.md" rel="nofollow">Raft</a>`,
		`<img src="/files/pages/diagram.png" alt="diagram.png">`,
		"Accept <strong>quorum</strong>",
		`<input checked="" disabled="" type="checkbox">`,
	)
	if strings.Contains(art, "Later text") || strings.Contains(art, "Prepare.") {
		t.Errorf("a section embed inlined more than its section:\n%s", art)
	}
	if strings.Count(art, "wl-embed") != 2 {
		t.Errorf("want two inlined embeds (Leader, Paxos#Phase two), got:\n%s", art)
	}
	// An embed on a line of its own replaces its paragraph: no <div> in a <p>.
	if strings.Contains(art, `<p><div`) || strings.Contains(art, `</div></p>`) {
		t.Errorf("a block embed is nested in a paragraph:\n%s", art)
	}
	mustContain(t, art, "<p>See ", `<p><img src="/files/pages/diagram.png"`)
	// Frontmatter table and backlinks.
	mustContain(t, body, "<th>tags</th><td>consensus, distributed</td>", "<th>title</th><td>Raft</td>",
		`<a href="/pages/electing.md"><code>pages/electing.md</code></a> line 1`, `<code>[[Raft]]</code>`)

	// The heading ids the fragment links point at exist.
	_, body = b.get(t, "/pages/paxos")
	mustContain(t, body, `<h2 id="h-phase-two">Phase two</h2>`)

	// /files serves the image, nothing else.
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/files/pages/diagram.png", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" || !strings.HasSuffix(rec.Body.String(), "fake") {
		t.Errorf("/files/pages/diagram.png: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	for _, p := range []string{"/files/sources/secret.json", "/files/pages/raft.md", "/files/.llmwiki/audit/x.png", "/files/schema.md"} {
		if code, _ := b.get(t, p); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
	if code, _ := b.get(t, "/pages/no-such-page"); code != http.StatusNotFound {
		t.Errorf("missing page: status %d, want 404", code)
	}
}

// writeVersions writes the page raft three times (v1, v2, v3), so two
// versions are stored, and returns the sha256 of each write.
func writeVersions(t *testing.T, st *wiki.Store) []string {
	t.Helper()
	ctx := context.Background()
	var shas []string
	base := ""
	for _, body := range []string{"alpha line\nshared\n", "beta line\nshared\n", "gamma line\nshared\n<script>x</script>\n"} {
		out, err := st.WritePage(ctx, wiki.PageInput{Title: "Raft", Slug: "raft", Content: body, BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = out.SHA256
		shas = append(shas, out.SHA256)
	}
	return shas
}

func TestHistoryShowsDiffsAndRestores(t *testing.T) {
	b := newBrowseApp(t, nil, false)
	shas := writeVersions(t, b.st)
	_, snaps, err := b.st.SnapshotsOf("raft")
	if err != nil || len(snaps) != 2 {
		t.Fatalf("snapshots: %v %v", snaps, err)
	}
	code, body := b.get(t, "/history/raft")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	mustContain(t, body,
		"History of pages/raft.md", shas[2][:12], // the current file
		snaps[0].SHA256Prefix[:12], snaps[1].SHA256Prefix[:12],
		"<span class=\"del\">-beta line\n</span>", "<span class=\"add\">&#43;gamma line\n</span>", // newest version → current
		"<span class=\"del\">-alpha line\n</span>", "<span class=\"add\">&#43;beta line\n</span>", // older → newer
		"<span class=\"add\">&#43;&lt;script&gt;x&lt;/script&gt;\n</span>",
		`name="snapshot" value="`+path.Base(snaps[1].Snapshot)+`"`,
		"1–2 of 2",
	)
	// Restore the oldest version (v1) with the form.
	resp := b.post(t, "/history/raft", url.Values{"snapshot": {path.Base(snaps[1].Snapshot)}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/history/raft" {
		t.Fatalf("restore: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	data, err := os.ReadFile(filepath.Join(b.dir, "pages/raft.md"))
	if err != nil || store.SHA256Hex(data) != shas[0] {
		t.Fatalf("after restore the page is %q (sha %s), want v1 %s", data, store.SHA256Hex(data), shas[0])
	}
	rec := teststore.LastCall(t, b.dir, "web:restore")
	if rec == nil || rec.Outcome != "ok" || rec.Client != Client || len(rec.Writes) == 0 || rec.Writes[0].Path != "pages/raft.md" || rec.Writes[0].After != shas[0] {
		t.Fatalf("audit line of the restore: %+v", rec)
	}
	// The flash says so on the next page, which lists the replaced v3 too.
	req := httptest.NewRequest(http.MethodGet, "/history/raft", nil)
	for _, c := range resp.Cookies() {
		req.AddCookie(c)
	}
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, req)
	mustContain(t, w.Body.String(), "restored pages/raft.md from", "1–3 of 3")

	// A bad snapshot name is refused with a flash, nothing written.
	resp = b.post(t, "/history/raft", url.Values{"snapshot": {"deadbeefdeadbeef"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bad restore: %d", resp.StatusCode)
	}
	if rec := teststore.LastCall(t, b.dir, "web:restore"); rec.Outcome != "error" {
		t.Errorf("bad restore audited as %q", rec.Outcome)
	}
	if after, _ := os.ReadFile(filepath.Join(b.dir, "pages/raft.md")); !bytes.Equal(after, data) {
		t.Error("a refused restore changed the page")
	}
}

func TestHistoryCrossOriginRestoreRefused(t *testing.T) {
	b := newBrowseApp(t, nil, false)
	shas := writeVersions(t, b.st)
	_, snaps, _ := b.st.SnapshotsOf("raft")
	req := httptest.NewRequest(http.MethodPost, "/history/raft", strings.NewReader(url.Values{"snapshot": {path.Base(snaps[1].Snapshot)}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("cross-site restore: status %d, want 403", rec.Code)
	}
	if data, _ := os.ReadFile(filepath.Join(b.dir, "pages/raft.md")); store.SHA256Hex(data) != shas[2] {
		t.Error("a cross-site POST restored a version")
	}
}

func TestHistoryPaging(t *testing.T) {
	b := newBrowseApp(t, nil, false)
	ctx := context.Background()
	base := ""
	for i := range historyLimit + 3 {
		out, err := b.st.WritePage(ctx, wiki.PageInput{Title: "Raft", Slug: "raft", Content: fmt.Sprintf("version %d\n", i), BaseSHA256: base})
		if err != nil {
			t.Fatal(err)
		}
		base = out.SHA256
	}
	_, body := b.get(t, "/history/raft")
	mustContain(t, body, "1–10 of 12", `href="/history/raft?cursor=10"`, "<span class=\"add\">&#43;version 12\n</span>")
	_, body = b.get(t, "/history/raft?cursor=10")
	// The first version of the second page is diffed against the last of the first.
	mustContain(t, body, "11–12 of 12", "<span class=\"del\">-version 1\n</span>", "<span class=\"add\">&#43;version 2\n</span>", "<span class=\"add\">&#43;version 1\n</span>")
	// A name that is no page nor restorable file says why.
	if code, body := b.get(t, "/history/no-such"); code/100 != 4 || !strings.Contains(body, `class="error"`) {
		t.Errorf("missing page history: %d\n%s", code, body)
	}
}

func TestSearchPage(t *testing.T) {
	files := map[string]string{
		"pages/raft.md":   "---\ntitle: Raft consensus\n---\n# Raft\n\n## Election\n\nThe leader election uses randomized timeouts <b>bold</b>.\n",
		"pages/paxos.md":  "---\ntitle: Paxos\n---\nNo leader words here about quorum.\n",
		"sources/note.md": "A source on election timeouts.\n",
	}
	for i := range searchLimit + 2 {
		files[fmt.Sprintf("pages/t%02d.md", i)] = fmt.Sprintf("# Timeout %d\n\ntimeouts timeouts everywhere %d\n", i, i)
	}
	b := newBrowseApp(t, files, true)
	code, body := b.get(t, "/search")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, `data-state="ready"`, "24 pages")

	code, body = b.get(t, "/search?q=leader+election")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	mustContain(t, body, `<a href="/pages/raft.md#h-election">Raft consensus</a> <code>pages/raft.md</code>:6`,
		"<mark>leader</mark> <mark>election</mark>", "&lt;b&gt;bold&lt;/b&gt;", "score ")
	if strings.Contains(body, "<b>bold</b>") {
		t.Error("snippet markup reached the page")
	}
	_, body = b.get(t, "/search?q=timeouts")
	mustContain(t, body, "1–20 of", `href="/search?cursor=20&amp;q=timeouts"`)
	_, body = b.get(t, "/search?q=timeouts&cursor=20")
	mustContain(t, body, "21–")
	_, body = b.get(t, "/search?q=timeouts&scope=sources")
	mustContain(t, body, "<code>sources/note.md</code>", `<option value="sources" selected>`)

	off := newBrowseApp(t, nil, false)
	_, body = off.get(t, "/search?q=x")
	mustContain(t, body, `id="index-off"`)
}

func TestSnippetHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a **b** c", "a <mark>b</mark> c"},
		{"<script>**x**</script>", "&lt;script&gt;<mark>x</mark>&lt;/script&gt;"},
		{"odd **marker", "odd **marker"},
		{"**a** and **b", "<mark>a</mark> and **b"},
	} {
		if got := string(snippetHTML(c.in)); got != c.want {
			t.Errorf("snippetHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestHealthPage(t *testing.T) {
	files := map[string]string{
		"pages/raft.md":   "---\ntitle: Raft\nsources: [sources/raft.md]\n---\n# Raft\n\nThe leader is elected by majority vote. See [[Ghost]] and [[Paxos]].\n",
		"pages/paxos.md":  "---\ntitle: Paxos\nsources: [sources/raft.md]\n---\n# Paxos\n\nThe leader is never elected in Paxos. [[Raft]]\n",
		"sources/raft.md": "Raft paper.\n",
		"pages/bad.md":    "---\ntitle: [unclosed\n---\nBody\n",
	}
	for i := range healthPerCategory + 2 {
		files[fmt.Sprintf("pages/d%02d.md", i)] = fmt.Sprintf("---\ntitle: D%d\nsources: [sources/raft.md]\n---\n# D%d\n\n[[Missing %d]] [[Raft]]\n", i, i, i)
	}
	b := newBrowseApp(t, files, false)
	_, err := lint.Submit(context.Background(), b.st, "agent", "test", []lint.Proposal{{
		Kind: "contradiction", Message: "Raft and Paxos disagree on elections",
		Evidence: []lint.Quote{{Path: "pages/raft.md", Quote: "The leader is elected by majority vote"}, {Path: "pages/paxos.md", Quote: "The leader is never elected in Paxos"}},
	}, {
		Kind: "unsupported_claim", Message: "made up", Evidence: []lint.Quote{{Path: "pages/raft.md", Quote: "this sentence is not in the page"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	code, body := b.get(t, "/health")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	mustContain(t, body,
		`data-kind="dangling_link" data-count="13"`, // Ghost and twelve Missing N
		`<a href="/pages/raft.md"><code>pages/raft.md</code></a>:7`,
		`all 13 dangling_link findings`, `href="/health?category=dangling_link"`,
		`data-kind="contradiction" data-count="1"`,
		`<span class="ok">verified</span> <a href="/pages/raft.md"><code>pages/raft.md</code></a>:7 <q>The leader is elected by majority vote</q>`,
		`<span class="ok">verified</span> <a href="/pages/paxos.md"><code>pages/paxos.md</code></a>:7 <q>The leader is never elected in Paxos</q>`,
		`data-kind="unsupported_claim" data-count="1"`, `<span class="bad">not found</span>`, "unverified",
		`data-ok="false"`, `<td>bad_frontmatter</td><td><code>pages/bad.md</code></td>`,
	)
	if n := strings.Count(body, `<li class="finding finding-`); n > 6*healthPerCategory {
		t.Errorf("overview shows %d findings; it should cap each category", n)
	}
	_, body = b.get(t, "/health?category=dangling_link")
	mustContain(t, body, "Health: dangling_link", "1–13 of 13", "Missing 11", `href="/health">all categories`)
	if strings.Contains(body, `id="structure"`) {
		t.Error("a category page repeats the structure section")
	}
}

func TestEvalPage(t *testing.T) {
	empty := newBrowseApp(t, nil, false)
	code, body := empty.get(t, "/eval")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, `id="eval-empty"`, "file_answer")

	// The eval fixture: seven answered questions, two of them wiki hits,
	// three wasted reads (wiki/eval's tests worked them out by hand).
	b := newBrowseApp(t, nil, false)
	src := filepath.Join(wikitest.RepoRoot(t), "testdata", "eval")
	wikitest.CopyTree(t, filepath.Join(src, "wiki"), b.dir)
	wikitest.CopyTree(t, filepath.Join(src, "audit"), filepath.Join(b.dir, ".llmwiki", "audit"))
	g := links.Open(b.st)
	if _, _, err := eval.Run(context.Background(), b.st, g, eval.Options{}); err != nil { // one stored run
		t.Fatal(err)
	}
	g.Close()
	code, body = b.get(t, "/eval")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	mustContain(t, body, `<svg class="chart" id="eval-chart"`, "<th>Questions answered</th><td class=\"num\">7</td>",
		"<th>Wiki hit rate</th><td class=\"num\">29%</td>", "<th>Wasted reads</th><td class=\"num\">3</td>",
		"hit rate 29% of 7 questions", "3 wasted reads", "1 stored <code>llmwiki eval</code> runs")
	if n := strings.Count(body, `class="hit-point"`); n != 2 {
		t.Errorf("chart has %d hit-rate points, want 2 (the stored run and now)", n)
	}
	if strings.Contains(body, "<script") {
		t.Error("the eval page holds a script")
	}
}

// TestTrendChartWasteAxis: the right axis labels each whole number of
// wasted reads once, never a fraction or a repeat.
func TestTrendChartWasteAxis(t *testing.T) {
	re := regexp.MustCompile(`class="waste-tick"[^>]*>([^<]*)<`)
	for _, tc := range []struct {
		max  int
		want string
	}{{0, "[0 1]"}, {1, "[0 1]"}, {2, "[0 1 2]"}, {3, "[0 1 2 3 4]"}, {4, "[0 1 2 3 4]"}, {5, "[0 2 4 6 8]"}, {10, "[0 3 6 9 12]"}} {
		svg := string(trendChart([]eval.RunSummary{{Time: time.Unix(0, 0), WastedReads: tc.max}}))
		var ticks []string
		for _, m := range re.FindAllStringSubmatch(svg, -1) {
			ticks = append(ticks, m[1])
		}
		if got := fmt.Sprint(ticks); got != tc.want {
			t.Errorf("max %d wasted reads: right axis %s, want %s", tc.max, got, tc.want)
		}
	}
}

// TestActivityNamesEachFileOnce: a call that writes index.md several times
// (an approval of several actions) lists it once on its row.
func TestActivityNamesEachFileOnce(t *testing.T) {
	b := newBrowseApp(t, nil, false)
	ctx := context.Background()
	call := store.NewCall("review:approve", "s-1", nil)
	cctx := store.WithCall(ctx, call)
	for _, title := range []string{"Raft", "Paxos"} {
		if _, err := b.st.WritePage(cctx, wiki.PageInput{Title: title, Content: "body\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.st.Audit(call, nil); err != nil {
		t.Fatal(err)
	}
	_, body := b.get(t, "/activity")
	if n := strings.Count(body, "<code>index.md</code>"); n != 1 {
		t.Errorf("index.md named %d times on the approval's row, want 1", n)
	}
	mustContain(t, body, "<code>pages/raft.md</code>", "<code>pages/paxos.md</code>")
}

func TestActivityPage(t *testing.T) {
	b := newBrowseApp(t, nil, false)
	code, body := b.get(t, "/activity")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, `id="activity-empty"`)

	ctx := context.Background()
	audit := func(tool, client, session string, fn func(context.Context) error) {
		t.Helper()
		call := store.NewCall(tool, session, nil)
		call.Client = client
		err := fn(store.WithCall(ctx, call))
		if aerr := b.st.Audit(call, err); aerr != nil {
			t.Fatal(aerr)
		}
	}
	audit("write_page", "claude-code 2.1", "s-1", func(ctx context.Context) error {
		_, err := b.st.WritePage(ctx, wiki.PageInput{Title: "Raft", Content: "body\n"})
		return err
	})
	audit("search_wiki", "cursor 1.0", "s-2", func(context.Context) error {
		return store.Errorf(store.CodeInvalid, "query is empty")
	})
	for range activityLimit + 4 {
		audit("read_page", "claude-code 2.1", "s-3", func(context.Context) error { return nil })
	}
	code, body = b.get(t, "/activity")
	if code != 200 {
		t.Fatalf("status %d:\n%s", code, body)
	}
	mustContain(t, body, "1–100 of 106", `href="/activity?cursor=100"`,
		`<option value="claude-code 2.1">claude-code 2.1</option>`, `<option value="cursor 1.0">cursor 1.0</option>`,
		`<option value="write_page">write_page</option>`, `<option value="error">error</option>`, `<option value="s-2">s-2</option>`)
	if i, j := strings.Index(body, "<code>read_page</code>"), strings.Index(body, "<code>write_page</code>"); i < 0 || j >= 0 {
		t.Errorf("the first page should hold the newest lines (read_page) only: read_page at %d, write_page at %d", i, j)
	}
	_, body = b.get(t, "/activity?cursor=100")
	mustContain(t, body, "101–106 of 106", "<code>write_page</code>", "<code>search_wiki</code>")
	if i, j := strings.Index(body, "<code>search_wiki</code>"), strings.Index(body, "<code>write_page</code>"); i > j {
		t.Error("older lines come before newer ones")
	}

	_, body = b.get(t, "/activity?tool=write_page")
	mustContain(t, body, "1–1 of 1", "<td>claude-code 2.1</td><td><code>s-1</code></td><td><code>write_page</code></td><td>ok</td><td><code>pages/raft.md</code>",
		`<option value="write_page" selected>`)
	_, body = b.get(t, "/activity?outcome=error&client=cursor+1.0")
	mustContain(t, body, "1–1 of 1", "<code>search_wiki</code>", `<span class="sev sev-error">invalid</span>`, "query is empty")
	_, body = b.get(t, "/activity?session=s-9")
	mustContain(t, body, "No line matches these filters.", `<option value="s-9" selected>`)

	// A new line shows at once (the cached day file grew).
	audit("lint_findings", "claude-code 2.1", "s-4", func(context.Context) error { return nil })
	_, body = b.get(t, "/activity?session=s-4")
	mustContain(t, body, "1–1 of 1", "<code>lint_findings</code>")
}

// TestHealthLintCache: the health page keeps its lint report until the wiki
// or the kept findings change, or a person asks for a new run.
func TestHealthLintCache(t *testing.T) {
	quiet := teststore.Quiet()
	st, _ := teststore.New(t, map[string]string{
		"pages/raft.md": "---\ntitle: Raft\n---\n# Raft\n\n[[Ghost]]\n",
	}, wiki.WithLogger(quiet))
	g := links.Open(st)
	st.AddDerived(g)
	a := &app{cfg: Config{Store: st, Links: g}, log: quiet}
	ctx := context.Background()
	first, when, err := a.lintReport(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	again, when2, _ := a.lintReport(ctx, false)
	if again != first || !when2.Equal(when) {
		t.Error("a second view with nothing changed ran lint again")
	}
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Paxos", Slug: "paxos", Content: "[[Nowhere]]\n"}); err != nil {
		t.Fatal(err)
	}
	after, _, _ := a.lintReport(ctx, false)
	if after == first {
		t.Fatal("a write kept the old report")
	}
	if n, m := countKind(first, "dangling_link"), countKind(after, "dangling_link"); n != 1 || m != 2 {
		t.Errorf("dangling links %d then %d, want 1 then 2", n, m)
	}
	if _, err := lint.Dismiss(ctx, st, g, []string{after.Findings[0].ID}, "known", "person"); err != nil {
		t.Fatal(err)
	}
	dismissed, _, _ := a.lintReport(ctx, false)
	if dismissed == after || dismissed.Summary.Dismissed != 1 {
		t.Errorf("a dismissal kept the old report (dismissed %d)", dismissed.Summary.Dismissed)
	}
	forced, _, _ := a.lintReport(ctx, true)
	if forced == dismissed {
		t.Error("run lint now returned the cached report")
	}

	b := newBrowseApp(t, nil, false)
	if res := b.post(t, "/health", nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/health" {
		t.Errorf("POST /health: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	_, body := b.get(t, "/health")
	mustContain(t, body, `id="lint-now"`, "Run lint now", "Computed 20")
}

func countKind(rep *lint.Report, kind string) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Kind == kind {
			n++
		}
	}
	return n
}
