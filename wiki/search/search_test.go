package search

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmwiki/llmwiki/wiki"
	"github.com/llmwiki/llmwiki/wiki/edit"
	"github.com/llmwiki/llmwiki/wiki/links"
	"github.com/llmwiki/llmwiki/wiki/plan"
	"github.com/llmwiki/llmwiki/wiki/store"
	"github.com/llmwiki/llmwiki/wiki/wikitest"
	"github.com/llmwiki/llmwiki/wiki/wikitest/teststore"
)

// testWiki makes a wiki with files (project-relative path → content) written
// straight to disk, opens it with an index that reconciles before every
// search, and waits for the first build.
func testWiki(t *testing.T, files map[string]string) (*wiki.Store, *Index, string) {
	t.Helper()
	st, dir := teststore.New(t, files)
	x := Open(st, Options{ReconcileEvery: -1, BuildWait: 30 * time.Second})
	st.AddDerived(x)
	if err := x.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := x.Status(); s.State != StateReady {
		t.Fatalf("index state %+v", s)
	}
	return st, x, dir
}

func mustSearch(t *testing.T, x *Index, q Query) Result {
	t.Helper()
	res, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return res
}

func paths(r Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

func first(t *testing.T, x *Index, q Query, want string) Result {
	t.Helper()
	r := mustSearch(t, x, q)
	if len(r.Hits) == 0 || r.Hits[0].Path != want {
		t.Errorf("search %q (match %s, scope %s): got %v, want %s first", q.Text, q.Match, q.Scope, paths(r), want)
	}
	return r
}

var fixture = map[string]string{
	"pages/cafe.md":        "---\ntitle: Café culture\ntags: [food, paris]\n---\nThe naïve visitor orders a crème brûlée at the café.\n",
	"pages/tokyo.md":       "---\ntitle: 東京の喫茶店\nlang: ja\n---\n東京には多くの喫茶店があります。Obsidianで記録します。\n",
	"pages/zh.md":          "---\ntitle: 同步\n---\n不小心关掉了一个标签页，可以用快捷键重新打开。\n",
	"pages/ko.md":          "---\ntitle: 단어 개수\n---\n단어 개수는 상태 표시줄에 표시돼요.\n",
	"pages/ar.md":          "---\ntitle: مرحبا\n---\nمكتبة المدينة كبيرة جدا\n",
	"pages/th.md":          "---\ntitle: ภาษาไทย\n---\nการซิงค์ข้อมูลระหว่างอุปกรณ์\n",
	"pages/de/notiz.md":    "---\ntitle: Notizen verschwinden\n---\nDie Werkzeugleiste ist verschwunden. Notizen werden automatisch veröffentlicht.\n",
	"pages/en/running.md":  "---\ntitle: Running tests\n---\nThe runner runs every test when you run it.\n",
	"pages/code.md":        "---\ntitle: Helpers\n---\nThe helper getUserName reads the user.\n\nHere is how to parse a config file:\n\n```go\nfunc parseConfig(path string) (*Config, error) {\n\treturn load(path)\n}\n```\n\nUse os.path.join and snake_case_name and the --dry-run flag for POL-358. C++ is not Go.\n",
	"pages/prose-code.md":  "---\ntitle: Code review\n---\nCode review is about code. Good code, code style, code owners: this page says code a lot but has no listing about config parsing.\n",
	"pages/long.md":        "---\ntitle: Glacier hiking\n---\n" + strings.Repeat("Glacier hiking needs crampons, ropes and a guide. ", 300) + "\n",
	"pages/short.md":       "---\ntitle: Packing list\n---\nBring crampons.\n",
	"pages/stop.md":        "---\ntitle: Hamlet\n---\nTo be or not to be, that is the question.\n",
	"pages/tldr/tar.md":    "# tar\n\n> Archiving utility.\n\n- E[x]tract a g[z]ipped archive into a directory:\n\n`tar xzf {{path/to/source.tar.gz}} --directory {{path/to/directory}}`\n",
	"sources/notes.md":     "# Raw notes\n\nThe quarterly meeting discussed the zeppelin budget.\n",
	"sources/blob.bin":     "\x00\x01\x02zeppelin\x00",
	"context.md":           "---\nbuilt_at: 2024-01-01T00:00:00Z\n---\n# Context\n\nThe wiki covers zeppelin history.\n",
	"pages/tagged/one.md":  "---\ntitle: Tagged one\ntags: [alpha]\n---\nShared marmalade words.\n",
	"pages/tagged/two.md":  "---\ntitle: Tagged two\ntags: [beta]\n---\nShared marmalade words.\n",
	"pages/phrase/a.md":    "---\ntitle: A\n---\nthe quick brown fox jumps\n",
	"pages/phrase/b.md":    "---\ntitle: B\n---\nbrown quick fox, the jumps\n",
	"pages/rtl/hebrew.md":  "---\ntitle: שלום\n---\nספריית העיר גדולה מאוד\n",
	"pages/mixed/ja-in.md": "---\ntitle: 製品\n---\nこのページではLlmwikiサーバーの使い方を説明します。\n",
}

func TestAnalysis(t *testing.T) {
	cases := []struct {
		in   string
		want []string // terms that must be produced
	}{
		{"Café NAÏVE Straße", []string{"cafe", "naive", "strasse"}},
		{"getUserName", []string{"get", "user", "name", "getusername"}},
		{"snake_case_name os.path.join", []string{"snake", "case", "name", "snake_case_name", "snakecasename", "os", "path", "join", "os.path.join"}},
		{"--dry-run POL-358", []string{"dry", "run", "dry-run", "dryrun", "pol", "358", "pol-358"}},
		{"C++ and C#", []string{"c", "c++", "c#"}},
		{"don't l'import", []string{"don", "don't", "import"}},
		{"HTTPServer utf8", []string{"http", "server", "httpserver", "utf", "8", "utf8"}},
		{"東京都", []string{"東京", "京都", "東"}},
		{"단어를", []string{"단어", "어를"}},
		{"การซิงค์", []string{"กา", "าร"}},
		{"e[x]tract g[z]ipped", []string{"extract", "gzipped"}},
		{"ＡＢＣ１２３", []string{"abc", "123"}},
	}
	for _, c := range cases {
		got := map[string]bool{}
		for _, tk := range analyzeAll(c.in) {
			got[tk.term] = true
		}
		for _, w := range c.want {
			if !got[w] {
				t.Errorf("analyze(%q): no term %q in %v", c.in, w, got)
			}
		}
	}
}

func TestLanguageRule(t *testing.T) {
	cases := []struct {
		rel, content, want string
	}{
		{"pages/x.md", "---\nlang: de\n---\nhello", "de"},
		{"pages/obsidian-help/ja/x.md", "text", "ja"},
		{"pages/obsidian-help/zh-TW/x.md", "text", "zh-tw"},
		{"pages/tldr/pages.fr/common/x.md", "text", "fr"},
		{"pages/tldr/pages/common/x.md", "the tool that you use for the files in the folder", "en"},
		{"pages/x.md", "Die Werkzeugleiste ist verschwunden und ich weiß nicht, wie ich sie wieder einblenden kann, aber das ist nicht so schlimm.", "de"},
		{"pages/x.md", "東京には多くの喫茶店があります。", "ja"},
		{"pages/x.md", "مكتبة المدينة كبيرة جدا", "ar"},
		{"pages/x.md", "xyz", "en"},
	}
	for _, c := range cases {
		p := parseFile(c.rel, []byte(c.content))
		if got := pageLang(c.rel, p, "en"); got != c.want {
			t.Errorf("pageLang(%s, %q) = %s, want %s", c.rel, c.content, got, c.want)
		}
	}
}

func TestSearchFindsWhatItShould(t *testing.T) {
	_, x, _ := testWiki(t, fixture)
	cases := []struct {
		q    Query
		want string
	}{
		{Query{Text: "cafe"}, "pages/cafe.md"},
		{Query{Text: "CAFÉ"}, "pages/cafe.md"},
		{Query{Text: "creme brulee"}, "pages/cafe.md"},
		{Query{Text: "喫茶店"}, "pages/tokyo.md"},
		{Query{Text: "标签页 快捷键"}, "pages/zh.md"},
		{Query{Text: "상태 표시줄"}, "pages/ko.md"},
		{Query{Text: "المدينة"}, "pages/ar.md"},
		{Query{Text: "ซิงค์"}, "pages/th.md"},
		{Query{Text: "העיר"}, "pages/rtl/hebrew.md"},
		{Query{Text: "Llmwikiサーバー"}, "pages/mixed/ja-in.md"},
		{Query{Text: "llmwiki"}, "pages/mixed/ja-in.md"},
		{Query{Text: "Notiz"}, "pages/de/notiz.md"}, // German stem of Notizen
		{Query{Text: "run"}, "pages/en/running.md"}, // English stem of runs/running
		{Query{Text: "get_user_name"}, "pages/code.md"},
		{Query{Text: "user name"}, "pages/code.md"},
		{Query{Text: "--dry-run"}, "pages/code.md"},
		{Query{Text: "POL-358"}, "pages/code.md"},
		{Query{Text: "C++"}, "pages/code.md"},
		{Query{Text: "os.path.join"}, "pages/code.md"},
		{Query{Text: "extract gzipped archive"}, "pages/tldr/tar.md"},
		{Query{Text: "to be or not to be"}, "pages/stop.md"},
		{Query{Text: "zeppelin budget", Scope: ScopeSources}, "sources/notes.md"},
		{Query{Text: "zeppelin", Scope: ScopeContext}, "context.md"},
		{Query{Text: "show me the code for parsing a config file"}, "pages/code.md"},
		{Query{Text: "glacier crampons"}, "pages/long.md"},
	}
	for _, c := range cases {
		first(t, x, c.q, c.want)
	}
}

func TestLiteralQueries(t *testing.T) {
	_, x, _ := testWiki(t, fixture)
	for _, q := range []string{`POL-358`, `don't`, `--dry-run`, `a:b`, `title:hamlet`, `(`, `*`, `C++`, `"quoted`, `+fox -quick`, `fox~2`, `/regex.*/`, `AND OR NOT`, `\`, `{{x}}`} {
		res, err := x.Search(context.Background(), Query{Text: q})
		if err != nil && store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("query %q: %v", q, err)
		}
		if err == nil && res.Index.State != StateReady {
			t.Errorf("query %q: index %+v", q, res.Index)
		}
	}
	// "title:hamlet" is text, not a field query: it finds the page by its words.
	first(t, x, Query{Text: "title:hamlet"}, "pages/stop.md")
	if r := mustSearch(t, x, Query{Text: "+fox -quick", Match: MatchAll}); len(r.Hits) != 2 {
		t.Errorf("+fox -quick with match all: want both fox pages (the signs are not operators), got %v", paths(r))
	}
}

func TestMatchModesAndFilters(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	if r := mustSearch(t, x, Query{Text: "the quick brown fox", Match: MatchPhrase}); strings.Join(paths(r), ",") != "pages/phrase/a.md" {
		t.Errorf("phrase: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "quick fox", Match: MatchAll}); len(r.Hits) != 2 {
		t.Errorf("all: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "marmalade zeppelin", Match: MatchAll}); len(r.Hits) != 0 {
		t.Errorf("all with a word nowhere on one page: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "marmalade zeppelin", Match: MatchAny, Scope: ScopeAll}); r.Total != 4 {
		t.Errorf("any over all scopes: total %d, hits %v", r.Total, paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "marmalade", Tag: "#Alpha"}); strings.Join(paths(r), ",") != "pages/tagged/one.md" {
		t.Errorf("tag filter: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "marmalade", Prefix: "tagged/tw"}); strings.Join(paths(r), ",") != "pages/tagged/two.md" {
		t.Errorf("prefix filter: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "notizen", Lang: "de"}); strings.Join(paths(r), ",") != "pages/de/notiz.md" {
		t.Errorf("lang filter: got %v", paths(r))
	}
	if r := mustSearch(t, x, Query{Text: "zeppelin"}); len(r.Hits) != 0 {
		t.Errorf("default scope is pages; got %v", paths(r))
	}
	// Paging.
	all := mustSearch(t, x, Query{Text: "marmalade fox quick", Match: MatchAny})
	p1 := mustSearch(t, x, Query{Text: "marmalade fox quick", Match: MatchAny, Limit: 2})
	p2 := mustSearch(t, x, Query{Text: "marmalade fox quick", Match: MatchAny, Limit: 2, Offset: p1.NextOffset})
	if all.Total != 4 || p1.NextOffset != 2 || p2.NextOffset != 0 || len(p2.Hits) != 2 ||
		strings.Join(append(paths(p1), paths(p2)...), ",") != strings.Join(paths(all), ",") {
		t.Errorf("paging: all %v (%d), p1 %v next %d, p2 %v next %d", paths(all), all.Total, paths(p1), p1.NextOffset, paths(p2), p2.NextOffset)
	}
	for _, bad := range []Query{{Text: "x", Match: "fuzzy"}, {Text: "x", Scope: "web"}, {Text: "x", Limit: -1}, {Text: "x", Lang: "klingon"}, {Text: "x", Offset: MaxOffset + 1}} {
		if _, err := x.Search(context.Background(), bad); store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("%+v: err %v, want invalid", bad, err)
		}
	}
	if r := mustSearch(t, x, Query{Text: "marmalade", Limit: 500}); len(r.Hits) > MaxLimit || !strings.Contains(strings.Join(r.QueryNotes, " "), "limit 500 is more than 50") {
		t.Errorf("limit not capped, or capped silently: %d hits, notes %q", len(r.Hits), r.QueryNotes)
	}
	// updated: the frontmatter key, else the file's modification time.
	mt := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "sources", "notes.md"), mt, mt)
	os.Chtimes(filepath.Join(dir, "context.md"), mt, mt)
	for _, q := range []Query{{Text: "zeppelin budget", Scope: ScopeSources}, {Text: "zeppelin history", Scope: ScopeContext}, {Text: "glacier"}} {
		r := mustSearch(t, x, q)
		if len(r.Hits) == 0 {
			t.Fatalf("%q: no hits", q.Text)
		}
		h := r.Hits[0]
		want := mt.Format(time.RFC3339)
		if q.Scope == "" {
			fi, _ := os.Stat(filepath.Join(dir, filepath.FromSlash(h.Path)))
			want = fi.ModTime().UTC().Format(time.RFC3339)
		}
		if h.Updated != want {
			t.Errorf("%s: updated %q, want %q (the file's modification time)", h.Path, h.Updated, want)
		}
	}
	w, err := st.WritePage(context.Background(), wiki.PageInput{Title: "Dated", Content: "A dated page about lichen.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if r := first(t, x, Query{Text: "lichen"}, w.Path); r.Hits[0].Updated != w.Updated {
		t.Errorf("a page's updated key wins: %q, want %q", r.Hits[0].Updated, w.Updated)
	}
}

func TestSnippetsAndListings(t *testing.T) {
	_, x, _ := testWiki(t, fixture)
	r := first(t, x, Query{Text: "glacier guide"}, "pages/long.md")
	h := r.Hits[0]
	if n := len([]rune(h.Snippet)); n < 120 || n > 260 {
		t.Errorf("snippet is %d characters: %q", n, h.Snippet)
	}
	if !strings.Contains(h.Snippet, "**Glacier**") || !strings.Contains(h.Snippet, "**guide**") {
		t.Errorf("matches not marked: %q", h.Snippet)
	}
	r = first(t, x, Query{Text: "parse a config file"}, "pages/code.md")
	if !strings.Contains(r.Hits[0].Listing, "func parseConfig") {
		t.Errorf("the prose that introduces a listing should bring it: %+v", r.Hits[0])
	}
	if r.Hits[0].Line != 6 {
		t.Errorf("line of the best match = %d, want 6", r.Hits[0].Line)
	}
	r = mustSearch(t, x, Query{Text: "show me the code for parsing config"})
	if len(r.Hits) == 0 || r.Hits[0].Path != "pages/code.md" {
		t.Fatalf("code request: %v", paths(r))
	}
	for _, h := range r.Hits {
		if h.Path == "pages/prose-code.md" && h.Score >= r.Hits[0].Score {
			t.Errorf("prose that says code beats the listing")
		}
	}
	if len(r.QueryNotes) == 0 || !strings.Contains(strings.Join(r.QueryNotes, " "), "asks for code") {
		t.Errorf("notes %v", r.QueryNotes)
	}
}

func TestBadInput(t *testing.T) {
	files := map[string]string{}
	for k, v := range fixture {
		files[k] = v
	}
	huge := strings.Repeat("lorem ipsum dolor sit amet ", 200_000) + "needleword " + strings.Repeat("lorem ipsum dolor sit amet ", 120_000) + "pastthecut"
	files["pages/huge.md"] = huge // an 8.6 MB single line: indexed up to MaxIndexedBytes
	st, x, _ := testWiki(t, files)
	ctx := context.Background()

	r := first(t, x, Query{Text: "needleword"}, "pages/huge.md")
	if n := len([]rune(r.Hits[0].Snippet)); n > 300 || !strings.Contains(r.Hits[0].Snippet, "**needleword**") {
		t.Errorf("snippet of a 5 MB line: %d chars %q", n, clip(r.Hits[0].Snippet, 400))
	}
	if !strings.Contains(r.Hits[0].Note, "only its first 8388608 bytes") {
		t.Errorf("a file indexed only in part must say so in its hit: %+v", r.Hits[0].Note)
	}
	if r := mustSearch(t, x, Query{Text: "pastthecut"}); len(r.Hits) != 0 {
		t.Errorf("text past MaxIndexedBytes is not indexed: %v", paths(r))
	}
	long := strings.Repeat("marmalade ", 1000) // 10,000 characters
	res, err := x.Search(ctx, Query{Text: long})
	if err != nil || len(res.Hits) == 0 {
		t.Errorf("10,000-character query: %v %v", err, paths(res))
	}
	var words []string
	for i := 0; i < 2000; i++ {
		words = append(words, "w"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
	}
	res, err = x.Search(ctx, Query{Text: strings.Join(words, " ")[:10000]})
	if err != nil || !strings.Contains(strings.Join(res.QueryNotes, " "), "only the first") {
		t.Errorf("10,000 characters of distinct words: %v notes %v", err, res.QueryNotes)
	}
	if _, err := x.Search(ctx, Query{Text: "caf\xe9 \xff"}); store.CodeOf(err) != store.CodeInvalid {
		t.Errorf("invalid UTF-8: %v", err)
	}
	for _, q := range []string{"", "   \n\t", "?!... ---", "(((", "***"} {
		_, err := x.Search(ctx, Query{Text: q})
		if store.CodeOf(err) != store.CodeInvalid {
			t.Errorf("query %q: err %v, want invalid", q, err)
		}
	}
	// Only stop words: they are all searched (nothing else is left), and
	// the result says so.
	r = mustSearch(t, x, Query{Text: "the of and"})
	if r.Index.State != StateReady || len(r.Hits) == 0 || !strings.Contains(strings.Join(r.QueryNotes, " "), "only common words") {
		t.Errorf("stop words only: hits %v notes %q index %+v", paths(r), r.QueryNotes, r.Index)
	}
	for _, h := range r.Hits {
		if !strings.Contains(strings.ToLower(h.Snippet), "**the**") && !strings.Contains(strings.ToLower(h.Snippet), "**and**") && !strings.Contains(strings.ToLower(h.Snippet), "**of**") {
			t.Errorf("stop-word hit %s without a marked stop word: %q", h.Path, h.Snippet)
		}
	}
	// A binary source is not indexed, and not an error.
	if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: "sources/img.bin", Content: base64.StdEncoding.EncodeToString([]byte("\x00\xffzeppelin\x00")), Encoding: "base64"}); err != nil {
		t.Fatal(err)
	}
	r = mustSearch(t, x, Query{Text: "zeppelin", Scope: ScopeSources})
	if strings.Join(paths(r), ",") != "sources/notes.md" || len(st.Stale()) != 0 {
		t.Errorf("binary sources: hits %v stale %v", paths(r), st.Stale())
	}
}

func TestWritesAreIndexedInTheSameCall(t *testing.T) {
	st, x, _ := testWiki(t, fixture)
	ctx := context.Background()
	x.opt.ReconcileEvery = time.Hour // only the write itself may update the index
	none := func(q Query) {
		t.Helper()
		if r := mustSearch(t, x, q); len(r.Hits) != 0 {
			t.Errorf("search %q: still found %v", q.Text, paths(r))
		}
	}
	// write_page: create, then replace.
	w, err := st.WritePage(ctx, wiki.PageInput{Title: "Quokka facts", Content: "The quokka is a small marsupial.\n\n## Diet\n\nLeaves.\n"})
	if err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "quokka marsupial"}, w.Path)
	w2, err := st.WritePage(ctx, wiki.PageInput{Title: "Quokka facts", Content: "Now about wombats.\n\n## Diet\n\nLeaves.\n", BaseSHA256: w.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	none(Query{Text: "quokka marsupial", Match: MatchAll})
	first(t, x, Query{Text: "wombats"}, w.Path)

	// edit_page.
	e, err := edit.Edit(ctx, st, links.Open(st), edit.Input{Page: w.Path, BaseSHA256: w2.SHA256, Op: edit.OpAppend, Heading: "Diet", Content: "Also eucalyptus bark.\n"})
	if err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "eucalyptus bark"}, w.Path)

	// restore_snapshot: back to the marsupial version.
	snaps, err := st.Snapshots(w.Path)
	if err != nil || len(snaps) == 0 {
		t.Fatalf("snapshots: %v %v", snaps, err)
	}
	var oldest store.Snapshot
	for _, sn := range snaps {
		if oldest.Snapshot == "" || sn.Replaced.Before(oldest.Replaced) {
			oldest = sn
		}
	}
	rs, err := st.RestoreSnapshot(ctx, wiki.RestoreInput{Path: w.Path, Snapshot: oldest.Snapshot, BaseSHA256: e.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "quokka marsupial", Match: MatchAll}, w.Path)
	none(Query{Text: "eucalyptus bark", Match: MatchAll})

	// move_page: the old path is gone, the new one found.
	mv, err := edit.Move(ctx, st, links.Open(st), edit.MoveInput{From: w.Path, To: "marsupials/quokka", BaseSHA256: rs.SHA256})
	if err != nil {
		t.Fatal(err)
	}
	r := first(t, x, Query{Text: "quokka marsupial"}, mv.Path)
	for _, p := range paths(r) {
		if p == w.Path {
			t.Errorf("moved page still found at its old path %s: %v", w.Path, paths(r))
		}
	}

	// atomic_write_context (scope context).
	if _, err := st.WriteContext(ctx, wiki.ContextInput{Content: "# Context\n\nThe wiki now covers platypus venom.\n"}); err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "platypus venom", Scope: ScopeContext}, "context.md")

	// save_source.
	if _, err := st.SaveSource(ctx, wiki.SourceInput{Path: "sources/papers/numbat.md", Content: "# Numbat\n\nThe numbat eats termites.\n"}); err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "numbat termites", Scope: ScopeSources}, "sources/papers/numbat.md")

	// research_save: create, then append.
	rw, err := st.ResearchSave(ctx, wiki.ResearchInput{Topic: "Tasmanian devil", Heading: "Range", Content: "Found only in Tasmania.\n"})
	if err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "found only in tasmania", Scope: ScopeSources}, rw.Path)
	if _, err := st.ResearchSave(ctx, wiki.ResearchInput{Topic: "Tasmanian devil", Heading: "Disease", Content: "Facial tumour disease threatens it.\n"}); err != nil {
		t.Fatal(err)
	}
	first(t, x, Query{Text: "facial tumour disease", Scope: ScopeSources}, rw.Path)

	// An approved plan (ingest): its pages are found at once.
	book := plan.NewBook(st)
	p := &plan.Plan{Op: "ingest", Actions: []plan.Action{{Kind: plan.KindCreatePage, Slug: "bilby", Title: "Bilby", Summary: "A desert marsupial.", Markdown: "The bilby digs burrows in the desert.\n"}}}
	if err := book.Save(ctx, p); err != nil {
		t.Fatal(err)
	}
	done, err := plan.Apply(ctx, st, links.Open(st), p.ID, []int{1})
	if err != nil {
		t.Fatalf("apply: %v %+v", err, done)
	}
	first(t, x, Query{Text: "bilby burrows"}, "pages/bilby.md")

	if len(st.Stale()) != 0 {
		t.Errorf("stale after audited writes: %v", st.Stale())
	}
}

func TestOutsideEditsAreReconciled(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	wikitest.WriteFile(t, dir, "pages/new/obsidian-edit.md", "# Platypus\n\nEdited in Obsidian.\n")
	first(t, x, Query{Text: "platypus"}, "pages/new/obsidian-edit.md")
	os.Remove(filepath.Join(dir, "pages", "short.md"))
	if r := mustSearch(t, x, Query{Text: "packing list"}); len(r.Hits) != 0 && r.Hits[0].Path == "pages/short.md" {
		t.Errorf("deleted page still found: %v", paths(r))
	}
	// Same size, new mtime: hashed, and re-indexed only if the bytes differ.
	wikitest.WriteFile(t, dir, "pages/new/obsidian-edit.md", "# Platyplus\n\nEdited in Obsidian.\n")
	os.Chtimes(filepath.Join(dir, "pages/new/obsidian-edit.md"), time.Now(), time.Now().Add(time.Minute))
	first(t, x, Query{Text: "platyplus"}, "pages/new/obsidian-edit.md")
	if len(st.Stale()) != 0 {
		t.Errorf("stale: %v", st.Stale())
	}
}

func TestIndexSurvivesRestartAndRebuildsWhenBroken(t *testing.T) {
	_, x, dir := testWiki(t, fixture)
	first(t, x, Query{Text: "cafe"}, "pages/cafe.md")
	idxDir := filepath.Join(dir, ".llmwiki", "search")

	// Deleted while the server runs: the next search rebuilds it. (Moved
	// away in one step, then deleted: bleve's persister may be adding a
	// file meanwhile, which a plain RemoveAll would trip on.)
	if err := os.Rename(idxDir, idxDir+".gone"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50 && os.RemoveAll(idxDir+".gone") != nil; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	r := first(t, x, Query{Text: "cafe"}, "pages/cafe.md")
	if !strings.Contains(r.Index.Reason, "deleted") {
		t.Errorf("status after rebuild: %+v", r.Index)
	}

	// Corrupted while the server runs (every file replaced by garbage).
	filepath.Walk(currentIndexDir(t, dir), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			os.Remove(p)
			os.WriteFile(p, []byte("garbage"), 0o644)
		}
		return nil
	})
	first(t, x, Query{Text: "cafe"}, "pages/cafe.md")
	x.Close()

	// Corrupted while no server runs: the next start rebuilds and says so.
	os.WriteFile(filepath.Join(currentIndexDir(t, dir), "index_meta.json"), []byte("{not json"), 0o644)
	st2, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	x2 := Open(st2, Options{ReconcileEvery: -1})
	r = first(t, x2, Query{Text: "cafe"}, "pages/cafe.md")
	if !strings.Contains(r.Index.Reason, "unreadable") {
		t.Errorf("status after a corrupt start: %+v", r.Index)
	}
	x2.Close()

	// A clean restart reuses the index and its manifest: nothing to re-index.
	st3, err := wiki.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st3.Close()
	x3 := Open(st3, Options{ReconcileEvery: -1})
	x3.Start()
	x3.Wait(context.Background())
	if x3.Status().Reason != "" || x3.Status().Pages != x2statusPages(t, dir) {
		t.Errorf("restart: %+v", x3.Status())
	}
	first(t, x3, Query{Text: "cafe"}, "pages/cafe.md")
}

// x2statusPages counts the indexable text files of the fixture wiki.
func x2statusPages(t *testing.T, dir string) int {
	n := 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if err == nil && !fi.IsDir() && kindOf(rel) == KindPage {
			n++
		}
		return nil
	})
	return n
}

func TestFailedUpdateMarksStale(t *testing.T) {
	st, x, dir := testWiki(t, fixture)
	x.opt.ReconcileEvery = time.Hour
	// Break the index under the running server: the write still succeeds,
	// and says the index is stale.
	os.RemoveAll(filepath.Join(dir, ".llmwiki", "search"))
	os.WriteFile(filepath.Join(dir, ".llmwiki", "search"), []byte("a file where the folder was"), 0o644)
	ctx := store.WithCall(context.Background(), store.NewCall("write_page", "s", nil))
	if _, err := st.WritePage(ctx, wiki.PageInput{Title: "Kiwi", Content: "kiwi bird\n"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	res, err := x.Search(context.Background(), Query{Text: "kiwi"})
	if err == nil && res.Index.State == StateReady && len(res.Hits) == 0 {
		t.Errorf("a broken index must not look ready with results quietly missing: %+v", res.Index)
	}
	os.Remove(filepath.Join(dir, ".llmwiki", "search"))
	r := first(t, x, Query{Text: "kiwi"}, "pages/kiwi.md")
	if r.Index.State != StateReady {
		t.Errorf("after repair: %+v", r.Index)
	}
}

// BenchmarkSnippetOfAHugeFile measures one hit's snippet in a 5 MB file
// whose only match is at its end (the cost is bounded by snippetScan plus a
// literal scan, not an analysis of the whole file).
func BenchmarkSnippetOfAHugeFile(b *testing.B) {
	dir := b.TempDir()
	if _, err := wiki.Init(dir); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(dir, "pages", "huge.md")
	os.WriteFile(p, []byte("# Huge\n\n"+strings.Repeat("lorem ipsum dolor sit amet ", 200_000)+"needleword\n"), 0o644)
	st, err := wiki.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	x := Open(st, Options{})
	groups, _, codeAsk, _ := x.readQuery(Query{Text: "needleword", Match: MatchBest})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h := Hit{Path: "pages/huge.md", Lang: "en"}
		x.fillSnippet(&h, groups, codeAsk)
		if !strings.Contains(h.Snippet, "**needleword**") {
			b.Fatalf("snippet %q", clip(h.Snippet, 300))
		}
	}
}
